/* SACK reordering at run time (internal; docs/sack.md, Vadhiyar et al. 2000, §5).
 *
 * A tree broadcast whose decision has `reorder: true` runs here instead of
 * through a static schedule: every non-root sends a start-acknowledge to
 * the root on entry, the root hands out tree positions in arrival order
 * (sack_plan.h: depth- or breadth-first), tells each parent about its
 * children as they are placed, and each parent tells a child its position
 * piggy-backed on the first data segment. Data flows down the tree in
 * segments, each parent serving each child independently as soon as it is
 * known, so a late process delays only itself (and its own subtree, which
 * it gets only if it arrived early enough to be given one).
 *
 * Messages use ACCT's private duplicate of the communicator and their own
 * tags (tags.h): no message can match the application's or a schedule's. */
#ifndef ACCT_RT_SACK_H
#define ACCT_RT_SACK_H

#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

#include "acct/rules.h"
#include "acct/table.h"
#include "sack_ctl.h"
#include "sack_plan.h"
#include "tags.h"

/* Broadcast `bytes` bytes at buf (the root's are the input) from root over
 * tree t (t->size = the communicator size) in segments of seg bytes (0: one
 * segment), with reordering, on priv (the private duplicate; rank is this
 * process's rank in it). Every rank of the communicator must call it for
 * the same call. Returns MPI_SUCCESS or an MPI error code. */
int rt_sack_bcast(char *buf, uint64_t bytes, uint64_t seg, int root, const struct sack_tree *t,
                  MPI_Comm priv, int rank);

/* ---- automatic mode (docs/sack.md "Automatic mode") ---------------------
 *
 * A call site is (communicator, collective, entry of the communicator's
 * rules table of that collective): bcast, gather and reduce (sack_up.c
 * has the probes of the last two); the first SACK_AUTO_SITES entries of
 * each table have one each.
 * Every rank counts the calls of each site alike; probe calls
 * (sack_auto_is_probe) run as SACK calls in which the root records when
 * each rank arrived, judges (sack_auto_judge) and sends its vote to every
 * rank (VOTE, after the last SACK: only then are all arrivals known); all
 * ranks feed the same vote to the site's hysteresis and follow its state
 * (reorder or not) from the next call on. The transfer time the criterion
 * needs comes from the ranks: each SACK carries the time per byte that its
 * sender measured while receiving in its last SACK call on this
 * communicator (0: none yet); the root takes the fastest. */
#define SACK_AUTO_SITES 8
#define SACK_AUTO_COLLS 3 /* bcast, gather, reduce */

struct sack_auto {
    struct sack_auto_site {
        uint64_t calls;             /* calls of this site so far */
        struct sack_auto_hist hist; /* votes and state (on: reorder) */
        uint64_t probes, sack_calls;
    } site[SACK_AUTO_COLLS][SACK_AUTO_SITES];
    double rate; /* s per byte received in this rank's last SACK call (0: none) */
    uint64_t seq; /* SACK bcast calls on this communicator (FIRST's tag) */
};

#define SACK_VOTE_NONE (-9) /* no vote (degenerate call: every rank knows) */

/* One call's part in the automatic mode. */
struct sack_probe {
    bool probe;   /* in: a probe (the same on every rank) */
    double rate;  /* in: this rank's report; out: measured in this call (0: none) */
    int vote;     /* out: the root's vote in a probe (+1, 0, -1), else SACK_VOTE_NONE */
    double gain, cost; /* out, at the root of a probe: the criterion's figures (s) */
    double h;          /* out, at the root of a probe: the transfer time judged with (s) */
};

/* rt_sack_bcast with the communicator's state a (may be NULL) and the
 * automatic mode's part (pr may be NULL). With a, the calls are numbered
 * (every rank must make every SACK bcast call of the communicator through
 * here with the same a), and the root places the ranks that have not
 * arrived on the leaves as soon as every position with children is
 * taken (sack_plan_defer_leaves; communicators up to SACK_SEQ_TAGS ranks):
 * their data flows before they enter. Without a: rt_sack_bcast. */
int rt_sack_bcast_auto(char *buf, uint64_t bytes, uint64_t seg, int root,
                       const struct sack_tree *t, MPI_Comm priv, int rank, struct sack_auto *a,
                       struct sack_probe *pr);

/* The site of a call of collective coll (bcast, gather or reduce) whose
 * decision came from entry `entry` of the communicator's rules table of
 * coll (rt_decide_call; SIZE_MAX: none), or NULL: no automatic mode for
 * it. */
struct sack_auto_site *rt_sack_auto_site(struct sack_auto *a, enum acct_coll_id coll,
                                         size_t entry);

/* Before the call: counts it; true if it runs with reordering (the site is
 * on, or the call is a probe); fills *pr. */
bool rt_sack_auto_begin(struct sack_auto *a, struct sack_auto_site *site, struct sack_probe *pr);

/* After a successful call that took the SACK branch: keeps the rate
 * measured, feeds the vote; log (one process, e.g. rank 0 of the
 * communicator) writes a debug line when the state changes. The site's
 * bytes range comes from tab (the communicator's rules of the collective) and, with
 * comm_size, keys this process's record for the report (rt_sack_auto_report). */
void rt_sack_auto_end(struct sack_auto *a, struct sack_auto_site *site, const struct sack_probe *pr,
                      uint64_t bytes, bool log, int comm_size, const struct acct_table *tab);

/* The process's record of the automatic mode, per (communicator size,
 * bytes range of a rule) and summed over its communicators: reordered
 * calls, probes, votes, switches, the state after the last call, the last
 * probe's figures (where this process was the root). Written as the
 * ACCT_REPORT section `sack_auto:` (docs/user-guide.md). */
void rt_sack_auto_report(FILE *f);

#endif
