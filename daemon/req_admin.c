/* Requests that change decisions or configuration, for root and the admin
 * group only (the dispatch table enforces it): IMPORT, ACTIVATE, ROLLBACK,
 * RELOAD, SET_POLICY, REFINE (docs/protocol.md). Each runs in its own
 * savepoint of the round's transaction; the reply leaves after COMMIT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/result.h"
#include "acctd.h"

/* The display name of an imported text: NAME if given and printable (at
 * most 255 characters), else dflt. */
static void display_name(const struct acct_msg *m, const char *dflt, char *buf, size_t cap)
{
    bool ok = acct_get_str(m->body, m->len, ACCT_T_NAME, buf, cap) == 0 && buf[0] != '\0';
    for (const char *p = buf; ok && *p; p++)
        ok = (unsigned char)*p >= 0x20 && *p != 0x7f;
    if (!ok)
        snprintf(buf, cap, "%s", dflt);
}

/* A CONTENT error listing the problems of an imported file. */
static void put_diags(struct acct_wbuf *out, uint32_t id, const char *what,
                      const struct acct_diags *dg)
{
    acct_put_error(out, id, ACCT_ERR_CONTENT, "%s is invalid (%zu error%s)", what, dg->total,
                   dg->total == 1 ? "" : "s");
    for (size_t i = 0; i < dg->n; i++) {
        char line[ACCT_DIAG_MSG_MAX + ACCT_DIAG_FIELD_MAX + 64];
        acct_diag_format(dg, i, line, sizeof(line));
        acct_put_str(out, ACCT_T_DIAG, line);
    }
    if (dg->total + dg->warnings > dg->n) {
        char line[64];
        snprintf(line, sizeof(line), "%zu more errors not shown",
                 dg->total + dg->warnings - dg->n);
        acct_put_str(out, ACCT_T_DIAG, line);
    }
}

/* After an activation of (p, i) in this request: commit now and write the
 * pair's rules file, so that the reply says if jobs do not see it yet (a
 * WARNING; acctd keeps retrying). A failed commit turns the reply into an
 * error: nothing was activated. */
static void commit_activation(struct acctd *d, const struct acct_msg *m, struct acct_wbuf *out,
                              const char *p, const char *i)
{
    char warning[ACCTD_PATH_MAX + 1024];
    d->rules_dirty = true;
    if (acctd_commit_now(d) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL,
                       "the store could not commit; nothing was activated (acctd's log says "
                       "why)");
        return;
    }
    rulesdir_pair_warning(d, p, i, warning, sizeof(warning));
    if (warning[0] != '\0') {
        acct_put_str(out, ACCT_T_WARNING, warning);
        LOG_W("%s", warning);
    }
}

/* The check of version before it is activated (check.c; the policy's
 * check.on_activate): *refuse when the policy refuses it, else the lines to
 * send as WARNINGs in *dg / *why (chk 1). Returns acctd_check_version's
 * value, or -2 when not run (policy off, the version already active or
 * unknown). */
static int check_before_activation(struct acctd *d, int64_t version, struct acct_diags *dg,
                                   char *why, size_t len, bool *refuse)
{
    struct store_version v;
    struct policy pol;
    int chk = -2;
    *refuse = false;
    if (store_version_get(d->store, version, false, &v) != 0)
        return -2;
    acctd_policy_in_force(d, v.partition, &pol);
    if (!v.active && pol.check_on_activate != POLICY_CHECK_OFF) {
        chk = acctd_check_version(d, version, &pol, dg, why, len);
        if (chk == 1) {
            *refuse = pol.check_on_activate == POLICY_CHECK_REFUSE;
            LOG_W("check before activating: %s%s (policy %s: check.on_activate: %s)", why,
                  *refuse ? "; not activated" : "", pol.name,
                  policy_check_names[pol.check_on_activate]);
        } else if (chk < 0) {
            LOG_I("check before activating: not checked: %s", why);
        }
    }
    store_version_free(&v);
    return chk;
}

/* The check's findings as WARNING fields of a successful reply (at most 10
 * rules, then a count). */
static void put_check_warnings(struct acct_wbuf *out, const char *prefix, const char *why,
                               const struct acct_diags *dg)
{
    char line[ACCT_DIAG_MSG_MAX + ACCT_DIAG_FIELD_MAX + 600];
    snprintf(line, sizeof(line), "%s%s", prefix, why);
    acct_put_str(out, ACCT_T_WARNING, line);
    for (size_t i = 0; i < dg->n && i < 10; i++) {
        acct_diag_format(dg, i, line, sizeof(line));
        acct_put_str(out, ACCT_T_WARNING, line);
    }
    if (dg->total > 10) {
        snprintf(line, sizeof(line), "%zu more rules over the bound", dg->total - 10);
        acct_put_str(out, ACCT_T_WARNING, line);
    }
}

