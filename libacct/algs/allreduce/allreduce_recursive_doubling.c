/* Recursive-doubling allreduce (MPICH's MPIR_Allreduce_intra_recursive_doubling,
 * Open MPI's ompi_coll_base_allreduce_intra_recursivedoubling).
 *
 * After the non-power-of-two pre-step (allreduce_common.c), the p2 ranks
 * exchange their whole partial result with the partner at distance 1, 2,
 * 4, ... (newrank ^ mask) and combine, so after log2(p2) steps every one
 * holds the full result; the post-step hands it to the ranks that sat out.
 *
 *   newrank   0   1   2   3
 *   mask 1    0 <-> 1   2 <-> 3      each holds x0..1 or x2..3
 *   mask 2    0 <---> 2            1 <---> 3      each holds x0..3
 *
 * The partners' ranges are adjacent and the combination is ordered
 * ((lower) op (higher), the accumulator following the higher operand's
 * buffer), so non-commutative operations are safe. Partners combine in rank
 * order even for commutative operations (as Open MPI does): both compute
 * the same operands in the same order, so every rank ends with bit-identical
 * results even for a user operation that is commutative only up to rounding.
 * At most two copies: SEND into RECV when the first partner is below, and
 * the scratch into RECV at the end.
 * Cost (pLogP, ../cost.h): acct_allreduce_recursive_doubling_cost at the end of this file.
 * Best for small m (latency-bound); moves log2(P) m bytes per rank. */
#include "../algs.h"
#include "../cost.h"

int acct_allreduce_recursive_doubling(const struct acct_call *c, struct acct_sched *s)
{
    const int p2 = acct_allreduce_pof2_size(c->size);
    enum acct_buf acc;

    if (c->count == 0)
        return 0;
    if (c->size == 1) {
        if (!c->in_place)
            acct_sched_copy(s, ACCT_BUF_SEND, 0, c->count, ACCT_BUF_RECV, 0, c->count);
        return 0;
    }
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, c->count);
    /* The pre-step's combination happens at one rank only: any order will do. */
    const int newrank = acct_allreduce_pof2_pre(c, s, &acc);
    struct acct_call ordered = *c;
    ordered.commutative = false;
    for (int mask = 1; newrank >= 0 && mask < p2; mask <<= 1) {
        const int pnew = newrank ^ mask, peer = acct_allreduce_pof2_rank(c, pnew);
        const bool lower = pnew < newrank;
        const enum acct_buf got = acct_allreduce_recv_buf(&ordered, acc, lower);
        acct_sched_send(s, peer, acc, 0, c->count);
        acct_sched_recv(s, peer, got, 0, c->count);
        acct_allreduce_combine(&ordered, s, &acc, got, lower, 0, c->count);
    }
    acct_allreduce_pof2_post(c, s, acc);
    return 0;
}

/* k (g(m) + L) + k gamma m (P = 2^k; + the pre/post step otherwise,
 * k = floor(log2 P)). */
double acct_allreduce_recursive_doubling_cost(const struct acct_cost *c)
{
    int k = cost_ilog2(c->p);
    return k * (cost_g(c, c->m) + cost_L(c) + c->gamma_us_per_byte * (double)c->m) + acct_allreduce_prepost_cost(c);
}
