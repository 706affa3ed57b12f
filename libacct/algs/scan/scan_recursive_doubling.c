/* Recursive-doubling scan (Hillis & Steele 1986; MPICH's
 * MPIR_Scan_intra_recursive_doubling, Open MPI's
 * ompi_coll_base_scan_intra_recursivedoubling), any number of ranks.
 *
 * Each rank keeps a partial result (the combination of its aligned block
 * of 2^k ranks) and its result (the ranks of that block up to itself). In
 * step k it exchanges the partial with rank ^ 2^k (when that rank exists):
 *
 *     rank       0     1     2     3
 *     step 0     0 <-> 1     2 <-> 3     partial x0..1   x0..1   x2..3   x2..3
 *     step 1     0 <-------> 2           partial x0..3 everywhere
 *                      1 <-------> 3     result  x0  x0..1  x0..2  x0..3
 *
 * The higher partner puts what it received in front of both (in op
 * partial, in op result); the lower one puts its partial in front of what
 * it received (partial op in), which becomes its partial: the buffers
 * swap roles instead of a copy. Operands always meet in rank order, for
 * commutative operations too, so every rank's result is the same
 * expression whatever the operation.
 * Buffers: the partial and the incoming partial alternate between TMP0
 * and TMP1 (count elements each); the result is built in RECV.
 *
 * Cost (pLogP, ../cost.h): acct_scan_recursive_doubling_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_scan_recursive_doubling(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const uint64_t n = c->count;
    enum acct_buf part = ACCT_BUF_TMP0, in = ACCT_BUF_TMP1;

    if (n == 0)
        return 0;
    if (!c->in_place)
        acct_sched_copy(s, ACCT_BUF_SEND, 0, n, ACCT_BUF_RECV, 0, n);
    if (p == 1)
        return 0;
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, n);
    acct_sched_tmp(s, ACCT_BUF_TMP1, ACCT_BUF_RECV, n);
    acct_sched_copy(s, c->in_place ? ACCT_BUF_RECV : ACCT_BUF_SEND, 0, n, part, 0, n);
    for (int mask = 1; mask < p; mask <<= 1) {
        const int peer = r ^ mask;
        if (peer >= p)
            continue;
        acct_sched_send(s, peer, part, 0, n);
        acct_sched_recv(s, peer, in, 0, n);
        if (r > peer) {
            acct_sched_reduce(s, in, 0, part, 0, n);
            acct_sched_reduce(s, in, 0, ACCT_BUF_RECV, 0, n);
        } else {
            enum acct_buf t = part;
            acct_sched_reduce(s, part, 0, in, 0, n);
            part = in;
            in = t;
        }
    }
    return 0;
}

/* The rounds the builders emit (scan and, with exclusive, exscan), per
 * rank in the simulator's semantics: round 0 copies the input (scan: into
 * the result and the partial, 2 delta m; exscan: the partial, delta m);
 * in step mask a rank whose partner y = r ^ mask exists sends at
 * t = max(nic, R), receives y's partial at t(y) + g(m) + L, done at
 * max(arrival, R + or(m), previous receive + g(m)), and ends at
 * max(R, t + os(m), done) plus its local work: the lower partner one
 * reduction, the upper two (exscan: a copy instead of the second the first
 * time). A rank without a partner skips the step, so for P not a power of
 * two the ranks' paths differ: O(P log P). */
struct rd_rank {
    double end, nic, rx; /* round end; link free to send; last receive done */
};

/* One rank's side of an exchange: its send at t, the partner's at ty. */
static void rd_side(struct rd_rank *x, double t, double ty, double g, double L, double os,
                    double orx, double local)
{
    const double r = x->end;
    double done = ty + g + L;
    done = r + orx > done ? r + orx : done;
    done = x->rx + g > done ? x->rx + g : done;
    x->rx = done;
    x->nic = t + g;
    double e = t + os > r ? t + os : r;
    x->end = (done > e ? done : e) + local;
}

double acct_scan_rd_rounds_cost(const struct acct_cost *c, bool exclusive)
{
    const int p = c->p;
    const uint64_t m = c->m;
    const double g = cost_g(c, m), L = cost_L(c), os = cost_os(c, m), orx = cost_or(c, m);
    const double gm = cost_gamma(c, m), dm = cost_delta(c, m);
    struct rd_rank *k = malloc((size_t)p * sizeof *k);
    double t = NAN;
    if (k == NULL)
        return NAN;
    for (int r = 0; r < p; r++)
        k[r] = (struct rd_rank){(exclusive ? 1 : 2) * dm, 0, 0};
    for (int mask = 1; mask < p; mask <<= 1)
        for (int r = 0; r < p; r++) {
            const int y = r | mask; /* pairs (r, y), r the lower; y >= p: r skips */
            if ((r & mask) != 0 || y >= p)
                continue;
            const double tr = k[r].nic > k[r].end ? k[r].nic : k[r].end;
            const double ty = k[y].nic > k[y].end ? k[y].nic : k[y].end;
            /* the upper partner had a result before iff it was upper before */
            const double up = gm + (exclusive && (y & (mask - 1)) == 0 ? dm : gm);
            rd_side(&k[r], tr, ty, g, L, os, orx, gm);
            rd_side(&k[y], ty, tr, g, L, os, orx, up);
        }
    t = 0;
    for (int r = 0; r < p; r++)
        t = k[r].end > t ? k[r].end : t;
    free(k);
    return t;
}

/* P = 2^k: ceil(log2 P) exchanges of m bytes, each followed at the highest
 * rank (always the upper partner) by two reductions; before them the
 * copies of the input into the result and the partial:
 *   2 delta m + ceil(log2 P)(g(m) + L + 2 gamma m).
 * Other P: the rounds, per rank (acct_scan_rd_rounds_cost). */
double acct_scan_recursive_doubling_cost(const struct acct_cost *c)
{
    if (!cost_pow2(c->p))
        return c->p >= 1 && c->m > 0 ? acct_scan_rd_rounds_cost(c, false) : NAN;
    return 2 * cost_delta(c, c->m) +
           cost_clog2(c->p) * (cost_g(c, c->m) + cost_L(c) + 2 * cost_gamma(c, c->m));
}
