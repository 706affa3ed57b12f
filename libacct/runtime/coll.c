/* From an MPI call to a schedule run (or the native collective).
 *
 * Data-movement collectives (bcast, gather, scatter, allgather, alltoall)
 * run on bytes: a contiguous datatype is viewed as MPI_BYTE in place; any
 * other is packed into a byte buffer (and unpacked after). Ranks may pass
 * different datatypes with equal type signatures, and bytes are the only
 * unit on which they all agree, e.g. for segment boundaries. Reductions
 * run on elements of their datatype, which MPI requires to be the same on
 * every rank.
 *
 * Every rank takes the same branch for the same call: the decision depends
 * on agreed inputs and on the call's shape only (rule 1). Once a rank has
 * chosen an ACCT algorithm, a later failure (out of memory) is reported as
 * an MPI error through the communicator's error handler — falling back to
 * native on one rank alone would deadlock the others. */
#include "coll.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "acct/alg.h"
#include "account.h"
#include "comm.h"
#include "decide.h"
#include "exec.h"
#include "nb.h"
#include "sack.h"
#include "sack_rooted.h"
#include "samples.h"
#include "tags.h"

#define RT_NATIVE (-1)  /* run the native collective instead */

static int type_size(MPI_Datatype dt, uint64_t *out)
{
    int size = 0;
    if (PMPI_Type_size(dt, &size) != MPI_SUCCESS || size < 0)
        return -1;
    *out = (uint64_t)size;
    return 0;
}

/* A byte view of count elements of dt at buf. */
struct rt_bytes {
    char *ptr;
    uint64_t n;
    void *packed; /* owned, when dt is not contiguous */
};

