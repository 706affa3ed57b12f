/* Schedules' early receives and lazy sends (acct/sched.h):
 * acct_sched_finish() marks a RECV of round r+1 early only when nothing of
 * round r reads or writes its slice, round r also receives from its peer,
 * and only as a prefix of the round's receives (so an executor that posts
 * them during round r keeps every receive in schedule order); it marks a
 * SEND of round r lazy only when round r has local steps, round r+1 sends
 * to no new peer, and nothing written before the send is waited for (round
 * r's local steps, round r+1's receives, round r+2's early receives)
 * overlaps its slice. Hand cases for
 * each kind of conflict, then every registered algorithm over a sweep of
 * shapes against an independent check, the pipelines that must
 * profit, the node-aware allreduces' overlap and spread, and the
 * node-aware chain bcast's pipelining. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "acct/alg.h"
#include "acct/layout.h"
#include "acct/sched.h"

/* The flags of the schedule's steps of one kind, in order, as a string of
 * 0/1: early for RECV, lazy for SEND. */
static const char *flag_string(const struct acct_sched *s, enum acct_step_kind kind, char *buf,
                               size_t len)
{
    size_t n = 0;
    for (uint32_t i = 0; i < s->nsteps && n + 1 < len; i++)
        if (s->steps[i].kind == kind)
            buf[n++] = (kind == ACCT_STEP_RECV ? s->steps[i].early : s->steps[i].lazy) ? '1' : '0';
    buf[n] = '\0';
    return buf;
}
#define early_string(s, buf, len) flag_string((s), ACCT_STEP_RECV, (buf), (len))
#define lazy_string(s, buf, len) flag_string((s), ACCT_STEP_SEND, (buf), (len))

/* A reduce pipeline's middle rank over nseg segments of 8 elements with
 * `sets` scratch slot sets: round k receives segment k into slot set k %
 * sets, sends segment k-1 to the parent and adds its own segment k. */
static void reduce_middle(struct acct_sched *s, int nseg, int sets)
{
    acct_sched_reset(s);
    for (int k = 0; k <= nseg; k++) {
        if (k < nseg)
            acct_sched_recv(s, 2, ACCT_BUF_TMP0, (uint64_t)(k % sets) * 8, 8);
        if (k > 0)
            acct_sched_send(s, 0, ACCT_BUF_TMP0, (uint64_t)((k - 1) % sets) * 8, 8);
        if (k < nseg)
            acct_sched_reduce(s, ACCT_BUF_SEND, (uint64_t)k * 8, ACCT_BUF_TMP0,
                              (uint64_t)(k % sets) * 8, 8);
    }
}

/* A hand-made schedule: its steps in order (HROUND closes a round), and
 * the flags acct_sched_finish() must give (NULL: not checked). */
enum hop { H_END, H_SEND, H_RECV, H_COPY, H_REDUCE, H_ROUND };
struct hstep {
    enum hop op;
    int peer;
    enum acct_buf a; /* SEND/RECV: the slice; COPY/REDUCE: the source */
    uint64_t aoff, an;
    enum acct_buf b; /* COPY/REDUCE: the destination */
    uint64_t boff, bn;
};
#define HSEND(peer, buf, off, n) {H_SEND, (peer), (buf), (off), (n), 0, 0, 0}
#define HRECV(peer, buf, off, n) {H_RECV, (peer), (buf), (off), (n), 0, 0, 0}
#define HCOPY(a, aoff, an, b, boff, bn) {H_COPY, 0, (a), (aoff), (an), (b), (boff), (bn)}
#define HREDUCE(a, aoff, b, boff, n) {H_REDUCE, 0, (a), (aoff), (n), (b), (boff), (n)}
#define HROUND {H_ROUND, 0, 0, 0, 0, 0, 0, 0}
#define B_SEND ACCT_BUF_SEND
#define B_RECV ACCT_BUF_RECV
#define B_TMP0 ACCT_BUF_TMP0
#define B_TMP1 ACCT_BUF_TMP1

struct hcase {
    const char *what;
    const char *early, *lazy;
    struct hstep steps[16];
};

