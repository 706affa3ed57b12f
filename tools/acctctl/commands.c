/* acctctl's commands: the table (one row per subcommand, each with its
 * cmd_NAME.c), help and usage texts. main() is in acctctl.c; the shell
 * completion (complete.c) reads the same table. */
#include "acctctl.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "acct/common.h"
#include "acct/rules.h"

/* The options every daemon command shares (client.h). */
#define COMMON_OPTS                                                           \
    "\n"                                                                      \
    "  -s, --socket PATH      acctd's socket (default $ACCT_SOCKET, else\n"   \
    "                         /run/acct/acctd.sock)\n"                        \
    "  -f, --format FMT       table (default), tsv or json\n"

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
        .name = "merge",
        .synopsis = "[-o FILE] RULES RULES...",
        .summary = "one layout-bound rules file from runs tuned at different ranks per node",
        .help = "Merge rules files of one partition and interconnect, each tuned with a\n"
                "different number of ranks per node (its provenance.layout), into one rules\n"
                "file (schema 2) whose rules are bound to ranks per node: the run tuned with\n"
                "R ranks per node covers R up to the next run's R - 1, the highest run up to\n"
                "max. Fewer ranks per node than the lowest run's, and unknown layouts, get no\n"
                "rule (native). The result is parsed again before it is written; import it\n"
                "with acctctl import. Every problem is printed as FILE: FIELD: message.\n"
                "\n"
                "  -o, --output FILE  write the merged rules to FILE (default: standard output)\n",
        .run = acctctl_cmd_merge,
    },
    {
        .name = "status",
        .synopsis = "[--check] [--socket PATH] [--format table|tsv|json]",
        .summary = "is acctd running, and what does its store hold",
        .help = "Ask acctd for its state: node, software, uptime, store schema and path,\n"
                "rules directory, pairs with an active version, versions, samples,\n"
                "connected clients and the policy in force.\n"
                "\n"
                "  -c, --check        also run PRAGMA integrity_check on the store; exit\n"
                "                     status 1 unless it says ok\n" COMMON_OPTS,
        .run = acctctl_cmd_status,
    },
    {
        .name = "partitions",
        .synopsis = "[--socket PATH] [--format table|tsv|json]",
        .summary = "list (partition, interconnect) pairs and their active versions",
        .help = "One row per (partition, interconnect) with an active decision version:\n"
                "the version, how many versions the pair has, the active one's source,\n"
                "creation time, activation time and tuning run.\n" COMMON_OPTS,
        .run = acctctl_cmd_partitions,
    },
    {
        .name = "versions",
        .synopsis = "-p PARTITION [-i INTERCONNECT] [--socket PATH] [--format FMT]",
        .summary = "list the decision versions of a pair, newest first",
        .help = "Every decision version of (PARTITION, INTERCONNECT), newest first, with\n"
                "its source, creation time, tuning run, parent and hash. -i can be left\n"
                "out when the partition has one interconnect.\n" COMMON_OPTS,
        .run = acctctl_cmd_versions,
    },
    {
        .name = "show",
        .synopsis = "[-p PARTITION [-i INTERCONNECT] | --version V] [--collective C]\n"
                    "                    [--socket PATH] [--format table|tsv|json]",
        .summary = "show a decision version: provenance and rules",
        .help = "Show the active version of a pair (-p, -i), or any version (--version),\n"
                "or, with neither, the active version of the only pair there is.\n"
                "Tables show the provenance, then one row per rule; tsv and json give\n"
                "one row per rule with numeric bounds (\"max\" for unbounded).\n"
                "\n"
                "  -p, --partition P      the partition\n"
                "  -i, --interconnect I   its interconnect (needed if it has several)\n"
                "  -V, --version V        this version instead of an active one\n"
                "  -c, --collective C     only this collective's rules\n" COMMON_OPTS,
        .run = acctctl_cmd_show,
    },
    {
        .name = "diff",
        .synopsis = "V1 V2 [--socket PATH] [--format table|tsv|json]",
        .summary = "what changes from version V1 to version V2",
        .help = "One line per rectangle of (communicator sizes x message bytes) whose\n"
                "decision differs (\"bcast comm_size [2, 8] bytes [8K, 1M]: binomial:8K\n"
                "-> pipeline:64K\"), then the provenance fields that differ.\n" COMMON_OPTS,
        .run = acctctl_cmd_diff,
    },
    {
        .name = "activate",
        .synopsis = "V [--socket PATH] [--format table|tsv|json]",
        .summary = "make version V the active one of its pair (admin)",
        .help = "Make decision version V the active version of its (partition,\n"
                "interconnect); acctd rewrites the pair's rules file. Needs root or\n"
                "acctd's admin group.\n" COMMON_OPTS,
        .run = acctctl_cmd_activate,
    },
    {
        .name = "rollback",
        .synopsis = "-p PARTITION [-i INTERCONNECT] [--socket PATH] [--format FMT]",
        .summary = "re-activate the previously active version of a pair (admin)",
        .help = "Make the version that was active before the current one active again.\n"
                "Needs root or acctd's admin group.\n" COMMON_OPTS,
        .run = acctctl_cmd_rollback,
    },
    {
        .name = "import",
        .synopsis = "FILE [--activate] [--diff] [--socket PATH] [--format FMT]",
        .summary = "store a tuning result (or rules file) as a new version (admin)",
        .help = "Send FILE (\"-\": standard input) to acctd, which validates it and stores\n"
                "it as a new decision version: a tuning result (docs/tuning-result.md),\n"
                "or a rules file (docs/rules.md) if its top-level key is acct_rules.\n"
                "Problems are printed as FILE:LINE:COLUMN: FIELD: message.\n"
                "\n"
                "  -d, --diff       show the changes against the pair's active version\n"
                "  -a, --activate   activate the new version\n" COMMON_OPTS,
        .run = acctctl_cmd_import,
    },
    {
        .name = "export",
        .synopsis = "--format yaml|ompi|c [-p P [-i I] | --version V] [-o FILE]\n"
                    "                    [--ranks-per-node N [--irregular]]",
        .summary = "write a version as rules, Open MPI dynamic rules or C",
        .help = "Write the active version of a pair (or --version V) as a rules file\n"
                "(yaml, the default), as an Open MPI coll/tuned dynamic rules file\n"
                "(ompi) or as C source of decision functions (c).\n"
                "\n"
                "  -f, --format FMT         yaml, ompi or c\n"
                "  -p, -i, -V               as for show\n"
                "  -o, --output FILE        write FILE atomically (default: standard output)\n"
                "      --max-comm-size N    ompi: largest communicator size (default 1024)\n"
                "      --prefix NAME        c: function name prefix (default acct_decide)\n"
                "      --ranks-per-node N   ompi, c: the decisions of jobs with N ranks per\n"
                "                           node, for rules that depend on the layout\n"
                "                           (default: an unknown layout, those rules left out)\n"
                "      --irregular          ... on nodes holding different numbers of ranks\n"
                "  -s, --socket PATH        acctd's socket\n",
        .run = acctctl_cmd_export,
    },
    {
        .name = "samples",
        .synopsis = "[-p P] [-i I] [--collective C] [--socket PATH] [--format FMT]",
        .summary = "show what live jobs measured",
        .help = "The live samples acctd holds, aggregated per (partition, interconnect,\n"
                "collective, communicator size, message-size bucket, method): calls,\n"
                "distinct jobs and users, mean, standard deviation, min and max time per\n"
                "call in microseconds.\n"
                "\n"
                "  -p, --partition P      only this partition\n"
                "  -i, --interconnect I   only this interconnect\n"
                "  -c, --collective C     only this collective\n" COMMON_OPTS,
        .run = acctctl_cmd_samples,
    },
    {
        .name = "retune",
        .synopsis = "-p PARTITION [--nodes N] [--ops LIST] [--budget T] [--dry-run] ... [-- ARGS]",
        .summary = "tune a partition again: sbatch acct-tune, import, activate (admin)",
        .help = "Submit acct-tune as a Slurm job on PARTITION (srun --mpi=pmix), show its\n"
                "state and progress until it ends, import its result into acctd, show\n"
                "the changes against the active version and activate it.\n"
                "\n"
                "  -p, --partition P        the partition to tune\n"
                "  -i, --interconnect I     name the interconnect (default: acct-tune's,\n"
                "                           $ACCT_INTERCONNECT in the job)\n"
                "  -N, --nodes N            nodes to use (default: all of the partition)\n"
                "      --ranks-per-node R   MPI ranks per node (default: one); R1,R2,...: tune\n"
                "                           each layout in turn and activate the merged rules\n"
                "  -o, --ops LIST           collectives to tune, comma separated (default\n"
                "                           all)\n"
                "  -b, --budget T           time budget of acct-tune: 600, 90s, 10m, 2h\n"
                "  -t, --time LIMIT         the job's Slurm time limit\n"
                "  -w, --workdir DIR        where the script, logs and result go (default:\n"
                "                           the current directory; must be shared with the\n"
                "                           partition's nodes)\n"
                "      --acct-tune PATH     the acct-tune program (default: next to acctctl)\n"
                "      --max-comm-size P    model regions up to P ranks (default: the\n"
                "                           partition's CPUs, scontrol's TotalCPUs; 0: none)\n"
                "      --interval S         seconds between progress polls (default 5)\n"
                "      --no-activate        import but do not activate\n"
                "      --no-wait            submit, print the job id and exit\n"
                "      --no-node-import     the job does not import the result into the\n"
                "                           acctd of each of its nodes\n"
                "  -n, --dry-run            print the job script and the plan; submit nothing\n"
                "  -s, --socket PATH        acctd's socket\n"
                "  -f, --format FMT         the import report: table, tsv or json\n"
                "\n"
                "Arguments after \"--\" go to acct-tune verbatim (shell-quoted, in order),\n"
                "e.g. \"-- --sizes 1K,64K,1M --comm-sizes 4,8\"; at most 64 of 1024 bytes.\n",
        .run = acctctl_cmd_retune,
    },
    {
        .name = "plot",
        .synopsis = "[-p P [-i I] | --version V | --file RULES] [--collective C]\n"
                    "                    [--max-comm-size N] [--max-bytes SIZE] [--ranks-per-node N]\n"
                    "                    [--irregular] [--format FMT]",
        .summary = "draw a decision map: method by communicator size and message size",
        .help = "Draw the decisions of a version (or of a rules file, offline) as a\n"
                "grid: one row per communicator size (2, 4, ... up to --max-comm-size,\n"
                "default 1024), one column per message size 2^k bytes (up to\n"
                "--max-bytes, default 16M), one letter per method (legend below each\n"
                "map; '.' is native). The decisions are the runtime's own lookup.\n"
                "tsv and json give one row per cell: collective comm_size bytes method.\n"
                "\n"
                "  -p, -i, -V             as for show\n"
                "      --file RULES       a rules file instead of acctd\n"
                "  -c, --collective C     only this collective (default: those with rules)\n"
                "      --ranks-per-node N the decisions of jobs with N ranks per node, for\n"
                "                         rules that depend on the layout (default: unknown)\n"
                "      --irregular        ... on nodes holding different numbers of ranks\n"
                COMMON_OPTS,
        .run = acctctl_cmd_plot,
    },
    {
        .name = "whatif",
        .synopsis = "COLLECTIVE (--comm-size P --bytes M | --grid [--max-comm-size P]\n"
                    "                    [--max-bytes M]) [-p P [-i I] | --version V | --rules FILE]\n"
                    "                    [--model FILE] [--ranks-per-node Q [--irregular]]\n"
                    "                    [--source auto|model|closed] [--format FMT]",
        .summary = "every method's predicted time at a point, and the rules' decision there",
        .help = "Predict every applicable method of COLLECTIVE on P ranks and M bytes\n"
                "with the partition's model (fastest first), and show the decision of\n"
                "the active version (or --version, or --rules FILE) at that point as the\n"
                "runtime resolves it, its predicted time and its penalty (predicted\n"
                "decision / predicted best). Native decisions and points outside every\n"
                "rule have no prediction. The model is the version's tuning run's\n"
                "(acctd GET_MODEL) or --model FILE; with --rules and --model, acctd is\n"
                "not needed. Exit status 2 when a version has no model.\n"
                "\n"
                "  -p, -i, -V             as for show (the active version by default)\n"
                "      --rules FILE       a rules file instead of acctd's version\n"
                "      --model FILE       a pLogP table (acct-tune --plogp-out) or a tuning\n"
                "                         result with a model: section\n"
                "  -n, --comm-size LIST   communicator sizes: 4096, 1M, 64,1K or 2:1M (every\n"
                "                         doubling from 2 to 1M); at most 64 points in all\n"
                "  -b, --bytes LIST       message bytes, as --comm-size (64K, 1M, 1K:1M)\n"
                "      --ranks-per-node Q the job's ranks per node (rules that depend on the\n"
                "                         layout; node-aware methods); default unknown\n"
                "      --irregular        ... on nodes holding different numbers of ranks\n"
                "      --source S         auto (default: simulate up to 256 ranks, closed\n"
                "                         forms above), model (always acct_model_predict)\n"
                "                         or closed (closed forms only; --grid's default)\n"
                "      --grid             instead of points: the decision, the best and the\n"
                "                         penalty at every comm size 2, 4, ... up to\n"
                "                         --max-comm-size (4096) and bytes 1, 2, 4, ... up to\n"
                "                         --max-bytes (16M); acct-plot --whatif draws it\n"
                COMMON_OPTS,
        .run = acctctl_cmd_whatif,
    },
    {
        .name = "check",
        .synopsis = "[-p P [-i I] | --version V | --rules FILE] [--model FILE] [--bound B]\n"
                    "                    [--max-comm-size P] [--max-bytes M] [--collective C]\n"
                    "                    [--ranks-per-node Q] [--all] [--source auto|model|closed]\n"
                    "                    [--format FMT]",
        .summary = "rules whose predicted penalty exceeds a bound (exit 1 if any)",
        .help = "Sample every rule of a version (or of --rules FILE) over its rectangle\n"
                "(corners, powers of two and geometric midpoints of comm_size and bytes,\n"
                "at most 10 of each) up to --max-comm-size and --max-bytes, predict the\n"
                "decision and the model's best there, and list each rule whose worst\n"
                "penalty (decision / best) exceeds --bound. Exit status 0: no finding,\n"
                "1: findings, 2: an error (no model, a bad file, acctd unreachable).\n"
                "\n"
                "  -p, -i, -V             as for show (the active version by default)\n"
                "      --rules FILE       a rules file instead of acctd's version\n"
                "      --model FILE       a pLogP table or a tuning result with a model:\n"
                "      --bound B          the largest penalty accepted (default 2)\n"
                "      --max-comm-size P  sample communicator sizes up to P (default 4096)\n"
                "      --max-bytes M      sample message sizes up to M (default 16M)\n"
                "  -c, --collective C     only this collective\n"
                "      --ranks-per-node Q the jobs' layout: rules resolved at it; a model with\n"
                "                         intra/inter levels costs each message at its level\n"
                "  -a, --all              every rule with a prediction, not only findings\n"
                "      --source S         closed (default: closed forms; a point over the\n"
                "                         bound asked again of the simulation up to 256\n"
                "                         ranks), auto or model\n"
                COMMON_OPTS,
        .run = acctctl_cmd_check,
    },
    {
        .name = "refine",
        .synopsis = "[-p PARTITION] [-i INTERCONNECT] [--socket PATH] [--format FMT]",
        .summary = "run acctd's refinement pass now (admin)",
        .help = "Run the refinement from live samples now instead of waiting for\n"
                "refine_interval: print how many refined versions were written, and one\n"
                "line per change or per reason why nothing changed (docs/acctd.md).\n"
                "\n"
                "  -p, --partition P      only this partition\n"
                "  -i, --interconnect I   only this interconnect\n" COMMON_OPTS,
        .run = acctctl_cmd_refine,
    },
    {
        .name = "policy",
        .synopsis = "-p PARTITION (FILE | --clear) [--socket PATH] [--format FMT]",
        .summary = "set a partition's refinement policy in acctd (admin)",
        .help = "Store the policy file FILE (docs/acctd.md, \"Policies\") in acctd for\n"
                "PARTITION, overriding the policy files; --clear removes the override.\n"
                "Problems in FILE are printed as FILE:LINE:COLUMN: FIELD: message.\n"
                COMMON_OPTS,
        .run = acctctl_cmd_policy,
    },
    {
        .name = "reload",
        .synopsis = "[--socket PATH]",
        .summary = "make acctd re-read its configuration and policies (admin)",
        .help = "The same as \"systemctl reload acctd\" (SIGHUP), over the socket.\n"
                COMMON_OPTS,
        .run = acctctl_cmd_reload,
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

const struct acctctl_cmd *acctctl_commands(void)
{
    return commands;
}

const struct acctctl_cmd *acctctl_find_command(const char *name)
{
    for (const struct acctctl_cmd *c = commands; c->name != NULL; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

void acctctl_usage(FILE *f)
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
    const struct acctctl_cmd *c = acctctl_find_command(name);
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
        acctctl_usage(stdout);
        return ACCTCTL_OK;
    }
    if (argc > 2)
        return acctctl_usage_error(argv[0], "expected at most one command name");
    if (acctctl_find_command(argv[1]) == NULL) {
        fprintf(stderr, ACCTCTL_NAME ": unknown command \"%s\"\n\n", argv[1]);
        acctctl_usage(stderr);
        return ACCTCTL_USAGE;
    }
    acctctl_command_usage(argv[1], stdout);
    return ACCTCTL_OK;
}
