/* SACK reordering of a tree broadcast (sack.h; docs/sack.md).
 *
 * Messages of one call (P ranks, tree positions 0..P-1, position 0 = root):
 *
 *   x -> root   SACK  {magic, bytes, rate}     on entry, every non-root x
 *                                              (rate: automatic mode, sack.h)
 *   root -> y   CTRL  {position p, rank x}     x was given p, a child of y's
 *                                              position (y != root); the root
 *                                              records its own children
 *   y -> x      FIRST {p, bytes} [+ segment 0] as soon as y knows x (and has
 *                                              segment 0 when it rides along)
 *   y -> x      DATA  segment k                in order, as y gets them
 *   root -> x   VOTE  {vote}                   probe calls of the automatic
 *                                              mode only, once every SACK is in
 *
 * The root hands positions out in SACK arrival order along the plan's fill
 * order (sack_plan.h), which lists every parent before its children, so the
 * parent's rank is always known when a child is placed. With the
 * communicator's state (rt_sack_bcast_auto), the fill order has its leaves
 * last, and once every position with children is taken the root places
 * all ranks not arrived yet on the leaves at once: their data can flow
 * before they enter. FIRST's tag then carries the call number, so such an
 * early FIRST cannot match the MPI_ANY_SOURCE receive of a call the rank
 * is still in (docs/sack.md, "Why calls cannot mix up"). A non-root receives
 * its FIRST from MPI_ANY_SOURCE and learns its parent from the status and
 * its position from the header; from the position it knows how many
 * children (hence CTRL messages) to expect.
 *
 * Why nothing from one call can match another's: a rank is only sent
 * FIRST, DATA or CTRL after the root of that call has its SACK, and its
 * SACK is sent on entry; every message a rank is sent in a call is received
 * in that call before it returns. The root receives SACKs with one receive
 * per source (not MPI_ANY_SOURCE), so a rank that already went on to its
 * next call cannot have that call's SACK taken for this one (MPI keeps
 * messages of one sender, communicator and tag in order); it learns the
 * arrival order from MPI_Waitsome.
 *
 * Progress: each rank runs one loop over MPI_Waitsome on all its pending
 * requests (SACK receives, CTRL, FIRST, a window of segment receives, a
 * window of sends per child: about 1 MiB in flight each, 4 to 128
 * segments, at most 512 send requests for all children together), so it serves each child independently and
 * never blocks on one late process. No rank waits for a message that is
 * not already on its way or caused by a process entering the call, so the
 * call completes for every arrival order once every rank has entered it.
 */
#include "sack.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "acct/log.h"
#include "sack_ctl.h"

#define SACK_WINDOW 128          /* most segments in flight per receiver and per child */
#define SACK_INFLIGHT (1 << 20)  /* ... aiming at this many bytes in flight (ACCT_SACK_INFLIGHT) */
#define SACK_REQS_KIDS 512       /* at most this many send requests for all children */
#define SACK_PIGGY_MAX 16384     /* segment 0 rides with FIRST up to this many bytes */
#define SACK_MAGIC 0x5341434bLL  /* "SACK" */
#define SACK_HDR (2 * (int)sizeof(int64_t))  /* FIRST's header */

/* A whole number from environment variable name, in lo..hi: true and *out
 * if set and valid; unset or empty: false; anything else: one warning
 * (what it should be, and that the default stays), false. */
static bool env_count(const char *name, unsigned long long lo, unsigned long long hi,
                      const char *what, unsigned long long *out)
{
    const char *s = getenv(name);
    char *end = NULL;
    if (s == NULL || *s == '\0')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end != '\0' || *s == '-' || v < lo || v > hi) {
        acct_warn("%s=\"%.32s\" is not %s in %llu..%llu; using the default", name, s, what, lo,
                  hi);
        return false;
    }
    *out = v;
    return true;
}

static pthread_once_t inflight_once = PTHREAD_ONCE_INIT;
static uint64_t inflight = SACK_INFLIGHT;

/* ACCT_SACK_INFLIGHT=BYTES: the send and receive windows per peer, for A/B
 * runs (docs/sack.md, "The protocol"); 4 segments at least, 128 at most. */
static void inflight_read(void)
{
    unsigned long long v;
    if (env_count("ACCT_SACK_INFLIGHT", 1, 1ULL << 30, "a byte count", &v))
        inflight = v;
}

static pthread_once_t pace_once = PTHREAD_ONCE_INIT;
static uint64_t pace = 0; /* 0: each child on its own */

