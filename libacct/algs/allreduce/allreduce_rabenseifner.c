/* Rabenseifner's allreduce (MPICH's MPIR_Allreduce_intra_reduce_scatter_allgather,
 * Open MPI's ompi_coll_base_allreduce_intra_redscat_allgather).
 *
 * After the non-power-of-two pre-step (allreduce_common.c) the p2 ranks
 * run a reduce-scatter by recursive halving: at distance 1, 2, 4, ... each
 * keeps one half of its current range of the p2 blocks (the lower half if
 * its newrank is the lower), sends the other half to its partner and
 * combines the half it receives. After log2(p2) steps each holds one block
 * fully reduced. A recursive-doubling allgather retraces the steps in
 * reverse, exchanging the finished ranges; the post-step hands the result
 * to the ranks that sat out.
 *
 *   p2 = 4, blocks 0..3     keep after mask 1    after mask 2
 *   newrank 0               0 1                  0
 *   newrank 1               2 3                  2
 *   newrank 2               0 1                  1
 *   newrank 3               2 3                  3
 *
 * Each combination joins two adjacent aligned newrank groups in order
 * ((lower) op (higher), the accumulator following the higher operand's
 * buffer), so non-commutative operations are safe; a block that ends in
 * the scratch is copied into RECV once. Blocks of count < p2 are empty and
 * their messages skipped.
 * Cost (pLogP, ../cost.h): acct_allreduce_rabenseifner_cost at the end of this file.
 * Best for large m with any operation. */
#include "../algs.h"
#include "../cost.h"

#define RS_MAX_STEPS 32

/* Elements of blocks [b0, b1) of p2 blocks. */
static void blocks(const struct acct_call *c, int p2, int b0, int b1, uint64_t *off,
                   uint64_t *len)
{
    uint64_t o1, l1;
    acct_allreduce_split(c->count, (uint64_t)p2, (uint64_t)b0, off, len);
    if (b1 <= b0) {
        *len = 0;
        return;
    }
    acct_allreduce_split(c->count, (uint64_t)p2, (uint64_t)(b1 - 1), &o1, &l1);
    *len = o1 + l1 - *off;
}

int acct_allreduce_rabenseifner(const struct acct_call *c, struct acct_sched *s)
{
    const int p2 = acct_allreduce_pof2_size(c->size);
    int keep_lo[RS_MAX_STEPS], keep_hi[RS_MAX_STEPS], give_lo[RS_MAX_STEPS],
        give_hi[RS_MAX_STEPS], peer[RS_MAX_STEPS];
    int nsteps = 0, lo = 0, hi = p2;
    uint64_t off, len;
    enum acct_buf acc;

    if (c->count == 0)
        return 0;
    if (c->size == 1) {
        if (!c->in_place)
            acct_sched_copy(s, ACCT_BUF_SEND, 0, c->count, ACCT_BUF_RECV, 0, c->count);
        return 0;
    }
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, c->count);
    const int newrank = acct_allreduce_pof2_pre(c, s, &acc);
    if (newrank >= 0) {
        /* Reduce-scatter: recursive halving, distance doubling. */
        for (int mask = 1; mask < p2 && nsteps < RS_MAX_STEPS; mask <<= 1, nsteps++) {
            const int pnew = newrank ^ mask, half = (hi - lo) / 2;
            const bool lower = pnew < newrank;
            peer[nsteps] = acct_allreduce_pof2_rank(c, pnew);
            keep_lo[nsteps] = lower ? lo + half : lo;
            keep_hi[nsteps] = lower ? hi : lo + half;
            give_lo[nsteps] = lower ? lo : lo + half;
            give_hi[nsteps] = lower ? lo + half : hi;
            const enum acct_buf got = acct_allreduce_recv_buf(c, acc, lower);
            blocks(c, p2, give_lo[nsteps], give_hi[nsteps], &off, &len);
            if (len > 0)
                acct_sched_send(s, peer[nsteps], acc, off, len);
            blocks(c, p2, keep_lo[nsteps], keep_hi[nsteps], &off, &len);
            if (len > 0)
                acct_sched_recv(s, peer[nsteps], got, off, len);
            acct_allreduce_combine(c, s, &acc, got, lower, off, len);
            acct_sched_round(s);
            lo = keep_lo[nsteps];
            hi = keep_hi[nsteps];
        }
        blocks(c, p2, lo, hi, &off, &len);
        if (acc != ACCT_BUF_RECV)
            acct_sched_copy(s, acc, off, len, ACCT_BUF_RECV, off, len);
        /* Allgather: recursive doubling, retracing the halving steps. */
        for (int i = nsteps - 1; i >= 0; i--) {
            blocks(c, p2, keep_lo[i], keep_hi[i], &off, &len);
            if (len > 0)
                acct_sched_send(s, peer[i], ACCT_BUF_RECV, off, len);
            blocks(c, p2, give_lo[i], give_hi[i], &off, &len);
            if (len > 0)
                acct_sched_recv(s, peer[i], ACCT_BUF_RECV, off, len);
            acct_sched_round(s);
        }
    }
    acct_allreduce_pof2_post(c, s, ACCT_BUF_RECV);
    return 0;
}

/* Reduce-scatter by halving, allgather by doubling (P = 2^k):
 *   2 sum_{j=1}^{k} (g(m/2^j) + L) + sum_{j=1}^{k} gamma m/2^j. */
double acct_allreduce_rabenseifner_cost(const struct acct_cost *c)
{
    int p2 = 1 << cost_ilog2(c->p);
    if (c->m % (uint64_t)p2 != 0)
        return NAN;
    double t = acct_allreduce_prepost_cost(c);
    for (int d = 2; d <= p2; d *= 2)
        t += 2 * (cost_g(c, c->m / (uint64_t)d) + cost_L(c)) +
             c->gamma_us_per_byte * (double)(c->m / (uint64_t)d);
    return t;
}
