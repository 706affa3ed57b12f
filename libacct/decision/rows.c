/* Collectives decided from the communicator size alone (acct/dmap.h,
 * acct_dmap_row_cells; docs/acct-tune.md "v-collectives"): one method per
 * row of the map, the one whose times over the row's measured message
 * sizes have the least geometric mean of ratios to each size's best. */
#include <math.h>
#include <stdlib.h>

#include "internal.h"

/* The method best at most of row i's cells (measured ones, or all when
 * none is measured); ties: the lower index. */
static int32_t row_majority(const struct acct_dmap *m, size_t i, size_t *votes)
{
    bool any = false;
    int32_t pick = 0;

    for (size_t k = 0; k < m->nmethods; k++)
        votes[k] = 0;
    for (size_t j = 0; j < m->nbytes; j++)
        any |= m->measured[i * m->nbytes + j];
    for (size_t j = 0; j < m->nbytes; j++) {
        size_t c = i * m->nbytes + j;
        if ((!any || m->measured[c]) && m->best[c] >= 0)
            votes[m->best[c]]++;
    }
    for (size_t k = 1; k < m->nmethods; k++)
        if (votes[k] > votes[pick])
            pick = (int32_t)k;
    return pick;
}

/* log of method k's ratio to the best at cell c; +inf when k was not
 * measured there (or cannot be compared: a best of 0 and k's time above). */
static double log_ratio(const struct acct_dmap *m, size_t c, size_t k)
{
    double tk = m->time[c * m->nmethods + k], tb = m->time[c * m->nmethods + (size_t)m->best[c]];

    if (tk < 0 || tb < 0)
        return INFINITY;
    if (tb == 0)
        return tk == 0 ? 0.0 : INFINITY;
    return log(tk / tb);
}

int acct_dmap_row_cells(const struct acct_dmap *m, int32_t *cells, double *score)
{
    size_t *votes = malloc((m->nmethods > 0 ? m->nmethods : 1) * sizeof(*votes));

    if (votes == NULL)
        return ACCT_RULES_ENOMEM;
    for (size_t i = 0; i < m->ncomm; i++) {
        int32_t pick = -1;
        double least = INFINITY;
        size_t ncells = 0;
        for (size_t j = 0; j < m->nbytes; j++)
            ncells += m->measured[i * m->nbytes + j];
        /* the candidates: measured at every measured cell of the row */
        for (size_t k = 0; k < m->nmethods && ncells > 0; k++) {
            double sum = 0.0;
            for (size_t j = 0; j < m->nbytes && isfinite(sum); j++) {
                size_t c = i * m->nbytes + j;
                if (m->measured[c])
                    sum += log_ratio(m, c, k);
            }
            if (isfinite(sum) && sum < least) { /* strictly: ties keep the lower index */
                least = sum;
                pick = (int32_t)k;
            }
        }
        if (score != NULL)
            score[i] = pick >= 0 ? exp(least / (double)ncells) : NAN;
        if (pick < 0)
            pick = row_majority(m, i, votes);
        for (size_t j = 0; j < m->nbytes; j++)
            cells[i * m->nbytes + j] = pick;
    }
    free(votes);
    return ACCT_RULES_OK;
}
