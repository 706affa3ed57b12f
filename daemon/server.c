/* acctd's server: the Unix socket, a ppoll() loop over non-blocking clients,
 * SO_PEERCRED, bounded buffers, dispatch, and group commit.
 *
 * One round of the loop: accept, read every readable client and answer each
 * complete request in turn (write requests inside one transaction for the
 * whole round, each request in its own savepoint), COMMIT, and only then send
 * the replies. So a reply that acknowledges a write leaves the daemon after
 * the data is durable (synchronous=FULL), and many clients' samples share one
 * fsync. If the commit fails, the clients whose replies acknowledged it are
 * disconnected without those replies. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "acct/common.h"
#include "acctd.h"

#define READ_CHUNK 65536

/* ---- peers ------------------------------------------------------------------ */

/* Is gid among the peer's supplementary groups? SO_PEERGROUPS gives the
 * groups the connecting process had when it called connect() (no race with
 * a reused PID); kernels without it fall back to the group database of the
 * peer's uid. */
static bool in_group(int fd, uid_t uid, gid_t gid)
{
    gid_t groups[1024];
    socklen_t len = sizeof(groups);
    bool found = false;
#ifdef SO_PEERGROUPS
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) == 0) {
        for (size_t i = 0; i < len / sizeof(gid_t); i++)
            found |= groups[i] == gid;
        return found;
    }
#else
    (void)fd;
    (void)len;
#endif
    struct passwd *pw = getpwuid(uid);
    if (pw != NULL) {
        int n = (int)ACCT_ARRAY_LEN(groups);
        if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) >= 0)
            for (int i = 0; i < n; i++)
                found |= groups[i] == gid;
    }
    return found;
}

static void client_free(struct client *c)
{
    if (c == NULL)
        return;
    if (c->fd >= 0)
        close(c->fd);
    free(c->in);
    free(c->out);
    free(c);
}

static void accept_clients(struct acctd *d, int lfd)
{
    bool tcp = lfd == d->tcp_fd;
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
                errno != ECONNABORTED)
                LOG_W("accept: %s", strerror(errno));
            return;
        }
        struct ucred cr = {.pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1};
        socklen_t cl = sizeof(cr);
        if (!tcp && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0) {
            LOG_W("SO_PEERCRED: %s", strerror(errno));
            close(fd);
            continue;
        }
        /* one user may hold at most a quarter of the connections (root: all) */
        size_t mine = 0;
        for (size_t i = 0; !tcp && i < d->nclients; i++)
            mine += !d->clients[i]->tcp && d->clients[i]->uid == cr.uid;
        long long per_user = d->cfg.max_clients / 4 > 0 ? d->cfg.max_clients / 4 : 1;
        /* TCP peers (not yet known) share one quarter too */
        size_t tcp_peers = 0;
        for (size_t i = 0; tcp && i < d->nclients; i++)
            tcp_peers += d->clients[i]->tcp;
        bool over_user = tcp ? (long long)tcp_peers >= per_user
                             : cr.uid != 0 && (long long)mine >= per_user;
        if ((long long)d->nclients >= d->cfg.max_clients || over_user) {
            struct acct_wbuf w;
            acct_wbuf_init(&w, 4096);
            if (over_user && tcp)
                acct_put_error(&w, 0, ACCT_ERR_LIMIT,
                               "too many TCP connections (max_clients / 4 = %lld)", per_user);
            else if (over_user)
                acct_put_error(&w, 0, ACCT_ERR_LIMIT,
                               "too many connections of uid %u (max_clients / 4 = %lld)",
                               (unsigned)cr.uid, per_user);
            else
                acct_put_error(&w, 0, ACCT_ERR_LIMIT, "too many clients (max_clients %lld)",
                               d->cfg.max_clients);
            if (acct_wbuf_finish(&w) == 0 &&
                send(fd, w.p, w.len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
                LOG_D("refusing client: %s", strerror(errno));
            acct_wbuf_free(&w);
            close(fd);
            LOG_W("refused a client of uid %u: %s", (unsigned)cr.uid,
                  over_user ? "its connection quota is used up" : "max_clients reached");
            continue;
        }
        struct client *c = calloc(1, sizeof(*c));
        if (c == NULL || (d->nclients == d->cap_clients && d->cap_clients > SIZE_MAX / 4)) {
            free(c);
            close(fd);
            continue;
        }
        if (d->nclients == d->cap_clients) {
            size_t cap = d->cap_clients ? d->cap_clients * 2 : 16;
            struct client **nc = realloc(d->clients, cap * sizeof(*nc));
            if (nc == NULL) {
                free(c);
                close(fd);
                continue;
            }
            d->clients = nc;
            d->cap_clients = cap;
        }
        c->fd = fd;
        c->pid = cr.pid;
        c->uid = cr.uid;
        c->gid = cr.gid;
        c->tcp = tcp;
        c->admin = !tcp && (cr.uid == 0 ||
                   (d->cfg.admin_gid != (gid_t)-1 &&
                    (cr.gid == d->cfg.admin_gid || in_group(fd, cr.uid, d->cfg.admin_gid))));
        c->max_body = c->admin ? ACCT_PROTO_MAX_BODY : ACCT_PROTO_MAX_USER_BODY;
        c->last_active = time(NULL);
        d->clients[d->nclients++] = c;
        LOG_D("client fd %d: pid %ld uid %u%s", fd, (long)cr.pid, (unsigned)cr.uid,
              c->admin ? " (admin)" : "");
    }
}

