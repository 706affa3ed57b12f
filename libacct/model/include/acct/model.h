/* Performance models and the schedule simulator (no MPI needed).
 *
 * Network parameters are pLogP (Kielmann et al. 2000, as used by Barchet-Estefanel & Mounié 2004): per message
 * size m the send overhead os(m), the receive overhead or(m) and the gap
 * g(m) (minimum time between the starts of two consecutive sends of one
 * rank; g(m) >= os(m), or(m)), plus the latency L. A message of m bytes
 * sent at t by an idle rank to an idle rank is complete at the receiver at
 * t + g(m) + L. LogGP (March et al.) converts to and from pLogP (below).
 *
 * Three estimates of one collective call (collective, decision, p ranks,
 * message bytes m as acct-bench defines them, docs/acct-bench.md):
 *   acct_model_closed_form()  the algorithm's formula (docs/models.md),
 *                             NAN where there is none;
 *   acct_model_simulate()     runs the algorithm's actual per-rank
 *                             schedules (acct_alg_schedule) through the
 *                             discrete-event simulator below;
 *   acct_model_predict()      the best of the two available: the simulation
 *                             when it is affordable, else the closed form;
 *                             acct_model_predict_how() also says which.
 * All times are in microseconds. Data are bytes (element size 1); reductions
 * are costed at gamma_us_per_byte per reduced byte, local copies at
 * delta_us_per_byte per copied byte.
 *
 * Simulator semantics (docs/models.md has the full statement): every rank
 * starts at time 0 and runs its rounds as libacct/runtime/exec.c does —
 * post the round's receives, then its sends in schedule order, wait for all
 * of them, then run the round's local steps in order. A rank's k-th send
 * starts at max(its round's start, previous send's start + g(previous m))
 * and completes locally os(m) later; its data is at the receiver at
 * start + g(m) + L; a receive completes at max(arrival, round start +
 * or(m), previous receive's completion in this round + or(m)), receives
 * being taken in arrival order. The round ends when all its sends and
 * receives completed, plus its local steps' costs. The call's time is the
 * latest round end of any rank. */
#ifndef ACCT_MODEL_H
#define ACCT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acct/alg.h"
#include "acct/coll.h"
#include "acct/plogp.h"
#include "acct/rules.h"

/* LogGP (Alexandrov et al. 1995; March et al., Table 1). A point-to-point message
 * of m bytes costs L + 2o + (m - 1)G. */
struct acct_loggp {
    double L_us, o_us, g_us, G_us_per_byte;
};

/* pLogP tables (struct acct_plogp) and their interpolated os(m), or(m),
 * g(m): acct/plogp.h. */

/* Checks a table: 1 <= n <= ACCT_PLOGP_MAX_SIZES, sizes strictly
 * increasing, every value finite and >= 0 (L too). Returns 0, or -1 with a
 * message naming the field ("g_us[3]: ...") in err. */
int acct_plogp_check(const struct acct_plogp *t, char *err, size_t errlen);

/* pLogP -> LogGP, the conversion rules of March et al., Fig. 2 (after Kielmann):
 *   L = L' + g(1) - os(1) - or(1)   o = (os(1) + or(1)) / 2   g = g(1)
 *   G = g(M) / M with M the largest sampled size (> 1),
 * so that L + 2o = L' + g(1): the one-byte message costs the same in both.
 * When that L would be negative (os(1) + or(1) > L' + g(1)), L = 0 and
 * o = (L' + g(1)) / 2 instead: the one-byte time is kept and every
 * parameter is >= 0. Returns 0, or -1 if t is invalid (out untouched). */
int acct_plogp_to_loggp(const struct acct_plogp *t, struct acct_loggp *out);

