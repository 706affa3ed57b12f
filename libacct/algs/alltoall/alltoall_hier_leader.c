/* Node-aware alltoall by leader aggregation (needs the layout, acct/layout.h).
 * Each node's lowest rank is its leader. With nodes of q_n ranks, node n's
 * ranks indexed i = 0 .. q_n - 1 in rank order and first[j] the index of
 * node j's first rank among all ranks grouped by node (acct_layout):
 *
 *   round 0  every rank of node n sends its whole SEND (P blocks) to the
 *            leader in one message and posts the receive of its whole
 *            RECV from it. The leader receives rank i's row into TMP0
 *            row i (its own row is copied from SEND), then packs TMP1:
 *            chunk j (node j's share) at block q_n first[j] holds, by
 *            destination, the blocks its ranks send to node j's ranks —
 *            block (dj, i) at q_n first[j] + dj q_n + i.
 *   round 1  the leaders exchange chunks, all posted at once in rotated
 *            order (as the flat linear alltoall): leader n sends chunk j to
 *            leader j and receives leader j's chunk for node n into TMP0 at
 *            block q_n first[j] (q_j q_n blocks, (dn, i) at
 *            q_n first[j] + dn q_j + i); its own chunk is copied across
 *            from TMP1. Then it composes each of its ranks' results, rank
 *            dn's in TMP1 row dn - 1 (its own straight into RECV): node j's
 *            blocks for dn lie back to back, one copy per run of
 *            consecutive ranks of node j (acct_layout_runs).
 *   round 2  the leader sends row dn - 1 to its rank dn.
 *
 * The network carries one message per pair of nodes instead of one per
 * pair of ranks, N (N - 1) instead of P (P - 1): it pays where a message
 * costs its latency (small blocks, many ranks per node). Every byte also
 * crosses the node's memory twice more (to the leader and back), and the
 * leader holds 2 q_n P blocks of scratch, so large blocks favour the flat
 * methods; the tuner decides where the line lies. Declines MPI_IN_PLACE
 * and calls without a layout (its fallback, linear, runs).
 * Cost (pLogP, ../cost.h): acct_alltoall_hier_leader_cost at the end of this file. */
#include "../algs.h"
#include "../cost_nodes.h"

/* One copy per run of node j's ranks: TMP0 blocks
 * [src + i0, len) -> dst buffer blocks [r0, len) (dst_row's rank order). */
struct compose_ctx {
    struct acct_sched *s;
    enum acct_buf dst;
    uint64_t dst_off; /* block offset of the row in dst */
    uint64_t src;     /* block of node j's first rank for this destination in TMP0 */
    uint64_t n;       /* elements per block */
};

static void compose_run(void *ctx, int i0, int r0, int len)
{
    const struct compose_ctx *x = ctx;
    acct_sched_copy(x->s, ACCT_BUF_TMP0, (x->src + (uint64_t)i0) * x->n, (uint64_t)len * x->n,
                    x->dst, (x->dst_off + (uint64_t)r0) * x->n, (uint64_t)len * x->n);
}

int acct_alltoall_hier_leader(const struct acct_call *c, struct acct_sched *s)
{
    struct acct_hier h;
    if (c->in_place || acct_hier_init(c, &h) != 0)
        return -1;
    const struct acct_layout *l = h.l;
    const uint64_t n = c->count, sn = c->scount, p = (uint64_t)c->size;
    if (n == 0)
        return 0;
    const int nd = h.node, nn = h.nnodes, base = h.base, q = h.ppn;

    if (h.me != h.leader) {
        acct_sched_send(s, h.leader, ACCT_BUF_SEND, 0, p * sn);
        acct_sched_recv(s, h.leader, ACCT_BUF_RECV, 0, p * n);
        return 0;
    }
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, (uint64_t)q * p * n);
    acct_sched_tmp(s, ACCT_BUF_TMP1, ACCT_BUF_RECV, (uint64_t)q * p * n);

    /* Round 0: gather the node's rows, pack the chunks. */
    for (int i = 1; i < q; i++)
        acct_sched_recv(s, acct_hier_member(&h, nd, i), ACCT_BUF_TMP0, (uint64_t)i * p * n, p * n);
    acct_sched_copy(s, ACCT_BUF_SEND, 0, p * sn, ACCT_BUF_TMP0, 0, p * n);
    for (int j = 0; j < nn && !acct_sched_failed(s); j++) {
        const int qj = acct_layout_ppn(l, j);
        const uint64_t chunk = (uint64_t)q * (uint64_t)l->first[j];
        for (int dj = 0; dj < qj; dj++) {
            const uint64_t d = (uint64_t)acct_hier_member(&h, j, dj);
            for (int i = 0; i < q; i++)
                acct_sched_copy(s, ACCT_BUF_TMP0, ((uint64_t)i * p + d) * n, n, ACCT_BUF_TMP1,
                                (chunk + (uint64_t)dj * (uint64_t)q + (uint64_t)i) * n, n);
        }
    }
    acct_sched_round(s);

    /* Round 1: the leaders' exchange, then this node's results. */
    for (int k = 1; k < nn; k++) {
        const int to = (nd + k) % nn, from = (nd - k + nn) % nn;
        acct_sched_send(s, acct_hier_leader(&h, to), ACCT_BUF_TMP1,
                        (uint64_t)q * (uint64_t)l->first[to] * n,
                        (uint64_t)q * (uint64_t)acct_layout_ppn(l, to) * n);
        acct_sched_recv(s, acct_hier_leader(&h, from), ACCT_BUF_TMP0,
                        (uint64_t)q * (uint64_t)l->first[from] * n,
                        (uint64_t)q * (uint64_t)acct_layout_ppn(l, from) * n);
    }
    const uint64_t own = (uint64_t)q * (uint64_t)base * n, own_len = (uint64_t)q * (uint64_t)q * n;
    acct_sched_copy(s, ACCT_BUF_TMP1, own, own_len, ACCT_BUF_TMP0, own, own_len);
    for (int dn = 0; dn < q; dn++)
        for (int j = 0; j < nn; j++) {
            struct compose_ctx x = {
                s, dn == 0 ? ACCT_BUF_RECV : ACCT_BUF_TMP1, dn == 0 ? 0 : (uint64_t)(dn - 1) * p,
                (uint64_t)q * (uint64_t)l->first[j] + (uint64_t)dn * (uint64_t)acct_layout_ppn(l, j),
                n};
            acct_layout_runs(l, j, compose_run, &x);
        }
    acct_sched_round(s);

    /* Round 2: each rank's result. */
    for (int dn = 1; dn < q; dn++)
        acct_sched_send(s, acct_hier_member(&h, nd, dn), ACCT_BUF_TMP1, (uint64_t)(dn - 1) * p * n,
                        p * n);
    return 0;
}