/* ACCT_SACK_PACE=SEGMENTS: children that are in step (no further behind the
 * one furthest ahead than SEGMENTS) are served in step: no segment k goes
 * to one of them before the slowest of them has been sent k - SEGMENTS, as
 * the static tree's rounds do (docs/sack.md, its table of settings). A child
 * that joins further behind (a late process) catches up on its own and
 * never holds the others back. 0 (the default) turns pacing off. */
static void pace_read(void)
{
    unsigned long long v;
    if (env_count("ACCT_SACK_PACE", 0, SACK_WINDOW, "a segment count", &v))
        pace = v;
}

static void say_first(void)
{
    pthread_once(&pace_once, pace_read);
    if (pace > 0)
        acct_debug("SACK reordering: first bcast as root, fill %s, pace %llu",
                   sack_fill_name(rt_sack_fill()), (unsigned long long)pace);
    else
        acct_debug("SACK reordering: first bcast as root, fill %s", sack_fill_name(rt_sack_fill()));
}

/* What this rank sends each child (its rank and position: sack_ctl). */
struct sack_child {
    uint64_t next;   /* next segment to send */
    int inflight;    /* sends pending */
    bool first_sent;
};

/* What a request of the protocol's own is (sack_ctl.h). */
enum {
    B_FIRST = SACK_K_PROTO, /* a non-root: FIRST */
    B_DATA,                 /* a non-root: segment b from the parent */
    B_KID,                  /* a send to child slot a */
};

static const struct sack_proto bcast_proto = {
    .tag_sack = SACK_TAG_SACK, .tag_ctrl = SACK_TAG_CTRL, .tag_vote = SACK_TAG_VOTE,
    .magic = SACK_MAGIC};

struct sack_run {
    struct sack_ctl x; /* requests, SACK, CTRL, VOTE; the root's plan (sack_ctl.h) */
    /* the call */
    char *buf;
    uint64_t bytes, seg, nseg;
    bool piggy;       /* segment 0 rides with FIRST */
    uint64_t seg0;    /* bytes of segment 0 */
    /* this rank's place */
    int parent;       /* rank, -1 for the root and until known */
    uint64_t have;    /* segments 0..have-1 are here */
    uint64_t posted;  /* receives posted for segments < posted */
    int win, swin;    /* receive window, send window per child (segments) */
    uint64_t pace;    /* ACCT_SACK_PACE (segments; 0: off) */
    unsigned char got[SACK_WINDOW]; /* segment k (have <= k < have + W) arrived */
    struct sack_child *kids; /* x.nchild */
    char *stage;      /* nchild FIRST messages */
    char *first_in;   /* FIRST message (non-root) */
    /* the automatic mode (sack.h) */
    struct sack_probe *pr; /* NULL: not asked for */
    bool probe;
    bool early;        /* leaves placed before their SACK (sack_plan_defer_leaves) */
    int first_tag;
    char *is_placed;   /* the root: per rank */
    struct sack_meter meter; /* a non-root: FIRST, then its segments (rate) */
};

static uint64_t seg_len(const struct sack_run *r, uint64_t k)
{
    uint64_t off = k * r->seg;
    return r->bytes - off < r->seg ? r->bytes - off : r->seg;
}

static int first_len(const struct sack_run *r)
{
    return SACK_HDR + (r->piggy ? (int)r->seg0 : 0);
}

/* This rank's place is known (sack_ctl): its children's send state and windows. */
static int kids_init(struct sack_run *r)
{
    int n = r->x.nchild;
    if (n == 0)
        return MPI_SUCCESS;
    r->kids = calloc((size_t)n, sizeof *r->kids);
    r->stage = malloc((size_t)n * (size_t)first_len(r));
    if (r->kids == NULL || r->stage == NULL)
        return MPI_ERR_NO_MEM;
    /* send windows: r->win each, at most SACK_REQS_KIDS requests in all (4 at least) */
    r->swin = SACK_REQS_KIDS / n < r->win ? SACK_REQS_KIDS / n : r->win;
    r->swin = r->swin < 4 ? 4 : r->swin;
    return MPI_SUCCESS;
}

