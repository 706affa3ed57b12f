/* Closed forms of the algorithms' times under the simulator's pLogP
 * semantics (acct/model.h). Each function states its formula; docs/models.md
 * lists them with their sources (seeds/001 Tables 1-3, seeds/004 Table 4)
 * and where they equal the simulation exactly. Notation: g(x) the gap of an
 * x-byte message, L the latency, k = log2 P, m the message size of
 * acct-bench (per block for the block collectives), s the segment size and
 * ns = ceil(m / s) segments, gamma/delta the reduce/copy cost per byte. */
#include "acct/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acct/topo.h"

struct cf {
    const struct acct_model *mdl;
    int p;
    uint64_t m;
    uint64_t seg;  /* segment bytes, 0 = none */
    int fanout;    /* 0 = the algorithm's default */
};

static double g(const struct cf *c, uint64_t x)
{
    return acct_plogp_g(&c->mdl->net, x);
}

static double gam(const struct cf *c, uint64_t x)
{
    return c->mdl->gamma_us_per_byte * (double)x;
}

static double lat(const struct cf *c)
{
    return c->mdl->net.L_us;
}

static bool pow2(int p)
{
    return p > 0 && (p & (p - 1)) == 0;
}

static int ilog2(int p) /* floor */
{
    int k = 0;
    while ((1 << (k + 1)) <= p)
        k++;
    return k;
}

static int clog2(int p) /* ceil */
{
    int k = ilog2(p);
    return (1 << k) < p ? k + 1 : k;
}

/* The segment size actually used and the number of segments; NAN-worthy
 * (false) when the last segment would be shorter (formulas assume equal
 * segments). */
static bool segs(const struct cf *c, uint64_t bytes, uint64_t *s, uint64_t *ns)
{
    if (c->seg == 0 || c->seg >= bytes) {
        *s = bytes;
        *ns = 1;
        return true;
    }
    *s = c->seg;
    *ns = (bytes + c->seg - 1) / c->seg;
    return bytes % c->seg == 0;
}

/* ---- trees (bcast) --------------------------------------------------------
 * A node that has the data at t serves its children in order, the j-th
 * (from 1) getting it at t + j g + L. */

/* Flat tree (001 Table 1): (P - 1) g(m) + L. */
static double flat(const struct cf *c, uint64_t x)
{
    return (c->p - 1) * g(c, x) + lat(c);
}

/* Segmented chains, f of them, served in order, chain lengths as topo.c
 * cuts them (the first (P-1) % f one longer): the root sends each segment
 * to the f chain heads, the heads pass it down. Chain i (from 1) of length
 * len: ((ns - 1) f + i) g(s) + L + (len - 1)(g(s) + L). f = 1 is 001's
 * "Seg. Chain (Pipeline)": (P - 1)(g(s) + L) + (ns - 1) g(s). */
static double chains(const struct cf *c, int f, uint64_t s, uint64_t ns)
{
    int n = c->p - 1;
    if (f > n)
        f = n;
    double best = 0;
    for (int i = 0; i < f; i++) {
        int len = n / f + (i < n % f ? 1 : 0);
        double t = ((double)(ns - 1) * f + i + 1) * g(c, s) + lat(c) +
                   (len - 1) * (g(c, s) + lat(c));
        best = t > best ? t : best;
    }
    return best;
}

/* K-nomial tree of P = k^d (binomial: k = 2): the root serves d(k - 1)
 * children; the last node of the first child's first child ... is reached
 * after d hops of (k - 1) g + L. Segmented, the root's d(k - 1) sends per
 * segment pace the pipeline (001 Table 1 "Seg. Binomial Tree" for k = 2:
 * floor(log2 P) g(s) ns + ceil(log2 P) L):
 *   T = (ns - 1) d (k - 1) g(s) + d ((k - 1) g(s) + L). */
static double knomial(const struct cf *c, int k, uint64_t s, uint64_t ns)
{
    int d = 0;
    long q = 1;
    while (q < c->p) {
        q *= k;
        d++;
    }
    if (q != c->p) {
        /* Not a power of k: an estimate in 001's form (Table 1, "Seg.
         * Binomial Tree"): the root's c0 children take ns c0 gaps, then
         * ceil(log_k P) latencies: ns c0 g(s) + d L (equal to the exact
         * form when P is a power of k, where c0 = d (k - 1)). */
        struct acct_tree t;
        if (acct_tree_build(ACCT_TREE_KNOMIAL, 0, c->p, k, &t) != 0)
            return NAN;
        return (double)ns * t.nchildren * g(c, s) + d * lat(c);
    }
    return (double)(ns - 1) * d * (k - 1) * g(c, s) + d * ((k - 1) * g(c, s) + lat(c));
}

/* Any tree of topo.h, by its longest path: a node that has a segment at t
 * serves its children in order, the j-th at t + j g(s) + L; D(v) the time
 * node v has the first segment; the root's c0 sends per segment pace the
 * rest: T = (ns - 1) c0 g(s) + max_v D(v). Exact when every node keeps up
 * with its parent (fewer children than the root, as in binomial, k-nomial
 * and binary trees); the "longest edge" view of 000. */
