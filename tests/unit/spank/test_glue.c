/* Unit test of spank_acct.so itself, without Slurm: this program plays
 * slurmstepd/srun. It exports the spank_* and slurm_* functions the plugin
 * calls (a fake job environment, step ids, option value and log), dlopens the
 * plugin, and drives slurm_spank_init / slurm_spank_user_init through every
 * branch: what is set in the step's environment, and how many log lines of
 * which level come out. slurm_spank_init_post_opt / slurm_spank_exit
 * register the step with a fake acctd (a child process on the socket that
 * answers STEP and reports what it received).
 *
 * usage: test_spank_glue PATH/spank_acct.so */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acct_test.h"

#include "acct/proto.h"

#include <slurm/slurm.h>
#include <slurm/spank.h>

#define EXPORT __attribute__((visibility("default")))

/* ---- the fake host ---------------------------------------------------- */

struct spank_handle {
    int unused;
};

#define ENV_MAX 32
static struct {
    spank_context_t ctx;
    uint32_t job, step;
    uid_t uid;
    const char *optval; /* --acct's value, NULL = not given */
    int fail_items;     /* spank_get_item fails */
    int fail_setenv;    /* spank_setenv fails for names starting with this letter */
    struct spank_option *opt;
    char *env[ENV_MAX]; /* "NAME=value" */
    char log[64][512];
    int nlog, ninfo, nerror;
} host;

static void host_reset(spank_context_t ctx)
{
    for (int i = 0; i < ENV_MAX; i++) {
        free(host.env[i]);
        host.env[i] = NULL;
    }
    host.ctx = ctx;
    host.job = 7;
    host.step = 3;
    host.uid = 1234;
    host.optval = NULL;
    host.fail_items = 0;
    host.fail_setenv = 0;
    host.opt = NULL;
    host.nlog = host.ninfo = host.nerror = 0;
}

static int env_find(const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < ENV_MAX; i++)
        if (host.env[i] != NULL && strncmp(host.env[i], name, n) == 0 && host.env[i][n] == '=')
            return i;
    return -1;
}

static const char *env_get(const char *name)
{
    int i = env_find(name);
    return i < 0 ? NULL : host.env[i] + strlen(name) + 1;
}

static void env_put(const char *name, const char *value)
{
    int i = env_find(name);
    for (int j = 0; i < 0 && j < ENV_MAX; j++)
        if (host.env[j] == NULL)
            i = j;
    if (i < 0)
        abort();
    free(host.env[i]);
    size_t len = strlen(name) + strlen(value) + 2;
    host.env[i] = malloc(len);
    snprintf(host.env[i], len, "%s=%s", name, value);
}

EXPORT spank_context_t spank_context(void)
{
    return host.ctx;
}

EXPORT int spank_remote(spank_t sp)
{
    (void)sp;
    return host.ctx == S_CTX_REMOTE;
}

EXPORT const char *spank_strerror(spank_err_t err)
{
    (void)err;
    return "fake error";
}

EXPORT spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
    (void)sp;
    host.opt = opt;
    return ESPANK_SUCCESS;
}

EXPORT spank_err_t spank_option_getopt(spank_t sp, struct spank_option *opt, char **optarg)
{
    (void)sp;
    if (opt != host.opt || host.optval == NULL)
        return ESPANK_ERROR;
    *optarg = (char *)host.optval;
    return ESPANK_SUCCESS;
}

EXPORT spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
    va_list ap;
    spank_err_t rc = ESPANK_SUCCESS;
    (void)sp;
    va_start(ap, item);
    if (host.fail_items)
        rc = ESPANK_ERROR;
    else if (item == S_JOB_ID)
        *va_arg(ap, uint32_t *) = host.job;
    else if (item == S_JOB_STEPID)
        *va_arg(ap, uint32_t *) = host.step;
    else if (item == S_JOB_UID)
        *va_arg(ap, uid_t *) = host.uid;
    else
        rc = ESPANK_BAD_ARG;
    va_end(ap);
    return rc;
}

