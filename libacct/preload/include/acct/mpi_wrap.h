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
    struct {
#define ACCT_X_CTOR_FIELD(Name, params, args, out) int(*Name) params;
        ACCT_WRAPPED_CONSTRUCTORS(ACCT_X_CTOR_FIELD)
#undef ACCT_X_CTOR_FIELD
    } ctor;
};

#endif
