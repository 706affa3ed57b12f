/* acctd-raw: send hand-made (mostly malformed) messages to acctd and report
 * what came back, for the black-box tests (tests/daemon/050-*.sh).
 *
 *   acctd-raw SOCKET CASE [ARG]
 *
 * prints one line: "CASE: reply=TYPE err=ERRNAME closed=yes|no" (reply=none
 * when nothing came back before the connection closed). CASEs are listed in
 * the table at the end ("import-file FILE" sends FILE as it is as an
 * IMPORT; the error's message follows as msg=...); "hold" sends half a header and keeps the
 * connection open for ARG seconds; "flood" opens ARG connections at once
 * and reports how many were answered and how many refused with LIMIT.
 * "idle N:WAIT" opens N connections, says HELLO on each (counting the
 * answers and the LIMIT refusals), then sends nothing and reports how many
 * of the answered ones acctd closed within WAIT seconds. "noread N:K:WAIT"
 * opens N connections, sends K LIST_SAMPLES on each (as many as the socket
 * takes), never reads, and holds them WAIT seconds. "get-rules P/I" asks
 * GET_RULES for that pair. "tcp-silent N:WAIT" (SOCKET is HOST:PORT) opens
 * N TCP connections that never send AUTH and reports how many acctd
 * refused at once (LIMIT) and how many it dropped within WAIT seconds.
 *
 *   acctd-raw SOCKET serve MODE
 *
 * is the other way round: a fake acctd on SOCKET that answers every request
 * badly (MODE: close, bad-magic, wrong-type, empty-error, empty-reply,
 * truncated), for testing acctctl's handling of a broken daemon. It exits
 * after 20 s without a connection. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#include "acct/proto.h"

#define TIMEOUT_MS 5000

static int connect_to(const char *path)
{
    struct sockaddr_un sa;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int send_all(int fd, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t k = send(fd, p, len, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1; /* EPIPE/ECONNRESET: the daemon closed on us */
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

/* Read exactly len bytes within the timeout. 0, or -1 (closed/timeout:
 * *closed says which). */
static int recv_all(int fd, uint8_t *buf, size_t len, int timeout_ms, int *closed)
{
    size_t n = 0;
    *closed = 0;
    while (n < len) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, timeout_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        ssize_t k = recv(fd, buf + n, len - n, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            *closed = 1;
            return -1;
        }
        n += (size_t)k;
    }
    return 0;
}

/* Read one reply and describe it; after the last one, see whether the
 * daemon closed the connection. */
static void report(const char *name, int fd, int last)
{
    uint8_t hdr[ACCT_PROTO_HEADER];
    uint8_t *body = NULL;
    struct acct_hdr h;
    const char *type = "none", *err = "-";
    char extra[96] = "", msg[1100] = "";
    int closed = 0;
    long total;

    if (recv_all(fd, hdr, sizeof(hdr), TIMEOUT_MS, &closed) == 0) {
        total = acct_proto_frame(hdr, sizeof(hdr), ACCT_PROTO_MAX_BODY, &h);
        if (total > 0) {
            body = malloc((size_t)total);
            if (body != NULL) {
                memcpy(body, hdr, sizeof(hdr));
                if (recv_all(fd, body + sizeof(hdr), (size_t)total - sizeof(hdr), TIMEOUT_MS,
                             &closed) == 0) {
                    struct acct_msg m;
                    char why[128];
                    if (acct_proto_decode(body, (size_t)total, ACCT_PROTO_MAX_BODY, &m, why,
                                          sizeof(why)) == 0) {
                        uint64_t code, acc, rej;
                        type = h.type == ACCT_MSG_ERROR ? "ERROR"
                               : (h.type & ACCT_MSG_REPLY) ? acct_msg_type_name(h.type & 0x7f)
                                                           : "?";
                        if (acct_get_u64(m.body, m.len, ACCT_T_ERR_CODE, &code) == 0)
                            err = acct_err_name((unsigned)code);
                        char em[1024];
                        if (acct_get_str(m.body, m.len, ACCT_T_ERR_MSG, em, sizeof(em)) == 0)
                            snprintf(msg, sizeof(msg), " msg=%s", em);
                        if (acct_get_u64(m.body, m.len, ACCT_T_ACCEPTED, &acc) == 0 &&
                            acct_get_u64(m.body, m.len, ACCT_T_REJECTED, &rej) == 0)
                            snprintf(extra, sizeof(extra), " accepted=%llu rejected=%llu",
                                     (unsigned long long)acc, (unsigned long long)rej);
                    } else {
                        type = "malformed";
                    }
                }
            }
        } else {
            type = "malformed";
        }
    }
    if (!closed && last) {
        /* closed now? (EOF within a short wait) */
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, 300) > 0) {
            char c;
            closed = recv(fd, &c, 1, MSG_DONTWAIT) <= 0;
        }
    }
    printf("%s: reply=%s err=%s closed=%s%s%s\n", name, type, err, closed ? "yes" : "no", extra,
           msg);
    free(body);
}

