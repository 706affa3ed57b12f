/* Running a schedule over PMPI (internal to the runtime). */
#ifndef ACCT_RT_EXEC_H
#define ACCT_RT_EXEC_H

#include <mpi.h>

#include "acct/sched.h"

/* Where the named buffers of a schedule are, in one call. TMP0/TMP1 are
 * filled in by the executor from the schedule's tmp_count/tmp_type. */
struct rt_bufs {
    char *base[ACCT_BUF_COUNT];
    MPI_Datatype type[ACCT_BUF_COUNT];
    MPI_Aint extent[ACCT_BUF_COUNT];
};

/* Memory the executor reuses between calls on one communicator. */
struct rt_scratch {
    void *tmp[2];
    size_t tmp_bytes[2];
    MPI_Request *reqs;
    size_t nreqs;
};

/* Every buffer absent, typed MPI_BYTE (zero-byte messages need a type). */
void rt_bufs_init(struct rt_bufs *b);

/* Describe a user buffer of datatype dt. */
int rt_bufs_set(struct rt_bufs *b, enum acct_buf which, const void *base, MPI_Datatype dt);

/* Run s. op is used by REDUCE steps (MPI_OP_NULL if none). Returns
 * MPI_SUCCESS or the MPI error code of the failing call; before the first
 * message is posted (scratch allocation) failure returns MPI_ERR_NO_MEM so
 * the caller can still fall back to the native collective. */
int rt_exec(const struct acct_sched *s, struct rt_bufs *b, MPI_Op op, MPI_Comm comm, int tag,
            struct rt_scratch *scratch);

void rt_scratch_free(struct rt_scratch *scratch);

#endif
