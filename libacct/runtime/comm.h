/* Per-communicator state of the runtime (internal). */
#ifndef ACCT_RT_COMM_H
#define ACCT_RT_COMM_H

#include <stdatomic.h>
#include <stdbool.h>

#include <mpi.h>

#include "acct/alg.h"
#include "acct/coll.h"
#include "acct/sched.h"
#include "decide.h"
#include "exec.h"
#include "locality.h"
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
    struct acct_layout layout;  /* which ranks share a node (locality.h) */
    signed char layout_state;   /* 0: not asked yet, 1: known, -1: unknown */
    struct rt_comm *next;    /* list of live states, for MPI_Finalize */
    /* Non-blocking collectives (nb.h): the number of the next one ACCT
     * runs on this communicator (every rank starts them in the same order,
     * so the numbers agree and give each its own tag, tags.h), how many
     * are in flight, and whether the application freed the communicator
     * meanwhile (MPI lets it: the state then lives until the last one
     * completes). */
    unsigned nb_seq;
    atomic_int nb_inflight;
    atomic_bool nb_orphaned;
};

/* At runtime init: the attribute key; under MPI_THREAD_MULTIPLE private
 * duplicates are made only by rt_comm_created. */
int rt_comm_init(int thread_level);
void rt_comm_fini(void);  /* before PMPI_Finalize: free every state */

/* The state of comm, created on first use; NULL if comm is not usable (then
 * the caller runs natively and the MPI library reports the error). Out of
 * memory while creating it returns &rt_comm_unknown (not cached: the next
 * call tries again): this rank cannot know what the others decide, so the
 * caller must not silently run natively (docs/architecture.md rule 1; see coll.c).
 * Cost on a hit: a thread-local compare. */
struct rt_comm *rt_comm_get(MPI_Comm comm);
extern struct rt_comm rt_comm_unknown;

/* Where ACCT's private duplicate of a communicator comes from.
 *
 * Below MPI_THREAD_MULTIPLE: created at the first call that runs an ACCT
 * algorithm (a collective: every rank reaches it at the same call, because
 * all ranks decide alike, and no other thread is inside MPI).
 *
 * Under MPI_THREAD_MULTIPLE a communicator must never be created inside a
 * user's collective: another thread of the same processes may be creating
 * communicators at that moment (legal), and Open MPI 4.1's context-id
 * allocation then stops making progress (a hang; issue 17). So the
 * duplicate is made by rt_comm_created, right after the application's own
 * constructor returns (MPI_Comm_dup, _split, _create_group, ... wrapped by
 * the loader) in the same thread, which the application orders like its own
 * creations; MPI_COMM_WORLD's at MPI_Init. A communicator without one (made
 * by MPI_Comm_idup, through PMPI_*, or before ACCT was active) runs native:
 * alike on every rank, since every rank created it the same way.
 *
 * A communicator of one process never gets one: its collectives move no
 * data between processes and always run native. */
bool rt_comm_runs_acct(const struct rt_comm *st);
/* The communicator's layout, found collectively at the first call that
 * asks (every rank asks at the same call: decisions are agreed) or, under
 * MPI_THREAD_MULTIPLE, with the duplicate at creation; NULL when unknown
 * (then node-aware algorithms fall back, alike on every rank). */
const struct acct_layout *rt_comm_layout(struct rt_comm *st);
MPI_Comm rt_comm_priv(struct rt_comm *st);
void rt_comm_created(MPI_Comm comm);

/* The private duplicate of comm now, if it has none yet and may have
 * one (a collective call: every rank of comm makes it at the same point). */
void rt_comm_prepare(MPI_Comm comm);

/* A non-blocking collective starts on st: its tag (RT_TAG_NB + its number
 * modulo RT_NB_TAGS); rt_comm_nb_done when it completed. */
int rt_comm_nb_begin(struct rt_comm *st);
void rt_comm_nb_done(struct rt_comm *st);

#endif