static int bytes_open(const void *buf, uint64_t count, MPI_Datatype dt, int fill, MPI_Comm comm,
                      struct rt_bytes *v)
{
    MPI_Aint lb, extent, tlb, textent;
    uint64_t size;
    v->packed = NULL;
    if (type_size(dt, &size) != 0 || PMPI_Type_get_extent(dt, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(dt, &tlb, &textent) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    v->n = count * size;
    if ((uint64_t)textent == size && (count <= 1 || (uint64_t)extent == size)) {
        v->ptr = (char *)(uintptr_t)buf + tlb;
        return MPI_SUCCESS;
    }
    v->packed = malloc(v->n ? v->n : 1);
    if (v->packed == NULL)
        return MPI_ERR_NO_MEM;
    v->ptr = v->packed;
    int pos = 0;
    return fill ? PMPI_Pack(buf, (int)count, dt, v->packed, (int)v->n, &pos, comm) : MPI_SUCCESS;
}

static int bytes_close(struct rt_bytes *v, void *buf, uint64_t count, MPI_Datatype dt, int unpack,
                       MPI_Comm comm)
{
    int rc = MPI_SUCCESS, pos = 0;
    if (v->packed != NULL) {
        if (unpack)
            rc = PMPI_Unpack(v->packed, (int)v->n, &pos, buf, (int)count, dt, comm);
        free(v->packed);
        v->packed = NULL;
    }
    return rc;
}

/* One call's choice, made once by choose() from one lookup of the
 * decision and passed to what runs the call: nothing about the call is
 * looked up again. */
struct rt_choice {
    const struct acct_alg *alg;  /* the algorithm (fallbacks resolved); NULL: native */
    uint64_t bytes;              /* the decision's key: the call's message bytes */
    int fanout;                  /* the decision's fan-out (samples) */
    bool reorder;                /* SACK reordering runs the call, over tree */
    struct sack_tree tree;
    struct sack_auto_site *site; /* the automatic mode's call site (NULL: none), with pr */
    struct sack_probe pr;
};

/* A SACK protocol run for the chosen call, on the private communicator. */
typedef int rt_sack_run(struct rt_comm *st, const struct acct_call *c, struct rt_choice *ch,
                        const struct rt_bufs *b, MPI_Op op, MPI_Comm priv);
static rt_sack_run sack_bcast, sack_scatter, sack_gather, sack_reduce;

/* SACK reordering per collective (sack.h, sack_rooted.h): its protocol,
 * whether the automatic mode may turn it on, and the largest call the
 * protocol moves (scatter and gather send a block as one message, an int
 * count; gather tags each block with its position). */
static const struct rt_sack_coll {
    rt_sack_run *run;
    bool automatic;
    uint64_t max_count; /* acct_call.count */
    int max_size;       /* communicator size */
} sack_colls[ACCT_COLL_COUNT] = {
    [ACCT_COLL_bcast] = {sack_bcast, true, UINT64_MAX, INT_MAX},
    [ACCT_COLL_scatter] = {sack_scatter, false, INT32_MAX, INT_MAX},
    [ACCT_COLL_gather] = {sack_gather, true, INT32_MAX, SACK_UP_GATHER_MAX},
    [ACCT_COLL_reduce] = {sack_reduce, true, UINT64_MAX, INT_MAX},
};

/* Does the call (shape c, decision d, entry of the communicator's rules
 * table or SIZE_MAX) run with SACK reordering? The collective has a
 * protocol for its shape, the registry allows it for ch->alg and this call
 * (a reduction: commutative operations only), ch->alg has a tree, and
 * either the decision asks for it or the automatic mode does: the decision
 * came from rules with options.auto_reorder and the call site is on or
 * probing (then ch->site is set and ch->pr filled; run_sack ends it).
 * Agreed inputs, the call's shape and the site's call count only (rule 1). */
static bool sack_choose(struct rt_comm *st, const struct acct_decision *d, size_t entry,
                        const struct acct_call *c, struct rt_choice *ch)
{
    const struct rt_sack_coll *k = &sack_colls[c->coll];
    const struct acct_rules *rules;
    if (k->run == NULL || c->count > k->max_count || st->size > k->max_size ||
        !acct_alg_reorderable(ch->alg, c, NULL) ||
        sack_tree_of(ch->alg, c->fanout, st->size, &ch->tree) != 0)
        return false;
    if (d->reorder)
        return true;
    if (!k->automatic || (rules = rt_decide_rules()) == NULL || !rules->opts.auto_reorder)
        return false;
    ch->site = rt_sack_auto_site(&st->sack_auto, c->coll, entry);
    if (ch->site != NULL && !rt_sack_auto_begin(&st->sack_auto, ch->site, &ch->pr))
        ch->site = NULL; /* the static schedule this time */
    return ch->site != NULL;
}

/* The choice for this call: the one decision lookup (which also counts
 * the call for exploration, explore.h). false: native. Fills shape->seg
 * (in elements of elem bytes) and shape->fanout. total_bytes bounds every
 * buffer the call touches (MPI counts are ints). */
static bool choose(struct rt_comm *st, struct acct_call *shape, uint64_t bytes, uint64_t elem,
                   uint64_t total_bytes, struct rt_choice *ch, bool nb)
{
    const struct acct_decision *d;
    size_t entry;
    ch->alg = NULL;
    ch->reorder = false;
    ch->site = NULL;
    if (st == NULL || st->unknown || st->inter || !rt_comm_runs_acct(st) || total_bytes > INT_MAX)
        return false;
    if (shape->root != -1 && (shape->root < 0 || shape->root >= st->size))
        return false; /* let the MPI library report the bad root */
    /* A non-blocking call never communicates to prepare (a private
     * duplicate or a layout found inside it could deadlock a correct
     * program: another rank may block elsewhere before its matching call),
     * so it runs natively until both are there. Whether they are depends
     * only on the collectives made before on the communicator: alike on
     * every rank. */
    if (nb && (!rt_nb_available() || st->priv == MPI_COMM_NULL ||
               (st->tabs.pending[shape->coll] && !rt_forced.forced[shape->coll] &&
                st->layout_state == 0)))
        return false;
    /* Rules that depend on the layout: learn it at the first call of the
     * collective (every rank of the call, as the table's need depends only
     * on the rules and the communicator size). */
    if (st->tabs.pending[shape->coll] && !rt_forced.forced[shape->coll])
        rt_tables_place(&st->tabs, shape->coll, st->size, rt_comm_layout(st));
    d = rt_decide_call(&st->tabs, shape->coll, bytes, &entry);
    if (d == NULL || d->alg == NULL || (d->alg->flags & ACCT_ALG_NATIVE) ||
        d->alg->coll != shape->coll)
        return false;
    shape->seg = d->segment_bytes == 0 ? 0 : (d->segment_bytes / elem ? d->segment_bytes / elem : 1);
    shape->fanout = d->fanout;
    if (d->alg->flags & ACCT_ALG_NODES) /* non-blocking: only a known layout (else the fallback) */
        shape->layout = !nb ? rt_comm_layout(st) : st->layout_state == 1 ? &st->layout : NULL;
    const struct acct_alg *alg = acct_alg_resolve(d->alg, shape);
    if (alg->flags & ACCT_ALG_NATIVE)
        return false;
    ch->alg = alg;
    ch->bytes = bytes;
    ch->fanout = d->fanout;
    ch->reorder = !nb && sack_choose(st, d, entry, shape, ch); /* SACK: blocking calls only */
    return true;
}

static bool same_call(const struct acct_call *a, const struct acct_call *b)
{
    return a->coll == b->coll && a->rank == b->rank && a->size == b->size &&
           a->root == b->root && a->count == b->count && a->scount == b->scount &&
           a->seg == b->seg && a->fanout == b->fanout && a->in_place == b->in_place &&
           a->commutative == b->commutative && a->layout == b->layout &&
           a->counts == NULL && b->counts == NULL;
}

/* The schedule of (alg, shape): a cached one, or built into the next slot.
 * NULL with *rc = RT_NATIVE if the builder declines (all ranks alike), or
 * MPI_ERR_NO_MEM. */
static const struct acct_sched *schedule(struct rt_comm *st, const struct acct_alg *alg,
                                         const struct acct_call *shape, int *rc)
{
    for (int i = 0; i < RT_SCHED_SLOTS; i++)
        if (st->cache[i].alg == alg && same_call(&st->cache[i].call, shape))
            return &st->cache[i].sched;
    struct rt_sched_slot *slot = &st->cache[st->victim];
    st->victim = (st->victim + 1) % RT_SCHED_SLOTS;
    slot->call = *shape;
    if (acct_alg_schedule(alg, shape, &slot->sched) != 0) {
        slot->alg = NULL;
        *rc = slot->sched.error ? MPI_ERR_NO_MEM : RT_NATIVE;
        return NULL;
    }
    /* A v-collective's shape includes its count arrays (the caller's, valid
     * for this call only): its schedule is built for each call, never
     * reused. */
    slot->alg = shape->counts == NULL ? alg : NULL;
    slot->call.counts = slot->call.displs = NULL;
    return &slot->sched;
}

/* Build (or reuse) and run; RT_NATIVE if the builder declines. */
static int run(struct rt_comm *st, const struct acct_alg *alg, const struct acct_call *shape,
               struct rt_bufs *b, MPI_Op op)
{
    int rc = MPI_SUCCESS;
    const struct acct_sched *sched = schedule(st, alg, shape, &rc);
    if (sched == NULL)
        return rc;
    MPI_Comm priv = rt_comm_priv(st);
    if (priv == MPI_COMM_NULL)
        return MPI_ERR_INTERN;
    return rt_exec(sched, b, op, priv, RT_TAG_SCHED, &st->scratch);
}

/* The SACK protocols (sack_colls), on the private communicator. */
static int sack_bcast(struct rt_comm *st, const struct acct_call *c, struct rt_choice *ch,
                      const struct rt_bufs *b, MPI_Op op, MPI_Comm priv)
{
    (void)op;
    return rt_sack_bcast_auto(b->base[ACCT_BUF_RECV], c->count, c->seg, c->root, &ch->tree, priv,
                              st->rank, &st->sack_auto, ch->site != NULL ? &ch->pr : NULL);
}

static int sack_scatter(struct rt_comm *st, const struct acct_call *c, struct rt_choice *ch,
                        const struct rt_bufs *b, MPI_Op op, MPI_Comm priv)
{
    (void)op;
    return rt_sack_scatter(b->base[ACCT_BUF_SEND], b->base[ACCT_BUF_RECV], c->count, c->root,
                           &ch->tree, priv, st->rank);
}

static int sack_gather(struct rt_comm *st, const struct acct_call *c, struct rt_choice *ch,
                       const struct rt_bufs *b, MPI_Op op, MPI_Comm priv)
{
    (void)op;
    return rt_sack_gather(b->base[ACCT_BUF_SEND], b->base[ACCT_BUF_RECV], c->count, c->root,
                          &ch->tree, priv, st->rank, ch->site != NULL ? &ch->pr : NULL);
}

static int sack_reduce(struct rt_comm *st, const struct acct_call *c, struct rt_choice *ch,
                       const struct rt_bufs *b, MPI_Op op, MPI_Comm priv)
{
    return rt_sack_reduce(b->base[ACCT_BUF_SEND], b->base[ACCT_BUF_RECV], (int)c->count,
                          b->type[ACCT_BUF_SEND], op, c->seg, c->root, &ch->tree, priv, st->rank,
                          ch->site != NULL ? &ch->pr : NULL);
}

/* Run the call with SACK reordering (ch->reorder), then end the automatic
 * mode's part of it (ch->site). */
static int run_sack(struct rt_comm *st, const struct acct_call *c, struct rt_choice *ch,
                    const struct rt_bufs *b, MPI_Op op)
{
    MPI_Comm priv = rt_comm_priv(st);
    if (priv == MPI_COMM_NULL)
        return MPI_ERR_INTERN;
    int rc = sack_colls[c->coll].run(st, c, ch, b, op, priv);
    if (ch->site != NULL && rc == MPI_SUCCESS)
        rt_sack_auto_end(&st->sack_auto, ch->site, &ch->pr, ch->bytes, st->rank == 0, st->size,
                         st->tabs.t[c->coll]);
    return rc;
}

/* What runs the chosen call: SACK reordering or alg's schedule. */
static int run_choice(struct rt_comm *st, const struct acct_call *c, struct rt_choice *ch,
                      struct rt_bufs *b, MPI_Op op)
{
    return ch->reorder ? run_sack(st, c, ch, b, op) : run(st, ch->alg, c, b, op);
}

/* A non-blocking call being posted (nb.h): where its request goes. */
struct rt_nb_post {
    MPI_Request *request;
};

/* What a non-blocking call hands over with its buffers: the packed views
 * (owned from here on) and, to unpack at completion, the user's receive
 * buffer. */
struct nb_views {
    struct rt_bytes *send, *recv;
    void *ubuf;
    uint64_t ucount;
    MPI_Datatype utype;
    bool unpack;
    MPI_Comm comm;
    struct rt_nb_blocks *blocks; /* a v-collective's receive blocks (owned from here on) */
};

/* The op's copy of a v-collective's receive blocks (nb.h): n blocks of
 * counts[i] x dt at displs[i] extents, at byte offs[i] of the packed view.
 * NULL with *rc = MPI_ERR_NO_MEM when out of memory. */
static struct rt_nb_blocks *nb_blocks(int n, const int *counts, const int *displs,
                                      MPI_Datatype dt, const uint64_t *offs, int *rc)
{
    MPI_Aint lb, extent;
    size_t ints = 2 * (size_t)n * sizeof(int), words = (size_t)n * sizeof(uint64_t);
    struct rt_nb_blocks *k = malloc(sizeof *k + words + ints);
    if (k == NULL || PMPI_Type_get_extent(dt, &lb, &extent) != MPI_SUCCESS) {
        free(k);
        *rc = k == NULL ? MPI_ERR_NO_MEM : MPI_ERR_TYPE;
        return NULL;
    }
    k->n = n;
    k->extent = extent;
    k->offs = (uint64_t *)(k + 1);
    k->counts = (int *)(k->offs + n);
    k->displs = k->counts + n;
    memcpy(k->offs, offs, words);
    memcpy(k->counts, counts, (size_t)n * sizeof(int));
    memcpy(k->displs, displs, (size_t)n * sizeof(int));
    return k;
}

/* A derived datatype the op keeps using after the call returned: its own
 * duplicate, as the application may free the original meanwhile (MPI
 * lets it). A predefined one as it is. */
static MPI_Datatype nb_keep_type(struct rt_nb_op *op, MPI_Datatype dt, int *rc)
{
    int ni, na, nd, combiner;
    if (dt == MPI_DATATYPE_NULL || *rc != MPI_SUCCESS ||
        PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) != MPI_SUCCESS ||
        combiner == MPI_COMBINER_NAMED)
        return dt;
    for (int i = 0; i < op->nkept; i++)
        if (op->kept_from[i] == dt)
            return op->kept[i];
    if (op->nkept == 2 || (*rc = PMPI_Type_dup(dt, &op->kept[op->nkept])) != MPI_SUCCESS) {
        if (*rc == MPI_SUCCESS)
            *rc = MPI_ERR_INTERN;
        return dt;
    }
    op->kept_from[op->nkept] = dt;
    return op->kept[op->nkept++];
}

/* The finishing step of a non-blocking call (nb.h): unpack the receive
 * view into the user's buffer, with the private duplicate as the
 * communicator (the application may have freed its own meanwhile; same
 * group and data representation). */
static int nb_finish(struct rt_nb_op *op, int rc)
{
    int pos = 0;
    MPI_Comm comm = op->run.comm != MPI_COMM_NULL ? op->run.comm : op->ucomm;
    const struct rt_nb_blocks *k = op->blocks;
    if (rc != MPI_SUCCESS || !op->unpack || op->pack[1] == NULL)
        return rc;
    if (k == NULL)
        return PMPI_Unpack(op->pack[1], (int)op->ubytes, &pos, op->ubuf, (int)op->ucount,
                           op->utype, comm);
    for (int i = 0; i < k->n && rc == MPI_SUCCESS; i++) {
        pos = (int)k->offs[i];
        rc = PMPI_Unpack(op->pack[1], (int)op->ubytes, &pos,
                         (char *)op->ubuf + (MPI_Aint)k->displs[i] * k->extent, k->counts[i],
                         op->utype, comm);
    }
    return rc;
}

/* ---- ACCT_ALG_ALL_COUNTS (binomial gatherv and scatterv) ----------------
 * The method reads every rank's count on every rank; only the root has
 * them. Once the call is decided for it (alike on every rank), the root's
 * byte counts are broadcast over the private communicator (binomial, 8 P
 * bytes, the call's tag) and the schedule is built from them. A rank whose
 * own block disagrees with the root's count for it (an erroneous program)
 * fails with MPI_ERR_TRUNCATE instead of reading past its buffer. */

static struct acct_call counts_shape(const struct acct_call *c)
{
    struct acct_call b = {.coll = ACCT_COLL_bcast, .rank = c->rank, .size = c->size,
                          .root = c->root, .count = 8 * (uint64_t)c->size,
                          .scount = 8 * (uint64_t)c->size};
    return b;
}

static const struct acct_alg *counts_alg(void)
{
    return acct_alg_find(ACCT_COLL_bcast, "binomial");
}

/* c's own block against the broadcast counts v (not at the root). */
static int counts_check(const struct acct_call *c, const uint64_t *v)
{
    if (c->rank == c->root)
        return MPI_SUCCESS;
    uint64_t own = c->coll == ACCT_COLL_gatherv ? c->scount : c->count;
    return v[c->rank] == own ? MPI_SUCCESS : MPI_ERR_TRUNCATE;
}

/* Blocking: broadcast the root's counts (c->counts at the root) into a
 * new array *out (the caller frees it) and point c->counts at it. */
static int counts_everywhere(struct rt_comm *st, struct acct_call *c, uint64_t **out)
{
    const size_t n = (size_t)c->size;
    uint64_t *v = malloc(n * sizeof *v);
    struct acct_call bc = counts_shape(c);
    struct rt_bufs b;
    int rc;
    *out = NULL;
    if (v == NULL)
        return MPI_ERR_NO_MEM;
    if (c->rank == c->root)
        memcpy(v, c->counts, n * sizeof *v);
    rt_bufs_init(&b);
    rt_bufs_set(&b, ACCT_BUF_RECV, v, MPI_BYTE);
    rc = run(st, counts_alg(), &bc, &b, MPI_OP_NULL);
    if (rc == RT_NATIVE)
        rc = MPI_ERR_INTERN; /* the binomial bcast builder never declines */
    if (rc == MPI_SUCCESS)
        rc = counts_check(c, v);
    if (rc != MPI_SUCCESS) {
        free(v);
        return rc;
    }
    c->counts = v;
    *out = v;
    return MPI_SUCCESS;
}

/* Non-blocking: the engine's next stage (nb.h), after the broadcast. */
static int nb_counts_then(struct rt_nb_op *op)
{
    struct acct_call c = op->shape;
    c.counts = op->counts;
    c.displs = c.rank == c.root ? op->counts + c.size : NULL;
    int rc = counts_check(&c, op->counts);
    if (rc == MPI_SUCCESS && acct_alg_schedule(op->alg, &c, &op->sched) != 0)
        rc = op->sched.error ? MPI_ERR_NO_MEM : MPI_ERR_INTERN;
    if (rc != MPI_SUCCESS)
        return rc;
    op->b = op->next_b;
    return rt_exec_begin(&op->run, &op->sched, &op->b, op->run.op, op->run.comm, op->run.tag,
                         &op->scratch);
}

/* Non-blocking: make the broadcast op's first stage (its schedule, its
 * buffer: op->counts, filled at the root with the counts and
 * displacements of shape), the call's buffers kept for nb_counts_then. */
static int nb_counts_stage(struct rt_nb_op *op, const struct acct_call *shape)
{
    const size_t n = (size_t)shape->size;
    struct acct_call bc = counts_shape(shape);
    op->counts = malloc(2 * n * sizeof *op->counts);
    if (op->counts == NULL)
        return MPI_ERR_NO_MEM;
    if (shape->rank == shape->root) {
        memcpy(op->counts, shape->counts, n * sizeof *op->counts);
        memcpy(op->counts + n, shape->displs, n * sizeof *op->counts);
    }
    op->shape = *shape;
    op->shape.counts = op->shape.displs = NULL; /* the caller's: set from op->counts later */
    op->next_b = op->b;
    rt_bufs_init(&op->b);
    rt_bufs_set(&op->b, ACCT_BUF_RECV, op->counts, MPI_BYTE);
    op->then = nb_counts_then;
    if (acct_alg_schedule(counts_alg(), &bc, &op->sched) != 0)
        return op->sched.error ? MPI_ERR_NO_MEM : MPI_ERR_INTERN;
    return MPI_SUCCESS;
}

/* Post the chosen call as a non-blocking collective: its own schedule,
 * buffers and scratch, its own tag, then the engine. RT_NATIVE if the
 * builder declines (all ranks alike; nothing happened). The packed views
 * of v belong to the op (or are freed) whatever happens. */
static int post_nb(struct rt_comm *st, const struct rt_choice *ch, const struct acct_call *shape,
                   const struct rt_bufs *b, MPI_Op mop, const struct nb_views *v,
                   const struct rt_nb_post *nb)
{
    struct rt_nb_op *op = rt_nb_new();
    int rc = MPI_SUCCESS;
    if (op == NULL) {
        if (v->send != NULL)
            free(v->send->packed);
        if (v->recv != NULL)
            free(v->recv->packed);
        free(v->blocks);
        return MPI_ERR_NO_MEM;
    }
    op->blocks = v->blocks;
    if (v->send != NULL)
        op->pack[0] = v->send->packed;
    if (v->recv != NULL) {
        op->pack[1] = v->recv->packed;
        op->ubytes = v->recv->n;
    }
    op->ubuf = v->ubuf;
    op->ucount = v->ucount;
    op->unpack = v->unpack && op->pack[1] != NULL;
    op->utype = op->unpack ? nb_keep_type(op, v->utype, &rc) : MPI_DATATYPE_NULL;
    op->ucomm = v->comm;
    op->b = *b;
    for (int i = 0; i < ACCT_BUF_COUNT; i++)
        op->b.type[i] = nb_keep_type(op, b->type[i], &rc);
    op->finish = nb_finish;
    op->coll = shape->coll;
    op->alg = ch->alg;
    if (rc == MPI_SUCCESS && (ch->alg->flags & ACCT_ALG_ALL_COUNTS))
        rc = nb_counts_stage(op, shape);
    else if (rc == MPI_SUCCESS && acct_alg_schedule(ch->alg, shape, &op->sched) != 0)
        rc = op->sched.error ? MPI_ERR_NO_MEM : RT_NATIVE;
    if (rc != MPI_SUCCESS) {
        rt_nb_discard(op);
        return rc;
    }
    op->st = st;
    rc = rt_exec_begin(&op->run, &op->sched, &op->b, mop, st->priv, rt_comm_nb_begin(st),
                       &op->scratch);
    if (rc != MPI_SUCCESS) {
        rt_comm_nb_done(st);
        rt_nb_discard(op);
        return rc;
    }
    op->t0 = rt_account_nb_call(shape->coll, ch->alg);
    return rt_nb_start(op, nb->request);
}

/* An error after the decision: through the error handler, as MPI would. */
static int failed(MPI_Comm comm, int rc)
{
    PMPI_Comm_call_errhandler(comm, rc);
    return rc;
}

/* The message bytes of a call, for samples only (0 unless the call is
 * timed, t0 != 0, while sampling). */
#define SAMPLE_BYTES(t0, count, dt) ((t0) != 0 && rt_samples_on ? rt_samples_bytes(count, dt) : 0)

/* The state of comm if anything but native can run coll on it, else NULL
 * (the fast path of every call that ACCT leaves to the MPI library). */
static struct rt_comm *candidate(MPI_Comm comm, enum acct_coll_id coll)
{
    struct rt_comm *st = rt_comm_get(comm);
    if (st == &rt_comm_unknown) /* out of memory: see unknown() */
        return rt_decide_possible(coll) ? st : NULL;
    return st != NULL && rt_decide_any(&st->tabs, coll) ? st : NULL;
}

/* No state for the communicator (out of memory on this rank), and the
 * agreed rules or ACCT_FORCE may send this call to an ACCT algorithm on the
 * other ranks: running natively here could deadlock them, so the call fails
 * through the error handler instead (MPI_ERR_NO_MEM), as the MPI library's
 * own collective would when out of memory. */
static bool unknown(const struct rt_comm *st)
{
    return st != NULL && st->unknown;
}

static struct acct_call shape_of(enum acct_coll_id coll, const struct rt_comm *st, int root)
{
    struct acct_call c = {.coll = coll, .rank = st ? st->rank : 0, .size = st ? st->size : 1,
                          .root = root};
    return c;
}

/* What ran: the choice, unless the call went native after all (rc). */
static void ran_choice(struct rt_ran *ran, const struct rt_choice *ch, uint64_t segment, int rc)
{
    if (rc == RT_NATIVE)
        return;
    ran->alg = ch->alg;
    ran->segment = segment;
    ran->fanout = ch->fanout;
    ran->reorder = ch->reorder;
}

/* Each do_* returns RT_NATIVE when it did not run the call (then nothing
 * happened), else the call's MPI result; *ran says what ran (the entry
 * point's zeroed *ran: native). */

static int do_barrier(MPI_Comm comm, struct rt_ran *ran, const struct rt_nb_post *nb)
{
    struct rt_comm *st = candidate(comm, ACCT_COLL_barrier);
    struct rt_choice ch;
    if (unknown(st))
        return failed(comm, MPI_ERR_NO_MEM);
    struct acct_call c = shape_of(ACCT_COLL_barrier, st, -1);
    struct rt_bufs b;
    rt_bufs_init(&b);
    struct nb_views nv = {.comm = comm};
    int rc = !choose(st, &c, 0, 1, 0, &ch, nb != NULL) ? RT_NATIVE
             : nb != NULL ? post_nb(st, &ch, &c, &b, MPI_OP_NULL, &nv, nb)
                          : run_choice(st, &c, &ch, &b, MPI_OP_NULL);
    ran_choice(ran, &ch, 0, rc);
    return rc == MPI_SUCCESS || rc == RT_NATIVE ? rc : failed(comm, rc);
}

static int do_bcast(void *buffer, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                    struct rt_ran *ran, const struct rt_nb_post *nb)
{
    struct rt_comm *st = candidate(comm, ACCT_COLL_bcast);
    struct acct_call c = shape_of(ACCT_COLL_bcast, st, root);
    uint64_t size, bytes;
    struct rt_choice ch;
    struct rt_bytes v;
    struct rt_bufs b;
    int rc, rc2;

    if (unknown(st))
        return failed(comm, MPI_ERR_NO_MEM);
    if (st == NULL || count < 0 || type_size(dt, &size) != 0)
        return RT_NATIVE;
    bytes = (uint64_t)count * size;
    c.count = c.scount = bytes;
    if (!choose(st, &c, bytes, 1, bytes, &ch, nb != NULL))
        return RT_NATIVE;
    rc = bytes_open(buffer, (uint64_t)count, dt, st->rank == root, comm, &v);
    if (rc != MPI_SUCCESS)
        return failed(comm, rc);
    rt_bufs_init(&b);
    rt_bufs_set(&b, ACCT_BUF_RECV, v.ptr, MPI_BYTE);
    if (nb != NULL) {
        struct nb_views nv = {.recv = &v, .ubuf = buffer, .ucount = (uint64_t)count, .utype = dt,
                              .unpack = st->rank != root, .comm = comm};
        rc = post_nb(st, &ch, &c, &b, MPI_OP_NULL, &nv, nb);
        ran_choice(ran, &ch, c.seg, rc);
        return rc == MPI_SUCCESS || rc == RT_NATIVE ? rc : failed(comm, rc);
    }
    rc = run_choice(st, &c, &ch, &b, MPI_OP_NULL);
    rc2 = bytes_close(&v, buffer, (uint64_t)count, dt, rc == MPI_SUCCESS && st->rank != root, comm);
    ran_choice(ran, &ch, c.seg, rc);
    if (rc == RT_NATIVE)
        return rc;
    if (rc == MPI_SUCCESS)
        rc = rc2;
    return rc == MPI_SUCCESS ? rc : failed(comm, rc);
}

/* reduce, allreduce, reduce_scatter_block, scan, exscan: elements of dt. */
static int do_reduction(enum acct_coll_id coll, const void *sbuf, void *rbuf, int count,
                        MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
                        struct rt_ran *ran, const struct rt_nb_post *nb)
{
    struct rt_comm *st = candidate(comm, coll);
    struct acct_call c = shape_of(coll, st, root);
    uint64_t size;
    int commute = 0;
    struct rt_choice ch;
    struct rt_bufs b;

