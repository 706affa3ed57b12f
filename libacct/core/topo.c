/* Tree builders (acct/topo.h). */
#include "acct/topo.h"

#include <string.h>

/* The chains of a CHAIN tree split vranks 1..size-1 into `chains` runs of
 * consecutive vranks, the first (size-1) % chains runs one longer. */
static void chain_bounds(int size, int chains, int c, int *first, int *len)
{
    int n = size - 1;
    int base = n / chains, extra = n % chains;
    *len = base + (c < extra ? 1 : 0);
    *first = 1 + c * base + (c < extra ? c : extra);
}

static int build_chain(int v, int size, int chains, struct acct_tree *t)
{
    if (chains > size - 1)
        chains = size - 1 > 0 ? size - 1 : 1;
    if (v == 0) {
        for (int c = 0; c < chains && c < size - 1; c++) {
            int first, len;
            chain_bounds(size, chains, c, &first, &len);
            if (len > 0)
                t->children[t->nchildren++] = first;
        }
        return 0;
    }
    for (int c = 0; c < chains; c++) {
        int first, len;
        chain_bounds(size, chains, c, &first, &len);
        if (v >= first && v < first + len) {
            t->parent = v == first ? 0 : v - 1;
            if (v + 1 < first + len)
                t->children[t->nchildren++] = v + 1;
            return 0;
        }
    }
    return -1;
}

static int build_binary(int v, int size, struct acct_tree *t)
{
    t->parent = v == 0 ? -1 : (v - 1) / 2;
    for (long c = 2L * v + 1; c <= 2L * v + 2 && c < size; c++)
        t->children[t->nchildren++] = (int)c;
    return 0;
}

/* The lowest non-zero digit's place value of v in base k (v > 0). */
static long low_place(int v, int k)
{
    long p = 1;
    while ((v / p) % k == 0)
        p *= k;
    return p;
}

static int build_knomial(int v, int size, int k, struct acct_tree *t)
{
    long top; /* children use place values below top */
    if (v == 0) {
        top = 1;
        while (top < size)
            top *= k;
    } else {
        long p = low_place(v, k);
        t->parent = (int)(v - ((v / p) % k) * p);
        top = p;
    }
    /* Child v + d*p heads the vranks [c, c + p) clipped to size. */
    int span[ACCT_TREE_MAX_CHILDREN];
    for (long p = top / k; p >= 1; p /= k)
        for (int d = 1; d < k; d++) {
            long c = v + d * p;
            if (c < size) {
                if (t->nchildren >= ACCT_TREE_MAX_CHILDREN)
                    return -1;
                span[t->nchildren] = (int)(c + p <= size ? p : size - c);
                t->children[t->nchildren++] = (int)c;
            }
        }
    /* Serve the largest actual subtree first (stable: ties keep the higher
     * place value, then the lower digit first: Open MPI's k-nomial order,
     * 0 -> 4 1 2 3 for 8 ranks, radix 4), so the longest path starts earliest. */
    for (int i = 1; i < t->nchildren; i++)
        for (int j = i; j > 0 && span[j - 1] < span[j]; j--) {
            int ts = span[j], tc = t->children[j];
            span[j] = span[j - 1];
            t->children[j] = t->children[j - 1];
            span[j - 1] = ts;
            t->children[j - 1] = tc;
        }
    return 0;
}

int acct_tree_build(enum acct_tree_kind kind, int vrank, int size, int fanout,
                    struct acct_tree *out)
{
    struct acct_tree t;
    int rc = -1;

    if (out == NULL || size < 1 || vrank < 0 || vrank >= size)
        return -1;
    memset(&t, 0, sizeof t);
    t.parent = -1;
    switch (kind) {
    case ACCT_TREE_CHAIN:
        if (fanout >= 1 && fanout <= ACCT_TREE_MAX_FANOUT)
            rc = build_chain(vrank, size, fanout, &t);
        break;
    case ACCT_TREE_BINARY:
        rc = build_binary(vrank, size, &t);
        break;
    case ACCT_TREE_BINOMIAL:
        rc = build_knomial(vrank, size, 2, &t);
        break;
    case ACCT_TREE_KNOMIAL:
        if (fanout >= 2 && fanout <= ACCT_TREE_MAX_RADIX)
            rc = build_knomial(vrank, size, fanout, &t);
        break;
    }
    if (rc == 0)
        *out = t;
    return rc;
}

int acct_tree_span(enum acct_tree_kind kind, int vrank, int size, int fanout)
{
    int k = kind == ACCT_TREE_BINOMIAL ? 2 : fanout;
    if ((kind != ACCT_TREE_BINOMIAL && kind != ACCT_TREE_KNOMIAL) || k < 2 || k > ACCT_TREE_MAX_RADIX ||
        size < 1 || vrank < 0 || vrank >= size)
        return -1;
    long span;
    if (vrank == 0) {
        span = size;
    } else {
        span = low_place(vrank, k);
        if (vrank + span > size)
            span = size - vrank;
    }
    return (int)span;
}
