/* SACK reordering of a tree broadcast (sack.h; docs/sack.md).
 *
 * Messages of one call (P ranks, tree positions 0..P-1, position 0 = root):
 *
 *   x -> root   SACK  {magic, bytes, rate}     on entry, every non-root x
 *                                              (rate: automatic mode, sack.h)
 *   root -> y   CTRL  {position p, rank x}     x was given p, a child of y's
 *                                              position (y != root); the root
 *                                              records its own children
 *   y -> x      FIRST {p, bytes} [+ segment 0] as soon as y knows x (and has
 *                                              segment 0 when it rides along)
 *   y -> x      DATA  segment k                in order, as y gets them
 *   root -> x   VOTE  {vote}                   probe calls of the automatic
 *                                              mode only, once every SACK is in
 *
 * The root hands positions out in SACK arrival order along the plan's fill
 * order (sack_plan.h), which lists every parent before its children, so the
 * parent's rank is always known when a child is placed. With the
 * communicator's state (rt_sack_bcast_auto), the fill order has its leaves
 * last, and once every position with children is taken the root places
 * all ranks not arrived yet on the leaves at once: their data can flow
 * before they enter. FIRST's tag then carries the call number, so such an
 * early FIRST cannot match the MPI_ANY_SOURCE receive of a call the rank
 * is still in (docs/sack.md, "Why calls cannot mix up"). A non-root receives
 * its FIRST from MPI_ANY_SOURCE and learns its parent from the status and
 * its position from the header; from the position it knows how many
 * children (hence CTRL messages) to expect.
 *
 * Why nothing from one call can match another's: a rank is only sent
 * FIRST, DATA or CTRL after the root of that call has its SACK, and its
 * SACK is sent on entry; every message a rank is sent in a call is received
 * in that call before it returns. The root receives SACKs with one receive
 * per source (not MPI_ANY_SOURCE), so a rank that already went on to its
 * next call cannot have that call's SACK taken for this one (MPI keeps
 * messages of one sender, communicator and tag in order); it learns the
 * arrival order from MPI_Waitsome.
 *
 * Progress: each rank runs one loop over MPI_Waitsome on all its pending
 * requests (SACK receives, CTRL, FIRST, a window of segment receives, a
 * window of sends per child: about 1 MiB in flight each, 4 to 128
 * segments, at most 512 send requests for all children together), so it serves each child independently and
 * never blocks on one late process. No rank waits for a message that is
 * not already on its way or caused by a process entering the call, so the
 * call completes for every arrival order once every rank has entered it.
 */
#include "sack.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "acct/log.h"

#define SACK_WINDOW 128          /* most segments in flight per receiver and per child */
#define SACK_INFLIGHT (1 << 20)  /* ... aiming at this many bytes in flight (ACCT_SACK_INFLIGHT) */
#define SACK_REQS_KIDS 512       /* at most this many send requests for all children */
#define SACK_PIGGY_MAX 16384     /* segment 0 rides with FIRST up to this many bytes */
#define SACK_MAGIC 0x5341434bLL  /* "SACK" */
#define SACK_HDR (2 * (int)sizeof(int64_t))  /* FIRST's header */
#define SACK_LEN (3 * (int)sizeof(int64_t))  /* a SACK */
#define SACK_PS 1e12                         /* rates travel as picoseconds per byte */

static pthread_once_t fill_once = PTHREAD_ONCE_INIT;
static enum sack_fill fill_mode = SACK_FILL_DF;

static void fill_read(void)
{
    const char *s = getenv("ACCT_SACK_FILL");
    if (sack_fill_parse(s, SACK_FILL_DF, &fill_mode) != 0) {
        acct_warn("ACCT_SACK_FILL=\"%.32s\" is neither bf nor df; using df", s);
        fill_mode = SACK_FILL_DF;
    }
}

/* A whole number from environment variable name, in lo..hi: true and *out
 * if set and valid; unset or empty: false; anything else: one warning
 * (what it should be, and that the default stays), false. */
static bool env_count(const char *name, unsigned long long lo, unsigned long long hi,
                      const char *what, unsigned long long *out)
{
    const char *s = getenv(name);
    char *end = NULL;
    if (s == NULL || *s == '\0')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end != '\0' || *s == '-' || v < lo || v > hi) {
        acct_warn("%s=\"%.32s\" is not %s in %llu..%llu; using the default", name, s, what, lo,
                  hi);
        return false;
    }
    *out = v;
    return true;
}

static pthread_once_t inflight_once = PTHREAD_ONCE_INIT;
static uint64_t inflight = SACK_INFLIGHT;

/* ACCT_SACK_INFLIGHT=BYTES: the send and receive windows per peer, for A/B
 * runs (docs/sack.md, "The protocol"); 4 segments at least, 128 at most. */
