/* Ring allreduce (Open MPI's ompi_coll_base_allreduce_intra_ring) and the
 * mechanism behind segmented_ring (ompi_coll_base_allreduce_intra_ring_segmented).
 *
 * The count elements are cut into P blocks (the first count % P one element
 * longer). Reduce-scatter: in step j = 0 .. P-2 rank r sends the partial
 * result of block r - j to its right neighbour and receives the partial of
 * block r - j - 1 from its left one, adding its own contribution; after
 * P - 1 steps it holds block r + 1 fully reduced. Allgather: P - 1 more
 * steps pass the finished blocks around the same ring. One message is in
 * flight per direction and step.
 *
 *   P = 3, blocks A B C      step 0           step 1            allgather ...
 *   rank 0 sends A           0:A -> 1         0: C(2,0) -> 1    0 holds B(0,1,2)
 *   rank 1 sends B           1:B -> 2         1: A(0,1) -> 2    1 holds C
 *   rank 2 sends C           2:C -> 0         2: B(1,2) -> 0    2 holds A
 *
 * segmented_ring (nphases > 1) cuts every block into nphases pieces and
 * runs the reduce-scatter ring once per piece, then one allgather of whole
 * blocks, as Open MPI does; the first step of a pass shares a round with the
 * last step of the previous pass (no data dependency between them).
 * The partial of a block is received straight into RECV (MPI_IN_PLACE: into
 * a one-piece scratch, two when passes overlap) and reduced there, so
 * nothing is copied. Blocks of count < P are empty: their messages are
 * skipped on both sides. The operation must be commutative.
 * Cost (pLogP, ../cost.h): acct_allreduce_ring_cost at the end of this file.
 * Best for large m: bandwidth-optimal, but latency grows linearly in P. */
#include "../algs.h"
#include "../cost.h"

struct ring {
    const struct acct_call *c;
    struct acct_sched *s;
    int right, left;
    uint64_t nphases;
    enum acct_buf in;
    bool overlap;            /* a pass's first step joins the previous pass's last */
    uint64_t slot_len, step; /* MPI_IN_PLACE scratch: slots alternate when overlapping */
};

static int mod(int a, int p)
{
    return ((a % p) + p) % p;
}

/* Elements of piece ph of block b. */
static void piece(const struct ring *g, int b, uint64_t ph, uint64_t *off, uint64_t *len)
{
    uint64_t boff, blen, poff;
    acct_allreduce_split(g->c->count, (uint64_t)g->c->size, (uint64_t)b, &boff, &blen);
    acct_allreduce_split(blen, g->nphases, ph, &poff, len);
    *off = boff + poff;
}

/* Communication of reduce-scatter step j of pass ph; returns where the
 * received partial went (for reduce_step). */
static struct acct_ref comm_step(struct ring *g, uint64_t ph, int j)
{
    const int r = g->c->rank, p = g->c->size;
    uint64_t off, len;
    struct acct_ref got;

    piece(g, mod(r - j, p), ph, &off, &len);
    if (len > 0) /* step 0 sends our own contribution, later ones the partial */
        acct_sched_send(g->s, g->right, j == 0 ? g->in : ACCT_BUF_RECV, off, len);
    piece(g, mod(r - j - 1, p), ph, &off, &len);
    got.buf = ACCT_BUF_RECV;
    got.off = off;
    got.count = len;
    if (g->c->in_place) {
        got.buf = ACCT_BUF_TMP0;
        got.off = g->overlap ? (g->step++ % 2) * g->slot_len : 0;
    }
    if (len > 0)
        acct_sched_recv(g->s, g->left, (enum acct_buf)got.buf, got.off, len);
    return got;
}

/* RECV[block piece] = received partial (op) our contribution. */
static void reduce_step(struct ring *g, uint64_t ph, int j, struct acct_ref got)
{
    uint64_t off, len;
    piece(g, mod(g->c->rank - j - 1, g->c->size), ph, &off, &len);
    if (g->c->in_place) /* our contribution is in RECV already */
        acct_sched_reduce(g->s, (enum acct_buf)got.buf, got.off, ACCT_BUF_RECV, off, len);
    else /* the partial arrived in RECV; commutative: order is free */
        acct_sched_reduce(g->s, ACCT_BUF_SEND, off, ACCT_BUF_RECV, off, len);
}

/* The steps i of a ring that move something when only blocks 0 .. nb - 1
 * hold elements and step i moves blocks end - i - 1 and end - i (mod p):
 * the cyclic run (end - nb .. end) mod p, as up to two increasing ranges
 * lo[x] .. hi[x] (x = 0, 1; empty when lo > hi). */