/* N nodes of q ranks (cost_nodes.h), m-byte blocks, rows of R = P m and
 * chunks of C = q^2 m bytes, the intra-node level a and the inter-node
 * level e, round by round at a leader:
 *   round 0  its q - 1 ranks' rows, one receive gap apart, then the copy
 *            of its own row and the packing of q P blocks:
 *            E0 = max(g_a(R) + L_a, or_a(R)) + (q - 2) g_a(R) + delta R
 *                 + delta q R                        (q = 1: 2 delta R)
 *   round 1  N - 1 chunks sent one gap g_s apart; the k-th leader's chunk
 *            for this node is its k-th send, here at E0 + k g_s + L_e,
 *            taken one receive gap g_r apart:
 *            E1 = E0 + max(or_e(C) + (N - 2) g_r,
 *                          L_e + max((N - 1) g_s, g_s + (N - 2) g_r))
 *                 (or the last send's E0 + (N - 2) g_s + os_e(C))
 *                 + delta (C + q R)   (the own chunk, the composing)
 *            g_s = g_e(C) max(f_out(1, 1), D), g_r = g_e(C) max(f(N - 1) /
 *            (N - 1), D): the leader also receives from every leader it
 *            sends to (the pair-duplex factor D), and its N - 1 flows in
 *            share the node's link (the simulator's NIC sharing;
 *            g_s = g_r = g_e(C) without a measured factor)
 *   round 2  the q - 1 rows back one gap apart:
 *            T = E1 + max((q - 1) g_a(R) + L_a, (q - 2) g_a(R) + os_a(R))
 * Exact on full nodes, with and without the measured NIC factors.
 * One rank per node (no layout): N = P, rounds 1 only. */
double acct_alltoall_hier_leader_cost(const struct acct_cost *c)
{
    const struct cost_nodes n = cost_nodes(c);
    const int q = n.q, nn = n.nodes;
    const uint64_t row = (uint64_t)c->p * c->m, chunk = (uint64_t)q * (uint64_t)q * c->m;
    double t = cost_delta(c, row) + cost_delta(c, (uint64_t)q * row);
    const double ga = cost_g_intra(c, row);
    if (q > 1)
        t += fmax(ga + cost_L_intra(c), cost_or_intra(c, row)) + (q - 2) * ga;
    if (nn > 1) {
        /* a leader receives from every leader it sends to: each message is
         * one way of a pair both ways (pair_duplex), and its N - 1 flows
         * in share the node's link (cost_nic_in) */
        const double ge = cost_g(c, chunk), gd = cost_duplex_g(c, chunk);
        const double gs = fmax(ge * cost_nic_out(c, 1, 1), gd);
        const double gr = fmax(ge * cost_nic_in(c, nn - 1, nn - 1), gd);
        const double in = fmax(cost_or(c, chunk) + (nn - 2) * gr,
                               cost_L(c) + fmax((nn - 1) * gs, gs + (nn - 2) * gr));
        t += fmax(in, (nn - 2) * gs + cost_os(c, chunk));
    }
    t += cost_delta(c, chunk) + cost_delta(c, (uint64_t)q * row);
    if (q > 1)
        t += fmax((q - 1) * ga + cost_L_intra(c), (q - 2) * ga + cost_os_intra(c, row));
    return t;
}
