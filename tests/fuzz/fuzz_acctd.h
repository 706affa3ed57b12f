/* The daemon the acctd fuzz targets drive (fuzz_acctd_requests.c,
 * fuzz_acctd_conn.c, fuzz_sync_apply.c): a struct acctd with the default
 * configuration over a real SQLite store in a fresh temporary directory,
 * quiet, without sockets or policy files. Header-only: each target is built
 * twice (libFuzzer with clang, replay with the project's compiler) from its
 * own source list. */
#ifndef ACCT_FUZZ_ACCTD_H
#define ACCT_FUZZ_ACCTD_H

#include <stdio.h>
#include <stdlib.h>

#include "acctd.h"

/* Makes /tmp/acctd-fuzz-NAME.XXXXXX into dir (at least 64 bytes), lets
 * configure (may be NULL) adjust the defaults, validates them and opens
 * the store. Aborts with a message on any failure: a broken setup. */
static inline void fuzz_acctd_open(struct acctd *d, char *dir, size_t dirlen, const char *name,
                                   void (*configure)(struct acctd_config *))
{
    char err[512];
    snprintf(dir, dirlen, "/tmp/acctd-fuzz-%s.XXXXXX", name);
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        abort();
    }
    acctd_config_defaults(&d->cfg);
    snprintf(d->cfg.state_dir, sizeof(d->cfg.state_dir), "%s", dir);
    snprintf(d->cfg.runtime_dir, sizeof(d->cfg.runtime_dir), "%s", dir);
    snprintf(d->cfg.policy_dir, sizeof(d->cfg.policy_dir), "%s/none", dir);
    if (configure != NULL)
        configure(&d->cfg);
    struct acct_diags dg = ACCT_DIAGS_INIT;
    if (acctd_config_validate(&d->cfg, &dg) != 0) {
        fprintf(stderr, "fuzz_acctd_open: the configuration is invalid\n");
        abort();
    }
    acct_diags_free(&dg);
    acctd_log_init(-1); /* quiet */
    d->listen_fd = d->tcp_fd = -1;
    policy_builtin(&d->policies.dflt);
    d->store = store_open(d->cfg.database, err, sizeof(err));
    if (d->store == NULL) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
}

/* Frees what fuzz_acctd_open and the handlers made, and removes dir. */
static inline void fuzz_acctd_close(struct acctd *d, const char *dir)
{
    char cmd[128];
    rulesdir_fini(d);
    store_close(d->store);
    policy_set_free(&d->policies);
    free(d->rates);
    free(d->urows);
    free(d->outq);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

#endif
