/* The executor: one schedule, run round by round over PMPI non-blocking
 * point-to-point on ACCT's private communicator (acct/sched.h).
 *
 * Round r: post every RECV not yet posted, then every SEND, of the round (in
 * schedule order within each kind, which keeps MPI's per-pair ordering);
 * post round r+1's early RECVs (acct/sched.h: they touch nothing round r
 * touches); wait for round r's requests except its lazy SENDs, and for round
 * r-1's lazy SENDs; run round r's REDUCE and COPY steps in order. The
 * request array has four quarters: the requests of two consecutive rounds
 * (a round's own and the next round's early receives) and the lazy sends of
 * two consecutive rounds. The run is a small state machine (struct
 * rt_exec_run): the blocking executor drives it to the end with waits, the
 * non-blocking collectives (nb.c) advance it with tests from the progress
 * engine, one round as far as its requests allow. ACCT_EXEC_EARLY=0 turns the early receives off,
 * ACCT_EXEC_LAZY=0 the lazy sends (for A/B measurements; ranks may differ,
 * matching is the same either way). */
#include "exec.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

void rt_bufs_init(struct rt_bufs *b)
{
    for (int i = 0; i < ACCT_BUF_COUNT; i++) {
        b->base[i] = NULL;
        b->type[i] = MPI_BYTE;
        b->extent[i] = 1;
    }
}

int rt_bufs_set(struct rt_bufs *b, enum acct_buf which, const void *base, MPI_Datatype dt)
{
    MPI_Aint lb = 0, extent = 0;
    int rc = PMPI_Type_get_extent(dt, &lb, &extent);
    b->base[which] = (char *)(uintptr_t)base;
    b->type[which] = dt;
    b->extent[which] = extent;
    return rc;
}

static void *ref_ptr(const struct rt_bufs *b, const struct acct_ref *r)
{
    return b->base[r->buf] + (MPI_Aint)r->off * b->extent[r->buf];
}

/* TMP i: count elements of the datatype of buffer `like`, laid out as MPI
 * lays out count elements (true lb/extent), reusing scratch memory. */
