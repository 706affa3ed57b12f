/* Non-blocking collectives in flight together (docs/runtime.md,
 * "Non-blocking collectives"): every MPI_I<coll> ACCT intercepts (the
 * v-collectives with irregular counts, zero counts among them, blocks in
 * reverse rank order),
 * several outstanding at once on MPI_COMM_WORLD, on a duplicate and on
 * split sub-communicators (several on the same communicator), mixed with
 * point-to-point requests in one request array, completed in every order:
 * MPI_Wait in reverse order, MPI_Waitall, MPI_Waitany, MPI_Waitsome, and
 * loops of MPI_Test, MPI_Testall, MPI_Testany, MPI_Testsome (the only
 * progress is the polling). Then:
 *   - with NB_CHECK_SCRIBBLE=1 (ACCT only): right after each v-collective
 *     is posted, its count and displacement arrays are overwritten with
 *     junk (erroneous by MPI-3.1: ACCT reads them during the call only and
 *     keeps its own copy of what the completion needs);
 *   - with NB_CHECK_FREE=1: MPI_Request_free on a collective in flight
 *     (erroneous by MPI-3.1; Open MPI 4.1's own collectives refuse it with
 *     MPI_ERR_REQUEST, ACCT's let the job go on), a barrier, and progress
 *     until the result is there;
 *   - a correct program that would deadlock if a non-blocking call blocked:
 *     rank 0 posts an ibcast, then sends to the last rank, which receives
 *     before posting its ibcast;
 *   - compute without MPI calls while a collective is in flight.
 * Results are checked against values every rank computes alone.
 *
 *   mpirun -np 5 [-x LD_PRELOAD=libacct.so -x ACCT_FORCE=...] acct_nb_check
 *
 * Rank 0 prints "nb_check: np=<n> checks=<n> errors=<n> OK|FAILED". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int wrank, wsize;
static long checks, errors;

enum { K_BARRIER, K_BCAST, K_REDUCE, K_ALLREDUCE, K_GATHER, K_SCATTER, K_ALLGATHER, K_ALLTOALL,
       K_RSB, K_ALLGATHERV, K_RS, K_GATHERV, K_SCATTERV, K_ALLTOALLV, K_SCAN, K_EXSCAN, K_SEND,
       K_RECV, K_COUNT };
static const char *kname[K_COUNT] = {"ibarrier", "ibcast", "ireduce", "iallreduce", "igather",
                                     "iscatter", "iallgather", "ialltoall",
                                     "ireduce_scatter_block", "iallgatherv", "ireduce_scatter",
                                     "igatherv", "iscatterv", "ialltoallv", "iscan", "iexscan",
                                     "isend", "irecv"};
static int scribble; /* NB_CHECK_SCRIBBLE */

/* One operation in flight. */
struct op {
    int kind;
    MPI_Comm comm;
    int rank, size, root, n;
    int *send, *recv;
    int *cnt, *dsp, *rcnt, *rdsp; /* the v-collectives' arrays (alive until completion) */
};

#define N 700 /* ints per block: several 1 KiB segments */

static int val(int who, int j, int i) { return who * 100003 + j * 1009 + i; }

