/* The closed forms of the node-aware methods (hier_*, ACCT_ALG_NODES):
 * the preamble they share and the phases they are made of (internal to
 * the algorithms; notation in cost.h, the schedules' counterpart is
 * acct_hier_init in nodes.c).
 *
 * acct_model_closed_form gives a method flagged ACCT_ALG_LEVELS the
 * layout: c->nodes = N = ceil(P / R) nodes for R ranks per node, c->net
 * the inter-node level (e) and c->intra the intra-node one (a). The forms
 * cost nodes of q = ceil(P / N) ranks in blocks (every node as the
 * largest; the simulator's last node may be smaller). Without a layout
 * (nodes 0) every rank is its own node: N = P, q = 1, and the intra level
 * is net. */
#ifndef ACCT_ALGS_COST_NODES_H
#define ACCT_ALGS_COST_NODES_H

#include "cost.h"

/* A call's nodes as its closed form sees them. */
struct cost_nodes {
    int nodes; /* N: c->nodes, or P (one rank per node) */
    int q;     /* ranks per node, ceil(P / N) */
};

static inline struct cost_nodes cost_nodes(const struct acct_cost *c)
{
    const int n = c->nodes > 0 && c->nodes <= c->p ? c->nodes : c->p;
    return (struct cost_nodes){.nodes = n, .q = (c->p + n - 1) / n};
}

/* The call c restricted to one phase: p ranks on one level (net the
 * inter-node level, or with intra the intra-node one), no layout, m bytes,
 * segments seg, fan-out fanout. A flat algorithm's form on it costs that
 * phase. */
static inline struct acct_cost cost_phase(const struct acct_cost *c, int p, bool intra,
                                          uint64_t m, uint64_t seg, int fanout)
{
    struct acct_cost x = *c;
    x.net = intra ? cost_intra(c) : c->net;
    x.intra = NULL;
    x.nodes = 0;
    x.nic_share = NULL;
    x.nic_factor = NULL;
    x.pair_duplex = 0;
    x.pair_duplex_overlap = 0;
    x.p = p;
    x.m = m;
    x.seg = seg;
    x.fanout = fanout;
    return x;
}

/* The gap of an x-byte inter-node message between two ranks that also
 * exchange the other way in the round, as the simulator costs it
 * (libacct/model/sim.c duplex_gap; D = pair_duplex, c =
 * pair_duplex_overlap): D g(x) with c = 0; else g(x) for x <= c and
 * g(x) + (D - 1) g(x - c) above; g(x) without a factor above 1. */
static inline double cost_duplex_g(const struct acct_cost *c, uint64_t x)
{
    if (!(c->pair_duplex > 1))
        return cost_g(c, x);
    if (c->pair_duplex_overlap == 0)
        return c->pair_duplex * cost_g(c, x);
    return x <= c->pair_duplex_overlap
               ? cost_g(c, x)
               : cost_g(c, x) + (c->pair_duplex - 1) * cost_g(c, x - c->pair_duplex_overlap);
}

/* The factor on an inter-node send's gap when c_out ranks of a node send
 * and c_in receive between nodes in the same round (1 without a layout). */
static inline double cost_nic_out(const struct acct_cost *c, int c_out, int c_in)
{
    return c->nic_share != NULL ? c->nic_share(c->nic_ctx, c_out, c_in) : 1;
}

/* The factor on the receive gap of a rank that takes own of the flows
 * flows into its node in one round (1 without a layout). */
static inline double cost_nic_in(const struct acct_cost *c, int flows, int own)
{
    const double f = c->nic_factor != NULL ? c->nic_factor(c->nic_ctx, flows) / own : 1;
    return f > 1 ? f : 1;
}

/* A registry algorithm's form on phase x (NAN if it has none). */
double acct_cost_alg(enum acct_coll_id coll, const char *name, const struct acct_cost *x);

/* The node-aware tree of acct/layout.h (inter tree `inter` of fan-out k
 * among the N node leaders, an `intra` tree on each node; ranks in blocks,
 * the first P % N nodes one rank larger), its longest path: a rank that
 * has a segment at D(v) serves its children in order (inter-node first),
 * the j-th at D(v) + sum_{i <= j} g_i(s) + L_j, each child's message at
 * its level; the root's sends per segment (its children's gaps) pace the
 * rest. With reduce, the mirror image plus one reduction of s bytes per
 * child on the way up. nodes 0 or P: the flat inter tree. */
double acct_cost_nodes_tree_path(const struct acct_cost *c, enum acct_tree_kind inter, int k,
                                 enum acct_tree_kind intra, uint64_t s, uint64_t ns, bool reduce);

#endif
