/* acctd-client: a raw protocol client for acctd's tests and benchmarks (not
 * installed; the administrator's tool is acctctl).
 *
 *   acctd-client -s SOCKET TYPE [FIELD=VALUE | FIELD=@FILE | GROUP:F=V,F=V ...]
 *       send one request, print the reply as "FIELD=value" lines (groups as
 *       "GROUP:" followed by indented fields). Exit 0 on a reply, 1 on an
 *       ERROR reply (first line "ERROR NAME: message"), 2 on failure.
 *   acctd-client -s SOCKET bench-samples CLIENTS BATCHES BATCH
 *       CLIENTS processes each send BATCHES SAMPLES requests of BATCH
 *       samples (waiting for each acknowledgement); prints samples/s.
 *   acctd-client -s SOCKET bench-rules PARTITION INTERCONNECT N
 *       N GET_RULES round trips; prints median, p99 and max latency. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acct/proto.h"

static const char *sock = "/run/acct/acctd.sock";

static int type_from_name(const char *n)
{
    for (unsigned t = 1; t <= ACCT_MSG_TYPE_MAX; t++)
        if (strcmp(acct_msg_type_name(t), n) == 0)
            return (int)t;
    return -1;
}

static int tag_from_name(const char *n, size_t len)
{
    for (unsigned t = 1; t < 256; t++) {
        const char *tn = acct_tag_name(t);
        if (strlen(tn) == len && strncmp(tn, n, len) == 0)
            return (int)t;
    }
    return -1;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    if (f == NULL)
        return NULL;
    for (;;) {
        if (*len + 65536 > cap) {
            cap = cap * 2 + 65536;
            char *n = realloc(buf, cap);
            if (n == NULL) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = n;
        }
        size_t k = fread(buf + *len, 1, cap - *len, f);
        if (k == 0)
            break;
        *len += k;
    }
    fclose(f);
    return buf;
}

/* NAME=VALUE into w. 0 or -1. */
static int put_arg(struct acct_wbuf *w, const char *arg, size_t len)
{
    const char *eq = memchr(arg, '=', len);
    if (eq == NULL)
        return -1;
    int tag = tag_from_name(arg, (size_t)(eq - arg));
    if (tag < 0) {
        /* a raw numeric tag: T123=... as a string */
        if (arg[0] == 'T' && eq - arg > 1)
            tag = atoi(arg + 1);
        else
            return -1;
    }
    const char *v = eq + 1;
    size_t vl = len - (size_t)(v - arg);
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%.*s", (int)vl, v);
    switch (acct_tag_kind((unsigned)tag)) {
    case ACCT_KIND_U64:
        acct_put_u64(w, (unsigned)tag, strtoull(tmp, NULL, 0));
        break;
    case ACCT_KIND_F64:
        acct_put_f64(w, (unsigned)tag, strtod(tmp, NULL));
        break;
    default:
        if (tmp[0] == '@') {
            size_t n;
            char *buf = slurp(tmp + 1, &n);
            if (buf == NULL) {
                perror(tmp + 1);
                return -1;
            }
            acct_put_strn(w, (unsigned)tag, buf, n);
            free(buf);
        } else {
            acct_put_strn(w, (unsigned)tag, v, vl);
        }
    }
    return 0;
}

static void print_fields(const uint8_t *body, size_t len, const char *indent)
{
    struct acct_iter it;
    struct acct_field f;
    acct_iter_init(&it, body, len);
    while (acct_iter_next(&it, &f)) {
        const char *n = acct_tag_name(f.tag);
        switch (f.kind) {
        case ACCT_KIND_U64:
            printf("%s%s=%llu\n", indent, n, (unsigned long long)acct_field_u64(&f));
            break;
        case ACCT_KIND_F64:
            printf("%s%s=%.17g\n", indent, n, acct_field_f64(&f));
            break;
        case ACCT_KIND_STR:
            if (memchr(f.val, '\n', f.len) != NULL)
                printf("%s%s<<\n%.*s%s>>\n", indent, n, (int)f.len, (const char *)f.val,
                       f.len && f.val[f.len - 1] == '\n' ? "" : "\n");
            else
                printf("%s%s=%.*s\n", indent, n, (int)f.len, (const char *)f.val);
            break;
        case ACCT_KIND_GROUP:
            printf("%s%s:\n", indent, n);
            print_fields(f.val, f.len, "  ");
            break;
        default:
            printf("%sT%u=(%u bytes)\n", indent, f.tag, f.len);
        }
    }
}