static void *xcalloc(size_t n)
{
    void *p = calloc(n ? n : 1, 1);
    if (p == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    return p;
}

/* The v-collectives' counts (p <= 8, n >= 700: within n each): rank j's
 * block, 0 for every third rank; alltoallv's block from a to b. Blocks lie
 * in reverse rank order (rev_displs). */
static int vcnt(int n, int j) { return j % 3 == 1 ? 0 : n - 2 * j; }
static int a2av_cnt(int n, int p, int a, int b) { return (a + 2 * b) % 3 == 0 ? 0 : n / p + a; }
static void rev_displs(int p, const int *cnt, int *dsp)
{
    for (int j = p - 1, at = 0; j >= 0; j--) {
        dsp[j] = at;
        at += cnt[j];
    }
}

static void v_arrays(struct op *o)
{
    int r = o->rank, p = o->size, n = o->n;
    o->cnt = xcalloc((size_t)p * sizeof(int));
    o->dsp = xcalloc((size_t)p * sizeof(int));
    o->rcnt = xcalloc((size_t)p * sizeof(int));
    o->rdsp = xcalloc((size_t)p * sizeof(int));
    for (int j = 0, at = 0; j < p; j++) {
        if (o->kind == K_ALLTOALLV) { /* send forward, receive reversed */
            o->cnt[j] = a2av_cnt(n, p, r, j);
            o->dsp[j] = at;
            at += o->cnt[j];
            o->rcnt[j] = a2av_cnt(n, p, j, r);
        } else {
            o->cnt[j] = vcnt(n, j);
        }
    }
    if (o->kind == K_ALLTOALLV)
        rev_displs(p, o->rcnt, o->rdsp);
    else
        rev_displs(p, o->cnt, o->dsp);
}

static void op_post(struct op *o, MPI_Request *req)
{
    int r = o->rank, p = o->size, n = o->n, rc = MPI_SUCCESS;
    o->send = xcalloc((size_t)n * (size_t)p * sizeof(int));
    o->recv = xcalloc((size_t)n * (size_t)p * sizeof(int));
    o->cnt = o->dsp = o->rcnt = o->rdsp = NULL;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            o->send[j * n + i] = val(r, j, i);
    if (o->kind >= K_ALLGATHERV && o->kind <= K_ALLTOALLV)
        v_arrays(o);
    switch (o->kind) {
    case K_BARRIER: rc = MPI_Ibarrier(o->comm, req); break;
    case K_BCAST:
        if (r == o->root)
            memcpy(o->recv, o->send, (size_t)n * sizeof(int));
        rc = MPI_Ibcast(o->recv, n, MPI_INT, o->root, o->comm, req);
        break;
    case K_REDUCE:
        rc = MPI_Ireduce(o->send, o->recv, n, MPI_INT, MPI_SUM, o->root, o->comm, req);
        break;
    case K_ALLREDUCE: rc = MPI_Iallreduce(o->send, o->recv, n, MPI_INT, MPI_SUM, o->comm, req); break;
    case K_GATHER:
        rc = MPI_Igather(o->send, n, MPI_INT, o->recv, n, MPI_INT, o->root, o->comm, req);
        break;
    case K_SCATTER:
        rc = MPI_Iscatter(o->send, n, MPI_INT, o->recv, n, MPI_INT, o->root, o->comm, req);
        break;
    case K_ALLGATHER: rc = MPI_Iallgather(o->send, n, MPI_INT, o->recv, n, MPI_INT, o->comm, req); break;
    case K_ALLTOALL: rc = MPI_Ialltoall(o->send, n, MPI_INT, o->recv, n, MPI_INT, o->comm, req); break;
    case K_RSB:
        rc = MPI_Ireduce_scatter_block(o->send, o->recv, n, MPI_INT, MPI_SUM, o->comm, req);
        break;
    case K_ALLGATHERV:
        rc = MPI_Iallgatherv(o->send, o->cnt[r], MPI_INT, o->recv, o->cnt, o->dsp, MPI_INT, o->comm,
                             req);
        break;
    case K_RS: rc = MPI_Ireduce_scatter(o->send, o->recv, o->cnt, MPI_INT, MPI_SUM, o->comm, req); break;
    case K_GATHERV:
        rc = MPI_Igatherv(o->send, o->cnt[r], MPI_INT, o->recv, o->cnt, o->dsp, MPI_INT, o->root,
                          o->comm, req);
        break;
    case K_SCATTERV:
        rc = MPI_Iscatterv(o->send, o->cnt, o->dsp, MPI_INT, o->recv, o->cnt[r], MPI_INT, o->root,
                           o->comm, req);
        break;
    case K_ALLTOALLV:
        rc = MPI_Ialltoallv(o->send, o->cnt, o->dsp, MPI_INT, o->recv, o->rcnt, o->rdsp, MPI_INT,
                            o->comm, req);
        break;
    case K_SCAN: rc = MPI_Iscan(o->send, o->recv, n, MPI_INT, MPI_SUM, o->comm, req); break;
    case K_EXSCAN: rc = MPI_Iexscan(o->send, o->recv, n, MPI_INT, MPI_SUM, o->comm, req); break;
    case K_SEND: rc = MPI_Isend(o->send, n, MPI_INT, (r + 1) % p, 77, o->comm, req); break;
    case K_RECV: rc = MPI_Irecv(o->recv, n, MPI_INT, (r + p - 1) % p, 77, o->comm, req); break;
    }
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "world rank %d: %s returned %d\n", wrank, kname[o->kind], rc);
        errors++;
    }
    if (scribble && o->cnt != NULL)
        for (int j = 0; j < p; j++)
            o->cnt[j] = o->dsp[j] = o->rcnt[j] = o->rdsp[j] = -77;
}

