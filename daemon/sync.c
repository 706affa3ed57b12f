/* Multi-node: one primary acctd per cluster owns the decisions; followers
 * copy its versions and its active map (docs/acctd.md, "Multi-node" and
 * "Security model"; docs/protocol.md, "TCP").
 *
 *   primary:  `listen: ADDR:PORT` opens a TCP socket next to the Unix one.
 *             A TCP peer has no SO_PEERCRED: primary and follower prove to
 *             each other with munge that they run as root (AUTH in two
 *             steps, credentials bound to both sides' fresh nonces); then
 *             every message carries a credential that signs it. A follower
 *             may send SYNC and SAMPLES only. SYNC(VERSION = since) answers
 *             the versions after it (verbatim: same ids, same texts), the
 *             active map and the newest id.
 *   follower: `primary: HOST:PORT`. Every sync_interval seconds it connects,
 *             authenticates (the primary first), SYNCs until nothing more,
 *             stores the versions and activates what the primary has active
 *             if it holds the same content; then it forwards the samples
 *             its jobs sent (sample_outbox) with their uids. It refuses
 *             changes of its own (IMPORT, ACTIVATE, ... answer CONFLICT).
 * Versions are immutable and carry their ids, so replaying is idempotent. A
 * follower ahead of its primary (ids above its newest) asks from what the
 * primary can have; a version id it holds with other content (diverged) is
 * reported, and a pair whose active version it cannot match is left without
 * one. Both show in STATUS (SYNC_STATE). */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef ACCTD_HAVE_MUNGE
#include <munge.h>
#endif

#include "acctd.h"
#include "sha256.h"

#define SYNC_BATCH 200      /* versions per SYNC reply */
#define SYNC_TIMEOUT_MS 2000

/* Split "HOST:PORT" (host may be [v6]). */
static int split_hostport(const char *hp, char *host, size_t hl, char *port, size_t pl)
{
    const char *colon = strrchr(hp, ':');
    if (colon == NULL)
        return -1;
    const char *h = hp;
    size_t n = (size_t)(colon - hp);
    if (n >= 2 && h[0] == '[' && h[n - 1] == ']') {
        h++;
        n -= 2;
    }
    if (n == 0 || n >= hl || strlen(colon + 1) >= pl)
        return -1;
    memcpy(host, h, n);
    host[n] = '\0';
    snprintf(port, pl, "%s", colon + 1);
    return 0;
}

/* ---- primary ------------------------------------------------------------------ */

