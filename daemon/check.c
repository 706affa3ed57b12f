/* The check before an activation (docs/acctd.md, "Policies", check:):
 * acctctl check's test (acct/model_whatif.h) on the version to be
 * activated, with the model its tuning run stored; the partition's policy
 * says whether findings warn, refuse the activation, or are not looked
 * for. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/model_whatif.h"
#include "acct/stats.h"
#include "acctd.h"

void acctd_policy_in_force(struct acctd *d, const char *partition, struct policy *pol)
{
    char *text = NULL;
    *pol = *policy_for(&d->policies, partition);
    if (store_policy_get(d->store, partition, &text) == 0) {
        struct acct_diags dg = ACCT_DIAGS_INIT;
        struct policy o = *pol;
        if (policy_parse("store", text, strlen(text), &o, &dg) == 0)
            *pol = o;
        acct_diags_free(&dg);
    }
    free(text);
}

struct found {
    struct acct_diags *dg;
    double bound;
};

static int one(void *arg, const struct acct_check_finding *f)
{
    struct found *x = arg;
    char dm[160], bm[160], mb[32], field[64];
    if (!f->flagged)
        return 0;
    acct_decision_format(&f->runs, dm, sizeof(dm));
    acct_decision_format(&f->best, bm, sizeof(bm));
    acct_size_format(f->m, mb, sizeof(mb));
    snprintf(field, sizeof(field), "collectives.%s[%zu]", acct_coll_name(f->coll), f->rule);
    if (f->sizes > 0) /* decided from the communicator size alone */
        acct_diags_add(x->dg, f->r->line, f->r->col, field,
                       "%s: predicted penalty %.3g at %d ranks over %zu message sizes "
                       "(geometric mean %.4g us; the model's best over them %s: %.4g us), "
                       "over the bound %g",
                       dm, f->penalty, f->p, f->sizes, f->t_us, bm, f->best_us, x->bound);
    else
        acct_diags_add(x->dg, f->r->line, f->r->col, field,
                       "%s: predicted penalty %.3g at %d ranks, %s bytes (%.4g us; the model's "
                       "best %s: %.4g us), over the bound %g",
                       dm, f->penalty, f->p, mb, f->t_us, bm, f->best_us, x->bound);
    return 0;
}

bool acctd_version_layout_run(struct store_version *v, int rpn)
{
    if (v->tuning_run[0] != '\0' || v->rules_text == NULL)
        return false;
    struct acct_diags pd = ACCT_DIAGS_INIT;
    struct acct_rules *r = NULL;
    bool filled = false;
    if (acct_rules_parse_buffer("version", v->rules_text, strlen(v->rules_text), &r, &pd) ==
        ACCT_RULES_OK) {
        const char *run = acct_rules_run_for(&r->prov, rpn);
        if (run != NULL) {
            snprintf(v->tuning_run, sizeof v->tuning_run, "%s", run);
            filled = true;
        }
    }
    acct_rules_free(r);
    acct_diags_free(&pd);
    return filled;
}

int acctd_check_version(struct acctd *d, int64_t version, const struct policy *pol,
                        struct acct_diags *dg, char *why, size_t len)
{
    struct store_version v;
    struct acct_rules *rules = NULL;
    struct acct_model mdl;
    struct acct_check_summary sum;
    double p[4];
    int rc = -1;

