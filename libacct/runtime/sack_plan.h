/* SACK reordering, the pure part (no MPI): which tree positions late and
 * early processes get (Vadhiyar et al. 2000, section 5).
 *
 * A tree algorithm's static tree is kept, but in *position* space: position
 * 0 is the root, positions 1..P-1 are the other nodes of the tree of
 * acct/topo.h (or a flat tree). With reordering the root hands positions
 * out in the order the other ranks' start-acknowledges (SACKs) arrive,
 * following a fill order of the positions:
 *
 *   breadth-first (BF): level by level, each level in serving order; the
 *       earliest arrivals take the positions nearest the root.
 *   depth-first (DF):   preorder, largest subtree first; the earliest
 *       arrivals run down the first branch, the last arrivals end up in
 *       the small subtrees served last.
 *
 *   binomial, 8 positions            BF order: 0 4 2 1 6 5 3 7
 *              0                     DF order: 0 4 6 7 5 2 3 1
 *         /    |    \
 *        4     2     1               arrivals a1..a7:
 *       / \    |                       BF: a1->4 a2->2 a3->1 a4->6 ...
 *      6   5   3                       DF: a1->4 a2->6 a3->7 a4->5 ...
 *      |
 *      7
 *
 * Both orders list every parent before its children, so when a position is
 * handed out its parent's rank is already known. */
#ifndef ACCT_RT_SACK_PLAN_H
#define ACCT_RT_SACK_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "acct/alg.h"
#include "acct/topo.h"

enum sack_fill {
    SACK_FILL_DF = 0, /* the default (the paper's better one) */
    SACK_FILL_BF = 1,
};

/* The tree of a plan: a kind of acct/topo.h with its fan-out, or flat
 * (the root is the parent of every other position). */
struct sack_tree {
    bool flat;
    enum acct_tree_kind kind; /* when !flat */
    int fanout;               /* chains for CHAIN, radix for KNOMIAL */
    int size;                 /* positions */
};

struct sack_plan {
    struct sack_tree tree;
    enum sack_fill fill;
    int *order; /* size entries: positions in fill order, order[0] = 0 */
    int ninner; /* after sack_plan_defer_leaves: order[1..ninner] are the positions
                 * with children, order[ninner+1..] the leaves; -1 before */
};

/* The tree that SACK reordering runs alg over (its registry row's sack,
 * acct/alg.h), on size positions, with the call's fan-out `fanout` (0: the
 * row's default) where the row takes it. Returns 0, or -1 if the row has
 * no SACK tree or the fan-out is outside the row's limits (then the call
 * runs without reordering). */
int sack_tree_of(const struct acct_alg *alg, int fanout, int size, struct sack_tree *out);

/* Parent position of pos (-1 for 0 and out-of-range positions). */
int sack_tree_parent(const struct sack_tree *t, int pos);

/* Number of children of pos; with out != NULL (room for max), also the
 * children in serving order. -1 on bad arguments or max too small. */
int sack_tree_children(const struct sack_tree *t, int pos, int *out, int max);

/* The child of pos whose subtree holds q (a proper descendant of pos), as
 * a position; -1 if q is not below pos. */
int sack_tree_child_towards(const struct sack_tree *t, int pos, int q);

/* Index of child among pos's children (serving order), -1 if not a child. */
int sack_tree_child_slot(const struct sack_tree *t, int pos, int child);

/* "bf" / "df" (case-insensitive; NULL or "" -> def). -1 for anything else. */
int sack_fill_parse(const char *s, enum sack_fill def, enum sack_fill *out);
const char *sack_fill_name(enum sack_fill f);

/* Compute the fill order. 0, or -1 (bad tree, out of memory). */
int sack_plan_init(struct sack_plan *p, const struct sack_tree *t, enum sack_fill fill);
void sack_plan_fini(struct sack_plan *p);

/* Move the leaves to the end of the fill order (stable: each part keeps
 * its order, so parents still come before children) and set p->ninner.
 * The runtime fills the positions that forward data with the earliest
 * arrivals, then places every rank not arrived yet on the leaves at once,
 * so that their data can flow into the network (and, over TCP, into their
 * socket buffers) before they enter the call. Returns 0, or -1. */
int sack_plan_defer_leaves(struct sack_plan *p);

/* The position of the i-th arrival (i from 1; 0 is the root itself). */
static inline int sack_plan_position(const struct sack_plan *p, int i)
{
    return p->order[i];
}

/* The whole mapping for an arrival order (tests and the simulator): arrival
 * holds the size-1 non-root ranks in the order their SACKs arrive; fills
 * rank_of_pos[size] (rank_of_pos[0] = root). 0, or -1 if arrival is not a
 * permutation of the non-root ranks. */
int sack_plan_map(const struct sack_plan *p, int root, const int *arrival, int *rank_of_pos);

/* ---- automatic mode (docs/sack.md "Automatic mode"): the pure parts ----
 *
 * Probe calls. A call site (communicator, collective, entry of the rules
 * table) counts its calls on every rank alike; calls 1, 2, 4, ..., 64 and
 * then every 64th are probes (SACK calls in which the root measures when
 * each rank arrived). */