static void inflight_read(void)
{
    unsigned long long v;
    if (env_count("ACCT_SACK_INFLIGHT", 1, 1ULL << 30, "a byte count", &v))
        inflight = v;
}

static pthread_once_t pace_once = PTHREAD_ONCE_INIT;
static uint64_t pace = 0; /* 0: each child on its own */

/* ACCT_SACK_PACE=SEGMENTS: children that are in step (no further behind the
 * one furthest ahead than SEGMENTS) are served in step: no segment k goes
 * to one of them before the slowest of them has been sent k - SEGMENTS, as
 * the static tree's rounds do (docs/sack.md, its table of settings). A child
 * that joins further behind (a late process) catches up on its own and
 * never holds the others back. 0 (the default) turns pacing off. */
static void pace_read(void)
{
    unsigned long long v;
    if (env_count("ACCT_SACK_PACE", 0, SACK_WINDOW, "a segment count", &v))
        pace = v;
}

static void say_first(void)
{
    pthread_once(&pace_once, pace_read);
    if (pace > 0)
        acct_debug("SACK reordering: first bcast as root, fill %s, pace %llu",
                   sack_fill_name(rt_sack_fill()), (unsigned long long)pace);
    else
        acct_debug("SACK reordering: first bcast as root, fill %s", sack_fill_name(rt_sack_fill()));
}

enum sack_fill rt_sack_fill(void)
{
    pthread_once(&fill_once, fill_read);
    return fill_mode;
}

struct sack_child {
    int rank;        /* -1 until known */
    int pos;
    uint64_t next;   /* next segment to send */
    int inflight;    /* sends pending */
    bool first_sent;
};

/* Request slots: fixed ones, then per role. */
enum { R_CTRL = 0, R_FIRST = 1, R_SACK = 2, R_VOTE = 3, R_DATA = 4, R_FIXED = R_DATA + SACK_WINDOW };

struct sack_run {
    /* the call */
    char *buf;
    uint64_t bytes, seg, nseg;
    int root, rank, size;
    MPI_Comm comm;
    const struct sack_tree *t;
    bool piggy;       /* segment 0 rides with FIRST */
    uint64_t seg0;    /* bytes of segment 0 */
    /* this rank's place */
    int pos, parent;  /* parent: rank, -1 for the root and until known */
    uint64_t have;    /* segments 0..have-1 are here */
    uint64_t posted;  /* receives posted for segments < posted */
    int win, swin;    /* receive window, send window per child (segments) */
    uint64_t pace;    /* ACCT_SACK_PACE (segments; 0: off) */
    uint64_t rseg[SACK_WINDOW];
    unsigned char got[SACK_WINDOW]; /* segment k (have <= k < have + W) arrived */
    int nchild;
    struct sack_child *kids;
    char *stage;      /* nchild FIRST messages */
    int ctrl_left;    /* CTRL messages still expected (non-root) */
    int32_t ctrl_in[2];
    char *first_in;   /* FIRST message (non-root), then the SACK sent */
    int64_t *sack_out;
    /* the root */
    struct sack_plan plan;
    int *rank_of_pos;
    int arrived;
    int64_t *sack_in;  /* 3 per non-root */
    int32_t *ctrl_out; /* 2 per non-root */
    /* the automatic mode (sack.h) */
    struct sack_probe *pr; /* NULL: not asked for */
    bool probe;
    bool early;        /* leaves placed before their SACK (sack_plan_defer_leaves) */
    int first_tag;
    int placed;        /* the root: positions handed out (arrivals or early) */
    char *is_placed;   /* the root: per rank */
    double t0;         /* the root's entry (PMPI_Wtime) */
    double *arrive;    /* the root of a probe: per rank, s after t0 */
    double min_rate;   /* the root: the fastest rate reported (s/B, 0: none) */
    int64_t vote_in;
    int64_t *vote_out; /* the root of a probe (heap: sends may outlive an error) */
    struct sack_meter meter; /* a non-root: FIRST, then its segments (rate) */
    uint64_t batch;    /* MPI_Waitsome returns so far */
    double t_batch;    /* when the last one returned (PMPI_Wtime) */
    /* requests */
    MPI_Request *reqs;
    int nreqs, active, kids_base;
    int *idx;
    MPI_Status *stats;
};

static uint64_t seg_len(const struct sack_run *r, uint64_t k)
{
    uint64_t off = k * r->seg;
    return r->bytes - off < r->seg ? r->bytes - off : r->seg;
}

static int first_len(const struct sack_run *r)
{
    return SACK_HDR + (r->piggy ? (int)r->seg0 : 0);
}