static void put_hdr(uint8_t *p, const char *magic, unsigned version, unsigned type,
                    uint32_t len, uint32_t id)
{
    memcpy(p, magic, 4);
    p[4] = (uint8_t)version;
    p[5] = (uint8_t)type;
    p[6] = p[7] = 0;
    for (int i = 0; i < 4; i++) {
        p[8 + i] = (uint8_t)(len >> (24 - 8 * i));
        p[12 + i] = (uint8_t)(id >> (24 - 8 * i));
    }
}

static size_t put_field(uint8_t *p, unsigned tag, const void *val, uint32_t len)
{
    p[0] = (uint8_t)(tag >> 8);
    p[1] = (uint8_t)tag;
    for (int i = 0; i < 4; i++)
        p[2 + i] = (uint8_t)(len >> (24 - 8 * i));
    if (len > 0)
        memcpy(p + 6, val, len);
    return 6 + (size_t)len;
}

/* A message of type with the given raw body. */
static int send_msg(int fd, unsigned type, const uint8_t *body, size_t len)
{
    uint8_t *m = malloc(ACCT_PROTO_HEADER + len);
    int rc;
    if (m == NULL)
        return -1;
    put_hdr(m, "ACCT", ACCT_PROTO_VERSION, type, (uint32_t)len, 1);
    if (len > 0)
        memcpy(m + ACCT_PROTO_HEADER, body, len);
    rc = send_all(fd, m, ACCT_PROTO_HEADER + len);
    free(m);
    return rc;
}

static int send_wbuf(int fd, struct acct_wbuf *w)
{
    int rc = acct_wbuf_finish(w) == 0 ? send_all(fd, w->p, w->len) : -1;
    acct_wbuf_free(w);
    return rc;
}

static int c_bad_magic(int fd, const char *arg)
{
    uint8_t h[ACCT_PROTO_HEADER];
    (void)arg;
    put_hdr(h, "XCCT", ACCT_PROTO_VERSION, ACCT_MSG_STATUS, 0, 1);
    return send_all(fd, h, sizeof(h));
}

static int c_bad_version(int fd, const char *arg)
{
    uint8_t h[ACCT_PROTO_HEADER];
    (void)arg;
    put_hdr(h, "ACCT", 9, ACCT_MSG_STATUS, 0, 1);
    return send_all(fd, h, sizeof(h));
}

/* A header announcing ARG bytes (default: 4 GiB - 1), then nothing. */
static int c_too_large(int fd, const char *arg)
{
    uint8_t h[ACCT_PROTO_HEADER];
    uint32_t len = arg != NULL ? (uint32_t)strtoul(arg, NULL, 10) : 0xffffffffu;
    put_hdr(h, "ACCT", ACCT_PROTO_VERSION, ACCT_MSG_STATUS, len, 1);
    return send_all(fd, h, sizeof(h));
}

/* A header announcing ARG bytes followed by all of them (zeros): a body
 * over the peer's limit sent in full. */
static int c_too_large_sent(int fd, const char *arg)
{
    uint32_t len = arg != NULL ? (uint32_t)strtoul(arg, NULL, 10) : 2u * 1024 * 1024;
    uint8_t *b = calloc(1, len);
    int rc;
    if (b == NULL)
        return -1;
    rc = send_msg(fd, ACCT_MSG_STATUS, b, len);
    if (rc != 0) /* the daemon may close before reading it all */
        rc = 0;
    free(b);
    return rc;
}

static int c_field_overrun(int fd, const char *arg)
{
    uint8_t b[16];
    (void)arg;
    put_field(b, ACCT_T_PARTITION, "eth", 3);
    b[5] = 100; /* the value claims 100 bytes, the body has 3 */
    return send_msg(fd, ACCT_MSG_GET_RULES, b, 9);
}