/* The warnings of a valid tuning result (an unknown optional section
 * skipped, docs/tuning-result.md "Forward compatibility"): logged, and
 * WARNING fields of the reply. */
static void put_parse_warnings(struct acct_wbuf *out, const struct acct_diags *dg)
{
    char line[ACCT_DIAG_MSG_MAX + ACCT_DIAG_FIELD_MAX + 64];
    for (size_t i = 0; i < dg->n; i++) {
        if (!dg->v[i].warning)
            continue;
        acct_diag_format(dg, i, line, sizeof(line));
        acct_put_str(out, ACCT_T_WARNING, line);
        LOG_W("import: %s", line);
    }
    if (dg->warnings > dg->n) {
        snprintf(line, sizeof(line), "%zu more warnings not shown", dg->warnings - dg->n);
        acct_put_str(out, ACCT_T_WARNING, line);
    }
}

/* IMPORT's store step: the tuning result res (text f) or the rules file
 * rules as a new version (*version; *existing if the run was imported
 * before with the same content). 0, or -1 with the error reply in out. */
static int import_store(struct acctd *d, const struct client *c, const struct acct_msg *m,
                        const struct acct_field *f, const struct acct_result *res,
                        struct acct_rules *rules, int64_t *version, bool *existing,
                        struct acct_wbuf *out)
{
    char err[512] = "";
    if (res != NULL) {
        int r = store_import_result(d->store, res, (const char *)f->val, f->len, (long)c->uid,
                                    version, existing, err, sizeof(err));
        if (r != 0) {
            acct_put_error(out, m->h.id, r == 1 ? ACCT_ERR_CONFLICT : ACCT_ERR_INTERNAL, "%s",
                           err);
            return -1;
        }
        return 0;
    }
    *version = store_version_add(d->store, rules, 0, "import", (long)c->uid, err, sizeof(err));
    if (*version < 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "%s", err);
        return -1;
    }
    return 0;
}

/* IMPORT's reply: the version v, its run (res, NULL for a rules file). */
static void import_reply(const struct acct_msg *m, const struct store_version *v,
                         const struct acct_result *res, bool existing, int64_t previous,
                         struct acct_wbuf *out)
{
    acct_wbuf_start(out, ACCT_MSG_IMPORT | ACCT_MSG_REPLY, m->h.id);
    acct_put_u64(out, ACCT_T_VERSION, (uint64_t)v->id);
    acct_put_str(out, ACCT_T_PARTITION, v->partition);
    acct_put_str(out, ACCT_T_INTERCONNECT, v->interconnect);
    if (res != NULL)
        acct_put_str(out, ACCT_T_RUN_ID, res->id);
    acct_put_u64(out, ACCT_T_HASH, v->hash);
    acct_put_u64(out, ACCT_T_ACTIVE, v->active);
    acct_put_u64(out, ACCT_T_PREVIOUS, (uint64_t)previous);
    if (existing)
        acct_put_str(out, ACCT_T_REASON, "already imported");
}

int req_import(struct acctd *d, struct client *c, const struct acct_msg *m,
               struct acct_wbuf *out)
{
    struct acct_field f;
    struct acct_diags dg = ACCT_DIAGS_INIT;
    struct acct_result *res = NULL;
    struct acct_rules *rules = NULL;
    uint64_t activate = 0;
    int64_t version = 0, previous = 0;
    bool existing = false, ok = false, began = false, refused = false;
    char vp[ACCT_RULES_NAME_MAX + 1] = "", vi[ACCT_RULES_NAME_MAX + 1] = "";
    struct acct_diags cdg = ACCT_DIAGS_INIT;
    char why[512] = "";
    int chk = -2;
    bool is_result = acct_msg_find(m, ACCT_T_RESULT_TEXT, &f);
    if (!is_result && !acct_msg_find(m, ACCT_T_RULES_TEXT, &f)) {
        acct_put_error(out, m->h.id, ACCT_ERR_INVALID, "RESULT_TEXT or RULES_TEXT: required");
        goto out;
    }
    acct_get_u64(m->body, m->len, ACCT_T_ACTIVATE, &activate);
    char name[256];
    display_name(m, is_result ? "result" : "rules", name, sizeof(name));
    if (is_result) {
        if (acct_result_parse_buffer(name, (const char *)f.val, f.len, &res, &dg) != 0) {
            put_diags(out, m->h.id, "the tuning result", &dg);
            goto out;
        }
    } else if (acct_rules_parse_buffer(name, (const char *)f.val, f.len, &rules, &dg) != 0) {
        put_diags(out, m->h.id, "the rules file", &dg);
        goto out;
    }
    if (acctd_write_begin(d, c) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
        goto out;
    }
    began = true;
    if (import_store(d, c, m, &f, res, rules, &version, &existing, out) != 0)
        goto out;
    if (activate)
        chk = check_before_activation(d, version, &cdg, why, sizeof(why), &refused);
    if (refused)
        activate = 0; /* the version stays imported, not active */
    if (activate) {
        int r = store_activate(d->store, version, "import", (long)c->uid, &previous);
        if (r < 0) {
            acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
            goto out;
        }
        d->rules_dirty = true;
    }
    struct store_version v;
    if (store_version_get(d->store, version, false, &v) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
        goto out;
    }
    import_reply(m, &v, res, existing, previous, out);
    put_parse_warnings(out, &dg);
    if (chk == 1)
        put_check_warnings(out, refused ? "not activated (policy check.on_activate: refuse): "
                                        : "activated despite the check: ",
                           why, &cdg);
    LOG_I("uid %u imported %s as version %lld of (%s, %s)%s%s", (unsigned)c->uid,
          res != NULL ? res->id : "a rules file", (long long)version, v.partition,
          v.interconnect, existing ? " (already imported)" : "", activate ? ", activated" : "");
    snprintf(vp, sizeof(vp), "%s", v.partition);
    snprintf(vi, sizeof(vi), "%s", v.interconnect);
    store_version_free(&v);
    ok = true;
out:
    if (began)
        acctd_write_end(d, ok);
    if (ok && activate)
        commit_activation(d, m, out, vp, vi);
    acct_result_free(res);
    acct_rules_free(rules);
    acct_diags_free(&dg);
    acct_diags_free(&cdg);
    return 0;
}

