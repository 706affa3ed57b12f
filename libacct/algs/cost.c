/* Building blocks of the closed forms (cost.h), shared by several
 * algorithms: trees, chains and binomial block trees in pLogP terms.
 *
 * Trees: a node that has the data at t serves its children in order, the
 * j-th (from 1) getting it at t + j g + L. */
#include "cost.h"

#include <math.h>
#include <stdlib.h>

#include "algs.h"

/* Flat tree (BM04 Table 1): (P - 1) g(m) + L. */
double acct_cost_flat(const struct acct_cost *c, uint64_t x)
{
    return (c->p - 1) * cost_g(c, x) + cost_L(c);
}

/* Segmented chains, f of them, served in order, chain lengths as topo.c
 * cuts them (the first (P-1) % f one longer): the root sends each segment
 * to the f chain heads, the heads pass it down. Chain i (from 1) of length
 * len: ((ns - 1) f + i) g(s) + L + (len - 1)(g(s) + L). f = 1 is BM04's
 * "Seg. Chain (Pipeline)": (P - 1)(g(s) + L) + (ns - 1) g(s). */
double acct_cost_chains(const struct acct_cost *c, int f, uint64_t s, uint64_t ns)
{
    int n = c->p - 1;
    if (f > n)
        f = n;
    double best = 0;
    for (int i = 0; i < f; i++) {
        int len = n / f + (i < n % f ? 1 : 0);
        double t = ((double)(ns - 1) * f + i + 1) * cost_g(c, s) + cost_L(c) +
                   (len - 1) * (cost_g(c, s) + cost_L(c));
        best = t > best ? t : best;
    }
    return best;
}

/* K-nomial tree of P = k^d (binomial: k = 2): the root serves d(k - 1)
 * children; the last node of the first child's first child ... is reached
 * after d hops of (k - 1) g + L. Segmented, the root's d(k - 1) sends per
 * segment pace the pipeline (BM04 Table 1 "Seg. Binomial Tree" for k = 2:
 * floor(log2 P) g(s) ns + ceil(log2 P) L):
 *   T = (ns - 1) d (k - 1) g(s) + d ((k - 1) g(s) + L). */
double acct_cost_knomial(const struct acct_cost *c, int k, uint64_t s, uint64_t ns)
{
    int d = 0;
    long q = 1;
    while (q < c->p) {
        q *= k;
        d++;
    }
    if (q != c->p) {
        /* Not a power of k: an estimate in BM04's form (Table 1, "Seg.
         * Binomial Tree"): the root's c0 children take ns c0 gaps, then
         * ceil(log_k P) latencies: ns c0 g(s) + d L (equal to the exact
         * form when P is a power of k, where c0 = d (k - 1)). */
        struct acct_tree t;
        if (acct_tree_build(ACCT_TREE_KNOMIAL, 0, c->p, k, &t) != 0)
            return NAN;
        return (double)ns * t.nchildren * cost_g(c, s) + d * cost_L(c);
    }
    return (double)(ns - 1) * d * (k - 1) * cost_g(c, s) + d * ((k - 1) * cost_g(c, s) + cost_L(c));
}

/* Any tree of topo.h, by its longest path: a node that has a segment at t
 * serves its children in order, the j-th at t + j g(s) + L; D(v) the time
 * node v has the first segment; the root's c0 sends per segment pace the
 * rest: T = (ns - 1) c0 g(s) + max_v D(v). Exact when every node keeps up
 * with its parent (fewer children than the root, as in binomial, k-nomial
 * and binary trees); the "longest edge" view of 000. */