/* ---- output ----------------------------------------------------------------- */

/* Queue the finished message w for c. -1: out of memory or over the limit. */
static int queue(struct client *c, const struct acct_wbuf *w)
{
    size_t pending = c->out_len - c->out_off;
    if (pending + w->len > (size_t)ACCT_PROTO_MAX_BODY * 2)
        return -1;
    if (c->out_off > 0 && c->out_off == c->out_len)
        c->out_off = c->out_len = 0;
    if (c->out_len + w->len > c->out_cap) {
        size_t cap = c->out_cap ? c->out_cap : 4096;
        while (cap < c->out_len + w->len)
            cap *= 2;
        uint8_t *n = realloc(c->out, cap);
        if (n == NULL)
            return -1;
        c->out = n;
        c->out_cap = cap;
    }
    memcpy(c->out + c->out_len, w->p, w->len);
    c->out_len += w->len;
    return 0;
}

static void flush_client(struct client *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            c->out_off += (size_t)n;
            c->last_active = time(NULL);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n < 0 && errno == EINTR)
            continue;
        c->closing = true; /* peer gone */
        c->out_off = c->out_len;
        return;
    }
    c->out_off = c->out_len = 0;
    /* give memory back after a large reply */
    if (c->out_cap > 1 << 20) {
        free(c->out);
        c->out = NULL;
        c->out_cap = 0;
    }
}

/* ---- transactions ------------------------------------------------------------- */

int acctd_write_begin(struct acctd *d, struct client *c)
{
    if (!d->tx_open) {
        if (store_begin(d->store) != 0) {
            LOG_E("cannot begin a transaction: %s", store_errmsg(d->store));
            return -1;
        }
        d->tx_open = true;
    }
    if (c != NULL)
        c->awaiting_commit = true;
    if (store_savepoint(d->store) != 0) {
        LOG_E("cannot open a savepoint: %s", store_errmsg(d->store));
        return -1;
    }
    return 0;
}

void acctd_write_end(struct acctd *d, bool ok)
{
    store_release(d->store, ok);
}

/* After the commit (or its failure): replies may go, or the clients that
 * expected an acknowledgement are dropped. */
static void settle(struct acctd *d, bool committed)
{
    for (size_t i = 0; i < d->nclients; i++) {
        struct client *c = d->clients[i];
        if (!c->awaiting_commit)
            continue;
        c->awaiting_commit = false;
        if (!committed) {
            c->out_len = c->out_off = 0;
            c->closing = true;
        }
    }
}