static double tree_path(const struct cf *c, enum acct_tree_kind kind, int k, uint64_t s,
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
            d[w] = d[v] + (j + 1) * g(c, s) + lat(c);
            best = d[w] > best ? d[w] : best;
            order[tail++] = w;
        }
    }
    free(d);
    free(order);
    return ok ? (double)(ns - 1) * c0 * g(c, s) + best : NAN;
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
 * With P = 2^k both reduce to 001 Table 2's sum_{j<k} g(2^j m) + k L.
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

static double binomial_up(const struct cf *c, uint64_t x, double *u)
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
            a[j] = u[w] + g(c, sz[j]) + lat(c);
        }
        for (int j = 1; j < t.nchildren; j++) /* insertion sort by arrival */
            for (int q = j; q > 0 && a[q] < a[q - 1]; q--) {
                double ta = a[q];
                uint64_t ts = sz[q];
                a[q] = a[q - 1], sz[q] = sz[q - 1];
                a[q - 1] = ta, sz[q - 1] = ts;
            }
        u[v] = 0;
        for (int j = 0; j < t.nchildren; j++) {
            orx = acct_plogp_or(&c->mdl->net, sz[j]);
            double d = a[j] > orx ? a[j] : orx;
            d = done + g(c, sz[j]) > d ? done + g(c, sz[j]) : d;
            done = d;
            u[v] = d;
        }
    }
    best = u[0];
out:
    free(order);
    return best;
}

