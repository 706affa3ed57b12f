/* pLogP table checks and the pLogP <-> LogGP conversions (acct/model.h;
 * formulas in docs/models.md); the interpolation is core/plogp.c. */
#include "acct/model.h"

#include <math.h>
#include <stdio.h>

static int bad(char *err, size_t len, const char *field, size_t i, const char *what)
{
    if (err != NULL && len > 0)
        snprintf(err, len, "%s[%zu]: %s", field, i, what);
    return -1;
}

int acct_plogp_check(const struct acct_plogp *t, char *err, size_t errlen)
{
    int rc = 0;
    if (t == NULL || t->n < 1 || t->n > ACCT_PLOGP_MAX_SIZES) {
        if (err != NULL && errlen > 0)
            snprintf(err, errlen, "n: %zu sizes, expected 1..%d", t ? t->n : 0,
                     ACCT_PLOGP_MAX_SIZES);
        return -1;
    }
    if (!isfinite(t->L_us) || t->L_us < 0) {
        if (err != NULL && errlen > 0)
            snprintf(err, errlen, "L_us: %g is not a finite value >= 0", t->L_us);
        return -1;
    }
    for (size_t i = 0; i < t->n && rc == 0; i++) {
        if (i > 0 && t->m[i] <= t->m[i - 1])
            rc = bad(err, errlen, "m", i, "sizes must be strictly increasing");
        else if (!isfinite(t->os_us[i]) || t->os_us[i] < 0)
            rc = bad(err, errlen, "os_us", i, "not a finite value >= 0");
        else if (!isfinite(t->or_us[i]) || t->or_us[i] < 0)
            rc = bad(err, errlen, "or_us", i, "not a finite value >= 0");
        else if (!isfinite(t->g_us[i]) || t->g_us[i] < 0)
            rc = bad(err, errlen, "g_us", i, "not a finite value >= 0");
    }
    return rc;
}

int acct_plogp_to_loggp(const struct acct_plogp *t, struct acct_loggp *out)
{
    if (acct_plogp_check(t, NULL, 0) != 0 || out == NULL)
        return -1;
    double os1 = acct_plogp_os(t, 1), or1 = acct_plogp_or(t, 1), g1 = acct_plogp_g(t, 1);
    uint64_t big = t->m[t->n - 1];
    double one_way = t->L_us + g1; /* pLogP's one-byte time, which LogGP keeps */
    out->L_us = one_way - os1 - or1;
    out->o_us = (os1 + or1) / 2;
    if (out->L_us < 0) {
        /* overheads above the one-byte time (a loaded, oversubscribed host):
         * L = 0 and o = one_way / 2, so that L + 2o = L' + g(1) still holds
         * and no parameter is negative (docs/models.md, "Conversion rules") */
        out->L_us = 0;
        out->o_us = one_way / 2;
    }
    out->g_us = g1;
    out->G_us_per_byte = big > 1 ? acct_plogp_g(t, big) / (double)big : 0;
    return 0;
}

int acct_loggp_to_plogp(const struct acct_loggp *p, struct acct_plogp *out)
{
    if (p == NULL || out == NULL || !isfinite(p->L_us) || !isfinite(p->o_us) ||
        !isfinite(p->g_us) || !isfinite(p->G_us_per_byte) || p->L_us < 0 || p->o_us < 0 ||
        p->g_us < 0 || p->G_us_per_byte < 0)
        return -1;
    *out = (struct acct_plogp){.L_us = p->L_us + 2 * p->o_us - p->g_us, .n = 3};
    for (size_t i = 0; i < 3; i++) {
        out->m[i] = i;
        out->os_us[i] = p->o_us;
        out->or_us[i] = p->o_us;
    }
    out->g_us[0] = p->g_us;
    out->g_us[1] = p->g_us;
    out->g_us[2] = p->g_us + p->G_us_per_byte;
    if (out->L_us < 0)
        out->L_us = 0; /* g > L + 2o: the one-way time then exceeds LogGP's by the difference */
    return 0;
}

void acct_model_init(struct acct_model *mdl)
{
    *mdl = (struct acct_model){.contention = 0.4};
}

