/* Allgather + local reduce allreduce: every rank gathers all P inputs with
 * Bruck's allgather (ceil(log2 P) steps, any P) and reduces them locally in
 * rank order, so every rank computes the same x0 op x1 op ... op x_{P-1}:
 * non-commutative safe, and the fewest message rounds of all; for tiny
 * messages only (P m bytes of scratch, (P - 1) m reduced per rank).
 *
 * Bruck: slot j of the scratch holds x_{(r + j) mod P}. At distance
 * d = 1, 2, 4, ... rank r sends its first min(d, P - d) slots to r - d and
 * receives as many into slot d from r + d. The final rotation Bruck needs
 * is unnecessary: the reduction reads the slots where they are.
 *
 *   P = 5, rank 0:  d=1  [x0 x1]   d=2  [x0 x1 x2 x3]   d=4  [x0 x1 x2 x3 x4]
 *
 * Cost (pLogP, ../cost.h): acct_allreduce_allgather_reduce_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_allreduce_allgather_reduce(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const uint64_t n = c->count;
    const enum acct_buf in = acct_allreduce_input(c);

    if (n == 0)
        return 0;
    if (p == 1) {
        if (!c->in_place)
            acct_sched_copy(s, ACCT_BUF_SEND, 0, n, ACCT_BUF_RECV, 0, n);
        return 0;
    }
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, (uint64_t)p * n);
    for (int d = 1; d < p; d <<= 1) {
        const uint64_t cnt = (uint64_t)(d < p - d ? d : p - d);
        const int to = (r - d + p) % p, from = (r + d) % p;
        if (d == 1) /* our own block straight from the input */
            acct_sched_send(s, to, in, 0, n);
        else
            acct_sched_send(s, to, ACCT_BUF_TMP0, 0, cnt * n);
        acct_sched_recv(s, from, ACCT_BUF_TMP0, (uint64_t)d * n, cnt * n);
        if (d == 1)
            acct_sched_copy(s, in, 0, n, ACCT_BUF_TMP0, 0, n);
        acct_sched_round(s);
    }
    /* RECV = x_i op RECV for i = P-2 .. 0, starting from x_{P-1}. */
    const uint64_t last = (uint64_t)((p - 1 - r + p) % p) * n;
    if (!(c->in_place && r == p - 1))
        acct_sched_copy(s, ACCT_BUF_TMP0, last, n, ACCT_BUF_RECV, 0, n);
    for (int i = p - 2; i >= 0; i--)
        acct_sched_reduce(s, ACCT_BUF_TMP0, (uint64_t)((i - r + p) % p) * n, ACCT_BUF_RECV, 0, n);
    return 0;
}

/* Bruck allgather of the m-byte inputs, then (P - 1) gamma m. */
double acct_allreduce_allgather_reduce_cost(const struct acct_cost *c)
{
    return acct_allgather_bruck_cost(c) + (c->p - 1) * c->gamma_us_per_byte * (double)c->m;
}
