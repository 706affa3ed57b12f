/* acct-bench: what the output says — the conditions of the run as '#' comment
 * lines, then one row per point as a table, TSV or CSV. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acct/common.h"

#define MAPS_PATH "/proc/self/maps"
#define LIBACCT_TAG "libacct"
#define MAX_HOSTS_SHOWN 16
#define MAX_ENV_SHOWN 128
#define MAX_LINE_SHOWN 1024
#define DATE_LEN 32
#define LOADAVG_N 3
#define PATHS_SHOWN 1024 /* libacct paths in the header */
#define MAPS_LINE 4352   /* PATH_MAX plus the address columns */
#define UNSET "(unset)"
#define US_DECIMALS_TABLE 2
#define US_DECIMALS_DATA 3
#define W_NUM 8   /* ranks, iterations, dropped */
#define W_BYTES 8
#define W_TIME 12

/* Environment variables recorded in the header (rank 0's values). */
static const char *const recorded_env[] = { "ACCT_FORCE", "ACCT_DISABLE" };

/* The names in the header row, in column order: method acct, and the
 * methods that report over ranks (osu, imb). */
static const char *const column_names[] = {
    "label", "collective", "comm_size", "bytes", "iterations", "dropped",
    "median_us", "p25_us", "p75_us", "min_us", "max_us", "mean_us",
};
static const char *const rank_column_names[] = {
    "label", "collective", "comm_size", "bytes", "iterations", "avg_us", "min_us", "max_us",
};

/* The "# method:" line of each method (after it: tick and check). */
static const char *const method_lines[KIT_METHODS] = {
    [KIT_METHOD_ACCT] = "acct: PMPI_Barrier before each repetition, CLOCK_MONOTONIC per rank, "
                        "repetition time = max over ranks",
    [KIT_METHOD_OSU] = "osu: each call timed alone on CLOCK_MONOTONIC, PMPI_Barrier after it "
                       "(untimed); each rank's mean over its calls; avg/min/max over ranks",
    [KIT_METHOD_IMB] = "imb: PMPI_Barrier, then the calls back to back between two "
                       "CLOCK_MONOTONIC readings; each rank's mean; t_avg/t_min/t_max over ranks",
};

struct bench_conditions {
    char *text; /* the '#' lines, built on rank 0 */
    size_t len;
};

/* Write s to f with control characters replaced, at most max bytes. */
static void put_clean(FILE *f, const char *s, size_t max)
{
    size_t i = 0;

    for (; s[i] != '\0' && i < max; i++) {
        unsigned char ch = (unsigned char)s[i];
        fputc(ch < ' ' || ch == 0x7f ? '?' : ch, f);
    }
    if (s[i] != '\0')
        fputs("...", f);
}

/* Does this process map a file whose name contains "libacct"? The distinct
 * paths of those files go to paths, comma-separated (cut to len). */
static int libacct_mapped(char *paths, size_t len)
{
    int found = 0;
    char line[MAPS_LINE];
    FILE *maps = fopen(MAPS_PATH, "r");

    paths[0] = '\0';
    while (maps != NULL && fgets(line, sizeof(line), maps) != NULL) {
        char *file = strchr(line, '/');
        if (file != NULL) {
            file[strcspn(file, "\n")] = '\0';
            const char *base = strrchr(file, '/') + 1;
            if (strstr(base, LIBACCT_TAG) != NULL && strstr(paths, file) == NULL) {
                size_t used = strlen(paths);
                snprintf(paths + used, len - used, "%s%s", found ? "," : "", file);
                found = 1;
            }
        }
    }
    if (maps != NULL)
        fclose(maps);
    return found;
}

/* Hosts, node count, ranks per node and layout from the processor names of
 * all ranks (names[r * stride]), in rank order (kit_topology). */
