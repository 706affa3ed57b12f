/* The control side of a SACK call: requests, SACK, CTRL, VOTE (sack_ctl.h). */
#include "sack_ctl.h"

#include <stdlib.h>
#include <string.h>

#include "acct/log.h"

#define SACK_LEN (3 * (int)sizeof(int64_t)) /* a SACK: magic, n, rate */

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

enum sack_fill rt_sack_fill(void)
{
    pthread_once(&fill_once, fill_read);
    return fill_mode;
}

void sack_ctl_init(struct sack_ctl *x, const struct sack_proto *p, int64_t n,
                   const struct sack_tree *t, int root, MPI_Comm priv, int rank)
{
    memset(x, 0, sizeof *x);
    x->proto = p;
    x->n = n;
    x->t = t;
    x->root = root;
    x->rank = rank;
    x->size = t->size;
    x->comm = priv;
    x->t0 = PMPI_Wtime();
    x->pos = rank == root ? 0 : -1;
}

/* A free request slot (grows the table). -1: out of memory. */
static int slot_get(struct sack_ctl *x)
{
    if (x->nfree > 0)
        return x->freel[--x->nfree];
    if (x->nreqs == x->cap) {
        int cap = x->cap ? 2 * x->cap : 16;
#define CTL_GROW(field)                                                                            \
    do {                                                                                           \
        void *q_ = realloc(x->field, (size_t)cap * sizeof *x->field);                              \
        if (q_ == NULL)                                                                            \
            return -1;                                                                             \
        x->field = q_;                                                                             \
    } while (0)
        CTL_GROW(reqs);
        CTL_GROW(info);
        CTL_GROW(freel);
        CTL_GROW(idx);
        CTL_GROW(stats);
#undef CTL_GROW
        x->cap = cap;
    }
    x->reqs[x->nreqs] = MPI_REQUEST_NULL;
    return x->nreqs++;
}

static int post(struct sack_ctl *x, bool send, void *buf, int count, MPI_Datatype dt, int peer,
                int tag, int kind, int a, int b)
{
    int s = slot_get(x);
    if (s < 0)
        return MPI_ERR_NO_MEM;
    x->info[s] = (struct sack_slot){.kind = kind, .a = a, .b = b, .send = send};
    int rc = send ? PMPI_Isend(buf, count, dt, peer, tag, x->comm, &x->reqs[s])
                  : PMPI_Irecv(buf, count, dt, peer, tag, x->comm, &x->reqs[s]);
    if (rc == MPI_SUCCESS)
        x->active++;
    else
        x->freel[x->nfree++] = s;
    return rc;
}

int sack_ctl_recv(struct sack_ctl *x, void *buf, int count, MPI_Datatype dt, int src, int tag,
                  int kind, int a, int b)
{
    return post(x, false, buf, count, dt, src, tag, kind, a, b);
}

int sack_ctl_send(struct sack_ctl *x, const void *buf, int count, MPI_Datatype dt, int dst,
                  int tag, int kind, int a, int b)
{
    return post(x, true, (void *)(uintptr_t)buf, count, dt, dst, tag, kind, a, b);
}

/* This rank is at position pos: its children, none known yet. */
static int kids_at(struct sack_ctl *x, int pos)
{
    x->pos = pos;
    x->nchild = sack_tree_children(x->t, pos, NULL, 0);
    if (x->nchild < 0)
        return MPI_ERR_INTERN;
    x->kid_pos = malloc((size_t)(x->nchild + 1) * sizeof *x->kid_pos);
    x->kid_rank = malloc((size_t)(x->nchild + 1) * sizeof *x->kid_rank);
    if (x->kid_pos == NULL || x->kid_rank == NULL)
        return MPI_ERR_NO_MEM;
    for (int c = 0; c < x->nchild; c++)
        x->kid_rank[c] = -1;
    return sack_tree_children(x->t, pos, x->kid_pos, x->nchild) == x->nchild ? MPI_SUCCESS
                                                                            : MPI_ERR_INTERN;
}

/* ---- the root ----------------------------------------------------------- */

int sack_ctl_root_start(struct sack_ctl *x, bool timed)
{
    const int n = x->size - 1;
    int rc = kids_at(x, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    if (sack_plan_init(&x->plan, x->t, rt_sack_fill()) != 0)
        return MPI_ERR_NO_MEM;
    x->rank_of_pos = malloc((size_t)x->size * sizeof *x->rank_of_pos);
    x->sack_in = malloc((size_t)n * 3 * sizeof *x->sack_in);
    x->ctrl_out = malloc((size_t)n * 2 * sizeof *x->ctrl_out);
    if (x->rank_of_pos == NULL || x->sack_in == NULL || x->ctrl_out == NULL ||
        (timed && (x->arrive = calloc((size_t)x->size, sizeof *x->arrive)) == NULL))
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < x->size; i++)
        x->rank_of_pos[i] = -1;
    x->rank_of_pos[0] = x->rank;
    for (int j = 0; j < n && rc == MPI_SUCCESS; j++)
        rc = sack_ctl_recv(x, &x->sack_in[3 * j], SACK_LEN, MPI_BYTE, (x->root + 1 + j) % x->size,
                           x->proto->tag_sack, SACK_K_SACK_IN, j, 0);
    return rc;
}

