/* Interpolation of pLogP tables (acct/plogp.h). */
#include "acct/plogp.h"

/* Piecewise linear in m; constant below the first sample; along the last
 * two samples above the last one (never below the last value). */
static double interp(const struct acct_plogp *t, const double *v, uint64_t m)
{
    size_t n = t->n, i;
    if (n == 1 || m <= t->m[0])
        return v[0];
    if (m >= t->m[n - 1]) {
        double slope = (v[n - 1] - v[n - 2]) / (double)(t->m[n - 1] - t->m[n - 2]);
        double x = v[n - 1] + slope * (double)(m - t->m[n - 1]);
        return x > v[n - 1] ? x : v[n - 1];
    }
    for (i = 1; i < n && t->m[i] < m; i++)
        ;
    /* t->m[i-1] < m <= t->m[i] */
    double f = (double)(m - t->m[i - 1]) / (double)(t->m[i] - t->m[i - 1]);
    return v[i - 1] + f * (v[i] - v[i - 1]);
}

double acct_plogp_os(const struct acct_plogp *t, uint64_t m)
{
    return interp(t, t->os_us, m);
}

double acct_plogp_or(const struct acct_plogp *t, uint64_t m)
{
    return interp(t, t->or_us, m);
}

double acct_plogp_g(const struct acct_plogp *t, uint64_t m)
{
    return interp(t, t->g_us, m);
}
