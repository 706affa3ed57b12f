/* Schedules: every collective algorithm, described once, per rank.
 *
 * A builder is a pure function of the call's shape (rank, size, root,
 * counts, segment) that appends steps to a schedule. The runtime's executor
 * runs a schedule over PMPI non-blocking point-to-point on a private
 * communicator; the simulator (acct-tune) runs the same schedule under a
 * LogGP/pLogP cost model; SACK reordering maps tree positions before the
 * builder runs. No MPI here.
 *
 * Steps are grouped in rounds. Within a round the executor first posts every
 * SEND and RECV (non-blocking, in order), waits for all of them, then runs
 * the round's local steps (REDUCE, COPY) in order. A SEND or RECV appended
 * after a local step therefore opens a new round; acct_sched_round() closes
 * one explicitly (needed when a send depends on a receive of the same round).
 *
 * Buffers are named, not pointed to:
 *   SEND  the user's send buffer   (datatype: the send type)
 *   RECV  the user's receive buffer (datatype: the receive type; for bcast
 *         the single user buffer)
 *   TMP0, TMP1  scratch the executor allocates: tmp_count[i] elements of
 *         the type named by tmp_type[i]
 * Offsets and counts are in elements of the buffer's datatype (the executor
 * multiplies by the extent), so derived datatypes work unchanged.
 *
 * Early receives. acct_sched_finish() marks a RECV of round r+1 `early`
 * when its slice does not overlap any slice that a step of round r reads or
 * writes, round r also receives from its peer (a pipeline's parent, a ring's
 * neighbour; not recursive doubling's next partner, whose data would share
 * the inbound link with round r's), and every RECV before it in round r+1
 * is early too. An executor
 * may post an early RECV while round r is still in flight (before its wait)
 * without changing any result: nothing of round r touches that memory, and
 * receives keep their schedule order. A segmented pipeline then has the
 * receive of segment k+1 posted while it forwards segment k, as Open MPI's
 * pipelines do. Sends are never early: a round also paces a rank's sends
 * (one child at a time in the scatter phases).
 *
 * Lazy sends. acct_sched_finish() also marks a SEND of round r `lazy` when
 * round r has local steps, round r+1 sends only to peers round r also
 * sends to, and the send's slice is not overlapped by any slice that round
 * r's local steps write, that round r+1 receives into, or that round r+2's
 * early receives receive into. An executor may then wait for a lazy send
 * together with round r+1's requests instead of round r's: round r's local
 * steps (a pipeline's reduction of the next segment) run while the send is
 * still in flight, and nothing written before that wait touches its memory.
 * Elsewhere the wait paces the sends: a round without local steps gains
 * nothing from deferring it, and a next round with a new peer (bruck,
 * recursive doubling) would have that peer's data share the outbound link.
 *
 * Message matching: all messages of one call use one tag on the private
 * communicator; MPI's non-overtaking rule keeps the messages between a pair
 * in posting order, so a builder must post the sends to a peer in the same
 * order as that peer posts the matching receives. */
#ifndef ACCT_SCHED_H
#define ACCT_SCHED_H

#include <stdbool.h>
#include <stdint.h>

enum acct_buf {
    ACCT_BUF_SEND = 0,
    ACCT_BUF_RECV = 1,
    ACCT_BUF_TMP0 = 2,
    ACCT_BUF_TMP1 = 3,
    ACCT_BUF_COUNT
};

enum acct_step_kind {
    ACCT_STEP_SEND = 0,   /* send a to peer */
    ACCT_STEP_RECV = 1,   /* receive from peer into a */
    ACCT_STEP_REDUCE = 2, /* b = a (op) b   (MPI_Reduce_local(a, b)) */
    ACCT_STEP_COPY = 3,   /* b = a          (same type map, any datatypes) */
};

/* A slice of a named buffer: count elements starting at element off. */
struct acct_ref {
    uint8_t buf;
    uint64_t off;
    uint64_t count;
};

