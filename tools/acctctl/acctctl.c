/* acctctl: command table and dispatch. Adding a subcommand is one row in
 * commands[] plus its cmd_NAME.c. */
#include "acctctl.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "acct/common.h"
#include "acct/rules.h"

static const struct acctctl_cmd commands[] = {
    {
        .name = "algorithms",
        .synopsis = "[--collective NAME] [--format table|tsv|json]",
        .summary = "list the algorithm registry",
        .help = "List every algorithm libacct knows: collective, name, flags, fan-out\n"
                "range and description. \"native\" is the MPI library's own collective.\n"
                "\n"
                "  -c, --collective NAME  only this collective's algorithms\n"
                "  -f, --format FMT       table (default), tsv (a header row, then one\n"
                "                         row per algorithm) or json (an array)\n"
                "\n"
                "Flags: segmented (takes a segment size), fanout (takes a fan-out within\n"
                "the range shown), commutative-only (only for commutative operations),\n"
                "power-of-two (only for power-of-two communicator sizes), count-ge-size\n"
                "(needs at least one element per process), native.\n",
        .run = acctctl_cmd_algorithms,
    },
    {
        .name = "validate",
        .synopsis = "[--quiet] FILE...",
        .summary = "check rules files",
        .help = "Check each rules file (\"-\" reads standard input) and print every\n"
                "problem as FILE:LINE:COLUMN: FIELD: message, then one summary line per\n"
                "file: \"FILE: ok (N rules, partition P, version V)\" or \"FILE: invalid\n"
                "(N errors)\". Exit status 0 if every file is valid, 1 if any is not.\n"
                "\n"
                "  -q, --quiet  print only the problems, no summary lines\n",
        .run = acctctl_cmd_validate,
    },
    {
        .name = "help",
        .synopsis = "[COMMAND]",
        .summary = "show this list, or a command's options",
        .help = "",
        .run = acctctl_cmd_help,
    },
    { .name = NULL },
};

static const struct acctctl_cmd *find_command(const char *name)
{
    for (const struct acctctl_cmd *c = commands; c->name != NULL; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: " ACCTCTL_NAME " COMMAND [ARGS...]\n"
            "       " ACCTCTL_NAME " --version\n"
            "Administer ACCT (automatic collective communication tuning).\n"
            "\n"
            "Commands:\n");
    for (const struct acctctl_cmd *c = commands; c->name != NULL; c++)
        fprintf(f, "  %-12s %s\n", c->name, c->summary);
    fprintf(f, "\nRun \"" ACCTCTL_NAME " help COMMAND\" for a command's options.\n");
}

void acctctl_command_usage(const char *name, FILE *f)
{
    const struct acctctl_cmd *c = find_command(name);
    if (c == NULL)
        return;
    fprintf(f, "Usage: " ACCTCTL_NAME " %s %s\n%s.\n", c->name, c->synopsis, c->summary);
    if (c->help[0] != '\0')
        fprintf(f, "\n%s", c->help);
}

int acctctl_usage_error(const char *name, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, ACCTCTL_NAME " %s: ", name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry \"" ACCTCTL_NAME " help %s\".\n", name);
    return ACCTCTL_USAGE;
}

int acctctl_cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        usage(stdout);
        return ACCTCTL_OK;
    }
    if (argc > 2)
        return acctctl_usage_error(argv[0], "expected at most one command name");
    if (find_command(argv[1]) == NULL) {
        fprintf(stderr, ACCTCTL_NAME ": unknown command \"%s\"\n\n", argv[1]);
        usage(stderr);
        return ACCTCTL_USAGE;
    }
    acctctl_command_usage(argv[1], stdout);
    return ACCTCTL_OK;
}

int main(int argc, char **argv)
{
    const struct acctctl_cmd *c;

    if (argc < 2) {
        usage(stderr);
        return ACCTCTL_USAGE;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf(ACCTCTL_NAME " %s (rules schema %d)\n", ACCT_VERSION_STRING, ACCT_RULES_VERSION);
        return ACCTCTL_OK;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return ACCTCTL_OK;
    }
    c = find_command(argv[1]);
    if (c == NULL) {
        fprintf(stderr, ACCTCTL_NAME ": unknown command \"%s\"\n\n", argv[1]);
        usage(stderr);
        return ACCTCTL_USAGE;
    }
    return c->run(argc - 1, argv + 1);
}