    if (unknown(st))
        return failed(comm, MPI_ERR_NO_MEM);
    if (st == NULL || count < 0 || type_size(dt, &size) != 0 ||
        PMPI_Op_commutative(op, &commute) != MPI_SUCCESS)
        return RT_NATIVE;
    bool has_recv = coll != ACCT_COLL_reduce || st->rank == root;
    uint64_t nblocks = coll == ACCT_COLL_reduce_scatter_block ? (uint64_t)st->size : 1;
    c.count = c.scount = (uint64_t)count;
    c.commutative = commute != 0;
    c.in_place = has_recv && sbuf == MPI_IN_PLACE;
    if (!choose(st, &c, (uint64_t)count * size, size ? size : 1, (uint64_t)count * size * nblocks,
                &ch, nb != NULL))
        return RT_NATIVE;
    rt_bufs_init(&b);
    rt_bufs_set(&b, ACCT_BUF_SEND, c.in_place ? NULL : sbuf, dt);
    rt_bufs_set(&b, ACCT_BUF_RECV, has_recv ? rbuf : NULL, dt);
    struct nb_views nv = {.comm = comm};
    int rc = nb != NULL ? post_nb(st, &ch, &c, &b, op, &nv, nb) : run_choice(st, &c, &ch, &b, op);
    ran_choice(ran, &ch, c.seg * size, rc);
    if (rc == RT_NATIVE)
        return rc;
    return rc == MPI_SUCCESS ? rc : failed(comm, rc);
}

/* gather, scatter, allgather, alltoall: blocks of bytes. */
struct blocks_call {
    enum acct_coll_id coll;
    const void *sbuf;
    int scount;
    MPI_Datatype stype;
    void *rbuf;
    int rcount;
    MPI_Datatype rtype;
    int root;
    MPI_Comm comm;
};

static int do_blocks(const struct blocks_call *k, struct rt_ran *ran, const struct rt_nb_post *nb)
{
    struct rt_comm *st = candidate(k->comm, k->coll);
    struct acct_call c = shape_of(k->coll, st, k->root);
    uint64_t ssize = 0, rsize = 0, block;
    /* blocks in this rank's send/receive buffer (0: not significant or
     * MPI_IN_PLACE); fill_recv: it holds input; unpack_recv: output */
    int send_blocks = 0, recv_blocks = 0, fill_recv = 0, unpack_recv = 0;
    struct rt_bytes sv = {0}, rv = {0};
    struct rt_choice ch;
    struct rt_bufs b;
    int rc, rc2;

    if (unknown(st))
        return failed(k->comm, MPI_ERR_NO_MEM);
    if (st == NULL)
        return RT_NATIVE;
    const int p = st->size;
    const bool root = st->rank == k->root;
    switch (k->coll) {
    case ACCT_COLL_gather:
        c.in_place = root && k->sbuf == MPI_IN_PLACE;
        send_blocks = c.in_place ? 0 : 1;
        recv_blocks = root ? p : 0;
        fill_recv = c.in_place;
        unpack_recv = root;
        break;
    case ACCT_COLL_scatter:
        c.in_place = root && k->rbuf == MPI_IN_PLACE;
        send_blocks = root ? p : 0;
        recv_blocks = c.in_place ? 0 : 1;
        unpack_recv = !c.in_place;
        break;
    case ACCT_COLL_allgather:
        c.in_place = k->sbuf == MPI_IN_PLACE;
        send_blocks = c.in_place ? 0 : 1;
        recv_blocks = p;
        fill_recv = c.in_place;
        unpack_recv = 1;
        break;
    case ACCT_COLL_alltoall:
        if (k->sbuf == MPI_IN_PLACE)
            return RT_NATIVE;
        send_blocks = recv_blocks = p;
        unpack_recv = 1;
        break;
    default:
        return RT_NATIVE;
    }
    /* Only the arguments MPI-3.1 section 5 makes significant on this rank
     * are read (a program may pass -1 and MPI_DATATYPE_NULL elsewhere):
     * the send side where send_blocks says so, the receive side where
     * recv_blocks does. A negative count there is the program's error,
     * which the MPI library reports. */
    if ((send_blocks && (k->scount < 0 || type_size(k->stype, &ssize) != 0)) ||
        (recv_blocks && (k->rcount < 0 || type_size(k->rtype, &rsize) != 0)))
        return RT_NATIVE;
    /* The block size every rank agrees on (equal type signatures). */
    block = send_blocks ? (uint64_t)k->scount * ssize : (uint64_t)k->rcount * rsize;
    c.count = c.scount = block;
    if (!choose(st, &c, block, 1, block * (uint64_t)p, &ch, nb != NULL))
        return RT_NATIVE;
    rc = send_blocks ? bytes_open(k->sbuf, (uint64_t)k->scount * (uint64_t)send_blocks, k->stype, 1,
                                  k->comm, &sv)
                     : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && recv_blocks)
        rc = bytes_open(k->rbuf, (uint64_t)k->rcount * (uint64_t)recv_blocks, k->rtype, fill_recv,
                        k->comm, &rv);
    if (rc == MPI_SUCCESS && nb != NULL) {
        struct nb_views nv = {.send = &sv, .recv = &rv, .ubuf = k->rbuf,
                              .ucount = (uint64_t)k->rcount * (uint64_t)recv_blocks,
                              .utype = k->rtype, .unpack = unpack_recv, .comm = k->comm};
        rt_bufs_init(&b);
        rt_bufs_set(&b, ACCT_BUF_SEND, sv.ptr, MPI_BYTE);
        rt_bufs_set(&b, ACCT_BUF_RECV, rv.ptr, MPI_BYTE);
        rc = post_nb(st, &ch, &c, &b, MPI_OP_NULL, &nv, nb); /* the views are the op's now */
        ran_choice(ran, &ch, c.seg, rc);
        return rc == MPI_SUCCESS || rc == RT_NATIVE ? rc : failed(k->comm, rc);
    }
    if (rc == MPI_SUCCESS) {
        rt_bufs_init(&b);
        rt_bufs_set(&b, ACCT_BUF_SEND, sv.ptr, MPI_BYTE);
        rt_bufs_set(&b, ACCT_BUF_RECV, rv.ptr, MPI_BYTE);
        rc = run_choice(st, &c, &ch, &b, MPI_OP_NULL);
    }
    rc2 = bytes_close(&rv, k->rbuf, (uint64_t)k->rcount * (uint64_t)recv_blocks, k->rtype,
                      rc == MPI_SUCCESS && unpack_recv, k->comm);
    bytes_close(&sv, NULL, 0, k->stype, 0, k->comm);
    ran_choice(ran, &ch, c.seg, rc);
    if (rc == RT_NATIVE)
        return rc;
    if (rc == MPI_SUCCESS)
        rc = rc2;
    return rc == MPI_SUCCESS ? rc : failed(k->comm, rc);
}