int sync_listen_init(struct acctd *d)
{
    char host[256], port[16];
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *ai = NULL;
    int rc = -1, one = 1;
    d->tcp_fd = -1;
    d->sync.primary_newest = -1; /* a follower learns it from its first sync */
    if (d->cfg.listen[0] == '\0')
        return 0;
    if (split_hostport(d->cfg.listen, host, sizeof(host), port, sizeof(port)) != 0 ||
        getaddrinfo(host, port, &hints, &ai) != 0 || ai == NULL) {
        LOG_E("listen: cannot resolve \"%s\"", d->cfg.listen);
        goto out;
    }
    d->tcp_fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (d->tcp_fd < 0 || setsockopt(d->tcp_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        bind(d->tcp_fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(d->tcp_fd, 64) != 0) {
        LOG_E("listen %s: %s", d->cfg.listen, strerror(errno));
        goto out;
    }
    LOG_I("primary: accepting munge-authenticated followers on %s", d->cfg.listen);
    if (atoi(port) >= 1024)
        LOG_W("listen: port %s is not privileged: a local user can take it while acctd is "
              "down, and then this acctd cannot start (followers keep their state and trust "
              "nothing it says; docs/acctd.md, \"Security model\"); prefer a port below 1024",
              port);
    rc = 0;
out:
    if (ai != NULL)
        freeaddrinfo(ai);
    if (rc != 0 && d->tcp_fd >= 0) {
        close(d->tcp_fd);
        d->tcp_fd = -1;
    }
    return rc;
}

void sync_fini(struct acctd *d)
{
    if (d->tcp_fd >= 0)
        close(d->tcp_fd);
    d->tcp_fd = -1;
}

/* ---- credentials ------------------------------------------------------------------
 *
 * Every credential is root's, restricted so that only root can decode it,
 * and carries a payload of lines "KEY VALUE\n" that names its purpose and
 * binds the nonces of the connection (and, for messages, the request id,
 * type and the SHA-256 of the body before the credential). A payload is
 * compared whole: anything else is refused. */

#define PROOF_PRIMARY "acctd primary proof 2\n"
#define PROOF_FOLLOWER "acctd follower proof 2\n"
#define SIGN_REQUEST "acctd follower request 2\n"
#define SIGN_REPLY "acctd primary reply 2\n"

/* Encode payload as a credential of this process. 0, or -1 (why). */
static int seal(const struct acctd *d, const char *payload, char **cred, char *why, size_t wl)
{
#ifdef ACCTD_HAVE_MUNGE
    munge_ctx_t ctx = munge_ctx_create();
    munge_err_t e = EMUNGE_NO_MEMORY;
    *cred = NULL;
    if (ctx != NULL &&
        (d->cfg.munge_socket[0] == '\0' ||
         munge_ctx_set(ctx, MUNGE_OPT_SOCKET, d->cfg.munge_socket) == EMUNGE_SUCCESS) &&
        munge_ctx_set(ctx, MUNGE_OPT_UID_RESTRICTION, (uid_t)0) == EMUNGE_SUCCESS)
        e = munge_encode(cred, ctx, payload, (int)strlen(payload));
    if (ctx != NULL)
        munge_ctx_destroy(ctx);
    if (e != EMUNGE_SUCCESS) {
        snprintf(why, wl, "munge: %s", munge_strerror(e));
        free(*cred);
        *cred = NULL;
        return -1;
    }
    return 0;
#else
    (void)d;
    (void)payload;
    *cred = NULL;
    snprintf(why, wl, "this acctd was built without munge");
    return -1;
#endif
}

/* Decode a credential: 0 with its uid and payload (NUL-terminated, to
 * free), or -1 (why). */
static int unseal(const struct acctd *d, const uint8_t *cred, size_t len, uid_t *uid,
                  char **payload, char *why, size_t wl)
{
    *payload = NULL;
#ifdef ACCTD_HAVE_MUNGE
    char *c = strndup((const char *)cred, len);
    munge_ctx_t ctx = munge_ctx_create();
    munge_err_t e = EMUNGE_NO_MEMORY;
    void *buf = NULL;
    int n = 0;
    gid_t gid;
    if (c != NULL && ctx != NULL &&
        (d->cfg.munge_socket[0] == '\0' ||
         munge_ctx_set(ctx, MUNGE_OPT_SOCKET, d->cfg.munge_socket) == EMUNGE_SUCCESS))
        e = munge_decode(c, ctx, &buf, &n, uid, &gid);
    free(c);
    if (ctx != NULL)
        munge_ctx_destroy(ctx);
    if (e != EMUNGE_SUCCESS) {
        snprintf(why, wl, "munge credential refused: %s", munge_strerror(e));
        free(buf);
        return -1;
    }
    *payload = calloc(1, (size_t)n + 1);
    if (*payload == NULL) {
        free(buf);
        snprintf(why, wl, "out of memory");
        return -1;
    }
    if (n > 0 && buf != NULL)
        memcpy(*payload, buf, (size_t)n);
    free(buf);
    if (memchr(*payload, '\0', (size_t)n) != NULL) {
        snprintf(why, wl, "the credential's payload holds a NUL byte");
        free(*payload);
        *payload = NULL;
        return -1;
    }
    return 0;
#else
    (void)d;
    (void)cred;
    (void)len;
    (void)uid;
    snprintf(why, wl, "this acctd was built without munge");
    return -1;
#endif
}

/* Decode cred; it must be root's and its payload exactly want. */
static int unseal_expect(const struct acctd *d, const uint8_t *cred, size_t len, const char *want,
                         char *why, size_t wl)
{
    uid_t uid = (uid_t)-1;
    char *payload = NULL;
    if (unseal(d, cred, len, &uid, &payload, why, wl) != 0)
        return -1;
    int rc = -1;
    if (uid != 0)
        snprintf(why, wl, "the credential is uid %u's, not root's", (unsigned)uid);
    else if (strcmp(payload, want) != 0)
        snprintf(why, wl, "the credential's payload binds another purpose, connection or "
                          "message");
    else
        rc = 0;
    free(payload);
    return rc;
}

static int make_nonce(char out[SYNC_NONCE_HEX + 1])
{
    uint8_t b[SYNC_NONCE_HEX / 2];
    size_t got = 0;
    while (got < sizeof(b)) {
        ssize_t k = getrandom(b + got, sizeof(b) - got, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        got += (size_t)k;
    }
    for (size_t i = 0; i < sizeof(b); i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    return 0;
}

static bool nonce_ok(const char *s)
{
    size_t n = strlen(s);
    return n == SYNC_NONCE_HEX && strspn(s, "0123456789abcdef") == n;
}

int sync_split_signed(const struct acct_msg *m, size_t *signed_len, struct acct_field *cred)
{
    struct acct_iter it;
    struct acct_field f;
    bool any = false;
    acct_iter_init(&it, m->body, m->len);
    while (acct_iter_next(&it, &f)) {
        *cred = f;
        any = true;
    }
    if (!any || cred->tag != ACCT_T_MUNGE_CRED || cred->val < m->body + 6 ||
        cred->val + cred->len != m->body + m->len)
        return -1;
    *signed_len = (size_t)(cred->val - 6 - m->body);
    return 0;
}

/* The payload that signs a message: kind, the nonce of the other side, the
 * request id and type, the digest of the body's first n bytes. */
static void sign_payload(char *buf, size_t cap, const char *kind, const char *nonce_name,
                         const char *nonce, uint32_t id, unsigned type, const uint8_t *body,
                         size_t n)
{
    char hex[ACCTD_SHA256_HEX];
    acctd_sha256_hex(body, n, hex);
    snprintf(buf, cap, "%s%s %s\nrequest %u\ntype %u\nsha256 %s\n", kind, nonce_name, nonce,
             (unsigned)id, type, hex);
}

/* Append the credential that signs the message being built in w. */
static int sign_wbuf(const struct acctd *d, struct acct_wbuf *w, const char *kind,
                     const char *nonce_name, const char *nonce, char *why, size_t wl)
{
    char payload[512], *cred = NULL;
    if (w->err != 0 || w->len < ACCT_PROTO_HEADER) {
        snprintf(why, wl, "message too large");
        return -1;
    }
    uint32_t id = (uint32_t)w->p[12] << 24 | (uint32_t)w->p[13] << 16 |
                  (uint32_t)w->p[14] << 8 | w->p[15];
    sign_payload(payload, sizeof(payload), kind, nonce_name, nonce, id, w->p[5],
                 w->p + ACCT_PROTO_HEADER, w->len - ACCT_PROTO_HEADER);
    if (seal(d, payload, &cred, why, wl) != 0)
        return -1;
    acct_put_str(w, ACCT_T_MUNGE_CRED, cred);
    free(cred);
    return w->err != 0 ? -1 : 0;
}

/* Check the signature of a received message m. */
static int check_signed(const struct acctd *d, const struct acct_msg *m, const char *kind,
                        const char *nonce_name, const char *nonce, char *why, size_t wl)
{
    size_t n;
    struct acct_field cred;
    char want[512];
    if (sync_split_signed(m, &n, &cred) != 0) {
        snprintf(why, wl, "not signed (the last field must be MUNGE_CRED)");
        return -1;
    }
    sign_payload(want, sizeof(want), kind, nonce_name, nonce, m->h.id, m->h.type, m->body, n);
    return unseal_expect(d, cred.val, cred.len, want, why, wl);
}

/* ---- primary ------------------------------------------------------------------------ */

bool sync_tcp_allowed(unsigned type)
{
    static const unsigned allowed[] = {ACCT_MSG_AUTH, ACCT_MSG_SYNC, ACCT_MSG_SAMPLES};
    for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
        if (allowed[i] == type)
            return true;
    return false;
}

int sync_check_request(struct acctd *d, struct client *c, const struct acct_msg *m,
                       struct acct_wbuf *out)
{
    char why[256];
    if (!sync_tcp_allowed(m->h.type)) {
        acct_put_error(out, m->h.id, ACCT_ERR_PERMISSION,
                       "%s: a TCP follower may send only SYNC and SAMPLES",
                       acct_msg_type_name(m->h.type));
        return -1;
    }
    if (m->h.id <= c->last_id) {
        acct_put_error(out, m->h.id, ACCT_ERR_PERMISSION,
                       "request id %u: ids on a follower connection must increase (last %u)",
                       (unsigned)m->h.id, (unsigned)c->last_id);
        LOG_W("TCP follower: request id %u replayed or reordered: connection closed",
              (unsigned)m->h.id);
        return -1;
    }
    if (check_signed(d, m, SIGN_REQUEST, "primary-nonce", c->nonce, why, sizeof(why)) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_PERMISSION, "%s: signature refused: %s",
                       acct_msg_type_name(m->h.type), why);
        LOG_W("TCP follower: %s signature refused: %s: connection closed",
              acct_msg_type_name(m->h.type), why);
        return -1;
    }
    c->last_id = m->h.id;
    return 0;
}

int sync_sign_reply(struct acctd *d, struct client *c, const struct acct_msg *m,
                    struct acct_wbuf *out)
{
    char why[256];
    (void)m;
    if (sign_wbuf(d, out, SIGN_REPLY, "follower-nonce", c->peer_nonce, why, sizeof(why)) != 0) {
        LOG_E("cannot sign a reply to a follower: %s", why);
        return -1;
    }
    return 0;
}

/* The port of "HOST:PORT", or "" */
static void port_of(const char *hp, char *port, size_t cap)
{
    char host[256];
    if (split_hostport(hp, host, sizeof(host), port, cap) != 0)
        port[0] = '\0';
}

/* AUTH, step 1: the follower's nonce; answer ours and our proof. */
static int auth_challenge(struct acctd *d, struct client *c, const struct acct_msg *m,
                          struct acct_wbuf *out)
{
    char payload[512], *cred = NULL, why[256];
    uint64_t proto = 0;
    if (c->nonce[0] != '\0') {
        acct_put_error(out, m->h.id, ACCT_ERR_PERMISSION, "AUTH: NONCE was already sent");
        return -1;
    }
    if (acct_get_u64(m->body, m->len, ACCT_T_SYNC_PROTO, &proto) != 0 || proto != SYNC_PROTO) {
        acct_put_error(out, m->h.id, ACCT_ERR_VERSION,
                       "AUTH: SYNC_PROTO must be %d (this primary speaks sync protocol %d)",
                       SYNC_PROTO, SYNC_PROTO);
        return -1;
    }
    if (acct_get_str(m->body, m->len, ACCT_T_NONCE, c->peer_nonce, sizeof(c->peer_nonce)) != 0 ||
        !nonce_ok(c->peer_nonce)) {
        acct_put_error(out, m->h.id, ACCT_ERR_INVALID, "NONCE: expected %d lowercase hex digits",
                       SYNC_NONCE_HEX);
        return -1;
    }
    if (make_nonce(c->nonce) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "getrandom: %s", strerror(errno));
        return -1;
    }
    snprintf(payload, sizeof(payload), PROOF_PRIMARY "follower-nonce %s\nprimary-nonce %s\n",
             c->peer_nonce, c->nonce);
    if (seal(d, payload, &cred, why, sizeof(why)) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "%s", why);
        LOG_E("AUTH: cannot prove this primary to a follower: %s", why);
        return -1;
    }
    acct_wbuf_start(out, ACCT_MSG_AUTH | ACCT_MSG_REPLY, m->h.id);
    acct_put_str(out, ACCT_T_NODE, d->cfg.node);
    acct_put_u64(out, ACCT_T_SYNC_PROTO, SYNC_PROTO);
    acct_put_str(out, ACCT_T_NONCE, c->nonce);
    acct_put_str(out, ACCT_T_MUNGE_CRED, cred);
    free(cred);
    return 0;
}

/* AUTH, step 2: the follower's proof, bound to our nonce and our port. */
static int auth_proof(struct acctd *d, struct client *c, const struct acct_msg *m,
                      const struct acct_field *f, struct acct_wbuf *out)
{
    /* dest: the proof's HOST:PORT (split_hostport's host[256], brackets,
     * ':' and a port[16] fit); quoted in why up to DEST_QUOTE bytes; why
     * holds the longest message, "the proof is for ..." */
    enum { DEST_QUOTE = 200 };
    char dest[256 + 2 + 1 + 16], rest[300], port[16], theirs[16];
    char why[sizeof("the proof is for \"\", not this primary's port ") + DEST_QUOTE +
             sizeof(port)] = "";
    char *payload = NULL;
    uid_t uid = (uid_t)-1;
    if (c->nonce[0] == '\0') {
        acct_put_error(out, m->h.id, ACCT_ERR_PERMISSION,
                       "AUTH: send NONCE first (sync protocol %d); a follower of an older "
                       "acctd cannot sync with this primary: upgrade it",
                       SYNC_PROTO);
        LOG_W("TCP peer: AUTH without the mutual handshake (an older follower?): refused");
        return -1;
    }
    int ok = unseal(d, f->val, f->len, &uid, &payload, why, sizeof(why)) == 0;
    if (ok && uid != 0) {
        snprintf(why, sizeof(why), "the credential is uid %u's; a follower acctd runs as root",
                 (unsigned)uid);
        ok = 0;
    }
    /* PROOF_FOLLOWER "to HOST:PORT\n" then our nonce and theirs, nothing else */
    bool prefix = ok && strncmp(payload, PROOF_FOLLOWER "to ", strlen(PROOF_FOLLOWER) + 3) == 0;
    const char *to = prefix ? payload + strlen(PROOF_FOLLOWER) : NULL;
    const char *eol = prefix ? strchr(to, '\n') : NULL;
    if (ok && eol == NULL) {
        snprintf(why, sizeof(why), "the credential's payload is not a follower's proof");
        ok = 0;
    } else if (ok && (size_t)(eol - to - 3) >= sizeof(dest)) { /* never a HOST:PORT */
        snprintf(why, sizeof(why), "the proof's destination is longer than %zu bytes",
                 sizeof(dest) - 1);
        ok = 0;
    }
    if (ok) {
        snprintf(dest, sizeof(dest), "%.*s", (int)(eol - to - 3), to + 3);
        snprintf(rest, sizeof(rest), "primary-nonce %s\nfollower-nonce %s\n", c->nonce,
                 c->peer_nonce);
        port_of(dest, theirs, sizeof(theirs));
        port_of(d->cfg.listen, port, sizeof(port));
        if (strcmp(eol + 1, rest) != 0) {
            snprintf(why, sizeof(why), "the proof binds another connection's nonces (replayed?)");
            ok = 0;
        } else if (theirs[0] == '\0' || strcmp(theirs, port) != 0) {
            snprintf(why, sizeof(why), "the proof is for \"%.*s\", not this primary's port %s",
                     (int)DEST_QUOTE, dest, port);
            ok = 0;
        }
    }
    free(payload);
    if (!ok) {
        acct_put_error(out, m->h.id, ACCT_ERR_PERMISSION, "AUTH: %s", why);
        LOG_W("TCP peer: follower proof refused: %s", why);
        return -1;
    }
    c->uid = 0;
    c->gid = 0;
    c->authed = c->follower = c->admin = true;
    c->max_body = ACCT_PROTO_MAX_BODY;
    c->last_id = m->h.id;
    acct_wbuf_start(out, ACCT_MSG_AUTH | ACCT_MSG_REPLY, m->h.id);
    acct_put_str(out, ACCT_T_NODE, d->cfg.node);
    acct_put_u64(out, ACCT_T_SYNC_PROTO, SYNC_PROTO);
    LOG_D("TCP peer authenticated as a follower");
    return 0;
}

int req_auth(struct acctd *d, struct client *c, const struct acct_msg *m, struct acct_wbuf *out)
{
    struct acct_field f;
    if (!c->tcp) {
        acct_put_error(out, m->h.id, ACCT_ERR_CONFLICT, "AUTH is for TCP peers only");
        return 0;
    }
    if (c->authed) {
        acct_put_error(out, m->h.id, ACCT_ERR_PERMISSION, "AUTH: already authenticated");
        return -1;
    }
    if (acct_msg_find(m, ACCT_T_MUNGE_CRED, &f)) {
        if (f.len == 0 || f.len > 8192) {
            acct_put_error(out, m->h.id, ACCT_ERR_INVALID, "MUNGE_CRED: 1 to 8192 bytes");
            return -1;
        }
        return auth_proof(d, c, m, &f, out);
    }
    if (acct_msg_find(m, ACCT_T_NONCE, &f))
        return auth_challenge(d, c, m, out);
    acct_put_error(out, m->h.id, ACCT_ERR_INVALID, "AUTH: NONCE or MUNGE_CRED required");
    return -1;
}

static int put_full_version(void *arg, const struct store_version *v, int64_t n)
{
    struct acct_wbuf *out = arg;
    (void)n;
    acct_group_begin(out, ACCT_T_VERSION_INFO);
    req_put_version(out, v, true);
    acct_group_end(out);
    return out->err != 0 ? -1 : 0;
}

static int put_active(void *arg, const struct store_version *v, int64_t n)
{
    struct acct_wbuf *out = arg;
    (void)n;
    acct_group_begin(out, ACCT_T_PAIR);
    acct_put_str(out, ACCT_T_PARTITION, v->partition);
    acct_put_str(out, ACCT_T_INTERCONNECT, v->interconnect);
    acct_put_u64(out, ACCT_T_VERSION, (uint64_t)v->id);
    acct_put_u64(out, ACCT_T_HASH, v->hash);
    acct_group_end(out);
    return 0;
}

int req_sync(struct acctd *d, struct client *c, const struct acct_msg *m, struct acct_wbuf *out)
{
    uint64_t since = 0;
    (void)c;
    acct_get_u64(m->body, m->len, ACCT_T_VERSION, &since);
    if (since > INT64_MAX) {
        acct_put_error(out, m->h.id, ACCT_ERR_INVALID, "VERSION: out of range");
        return 0;
    }
    int64_t newest = store_max_version(d->store);
    acct_wbuf_start(out, ACCT_MSG_SYNC | ACCT_MSG_REPLY, m->h.id);
    int64_t last = (int64_t)since;
    if (newest < 0 ||
        store_versions_since(d->store, (int64_t)since, SYNC_BATCH, put_full_version, out) != 0 ||
        store_pairs(d->store, false, put_active, out) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
        return 0;
    }
    /* more to come if the batch stopped short of the newest */
    size_t n = acct_count(out->p + ACCT_PROTO_HEADER, out->len - ACCT_PROTO_HEADER,
                          ACCT_T_VERSION_INFO);
    last += (int64_t)n; /* ids are dense from 1: a lower bound is enough */
    acct_put_u64(out, ACCT_T_MORE, n == SYNC_BATCH && last < newest);
    acct_put_u64(out, ACCT_T_NEWEST, (uint64_t)newest);
    return 0;
}

/* ---- follower --------------------------------------------------------------------- */

static int tcp_connect(const char *hp, int timeout_ms)
{
    char host[256], port[16];
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    int fd = -1;
    if (split_hostport(hp, host, sizeof(host), port, sizeof(port)) != 0 ||
        getaddrinfo(host, port, &hints, &ai) != 0 || ai == NULL) {
        errno = EINVAL;
        goto fail;
    }
    fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        goto fail;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        if (errno != EINPROGRESS)
            goto fail;
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int err = 0;
        socklen_t el = sizeof(err);
        if (poll(&p, 1, timeout_ms) != 1) {
            errno = ETIMEDOUT;
            goto fail;
        }
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0 || err != 0) {
            errno = err ? err : errno;
            goto fail;
        }
    }
    freeaddrinfo(ai);
    return fd;