/* Post every receive and send that can go now. */
static int pump(void *run)
{
    struct sack_run *r = run;
    int rc = MPI_SUCCESS;
    /* segment receives from the parent, a window ahead */
    while (rc == MPI_SUCCESS && r->parent >= 0 && r->posted < r->nseg &&
           r->posted < r->have + (uint64_t)r->win) {
        rc = sack_ctl_recv(&r->x, r->buf + r->posted * r->seg, (int)seg_len(r, r->posted),
                           MPI_BYTE, r->parent, SACK_TAG_DATA, B_DATA, 0, (int)r->posted);
        r->posted++;
    }
    /* pacing (ACCT_SACK_PACE): the slowest of the children in step */
    uint64_t limit = UINT64_MAX;
    if (r->pace > 0) {
        uint64_t lead = 0, slow = UINT64_MAX;
        for (int c = 0; c < r->x.nchild; c++)
            if (r->kids[c].first_sent && r->kids[c].next > lead)
                lead = r->kids[c].next;
        for (int c = 0; c < r->x.nchild; c++)
            if (r->kids[c].first_sent && r->kids[c].next + r->pace >= lead &&
                r->kids[c].next < slow)
                slow = r->kids[c].next;
        if (slow != UINT64_MAX)
            limit = slow + r->pace;
    }
    /* each known child */
    for (int c = 0; rc == MPI_SUCCESS && c < r->x.nchild; c++) {
        struct sack_child *k = &r->kids[c];
        int to = r->x.kid_rank[c];
        if (to < 0)
            continue;
        while (rc == MPI_SUCCESS && k->inflight < r->swin) {
            if (!k->first_sent) {
                if (r->piggy && r->have < 1)
                    break;
                char *m = r->stage + (size_t)c * (size_t)first_len(r);
                int64_t hdr[2] = {r->x.kid_pos[c], (int64_t)r->bytes};
                memcpy(m, hdr, sizeof hdr);
                if (r->piggy)
                    memcpy(m + SACK_HDR, r->buf, r->seg0);
                rc = sack_ctl_send(&r->x, m, first_len(r), MPI_BYTE, to, r->first_tag, B_KID, c, 0);
                k->first_sent = true;
                k->next = r->piggy ? 1 : 0;
            } else if (k->next < r->have && k->next < limit) {
                rc = sack_ctl_send(&r->x, r->buf + k->next * r->seg, (int)seg_len(r, k->next),
                                   MPI_BYTE, to, SACK_TAG_DATA, B_KID, c, 0);
                k->next++;
            } else
                break;
            k->inflight++;
        }
    }
    return rc;
}

/* The root of a probe, every SACK in: judge and send the vote to every
 * rank. */
static int vote(struct sack_run *r)
{
    int v = 0;
    double h = r->x.min_rate * (double)r->bytes;
    double s = r->nseg > 1 ? h * (double)r->seg / (double)r->bytes : h;
    r->pr->gain = r->pr->cost = 0;
    r->pr->h = h;
    if (h > 0) { /* no report yet (the site's first SACK call): no opinion */
        v = sack_auto_judge(r->x.t, r->x.plan.fill, r->x.root, r->x.arrive, h, s, &r->pr->gain,
                            &r->pr->cost);
        v = v < -1 ? 0 : v;
    }
    return sack_ctl_vote(&r->x, v);
}

/* The root gives rank x the next position of the fill order. */
static int place(struct sack_run *r, int x)
{
    struct sack_place at;
    int rc;
    if (r->is_placed[x])
        return MPI_ERR_INTERN;
    r->is_placed[x] = 1;
    if ((rc = sack_ctl_place(&r->x, x, &at)) != MPI_SUCCESS)
        return rc;
    return at.up != 0 ? sack_ctl_tell_parent(&r->x, at.up, at.pos, x) : MPI_SUCCESS;
}

/* The root got x's SACK: give x the next position (unless x has one). */
static int on_arrival(void *run, int x)
{
    struct sack_run *r = run;
    int rc = r->probe && r->x.arrived == r->x.size - 1 ? vote(r) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS || r->is_placed[x])
        return rc;
    rc = place(r, x);
    /* every position with children taken: the others go to the leaves now */
    bool full = r->early && r->x.placed == r->x.plan.ninner;
    for (int k = 1; rc == MPI_SUCCESS && full && k < r->x.size; k++)
        if (!r->is_placed[(r->x.root + k) % r->x.size])
            rc = place(r, (r->x.root + k) % r->x.size);
    return rc;
}

