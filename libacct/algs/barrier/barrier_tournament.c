/* Tournament barrier (Hensgen, Finkel & Manber; Open MPI's "tree"): in
 * round k the statically chosen winner r (r mod 2^(k+1) == 0) waits for
 * the loser r + 2^k, which then waits to be woken; rank 0, the champion,
 * knows everyone has arrived and wakes its losers, who wake theirs, down
 * the same (binomial) tree. A winner posts the receives from all its
 * losers at once and wakes them all at once, largest subtree first.
 * Cost (pLogP, ../cost.h): acct_barrier_tournament_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

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

/* Binomial gather then binomial bcast of 0 bytes: 2 ceil(log2 P)(g(0) + L). */
double acct_barrier_tournament_cost(const struct acct_cost *c)
{
    if (cost_pow2(c->p))
        return 2.0 * cost_clog2(c->p) * (cost_g(c, 0) + cost_L(c));
    /* other P: the arrival up the binomial tree, then the wake-up down it */
    double *u = calloc((size_t)c->p, sizeof *u), t = NAN;
    if (u != NULL && !isnan(acct_cost_binomial_up(c, 0, u)))
        t = acct_cost_binomial_down(c, 0, u);
    free(u);
    return t;
}