double acct_cost_tree_path(const struct acct_cost *c, enum acct_tree_kind kind, int k, uint64_t s,
                        uint64_t ns)
{
    double *d = calloc((size_t)c->p, sizeof *d), best = 0;
    int c0 = 0, *order = calloc((size_t)c->p, sizeof *order), head = 0, tail = 0;
    struct acct_tree t;
    bool ok = d != NULL && order != NULL;
    if (ok)
        order[tail++] = 0; /* breadth first from the root: parents before children */
    while (ok && head < tail) {
        int v = order[head++];
        if (acct_tree_build(kind, v, c->p, k, &t) != 0) {
            ok = false;
            break;
        }
        if (v == 0)
            c0 = t.nchildren;
        for (int j = 0; j < t.nchildren && tail < c->p; j++) {
            int w = t.children[j];
            d[w] = d[v] + (j + 1) * cost_g(c, s) + cost_L(c);
            best = d[w] > best ? d[w] : best;
            order[tail++] = w;
        }
    }
    free(d);
    free(order);
    return ok ? (double)(ns - 1) * c0 * cost_g(c, s) + best : NAN;
}

/* Binomial trees of blocks, any P (root 0): a subtree is the vrank range
 * [v, v + span), its data span m bytes.
 *   down (scatter; bytes = 0: the tournament's wake-up): a node that has
 *     its data at D(v) sends each child its part one after the other,
 *     largest first: D(w_j) = D(v) + sum_{i <= j} g(span_i m) + L.
 *   up (gather; the tournament's arrival): a node posts all its children's
 *     receives at once; child w_j's data arrives at U(w_j) + g(span_j m) + L
 *     and the node takes them in arrival order one receive gap apart
 *     (completion max(arrival, or, previous + g)); U(v) is the last one.
 * With P = 2^k both reduce to BM04 Table 2's sum_{j<k} g(2^j m) + k L.
 * up0 (may be NULL) gives each node's start for down (the tournament). */
static int binomial_order(int p, int *order)
{
    struct acct_tree t;
    int head = 0, tail = 0;
    order[tail++] = 0;
    while (head < tail) {
        int v = order[head++];
        if (acct_tree_build(ACCT_TREE_BINOMIAL, v, p, 2, &t) != 0)
            return -1;
        for (int j = 0; j < t.nchildren && tail < p; j++)
            order[tail++] = t.children[j];
    }
    return tail == p ? 0 : -1;
}

double acct_cost_binomial_up(const struct acct_cost *c, uint64_t x, double *u)
{
    return acct_cost_binomial_up_at(c, x, u, 0, 0);
}

/* up with a start for the leaves and a time each inner node adds after its
 * last receive (node-aware gather: the leaders' intra-node phase, then a
 * leader's copy of its own block in the round of its receives). */
double acct_cost_binomial_up_at(const struct acct_cost *c, uint64_t x, double *u, double leaf,
                                double add)
{
    int *order = calloc((size_t)c->p, sizeof *order);
    double orx, best = NAN;
    struct acct_tree t;
    if (order == NULL || binomial_order(c->p, order) != 0)
        goto out;
    for (int i = c->p - 1; i >= 0; i--) { /* children before parents */
        int v = order[i];
        double a[ACCT_TREE_MAX_CHILDREN], done = -INFINITY;
        uint64_t sz[ACCT_TREE_MAX_CHILDREN];
        if (acct_tree_build(ACCT_TREE_BINOMIAL, v, c->p, 2, &t) != 0)
            goto out;
        for (int j = 0; j < t.nchildren; j++) {
            int w = t.children[j];
            sz[j] = (uint64_t)acct_tree_span(ACCT_TREE_BINOMIAL, w, c->p, 2) * x;
            a[j] = u[w] + cost_g(c, sz[j]) + cost_L(c);
        }
        for (int j = 1; j < t.nchildren; j++) /* insertion sort by arrival */
            for (int q = j; q > 0 && a[q] < a[q - 1]; q--) {
                double ta = a[q];
                uint64_t ts = sz[q];
                a[q] = a[q - 1], sz[q] = sz[q - 1];
                a[q - 1] = ta, sz[q - 1] = ts;
            }
        u[v] = leaf;
        for (int j = 0; j < t.nchildren; j++) {
            orx = cost_or(c, sz[j]);
            double d = a[j] > orx ? a[j] : orx;
            d = done + cost_g(c, sz[j]) > d ? done + cost_g(c, sz[j]) : d;
            done = d;
            u[v] = d + add;
        }
    }
    best = u[0];
out:
    free(order);
    return best;
}

