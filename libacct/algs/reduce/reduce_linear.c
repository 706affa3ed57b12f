/* Linear reduce: every rank sends its whole buffer to the root, which
 * combines them in rank order, from the right: acc = x_{P-1}, then
 * acc = x_i (op) acc for i = P-2 .. 0 (as Open MPI's basic linear), so the
 * accumulator stays in place (the root's receive buffer) and x_{P-1} is
 * received straight into it. The root posts its receives WINDOW at a time
 * (one round, then their reductions), bounding its scratch to WINDOW
 * buffers while keeping up to WINDOW messages in flight.
 * In place with a non-commutative operation and the root below P-1, the
 * root's own data sits in the receive buffer in the middle of the order:
 * the accumulator is then scratch, copied to the receive buffer at the end.
 * Cost (pLogP, ../cost.h): acct_reduce_linear_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

#define WINDOW 8

int acct_reduce_linear(const struct acct_call *c, struct acct_sched *s)
{
    const int p = c->size, root = c->root;
    const uint64_t n = c->count;
    const bool in_place = c->in_place;

    if (n == 0)
        return 0;
    if (c->rank != root) {
        acct_sched_send(s, root, ACCT_BUF_SEND, 0, n);
        return 0;
    }
    if (p == 1) {
        if (!in_place)
            acct_sched_copy(s, ACCT_BUF_SEND, 0, n, ACCT_BUF_RECV, 0, n);
        return 0;
    }

    const enum acct_buf own = in_place ? ACCT_BUF_RECV : ACCT_BUF_SEND;
    /* The accumulator and how it starts: x_{P-1} received into it, the
     * root's own data (copied or already there), or (commutative, in
     * place) the root's own data wherever it stands in the order. */
    enum acct_buf acc = ACCT_BUF_RECV;
    bool own_in_acc = false, copy_back = false, copy_own = false;
    int first = p - 1; /* ranks first+1 .. P-1 are already in acc */
    if (c->commutative && in_place) {
        own_in_acc = true;
    } else if (root == p - 1) {
        copy_own = !in_place; /* with the first window's reductions */
        first = p - 2;
    } else {
        if (in_place) {
            acc = ACCT_BUF_TMP1;
            acct_sched_tmp(s, ACCT_BUF_TMP1, ACCT_BUF_RECV, n);
            copy_back = true;
        }
        acct_sched_recv(s, p - 1, acc, 0, n);
        first = p - 2;
    }

    int slots = 0;
    for (int hi = first; hi >= 0;) {
        /* Window: ranks hi down to lo+1 holding at most WINDOW others. */
        int lo = hi, nrecv = 0;
        while (lo >= 0 && (nrecv < WINDOW || lo == root)) {
            nrecv += lo != root;
            lo--;
        }
        for (int i = hi, j = 0; i > lo; i--)
            if (i != root)
                acct_sched_recv(s, i, ACCT_BUF_TMP0, (uint64_t)j++ * n, n);
        if (copy_own)
            acct_sched_copy(s, ACCT_BUF_SEND, 0, n, ACCT_BUF_RECV, 0, n);
        copy_own = false;
        for (int i = hi, j = 0; i > lo; i--) {
            if (i != root)
                acct_sched_reduce(s, ACCT_BUF_TMP0, (uint64_t)j++ * n, acc, 0, n);
            else if (!own_in_acc)
                acct_sched_reduce(s, own, 0, acc, 0, n);
        }
        if (nrecv > slots)
            slots = nrecv;
        hi = lo;
    }
    if (slots > 0)
        acct_sched_tmp(s, ACCT_BUF_TMP0, ACCT_BUF_RECV, (uint64_t)slots * n);
    if (copy_back)
        acct_sched_copy(s, ACCT_BUF_TMP1, 0, n, ACCT_BUF_RECV, 0, n);
    return 0;
}

/* The root takes P - 1 messages that all left at 0, one receive gap apart
 * (BM04 Table 1 flat tree, reversed): (P - 1) g(m) + L when gamma = 0. The
 * root reduces in windows (reduce_linear.c: x_{P-1} and 8 more, then 8 at a
 * time, its own data last), a window's reductions delaying the next
 * window's receives by or(m) at least:
 *   D_1 = g(m) + L + (n_1 - 1) g(m),  E_1 = D_1 + (n_1 - 1) gamma m
 *   D_w = max(E_{w-1} + or(m), D_{w-1} + g(m)) + (n_w - 1) g(m),
 *   E_w = D_w + r_w gamma m     (r_w reductions of window w) */
double acct_reduce_linear_cost(const struct acct_cost *c)
{
    const int window = 8;
    int left = c->p - 1;
    double gm = cost_g(c, c->m), orm = cost_or(c, c->m);
    double d = 0, e = 0;
    for (int w = 0; left > 0; w++) {
        int n = w == 0 ? (left < window + 1 ? left : window + 1) : (left < window ? left : window);
        int r = w == 0 ? n - 1 : n;
        left -= n;
        if (left == 0)
            r++; /* the root's own data */
        if (w == 0)
            d = gm + cost_L(c) + (n - 1) * gm;
        else
            d = (e + orm > d + gm ? e + orm : d + gm) + (n - 1) * gm;
        e = d + r * cost_gamma(c, c->m);
    }
    return e;
}
