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
#include "sack_ctl.h"

#define SC_MAGIC 0x53434154LL /* "SCAT" */
#define SC_FIRST 3            /* int64 of a FIRST */

/* What this rank sends each child (its rank and position: sack_ctl). */
struct sc_kid {
    bool first_sent;
    int n, next;       /* stream indices of this child's subtree: how many, next to send */
    int *items;        /* indices into the parent's stream */
    int64_t hdr[SC_FIRST];
};

/* What a request of the protocol's own is (sack_ctl.h). */
enum {
    S_FIRST = SACK_K_PROTO, /* a non-root: FIRST */
    S_DATA,                 /* a non-root: the block of stream index a */
};

static const struct sack_proto scatter_proto = {
    .tag_sack = SACK_TAG_SC_SACK, .tag_ctrl = SACK_TAG_SC_CTRL, .tag_vote = -1,
    .magic = SC_MAGIC};

struct sc_run {
    struct sack_ctl x; /* requests, SACK, CTRL; the root's plan (sack_ctl.h) */
    const char *sbuf;
    char *rbuf;
    uint64_t block;
    enum sack_fill fill;
    /* non-root */
    int parent;
    int64_t first_in[SC_FIRST];
    int ns;              /* stream length (subtree size) */
    int *stream;         /* positions */
    unsigned char *got;  /* stream index i arrived */
    char *stage;         /* blocks of stream indices 1..ns-1 */
    struct sc_kid *kids; /* x.nchild */
    /* root */
    int64_t *first_out; /* SC_FIRST per non-root */
};

static void say_first(void)
{
    acct_debug("SACK reordering: first scatter as root, fill %s", sack_fill_name(rt_sack_fill()));
}

/* ---- the root ----------------------------------------------------------- */

static int root_start(void *run)
{
    struct sc_run *r = run;
    int rc = sack_ctl_root_start(&r->x, false);
    r->fill = r->x.plan.fill;
    r->first_out = malloc((size_t)(r->x.size - 1) * SC_FIRST * sizeof *r->first_out);
    return r->first_out == NULL ? MPI_ERR_NO_MEM : rc;
}

/* x's SACK arrived: give x the next position; tell its parent (CTRL) or,
 * for a root child, x itself (FIRST); send x's block towards it. */
static int on_arrival(void *run, int x)
{
    struct sc_run *r = run;
    struct sack_place at;
    int rc;
    if ((rc = sack_ctl_place(&r->x, x, &at)) != MPI_SUCCESS)
        return rc;
    if (at.up == 0) {
        int64_t *h = &r->first_out[SC_FIRST * at.src];
        h[0] = at.pos;
        h[1] = (int64_t)r->block;
        h[2] = r->fill;
        rc = sack_ctl_send(&r->x, h, SC_FIRST * 8, MPI_BYTE, x, SACK_TAG_SC_FIRST, SACK_K_SEND, 0,
                           0);
    } else
        rc = sack_ctl_tell_parent(&r->x, at.up, at.pos, x);
    if (rc == MPI_SUCCESS)
        rc = sack_ctl_send(&r->x, r->sbuf + (uint64_t)x * r->block, (int)r->block, MPI_BYTE,
                           r->x.rank_of_pos[at.head], SACK_TAG_SC_DATA, SACK_K_SEND, 0, 0);
    return rc;
}

/* ---- the other ranks ----------------------------------------------------- */

static int nonroot_start(void *run)
{
    struct sc_run *r = run;
    int rc = sack_ctl_recv(&r->x, r->first_in, SC_FIRST * 8, MPI_BYTE, MPI_ANY_SOURCE,
                           SACK_TAG_SC_FIRST, S_FIRST, 0, 0);
    return rc == MPI_SUCCESS ? sack_ctl_hello(&r->x, 0, false) : rc;
}

