/* The rules and the model of whatif and check (model_input.h). */
#include "model_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/model_whatif.h"
#include "acct/stats.h"
#include "acctctl.h"
#include "daemon_ops.h"

void acctctl_mi_free(struct acctctl_mi *mi)
{
    acct_rules_free(mi->rules);
    mi->rules = NULL;
}

/* The model the rules name themselves (provenance.model, which acct-tune
 * writes with its modelled rules) into mi, with where it came from: 0, or
 * -1 when they name none (or one that does not convert). */
static int rules_model(struct acctctl_mi *mi, const char *why)
{
    const struct acct_rules_model *rm = mi->rules != NULL ? &mi->rules->prov.model : NULL;
    if (acct_whatif_model_rules(rm, &mi->mdl) != 0)
        return -1;
    snprintf(mi->model_from, sizeof(mi->model_from),
             "provenance.model of %s%s%s (LogGP L %g o %g g %g G %g us%s)%s", mi->rules_from,
             rm->run[0] != '\0' ? ", tuning run " : "", rm->run, rm->L_us, rm->o_us, rm->g_us,
             rm->G_us_per_byte, rm->has_levels ? "; with intra/inter levels" : "", why);
    return 0;
}

/* GET_MODEL of version v into mi. 0, -1 (printed), or 1 when acctd has no
 * model for it and fallback is set (nothing printed: the caller takes the
 * rules' own). */
static int daemon_model(struct acctctl_conn *conn, uint64_t v, int rpn, bool fallback,
                        struct acctctl_mi *mi)
{
    static const unsigned req[] = { ACCT_T_MODEL_L_US, ACCT_T_MODEL_O_US, ACCT_T_MODEL_G_US,
                                    ACCT_T_MODEL_GB_US };
    struct acct_wbuf w;
    double p[4];
    char run[ACCT_RULES_RUN_MAX + 1];
    int rc = -1;

