/* Layouts (acct/layout.h): node numbering by lowest rank, members and local
 * indices, irregular counts; the node-aware trees for every tree kind,
 * layout pattern, size 1..40 and root: parent and children agree, every
 * rank is reached from the root exactly once, the root leads its node, and
 * exactly nnodes - 1 edges cross between nodes (each node's link carries a
 * segment once). Bad arguments are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "acct/layout.h"

#define MAXP 40

static void test_build(void **state)
{
    (void)state;
    /* labels 7 7 3 7 3 9: nodes by lowest rank: {0,1,3} {2,4} {5} */
    const int key[] = {7, 7, 3, 7, 3, 9};
    struct acct_layout l;
    assert_int_equal(acct_layout_build(&l, 6, key), 0);
    assert_int_equal(l.nnodes, 3);
    const int node[] = {0, 0, 1, 0, 1, 2}, local[] = {0, 1, 0, 2, 1, 0};
    const int members[] = {0, 1, 3, 2, 4, 5}, first[] = {0, 3, 5, 6};
    assert_memory_equal(l.node, node, sizeof node);
    assert_memory_equal(l.local, local, sizeof local);
    assert_memory_equal(l.members, members, sizeof members);
    assert_memory_equal(l.first, first, sizeof first);
    assert_int_equal(l.min_ppn, 1);
    assert_int_equal(l.max_ppn, 3);
    assert_false(acct_layout_regular(&l));
    assert_int_equal(acct_layout_leader(&l, 0, 4), 0); /* lowest rank */
    assert_int_equal(acct_layout_leader(&l, 1, 4), 4); /* the root on its node */
    char buf[64];
    assert_string_equal(acct_layout_describe(&l, buf, sizeof buf), "3 nodes, 1-3 ranks per node");
    struct acct_layout m;
    const int same[] = {0, 0, 5, 0, 5, -2};
    assert_int_equal(acct_layout_build(&m, 6, same), 0);
    assert_true(acct_layout_equal(&l, &m));
    acct_layout_free(&m);
    const int other[] = {0, 0, 5, 5, 5, -2};
    assert_int_equal(acct_layout_build(&m, 6, other), 0);
    assert_false(acct_layout_equal(&l, &m));
    acct_layout_free(&m);
    acct_layout_free(&l);
    assert_int_equal(acct_layout_build(&l, 0, key), -1);
    assert_int_equal(acct_layout_build(&l, 3, NULL), -1);
    const int one[] = {4, 4, 4, 4};
    assert_int_equal(acct_layout_build(&l, 4, one), 0);
    assert_true(acct_layout_regular(&l));
    assert_string_equal(acct_layout_describe(&l, buf, sizeof buf), "1 node, 4 ranks per node");
    acct_layout_free(&l);
}

static int key_of(int pattern, int r)
{
    switch (pattern) {
    case 0: return r / 4;              /* blocks of 4 */
    case 1: return r % 3;              /* round-robin over 3 */
    case 2: return 0;                  /* one node */
    case 3: return r;                  /* one rank per node */
    case 4: return r < 5 ? 0 : r / 2;  /* 5 ranks, then pairs */
    default: return (r * 7) % 5;       /* scattered over 5 */
    }
}

static void check_tree(const struct acct_layout *l, int root, enum acct_tree_kind inter, int f)
{
    int p = l->size, reached[MAXP] = {0}, queue[MAXP], head = 0, tail = 0, crossings = 0;
    struct acct_tree t, c;
    queue[tail++] = root;
    reached[root] = 1;
    while (head < tail) {
        int v = queue[head++];
        assert_int_equal(acct_layout_tree(l, v, root, inter, f, ACCT_TREE_BINOMIAL, 2, &t), 0);
        assert_int_equal(t.parent < 0, v == root);
        for (int i = 0; i < t.nchildren; i++) {
            int w = t.children[i];
            assert_true(w >= 0 && w < p);
            assert_int_equal(reached[w], 0); /* reached once */
            reached[w] = 1;
            queue[tail++] = w;
            assert_int_equal(acct_layout_tree(l, w, root, inter, f, ACCT_TREE_BINOMIAL, 2, &c), 0);
            assert_int_equal(c.parent, v); /* my child names me its parent */
            if (l->node[w] != l->node[v]) {
                crossings++;
                /* between leaders only, and intra-node children come last */
                assert_int_equal(w, acct_layout_leader(l, l->node[w], root));
                assert_int_equal(v, acct_layout_leader(l, l->node[v], root));
                for (int j = 0; j < i; j++)
                    assert_int_not_equal(l->node[t.children[j]], l->node[v]);
            }
        }
    }
    assert_int_equal(tail, p); /* every rank reached */
    assert_int_equal(crossings, l->nnodes - 1);
    assert_int_equal(acct_layout_leader(l, l->node[root], root), root);
}