/* LogGP -> pLogP (the inverse used to run the simulator on LogGP numbers):
 * os(m) = or(m) = o, g(m) = g + (m - 1)G (g at m = 0), L' = L + 2o - g,
 * sampled at m = 0, 1, 2 (exact everywhere by the interpolation rules).
 * One-way time L' + g(m) = L + 2o + (m - 1)G for m >= 1. Returns 0, or -1
 * if a parameter is negative or not finite. */
int acct_loggp_to_plogp(const struct acct_loggp *p, struct acct_plogp *out);

/* Two networks and a layout (issue 21, docs/models.md "Calibrated per
 * partition"). With ranks_per_node > 0 the simulator places rank r of a
 * p-rank call on node r / ranks_per_node (block) or r % nnodes (cyclic,
 * nnodes = ceil(p / ranks_per_node)), as the runtime's locality and the
 * result's placement (BLOCK, CYCLIC) name them, and costs every message by
 * its endpoints: `intra` when they share a node, `inter` otherwise. An
 * inter-node send's gap is scaled by the NIC sharing of its step: c ranks
 * of one node that send between nodes in the same round (round index, the
 * lockstep approximation) each see the gap times
 *   1 + (nic_gap_factor - 1) * (c - 1) / (nic_pairs - 1)   (measured: the
 *   per-pair gap multiplier of nic_pairs concurrent pairs between two nodes)
 * or times c when no factor was measured (nic_gap_factor 0: the bandwidth
 * split evenly). When the node's ranks also receive between nodes in that
 * round (c' receivers) and the two-way factor was measured
 * (nic_bidir_factor B: the per-pair gap multiplier of nic_bidir_pairs k'
 * pairs that exchange both ways at once between two nodes, against one
 * pair one way), the gap is scaled by the larger of that and
 *   1 + (B - 1) * (max(c, c') - 1) / (k' - 1)
 * (one flow each way, as in a ring, costs nothing extra; docs/models.md
 * "Calibrated per partition"). The receiving side: the n flows into a node
 * from other nodes in the rounds of the same index (per rank, the distinct
 * peers it receives from) each take f(n) (the one-way formula above); a
 * rank's own n_r flows are one receive gap apart already, so its
 * inter-node receive gaps are scaled by max(1, f(n) / n_r). ranks_per_node 0: one network (net) for every message, as
 * before the calibration. A layout needs the full simulation (every rank);
 * where only a closed form answers it is costed on `inter` (`intra` when
 * the call fits on one node). */
struct acct_model_nodes {
    int ranks_per_node;        /* 0: no layout */
    bool cyclic;               /* placement: cyclic, else block */
    struct acct_plogp intra, inter;
    double nic_gap_factor;     /* >= 1, or 0: not measured */
    int nic_pairs;             /* the k of nic_gap_factor (>= 2 when measured) */
    double nic_bidir_factor;   /* >= 1, or 0: not measured (the one-way factor alone) */
    int nic_bidir_pairs;       /* the k' of nic_bidir_factor (>= 2 when measured) */
    double pair_duplex_factor; /* > 1: an inter-node message between two ranks that also
                                  exchange the other way in that round has its gap times
                                  at least this (one pair both ways against one way); 0 or
                                  1: no such term. acct-tune measures it
                                  (acct_plogp_pair_duplex; result
                                  model.nic.pair_duplex_factor); acct-tune-replay
                                  --pair-duplex sets it to test a value */
    uint64_t pair_duplex_overlap_bytes; /* c: with pair_duplex_factor D > 1, such a
                                  message of m > c bytes costs g(m) + (D - 1) g(m - c)
                                  (its first c bytes overlap the other way, the rest
                                  does not: Open MPI 4.1's TCP path sends a message's
                                  first 64 + 128 KiB by send/receive and the rest by
                                  its RDMA put, and two puts the opposite ways over one
                                  connection do not overlap; docs/performance.md 16,
                                  "Session 35"); m <= c: g(m). 0: the factor on the
                                  whole message, D g(m). acct-tune measures it with D
                                  (acct_plogp_pair_overlap; result
                                  model.nic.pair_duplex_overlap_bytes);
                                  acct-tune-replay --pair-duplex-overlap sets it */
};

