/* The registry is the one home of an algorithm's facts (acct/alg.h): every
 * row states its builder, closed form, limits, SACK tree and Open MPI
 * equivalent, and they agree with each other. A row that leaves a fact out
 * fails here, naming the row and the fact. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "acct/alg.h"
#include "acct/topo.h"

static int problem(bool print, const struct acct_alg *a, const char *fmt, ...)
{
    if (print) {
        va_list ap;
        char msg[256];
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        print_error("%s %s: %s\n", acct_coll_name(a->coll), a->name ? a->name : "(no name)", msg);
    }
    return 1;
}

/* A small network for evaluating closed forms: g(m) = 2 + m / 100 us, L = 5 us. */
static const struct acct_plogp net = {
    .L_us = 5, .n = 2, .m = {0, 1000}, .os_us = {1, 2}, .or_us = {1, 2}, .g_us = {2, 12}};

static int sack_problems(const struct acct_alg *a, bool print)
{
    int n = 0;
    bool reorder = (a->flags & ACCT_ALG_REORDER) != 0;
    struct acct_tree t;
    if (reorder != (a->sack.shape != ACCT_SACK_NONE))
        n += problem(print, a, reorder ? "ACCT_ALG_REORDER without a SACK tree (.sack)"
                                       : "a SACK tree (.sack) without ACCT_ALG_REORDER");
    if (a->sack.shape != ACCT_SACK_TREE)
        return n;
    if (a->sack.kind < ACCT_TREE_CHAIN || a->sack.kind > ACCT_TREE_KNOMIAL)
        return n + problem(print, a, "SACK tree kind %d is not a tree of acct/topo.h",
                           (int)a->sack.kind);
    if (a->sack.fanout != ACCT_SACK_CALL_FANOUT) {
        if (acct_tree_build(a->sack.kind, 0, 64, a->sack.fanout, &t) != 0)
            n += problem(print, a, "SACK tree fan-out %d: acct/topo.h builds no such tree",
                         a->sack.fanout);
        return n;
    }
    if (!(a->flags & ACCT_ALG_FANOUT))
        return n + problem(print, a, "SACK tree takes the call's fan-out, but the row has no "
                                     "ACCT_ALG_FANOUT");
    /* every fan-out the row allows makes a tree */
    for (int f = a->fanout_min; f <= a->fanout_max && f > 0; f++)
        if (acct_tree_build(a->sack.kind, 0, 64, f, &t) != 0)
            return n + problem(print, a, "fan-out %d is within the row's limits %d..%d, but "
                                         "acct/topo.h builds no such tree",
                               f, a->fanout_min, a->fanout_max);
    return n;
}

static int ompi_problems(const struct acct_alg *a, bool print)
{
    bool native = (a->flags & ACCT_ALG_NATIVE) != 0;
    const struct acct_alg_ompi *o = &a->ompi;
    if (o->name == NULL)
        return problem(print, a, "no Open MPI equivalent stated (.ompi; ACCT_ALG_OMPI_NONE "
                                 "when there is none)");
    if (o->id < 0)
        return problem(print, a, "Open MPI algorithm id %d < 0", o->id);
    if ((o->id == 0) != (strcmp(o->name, "(decision)") == 0))
        return problem(print, a, "Open MPI id %d with name \"%s\": id 0 is \"(decision)\" and "
                                 "only id 0",
                       o->id, o->name);
    if (o->id == 0 && o->exact != native)
        return problem(print, a, "Open MPI id 0 is exact for native only");
    return 0;
}

