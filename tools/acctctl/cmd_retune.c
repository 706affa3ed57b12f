/* acctctl retune: tune a partition again, end to end (docs/acctctl.md).
 *
 *   build the job script -> sbatch -> poll squeue/sacct/scontrol, echo the
 *   job's progress (the new lines of its stderr) -> import the tuning result
 *   into acctd -> show what changes against the active version -> activate.
 *
 * --dry-run stops after printing the script and the plan. The job runs
 * acct-tune (docs/acct-tune.md) with srun --mpi=pmix on the partition's
 * nodes; its files go to --workdir, which must be shared with those nodes
 * (like any job's output files). Slurm commands are found on PATH. */
#include "acctctl.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acct/coll.h"
#include "acct/extrap.h"
#include "acct/rules.h"
#include "client.h"
#include "confidence.h"
#include "daemon_ops.h"

#define MAX_BUDGET_S (30LL * 24 * 3600)
#define MAX_NODES 100000
#define OUT_MAX 65536 /* bytes of a Slurm command's output we read */
#define MAX_TUNE_ARGS 64    /* acct-tune arguments after "--" */
#define MAX_TUNE_ARG_LEN 1024
#define MAX_LAYOUTS 8 /* --ranks-per-node R1,R2,...: one tuning run each, merged */

struct retune_opts {
    const char *partition;
    const char *interconnect; /* NULL: acct-tune's default ($ACCT_INTERCONNECT) */
    long nodes;               /* 0: all nodes of the partition */
    long ranks_per_node;      /* 0: Slurm's default (one per node); the most of rpn[] */
    long rpn[MAX_LAYOUTS];    /* --ranks-per-node list, ascending; n_rpn > 1: one run each */
    int n_rpn;
    long max_comm;            /* acct-tune --max-comm-size; -1: the partition's CPUs */
    char ops[512];            /* comma list of collectives, "" = acct-tune's default */
    long long budget_s;       /* 0: none */
    const char *time_limit;   /* sbatch --time, NULL: partition default */
    const char *workdir;
    const char *acct_tune;
    double interval_s;
    bool dry_run, activate, wait;
    bool node_import;   /* the job imports the result into every node's acctd */
    char acctctl[PATH_MAX]; /* this program, for the node import */
    char *const *tune_args; /* after "--": passed to acct-tune verbatim */
    int n_tune_args;
    char incumbent[PATH_MAX];    /* racing: the active version's rules for acct-tune
                                    --incumbent ("": none) */
    unsigned long long incumbent_version;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* "600", "90s", "10m", "2h", "1d" -> seconds. */
static int parse_duration(const char *s, long long *out)
{
    char *end;
    long long v, mul = 1;
    if (s[0] < '0' || s[0] > '9')
        return -1;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0)
        return -1;
    if (strcmp(end, "") == 0 || strcmp(end, "s") == 0)
        mul = 1;
    else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
        mul = 60;
    else if (strcmp(end, "h") == 0)
        mul = 3600;
    else if (strcmp(end, "d") == 0)
        mul = 86400;
    else
        return -1;
    if (v < 1 || v > MAX_BUDGET_S / mul)
        return -1;
    *out = v * mul;
    return 0;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;
    if (s[0] < '0' || s[0] > '9')
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Collective names, comma separated, each known and at most once; the
 * canonical list goes to out. "all" means every collective (= ""). */
static int parse_ops(const char *cmd, const char *s, char *out, size_t cap)
{
    bool seen[ACCT_COLL_COUNT] = { false };
    char *copy = strdup(s), *save = NULL;
    size_t o = 0;
    int rc = -1;

    out[0] = '\0';
    if (copy == NULL)
        return acctctl_usage_error(cmd, "out of memory"), -1;
    if (strcmp(s, "all") == 0) {
        rc = 0;
        goto out;
    }
    for (char *tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        enum acct_coll_id id;
        if (acct_coll_from_name(tok, &id) != 0) {
            acctctl_usage_error(cmd,
                                "--ops: unknown collective \"%s\" (barrier bcast reduce "
                                "allreduce gather scatter allgather alltoall "
                                "reduce_scatter_block allgatherv reduce_scatter gatherv "
                                "scatterv alltoallv scan exscan, or all)",
                                tok);
            goto out;
        }
        if (seen[id])
            continue;
        seen[id] = true;
        o += (size_t)snprintf(out + o, o < cap ? cap - o : 0, "%s%s", o > 0 ? "," : "", tok);
    }
    if (o == 0) {
        acctctl_usage_error(cmd, "--ops: no collective given");
        goto out;
    }
    rc = o < cap ? 0 : -1;
out:
    free(copy);
    return rc;
}

/* Run argv (no shell), standard output into out (cut at cap - 1 bytes,
 * NUL-terminated), standard error discarded unless keep_stderr. Returns the
 * exit status, or -1 if it could not run (127: not found). */
static int run_capture(char *const argv[], char *out, size_t cap, bool keep_stderr)
{
    int pfd[2], status = -1;
    size_t n = 0;
    pid_t pid;

    out[0] = '\0';
    if (pipe2(pfd, O_CLOEXEC) != 0)
        return -1;
    pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return -1;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDWR);
        dup2(pfd[1], STDOUT_FILENO);
        if (devnull >= 0) {
            dup2(devnull, STDIN_FILENO);
            if (!keep_stderr)
                dup2(devnull, STDERR_FILENO);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    close(pfd[1]);
    for (;;) {
        char tmp[4096];
        ssize_t k = read(pfd[0], tmp, sizeof(tmp));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        for (ssize_t i = 0; i < k && n + 1 < cap; i++)
            out[n++] = tmp[i];
    }
    out[n] = '\0';
    close(pfd[0]);
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = '\0';
}

/* One "KEY=N" field of scontrol's one-line output: N in [1, max], or -1. */
static long scontrol_field(const char *out, const char *key, long max)
{
    const char *p = out;
    size_t kl = strlen(key);
    long n = -1;

    while ((p = strstr(p, key)) != NULL) {
        if ((p == out || p[-1] == ' ') && p[kl] == '=')
            break;
        p += kl;
    }
    if (p != NULL) {
        char num[32];
        size_t k = 0;
        p += kl + 1;
        while (k + 1 < sizeof(num) && p[k] >= '0' && p[k] <= '9') {
            num[k] = p[k];
            k++;
        }
        num[k] = '\0';
        if (parse_long(num, 1, max, &n) != 0)
            n = -1;
    }
    return n;
}

/* The partition's size (scontrol -o show partition P: TotalNodes=N,
 * TotalCPUs=C), for what the caller asks (*nodes, *cpus == 0). Returns 0,
 * or -1 with a message naming the field that is missing. */
static int partition_size(const char *cmd, const char *partition, long *nodes, long *cpus)
{
    char out[OUT_MAX];
    char *argv[] = { "scontrol", "-o", "show", "partition", (char *)partition, NULL };
    static const struct {
        const char *key, *why;
        long max;
    } fields[] = {
        { "TotalNodes", "give --nodes N", MAX_NODES },
        { "TotalCPUs", "give --max-comm-size P", ACCT_EXTRAP_MAX_COMM },
    };
    long *want[] = { nodes, cpus };
    int st;

    if (*nodes != 0 && *cpus != 0)
        return 0;
    st = run_capture(argv, out, sizeof(out), false);
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        if (*want[i] != 0)
            continue;
        *want[i] = st == 0 ? scontrol_field(out, fields[i].key, fields[i].max) : -1;
        if (*want[i] > 0)
            continue;
        fprintf(stderr,
                ACCTCTL_NAME " %s: cannot count the %s of partition %s (\"scontrol show "
                "partition %s\" %s); %s\n",
                cmd, i == 0 ? "nodes" : "CPUs", partition, partition,
                st == 127 ? "not found: is Slurm installed?"
                : st != 0 ? "failed: is the partition defined?"
                          : i == 0 ? "gave no TotalNodes" : "gave no TotalCPUs (or more than 1048576)",
                fields[i].why);
        return -1;
    }
    return 0;
}