fail:
    if (ai != NULL)
        freeaddrinfo(ai);
    if (fd >= 0) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return -1;
}

/* A follower's connection to its primary. */
struct link {
    struct acctd *d;
    int fd;
    uint32_t id;                     /* the last request id */
    char mine[SYNC_NONCE_HEX + 1];   /* our nonce */
    char theirs[SYNC_NONCE_HEX + 1]; /* the primary's */
};

static void sync_fail(struct acctd *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sync_fail(struct acctd *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->sync.error, sizeof(d->sync.error), fmt, ap);
    va_end(ap);
    LOG_W("sync: %s", d->sync.error);
}

/* One request on the link; the reply in *m (buffer *buf to free). With
 * sign, the request is signed and the reply must be the primary's signed
 * answer to it. An ERROR reply fails (logged) unless err_ok, which returns
 * it (1). 0, 1 or -1. */
static int call(struct link *l, struct acct_wbuf *w, bool sign, bool err_ok, uint8_t **buf,
                struct acct_msg *m, const char *what)
{
    size_t len;
    char why[256];
    unsigned want = w->len > 5 ? w->p[5] : 0; /* the request's type */
    *buf = NULL;
    if (sign && sign_wbuf(l->d, w, SIGN_REQUEST, "primary-nonce", l->theirs, why, sizeof(why)) != 0) {
        sync_fail(l->d, "cannot sign %s: %s", what, why);
        return -1;
    }
    if (acct_wbuf_finish(w) != 0 || acct_client_call(l->fd, w, SYNC_TIMEOUT_MS, buf, &len, m) != 0) {
        sync_fail(l->d, "%s to the primary %s failed: %s", what, l->d->cfg.primary,
                  strerror(errno));
        return -1;
    }
    if (sign && check_signed(l->d, m, SIGN_REPLY, "follower-nonce", l->mine, why, sizeof(why)) != 0) {
        sync_fail(l->d, "the reply to %s from %s is not the primary's: %s; nothing taken from it",
                  what, l->d->cfg.primary, why);
        return -1;
    }
    if (m->h.type == ACCT_MSG_ERROR) {
        if (err_ok)
            return 1;
        char msg[512] = "";
        acct_get_str(m->body, m->len, ACCT_T_ERR_MSG, msg, sizeof(msg));
        sync_fail(l->d, "the primary %s refused %s: %s", l->d->cfg.primary, what, msg);
        return -1;
    }
    if (m->h.type != (want | ACCT_MSG_REPLY)) {
        sync_fail(l->d, "the primary answered %s with a %s", what, acct_msg_type_name(m->h.type));
        return -1;
    }
    return 0;
}

