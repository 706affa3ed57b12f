/* libacct_rt.so — the MPI side of libacct.
 *
 * Opened by the loader (libacct.so) after PMPI_Init, only in processes that
 * use the MPI library this file is linked against. It must call PMPI_*
 * only: an MPI_* call from here would re-enter the loader's wrappers
 * (a test checks that no MPI_* symbol is imported).
 *
 * Each collective is decided and run by coll.c (an ACCT algorithm's
 * schedule over PMPI point-to-point, or the native collective) and
 * accounted by account.c; report.c writes the counts at MPI_Finalize. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "acct/common.h"
#include "acct/log.h"
#include "acct/mpi_wrap.h"
#include "acct/rt_abi.h"
#include "account.h"
#include "agree.h"
#include "coll.h"
#include "comm.h"
#include "locality.h"
#include "nb.h"
#include "decide.h"
#include "report.h"
#include "samples.h"

#ifndef ACCT_MPI_SONAME
#error "ACCT_MPI_SONAME must be set by CMake"
#endif

/* This process's runtime (one, written only at MPI_Init and MPI_Finalize). */
static struct rt_state {
    int world_rank;
    int world_size;
    int thread_level;
    bool active;              /* ACCT algorithms may run (the ranks agreed) */
    const char *inactive_why; /* static reason when !active */
    struct rt_agreed agreed;  /* rank 0's rules and ACCT_FORCE, on every rank */
    char *report_path;        /* ACCT_REPORT, owned */
} rt;

static void rt_pre_init(void)
{
    memset(&rt, 0, sizeof rt);
    rt_account_init(false);
    rt_nb_init(); /* whether this rank can run non-blocking collectives: agreed */
    rt_agree_pre_init(rt_nb_available());
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
        rt_account_init(true);
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
    rt_samples_init(rt.world_rank, rt.thread_level);
    rt_locality_init(rt.world_rank);
    rt.active = true;
    /* MPI_THREAD_MULTIPLE: MPI_COMM_WORLD's private duplicate now, while
     * MPI_Init_thread runs alone (comm.h) */
    rt_comm_created(MPI_COMM_WORLD);
    /* Non-blocking collectives run ACCT's methods only on a communicator
     * that already has its private duplicate (coll.c: a non-blocking call
     * never makes one): MPI_COMM_WORLD's now, every rank alike */
    rt_nb_agreed(rt.agreed.nonblocking);
    if (rt_nb_available())
        rt_comm_prepare(MPI_COMM_WORLD);
    acct_debug("active: %d ranks, thread level %d", rt.world_size, rt.thread_level);
    rc = ACCT_RT_ACTIVE;
out:
    return rc;
}

static void rt_finalize(void)
{
    rt_samples_fini(); /* the last batch, never waiting */
    if (rt.active) {
        rt_nb_fini();
        rt_comm_fini();
    }
    if (rt.report_path != NULL && rt.world_rank == 0) {
        struct rt_report_job job = {.active = rt.active, .inactive_why = rt.inactive_why,
                                    .world_size = rt.world_size, .thread_level = rt.thread_level};
        rt_report_write(rt.report_path, &job);
    }
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
        ACCT_WRAPPED_CALLS(ACCT_X_TABLE)
#undef ACCT_X_TABLE
    },
};

ACCT_EXPORT const struct acct_rt_api *acct_rt_entry(void);

ACCT_EXPORT const struct acct_rt_api *acct_rt_entry(void)
{
    return &rt_api;
}
