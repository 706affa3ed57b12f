/* acct-tune's search strategies: which {method, segment} experiments to run
 * for one grid point (collective, communicator size, message size), and which
 * message sizes of a primary grid to search at all. Pure C, no MPI: every
 * strategy works on a cost oracle (a callback), so the same code runs on
 * synthetic surfaces in the unit tests and on timed MPI experiments in
 * acct-tune (docs/acct-tune.md, "Strategies").
 *
 * The secondary search space of one point (the papers' {method, segment}):
 *
 *   method 0:  seg 0 (largest: unsegmented)  seg 1  seg 2 ... seg nsegs[0]-1
 *   method 1:  seg 0                                           (unsegmented only)
 *   method 2:  seg 0  seg 1 ...
 *
 * Segment index 0 is always the largest segment (unsegmented); indices grow
 * towards smaller segments, where single experiments get much slower
 * (Vadhiyar et al.: two to three orders of magnitude). Costs are times in
 * microseconds; +inf means "this method cannot run here".
 *
 * Strategies (enum tune_strategy):
 *
 *   exhaustive  every (method, segment)
 *   mgd         per method, a one-directional hill descent from the largest
 *               segment that looks `lookahead` steps beyond each minimum
 *   smgd        one linear scan of every method's largest segment, then MGD
 *               steps on the method with the lowest *predicted* optimum
 *               (current best minus the improvement its gradient rate still
 *               promises), pruning methods predicted to stay above the best
 *               by the threshold
 *               (mgd and smgd: before a descent is ended after a noisy step
 *               -- one within the noise band of the method's best, either
 *               side -- the model's best segment of the method is measured
 *               once when it lies beyond; a win resumes the descent from
 *               there: tune_params.noise)
 *   pipeline    the segment size of each method class is searched on a
 *               cheap proxy (a pipeline along the longest edge of the tree:
 *               oracle->proxy), then each method is measured unsegmented
 *               and at the proxy's best segment and its neighbours; methods
 *               without a proxy class fall back to mgd
 *   model       the model alone (oracle->model): nothing is measured
 *   hybrid      the model ranks the methods; only those whose modelled
 *               optimum is within `model_margin` of the modelled best, and
 *               those it cannot predict (NAN: native), are searched (smgd)
 *               by measurement
 *
 * Every (method, segment) is evaluated at most once per search (memoised),
 * and the oracle may stop a search (budget): the best found so far is
 * returned with complete = false. */
#ifndef ACCT_TUNE_SEARCH_H
#define ACCT_TUNE_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

enum tune_strategy {
    TUNE_EXHAUSTIVE = 0,
    TUNE_MGD,
    TUNE_SMGD,
    TUNE_PIPELINE,
    TUNE_MODEL,
    TUNE_HYBRID,
    TUNE_STRATEGY_COUNT
};

/* "exhaustive", ...; NULL if out of range. */
const char *tune_strategy_name(enum tune_strategy s);
/* 0 and *out, or -1 if unknown. */
int tune_strategy_from_name(const char *name, enum tune_strategy *out);

/* Return codes of an oracle callback and of the searches. */
#define TUNE_OK 0
#define TUNE_STOP 1     /* the oracle asks to stop (budget): not an error */
#define TUNE_EINVAL (-1)
#define TUNE_ENOMEM (-2)
#define TUNE_EFAIL (-3) /* the oracle failed */

struct tune_space {
    size_t nmethods;
    const size_t *nsegs;  /* per method, >= 1 */
    const int *proxy;     /* per method: proxy class in [0, nmethods), or -1; NULL = none */
    const bool *enabled;  /* per method; NULL = all (disabled ones are never evaluated) */
    /* Warm start: measure (start_method, start_seg) first (e.g. the
     * previous point's optimum), so that pruning has a good best early. */
    bool has_start;
    size_t start_method, start_seg;
};

struct tune_oracle {
    void *ctx;
    /* Measure (method, seg): *cost in microseconds (+inf: cannot run).
     * Returns TUNE_OK, TUNE_STOP or an error. Required except for model. */
    int (*measure)(void *ctx, size_t method, size_t seg, double *cost);
    /* The proxy experiment of class cls at segment index seg (pipeline). */
    int (*proxy)(void *ctx, int cls, size_t seg, double *cost);
    /* A model's prediction (model, hybrid); cheap, never stops. *cost NAN:
     * the model cannot predict this method; +inf: it cannot run. */
    int (*model)(void *ctx, size_t method, size_t seg, double *cost);
    /* Optional: called once before the first evaluation with ok = 1 if the
     * search's memory was allocated; returns the verdict to act on (an MPI
     * caller agrees on it between ranks, so that no rank starts
     * experiments that another cannot join). */
    int (*ready)(void *ctx, int ok);
    /* Optional: the relative spread of the experiment just measured at
     * (method, seg) (its repetitions' IQR / median; 0 if unknown), called
     * right after measure() returned TUNE_OK with a finite cost: the
     * experiment's own noise, for the noisy-step test (tune_params.noise). */
    int (*spread)(void *ctx, size_t method, size_t seg, double *rel);
};

struct tune_params {
    enum tune_strategy strategy;
    int lookahead;        /* mgd/smgd: steps tried beyond a minimum (>= 0) */
    double threshold;     /* smgd: a method with one point is kept while its cost <=
                           * threshold x best; > 1 */
    double margin;        /* smgd: prune when predicted > best x (1 + margin) */
    double model_margin;  /* hybrid: keep methods modelled within (1 + x) of the best */
    double noise;         /* mgd/smgd: the noise band, >= 0: a step to a smaller segment
                           * within max(noise, either experiment's spread) of the
                           * method's best, faster or slower, is a noisy step; before a
                           * descent that saw one since its last clear gain is ended
                           * (pruned, or its lookahead spent), the segment the model
                           * predicts best (oracle->model) is measured once if it lies
                           * beyond the descent's best and was not measured (the seed) */
};

