/* Lockstep timelines: the mechanism of the pipelined node-aware allreduces
 * (hier_pipelined, hier_reduce_scatter).
 *
 * A builder places each step at a global round number, the same on every
 * rank for the two ends of a message (a send and its receive share a
 * round). acct_lockstep_emit() then writes the schedule round by round:
 * the round's SENDs and RECVs in the order they were placed, then its
 * REDUCEs and COPYs in the order they were placed. Phases of different
 * segments placed in the same round therefore run at once (the executor
 * posts all of a round's messages before it waits), which is how segment
 * s's inter-node allreduce overlaps segment s+1's intra-node reduce and
 * segment s-1's intra-node bcast.
 *
 * Why that is safe with one tag per call (acct/sched.h): both ends of every
 * message sit in the same round, so the messages between a pair are posted
 * in (round, placement) order on both sides as long as both place them in
 * the same order within a round (the builders place by segment, then by
 * slice); and no rank waits in round t for a partner's later round, so the
 * lockstep cannot deadlock under a rendezvous protocol (the unit matrix
 * runs every schedule in such an engine, acct/simulate.h). Rounds in which
 * a rank has nothing to do vanish from its schedule (acct_sched_round on an
 * empty round); that changes no pair's order. */
#include "../algs.h"

#include <stdlib.h>

struct acct_lockstep_step {
    uint32_t round, seq;
    struct acct_step st;
};

void acct_lockstep_init(struct acct_lockstep *t)
{
    *t = (struct acct_lockstep){0};
}

void acct_lockstep_free(struct acct_lockstep *t)
{
    free(t->v);
    *t = (struct acct_lockstep){0};
}

static void place(struct acct_lockstep *t, uint32_t round, const struct acct_step *st)
{
    if (t->err)
        return;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        struct acct_lockstep_step *v = realloc(t->v, cap * sizeof *v);
        if (v == NULL) {
            t->err = -1;
            return;
        }
        t->v = v;
        t->cap = cap;
    }
    t->v[t->n] = (struct acct_lockstep_step){.round = round, .seq = (uint32_t)t->n, .st = *st};
    t->n++;
}

void acct_lockstep_msg(struct acct_lockstep *t, uint32_t round, bool send, int peer,
                       enum acct_buf buf, uint64_t off, uint64_t count)
{
    if (count == 0)
        return;
    struct acct_step st = {.kind = send ? ACCT_STEP_SEND : ACCT_STEP_RECV, .peer = peer,
                           .a = {.buf = (uint8_t)buf, .off = off, .count = count}};
    place(t, round, &st);
}

void acct_lockstep_local(struct acct_lockstep *t, uint32_t round, bool reduce, enum acct_buf a,
                         uint64_t aoff, enum acct_buf b, uint64_t boff, uint64_t count)
{
    if (count == 0)
        return;
    struct acct_step st = {.kind = reduce ? ACCT_STEP_REDUCE : ACCT_STEP_COPY,
                           .a = {.buf = (uint8_t)a, .off = aoff, .count = count},
                           .b = {.buf = (uint8_t)b, .off = boff, .count = count}};
    place(t, round, &st);
}

static int by_round(const void *x, const void *y)
{
    const struct acct_lockstep_step *a = x, *b = y;
    if (a->round != b->round)
        return a->round < b->round ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool is_msg(const struct acct_step *st)
{
    return st->kind == ACCT_STEP_SEND || st->kind == ACCT_STEP_RECV;
}

/* The placed steps' indices in (round, placement) order into a new array
 * (NULL: out of memory). Rounds are dense small numbers (a builder's
 * rounds from 0): a counting sort by round, which keeps the placement order
 * within a round; were they sparse, the steps themselves are sorted and
 * the order is the identity. The simulator builds this for every rank of
 * every candidate (acct-tune's model regions): a qsort of the 64-byte
 * steps was a third of that time. */
static size_t *in_round_order(struct acct_lockstep *t)
{
    size_t *ord = malloc((t->n ? t->n : 1) * sizeof *ord);
    uint32_t maxr = 0;
    if (ord == NULL)
        return NULL;
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].round > maxr)
            maxr = t->v[i].round;
    size_t *at = (size_t)maxr <= 4 * t->n + 64 ? calloc((size_t)maxr + 2, sizeof *at) : NULL;
    if (at == NULL) {
        qsort(t->v, t->n, sizeof *t->v, by_round);
        for (size_t i = 0; i < t->n; i++)
            ord[i] = i;
        return ord;
    }
    for (size_t i = 0; i < t->n; i++)
        at[t->v[i].round + 1]++;
    for (size_t r = 1; r <= (size_t)maxr + 1; r++)
        at[r] += at[r - 1];
    for (size_t i = 0; i < t->n; i++)
        ord[at[t->v[i].round]++] = i;
    free(at);
    return ord;
}