/* Make room for n requests (new ones null). */
static int reqs_grow(struct sack_run *r, int n)
{
    if (n <= r->nreqs)
        return MPI_SUCCESS;
    MPI_Request *q = realloc(r->reqs, (size_t)n * sizeof *q);
    if (q == NULL)
        return MPI_ERR_NO_MEM;
    r->reqs = q;
    int *ix = realloc(r->idx, (size_t)n * sizeof *ix);
    if (ix == NULL)
        return MPI_ERR_NO_MEM;
    r->idx = ix;
    MPI_Status *st = realloc(r->stats, (size_t)n * sizeof *st);
    if (st == NULL)
        return MPI_ERR_NO_MEM;
    r->stats = st;
    for (int i = r->nreqs; i < n; i++)
        r->reqs[i] = MPI_REQUEST_NULL;
    r->nreqs = n;
    return MPI_SUCCESS;
}

/* This rank's children at position pos, all unknown yet; their send slots. */
static int kids_init(struct sack_run *r, int pos)
{
    int n = sack_tree_children(r->t, pos, NULL, 0);
    int *list = NULL, rc = MPI_SUCCESS;
    if (n < 0)
        return MPI_ERR_INTERN;
    r->pos = pos;
    r->nchild = n;
    if (n == 0)
        return MPI_SUCCESS;
    list = malloc((size_t)n * sizeof *list);
    r->kids = calloc((size_t)n, sizeof *r->kids);
    r->stage = malloc((size_t)n * (size_t)first_len(r));
    if (list == NULL || r->kids == NULL || r->stage == NULL)
        rc = MPI_ERR_NO_MEM;
    else if (sack_tree_children(r->t, pos, list, n) != n)
        rc = MPI_ERR_INTERN;
    for (int c = 0; rc == MPI_SUCCESS && c < n; c++) {
        r->kids[c].rank = -1;
        r->kids[c].pos = list[c];
    }
    /* send windows: r->win each, at most SACK_REQS_KIDS requests in all (4 at least) */
    r->swin = SACK_REQS_KIDS / n < r->win ? SACK_REQS_KIDS / n : r->win;
    r->swin = r->swin < 4 ? 4 : r->swin;
    if (rc == MPI_SUCCESS)
        rc = reqs_grow(r, r->kids_base + n * r->swin);
    free(list);
    return rc;
}

static int post(struct sack_run *r, int rc, int slot)
{
    if (rc == MPI_SUCCESS && r->reqs[slot] != MPI_REQUEST_NULL)
        r->active++;
    return rc;
}

/* Post every receive and send that can go now. */
static int pump(struct sack_run *r)
{
    int rc = MPI_SUCCESS;
    /* segment receives from the parent, a window ahead */
    while (rc == MPI_SUCCESS && r->parent >= 0 && r->posted < r->nseg &&
           r->posted < r->have + (uint64_t)r->win) {
        int w = 0;
        while (w < r->win && r->reqs[R_DATA + w] != MPI_REQUEST_NULL)
            w++;
        if (w == r->win)
            return MPI_ERR_INTERN;
        r->rseg[w] = r->posted;
        rc = post(r, PMPI_Irecv(r->buf + r->posted * r->seg, (int)seg_len(r, r->posted), MPI_BYTE,
                                r->parent, SACK_TAG_DATA, r->comm, &r->reqs[R_DATA + w]),
                  R_DATA + w);
        r->posted++;
    }
    /* pacing (ACCT_SACK_PACE): the slowest of the children in step */
    uint64_t limit = UINT64_MAX;
    if (r->pace > 0) {
        uint64_t lead = 0, slow = UINT64_MAX;
        for (int c = 0; c < r->nchild; c++)
            if (r->kids[c].first_sent && r->kids[c].next > lead)
                lead = r->kids[c].next;
        for (int c = 0; c < r->nchild; c++)
            if (r->kids[c].first_sent && r->kids[c].next + r->pace >= lead &&
                r->kids[c].next < slow)
                slow = r->kids[c].next;
        if (slow != UINT64_MAX)
            limit = slow + r->pace;
    }
    /* each known child */
    for (int c = 0; rc == MPI_SUCCESS && c < r->nchild; c++) {
        struct sack_child *k = &r->kids[c];
        MPI_Request *slots = &r->reqs[r->kids_base + c * r->swin];
        if (k->rank < 0)
            continue;
        while (rc == MPI_SUCCESS && k->inflight < r->swin) {
            int w = 0;
            while (slots[w] != MPI_REQUEST_NULL)
                w++;
            if (!k->first_sent) {
                if (r->piggy && r->have < 1)
                    break;
                char *m = r->stage + (size_t)c * (size_t)first_len(r);
                int64_t hdr[2] = {k->pos, (int64_t)r->bytes};
                memcpy(m, hdr, sizeof hdr);
                if (r->piggy)
                    memcpy(m + SACK_HDR, r->buf, r->seg0);
                rc = PMPI_Isend(m, first_len(r), MPI_BYTE, k->rank, r->first_tag, r->comm,
                                &slots[w]);
                k->first_sent = true;
                k->next = r->piggy ? 1 : 0;
            } else if (k->next < r->have && k->next < limit) {
                rc = PMPI_Isend(r->buf + k->next * r->seg, (int)seg_len(r, k->next), MPI_BYTE,
                                k->rank, SACK_TAG_DATA, r->comm, &slots[w]);
                k->next++;
            } else
                break;
            rc = post(r, rc, r->kids_base + c * r->swin + w);
            k->inflight++;
        }
    }
    return rc;
}

