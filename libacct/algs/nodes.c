/* Helpers of the node-aware methods shared across collectives (algs.h). */
#include "algs.h"

#include <stdlib.h>

void acct_run_msg(void *ctx, int i0, int r0, int len)
{
    const struct acct_run_msg *m = ctx;
    uint64_t off = (uint64_t)(m->by_rank ? r0 : i0) * m->block, n = (uint64_t)len * m->block;
    if (m->send)
        acct_sched_send(m->s, m->peer, m->buf, off, n);
    else
        acct_sched_recv(m->s, m->peer, m->buf, off, n);
}

uint64_t acct_v_run_bytes(const struct acct_call *c, int v, int span)
{
    uint64_t n = 0;
    for (int u = v; u < v + span; u++)
        n += c->counts[acct_rank(u, c->root, c->size)];
    return n;
}

bool acct_v_run_in_place(const struct acct_call *c, int v, int span, uint64_t *off)
{
    bool first = true;
    uint64_t next = 0;
    for (int u = v; u < v + span; u++) {
        const int r = acct_rank(u, c->root, c->size);
        if (c->counts[r] == 0)
            continue;
        if (first && off != NULL)
            *off = c->displs[r];
        if (!first && c->displs[r] != next)
            return false;
        first = false;
        next = c->displs[r] + c->counts[r];
    }
    return true;
}

int acct_hier_init(const struct acct_call *c, struct acct_hier *h)
{
    const struct acct_layout *l = c->layout;
    if (l == NULL || l->size != c->size)
        return -1;
    h->l = l;
    h->me = c->rank;
    h->root = acct_coll_rooted(c->coll) ? c->root : -1;
    h->node = l->node[c->rank];
    h->nnodes = l->nnodes;
    h->base = l->first[h->node];
    h->ppn = acct_layout_ppn(l, h->node);
    h->local = l->local[c->rank];
    h->leader = acct_hier_leader(h, h->node);
    return 0;
}

int acct_hier_leader(const struct acct_hier *h, int node)
{
    return h->root >= 0 ? acct_layout_leader(h->l, node, h->root) : acct_hier_member(h, node, 0);
}

void acct_hier_ring(const struct acct_hier *h, int *next, int *prev)
{
    *next = acct_hier_leader(h, (h->node + 1) % h->nnodes);
    *prev = acct_hier_leader(h, (h->node - 1 + h->nnodes) % h->nnodes);
}

int acct_hier_tree(const struct acct_hier *h, struct acct_tree *t, int *depth)
{
    if (acct_tree_build(ACCT_TREE_BINOMIAL, h->local, h->ppn, 2, t) != 0)
        return -1;
    if (depth != NULL) { /* walk up to the leader */
        *depth = 0;
        for (int v = t->parent; v >= 0; ++*depth) {
            struct acct_tree up;
            if (acct_tree_build(ACCT_TREE_BINOMIAL, v, h->ppn, 2, &up) != 0)
                return -1;
            v = up.parent;
        }
    }
    if (t->parent >= 0)
        t->parent = acct_hier_member(h, h->node, t->parent);
    for (int i = 0; i < t->nchildren; i++)
        t->children[i] = acct_hier_member(h, h->node, t->children[i]);
    return 0;
}

int acct_hier_append_leaders(const struct acct_hier *h, struct acct_sched *s,
                             const struct acct_sched *sub)
{
    int *leaders = malloc((size_t)h->nnodes * sizeof *leaders);
    if (leaders == NULL)
        return -1;
    for (int i = 0; i < h->nnodes; i++)
        leaders[i] = acct_hier_leader(h, i);
    acct_sched_append(s, sub, leaders);
    free(leaders);
    return 0;
}

enum acct_hier_role acct_hier_rooted_role(const struct acct_call *c, const struct acct_hier *h,
                                          struct acct_sched *s, bool gather)
{
    const uint64_t own = gather ? c->scount : c->count, root = gather ? c->count : c->scount;
    if (h->me != h->leader) {
        if (own > 0 && gather)
            acct_sched_send(s, h->leader, ACCT_BUF_SEND, 0, own);
        else if (own > 0)
            acct_sched_recv(s, h->leader, ACCT_BUF_RECV, 0, own);
        return ACCT_HIER_DONE;
    }
    if (h->me == c->root)
        return root == 0 ? ACCT_HIER_DONE : ACCT_HIER_ROOT;
    return own == 0 ? ACCT_HIER_DONE : ACCT_HIER_LEADER;
}
