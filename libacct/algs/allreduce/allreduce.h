/* allreduce builders (one file each) and the mechanisms they share. */
#ifndef ACCT_ALGS_ALLREDUCE_H
#define ACCT_ALGS_ALLREDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct/alg.h"
#include "acct/topo.h"

/* --- shared mechanisms (allreduce_common.c, allreduce_ring.c) --- */

/* The buffer that holds the caller's input: RECV with MPI_IN_PLACE, else SEND. */
enum acct_buf acct_allreduce_input(const struct acct_call *c);

/* Element range of part i when n elements are split in parts pieces, the
 * first n % parts pieces one element longer (Open MPI's
 * COLL_BASE_COMPUTE_BLOCKCOUNT split: no piece is empty while n >= parts). */
void acct_allreduce_split(uint64_t n, uint64_t parts, uint64_t i, uint64_t *off, uint64_t *len);

/* Order-preserving combination of a running partial result ("acc", whose
 * buffer is *acc: SEND, RECV or TMP0, at the same offsets in each) with a
 * partner's partial received over [off, off + n).
 * acct_allreduce_recv_buf() names where to receive the partner's partial;
 * acct_allreduce_combine() then appends the local steps and updates *acc.
 * got_lower: the partner's ranks all come before ours. Non-commutative ops
 * get (lower) op (higher) and the accumulator moves into the buffer of the
 * higher operand; commutative ones keep it where it is once it is out of
 * SEND. SEND is never written. TMP0 must cover [off, off + n). */
enum acct_buf acct_allreduce_recv_buf(const struct acct_call *c, enum acct_buf acc,
                                      bool got_lower);
void acct_allreduce_combine(const struct acct_call *c, struct acct_sched *s, enum acct_buf *acc,
                            enum acct_buf got, bool got_lower, uint64_t off, uint64_t n);

/* Non-power-of-two pre/post step (MPICH, Open MPI): with p2 the largest
 * power of two <= size and rem = size - p2, each even rank r < 2 rem sends
 * its input to r + 1 and sits out; the others take part under a new rank in
 * [0, p2) that keeps the rank order. pre returns the new rank (or -1) and
 * leaves the accumulator in *acc (TMP0 must hold count elements). post
 * takes the full result from acc, hands it back to the rank that sat out
 * and leaves it in RECV (copying it there if acc is not RECV). */
int acct_allreduce_pof2_pre(const struct acct_call *c, struct acct_sched *s, enum acct_buf *acc);
void acct_allreduce_pof2_post(const struct acct_call *c, struct acct_sched *s, enum acct_buf acc);
int acct_allreduce_pof2_size(int size);
int acct_allreduce_pof2_rank(const struct acct_call *c, int newrank);

/* Ring reduce-scatter (each of P blocks cut into nphases pieces, one pass
 * of the ring per piece) then ring allgather of whole blocks. */
int acct_allreduce_ring_phases(const struct acct_call *c, struct acct_sched *s,
                               uint64_t nphases);

/* Node-aware allreduce (allreduce_nodes.c; commutative, needs c->layout):
 * intra-node reduce, the registered allreduce INTER among node leaders,
 * intra-node bcast; and its closed form. */
int acct_allreduce_nodes(const struct acct_call *c, struct acct_sched *s, const char *inter);
double acct_allreduce_nodes_cost(const struct acct_cost *c, const char *inter);

/* Lockstep timelines (allreduce_lockstep.c): steps placed at global
 * rounds, the two ends of a message in the same round, written out round
 * by round (messages in placement order, then local steps). The mechanism
 * of the pipelined node-aware allreduces and of allgather hier_pipelined. */
struct acct_lockstep_step;
struct acct_lockstep {
    struct acct_lockstep_step *v;
    size_t n, cap;
    int err;
};
void acct_lockstep_init(struct acct_lockstep *t);
void acct_lockstep_free(struct acct_lockstep *t);
/* A SEND (send) or RECV of buf[off, off + count) with peer at round. */
void acct_lockstep_msg(struct acct_lockstep *t, uint32_t round, bool send, int peer,
                       enum acct_buf buf, uint64_t off, uint64_t count);
/* A REDUCE (reduce: b = a op b) or COPY (b = a) of count elements at round. */
void acct_lockstep_local(struct acct_lockstep *t, uint32_t round, bool reduce, enum acct_buf a,
                         uint64_t aoff, enum acct_buf b, uint64_t boff, uint64_t count);
/* Ring allreduce of RECV[off, off + n) in place among size ranks (this one
 * at idx, neighbours left and right), rounds round0 .. round0 + 2 (size - 1) - 1,
 * pieces received into TMP1[slot, slot + ceil(n / size)). */
void acct_lockstep_ring(struct acct_lockstep *t, uint32_t round0, int idx, int size, int left,
                        int right, uint64_t off, uint64_t n, uint64_t slot);
/* Append the timeline to s; 0, or -1 when an allocation failed. */
int acct_lockstep_emit(struct acct_lockstep *t, struct acct_sched *s);

/* --- registered algorithms: builder and closed form (acct/alg.h) --- */
ACCT_ALG_FUNCTIONS(allreduce, reduce_bcast);
ACCT_ALG_FUNCTIONS(allreduce, allgather_reduce);
ACCT_ALG_FUNCTIONS(allreduce, recursive_doubling);
ACCT_ALG_FUNCTIONS(allreduce, ring);
ACCT_ALG_FUNCTIONS(allreduce, segmented_ring);
ACCT_ALG_FUNCTIONS(allreduce, rabenseifner);
ACCT_ALG_FUNCTIONS(allreduce, hier_ring);
ACCT_ALG_FUNCTIONS(allreduce, hier_rabenseifner);
ACCT_ALG_FUNCTIONS(allreduce, hier_recursive_doubling);
ACCT_ALG_FUNCTIONS(allreduce, hier_pipelined);
ACCT_ALG_FUNCTIONS(allreduce, hier_reduce_scatter);

/* The pre/post step of the non-power-of-two allreduces, a part of their
 * closed forms (pLogP; ../cost.h). */
double acct_allreduce_prepost_cost(const struct acct_cost *c);
/* The recursive-doubling exchanges after a non-power-of-two pre-step, any
 * P (allreduce recursive_doubling, barrier recursive_doubling;
 * allreduce_common.c states the recurrence): p2 ranks x, those below rem
 * entering the first exchange at late_start with their receive side busy
 * until late_rx, the others at 0; per exchange x bytes each way, then add
 * of local work. Fills end[x] (the last exchange's end) and nic[x] (when
 * x's link is free to send again); 0, or -1 without memory. */
int acct_rd_exchanges_cost(const struct acct_cost *c, int p2, int rem, uint64_t x, double late_start,
                           double late_rx, double add, double *end, double *nic);

#endif