/* The root of a probe: when x arrived and what it reports; once all are
 * in, the vote goes to every rank. */
static int on_arrival(struct sack_run *r, int x, int64_t rate_ps)
{
    int rc = MPI_SUCCESS;
    double rate = rate_ps > 0 && rate_ps < (int64_t)1e12 ? (double)rate_ps / SACK_PS : 0;
    r->arrive[x] = PMPI_Wtime() - r->t0;
    if (rate > 0 && (r->min_rate == 0 || rate < r->min_rate))
        r->min_rate = rate;
    if (r->arrived + 2 < r->size) /* not the last one yet */
        return MPI_SUCCESS;
    int vote = 0;
    double h = r->min_rate * (double)r->bytes;
    double s = r->nseg > 1 ? h * (double)r->seg / (double)r->bytes : h;
    r->arrive[r->root] = 0;
    r->pr->gain = r->pr->cost = 0;
    r->pr->h = h;
    if (h > 0) { /* no report yet (the site's first SACK call): no opinion */
        vote = sack_auto_judge(r->t, r->plan.fill, r->root, r->arrive, h, s, &r->pr->gain,
                               &r->pr->cost);
        vote = vote < -1 ? 0 : vote;
    }
    *r->vote_out = vote;
    for (int k = 0; k < r->size - 1 && rc == MPI_SUCCESS; k++) {
        int slot = R_FIXED + 2 * (r->size - 1) + k;
        rc = post(r, PMPI_Isend(r->vote_out, 1, MPI_INT64_T, (r->root + 1 + k) % r->size,
                                SACK_TAG_VOTE, r->comm, &r->reqs[slot]),
                  slot);
    }
    return rc;
}

static int place(struct sack_run *r, int x);

/* The root got x's SACK: give x the next position (unless x has one). */
static int on_sack(struct sack_run *r, int j, const MPI_Status *st)
{
    int x = (r->root + 1 + j) % r->size, n = 0;
    const int64_t *m = &r->sack_in[3 * j];
    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n != SACK_LEN || m[0] != SACK_MAGIC ||
        m[1] != (int64_t)r->bytes || r->arrived + 1 >= r->size)
        return MPI_ERR_INTERN; /* another call's message: ranks disagree */
    int rc = r->probe ? on_arrival(r, x, m[2]) : MPI_SUCCESS;
    r->arrived++;
    if (rc != MPI_SUCCESS || r->is_placed[x])
        return rc;
    rc = place(r, x);
    /* every position with children taken: the others go to the leaves now */
    bool full = r->early && r->placed == r->plan.ninner;
    for (int k = 1; rc == MPI_SUCCESS && full && k < r->size; k++)
        if (!r->is_placed[(r->root + k) % r->size])
            rc = place(r, (r->root + k) % r->size);
    return rc;
}

/* The root gives rank x the next position of the fill order. */
static int place(struct sack_run *r, int x)
{
    int j = (x - r->root - 1 + r->size) % r->size;
    if (r->placed + 1 >= r->size || r->is_placed[x])
        return MPI_ERR_INTERN;
    r->is_placed[x] = 1;
    int pos = sack_plan_position(&r->plan, ++r->placed);
    int up = sack_tree_parent(r->t, pos);
    if (up < 0 || r->rank_of_pos[up] < 0)
        return MPI_ERR_INTERN;
    r->rank_of_pos[pos] = x;
    if (up == 0) {
        int c = sack_tree_child_slot(r->t, 0, pos);
        if (c < 0 || c >= r->nchild)
            return MPI_ERR_INTERN;
        r->kids[c].rank = x;
        return MPI_SUCCESS;
    }
    int slot = R_FIXED + (r->size - 1) + j;
    r->ctrl_out[2 * j] = pos;
    r->ctrl_out[2 * j + 1] = x;
    return post(r, PMPI_Isend(&r->ctrl_out[2 * j], 2, MPI_INT32_T, r->rank_of_pos[up],
                              SACK_TAG_CTRL, r->comm, &r->reqs[slot]),
                slot);
}

