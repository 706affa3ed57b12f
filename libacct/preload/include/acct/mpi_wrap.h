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
      (sendbuf, recvbuf, recvcount, datatype, op, comm))                                     \
    X(Allgatherv, allgatherv,                                                                \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,             \
       const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm),    \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))           \
    X(Reduce_scatter, reduce_scatter,                                                        \
      (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,    \
       MPI_Op op, MPI_Comm comm),                                                            \
      (sendbuf, recvbuf, recvcounts, datatype, op, comm))                                     \
    X(Gatherv, gatherv,                                                                      \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,             \
       const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,          \
       MPI_Comm comm),                                                                       \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm))     \
    X(Scatterv, scatterv,                                                                    \
      (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, \
       void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),        \
      (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm))     \
    X(Alltoallv, alltoallv,                                                                  \
      (const void *sendbuf, const int sendcounts[], const int sdispls[],                     \
       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],    \
       MPI_Datatype recvtype, MPI_Comm comm),                                                \
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm)) \
    X(Scan, scan,                                                                            \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,      \
       MPI_Comm comm),                                                                       \
      (sendbuf, recvbuf, count, datatype, op, comm))                                         \
    X(Exscan, exscan,                                                                        \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,      \
       MPI_Comm comm),                                                                       \
      (sendbuf, recvbuf, count, datatype, op, comm))

/* The non-blocking collectives that libacct intercepts — listed once.
 *
 * Same columns as ACCT_WRAPPED_COLLECTIVES; lower names the *blocking*
 * collective whose rules and algorithms apply (one decision path: an
 * MPI_Ibcast is decided exactly as an MPI_Bcast of the same shape), and the
 * last parameter is the request the call returns. While ACCT runs one, the
 * request is an MPI generalized request that the runtime completes when the
 * schedule is done (docs/runtime.md, "Non-blocking collectives"). */
#define ACCT_WRAPPED_NONBLOCKING(X)                                                          \
    X(Ibarrier, barrier, (MPI_Comm comm, MPI_Request *request), (comm, request))             \
    X(Ibcast, bcast,                                                                         \
      (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,              \
       MPI_Request *request),                                                                \
      (buffer, count, datatype, root, comm, request))                                        \
    X(Ireduce, reduce,                                                                       \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,      \
       int root, MPI_Comm comm, MPI_Request *request),                                       \
      (sendbuf, recvbuf, count, datatype, op, root, comm, request))                          \
    X(Iallreduce, allreduce,                                                                 \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,      \
       MPI_Comm comm, MPI_Request *request),                                                 \
      (sendbuf, recvbuf, count, datatype, op, comm, request))                                \
    X(Igather, gather,                                                                       \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,             \
       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request), \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request))     \
    X(Iscatter, scatter,                                                                     \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,             \
       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request), \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request))     \
    X(Iallgather, allgather,                                                                 \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,             \
       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request),           \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request))           \
    X(Ialltoall, alltoall,                                                                   \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,             \
       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request),           \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request))           \
    X(Ireduce_scatter_block, reduce_scatter_block,                                           \
      (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,  \
       MPI_Comm comm, MPI_Request *request),                                                 \
      (sendbuf, recvbuf, recvcount, datatype, op, comm, request))                            \
    X(Iallgatherv, allgatherv,                                                               \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,             \
       const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,     \
       MPI_Request *request),                                                                \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request))  \
    X(Ireduce_scatter, reduce_scatter,                                                       \
      (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,    \
       MPI_Op op, MPI_Comm comm, MPI_Request *request),                                      \
      (sendbuf, recvbuf, recvcounts, datatype, op, comm, request))                           \
    X(Igatherv, gatherv,                                                                     \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,             \
       const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,          \
       MPI_Comm comm, MPI_Request *request),                                                 \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,     \
       request))                                                                             \
    X(Iscatterv, scatterv,                                                                   \
      (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, \
       void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,         \
       MPI_Request *request),                                                                \
      (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,     \
       request))                                                                             \
    X(Ialltoallv, alltoallv,                                                                 \
      (const void *sendbuf, const int sendcounts[], const int sdispls[],                     \
       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],    \
       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request),                          \
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, \
       request))                                                                             \
    X(Iscan, scan,                                                                           \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,      \
       MPI_Comm comm, MPI_Request *request),                                                 \
      (sendbuf, recvbuf, count, datatype, op, comm, request))                                \
    X(Iexscan, exscan,                                                                       \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,      \
       MPI_Comm comm, MPI_Request *request),                                                 \
      (sendbuf, recvbuf, count, datatype, op, comm, request))

/* Every wrapped call that goes through the loader's table: the blocking
 * collectives, then the non-blocking ones. */
