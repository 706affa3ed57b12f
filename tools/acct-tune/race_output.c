/* acct-tune: the races' decisions into the decision maps (tune.h,
 * tune_race_decision_points; no MPI). docs/acct-tune.md "Racing". */
#include "tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct acct_result_race *race_at(const struct acct_result_race *races, size_t n,
                                              const struct acct_result_point *p)
{
    for (size_t i = 0; i < n; i++)
        if (races[i].coll == p->coll && races[i].comm_size == p->comm_size &&
            races[i].bytes == p->bytes)
            return &races[i];
    return NULL;
}

int tune_race_decision_points(const struct acct_result_point *pts, size_t npts,
                              const struct acct_result_race *races, size_t nraces,
                              struct acct_result_point **out, size_t *nout)
{
    size_t n = 0, cap = npts;

    *out = NULL;
    *nout = 0;
    if (nraces == 0)
        return 0;
    for (size_t i = 0; i < nraces; i++)
        cap += races[i].nf;
    *out = calloc(cap > 0 ? cap : 1, sizeof(**out));
    if (*out == NULL)
        return -1;
    /* the measured points of cells without a race */
    for (size_t i = 0; i < npts; i++)
        if (race_at(races, nraces, &pts[i]) == NULL)
            (*out)[n++] = pts[i];
    /* each raced cell: its finalists, the winner at its measured time */
    for (size_t i = 0; i < nraces; i++) {
        const struct acct_result_race *r = &races[i];
        double base = NAN;
        size_t w = 0;
        while (w + 1 < r->nf && r->f[w].verdict != ACCT_RESULT_WINNER)
            w++;
        for (size_t k = 0; k < npts; k++)
            if (pts[k].coll == r->coll && pts[k].comm_size == r->comm_size &&
                pts[k].bytes == r->bytes && acct_decision_equal(&pts[k].d, &r->f[w].d))
                base = pts[k].median_us;
        if (!(base > 0) || !isfinite(base))
            base = 1000.0; /* the winner was not measured by the search (the incumbent) */
        for (size_t k = 0; k < r->nf; k++) {
            struct acct_result_point *p = &(*out)[n];
            double ratio = r->f[k].ratio;
            if (r->f[k].verdict == ACCT_RESULT_TWIN)
                continue; /* native is there already */
            if (k != w && !(ratio > 1.0 + 1e-6)) /* equivalent, guarded: never above it */
                ratio = 1.0 + 1e-6 * (double)(k + 1);
            memset(p, 0, sizeof(*p));
            p->coll = r->coll;
            p->comm_size = r->comm_size;
            p->bytes = r->bytes;
            p->d = r->f[k].d;
            p->reps = r->rounds;
            p->median_us = p->q1_us = p->q3_us = p->min_us = p->max_us =
                k == w ? base : base * (isfinite(ratio) ? ratio : 1e6);
            n++;
        }
    }
    *nout = n;
    return 0;
}
