/* Refinement policies (see policy.h, docs/acctd.md "Policies"). */
#include "policy.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/common.h"
#include "acct/proto.h"
#include "ytree.h"

void policy_builtin(struct policy *p)
{
    memset(p, 0, sizeof(*p));
    snprintf(p->name, sizeof(p->name), "built-in");
    p->enabled = true;
    p->activate = false;
    p->min_calls = 1000;
    p->min_jobs = 5;
    p->min_users = 2;
    p->significance = 0.01;
    p->min_gain = 0.05;
    p->max_age_days = 30;
    p->retune_drift = 0.5;
    p->min_job_calls = 10;
    p->require_registered = true;
}

int policy_parse(const char *name, const char *buf, size_t len, struct policy *p,
                 struct acct_diags *d)
{
    static const char *const top[] = {"acct_policy", "refine", "samples", NULL};
    static const char *const rk[] = {"enabled",      "activate",     "min_calls", "min_jobs",
                                     "min_users",    "significance", "min_gain",
                                     "max_age_days", "retune_drift", "explore",
                                     "min_job_calls", NULL};
    static const char *const sk[] = {"require_registered_jobs", NULL};
    struct policy n = *p;
    int rc = -1;
    struct yt_node *root = yt_parse(name, buf, len, d);
    if (root == NULL)
        goto out;
    yt_check_keys(root, "", top, d);
    const struct yt_node *v = yt_get(root, "acct_policy");
    long long ver = 0;
    if (v == NULL)
        acct_diags_add(d, root->line, root->col, "acct_policy", "required key is missing");
    else if (yt_int(v, "acct_policy", 0, 1000000, &ver, d) == 0 && ver != POLICY_VERSION) {
        acct_diags_add(d, v->line, v->col, "acct_policy",
                       "unsupported policy version %lld: this acctd reads version %d", ver,
                       POLICY_VERSION);
        goto out;
    }
    const struct yt_node *r = yt_get(root, "refine");
    if (r != NULL && r->type != YT_MAP) {
        acct_diags_add(d, r->line, r->col, "refine", "expected a mapping");
    } else if (r != NULL) {
        yt_check_keys(r, "refine", rk, d);
        if ((v = yt_get(r, "enabled")))
            yt_bool(v, "refine.enabled", &n.enabled, d);
        if ((v = yt_get(r, "activate")))
            yt_bool(v, "refine.activate", &n.activate, d);
        if ((v = yt_get(r, "min_calls")))
            yt_int(v, "refine.min_calls", 2, 1000000000LL, &n.min_calls, d);
        if ((v = yt_get(r, "min_jobs")))
            yt_int(v, "refine.min_jobs", 2, 1000000, &n.min_jobs, d);
        if ((v = yt_get(r, "min_users")))
            yt_int(v, "refine.min_users", 2, 1000000, &n.min_users, d);
        if ((v = yt_get(r, "significance")))
            yt_double(v, "refine.significance", 1e-9, 0.5, &n.significance, d);
        if ((v = yt_get(r, "min_gain")))
            yt_double(v, "refine.min_gain", 0, 0.99, &n.min_gain, d);
        if ((v = yt_get(r, "max_age_days")))
            yt_int(v, "refine.max_age_days", 1, 3650, &n.max_age_days, d);
        if ((v = yt_get(r, "retune_drift")))
            yt_double(v, "refine.retune_drift", 0.01, 100, &n.retune_drift, d);
        if ((v = yt_get(r, "explore")))
            yt_double(v, "refine.explore", 0, ACCT_EXPLORE_MAX, &n.explore, d);
        if ((v = yt_get(r, "min_job_calls")))
            yt_int(v, "refine.min_job_calls", 1, 1000000000LL, &n.min_job_calls, d);
    }
    const struct yt_node *sm = yt_get(root, "samples");
    if (sm != NULL && sm->type != YT_MAP) {
        acct_diags_add(d, sm->line, sm->col, "samples", "expected a mapping");
    } else if (sm != NULL) {
        yt_check_keys(sm, "samples", sk, d);
        if ((v = yt_get(sm, "require_registered_jobs")))
            yt_bool(v, "samples.require_registered_jobs", &n.require_registered, d);
    }
    if (d->total == 0) {
        snprintf(n.name, sizeof(n.name), "%s", name);
        *p = n;
        rc = 0;
    }
out:
    yt_free(root);
    return rc;
}

