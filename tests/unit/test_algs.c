/* Every registered algorithm, checked without MPI: all ranks' schedules run
 * together in the rendezvous engine (acct/simulate.h), moving tagged values,
 * over sizes 1..64, every kind of root, counts, segments, fan-outs, in-place
 * and (for reductions) commutative and non-commutative operations.
 *
 * A value records which element it is and which ranks' contributions it
 * holds. The non-commutative reduction only combines a with b when a's ranks
 * come right before b's, so any algorithm that reorders operands fails; the
 * commutative one refuses to count a rank twice. Buffers have exactly the
 * size MPI gives them (none where the standard says "significant only at
 * root"), so any access beyond them fails. Barrier: every rank must have
 * heard, transitively, from every other before it finishes.
 *
 *   test_algs                 all algorithms
 *   test_algs COLL [ALG]      one collective / one algorithm
 *   test_algs --list          "COLL ALG segmented|plain FALLBACKS reorder|-" per
 *                             non-native algorithm (reorder: SACK-capable)
 *
 * One cmocka group a run: the fallback chains and the reorder flags of the
 * whole registry, then one test per selected algorithm. */
#include <inttypes.h>
#include <stdbool.h>

#include "acct_test.h"

#include "acct/alg.h"
#include "acct/simulate.h"

struct val {
    int64_t elem; /* -1: never written */
    int32_t lo, hi;
    uint64_t mask;
    uint32_t cnt;
};

struct rbuf {
    struct val *v;
    uint64_t n;
};

#define MAXP 64

struct world {
    const struct acct_call *shape; /* rank field ignored */
    int size;
    struct rbuf buf[MAXP][ACCT_BUF_COUNT];
    uint64_t know[MAXP]; /* barrier: ranks heard from (transitively) */
    uint64_t posted[MAXP]; /* what a rank knew when it posted its current round */
    char err[512];
};

static struct val contribution(int64_t elem, int r)
{
    struct val v = {.elem = elem, .lo = r, .hi = r, .mask = 1ull << r, .cnt = 1};
    return v;
}

/* Element elem combined over ranks [0, hi] in rank order (scan, exscan). */
static struct val prefix_of(int64_t elem, int hi)
{
    struct val v = {.elem = elem, .lo = 0, .hi = hi,
                    .mask = hi == 63 ? ~0ull : (1ull << (hi + 1)) - 1, .cnt = (uint32_t)hi + 1};
    return v;
}

static struct val full(int64_t elem, int size)
{
    struct val v = {.elem = elem, .lo = 0, .hi = size - 1,
                    .mask = size == 64 ? ~0ull : (1ull << size) - 1, .cnt = (uint32_t)size};
    return v;
}

static bool same(struct val a, struct val b)
{
    return a.elem == b.elem && a.lo == b.lo && a.hi == b.hi && a.mask == b.mask && a.cnt == b.cnt;
}

static struct val *slice(struct world *w, int r, const struct acct_ref *ref)
{
    struct rbuf *b = &w->buf[r][ref->buf];
    if (ref->buf >= ACCT_BUF_COUNT || ref->off > b->n || ref->count > b->n - ref->off) {
        snprintf(w->err, sizeof w->err, "rank %d: buffer %u [%" PRIu64 ", +%" PRIu64
                 ") outside its %" PRIu64 " elements", r, ref->buf, ref->off, ref->count, b->n);
        return NULL;
    }
    return b->v + ref->off;
}

static int on_transfer(void *ctx, int src, const struct acct_step *send, int dst,
                       const struct acct_step *recv)
{
    struct world *w = ctx;
    /* a message carries what its sender knew when it posted the round,
     * not what the sender learns in that same round */
    w->know[dst] |= w->posted[src];
    if (send->a.count != recv->a.count) {
        snprintf(w->err, sizeof w->err, "rank %d sends %" PRIu64 " elements, rank %d receives %" PRIu64,
                 src, send->a.count, dst, recv->a.count);
        return -1;
    }
    if (recv->a.buf == ACCT_BUF_SEND) {
        snprintf(w->err, sizeof w->err, "rank %d receives into the send buffer (const in MPI)", dst);
        return -1;
    }
    struct val *from = slice(w, src, &send->a), *to = slice(w, dst, &recv->a);
    if ((!from || !to) && send->a.count > 0)
        return -1;
    if (send->a.count > 0)
        memmove(to, from, sizeof *to * send->a.count);
    return 0;
}

static int combine(struct world *w, int r, struct val a, struct val *b)
{
    bool commutative = w->shape->commutative;
    if (a.elem != b->elem || a.elem < 0 || (a.mask & b->mask) != 0 ||
        (!commutative && a.hi + 1 != b->lo)) {
        snprintf(w->err, sizeof w->err,
                 "rank %d: reduces elem %" PRId64 " ranks [%d,%d] with elem %" PRId64
                 " ranks [%d,%d]%s", r, a.elem, a.lo, a.hi, b->elem, b->lo, b->hi,
                 commutative ? " (overlap)" : " (out of order for a non-commutative op)");
        return -1;
    }
    b->lo = a.lo < b->lo ? a.lo : b->lo;
    b->hi = a.hi > b->hi ? a.hi : b->hi;
    b->mask |= a.mask;
    b->cnt += a.cnt;
    return 0;
}

