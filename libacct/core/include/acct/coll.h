/* The collectives ACCT knows — ids and names, no MPI needed.
 *
 * The names are the ones used in rules files, reports, ACCT_FORCE, the
 * daemon's store and acctctl. mpi_wrap.h pairs each with its MPI prototype. */
#ifndef ACCT_COLL_H
#define ACCT_COLL_H

#include <stdbool.h>

#define ACCT_COLLECTIVES(X) \
    X(barrier)              \
    X(bcast)                \
    X(reduce)               \
    X(allreduce)            \
    X(gather)               \
    X(scatter)              \
    X(allgather)            \
    X(alltoall)             \
    X(reduce_scatter_block) \
    X(allgatherv)           \
    X(reduce_scatter)       \
    X(gatherv)              \
    X(scatterv)             \
    X(alltoallv)            \
    X(scan)                 \
    X(exscan)

enum acct_coll_id {
#define ACCT_X_ENUM(lower) ACCT_COLL_##lower,
    ACCT_COLLECTIVES(ACCT_X_ENUM)
#undef ACCT_X_ENUM
    ACCT_COLL_COUNT
};

/* "bcast", ... ; "?" for an id out of range. */
const char *acct_coll_name(enum acct_coll_id id);

/* Exact, case-sensitive name lookup; 0 on success, -1 if unknown. */
int acct_coll_from_name(const char *name, enum acct_coll_id *out);

/* Has a root argument (bcast, reduce, gather, scatter, gatherv, scatterv). */
bool acct_coll_rooted(enum acct_coll_id id);

/* Reduces data with an MPI_Op (reduce, allreduce, reduce_scatter_block,
 * reduce_scatter, scan, exscan). */
bool acct_coll_reduces(enum acct_coll_id id);

/* Takes per-rank count arrays (allgatherv, reduce_scatter, gatherv,
 * scatterv, alltoallv): the call's shape is struct acct_call's
 * counts/displs (acct/alg.h). */
bool acct_coll_vector(enum acct_coll_id id);

/* Do all ranks of a call know its message bytes alike? Every collective
 * but gatherv and scatterv (only the root has the counts) and alltoallv
 * (each rank has only its own row). For those the runtime decides from the
 * communicator size alone (their message bytes are taken as 0), and a
 * rules file may only give them rules over every size, bytes [0, max]
 * (docs/rules.md, "v-collectives"). allgatherv and reduce_scatter: the
 * bytes are the average block, the sum of all counts / P rounded down. */
bool acct_coll_bytes_alike(enum acct_coll_id id);

#endif