static int one_request(int argc, char **argv)
{
    struct acct_wbuf w;
    int type = type_from_name(argv[0]);
    int rc = 2;
    uint8_t *reply = NULL;
    size_t rlen;
    struct acct_msg m;
    int fd = -1;
    if (type < 0) {
        fprintf(stderr, "acctd-client: unknown message type %s\n", argv[0]);
        return 2;
    }
    acct_wbuf_init(&w, ACCT_PROTO_MAX_BODY);
    acct_wbuf_start(&w, (unsigned)type, 1);
    for (int i = 1; i < argc; i++) {
        const char *colon = strchr(argv[i], ':');
        const char *eq = strchr(argv[i], '=');
        if (colon != NULL && (eq == NULL || colon < eq)) {
            int g = tag_from_name(argv[i], (size_t)(colon - argv[i]));
            if (g < 0 || acct_tag_kind((unsigned)g) != ACCT_KIND_GROUP)
                goto bad;
            acct_group_begin(&w, (unsigned)g);
            const char *p = colon + 1;
            while (*p) {
                const char *e = strchr(p, ',');
                size_t l = e ? (size_t)(e - p) : strlen(p);
                if (put_arg(&w, p, l) != 0)
                    goto bad;
                p += l + (e != NULL);
            }
            acct_group_end(&w);
        } else if (put_arg(&w, argv[i], strlen(argv[i])) != 0) {
            goto bad;
        }
    }
    if (acct_wbuf_finish(&w) != 0) {
        fprintf(stderr, "acctd-client: request too large\n");
        goto out;
    }
    fd = acct_client_connect(sock, 5000);
    if (fd < 0) {
        fprintf(stderr, "acctd-client: %s: %s\n", sock, strerror(errno));
        goto out;
    }
    int r = acct_client_call(fd, &w, 60000, &reply, &rlen, &m);
    if (r != 0) {
        fprintf(stderr, "acctd-client: %s\n", strerror(errno));
        goto out;
    }
    if (m.h.type == ACCT_MSG_ERROR) {
        uint64_t code = 0;
        char msg[2048] = "";
        acct_get_u64(m.body, m.len, ACCT_T_ERR_CODE, &code);
        acct_get_str(m.body, m.len, ACCT_T_ERR_MSG, msg, sizeof(msg));
        printf("ERROR %s: %s\n", acct_err_name((unsigned)code), msg);
        print_fields(m.body, m.len, "");
        rc = 1;
    } else {
        printf("%s_REPLY\n", acct_msg_type_name(m.h.type));
        print_fields(m.body, m.len, "");
        rc = 0;
    }
    goto out;
bad:
    fprintf(stderr, "acctd-client: bad argument\n");
out:
    if (fd >= 0)
        close(fd);
    free(reply);
    acct_wbuf_free(&w);
    return rc;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int bench_client(int id, int batches, int batch)
{
    const char *acklog = getenv("ACCTD_CLIENT_ACKLOG");
    struct acct_wbuf w;
    int fd = acct_client_connect(sock, 5000), rc = 1;
    acct_wbuf_init(&w, ACCT_PROTO_MAX_USER_BODY);
    if (fd < 0)
        goto out;
    for (int b = 0; b < batches; b++) {
        char job[32];
        snprintf(job, sizeof(job), "%d.%d", 1000 + id, b % 4);
        acct_wbuf_start(&w, ACCT_MSG_SAMPLES, (uint32_t)b);
        acct_put_str(&w, ACCT_T_JOB, job);
        acct_put_str(&w, ACCT_T_PARTITION, "bench");
        acct_put_str(&w, ACCT_T_INTERCONNECT, "tcp");
        for (int k = 0; k < batch; k++) {
            acct_group_begin(&w, ACCT_T_SAMPLE);
            acct_put_str(&w, ACCT_T_COLLECTIVE, "bcast");
            acct_put_u64(&w, ACCT_T_COMM_SIZE, 2 + (uint64_t)(k % 63));
            acct_put_u64(&w, ACCT_T_BYTES_BUCKET, (uint64_t)(k / 63) % 24);
            acct_put_str(&w, ACCT_T_ALGORITHM, k % 2 ? "binomial" : "chain");
            acct_put_u64(&w, ACCT_T_COUNT, 10);
            acct_put_f64(&w, ACCT_T_SUM_US, 100.0 + k);
            acct_group_end(&w);
        }
        uint8_t *reply;
        size_t rl;
        struct acct_msg m;
        if (acct_wbuf_finish(&w) != 0 || acct_client_call(fd, &w, 60000, &reply, &rl, &m) != 0)
            goto out;
        uint64_t acc = 0;
        acct_get_u64(m.body, m.len, ACCT_T_ACCEPTED, &acc);
        bool acked = m.h.type == (ACCT_MSG_SAMPLES | ACCT_MSG_REPLY);
        free(reply);
        if (acked && acklog != NULL) {
            /* one line per acknowledged batch: what the daemon promised to keep */
            char line[32];
            int n = snprintf(line, sizeof(line), "%llu\n", (unsigned long long)acc);
            FILE *f = fopen(acklog, "a");
            if (f != NULL) {
                fwrite(line, 1, (size_t)n, f);
                fclose(f);
            }
        }
        if (!acked || acc != (uint64_t)batch) {
            fprintf(stderr, "client %d: batch %d: accepted %llu of %d\n", id, b,
                    (unsigned long long)acc, batch);
            goto out;
        }
    }
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    acct_wbuf_free(&w);
    return rc;
}

static int bench_samples(int clients, int batches, int batch)
{
    double t0 = now_s();
    int bad = 0;
    for (int c = 0; c < clients; c++) {
        pid_t p = fork();
        if (p == 0)
            _exit(bench_client(c, batches, batch));
        if (p < 0)
            return 2;
    }
    for (int c = 0; c < clients; c++) {
        int st;
        if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            bad++;
    }
    double dt = now_s() - t0;
    double n = (double)clients * batches * batch;
    printf("samples: %d clients x %d batches x %d = %.0f samples in %.3f s: %.0f samples/s%s\n",
           clients, batches, batch, n, dt, n / dt, bad ? " (FAILED clients)" : "");
    return bad ? 1 : 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int bench_rules(const char *p, const char *i, int n)
{
    struct acct_wbuf w;
    double *lat = calloc((size_t)n, sizeof(double));
    int fd = acct_client_connect(sock, 5000), rc = 1;
    acct_wbuf_init(&w, 4096);
    if (fd < 0 || lat == NULL)
        goto out;
    acct_wbuf_start(&w, ACCT_MSG_GET_RULES, 1);
    acct_put_str(&w, ACCT_T_PARTITION, p);
    acct_put_str(&w, ACCT_T_INTERCONNECT, i);
    if (acct_wbuf_finish(&w) != 0)
        goto out;
    for (int k = 0; k < n; k++) {
        uint8_t *reply;
        size_t rl;
        struct acct_msg m;
        double t0 = now_s();
        if (acct_client_call(fd, &w, 10000, &reply, &rl, &m) != 0)
            goto out;
        lat[k] = (now_s() - t0) * 1e6;
        bool okr = m.h.type == (ACCT_MSG_GET_RULES | ACCT_MSG_REPLY);
        free(reply);
        if (!okr) {
            fprintf(stderr, "GET_RULES failed\n");
            goto out;
        }
    }
    qsort(lat, (size_t)n, sizeof(double), cmp_d);
    printf("GET_RULES %s/%s: %d round trips: median %.1f us, p99 %.1f us, max %.1f us\n", p, i,
           n, lat[n / 2], lat[(size_t)(n * 0.99)], lat[n - 1]);
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    free(lat);
    acct_wbuf_free(&w);
    return rc;
}

int main(int argc, char **argv)
{
    int i = 1;
    if (i + 1 < argc && strcmp(argv[i], "-s") == 0) {
        sock = argv[i + 1];
        i += 2;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: acctd-client [-s SOCKET] TYPE [FIELD=VALUE...] | bench-samples C B N | bench-rules P I N\n");
        return 2;
    }
    if (strcmp(argv[i], "bench-samples") == 0 && i + 3 < argc)
        return bench_samples(atoi(argv[i + 1]), atoi(argv[i + 2]), atoi(argv[i + 3]));
    if (strcmp(argv[i], "bench-rules") == 0 && i + 3 < argc)
        return bench_rules(argv[i + 1], argv[i + 2], atoi(argv[i + 3]));
    return one_request(argc - i, argv + i);
}
