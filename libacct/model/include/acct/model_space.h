/* The method space of one point and the model's ranking of it (no MPI).
 *
 * One definition of "the methods ACCT can choose for (collective, p ranks,
 * m bytes)" shared by the tuner (tools/acct-tune searches it), the what-if
 * and check commands of acctctl and the model-based regions of a tuning
 * result: every registered algorithm whose size restriction holds, fan-out
 * algorithms once per fan-out in {1, 2, 4, 8} (within their range and
 * below p, else their default), segmented ones once per segment size of
 * acct_model_segments(). docs/models.md, "The method space". */
#ifndef ACCT_MODEL_SPACE_H
#define ACCT_MODEL_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct/model.h"

/* Defaults of acct-tune's --min-segment and --max-segments. */
#define ACCT_MODEL_MIN_SEGMENT 1024u
#define ACCT_MODEL_MAX_SEGMENTS 12

/* The methods (decisions with segment 0) of coll on p ranks, in registry
 * order, native included; the node-aware ones (ACCT_ALG_NODES) only when
 * nodes (the communicator spans two or more nodes and some node holds two
 * or more of its ranks). *out allocated (NULL when *n is 0). Returns 0, or
 * -1 out of memory. */
int acct_model_methods(enum acct_coll_id coll, int p, bool nodes, struct acct_decision **out,
                       size_t *n);

/* Segment candidates for a message of m bytes: index 0 is 0 (unsegmented),
 * then powers of two below m (at most ACCT_RULES_MAX_SEGMENT), descending,
 * down to min_segment, at most max_segments in all. Returns the count
 * (>= 1); segs has room for max_segments (>= 1). */
size_t acct_model_segments(uint64_t m, uint64_t min_segment, int max_segments, uint64_t *segs);

/* Can decision d run the call acct-tune and the model make for (coll, p
 * ranks, m bytes) (acct_alg_applicable; node-aware methods: their size
 * restrictions only)? */
bool acct_model_applicable(enum acct_coll_id coll, const struct acct_decision *d, int p,
                           uint64_t m);

/* One method's prediction. */
struct acct_model_pred {
    struct acct_decision d;
    double t_us;                 /* NAN: the model cannot predict it (native, or no form) */
    enum acct_model_source how;  /* which estimate answered (acct_model_predict_how) */
};

/* Ranking beyond ACCT_MODEL_RANK_EXACT_P ranks screens with the closed
 * forms: only the ACCT_MODEL_RANK_SIMULATE candidates with the lowest
 * closed forms within ACCT_MODEL_RANK_SCREEN x the lowest (and those
 * without a closed form) get the full prediction (docs/models.md, "The
 * method space"). */
#define ACCT_MODEL_RANK_EXACT_P 64
#define ACCT_MODEL_RANK_SIMULATE 8
#define ACCT_MODEL_RANK_SCREEN 2.0

/* The order of a ranking (acct_model_rank, acct_whatif_rank): predicted
 * times ascending, NAN last, ties by generation order o. A qsort-style
 * result. */
int acct_model_pred_cmp(double ta, size_t oa, double tb, size_t ob);

/* Every applicable method x segment of (coll, p, m) predicted with
 * acct_model_predict_how (screened beyond ACCT_MODEL_RANK_EXACT_P ranks,
 * above), sorted by time (fastest first; equal times in
 * registry and then descending-segment order; unpredictable ones last, in
 * registry order). min_segment 0 and max_segments 0 mean the defaults.
 * *out allocated. Returns 0, or -1 out of memory / bad arguments (p < 1,
 * mdl NULL). */
int acct_model_rank(enum acct_coll_id coll, int p, uint64_t m, bool nodes,
                    const struct acct_model *mdl, uint64_t min_segment, int max_segments,
                    struct acct_model_pred **out, size_t *n);

#endif
