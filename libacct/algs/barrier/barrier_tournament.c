/* Tournament barrier (Hensgen, Finkel & Manber; Open MPI's "tree"): in
 * round k the statically chosen winner r (r mod 2^(k+1) == 0) waits for
 * the loser r + 2^k, which then waits to be woken; rank 0, the champion,
 * knows everyone has arrived and wakes its losers, who wake theirs, down
 * the same (binomial) tree. A winner posts the receives from all its
 * losers at once and wakes them all at once, largest subtree first.
 * Cost (LogGP): T = 2 ceil(log2 P) (L + 2o) (paper 004 Table 4 binomial
 * with m = 0, up and down: 2 ceil(log P)(L + 2o + (m - 1)G)). */
#include "../algs.h"

int acct_barrier_tournament(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    int top = 1; /* smallest power of two >= p */
    while (top < p)
        top <<= 1;
    /* up: hear from every loser r + 2^k (k below r's lowest set bit) */
    for (int jump = 1; jump < top && (r & jump) == 0; jump <<= 1)
        if (r + jump < p)
            acct_sched_recv(s, r + jump, ACCT_BUF_RECV, 0, 0);
    acct_sched_round(s);
    if (r != 0) { /* report to the winner, wait to be woken */
        int winner = r & (r - 1);
        acct_sched_send(s, winner, ACCT_BUF_RECV, 0, 0);
        acct_sched_round(s);
        acct_sched_recv(s, winner, ACCT_BUF_RECV, 0, 0);
        acct_sched_round(s);
    }
    /* down: wake the losers, largest subtree first */
    for (int jump = top >> 1; jump >= 1; jump >>= 1)
        if ((r & (2 * jump - 1)) == 0 && r + jump < p)
            acct_sched_send(s, r + jump, ACCT_BUF_RECV, 0, 0);
    return 0;
}