/* As Slurm's: ESPANK_ENV_NOEXIST if unset, ESPANK_NOSPACE if it does not fit. */
EXPORT spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len)
{
    (void)sp;
    const char *v = env_get(var);
    if (v == NULL)
        return ESPANK_ENV_NOEXIST;
    if (strlen(v) >= (size_t)len)
        return ESPANK_NOSPACE;
    memcpy(buf, v, strlen(v) + 1);
    return ESPANK_SUCCESS;
}

EXPORT spank_err_t spank_setenv(spank_t sp, const char *var, const char *val, int overwrite)
{
    (void)sp;
    if (host.fail_setenv != 0 && var[0] == host.fail_setenv)
        return ESPANK_ERROR;
    if (!overwrite && env_get(var) != NULL)
        return ESPANK_ENV_EXISTS;
    env_put(var, val);
    return ESPANK_SUCCESS;
}

EXPORT spank_err_t spank_unsetenv(spank_t sp, const char *var)
{
    (void)sp;
    int i = env_find(var);
    if (i >= 0) {
        free(host.env[i]);
        host.env[i] = NULL;
    }
    return ESPANK_SUCCESS;
}

static void logv(int *counter, const char *fmt, va_list ap)
{
    if (host.nlog < 64)
        vsnprintf(host.log[host.nlog], sizeof(host.log[0]), fmt, ap);
    host.nlog++;
    if (counter != NULL)
        (*counter)++;
}

#define FAKE_LOG(name, counter)                                                              \
    EXPORT void name(const char *fmt, ...)                                                   \
    {                                                                                        \
        va_list ap;                                                                          \
        va_start(ap, fmt);                                                                   \
        logv(counter, fmt, ap);                                                              \
        va_end(ap);                                                                          \
    }
FAKE_LOG(slurm_info, &host.ninfo)
FAKE_LOG(slurm_error, &host.nerror)
/* verbose and debug lines do not reach slurmd's log at SlurmdDebug=info. */
EXPORT void slurm_verbose(const char *fmt, ...)
{
    (void)fmt;
}
EXPORT void slurm_debug(const char *fmt, ...)
{
    (void)fmt;
}

/* ---- the scenarios ---------------------------------------------------- */

static spank_f *p_init, *p_user_init, *p_post_opt, *p_exit;
static char dir[64], lib[128], rules_dir[128], rules[192], sock[128], kill_file[128];
static char a_lib[160], a_rules[160], a_sock[160], a_kill[160];
static struct spank_handle handle;

static int run(spank_context_t ctx, int ac, char **av)
{
    int rc = p_init(&handle, ac, av);
    if (rc == 0 && ctx == S_CTX_REMOTE)
        rc = p_user_init(&handle, ac, av);
    return rc;
}

/* A remote step with the test's standard arguments plus extra ones. */
static int step(const char *extra)
{
    char *av[8] = {a_lib, a_rules, a_sock, a_kill, "interconnect_map=eth:tcp-1g", NULL, NULL, NULL};
    int ac = 5;
    if (extra != NULL)
        av[ac++] = (char *)extra;
    host.nlog = host.ninfo = host.nerror = 0;
    return run(S_CTX_REMOTE, ac, av);
}

static void fresh(void)
{
    host_reset(S_CTX_REMOTE);
    env_put("SLURM_JOB_PARTITION", "eth");
}

static int streq(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static int logged(const char *text)
{
    int n = 0;
    for (int i = 0; i < host.nlog && i < 64; i++)
        n += strstr(host.log[i], text) != NULL;
    return n;
}

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL || fclose(f) != 0)
        abort();
}