/* The expected value of a v-collective's recv[x], or 0x7fffffff: not
 * significant (the send buffer's x-th int is val(rank, x / n, x % n)). */
static int sendval(const struct op *o, int who, int x) { return val(who, x / o->n, x % o->n); }

static int expect_v(const struct op *o, int x)
{
    int r = o->rank, p = o->size, n = o->n, cnt[8], dsp[8], s = 0;
    for (int j = 0; j < p; j++)
        cnt[j] = o->kind == K_ALLTOALLV ? a2av_cnt(n, p, j, r) : vcnt(n, j);
    rev_displs(p, cnt, dsp);
    switch (o->kind) {
    case K_GATHERV:
        if (r != o->root)
            return 0x7fffffff;
        /* fall through */
    case K_ALLGATHERV:
    case K_ALLTOALLV:
        for (int j = 0; j < p; j++)
            if (x >= dsp[j] && x < dsp[j] + cnt[j]) {
                if (o->kind != K_ALLTOALLV)
                    return sendval(o, j, x - dsp[j]);
                int at = 0; /* where sender j's block for r starts in its send buffer */
                for (int q = 0; q < r; q++)
                    at += a2av_cnt(n, p, j, q);
                return sendval(o, j, at + x - dsp[j]);
            }
        return 0;
    case K_SCATTERV: return x < cnt[r] ? sendval(o, o->root, dsp[r] + x) : 0;
    case K_RS:
        if (x >= cnt[r])
            return 0;
        for (int j = 0; j < r; j++)
            s += cnt[j]; /* reduce_scatter's blocks are in rank order */
        {
            int t = 0;
            for (int q = 0; q < p; q++)
                t += sendval(o, q, s + x);
            return t;
        }
    default: return 0x7fffffff;
    }
}

/* The expected value of recv[j * n + i], or 0x7fffffff: not significant. */
static int expect(const struct op *o, int j, int i)
{
    int r = o->rank, p = o->size, s = 0;
    switch (o->kind) {
    case K_BCAST: return j == 0 ? val(o->root, 0, i) : 0;
    case K_REDUCE:
    case K_ALLREDUCE:
        if (j != 0 || (o->kind == K_REDUCE && r != o->root))
            return j != 0 || o->kind == K_ALLREDUCE ? 0 : 0x7fffffff;
        for (int q = 0; q < p; q++)
            s += val(q, 0, i);
        return s;
    case K_GATHER: return r == o->root ? val(j, 0, i) : 0x7fffffff;
    case K_SCATTER: return j == 0 ? val(o->root, r, i) : 0;
    case K_ALLGATHER: return val(j, 0, i);
    case K_ALLTOALL: return val(j, r, i);
    case K_RSB:
        if (j != 0)
            return 0;
        for (int q = 0; q < p; q++)
            s += val(q, r, i);
        return s;
    case K_SCAN:
    case K_EXSCAN: /* ranks 0..r (exscan: 0..r-1; rank 0's result is undefined) */
        if (j != 0)
            return 0;
        if (o->kind == K_EXSCAN && r == 0)
            return 0x7fffffff;
        for (int q = 0; q < (o->kind == K_SCAN ? r + 1 : r); q++)
            s += val(q, 0, i);
        return s;
    case K_RECV: return j == 0 ? val((r + p - 1) % p, 0, i) : 0;
    default: return 0x7fffffff;
    }
}

