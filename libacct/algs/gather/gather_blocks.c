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
