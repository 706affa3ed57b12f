/* Per-communicator state of the runtime (internal). */
#ifndef ACCT_RT_COMM_H
#define ACCT_RT_COMM_H

#include <stdbool.h>

#include <mpi.h>

#include "acct/alg.h"
#include "acct/coll.h"
#include "acct/sched.h"
#include "decide.h"
#include "exec.h"
#include "sack.h"

#define RT_SCHED_SLOTS 4

struct rt_comm {
    MPI_Comm user;  /* the application's communicator */
    MPI_Comm priv;  /* ACCT's duplicate for its messages; MPI_COMM_NULL until needed */
    int rank, size;
    bool inter;     /* intercommunicator: always native */
    bool broken;    /* the duplicate could not be made: always native */
    bool unknown;   /* only in rt_comm_unknown: no state could be made */
    struct rt_tables tabs;   /* the rules resolved for this size */
    /* The last schedules built, by call shape (one collective at a time per
     * communicator, so no lock): a call shaped like a recent one reuses its
     * schedule instead of rebuilding it (builders are pure functions of
     * (algorithm, shape)). Round-robin replacement. */
    struct rt_sched_slot {
        const struct acct_alg *alg; /* NULL: empty */
        struct acct_call call;
        struct acct_sched sched;
    } cache[RT_SCHED_SLOTS];
    unsigned victim;
    struct rt_scratch scratch;
    struct sack_auto sack_auto; /* SACK automatic mode: bcast call sites (sack.h) */
    struct rt_comm *next;    /* list of live states, for MPI_Finalize */
};

int rt_comm_init(void);   /* at runtime init: the attribute key */
void rt_comm_fini(void);  /* before PMPI_Finalize: free every state */

/* The state of comm, created on first use; NULL if comm is not usable (then
 * the caller runs natively and the MPI library reports the error). Out of
 * memory while creating it returns &rt_comm_unknown (not cached: the next
 * call tries again): this rank cannot know what the others decide, so the
 * caller must not silently run natively (DESIGN.md rule 1; see coll.c).
 * Cost on a hit: a thread-local compare. */
struct rt_comm *rt_comm_get(MPI_Comm comm);
extern struct rt_comm rt_comm_unknown;

/* The private duplicate, created on first use (a collective call: every
 * rank reaches it at the same call, because all ranks decide alike). */
MPI_Comm rt_comm_priv(struct rt_comm *st);

#endif