int acctd_commit_now(struct acctd *d)
{
    int rc = 0;
    if (!d->tx_open)
        goto out;
    d->tx_open = false;
    if (store_commit(d->store) != 0) {
        LOG_E("commit failed: %s; the requests of this round are undone",
              store_errmsg(d->store));
        store_rollback_tx(d->store);
        settle(d, false);
        d->rules_dirty = true; /* the cache may hold uncommitted versions */
        d->samples_total = store_count_samples(d->store);
        rc = -1;
        goto out;
    }
    settle(d, true);
out:
    if (d->rules_dirty) {
        d->rules_dirty = false;
        if (rulesdir_sync(d) != 0)
            LOG_E("cannot materialise the rules files in %s", d->cfg.rules_dir);
    }
    return rc;
}

/* ---- requests ------------------------------------------------------------------ */

static const struct acctd_request *find_request(unsigned type)
{
    for (const struct acctd_request *r = acctd_requests; r->fn != NULL; r++)
        if ((unsigned)r->type == type)
            return r;
    return NULL;
}

int acctd_handle_message(struct acctd *d, struct client *c, const uint8_t *buf, size_t len,
                         struct acct_wbuf *out)
{
    struct acct_msg m;
    char why[256];
    int rc = 0;
    int dec = acct_proto_decode(buf, len, c->max_body, &m, why, sizeof(why));
    if (dec != 0) {
        acct_put_error(out, m.h.id, (enum acct_err)-dec, "%s", why);
        LOG_I("client uid %u: invalid message: %s", (unsigned)c->uid, why);
        rc = -1;
        goto out;
    }
    if (c->tcp && !c->authed && m.h.type != ACCT_MSG_AUTH) {
        acct_put_error(out, m.h.id, ACCT_ERR_PERMISSION,
                       "a TCP peer must authenticate first (AUTH with a munge credential)");
        rc = -1;
        goto out;
    }
    /* a follower's requests are signed and limited to syncing (sync.c) */
    if (c->follower && sync_check_request(d, c, &m, out) != 0) {
        rc = -1;
        goto out;
    }
    const struct acctd_request *r = find_request(m.h.type);
    if (r == NULL) {
        acct_put_error(out, m.h.id, ACCT_ERR_UNKNOWN_TYPE, "unknown message type %u",
                       m.h.type);
        goto out;
    }
    if (r->admin && !c->admin) {
        acct_put_error(out, m.h.id, ACCT_ERR_PERMISSION,
                       "%s needs root or the admin group%s%s", acct_msg_type_name(m.h.type),
                       d->cfg.admin_group[0] ? " " : "", d->cfg.admin_group);
        LOG_I("refused %s from uid %u: not an administrator", acct_msg_type_name(m.h.type),
              (unsigned)c->uid);
        goto out;
    }
    if (r->primary_only && d->cfg.primary[0] != '\0') {
        acct_put_error(out, m.h.id, ACCT_ERR_CONFLICT,
                       "this node follows the primary %s: send %s there", d->cfg.primary,
                       acct_msg_type_name(m.h.type));
        goto out;
    }
    rc = r->fn(d, c, &m, out);
out:
    if (c->follower && rc == 0 && sync_sign_reply(d, c, &m, out) != 0) {
        acct_put_error(out, m.h.id, ACCT_ERR_INTERNAL, "cannot sign the reply (see the log)");
        rc = -1;
    }
    if (acct_wbuf_finish(out) != 0) {
        acct_put_error(out, m.h.id, ACCT_ERR_INTERNAL, "reply too large or out of memory");
        acct_wbuf_finish(out);
    }
    return rc;
}

