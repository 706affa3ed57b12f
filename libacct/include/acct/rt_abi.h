/* The contract between the preload loader (libacct.so, no MPI dependency)
 * and the runtime (libacct_rt.so, linked against one MPI library).
 *
 * The loader dlopen()s the runtime only inside a process that has already
 * mapped the MPI library the runtime was built for, looks up the single
 * exported symbol ACCT_RT_ENTRY and checks abi_version and struct_size. */
#ifndef ACCT_RT_ABI_H
#define ACCT_RT_ABI_H

#include <stddef.h>

#include "acct/mpi_wrap.h"

#define ACCT_RT_ABI_VERSION 1u
#define ACCT_RT_ENTRY "acct_rt_entry"
#define ACCT_RT_FILENAME "libacct_rt.so"

struct acct_rt_init_args {
    int thread_level; /* MPI_THREAD_* the MPI library provided */
};

struct acct_rt_api {
    unsigned abi_version;  /* ACCT_RT_ABI_VERSION */
    size_t struct_size;    /* sizeof(struct acct_rt_api) */
    const char *mpi_soname; /* the MPI library the runtime is linked against */
    /* After PMPI_Init succeeded. Returns 0 when ACCT is active and coll may
     * be used; non-zero (after at most one warning) to stay native. */
    int (*init)(const struct acct_rt_init_args *args);
    /* Before PMPI_Finalize; only called after a successful init. */
    void (*finalize)(void);
    struct acct_coll_fns coll;
};

typedef const struct acct_rt_api *(*acct_rt_entry_fn)(void);

#endif
