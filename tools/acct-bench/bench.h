/* acct-bench: internal interfaces between its files.
 *
 *   acct-bench.c  main(): set-up, the measurement loop, agreement between ranks
 *   options.c     command line (no MPI calls): parse and validate
 *   report.c      conditions header, table / TSV / CSV rows
 * and the kit shared with acct-tune (kit.h: colls.c, measure.c, topology.c).
 *
 * Rule: every decision that changes what a rank does next (stop, go on, fail)
 * is made identically on every rank — from the same command line, or by rank 0
 * and broadcast, or by a reduction — so a bad argument or a failure can never
 * leave some ranks waiting in a collective. */
#ifndef ACCT_BENCH_H
#define ACCT_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

#include "acct/stats.h"
#include "kit.h"

#define BENCH_NAME "acct-bench"

/* Exit codes (identical on every rank). */
#define BENCH_EXIT_OK 0
#define BENCH_EXIT_FAIL 1  /* runtime failure: allocation, I/O, wrong result */
#define BENCH_EXIT_USAGE 2 /* bad command line */

/* Length of one error message. */
#define BENCH_ERRLEN 512

/* ---- options ------------------------------------------------------------- */

enum bench_format {
    BENCH_FMT_TABLE = 0,
    BENCH_FMT_TSV,
    BENCH_FMT_CSV,
};

struct bench_opts {
    const struct bench_coll *coll;
    const struct bench_dtype *dtype;
    struct acct_size_list sizes;      /* message sizes in bytes */
    struct acct_size_list comm_sizes; /* communicator sizes */
    int iterations;
    int warmup;
    int root;
    double time_limit; /* seconds per point; 0 = none */
    double outlier_k;
    int outlier_k_set; /* --outlier-k given (acct method only) */
    enum kit_method method; /* --method: acct (default), osu, imb */
    enum bench_format format;
    const char *output; /* NULL: no file */
    enum bench_format output_format;
    const char *label;
    int help;
};

/* Parse and validate argv against the world size. Makes no MPI call and
 * prints nothing: on error returns BENCH_EXIT_USAGE with a message in err.
 * Deterministic, so every rank reaches the same verdict. */
int bench_opts_parse(int argc, char **argv, int world_size, struct bench_opts *o, char *err,
                     size_t errlen);
void bench_opts_free(struct bench_opts *o);
void bench_usage(FILE *f);

const char *bench_format_name(enum bench_format f);

/* ---- report -------------------------------------------------------------- */

/* One measured point, as rank 0 reports it. */
struct bench_row {
    const char *label;
    const char *collective;
    int comm_size;
    uint64_t bytes;
    int iterations; /* timed repetitions run */
    enum kit_method method;
    struct acct_summary us; /* acct: per-repetition times (max over ranks), microseconds */
    struct kit_over_ranks ranks; /* osu, imb: over the ranks' mean times, microseconds */
};

/* Conditions of the run, gathered once on the world communicator. Collective
 * over MPI_COMM_WORLD; only rank 0's copy is filled in. */
struct bench_conditions;
int bench_conditions_gather(int argc, char **argv, const struct bench_opts *o,
                            struct bench_conditions **out);
void bench_conditions_free(struct bench_conditions *c);

/* Write the '#' comment lines describing the run. */
int bench_write_header(FILE *f, const struct bench_conditions *c);
/* Column header row (table: with units; label and collective set the widths
 * of the first two columns, as in the rows). The method decides the time
 * columns: acct median_us … mean_us, osu and imb avg_us min_us max_us. */
int bench_write_columns(FILE *f, enum bench_format fmt, enum kit_method m, const char *label,
                        const char *collective);
int bench_write_row(FILE *f, enum bench_format fmt, const struct bench_row *r);

#endif