    acctctl_request(conn, &w, ACCT_MSG_GET_MODEL);
    acct_put_u64(&w, ACCT_T_VERSION, v);
    if (rpn > 0) /* an older acctd ignores it */
        acct_put_u64(&w, ACCT_T_RANKS_PER_NODE, (uint64_t)rpn);
    unsigned code = 0;
    conn->quiet_errors = fallback;
    int called = acctctl_call(conn, &w, &code);
    conn->quiet_errors = false;
    if (called != 0 && fallback && code == ACCT_ERR_NOT_FOUND) {
        rc = 1;
        goto out;
    }
    if (called != 0 && fallback && code != 0) { /* not printed by acctctl_call */
        char msg[512];
        fprintf(stderr, ACCTCTL_NAME " %s: acctd: %s\n", conn->common->cmd,
                acctctl_str(conn->msg.body, conn->msg.len, ACCT_T_ERR_MSG, msg, sizeof(msg)));
    }
    if (called != 0 || acctctl_require(conn, req, 4) != 0)
        goto out;
    for (int k = 0; k < 4; k++)
        if (acct_get_f64(conn->msg.body, conn->msg.len, req[k], &p[k]) != 0)
            goto out;
    acctctl_str(conn->msg.body, conn->msg.len, ACCT_T_TUNING_RUN, run, sizeof(run));
    if (acct_whatif_model_loggp(p[0], p[1], p[2], p[3], &mi->mdl) != 0) {
        fprintf(stderr, ACCTCTL_NAME " %s: acctd's model of version %llu is not usable\n",
                conn->common->cmd, (unsigned long long)v);
        goto out;
    }
    snprintf(mi->model_from, sizeof(mi->model_from),
             "tuning run %s of version %llu (LogGP L %g o %g g %g G %g us)", run,
             (unsigned long long)v, p[0], p[1], p[2], p[3]);
    /* the run's two levels, when it measured them (issue 21; acctd >= schema 5) */
    static const unsigned lv[] = { ACCT_T_MODEL_INTRA_L_US, ACCT_T_MODEL_INTRA_O_US,
                                   ACCT_T_MODEL_INTRA_G_US, ACCT_T_MODEL_INTRA_GB_US,
                                   ACCT_T_MODEL_INTER_L_US, ACCT_T_MODEL_INTER_O_US,
                                   ACCT_T_MODEL_INTER_G_US, ACCT_T_MODEL_INTER_GB_US };
    double l[8], nic = 0;
    bool levels = true;
    for (int k = 0; k < 8 && levels; k++)
        levels = acct_get_f64(conn->msg.body, conn->msg.len, lv[k], &l[k]) == 0;
    if (levels) {
        uint64_t pairs = acctctl_u64(conn->msg.body, conn->msg.len, ACCT_T_MODEL_NIC_PAIRS, 0);
        if (pairs != 0 &&
            acct_get_f64(conn->msg.body, conn->msg.len, ACCT_T_MODEL_NIC_FACTOR, &nic) != 0)
            pairs = 0;
        /* the two-way factor (acctd >= schema 6, when the run measured it) */
        double bidir = 0;
        uint64_t bpairs =
            acctctl_u64(conn->msg.body, conn->msg.len, ACCT_T_MODEL_NIC_BIDIR_PAIRS, 0);
        if (bpairs != 0 && acct_get_f64(conn->msg.body, conn->msg.len,
                                        ACCT_T_MODEL_NIC_BIDIR_FACTOR, &bidir) != 0)
            bpairs = 0;
        /* the pair-duplex factor (acctd >= schema 7, when the run measured it) */
        double duplex = 0;
        if (acct_get_f64(conn->msg.body, conn->msg.len, ACCT_T_MODEL_PAIR_DUPLEX, &duplex) != 0)
            duplex = 0;
        /* its overlap (acctd >= schema 8, when measured and not 0) */
        uint64_t overlap = 0;
        if (acct_get_u64(conn->msg.body, conn->msg.len, ACCT_T_MODEL_PAIR_OVERLAP, &overlap) != 0)
            overlap = 0;
        if (pairs > 1024 || bpairs > 1024 ||
            overlap > ((uint64_t)1 << 30) ||
            acct_whatif_model_levels(l, l + 4, (int)pairs, nic, (int)bpairs, bidir, duplex,
                                     overlap, &mi->mdl) != 0) {
            fprintf(stderr, ACCTCTL_NAME " %s: acctd's model levels of version %llu are not "
                            "usable\n",
                    conn->common->cmd, (unsigned long long)v);
            goto out;
        }
        size_t len = strlen(mi->model_from);
        snprintf(mi->model_from + len, sizeof(mi->model_from) - len,
                 "; levels: intra G %g, inter G %g us/B, NIC x%g (%d pairs)", l[3], l[7], nic,
                 (int)pairs);
        len = strlen(mi->model_from);
        if (bpairs != 0)
            snprintf(mi->model_from + len, sizeof(mi->model_from) - len,
                     ", two-way x%g (%d pairs)", bidir, (int)bpairs);
        len = strlen(mi->model_from);
        if (duplex != 0)
            snprintf(mi->model_from + len, sizeof(mi->model_from) - len,
                     ", pair duplex x%g", duplex);
        len = strlen(mi->model_from);
        if (duplex != 0 && overlap != 0)
            snprintf(mi->model_from + len, sizeof(mi->model_from) - len,
                     " beyond %llu bytes", (unsigned long long)overlap);
    }
    rc = 0;
out:
    acct_wbuf_free(&w);
    return rc;
}

