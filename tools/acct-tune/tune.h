/* acct-tune: internal interfaces between its files (docs/acct-tune.md).
 *
 *   acct-tune.c  main(): the run in order — options, conditions, state, the
 *                grid loop, output
 *   options.c    command line (no MPI calls): parse and validate
 *   grid.c       the grid and the search space of each point (no MPI)
 *   state.c      the resume journal (--state; no MPI, rank 0 only)
 *   oracle.c     the MPI experiments behind the search's cost oracle
 *   output.c     the tuning result, the rules file, the Open MPI rules file
 *   search.c     the strategies (search.h; no MPI)
 *
 * Rule 1 of docs/architecture.md holds for the tool itself: every rank parses the same
 * command line to the same verdict; every value a decision depends on (a
 * measured time, the budget's verdict, the resumed state) is rank 0's and is
 * broadcast, so the deterministic search takes the same path on every rank
 * and every rank calls acct_tool_force() with the same method before the
 * same collective. */
#ifndef ACCT_TUNE_H
#define ACCT_TUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "acct/coll.h"
#include "acct/dmap.h"
#include "acct/extrap.h"
#include "acct/result.h"
#include "acct/rules.h"
#include "acct/stats.h"
#include "search.h"

#define TUNE_NAME "acct-tune"
#define TUNE_ERRLEN 512

/* Exit codes (identical on every rank). */
#define TUNE_EXIT_OK 0
#define TUNE_EXIT_FAIL 1
#define TUNE_EXIT_USAGE 2
#define TUNE_MAX_TIMED_REPS 10000 /* --min-time adds repetitions up to this many */

/* How the grid is walked above the per-point search. */
enum tune_primary_mode {
    TUNE_PRIMARY_FULL = 0, /* every message size */
    TUNE_PRIMARY_REDUCED,  /* every stride-th size, interpolation between */
    TUNE_PRIMARY_USED,     /* only the points of --used */
    TUNE_PRIMARY_PLANE,    /* the combination over each collective's plane (plane.h) */
};

/* One (collective, comm size, bytes) point of --used. */
struct tune_used_point {
    enum acct_coll_id coll;
    int comm_size;
    uint64_t bytes;
};

struct tune_opts {
    bool coll[ACCT_COLL_COUNT];      /* --collectives */
    struct acct_size_list comm_sizes; /* ascending, distinct */
    struct acct_size_list sizes;      /* ascending, distinct */
    uint64_t max_bytes;
    uint64_t min_segment;
    int max_segments;
    char strategy_word[16];           /* as written in the result */
    enum tune_strategy strategy;      /* per point */
    enum tune_primary_mode primary;
    size_t stride;                    /* reduced */
    size_t row_stride, col_stride;    /* plane: anchor rows / columns */
    double keep;                      /* plane: < 0 every method, else within (1 + keep) */
    double check;                     /* plane: 0 = off */
    struct tune_params params;
    double budget_s;                  /* 0 = none */
    int reps, warmup;
    double point_limit_s;             /* per experiment, 0 = none */
    double min_time_s;                /* per experiment: more reps until this much, 0 = none */
    enum acct_result_source source;
    int quadtree_depth;               /* -1 = exact map */
    double quadtree_accuracy;         /* percent */
    enum acct_qt_leaf_choice quadtree_leaf; /* how a leaf's method is chosen */
    bool progress;
    const char *out, *rules, *ompi_rules, *state, *used_file;
    const char *plogp_out;            /* --plogp-out: the measured pLogP table */
    int max_comm_size;                /* model regions up to this many ranks, 0 = none */
    double extrap_margin;             /* their margin (acct/extrap.h) */
    char partition[ACCT_RULES_NAME_MAX + 1];
    char interconnect[ACCT_RULES_NAME_MAX + 1];
    char run_id[ACCT_RULES_RUN_MAX + 1]; /* "" = made from the start time */
    struct tune_used_point *used;
    size_t nused;
    bool help;
    /* finalist racing (race.c, docs/acct-tune.md "Racing"; 0 = off) */
    int race;                         /* --race K: the search's best K methods race */
    double race_alpha;                /* --race-alpha */
    double race_tolerance;            /* --race-tolerance */
    int race_rounds;                  /* --race-rounds: the cap */
    int race_reps;                    /* --race-reps: timed calls per finalist and round */
    const char *incumbent;            /* --incumbent RULES: the active version's rules */
    /* --eager-limits: the protocol limits the race's eager probe reads
     * (race.c, docs/acct-tune.md "The eager probe") */
    enum tune_eager_mode { TUNE_EAGER_AUTO, TUNE_EAGER_NONE, TUNE_EAGER_LIST } eager_mode;
    struct acct_size_list eager;      /* TUNE_EAGER_LIST: the limits given */
};