static double binomial_down(const struct acct_cost *c, uint64_t x, double d0, double tail,
                            bool paced);

double acct_cost_binomial_down(const struct acct_cost *c, uint64_t x, const double *start)
{
    return binomial_down(c, x, start != NULL ? start[0] : 0, 0, false);
}

/* down where a node sends each child in a round of its own (node-aware
 * scatter), so its sends are max(g, os) apart, and, once it has sent its
 * last child its part, takes tail more (its node's blocks): the latest
 * D(v) + sum_j max(g, os)(span_j m) + tail, or D(w) where later. */
double acct_cost_binomial_down_tail(const struct acct_cost *c, uint64_t x, double tail)
{
    return binomial_down(c, x, 0, tail, true);
}

static double binomial_down(const struct acct_cost *c, uint64_t x, double d0, double tail,
                            bool paced)
{
    int *order = calloc((size_t)c->p, sizeof *order);
    double *d = calloc((size_t)c->p, sizeof *d), best = NAN;
    struct acct_tree t;
    if (order == NULL || d == NULL || binomial_order(c->p, order) != 0)
        goto out;
    best = 0;
    d[0] = d0;
    for (int i = 0; i < c->p; i++) {
        int v = order[i];
        if (acct_tree_build(ACCT_TREE_BINOMIAL, v, c->p, 2, &t) != 0) {
            best = NAN;
            goto out;
        }
        double tv = d[v];
        for (int j = 0; j < t.nchildren; j++) {
            int w = t.children[j];
            const uint64_t sz = (uint64_t)acct_tree_span(ACCT_TREE_BINOMIAL, w, c->p, 2) * x;
            d[w] = tv + cost_g(c, sz) + cost_L(c);
            tv += paced && cost_os(c, sz) > cost_g(c, sz) ? cost_os(c, sz) : cost_g(c, sz);
            best = d[w] > best ? d[w] : best;
        }
        best = d[v] > best ? d[v] : best;
        best = tv + tail > best ? tv + tail : best;
    }
out:
    free(order);
    free(d);
    return best;
}

/* Complete binary tree in level order, P = 2^k: the deepest node (P - 1)
 * is reached by k first-child hops, the last node of level k - 1 by k - 1
 * second-child hops; segmented, the root's two sends per segment (one
 * when P = 2) pace it:
 *   T = 2 (ns - 1) g(s) + max(k (g(s) + L), (k - 1)(2 g(s) + L)). */
double acct_cost_binary(const struct acct_cost *c, uint64_t s, uint64_t ns)
{
    int k = cost_ilog2(c->p), sends = c->p > 2 ? 2 : 1;
    if (!cost_pow2(c->p))
        return NAN; /* other P: the tree's longest path (acct_cost_tree_path) */
    double a = k * (cost_g(c, s) + cost_L(c)), b = (k - 1) * (2 * cost_g(c, s) + cost_L(c));
    return (double)sends * (double)(ns - 1) * cost_g(c, s) + (a > b ? a : b);
}

/* Binomial scatter/gather of P = 2^k blocks of x bytes (BM04 Table 2):
 *   sum_{j=0}^{k-1} g(2^j x) + k L. */
double acct_cost_binomial_blocks(const struct acct_cost *c, uint64_t x)
{
    double t = 0;
    int k = cost_clog2(c->p);
    for (int j = 0; j < k; j++)
        t += cost_g(c, ((uint64_t)1 << j) * x);
    return t + k * cost_L(c);
}