static void test_trees(void **state)
{
    (void)state;
    const struct {
        enum acct_tree_kind kind;
        int fanout;
    } inter[] = {{ACCT_TREE_CHAIN, 1}, {ACCT_TREE_CHAIN, 3}, {ACCT_TREE_BINARY, 2},
                 {ACCT_TREE_BINOMIAL, 2}, {ACCT_TREE_KNOMIAL, 3}};
    for (int p = 1; p <= MAXP; p++)
        for (int pattern = 0; pattern < 6; pattern++) {
            int key[MAXP];
            struct acct_layout l;
            for (int r = 0; r < p; r++)
                key[r] = key_of(pattern, r);
            assert_int_equal(acct_layout_build(&l, p, key), 0);
            for (int root = 0; root < p; root++)
                for (size_t k = 0; k < sizeof inter / sizeof *inter; k++)
                    check_tree(&l, root, inter[k].kind, inter[k].fanout);
            acct_layout_free(&l);
        }
}

struct runs_seen {
    int n, v[8][3];
};

static void note_run(void *ctx, int i0, int r0, int len)
{
    struct runs_seen *r = ctx;
    assert_true(r->n < 8);
    r->v[r->n][0] = i0;
    r->v[r->n][1] = r0;
    r->v[r->n++][2] = len;
}

/* Runs of consecutive ranks: one per node in blocks, one per rank
 * round-robin, split where a node's ranks skip. */
static void test_runs(void **state)
{
    (void)state;
    const int key[] = {0, 0, 0, 1, 1, 0, 2, 0}; /* node 0: 0 1 2 5 7 */
    struct acct_layout l;
    struct runs_seen r = {0};
    assert_int_equal(acct_layout_build(&l, 8, key), 0);
    acct_layout_runs(&l, 0, note_run, &r);
    const int want[3][3] = {{0, 0, 3}, {3, 5, 1}, {4, 7, 1}};
    assert_int_equal(r.n, 3);
    assert_memory_equal(r.v, want, sizeof want);
    r.n = 0;
    acct_layout_runs(&l, 1, note_run, &r); /* node 1: 3 4 */
    assert_int_equal(r.n, 1);
    assert_int_equal(r.v[0][0], 0);
    assert_int_equal(r.v[0][1], 3);
    assert_int_equal(r.v[0][2], 2);
    acct_layout_free(&l);
}

static void test_pattern(void **state)
{
    (void)state;
    /* "2": pairs */
    for (long r = 0; r < 10; r++)
        assert_int_equal(acct_layout_pattern_label("2", r), r / 2);
    /* "5,3,1,4": nodes 0..3, then 4..7 */
    const int want[] = { 0, 0, 0, 0, 0, 1, 1, 1, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 5 };
    for (long r = 0; r < (long)(sizeof want / sizeof want[0]); r++)
        assert_int_equal(acct_layout_pattern_label("5,3,1,4", r), want[r]);
    assert_int_equal(acct_layout_pattern_label("1", 123456), 123456);
    /* refused: not a list of counts >= 1 */
    const char *bad[] = { "", "0", "2,", ",2", "2,,3", "a", "2x", "-1", "+2", " 2", "2 ",
                          "1048577", "99999999999999999999" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(acct_layout_pattern_label(bad[i], 0), -1);
    assert_int_equal(acct_layout_pattern_label(NULL, 0), -1);
    assert_int_equal(acct_layout_pattern_label("2", -1), -1);
}

static void test_tree_bad_arguments(void **state)
{
    (void)state;
    const int key[] = {0, 0, 1, 1};
    struct acct_layout l;
    struct acct_tree t;
    assert_int_equal(acct_layout_build(&l, 4, key), 0);
    assert_int_equal(acct_layout_tree(NULL, 0, 0, ACCT_TREE_CHAIN, 1, ACCT_TREE_BINOMIAL, 2, &t), -1);
    assert_int_equal(acct_layout_tree(&l, 4, 0, ACCT_TREE_CHAIN, 1, ACCT_TREE_BINOMIAL, 2, &t), -1);
    assert_int_equal(acct_layout_tree(&l, 0, -1, ACCT_TREE_CHAIN, 1, ACCT_TREE_BINOMIAL, 2, &t), -1);
    assert_int_equal(acct_layout_tree(&l, 0, 0, ACCT_TREE_KNOMIAL, 99, ACCT_TREE_BINOMIAL, 2, &t), -1);
    acct_layout_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build),
        cmocka_unit_test(test_trees),
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_tree_bad_arguments),
        cmocka_unit_test(test_pattern),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