#define ACCT_WRAPPED_CALLS(X) ACCT_WRAPPED_COLLECTIVES(X) ACCT_WRAPPED_NONBLOCKING(X)

/* The communicator constructors that libacct intercepts — listed once.
 *
 * X(Name, params, args, out): as above; out names the parameter that
 * receives the new communicator. Under MPI_THREAD_MULTIPLE the runtime
 * makes its private duplicate of a new communicator right there, in the
 * thread and at the point where the application creates it (which the
 * application orders against its other threads' creations), never later
 * inside a collective, where it could race with another thread's
 * communicator creation (docs/runtime.md). */
#define ACCT_WRAPPED_CONSTRUCTORS(X)                                                         \
    X(Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm), (comm, newcomm), newcomm)                \
    X(Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm),                \
      (comm, info, newcomm), newcomm)                                                        \
    X(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm),                   \
      (comm, color, key, newcomm), newcomm)                                                  \
    X(Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info,              \
                        MPI_Comm *newcomm),                                                  \
      (comm, split_type, key, info, newcomm), newcomm)                                       \
    X(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm),                     \
      (comm, group, newcomm), newcomm)                                                       \
    X(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm),      \
      (comm, group, tag, newcomm), newcomm)                                                  \
    X(Cart_create, (MPI_Comm old_comm, int ndims, const int dims[], const int periods[],    \
                    int reorder, MPI_Comm *comm_cart),                                       \
      (old_comm, ndims, dims, periods, reorder, comm_cart), comm_cart)                       \
    X(Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *new_comm),               \
      (comm, remain_dims, new_comm), new_comm)                                               \
    X(Graph_create, (MPI_Comm comm_old, int nnodes, const int index[], const int edges[],   \
                     int reorder, MPI_Comm *comm_graph),                                     \
      (comm_old, nnodes, index, edges, reorder, comm_graph), comm_graph)                     \
    X(Dist_graph_create, (MPI_Comm comm_old, int n, const int nodes[], const int degrees[], \
                          const int targets[], const int weights[], MPI_Info info,          \
                          int reorder, MPI_Comm *newcomm),                                   \
      (comm_old, n, nodes, degrees, targets, weights, info, reorder, newcomm), newcomm)      \
    X(Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int sources[],    \
                                   const int sourceweights[], int outdegree,                \
                                   const int destinations[], const int destweights[],       \
                                   MPI_Info info, int reorder, MPI_Comm *comm_dist_graph),  \
      (comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights,    \
       info, reorder, comm_dist_graph), comm_dist_graph)                                     \
    X(Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintercomm),              \
      (intercomm, high, newintercomm), newintercomm)

/* The Fortran bindings of the same collectives — listed once.
 *
 * Open MPI's Fortran entry points (mpif.h and `use mpi`: libmpi_mpifh) call
 * the C PMPI_* functions directly, so the C wrappers never see a Fortran
 * call; `use mpi_f08` (libmpi_usempif08) calls the same ompi_*_f functions
 * through its PLT, so interposing those covers it. The loader exports every
 * mangling of each row (ACCT_FORTRAN_MANGLINGS) and, while the runtime runs
 * the collectives, converts the arguments (libacct/preload/fortran.c) and
 * calls the runtime's C entry point of the same Name: one decision path.
 *
 * X(Name, UPPER, lower, fparams, fargs): Name as in ACCT_WRAPPED_COLLECTIVES
 * (a row here without a C row is a compile error), UPPER and lower its
 * spellings for the manglings, fparams the Fortran binding's C prototype
 * (every argument by reference, buffers as addresses, ierr last), fargs the
 * call. */
