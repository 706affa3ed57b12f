/* Tuning results: what one acct-tune run measured and decided (no MPI).
 *
 * Format: docs/tuning-result.md (YAML, schema ACCT_RESULT_VERSION). acct-tune
 * writes it with acct_result_write(); acctd parses it on import with
 * acct_result_parse_*(), which check everything (docs/architecture.md rule 4) and report
 * every problem as "FILE:LINE:COLUMN: FIELD: message" in the same
 * diagnostics list as the rules parser; a result with any problem is
 * refused as a whole. The chosen decisions are a complete struct acct_rules
 * (validated exactly as a rules file). */
#ifndef ACCT_RESULT_H
#define ACCT_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "acct/rules.h"

#define ACCT_RESULT_VERSION 1
#define ACCT_RESULT_MAX_FILE_BYTES (64u * 1024 * 1024)
#define ACCT_RESULT_MAX_POINTS 1000000
#define ACCT_RESULT_MAX_HOSTS 4096
#define ACCT_RESULT_WORD_MAX 32   /* strategy */
#define ACCT_RESULT_TEXT_MAX 128  /* mpi_library */
#define ACCT_RESULT_SHORT_MAX 32  /* acct_version, slurm_job_id */

enum acct_result_source {
    ACCT_RESULT_MEASURED = 0,
    ACCT_RESULT_MODEL,
    ACCT_RESULT_HYBRID,
};

/* One timed (or modelled) method at one point of the grid. Times are per
 * call in microseconds; a repetition's time is the maximum over ranks. */
struct acct_result_point {
    enum acct_coll_id coll;
    int comm_size;
    uint64_t bytes;             /* message bytes m (docs/rules.md) */
    struct acct_decision d;     /* the method: algorithm, segment, fanout, reorder */
    bool modelled;              /* a model's prediction, not a timing */
    uint32_t reps;              /* 0 when modelled */
    double median_us, q1_us, q3_us, min_us, max_us; /* quartiles = median when modelled */
    /* Optional views of a timed point (acct-tune, issue 23): the median over
     * repetitions of the mean over ranks of each rank's own time (OSU's
     * average latency, IMB t_avg), and the maximum over ranks of each rank's
     * median time (OSU max, IMB t_max). Not for modelled points. */
    bool has_avg, has_rank_max;
    double avg_us, rank_max_us;
};

/* The views a race can optimise (docs/tuning-result.md "races"). */
enum acct_result_view {
    ACCT_RESULT_VIEW_MAX = 0,  /* median_us: the slowest rank's time */
    ACCT_RESULT_VIEW_AVG,      /* avg_us */
    ACCT_RESULT_VIEW_RANK_MAX, /* rank_max_us */
    ACCT_RESULT_VIEWS
};

/* A finalist's verdict in its race. */
enum acct_result_verdict {
    ACCT_RESULT_WINNER = 0, ACCT_RESULT_SEPARATED, ACCT_RESULT_EQUIVALENT,
    ACCT_RESULT_UNDECIDED,  ACCT_RESULT_GUARDED,   ACCT_RESULT_TWIN, ACCT_RESULT_VERDICTS
};

/* How a race's winner was chosen. */
enum acct_result_resolve {
    ACCT_RESULT_BY_TEST = 0, ACCT_RESULT_BY_CAP, ACCT_RESULT_BY_NATIVE,
    ACCT_RESULT_BY_INCUMBENT, ACCT_RESULT_BY_MODEL, ACCT_RESULT_BY_SPREAD,
    ACCT_RESULT_BY_ORDER, ACCT_RESULT_RESOLVES
};

#define ACCT_RESULT_MAX_FINALISTS 36
#define ACCT_RESULT_MAX_RACES 100000

struct acct_result_finalist {
    struct acct_decision d;
    enum acct_result_verdict verdict;
    double ratio;               /* median over rounds of its time / the winner's (metric) */
    double p;                   /* one-sided p that it is slower than the winner */
    bool search_pick;           /* the search's own best at the point (lowest median_us);
                                 * at most one per race, false in files before it */
    /* per round, its experiment's three views in microseconds (0: the timing
     * failed): round_us[v * nrounds + r] for view v (enum acct_result_view),
     * round r; nrounds is the race's rounds, or 0 and round_us NULL (files
     * before round_median_us, round_avg_us, round_rank_max_us) */
    double *round_us;
    uint32_t nrounds;
};

/* One point's finalist race (acct-tune --race). */
struct acct_result_race {
    enum acct_coll_id coll;
    int comm_size;
    uint64_t bytes;
    enum acct_result_view metric;  /* the view the winner was chosen on */
    uint32_t rounds;
    double alpha, tolerance;
    bool has_aa;
    double aa_spread;              /* |median A/A ratio - 1| on the metric */
    enum acct_result_resolve resolved_by;
    /* what the point cost (all four or none; docs/tuning-result.md): the
     * race's experiments and wall seconds, and the search's at the point */
    bool has_cost;
    uint64_t experiments, search_experiments;
    double seconds, search_seconds;
    struct acct_result_finalist *f; /* nf >= 1, exactly one winner */
    size_t nf;
};

const char *acct_result_view_name(enum acct_result_view v);
const char *acct_result_verdict_name(enum acct_result_verdict v);
const char *acct_result_resolve_name(enum acct_result_resolve r);

