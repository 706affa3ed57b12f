/* Node-aware allreduce — the mechanism behind hier_ring,
 * hier_rabenseifner and hier_recursive_doubling (commutative operations):
 *   1. each node reduces into its leader (its lowest rank) over a
 *      segmented binomial tree (reduce/reduce_tree.c);
 *   2. the leaders, one per node, run a flat allreduce among themselves in
 *      place (any registered allreduce, resolved for the leaders' call so
 *      that its restrictions and fallbacks hold, alike on every rank);
 *   3. each leader broadcasts the result over its node with a segmented
 *      binomial tree (bcast/bcast_tree.c).
 * So the node's link carries 2 (N - 1) / N of the vector for a ring among
 * N nodes, where a flat ring over all P ranks would carry it ppn times.
 * The phases run one after the other (no overlap by segments yet).
 * Each phase is built on its own, for the ranks it involves, and appended
 * with its ranks mapped (acct_sched_append). */
#include "../algs.h"
#include "../cost_nodes.h"

/* The flat allreduce the leaders run, for a call among nnodes leaders;
 * NULL when only native could run it (then the whole call is native). */
static const struct acct_alg *inter_alg(const struct acct_call *c, const struct acct_hier *h,
                                        const char *name, struct acct_call *x)
{
    *x = *c;
    x->rank = h->node;
    x->size = h->nnodes;
    x->root = -1;
    x->in_place = true;
    x->layout = NULL;
    x->fanout = 0;
    const struct acct_alg *a = acct_alg_resolve(acct_alg_find(ACCT_COLL_allreduce, name), x);
    if (a == NULL || (a->flags & ACCT_ALG_NATIVE))
        return NULL;
    if (!(a->flags & ACCT_ALG_SEGMENTED))
        x->seg = 0;
    return a;
}

int acct_allreduce_nodes(const struct acct_call *c, struct acct_sched *s, const char *inter)
{
    struct acct_hier h;
    struct acct_call x;
    if (!c->commutative || acct_hier_init(c, &h) != 0)
        return -1;
    const struct acct_alg *a = h.nnodes > 1 ? inter_alg(c, &h, inter, &x) : NULL;
    if (h.nnodes > 1 && a == NULL)
        return -1; /* every rank resolves the same leaders' call */
    const int *mine = &h.l->members[h.base];
    const struct acct_call local = {.coll = ACCT_COLL_reduce, .rank = h.local, .size = h.ppn,
                                    .root = 0, .count = c->count, .seg = c->seg,
                                    .commutative = true};
    struct acct_sched sub;
    acct_sched_init(&sub);

    /* 1: reduce into the leader */
    int rc = acct_reduce_tree_io(&local, &sub, ACCT_REDUCE_TREE_BINOMIAL, 2,
                                 acct_allreduce_input(c), ACCT_BUF_RECV, ACCT_BUF_TMP0);
    if (rc == 0)
        acct_sched_append(s, &sub, mine);
    /* 2: among the leaders, in place in RECV */
    if (rc == 0 && a != NULL && h.me == h.leader) {
        rc = acct_alg_schedule(a, &x, &sub);
        if (rc == 0)
            rc = acct_hier_append_leaders(&h, s, &sub);
    }
    /* 3: broadcast from the leader */
    if (rc == 0) {
        struct acct_call b = local;
        b.coll = ACCT_COLL_bcast;
        acct_sched_reset(&sub);
        rc = acct_bcast_tree(&b, &sub, ACCT_TREE_BINOMIAL, 2);
        if (rc == 0)
            acct_sched_append(s, &sub, mine);
    }
    acct_sched_free(&sub);
    return rc;
}

/* The three phases one after the other, each by its flat form on its
 * level (cost_nodes.h): phase 1 reduce binomial on q ranks and phase 3
 * bcast binomial on q ranks at the intra-node level, phase 2 the leaders'
 * allreduce (the algorithm the builder resolves for N leaders) on N ranks
 * at the inter-node level. One leader per node crosses nodes: no NIC
 * sharing, but the flat form leaves out the pair-duplex factor of the
 * leaders' exchanges (docs/models.md). The leaders of full nodes end
 * phase 1 together, so phase 2 starts alike on every node. */
double acct_allreduce_nodes_cost(const struct acct_cost *c, const char *inter)
{
    const struct cost_nodes n = cost_nodes(c);
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    double t = 0;
    if (n.q > 1) {
        struct acct_cost x = cost_phase(c, n.q, true, c->m, c->seg, 0);
        t += acct_cost_alg(ACCT_COLL_reduce, "binomial", &x) +
             acct_cost_alg(ACCT_COLL_bcast, "binomial", &x);
    }
    if (n.nodes > 1) {
        struct acct_call lc = {.coll = ACCT_COLL_allreduce, .size = n.nodes, .root = -1,
                               .count = c->m, .scount = c->m, .seg = c->seg, .in_place = true,
                               .commutative = true};
        const struct acct_alg *a = acct_alg_resolve(acct_alg_find(ACCT_COLL_allreduce, inter), &lc);
        if (a == NULL || (a->flags & ACCT_ALG_NATIVE) || a->cost == NULL)
            return NAN;
        struct acct_cost x = cost_phase(c, n.nodes, false, c->m,
                                        (a->flags & ACCT_ALG_SEGMENTED) ? c->seg : 0, 0);
        t += acct_cost_alg(ACCT_COLL_allreduce, a->name, &x);
    }
    return t;
}
