/* The algorithm registry: the single home of every algorithm's facts (no
 * MPI needed): name, description, restrictions, parameters and their
 * limits, schedule builder, closed-form cost, the tree SACK reordering
 * runs it over, and its Open MPI coll/tuned equivalent.
 *
 * Rules validation, ACCT_FORCE parsing, `acctctl algorithms`, the
 * correctness matrix, the model, the SACK runtime, the Open MPI export and
 * the tuner all read this table; none of them matches algorithm names.
 * Each collective has the pseudo-algorithm "native" (the MPI library's own
 * implementation), which is also the fallback whenever a chosen
 * algorithm's restrictions do not hold for a call. tests/unit/test_registry.c
 * fails for a row that leaves a fact out. */
#ifndef ACCT_ALG_H
#define ACCT_ALG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct/coll.h"
#include "acct/layout.h"
#include "acct/plogp.h"
#include "acct/sched.h"
#include "acct/topo.h"

/* The shape of one call, as a builder sees it. Counts are in elements:
 *   bcast, reduce, allreduce:  count (send and receive type are the same)
 *   reduce_scatter_block:      count = elements per rank's block
 *   gather, scatter, allgather, alltoall: count = receive elements per
 *       block (receive type), scount = send elements per block (send type)
 *   barrier:                   count = 0
 *   allgatherv, reduce_scatter (acct_coll_vector): counts[i] = rank i's
 *       block, displs[i] = its offset in the receive buffer (RECV), both
 *       arrays of size elements that every rank has alike (allgatherv: in
 *       bytes, reduce_scatter: in elements of the datatype, displs the
 *       prefix sums of counts); count = the sum of counts, scount =
 *       counts[rank]. NULL for every other collective.
 *   gatherv, scatterv: at the root counts/displs as allgatherv's (bytes);
 *       elsewhere NULL, and the rank's own block is scount (gatherv) or
 *       count (scatterv) bytes. No rank but the root knows the others'
 *       -- except for an ACCT_ALG_ALL_COUNTS algorithm, whose call has
 *       counts (the root's, broadcast) on every rank, displs at the root.
 *   alltoallv: this rank's row only: scounts/sdispls what it sends to each
 *       rank, counts/displs what it receives from each (bytes).
 * layout: which ranks share a node (acct/layout.h), agreed by every rank;
 * NULL when unknown (then node-aware algorithms fall back), or
 * &acct_layout_any where only the communicator size is known (rules
 * tables: a layout-dependent restriction is then taken to hold). */
struct acct_call {
    enum acct_coll_id coll;
    int rank, size;
    int root;         /* -1 for collectives without a root */
    uint64_t count;
    uint64_t scount;
    uint64_t seg;     /* segment in elements of the receive type; 0 = none */
    int fanout;       /* tree radix / chains; 0 = the algorithm's default */
    bool in_place;    /* MPI_IN_PLACE where the call allows it */
    bool commutative; /* the op is commutative (reductions only) */
    const struct acct_layout *layout; /* ranks per node; NULL = unknown */
    const uint64_t *counts; /* v-collectives only (above) */
    const uint64_t *displs;
    const uint64_t *scounts; /* alltoallv only */
    const uint64_t *sdispls;
};

/* "Any layout": for applicability checks without a communicator (never
 * handed to a builder). */
extern const struct acct_layout acct_layout_any;

enum acct_alg_flags {
    ACCT_ALG_NATIVE = 1u << 0,      /* the MPI library's own collective */
    ACCT_ALG_COMMUTATIVE = 1u << 1, /* only for commutative operations */
    ACCT_ALG_POW2 = 1u << 2,        /* only for power-of-two sizes */
    ACCT_ALG_SEGMENTED = 1u << 3,   /* honours a segment size */
    ACCT_ALG_FANOUT = 1u << 4,      /* honours a fan-out / radix */
    ACCT_ALG_COUNT_GE_SIZE = 1u << 5, /* needs count >= size (splits the data) */
    ACCT_ALG_REORDER = 1u << 6,     /* SACK reordering can run it (docs/sack.md) */
    ACCT_ALG_NODES = 1u << 7,       /* node-aware: needs the call's layout */
    ACCT_ALG_ALL_COUNTS = 1u << 8,  /* gatherv/scatterv: reads counts on every rank (the
                                       runtime broadcasts the root's first; displs stay
                                       the root's alone) */
    ACCT_ALG_LEVELS = 1u << 9,      /* node-aware, and its closed form costs a layout: the
                                       model passes acct_cost.nodes and .intra (the phases
                                       within a node at the intra-node level, those between
                                       nodes at the inter-node one) */
};