static void busy_steps(int p, int end, uint64_t nb, int lo[2], int hi[2])
{
    int a = mod((int)(((int64_t)end - (int64_t)nb) % p), p), b = mod(end, p);
    if (a <= b) {
        lo[0] = a, hi[0] = b, lo[1] = 1, hi[1] = 0;
    } else {
        lo[0] = 0, hi[0] = b, lo[1] = a, hi[1] = p - 1;
    }
}

/* Allgather step k of whole blocks: send block r + 1 - k to the right,
 * receive block r - k from the left (empty blocks move nothing). */
static void allgather_step(const struct ring *g, int k)
{
    const int p = g->c->size, r = g->c->rank;
    uint64_t off, len;
    acct_allreduce_split(g->c->count, (uint64_t)p, (uint64_t)mod(r + 1 - k, p), &off, &len);
    if (len > 0)
        acct_sched_send(g->s, g->right, ACCT_BUF_RECV, off, len);
    acct_allreduce_split(g->c->count, (uint64_t)p, (uint64_t)mod(r - k, p), &off, &len);
    if (len > 0)
        acct_sched_recv(g->s, g->left, ACCT_BUF_RECV, off, len);
    acct_sched_round(g->s);
}

int acct_allreduce_ring_phases(const struct acct_call *c, struct acct_sched *s, uint64_t nphases)
{
    const int p = c->size, r = c->rank;
    struct ring g = {.c = c, .s = s, .right = mod(r + 1, p), .left = mod(r - 1, p),
                     .nphases = nphases ? nphases : 1, .in = acct_allreduce_input(c)};
    uint64_t off;

    if (!c->commutative)
        return -1;
    if (c->count == 0)
        return 0;
    if (p == 1) {
        if (!c->in_place)
            acct_sched_copy(s, ACCT_BUF_SEND, 0, c->count, ACCT_BUF_RECV, 0, c->count);
        return 0;
    }
    /* Passes overlap (two receives per round) only with more than one
     * step per pass. */
    g.overlap = g.nphases > 1 && p > 2;
    if (c->in_place) {
        piece(&g, 0, 0, &off, &g.slot_len); /* block 0, piece 0 is the longest */
        acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, (g.overlap ? 2 : 1) * g.slot_len);
    }
    /* Fewer elements than ranks, one pass: only blocks 0 .. count - 1 hold
     * any, and a step whose two blocks are empty adds nothing (no message,
     * no reduction; its round is elided by acct_sched_round), so only the
     * steps that move a block are walked: the same schedule in O(count)
     * instead of O(P) per rank (a 1 KiB allreduce on 64k ranks). */
    if (g.nphases == 1 && c->count + 1 < (uint64_t)p) {
        int lo[2], hi[2];
        busy_steps(p, r, c->count, lo, hi);
        for (int x = 0; x < 2; x++)
            for (int j = lo[x]; j <= hi[x] && j < p - 1; j++) {
                struct acct_ref got = comm_step(&g, 0, j);
                reduce_step(&g, 0, j, got);
                acct_sched_round(s);
            }
        busy_steps(p, r + 1, c->count, lo, hi);
        for (int x = 0; x < 2; x++)
            for (int k = lo[x]; k <= hi[x] && k < p - 1; k++)
                allgather_step(&g, k);
        return 0;
    }
    /* Reduce-scatter passes. */
    for (uint64_t ph = 0; ph < g.nphases; ph++) {
        for (int j = (g.overlap && ph > 0) ? 1 : 0; j < p - 1; j++) {
            struct acct_ref got = comm_step(&g, ph, j), next = got;
            const bool join = g.overlap && j == p - 2 && ph + 1 < g.nphases;
            if (join)
                next = comm_step(&g, ph + 1, 0);
            reduce_step(&g, ph, j, got);
            if (join)
                reduce_step(&g, ph + 1, 0, next);
            acct_sched_round(s);
        }
    }
    /* Allgather of whole blocks: step k sends block r + 1 - k, receives r - k. */
    for (int k = 0; k < p - 1; k++)
        allgather_step(&g, k);
    return 0;
}

int acct_allreduce_ring(const struct acct_call *c, struct acct_sched *s)
{
    return acct_allreduce_ring_phases(c, s, 1);
}

/* 2 (P - 1)(g(m/P) + L) + (P - 1) gamma m/P (m divisible by P). */
double acct_allreduce_ring_cost(const struct acct_cost *c)
{
    if (c->m % (uint64_t)c->p != 0)
        return NAN;
    uint64_t b = c->m / (uint64_t)c->p;
    return 2.0 * (c->p - 1) * (cost_g(c, b) + cost_L(c)) +
           (c->p - 1) * c->gamma_us_per_byte * (double)b;
}
