/* The MPI collectives that libacct intercepts — listed once.
 *
 * X(Name, lower, params, args): Name is the MPI suffix (MPI_<Name>), lower the
 * collective's name in ACCT (rules files, reports, ACCT_FORCE), params the
 * exact prototype from the MPI standard (must match mpi.h), args the call.
 * The loader's exported wrappers, the table of native PMPI entry points and
 * the runtime's implementations are all generated from this list, so adding
 * a collective is one line here plus its runtime implementation. */
#ifndef ACCT_MPI_WRAP_H
#define ACCT_MPI_WRAP_H

#include <mpi.h>

#include "acct/coll.h"

#define ACCT_WRAPPED_COLLECTIVES(X)                                                          \
    X(Barrier, barrier, (MPI_Comm comm), (comm))                                             \
    X(Bcast, bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm), \
      (buffer, count, datatype, root, comm))                                                 \
    X(Reduce, reduce,                                                                        \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,      \
       int root, MPI_Comm comm),                                                             \
      (sendbuf, recvbuf, count, datatype, op, root, comm))                                   \
    X(Allreduce, allreduce,                                                                  \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,      \
       MPI_Comm comm),                                                                       \
      (sendbuf, recvbuf, count, datatype, op, comm))                                         \
    X(Gather, gather,                                                                        \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,             \
       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),                       \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))              \
    X(Scatter, scatter,                                                                      \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,             \
       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),                       \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))              \
    X(Allgather, allgather,                                                                  \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,             \
       int recvcount, MPI_Datatype recvtype, MPI_Comm comm),                                 \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))                    \
    X(Alltoall, alltoall,                                                                    \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,             \
       int recvcount, MPI_Datatype recvtype, MPI_Comm comm),                                 \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))                    \
    X(Reduce_scatter_block, reduce_scatter_block,                                            \
      (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,  \
       MPI_Comm comm),                                                                       \
      (sendbuf, recvbuf, recvcount, datatype, op, comm))

/* Every wrapped collective has an id in acct/coll.h (ACCT_COLL_<lower>):
 * a name missing there is a compile error wherever the list is expanded. */

/* One function pointer per collective, same prototypes as MPI. */
struct acct_coll_fns {
#define ACCT_X_FIELD(Name, lower, params, args) int(*Name) params;
    ACCT_WRAPPED_COLLECTIVES(ACCT_X_FIELD)
#undef ACCT_X_FIELD
};

/* The native entry points of the MPI library (PMPI_*), found at run time. */
struct acct_native_fns {
    int (*Init)(int *argc, char ***argv);
    int (*Init_thread)(int *argc, char ***argv, int required, int *provided);
    int (*Finalize)(void);
    struct acct_coll_fns coll;
};

#endif
