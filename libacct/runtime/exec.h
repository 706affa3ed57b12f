/* Running a schedule over PMPI (internal to the runtime). */
#ifndef ACCT_RT_EXEC_H
#define ACCT_RT_EXEC_H

#include <stdbool.h>

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

/* A run of s in progress, resumable between calls (the non-blocking
 * collectives). rt_exec_begin sets up scratch (as rt_exec, it fails
 * before any message); rt_exec_advance posts and completes rounds: with
 * block, to the end (waits); else as far as tests allow, returning with
 * *done false when a round's requests are still in flight. b and scratch
 * must stay valid (and unshared) until *done. */
struct rt_exec_run {
    const struct acct_sched *s;
    struct rt_bufs *b;
    MPI_Op op;
    MPI_Comm comm;
    int tag;
    struct rt_scratch *sc;
    bool early, lazy;
    bool posted;   /* round r's messages are posted */
    uint32_t r;    /* the current round */
    int n, npre;   /* round r's requests; round r+1's early receives posted */
    int nlazy[2];  /* lazy sends in flight, by round parity */
    size_t quarter;
};
int rt_exec_begin(struct rt_exec_run *x, const struct acct_sched *s, struct rt_bufs *b, MPI_Op op,
                  MPI_Comm comm, int tag, struct rt_scratch *scratch);
int rt_exec_advance(struct rt_exec_run *x, bool block, bool *done);

void rt_scratch_free(struct rt_scratch *scratch);

#endif
