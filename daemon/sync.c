/* Multi-node: one primary acctd per cluster owns the decisions; followers
 * copy its versions and its active map (docs/acctd.md, "Multi-node").
 *
 *   primary:  `listen: ADDR:PORT` opens a TCP socket next to the Unix one.
 *             A TCP peer has no SO_PEERCRED: its first message must be AUTH
 *             with a munge credential; munged vouches for its uid and gid.
 *             SYNC(VERSION = the follower's newest) answers the versions
 *             after it (verbatim: same ids, same texts) and the active map.
 *   follower: `primary: HOST:PORT`. Every sync_interval seconds it connects,
 *             authenticates, SYNCs until nothing more, stores the versions
 *             and activates what the primary has active; then it forwards
 *             the samples its jobs sent (sample_outbox) with their uids. It
 *             refuses changes of its own (IMPORT, ACTIVATE, ... answer
 *             CONFLICT).
 * Versions are immutable and carry their ids, so replaying is idempotent; a
 * version id the follower holds with other content means the stores
 * diverged: it is logged and nothing is changed. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef ACCTD_HAVE_MUNGE
#include <munge.h>
#endif

#include "acctd.h"

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

int req_auth(struct acctd *d, struct client *c, const struct acct_msg *m, struct acct_wbuf *out)
{
    struct acct_field f;
    if (!c->tcp) {
        acct_put_error(out, m->h.id, ACCT_ERR_CONFLICT, "AUTH is for TCP peers only");
        return 0;
    }
    if (!acct_msg_find(m, ACCT_T_MUNGE_CRED, &f) || f.len == 0 || f.len > 8192) {
        acct_put_error(out, m->h.id, ACCT_ERR_INVALID, "MUNGE_CRED: required");
        return -1;
    }
#ifdef ACCTD_HAVE_MUNGE
    char *cred = strndup((const char *)f.val, f.len);
    munge_ctx_t ctx = munge_ctx_create();
    uid_t uid;
    gid_t gid;
    munge_err_t e = EMUNGE_NO_MEMORY;
    if (cred != NULL && ctx != NULL &&
        (d->cfg.munge_socket[0] == '\0' ||
         munge_ctx_set(ctx, MUNGE_OPT_SOCKET, d->cfg.munge_socket) == EMUNGE_SUCCESS))
        e = munge_decode(cred, ctx, NULL, NULL, &uid, &gid);
    free(cred);
    if (ctx != NULL)
        munge_ctx_destroy(ctx);
    if (e != EMUNGE_SUCCESS) {
        acct_put_error(out, m->h.id, ACCT_ERR_PERMISSION, "munge credential refused: %s",
                       munge_strerror(e));
        LOG_W("TCP peer: munge credential refused: %s", munge_strerror(e));
        return -1;
    }
    c->uid = uid;
    c->gid = gid;
    c->authed = true;
    c->admin = uid == 0 || (d->cfg.admin_gid != (gid_t)-1 && gid == d->cfg.admin_gid);
    c->max_body = c->admin ? ACCT_PROTO_MAX_BODY : ACCT_PROTO_MAX_USER_BODY;
    acct_wbuf_start(out, ACCT_MSG_AUTH | ACCT_MSG_REPLY, m->h.id);
    acct_put_str(out, ACCT_T_NODE, d->cfg.node);
    LOG_D("TCP peer authenticated as uid %u gid %u", (unsigned)uid, (unsigned)gid);
    return 0;
#else
    (void)d;
    acct_put_error(out, m->h.id, ACCT_ERR_PERMISSION, "this acctd was built without munge");
    return -1;
#endif
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
    if (store_versions_since(d->store, (int64_t)since, SYNC_BATCH, put_full_version, out) != 0 ||
        store_pairs(d->store, false, put_active, out) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
        return 0;
    }
    /* more to come if the batch stopped short of the newest */
    size_t n = acct_count(out->p + ACCT_PROTO_HEADER, out->len - ACCT_PROTO_HEADER,
                          ACCT_T_VERSION_INFO);
    last += (int64_t)n; /* ids are dense from 1: a lower bound is enough */
    acct_put_u64(out, ACCT_T_MORE, n == SYNC_BATCH && last < newest);
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

/* One request on fd; the decoded reply in *m (buffer *buf to free). 0 or -1
 * (logged). */
