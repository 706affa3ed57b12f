/* SACK reordering of a tree scatter (sack_rooted.h; docs/sack.md).
 *
 * Messages of one call (P ranks, tree positions 0..P-1, position 0 = root,
 * block = the bytes of one rank's block):
 *
 *   x -> root   SACK  {magic, block}            on entry, every non-root x
 *   root -> y   CTRL  {position p, rank x}      x was given p, a child of y's
 *                                               position (y != root)
 *   y -> x      FIRST {p, block, fill}          as soon as y knows x
 *   y -> x      DATA  block of position q       for every q of x's subtree,
 *                                               x's own (q = p) first
 *
 * The stream of position p is the fill order (sack_plan.h) restricted to
 * p's subtree: p itself first (a parent is always placed before its
 * children), then its descendants in the order they were placed. Its i-th
 * DATA message is the block of the rank at the i-th position of the stream.
 * The root sends each root child the blocks of its subtree as their ranks
 * arrive; every other rank forwards the i-th block it received to the child
 * whose subtree holds that position, as soon as it knows that child's rank.
 * Since the stream is a pure function of (tree, fill, p), no block carries
 * a header: the fill mode rides in FIRST (only the root reads
 * ACCT_SACK_FILL), and each rank computes its own stream and its
 * children's.
 *
 * Layout: the root sends block x from sbuf + x * block (rank order, as the
 * caller gave it); a non-root receives its own block straight into rbuf and
 * the others of its subtree into a staging area of (subtree - 1) blocks in
 * stream order; nothing is packed or copied on the way.
 *
 * Why nothing from one call can match another's, and why no arrival order
 * deadlocks: as for bcast (sack.c). A rank is sent FIRST, CTRL and DATA
 * only after the root has its SACK of that call; it receives exactly the
 * messages of that call (one FIRST, one CTRL per child, one DATA per
 * position of its subtree) before it returns; the root receives SACKs per
 * source. Data only flows downwards, and every position is handed out once
 * every rank has entered. */
#include "sack_rooted.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "acct/log.h"
#include "sack.h"

#define SC_MAGIC 0x53434154LL /* "SCAT" */
#define SC_SACK 2             /* int64 of a SACK */
#define SC_FIRST 3            /* int64 of a FIRST */

struct sc_kid {
    int rank;          /* -1 until known */
    int pos;
    bool first_sent;
    int n, next;       /* stream indices of this child's subtree: how many, next to send */
    int *items;        /* indices into the parent's stream */
    int64_t hdr[SC_FIRST];
};

/* Non-root request slots: fixed ones, then DATA receives (stream order),
 * then one FIRST send per child, then one DATA send per stream index >= 1. */
enum { Q_FIRST = 0, Q_SACK = 1, Q_CTRL = 2, Q_FIXED = 3 };

struct sc_run {
    const char *sbuf;
    char *rbuf;
    uint64_t block;
    int root, rank, size;
    MPI_Comm comm;
    const struct sack_tree *t;
    enum sack_fill fill;
    /* non-root */
    int pos, parent;
    int64_t first_in[SC_FIRST];
    int64_t sack_out[SC_SACK];
    int32_t ctrl_in[2];
    int ctrl_left;
    int ns;              /* stream length (subtree size) */
    int *stream;         /* positions */
    unsigned char *got;  /* stream index i arrived */
    char *stage;         /* blocks of stream indices 1..ns-1 */
    int nchild;
    struct sc_kid *kids;
    /* root */
    struct sack_plan plan;
    int *rank_of_pos;
    int arrived;
    int64_t *sack_in;   /* SC_SACK per non-root */
    int32_t *ctrl_out;  /* 2 per non-root */
    int64_t *first_out; /* SC_FIRST per non-root */
    /* requests */
    MPI_Request *reqs;
    int nreqs, active;
    int *idx;
    MPI_Status *stats;
};

static void say_first(void)
{
    acct_debug("SACK reordering: first scatter as root, fill %s", sack_fill_name(rt_sack_fill()));
}

