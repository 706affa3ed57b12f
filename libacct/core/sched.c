/* Schedules: append-only step lists grouped in rounds (acct/sched.h). */
#include "acct/sched.h"

#include <stdlib.h>
#include <string.h>

void acct_sched_init(struct acct_sched *s)
{
    memset(s, 0, sizeof *s);
    s->tmp_type[0] = s->tmp_type[1] = ACCT_BUF_RECV;
}

void acct_sched_free(struct acct_sched *s)
{
    free(s->steps);
    free(s->round_end);
    acct_sched_init(s);
}

void acct_sched_reset(struct acct_sched *s)
{
    s->nsteps = 0;
    s->nrounds = 0;
    s->open_has_local = false;
    s->tmp_count[0] = s->tmp_count[1] = 0;
    s->tmp_type[0] = s->tmp_type[1] = ACCT_BUF_RECV;
    s->error = 0;
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint32_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > UINT32_MAX / 2)
            return -1;
        ncap *= 2;
    }
    void *np = realloc(*p, (size_t)ncap * elem);
    if (np == NULL)
        return -1;
    *p = np;
    *cap = ncap;
    return 0;
}

/* The open round is the steps after the last closed round. */
static uint32_t open_round_start(const struct acct_sched *s)
{
    return s->nrounds ? s->round_end[s->nrounds - 1] : 0;
}

void acct_sched_round(struct acct_sched *s)
{
    if (s->error || s->nsteps == open_round_start(s))
        return;
    if (grow((void **)&s->round_end, &s->round_cap, s->nrounds + 1, sizeof *s->round_end)) {
        s->error = -1;
        return;
    }
    s->round_end[s->nrounds++] = s->nsteps;
    s->open_has_local = false;
}

static struct acct_step *append(struct acct_sched *s, enum acct_step_kind kind)
{
    bool comm = kind == ACCT_STEP_SEND || kind == ACCT_STEP_RECV;
    if (s->error)
        return NULL;
    if (comm && s->open_has_local)
        acct_sched_round(s); /* communication after a local step: next round */
    if (!s->error && s->step_limit != 0 && s->nsteps >= s->step_limit)
        s->error = -2;
    if (s->error)
        return NULL;
    if (grow((void **)&s->steps, &s->step_cap, s->nsteps + 1, sizeof *s->steps)) {
        s->error = -1;
        return NULL;
    }
    struct acct_step *st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof *st);
    st->kind = (uint8_t)kind;
    st->peer = -1;
    if (!comm)
        s->open_has_local = true;
    return st;
}

static struct acct_ref ref(enum acct_buf buf, uint64_t off, uint64_t count)
{
    struct acct_ref r = {.buf = (uint8_t)buf, .off = off, .count = count};
    return r;
}

void acct_sched_send(struct acct_sched *s, int peer, enum acct_buf buf, uint64_t off,
                     uint64_t count)
{
    struct acct_step *st = append(s, ACCT_STEP_SEND);
    if (st) {
        st->peer = peer;
        st->a = ref(buf, off, count);
    }
}

void acct_sched_recv(struct acct_sched *s, int peer, enum acct_buf buf, uint64_t off,
                     uint64_t count)
{
    struct acct_step *st = append(s, ACCT_STEP_RECV);
    if (st) {
        st->peer = peer;
        st->a = ref(buf, off, count);
    }
}

void acct_sched_reduce(struct acct_sched *s, enum acct_buf a, uint64_t aoff, enum acct_buf b,
                       uint64_t boff, uint64_t count)
{
    if (count == 0)
        return;
    struct acct_step *st = append(s, ACCT_STEP_REDUCE);
    if (st) {
        st->a = ref(a, aoff, count);
        st->b = ref(b, boff, count);
    }
}

void acct_sched_copy(struct acct_sched *s, enum acct_buf a, uint64_t aoff, uint64_t acount,
                     enum acct_buf b, uint64_t boff, uint64_t bcount)
{
    if (acount == 0 && bcount == 0)
        return;
    struct acct_step *st = append(s, ACCT_STEP_COPY);
    if (st) {
        st->a = ref(a, aoff, acount);
        st->b = ref(b, boff, bcount);
    }
}