void policy_set_free(struct policy_set *set)
{
    free(set->v);
    set->v = NULL;
    set->n = 0;
}

static int load_file(const char *dir, const char *file, struct policy *p, struct acct_diags *all)
{
    char path[4096 + 256];
    char *buf = NULL;
    size_t len = 0;
    struct acct_diags d = ACCT_DIAGS_INIT;
    int rc = -1;
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    if (yt_slurp(path, &buf, &len, &d) == 0)
        rc = policy_parse(path, buf, len, p, &d);
    for (size_t i = 0; i < d.n; i++) {
        char line[ACCT_DIAG_MSG_MAX + ACCT_DIAG_FIELD_MAX + 4200];
        acct_diag_format(&d, i, line, sizeof(line));
        acct_diags_add(all, 0, 0, NULL, "%s", line);
    }
    free(buf);
    acct_diags_free(&d);
    return rc;
}

int policy_load(const char *dir, struct policy_set *set, struct acct_diags *d)
{
    struct policy_set n = {0};
    DIR *dh = NULL;
    int rc = -1;
    acct_diags_reset(d, dir);
    policy_builtin(&n.dflt);
    dh = opendir(dir);
    if (dh == NULL) {
        if (errno == ENOENT) {
            rc = 0; /* no directory: the built-in policy */
            goto done;
        }
        acct_diags_add(d, 0, 0, NULL, "%s: cannot open: %s", dir, strerror(errno));
        goto out;
    }
    /* default.yaml first: partition files start from it */
    char dflt[4096 + 32];
    snprintf(dflt, sizeof(dflt), "%s/default.yaml", dir);
    FILE *probe = fopen(dflt, "r");
    if (probe != NULL) {
        fclose(probe);
        load_file(dir, "default.yaml", &n.dflt, d);
    }
    struct dirent *e;
    while ((e = readdir(dh)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".yaml") != 0 || e->d_name[0] == '.' ||
            strcmp(e->d_name, "default.yaml") == 0)
            continue;
        char part[ACCT_RULES_NAME_MAX + 1];
        if (l - 5 > ACCT_RULES_NAME_MAX) {
            acct_diags_add(d, 0, 0, NULL, "%s/%s: not a partition name", dir, e->d_name);
            continue;
        }
        memcpy(part, e->d_name, l - 5);
        part[l - 5] = '\0';
        if (!acct_proto_name_ok(part, ACCT_RULES_NAME_MAX)) {
            acct_diags_add(d, 0, 0, NULL, "%s/%s: not a partition name", dir, e->d_name);
            continue;
        }
        struct policy_entry *nv = realloc(n.v, (n.n + 1) * sizeof(*nv));
        if (nv == NULL) {
            acct_diags_add(d, 0, 0, NULL, "out of memory");
            break;
        }
        n.v = nv;
        snprintf(n.v[n.n].partition, sizeof(n.v[n.n].partition), "%s", part);
        n.v[n.n].p = n.dflt;
        if (load_file(dir, e->d_name, &n.v[n.n].p, d) == 0)
            n.n++;
    }
done:
    if (d->total == 0) {
        policy_set_free(set);
        *set = n;
        n.v = NULL;
        rc = 0;
    }
out:
    if (dh != NULL)
        closedir(dh);
    free(n.v);
    return rc;
}

const struct policy *policy_for(const struct policy_set *set, const char *partition)
{
    for (size_t i = 0; i < set->n; i++)
        if (strcmp(set->v[i].partition, partition) == 0)
            return &set->v[i].p;
    return &set->dflt;
}
