/* The control side of a SACK call (internal; docs/sack.md "The protocol"),
 * shared by the bcast (sack.c), scatter (sack_scatter.c) and gather and
 * reduce (sack_up.c) protocols; what moves the data stays in their files.
 *
 *   x -> root   SACK  {magic, n, rate}    on entry, every non-root x: the
 *                                         call's size n (bytes, block or
 *                                         count) and x's rate (automatic
 *                                         mode, sack.h; 0: none)
 *   root -> y   CTRL  {position p, rank x} x was given p, a child of y's
 *                                         position (y != root)
 *   root -> x   VOTE  {vote}              probe calls of the automatic mode
 *
 * The root receives one SACK per source (never MPI_ANY_SOURCE: a rank
 * already in its next call cannot have that call's SACK taken for this
 * one) and hands out tree positions in arrival order along the fill order
 * (sack_plan.h), parents before children. Each protocol has its own tags
 * (tags.h) and SACK magic, so no message of one matches another's.
 *
 * Progress: every request of the call lives in one table, each slot with
 * what its completion means (a kind, two numbers); sack_ctl_run loops over
 * MPI_Waitsome on all of them, so a rank serves each peer independently and
 * never blocks on one late process. */
#ifndef ACCT_RT_SACK_CTL_H
#define ACCT_RT_SACK_CTL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <mpi.h>

#include "sack_plan.h"

/* A protocol's control messages: its tags and the magic its SACK carries. */
struct sack_proto {
    int tag_sack, tag_ctrl, tag_vote;
    int64_t magic;
};

/* What a request's completion means: the control's kinds, then the
 * protocol's own from SACK_K_PROTO on. */
enum {
    SACK_K_SEND = 0, /* a send with nothing to do when it completes */
    SACK_K_SACK_IN,  /* the root: the SACK of source a (rank root + 1 + a) */
    SACK_K_CTRL_IN,  /* a non-root: the next CTRL */
    SACK_K_VOTE_IN,  /* a non-root of a probe: the vote */
    SACK_K_PROTO,
};

/* A protocol's part in the loop (run: its own state). */
struct sack_ops {
    int (*start_root)(void *run);      /* the root's first requests */
    int (*start_nonroot)(void *run);   /* the others' (then sack_ctl_hello) */
    int (*pump)(void *run);            /* post what can go now (NULL: nothing) */
    int (*arrival)(void *run, int x);  /* the root: x's SACK is in (counted, timed) */
    int (*child)(void *run, int c);    /* a non-root: CTRL named child c (NULL: nothing to do) */
    /* a request of the protocol's own kinds (>= SACK_K_PROTO) completed */
    int (*done)(void *run, int kind, int a, int b, const MPI_Status *st);
    /* once per process, the first time it is the root: a debug line
     * (ACCT_VERBOSE=2; tests look for it) */
    void (*say_first)(void);
    pthread_once_t *said;
};

#define SACK_PS 1e12 /* rates travel as picoseconds per byte */

struct sack_ctl {
    /* the call */
    const struct sack_proto *proto;
    int64_t n;        /* the size every SACK of the call carries */
    const struct sack_tree *t;
    int root, rank, size;
    MPI_Comm comm;
    double t0;        /* when this rank entered (PMPI_Wtime) */
    /* requests: a growing table with a free list */
    MPI_Request *reqs;
    struct sack_slot {
        int kind, a, b;
        bool send;
    } *info;
    int nreqs, cap, active;
    int *freel, nfree;
    int *idx;
    MPI_Status *stats;
    bool leaked;      /* sends handed to MPI_Request_free: their buffers must stay */
    uint64_t batch;   /* MPI_Waitsome returns so far */
    double t_batch;   /* when the last one returned (PMPI_Wtime) */
    /* the root */
    struct sack_plan plan;
    int *rank_of_pos; /* -1: not handed out yet */
    int arrived;      /* SACKs in */
    int placed;       /* positions handed out */
    int64_t *sack_in; /* 3 per source */
    int32_t *ctrl_out; /* 2 per source */
    double *arrive;   /* with timing: per rank, s after t0 its SACK came in */
    double min_rate;  /* the fastest rate reported (s/B, 0: none) */
    int64_t *vote_out; /* a probe (heap: sends may outlive an error) */
    /* this rank's place, once known (the root's at the start) */
    int pos;
    int nchild;       /* its children: */
    int *kid_pos;     /* their positions (sack_tree_children's order) */
    int *kid_rank;    /* their ranks, -1 until known (root: placed; others: CTRL) */
    /* a non-root */
    int ctrl_left;    /* CTRL messages still expected */
    int32_t ctrl_in[2];
    int64_t *sack_out;
    int64_t vote_in;
};