/* Mutual authentication (docs/protocol.md "TCP"): our nonce; the primary's
 * nonce and its proof (root, binding both nonces); then our proof (root,
 * binding the primary's address as configured and both nonces). Nothing of
 * ours leaves before the primary proved itself. 0 or -1. */
static int authenticate(struct link *l, struct acct_wbuf *w)
{
    struct acctd *d = l->d;
    uint8_t *buf = NULL;
    struct acct_msg m;
    struct acct_field f;
    char why[256], want[512], *cred = NULL;
    int rc = -1;
    if (make_nonce(l->mine) != 0) {
        sync_fail(d, "getrandom: %s", strerror(errno));
        return -1;
    }
    acct_wbuf_start(w, ACCT_MSG_AUTH, ++l->id);
    acct_put_u64(w, ACCT_T_SYNC_PROTO, SYNC_PROTO);
    acct_put_str(w, ACCT_T_NONCE, l->mine);
    if (call(l, w, false, false, &buf, &m, "AUTH") != 0)
        goto out;
    if (acct_get_str(m.body, m.len, ACCT_T_NONCE, l->theirs, sizeof(l->theirs)) != 0 ||
        !nonce_ok(l->theirs) || !acct_msg_find(&m, ACCT_T_MUNGE_CRED, &f)) {
        sync_fail(d, "%s did not prove it is the primary (no NONCE and credential in its AUTH "
                     "reply: an acctd older than sync protocol %d, or not acctd); not syncing",
                  d->cfg.primary, SYNC_PROTO);
        goto out;
    }
    snprintf(want, sizeof(want), PROOF_PRIMARY "follower-nonce %s\nprimary-nonce %s\n", l->mine,
             l->theirs);
    if (unseal_expect(d, f.val, f.len, want, why, sizeof(why)) != 0) {
        sync_fail(d, "%s failed to prove it is the primary: %s; not syncing", d->cfg.primary,
                  why);
        LOG_E("sync: %s", d->sync.error);
        goto out;
    }
    free(buf);
    buf = NULL;
    snprintf(want, sizeof(want), PROOF_FOLLOWER "to %s\nprimary-nonce %s\nfollower-nonce %s\n",
             d->cfg.primary, l->theirs, l->mine);
    if (seal(d, want, &cred, why, sizeof(why)) != 0) {
        sync_fail(d, "%s", why);
        goto out;
    }
    acct_wbuf_start(w, ACCT_MSG_AUTH, ++l->id);
    acct_put_u64(w, ACCT_T_SYNC_PROTO, SYNC_PROTO);
    acct_put_str(w, ACCT_T_MUNGE_CRED, cred);
    free(cred);
    /* from here on every reply is signed */
    if (acct_wbuf_finish(w) != 0 || acct_client_call(l->fd, w, SYNC_TIMEOUT_MS, &buf, &(size_t){0}, &m) != 0) {
        sync_fail(d, "AUTH to the primary %s failed: %s", d->cfg.primary, strerror(errno));
        goto out;
    }
    if (m.h.type == ACCT_MSG_ERROR) {
        char msg[512] = "";
        acct_get_str(m.body, m.len, ACCT_T_ERR_MSG, msg, sizeof(msg));
        sync_fail(d, "the primary %s refused our proof: %s", d->cfg.primary, msg);
        goto out;
    }
    if (check_signed(d, &m, SIGN_REPLY, "follower-nonce", l->mine, why, sizeof(why)) != 0) {
        sync_fail(d, "the AUTH reply from %s is not the primary's: %s", d->cfg.primary, why);
        goto out;
    }
    rc = 0;
out:
    free(buf);
    return rc;
}

