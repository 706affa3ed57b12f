/* acct-tune: command line. No MPI calls and no output: every rank parses the
 * same argv to the same verdict, and main() lets rank 0 speak. */
#include "tune.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acct/common.h"

#define DEFAULT_MAX_BYTES "1M"
#define DEFAULT_MIN_SEGMENT "1K"
#define DEFAULT_MAX_SEGMENTS 12
#define DEFAULT_REPS 20
#define DEFAULT_WARMUP 3
#define DEFAULT_POINT_LIMIT 2.0
#define DEFAULT_STRIDE 3
#define DEFAULT_PLANE_STRIDE 2 /* --row-stride, --col-stride */
#define DEFAULT_CHECK 0.2
#define DEFAULT_OUT "acct-tune-result.yaml"
#define DEFAULT_QT_ACCURACY 100.0
#define MAX_REPS 100000
#define MAX_BUDGET_S (30.0 * 24 * 3600)
#define MIN_SIZE 1

enum {
    OPT_COLLECTIVES = UCHAR_MAX + 1,
    OPT_COMM_SIZES,
    OPT_MAX_BYTES,
    OPT_SIZES,
    OPT_STRATEGY,
    OPT_BUDGET,
    OPT_REPS,
    OPT_WARMUP,
    OPT_POINT_LIMIT,
    OPT_MIN_TIME,
    OPT_OUT,
    OPT_RULES,
    OPT_OMPI_RULES,
    OPT_STATE,
    OPT_PARTITION,
    OPT_INTERCONNECT,
    OPT_SOURCE,
    OPT_QT_DEPTH,
    OPT_QT_ACCURACY,
    OPT_QT_LEAF,
    OPT_PROGRESS,
    OPT_USED,
    OPT_STRIDE,
    OPT_MIN_SEGMENT,
    OPT_MAX_SEGMENTS,
    OPT_RUN_ID,
    OPT_LOOKAHEAD,
    OPT_THRESHOLD,
    OPT_NOISE_BAND,
    OPT_MODEL_MARGIN,
    OPT_PLOGP_OUT,
    OPT_MAX_COMM_SIZE,
    OPT_EXTRAP_MARGIN,
    OPT_ROW_STRIDE,
    OPT_COL_STRIDE,
    OPT_KEEP,
    OPT_CHECK,
    OPT_RACE,
    OPT_RACE_ALPHA,
    OPT_RACE_TOLERANCE,
    OPT_RACE_ROUNDS,
    OPT_RACE_REPS,
    OPT_INCUMBENT,
    OPT_EAGER_LIMITS,
};

