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
#include "sack_ctl.h"

#define UP_MAGIC_GATHER 0x47415448LL /* "GATH" */
#define UP_MAGIC_REDUCE 0x52454455LL /* "REDU" */
#define UP_WINDOW 4                  /* segments in flight per child (reduce) */

/* What a request of the protocol's own is (sack_ctl.h). */
enum {
    K_ASSIGN_IN = SACK_K_PROTO, /* non-root */
    K_GATHER_IN,                /* gather: block of position a */
    K_REDUCE_IN,                /* reduce: child slot a, segment b */
};

static const struct sack_proto gather_proto = {.tag_sack = SACK_TAG_UP_SACK,
                                               .tag_ctrl = SACK_TAG_UP_CTRL,
                                               .tag_vote = SACK_TAG_UP_VOTE,
                                               .magic = UP_MAGIC_GATHER};
static const struct sack_proto reduce_proto = {.tag_sack = SACK_TAG_UP_SACK,
                                               .tag_ctrl = SACK_TAG_UP_CTRL,
                                               .tag_vote = SACK_TAG_UP_VOTE,
                                               .magic = UP_MAGIC_REDUCE};

/* What this rank receives from each child (its rank and position: sack_ctl). */
struct up_kid {
    int posted;    /* reduce: segments whose receive was posted */
    unsigned busy; /* reduce: ring slots holding a segment not reduced yet */
    char *ring;    /* reduce: UP_WINDOW segment slots (base - true lb) */
    int got;       /* pieces in from it (reduce: segments; gather: blocks) */
    struct sack_meter meter; /* their rate (automatic mode) */
};

struct up_run {
    struct sack_ctl x; /* requests, SACK, CTRL, VOTE; the root's plan (sack_ctl.h) */
    bool reduce;
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
    int parent;
    struct up_kid *kids; /* x.nchild */
    /* gather staging (non-root): a block per position of the subtree */
    int *stage_of; /* position -> staging index, -1 if not below this rank */
    char *stage;
    int forwarded, nstage;
    /* root */
    int gathered;
    int64_t *assign_out; /* 3 per source */
    /* non-root messages */
    int64_t assign_in[3];
    /* the automatic mode (sack.h): pr NULL when not asked for */
    struct sack_probe *pr;
    bool probe;
    double wire;       /* bytes of one rank's data (reduce: the vector; gather: a block) */
    double rate;       /* this rank's measurement in this call (s/B, 0: none) */
};

static void say_first_gather(void)
{
    acct_debug("SACK reordering: first gather as root, fill %s", sack_fill_name(rt_sack_fill()));
}

static void say_first_reduce(void)
{
    acct_debug("SACK reordering: first reduce as root, fill %s", sack_fill_name(rt_sack_fill()));
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
 * MPI_Waitsome return (x.batch, at x.t_batch). Its pieces give the
 * link's rate (sack_meter: only those reported after the first one's
 * return count); at the root, a leaf child's data from its SACK to its
 * last piece too (it cannot send before its ASSIGN; unsegmented: the only
 * measure). */