int acctctl_mi_load(const struct acctctl_common *c, uint64_t version, int rpn,
                    const char *rules_file, const char *model_file, struct acctctl_mi *mi)
{
    struct acctctl_conn conn = { .fd = -1 };
    struct acct_diags diags = ACCT_DIAGS_INIT;
    bool connected = false;
    int rc = -1;

    memset(mi, 0, sizeof(*mi));
    acct_model_init(&mi->mdl);
    if (model_file != NULL) {
        const char *kind = "";
        if (acct_whatif_model_file(model_file, &mi->mdl, &kind, &diags) != 0) {
            acct_diags_print(&diags, stderr);
            fprintf(stderr, ACCTCTL_NAME " %s: %s is not a usable model (a pLogP table, a "
                            "tuning result with a model: section, or a rules file with "
                            "provenance.model)\n",
                    c->cmd, model_file);
            goto out;
        }
        snprintf(mi->model_from, sizeof(mi->model_from), "%s (%s%s)", model_file, kind,
                 mi->mdl.nodes.intra.n > 0 ? ", with intra/inter levels and NIC factor" : "");
    }
    if (rules_file != NULL) {
        if (acct_rules_parse_file(rules_file, &mi->rules, &diags) != ACCT_RULES_OK) {
            acct_diags_print(&diags, stderr);
            fprintf(stderr, ACCTCTL_NAME " %s: %s is not a valid rules file\n", c->cmd,
                    rules_file);
            goto out;
        }
        snprintf(mi->rules_from, sizeof(mi->rules_from), "%s", rules_file);
    }
    /* a rules file without --model: the model it names itself, when it does */
    bool have_model = model_file != NULL ||
                      (rules_file != NULL && rules_model(mi, "") == 0);
    if (rules_file != NULL && !have_model && c->partition == NULL && version == 0) {
        fprintf(stderr, ACCTCTL_NAME " %s: %s names no model (provenance.model): give "
                        "--model FILE (a pLogP table or a tuning result), or -p PARTITION "
                        "for the model of its active version\n",
                c->cmd, rules_file);
        goto out;
    }
    if (rules_file == NULL || !have_model) {
        struct acct_field text;
        if (acctctl_connect(&conn, c) != 0)
            goto out;
        connected = true;
        uint64_t v = version;
        if (rules_file == NULL || v == 0) {
            if (acctctl_op_show(&conn, version, c->partition, c->interconnect) != 0)
                goto out;
            v = acctctl_u64(conn.msg.body, conn.msg.len, ACCT_T_VERSION, 0);
        }
        if (rules_file == NULL) {
            char p[ACCT_RULES_NAME_MAX + 1], i[ACCT_RULES_NAME_MAX + 1];
            if (!acct_msg_find(&conn.msg, ACCT_T_RULES_TEXT, &text)) {
                fprintf(stderr, ACCTCTL_NAME " %s: acctd's SHOW reply has no RULES_TEXT\n",
                        c->cmd);
                goto out;
            }
            if (acct_rules_parse_buffer("acctd reply", (const char *)text.val, text.len,
                                        &mi->rules, &diags) != ACCT_RULES_OK) {
                acct_diags_print(&diags, stderr);
                fprintf(stderr, ACCTCTL_NAME " %s: acctd sent rules this acctctl cannot read\n",
                        c->cmd);
                goto out;
            }
            snprintf(mi->rules_from, sizeof(mi->rules_from), "%s/%s version %llu",
                     acctctl_str(conn.msg.body, conn.msg.len, ACCT_T_PARTITION, p, sizeof(p)),
                     acctctl_str(conn.msg.body, conn.msg.len, ACCT_T_INTERCONNECT, i,
                                 sizeof(i)),
                     (unsigned long long)v);
        }
        if (!have_model) {
            /* acctd's model of the version's run; where it has none (a
             * version imported from a rules file), the rules' own */
            const bool own = mi->rules->prov.model.present;
            int r = daemon_model(&conn, v, rpn, own, mi);
            if (r == 1)
                r = rules_model(mi, "; acctd stored no model for it");
            if (r != 0) {
                fprintf(stderr, ACCTCTL_NAME " %s: give a model with --model FILE (a pLogP "
                                "table, a tuning result with a model: section, or a rules "
                                "file with provenance.model)\n",
                        c->cmd);
                goto out;
            }
        }
    }
    rc = 0;
out:
    if (connected)
        acctctl_disconnect(&conn);
    acct_diags_free(&diags);
    if (rc != 0)
        acctctl_mi_free(mi);
    return rc;
}

int acctctl_size_list(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, int max,
                      char *err, size_t errlen)
{
    int n = 0;
    char *copy = strdup(s), *save = NULL;

    if (copy == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (char *tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        uint64_t a, b;
        char *colon = strchr(tok, ':');
        if (colon != NULL)
            *colon = '\0';
        if (acct_size_parse(tok, &a, err, errlen) != 0 ||
            (colon != NULL && acct_size_parse(colon + 1, &b, err, errlen) != 0))
            goto bad;
        if (colon == NULL)
            b = a;
        if (a < lo || b > hi || a > b) {
            snprintf(err, errlen, "\"%s%s%s\": expected values from %llu to %llu%s", tok,
                     colon != NULL ? ":" : "", colon != NULL ? colon + 1 : "",
                     (unsigned long long)lo, (unsigned long long)hi,
                     a > b ? ", the range ascending" : "");
            goto bad;
        }
        for (uint64_t x = a; x <= b; x = x == 0 ? 1 : x * 2) {
            if (n == max) {
                snprintf(err, errlen, "more than %d values", max);
                goto bad;
            }
            out[n++] = x;
            if (colon == NULL || x > b / 2)
                break;
        }
    }
    if (n == 0) {
        snprintf(err, errlen, "no value");
        goto bad;
    }
    free(copy);
    return n;
bad:
    free(copy);
    return -1;
}
