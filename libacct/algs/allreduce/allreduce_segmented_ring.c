/* Segmented ring allreduce (Open MPI's
 * ompi_coll_base_allreduce_intra_ring_segmented): the ring of
 * allreduce_ring.c with every block cut into pieces of about seg elements,
 * one reduce-scatter pass of the ring per piece, then one ring allgather of
 * whole blocks. Smaller messages keep the scratch and the reduction in
 * cache and start the pipeline sooner. The number of passes follows Open
 * MPI: count / (P seg), one more when the remainder is at least P and more
 * than half of P seg; below P seg elements (or seg 0) it is the plain ring.
 * Commutative operations only.
 * Cost (pLogP, ../cost.h): acct_allreduce_segmented_ring_cost at the end of this file.
 * A pass's first step shares a round with the previous pass's last. */
#include "../algs.h"
#include "../cost.h"

int acct_allreduce_segmented_ring(const struct acct_call *c, struct acct_sched *s)
{
    const uint64_t p = (uint64_t)c->size, seg = c->seg;
    uint64_t nphases = 1;
    if (seg > 0 && seg <= c->count / p) { /* count >= P seg, without overflow */
        uint64_t rest = c->count % (p * seg);
        nphases = c->count / (p * seg);
        if (rest >= p && rest > p * seg / 2)
            nphases++;
    }
    return acct_allreduce_ring_phases(c, s, nphases);
}

/* Open MPI's passes: s = m / (P seg) reduce-scatter passes of pieces
 * x = m / (P s), each of P - 1 steps, a pass's first step sharing a round
 * with the previous pass's last (two messages a round, one gap more), then
 * the ring allgather of blocks b = m / P:
 *   P >= 4: (s (P - 2) + 1)(g(x) + L) + (s - 1) g(x) + (P - 1)(g(b) + L)
 *   P = 2:  s (g(x) + L) + g(b) + L. */
double acct_allreduce_segmented_ring_cost(const struct acct_cost *c)
{
    uint64_t p = (uint64_t)c->p, b = c->m / p;
    if (c->m % p != 0)
        return NAN;
    if (c->seg == 0 || c->m < p * c->seg)
        return acct_allreduce_ring_cost(c);
    uint64_t sp = c->m / (p * c->seg);
    if (c->m % (p * c->seg) != 0)
        return NAN;
    uint64_t x = b / sp;
    double rs = c->p == 2 ? (double)sp * (cost_g(c, x) + cost_L(c))
                          : ((double)sp * (c->p - 2) + 1) * (cost_g(c, x) + cost_L(c)) + (double)(sp - 1) * cost_g(c, x);
    return rs + (c->p - 1) * (cost_g(c, b) + cost_L(c));
}
