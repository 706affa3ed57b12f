/* SACK reordering of gather and reduce: data flows up (sack_rooted.h;
 * docs/sack.md "Gather and reduce").
 *
 * Messages of one call (P ranks, tree positions 0..P-1, position 0 = root):
 *
 *   x -> root    SACK   {magic, n, rate}        on entry, every non-root x
 *                                               (rate: automatic mode, sack.h)
 *   root -> x    ASSIGN {p, parent's rank, n}   x was given position p
 *   root -> y    CTRL   {p, x}                  x was given p, a child of
 *                                               y's position (y != root)
 *   gather: x -> parent   one message per block, tag GDATA + its position:
 *                         x's own block at once, each block of x's subtree
 *                         as soon as it came in from below
 *   reduce: x -> parent   x's partial result in segments, in order (RDATA)
 *   root -> x    VOTE   {vote}                  probe calls of the automatic
 *                                               mode, once every SACK is in
 *
 * n is the block (gather) or the element count (reduce): a mismatch means
 * the ranks disagree about the call. Positions are handed out along the
 * fill order (sack_plan.h), parents before children, so the parent of a
 * position is known when the position is: ASSIGN can name it. A parent
 * receives from a child only after CTRL named it; a child sends as soon as
 * it has ASSIGN (MPI keeps the data, or its envelope, until the parent
 * posts the receive).
 *
 * reduce: a node with children keeps its partial result in a copy of its
 * input (the root: its receive buffer) and reduces each child's segment s
 * into it as it arrives (acc = child (op) acc: commutative operations
 * only, which coll.c ensures); segment s goes up once every child's
 * segment s is in, in segment order. Each child's segments land in a ring
 * of UP_WINDOW slots; the receive of segment s + UP_WINDOW reuses the slot
 * of s once s is reduced. A leaf sends its input straight from its send
 * buffer.
 *
 * gather: the root receives the block of position q straight into the
 * place of the rank given q (posted when q is handed out, from the rank of
 * the root child above q); any other node receives the blocks of a child's
 * subtree (posted when CTRL names the child) into a staging area, one
 * block per position, and forwards each as it arrives.
 *
 * Why nothing from one call can match another's: a rank gets ASSIGN and
 * CTRL of a call only after the root has its SACK of that call, and it
 * receives exactly the messages of that call (one ASSIGN, one CTRL per
 * child, the data of each child) before it returns. A child sends data of
 * call k + 1 only after ASSIGN of k + 1, i.e. after the root finished
 * call k, which needed every parent to have received all its data of k.
 * The root receives SACKs per source. Data only flows upwards, and every
 * position is handed out once every rank has entered: no arrival order
 * deadlocks. */
#include "sack_rooted.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acct/log.h"
#include "sack.h"

#define UP_MAGIC_GATHER 0x47415448LL /* "GATH" */
#define UP_MAGIC_REDUCE 0x52454455LL /* "REDU" */
#define UP_WINDOW 4                  /* segments in flight per child (reduce) */
#define SACK_UP_PS 1e12              /* rates travel as picoseconds per byte */

/* What a request slot is for. */
enum up_kind {
    K_NONE = 0,
    K_SACK_IN,    /* root: SACK of the a-th source */
    K_SEND,       /* any send (nothing to do when it completes) */
    K_ASSIGN_IN,  /* non-root */
    K_CTRL_IN,    /* non-root */
    K_GATHER_IN,  /* gather: block of position a */
    K_REDUCE_IN,  /* reduce: child slot a, segment b */
    K_VOTE_IN,    /* non-root of a probe */
};

struct up_kid {
    int pos, rank; /* rank -1 until known */
    int posted;    /* reduce: segments whose receive was posted */
    unsigned busy; /* reduce: ring slots holding a segment not reduced yet */
    char *ring;    /* reduce: UP_WINDOW segment slots (base - true lb) */
    int got;       /* pieces in from it (reduce: segments; gather: blocks) */
    struct sack_meter meter; /* their rate (automatic mode) */
};

