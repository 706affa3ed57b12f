/* Layouts and node-aware trees (acct/layout.h). */
#include "acct/layout.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct keyed {
    int key, rank;
};

static int by_key_rank(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

void acct_layout_free(struct acct_layout *l)
{
    free(l->node);
    free(l->local);
    free(l->first);
    free(l->members);
    memset(l, 0, sizeof *l);
}

/* Node numbers by lowest rank: group g (in key order) gets the number of
 * the order in which rank order meets it. */
static void number_nodes(struct acct_layout *l, const struct keyed *sorted, int size)
{
    int *group_node = l->members; /* scratch: group -> node, then overwritten */
    int groups = 0;
    for (int i = 0; i < size; i++) {
        if (i > 0 && sorted[i].key != sorted[i - 1].key)
            groups++;
        l->local[sorted[i].rank] = groups; /* scratch: rank -> group */
    }
    for (int g = 0; g <= groups; g++)
        group_node[g] = -1;
    int nodes = 0;
    for (int r = 0; r < size; r++) {
        int g = l->local[r];
        if (group_node[g] < 0)
            group_node[g] = nodes++;
        l->node[r] = group_node[g];
    }
    l->nnodes = nodes;
}

int acct_layout_build(struct acct_layout *l, int size, const int *key)
{
    memset(l, 0, sizeof *l);
    if (size < 1 || key == NULL)
        return -1;
    struct keyed *sorted = malloc((size_t)size * sizeof *sorted);
    l->node = malloc((size_t)size * sizeof *l->node);
    l->local = malloc((size_t)size * sizeof *l->local);
    l->members = malloc((size_t)size * sizeof *l->members);
    l->first = calloc((size_t)size + 1, sizeof *l->first);
    if (sorted == NULL || l->node == NULL || l->local == NULL || l->members == NULL ||
        l->first == NULL) {
        free(sorted);
        acct_layout_free(l);
        return -1;
    }
    for (int r = 0; r < size; r++)
        sorted[r] = (struct keyed){key[r], r};
    qsort(sorted, (size_t)size, sizeof *sorted, by_key_rank);
    number_nodes(l, sorted, size);
    free(sorted);
    l->size = size;
    /* members grouped by node, rank order within a node (counting sort) */
    for (int r = 0; r < size; r++)
        l->first[l->node[r] + 1]++;
    for (int n = 0; n < l->nnodes; n++)
        l->first[n + 1] += l->first[n];
    l->min_ppn = size;
    l->max_ppn = 0;
    for (int n = 0; n < l->nnodes; n++) {
        int ppn = acct_layout_ppn(l, n);
        l->min_ppn = ppn < l->min_ppn ? ppn : l->min_ppn;
        l->max_ppn = ppn > l->max_ppn ? ppn : l->max_ppn;
    }
    int *fill = calloc((size_t)l->nnodes, sizeof *fill);
    if (fill == NULL) {
        acct_layout_free(l);
        return -1;
    }
    for (int r = 0; r < size; r++) {
        int n = l->node[r];
        l->local[r] = fill[n];
        l->members[l->first[n] + fill[n]++] = r;
    }
    free(fill);
    return 0;
}

bool acct_layout_equal(const struct acct_layout *a, const struct acct_layout *b)
{
    return a->size == b->size && a->nnodes == b->nnodes &&
           memcmp(a->node, b->node, (size_t)a->size * sizeof *a->node) == 0;
}

int acct_layout_leader(const struct acct_layout *l, int n, int root)
{
    return l->node[root] == n ? root : l->members[l->first[n]];
}

/* Append child to out; -1 when full. */
static int add_child(struct acct_tree *out, int rank)
{
    if (out->nchildren >= ACCT_TREE_MAX_CHILDREN)
        return -1;
    out->children[out->nchildren++] = rank;
    return 0;
}

/* The inter-node part at a leader: parent and children among leaders. */
static int inter_part(const struct acct_layout *l, int node, int root, enum acct_tree_kind kind,
                      int fanout, struct acct_tree *out)
{
    const int nn = l->nnodes, rnode = l->node[root];
    struct acct_tree t;
    if (acct_tree_build(kind, (node - rnode + nn) % nn, nn, fanout, &t) != 0)
        return -1;
    if (t.parent >= 0)
        out->parent = acct_layout_leader(l, (t.parent + rnode) % nn, root);
    for (int i = 0; i < t.nchildren; i++)
        if (add_child(out, acct_layout_leader(l, (t.children[i] + rnode) % nn, root)) != 0)
            return -1;
    return 0;
}

/* The intra-node part: the tree over node's ranks rooted at its leader. */
static int intra_part(const struct acct_layout *l, int rank, int leader, enum acct_tree_kind kind,
                      int fanout, struct acct_tree *out)
{
    const int n = l->node[rank], ppn = acct_layout_ppn(l, n), base = l->first[n];
    const int lead = l->local[leader];
    struct acct_tree t;
    if (acct_tree_build(kind, (l->local[rank] - lead + ppn) % ppn, ppn, fanout, &t) != 0)
        return -1;
    if (t.parent >= 0)
        out->parent = l->members[base + (t.parent + lead) % ppn];
    for (int i = 0; i < t.nchildren; i++)
        if (add_child(out, l->members[base + (t.children[i] + lead) % ppn]) != 0)
            return -1;
    return 0;
}

int acct_layout_tree(const struct acct_layout *l, int rank, int root, enum acct_tree_kind inter,
                     int inter_fanout, enum acct_tree_kind intra, int intra_fanout,
                     struct acct_tree *out)
{
    if (l == NULL || rank < 0 || rank >= l->size || root < 0 || root >= l->size)
        return -1;
    const int n = l->node[rank], leader = acct_layout_leader(l, n, root);
    out->parent = -1;
    out->nchildren = 0;
    if (rank == leader && inter_part(l, n, root, inter, inter_fanout, out) != 0)
        return -1;
    return intra_part(l, rank, leader, intra, intra_fanout, out);
}

void acct_layout_runs(const struct acct_layout *l, int n, acct_layout_run_fn fn, void *ctx)
{
    for (int i = l->first[n]; i < l->first[n + 1];) {
        int r0 = l->members[i], len = 1;
        while (i + len < l->first[n + 1] && l->members[i + len] == r0 + len)
            len++;
        fn(ctx, i - l->first[n], r0, len);
        i += len;
    }
}

const char *acct_layout_describe(const struct acct_layout *l, char *buf, unsigned len)
{
    if (l->min_ppn == l->max_ppn)
        snprintf(buf, len, "%d node%s, %d rank%s per node", l->nnodes, l->nnodes == 1 ? "" : "s",
                 l->max_ppn, l->max_ppn == 1 ? "" : "s");
    else
        snprintf(buf, len, "%d nodes, %d-%d ranks per node", l->nnodes, l->min_ppn, l->max_ppn);
    return buf;
}

#define PATTERN_MAX_NODES 4096

int acct_layout_pattern_label(const char *spec, long world_rank)
{
    long counts[PATTERN_MAX_NODES], total = 0;
    int n = 0;
    const char *p = spec;
    if (spec == NULL || world_rank < 0)
        return -1;
    while (*p != '\0') {
        char *end;
        errno = 0;
        long c = strtol(p, &end, 10);
        if (end == p || errno != 0 || c < 1 || c > 1L << 20 || n == PATTERN_MAX_NODES ||
            (*end != ',' && *end != '\0') || (*end == ',' && end[1] == '\0') || *p == '-' ||
            *p == '+' || *p == ' ')
            return -1;
        counts[n++] = c;
        total += c;
        p = *end == ',' ? end + 1 : end;
    }
    if (n == 0)
        return -1;
    long rep = world_rank / total, off = world_rank % total;
    int i = 0;
    while (off >= counts[i])
        off -= counts[i++];
    if (rep > (INT_MAX - i) / n)
        return -1;
    return (int)(rep * n + i);
}
