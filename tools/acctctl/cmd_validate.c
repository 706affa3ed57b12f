/* acctctl validate: check rules files, report every problem. */
#include "acctctl.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "acct/rules.h"

#define STDIN_NAME "<stdin>"

/* Parse standard input (at most the file size limit, plus one byte to
 * detect a larger input). */
static int parse_stdin(struct acct_rules **out, struct acct_diags *diags)
{
    size_t cap = (size_t)ACCT_RULES_MAX_FILE_BYTES + 1, len = 0;
    char *buf = malloc(cap);
    int rc;
    if (buf == NULL) {
        acct_diags_reset(diags, STDIN_NAME);
        acct_diags_add(diags, 0, 0, NULL, "out of memory");
        return ACCT_RULES_ENOMEM;
    }
    while (len < cap) {
        size_t k = fread(buf + len, 1, cap - len, stdin);
        if (k == 0)
            break;
        len += k;
    }
    if (ferror(stdin)) {
        acct_diags_reset(diags, STDIN_NAME);
        acct_diags_add(diags, 0, 0, NULL, "cannot read standard input");
        rc = ACCT_RULES_EIO;
    } else {
        rc = acct_rules_parse_buffer(STDIN_NAME, buf, len, out, diags);
    }
    free(buf);
    return rc;
}

int acctctl_cmd_validate(int argc, char **argv)
{
    static const struct option opts[] = {
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    bool quiet = false, all_ok = true;
    int ch;

    opterr = 0;
    optind = 1;
    while ((ch = acctctl_getopt(argc, argv, "+qh", opts)) != -1) {
        switch (ch) {
        case 'q':
            quiet = true;
            break;
        case 'h':
            acctctl_command_usage(argv[0], stdout);
            return ACCTCTL_OK;
        default:
            return acctctl_usage_error(argv[0], "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return acctctl_usage_error(argv[0], "no file given");
    for (int i = optind; i < argc; i++) {
        struct acct_diags diags = ACCT_DIAGS_INIT;
        struct acct_rules *r = NULL;
        const char *name = strcmp(argv[i], "-") == 0 ? STDIN_NAME : argv[i];
        int rc = strcmp(argv[i], "-") == 0 ? parse_stdin(&r, &diags)
                                           : acct_rules_parse_file(argv[i], &r, &diags);
        acct_diags_print(&diags, stdout);
        if (rc == ACCT_RULES_OK) {
            if (!quiet)
                printf("%s: ok (%zu rule%s, partition %s, version %lld)\n", name, r->nrules,
                       r->nrules == 1 ? "" : "s", r->prov.partition,
                       (long long)r->prov.version);
        } else {
            all_ok = false;
            if (!quiet)
                printf("%s: invalid (%zu error%s)\n", name, diags.total,
                       diags.total == 1 ? "" : "s");
        }
        acct_rules_free(r);
        acct_diags_free(&diags);
    }
    fflush(stdout);
    return all_ok ? ACCTCTL_OK : ACCTCTL_FAIL;
}