static int reqs_alloc(struct sc_run *r, int n)
{
    r->reqs = malloc((size_t)n * sizeof *r->reqs);
    r->idx = malloc((size_t)n * sizeof *r->idx);
    r->stats = malloc((size_t)n * sizeof *r->stats);
    if (r->reqs == NULL || r->idx == NULL || r->stats == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        r->reqs[i] = MPI_REQUEST_NULL;
    r->nreqs = n;
    return MPI_SUCCESS;
}

static int post(struct sc_run *r, int rc, int slot)
{
    if (rc == MPI_SUCCESS && r->reqs[slot] != MPI_REQUEST_NULL)
        r->active++;
    return rc;
}

/* ---- the root ----------------------------------------------------------- */

static int root_start(struct sc_run *r)
{
    const int n = r->size - 1;
    int rc = MPI_SUCCESS;
    r->fill = rt_sack_fill();
    if (sack_plan_init(&r->plan, r->t, r->fill) != 0)
        return MPI_ERR_NO_MEM;
    r->rank_of_pos = malloc((size_t)r->size * sizeof *r->rank_of_pos);
    r->sack_in = malloc((size_t)n * SC_SACK * sizeof *r->sack_in);
    r->ctrl_out = malloc((size_t)n * 2 * sizeof *r->ctrl_out);
    r->first_out = malloc((size_t)n * SC_FIRST * sizeof *r->first_out);
    if (r->rank_of_pos == NULL || r->sack_in == NULL || r->ctrl_out == NULL ||
        r->first_out == NULL || reqs_alloc(r, 3 * n) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < r->size; i++)
        r->rank_of_pos[i] = -1;
    r->rank_of_pos[0] = r->rank;
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++)
        rc = post(r, PMPI_Irecv(&r->sack_in[SC_SACK * j], SC_SACK * 8, MPI_BYTE,
                                (r->root + 1 + j) % r->size, SACK_TAG_SC_SACK, r->comm,
                                &r->reqs[j]),
                  j);
    return rc;
}

/* x's SACK (the j-th source) arrived: give x the next position; tell its
 * parent (CTRL) or, for a root child, x itself (FIRST); send x's block
 * towards it. */
static int root_on_sack(struct sc_run *r, int j, const MPI_Status *st)
{
    const int n = r->size - 1;
    int x = (r->root + 1 + j) % r->size, cnt = 0, rc;
    const int64_t *m = &r->sack_in[SC_SACK * j];
    if (PMPI_Get_count(st, MPI_BYTE, &cnt) != MPI_SUCCESS || cnt != SC_SACK * 8 ||
        m[0] != SC_MAGIC || m[1] != (int64_t)r->block || r->arrived + 1 >= r->size)
        return MPI_ERR_INTERN; /* another call's message: ranks disagree */
    int p = sack_plan_position(&r->plan, ++r->arrived);
    int up = sack_tree_parent(r->t, p);
    int head = up == 0 ? p : sack_tree_child_towards(r->t, 0, p);
    if (up < 0 || head < 0 || r->rank_of_pos[up] < 0 ||
        (head != p && r->rank_of_pos[head] < 0))
        return MPI_ERR_INTERN;
    r->rank_of_pos[p] = x;
    if (up == 0) {
        int64_t *h = &r->first_out[SC_FIRST * j];
        h[0] = p;
        h[1] = (int64_t)r->block;
        h[2] = r->fill;
        rc = post(r, PMPI_Isend(h, SC_FIRST * 8, MPI_BYTE, x, SACK_TAG_SC_FIRST, r->comm,
                                &r->reqs[n + j]),
                  n + j);
    } else {
        r->ctrl_out[2 * j] = p;
        r->ctrl_out[2 * j + 1] = x;
        rc = post(r, PMPI_Isend(&r->ctrl_out[2 * j], 2, MPI_INT32_T, r->rank_of_pos[up],
                                SACK_TAG_SC_CTRL, r->comm, &r->reqs[n + j]),
                  n + j);
    }
    if (rc == MPI_SUCCESS)
        rc = post(r, PMPI_Isend(r->sbuf + (uint64_t)x * r->block, (int)r->block, MPI_BYTE,
                                r->rank_of_pos[head], SACK_TAG_SC_DATA, r->comm,
                                &r->reqs[2 * n + j]),
                  2 * n + j);
    return rc;
}

/* ---- the other ranks ----------------------------------------------------- */

