/* acctctl: main() as the table of contents: the global options, the
 * hidden "_complete" of the shell completion (complete.c), then the
 * command's own function from the table (commands.c). */
#include "acctctl.h"

#include <stdio.h>
#include <string.h>

#include "acct/rules.h"

int main(int argc, char **argv)
{
    const struct acctctl_cmd *c;

    if (argc < 2) {
        acctctl_usage(stderr);
        return ACCTCTL_USAGE;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf(ACCTCTL_NAME " %s (rules schema %d)\n", ACCT_VERSION_STRING, ACCT_RULES_VERSION);
        return ACCTCTL_OK;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        acctctl_usage(stdout);
        return ACCTCTL_OK;
    }
    if (strcmp(argv[1], "_complete") == 0) /* hidden: for the shell completion */
        return acctctl_complete(argc - 1, argv + 1);
    c = acctctl_find_command(argv[1]);
    if (c == NULL) {
        fprintf(stderr, ACCTCTL_NAME ": unknown command \"%s\"\n\n", argv[1]);
        acctctl_usage(stderr);
        return ACCTCTL_USAGE;
    }
    return c->run(argc - 1, argv + 1);
}