/* A non-root got its FIRST: parent, position, maybe segment 0. */
static int on_first(struct sack_run *r, const MPI_Status *st)
{
    int n = 0, rc;
    int64_t hdr[2];
    memcpy(hdr, r->first_in, sizeof hdr);
    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n != first_len(r) ||
        st->MPI_SOURCE < 0 || st->MPI_SOURCE >= r->size || st->MPI_SOURCE == r->rank ||
        hdr[0] < 1 || hdr[0] >= r->size || hdr[1] != (int64_t)r->bytes)
        return MPI_ERR_INTERN;
    r->parent = st->MPI_SOURCE;
    /* the meter starts at FIRST (segment 0, if it rides along, is not timed) */
    sack_meter_piece(&r->meter, r->batch, r->t_batch, 0);
    if ((rc = kids_init(r, (int)hdr[0])) != MPI_SUCCESS)
        return rc;
    if (r->piggy) {
        memcpy(r->buf, r->first_in + SACK_HDR, r->seg0);
        r->have = r->posted = 1;
    }
    r->ctrl_left = r->nchild;
    if (r->ctrl_left > 0)
        rc = post(r, PMPI_Irecv(r->ctrl_in, 2, MPI_INT32_T, r->root, SACK_TAG_CTRL, r->comm,
                                &r->reqs[R_CTRL]),
                  R_CTRL);
    return rc;
}

/* A non-root learnt one child's rank from the root. */
static int on_ctrl(struct sack_run *r)
{
    int32_t pos = r->ctrl_in[0], x = r->ctrl_in[1];
    int c = pos > 0 && pos < r->size ? sack_tree_child_slot(r->t, r->pos, pos) : -1;
    if (c < 0 || c >= r->nchild || r->kids[c].rank >= 0 || x < 0 || x >= r->size ||
        x == r->rank || x == r->root)
        return MPI_ERR_INTERN;
    r->kids[c].rank = x;
    if (--r->ctrl_left > 0)
        return post(r, PMPI_Irecv(r->ctrl_in, 2, MPI_INT32_T, r->root, SACK_TAG_CTRL, r->comm,
                                  &r->reqs[R_CTRL]),
                    R_CTRL);
    return MPI_SUCCESS;
}

static int on_data(struct sack_run *r, int w)
{
    uint64_t k = r->rseg[w];
    if (k < r->have || k >= r->have + SACK_WINDOW)
        return MPI_ERR_INTERN;
    r->got[k % SACK_WINDOW] = 1;
    sack_meter_piece(&r->meter, r->batch, r->t_batch, (double)seg_len(r, k));
    while (r->have < r->nseg && r->got[r->have % SACK_WINDOW]) {
        r->got[r->have % SACK_WINDOW] = 0;
        r->have++;
    }
    return MPI_SUCCESS;
}

/* One completed request. */
static int on_done(struct sack_run *r, int i, const MPI_Status *st)
{
    r->active--;
    if (i == R_CTRL)
        return on_ctrl(r);
    if (i == R_FIRST)
        return on_first(r, st);
    if (i == R_SACK)
        return MPI_SUCCESS;
    if (i == R_VOTE)
        return r->vote_in >= -1 && r->vote_in <= 1 ? MPI_SUCCESS : MPI_ERR_INTERN;
    if (i < R_FIXED)
        return on_data(r, i - R_DATA);
    if (i >= r->kids_base) {
        r->kids[(i - r->kids_base) / r->swin].inflight--;
        return MPI_SUCCESS;
    }
    if (i < R_FIXED + r->size - 1) /* the root: a SACK */
        return on_sack(r, i - R_FIXED, st);
    return MPI_SUCCESS; /* the root: a CTRL went out */
}