/* Builds c's schedule in s (reset first) and checks its flags. */
static void run_hand_case(struct acct_sched *s, const struct hcase *c)
{
    char buf[64];
    acct_sched_reset(s);
    for (const struct hstep *x = c->steps; x->op != H_END; x++)
        switch (x->op) {
        case H_SEND: acct_sched_send(s, x->peer, x->a, x->aoff, x->an); break;
        case H_RECV: acct_sched_recv(s, x->peer, x->a, x->aoff, x->an); break;
        case H_COPY: acct_sched_copy(s, x->a, x->aoff, x->an, x->b, x->boff, x->bn); break;
        case H_REDUCE: acct_sched_reduce(s, x->a, x->aoff, x->b, x->boff, x->an); break;
        case H_ROUND: acct_sched_round(s); break;
        case H_END: break;
        }
    assert_int_equal(acct_sched_finish(s), 0);
    if (c->early != NULL && strcmp(early_string(s, buf, sizeof buf), c->early) != 0)
        fail_msg("%s: early %s, want %s", c->what, buf, c->early);
    if (c->lazy != NULL && strcmp(lazy_string(s, buf, sizeof buf), c->lazy) != 0)
        fail_msg("%s: lazy %s, want %s", c->what, buf, c->lazy);
}

static const struct hcase lazy_cases[] = {
    {"a round without local steps paces its sends: never lazy", NULL, "000",
     {HSEND(1, B_SEND, 0, 8), HSEND(2, B_SEND, 8, 8), HROUND, HSEND(3, B_SEND, 16, 8)}},
    {"recursive doubling: the round's reduction writes what it sends; a local step that "
     "only reads the slice does not conflict", NULL, "01",
     {HSEND(1, B_RECV, 0, 8), HRECV(1, B_TMP0, 0, 8), HREDUCE(B_TMP0, 0, B_RECV, 4, 4),
      HSEND(2, B_RECV, 0, 8), HRECV(2, B_TMP0, 0, 8), HREDUCE(B_RECV, 0, B_TMP1, 0, 8)}},
    {"a next round that sends to the same peer", NULL, "100",
     {HSEND(1, B_SEND, 0, 8), HCOPY(B_SEND, 0, 8, B_RECV, 0, 8), HSEND(1, B_SEND, 8, 8),
      HSEND(1, B_SEND, 16, 8)}},
    {"a next round that sends to a new peer keeps the sends waited", NULL, "000",
     {HSEND(1, B_SEND, 0, 8), HCOPY(B_SEND, 0, 8, B_RECV, 0, 8), HSEND(2, B_SEND, 8, 8),
      HSEND(1, B_SEND, 16, 8)}},
    {"the next round's receive (not early) into the sent slice blocks it", "0", "0",
     {HSEND(1, B_RECV, 0, 8), HCOPY(B_SEND, 0, 8, B_TMP0, 0, 8), HRECV(3, B_RECV, 7, 2),
      HCOPY(B_SEND, 0, 8, B_TMP1, 0, 8)}},
    {"a receive two rounds on, early (peer 1), into the sent slice blocks it", "01", "0",
     {HSEND(1, B_RECV, 0, 8), HCOPY(B_SEND, 0, 8, B_TMP0, 0, 8), HRECV(1, B_TMP1, 0, 8),
      HCOPY(B_SEND, 0, 8, B_TMP0, 8, 8), HRECV(1, B_RECV, 0, 8)}},
    {"a receive two rounds on, not early (peer 2), does not", "00", "1",
     {HSEND(1, B_RECV, 0, 8), HCOPY(B_SEND, 0, 8, B_TMP0, 0, 8), HRECV(1, B_TMP1, 0, 8),
      HCOPY(B_SEND, 0, 8, B_TMP0, 8, 8), HRECV(2, B_RECV, 0, 8)}},
};

static void test_lazy_hand_cases(void **state)
{
    (void)state;
    struct acct_sched s;
    char buf[64];
    acct_sched_init(&s);

    /* Four slot sets: every send whose round reduces is lazy; the last
     * round only sends, and keeps its send. */
    reduce_middle(&s, 6, 4);
    assert_int_equal(acct_sched_finish(&s), 0);
    assert_string_equal(early_string(&s, buf, sizeof buf), "011111");
    assert_string_equal(lazy_string(&s, buf, sizeof buf), "111110");
    /* Three: segment k+3's early receive (round k+3, posted during round
     * k+2) lands in the slot round k+1 sends from; only the sends with no
     * such receive two rounds on stay lazy. Two: the next round's receive. */
    reduce_middle(&s, 6, 3);
    assert_int_equal(acct_sched_finish(&s), 0);
    assert_string_equal(lazy_string(&s, buf, sizeof buf), "000110");
    reduce_middle(&s, 6, 2);
    assert_int_equal(acct_sched_finish(&s), 0);
    assert_string_equal(lazy_string(&s, buf, sizeof buf), "000010");

    for (size_t i = 0; i < sizeof lazy_cases / sizeof *lazy_cases; i++)
        run_hand_case(&s, &lazy_cases[i]);

    /* Reset and rebuild: no stale flags. */
    static const struct hcase rebuilt = {"rebuilt after a reduce pipeline", NULL, "0",
                                         {HSEND(1, B_SEND, 0, 8)}};
    reduce_middle(&s, 3, 4);
    assert_int_equal(acct_sched_finish(&s), 0);
    run_hand_case(&s, &rebuilt);
    acct_sched_free(&s);
}