static int write_topology(FILE *f, const char *names, size_t stride, int nranks)
{
    int rc = BENCH_EXIT_FAIL;
    struct kit_topology t;

    if (kit_topology(names, stride, nranks, &t) != 0)
        goto out;
    fprintf(f, "# ranks=%d nodes=%d ranks_per_node=", nranks, t.nodes);
    if (t.rpn_min == t.rpn_max)
        fprintf(f, "%d", t.rpn_min);
    else
        fprintf(f, "%d-%d", t.rpn_min, t.rpn_max);
    fprintf(f, " layout=%s hosts=", kit_layout_name(t.layout));
    for (int h = 0; h < t.nodes && h < MAX_HOSTS_SHOWN; h++) {
        if (h > 0)
            fputc(',', f);
        put_clean(f, names + (size_t)t.first_rank[h] * stride, stride);
    }
    if (t.nodes > MAX_HOSTS_SHOWN)
        fprintf(f, ",...(+%d)", t.nodes - MAX_HOSTS_SHOWN);
    fputc('\n', f);
    rc = BENCH_EXIT_OK;
    kit_topology_free(&t);
out:
    return rc;
}

static void write_settings(FILE *f, int argc, char **argv, const struct bench_opts *o)
{
    fputs("# command:", f);
    for (int i = 0; i < argc; i++) {
        fputc(' ', f);
        put_clean(f, argv[i], MAX_LINE_SHOWN);
    }
    fprintf(f, "\n# " BENCH_NAME " " ACCT_VERSION_STRING " collective=%s datatype=%s",
            o->coll->name, o->dtype->name);
    if (o->coll->rooted)
        fprintf(f, " root=%d", o->root);
    fprintf(f, " iterations=%d warmup=%d time_limit=%g", o->iterations, o->warmup,
            o->time_limit);
    if (o->method != KIT_METHOD_ACCT)
        fputs(" outliers=none", f);
    else if (o->outlier_k > 0.0)
        fprintf(f, " outliers=drop_above_Q3+%g*IQR", o->outlier_k);
    else
        fputs(" outliers=kept", f);
    fprintf(f, " label=%s comm_sizes=", o->label);
    for (size_t i = 0; i < o->comm_sizes.n; i++)
        fprintf(f, "%s%llu", i > 0 ? "," : "", (unsigned long long)o->comm_sizes.v[i]);
    fputc('\n', f);
    struct timespec res = { 0, 0 };
    clock_getres(CLOCK_MONOTONIC, &res);
    fprintf(f, "# method: %s; tick=%g s; results checked once per point\n",
            method_lines[o->method], (double)res.tv_sec + (double)res.tv_nsec * 1e-9);
}

static void write_library(FILE *f, int libacct_ranks, int nranks, const char *libacct_path)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0, major = 0, minor = 0;
    char date[DATE_LEN] = "";
    time_t now = time(NULL);
    struct tm tm;
    double load[LOADAVG_N];

    if (MPI_Get_library_version(version, &len) == MPI_SUCCESS)
        version[strcspn(version, "\n")] = '\0';
    else
        snprintf(version, sizeof(version), "unknown");
    if (MPI_Get_version(&major, &minor) != MPI_SUCCESS)
        major = minor = 0;
    fputs("# mpi=", f);
    put_clean(f, version, MAX_LINE_SHOWN);
    fprintf(f, " (MPI %d.%d)\n", major, minor);

    if (gmtime_r(&now, &tm) == NULL || strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(date, sizeof(date), "unknown");
    fprintf(f, "# date=%s cpus=%ld", date, sysconf(_SC_NPROCESSORS_ONLN));
    if (getloadavg(load, LOADAVG_N) == LOADAVG_N)
        fprintf(f, " loadavg=%.2f,%.2f,%.2f", load[0], load[1], load[2]);
    fputs(" (rank 0's node, at start)\n# env", f);
    for (size_t i = 0; i < ACCT_ARRAY_LEN(recorded_env); i++) {
        const char *v = getenv(recorded_env[i]);
        fprintf(f, " %s=", recorded_env[i]);
        put_clean(f, v != NULL ? v : UNSET, MAX_ENV_SHOWN);
    }
    if (libacct_ranks == 0)
        fputs(" libacct=no", f);
    else if (libacct_ranks == nranks)
        fputs(" libacct=yes", f);
    else
        fprintf(f, " libacct=partial(%d/%d)", libacct_ranks, nranks);
    if (libacct_path[0] != '\0') {
        fputs(" libacct_paths=", f);
        put_clean(f, libacct_path, PATHS_SHOWN);
    }
    fputc('\n', f);
}

