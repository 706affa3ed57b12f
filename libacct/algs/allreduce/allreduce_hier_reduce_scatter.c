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
#include "../cost_nodes.h"

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

/* N nodes of q ranks (cost_nodes.h), slices of x = m / q bytes, ring
 * pieces of b = x / N, the intra-node level a and the inter-node level e.
 * Round 0 (intra): rank i sends its q - 1 foreign slices one gap apart in
 * slice order; rank k's slice reaches rank i as its (i or i - 1)-th send, so
 * rank i takes its q - 1 partials done at
 *   E0(i) = max(max(max(i, 1) g_a(x) + L_a, or_a(x)) + (q - 2) g_a(x),
 *               (q - 2) g_a(x) + os_a(x)) + delta x + (q - 1) gamma x
 * (its own slice copied from the input, the partials reduced). The q
 * rings of a node (one per slice, among its owners on the N nodes) run in
 * the same rounds: the q ranks of a node send and receive between nodes
 * at once, so a ring message's gap is g_e(b) f_out (cost_nic_out(q, q))
 * and a receive gap g_e(b) f_in (cost_nic_in(q, 1)); on two nodes left
 * and right are one rank, both ways at once: at least the duplex gap
 * (cost_duplex_g). Each of the 2 (N - 1) ring rounds takes
 * max(g' + L_e, or_e(b), g_in), plus gamma b in the first N - 1:
 *   S(i) = E0(i) + 2 (N - 1) max(...) + (N - 1) gamma b
 * Round last (intra): owner k sends its slice to the others one gap apart
 * from S(k); rank i takes them in arrival order (completion max(arrival,
 * S(i) + or_a(x), previous + g_a(x))). T = the latest rank's end, O(q^2).
 * Exact on full nodes with q dividing m and N dividing m / q (the slices
 * and pieces equal). One rank per node (no layout): the flat ring on P
 * ranks with the own slice's copy. */
double acct_allreduce_hier_reduce_scatter_cost(const struct acct_cost *c)
{
    const struct cost_nodes n = cost_nodes(c);
    const int q = n.q, nn = n.nodes;
    const uint64_t x = (c->m + (uint64_t)q - 1) / (uint64_t)q;
    const uint64_t b = (x + (uint64_t)nn - 1) / (uint64_t)nn;
    const double ga = cost_g_intra(c, x), la = cost_L_intra(c);
    double ring = 0;
    if (nn > 1) {
        const double ge = cost_g(c, b);
        double gs = ge * cost_nic_out(c, q, q), gr = ge * cost_nic_in(c, q, 1);
        if (nn == 2 && c->pair_duplex > 1) {
            gs = fmax(gs, cost_duplex_g(c, b));
            gr = fmax(gr, cost_duplex_g(c, b));
        }
        const double round = fmax(fmax(gs + cost_L(c), cost_or(c, b)), gr);
        ring = 2.0 * (nn - 1) * round + (nn - 1) * cost_gamma(c, b);
    }
    double *st = malloc((size_t)q * sizeof *st), *arr = malloc((size_t)q * sizeof *arr);
    if (st == NULL || arr == NULL) {
        free(st);
        free(arr);
        return NAN;
    }
    for (int i = 0; i < q; i++) {
        double e0 = cost_delta(c, x) + (q - 1) * cost_gamma(c, x);
        if (q > 1)
            e0 += fmax(fmax((i > 1 ? i : 1) * ga + la, cost_or_intra(c, x)) + (q - 2) * ga,
                       (q - 2) * ga + cost_os_intra(c, x));
        st[i] = e0 + ring;
    }
    double t = 0;
    for (int i = 0; i < q; i++) {
        double end = st[i];
        int na = 0;
        for (int k = 0; k < q; k++)
            if (k != i) {
                const int pos = i < k ? i : i - 1;
                double a = st[k] + (pos + 1) * ga + la;
                int j = na++;
                for (; j > 0 && arr[j - 1] > a; j--) /* insertion by arrival */
                    arr[j] = arr[j - 1];
                arr[j] = a;
            }
        double done = -INFINITY;
        for (int j = 0; j < na; j++) {
            done = fmax(fmax(arr[j], st[i] + cost_or_intra(c, x)), done + ga);
            end = fmax(end, done);
        }
        if (q > 1)
            end = fmax(end, st[i] + (q - 2) * ga + cost_os_intra(c, x));
        t = fmax(t, end);
    }
    free(st);
    free(arr);
    return t;
}