struct up_run {
    bool reduce;
    int root, rank, size;
    MPI_Comm comm;
    const struct sack_tree *t;
    int64_t magic, n;
    /* gather */
    const char *sbuf;
    char *rbuf;
    uint64_t block;
    /* reduce */
    const char *in; /* this rank's input (count elements of dt) */
    MPI_Datatype dt;
    MPI_Op op;
    int count, segc, nseg;
    MPI_Aint extent, tlb, span_seg; /* span_seg: bytes of one segment's slot */
    char *accmem, *acc;             /* acc: the partial result (base - true lb) */
    int *done;                      /* per segment: children reduced into acc */
    int next_up;                    /* next segment to send up */
    /* this rank's place */
    int pos, parent, nchild, ctrl_left;
    struct up_kid *kids;
    /* gather staging (non-root): a block per position of the subtree */
    int *stage_of; /* position -> staging index, -1 if not below this rank */
    char *stage;
    int forwarded, nstage;
    /* root */
    struct sack_plan plan;
    bool plan_ok;
    int *rank_of_pos;
    int arrived, gathered;
    int64_t *sack_in;    /* 2 per source */
    int64_t *assign_out; /* 3 per source */
    int32_t *ctrl_out;   /* 2 per source */
    /* non-root messages */
    int64_t assign_in[3];
    int32_t ctrl_in[2];
    /* requests: a growing table with a free list */
    MPI_Request *reqs;
    struct { int kind, a, b; } *info;
    int nreqs, cap, active;
    int *freel, nfree;
    int *idx;
    MPI_Status *stats;
    bool leaked; /* send buffers handed to MPI_Request_free: do not free */
    /* the automatic mode (sack.h): pr NULL when not asked for */
    struct sack_probe *pr;
    bool probe;
    double t0;         /* when this rank entered (PMPI_Wtime) */
    double *t_sack;    /* root: per rank, when its SACK came in (s after t0) */
    double min_rate;   /* root of a probe: the fastest rate reported (s/B) */
    double wire;       /* bytes of one rank's data (reduce: the vector; gather: a block) */
    double rate;       /* this rank's measurement in this call (s/B, 0: none) */
    uint64_t batch;    /* MPI_Waitsome returns so far */
    double t_batch;    /* when the last one returned (PMPI_Wtime) */
    int64_t *vote_out; /* root of a probe (heap: sends may outlive an error) */
    int64_t vote_in;
    int64_t sack3[3];  /* (non-root SACK: magic, n, rate) */
};

static void say_first_gather(void)
{
    acct_debug("SACK reordering: first gather as root, fill %s", sack_fill_name(rt_sack_fill()));
}

static void say_first_reduce(void)
{
    acct_debug("SACK reordering: first reduce as root, fill %s", sack_fill_name(rt_sack_fill()));
}

/* A free request slot (grows the table). -1: out of memory. */
static int slot_get(struct up_run *r)
{
    if (r->nfree > 0)
        return r->freel[--r->nfree];
    if (r->nreqs == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
#define UP_GROW(field)                                                                             \
    do {                                                                                           \
        void *q_ = realloc(r->field, (size_t)cap * sizeof *r->field);                              \
        if (q_ == NULL)                                                                            \
            return -1;                                                                             \
        r->field = q_;                                                                             \
    } while (0)
        UP_GROW(reqs);
        UP_GROW(info);
        UP_GROW(freel);
        UP_GROW(idx);
        UP_GROW(stats);
#undef UP_GROW
        r->cap = cap;
    }
    r->reqs[r->nreqs] = MPI_REQUEST_NULL;
    return r->nreqs++;
}

/* Post a receive (kind, a, b: what its completion means) or a send
 * (K_SEND) in a free slot. */
static int post(struct up_run *r, void *buf, int count, MPI_Datatype dt, int peer, int tag,
                int kind, int a, int b)
{
    int s = slot_get(r);
    if (s < 0)
        return MPI_ERR_NO_MEM;
    r->info[s].kind = kind;
    r->info[s].a = a;
    r->info[s].b = b;
    int rc = kind == K_SEND ? PMPI_Isend(buf, count, dt, peer, tag, r->comm, &r->reqs[s])
                            : PMPI_Irecv(buf, count, dt, peer, tag, r->comm, &r->reqs[s]);
    if (rc == MPI_SUCCESS)
        r->active++;
    else
        r->freel[r->nfree++] = s;
    return rc;
}

static int post_recv(struct up_run *r, void *buf, int count, MPI_Datatype dt, int src, int tag,
                     int kind, int a, int b)
{
    return post(r, buf, count, dt, src, tag, kind, a, b);
}

