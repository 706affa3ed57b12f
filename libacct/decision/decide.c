/* Every collective's decisions from a tuning result's points in one call,
 * and the CSV form of a map for plots (acct/dmap.h,
 * docs/decisions.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int acct_decide_from_points(const struct acct_result_point *pts, size_t npts,
                            const struct acct_qt_params *params, struct acct_rules *r,
                            struct acct_penalty_stats st[ACCT_COLL_COUNT],
                            struct acct_diags *diags)
{
    int rc = ACCT_RULES_OK;
    for (int c = 0; c < ACCT_COLL_COUNT && rc == ACCT_RULES_OK; c++) {
        struct acct_dmap *m = NULL;
        struct acct_quadtree *qt = NULL;
        if (st != NULL)
            memset(&st[c], 0, sizeof(st[c]));
        rc = acct_dmap_from_points(pts, npts, (enum acct_coll_id)c, &m, diags);
        if (rc != ACCT_RULES_OK || m == NULL)
            continue;
        if (!acct_coll_bytes_alike((enum acct_coll_id)c)) {
            /* decided from the communicator size alone: one method per row */
            int32_t *rows = malloc(m->ncomm * m->nbytes * sizeof(*rows));
            rc = rows == NULL ? ACCT_RULES_ENOMEM : acct_dmap_row_cells(m, rows, NULL);
            if (rc == ACCT_RULES_OK)
                rc = acct_cells_rules(m, rows, r, diags);
            if (rc == ACCT_RULES_OK && st != NULL) {
                rc = acct_penalty_cells(m, rows, &st[c]);
                st[c].leaves = r->coll[c].n;
            }
            free(rows);
        } else if (params == NULL) {
            rc = acct_dmap_rules(m, r, diags);
            if (rc == ACCT_RULES_OK && st != NULL) {
                rc = acct_penalty_cells(m, m->best, &st[c]);
                st[c].leaves = r->coll[c].n;
            }
        } else {
            rc = acct_qt_build(m, params, &qt, diags);
            if (rc == ACCT_RULES_OK)
                rc = acct_qt_rules(qt, r, diags);
            if (rc == ACCT_RULES_OK && st != NULL)
                rc = acct_qt_stats(qt, m, &st[c]);
        }
        acct_qt_free(qt);
        acct_dmap_free(m);
    }
    return rc;
}

int acct_dmap_write_csv(FILE *f, const struct acct_dmap *m, const int32_t *cells)
{
    char best[96], chosen[96];
    if (cells == NULL)
        cells = m->best;
    fprintf(f, "collective,comm_size,bytes,measured,best,best_us,chosen,chosen_us,penalty_pct\n");
    for (size_t i = 0; i < m->ncomm; i++)
        for (size_t j = 0; j < m->nbytes; j++) {
            size_t c = i * m->nbytes + j;
            int32_t b = m->best[c], k = cells[c];
            if (b < 0 || k < 0 || (size_t)k >= m->nmethods)
                return ACCT_RULES_EINVAL;
            acct_decision_format(&m->methods[b], best, sizeof(best));
            acct_decision_format(&m->methods[k], chosen, sizeof(chosen));
            double tb = m->time[c * m->nmethods + (size_t)b];
            double tk = m->time[c * m->nmethods + (size_t)k];
            fprintf(f, "%s,%d,%llu,%d,\"%s\",", acct_coll_name(m->coll), m->comm[i],
                    (unsigned long long)m->bytes[j], (int)m->measured[c], best);
            if (m->measured[c])
                fprintf(f, "%.6g,", tb);
            else
                fprintf(f, ",");
            fprintf(f, "\"%s\",", chosen);
            if (m->measured[c] && tk >= 0)
                fprintf(f, "%.6g,", tk);
            else
                fprintf(f, ",");
            if (m->measured[c] && tk >= 0 && tb > 0)
                fprintf(f, "%.4f\n", (tk - tb) / tb * 100.0);
            else
                fprintf(f, "\n");
        }
    return ferror(f) ? ACCT_RULES_EIO : ACCT_RULES_OK;
}
