/* Unit tests of the acctd wire protocol codec (docs/protocol.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "acct/proto.h"

static void build_samples(struct acct_wbuf *w)
{
    acct_wbuf_init(w, ACCT_PROTO_MAX_USER_BODY);
    acct_wbuf_start(w, ACCT_MSG_SAMPLES, 77);
    acct_put_str(w, ACCT_T_JOB, "1234.0");
    acct_put_str(w, ACCT_T_PARTITION, "eth");
    acct_put_str(w, ACCT_T_INTERCONNECT, "tcp-1g");
    for (int i = 0; i < 3; i++) {
        acct_group_begin(w, ACCT_T_SAMPLE);
        acct_put_str(w, ACCT_T_COLLECTIVE, "bcast");
        acct_put_u64(w, ACCT_T_COMM_SIZE, 8);
        acct_put_u64(w, ACCT_T_BYTES_BUCKET, 10 + (unsigned)i);
        acct_put_str(w, ACCT_T_ALGORITHM, "binomial");
        acct_put_u64(w, ACCT_T_COUNT, 100);
        acct_put_f64(w, ACCT_T_SUM_US, 1234.5);
        acct_group_end(w);
    }
}

static void test_roundtrip(void **state)
{
    (void)state;
    struct acct_wbuf w;
    build_samples(&w);
    assert_int_equal(acct_wbuf_finish(&w), 0);
    /* header bytes, exactly as documented */
    assert_memory_equal(w.p, "ACCT", 4);
    assert_int_equal(w.p[4], 1);
    assert_int_equal(w.p[5], ACCT_MSG_SAMPLES);
    assert_int_equal(w.p[15], 77);

    struct acct_msg m;
    char why[256];
    assert_int_equal(acct_proto_decode(w.p, w.len, ACCT_PROTO_MAX_USER_BODY, &m, why, sizeof(why)), 0);
    assert_int_equal(m.h.type, ACCT_MSG_SAMPLES);
    assert_int_equal(m.h.id, 77);
    char s[64];
    assert_int_equal(acct_get_str(m.body, m.len, ACCT_T_JOB, s, sizeof(s)), 0);
    assert_string_equal(s, "1234.0");
    assert_int_equal(acct_get_str(m.body, m.len, ACCT_T_JOB, s, 3), -1); /* too long */
    assert_int_equal(acct_get_str(m.body, m.len, ACCT_T_NODE, s, sizeof(s)), 1);
    assert_int_equal(acct_count(m.body, m.len, ACCT_T_SAMPLE), 3);

    struct acct_iter it;
    struct acct_field f;
    unsigned k = 10;
    acct_iter_init(&it, m.body, m.len);
    while (acct_iter_next(&it, &f)) {
        if (f.tag != ACCT_T_SAMPLE)
            continue;
        assert_int_equal(f.kind, ACCT_KIND_GROUP);
        uint64_t b;
        double d;
        assert_int_equal(acct_get_u64(f.val, f.len, ACCT_T_BYTES_BUCKET, &b), 0);
        assert_int_equal(b, k++);
        assert_int_equal(acct_get_f64(f.val, f.len, ACCT_T_SUM_US, &d), 0);
        assert_true(d == 1234.5);
    }
    assert_int_equal(k, 13);
    acct_wbuf_free(&w);
}

/* Every truncation and every single-byte corruption of a valid message is
 * either decoded or refused, never read out of bounds (ASan checks it). */
static void test_truncations_and_flips(void **state)
{
    (void)state;
    struct acct_wbuf w;
    build_samples(&w);
    assert_int_equal(acct_wbuf_finish(&w), 0);
    struct acct_msg m;
    for (size_t n = 0; n < w.len; n++) {
        uint8_t *copy = malloc(n + 1);
        memcpy(copy, w.p, n);
        assert_true(acct_proto_decode(copy, n, ACCT_PROTO_MAX_USER_BODY, &m, NULL, 0) < 0);
        free(copy);
    }
    int refused = 0;
    for (size_t i = 0; i < w.len; i++) {
        uint8_t *copy = malloc(w.len);
        memcpy(copy, w.p, w.len);
        copy[i] ^= 0xff;
        if (acct_proto_decode(copy, w.len, ACCT_PROTO_MAX_USER_BODY, &m, NULL, 0) < 0)
            refused++;
        else {
            struct acct_iter it;
            struct acct_field f;
            acct_iter_init(&it, m.body, m.len);
            while (acct_iter_next(&it, &f))
                (void)f;
        }
        free(copy);
    }
    assert_true(refused > 0);
    acct_wbuf_free(&w);
}

