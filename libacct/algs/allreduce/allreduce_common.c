/* Mechanisms shared by the allreduce builders: the input buffer, Open MPI's
 * balanced block split, the order-preserving combination of two partial
 * results, and the classic non-power-of-two pre/post step (MPICH's
 * MPIR_Allreduce_intra_recursive_doubling and reduce_scatter_allgather, Open
 * MPI's ompi_coll_base_allreduce_intra_recursivedoubling and
 * redscat_allgather all use the same one).
 *
 * Pre/post step, size 6 (p2 = 4, rem = 2):
 *
 *   rank     0    1    2    3    4    5
 *   pre      x0 -> 1   x2 -> 3                 (1 holds x0 op x1, 3 holds x2 op x3)
 *   newrank  -    0    -    1    2    3        (monotonic: rank order is kept)
 *   ...      power-of-two algorithm over the newranks ...
 *   post     0 <- 1    2 <- 3                  (the full result goes back)
 *
 * Cost (pLogP, ../cost.h): acct_allreduce_prepost_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

enum acct_buf acct_allreduce_input(const struct acct_call *c)
{
    return c->in_place ? ACCT_BUF_RECV : ACCT_BUF_SEND;
}

void acct_allreduce_split(uint64_t n, uint64_t parts, uint64_t i, uint64_t *off, uint64_t *len)
{
    uint64_t q = parts ? n / parts : 0, r = parts ? n % parts : 0;
    *len = q + (i < r ? 1 : 0);
    *off = i * q + (i < r ? i : r);
}

enum acct_buf acct_allreduce_recv_buf(const struct acct_call *c, enum acct_buf acc,
                                      bool got_lower)
{
    if (acc == ACCT_BUF_RECV)
        return ACCT_BUF_TMP0;
    if (acc == ACCT_BUF_TMP0)
        return ACCT_BUF_RECV;
    /* acc is the read-only SEND: the non-commutative "lower op mine" case
     * copies SEND into RECV, so the partner's data goes to TMP0. */
    return got_lower && !c->commutative ? ACCT_BUF_TMP0 : ACCT_BUF_RECV;
}

void acct_allreduce_combine(const struct acct_call *c, struct acct_sched *s, enum acct_buf *acc,
                            enum acct_buf got, bool got_lower, uint64_t off, uint64_t n)
{
    if (*acc != ACCT_BUF_SEND && (got_lower || c->commutative)) {
        acct_sched_reduce(s, got, off, *acc, off, n); /* acc = got op acc */
    } else if (*acc == ACCT_BUF_SEND && (!got_lower || c->commutative)) {
        acct_sched_reduce(s, ACCT_BUF_SEND, off, got, off, n); /* got = acc op got */
        *acc = got;
    } else if (!got_lower) { /* non-commutative, writable acc, partner above */
        acct_sched_reduce(s, *acc, off, got, off, n);
        *acc = got;
    } else { /* non-commutative, acc in SEND, partner below: got is TMP0 */
        acct_sched_copy(s, ACCT_BUF_SEND, off, n, ACCT_BUF_RECV, off, n);
        acct_sched_reduce(s, got, off, ACCT_BUF_RECV, off, n);
        *acc = ACCT_BUF_RECV;
    }
}

int acct_allreduce_pof2_size(int size)
{
    int p2 = 1;
    while (p2 <= size / 2)
        p2 <<= 1;
    return p2;
}

int acct_allreduce_pof2_rank(const struct acct_call *c, int newrank)
{
    int rem = c->size - acct_allreduce_pof2_size(c->size);
    return newrank < rem ? 2 * newrank + 1 : newrank + rem;
}

int acct_allreduce_pof2_pre(const struct acct_call *c, struct acct_sched *s, enum acct_buf *acc)
{
    const int rem = c->size - acct_allreduce_pof2_size(c->size), r = c->rank;
    *acc = acct_allreduce_input(c);
    if (r >= 2 * rem)
        return r - rem;
    if (r % 2 == 0) {
        acct_sched_send(s, r + 1, *acc, 0, c->count);
        acct_sched_round(s); /* the result comes back into RECV later */
        return -1;
    }
    enum acct_buf got = acct_allreduce_recv_buf(c, *acc, true);
    acct_sched_recv(s, r - 1, got, 0, c->count);
    acct_allreduce_combine(c, s, acc, got, true, 0, c->count);
    return r / 2;
}

void acct_allreduce_pof2_post(const struct acct_call *c, struct acct_sched *s, enum acct_buf acc)
{
    const int rem = c->size - acct_allreduce_pof2_size(c->size), r = c->rank;
    acct_sched_round(s); /* the result must be complete before it leaves */
    if (r < 2 * rem && r % 2 == 0) {
        acct_sched_recv(s, r + 1, ACCT_BUF_RECV, 0, c->count);
        return;
    }
    if (r < 2 * rem) /* send first: the waiting rank is on the critical path */
        acct_sched_send(s, r - 1, acc, 0, c->count);
    if (acc != ACCT_BUF_RECV)
        acct_sched_copy(s, acc, 0, c->count, ACCT_BUF_RECV, 0, c->count);
}

/* Pre/post step of the non-power-of-two allreduces (allreduce_common.c):
 * 2 (g(m) + L) + gamma m; 0 for P = 2^k. */
double acct_allreduce_prepost_cost(const struct acct_cost *c)
{
    return cost_pow2(c->p) ? 0 : 2 * (cost_g(c, c->m) + cost_L(c)) + cost_gamma(c, c->m);
}

/* The exchanges of recursive doubling in the simulator's pLogP semantics
 * (acct/model.h): in exchange mask (1, 2, 4, ... < p2) rank x starts at
 * R(x), sends x bytes to y = x ^ mask at t(x) = max(nic(x), R(x)) (nic(x) =
 * t(x) + g after it), receives y's x bytes at t(y) + g + L, done at
 * max(arrival, R(x) + or, rx(x) + g) (rx: its previous receive), and ends
 * at max(R(x), t(x) + os, done) + add. Per rank, O(p2 log p2): the ranks
 * that entered late (below rem) and the others mix in every exchange, so
 * their times differ from rank to rank. */
int acct_rd_exchanges_cost(const struct acct_cost *c, int p2, int rem, uint64_t x, double late_start,
                           double late_rx, double add, double *end, double *nic)
{
    double *rx = malloc((size_t)p2 * sizeof *rx);
    const double g = cost_g(c, x), L = cost_L(c), os = cost_os(c, x), orx = cost_or(c, x);
    if (rx == NULL)
        return -1;
    for (int i = 0; i < p2; i++) {
        end[i] = i < rem ? late_start : 0;
        rx[i] = i < rem ? late_rx : 0;
        nic[i] = 0;
    }
    for (int mask = 1; mask < p2; mask <<= 1)
        for (int i = 0; i < p2; i++) {
            if (i & mask)
                continue;
            const int j = i | mask; /* the pair, both sides from the old times */
            const double ti = nic[i] > end[i] ? nic[i] : end[i];
            const double tj = nic[j] > end[j] ? nic[j] : end[j];
            for (int side = 0; side < 2; side++) {
                const int a = side ? j : i;
                const double t = side ? tj : ti, ty = side ? ti : tj, r = end[a];
                double done = ty + g + L;
                done = r + orx > done ? r + orx : done;
                done = rx[a] + g > done ? rx[a] + g : done;
                rx[a] = done;
                nic[a] = t + g;
                double e = t + os > r ? t + os : r;
                end[a] = (done > e ? done : e) + add;
            }
        }
    free(rx);
    return 0;
}
