/* acctd-bench: how fast is acctd? (docs/performance.md, issue 4 targets:
 * ingestion >= 100,000 samples/s, rules fetch p99 < 1 ms, RSS < 32 MiB
 * with a year of daily versions for 8 partitions).
 *
 *   acctd-bench --acctd PATH [--quick] [options] [ingest] [fetch] [versions]
 *   acctd-bench --socket PATH [--pid PID] [options] [ingest] [fetch] [versions]
 *
 * With --acctd it starts its own acctd in the foreground on a temporary
 * directory (quotas raised so that the benchmark measures throughput, not
 * refusals), runs the phases, stops it with SIGTERM and removes the
 * directory. With --socket it uses a running acctd (its quotas apply; give
 * --pid for the RSS figure). Prints figures; asserts nothing about speed.
 *
 * Phases:
 *   ingest    C clients (processes) send SAMPLES batches of K samples, each
 *             waiting for the acknowledgement (sent after the commit),
 *             client i as job "BASE+i.0" (--job-base; default from the pid):
 *             samples/s over the wall time from a common start to the last
 *             acknowledgement. --ack-log FILE appends "ack CALLS" per
 *             acknowledged batch (the kill -9 test sums it).
 *   fetch     GET_RULES latency, on one open connection and with a new
 *             connection per request (as a job step's plugin would): p50,
 *             p99, max in microseconds.
 *   versions  P pairs x D daily versions imported (and activated) as rules
 *             files, then the daemon's VmRSS and VmHWM.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
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

#include "acct/proto.h"

#define TIMEOUT_MS 30000

struct opts {
    const char *acctd, *socket, *ack_log, *partition, *interconnect;
    long pid, job_base; /* client i sends as job "job_base+i.0" */
    int clients, batch, count_per_sample;
    long samples, fetches, connect_fetches;
    int pairs, days;
    bool quick, ingest, fetch, versions, keep_going;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(const double *sorted, size_t n, double p)
{
    size_t i = (size_t)ceil(p / 100.0 * (double)n);
    if (i > 0)
        i--;
    if (i >= n)
        i = n - 1;
    return sorted[i];
}

/* One request, one reply; 0 if the reply is the request's success type. */
static int call(int fd, struct acct_wbuf *w, uint8_t **reply, struct acct_msg *m)
{
    size_t len;
    unsigned type = w->p[5];
    free(*reply);
    *reply = NULL;
    if (acct_wbuf_finish(w) != 0 || acct_client_call(fd, w, TIMEOUT_MS, reply, &len, m) != 0)
        return -1;
    return m->h.type == (type | ACCT_MSG_REPLY) ? 0 : -1;
}

static void print_error(const char *what, const struct acct_msg *m)
{
    char msg[512] = "";
    uint64_t code = 0;
    acct_get_u64(m->body, m->len, ACCT_T_ERR_CODE, &code);
    acct_get_str(m->body, m->len, ACCT_T_ERR_MSG, msg, sizeof(msg));
    fprintf(stderr, "acctd-bench: %s: %s: %s\n", what, acct_err_name((unsigned)code), msg);
}

/* CPU seconds (user + system) the process has used; -1 if unknown. On a
 * busy machine this, not the wall time, shows what the daemon costs. */