static int post_send(struct up_run *r, const void *buf, int count, MPI_Datatype dt, int dst,
                     int tag)
{
    return post(r, (void *)(uintptr_t)buf, count, dt, dst, tag, K_SEND, 0, 0);
}

/* Positions in the subtree of pos (pos included). */
static int subtree_size(const struct sack_tree *t, int pos)
{
    int n = 1;
    for (int q = 1; q < t->size; q++)
        n += q != pos && sack_tree_child_towards(t, pos, q) >= 0;
    return n;
}

/* A rate measured at this rank (s/B, 0: none): keep the fastest. */
static void measured(struct up_run *r, double rate)
{
    if (rate > 0 && (r->rate == 0 || rate < r->rate))
        r->rate = rate;
}

/* One more of the n pieces from child c came in, reported by the current
 * MPI_Waitsome return (r->batch, at r->t_batch). Its pieces give the
 * link's rate (sack_meter: only those reported after the first one's
 * return count); at the root, a leaf child's data from its SACK to its
 * last piece too (it cannot send before its ASSIGN; unsegmented: the only
 * measure). */
static void timed(struct up_run *r, int c, int n, double piece)
{
    struct up_kid *k = &r->kids[c];
    k->got++;
    sack_meter_piece(&k->meter, r->batch, r->t_batch, piece);
    if (k->got != n)
        return;
    measured(r, sack_meter_rate(&k->meter));
    if (r->rank == r->root && k->rank >= 0 && sack_tree_children(r->t, k->pos, NULL, 0) == 0)
        measured(r, (r->t_batch - r->t0 - r->t_sack[k->rank]) / r->wire);
}

/* ---- reduce: the data part ----------------------------------------------- */

static int seg_count(const struct up_run *r, int s)
{
    int left = r->count - s * r->segc;
    return left < r->segc ? left : r->segc;
}

static char *seg_at(const struct up_run *r, const char *base, int s)
{
    return (char *)base + (MPI_Aint)s * r->segc * r->extent;
}

/* Receive child c's next segments, in order, into the free slots of its
 * ring (segment s goes to slot s % UP_WINDOW: its receive waits until
 * segment s - UP_WINDOW is reduced, whatever order Waitsome reports the
 * completions in). */
static int reduce_post(struct up_run *r, int c)
{
    struct up_kid *k = &r->kids[c];
    int rc = MPI_SUCCESS;
    while (rc == MPI_SUCCESS && k->posted < r->nseg &&
           !(k->busy & (1u << (k->posted % UP_WINDOW)))) {
        int s = k->posted++;
        k->busy |= 1u << (s % UP_WINDOW);
        rc = post_recv(r, k->ring + (MPI_Aint)(s % UP_WINDOW) * r->span_seg, seg_count(r, s), r->dt,
                       k->rank, SACK_TAG_UP_RDATA, K_REDUCE_IN, c, s);
    }
    return rc;
}

/* Child c's rank is known: its ring, its first receives. */
static int reduce_kid_known(struct up_run *r, int c)
{
    struct up_kid *k = &r->kids[c];
    int w = r->nseg < UP_WINDOW ? r->nseg : UP_WINDOW;
    k->ring = malloc((size_t)w * (size_t)r->span_seg);
    if (k->ring == NULL)
        return MPI_ERR_NO_MEM;
    k->ring -= r->tlb;
    return reduce_post(r, c);
}

/* Send up every segment that every child has reduced into acc. */
static int reduce_up(struct up_run *r)
{
    int rc = MPI_SUCCESS;
    while (rc == MPI_SUCCESS && r->rank != r->root && r->next_up < r->nseg &&
           r->done[r->next_up] == r->nchild) {
        int s = r->next_up++;
        rc = post_send(r, seg_at(r, r->acc, s), seg_count(r, s), r->dt, r->parent,
                       SACK_TAG_UP_RDATA);
    }
    return rc;
}