static int start_root(struct sack_run *r)
{
    const int n = r->size - 1;
    int rc = MPI_SUCCESS;
    r->have = r->posted = r->nseg;
    r->kids_base = R_FIXED + (r->probe ? 3 : 2) * n; /* SACKs, CTRLs [, VOTEs] */
    r->t0 = PMPI_Wtime();
    if (r->probe && ((r->arrive = calloc((size_t)r->size, sizeof *r->arrive)) == NULL ||
                     (r->vote_out = calloc(1, sizeof *r->vote_out)) == NULL))
        return MPI_ERR_NO_MEM;
    if (sack_plan_init(&r->plan, r->t, rt_sack_fill()) != 0)
        return MPI_ERR_NO_MEM;
    r->rank_of_pos = malloc((size_t)r->size * sizeof *r->rank_of_pos);
    r->sack_in = malloc((size_t)n * 3 * sizeof *r->sack_in);
    r->ctrl_out = malloc((size_t)n * 2 * sizeof *r->ctrl_out);
    if (r->rank_of_pos == NULL || r->sack_in == NULL || r->ctrl_out == NULL ||
        reqs_grow(r, r->kids_base) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < r->size; i++)
        r->rank_of_pos[i] = -1;
    r->rank_of_pos[0] = r->rank;
    if ((rc = kids_init(r, 0)) != MPI_SUCCESS)
        return rc;
    if (r->early && sack_plan_defer_leaves(&r->plan) != 0)
        return MPI_ERR_NO_MEM;
    if ((r->is_placed = calloc((size_t)r->size, 1)) == NULL)
        return MPI_ERR_NO_MEM;
    for (int k = 1; rc == MPI_SUCCESS && r->early && r->plan.ninner == 0 && k < r->size; k++)
        rc = place(r, (r->root + k) % r->size); /* only leaves: all at once */
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++)
        rc = post(r, PMPI_Irecv(&r->sack_in[3 * j], SACK_LEN, MPI_BYTE, (r->root + 1 + j) % r->size,
                                SACK_TAG_SACK, r->comm, &r->reqs[R_FIXED + j]),
                  R_FIXED + j);
    return rc;
}