    why[0] = '\0';
    if (store_version_get(d->store, version, true, &v) != 0) {
        snprintf(why, len, "store: %s", store_errmsg(d->store));
        return -1;
    }
    char name[64];
    snprintf(name, sizeof(name), "version %lld", (long long)version);
    acct_diags_reset(dg, name);
    /* merged rules: the model of the run behind the layout checked */
    const bool merged = acctd_version_layout_run(&v, pol->check_rpn > 0 ? (int)pol->check_rpn : 0);
    struct acct_diags pd = ACCT_DIAGS_INIT;
    if (acct_rules_parse_buffer(name, v.rules_text, strlen(v.rules_text), &rules, &pd) !=
        ACCT_RULES_OK) {
        acct_diags_free(&pd);
        snprintf(why, len, "version %lld: its rules cannot be read", (long long)version);
        goto out;
    }
    acct_diags_free(&pd);
    /* the model of the version's run; where it stored none (a version
     * imported from a rules file), the one the rules name themselves
     * (provenance.model, acct-tune's modelled rules) */
    int r = v.tuning_run[0] != '\0' ? store_model_get(d->store, v.tuning_run, p) : 1;
    const char *model_of = "";
    if (r == 1 && acct_whatif_model_rules(&rules->prov.model, &mdl) == 0) {
        model_of = "; the model its rules name (provenance.model)";
    } else if (r == 1) {
        snprintf(why, len,
                 v.tuning_run[0] == '\0'
                     ? "version %lld of %s/%s has no model (no tuning run, no provenance.model)"
                     : "version %lld of %s/%s has no model (its run %s stored none, its rules "
                       "name none)",
                 (long long)version, v.partition, v.interconnect, v.tuning_run);
        goto out;
    } else if (r != 0) {
        snprintf(why, len, "version %lld of %s/%s: the store failed reading the model of run %s",
                 (long long)version, v.partition, v.interconnect, v.tuning_run);
        goto out;
    } else {
        double lv[STORE_LEVELS_N];
        int lr = store_model_levels_get(d->store, v.tuning_run, lv);
        if (acct_whatif_model_loggp(p[0], p[1], p[2], p[3], &mdl) != 0 || lr < 0 ||
            (lr == 0 && (lv[8] < 0 || lv[8] > 1024 || lv[10] < 0 || lv[10] > 1024 ||
                         !(lv[13] >= 0 && lv[13] <= 1073741824.0) ||
                         acct_whatif_model_levels(lv, lv + 4, (int)lv[8], lv[9], (int)lv[10],
                                                  lv[11], lv[12], (uint64_t)lv[13], &mdl) != 0))) {
            snprintf(why, len, "version %lld: the model of its run %s cannot be read",
                     (long long)version, v.tuning_run);
            goto out;
        }
    }
    /* the layout: the policy's, else the one the run was tuned on; with
     * the run's two levels every message is costed at its level */
    int rpn = pol->check_rpn > 0 ? (int)pol->check_rpn : rules->prov.ranks_per_node_min;
    struct acct_check_opts o = { .bound = pol->check_bound,
                                 .max_comm = (int)pol->check_max_comm,
                                 .max_bytes = ACCT_CHECK_DEFAULT_MAX_BYTES,
                                 .src = ACCT_WHATIF_CLOSED,
                                 .ranks_per_node = rpn };
    struct found x = { .dg = dg, .bound = pol->check_bound };
    if (acct_check_rules(rules, ACCT_COLL_COUNT, &mdl, &o, one, &x, &sum) != 0) {
        snprintf(why, len, "version %lld: out of memory checking it", (long long)version);
        goto out;
    }
    char layout[96] = "";
    if (rpn > 0)
        snprintf(layout, sizeof(layout), ", %d ranks per node%s", rpn,
                 acct_whatif_has_levels(&mdl) ? " on the run's intra/inter levels" : "");
    char from[ACCT_RULES_RUN_MAX + 64] = "";
    if (merged && model_of[0] == '\0')
        snprintf(from, sizeof(from), "; the model of run %s, merged rules", v.tuning_run);
    else
        snprintf(from, sizeof(from), "%s", model_of);
    snprintf(why, len,
             "version %lld of %s/%s: %zu of %zu rules over the predicted penalty bound %g "
             "(communicator sizes up to %lld%s%s; acctctl check --version %lld%s%.0d shows them)",
             (long long)version, v.partition, v.interconnect, sum.flagged, sum.rules,
             pol->check_bound, pol->check_max_comm, layout, from, (long long)version,
             rpn > 0 ? " --ranks-per-node " : "", rpn);
    rc = sum.flagged > 0 ? 1 : 0;
out:
    acct_rules_free(rules);
    store_version_free(&v);
    return rc;
}