/* The stream of this rank's position, and which child each item goes to. */
static int nonroot_plan(struct sc_run *r)
{
    struct sack_plan plan;
    const struct sack_tree *t = r->x.t;
    const int pos = r->x.pos, nchild = r->x.nchild;
    int rc = MPI_SUCCESS, *owner = NULL;
    if (sack_plan_init(&plan, t, r->fill) != 0)
        return MPI_ERR_NO_MEM;
    r->stream = malloc((size_t)r->x.size * sizeof *r->stream);
    owner = malloc((size_t)r->x.size * sizeof *owner);
    r->kids = calloc((size_t)nchild + 1, sizeof *r->kids);
    if (r->stream == NULL || owner == NULL || r->kids == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    /* the stream: fill order restricted to the subtree (pos first) */
    r->ns = 0;
    for (int i = 1; i < r->x.size; i++) {
        int q = sack_plan_position(&plan, i);
        if (q == pos) {
            if (r->ns != 0) { /* a descendant before its ancestor: not a fill order */
                rc = MPI_ERR_INTERN;
                goto out;
            }
            owner[r->ns] = -1;
            r->stream[r->ns++] = q;
        } else if (r->ns > 0 && sack_tree_child_towards(t, pos, q) >= 0) {
            int c = sack_tree_child_slot(t, pos, sack_tree_child_towards(t, pos, q));
            if (c < 0 || c >= nchild) {
                rc = MPI_ERR_INTERN;
                goto out;
            }
            owner[r->ns] = c;
            r->stream[r->ns++] = q;
            r->kids[c].n++;
        }
    }
    for (int c = 0; c < nchild; c++) {
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
        st->MPI_SOURCE < 0 || st->MPI_SOURCE >= r->x.size || st->MPI_SOURCE == r->x.rank ||
        h[0] < 1 || h[0] >= r->x.size || h[1] != (int64_t)r->block ||
        (h[2] != SACK_FILL_DF && h[2] != SACK_FILL_BF))
        return MPI_ERR_INTERN;
    r->parent = st->MPI_SOURCE;
    r->fill = (enum sack_fill)h[2];
    if ((rc = sack_ctl_placed(&r->x, (int)h[0])) != MPI_SUCCESS ||
        (rc = nonroot_plan(r)) != MPI_SUCCESS)
        return rc;
    r->got = calloc((size_t)r->ns, 1);
    r->stage = malloc((size_t)(r->ns > 1 ? r->ns - 1 : 1) * r->block);
    if (r->got == NULL || r->stage == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < r->ns && rc == MPI_SUCCESS; i++) {
        char *dst = i == 0 ? r->rbuf : r->stage + (uint64_t)(i - 1) * r->block;
        rc = sack_ctl_recv(&r->x, dst, (int)r->block, MPI_BYTE, r->parent, SACK_TAG_SC_DATA,
                           S_DATA, i, 0);
    }
    return rc;
}

/* Forward what can go: to each known child, FIRST, then its blocks in
 * stream order as they arrive. */
static int pump(void *run)
{
    struct sc_run *r = run;
    int rc = MPI_SUCCESS;
    for (int c = 0; rc == MPI_SUCCESS && r->kids != NULL && c < r->x.nchild; c++) {
        struct sc_kid *k = &r->kids[c];
        int to = r->x.kid_rank[c];
        if (to < 0)
            continue;
        if (!k->first_sent) {
            k->hdr[0] = r->x.kid_pos[c];
            k->hdr[1] = (int64_t)r->block;
            k->hdr[2] = r->fill;
            rc = sack_ctl_send(&r->x, k->hdr, SC_FIRST * 8, MPI_BYTE, to, SACK_TAG_SC_FIRST,
                               SACK_K_SEND, 0, 0);
            k->first_sent = true;
        }
        while (rc == MPI_SUCCESS && k->next < k->n && r->got[k->items[k->next]]) {
            int i = k->items[k->next++];
            rc = sack_ctl_send(&r->x, r->stage + (uint64_t)(i - 1) * r->block, (int)r->block,
                               MPI_BYTE, to, SACK_TAG_SC_DATA, SACK_K_SEND, 0, 0);
        }
    }
    return rc;
}

static int on_done(void *run, int kind, int a, int b, const MPI_Status *st)
{
    struct sc_run *r = run;
    (void)b;
    if (kind == S_FIRST)
        return nonroot_on_first(r, st);
    if (kind != S_DATA || a < 0 || a >= r->ns)
        return MPI_ERR_INTERN;
    r->got[a] = 1;
    return MPI_SUCCESS;
}

static pthread_once_t said = PTHREAD_ONCE_INIT;
static const struct sack_ops scatter_ops = {
    .start_root = root_start, .start_nonroot = nonroot_start, .pump = pump,
    .arrival = on_arrival, .done = on_done, .say_first = say_first, .said = &said};

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
    sack_ctl_init(&r.x, &scatter_proto, (int64_t)block, t, root, priv, rank);
    r.sbuf = sbuf;
    r.rbuf = rbuf;
    r.block = block;
    r.parent = -1;

    rc = sack_ctl_run(&r.x, &scatter_ops, &r);
    /* everything arrived and went out? */
    if (rc == MPI_SUCCESS && (!sack_ctl_complete(&r.x) || (rank != root && r.ns < 1)))
        rc = MPI_ERR_INTERN;
    for (int c = 0; rc == MPI_SUCCESS && rank != root && c < r.x.nchild; c++)
        if (r.kids[c].next != r.kids[c].n)
            rc = MPI_ERR_INTERN;
    if (!r.x.leaked) { /* else MPI may still read them (FIRST headers are in kids) */
        for (int c = 0; r.kids != NULL && c < r.x.nchild; c++)
            free(r.kids[c].items);
        free(r.kids);
        free(r.stage);
        free(r.first_out);
    }
    free(r.stream);
    free(r.got);
    sack_ctl_fini(&r.x);
    return rc;
}
