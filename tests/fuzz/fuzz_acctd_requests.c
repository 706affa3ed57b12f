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

#include "fuzz_acctd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct acctd d;
static char dir[64];

static void cleanup(void) { fuzz_acctd_close(&d, dir); }

static void configure(struct acctd_config *cfg) { cfg->samples_per_job = 1000; }

static void init(void)
{
    fuzz_acctd_open(&d, dir, sizeof(dir), "requests", configure);
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
