/* acctd's server: the Unix socket, a ppoll() loop over non-blocking clients,
 * SO_PEERCRED, bounded buffers, dispatch, and group commit.
 *
 * One round of the loop: accept, read every readable client and answer each
 * complete request in turn (write requests inside one transaction for the
 * whole round, each request in its own savepoint), COMMIT, and only then send
 * the replies. So a reply that acknowledges a write leaves the daemon after
 * the data is durable (synchronous=FULL), and many clients' samples share one
 * fsync. If the commit fails, the clients whose replies acknowledged it are
 * disconnected without those replies. The transaction and its commit are
 * txn.c; the output counted per uid, outq.c. */
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
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
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

static void client_free(struct acctd *d, struct client *c)
{
    if (c == NULL)
        return;
    acctd_out_discard(d, c);
    if (c->fd >= 0)
        close(c->fd);
    free(c->in);
    free(c->out);
    free(c);
}

/* The peer's address without the port, for the per-address TCP pool. */
static void peer_addr(const struct sockaddr_storage *ss, char *buf, size_t cap)
{
    const void *a = NULL;
    if (ss->ss_family == AF_INET)
        a = &((const struct sockaddr_in *)ss)->sin_addr;
    else if (ss->ss_family == AF_INET6)
        a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
    if (a == NULL || inet_ntop(ss->ss_family, a, buf, (socklen_t)cap) == NULL)
        snprintf(buf, cap, "?");
}

/* Why a new connection is refused (NULL: accepted). Unix-socket peers share
 * max_clients, of which reserved_clients only root and the admin group may
 * use; one non-root uid holds at most a quarter. TCP peers have their own
 * pool of max_clients / 4, at most tcp_per_address of it per address. */
static const char *refusal(const struct acctd *d, bool tcp, uid_t uid, bool admin,
                           const char *addr, char *why, size_t wl)
{
    long long quarter = d->cfg.max_clients / 4 > 0 ? d->cfg.max_clients / 4 : 1;
    long long local = 0, mine = 0, tcp_peers = 0, same_addr = 0;
    for (size_t i = 0; i < d->nclients; i++) {
        const struct client *o = d->clients[i];
        local += !o->tcp;
        mine += !o->tcp && o->uid == uid;
        tcp_peers += o->tcp;
        same_addr += o->tcp && strcmp(o->addr, addr) == 0;
    }
    long long user_slots = d->cfg.max_clients - d->cfg.reserved_clients;
    if (tcp && tcp_peers >= quarter)
        snprintf(why, wl, "too many TCP connections (max_clients / 4 = %lld)", quarter);
    else if (tcp && same_addr >= d->cfg.tcp_per_address)
        snprintf(why, wl, "too many TCP connections from %s (tcp_per_address %lld)", addr,
                 d->cfg.tcp_per_address);
    else if (!tcp && local >= d->cfg.max_clients)
        snprintf(why, wl, "too many clients (max_clients %lld)", d->cfg.max_clients);
    else if (!tcp && !admin && local >= user_slots)
        snprintf(why, wl,
                 "too many clients (max_clients %lld, of which reserved_clients %lld are for "
                 "root and the admin group)",
                 d->cfg.max_clients, d->cfg.reserved_clients);
    else if (!tcp && uid != 0 && mine >= quarter)
        snprintf(why, wl, "too many connections of uid %u (max_clients / 4 = %lld)",
                 (unsigned)uid, quarter);
    else
        return NULL;
    return why;
}