/* Child c's segment s arrived: reduce it, receive the next into its slot. */
static int reduce_in(struct up_run *r, int c, int s)
{
    struct up_kid *k = &r->kids[c];
    char *slot = k->ring + (MPI_Aint)(s % UP_WINDOW) * r->span_seg;
    int rc = PMPI_Reduce_local(slot, seg_at(r, r->acc, s), seg_count(r, s), r->dt, r->op);
    if (rc != MPI_SUCCESS)
        return rc;
    r->done[s]++;
    k->busy &= ~(1u << (s % UP_WINDOW));
    if (r->pr != NULL)
        timed(r, c, r->nseg, r->wire * (double)r->segc / (double)r->count);
    if ((rc = reduce_post(r, c)) != MPI_SUCCESS)
        return rc;
    return reduce_up(r);
}

/* This rank's place is known (root: at the start): its partial result. */
static int reduce_placed(struct up_run *r)
{
    if (r->nchild == 0) { /* a leaf: its input goes up as it is */
        int rc = MPI_SUCCESS;
        for (int s = 0; s < r->nseg && rc == MPI_SUCCESS; s++)
            rc = post_send(r, seg_at(r, r->in, s), seg_count(r, s), r->dt, r->parent,
                           SACK_TAG_UP_RDATA);
        r->next_up = r->nseg;
        return rc;
    }
    r->done = calloc((size_t)r->nseg, sizeof *r->done);
    if (r->done == NULL)
        return MPI_ERR_NO_MEM;
    if (r->rank == r->root) { /* the receive buffer, holding the root's input */
        r->acc = r->rbuf;
        if (r->in != NULL)
            return PMPI_Sendrecv(r->in, r->count, r->dt, r->rank, SACK_TAG_UP_RDATA, r->rbuf,
                                 r->count, r->dt, r->rank, SACK_TAG_UP_RDATA, r->comm,
                                 MPI_STATUS_IGNORE);
        return MPI_SUCCESS;
    }
    size_t span = (size_t)(r->span_seg - (MPI_Aint)r->segc * r->extent) +
                  (size_t)r->count * (size_t)r->extent;
    r->accmem = malloc(span);
    if (r->accmem == NULL)
        return MPI_ERR_NO_MEM;
    r->acc = r->accmem - r->tlb;
    /* the same layout on both sides: one copy of the bytes the elements span */
    memcpy(r->accmem, r->in + r->tlb, span);
    return MPI_SUCCESS;
}

/* ---- gather: the data part ----------------------------------------------- */

/* Child c's rank is known (non-root): receive its subtree's blocks. */
static int gather_kid_known(struct up_run *r, int c)
{
    int rc = MPI_SUCCESS;
    const struct up_kid *k = &r->kids[c];
    for (int q = 1; q < r->size && rc == MPI_SUCCESS; q++)
        if (q == k->pos || sack_tree_child_towards(r->t, k->pos, q) >= 0)
            rc = post_recv(r, r->stage + (uint64_t)r->stage_of[q] * r->block, (int)r->block,
                           MPI_BYTE, k->rank, SACK_TAG_UP_GDATA + q, K_GATHER_IN, q, 0);
    return rc;
}