static const struct option long_opts[] = {
    { "collectives", required_argument, NULL, OPT_COLLECTIVES },
    { "comm-sizes", required_argument, NULL, OPT_COMM_SIZES },
    { "max-bytes", required_argument, NULL, OPT_MAX_BYTES },
    { "sizes", required_argument, NULL, OPT_SIZES },
    { "strategy", required_argument, NULL, OPT_STRATEGY },
    { "budget", required_argument, NULL, OPT_BUDGET },
    { "reps", required_argument, NULL, OPT_REPS },
    { "warmup", required_argument, NULL, OPT_WARMUP },
    { "point-limit", required_argument, NULL, OPT_POINT_LIMIT },
    { "min-time", required_argument, NULL, OPT_MIN_TIME },
    { "out", required_argument, NULL, OPT_OUT },
    { "rules", required_argument, NULL, OPT_RULES },
    { "ompi-rules", required_argument, NULL, OPT_OMPI_RULES },
    { "state", required_argument, NULL, OPT_STATE },
    { "partition", required_argument, NULL, OPT_PARTITION },
    { "interconnect", required_argument, NULL, OPT_INTERCONNECT },
    { "source", required_argument, NULL, OPT_SOURCE },
    { "quadtree-depth", required_argument, NULL, OPT_QT_DEPTH },
    { "quadtree-accuracy", required_argument, NULL, OPT_QT_ACCURACY },
    { "quadtree-leaf", required_argument, NULL, OPT_QT_LEAF },
    { "progress", no_argument, NULL, OPT_PROGRESS },
    { "used", required_argument, NULL, OPT_USED },
    { "stride", required_argument, NULL, OPT_STRIDE },
    { "min-segment", required_argument, NULL, OPT_MIN_SEGMENT },
    { "max-segments", required_argument, NULL, OPT_MAX_SEGMENTS },
    { "run-id", required_argument, NULL, OPT_RUN_ID },
    { "lookahead", required_argument, NULL, OPT_LOOKAHEAD },
    { "threshold", required_argument, NULL, OPT_THRESHOLD },
    { "noise-band", required_argument, NULL, OPT_NOISE_BAND },
    { "model-margin", required_argument, NULL, OPT_MODEL_MARGIN },
    { "plogp-out", required_argument, NULL, OPT_PLOGP_OUT },
    { "max-comm-size", required_argument, NULL, OPT_MAX_COMM_SIZE },
    { "extrap-margin", required_argument, NULL, OPT_EXTRAP_MARGIN },
    { "row-stride", required_argument, NULL, OPT_ROW_STRIDE },
    { "col-stride", required_argument, NULL, OPT_COL_STRIDE },
    { "keep", required_argument, NULL, OPT_KEEP },
    { "check", required_argument, NULL, OPT_CHECK },
    { "race", required_argument, NULL, OPT_RACE },
    { "race-alpha", required_argument, NULL, OPT_RACE_ALPHA },
    { "race-tolerance", required_argument, NULL, OPT_RACE_TOLERANCE },
    { "race-rounds", required_argument, NULL, OPT_RACE_ROUNDS },
    { "race-reps", required_argument, NULL, OPT_RACE_REPS },
    { "incumbent", required_argument, NULL, OPT_INCUMBENT },
    { "eager-limits", required_argument, NULL, OPT_EAGER_LIMITS },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* The strategy words of the result file (docs/tuning-result.md). */
static const struct {
    const char *word;
    enum tune_strategy inner;
    enum tune_primary_mode primary;
} strategies[] = {
    { "exhaustive", TUNE_EXHAUSTIVE, TUNE_PRIMARY_FULL },
    { "mgd", TUNE_MGD, TUNE_PRIMARY_FULL },
    { "smgd", TUNE_SMGD, TUNE_PRIMARY_FULL },
    { "pipeline", TUNE_PIPELINE, TUNE_PRIMARY_FULL },
    { "model", TUNE_MODEL, TUNE_PRIMARY_FULL },
    { "hybrid", TUNE_HYBRID, TUNE_PRIMARY_FULL },
    { "reduced", TUNE_SMGD, TUNE_PRIMARY_REDUCED },
    { "used", TUNE_SMGD, TUNE_PRIMARY_USED },
    { "plane", TUNE_SMGD, TUNE_PRIMARY_PLANE },
};

void tune_usage(FILE *f)
{
    fprintf(f,
            "Usage: mpirun [...] " TUNE_NAME " [options]\n"
            "Tune ACCT's collective algorithms for this partition (docs/acct-tune.md).\n"
            "\n"
            "  --collectives LIST    comma list of collectives (default: all)\n"
            "  --comm-sizes LIST     communicator sizes (default: powers of two, 3 x powers\n"
            "                        of two and the job size, from 2 up to the job size)\n"
            "  --max-bytes SIZE      largest message size (default " DEFAULT_MAX_BYTES ")\n"
            "  --sizes LIST          message sizes (default 8:MAX-BYTES, doubling)\n"
            "  --strategy S          exhaustive, mgd, smgd (default), pipeline, model,\n"
            "                        hybrid, reduced, used, plane\n"
            "  --budget TIME         stop cleanly after TIME (600, 90s, 10m, 2h); 0 = none\n"
            "  --reps N              timed repetitions per experiment (default %d)\n"
            "  --warmup N            untimed calls before them (default %d)\n"
            "  --point-limit SEC     at most SEC seconds per experiment (default %g; 0 = none)\n"
            "  --min-time SEC        more repetitions (up to %d) until the timed calls add up\n"
            "                        to SEC seconds: fast calls get many (default 0 = none)\n"
            "  --out FILE            tuning result (default " DEFAULT_OUT ")\n"
            "  --rules FILE          also write the rules file\n"
            "  --ompi-rules FILE     also write an Open MPI coll/tuned dynamic rules file\n"
            "  --state FILE          resume journal: a rerun skips what is recorded there\n"
            "  --partition NAME      default $SLURM_JOB_PARTITION, else \"unknown\"\n"
            "  --interconnect NAME   default $ACCT_INTERCONNECT, else \"unknown\"\n"
            "  --source S            measured (default), model or hybrid\n"
            "  --plogp-out FILE      also write the measured pLogP table\n"
            "  --max-comm-size P     model regions up to P ranks (default %d; 0 = none)\n"
            "  --extrap-margin R     a model region keeps the measured winner while it is\n"
            "                        predicted within R x the model's best (default %g)\n"
            "  --quadtree-depth N    encode decisions as quadtrees of depth <= N\n"
            "  --quadtree-accuracy P quadtree leaf accuracy in percent (default 100)\n"
            "  --quadtree-leaf L     a leaf's method: least-penalty (default) or majority\n"
            "  --progress            what is measured, done/total and ETA on stderr\n"
            "  --used FILE           points to tune for --strategy used: lines\n"
            "                        \"COLLECTIVE COMM_SIZE BYTES\"\n"
            "  --stride N            --strategy reduced: search every N-th size (default %d)\n"
            "  --row-stride N, --col-stride N\n"
            "                        --strategy plane: anchor every N-th communicator size /\n"
            "                        message size (default %d, %d)\n"
            "  --keep X              --strategy plane: a search started from a neighbour\n"
            "                        measures only the methods within (1 + X) of the best there\n"
            "                        (default: every method)\n"
            "  --check X             --strategy plane: measure each interpolated decision; above\n"
            "                        (1 + X) x its neighbours' time, search it (default %g; 0 = off)\n"
            "  --min-segment SIZE    smallest segment size tried (default " DEFAULT_MIN_SEGMENT
            ")\n"
            "  --max-segments N      segment sizes tried per method, unsegmented included\n"
            "                        (default %d)\n"
            "  --lookahead N, --threshold X, --model-margin X   search parameters\n"
            "  --noise-band X        mgd/smgd: a step slower than a method's best by at most\n"
            "                        max(X, either timing's IQR/median) is a noisy step; the\n"
            "                        model's segment is measured before such a descent ends\n"
            "                        (default 0.05; docs/acct-tune.md \"Noisy steps\")\n"
            "  --race K              after each point's search, race its best K methods, its\n"
            "                        own pick, native, native's A/A twin (and --incumbent's)\n"
            "                        interleaved; each of the K with its best other segment\n"
            "                        when within the tolerance: at most 2K + 4 finalists\n"
            "                        (default 0: off; docs/acct-tune.md \"Racing\")\n"
            "  --race-alpha A, --race-tolerance T, --race-rounds N, --race-reps R\n"
            "                        the race's level (0.05), equivalence (0.03), round cap\n"
            "                        (20), timed calls per finalist and round (5)\n"
            "  --incumbent RULES     the active version's rules: its decision races too\n"
            "  --eager-limits auto|none|SIZE,...\n"
            "                        the MPI library's eager limits (auto: Open MPI's\n"
            "                        btl_*_eager_limit read through MPI_T): with --race, at\n"
            "                        the rooted collectives' points the candidates are also\n"
            "                        timed at the largest segment below each (default auto;\n"
            "                        docs/acct-tune.md \"The eager probe\")\n"
            "  --run-id NAME         the run's id (default r-STARTTIME-PARTITION)\n"
            "  -h, --help            this text\n"
            "  --version             the version (neither needs mpirun)\n",
            DEFAULT_REPS, DEFAULT_WARMUP, DEFAULT_POINT_LIMIT, TUNE_MAX_TIMED_REPS,
            TUNE_DEFAULT_MAX_COMM, ACCT_EXTRAP_MARGIN, DEFAULT_STRIDE,
            DEFAULT_PLANE_STRIDE, DEFAULT_PLANE_STRIDE, DEFAULT_CHECK, DEFAULT_MAX_SEGMENTS);
}

/* A whole-string integer in [lo, hi]. */
static int parse_int(const char *opt, const char *text, long lo, long hi, int *out, char *err,
                     size_t errlen)
{
    char *end = NULL;
    long v = 0;

    errno = 0;
    v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || !isdigit((unsigned char)text[0]) ||
        v < lo || v > hi) {
        snprintf(err, errlen, "%s: \"%s\" is not an integer from %ld to %ld", opt, text, lo, hi);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* A finite number in [lo, hi]. */
static int parse_num(const char *opt, const char *text, double lo, double hi, double *out,
                     char *err, size_t errlen)
{
    char *end = NULL;
    double v = 0.0;

    errno = 0;
    v = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !isfinite(v) || v < lo || v > hi ||
        !(isdigit((unsigned char)text[0]) || text[0] == '.')) {
        snprintf(err, errlen, "%s: \"%s\" is not a number from %g to %g", opt, text, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* One size (docs/acct-bench.md syntax). */
static int parse_size(const char *opt, const char *text, uint64_t *out, char *err, size_t errlen)
{
    char msg[TUNE_ERRLEN];

    if (acct_size_parse(text, out, msg, sizeof(msg)) != ACCT_STATS_OK) {
        snprintf(err, errlen, "%s: %s", opt, msg);
        return -1;
    }
    return 0;
}

/* "600", "90s", "10m", "2h", "1.5h": seconds. */
static int parse_duration(const char *text, double *out, char *err, size_t errlen)
{
    char buf[64];
    size_t n = strlen(text);
    double mult = 1.0;

    if (n == 0 || n >= sizeof(buf)) {
        snprintf(err, errlen, "--budget: \"%.64s\" is not a duration (600, 90s, 10m, 2h)", text);
        return -1;
    }
    memcpy(buf, text, n + 1);
    switch (buf[n - 1]) {
    case 's': mult = 1.0; buf[n - 1] = '\0'; break;
    case 'm': mult = 60.0; buf[n - 1] = '\0'; break;
    case 'h': mult = 3600.0; buf[n - 1] = '\0'; break;
    default: break;
    }
    if (parse_num("--budget", buf, 0.0, MAX_BUDGET_S / mult, out, err, errlen) != 0) {
        snprintf(err, errlen, "--budget: \"%s\" is not a duration (600, 90s, 10m, 2h; at most "
                "30 days)", text);
        return -1;
    }
    *out *= mult;
    return 0;
}

/* A name of docs/rules.md: 1..max characters of [A-Za-z0-9._+-]. */
static int parse_name(const char *opt, const char *text, size_t max, char *out, char *err,
                      size_t errlen)
{
    size_t n = strlen(text);
    int ok = n >= 1 && n <= max;

    for (size_t i = 0; ok && i < n; i++)
        ok = isalnum((unsigned char)text[i]) || strchr("._+-", text[i]) != NULL;
    if (!ok) {
        snprintf(err, errlen, "%s: \"%.80s\" is not a name (1 to %zu characters of A-Z a-z "
                "0-9 . _ + -)", opt, text, max);
        return -1;
    }
    memcpy(out, text, n + 1);
    return 0;
}

static int parse_collectives(const char *text, bool *coll, char *err, size_t errlen)
{
    int rc = 0;
    char *copy = strdup(text);
    char *save = NULL;
    int any = 0;

    memset(coll, 0, sizeof(bool) * ACCT_COLL_COUNT);
    if (copy == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (char *t = strtok_r(copy, ",", &save); t != NULL && rc == 0;
         t = strtok_r(NULL, ",", &save)) {
        enum acct_coll_id id;
        if (acct_coll_from_name(t, &id) != 0) {
            snprintf(err, errlen, "--collectives: unknown collective \"%.64s\" (valid: barrier, "
                    "bcast, reduce, allreduce, gather, scatter, allgather, alltoall, "
                    "reduce_scatter_block, allgatherv, reduce_scatter, gatherv, scatterv, "
                    "alltoallv, scan, exscan)", t);
            rc = -1;
        } else {
            coll[id] = true;
            any = 1;
        }
    }
    if (rc == 0 && !any) {
        snprintf(err, errlen, "--collectives: no collective given");
        rc = -1;
    }
    free(copy);
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Sort ascending and drop duplicates. */
static void sort_unique(struct acct_size_list *l)
{
    size_t k = 0;

    if (l->n == 0)
        return;
    qsort(l->v, l->n, sizeof(*l->v), cmp_u64);
    for (size_t i = 1; i < l->n; i++)
        if (l->v[i] != l->v[k])
            l->v[++k] = l->v[i];
    l->n = k + 1;
}

static int parse_list(const char *opt, const char *text, struct acct_size_list *l, char *err,
                      size_t errlen)
{
    char msg[TUNE_ERRLEN];

    acct_size_list_free(l);
    if (acct_size_list_parse(text, l, msg, sizeof(msg)) != ACCT_STATS_OK) {
        snprintf(err, errlen, "%s: %s", opt, msg);
        return -1;
    }
    sort_unique(l);
    return 0;
}

/* The default communicator sizes: 2^k, 3 x 2^k and the job size, in [2, N]. */
static int default_comm_sizes(int n, struct acct_size_list *l)
{
    l->v = malloc((2 * 32 + 1) * sizeof(*l->v));
    l->n = 0;
    if (l->v == NULL)
        return -1;
    for (uint64_t p = 2; p <= (uint64_t)n; p *= 2) {
        l->v[l->n++] = p;
        if (3 * p / 2 <= (uint64_t)n)
            l->v[l->n++] = 3 * p / 2; /* 3, 6, 12, ... */
    }
    if (n >= 2)
        l->v[l->n++] = (uint64_t)n;
    sort_unique(l);
    return 0;
}

static void defaults(struct tune_opts *o)
{
    const char *part = getenv("SLURM_JOB_PARTITION");
    const char *ic = getenv("ACCT_INTERCONNECT");
    char ignored[8];

    memset(o, 0, sizeof(*o));
    /* every collective (gatherv, scatterv and alltoallv by communicator
     * size alone: docs/acct-tune.md "v-collectives") */
    for (int c = 0; c < ACCT_COLL_COUNT; c++)
        o->coll[c] = true;
    tune_params_default(&o->params);
    o->reps = DEFAULT_REPS;
    o->warmup = DEFAULT_WARMUP;
    o->point_limit_s = DEFAULT_POINT_LIMIT;
    o->max_segments = DEFAULT_MAX_SEGMENTS;
    o->stride = DEFAULT_STRIDE;
    o->row_stride = o->col_stride = DEFAULT_PLANE_STRIDE;
    o->keep = -1.0;
    o->check = DEFAULT_CHECK;
    o->race_alpha = 0.05;
    o->race_tolerance = 0.03;
    o->race_rounds = 20;
    o->race_reps = 5;
    o->quadtree_depth = -1;
    o->max_comm_size = TUNE_DEFAULT_MAX_COMM;
    o->extrap_margin = ACCT_EXTRAP_MARGIN;
    o->quadtree_accuracy = DEFAULT_QT_ACCURACY;
    o->quadtree_leaf = ACCT_QT_LEAF_MIN_PENALTY;
    o->source = ACCT_RESULT_MEASURED;
    o->out = DEFAULT_OUT;
    snprintf(o->strategy_word, sizeof(o->strategy_word), "smgd");
    o->strategy = TUNE_SMGD;
    /* invalid environment values fall back to "unknown" */
    if (part == NULL || parse_name("", part, ACCT_RULES_NAME_MAX, o->partition, ignored,
                                   sizeof(ignored)) != 0)
        snprintf(o->partition, sizeof(o->partition), "unknown");
    if (ic == NULL || parse_name("", ic, ACCT_RULES_NAME_MAX, o->interconnect, ignored,
                                 sizeof(ignored)) != 0)
        snprintf(o->interconnect, sizeof(o->interconnect), "unknown");
}

static int parse_strategy(const char *text, struct tune_opts *o, char *err, size_t errlen)
{
    for (size_t i = 0; i < ACCT_ARRAY_LEN(strategies); i++) {
        if (strcmp(text, strategies[i].word) == 0) {
            snprintf(o->strategy_word, sizeof(o->strategy_word), "%s", strategies[i].word);
            o->strategy = strategies[i].inner;
            o->primary = strategies[i].primary;
            return 0;
        }
    }
    snprintf(err, errlen, "--strategy: unknown strategy \"%.64s\" (valid: exhaustive, mgd, "
            "smgd, pipeline, model, hybrid, reduced, used, plane)", text);
    return -1;
}

static int parse_source(const char *text, struct tune_opts *o, char *err, size_t errlen)
{
    int rc = 0;

    if (strcmp(text, "measured") == 0)
        o->source = ACCT_RESULT_MEASURED;
    else if (strcmp(text, "model") == 0)
        o->source = ACCT_RESULT_MODEL;
    else if (strcmp(text, "hybrid") == 0)
        o->source = ACCT_RESULT_HYBRID;
    else {
        snprintf(err, errlen, "--source: unknown source \"%.64s\" (valid: measured, model, "
                "hybrid)", text);
        rc = -1;
    }
    return rc;
}

/* The numeric options: name, range, kind and where the value goes. */
enum num_kind { NUM_INT, NUM_SIZE, NUM_DOUBLE };
struct num_option {
    int c;
    const char *name;
    enum num_kind kind;
    double lo, hi;
    size_t off; /* offsetof(struct tune_opts, ...) */
};
static const struct num_option num_options[] = {
    { OPT_REPS, "--reps", NUM_INT, 1, MAX_REPS, offsetof(struct tune_opts, reps) },
    { OPT_WARMUP, "--warmup", NUM_INT, 0, MAX_REPS, offsetof(struct tune_opts, warmup) },
    { OPT_POINT_LIMIT, "--point-limit", NUM_DOUBLE, 0.0, 3600.0,
      offsetof(struct tune_opts, point_limit_s) },
    { OPT_MIN_TIME, "--min-time", NUM_DOUBLE, 0.0, 3600.0, offsetof(struct tune_opts, min_time_s) },
    { OPT_QT_DEPTH, "--quadtree-depth", NUM_INT, 0, 60, offsetof(struct tune_opts, quadtree_depth) },
    { OPT_QT_ACCURACY, "--quadtree-accuracy", NUM_DOUBLE, 0.001, 100.0,
      offsetof(struct tune_opts, quadtree_accuracy) },
    { OPT_STRIDE, "--stride", NUM_SIZE, 1, 64, offsetof(struct tune_opts, stride) },
    { OPT_ROW_STRIDE, "--row-stride", NUM_SIZE, 1, 64, offsetof(struct tune_opts, row_stride) },
    { OPT_COL_STRIDE, "--col-stride", NUM_SIZE, 1, 64, offsetof(struct tune_opts, col_stride) },
    { OPT_KEEP, "--keep", NUM_DOUBLE, 0.0, 1e6, offsetof(struct tune_opts, keep) },
    { OPT_CHECK, "--check", NUM_DOUBLE, 0.0, 1e6, offsetof(struct tune_opts, check) },
    { OPT_RACE, "--race", NUM_INT, 0, 16, offsetof(struct tune_opts, race) },
    { OPT_RACE_ALPHA, "--race-alpha", NUM_DOUBLE, 1e-6, 0.5,
      offsetof(struct tune_opts, race_alpha) },
    { OPT_RACE_TOLERANCE, "--race-tolerance", NUM_DOUBLE, 0.0, 1.0,
      offsetof(struct tune_opts, race_tolerance) },
    { OPT_RACE_ROUNDS, "--race-rounds", NUM_INT, 1, 1000, offsetof(struct tune_opts, race_rounds) },
    { OPT_RACE_REPS, "--race-reps", NUM_INT, 1, 1000, offsetof(struct tune_opts, race_reps) },
    { OPT_MAX_SEGMENTS, "--max-segments", NUM_INT, 1, 40, offsetof(struct tune_opts, max_segments) },
    { OPT_LOOKAHEAD, "--lookahead", NUM_INT, 0, 40,
      offsetof(struct tune_opts, params) + offsetof(struct tune_params, lookahead) },
    { OPT_THRESHOLD, "--threshold", NUM_DOUBLE, 1.001, 1e6,
      offsetof(struct tune_opts, params) + offsetof(struct tune_params, threshold) },
    { OPT_NOISE_BAND, "--noise-band", NUM_DOUBLE, 0.0, 100.0,
      offsetof(struct tune_opts, params) + offsetof(struct tune_params, noise) },
    { OPT_MODEL_MARGIN, "--model-margin", NUM_DOUBLE, 0.0, 100.0,
      offsetof(struct tune_opts, params) + offsetof(struct tune_params, model_margin) },
    { OPT_MAX_COMM_SIZE, "--max-comm-size", NUM_INT, 0, ACCT_EXTRAP_MAX_COMM,
      offsetof(struct tune_opts, max_comm_size) },
    { OPT_EXTRAP_MARGIN, "--extrap-margin", NUM_DOUBLE, 1.0, ACCT_RULES_MARGIN_MAX,
      offsetof(struct tune_opts, extrap_margin) },
};

/* If c is a numeric option: parse arg into its field, *rc = 0 or -1, and
 * return true; else false. */
static bool parse_number_option(int c, const char *arg, struct tune_opts *o, int *rc, char *err,
                                size_t errlen)
{
    for (size_t i = 0; i < sizeof(num_options) / sizeof(num_options[0]); i++) {
        const struct num_option *n = &num_options[i];
        char *field = (char *)o + n->off;
        int v = 0;
        if (n->c != c)
            continue;
        switch (n->kind) {
        case NUM_INT:
            *rc = parse_int(n->name, arg, (long)n->lo, (long)n->hi, (int *)(void *)field, err,
                            errlen);
            break;
        case NUM_SIZE:
            *rc = parse_int(n->name, arg, (long)n->lo, (long)n->hi, &v, err, errlen);
            if (*rc == 0)
                *(size_t *)(void *)field = (size_t)v;
            break;
        case NUM_DOUBLE:
            *rc = parse_num(n->name, arg, n->lo, n->hi, (double *)(void *)field, err, errlen);
            break;
        }
        return true;
    }
    return false;
}

static int parse_one(int c, const char *arg, struct tune_opts *o, const char **sizes_text,
                     const char **comm_text, char *err, size_t errlen)
{
    int rc = 0;

    if (parse_number_option(c, arg, o, &rc, err, errlen))
        return rc;
    switch (c) {
    case OPT_COLLECTIVES: rc = parse_collectives(arg, o->coll, err, errlen); break;
    case OPT_COMM_SIZES: *comm_text = arg; break;
    case OPT_SIZES: *sizes_text = arg; break;
    case OPT_MAX_BYTES: rc = parse_size("--max-bytes", arg, &o->max_bytes, err, errlen); break;
    case OPT_MIN_SEGMENT:
        rc = parse_size("--min-segment", arg, &o->min_segment, err, errlen);
        break;
    case OPT_STRATEGY: rc = parse_strategy(arg, o, err, errlen); break;
    case OPT_BUDGET: rc = parse_duration(arg, &o->budget_s, err, errlen); break;
    case OPT_OUT: o->out = arg; break;
    case OPT_RULES: o->rules = arg; break;
    case OPT_OMPI_RULES: o->ompi_rules = arg; break;
    case OPT_STATE: o->state = arg; break;
    case OPT_USED: o->used_file = arg; break;
    case OPT_PLOGP_OUT: o->plogp_out = arg; break;
    case OPT_INCUMBENT: o->incumbent = arg; break;
    case OPT_EAGER_LIMITS:
        acct_size_list_free(&o->eager);
        if (strcmp(arg, "auto") == 0) {
            o->eager_mode = TUNE_EAGER_AUTO;
        } else if (strcmp(arg, "none") == 0) {
            o->eager_mode = TUNE_EAGER_NONE;
        } else {
            o->eager_mode = TUNE_EAGER_LIST;
            rc = parse_list("--eager-limits", arg, &o->eager, err, errlen);
            for (size_t i = 0; rc == 0 && i < o->eager.n; i++)
                if (o->eager.v[i] < 2) {
                    snprintf(err, errlen, "--eager-limits: %llu is below 2 bytes (auto, none, "
                             "or sizes such as 4K,64K)", (unsigned long long)o->eager.v[i]);
                    rc = -1;
                }
        }
        break;
    case OPT_PARTITION:
        rc = parse_name("--partition", arg, ACCT_RULES_NAME_MAX, o->partition, err, errlen);
        break;
    case OPT_INTERCONNECT:
        rc = parse_name("--interconnect", arg, ACCT_RULES_NAME_MAX, o->interconnect, err, errlen);
        break;
    case OPT_RUN_ID:
        rc = parse_name("--run-id", arg, ACCT_RULES_RUN_MAX, o->run_id, err, errlen);
        break;
    case OPT_SOURCE: rc = parse_source(arg, o, err, errlen); break;
    case OPT_QT_LEAF:
        if (strcmp(arg, "least-penalty") == 0) {
            o->quadtree_leaf = ACCT_QT_LEAF_MIN_PENALTY;
        } else if (strcmp(arg, "majority") == 0) {
            o->quadtree_leaf = ACCT_QT_LEAF_MAJORITY;
        } else {
            snprintf(err, errlen, "--quadtree-leaf: \"%s\" is not least-penalty or majority",
                     arg);
            rc = -1;
        }
        break;
    case OPT_PROGRESS: o->progress = true; break;
    case 'h': o->help = true; break;
    default: rc = -1; break;
    }
    return rc;
}

/* Checks that need several options together. */
static int cross_check(struct tune_opts *o, int world_size, const char *sizes_text,
                       const char *comm_text, char *err, size_t errlen)
{
    char text[64];

    if (o->max_bytes == 0)
        acct_size_parse(DEFAULT_MAX_BYTES, &o->max_bytes, NULL, 0);
    if (o->min_segment == 0)
        acct_size_parse(DEFAULT_MIN_SEGMENT, &o->min_segment, NULL, 0);
    if (sizes_text == NULL) {
        char mb[ACCT_SIZE_FORMAT_LEN];
        acct_size_format(o->max_bytes, mb, sizeof(mb));
        snprintf(text, sizeof(text), "%s:%s", o->max_bytes >= 8 ? "8" : mb, mb);
        sizes_text = text;
    }
    if (parse_list("--sizes", sizes_text, &o->sizes, err, errlen) != 0)
        return -1;
    if (o->sizes.v[o->sizes.n - 1] > o->max_bytes) {
        snprintf(err, errlen, "--sizes: %llu is larger than --max-bytes (%llu)",
                (unsigned long long)o->sizes.v[o->sizes.n - 1],
                (unsigned long long)o->max_bytes);
        return -1;
    }
    if (o->max_bytes > (uint64_t)INT_MAX) {
        snprintf(err, errlen, "--max-bytes: %llu does not fit an MPI count (at most %d)",
                (unsigned long long)o->max_bytes, INT_MAX);
        return -1;
    }
    if (comm_text != NULL) {
        if (parse_list("--comm-sizes", comm_text, &o->comm_sizes, err, errlen) != 0)
            return -1;
    } else if (default_comm_sizes(world_size, &o->comm_sizes) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (o->comm_sizes.n == 0 || o->comm_sizes.v[0] < 2) {
        snprintf(err, errlen, "--comm-sizes: communicators of at least 2 ranks are tuned: run "
                "acct-tune on 2 ranks or more");
        return -1;
    }
    if (o->comm_sizes.v[o->comm_sizes.n - 1] > (uint64_t)world_size) {
        snprintf(err, errlen, "--comm-sizes: %llu is larger than the number of ranks (%d)",
                (unsigned long long)o->comm_sizes.v[o->comm_sizes.n - 1], world_size);
        return -1;
    }
    if (o->primary == TUNE_PRIMARY_PLANE && o->source == ACCT_RESULT_MODEL) {
        snprintf(err, errlen, "--strategy plane measures (verifications): it cannot run with "
                 "--source model; use --source hybrid for model-pruned searches");
        return -1;
    }
    /* the word names the grid's strategy; --source names the per-point one */
    bool full = o->primary == TUNE_PRIMARY_FULL;
    if (o->source == ACCT_RESULT_MODEL) {
        o->strategy = TUNE_MODEL;
        snprintf(o->strategy_word, sizeof(o->strategy_word), "model");
    } else if (o->source == ACCT_RESULT_HYBRID) {
        o->strategy = TUNE_HYBRID;
        if (full)
            snprintf(o->strategy_word, sizeof(o->strategy_word), "hybrid");
    } else if (o->strategy == TUNE_MODEL || o->strategy == TUNE_HYBRID) {
        o->source = o->strategy == TUNE_MODEL ? ACCT_RESULT_MODEL : ACCT_RESULT_HYBRID;
    }
    if (o->primary == TUNE_PRIMARY_USED && o->used_file == NULL) {
        snprintf(err, errlen, "--strategy used needs --used FILE");
        return -1;
    }
    if (o->used_file != NULL && o->primary != TUNE_PRIMARY_USED) {
        snprintf(err, errlen, "--used is only for --strategy used");
        return -1;
    }
    if (o->race > 0 && (o->primary == TUNE_PRIMARY_PLANE || o->primary == TUNE_PRIMARY_REDUCED ||
                        o->source == ACCT_RESULT_MODEL)) {
        snprintf(err, errlen, "--race: not with %s (it races the points a search measured: "
                 "--strategy exhaustive, mgd, smgd, pipeline, hybrid or used)",
                 o->source == ACCT_RESULT_MODEL ? "--source model" : o->strategy_word);
        return -1;
    }
    if (o->incumbent != NULL && o->race == 0) {
        snprintf(err, errlen, "--incumbent needs --race K");
        return -1;
    }
    o->params.strategy = o->strategy;
    return 0;
}

int tune_opts_parse(int argc, char **argv, int world_size, struct tune_opts *o, char *err,
                    size_t errlen)
{
    int rc = TUNE_EXIT_OK;
    int c = 0;
    const char *sizes_text = NULL, *comm_text = NULL;

    defaults(o);
    opterr = 0;
    optind = 1;
    while (rc == TUNE_EXIT_OK && (c = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
        if (c == '?') {
            snprintf(err, errlen, "unknown option %.64s (see --help)", argv[optind - 1]);
            rc = TUNE_EXIT_USAGE;
        } else if (c == ':') {
            snprintf(err, errlen, "option %.64s needs a value", argv[optind - 1]);
            rc = TUNE_EXIT_USAGE;
        } else if (parse_one(c, optarg, o, &sizes_text, &comm_text, err, errlen) != 0) {
            rc = TUNE_EXIT_USAGE;
        }
    }
    if (rc == TUNE_EXIT_OK && optind < argc) {
        snprintf(err, errlen, "unexpected argument \"%.64s\"", argv[optind]);
        rc = TUNE_EXIT_USAGE;
    }
    if (rc == TUNE_EXIT_OK && !o->help &&
        cross_check(o, world_size, sizes_text, comm_text, err, errlen) != 0)
        rc = TUNE_EXIT_USAGE;
    return rc;
}

void tune_opts_free(struct tune_opts *o)
{
    acct_size_list_free(&o->sizes);
    acct_size_list_free(&o->comm_sizes);
    acct_size_list_free(&o->eager);
    free(o->used);
    o->used = NULL;
    o->nused = 0;
}