struct acct_result_conditions {
    char (*hosts)[ACCT_RULES_NAME_MAX + 1]; /* nhosts names */
    size_t nhosts;
    int ranks, ranks_per_node;
    enum acct_placement placement;  /* BLOCK, CYCLIC or MIXED */
    char mpi_library[ACCT_RESULT_TEXT_MAX];
    char acct_version[ACCT_RESULT_SHORT_MAX];
    char slurm_job_id[ACCT_RESULT_SHORT_MAX]; /* "" if not given */
};

/* One level's LogGP numbers (model.intra, model.inter). */
struct acct_result_loggp {
    double L_us, o_us, g_us, G_us_per_byte;
};

struct acct_result_model {
    bool present;
    double L_us, o_us, g_us, G_us_per_byte;
    /* issue 21, optional (docs/tuning-result.md): an intra-node and an
     * inter-node pair measured apart, and the NIC sharing factor */
    bool has_levels;
    struct acct_result_loggp intra, inter;
    int nic_pairs;          /* 0: not measured, else >= 2 */
    double nic_gap_factor;  /* >= 1 when nic_pairs >= 2 */
    /* the two-way factor (model.nic.bidir_*; optional, older files have
     * none): nic_bidir_pairs pairs exchanging both ways at once */
    int nic_bidir_pairs;         /* 0: not measured, else >= 2 */
    double nic_bidir_gap_factor; /* >= 1 when nic_bidir_pairs >= 2 */
    /* the pair-duplex factor D (model.nic.pair_duplex_factor; optional,
     * older files have none): one inter-node pair exchanging both ways at
     * once against one way, the model's nodes.pair_duplex_factor */
    double pair_duplex_factor;   /* 0: not measured, else in [1, ACCT_RESULT_PAIR_DUPLEX_MAX] */
    /* its overlap c (model.nic.pair_duplex_overlap_bytes; optional, with
     * pair_duplex_factor): a message's first c bytes overlap the other
     * way, the factor applies to the rest (the model's
     * nodes.pair_duplex_overlap_bytes); 0: the whole message */
    uint64_t pair_duplex_overlap_bytes; /* <= ACCT_RESULT_PAIR_OVERLAP_MAX */
};
/* The largest pair-duplex factor a result holds: two ways that do not
 * overlap at all give 2; beyond a few the measurement was not a link's. */
#define ACCT_RESULT_PAIR_DUPLEX_MAX 16
/* The largest overlap a result holds (1 GiB). */
#define ACCT_RESULT_PAIR_OVERLAP_MAX ((uint64_t)1 << 30)

/* The noise a run measured under (docs/tuning-result.md "noise";
 * acct-tune writes it on every run since issue 23). */
struct acct_result_load {
    char host[ACCT_RULES_NAME_MAX + 1];
    double start, end;          /* 1-minute load average at the run's start and end */
};

struct acct_result_noise {
    bool present;
    double repeat_spread;       /* median over timed measurements of (q3 - q1) / median */
    double repeat_spread_p90;   /* their 90th percentile */
    uint32_t aa_pairs;          /* A/A pairs timed (native against itself, interleaved) */
    double aa_spread;           /* median over them of |A/A ratio - 1| (0 when aa_pairs = 0) */
    double aa_spread_max;       /* the largest */
    struct acct_result_load *load; /* per host, in conditions.hosts order */
    size_t nload;
};

struct acct_result {
    /* run */
    char id[ACCT_RULES_RUN_MAX + 1];
    char partition[ACCT_RULES_NAME_MAX + 1];
    char interconnect[ACCT_RULES_NAME_MAX + 1];
    char started[ACCT_RULES_TIME_LEN + 1], finished[ACCT_RULES_TIME_LEN + 1];
    bool complete;
    char strategy[ACCT_RESULT_WORD_MAX];
    enum acct_result_source source;
    double budget_s;            /* 0: no budget */
    double experiment_s;
    uint64_t experiments;

    struct acct_result_conditions cond;
    struct acct_result_model model;

    struct acct_result_point *points; /* in file order */
    size_t npoints;

    struct acct_result_race *races;   /* optional (acct-tune --race), in file order */
    size_t nraces;

    struct acct_result_noise noise;   /* optional */

    struct acct_rules *rules;   /* the chosen decisions (never NULL in a parsed result) */
    uint64_t hash;              /* acct_rules_hash of the bytes parsed (0 if built) */
};

const char *acct_result_source_name(enum acct_result_source s);

/* Parse a result held in memory (name: display name for diagnostics) or a
 * file (a regular file of at most ACCT_RESULT_MAX_FILE_BYTES). Return
 * ACCT_RULES_OK and *out, or an ACCT_RULES_E* code with *out NULL and every
 * problem in diags (if not NULL). */
int acct_result_parse_buffer(const char *name, const char *buf, size_t len,
                             struct acct_result **out, struct acct_diags *diags);
int acct_result_parse_file(const char *path, struct acct_result **out,
                           struct acct_diags *diags);

/* Write r in the canonical form (fixed key order, one measurement per line
 * in flow style, the rules as acct_rules_write() writes them, indented under
 * "rules:"). Parsing the output gives a result equal to r (acct_result_equal)
 * when r is valid. Returns 0, or -1 on a write error. */
int acct_result_write(FILE *f, const struct acct_result *r);

/* Same content (hash and parse positions not compared). */
bool acct_result_equal(const struct acct_result *a, const struct acct_result *b);

/* Free everything, including r->rules and r->cond.hosts. NULL is fine. */
void acct_result_free(struct acct_result *r);

#endif