/* The subtree's positions get staging slots (non-root with children). */
static int gather_stage(struct up_run *r)
{
    r->stage_of = malloc((size_t)r->size * sizeof *r->stage_of);
    if (r->stage_of == NULL)
        return MPI_ERR_NO_MEM;
    r->nstage = 0;
    for (int q = 0; q < r->size; q++)
        r->stage_of[q] =
            q > 0 && sack_tree_child_towards(r->t, r->pos, q) >= 0 ? r->nstage++ : -1;
    if (r->nstage == 0)
        return MPI_SUCCESS;
    r->stage = malloc((size_t)r->nstage * r->block);
    return r->stage == NULL ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

static int gather_in(struct up_run *r, int q)
{
    int head = sack_tree_child_towards(r->t, r->pos, q);
    int c = head >= 0 ? sack_tree_child_slot(r->t, r->pos, head) : -1;
    if (c < 0 || c >= r->nchild)
        return MPI_ERR_INTERN;
    if (r->pr != NULL)
        timed(r, c, subtree_size(r->t, head), (double)r->block);
    if (r->rank == r->root) {
        r->gathered++;
        return MPI_SUCCESS;
    }
    r->forwarded++;
    return post_send(r, r->stage + (uint64_t)r->stage_of[q] * r->block, (int)r->block, MPI_BYTE,
                     r->parent, SACK_TAG_UP_GDATA + q);
}

/* ---- the root ------------------------------------------------------------ */

static int kids_init(struct up_run *r)
{
    r->nchild = sack_tree_children(r->t, r->pos, NULL, 0);
    if (r->nchild < 0)
        return MPI_ERR_INTERN;
    int *kp = malloc((size_t)(r->nchild + 1) * sizeof *kp);
    r->kids = calloc((size_t)r->nchild + 1, sizeof *r->kids);
    if (kp == NULL || r->kids == NULL) {
        free(kp);
        return MPI_ERR_NO_MEM;
    }
    int rc = sack_tree_children(r->t, r->pos, kp, r->nchild) == r->nchild ? MPI_SUCCESS
                                                                          : MPI_ERR_INTERN;
    for (int c = 0; c < r->nchild; c++) {
        r->kids[c].pos = kp[c];
        r->kids[c].rank = -1;
    }
    free(kp);
    return rc;
}

static int root_start(struct up_run *r)
{
    const int n = r->size - 1;
    int rc = MPI_SUCCESS;
    r->pos = 0;
    if (sack_plan_init(&r->plan, r->t, rt_sack_fill()) != 0)
        return MPI_ERR_NO_MEM;
    r->plan_ok = true;
    if (r->probe && r->pr->rate > 0) /* the root's own last measurement counts too */
        r->min_rate = r->pr->rate;
    r->rank_of_pos = malloc((size_t)r->size * sizeof *r->rank_of_pos);
    r->sack_in = malloc((size_t)n * 3 * sizeof *r->sack_in);
    r->t_sack = calloc((size_t)r->size, sizeof *r->t_sack);
    if (r->probe)
        r->vote_out = malloc(sizeof *r->vote_out);
    r->assign_out = malloc((size_t)n * 3 * sizeof *r->assign_out);
    r->ctrl_out = malloc((size_t)n * 2 * sizeof *r->ctrl_out);
    if (r->rank_of_pos == NULL || r->sack_in == NULL || r->assign_out == NULL ||
        r->ctrl_out == NULL || r->t_sack == NULL || (r->probe && r->vote_out == NULL))
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < r->size; i++)
        r->rank_of_pos[i] = -1;
    r->rank_of_pos[0] = r->rank;
    if ((rc = kids_init(r)) != MPI_SUCCESS)
        return rc;
    if (r->reduce && (rc = reduce_placed(r)) != MPI_SUCCESS)
        return rc;
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++)
        rc = post_recv(r, &r->sack_in[3 * j], 3 * 8, MPI_BYTE, (r->root + 1 + j) % r->size,
                       SACK_TAG_UP_SACK, K_SACK_IN, j, 0);
    return rc;
}

/* The root of a probe, every SACK in: judge (sack_auto_judge_up) and send
 * the vote to every rank. Ranks there before the root count 0; no rate
 * reported yet (the site's first SACK calls): no opinion (0). */
static int root_vote(struct up_run *r)
{
    int rc = MPI_SUCCESS;
    double *arrive = malloc((size_t)r->size * sizeof *arrive);
    if (arrive == NULL)
        return MPI_ERR_NO_MEM;
    for (int x = 0; x < r->size; x++)
        arrive[x] = x == r->root ? 0 : r->t_sack[x];
    double h = r->min_rate * r->wire;
    double s = r->reduce && r->nseg > 1 ? h * (double)r->segc / (double)r->count : h;
    int vote = 0;
    r->pr->gain = r->pr->cost = 0;
    r->pr->h = h;
    if (h > 0) {
        vote = sack_auto_judge_up(r->t, r->plan.fill, r->root, arrive, h, s, !r->reduce,
                                  &r->pr->gain, &r->pr->cost);
        vote = vote < -1 ? 0 : vote;
    }
    free(arrive);
    *r->vote_out = vote;
    for (int k = 1; k < r->size && rc == MPI_SUCCESS; k++)
        rc = post_send(r, r->vote_out, 1, MPI_INT64_T, (r->root + k) % r->size,
                       SACK_TAG_UP_VOTE);
    return rc;
}

/* x's SACK (the j-th source) arrived: give x the next position; tell x
 * (ASSIGN) and its parent (CTRL, unless that is the root itself); receive
 * what x's position sends the root. */
