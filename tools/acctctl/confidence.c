/* acctctl: how sure a tuning result is (retune, show) and whether the
 * differences between two versions are beyond noise (diff), from the
 * tuning result acctd stored with a version's run (GET_RESULT; its races
 * and noise sections, docs/tuning-result.md). docs/acctctl.md
 * "Confidence" and "diff". */
#include "confidence.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acct/common.h"
#include "acct/stats.h"
#include "acct/table.h"

int acctctl_get_result(struct acctctl_conn *conn, uint64_t v, struct acct_result **out,
                       char *why, size_t whylen)
{
    struct acct_wbuf w;
    struct acct_field f;
    struct acct_diags d = ACCT_DIAGS_INIT;
    unsigned code = 0;
    char name[64];
    int rc = 1;

    *out = NULL;
    acctctl_request(conn, &w, ACCT_MSG_GET_RESULT);
    acct_put_u64(&w, ACCT_T_VERSION, v);
    conn->quiet_errors = true;
    if (acctctl_call(conn, &w, &code) != 0) {
        conn->quiet_errors = false;
        if (code == 0) { /* no answer: printed */
            rc = -1;
        } else if (code == ACCT_ERR_UNKNOWN_TYPE) {
            snprintf(why, whylen, "acctd is older than GET_RESULT: no timings");
        } else {
            acctctl_str(conn->msg.body, conn->msg.len, ACCT_T_ERR_MSG, why, whylen);
        }
        goto out;
    }
    conn->quiet_errors = false;
    if (!acct_msg_find(&conn->msg, ACCT_T_RESULT_TEXT, &f)) {
        snprintf(why, whylen, "acctd's answer has no RESULT_TEXT");
        goto out;
    }
    snprintf(name, sizeof(name), "version %" PRIu64 "'s result", v);
    if (acct_result_parse_buffer(name, (const char *)f.val, f.len, out, &d) != ACCT_RULES_OK) {
        char line[256] = "cannot be read";
        for (size_t i = 0; i < d.n; i++) /* the first problem, not a warning */
            if (!d.v[i].warning) {
                acct_diag_format(&d, i, line, sizeof(line));
                break;
            }
        snprintf(why, whylen, "its tuning result does not parse here: %s", line);
        goto out;
    }
    rc = 0;
out:
    acct_diags_free(&d);
    acct_wbuf_free(&w);
    return rc;
}

/* ---- confidence ---------------------------------------------------------------- */