/* Does acct-tune's own part of the command line (after "--") set opt? */
static bool tune_arg_given(const struct retune_opts *o, const char *opt)
{
    size_t n = strlen(opt);
    for (int i = 0; i < o->n_tune_args; i++)
        if (strncmp(o->tune_args[i], opt, n) == 0 &&
            (o->tune_args[i][n] == '\0' || o->tune_args[i][n] == '='))
            return true;
    return false;
}

/* Quote s for a POSIX shell ('...'), into buf. */
static const char *shq(const char *s, char *buf, size_t cap)
{
    size_t o = 0;
    if (cap < 3)
        return "''";
    buf[o++] = '\'';
    for (; *s != '\0' && o + 6 < cap; s++) {
        if (*s == '\'') {
            memcpy(buf + o, "'\\''", 4);
            o += 4;
        } else {
            buf[o++] = *s;
        }
    }
    buf[o++] = '\'';
    buf[o] = '\0';
    return buf;
}

static const char *default_acct_tune(char *buf, size_t cap)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash != NULL) {
            *slash = '\0';
            /* installed: next to acctctl; build tree: tools/acct-tune/ */
            if (snprintf(buf, cap, "%s/acct-tune", self) < (int)cap && access(buf, X_OK) == 0)
                return buf;
            if (snprintf(buf, cap, "%s/../acct-tune/acct-tune", self) < (int)cap &&
                access(buf, X_OK) == 0) {
                char real[PATH_MAX];
                if (realpath(buf, real) != NULL)
                    snprintf(buf, cap, "%s", real);
                return buf;
            }
        }
    }
    snprintf(buf, cap, "acct-tune");
    return buf;
}

/* The job script (also what --dry-run prints). */
/* One srun of acct-tune into the script: extra srun options, the result
 * and rules files (shell words). */
