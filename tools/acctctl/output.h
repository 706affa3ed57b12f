/* acctctl output: one table model printed three ways (docs/acctctl.md,
 * "Output formats"): aligned columns for people, TSV and JSON for scripts.
 *
 * A command fills a table (column names + rows of text cells) and prints it
 * once; no command formats its own TSV or JSON. */
#ifndef ACCTCTL_OUTPUT_H
#define ACCTCTL_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum acctctl_format { ACCTCTL_FMT_TABLE, ACCTCTL_FMT_TSV, ACCTCTL_FMT_JSON };
#define ACCTCTL_FMT_COUNT 3

/* "table", "tsv", "json" -> *out; returns 0, or -1 for another word. */
int acctctl_format_parse(const char *s, enum acctctl_format *out);
/* The word of a format ("table"). */
const char *acctctl_format_name(enum acctctl_format f);

/* Column kinds, for JSON: text is a string, number is written bare when
 * the cell is a valid JSON number (else as a string), bool likewise for
 * true/false. A cell "-" is JSON null in every kind. */
enum acctctl_col_kind { ACCTCTL_COL_TEXT, ACCTCTL_COL_NUMBER, ACCTCTL_COL_BOOL };

/* Where a column's cells come from when a command fills rows straight from
 * a daemon reply (client.h, acctctl_cells): the field tag and how to show
 * it. ACCTCTL_V_NONE: the command computes the cell itself. */
enum acctctl_val {
    ACCTCTL_V_NONE,
    ACCTCTL_V_U64,    /* decimal */
    ACCTCTL_V_U64_NZ, /* decimal, "-" for 0 (no version, no parent) */
    ACCTCTL_V_STR,    /* as is ("-" if absent) */
    ACCTCTL_V_STR_NE, /* as is, "-" if absent or empty */
    ACCTCTL_V_BOOL,   /* U64 0/1 as false/true */
    ACCTCTL_V_HEX,    /* U64 as 16 hex digits */
    ACCTCTL_V_F64,    /* %.3f */
    ACCTCTL_V_BUCKET, /* message-size bucket k as the byte range [2^(k-1), 2^k - 1] */
};

struct acctctl_col {
    const char *name; /* lower-case key: the TSV header and JSON key; the
                         table header is its upper-case form */
    enum acctctl_col_kind kind;
    unsigned tag; /* reply field (acct/proto.h ACCT_T_*), 0 = none */
    enum acctctl_val how;
};

struct acctctl_table {
    const struct acctctl_col *cols;
    size_t ncols;
    char **cells; /* nrows * ncols, owned */
    size_t nrows, cap;
    size_t filled; /* cells of the current (last) row given so far */
    bool oom;
};

/* A column the command fills itself (no reply field). */
#define ACCTCTL_COL(name, kind) { name, kind, 0, ACCTCTL_V_NONE }

/* cols must outlive the table. */
void acctctl_table_init(struct acctctl_table *t, const struct acctctl_col *cols, size_t ncols);
void acctctl_table_free(struct acctctl_table *t);

/* Append one cell to the current row (a row starts after ncols cells);
 * printf-style. NULL-safe text: use "-" for no value. On out of memory the
 * table remembers it and printing reports failure. */
void acctctl_table_cell(struct acctctl_table *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Print every row: table (aligned, header in capitals; "(none)" for no
 * row), tsv (header row, tabs and newlines in cells become spaces), json (an
 * array of objects). Returns 0, or -1 on out of memory / write error. */
int acctctl_table_print(const struct acctctl_table *t, enum acctctl_format fmt, FILE *f);

/* Print the first row as one record: table prints "Name:  value" lines,
 * tsv prints "key<TAB>value" lines, json prints one object. */
int acctctl_table_print_record(const struct acctctl_table *t, enum acctctl_format fmt, FILE *f);

/* Write s as a JSON string (quoted, escaped). */
void acctctl_json_string(const char *s, FILE *f);

#endif
