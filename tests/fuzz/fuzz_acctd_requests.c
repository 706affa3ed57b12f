/* libFuzzer target for acctd's request handlers (docs/protocol.md): every
 * input is one message handled by a daemon whose store is a real SQLite file
 * in a temporary directory. The first byte picks the peer: bit 0 = root
 * (admin), bit 1 = an unauthenticated TCP peer. No crash, no leak, no
 * undefined behaviour, and every reply is a valid message with the request's
 * id (or id 0 when the request could not be decoded). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acctd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct acctd d;
static char dir[64];

static void cleanup(void)
{
    char cmd[128];
    rulesdir_fini(&d);
    store_close(d.store);
    policy_set_free(&d.policies);
    free(d.rates);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

static void init(void)
{
    char err[512];
    snprintf(dir, sizeof(dir), "/tmp/acctd-fuzz.XXXXXX");
    if (mkdtemp(dir) == NULL)
        abort();
    acctd_config_defaults(&d.cfg);
    snprintf(d.cfg.state_dir, sizeof(d.cfg.state_dir), "%s", dir);
    snprintf(d.cfg.runtime_dir, sizeof(d.cfg.runtime_dir), "%s", dir);
    snprintf(d.cfg.policy_dir, sizeof(d.cfg.policy_dir), "%s/none", dir);
    d.cfg.samples_per_job = 1000;
    struct acct_diags dg = ACCT_DIAGS_INIT;
    if (acctd_config_validate(&d.cfg, &dg) != 0)
        abort();
    acct_diags_free(&dg);
    acctd_log_init(-1); /* quiet */
    d.listen_fd = d.tcp_fd = -1;
    policy_builtin(&d.policies.dflt);
    d.store = store_open(d.cfg.database, err, sizeof(err));
    if (d.store == NULL) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
    atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int inited;
    if (!inited) {
        init();
        inited = 1;
    }
    if (size < 1)
        return 0;
    struct client c = {.fd = -1, .pid = 1};
    c.admin = data[0] & 1;
    c.uid = c.admin ? 0 : 1000;
    c.gid = c.uid;
    c.tcp = (data[0] & 2) != 0;
    c.max_body = c.admin ? ACCT_PROTO_MAX_BODY : ACCT_PROTO_MAX_USER_BODY;
    struct acct_wbuf out;
    acct_wbuf_init(&out, ACCT_PROTO_MAX_BODY);
    acct_wbuf_start(&out, 0, 0);
    acctd_handle_message(&d, &c, data + 1, size - 1, &out);
    acctd_commit_now(&d);
    struct acct_msg m;
    if (acct_proto_decode(out.p, out.len, ACCT_PROTO_MAX_BODY, &m, NULL, 0) != 0)
        abort(); /* the daemon's own reply must be valid */
    if (m.h.type != ACCT_MSG_ERROR && (m.h.type & ACCT_MSG_REPLY) == 0)
        abort();
    acct_wbuf_free(&out);
    return 0;
}