/* Read what is there and answer every complete request. */
static void serve_input(struct acctd *d, struct client *c, struct acct_wbuf *out)
{
    for (;;) {
        if (c->closing)
            return;
        /* stop reading while the peer does not read its replies */
        if (c->out_len - c->out_off > ACCT_PROTO_MAX_USER_BODY)
            return;
        struct acct_hdr h = {0};
        long total = c->in_len > 0 ? acct_proto_frame(c->in, c->in_len, c->max_body, &h) : 0;
        if (total < 0) {
            const char *why = total == -ACCT_ERR_VERSION ? "unsupported protocol version"
                              : total == -ACCT_ERR_TOO_LARGE
                                  ? "message body over this peer's limit"
                                  : "bad magic (not an ACCT message)";
            acct_put_error(out, c->in_len >= ACCT_PROTO_HEADER ? h.id : 0,
                           (enum acct_err)-total, "%s", why);
            if (acct_wbuf_finish(out) == 0)
                queue(c, out);
            LOG_I("client uid %u: %s; closing", (unsigned)c->uid, why);
            c->closing = true;
            return;
        }
        if (total > 0 && c->in_len >= (size_t)total) {
            acct_wbuf_start(out, 0, 0);
            int rc = acctd_handle_message(d, c, c->in, (size_t)total, out);
            if (queue(c, out) != 0)
                rc = -1;
            memmove(c->in, c->in + total, c->in_len - (size_t)total);
            c->in_len -= (size_t)total;
            if (rc != 0)
                c->closing = true;
            continue;
        }
        /* need more bytes: read at most what the frame still needs (or a chunk) */
        size_t want = total > 0 ? (size_t)total - c->in_len : READ_CHUNK;
        if (want > READ_CHUNK * 16)
            want = READ_CHUNK * 16;
        if (c->in_cap - c->in_len < want) {
            size_t cap = c->in_len + want;
            uint8_t *n = realloc(c->in, cap);
            if (n == NULL) {
                c->closing = true;
                return;
            }
            c->in = n;
            c->in_cap = cap;
        }
        ssize_t n = recv(c->fd, c->in + c->in_len, want, MSG_DONTWAIT);
        if (n > 0) {
            c->in_len += (size_t)n;
            c->last_active = time(NULL);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        /* EOF: the peer may have only shut down its sending side and still
         * wait for the replies queued above; an error discards them */
        c->closing = true;
        if (n < 0)
            c->out_off = c->out_len;
        return;
    }
}

/* ---- the socket ------------------------------------------------------------------- */

int server_init(struct acctd *d)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int rc = -1;
    d->listen_fd = -1;
    char dir[sizeof(sa.sun_path)];
    snprintf(dir, sizeof(dir), "%s", d->cfg.socket);
    char *slash = strrchr(dir, '/');
    if (slash != NULL && slash != dir) {
        *slash = '\0';
        if (acctd_mkdir_p(dir, 0755) != 0) {
            LOG_E("cannot create %s: %s", dir, strerror(errno));
            goto out;
        }
    }
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", d->cfg.socket);
    d->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (d->listen_fd < 0) {
        LOG_E("socket: %s", strerror(errno));
        goto out;
    }
    /* a stale socket from a crash: remove it only if nobody answers on it */
    int probe = acct_client_connect(d->cfg.socket, 200);
    if (probe >= 0) {
        close(probe);
        LOG_E("%s: another acctd is listening there", d->cfg.socket);
        goto out;
    }
    struct stat st;
    if (lstat(d->cfg.socket, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            LOG_E("%s exists and is not a socket; refusing to replace it", d->cfg.socket);
            goto out;
        }
        unlink(d->cfg.socket);
    }
    mode_t old = umask(0777 & ~d->cfg.socket_mode);
    int b = bind(d->listen_fd, (struct sockaddr *)&sa, sizeof(sa));
    umask(old);
    if (b != 0) {
        LOG_E("bind %s: %s", d->cfg.socket, strerror(errno));
        goto out;
    }
    if (chmod(d->cfg.socket, d->cfg.socket_mode) != 0)
        LOG_W("chmod %s: %s", d->cfg.socket, strerror(errno));
    if (listen(d->listen_fd, 128) != 0) {
        LOG_E("listen: %s", strerror(errno));
        goto out;
    }
    rc = 0;
out:
    return rc;
}

void server_fini(struct acctd *d)
{
    for (size_t i = 0; i < d->nclients; i++) {
        flush_client(d->clients[i]);
        client_free(d->clients[i]);
    }
    free(d->clients);
    d->clients = NULL;
    d->nclients = d->cap_clients = 0;
    if (d->listen_fd >= 0) {
        close(d->listen_fd);
        unlink(d->cfg.socket);
        d->listen_fd = -1;
    }
}

/* ---- the loop ----------------------------------------------------------------------- */

