/* Refinement policies (see policy.h, docs/acctd.md "Policies"). */
#include "policy.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/common.h"
#include "acct/proto.h"
#include "config.h"
#include "yamltree.h"

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
    p->check_on_activate = POLICY_CHECK_WARN;
    p->check_bound = 2.0;
    p->check_max_comm = 4096;
}

const char *const policy_check_names[3] = {"warn", "refuse", "off"};

/* The keys of a policy's sections: type, field of struct policy, range. */
enum pkey_type { PK_BOOL, PK_INT, PK_NUMBER, PK_CHECK };

struct pkey {
    const char *name;
    enum pkey_type type;
    size_t off;
    double lo, hi; /* PK_INT, PK_NUMBER */
};

#define PF(field) offsetof(struct policy, field)

static const struct pkey refine_keys[] = {
    {"enabled", PK_BOOL, PF(enabled), 0, 0},
    {"activate", PK_BOOL, PF(activate), 0, 0},
    {"min_calls", PK_INT, PF(min_calls), 2, 1000000000},
    {"min_jobs", PK_INT, PF(min_jobs), 2, 1000000},
    {"min_users", PK_INT, PF(min_users), 2, 1000000},
    {"significance", PK_NUMBER, PF(significance), 1e-9, 0.5},
    {"min_gain", PK_NUMBER, PF(min_gain), 0, 0.99},
    {"max_age_days", PK_INT, PF(max_age_days), 1, 3650},
    {"retune_drift", PK_NUMBER, PF(retune_drift), 0.01, 100},
    {"explore", PK_NUMBER, PF(explore), 0, ACCT_EXPLORE_MAX},
    {"min_job_calls", PK_INT, PF(min_job_calls), 1, 1000000000},
};

static const struct pkey samples_keys[] = {
    {"require_registered_jobs", PK_BOOL, PF(require_registered), 0, 0},
};

static const struct pkey check_keys[] = {
    {"on_activate", PK_CHECK, PF(check_on_activate), 0, 0},
    {"bound", PK_NUMBER, PF(check_bound), 1.000001, 1e9},
    {"max_comm_size", PK_INT, PF(check_max_comm), 2, 16777216},
    {"ranks_per_node", PK_INT, PF(check_rpn), 0, 16777216},
};

#define PKEYS_MAX 16

/* One value of key k into its field of pol (reported as field). */
static void get_value(struct yt_parse *p, const struct ynode *v, const char *field,
                      const struct pkey *k, struct policy *pol)
{
    char *to = (char *)pol + k->off;
    bool b;
    long long i;
    double x;
    int w;
    switch (k->type) {
    case PK_CHECK:
        if (acct_yt_get_word(p, v, field, "an action", policy_check_names,
                             ACCT_ARRAY_LEN(policy_check_names), 0, &w))
            memcpy(to, &w, sizeof(w));
        break;
    case PK_BOOL:
        if (acct_yt_get_bool(p, v, field, &b))
            memcpy(to, &b, sizeof(b));
        break;
    case PK_INT:
        if (acct_yt_get_int_in(p, v, field, "an integer", (long long)k->lo, (long long)k->hi,
                               false, &i))
            memcpy(to, &i, sizeof(i));
        break;
    case PK_NUMBER:
        if (!acct_yt_get_number(p, v, field, k->lo, false, &x))
            break;
        if (x > k->hi) /* v is a number: printed as written */
            YT_ERR_AT(p, v, field, "%s is too large: the maximum is %g", v->s, k->hi);
        else
            memcpy(to, &x, sizeof(x));
        break;
    }
}

/* The mapping y at path with the keys of keys[0..n). */
static void walk_section(struct yt_parse *p, const struct ynode *y, const char *path,
                         const struct pkey *keys, size_t n, struct policy *pol)
{
    struct yt_key defs[PKEYS_MAX];
    const struct ynode *vals[PKEYS_MAX], *names[PKEYS_MAX];
    for (size_t i = 0; i < n; i++)
        defs[i] = (struct yt_key){keys[i].name, false};
    if (!acct_yt_walk_map(p, y, path, "key", defs, n, vals, names))
        return;
    for (size_t i = 0; i < n; i++) {
        char field[ACCT_DIAG_FIELD_MAX];
        if (vals[i] == NULL)
            continue;
        acct_yt_join(field, sizeof(field), path, keys[i].name, strlen(keys[i].name));
        get_value(p, vals[i], field, &keys[i], pol);
    }
}

/* A policy file: acct_policy (the version), refine, samples. */
static void walk_policy(struct yt_parse *p, const struct ynode *root, void *arg)
{
    static const struct yt_key top[] = {{"acct_policy", true}, {"refine", false},
                                        {"samples", false}, {"check", false}};
    const struct ynode *vals[4], *names[4];
    long long ver;
    _Static_assert(ACCT_ARRAY_LEN(refine_keys) <= PKEYS_MAX, "PKEYS_MAX");
    if (!acct_yt_walk_map(p, root, "", "key", top, 4, vals, names))
        return;
    if (vals[0] != NULL &&
        acct_yt_get_int_in(p, vals[0], "acct_policy", "an integer", 0, 1000000, false, &ver) &&
        ver != POLICY_VERSION) {
        YT_ERR_AT(p, vals[0], "acct_policy",
                  "unsupported policy version %lld: this acctd reads version %d", ver,
                  POLICY_VERSION);
        return;
    }
    if (vals[1] != NULL)
        walk_section(p, vals[1], "refine", refine_keys, ACCT_ARRAY_LEN(refine_keys), arg);
    if (vals[2] != NULL)
        walk_section(p, vals[2], "samples", samples_keys, ACCT_ARRAY_LEN(samples_keys), arg);
    if (vals[3] != NULL)
        walk_section(p, vals[3], "check", check_keys, ACCT_ARRAY_LEN(check_keys), arg);
}

/* An empty policy is an empty mapping: it lacks acct_policy. */
static const struct acct_yt_doc policy_doc = {
    .doc = "policy", .docs = "policies", .nothing = "no policy given", .walk = walk_policy,
    ACCTD_YAML_DOC};

/* Parse from the file name (from_file) or from buf over the defaults in *p. */
static int parse(bool from_file, const char *name, const char *buf, size_t len, struct policy *p,
                 struct acct_diags *d)
{
    struct policy n = *p;
    uint64_t hash;
    if (acct_yt_parse(&policy_doc, from_file, name, buf, len, true, d, &n, &hash) !=
        ACCT_RULES_OK)
        return -1;
    snprintf(n.name, sizeof(n.name), "%s", name);
    *p = n;
    return 0;
}

int policy_parse(const char *name, const char *buf, size_t len, struct policy *p,
                 struct acct_diags *d)
{
    return parse(false, name, buf, len, p, d);
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
    struct acct_diags d = ACCT_DIAGS_INIT;
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    int rc = parse(true, path, NULL, 0, p, &d);
    for (size_t i = 0; i < d.n; i++) {
        char line[ACCT_DIAG_MSG_MAX + ACCT_DIAG_FIELD_MAX + 4200];
        acct_diag_format(&d, i, line, sizeof(line));
        acct_diags_add(all, 0, 0, NULL, "%s", line);
    }
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