static const struct hcase early_cases[] = {
    {"a pipeline's middle: receive k while forwarding k-1 (round 0: never)", "0111", NULL,
     {HRECV(1, B_RECV, 0, 8), HROUND,
      HRECV(1, B_RECV, 8, 8), HSEND(3, B_RECV, 0, 8), HROUND,
      HRECV(1, B_RECV, 16, 8), HSEND(3, B_RECV, 8, 8), HROUND,
      HRECV(1, B_RECV, 24, 8), HSEND(3, B_RECV, 16, 8), HROUND,
      HSEND(3, B_RECV, 24, 8), HROUND}},
    {"receiving into what the previous round sends (overlap by 4)", "0", NULL,
     {HSEND(1, B_RECV, 0, 8), HROUND, HRECV(1, B_RECV, 4, 8)}},
    {"adjacent slices and other buffers do not conflict", "011", NULL,
     {HSEND(1, B_RECV, 0, 8), HRECV(1, B_TMP0, 0, 8), HROUND, HRECV(1, B_RECV, 8, 8),
      HRECV(1, B_TMP1, 0, 8)}},
    {"a peer the previous round does not receive from waits (recursive doubling's next "
     "partner), and every receive after it", "000", NULL,
     {HSEND(1, B_RECV, 0, 8), HRECV(1, B_TMP0, 0, 8), HROUND, HSEND(2, B_RECV, 0, 8),
      HRECV(2, B_TMP1, 0, 8), HRECV(1, B_RECV, 8, 8)}},
    {"a local step's source (a) counts", "00", NULL,
     {HRECV(1, B_TMP1, 0, 8), HREDUCE(B_TMP0, 0, B_RECV, 16, 8), HRECV(1, B_TMP0, 6, 4)}},
    {"a local step's destination (b) counts", "00", NULL,
     {HRECV(1, B_TMP1, 0, 8), HREDUCE(B_TMP0, 0, B_RECV, 16, 8), HRECV(1, B_RECV, 20, 4)}},
    {"a copy's destination counts", "00", NULL,
     {HRECV(1, B_TMP1, 0, 8), HCOPY(B_TMP1, 0, 8, B_TMP0, 0, 8), HRECV(1, B_TMP0, 7, 1)}},
    {"prefix: a receive after a blocked one waits too, whatever its peer", "00100", NULL,
     {HSEND(1, B_RECV, 0, 8), HRECV(2, B_TMP0, 0, 8), HRECV(3, B_TMP1, 0, 8), HROUND,
      HRECV(2, B_RECV, 8, 8), HRECV(1, B_RECV, 0, 8), HRECV(3, B_RECV, 16, 8)}},
    {"only the previous round counts (round r-2 is complete by then, but for lazy sends, "
     "which check round r+2 themselves); a zero-count receive touches nothing", "011", NULL,
     {HSEND(1, B_RECV, 0, 8), HROUND, HSEND(1, B_RECV, 8, 8), HRECV(1, B_TMP0, 0, 8), HROUND,
      HRECV(1, B_RECV, 0, 8), HRECV(1, B_RECV, 8, 0)}},
    {"reset and rebuild: no stale flags", "0", NULL,
     {HSEND(1, B_RECV, 0, 8), HROUND, HRECV(1, B_RECV, 0, 8)}},
};

static void test_hand_cases(void **state)
{
    (void)state;
    struct acct_sched s;
    acct_sched_init(&s);
    for (size_t i = 0; i < sizeof early_cases / sizeof *early_cases; i++)
        run_hand_case(&s, &early_cases[i]);
    acct_sched_free(&s);
}

static bool overlap(const struct acct_ref *x, const struct acct_ref *y)
{
    return x->buf == y->buf && x->count && y->count && x->off < y->off + y->count &&
           y->off < x->off + x->count;
}