int req_activate(struct acctd *d, struct client *c, const struct acct_msg *m,
                 struct acct_wbuf *out)
{
    uint64_t id = 0;
    int64_t previous = 0;
    bool ok = false;
    struct store_version v;
    char p[ACCT_RULES_NAME_MAX + 1], i[ACCT_RULES_NAME_MAX + 1];
    if (acct_get_u64(m->body, m->len, ACCT_T_VERSION, &id) != 0 || id == 0 || id > INT64_MAX) {
        acct_put_error(out, m->h.id, ACCT_ERR_INVALID, "VERSION: required (a version >= 1)");
        return 0;
    }
    if (acctd_write_begin(d, c) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
        return 0;
    }
    struct acct_diags cdg = ACCT_DIAGS_INIT;
    char why[512] = "";
    bool refused = false;
    int chk = check_before_activation(d, (int64_t)id, &cdg, why, sizeof(why), &refused);
    if (refused) {
        char line[ACCT_DIAG_MSG_MAX + ACCT_DIAG_FIELD_MAX + 64];
        acct_put_error(out, m->h.id, ACCT_ERR_CONTENT,
                       "not activated (policy check.on_activate: refuse): %s", why);
        for (size_t k = 0; k < cdg.n; k++) {
            acct_diag_format(&cdg, k, line, sizeof(line));
            acct_put_str(out, ACCT_T_DIAG, line);
        }
        acct_diags_free(&cdg);
        acctd_write_end(d, false);
        return 0;
    }
    int r = store_activate(d->store, (int64_t)id, "activate", (long)c->uid, &previous);
    if (r == 1) {
        acct_put_error(out, m->h.id, ACCT_ERR_NOT_FOUND, "no version %llu",
                       (unsigned long long)id);
    } else if (r == 2) {
        acct_put_error(out, m->h.id, ACCT_ERR_CONFLICT, "version %llu is already active",
                       (unsigned long long)id);
    } else if (r < 0 || store_version_get(d->store, (int64_t)id, false, &v) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
    } else {
        acct_wbuf_start(out, ACCT_MSG_ACTIVATE | ACCT_MSG_REPLY, m->h.id);
        acct_put_u64(out, ACCT_T_VERSION, id);
        acct_put_str(out, ACCT_T_PARTITION, v.partition);
        acct_put_str(out, ACCT_T_INTERCONNECT, v.interconnect);
        acct_put_u64(out, ACCT_T_PREVIOUS, (uint64_t)previous);
        if (chk == 1)
            put_check_warnings(out, "activated despite the check: ", why, &cdg);
        LOG_I("uid %u activated version %llu of (%s, %s) (was %lld)", (unsigned)c->uid,
              (unsigned long long)id, v.partition, v.interconnect, (long long)previous);
        snprintf(p, sizeof(p), "%s", v.partition);
        snprintf(i, sizeof(i), "%s", v.interconnect);
        store_version_free(&v);
        ok = true;
    }
    acctd_write_end(d, ok);
    acct_diags_free(&cdg);
    if (ok)
        commit_activation(d, m, out, p, i);
    return 0;
}