int acct_model_check(const struct acct_model *mdl, char *err, size_t errlen)
{
    const char *what = NULL;
    if (mdl == NULL)
        what = "model: missing";
    else if (!isfinite(mdl->gamma_us_per_byte) || mdl->gamma_us_per_byte < 0)
        what = "gamma_us_per_byte: not a finite value >= 0";
    else if (!isfinite(mdl->delta_us_per_byte) || mdl->delta_us_per_byte < 0)
        what = "delta_us_per_byte: not a finite value >= 0";
    else if (!isfinite(mdl->contention) || mdl->contention < 0 || mdl->contention > 1)
        what = "contention: not in [0, 1]";
    else if (mdl->nodes.ranks_per_node < 0)
        what = "nodes.ranks_per_node: negative";
    else if (mdl->nodes.ranks_per_node > 0 &&
             (!isfinite(mdl->nodes.nic_gap_factor) ||
              (mdl->nodes.nic_gap_factor != 0 &&
               (mdl->nodes.nic_gap_factor < 1 || mdl->nodes.nic_pairs < 2))))
        what = "nodes.nic_gap_factor: neither 0 (not measured) nor >= 1 with nic_pairs >= 2";
    else if (mdl->nodes.ranks_per_node > 0 &&
             (!isfinite(mdl->nodes.nic_bidir_factor) ||
              (mdl->nodes.nic_bidir_factor != 0 &&
               (mdl->nodes.nic_bidir_factor < 1 || mdl->nodes.nic_bidir_pairs < 2))))
        what = "nodes.nic_bidir_factor: neither 0 (not measured) nor >= 1 with "
               "nic_bidir_pairs >= 2";
    else if (mdl->nodes.ranks_per_node > 0 &&
             (!isfinite(mdl->nodes.pair_duplex_factor) || mdl->nodes.pair_duplex_factor < 0))
        what = "nodes.pair_duplex_factor: not a finite value >= 0";
    if (what != NULL) {
        if (err != NULL && errlen > 0)
            snprintf(err, errlen, "%s", what);
        return -1;
    }
    if (acct_plogp_check(&mdl->net, err, errlen) != 0)
        return -1;
    if (mdl->nodes.ranks_per_node == 0)
        return 0;
    static const char *const names[] = {"intra", "inter"};
    const struct acct_plogp *tabs[] = {&mdl->nodes.intra, &mdl->nodes.inter};
    for (int i = 0; i < 2; i++) {
        char why[160];
        if (acct_plogp_check(tabs[i], why, sizeof why) != 0) {
            if (err != NULL && errlen > 0)
                snprintf(err, errlen, "%s.%s", names[i], why);
            return -1;
        }
    }
    return 0;
}

int acct_model_node_of(const struct acct_model *mdl, int p, int r)
{
    int k = mdl->nodes.ranks_per_node;
    if (k <= 0 || p < 1)
        return 0;
    int nnodes = (p + k - 1) / k;
    return mdl->nodes.cyclic ? r % nnodes : r / k;
}

const struct acct_plogp *acct_model_net_between(const struct acct_model *mdl, int p, int a, int b)
{
    if (mdl->nodes.ranks_per_node <= 0)
        return &mdl->net;
    return acct_model_node_of(mdl, p, a) == acct_model_node_of(mdl, p, b) ? &mdl->nodes.intra
                                                                          : &mdl->nodes.inter;
}

double acct_model_nic_factor(const struct acct_model *mdl, int c)
{
    if (c <= 1)
        return 1;
    const struct acct_model_nodes *n = &mdl->nodes;
    if (n->nic_gap_factor >= 1 && n->nic_pairs >= 2)
        return 1 + (n->nic_gap_factor - 1) * (double)(c - 1) / (double)(n->nic_pairs - 1);
    return c;
}

double acct_model_nic_share(const struct acct_model *mdl, int c_out, int c_in)
{
    double f = acct_model_nic_factor(mdl, c_out);
    const struct acct_model_nodes *n = &mdl->nodes;
    if (c_out < 1 || c_in < 1 || !(n->nic_bidir_factor >= 1) || n->nic_bidir_pairs < 2)
        return f;
    int c = c_out > c_in ? c_out : c_in;
    double b = 1 + (n->nic_bidir_factor - 1) * (double)(c - 1) / (double)(n->nic_bidir_pairs - 1);
    return b > f ? b : f;
}

int acct_plogp_consistent(const struct acct_plogp *t, char *err, size_t errlen)
{
    if (acct_plogp_check(t, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        double rtt = 2 * (t->L_us + t->g_us[i]);
        if (t->or_us[i] > 2 * rtt) {
            if (err != NULL && errlen > 0)
                snprintf(err, errlen,
                         "or_us[%zu]: %.4g us at %llu bytes, above twice the round trip "
                         "2 (L + g) = %.4g us",
                         i, t->or_us[i], (unsigned long long)t->m[i], rtt);
            return -1;
        }
        for (size_t j = i + 1; j < t->n; j++)
            if (t->g_us[j] < t->g_us[i] / 2) {
                if (err != NULL && errlen > 0)
                    snprintf(err, errlen,
                             "g_us[%zu]: %.4g us at %llu bytes, below half of g_us[%zu] = %.4g us "
                             "at %llu bytes",
                             j, t->g_us[j], (unsigned long long)t->m[j], i, t->g_us[i],
                             (unsigned long long)t->m[i]);
                return -1;
            }
    }
    return 0;
}

double acct_model_stream_g(const struct acct_plogp *t, uint64_t m)
{
    double g = acct_plogp_g(t, m);
    if (t->n < 2)
        return g;
    /* the marginal gap per byte between the two largest samples, at most
     * the largest's average (a table converted from LogGP, sampled at 0,
     * 1 and 2 bytes, gives G: never above its g(m)) */
    size_t hi = t->n - 1, lo = t->n - 2;
    double per = (t->g_us[hi] - t->g_us[lo]) / (double)(t->m[hi] - t->m[lo]);
    double avg = t->g_us[hi] / (double)t->m[hi];
    if (!(per > 0))
        return g;
    double floor = (double)m * (per < avg ? per : avg);
    return floor > g ? floor : g;
}
