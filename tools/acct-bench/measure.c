/* One point of a benchmark, as docs/acct-bench.md ("Method") describes it:
 * check, warm-up, timed repetitions; a repetition's time is the maximum over
 * ranks. Shared by acct-bench and acct-tune (kit.h).
 *
 * Only the measured call goes through MPI_* (so a PMPI interposer such as
 * libacct.so sees it); the barriers, reductions and broadcasts around it
 * call PMPI_* so that the scaffolding is the native library's in every run. */
#include "kit.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define US_PER_S 1e6

double kit_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum kit_early kit_early_options(int argc, char **argv, const char *name,
                                 void (*usage)(FILE *f))
{
    static const char *const launched_by[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK" };

    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return KIT_EARLY_DONE;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("%s %s\n", name, ACCT_VERSION_STRING);
            return KIT_EARLY_DONE;
        }
    }
    for (size_t i = 0; i < sizeof(launched_by) / sizeof(launched_by[0]); i++)
        if (getenv(launched_by[i]) != NULL)
            return KIT_EARLY_RUN;
    fprintf(stderr, "%s: error: started without an MPI launcher; %s is an MPI program: "
            "start it with \"mpirun -np N %s ...\" or \"srun --mpi=pmix %s ...\" "
            "(see %s --help)\n", name, name, name, name, name);
    return KIT_EARLY_ALONE;
}

int kit_agree(int rc, char *err, size_t errlen, MPI_Comm comm)
{
    int rank = 0, bad = INT_MAX, first = INT_MAX;
    int out = 0;

    PMPI_Comm_rank(comm, &rank);
    if (rc != 0)
        bad = rank;
    PMPI_Allreduce(&bad, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first != INT_MAX) {
        out = rc;
        PMPI_Bcast(&out, 1, MPI_INT, first, comm);
        PMPI_Bcast(err, (int)errlen, MPI_CHAR, first, comm);
        err[errlen - 1] = '\0';
    }
    return out;
}

/* Do the buffers of all ranks of comm on this node fit in its memory? (The
 * buffers are touched before timing, so overcommitting would end in the OOM
 * killer rather than in a clean error.) Collective over comm. */
int kit_memory_fits(MPI_Comm comm, size_t need, char *err, size_t errlen)
{
    int rc = 0;
    int local = 0;
    MPI_Comm node = MPI_COMM_NULL;
    double mine = (double)need, total = 0.0; /* a sum that cannot overflow */
    double mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);

    PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    PMPI_Comm_size(node, &local);
    PMPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, node);
    PMPI_Comm_free(&node);
    if (mem > 0.0 && total >= mem) {
        rc = 1;
        snprintf(err, errlen, "the buffers of the %d ranks on this node need %.0f bytes, more "
                 "than its memory (%.0f bytes)", local, total, mem);
    }
    return rc;
}

/* Rank 0 decides whether the point's time is up and tells everyone. */
static int time_is_up(const struct bench_call *c, const struct kit_timing *t, double t_start)
{
    int up = 0;

    if (t->time_limit > 0.0) {
        if (c->rank == 0)
            up = kit_now() - t_start > t->time_limit;
        PMPI_Bcast(&up, 1, MPI_INT, 0, c->comm);
    }
    return up;
}

/* After n timed repetitions (at least t->iterations): one more? Only with
 * t->min_time, while rank 0's timed calls add up to less than it and the
 * arrays have room; rank 0 decides for everyone. */
static int want_more(const struct bench_call *c, const struct kit_timing *t, int n,
                     double timed)
{
    int more = 0;

    if (t->min_time <= 0.0 || n >= t->max_iterations)
        return 0;
    if (c->rank == 0)
        more = timed < t->min_time;
    PMPI_Bcast(&more, 1, MPI_INT, 0, c->comm);
    return more;
}

/* The lowest rank of comm whose flag is set, or INT_MAX. */
static int lowest_failing(int failed, MPI_Comm comm, int rank)
{
    int mine = failed ? rank : INT_MAX, first = INT_MAX;

    PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    return first;
}

/* Fill, one untimed call after a barrier, and every rank checks its result;
 * *bad_rank is the lowest failing rank (INT_MAX: none). *took (if not NULL)
 * gets this rank's time for the call, in seconds. */
static enum kit_status check_once(const struct bench_coll *coll, struct bench_call *c,
                                  double *took, int *bad_rank)
{
    int failed = 0;

    coll->fill(c);
    PMPI_Barrier(c->comm);
    double t0 = kit_now();
    failed = coll->run(c) != MPI_SUCCESS;
    if (took != NULL)
        *took = kit_now() - t0;
    failed = failed || !coll->check(c);
    *bad_rank = lowest_failing(failed, c->comm, c->rank);
    return *bad_rank == INT_MAX ? KIT_OK : KIT_WRONG_RESULT;
}