static void tune_step(const struct retune_opts *o, FILE *f, const char *srun_opts,
                      const char *result, const char *rules)
{
    char q1[PATH_MAX * 4 + 8], q2[PATH_MAX * 4 + 8];
    fprintf(f, "srun --mpi=pmix %s%s \\\n", srun_opts, shq(o->acct_tune, q2, sizeof(q2)));
    fprintf(f, "    --partition %s \\\n", o->partition);
    if (o->interconnect != NULL)
        fprintf(f, "    --interconnect %s \\\n", o->interconnect);
    fprintf(f, "    --out %s --rules %s \\\n", result, rules);
    if (o->budget_s > 0)
        fprintf(f, "    --budget %llds \\\n", o->budget_s);
    if (o->ops[0] != '\0')
        fprintf(f, "    --collectives %s \\\n", o->ops);
    if (o->max_comm >= 0) /* model regions up to the partition's size (docs/acct-tune.md) */
        fprintf(f, "    --max-comm-size %ld \\\n", o->max_comm);
    for (int i = 0; i < o->n_tune_args; i++)
        fprintf(f, "    %s \\\n", shq(o->tune_args[i], q1, sizeof(q1)));
    if (o->incumbent[0] != '\0')
        fprintf(f, "    --incumbent %s \\\n", shq(o->incumbent, q1, sizeof(q1)));
    fprintf(f, "    --progress\n");
}

/* Racing (acct-tune --race after "--"): the active version of the pair
 * races too (acct-tune --incumbent), so that a retune keeps what is active
 * unless a challenger is shown faster (docs/acct-tune.md "Racing"). Finds
 * the pair's active version (LIST, quietly: a first retune has none) and
 * its rules (SHOW) into *text (malloc'd). 1 found, 0 none (no active
 * version, or the interconnect not given and the partition has several),
 * -1 error (printed). */
static int active_rules(struct acctctl_conn *conn, const struct retune_opts *o, char **text,
                        unsigned long long *version)
{
    struct acct_wbuf w;
    struct acct_iter it;
    struct acct_field f;
    uint64_t v = 0;
    int matches = 0;

    *text = NULL;
    acctctl_request(conn, &w, ACCT_MSG_LIST);
    conn->quiet_errors = true;
    int rc = acctctl_call(conn, &w, NULL);
    conn->quiet_errors = false;
    acct_wbuf_free(&w);
    if (rc != 0)
        return 0; /* no pairs at all: nothing active */
    acct_iter_init(&it, conn->msg.body, conn->msg.len);
    while (acct_iter_next(&it, &f)) {
        char part[ACCT_RULES_NAME_MAX + 1], ic[ACCT_RULES_NAME_MAX + 1];
        uint64_t id = 0;
        if (f.tag != ACCT_T_PAIR ||
            acct_get_str(f.val, f.len, ACCT_T_PARTITION, part, sizeof(part)) != 0 ||
            acct_get_str(f.val, f.len, ACCT_T_INTERCONNECT, ic, sizeof(ic)) != 0 ||
            acct_get_u64(f.val, f.len, ACCT_T_VERSION, &id) != 0)
            continue;
        if (strcmp(part, o->partition) == 0 &&
            (o->interconnect == NULL || strcmp(ic, o->interconnect) == 0)) {
            matches++;
            v = id;
        }
    }
    if (matches != 1 || v == 0)
        return 0;
    acctctl_request(conn, &w, ACCT_MSG_SHOW);
    acct_put_u64(&w, ACCT_T_VERSION, v);
    rc = acctctl_call(conn, &w, NULL);
    acct_wbuf_free(&w);
    struct acct_field t;
    if (rc != 0 || !acct_msg_find(&conn->msg, ACCT_T_RULES_TEXT, &t))
        return -1;
    *text = malloc(t.len + 1);
    if (*text == NULL)
        return -1;
    memcpy(*text, t.val, t.len);
    (*text)[t.len] = '\0';
    *version = (unsigned long long)v;
    return 1;
}

/* Several layouts (--ranks-per-node R1,R2,...): one tuning run per R in
 * the one allocation, each its own result and rules
 * (STEM-JOBID.rpnR.*), then "acctctl merge" of the rules into $rules
 * (docs/acctctl.md "acctctl merge"); the node import stores every run and
 * activates the merged rules. Finishes the script into *s. */
static char *layouts_script(const struct retune_opts *o, FILE *f, char **s, const char *stem)
{
    char q1[PATH_MAX * 4 + 8], opts[96], res[160], rul[160];
    const char *ctl = shq(o->acctctl, q1, sizeof(q1));
    for (int i = 0; i < o->n_rpn; i++) {
        fprintf(f, "# layout %d of %d: %ld ranks per node\n", i + 1, o->n_rpn, o->rpn[i]);
        snprintf(opts, sizeof opts, "--ntasks-per-node=%ld --ntasks=$((SLURM_JOB_NUM_NODES * %ld)) ",
                 o->rpn[i], o->rpn[i]);
        snprintf(res, sizeof res, "\"$dir/%s-$SLURM_JOB_ID.rpn%ld.result.yaml\"", stem, o->rpn[i]);
        snprintf(rul, sizeof rul, "\"$dir/%s-$SLURM_JOB_ID.rpn%ld.rules.yaml\"", stem, o->rpn[i]);
        tune_step(o, f, opts, res, rul);
        fprintf(f, "echo \"acct-retune: result in $dir/%s-$SLURM_JOB_ID.rpn%ld.result.yaml\" >&2\n",
                stem, o->rpn[i]);
    }
    fprintf(f, "%s merge -o \"$rules\"", ctl);
    for (int i = 0; i < o->n_rpn; i++)
        fprintf(f, " \"$dir/%s-$SLURM_JOB_ID.rpn%ld.rules.yaml\"", stem, o->rpn[i]);
    fprintf(f, "\necho \"acct-retune: merged rules in $rules\" >&2\n");
    if (o->node_import) {
        fprintf(f, "# import every run, then the merged rules%s, into the acctd of every node\n",
                o->activate ? " (activated)" : "");
        fprintf(f, "{\n");
        for (int i = 0; i < o->n_rpn; i++)
            fprintf(f, "    srun --ntasks-per-node=1 %s import \"$dir/%s-$SLURM_JOB_ID.rpn%ld.result.yaml\" &&\n",
                    ctl, stem, o->rpn[i]);
        fprintf(f, "    srun --ntasks-per-node=1 %s import \"$rules\"%s\n", ctl,
                o->activate ? " --activate" : "");
        fprintf(f, "} || echo \"acct-retune: the import failed on some nodes\" >&2\n");
    }
    if (fclose(f) != 0) {
        free(*s);
        return NULL;
    }
    return *s;
}

