/* What the MPI test programs of tests/mpi/ share. */
#ifndef ACCT_MPI_TEST_H
#define ACCT_MPI_TEST_H

#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* malloc that aborts the job (exit 2) when out of memory. */
static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        int rank = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* MPI_Init_thread asking for MPI_THREAD_MULTIPLE; *rank and *size in
 * MPI_COMM_WORLD. False when the library provides less: rank 0 has printed
 * "NAME: SKIP|FAILED ..." (SKIP when the caller exits with 77) and MPI is
 * finalized. */
static inline bool init_thread_multiple(int *argc, char ***argv, const char *name, int status,
                                        int *rank, int *size)
{
    int provided;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    if (provided >= MPI_THREAD_MULTIPLE)
        return true;
    if (*rank == 0)
        printf("%s: %s the MPI library provides thread level %d, not MPI_THREAD_MULTIPLE\n", name,
               status == 77 ? "SKIP" : "FAILED", provided);
    MPI_Finalize();
    return false;
}

#endif