/* IMPORT of the file ARG as it is (NUL bytes included: the length says
 * where the text ends), NAME = ARG. */
static int c_import_file(int fd, const char *arg)
{
    static char text[1 << 20];
    FILE *f = arg != NULL ? fopen(arg, "rb") : NULL;
    if (f == NULL)
        return -1;
    size_t len = fread(text, 1, sizeof(text), f);
    fclose(f);
    size_t nl = strlen(arg);
    uint8_t *b = malloc(len + nl + 12);
    if (b == NULL)
        return -1;
    size_t n = put_field(b, ACCT_T_RULES_TEXT, text, (uint32_t)len);
    n += put_field(b + n, ACCT_T_NAME, arg, (uint32_t)nl);
    int rc = send_msg(fd, ACCT_MSG_IMPORT, b, n);
    free(b);
    return rc;
}

static int c_nested_group(int fd, const char *arg)
{
    uint8_t inner[16], outer[32];
    (void)arg;
    size_t ni = put_field(inner, ACCT_T_SAMPLE, NULL, 0);
    size_t no = put_field(outer, ACCT_T_SAMPLE, inner, (uint32_t)ni);
    return send_msg(fd, ACCT_MSG_SAMPLES, outer, no);
}

/* A sample batch with one good and two bad samples. */
static int c_bad_samples(int fd, const char *arg)
{
    struct acct_wbuf w;
    (void)arg;
    acct_wbuf_init(&w, ACCT_PROTO_MAX_USER_BODY);
    acct_wbuf_start(&w, ACCT_MSG_SAMPLES, 1);
    acct_put_str(&w, ACCT_T_JOB, "777.0");
    acct_put_str(&w, ACCT_T_PARTITION, "rawtest");
    acct_put_str(&w, ACCT_T_INTERCONNECT, "tcp");
    for (int i = 0; i < 3; i++) {
        acct_group_begin(&w, ACCT_T_SAMPLE);
        acct_put_str(&w, ACCT_T_COLLECTIVE, "bcast");
        acct_put_u64(&w, ACCT_T_COMM_SIZE, i == 1 ? 0 : 4); /* 0: out of range */
        acct_put_u64(&w, ACCT_T_BYTES_BUCKET, 10);
        acct_put_str(&w, ACCT_T_ALGORITHM, i == 2 ? "no_such_alg" : "binomial");
        acct_put_u64(&w, ACCT_T_COUNT, 1);
        acct_put_f64(&w, ACCT_T_SUM_US, 10.0);
        acct_group_end(&w);
    }
    return send_wbuf(fd, &w);
}

/* 64 KiB of pseudo-random bytes after a valid-looking magic. */
static int c_garbage(int fd, const char *arg)
{
    static uint8_t b[65536];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    (void)arg;
    for (size_t i = 0; i < sizeof(b); i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        b[i] = (uint8_t)x;
    }
    memcpy(b, "ACCT\1\2\0\0\0\0\xff\xf0", 12); /* STATUS, 65520-byte body of junk */
    if (send_all(fd, b, sizeof(b)) != 0)
        return 0; /* closed early: fine, report says so */
    return 0;
}

/* Header says 100 bytes, send 10, then close. */
static int c_truncated(int fd, const char *arg)
{
    uint8_t b[ACCT_PROTO_HEADER + 10] = { 0 };
    (void)arg;
    put_hdr(b, "ACCT", ACCT_PROTO_VERSION, ACCT_MSG_STATUS, 100, 1);
    if (send_all(fd, b, sizeof(b)) != 0)
        return -1;
    shutdown(fd, SHUT_WR);
    return 0;
}

/* Two requests in one write: two replies, in order. */
static int c_pipelined(int fd, const char *arg)
{
    uint8_t b[2 * ACCT_PROTO_HEADER];
    (void)arg;
    put_hdr(b, "ACCT", ACCT_PROTO_VERSION, ACCT_MSG_STATUS, 0, 1);
    put_hdr(b + ACCT_PROTO_HEADER, "ACCT", ACCT_PROTO_VERSION, ACCT_MSG_LIST, 0, 2);
    return send_all(fd, b, sizeof(b));
}