static void test_refusals(void **state)
{
    (void)state;
    struct acct_msg m;
    char why[256];
    uint8_t hdr[ACCT_PROTO_HEADER] = {'A', 'C', 'C', 'T', 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9};
    assert_int_equal(acct_proto_decode(hdr, sizeof(hdr), 100, &m, why, sizeof(why)), 0);
    assert_int_equal(m.h.id, 9);

    uint8_t bad[ACCT_PROTO_HEADER];
    memcpy(bad, hdr, sizeof(bad));
    bad[0] = 'X';
    assert_int_equal(acct_proto_decode(bad, sizeof(bad), 100, &m, why, sizeof(why)),
                     -ACCT_ERR_BAD_MESSAGE);
    assert_int_equal(acct_proto_frame(bad, 2, 100, &m.h), -ACCT_ERR_BAD_MESSAGE);
    assert_int_equal(acct_proto_frame(hdr, 3, 100, &m.h), 0);
    memcpy(bad, hdr, sizeof(bad));
    bad[4] = 2;
    assert_int_equal(acct_proto_decode(bad, sizeof(bad), 100, &m, why, sizeof(why)),
                     -ACCT_ERR_VERSION);
    memcpy(bad, hdr, sizeof(bad));
    bad[8] = 1; /* 16 MiB body */
    assert_int_equal(acct_proto_frame(bad, sizeof(bad), 100, &m.h), -ACCT_ERR_TOO_LARGE);

    /* wrong integer size, NUL in string, infinite number, nested group */
    struct {
        uint8_t field[32];
        size_t n;
        int rc;
    } cases[] = {
        {{0, ACCT_T_VERSION, 0, 0, 0, 4, 0, 0, 0, 1}, 10, -ACCT_ERR_BAD_MESSAGE},
        {{0, ACCT_T_JOB, 0, 0, 0, 3, 'a', 0, 'b'}, 9, -ACCT_ERR_BAD_MESSAGE},
        {{0, ACCT_T_SUM_US, 0, 0, 0, 8, 0x7f, 0xf0, 0, 0, 0, 0, 0, 0}, 14, -ACCT_ERR_BAD_MESSAGE},
        {{0, ACCT_T_SAMPLE, 0, 0, 0, 6, 0, ACCT_T_PAIR, 0, 0, 0, 0}, 12, -ACCT_ERR_BAD_MESSAGE},
        {{0, ACCT_T_JOB, 0, 0, 0, 9, 'a'}, 7, -ACCT_ERR_BAD_MESSAGE},       /* overrun */
        {{0x7f, 0x00, 0, 0, 0, 2, 0, 0}, 8, 0},                             /* unknown: skipped */
        {{0, ACCT_T_SAMPLE, 0, 0, 0, 6, 0, ACCT_T_JOB, 0, 0, 0, 0}, 12, 0}, /* empty string */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t msg[64];
        memcpy(msg, hdr, sizeof(hdr));
        msg[11] = (uint8_t)cases[i].n;
        memcpy(msg + sizeof(hdr), cases[i].field, cases[i].n);
        int rc = acct_proto_decode(msg, sizeof(hdr) + cases[i].n, 100, &m, why, sizeof(why));
        assert_int_equal(rc, cases[i].rc);
        if (rc != 0)
            assert_true(why[0] != '\0');
    }
}

static void test_encoder_limits(void **state)
{
    (void)state;
    struct acct_wbuf w;
    acct_wbuf_init(&w, 64);
    acct_wbuf_start(&w, ACCT_MSG_GET_RULES, 1);
    acct_put_str(&w, ACCT_T_PARTITION, "eth");
    assert_int_equal(acct_wbuf_finish(&w), 0);
    char big[100];
    memset(big, 'x', sizeof(big) - 1);
    big[99] = '\0';
    acct_put_str(&w, ACCT_T_INTERCONNECT, big);
    assert_int_equal(acct_wbuf_finish(&w), -ACCT_ERR_TOO_LARGE);
    /* restart clears the error; an unclosed group is an error */
    acct_wbuf_start(&w, ACCT_MSG_LIST, 2);
    acct_group_begin(&w, ACCT_T_PAIR);
    assert_int_equal(acct_wbuf_finish(&w), -ACCT_ERR_INTERNAL);
    acct_put_error(&w, 5, ACCT_ERR_NOT_FOUND, "no version %d", 12);
    assert_int_equal(acct_wbuf_finish(&w), 0);
    struct acct_msg m;
    assert_int_equal(acct_proto_decode(w.p, w.len, 64, &m, NULL, 0), 0);
    assert_int_equal(m.h.type, ACCT_MSG_ERROR);
    uint64_t code;
    char msg[64];
    assert_int_equal(acct_get_u64(m.body, m.len, ACCT_T_ERR_CODE, &code), 0);
    assert_int_equal(code, ACCT_ERR_NOT_FOUND);
    assert_int_equal(acct_get_str(m.body, m.len, ACCT_T_ERR_MSG, msg, sizeof(msg)), 0);
    assert_string_equal(msg, "no version 12");
    acct_wbuf_free(&w);
}