bool sack_auto_is_probe(uint64_t call);

/* The criterion, at the root of a probe. arrive[r]: when rank r entered
 * the call, in seconds after the root did (the root's own is 0; ranks that
 * were there first count 0); h: seconds one whole message takes on one
 * link; s: one segment (h when unsegmented). Two simple models of the same
 * tree (sack_model_finish), both with eager sends (TCP: data flows into a
 * rank's socket buffers before it enters the call; it forwards once it
 * has entered):
 *   static:    rank (root + p) % size at position p; a parent sends to all
 *              its children at once, sharing its link;
 *   reordered: the positions with children by arrival order along the
 *              fill order, the leaves all at once when those are taken
 *              (sack_plan_defer_leaves); a parent serves each child as
 *              soon as it is placed, one transfer at a time on its link.
 * A transfer cannot end before the parent's own has (plus s).
 * gain = T_static - T_reordered; cost = the protocol's price,
 * SACK_AUTO_C0 + SACK_AUTO_REL * (T_static - latest arrival). Vote +1 when
 * gain > 1.1 cost, -1 when gain < cost, else 0. -2 on bad arguments. */
#define SACK_AUTO_C0 50e-6   /* seconds: SACK round trip and root overheads (docs/sack.md) */
#define SACK_AUTO_REL 0.05   /* and 5 % of the transfer time */
int sack_auto_judge(const struct sack_tree *t, enum sack_fill fill, int root, const double *arrive,
                    double h, double s, double *gain, double *cost);

/* Finishing time of a bcast over tree t with rank_of_pos (see above):
 * t_leaves < 0: the static model; else the reordered one, leaves placed at
 * t_leaves. < 0 on bad arguments or out of memory. */
double sack_model_finish(const struct sack_tree *t, const int *rank_of_pos, const double *arrive,
                         double h, double s, double t_leaves);

/* The criterion for the collectives whose data flows up (gather, reduce),
 * at the root of a probe; arrive as above. A model of the same tree with
 * rank_of_pos, children before parents: a node's incoming link serves one
 * child transfer at a time, in the order the children can start; a
 * transfer starts once the child can send its first piece, the parent has
 * entered (TCP rendezvous) and the link is free; it takes the child's
 * volume and ends no earlier than one piece after the child's last piece
 * is in. A node's partial result is complete when its last child transfer
 * is; it can send its first piece once every child's first piece is in
 * (reduce: one segment, s; gather reordered: its own block at once;
 * gather static: the whole subtree in one message, when complete).
 *   reduce: volume h (the whole vector) per transfer, pieces s (a segment;
 *           h when unsegmented), the same in both trees;
 *   gather: h is one block, volume = the child's subtree size x h, s = h.
 * sack_model_up_finish: the root's finishing time (gather: static tree
 * when !stream, reordered when stream). sack_auto_judge_up: static
 * (rank (root + p) % size at p) against reordered (the fill order in
 * arrival order, as rt_sack_gather/rt_sack_reduce place ranks), gain and
 * cost as sack_auto_judge; the same vote rule. -2 on bad arguments. */
double sack_model_up_finish(const struct sack_tree *t, const int *rank_of_pos,
                            const double *arrive, double h, double s, bool gather, bool stream);
int sack_auto_judge_up(const struct sack_tree *t, enum sack_fill fill, int root,
                       const double *arrive, double h, double s, bool gather, double *gain,
                       double *cost);

/* A rank's measure of the transfer time (docs/sack.md "Transfer time"):
 * the pieces one sender's data comes in as (segments, blocks), each noted
 * with the MPI_Waitsome return that reported it (numbered from 1) and
 * that return's time. Only the pieces reported by later returns than the
 * first piece's count, over the time from that return to the latest: the
 * pieces reported together with the first carry no time (they may have
 * been in long before, buffered or completed by the same progress call;
 * counting them gave rates of a microsecond per MiB on a loaded host and
 * every vote -1 with late ranks). Zero-initialised = nothing yet. */
struct sack_meter {
    uint64_t b_first;      /* the return of the first piece (0: none yet) */
    double t_first, t_end; /* its time, the latest later return's time */
    double bytes;          /* bytes reported by returns after b_first */
};

/* Note one piece of `bytes` reported by return `batch` (>= 1, never
 * decreasing) at time t (s). */
void sack_meter_piece(struct sack_meter *m, uint64_t batch, double t, double bytes);

/* Seconds per byte, or 0: no piece came in after the first one's return. */
double sack_meter_rate(const struct sack_meter *m);

/* Hysteresis over the votes of a call site (the same on every rank: every
 * rank feeds it the same votes). Turns on when at least 3 of the last 5
 * votes were +1, off when the last 5 were all -1. */
struct sack_auto_hist {
    unsigned plus, minus; /* the last 5 votes as bit masks, newest in bit 0 */
    unsigned n;           /* votes seen (up to 5 count) */
    bool on;
};

/* Feed one vote (+1, 0, -1); returns the new state (also in h->on). */
bool sack_auto_feed(struct sack_auto_hist *h, int vote);

#endif
