/* acct-tune: the grid and the search space of each point. Pure, no MPI.
 *
 * Primary grid: collectives x communicator sizes x message sizes.
 * Secondary space of a point: methods (algorithm, fan-out) x segment sizes,
 * segment index 0 being "unsegmented" (search.h). */
#include "tune.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acct/alg.h"
#include "acct/common.h"
#include "acct/model_space.h"

/* The pipeline along the longest edge (the proxy of the pipeline strategy):
 * one segmented chain algorithm per collective that has one. */
static const struct {
    enum acct_coll_id coll;
    const char *alg;
    int fanout;
} proxies[] = {
    { ACCT_COLL_bcast, "pipeline", 0 },
    { ACCT_COLL_reduce, "pipeline", 0 },
    { ACCT_COLL_gather, "chain", 1 },
    { ACCT_COLL_scatter, "chain", 1 },
};

int tune_proxy_method(enum acct_coll_id coll, struct acct_decision *d)
{
    int rc = -1;

    for (size_t i = 0; i < ACCT_ARRAY_LEN(proxies) && rc != 0; i++) {
        if (proxies[i].coll == coll) {
            memset(d, 0, sizeof(*d));
            d->alg = acct_alg_find(coll, proxies[i].alg);
            d->fanout = proxies[i].fanout;
            rc = d->alg != NULL ? 0 : -1;
        }
    }
    return rc;
}

bool tune_applicable(enum acct_coll_id coll, const struct acct_decision *d, int p, uint64_t m)
{
    return acct_model_applicable(coll, d, p, m);
}

bool tune_nodes_among(const int *node, int p)
{
    int nodes = 0, most = 0;
    for (int i = 0; i < p; i++) {
        int seen = 0, same = 0;
        for (int j = 0; j < p; j++)
            same += node[j] == node[i];
        for (int j = 0; j < i && !seen; j++)
            seen = node[j] == node[i];
        nodes += !seen;
        most = same > most ? same : most;
    }
    return nodes >= 2 && most >= 2;
}

/* The model library's method space (acct/model_space.h), each method with
 * its pipeline proxy class. */
int tune_methods(enum acct_coll_id coll, int p, bool nodes, struct tune_method **out, size_t *n)
{
    struct acct_decision proxy, *d = NULL;
    bool has_proxy = tune_proxy_method(coll, &proxy) == 0;
    size_t nd = 0;

    *out = NULL;
    *n = 0;
    if (acct_model_methods(coll, p, nodes, &d, &nd) != 0)
        return -1;
    if (nd > 0) {
        *out = calloc(nd, sizeof(**out));
        if (*out == NULL) {
            free(d);
            return -1;
        }
    }
    for (size_t i = 0; i < nd; i++) {
        (*out)[i].d = d[i];
        (*out)[i].proxy = has_proxy && (d[i].alg->flags & ACCT_ALG_SEGMENTED) ? 0 : -1;
    }
    *n = nd;
    free(d);
    return 0;
}

size_t tune_segments(uint64_t m, uint64_t min_segment, int max_segments, uint64_t *segs)
{
    return acct_model_segments(m, min_segment, max_segments, segs);
}

size_t tune_eager_segments(const uint64_t *lim, size_t n, uint64_t *segs)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        uint64_t s = 1;
        size_t j = 0;
        if (lim[i] < 2)
            continue;
        while (s * 2 < lim[i])
            s *= 2;
        while (j < k && segs[j] > s)
            j++;
        if (j < k && segs[j] == s)
            continue;
        memmove(&segs[j + 1], &segs[j], (k - j) * sizeof(*segs));
        segs[j] = s;
        k++;
    }
    return k;
}

size_t tune_coll_sizes(enum acct_coll_id coll, const struct tune_opts *o, const uint64_t **v,
                       uint64_t *storage)
{
    size_t n = o->sizes.n;

    *v = o->sizes.v;
    if (coll == ACCT_COLL_barrier) {
        *storage = 0;
        *v = storage;
        n = 1;
    }
    return n;
}

/* ---- --used FILE ------------------------------------------------------------- */

