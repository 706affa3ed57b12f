/* acct-bench: internal interfaces between its files.
 *
 *   acct-bench.c  main(): set-up, the measurement loop, agreement between ranks
 *   options.c     command line (no MPI calls): parse and validate
 *   colls.c       the collectives: buffer shapes, the call, fill and check
 *   report.c      conditions header, table / TSV / CSV rows
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

#define BENCH_NAME "acct-bench"

/* Exit codes (identical on every rank). */
#define BENCH_EXIT_OK 0
#define BENCH_EXIT_FAIL 1  /* runtime failure: allocation, I/O, wrong result */
#define BENCH_EXIT_USAGE 2 /* bad command line */

/* Length of one error message. */
#define BENCH_ERRLEN 512

/* ---- datatypes ----------------------------------------------------------- */

enum bench_dtype_id {
    BENCH_DT_BYTE = 0,
    BENCH_DT_INT,
    BENCH_DT_DOUBLE,
};

struct bench_dtype {
    const char *name;
    enum bench_dtype_id id;
    size_t size; /* bytes per element */
};

/* Table ends with a {.name = NULL} sentinel. */
extern const struct bench_dtype bench_dtypes[];

const struct bench_dtype *bench_dtype_find(const char *name);
/* Datatype passed to data-movement collectives (MPI_BYTE for byte). */
MPI_Datatype bench_dtype_move(const struct bench_dtype *dt);
/* Datatype passed to reductions (MPI_UNSIGNED_CHAR for byte: MPI_SUM is not
 * defined on MPI_BYTE). */
MPI_Datatype bench_dtype_reduce(const struct bench_dtype *dt);

/* ---- collectives --------------------------------------------------------- */

/* Size of a buffer in units of the message size m on one rank. */
enum bench_blocks {
    BENCH_BLOCKS_NONE = 0,
    BENCH_BLOCKS_ONE,         /* m on every rank */
    BENCH_BLOCKS_ONE_AT_ROOT, /* m at the root, none elsewhere */
    BENCH_BLOCKS_P,           /* p * m on every rank */
    BENCH_BLOCKS_P_AT_ROOT,   /* p * m at the root, none elsewhere */
};

/* One prepared call: everything a collective needs for one message size. */
struct bench_call {
    MPI_Comm comm;
    int rank;
    int size;
    int root;
    int count; /* elements per block: m / datatype size */
    const struct bench_dtype *dtype;
    void *sbuf;
    void *rbuf;
};

struct bench_coll {
    const char *name;
    int rooted;        /* takes --root */
    int has_data;      /* 0 for barrier: no message size */
    const char *size_meaning; /* what the message size m is, for --help */
    enum bench_blocks send;
    enum bench_blocks recv;
    /* The timed call (MPI_*, so a PMPI interposer such as libacct sees it). */
    int (*run)(const struct bench_call *c);
    /* Put a known pattern in the send buffers and poison the receive buffers. */
    void (*fill)(const struct bench_call *c);
    /* 1 if this rank's result is the expected one. */
    int (*check)(const struct bench_call *c);
};

/* Table ends with a {.name = NULL} sentinel. */
extern const struct bench_coll bench_colls[];

const struct bench_coll *bench_coll_find(const char *name);

/* Bytes of a buffer of shape `blocks` on `rank` for message size m; 0 and
 * *overflow = 1 if it does not fit a size_t. */
size_t bench_blocks_bytes(enum bench_blocks blocks, size_t m, int p, int is_root,
                          int *overflow);

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
    struct acct_summary us; /* per-repetition times (max over ranks), microseconds */
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
 * of the first two columns, as in the rows). */
int bench_write_columns(FILE *f, enum bench_format fmt, const char *label,
                        const char *collective);
int bench_write_row(FILE *f, enum bench_format fmt, const struct bench_row *r);

#endif