/* ---- v-collectives ---------------------------------------------------------
 * allgatherv and reduce_scatter: every rank has every rank's count, so the
 * sum over all ranks (in bytes) is alike everywhere; the decision's key is
 * that sum / P, rounded down: the average block, which is allgather's and
 * reduce_scatter_block's m for a uniform call (docs/rules.md, "What
 * message bytes means"). The count arrays become the
 * shape's counts/displs (acct/alg.h), built after the decision: an
 * allocation failure there is this rank's alone and is reported as an MPI
 * error, never turned into a native run (rule 1). */

/* allgatherv: blocks of bytes. A receive type whose data is contiguous
 * (true extent = size = extent) is used in place, block i at byte
 * displs[i] x size; any other goes through a packed buffer with the blocks
 * back to back (the own block packed first when in place), unpacked block
 * by block after the run. */
static int do_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                         const int *rcounts, const int *displs, MPI_Datatype rtype,
                         MPI_Comm comm, struct rt_ran *ran, const struct rt_nb_post *nb)
{
    struct rt_comm *st = candidate(comm, ACCT_COLL_allgatherv);
    struct acct_call c = shape_of(ACCT_COLL_allgatherv, st, -1);
    uint64_t rsize, ssize = 0, total = 0, *arr = NULL;
    MPI_Aint lb, extent, tlb, textent;
    struct rt_bytes sv = {0};
    struct rt_choice ch;
    struct rt_bufs b;
    char *packed = NULL, *rptr;
    int rc = MPI_SUCCESS, rc2 = MPI_SUCCESS;

    if (unknown(st))
        return failed(comm, MPI_ERR_NO_MEM);
    if (st == NULL || st->inter || rcounts == NULL || displs == NULL ||
        type_size(rtype, &rsize) != 0 ||
        PMPI_Type_get_extent(rtype, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(rtype, &tlb, &textent) != MPI_SUCCESS)
        return RT_NATIVE;
    const int p = st->size, me = st->rank;
    for (int i = 0; i < p; i++) {
        if (rcounts[i] < 0)
            return RT_NATIVE; /* the program's error: the MPI library reports it */
        total += (uint64_t)rcounts[i] * rsize;
    }
    c.in_place = sbuf == MPI_IN_PLACE;
    if (!c.in_place && (scount < 0 || type_size(stype, &ssize) != 0))
        return RT_NATIVE;
    c.count = total;
    c.scount = (uint64_t)rcounts[me] * rsize;
    if (!choose(st, &c, total / (uint64_t)p, 1, total, &ch, nb != NULL))
        return RT_NATIVE;
    const bool contig = (uint64_t)textent == rsize && (uint64_t)extent == rsize;
    arr = malloc(2 * (size_t)p * sizeof *arr);
    if (arr == NULL)
        return failed(comm, MPI_ERR_NO_MEM);
    uint64_t at = 0;
    for (int i = 0; i < p; i++) {
        arr[i] = (uint64_t)rcounts[i] * rsize;
        arr[p + i] = contig ? (uint64_t)displs[i] * rsize : at;
        at += arr[i];
    }
    c.counts = arr;
    c.displs = arr + p;
    rptr = (char *)rbuf + tlb;
    if (!contig) {
        packed = malloc(total ? total : 1);
        rptr = packed;
        if (packed == NULL)
            rc = MPI_ERR_NO_MEM;
        else if (c.in_place) {
            int pos = (int)c.displs[me];
            rc = PMPI_Pack((char *)rbuf + (MPI_Aint)displs[me] * extent, rcounts[me], rtype,
                           packed, (int)total, &pos, comm);
        }
    }
    if (rc == MPI_SUCCESS && !c.in_place)
        rc = bytes_open(sbuf, (uint64_t)scount, stype, 1, comm, &sv);
    if (rc == MPI_SUCCESS) {
        rt_bufs_init(&b);
        rt_bufs_set(&b, ACCT_BUF_SEND, sv.ptr, MPI_BYTE);
        rt_bufs_set(&b, ACCT_BUF_RECV, rptr, MPI_BYTE);
    }
    /* non-blocking: the schedule is built at the post, from the counts
     * read now; the packed views and the blocks to unpack go to the op */
    struct rt_nb_blocks *blocks = NULL;
    if (rc == MPI_SUCCESS && nb != NULL && packed != NULL)
        blocks = nb_blocks(p, rcounts, displs, rtype, c.displs, &rc);
    if (rc == MPI_SUCCESS && nb != NULL) {
        struct rt_bytes rv = {.ptr = rptr, .n = total, .packed = packed};
        struct nb_views nv = {.send = &sv, .recv = &rv, .ubuf = rbuf, .utype = rtype,
                              .unpack = packed != NULL, .comm = comm, .blocks = blocks};
        rc = post_nb(st, &ch, &c, &b, MPI_OP_NULL, &nv, nb);
        free(arr);
        ran_choice(ran, &ch, c.seg, rc);
        return rc == MPI_SUCCESS || rc == RT_NATIVE ? rc : failed(comm, rc);
    }
    if (rc == MPI_SUCCESS)
        rc = run_choice(st, &c, &ch, &b, MPI_OP_NULL);
    if (rc == MPI_SUCCESS && packed != NULL)
        for (int i = 0; i < p && rc2 == MPI_SUCCESS; i++) {
            int pos = (int)c.displs[i];
            rc2 = PMPI_Unpack(packed, (int)total, &pos, (char *)rbuf + (MPI_Aint)displs[i] * extent,
                              rcounts[i], rtype, comm);
        }
    bytes_close(&sv, NULL, 0, stype, 0, comm);
    free(packed);
    free(arr);
    ran_choice(ran, &ch, c.seg, rc);
    if (rc == RT_NATIVE)
        return rc;
    if (rc == MPI_SUCCESS)
        rc = rc2;
    return rc == MPI_SUCCESS ? rc : failed(comm, rc);
}

/* reduce_scatter: elements of dt (the same on every rank, as are the
 * counts); block i starts at the sum of counts before it. */
static int do_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm, struct rt_ran *ran,
                             const struct rt_nb_post *nb)
{
    struct rt_comm *st = candidate(comm, ACCT_COLL_reduce_scatter);
    struct acct_call c = shape_of(ACCT_COLL_reduce_scatter, st, -1);
    uint64_t size, total = 0, *arr;
    int commute = 0;
    struct rt_choice ch;
    struct rt_bufs b;

    if (unknown(st))
        return failed(comm, MPI_ERR_NO_MEM);
    if (st == NULL || st->inter || rcounts == NULL || type_size(dt, &size) != 0 ||
        PMPI_Op_commutative(op, &commute) != MPI_SUCCESS)
        return RT_NATIVE;
    const int p = st->size;
    for (int i = 0; i < p; i++) {
        if (rcounts[i] < 0)
            return RT_NATIVE;
        total += (uint64_t)rcounts[i];
    }
    c.count = total;
    c.scount = (uint64_t)rcounts[st->rank];
    c.commutative = commute != 0;
    c.in_place = sbuf == MPI_IN_PLACE;
    if (!choose(st, &c, total * size / (uint64_t)p, size ? size : 1, total * size, &ch,
                nb != NULL))
        return RT_NATIVE;
    arr = malloc(2 * (size_t)p * sizeof *arr);
    if (arr == NULL)
        return failed(comm, MPI_ERR_NO_MEM);
    uint64_t at = 0;
    for (int i = 0; i < p; i++) {
        arr[i] = (uint64_t)rcounts[i];
        arr[p + i] = at;
        at += arr[i];
    }
    c.counts = arr;
    c.displs = arr + p;
    rt_bufs_init(&b);
    rt_bufs_set(&b, ACCT_BUF_SEND, c.in_place ? NULL : sbuf, dt);
    rt_bufs_set(&b, ACCT_BUF_RECV, rbuf, dt);
    struct nb_views nv = {.comm = comm};
    int rc = nb != NULL ? post_nb(st, &ch, &c, &b, op, &nv, nb) : run_choice(st, &c, &ch, &b, op);
    free(arr); /* a non-blocking call's schedule is built: the counts are read */
    ran_choice(ran, &ch, c.seg * size, rc);
    if (rc == RT_NATIVE)
        return rc;
    return rc == MPI_SUCCESS ? rc : failed(comm, rc);
}