/* A lazy SEND of round r: the round has a local step, none of them writes
 * its slice, no RECV of round r+1 and no early RECV of round r+2 does, and
 * round r sends to every peer that round r+1 sends to. */
static void check_lazy(const struct acct_sched *s, uint32_t r, const struct acct_step *st)
{
    uint32_t rf, re;
    acct_sched_round_steps(s, r, &rf, &re);
    if (r + 1 < s->nrounds) {
        uint32_t first, end;
        acct_sched_round_steps(s, r + 1, &first, &end);
        for (uint32_t j = first; j < end; j++) {
            bool known = false;
            for (uint32_t i = rf; i < re; i++)
                known |= s->steps[i].kind == ACCT_STEP_SEND && s->steps[i].peer == s->steps[j].peer;
            assert_true(s->steps[j].kind != ACCT_STEP_SEND || known);
        }
    }
    bool local = false;
    for (uint32_t q = r; q <= r + 2 && q < s->nrounds; q++) {
        uint32_t first, end;
        acct_sched_round_steps(s, q, &first, &end);
        for (uint32_t j = first; j < end; j++) {
            const struct acct_step *x = &s->steps[j];
            bool writes_b = x->kind == ACCT_STEP_REDUCE || x->kind == ACCT_STEP_COPY;
            if (q == r) {
                local |= writes_b;
                assert_false(writes_b && overlap(&x->b, &st->a));
            } else if (x->kind == ACCT_STEP_RECV && (q == r + 1 || x->early)) {
                assert_false(overlap(&x->a, &st->a));
            }
        }
    }
    assert_true(local);
}

/* The promises, checked step by step: an early RECV is in round r >= 1, every
 * RECV before it in its round is early, round r-1 receives from its peer,
 * and no step of round r-1 reads or writes its slice; a lazy step is a SEND
 * that check_lazy accepts. Returns the number of early receives; adds the
 * lazy sends to *lazy. */
static unsigned check_schedule(const struct acct_sched *s, unsigned *lazy)
{
    unsigned n = 0;
    for (uint32_t r = 0; r < s->nrounds; r++) {
        uint32_t first, end, pf = 0, pe = 0;
        bool blocked = false;
        acct_sched_round_steps(s, r, &first, &end);
        if (r > 0)
            acct_sched_round_steps(s, r - 1, &pf, &pe);
        for (uint32_t i = first; i < end; i++) {
            const struct acct_step *st = &s->steps[i];
            if (st->lazy) {
                assert_int_equal(st->kind, ACCT_STEP_SEND);
                check_lazy(s, r, st);
                ++*lazy;
            }
            if (st->kind != ACCT_STEP_RECV) {
                assert_int_equal(st->early, 0);
                continue;
            }
            if (!st->early) {
                blocked = true;
                continue;
            }
            assert_true(r > 0);
            assert_false(blocked);
            bool same_peer = false;
            for (uint32_t j = pf; j < pe; j++) {
                const struct acct_step *x = &s->steps[j];
                same_peer |= x->kind == ACCT_STEP_RECV && x->peer == st->peer;
                assert_false(overlap(&x->a, &st->a));
                if (x->kind == ACCT_STEP_REDUCE || x->kind == ACCT_STEP_COPY)
                    assert_false(overlap(&x->b, &st->a));
            }
            assert_true(same_peer);
            n++;
        }
    }
    return n;
}

static void test_every_algorithm(void **state)
{
    (void)state;
    static const int sizes[] = {2, 3, 5, 8, 13};
    static const uint64_t counts[] = {1000, 4096};
    static const uint64_t segs[] = {0, 100};
    struct acct_sched s;
    unsigned early = 0, lazy = 0, built = 0;
    acct_sched_init(&s);
    for (int a = 0; a < acct_alg_count(); a++) {
        const struct acct_alg *alg = &acct_algs[a];
        if (alg->build == NULL)
            continue;
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
            for (int rank = 0; rank < sizes[si]; rank++)
                for (size_t ci = 0; ci < 2; ci++)
                    for (size_t gi = 0; gi < 2; gi++)
                        for (int ip = 0; ip < 2; ip++) {
                            struct acct_call c = {
                                .coll = alg->coll, .rank = rank, .size = sizes[si],
                                .root = acct_coll_rooted(alg->coll) ? sizes[si] / 2 : -1,
                                .count = counts[ci], .scount = counts[ci], .seg = segs[gi],
                                .in_place = ip, .commutative = true};
                            if (!acct_alg_applicable(alg, &c, NULL) ||
                                acct_alg_schedule(alg, &c, &s) != 0)
                                continue;
                            early += check_schedule(&s, &lazy);
                            built++;
                        }
    }
    assert_true(built > 1000);
    assert_true(early > 0);
    assert_true(lazy > 0);
    acct_sched_free(&s);
}