static int slot_recv(int i)
{
    return Q_FIXED + i;
}

static int slot_first(const struct sc_run *r, int c)
{
    return Q_FIXED + r->ns + c;
}

static int slot_send(const struct sc_run *r, int i)
{
    return Q_FIXED + r->ns + r->nchild + i - 1;
}

static int nonroot_start(struct sc_run *r)
{
    int rc;
    if (reqs_alloc(r, Q_FIXED) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    rc = post(r, PMPI_Irecv(r->first_in, SC_FIRST * 8, MPI_BYTE, MPI_ANY_SOURCE,
                            SACK_TAG_SC_FIRST, r->comm, &r->reqs[Q_FIRST]),
              Q_FIRST);
    r->sack_out[0] = SC_MAGIC;
    r->sack_out[1] = (int64_t)r->block;
    if (rc == MPI_SUCCESS)
        rc = post(r, PMPI_Isend(r->sack_out, SC_SACK * 8, MPI_BYTE, r->root, SACK_TAG_SC_SACK,
                                r->comm, &r->reqs[Q_SACK]),
                  Q_SACK);
    return rc;
}

/* The stream of r->pos, its children and which child each item goes to. */
static int nonroot_plan(struct sc_run *r)
{
    struct sack_plan plan;
    int rc = MPI_SUCCESS, *kidpos = NULL, *owner = NULL;
    if (sack_plan_init(&plan, r->t, r->fill) != 0)
        return MPI_ERR_NO_MEM;
    r->stream = malloc((size_t)r->size * sizeof *r->stream);
    owner = malloc((size_t)r->size * sizeof *owner);
    r->nchild = sack_tree_children(r->t, r->pos, NULL, 0);
    if (r->stream == NULL || owner == NULL || r->nchild < 0) {
        rc = r->nchild < 0 ? MPI_ERR_INTERN : MPI_ERR_NO_MEM;
        goto out;
    }
    kidpos = malloc((size_t)(r->nchild + 1) * sizeof *kidpos);
    r->kids = calloc((size_t)r->nchild + 1, sizeof *r->kids);
    if (kidpos == NULL || r->kids == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    if (sack_tree_children(r->t, r->pos, kidpos, r->nchild) != r->nchild) {
        rc = MPI_ERR_INTERN;
        goto out;
    }
    /* the stream: fill order restricted to the subtree (r->pos first) */
    r->ns = 0;
    for (int i = 1; i < r->size; i++) {
        int q = sack_plan_position(&plan, i);
        if (q == r->pos) {
            if (r->ns != 0) { /* a descendant before its ancestor: not a fill order */
                rc = MPI_ERR_INTERN;
                goto out;
            }
            owner[r->ns] = -1;
            r->stream[r->ns++] = q;
        } else if (r->ns > 0 && sack_tree_child_towards(r->t, r->pos, q) >= 0) {
            int c = sack_tree_child_slot(r->t, r->pos, sack_tree_child_towards(r->t, r->pos, q));
            if (c < 0 || c >= r->nchild) {
                rc = MPI_ERR_INTERN;
                goto out;
            }
            owner[r->ns] = c;
            r->stream[r->ns++] = q;
            r->kids[c].n++;
        }
    }
    for (int c = 0; c < r->nchild; c++) {
        r->kids[c].rank = -1;
        r->kids[c].pos = kidpos[c];
        r->kids[c].items = malloc((size_t)(r->kids[c].n ? r->kids[c].n : 1) * sizeof(int));
        if (r->kids[c].items == NULL) {
            rc = MPI_ERR_NO_MEM;
            goto out;
        }
        r->kids[c].n = 0;
    }
    for (int i = 1; i < r->ns; i++) {
        struct sc_kid *k = &r->kids[owner[i]];
        k->items[k->n++] = i;
    }
out:
    free(kidpos);
    free(owner);
    sack_plan_fini(&plan);
    return rc;
}

/* FIRST arrived: parent, position, fill; post every receive of the call. */
static int nonroot_on_first(struct sc_run *r, const MPI_Status *st)
{
    int n = 0, rc;
    const int64_t *h = r->first_in;
    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n != SC_FIRST * 8 ||
        st->MPI_SOURCE < 0 || st->MPI_SOURCE >= r->size || st->MPI_SOURCE == r->rank ||
        h[0] < 1 || h[0] >= r->size || h[1] != (int64_t)r->block ||
        (h[2] != SACK_FILL_DF && h[2] != SACK_FILL_BF))
        return MPI_ERR_INTERN;
    r->parent = st->MPI_SOURCE;
    r->pos = (int)h[0];
    r->fill = (enum sack_fill)h[2];
    if ((rc = nonroot_plan(r)) != MPI_SUCCESS)
        return rc;
    int total = Q_FIXED + r->ns + r->nchild + (r->ns - 1);
    MPI_Request *q = realloc(r->reqs, (size_t)total * sizeof *q);
    if (q == NULL)
        return MPI_ERR_NO_MEM;
    r->reqs = q;
    int *ix = realloc(r->idx, (size_t)total * sizeof *ix);
    if (ix == NULL)
        return MPI_ERR_NO_MEM;
    r->idx = ix;
    MPI_Status *sts = realloc(r->stats, (size_t)total * sizeof *sts);
    if (sts == NULL)
        return MPI_ERR_NO_MEM;
    r->stats = sts;
    for (int i = r->nreqs; i < total; i++)
        r->reqs[i] = MPI_REQUEST_NULL;
    r->nreqs = total;
    r->got = calloc((size_t)r->ns, 1);
    r->stage = malloc((size_t)(r->ns > 1 ? r->ns - 1 : 1) * r->block);
    if (r->got == NULL || r->stage == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < r->ns && rc == MPI_SUCCESS; i++) {
        char *dst = i == 0 ? r->rbuf : r->stage + (uint64_t)(i - 1) * r->block;
        rc = post(r, PMPI_Irecv(dst, (int)r->block, MPI_BYTE, r->parent, SACK_TAG_SC_DATA,
                                r->comm, &r->reqs[slot_recv(i)]),
                  slot_recv(i));
    }
    r->ctrl_left = r->nchild;
    if (rc == MPI_SUCCESS && r->ctrl_left > 0)
        rc = post(r, PMPI_Irecv(r->ctrl_in, 2, MPI_INT32_T, r->root, SACK_TAG_SC_CTRL, r->comm,
                                &r->reqs[Q_CTRL]),
                  Q_CTRL);
    return rc;
}

static int nonroot_on_ctrl(struct sc_run *r)
{
    int32_t pos = r->ctrl_in[0], x = r->ctrl_in[1];
    int c = pos > 0 && pos < r->size ? sack_tree_child_slot(r->t, r->pos, pos) : -1;
    if (c < 0 || c >= r->nchild || r->kids[c].rank >= 0 || x < 0 || x >= r->size ||
        x == r->rank || x == r->root)
        return MPI_ERR_INTERN;
    r->kids[c].rank = x;
    if (--r->ctrl_left > 0)
        return post(r, PMPI_Irecv(r->ctrl_in, 2, MPI_INT32_T, r->root, SACK_TAG_SC_CTRL,
                                  r->comm, &r->reqs[Q_CTRL]),
                    Q_CTRL);
    return MPI_SUCCESS;
}

/* Forward what can go: to each known child, FIRST, then its blocks in
 * stream order as they arrive. */
static int pump(struct sc_run *r)
{
    int rc = MPI_SUCCESS;
    for (int c = 0; rc == MPI_SUCCESS && c < r->nchild; c++) {
        struct sc_kid *k = &r->kids[c];
        if (k->rank < 0)
            continue;
        if (!k->first_sent) {
            k->hdr[0] = k->pos;
            k->hdr[1] = (int64_t)r->block;
            k->hdr[2] = r->fill;
            rc = post(r, PMPI_Isend(k->hdr, SC_FIRST * 8, MPI_BYTE, k->rank, SACK_TAG_SC_FIRST,
                                    r->comm, &r->reqs[slot_first(r, c)]),
                      slot_first(r, c));
            k->first_sent = true;
        }
        while (rc == MPI_SUCCESS && k->next < k->n && r->got[k->items[k->next]]) {
            int i = k->items[k->next++];
            rc = post(r, PMPI_Isend(r->stage + (uint64_t)(i - 1) * r->block, (int)r->block,
                                    MPI_BYTE, k->rank, SACK_TAG_SC_DATA, r->comm,
                                    &r->reqs[slot_send(r, i)]),
                      slot_send(r, i));
        }
    }
    return rc;
}

static int on_done(struct sc_run *r, int i, const MPI_Status *st)
{
    r->active--;
    if (r->rank == r->root)
        return i < r->size - 1 ? root_on_sack(r, i, st) : MPI_SUCCESS;
    if (i == Q_FIRST)
        return nonroot_on_first(r, st);
    if (i == Q_CTRL)
        return nonroot_on_ctrl(r);
    if (i >= Q_FIXED && i < Q_FIXED + r->ns)
        r->got[i - Q_FIXED] = 1;
    return MPI_SUCCESS;
}

/* After an error: receives are cancelled and completed; sends are freed
 * (their buffers leaked on purpose: MPI may still read them). */
static void abandon(struct sc_run *r)
{
    for (int i = 0; i < r->nreqs; i++) {
        if (r->reqs[i] == MPI_REQUEST_NULL)
            continue;
        bool recv = r->rank == r->root ? i < r->size - 1
                                       : i == Q_FIRST || i == Q_CTRL ||
                                             (i >= Q_FIXED && i < Q_FIXED + r->ns);
        if (recv) {
            PMPI_Cancel(&r->reqs[i]);
            PMPI_Wait(&r->reqs[i], MPI_STATUS_IGNORE);
        } else {
            PMPI_Request_free(&r->reqs[i]);
            r->kids = NULL; /* FIRST headers */
            r->stage = NULL;
            r->ctrl_out = NULL;
            r->first_out = NULL;
        }
    }
}

int rt_sack_scatter(const char *sbuf, char *rbuf, uint64_t block, int root,
                    const struct sack_tree *t, MPI_Comm priv, int rank)
{
    struct sc_run r;
    int rc = MPI_SUCCESS;

    if (rank == root && rbuf != NULL && block > 0)
        memcpy(rbuf, sbuf + (uint64_t)root * block, block);
    if (block == 0 || t->size <= 1)
        return MPI_SUCCESS;
    memset(&r, 0, sizeof r);
    r.sbuf = sbuf;
    r.rbuf = rbuf;
    r.block = block;
    r.root = root;
    r.rank = rank;
    r.size = t->size;
    r.comm = priv;
    r.t = t;
    r.parent = -1;

    if (rank == root) { /* one debug line per process (ACCT_VERBOSE=2), for tests */
        static pthread_once_t said = PTHREAD_ONCE_INIT;
        pthread_once(&said, say_first);
    }
    rc = rank == root ? root_start(&r) : nonroot_start(&r);
    while (rc == MPI_SUCCESS && (rank == root || (rc = pump(&r)) == MPI_SUCCESS) &&
           r.active > 0) {
        int n = 0;
        rc = PMPI_Waitsome(r.nreqs, r.reqs, &n, r.idx, r.stats);
        for (int i = 0; rc == MPI_SUCCESS && n != MPI_UNDEFINED && i < n; i++)
            rc = on_done(&r, r.idx[i], &r.stats[i]);
    }
    /* everything arrived and went out? */
    if (rc == MPI_SUCCESS && rank == root && r.arrived != r.size - 1)
        rc = MPI_ERR_INTERN;
    if (rc == MPI_SUCCESS && rank != root && (r.ns < 1 || r.ctrl_left != 0))
        rc = MPI_ERR_INTERN;
    for (int c = 0; rc == MPI_SUCCESS && c < r.nchild; c++)
        if (r.kids[c].rank < 0 || r.kids[c].next != r.kids[c].n)
            rc = MPI_ERR_INTERN;
    if (rc != MPI_SUCCESS)
        abandon(&r);
    for (int c = 0; r.kids != NULL && c < r.nchild; c++)
        free(r.kids[c].items);
    free(r.reqs);
    free(r.idx);
    free(r.stats);
    free(r.kids);
    free(r.stream);
    free(r.got);
    free(r.stage);
    free(r.rank_of_pos);
    free(r.sack_in);
    free(r.ctrl_out);
    free(r.first_out);
    sack_plan_fini(&r.plan);
    return rc;
}