static int on_local(void *ctx, int r, const struct acct_step *st)
{
    struct world *w = ctx;
    if (st->b.buf == ACCT_BUF_SEND) {
        snprintf(w->err, sizeof w->err, "rank %d writes into the send buffer (const in MPI)", r);
        return -1;
    }
    struct val *a = slice(w, r, &st->a), *b = slice(w, r, &st->b);
    if (!a || !b)
        return -1;
    if (st->a.count != st->b.count) {
        snprintf(w->err, sizeof w->err, "rank %d: local step with counts %" PRIu64 " and %" PRIu64,
                 r, st->a.count, st->b.count);
        return -1;
    }
    if (st->kind == ACCT_STEP_COPY) {
        memmove(b, a, sizeof *b * st->a.count);
        return 0;
    }
    for (uint64_t i = 0; i < st->a.count; i++)
        if (combine(w, r, a[i], &b[i]) != 0)
            return -1;
    return 0;
}

static void on_round_done(void *ctx, int rank, unsigned round)
{
    struct world *w = ctx;
    (void)round;
    w->posted[rank] = w->know[rank];
}

static void alloc_buf(struct world *w, int r, enum acct_buf b, uint64_t n)
{
    w->buf[r][b].n = n;
    w->buf[r][b].v = malloc(sizeof(struct val) * (n ? n : 1));
    for (uint64_t i = 0; i < n; i++) {
        struct val empty = {.elem = -1, .lo = -1, .hi = -1};
        w->buf[r][b].v[i] = empty;
    }
}

/* alltoallv: a2a[i][j] elements from rank i to rank j (vector_shape);
 * each rank's row of the call (run_case): [0] scounts [1] sdispls
 * [2] counts (received) [3] displs. */
static uint64_t a2a[MAXP][MAXP];
static uint64_t a2a_rows[MAXP][4][MAXP];

/* Elements of blocks [0, i) of counts (prefix). */
static uint64_t prefix(const uint64_t *counts, int i)
{
    uint64_t o = 0;
    for (int j = 0; j < i; j++)
        o += counts[j];
    return o;
}

/* The element id of alltoallv's block from i to j, element k. */
static int64_t a2a_elem(int i, int j, uint64_t k)
{
    return (int64_t)((uint64_t)(i * MAXP + j) * 1000u + k);
}

