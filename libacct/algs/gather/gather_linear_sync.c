/* Linear gather with synchronisation (Open MPI's
 * ompi_coll_base_gather_intra_linear_sync): a non-root sends nothing until
 * the root asks for it with a zero-byte message, then sends its block in
 * two messages, a first segment (call->seg receive elements, rounded to
 * granules; seg 0 or seg >= count: the whole block) and the rest. The
 * root serves the ranks in rank order: for rank i it posts the receive of
 * the first segment, sends the go, and waits for the first segment while
 * the rest of rank i - 1 streams in; so at most two ranks send at once and
 * the root is never flooded by unexpected messages.
 * Cost (pLogP, ../cost.h): acct_gather_linear_sync_cost at the end of this file. */
#include "../algs.h"
#include "../cost.h"

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

/* Linear gather with synchronisation (above), root 0: the
 * root copies its block (delta m), then serves rank i = 1 .. P-1 in rounds:
 * it sends the zero-byte go at B_i; rank i sends its first segment f and
 * the rest r = m - f back to back; the round waits for f of rank i and r
 * of rank i - 1, taken in arrival order one receive gap apart:
 *   F_i = B_i + g(0) + L + g(f) + L,   R_i = F_i + g(r)
 *   done = max(arrival, B_i + or(x), previous done + g(x)),
 *   B_{i+1} = max(dones, B_i + os(0));  a last round takes R_{P-1}.
 * A recurrence over P - 1 rounds (V04's schedule-based model). */
/* One receive of x bytes arriving at a in a round that started at b: its
 * completion (receive overhead, receive gap after *rx), kept in *rx and
 * folded into the round's end *e. */
static void take(const struct acct_cost *c, double b, double a, uint64_t x, double *rx, double *e)
{
    double done = a, cpu = b + cost_or(c, x), link = *rx + cost_g(c, x);
    done = cpu > done ? cpu : done;
    done = link > done ? link : done;
    *rx = done;
    *e = done > *e ? done : *e;
}

/* The recurrence above, over P - 1 rounds. */
double acct_gather_linear_sync_cost(const struct acct_cost *c)
{
    uint64_t f = c->seg == 0 || c->seg >= c->m ? c->m : c->seg, r = c->m - f;
    double b = c->delta_us_per_byte * (double)c->m, rx = -INFINITY, rest = 0;
    for (int i = 1; i <= c->p; i++) {
        bool has_first = i < c->p, has_rest = r > 0 && i > 1;
        double first = b + cost_g(c, 0) + cost_L(c) + cost_g(c, f) + cost_L(c);
        double e = has_first ? b + cost_os(c, 0) : b;
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
            rest = first + cost_g(c, r);
        b = e;
    }
    return b;
}