#define ACCT_FORTRAN_COLLECTIVES(X)                                                          \
    X(Barrier, BARRIER, barrier, (MPI_Fint *comm, MPI_Fint *ierr), (comm, ierr))             \
    X(Bcast, BCAST, bcast,                                                                   \
      (void *buffer, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *root, MPI_Fint *comm,    \
       MPI_Fint *ierr),                                                                      \
      (buffer, count, datatype, root, comm, ierr))                                           \
    X(Reduce, REDUCE, reduce,                                                                \
      (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,      \
       MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr),                                      \
      (sendbuf, recvbuf, count, datatype, op, root, comm, ierr))                             \
    X(Allreduce, ALLREDUCE, allreduce,                                                       \
      (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,      \
       MPI_Fint *comm, MPI_Fint *ierr),                                                      \
      (sendbuf, recvbuf, count, datatype, op, comm, ierr))                                   \
    X(Gather, GATHER, gather,                                                                \
      (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,                \
       MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,              \
       MPI_Fint *ierr),                                                                      \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr))        \
    X(Scatter, SCATTER, scatter,                                                             \
      (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,                \
       MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,              \
       MPI_Fint *ierr),                                                                      \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr))        \
    X(Allgather, ALLGATHER, allgather,                                                       \
      (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,                \
       MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),             \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr))              \
    X(Alltoall, ALLTOALL, alltoall,                                                          \
      (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,                \
       MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),             \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr))              \
    X(Reduce_scatter_block, REDUCE_SCATTER_BLOCK, reduce_scatter_block,                      \
      (void *sendbuf, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *datatype, MPI_Fint *op,  \
       MPI_Fint *comm, MPI_Fint *ierr),                                                      \
      (sendbuf, recvbuf, recvcount, datatype, op, comm, ierr))                               \
    X(Allgatherv, ALLGATHERV, allgatherv,                                                    \
      (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,                \
       MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,           \
       MPI_Fint *ierr),                                                                      \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierr))     \
    X(Reduce_scatter, REDUCE_SCATTER, reduce_scatter,                                        \
      (void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *datatype, MPI_Fint *op, \
       MPI_Fint *comm, MPI_Fint *ierr),                                                      \
      (sendbuf, recvbuf, recvcounts, datatype, op, comm, ierr))                              \
    X(Gatherv, GATHERV, gatherv,                                                             \
      (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,                \
       MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root,           \
       MPI_Fint *comm, MPI_Fint *ierr),                                                      \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, ierr)) \
    X(Scatterv, SCATTERV, scatterv,                                                          \
      (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype,            \
       void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root,               \
       MPI_Fint *comm, MPI_Fint *ierr),                                                      \
      (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, ierr)) \
    X(Alltoallv, ALLTOALLV, alltoallv,                                                       \
      (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,           \
       void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,           \
       MPI_Fint *comm, MPI_Fint *ierr),                                                      \
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, \
       ierr))                                                                                \
    X(Scan, SCAN, scan,                                                                      \
      (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,      \
       MPI_Fint *comm, MPI_Fint *ierr),                                                      \
      (sendbuf, recvbuf, count, datatype, op, comm, ierr))                                   \
    X(Exscan, EXSCAN, exscan,                                                                \
      (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,      \
       MPI_Fint *comm, MPI_Fint *ierr),                                                      \
      (sendbuf, recvbuf, count, datatype, op, comm, ierr))

/* The Fortran bindings of the non-blocking collectives: same columns as
 * ACCT_FORTRAN_COLLECTIVES, Name as in ACCT_WRAPPED_NONBLOCKING; the
 * request comes back as a Fortran handle (MPI_Request_c2f), as Open MPI's
 * binding returns it. */
#define ACCT_FORTRAN_NONBLOCKING(X)                                                          \
    X(Ibarrier, IBARRIER, ibarrier, (MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),     \
      (comm, request, ierr))                                                                 \
    X(Ibcast, IBCAST, ibcast,                                                                \
      (void *buffer, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *root, MPI_Fint *comm,    \
       MPI_Fint *request, MPI_Fint *ierr),                                                   \
      (buffer, count, datatype, root, comm, request, ierr))                                  \
    X(Ireduce, IREDUCE, ireduce,                                                             \
      (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,      \
       MPI_Fint *root, MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),                   \
      (sendbuf, recvbuf, count, datatype, op, root, comm, request, ierr))                    \
    X(Iallreduce, IALLREDUCE, iallreduce,                                                    \
      (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,      \
       MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),                                   \
      (sendbuf, recvbuf, count, datatype, op, comm, request, ierr))                          \
    X(Igather, IGATHER, igather,                                                             \
      (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,                \
       MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,              \
       MPI_Fint *request, MPI_Fint *ierr),                                                   \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request,     \
       ierr))                                                                                \
    X(Iscatter, ISCATTER, iscatter,                                                          \
      (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,                \
       MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,              \
       MPI_Fint *request, MPI_Fint *ierr),                                                   \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request,     \
       ierr))                                                                                \
    X(Iallgather, IALLGATHER, iallgather,                                                    \
      (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,                \
       MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request,           \
       MPI_Fint *ierr),                                                                      \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, ierr))     \
    X(Ialltoall, IALLTOALL, ialltoall,                                                       \
      (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,                \
       MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request,           \
       MPI_Fint *ierr),                                                                      \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, ierr))     \
    X(Ireduce_scatter_block, IREDUCE_SCATTER_BLOCK, ireduce_scatter_block,                   \
      (void *sendbuf, void *recvbuf, MPI_Fint *recvcount, MPI_Fint *datatype, MPI_Fint *op,  \
       MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),                                   \
      (sendbuf, recvbuf, recvcount, datatype, op, comm, request, ierr))                      \
    X(Iallgatherv, IALLGATHERV, iallgatherv,                                                 \
      (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,                \
       MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,           \
       MPI_Fint *request, MPI_Fint *ierr),                                                   \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request,  \
       ierr))                                                                                \
    X(Ireduce_scatter, IREDUCE_SCATTER, ireduce_scatter,                                     \
      (void *sendbuf, void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *datatype, MPI_Fint *op, \
       MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),                                   \
      (sendbuf, recvbuf, recvcounts, datatype, op, comm, request, ierr))                     \
    X(Igatherv, IGATHERV, igatherv,                                                          \
      (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,                \
       MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *root,           \
       MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),                                   \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,     \
       request, ierr))                                                                       \
    X(Iscatterv, ISCATTERV, iscatterv,                                                       \
      (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs, MPI_Fint *sendtype,            \
       void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *root,               \
       MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),                                   \
      (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,     \
       request, ierr))                                                                       \
    X(Ialltoallv, IALLTOALLV, ialltoallv,                                                    \
      (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,           \
       void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,           \
       MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),                                   \
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, \
       request, ierr))                                                                       \
    X(Iscan, ISCAN, iscan,                                                                   \
      (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,      \
       MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),                                   \
      (sendbuf, recvbuf, count, datatype, op, comm, request, ierr))                          \
    X(Iexscan, IEXSCAN, iexscan,                                                             \
      (void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *op,      \
       MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),                                   \
      (sendbuf, recvbuf, count, datatype, op, comm, request, ierr))