static char *build_script(const struct retune_opts *o, const char *stem)
{
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    char q1[PATH_MAX * 4 + 8];

    if (f == NULL)
        return NULL;
    fprintf(f, "#!/bin/bash\n");
    fprintf(f, "# Written by \"acctctl retune\": tune partition %s again with acct-tune.\n",
            o->partition);
    fprintf(f, "#SBATCH --job-name=acct-retune-%s\n", o->partition);
    fprintf(f, "#SBATCH --partition=%s\n", o->partition);
    fprintf(f, "#SBATCH --nodes=%ld\n", o->nodes);
    if (o->ranks_per_node > 0)
        fprintf(f, "#SBATCH --ntasks-per-node=%ld\n", o->ranks_per_node);
    fprintf(f, "#SBATCH --exclusive\n");
    if (o->time_limit != NULL)
        fprintf(f, "#SBATCH --time=%s\n", o->time_limit);
    fprintf(f, "#SBATCH --output=%s/%s-%%j.out\n", o->workdir, stem);
    fprintf(f, "#SBATCH --error=%s/%s-%%j.err\n", o->workdir, stem);
    fprintf(f, "set -eu\n");
    fprintf(f, "dir=%s\n", shq(o->workdir, q1, sizeof(q1)));
    fprintf(f, "result=\"$dir/%s-$SLURM_JOB_ID.result.yaml\"\n", stem);
    fprintf(f, "rules=\"$dir/%s-$SLURM_JOB_ID.rules.yaml\"\n", stem);
    if (o->n_rpn > 1)
        return layouts_script(o, f, &s, stem);
    tune_step(o, f, "", "\"$result\"", "\"$rules\"");
    fprintf(f, "echo \"acct-retune: result in $result\" >&2\n");
    if (o->node_import) {
        /* Every node's acctd gets the version (docs/acctd.md, "Multi-node":
         * until followers sync from a primary). A node that refuses does
         * not fail the job: acctctl still imports on its own node. */
        fprintf(f, "# import into the acctd of every node of the job%s\n",
                o->activate ? " and activate" : "");
        fprintf(f, "srun --ntasks-per-node=1 %s import \"$result\"%s ||\n",
                shq(o->acctctl, q1, sizeof(q1)), o->activate ? " --activate" : "");
        fprintf(f, "    echo \"acct-retune: the import failed on some nodes\" >&2\n");
    }
    if (fclose(f) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* Write text to path (created 0644, replaced if it exists). */
static int write_file(const char *cmd, const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    int rc = 0;
    if (f == NULL) {
        fprintf(stderr, ACCTCTL_NAME " %s: %s: %s\n", cmd, path, strerror(errno));
        return -1;
    }
    if (fputs(text, f) == EOF)
        rc = -1;
    if (fclose(f) != 0)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, ACCTCTL_NAME " %s: %s: write error\n", cmd, path);
    return rc;
}

/* Job state: squeue while Slurm still lists the job, then sacct, then
 * scontrol (sacct needs accounting storage, scontrol only remembers jobs
 * for MinJobAge). "" if nobody knows the job (any more). */
static void job_state(const char *job, char *state, size_t cap)
{
    char out[OUT_MAX];
    char *sq[] = { "squeue", "-h", "-j", (char *)job, "-o", "%T", NULL };
    char *sa[] = { "sacct", "-n", "-X", "-P", "-j", (char *)job, "-o", "State", NULL };
    char *sc[] = { "scontrol", "-o", "show", "job", (char *)job, NULL };

    state[0] = '\0';
    if (run_capture(sq, out, sizeof(out), false) == 0) {
        chomp(out);
        if (out[0] != '\0') {
            snprintf(state, cap, "%s", out);
            return;
        }
    }
    if (run_capture(sa, out, sizeof(out), false) == 0) {
        chomp(out);
        char *nl = strchr(out, '\n');
        if (nl != NULL)
            *nl = '\0';
        char *sp = strchr(out, ' '); /* "CANCELLED by 0" */
        if (sp != NULL)
            *sp = '\0';
        if (out[0] != '\0') {
            snprintf(state, cap, "%s", out);
            return;
        }
    }
    if (run_capture(sc, out, sizeof(out), false) == 0) {
        const char *p = strstr(out, "JobState=");
        if (p != NULL) {
            size_t k = 0;
            p += strlen("JobState=");
            while (k + 1 < cap && p[k] != '\0' && p[k] != ' ' && p[k] != '\n') {
                state[k] = p[k];
                k++;
            }
            state[k] = '\0';
        }
    }
}

static bool state_final(const char *s)
{
    static const char *const active[] = { "PENDING", "RUNNING", "CONFIGURING", "COMPLETING",
                                          "SUSPENDED", "REQUEUED", "RESIZING", "STAGE_OUT",
                                          "SIGNALING", "REQUEUE_HOLD", "REQUEUE_FED" };
    if (s[0] == '\0')
        return true;
    for (size_t i = 0; i < sizeof(active) / sizeof(active[0]); i++)
        if (strcmp(s, active[i]) == 0)
            return false;
    return true;
}

/* Print what was appended to path since *off, each line prefixed. */
static void tail_new(const char *path, off_t *off)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char buf[8192];
    bool bol = true;
    if (fd < 0)
        return;
    if (lseek(fd, *off, SEEK_SET) == *off) {
        for (;;) {
            ssize_t k = read(fd, buf, sizeof(buf));
            if (k <= 0)
                break;
            for (ssize_t i = 0; i < k; i++) {
                if (bol)
                    fputs("  | ", stderr);
                fputc(buf[i], stderr);
                bol = buf[i] == '\n';
            }
            *off += k;
        }
        if (!bol)
            fputc('\n', stderr);
    }
    close(fd);
}

