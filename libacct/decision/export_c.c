/* Rules as C source: one decision function per collective (the quadtree
 * paper's "generated decision function"), acct/dmap.h and
 * docs/decisions.md.
 *
 * The communicator-size axis is cut at every rule's comm_min and
 * comm_max + 1; inside each interval the rules that apply are the same, and
 * their byte ranges become a chain of comparisons:
 *
 *     if (comm_size < 1) return 0;
 *     if (comm_size <= 8) {
 *         if (bytes <= UINT64_C(8191)) return 1;
 *         if (bytes <= UINT64_C(1048576)) return 2;
 *         return 0;
 *     }
 *
 * Algorithms restricted to power-of-two sizes return their fallback's
 * method elsewhere, as acct_rules_resolve does (acct_decision_for_size). */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "acct/table.h"
#include "internal.h"

#define PREFIX_MAX 64

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static bool valid_prefix(const char *p)
{
    size_t n = strlen(p);
    if (n == 0 || n > PREFIX_MAX || !(isalpha((unsigned char)p[0]) || p[0] == '_'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)p[i]) || p[i] == '_'))
            return false;
    return true;
}

/* Index of d in the method table (appending it if new). */
static size_t method_index(struct acct_decision *tab, size_t *n, const struct acct_decision *d)
{
    for (size_t i = 0; i < *n; i++)
        if (acct_decision_equal(&tab[i], d))
            return i;
    tab[*n] = *d;
    return (*n)++;
}

static int cmp_rule_bytes(const void *pa, const void *pb)
{
    const struct acct_rule *const *a = pa, *const *b = pb;
    return ((*a)->bytes_min > (*b)->bytes_min) - ((*a)->bytes_min < (*b)->bytes_min);
}

/* The method table of coll: native first, then the method of every rule
 * that applies at layout w (and a power-of-two method's fallback); *ntab
 * methods in tab. */
static void emit_methods(FILE *f, const struct acct_rule_list *l, enum acct_coll_id coll,
                         const char *prefix, const struct acct_rules_where *w,
                         struct acct_decision *tab, size_t *ntab)
{
    const char *name = acct_coll_name(coll);
    struct acct_decision native = { .alg = acct_alg_native(coll) };

    method_index(tab, ntab, &native);
    for (size_t i = 0; i < l->n; i++) {
        if (!acct_rule_at(&l->v[i], w))
            continue;
        method_index(tab, ntab, &l->v[i].d);
        if (l->v[i].d.alg->flags & ACCT_ALG_POW2) { /* and its fallback's */
            struct acct_decision fb = acct_decision_for_size(&l->v[i].d, coll, 3);
            method_index(tab, ntab, &fb);
        }
    }
    fprintf(f, "\n/* %s: %zu rules */\nconst struct acct_gen_decision %s_%s_methods[%zu] = {\n",
            name, l->n, prefix, name, *ntab);
    for (size_t i = 0; i < *ntab; i++)
        fprintf(f, "    { \"%s\", UINT64_C(%llu), %d, %s },\n", tab[i].alg->name,
                (unsigned long long)tab[i].segment_bytes, tab[i].fanout,
                tab[i].reorder ? "true" : "false");
}

/* The starts of the communicator-size intervals: 1, every comm_min and
 * comm_max + 1, sorted and unique. Returns how many. */
static size_t interval_starts(const struct acct_rule_list *l, int *bounds)
{
    size_t nb = 0, u = 0;

    bounds[nb++] = 1;
    for (size_t i = 0; i < l->n; i++) {
        bounds[nb++] = l->v[i].comm_min;
        if (l->v[i].comm_max != INT_MAX)
            bounds[nb++] = l->v[i].comm_max + 1;
    }
    qsort(bounds, nb, sizeof(*bounds), cmp_int);
    for (size_t i = 0; i < nb; i++)
        if (u == 0 || bounds[i] != bounds[u - 1])
            bounds[u++] = bounds[i];
    return u;
}

/* The body of one interval lo..hi whose rules (ns of them, in sel) do not
 * overlap: one return per rule, in bytes order. */
static void emit_interval(FILE *f, enum acct_coll_id coll, const struct acct_rule **sel,
                          size_t ns, struct acct_decision *tab, size_t *ntab)
{
    uint64_t next = 0;
    bool full = false;

    qsort(sel, ns, sizeof(*sel), cmp_rule_bytes);
    for (size_t s = 0; s < ns && !full; s++) {
        const struct acct_rule *x = sel[s];
        size_t k = method_index(tab, ntab, &x->d);
        if (x->bytes_min > next)
            fprintf(f, "        if (bytes < UINT64_C(%llu))\n            return 0;\n",
                    (unsigned long long)x->bytes_min);
        char ret[96];
        if (x->d.alg->flags & ACCT_ALG_POW2) {
            /* every size that is not a power of two falls back alike */
            struct acct_decision fb = acct_decision_for_size(&x->d, coll, 3);
            size_t k2 = method_index(tab, ntab, &fb); /* already in the table */
            snprintf(ret, sizeof(ret), "(comm_size & (comm_size - 1)) == 0 ? %zu : %zu", k, k2);
        } else
            snprintf(ret, sizeof(ret), "%zu", k);
        if (x->bytes_max == UINT64_MAX) {
            fprintf(f, "        return %s;\n", ret);
            full = true;
        } else {
            fprintf(f, "        if (bytes <= UINT64_C(%llu))\n            return %s;\n",
                    (unsigned long long)x->bytes_max, ret);
            next = x->bytes_max + 1;
        }
    }
    if (!full)
        fprintf(f, "        return 0;\n");
}

