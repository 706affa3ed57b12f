/* Tree builders: for every kind, fan-out, size 1..64 and vrank, parent and
 * children agree, every vrank is reached from the root exactly once, and the
 * binomial/k-nomial spans are the subtree sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "acct/topo.h"

static int subtree_size(enum acct_tree_kind kind, int v, int size, int fanout)
{
    struct acct_tree t;
    assert_int_equal(acct_tree_build(kind, v, size, fanout, &t), 0);
    int n = 1;
    for (int i = 0; i < t.nchildren; i++)
        n += subtree_size(kind, t.children[i], size, fanout);
    return n;
}

static void check_kind(enum acct_tree_kind kind, int fanout)
{
    for (int size = 1; size <= 64; size++) {
        int reached[64] = {0};
        for (int v = 0; v < size; v++) {
            struct acct_tree t;
            assert_int_equal(acct_tree_build(kind, v, size, fanout, &t), 0);
            if (v == 0)
                assert_int_equal(t.parent, -1);
            else {
                assert_true(t.parent >= 0 && t.parent < size && t.parent != v);
                struct acct_tree p;
                assert_int_equal(acct_tree_build(kind, t.parent, size, fanout, &p), 0);
                int found = 0;
                for (int i = 0; i < p.nchildren; i++)
                    found += p.children[i] == v;
                assert_int_equal(found, 1); /* my parent lists me once */
            }
            for (int i = 0; i < t.nchildren; i++) {
                int c = t.children[i];
                assert_true(c > 0 && c < size);
                reached[c]++;
                struct acct_tree ct;
                assert_int_equal(acct_tree_build(kind, c, size, fanout, &ct), 0);
                assert_int_equal(ct.parent, v);
            }
            if (kind == ACCT_TREE_BINOMIAL || kind == ACCT_TREE_KNOMIAL) {
                int span = acct_tree_span(kind, v, size, fanout);
                assert_int_equal(span, subtree_size(kind, v, size, fanout));
                /* children come largest subtree first */
                for (int i = 1; i < t.nchildren; i++)
                    assert_true(acct_tree_span(kind, t.children[i - 1], size, fanout) >=
                                acct_tree_span(kind, t.children[i], size, fanout));
            }
        }
        for (int v = 1; v < size; v++)
            assert_int_equal(reached[v], 1);
        assert_int_equal(subtree_size(kind, 0, size, fanout), size);
    }
}

static void test_chain(void **state)
{
    (void)state;
    for (int f = 1; f <= 8; f++)
        check_kind(ACCT_TREE_CHAIN, f);
    check_kind(ACCT_TREE_CHAIN, ACCT_TREE_MAX_FANOUT);
}

static void test_binary(void **state) { (void)state; check_kind(ACCT_TREE_BINARY, 2); }
static void test_binomial(void **state) { (void)state; check_kind(ACCT_TREE_BINOMIAL, 2); }

static void test_knomial(void **state)
{
    (void)state;
    for (int k = 2; k <= 16; k++)
        check_kind(ACCT_TREE_KNOMIAL, k);
}

static void test_shapes(void **state)
{
    (void)state;
    struct acct_tree t;
    /* the diagrams in topo.h */
    assert_int_equal(acct_tree_build(ACCT_TREE_BINOMIAL, 0, 8, 2, &t), 0);
    assert_int_equal(t.nchildren, 3);
    assert_int_equal(t.children[0], 4);
    assert_int_equal(t.children[1], 2);
    assert_int_equal(t.children[2], 1);
    assert_int_equal(acct_tree_build(ACCT_TREE_KNOMIAL, 0, 9, 3, &t), 0);
    int want[] = {3, 6, 1, 2};
    assert_int_equal(t.nchildren, 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(t.children[i], want[i]);
    assert_int_equal(acct_tree_build(ACCT_TREE_CHAIN, 0, 7, 2, &t), 0);
    assert_int_equal(t.nchildren, 2);
    assert_int_equal(t.children[0], 1);
    assert_int_equal(t.children[1], 4);
    assert_int_equal(acct_tree_build(ACCT_TREE_CHAIN, 3, 7, 2, &t), 0);
    assert_int_equal(t.parent, 2);
    assert_int_equal(t.nchildren, 0);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    struct acct_tree t;
    memset(&t, 0x5a, sizeof t);
    assert_int_equal(acct_tree_build(ACCT_TREE_BINARY, 0, 0, 2, &t), -1);
    assert_int_equal(acct_tree_build(ACCT_TREE_BINARY, 5, 5, 2, &t), -1);
    assert_int_equal(acct_tree_build(ACCT_TREE_BINARY, -1, 5, 2, &t), -1);
    assert_int_equal(acct_tree_build(ACCT_TREE_CHAIN, 0, 5, 0, &t), -1);
    assert_int_equal(acct_tree_build(ACCT_TREE_KNOMIAL, 0, 5, 1, &t), -1);
    assert_int_equal(acct_tree_build(ACCT_TREE_KNOMIAL, 0, 5, 17, &t), -1);
    assert_int_equal(acct_tree_build((enum acct_tree_kind)99, 0, 5, 2, &t), -1);
    assert_int_equal(acct_tree_build(ACCT_TREE_BINARY, 0, 5, 2, NULL), -1);
    assert_int_equal(acct_tree_span(ACCT_TREE_BINARY, 0, 5, 2), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain),    cmocka_unit_test(test_binary),
        cmocka_unit_test(test_binomial), cmocka_unit_test(test_knomial),
        cmocka_unit_test(test_shapes),   cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