void acct_sched_tmp(struct acct_sched *s, enum acct_buf tmp, enum acct_buf like, uint64_t count)
{
    int i = tmp == ACCT_BUF_TMP1 ? 1 : 0;
    if (tmp != ACCT_BUF_TMP0 && tmp != ACCT_BUF_TMP1) {
        s->error = -1;
        return;
    }
    s->tmp_type[i] = (uint8_t)like;
    if (count > s->tmp_count[i])
        s->tmp_count[i] = count;
}

static void append_step(struct acct_sched *dst, const struct acct_step *st, const int *map)
{
    switch (st->kind) {
    case ACCT_STEP_SEND:
        acct_sched_send(dst, map[st->peer], st->a.buf, st->a.off, st->a.count);
        break;
    case ACCT_STEP_RECV:
        acct_sched_recv(dst, map[st->peer], st->a.buf, st->a.off, st->a.count);
        break;
    case ACCT_STEP_REDUCE:
        acct_sched_reduce(dst, st->a.buf, st->a.off, st->b.buf, st->b.off, st->a.count);
        break;
    case ACCT_STEP_COPY:
        acct_sched_copy(dst, st->a.buf, st->a.off, st->a.count, st->b.buf, st->b.off, st->b.count);
        break;
    default:
        dst->error = -1;
    }
}

void acct_sched_append(struct acct_sched *dst, const struct acct_sched *src, const int *map)
{
    if (src->error) {
        dst->error = -1;
        return;
    }
    acct_sched_round(dst);
    for (uint32_t r = 0, i = 0; r <= src->nrounds; r++) {
        uint32_t end = r < src->nrounds ? src->round_end[r] : src->nsteps; /* last: the open one */
        for (; i < end; i++)
            append_step(dst, &src->steps[i], map);
        acct_sched_round(dst);
    }
    for (int t = 0; t < 2; t++)
        if (src->tmp_count[t] > 0)
            acct_sched_tmp(dst, t ? ACCT_BUF_TMP1 : ACCT_BUF_TMP0, src->tmp_type[t], src->tmp_count[t]);
}

static bool overlaps(const struct acct_ref *x, const struct acct_ref *y)
{
    return x->buf == y->buf && x->count > 0 && y->count > 0 && x->off < y->off + y->count &&
           y->off < x->off + x->count;
}

/* Does step st read or write any element of r? */
static bool touches(const struct acct_step *st, const struct acct_ref *r)
{
    if (overlaps(&st->a, r))
        return true;
    return (st->kind == ACCT_STEP_REDUCE || st->kind == ACCT_STEP_COPY) && overlaps(&st->b, r);
}

/* Checking a pair of rounds costs their product; beyond this, nothing is
 * marked early or lazy (such rounds are many messages of one phase anyway). */
#define EARLY_MAX_PAIRS (1u << 16)

/* Does round [first, end) have a step of kind (SEND or RECV) with peer? */
static bool has_peer(const struct acct_sched *s, uint32_t first, uint32_t end,
                     enum acct_step_kind kind, int32_t peer)
{
    for (uint32_t j = first; j < end; j++)
        if (s->steps[j].kind == kind && s->steps[j].peer == peer)
            return true;
    return false;
}

/* Round r's receives that may be posted while round r-1 runs: a prefix of
 * them (in schedule order) that touch nothing round r-1 touches and come
 * from a peer round r-1 already receives from. The second condition keeps
 * a new peer's message off the link until this round's inbound transfers
 * are done: an early receive from a new partner (recursive doubling) would
 * let that partner's data share the inbound link with the current round and
 * delay it, and with it this rank's own next send. */
static void mark_early(struct acct_sched *s, uint32_t r)
{
    uint32_t pf, pe, first, end;
    acct_sched_round_steps(s, r - 1, &pf, &pe);
    acct_sched_round_steps(s, r, &first, &end);
    if ((uint64_t)(pe - pf) * (end - first) > EARLY_MAX_PAIRS)
        return;
    for (uint32_t i = first; i < end; i++) {
        struct acct_step *st = &s->steps[i];
        if (st->kind != ACCT_STEP_RECV)
            continue;
        if (!has_peer(s, pf, pe, ACCT_STEP_RECV, st->peer))
            return; /* it, and every receive after it, waits */
        for (uint32_t j = pf; j < pe; j++)
            if (touches(&s->steps[j], &st->a))
                return;
        st->early = 1;
    }
}