static bool pair_eq(const struct sync_pair *a, const char *p, const char *i)
{
    return strcmp(a->partition, p) == 0 && strcmp(a->interconnect, i) == 0;
}

int sync_apply(struct acctd *d, const struct acct_msg *m, bool last, struct sync_round *r)
{
    struct acct_iter it;
    struct acct_field f;
    uint64_t newest = 0;
    r->newest = acct_get_u64(m->body, m->len, ACCT_T_NEWEST, &newest) == 0 && newest <= INT64_MAX
                    ? (int64_t)newest
                    : -1;
    if (last)
        r->npairs = 0;
    acct_iter_init(&it, m->body, m->len);
    while (acct_iter_next(&it, &f)) {
        if (f.tag == ACCT_T_VERSION_INFO) {
            struct store_version v;
            struct acct_field t;
            uint64_t id = 0, parent = 0, hash = 0;
            memset(&v, 0, sizeof(v));
            if (acct_get_u64(f.val, f.len, ACCT_T_VERSION, &id) != 0 || id == 0 ||
                id > INT64_MAX ||
                acct_get_str(f.val, f.len, ACCT_T_PARTITION, v.partition, sizeof(v.partition)) ||
                acct_get_str(f.val, f.len, ACCT_T_INTERCONNECT, v.interconnect,
                             sizeof(v.interconnect)) ||
                acct_get_str(f.val, f.len, ACCT_T_SOURCE, v.source, sizeof(v.source)) ||
                acct_get_str(f.val, f.len, ACCT_T_CREATED, v.created, sizeof(v.created)) ||
                acct_get_str(f.val, f.len, ACCT_T_TUNING_RUN, v.tuning_run, sizeof(v.tuning_run)) ||
                acct_get_str(f.val, f.len, ACCT_T_REASON, v.reason, sizeof(v.reason)) ||
                acct_get_u64(f.val, f.len, ACCT_T_PARENT, &parent) || parent > INT64_MAX ||
                acct_get_u64(f.val, f.len, ACCT_T_HASH, &hash) ||
                !acct_find(f.val, f.len, ACCT_T_RULES_TEXT, &t)) {
                LOG_E("sync: the primary sent an incomplete version");
                return -1;
            }
            /* a follower trusts nothing it did not check: the text must be a
             * valid rules file of that pair and version, with that hash */
            struct acct_rules *rl = NULL;
            struct acct_diags dg = ACCT_DIAGS_INIT;
            bool ok = acct_rules_hash(t.val, t.len) == hash &&
                      acct_rules_parse_buffer("sync", (const char *)t.val, t.len, &rl, &dg) == 0 &&
                      rl->prov.version == (int64_t)id &&
                      strcmp(rl->prov.partition, v.partition) == 0 &&
                      strcmp(rl->prov.interconnect, v.interconnect) == 0 &&
                      acct_proto_name_ok(v.partition, ACCT_RULES_NAME_MAX) &&
                      acct_proto_name_ok(v.interconnect, ACCT_RULES_NAME_MAX);
            acct_rules_free(rl);
            acct_diags_free(&dg);
            if (!ok) {
                LOG_E("sync: version %llu from the primary is not a valid rules file of its pair",
                      (unsigned long long)id);
                return -1;
            }
            v.id = (int64_t)id;
            v.parent = (int64_t)parent;
            v.hash = hash;
            v.rules_text = strndup((const char *)t.val, t.len);
            if (v.rules_text == NULL)
                return -1;
            int r2 = store_version_put(d->store, &v);
            free(v.rules_text);
            if (r2 < 0)
                return -1;
            if (r2 == 2) {
                if (r->ndiverged++ == 0 || (int64_t)id < r->first_diverged)
                    r->first_diverged = (int64_t)id;
                LOG_E("sync: version %llu here differs from the primary's: the stores diverged",
                      (unsigned long long)id);
            }
            r->nnew += r2 == 0;
            if ((int64_t)id > r->last_id)
                r->last_id = (int64_t)id;
        } else if (f.tag == ACCT_T_PAIR && last) {
            struct sync_pair p = {.has_hash = false};
            uint64_t id = 0;
            if (acct_get_str(f.val, f.len, ACCT_T_PARTITION, p.partition, sizeof(p.partition)) ||
                acct_get_str(f.val, f.len, ACCT_T_INTERCONNECT, p.interconnect,
                             sizeof(p.interconnect)) ||
                acct_get_u64(f.val, f.len, ACCT_T_VERSION, &id) || id == 0 || id > INT64_MAX) {
                LOG_E("sync: the primary sent an incomplete active pair");
                return -1;
            }
            p.version = (int64_t)id;
            p.has_hash = acct_get_u64(f.val, f.len, ACCT_T_HASH, &p.hash) == 0;
            for (size_t k = 0; k < r->npairs; k++)
                if (pair_eq(&r->pairs[k], p.partition, p.interconnect)) {
                    LOG_E("sync: the primary sent (%s, %s) twice in its active map", p.partition,
                          p.interconnect);
                    return -1;
                }
            if (r->npairs == r->cap) {
                size_t cap = r->cap ? r->cap * 2 : 16;
                struct sync_pair *np = realloc(r->pairs, cap * sizeof(*np));
                if (np == NULL)
                    return -1;
                r->pairs = np;
                r->cap = cap;
            }
            r->pairs[r->npairs++] = p;
        }
    }
    return 0;
}

