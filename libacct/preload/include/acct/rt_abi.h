/* The contract between the preload loader (libacct.so, no MPI dependency)
 * and the runtime (libacct_rt.so, linked against one MPI library).
 *
 * The loader dlopen()s the runtime in MPI_Init, before PMPI_Init, only
 * inside a process that has already mapped the MPI library the runtime was
 * built for; it looks up the single exported symbol ACCT_RT_ENTRY, checks
 * abi_version and struct_size, calls pre_init, PMPI_Init, then init. */
#ifndef ACCT_RT_ABI_H
#define ACCT_RT_ABI_H

#include <stddef.h>

#include "acct/mpi_wrap.h"

#define ACCT_RT_ABI_VERSION 5u
#define ACCT_RT_ENTRY "acct_rt_entry"
#define ACCT_RT_FILENAME "libacct_rt.so"

enum { ACCT_RT_ACTIVE = 0, ACCT_RT_INACTIVE = 1, ACCT_RT_FAILED = -1 };

struct acct_rt_init_args {
    int thread_level; /* MPI_THREAD_* the MPI library provided */
};

struct acct_rt_api {
    unsigned abi_version;  /* ACCT_RT_ABI_VERSION */
    size_t struct_size;    /* sizeof(struct acct_rt_api) */
    const char *mpi_soname; /* the MPI library the runtime is linked against */
    /* Before PMPI_Init: publish this rank's ACCT state for the agreement
     * (see libacct/runtime/agree.h). Cannot fail the job. */
    void (*pre_init)(void);
    /* After PMPI_Init succeeded. Returns ACCT_RT_ACTIVE when coll may be
     * used, ACCT_RT_INACTIVE to stay native but still be finalized (the
     * report says why), ACCT_RT_FAILED to stay native without finalize. */
    int (*init)(const struct acct_rt_init_args *args);
    /* Before PMPI_Finalize, after init returned ACTIVE or INACTIVE. */
    void (*finalize)(void);
    /* The tool API (acct/tool.h), after init returned ACTIVE. */
    int (*tool_force)(const char *spec);
    /* After a wrapped constructor (acct/mpi_wrap.h) made newcomm, in the
     * caller's thread, after init returned ACTIVE. */
    void (*comm_created)(MPI_Comm newcomm);
    struct acct_coll_fns coll;
};

typedef const struct acct_rt_api *(*acct_rt_entry_fn)(void);

#endif
