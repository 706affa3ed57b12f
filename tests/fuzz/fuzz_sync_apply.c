/* libFuzzer target for a follower's handling of its primary's SYNC replies
 * (daemon/sync.c: sync_split_signed, sync_apply, sync_realign; docs/acctd.md
 * "Multi-node"): network input, checked by the follower after the munge
 * signature (which this target does not need: a primary that signs garbage
 * is the case fuzzed). The store is a real SQLite file that holds version 1
 * of (eth, tcp), active, so that replies can agree with it, diverge from it
 * or leave it behind; every input runs in a savepoint that is undone.
 *
 * Input: one flag byte (bit 0: the reply is the last one, so its active
 * map is applied), then one whole message (header and body). No crash, no
 * leak, no undefined behaviour; a signed split lies inside the body. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_acctd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct acctd d;
static char dir[64];

static const char v1[] = "acct_rules: 1\n"
                         "provenance:\n"
                         "  partition: eth\n"
                         "  interconnect: tcp\n"
                         "  version: 1\n"
                         "  source: manual\n"
                         "  created: \"2026-11-20T10:00:00Z\"\n"
                         "collectives:\n"
                         "  barrier:\n"
                         "    - {comm_size: [2, max], algorithm: dissemination}\n";

static void cleanup(void) { fuzz_acctd_close(&d, dir); }

static void configure(struct acctd_config *cfg)
{
    snprintf(cfg->primary, sizeof(cfg->primary), "127.0.0.1:1");
}

static void init(void)
{
    fuzz_acctd_open(&d, dir, sizeof(dir), "sync", configure);
    d.sync.primary_newest = -1;
    struct store_version v = {.id = 1, .hash = acct_rules_hash(v1, strlen(v1))};
    snprintf(v.partition, sizeof(v.partition), "eth");
    snprintf(v.interconnect, sizeof(v.interconnect), "tcp");
    snprintf(v.source, sizeof(v.source), "manual");
    snprintf(v.created, sizeof(v.created), "2026-11-20T10:00:00Z");
    snprintf(v.reason, sizeof(v.reason), "import");
    v.rules_text = (char *)v1;
    int64_t prev = 0;
    if (acctd_write_begin(&d, NULL) != 0 || store_version_put(d.store, &v) != 0 ||
        store_activate(d.store, 1, "seed", -1, &prev) != 0)
        abort();
    acctd_write_end(&d, true);
    if (acctd_commit_now(&d) != 0)
        abort();
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
    struct acct_msg m;
    if (acct_proto_decode(data + 1, size - 1, ACCT_PROTO_MAX_BODY, &m, NULL, 0) != 0)
        return 0;
    size_t n = 0;
    struct acct_field cred;
    if (sync_split_signed(&m, &n, &cred) == 0 &&
        (cred.tag != ACCT_T_MUNGE_CRED || n + 6 + cred.len != m.len))
        abort();
    bool last = data[0] & 1;
    struct sync_round r = {.newest = -1};
    if (acctd_write_begin(&d, NULL) != 0)
        abort();
    if (sync_apply(&d, &m, last, &r) == 0 && last)
        sync_realign(&d, &r);
    if (r.npairs > r.cap || r.nnew < 0 || r.ndiverged < 0)
        abort();
    acctd_write_end(&d, false); /* the next input sees the seeded store again */
    d.rules_dirty = false;      /* nothing to materialise: all undone */
    if (acctd_commit_now(&d) != 0)
        abort();
    char st[1024];
    sync_status_text(&d, st, sizeof(st));
    sync_round_free(&r);
    return 0;
}