struct local_pairs {
    struct sync_pair *v;
    size_t n, cap;
};

static int collect_pair(void *arg, const struct store_version *v, int64_t n)
{
    struct local_pairs *l = arg;
    (void)n;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        struct sync_pair *nv = realloc(l->v, cap * sizeof(*nv));
        if (nv == NULL)
            return -1;
        l->v = nv;
        l->cap = cap;
    }
    struct sync_pair *p = &l->v[l->n++];
    memset(p, 0, sizeof(*p));
    snprintf(p->partition, sizeof(p->partition), "%s", v->partition);
    snprintf(p->interconnect, sizeof(p->interconnect), "%s", v->interconnect);
    p->version = v->id;
    return 0;
}

int sync_realign(struct acctd *d, const struct sync_round *r)
{
    struct local_pairs here = {NULL, 0, 0};
    int unmatched = 0, rc = -1;
    for (size_t k = 0; k < r->npairs; k++) {
        const struct sync_pair *p = &r->pairs[k];
        struct store_version v;
        int g = store_version_get(d->store, p->version, false, &v);
        if (g < 0)
            goto out;
        bool same = g == 0 && strcmp(v.partition, p->partition) == 0 &&
                    strcmp(v.interconnect, p->interconnect) == 0 &&
                    (!p->has_hash || v.hash == p->hash);
        if (g == 0)
            store_version_free(&v);
        if (!same) {
            /* we do not hold the primary's version: serve none rather than
             * one the primary does not have active */
            LOG_E("sync: (%s, %s): the primary's active version %lld is %s here: the pair has "
                  "no active version on this node until an administrator resolves it",
                  p->partition, p->interconnect, (long long)p->version,
                  g == 1 ? "missing" : "different");
            unmatched++;
            if (g == 0 && d->sync.ndiverged == 0 && r->ndiverged == 0) { /* after a restart */
                d->sync.ndiverged = 1;
                d->sync.first_diverged = p->version;
            }
            int64_t cur = 0;
            struct store_version a;
            int ga = store_active_get(d->store, p->partition, p->interconnect, false, &a);
            if (ga < 0)
                goto out;
            if (ga == 0) {
                cur = a.id;
                store_version_free(&a);
                if (store_deactivate(d->store, p->partition, p->interconnect) != 0)
                    goto out;
                d->rules_dirty = true;
                LOG_W("sync: (%s, %s): version %lld deactivated", p->partition, p->interconnect,
                      (long long)cur);
            }
            continue;
        }
        int64_t prev = 0;
        int a = store_activate(d->store, p->version, "sync from primary", -1, &prev);
        if (a == 0) {
            LOG_I("sync: (%s, %s) now at version %lld (was %lld), as on the primary",
                  p->partition, p->interconnect, (long long)p->version, (long long)prev);
            d->rules_dirty = true;
        } else if (a != 2) {
            LOG_E("sync: cannot activate version %lld", (long long)p->version);
            goto out;
        }
    }
    /* pairs active here that the primary has no active version for */
    if (store_pairs(d->store, false, collect_pair, &here) != 0)
        goto out;
    for (size_t k = 0; k < here.n; k++) {
        bool found = false;
        for (size_t j = 0; j < r->npairs && !found; j++)
            found = pair_eq(&r->pairs[j], here.v[k].partition, here.v[k].interconnect);
        if (found)
            continue;
        if (store_deactivate(d->store, here.v[k].partition, here.v[k].interconnect) != 0)
            goto out;
        d->rules_dirty = true;
        LOG_W("sync: (%s, %s): version %lld deactivated: the primary has no active version there",
              here.v[k].partition, here.v[k].interconnect, (long long)here.v[k].version);
    }
    rc = unmatched;
out:
    free(here.v);
    return rc;
}

