/* SACK reordering: fill orders of tree positions (sack_plan.h). Pure. */
#include "sack_plan.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int sack_tree_of(const char *alg_name, int fanout, int def, int size, struct sack_tree *out)
{
    struct sack_tree t = {.flat = false, .kind = ACCT_TREE_BINOMIAL, .fanout = 2, .size = size};
    int f = fanout > 0 ? fanout : def;
    int rc = 0;

    if (alg_name == NULL || size < 1)
        rc = -1;
    else if (strcmp(alg_name, "linear") == 0)
        t.flat = true;
    else if (strcmp(alg_name, "binomial") == 0)
        t.kind = ACCT_TREE_BINOMIAL;
    else if (strcmp(alg_name, "binary") == 0)
        t.kind = ACCT_TREE_BINARY;
    else if (strcmp(alg_name, "pipeline") == 0) {
        t.kind = ACCT_TREE_CHAIN;
        t.fanout = 1;
    } else if (strcmp(alg_name, "chain") == 0 && f >= 1 && f <= ACCT_TREE_MAX_FANOUT) {
        t.kind = ACCT_TREE_CHAIN;
        t.fanout = f;
    } else if (strcmp(alg_name, "knomial") == 0 && f >= 2 && f <= 16) {
        t.kind = ACCT_TREE_KNOMIAL;
        t.fanout = f;
    } else
        rc = -1;
    if (rc == 0)
        *out = t;
    return rc;
}

int sack_tree_parent(const struct sack_tree *t, int pos)
{
    struct acct_tree at;
    if (pos <= 0 || pos >= t->size)
        return -1;
    if (t->flat)
        return 0;
    return acct_tree_build(t->kind, pos, t->size, t->fanout, &at) == 0 ? at.parent : -1;
}

int sack_tree_children(const struct sack_tree *t, int pos, int *out, int max)
{
    struct acct_tree at;
    int n = -1;
    if (pos < 0 || pos >= t->size)
        return -1;
    if (t->flat) {
        n = pos == 0 ? t->size - 1 : 0;
        if (out != NULL && n > max)
            return -1;
        for (int i = 0; out != NULL && i < n; i++)
            out[i] = i + 1;
        return n;
    }
    if (acct_tree_build(t->kind, pos, t->size, t->fanout, &at) != 0)
        return -1;
    n = at.nchildren;
    if (out != NULL) {
        if (n > max)
            return -1;
        memcpy(out, at.children, (size_t)n * sizeof *out);
    }
    return n;
}

int sack_tree_child_slot(const struct sack_tree *t, int pos, int child)
{
    struct acct_tree at;
    if (pos < 0 || pos >= t->size || child <= 0 || child >= t->size)
        return -1;
    if (t->flat)
        return pos == 0 ? child - 1 : -1;
    if (acct_tree_build(t->kind, pos, t->size, t->fanout, &at) != 0)
        return -1;
    for (int i = 0; i < at.nchildren; i++)
        if (at.children[i] == child)
            return i;
    return -1;
}

int sack_fill_parse(const char *s, enum sack_fill def, enum sack_fill *out)
{
    if (s == NULL || *s == '\0')
        *out = def;
    else if (strcasecmp(s, "bf") == 0)
        *out = SACK_FILL_BF;
    else if (strcasecmp(s, "df") == 0)
        *out = SACK_FILL_DF;
    else
        return -1;
    return 0;
}

const char *sack_fill_name(enum sack_fill f)
{
    return f == SACK_FILL_BF ? "bf" : "df";
}

/* Breadth-first: the order array is its own queue. */
static int order_bf(const struct sack_tree *t, int *order)
{
    int kids[ACCT_TREE_MAX_CHILDREN];
    int head = 0, tail = 1;
    order[0] = 0;
    while (head < tail) {
        int pos = order[head++];
        if (t->flat) { /* only the root has children: 1..size-1 */
            for (int c = 1; pos == 0 && c < t->size; c++)
                order[tail++] = c;
            continue;
        }
        int n = sack_tree_children(t, pos, kids, ACCT_TREE_MAX_CHILDREN);
        if (n < 0 || tail + n > t->size)
            return -1;
        for (int i = 0; i < n; i++)
            order[tail++] = kids[i];
    }
    return tail == t->size ? 0 : -1;
}

/* Depth-first preorder, children in serving order (pushed in reverse). */
static int order_df(const struct sack_tree *t, int *order)
{
    int kids[ACCT_TREE_MAX_CHILDREN];
    int *stack = malloc((size_t)t->size * sizeof *stack);
    int top = 0, n_out = 0, rc = 0;

    if (stack == NULL)
        return -1;
    stack[top++] = 0;
    while (top > 0 && rc == 0) {
        int pos = stack[--top];
        if (n_out >= t->size) {
            rc = -1;
            break;
        }
        order[n_out++] = pos;
        if (t->flat) {
            for (int c = t->size - 1; pos == 0 && c >= 1; c--)
                stack[top++] = c;
            continue;
        }
        int n = sack_tree_children(t, pos, kids, ACCT_TREE_MAX_CHILDREN);
        if (n < 0 || top + n > t->size)
            rc = -1;
        for (int i = n - 1; rc == 0 && i >= 0; i--)
            stack[top++] = kids[i];
    }
    free(stack);
    return rc == 0 && n_out == t->size ? 0 : -1;
}

int sack_plan_init(struct sack_plan *p, const struct sack_tree *t, enum sack_fill fill)
{
    int rc;
    p->order = NULL;
    if (t->size < 1)
        return -1;
    p->tree = *t;
    p->fill = fill;
    p->order = malloc((size_t)t->size * sizeof *p->order);
    if (p->order == NULL)
        return -1;
    rc = fill == SACK_FILL_BF ? order_bf(t, p->order) : order_df(t, p->order);
    if (rc != 0) {
        free(p->order);
        p->order = NULL;
    }
    return rc;
}

void sack_plan_fini(struct sack_plan *p)
{
    free(p->order);
    p->order = NULL;
}

int sack_plan_map(const struct sack_plan *p, int root, const int *arrival, int *rank_of_pos)
{
    const int size = p->tree.size;
    int rc = 0;
    if (size < 1 || root < 0 || root >= size)
        return -1;
    for (int i = 0; i < size; i++)
        rank_of_pos[i] = -1;
    rank_of_pos[0] = root;
    for (int i = 1; i < size && rc == 0; i++) {
        int r = arrival[i - 1];
        int pos = sack_plan_position(p, i);
        if (r < 0 || r >= size || r == root)
            rc = -1;
        else
            rank_of_pos[pos] = r;
    }
    /* a permutation: every position got a distinct rank */
    char *seen = rc == 0 ? calloc((unsigned)size, 1) : NULL;
    if (rc == 0 && seen == NULL)
        rc = -1;
    for (int i = 0; rc == 0 && i < size; i++) {
        if (rank_of_pos[i] < 0 || seen[rank_of_pos[i]])
            rc = -1;
        else
            seen[rank_of_pos[i]] = 1;
    }
    free(seen);
    return rc;
}
