/* pLogP network parameters and their interpolation: the primitive every
 * cost estimate is made of (the closed forms beside each algorithm in
 * libacct/algs, the simulator and the tuner in libacct/model). No MPI.
 *
 * pLogP (Kielmann et al. 2000, as used by Barchet-Estefanel & Mounié 2004): per message size m the send overhead
 * os(m), the receive overhead or(m) and the gap g(m) (minimum time between
 * the starts of two consecutive sends of one rank; g(m) >= os(m), or(m)),
 * plus the latency L. A message of m bytes sent at t by an idle rank to an
 * idle rank is complete at the receiver at t + g(m) + L. */
#ifndef ACCT_PLOGP_H
#define ACCT_PLOGP_H

#include <stddef.h>
#include <stdint.h>

/* os(m), or(m), g(m) sampled at n strictly increasing sizes m[i] (bytes),
 * plus L. Between samples the functions are interpolated linearly; below
 * m[0] they are constant (the value at m[0]); above m[n-1] they are
 * extrapolated along the last two samples (bandwidth-bound growth), never
 * below the value at m[n-1]. acct_plogp_check (acct/model.h) checks one. */
#define ACCT_PLOGP_MAX_SIZES 64
struct acct_plogp {
    double L_us;
    size_t n;
    uint64_t m[ACCT_PLOGP_MAX_SIZES];
    double os_us[ACCT_PLOGP_MAX_SIZES];
    double or_us[ACCT_PLOGP_MAX_SIZES];
    double g_us[ACCT_PLOGP_MAX_SIZES];
};

/* The interpolated functions (t must pass acct_plogp_check). */
double acct_plogp_os(const struct acct_plogp *t, uint64_t m);
double acct_plogp_or(const struct acct_plogp *t, uint64_t m);
double acct_plogp_g(const struct acct_plogp *t, uint64_t m);

#endif
