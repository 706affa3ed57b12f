/* The measurement kit shared by acct-bench and acct-tune (library
 * acct_bench_kit): one definition of what each collective's message size
 * means and how it is called and checked, of how one point is timed, and of
 * how the rank layout is classified. docs/acct-bench.md describes the
 * method; both tools follow it.
 *
 *   colls.c     the collectives: buffer shapes, the call, fill and check
 *   measure.c   one point: check, warm-up, timed repetitions (max over ranks)
 *   topology.c  hosts, ranks per node and block/cyclic/mixed layout (pure) */
#ifndef ACCT_BENCH_KIT_H
#define ACCT_BENCH_KIT_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include <mpi.h>

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

/* ---- measuring one point -------------------------------------------------- */

/* How a point is timed. */
struct kit_timing {
    int warmup;        /* untimed calls, >= 0 */
    int iterations;    /* timed repetitions, >= 1 */
    double time_limit; /* seconds for the point on rank 0's clock; 0 = none */
    double min_time;   /* more repetitions (up to max_iterations) until rank 0's timed
                          calls add up to this many seconds; 0 = exactly iterations */
    int max_iterations; /* capacity of the times arrays when min_time > 0 (>= iterations) */
};

/* Outcome of kit_measure, the same on every rank of the communicator. */
enum kit_status {
    KIT_OK = 0,
    KIT_WRONG_RESULT, /* the check failed; *bad_rank is the lowest failing rank */
    KIT_CALL_FAILED,  /* a call returned an error; *bad_rank as above */
};

/* Agree on an outcome (0 = success): if any rank of comm failed, every
 * rank returns the code of the lowest failing rank and gets its message in
 * err (errlen bytes on every rank). Collective over comm (PMPI). */
int kit_agree(int rc, char *err, size_t errlen, MPI_Comm comm);

/* Do the buffers of all ranks of comm on this node (need bytes on this
 * rank) fit in its physical memory? Returns 0, or 1 with a message in err
 * (on the ranks of that node). Collective over comm. The buffers are
 * touched before timing, so overcommitting would end in the OOM killer
 * rather than in a clean error. */
int kit_memory_fits(MPI_Comm comm, size_t need, char *err, size_t errlen);

/* Seconds on CLOCK_MONOTONIC (each rank's own clock; only differences of
 * one rank's readings are used: MPI_Wtime's origin is per process in Open
 * MPI 4.1). */
/* ---- before MPI_Init -------------------------------------------------------- */

/* What a tool does before it starts MPI, so that it answers without a
 * launcher (and never hangs as a root singleton, which Open MPI refuses):
 *   --help / -h    usage(stdout), KIT_EARLY_DONE
 *   --version      "NAME VERSION", KIT_EARLY_DONE
 *   no launcher    a message on stderr naming how to start NAME, KIT_EARLY_ALONE
 *   otherwise      KIT_EARLY_RUN: start MPI.
 * Options are looked for up to a "--". Started by a launcher means
 * mpirun/orted (OMPI_COMM_WORLD_SIZE), a PMIx launcher such as
 * srun --mpi=pmix (PMIX_RANK), or a PMI one (PMI_RANK). */
enum kit_early { KIT_EARLY_RUN = 0, KIT_EARLY_DONE, KIT_EARLY_ALONE };
enum kit_early kit_early_options(int argc, char **argv, const char *name,
                                 void (*usage)(FILE *f));

double kit_now(void);

/* Measure coll on c->comm with c->count elements per block (buffers
 * allocated by the caller for that count): fill, one checked call, then
 * t->warmup untimed and up to t->iterations timed calls, each after a
 * PMPI_Barrier, each timed with kit_now() around the MPI_* call. The
 * time limit is decided by rank 0 and broadcast, so every rank runs the
 * same calls. times (t->iterations entries, every rank) gets this rank's
 * durations in seconds; max_us (t->iterations entries, rank 0 only; may be
 * NULL elsewhere) gets per repetition the maximum over ranks in
 * microseconds. *reps gets the number of timed repetitions (>= 1 when
 * KIT_OK). Collective over c->comm; the scaffolding calls PMPI_*. */
enum kit_status kit_measure(const struct bench_coll *coll, struct bench_call *c,
                            const struct kit_timing *t, double *times, double *max_us,
                            int *reps, int *bad_rank);

/* ---- the OSU and IMB timing methods (docs/acct-bench.md, "Methods") ------- */

/* How a point is timed: acct-bench's own method (kit_measure: a barrier
 * before each call, a repetition's time the maximum over ranks), or the
 * per-rank means of the OSU Micro-Benchmarks' collective latency tests or
 * of the Intel MPI Benchmarks' collectives (kit_measure_rankwise). */
enum kit_method { KIT_METHOD_ACCT = 0, KIT_METHOD_OSU, KIT_METHOD_IMB, KIT_METHODS };

/* "acct", "osu", "imb" (the words of --method). */
extern const char *const kit_method_names[KIT_METHODS];
/* The method named name, or -1. */
int kit_method_find(const char *name);

/* A figure over the ranks of a communicator: OSU's "Avg/Min/Max Latency",
 * IMB's t_avg, t_min, t_max. */
struct kit_over_ranks {
    double avg, min, max;
};

/* avg (mean), min and max of the n >= 1 per-rank values v (pure; n <= 0:
 * all zero). */
void kit_over_ranks(const double *v, int n, struct kit_over_ranks *out);

/* Measure coll on c->comm by method m (KIT_METHOD_OSU or KIT_METHOD_IMB):
 * the same check as kit_measure, then
 *   osu  t->warmup untimed and t->iterations timed calls, each followed by
 *        a PMPI_Barrier outside the timers; a rank's figure is the mean of
 *        its own timed calls;
 *   imb  t->warmup untimed calls, one PMPI_Barrier, then t->iterations
 *        calls back to back between two readings of the clock; a rank's
 *        figure is that time divided by the number of calls.
 * t->time_limit: osu stops adding calls as kit_measure does (rank 0
 * decides before each); imb cannot look at the clock between calls, so
 * rank 0 caps the number of calls from the slowest rank's checked call
 * (at least one), as IMB does with its time per sample. per_rank (rank 0,
 * c->size entries; may be NULL elsewhere) gets every rank's figure in
 * microseconds, in rank order; *reps the number of timed calls. Collective
 * over c->comm; the scaffolding calls PMPI_*. */
enum kit_status kit_measure_rankwise(const struct bench_coll *coll, struct bench_call *c,
                                     const struct kit_timing *t, enum kit_method m,
                                     double *per_rank, int *reps, int *bad_rank);

/* ---- layout ---------------------------------------------------------------- */

enum kit_layout {
    KIT_LAYOUT_BLOCK = 0, /* each node's ranks consecutive (also one node) */
    KIT_LAYOUT_CYCLIC,    /* round robin over the nodes */
    KIT_LAYOUT_MIXED,
};

struct kit_topology {
    int nranks, nodes;
    int rpn_min, rpn_max;   /* ranks per node */
    enum kit_layout layout;
    int *host_of;           /* per rank: node index, by first appearance */
    int *first_rank;        /* per node: its first rank (names[first_rank * stride]) */
};

/* Classify nranks processor names (names[r * stride], NUL-terminated within
 * stride bytes) in rank order. Pure. Returns 0, or -1 out of memory. */
int kit_topology(const char *names, size_t stride, int nranks, struct kit_topology *out);
void kit_topology_free(struct kit_topology *t);
const char *kit_layout_name(enum kit_layout l);

#endif
