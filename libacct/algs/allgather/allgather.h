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

int acct_allgather_gather_bcast(const struct acct_call *c, struct acct_sched *s);
int acct_allgather_ring(const struct acct_call *c, struct acct_sched *s);
int acct_allgather_recursive_doubling(const struct acct_call *c, struct acct_sched *s);
int acct_allgather_bruck(const struct acct_call *c, struct acct_sched *s);
int acct_allgather_neighbor_exchange(const struct acct_call *c, struct acct_sched *s);

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

/* Closed forms (acct_cost_fn, pLogP; ../cost.h), each at the end of its
 * builder's file. */
double acct_allgather_ring_cost(const struct acct_cost *c);
double acct_allgather_recursive_doubling_cost(const struct acct_cost *c);
double acct_allgather_bruck_cost(const struct acct_cost *c);
double acct_allgather_neighbor_exchange_cost(const struct acct_cost *c);
double acct_allgather_gather_bcast_cost(const struct acct_cost *c);

#endif