enum writer { LOCAL_STEPS, RECEIVES, EARLY_RECEIVES };

/* Does any step of round r of the given kind write into x? */
static bool written(const struct acct_sched *s, uint32_t r, enum writer w, const struct acct_ref *x)
{
    uint32_t first, end;
    acct_sched_round_steps(s, r, &first, &end);
    for (uint32_t j = first; j < end; j++) {
        const struct acct_step *st = &s->steps[j];
        bool local = st->kind == ACCT_STEP_REDUCE || st->kind == ACCT_STEP_COPY;
        if (w == LOCAL_STEPS ? local && overlaps(&st->b, x)
                             : st->kind == ACCT_STEP_RECV && (w == RECEIVES || st->early) &&
                                   overlaps(&st->a, x))
            return true;
    }
    return false;
}

/* Round r's sends that may complete during round r+1 (acct/sched.h): the
 * round has local steps, round r+1 sends only to peers round r sends to
 * (deferring the wait must not let a new peer's data share the outbound
 * link with round r's: the wait paces the sends of bruck or recursive
 * doubling, as the peer rule of early receives paces their receives), and
 * neither round r's local steps, round r+1's receives nor round r+2's early
 * receives write into the send's slice. */
static void mark_lazy(struct acct_sched *s, uint32_t r)
{
    uint32_t first, end, later = 0;
    bool local = false;
    acct_sched_round_steps(s, r, &first, &end);
    for (uint32_t i = first; i < end; i++)
        local |= s->steps[i].kind == ACCT_STEP_REDUCE || s->steps[i].kind == ACCT_STEP_COPY;
    for (uint32_t q = r + 1; q <= r + 2 && q < s->nrounds; q++) {
        uint32_t f, e;
        acct_sched_round_steps(s, q, &f, &e);
        later += e - f;
    }
    if (!local || (uint64_t)(end - first) * (end - first + later) > EARLY_MAX_PAIRS)
        return;
    if (r + 1 < s->nrounds) {
        uint32_t nf, ne;
        acct_sched_round_steps(s, r + 1, &nf, &ne);
        for (uint32_t j = nf; j < ne; j++)
            if (s->steps[j].kind == ACCT_STEP_SEND && !has_peer(s, first, end, ACCT_STEP_SEND, s->steps[j].peer))
                return;
    }
    for (uint32_t i = first; i < end; i++) {
        struct acct_step *st = &s->steps[i];
        if (st->kind == ACCT_STEP_SEND && !written(s, r, LOCAL_STEPS, &st->a) &&
            !(r + 1 < s->nrounds && written(s, r + 1, RECEIVES, &st->a)) &&
            !(r + 2 < s->nrounds && written(s, r + 2, EARLY_RECEIVES, &st->a)))
            st->lazy = 1;
    }
}

int acct_sched_finish(struct acct_sched *s)
{
    acct_sched_round(s);
    if (s->error)
        return s->error;
    if (s->plain)
        return 0;
    for (uint32_t i = 0; i < s->nsteps; i++)
        s->steps[i].early = s->steps[i].lazy = 0;
    for (uint32_t r = 1; r < s->nrounds; r++)
        mark_early(s, r);
    for (uint32_t r = 0; r < s->nrounds; r++) /* after every early mark */
        mark_lazy(s, r);
    return 0;
}

void acct_sched_round_steps(const struct acct_sched *s, uint32_t r, uint32_t *first,
                            uint32_t *end)
{
    *first = r ? s->round_end[r - 1] : 0;
    *end = s->round_end[r];
}

uint64_t acct_nsegs(uint64_t count, uint64_t seg)
{
    if (count == 0)
        return 0;
    if (seg == 0 || seg >= count)
        return 1;
    return (count + seg - 1) / seg;
}

uint64_t acct_seg_len(uint64_t count, uint64_t seg, uint64_t k)
{
    if (seg == 0 || seg >= count)
        return k == 0 ? count : 0;
    uint64_t start = k * seg;
    if (start >= count)
        return 0;
    return count - start < seg ? count - start : seg;
}
