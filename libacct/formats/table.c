/* Per-communicator tables (acct/table.h): the rules of one collective
 * resolved for one communicator size and layout. The rules of a file
 * never overlap (rules.c checks), so at one layout the matching rules'
 * byte ranges are disjoint. */
#include "acct/table.h"

#include <stdlib.h>

static int cmp_bytes(const void *pa, const void *pb)
{
    const struct acct_rule *const *a = pa, *const *b = pb;
    return (*a)->bytes_min < (*b)->bytes_min ? -1 : (*a)->bytes_min > (*b)->bytes_min;
}

int acct_rules_resolve(const struct acct_rules *rules, enum acct_coll_id coll,
                       int comm_size, struct acct_table **out)
{
    return acct_rules_resolve_at(rules, coll, comm_size, NULL, out);
}

int acct_rules_resolve_at(const struct acct_rules *rules, enum acct_coll_id coll,
                          int comm_size, const struct acct_rules_where *w,
                          struct acct_table **out)
{
    int rc = ACCT_RULES_ENOMEM;
    const struct acct_rule **match = NULL;
    struct acct_table *t = NULL;
    struct acct_decision *dec, *ru;
    size_t k = 0, n = 0, cap;
    const struct acct_alg *native;

    if (out == NULL)
        return ACCT_RULES_EINVAL;
    *out = NULL;
    if ((unsigned)coll >= ACCT_COLL_COUNT || (native = acct_alg_native(coll)) == NULL)
        return ACCT_RULES_EINVAL;
    const struct acct_decision native_d = { .alg = native }, none = { .alg = NULL };
    const struct acct_rule_list *l = rules != NULL ? &rules->coll[coll] : NULL;

    if (l != NULL && l->n > 0) {
        match = malloc(l->n * sizeof(*match));
        if (match == NULL)
            goto out;
        for (size_t i = 0; i < l->n; i++)
            if (l->v[i].comm_min <= comm_size && comm_size <= l->v[i].comm_max &&
                acct_rule_at(&l->v[i], w))
                match[k++] = &l->v[i];
        qsort(match, k, sizeof(*match), cmp_bytes);
    }
    cap = 2 * k + 1;
    t = malloc(sizeof(*t) + cap * (sizeof(uint64_t) + 2 * sizeof(struct acct_decision)));
    if (t == NULL)
        goto out;
    dec = (struct acct_decision *)(void *)&t->max[cap];
    ru = dec + cap;
    t->dec = dec;
    t->ru = ru;

    /* Append [.., hi] -> (d, runner-up r), merging with an equal previous
     * entry. */
#define APPEND(hi, dd, rr)                                                              \
    do {                                                                                \
        if (n > 0 && acct_decision_equal(&dec[n - 1], (dd)) &&                          \
            acct_decision_equal(&ru[n - 1], (rr))) {                                    \
            t->max[n - 1] = (hi);                                                       \
        } else {                                                                        \
            t->max[n] = (hi);                                                           \
            dec[n] = *(dd);                                                             \
            ru[n++] = *(rr);                                                            \
        }                                                                               \
    } while (0)

    uint64_t next = 0; /* first byte count not yet covered */
    bool full = false;
    for (size_t i = 0; i < k && !full; i++) {
        const struct acct_rule *x = match[i];
        struct acct_decision d = acct_decision_for_size(&x->d, coll, comm_size);
        struct acct_decision r = none;
        /* The runner-up as it runs on this size; none if it then runs
         * what the decision runs. */
        if (x->runner_up.alg != NULL) {
            r = acct_decision_for_size(&x->runner_up, coll, comm_size);
            if (acct_decision_equal(&r, &d))
                r = none;
        }
        if (x->bytes_min > next)
            APPEND(x->bytes_min - 1, &native_d, &none);
        APPEND(x->bytes_max, &d, &r);
        if (x->bytes_max == UINT64_MAX)
            full = true;
        else
            next = x->bytes_max + 1;
    }
    if (!full)
        APPEND(UINT64_MAX, &native_d, &none);
#undef APPEND
    t->n = n;
    *out = t;
    t = NULL;
    rc = ACCT_RULES_OK;
out:
    free(match);
    free(t);
    return rc;
}

void acct_table_free(struct acct_table *t)
{
    free(t);
}

bool acct_table_all_native(const struct acct_table *t)
{
    return t->n == 1 && t->dec[0].alg != NULL && (t->dec[0].alg->flags & ACCT_ALG_NATIVE) &&
           t->ru[0].alg == NULL;
}