static int call(int fd, struct acct_wbuf *w, uint8_t **buf, struct acct_msg *m, const char *what)
{
    size_t len;
    *buf = NULL;
    if (acct_wbuf_finish(w) != 0 || acct_client_call(fd, w, SYNC_TIMEOUT_MS, buf, &len, m) != 0) {
        LOG_W("sync: %s to %s failed: %s", what, "the primary", strerror(errno));
        return -1;
    }
    if (m->h.type == ACCT_MSG_ERROR) {
        char msg[512] = "";
        acct_get_str(m->body, m->len, ACCT_T_ERR_MSG, msg, sizeof(msg));
        LOG_W("sync: the primary refused %s: %s", what, msg);
        return -1;
    }
    return 0;
}

/* Store the versions of one SYNC reply; on the last, take the active map.
 * Returns 0, or -1 (diverged or store error). */
static int apply(struct acctd *d, const struct acct_msg *m, bool last, int *nnew)
{
    struct acct_iter it;
    struct acct_field f;
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
                acct_get_u64(f.val, f.len, ACCT_T_PARENT, &parent) ||
                acct_get_u64(f.val, f.len, ACCT_T_HASH, &hash) ||
                !acct_find(f.val, f.len, ACCT_T_RULES_TEXT, &t)) {
                LOG_E("sync: the primary sent an incomplete version");
                return -1;
            }
            /* a follower trusts nothing it did not check: the text must be a
             * valid rules file of that pair and version, with that hash */
            struct acct_rules *r = NULL;
            struct acct_diags dg = ACCT_DIAGS_INIT;
            bool ok = acct_rules_hash(t.val, t.len) == hash &&
                      acct_rules_parse_buffer("sync", (const char *)t.val, t.len, &r, &dg) == 0 &&
                      r->prov.version == (int64_t)id &&
                      strcmp(r->prov.partition, v.partition) == 0 &&
                      strcmp(r->prov.interconnect, v.interconnect) == 0 &&
                      acctd_name_ok(v.partition, ACCT_RULES_NAME_MAX) &&
                      acctd_name_ok(v.interconnect, ACCT_RULES_NAME_MAX);
            acct_rules_free(r);
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
            if (r2 == 2) {
                LOG_E("sync: version %llu differs from the primary's: the stores diverged; "
                      "not following until an administrator resolves it",
                      (unsigned long long)id);
                return -1;
            }
            if (r2 < 0)
                return -1;
            *nnew += r2 == 0;
        } else if (f.tag == ACCT_T_PAIR && last) {
            char p[ACCT_RULES_NAME_MAX + 1], i[ACCT_RULES_NAME_MAX + 1];
            uint64_t id = 0;
            if (acct_get_str(f.val, f.len, ACCT_T_PARTITION, p, sizeof(p)) ||
                acct_get_str(f.val, f.len, ACCT_T_INTERCONNECT, i, sizeof(i)) ||
                acct_get_u64(f.val, f.len, ACCT_T_VERSION, &id) || id > INT64_MAX)
                return -1;
            int64_t prev = 0;
            int r3 = store_activate(d->store, (int64_t)id, "sync from primary", -1, &prev);
            if (r3 == 0) {
                LOG_I("sync: (%s, %s) now at version %llu (was %lld), as on the primary", p, i,
                      (unsigned long long)id, (long long)prev);
                d->rules_dirty = true;
            } else if (r3 != 2) {
                LOG_E("sync: cannot activate version %llu", (unsigned long long)id);
                return -1;
            }
        }
    }
    return 0;
}

/* ---- forwarding samples ------------------------------------------------------------ */

struct fwd {
    struct acct_wbuf *w;
    bool started;
    char job[ACCT_RULES_NAME_MAX + 1], p[ACCT_RULES_NAME_MAX + 1], i[ACCT_RULES_NAME_MAX + 1];
};

