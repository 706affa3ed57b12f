/* Measuring pLogP parameters between two ranks (Kielmann et al. 2000's
 * method as used by Barchet-Estefanel & Mounié 2004 and Vadhiyar et al.
 * 2004; docs/models.md "Measuring", docs/references.md).
 * acct-tune calls it once per partition; the result feeds acct/model.h. */
#ifndef ACCT_TUNE_PLOGP_H
#define ACCT_TUNE_PLOGP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "acct/model.h"
#include "plogp_fit.h"

/* Repetitions (medians are taken); defaults when 0. */
struct acct_plogp_opts {
    int reps;       /* ping-pongs / overhead samples per size (default 15) */
    int stream;     /* messages per saturation stream for g(m) (default 12) */
    double warm_s;  /* warm-up ping-pongs' time budget per size (default 0.01 s) */
    /* or(m)'s wait busy, as before session 38, instead of yielding the CPU:
     * only for tools/perf/acct-plogp-check's side-by-side comparison */
    bool busy_wait;
};

/* Collective over comm: every rank calls it with the same arguments; ranks
 * peer_a and peer_b (distinct ranks of comm) exchange messages of each of
 * the n sizes (strictly increasing, each <= ACCT_PLOGP_MAX_BYTES, n <=
 * ACCT_PLOGP_MAX_SIZES), the others wait. On return every rank holds the
 * same *out: os(m) (time of a blocking send call), or(m) (time of the
 * receive call of a message that has already arrived), g(m) (per-message
 * time of a saturating stream), L (RTT(m0)/2 - g(m0), m0 the smallest
 * size, at least 0). Returns 0 on every rank, or -1 on every rank (bad
 * arguments, out of memory or an MPI error) with *out untouched. */
#define ACCT_PLOGP_MAX_BYTES (64u * 1024 * 1024)
int acct_plogp_measure(MPI_Comm comm, int peer_a, int peer_b, const uint64_t *sizes, size_t n,
                       struct acct_plogp *out);
int acct_plogp_measure_opts(MPI_Comm comm, int peer_a, int peer_b, const uint64_t *sizes,
                            size_t n, const struct acct_plogp_opts *opts,
                            struct acct_plogp *out);

/* NIC sharing (issue 21; docs/models.md "Calibrated per partition"):
 * collective over comm. k pairs a[i] -> b[i] (2 <= k, all 2k ranks
 * distinct; a[] on one node, b[] on another) each stream `stream` messages
 * of m bytes and wait for a zero-byte acknowledgement; first pair 0 alone,
 * then all k at once, each timing the least over reps of the slowest
 * pair's time (after a barrier). *factor = concurrent / alone (at least
 * 1): the per-pair gap multiplier of k pairs sharing the nodes' NICs. Every
 * rank returns the same: 0, or -1 (bad arguments, MPI error). */
int acct_plogp_nic_factor(MPI_Comm comm, const int *a, const int *b, int k, uint64_t m,
                          int stream, int reps, double *factor);

/* The same with traffic both ways (acct_model_nic_share): pair 0 alone one
 * way (a[0] -> b[0], as above), then all k pairs at once exchanging both
 * ways (a[i] and b[i] each stream `stream` messages of m bytes to the other
 * with nonblocking sends and receives), the least over reps of the slowest
 * rank's time. *factor = two-way / alone (at least 1). On a full-duplex
 * link with one pair it is near 1; a shaper or a NIC whose acknowledgements
 * queue behind the other direction's data shows here. Same arguments,
 * returns and agreement as acct_plogp_nic_factor. */
int acct_plogp_nic_bidir_factor(MPI_Comm comm, const int *a, const int *b, int k, uint64_t m,
                                int stream, int reps, double *factor);

/* Pair duplex (issue 21; docs/models.md "The pair-duplex factor"):
 * collective over comm. One pair of distinct ranks a, b (on two nodes):
 * "one way", a streams `stream` messages of m bytes to b; "both ways", a
 * and b each stream them to the other at once (nonblocking sends and
 * receives). reps repetitions of each, interleaved (the host's load hits
 * both alike), after a warm-up exchange; each timed from a barrier to the
 * slowest rank's last completion. The factor is the ratio of the medians
 * (a robust statistic on a shared host: a few preempted repetitions do not
 * move it), at least 1: 1 when the pair's link is full duplex, 2 when its
 * two ways do not overlap. It is the model's pair_duplex_factor
 * (acct/model.h). stream in [1, 16], reps in [1, 100], m in [1,
 * ACCT_PLOGP_MAX_BYTES]. Every rank returns the same: 0, or -1 (bad
 * arguments, out of memory, MPI error) with *out untouched.
 * tools/perf/acct-pair-duplex reports the same measurement. */
struct acct_plogp_duplex {
    double one_median_s, one_least_s;   /* a -> b alone */
    double both_median_s, both_least_s; /* a <-> b at once */
    double factor;                      /* both_median_s / one_median_s, at least 1 */
};
int acct_plogp_pair_duplex(MPI_Comm comm, int a, int b, uint64_t m, int stream, int reps,
                           struct acct_plogp_duplex *out);

/* The pair duplex's factor and overlap (issue 21; docs/models.md
 * "Calibrated per partition"): acct_plogp_pair_duplex with one message
 * each way (stream 1) at each of the n sizes m[] (2 to
 * ACCT_PLOGP_OVERLAP_SIZES, reps each), then acct_plogp_overlap_fit on
 * their medians. Same agreement and returns as acct_plogp_pair_duplex.
 * acct-tune times 256, 384, 512, 768 KiB and 1 MiB. Open MPI 4.1 over TCP
 * on the emulated cluster gave D = 2, c = 192 KiB (its
 * btl_tcp_min_rdma_pipeline_size) in one hold, but a size's exchange may
 * overlap whole at random, so acct-tune's own fits vary (c 0-19 KiB in two
 * runs; docs/models.md "Calibrated per partition"). */
struct acct_plogp_overlap {
    struct acct_plogp_duplex at[ACCT_PLOGP_OVERLAP_SIZES]; /* per size */
    size_t n;
    double factor;          /* D >= 1; 0: not a link's timing */
    uint64_t overlap_bytes; /* c */
};
int acct_plogp_pair_overlap(MPI_Comm comm, int a, int b, const uint64_t *m, size_t n, int reps,
                            struct acct_plogp_overlap *out);

#endif
