/* pLogP measurement between two ranks (plogp.h; docs/models.md).
 *
 * For each message size m, on a private duplicate of the communicator:
 *   RTT(m)  ping-pong a -> b -> a (m bytes both ways), median of reps;
 *   os(m)   at a: duration of MPI_Send(m) to b, whose receive is posted
 *           (b posts it, then sends a zero-byte "ready"), median;
 *   or(m)   at b: a sends m; b waits until the message has certainly
 *           arrived (a delay of 2 RTT(m) + 20 us, yielding the CPU: see
 *           wait_yielding), then times MPI_Recv,
 *           median (Kielmann's method: the receive only copies out); when
 *           that median exceeds 2 RTT(m) the message was not there yet (the
 *           sender scheduled late on a loaded host): again with the delay
 *           doubled plus that median, up to 3 times in all;
 *   g(m)    a sends a stream of k messages back to back, b acknowledges the
 *           last one with a zero-byte message; g(m) = (T(k) - T(1)) / (k - 1)
 *           with T(j) the time from the first send to the acknowledgement,
 *           each the least of reps (host noise only adds time);
 *   L       RTT(m0) / 2 - g(m0) for the smallest size m0 (pLogP: RTT(m) =
 *           2 (L + g(m))), at least 0.
 * Ranks other than a and b only take part in the communicator duplicate and
 * the final broadcast of the result (from a), which carries the status so
 * every rank returns the same. */
#include "plogp.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define TAG_DATA 1
#define TAG_CTRL 2
/* measurements of or(m) at one size, the delay growing while or(m) > 2 RTT(m) */
#define OR_TRIES 3

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Delays on a shared host only add time: the least of the stream times is
 * the one closest to the network's own (a median of 15 can still be hit
 * when the host is oversubscribed for a while). */
