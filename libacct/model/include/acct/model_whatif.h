/* What-if and check: a rules file's decisions against the model (no MPI).
 *
 * acctctl whatif asks, for one point (collective, p ranks, ranks per node,
 * m bytes), what every method of the point costs under a partition's model
 * and what the rules decide there -- the decision found exactly as the
 * runtime finds it (acct_rules_resolve_at: the layout dimension and the
 * power-of-two fallback; then the call's own fallback chain,
 * acct_alg_resolve) -- with its penalty, predicted(decision) /
 * predicted(model's best). acctctl check and acctd (before an activation)
 * run the same over every rule of a version, sampled over the rule's
 * rectangle. docs/models.md, "What-if and check"; docs/acctctl.md. */
#ifndef ACCT_MODEL_WHATIF_H
#define ACCT_MODEL_WHATIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct/diag.h"
#include "acct/model.h"
#include "acct/rules.h"

/* Which estimate answered a prediction (acct_model_predict_how's enum
 * acct_model_source, plus the closed forms asked directly). */
enum acct_whatif_how {
    ACCT_WHATIF_HOW_NONE = 0,  /* no prediction: native, or no form */
    ACCT_WHATIF_HOW_SIMULATED, /* the schedule simulator, every rank */
    ACCT_WHATIF_HOW_CLOSED,    /* the algorithm's closed form */
    ACCT_WHATIF_HOW_SYMMETRIC, /* the simulator, rank 0's schedule alone (symmetric view) */
};

/* "none", "simulated", "closed form", "symmetric". */
const char *acct_whatif_how_name(enum acct_whatif_how h);

/* Which estimates a prediction may use. */
enum acct_whatif_source {
    ACCT_WHATIF_AUTO = 0, /* acct_model_predict up to ACCT_WHATIF_SIM_MAX_RANKS ranks, the
                             closed form above (simulations of thousands of ranks take
                             seconds to minutes per method) */
    ACCT_WHATIF_MODEL,    /* acct_model_predict at every size */
    ACCT_WHATIF_CLOSED,   /* the closed form only (exact for p a power of two in most
                             algorithms, docs/models.md "Accuracy"; what check uses) */
};

#define ACCT_WHATIF_SIM_MAX_RANKS 256

/* "auto", "model", "closed" <-> the enum. Returns 0, or -1 for another word. */
int acct_whatif_source_parse(const char *s, enum acct_whatif_source *out);
const char *acct_whatif_source_name(enum acct_whatif_source s);

/* One prediction of decision d for (coll, p, m), *how (may be NULL) saying
 * which estimate answered. NAN (how NONE) for native or no estimate. */
double acct_whatif_predict(enum acct_coll_id coll, const struct acct_decision *d, int p,
                           uint64_t m, const struct acct_model *mdl,
                           enum acct_whatif_source src, enum acct_whatif_how *how);

struct acct_whatif_pred {
    struct acct_decision d;
    double t_us; /* NAN: no prediction */
    enum acct_whatif_how how;
};

/* Every method of the point's space (acct/model_space.h: the methods,
 * segments and applicability acct_model_rank uses) predicted with src and
 * sorted as acct_model_rank sorts (with src = ACCT_WHATIF_MODEL the same
 * list as acct_model_rank). *out allocated. Returns 0 or -1. */
int acct_whatif_rank(enum acct_coll_id coll, int p, uint64_t m, bool nodes,
                     const struct acct_model *mdl, enum acct_whatif_source src,
                     struct acct_whatif_pred **out, size_t *n);

/* Does a job of p ranks with rpn ranks per node (0: unknown) span two or
 * more nodes with two or more ranks on one (the node-aware methods)? */
bool acct_whatif_nodes(int p, int rpn);

/* What the rules decide for (coll, p, m) at w (NULL: layout unknown):
 * *rule the index in rules->coll[coll].v of the rule that covers the call
 * (-1: none), *written its decision as written (alg NULL if none), *runs
 * what the runtime runs: the per-communicator table's decision (size
 * fallback) after the call's fallback chain (acct_alg_resolve on the
 * model's call: one-byte elements, commutative). rules may be NULL.
 * Returns 0, or -1 out of memory. */
int acct_whatif_decide(const struct acct_rules *rules, enum acct_coll_id coll, int p,
                       const struct acct_rules_where *w, uint64_t m, long *rule,
                       struct acct_decision *written, struct acct_decision *runs);

/* ---- model files ---------------------------------------------------------- */

/* The model of LogGP parameters (a tuning result's model: section, acctd's
 * stored model_params): acct_loggp_to_plogp, gamma = delta = 0. 0 or -1. */
int acct_whatif_model_loggp(double L_us, double o_us, double g_us, double G_us_per_byte,
                            struct acct_model *out);

/* The two levels of a calibrated run (result model.intra, model.inter,
 * model.nic; acctd's model_levels; issue 21) into out->nodes: intra and
 * inter LogGP as L, o, g, G each, the NIC factor of nic_pairs pairs
 * (nic_pairs 0: not measured) and the two-way factor of bidir_pairs pairs
 * (model.nic.bidir_*; bidir_pairs 0: not measured, older results and
 * stores), the pair-duplex factor (model.nic.pair_duplex_factor; 0:
 * not measured, else >= 1) and its overlap in bytes
 * (model.nic.pair_duplex_overlap_bytes; 0: the whole message). out->nodes.ranks_per_node stays 0: a
 * prediction for a layout sets it (acctctl whatif --ranks-per-node). 0 or
 * -1 (out unchanged). */
int acct_whatif_model_levels(const double intra[4], const double inter[4], int nic_pairs,
                             double nic_gap_factor, int bidir_pairs, double bidir_factor,
                             double pair_duplex, uint64_t pair_overlap, struct acct_model *out);

