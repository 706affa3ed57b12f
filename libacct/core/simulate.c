/* The rendezvous matching engine behind the schedule checks and the
 * simulator (acct/simulate.h). */
#include "acct/simulate.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rank_state {
    const struct acct_sched *s;
    uint32_t round;    /* current round */
    uint32_t *round_of; /* step -> round */
    uint32_t *partner;  /* comm step -> partner's step index */
    bool *moved;        /* comm step done */
    uint32_t pending;   /* comm steps of the current round not moved yet */
};

static void fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    if (err == NULL || len == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

static bool is_comm(const struct acct_step *st)
{
    return st->kind == ACCT_STEP_SEND || st->kind == ACCT_STEP_RECV;
}

/* Pair each send with its receive: the k-th s->d send with the k-th
 * receive at d from s. Uses a size x size table of next-receive cursors. */
static int match(struct rank_state *rs, int size, char *err, size_t errlen)
{
    int rc = -1;
    size_t pairs = (size_t)size * (size_t)size;
    uint32_t *next = calloc(pairs, sizeof *next); /* [d*size+s]: recv steps of d from s seen */
    uint32_t *sent = calloc(pairs, sizeof *sent); /* [s*size+d]: sends s->d */
    if (next == NULL || sent == NULL) {
        fail(err, errlen, "out of memory");
        goto out;
    }
    for (int s = 0; s < size; s++)
        for (uint32_t i = 0; i < rs[s].s->nsteps; i++) {
            const struct acct_step *st = &rs[s].s->steps[i];
            if (!is_comm(st))
                continue;
            if (st->peer < 0 || st->peer >= size) {
                fail(err, errlen, "rank %d step %u: peer %d out of range", s, i, st->peer);
                goto out;
            }
            if (st->peer == s) {
                fail(err, errlen, "rank %d step %u: message to itself", s, i);
                goto out;
            }
            if (st->kind != ACCT_STEP_SEND)
                continue;
            int d = st->peer;
            uint32_t k = sent[(size_t)s * size + d]++;
            /* find the k-th receive of d from s, scanning from the cursor */
            uint32_t *cur = &next[(size_t)d * size + s];
            uint32_t seen = 0, j;
            (void)seen;
            for (j = *cur; j < rs[d].s->nsteps; j++) {
                const struct acct_step *rt = &rs[d].s->steps[j];
                if (rt->kind == ACCT_STEP_RECV && rt->peer == s)
                    break;
            }
            if (j == rs[d].s->nsteps) {
                fail(err, errlen, "rank %d sends message #%u to rank %d, which posts no matching receive",
                     s, k + 1, d);
                goto out;
            }
            rs[s].partner[i] = j;
            rs[d].partner[j] = i;
            *cur = j + 1;
        }
    /* every receive must have been matched */
    for (int d = 0; d < size; d++)
        for (uint32_t j = 0; j < rs[d].s->nsteps; j++) {
            const struct acct_step *rt = &rs[d].s->steps[j];
            if (rt->kind == ACCT_STEP_RECV && rs[d].partner[j] == UINT32_MAX) {
                fail(err, errlen, "rank %d step %u receives from rank %d, which sends nothing to match",
                     d, j, rt->peer);
                goto out;
            }
        }
    rc = 0;
out:
    free(next);
    free(sent);
    return rc;
}

static int setup(struct rank_state *rs, const struct acct_sched *const *scheds, int size, char *err,
                 size_t errlen)
{
    for (int r = 0; r < size; r++) {
        const struct acct_sched *s = scheds[r];
        uint32_t n = s->nsteps ? s->nsteps : 1;
        rs[r].s = s;
        rs[r].round_of = malloc(n * sizeof(uint32_t));
        rs[r].partner = malloc(n * sizeof(uint32_t));
        rs[r].moved = calloc(n, sizeof(bool));
        if (!rs[r].round_of || !rs[r].partner || !rs[r].moved) {
            fail(err, errlen, "out of memory");
            return -1;
        }
        for (uint32_t i = 0; i < s->nsteps; i++)
            rs[r].partner[i] = UINT32_MAX;
        if (s->nsteps > 0 && (s->nrounds == 0 || s->round_end[s->nrounds - 1] != s->nsteps)) {
            fail(err, errlen, "rank %d: schedule not finished (acct_sched_finish)", r);
            return -1;
        }
        for (uint32_t q = 0, i = 0; q < s->nrounds; q++)
            for (; i < s->round_end[q]; i++)
                rs[r].round_of[i] = q;
    }
    return 0;
}

/* Move the messages of rank r's current round whose partners are in their
 * rounds already; ranks whose round has nothing left to move go on the
 * work list. Each message is moved by whichever of its two ranks enters
 * its round second, so every step is looked at once per entry: the whole
 * run is linear in the number of steps. */
static int enter_round(struct rank_state *rs, int r, const struct acct_sim_ops *ops, int *work,
                       int *nwork, bool *queued, char *err, size_t errlen)
{
    struct rank_state *me = &rs[r];
    uint32_t first, end;
    acct_sched_round_steps(me->s, me->round, &first, &end);
    for (uint32_t i = first; i < end; i++) {
        const struct acct_step *st = &me->s->steps[i];
        if (!is_comm(st) || me->moved[i])
            continue;
        int p = st->peer;
        uint32_t j = me->partner[i];
        if (rs[p].round >= rs[p].s->nrounds || rs[p].round != rs[p].round_of[j])
            continue;
        const struct acct_step *other = &rs[p].s->steps[j];
        int cb = st->kind == ACCT_STEP_SEND ? ops->transfer(ops->ctx, r, st, p, other)
                                            : ops->transfer(ops->ctx, p, other, r, st);
        if (cb != 0) {
            fail(err, errlen, "message between ranks %d and %d refused", r, p);
            return -1;
        }
        me->moved[i] = rs[p].moved[j] = true;
        me->pending--;
        if (--rs[p].pending == 0 && !queued[p]) {
            queued[p] = true;
            work[(*nwork)++] = p;
        }
    }
    if (me->pending == 0 && !queued[r]) {
        queued[r] = true;
        work[(*nwork)++] = r;
    }
    return 0;
}

static void count_pending(struct rank_state *me)
{
    uint32_t first, end;
    me->pending = 0;
    if (me->round >= me->s->nrounds)
        return;
    acct_sched_round_steps(me->s, me->round, &first, &end);
    for (uint32_t i = first; i < end; i++)
        me->pending += is_comm(&me->s->steps[i]);
}

int acct_sim_run(const struct acct_sched *const *scheds, int size, const struct acct_sim_ops *ops,
                 char *err, size_t errlen)
{
    int rc = -1, nwork = 0;
    struct rank_state *rs = calloc(size > 0 ? (size_t)size : 1, sizeof *rs);
    int *work = calloc(size > 0 ? (size_t)size : 1, sizeof *work);
    bool *queued = calloc(size > 0 ? (size_t)size : 1, sizeof *queued);

    if (rs == NULL || work == NULL || queued == NULL || size < 1) {
        fail(err, errlen, size < 1 ? "no ranks" : "out of memory");
        goto out;
    }
    if (setup(rs, scheds, size, err, errlen) != 0 || match(rs, size, err, errlen) != 0)
        goto out;
    for (int r = 0; r < size; r++)
        count_pending(&rs[r]);
    for (int r = 0; r < size; r++)
        if (rs[r].round < rs[r].s->nrounds &&
            enter_round(rs, r, ops, work, &nwork, queued, err, errlen) != 0)
            goto out;
    while (nwork > 0) {
        int r = work[--nwork];
        struct rank_state *me = &rs[r];
        queued[r] = false;
        if (me->round >= me->s->nrounds || me->pending != 0)
            continue;
        uint32_t first, end;
        acct_sched_round_steps(me->s, me->round, &first, &end);
        for (uint32_t i = first; i < end; i++) {
            const struct acct_step *st = &me->s->steps[i];
            if (!is_comm(st) && ops->local(ops->ctx, r, st) != 0) {
                fail(err, errlen, "rank %d step %u: local step refused", r, i);
                goto out;
            }
        }
        if (ops->round_done)
            ops->round_done(ops->ctx, r, me->round);
        me->round++;
        count_pending(me);
        if (me->round < me->s->nrounds &&
            enter_round(rs, r, ops, work, &nwork, queued, err, errlen) != 0)
            goto out;
    }
    for (int r = 0; r < size; r++)
        if (rs[r].round < rs[r].s->nrounds) {
            uint32_t first, end;
            acct_sched_round_steps(rs[r].s, rs[r].round, &first, &end);
            for (uint32_t i = first; i < end; i++)
                if (is_comm(&rs[r].s->steps[i]) && !rs[r].moved[i]) {
                    fail(err, errlen, "deadlock: rank %d blocked in round %u on a %s with rank %d",
                         r, rs[r].round,
                         rs[r].s->steps[i].kind == ACCT_STEP_SEND ? "send" : "receive",
                         rs[r].s->steps[i].peer);
                    goto out;
                }
        }
    rc = 0;
out:
    if (rs != NULL)
        for (int r = 0; r < size; r++) {
            free(rs[r].round_of);
            free(rs[r].partner);
            free(rs[r].moved);
        }
    free(rs);
    free(work);
    free(queued);
    return rc;
}