static double minimum(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

/* b's wait before the timed receive of or(m): the delay passes without an
 * MPI call (the timed MPI_Recv must still read the message in, as Kielmann's
 * receive overhead counts), but giving the CPU away in every turn. A busy
 * wait kept a sender that shares b's core (ranks oversubscribed on a node,
 * acct-tune's 8 ranks on 2 cores) off the CPU for the whole delay, so the
 * message was sent only as b's receive began: or(1 B) measured 3-4 ms, a
 * scheduler time slice, against a 45 us round trip, and no table of 12
 * passed acct_plogp_consistent under load 12 (docs/models.md "Measuring
 * pLogP"). */
static void wait_yielding(double seconds, bool busy)
{
    double end = MPI_Wtime() + seconds;
    while (MPI_Wtime() < end)
        if (!busy)
            sched_yield();
}

struct ctx {
    MPI_Comm comm;
    int me, a, b; /* a: the active side; b: its peer */
    char *buf;
    double *v;
    int reps, stream;
    double warm_s;
    bool busy_wait; /* acct_plogp_opts.busy_wait */
};

/* Ping-pong of m bytes; returns the median RTT (seconds) at a (b: 0). */
static int rtt(struct ctx *c, int m, double *out)
{
    int rc = MPI_SUCCESS;
    double end = MPI_Wtime() + c->warm_s;
    int warm = 1;
    /* warm-up: a decides how long, b follows the count it is told */
    if (c->me == c->a) {
        while (MPI_Wtime() < end && warm < 1000)
            warm++;
        rc = MPI_Send(&warm, 1, MPI_INT, c->b, TAG_CTRL, c->comm);
    } else {
        rc = MPI_Recv(&warm, 1, MPI_INT, c->a, TAG_CTRL, c->comm, MPI_STATUS_IGNORE);
    }
    warm = warm < 2 ? 2 : warm > 50 ? 50 : warm;
    for (int i = 0; i < warm + c->reps && rc == MPI_SUCCESS; i++) {
        if (c->me == c->a) {
            double t0 = MPI_Wtime();
            rc = MPI_Send(c->buf, m, MPI_BYTE, c->b, TAG_DATA, c->comm);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(c->buf, m, MPI_BYTE, c->b, TAG_DATA, c->comm, MPI_STATUS_IGNORE);
            if (i >= warm)
                c->v[i - warm] = MPI_Wtime() - t0;
        } else {
            rc = MPI_Recv(c->buf, m, MPI_BYTE, c->a, TAG_DATA, c->comm, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(c->buf, m, MPI_BYTE, c->a, TAG_DATA, c->comm);
        }
    }
    *out = c->me == c->a && rc == MPI_SUCCESS ? median(c->v, c->reps) : 0;
    return rc;
}

/* os(m) at a: the blocking send's duration with the receive posted. */
static int send_overhead(struct ctx *c, int m, double *out)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < c->reps && rc == MPI_SUCCESS; i++) {
        if (c->me == c->a) {
            rc = MPI_Recv(NULL, 0, MPI_BYTE, c->b, TAG_CTRL, c->comm, MPI_STATUS_IGNORE);
            double t0 = MPI_Wtime();
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(c->buf, m, MPI_BYTE, c->b, TAG_DATA, c->comm);
            c->v[i] = MPI_Wtime() - t0;
        } else {
            MPI_Request r;
            rc = MPI_Irecv(c->buf, m, MPI_BYTE, c->a, TAG_DATA, c->comm, &r);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(NULL, 0, MPI_BYTE, c->a, TAG_CTRL, c->comm);
            if (rc == MPI_SUCCESS)
                rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
    }
    *out = c->me == c->a && rc == MPI_SUCCESS ? median(c->v, c->reps) : 0;
    return rc;
}

/* or(m) at b: the receive call of a message that has arrived. delay is
 * b's wait (seconds), known to both. The result stays at b; the caller
 * ships it to a. */
static int recv_overhead(struct ctx *c, int m, double delay, double *out)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < c->reps && rc == MPI_SUCCESS; i++) {
        if (c->me == c->a) {
            rc = MPI_Send(c->buf, m, MPI_BYTE, c->b, TAG_DATA, c->comm);
            if (rc == MPI_SUCCESS) /* b is done: next round */
                rc = MPI_Recv(NULL, 0, MPI_BYTE, c->b, TAG_CTRL, c->comm, MPI_STATUS_IGNORE);
        } else {
            wait_yielding(delay, c->busy_wait);
            double t0 = MPI_Wtime();
            rc = MPI_Recv(c->buf, m, MPI_BYTE, c->a, TAG_DATA, c->comm, MPI_STATUS_IGNORE);
            c->v[i] = MPI_Wtime() - t0;
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(NULL, 0, MPI_BYTE, c->a, TAG_CTRL, c->comm);
        }
    }
    *out = c->me == c->b && rc == MPI_SUCCESS ? median(c->v, c->reps) : 0;
    return rc;
}

/* Least time at a from the first of k sends to b's acknowledgement. */
static int stream_time(struct ctx *c, int m, int k, double *out)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < c->reps && rc == MPI_SUCCESS; i++) {
        if (c->me == c->a) {
            /* start together: b is ready */
            rc = MPI_Recv(NULL, 0, MPI_BYTE, c->b, TAG_CTRL, c->comm, MPI_STATUS_IGNORE);
            double t0 = MPI_Wtime();
            for (int j = 0; j < k && rc == MPI_SUCCESS; j++)
                rc = MPI_Send(c->buf, m, MPI_BYTE, c->b, TAG_DATA, c->comm);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(NULL, 0, MPI_BYTE, c->b, TAG_CTRL, c->comm, MPI_STATUS_IGNORE);
            c->v[i] = MPI_Wtime() - t0;
        } else {
            rc = MPI_Send(NULL, 0, MPI_BYTE, c->a, TAG_CTRL, c->comm);
            for (int j = 0; j < k && rc == MPI_SUCCESS; j++)
                rc = MPI_Recv(c->buf, m, MPI_BYTE, c->a, TAG_DATA, c->comm, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(NULL, 0, MPI_BYTE, c->a, TAG_CTRL, c->comm);
        }
    }
    *out = c->me == c->a && rc == MPI_SUCCESS ? minimum(c->v, c->reps) : 0;
    return rc;
}