static int op_check(struct op *o, const char *how, int quiet)
{
    int bad = 0;
    for (int j = 0; j < o->size && !bad; j++)
        for (int i = 0; i < o->n && !bad; i++) {
            int e = o->cnt != NULL ? expect_v(o, j * o->n + i) : expect(o, j, i);
            if (e != 0x7fffffff && o->recv[j * o->n + i] != e) {
                bad = 1;
                if (!quiet && errors < 10)
                    fprintf(stderr, "world rank %d: %s (%s, size %d, root %d): [%d][%d] = %d, not %d\n",
                            wrank, kname[o->kind], how, o->size, o->root, j, i,
                            o->recv[j * o->n + i], e);
            }
        }
    if (!quiet) {
        checks++;
        errors += bad;
    }
    return !bad;
}

static void op_free(struct op *o)
{
    free(o->send);
    free(o->recv);
    free(o->cnt);
    free(o->dsp);
    free(o->rcnt);
    free(o->rdsp);
}

enum { M_WAIT_REVERSE, M_WAITALL, M_WAITANY, M_WAITSOME, M_TEST, M_TESTALL, M_TESTANY,
       M_TESTSOME, M_COUNT };
static const char *mname[M_COUNT] = {"wait-reverse", "waitall", "waitany", "waitsome",
                                     "test-loop", "testall-loop", "testany-loop", "testsome-loop"};