static int start_nonroot(struct sack_run *r)
{
    int rc;
    r->kids_base = R_FIXED;
    size_t at = ((size_t)first_len(r) + 7) & ~(size_t)7; /* the SACK, aligned */
    r->first_in = malloc(at + SACK_LEN);
    if (r->first_in == NULL || reqs_grow(r, R_FIXED) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    r->sack_out = (int64_t *)(void *)(r->first_in + at);
    rc = post(r, PMPI_Irecv(r->first_in, first_len(r), MPI_BYTE, MPI_ANY_SOURCE, r->first_tag,
                            r->comm, &r->reqs[R_FIRST]),
              R_FIRST);
    r->sack_out[0] = SACK_MAGIC;
    r->sack_out[1] = (int64_t)r->bytes;
    r->sack_out[2] = r->pr != NULL && r->pr->rate > 0 && r->pr->rate < 1
                         ? (int64_t)(r->pr->rate * SACK_PS)
                         : 0;
    if (rc == MPI_SUCCESS && r->probe)
        rc = post(r, PMPI_Irecv(&r->vote_in, 1, MPI_INT64_T, r->root, SACK_TAG_VOTE, r->comm,
                                &r->reqs[R_VOTE]),
                  R_VOTE);
    if (rc == MPI_SUCCESS)
        rc = post(r, PMPI_Isend(r->sack_out, SACK_LEN, MPI_BYTE, r->root, SACK_TAG_SACK, r->comm,
                                &r->reqs[R_SACK]),
                  R_SACK);
    return rc;
}

/* After an error: receives are cancelled and completed; sends are freed
 * (MPI completes them; their buffers are then leaked on purpose, as they
 * may still be read). */
static void abandon(struct sack_run *r)
{
    for (int i = 0; i < r->nreqs; i++) {
        if (r->reqs[i] == MPI_REQUEST_NULL)
            continue;
        bool recv = i == R_CTRL || i == R_FIRST || i == R_VOTE || (i >= R_DATA && i < R_FIXED) ||
                    (r->rank == r->root && i >= R_FIXED && i < R_FIXED + r->size - 1);
        if (recv) {
            PMPI_Cancel(&r->reqs[i]);
            PMPI_Wait(&r->reqs[i], MPI_STATUS_IGNORE);
        } else {
            PMPI_Request_free(&r->reqs[i]);
            r->stage = NULL;
            r->ctrl_out = NULL;
            r->first_in = NULL;
            r->vote_out = NULL;
        }
    }
}

int rt_sack_bcast(char *buf, uint64_t bytes, uint64_t seg, int root, const struct sack_tree *t,
                  MPI_Comm priv, int rank)
{
    return rt_sack_bcast_auto(buf, bytes, seg, root, t, priv, rank, NULL, NULL);
}

int rt_sack_bcast_auto(char *buf, uint64_t bytes, uint64_t seg, int root,
                       const struct sack_tree *t, MPI_Comm priv, int rank, struct sack_auto *a,
                       struct sack_probe *pr)
{
    struct sack_run r;
    int rc = MPI_SUCCESS;
    uint64_t seq = a != NULL ? a->seq++ : 0; /* every call counts, on every rank */

    if (pr != NULL)
        pr->vote = SACK_VOTE_NONE;
    if (bytes == 0 || t->size <= 1)
        return MPI_SUCCESS;
    memset(&r, 0, sizeof r);
    r.first_tag = a != NULL ? SACK_TAG_FIRST_SEQ + (int)(seq % SACK_SEQ_TAGS) : SACK_TAG_FIRST;
    r.early = a != NULL && t->size <= SACK_SEQ_TAGS;
    r.pr = pr;
    r.probe = pr != NULL && pr->probe;
    r.buf = buf;
    r.bytes = bytes;
    r.seg = seg == 0 || seg > bytes ? bytes : seg;
    r.nseg = (bytes + r.seg - 1) / r.seg;
    r.seg0 = r.seg;
    r.piggy = r.seg0 <= SACK_PIGGY_MAX;
    pthread_once(&inflight_once, inflight_read);
    r.win = (int)((inflight + r.seg - 1) / r.seg);
    r.win = r.win < 4 ? 4 : r.win > SACK_WINDOW ? SACK_WINDOW : r.win;
    pthread_once(&pace_once, pace_read);
    r.pace = pace;
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
    rc = rank == root ? start_root(&r) : start_nonroot(&r);
    while (rc == MPI_SUCCESS && (rc = pump(&r)) == MPI_SUCCESS && r.active > 0) {
        int n = 0;
        rc = PMPI_Waitsome(r.nreqs, r.reqs, &n, r.idx, r.stats);
        r.batch++;
        r.t_batch = PMPI_Wtime();
        for (int i = 0; rc == MPI_SUCCESS && n != MPI_UNDEFINED && i < n; i++)
            rc = on_done(&r, r.idx[i], &r.stats[i]);
    }
    /* everything arrived and went out? */
    if (rc == MPI_SUCCESS && (r.have != r.nseg || r.ctrl_left != 0 ||
                              (rank == root && r.arrived != r.size - 1)))
        rc = MPI_ERR_INTERN;
    for (int c = 0; rc == MPI_SUCCESS && c < r.nchild; c++)
        if (r.kids[c].rank < 0 || r.kids[c].next != r.nseg)
            rc = MPI_ERR_INTERN;
    if (rc != MPI_SUCCESS)
        abandon(&r);
    else if (pr != NULL) {
        pr->vote = !r.probe ? SACK_VOTE_NONE : rank == root ? (int)*r.vote_out : (int)r.vote_in;
        /* this rank's receive rate: from the MPI_Waitsome return that
         * reported FIRST to the one that reported the last segment, over the
         * segments reported after FIRST's (sack_meter) */
        pr->rate = rank != root && r.nseg > 1 ? sack_meter_rate(&r.meter) : 0;
    }
    free(r.reqs);
    free(r.idx);
    free(r.stats);
    free(r.kids);
    free(r.stage);
    free(r.first_in);
    free(r.rank_of_pos);
    free(r.sack_in);
    free(r.ctrl_out);
    free(r.arrive);
    free(r.vote_out);
    free(r.is_placed);
    sack_plan_fini(&r.plan);
    return rc;
}

/* ---- automatic mode: the call sites (sack.h) ---------------------------- */

/* The row of a collective in sack_auto.site, -1 for the others. */
static int auto_row(enum acct_coll_id coll)
{
    return coll == ACCT_COLL_bcast ? 0 : coll == ACCT_COLL_gather ? 1 : coll == ACCT_COLL_reduce ? 2 : -1;
}

static const enum acct_coll_id auto_colls[SACK_AUTO_COLLS] = {ACCT_COLL_bcast, ACCT_COLL_gather,
                                                               ACCT_COLL_reduce};

struct sack_auto_site *rt_sack_auto_site(struct sack_auto *a, enum acct_coll_id coll,
                                         const struct acct_table *tab, uint64_t bytes)
{
    int row = auto_row(coll);
    size_t i = tab != NULL && row >= 0 ? acct_table_index(tab, bytes) : SACK_AUTO_SITES;
    return i < SACK_AUTO_SITES ? &a->site[row][i] : NULL;
}

bool rt_sack_auto_begin(struct sack_auto *a, struct sack_auto_site *site, struct sack_probe *pr)
{
    site->calls++;
    memset(pr, 0, sizeof *pr);
    pr->probe = sack_auto_is_probe(site->calls);
    pr->rate = a->rate;
    pr->vote = SACK_VOTE_NONE;
    return pr->probe || site->hist.on;
}

/* The report's records (rt_sack_auto_report): touched only by calls that
 * took the SACK branch (probes and reordered calls), under a mutex. */
#define SACK_REPORT_MAX 32
static struct sack_auto_record {
    enum acct_coll_id coll;
    int comm_size;
    uint64_t lo, hi;
    uint64_t sack_calls, probes, votes[3]; /* votes -1, 0, +1 */
    uint64_t switched_on, switched_off;
    bool on;
    double gain, cost; /* the last probe judged here (s), cost 0: none */
} records[SACK_REPORT_MAX];
static size_t nrecords;
static uint64_t records_dropped;
static pthread_mutex_t records_mu = PTHREAD_MUTEX_INITIALIZER;

static void record(enum acct_coll_id coll, const struct sack_auto_site *site,
                   const struct sack_probe *pr, bool was, int comm_size, uint64_t lo, uint64_t hi)
{
    pthread_mutex_lock(&records_mu);
    struct sack_auto_record *r = NULL;
    for (size_t i = 0; i < nrecords && r == NULL; i++)
        if (records[i].coll == coll && records[i].comm_size == comm_size && records[i].lo == lo &&
            records[i].hi == hi)
            r = &records[i];
    if (r == NULL && nrecords < SACK_REPORT_MAX) {
        r = &records[nrecords++];
        *r = (struct sack_auto_record){.coll = coll, .comm_size = comm_size, .lo = lo, .hi = hi};
    }
    if (r == NULL)
        records_dropped++;
    else {
        r->sack_calls++;
        if (pr->vote != SACK_VOTE_NONE) {
            r->probes++;
            r->votes[pr->vote < 0 ? 0 : pr->vote == 0 ? 1 : 2]++;
            if (pr->cost > 0) {
                r->gain = pr->gain;
                r->cost = pr->cost;
            }
        }
        r->switched_on += !was && site->hist.on;
        r->switched_off += was && !site->hist.on;
        r->on = site->hist.on;
    }
    pthread_mutex_unlock(&records_mu);
}

void rt_sack_auto_report(FILE *f)
{
    pthread_mutex_lock(&records_mu);
    fprintf(f, "sack_auto:%s\n", nrecords == 0 ? " []" : "");
    for (size_t i = 0; i < nrecords; i++) {
        const struct sack_auto_record *r = &records[i];
        fprintf(f, "  - {collective: %s, comm_size: %d, bytes: [%llu, ", acct_coll_name(r->coll),
                r->comm_size, (unsigned long long)r->lo);
        if (r->hi == UINT64_MAX)
            fprintf(f, "max]");
        else
            fprintf(f, "%llu]", (unsigned long long)r->hi);
        fprintf(f, ", reordered_calls: %llu, probes: %llu, votes: {on: %llu, keep: %llu, off: %llu}, "
                   "switched_on: %llu, switched_off: %llu, state: %s",
                (unsigned long long)r->sack_calls, (unsigned long long)r->probes,
                (unsigned long long)r->votes[2], (unsigned long long)r->votes[1],
                (unsigned long long)r->votes[0], (unsigned long long)r->switched_on,
                (unsigned long long)r->switched_off, r->on ? "on" : "off");
        if (r->cost > 0)
            fprintf(f, ", last_gain_ms: %.3f, last_cost_ms: %.3f", r->gain * 1e3, r->cost * 1e3);
        fprintf(f, "}\n");
    }
    if (records_dropped > 0)
        fprintf(f, "sack_auto_dropped: %llu\n", (unsigned long long)records_dropped);
    pthread_mutex_unlock(&records_mu);
}

void rt_sack_auto_end(struct sack_auto *a, struct sack_auto_site *site, const struct sack_probe *pr,
                      uint64_t bytes, bool log, int comm_size, const struct acct_table *tab)
{
    size_t flat = (size_t)(site - &a->site[0][0]);
    size_t idx = flat % SACK_AUTO_SITES;
    enum acct_coll_id coll = auto_colls[flat / SACK_AUTO_SITES];
    uint64_t lo = tab != NULL && idx > 0 && idx < tab->n ? tab->max[idx - 1] + 1 : 0;
    uint64_t hi = tab != NULL && idx < tab->n ? tab->max[idx] : UINT64_MAX;
    bool was = site->hist.on;
    site->sack_calls++;
    if (pr->rate > 0)
        a->rate = pr->rate;
    if (pr->vote == SACK_VOTE_NONE) {
        record(coll, site, pr, was, comm_size, lo, hi);
        return;
    }
    site->probes++;
    if (pr->cost > 0) /* the root that judged */
        acct_debug("SACK automatic mode: probe at call %llu: vote %+d (gain %.3f ms, cost %.3f ms, "
                   "h %.3f ms)",
                   (unsigned long long)site->calls, pr->vote, pr->gain * 1e3, pr->cost * 1e3,
                   pr->h * 1e3);
    sack_auto_feed(&site->hist, pr->vote);
    record(coll, site, pr, was, comm_size, lo, hi);
    if (log && was != site->hist.on)
        acct_debug("SACK automatic mode: %s of %llu bytes (site %d): reordering %s from call "
                   "%llu on (%llu probes)",
                   acct_coll_name(coll), (unsigned long long)bytes, (int)idx,
                   site->hist.on ? "on" : "off",
                   (unsigned long long)site->calls + 1, (unsigned long long)site->probes);
}