int bench_conditions_gather(int argc, char **argv, const struct bench_opts *o,
                            struct bench_conditions **out)
{
    int rc = BENCH_EXIT_FAIL;
    int rank = 0, nranks = 0, len = 0;
    int mapped = 0, mapped_sum = 0, alloc_ok = 1;
    char name[MPI_MAX_PROCESSOR_NAME];
    char path[PATHS_SHOWN];
    char *names = NULL;
    struct bench_conditions *c = NULL;
    FILE *f = NULL;

    *out = NULL;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &nranks);
    memset(name, 0, sizeof(name));
    if (MPI_Get_processor_name(name, &len) != MPI_SUCCESS)
        snprintf(name, sizeof(name), "unknown");
    name[sizeof(name) - 1] = '\0'; /* entries are compared as strings */
    mapped = libacct_mapped(path, sizeof(path));

    if (rank == 0) {
        names = malloc((size_t)nranks * sizeof(name));
        c = calloc(1, sizeof(*c));
        alloc_ok = names != NULL && c != NULL;
    }
    PMPI_Bcast(&alloc_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!alloc_ok)
        goto out;
    PMPI_Gather(name, (int)sizeof(name), MPI_CHAR, names, (int)sizeof(name), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    PMPI_Reduce(&mapped, &mapped_sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);

    rc = BENCH_EXIT_OK;
    if (rank == 0) {
        f = open_memstream(&c->text, &c->len);
        rc = f == NULL ? BENCH_EXIT_FAIL : BENCH_EXIT_OK;
        if (rc == BENCH_EXIT_OK) {
            write_settings(f, argc, argv, o);
            rc = write_topology(f, names, sizeof(name), nranks);
            write_library(f, mapped_sum, nranks, path);
        }
        if (f != NULL && (fclose(f) != 0 || c->text == NULL))
            rc = BENCH_EXIT_FAIL;
    }
out:
    PMPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(names);
    if (rc == BENCH_EXIT_OK)
        *out = c;
    else
        bench_conditions_free(c);
    return rc;
}

void bench_conditions_free(struct bench_conditions *c)
{
    if (c != NULL) {
        free(c->text);
        free(c);
    }
}

int bench_write_header(FILE *f, const struct bench_conditions *c)
{
    int ok = c != NULL && c->text != NULL && fputs(c->text, f) >= 0;
    return ok ? BENCH_EXIT_OK : BENCH_EXIT_FAIL;
}

static int label_width(const char *label)
{
    size_t w = strlen(column_names[0]);
    size_t n = strlen(label);
    return (int)(n > w ? n : w);
}

static int coll_width(const char *coll)
{
    size_t w = strlen(column_names[1]);
    size_t n = strlen(coll);
    return (int)(n > w ? n : w);
}

int bench_write_columns(FILE *f, enum bench_format fmt, enum kit_method m, const char *label,
                        const char *collective)
{
    int n = 0;
    const char *const *names = m == KIT_METHOD_ACCT ? column_names : rank_column_names;
    size_t nnames = m == KIT_METHOD_ACCT ? ACCT_ARRAY_LEN(column_names)
                                         : ACCT_ARRAY_LEN(rank_column_names);

    if (fmt == BENCH_FMT_TABLE && m != KIT_METHOD_ACCT) {
        n = fprintf(f, "%*s %*s %*s %*s %*s %*s %*s %*s\n", label_width(label), "label",
                    coll_width(collective), "collective", W_NUM, "ranks", W_BYTES, "size",
                    W_NUM, "iters", W_TIME, "avg[us]", W_TIME, "min[us]", W_TIME, "max[us]");
    } else if (fmt == BENCH_FMT_TABLE) {
        n = fprintf(f, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s\n",
                    label_width(label), "label", coll_width(collective), "collective",
                    W_NUM, "ranks", W_BYTES, "size", W_NUM, "iters", W_NUM, "dropped",
                    W_TIME, "median[us]", W_TIME, "p25[us]", W_TIME, "p75[us]",
                    W_TIME, "min[us]", W_TIME, "max[us]", W_TIME, "mean[us]");
    } else {
        char sep = fmt == BENCH_FMT_CSV ? ',' : '\t';
        for (size_t i = 0; i < nnames && n >= 0; i++)
            n = fprintf(f, "%s%c", names[i], i + 1 < nnames ? sep : '\n');
    }
    return n >= 0 && fflush(f) == 0 ? BENCH_EXIT_OK : BENCH_EXIT_FAIL;
}

