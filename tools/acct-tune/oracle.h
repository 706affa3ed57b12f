/* acct-tune: the experiments of one (collective, communicator) and the
 * search of its grid points (oracle.c). */
#ifndef ACCT_TUNE_ORACLE_H
#define ACCT_TUNE_ORACLE_H

#include <mpi.h>

#include "kit.h"
#include "tune.h"

#define TUNE_EAGER_MAX 8   /* eager limits kept */
#define TUNE_EAGER_NAME 64 /* a control variable's name */

/* A model's prediction of (coll, d) on p ranks for m bytes, in us (+inf or
 * NAN: none). */
typedef double (*tune_model_fn)(void *ctx, enum acct_coll_id coll, const struct acct_decision *d,
                                int p, uint64_t m);

/* The run's state as the experiments see it. Fields marked (run) live for
 * the whole run; (comm) for one (collective, communicator); (point) for one
 * message size. */
struct tune_ctx {
    const struct tune_opts *o;               /* (run) */
    /* (run) after each point's search that found a method, with the
     * point's first record (rank 0): the driver's finalist race
     * (tune_race, race.c) with --race, else NULL */
    int (*after_point)(struct tune_ctx *x, uint64_t m, size_t first);
    /* (run) after each communicator's points (every rank of x->comm): the
     * A/A pair of a run without racing (tune_aa_pair, race.c), else NULL */
    int (*after_comm)(struct tune_ctx *x);
    struct tune_state state;                 /* (run) journal (rank 0) and replay cache (all) */
    double t_start;                          /* (run) rank 0's clock at the start */
    int stopped;                             /* (run) the budget is spent (rank 0's verdict) */
    bool incomplete;                         /* (run) some point was not finished */
    bool sync_warned;                        /* (run) rank 0 warned about the journal */
    size_t done, total;                      /* (run) grid points, for --progress */
    uint64_t experiments, replayed;          /* (run) rank 0: run / taken from the journal */
    double experiment_s;                     /* (run) rank 0: wall time in experiments */
    struct tune_record *recs;                /* (run) rank 0: the result's measurements */
    size_t nrecs, caprecs;
    struct tune_state seen;                  /* (run) --strategy plane: this run's experiments
                                              * (every rank), so a cell visited again reuses
                                              * them instead of measuring twice */
    size_t capseen;
    struct tune_record *decided;             /* (run) rank 0: the plane's interpolated
                                              * decisions (no measurement) */
    size_t ndecided, capdecided;
    tune_model_fn model_cost;                /* (run) NULL: no model */
    void *model_ctx;
    tune_model_fn seed_cost;                 /* (run) the model for the searches' seeds
                                              * after a noisy step (search.h,
                                              * tune_params.noise), also in a measured
                                              * run; NULL: none */
    double last_spread;                      /* (point) the relative spread (IQR / median)
                                              * of the experiment last measured */
    char err[TUNE_ERRLEN];                   /* (run) the failure, on the rank that saw it */
    /* (run) finalist racing (race.c), rank 0 */
    struct acct_result_race *races;          /* the races run */
    size_t nraces, capraces;
    struct acct_rules *incumbent;            /* --incumbent's rules (rank 0), or NULL */
    double *aa;                              /* each race's A/A spread on its metric */
    double *aa_pair;                         /* each A/A pair's spread (no --race) */
    size_t naa_pair, capaa_pair;
    uint64_t search_exps[ACCT_COLL_COUNT], race_exps[ACCT_COLL_COUNT]; /* per collective */
    double search_s[ACCT_COLL_COUNT], race_s[ACCT_COLL_COUNT];
    /* the search's experiments and seconds of the collective at the end of
     * its last race: a race's point cost the search what came since */
    uint64_t race_mark_exps[ACCT_COLL_COUNT];
    double race_mark_s[ACCT_COLL_COUNT];
    int rank_world;                          /* (run) this rank in MPI_COMM_WORLD */
    /* (run) rank 0: the race's eager probe segments (tune_eager_segments of
     * --eager-limits), descending; none with --eager-limits none */
    uint64_t eager_segs[TUNE_EAGER_MAX];
    size_t neager;