/* A non-root got its FIRST: parent, position, maybe segment 0. */
static int on_first(struct sack_run *r, const MPI_Status *st)
{
    int n = 0, rc;
    int64_t hdr[2];
    memcpy(hdr, r->first_in, sizeof hdr);
    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n != first_len(r) ||
        st->MPI_SOURCE < 0 || st->MPI_SOURCE >= r->x.size || st->MPI_SOURCE == r->x.rank ||
        hdr[0] < 1 || hdr[0] >= r->x.size || hdr[1] != (int64_t)r->bytes)
        return MPI_ERR_INTERN;
    r->parent = st->MPI_SOURCE;
    /* the meter starts at FIRST (segment 0, if it rides along, is not timed) */
    sack_meter_piece(&r->meter, r->x.batch, r->x.t_batch, 0);
    if ((rc = sack_ctl_placed(&r->x, (int)hdr[0])) != MPI_SUCCESS ||
        (rc = kids_init(r)) != MPI_SUCCESS)
        return rc;
    if (r->piggy) {
        memcpy(r->buf, r->first_in + SACK_HDR, r->seg0);
        r->have = r->posted = 1;
    }
    return MPI_SUCCESS;
}

static int on_data(struct sack_run *r, uint64_t k)
{
    if (k < r->have || k >= r->have + SACK_WINDOW)
        return MPI_ERR_INTERN;
    r->got[k % SACK_WINDOW] = 1;
    sack_meter_piece(&r->meter, r->x.batch, r->x.t_batch, (double)seg_len(r, k));
    while (r->have < r->nseg && r->got[r->have % SACK_WINDOW]) {
        r->got[r->have % SACK_WINDOW] = 0;
        r->have++;
    }
    return MPI_SUCCESS;
}

/* A request of the bcast's own completed. */
static int on_done(void *run, int kind, int a, int b, const MPI_Status *st)
{
    struct sack_run *r = run;
    switch (kind) {
    case B_FIRST:
        return on_first(r, st);
    case B_DATA:
        return on_data(r, (uint64_t)b);
    case B_KID:
        r->kids[a].inflight--;
        return MPI_SUCCESS;
    default:
        return MPI_ERR_INTERN;
    }
}

static int start_root(void *run)
{
    struct sack_run *r = run;
    int rc;
    r->have = r->posted = r->nseg;
    if ((rc = sack_ctl_root_start(&r->x, r->probe)) != MPI_SUCCESS ||
        (rc = kids_init(r)) != MPI_SUCCESS)
        return rc;
    if (r->early && sack_plan_defer_leaves(&r->x.plan) != 0)
        return MPI_ERR_NO_MEM;
    if ((r->is_placed = calloc((size_t)r->x.size, 1)) == NULL)
        return MPI_ERR_NO_MEM;
    for (int k = 1; rc == MPI_SUCCESS && r->early && r->x.plan.ninner == 0 && k < r->x.size; k++)
        rc = place(r, (r->x.root + k) % r->x.size); /* only leaves: all at once */
    return rc;
}

static int start_nonroot(void *run)
{
    struct sack_run *r = run;
    int rc;
    r->first_in = malloc((size_t)first_len(r));
    if (r->first_in == NULL)
        return MPI_ERR_NO_MEM;
    rc = sack_ctl_recv(&r->x, r->first_in, first_len(r), MPI_BYTE, MPI_ANY_SOURCE, r->first_tag,
                       B_FIRST, 0, 0);
    return rc == MPI_SUCCESS ? sack_ctl_hello(&r->x, r->pr != NULL ? r->pr->rate : 0, r->probe)
                             : rc;
}

static pthread_once_t said = PTHREAD_ONCE_INIT;
static const struct sack_ops bcast_ops = {
    .start_root = start_root, .start_nonroot = start_nonroot, .pump = pump,
    .arrival = on_arrival, .done = on_done, .say_first = say_first, .said = &said};

int rt_sack_bcast(char *buf, uint64_t bytes, uint64_t seg, int root, const struct sack_tree *t,
                  MPI_Comm priv, int rank)
{
    return rt_sack_bcast_auto(buf, bytes, seg, root, t, priv, rank, NULL, NULL);
}

int rt_sack_bcast_auto(char *buf, uint64_t bytes, uint64_t seg, int root,
                       const struct sack_tree *t, MPI_Comm priv, int rank, struct sack_auto *a,
                       struct sack_probe *pr)
{
    struct sack_run r;
    int rc = MPI_SUCCESS;
    uint64_t seq = a != NULL ? a->seq++ : 0; /* every call counts, on every rank */