/* The segmented pipelines must profit: a middle rank of bcast and reduce
 * pipeline posts every receive but the first early; the reduce pipeline's
 * sends are lazy but for the last (its round reduces nothing), the bcast
 * pipeline's are not (no local steps: its rounds pace the sends). */
static void test_pipelines(void **state)
{
    (void)state;
    static const char *colls[] = {"bcast", "reduce"};
    struct acct_sched s;
    acct_sched_init(&s);
    for (int i = 0; i < 2; i++) {
        enum acct_coll_id id;
        assert_int_equal(acct_coll_from_name(colls[i], &id), 0);
        const struct acct_alg *alg = acct_alg_find(id, "pipeline");
        assert_non_null(alg);
        struct acct_call c = {.coll = id, .rank = 3, .size = 8, .root = 0, .count = 65536,
                              .scount = 65536, .seg = 8192, .commutative = true};
        assert_int_equal(acct_alg_schedule(alg, &c, &s), 0);
        unsigned recvs = 0, sends = 0, lazy = 0;
        for (uint32_t j = 0; j < s.nsteps; j++) {
            recvs += s.steps[j].kind == ACCT_STEP_RECV;
            sends += s.steps[j].kind == ACCT_STEP_SEND;
        }
        assert_int_equal(recvs, 8);
        assert_int_equal(sends, 8);
        assert_int_equal(check_schedule(&s, &lazy), 7);
        assert_int_equal(lazy, i == 0 ? 0 : 7);
    }
    acct_sched_free(&s);
}

/* acct_sched_append: src's rounds stay rounds (its open one closed too),
 * peers mapped, local steps unchanged, scratch requests joined, an error
 * carried over. */
static void test_append(void **state)
{
    (void)state;
    struct acct_sched dst, src;
    const int map[] = {10, 11, 12};
    uint32_t first, end;
    acct_sched_init(&dst);
    acct_sched_init(&src);
    acct_sched_send(&dst, 5, ACCT_BUF_SEND, 0, 4); /* dst's open round */
    acct_sched_recv(&src, 1, ACCT_BUF_TMP0, 0, 4);
    acct_sched_send(&src, 2, ACCT_BUF_RECV, 0, 4);
    acct_sched_reduce(&src, ACCT_BUF_TMP0, 0, ACCT_BUF_RECV, 0, 4); /* round 0 of src */
    acct_sched_send(&src, 0, ACCT_BUF_RECV, 4, 2);                    /* src's open round */
    acct_sched_tmp(&src, ACCT_BUF_TMP0, ACCT_BUF_SEND, 8);
    acct_sched_tmp(&dst, ACCT_BUF_TMP0, ACCT_BUF_SEND, 3);
    acct_sched_append(&dst, &src, map);
    assert_int_equal(acct_sched_finish(&dst), 0);
    assert_int_equal(dst.nrounds, 3);
    assert_int_equal(dst.nsteps, 5);
    acct_sched_round_steps(&dst, 1, &first, &end);
    assert_int_equal(end - first, 3);
    assert_int_equal(dst.steps[first].kind, ACCT_STEP_RECV);
    assert_int_equal(dst.steps[first].peer, 11);
    assert_int_equal(dst.steps[first + 1].peer, 12);
    assert_int_equal(dst.steps[first + 2].kind, ACCT_STEP_REDUCE);
    assert_int_equal(dst.steps[first + 2].b.buf, ACCT_BUF_RECV);
    acct_sched_round_steps(&dst, 2, &first, &end);
    assert_int_equal(end - first, 1);
    assert_int_equal(dst.steps[first].peer, 10);
    assert_int_equal(dst.steps[first].a.off, 4);
    assert_int_equal(dst.tmp_count[0], 8);
    assert_int_equal(dst.tmp_type[0], ACCT_BUF_SEND);
    src.error = -1;
    acct_sched_append(&dst, &src, map);
    assert_int_equal(acct_sched_finish(&dst), -1);
    acct_sched_free(&dst);
    acct_sched_free(&src);
}