#define USED_MAX_POINTS 100000
#define USED_LINE_MAX 512

static int used_problem(char *err, size_t errlen, const char *file, int line, int col,
                        const char *field, const char *msg, const char *tok)
{
    snprintf(err, errlen, "%s:%d:%d: %s: %s \"%.64s\"", file, line, col, field, msg, tok);
    return -1;
}

/* One line "COLLECTIVE COMM_SIZE BYTES" (after comments are cut). */
static int used_line(const char *file, int ln, char *line, struct tune_used_point *pt, int *empty,
                     char *err, size_t errlen)
{
    static const char *const fields[] = { "collective", "comm_size", "bytes" };
    char *tok[3] = { NULL, NULL, NULL };
    int col[3] = { 0, 0, 0 };
    int nt = 0;
    char *p = line;
    char msg[TUNE_ERRLEN];

    while (*p != '\0') {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0')
            break;
        if (nt == 3)
            return used_problem(err, errlen, file, ln, (int)(p - line) + 1, "line",
                                "unexpected text after BYTES:", p);
        col[nt] = (int)(p - line) + 1;
        tok[nt++] = p;
        while (*p != '\0' && *p != ' ' && *p != '\t')
            p++;
        if (*p != '\0')
            *p++ = '\0';
    }
    *empty = nt == 0;
    if (nt == 0)
        return 0;
    if (nt < 3)
        return used_problem(err, errlen, file, ln, 1, fields[nt], "missing: the line is",
                            line);
    if (acct_coll_from_name(tok[0], &pt->coll) != 0)
        return used_problem(err, errlen, file, ln, col[0], fields[0], "unknown collective",
                            tok[0]);
    uint64_t v = 0;
    if (acct_size_parse(tok[1], &v, msg, sizeof(msg)) != ACCT_STATS_OK || v < 2 ||
        v > (uint64_t)INT32_MAX || strspn(tok[1], "0123456789") != strlen(tok[1]))
        return used_problem(err, errlen, file, ln, col[1], fields[1],
                            "not an integer >= 2:", tok[1]);
    pt->comm_size = (int)v;
    if (strcmp(tok[2], "0") == 0)
        pt->bytes = 0;
    else if (acct_size_parse(tok[2], &pt->bytes, msg, sizeof(msg)) != ACCT_STATS_OK)
        return used_problem(err, errlen, file, ln, col[2], fields[2], "not a size:", tok[2]);
    return 0;
}

int tune_used_parse(const char *path, struct tune_used_point **out, size_t *n, char *err,
                    size_t errlen)
{
    int rc = 0;
    int ln = 0;
    size_t cap = 0;
    char line[USED_LINE_MAX + 2];
    FILE *f = fopen(path, "r");

    *out = NULL;
    *n = 0;
    if (f == NULL) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
        ln++;
        size_t len = strlen(line);
        if (len > USED_LINE_MAX) {
            rc = used_problem(err, errlen, path, ln, USED_LINE_MAX, "line", "longer than 512 "
                              "characters:", line);
            break;
        }
        line[strcspn(line, "#\r\n")] = '\0';
        struct tune_used_point pt;
        int empty = 0;
        rc = used_line(path, ln, line, &pt, &empty, err, errlen);
        if (rc != 0 || empty)
            continue;
        if (*n == USED_MAX_POINTS) {
            snprintf(err, errlen, "%s:%d:1: more than %d points", path, ln, USED_MAX_POINTS);
            rc = -1;
        } else if (*n == cap) {
            size_t c = cap ? 2 * cap : 64;
            struct tune_used_point *nv = realloc(*out, c * sizeof(**out));
            if (nv == NULL) {
                snprintf(err, errlen, "%s: out of memory", path);
                rc = -1;
            } else {
                *out = nv;
                cap = c;
            }
        }
        if (rc == 0)
            (*out)[(*n)++] = pt;
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && *n == 0) {
        snprintf(err, errlen, "%s: no points (lines \"COLLECTIVE COMM_SIZE BYTES\")", path);
        rc = -1;
    }
    fclose(f);
    if (rc != 0) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}
