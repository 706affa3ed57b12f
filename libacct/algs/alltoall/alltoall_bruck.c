/* Bruck alltoall (Bruck et al. 1997 "index" algorithm, radix 2; MPICH's
 * alltoall_intra_brucks, Open MPI's alltoall_intra_bruck): ceil(log2 P)
 * messages per rank instead of P - 1, each carrying about P/2 blocks — for
 * small blocks, where latency dominates.
 *
 * TMP0 (typed like RECV, P blocks) holds the blocks in rank-relative order.
 *  1. Rotation: TMP0 block i = SEND block (r + i) % P (two COPY steps).
 *  2. For k = 1, 2, 4, ... < P: the blocks i with bit k set are packed
 *     (COPY, one per run of k consecutive blocks) into RECV[0, n), sent in
 *     one message to r + k; the same positions arrive from r - k into
 *     RECV[h, h + n), h = floor(P/2) >= n blocks, and are unpacked into
 *     TMP0. RECV is only scratch here; the next step's packing runs right
 *     after this step's unpacking (same round).
 *  3. TMP0 block i now holds the block from rank r - i: COPY it to RECV
 *     block (r - i) % P (P COPY steps: the order reverses).
 *
 *     P = 4, rank 0's TMP0 as (source -> destination):
 *     start  0>0 0>1 0>2 0>3    k=1 (from 3)  0>0 3>0 0>2 3>2
 *     k=2 (from 2)  0>0 3>0 2>0 1>0         -> RECV [0>0 1>0 2>0 3>0]
 *
 * Cost (pLogP, ../cost.h): acct_alltoall_bruck_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

/* Pack (or unpack, if !pack) the TMP0 blocks whose index has bit k set,
 * from/to RECV blocks [at, at + n) in index order; returns n. */
static uint64_t pack_bit(const struct acct_call *c, struct acct_sched *s, int k, uint64_t at,
                         bool pack)
{
    const uint64_t n = c->count;
    uint64_t pos = at;
    for (int64_t j = k; j < c->size; j += 2 * (int64_t)k) {
        const uint64_t run = (uint64_t)(j + k <= c->size ? k : c->size - j);
        if (pack)
            acct_sched_copy(s, ACCT_BUF_TMP0, (uint64_t)j * n, run * n, ACCT_BUF_RECV, pos * n,
                            run * n);
        else
            acct_sched_copy(s, ACCT_BUF_RECV, pos * n, run * n, ACCT_BUF_TMP0, (uint64_t)j * n,
                            run * n);
        pos += run;
    }
    return pos - at;
}

int acct_alltoall_bruck(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, r = c->rank;
    const uint64_t n = c->count, sn = c->scount, half = (uint64_t)(p / 2);

    if (c->in_place)
        return -1;
    if (n == 0)
        return 0;
    if (p == 1) {
        acct_alltoall_copy_own(c, s);
        return 0;
    }
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, (uint64_t)p * n);
    /* 1. TMP0 block i = SEND block (r + i) % P. */
    acct_sched_copy(s, ACCT_BUF_SEND, (uint64_t)r * sn, (uint64_t)(p - r) * sn, ACCT_BUF_TMP0, 0,
                    (uint64_t)(p - r) * n);
    if (r > 0)
        acct_sched_copy(s, ACCT_BUF_SEND, 0, (uint64_t)r * sn, ACCT_BUF_TMP0,
                        (uint64_t)(p - r) * n, (uint64_t)r * n);
    /* 2. One exchange per bit; unpacking and the next packing follow it. */
    uint64_t blocks = pack_bit(c, s, 1, 0, true);
    for (int64_t k = 1; k < p; k <<= 1) {
        if (blocks > half)
            return -1; /* cannot happen: at most floor(P/2) indices have bit k set */
        acct_sched_round(s); /* sends what the packing (a local step) wrote */
        acct_sched_send(s, (int)((r + k) % p), ACCT_BUF_RECV, 0, blocks * n);
        acct_sched_recv(s, (int)((r - k + p) % p), ACCT_BUF_RECV, half * n, blocks * n);
        pack_bit(c, s, (int)k, half, false);
        if (2 * k < p)
            blocks = pack_bit(c, s, (int)(2 * k), 0, true);
    }
    /* 3. RECV block (r - i) % P = TMP0 block i. */
    for (int i = 0; i < p; i++)
        acct_sched_copy(s, ACCT_BUF_TMP0, (uint64_t)i * n, n, ACCT_BUF_RECV,
                        (uint64_t)((r - i + p) % p) * n, n);
    return 0;
}

/* One exchange per bit d = 1, 2, 4, ... < P, every rank alike: the
 * message of step d carries the b_d blocks whose index in [0, P) has bit d
 * set (b_d = floor(P / 2d) d + max(0, P mod 2d - d): P / 2 for P = 2^k,
 * fewer on the last steps otherwise), sent and received at once:
 *   sum_d (g(b_d m) + L)
 * (P = 2^k: k (g(P m / 2) + L), March Table 4 "Bruck's Indexing" in pLogP
 * terms, 001 style); the copies are left out. */
double acct_alltoall_bruck_cost(const struct acct_cost *c)
{
    double t = 0;
    const int64_t p = c->p;
    for (int64_t d = 1; d < p; d <<= 1) {
        const int64_t rest = p % (2 * d) - d;
        const uint64_t b = (uint64_t)(p / (2 * d) * d + (rest > 0 ? rest : 0));
        t += cost_g(c, b * c->m) + cost_L(c);
    }
    return t;
}
