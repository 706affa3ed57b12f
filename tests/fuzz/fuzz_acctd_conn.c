/* libFuzzer target for one connection to acctd (server.c acctd_serve_input):
 * the bytes a peer sends arrive in pieces, several requests per connection,
 * partial frames, a peer that reads its replies or does not. The daemon's
 * store is a real SQLite file in a temporary directory; the connection is a
 * real socketpair.
 *
 * Input: byte 0 picks the peer (bit 0 root/admin, bit 1 an unauthenticated
 * TCP peer). Then steps: a control byte c, then min(c & 0x7f, rest) bytes
 * (0x7f: all the rest) written to the socket before acctd reads what is
 * there; bit 7 of c: the peer reads the replies after this step. At the
 * end the peer shuts down its sending side and reads everything.
 *
 * Checked: no crash, leak or undefined behaviour; everything acctd sends is
 * a sequence of valid messages, each a reply or an error; acctd never
 * answers more requests than complete frames were sent; the output counted
 * against the uid (the per-uid bound) is exactly what the connection still
 * holds unsent. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz_acctd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stop with the reason (a finding, or a broken setup). */
#define CHECK(cond, why)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "fuzz_acctd_conn: %s\n", why);                                 \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

static struct acctd d;
static char dir[64];

static void cleanup(void) { fuzz_acctd_close(&d, dir); }

static void configure(struct acctd_config *cfg)
{
    cfg->samples_per_job = 1000;
    cfg->sample_rows_per_user = 5000;
}

static void init(void)
{
    fuzz_acctd_open(&d, dir, sizeof(dir), "conn", configure);
    CHECK(quota_load(&d) == 0, "quota_load");
    atexit(cleanup);
}

/* What the peer has received so far, checked message by message. */
struct peer {
    uint8_t *buf;
    size_t len, cap;
    size_t replies;
};

static void peer_read(int fd, struct peer *p)
{
    for (;;) {
        if (p->cap - p->len < 65536) {
            size_t cap = p->cap ? p->cap * 2 : 131072;
            uint8_t *n = realloc(p->buf, cap);
            CHECK(n != NULL, "out of memory");
            p->buf = n;
            p->cap = cap;
        }
        ssize_t n = recv(fd, p->buf + p->len, p->cap - p->len, MSG_DONTWAIT);
        if (n <= 0)
            break;
        p->len += (size_t)n;
    }
    /* every complete message must be a valid reply or error */
    size_t off = 0;
    for (;;) {
        struct acct_hdr h;
        if (p->len - off < ACCT_PROTO_HEADER)
            break;
        long total = acct_proto_frame(p->buf + off, p->len - off, ACCT_PROTO_MAX_BODY, &h);
        CHECK(total > 0, "acctd sent something that does not frame");
        if ((size_t)total > p->len - off)
            break;
        struct acct_msg m;
        CHECK(acct_proto_decode(p->buf + off, (size_t)total, ACCT_PROTO_MAX_BODY, &m, NULL, 0) ==
                  0,
              "acctd sent an invalid message");
        CHECK(m.h.type == ACCT_MSG_ERROR || (m.h.type & ACCT_MSG_REPLY) != 0,
              "acctd sent a message that is neither a reply nor an error");
        p->replies++;
        off += (size_t)total;
    }
    memmove(p->buf, p->buf + off, p->len - off);
    p->len -= off;
}

/* Complete frames in what was sent (a bad one ends the count: acctd closes). */
static size_t frames_sent(const uint8_t *s, size_t len, uint32_t max_body)
{
    size_t off = 0, n = 0;
    while (len > off) { /* a bad magic shows before the whole header */
        struct acct_hdr h;
        long total = acct_proto_frame(s + off, len - off, max_body, &h);
        if (total < 0)
            return n + 1; /* answered with an error */
        if (total == 0 || (size_t)total > len - off)
            break;
        off += (size_t)total;
        n++;
    }
    return n;
}

static size_t uid_bytes(uid_t uid)
{
    for (size_t i = 0; i < d.noutq; i++)
        if (d.outq[i].uid == uid)
            return d.outq[i].bytes;
    return 0;
}

static void check_accounting(const struct client *c)
{
    CHECK(uid_bytes(c->out_uid) == c->out_len - c->out_off,
          "the output counted against the uid is not what the connection holds");
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
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) == 0,
          "socketpair");
    struct client c = {.fd = sv[0], .pid = 1};
    c.admin = data[0] & 1;
    c.uid = c.out_uid = c.admin ? 0 : 1000;
    c.gid = c.uid;
    c.tcp = (data[0] & 2) != 0;
    c.max_body = c.admin ? ACCT_PROTO_MAX_BODY : ACCT_PROTO_MAX_USER_BODY;
    struct acct_wbuf out;
    acct_wbuf_init(&out, ACCT_PROTO_MAX_BODY);
    struct peer p = {0};
    uint8_t *sent = malloc(size);
    size_t nsent = 0;
    CHECK(sent != NULL, "out of memory");
    size_t i = 1;
    while (i < size && !c.closing) {
        uint8_t ctl = data[i++];
        size_t n = (ctl & 0x7f) == 0x7f ? size - i : (size_t)(ctl & 0x7f);
        if (n > size - i)
            n = size - i;
        ssize_t w = n > 0 ? send(sv[1], data + i, n, MSG_DONTWAIT | MSG_NOSIGNAL) : 0;
        if (w > 0) {
            memcpy(sent + nsent, data + i, (size_t)w);
            nsent += (size_t)w;
        }
        i += n;
        acctd_serve_input(&d, &c, &out);
        acctd_commit_now(&d);
        acctd_flush_client(&d, &c);
        check_accounting(&c);
        if (ctl & 0x80)
            peer_read(sv[1], &p);
    }
    /* the peer is done sending and reads everything */
    shutdown(sv[1], SHUT_WR);
    for (int round = 0; round < 10000 && !(c.closing && c.out_off >= c.out_len); round++) {
        acctd_serve_input(&d, &c, &out);
        acctd_commit_now(&d);
        acctd_flush_client(&d, &c);
        check_accounting(&c);
        peer_read(sv[1], &p);
    }
    CHECK(c.closing && c.out_off >= c.out_len,
          "acctd neither finished nor gave up on a peer that reads everything");
    CHECK(p.replies <= frames_sent(sent, nsent, c.max_body), "more replies than requests");
    close(sv[0]);
    close(sv[1]);
    free(c.in);
    free(c.out);
    free(p.buf);
    free(sent);
    acct_wbuf_free(&out);
    return 0;
}