/* GET_RULES for ARG = PARTITION/INTERCONNECT. */
static int c_get_rules(int fd, const char *arg)
{
    struct acct_wbuf w;
    char p[128];
    const char *slash = arg != NULL ? strchr(arg, '/') : NULL;
    if (slash == NULL || (size_t)(slash - arg) >= sizeof(p))
        return -1;
    memcpy(p, arg, (size_t)(slash - arg));
    p[slash - arg] = '\0';
    acct_wbuf_init(&w, ACCT_PROTO_MAX_USER_BODY);
    acct_wbuf_start(&w, ACCT_MSG_GET_RULES, 1);
    acct_put_str(&w, ACCT_T_PARTITION, p);
    acct_put_str(&w, ACCT_T_INTERCONNECT, slash + 1);
    return send_wbuf(fd, &w);
}

/* A message of the given type made of at most two hand-made fields. */
struct rfield {
    unsigned tag;
    const char *val;
    uint32_t len;
};
struct rmsg {
    unsigned type;
    struct rfield f[2]; /* len 0 and val NULL: no field */
};

static int send_fields(int fd, const struct rmsg *m)
{
    uint8_t b[64];
    size_t n = 0;
    for (int i = 0; i < 2; i++)
        if (m->f[i].val != NULL)
            n += put_field(b + n, m->f[i].tag, m->f[i].val, m->f[i].len);
    return send_msg(fd, m->type, n ? b : NULL, n);
}

/* A case sends with run(), or else the fields of msg. */
static const struct rcase {
    const char *name;
    int (*run)(int fd, const char *arg);
    int replies; /* replies to read */
    struct rmsg msg;
} cases[] = {
    { "bad-magic", c_bad_magic, 1, {0} },
    { "bad-version", c_bad_version, 1, {0} },
    { "too-large", c_too_large, 1, {0} },
    { "too-large-sent", c_too_large_sent, 1, {0} },
    { "field-overrun", c_field_overrun, 1, {0} },
    { .name = "bad-u64", .replies = 1, .msg = {ACCT_MSG_SHOW, {{ACCT_T_VERSION, "\0\0\0\1", 4}}} },
    { .name = "nul-string", .replies = 1,
      .msg = {ACCT_MSG_GET_RULES, {{ACCT_T_PARTITION, "e\0th", 4}, {ACCT_T_INTERCONNECT, "tcp", 3}}} },
    { "nested-group", c_nested_group, 1, {0} },
    { "import-file", c_import_file, 1, {0} },
    /* nonfinite: SUM_US = +inf */
    { .name = "nonfinite", .replies = 1, .msg = {ACCT_MSG_SAMPLES, {{ACCT_T_SUM_US, "\x7f\xf0\0\0\0\0\0\0", 8}}} },
    { .name = "unknown-type", .replies = 1, .msg = {99, {{0}}} },
    { .name = "missing-field", .replies = 1, .msg = {ACCT_MSG_GET_RULES, {{ACCT_T_INTERCONNECT, "tcp", 3}}} },
    { "bad-samples", c_bad_samples, 1, {0} },
    { "garbage", c_garbage, 1, {0} },
    { "truncated", c_truncated, 1, {0} },
    { "pipelined", c_pipelined, 2, {0} },
    { "get-rules", c_get_rules, 1, {0} },
    { NULL, NULL, 0, {0} },
};

/* Half a header, then wait: a slow client must not hold up the others. */
static int hold(const char *sock, const char *arg)
{
    int fd = connect_to(sock), closed;
    uint8_t h[ACCT_PROTO_HEADER], c;
    if (fd < 0)
        return 1;
    put_hdr(h, "ACCT", ACCT_PROTO_VERSION, ACCT_MSG_STATUS, 0, 1);
    if (send_all(fd, h, 8) != 0)
        return 1;
    printf("hold: holding\n");
    fflush(stdout);
    /* wait for the daemon to drop us (client_timeout) or for ARG seconds */
    closed = 0;
    if (recv_all(fd, &c, 1, (arg != NULL ? atoi(arg) : 5) * 1000, &closed) == 0)
        closed = 0;
    printf("hold: closed=%s\n", closed ? "yes" : "no");
    close(fd);
    return 0;
}

/* Closes the open ones of n connections and frees the array. */
static void close_all(int *fds, int n)
{
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(fds);
}

/* Milliseconds from t0 to t1. */
static long ms_since(const struct timespec *t0, const struct timespec *t1)
{
    return (t1->tv_sec - t0->tv_sec) * 1000L + (t1->tv_nsec - t0->tv_nsec) / 1000000L;
}