void sync_round_free(struct sync_round *r)
{
    free(r->pairs);
    r->pairs = NULL;
    r->npairs = r->cap = 0;
}

/* ---- forwarding samples ------------------------------------------------------------ */

struct fwd {
    struct acct_wbuf *w;
    uint32_t id;
    bool started;
    char job[ACCT_RULES_NAME_MAX + 1], p[ACCT_RULES_NAME_MAX + 1], i[ACCT_RULES_NAME_MAX + 1];
};

static int put_sample(void *arg, const struct store_sample *x)
{
    struct fwd *f = arg;
    struct acct_wbuf *w = f->w;
    if (!f->started) {
        acct_wbuf_start(w, ACCT_MSG_SAMPLES, f->id);
        acct_put_str(w, ACCT_T_JOB, x->job);
        acct_put_str(w, ACCT_T_PARTITION, x->partition);
        acct_put_str(w, ACCT_T_INTERCONNECT, x->interconnect);
        snprintf(f->job, sizeof(f->job), "%s", x->job);
        snprintf(f->p, sizeof(f->p), "%s", x->partition);
        snprintf(f->i, sizeof(f->i), "%s", x->interconnect);
        f->started = true;
    }
    acct_group_begin(w, ACCT_T_SAMPLE);
    acct_put_str(w, ACCT_T_COLLECTIVE, x->collective);
    acct_put_u64(w, ACCT_T_COMM_SIZE, (uint64_t)x->comm_size);
    acct_put_u64(w, ACCT_T_BYTES_BUCKET, (uint64_t)x->bucket);
    acct_put_str(w, ACCT_T_ALGORITHM, x->algorithm);
    acct_put_u64(w, ACCT_T_SEGMENT, (uint64_t)x->segment);
    acct_put_u64(w, ACCT_T_FANOUT, (uint64_t)x->fanout);
    acct_put_u64(w, ACCT_T_REORDER, (uint64_t)x->reorder);
    acct_put_u64(w, ACCT_T_COUNT, (uint64_t)x->count);
    acct_put_f64(w, ACCT_T_SUM_US, x->sum_us);
    acct_put_f64(w, ACCT_T_SUMSQ_US, x->sumsq_us);
    acct_put_f64(w, ACCT_T_MIN_US, x->min_us);
    acct_put_f64(w, ACCT_T_MAX_US, x->max_us);
    acct_group_end(w);
    return w->err != 0 ? -1 : 0;
}

/* Send the outbox to the primary, one (job, uid, pair) batch at a time;
 * acknowledged rows are deleted. 0, or -1 (stop; the rest waits). */
static int forward(struct link *l, struct acct_wbuf *w, int *sent)
{
    struct acctd *d = l->d;
    for (int round = 0; round < 50; round++) {
        struct fwd f = {.w = w, .id = l->id + 1};
        long uid = -1;
        int64_t last = 0;
        size_t n = 0;
        uint8_t *buf = NULL;
        struct acct_msg m;
        if (store_outbox_next(d->store, 1000, &uid, &last, &n, put_sample, &f) != 0)
            return -1;
        if (n == 0)
            return 0;
        l->id++;
        acct_put_u64(w, ACCT_T_UID, (uint64_t)uid);
        /* this node checked the job's registration (or its policy) at ingest */
        acct_put_u64(w, ACCT_T_CHECKED, 1);
        int c = call(l, w, true, true, &buf, &m, "SAMPLES");
        if (c < 0)
            return -1;
        uint64_t code = 0;
        acct_get_u64(m.body, m.len, ACCT_T_ERR_CODE, &code);
        bool internal = c == 1 && code == ACCT_ERR_INTERNAL;
        if (c == 1) {
            char msg[512] = "";
            acct_get_str(m.body, m.len, ACCT_T_ERR_MSG, msg, sizeof(msg));
            LOG_W("sync: the primary refused %zu samples of job %s: %s%s", n, f.job, msg,
                  internal ? " (kept for the next attempt)" : " (dropped)");
        }
        free(buf);
        if (internal)
            return -1;
        if (store_outbox_done(d->store, f.job, uid, f.p, f.i, last) != 0)
            return -1;
        *sent += (int)n;
    }
    return 0;
}