/* How many timed repetitions an experiment can take (the timing arrays' size). */
static inline int tune_timed_reps_max(const struct tune_opts *o)
{
    return o->min_time_s > 0 && o->reps < TUNE_MAX_TIMED_REPS ? TUNE_MAX_TIMED_REPS : o->reps;
}

/* --max-comm-size's default: model regions up to 1024 ranks. Issue 21
 * asks for the partition's size (unknown to acct-tune) or 1 Mi ranks; but
 * rank 0 ranks every method at every (row, column), and with the bounded
 * simulator (256 MiB) one ranking of the nine collectives at 1024 ranks and
 * 1 MiB took 119 s on this loaded host, so larger defaults would hold a
 * tuning job's nodes for hours (docs/acct-tune.md, "Model regions"). */
#define TUNE_DEFAULT_MAX_COMM 1024

/* Parse and validate argv (world_size ranks). No MPI call, no output: on
 * error TUNE_EXIT_USAGE and a message in err. Deterministic. */
int tune_opts_parse(int argc, char **argv, int world_size, struct tune_opts *o, char *err,
                    size_t errlen);
void tune_opts_free(struct tune_opts *o);
void tune_usage(FILE *f);

/* ---- the grid (grid.c) ------------------------------------------------------ */

/* A method: a decision without its segment. */
struct tune_method {
    struct acct_decision d;  /* segment_bytes 0 */
    int proxy;               /* pipeline proxy class (0) or -1 */
};

/* The methods of coll on p ranks: every registered algorithm (native too)
 * whose size restriction holds, fan-out algorithms once per fan-out in
 * {1, 2, 4, 8} within their range and below p (or their default); the
 * node-aware ones (ACCT_ALG_NODES) only when nodes (the communicator spans
 * two or more nodes and some node holds two or more of its ranks:
 * otherwise they run what a flat method of the list runs). *out
 * allocated. Returns 0 or -1 (out of memory). */
int tune_methods(enum acct_coll_id coll, int p, bool nodes, struct tune_method **out, size_t *n);

/* Does the layout of the first p ranks, labelled with their nodes, call
 * for the node-aware methods (see tune_methods)? */
bool tune_nodes_among(const int *node, int p);

/* Segment candidates for a message of m bytes: index 0 is 0 (unsegmented),
 * then powers of two below m, descending, down to min_segment, at most
 * max_segments in all. Returns the count (>= 1); segs has room for
 * max_segments. */
size_t tune_segments(uint64_t m, uint64_t min_segment, int max_segments, uint64_t *segs);

/* The eager probe's segments for the eager limits lim[0..n-1] (bytes,
 * headers included, as Open MPI's btl_*_eager_limit): per limit the
 * largest power of two below it (a segment of exactly the limit does not
 * fit with its header), distinct, descending. Returns the count (<= n);
 * segs has room for n. */
size_t tune_eager_segments(const uint64_t *lim, size_t n, uint64_t *segs);

/* Can (coll, method with segment seg) run a call of m bytes on p ranks
 * (acct_alg_applicable on the call acct-tune makes)? */
bool tune_applicable(enum acct_coll_id coll, const struct acct_decision *d, int p, uint64_t m);

/* The proxy of the pipeline strategy for coll (a segmented chain); 0, or
 * -1 when coll has none. */
int tune_proxy_method(enum acct_coll_id coll, struct acct_decision *d);

/* Read --used FILE: lines "COLLECTIVE COMM_SIZE BYTES", '#' comments, blank
 * lines. Returns 0 with *out allocated, or -1 with "FILE:LINE:COLUMN: FIELD:
 * message" in err. */
int tune_used_parse(const char *path, struct tune_used_point **out, size_t *n, char *err,
                    size_t errlen);

/* The message sizes of coll: barrier has the single size 0. */
size_t tune_coll_sizes(enum acct_coll_id coll, const struct tune_opts *o, const uint64_t **v,
                       uint64_t *storage);

