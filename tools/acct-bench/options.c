/* acct-bench: command line. No MPI calls and no output here: every rank
 * parses the same argv to the same verdict, and main() lets rank 0 speak. */
#include "bench.h"

#include "acct/common.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SIZES "8:1M"
#define DEFAULT_ITERATIONS 100
#define DEFAULT_WARMUP 10
#define DEFAULT_LABEL "-"
#define DEFAULT_DTYPE "byte"
#define MAX_REPS 1000000
#define MAX_LABEL 64
#define CSV_SUFFIX ".csv"

/* Long-only options get values past the char range. */
enum {
    OPT_ROOT = UCHAR_MAX + 1,
    OPT_COMM_SIZES,
    OPT_TIME_LIMIT,
    OPT_FORMAT,
    OPT_LABEL,
    OPT_DATATYPE,
    OPT_OUTLIER_K,
    OPT_METHOD,
};

static const char short_opts[] = ":c:m:n:w:o:h";

static const struct option long_opts[] = {
    { "collective", required_argument, NULL, 'c' },
    { "sizes", required_argument, NULL, 'm' },
    { "iterations", required_argument, NULL, 'n' },
    { "warmup", required_argument, NULL, 'w' },
    { "root", required_argument, NULL, OPT_ROOT },
    { "comm-sizes", required_argument, NULL, OPT_COMM_SIZES },
    { "time-limit", required_argument, NULL, OPT_TIME_LIMIT },
    { "format", required_argument, NULL, OPT_FORMAT },
    { "output", required_argument, NULL, 'o' },
    { "label", required_argument, NULL, OPT_LABEL },
    { "datatype", required_argument, NULL, OPT_DATATYPE },
    { "outlier-k", required_argument, NULL, OPT_OUTLIER_K },
    { "method", required_argument, NULL, OPT_METHOD },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

static const char *const format_names[] = {
    [BENCH_FMT_TABLE] = "table",
    [BENCH_FMT_TSV] = "tsv",
    [BENCH_FMT_CSV] = "csv",
};

const char *bench_format_name(enum bench_format f)
{
    return format_names[f];
}

void bench_usage(FILE *f)
{
    fprintf(f,
            "Usage: mpirun [...] " BENCH_NAME " -c COLLECTIVE [options]\n"
            "Benchmark one MPI collective over message sizes and communicator sizes.\n"
            "\n"
            "  -c, --collective NAME   collective to measure (see below); required\n"
            "  -m, --sizes LIST        message sizes in bytes (default " DEFAULT_SIZES "):\n"
            "                          comma list of SIZE or FROM:TO[:FACTOR] (doubling by\n"
            "                          default); units K, M, G, T are powers of 1024\n"
            "  -n, --iterations N      timed repetitions per point (default %d)\n"
            "  -w, --warmup N          untimed repetitions before them (default %d)\n"
            "      --root R            root of bcast, reduce, gather, scatter (default 0)\n"
            "      --comm-sizes LIST   communicator sizes, each the first k world ranks\n"
            "                          (same syntax as --sizes; default: all ranks)\n"
            "      --time-limit SEC    stop adding repetitions to a point after SEC seconds\n"
            "                          (rank 0's clock; at least one timed repetition)\n"
            "      --format FMT        stdout format: table (default), tsv or csv\n"
            "  -o, --output FILE       also write rows to FILE: CSV if it ends in " CSV_SUFFIX
            ", else TSV\n"
            "      --label TEXT        value of the label column (default \"" DEFAULT_LABEL
            "\")\n"
            "      --datatype T        byte (default), int or double; sizes: multiples of it\n"
            "      --outlier-k K       drop repetitions above Q3 + K*IQR (default %g; 0 keeps all;\n"
            "                          method acct only)\n"
            "      --method M          acct (default: barrier before each call, max over\n"
            "                          ranks per call), osu (each call timed alone, barrier\n"
            "                          after it, each rank's mean) or imb (calls back to back,\n"
            "                          each rank's mean); osu and imb report avg/min/max over ranks\n"
            "  -h, --help              this text\n"
            "  --version               the version (neither needs mpirun)\n"
            "\n"
            "Collectives and what the message size m is:\n",
            DEFAULT_ITERATIONS, DEFAULT_WARMUP, ACCT_STATS_OUTLIER_K);
    for (const struct bench_coll *c = bench_colls; c->name != NULL; c++)
        fprintf(f, "  %-22s %s\n", c->name, c->size_meaning);
    fprintf(f, "\nSee docs/acct-bench.md for the method and the output format.\n");
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* "a b c": the names of a sentinel-terminated table, for messages. */
#define NAMES_LEN 256

static const char *coll_names(char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (const struct bench_coll *c = bench_colls; c->name != NULL && used < len; c++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used > 0 ? " " : "", c->name);
    return buf;
}

static const char *dtype_names(char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (const struct bench_dtype *d = bench_dtypes; d->name != NULL && used < len; d++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used > 0 ? " " : "", d->name);
    return buf;
}

/* Whole-string integer in [lo, hi]. */
static int parse_int(const char *text, long lo, long hi, int *out)
{
    int rc = -1;
    char *end = NULL;
    long v = 0;

    errno = 0;
    if (!isdigit((unsigned char)text[0])) /* no blanks, signs or empty text */
        goto out;
    v = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        goto out;
    *out = (int)v;
    rc = 0;
out:
    return rc;
}

/* Whole-string finite number >= 0. */
static int parse_nonneg(const char *text, double *out)
{
    int rc = -1;
    char *end = NULL;
    double v = 0.0;

    errno = 0;
    if (!isdigit((unsigned char)text[0]) && text[0] != '.') /* no blanks, signs, inf, nan */
        goto out;
    v = strtod(text, &end);
    if (errno != 0 || *end != '\0' || !isfinite(v) || v < 0.0)
        goto out;
    *out = v;
    rc = 0;
out:
    return rc;
}

static int label_valid(const char *s)
{
    size_t n = strlen(s);
    int ok = n > 0 && n <= MAX_LABEL && s[0] != '#';

    for (size_t i = 0; i < n && ok; i++) {
        unsigned char ch = (unsigned char)s[i];
        ok = ch > ' ' && ch < 0x7f && ch != ',' && ch != '"' && ch != '\'';
    }
    return ok;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The option as the user spelled it, for messages. */
static const char *opt_text(char **argv, int index, char *buf, size_t len)
{
    const char *t = argv[index];

    if (optopt > 0 && optopt < UCHAR_MAX && (t == NULL || strncmp(t, "--", 2) != 0)) {
        snprintf(buf, len, "-%c", optopt);
        t = buf;
    }
    return t != NULL ? t : "?";
}

/* The numeric options: range, field, and what a valid value is. */
struct num_option {
    int opt;
    long lo, hi;       /* integers; doubles are any number >= 0 */
    bool is_double;
    size_t off;        /* offsetof(struct bench_opts, ...) */
    const char *valid; /* NULL: "an integer from LO to HI" */
};
static const struct num_option num_options[] = {
    { 'n', 1, MAX_REPS, false, offsetof(struct bench_opts, iterations), NULL },
    { 'w', 0, MAX_REPS, false, offsetof(struct bench_opts, warmup), NULL },
    { OPT_ROOT, 0, INT_MAX, false, offsetof(struct bench_opts, root), "a rank (an integer >= 0)" },
    { OPT_TIME_LIMIT, 0, 0, true, offsetof(struct bench_opts, time_limit),
      "a number of seconds >= 0" },
    { OPT_OUTLIER_K, 0, 0, true, offsetof(struct bench_opts, outlier_k), "a number >= 0" },
};

/* If opt is a numeric option: parse arg into its field, *rc = BENCH_EXIT_OK
 * or BENCH_EXIT_USAGE (err set), and return true; else false. */
static bool apply_number(int opt, const char *name, const char *arg, struct bench_opts *o,
                         int *rc, char *err, size_t errlen)
{
    for (size_t i = 0; i < ACCT_ARRAY_LEN(num_options); i++) {
        const struct num_option *n = &num_options[i];
        char *field = (char *)o + n->off;
        if (n->opt != opt)
            continue;
        int bad = n->is_double ? parse_nonneg(arg, (double *)(void *)field)
                               : parse_int(arg, n->lo, n->hi, (int *)(void *)field);
        *rc = BENCH_EXIT_OK;
        if (bad != 0 && n->valid != NULL)
            set_err(err, errlen, "%s: \"%s\" is not %s", name, arg, n->valid);
        else if (bad != 0)
            set_err(err, errlen, "%s: \"%s\" is not an integer from %ld to %ld", name, arg,
                    n->lo, n->hi);
        if (bad != 0)
            *rc = BENCH_EXIT_USAGE;
        return true;
    }
    return false;
}

/* Apply one option with argument arg. */
static int apply(int opt, const char *name, const char *arg, struct bench_opts *o,
                 char *err, size_t errlen)
{
    int rc = BENCH_EXIT_USAGE;
    char serr[BENCH_ERRLEN] = "";
    char names[NAMES_LEN];

    if (opt == OPT_OUTLIER_K)
        o->outlier_k_set = 1;
    if (apply_number(opt, name, arg, o, &rc, err, errlen))
        return rc;
    switch (opt) {
    case 'c':
        o->coll = bench_coll_find(arg);
        if (o->coll == NULL) {
            set_err(err, errlen, "%s: unknown collective \"%s\" (one of: %s)", name, arg,
                    coll_names(names, sizeof(names)));
            goto out;
        }
        break;
    case 'm':
    case OPT_COMM_SIZES: {
        struct acct_size_list *l = opt == 'm' ? &o->sizes : &o->comm_sizes;
        acct_size_list_free(l);
        if (acct_size_list_parse(arg, l, serr, sizeof(serr)) != ACCT_STATS_OK) {
            set_err(err, errlen, "%s: %s", name, serr);
            goto out;
        }
        break;
    }
    case OPT_FORMAT: {
        size_t f = 0;
        while (f < ACCT_ARRAY_LEN(format_names) && strcmp(format_names[f], arg) != 0)
            f++;
        if (f == ACCT_ARRAY_LEN(format_names)) {
            set_err(err, errlen, "%s: unknown format \"%s\" (one of: %s %s %s)", name, arg,
                    format_names[BENCH_FMT_TABLE], format_names[BENCH_FMT_TSV],
                    format_names[BENCH_FMT_CSV]);
            goto out;
        }
        o->format = (enum bench_format)f;
        break;
    }
    case 'o':
        if (arg[0] == '\0') {
            set_err(err, errlen, "%s: empty file name", name);
            goto out;
        }
        o->output = arg;
        o->output_format = ends_with(arg, CSV_SUFFIX) ? BENCH_FMT_CSV : BENCH_FMT_TSV;
        break;
    case OPT_LABEL:
        if (!label_valid(arg)) {
            set_err(err, errlen, "%s: \"%s\" is not a valid label (1 to %d printable "
                    "characters, no blank, comma or quote, not starting with #)",
                    name, arg, MAX_LABEL);
            goto out;
        }
        o->label = arg;
        break;
    case OPT_DATATYPE:
        o->dtype = bench_dtype_find(arg);
        if (o->dtype == NULL) {
            set_err(err, errlen, "%s: unknown datatype \"%s\" (one of: %s)", name, arg,
                    dtype_names(names, sizeof(names)));
            goto out;
        }
        break;
    case OPT_METHOD: {
        int m = kit_method_find(arg);
        if (m < 0) {
            set_err(err, errlen, "%s: unknown method \"%s\" (one of: %s %s %s)", name, arg,
                    kit_method_names[KIT_METHOD_ACCT], kit_method_names[KIT_METHOD_OSU],
                    kit_method_names[KIT_METHOD_IMB]);
            goto out;
        }
        o->method = (enum kit_method)m;
        break;
    }
    case 'h':
        o->help = 1;
        break;
    default:
        set_err(err, errlen, "%s: option not handled", name);
        goto out;
    }
    rc = BENCH_EXIT_OK;
out:
    return rc;
}

/* Cross-option checks once everything is read. */
static int validate(struct bench_opts *o, int world_size, char *err, size_t errlen)
{
    int rc = BENCH_EXIT_USAGE;
    uint64_t max_p = 0;
    uint64_t min_p = UINT64_MAX;

    if (o->coll == NULL) {
        set_err(err, errlen, "no collective given: use -c/--collective NAME (see --help)");
        goto out;
    }
    if (o->outlier_k_set && o->method != KIT_METHOD_ACCT) {
        set_err(err, errlen, "--outlier-k: method %s reports each rank's mean, there are no "
                "repetitions to drop (--outlier-k is for --method acct)",
                kit_method_names[o->method]);
        goto out;
    }
    if (o->comm_sizes.n == 0) {
        if (acct_size_list_parse("1", &o->comm_sizes, err, errlen) != ACCT_STATS_OK) {
            rc = BENCH_EXIT_FAIL;
            goto out;
        }
        o->comm_sizes.v[0] = (uint64_t)world_size;
    }
    for (size_t i = 0; i < o->comm_sizes.n; i++) {
        uint64_t k = o->comm_sizes.v[i];
        if (k > (uint64_t)world_size) {
            set_err(err, errlen, "--comm-sizes: %llu is larger than the number of ranks (%d)",
                    (unsigned long long)k, world_size);
            goto out;
        }
        max_p = k > max_p ? k : max_p;
        min_p = k < min_p ? k : min_p;
    }
    if (o->coll->rooted && (uint64_t)o->root >= min_p) {
        set_err(err, errlen, "--root: rank %d does not exist in a communicator of %llu rank%s",
                o->root, (unsigned long long)min_p, min_p == 1 ? "" : "s");
        goto out;
    }
    for (size_t i = 0; i < o->sizes.n && o->coll->has_data; i++) {
        uint64_t m = o->sizes.v[i];
        int ovf_s = 0, ovf_r = 0;
        if (m % o->dtype->size != 0) {
            set_err(err, errlen, "--sizes: %llu bytes is not a multiple of the %s datatype "
                    "(%zu bytes)", (unsigned long long)m, o->dtype->name, o->dtype->size);
            goto out;
        }
        if (m / o->dtype->size > INT_MAX || m > SIZE_MAX) {
            set_err(err, errlen, "--sizes: %llu bytes is %llu %s elements, more than an MPI "
                    "count can hold (%d)", (unsigned long long)m,
                    (unsigned long long)(m / o->dtype->size), o->dtype->name, INT_MAX);
            goto out;
        }
        bench_blocks_bytes(o->coll->send, (size_t)m, (int)max_p, 1, &ovf_s);
        bench_blocks_bytes(o->coll->recv, (size_t)m, (int)max_p, 1, &ovf_r);
        if (ovf_s || ovf_r) {
            set_err(err, errlen, "--sizes: %llu bytes times %llu ranks does not fit in memory",
                    (unsigned long long)m, (unsigned long long)max_p);
            goto out;
        }
    }
    rc = BENCH_EXIT_OK;
out:
    return rc;
}

int bench_opts_parse(int argc, char **argv, int world_size, struct bench_opts *o, char *err,
                     size_t errlen)
{
    int rc = BENCH_EXIT_USAGE;
    int opt = 0;
    char name[BENCH_ERRLEN];

    memset(o, 0, sizeof(*o));
    o->iterations = DEFAULT_ITERATIONS;
    o->warmup = DEFAULT_WARMUP;
    o->outlier_k = ACCT_STATS_OUTLIER_K;
    o->label = DEFAULT_LABEL;
    o->format = BENCH_FMT_TABLE;
    o->dtype = bench_dtype_find(DEFAULT_DTYPE);
    set_err(err, errlen, "internal error");

    opterr = 0; /* we report errors, from rank 0 only */
    optind = 1;
    while ((opt = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
        const char *text = opt_text(argv, optind - 1, name, sizeof(name));
        if (opt == '?') {
            set_err(err, errlen, "unknown option %s (see --help)", text);
            goto out;
        }
        if (opt == ':') {
            set_err(err, errlen, "option %s needs a value", text);
            goto out;
        }
        /* For messages, name the option by its long form. */
        const struct option *lo = long_opts;
        while (lo->name != NULL && lo->val != opt)
            lo++;
        snprintf(name, sizeof(name), "--%s", lo->name != NULL ? lo->name : "?");
        if (apply(opt, name, optarg, o, err, errlen) != BENCH_EXIT_OK)
            goto out;
    }
    if (optind < argc) {
        set_err(err, errlen, "unexpected argument \"%s\" (see --help)", argv[optind]);
        goto out;
    }
    if (o->help) {
        rc = BENCH_EXIT_OK;
        goto out;
    }
    if (o->sizes.n == 0 &&
        acct_size_list_parse(DEFAULT_SIZES, &o->sizes, err, errlen) != ACCT_STATS_OK) {
        rc = BENCH_EXIT_FAIL;
        goto out;
    }
    rc = validate(o, world_size, err, errlen);
out:
    return rc;
}

void bench_opts_free(struct bench_opts *o)
{
    acct_size_list_free(&o->sizes);
    acct_size_list_free(&o->comm_sizes);
}