/* The buffers MPI gives rank r for this call, filled with its input. */
static void setup_rank(struct world *w, int r)
{
    const struct acct_call *c = w->shape;
    const int p = w->size;
    const uint64_t n = c->count, all = n * (uint64_t)p;
    const bool root = r == c->root, ip = c->in_place;
    switch (c->coll) {
    case ACCT_COLL_barrier:
        break;
    case ACCT_COLL_bcast:
        alloc_buf(w, r, ACCT_BUF_RECV, n);
        if (root)
            for (uint64_t i = 0; i < n; i++) w->buf[r][ACCT_BUF_RECV].v[i] = contribution((int64_t)i, r);
        break;
    case ACCT_COLL_reduce:
    case ACCT_COLL_allreduce: {
        bool has_recv = c->coll == ACCT_COLL_allreduce || root;
        bool inplace = ip && has_recv;
        alloc_buf(w, r, ACCT_BUF_SEND, inplace ? 0 : n);
        alloc_buf(w, r, ACCT_BUF_RECV, has_recv ? n : 0);
        enum acct_buf in = inplace ? ACCT_BUF_RECV : ACCT_BUF_SEND;
        for (uint64_t i = 0; i < n; i++) w->buf[r][in].v[i] = contribution((int64_t)i, r);
        break;
    }
    case ACCT_COLL_scan:
    case ACCT_COLL_exscan: /* exscan's rank 0: RECV is undefined, and never written */
        alloc_buf(w, r, ACCT_BUF_SEND, ip ? 0 : n);
        alloc_buf(w, r, ACCT_BUF_RECV, n);
        for (uint64_t i = 0; i < n; i++)
            w->buf[r][ip ? ACCT_BUF_RECV : ACCT_BUF_SEND].v[i] = contribution((int64_t)i, r);
        break;
    case ACCT_COLL_reduce_scatter_block:
        alloc_buf(w, r, ACCT_BUF_SEND, ip ? 0 : all);
        alloc_buf(w, r, ACCT_BUF_RECV, ip ? all : n);
        for (uint64_t k = 0; k < all; k++)
            w->buf[r][ip ? ACCT_BUF_RECV : ACCT_BUF_SEND].v[k] = contribution((int64_t)k, r);
        break;
    case ACCT_COLL_gather:
    case ACCT_COLL_allgather: {
        bool has_recv = c->coll == ACCT_COLL_allgather || root;
        bool inplace = ip && has_recv;
        alloc_buf(w, r, ACCT_BUF_SEND, inplace ? 0 : n);
        alloc_buf(w, r, ACCT_BUF_RECV, has_recv ? all : 0);
        for (uint64_t i = 0; i < n; i++) {
            struct val v = contribution((int64_t)((uint64_t)r * n + i), r);
            if (inplace) w->buf[r][ACCT_BUF_RECV].v[(uint64_t)r * n + i] = v;
            else w->buf[r][ACCT_BUF_SEND].v[i] = v;
        }
        break;
    }
    case ACCT_COLL_scatter:
        alloc_buf(w, r, ACCT_BUF_SEND, root ? all : 0);
        alloc_buf(w, r, ACCT_BUF_RECV, root && ip ? 0 : n);
        if (root)
            for (uint64_t k = 0; k < all; k++)
                w->buf[r][ACCT_BUF_SEND].v[k] = contribution((int64_t)k, (int)(k / (n ? n : 1)));
        break;
    case ACCT_COLL_alltoall:
        alloc_buf(w, r, ACCT_BUF_SEND, all);
        alloc_buf(w, r, ACCT_BUF_RECV, all);
        for (uint64_t k = 0; k < all; k++) /* block for d = k / n, from r */
            w->buf[r][ACCT_BUF_SEND].v[k] = contribution((int64_t)((k / n) * (uint64_t)p + (uint64_t)r) * (int64_t)n + (int64_t)(k % n), r);
        break;
    case ACCT_COLL_allgatherv: {
        /* block i: elements prefix(i).. of the whole, at displs[i] */
        uint64_t end = 0, pre = 0;
        for (int i = 0; i < p; i++) {
            end = c->displs[i] + c->counts[i] > end ? c->displs[i] + c->counts[i] : end;
            pre += i < r ? c->counts[i] : 0;
        }
        alloc_buf(w, r, ACCT_BUF_SEND, ip ? 0 : c->counts[r]);
        alloc_buf(w, r, ACCT_BUF_RECV, end);
        for (uint64_t k = 0; k < c->counts[r]; k++) {
            struct val v = contribution((int64_t)(pre + k), r);
            if (ip) w->buf[r][ACCT_BUF_RECV].v[c->displs[r] + k] = v;
            else w->buf[r][ACCT_BUF_SEND].v[k] = v;
        }
        break;
    }
    case ACCT_COLL_gatherv: {
        uint64_t end = 0, pre = prefix(c->counts, r);
        for (int i = 0; i < p; i++)
            end = c->displs[i] + c->counts[i] > end ? c->displs[i] + c->counts[i] : end;
        alloc_buf(w, r, ACCT_BUF_SEND, root && ip ? 0 : c->counts[r]);
        alloc_buf(w, r, ACCT_BUF_RECV, root ? end : 0);
        for (uint64_t k = 0; k < c->counts[r]; k++) {
            struct val v = contribution((int64_t)(pre + k), r);
            if (root && ip) w->buf[r][ACCT_BUF_RECV].v[c->displs[r] + k] = v;
            else w->buf[r][ACCT_BUF_SEND].v[k] = v;
        }
        break;
    }
    case ACCT_COLL_scatterv: {
        uint64_t end = 0;
        for (int i = 0; i < p; i++)
            end = c->displs[i] + c->counts[i] > end ? c->displs[i] + c->counts[i] : end;
        alloc_buf(w, r, ACCT_BUF_SEND, root ? end : 0);
        alloc_buf(w, r, ACCT_BUF_RECV, root && ip ? 0 : c->counts[r]);
        if (root)
            for (int i = 0; i < p; i++)
                for (uint64_t k = 0; k < c->counts[i]; k++)
                    w->buf[r][ACCT_BUF_SEND].v[c->displs[i] + k] =
                        contribution((int64_t)(prefix(c->counts, i) + k), i);
        break;
    }
    case ACCT_COLL_alltoallv: {
        const uint64_t *row = a2a_rows[r][0], *sd = a2a_rows[r][1];
        alloc_buf(w, r, ACCT_BUF_SEND, prefix(row, p));
        alloc_buf(w, r, ACCT_BUF_RECV, prefix(a2a_rows[r][2], p));
        for (int j = 0; j < p; j++)
            for (uint64_t k = 0; k < row[j]; k++)
                w->buf[r][ACCT_BUF_SEND].v[sd[j] + k] = contribution(a2a_elem(r, j, k), r);
        break;
    }
    case ACCT_COLL_reduce_scatter:
        alloc_buf(w, r, ACCT_BUF_SEND, ip ? 0 : n);
        alloc_buf(w, r, ACCT_BUF_RECV, ip ? n : c->counts[r]);
        for (uint64_t k = 0; k < n; k++)
            w->buf[r][ip ? ACCT_BUF_RECV : ACCT_BUF_SEND].v[k] = contribution((int64_t)k, r);
        break;
    case ACCT_COLL_COUNT:
        break;
    }
}

