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
    d->n = d->cap = d->total = d->warnings = 0;
}

void acct_diags_reset(struct acct_diags *d, const char *file)
{
    if (d == NULL)
        return;
    acct_diags_free(d);
    if (file != NULL)
        d->file = strdup(file); /* NULL on failure: printed as "?" */
}

static void diags_vadd(struct acct_diags *d, bool warning, int line, int col, const char *field,
                       const char *fmt, va_list ap)
{
    if (warning)
        d->warnings++;
    else
        d->total++;
    if (d->n >= ACCT_DIAG_MAX)
        return;
    if (d->n == d->cap) {
        size_t ncap = d->cap == 0 ? 8 : d->cap * 2;
        if (ncap > ACCT_DIAG_MAX)
            ncap = ACCT_DIAG_MAX;
        struct acct_diag *nv = realloc(d->v, ncap * sizeof(*nv));
        if (nv == NULL)
            return; /* counted, not kept */
        d->v = nv;
        d->cap = ncap;
    }
    struct acct_diag *g = &d->v[d->n++];
    g->line = line;
    g->col = col;
    g->warning = warning;
    snprintf(g->field, sizeof(g->field), "%s", field != NULL ? field : "");
    vsnprintf(g->msg, sizeof(g->msg), fmt, ap);
}

void acct_diags_add(struct acct_diags *d, int line, int col, const char *field,
                    const char *fmt, ...)
{
    va_list ap;
    if (d == NULL)
        return;
    va_start(ap, fmt);
    diags_vadd(d, false, line, col, field, fmt, ap);
    va_end(ap);
}

void acct_diags_warn(struct acct_diags *d, int line, int col, const char *field,
                     const char *fmt, ...)
{
    va_list ap;
    if (d == NULL)
        return;
    va_start(ap, fmt);
    diags_vadd(d, true, line, col, field, fmt, ap);
    va_end(ap);
}

int acct_diag_format(const struct acct_diags *d, size_t i, char *buf, size_t len)
{
    if (d == NULL || i >= d->n || buf == NULL || len == 0)
        return -1;
    const struct acct_diag *g = &d->v[i];
    const char *file = d->file != NULL ? d->file : "?";
    const char *sep = g->field[0] != '\0' ? ": " : "";
    const char *kind = g->warning ? "warning: " : "";
    if (g->line > 0)
        snprintf(buf, len, "%s:%d:%d: %s%s%s%s", file, g->line, g->col, kind, g->field, sep,
                 g->msg);
    else
        snprintf(buf, len, "%s: %s%s%s%s", file, kind, g->field, sep, g->msg);
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
    size_t more = d->total + d->warnings - d->n;
    if (more > 0)
        fprintf(f, "%s: %zu more error%s not shown\n", d->file != NULL ? d->file : "?", more,
                more == 1 ? "" : "s");
}