static void accept_clients(struct acctd *d, int lfd)
{
    bool tcp = lfd == d->tcp_fd;
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        memset(&ss, 0, sizeof(ss));
        int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
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
        char addr[48] = "", why[256];
        if (tcp)
            peer_addr(&ss, addr, sizeof(addr));
        bool admin = !tcp && (cr.uid == 0 ||
                              (d->cfg.admin_gid != (gid_t)-1 &&
                               (cr.gid == d->cfg.admin_gid ||
                                in_group(fd, cr.uid, d->cfg.admin_gid))));
        if (refusal(d, tcp, cr.uid, admin, addr, why, sizeof(why)) != NULL) {
            struct acct_wbuf w;
            acct_wbuf_init(&w, 4096);
            acct_put_error(&w, 0, ACCT_ERR_LIMIT, "%s", why);
            if (acct_wbuf_finish(&w) == 0 &&
                send(fd, w.p, w.len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
                LOG_D("refusing client: %s", strerror(errno));
            acct_wbuf_free(&w);
            close(fd);
            if (tcp)
                LOG_W("refused a TCP peer %s: %s", addr, why);
            else
                LOG_W("refused a client of uid %u: %s", (unsigned)cr.uid, why);
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
        c->uid = c->out_uid = cr.uid;
        c->gid = cr.gid;
        c->tcp = tcp;
        c->admin = admin;
        snprintf(c->addr, sizeof(c->addr), "%s", addr);
        c->max_body = c->admin ? ACCT_PROTO_MAX_BODY : ACCT_PROTO_MAX_USER_BODY;
        c->last_active = c->connected = time(NULL);
        d->clients[d->nclients++] = c;
        if (tcp)
            LOG_D("client fd %d: TCP peer %s", fd, addr);
        else
            LOG_D("client fd %d: pid %ld uid %u%s", fd, (long)cr.pid, (unsigned)cr.uid,
                  c->admin ? " (admin)" : "");
    }
}

/* ---- output ----------------------------------------------------------------- */

/* Queue the finished message w for c. -1: out of memory or over the limit. */
static int queue(struct acctd *d, struct client *c, const struct acct_wbuf *w)
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
    acctd_outq_add(d, c, (long long)w->len);
    return 0;
}

void acctd_flush_client(struct acctd *d, struct client *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            c->out_off += (size_t)n;
            acctd_outq_add(d, c, -(long long)n);
            c->last_active = time(NULL);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n < 0 && errno == EINTR)
            continue;
        c->closing = true; /* peer gone */
        acctd_out_discard(d, c);
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
        /* a document (IMPORT, SET_POLICY) with a NUL byte: name its file */
        char name[256];
        bool named = m.body != NULL &&
                     acct_get_str(m.body, m.len, ACCT_T_NAME, name, sizeof(name)) == 0 &&
                     name[0] != '\0';
        for (const char *p = name; named && *p; p++)
            named = (unsigned char)*p >= 0x20 && *p != 0x7f;
        acct_put_error(out, m.h.id, (enum acct_err)-dec, "%s%s%s", named ? name : "",
                       named ? ": " : "", why);
        LOG_I("client uid %u: invalid message: %s%s%s", (unsigned)c->uid, named ? name : "",
              named ? ": " : "", why);
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

/* May c start another request now? Not while it has unsent output (beyond
 * the small replies this round holds for its commit), not while its uid's
 * connections together have ACCTD_UID_OUT_MAX queued (root and the admin
 * group excepted), not while its write request waits for the store lock.
 * Without flush: the poll loop asks this too. */
static bool may_start(const struct acctd *d, const struct client *c)
{
    size_t pending = c->out_len - c->out_off;
    if (c->closing || c->deferred)
        return false;
    if (pending > (c->awaiting_commit ? ACCTD_HELD_OUT_MAX : 0))
        return false;
    return c->admin || acctd_outq_bytes(d, c->out_uid) < ACCTD_UID_OUT_MAX;
}

static bool is_write(unsigned type)
{
    const struct acctd_request *r = find_request(type);
    return r != NULL && r->write;
}

void acctd_serve_input(struct acctd *d, struct client *c, struct acct_wbuf *out)
{
    if (c->deferred && !d->store_locked)
        c->deferred = false; /* try again */
    for (;;) {
        /* what may go now, goes first; what waits for the commit stays */
        if (c->out_off < c->out_len && !c->awaiting_commit)
            acctd_flush_client(d, c);
        if (!may_start(d, c))
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
                queue(d, c, out);
            LOG_I("client uid %u: %s; closing", (unsigned)c->uid, why);
            c->closing = true;
            return;
        }
        if (total > 0 && c->in_len >= (size_t)total) {
            /* a write waits in its connection while another process holds
             * the store's write lock: reads and other clients go on */
            if (is_write(h.type) && acctd_tx_open(d) != 0 && d->store_locked) {
                c->deferred = true;
                return;
            }
            acct_wbuf_start(out, 0, 0);
            int rc = acctd_handle_message(d, c, c->in, (size_t)total, out);
            if (queue(d, c, out) != 0)
                rc = -1;
            memmove(c->in, c->in + total, c->in_len - (size_t)total);
            c->in_len -= (size_t)total;
            c->last_active = time(NULL);
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
            acctd_out_discard(d, c);
        return;
    }
}

/* ---- the socket ------------------------------------------------------------------- */

static int make_socket_dir(const struct acctd *d)
{
    char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
    snprintf(dir, sizeof(dir), "%s", d->cfg.socket);
    char *slash = strrchr(dir, '/');
    if (slash != NULL && slash != dir) {
        *slash = '\0';
        if (acctd_mkdir_p(dir, 0755) != 0) {
            LOG_E("cannot create %s: %s", dir, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* Bind fd to the socket path (socket_mode), listen, and remember which
 * file it made (st_dev, st_ino): server_fini unlinks only that one. */
static int bind_socket(struct acctd *d, int fd)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    struct stat st;
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", d->cfg.socket);
    mode_t old = umask(0777 & ~d->cfg.socket_mode);
    int b = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
    umask(old);
    if (b != 0) {
        LOG_E("bind %s: %s", d->cfg.socket, strerror(errno));
        return -1;
    }
    if (listen(fd, 128) != 0) {
        LOG_E("listen: %s", strerror(errno));
        unlink(d->cfg.socket); /* the file just made: nobody will answer on it */
        return -1;
    }
    if (lstat(d->cfg.socket, &st) != 0) {
        LOG_E("%s: gone right after bind: %s", d->cfg.socket, strerror(errno));
        return -1;
    }
    d->sock_dev = st.st_dev;
    d->sock_ino = st.st_ino;
    if (chmod(d->cfg.socket, d->cfg.socket_mode) != 0)
        LOG_W("chmod %s: %s", d->cfg.socket, strerror(errno));
    return 0;
}

int server_init(struct acctd *d)
{
    int rc = -1;
    d->listen_fd = -1;
    if (make_socket_dir(d) != 0)
        goto out;
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
    rc = bind_socket(d, d->listen_fd);
out:
    return rc;
}

/* The socket file is acctd's only way in: if somebody removes it, make a
 * new one (once a second at most: an lstat). A path that is now another
 * file is not ours to replace: said once, left alone. */
static void check_socket(struct acctd *d, time_t now)
{
    struct stat st;
    if (now == d->sock_checked || d->listen_fd < 0)
        return;
    d->sock_checked = now;
    if (lstat(d->cfg.socket, &st) == 0) {
        bool ours = st.st_dev == d->sock_dev && st.st_ino == d->sock_ino;
        if (!ours && !d->sock_foreign)
            LOG_E("%s is no longer the socket this acctd bound (another file replaced it); "
                  "leaving it alone: clients cannot reach this acctd until it is removed",
                  d->cfg.socket);
        d->sock_foreign = !ours;
        return;
    }
    if (errno != ENOENT)
        return;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || make_socket_dir(d) != 0 || bind_socket(d, fd) != 0) {
        if (fd >= 0)
            close(fd);
        return; /* logged; next second again */
    }
    accept_clients(d, d->listen_fd); /* who connected before the file went */
    close(d->listen_fd); /* its file is gone: nobody can connect to it now */
    d->listen_fd = fd;
    d->sock_foreign = false;
    LOG_W("%s had vanished: listening on a new socket there", d->cfg.socket);
}

void server_fini(struct acctd *d)
{
    for (size_t i = 0; i < d->nclients; i++) {
        acctd_flush_client(d, d->clients[i]);
        client_free(d, d->clients[i]);
    }
    free(d->clients);
    d->clients = NULL;
    d->nclients = d->cap_clients = 0;
    if (d->listen_fd >= 0) {
        /* only the file this acctd bound: another acctd's may be there now */
        struct stat st;
        if (lstat(d->cfg.socket, &st) == 0 && st.st_dev == d->sock_dev &&
            st.st_ino == d->sock_ino)
            unlink(d->cfg.socket);
        else
            LOG_I("%s is not the socket this acctd bound: not removing it", d->cfg.socket);
        close(d->listen_fd);
        d->listen_fd = -1;
    }
}

/* ---- the loop ----------------------------------------------------------------------- */

/* ---- background work ----------------------------------------------------------------- */

static int row_pruned(void *arg, long uid, int64_t calls)
{
    struct acctd *d = arg;
    int64_t *rows = quota_rows(d, (uid_t)uid);
    if (rows != NULL && *rows > 0)
        (*rows)--;
    d->samples_total -= calls;
    return 0;
}

/* One step of the background pass every refine_interval: first each pair
 * of the statistics loses its rows older than sample_max_age_days, then
 * each pair with an active version is refined; one pair per round of the
 * loop, in that round's transaction, so clients are served in between.
 * Postponed while another process holds the store's write lock. */
static void background_step(struct acctd *d, time_t now)
{
    if (d->cfg.refine_interval_s <= 0 || d->cfg.primary[0] != '\0')
        return;
    if (d->bg_phase == 0) {
        if (now - d->last_refine < d->cfg.refine_interval_s)
            return;
        d->bg_phase = 1;
        d->bg_p[0] = d->bg_i[0] = '\0';
        d->bg_next = 0;
    }
    if (acctd_write_begin(d, NULL) != 0)
        return; /* the next round tries again */
    int k = 0;
    if (d->bg_phase == 1) {
        char p[sizeof(d->bg_p)], i[sizeof(d->bg_i)];
        int r = store_next_sample_pair(d->store, d->bg_p, d->bg_i, p, i, sizeof(p));
        if (r == 0) {
            snprintf(d->bg_p, sizeof(d->bg_p), "%s", p);
            snprintf(d->bg_i, sizeof(d->bg_i), "%s", i);
            k = store_prune_pair(d->store, p, i,
                                 (int64_t)now - d->cfg.sample_max_age_days * 86400, row_pruned,
                                 d);
            if (k > 0)
                LOG_I("pruned %d sample rows of %s/%s older than %lld days", k, p, i,
                      d->cfg.sample_max_age_days);
        } else {
            k = r < 0 ? -1 : 0;
            d->bg_phase = 2;
        }
    } else if (d->bg_next < d->npairs) {
        char p[sizeof(d->bg_p)], i[sizeof(d->bg_i)];
        snprintf(p, sizeof(p), "%s", d->pairs[d->bg_next].partition);
        snprintf(i, sizeof(i), "%s", d->pairs[d->bg_next].interconnect);
        d->bg_next++;
        k = refine_run(d, p, i, NULL);
        if (k > 0)
            LOG_I("refinement of %s/%s wrote %d version%s", p, i, k, k == 1 ? "" : "s");
    } else {
        d->bg_phase = 0;
        d->last_refine = now;
    }
    if (k < 0) {
        LOG_E("background pass: %s; again in refine_interval", store_errmsg(d->store));
        d->bg_phase = 0;
        d->last_refine = now;
    }
    acctd_write_end(d, k >= 0);
}

/* ---- the loop ----------------------------------------------------------------------- */

/* Why client c must go now (NULL: it stays). */
static const char *stalled(const struct acctd *d, const struct client *c, time_t now)
{
    if (c->tcp && !c->authed && now - c->connected > d->cfg.auth_timeout_s)
        return "no AUTH within auth_timeout";
    if ((c->in_len > 0 || c->out_off < c->out_len) && !c->deferred &&
        now - c->last_active > d->cfg.client_timeout_s)
        return "no progress within client_timeout";
    if (c->in_len == 0 && c->out_off >= c->out_len && !c->deferred && !c->closing &&
        now - c->last_active > d->cfg.idle_timeout_s)
        return "idle for idle_timeout";
    return NULL;
}

/* After the commit: send, drop stalled, idle and finished clients. */
static void send_and_drop(struct acctd *d, time_t now)
{
    size_t keep = 0;
    for (size_t i = 0; i < d->nclients; i++) {
        struct client *c = d->clients[i];
        acctd_flush_client(d, c);
        const char *drop = stalled(d, c, now);
        if (drop != NULL)
            LOG_I("dropping client %s%s uid %u: %s", c->tcp ? "TCP " : "", c->addr,
                  (unsigned)c->uid, drop);
        if (drop != NULL || (c->closing && c->out_off >= c->out_len)) {
            client_free(d, c);
            continue;
        }
        d->clients[keep++] = c;
    }
    d->nclients = keep;
}

/* The poll set of this round in pf (room for nclients + 2: the socket, the
 * TCP socket, the clients) and how long to wait in *ts. */
static void poll_set(struct acctd *d, struct pollfd *pf, struct timespec *ts)
{
    bool waiting = false;
    pf[0] = (struct pollfd){.fd = d->listen_fd, .events = POLLIN};
    pf[1] = (struct pollfd){.fd = d->tcp_fd, .events = POLLIN}; /* -1: ignored */
    for (size_t i = 0; i < d->nclients; i++) {
        struct client *c = d->clients[i];
        short ev = 0;
        if (may_start(d, c))
            ev |= POLLIN;
        if (c->out_off < c->out_len)
            ev |= POLLOUT;
        waiting |= c->deferred;
        pf[i + 2] = (struct pollfd){.fd = c->fd, .events = ev};
    }
    /* writes waiting for another process's lock retry every 100 ms; a
     * background pass goes on as soon as the clients are served */
    *ts = (struct timespec){.tv_sec = 1};
    if (waiting)
        *ts = (struct timespec){.tv_nsec = ACCTD_LOCK_RETRY_MS * 1000 * 1000};
    if (d->bg_phase != 0 && !d->lock_seen)
        *ts = (struct timespec){0};
    else if (d->bg_phase != 0)
        *ts = (struct timespec){.tv_nsec = ACCTD_LOCK_RETRY_MS * 1000 * 1000};
}

/* Serve what ppoll reported for the first polled clients, accept new ones. */
static void serve_polled(struct acctd *d, const struct pollfd *pf, size_t polled,
                         struct acct_wbuf *out)
{
    for (size_t i = 0; i < polled; i++) {
        struct client *c = d->clients[i];
        short re = pf[i + 2].revents;
        if (re & (POLLIN | POLLOUT | POLLHUP | POLLERR))
            acctd_serve_input(d, c, out);
        /* a peer that hung up and whose requests cannot start now
         * never reads their replies: poll would report it forever */
        if ((re & (POLLHUP | POLLERR)) && !c->closing && !may_start(d, c)) {
            acctd_out_discard(d, c);
            c->closing = true;
            c->deferred = false;
        }
    }
    if (pf[0].revents & POLLIN)
        accept_clients(d, d->listen_fd);
    if (d->tcp_fd >= 0 && (pf[1].revents & POLLIN))
        accept_clients(d, d->tcp_fd);
}

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
        d->store_locked = false; /* this round tries the lock again */
        struct timespec ts;
        poll_set(d, pf, &ts);
        int n = ppoll(pf, d->nclients + 2, &ts, &empty);
        if (n < 0 && errno != EINTR) {
            LOG_E("ppoll: %s", strerror(errno));
            goto out;
        }
        time_t now = time(NULL);
        size_t polled = d->nclients;
        if (n > 0)
            serve_polled(d, pf, polled, &out);
        /* writes that waited for the store lock, in connection order */
        for (size_t i = 0; i < polled && !d->store_locked; i++)
            if (d->clients[i]->deferred)
                acctd_serve_input(d, d->clients[i], &out);
        /* a follower copies the primary's versions and active map */
        sync_poll(d, now);
        background_step(d, now);
        rulesdir_poll(d, now); /* retry rules files that could not be written */
        check_socket(d, now);
        acctd_commit_now(d);
        send_and_drop(d, now);
    }
    rc = 0;
out:
    /* SIGTERM: the round's transaction is committed above; nothing half-done */
    acctd_commit_now(d);
    free(pf);
    acct_wbuf_free(&out);
    return rc;
}
