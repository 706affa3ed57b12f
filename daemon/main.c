/* acctd(8): the ACCT node daemon (docs/acctd.md).
 *
 * main() is the table of contents: configuration (defaults -> command line
 * -> file -> validate), then each part initialised in order and finalised in
 * reverse. Signal handlers only set flags; the loop acts on them between
 * rounds, so SIGTERM lets the current round's transaction commit first. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acctd.h"

static volatile sig_atomic_t got_term, got_hup;

static void on_term(int sig)
{
    (void)sig;
    got_term = 1;
}

static void on_hup(int sig)
{
    (void)sig;
    got_hup = 1;
}

/* Signals stay blocked except inside ppoll() (server.c), so a signal is
 * never lost between checking the flags and sleeping. */
static int signals_init(void)
{
    struct sigaction sa = {0};
    sigset_t set;
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_term;
    if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0)
        return -1;
    sa.sa_handler = on_hup;
    if (sigaction(SIGHUP, &sa, NULL) != 0)
        return -1;
    sa.sa_handler = SIG_IGN;
    if (sigaction(SIGPIPE, &sa, NULL) != 0)
        return -1;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    return sigprocmask(SIG_BLOCK, &set, NULL);
}

static int config_init(struct acctd *d, int argc, char **argv, int *exit_code)
{
    struct acct_diags dg = ACCT_DIAGS_INIT;
    int rc = -1;
    acctd_config_defaults(&d->cfg);
    int r = acctd_config_cmdline(&d->cfg, argc, argv);
    if (r != 0) {
        *exit_code = r > 0 ? 0 : 2;
        goto out;
    }
    if (acctd_config_file(&d->cfg, &dg) != 0 || acctd_config_validate(&d->cfg, &dg) != 0) {
        acct_diags_print(&dg, stderr);
        fprintf(stderr, "acctd: invalid configuration\n");
        *exit_code = 1;
        goto out;
    }
    acctd_log_init(d->cfg.log_level);
    rc = 0;
out:
    acct_diags_free(&dg);
    return rc;
}

static int policies_init(struct acctd *d)
{
    struct acct_diags dg = ACCT_DIAGS_INIT;
    int rc = policy_load(d->cfg.policy_dir, &d->policies, &dg);
    /* each message is a whole "FILE:LINE:COLUMN: FIELD: message" line */
    for (size_t i = 0; i < dg.n; i++)
        LOG_E("policy: %s", dg.v[i].msg);
    if (dg.total > dg.n)
        LOG_E("policy: %zu more errors not shown", dg.total - dg.n);
    acct_diags_free(&dg);
    return rc;
}

/* One acctd per state directory: a write lock (fcntl) on
 * STATE_DIR/acctd.lock, held until exit (the kernel drops it even after
 * kill -9). A second acctd on the same state directory refuses to start and
 * names the holder. The file also holds the holder's pid, for people. */
static int lock_init(struct acctd *d)
{
    char path[ACCTD_PATH_MAX + 16];
    if (acctd_mkdir_p(d->cfg.state_dir, 0750) != 0) {
        LOG_E("cannot create %s: %s", d->cfg.state_dir, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof(path), "%s/acctd.lock", d->cfg.state_dir);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        LOG_E("cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(fd, F_SETLK, &fl) != 0) {
        int err = errno;
        struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        if ((err == EACCES || err == EAGAIN) && fcntl(fd, F_GETLK, &who) == 0 &&
            who.l_type != F_UNLCK)
            LOG_E("another acctd (pid %ld) holds %s: it serves the state directory %s; "
                  "refusing to start a second one on it",
                  (long)who.l_pid, path, d->cfg.state_dir);
        else
            LOG_E("cannot lock %s: %s", path, strerror(err == EAGAIN ? EACCES : err));
        close(fd);
        return -1;
    }
    char pid[32];
    int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n)
        LOG_W("%s: cannot record the pid: %s", path, strerror(errno));
    d->lock_fd = fd;
    return 0;
}

static int store_init(struct acctd *d)
{
    char err[1024];
    if (acctd_mkdir_p(d->cfg.state_dir, 0750) != 0) {
        LOG_E("cannot create %s: %s", d->cfg.state_dir, strerror(errno));
        return -1;
    }
    d->store = store_open(d->cfg.database, err, sizeof(err));
    if (d->store == NULL) {
        LOG_E("%s", err);
        return -1;
    }
    /* STATUS reports it without scanning the statistics each time */
    d->samples_total = store_count_samples(d->store);
    /* the rows each uid holds, for sample_rows_per_user */
    if (quota_load(d) != 0) {
        LOG_E("%s: cannot count the sample rows per user: %s", d->cfg.database,
              store_errmsg(d->store));
        return -1;
    }
    /* from now on a lock of another process never holds up the loop: write
     * requests wait for it in the loop (server.c), reads do not need it */
    store_set_busy_timeout(d->store, ACCTD_BUSY_TIMEOUT_MS);
    LOG_I("store %s: schema version %d", d->cfg.database, store_schema(d->store));
    return 0;
}

