/* Chain scatter (mirror of chain gather): fan-out chains of consecutive
 * vranks hang off the root (acct_gather_blocks_chain); every node receives
 * from its parent the stream of the blocks [v - ndesc, v] of its chain
 * part, in buffer order and its own block last, so what it passes down is
 * a prefix of what it receives. With a segment size the stream is cut in
 * segments of seg receive elements (whole granules, across block
 * boundaries) and pipelined: a node receives segment k while it forwards
 * segment k - 1; without one, each node forwards the whole stream at once
 * (the classic chain). Interior nodes keep the stream in a scratch buffer
 * typed like the receive buffer and copy their block out at the end; the
 * tail receives straight into its receive buffer, all segments posted at
 * once. The root sends segment k to every chain in round k, straight from
 * its send buffer (a segment crossing the wrap from rank P - 1 to rank 0
 * travels as two messages).
 * Cost (pLogP, ../cost.h): acct_scatter_chain_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

/* Receive stream granules [t0, t1) of the run starting at vrank vfirst
 * into buf (rcnt elements a granule), in two pieces at the root's wrap. */
static void recv_seg(const struct acct_call *c, struct acct_sched *s,
                     const struct acct_gather_gran *b, int parent_v, int vfirst, uint64_t t0,
                     uint64_t t1, enum acct_buf buf)
{
    struct acct_piece pc[2] = {{.off = t0, .len = t1 - t0}};
    int n = parent_v == 0 ? acct_gather_blocks_pieces(c, b, vfirst, t0, t1, pc) : 1;
    for (int i = 0; i < n; i++)
        acct_sched_recv(s, acct_rank(parent_v, c->root, c->size), buf, pc[i].off * b->rcnt,
                        pc[i].len * b->rcnt);
}

static void root_side(const struct acct_call *c, struct acct_sched *s,
                      const struct acct_gather_gran *b, const struct acct_gather_chain_node *me)
{
    /* round k: segment k to every chain (one message in flight per link) */
    uint64_t len[ACCT_TREE_MAX_CHILDREN], most = 0;
    int vfirst[ACCT_TREE_MAX_CHILDREN];
    for (int h = 0; h < me->nheads; h++) {
        struct acct_gather_chain_node head;
        len[h] = 0;
        vfirst[h] = me->heads[h];
        if (acct_gather_blocks_chain(me->heads[h], c->size, c->fanout, &head) != 0)
            continue;
        vfirst[h] = me->heads[h] - head.ndesc;
        len[h] = (uint64_t)(head.ndesc + 1) * b->gran;
        if (acct_nsegs(len[h], b->seg) > most)
            most = acct_nsegs(len[h], b->seg);
    }
    for (uint64_t k = 0; k < most; k++) {
        for (int h = 0; h < me->nheads; h++) {
            struct acct_piece pc[2];
            uint64_t t0 = k * b->seg;
            if (k >= acct_nsegs(len[h], b->seg))
                continue;
            int n = acct_gather_blocks_pieces(c, b, vfirst[h], t0,
                                              t0 + acct_seg_len(len[h], b->seg, k), pc);
            for (int i = 0; i < n; i++)
                acct_sched_send(s, acct_rank(me->heads[h], c->root, c->size), ACCT_BUF_SEND,
                                pc[i].at * b->scnt, pc[i].len * b->scnt);
        }
        if (k + 1 < most)
            acct_sched_round(s);
    }
    if (!c->in_place)
        acct_sched_copy(s, ACCT_BUF_SEND, (uint64_t)c->root * c->scount, c->scount, ACCT_BUF_RECV,
                        0, c->count);
}

int acct_scatter_chain(const struct acct_call *c, struct acct_sched *s)
{
    const int v = acct_vrank(c->rank, c->root, c->size);
    struct acct_gather_chain_node me;
    struct acct_gather_gran b;

    if (acct_gather_blocks_chain(v, c->size, c->fanout, &me) != 0)
        return -1;
    acct_gather_blocks(c, &b);
    if (v == 0) {
        if (c->scount > 0)
            root_side(c, s, &b, &me);
        return 0;
    }
    if (c->count == 0)
        return 0;
    const int vfirst = v - me.ndesc;
    const uint64_t in_len = (uint64_t)(me.ndesc + 1) * b.gran;
    const uint64_t nin = acct_nsegs(in_len, b.seg);
    if (me.ndesc == 0) { /* the chain's tail: its own block, every segment at once */
        for (uint64_t k = 0; k < nin; k++)
            recv_seg(c, s, &b, me.parent, vfirst, k * b.seg,
                     k * b.seg + acct_seg_len(in_len, b.seg, k), ACCT_BUF_RECV);
        return 0;
    }
    /* stream [blocks below | own block] in TMP0; blocks below go on down */
    const uint64_t out_len = (uint64_t)me.ndesc * b.gran;
    const uint64_t nout = acct_nsegs(out_len, b.seg);
    const int child = acct_rank(v - 1, c->root, c->size);
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, (uint64_t)(me.ndesc + 1) * c->count);
    for (uint64_t k = 0; k <= nin; k++) {
        if (k < nin)
            recv_seg(c, s, &b, me.parent, vfirst, k * b.seg,
                     k * b.seg + acct_seg_len(in_len, b.seg, k), ACCT_BUF_TMP0);
        if (k >= 1 && k - 1 < nout) /* out segment k - 1 lies within in segment k - 1 */
            acct_sched_send(s, child, ACCT_BUF_TMP0, (k - 1) * b.seg * b.rcnt,
                            acct_seg_len(out_len, b.seg, k - 1) * b.rcnt);
        acct_sched_round(s);
    }
    acct_sched_copy(s, ACCT_BUF_TMP0, (uint64_t)me.ndesc * c->count, c->count, ACCT_BUF_RECV, 0,
                    c->count);
    return 0;
}

/* f chains of blocks, down (acct_cost_block_chains; BM04 Table 2 "Chain",
 * one chain: sum_{j=1}^{P-1} g(j m) + (P - 1) L). */
double acct_scatter_chain_cost(const struct acct_cost *c)
{
    return acct_cost_block_chains(c, false);
}
