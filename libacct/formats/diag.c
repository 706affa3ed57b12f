/* Diagnostics: the named-problem list of every validator (acct/diag.h). */
#include "acct/diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void acct_diags_free(struct acct_diags *d)
{
    if (d == NULL)
        return;
    free(d->file);
    free(d->v);
    d->file = NULL;
    d->v = NULL;
    d->n = d->cap = d->total = 0;
}

void acct_diags_reset(struct acct_diags *d, const char *file)
{
    if (d == NULL)
        return;
    acct_diags_free(d);
    if (file != NULL)
        d->file = strdup(file); /* NULL on failure: printed as "?" */
}

void acct_diags_add(struct acct_diags *d, int line, int col, const char *field,
                    const char *fmt, ...)
{
    if (d == NULL)
        return;
    d->total++;
    if (d->n >= ACCT_DIAG_MAX)
        return;
    if (d->n == d->cap) {
        size_t ncap = d->cap == 0 ? 8 : d->cap * 2;
        if (ncap > ACCT_DIAG_MAX)
            ncap = ACCT_DIAG_MAX;
        struct acct_diag *nv = realloc(d->v, ncap * sizeof(*nv));
        if (nv == NULL)
            return; /* counted in total, not kept */
        d->v = nv;
        d->cap = ncap;
    }
    struct acct_diag *g = &d->v[d->n++];
    va_list ap;
    g->line = line;
    g->col = col;
    snprintf(g->field, sizeof(g->field), "%s", field != NULL ? field : "");
    va_start(ap, fmt);
    vsnprintf(g->msg, sizeof(g->msg), fmt, ap);
    va_end(ap);
}

int acct_diag_format(const struct acct_diags *d, size_t i, char *buf, size_t len)
{
    if (d == NULL || i >= d->n || buf == NULL || len == 0)
        return -1;
    const struct acct_diag *g = &d->v[i];
    const char *file = d->file != NULL ? d->file : "?";
    const char *sep = g->field[0] != '\0' ? ": " : "";
    if (g->line > 0)
        snprintf(buf, len, "%s:%d:%d: %s%s%s", file, g->line, g->col, g->field, sep, g->msg);
    else
        snprintf(buf, len, "%s: %s%s%s", file, g->field, sep, g->msg);
    return 0;
}

void acct_diags_print(const struct acct_diags *d, FILE *f)
{
    char line[ACCT_DIAG_FIELD_MAX + ACCT_DIAG_MSG_MAX + 512];
    if (d == NULL)
        return;
    for (size_t i = 0; i < d->n; i++) {
        acct_diag_format(d, i, line, sizeof(line));
        fprintf(f, "%s\n", line);
    }
    if (d->total > d->n)
        fprintf(f, "%s: %zu more error%s not shown\n", d->file != NULL ? d->file : "?",
                d->total - d->n, d->total - d->n == 1 ? "" : "s");
}
