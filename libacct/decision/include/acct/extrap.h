/* Model regions: decisions beyond the measured communicator sizes, above
 * the largest and below the smallest (no MPI). docs/decisions.md, "Model
 * regions"; issue 21; rule 6 of docs/architecture.md ("no decision without
 * evidence").
 *
 * A decision map spans the communicator sizes its tuning run measured,
 * from the smallest (Pmin) to the largest (Pm). acct_extrap_rules() adds,
 * per collective, two bands of rows decided by the calibrated model,
 * marked `evidence: model` — one code path, mirrored:
 *
 *   rows      above: (Pm, 2Pm], (2Pm, 4Pm], ... doubling, the last one
 *             ending at P; below: [Pmin/2, Pmin), [Pmin/4, Pmin/2), ...
 *             halving (sizes rounded up) down to [1, 1]; each row is
 *             decided at its size q farthest from the measured edge e
 *             (Pm above, Pmin below)
 *   columns   the message sizes measured, with the value-space bounds of
 *             the map (geometric midpoints; the first column from 0, the
 *             last to max); decided at the measured size m
 *   decision  at (q, m): the measured winner w of the cell (e, m) when the
 *             model predicts it within margin x the model's best method
 *             there (acct_model_rank, the method space of acct-tune);
 *             else the model's best; the other one is the rule's runner-up
 *   trust     model rows are written only if the model is trusted on the
 *             collective's measured cells (acct_extrap_trust); otherwise
 *             none above (larger communicators run native) and native
 *             rules with `evidence: none` below
 *   one rank  native, `evidence: none`, trusted or not: every collective
 *             is trivial and the runtime runs native there anyway
 *
 * The model is the one a rules file names (provenance.model: LogGP through
 * acct_loggp_to_plogp, acct_model_init's other factors), so that anyone can
 * recompute every modelled decision from the file alone. */
#ifndef ACCT_EXTRAP_H
#define ACCT_EXTRAP_H

#include <stdbool.h>
#include <stddef.h>

#include "acct/model.h"
#include "acct/model_space.h"
#include "acct/result.h"
#include "acct/rules.h"

/* The margin: a modelled rule keeps the measured winner while the model
 * predicts it at most 1.25x its best method. Why 1.25: on the committed
 * quiet dataset the model's relative error has a median of ~37 % (docs/
 * models.md, Accuracy), so two methods predicted within 25 % of each other
 * are not told apart by the model; keeping the measured winner there keeps
 * what was seen to work, and a method predicted more than 25 % slower is
 * replaced: the pathological cases are 865x and 2240x. */
#define ACCT_EXTRAP_MARGIN 1.25
/* Trust: the model's pick among the methods measured at a cell is within
 * the margin of the measured best at >= 80 % of the collective's measured
 * cells, and the median relative error of its predictions there is <= 50 %. */
#define ACCT_EXTRAP_TRUST_HITS 0.8
#define ACCT_EXTRAP_TRUST_ERROR 0.5
/* The largest P accepted (1 Mi ranks: the what-if range). */
#define ACCT_EXTRAP_MAX_COMM (1 << 20)

/* What acct_extrap_rules did for one collective. */
struct acct_extrap_report {
    bool has_points;     /* the collective had measured points and rules */
    int measured_max;    /* Pm: the largest measured communicator size */
    int measured_min;    /* Pmin: the smallest measured communicator size */
    size_t cells, hits;  /* measured cells compared; where the model's pick was within margin */
    size_t pairs;        /* (method, cell) predictions compared with measurements */
    double median_err;   /* median relative error over them (NAN: none) */
    bool trusted;
    size_t rows, rules;  /* model rows and rules written above Pm (0 when not trusted) */
    size_t splits;       /* rows above Pm halved: a cell with no method within the margin
                            at both of the row's ends */
    size_t rows_below, rules_below; /* model rows below Pmin; rules below Pmin (model and native) */
    size_t native_below; /* communicator sizes below Pmin given native, evidence: none */
    size_t kept;         /* (row, column) points that kept the measured winner */
    size_t points;       /* (row, column) points decided */
    /* Model regions per layout (the model has the levels and the run
     * measured at rpn >= 2 ranks per node): the trust of the model laid
     * out at rpn (acct_extrap_trust_at), and the rows it gave */
    int rpn;             /* 0: no layout rows asked */
    size_t at_cells, at_hits, at_pairs;
    double at_median_err;
    bool at_trusted;
    size_t at_points;    /* (row, column) points decided at the layout */
    size_t at_hier;      /* of them, decided for a node-aware method */
    size_t at_rules;     /* layout-bound rules written (both bands) */
};

/* The model a rules file's provenance.model names, with its levels
 * (intra, inter, nic: acct_whatif_model_levels; nodes.ranks_per_node 0,
 * so that it predicts on one network until laid out with
 * acct_whatif_model_at) when it has them (mdl untouched and -1 when absent
 * or invalid). */
int acct_extrap_model(const struct acct_rules_model *rm, struct acct_model *mdl);

/* Trust of the model for coll on the measured (not modelled) points:
 * fills cells, hits, pairs, median_err, trusted of *rep. margin >= 1.
 * Returns 0, or -1 out of memory. */
int acct_extrap_trust(const struct acct_result_point *pts, size_t n, enum acct_coll_id coll,
                      const struct acct_model *mdl, double margin,
                      struct acct_extrap_report *rep);