/* ARG connections at once, then a HELLO on each: those over max_clients
 * are answered LIMIT (and closed) by the daemon before they send anything. */
static int flood(const char *sock, const char *arg)
{
    int n = arg != NULL ? atoi(arg) : 300, answered = 0, limited = 0, failed = 0;
    int *fds = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    if (fds == NULL || n <= 0 || n > 100000)
        return 1;
    for (int i = 0; i < n; i++)
        fds[i] = connect_to(sock);
    usleep(300000); /* let the daemon accept (and refuse) them all */
    for (int i = 0; i < n; i++) {
        uint8_t h[ACCT_PROTO_HEADER], hdr[ACCT_PROTO_HEADER];
        struct pollfd p = { .fd = fds[i], .events = POLLIN };
        int closed;
        if (fds[i] < 0) {
            failed++;
            continue;
        }
        if (poll(&p, 1, 0) <= 0) { /* nothing waiting: an accepted client */
            put_hdr(h, "ACCT", ACCT_PROTO_VERSION, ACCT_MSG_HELLO, 0, 1);
            if (send_all(fds[i], h, sizeof(h)) != 0) {
                failed++;
                continue;
            }
        }
        if (recv_all(fds[i], hdr, sizeof(hdr), TIMEOUT_MS, &closed) != 0) {
            failed++;
            continue;
        }
        if (hdr[5] == ACCT_MSG_ERROR)
            limited++;
        else
            answered++;
    }
    close_all(fds, n);
    printf("flood: connections=%d answered=%d limited=%d failed=%d\n", n, answered, limited,
           failed);
    return 0;
}

/* Open n connections; HELLO on each. fds[i] stays >= 0 for the answered
 * ones; the counts go to *answered and *limited. */
static int *open_answered(const char *sock, int n, int *answered, int *limited)
{
    int *fds = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    *answered = *limited = 0;
    if (fds == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        uint8_t h[ACCT_PROTO_HEADER], hdr[ACCT_PROTO_HEADER];
        int closed;
        fds[i] = connect_to(sock);
        if (fds[i] < 0)
            continue;
        put_hdr(h, "ACCT", ACCT_PROTO_VERSION, ACCT_MSG_HELLO, 0, 1);
        /* a refused connection has its LIMIT error waiting (or is closed) */
        if (send_all(fds[i], h, sizeof(h)) != 0 ||
            recv_all(fds[i], hdr, sizeof(hdr), TIMEOUT_MS, &closed) != 0 ||
            hdr[5] == ACCT_MSG_ERROR) {
            *limited += 1;
            close(fds[i]);
            fds[i] = -1;
            continue;
        }
        /* the rest of the HELLO reply */
        struct acct_hdr ah;
        long total = acct_proto_frame(hdr, sizeof(hdr), ACCT_PROTO_MAX_BODY, &ah);
        uint8_t junk[4096];
        if (total > (long)sizeof(hdr) && total - (long)sizeof(hdr) <= (long)sizeof(junk))
            recv_all(fds[i], junk, (size_t)total - sizeof(hdr), TIMEOUT_MS, &closed);
        *answered += 1;
    }
    return fds;
}

