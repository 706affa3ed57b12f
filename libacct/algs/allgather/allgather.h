/* allgather builders (one file each).
 *
 * Layout (MPI-3.1 §5.7): rank r's block lands at RECV[r * count, count) on
 * every rank. count = receive-type elements per block (RECV units), scount
 * = send-type elements of the one input block (SEND units). With
 * MPI_IN_PLACE (given by all ranks alike) SEND does not exist: each rank's
 * input already sits at its place in RECV.
 *
 * Every builder returns an empty schedule for count == 0 (nothing moves),
 * and decides whether a message exists from count alone, never from scount,
 * so both ends of every message always agree. */
#ifndef ACCT_ALGS_ALLGATHER_H
#define ACCT_ALGS_ALLGATHER_H

#include "acct/alg.h"
#include "acct/topo.h"

/* The registered algorithms: builder and closed form of each
 * (ACCT_ALG_FUNCTIONS, acct/alg.h). */
ACCT_ALG_FUNCTIONS(allgather, gather_bcast);
ACCT_ALG_FUNCTIONS(allgather, ring);
ACCT_ALG_FUNCTIONS(allgather, recursive_doubling);
ACCT_ALG_FUNCTIONS(allgather, bruck);
ACCT_ALG_FUNCTIONS(allgather, neighbor_exchange);
ACCT_ALG_FUNCTIONS(allgather, hier_ring);
ACCT_ALG_FUNCTIONS(allgather, hier_pipelined);

/* Send this rank's own block to peer: SEND[0, scount), or its place in
 * RECV when in place (same data, so a peer receives count elements either
 * way). Lets the first step of an algorithm go out before the own block
 * has been copied anywhere. */
static inline void acct_allgather_send_own(const struct acct_call *c, struct acct_sched *s,
                                           int peer)
{
    if (c->in_place)
        acct_sched_send(s, peer, ACCT_BUF_RECV, (uint64_t)c->rank * c->count, c->count);
    else
        acct_sched_send(s, peer, ACCT_BUF_SEND, 0, c->scount);
}

/* Copy this rank's own block to buf[off, count) (buf typed like RECV): from
 * SEND, or from its place in RECV when in place (nothing to do if that is
 * the destination). */
static inline void acct_allgather_copy_own(const struct acct_call *c, struct acct_sched *s,
                                           enum acct_buf buf, uint64_t off)
{
    const uint64_t mine = (uint64_t)c->rank * c->count;
    if (!c->in_place)
        acct_sched_copy(s, ACCT_BUF_SEND, 0, c->scount, buf, off, c->count);
    else if (buf != ACCT_BUF_RECV || off != mine)
        acct_sched_copy(s, ACCT_BUF_RECV, mine, c->count, buf, off, c->count);
}

/* Round 0 of the node-aware allgathers (hier_ring, hier_pipelined; h of
 * ../algs.h): the node's blocks into their places in RECV at the leader,
 * which copies its own; every other rank sends its own block to the leader
 * (its own place comes back with the leader's chunks). The round stays open. */
static inline void acct_allgather_hier_gather(const struct acct_call *c, const struct acct_hier *h,
                                              struct acct_sched *s)
{
    if (h->me != h->leader) {
        acct_allgather_send_own(c, s, h->leader);
        return;
    }
    for (int i = 1; i < h->ppn; i++) {
        const int r = acct_hier_member(h, h->node, i);
        acct_sched_recv(s, r, ACCT_BUF_RECV, (uint64_t)r * c->count, c->count);
    }
    acct_allgather_copy_own(c, s, ACCT_BUF_RECV, (uint64_t)h->me * c->count);
}

#endif