static int row_problems(const struct acct_alg *a, bool print)
{
    int n = 0;
    if (a->name == NULL || a->name[0] == '\0')
        return problem(print, a, "no name");
    if (a->description == NULL || a->description[0] == '\0')
        n += problem(print, a, "no description");
    if (a->flags & ACCT_ALG_NATIVE) {
        if (a->build != NULL || a->cost != NULL || a->sack.shape != ACCT_SACK_NONE)
            n += problem(print, a, "native has a builder, a closed form or a SACK tree");
        return n + ompi_problems(a, print);
    }
    if (a->build == NULL)
        n += problem(print, a, "no builder (.build)");
    if (a->flags & ACCT_ALG_FANOUT) {
        if (!(1 <= a->fanout_min && a->fanout_min <= a->fanout_default &&
              a->fanout_default <= a->fanout_max))
            n += problem(print, a, "fan-out limits: not 1 <= min %d <= default %d <= max %d",
                         a->fanout_min, a->fanout_default, a->fanout_max);
    } else if (a->fanout_default != 0 || a->fanout_min != 0 || a->fanout_max != 0)
        n += problem(print, a, "fan-out limits without ACCT_ALG_FANOUT");
    if (a->cost == NULL)
        n += problem(print, a, "no closed form (.cost)");
    else if (n == 0) { /* (a closed form may loop on fan-outs the row does not allow) */
        struct acct_cost c = {.net = &net, .p = 8, .m = 8192,
                              .fanout = (a->flags & ACCT_ALG_FANOUT) ? a->fanout_default : 0};
        double t = a->cost(&c);
        if (!isfinite(t) || t <= 0)
            n += problem(print, a, "closed form at P = 8, m = 8 KiB is %g, not a time", t);
    }
    if (a->fallback != NULL) {
        const struct acct_alg *f = acct_alg_find(a->coll, a->fallback);
        if (f == NULL || f == a)
            n += problem(print, a, "fallback \"%s\" is not another %s algorithm", a->fallback,
                         acct_coll_name(a->coll));
    }
    return n + sack_problems(a, print) + ompi_problems(a, print);
}

static void every_row_states_its_facts(void **state)
{
    (void)state;
    int problems = 0, rows = 0;
    for (const struct acct_alg *a = acct_algs; a->name != NULL; a++, rows++) {
        problems += row_problems(a, true);
        /* two exact equivalents of one Open MPI algorithm would be one algorithm twice */
        for (const struct acct_alg *b = acct_algs; b < a; b++)
            if (b->coll == a->coll && a->ompi.id != 0 && a->ompi.exact && b->ompi.exact &&
                b->ompi.id == a->ompi.id)
                problems += problem(true, a, "exact Open MPI algorithm %d is also %s's",
                                    a->ompi.id, b->name);
    }
    print_message("%d rows checked\n", rows);
    assert_int_equal(problems, 0);
    assert_true(rows == acct_alg_count() && rows > ACCT_COLL_COUNT);
}

/* The checks above find each missing fact (they are not vacuous). */
static void a_row_without_facts_fails(void **state)
{
    (void)state;
    const struct acct_alg *binomial = acct_alg_find(ACCT_COLL_bcast, "binomial");
    const struct acct_alg *knomial = acct_alg_find(ACCT_COLL_bcast, "knomial");
    assert_non_null(binomial);
    assert_non_null(knomial);
    assert_int_equal(row_problems(binomial, false), 0);
    struct acct_alg r = *binomial;
    r.cost = NULL;
    assert_int_equal(row_problems(&r, false), 1);
    r = *binomial;
    r.ompi = (struct acct_alg_ompi){0};
    assert_int_equal(row_problems(&r, false), 1);
    r = *binomial;
    r.sack = (struct acct_alg_sack){ACCT_SACK_NONE};
    assert_int_equal(row_problems(&r, false), 1);
    r = *binomial;
    r.flags &= ~(unsigned)ACCT_ALG_REORDER;
    assert_int_equal(row_problems(&r, false), 1);
    r = *binomial;
    r.ompi.exact = false;
    r.ompi.id = 0;
    assert_int_equal(row_problems(&r, false), 1);
    r = *knomial;
    r.fanout_max = ACCT_TREE_MAX_RADIX + 1; /* beyond what a k-nomial tree takes */
    assert_int_equal(row_problems(&r, false), 1);
    r = *knomial;
    r.flags &= ~(unsigned)ACCT_ALG_FANOUT;
    assert_true(row_problems(&r, false) >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_row_states_its_facts),
        cmocka_unit_test(a_row_without_facts_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