static int root_on_sack(struct up_run *r, int j, const MPI_Status *st)
{
    int x = (r->root + 1 + j) % r->size, cnt = 0, rc;
    const int64_t *m = &r->sack_in[3 * j];
    if (PMPI_Get_count(st, MPI_BYTE, &cnt) != MPI_SUCCESS || cnt != 3 * 8 || m[0] != r->magic ||
        m[1] != r->n || r->arrived + 1 >= r->size)
        return MPI_ERR_INTERN; /* another call's message: ranks disagree */
    r->t_sack[x] = PMPI_Wtime() - r->t0;
    if (r->probe && m[2] > 0 && m[2] < (int64_t)SACK_UP_PS) {
        double rate = (double)m[2] / SACK_UP_PS;
        if (r->min_rate == 0 || rate < r->min_rate)
            r->min_rate = rate;
    }
    int p = sack_plan_position(&r->plan, ++r->arrived);
    int up = sack_tree_parent(r->t, p);
    int head = up == 0 ? p : sack_tree_child_towards(r->t, 0, p);
    if (up < 0 || head < 0 || r->rank_of_pos[up] < 0 || r->rank_of_pos[p] >= 0 ||
        (head != p && r->rank_of_pos[head] < 0))
        return MPI_ERR_INTERN;
    r->rank_of_pos[p] = x;
    int64_t *a = &r->assign_out[3 * j];
    a[0] = p;
    a[1] = r->rank_of_pos[up];
    a[2] = r->n;
    rc = post_send(r, a, 3 * 8, MPI_BYTE, x, SACK_TAG_UP_ASSIGN);
    if (rc == MPI_SUCCESS && up != 0) {
        r->ctrl_out[2 * j] = p;
        r->ctrl_out[2 * j + 1] = x;
        rc = post_send(r, &r->ctrl_out[2 * j], 2, MPI_INT32_T, r->rank_of_pos[up],
                       SACK_TAG_UP_CTRL);
    }
    if (rc == MPI_SUCCESS && r->probe && r->arrived == r->size - 1)
        rc = root_vote(r);
    if (rc != MPI_SUCCESS)
        return rc;
    int c = -1;
    if (up == 0) { /* a root child */
        c = sack_tree_child_slot(r->t, 0, p);
        if (c < 0 || c >= r->nchild || r->kids[c].rank >= 0)
            return MPI_ERR_INTERN;
        r->kids[c].rank = x;
    }
    if (!r->reduce) /* x's block comes through the root child above p */
        return post_recv(r, r->rbuf + (uint64_t)x * r->block, (int)r->block, MPI_BYTE,
                         r->rank_of_pos[head], SACK_TAG_UP_GDATA + p, K_GATHER_IN, p, 0);
    return c >= 0 ? reduce_kid_known(r, c) : MPI_SUCCESS;
}

/* ---- the other ranks ----------------------------------------------------- */

static int nonroot_start(struct up_run *r)
{
    int rc = post_recv(r, r->assign_in, 3 * 8, MPI_BYTE, r->root, SACK_TAG_UP_ASSIGN, K_ASSIGN_IN,
                       0, 0);
    r->sack3[0] = r->magic;
    r->sack3[1] = r->n;
    r->sack3[2] = r->pr != NULL && r->pr->rate > 0 && r->pr->rate < 1
                      ? (int64_t)(r->pr->rate * SACK_UP_PS)
                      : 0;
    if (rc == MPI_SUCCESS)
        rc = post_send(r, r->sack3, 3 * 8, MPI_BYTE, r->root, SACK_TAG_UP_SACK);
    if (rc == MPI_SUCCESS && r->probe)
        rc = post_recv(r, &r->vote_in, 1, MPI_INT64_T, r->root, SACK_TAG_UP_VOTE, K_VOTE_IN, 0, 0);
    return rc;
}

static int nonroot_on_assign(struct up_run *r, const MPI_Status *st)
{
    int n = 0, rc;
    const int64_t *a = r->assign_in;
    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n != 3 * 8 || a[0] < 1 ||
        a[0] >= r->size || a[1] < 0 || a[1] >= r->size || a[1] == r->rank || a[2] != r->n)
        return MPI_ERR_INTERN;
    r->pos = (int)a[0];
    r->parent = (int)a[1];
    if ((rc = kids_init(r)) != MPI_SUCCESS)
        return rc;
    r->ctrl_left = r->nchild;
    if (r->nchild > 0 && (rc = post_recv(r, r->ctrl_in, 2, MPI_INT32_T, r->root,
                                         SACK_TAG_UP_CTRL, K_CTRL_IN, 0, 0)) != MPI_SUCCESS)
        return rc;
    if (r->reduce)
        return reduce_placed(r);
    if (r->nchild > 0 && (rc = gather_stage(r)) != MPI_SUCCESS)
        return rc;
    return post_send(r, r->sbuf, (int)r->block, MPI_BYTE, r->parent, SACK_TAG_UP_GDATA + r->pos);
}