/* allgatherv: rank i's block at displs[i] on every rank, the gaps between
 * blocks never written. */
static int check_allgatherv(struct world *w, int r)
{
    const struct acct_call *c = w->shape;
    struct rbuf *rb = &w->buf[r][ACCT_BUF_RECV];
    uint64_t pre = 0;
    for (uint64_t k = 0; k < rb->n; k++) {
        int owner = -1;
        for (int i = 0; i < w->size; i++)
            if (k >= c->displs[i] && k < c->displs[i] + c->counts[i])
                owner = i;
        if (owner < 0 && rb->v[k].elem != -1) {
            snprintf(w->err, sizeof w->err, "rank %d: element %" PRIu64 " (a gap) was written", r, k);
            return -1;
        }
    }
    for (int i = 0; i < w->size; i++) {
        for (uint64_t k = 0; k < c->counts[i]; k++) {
            struct val want = contribution((int64_t)(pre + k), i), got = rb->v[c->displs[i] + k];
            if (!same(got, want)) {
                snprintf(w->err, sizeof w->err, "rank %d: block %d element %" PRIu64 " is elem %"
                         PRId64 " from [%d,%d], want elem %" PRId64 " from %d", r, i, k, got.elem,
                         got.lo, got.hi, want.elem, i);
                return -1;
            }
        }
        pre += c->counts[i];
    }
    return 0;
}

/* Check rank r's output; returns 0 or -1 with w->err set. */
static int check_rank(struct world *w, int r)
{
    const struct acct_call *c = w->shape;
    const int p = w->size;
    const uint64_t n = c->count, all = n * (uint64_t)p;
    const bool root = r == c->root;
    struct rbuf *rb = &w->buf[r][ACCT_BUF_RECV];
    struct val want;
    if (c->coll == ACCT_COLL_allgatherv || (c->coll == ACCT_COLL_gatherv && root))
        return check_allgatherv(w, r);
    if (c->coll == ACCT_COLL_alltoallv) {
        for (int j = 0; j < p; j++)
            for (uint64_t k = 0; k < a2a[j][r]; k++) {
                struct val got = rb->v[a2a_rows[r][3][j] + k], w2 = contribution(a2a_elem(j, r, k), j);
                if (!same(got, w2)) {
                    snprintf(w->err, sizeof w->err, "rank %d: block from %d element %" PRIu64
                             " is elem %" PRId64 " from [%d,%d], want elem %" PRId64, r, j, k,
                             got.elem, got.lo, got.hi, w2.elem);
                    return -1;
                }
            }
        return 0;
    }
    for (uint64_t k = 0; k < rb->n; k++) {
        switch (c->coll) {
        case ACCT_COLL_bcast: want = contribution((int64_t)k, c->root); break;
        case ACCT_COLL_reduce:
        case ACCT_COLL_allreduce: want = full((int64_t)k, p); break;
        case ACCT_COLL_reduce_scatter_block:
            if (k >= n) continue; /* in-place: only the first block is defined */
            want = full((int64_t)((uint64_t)r * n + k), p);
            break;
        case ACCT_COLL_gather:
        case ACCT_COLL_allgather: want = contribution((int64_t)k, (int)(k / n)); break;
        case ACCT_COLL_scatter: want = contribution((int64_t)((uint64_t)r * n + k), r); break;
        case ACCT_COLL_scatterv:
            want = contribution((int64_t)(prefix(c->counts, r) + k), r);
            break;
        case ACCT_COLL_reduce_scatter:
            if (k >= c->counts[r]) continue; /* in-place: only the first block is defined */
            want = full((int64_t)(c->displs[r] + k), p);
            break;
        case ACCT_COLL_scan: want = prefix_of((int64_t)k, r); break;
        case ACCT_COLL_exscan:
            if (r > 0) {
                want = prefix_of((int64_t)k, r - 1);
            } else { /* untouched: the input in place, else never written */
                struct val empty = {.elem = -1, .lo = -1, .hi = -1};
                want = c->in_place ? contribution((int64_t)k, 0) : empty;
            }
            break;
        case ACCT_COLL_alltoall: /* block from s = k / n */
            want = contribution((int64_t)(((uint64_t)r * (uint64_t)p + k / n) * n + k % n), (int)(k / n));
            break;
        default: continue;
        }
        if (!same(rb->v[k], want)) {
            snprintf(w->err, sizeof w->err, "rank %d: result element %" PRIu64 " is elem %" PRId64
                     " ranks [%d,%d] cnt %u, want elem %" PRId64 " ranks [%d,%d] cnt %u",
                     r, k, rb->v[k].elem, rb->v[k].lo, rb->v[k].hi, rb->v[k].cnt, want.elem,
                     want.lo, want.hi, want.cnt);
            return -1;
        }
    }
    (void)all; (void)root;
    if (c->coll == ACCT_COLL_barrier && w->know[r] != full(0, p).mask) {
        snprintf(w->err, sizeof w->err, "barrier: rank %d leaves without hearing from every rank", r);
        return -1;
    }
    return 0;
}