static int cmp_dbl(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

static const struct acct_result_race *race_at(const struct acct_result *r, enum acct_coll_id c,
                                              int p, uint64_t m)
{
    for (size_t i = 0; i < r->nraces; i++)
        if (r->races[i].coll == c && r->races[i].comm_size == p && r->races[i].bytes == m)
            return &r->races[i];
    return NULL;
}

/* How a raced point was settled (docs/acctctl.md "Confidence"). */
enum settled { BY_TEST, BY_EQUIVALENCE, BY_CAP, UNRACED, SETTLED_N };

static enum settled settled_by(const struct acct_result_race *rc)
{
    if (rc == NULL)
        return UNRACED;
    switch (rc->resolved_by) {
    case ACCT_RESULT_BY_TEST: return BY_TEST;
    case ACCT_RESULT_BY_CAP: return BY_CAP;
    default: return BY_EQUIVALENCE; /* native, incumbent, model, spread, order */
    }
}

void acctctl_confidence_print(FILE *out, const struct acct_result *r, const char *indent)
{
    const struct acct_result_noise *nz = &r->noise;

    fprintf(out, "%sconfidence of tuning run %s:", indent, r->id);
    if (!nz->present) {
        fputs(" no noise section (a result older than issue 23)", out);
    } else {
        if (nz->aa_pairs > 0)
            fprintf(out, " A/A noise %.1f %% (max %.1f %%, %" PRIu32 " pairs),", 100 * nz->aa_spread,
                    100 * nz->aa_spread_max, nz->aa_pairs);
        else
            fputs(" A/A noise not measured,", out);
        fprintf(out, " repeat spread %.1f %% (90th percentile %.1f %%)", 100 * nz->repeat_spread,
                100 * nz->repeat_spread_p90);
        for (size_t i = 0; i < nz->nload; i++)
            fprintf(out, "%s %s %.1f -> %.1f", i == 0 ? ", load" : ",", nz->load[i].host,
                    nz->load[i].start, nz->load[i].end);
    }
    fputc('\n', out);
    for (int c = 0; c < ACCT_COLL_COUNT; c++) {
        size_t n[SETTLED_N] = { 0 }, points = 0, naa = 0;
        double *aa = malloc((r->nraces + 1) * sizeof(*aa));
        /* the distinct timed points of c, in file order (each once) */
        for (size_t i = 0; i < r->npoints; i++) {
            const struct acct_result_point *pt = &r->points[i];
            bool first = pt->coll == (enum acct_coll_id)c && !pt->modelled;
            for (size_t j = 0; first && j < i; j++)
                first = !(r->points[j].coll == pt->coll && !r->points[j].modelled &&
                          r->points[j].comm_size == pt->comm_size &&
                          r->points[j].bytes == pt->bytes);
            if (!first)
                continue;
            const struct acct_result_race *rc = race_at(r, pt->coll, pt->comm_size, pt->bytes);
            n[settled_by(rc)]++;
            points++;
            if (rc != NULL && rc->has_aa && aa != NULL)
                aa[naa++] = rc->aa_spread;
        }
        if (points > 0) {
            fprintf(out, "%s  %s: %zu points: %zu settled by test, %zu equivalent, %zu capped, "
                    "%zu unraced", indent, acct_coll_name((enum acct_coll_id)c), points,
                    n[BY_TEST], n[BY_EQUIVALENCE], n[BY_CAP], n[UNRACED]);
            if (naa > 0) {
                qsort(aa, naa, sizeof(*aa), cmp_dbl);
                fprintf(out, "; A/A %.1f %% (max %.1f %%)",
                        100 * (naa % 2 ? aa[naa / 2] : (aa[naa / 2 - 1] + aa[naa / 2]) / 2),
                        100 * aa[naa - 1]);
            }
            fputc('\n', out);
        }
        free(aa);
    }
}

/* ---- diff: beyond noise? ----------------------------------------------------- */

static bool is_native(const struct acct_decision *d)
{
    return d->alg == NULL || strcmp(d->alg->name, "native") == 0;
}

static bool same_method(const struct acct_decision *a, const struct acct_decision *b)
{
    if (is_native(a) || is_native(b))
        return is_native(a) && is_native(b);
    return a->alg == b->alg && a->segment_bytes == b->segment_bytes && a->fanout == b->fanout &&
           a->reorder == b->reorder;
}

/* What result r says of b against a at (c, p, m): *ratio = t(b) / t(a),
 * *band the noise there; source "race" (both finalists of the point's
 * race: interleaved, band max(tolerance, A/A)) or "search" (both
 * measured: medians, band the larger of the run's A/A spread and the two
 * measurements' IQR/median). NULL: r timed not both. */
static const char *timings(const struct acct_result *r, enum acct_coll_id c, int p, uint64_t m,
                           const struct acct_decision *a, const struct acct_decision *b,
                           double *ratio, double *band)
{
    const struct acct_result_race *rc = race_at(r, c, p, m);
    const struct acct_result_point *pa = NULL, *pb = NULL;

    if (rc != NULL) {
        const struct acct_result_finalist *fa = NULL, *fb = NULL;
        for (size_t i = 0; i < rc->nf; i++) {
            if (rc->f[i].verdict == ACCT_RESULT_TWIN)
                continue;
            if (fa == NULL && same_method(&rc->f[i].d, a))
                fa = &rc->f[i];
            if (fb == NULL && same_method(&rc->f[i].d, b))
                fb = &rc->f[i];
        }
        if (fa != NULL && fb != NULL) {
            *ratio = fb->ratio / fa->ratio;
            *band = rc->tolerance;
            if (rc->has_aa && rc->aa_spread > *band)
                *band = rc->aa_spread;
            return "race";
        }
    }
    for (size_t i = 0; i < r->npoints; i++) {
        const struct acct_result_point *pt = &r->points[i];
        if (pt->modelled || pt->coll != c || pt->comm_size != p || pt->bytes != m)
            continue;
        if (same_method(&pt->d, a) && (pa == NULL || pt->median_us < pa->median_us))
            pa = pt;
        if (same_method(&pt->d, b) && (pb == NULL || pt->median_us < pb->median_us))
            pb = pt;
    }
    if (pa == NULL || pb == NULL || !(pa->median_us > 0) || !(pb->median_us > 0))
        return NULL;
    *ratio = pb->median_us / pa->median_us;
    *band = r->noise.present && r->noise.aa_pairs > 0 ? r->noise.aa_spread : 0.0;
    const struct acct_result_point *both[2] = { pa, pb };
    for (int k = 0; k < 2; k++) {
        double s = (both[k]->q3_us - both[k]->q1_us) / both[k]->median_us;
        if (s > *band)
            *band = s;
    }
    return "search";
}

/* The decision of rules at (c, p, m) as the runtime resolves it, the
 * layout of result r's run (its ranks per node). */
static int decision_at(const struct acct_rules *rules, const struct acct_result *r,
                       enum acct_coll_id c, int p, uint64_t m, struct acct_decision *d)
{
    struct acct_rules_where where = { r->cond.ranks_per_node,
                                      r->cond.placement == ACCT_PLACEMENT_BLOCK };
    struct acct_table *t = NULL;

    if (acct_rules_resolve_at(rules, c, p, &where, &t) != ACCT_RULES_OK)
        return -1;
    *d = t->dec[acct_table_index(t, m)];
    acct_table_free(t);
    return 0;
}

int acctctl_diff_noise(const struct acctctl_diff_side side[2], acctctl_line_fn line, void *arg)
{
    static const char *const class_names[3] = { "beyond noise", "within noise",
                                                 "unknown (no timings)" };
    size_t count[3] = { 0, 0, 0 };
    char buf[768];

    if (side[0].result == NULL && side[1].result == NULL) {
        snprintf(buf, sizeof(buf), "noise: unknown (no timings): version %" PRIu64 ": %s; "
                 "version %" PRIu64 ": %s", side[0].version, side[0].why, side[1].version,
                 side[1].why);
        return line(arg, buf);
    }
    /* every timed point of either result, once */
    for (int s = 0; s < 2; s++) {
        const struct acct_result *r = side[s].result;
        for (size_t i = 0; r != NULL && i < r->npoints; i++) {
            const struct acct_result_point *pt = &r->points[i];
            bool first = !pt->modelled;
            for (size_t j = 0; first && j < i; j++)
                first = !(!r->points[j].modelled && r->points[j].coll == pt->coll &&
                          r->points[j].comm_size == pt->comm_size &&
                          r->points[j].bytes == pt->bytes);
            for (size_t j = 0; first && s == 1 && side[0].result != NULL &&
                               j < side[0].result->npoints; j++) {
                const struct acct_result_point *q = &side[0].result->points[j];
                first = !(!q->modelled && q->coll == pt->coll && q->comm_size == pt->comm_size &&
                          q->bytes == pt->bytes);
            }
            if (!first)
                continue;
            struct acct_decision d[2];
            if (decision_at(side[0].rules, r, pt->coll, pt->comm_size, pt->bytes, &d[0]) != 0 ||
                decision_at(side[1].rules, r, pt->coll, pt->comm_size, pt->bytes, &d[1]) != 0)
                return -1;
            if (same_method(&d[0], &d[1]))
                continue;
            /* each result's word on d[1] against d[0] */
            char what[2][160], m0[64], m1[64], size[32];
            int beyond = 0, within = 0, dir = 0;
            bool mixed = false;
            for (int k = 0; k < 2; k++) {
                double ratio = 0, band = 0;
                const char *src = side[k].result == NULL ? NULL
                                  : timings(side[k].result, pt->coll, pt->comm_size, pt->bytes,
                                            &d[0], &d[1], &ratio, &band);
                if (src == NULL) {
                    snprintf(what[k], sizeof(what[k]), "v%" PRIu64 ": %s", side[k].version,
                             side[k].result == NULL ? "no tuning result" : "no timings");
                    continue;
                }
                bool out_of_band = fabs(log(ratio)) > log1p(band);
                int sign = ratio > 1 ? 1 : -1;
                if (out_of_band) {
                    beyond++;
                    mixed |= dir != 0 && dir != sign;
                    dir = sign;
                } else {
                    within++;
                }
                snprintf(what[k], sizeof(what[k]), "v%" PRIu64 ": %.3fx, band %.1f %%, %s",
                         side[k].version, ratio, 100 * band, src);
            }
            int cls = beyond + within == 0 ? 2 : within == 0 && !mixed ? 0 : 1;
            count[cls]++;
            acct_decision_format(&d[0], m0, sizeof(m0));
            acct_decision_format(&d[1], m1, sizeof(m1));
            if (acct_size_format(pt->bytes, size, sizeof(size)) != 0)
                snprintf(size, sizeof(size), "%" PRIu64, pt->bytes);
            snprintf(buf, sizeof(buf), "noise: %s comm_size %d bytes %s: %s -> %s: %s (%s; %s)",
                     acct_coll_name(pt->coll), pt->comm_size, size, m0, m1, class_names[cls],
                     what[0], what[1]);
            if (line(arg, buf) != 0)
                return -1;
        }
    }
    snprintf(buf, sizeof(buf), "noise: %zu differing decisions at timed points: %zu beyond "
             "noise, %zu within noise, %zu unknown (no timings)",
             count[0] + count[1] + count[2], count[0], count[1], count[2]);
    return line(arg, buf);
}
