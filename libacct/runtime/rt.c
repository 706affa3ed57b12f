/* libacct_rt.so — the MPI side of libacct.
 *
 * Opened by the loader (libacct.so) after PMPI_Init, only in processes that
 * use the MPI library this file is linked against. It must call PMPI_*
 * only: an MPI_* call from here would re-enter the loader's wrappers
 * (a test checks that no MPI_* symbol is imported).
 *
 * For now every collective passes through to the native implementation and
 * is accounted per collective; the algorithm repertoire and rules-driven
 * selection plug in behind the same entry points. */
#include "rt.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acct/common.h"
#include "acct/log.h"
#include "acct/rt_abi.h"

#ifndef ACCT_MPI_SONAME
#error "ACCT_MPI_SONAME must be set by CMake"
#endif

struct rt_state rt;

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t account_begin(void)
{
    return rt.timing ? now_ns() : 0;
}

static inline void account_end(enum acct_coll_id id, uint64_t t0)
{
    atomic_fetch_add_explicit(&rt.coll[id].calls, 1, memory_order_relaxed);
    if (t0 != 0)
        atomic_fetch_add_explicit(&rt.coll[id].nanoseconds, now_ns() - t0,
                                  memory_order_relaxed);
}

#define ACCT_X_IMPL(Name, lower, params, args)   \
    static int rt_##Name params                  \
    {                                            \
        uint64_t t0 = account_begin();           \
        int rc = PMPI_##Name args;               \
        account_end(ACCT_COLL_##lower, t0);      \
        return rc;                               \
    }
ACCT_WRAPPED_COLLECTIVES(ACCT_X_IMPL)
#undef ACCT_X_IMPL

static int rt_init(const struct acct_rt_init_args *args)
{
    int rc = -1;
    const char *report = getenv("ACCT_REPORT");

    memset(&rt, 0, sizeof rt);
    if (PMPI_Comm_rank(MPI_COMM_WORLD, &rt.world_rank) != MPI_SUCCESS ||
        PMPI_Comm_size(MPI_COMM_WORLD, &rt.world_size) != MPI_SUCCESS)
        goto out;
    acct_log_set_rank(rt.world_rank);
    rt.thread_level = args->thread_level;
    if (rt.thread_level < 0 && PMPI_Query_thread(&rt.thread_level) != MPI_SUCCESS)
        rt.thread_level = MPI_THREAD_SINGLE;
    if (report != NULL && *report != '\0') {
        rt.report_path = strdup(report);
        if (rt.report_path == NULL) {
            acct_warn("out of memory; running with the native collectives");
            goto out;
        }
        rt.timing = true;
    }
    acct_debug("active: %d ranks, thread level %d", rt.world_size, rt.thread_level);
    rc = 0;
out:
    return rc;
}

static void rt_finalize(void)
{
    if (rt.report_path != NULL && rt.world_rank == 0)
        rt_report_write(rt.report_path);
    free(rt.report_path);
    rt.report_path = NULL;
}

static const struct acct_rt_api rt_api = {
    .abi_version = ACCT_RT_ABI_VERSION,
    .struct_size = sizeof(struct acct_rt_api),
    .mpi_soname = ACCT_MPI_SONAME,
    .init = rt_init,
    .finalize = rt_finalize,
    .coll = {
#define ACCT_X_TABLE(Name, lower, params, args) .Name = rt_##Name,
        ACCT_WRAPPED_COLLECTIVES(ACCT_X_TABLE)
#undef ACCT_X_TABLE
    },
};

ACCT_EXPORT const struct acct_rt_api *acct_rt_entry(void);

ACCT_EXPORT const struct acct_rt_api *acct_rt_entry(void)
{
    return &rt_api;
}