static int setup_tmp(const struct acct_sched *s, struct rt_bufs *b, struct rt_scratch *sc, int i)
{
    enum acct_buf tmp = i ? ACCT_BUF_TMP1 : ACCT_BUF_TMP0;
    uint64_t n = s->tmp_count[i];
    MPI_Datatype dt = b->type[s->tmp_type[i]];
    MPI_Aint lb, extent, tlb, textent;

    b->base[tmp] = NULL;
    b->type[tmp] = dt;
    b->extent[tmp] = 0;
    if (n == 0)
        return MPI_SUCCESS;
    if (PMPI_Type_get_extent(dt, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(dt, &tlb, &textent) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    size_t bytes = (size_t)textent + (size_t)(n - 1) * (size_t)extent;
    if (bytes > sc->tmp_bytes[i]) {
        void *p = realloc(sc->tmp[i], bytes);
        if (p == NULL)
            return MPI_ERR_NO_MEM;
        sc->tmp[i] = p;
        sc->tmp_bytes[i] = bytes;
    }
    b->base[tmp] = (char *)sc->tmp[i] - tlb;
    b->extent[tmp] = extent;
    return MPI_SUCCESS;
}

static int setup_reqs(const struct acct_sched *s, struct rt_scratch *sc)
{
    size_t most = 0;
    for (uint32_t r = 0; r < s->nrounds; r++) {
        uint32_t first, end;
        size_t n = 0;
        acct_sched_round_steps(s, r, &first, &end);
        for (uint32_t i = first; i < end; i++)
            n += s->steps[i].kind == ACCT_STEP_SEND || s->steps[i].kind == ACCT_STEP_RECV;
        if (n > most)
            most = n;
    }
    most *= 4; /* two rounds' requests, two rounds' lazy sends (the top) */
    if (most > sc->nreqs) {
        MPI_Request *p = realloc(sc->reqs, most * sizeof *p);
        if (p == NULL)
            return MPI_ERR_NO_MEM;
        sc->reqs = p;
        sc->nreqs = most;
    }
    return MPI_SUCCESS;
}

static int local_step(const struct acct_step *st, const struct rt_bufs *b, MPI_Op op,
                      MPI_Comm comm, int tag)
{
    void *a = ref_ptr(b, &st->a), *dst = ref_ptr(b, &st->b);
    MPI_Datatype ta = b->type[st->a.buf], tb = b->type[st->b.buf];
    if (st->kind == ACCT_STEP_REDUCE)
        return PMPI_Reduce_local(a, dst, (int)st->a.count, ta, op);
    /* COPY: one memmove when both sides are the same contiguous type, else
     * a message to self, which handles any pair of matching type maps. */
    if (ta == tb && st->a.count == st->b.count) {
        int size;
        MPI_Aint lb, extent, tlb, textent;
        if (ta == MPI_BYTE) {
            memmove(dst, a, st->a.count);
            return MPI_SUCCESS;
        }
        if (PMPI_Type_size(ta, &size) == MPI_SUCCESS &&
            PMPI_Type_get_extent(ta, &lb, &extent) == MPI_SUCCESS &&
            PMPI_Type_get_true_extent(ta, &tlb, &textent) == MPI_SUCCESS && size == extent &&
            size == textent) {
            memmove((char *)dst + tlb, (char *)a + tlb, (size_t)st->a.count * (size_t)size);
            return MPI_SUCCESS;
        }
    }
    int me;
    PMPI_Comm_rank(comm, &me);
    return PMPI_Sendrecv(a, (int)st->a.count, ta, me, tag, dst, (int)st->b.count, tb, me, tag,
                         comm, MPI_STATUS_IGNORE);
}

/* A switch that is on unless the environment variable is "0" (read once). */
static bool switch_on(atomic_int *cache, const char *var)
{
    int v = atomic_load_explicit(cache, memory_order_relaxed);
    if (v < 0) {
        const char *e = getenv(var);
        v = !(e != NULL && strcmp(e, "0") == 0);
        atomic_store_explicit(cache, v, memory_order_relaxed);
    }
    return v;
}

static int post_recv(const struct acct_step *st, const struct rt_bufs *b, MPI_Comm comm, int tag,
                     MPI_Request *req)
{
    return PMPI_Irecv(ref_ptr(b, &st->a), (int)st->a.count, b->type[st->a.buf], st->peer, tag,
                      comm, req);
}

int rt_exec_begin(struct rt_exec_run *x, const struct acct_sched *s, struct rt_bufs *b, MPI_Op op,
                  MPI_Comm comm, int tag, struct rt_scratch *sc)
{
    int rc = MPI_SUCCESS;
    if ((rc = setup_tmp(s, b, sc, 0)) != MPI_SUCCESS || (rc = setup_tmp(s, b, sc, 1)) != MPI_SUCCESS ||
        (rc = setup_reqs(s, sc)) != MPI_SUCCESS)
        return rc == MPI_ERR_TYPE ? rc : MPI_ERR_NO_MEM;

    static atomic_int early_cache = -1, lazy_cache = -1;
    *x = (struct rt_exec_run){.s = s, .b = b, .op = op, .comm = comm, .tag = tag, .sc = sc,
                              .early = switch_on(&early_cache, "ACCT_EXEC_EARLY"),
                              .lazy = switch_on(&lazy_cache, "ACCT_EXEC_LAZY"),
                              .quarter = sc->nreqs / 4};
    return MPI_SUCCESS;
}

/* Requests done: all of them with a wait (block), else tested once. */
static int settle(int n, MPI_Request *reqs, bool block, int *flag)
{
    *flag = 1;
    if (n <= 0)
        return MPI_SUCCESS;
    return block ? PMPI_Waitall(n, reqs, MPI_STATUSES_IGNORE)
                 : PMPI_Testall(n, reqs, flag, MPI_STATUSES_IGNORE);
}

int rt_exec_advance(struct rt_exec_run *x, bool block, bool *done)
{
    const struct acct_sched *s = x->s;
    struct rt_bufs *b = x->b;
    struct rt_scratch *sc = x->sc;
    const size_t quarter = x->quarter;
    int rc = MPI_SUCCESS, flag = 1;
    *done = false;
    while (x->r < s->nrounds && rc == MPI_SUCCESS) {
        const uint32_t r = x->r;
        uint32_t first, end;
        MPI_Request *reqs = sc->reqs + (r % 2) * quarter;
        MPI_Request *next = sc->reqs + ((r + 1) % 2) * quarter;
        MPI_Request *lazies = sc->reqs + (2 + r % 2) * quarter;
        MPI_Request *prev_lazies = sc->reqs + (2 + (r + 1) % 2) * quarter;
        acct_sched_round_steps(s, r, &first, &end);
        if (!x->posted) {
            int n = x->npre;
            x->npre = 0;
            for (int pass = 0; pass < 2 && rc == MPI_SUCCESS; pass++) /* receives, then sends */
                for (uint32_t i = first; i < end && rc == MPI_SUCCESS; i++) {
                    const struct acct_step *st = &s->steps[i];
                    if (pass == 0 && st->kind == ACCT_STEP_RECV && !(x->early && st->early))
                        rc = post_recv(st, b, x->comm, x->tag, &reqs[n++]);
                    else if (pass == 1 && st->kind == ACCT_STEP_SEND)
                        rc = PMPI_Isend(ref_ptr(b, &st->a), (int)st->a.count, b->type[st->a.buf],
                                        st->peer, x->tag, x->comm,
                                        x->lazy && st->lazy ? &lazies[x->nlazy[r % 2]++]
                                                            : &reqs[n++]);
                }
            if (x->early && r + 1 < s->nrounds && rc == MPI_SUCCESS) {
                uint32_t nfirst, nend;
                acct_sched_round_steps(s, r + 1, &nfirst, &nend);
                for (uint32_t i = nfirst; i < nend && rc == MPI_SUCCESS; i++)
                    if (s->steps[i].kind == ACCT_STEP_RECV && s->steps[i].early)
                        rc = post_recv(&s->steps[i], b, x->comm, x->tag, &next[x->npre++]);
            }
            x->n = n;
            x->posted = true;
        }
        if (rc == MPI_SUCCESS)
            rc = settle(x->n, reqs, block, &flag);
        if (rc != MPI_SUCCESS || !flag)
            break;
        x->n = 0;
        rc = settle(x->nlazy[(r + 1) % 2], prev_lazies, block, &flag);
        if (rc != MPI_SUCCESS || !flag)
            break;
        x->nlazy[(r + 1) % 2] = 0;
        for (uint32_t i = first; i < end && rc == MPI_SUCCESS; i++) {
            const struct acct_step *st = &s->steps[i];
            if (st->kind == ACCT_STEP_REDUCE || st->kind == ACCT_STEP_COPY)
                rc = local_step(st, b, x->op, x->comm, x->tag);
        }
        x->r++;
        x->posted = false;
    }
    if (rc != MPI_SUCCESS || x->r < s->nrounds)
        return rc;
    for (int i = 0; i < 2; i++) { /* the last round's lazy sends */
        rc = settle(x->nlazy[i], sc->reqs + (2 + i) * quarter, block, &flag);
        if (rc != MPI_SUCCESS || !flag)
            return rc;
        x->nlazy[i] = 0;
    }
    *done = true;
    return MPI_SUCCESS;
}

int rt_exec(const struct acct_sched *s, struct rt_bufs *b, MPI_Op op, MPI_Comm comm, int tag,
            struct rt_scratch *sc)
{
    struct rt_exec_run x;
    bool done;
    int rc = rt_exec_begin(&x, s, b, op, comm, tag, sc);
    return rc == MPI_SUCCESS ? rt_exec_advance(&x, true, &done) : rc;
}

void rt_scratch_free(struct rt_scratch *sc)
{
    free(sc->tmp[0]);
    free(sc->tmp[1]);
    free(sc->reqs);
    memset(sc, 0, sizeof *sc);
}