int acct_lockstep_emit(struct acct_lockstep *t, struct acct_sched *s)
{
    if (t->err)
        return -1;
    size_t *ord = in_round_order(t);
    if (ord == NULL)
        return -1;
    for (size_t i = 0; i < t->n;) {
        size_t end = i;
        uint32_t round = t->v[ord[i]].round;
        while (end < t->n && t->v[ord[end]].round == round)
            end++;
        for (int pass = 0; pass < 2; pass++) /* messages, then local steps */
            for (size_t j = i; j < end; j++) {
                const struct acct_step *st = &t->v[ord[j]].st;
                if (pass == 0 && st->kind == ACCT_STEP_SEND)
                    acct_sched_send(s, st->peer, st->a.buf, st->a.off, st->a.count);
                else if (pass == 0 && st->kind == ACCT_STEP_RECV)
                    acct_sched_recv(s, st->peer, st->a.buf, st->a.off, st->a.count);
                else if (pass == 1 && st->kind == ACCT_STEP_REDUCE)
                    acct_sched_reduce(s, st->a.buf, st->a.off, st->b.buf, st->b.off, st->a.count);
                else if (pass == 1 && !is_msg(st))
                    acct_sched_copy(s, st->a.buf, st->a.off, st->a.count, st->b.buf, st->b.off,
                                    st->b.count);
            }
        acct_sched_round(s);
        i = end;
    }
    free(ord);
    return acct_sched_failed(s) ? -1 : 0;
}

/* Ring allreduce of RECV[off, off + n) among `size` ranks in place (this
 * one at index idx, its neighbours' ranks left and right), from round
 * round0 for 2 (size - 1) rounds: reduce-scatter of size pieces, the
 * partner's piece received into TMP1[slot, slot + longest piece), then
 * allgather of the pieces. Commutative operations. */
void acct_lockstep_ring(struct acct_lockstep *t, uint32_t round0, int idx, int size, int left,
                        int right, uint64_t off, uint64_t n, uint64_t slot)
{
    uint64_t poff, plen;
    for (int j = 0; j < size - 1; j++) { /* send piece idx - j, receive idx - j - 1 */
        uint32_t r = round0 + (uint32_t)j;
        acct_allreduce_split(n, (uint64_t)size, (uint64_t)((idx - j + 2 * size) % size), &poff,
                             &plen);
        acct_lockstep_msg(t, r, true, right, ACCT_BUF_RECV, off + poff, plen);
        acct_allreduce_split(n, (uint64_t)size, (uint64_t)((idx - j - 1 + 2 * size) % size),
                             &poff, &plen);
        acct_lockstep_msg(t, r, false, left, ACCT_BUF_TMP1, slot, plen);
        acct_lockstep_local(t, r, true, ACCT_BUF_TMP1, slot, ACCT_BUF_RECV, off + poff, plen);
    }
    for (int k = 0; k < size - 1; k++) { /* send piece idx + 1 - k, receive idx - k */
        uint32_t r = round0 + (uint32_t)(size - 1 + k);
        acct_allreduce_split(n, (uint64_t)size, (uint64_t)((idx + 1 - k + 2 * size) % size),
                             &poff, &plen);
        acct_lockstep_msg(t, r, true, right, ACCT_BUF_RECV, off + poff, plen);
        acct_allreduce_split(n, (uint64_t)size, (uint64_t)((idx - k + 2 * size) % size), &poff,
                             &plen);
        acct_lockstep_msg(t, r, false, left, ACCT_BUF_RECV, off + poff, plen);
    }
}