int server_run(struct acctd *d, volatile int *stop, volatile int *reload,
               int (*reload_fn)(struct acctd *))
{
    struct pollfd *pf = NULL;
    size_t pf_cap = 0;
    struct acct_wbuf out;
    sigset_t empty;
    int rc = -1;
    sigemptyset(&empty);
    acct_wbuf_init(&out, ACCT_PROTO_MAX_BODY);
    while (!*stop) {
        if (*reload || d->reload_requested) {
            *reload = 0;
            d->reload_requested = false;
            acctd_notify("RELOADING=1");
            reload_fn(d);
            acctd_notify("READY=1");
        }
        if (pf_cap < d->nclients + 2) {
            size_t cap = d->nclients + 16;
            struct pollfd *n = realloc(pf, cap * sizeof(*n));
            if (n == NULL) {
                LOG_E("out of memory");
                goto out;
            }
            pf = n;
            pf_cap = cap;
        }
        pf[0] = (struct pollfd){.fd = d->listen_fd, .events = POLLIN};
        for (size_t i = 0; i < d->nclients; i++) {
            struct client *c = d->clients[i];
            short ev = 0;
            if (!c->closing && c->out_len - c->out_off <= ACCT_PROTO_MAX_USER_BODY)
                ev |= POLLIN;
            if (c->out_off < c->out_len)
                ev |= POLLOUT;
            pf[i + 2] = (struct pollfd){.fd = c->fd, .events = ev};
        }
        pf[1] = (struct pollfd){.fd = d->tcp_fd, .events = POLLIN}; /* -1: ignored */
        struct timespec ts = {.tv_sec = 1};
        int n = ppoll(pf, d->nclients + 2, &ts, &empty);
        if (n < 0 && errno != EINTR) {
            LOG_E("ppoll: %s", strerror(errno));
            goto out;
        }
        time_t now = time(NULL);
        size_t polled = d->nclients;
        if (n > 0) {
            for (size_t i = 0; i < polled; i++) {
                struct client *c = d->clients[i];
                if (pf[i + 2].revents & (POLLIN | POLLHUP | POLLERR))
                    serve_input(d, c, &out);
            }
            if (pf[0].revents & POLLIN)
                accept_clients(d, d->listen_fd);
            if (d->tcp_fd >= 0 && (pf[1].revents & POLLIN))
                accept_clients(d, d->tcp_fd);
        }
        /* a follower copies the primary's versions and active map */
        sync_poll(d, now);
        /* background refinement, in this round's transaction */
        if (d->cfg.refine_interval_s > 0 && d->cfg.primary[0] == '\0' &&
            now - d->last_refine >= d->cfg.refine_interval_s) {
            d->last_refine = now;
            if (acctd_write_begin(d, NULL) == 0) {
                /* old statistics go first: sample_max_age_days */
                int k = store_prune_samples(d->store, (int64_t)now - d->cfg.sample_max_age_days * 86400);
                if (k == 0) {
                    d->samples_total = store_count_samples(d->store);
                    k = refine_run(d, NULL, NULL, NULL);
                }
                acctd_write_end(d, k >= 0);
                if (k > 0)
                    LOG_I("refinement wrote %d version%s", k, k == 1 ? "" : "s");
            }
        }
        acctd_commit_now(d);
        /* send, drop idle / finished clients */
        size_t keep = 0;
        for (size_t i = 0; i < d->nclients; i++) {
            struct client *c = d->clients[i];
            flush_client(c);
            /* a TCP peer must authenticate within client_timeout too */
            bool stalled = (c->in_len > 0 || c->out_off < c->out_len ||
                            (c->tcp && !c->authed)) &&
                           now - c->last_active > d->cfg.client_timeout_s;
            if (stalled)
                LOG_I("dropping client uid %u: no progress for %lld s", (unsigned)c->uid,
                      d->cfg.client_timeout_s);
            if (stalled || (c->closing && c->out_off >= c->out_len)) {
                client_free(c);
                continue;
            }
            d->clients[keep++] = c;
        }
        d->nclients = keep;
    }
    rc = 0;
out:
    /* SIGTERM: the round's transaction is committed above; nothing half-done */
    acctd_commit_now(d);
    free(pf);
    acct_wbuf_free(&out);
    return rc;
}