/* The Fortran start and end of MPI (they call PMPI_Init/PMPI_Finalize
 * directly): interposed so that a Fortran main program activates ACCT as
 * MPI_Init does. Same columns. */
#define ACCT_FORTRAN_INIT(X)                                                                 \
    X(Init, INIT, init, (MPI_Fint *ierr), (ierr))                                            \
    X(Init_thread, INIT_THREAD, init_thread,                                                 \
      (MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr), (required, provided, ierr))  \
    X(Finalize, FINALIZE, finalize, (MPI_Fint *ierr), (ierr))

/* The names one Fortran entry point is exported under by Open MPI 4.x's
 * libmpi_mpifh (all aliases of one function; `nm -D`): the four compiler
 * manglings, the ompi_*_f function that the mpi_f08 bindings call, and the
 * MPI-3 tool names MPI_<Name>_f and MPI_<Name>_f08. The PMPI names stay
 * native: they are the profiling interface. M(id, "symbol", symbol, ...)
 * for each, with the arguments after lower passed on. */
#define ACCT_FORTRAN_MANGLINGS(M, Name, UPPER, lower, ...)                                   \
    M(0, "MPI_" #UPPER, MPI_##UPPER, __VA_ARGS__)                                            \
    M(1, "mpi_" #lower, mpi_##lower, __VA_ARGS__)                                            \
    M(2, "mpi_" #lower "_", mpi_##lower##_, __VA_ARGS__)                                     \
    M(3, "mpi_" #lower "__", mpi_##lower##__, __VA_ARGS__)                                   \
    M(4, "ompi_" #lower "_f", ompi_##lower##_f, __VA_ARGS__)                                 \
    M(5, "MPI_" #Name "_f", MPI_##Name##_f, __VA_ARGS__)                                     \
    M(6, "MPI_" #Name "_f08", MPI_##Name##_f08, __VA_ARGS__)
#define ACCT_FORTRAN_NMANGLINGS 7

/* Every wrapped collective has an id in acct/coll.h (ACCT_COLL_<lower>):
 * a name missing there is a compile error wherever the list is expanded. */

/* One function pointer per wrapped call (ACCT_WRAPPED_CALLS), same
 * prototypes as MPI. */
struct acct_coll_fns {
#define ACCT_X_FIELD(Name, lower, params, args) int(*Name) params;
    ACCT_WRAPPED_CALLS(ACCT_X_FIELD)
#undef ACCT_X_FIELD
};

/* The native entry points of the MPI library (PMPI_*), found at run time. */
struct acct_native_fns {
    int (*Init)(int *argc, char ***argv);
    int (*Init_thread)(int *argc, char ***argv, int required, int *provided);
    int (*Finalize)(void);
    struct acct_coll_fns coll;
    struct {
#define ACCT_X_CTOR_FIELD(Name, params, args, out) int(*Name) params;
        ACCT_WRAPPED_CONSTRUCTORS(ACCT_X_CTOR_FIELD)
#undef ACCT_X_CTOR_FIELD
    } ctor;
};

#endif
