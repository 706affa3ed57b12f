/* acct-bench: benchmark one MPI collective over message sizes and
 * communicator sizes. The method and the output are described in
 * docs/acct-bench.md; in short, per point (communicator size, message size):
 *
 *   check      fill known data, call once (untimed), check every rank's result
 *   warm-up    w untimed calls, each after a barrier
 *   measure    n calls, each after a barrier, timed per rank with
 *              CLOCK_MONOTONIC; a repetition's time is the max over ranks
 *              (one reduction at the end); --time-limit stops early, decided
 *              by rank 0 (kit_measure, measure.c, shared with acct-tune)
 *   summarise  rank 0: median, quartiles, min, max, mean after dropping
 *              repetitions above Q3 + k*IQR (libacct/core/stats.c)
 *
 * --method osu / imb time the point as the OSU Micro-Benchmarks and the Intel
 * MPI Benchmarks do (kit_measure_rankwise): each rank's mean time, reported
 * as avg, min and max over the ranks (kit_over_ranks).
 *
 * The measured call goes through MPI_* (so libacct, when preloaded, sees it);
 * every helper collective — barriers, reductions of times and verdicts, the
 * time-limit broadcast — calls PMPI_* directly, so the scaffolding is the
 * native library's in every run and a comparison measures only the collective
 * under test. */
#include "bench.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acct/common.h"

#define BUF_ALIGN 64

/* Everything one communicator size needs; buffers sized for the largest
 * message. */
struct bench_ctx {
    const struct bench_opts *o;
    struct bench_call call;
    double *times;    /* this rank's time per repetition, seconds */
    double *maxtimes; /* rank 0: max over ranks per repetition (acct), or each rank's
                         mean time (osu, imb) */
    FILE *table;      /* rank 0: stdout */
    FILE *file;       /* rank 0: --output, or NULL */
};

static void *buf_alloc(size_t bytes, int *ok)
{
    void *p = NULL;

    if (bytes > 0) {
        if (posix_memalign(&p, BUF_ALIGN, bytes) == 0)
            memset(p, 0, bytes); /* fault the pages in before anything is timed */
        else
            p = NULL;
        *ok = *ok && p != NULL;
    }
    return p;
}

static int write_row(struct bench_ctx *x, const struct bench_row *row)
{
    int rc = bench_write_row(x->table, x->o->format, row);

    if (rc == BENCH_EXIT_OK && x->file != NULL)
        rc = bench_write_row(x->file, x->o->output_format, row);
    return rc;
}

/* Measure one point with message size m (bytes). */
static int bench_point(struct bench_ctx *x, uint64_t m, char *err, size_t errlen)
{
    const struct bench_opts *o = x->o;
    struct bench_call *c = &x->call;
    int rc = BENCH_EXIT_OK;
    int reps = 0, bad = 0;
    enum kit_status st = KIT_OK;
    struct kit_timing t = { .warmup = o->warmup, .iterations = o->iterations,
                            .time_limit = o->time_limit };
    struct bench_row row = { .label = o->label, .collective = o->coll->name,
                             .comm_size = c->size, .bytes = m, .method = o->method };

    c->count = (int)(m / o->dtype->size);
    if (o->method == KIT_METHOD_ACCT)
        st = kit_measure(o->coll, c, &t, x->times, x->maxtimes, &reps, &bad);
    else
        st = kit_measure_rankwise(o->coll, c, &t, o->method, x->maxtimes, &reps, &bad);
    if (st == KIT_WRONG_RESULT) {
        rc = BENCH_EXIT_FAIL;
        snprintf(err, errlen, "%s of %llu bytes on %d ranks (datatype %s, root %d): wrong "
                 "result on rank %d", o->coll->name, (unsigned long long)m, c->size,
                 o->dtype->name, c->root, bad);
    } else if (st == KIT_CALL_FAILED) {
        rc = BENCH_EXIT_FAIL;
        snprintf(err, errlen, "%s of %llu bytes on %d ranks failed on rank %d", o->coll->name,
                 (unsigned long long)m, c->size, bad);
    }
    if (rc != BENCH_EXIT_OK)
        goto out;

    /* summarise and report */
    if (c->rank == 0) {
        int stats_rc = ACCT_STATS_OK;
        row.iterations = reps;
        if (o->method == KIT_METHOD_ACCT)
            stats_rc = acct_stats_summarize(x->maxtimes, (size_t)reps, o->outlier_k, &row.us);
        else
            kit_over_ranks(x->maxtimes, c->size, &row.ranks);
        if (stats_rc != ACCT_STATS_OK) {
            rc = BENCH_EXIT_FAIL;
            snprintf(err, errlen, "cannot summarise the times of %s of %llu bytes: %s",
                     o->coll->name, (unsigned long long)m, acct_stats_strerror(stats_rc));
        } else if (write_row(x, &row) != BENCH_EXIT_OK) {
            rc = BENCH_EXIT_FAIL;
            snprintf(err, errlen, "cannot write the results: %s", strerror(errno));
        }
    }
    rc = kit_agree(rc, err, errlen, c->comm);
out:
    return rc;
}

