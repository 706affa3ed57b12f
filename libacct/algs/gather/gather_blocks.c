/* Block helpers shared by the gather and scatter builders (gather.h):
 * granules (segments inside a block that both datatypes can express),
 * pieces (a run of blocks as the root stores it, split where rank order
 * wraps) and the chains of gather/scatter chain. */
#include "../algs.h"

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

void acct_gather_blocks(const struct acct_call *c, struct acct_gather_gran *b)
{
    b->gran = gcd_u64(c->count, c->scount);
    b->rcnt = b->gran ? c->count / b->gran : 0;
    b->scnt = b->gran ? c->scount / b->gran : 0;
    b->seg = 0;
    if (c->seg != 0 && b->gran != 0) {
        /* call->seg is in receive elements; the gather non-root may only
         * know its own send count (rcnt 0): read it as send elements. */
        uint64_t unit = b->rcnt ? b->rcnt : b->scnt;
        b->seg = c->seg / unit ? c->seg / unit : 1;
    }
}

int acct_gather_blocks_pieces(const struct acct_call *c, const struct acct_gather_gran *b,
                              int vfirst, uint64_t t0, uint64_t t1, struct acct_piece out[2])
{
    const int p = c->size;
    const uint64_t base = (uint64_t)acct_rank(vfirst, c->root, p) * b->gran;
    int n = 0;

    if (t1 <= t0)
        return 0;
    if (vfirst + c->root < p) {
        /* vrank p - root is rank 0: the run wraps at its granule tw */
        uint64_t tw = (uint64_t)(p - c->root - vfirst) * b->gran;
        if (t0 < tw) {
            struct acct_piece a = {.off = t0, .at = base + t0, .len = (t1 < tw ? t1 : tw) - t0};
            out[n++] = a;
        }
        if (t1 > tw) {
            uint64_t from = t0 > tw ? t0 : tw;
            struct acct_piece a = {.off = from, .at = from - tw, .len = t1 - from};
            out[n++] = a;
        }
    } else {
        struct acct_piece a = {.off = t0, .at = base + t0, .len = t1 - t0};
        out[n++] = a;
    }
    return n;
}

/* Nodes below chain position x (topo CHAIN: its child is x + 1 up to the
 * end of its chain). The chains are contiguous runs of positions and the
 * root's children are their heads, so x's chain ends just before the next
 * head (or at size - 1): O(fan-out), where walking down the chain made
 * every rank's schedule O(P) and a 64k-rank simulation O(P^2). */
static int below(int x, int size, int fanout)
{
    struct acct_tree root;
    int end = size; /* one past x's chain */
    if (acct_tree_build(ACCT_TREE_CHAIN, 0, size, fanout, &root) != 0)
        return 0;
    for (int i = 0; i < root.nchildren; i++)
        if (root.children[i] > x && root.children[i] < end)
            end = root.children[i];
    return end - 1 - x;
}

int acct_gather_blocks_chain(int v, int size, int fanout, struct acct_gather_chain_node *out)
{
    struct acct_tree t;
    const int x = v == 0 ? 0 : size - v;

    if (v < 0 || v >= size || acct_tree_build(ACCT_TREE_CHAIN, x, size, fanout, &t) != 0)
        return -1;
    out->parent = t.parent < 0 ? -1 : (t.parent == 0 ? 0 : size - t.parent);
    out->nheads = 0;
    out->ndesc = 0;
    if (v == 0) {
        for (int i = 0; i < t.nchildren; i++)
            out->heads[out->nheads++] = size - t.children[i];
        out->ndesc = size - 1;
    } else {
        out->ndesc = below(x, size, fanout);
    }
    return 0;
}

int acct_gather_nodes_build(const struct acct_hier *h, struct acct_gather_nodes *out)
{
    const struct acct_layout *l = h->l;
    out->l = l;
    out->root = h->root;
    out->root_node = l->node[h->root];
    out->v = acct_vrank(h->node, out->root_node, l->nnodes);
    if (acct_tree_build(ACCT_TREE_BINOMIAL, out->v, l->nnodes, 2, &out->t) != 0)
        return -1;
    out->span = acct_tree_span(ACCT_TREE_BINOMIAL, out->v, l->nnodes, 2);
    return 0;
}

