/* Gather + bcast allgather (Vadhiyar et al. Table 1 "gather followed by
 * broadcast"; Open MPI's allgather_intra_basic_linear composes the same
 * two collectives): a binomial gather of all blocks to rank 0, then a
 * segmented binomial bcast of the whole RECV (P · count elements) from
 * rank 0 (acct_bcast_binomial).
 *
 * Gather: rooted at 0, a binomial subtree is the contiguous rank range
 * [v, v + span), i.e. the contiguous slice RECV[v·count, span·count), and
 * every allgather rank owns a full RECV — so each rank receives its
 * children's subtrees straight into their places in its RECV (all children
 * at once), copies its own block in, then sends its subtree to its parent
 * in one message. A leaf sends its own block directly from SEND (or from
 * RECV in place) and needs no copy: the bcast rewrites its RECV anyway.
 *
 *     P = 8 gather, child -> parent carrying [blocks) (the bcast runs the
 *     same tree downwards):
 *         7 -> 6 [7,8)    6 -> 4 [6,8)    5 -> 4 [5,6)    4 -> 0 [4,8)
 *         3 -> 2 [3,4)    2 -> 0 [2,4)    1 -> 0 [1,2)
 *
 * The bcast starts after the gather has finished on that rank (a round
 * boundary: in place a rank's gather send reads the RECV the bcast
 * overwrites). Segments (seg, receive-type elements) apply to the bcast.
 *
 * Cost (pLogP, ../cost.h): acct_allgather_gather_bcast_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

static int gather_binomial(const struct acct_call *c, struct acct_sched *s)
{
    const uint64_t n = c->count;
    const int v = c->rank; /* root 0: vrank = rank */
    struct acct_tree t;

    if (acct_tree_build(ACCT_TREE_BINOMIAL, v, c->size, 2, &t) != 0)
        return -1;
    if (t.nchildren == 0) { /* a leaf */
        acct_allgather_send_own(c, s, t.parent);
        return 0;
    }
    for (int i = 0; i < t.nchildren; i++) {
        const int ch = t.children[i];
        const int span = acct_tree_span(ACCT_TREE_BINOMIAL, ch, c->size, 2);
        if (span < 1)
            return -1;
        acct_sched_recv(s, ch, ACCT_BUF_RECV, (uint64_t)ch * n, (uint64_t)span * n);
    }
    acct_allgather_copy_own(c, s, ACCT_BUF_RECV, (uint64_t)v * n);
    acct_sched_round(s); /* in place there is no copy to open the next round */
    if (t.parent >= 0) {
        const int span = acct_tree_span(ACCT_TREE_BINOMIAL, v, c->size, 2);
        if (span < 1)
            return -1;
        acct_sched_send(s, t.parent, ACCT_BUF_RECV, (uint64_t)v * n, (uint64_t)span * n);
    }
    return 0;
}

int acct_allgather_gather_bcast(const struct acct_call *c, struct acct_sched *s)
{
    struct acct_call b = *c;

    if (c->count == 0)
        return 0;
    if (c->size == 1) {
        acct_allgather_copy_own(c, s, ACCT_BUF_RECV, 0);
        return 0;
    }
    if (gather_binomial(c, s) != 0)
        return -1;
    acct_sched_round(s);
    /* bcast's single buffer is RECV: the whole allgather result. */
    b.coll = ACCT_COLL_bcast;
    b.root = 0;
    b.count = b.scount = (uint64_t)c->size * c->count;
    b.fanout = 0;
    b.in_place = false;
    return acct_bcast_binomial(&b, s);
}

/* Binomial gather of m-byte blocks to 0, then binomial bcast of P m bytes
 * (segmented). */
double acct_allgather_gather_bcast_cost(const struct acct_cost *c)
{
    uint64_t s, ns;
    struct acct_cost all = *c;
    all.m = (uint64_t)c->p * c->m;
    if (!cost_segs(&all, all.m, &s, &ns))
        return NAN;
    if (cost_pow2(c->p))
        return acct_cost_binomial_blocks(c, c->m) + acct_cost_knomial(&all, 2, s, ns);
    double *u = calloc((size_t)c->p, sizeof *u), t = NAN;
    if (u != NULL)
        t = acct_cost_binomial_up(c, c->m, u) + acct_cost_tree_path(&all, ACCT_TREE_BINOMIAL, 2, s, ns);
    free(u);
    return t;
}
