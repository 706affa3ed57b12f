/* Multi-node sync (sync.c): the follower's view of its primary and the
 * parts of a SYNC reply's handling that the fuzzer drives directly
 * (tests/fuzz/fuzz_sync_apply.c). docs/acctd.md "Multi-node" and "Security
 * model", docs/protocol.md "TCP". */
#ifndef ACCTD_SYNC_H
#define ACCTD_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "acct/proto.h"
#include "acct/rules.h"

#define SYNC_PROTO 2        /* the sync protocol: mutual auth, signed messages */
#define SYNC_NONCE_HEX 64   /* 32 random bytes as hex */

struct acctd;
struct client;

/* A follower's view of its primary (STATUS SYNC_STATE). */
struct sync_status {
    time_t last_ok;          /* end of the last complete sync (0: none yet) */
    int64_t primary_newest;  /* the primary's newest version id (-1: not known) */
    int64_t ahead_n;         /* versions here above the primary's newest ... */
    int64_t ahead_max;       /* ... up to this id */
    int64_t ndiverged;       /* versions whose id the primary uses for other content */
    int64_t first_diverged;
    int64_t unmatched;       /* pairs left without an active version: see docs */
    char error[256];         /* why the last attempt failed; "" if it did not */
};

/* One pair of the primary's active map. */
struct sync_pair {
    char partition[ACCT_RULES_NAME_MAX + 1], interconnect[ACCT_RULES_NAME_MAX + 1];
    int64_t version;
    uint64_t hash;
    bool has_hash;
};

/* What the SYNC replies of one sync brought. */
struct sync_round {
    int nnew;                /* versions stored */
    int64_t last_id;         /* the highest version id received */
    int64_t newest;          /* NEWEST of the last reply (-1: absent) */
    int64_t ndiverged, first_diverged;
    struct sync_pair *pairs; /* the active map of the last reply */
    size_t npairs, cap;
};

/* Store the versions of one (verified) SYNC reply inside the caller's
 * transaction; with last, keep its active map in r. A version that is not a
 * valid rules file of its pair and id, or whose hash is wrong, fails the
 * whole reply (-1); one whose id this store holds with other content is
 * counted as diverged and skipped. 0 or -1 (logged). */
int sync_apply(struct acctd *d, const struct acct_msg *m, bool last, struct sync_round *r);
/* Make the active map match r->pairs: activate the primary's version of
 * each pair if this store holds it with the same content, else leave the
 * pair without an active version; deactivate the pairs the primary has no
 * active version for. Sets d->rules_dirty when something changed. Returns
 * the pairs left without the primary's version, or -1. */
int sync_realign(struct acctd *d, const struct sync_round *r);
void sync_round_free(struct sync_round *r);

/* A signed message: its last top-level field must be MUNGE_CRED; the
 * signature covers the body bytes before it (*signed_len). 0, or -1. */
int sync_split_signed(const struct acct_msg *m, size_t *signed_len, struct acct_field *cred);

/* Primary: may a TCP follower send this request type? */
bool sync_tcp_allowed(unsigned type);
/* Primary: check the signature of a follower's request (type allowed,
 * request id increasing, credential of root binding this connection's
 * nonce and the body). 0, or -1 with a PERMISSION error in out. */
int sync_check_request(struct acctd *d, struct client *c, const struct acct_msg *m,
                       struct acct_wbuf *out);
/* Primary: sign the reply in out (not finished) to a follower. 0 or -1. */
int sync_sign_reply(struct acctd *d, struct client *c, const struct acct_msg *m,
                    struct acct_wbuf *out);
/* Follower: one line for STATUS. */
void sync_status_text(const struct acctd *d, char *buf, size_t cap);

#endif