/* Within one round the executor posts every message at once, so a
 * receive must not overlap any other message's memory of that round (a
 * send of the same region would race with it). The engine moves data in
 * matching order and cannot see such races: check them here. */
static int check_round_hazards(const struct acct_sched *s, int rank, char *msg, size_t len)
{
    for (uint32_t r = 0; r < s->nrounds; r++) {
        uint32_t first, end;
        acct_sched_round_steps(s, r, &first, &end);
        for (uint32_t i = first; i < end; i++) {
            const struct acct_step *a = &s->steps[i];
            if (a->kind != ACCT_STEP_RECV || a->a.count == 0)
                continue;
            for (uint32_t j = first; j < end; j++) {
                const struct acct_step *b = &s->steps[j];
                if (j == i || (b->kind != ACCT_STEP_SEND && b->kind != ACCT_STEP_RECV) ||
                    b->a.count == 0 || b->a.buf != a->a.buf)
                    continue;
                if (a->a.off < b->a.off + b->a.count && b->a.off < a->a.off + a->a.count) {
                    snprintf(msg, len, "rank %d round %u: receive into buffer %u [%" PRIu64 ", +%" PRIu64
                             ") overlaps a %s of [%" PRIu64 ", +%" PRIu64 ") in the same round",
                             rank, r, a->a.buf, a->a.off, a->a.count,
                             b->kind == ACCT_STEP_SEND ? "send" : "receive", b->a.off, b->a.count);
                    return -1;
                }
            }
        }
    }
    return 0;
}

/* Run one shape; returns 0, 1 if the algorithm declines, -1 on failure. */
static int run_case(const struct acct_alg *alg, const struct acct_call *shape, char *msg, size_t len)
{
    static struct acct_sched scheds[MAXP];
    const struct acct_sched *ptrs[MAXP];
    static struct world w;
    int rc = 0, declined = 0;

    memset(&w, 0, sizeof w);
    w.shape = shape;
    w.size = shape->size;
    for (int r = 0; r < shape->size; r++) {
        struct acct_call c = *shape;
        c.rank = r;
        /* what rank r knows of a v-collective's counts (acct/alg.h): its
         * own block; every count with ACCT_ALG_ALL_COUNTS (the runtime's
         * broadcast), the displacements never */
        if ((c.coll == ACCT_COLL_gatherv || c.coll == ACCT_COLL_scatterv) && r != c.root) {
            if (c.coll == ACCT_COLL_gatherv)
                c.scount = shape->counts[r];
            else
                c.count = shape->counts[r];
            c.counts = (alg->flags & ACCT_ALG_ALL_COUNTS) ? shape->counts : NULL;
            c.displs = NULL;
        } else if (c.coll == ACCT_COLL_alltoallv) {
            for (int j = 0; j < shape->size; j++) {
                a2a_rows[r][0][j] = a2a[r][j];
                a2a_rows[r][2][j] = a2a[j][r];
                a2a_rows[r][1][j] = prefix(a2a_rows[r][0], j);
                a2a_rows[r][3][j] = prefix(a2a_rows[r][2], j);
            }
            c.scounts = a2a_rows[r][0];
            c.sdispls = a2a_rows[r][1];
            c.counts = a2a_rows[r][2];
            c.displs = a2a_rows[r][3];
        }
        acct_sched_init(&scheds[r]);
        if (acct_alg_schedule(alg, &c, &scheds[r]) != 0)
            declined++;
        ptrs[r] = &scheds[r];
        setup_rank(&w, r);
        w.know[r] = w.posted[r] = 1ull << r;
        for (int t = 0; t < 2; t++) {
            uint64_t n = scheds[r].tmp_count[t];
            alloc_buf(&w, r, t ? ACCT_BUF_TMP1 : ACCT_BUF_TMP0, n);
        }
    }
    if (declined == shape->size) {
        rc = 1;
    } else if (declined) {
        snprintf(msg, len, "%d of %d ranks declined the call: ranks would disagree", declined, shape->size);
        rc = -1;
    } else {
        for (int r = 0; r < shape->size && rc == 0; r++)
            if (check_round_hazards(&scheds[r], r, msg, len) != 0)
                rc = -1;
    }
    if (rc == 0 && declined == 0) {
        struct acct_sim_ops ops = {.ctx = &w, .transfer = on_transfer, .local = on_local,
                                   .round_done = on_round_done};
        char err[256] = "";
        if (acct_sim_run(ptrs, shape->size, &ops, err, sizeof err) != 0) {
            snprintf(msg, len, "%s%s%s", err, w.err[0] ? ": " : "", w.err);
            rc = -1;
        }
        for (int r = 0; r < shape->size && rc == 0; r++)
            if (check_rank(&w, r) != 0) {
                snprintf(msg, len, "%s", w.err);
                rc = -1;
            }
    }
    for (int r = 0; r < shape->size; r++) {
        for (int b = 0; b < ACCT_BUF_COUNT; b++)
            free(w.buf[r][b].v);
        acct_sched_free(&scheds[r]);
    }
    return rc;
}