static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    nanosleep(&ts, NULL); /* a signal ends it early: the loop checks the flag */
}

/* Wait for the job; returns 0 when it completed, -1 otherwise. */
static int wait_job(const struct retune_opts *o, const char *cmd, const char *job,
                    const char *errpath)
{
    char state[64] = "", last[64] = "";
    off_t off = 0;
    time_t t0 = time(NULL);
    int unknown = 0;

    for (;;) {
        job_state(job, state, sizeof(state));
        if (strcmp(state, last) != 0 && state[0] != '\0') {
            fprintf(stderr, ACCTCTL_NAME " %s: job %s %s (%lds)\n", cmd, job, state,
                    (long)(time(NULL) - t0));
            snprintf(last, sizeof(last), "%s", state);
        }
        tail_new(errpath, &off);
        /* Nobody knows the job: just submitted (not listed yet), slurmctld
         * busy, or gone. Only three such polls in a row count as gone. */
        unknown = state[0] == '\0' ? unknown + 1 : 0;
        if (state[0] != '\0' ? state_final(state) : unknown >= 3)
            break;
        if (interrupted)
            return -1;
        sleep_s(o->interval_s);
        if (interrupted)
            return -1;
    }
    tail_new(errpath, &off);
    if (state[0] == '\0') {
        fprintf(stderr,
                ACCTCTL_NAME " %s: job %s is not known to Slurm any more; looking for its "
                "result\n",
                cmd, job);
        return 0;
    }
    return strcmp(state, "COMPLETED") == 0 ? 0 : -1;
}

/* "how sure" lines of one result (table format only). */
static void print_confidence(const struct acctctl_common *c, const char *result)
{
    if (c->format != ACCTCTL_FMT_TABLE)
        return;
    struct acct_result *res = NULL;
    if (acct_result_parse_file(result, &res, NULL) == ACCT_RULES_OK)
        acctctl_confidence_print(stdout, res, "");
    acct_result_free(res);
}

/* After a job of several layouts: every run's result imported (not
 * activated: each is stored with its measurements and its layout), then
 * the merged rules as the new version, activated unless --no-activate. A
 * missing file stops before anything is imported. */
static int import_layouts(const struct retune_opts *o, const struct acctctl_common *c,
                          struct acctctl_conn *conn, bool *connected, const char *stem,
                          const char *job, const char *errpath)
{
    char paths[MAX_LAYOUTS + 1][PATH_MAX];
    for (int i = 0; i <= o->n_rpn; i++) {
        if (i < o->n_rpn)
            snprintf(paths[i], sizeof paths[i], "%s/%s-%s.rpn%ld.result.yaml", o->workdir, stem,
                     job, o->rpn[i]);
        else
            snprintf(paths[i], sizeof paths[i], "%s/%s-%s.rules.yaml", o->workdir, stem, job);
        if (access(paths[i], R_OK) != 0) {
            fprintf(stderr, ACCTCTL_NAME " %s: job %s wrote no %s (%s); its log: %s\n", c->cmd,
                    job, paths[i], strerror(errno), errpath);
            return ACCTCTL_FAIL;
        }
    }
    acctctl_disconnect(conn); /* a fresh connection: the old one idled while the job ran */
    *connected = acctctl_connect(conn, c) == 0;
    if (!*connected)
        return ACCTCTL_FAIL;
    for (int i = 0; i < o->n_rpn; i++) {
        if (acctctl_import_file(conn, paths[i], false, false) != 0)
            return ACCTCTL_FAIL;
        print_confidence(c, paths[i]);
    }
    if (acctctl_import_file(conn, paths[o->n_rpn], o->activate, true) != 0)
        return ACCTCTL_FAIL;
    return conn->warnings > 0 ? ACCTCTL_WARN : ACCTCTL_OK;
}