/* The j-th source's SACK came in: it must be of this call (ranks that
 * disagree about the call would exchange another call's message). */
static int on_sack(struct sack_ctl *x, const struct sack_ops *ops, void *run, int j,
                   const MPI_Status *st)
{
    int r = (x->root + 1 + j) % x->size, cnt = 0;
    const int64_t *m = &x->sack_in[3 * j];
    if (PMPI_Get_count(st, MPI_BYTE, &cnt) != MPI_SUCCESS || cnt != SACK_LEN ||
        m[0] != x->proto->magic || m[1] != x->n || x->arrived + 1 >= x->size)
        return MPI_ERR_INTERN;
    x->arrived++;
    if (x->arrive != NULL)
        x->arrive[r] = PMPI_Wtime() - x->t0;
    double rate = m[2] > 0 && m[2] < (int64_t)SACK_PS ? (double)m[2] / SACK_PS : 0;
    if (rate > 0 && (x->min_rate == 0 || rate < x->min_rate))
        x->min_rate = rate;
    return ops->arrival(run, r);
}

int sack_ctl_place(struct sack_ctl *x, int r, struct sack_place *at)
{
    if (x->placed + 1 >= x->size)
        return MPI_ERR_INTERN;
    at->pos = sack_plan_position(&x->plan, ++x->placed);
    at->up = sack_tree_parent(x->t, at->pos);
    at->head = at->up == 0 ? at->pos : sack_tree_child_towards(x->t, 0, at->pos);
    at->src = (r - x->root - 1 + x->size) % x->size;
    if (at->pos < 1 || at->up < 0 || x->rank_of_pos[at->up] < 0 ||
        x->rank_of_pos[at->pos] >= 0 || at->head < 1 ||
        (at->head != at->pos && x->rank_of_pos[at->head] < 0))
        return MPI_ERR_INTERN;
    x->rank_of_pos[at->pos] = r;
    at->kid = at->up == 0 ? sack_tree_child_slot(x->t, 0, at->pos) : -1;
    if (at->up == 0 && (at->kid < 0 || at->kid >= x->nchild || x->kid_rank[at->kid] >= 0))
        return MPI_ERR_INTERN;
    if (at->kid >= 0)
        x->kid_rank[at->kid] = r;
    return MPI_SUCCESS;
}

int sack_ctl_tell_parent(struct sack_ctl *x, int up, int pos, int r)
{
    int j = (r - x->root - 1 + x->size) % x->size;
    x->ctrl_out[2 * j] = pos;
    x->ctrl_out[2 * j + 1] = r;
    return sack_ctl_send(x, &x->ctrl_out[2 * j], 2, MPI_INT32_T, x->rank_of_pos[up],
                         x->proto->tag_ctrl, SACK_K_SEND, 0, 0);
}

int sack_ctl_vote(struct sack_ctl *x, int vote)
{
    int rc = MPI_SUCCESS;
    if (x->vote_out == NULL && (x->vote_out = malloc(sizeof *x->vote_out)) == NULL)
        return MPI_ERR_NO_MEM;
    *x->vote_out = vote;
    for (int k = 1; k < x->size && rc == MPI_SUCCESS; k++)
        rc = sack_ctl_send(x, x->vote_out, 1, MPI_INT64_T, (x->root + k) % x->size,
                           x->proto->tag_vote, SACK_K_SEND, 0, 0);
    return rc;
}

/* ---- the other ranks ---------------------------------------------------- */

int sack_ctl_hello(struct sack_ctl *x, double rate, bool probe)
{
    int rc = MPI_SUCCESS;
    if ((x->sack_out = malloc(3 * sizeof *x->sack_out)) == NULL)
        return MPI_ERR_NO_MEM;
    x->sack_out[0] = x->proto->magic;
    x->sack_out[1] = x->n;
    x->sack_out[2] = rate > 0 && rate < 1 ? (int64_t)(rate * SACK_PS) : 0;
    if (probe)
        rc = sack_ctl_recv(x, &x->vote_in, 1, MPI_INT64_T, x->root, x->proto->tag_vote,
                           SACK_K_VOTE_IN, 0, 0);
    if (rc == MPI_SUCCESS)
        rc = sack_ctl_send(x, x->sack_out, SACK_LEN, MPI_BYTE, x->root, x->proto->tag_sack,
                           SACK_K_SEND, 0, 0);
    return rc;
}