static double cpu_seconds(long pid)
{
    char path[64], buf[1024];
    unsigned long ut = 0, st = 0;
    FILE *f;
    char *p;
    if (pid <= 0)
        return -1;
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    f = fopen(path, "r");
    if (f == NULL)
        return -1;
    p = fgets(buf, sizeof(buf), f);
    fclose(f);
    if (p == NULL || (p = strrchr(buf, ')')) == NULL)
        return -1;
    /* after "pid (comm)": state is field 3; utime and stime are 14 and 15 */
    if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* ---- ingest --------------------------------------------------------------- */

static const char *const sample_algs[] = { "binomial", "pipeline", "binary", "linear" };

static void put_batch(struct acct_wbuf *w, const struct opts *o, const char *job, long first,
                      int n, uint32_t id)
{
    acct_wbuf_init(w, ACCT_PROTO_MAX_USER_BODY);
    acct_wbuf_start(w, ACCT_MSG_SAMPLES, id);
    acct_put_str(w, ACCT_T_JOB, job);
    acct_put_str(w, ACCT_T_PARTITION, o->partition);
    acct_put_str(w, ACCT_T_INTERCONNECT, o->interconnect);
    for (int i = 0; i < n; i++) {
        long k = first + i;
        double mean = 10.0 + (double)(k % 97), c = (double)o->count_per_sample;
        acct_group_begin(w, ACCT_T_SAMPLE);
        acct_put_str(w, ACCT_T_COLLECTIVE, "bcast");
        acct_put_u64(w, ACCT_T_COMM_SIZE, 2 + (uint64_t)(k % 63));
        acct_put_u64(w, ACCT_T_BYTES_BUCKET, 1 + (uint64_t)(k % 20));
        acct_put_str(w, ACCT_T_ALGORITHM, sample_algs[k % 4]);
        acct_put_u64(w, ACCT_T_COUNT, (uint64_t)o->count_per_sample);
        acct_put_f64(w, ACCT_T_SUM_US, c * mean);
        acct_put_f64(w, ACCT_T_MIN_US, 0.9 * mean);
        acct_put_f64(w, ACCT_T_MAX_US, 1.1 * mean);
        acct_put_f64(w, ACCT_T_SUMSQ_US, c * mean * mean * 1.01);
        acct_group_end(w);
    }
}

struct client_result {
    long accepted, rejected, batches;
    int failed;
};

/* One client process: wait for the start signal, send its share. */
static void ingest_client(const struct opts *o, int index, long share, int start_fd,
                          int result_fd)
{
    struct client_result r = { 0, 0, 0, 0 };
    char job[64], c;
    int fd = acct_client_connect(o->socket, TIMEOUT_MS);
    int log = o->ack_log != NULL ? open(o->ack_log, O_WRONLY | O_APPEND | O_CREAT, 0644) : -1;
    uint8_t *reply = NULL;
    uint32_t id = 1;

    snprintf(job, sizeof(job), "%ld.0", o->job_base + index);
    if (read(start_fd, &c, 1) < 0) /* blocks until the parent closes the pipe */
        r.failed = 1;
    for (long sent = 0; fd >= 0 && !r.failed && sent < share;) {
        struct acct_wbuf w;
        struct acct_msg m;
        int n = share - sent < o->batch ? (int)(share - sent) : o->batch;
        put_batch(&w, o, job, (long)index * share + sent, n, id++);
        if (call(fd, &w, &reply, &m) != 0) {
            if (reply != NULL && m.h.type == ACCT_MSG_ERROR)
                print_error("SAMPLES", &m);
            r.failed = 1;
        } else {
            uint64_t acc = 0, rej = 0;
            acct_get_u64(m.body, m.len, ACCT_T_ACCEPTED, &acc);
            acct_get_u64(m.body, m.len, ACCT_T_REJECTED, &rej);
            r.accepted += (long)acc;
            r.rejected += (long)rej;
            r.batches++;
            if (log >= 0) {
                char line[64];
                int len = snprintf(line, sizeof(line), "ack %" PRIu64 "\n",
                                   acc * (uint64_t)o->count_per_sample);
                if (write(log, line, (size_t)len) != len)
                    r.failed = 1;
            }
        }
        acct_wbuf_free(&w);
        sent += n;
    }
    if (fd < 0)
        r.failed = 1;
    if (write(result_fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
        _exit(3);
    free(reply);
    _exit(r.failed ? 1 : 0);
}

static int phase_ingest(const struct opts *o)
{
    int start[2], res[2], failed = 0;
    long share = o->samples / o->clients;
    struct client_result total = { 0, 0, 0, 0 };
    pid_t *pids = calloc((size_t)o->clients, sizeof(pid_t));
    double t0, t1, cpu0, cpu1;

    if (pids == NULL || share < 1 || pipe(start) != 0 || pipe(res) != 0) {
        fprintf(stderr, "acctd-bench: ingest: cannot set up (%ld samples, %d clients)\n",
                o->samples, o->clients);
        free(pids);
        return 1;
    }
    for (int i = 0; i < o->clients; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            close(start[1]);
            close(res[0]);
            ingest_client(o, i, share, start[0], res[1]);
        }
        if (pids[i] < 0)
            failed++;
    }
    close(start[0]);
    close(res[1]);
    usleep(200000); /* let every client connect before the start */
    cpu0 = cpu_seconds(o->pid);
    t0 = now_s();
    close(start[1]); /* start */
    for (int i = 0; i < o->clients; i++) {
        struct client_result r;
        if (read(res[0], &r, sizeof(r)) == (ssize_t)sizeof(r)) {
            total.accepted += r.accepted;
            total.rejected += r.rejected;
            total.batches += r.batches;
            failed += r.failed;
        } else {
            failed++;
        }
    }
    t1 = now_s();
    cpu1 = cpu_seconds(o->pid);
    close(res[0]);
    for (int i = 0; i < o->clients; i++)
        if (pids[i] > 0)
            waitpid(pids[i], NULL, 0);
    free(pids);
    printf("ingest: %d clients x %ld samples in batches of %d (%d calls each): %ld samples "
           "acknowledged in %.3f s = %.0f samples/s (%.0f timed calls/s); accepted %ld, "
           "rejected %ld, batches %ld, failed clients %d\n",
           o->clients, share, o->batch, o->count_per_sample, total.accepted + total.rejected,
           t1 - t0, (double)(total.accepted + total.rejected) / (t1 - t0),
           (double)total.accepted * o->count_per_sample / (t1 - t0), total.accepted,
           total.rejected, total.batches, failed);
    if (cpu0 >= 0 && cpu1 > cpu0)
        printf("ingest: acctd used %.2f s of CPU for them: %.0f samples per acctd CPU second\n",
               cpu1 - cpu0, (double)(total.accepted + total.rejected) / (cpu1 - cpu0));
    fflush(stdout);
    return failed != 0 || total.rejected != 0 ? 1 : 0;
}

/* ---- fetch ---------------------------------------------------------------- */

static int get_rules(int fd, const struct opts *o, uint8_t **reply, uint32_t id)
{
    struct acct_wbuf w;
    struct acct_msg m;
    int rc;
    acct_wbuf_init(&w, ACCT_PROTO_MAX_USER_BODY);
    acct_wbuf_start(&w, ACCT_MSG_GET_RULES, id);
    acct_put_str(&w, ACCT_T_PARTITION, o->partition);
    acct_put_str(&w, ACCT_T_INTERCONNECT, o->interconnect);
    rc = call(fd, &w, reply, &m);
    if (rc != 0 && *reply != NULL && m.h.type == ACCT_MSG_ERROR)
        print_error("GET_RULES", &m);
    acct_wbuf_free(&w);
    return rc;
}

static void print_latency(const char *what, double *us, size_t n, double cpu)
{
    qsort(us, n, sizeof(*us), cmp_double);
    printf("fetch (%s): %zu requests: p50 %.1f us, p99 %.1f us, max %.1f us", what, n,
           pct(us, n, 50), pct(us, n, 99), us[n - 1]);
    if (cpu > 0)
        printf("; acctd CPU %.1f us per request", cpu * 1e6 / (double)n);
    printf("\n");
}

static int phase_fetch(const struct opts *o)
{
    double *us = calloc((size_t)(o->fetches > o->connect_fetches ? o->fetches
                                                                   : o->connect_fetches),
                        sizeof(double));
    uint8_t *reply = NULL;
    double cpu;
    int fd, rc = 1;

    if (us == NULL)
        return 1;
    fd = acct_client_connect(o->socket, TIMEOUT_MS);
    if (fd < 0 || get_rules(fd, o, &reply, 1) != 0) { /* warm-up; the pair must exist */
        fprintf(stderr, "acctd-bench: fetch: GET_RULES %s/%s failed\n", o->partition,
                o->interconnect);
        goto out;
    }
    cpu = cpu_seconds(o->pid);
    for (long i = 0; i < o->fetches; i++) {
        double t = now_s();
        if (get_rules(fd, o, &reply, (uint32_t)i + 2) != 0)
            goto out;
        us[i] = (now_s() - t) * 1e6;
    }
    print_latency("GET_RULES on one connection", us, (size_t)o->fetches,
                  cpu >= 0 ? cpu_seconds(o->pid) - cpu : -1);
    cpu = cpu_seconds(o->pid);
    for (long i = 0; i < o->connect_fetches; i++) {
        double t = now_s();
        int cfd = acct_client_connect(o->socket, TIMEOUT_MS);
        if (cfd < 0 || get_rules(cfd, o, &reply, 1) != 0) {
            if (cfd >= 0)
                close(cfd);
            goto out;
        }
        close(cfd);
        us[i] = (now_s() - t) * 1e6;
    }
    print_latency("connect + GET_RULES + close", us, (size_t)o->connect_fetches,
                  cpu >= 0 ? cpu_seconds(o->pid) - cpu : -1);
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    free(reply);
    free(us);
    fflush(stdout);
    return rc;
}

/* ---- versions and RSS ------------------------------------------------------ */

static char *rules_text(int pair, int day)
{
    static const char *const segs[] = { "4K", "8K", "16K", "32K", "64K", "128K" };
    time_t t = 1735689600 + (time_t)day * 86400; /* 2025-01-01 + day */
    struct tm tm;
    char created[32], *s = NULL;
    gmtime_r(&t, &tm);
    strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (asprintf(&s,
                 "acct_rules: 1\n"
                 "provenance: {partition: bench%d, interconnect: ib, version: 1, source: manual,\n"
                 "             created: \"%s\"}\n"
                 "collectives:\n"
                 "  bcast:\n"
                 "    - {comm_size: [2, 8], bytes: [0, 8191], algorithm: binomial}\n"
                 "    - {comm_size: [2, 8], bytes: [8K, 1M], algorithm: pipeline, segment: %s}\n"
                 "    - {comm_size: [9, max], bytes: [0, 64K], algorithm: knomial, fanout: %d}\n"
                 "  allreduce:\n"
                 "    - {comm_size: [2, 64], bytes: [0, 4K], algorithm: recursive_doubling}\n"
                 "    - {comm_size: [2, 64], bytes: [4097, 16M], algorithm: ring}\n"
                 "  barrier:\n"
                 "    - {comm_size: [2, max], algorithm: dissemination}\n"
                 "  allgather:\n"
                 "    - {comm_size: [2, 32], bytes: [0, 1K], algorithm: bruck}\n",
                 pair, created, segs[day % 6], 2 + day % 7) < 0)
        return NULL;
    return s;
}

static long status_kib(long pid, const char *key)
{
    char path[64], line[256];
    long v = -1;
    size_t klen = strlen(key);
    FILE *f;
    snprintf(path, sizeof(path), "/proc/%ld/status", pid);
    f = fopen(path, "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, key, klen) == 0 && line[klen] == ':')
            v = strtol(line + klen + 1, NULL, 10);
    fclose(f);
    return v;
}

static int phase_versions(const struct opts *o)
{
    int fd = acct_client_connect(o->socket, TIMEOUT_MS), rc = 1;
    uint8_t *reply = NULL;
    uint32_t id = 1;
    double t0 = now_s();
    long rss0 = o->pid > 0 ? status_kib(o->pid, "VmRSS") : -1;

    if (fd < 0) {
        fprintf(stderr, "acctd-bench: versions: cannot connect to %s\n", o->socket);
        return 1;
    }
    for (int d = 0; d < o->days; d++) {
        for (int p = 0; p < o->pairs; p++) {
            struct acct_wbuf w;
            struct acct_msg m;
            char *text = rules_text(p, d);
            int r;
            if (text == NULL)
                goto out;
            acct_wbuf_init(&w, ACCT_PROTO_MAX_BODY);
            acct_wbuf_start(&w, ACCT_MSG_IMPORT, id++);
            acct_put_str(&w, ACCT_T_RULES_TEXT, text);
            acct_put_u64(&w, ACCT_T_ACTIVATE, 1);
            r = call(fd, &w, &reply, &m);
            if (r != 0 && reply != NULL && m.h.type == ACCT_MSG_ERROR)
                print_error("IMPORT", &m);
            acct_wbuf_free(&w);
            free(text);
            if (r != 0)
                goto out;
        }
    }
    {
        double t = now_s() - t0;
        long n = (long)o->pairs * o->days;
        printf("versions: %d pairs x %d daily versions = %ld imported and activated in %.2f s "
               "(%.0f/s)",
               o->pairs, o->days, n, t, (double)n / t);
        if (o->pid > 0)
            printf("; acctd RSS %.1f MiB before, %.1f MiB after (peak %.1f MiB)\n",
                   (double)rss0 / 1024, (double)status_kib(o->pid, "VmRSS") / 1024,
                   (double)status_kib(o->pid, "VmHWM") / 1024);
        else
            printf("; RSS not measured (give --pid)\n");
    }
    rc = 0;
out:
    close(fd);
    free(reply);
    fflush(stdout);
    return rc;
}

/* ---- our own acctd -------------------------------------------------------- */

static char tmpdir[PATH_MAX];

static pid_t start_acctd(const char *acctd, char *sock, size_t socklen)
{
    char conf[PATH_MAX + 16], log[PATH_MAX + 16];
    FILE *f;
    pid_t pid;

    snprintf(tmpdir, sizeof(tmpdir), "/tmp/acctd-bench.XXXXXX");
    if (mkdtemp(tmpdir) == NULL)
        return -1;
    snprintf(conf, sizeof(conf), "%s/acctd.yaml", tmpdir);
    snprintf(log, sizeof(log), "%s/acctd.log", tmpdir);
    if (snprintf(sock, socklen, "%s/run/acctd.sock", tmpdir) >= (int)socklen)
        return -1;
    {
        char pol[PATH_MAX + 16];
        snprintf(pol, sizeof(pol), "%s/policies", tmpdir);
        if (mkdir(pol, 0755) != 0)
            return -1;
    }
    f = fopen(conf, "w");
    if (f == NULL)
        return -1;
    fprintf(f,
            "state_dir: %s/state\nruntime_dir: %s/run\npolicy_dir: %s/policies\n"
            "log_level: warn\n"
            "samples_per_job: 100000000\nsamples_per_user_hour: 1000000000\n"
            "refine_interval: 0\nnode: bench\n",
            tmpdir, tmpdir, tmpdir);
    if (fclose(f) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        int lfd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (lfd >= 0) {
            dup2(lfd, STDOUT_FILENO);
            dup2(lfd, STDERR_FILENO);
        }
        execl(acctd, acctd, "-f", "-c", conf, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; pid > 0 && i < 200; i++) { /* up to 20 s */
        int fd = acct_client_connect(sock, 1000);
        if (fd >= 0) {
            close(fd);
            return pid;
        }
        if (waitpid(pid, NULL, WNOHANG) == pid) {
            char line[512];
            FILE *lf = fopen(log, "r");
            fprintf(stderr, "acctd-bench: acctd exited at start; its log:\n");
            while (lf != NULL && fgets(line, sizeof(line), lf) != NULL)
                fprintf(stderr, "  %s", line);
            if (lf != NULL)
                fclose(lf);
            return -1;
        }
        usleep(100000);
    }
    fprintf(stderr, "acctd-bench: acctd did not come up on %s\n", sock);
    return -1;
}

static void stop_acctd(pid_t pid)
{
    char cmd[PATH_MAX + 16];
    if (pid > 0) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
    }
    if (tmpdir[0] != '\0') {
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "acctd-bench: could not remove %s\n", tmpdir);
    }
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: acctd-bench (--acctd PATH | --socket PATH [--pid PID]) [--quick]\n"
            "                   [--clients C] [--samples N] [--batch K] [--calls-per-sample X]\n"
            "                   [--fetches N] [--connect-fetches N] [--pairs P] [--days D]\n"
            "                   [--partition P] [--interconnect I] [--ack-log FILE]\n"
            "                   [--job-base N]\n"
            "                   [ingest] [fetch] [versions]\n");
}

static int parse_pos(const char *s, long max, long *out)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || s[0] == '\0' || v < 1 || v > max)
        return -1;
    *out = v;
    return 0;
}