/* Appends the calling rank's steps for this call. Pure: same call, same
 * schedule. Returns 0, or -1 if the call is outside the algorithm's domain. */
typedef int (*acct_build_fn)(const struct acct_call *call, struct acct_sched *s);

/* What a closed-form cost sees of a call (pLogP, docs/models.md): p ranks,
 * m bytes as acct-bench defines them (per block for the block collectives,
 * 0 for barrier), the network and the per-byte costs of reducing (gamma)
 * and copying (delta). Times in microseconds. */
struct acct_cost {
    const struct acct_plogp *net;
    double gamma_us_per_byte, delta_us_per_byte;
    int p;
    uint64_t m;
    uint64_t seg; /* segment bytes with ACCT_ALG_SEGMENTED, 0 = none; else 0 */
    int fanout;   /* with ACCT_ALG_FANOUT: the decision's, or the row's default; else 0 */
    int nodes;    /* nodes the p ranks span, in blocks (ACCT_ALG_NODES); 0 = one per rank */
    const struct acct_plogp *intra; /* ACCT_ALG_LEVELS with nodes: the intra-node level (net
                                       is then the inter-node one); NULL: net for both */
    /* ACCT_ALG_LEVELS with nodes: the simulator's NIC sharing (acct/model.h,
     * struct acct_model_nodes; NULL: none). nic_share(nic_ctx, c_out, c_in)
     * scales an inter-node send's gap when c_out ranks of a node send and
     * c_in receive between nodes in the same round; nic_factor(nic_ctx, n)
     * is the node's link in shared by n flows (a rank taking n_r of them
     * scales its receive gaps by nic_factor / n_r, at least 1);
     * pair_duplex (> 1) floors the gap of a message between two ranks that
     * also exchange the other way in that round (0: none);
     * pair_duplex_overlap: its first bytes that overlap the other way
     * (acct_model_nodes.pair_duplex_overlap_bytes; 0: the whole message
     * costs pair_duplex times, cost_duplex_g). */
    double (*nic_share)(const void *nic_ctx, int c_out, int c_in);
    double (*nic_factor)(const void *nic_ctx, int flows);
    const void *nic_ctx;
    double pair_duplex;
    uint64_t pair_duplex_overlap;
};

/* The algorithm's time for c by its formula, NAN where it has none (the
 * formula's domain: segments dividing m, P a power of two, ...). Pure. */
typedef double (*acct_cost_fn)(const struct acct_cost *c);

/* The two functions of algorithm NAME of collective COLL, both in
 * libacct/algs/COLL/COLL_NAME.c: its builder acct_COLL_NAME (an
 * acct_build_fn) and, at the end of the file, its closed form
 * acct_COLL_NAME_cost (an acct_cost_fn). Each COLL/COLL.h declares its
 * algorithms with it, one line each. */
#define ACCT_ALG_FUNCTIONS(coll, name)                                            \
    int acct_##coll##_##name(const struct acct_call *call, struct acct_sched *s); \
    double acct_##coll##_##name##_cost(const struct acct_cost *c)

/* The tree SACK reordering (docs/sack.md) hands positions out over: none
 * (no reordering), flat (the root is every other position's parent), or a
 * tree of acct/topo.h with a fixed fan-out or, with fanout 0, the call's
 * fan-out within the row's fanout_min..fanout_max (ACCT_ALG_FANOUT). */
enum acct_sack_shape {
    ACCT_SACK_NONE = 0,
    ACCT_SACK_FLAT,
    ACCT_SACK_TREE,
};

struct acct_alg_sack {
    enum acct_sack_shape shape;
    enum acct_tree_kind kind; /* ACCT_SACK_TREE */
    int fanout;               /* ACCT_SACK_TREE: fixed fan-out, or ACCT_SACK_CALL_FANOUT */
};
#define ACCT_SACK_CALL_FANOUT 0

/* The algorithm's Open MPI 4.1.4 coll/tuned equivalent (docs/decisions.md,
 * the Open MPI export). */
struct acct_alg_ompi {
    int id;           /* coll_tuned_<coll>_algorithm value, 0 = Open MPI decides */
    const char *name; /* Open MPI's name for it, "(decision)" for 0; NULL = not stated */
    bool exact;       /* the same algorithm, not only the nearest one */
};
/* No Open MPI equivalent: Open MPI's own decision runs. */
#define ACCT_ALG_OMPI_NONE {0, "(decision)", false}

