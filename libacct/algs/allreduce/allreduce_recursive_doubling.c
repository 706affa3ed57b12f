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

/* P = 2^k: k (g(m) + L + gamma m). Other P, the rounds the builder emits
 * (p2 = 2^floor(log2 P), rem = P - p2): an odd rank 2x + 1 < 2 rem receives
 * its even neighbour's m bytes (sent at 0) and combines, entering the
 * exchanges as new rank x at D = max(g(m) + L, or(m)) + gamma m, while new
 * ranks x >= rem enter at 0; the k exchanges (acct_rd_exchanges_cost,
 * per rank: late and early ranks meet in every exchange); then each odd
 * rank sends the result to its even neighbour, whose receive round began
 * when its pre-step send completed (os(m)). The latest rank end. */
double acct_allreduce_recursive_doubling_cost(const struct acct_cost *c)
{
    const uint64_t m = c->m;
    const int p = c->p, p2 = acct_allreduce_pof2_size(p), rem = p - p2;
    const double g = cost_g(c, m), L = cost_L(c), os = cost_os(c, m), orx = cost_or(c, m);
    const double gm = cost_gamma(c, m);
    if (p < 2 || m == 0)
        return p >= 1 ? 0 : NAN;
    if (rem == 0)
        return cost_ilog2(p) * (g + L + gm);
    double *end = calloc((size_t)p2, sizeof *end), *nic = calloc((size_t)p2, sizeof *nic), t = NAN;
    double pre = g + L > orx ? g + L : orx;
    pre = g > pre ? g : pre;
    if (end != NULL && nic != NULL &&
        acct_rd_exchanges_cost(c, p2, rem, m, pre + gm, pre, gm, end, nic) == 0) {
        t = 0;
        for (int x = 0; x < p2; x++) {
            double e = end[x];
            if (x < rem) { /* the post-step to rank 2x */
                double s = nic[x] > end[x] ? nic[x] : end[x], done = s + g + L;
                e = s + os > e ? s + os : e;
                done = os + orx > done ? os + orx : done;
                done = g > done ? g : done;
                e = done > e ? done : e;
            }
            t = e > t ? e : t;
        }
    }
    free(end);
    free(nic);
    return t;
}