/* The defaults documented in docs/acct-tune.md. */
void tune_params_default(struct tune_params *p);

struct tune_result {
    size_t method, seg;   /* the best found (valid when found) */
    double cost;          /* its cost (+inf when nothing could run) */
    bool found;
    bool complete;        /* false: stopped by the oracle */
    size_t evals;         /* measure() calls */
    size_t proxy_evals;   /* proxy() calls */
    size_t model_evals;   /* model() calls */
    size_t seeds;         /* mgd/smgd: seed experiments run (tune_params.noise) */
    size_t seeds_won;     /* of which improved the method's best */
    size_t neighbours;    /* after a losing seed: the descent's next segment measured */
    size_t neighbours_won; /* of which improved the method's best */
    double eval_cost;     /* sum of the measured and proxy costs: a proxy for the
                           * experiment time (each is run the same number of reps) */
};

/* Search one point. Returns TUNE_OK (also when stopped: see complete),
 * TUNE_EINVAL (bad space or missing callback), TUNE_ENOMEM or the oracle's
 * error. */
int tune_search(const struct tune_space *space, const struct tune_oracle *oracle,
                const struct tune_params *params, struct tune_result *out);

/* ---- primary grid: reduced message sizes with interpolation ---------------
 *
 * Searches only every `stride`-th message size (and the last) fully; between
 * two searched sizes whose best methods are equal, the sizes take that method
 * without any experiment (interpolation); where they differ, the middle size
 * is searched among the two neighbours' methods only, and the interval is
 * bisected until every size is decided. Assumes that the best method changes
 * few times along the sizes (the decision maps of the quadtree paper). */

struct tune_primary {
    void *ctx;
    /* Search size index i among the methods in allowed (NULL: all);
     * nallowed entries. Fills *r. Returns TUNE_OK or an error; a stopped
     * search returns TUNE_OK with r->complete false. */
    int (*search)(void *ctx, size_t i, const size_t *allowed, size_t nallowed,
                  struct tune_result *r);
};

/* out[0..nsizes-1]: the decision of every size; interpolated sizes have
 * found = true, evals = 0. A size never reached (stopped) has found =
 * false. Returns TUNE_OK or an error. */
int tune_reduced_grid(size_t nsizes, size_t stride, const struct tune_primary *p,
                      struct tune_result *out);

/* ---- the combination: a reduced 2-D primary grid (combo.c) ------------------
 *
 * The papers' cost reductions combined over one collective's whole plane of
 * communicator sizes (rows, ascending) x message sizes (columns, ascending).
 * Row r has ncols[r] columns (a ragged plane: a row may stop earlier).
 *
 *   1. anchor rows 0, row_stride, 2 row_stride, ..., and the last; on each,
 *      anchor columns 0, col_stride, ..., and the last: a full search
 *      (callback full; the caller uses model pruning + SMGD), started from
 *      the previous anchor's optimum (hint: warm start; a row's first
 *      anchor from the previous anchor row's cell of that column);
 *   2. between two anchor columns of an anchor row, and then between two
 *      anchor rows in every column: where the two decided neighbours name
 *      the same method (callback same) the cells between take it with no
 *      experiment (interpolated); where they differ, the middle cell is a
 *      verification: only the two neighbours' decisions are measured there
 *      (callback verify), and both halves are bisected in turn;
 *   3. a cell whose neighbours are not both decided (a ragged edge) gets a
 *      full search, started from its left neighbour's optimum.
 *
 * The callbacks keep the decisions (the caller's per-cell store); cells are
 * named by (row, col). */

enum tune_cell_kind {
    TUNE_CELL_NONE = 0,     /* not decided (stopped) */
    TUNE_CELL_FULL,         /* searched */
    TUNE_CELL_VERIFIED,     /* the neighbours' two decisions measured */
    TUNE_CELL_INTERPOLATED, /* taken from equal neighbours, nothing measured */
};

struct tune_cell_ref {
    size_t row, col;
};

struct tune_plane {
    void *ctx;
    size_t nrows;
    const size_t *ncols;
    /* Search (row, col) fully; hint: the decided cell to start from, or
     * NULL. Returns TUNE_OK (*decided false: nothing could run or stopped)
     * or an error. */
    int (*full)(void *ctx, size_t row, size_t col, const struct tune_cell_ref *hint,
                bool *decided);
    /* Decide (row, col) among the decisions of cands[0..n-1] (measured
     * there). */
    int (*verify)(void *ctx, size_t row, size_t col, const struct tune_cell_ref *cands, size_t n,
                  bool *decided);
    /* Decide (row, col), strictly between a and b whose methods are the
     * same, as that method without measuring (the segment interpolated).
     * Returns false when the method cannot run there: the cell then gets a
     * full search. */
    bool (*copy)(void *ctx, size_t row, size_t col, const struct tune_cell_ref *a,
                 const struct tune_cell_ref *b);
    /* Do two decided cells name the same method? */
    bool (*same)(void *ctx, const struct tune_cell_ref *a, const struct tune_cell_ref *b);
};

/* kind[] is indexed row * maxcols + col (maxcols = the largest ncols); it
 * receives what each cell became. Returns TUNE_OK or an error. */
int tune_plane_search(const struct tune_plane *pl, size_t row_stride, size_t col_stride,
                      enum tune_cell_kind *kind);

#endif
