/* The loader's state as the Fortran entry points (fortran.c) use it: the
 * steps of MPI_Init and MPI_Finalize, and where the collectives go. Private
 * to libacct.so (hidden symbols, like everything not marked ACCT_EXPORT). */
#ifndef ACCT_LOADER_H
#define ACCT_LOADER_H

#include "acct/mpi_wrap.h"

/* Finds the native C entry points; 0 once found (a failure is not cached). */
int acct_loader_resolve(void);

/* The handle the natives came from (RTLD_NEXT, or the MPI library's own
 * when it lives in a local dlopen scope); NULL before acct_loader_resolve
 * succeeded. */
void *acct_loader_mpi(void);

/* The handle to look up a library's symbols in: RTLD_NEXT when any of syms
 * (NULL terminated) is found there, else the first loaded object (load
 * order, never libacct.so) that defines one of them; NULL if none does. */
void *acct_loader_find(const char *const *syms);

/* The addresses sym has in the loaded objects (each object's own lookup,
 * so also a definition in a local dlopen scope), without repeats: up to
 * max into addr; returns how many. The main program is not among them:
 * dlsym(RTLD_DEFAULT) finds its definitions. */
int acct_loader_defined(const char *sym, void **addr, int max);

/* MPI_Init's steps around the native init: before it (open the runtime
 * unless ACCT is off), after it succeeded (the agreement; switch the
 * collectives to the runtime), and MPI_Finalize's before the native one. */
void acct_loader_prepare(void);
void acct_loader_activate(int thread_level);
void acct_loader_deactivate(void);

/* The runtime's collectives while ACCT runs them (from an activation that
 * agreed until MPI_Finalize), else NULL: the same entry points the C
 * wrappers' table points at then. */
const struct acct_coll_fns *acct_loader_routed(void);

#endif