/* The fill order the root uses: ACCT_SACK_FILL=df|bf, read once (default
 * df). Only the root's value matters (the other ranks learn their places
 * from messages), so it need not be agreed between ranks. */
enum sack_fill rt_sack_fill(void);

/* Start a call of protocol p (n: the call's size) over tree t (t->size =
 * the communicator size) on priv, the private duplicate, in which this
 * process is rank. */
void sack_ctl_init(struct sack_ctl *x, const struct sack_proto *p, int64_t n,
                   const struct sack_tree *t, int root, MPI_Comm priv, int rank);

/* Post a receive or a send in a free slot; its completion is (kind, a, b)
 * (sends: SACK_K_SEND, or a kind of the protocol's own). */
int sack_ctl_recv(struct sack_ctl *x, void *buf, int count, MPI_Datatype dt, int src, int tag,
                  int kind, int a, int b);
int sack_ctl_send(struct sack_ctl *x, const void *buf, int count, MPI_Datatype dt, int dst,
                  int tag, int kind, int a, int b);

/* The root: the plan of fill order (rt_sack_fill), positions, a receive for
 * every source's SACK; timed: note when each SACK came in (x->arrive). */
int sack_ctl_root_start(struct sack_ctl *x, bool timed);

/* Where the root placed a rank. */
struct sack_place {
    int pos;  /* its position */
    int up;   /* its parent's position */
    int head; /* the root child whose subtree holds pos (pos itself for a root child) */
    int src;  /* its source index (its rank is root + 1 + src) */
    int kid;  /* a root child: its child index at the root (kid_rank), else -1 */
};

/* The root: give rank r the next position of the fill order (its parent's
 * position and the root child above it must have been handed out); a root
 * child becomes known in x->kid_rank. */
int sack_ctl_place(struct sack_ctl *x, int r, struct sack_place *at);

/* The root: tell the rank at position up that rank r has its child
 * position pos (CTRL; up != 0). */
int sack_ctl_tell_parent(struct sack_ctl *x, int up, int pos, int r);

/* The root of a probe: send vote to every other rank. */
int sack_ctl_vote(struct sack_ctl *x, int vote);

/* A non-root: send the SACK with this rank's rate (s per byte, 0: none)
 * and, in a probe, receive the vote. */
int sack_ctl_hello(struct sack_ctl *x, double rate, bool probe);

/* A non-root got position pos: its children (x->kid_pos), the CTRL that
 * names each (x->kid_rank, then ops->child). */
int sack_ctl_placed(struct sack_ctl *x, int pos);

/* Run the call: ops' start for this rank, then ops->pump, MPI_Waitsome over
 * every request and each completion to its handler, until nothing is
 * pending. On an error receives are cancelled and sends abandoned to MPI
 * (x->leaked: their buffers must not be freed). */
int sack_ctl_run(struct sack_ctl *x, const struct sack_ops *ops, void *run);

/* Every SACK arrived (the root), every CTRL (a non-root), every child known? */
bool sack_ctl_complete(const struct sack_ctl *x);

/* After a successful probe: the vote (the root's own, or the one it sent). */
int sack_ctl_voted(const struct sack_ctl *x);

void sack_ctl_fini(struct sack_ctl *x);

#endif