/* ---- the follower's status ------------------------------------------------------------- */

struct count_above {
    int64_t n, max;
};

static int count_version(void *arg, const struct store_version *v, int64_t n)
{
    struct count_above *c = arg;
    (void)n;
    c->n++;
    if (v->id > c->max)
        c->max = v->id;
    return 0;
}

void sync_status_text(const struct acctd *d, char *buf, size_t cap)
{
    const struct sync_status *s = &d->sync;
    size_t n = 0;
#define ADD(...)                                                                              \
    do {                                                                                      \
        if (n < cap)                                                                          \
            n += (size_t)snprintf(buf + n, cap - n, __VA_ARGS__);                              \
    } while (0)
    buf[0] = '\0';
    if (s->error[0] != '\0')
        ADD("failing: %s", s->error);
    else if (s->last_ok == 0)
        ADD("not synced with %s yet", d->cfg.primary);
    else
        ADD("following %s (its newest version %lld)", d->cfg.primary,
            (long long)s->primary_newest);
    if (s->last_ok != 0)
        ADD("; last good sync %lld s ago", (long long)(time(NULL) - s->last_ok));
    if (s->ahead_n > 0)
        ADD("; AHEAD of the primary: %lld version(s) here above its newest %lld (up to %lld), "
            "not active",
            (long long)s->ahead_n, (long long)s->primary_newest, (long long)s->ahead_max);
    if (s->ndiverged > 0)
        ADD("; DIVERGED: %lld version(s) here differ from the primary's (first %lld)",
            (long long)s->ndiverged, (long long)s->first_diverged);
    if (s->unmatched > 0)
        ADD("; %lld pair(s) without the primary's active version (see acctd.md, Multi-node)",
            (long long)s->unmatched);
#undef ADD
}

/* ---- one sync ---------------------------------------------------------------------------- */

void sync_poll(struct acctd *d, time_t now)
{
    struct acct_wbuf w;
    uint8_t *buf = NULL;
    struct acct_msg m;
    struct link l = {.d = d, .fd = -1};
    struct sync_round r = {.newest = -1};
    if (d->cfg.primary[0] == '\0' || now - d->last_sync < d->cfg.sync_interval_s)
        return;
    d->last_sync = now;
    acct_wbuf_init(&w, ACCT_PROTO_MAX_USER_BODY);
    l.fd = tcp_connect(d->cfg.primary, SYNC_TIMEOUT_MS);
    if (l.fd < 0) {
        sync_fail(d, "cannot reach the primary %s: %s", d->cfg.primary, strerror(errno));
        goto out;
    }
    if (authenticate(&l, &w) != 0)
        goto out;
    if (acctd_write_begin(d, NULL) != 0)
        goto out;
    /* ask from the newest version we hold that the primary can have: a
     * follower ahead of its primary (a forged id, a primary restored from a
     * backup) must not ask for versions after an id the primary never
     * reaches */
    int64_t known = d->sync.primary_newest >= 0 ? d->sync.primary_newest : INT64_MAX;
    int64_t since = store_max_version_upto(d->store, known);
    bool ok = since >= 0, rewound = false, complete = false;
    for (int round = 0; ok && round < 1000; round++) {
        uint64_t more = 0;
        acct_wbuf_start(&w, ACCT_MSG_SYNC, ++l.id);
        acct_put_u64(&w, ACCT_T_VERSION, (uint64_t)since);
        if (call(&l, &w, true, false, &buf, &m, "SYNC") != 0) {
            ok = false;
            break;
        }
        acct_get_u64(m.body, m.len, ACCT_T_MORE, &more);
        ok = sync_apply(d, &m, more == 0, &r) == 0;
        free(buf);
        buf = NULL;
        if (ok && r.newest >= 0 && since > r.newest && !rewound) {
            /* the primary is behind us: ask again from what it can have */
            rewound = true;
            since = store_max_version_upto(d->store, r.newest);
            ok = since >= 0;
            continue;
        }
        if (more == 0) {
            complete = true;
            break;
        }
        since = r.last_id > since ? r.last_id : since + 1;
    }
    if (ok && !complete)
        sync_fail(d, "the primary %s kept sending versions: stopped after 1000 replies",
                  d->cfg.primary);
    ok = ok && complete;
    /* only a complete, verified answer says what the primary has active */
    int unmatched = ok ? sync_realign(d, &r) : -1;
    ok = ok && unmatched >= 0;
    int sent = 0;
    if (ok)
        forward(&l, &w, &sent); /* what was acknowledged is deleted either way */
    if (ok) {
        struct count_above c = {0, 0};
        d->sync.primary_newest = r.newest;
        if (r.newest >= 0 && store_versions_above(d->store, r.newest, count_version, &c) != 0)
            ok = false;
        if (c.n > 0 && d->sync.ahead_n != c.n)
            LOG_E("sync: this node holds %lld version(s) above the primary's newest %lld (up to "
                  "%lld): not from this primary; they stay inactive",
                  (long long)c.n, (long long)r.newest, (long long)c.max);
        d->sync.ahead_n = c.n;
        d->sync.ahead_max = c.max;
        /* divergence stays reported until the daemon restarts (the
         * versions are not fetched again) */
        if (r.ndiverged > 0 &&
            (d->sync.ndiverged == 0 || r.first_diverged < d->sync.first_diverged))
            d->sync.first_diverged = r.first_diverged;
        d->sync.ndiverged += r.ndiverged;
        d->sync.unmatched = unmatched;
    }
    acctd_write_end(d, ok);
    if (ok) {
        d->sync.error[0] = '\0';
        d->sync.last_ok = time(NULL);
    } else if (d->sync.error[0] == '\0') {
        sync_fail(d, "the primary's versions could not be stored (see the log)");
    }
    if (ok && r.nnew > 0)
        LOG_I("sync: %d new version%s from the primary", r.nnew, r.nnew == 1 ? "" : "s");
    if (ok && sent > 0)
        LOG_D("sync: forwarded %d samples to the primary", sent);
out:
    sync_round_free(&r);
    free(buf);
    if (l.fd >= 0)
        close(l.fd);
    acct_wbuf_free(&w);
}