/* gatherv, scatterv, alltoallv: the ranks do not know the call's bytes
 * alike (only the root has the counts; each rank only its own row), so the
 * decision is taken with message bytes 0, i.e. from the communicator size
 * alone; rules files cannot give these collectives byte ranges
 * (acct_coll_bytes_alike, the rules validator). Every check made before
 * the decision is one every rank makes alike (the root is valid, the
 * communicator runs ACCT); anything rank-local after it (a negative count,
 * a buffer beyond 2 GiB, out of memory) is reported as an MPI error, never
 * turned into a native run on one rank (rule 1). */

/* The byte view of n blocks of dt (counts[i] elements at displs[i]
 * extents from buf): a type whose data is contiguous is used in place,
 * block i at byte displs[i] x size; any other is packed back to back.
 * bc/bd receive each block's bytes and byte offset in the view. fill:
 * pack the blocks' data (else the packed buffer's content is undefined). */
struct rt_vbytes {
    char *ptr;
    void *packed; /* owned */
    uint64_t total;
};

static int vbytes_open(const void *buf, const int *counts, const int *displs, MPI_Datatype dt,
                       int n, int fill, MPI_Comm comm, uint64_t *bc, uint64_t *bd,
                       struct rt_vbytes *v)
{
    MPI_Aint lb, extent, tlb, textent;
    uint64_t size;
    v->packed = NULL;
    v->ptr = NULL;
    v->total = 0;
    if (type_size(dt, &size) != 0 || PMPI_Type_get_extent(dt, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(dt, &tlb, &textent) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    const bool contig = (uint64_t)textent == size && (uint64_t)extent == size;
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0)
            return MPI_ERR_COUNT;
        bc[i] = (uint64_t)counts[i] * size;
        bd[i] = contig ? (uint64_t)displs[i] * size : v->total;
        v->total += bc[i]; /* a negative displacement wraps, and wraps back in the executor */
    }
    if (v->total > INT_MAX)
        return MPI_ERR_COUNT;
    if (contig) {
        v->ptr = (char *)(uintptr_t)buf + tlb;
        return MPI_SUCCESS;
    }
    v->packed = malloc(v->total ? v->total : 1);
    if (v->packed == NULL)
        return MPI_ERR_NO_MEM;
    v->ptr = v->packed;
    int rc = MPI_SUCCESS;
    for (int i = 0; fill && i < n && rc == MPI_SUCCESS; i++) {
        int pos = (int)bd[i];
        rc = PMPI_Pack((const char *)buf + (MPI_Aint)displs[i] * extent, counts[i], dt, v->packed,
                       (int)v->total, &pos, comm);
    }
    return rc;
}

