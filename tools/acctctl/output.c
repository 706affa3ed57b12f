/* acctctl output: tables as aligned text, TSV or JSON (output.h). */
#include "output.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[ACCTCTL_FMT_COUNT] = {
    [ACCTCTL_FMT_TABLE] = "table",
    [ACCTCTL_FMT_TSV] = "tsv",
    [ACCTCTL_FMT_JSON] = "json",
};

int acctctl_format_parse(const char *s, enum acctctl_format *out)
{
    for (int i = 0; i < ACCTCTL_FMT_COUNT; i++) {
        if (strcmp(s, format_names[i]) == 0) {
            *out = (enum acctctl_format)i;
            return 0;
        }
    }
    return -1;
}

const char *acctctl_format_name(enum acctctl_format f)
{
    return format_names[f];
}

void acctctl_table_init(struct acctctl_table *t, const struct acctctl_col *cols, size_t ncols)
{
    memset(t, 0, sizeof(*t));
    t->cols = cols;
    t->ncols = ncols;
    t->filled = ncols; /* the next cell starts a row */
}

void acctctl_table_free(struct acctctl_table *t)
{
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    t->cells = NULL;
    t->nrows = t->cap = 0;
}

void acctctl_table_cell(struct acctctl_table *t, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    int n;

    if (t->oom || t->ncols == 0)
        return;
    if (t->filled == t->ncols) { /* a new row */
        if (t->nrows == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 16;
            char **v = realloc(t->cells, cap * t->ncols * sizeof(*v));
            if (v == NULL) {
                t->oom = true;
                return;
            }
            t->cells = v;
            t->cap = cap;
        }
        for (size_t c = 0; c < t->ncols; c++)
            t->cells[t->nrows * t->ncols + c] = NULL;
        t->nrows++;
        t->filled = 0;
    }
    va_start(ap, fmt);
    n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->oom = true;
        return;
    }
    t->cells[(t->nrows - 1) * t->ncols + t->filled++] = s;
}

static const char *cell(const struct acctctl_table *t, size_t r, size_t c)
{
    const char *s = t->cells[r * t->ncols + c];
    return s != NULL ? s : "-";
}

void acctctl_json_string(const char *s, FILE *f)
{
    fputc('"', f);
    for (; *s != '\0'; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20 || ch == 0x7f)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* A JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool is_json_number(const char *s)
{
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (isdigit((unsigned char)*s))
        while (isdigit((unsigned char)*s))
            s++;
    else
        return false;
    if (*s == '.') {
        s++;
        if (!isdigit((unsigned char)*s))
            return false;
        while (isdigit((unsigned char)*s))
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!isdigit((unsigned char)*s))
            return false;
        while (isdigit((unsigned char)*s))
            s++;
    }
    return *s == '\0';
}

static void json_value(const struct acctctl_col *col, const char *s, FILE *f)
{
    if (strcmp(s, "-") == 0)
        fputs("null", f);
    else if (col->kind == ACCTCTL_COL_NUMBER && is_json_number(s))
        fputs(s, f);
    else if (col->kind == ACCTCTL_COL_BOOL && (strcmp(s, "true") == 0 || strcmp(s, "false") == 0))
        fputs(s, f);
    else
        acctctl_json_string(s, f);
}

static void json_object(const struct acctctl_table *t, size_t r, FILE *f)
{
    fputc('{', f);
    for (size_t c = 0; c < t->ncols; c++) {
        if (c > 0)
            fputs(", ", f);
        acctctl_json_string(t->cols[c].name, f);
        fputs(": ", f);
        json_value(&t->cols[c], cell(t, r, c), f);
    }
    fputc('}', f);
}

static void tsv_text(const char *s, FILE *f)
{
    for (; *s != '\0'; s++)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static void upper(const char *s, FILE *f)
{
    for (; *s != '\0'; s++)
        fputc(*s == '_' ? ' ' : toupper((unsigned char)*s), f);
}

static int finish(const struct acctctl_table *t, FILE *f)
{
    if (fflush(f) != 0 || ferror(f))
        return -1;
    return t->oom ? -1 : 0;
}

int acctctl_table_print(const struct acctctl_table *t, enum acctctl_format fmt, FILE *f)
{
    size_t *w = NULL;

    switch (fmt) {
    case ACCTCTL_FMT_JSON:
        fputc('[', f);
        for (size_t r = 0; r < t->nrows; r++) {
            fputs(r > 0 ? ",\n " : "", f);
            json_object(t, r, f);
        }
        fputs("]\n", f);
        break;
    case ACCTCTL_FMT_TSV:
        for (size_t c = 0; c < t->ncols; c++)
            fprintf(f, "%s%s", c > 0 ? "\t" : "", t->cols[c].name);
        fputc('\n', f);
        for (size_t r = 0; r < t->nrows; r++) {
            for (size_t c = 0; c < t->ncols; c++) {
                if (c > 0)
                    fputc('\t', f);
                tsv_text(cell(t, r, c), f);
            }
            fputc('\n', f);
        }
        break;
    case ACCTCTL_FMT_TABLE:
        if (t->nrows == 0) {
            fputs("(none)\n", f);
            break;
        }
        w = calloc(t->ncols, sizeof(*w));
        if (w == NULL)
            return -1;
        for (size_t c = 0; c < t->ncols; c++) {
            w[c] = strlen(t->cols[c].name);
            for (size_t r = 0; r < t->nrows; r++)
                if (strlen(cell(t, r, c)) > w[c])
                    w[c] = strlen(cell(t, r, c));
        }
        for (size_t c = 0; c < t->ncols; c++) {
            upper(t->cols[c].name, f);
            if (c + 1 < t->ncols)
                fprintf(f, "%*s", (int)(w[c] - strlen(t->cols[c].name) + 2), "");
        }
        fputc('\n', f);
        for (size_t r = 0; r < t->nrows; r++) {
            for (size_t c = 0; c < t->ncols; c++) {
                const char *s = cell(t, r, c);
                tsv_text(s, f);
                if (c + 1 < t->ncols)
                    fprintf(f, "%*s", (int)(w[c] - strlen(s) + 2), "");
            }
            fputc('\n', f);
        }
        free(w);
        break;
    }
    return finish(t, f);
}

int acctctl_table_print_record(const struct acctctl_table *t, enum acctctl_format fmt, FILE *f)
{
    size_t width = 0;

    if (t->nrows == 0)
        return acctctl_table_print(t, fmt, f);
    switch (fmt) {
    case ACCTCTL_FMT_JSON:
        json_object(t, 0, f);
        fputc('\n', f);
        break;
    case ACCTCTL_FMT_TSV:
        for (size_t c = 0; c < t->ncols; c++) {
            fprintf(f, "%s\t", t->cols[c].name);
            tsv_text(cell(t, 0, c), f);
            fputc('\n', f);
        }
        break;
    case ACCTCTL_FMT_TABLE:
        for (size_t c = 0; c < t->ncols; c++)
            if (strlen(t->cols[c].name) > width)
                width = strlen(t->cols[c].name);
        for (size_t c = 0; c < t->ncols; c++) {
            const char *n = t->cols[c].name;
            fputc(toupper((unsigned char)n[0]), f);
            for (const char *p = n + 1; *p != '\0'; p++)
                fputc(*p == '_' ? ' ' : *p, f);
            fprintf(f, ":%*s", (int)(width - strlen(n) + 2), "");
            tsv_text(cell(t, 0, c), f);
            fputc('\n', f);
        }
        break;
    }
    return finish(t, f);
}
