/* The non-blocking collectives' progress engine (internal).
 *
 * An MPI_I<coll> that ACCT runs returns an MPI generalized request
 * (PMPI_Grequest_start) and leaves its schedule to this engine, which
 * advances every collective in flight (rt_exec_advance without blocking)
 * from a callback in the MPI library's own progress loop: Open MPI's
 * opal_progress_register, found with dlsym in the loaded MPI library (the
 * loader keeps no Open MPI dependency). opal_progress runs inside every
 * MPI_Wait*, MPI_Test* and blocking MPI call, so ACCT's collectives
 * progress exactly when Open MPI's own (libnbc, without a progress thread)
 * do. When the schedule is done, the op's finish step runs (unpacking,
 * freeing temporaries) and the engine calls PMPI_Grequest_complete.
 *
 * Without that hook (another MPI library) rt_nb_available() is false and
 * every non-blocking collective runs natively (docs/runtime.md). */
#ifndef ACCT_RT_NB_H
#define ACCT_RT_NB_H

#include <stdbool.h>
#include <stdint.h>

#include <mpi.h>

#include "acct/alg.h"
#include "acct/sched.h"
#include "exec.h"

struct rt_comm;

/* The blocks of a v-collective's packed receive view, unpacked one by one
 * at completion: block i, counts[i] elements of the op's utype, from byte
 * offs[i] of the view to displs[i] extents past the user's buffer. The
 * op's own copy (one allocation), made at the call: the caller's count and
 * displacement arrays are read only there. */
struct rt_nb_blocks {
    int n;
    MPI_Aint extent;
    int *counts, *displs;
    uint64_t *offs;
};

/* One non-blocking collective in flight: everything it uses is its own
 * (schedule, scratch, buffer views), so blocking collectives and other
 * non-blocking ones on the same communicator run beside it. */
struct rt_nb_op {
    struct rt_nb_op *next;
    int refs;               /* the engine's and the request's (under the engine lock) */
    int rc;                 /* the result, for the request's status */
    MPI_Request req;        /* the generalized request */
    struct rt_comm *st;     /* its communicator's state (kept alive until done) */
    struct acct_sched sched;
    struct rt_scratch scratch;
    struct rt_bufs b;
    struct rt_exec_run run;
    /* after the schedule: the caller's finishing step (unpack, free), with
     * the schedule's result; returns the call's result */
    int (*finish)(struct rt_nb_op *op, int rc);
    void *pack[2];          /* packed views (send, receive), owned */
    void *ubuf;             /* the user's receive buffer to unpack into */
    uint64_t ucount;
    MPI_Datatype utype;
    uint64_t ubytes;        /* bytes of the packed receive view */
    struct rt_nb_blocks *blocks; /* owned; NULL: unpack ucount x utype at once */
    /* A first stage (an ACCT_ALG_ALL_COUNTS method: the broadcast of the
     * root's counts into `counts`): when its schedule is done, the engine
     * calls then(), which builds the call's own schedule from shape and
     * counts and begins it on next_b with the same tag; NULL: none. */
    int (*then)(struct rt_nb_op *op);
    struct acct_call shape;
    uint64_t *counts;       /* owned: P counts, then (at the root) P displacements */
    struct rt_bufs next_b;
    bool unpack;
    MPI_Comm ucomm;
    MPI_Datatype kept[2], kept_from[2]; /* duplicates of derived datatypes it uses */
    int nkept;
    /* accounting */
    int coll;               /* enum acct_coll_id */
    const struct acct_alg *alg;
    uint64_t segment;
    uint64_t t0;            /* post time (ns), 0 unless timed */
};

/* Looks for the progress hook (before PMPI_Init; ACCT_NONBLOCKING=0 on a
 * rank: none), then takes the agreement's answer (agree.h: every rank has
 * it), so that rt_nb_available() is the same on every rank. */
void rt_nb_init(void);
void rt_nb_agreed(int every_rank);
/* Before PMPI_Finalize: unregisters the callback; collectives still in
 * flight (an erroneous program) are left as they are, with one warning. */
void rt_nb_fini(void);

/* Can ACCT run non-blocking collectives (every rank's MPI library has the
 * progress hook, and no rank set ACCT_NONBLOCKING=0)? The same on every
 * rank once agreed. */
bool rt_nb_available(void);

/* A zeroed op with an empty schedule; NULL when out of memory. */
struct rt_nb_op *rt_nb_new(void);
/* Frees an op that was never started. */
void rt_nb_discard(struct rt_nb_op *op);

/* Starts op (its schedule built, its buffers set, op->run begun on the
 * private communicator with its tag): makes the generalized request into
 * *request, hands op to the engine and advances it once. Returns
 * MPI_SUCCESS (op belongs to the engine) or an MPI error (op discarded,
 * *request untouched). */
int rt_nb_start(struct rt_nb_op *op, MPI_Request *request);

#endif