struct acct_model_memo;

/* One rank's round as the full simulation timed it (the trace: struct
 * acct_model.round_fn): the round's start and end (its communication's end
 * plus its local steps, local_us), and the bytes its sends and receives
 * moved within its node (intra) and between nodes (inter; without a layout
 * every message counts as inter). */
struct acct_model_round {
    int rank;
    uint32_t round;
    double start_us, end_us, local_us;
    uint64_t intra_bytes, inter_bytes;
};
typedef void (*acct_model_round_fn)(void *ctx, const struct acct_model_round *r);

/* Everything a prediction needs. */
struct acct_model {
    struct acct_plogp net;
    struct acct_model_nodes nodes; /* zero: one network (net) */
    double gamma_us_per_byte; /* local reduction (REDUCE step) per byte */
    double delta_us_per_byte; /* local copy (COPY step) per byte */
    double contention;        /* all-to-all contention ratio in [0, 1]
                                 (Barchet-Estefanel & Mounié 2004, Table 3; 0.4 there) */
    size_t sim_budget_bytes;  /* the simulator's memory budget; 0 = ACCT_MODEL_SIM_BUDGET */
    struct acct_model_memo *memo; /* NULL, or acct_model_predict_how's memo (below) */
    acct_model_round_fn round_fn; /* not a parameter: when set, acct_model_simulate_view
                                     simulates every rank (never the symmetric view) and
                                     reports each rank's rounds to it, with round_ctx,
                                     ranks in order and each rank's rounds in order
                                     (acct-tune-replay --trace) */
    void *round_ctx;
};


/* The simulator's default memory budget: a simulation whose schedules
 * would take more (estimated from a few ranks' schedules before the others
 * are built: about 48 bytes per step and 96 per rank; one rank's schedule
 * as struct acct_step, 56 bytes per step, counts too) is refused with a
 * message saying so, and acct_model_predict_how() answers with the closed
 * form. */
#define ACCT_MODEL_SIM_BUDGET ((size_t)256 * 1024 * 1024)

/* Defaults: gamma = delta = 0, contention 0.4, the default simulator
 * budget, net must be filled. */
void acct_model_init(struct acct_model *mdl);

/* Checks net and the three factors (finite, >= 0, contention <= 1), and
 * with a layout (nodes.ranks_per_node > 0) both tables and the NIC factors
 * (each 0, or >= 1 with its pairs >= 2); messages name the field ("inter.g_us[2]: ..."). */
int acct_model_check(const struct acct_model *mdl, char *err, size_t errlen);

/* The node of rank r in a p-rank call under mdl's layout (0 without one). */
int acct_model_node_of(const struct acct_model *mdl, int p, int r);

/* The table a message between ranks a and b of a p-rank call costs:
 * net without a layout, else intra or inter. */
const struct acct_plogp *acct_model_net_between(const struct acct_model *mdl, int p, int a,
                                                int b);

/* The per-pair gap multiplier of c concurrent inter-node senders on one
 * node (the formula above; 1 for c <= 1). */
double acct_model_nic_factor(const struct acct_model *mdl, int c);

/* The same with c_in ranks of that node receiving between nodes in the same
 * round: acct_model_nic_factor(c_out), or with c_in >= 1 and a measured
 * two-way factor the larger of it and the two-way formula above at
 * max(c_out, c_in). 1 for c_out <= 0. */
double acct_model_nic_share(const struct acct_model *mdl, int c_out, int c_in);