static int nonroot_on_ctrl(struct up_run *r)
{
    int32_t p = r->ctrl_in[0], x = r->ctrl_in[1];
    int c = p > 0 && p < r->size ? sack_tree_child_slot(r->t, r->pos, p) : -1;
    int rc;
    if (c < 0 || c >= r->nchild || r->kids[c].rank >= 0 || x < 0 || x >= r->size ||
        x == r->rank || x == r->root || r->ctrl_left < 1)
        return MPI_ERR_INTERN;
    r->kids[c].rank = x;
    rc = r->reduce ? reduce_kid_known(r, c) : gather_kid_known(r, c);
    if (rc == MPI_SUCCESS && --r->ctrl_left > 0)
        rc = post_recv(r, r->ctrl_in, 2, MPI_INT32_T, r->root, SACK_TAG_UP_CTRL, K_CTRL_IN, 0, 0);
    return rc;
}

static int on_done(struct up_run *r, int i, const MPI_Status *st)
{
    int kind = r->info[i].kind, a = r->info[i].a, b = r->info[i].b;
    r->active--;
    r->info[i].kind = K_NONE;
    r->freel[r->nfree++] = i;
    switch (kind) {
    case K_SACK_IN:
        return root_on_sack(r, a, st);
    case K_ASSIGN_IN:
        return nonroot_on_assign(r, st);
    case K_CTRL_IN:
        return nonroot_on_ctrl(r);
    case K_GATHER_IN:
        return gather_in(r, a);
    case K_REDUCE_IN:
        return reduce_in(r, a, b);
    default:
        return MPI_SUCCESS;
    }
}

/* After an error: receives are cancelled and completed; sends are freed
 * (their buffers leaked on purpose: MPI may still read them). */
static void abandon(struct up_run *r)
{
    for (int i = 0; i < r->nreqs; i++) {
        if (r->reqs[i] == MPI_REQUEST_NULL)
            continue;
        if (r->info[i].kind != K_SEND) {
            PMPI_Cancel(&r->reqs[i]);
            PMPI_Wait(&r->reqs[i], MPI_STATUS_IGNORE);
        } else {
            PMPI_Request_free(&r->reqs[i]);
            r->leaked = true;
        }
    }
}

/* Everything of this rank's part arrived and went out? */
static bool complete(const struct up_run *r)
{
    if (r->rank == r->root) {
        if (r->arrived != r->size - 1)
            return false;
        if (!r->reduce)
            return r->gathered == r->size - 1;
    } else if (r->nchild < 0 || r->ctrl_left != 0 || r->next_up != r->nseg * r->reduce) {
        return false;
    } else if (!r->reduce)
        return r->forwarded == r->nstage;
    for (int c = 0; r->reduce && c < r->nchild; c++)
        if (r->kids[c].rank < 0 || r->kids[c].posted != r->nseg)
            return false;
    for (int s = 0; r->reduce && r->nchild > 0 && s < r->nseg; s++)
        if (r->done[s] != r->nchild)
            return false;
    return true;
}