/* Reduce over a chain tree (mirror of chains()): f chains pipeline the
 * segments up, the root takes f per segment, in arrival order, one gap
 * g(s) apart (its receive gap): chain i of length len_i delivers the last
 * segment at (ns - 1) f g(s) + len_i (g(s) + L) + (len_i - 1) gamma s
 * (every chain node but the tail reduces each segment once), the root
 * finishes the receives one after the other, g(s) apart, then reduces the
 * f segments: + f gamma s. Exact while f gamma s + or(s) <= g(s) (the
 * reductions do not slow the root's pace). */
double acct_cost_chains_up(const struct acct_cost *c, int f, uint64_t s, uint64_t ns)
{
    int n = c->p - 1;
    if (f > n)
        f = n;
    /* arrivals in increasing order: the shorter chains (the last ones) first */
    double done = 0;
    for (int i = f - 1; i >= 0; i--) {
        int len = n / f + (i < n % f ? 1 : 0);
        double a = (double)(ns - 1) * f * cost_g(c, s) + len * (cost_g(c, s) + cost_L(c)) + (len - 1) * cost_gamma(c, s);
        done = i == f - 1 ? a : (a > done + cost_g(c, s) ? a : done + cost_g(c, s));
    }
    return done + f * cost_gamma(c, s);
}

/* Unsegmented chains of blocks (gather: up, scatter: down), chain i of
 * len_i ranks carrying j blocks on its j-th link from the end (BM04 Table 2,
 * "Chain", one chain: sum_{j=1}^{P-1} g(j m) + (P - 1) L). Gather: chain i
 * arrives at A_i = sum_{j=1}^{len_i} (g(j m) + L), the root takes them in
 * arrival order one receive gap g(len_i m) apart. Scatter: the root sends
 * the chains' streams one after the other (longest first), chain i's head
 * has it at sum_{i' <= i} g(len_i' m) + L, then sum_{j=1}^{len_i - 1}
 * (g(j m) + L) down the chain. */
static double chain_blocks(const struct acct_cost *c, int f, bool up)
{
    int n = c->p - 1;
    if (f > n)
        f = n;
    double t = 0, start = 0;
    for (int i = up ? f - 1 : 0; up ? i >= 0 : i < f; i += up ? -1 : 1) {
        int len = n / f + (i < n % f ? 1 : 0);
        double down = 0;
        for (int j = 1; j < len; j++)
            down += cost_g(c, (uint64_t)j * c->m) + cost_L(c);
        double x = cost_g(c, (uint64_t)len * c->m) + cost_L(c) + down;
        if (up)
            t = i == f - 1 ? x : (x > t + cost_g(c, (uint64_t)len * c->m) ? x : t + cost_g(c, (uint64_t)len * c->m));
        else {
            start += cost_g(c, (uint64_t)len * c->m);
            x = start + cost_L(c) + down;
            t = x > t ? x : t;
        }
    }
    return t;
}

/* Does a segment cut the longest chain's stream (ceil((P-1)/f) blocks)? */
static bool segmented_stream(const struct acct_cost *c)
{
    int f = c->fanout, n = c->p - 1;
    if (f > n)
        f = n;
    uint64_t longest = (uint64_t)((n + f - 1) / f) * c->m;
    return c->seg != 0 && c->seg < longest;
}

/* Segmented chains of blocks, q = m / s segments per block (s dividing m):
 * node j of chain i (from its head, j = 1 .. len_i) carries a stream of
 * (len_i - j + 1) q segments, pipelined one segment per round and link.
 *   gather: chain i's k-th segment reaches the root at (k + len_i) g(s) +
 *     len_i L; the root takes all chains' segments in arrival order, one
 *     receive gap g(s) apart (a merge).
 *   scatter: the root sends segment k to every chain that has one, chain
 *     after chain, one gap apart (start(i, k)); node j of chain i has its
 *     last segment at start(i, (len_i - j + 1) q - 1) + j (g(s) + L).
 * Exact for every P (schedule-based, 000). */