/* N idle connections: how many does acctd close within WAIT seconds? */
static int idle(const char *sock, const char *arg)
{
    int n = 0, wait_s = 0, answered, limited, open_now, closed = 0;
    if (arg == NULL || sscanf(arg, "%d:%d", &n, &wait_s) != 2 || n <= 0 || n > 10000)
        return 2;
    int *fds = open_answered(sock, n, &answered, &limited);
    if (fds == NULL)
        return 1;
    printf("idle: answered=%d limited=%d\n", answered, limited);
    fflush(stdout);
    struct pollfd *p = calloc((size_t)n, sizeof(*p));
    if (p == NULL)
        return 1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long ms = 0;
    open_now = answered;
    while (open_now > 0 && ms < wait_s * 1000L) {
        for (int i = 0; i < n; i++)
            p[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
        if (poll(p, (nfds_t)n, 200) > 0)
            for (int i = 0; i < n; i++) {
                char c;
                if (fds[i] >= 0 && (p[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
                    recv(fds[i], &c, 1, MSG_DONTWAIT) <= 0) {
                    close(fds[i]);
                    fds[i] = -1;
                    closed++;
                    open_now--;
                }
            }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        ms = ms_since(&t0, &t1);
    }
    printf("idle: closed=%d of %d after %ld ms\n", closed, answered, ms);
    free(p);
    close_all(fds, n);
    return 0;
}

static int tcp_connect_to(const char *hostport)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    struct sockaddr_in sa;
    if (colon == NULL || (size_t)(colon - hostport) >= sizeof(host))
        return -1;
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)atoi(colon + 1));
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
        return -1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* N TCP connections that never authenticate: refused (LIMIT) or dropped? */
static int tcp_silent(const char *hostport, const char *arg)
{
    int n = 0, wait_s = 0, limited = 0, dropped = 0, other = 0, left;
    if (arg == NULL || sscanf(arg, "%d:%d", &n, &wait_s) != 2 || n <= 0 || n > 1000)
        return 2;
    int *fds = calloc((size_t)n, sizeof(int));
    struct pollfd *p = calloc((size_t)n, sizeof(*p));
    if (fds == NULL || p == NULL)
        return 1;
    left = 0;
    for (int i = 0; i < n; i++) {
        fds[i] = tcp_connect_to(hostport);
        left += fds[i] >= 0;
    }
    struct timespec t0, t1;
    long ms = 0, last_drop_ms = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (left > 0 && ms < wait_s * 1000L) {
        for (int i = 0; i < n; i++)
            p[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
        if (poll(p, (nfds_t)n, 200) > 0)
            for (int i = 0; i < n; i++) {
                uint8_t hdr[ACCT_PROTO_HEADER];
                if (fds[i] < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                    continue;
                ssize_t k = recv(fds[i], hdr, sizeof(hdr), MSG_DONTWAIT);
                if (k <= 0)
                    dropped++;
                else if (hdr[5] == ACCT_MSG_ERROR)
                    limited++;
                else
                    other++;
                clock_gettime(CLOCK_MONOTONIC, &t1);
                if (k <= 0)
                    last_drop_ms = ms_since(&t0, &t1);
                close(fds[i]);
                fds[i] = -1;
                left--;
            }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        ms = ms_since(&t0, &t1);
    }
    printf("tcp-silent: limited=%d dropped=%d other=%d open=%d last drop after %ld ms\n",
           limited, dropped, other, left, last_drop_ms);
    free(p);
    close_all(fds, n);
    return 0;
}

/* N connections that ask LIST_SAMPLES K times each and never read. */
static int noread(const char *sock, const char *arg)
{
    int n = 0, k = 0, wait_s = 0, sent = 0, conns = 0;
    if (arg == NULL || sscanf(arg, "%d:%d:%d", &n, &k, &wait_s) != 3 || n <= 0 || n > 10000 ||
        k <= 0)
        return 2;
    int *fds = calloc((size_t)n, sizeof(int));
    if (fds == NULL)
        return 1;
    uint8_t h[ACCT_PROTO_HEADER];
    put_hdr(h, "ACCT", ACCT_PROTO_VERSION, ACCT_MSG_LIST_SAMPLES, 0, 1);
    for (int i = 0; i < n; i++) {
        fds[i] = connect_to(sock);
        if (fds[i] < 0)
            continue;
        conns++;
        for (int j = 0; j < k; j++) {
            if (send(fds[i], h, sizeof(h), MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof(h))
                break;
            sent++;
        }
    }
    printf("noread: connections=%d requests=%d\n", conns, sent);
    fflush(stdout);
    sleep((unsigned)wait_s);
    close_all(fds, n);
    return 0;
}

/* One bad answer to the request on fd (read first, so the client is not
 * surprised by an early close). */
static void serve_one(int fd, const char *mode)
{
    uint8_t hdr[ACCT_PROTO_HEADER], out[64];
    struct acct_hdr h;
    int closed;
    long total;

    if (recv_all(fd, hdr, sizeof(hdr), TIMEOUT_MS, &closed) != 0)
        return;
    total = acct_proto_frame(hdr, sizeof(hdr), ACCT_PROTO_MAX_BODY, &h);
    for (long left = total - ACCT_PROTO_HEADER; left > 0;) { /* skip the body */
        uint8_t junk[4096];
        size_t n = left > (long)sizeof(junk) ? sizeof(junk) : (size_t)left;
        if (recv_all(fd, junk, n, TIMEOUT_MS, &closed) != 0)
            return;
        left -= (long)n;
    }
    if (strcmp(mode, "close") == 0)
        return;
    if (strcmp(mode, "bad-magic") == 0) {
        put_hdr(out, "XXXX", ACCT_PROTO_VERSION, h.type | ACCT_MSG_REPLY, 0, h.id);
        send_all(fd, out, ACCT_PROTO_HEADER);
    } else if (strcmp(mode, "wrong-type") == 0) {
        unsigned other = h.type == ACCT_MSG_LIST ? ACCT_MSG_STATUS : ACCT_MSG_LIST;
        put_hdr(out, "ACCT", ACCT_PROTO_VERSION, other | ACCT_MSG_REPLY, 0, h.id);
        send_all(fd, out, ACCT_PROTO_HEADER);
    } else if (strcmp(mode, "empty-error") == 0) {
        put_hdr(out, "ACCT", ACCT_PROTO_VERSION, ACCT_MSG_ERROR, 0, h.id);
        send_all(fd, out, ACCT_PROTO_HEADER);
    } else if (strcmp(mode, "empty-reply") == 0) {
        put_hdr(out, "ACCT", ACCT_PROTO_VERSION, h.type | ACCT_MSG_REPLY, 0, h.id);
        send_all(fd, out, ACCT_PROTO_HEADER);
    } else if (strcmp(mode, "truncated") == 0) {
        put_hdr(out, "ACCT", ACCT_PROTO_VERSION, h.type | ACCT_MSG_REPLY, 40, h.id);
        send_all(fd, out, ACCT_PROTO_HEADER + 4);
    }
}

static int serve(const char *sock, const char *mode)
{
    struct sockaddr_un sa;
    int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0 || mode == NULL)
        return 1;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
    unlink(sock);
    if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(lfd, 16) != 0) {
        perror("acctd-raw serve");
        return 1;
    }
    printf("serving %s\n", mode);
    fflush(stdout);
    for (;;) {
        struct pollfd p = { .fd = lfd, .events = POLLIN };
        if (poll(&p, 1, 20000) <= 0)
            break;
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0)
            continue;
        /* several requests on one connection (acctctl's pair resolution) */
        for (int i = 0; i < 8; i++) {
            struct pollfd q = { .fd = fd, .events = POLLIN };
            if (poll(&q, 1, 2000) <= 0)
                break;
            serve_one(fd, mode);
            if (strcmp(mode, "close") == 0 || strcmp(mode, "bad-magic") == 0 ||
                strcmp(mode, "truncated") == 0)
                break;
        }
        close(fd);
    }
    close(lfd);
    unlink(sock);
    return 0;
}

int main(int argc, char **argv)
{
    const char *arg = argc > 3 ? argv[3] : NULL;
    int fd;

    if (argc < 3) {
        fprintf(stderr, "Usage: acctd-raw SOCKET CASE [ARG]\ncases: serve hold flood idle noread tcp-silent");
        for (const struct rcase *c = cases; c->name != NULL; c++)
            fprintf(stderr, " %s", c->name);
        fprintf(stderr, "\n");
        return 2;
    }
    if (strcmp(argv[2], "hold") == 0)
        return hold(argv[1], arg);
    if (strcmp(argv[2], "flood") == 0)
        return flood(argv[1], arg);
    if (strcmp(argv[2], "idle") == 0)
        return idle(argv[1], arg);
    if (strcmp(argv[2], "noread") == 0)
        return noread(argv[1], arg);
    if (strcmp(argv[2], "tcp-silent") == 0)
        return tcp_silent(argv[1], arg);
    if (strcmp(argv[2], "serve") == 0)
        return serve(argv[1], arg);
    for (const struct rcase *c = cases; c->name != NULL; c++) {
        if (strcmp(c->name, argv[2]) != 0)
            continue;
        fd = connect_to(argv[1]);
        if (fd < 0) {
            printf("%s: cannot connect: %s\n", c->name, strerror(errno));
            return 1;
        }
        if ((c->run != NULL ? c->run(fd, arg) : send_fields(fd, &c->msg)) != 0)
            printf("%s: send failed: %s\n", c->name, strerror(errno));
        for (int i = 0; i < c->replies; i++)
            report(c->name, fd, i == c->replies - 1);
        close(fd);
        return 0;
    }
    fprintf(stderr, "acctd-raw: unknown case \"%s\"\n", argv[2]);
    return 2;
}