static int do_retune(struct retune_opts *o, const struct acctctl_common *c)
{
    char stem[ACCT_RULES_NAME_MAX + 32], tune_buf[PATH_MAX];
    char script_path[PATH_MAX], out[OUT_MAX], job[64], errpath[PATH_MAX], result[PATH_MAX];
    char *script = NULL;
    struct acctctl_conn conn = { .fd = -1 };
    bool connected = false;
    int rc = ACCTCTL_FAIL;
    time_t now = time(NULL);
    struct tm tm;

    if (o->acct_tune == NULL)
        o->acct_tune = default_acct_tune(tune_buf, sizeof(tune_buf));
    if (o->node_import || o->n_rpn > 1) { /* the job runs acctctl merge/import */
        ssize_t n = readlink("/proc/self/exe", o->acctctl, sizeof(o->acctctl) - 1);
        if (n <= 0) {
            fprintf(stderr, ACCTCTL_NAME " %s: cannot find this program's path: %s\n", c->cmd,
                    strerror(errno));
            goto out;
        }
        o->acctctl[n] = '\0';
    }
    {
        /* after "--", acct-tune's own --max-comm-size wins: none here */
        bool given = tune_arg_given(o, "--max-comm-size");
        long cpus = o->max_comm >= 0 || given ? 1 : 0;
        if (partition_size(c->cmd, o->partition, &o->nodes, &cpus) != 0)
            goto out;
        if (given)
            o->max_comm = -1;
        else if (o->max_comm < 0)
            o->max_comm = cpus;
    }
    gmtime_r(&now, &tm);
    snprintf(stem, sizeof(stem), "acct-retune-%s", o->partition);
    char stamp[32];
    if (strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm) == 0)
        snprintf(stamp, sizeof(stamp), "%lld", (long long)now);
    if (snprintf(script_path, sizeof(script_path), "%s/%s-%s.sh", o->workdir, stem, stamp) >=
        (int)sizeof(script_path)) {
        fprintf(stderr, ACCTCTL_NAME " %s: --workdir %s: too long a path\n", c->cmd, o->workdir);
        goto out;
    }

    /* The daemon must be there before anything is submitted. */
    connected = acctctl_connect(&conn, c) == 0;
    /* racing: the active version races as the incumbent */
    char *incumbent_text = NULL;
    if (connected && tune_arg_given(o, "--race") && !tune_arg_given(o, "--incumbent")) {
        int r = active_rules(&conn, o, &incumbent_text, &o->incumbent_version);
        if (r < 0)
            goto out;
        if (r == 1 && snprintf(o->incumbent, sizeof(o->incumbent), "%s/%s-%s.incumbent.yaml",
                               o->workdir, stem, stamp) >= (int)sizeof(o->incumbent)) {
            fprintf(stderr, ACCTCTL_NAME " %s: --workdir %s: too long a path\n", c->cmd,
                    o->workdir);
            free(incumbent_text);
            goto out;
        }
    }
    script = build_script(o, stem);
    if (script == NULL) {
        fprintf(stderr, ACCTCTL_NAME " %s: out of memory\n", c->cmd);
        free(incumbent_text);
        goto out;
    }
    if (o->incumbent[0] != '\0' && !o->dry_run) {
        int w = write_file(c->cmd, o->incumbent, incumbent_text);
        free(incumbent_text);
        if (w != 0)
            goto out;
        fprintf(stderr, ACCTCTL_NAME " %s: the race's incumbent: version %llu (%s)\n", c->cmd,
                o->incumbent_version, o->incumbent);
    } else {
        free(incumbent_text);
    }
    if (o->dry_run) {
        if (o->incumbent[0] != '\0')
            printf("# the race's incumbent: version %llu of %s, written to %s when submitted\n",
                   o->incumbent_version, o->partition, o->incumbent);
        printf("%s", script);
        printf("\n# --dry-run: nothing submitted. Without it, acctctl retune would:\n"
               "#  1. write this script to %s\n"
               "#  2. submit it: sbatch --parsable %s (%ld node%s of partition %s)\n"
               "#  3. show the job's state and acct-tune's progress every %gs until it ends\n"
               "#  4. import %s/%s-JOBID%s into acctd at %s%s\n"
               "#  5. show the changes against the active version of %s\n"
               "#  6. %s\n"
               "%s",
               script_path, script_path, o->nodes, o->nodes == 1 ? "" : "s", o->partition,
               o->interval_s, o->workdir, stem,
               o->n_rpn > 1 ? ".rpnR.result.yaml (each layout R, inactive), then the merged "
                              "JOBID.rules.yaml,"
                            : ".result.yaml",
               c->socket,
               connected ? "" : " (NOT reachable now)", o->partition,
               o->activate ? "activate the new version" : "leave it inactive (--no-activate)",
               o->node_import ? "# (the job itself imports the result into every node's acctd "
                                "first: --no-node-import leaves that out)\n"
                              : "");
        rc = connected ? ACCTCTL_OK : ACCTCTL_FAIL;
        goto out;
    }
    if (!connected)
        goto out;
    if (acctctl_op_ping(&conn) != 0)
        goto out;
    if (write_file(c->cmd, script_path, script) != 0)
        goto out;
    {
        char *argv[] = { "sbatch", "--parsable", script_path, NULL };
        int st = run_capture(argv, out, sizeof(out), true);
        chomp(out);
        char *semi = strchr(out, ';'); /* "JOBID;CLUSTER" */
        if (semi != NULL)
            *semi = '\0';
        if (st != 0 || out[0] < '0' || out[0] > '9' || strlen(out) >= sizeof(job)) {
            fprintf(stderr, ACCTCTL_NAME " %s: sbatch %s failed (%s)%s%s\n", c->cmd,
                    script_path, st == 127 ? "not found: is Slurm installed?" : "see above",
                    out[0] != '\0' ? ": " : "", out);
            goto out;
        }
        snprintf(job, sizeof(job), "%.*s", (int)sizeof(job) - 1, out); /* fits: checked above */
    }
    snprintf(errpath, sizeof(errpath), "%s/%s-%s.err", o->workdir, stem, job);
    snprintf(result, sizeof(result), "%s/%s-%s.result.yaml", o->workdir, stem, job);
    fprintf(stderr, ACCTCTL_NAME " %s: submitted job %s (script %s)\n", c->cmd, job,
            script_path);
    if (!o->wait) {
        printf("%s\n", job);
        fprintf(stderr,
                ACCTCTL_NAME " %s: not waiting (--no-wait); when it ends: acctctl import %s%s\n",
                c->cmd, result, o->activate ? " --activate" : "");
        rc = ACCTCTL_OK;
        goto out;
    }
    if (wait_job(o, c->cmd, job, errpath) != 0) {
        if (interrupted)
            fprintf(stderr,
                    ACCTCTL_NAME " %s: interrupted; job %s keeps running (scancel %s stops "
                    "it); import its result later: acctctl import %s\n",
                    c->cmd, job, job, result);
        else
            fprintf(stderr, ACCTCTL_NAME " %s: job %s did not complete; its log: %s\n", c->cmd,
                    job, errpath);
        goto out;
    }
    if (o->n_rpn > 1) {
        rc = import_layouts(o, c, &conn, &connected, stem, job, errpath);
        goto out;
    }
    if (access(result, R_OK) != 0) {
        fprintf(stderr, ACCTCTL_NAME " %s: job %s wrote no result %s (%s); its log: %s\n",
                c->cmd, job, result, strerror(errno), errpath);
        goto out;
    }
    /* A new connection for the import: acctd closes one that stayed idle
     * for idle_timeout (60 s by default) while the job ran. */
    acctctl_disconnect(&conn);
    connected = acctctl_connect(&conn, c) == 0;
    if (!connected)
        goto out;
    rc = acctctl_import_file(&conn, result, o->activate, true) == 0 ? ACCTCTL_OK
                                                                      : ACCTCTL_FAIL;
    if (rc == ACCTCTL_OK && conn.warnings > 0)
        rc = ACCTCTL_WARN;
    if (rc != ACCTCTL_FAIL) /* how sure the result is, per collective (docs/acctctl.md "Confidence") */
        print_confidence(c, result);