/* Does mdl carry the two calibrated levels (acct_whatif_model_levels)? */
bool acct_whatif_has_levels(const struct acct_model *mdl);

/* The model for a p-rank call with rpn ranks per node (0: unknown): base
 * with, when it has the levels and rpn > 0, the layout min(rpn, p) ranks
 * per node in blocks, so that every message is costed at the level of its
 * ends (struct acct_model_nodes); else base unchanged (the one network). */
void acct_whatif_model_at(const struct acct_model *base, int p, int rpn, struct acct_model *out);

/* The model a rules file's provenance.model names (LogGP, and its levels
 * intra, inter, nic when given: acct_whatif_model_levels;
 * nodes.ranks_per_node 0 until laid out with acct_whatif_model_at). 0, or
 * -1 (out untouched) when rm is NULL, absent or does not convert. */
struct acct_rules_model;
int acct_whatif_model_rules(const struct acct_rules_model *rm, struct acct_model *out);

/* Read a model from path: a pLogP table file ("acct-plogp 1", the format of
 * acct-tune --plogp-out), a tuning result with a model: section (and its
 * levels, acct_whatif_model_levels, when the run measured them), or a rules
 * file with provenance.model (acct_whatif_model_rules: the model its
 * modelled rules were predicted with). Every problem goes to diags as
 * FILE:LINE:COLUMN: FIELD: message. *kind (may be NULL) gets "pLogP
 * table", "tuning result" or "rules file". Returns 0, or -1. */
int acct_whatif_model_file(const char *path, struct acct_model *out, const char **kind,
                           struct acct_diags *diags);

/* ---- check ------------------------------------------------------------------ */

#define ACCT_CHECK_DEFAULT_BOUND 2.0
#define ACCT_CHECK_DEFAULT_MAX_COMM 4096 /* until the closed forms and the simulator scale (issue 21) */
#define ACCT_CHECK_DEFAULT_MAX_BYTES (16u << 20)
#define ACCT_CHECK_SAMPLES 10 /* values per dimension of a rule, at most */

struct acct_check_opts {
    double bound;        /* a rule is flagged when its penalty exceeds this (> 1) */
    int max_comm;        /* sample communicator sizes up to this */
    uint64_t max_bytes;  /* and message sizes up to this */
    enum acct_whatif_source src; /* default (0) AUTO; check uses CLOSED, and asks the
                                    simulation again where a point is over the bound
                                    (up to ACCT_WHATIF_SIM_MAX_RANKS ranks) */
    int samples;         /* per dimension (0: ACCT_CHECK_SAMPLES) */
    int ranks_per_node;  /* the jobs' layout (0: unknown): the rules are resolved at it
                            (layout-bound rules at their own), node-aware methods join the
                            best, and a model with levels is laid out at it
                            (acct_whatif_model_at) */
};

/* One rule's worst sampled point. */
struct acct_check_finding {
    enum acct_coll_id coll;
    size_t rule;                    /* index in rules->coll[coll].v */
    const struct acct_rule *r;
    int p, rpn;                     /* the worst point (rpn 0: layout unknown) */
    uint64_t m;
    struct acct_decision runs;      /* what runs there */
    double t_us;
    struct acct_decision best;      /* the model's best there */
    double best_us;
    double penalty;                 /* t_us / best_us */
    size_t sizes;                   /* 0; a collective decided from the communicator size
                                       alone (gatherv, scatterv, alltoallv): m is 0, and
                                       t_us, best_us are geometric means over this many
                                       sampled sizes, best the method of the least mean */
    enum acct_whatif_how how;       /* which estimate answered for the decision */
    bool flagged;                   /* penalty > bound */
    bool measured;                  /* every point of the rule lies within the measured
                                       communicator sizes: not asked (penalty NAN) */
};

struct acct_check_summary {
    size_t rules;         /* rules looked at (all collectives) */
    size_t predicted;     /* of which some sampled point had a penalty */
    size_t flagged;       /* of which the worst exceeds the bound */
    size_t points;        /* points sampled */
    size_t rankings;      /* distinct points ranked */
    size_t measured;      /* rules wholly within the measured communicator sizes */
    size_t simulated;     /* points over the bound by the closed forms (src CLOSED) asked
                             again of the simulation, up to ACCT_WHATIF_SIM_MAX_RANKS ranks
                             (a size-only rule: communicator sizes) */
    size_t withdrawn;     /* of which the simulation put within the bound */
    size_t confirmed;     /* of which the simulation put over the bound against the
                             closed forms' best alone (a lower bound of the penalty:
                             not ranked in full unless the rule's worst) */
};

/* Called per rule that has a finite penalty somewhere (flagged or not),
 * and per measured rule wholly within the measured communicator sizes
 * (f->measured, penalty NAN, no point); a non-zero return stops the check
 * with that value. */
typedef int (*acct_check_fn)(void *arg, const struct acct_check_finding *f);

/* The sampled values of [lo, hi] (both clipped to [1, cap_hi] first):
 * its ends, the powers of two inside, the geometric midpoint; ascending,
 * distinct; at most max (the ends always kept). Returns the count. */
size_t acct_check_samples(uint64_t lo, uint64_t hi, uint64_t cap_hi, int max, uint64_t *out);

/* Check every rule of rules (or of collective only, if not
 * ACCT_COLL_COUNT). Returns 0 (or what fn returned), or -1 on bad
 * arguments / out of memory. */
int acct_check_rules(const struct acct_rules *rules, enum acct_coll_id only,
                     const struct acct_model *mdl, const struct acct_check_opts *o,
                     acct_check_fn fn, void *arg, struct acct_check_summary *sum);

#endif