int sack_ctl_placed(struct sack_ctl *x, int pos)
{
    int rc = kids_at(x, pos);
    if (rc != MPI_SUCCESS)
        return rc;
    x->ctrl_left = x->nchild;
    return x->ctrl_left > 0 ? sack_ctl_recv(x, x->ctrl_in, 2, MPI_INT32_T, x->root,
                                            x->proto->tag_ctrl, SACK_K_CTRL_IN, 0, 0)
                            : MPI_SUCCESS;
}

/* A CTRL came in: child c of this rank's position is rank r. */
static int on_ctrl(struct sack_ctl *x, const struct sack_ops *ops, void *run)
{
    int32_t pos = x->ctrl_in[0], r = x->ctrl_in[1];
    int c = pos > 0 && pos < x->size ? sack_tree_child_slot(x->t, x->pos, pos) : -1;
    int rc = MPI_SUCCESS;
    if (c < 0 || c >= x->nchild || x->kid_rank[c] >= 0 || r < 0 || r >= x->size ||
        r == x->rank || r == x->root || x->ctrl_left < 1)
        return MPI_ERR_INTERN;
    x->kid_rank[c] = r;
    if (--x->ctrl_left > 0)
        rc = sack_ctl_recv(x, x->ctrl_in, 2, MPI_INT32_T, x->root, x->proto->tag_ctrl,
                           SACK_K_CTRL_IN, 0, 0);
    return rc == MPI_SUCCESS && ops->child != NULL ? ops->child(run, c) : rc;
}

/* ---- the loop ----------------------------------------------------------- */

static int on_done(struct sack_ctl *x, const struct sack_ops *ops, void *run, int i,
                   const MPI_Status *st)
{
    struct sack_slot s = x->info[i];
    x->active--;
    x->freel[x->nfree++] = i;
    switch (s.kind) {
    case SACK_K_SEND:
        return MPI_SUCCESS;
    case SACK_K_SACK_IN:
        return on_sack(x, ops, run, s.a, st);
    case SACK_K_CTRL_IN:
        return on_ctrl(x, ops, run);
    case SACK_K_VOTE_IN:
        return x->vote_in >= -1 && x->vote_in <= 1 ? MPI_SUCCESS : MPI_ERR_INTERN;
    default:
        return ops->done(run, s.kind, s.a, s.b, st);
    }
}

/* After an error: receives are cancelled and completed; sends are freed
 * (MPI completes them; their buffers are then leaked on purpose, as they
 * may still be read). */
static void abandon(struct sack_ctl *x)
{
    for (int i = 0; i < x->nreqs; i++) {
        if (x->reqs[i] == MPI_REQUEST_NULL)
            continue;
        if (!x->info[i].send) {
            PMPI_Cancel(&x->reqs[i]);
            PMPI_Wait(&x->reqs[i], MPI_STATUS_IGNORE);
        } else {
            PMPI_Request_free(&x->reqs[i]);
            x->leaked = true;
        }
    }
}

int sack_ctl_run(struct sack_ctl *x, const struct sack_ops *ops, void *run)
{
    if (x->rank == x->root)
        pthread_once(ops->said, ops->say_first);
    int rc = x->rank == x->root ? ops->start_root(run) : ops->start_nonroot(run);
    while (rc == MPI_SUCCESS && (ops->pump == NULL || (rc = ops->pump(run)) == MPI_SUCCESS) &&
           x->active > 0) {
        int n = 0;
        rc = PMPI_Waitsome(x->nreqs, x->reqs, &n, x->idx, x->stats);
        x->batch++;
        x->t_batch = PMPI_Wtime();
        for (int i = 0; rc == MPI_SUCCESS && n != MPI_UNDEFINED && i < n; i++)
            rc = on_done(x, ops, run, x->idx[i], &x->stats[i]);
    }
    if (rc != MPI_SUCCESS)
        abandon(x);
    return rc;
}

bool sack_ctl_complete(const struct sack_ctl *x)
{
    if (x->rank == x->root ? x->arrived != x->size - 1 : x->pos < 1 || x->ctrl_left != 0)
        return false;
    for (int c = 0; c < x->nchild; c++)
        if (x->kid_rank[c] < 0)
            return false;
    return true;
}

int sack_ctl_voted(const struct sack_ctl *x)
{
    return x->rank == x->root ? (x->vote_out != NULL ? (int)*x->vote_out : 0) : (int)x->vote_in;
}

void sack_ctl_fini(struct sack_ctl *x)
{
    free(x->reqs);
    free(x->info);
    free(x->freel);
    free(x->idx);
    free(x->stats);
    free(x->rank_of_pos);
    free(x->sack_in);
    free(x->arrive);
    free(x->kid_pos);
    free(x->kid_rank);
    if (!x->leaked) {
        free(x->ctrl_out);
        free(x->vote_out);
        free(x->sack_out);
    }
    sack_plan_fini(&x->plan);
}
