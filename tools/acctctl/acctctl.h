/* acctctl: the administrator's command-line tool (docs/acctctl.md).
 *
 * Each subcommand is one file cmd_NAME.c with one function and one row in
 * the command table of commands.c. Exit codes are the same for all. */
#ifndef ACCTCTL_H
#define ACCTCTL_H

#include <getopt.h>
#include <stdio.h>

#define ACCTCTL_NAME "acctctl"

enum acctctl_exit {
    ACCTCTL_OK = 0,    /* done, everything valid */
    ACCTCTL_FAIL = 1,  /* done, but something checked was invalid or failed */
    ACCTCTL_USAGE = 2, /* bad command line */
    ACCTCTL_WARN = 3,  /* done, but acctd warned (printed on stderr): e.g. a version is
                          active but its rules file is not written yet */
};

struct acctctl_cmd {
    const char *name;
    const char *synopsis; /* arguments after the name */
    const char *summary;  /* one line, for the command list */
    const char *help;     /* the rest of "acctctl help NAME" */
    /* argv[0] is the command's name; returns an enum acctctl_exit. */
    int (*run)(int argc, char **argv);
};

/* The command table (commands.c), ended by a row whose name is NULL. */
const struct acctctl_cmd *acctctl_commands(void);

/* The row of command name, or NULL. */
const struct acctctl_cmd *acctctl_find_command(const char *name);

/* "Usage: acctctl COMMAND ..." and the list of commands. */
void acctctl_usage(FILE *f);

/* getopt_long() for every command: under "acctctl _complete options CMD"
 * (complete.c) it prints the command's options instead and exits, so the
 * shell completion lists exactly the options the command parses. */
int acctctl_getopt(int argc, char *const argv[], const char *shortopts,
                   const struct option *longopts);

/* "acctctl _complete ...": the answers of the shell completion (complete.c). */
int acctctl_complete(int argc, char **argv);

/* Print "Usage: acctctl NAME SYNOPSIS" and the command's help. */
void acctctl_command_usage(const char *name, FILE *f);

/* "acctctl NAME: message" on stderr, then a hint to "acctctl help NAME";
 * returns ACCTCTL_USAGE. */
int acctctl_usage_error(const char *name, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

int acctctl_cmd_algorithms(int argc, char **argv);
int acctctl_cmd_validate(int argc, char **argv);
int acctctl_cmd_merge(int argc, char **argv);
int acctctl_cmd_status(int argc, char **argv);
int acctctl_cmd_partitions(int argc, char **argv);
int acctctl_cmd_versions(int argc, char **argv);
int acctctl_cmd_show(int argc, char **argv);
int acctctl_cmd_diff(int argc, char **argv);
int acctctl_cmd_activate(int argc, char **argv);
int acctctl_cmd_rollback(int argc, char **argv);
int acctctl_cmd_import(int argc, char **argv);
int acctctl_cmd_export(int argc, char **argv);
int acctctl_cmd_samples(int argc, char **argv);
int acctctl_cmd_retune(int argc, char **argv);
int acctctl_cmd_refine(int argc, char **argv);
int acctctl_cmd_policy(int argc, char **argv);
int acctctl_cmd_reload(int argc, char **argv);
int acctctl_cmd_plot(int argc, char **argv);
int acctctl_cmd_whatif(int argc, char **argv);
int acctctl_cmd_check(int argc, char **argv);
int acctctl_cmd_help(int argc, char **argv);

#endif
