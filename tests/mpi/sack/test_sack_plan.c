/* Unit test of the SACK plan (libacct/runtime/sack_plan.c), no MPI: every
 * tree the reorder branch uses, sizes 1..64, both fills, many arrival
 * orders. Checks: the fill order is a permutation starting at the root;
 * every non-root position has exactly one parent and is its parent's child
 * exactly once; the tree is connected and acyclic; parents come before
 * children; BF fills by depth (earliest arrivals nearest the root); DF is
 * the preorder in serving order (the first arrivals go down the first
 * branch); the rank mapping is the arrival order along the fill order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sack_plan.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (failures++ < 20) {                                                                 \
                fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);         \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fputc('\n', stderr);                                                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static unsigned long long rng = 0x5ac4ULL;
static unsigned next_rand(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng >> 33);
}

static int depth(const struct sack_tree *t, int pos)
{
    int d = 0;
    while (pos > 0 && d <= t->size) {
        pos = sack_tree_parent(t, pos);
        d++;
    }
    return pos == 0 ? d : -1;
}

/* Reference preorder, recursive. */
static void preorder(const struct sack_tree *t, int pos, int *out, int *n)
{
    int kids[ACCT_TREE_MAX_CHILDREN + 64];
    out[(*n)++] = pos;
    int k = sack_tree_children(t, pos, kids, (int)(sizeof kids / sizeof kids[0]));
    for (int i = 0; i < k; i++)
        preorder(t, kids[i], out, n);
}

static void check_tree(const char *name, const struct sack_tree *t)
{
    const int P = t->size;
    int *as_child = calloc((size_t)P, sizeof(int));
    int kids[ACCT_TREE_MAX_CHILDREN + 64];
    for (int pos = 0; pos < P; pos++) {
        int k = sack_tree_children(t, pos, kids, (int)(sizeof kids / sizeof kids[0]));
        CHECK(k >= 0, "%s P=%d pos=%d children", name, P, pos);
        for (int i = 0; i < k; i++) {
            CHECK(kids[i] > 0 && kids[i] < P, "%s P=%d child %d", name, P, kids[i]);
            if (kids[i] > 0 && kids[i] < P) {
                as_child[kids[i]]++;
                CHECK(sack_tree_parent(t, kids[i]) == pos, "%s P=%d parent(%d)", name, P, kids[i]);
                CHECK(sack_tree_child_slot(t, pos, kids[i]) == i, "%s P=%d slot", name, P);
            }
        }
    }
    CHECK(sack_tree_parent(t, 0) == -1, "%s P=%d root has a parent", name, P);
    CHECK(as_child[0] == 0, "%s P=%d root is a child", name, P);
    for (int pos = 1; pos < P; pos++) {
        CHECK(as_child[pos] == 1, "%s P=%d pos %d is a child %d times", name, P, pos, as_child[pos]);
        CHECK(depth(t, pos) > 0, "%s P=%d pos %d not connected to the root", name, P, pos);
    }
    free(as_child);
}

static void check_plan(const char *name, const struct sack_tree *t, enum sack_fill fill)
{
    const int P = t->size;
    struct sack_plan p;
    int *seen, *pre, *arrival, *map;
    int npre = 0;

    CHECK(sack_plan_init(&p, t, fill) == 0, "%s P=%d init", name, P);
    if (p.order == NULL)
        return;
    seen = calloc((size_t)P, sizeof(int));
    pre = malloc((size_t)P * sizeof(int));
    arrival = malloc((size_t)P * sizeof(int));
    map = malloc((size_t)P * sizeof(int));
    CHECK(p.order[0] == 0, "%s P=%d order[0]", name, P);
    for (int i = 0; i < P; i++) {
        int pos = p.order[i];
        CHECK(pos >= 0 && pos < P && !seen[pos], "%s P=%d order not a permutation", name, P);
        if (pos >= 0 && pos < P)
            seen[pos] = i + 1;
    }
    for (int i = 1; i < P; i++) { /* parents before children */
        int par = sack_tree_parent(t, p.order[i]);
        CHECK(par >= 0 && seen[par] && seen[par] < seen[p.order[i]], "%s P=%d parent order", name, P);
    }
    if (fill == SACK_FILL_BF) {
        for (int i = 1; i < P; i++)
            CHECK(depth(t, p.order[i - 1]) <= depth(t, p.order[i]), "%s P=%d BF depth at %d", name,
                  P, i);
    } else {
        preorder(t, 0, pre, &npre);
        CHECK(npre == P && memcmp(pre, p.order, (size_t)P * sizeof(int)) == 0,
              "%s P=%d DF is not the preorder", name, P);
        /* the first arrivals run down the first branch */
        for (int i = 0; i + 1 < P; i++) {
            int k = sack_tree_children(t, p.order[i], pre, P);
            if (k <= 0)
                break;
            CHECK(p.order[i + 1] == pre[0], "%s P=%d DF first branch at %d", name, P, i);
        }
    }
    /* arrival orders: identity, reverse, random; every root */
    for (int trial = 0; trial < 6; trial++) {
        int root = (int)(next_rand() % (unsigned)P);
        int n = 0;
        for (int r = 0; r < P; r++)
            if (r != root)
                arrival[n++] = r;
        if (trial == 1)
            for (int i = 0; i < n / 2; i++) {
                int x = arrival[i];
                arrival[i] = arrival[n - 1 - i];
                arrival[n - 1 - i] = x;
            }
        else if (trial >= 2)
            for (int i = n - 1; i > 0; i--) {
                int j = (int)(next_rand() % (unsigned)(i + 1)), x = arrival[i];
                arrival[i] = arrival[j];
                arrival[j] = x;
            }
        CHECK(sack_plan_map(&p, root, arrival, map) == 0, "%s P=%d map", name, P);
        CHECK(map[0] == root, "%s P=%d map root", name, P);
        for (int i = 1; i < P; i++)
            CHECK(map[p.order[i]] == arrival[i - 1], "%s P=%d arrival %d", name, P, i);
        if (fill == SACK_FILL_BF) /* earlier arrival, not deeper */
            for (int i = 1; i + 1 < P; i++) {
                int a = -1, b = -1;
                for (int q = 0; q < P; q++) {
                    if (map[q] == arrival[i - 1])
                        a = q;
                    if (map[q] == arrival[i])
                        b = q;
                }
                CHECK(depth(t, a) <= depth(t, b), "%s P=%d BF arrival depth", name, P);
            }
        if (P > 2) { /* a non-permutation is refused */
            arrival[0] = arrival[1];
            CHECK(sack_plan_map(&p, root, arrival, map) == -1, "%s P=%d dup accepted", name, P);
        }
    }
    free(seen);
    free(pre);
    free(arrival);
    free(map);
    sack_plan_fini(&p);
}