static bool allows_in_place(enum acct_coll_id c)
{
    return c != ACCT_COLL_barrier && c != ACCT_COLL_bcast && c != ACCT_COLL_alltoall &&
           c != ACCT_COLL_alltoallv;
}

/* The layouts a node-aware algorithm is swept over (acct/layout.h): none
 * (it must fall back), blocks of 2 and of 3 (the last node short when 3
 * does not divide P), round-robin over 3 nodes (nodes are not rank
 * ranges), one node, one rank per node, and a lone rank on node 0 before
 * blocks of 4. Others sweep without one. */
enum { NLAYOUTS = 7 };
static int layout_key(int pattern, int r)
{
    switch (pattern) {
    case 1: return r / 2;
    case 2: return r / 3;
    case 3: return r % 3;
    case 4: return 0;
    case 5: return r;
    default: return r == 0 ? 0 : 1 + (r - 1) / 4;
    }
}

/* Layout `pattern` of p ranks into *l; NULL for pattern 0. */
static const struct acct_layout *make_layout(int pattern, int p, struct acct_layout *l)
{
    int key[MAXP];
    if (pattern == 0)
        return NULL;
    for (int r = 0; r < p; r++)
        key[r] = layout_key(pattern, r);
    assert_int_equal(acct_layout_build(l, p, key), 0);
    return l;
}

/* v-collectives: count arrays from pattern ci (uniform 0 and 1, uneven
 * with zeros, one rank alone, growing, uneven large) and, for allgatherv,
 * blocks placed in reverse rank order with one-element gaps on the odd
 * patterns; reduce_scatter's displs are the prefix sums MPI implies. */
static void vector_shape(struct acct_call *c, int ci, int gaps, uint64_t *vc, uint64_t *vd)
{
    const int p = c->size;
    uint64_t total = 0;
    for (int i = 0; i < p; i++) {
        switch (ci) {
        case 0: vc[i] = 0; break;
        case 1: vc[i] = 1; break;
        case 2: vc[i] = (uint64_t)((i * 7 + 3) % 4); break;  /* 3 2 1 0 3 ... */
        case 3: vc[i] = i == p / 2 ? 5 : 0; break;
        case 4: vc[i] = (uint64_t)i + 1; break;
        default: vc[i] = (uint64_t)((i * 5) % 7) * 3; break;
        }
        total += vc[i];
    }
    if (c->coll == ACCT_COLL_alltoallv) /* rank i sends j a pattern of (i, j) */
        for (int i = 0; i < p; i++)
            for (int j = 0; j < p; j++)
                a2a[i][j] = ci == 0 ? 0 : ci == 1 ? 1 : (uint64_t)((i * 3 + j * 5 + ci) % 4) * (uint64_t)(ci - 1);
    if (c->coll != ACCT_COLL_reduce_scatter && gaps && ci % 2 == 1) {
        uint64_t at = 1;
        for (int i = p - 1; i >= 0; i--) {
            vd[i] = at;
            at += vc[i] + 1;
        }
    } else {
        uint64_t at = 0;
        for (int i = 0; i < p; i++) {
            vd[i] = at;
            at += vc[i];
        }
    }
    c->count = total;
    c->counts = vc;
    c->displs = vd;
}