/* One size: fills os, or, g (microseconds) and the RTT (seconds) at a. */
static int measure_size(struct ctx *c, int m, double *os, double *orr, double *g, double *rtt_s)
{
    double r = 0, o = 0, x = 0, t1 = 0, tk = 0, delay = 0;
    int rc = rtt(c, m, &r);
    if (rc == MPI_SUCCESS && c->me == c->a)
        delay = 2 * r + 20e-6;
    if (rc == MPI_SUCCESS) /* b needs the delay a measured */
        rc = c->me == c->a ? MPI_Send(&delay, 1, MPI_DOUBLE, c->b, TAG_CTRL, c->comm)
                           : MPI_Recv(&delay, 1, MPI_DOUBLE, c->a, TAG_CTRL, c->comm,
                                      MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        rc = send_overhead(c, m, &o);
    /* or(m): a receive that takes longer than two round trips started
     * before the message arrived (on a loaded host the sender is scheduled
     * later than 2 RTT after b began to wait): wait longer, the observed
     * receive time on top, up to OR_TRIES times in all. a decides and
     * tells b the next delay (0: done). */
    for (int t = 0; rc == MPI_SUCCESS && t < OR_TRIES && delay > 0; t++) {
        rc = recv_overhead(c, m, delay, &x);
        if (rc == MPI_SUCCESS) /* b's or(m) to a */
            rc = c->me == c->b ? MPI_Send(&x, 1, MPI_DOUBLE, c->a, TAG_CTRL, c->comm)
                               : MPI_Recv(&x, 1, MPI_DOUBLE, c->b, TAG_CTRL, c->comm,
                                          MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && c->me == c->a)
            delay = x > 2 * r && t + 1 < OR_TRIES ? 2 * delay + x : 0;
        if (rc == MPI_SUCCESS)
            rc = c->me == c->a ? MPI_Send(&delay, 1, MPI_DOUBLE, c->b, TAG_CTRL, c->comm)
                               : MPI_Recv(&delay, 1, MPI_DOUBLE, c->a, TAG_CTRL, c->comm,
                                          MPI_STATUS_IGNORE);
    }
    if (rc == MPI_SUCCESS)
        rc = stream_time(c, m, 1, &t1);
    if (rc == MPI_SUCCESS)
        rc = stream_time(c, m, c->stream, &tk);
    if (rc == MPI_SUCCESS && c->me == c->a) {
        double gap = (tk - t1) / (c->stream - 1);
        *os = o * 1e6;
        *orr = x * 1e6;
        *g = (gap > 0 ? gap : 0) * 1e6;
        *rtt_s = r;
    }
    return rc;
}

static bool args_ok(MPI_Comm comm, int a, int b, const uint64_t *sizes, size_t n,
                    struct acct_plogp *out)
{
    int np = 0;
    if (comm == MPI_COMM_NULL || MPI_Comm_size(comm, &np) != MPI_SUCCESS || out == NULL ||
        sizes == NULL || n < 1 || n > ACCT_PLOGP_MAX_SIZES || a < 0 || b < 0 || a >= np ||
        b >= np || a == b)
        return false;
    for (size_t i = 0; i < n; i++)
        if (sizes[i] > ACCT_PLOGP_MAX_BYTES || (i > 0 && sizes[i] <= sizes[i - 1]))
            return false;
    return true;
}

int acct_plogp_measure_opts(MPI_Comm comm, int peer_a, int peer_b, const uint64_t *sizes,
                            size_t n, const struct acct_plogp_opts *opts,
                            struct acct_plogp *out)
{
    /* Arguments are the same on every rank: all refuse alike, no message. */
    if (!args_ok(comm, peer_a, peer_b, sizes, n, out))
        return -1;
    struct ctx c = {.comm = MPI_COMM_NULL, .a = peer_a, .b = peer_b,
                    .reps = opts && opts->reps >= 3 ? opts->reps : 15,
                    .stream = opts && opts->stream >= 2 ? opts->stream : 12,
                    .warm_s = opts && opts->warm_s > 0 ? opts->warm_s : 0.01,
                    .busy_wait = opts != NULL && opts->busy_wait};
    struct acct_plogp res = {.n = n};
    double rtt0 = 0;
    int status = 0; /* a's verdict, broadcast with the result */
    int rc = MPI_Comm_dup(comm, &c.comm);
    if (rc != MPI_SUCCESS)
        return -1;
    MPI_Comm_rank(c.comm, &c.me);
    if (c.me == c.a || c.me == c.b) {
        c.buf = malloc(sizes[n - 1] ? (size_t)sizes[n - 1] : 1);
        c.v = malloc((size_t)c.reps * sizeof *c.v);
        int have = c.buf != NULL && c.v != NULL, both = 0;
        /* both sides must have their memory before any measurement */
        int other = c.me == c.a ? c.b : c.a;
        rc = MPI_Sendrecv(&have, 1, MPI_INT, other, TAG_CTRL, &both, 1, MPI_INT, other, TAG_CTRL,
                          c.comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || !have || !both)
            status = -1;
        if (c.buf != NULL)
            memset(c.buf, 0x5a, sizes[n - 1] ? (size_t)sizes[n - 1] : 1);
        for (size_t i = 0; i < n && status == 0; i++) {
            double rs = 0;
            res.m[i] = sizes[i];
            if (measure_size(&c, (int)sizes[i], &res.os_us[i], &res.or_us[i], &res.g_us[i],
                             &rs) != MPI_SUCCESS)
                status = -1;
            if (i == 0)
                rtt0 = rs;
        }
        if (status == 0 && c.me == c.a) {
            double l = rtt0 * 1e6 / 2 - res.g_us[0];
            res.L_us = l > 0 ? l : 0;
            if (acct_plogp_check(&res, NULL, 0) != 0)
                status = -1;
        }
    }
    /* a tells everyone (b's status too: a failure at b shows at a as an
     * MPI error, or b's memory flag above) */
    rc = MPI_Bcast(&status, 1, MPI_INT, c.a, c.comm);
    if (rc == MPI_SUCCESS && status == 0)
        rc = MPI_Bcast(&res, (int)sizeof res, MPI_BYTE, c.a, c.comm);
    if (rc == MPI_SUCCESS && status == 0)
        *out = res;
    free(c.buf);
    free(c.v);
    MPI_Comm_free(&c.comm);
    return rc == MPI_SUCCESS && status == 0 ? 0 : -1;
}

int acct_plogp_measure(MPI_Comm comm, int peer_a, int peer_b, const uint64_t *sizes, size_t n,
                       struct acct_plogp *out)
{
    return acct_plogp_measure_opts(comm, peer_a, peer_b, sizes, n, NULL, out);
}

/* Least over reps of the slowest active pair's stream time (seconds). */
static int nic_time(MPI_Comm comm, int me, const int *a, const int *b, int k, char *buf, int m,
                    int stream, int reps, double *out)
{
    int rc = MPI_SUCCESS;
    double best = 0;
    for (int i = 0; i < reps && rc == MPI_SUCCESS; i++) {
        double v = 0, slowest = 0;
        rc = MPI_Barrier(comm);
        for (int j = 0; j < k && rc == MPI_SUCCESS; j++) {
            if (me == a[j]) {
                double t0 = MPI_Wtime();
                for (int s = 0; s < stream && rc == MPI_SUCCESS; s++)
                    rc = MPI_Send(buf, m, MPI_BYTE, b[j], TAG_DATA, comm);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Recv(NULL, 0, MPI_BYTE, b[j], TAG_CTRL, comm, MPI_STATUS_IGNORE);
                v = MPI_Wtime() - t0;
            } else if (me == b[j]) {
                for (int s = 0; s < stream && rc == MPI_SUCCESS; s++)
                    rc = MPI_Recv(buf, m, MPI_BYTE, a[j], TAG_DATA, comm, MPI_STATUS_IGNORE);
                if (rc == MPI_SUCCESS)
                    rc = MPI_Send(NULL, 0, MPI_BYTE, a[j], TAG_CTRL, comm);
            }
        }
        if (rc == MPI_SUCCESS)
            rc = MPI_Allreduce(&v, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
        best = i == 0 || slowest < best ? slowest : best;
    }
    *out = best;
    return rc;
}

/* Least over reps of the slowest rank's time for k pairs exchanging
 * `stream` messages of m bytes both ways at once (seconds). rbuf holds
 * stream * m bytes: the receives of one rank do not overlap. */
static int nic_time_both(MPI_Comm comm, int me, const int *a, const int *b, int k, char *buf,
                         char *rbuf, int m, int stream, int reps, double *out)
{
    int rc = MPI_SUCCESS, peer = -1;
    double best = 0;
    MPI_Request req[2 * 16];
    for (int j = 0; j < k; j++)
        peer = me == a[j] ? b[j] : me == b[j] ? a[j] : peer;
    for (int i = 0; i < reps && rc == MPI_SUCCESS; i++) {
        double v = 0, slowest = 0;
        rc = MPI_Barrier(comm);
        if (rc == MPI_SUCCESS && peer >= 0) {
            double t0 = MPI_Wtime();
            int n = 0;
            for (int s = 0; s < stream && rc == MPI_SUCCESS; s++)
                rc = MPI_Irecv(rbuf + (size_t)s * (size_t)m, m, MPI_BYTE, peer, TAG_DATA, comm,
                               &req[n++]);
            for (int s = 0; s < stream && rc == MPI_SUCCESS; s++)
                rc = MPI_Isend(buf, m, MPI_BYTE, peer, TAG_DATA, comm, &req[n++]);
            if (rc == MPI_SUCCESS)
                rc = MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
            v = MPI_Wtime() - t0;
        }
        if (rc == MPI_SUCCESS)
            rc = MPI_Allreduce(&v, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
        best = i == 0 || slowest < best ? slowest : best;
    }
    *out = best;
    return rc;
}

static int nic_factor(MPI_Comm comm, const int *a, const int *b, int k, uint64_t m, int stream,
                      int reps, bool both, double *factor);

int acct_plogp_nic_factor(MPI_Comm comm, const int *a, const int *b, int k, uint64_t m,
                          int stream, int reps, double *factor)
{
    return nic_factor(comm, a, b, k, m, stream, reps, false, factor);
}

int acct_plogp_nic_bidir_factor(MPI_Comm comm, const int *a, const int *b, int k, uint64_t m,
                                int stream, int reps, double *factor)
{
    return nic_factor(comm, a, b, k, m, stream, reps, true, factor);
}

static int nic_factor(MPI_Comm comm, const int *a, const int *b, int k, uint64_t m, int stream,
                      int reps, bool both, double *factor)
{
    int np = 0, me = 0, ok = comm != MPI_COMM_NULL && a != NULL && b != NULL && k >= 2 &&
                               m >= 1 && m <= ACCT_PLOGP_MAX_BYTES && stream >= 1 &&
                               stream <= 16 && reps >= 1 && factor != NULL;
    MPI_Comm c = MPI_COMM_NULL;
    if (!ok || MPI_Comm_size(comm, &np) != MPI_SUCCESS || 2 * k > np)
        return -1;
    for (int i = 0; i < k; i++)
        if (a[i] < 0 || a[i] >= np || b[i] < 0 || b[i] >= np || a[i] == b[i])
            return -1;
    if (MPI_Comm_dup(comm, &c) != MPI_SUCCESS)
        return -1;
    MPI_Comm_rank(c, &me);
    char *buf = malloc((size_t)m);
    char *rbuf = both ? malloc((size_t)m * (size_t)stream) : NULL;
    int have = buf != NULL && (!both || rbuf != NULL), all = 0;
    int rc = MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, c);
    double alone = 0, together = 0;
    if (rc == MPI_SUCCESS && all) {
        memset(buf, 0x5a, (size_t)m);
        rc = nic_time(c, me, a, b, 1, buf, (int)m, stream, reps, &alone);
        if (rc == MPI_SUCCESS && both)
            rc = nic_time_both(c, me, a, b, k, buf, rbuf, (int)m, stream, reps, &together);
        else if (rc == MPI_SUCCESS)
            rc = nic_time(c, me, a, b, k, buf, (int)m, stream, reps, &together);
    }
    free(buf);
    free(rbuf);
    MPI_Comm_free(&c);
    if (rc != MPI_SUCCESS || !all || !(alone > 0))
        return -1;
    *factor = together / alone > 1 ? together / alone : 1;
    return 0;
}

/* One repetition of the pair-duplex patterns at this rank: a -> b (both
 * false) or a <-> b; the time from the call to this rank's last
 * completion (0 at the other ranks). */
static int duplex_once(MPI_Comm comm, int me, int a, int b, bool both, char *buf, char *rbuf,
                       int m, int stream, double *out)
{
    MPI_Request req[2 * 16];
    int n = 0, rc = MPI_SUCCESS, peer = me == a ? b : me == b ? a : -1;
    double t0 = MPI_Wtime();
    bool send = me == a || (both && me == b), recv = me == b || (both && me == a);
    for (int s = 0; s < stream && rc == MPI_SUCCESS && peer >= 0; s++) {
        if (recv)
            rc = MPI_Irecv(rbuf + (size_t)s * (size_t)m, m, MPI_BYTE, peer, TAG_DATA, comm,
                           &req[n++]);
        if (send && rc == MPI_SUCCESS)
            rc = MPI_Isend(buf, m, MPI_BYTE, peer, TAG_DATA, comm, &req[n++]);
    }
    if (rc == MPI_SUCCESS && n > 0)
        rc = MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    *out = peer >= 0 ? MPI_Wtime() - t0 : 0;
    return rc;
}

int acct_plogp_pair_overlap(MPI_Comm comm, int a, int b, const uint64_t *m, size_t n, int reps,
                            struct acct_plogp_overlap *out)
{
    struct acct_plogp_overlap o = {0};
    double one[ACCT_PLOGP_OVERLAP_SIZES], both[ACCT_PLOGP_OVERLAP_SIZES];
    if (out == NULL || m == NULL || n < 2 || n > ACCT_PLOGP_OVERLAP_SIZES)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (acct_plogp_pair_duplex(comm, a, b, m[i], 1, reps, &o.at[i]) != 0)
            return -1;
        one[i] = o.at[i].one_median_s;
        both[i] = o.at[i].both_median_s;
    }
    o.n = n;
    if (acct_plogp_overlap_fit(m, one, both, n, &o.factor, &o.overlap_bytes) != 0)
        return -1;
    *out = o;
    return 0;
}

int acct_plogp_pair_duplex(MPI_Comm comm, int a, int b, uint64_t m, int stream, int reps,
                           struct acct_plogp_duplex *out)
{
    enum { MAX_REPS = 100 };
    int np = 0, me = 0;
    if (comm == MPI_COMM_NULL || out == NULL || m < 1 || m > ACCT_PLOGP_MAX_BYTES ||
        stream < 1 || stream > 16 || reps < 1 || reps > MAX_REPS ||
        MPI_Comm_size(comm, &np) != MPI_SUCCESS || a < 0 || a >= np || b < 0 || b >= np ||
        a == b)
        return -1;
    MPI_Comm c = MPI_COMM_NULL;
    if (MPI_Comm_dup(comm, &c) != MPI_SUCCESS)
        return -1;
    MPI_Comm_rank(c, &me);
    bool peer = me == a || me == b;
    char *buf = peer ? malloc((size_t)m) : NULL;
    char *rbuf = peer ? malloc((size_t)m * (size_t)stream) : NULL;
    int have = !peer || (buf != NULL && rbuf != NULL), all = 0;
    int rc = MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, c);
    double t[2][MAX_REPS], v = 0;
    if (rc == MPI_SUCCESS && all) {
        if (peer)
            memset(buf, 0x5a, (size_t)m);
        rc = duplex_once(c, me, a, b, true, buf, rbuf, (int)m, 1, &v); /* warm-up */
        for (int i = 0; i < reps && rc == MPI_SUCCESS; i++)
            for (int both = 0; both < 2 && rc == MPI_SUCCESS; both++) {
                rc = MPI_Barrier(c);
                if (rc == MPI_SUCCESS)
                    rc = duplex_once(c, me, a, b, both, buf, rbuf, (int)m, stream, &v);
                if (rc == MPI_SUCCESS) /* every rank holds the slowest: all decide alike */
                    rc = MPI_Allreduce(&v, &t[both][i], 1, MPI_DOUBLE, MPI_MAX, c);
            }
    }
    free(buf);
    free(rbuf);
    MPI_Comm_free(&c);
    if (rc != MPI_SUCCESS || !all)
        return -1;
    struct acct_plogp_duplex d;
    d.one_least_s = minimum(t[0], reps);
    d.both_least_s = minimum(t[1], reps);
    d.one_median_s = median(t[0], reps);
    d.both_median_s = median(t[1], reps);
    if (!(d.one_median_s > 0))
        return -1;
    d.factor = d.both_median_s / d.one_median_s > 1 ? d.both_median_s / d.one_median_s : 1;
    *out = d;
    return 0;
}