/* The node-aware allreduces on 2 nodes of 4 ranks in blocks ({0..3},
 * {4..7}), 4096 elements. Pipelined by segments (256 elements: 16
 * segments), a leader must have rounds in which it receives from its node
 * (the intra reduce of one segment) and sends to the other node's leader
 * (the ring of another) at once; hier_ring, whose phases run one after the
 * other, has none. hier_reduce_scatter must have every rank of node 0
 * send to node 1 (each carries a slice of the inter-node traffic), where
 * hier_ring sends from the leader only. */
static bool leader_overlaps(const char *alg, uint64_t seg)
{
    static const int key[8] = {0, 0, 0, 0, 4, 4, 4, 4};
    struct acct_layout l;
    struct acct_sched s;
    bool both = false;
    assert_int_equal(acct_layout_build(&l, 8, key), 0);
    struct acct_call c = {.coll = ACCT_COLL_allreduce, .rank = 0, .size = 8, .root = -1,
                          .count = 4096, .seg = seg, .commutative = true, .layout = &l};
    acct_sched_init(&s);
    assert_int_equal(acct_alg_schedule(acct_alg_find(ACCT_COLL_allreduce, alg), &c, &s), 0);
    for (uint32_t r = 0; r < s.nrounds; r++) {
        uint32_t first, end;
        bool intra = false, inter = false;
        acct_sched_round_steps(&s, r, &first, &end);
        for (uint32_t i = first; i < end; i++) {
            intra |= s.steps[i].kind == ACCT_STEP_RECV && s.steps[i].peer < 4;
            inter |= s.steps[i].kind == ACCT_STEP_SEND && s.steps[i].peer == 4;
        }
        both |= intra && inter;
    }
    acct_sched_free(&s);
    acct_layout_free(&l);
    return both;
}

/* Ranks of node 0 that send to node 1. */
static int inter_senders(const char *alg)
{
    static const int key[8] = {0, 0, 0, 0, 4, 4, 4, 4};
    struct acct_layout l;
    struct acct_sched s;
    int senders = 0;
    assert_int_equal(acct_layout_build(&l, 8, key), 0);
    acct_sched_init(&s);
    for (int rank = 0; rank < 4; rank++) {
        struct acct_call c = {.coll = ACCT_COLL_allreduce, .rank = rank, .size = 8, .root = -1,
                              .count = 4096, .commutative = true, .layout = &l};
        bool out = false;
        assert_int_equal(acct_alg_schedule(acct_alg_find(ACCT_COLL_allreduce, alg), &c, &s), 0);
        for (uint32_t i = 0; i < s.nsteps; i++)
            out |= s.steps[i].kind == ACCT_STEP_SEND && s.steps[i].peer >= 4;
        senders += out;
    }
    acct_sched_free(&s);
    acct_layout_free(&l);
    return senders;
}

static void test_hier_allreduce_shapes(void **state)
{
    (void)state;
    assert_true(leader_overlaps("hier_pipelined", 256));
    assert_false(leader_overlaps("hier_pipelined", 0)); /* one segment: nothing to overlap */
    assert_false(leader_overlaps("hier_ring", 256));
    assert_int_equal(inter_senders("hier_reduce_scatter"), 4);
    assert_int_equal(inter_senders("hier_ring"), 1);
}

/* The node-aware allgathers on 3 nodes of 4 ranks in blocks, 1024
 * elements per rank (node chunks of 4096). Leader 0 (rank 0) sends to
 * leader 1 (rank 4): hier_ring a whole chunk per round, one message per
 * round; hier_pipelined with 256-element segments pieces of at most a
 * segment, and in some round pieces of two hops at once (its own chunk's
 * and node 2's passing through) -- the ring pipelined. Returns the most
 * messages to rank 4 in one round, the largest in *biggest. */
static uint32_t allgather_to_next(const char *alg, uint64_t seg, uint64_t *biggest)
{
    static const int key[12] = {0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8};
    struct acct_layout l;
    struct acct_sched s;
    uint32_t most = 0;
    *biggest = 0;
    assert_int_equal(acct_layout_build(&l, 12, key), 0);
    struct acct_call c = {.coll = ACCT_COLL_allgather, .rank = 0, .size = 12, .root = -1,
                          .count = 1024, .scount = 1024, .seg = seg, .layout = &l};
    acct_sched_init(&s);
    assert_int_equal(acct_alg_schedule(acct_alg_find(ACCT_COLL_allgather, alg), &c, &s), 0);
    for (uint32_t r = 0; r < s.nrounds; r++) {
        uint32_t first, end, n = 0;
        acct_sched_round_steps(&s, r, &first, &end);
        for (uint32_t i = first; i < end; i++)
            if (s.steps[i].kind == ACCT_STEP_SEND && s.steps[i].peer == 4) {
                n++;
                if (s.steps[i].a.count > *biggest)
                    *biggest = s.steps[i].a.count;
            }
        most = n > most ? n : most;
    }
    acct_sched_free(&s);
    acct_layout_free(&l);
    return most;
}