enum kit_status kit_measure(const struct bench_coll *coll, struct bench_call *c,
                            const struct kit_timing *t, double *times, double *max_us,
                            int *reps, int *bad_rank)
{
    enum kit_status st = KIT_OK;
    int failed = 0, n = 0;
    double t_start = kit_now();

    *reps = 0;
    if (check_once(coll, c, NULL, bad_rank) != KIT_OK) {
        st = KIT_WRONG_RESULT;
        goto out;
    }
    /* warm-up */
    for (int w = 0; w < t->warmup && !time_is_up(c, t, t_start); w++) {
        PMPI_Barrier(c->comm);
        failed |= coll->run(c) != MPI_SUCCESS;
    }
    /* timed repetitions: at least one; with min_time, more until they add up to it */
    double timed = 0.0;
    for (n = 0; (n < t->iterations || want_more(c, t, n, timed)) &&
                (n == 0 || !time_is_up(c, t, t_start));
         n++) {
        PMPI_Barrier(c->comm);
        double t0 = kit_now();
        int rc = coll->run(c);
        double t1 = kit_now();
        times[n] = t1 - t0;
        timed += times[n];
        failed |= rc != MPI_SUCCESS;
    }
    PMPI_Reduce(times, max_us, n, MPI_DOUBLE, MPI_MAX, 0, c->comm);
    *bad_rank = lowest_failing(failed, c->comm, c->rank);
    if (*bad_rank != INT_MAX) {
        st = KIT_CALL_FAILED;
        goto out;
    }
    if (c->rank == 0)
        for (int i = 0; i < n; i++)
            max_us[i] *= US_PER_S;
    *reps = n;
out:
    return st;
}

const char *const kit_method_names[KIT_METHODS] = {
    [KIT_METHOD_ACCT] = "acct",
    [KIT_METHOD_OSU] = "osu",
    [KIT_METHOD_IMB] = "imb",
};

int kit_method_find(const char *name)
{
    for (int i = 0; i < KIT_METHODS; i++)
        if (strcmp(kit_method_names[i], name) == 0)
            return i;
    return -1;
}

void kit_over_ranks(const double *v, int n, struct kit_over_ranks *out)
{
    double sum = 0.0;

    memset(out, 0, sizeof(*out));
    for (int i = 0; i < n; i++) {
        sum += v[i];
        out->min = i == 0 || v[i] < out->min ? v[i] : out->min;
        out->max = i == 0 || v[i] > out->max ? v[i] : out->max;
    }
    out->avg = n > 0 ? sum / n : 0.0;
}

/* OSU: each call timed alone, a barrier after it (outside the timers). */
static int osu_calls(const struct bench_coll *coll, struct bench_call *c,
                     const struct kit_timing *t, double t_start, double *mean, int *n)
{
    int failed = 0;
    double sum = 0.0;

    for (int w = 0; w < t->warmup && !time_is_up(c, t, t_start); w++) {
        failed |= coll->run(c) != MPI_SUCCESS;
        PMPI_Barrier(c->comm);
    }
    for (*n = 0; *n < t->iterations && (*n == 0 || !time_is_up(c, t, t_start)); (*n)++) {
        double t0 = kit_now();
        failed |= coll->run(c) != MPI_SUCCESS;
        sum += kit_now() - t0;
        PMPI_Barrier(c->comm);
    }
    *mean = sum / *n;
    return failed;
}

/* IMB: one barrier, then the calls back to back between two clock readings.
 * With a time limit, rank 0 caps the count from the slowest rank's checked
 * call (one_call, seconds): the clock cannot be looked at between calls. */
static int imb_calls(const struct bench_coll *coll, struct bench_call *c,
                     const struct kit_timing *t, double t_start, double one_call,
                     double *mean, int *n)
{
    int failed = 0;
    double slowest = 0.0;

    for (int w = 0; w < t->warmup && !time_is_up(c, t, t_start); w++)
        failed |= coll->run(c) != MPI_SUCCESS;
    *n = t->iterations;
    PMPI_Reduce(&one_call, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, c->comm);
    if (t->time_limit > 0.0 && c->rank == 0) {
        double left = t->time_limit - (kit_now() - t_start);
        double fit = slowest > 0.0 ? left / slowest : (double)t->iterations;
        *n = fit < 1.0 ? 1 : fit < (double)t->iterations ? (int)fit : t->iterations;
    }
    PMPI_Bcast(n, 1, MPI_INT, 0, c->comm);
    PMPI_Barrier(c->comm);
    double t0 = kit_now();
    for (int i = 0; i < *n; i++)
        failed |= coll->run(c) != MPI_SUCCESS;
    *mean = (kit_now() - t0) / *n;
    return failed;
}

enum kit_status kit_measure_rankwise(const struct bench_coll *coll, struct bench_call *c,
                                     const struct kit_timing *t, enum kit_method m,
                                     double *per_rank, int *reps, int *bad_rank)
{
    enum kit_status st = KIT_OK;
    int failed = 0, n = 0;
    double t_start = kit_now(), one_call = 0.0, mean = 0.0;

    *reps = 0;
    if (check_once(coll, c, &one_call, bad_rank) != KIT_OK) {
        st = KIT_WRONG_RESULT;
        goto out;
    }
    failed = m == KIT_METHOD_IMB ? imb_calls(coll, c, t, t_start, one_call, &mean, &n)
                                 : osu_calls(coll, c, t, t_start, &mean, &n);
    mean *= US_PER_S;
    PMPI_Gather(&mean, 1, MPI_DOUBLE, per_rank, 1, MPI_DOUBLE, 0, c->comm);
    *bad_rank = lowest_failing(failed, c->comm, c->rank);
    if (*bad_rank != INT_MAX) {
        st = KIT_CALL_FAILED;
        goto out;
    }
    *reps = n;
out:
    return st;
}