static double binomial_down(const struct cf *c, uint64_t x, const double *start)
{
    int *order = calloc((size_t)c->p, sizeof *order);
    double *d = calloc((size_t)c->p, sizeof *d), best = NAN;
    struct acct_tree t;
    if (order == NULL || d == NULL || binomial_order(c->p, order) != 0)
        goto out;
    best = 0;
    d[0] = start != NULL ? start[0] : 0;
    for (int i = 0; i < c->p; i++) {
        int v = order[i];
        if (acct_tree_build(ACCT_TREE_BINOMIAL, v, c->p, 2, &t) != 0) {
            best = NAN;
            goto out;
        }
        double tv = d[v];
        for (int j = 0; j < t.nchildren; j++) {
            int w = t.children[j];
            tv += g(c, (uint64_t)acct_tree_span(ACCT_TREE_BINOMIAL, w, c->p, 2) * x);
            d[w] = tv + lat(c);
            best = d[w] > best ? d[w] : best;
        }
        best = d[v] > best ? d[v] : best;
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
static double binary(const struct cf *c, uint64_t s, uint64_t ns)
{
    int k = ilog2(c->p), sends = c->p > 2 ? 2 : 1;
    if (!pow2(c->p)) /* 001 Table 1's bound: ceil(log2 P)(2 g + L) per segment */
        return (double)sends * (double)(ns - 1) * g(c, s) + clog2(c->p) * (2 * g(c, s) + lat(c));
    double a = k * (g(c, s) + lat(c)), b = (k - 1) * (2 * g(c, s) + lat(c));
    return (double)sends * (double)(ns - 1) * g(c, s) + (a > b ? a : b);
}

/* Binomial scatter/gather of P = 2^k blocks of x bytes (001 Table 2):
 *   sum_{j=0}^{k-1} g(2^j x) + k L. */
static double binomial_blocks(const struct cf *c, uint64_t x)
{
    double t = 0;
    int k = clog2(c->p);
    for (int j = 0; j < k; j++)
        t += g(c, ((uint64_t)1 << j) * x);
    return t + k * lat(c);
}


/* Reduce over a chain tree (mirror of chains()): f chains pipeline the
 * segments up, the root takes f per segment, in arrival order, one gap
 * g(s) apart (its receive gap): chain i of length len_i delivers the last
 * segment at (ns - 1) f g(s) + len_i (g(s) + L) + (len_i - 1) gamma s
 * (every chain node but the tail reduces each segment once), the root
 * finishes the receives one after the other, g(s) apart, then reduces the
 * f segments: + f gamma s. Exact while f gamma s + or(s) <= g(s) (the
 * reductions do not slow the root's pace). */
static double chains_up(const struct cf *c, int f, uint64_t s, uint64_t ns)
{
    int n = c->p - 1;
    if (f > n)
        f = n;
    /* arrivals in increasing order: the shorter chains (the last ones) first */
    double done = 0;
    for (int i = f - 1; i >= 0; i--) {
        int len = n / f + (i < n % f ? 1 : 0);
        double a = (double)(ns - 1) * f * g(c, s) + len * (g(c, s) + lat(c)) + (len - 1) * gam(c, s);
        done = i == f - 1 ? a : (a > done + g(c, s) ? a : done + g(c, s));
    }
    return done + f * gam(c, s);
}

/* Unsegmented chains of blocks (gather: up, scatter: down), chain i of
 * len_i ranks carrying j blocks on its j-th link from the end (001 Table 2,
 * "Chain", one chain: sum_{j=1}^{P-1} g(j m) + (P - 1) L). Gather: chain i
 * arrives at A_i = sum_{j=1}^{len_i} (g(j m) + L), the root takes them in
 * arrival order one receive gap g(len_i m) apart. Scatter: the root sends
 * the chains' streams one after the other (longest first), chain i's head
 * has it at sum_{i' <= i} g(len_i' m) + L, then sum_{j=1}^{len_i - 1}
 * (g(j m) + L) down the chain. */
static double chain_blocks(const struct cf *c, int f, bool up)
{
    int n = c->p - 1;
    if (f > n)
        f = n;
    double t = 0, start = 0;
    for (int i = up ? f - 1 : 0; up ? i >= 0 : i < f; i += up ? -1 : 1) {
        int len = n / f + (i < n % f ? 1 : 0);
        double down = 0;
        for (int j = 1; j < len; j++)
            down += g(c, (uint64_t)j * c->m) + lat(c);
        double x = g(c, (uint64_t)len * c->m) + lat(c) + down;
        if (up)
            t = i == f - 1 ? x : (x > t + g(c, (uint64_t)len * c->m) ? x : t + g(c, (uint64_t)len * c->m));
        else {
            start += g(c, (uint64_t)len * c->m);
            x = start + lat(c) + down;
            t = x > t ? x : t;
        }
    }
    return t;
}

/* ---- bcast ---------------------------------------------------------------- */

static double bcast_linear(const struct cf *c)
{
    return flat(c, c->m);
}

static double bcast_chain(const struct cf *c)
{
    uint64_t s, ns;
    if (!segs(c, c->m, &s, &ns))
        return NAN;
    return chains(c, c->fanout > 0 ? c->fanout : 4, s, ns);
}

static double bcast_pipeline(const struct cf *c)
{
    uint64_t s, ns;
    if (!segs(c, c->m, &s, &ns))
        return NAN;
    return chains(c, 1, s, ns);
}

static double bcast_binomial(const struct cf *c)
{
    uint64_t s, ns;
    if (!segs(c, c->m, &s, &ns))
        return NAN;
    return pow2(c->p) ? knomial(c, 2, s, ns) : tree_path(c, ACCT_TREE_BINOMIAL, 2, s, ns);
}

static double bcast_knomial(const struct cf *c)
{
    uint64_t s, ns;
    int k = c->fanout > 0 ? c->fanout : 4;
    if (!segs(c, c->m, &s, &ns))
        return NAN;
    double t = knomial(c, k, s, ns);
    long q = 1;
    while (q < c->p)
        q *= k;
    return q == c->p ? t : tree_path(c, ACCT_TREE_KNOMIAL, k, s, ns);
}

static double bcast_binary(const struct cf *c)
{
    uint64_t s, ns;
    if (!segs(c, c->m, &s, &ns))
        return NAN;
    return pow2(c->p) ? binary(c, s, ns) : tree_path(c, ACCT_TREE_BINARY, 0, s, ns);
}

/* ---- scatter / gather ----------------------------------------------------- */

static double scatter_linear(const struct cf *c)
{
    return flat(c, c->m);
}

static double scatter_binomial(const struct cf *c)
{
    return pow2(c->p) ? binomial_blocks(c, c->m) : binomial_down(c, c->m, NULL);
}

static double gather_binomial(const struct cf *c)
{
    if (pow2(c->p))
        return binomial_blocks(c, c->m);
    double *u = calloc((size_t)c->p, sizeof *u);
    double t = u != NULL ? binomial_up(c, c->m, u) : NAN;
    free(u);
    return t;
}

/* Does a segment cut the longest chain's stream (ceil((P-1)/f) blocks)? */
static bool segmented_stream(const struct cf *c)
{
    int f = c->fanout > 0 ? c->fanout : 4, n = c->p - 1;
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
static double chain_segmented(const struct cf *c, int f, bool up)
{
    int n = c->p - 1;
    if (f > n)
        f = n;
    uint64_t q = c->m / c->seg, most = (uint64_t)(n / f + (n % f ? 1 : 0)) * q;
    double gs = g(c, c->seg), t = 0;
    if (up) {
        /* merge: arrivals of chain i are (k + len_i) gs + len_i L, k < len_i q;
         * walk the time-ordered union with one cursor per chain */
        uint64_t next[ACCT_TREE_MAX_FANOUT] = {0};
        double done = -INFINITY;
        for (;;) {
            int best = -1;
            double ab = 0;
            for (int i = 0; i < f; i++) {
                int len = n / f + (i < n % f ? 1 : 0);
                if (next[i] >= (uint64_t)len * q)
                    continue;
                double a = ((double)next[i] + len) * gs + len * lat(c);
                if (best < 0 || a < ab) {
                    best = i;
                    ab = a;
                }
            }
            if (best < 0)
                break;
            next[best]++;
            done = ab > done + gs ? ab : done + gs;
        }
        return done;
    }
    /* scatter: the root's sends in order, one gap apart */
    double start = 0;
    for (uint64_t k = 0; k < most; k++)
        for (int i = 0; i < f; i++) {
            int len = n / f + (i < n % f ? 1 : 0);
            if (k >= (uint64_t)len * q)
                continue;
            /* the segments that are some node's last: k = (len - j + 1) q - 1 */
            if ((k + 1) % q == 0) {
                int j = len + 1 - (int)((k + 1) / q);
                double x = start + j * (gs + lat(c));
                t = x > t ? x : t;
            }
            start += gs;
        }
    return t;
}

static double gather_chain(const struct cf *c)
{
    int f = c->fanout > 0 ? c->fanout : 4;
    if (!segmented_stream(c))
        return chain_blocks(c, f, true);
    return c->seg <= c->m && c->m % c->seg == 0 ? chain_segmented(c, f, true) : NAN;
}

static double scatter_chain(const struct cf *c)
{
    int f = c->fanout > 0 ? c->fanout : 4;
    if (!segmented_stream(c))
        return chain_blocks(c, f, false);
    return c->seg <= c->m && c->m % c->seg == 0 ? chain_segmented(c, f, false) : NAN;
}

/* Scatter + allgather bcast: binomial scatter of P blocks of b = m / P,
 * then recursive doubling (rd) or a ring:
 *   rd:   2 (sum_{j=0}^{k-1} g(2^j b) + k L)
 *   ring: sum_{j=0}^{k-1} g(2^j b) + k L + (P - 1)(g(b) + L). */
static double bcast_scatter_allgather_rd(const struct cf *c)
{
    if (!pow2(c->p) || c->m % (uint64_t)c->p != 0)
        return NAN;
    struct cf b = *c;
    b.m = c->m / (uint64_t)c->p;
    return 2 * binomial_blocks(&b, b.m);
}

static double bcast_scatter_allgather_ring(const struct cf *c)
{
    if (c->m % (uint64_t)c->p != 0)
        return NAN;
    uint64_t b = c->m / (uint64_t)c->p;
    double sc = pow2(c->p) ? binomial_blocks(c, b) : binomial_down(c, b, NULL);
    return sc + (c->p - 1) * (g(c, b) + lat(c));
}


/* Split-binary bcast (P = 2^k >= 4): each half h = m/2 pipelines down its
 * subtree in segments of s (the root alternating two sends per segment),
 * then mirror nodes swap halves in one message (bcast_split_binary.c):
 *   = 2 (ns - 1) g(s) + (k - 1)(g(s) + L) + (k - 1) g(s) + g(h) + L,
 * ns = h / s. P = 2 (and m < 2) is the plain binary tree. */
static double bcast_split_binary(const struct cf *c)
{
    uint64_t s, ns;
    if (c->p < 3 || c->m < 2)
        return bcast_binary(c);
    if (!pow2(c->p) || c->m % 2 != 0)
        return NAN;
    uint64_t h = c->m / 2;
    if (!segs(c, h, &s, &ns))
        return NAN;
    int k = ilog2(c->p);
    return 2.0 * (double)(ns - 1) * g(c, s) + (k - 1) * (g(c, s) + lat(c)) + (k - 1) * g(c, s) +
           g(c, h) + lat(c);
}

/* Linear gather with synchronisation (gather_linear_sync.c), root 0: the
 * root copies its block (delta m), then serves rank i = 1 .. P-1 in rounds:
 * it sends the zero-byte go at B_i; rank i sends its first segment f and
 * the rest r = m - f back to back; the round waits for f of rank i and r
 * of rank i - 1, taken in arrival order one receive gap apart:
 *   F_i = B_i + g(0) + L + g(f) + L,   R_i = F_i + g(r)
 *   done = max(arrival, B_i + or(x), previous done + g(x)),
 *   B_{i+1} = max(dones, B_i + os(0));  a last round takes R_{P-1}.
 * A recurrence over P - 1 rounds (000's schedule-based model). */
/* One receive of x bytes arriving at a in a round that started at b: its
 * completion (receive overhead, receive gap after *rx), kept in *rx and
 * folded into the round's end *e. */
static void take(const struct cf *c, double b, double a, uint64_t x, double *rx, double *e)
{
    double done = a, cpu = b + acct_plogp_or(&c->mdl->net, x), link = *rx + g(c, x);
    done = cpu > done ? cpu : done;
    done = link > done ? link : done;
    *rx = done;
    *e = done > *e ? done : *e;
}

static double gather_linear_sync(const struct cf *c)
{
    uint64_t f = c->seg == 0 || c->seg >= c->m ? c->m : c->seg, r = c->m - f;
    double b = c->mdl->delta_us_per_byte * (double)c->m, rx = -INFINITY, rest = 0;
    for (int i = 1; i <= c->p; i++) {
        bool has_first = i < c->p, has_rest = r > 0 && i > 1;
        double first = b + g(c, 0) + lat(c) + g(c, f) + lat(c);
        double e = has_first ? b + acct_plogp_os(&c->mdl->net, 0) : b;
        if (has_first && has_rest && rest < first) {
            take(c, b, rest, r, &rx, &e);
            take(c, b, first, f, &rx, &e);
        } else {
            if (has_first)
                take(c, b, first, f, &rx, &e);
            if (has_rest)
                take(c, b, rest, r, &rx, &e);
        }
        if (has_first)
            rest = first + g(c, r);
        b = e;
    }
    return b;
}

/* ---- barrier (m = 0) ------------------------------------------------------ */

/* Flat tree in and out (001 Table 1, m = 0, twice): 2((P - 1) g(0) + L). */
static double barrier_linear(const struct cf *c)
{
    return 2 * flat(c, 0);
}

/* The token twice round the ring: 2P (g(0) + L). */
static double barrier_double_ring(const struct cf *c)
{
    return 2.0 * c->p * (g(c, 0) + lat(c));
}

/* ceil(log2 P)(g(0) + L) (004 Table 4 dissemination, in pLogP terms). */
static double barrier_dissemination(const struct cf *c)
{
    return clog2(c->p) * (g(c, 0) + lat(c));
}

/* Binomial gather then binomial bcast of 0 bytes: 2 ceil(log2 P)(g(0) + L). */
static double barrier_tournament(const struct cf *c)
{
    if (pow2(c->p))
        return 2.0 * clog2(c->p) * (g(c, 0) + lat(c));
    /* other P: the arrival up the binomial tree, then the wake-up down it */
    double *u = calloc((size_t)c->p, sizeof *u), t = NAN;
    if (u != NULL && !isnan(binomial_up(c, 0, u)))
        t = binomial_down(c, 0, u);
    free(u);
    return t;
}

/* log2(q)(g(0) + L) + [P != q] 2 (g(0) + L), q = 2^floor(log2 P). */
static double barrier_recursive_doubling(const struct cf *c)
{
    int k = ilog2(c->p);
    return (k + (pow2(c->p) ? 0 : 2)) * (g(c, 0) + lat(c));
}

/* ---- allgather (m per block) ---------------------------------------------- */

/* (P - 1)(g(m) + L), plus the own block's copy: + delta m. */
static double allgather_ring(const struct cf *c)
{
    return (c->p - 1) * (g(c, c->m) + lat(c)) + c->mdl->delta_us_per_byte * (double)c->m;
}

/* sum_{j=0}^{k-1} (g(2^j m) + L) + delta m. */
static double allgather_recursive_doubling(const struct cf *c)
{
    if (!pow2(c->p))
        return NAN;
    double t = c->mdl->delta_us_per_byte * (double)c->m;
    for (int d = 1; d < c->p; d *= 2)
        t += g(c, (uint64_t)d * c->m) + lat(c);
    return t;
}

/* sum_{d = 1, 2, 4, .. < P} (g(min(d, P - d) m) + L) (001-style pLogP). */
static double allgather_bruck(const struct cf *c)
{
    double t = 0;
    for (int d = 1; d < c->p; d *= 2)
        t += g(c, (uint64_t)(d < c->p - d ? d : c->p - d) * c->m) + lat(c);
    return t;
}

/* g(m) + (P/2 - 1) g(2m) + (P/2) L, plus the own block's copy. */
static double allgather_neighbor_exchange(const struct cf *c)
{
    if (c->p % 2 != 0)
        return NAN;
    return g(c, c->m) + (c->p / 2 - 1) * g(c, 2 * c->m) + (c->p / 2) * lat(c) +
           c->mdl->delta_us_per_byte * (double)c->m;
}

/* ---- alltoall (m per block) ----------------------------------------------- */

/* (P - 1)(g(m) + L) + delta m (own block). */
static double alltoall_pairwise(const struct cf *c)
{
    return (c->p - 1) * (g(c, c->m) + lat(c)) + c->mdl->delta_us_per_byte * (double)c->m;
}

/* Rotated direct exchange, contention-free: (P - 1) g(m) + L + delta m. */
static double alltoall_linear(const struct cf *c)
{
    return flat(c, c->m) + c->mdl->delta_us_per_byte * (double)c->m;
}


/* ---- reduce (commutative: trees rotated to the root) ---------------------- */

/* The root takes P - 1 messages that all left at 0, one receive gap apart
 * (001 Table 1 flat tree, reversed): (P - 1) g(m) + L when gamma = 0. The
 * root reduces in windows (reduce_linear.c: x_{P-1} and 8 more, then 8 at a
 * time, its own data last), a window's reductions delaying the next
 * window's receives by or(m) at least:
 *   D_1 = g(m) + L + (n_1 - 1) g(m),  E_1 = D_1 + (n_1 - 1) gamma m
 *   D_w = max(E_{w-1} + or(m), D_{w-1} + g(m)) + (n_w - 1) g(m),
 *   E_w = D_w + r_w gamma m     (r_w reductions of window w) */
static double reduce_linear(const struct cf *c)
{
    const int window = 8;
    int left = c->p - 1;
    double gm = g(c, c->m), orm = acct_plogp_or(&c->mdl->net, c->m);
    double d = 0, e = 0;
    for (int w = 0; left > 0; w++) {
        int n = w == 0 ? (left < window + 1 ? left : window + 1) : (left < window ? left : window);
        int r = w == 0 ? n - 1 : n;
        left -= n;
        if (left == 0)
            r++; /* the root's own data */
        if (w == 0)
            d = gm + lat(c) + (n - 1) * gm;
        else
            d = (e + orm > d + gm ? e + orm : d + gm) + (n - 1) * gm;
        e = d + r * gam(c, c->m);
    }
    return e;
}

static double reduce_chain(const struct cf *c)
{
    uint64_t s, ns;
    if (!segs(c, c->m, &s, &ns))
        return NAN;
    return chains_up(c, c->fanout > 0 ? c->fanout : 4, s, ns);
}


/* Reduce trees mirror the bcast trees (a node receives from its children
 * what it would have sent them, one receive gap apart), plus the
 * reductions on the critical path; exact while a node's reductions of one
 * segment plus or(s) fit in a gap g(s):
 *   pipeline: bcast pipeline + (P - 1) gamma s
 *   binomial: bcast binomial + k (k + 1) / 2 gamma s   (a node with
 *             subtree 2^i reduces i children's segments)
 *   binary:   2 (ns - 1) g(s) + max(k (g(s) + L) + (2k - 1) gamma s,
 *             (k - 1)(2 g(s) + L) + 2 (k - 1) gamma s)   (P = 2^k > 2) */
static double reduce_pipeline(const struct cf *c)
{
    uint64_t s, ns;
    if (!segs(c, c->m, &s, &ns))
        return NAN;
    return chains(c, 1, s, ns) + (c->p - 1) * gam(c, s);
}

static double reduce_binomial(const struct cf *c)
{
    uint64_t s, ns;
    if (!segs(c, c->m, &s, &ns))
        return NAN;
    int k = clog2(c->p);
    return knomial(c, 2, s, ns) + k * (k + 1) / 2 * gam(c, s);
}

static double reduce_binary(const struct cf *c)
{
    uint64_t s, ns;
    if (!segs(c, c->m, &s, &ns))
        return NAN;
    if (c->p == 2)
        return (double)(ns - 1) * g(c, s) + g(c, s) + lat(c) + gam(c, s);
    if (!pow2(c->p))
        return binary(c, s, ns) + 2 * clog2(c->p) * gam(c, s);
    int k = ilog2(c->p);
    double a = k * (g(c, s) + lat(c)) + (2 * k - 1) * gam(c, s);
    double b = (k - 1) * (2 * g(c, s) + lat(c)) + 2 * (k - 1) * gam(c, s);
    return 2.0 * (double)(ns - 1) * g(c, s) + (a > b ? a : b);
}

/* Reduce-scatter by halving, binomial gather of the m / P pieces:
 *   sum_{j=1}^{k} (g(m/2^j) + L + gamma m/2^j) + sum_{j=0}^{k-1} g(2^j m/P) + k L. */
static double reduce_rabenseifner(const struct cf *c)
{
    if (!pow2(c->p)) {
        /* the pre-step (g(m) + L + gamma m), then the power-of-two part */
        struct cf q = *c;
        q.p = 1 << ilog2(c->p);
        double t = reduce_rabenseifner(&q);
        return t + g(c, c->m) + lat(c) + gam(c, c->m);
    }
    double t = bcast_scatter_allgather_rd(c);
    for (int d = 2; d <= c->p && !isnan(t); d *= 2)
        t += gam(c, c->m / (uint64_t)d);
    return t;
}

/* ---- allreduce ------------------------------------------------------------ */

/* Pre/post step of the non-power-of-two allreduces (allreduce_common.c):
 * 2 (g(m) + L) + gamma m; 0 for P = 2^k. */
static double prepost(const struct cf *c)
{
    return pow2(c->p) ? 0 : 2 * (g(c, c->m) + lat(c)) + gam(c, c->m);
}

/* k (g(m) + L) + k gamma m (P = 2^k; + the pre/post step otherwise,
 * k = floor(log2 P)). */
static double allreduce_recursive_doubling(const struct cf *c)
{
    int k = ilog2(c->p);
    return k * (g(c, c->m) + lat(c) + c->mdl->gamma_us_per_byte * (double)c->m) + prepost(c);
}

/* 2 (P - 1)(g(m/P) + L) + (P - 1) gamma m/P (m divisible by P). */
static double allreduce_ring(const struct cf *c)
{
    if (c->m % (uint64_t)c->p != 0)
        return NAN;
    uint64_t b = c->m / (uint64_t)c->p;
    return 2.0 * (c->p - 1) * (g(c, b) + lat(c)) +
           (c->p - 1) * c->mdl->gamma_us_per_byte * (double)b;
}

/* Reduce-scatter by halving, allgather by doubling (P = 2^k):
 *   2 sum_{j=1}^{k} (g(m/2^j) + L) + sum_{j=1}^{k} gamma m/2^j. */
static double allreduce_rabenseifner(const struct cf *c)
{
    int p2 = 1 << ilog2(c->p);
    if (c->m % (uint64_t)p2 != 0)
        return NAN;
    double t = prepost(c);
    for (int d = 2; d <= p2; d *= 2)
        t += 2 * (g(c, c->m / (uint64_t)d) + lat(c)) +
             c->mdl->gamma_us_per_byte * (double)(c->m / (uint64_t)d);
    return t;
}

/* Segmented binomial reduce then bcast: 2 T_binomial(s). */
static double allreduce_reduce_bcast(const struct cf *c)
{
    uint64_t s, ns;
    if (!segs(c, c->m, &s, &ns))
        return NAN;
    int k = ilog2(c->p);
    if (!pow2(c->p))
        k = clog2(c->p);
    return 2 * knomial(c, 2, s, ns) + k * (k + 1) / 2 * gam(c, s);
}

/* Bruck allgather of the m-byte inputs, then (P - 1) gamma m. */
static double allreduce_allgather_reduce(const struct cf *c)
{
    return allgather_bruck(c) + (c->p - 1) * c->mdl->gamma_us_per_byte * (double)c->m;
}

/* Open MPI's passes: s = m / (P seg) reduce-scatter passes of pieces
 * x = m / (P s), each of P - 1 steps, a pass's first step sharing a round
 * with the previous pass's last (two messages a round, one gap more), then
 * the ring allgather of blocks b = m / P:
 *   P >= 4: (s (P - 2) + 1)(g(x) + L) + (s - 1) g(x) + (P - 1)(g(b) + L)
 *   P = 2:  s (g(x) + L) + g(b) + L. */
static double allreduce_segmented_ring(const struct cf *c)
{
    uint64_t p = (uint64_t)c->p, b = c->m / p;
    if (c->m % p != 0)
        return NAN;
    if (c->seg == 0 || c->m < p * c->seg)
        return allreduce_ring(c);
    uint64_t sp = c->m / (p * c->seg);
    if (c->m % (p * c->seg) != 0)
        return NAN;
    uint64_t x = b / sp;
    double rs = c->p == 2 ? (double)sp * (g(c, x) + lat(c))
                          : ((double)sp * (c->p - 2) + 1) * (g(c, x) + lat(c)) + (double)(sp - 1) * g(c, x);
    return rs + (c->p - 1) * (g(c, b) + lat(c));
}

/* ---- reduce_scatter_block (m per block) ------------------------------------ */

/* (P - 1)(g(m) + L + gamma m). */
static double rsb_ring(const struct cf *c)
{
    return (c->p - 1) * (g(c, c->m) + lat(c) + c->mdl->gamma_us_per_byte * (double)c->m);
}

/* sum_{j=1}^{k} (g(P m / 2^j) + L + gamma P m / 2^j) (P = 2^k), plus the
 * local copy of the P m input bytes into the running vector: + delta P m. */
static double rsb_recursive_halving(const struct cf *c)
{
    int p2 = 1 << ilog2(c->p);
    uint64_t all = (uint64_t)c->p * c->m;
    /* not a power of two: the pre-step of the whole input, the post-step
     * of one block (reduce_scatter_block_recursive_halving.c) */
    double t = p2 == c->p ? 0 : g(c, all) + lat(c) + gam(c, all) + g(c, c->m) + lat(c);
    t += c->mdl->delta_us_per_byte * (double)all;
    for (int d = 2; d <= p2; d *= 2)
        t += g(c, all / (uint64_t)d) + lat(c) + c->mdl->gamma_us_per_byte * (double)(all / (uint64_t)d);
    return t;
}

/* Segmented binomial reduce of P m bytes, then binomial scatter of m-byte
 * blocks. */
static double rsb_reduce_scatter(const struct cf *c)
{
    uint64_t s, ns;
    struct cf all = *c;
    all.m = (uint64_t)c->p * c->m;
    if (!segs(&all, all.m, &s, &ns))
        return NAN;
    int k = clog2(c->p);
    return knomial(&all, 2, s, ns) + k * (k + 1) / 2 * gam(c, s) + binomial_blocks(c, c->m);
}

/* ---- more allgather / alltoall ----------------------------------------------- */

/* Binomial gather of m-byte blocks to 0, then binomial bcast of P m bytes
 * (segmented). */
static double allgather_gather_bcast(const struct cf *c)
{
    uint64_t s, ns;
    struct cf all = *c;
    all.m = (uint64_t)c->p * c->m;
    if (!segs(&all, all.m, &s, &ns))
        return NAN;
    if (pow2(c->p))
        return binomial_blocks(c, c->m) + knomial(&all, 2, s, ns);
    double *u = calloc((size_t)c->p, sizeof *u), t = NAN;
    if (u != NULL)
        t = binomial_up(c, c->m, u) + tree_path(&all, ACCT_TREE_BINOMIAL, 2, s, ns);
    free(u);
    return t;
}

/* k (g(P m / 2) + L) (P = 2^k; 004 Table 4 "Bruck's Indexing" in pLogP
 * terms, 001 style), plus copies. */
static double alltoall_bruck(const struct cf *c)
{
    return clog2(c->p) * (g(c, (uint64_t)c->p / 2 * c->m) + lat(c));
}

/* Linear gather and linear scatter of P m-byte rows at rank 0:
 *   2 ((P - 1) g(P m) + L), plus the transposition. */
static double alltoall_gather_scatter(const struct cf *c)
{
    return 2 * flat(c, (uint64_t)c->p * c->m);
}

/* ---- dispatch ------------------------------------------------------------- */

struct closed_entry {
    enum acct_coll_id coll;
    const char *name;
    double (*fn)(const struct cf *c);
};

static const struct closed_entry closed_forms[] = {
    {ACCT_COLL_bcast, "linear", bcast_linear},
    {ACCT_COLL_bcast, "chain", bcast_chain},
    {ACCT_COLL_bcast, "pipeline", bcast_pipeline},
    {ACCT_COLL_bcast, "binomial", bcast_binomial},
    {ACCT_COLL_bcast, "knomial", bcast_knomial},
    {ACCT_COLL_bcast, "binary", bcast_binary},
    {ACCT_COLL_scatter, "linear", scatter_linear},
    {ACCT_COLL_scatter, "binomial", scatter_binomial},
    {ACCT_COLL_scatter, "chain", scatter_chain},
    {ACCT_COLL_gather, "linear", scatter_linear},
    {ACCT_COLL_gather, "binomial", gather_binomial},
    {ACCT_COLL_gather, "chain", gather_chain},
    {ACCT_COLL_barrier, "linear", barrier_linear},
    {ACCT_COLL_barrier, "double_ring", barrier_double_ring},
    {ACCT_COLL_barrier, "dissemination", barrier_dissemination},
    {ACCT_COLL_barrier, "tournament", barrier_tournament},
    {ACCT_COLL_barrier, "recursive_doubling", barrier_recursive_doubling},
    {ACCT_COLL_allgather, "ring", allgather_ring},
    {ACCT_COLL_allgather, "recursive_doubling", allgather_recursive_doubling},
    {ACCT_COLL_allgather, "bruck", allgather_bruck},
    {ACCT_COLL_allgather, "neighbor_exchange", allgather_neighbor_exchange},
    {ACCT_COLL_alltoall, "pairwise", alltoall_pairwise},
    {ACCT_COLL_alltoall, "linear", alltoall_linear},
    {ACCT_COLL_bcast, "scatter_allgather_rd", bcast_scatter_allgather_rd},
    {ACCT_COLL_bcast, "split_binary", bcast_split_binary},
    {ACCT_COLL_gather, "linear_sync", gather_linear_sync},
    {ACCT_COLL_bcast, "scatter_allgather_ring", bcast_scatter_allgather_ring},
    {ACCT_COLL_reduce, "linear", reduce_linear},
    {ACCT_COLL_reduce, "chain", reduce_chain},
    {ACCT_COLL_reduce, "pipeline", reduce_pipeline},
    {ACCT_COLL_reduce, "binomial", reduce_binomial},
    {ACCT_COLL_reduce, "binary", reduce_binary},
    {ACCT_COLL_reduce, "in_order_binary", reduce_binary},
    {ACCT_COLL_reduce, "rabenseifner", reduce_rabenseifner},
    {ACCT_COLL_allreduce, "recursive_doubling", allreduce_recursive_doubling},
    {ACCT_COLL_allreduce, "ring", allreduce_ring},
    {ACCT_COLL_allreduce, "segmented_ring", allreduce_segmented_ring},
    {ACCT_COLL_allreduce, "rabenseifner", allreduce_rabenseifner},
    {ACCT_COLL_allreduce, "reduce_bcast", allreduce_reduce_bcast},
    {ACCT_COLL_allreduce, "allgather_reduce", allreduce_allgather_reduce},
    {ACCT_COLL_reduce_scatter_block, "ring", rsb_ring},
    {ACCT_COLL_reduce_scatter_block, "recursive_halving", rsb_recursive_halving},
    {ACCT_COLL_reduce_scatter_block, "reduce_scatter", rsb_reduce_scatter},
    {ACCT_COLL_allgather, "gather_bcast", allgather_gather_bcast},
    {ACCT_COLL_alltoall, "bruck", alltoall_bruck},
    {ACCT_COLL_alltoall, "gather_scatter", alltoall_gather_scatter},
    {0, NULL, NULL},
};

double acct_model_closed_form(enum acct_coll_id coll, const struct acct_decision *dec, int p,
                              uint64_t bytes, const struct acct_model *mdl)
{
    double t = NAN;
    if (dec == NULL || dec->alg == NULL || dec->alg->coll != coll || p < 1 ||
        acct_model_check(mdl, NULL, 0) != 0)
        return NAN;
    struct cf c = {.mdl = mdl, .p = p, .m = coll == ACCT_COLL_barrier ? 0 : bytes,
                   .seg = (dec->alg->flags & ACCT_ALG_SEGMENTED) ? dec->segment_bytes : 0,
                   .fanout = (dec->alg->flags & ACCT_ALG_FANOUT) ? dec->fanout : 0};
    if (p == 1 || (coll != ACCT_COLL_barrier && bytes == 0))
        return 0; /* nothing moves */
    for (const struct closed_entry *e = closed_forms; e->name != NULL; e++)
        if (e->coll == coll && strcmp(e->name, dec->alg->name) == 0) {
            t = e->fn(&c);
            break;
        }
    return t;
}

double acct_model_alltoall_contention(int p, uint64_t bytes, const struct acct_model *mdl,
                                      double *lower, double *upper)
{
    if (p < 1 || acct_model_check(mdl, NULL, 0) != 0)
        return NAN;
    const struct acct_plogp *t = &mdl->net;
    double n = p - 1;
    double lo = n * acct_plogp_os(t, bytes) + n * acct_plogp_or(t, bytes) + t->L_us;
    double hi = n * acct_plogp_g(t, bytes) + n * acct_plogp_or(t, bytes) + t->L_us;
    if (p == 1)
        lo = hi = 0;
    if (lower != NULL)
        *lower = lo;
    if (upper != NULL)
        *upper = hi;
    return lo + (hi - lo) * mdl->contention;
}