static void test_hier_allgather_shapes(void **state)
{
    (void)state;
    uint64_t big;
    assert_int_equal(allgather_to_next("hier_ring", 256, &big), 1);
    assert_int_equal(big, 4096);
    assert_int_equal(allgather_to_next("hier_pipelined", 256, &big), 2);
    assert_int_equal(big, 256);
    assert_int_equal(allgather_to_next("hier_pipelined", 0, &big), 1); /* one piece per chunk */
    assert_int_equal(big, 4096);
}

/* bcast hier_chain with fan-out 1 (performance.md 13, "bcast hier_chain
 * with fan-out 1 against the flat chain"): on 4 nodes of `ppn` ranks in
 * blocks, 64 elements in segments of 8, root 0. Each node's link carries
 * the message once in (none into node 0) and once out (none out of the
 * last node); every leader but the root receives the 8 segments from the
 * previous node's leader, each after the first early (posted while the
 * previous one is forwarded), and forwards segment k-1 to the next leader
 * and to its intra-node children in the round that receives segment k (no
 * wait for the whole message; inter- and intra-node sends of a segment in
 * one round); a rank with no children posts all its receives in one
 * round. */
static void hier_chain_f1(int ppn)
{
    enum { NODES = 4, NSEG = 8, SEG = 8 };
    const int p = NODES * ppn;
    int key[NODES * 8];
    uint64_t out[NODES] = {0}, in[NODES] = {0};
    struct acct_layout l;
    struct acct_sched s;
    for (int r = 0; r < p; r++)
        key[r] = r / ppn;
    assert_int_equal(acct_layout_build(&l, p, key), 0);
    acct_sched_init(&s);
    const struct acct_alg *alg = acct_alg_find(ACCT_COLL_bcast, "hier_chain");
    assert_non_null(alg);
    for (int rank = 0; rank < p; rank++) {
        const int node = rank / ppn;
        struct acct_call c = {.coll = ACCT_COLL_bcast, .rank = rank, .size = p, .root = 0,
                              .count = NSEG * SEG, .seg = SEG, .fanout = 1, .layout = &l};
        assert_int_equal(acct_alg_schedule(alg, &c, &s), 0);
        unsigned recvs = 0, early = 0, sends = 0;
        for (uint32_t i = 0; i < s.nsteps; i++) {
            const struct acct_step *st = &s.steps[i];
            const int peer_node = st->peer / ppn;
            if (st->kind == ACCT_STEP_RECV) {
                recvs++;
                early += st->early;
                if (peer_node != node)
                    in[node] += st->a.count;
            } else if (st->kind == ACCT_STEP_SEND) {
                sends++;
                if (peer_node != node)
                    out[node] += st->a.count;
            }
        }
        assert_int_equal(recvs, rank == 0 ? 0 : NSEG);
        if (sends == 0) { /* no children: one round of receives */
            assert_int_equal(s.nrounds, 1);
            continue;
        }
        const bool leader = rank % ppn == 0;
        if (leader && rank != 0)
            assert_int_equal(early, NSEG - 1);
        /* round k: segment k in (if any), segment k-1 out to every child */
        for (uint32_t r = 0; r < s.nrounds; r++) {
            uint32_t first, end;
            int in_seg = -1, out_seg = -1, nout = 0;
            acct_sched_round_steps(&s, r, &first, &end);
            for (uint32_t i = first; i < end; i++) {
                const struct acct_step *st = &s.steps[i];
                int seg = (int)(st->a.off / SEG);
                if (st->kind == ACCT_STEP_RECV)
                    in_seg = seg;
                else {
                    assert_true(out_seg < 0 || out_seg == seg);
                    out_seg = seg;
                    nout++;
                }
            }
            if (in_seg >= 1 || (rank == 0 && out_seg >= 0))
                assert_int_equal(nout, (int)(sends / NSEG)); /* every child, one round */
            if (in_seg >= 1 && out_seg >= 0)
                assert_int_equal(out_seg, in_seg - 1);
        }
    }
    for (int n = 0; n < NODES; n++) {
        assert_int_equal(in[n], n == 0 ? 0 : NSEG * SEG);
        assert_int_equal(out[n], n == NODES - 1 ? 0 : NSEG * SEG);
    }
    acct_sched_free(&s);
    acct_layout_free(&l);
}

