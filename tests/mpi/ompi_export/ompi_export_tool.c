/* Helper of the Open MPI export test (no MPI):
 *
 *   ompi_export_tool export RULES.yaml OUT.conf MAX_COMM_SIZE
 *       export a rules file with acct_export_ompi, validate the output
 *   ompi_export_tool validate FILE.conf
 *       check an Open MPI dynamic rules file (acct_ompi_parse_buffer)
 *   ompi_export_tool expect RULES.yaml COLL COMM_SIZE BYTES
 *       print "ALG SEGMENT FANOUT": the Open MPI algorithm the ACCT rules
 *       intend for that call (acct_rules_resolve + acct_ompi_map; not read
 *       from any exported file)
 *
 * Exit status 0 on success, 1 on invalid input, 2 on usage errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/dmap.h"
#include "acct/table.h"

static int read_all(const char *path, char **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    size_t cap = 65536, n = 0;
    char *b = malloc(cap);
    while (b != NULL) {
        size_t k = fread(b + n, 1, cap - n, f);
        n += k;
        if (n < cap)
            break;
        cap *= 2;
        char *nb = realloc(b, cap);
        if (nb == NULL) {
            free(b);
            b = NULL;
        }
        b = nb;
    }
    fclose(f);
    if (b == NULL)
        return -1;
    *buf = b;
    *len = n;
    return 0;
}

static int validate(const char *path)
{
    char *buf = NULL;
    size_t len = 0;
    struct acct_ompi_rules *r = NULL;
    struct acct_diags d = ACCT_DIAGS_INIT;
    if (read_all(path, &buf, &len) != 0)
        return 1;
    int rc = acct_ompi_parse_buffer(path, buf, len, &r, &d);
    if (rc != ACCT_RULES_OK) {
        acct_diags_print(&d, stderr);
        fprintf(stderr, "%s: invalid (%zu problem%s): Open MPI would not read it as meant\n",
                path, d.total, d.total == 1 ? "" : "s");
    } else {
        size_t ns = 0, nr = 0;
        for (size_t a = 0; a < r->n; a++) {
            ns += r->v[a].n;
            for (size_t s = 0; s < r->v[a].n; s++)
                nr += r->v[a].v[s].n;
        }
        printf("%s: valid: %zu collectives, %zu sections, %zu rules\n", path, r->n, ns, nr);
    }
    acct_ompi_rules_free(r);
    acct_diags_free(&d);
    free(buf);
    return rc == ACCT_RULES_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    int status = 2;
    struct acct_rules *r = NULL;
    struct acct_diags d = ACCT_DIAGS_INIT;
    if (argc == 3 && strcmp(argv[1], "validate") == 0)
        return validate(argv[2]);
    if ((argc == 5 && strcmp(argv[1], "export") == 0) ||
        (argc == 6 && strcmp(argv[1], "expect") == 0)) {
        if (acct_rules_parse_file(argv[2], &r, &d) != ACCT_RULES_OK) {
            acct_diags_print(&d, stderr);
            status = 1;
            goto done;
        }
    } else {
        fprintf(stderr, "usage: ompi_export_tool export RULES.yaml OUT.conf MAX_COMM_SIZE\n"
                        "       ompi_export_tool validate FILE.conf\n"
                        "       ompi_export_tool expect RULES.yaml COLL COMM_SIZE BYTES\n");
        goto done;
    }
    if (strcmp(argv[1], "export") == 0) {
        struct acct_ompi_export_opts o = { .max_comm_size = atoi(argv[4]) };
        FILE *f = fopen(argv[3], "w");
        if (f == NULL) {
            perror(argv[3]);
            status = 1;
            goto done;
        }
        acct_diags_reset(&d, argv[2]);
        int rc = acct_export_ompi(f, r, &o, &d);
        if (fclose(f) != 0)
            rc = ACCT_RULES_EIO;
        acct_diags_print(&d, stderr); /* notes: inexact mappings */
        status = rc == ACCT_RULES_OK ? validate(argv[3]) : 1;
        goto done;
    }
    enum acct_coll_id coll;
    if (acct_coll_from_name(argv[3], &coll) != 0) {
        fprintf(stderr, "unknown collective %s\n", argv[3]);
        goto done;
    }
    struct acct_table *t = NULL;
    if (acct_rules_resolve(r, coll, atoi(argv[4]), &t) != ACCT_RULES_OK) {
        status = 1;
        goto done;
    }
    const struct acct_decision *dd = acct_table_lookup(t, strtoull(argv[5], NULL, 10));
    const struct acct_alg_ompi *mp = acct_ompi_map(dd->alg);
    int fan = mp->id && (dd->alg->flags & ACCT_ALG_FANOUT)
                  ? (dd->fanout ? dd->fanout : dd->alg->fanout_default)
                  : 0;
    printf("%d %llu %d\n", mp->id, mp->id ? (unsigned long long)dd->segment_bytes : 0ull,
           fan);
    acct_table_free(t);
    status = 0;
done:
    acct_rules_free(r);
    acct_diags_free(&d);
    return status;
}