struct acct_step {
    uint8_t kind;
    uint8_t early; /* RECV only: may be posted during the previous round */
    uint8_t lazy;  /* SEND only: may complete during the next round */
    int32_t peer; /* SEND/RECV: rank in the communicator */
    struct acct_ref a;
    struct acct_ref b; /* REDUCE, COPY only */
};

struct acct_sched {
    struct acct_step *steps;
    uint32_t nsteps, step_cap;
    uint32_t *round_end; /* round r = steps [round_end[r-1], round_end[r]) */
    uint32_t nrounds, round_cap;
    bool open_has_local;   /* the open round already holds a local step */
    uint64_t tmp_count[2]; /* elements of TMP0/TMP1 */
    uint8_t tmp_type[2];   /* ACCT_BUF_SEND or ACCT_BUF_RECV: whose datatype */
    int error;             /* sticky: -1 after an allocation failure, -2 past step_limit */
    uint32_t step_limit;   /* 0 = none; else appending a step beyond it fails
                              (error -2) without allocating: a simulator's
                              memory bound (kept by acct_sched_reset) */
    bool plain;            /* acct_sched_finish leaves early/lazy unmarked
                              (a simulator's copy; kept by acct_sched_reset) */
};

void acct_sched_init(struct acct_sched *s);
void acct_sched_free(struct acct_sched *s);
/* Empty it, keeping the allocations (schedules are rebuilt per call shape). */
void acct_sched_reset(struct acct_sched *s);

void acct_sched_send(struct acct_sched *s, int peer, enum acct_buf buf, uint64_t off,
                     uint64_t count);
void acct_sched_recv(struct acct_sched *s, int peer, enum acct_buf buf, uint64_t off,
                     uint64_t count);
/* b[boff..] = a[aoff..] (op) b[boff..], count elements. */
void acct_sched_reduce(struct acct_sched *s, enum acct_buf a, uint64_t aoff, enum acct_buf b,
                       uint64_t boff, uint64_t count);
/* b[boff.., bcount] = a[aoff.., acount]; the two slices hold the same data
 * (equal type signatures) when the buffers' datatypes differ. */
void acct_sched_copy(struct acct_sched *s, enum acct_buf a, uint64_t aoff, uint64_t acount,
                     enum acct_buf b, uint64_t boff, uint64_t bcount);
/* Close the open round (no-op if it is empty). */
void acct_sched_round(struct acct_sched *s);
/* Ask for scratch: at least count elements of the type of `like`. */
void acct_sched_tmp(struct acct_sched *s, enum acct_buf tmp, enum acct_buf like, uint64_t count);
/* Append src's steps to dst, round by round (src's rounds stay rounds of
 * their own; its open round is closed too), with every peer p of a SEND or
 * RECV replaced by map[p]; src's scratch requests join dst's. For
 * algorithms composed of others run on a subset of the ranks (node-aware
 * methods: map = the subset's ranks). src need not be finished. */
void acct_sched_append(struct acct_sched *dst, const struct acct_sched *src, const int *map);
/* Has an append failed (out of memory or past step_limit)? Builders whose
 * loops grow faster than the size may stop early when it has. */
static inline bool acct_sched_failed(const struct acct_sched *s)
{
    return s->error != 0;
}
/* Close the last round and mark the early receives and lazy sends;
 * returns 0, or -1 if any append failed (ENOMEM), -2 if one went past
 * step_limit. */
int acct_sched_finish(struct acct_sched *s);

/* Round r's steps: [*first, *end). */
void acct_sched_round_steps(const struct acct_sched *s, uint32_t r, uint32_t *first,
                            uint32_t *end);

/* Segmentation: split count elements into segments of seg elements
 * (seg 0 = one segment). Segment k covers [k*seg, min((k+1)*seg, count)). */
uint64_t acct_nsegs(uint64_t count, uint64_t seg);
uint64_t acct_seg_len(uint64_t count, uint64_t seg, uint64_t k);

#endif
