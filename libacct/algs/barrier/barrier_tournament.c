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

static int by_time(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* P = 2^k: binomial gather then binomial bcast of 0 bytes,
 * 2 k (g(0) + L). Other P, the rounds the builder emits, per rank (the
 * tree's parent of r is r & (r - 1), below r; O(P)), g, os, or of 0 bytes:
 *   up (ranks from the highest): r posts its losers' receives at 0 and
 *     takes them in arrival order (loser w's report at U(w) + g + L), each
 *     done at max(arrival, or, previous + g): U(r) the last (0 for a leaf);
 *   r != 0 reports at U(r), its wake-up round starting at U(r) + os: the
 *     wake-up is done at W(r) = max(arrival, U(r) + os + or, its last
 *     receive + g);
 *   down (ranks from 0): from W(r) (rank 0: U(0)), or once its report's
 *     gap has passed, r wakes its losers largest subtree first, one gap
 *     apart, each arriving g + L after its send.
 * The latest rank end (a wake-up, or a send's completion, + os). */
double acct_barrier_tournament_cost(const struct acct_cost *c)
{
    const int p = c->p;
    if (p < 1)
        return NAN;
    if (cost_pow2(p))
        return 2.0 * cost_clog2(p) * (cost_g(c, 0) + cost_L(c));
    const double g = cost_g(c, 0), L = cost_L(c), os = cost_os(c, 0), orx = cost_or(c, 0);
    int top = 1;
    while (top < p)
        top <<= 1;
    double *up = calloc((size_t)p, sizeof *up), *last = calloc((size_t)p, sizeof *last);
    double *wake = calloc((size_t)p, sizeof *wake), t = NAN;
    if (up == NULL || last == NULL || wake == NULL)
        goto out;
    for (int r = p - 1; r >= 0; r--) {
        double a[32];
        int n = 0;
        for (int jump = 1; jump < top && (r & jump) == 0; jump <<= 1)
            if (r + jump < p)
                a[n++] = up[r + jump] + g + L;
        qsort(a, (size_t)n, sizeof *a, by_time);
        double rx = 0;
        for (int j = 0; j < n; j++) {
            double done = a[j] > orx ? a[j] : orx;
            rx = rx + g > done ? rx + g : done;
        }
        up[r] = n > 0 ? rx : 0;
        last[r] = rx;
    }
    t = 0;
    for (int r = 0; r < p; r++) {
        double start = up[0], nic = 0;
        if (r != 0) {
            const double ws = up[r] + os;
            double done = wake[r] > ws + orx ? wake[r] : ws + orx;
            done = last[r] + g > done ? last[r] + g : done;
            start = done > ws ? done : ws;
            nic = up[r] + g;
        }
        double e = start;
        for (int jump = top >> 1; jump >= 1; jump >>= 1)
            if ((r & (2 * jump - 1)) == 0 && r + jump < p) {
                const double s = nic > start ? nic : start;
                nic = s + g;
                wake[r + jump] = s + g + L;
                e = s + os > e ? s + os : e;
            }
        t = e > t ? e : t;
    }
out:
    free(up);
    free(last);
    free(wake);
    return t;
}
