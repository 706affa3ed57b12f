/* Unit test of the SACK plan (libacct/runtime/sack_plan.c), no MPI: every
 * tree the reorder branch uses, sizes 1..64, both fills, many arrival
 * orders. Checks: the fill order is a permutation starting at the root;
 * every non-root position has exactly one parent and is its parent's child
 * exactly once; the tree is connected and acyclic; parents come before
 * children; BF fills by depth (earliest arrivals nearest the root); DF is
 * the preorder in serving order (the first arrivals go down the first
 * branch); the rank mapping is the arrival order along the fill order.
 * The automatic mode's pure parts: the probe schedule, the two models and
 * the criterion on the paper's experiment (late interior processes: on;
 * nobody late, late leaves: off), the hysteresis; the rate meter. */
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct_test.h"

#include "sack_plan.h"

/* A bcast row of the registry (its SACK tree is part of the row). */
static const struct acct_alg *bcast(const char *name)
{
    return acct_alg_find(ACCT_COLL_bcast, name);
}

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
        acct_assert(k >= 0, "%s P=%d pos=%d children", name, P, pos);
        for (int i = 0; i < k; i++) {
            acct_assert(kids[i] > 0 && kids[i] < P, "%s P=%d child %d", name, P, kids[i]);
            if (kids[i] > 0 && kids[i] < P) {
                as_child[kids[i]]++;
                acct_assert(sack_tree_parent(t, kids[i]) == pos, "%s P=%d parent(%d)", name, P, kids[i]);
                acct_assert(sack_tree_child_slot(t, pos, kids[i]) == i, "%s P=%d slot", name, P);
            }
        }
    }
    acct_assert(sack_tree_parent(t, 0) == -1, "%s P=%d root has a parent", name, P);
    acct_assert(as_child[0] == 0, "%s P=%d root is a child", name, P);
    for (int pos = 1; pos < P; pos++) {
        acct_assert(as_child[pos] == 1, "%s P=%d pos %d is a child %d times", name, P, pos, as_child[pos]);
        acct_assert(depth(t, pos) > 0, "%s P=%d pos %d not connected to the root", name, P, pos);
    }
    free(as_child);
}