/* Unpack (when asked) and free the view. */
static int vbytes_close(struct rt_vbytes *v, void *buf, const int *counts, const int *displs,
                        MPI_Datatype dt, int n, int unpack, MPI_Comm comm, const uint64_t *bd)
{
    int rc = MPI_SUCCESS;
    MPI_Aint lb, extent;
    if (v->packed != NULL && unpack && PMPI_Type_get_extent(dt, &lb, &extent) == MPI_SUCCESS)
        for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
            int pos = (int)bd[i];
            rc = PMPI_Unpack(v->packed, (int)v->total, &pos,
                             (char *)buf + (MPI_Aint)displs[i] * extent, counts[i], dt, comm);
        }
    free(v->packed);
    v->packed = NULL;
    return rc;
}

/* The end of a call that was decided for ACCT: what ran, the result
 * through the error handler. */
static int v_done(MPI_Comm comm, struct rt_ran *ran, const struct rt_choice *ch, int rc, int rc2)
{
    ran_choice(ran, ch, 0, rc);
    if (rc == RT_NATIVE)
        return rc;
    if (rc == MPI_SUCCESS)
        rc = rc2;
    return rc == MPI_SUCCESS ? rc : failed(comm, rc);
}

/* gatherv (scatter 0) and scatterv (scatter 1). */
struct rooted_v {
    const void *sbuf;
    const int *scounts, *sdispls; /* scatterv's root */
    int scount;                   /* gatherv */
    MPI_Datatype stype;
    void *rbuf;
    const int *rcounts, *rdispls; /* gatherv's root */
    int rcount;                   /* scatterv */
    MPI_Datatype rtype;
    int root;
    MPI_Comm comm;
};

static int do_rooted_v(enum acct_coll_id coll, const struct rooted_v *k, struct rt_ran *ran,
                       const struct rt_nb_post *nb)
{
    struct rt_comm *st = candidate(k->comm, coll);
    struct acct_call c = shape_of(coll, st, k->root);
    struct rt_vbytes all = {0};
    struct rt_bytes one = {0};
    struct rt_choice ch;
    struct rt_bufs b;
    uint64_t *arr = NULL, size = 0;
    int rc = MPI_SUCCESS, rc2 = MPI_SUCCESS;
    const bool gv = coll == ACCT_COLL_gatherv;

    if (unknown(st))
        return failed(k->comm, MPI_ERR_NO_MEM);
    if (st == NULL || st->inter)
        return RT_NATIVE;
    if (!choose(st, &c, 0, 1, 0, &ch, nb != NULL))
        return RT_NATIVE;
    const int p = st->size;
    const bool root = st->rank == k->root;
    /* gatherv: the root's receive side is all blocks, the own block is the
     * send side (MPI_IN_PLACE: already in place at the root); scatterv the
     * mirror image */
    c.in_place = root && (gv ? k->sbuf == MPI_IN_PLACE : k->rbuf == MPI_IN_PLACE);
    rt_bufs_init(&b);
    if (root) {
        arr = malloc(2 * (size_t)p * sizeof *arr);
        if (arr == NULL)
            rc = MPI_ERR_NO_MEM;
        else if (gv)
            rc = vbytes_open(k->rbuf, k->rcounts, k->rdispls, k->rtype, p, c.in_place, k->comm,
                             arr, arr + p, &all);
        else
            rc = vbytes_open(k->sbuf, k->scounts, k->sdispls, k->stype, p, 1, k->comm, arr,
                             arr + p, &all);
        c.counts = arr;
        c.displs = arr != NULL ? arr + p : NULL;
        rt_bufs_set(&b, gv ? ACCT_BUF_RECV : ACCT_BUF_SEND, all.ptr, MPI_BYTE);
    }
    if (rc == MPI_SUCCESS && !c.in_place) {
        int n = gv ? k->scount : k->rcount;
        MPI_Datatype t = gv ? k->stype : k->rtype;
        if (n < 0)
            rc = MPI_ERR_COUNT;
        else if (type_size(t, &size) != 0)
            rc = MPI_ERR_TYPE;
        else if ((uint64_t)n * size > INT_MAX)
            rc = MPI_ERR_COUNT;
        else
            rc = bytes_open(gv ? k->sbuf : k->rbuf, (uint64_t)n, t, gv, k->comm, &one);
        if (gv)
            c.scount = (uint64_t)n * size;
        else
            c.count = (uint64_t)n * size;
        rt_bufs_set(&b, gv ? ACCT_BUF_SEND : ACCT_BUF_RECV, one.ptr, MPI_BYTE);
    }
    uint64_t *everyone = NULL; /* ACCT_ALG_ALL_COUNTS, blocking: the root's counts */
    if (rc == MPI_SUCCESS && nb == NULL && (ch.alg->flags & ACCT_ALG_ALL_COUNTS))
        rc = counts_everywhere(st, &c, &everyone);
    if (rc == MPI_SUCCESS && nb != NULL) {
        /* non-blocking: the schedule is built at the post; the views go to
         * the op, with what to unpack at completion: gatherv's root its
         * blocks (a copy of its counts), scatterv's non-in-place ranks
         * their own block */
        struct rt_bytes av = {.ptr = all.ptr, .n = all.total, .packed = all.packed};
        struct nb_views nv = {.send = gv ? &one : &av, .recv = gv ? &av : &one, .comm = k->comm};
        if (gv && root && all.packed != NULL)
            nv.blocks = nb_blocks(p, k->rcounts, k->rdispls, k->rtype, arr + p, &rc);
        if (gv) {
            nv.ubuf = k->rbuf;
            nv.utype = k->rtype;
            nv.unpack = root && all.packed != NULL;
        } else {
            nv.ubuf = k->rbuf;
            nv.ucount = c.in_place ? 0 : (uint64_t)k->rcount;
            nv.utype = k->rtype;
            nv.unpack = !c.in_place;
        }
        if (rc == MPI_SUCCESS) {
            rc = post_nb(st, &ch, &c, &b, MPI_OP_NULL, &nv, nb);
            free(arr);
            return v_done(k->comm, ran, &ch, rc, MPI_SUCCESS);
        }
    }
    if (rc == MPI_SUCCESS)
        rc = run_choice(st, &c, &ch, &b, MPI_OP_NULL);
    if (root && gv)
        rc2 = vbytes_close(&all, k->rbuf, k->rcounts, k->rdispls, k->rtype, p, rc == MPI_SUCCESS,
                           k->comm, arr + p);
    else if (root)
        vbytes_close(&all, NULL, NULL, NULL, k->stype, p, 0, k->comm, NULL);
    free(everyone);
    if (!c.in_place) {
        int n = gv ? k->scount : k->rcount;
        int r3 = bytes_close(&one, gv ? NULL : k->rbuf, n < 0 ? 0 : (uint64_t)n,
                             gv ? k->stype : k->rtype, !gv && rc == MPI_SUCCESS, k->comm);
        rc2 = rc2 == MPI_SUCCESS ? r3 : rc2;
    }
    free(arr);
    return v_done(k->comm, ran, &ch, rc, rc2);
}