static void test_hier_bcast_chain(void **state)
{
    (void)state;
    hier_chain_f1(2);
    hier_chain_f1(8);
}

/* gather and scatter hier_binomial on an irregular layout, 13 ranks on
 * nodes {0} {1-4} {5-8} {9-12}, root 5 (node 2), 64 elements per rank:
 * node vranks 0-3 are nodes 2, 3, 0, 1, the root's children node vranks 2
 * (nodes 0 and 1: ranks 0-4, consecutive) and 1 (node 3: ranks 9-12). The
 * root exchanges one node-aggregated message with each child's leader,
 * straight in its buffer at the ranks' places, 5 and 4 blocks (hier_linear:
 * 3 messages, one per node); node 0's leader gets node 1's 4 blocks and
 * sends 5. Returns the root's messages off its node, their blocks in
 * blocks[] (in schedule order), and checks rank 0's one message up/down. */
static int hier_binomial_root(enum acct_coll_id coll, const char *alg, uint64_t blocks[4])
{
    static const int key[13] = {0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
    const enum acct_step_kind inter = coll == ACCT_COLL_gather ? ACCT_STEP_RECV : ACCT_STEP_SEND;
    const enum acct_step_kind up = coll == ACCT_COLL_gather ? ACCT_STEP_SEND : ACCT_STEP_RECV;
    struct acct_layout l;
    struct acct_sched s;
    const bool binomial = strcmp(alg, "hier_binomial") == 0;
    int n = 0, to_root = 0;
    assert_int_equal(acct_layout_build(&l, 13, key), 0);
    const struct acct_alg *a = acct_alg_find(coll, alg);
    assert_non_null(a);
    acct_sched_init(&s);
    for (int rank = 0; rank < 13; rank += 5) { /* 0, 5, 10 */
        struct acct_call c = {.coll = coll, .rank = rank, .size = 13, .root = 5,
                              .count = 64, .scount = 64, .layout = &l};
        acct_sched_free(&s);
        acct_sched_init(&s);
        assert_int_equal(acct_alg_schedule(a, &c, &s), 0);
        for (uint32_t i = 0; i < s.nsteps; i++) {
            const struct acct_step *st = &s.steps[i];
            if (rank == 5 && st->kind == inter && l.node[st->peer] != 2) {
                assert_true(n < 4);
                assert_int_equal(st->a.count % 64, 0);
                blocks[n++] = st->a.count / 64;
            }
            if (binomial && rank == 0 && st->kind == up) { /* node 0's leader: node 1's blocks and its own */
                assert_int_equal(st->peer, 5);
                assert_int_equal(st->a.count, 5 * 64);
                to_root++;
            }
            if (rank == 10) { /* not a leader: its block to or from its leader, rank 9 */
                assert_int_equal(st->kind, up);
                assert_int_equal(st->peer, 9);
            }
        }
    }
    assert_int_equal(to_root, binomial ? 1 : 0);
    acct_sched_free(&s);
    acct_layout_free(&l);
    return n;
}

static void test_hier_gather_scatter_binomial(void **state)
{
    (void)state;
    static const enum acct_coll_id colls[] = {ACCT_COLL_gather, ACCT_COLL_scatter};
    for (int i = 0; i < 2; i++) {
        uint64_t b[4] = {0};
        assert_int_equal(hier_binomial_root(colls[i], "hier_binomial", b), 2);
        assert_int_equal(b[0], 5); /* node vrank 2 first: the larger subtree */
        assert_int_equal(b[1], 4);
        assert_int_equal(hier_binomial_root(colls[i], "hier_linear", b), 3);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append),
        cmocka_unit_test(test_hand_cases),
        cmocka_unit_test(test_lazy_hand_cases),
        cmocka_unit_test(test_every_algorithm),
        cmocka_unit_test(test_pipelines),
        cmocka_unit_test(test_hier_allreduce_shapes),
        cmocka_unit_test(test_hier_allgather_shapes),
        cmocka_unit_test(test_hier_bcast_chain),
        cmocka_unit_test(test_hier_gather_scatter_binomial),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