static void check_plan(const char *name, const struct sack_tree *t, enum sack_fill fill)
{
    const int P = t->size;
    struct sack_plan p;
    int *seen, *pre, *arrival, *map;
    int npre = 0;

    acct_assert(sack_plan_init(&p, t, fill) == 0, "%s P=%d init", name, P);
    if (p.order == NULL)
        return;
    seen = calloc((size_t)P, sizeof(int));
    pre = malloc((size_t)P * sizeof(int));
    arrival = malloc((size_t)P * sizeof(int));
    map = malloc((size_t)P * sizeof(int));
    acct_assert(p.order[0] == 0, "%s P=%d order[0]", name, P);
    for (int i = 0; i < P; i++) {
        int pos = p.order[i];
        acct_assert(pos >= 0 && pos < P && !seen[pos], "%s P=%d order not a permutation", name, P);
        if (pos >= 0 && pos < P)
            seen[pos] = i + 1;
    }
    for (int i = 1; i < P; i++) { /* parents before children */
        int par = sack_tree_parent(t, p.order[i]);
        acct_assert(par >= 0 && seen[par] && seen[par] < seen[p.order[i]], "%s P=%d parent order", name, P);
    }
    if (fill == SACK_FILL_BF) {
        for (int i = 1; i < P; i++)
            acct_assert(depth(t, p.order[i - 1]) <= depth(t, p.order[i]), "%s P=%d BF depth at %d", name,
                  P, i);
    } else {
        preorder(t, 0, pre, &npre);
        acct_assert(npre == P && memcmp(pre, p.order, (size_t)P * sizeof(int)) == 0,
              "%s P=%d DF is not the preorder", name, P);
        /* the first arrivals run down the first branch */
        for (int i = 0; i + 1 < P; i++) {
            int k = sack_tree_children(t, p.order[i], pre, P);
            if (k <= 0)
                break;
            acct_assert(p.order[i + 1] == pre[0], "%s P=%d DF first branch at %d", name, P, i);
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
        acct_assert(sack_plan_map(&p, root, arrival, map) == 0, "%s P=%d map", name, P);
        acct_assert(map[0] == root, "%s P=%d map root", name, P);
        for (int i = 1; i < P; i++)
            acct_assert(map[p.order[i]] == arrival[i - 1], "%s P=%d arrival %d", name, P, i);
        if (fill == SACK_FILL_BF) /* earlier arrival, not deeper */
            for (int i = 1; i + 1 < P; i++) {
                int a = -1, b = -1;
                for (int q = 0; q < P; q++) {
                    if (map[q] == arrival[i - 1])
                        a = q;
                    if (map[q] == arrival[i])
                        b = q;
                }
                acct_assert(depth(t, a) <= depth(t, b), "%s P=%d BF arrival depth", name, P);
            }
        if (P > 2) { /* a non-permutation is refused */
            arrival[0] = arrival[1];
            acct_assert(sack_plan_map(&p, root, arrival, map) == -1, "%s P=%d dup accepted", name, P);
        }
    }
    free(seen);
    free(pre);
    free(arrival);
    free(map);
    sack_plan_fini(&p);
}

/* sack_plan_defer_leaves: the positions with children first (in fill
 * order), then the leaves (in fill order); parents still before children. */
static void check_deferred(const char *name, const struct sack_tree *t)
{
    const int P = t->size;
    for (int f = 0; f < 2; f++) {
        struct sack_plan p, q;
        acct_assert(sack_plan_init(&p, t, f ? SACK_FILL_BF : SACK_FILL_DF) == 0 &&
                  sack_plan_init(&q, t, f ? SACK_FILL_BF : SACK_FILL_DF) == 0 && p.ninner == -1,
              "%s P=%d init", name, P);
        acct_assert(sack_plan_defer_leaves(&p) == 0, "%s P=%d defer", name, P);
        int inner = 0, *at = calloc((size_t)P, sizeof(int));
        for (int i = 1; i < P; i++)
            inner += sack_tree_children(t, i, NULL, 0) > 0;
        acct_assert(p.ninner == inner && p.order[0] == 0, "%s P=%d ninner %d != %d", name, P, p.ninner,
              inner);
        for (int i = 0; i < P; i++)
            at[p.order[i]] = i;
        for (int i = 1; i < P; i++) {
            int pos = p.order[i], kids = sack_tree_children(t, pos, NULL, 0);
            acct_assert((i <= p.ninner) == (kids > 0), "%s P=%d order[%d]=%d misplaced", name, P, i, pos);
            acct_assert(at[sack_tree_parent(t, pos)] < i, "%s P=%d parent after child", name, P);
        }
        /* each part keeps the fill order */
        int last_in = 0, last_leaf = 0;
        for (int i = 1; i < P; i++) {
            int j = 0;
            while (q.order[j] != p.order[i])
                j++;
            int *last = i <= p.ninner ? &last_in : &last_leaf;
            acct_assert(j > *last, "%s P=%d not stable", name, P);
            *last = j;
        }
        free(at);
        sack_plan_fini(&p);
        sack_plan_fini(&q);
    }
}

/* The rate meter (sack_plan.h): pieces reported by the same MPI_Waitsome
 * return as the first carry no time. */
static void test_meter(void **state)
{
    (void)state;
    const double mib = 1048576;
    struct sack_meter m = {0};
    acct_assert(sack_meter_rate(&m) == 0, "empty meter");
    /* a subtree's four 1 MiB blocks reported by one return (they were in
     * before the receiver ran): no measure, not 1 us per MiB */
    for (int i = 0; i < 4; i++)
        sack_meter_piece(&m, 7, 2.0 + 1e-6 * i, mib);
    acct_assert(sack_meter_rate(&m) == 0, "one return: rate %g s/B", sack_meter_rate(&m));
    /* the first two with the first return, then one per return 1 ms apart:
     * two MiB in 2 ms */
    m = (struct sack_meter){0};
    sack_meter_piece(&m, 3, 1.000, mib);
    sack_meter_piece(&m, 3, 1.000, mib);
    sack_meter_piece(&m, 4, 1.001, mib);
    sack_meter_piece(&m, 6, 1.002, mib);
    acct_assert(fabs(sack_meter_rate(&m) * mib - 1e-3) < 1e-9, "1 ms per MiB: %g",
          sack_meter_rate(&m) * mib);
    /* bcast: FIRST (0 bytes timed) then segments; one with FIRST is not timed */
    m = (struct sack_meter){0};
    sack_meter_piece(&m, 1, 0.5, 0);
    sack_meter_piece(&m, 1, 0.5, 8192);
    for (int i = 0; i < 4; i++)
        sack_meter_piece(&m, 2 + (uint64_t)i, 0.5 + 1e-4 * (i + 1), 8192);
    acct_assert(fabs(sack_meter_rate(&m) - 4e-4 / (4 * 8192)) < 1e-15, "bcast: %g s/B",
          sack_meter_rate(&m));
}

/* The automatic mode (sack_plan.h): probes, models, criterion, hysteresis. */
static void test_auto(void **state)
{
    (void)state;
    struct sack_tree t;
    double arr[64], gain = 0, cost = 0;
    const double h = 0.084, s = h / 128; /* 1 MiB in 8 KiB segments at 100 Mbit/s */
    /* probes: 1, 2, 4, ..., 64, then every 64th */
    int probes = 0;
    for (uint64_t n = 0; n <= 1024; n++)
        probes += sack_auto_is_probe(n);
    acct_assert(probes == 7 + 15, "%d probes in calls 0..1024", probes);
    acct_assert(sack_auto_is_probe(1) && sack_auto_is_probe(8) && !sack_auto_is_probe(3) &&
              !sack_auto_is_probe(96) && sack_auto_is_probe(192) && !sack_auto_is_probe(0),
          "probe schedule");
    sack_tree_of(bcast("binomial"), 0, 8, &t);
    for (int f = 0; f < 2; f++) {
        enum sack_fill fill = f ? SACK_FILL_BF : SACK_FILL_DF;
        /* nobody late: both models give the binomial's 3 transfers at the root */
        memset(arr, 0, sizeof arr);
        acct_assert(sack_auto_judge(&t, fill, 0, arr, h, s, &gain, &cost) == -1, "none: vote");
        acct_assert(gain > -cost && gain < cost, "none: gain %g cost %g", gain, cost);
        int rop[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        double ts = sack_model_finish(&t, rop, arr, h, s, -1);
        acct_assert(ts > 3 * h - 1e-9 && ts < 3 * h + 4 * s, "none: static %g", ts);
        /* ranks 1, 2, 4 late by 200/300/400 ms: reordered ~ last + h */
        arr[1] = 0.2, arr[2] = 0.3, arr[4] = 0.4;
        acct_assert(sack_auto_judge(&t, fill, 0, arr, h, s, &gain, &cost) == 1, "interior: vote");
        acct_assert(gain > 1.5 * h, "interior: gain %g", gain);
        /* static: rank 4 forwards 2 transfers after 400 ms; reordered: last arrival */
        ts = sack_model_finish(&t, rop, arr, h, s, -1);
        acct_assert(ts > 0.4 + 2 * h - 1e-9 && ts < 0.4 + 2 * h + 4 * s, "interior: static %g", ts);
        acct_assert(ts - gain < 0.4 + 4 * s, "interior: reordered %g", ts - gain);
        /* ... the same seen from another root (ranks rotated) */
        double rot[8];
        for (int r = 0; r < 8; r++)
            rot[(r + 5) % 8] = arr[r];
        acct_assert(sack_auto_judge(&t, fill, 5, rot, h, s, &gain, &cost) == 1, "rotated: vote");
        /* leaves 3, 5, 7 late: the static tree loses little */
        memset(arr, 0, sizeof arr);
        arr[3] = 0.2, arr[5] = 0.3, arr[7] = 0.4;
        acct_assert(sack_auto_judge(&t, fill, 0, arr, h, s, &gain, &cost) <= 0, "leaf: vote (gain %g)",
              gain);
        /* a small skew (10 us) on a fast link: not worth the protocol */
        memset(arr, 0, sizeof arr);
        arr[4] = 10e-6;
        acct_assert(sack_auto_judge(&t, fill, 0, arr, 20e-6, 20e-6, &gain, &cost) == -1, "tiny skew");
    }
    /* flat tree, every size: the models run, reordered never worse than static - cost */
    for (int P = 1; P <= 64; P++) {
        sack_tree_of(bcast("linear"), 0, P, &t);
        for (int r = 0; r < P; r++)
            arr[r] = (double)(next_rand() % 1000) * 1e-4;
        arr[0] = 0;
        int v = sack_auto_judge(&t, SACK_FILL_DF, 0, arr, h, s, &gain, &cost);
        acct_assert(v >= -1 && v <= 1 && gain > -1e-9, "flat P=%d vote %d gain %g", P, v, gain);
    }
    acct_assert(sack_auto_judge(&t, SACK_FILL_DF, 0, arr, 0, 0, &gain, &cost) == -2, "h = 0 refused");
    /* upward trees (gather, reduce): binomial P = 8 rooted at 0, ranks 1, 2,
     * 4 late by 200/300/400 ms; the figures worked out by hand
     * (docs/sack.md "Automatic mode": measured 649 / 545 / 487 ms) */
    {
        const int id[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        double g2 = 0, c2 = 0, ts, up[64] = {0};
        sack_tree_of(bcast("binomial"), 0, 8, &t);
        up[1] = 0.2, up[2] = 0.3, up[4] = 0.4;
        /* reduce, unsegmented: static 0.4 + 3h (rank 4 takes two transfers
         * in, then sends); DF puts 1, 2, 4 at positions 2, 3, 1: 0.3 + 3h */
        ts = sack_model_up_finish(&t, id, up, h, h, false, false);
        acct_assert(fabs(ts - (0.4 + 3 * h)) < 1e-9, "reduce static %g", ts);
        acct_assert(sack_auto_judge_up(&t, SACK_FILL_DF, 0, up, h, h, false, &gain, &cost) == 1 &&
                  fabs(gain - 0.1) < 1e-9,
              "reduce DF: gain %g", gain);
        /* BF puts the last arrival on the deepest leaf: less gain */
        sack_auto_judge_up(&t, SACK_FILL_BF, 0, up, h, h, false, &g2, &c2);
        acct_assert(g2 < gain, "reduce BF gain %g not below DF %g", g2, gain);
        /* segments of h/16: the reordered tree ends one transfer after the
         * last arrival, the bound */
        acct_assert(sack_auto_judge_up(&t, SACK_FILL_DF, 0, up, h, h / 16, false, &gain, &cost) == 1,
              "reduce segmented: vote");
        ts = sack_model_up_finish(&t, id, up, h, h / 16, false, false);
        acct_assert(fabs(ts - gain - (0.4 + h)) < 1e-9, "reduce segmented reordered %g", ts - gain);
        /* gather, blocks of h: static 0.4 + 7h (rank 4 gets 3 blocks after
         * it enters, then sends 4); reordered 0.4 + h */
        double hb = 0.0105;
        ts = sack_model_up_finish(&t, id, up, hb, hb, true, false);
        acct_assert(fabs(ts - (0.4 + 7 * hb)) < 1e-9, "gather static %g", ts);
        acct_assert(sack_auto_judge_up(&t, SACK_FILL_DF, 0, up, hb, hb, true, &gain, &cost) == 1 &&
                  fabs(ts - gain - (0.4 + hb)) < 1e-9,
              "gather DF: reordered %g", ts - gain);
        /* nobody late: the same tree either way, no gain: off */
        memset(up, 0, sizeof up);
        acct_assert(sack_auto_judge_up(&t, SACK_FILL_DF, 0, up, h, h / 16, false, &gain, &cost) == -1 &&
                  fabs(gain) < 1e-9,
              "reduce none: gain %g", gain);
        acct_assert(sack_auto_judge_up(&t, SACK_FILL_DF, 0, up, hb, hb, true, &gain, &cost) == -1 &&
                  fabs(gain) < 1e-9,
              "gather none: gain %g", gain);
        ts = sack_model_up_finish(&t, id, up, hb, hb, true, false);
        acct_assert(fabs(ts - 7 * hb) < 1e-9, "gather none: static %g (7 blocks into the root)", ts);
        /* a small skew on a fast link: not worth the protocol */
        up[4] = 10e-6;
        acct_assert(sack_auto_judge_up(&t, SACK_FILL_DF, 0, up, 20e-6, 20e-6, false, &gain, &cost) == -1,
              "reduce tiny skew");
        /* flat trees of every size: the models run; reordered is never
         * slower than static */
        for (int P = 1; P <= 64; P++) {
            sack_tree_of(bcast("linear"), 0, P, &t);
            for (int r = 0; r < P; r++)
                up[r] = (double)(next_rand() % 1000) * 1e-4;
            for (int g = 0; g < 2; g++) {
                int v = sack_auto_judge_up(&t, SACK_FILL_DF, P / 2, up, h, h, g, &gain, &cost);
                acct_assert(v >= -1 && v <= 1 && gain > -1e-9, "flat P=%d %s: vote %d gain %g", P,
                      g ? "gather" : "reduce", v, gain);
            }
        }
        acct_assert(sack_auto_judge_up(&t, SACK_FILL_DF, 0, up, 0, 0, false, &gain, &cost) == -2,
              "up: h = 0 refused");
    }
    /* hysteresis: on after 3 of the last 5 +1, off after 5 -1 in a row */
    struct sack_auto_hist hi = {0};
    acct_assert(!sack_auto_feed(&hi, 1) && !sack_auto_feed(&hi, 0) && !sack_auto_feed(&hi, -1),
          "on early");
    acct_assert(!sack_auto_feed(&hi, 1), "on after 2 of 4 (+,0,-,+)");
    acct_assert(sack_auto_feed(&hi, 1) && hi.on, "not on after 3 of 5 (+,0,-,+,+)");
    for (int i = 0; i < 4; i++)
        acct_assert(sack_auto_feed(&hi, -1), "off after %d -1", i + 1);
    acct_assert(!sack_auto_feed(&hi, -1), "still on after 5 -1");
    struct sack_auto_hist flap = {0};
    for (int i = 0; i < 40; i++) /* alternating +1/-1: 2-3 of 5, never 5 -1 in a row */
        sack_auto_feed(&flap, i % 2 ? 1 : -1);
    acct_assert(flap.on, "alternating votes: on, and stays on");
}

/* Every tree the reorder branch uses, sizes 1..64, both fills. */
static void test_trees(void **state)
{
    (void)state;
    static const struct {
        const char *alg;
        int fanout;
    } trees[] = {{"linear", 0},  {"pipeline", 0}, {"chain", 1},   {"chain", 3},   {"chain", 0},
                 {"binary", 0},  {"binomial", 0}, {"knomial", 2}, {"knomial", 3}, {"knomial", 0},
                 {"knomial", 8}, {"knomial", 16}};
    int ntrees = 0;
    struct sack_tree t;

    for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++)
        for (int P = 1; P <= 64; P++) {
            char name[64];
            snprintf(name, sizeof name, "%s(f=%d)", trees[i].alg, trees[i].fanout);
            acct_assert(sack_tree_of(bcast(trees[i].alg), trees[i].fanout, P, &t) == 0, "%s tree_of", name);
            check_tree(name, &t);
            check_plan(name, &t, SACK_FILL_BF);
            check_plan(name, &t, SACK_FILL_DF);
            check_deferred(name, &t);
            ntrees++;
        }
    printf("%d trees x 2 fills checked\n", ntrees);
}

/* The paper's 8-rank example; not trees, bad arguments, fill names. */
static void test_examples(void **state)
{
    (void)state;
    struct sack_tree t;
    enum sack_fill f;
    /* the paper's 8-rank binomial example, as in sack_plan.h */
    static const int bf8[] = {0, 4, 2, 1, 6, 5, 3, 7}, df8[] = {0, 4, 6, 7, 5, 2, 3, 1};
    struct sack_plan p;
    sack_tree_of(bcast("binomial"), 0, 8, &t);
    acct_assert(sack_plan_init(&p, &t, SACK_FILL_BF) == 0 && memcmp(p.order, bf8, sizeof bf8) == 0, "bf8");
    sack_plan_fini(&p);
    acct_assert(sack_plan_init(&p, &t, SACK_FILL_DF) == 0 && memcmp(p.order, df8, sizeof df8) == 0, "df8");
    sack_plan_fini(&p);
    /* not trees, and bad arguments */
    acct_assert(sack_tree_of(bcast("scatter_allgather_ring"), 0, 8, &t) == -1, "not a tree");
    acct_assert(sack_tree_of(bcast("knomial"), 99, 8, &t) == -1, "fan-out out of range");
    acct_assert(sack_tree_of(bcast("binomial"), 0, 0, &t) == -1, "size 0");
    acct_assert(sack_tree_of(NULL, 0, 4, &t) == -1, "no algorithm");
    sack_tree_of(bcast("binomial"), 0, 8, &t);
    acct_assert(sack_tree_parent(&t, 8) == -1 && sack_tree_parent(&t, -1) == -1, "parent range");
    acct_assert(sack_tree_children(&t, 8, NULL, 0) == -1, "children range");
    acct_assert(sack_tree_child_slot(&t, 0, 3) == -1, "slot of a non-child");
    acct_assert(sack_fill_parse("BF", SACK_FILL_DF, &f) == 0 && f == SACK_FILL_BF, "parse BF");
    acct_assert(sack_fill_parse("df", SACK_FILL_BF, &f) == 0 && f == SACK_FILL_DF, "parse df");
    acct_assert(sack_fill_parse(NULL, SACK_FILL_BF, &f) == 0 && f == SACK_FILL_BF, "parse default");
    acct_assert(sack_fill_parse("depth", SACK_FILL_DF, &f) == -1, "parse junk");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trees), cmocka_unit_test(test_examples),
        cmocka_unit_test(test_auto), cmocka_unit_test(test_meter),
    };
    return cmocka_run_group_tests_name("test_sack_plan", tests, NULL, NULL) == 0 ? 0 : 1;
}