int main(void)
{
    static const struct {
        const char *alg;
        int fanout;
    } trees[] = {{"linear", 0},  {"pipeline", 0}, {"chain", 1},   {"chain", 3},   {"chain", 0},
                 {"binary", 0},  {"binomial", 0}, {"knomial", 2}, {"knomial", 3}, {"knomial", 0},
                 {"knomial", 8}, {"knomial", 16}};
    int ntrees = 0;
    struct sack_tree t;
    enum sack_fill f;

    for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++)
        for (int P = 1; P <= 64; P++) {
            char name[64];
            int def = strcmp(trees[i].alg, "chain") == 0 || strcmp(trees[i].alg, "knomial") == 0 ? 4 : 2;
            snprintf(name, sizeof name, "%s(f=%d)", trees[i].alg, trees[i].fanout);
            CHECK(sack_tree_of(trees[i].alg, trees[i].fanout, def, P, &t) == 0, "%s tree_of", name);
            check_tree(name, &t);
            check_plan(name, &t, SACK_FILL_BF);
            check_plan(name, &t, SACK_FILL_DF);
            ntrees++;
        }
    /* the paper's 8-rank binomial example, as in sack_plan.h */
    static const int bf8[] = {0, 4, 2, 1, 6, 5, 3, 7}, df8[] = {0, 4, 6, 7, 5, 2, 3, 1};
    struct sack_plan p;
    sack_tree_of("binomial", 0, 2, 8, &t);
    CHECK(sack_plan_init(&p, &t, SACK_FILL_BF) == 0 && memcmp(p.order, bf8, sizeof bf8) == 0, "bf8");
    sack_plan_fini(&p);
    CHECK(sack_plan_init(&p, &t, SACK_FILL_DF) == 0 && memcmp(p.order, df8, sizeof df8) == 0, "df8");
    sack_plan_fini(&p);
    /* not trees, and bad arguments */
    CHECK(sack_tree_of("scatter_allgather_ring", 0, 0, 8, &t) == -1, "not a tree");
    CHECK(sack_tree_of("knomial", 99, 4, 8, &t) == -1, "fan-out out of range");
    CHECK(sack_tree_of("binomial", 0, 2, 0, &t) == -1, "size 0");
    CHECK(sack_tree_of(NULL, 0, 2, 4, &t) == -1, "NULL name");
    sack_tree_of("binomial", 0, 2, 8, &t);
    CHECK(sack_tree_parent(&t, 8) == -1 && sack_tree_parent(&t, -1) == -1, "parent range");
    CHECK(sack_tree_children(&t, 8, NULL, 0) == -1, "children range");
    CHECK(sack_tree_child_slot(&t, 0, 3) == -1, "slot of a non-child");
    CHECK(sack_fill_parse("BF", SACK_FILL_DF, &f) == 0 && f == SACK_FILL_BF, "parse BF");
    CHECK(sack_fill_parse("df", SACK_FILL_BF, &f) == 0 && f == SACK_FILL_DF, "parse df");
    CHECK(sack_fill_parse(NULL, SACK_FILL_BF, &f) == 0 && f == SACK_FILL_BF, "parse default");
    CHECK(sack_fill_parse("depth", SACK_FILL_DF, &f) == -1, "parse junk");
    printf("%d trees x 2 fills checked, %d failures\n", ntrees, failures);
    return failures ? 1 : 0;
}