/* All message sizes on one communicator. */
static int bench_comm(struct bench_ctx *x, MPI_Comm comm, char *err, size_t errlen)
{
    const struct bench_opts *o = x->o;
    const struct bench_coll *coll = o->coll;
    struct bench_call *c = &x->call;
    int rc = BENCH_EXIT_FAIL;
    int ok = 1, ovf_s = 0, ovf_r = 0;
    uint64_t max_m = 0;
    size_t sbytes = 0, rbytes = 0;
    static const uint64_t no_data[] = { 0 };
    const uint64_t *sizes = coll->has_data ? o->sizes.v : no_data;
    size_t nsizes = coll->has_data ? o->sizes.n : ACCT_ARRAY_LEN(no_data);

    memset(c, 0, sizeof(*c));
    c->comm = comm;
    c->root = coll->rooted ? o->root : 0;
    c->dtype = o->dtype;
    PMPI_Comm_rank(comm, &c->rank);
    PMPI_Comm_size(comm, &c->size);
    for (size_t i = 0; i < nsizes; i++)
        max_m = sizes[i] > max_m ? sizes[i] : max_m;
    /* options.c checked that these fit a size_t */
    sbytes = bench_blocks_bytes(coll->send, (size_t)max_m, c->size, c->rank == c->root, &ovf_s);
    rbytes = bench_blocks_bytes(coll->recv, (size_t)max_m, c->size, c->rank == c->root, &ovf_r);
    rc = kit_memory_fits(comm, ovf_s || ovf_r || sbytes > SIZE_MAX - rbytes ? SIZE_MAX
                                                                       : sbytes + rbytes,
                     err, errlen);
    rc = kit_agree(rc, err, errlen, comm);
    if (rc != BENCH_EXIT_OK)
        goto out;
    c->sbuf = buf_alloc(sbytes, &ok);
    c->rbuf = buf_alloc(rbytes, &ok);
    x->times = malloc((size_t)o->iterations * sizeof(*x->times));
    /* acct: a time per repetition; osu, imb: a time per rank */
    size_t nmax = (size_t)(o->iterations > c->size ? o->iterations : c->size);
    x->maxtimes = c->rank == 0 ? malloc(nmax * sizeof(*x->maxtimes)) : NULL;
    ok = ok && !ovf_s && !ovf_r && x->times != NULL && (c->rank != 0 || x->maxtimes != NULL);
    rc = ok ? BENCH_EXIT_OK : BENCH_EXIT_FAIL;
    if (!ok)
        snprintf(err, errlen, "cannot allocate %zu + %zu bytes for %s of %llu bytes on %d "
                 "ranks (rank %d)", sbytes, rbytes, coll->name, (unsigned long long)max_m,
                 c->size, c->rank);
    rc = kit_agree(rc, err, errlen, comm);
    for (size_t i = 0; i < nsizes && rc == BENCH_EXIT_OK; i++)
        rc = bench_point(x, sizes[i], err, errlen);
out:
    free(c->sbuf);
    free(c->rbuf);
    free(x->times);
    free(x->maxtimes);
    c->sbuf = c->rbuf = NULL;
    x->times = x->maxtimes = NULL;
    return rc;
}

/* Every requested communicator size: the first k world ranks measure, the
 * others wait for them in the agreement at the end. */
static int bench_all(struct bench_ctx *x, char *err, size_t errlen)
{
    int rc = BENCH_EXIT_OK;
    int wrank = 0;

    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    for (size_t i = 0; i < x->o->comm_sizes.n && rc == BENCH_EXIT_OK; i++) {
        MPI_Comm comm = MPI_COMM_NULL;
        int k = (int)x->o->comm_sizes.v[i];
        int color = wrank < k ? 0 : MPI_UNDEFINED;

        /* MPI_ (not PMPI_): libacct may set up per-communicator state here. */
        if (MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &comm) != MPI_SUCCESS) {
            rc = BENCH_EXIT_FAIL;
            snprintf(err, errlen, "MPI_Comm_split for %d ranks failed", k);
        } else if (comm != MPI_COMM_NULL) {
            rc = bench_comm(x, comm, err, errlen);
            MPI_Comm_free(&comm);
        }
        rc = kit_agree(rc, err, errlen, MPI_COMM_WORLD);
    }
    return rc;
}