static double chain_segmented(const struct acct_cost *c, int f, bool up)
{
    int n = c->p - 1;
    if (f > n)
        f = n;
    /* chains 0 .. n % f - 1 are one rank longer (l + 1) than the others (l) */
    const int l = n / f, nlong = n % f;
    const uint64_t q = c->m / c->seg;
    const double gs = cost_g(c, c->seg);
    double t = 0;
    if (up) {
        /* The merge d = max(a, d + gs) over the sorted arrivals ends at
         * max over arrivals a of a + (#{arrivals >= a} - 1) gs. Within a
         * chain the arrivals are gs apart and each step down the list
         * drops at least one arrival from the count, so the maximum is at
         * some chain's first arrival, (k = 0): len (gs + L). */
        const uint64_t total = (uint64_t)(f - nlong) * l * q + (uint64_t)nlong * (l + 1) * q;
        for (int g = 0; g < 2; g++) {
            int len = l + g, cnt = g ? nlong : f - nlong;
            if (cnt == 0)
                continue;
            double a = ((double)0 + len) * gs + len * cost_L(c);
            uint64_t ge = total; /* the shorter chains' first arrival: everything is later */
            if (g == 1 && f > nlong) {
                /* arrivals (k + l) gs + l L of a shorter chain at or after a:
                 * k gs >= gs + L */
                uint64_t early = 0;
                if (gs > 0) {
                    double kmin = ceil((gs + cost_L(c)) / gs);
                    early = kmin >= (double)(l * q) ? (uint64_t)l * q : (uint64_t)kmin;
                } else if (cost_L(c) > 0) {
                    early = (uint64_t)l * q;
                }
                ge = total - (uint64_t)(f - nlong) * early;
            }
            double x = a + (double)(ge - 1) * gs;
            t = x > t ? x : t;
        }
        return t;
    }
    /* scatter: the root's sends in order, one gap apart; segment k of
     * chain i leaves after S(k, i) sends: f k + i while every chain has
     * one (k < l q), else f_short l q + nlong k + i (only the longer chains,
     * which come first). Node j = len + 1 - r of chain i has its last
     * segment k = r q - 1 at S gs + j (gs + L): linear in r up to l, so
     * the latest is at r = 1, r = l or r = l + 1 (longer chains). */
    for (int i = 0; i < f; i++) {
        int len = l + (i < nlong ? 1 : 0);
        const int rs[3] = { 1, l, len };
        for (int x = 0; x < 3; x++) {
            int r = rs[x];
            if (r < 1 || r > len)
                continue;
            uint64_t k = (uint64_t)r * q - 1;
            uint64_t before = k < (uint64_t)l * q
                                  ? (uint64_t)f * k + (uint64_t)i
                                  : (uint64_t)(f - nlong) * l * q + (uint64_t)nlong * k + (uint64_t)i;
            double y = (double)before * gs + (len + 1 - r) * (gs + cost_L(c));
            t = y > t ? y : t;
        }
    }
    return t;
}

/* Chains of blocks, gather (up) or scatter (down): unsegmented, or with a
 * segment not shorter than the longest chain's stream, chain_blocks;
 * else chain_segmented (s dividing m). */
double acct_cost_block_chains(const struct acct_cost *c, bool up)
{
    int f = c->fanout;
    if (!segmented_stream(c))
        return chain_blocks(c, f, up);
    return c->seg <= c->m && c->m % c->seg == 0 ? chain_segmented(c, f, up) : NAN;
}

/* A binomial tree spreading c->m bytes from the root, segmented: P = 2^k:
 * the k-nomial form with radix 2 (BM04 Table 1 "Seg. Binomial Tree"):
 * (ns - 1) k g(s) + k (g(s) + L); other P: the tree's longest path
 * (acct_cost_tree_path). bcast binomial's closed form, and the counts'
 * broadcast of the v-collectives below. */