    if (pr != NULL)
        pr->vote = SACK_VOTE_NONE;
    if (bytes == 0 || t->size <= 1)
        return MPI_SUCCESS;
    memset(&r, 0, sizeof r);
    sack_ctl_init(&r.x, &bcast_proto, (int64_t)bytes, t, root, priv, rank);
    r.first_tag = a != NULL ? SACK_TAG_FIRST_SEQ + (int)(seq % SACK_SEQ_TAGS) : SACK_TAG_FIRST;
    r.early = a != NULL && t->size <= SACK_SEQ_TAGS;
    r.pr = pr;
    r.probe = pr != NULL && pr->probe;
    r.buf = buf;
    r.bytes = bytes;
    r.seg = seg == 0 || seg > bytes ? bytes : seg;
    r.nseg = (bytes + r.seg - 1) / r.seg;
    r.seg0 = r.seg;
    r.piggy = r.seg0 <= SACK_PIGGY_MAX;
    pthread_once(&inflight_once, inflight_read);
    r.win = (int)((inflight + r.seg - 1) / r.seg);
    r.win = r.win < 4 ? 4 : r.win > SACK_WINDOW ? SACK_WINDOW : r.win;
    pthread_once(&pace_once, pace_read);
    r.pace = pace;
    r.parent = -1;

    rc = sack_ctl_run(&r.x, &bcast_ops, &r);
    /* everything arrived and went out? */
    if (rc == MPI_SUCCESS && (r.have != r.nseg || !sack_ctl_complete(&r.x)))
        rc = MPI_ERR_INTERN;
    for (int c = 0; rc == MPI_SUCCESS && c < r.x.nchild; c++)
        if (r.kids[c].next != r.nseg)
            rc = MPI_ERR_INTERN;
    if (rc == MPI_SUCCESS && pr != NULL) {
        pr->vote = r.probe ? sack_ctl_voted(&r.x) : SACK_VOTE_NONE;
        /* this rank's receive rate: from the MPI_Waitsome return that
         * reported FIRST to the one that reported the last segment, over the
         * segments reported after FIRST's (sack_meter) */
        pr->rate = rank != root && r.nseg > 1 ? sack_meter_rate(&r.meter) : 0;
    }
    free(r.kids);
    free(r.first_in);
    free(r.is_placed);
    if (!r.x.leaked)
        free(r.stage);
    sack_ctl_fini(&r.x);
    return rc;
}

/* ---- automatic mode: the call sites (sack.h) ---------------------------- */

/* The row of a collective in sack_auto.site, -1 for the others. */
static int auto_row(enum acct_coll_id coll)
{
    return coll == ACCT_COLL_bcast ? 0 : coll == ACCT_COLL_gather ? 1 : coll == ACCT_COLL_reduce ? 2 : -1;
}

static const enum acct_coll_id auto_colls[SACK_AUTO_COLLS] = {ACCT_COLL_bcast, ACCT_COLL_gather,
                                                               ACCT_COLL_reduce};

struct sack_auto_site *rt_sack_auto_site(struct sack_auto *a, enum acct_coll_id coll,
                                         size_t entry)
{
    int row = auto_row(coll);
    return row >= 0 && entry < SACK_AUTO_SITES ? &a->site[row][entry] : NULL;
}

bool rt_sack_auto_begin(struct sack_auto *a, struct sack_auto_site *site, struct sack_probe *pr)
{
    site->calls++;
    memset(pr, 0, sizeof *pr);
    pr->probe = sack_auto_is_probe(site->calls);
    pr->rate = a->rate;
    pr->vote = SACK_VOTE_NONE;
    return pr->probe || site->hist.on;
}

/* The report's records (rt_sack_auto_report): touched only by calls that
 * took the SACK branch (probes and reordered calls), under a mutex. */
#define SACK_REPORT_MAX 32
static struct sack_auto_record {
    enum acct_coll_id coll;
    int comm_size;
    uint64_t lo, hi;
    uint64_t sack_calls, probes, votes[3]; /* votes -1, 0, +1 */
    uint64_t switched_on, switched_off;
    bool on;
    double gain, cost; /* the last probe judged here (s), cost 0: none */
} records[SACK_REPORT_MAX];
static size_t nrecords;
static uint64_t records_dropped;
static pthread_mutex_t records_mu = PTHREAD_MUTEX_INITIALIZER;