/* Sweep one algorithm; returns the number of failed cases. */
static int sweep(const struct acct_alg *alg, long *ran)
{
    static const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 24, 31, 32, 33, 64};
    static const uint64_t counts[] = {0, 1, 2, 5, 17, 64};
    static const uint64_t segs[] = {0, 1, 3, 16};
    int failures = 0;
    const bool seg = alg->flags & ACCT_ALG_SEGMENTED, fan = alg->flags & ACCT_ALG_FANOUT;
    const bool rooted = acct_coll_rooted(alg->coll), reduces = acct_coll_reduces(alg->coll);
    const int nlayouts = (alg->flags & ACCT_ALG_NODES) ? NLAYOUTS : 1;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes * nlayouts; si++) {
        int p = sizes[si % (sizeof sizes / sizeof *sizes)];
        struct acct_layout lay;
        const struct acct_layout *layout = make_layout((int)(si / (sizeof sizes / sizeof *sizes)), p, &lay);
        int roots[3] = {0, p / 2, p - 1};
        int fans[3] = {0, alg->fanout_min, alg->fanout_max > 8 ? 8 : alg->fanout_max};
        for (int ri = 0; ri < (rooted ? 3 : 1); ri++)
            for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++)
                for (size_t gi = 0; gi < (seg ? sizeof segs / sizeof *segs : 1); gi++)
                    for (int fi = 0; fi < (fan ? 3 : 1); fi++)
                        for (int ip = 0; ip < (allows_in_place(alg->coll) ? 2 : 1); ip++)
                            for (int cm = reduces ? 0 : 1; cm < 2; cm++) {
                                struct acct_call c = {
                                    .coll = alg->coll, .size = p,
                                    .root = rooted ? roots[ri] : -1,
                                    .count = alg->coll == ACCT_COLL_barrier ? 0 : counts[ci],
                                    .seg = segs[gi], .fanout = fans[fi],
                                    .in_place = ip, .commutative = cm, .layout = layout};
                                c.scount = c.count;
                                uint64_t vc[MAXP], vd[MAXP];
                                if (acct_coll_vector(alg->coll))
                                    vector_shape(&c, (int)ci, 1, vc, vd);
                                char msg[768];
                                const struct acct_alg *run = alg;
                                if (!acct_alg_applicable(alg, &c, NULL)) {
                                    /* the fallback chain: an applicable
                                     * algorithm, non-native where the
                                     * registry names one, and correct */
                                    run = acct_alg_resolve(alg, &c);
                                    if (!acct_alg_applicable(run, &c, NULL) ||
                                        (alg->fallback != NULL &&
                                         (run->flags & ACCT_ALG_NATIVE))) {
                                        if (failures++ < 5)
                                            printf("FAIL %s/%s P=%d commutative=%d: fallback "
                                                   "gave %s\n", acct_coll_name(alg->coll),
                                                   alg->name, p, cm, run->name);
                                        continue;
                                    }
                                    if (run->flags & ACCT_ALG_NATIVE)
                                        continue;
                                } else if (acct_alg_resolve(alg, &c) != alg) {
                                    if (failures++ < 5)
                                        printf("FAIL %s/%s: resolve changed an applicable "
                                               "algorithm\n", acct_coll_name(alg->coll), alg->name);
                                    continue;
                                }
                                int rc = run_case(run, &c, msg, sizeof msg);
                                if (rc < 0 && failures++ < 5)
                                    printf("FAIL %s/%s%s%s P=%d layout=%d root=%d count=%" PRIu64
                                           " seg=%" PRIu64 " fanout=%d in_place=%d commutative=%d: %s\n",
                                           acct_coll_name(alg->coll), alg->name,
                                           run != alg ? " via fallback " : "",
                                           run != alg ? run->name : "", p,
                                           (int)(si / (sizeof sizes / sizeof *sizes)), c.root, c.count,
                                           c.seg, c.fanout, ip, cm, msg);
                                *ran += rc == 0;
                            }
        if (layout != NULL)
            acct_layout_free(&lay);
    }
    return failures;
}

/* The registry's reorder capability (docs/sack.md): only collectives with
 * a SACK protocol in the runtime (bcast, scatter, gather, reduce) flag
 * algorithms, never
 * native; a reduction flagged one day would still never reorder with a
 * non-commutative operation. */
static void test_reorder(void **state)
{
    (void)state;
    char msg[512];
    for (const struct acct_alg *a = acct_algs; a->name; a++) {
        bool flagged = (a->flags & ACCT_ALG_REORDER) != 0;
        if (flagged != acct_alg_reorderable(a, NULL, NULL) ||
            (flagged && a->coll != ACCT_COLL_bcast && a->coll != ACCT_COLL_scatter &&
             a->coll != ACCT_COLL_gather && a->coll != ACCT_COLL_reduce) ||
            ((a->flags & ACCT_ALG_NATIVE) && acct_alg_reorderable(a, NULL, NULL))) {
            fail_msg("%s/%s: reorder flag without a SACK protocol", acct_coll_name(a->coll),
                     a->name);
        }
    }
    struct acct_alg red = {.coll = ACCT_COLL_reduce, .name = "x", .flags = ACCT_ALG_REORDER};
    struct acct_call c = {.coll = ACCT_COLL_reduce, .size = 4, .commutative = false};
    const char *why = NULL;
    if (acct_alg_reorderable(&red, &c, &why) || why == NULL || !acct_alg_reorderable(&red, NULL, NULL)) {
        fail_msg("reorder: a non-commutative reduction may reorder");
    }
    c.commutative = true;
    if (!acct_alg_reorderable(&red, &c, NULL)) {
        fail_msg("reorder: a commutative reduction flagged reorder may not");
    }
    acct_alg_reorder_msg(acct_alg_find(ACCT_COLL_gather, "linear_sync"), msg, sizeof msg);
    if (strcmp(msg, "gather linear_sync has no SACK reordering (reorder-capable gather algorithms: "
                    "linear, chain, binomial)") != 0) {
        fail_msg("reorder message: %s", msg);
    }
    acct_alg_reorder_msg(acct_alg_find(ACCT_COLL_allgather, "ring"), msg, sizeof msg);
    if (strcmp(msg, "allgather ring has no SACK reordering (reorder-capable allgather algorithms: "
                    "none)") != 0) {
        fail_msg("reorder message: %s", msg);
    }
    acct_alg_reorder_msg(acct_alg_find(ACCT_COLL_scatter, "native"), msg, 40); /* truncated */
    if (strlen(msg) != 39) {
        fail_msg("reorder message truncation: %s", msg);
    }
}

