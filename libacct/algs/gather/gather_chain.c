/* Chain gather: fan-out chains of consecutive vranks hang off the root
 * (acct_gather_blocks_chain); every node passes up its chain the stream of
 * the blocks [v - ndesc, v] below and including it, in buffer order, its
 * own block last. With a segment size the stream is cut in segments of
 * seg receive elements (whole granules, across block boundaries) and
 * pipelined: a node receives segment k from below while it forwards
 * segment k - 1, one message in flight per link (the tail too sends a
 * segment a round); without one, each node forwards the whole stream at
 * once (the classic chain).
 * Interior nodes keep the stream in a scratch buffer typed like the send
 * buffer; the root receives each chain's segments straight into its
 * receive buffer, posting all of them at once (a segment that crosses the
 * wrap from rank P - 1 to rank 0 travels as two messages).
 * Cost (pLogP, ../cost.h): acct_gather_chain_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

/* Send stream granules [t0, t1) of the run starting at vrank vfirst from
 * buf (scnt elements a granule) to the parent, in two pieces at the root's
 * wrap. */
static void send_seg(const struct acct_call *c, struct acct_sched *s,
                     const struct acct_gather_gran *b, int parent_v, int vfirst, uint64_t t0,
                     uint64_t t1, enum acct_buf buf)
{
    struct acct_piece pc[2] = {{.off = t0, .len = t1 - t0}};
    int n = parent_v == 0 ? acct_gather_blocks_pieces(c, b, vfirst, t0, t1, pc) : 1;
    for (int i = 0; i < n; i++)
        acct_sched_send(s, acct_rank(parent_v, c->root, c->size), buf, pc[i].off * b->scnt,
                        pc[i].len * b->scnt);
}

static void root_side(const struct acct_call *c, struct acct_sched *s,
                      const struct acct_gather_gran *b, const struct acct_gather_chain_node *me)
{
    if (!c->in_place)
        acct_sched_copy(s, ACCT_BUF_SEND, 0, c->scount, ACCT_BUF_RECV,
                        (uint64_t)c->root * c->count, c->count);
    for (int h = 0; h < me->nheads; h++) {
        struct acct_gather_chain_node head;
        if (acct_gather_blocks_chain(me->heads[h], c->size, c->fanout, &head) != 0)
            continue;
        const int vfirst = me->heads[h] - head.ndesc;
        const uint64_t len = (uint64_t)(head.ndesc + 1) * b->gran;
        for (uint64_t k = 0; k < acct_nsegs(len, b->seg); k++) {
            struct acct_piece pc[2];
            uint64_t t0 = k * b->seg;
            int n = acct_gather_blocks_pieces(c, b, vfirst, t0,
                                              t0 + acct_seg_len(len, b->seg, k), pc);
            for (int i = 0; i < n; i++)
                acct_sched_recv(s, acct_rank(me->heads[h], c->root, c->size), ACCT_BUF_RECV,
                                pc[i].at * b->rcnt, pc[i].len * b->rcnt);
        }
    }
}

int acct_gather_chain(const struct acct_call *c, struct acct_sched *s)
{
    const int v = acct_vrank(c->rank, c->root, c->size);
    struct acct_gather_chain_node me;
    struct acct_gather_gran b;

    if (acct_gather_blocks_chain(v, c->size, c->fanout, &me) != 0)
        return -1;
    acct_gather_blocks(c, &b);
    if (v == 0) {
        if (c->count > 0)
            root_side(c, s, &b, &me);
        return 0;
    }
    if (c->scount == 0)
        return 0;
    const int vfirst = v - me.ndesc;
    const uint64_t out_len = (uint64_t)(me.ndesc + 1) * b.gran;
    const uint64_t nout = acct_nsegs(out_len, b.seg);
    if (me.ndesc == 0) { /* the chain's tail: its block, a segment a round */
        for (uint64_t k = 0; k < nout; k++) {
            send_seg(c, s, &b, me.parent, vfirst, k * b.seg,
                     k * b.seg + acct_seg_len(out_len, b.seg, k), ACCT_BUF_SEND);
            acct_sched_round(s);
        }
        return 0;
    }
    /* stream [blocks below | own block] in TMP0 */
    const uint64_t in_len = (uint64_t)me.ndesc * b.gran;
    const uint64_t nin = acct_nsegs(in_len, b.seg);
    const int child = acct_rank(v - 1, c->root, c->size);
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_SEND, (uint64_t)(me.ndesc + 1) * c->scount);
    acct_sched_copy(s, ACCT_BUF_SEND, 0, c->scount, ACCT_BUF_TMP0,
                    (uint64_t)me.ndesc * c->scount, c->scount);
    /* round k: receive in segment k, forward out segment k - 1, which lies
     * within in segments 0..k-1 (or reaches into the own block, copied
     * first) */
    for (uint64_t k = 0; k <= nout; k++) {
        if (k < nin)
            acct_sched_recv(s, child, ACCT_BUF_TMP0, k * b.seg * b.scnt,
                            acct_seg_len(in_len, b.seg, k) * b.scnt);
        if (k >= 1)
            send_seg(c, s, &b, me.parent, vfirst, (k - 1) * b.seg,
                     (k - 1) * b.seg + acct_seg_len(out_len, b.seg, k - 1), ACCT_BUF_TMP0);
        acct_sched_round(s);
    }
    return 0;
}

/* f chains of blocks, up (acct_cost_block_chains; BM04 Table 2 "Chain",
 * one chain: sum_{j=1}^{P-1} g(j m) + (P - 1) L). */
double acct_gather_chain_cost(const struct acct_cost *c)
{
    return acct_cost_block_chains(c, true);
}