double acct_cost_binomial_tree(const struct acct_cost *c)
{
    uint64_t s, ns;
    if (!cost_segs(c, c->m, &s, &ns))
        return NAN;
    return cost_pow2(c->p) ? acct_cost_knomial(c, 2, s, ns)
                           : acct_cost_tree_path(c, ACCT_TREE_BINOMIAL, 2, s, ns);
}

/* The counts' broadcast: binomial bcast of 8 P bytes, one segment. */
double acct_v_counts_bcast_cost(const struct acct_cost *c)
{
    struct acct_cost b = *c;
    b.m = 8 * (uint64_t)c->p;
    b.seg = 0;
    return c->p > 1 ? acct_cost_binomial_tree(&b) : 0;
}

/* The binomial (Fenwick-tree) scan and exscan (scan/scan_binomial.c,
 * exscan/exscan_binomial.c): a recurrence over the ranks i = 1..P in
 * order (each waits only for lower ones), with the pLogP semantics of the
 * simulator: a send starts at max(its round's start, the rank's previous
 * send start + g(m)) and is at its peer g(m) + L later, completing locally
 * os(m) after its start; a receive completes at max(arrival, round start
 * + or(m), the rank's previous receive + g(m)); local work follows.
 *   up:   round 0 copies the input (delta m); a receive from i - 2^d for
 *         each 2^d < lowbit(i), each followed by its reductions; then the
 *         send to i + lowbit(i);
 *   down: the receive of the prefix from i - lowbit(i) (unless i is a
 *         power of two) and its reductions; then one round of sends to
 *         i + 2^d, 2^d < lowbit(i), largest first.
 * exclusive: exscan's extra result (a copy for its first partial, a
 * reduction for the others). The latest rank end; NAN without memory. */
double acct_cost_scan_tree(const struct acct_cost *c, bool exclusive)
{
    const int p = c->p;
    const uint64_t m = c->m;
    const double g = cost_g(c, m), L = cost_L(c), os = cost_os(c, m), orr = cost_or(c, m);
    const double gm = cost_gamma(c, m), dm = cost_delta(c, m);
    double *up = calloc((size_t)p + 2, sizeof *up);     /* start of i's send up */
    double *down = calloc((size_t)p + 2, sizeof *down); /* start of the send that brings i its prefix */
    double worst = 0;
    if (up == NULL || down == NULL) {
        free(up);
        free(down);
        return NAN;
    }
    for (int i = 1; i <= p; i++) {
        const int low = i & -i;
        double t = dm, nic = 0, rx = 0, end;
        bool have = false;
#define COST_RECV(arrival)                                                                        \
    do {                                                                                          \
        double done_ = (arrival) > t + orr ? (arrival) : t + orr;                                 \
        done_ = rx + g > done_ ? rx + g : done_;                                                  \
        rx = done_;                                                                               \
        t = done_;                                                                                \
    } while (0)
        for (int d = 1; d < low; d <<= 1) {
            COST_RECV(up[i - d] + g + L);
            t += gm + (exclusive ? (have ? gm : dm) : 0);
            have = true;
        }
        if (i + low <= p) {
            double st = nic > t ? nic : t;
            up[i] = st;
            nic = st + g;
            t = st + os;
        }
        if (i != low) {
            COST_RECV(down[i] + g + L);
            t += gm + (exclusive ? (have ? gm : dm) : 0);
        }
#undef COST_RECV
        end = t;
        for (int d = low >> 1; d >= 1; d >>= 1) {
            if (i + d > p)
                continue;
            double st = nic > t ? nic : t;
            down[i + d] = st;
            nic = st + g;
            end = st + os > end ? st + os : end;
        }
        worst = end > worst ? end : worst;
    }
    free(up);
    free(down);
    return worst;
}