int req_rollback(struct acctd *d, struct client *c, const struct acct_msg *m,
                 struct acct_wbuf *out)
{
    char p[ACCT_RULES_NAME_MAX + 1], i[ACCT_RULES_NAME_MAX + 1];
    int64_t now = 0, undone = 0;
    bool ok = false;
    if (req_name(m, ACCT_T_PARTITION, true, p, sizeof(p), m->h.id, out) != 0 ||
        req_name(m, ACCT_T_INTERCONNECT, true, i, sizeof(i), m->h.id, out) != 0)
        return 0;
    if (acctd_write_begin(d, c) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
        return 0;
    }
    int r = store_rollback(d->store, p, i, &now, &undone);
    if (r == 1) {
        acct_put_error(out, m->h.id, ACCT_ERR_NOT_FOUND,
                       "no active version for partition %s, interconnect %s", p, i);
    } else if (r == 2) {
        acct_put_error(out, m->h.id, ACCT_ERR_CONFLICT,
                       "nothing to roll back to: version %lld is the only one ever activated "
                       "for (%s, %s)",
                       (long long)undone, p, i);
    } else if (r < 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
    } else {
        acct_wbuf_start(out, ACCT_MSG_ROLLBACK | ACCT_MSG_REPLY, m->h.id);
        acct_put_u64(out, ACCT_T_VERSION, (uint64_t)now);
        acct_put_u64(out, ACCT_T_PREVIOUS, (uint64_t)undone);
        LOG_I("uid %u rolled (%s, %s) back from version %lld to %lld", (unsigned)c->uid, p, i,
              (long long)undone, (long long)now);
        ok = true;
    }
    acctd_write_end(d, ok);
    if (ok)
        commit_activation(d, m, out, p, i);
    return 0;
}

int req_reload(struct acctd *d, struct client *c, const struct acct_msg *m,
               struct acct_wbuf *out)
{
    (void)c;
    d->reload_requested = true; /* done by the loop, like SIGHUP */
    acct_wbuf_start(out, ACCT_MSG_RELOAD | ACCT_MSG_REPLY, m->h.id);
    return 0;
}

int req_set_policy(struct acctd *d, struct client *c, const struct acct_msg *m,
                   struct acct_wbuf *out)
{
    char p[ACCT_RULES_NAME_MAX + 1];
    struct acct_field f;
    struct acct_diags dg = ACCT_DIAGS_INIT;
    char *text = NULL;
    bool ok = false, began = false;
    if (req_name(m, ACCT_T_PARTITION, true, p, sizeof(p), m->h.id, out) != 0)
        goto out;
    if (!acct_msg_find(m, ACCT_T_POLICY_TEXT, &f)) {
        acct_put_error(out, m->h.id, ACCT_ERR_INVALID, "POLICY_TEXT: required");
        goto out;
    }
    if (f.len > 0) {
        struct policy pol;
        policy_builtin(&pol);
        char name[256];
        display_name(m, "policy", name, sizeof(name));
        if (policy_parse(name, (const char *)f.val, f.len, &pol, &dg) != 0) {
            put_diags(out, m->h.id, "the policy", &dg);
            goto out;
        }
    }
    text = strndup((const char *)f.val, f.len);
    if (text == NULL) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "out of memory");
        goto out;
    }
    if (acctd_write_begin(d, c) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
        goto out;
    }
    began = true;
    if (store_policy_set(d->store, p, text, (long)c->uid) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
        goto out;
    }
    acct_wbuf_start(out, ACCT_MSG_SET_POLICY | ACCT_MSG_REPLY, m->h.id);
    acct_put_str(out, ACCT_T_POLICY, f.len > 0 ? "store" : "files");
    LOG_I("uid %u %s the policy of partition %s", (unsigned)c->uid,
          f.len > 0 ? "set" : "removed the override of", p);
    ok = true;
out:
    if (began)
        acctd_write_end(d, ok);
    free(text);
    acct_diags_free(&dg);
    return 0;
}

int req_refine(struct acctd *d, struct client *c, const struct acct_msg *m,
               struct acct_wbuf *out)
{
    char p[ACCT_RULES_NAME_MAX + 1], i[ACCT_RULES_NAME_MAX + 1];
    if (req_name(m, ACCT_T_PARTITION, false, p, sizeof(p), m->h.id, out) != 0 ||
        req_name(m, ACCT_T_INTERCONNECT, false, i, sizeof(i), m->h.id, out) != 0)
        return 0;
    if (acctd_write_begin(d, c) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
        return 0;
    }
    acct_wbuf_start(out, ACCT_MSG_REFINE | ACCT_MSG_REPLY, m->h.id);
    int n = refine_run(d, p[0] ? p : NULL, i[0] ? i : NULL, out);
    if (n < 0)
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "refinement failed: %s",
                       store_errmsg(d->store));
    else
        acct_put_u64(out, ACCT_T_NREFINED, (uint64_t)n);
    acctd_write_end(d, n >= 0);
    return 0;
}
