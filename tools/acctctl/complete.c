/* acctctl _complete: what the bash completion (acctctl.bash) asks acctctl
 * (docs/acctctl.md, "Shell completion"). Hidden: not in the command table,
 * not in "acctctl help". Every answer comes from acctctl's own tables, so
 * the completion cannot drift from the commands:
 *
 *   acctctl _complete commands        the command names, one per line
 *   acctctl _complete options CMD     CMD's options, one per line as
 *                                     LONG<TAB>SHORT<TAB>ARG ("-" where an
 *                                     option has no long or short name; ARG
 *                                     "yes" or "no"): the getopt tables the
 *                                     command parses its options with
 *   acctctl _complete values CMD OPT  the words the long option OPT of CMD
 *                                     takes, when they are a fixed set
 *                                     (format, collective); else nothing */
#include "acctctl.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "acct/coll.h"
#include "output.h"

static bool listing_options;

/* Print the options of shortopts/longopts as "options" does, and exit. */
static void print_options(const char *shortopts, const struct option *longopts)
{
    const char *s = shortopts;
    while (*s == '+' || *s == '-' || *s == ':')
        s++;
    for (const struct option *o = longopts; o != NULL && o->name != NULL; o++) {
        const char *in = o->flag == NULL && o->val > ' ' && o->val < 127 && o->val != ':'
                             ? strchr(s, o->val)
                             : NULL;
        if (in != NULL)
            printf("--%s\t-%c\t%s\n", o->name, o->val, o->has_arg != no_argument ? "yes" : "no");
        else
            printf("--%s\t-\t%s\n", o->name, o->has_arg != no_argument ? "yes" : "no");
    }
    for (; *s != '\0'; s++) {
        bool has_long = false;
        if (*s == ':')
            continue;
        for (const struct option *o = longopts; o != NULL && o->name != NULL; o++)
            if (o->flag == NULL && o->val == *s)
                has_long = true;
        if (!has_long)
            printf("-\t-%c\t%s\n", *s, s[1] == ':' ? "yes" : "no");
    }
    fflush(stdout);
    exit(ferror(stdout) ? ACCTCTL_FAIL : ACCTCTL_OK);
}

int acctctl_getopt(int argc, char *const argv[], const char *shortopts,
                   const struct option *longopts)
{
    if (listing_options)
        print_options(shortopts, longopts);
    return getopt_long(argc, argv, shortopts, longopts, NULL);
}

/* The words of "--OPT A|B|C" in a synopsis, if it has them. */
static bool synopsis_words(const char *synopsis, const char *opt)
{
    char key[64];
    const char *p;
    size_t n;

    snprintf(key, sizeof(key), "--%s ", opt);
    p = strstr(synopsis, key);
    if (p == NULL)
        return false;
    p += strlen(key);
    n = strcspn(p, " ]\n");
    if (memchr(p, '|', n) == NULL)
        return false;
    while (n > 0) {
        size_t w = strcspn(p, "| ]\n");
        printf("%.*s\n", (int)w, p);
        if (p[w] != '|')
            break;
        p += w + 1;
        n -= w + 1;
    }
    return true;
}

int acctctl_complete(int argc, char **argv)
{
    const struct acctctl_cmd *c;

    if (argc == 2 && strcmp(argv[1], "commands") == 0) {
        for (c = acctctl_commands(); c->name != NULL; c++)
            printf("%s\n", c->name);
        return ACCTCTL_OK;
    }
    if (argc < 3 || (strcmp(argv[1], "options") != 0 && strcmp(argv[1], "values") != 0) ||
        (strcmp(argv[1], "options") == 0 && argc != 3) ||
        (strcmp(argv[1], "values") == 0 && argc != 4)) {
        fprintf(stderr, "usage: " ACCTCTL_NAME " _complete commands | options CMD | values CMD "
                        "OPTION\n");
        return ACCTCTL_USAGE;
    }
    for (c = acctctl_commands(); c->name != NULL; c++)
        if (strcmp(c->name, argv[2]) == 0)
            break;
    if (c->name == NULL)
        return ACCTCTL_OK; /* not a command: nothing to complete */
    if (strcmp(argv[1], "values") == 0) {
        const char *opt = argv[3];
        if (strncmp(opt, "--", 2) == 0)
            opt += 2;
        if (strcmp(opt, "format") == 0) {
            if (!synopsis_words(c->synopsis, opt))
                for (int i = 0; i < ACCTCTL_FMT_COUNT; i++)
                    printf("%s\n", acctctl_format_name((enum acctctl_format)i));
        } else if (strcmp(opt, "collective") == 0) {
            for (int i = 0; i < ACCT_COLL_COUNT; i++)
                printf("%s\n", acct_coll_name((enum acct_coll_id)i));
        }
        return ACCTCTL_OK;
    }
    if (c->run == acctctl_cmd_help)
        return ACCTCTL_OK; /* help takes a command name, no options */
    /* Run the command with no arguments: its first acctctl_getopt() prints
     * its tables and exits before the command does anything. */
    listing_options = true;
    {
        char *args[] = { (char *)c->name, NULL };
        c->run(1, args);
    }
    fprintf(stderr, ACCTCTL_NAME " _complete: %s returned without parsing options\n", c->name);
    return ACCTCTL_FAIL;
}