/* Every fallback names another, non-native algorithm of its collective. */
static void test_fallbacks(void **state)
{
    (void)state;
    for (const struct acct_alg *a = acct_algs; a->name; a++) {
        if ((a->flags & ACCT_ALG_NATIVE) || a->fallback == NULL)
            continue;
        const struct acct_alg *f = acct_alg_find(a->coll, a->fallback);
        if (f == NULL || f == a || (f->flags & ACCT_ALG_NATIVE))
            fail_msg("%s/%s: fallback \"%s\" is not another algorithm of %s",
                     acct_coll_name(a->coll), a->name, a->fallback, acct_coll_name(a->coll));
    }
}

/* One algorithm's sweep (the state is its registry row). */
static void test_sweep(void **state)
{
    const struct acct_alg *a = *state;
    long ran = 0;
    int f = sweep(a, &ran);
    printf("%-7s %s/%s: %ld cases\n", f ? "FAIL" : "ok", acct_coll_name(a->coll), a->name, ran);
    if (f)
        fail_msg("%s/%s: %d cases failed (the first five above)", acct_coll_name(a->coll), a->name,
                 f);
}

/* "COLL ALG segmented|plain FALLBACKS reorder|- nodes|-" per non-native
 * algorithm (tests/mpi/CMakeLists.txt reads it). */
static void list(void)
{
    for (const struct acct_alg *a = acct_algs; a->name; a++) {
        if (a->flags & ACCT_ALG_NATIVE)
            continue;
        printf("%s %s %s ", acct_coll_name(a->coll), a->name,
               a->flags & ACCT_ALG_SEGMENTED ? "segmented" : "plain");
        const struct acct_alg *f = a;
        int n = 0;
        while (f->fallback != NULL && n < acct_alg_count() &&
               (f = acct_alg_find(a->coll, f->fallback)) != NULL)
            printf("%s%s", n++ ? "," : "", f->name);
        /* 7th column: has the collective a non-blocking entry point that
         * ACCT runs (acct/mpi_wrap.h, ACCT_WRAPPED_NONBLOCKING: every
         * collective, the v-collectives included, since issue 22); 8th:
         * does the runtime broadcast the root's counts first
         * (ACCT_ALG_ALL_COUNTS: a non-blocking call of it has two stages) */
        printf("%s %s %s %s %s\n", n ? "" : "-",
               acct_alg_reorderable(a, NULL, NULL) ? "reorder" : "-",
               a->flags & ACCT_ALG_NODES ? "nodes" : "-", "nb",
               a->flags & ACCT_ALG_ALL_COUNTS ? "counts" : "-");
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        list();
        return 0;
    }
    size_t n = 2;
    struct CMUnitTest *tests = calloc((size_t)acct_alg_count() + n, sizeof *tests);
    char (*names)[96] = calloc((size_t)acct_alg_count(), sizeof *names);
    if (tests == NULL || names == NULL)
        return 2;
    tests[0] = (struct CMUnitTest)cmocka_unit_test(test_fallbacks);
    tests[1] = (struct CMUnitTest)cmocka_unit_test(test_reorder);
    for (const struct acct_alg *a = acct_algs; a->name; a++) {
        if (a->flags & ACCT_ALG_NATIVE)
            continue;
        if (argc >= 2 && strcmp(argv[1], acct_coll_name(a->coll)) != 0)
            continue;
        if (argc >= 3 && strcmp(argv[2], a->name) != 0)
            continue;
        char *name = names[n - 2];
        snprintf(name, sizeof *names, "%s/%s", acct_coll_name(a->coll), a->name);
        tests[n++] = (struct CMUnitTest)cmocka_unit_test_prestate(test_sweep, (void *)a);
        tests[n - 1].name = name;
    }
    if (n == 2) {
        fprintf(stderr, "test_algs: no registered algorithm matches\n");
        return 2;
    }
    int rc = _cmocka_run_group_tests("test_algs", tests, n, NULL, NULL);
    free(names);
    free(tests);
    return rc ? 1 : 0;
}