/* The same on the model laid out at rpn ranks per node (each point's
 * acct_whatif_model_at(mdl, comm_size, rpn): the measured communicators
 * hold the job's first ranks, in blocks), node-aware methods included;
 * rpn 0: acct_extrap_trust. */
int acct_extrap_trust_at(const struct acct_result_point *pts, size_t n, enum acct_coll_id coll,
                         const struct acct_model *mdl, int rpn, double margin,
                         struct acct_extrap_report *rep);

/* Appends the model rows of every collective that has rules in *rules
 * (those rules must span the measured sizes of pts, as the decision maps
 * make them: all evidence: measured, none open-ended or per layout) up to
 * max_comm_size (<= ACCT_EXTRAP_MAX_COMM) and down to 1 rank, with
 * evidence: model (a collective decided from the communicator size alone
 * gets one rule per row, bytes [0, max]: acct_extrap_decide_sizes), or
 * native with evidence: none below the smallest measured size where the
 * model is not trusted and at one rank; and sets rules->prov.model (the LogGP lg, the
 * margin, run as the tuning run). rep (may be NULL) gets one report per
 * collective.
 *
 * Per layout: when levels (may be NULL) has the levels (has_levels; its
 * intra, inter and nic; its other fields are not looked at) and
 * ranks_per_node >= 2 (the layout the run measured at), every row whose
 * size q spans nodes at that layout (q > ranks_per_node) is also decided
 * on the model laid out at it (acct_whatif_model_at, blocks), node-aware
 * methods among the candidates, under the same trust policy computed at
 * the layout (acct_extrap_trust_at). Where the two decisions of a cell
 * agree one layout-free rule holds it; where they differ the cell gets
 * the layout's rule bound to ranks_per_node [R, R] and the flat rule
 * bound to [1, R - 1] and [R + 1, max] (rules of a collective may not
 * overlap, docs/rules.md: a communicator whose layout is unknown then
 * runs native there). rules->prov.model then carries the levels.
 *
 * memo (may be NULL: one for the call) remembers the
 * predictions (acct_model_memo_new): a caller that asks the model again
 * about the same points (a check of the result) passes its own. Returns ACCT_RULES_OK, ACCT_RULES_EINVAL (bad arguments, or
 * more than ACCT_RULES_MAX_RULES rules; described in diags) or
 * ACCT_RULES_ENOMEM. */
int acct_extrap_rules(const struct acct_result_point *pts, size_t n, const struct acct_loggp *lg,
                      const struct acct_rules_model *levels, int ranks_per_node,
                      const char *run, double margin, int max_comm_size,
                      struct acct_rules *rules, struct acct_extrap_report rep[ACCT_COLL_COUNT],
                      struct acct_model_memo *memo, struct acct_diags *diags);

/* The decision of one model point (coll, q ranks, m bytes) given the
 * measured winner w (alg NULL: none): the rule above. *runner_up gets the
 * other candidate (alg NULL: none). Returns 0 with *out, 1 when the model
 * predicts nothing there (then no rule), -1 out of memory. */
int acct_extrap_decide(enum acct_coll_id coll, int q, uint64_t m, const struct acct_decision *w,
                       const struct acct_model *mdl, double margin, struct acct_decision *out,
                       struct acct_decision *runner_up);

/* acct_extrap_decide on the model laid out at rpn ranks per node
 * (acct_whatif_model_at(mdl, q, rpn)), node-aware methods among the
 * candidates where q ranks span nodes (acct_whatif_nodes). */
int acct_extrap_decide_at(enum acct_coll_id coll, int q, int rpn, uint64_t m,
                          const struct acct_decision *w, const struct acct_model *mdl,
                          double margin, struct acct_decision *out,
                          struct acct_decision *runner_up);

/* The ranking acct_extrap_decide_at decides from: acct_model_rank on the
 * model laid out at rpn (node-aware methods where q ranks span nodes)
 * and, rpn > 0 beyond ACCT_MODEL_RANK_EXACT_P ranks, while its head is a
 * closed form the screen answered, the head's full prediction
 * (acct_model_predict) moved to its place, at most ACCT_EXTRAP_REFINE
 * times (a laid-out closed form of a flat method ignores the NIC sharing
 * and can head the list at a fraction of its prediction). *out allocated.
 * 0 or -1. */
#define ACCT_EXTRAP_REFINE 32
int acct_extrap_rank_at(enum acct_coll_id coll, int q, int rpn, uint64_t m,
                        const struct acct_model *mdl, struct acct_model_pred **out, size_t *n);

/* The same for a collective decided from the communicator size alone
 * (gatherv, scatterv, alltoallv: !acct_coll_bytes_alike) at q ranks, over
 * the message sizes m[0..nm) taken as equally likely, the way acct-tune
 * collapses its measured sizes (acct_dmap_row_cells): a method's score is
 * the geometric mean over the sizes of its prediction over the size's best
 * prediction; the measured winner w is kept when its score is within
 * margin x the least score, else the method of the least score is taken;
 * only methods predicted at every size compete. Returns as
 * acct_extrap_decide (1: no method predicted at every size). */
int acct_extrap_decide_sizes(enum acct_coll_id coll, int q, const uint64_t *m, size_t nm,
                             const struct acct_decision *w, const struct acct_model *mdl,
                             double margin, struct acct_decision *out,
                             struct acct_decision *runner_up);

#endif
