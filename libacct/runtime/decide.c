/* Decisions: ACCT_FORCE, then the rules, then native (decide.h). */
#include "decide.h"

#include <string.h>

#include "acct/log.h"
#include "explore.h"

struct acct_force rt_forced;
static struct acct_rules *rules;

static void warn_first(const char *what, const struct acct_diags *d)
{
    char line[768];
    if (d->total == 0 || acct_diag_format(d, 0, line, sizeof line) != 0)
        acct_warn("%s is invalid; ignored", what);
    else if (d->total == 1)
        acct_warn("%s; ignored", line);
    else
        acct_warn("%s (and %zu more problem%s); ignored", line, d->total - 1,
                  d->total == 2 ? "" : "s");
}

void rt_decide_init(const char *rules_name, const char *rules_text, size_t rules_len,
                    const char *force_text)
{
    struct acct_diags diags = ACCT_DIAGS_INIT;

    memset(&rt_forced, 0, sizeof rt_forced);
    rules = NULL;
    if (force_text != NULL && acct_force_parse(force_text, &rt_forced, &diags) != 0)
        warn_first("ACCT_FORCE", &diags);
    if (rules_text != NULL &&
        acct_rules_parse_buffer(rules_name ? rules_name : "rules", rules_text, rules_len, &rules,
                                &diags) != ACCT_RULES_OK) {
        warn_first("the rules file", &diags);
        rules = NULL;
    }
    rt_explore_init(rules);
    acct_diags_free(&diags);
}

void rt_decide_fini(void)
{
    acct_rules_free(rules);
    rules = NULL;
    rt_explore.on = false;
    memset(&rt_forced, 0, sizeof rt_forced);
}

int rt_decide_set_force(const char *spec)
{
    struct acct_diags diags = ACCT_DIAGS_INIT;
    struct acct_force f;
    char line[768];
    int rc = 0;

    if (acct_force_parse(spec, &f, &diags) != 0) {
        for (size_t i = 0; i < diags.n; i++)
            if (acct_diag_format(&diags, i, line, sizeof line) == 0)
                acct_debug("acct_tool_force: %s", line);
        rc = -1;
    } else {
        rt_forced = f;
    }
    acct_diags_free(&diags);
    return rc;
}

const struct acct_rules *rt_decide_rules(void)
{
    return rules;
}

const struct acct_force *rt_decide_force(void)
{
    return &rt_forced;
}

int rt_tables_build(struct rt_tables *tabs, int comm_size)
{
    memset(tabs, 0, sizeof *tabs);
    if (rules == NULL)
        return 0;
    for (int c = 0; c < ACCT_COLL_COUNT; c++) {
        if (rules->coll[c].n == 0)
            continue;
        if (acct_rules_layout_bound(rules, (enum acct_coll_id)c, comm_size)) {
            tabs->pending[c] = true;
            continue;
        }
        if (acct_rules_resolve(rules, (enum acct_coll_id)c, comm_size, &tabs->t[c]) != 0) {
            rt_tables_free(tabs);
            return -1;
        }
        if (acct_table_all_native(tabs->t[c])) {
            acct_table_free(tabs->t[c]);
            tabs->t[c] = NULL;
        }
    }
    return 0;
}

void rt_tables_place(struct rt_tables *tabs, enum acct_coll_id coll, int comm_size,
                     const struct acct_layout *layout)
{
    struct acct_rules_where where = { 0, false };
    struct acct_table *t = NULL;

    if ((unsigned)coll >= ACCT_COLL_COUNT || !tabs->pending[coll])
        return;
    tabs->pending[coll] = false;
    if (layout != NULL) {
        where.ranks_per_node = layout->max_ppn;
        where.regular = acct_layout_regular(layout);
    }
    if (acct_rules_resolve_at(rules, coll, comm_size, layout != NULL ? &where : NULL, &t) != 0) {
        acct_warn("out of memory building the %s rules of a communicator; native there",
                  acct_coll_name(coll));
        return;
    }
    if (layout != NULL)
        acct_debug("rules: %s on %d ranks decided for %d ranks per node (%s layout)",
                   acct_coll_name(coll), comm_size, where.ranks_per_node,
                   where.regular ? "regular" : "irregular");
    else
        acct_debug("rules: %s on %d ranks: no agreed layout, its layout-bound rules do not "
                   "apply", acct_coll_name(coll), comm_size);
    if (acct_table_all_native(t)) {
        acct_table_free(t);
        t = NULL;
    }
    tabs->t[coll] = t;
}

void rt_tables_free(struct rt_tables *tabs)
{
    for (int c = 0; c < ACCT_COLL_COUNT; c++)
        acct_table_free(tabs->t[c]);
    memset(tabs, 0, sizeof *tabs);
}

bool rt_decide_possible(enum acct_coll_id coll)
{
    return rt_forced.forced[coll] || (rules != NULL && rules->coll[coll].n > 0);
}

const struct acct_decision *rt_decide_call(struct rt_tables *tabs, enum acct_coll_id coll,
                                           uint64_t bytes, size_t *entry)
{
    const struct acct_decision *d = acct_force_get(&rt_forced, coll);
    *entry = SIZE_MAX;
    if (tabs == NULL || (unsigned)coll >= ACCT_COLL_COUNT || d != NULL || tabs->t[coll] == NULL)
        return d;
    const struct acct_table *t = tabs->t[coll];
    size_t i = acct_table_index(t, bytes);
    *entry = i;
    /* Only calls whose entry has a runner-up are counted: their entry
     * depends on (communicator size, bytes) only, so every rank counts the
     * same calls (rule 1). */
    if (rt_explore.on && t->ru[i].alg != NULL &&
        acct_explore_pick(rt_explore.seed, rt_explore.period, (int)coll,
                          tabs->explore_calls[coll]++)) {
        char a[96], b[96];
        atomic_fetch_add_explicit(&rt_explored[coll], 1, memory_order_relaxed);
        acct_decision_format(&t->ru[i], a, sizeof a);
        acct_decision_format(&t->dec[i], b, sizeof b);
        acct_debug("explore: %s call %llu of %llu bytes runs the runner-up %s instead of %s",
                   acct_coll_name(coll), (unsigned long long)tabs->explore_calls[coll] - 1,
                   (unsigned long long)bytes, a, b);
        return &t->ru[i];
    }
    return &t->dec[i];
}
