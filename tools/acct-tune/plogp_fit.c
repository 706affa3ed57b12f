/* The pair duplex's factor and overlap from one-way and both-ways medians
 * at several message sizes (plogp.h acct_plogp_overlap_fit; pure, no MPI:
 * acct-tune's measurement and unit.tune.overlap_fit share it). */
#include <math.h>
#include <stdlib.h>

#include "plogp_fit.h"

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median_sorted(double *v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Theil-Sen: the median of the slopes between every two points with
 * different x (NAN with none). */
static double theil_sen(const uint64_t *x, const double *y, size_t n)
{
    double s[ACCT_PLOGP_OVERLAP_SIZES * ACCT_PLOGP_OVERLAP_SIZES];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (x[j] != x[i])
                s[k++] = (y[j] - y[i]) / ((double)x[j] - (double)x[i]);
    return k > 0 ? median_sorted(s, k) : NAN;
}

int acct_plogp_overlap_fit(const uint64_t *m, const double *one, const double *both, size_t n,
                           double *factor, uint64_t *overlap_bytes)
{
    if (m == NULL || one == NULL || both == NULL || factor == NULL || overlap_bytes == NULL ||
        n < 2 || n > ACCT_PLOGP_OVERLAP_SIZES)
        return -1;
    double x[ACCT_PLOGP_OVERLAP_SIZES], c[ACCT_PLOGP_OVERLAP_SIZES];
    uint64_t lo = m[0], hi = m[0];
    for (size_t i = 0; i < n; i++) {
        if (!(one[i] > 0) || !isfinite(one[i]) || !isfinite(both[i]) || m[i] == 0)
            return -1;
        x[i] = both[i] - one[i];
        lo = m[i] < lo ? m[i] : lo;
        hi = m[i] > hi ? m[i] : hi;
    }
    if (hi == lo)
        return -1;
    const double g = theil_sen(m, one, n), k = theil_sen(m, x, n);
    *overlap_bytes = 0;
    if (!(g > 0)) {
        *factor = 0; /* one way not growing with the size: not a link's timing */
        return 0;
    }
    const double d = 1 + k / g;
    if (!(d >= 1.05)) {
        *factor = 1; /* the two ways overlap */
        return 0;
    }
    /* both - one = k (m - c): each size's c, their median */
    for (size_t i = 0; i < n; i++)
        c[i] = (double)m[i] - x[i] / k;
    double cm = median_sorted(c, n);
    *factor = d;
    *overlap_bytes = cm <= 0 ? 0 : cm >= (double)hi ? hi : (uint64_t)(cm + 0.5);
    return 0;
}