static int do_alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype,
                        void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype,
                        MPI_Comm comm, struct rt_ran *ran, const struct rt_nb_post *nb)
{
    struct rt_comm *st = candidate(comm, ACCT_COLL_alltoallv);
    struct acct_call c = shape_of(ACCT_COLL_alltoallv, st, -1);
    struct rt_vbytes sv = {0}, rv = {0};
    struct rt_choice ch;
    struct rt_bufs b;
    uint64_t *arr;
    int rc, rc2;

    if (unknown(st))
        return failed(comm, MPI_ERR_NO_MEM);
    /* MPI_IN_PLACE is given by every rank alike: native, as alltoall's */
    if (st == NULL || st->inter || sbuf == MPI_IN_PLACE)
        return RT_NATIVE;
    if (!choose(st, &c, 0, 1, 0, &ch, nb != NULL))
        return RT_NATIVE;
    const int p = st->size;
    arr = malloc(4 * (size_t)p * sizeof *arr);
    if (arr == NULL)
        return v_done(comm, ran, &ch, MPI_ERR_NO_MEM, MPI_SUCCESS);
    c.scounts = arr;
    c.sdispls = arr + p;
    c.counts = arr + 2 * p;
    c.displs = arr + 3 * p;
    rc = vbytes_open(sbuf, scounts, sdispls, stype, p, 1, comm, arr, arr + p, &sv);
    if (rc == MPI_SUCCESS)
        rc = vbytes_open(rbuf, rcounts, rdispls, rtype, p, 0, comm, arr + 2 * p, arr + 3 * p, &rv);
    if (rc == MPI_SUCCESS) {
        rt_bufs_init(&b);
        rt_bufs_set(&b, ACCT_BUF_SEND, sv.ptr, MPI_BYTE);
        rt_bufs_set(&b, ACCT_BUF_RECV, rv.ptr, MPI_BYTE);
    }
    struct rt_nb_blocks *blocks = NULL;
    if (rc == MPI_SUCCESS && nb != NULL && rv.packed != NULL)
        blocks = nb_blocks(p, rcounts, rdispls, rtype, arr + 3 * p, &rc);
    if (rc == MPI_SUCCESS && nb != NULL) { /* as allgatherv's */
        struct rt_bytes s1 = {.ptr = sv.ptr, .n = sv.total, .packed = sv.packed};
        struct rt_bytes r1 = {.ptr = rv.ptr, .n = rv.total, .packed = rv.packed};
        struct nb_views nv = {.send = &s1, .recv = &r1, .ubuf = rbuf, .utype = rtype,
                              .unpack = rv.packed != NULL, .comm = comm, .blocks = blocks};
        rc = post_nb(st, &ch, &c, &b, MPI_OP_NULL, &nv, nb);
        free(arr);
        return v_done(comm, ran, &ch, rc, MPI_SUCCESS);
    }
    if (rc == MPI_SUCCESS)
        rc = run_choice(st, &c, &ch, &b, MPI_OP_NULL);
    rc2 = vbytes_close(&rv, rbuf, rcounts, rdispls, rtype, p, rc == MPI_SUCCESS, comm, arr + 3 * p);
    vbytes_close(&sv, NULL, NULL, NULL, stype, p, 0, comm, NULL);
    free(arr);
    return v_done(comm, ran, &ch, rc, rc2);
}

/* The entry points: run ACCT's choice or the native collective, account. */

int rt_impl_Barrier(MPI_Comm comm)
{
    uint64_t t0 = rt_account_begin();
    struct rt_ran ran = {.bytes = 0};
    int rc = do_barrier(comm, &ran, NULL);
    if (rc == RT_NATIVE)
        rc = PMPI_Barrier(comm);
    rt_account_call(ACCT_COLL_barrier, &ran, comm, t0);
    return rc;
}

int rt_impl_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    uint64_t t0 = rt_account_begin();
    struct rt_ran ran = {.bytes = SAMPLE_BYTES(t0, count, datatype)};
    int rc = do_bcast(buffer, count, datatype, root, comm, &ran, NULL);
    if (rc == RT_NATIVE)
        rc = PMPI_Bcast(buffer, count, datatype, root, comm);
    rt_account_call(ACCT_COLL_bcast, &ran, comm, t0);
    return rc;
}

int rt_impl_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   int root, MPI_Comm comm)
{
    uint64_t t0 = rt_account_begin();
    struct rt_ran ran = {.bytes = SAMPLE_BYTES(t0, count, datatype)};
    int rc = do_reduction(ACCT_COLL_reduce, sendbuf, recvbuf, count, datatype, op, root, comm, &ran,
                          NULL);
    if (rc == RT_NATIVE)
        rc = PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    rt_account_call(ACCT_COLL_reduce, &ran, comm, t0);
    return rc;
}

int rt_impl_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm)
{
    uint64_t t0 = rt_account_begin();
    struct rt_ran ran = {.bytes = SAMPLE_BYTES(t0, count, datatype)};
    int rc = do_reduction(ACCT_COLL_allreduce, sendbuf, recvbuf, count, datatype, op, -1, comm, &ran,
                          NULL);
    if (rc == RT_NATIVE)
        rc = PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    rt_account_call(ACCT_COLL_allreduce, &ran, comm, t0);
    return rc;
}

int rt_impl_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    uint64_t t0 = rt_account_begin();
    struct rt_ran ran = {.bytes = SAMPLE_BYTES(t0, recvcount, datatype)};
    int rc = do_reduction(ACCT_COLL_reduce_scatter_block, sendbuf, recvbuf, recvcount, datatype, op,
                          -1, comm, &ran, NULL);
    if (rc == RT_NATIVE)
        rc = PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
    rt_account_call(ACCT_COLL_reduce_scatter_block, &ran, comm, t0);
    return rc;
}

int rt_impl_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm)
{
    uint64_t t0 = rt_account_begin();
    struct rt_ran ran = {.bytes = SAMPLE_BYTES(t0, count, datatype)};
    int rc = do_reduction(ACCT_COLL_scan, sendbuf, recvbuf, count, datatype, op, -1, comm, &ran,
                          NULL);
    if (rc == RT_NATIVE)
        rc = PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
    rt_account_call(ACCT_COLL_scan, &ran, comm, t0);
    return rc;
}

int rt_impl_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm)
{
    uint64_t t0 = rt_account_begin();
    struct rt_ran ran = {.bytes = SAMPLE_BYTES(t0, count, datatype)};
    int rc = do_reduction(ACCT_COLL_exscan, sendbuf, recvbuf, count, datatype, op, -1, comm, &ran,
                          NULL);
    if (rc == RT_NATIVE)
        rc = PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm);
    rt_account_call(ACCT_COLL_exscan, &ran, comm, t0);
    return rc;
}

