/* Linear gather with synchronisation (Open MPI's
 * ompi_coll_base_gather_intra_linear_sync): a non-root sends nothing until
 * the root asks for it with a zero-byte message, then sends its block in
 * two messages, a first segment (call->seg receive elements, rounded to
 * granules; seg 0 or seg >= count: the whole block) and the rest. The
 * root serves the ranks in rank order: for rank i it posts the receive of
 * the first segment, sends the go, and waits for the first segment while
 * the rest of rank i - 1 streams in; so at most two ranks send at once and
 * the root is never flooded by unexpected messages.
 * Cost (LogGP, f = first segment, paper 004's parameters): per rank
 *   max(2L + 4o + (f - 1)G, (m - f - 1)G), i.e.
 *   T ~ (P - 1)(2L + 4o + (f - 1)G) + L + 2o + (m - f - 1)G for small m
 *   and (P - 1) m G for large m (paper 001 Table 2 flat tree: (P-1) g(m) + L,
 *   plus one round trip per rank). */
#include "../algs.h"

int acct_gather_linear_sync(const struct acct_call *c, struct acct_sched *s)
{
    struct acct_gather_gran b;
    acct_gather_blocks(c, &b);
    /* first segment in granules */
    const uint64_t first = b.seg == 0 || b.seg >= b.gran ? b.gran : b.seg;

    if (c->rank != c->root) {
        if (c->scount == 0)
            return 0;
        acct_sched_recv(s, c->root, ACCT_BUF_RECV, 0, 0); /* the go (nothing is written) */
        acct_sched_round(s);
        acct_sched_send(s, c->root, ACCT_BUF_SEND, 0, first * b.scnt);
        if (first < b.gran)
            acct_sched_send(s, c->root, ACCT_BUF_SEND, first * b.scnt, c->scount - first * b.scnt);
        return 0;
    }
    if (c->count == 0)
        return 0;
    if (!c->in_place)
        acct_sched_copy(s, ACCT_BUF_SEND, 0, c->scount, ACCT_BUF_RECV,
                        (uint64_t)c->root * c->count, c->count);
    int prev = -1;
    for (int r = 0; r < c->size; r++) {
        if (r == c->root)
            continue;
        acct_sched_recv(s, r, ACCT_BUF_RECV, (uint64_t)r * c->count, first * b.rcnt);
        acct_sched_send(s, r, ACCT_BUF_RECV, 0, 0);
        if (prev >= 0 && first < b.gran)
            acct_sched_recv(s, prev, ACCT_BUF_RECV, (uint64_t)prev * c->count + first * b.rcnt,
                            c->count - first * b.rcnt);
        acct_sched_round(s);
        prev = r;
    }
    if (prev >= 0 && first < b.gran)
        acct_sched_recv(s, prev, ACCT_BUF_RECV, (uint64_t)prev * c->count + first * b.rcnt,
                        c->count - first * b.rcnt);
    return 0;
}