static void test_on(void **state)
{
    (void)state;
    fresh();
    assert_true(step(NULL) == 0);
    assert_true(streq(env_get("LD_PRELOAD"), lib));
    assert_true(streq(env_get("ACCT_RULES"), rules));
    assert_true(streq(env_get("ACCT_PARTITION"), "eth"));
    assert_true(streq(env_get("ACCT_INTERCONNECT"), "tcp-1g"));
    assert_true(streq(env_get("ACCT_JOB"), "7.3"));
    assert_true(env_get("ACCT_SOCKET") == NULL); /* no socket yet */
    assert_true(env_get("ACCT_DISABLE") == NULL);
    assert_true(host.ninfo == 1 && host.nerror == 0 && logged("job 7.3: acctd socket") == 1);

    /* The user's preloads stay, after libacct; libacct never twice. */
    fresh();
    env_put("LD_PRELOAD", "/u/a.so /u/b.so");
    assert_true(step(NULL) == 0);
    char want[256];
    snprintf(want, sizeof(want), "%s:/u/a.so /u/b.so", lib);
    assert_true(streq(env_get("LD_PRELOAD"), want));
    assert_true(step(NULL) == 0); /* a step inheriting it */
    assert_true(streq(env_get("LD_PRELOAD"), want));
    fresh();
    env_put("LD_PRELOAD", "/home/u/build/lib/libacct.so");
    assert_true(step(NULL) == 0);
    assert_true(streq(env_get("LD_PRELOAD"), "/home/u/build/lib/libacct.so"));
    assert_true(streq(env_get("ACCT_RULES"), rules));

    /* An LD_PRELOAD the plugin cannot hold: left alone, one line. */
    fresh();
    char *big = malloc(9000);
    memset(big, 'x', 8999);
    big[0] = '/';
    big[8999] = '\0';
    env_put("LD_PRELOAD", big);
    free(big);
    assert_true(step(NULL) == 0);
    assert_true(env_get("ACCT_RULES") == NULL && strlen(env_get("LD_PRELOAD")) == 8999);
    assert_true(host.ninfo == 1 && logged("cannot read LD_PRELOAD") == 1);

    /* The socket exists: passed on, nothing logged. */
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    assert_true(strlen(sock) < sizeof(sa.sun_path));
    memcpy(sa.sun_path, sock, strlen(sock) < sizeof(sa.sun_path) ? strlen(sock) + 1 : 0);
    assert_true(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
    fresh();
    assert_true(step(NULL) == 0);
    assert_true(streq(env_get("ACCT_SOCKET"), sock) && streq(env_get("LD_PRELOAD"), lib));
    assert_true(host.nlog == 0);
    close(fd);
    unlink(sock);
}

static void test_off(void **state)
{
    (void)state;
    /* --acct=off: ACCT_DISABLE=1, nothing else, no log line. */
    fresh();
    host.optval = "off";
    assert_true(step(NULL) == 0);
    assert_true(streq(env_get("ACCT_DISABLE"), "1") && env_get("LD_PRELOAD") == NULL &&
          env_get("ACCT_RULES") == NULL);
    assert_true(host.nlog == 0);

    /* The environment says off: left as it is. */
    fresh();
    env_put("ACCT_DISABLE", "yes");
    assert_true(step(NULL) == 0);
    assert_true(streq(env_get("ACCT_DISABLE"), "yes") && env_get("LD_PRELOAD") == NULL);
    assert_true(host.nlog == 0);
    fresh();
    env_put("ACCT", "off");
    assert_true(step(NULL) == 0);
    assert_true(env_get("LD_PRELOAD") == NULL && host.nlog == 0);

    /* Not a boolean (or too long to be one): off, one line. */
    fresh();
    env_put("ACCT_DISABLE", "perhaps");
    assert_true(step(NULL) == 0);
    assert_true(env_get("LD_PRELOAD") == NULL && host.ninfo == 1 && logged("not on/off") == 1);
    fresh();
    env_put("ACCT_DISABLE",
            "0                                                                          ");
    assert_true(step(NULL) == 0);
    assert_true(env_get("LD_PRELOAD") == NULL && host.ninfo == 1);

    /* --acct=on beats the environment, which libacct is made to agree with. */
    fresh();
    host.optval = "on";
    env_put("ACCT_DISABLE", "1");
    env_put("ACCT", "off");
    assert_true(step(NULL) == 0);
    assert_true(streq(env_get("LD_PRELOAD"), lib) && env_get("ACCT_DISABLE") == NULL &&
          env_get("ACCT") == NULL);

    /* default=off: opt-in through the environment or the option. */
    fresh();
    assert_true(step("default=off") == 0);
    assert_true(env_get("LD_PRELOAD") == NULL && host.nlog == 0);
    env_put("ACCT", "on");
    assert_true(step("default=off") == 0);
    assert_true(streq(env_get("LD_PRELOAD"), lib));

    /* The kill switch beats everything, with one line. */
    touch(kill_file);
    fresh();
    host.optval = "on";
    assert_true(step(NULL) == 0);
    assert_true(env_get("LD_PRELOAD") == NULL && streq(env_get("ACCT_DISABLE"), "1"));
    assert_true(host.ninfo == 1 && logged("kill switch") == 1);
    fresh();
    assert_true(step("killswitch=") == 0); /* check switched off */
    assert_true(streq(env_get("LD_PRELOAD"), lib));
    unlink(kill_file);
}

static void test_missing(void **state)
{
    (void)state;
    /* Each missing piece: nothing set, exactly one info line naming it. */
    struct {
        const char *what, *partition, *extra, *text;
    } cases[] = {
        {"no partition", NULL, NULL, "partition \"\" unknown"},
        {"bad partition", "../etc", NULL, "partition \"../etc\" unknown"},
        {"no interconnect", "fast", NULL, "no interconnect configured for partition fast"},
        {"no rules", "eth", "rules_dir=/nonexistent",
         "rules file /nonexistent/eth/tcp-1g.yaml: No such file"},
        {"no lib", "eth", "lib=/nonexistent/libacct.so", "/nonexistent/libacct.so: No such file"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        host_reset(S_CTX_REMOTE);
        if (cases[i].partition != NULL)
            env_put("SLURM_JOB_PARTITION", cases[i].partition);
        assert_true(step(cases[i].extra) == 0);
        assert_true(env_get("LD_PRELOAD") == NULL && env_get("ACCT_RULES") == NULL &&
              env_get("ACCT_JOB") == NULL);
        if (host.ninfo != 1 || logged(cases[i].text) != 1)
            fprintf(stderr, "  case %s: got \"%s\"\n", cases[i].what, host.log[0]);
        assert_true(host.ninfo == 1 && host.nerror == 0 && logged(cases[i].text) == 1);
    }
    /* The interconnect= fallback covers other partitions. */
    host_reset(S_CTX_REMOTE);
    env_put("SLURM_JOB_PARTITION", "fast");
    char fast_dir[200];
    snprintf(fast_dir, sizeof(fast_dir), "%s/fast", rules_dir);
    assert_true(mkdir(fast_dir, 0755) == 0);
    char fast_rules[240];
    snprintf(fast_rules, sizeof(fast_rules), "%s/other.yaml", fast_dir);
    touch(fast_rules);
    assert_true(step("interconnect=other") == 0);
    assert_true(streq(env_get("ACCT_RULES"), fast_rules) &&
          streq(env_get("ACCT_INTERCONNECT"), "other"));
    /* A rules "file" that is a directory. */
    unlink(fast_rules);
    assert_true(mkdir(fast_rules, 0755) == 0);
    host_reset(S_CTX_REMOTE);
    env_put("SLURM_JOB_PARTITION", "fast");
    assert_true(step("interconnect=other") == 0);
    assert_true(env_get("LD_PRELOAD") == NULL && logged("not a regular file") == 1);
    rmdir(fast_rules);
    rmdir(fast_dir);
}

static void test_host_failures(void **state)
{
    (void)state;
    /* Slurm cannot tell the ids: nothing done, one error, step not failed. */
    fresh();
    host.fail_items = 1;
    assert_true(step(NULL) == 0);
    assert_true(env_get("LD_PRELOAD") == NULL && host.nerror == 1 && logged("job and step ids") == 1);
    /* spank_setenv fails half-way: never a preload without ACCT_RULES & co. */
    fresh();
    host.fail_setenv = 'A';
    assert_true(step(NULL) == 0);
    assert_true(env_get("LD_PRELOAD") == NULL && host.nerror == 1 &&
          logged("cannot set ACCT_RULES") == 1);
    fresh();
    host.fail_setenv = 'L';
    assert_true(step(NULL) == 0);
    assert_true(env_get("LD_PRELOAD") == NULL && streq(env_get("ACCT_RULES"), rules) &&
          logged("cannot set LD_PRELOAD") == 1);
}

static void test_steps(void **state)
{
    (void)state;
    uint32_t skipped[] = {SLURM_EXTERN_CONT, SLURM_INTERACTIVE_STEP, SLURM_PENDING_STEP};
    for (size_t i = 0; i < 3; i++) {
        fresh();
        host.step = skipped[i];
        assert_true(step(NULL) == 0);
        assert_true(env_get("LD_PRELOAD") == NULL && host.nlog == 0);
    }
    fresh();
    host.step = SLURM_BATCH_SCRIPT;
    assert_true(step(NULL) == 0);
    assert_true(streq(env_get("ACCT_JOB"), "7.batch") && streq(env_get("LD_PRELOAD"), lib));
    fresh();
    host.step = SLURM_BATCH_SCRIPT;
    assert_true(step("batch_step=off") == 0);
    assert_true(env_get("LD_PRELOAD") == NULL && env_get("ACCT_JOB") == NULL);
    fresh();
    host.step = SLURM_BATCH_SCRIPT;
    host.optval = "off"; /* sbatch --acct=off still tells the job's steps */
    assert_true(step("batch_step=off") == 0);
    assert_true(streq(env_get("ACCT_DISABLE"), "1"));
}

/* ---- step registration with a fake acctd ------------------------------- */

/* A fake acctd on sock: a child that answers n requests (STEP_REPLY, or
 * ERROR PERMISSION if refuse) and writes one line per request to the pipe
 * it returns: "JOB UID PARTITION INTERCONNECT STEP_END". */
static pid_t fake_acctd(int n, int refuse, int *rd)
{
    int lfd = socket(AF_UNIX, SOCK_STREAM, 0), p[2];
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    memcpy(sa.sun_path, sock, strlen(sock) + 1);
    unlink(sock);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(lfd, 8) != 0 ||
        pipe(p) != 0)
        abort();
    pid_t pid = fork();
    if (pid < 0)
        abort();
    if (pid > 0) {
        close(lfd);
        close(p[1]);
        *rd = p[0];
        return pid;
    }
    close(p[0]);
    alarm(20);
    for (int i = 0; i < n; i++) {
        int fd = accept(lfd, NULL, NULL);
        uint8_t buf[4096];
        size_t len = 0;
        struct acct_hdr h;
        long total = 0;
        while (fd >= 0 && (total == 0 || len < (size_t)total)) {
            ssize_t k = read(fd, buf + len, sizeof(buf) - len);
            if (k <= 0)
                _exit(1);
            len += (size_t)k;
            if (total == 0 && len >= ACCT_PROTO_HEADER)
                total = acct_proto_frame(buf, len, sizeof(buf), &h);
            if (total < 0)
                _exit(1);
        }
        struct acct_msg m;
        char why[128], job[64] = "", part[64] = "-", ic[64] = "-", line[300];
        uint64_t uid = 0, end = 0;
        if (fd < 0 || acct_proto_decode(buf, len, sizeof(buf), &m, why, sizeof(why)) != 0)
            _exit(1);
        (void)acct_get_str(m.body, m.len, ACCT_T_JOB, job, sizeof(job));
        (void)acct_get_str(m.body, m.len, ACCT_T_PARTITION, part, sizeof(part));
        (void)acct_get_str(m.body, m.len, ACCT_T_INTERCONNECT, ic, sizeof(ic));
        (void)acct_get_u64(m.body, m.len, ACCT_T_UID, &uid);
        (void)acct_get_u64(m.body, m.len, ACCT_T_STEP_END, &end);
        int ll = snprintf(line, sizeof(line), "%s %s %llu %s %s %llu\n",
                          acct_msg_type_name(m.h.type), job, (unsigned long long)uid, part, ic,
                          (unsigned long long)end);
        if (write(p[1], line, (size_t)ll) != ll)
            _exit(1);
        struct acct_wbuf w;
        acct_wbuf_init(&w, ACCT_PROTO_MAX_USER_BODY);
        if (refuse) {
            acct_put_error(&w, m.h.id, ACCT_ERR_PERMISSION, "STEP: needs root");
        } else {
            acct_wbuf_start(&w, ACCT_MSG_STEP | ACCT_MSG_REPLY, m.h.id);
            acct_put_str(&w, ACCT_T_JOB, job);
        }
        if (acct_wbuf_finish(&w) != 0 || write(fd, w.p, w.len) != (ssize_t)w.len)
            _exit(1);
        acct_wbuf_free(&w);
        close(fd);
    }
    _exit(0);
}

/* What the fake acctd received (all of it, after it exited), into buf. */
static void fake_done(pid_t pid, int rd, char *buf, size_t cap)
{
    size_t n = 0;
    ssize_t k;
    int st;
    while (n + 1 < cap && (k = read(rd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)k;
    buf[n] = '\0';
    close(rd);
    assert_true(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    unlink(sock);
}

/* A remote step through every hook: init, init_post_opt, user_init, exit. */
static int whole_step(const char *extra)
{
    char *av[8] = {a_lib, a_rules, a_sock, a_kill, "interconnect_map=eth:tcp-1g", NULL, NULL, NULL};
    int ac = 5;
    if (extra != NULL)
        av[ac++] = (char *)extra;
    host.nlog = host.ninfo = host.nerror = 0;
    int rc = p_init(&handle, ac, av);
    rc |= p_post_opt(&handle, ac, av);
    rc |= p_user_init(&handle, ac, av);
    rc |= p_exit(&handle, ac, av);
    return rc;
}

static void test_register(void **state)
{
    (void)state;
    char got[1024];
    int rd;
    /* A normal step: registered before the tasks, ended after; no log line. */
    fresh();
    pid_t pid = fake_acctd(2, 0, &rd);
    assert_true(whole_step(NULL) == 0);
    fake_done(pid, rd, got, sizeof(got));
    if (!streq(got, "STEP 7.3 1234 eth tcp-1g 0\nSTEP 7.3 1234 - - 1\n"))
        fprintf(stderr, "  fake acctd got: %s", got);
    assert_true(streq(got, "STEP 7.3 1234 eth tcp-1g 0\nSTEP 7.3 1234 - - 1\n"));
    assert_true(host.nlog == 0 && streq(env_get("ACCT_SOCKET"), sock));
    /* The batch step registers as JOBID.batch, like its ACCT_JOB. */
    fresh();
    host.step = SLURM_BATCH_SCRIPT;
    host.uid = 99;
    pid = fake_acctd(2, 0, &rd);
    assert_true(whole_step(NULL) == 0);
    fake_done(pid, rd, got, sizeof(got));
    assert_true(streq(got, "STEP 7.batch 99 eth tcp-1g 0\nSTEP 7.batch 99 - - 1\n"));
    assert_true(streq(env_get("ACCT_JOB"), "7.batch"));
    /* acctd refuses: one info line, the step still gets ACCT, no end sent. */
    fresh();
    pid = fake_acctd(1, 1, &rd);
    assert_true(whole_step(NULL) == 0);
    fake_done(pid, rd, got, sizeof(got));
    assert_true(streq(got, "STEP 7.3 1234 eth tcp-1g 0\n"));
    assert_true(host.ninfo == 1 && logged("job 7.3: cannot register the step with acctd (acctd "
                                    "refused: STEP: needs root)") == 1);
    assert_true(streq(env_get("LD_PRELOAD"), lib));
    /* Nobody listens on the socket: one line, no wait. */
    fresh();
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    memcpy(sa.sun_path, sock, strlen(sock) + 1);
    assert_true(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
    assert_true(whole_step(NULL) == 0);
    assert_true(host.ninfo == 1 && logged("cannot register the step with acctd") == 1);
    close(fd);
    unlink(sock);
    /* No socket, the extern step, a partition without interconnect: no
     * request (and the existing user_init line only). */
    fresh();
    assert_true(whole_step(NULL) == 0 && host.ninfo == 1 && logged("acctd socket") == 1);
    fresh();
    host.step = SLURM_EXTERN_CONT;
    pid = fake_acctd(0, 0, &rd);
    assert_true(whole_step(NULL) == 0 && host.nlog == 0);
    fake_done(pid, rd, got, sizeof(got));
    assert_true(streq(got, ""));
    fresh();
    env_put("SLURM_JOB_PARTITION", "fast");
    pid = fake_acctd(0, 0, &rd);
    assert_true(whole_step(NULL) == 0);
    fake_done(pid, rd, got, sizeof(got));
    assert_true(streq(got, ""));
}

static void test_contexts(void **state)
{
    (void)state;
    char *bogus[] = {"colour=blue", "lib=relative"};
    /* Remote: configuration problems are logged, one error each, not fatal. */
    fresh();
    assert_true(run(S_CTX_REMOTE, 2, bogus) == 0);
    assert_true(host.nerror == 2 && logged("plugstack.conf argument 1 (colour=blue)") == 1);
    /* srun/sbatch: --acct registered, configuration not read (no lines on
     * the user's terminal), a bad value refused there, never on the node. */
    spank_context_t local[] = {S_CTX_LOCAL, S_CTX_ALLOCATOR};
    for (int i = 0; i < 2; i++) {
        host_reset(local[i]);
        assert_true(run(local[i], 2, bogus) == 0);
        assert_true(host.nlog == 0 && host.opt != NULL);
        assert_true(host.opt != NULL && strcmp(host.opt->name, "acct") == 0 && host.opt->has_arg == 1);
        assert_true(host.opt != NULL && host.opt->cb(host.opt->val, "off", 0) == 0);
        assert_true(host.opt != NULL && host.opt->cb(host.opt->val, "ON", 0) == 0);
        assert_true(host.opt != NULL && host.opt->cb(host.opt->val, "maybe", 0) != 0);
        assert_true(host.opt != NULL && host.opt->cb(host.opt->val, NULL, 0) != 0);
        assert_true(host.opt != NULL && host.opt->cb(host.opt->val, "maybe", 1) == 0);
        assert_true(p_user_init(&handle, 0, NULL) == 0 && host.env[0] == NULL);
    }
    /* Job script and slurmd contexts: nothing at all. */
    host_reset(S_CTX_SLURMD);
    assert_true(run(S_CTX_SLURMD, 2, bogus) == 0 && host.nlog == 0 && host.opt == NULL);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_spank_glue SPANK_ACCT_SO\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    p_init = (spank_f *)(uintptr_t)dlsym(h, "slurm_spank_init");
    p_user_init = (spank_f *)(uintptr_t)dlsym(h, "slurm_spank_user_init");
    p_post_opt = (spank_f *)(uintptr_t)dlsym(h, "slurm_spank_init_post_opt");
    p_exit = (spank_f *)(uintptr_t)dlsym(h, "slurm_spank_exit");
    const char *type = dlsym(h, "plugin_type");
    if (p_init == NULL || p_user_init == NULL || type == NULL || strcmp(type, "spank") != 0 ||
        p_post_opt == NULL || p_exit == NULL) {
        fprintf(stderr, "%s: no slurm_spank_init/_user_init/_init_post_opt/_exit, or plugin_type "
                        "is not \"spank\"\n", argv[1]);
        return 1;
    }

    snprintf(dir, sizeof(dir), "/tmp/spank-glue-XXXXXX");
    if (mkdtemp(dir) == NULL)
        return 1;
    snprintf(lib, sizeof(lib), "%s/libacct.so", dir);
    snprintf(rules_dir, sizeof(rules_dir), "%s/rules", dir);
    snprintf(rules, sizeof(rules), "%s/eth/tcp-1g.yaml", rules_dir);
    snprintf(sock, sizeof(sock), "%s/acctd.sock", dir);
    snprintf(kill_file, sizeof(kill_file), "%s/disable", dir);
    snprintf(a_lib, sizeof(a_lib), "lib=%s", lib);
    snprintf(a_rules, sizeof(a_rules), "rules_dir=%s", rules_dir);
    snprintf(a_sock, sizeof(a_sock), "socket=%s", sock);
    snprintf(a_kill, sizeof(a_kill), "killswitch=%s", kill_file);
    char eth_dir[160];
    snprintf(eth_dir, sizeof(eth_dir), "%s/eth", rules_dir);
    if (mkdir(rules_dir, 0755) != 0 || mkdir(eth_dir, 0755) != 0)
        return 1;
    touch(lib);
    touch(rules);

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_on),       cmocka_unit_test(test_off),
        cmocka_unit_test(test_missing),  cmocka_unit_test(test_steps),
        cmocka_unit_test(test_host_failures), cmocka_unit_test(test_contexts),
        cmocka_unit_test(test_register),
    };
    int failed = cmocka_run_group_tests_name("test_spank_glue", tests, NULL, NULL);

    unlink(rules);
    unlink(lib);
    rmdir(eth_dir);
    rmdir(rules_dir);
    rmdir(dir);
    host_reset(S_CTX_ERROR);
    dlclose(h);
    return failed == 0 ? 0 : 1;
}
