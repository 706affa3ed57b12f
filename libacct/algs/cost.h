/* pLogP cost primitives of the closed forms (internal to the algorithms).
 *
 * Each algorithm's file under algs/<coll>/ ends with its closed form, an
 * acct_cost_fn named <builder>_cost, in the notation of the simulator's
 * pLogP semantics (acct/model.h, docs/models.md lists the formulas with
 * their sources). The comments cite the papers as docs/models.md does
 * (docs/references.md): BM04 = Barchet-Estefanel & Mounié 2004, Tables
 * 1-3; March = March et al., Table 4; V04 = Vadhiyar et al. 2004.
 *   g(x)       the gap of an x-byte message (cost_g), os(x) / or(x) the
 *              send / receive overheads; an x-byte message sent at t is at
 *              the receiver at t + g(x) + L
 *   L          the latency (cost_L)
 *   gamma x    the time to reduce x bytes (cost_gamma), delta x to copy
 *              them (cost_delta)
 *   P          the ranks, k = log2 P
 *   m          the message size of acct-bench (per block for the block
 *              collectives)
 *   s, ns      the segment size and ns = ceil(m / s) segments
 *   f          the fan-out (chains, radix)
 * Depends only on acct/plogp.h, not on the model's objects: the model
 * (libacct/model) calls the registry row's cost function. */
#ifndef ACCT_ALGS_COST_H
#define ACCT_ALGS_COST_H

#include <math.h> /* NAN, INFINITY, isnan: the formulas' "no closed form here" */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h> /* calloc: per-rank arrival times */

#include "acct/alg.h"
#include "acct/plogp.h"
#include "acct/topo.h"

static inline double cost_g(const struct acct_cost *c, uint64_t x)
{
    return acct_plogp_g(c->net, x);
}

static inline double cost_os(const struct acct_cost *c, uint64_t x)
{
    return acct_plogp_os(c->net, x);
}

static inline double cost_or(const struct acct_cost *c, uint64_t x)
{
    return acct_plogp_or(c->net, x);
}

static inline double cost_L(const struct acct_cost *c)
{
    return c->net->L_us;
}

/* The intra-node level of a node-aware method's phases within a node
 * (acct_cost.intra; net without one): g, os, L there. */
static inline const struct acct_plogp *cost_intra(const struct acct_cost *c)
{
    return c->intra != NULL ? c->intra : c->net;
}

static inline double cost_g_intra(const struct acct_cost *c, uint64_t x)
{
    return acct_plogp_g(cost_intra(c), x);
}

static inline double cost_os_intra(const struct acct_cost *c, uint64_t x)
{
    return acct_plogp_os(cost_intra(c), x);
}

static inline double cost_or_intra(const struct acct_cost *c, uint64_t x)
{
    return acct_plogp_or(cost_intra(c), x);
}

static inline double cost_L_intra(const struct acct_cost *c)
{
    return cost_intra(c)->L_us;
}

static inline double cost_gamma(const struct acct_cost *c, uint64_t x)
{
    return c->gamma_us_per_byte * (double)x;
}

static inline double cost_delta(const struct acct_cost *c, uint64_t x)
{
    return c->delta_us_per_byte * (double)x;
}

static inline bool cost_pow2(int p)
{
    return p > 0 && (p & (p - 1)) == 0;
}

static inline int cost_ilog2(int p) /* floor */
{
    int k = 0;
    while ((1 << (k + 1)) <= p)
        k++;
    return k;
}

static inline int cost_clog2(int p) /* ceil */
{
    int k = cost_ilog2(p);
    return (1 << k) < p ? k + 1 : k;
}

/* The segment size actually used and the number of segments; false when
 * the last segment would be shorter (formulas assume equal segments). */
static inline bool cost_segs(const struct acct_cost *c, uint64_t bytes, uint64_t *s, uint64_t *ns)
{
    if (c->seg == 0 || c->seg >= bytes) {
        *s = bytes;
        *ns = 1;
        return true;
    }
    *s = c->seg;
    *ns = (bytes + c->seg - 1) / c->seg;
    return bytes % c->seg == 0;
}

/* Building blocks shared by several algorithms (cost.c states each one's
 * formula). */
double acct_cost_flat(const struct acct_cost *c, uint64_t x);
double acct_cost_chains(const struct acct_cost *c, int f, uint64_t s, uint64_t ns);
double acct_cost_chains_up(const struct acct_cost *c, int f, uint64_t s, uint64_t ns);
double acct_cost_knomial(const struct acct_cost *c, int k, uint64_t s, uint64_t ns);
double acct_cost_tree_path(const struct acct_cost *c, enum acct_tree_kind kind, int k, uint64_t s,
                           uint64_t ns);
double acct_cost_binary(const struct acct_cost *c, uint64_t s, uint64_t ns);
double acct_cost_binomial_up(const struct acct_cost *c, uint64_t x, double *u);
double acct_cost_binomial_up_at(const struct acct_cost *c, uint64_t x, double *u, double leaf,
                                double add);
double acct_cost_binomial_down(const struct acct_cost *c, uint64_t x, const double *start);
double acct_cost_binomial_down_tail(const struct acct_cost *c, uint64_t x, double tail);
double acct_cost_binomial_blocks(const struct acct_cost *c, uint64_t x);
double acct_cost_block_chains(const struct acct_cost *c, bool up);
/* A segmented binomial tree from the root (bcast binomial's closed form). */
double acct_cost_binomial_tree(const struct acct_cost *c);
/* The binomial (Fenwick-tree) scan, or exscan with exclusive: the
 * simulator's recurrence over the ranks (cost.c). */
double acct_cost_scan_tree(const struct acct_cost *c, bool exclusive);
/* The broadcast of the P counts (8 P bytes, binomial) that an
 * ACCT_ALG_ALL_COUNTS algorithm is preceded by. */
double acct_v_counts_bcast_cost(const struct acct_cost *c);

#endif
