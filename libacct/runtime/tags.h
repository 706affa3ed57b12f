/* Every message tag of the runtime (internal): the one registry, so that
 * no two protocols share a tag by accident.
 *
 * All of ACCT's messages travel on its private duplicate of the user's
 * communicator (comm.h), so none can match the application's; distinct
 * tags keep a schedule's messages and each SACK protocol's (sack.h,
 * sack_rooted.h, sack_ctl.h; docs/sack.md lists them per protocol) apart.
 * All stay within MPI's guaranteed MPI_TAG_UB, 32767. */
#ifndef ACCT_RT_TAGS_H
#define ACCT_RT_TAGS_H

enum {
    /* non-blocking collectives (nb.h): the schedule of the n-th one ACCT
     * runs on a communicator uses RT_TAG_NB + n mod RT_NB_TAGS, so the
     * messages of collectives in flight together (MPI allows many per
     * communicator, started in the same order everywhere) never match each
     * other's, nor a blocking collective's (RT_TAG_SCHED). A tag comes
     * back after RT_NB_TAGS collectives: a rank would have to start that
     * many on one communicator while a peer still has the first in flight. */
    RT_TAG_NB = 0x0100,
    RT_NB_TAGS = 0x4000,

    /* schedules (exec.c): every message of every algorithm */
    RT_TAG_SCHED = 0x4143,

    /* SACK bcast (sack.c) */
    SACK_TAG_SACK = 0x5341,  /* non-root -> root: start-acknowledge */
    SACK_TAG_CTRL = 0x5342,  /* root -> parent: "position p is rank r" */
    SACK_TAG_FIRST = 0x5343, /* parent -> child: position (+ segment 0) */
    SACK_TAG_DATA = 0x5344,  /* parent -> child: the other segments */
    SACK_TAG_VOTE = 0x5350,  /* root -> every rank: the probe's vote (automatic mode) */
    /* FIRST of a call with a call number (rt_sack_bcast_auto with state):
     * 0x5400 + number mod 1024, so that a FIRST sent to a rank before it
     * entered the call (placed on a leaf early) cannot match the receive
     * of a call it is still in */
    SACK_TAG_FIRST_SEQ = 0x5400,
    SACK_SEQ_TAGS = 1024,

    /* SACK scatter (sack_scatter.c) */
    SACK_TAG_SC_SACK = 0x5345,  /* non-root -> root: start-acknowledge */
    SACK_TAG_SC_CTRL = 0x5346,  /* root -> parent: "position p is rank r" */
    SACK_TAG_SC_FIRST = 0x5347, /* parent -> child: {position, block, fill} */
    SACK_TAG_SC_DATA = 0x5348,  /* parent -> child: one position's block */

    /* SACK gather and reduce (sack_up.c) */
    SACK_TAG_UP_SACK = 0x5360,   /* non-root -> root: start-acknowledge */
    SACK_TAG_UP_ASSIGN = 0x5361, /* root -> x: {position, parent's rank, n} */
    SACK_TAG_UP_CTRL = 0x5362,   /* root -> parent: "position p is rank x" */
    SACK_TAG_UP_RDATA = 0x5363,  /* child -> parent: reduce segments, in order */
    SACK_TAG_UP_VOTE = 0x5364,   /* root -> every rank: a probe's vote (automatic mode) */
    SACK_TAG_UP_GDATA = 0x5C00,  /* child -> parent: gather, + the block's position */

    RT_TAG_UB = 32767, /* MPI's guaranteed MPI_TAG_UB */
};

/* Largest communicator whose gather can be reordered (the position tags
 * must stay within RT_TAG_UB). */
#define SACK_UP_GATHER_MAX (RT_TAG_UB - SACK_TAG_UP_GDATA + 1)

/* The ranges of tags stay apart: the non-blocking collectives' numbered
 * tags below every fixed tag, the fixed tags below the numbered FIRSTs,
 * those below gather's position tags. */
_Static_assert(RT_TAG_NB > 0 && RT_TAG_NB + RT_NB_TAGS <= RT_TAG_SCHED,
               "the non-blocking collectives' tags overlap the fixed tags");
_Static_assert(RT_TAG_SCHED < SACK_TAG_SACK && SACK_TAG_UP_VOTE < SACK_TAG_FIRST_SEQ,
               "fixed tags overlap the numbered FIRSTs");
_Static_assert(SACK_TAG_FIRST_SEQ + SACK_SEQ_TAGS <= SACK_TAG_UP_GDATA,
               "numbered FIRSTs overlap gather's position tags");

#endif