static void timed(struct up_run *r, int c, int n, double piece)
{
    struct up_kid *k = &r->kids[c];
    k->got++;
    sack_meter_piece(&k->meter, r->x.batch, r->x.t_batch, piece);
    if (k->got != n)
        return;
    measured(r, sack_meter_rate(&k->meter));
    int from = r->x.kid_rank[c];
    if (r->x.rank == r->x.root && from >= 0 &&
        sack_tree_children(r->x.t, r->x.kid_pos[c], NULL, 0) == 0)
        measured(r, (r->x.t_batch - r->x.t0 - r->x.arrive[from]) / r->wire);
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
        rc = sack_ctl_recv(&r->x, k->ring + (MPI_Aint)(s % UP_WINDOW) * r->span_seg,
                           seg_count(r, s), r->dt, r->x.kid_rank[c], SACK_TAG_UP_RDATA, K_REDUCE_IN,
                           c, s);
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
    while (rc == MPI_SUCCESS && r->x.rank != r->x.root && r->next_up < r->nseg &&
           r->done[r->next_up] == r->x.nchild) {
        int s = r->next_up++;
        rc = sack_ctl_send(&r->x, seg_at(r, r->acc, s), seg_count(r, s), r->dt, r->parent,
                           SACK_TAG_UP_RDATA, SACK_K_SEND, 0, 0);
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
    if (r->x.nchild == 0) { /* a leaf: its input goes up as it is */
        int rc = MPI_SUCCESS;
        for (int s = 0; s < r->nseg && rc == MPI_SUCCESS; s++)
            rc = sack_ctl_send(&r->x, seg_at(r, r->in, s), seg_count(r, s), r->dt, r->parent,
                               SACK_TAG_UP_RDATA, SACK_K_SEND, 0, 0);
        r->next_up = r->nseg;
        return rc;
    }
    r->done = calloc((size_t)r->nseg, sizeof *r->done);
    if (r->done == NULL)
        return MPI_ERR_NO_MEM;
    if (r->x.rank == r->x.root) { /* the receive buffer, holding the root's input */
        r->acc = r->rbuf;
        if (r->in != NULL)
            return PMPI_Sendrecv(r->in, r->count, r->dt, r->x.rank, SACK_TAG_UP_RDATA, r->rbuf,
                                 r->count, r->dt, r->x.rank, SACK_TAG_UP_RDATA, r->x.comm,
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
    int rc = MPI_SUCCESS, pos = r->x.kid_pos[c];
    for (int q = 1; q < r->x.size && rc == MPI_SUCCESS; q++)
        if (q == pos || sack_tree_child_towards(r->x.t, pos, q) >= 0)
            rc = sack_ctl_recv(&r->x, r->stage + (uint64_t)r->stage_of[q] * r->block,
                               (int)r->block, MPI_BYTE, r->x.kid_rank[c], SACK_TAG_UP_GDATA + q,
                               K_GATHER_IN, q, 0);
    return rc;
}

/* The subtree's positions get staging slots (non-root with children). */
static int gather_stage(struct up_run *r)
{
    r->stage_of = malloc((size_t)r->x.size * sizeof *r->stage_of);
    if (r->stage_of == NULL)
        return MPI_ERR_NO_MEM;
    r->nstage = 0;
    for (int q = 0; q < r->x.size; q++)
        r->stage_of[q] =
            q > 0 && sack_tree_child_towards(r->x.t, r->x.pos, q) >= 0 ? r->nstage++ : -1;
    if (r->nstage == 0)
        return MPI_SUCCESS;
    r->stage = malloc((size_t)r->nstage * r->block);
    return r->stage == NULL ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

static int gather_in(struct up_run *r, int q)
{
    int head = sack_tree_child_towards(r->x.t, r->x.pos, q);
    int c = head >= 0 ? sack_tree_child_slot(r->x.t, r->x.pos, head) : -1;
    if (c < 0 || c >= r->x.nchild)
        return MPI_ERR_INTERN;
    if (r->pr != NULL)
        timed(r, c, subtree_size(r->x.t, head), (double)r->block);
    if (r->x.rank == r->x.root) {
        r->gathered++;
        return MPI_SUCCESS;
    }
    r->forwarded++;
    return sack_ctl_send(&r->x, r->stage + (uint64_t)r->stage_of[q] * r->block, (int)r->block,
                         MPI_BYTE, r->parent, SACK_TAG_UP_GDATA + q, SACK_K_SEND, 0, 0);
}

/* ---- the root ------------------------------------------------------------ */

/* This rank's place is known (sack_ctl): its children's receive state. */
static int kids_init(struct up_run *r)
{
    r->kids = calloc((size_t)r->x.nchild + 1, sizeof *r->kids);
    return r->kids == NULL ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

static int root_start(void *run)
{
    struct up_run *r = run;
    int rc;
    if (r->probe && r->pr->rate > 0) /* the root's own last measurement counts too */
        r->x.min_rate = r->pr->rate;
    r->assign_out = malloc((size_t)(r->x.size - 1) * 3 * sizeof *r->assign_out);
    if (r->assign_out == NULL)
        return MPI_ERR_NO_MEM;
    if ((rc = sack_ctl_root_start(&r->x, r->pr != NULL)) != MPI_SUCCESS ||
        (rc = kids_init(r)) != MPI_SUCCESS)
        return rc;
    return r->reduce ? reduce_placed(r) : MPI_SUCCESS;
}

/* The root of a probe, every SACK in: judge (sack_auto_judge_up) and send
 * the vote to every rank. Ranks there before the root count 0; no rate
 * reported yet (the site's first SACK calls): no opinion (0). */
static int root_vote(struct up_run *r)
{
    double h = r->x.min_rate * r->wire;
    double s = r->reduce && r->nseg > 1 ? h * (double)r->segc / (double)r->count : h;
    int vote = 0;
    r->pr->gain = r->pr->cost = 0;
    r->pr->h = h;
    if (h > 0) {
        vote = sack_auto_judge_up(r->x.t, r->x.plan.fill, r->x.root, r->x.arrive, h, s,
                                  !r->reduce, &r->pr->gain, &r->pr->cost);
        vote = vote < -1 ? 0 : vote;
    }
    return sack_ctl_vote(&r->x, vote);
}

/* x's SACK arrived: give x the next position; tell x (ASSIGN) and its
 * parent (CTRL, unless that is the root itself); receive what x's position
 * sends the root. */
static int on_arrival(void *run, int x)
{
    struct up_run *r = run;
    struct sack_place at;
    int rc;
    if ((rc = sack_ctl_place(&r->x, x, &at)) != MPI_SUCCESS)
        return rc;
    int64_t *a = &r->assign_out[3 * at.src];
    a[0] = at.pos;
    a[1] = r->x.rank_of_pos[at.up];
    a[2] = r->x.n;
    rc = sack_ctl_send(&r->x, a, 3 * 8, MPI_BYTE, x, SACK_TAG_UP_ASSIGN, SACK_K_SEND, 0, 0);
    if (rc == MPI_SUCCESS && at.up != 0)
        rc = sack_ctl_tell_parent(&r->x, at.up, at.pos, x);
    if (rc == MPI_SUCCESS && r->probe && r->x.arrived == r->x.size - 1)
        rc = root_vote(r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!r->reduce) /* x's block comes through the root child above p */
        return sack_ctl_recv(&r->x, r->rbuf + (uint64_t)x * r->block, (int)r->block, MPI_BYTE,
                             r->x.rank_of_pos[at.head], SACK_TAG_UP_GDATA + at.pos, K_GATHER_IN,
                             at.pos, 0);
    return at.kid >= 0 ? reduce_kid_known(r, at.kid) : MPI_SUCCESS; /* a root child */
}

/* ---- the other ranks ----------------------------------------------------- */

static int nonroot_start(void *run)
{
    struct up_run *r = run;
    int rc = sack_ctl_recv(&r->x, r->assign_in, 3 * 8, MPI_BYTE, r->x.root, SACK_TAG_UP_ASSIGN,
                           K_ASSIGN_IN, 0, 0);
    return rc == MPI_SUCCESS ? sack_ctl_hello(&r->x, r->pr != NULL ? r->pr->rate : 0, r->probe)
                             : rc;
}

static int nonroot_on_assign(struct up_run *r, const MPI_Status *st)
{
    int n = 0, rc;
    const int64_t *a = r->assign_in;
    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n != 3 * 8 || a[0] < 1 ||
        a[0] >= r->x.size || a[1] < 0 || a[1] >= r->x.size || a[1] == r->x.rank || a[2] != r->x.n)
        return MPI_ERR_INTERN;
    r->parent = (int)a[1];
    if ((rc = sack_ctl_placed(&r->x, (int)a[0])) != MPI_SUCCESS ||
        (rc = kids_init(r)) != MPI_SUCCESS)
        return rc;
    if (r->reduce)
        return reduce_placed(r);
    if (r->x.nchild > 0 && (rc = gather_stage(r)) != MPI_SUCCESS)
        return rc;
    return sack_ctl_send(&r->x, r->sbuf, (int)r->block, MPI_BYTE, r->parent,
                         SACK_TAG_UP_GDATA + r->x.pos, SACK_K_SEND, 0, 0);
}

static int on_child(void *run, int c)
{
    struct up_run *r = run;
    return r->reduce ? reduce_kid_known(r, c) : gather_kid_known(r, c);
}

static int on_done(void *run, int kind, int a, int b, const MPI_Status *st)
{
    struct up_run *r = run;
    switch (kind) {
    case K_ASSIGN_IN:
        return nonroot_on_assign(r, st);
    case K_GATHER_IN:
        return gather_in(r, a);
    case K_REDUCE_IN:
        return reduce_in(r, a, b);
    default:
        return MPI_ERR_INTERN;
    }
}

static pthread_once_t said_gather = PTHREAD_ONCE_INIT, said_reduce = PTHREAD_ONCE_INIT;
static const struct sack_ops gather_ops = {
    .start_root = root_start, .start_nonroot = nonroot_start, .arrival = on_arrival,
    .child = on_child, .done = on_done, .say_first = say_first_gather, .said = &said_gather};
static const struct sack_ops reduce_ops = {
    .start_root = root_start, .start_nonroot = nonroot_start, .arrival = on_arrival,
    .child = on_child, .done = on_done, .say_first = say_first_reduce, .said = &said_reduce};

/* Everything of this rank's part arrived and went out? */
static bool complete(const struct up_run *r)
{
    if (!sack_ctl_complete(&r->x))
        return false;
    if (r->x.rank == r->x.root) {
        if (!r->reduce)
            return r->gathered == r->x.size - 1;
    } else if (r->next_up != r->nseg * r->reduce) {
        return false;
    } else if (!r->reduce)
        return r->forwarded == r->nstage;
    for (int c = 0; r->reduce && c < r->x.nchild; c++)
        if (r->kids[c].posted != r->nseg)
            return false;
    for (int s = 0; r->reduce && r->x.nchild > 0 && s < r->nseg; s++)
        if (r->done[s] != r->x.nchild)
            return false;
    return true;
}

static int run(struct up_run *r)
{
    int rc = sack_ctl_run(&r->x, r->reduce ? &reduce_ops : &gather_ops, r);
    if (rc == MPI_SUCCESS && !complete(r))
        rc = MPI_ERR_INTERN;
    if (rc == MPI_SUCCESS && r->pr != NULL) {
        r->pr->vote = r->probe ? sack_ctl_voted(&r->x) : SACK_VOTE_NONE;
        r->pr->rate = r->rate;
    }
    for (int c = 0; r->kids != NULL && c < r->x.nchild; c++)
        if (r->kids[c].ring != NULL && !r->x.leaked)
            free(r->kids[c].ring + r->tlb);
    free(r->kids);
    free(r->done);
    free(r->stage_of);
    if (!r->x.leaked) {
        free(r->accmem);
        free(r->stage);
        free(r->assign_out);
    }
    sack_ctl_fini(&r->x);
    return rc;
}

static void run_init(struct up_run *r, const struct sack_proto *proto, int64_t n, int root,
                     const struct sack_tree *t, MPI_Comm priv, int rank, struct sack_probe *pr)
{
    memset(r, 0, sizeof *r);
    sack_ctl_init(&r->x, proto, n, t, root, priv, rank);
    r->pr = pr;
    r->probe = pr != NULL && pr->probe;
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
    run_init(&r, &gather_proto, (int64_t)block, root, t, priv, rank, pr);
    r.wire = (double)block;
    r.sbuf = sbuf;
    r.rbuf = rbuf;
    r.block = block;
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
    run_init(&r, &reduce_proto, count, root, t, priv, rank, pr);
    r.wire = (double)count * (double)tsize;
    r.reduce = true;
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
    return run(&r);
}