static int runtime_init(struct acctd *d)
{
    if (acctd_mkdir_p(d->cfg.runtime_dir, 0755) != 0) {
        LOG_E("cannot create %s: %s", d->cfg.runtime_dir, strerror(errno));
        return -1;
    }
    /* the rules files of the active versions, before anybody asks */
    return rulesdir_sync(d);
}

/* SIGHUP / RELOAD: re-read the config file (paths and the socket stay as
 * they are until a restart) and the policies. A bad file keeps the old. */
static int saved_argc;
static char **saved_argv;

static int reload(struct acctd *d)
{
    struct acctd_config n;
    struct acct_diags dg = ACCT_DIAGS_INIT;
    int rc = -1;
    /* the same order as at start: defaults, command line, file, validate */
    acctd_config_defaults(&n);
    if (acctd_config_cmdline(&n, saved_argc, saved_argv) != 0)
        goto out;
    if (acctd_config_file(&n, &dg) != 0 || acctd_config_validate(&n, &dg) != 0) {
        for (size_t i = 0; i < dg.n; i++) {
            char line[ACCT_DIAG_MSG_MAX + ACCT_DIAG_FIELD_MAX + 4200];
            acct_diag_format(&dg, i, line, sizeof(line));
            LOG_E("reload: %s", line);
        }
        LOG_E("reload: configuration invalid; keeping the old one");
        goto out;
    }
    /* these need a restart */
    memcpy(n.state_dir, d->cfg.state_dir, sizeof(n.state_dir));
    memcpy(n.runtime_dir, d->cfg.runtime_dir, sizeof(n.runtime_dir));
    memcpy(n.database, d->cfg.database, sizeof(n.database));
    memcpy(n.socket, d->cfg.socket, sizeof(n.socket));
    memcpy(n.rules_dir, d->cfg.rules_dir, sizeof(n.rules_dir));
    d->cfg = n;
    acctd_log_set_level(d->cfg.log_level);
    if (policies_init(d) != 0) {
        LOG_E("reload: policies invalid; keeping the old ones");
        goto out;
    }
    rulesdir_sync(d);
    LOG_I("configuration reloaded");
    rc = 0;
out:
    acct_diags_free(&dg);
    return rc;
}

int main(int argc, char **argv)
{
    static struct acctd d;
    int exit_code = 1;
    d.listen_fd = -1;
    d.tcp_fd = -1;
    d.lock_fd = -1;
    d.started = time(NULL);
    d.last_refine = d.started;
    saved_argc = argc;
    saved_argv = argv;
    acctd_log_init(2);
    if (config_init(&d, argc, argv, &exit_code) != 0)
        return exit_code;
    if (policies_init(&d) != 0)
        goto out_policies;
    if (d.cfg.check_only) {
        printf("acctd: configuration %s ok\n", d.cfg.config_file);
        exit_code = 0;
        goto out_policies;
    }
    if (signals_init() != 0) {
        LOG_E("signals: %s", strerror(errno));
        goto out_policies;
    }
    if (lock_init(&d) != 0)
        goto out_policies;
    if (store_init(&d) != 0)
        goto out_lock;
    if (runtime_init(&d) != 0)
        goto out_store;
    if (server_init(&d) != 0)
        goto out_runtime;
    if (sync_listen_init(&d) != 0)
        goto out_server;
    LOG_I("acctd %s ready on %s (store %s, rules %s)", ACCT_VERSION_STRING, d.cfg.socket,
          d.cfg.database, d.cfg.rules_dir);
    acctd_notify("READY=1\nSTATUS=serving");
    if (server_run(&d, (volatile int *)&got_term, (volatile int *)&got_hup, reload) == 0)
        exit_code = 0;
    acctd_notify("STOPPING=1");
    LOG_I("stopping");
    sync_fini(&d);
out_server:
    server_fini(&d);
out_runtime:
    rulesdir_fini(&d);
out_store:
    store_close(d.store);
out_lock:
    if (d.lock_fd >= 0)
        close(d.lock_fd); /* last: the next acctd may start now */
out_policies:
    policy_set_free(&d.policies);
    free(d.rates);
    free(d.urows);
    free(d.outq);
    return exit_code;
}