static void test_names_and_buckets(void **state)
{
    (void)state;
    assert_string_equal(acct_msg_type_name(ACCT_MSG_GET_RULES), "GET_RULES");
    assert_string_equal(acct_msg_type_name(ACCT_MSG_GET_RULES | ACCT_MSG_REPLY), "GET_RULES");
    assert_string_equal(acct_msg_type_name(ACCT_MSG_ERROR), "ERROR");
    assert_string_equal(acct_msg_type_name(99), "?");
    assert_string_equal(acct_err_name(ACCT_ERR_PERMISSION), "PERMISSION");
    assert_string_equal(acct_err_name(0), "?");
    assert_string_equal(acct_tag_name(ACCT_T_RULES_TEXT), "RULES_TEXT");
    assert_int_equal(acct_tag_kind(ACCT_T_SAMPLE), ACCT_KIND_GROUP);
    /* GET_RESULT (issue 23) */
    assert_string_equal(acct_msg_type_name(ACCT_MSG_GET_RESULT | ACCT_MSG_REPLY), "GET_RESULT");
    /* GET_MODEL (issue 21): its type and the four LogGP fields */
    assert_string_equal(acct_msg_type_name(ACCT_MSG_GET_MODEL | ACCT_MSG_REPLY), "GET_MODEL");
    assert_string_equal(acct_tag_name(ACCT_T_MODEL_GB_US), "MODEL_GB_US");
    assert_int_equal(acct_tag_kind(ACCT_T_MODEL_L_US), ACCT_KIND_F64);
    assert_int_equal(acct_tag_kind(ACCT_T_MODEL_O_US), ACCT_KIND_F64);
    assert_int_equal(acct_tag_kind(ACCT_T_MODEL_G_US), ACCT_KIND_F64);
    assert_int_equal(acct_tag_kind(ACCT_T_MODEL_GB_US), ACCT_KIND_F64);
    /* issue 21: the levels */
    assert_string_equal(acct_tag_name(ACCT_T_MODEL_INTRA_L_US), "MODEL_INTRA_L_US");
    assert_string_equal(acct_tag_name(ACCT_T_MODEL_INTER_GB_US), "MODEL_INTER_GB_US");
    assert_int_equal(acct_tag_kind(ACCT_T_MODEL_NIC_PAIRS), ACCT_KIND_U64);
    assert_int_equal(acct_tag_kind(ACCT_T_MODEL_NIC_FACTOR), ACCT_KIND_F64);
    assert_int_equal(acct_tag_kind(9999), ACCT_KIND_UNKNOWN);
    assert_int_equal(acct_bytes_bucket(0), 0);
    assert_int_equal(acct_bytes_bucket(1), 1);
    assert_int_equal(acct_bytes_bucket(1023), 10);
    assert_int_equal(acct_bytes_bucket(1024), 11);
    assert_int_equal(acct_bytes_bucket(UINT64_MAX), 64);
}

/* acct_client_post: the bytes arrive whole; no daemon is an error, not a wait. */
static void test_post(void **state)
{
    (void)state;
    char path[108];
    snprintf(path, sizeof(path), "/tmp/acct-test-proto-%ld.sock", (long)getpid());
    unlink(path);
    struct acct_wbuf w;
    build_samples(&w);
    assert_int_equal(acct_wbuf_finish(&w), 0);
    assert_int_equal(acct_client_post(path, &w), -1);
    assert_true(errno == ENOENT || errno == ECONNREFUSED);
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(listen(l, 4), 0);
    assert_int_equal(acct_client_post(path, &w), 0);
    int c = accept(l, NULL, NULL);
    assert_true(c >= 0);
    uint8_t buf[4096];
    size_t have = 0;
    ssize_t n;
    while ((n = read(c, buf + have, sizeof(buf) - have)) > 0)
        have += (size_t)n;
    assert_int_equal(have, w.len);
    assert_memory_equal(buf, w.p, w.len);
    close(c);
    close(l);
    unlink(path);
    acct_wbuf_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_truncations_and_flips),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_encoder_limits),
        cmocka_unit_test(test_names_and_buckets),
        cmocka_unit_test(test_post),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