    enum acct_coll_id coll;                  /* (comm) */
    MPI_Comm comm;                           /* (comm) the first size ranks of the world */
    int rank, size;
    const uint64_t *sizes;                   /* (comm) message sizes, ascending */
    size_t nsizes;
    const struct bench_coll *bcoll;
    struct bench_call call;                  /* buffers for the largest size */
    double *times, *max_us;
    double *sum_us;                          /* (comm) rank 0: per repetition, the sum over
                                              * ranks of each rank's time (the avg view) */
    struct tune_method *methods;
    size_t nmethods;
    int *node;                               /* (comm) the node of each rank of comm (labels
                                              * every rank agrees on: tune_layout) */
    MPI_Comm proxy_comm;                     /* (comm) pipeline proxy: first h+1 ranks */
    int proxy_size;
    bool proxy_comm_valid;

    MPI_Comm ecomm;                          /* (point) the experiments' communicator: comm, or
                                              * with --strategy plane the row's (first esize
                                              * ranks of comm; MPI_COMM_NULL outside it) */
    int esize;
    uint64_t m;                              /* (point) message bytes */
    uint64_t *segs;                          /* (point) segment candidates */
    size_t nsegs;
};

/* The MPI library's eager limits (bytes) from its MPI_T control variables
 * (Open MPI's btl_*_eager_limit but self's), with their names: at most max.
 * Returns the count; 0 when MPI_T has none (eager.c). Local, no
 * communication; after MPI_Init. */
size_t tune_eager_read(uint64_t *lim, char (*names)[TUNE_EAGER_NAME], size_t max);

/* One experiment of point x->m: d at segment seg on x->ecomm, from the
 * journal or measured, kept in the result's measurements (the search's
 * own: oracle.c). *cost: the slowest rank's median (+inf: failed). Every
 * rank of x->comm calls it. TUNE_OK, TUNE_STOP (the budget), or an error
 * with x->err set. */
int tune_experiment(struct tune_ctx *x, const struct acct_decision *d, uint64_t seg,
                    double *cost);

/* The views of one experiment (race.h enum race_view) from each rank's
 * times (seconds, reps of them) and rank 0's per-repetition maxima
 * (max_us, microseconds): views[] on rank 0 (microseconds). Collective
 * over comm; sum_us: rank 0's scratch of reps doubles. */
void tune_views(MPI_Comm comm, const double *times, const double *max_us, double *sum_us,
                int reps, double *views);

/* The budget's verdict (rank 0's clock, broadcast over x->comm). */
bool tune_budget_over(struct tune_ctx *x);

/* The ACCT_FORCE text of (coll, d with segment seg). */
void tune_force_spec(enum acct_coll_id coll, const struct acct_decision *d, uint64_t seg,
                     char *buf, size_t len);

/* --race: race the finalists of point m (x->esize ranks of x->ecomm) after
 * its search; the point's records are x->recs[first..] (rank 0). Every
 * rank of x->comm calls it. TUNE_OK (also when the budget stopped it), or
 * an error with x->err set. */
int tune_race(struct tune_ctx *x, uint64_t m, size_t first);

/* Without --race: native against itself, interleaved, RACE_MIN_ROUNDS
 * rounds of --race-reps calls at the middle size of x->sizes on x->comm,
 * on the collective's race metric; rank 0 keeps |median ratio - 1| in
 * x->aa_pair (docs/tuning-result.md "noise"). Every rank of x->comm calls
 * it. TUNE_OK, or an error with x->err set. */
int tune_aa_pair(struct tune_ctx *x);

/* Rank 0: the result's noise section from the run's records, races or A/A
 * pairs (load is the caller's). 0, or -1 out of memory. */
int tune_noise(const struct tune_ctx *x, struct acct_result_noise *nz);

/* Rank 0: the racing summary (A/A noise, cost against the search) on stdout. */
void tune_race_summary(const struct tune_ctx *x);

/* The search parameters of one point of coll: the options', except that a
 * collective decided from the communicator size alone (gatherv, scatterv,
 * alltoallv: three methods each) measures every method at every size
 * (exhaustive; --strategy model stays model), so that its sizes collapse
 * over the same methods (acct_dmap_row_cells; docs/acct-tune.md). */
const struct tune_params *tune_point_params(const struct tune_opts *o, enum acct_coll_id coll,
                                            struct tune_params *storage);

/* Search every size of x->sizes for x->coll on x->comm (every rank of
 * x->comm calls it). Returns TUNE_OK (also when the budget stopped it) or
 * an error with x->err set on some rank. */
int tune_comm(struct tune_ctx *x);

/* --strategy plane: walk the plane of x->coll over the communicator sizes
 * p[0..nrows-1] (ascending; the last is x->comm's size) and x->sizes (every
 * rank of x->comm calls it). Returns as tune_comm. */
int tune_plane(struct tune_ctx *x, const int *p, size_t nrows);

#endif
