/* The rendezvous matching engine behind the schedule checks and the
 * simulator (acct/simulate.h). */
#include "acct/simulate.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define RECV_BIT (1ull << 63)
#define BAD_PEER 0x7fffffffu /* key's peer for a peer out of range */

struct engine {
    const struct acct_sim_prog *pg;
    uint32_t *round;   /* per rank: current rank-relative round */
    uint32_t *pending; /* per rank: comm steps of the current round not moved yet */
    uint32_t *round_of; /* per step: rank-relative round */
    uint32_t *partner;  /* per comm step: the partner's global step */
    uint8_t *moved;     /* per comm step: done */
    int *work;          /* ranks whose round may be complete */
    uint32_t nwork;
    uint8_t *queued;
};

static void fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    if (err == NULL || len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

static bool is_comm(uint8_t kind)
{
    return kind == ACCT_STEP_SEND || kind == ACCT_STEP_RECV;
}

static uint32_t nrounds(const struct acct_sim_prog *pg, int r)
{
    return (uint32_t)(pg->round_at[r + 1] - pg->round_at[r]);
}

/* Global steps [*first, *end) of rank r's round q. */
static void round_steps(const struct acct_sim_prog *pg, int r, uint32_t q, uint64_t *first,
                        uint64_t *end)
{
    uint64_t g = pg->round_at[r] + q;
    *first = q == 0 ? pg->step_at[r] : pg->round_end[g - 1];
    *end = pg->round_end[g];
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

#define FEW_GROUPS 16

/* Sort a rank's n keys when they fall in few groups (the key's high half:
 * kind and peer). The keys are made in step order, so within a group they
 * are ascending already: a stable scatter by group sorts them. Returns 0,
 * or -1 when there are more than FEW_GROUPS groups or no memory. */
static int sort_by_group(uint64_t *v, uint64_t n)
{
    uint64_t hi[FEW_GROUPS], at[FEW_GROUPS + 1];
    int k = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t h = v[i] >> 32;
        int g = 0;
        while (g < k && hi[g] != h)
            g++;
        if (g == k) {
            if (k == FEW_GROUPS)
                return -1;
            hi[k++] = h;
        }
    }
    for (int i = 1; i < k; i++) { /* the groups ascending */
        uint64_t x = hi[i];
        int j = i;
        for (; j > 0 && hi[j - 1] > x; j--)
            hi[j] = hi[j - 1];
        hi[j] = x;
    }
    uint64_t *tmp = malloc(n * sizeof *tmp);
    if (tmp == NULL)
        return -1;
    for (int g = 0; g <= k; g++)
        at[g] = 0;
    for (uint64_t i = 0; i < n; i++) {
        int g = 0;
        while (hi[g] != v[i] >> 32)
            g++;
        at[g + 1]++;
    }
    for (int g = 1; g <= k; g++)
        at[g] += at[g - 1];
    for (uint64_t i = 0; i < n; i++) {
        int g = 0;
        while (hi[g] != v[i] >> 32)
            g++;
        tmp[at[g]++] = v[i];
    }
    memcpy(v, tmp, n * sizeof *v);
    free(tmp);
    return 0;
}

/* Sort n distinct keys ascending: insertion sort for the few comm steps
 * of most ranks (qsort's setup dominated a 64k-rank match); above, a
 * scatter by group when the rank talks to few peers (a pipeline's
 * thousands of segments: qsort was a quarter of acct-tune's model
 * regions), else qsort. The keys are distinct (they hold the step), so
 * the order is the same. */
static void sort_keys(uint64_t *v, uint64_t n)
{
    if (n > 32) {
        if (sort_by_group(v, n) != 0)
            qsort(v, n, sizeof *v, cmp_u64);
        return;
    }
    for (uint64_t i = 1; i < n; i++) {
        uint64_t x = v[i], j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* First index in [lo, hi) of keys with keys[i] >= k. */
static uint64_t lower_bound(const uint64_t *keys, uint64_t lo, uint64_t hi, uint64_t k)
{
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Pair each send with its receive: the k-th s->d send with the k-th
 * receive at d from s. Each rank's comm steps are sorted by (kind, peer,
 * step); a send's k is its place in its run, and its receive is the k-th of
 * the receiver's run for the sender, found by binary search. Errors come in
 * the order of the old scan (ranks, then steps in order). */
static int match(struct engine *e, char *err, size_t errlen)
{
    const struct acct_sim_prog *pg = e->pg;
    const int size = pg->size;
    int rc = -1;
    uint64_t ncomm = 0;
    uint64_t *at = malloc(((size_t)size + 1) * sizeof *at);
    uint64_t *keys = NULL;

    if (at == NULL) {
        fail(err, errlen, "out of memory");
        return -1;
    }
    for (int r = 0; r < size; r++) {
        at[r] = ncomm;
        for (uint64_t i = pg->step_at[r]; i < pg->step_at[r + 1]; i++)
            ncomm += is_comm(pg->kind[i]);
    }
    at[size] = ncomm;
    keys = malloc((ncomm ? ncomm : 1) * sizeof *keys);
    if (keys == NULL) {
        fail(err, errlen, "out of memory");
        goto out;
    }
    for (int r = 0; r < size; r++) {
        uint64_t n = at[r];
        for (uint64_t i = pg->step_at[r]; i < pg->step_at[r + 1]; i++) {
            if (!is_comm(pg->kind[i]))
                continue;
            int32_t p = pg->peer[i];
            uint64_t pk = p >= 0 && p < size ? (uint64_t)p : BAD_PEER;
            keys[n++] = (pg->kind[i] == ACCT_STEP_RECV ? RECV_BIT : 0) | pk << 32 |
                        (i - pg->step_at[r]);
            e->partner[i] = NONE;
        }
        if (at[r + 1] - at[r] > 1)
            sort_keys(keys + at[r], at[r + 1] - at[r]);
        /* a send's place among the rank's sends to the same peer */
        uint32_t k = 0;
        for (uint64_t x = at[r]; x < at[r + 1] && !(keys[x] & RECV_BIT); x++) {
            k = x > at[r] && keys[x] >> 32 == keys[x - 1] >> 32 ? k + 1 : 0;
            e->partner[pg->step_at[r] + (keys[x] & 0xffffffffu)] = k;
        }
    }
    for (int s = 0; s < size; s++)
        for (uint64_t i = pg->step_at[s]; i < pg->step_at[s + 1]; i++) {
            uint32_t li = (uint32_t)(i - pg->step_at[s]);
            if (!is_comm(pg->kind[i]))
                continue;
            int32_t d = pg->peer[i];
            if (d < 0 || d >= size) {
                fail(err, errlen, "rank %d step %u: peer %d out of range", s, li, d);
                goto out;
            }
            if (d == s) {
                fail(err, errlen, "rank %d step %u: message to itself", s, li);
                goto out;
            }
            if (pg->kind[i] != ACCT_STEP_SEND)
                continue;
            uint32_t k = e->partner[i];
            uint64_t want = RECV_BIT | (uint64_t)s << 32;
            uint64_t x = lower_bound(keys, at[d], at[d + 1], want) + k;
            if (x >= at[d + 1] || keys[x] >> 32 != want >> 32) {
                fail(err, errlen, "rank %d sends message #%u to rank %d, which posts no matching receive",
                     s, k + 1, d);
                goto out;
            }
            uint64_t j = pg->step_at[d] + (keys[x] & 0xffffffffu);
            e->partner[i] = (uint32_t)j;
            e->partner[j] = (uint32_t)i;
        }
    /* every receive must have been matched */
    for (int d = 0; d < size; d++)
        for (uint64_t j = pg->step_at[d]; j < pg->step_at[d + 1]; j++)
            if (pg->kind[j] == ACCT_STEP_RECV && e->partner[j] == NONE) {
                fail(err, errlen, "rank %d step %u receives from rank %d, which sends nothing to match",
                     d, (uint32_t)(j - pg->step_at[d]), pg->peer[j]);
                goto out;
            }
    rc = 0;
out:
    free(at);
    free(keys);
    return rc;
}

static void push(struct engine *e, int r)
{
    if (!e->queued[r]) {
        e->queued[r] = 1;
        e->work[e->nwork++] = r;
    }
}

/* Move the messages of rank r's current round whose partners are in their
 * rounds already; ranks whose round has nothing left to move go on the
 * work list. Each message is moved by whichever of its two ranks enters
 * its round second, so every step is looked at once per entry: the whole
 * run is linear in the number of steps. */
static int enter_round(struct engine *e, int r, const struct acct_sim_prog_ops *ops, char *err,
                       size_t errlen)
{
    const struct acct_sim_prog *pg = e->pg;
    uint64_t first, end;
    round_steps(pg, r, e->round[r], &first, &end);
    for (uint64_t i = first; i < end; i++) {
        if (!is_comm(pg->kind[i]) || e->moved[i])
            continue;
        int p = pg->peer[i];
        uint32_t j = e->partner[i];
        if (e->round[p] >= nrounds(pg, p) || e->round[p] != e->round_of[j])
            continue;
        int cb = pg->kind[i] == ACCT_STEP_SEND ? ops->transfer(ops->ctx, r, i, p, j)
                                               : ops->transfer(ops->ctx, p, j, r, i);
        if (cb != 0) {
            fail(err, errlen, "message between ranks %d and %d refused", r, p);
            return -1;
        }
        e->moved[i] = e->moved[j] = 1;
        e->pending[r]--;
        if (--e->pending[p] == 0)
            push(e, p);
    }
    if (e->pending[r] == 0)
        push(e, r);
    return 0;
}

static void count_pending(struct engine *e, int r)
{
    const struct acct_sim_prog *pg = e->pg;
    uint64_t first, end;
    e->pending[r] = 0;
    if (e->round[r] >= nrounds(pg, r))
        return;
    round_steps(pg, r, e->round[r], &first, &end);
    for (uint64_t i = first; i < end; i++)
        e->pending[r] += is_comm(pg->kind[i]);
}

static int run(struct engine *e, const struct acct_sim_prog_ops *ops, char *err, size_t errlen)
{
    const struct acct_sim_prog *pg = e->pg;
    const int size = pg->size;

    for (int r = 0; r < size; r++) {
        uint64_t i = pg->step_at[r];
        for (uint32_t q = 0; q < nrounds(pg, r); q++)
            for (; i < pg->round_end[pg->round_at[r] + q]; i++)
                e->round_of[i] = q;
    }
    if (match(e, err, errlen) != 0)
        return -1;
    for (int r = 0; r < size; r++)
        count_pending(e, r);
    for (int r = 0; r < size; r++)
        if (e->round[r] < nrounds(pg, r) && enter_round(e, r, ops, err, errlen) != 0)
            return -1;
    while (e->nwork > 0) {
        int r = e->work[--e->nwork];
        e->queued[r] = 0;
        if (e->round[r] >= nrounds(pg, r) || e->pending[r] != 0)
            continue;
        uint64_t first, end;
        round_steps(pg, r, e->round[r], &first, &end);
        for (uint64_t i = first; i < end; i++)
            if (!is_comm(pg->kind[i]) && ops->local(ops->ctx, r, i) != 0) {
                fail(err, errlen, "rank %d step %u: local step refused", r,
                     (uint32_t)(i - pg->step_at[r]));
                return -1;
            }
        if (ops->round_done)
            ops->round_done(ops->ctx, r, e->round[r]);
        e->round[r]++;
        count_pending(e, r);
        if (e->round[r] < nrounds(pg, r) && enter_round(e, r, ops, err, errlen) != 0)
            return -1;
    }
    for (int r = 0; r < size; r++)
        if (e->round[r] < nrounds(pg, r)) {
            uint64_t first, end;
            round_steps(pg, r, e->round[r], &first, &end);
            for (uint64_t i = first; i < end; i++)
                if (is_comm(pg->kind[i]) && !e->moved[i]) {
                    fail(err, errlen, "deadlock: rank %d blocked in round %u on a %s with rank %d",
                         r, e->round[r], pg->kind[i] == ACCT_STEP_SEND ? "send" : "receive",
                         pg->peer[i]);
                    return -1;
                }
        }
    return 0;
}

int acct_sim_run_prog(const struct acct_sim_prog *pg, const struct acct_sim_prog_ops *ops,
                      char *err, size_t errlen)
{
    int rc = -1;
    struct engine e = {.pg = pg};
    if (pg == NULL || pg->size < 1) {
        fail(err, errlen, "no ranks");
        return -1;
    }
    const size_t size = (size_t)pg->size;
    const uint64_t nsteps = pg->step_at[size];
    if (nsteps >= NONE) {
        fail(err, errlen, "%llu steps: the engine takes fewer than 2^32",
             (unsigned long long)nsteps);
        return -1;
    }
    for (int r = 0; r < pg->size; r++) {
        uint32_t n = nrounds(pg, r);
        uint64_t last = n ? pg->round_end[pg->round_at[r] + n - 1] : pg->step_at[r];
        if (last != pg->step_at[r + 1]) {
            fail(err, errlen, "rank %d: schedule not finished (acct_sched_finish)", r);
            return -1;
        }
    }
    const size_t ns = nsteps ? (size_t)nsteps : 1;
    e.round = calloc(size, sizeof *e.round);
    e.pending = calloc(size, sizeof *e.pending);
    e.round_of = malloc(ns * sizeof *e.round_of);
    e.partner = malloc(ns * sizeof *e.partner);
    e.moved = calloc(ns, 1);
    e.work = malloc(size * sizeof *e.work);
    e.queued = calloc(size, 1);
    if (!e.round || !e.pending || !e.round_of || !e.partner || !e.moved || !e.work || !e.queued) {
        fail(err, errlen, "out of memory");
        goto out;
    }
    rc = run(&e, ops, err, errlen);
out:
    free(e.round);
    free(e.pending);
    free(e.round_of);
    free(e.partner);
    free(e.moved);
    free(e.work);
    free(e.queued);
    return rc;
}

/* acct_sim_run: the schedules flattened, the callbacks given their steps. */
struct adapter {
    const struct acct_sched *const *scheds;
    const uint64_t *step_at;
    const struct acct_sim_ops *ops;
};

static const struct acct_step *step_of(const struct adapter *a, int r, uint64_t g)
{
    return &a->scheds[r]->steps[g - a->step_at[r]];
}

static int ad_transfer(void *ctx, int src, uint64_t send, int dst, uint64_t recv)
{
    const struct adapter *a = ctx;
    return a->ops->transfer(a->ops->ctx, src, step_of(a, src, send), dst, step_of(a, dst, recv));
}

static int ad_local(void *ctx, int rank, uint64_t step)
{
    const struct adapter *a = ctx;
    return a->ops->local(a->ops->ctx, rank, step_of(a, rank, step));
}

static void ad_round_done(void *ctx, int rank, uint32_t round)
{
    const struct adapter *a = ctx;
    a->ops->round_done(a->ops->ctx, rank, round);
}

int acct_sim_run(const struct acct_sched *const *scheds, int size, const struct acct_sim_ops *ops,
                 char *err, size_t errlen)
{
    int rc = -1;
    uint64_t nsteps = 0, nrnd = 0;
    struct acct_sim_prog pg = {.size = size};
    uint64_t *step_at = NULL, *round_at = NULL, *round_end = NULL;
    uint8_t *kind = NULL;
    int32_t *peer = NULL;

    if (size < 1) {
        fail(err, errlen, "no ranks");
        return -1;
    }
    for (int r = 0; r < size; r++) {
        const struct acct_sched *s = scheds[r];
        if (s->nsteps > 0 && (s->nrounds == 0 || s->round_end[s->nrounds - 1] != s->nsteps)) {
            fail(err, errlen, "rank %d: schedule not finished (acct_sched_finish)", r);
            return -1;
        }
        nsteps += s->nsteps;
        nrnd += s->nrounds;
    }
    step_at = malloc(((size_t)size + 1) * sizeof *step_at);
    round_at = malloc(((size_t)size + 1) * sizeof *round_at);
    round_end = malloc((nrnd ? nrnd : 1) * sizeof *round_end);
    kind = malloc(nsteps ? nsteps : 1);
    peer = malloc((nsteps ? nsteps : 1) * sizeof *peer);
    if (!step_at || !round_at || !round_end || !kind || !peer) {
        fail(err, errlen, "out of memory");
        goto out;
    }
    nsteps = nrnd = 0;
    for (int r = 0; r < size; r++) {
        const struct acct_sched *s = scheds[r];
        step_at[r] = nsteps;
        round_at[r] = nrnd;
        for (uint32_t i = 0; i < s->nsteps; i++) {
            kind[nsteps + i] = s->steps[i].kind;
            peer[nsteps + i] = s->steps[i].peer;
        }
        for (uint32_t q = 0; q < s->nrounds; q++)
            round_end[nrnd + q] = nsteps + s->round_end[q];
        nsteps += s->nsteps;
        nrnd += s->nrounds;
    }
    step_at[size] = nsteps;
    round_at[size] = nrnd;
    pg.step_at = step_at;
    pg.round_at = round_at;
    pg.round_end = round_end;
    pg.kind = kind;
    pg.peer = peer;
    struct adapter a = {.scheds = scheds, .step_at = step_at, .ops = ops};
    struct acct_sim_prog_ops pops = {.ctx = &a, .transfer = ad_transfer, .local = ad_local,
                                     .round_done = ops->round_done ? ad_round_done : NULL};
    rc = acct_sim_run_prog(&pg, &pops, err, errlen);
out:
    free(step_at);
    free(round_at);
    free(round_end);
    free(kind);
    free(peer);
    return rc;
}