static void emit_coll(FILE *f, const struct acct_rules *r, enum acct_coll_id coll,
                      const char *prefix, const struct acct_rules_where *w, int *bounds,
                      struct acct_decision *tab, const struct acct_rule **sel)
{
    const struct acct_rule_list *l = &r->coll[coll];
    size_t ntab = 0;

    emit_methods(f, l, coll, prefix, w, tab, &ntab);
    fprintf(f, "};\n\nint %s_%s(int comm_size, uint64_t bytes)\n{\n", prefix,
            acct_coll_name(coll));
    fprintf(f, "    (void)bytes;\n    if (comm_size < 1)\n        return 0;\n");
    size_t nb = interval_starts(l, bounds);
    for (size_t b = 0; b < nb; b++) {
        int lo = bounds[b], hi = b + 1 < nb ? bounds[b + 1] - 1 : INT_MAX;
        /* The rules of this interval (they do not overlap). */
        size_t ns = 0;
        for (size_t i = 0; i < l->n; i++)
            if (l->v[i].comm_min <= lo && lo <= l->v[i].comm_max && acct_rule_at(&l->v[i], w))
                sel[ns++] = &l->v[i];
        if (ns == 0) {
            if (hi != INT_MAX)
                fprintf(f, "    if (comm_size <= %d)   /* %d..%d: no rule */\n        return 0;\n",
                        hi, lo, hi);
            continue;
        }
        if (hi == INT_MAX)
            fprintf(f, "    {   /* %d and more */\n", lo);
        else
            fprintf(f, "    if (comm_size <= %d) {   /* %d..%d */\n", hi, lo, hi);
        emit_interval(f, coll, sel, ns, tab, &ntab);
        fprintf(f, "    }\n");
    }
    fprintf(f, "    return 0;\n}\n");
}

int acct_export_c(FILE *f, const struct acct_rules *r, const char *prefix)
{
    return acct_export_c_at(f, r, prefix, NULL);
}

int acct_export_c_at(FILE *f, const struct acct_rules *r, const char *prefix,
                     const struct acct_rules_where *w)
{
    int rc = ACCT_RULES_ENOMEM;
    int *bounds = NULL;
    struct acct_decision *tab = NULL;
    const struct acct_rule **sel = NULL;
    size_t maxn = 0;
    if (prefix == NULL)
        prefix = "acct_decide";
    if (!valid_prefix(prefix))
        return ACCT_RULES_EINVAL;
    for (int c = 0; c < ACCT_COLL_COUNT; c++)
        if (r->coll[c].n > maxn)
            maxn = r->coll[c].n;
    bounds = malloc((2 * maxn + 1) * sizeof(*bounds));
    tab = malloc((2 * maxn + 1) * sizeof(*tab)); /* native, each rule's, fallbacks */
    sel = malloc((maxn + 1) * sizeof(*sel));
    if (bounds == NULL || tab == NULL || sel == NULL)
        goto done;
    const struct acct_provenance *pv = &r->prov;
    fprintf(f, "/* Decision functions generated by ACCT from the rules of partition %s,\n"
               " * interconnect %s, version %lld (%s, %s). Each %s_<collective>()\n"
               " * returns an index into %s_<collective>_methods[]; 0 is native. */\n"
               "#include <stdbool.h>\n#include <stdint.h>\n\n"
               "#ifndef ACCT_GEN_DECISION_DEFINED\n#define ACCT_GEN_DECISION_DEFINED\n"
               "struct acct_gen_decision {\n    const char *alg;\n    uint64_t segment;\n"
               "    int fanout;\n    bool reorder;\n};\n#endif\n",
            pv->partition, pv->interconnect, (long long)pv->version,
            acct_rules_source_name(pv->source), pv->created, prefix, prefix);
    if (acct_rules_version(r) >= ACCT_RULES_VERSION_LAYOUT) {
        if (w != NULL && w->ranks_per_node > 0)
            fprintf(f, "/* Decisions for %d ranks per node, %s layout (the rules depend on "
                       "the layout). */\n",
                    w->ranks_per_node, w->regular ? "regular" : "irregular");
        else
            fprintf(f, "/* Decisions for an unknown layout: the rules that depend on the "
                       "layout are left out. */\n");
    }
    for (int c = 0; c < ACCT_COLL_COUNT; c++)
        if (r->coll[c].n > 0)
            fprintf(f, "extern const struct acct_gen_decision %s_%s_methods[];\n"
                       "int %s_%s(int comm_size, uint64_t bytes);\n",
                    prefix, acct_coll_name((enum acct_coll_id)c), prefix,
                    acct_coll_name((enum acct_coll_id)c));
    for (int c = 0; c < ACCT_COLL_COUNT; c++)
        if (r->coll[c].n > 0)
            emit_coll(f, r, (enum acct_coll_id)c, prefix, w, bounds, tab, sel);
    rc = fflush(f) != 0 || ferror(f) ? ACCT_RULES_EIO : ACCT_RULES_OK;
done:
    free(bounds);
    free(tab);
    free(sel);
    return rc;
}