int acct_gather_nodes_ranks(const struct acct_gather_nodes *t, int v, int u)
{
    int n = 0;
    for (int w = v; w < u; w++)
        n += acct_layout_ppn(t->l, acct_gather_nodes_node(t, w));
    return n;
}

bool acct_gather_nodes_contiguous(const struct acct_gather_nodes *t, int v, int span, int *first)
{
    int next = -1;
    for (int w = v; w < v + span; w++) {
        const int n = acct_gather_nodes_node(t, w);
        for (int i = t->l->first[n]; i < t->l->first[n + 1]; i++) {
            const int r = t->l->members[i];
            if (next >= 0 && r != next)
                return false;
            if (next < 0)
                *first = r;
            next = r + 1;
        }
    }
    return true;
}

/* acct_layout_runs callback: copy a run of a node's blocks between its
 * place in a subtree's scratch and its ranks' places in the full buffer. */
static void nodes_run(void *ctx, int i0, int r0, int len)
{
    const struct acct_gather_nodes_copy *m = ctx;
    const uint64_t sub = (m->at + (uint64_t)i0) * m->block, full = (uint64_t)r0 * m->block;
    const uint64_t n = (uint64_t)len * m->block;
    if (m->gather)
        acct_sched_copy(m->s, m->buf, sub, n, ACCT_BUF_RECV, full, n);
    else
        acct_sched_copy(m->s, ACCT_BUF_SEND, full, n, m->buf, sub, n);
}

void acct_gather_nodes_copy(const struct acct_gather_nodes *t, int v, int span,
                            struct acct_gather_nodes_copy *m)
{
    const uint64_t at = m->at;
    for (int w = v; w < v + span; w++) {
        acct_layout_runs(t->l, acct_gather_nodes_node(t, w), nodes_run, m);
        m->at += (uint64_t)acct_layout_ppn(t->l, acct_gather_nodes_node(t, w));
    }
    m->at = at;
}

/* ---- the intra-node phase of the node-aware gathers and scatters ---- */

/* One message with each other rank of this node, in the node's order:
 * SEND or RECV of buf at block (by_rank ? its rank : its index in the
 * node) of `block` elements. */
static void intra_msgs(const struct acct_hier *h, struct acct_sched *s, bool send,
                       enum acct_buf buf, bool by_rank, uint64_t block)
{
    for (int i = 0; i < h->ppn; i++) {
        const int r = acct_hier_member(h, h->node, i);
        if (r == h->me)
            continue;
        const uint64_t off = (uint64_t)(by_rank ? r : i) * block;
        if (send)
            acct_sched_send(s, r, buf, off, block);
        else
            acct_sched_recv(s, r, buf, off, block);
    }
}

void acct_gather_intra_root(const struct acct_call *c, const struct acct_hier *h,
                            struct acct_sched *s)
{
    if (!c->in_place)
        acct_sched_copy(s, ACCT_BUF_SEND, 0, c->scount, ACCT_BUF_RECV, (uint64_t)h->me * c->count,
                        c->count);
    intra_msgs(h, s, false, ACCT_BUF_RECV, true, c->count);
}

void acct_gather_intra_leader(const struct acct_call *c, const struct acct_hier *h,
                              struct acct_sched *s)
{
    intra_msgs(h, s, false, ACCT_BUF_TMP0, false, c->scount);
    acct_sched_copy(s, ACCT_BUF_SEND, 0, c->scount, ACCT_BUF_TMP0,
                    (uint64_t)h->local * c->scount, c->scount);
}

void acct_scatter_intra_root(const struct acct_call *c, const struct acct_hier *h,
                             struct acct_sched *s)
{
    intra_msgs(h, s, true, ACCT_BUF_SEND, true, c->scount);
    if (!c->in_place)
        acct_sched_copy(s, ACCT_BUF_SEND, (uint64_t)h->me * c->scount, c->scount, ACCT_BUF_RECV,
                        0, c->count);
}

void acct_scatter_intra_leader(const struct acct_call *c, const struct acct_hier *h,
                               struct acct_sched *s)
{
    intra_msgs(h, s, true, ACCT_BUF_TMP0, false, c->count);
    acct_sched_copy(s, ACCT_BUF_TMP0, (uint64_t)h->local * c->count, c->count, ACCT_BUF_RECV, 0,
                    c->count);
}