static int run(struct up_run *r)
{
    int rc = r->rank == r->root ? root_start(r) : nonroot_start(r);
    while (rc == MPI_SUCCESS && r->active > 0) {
        int n = 0;
        rc = PMPI_Waitsome(r->nreqs, r->reqs, &n, r->idx, r->stats);
        r->batch++;
        r->t_batch = PMPI_Wtime();
        for (int i = 0; rc == MPI_SUCCESS && n != MPI_UNDEFINED && i < n; i++)
            rc = on_done(r, r->idx[i], &r->stats[i]);
    }
    if (rc == MPI_SUCCESS && !complete(r))
        rc = MPI_ERR_INTERN;
    if (rc != MPI_SUCCESS)
        abandon(r);
    else if (r->pr != NULL) {
        r->pr->vote = !r->probe ? SACK_VOTE_NONE
                      : r->rank == r->root ? (int)*r->vote_out
                                           : (int)r->vote_in;
        r->pr->rate = r->rate;
    }
    for (int c = 0; r->kids != NULL && c < r->nchild; c++)
        if (r->kids[c].ring != NULL && !r->leaked)
            free(r->kids[c].ring + r->tlb);
    free(r->kids);
    free(r->reqs);
    free(r->info);
    free(r->freel);
    free(r->idx);
    free(r->stats);
    free(r->done);
    free(r->stage_of);
    free(r->rank_of_pos);
    free(r->sack_in);
    free(r->t_sack);
    if (!r->leaked) {
        free(r->vote_out);
        free(r->accmem);
        free(r->stage);
        free(r->assign_out);
        free(r->ctrl_out);
    }
    if (r->plan_ok)
        sack_plan_fini(&r->plan);
    return rc;
}

static void run_init(struct up_run *r, int root, const struct sack_tree *t, MPI_Comm priv,
                     int rank, struct sack_probe *pr)
{
    memset(r, 0, sizeof *r);
    r->pr = pr;
    r->probe = pr != NULL && pr->probe;
    r->t0 = PMPI_Wtime();
    r->root = root;
    r->rank = rank;
    r->size = t->size;
    r->comm = priv;
    r->t = t;
    r->parent = -1;
}

int rt_sack_gather(const char *sbuf, char *rbuf, uint64_t block, int root,
                   const struct sack_tree *t, MPI_Comm priv, int rank, struct sack_probe *pr)
{
    struct up_run r;
    if (pr != NULL)
        pr->vote = SACK_VOTE_NONE;
    if (rank == root && sbuf != NULL && block > 0)
        memcpy(rbuf + (uint64_t)root * block, sbuf, block);
    if (block == 0 || t->size <= 1)
        return MPI_SUCCESS;
    if (t->size > SACK_UP_GATHER_MAX || block > (uint64_t)INT32_MAX)
        return MPI_ERR_INTERN; /* coll.c never asks (it runs the static schedule) */
    run_init(&r, root, t, priv, rank, pr);
    r.wire = (double)block;
    r.magic = UP_MAGIC_GATHER;
    r.n = (int64_t)block;
    r.sbuf = sbuf;
    r.rbuf = rbuf;
    r.block = block;
    if (rank == root) { /* one debug line per process (ACCT_VERBOSE=2), for tests */
        static pthread_once_t said = PTHREAD_ONCE_INIT;
        pthread_once(&said, say_first_gather);
    }
    return run(&r);
}

int rt_sack_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   uint64_t seg, int root, const struct sack_tree *t, MPI_Comm priv, int rank,
                   struct sack_probe *pr)
{
    struct up_run r;
    MPI_Aint lb, extent, tlb, textent;
    int tsize = 0;
    if (pr != NULL)
        pr->vote = SACK_VOTE_NONE;
    if (count <= 0)
        return MPI_SUCCESS;
    if (t->size <= 1)
        return sbuf == NULL ? MPI_SUCCESS
                            : PMPI_Sendrecv(sbuf, count, dt, rank, SACK_TAG_UP_RDATA, rbuf, count,
                                            dt, rank, SACK_TAG_UP_RDATA, priv, MPI_STATUS_IGNORE);
    if (PMPI_Type_get_extent(dt, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(dt, &tlb, &textent) != MPI_SUCCESS ||
        PMPI_Type_size(dt, &tsize) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    run_init(&r, root, t, priv, rank, pr);
    r.wire = (double)count * (double)tsize;
    r.reduce = true;
    r.magic = UP_MAGIC_REDUCE;
    r.n = count;
    r.in = rank == root && sbuf == NULL ? NULL : sbuf;
    r.rbuf = rbuf;
    r.dt = dt;
    r.op = op;
    r.count = count;
    r.segc = seg == 0 || seg >= (uint64_t)count ? count : (int)seg;
    r.nseg = (count + r.segc - 1) / r.segc;
    r.extent = extent;
    r.tlb = tlb;
    r.span_seg = textent + (MPI_Aint)(r.segc - 1) * extent;
    if (rank == root) {
        static pthread_once_t said = PTHREAD_ONCE_INIT;
        pthread_once(&said, say_first_reduce);
    }
    return run(&r);
}
