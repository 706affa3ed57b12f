/* libacct_rt.so — the MPI side of libacct.
 *
 * Opened by the loader (libacct.so) after PMPI_Init, only in processes that
 * use the MPI library this file is linked against. It must call PMPI_*
 * only: an MPI_* call from here would re-enter the loader's wrappers
 * (a test checks that no MPI_* symbol is imported).
 *
 * Each collective is decided, run and accounted by coll.c: an ACCT
 * algorithm's schedule over PMPI point-to-point, or the native collective. */
#include "rt.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acct/common.h"
#include "acct/log.h"
#include "acct/rt_abi.h"
#include "coll.h"
#include "comm.h"
#include "decide.h"
#include "samples.h"

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

uint64_t rt_account_begin(void)
{
    return rt.timing || (rt_samples_on && rt_samples_tick()) ? now_ns() : 0; /* report, samples */
}

uint64_t rt_account_end(int alg_index, uint64_t t0)
{
    uint64_t ns = t0 != 0 ? now_ns() - t0 : 0;
    if (alg_index < 0 || alg_index >= RT_MAX_ALGS)
        return ns;
    atomic_fetch_add_explicit(&rt.alg[alg_index].calls, 1, memory_order_relaxed);
    if (t0 != 0)
        atomic_fetch_add_explicit(&rt.alg[alg_index].nanoseconds, ns, memory_order_relaxed);
    return ns;
}

/* The detail table: open addressing, linear probing (report mode only). */
static struct rt_detail details[RT_DETAIL_SLOTS];
static size_t ndetails;
static uint64_t details_dropped;
static pthread_mutex_t details_lock = PTHREAD_MUTEX_INITIALIZER;

static void details_reset(void)
{
    for (size_t i = 0; i < RT_DETAIL_SLOTS; i++)
        details[i] = (struct rt_detail){.alg = -1};
    ndetails = 0;
    details_dropped = 0;
}

void rt_account_detail(int alg_index, uint64_t segment, int comm_size, uint64_t ns)
{
    uint64_t h = ((uint64_t)(unsigned)alg_index * 0x9E3779B97F4A7C15ull) ^
                 (segment * 0xC2B2AE3D27D4EB4Full) ^ ((uint64_t)(unsigned)comm_size << 17);
    h ^= h >> 29;
    pthread_mutex_lock(&details_lock);
    for (size_t probe = 0; probe < RT_DETAIL_SLOTS; probe++) {
        struct rt_detail *d = &details[(h + probe) % RT_DETAIL_SLOTS];
        if (d->alg == -1) {
            if (ndetails >= RT_DETAIL_SLOTS * 3 / 4)
                break; /* keep probes short: count it as dropped */
            *d = (struct rt_detail){.alg = alg_index, .comm_size = comm_size, .segment = segment};
            ndetails++;
        }
        if (d->alg == alg_index && d->comm_size == comm_size && d->segment == segment) {
            d->calls++;
            d->nanoseconds += ns;
            pthread_mutex_unlock(&details_lock);
            return;
        }
    }
    details_dropped++;
    pthread_mutex_unlock(&details_lock);
}

static int cmp_detail(const void *pa, const void *pb)
{
    const struct rt_detail *a = pa, *b = pb;
    if (a->alg != b->alg)
        return a->alg == -1 ? 1 : b->alg == -1 ? -1 : (a->alg > b->alg) - (a->alg < b->alg);
    if (a->comm_size != b->comm_size)
        return (a->comm_size > b->comm_size) - (a->comm_size < b->comm_size);
    return (a->segment > b->segment) - (a->segment < b->segment);
}

size_t rt_account_details(const struct rt_detail **rows, uint64_t *dropped)
{
    /* called once, at MPI_Finalize, when no collective runs any more */
    qsort(details, RT_DETAIL_SLOTS, sizeof *details, cmp_detail);
    *rows = details;
    *dropped = details_dropped;
    return ndetails;
}

static void rt_pre_init(void)
{
    memset(&rt, 0, sizeof rt);
    details_reset();
    rt_agree_pre_init();
}

static int rt_init(const struct acct_rt_init_args *args)
{
    int rc = ACCT_RT_FAILED;
    const char *report = getenv("ACCT_REPORT");

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
    rt_agree_post_init(rt.world_rank, rt.world_size, &rt.agreed);
    if (!rt.agreed.active) {
        rt.inactive_why = rt.agreed.why;
        acct_info("ACCT is off for this job: %s", rt.inactive_why);
        rc = ACCT_RT_INACTIVE;
        goto out;
    }
    if (rt_comm_init(rt.thread_level) != MPI_SUCCESS) {
        /* the same MPI call on every rank: fails alike or not at all */
        acct_warn("cannot create the communicator attribute; running with the native collectives");
        rt.inactive_why = "MPI_Comm_create_keyval failed";
        rc = ACCT_RT_INACTIVE;
        goto out;
    }
    rt_decide_init(getenv("ACCT_RULES"), rt.agreed.rules, rt.agreed.rules_len, rt.agreed.force);
    rt_coll_init();
    rt_samples_init(rt.world_rank, rt.thread_level);
    rt.active = true;
    /* MPI_THREAD_MULTIPLE: MPI_COMM_WORLD's private duplicate now, while
     * MPI_Init_thread runs alone (comm.h) */
    rt_comm_created(MPI_COMM_WORLD);
    acct_debug("active: %d ranks, thread level %d", rt.world_size, rt.thread_level);
    rc = ACCT_RT_ACTIVE;
out:
    return rc;
}

static void rt_finalize(void)
{
    rt_samples_fini(); /* the last batch, never waiting */
    if (rt.active)
        rt_comm_fini();
    if (rt.report_path != NULL && rt.world_rank == 0)
        rt_report_write(rt.report_path);
    free(rt.report_path);
    rt.report_path = NULL;
    if (rt.active)
        rt_decide_fini();
    rt_agree_free(&rt.agreed);
}

static int rt_tool_force(const char *spec)
{
    return rt.active ? rt_decide_set_force(spec) : -1;
}

static const struct acct_rt_api rt_api = {
    .abi_version = ACCT_RT_ABI_VERSION,
    .struct_size = sizeof(struct acct_rt_api),
    .mpi_soname = ACCT_MPI_SONAME,
    .pre_init = rt_pre_init,
    .init = rt_init,
    .finalize = rt_finalize,
    .tool_force = rt_tool_force,
    .comm_created = rt_comm_created,
    .coll = {
#define ACCT_X_TABLE(Name, lower, params, args) .Name = rt_impl_##Name,
        ACCT_WRAPPED_COLLECTIVES(ACCT_X_TABLE)
#undef ACCT_X_TABLE
    },
};

ACCT_EXPORT const struct acct_rt_api *acct_rt_entry(void);

ACCT_EXPORT const struct acct_rt_api *acct_rt_entry(void)
{
    return &rt_api;
}