/* Is t a table a pLogP measurement can give on a working network? Two
 * properties of pLogP (Kielmann et al. 2000) that a measurement disturbed
 * by the host (a rank not scheduled while its peer times it) breaks, each
 * with a factor 2 of slack for noise:
 *   or(m) <= 2 RTT(m), RTT(m) = 2 (L + g(m))  the receive of a message that
 *                           has arrived takes no longer than a round trip;
 *   g(m') >= g(m) / 2 for m' > m  the gap does not fall with the size.
 * Returns 0, or -1 with the first violation in err ("or_us[0]: 8487 us at 1
 * bytes, above twice the round trip 2 (L + g) = 1090 us"). A table that fails is not a
 * network's: acct-tune measures it again, and says the model is not valid
 * where it stays inconsistent (docs/models.md "Measuring pLogP"). */
int acct_plogp_consistent(const struct acct_plogp *t, char *err, size_t errlen);

/* The gap of an m-byte message on a link that sustains no more than the
 * bandwidth of its largest measured messages: max(g(m), m * G), G the
 * per-byte increase of g between t's two largest samples M' < M, at most
 * g(M) / M (no floor with fewer than two samples or G <= 0; a LogGP table
 * converted by acct_loggp_to_plogp gives its G, never above its g(m)).
 * The simulator costs
 * inter-node messages (a layout spanning nodes) with it: a pLogP stream of
 * k = 12 messages of m bytes that fits in a shaper's or a switch's burst
 * (a token bucket, docs/models.md "Calibrated per partition") measures the
 * burst, not the link, and a collective's traffic does not fit in it. */
double acct_model_stream_g(const struct acct_plogp *t, uint64_t m);

/* The closed form of dec's algorithm for (coll, p ranks, m bytes), or NAN
 * when the algorithm has none (docs/models.md lists which do and where they
 * equal the simulation: p a power of two, segments dividing m, ...).
 * Reductions are costed as commutative (MPI_SUM, as acct-tune measures). */
double acct_model_closed_form(enum acct_coll_id coll, const struct acct_decision *dec, int p,
                              uint64_t bytes, const struct acct_model *mdl);

/* The all-to-all contention model of Barchet-Estefanel & Mounié 2004 (Table 3 and §5.1) for the
 * direct exchange (alltoall "linear"), which the simulator (no contention)
 * does not represent:
 *   lower = (P - 1) os(m) + (P - 1) or(m) + L
 *   upper = (P - 1) g(m)  + (P - 1) or(m) + L
 *   T     = lower + (upper - lower) * contention
 * with the network's contention ratio mdl->contention (0.4 on the paper's
 * Fast Ethernet). *lower / *upper may be NULL. NAN for p < 1 or a bad model. */
double acct_model_alltoall_contention(int p, uint64_t bytes, const struct acct_model *mdl,
                                      double *lower, double *upper);

/* Which estimate answered. */
enum acct_model_source {
    ACCT_MODEL_NONE = 0,     /* none: NAN */
    ACCT_MODEL_SIMULATED,    /* every rank's schedule simulated */
    ACCT_MODEL_SYMMETRIC,    /* rank 0's schedule simulated alone (symmetric view) */
    ACCT_MODEL_CLOSED_FORM,  /* the closed form (simulation over budget, or failed) */
};

/* "none", "simulated", "symmetric", "closed_form". */
const char *acct_model_source_name(enum acct_model_source how);

/* How to simulate: the symmetric view where the registry row claims one
 * (struct acct_alg.symmetry) and the call keeps it, else every rank (AUTO);
 * every rank (FULL); or the symmetric view only (SYMMETRIC, an error where
 * there is none). */
enum acct_model_view {
    ACCT_MODEL_VIEW_AUTO = 0,
    ACCT_MODEL_VIEW_FULL,
    ACCT_MODEL_VIEW_SYMMETRIC,
};

/* Simulates the algorithm's schedules (AUTO view). Reductions are
 * commutative; root as given (-1 or ignored for unrooted collectives).
 * NAN if the algorithm is native, not applicable, the simulation is over
 * the model's memory budget (sim_budget_bytes), or it fails. Any size. */
double acct_model_simulate(enum acct_coll_id coll, const struct acct_decision *dec, int p,
                           uint64_t bytes, int root, const struct acct_model *mdl);