/* The phases named after the options (none: all three). 0, or -1 (usage printed). */
static int parse_phases(struct opts *o, int n, char **words)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(words[i], "ingest") == 0)
            o->ingest = true;
        else if (strcmp(words[i], "fetch") == 0)
            o->fetch = true;
        else if (strcmp(words[i], "versions") == 0)
            o->versions = true;
        else {
            usage(stderr);
            return -1;
        }
    }
    if (!o->ingest && !o->fetch && !o->versions)
        o->ingest = o->fetch = o->versions = true;
    return 0;
}

/* The command line into o: 0, or the exit code (0 after --help, 2). */
static int parse_args(struct opts *o, int argc, char **argv, bool *done)
{
    static const struct option lopts[] = {
        { "acctd", required_argument, NULL, 'A' },   { "socket", required_argument, NULL, 's' },
        { "pid", required_argument, NULL, 'P' },     { "quick", no_argument, NULL, 'q' },
        { "clients", required_argument, NULL, 'c' }, { "samples", required_argument, NULL, 'n' },
        { "batch", required_argument, NULL, 'b' },   { "calls-per-sample", required_argument, NULL, 'x' },
        { "fetches", required_argument, NULL, 'F' }, { "connect-fetches", required_argument, NULL, 'C' },
        { "pairs", required_argument, NULL, 'p' },   { "days", required_argument, NULL, 'd' },
        { "partition", required_argument, NULL, 'r' }, { "interconnect", required_argument, NULL, 'i' },
        { "ack-log", required_argument, NULL, 'L' }, { "job-base", required_argument, NULL, 'J' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    long clients = 16, samples = 200000, batch = 256, cps = 3, fetches = 10000, cfetches = 2000,
         pairs = 8, days = 365, v;
    bool set_clients = false, set_samples = false, set_fetches = false, set_days = false,
         set_cf = false;
    int ch;

    while ((ch = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
        long *target = NULL, max = 1000000000L;
        switch (ch) {
        case 'A': o->acctd = optarg; continue;
        case 's': o->socket = optarg; continue;
        case 'q': o->quick = true; continue;
        case 'r': o->partition = optarg; continue;
        case 'i': o->interconnect = optarg; continue;
        case 'L': o->ack_log = optarg; continue;
        case 'h': usage(stdout); *done = true; return 0;
        case 'P': target = &o->pid; max = INT_MAX; break;
        case 'J': target = &o->job_base; break;
        case 'c': target = &clients; max = 1024; set_clients = true; break;
        case 'n': target = &samples; set_samples = true; break;
        case 'b': target = &batch; max = ACCT_PROTO_MAX_SAMPLES; break;
        case 'x': target = &cps; max = 1000000; break;
        case 'F': target = &fetches; set_fetches = true; break;
        case 'C': target = &cfetches; set_cf = true; break;
        case 'p': target = &pairs; max = 1000; break;
        case 'd': target = &days; max = 100000; set_days = true; break;
        default: usage(stderr); return 2;
        }
        if (parse_pos(optarg, max, &v) != 0) {
            const char *name = "?";
            for (const struct option *l = lopts; l->name != NULL; l++)
                if (l->val == ch)
                    name = l->name;
            fprintf(stderr, "acctd-bench: --%s: expected 1 to %ld, got \"%s\"\n", name, max,
                    optarg);
            return 2;
        }
        *target = v;
    }
    if (parse_phases(o, argc - optind, argv + optind) != 0)
        return 2;
    if ((o->acctd == NULL) == (o->socket == NULL)) {
        fprintf(stderr, "acctd-bench: give exactly one of --acctd and --socket\n");
        return 2;
    }
    if (o->quick) { /* a smoke run: seconds, not minutes */
        clients = set_clients ? clients : 4;
        samples = set_samples ? samples : 4000;
        fetches = set_fetches ? fetches : 500;
        cfetches = set_cf ? cfetches : 100;
        days = set_days ? days : 5;
    }
    o->clients = (int)clients;
    o->samples = samples;
    o->batch = (int)batch;
    o->count_per_sample = (int)cps;
    o->fetches = fetches;
    o->connect_fetches = cfetches;
    o->pairs = (int)pairs;
    o->days = (int)days;
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o = { .partition = "bench0", .interconnect = "ib" };
    char sock[PATH_MAX];
    pid_t own = -1;
    int rc = 0;
    bool done = false;

    o.job_base = 900000L + (long)getpid() % 10000 * 100; /* distinct per run */
    rc = parse_args(&o, argc, argv, &done);
    if (rc != 0 || done)
        return rc;
    signal(SIGPIPE, SIG_IGN);

    if (o.acctd != NULL) {
        own = start_acctd(o.acctd, sock, sizeof(sock));
        if (own < 0) {
            stop_acctd(-1);
            return 1;
        }
        o.socket = sock;
        o.pid = own;
        printf("acctd-bench: own acctd (pid %ld) on %s\n", (long)own, tmpdir);
    }
    /* versions first: fetch needs a pair (bench0/ib), and the RSS figure is
     * for the store with versions loaded */
    if (o.versions && phase_versions(&o) != 0)
        rc = 1;
    if (o.fetch && phase_fetch(&o) != 0)
        rc = 1;
    if (o.ingest && phase_ingest(&o) != 0)
        rc = 1;
    if (o.pid > 0 && (o.ingest || o.fetch))
        printf("acctd RSS at the end: %.1f MiB (peak %.1f MiB)\n",
               (double)status_kib(o.pid, "VmRSS") / 1024,
               (double)status_kib(o.pid, "VmHWM") / 1024);
    if (own > 0)
        stop_acctd(own);
    return rc;
}
