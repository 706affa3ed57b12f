/* Segmented ring allreduce (Open MPI's
 * ompi_coll_base_allreduce_intra_ring_segmented): the ring of
 * allreduce_ring.c with every block cut into pieces of about seg elements,
 * one reduce-scatter pass of the ring per piece, then one ring allgather of
 * whole blocks. Smaller messages keep the scratch and the reduction in
 * cache and start the pipeline sooner. The number of passes follows Open
 * MPI: count / (P seg), one more when the remainder is at least P and more
 * than half of P seg; below P seg elements (or seg 0) it is the plain ring.
 * Commutative operations only.
 * Cost (LogGP, m bytes, s passes, gamma per reduced byte; [004] Table 4
 * point-to-point terms, [001] Table 1 segmented models):
 *   T = (s (P - 2) + P)(L + 2o) + 2 (P-1)/P m G + (P-1)/P m gamma
 * (a pass's first step shares a round with the previous pass's last). */
#include "../algs.h"

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