/* The v-collectives' uniform call on p ranks: every count `block`,
 * displs their prefix sums. acct_model_simulate_call uses it for a
 * v-collective call without count arrays (count = the block, the
 * decision's m); the tuner's timed calls have the same shape. */
void acct_model_uniform_counts(uint64_t block, int p, uint64_t *counts, uint64_t *displs);

/* The general form: simulate call (the schedules built from it, the rank
 * field varying) with alg. Returns 0 with *t_us and *how (SIMULATED or
 * SYMMETRIC; how may be NULL), or -1 with a message (*how NONE): bad
 * arguments, not applicable, over the memory budget (the message gives the
 * estimate and the budget; nothing beyond a few ranks' schedules was
 * built), a schedule error naming rank, step and peer, or, with view
 * SYMMETRIC, why there is no symmetric view. */
int acct_model_simulate_view(const struct acct_alg *alg, const struct acct_call *call,
                             const struct acct_model *mdl, enum acct_model_view view,
                             double *t_us, enum acct_model_source *how, char *err,
                             size_t errlen);

/* acct_model_simulate_view with the AUTO view. */
int acct_model_simulate_call(const struct acct_alg *alg, const struct acct_call *call,
                             const struct acct_model *mdl, double *t_us, char *err,
                             size_t errlen);

/* The best available estimate: the simulation (symmetric view or every
 * rank) if it succeeds, else the closed form, else NAN; *how (may be NULL)
 * says which answered. Any p >= 1 (at least 1 048 576 ranks within the
 * budget: docs/models.md). */
double acct_model_predict_how(enum acct_coll_id coll, const struct acct_decision *dec, int p,
                              uint64_t bytes, const struct acct_model *mdl,
                              enum acct_model_source *how);

/* acct_model_predict_how without saying how. */
double acct_model_predict(enum acct_coll_id coll, const struct acct_decision *dec, int p,
                          uint64_t bytes, const struct acct_model *mdl);

/* The call shape acct-tune and the model use for (coll, p, m bytes, root,
 * dec) with one-byte elements: count = scount = m (barrier: 0), seg =
 * dec->segment_bytes and fanout = dec->fanout where the algorithm takes
 * them (else 0), commutative, not in place. rank is 0. */
void acct_model_call(enum acct_coll_id coll, const struct acct_decision *dec, int p,
                     uint64_t bytes, int root, struct acct_call *call);

/* A memo of predictions: acct_model_predict_how (and so acct_model_predict,
 * acct_model_rank, the what-if and check, the model regions) answers a
 * point it answered before from the memo of the model it is given, without
 * simulating again. Keyed by (collective, decision, p, bytes) and every
 * parameter of the model (the memo pointer aside), so one memo may serve
 * copies of a model with other parameters (a layout per communicator
 * size): an answer is the one the same call gave without the memo. Not
 * thread-safe: one thread per memo. The memo is not owned by the model:
 * acct_model_memo_free it after the last prediction. */
struct acct_model_memo *acct_model_memo_new(void);
void acct_model_memo_free(struct acct_model_memo *m);
/* Lookups answered from the memo, and not. */
void acct_model_memo_stats(const struct acct_model_memo *m, size_t *hits, size_t *misses);
/* The memo's two halves (sim.c): a hit fills *t_us and *how; *key is the
 * model's fingerprint for the put. */
bool acct_model_memo_get(struct acct_model_memo *m, const struct acct_model *mdl,
                         enum acct_coll_id coll, const struct acct_decision *d, int p,
                         uint64_t bytes, double *t_us, enum acct_model_source *how,
                         uint64_t *key);
void acct_model_memo_put(struct acct_model_memo *m, uint64_t key, enum acct_coll_id coll,
                         const struct acct_decision *d, int p, uint64_t bytes, double t_us,
                         enum acct_model_source how);

#endif