/* Symmetry of the schedules (docs/models.md, "Symmetric view"): every
 * rank's schedule is rank 0's with each peer p relabelled, for rank r, to
 * (p + r) mod P (SHIFT: rings, pairwise, Bruck, dissemination) or p XOR r
 * (XOR, P a power of two only: recursive doubling and halving), with the
 * same message sizes and, per round, the same local work. Then every
 * rank's timeline under the simulator (pLogP, no contention) is rank 0's,
 * and the simulator runs rank 0's schedule alone. A claim about the
 * algorithm; the simulator still checks sampled ranks against it per call
 * (uneven blocks break it), and tests/unit/model/test_model_sym.c proves it
 * against the full simulation. */
enum acct_alg_symmetry {
    ACCT_SYM_NONE = 0,
    ACCT_SYM_SHIFT,
    ACCT_SYM_XOR,
};

struct acct_alg {
    enum acct_coll_id coll;
    const char *name;        /* unique within the collective */
    const char *description; /* one line */
    unsigned flags;          /* enum acct_alg_flags */
    int fanout_default, fanout_min, fanout_max; /* when ACCT_ALG_FANOUT */
    acct_build_fn build;     /* NULL for native */
    acct_cost_fn cost;       /* closed form; NULL for native */
    struct acct_alg_sack sack; /* ACCT_SACK_NONE unless ACCT_ALG_REORDER */
    struct acct_alg_ompi ompi;
    /* When the algorithm's restrictions do not hold for a call: the name of
     * the algorithm of the same collective to try next (NULL: native). The
     * chain ends at an algorithm without the failing restriction. */
    const char *fallback;
    enum acct_alg_symmetry symmetry; /* ACCT_SYM_NONE unless stated */
};

/* The table, in registry order; ends with an entry whose name is NULL. */
extern const struct acct_alg acct_algs[];

/* Number of entries (without the sentinel). */
int acct_alg_count(void);

/* Lookup by collective and name; NULL if unknown. */
const struct acct_alg *acct_alg_find(enum acct_coll_id coll, const char *name);

/* The native entry of a collective. */
const struct acct_alg *acct_alg_native(enum acct_coll_id coll);

/* Registry index of an entry (stable within one build). */
int acct_alg_index(const struct acct_alg *alg);

/* Do alg's restrictions hold for this call? If not, *why (if not NULL) gets
 * a static reason. Native is always applicable. */
bool acct_alg_applicable(const struct acct_alg *alg, const struct acct_call *call,
                         const char **why);

/* May SACK reordering (docs/sack.md) run alg? It must carry
 * ACCT_ALG_REORDER; with call != NULL, also the call: a reduction
 * (acct_coll_reduces) only with a commutative operation, since reordering
 * changes which operands meet in which order. call == NULL checks the
 * algorithm alone (rules validation, ACCT_FORCE). If not, *why (if not
 * NULL) gets a static reason. Depends on agreed inputs and the call's shape
 * only (docs/architecture.md rule 1). */
bool acct_alg_reorderable(const struct acct_alg *alg, const struct acct_call *call,
                          const char **why);

/* Writes '<coll> <alg> has no SACK reordering (reorder-capable <coll>
 * algorithms: a, b | none)' into buf (truncated if short). Returns buf. */
const char *acct_alg_reorder_msg(const struct acct_alg *alg, char *buf, size_t len);

/* What runs a call decided as alg: alg itself if its restrictions hold for
 * *call, else the first applicable algorithm along its fallback chain, else
 * native (never NULL). When the result is not alg, call->seg is cleared for
 * an algorithm without ACCT_ALG_SEGMENTED and call->fanout for one without
 * ACCT_ALG_FANOUT (its default applies). Depends on the call's shape only,
 * so every rank picks alike (docs/architecture.md rule 1). */
const struct acct_alg *acct_alg_resolve(const struct acct_alg *alg, struct acct_call *call);

/* Build the schedule for call with alg (resets s first, keeping its
 * step_limit). Returns 0, or -1 (not applicable, builder refused, or out
 * of memory), or -2 (more steps than s->step_limit). */
int acct_alg_schedule(const struct acct_alg *alg, const struct acct_call *call,
                      struct acct_sched *s);

#endif