static void complete(int m, int n, MPI_Request *req)
{
    int flag = 0, idx, outn, done = 0, *idxs = calloc((size_t)n, sizeof(int));
    switch (m) {
    case M_WAIT_REVERSE:
        for (int i = n - 1; i >= 0; i--)
            MPI_Wait(&req[i], MPI_STATUS_IGNORE);
        break;
    case M_WAITALL: MPI_Waitall(n, req, MPI_STATUSES_IGNORE); break;
    case M_WAITANY:
        for (int i = 0; i < n; i++)
            MPI_Waitany(n, req, &idx, MPI_STATUS_IGNORE);
        break;
    case M_WAITSOME:
        while (done < n) {
            MPI_Waitsome(n, req, &outn, idxs, MPI_STATUSES_IGNORE);
            done += outn;
        }
        break;
    case M_TEST:
        while (done < n)
            for (int i = 0; i < n; i++)
                if (req[i] != MPI_REQUEST_NULL) {
                    MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE);
                    done += flag;
                }
        break;
    case M_TESTALL:
        while (!flag)
            MPI_Testall(n, req, &flag, MPI_STATUSES_IGNORE);
        break;
    case M_TESTANY:
        while (done < n) {
            MPI_Testany(n, req, &idx, &flag, MPI_STATUS_IGNORE);
            done += flag && idx != MPI_UNDEFINED;
        }
        break;
    case M_TESTSOME:
        while (done < n) {
            MPI_Testsome(n, req, &outn, idxs, MPI_STATUSES_IGNORE);
            if (outn != MPI_UNDEFINED)
                done += outn;
        }
        break;
    }
    free(idxs);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Comm dup, half, third;
    (void)argc, (void)argv;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    scribble = getenv("NB_CHECK_SCRIBBLE") != NULL;
    if (wsize > 8) { /* expect_v's arrays */
        if (wrank == 0)
            fprintf(stderr, "nb_check: at most 8 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &half);
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 3, wrank, &third);
    /* a blocking collective first: each gets ACCT's private duplicate */
    MPI_Barrier(dup);
    MPI_Barrier(half);
    MPI_Barrier(third);

    MPI_Comm comms[4] = {MPI_COMM_WORLD, dup, half, third};
    enum { NOPS = 2 * (K_COUNT - 2) + 2 + 2 };
    for (int m = 0; m < M_COUNT; m++) {
        struct op ops[NOPS];
        MPI_Request req[NOPS];
        int n = 0;
        /* every collective twice, on changing communicators (the same
         * communicator several times in flight), roots moving; a ring of
         * point-to-point messages on world and on half in the middle */
        for (int rep = 0; rep < 2; rep++)
            for (int k = 0; k < K_SEND; k++) {
                struct op *o = &ops[n];
                o->kind = k;
                o->comm = comms[(k + rep + m) % 4];
                MPI_Comm_rank(o->comm, &o->rank);
                MPI_Comm_size(o->comm, &o->size);
                o->root = (k + rep + m) % o->size;
                o->n = N + k;
                op_post(o, &req[n++]);
                if (k == K_ALLREDUCE)
                    for (int x = K_SEND; x <= K_RECV; x++) {
                        o = &ops[n];
                        o->kind = x;
                        o->comm = rep ? half : MPI_COMM_WORLD;
                        MPI_Comm_rank(o->comm, &o->rank);
                        MPI_Comm_size(o->comm, &o->size);
                        o->root = 0;
                        o->n = N;
                        op_post(o, &req[n++]);
                    }
            }
        complete(m, n, req);
        for (int i = 0; i < n; i++) {
            op_check(&ops[i], mname[m], 0);
            op_free(&ops[i]);
        }
    }

    /* MPI_Request_free on a collective in flight, then a barrier: it
     * still completes, with progress from later MPI calls */
    if (getenv("NB_CHECK_FREE") != NULL) {
        struct op o = {.kind = K_BCAST, .comm = dup, .root = wsize - 1, .n = 5000};
        MPI_Request r;
        MPI_Comm_rank(dup, &o.rank);
        MPI_Comm_size(dup, &o.size);
        op_post(&o, &r);
        MPI_Request_free(&r);
        MPI_Barrier(MPI_COMM_WORLD);
        int flag = 0, ok = 0;
        double t0 = now();
        while (!(ok = op_check(&o, "request-free", 1)) && now() - t0 < 20)
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        checks++;
        if (!ok) {
            op_check(&o, "request-free", 0);
            checks--;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        op_free(&o);
    }

    /* A correct program that deadlocks if a non-blocking call blocks: the
     * last rank receives from rank 0 before it posts its ibcast, and rank
     * 0 sends only after posting its own. */
    if (wsize > 1) {
        struct op o = {.kind = K_BCAST, .comm = MPI_COMM_WORLD, .root = 0, .n = 40000};
        MPI_Request r;
        int token = 42, got = 0;
        o.rank = wrank;
        o.size = wsize;
        if (wrank == wsize - 1)
            MPI_Recv(&got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        op_post(&o, &r);
        if (wrank == 0)
            MPI_Send(&token, 1, MPI_INT, wsize - 1, 5, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        op_check(&o, "post-then-send", 0);
        op_free(&o);
    }

    /* Compute without any MPI call while an allreduce is in flight. */
    {
        struct op o = {.kind = K_ALLREDUCE, .comm = third, .n = 3000};
        MPI_Request r;
        MPI_Comm_rank(third, &o.rank);
        MPI_Comm_size(third, &o.size);
        op_post(&o, &r);
        double t0 = now();
        volatile double x = 0;
        while (now() - t0 < 0.02)
            x += 1;
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        op_check(&o, "compute-then-wait", 0);
        op_free(&o);
    }

    long in[2] = {checks, errors}, out[2];
    PMPI_Allreduce(in, out, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0) {
        printf("nb_check: np=%d checks=%ld errors=%ld %s\n", wsize, out[0], out[1],
               out[1] == 0 && out[0] > 0 ? "OK" : "FAILED");
        fflush(stdout);
    }
    MPI_Comm_free(&third);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return out[1] == 0 && out[0] > 0 ? 0 : 1;
}