int bench_write_row(FILE *f, enum bench_format fmt, const struct bench_row *r)
{
    int n = 0;
    const struct acct_summary *s = &r->us;
    const struct kit_over_ranks *g = &r->ranks;
    char size[ACCT_SIZE_FORMAT_LEN];

    if (r->method != KIT_METHOD_ACCT && fmt == BENCH_FMT_TABLE) {
        if (acct_size_format(r->bytes, size, sizeof(size)) != ACCT_STATS_OK)
            snprintf(size, sizeof(size), "?");
        n = fprintf(f, "%*s %*s %*d %*s %*d %*.*f %*.*f %*.*f\n", label_width(r->label),
                    r->label, coll_width(r->collective), r->collective, W_NUM, r->comm_size,
                    W_BYTES, size, W_NUM, r->iterations, W_TIME, US_DECIMALS_TABLE, g->avg,
                    W_TIME, US_DECIMALS_TABLE, g->min, W_TIME, US_DECIMALS_TABLE, g->max);
    } else if (r->method != KIT_METHOD_ACCT) {
        char sep = fmt == BENCH_FMT_CSV ? ',' : '\t';
        n = fprintf(f, "%s%c%s%c%d%c%llu%c%d%c%.*f%c%.*f%c%.*f\n", r->label, sep,
                    r->collective, sep, r->comm_size, sep, (unsigned long long)r->bytes, sep,
                    r->iterations, sep, US_DECIMALS_DATA, g->avg, sep, US_DECIMALS_DATA, g->min,
                    sep, US_DECIMALS_DATA, g->max);
    } else if (fmt == BENCH_FMT_TABLE) {
        if (acct_size_format(r->bytes, size, sizeof(size)) != ACCT_STATS_OK)
            snprintf(size, sizeof(size), "?");
        n = fprintf(f, "%*s %*s %*d %*s %*d %*zu %*.*f %*.*f %*.*f %*.*f %*.*f %*.*f\n",
                    label_width(r->label), r->label, coll_width(r->collective), r->collective,
                    W_NUM, r->comm_size, W_BYTES, size, W_NUM, r->iterations, W_NUM, s->dropped,
                    W_TIME, US_DECIMALS_TABLE, s->median, W_TIME, US_DECIMALS_TABLE, s->p25,
                    W_TIME, US_DECIMALS_TABLE, s->p75, W_TIME, US_DECIMALS_TABLE, s->min,
                    W_TIME, US_DECIMALS_TABLE, s->max, W_TIME, US_DECIMALS_TABLE, s->mean);
    } else {
        char sep = fmt == BENCH_FMT_CSV ? ',' : '\t';
        n = fprintf(f, "%s%c%s%c%d%c%llu%c%d%c%zu%c%.*f%c%.*f%c%.*f%c%.*f%c%.*f%c%.*f\n",
                    r->label, sep, r->collective, sep, r->comm_size, sep,
                    (unsigned long long)r->bytes, sep, r->iterations, sep, s->dropped, sep,
                    US_DECIMALS_DATA, s->median, sep, US_DECIMALS_DATA, s->p25, sep,
                    US_DECIMALS_DATA, s->p75, sep, US_DECIMALS_DATA, s->min, sep,
                    US_DECIMALS_DATA, s->max, sep, US_DECIMALS_DATA, s->mean);
    }
    return n >= 0 && fflush(f) == 0 ? BENCH_EXIT_OK : BENCH_EXIT_FAIL;
}