static int put_sample(void *arg, const struct store_sample *x)
{
    struct fwd *f = arg;
    struct acct_wbuf *w = f->w;
    if (!f->started) {
        acct_wbuf_start(w, ACCT_MSG_SAMPLES, 100);
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
static int forward(struct acctd *d, int fd, struct acct_wbuf *w, int *sent)
{
    for (int round = 0; round < 50; round++) {
        struct fwd f = {.w = w};
        long uid = -1;
        int64_t last = 0;
        size_t n = 0;
        uint8_t *buf = NULL;
        size_t len;
        struct acct_msg m;
        if (store_outbox_next(d->store, 1000, &uid, &last, &n, put_sample, &f) != 0)
            return -1;
        if (n == 0)
            return 0;
        acct_put_u64(w, ACCT_T_UID, (uint64_t)uid);
        /* this node checked the job's registration (or its policy) at ingest */
        acct_put_u64(w, ACCT_T_CHECKED, 1);
        if (acct_wbuf_finish(w) != 0 ||
            acct_client_call(fd, w, SYNC_TIMEOUT_MS, &buf, &len, &m) != 0) {
            LOG_W("sync: forwarding samples to the primary failed: %s", strerror(errno));
            return -1;
        }
        uint64_t code = 0;
        acct_get_u64(m.body, m.len, ACCT_T_ERR_CODE, &code);
        bool internal = m.h.type == ACCT_MSG_ERROR && code == ACCT_ERR_INTERNAL;
        if (m.h.type == ACCT_MSG_ERROR) {
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

void sync_poll(struct acctd *d, time_t now)
{
    struct acct_wbuf w;
    uint8_t *buf = NULL;
    struct acct_msg m;
    int fd = -1, nnew = 0;
    if (d->cfg.primary[0] == '\0' || now - d->last_sync < d->cfg.sync_interval_s)
        return;
    d->last_sync = now;
    acct_wbuf_init(&w, ACCT_PROTO_MAX_USER_BODY);
    fd = tcp_connect(d->cfg.primary, SYNC_TIMEOUT_MS);
    if (fd < 0) {
        LOG_W("sync: cannot reach the primary %s: %s", d->cfg.primary, strerror(errno));
        goto out;
    }
#ifdef ACCTD_HAVE_MUNGE
    char *cred = NULL;
    munge_ctx_t ctx = munge_ctx_create();
    munge_err_t e = EMUNGE_NO_MEMORY;
    if (ctx != NULL && (d->cfg.munge_socket[0] == '\0' ||
                        munge_ctx_set(ctx, MUNGE_OPT_SOCKET, d->cfg.munge_socket) ==
                            EMUNGE_SUCCESS))
        e = munge_encode(&cred, ctx, NULL, 0);
    if (ctx != NULL)
        munge_ctx_destroy(ctx);
    if (e != EMUNGE_SUCCESS) {
        LOG_W("sync: munge: %s", munge_strerror(e));
        free(cred);
        goto out;
    }
    acct_wbuf_start(&w, ACCT_MSG_AUTH, 1);
    acct_put_str(&w, ACCT_T_MUNGE_CRED, cred);
    free(cred);
    if (call(fd, &w, &buf, &m, "AUTH") != 0)
        goto out;
    free(buf);
    buf = NULL;
#else
    LOG_W("sync: this acctd was built without munge: cannot authenticate to the primary");
    goto out;
#endif
    if (acctd_write_begin(d, NULL) != 0)
        goto out;
    bool ok = true;
    for (int round = 0; ok && round < 1000; round++) {
        uint64_t more = 0;
        acct_wbuf_start(&w, ACCT_MSG_SYNC, (uint32_t)round + 2);
        acct_put_u64(&w, ACCT_T_VERSION, (uint64_t)store_max_version(d->store));
        if (call(fd, &w, &buf, &m, "SYNC") != 0) {
            ok = false;
            break;
        }
        acct_get_u64(m.body, m.len, ACCT_T_MORE, &more);
        ok = apply(d, &m, more == 0, &nnew) == 0;
        free(buf);
        buf = NULL;
        if (more == 0)
            break;
    }
    int sent = 0;
    if (ok)
        forward(d, fd, &w, &sent); /* what was acknowledged is deleted either way */
    acctd_write_end(d, ok);
    if (ok && nnew > 0)
        LOG_I("sync: %d new version%s from the primary", nnew, nnew == 1 ? "" : "s");
    if (ok && sent > 0)
        LOG_D("sync: forwarded %d samples to the primary", sent);
out:
    free(buf);
    if (fd >= 0)
        close(fd);
    acct_wbuf_free(&w);
}
