/* The closed forms of the algorithms' times under the simulator's pLogP
 * semantics (acct/model.h): each registry row carries its own (acct_cost_fn,
 * at the end of the algorithm's file under libacct/algs, notation in
 * libacct/algs/cost.h); docs/models.md lists them with their sources and
 * where they equal the simulation exactly. Here: the call's inputs, and
 * the all-to-all contention model. */
#include "acct/model.h"

#include <math.h>

/* The NIC sharing of the model's layout, for the closed forms that cost
 * it (struct acct_cost.nic_share, nic_factor). */
static double nic_share(const void *mdl, int c_out, int c_in)
{
    return acct_model_nic_share(mdl, c_out, c_in);
}

static double nic_factor(const void *mdl, int flows)
{
    return acct_model_nic_factor(mdl, flows);
}

double acct_model_closed_form(enum acct_coll_id coll, const struct acct_decision *dec, int p,
                              uint64_t bytes, const struct acct_model *mdl)
{
    if (dec == NULL || dec->alg == NULL || dec->alg->coll != coll || p < 1 ||
        acct_model_check(mdl, NULL, 0) != 0)
        return NAN;
    const struct acct_alg *a = dec->alg;
    /* with a layout: the slower level wherever the call spans nodes
     * (acct/model.h, struct acct_model_nodes); a method whose closed form
     * costs the layout (ACCT_ALG_LEVELS) gets the nodes and both levels,
     * the others one rank per node (nodes 0) */
    const int rpn = mdl->nodes.ranks_per_node;
    const struct acct_plogp *net = rpn <= 0 ? &mdl->net
                                   : p > rpn ? &mdl->nodes.inter
                                             : &mdl->nodes.intra;
    const bool levels = rpn > 0 && (a->flags & ACCT_ALG_LEVELS);
    struct acct_cost c = {.net = net,
                          .nodes = levels ? (p + rpn - 1) / rpn : 0,
                          .intra = levels ? &mdl->nodes.intra : NULL,
                          .gamma_us_per_byte = mdl->gamma_us_per_byte,
                          .delta_us_per_byte = mdl->delta_us_per_byte,
                          .p = p,
                          .m = coll == ACCT_COLL_barrier ? 0 : bytes,
                          .seg = (a->flags & ACCT_ALG_SEGMENTED) ? dec->segment_bytes : 0,
                          .nic_share = levels ? nic_share : NULL,
                          .nic_factor = levels ? nic_factor : NULL,
                          .nic_ctx = levels ? mdl : NULL,
                          .pair_duplex = levels ? mdl->nodes.pair_duplex_factor : 0,
                          .pair_duplex_overlap = levels ? mdl->nodes.pair_duplex_overlap_bytes : 0};
    if (a->flags & ACCT_ALG_FANOUT) {
        c.fanout = dec->fanout > 0 ? dec->fanout : a->fanout_default;
        if (c.fanout < a->fanout_min || c.fanout > a->fanout_max)
            return NAN; /* outside the row's limits (a radix-1 k-nomial never ends) */
    }
    if (p == 1 || (coll != ACCT_COLL_barrier && bytes == 0))
        return 0; /* nothing moves */
    return a->cost != NULL ? a->cost(&c) : NAN;
}

double acct_model_alltoall_contention(int p, uint64_t bytes, const struct acct_model *mdl,
                                      double *lower, double *upper)
{
    if (p < 1 || acct_model_check(mdl, NULL, 0) != 0)
        return NAN;
    const struct acct_plogp *t = &mdl->net;
    double n = p - 1;
    double lo = n * acct_plogp_os(t, bytes) + n * acct_plogp_or(t, bytes) + t->L_us;
    double hi = n * acct_plogp_g(t, bytes) + n * acct_plogp_or(t, bytes) + t->L_us;
    if (p == 1)
        lo = hi = 0;
    if (lower != NULL)
        *lower = lo;
    if (upper != NULL)
        *upper = hi;
    return lo + (hi - lo) * mdl->contention;
}