static void record(enum acct_coll_id coll, const struct sack_auto_site *site,
                   const struct sack_probe *pr, bool was, int comm_size, uint64_t lo, uint64_t hi)
{
    pthread_mutex_lock(&records_mu);
    struct sack_auto_record *r = NULL;
    for (size_t i = 0; i < nrecords && r == NULL; i++)
        if (records[i].coll == coll && records[i].comm_size == comm_size && records[i].lo == lo &&
            records[i].hi == hi)
            r = &records[i];
    if (r == NULL && nrecords < SACK_REPORT_MAX) {
        r = &records[nrecords++];
        *r = (struct sack_auto_record){.coll = coll, .comm_size = comm_size, .lo = lo, .hi = hi};
    }
    if (r == NULL)
        records_dropped++;
    else {
        r->sack_calls++;
        if (pr->vote != SACK_VOTE_NONE) {
            r->probes++;
            r->votes[pr->vote < 0 ? 0 : pr->vote == 0 ? 1 : 2]++;
            if (pr->cost > 0) {
                r->gain = pr->gain;
                r->cost = pr->cost;
            }
        }
        r->switched_on += !was && site->hist.on;
        r->switched_off += was && !site->hist.on;
        r->on = site->hist.on;
    }
    pthread_mutex_unlock(&records_mu);
}

void rt_sack_auto_report(FILE *f)
{
    pthread_mutex_lock(&records_mu);
    fprintf(f, "sack_auto:%s\n", nrecords == 0 ? " []" : "");
    for (size_t i = 0; i < nrecords; i++) {
        const struct sack_auto_record *r = &records[i];
        fprintf(f, "  - {collective: %s, comm_size: %d, bytes: [%llu, ", acct_coll_name(r->coll),
                r->comm_size, (unsigned long long)r->lo);
        if (r->hi == UINT64_MAX)
            fprintf(f, "max]");
        else
            fprintf(f, "%llu]", (unsigned long long)r->hi);
        fprintf(f, ", reordered_calls: %llu, probes: %llu, votes: {on: %llu, keep: %llu, off: %llu}, "
                   "switched_on: %llu, switched_off: %llu, state: %s",
                (unsigned long long)r->sack_calls, (unsigned long long)r->probes,
                (unsigned long long)r->votes[2], (unsigned long long)r->votes[1],
                (unsigned long long)r->votes[0], (unsigned long long)r->switched_on,
                (unsigned long long)r->switched_off, r->on ? "on" : "off");
        if (r->cost > 0)
            fprintf(f, ", last_gain_ms: %.3f, last_cost_ms: %.3f", r->gain * 1e3, r->cost * 1e3);
        fprintf(f, "}\n");
    }
    if (records_dropped > 0)
        fprintf(f, "sack_auto_dropped: %llu\n", (unsigned long long)records_dropped);
    pthread_mutex_unlock(&records_mu);
}

void rt_sack_auto_end(struct sack_auto *a, struct sack_auto_site *site, const struct sack_probe *pr,
                      uint64_t bytes, bool log, int comm_size, const struct acct_table *tab)
{
    size_t flat = (size_t)(site - &a->site[0][0]);
    size_t idx = flat % SACK_AUTO_SITES;
    enum acct_coll_id coll = auto_colls[flat / SACK_AUTO_SITES];
    uint64_t lo = tab != NULL && idx > 0 && idx < tab->n ? tab->max[idx - 1] + 1 : 0;
    uint64_t hi = tab != NULL && idx < tab->n ? tab->max[idx] : UINT64_MAX;
    bool was = site->hist.on;
    site->sack_calls++;
    if (pr->rate > 0)
        a->rate = pr->rate;
    if (pr->vote == SACK_VOTE_NONE) {
        record(coll, site, pr, was, comm_size, lo, hi);
        return;
    }
    site->probes++;
    if (pr->cost > 0) /* the root that judged */
        acct_debug("SACK automatic mode: probe at call %llu: vote %+d (gain %.3f ms, cost %.3f ms, "
                   "h %.3f ms)",
                   (unsigned long long)site->calls, pr->vote, pr->gain * 1e3, pr->cost * 1e3,
                   pr->h * 1e3);
    sack_auto_feed(&site->hist, pr->vote);
    record(coll, site, pr, was, comm_size, lo, hi);
    if (log && was != site->hist.on)
        acct_debug("SACK automatic mode: %s of %llu bytes (site %d): reordering %s from call "
                   "%llu on (%llu probes)",
                   acct_coll_name(coll), (unsigned long long)bytes, (int)idx,
                   site->hist.on ? "on" : "off",
                   (unsigned long long)site->calls + 1, (unsigned long long)site->probes);
}
