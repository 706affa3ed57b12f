/* Node-aware allreduce in which every rank of a node carries a slice of the
 * inter-node traffic (commutative operations):
 *   1. intra-node reduce-scatter: the vector in q = (most ranks on a node)
 *      slices; slice j belongs, on a node of r ranks, to its local index
 *      j mod r; every rank sends each slice it does not own to the slice's
 *      owner, which reduces the r - 1 partials into its own (one round);
 *   2. inter-node allreduce of each slice among its owners on the N nodes
 *      (a ring, in place): q rings at once, one per slice, so the node's
 *      link is driven by all of its ranks instead of one leader;
 *   3. intra-node allgather: each owner sends its reduced slices to the
 *      node's other ranks (one round).
 * A node with fewer ranks than q gives some ranks several slices, so
 * irregular layouts work; on one node it is a direct reduce-scatter and
 * allgather. Placed on a lockstep timeline (allreduce_lockstep.c): round 0,
 * rounds 1 .. 2(N-1), round 2(N-1)+1; within a round slices in ascending
 * order on every rank. Scratch: TMP0 the r - 1 partials of each owned
 * slice, TMP1 one ring piece per owned slice.
 * Cost (pLogP, ../cost.h): acct_allreduce_hier_reduce_scatter_cost at the
 * end of this file. */
#include "../algs.h"
#include "../cost.h"

int acct_allreduce_hier_reduce_scatter(const struct acct_call *c, struct acct_sched *s)
{
    struct acct_hier h;
    if (!c->commutative || acct_hier_init(c, &h) != 0)
        return -1;
    if (c->count == 0)
        return 0;
    const struct acct_layout *l = h.l;
    const int node = h.node, idx = h.local, r = h.ppn, q = l->max_ppn, nn = h.nnodes;
    const uint32_t last = nn > 1 ? (uint32_t)(2 * (nn - 1) + 1) : 1;
    const enum acct_buf in = acct_allreduce_input(c);
    uint64_t off, len, owned = 0, nowned = 0, piece = 0;
    for (int j = idx; j < q; j += r) {
        acct_allreduce_split(c->count, (uint64_t)q, (uint64_t)j, &off, &len);
        owned += len;
        nowned++;
        uint64_t pc = (len + (uint64_t)nn - 1) / (uint64_t)nn;
        piece = pc > piece ? pc : piece;
    }
    if (r > 1)
        acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, (uint64_t)(r - 1) * owned);
    if (nn > 1)
        acct_sched_tmp(s, ACCT_BUF_TMP1, ACCT_BUF_RECV, nowned * piece);

    struct acct_lockstep t;
    acct_lockstep_init(&t);
    /* 1: reduce-scatter; the partials of owned slice jj from the node's
     * other ranks k (ascending, own index skipped) at TMP0[(k' owned + o)] */
    uint64_t o = 0;
    for (int j = 0; j < q; j++) {
        acct_allreduce_split(c->count, (uint64_t)q, (uint64_t)j, &off, &len);
        if (j % r != idx) {
            acct_lockstep_msg(&t, 0, true, acct_hier_member(&h, node, j % r), in, off, len);
            continue;
        }
        for (int k = 0, kk = 0; k < r; k++)
            if (k != idx)
                acct_lockstep_msg(&t, 0, false, acct_hier_member(&h, node, k), ACCT_BUF_TMP0,
                                  (uint64_t)kk++ * owned + o, len);
        if (in != ACCT_BUF_RECV)
            acct_lockstep_local(&t, 0, false, in, off, ACCT_BUF_RECV, off, len);
        for (int kk = 0; kk < r - 1; kk++)
            acct_lockstep_local(&t, 0, true, ACCT_BUF_TMP0, (uint64_t)kk * owned + o,
                                ACCT_BUF_RECV, off, len);
        o += len;
    }
    /* 2: one ring per owned slice among the slice's owners */
    for (int j = idx, jj = 0; nn > 1 && j < q; j += r, jj++) {
        const int left = (node + nn - 1) % nn, right = (node + 1) % nn;
        acct_allreduce_split(c->count, (uint64_t)q, (uint64_t)j, &off, &len);
        acct_lockstep_ring(&t, 1, node, nn, acct_hier_member(&h, left, j % acct_layout_ppn(l, left)),
                           acct_hier_member(&h, right, j % acct_layout_ppn(l, right)), off, len,
                           (uint64_t)jj * piece);
    }
    /* 3: allgather of the reduced slices within the node */
    for (int j = 0; j < q; j++) {
        acct_allreduce_split(c->count, (uint64_t)q, (uint64_t)j, &off, &len);
        if (j % r != idx) {
            acct_lockstep_msg(&t, last, false, acct_hier_member(&h, node, j % r), ACCT_BUF_RECV, off, len);
            continue;
        }
        for (int k = 0; k < r; k++)
            if (k != idx)
                acct_lockstep_msg(&t, last, true, acct_hier_member(&h, node, k), ACCT_BUF_RECV, off, len);
    }
    int rc = acct_lockstep_emit(&t, s);
    acct_lockstep_free(&t);
    return rc;
}

/* ppn = ceil(p / nodes) ranks per node (one without a layout), slices of
 * m / ppn bytes: (ppn - 1) g(m / ppn) + L + (ppn - 1) gamma m / ppn for the
 * reduce-scatter, a ring of one slice among the nodes (the rings of the
 * node's slices run side by side: the model has no shared link), and
 * (ppn - 1) g(m / ppn) + L for the allgather. */
double acct_allreduce_hier_reduce_scatter_cost(const struct acct_cost *c)
{
    const int nodes = c->nodes > 0 && c->nodes <= c->p ? c->nodes : c->p;
    const int ppn = (c->p + nodes - 1) / nodes;
    const uint64_t slice = (c->m + (uint64_t)ppn - 1) / (uint64_t)ppn;
    double t = 0;
    if (ppn > 1)
        t += 2 * ((ppn - 1) * cost_g(c, slice) + cost_L(c)) + (ppn - 1) * cost_gamma(c, slice);
    if (nodes > 1) {
        const uint64_t b = (slice + (uint64_t)nodes - 1) / (uint64_t)nodes;
        t += 2.0 * (nodes - 1) * (cost_g(c, b) + cost_L(c)) + (nodes - 1) * cost_gamma(c, b);
    }
    return t;
}