out:
    if (connected)
        acctctl_disconnect(&conn);
    free(script);
    return rc;
}

/* --ranks-per-node R or R1,R2,... (ascending, distinct, 1 to 4096, at most
 * MAX_LAYOUTS). */
static int parse_rpn_list(const char *cmd, const char *arg, struct retune_opts *o)
{
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", arg);
    o->n_rpn = 0;
    for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
        long v;
        if (o->n_rpn == MAX_LAYOUTS || parse_long(t, 1, 4096, &v) != 0 ||
            (o->n_rpn > 0 && v <= o->rpn[o->n_rpn - 1]))
            return acctctl_usage_error(cmd,
                                       "--ranks-per-node: expected R or an ascending list "
                                       "R1,R2,... of at most %d values from 1 to 4096, got \"%s\"",
                                       MAX_LAYOUTS, arg);
        o->rpn[o->n_rpn++] = v;
    }
    if (o->n_rpn == 0 || strlen(arg) >= sizeof buf || arg[strlen(arg) - 1] == ',')
        return acctctl_usage_error(cmd, "--ranks-per-node: expected R or R1,R2,..., got \"%s\"",
                                   arg);
    o->ranks_per_node = o->rpn[o->n_rpn - 1];
    return 0;
}

static int own_opt(void *arg, int ch, const char *optarg)
{
    struct retune_opts *o = arg;
    const char *cmd = "retune";

    switch (ch) {
    case 'N':
        if (parse_long(optarg, 1, MAX_NODES, &o->nodes) != 0)
            return acctctl_usage_error(cmd, "--nodes: expected 1 to %d, got \"%s\"", MAX_NODES,
                                       optarg);
        return 0;
    case 'R':
        return parse_rpn_list(cmd, optarg, o);
    case 'o':
        return parse_ops(cmd, optarg, o->ops, sizeof(o->ops)) == 0 ? 0 : ACCTCTL_USAGE;
    case 'b':
        if (parse_duration(optarg, &o->budget_s) != 0)
            return acctctl_usage_error(cmd,
                                       "--budget: expected a duration such as 600, 90s, 10m, "
                                       "2h (at most 30 days), got \"%s\"",
                                       optarg);
        return 0;
    case 't':
        for (const char *p = optarg; *p != '\0'; p++)
            if (!((*p >= '0' && *p <= '9') || *p == ':' || *p == '-'))
                return acctctl_usage_error(cmd,
                                           "--time: expected a Slurm time limit such as 30, "
                                           "1:30:00 or 1-00:00:00, got \"%s\"",
                                           optarg);
        if (optarg[0] == '\0')
            return acctctl_usage_error(cmd, "--time: empty");
        o->time_limit = optarg;
        return 0;
    case 'w':
        o->workdir = optarg;
        return 0;
    case 'P':
        if (parse_long(optarg, 0, ACCT_EXTRAP_MAX_COMM, &o->max_comm) != 0)
            return acctctl_usage_error(cmd,
                                       "--max-comm-size: expected 0 (no model regions) to %d, "
                                       "got \"%s\"",
                                       ACCT_EXTRAP_MAX_COMM, optarg);
        return 0;
    case 'T':
        o->acct_tune = optarg;
        return 0;
    case 'I': {
        char *end;
        o->interval_s = strtod(optarg, &end);
        if (*end != '\0' || !(o->interval_s >= 0.1 && o->interval_s <= 3600))
            return acctctl_usage_error(cmd, "--interval: expected 0.1 to 3600 seconds, got "
                                            "\"%s\"",
                                       optarg);
        return 0;
    }
    case 'n':
        o->dry_run = true;
        return 0;
    case 'A':
        o->activate = false;
        return 0;
    case 'W':
        o->wait = false;
        return 0;
    case 'M':
        o->node_import = false;
        return 0;
    default:
        return -1;
    }
}

