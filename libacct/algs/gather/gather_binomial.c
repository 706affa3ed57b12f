/* Binomial gather: each subtree of a binomial tree is a contiguous vrank
 * range [v, v + span), so a node sends its whole subtree's blocks to its
 * parent in one message. Interior nodes gather their subtree in vrank
 * order in a scratch buffer typed like the send buffer (the receive type
 * is only significant at the root); the root receives each child's run
 * straight into its receive buffer at the ranks' places, in two messages
 * when the run wraps past rank P - 1 (root != 0), so no rotation copy.
 * Every node posts its children's receives at once (Open MPI's
 * ompi_coll_base_gather_intra_binomial receives them one by one).
 * Cost (pLogP, ../cost.h): acct_gather_binomial_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

/* Send the run of vranks [v, v + span) (granules [0, span * gran) of buf,
 * scnt elements each) to the parent; split where the root's order wraps. */
static void send_run(const struct acct_call *c, struct acct_sched *s,
                     const struct acct_gather_gran *b, int v, int span, int parent_v,
                     enum acct_buf buf)
{
    const int parent = acct_rank(parent_v, c->root, c->size);
    const uint64_t len = (uint64_t)span * b->gran;
    struct acct_piece pc[2];
    int n = 1;
    pc[0].off = 0;
    pc[0].len = len;
    if (parent_v == 0)
        n = acct_gather_blocks_pieces(c, b, v, 0, len, pc);
    for (int i = 0; i < n; i++)
        acct_sched_send(s, parent, buf, pc[i].off * b->scnt, pc[i].len * b->scnt);
}

int acct_gather_binomial(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, v = acct_vrank(c->rank, c->root, p);
    struct acct_gather_gran b;
    struct acct_tree t;

    if (acct_tree_build(ACCT_TREE_BINOMIAL, v, p, 2, &t) != 0)
        return -1;
    acct_gather_blocks(c, &b);
    if (v == 0 ? c->count == 0 : c->scount == 0)
        return 0;
    if (v == 0) {
        if (!c->in_place)
            acct_sched_copy(s, ACCT_BUF_SEND, 0, c->scount, ACCT_BUF_RECV,
                            (uint64_t)c->root * c->count, c->count);
        for (int i = 0; i < t.nchildren; i++) {
            const int ch = t.children[i];
            const int span = acct_tree_span(ACCT_TREE_BINOMIAL, ch, p, 2);
            struct acct_piece pc[2];
            int n = acct_gather_blocks_pieces(c, &b, ch, 0, (uint64_t)span * b.gran, pc);
            for (int k = 0; k < n; k++)
                acct_sched_recv(s, acct_rank(ch, c->root, p), ACCT_BUF_RECV, pc[k].at * b.rcnt,
                                pc[k].len * b.rcnt);
        }
        return 0;
    }
    if (t.nchildren == 0) {
        send_run(c, s, &b, v, 1, t.parent, ACCT_BUF_SEND);
        return 0;
    }
    const int span = acct_tree_span(ACCT_TREE_BINOMIAL, v, p, 2);
    acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_SEND, (uint64_t)span * c->scount);
    acct_sched_copy(s, ACCT_BUF_SEND, 0, c->scount, ACCT_BUF_TMP0, 0, c->scount);
    for (int i = 0; i < t.nchildren; i++) {
        const int ch = t.children[i];
        const int cspan = acct_tree_span(ACCT_TREE_BINOMIAL, ch, p, 2);
        acct_sched_recv(s, acct_rank(ch, c->root, p), ACCT_BUF_TMP0,
                        (uint64_t)(ch - v) * c->scount, (uint64_t)cspan * c->scount);
    }
    acct_sched_round(s);
    send_run(c, s, &b, v, span, t.parent, ACCT_BUF_TMP0);
    return 0;
}

/* Binomial tree of blocks (BM04 Table 2; gather mirrors scatter), P = 2^k:
 * sum_{j=0}^{k-1} g(2^j m) + k L; other P: the arrival recurrence of
 * acct_cost_binomial_up. */
double acct_gather_binomial_cost(const struct acct_cost *c)
{
    if (cost_pow2(c->p))
        return acct_cost_binomial_blocks(c, c->m);
    double *u = calloc((size_t)c->p, sizeof *u);
    double t = u != NULL ? acct_cost_binomial_up(c, c->m, u) : NAN;
    free(u);
    return t;
}