/* ---- the resume journal (state.c) --------------------------------------------- */

/* One experiment as the journal and the cache keep it. */
struct tune_record {
    int32_t coll, comm_size;
    uint64_t bytes;
    int32_t alg;             /* registry index */
    int32_t fanout;
    uint64_t segment;
    int32_t ok;              /* 0: could not run / wrong result (+inf) */
    int32_t reps;
    double median_us, q1_us, q3_us, min_us, max_us;
    /* the per-rank views (issue 23; not in the journal: 0 when replayed) */
    int32_t has_views;
    double avg_us, rank_max_us;
};

struct tune_state {
    FILE *f;                 /* open for appending, or NULL */
    char *path;
    struct tune_record *v;   /* loaded records, sorted (tune_state_find) */
    size_t n;
};

/* A fingerprint of everything that changes what a record means. */
uint64_t tune_state_fingerprint(const struct tune_opts *o, int world_size);

/* Rank 0: open path (create it, or load it and keep its complete lines: a
 * line cut by a kill is dropped, and the file is rewritten without it by
 * temp file + rename). A file of another fingerprint is refused. Returns 0
 * or -1 with a message. */
int tune_state_open(struct tune_state *s, const char *path, uint64_t fingerprint, char *err,
                    size_t errlen);
/* Append one record (a single write of one line). */
int tune_state_append(struct tune_state *s, const struct tune_record *r);
/* Make the appended records durable (fflush + fsync): after each point. */
int tune_state_sync(struct tune_state *s);
void tune_state_close(struct tune_state *s);
/* Read-only load of a journal of any fingerprint (acct-tune-replay), sorted;
 * free with tune_state_close. Returns 0 or -1 with a message. */
int tune_state_read(struct tune_state *s, const char *path, char *err, size_t errlen);
/* Sort the records for lookups (after loading or receiving them). */
void tune_state_sort(struct tune_state *s);
const struct tune_record *tune_state_find(const struct tune_state *s, const struct tune_record *key);
/* In memory only (a run's own cache; f unused): insert r in order, or
 * replace the record of its key. *cap: the allocated records. 0, or -1
 * out of memory. */
int tune_state_insert(struct tune_state *s, size_t *cap, const struct tune_record *r);

/* ---- output (output.c) ------------------------------------------------------ */

struct tune_run_info {
    char id[ACCT_RULES_RUN_MAX + 1];
    char started[ACCT_RULES_TIME_LEN + 1], finished[ACCT_RULES_TIME_LEN + 1];
    bool complete;
    double experiment_s;
    uint64_t experiments;
    struct acct_result_conditions cond; /* hosts owned */
    struct acct_result_model model;
    const struct acct_result_race *races; /* --race: the races run (rank 0), or NULL */
    size_t nraces;
    struct acct_result_noise noise;     /* rank 0; load owned */
};

/* The points the decision maps are built from (race_output.c): the
 * result's, except that at each raced point the race decides — only its
 * finalists, each at the winner's time x its interleaved ratio (at least
 * a hair above the winner), so the map's best there is the race's winner.
 * *out allocated (or NULL with *nout 0 when there are no races: use pts).
 * 0, or -1 out of memory. */
int tune_race_decision_points(const struct acct_result_point *pts, size_t npts,
                              const struct acct_result_race *races, size_t nraces,
                              struct acct_result_point **out, size_t *nout);

/* "YYYY-MM-DDTHH:MM:SSZ" of now (UTC). */
void tune_utc_now(char *buf, size_t len);

/* Build the result of the records (in that order) and write --out, and
 * --rules / --ompi-rules when given. decided[0..ndecided-1]: decisions
 * without a measurement (--strategy plane's interpolated cells: their
 * coll, comm_size, bytes, alg, fanout, segment), which the decision maps
 * take where a cell has no measurement (acct_dmap_decide). Each file is
 * written to a temporary name, synced and renamed, then read back with the
 * project's parsers.
 * Rank 0 only. Returns 0 or -1 with a message. */
int tune_write_outputs(const struct tune_opts *o, const struct tune_run_info *run,
                       const struct tune_record *recs, size_t nrecs,
                       const struct tune_record *decided, size_t ndecided, char *err,
                       size_t errlen);

#endif