/* Rank 0 opens --output; everyone learns whether it worked. */
static int open_output(const struct bench_opts *o, int rank, FILE **file, char *err,
                       size_t errlen)
{
    int rc = BENCH_EXIT_OK;

    *file = NULL;
    if (rank == 0 && o->output != NULL) {
        *file = fopen(o->output, "w");
        if (*file == NULL) {
            rc = BENCH_EXIT_FAIL;
            snprintf(err, errlen, "--output: cannot open \"%s\": %s", o->output,
                     strerror(errno));
        }
    }
    return kit_agree(rc, err, errlen, MPI_COMM_WORLD);
}

/* Rank 0 closes --output (a full disk shows here); everyone learns the verdict. */
static int close_output(FILE **file, const char *name, char *err, size_t errlen)
{
    int rc = BENCH_EXIT_OK;

    if (*file != NULL && fclose(*file) != 0) {
        rc = BENCH_EXIT_FAIL;
        snprintf(err, errlen, "--output: cannot write \"%s\": %s", name, strerror(errno));
    }
    *file = NULL;
    return kit_agree(rc, err, errlen, MPI_COMM_WORLD);
}

/* Rank 0 writes the conditions and the column names. */
static int write_headers(const struct bench_ctx *x, const struct bench_conditions *cond,
                         int rank, char *err, size_t errlen)
{
    int rc = BENCH_EXIT_OK;
    const struct bench_opts *o = x->o;

    if (rank == 0) {
        rc = bench_write_header(x->table, cond);
        if (rc == BENCH_EXIT_OK)
            rc = bench_write_columns(x->table, o->format, o->method, o->label, o->coll->name);
        if (rc == BENCH_EXIT_OK && x->file != NULL)
            rc = bench_write_header(x->file, cond);
        if (rc == BENCH_EXIT_OK && x->file != NULL)
            rc = bench_write_columns(x->file, o->output_format, o->method, o->label,
                                     o->coll->name);
        if (rc != BENCH_EXIT_OK)
            snprintf(err, errlen, "cannot write the output");
    }
    return kit_agree(rc, err, errlen, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rc = BENCH_EXIT_FAIL;
    int mpi_up = 0, rank = 0, size = 0;
    char err[BENCH_ERRLEN] = "";
    struct bench_opts opts;
    struct bench_conditions *cond = NULL;
    struct bench_ctx x;

    memset(&opts, 0, sizeof(opts));
    memset(&x, 0, sizeof(x));
    switch (kit_early_options(argc, argv, BENCH_NAME, bench_usage)) {
    case KIT_EARLY_DONE: return BENCH_EXIT_OK;
    case KIT_EARLY_ALONE: return BENCH_EXIT_USAGE;
    case KIT_EARLY_RUN: break;
    }
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        snprintf(err, sizeof(err), "MPI_Init failed");
        goto out;
    }
    mpi_up = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);

    rc = bench_opts_parse(argc, argv, size, &opts, err, sizeof(err));
    rc = kit_agree(rc, err, sizeof(err), MPI_COMM_WORLD);
    if (rc != BENCH_EXIT_OK || opts.help)
        goto out;
    x.o = &opts;
    x.table = stdout;
    rc = open_output(&opts, rank, &x.file, err, sizeof(err));
    if (rc != BENCH_EXIT_OK)
        goto out;
    rc = bench_conditions_gather(argc, argv, &opts, &cond);
    if (rc != BENCH_EXIT_OK) {
        snprintf(err, sizeof(err), "cannot gather the run's conditions (out of memory)");
        goto out;
    }
    rc = write_headers(&x, cond, rank, err, sizeof(err));
    if (rc != BENCH_EXIT_OK)
        goto out;
    rc = bench_all(&x, err, sizeof(err));
    if (rc == BENCH_EXIT_OK)
        rc = close_output(&x.file, opts.output, err, sizeof(err));
out:
    if (rank == 0 && rc != BENCH_EXIT_OK)
        fprintf(stderr, BENCH_NAME ": error: %s\n", err);
    if (rank == 0 && rc == BENCH_EXIT_OK && opts.help)
        bench_usage(stdout);
    if (x.file != NULL)
        fclose(x.file); /* after a failure: the failure is what is reported */
    bench_conditions_free(cond);
    bench_opts_free(&opts);
    if (mpi_up)
        MPI_Finalize();
    return rc;
}