int acctctl_cmd_retune(int argc, char **argv)
{
    static const struct option opts[] = {
        ACCTCTL_PAIR_LONG,
        { "nodes", required_argument, NULL, 'N' },
        { "ranks-per-node", required_argument, NULL, 'R' },
        { "ops", required_argument, NULL, 'o' },
        { "budget", required_argument, NULL, 'b' },
        { "time", required_argument, NULL, 't' },
        { "workdir", required_argument, NULL, 'w' },
        { "acct-tune", required_argument, NULL, 'T' },
        { "max-comm-size", required_argument, NULL, 'P' },
        { "interval", required_argument, NULL, 'I' },
        { "dry-run", no_argument, NULL, 'n' },
        { "no-activate", no_argument, NULL, 'A' },
        { "no-wait", no_argument, NULL, 'W' },
        { "no-node-import", no_argument, NULL, 'M' },
        ACCTCTL_COMMON_LONG,
        { NULL, 0, NULL, 0 },
    };
    struct retune_opts o = { .max_comm = -1, .interval_s = 5, .activate = true, .wait = true, .node_import = true };
    struct acctctl_common c;
    char cwd[PATH_MAX], wd[PATH_MAX];
    struct sigaction sa, old_int, old_term;
    int rc;

    acctctl_common_init(&c, argv[0]);
    /* Everything after "--" is for acct-tune (checked there, by every rank). */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") != 0)
            continue;
        o.tune_args = argv + i + 1;
        o.n_tune_args = argc - i - 1;
        argc = i;
        break;
    }
    if (o.n_tune_args > MAX_TUNE_ARGS)
        return acctctl_usage_error(argv[0], "at most %d acct-tune arguments after \"--\"",
                                   MAX_TUNE_ARGS);
    for (int i = 0; i < o.n_tune_args; i++) {
        if (strlen(o.tune_args[i]) > MAX_TUNE_ARG_LEN || strchr(o.tune_args[i], '\n') != NULL)
            return acctctl_usage_error(argv[0],
                                       "acct-tune argument %d after \"--\": longer than %d "
                                       "bytes or a newline",
                                       i + 1, MAX_TUNE_ARG_LEN);
    }
    rc = acctctl_parse_opts(&c, argc, argv, "N:o:b:t:w:n" ACCTCTL_PAIR_SHORT ACCTCTL_COMMON_SHORT,
                            opts, own_opt, &o);
    if (rc >= 0)
        return rc;
    if (optind < argc)
        return acctctl_usage_error(argv[0], "unexpected argument \"%s\"", argv[optind]);
    if (c.partition == NULL)
        return acctctl_usage_error(argv[0], "which partition? (-p PARTITION)");
    o.partition = c.partition;
    o.interconnect = c.interconnect;
    if (o.workdir == NULL) {
        if (getcwd(cwd, sizeof(cwd)) == NULL)
            return acctctl_usage_error(argv[0], "cannot get the current directory; give "
                                                "--workdir DIR");
        o.workdir = cwd;
    }
    if (realpath(o.workdir, wd) == NULL) {
        fprintf(stderr, ACCTCTL_NAME " %s: --workdir %s: %s\n", argv[0], o.workdir,
                strerror(errno));
        return ACCTCTL_FAIL;
    }
    o.workdir = wd;
    for (const char *p = wd; *p != '\0'; p++) {
        /* it goes into #SBATCH lines, which are not shell-quoted */
        if (*p == '\n' || *p == ' ' || *p == '%' || *p == '\'' || *p == '"' || *p == '\\')
            return acctctl_usage_error(argv[0],
                                       "--workdir: the path may not contain spaces, quotes, "
                                       "%% or backslashes (it goes into #SBATCH lines)");
    }

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    rc = do_retune(&o, &c);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return rc;
}