#define BLOCKS_ENTRY(Name, lower, rootarg, native_call)                                            \
    {                                                                                              \
        uint64_t t0 = rt_account_begin();                                                          \
        struct rt_ran ran = {.bytes = t0 && rt_samples_on ? rt_samples_block_bytes(               \
                                 ACCT_COLL_##lower, sendbuf, sendcount, sendtype, recvbuf,         \
                                 recvcount, recvtype) : 0};                                        \
        struct blocks_call k = {ACCT_COLL_##lower, sendbuf, sendcount, sendtype, recvbuf,          \
                                recvcount, recvtype, rootarg, comm};                               \
        int rc = do_blocks(&k, &ran, NULL);                                                            \
        if (rc == RT_NATIVE)                                                                       \
            rc = native_call;                                                                      \
        rt_account_call(ACCT_COLL_##lower, &ran, comm, t0);                                                \
        return rc;                                                                                 \
    }

int rt_impl_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
BLOCKS_ENTRY(Gather, gather, root,
             PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))

int rt_impl_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
BLOCKS_ENTRY(Scatter, scatter, root,
             PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))

int rt_impl_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
BLOCKS_ENTRY(Allgather, allgather, -1,
             PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))

int rt_impl_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
BLOCKS_ENTRY(Alltoall, alltoall, -1,
             PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))

int rt_impl_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                       MPI_Comm comm)
{
    uint64_t t0 = rt_account_begin();
    struct rt_ran ran = {.bytes = t0 && rt_samples_on ? rt_samples_v_bytes(recvcounts, recvtype, comm) : 0};
    int rc = do_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm, &ran, NULL);
    if (rc == RT_NATIVE)
        rc = PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                             comm);
    rt_account_call(ACCT_COLL_allgatherv, &ran, comm, t0);
    return rc;
}

int rt_impl_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    uint64_t t0 = rt_account_begin();
    struct rt_ran ran = {.bytes = t0 && rt_samples_on ? rt_samples_v_bytes(recvcounts, datatype, comm) : 0};
    int rc = do_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, &ran, NULL);
    if (rc == RT_NATIVE)
        rc = PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    rt_account_call(ACCT_COLL_reduce_scatter, &ran, comm, t0);
    return rc;
}

int rt_impl_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                    MPI_Comm comm)
{
    uint64_t t0 = rt_account_begin();
    struct rt_ran ran = {.bytes = 0}; /* decided on the communicator size alone */
    struct rooted_v k = {.sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
                         .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = displs,
                         .rtype = recvtype, .root = root, .comm = comm};
    int rc = do_rooted_v(ACCT_COLL_gatherv, &k, &ran, NULL);
    if (rc == RT_NATIVE)
        rc = PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                          comm);
    rt_account_call(ACCT_COLL_gatherv, &ran, comm, t0);
    return rc;
}

int rt_impl_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                     MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm)
{
    uint64_t t0 = rt_account_begin();
    struct rt_ran ran = {.bytes = 0};
    struct rooted_v k = {.sbuf = sendbuf, .scounts = sendcounts, .sdispls = displs,
                         .stype = sendtype, .rbuf = recvbuf, .rcount = recvcount,
                         .rtype = recvtype, .root = root, .comm = comm};
    int rc = do_rooted_v(ACCT_COLL_scatterv, &k, &ran, NULL);
    if (rc == RT_NATIVE)
        rc = PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                           root, comm);
    rt_account_call(ACCT_COLL_scatterv, &ran, comm, t0);
    return rc;
}

int rt_impl_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                      const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    uint64_t t0 = rt_account_begin();
    struct rt_ran ran = {.bytes = 0};
    int rc = do_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm, &ran, NULL);
    if (rc == RT_NATIVE)
        rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                            recvtype, comm);
    rt_account_call(ACCT_COLL_alltoallv, &ran, comm, t0);
    return rc;
}

/* The non-blocking collectives (nb.h): decided as the blocking collective
 * of the same shape (one decision path), without SACK reordering; ACCT's
 * choice is posted to the progress engine and returns a generalized
 * request, anything else runs the native MPI_I<coll>. Counted in the
 * report's non-blocking rows (account.h); never sampled. */

#define NB_ENTRY(coll, do_call, native_call)                                                       \
    {                                                                                              \
        struct rt_ran ran = {.bytes = 0};                                                          \
        struct rt_nb_post nb = {.request = request};                                               \
        int rc = do_call;                                                                          \
        if (rc == RT_NATIVE) {                                                                     \
            rt_account_nb_call(coll, NULL);                                                        \
            rc = native_call;                                                                      \
        }                                                                                          \
        return rc;                                                                                 \
    }

int rt_impl_Ibarrier(MPI_Comm comm, MPI_Request *request)
NB_ENTRY(ACCT_COLL_barrier, do_barrier(comm, &ran, &nb), PMPI_Ibarrier(comm, request))

int rt_impl_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Request *request)
NB_ENTRY(ACCT_COLL_bcast, do_bcast(buffer, count, datatype, root, comm, &ran, &nb),
         PMPI_Ibcast(buffer, count, datatype, root, comm, request))

int rt_impl_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
NB_ENTRY(ACCT_COLL_reduce,
         do_reduction(ACCT_COLL_reduce, sendbuf, recvbuf, count, datatype, op, root, comm, &ran,
                      &nb),
         PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request))

int rt_impl_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Request *request)
NB_ENTRY(ACCT_COLL_allreduce,
         do_reduction(ACCT_COLL_allreduce, sendbuf, recvbuf, count, datatype, op, -1, comm, &ran,
                      &nb),
         PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request))

int rt_impl_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                  MPI_Request *request)
NB_ENTRY(ACCT_COLL_reduce_scatter_block,
         do_reduction(ACCT_COLL_reduce_scatter_block, sendbuf, recvbuf, recvcount, datatype, op,
                      -1, comm, &ran, &nb),
         PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request))

int rt_impl_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, MPI_Request *request)
NB_ENTRY(ACCT_COLL_scan,
         do_reduction(ACCT_COLL_scan, sendbuf, recvbuf, count, datatype, op, -1, comm, &ran, &nb),
         PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, request))

int rt_impl_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Request *request)
NB_ENTRY(ACCT_COLL_exscan,
         do_reduction(ACCT_COLL_exscan, sendbuf, recvbuf, count, datatype, op, -1, comm, &ran,
                      &nb),
         PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, request))

#define NB_BLOCKS(lower, rootarg)                                                                  \
    do_blocks(&(struct blocks_call){ACCT_COLL_##lower, sendbuf, sendcount, sendtype, recvbuf,     \
                                    recvcount, recvtype, rootarg, comm},                           \
              &ran, &nb)

int rt_impl_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request)
NB_ENTRY(ACCT_COLL_gather, NB_BLOCKS(gather, root),
         PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      request))

int rt_impl_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Request *request)
NB_ENTRY(ACCT_COLL_scatter, NB_BLOCKS(scatter, root),
         PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                       request))

int rt_impl_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
NB_ENTRY(ACCT_COLL_allgather, NB_BLOCKS(allgather, -1),
         PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                         request))

int rt_impl_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
NB_ENTRY(ACCT_COLL_alltoall, NB_BLOCKS(alltoall, -1),
         PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                        request))

/* The non-blocking v-collectives: decided as their blocking collective
 * (the average block, or the communicator size alone); the schedule is
 * built at the post from the count arrays, and what the completion needs
 * of them (the blocks to unpack) is copied then: the arrays are read only
 * during the call. */

int rt_impl_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Request *request)
NB_ENTRY(ACCT_COLL_allgatherv,
         do_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                       &ran, &nb),
         PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          comm, request))

int rt_impl_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
NB_ENTRY(ACCT_COLL_reduce_scatter,
         do_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, &ran, &nb),
         PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request))

int rt_impl_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Request *request)
NB_ENTRY(ACCT_COLL_gatherv,
         do_rooted_v(ACCT_COLL_gatherv,
                     &(struct rooted_v){.sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
                                        .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = displs,
                                        .rtype = recvtype, .root = root, .comm = comm},
                     &ran, &nb),
         PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                       comm, request))

int rt_impl_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, MPI_Request *request)
NB_ENTRY(ACCT_COLL_scatterv,
         do_rooted_v(ACCT_COLL_scatterv,
                     &(struct rooted_v){.sbuf = sendbuf, .scounts = sendcounts, .sdispls = displs,
                                        .stype = sendtype, .rbuf = recvbuf, .rcount = recvcount,
                                        .rtype = recvtype, .root = root, .comm = comm},
                     &ran, &nb),
         PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                        comm, request))

int rt_impl_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request *request)
NB_ENTRY(ACCT_COLL_alltoallv,
         do_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                      recvtype, comm, &ran, &nb),
         PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm, request))
