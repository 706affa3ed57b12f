/* Robust summary statistics for timing samples, and byte-size parsing.
 * The rules (interpolation, outlier fence, size grammar) are in acct/stats.h. */
#include "acct/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *acct_stats_strerror(int rc)
{
    switch (rc) {
    case ACCT_STATS_OK: return "success";
    case ACCT_STATS_EINVAL: return "invalid argument";
    case ACCT_STATS_ERANGE: return "value out of range";
    case ACCT_STATS_ENOMEM: return "out of memory";
    default: return "unknown error";
    }
}

/* ---- statistics ---------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Type-7 quantile; the caller has checked sorted, n >= 1 and 0 <= p <= 1. */
static double quantile(const double *sorted, size_t n, double p)
{
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    double frac = h - (double)lo;
    double q = sorted[lo];

    if (lo + 1 < n && frac > 0.0)
        q += frac * (sorted[lo + 1] - sorted[lo]);
    return q;
}

int acct_stats_quantile_sorted(const double *sorted, size_t n, double p, double *out)
{
    int rc = ACCT_STATS_EINVAL;

    if (sorted == NULL || out == NULL || n == 0 || !(p >= 0.0 && p <= 1.0))
        goto out;
    *out = quantile(sorted, n, p);
    rc = ACCT_STATS_OK;
out:
    return rc;
}

static int samples_valid(const double *samples, size_t n)
{
    size_t i = 0;

    while (i < n && isfinite(samples[i]))
        i++;
    return i == n;
}

int acct_stats_summarize(const double *samples, size_t n, double outlier_k,
                         struct acct_summary *out)
{
    int rc = ACCT_STATS_EINVAL;
    double *sorted = NULL;
    double sum = 0.0;
    struct acct_summary s = { 0 };

    if (samples == NULL || out == NULL || n == 0 || isnan(outlier_k) || outlier_k < 0.0)
        goto out;
    if (!samples_valid(samples, n))
        goto out;
    rc = ACCT_STATS_ENOMEM;
    if (n > SIZE_MAX / sizeof(*sorted))
        goto out;
    sorted = malloc(n * sizeof(*sorted));
    if (sorted == NULL)
        goto out;
    memcpy(sorted, samples, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), cmp_double);

    s.n = n;
    s.fence = INFINITY;
    if (outlier_k > 0.0 && isfinite(outlier_k)) {
        double q1 = quantile(sorted, n, 0.25);
        double q3 = quantile(sorted, n, 0.75);
        s.fence = q3 + outlier_k * (q3 - q1);
    }
    /* Sorted ascending: the kept samples are a prefix. The fence is >= Q3,
     * so the prefix holds at least the samples up to Q3's position. */
    s.kept = n;
    while (s.kept > 1 && sorted[s.kept - 1] > s.fence)
        s.kept--;
    s.dropped = n - s.kept;

    for (size_t i = 0; i < s.kept; i++)
        sum += sorted[i];
    s.mean = sum / (double)s.kept;
    s.min = sorted[0];
    s.max = sorted[s.kept - 1];
    s.median = quantile(sorted, s.kept, 0.5);
    s.p25 = quantile(sorted, s.kept, 0.25);
    s.p75 = quantile(sorted, s.kept, 0.75);
    s.rel_iqr = s.median != 0.0 ? (s.p75 - s.p25) / fabs(s.median) : 0.0;

    *out = s;
    rc = ACCT_STATS_OK;
out:
    free(sorted);
    return rc;
}

/* ---- byte sizes ---------------------------------------------------------- */

/* Most digits a size may have before the unit (UINT64_MAX has 20). */
#define SIZE_MAX_DIGITS 20
/* Quoted text in messages is cut to this many characters. */
#define QUOTE_MAX 64
#define DEFAULT_FACTOR 2
#define MIN_FACTOR 2
#define LIST_INITIAL_CAP 16

struct unit {
    char letter; /* lower case */
    unsigned shift;
};

static const struct unit units[] = {
    { .letter = 'k', .shift = 10 },
    { .letter = 'm', .shift = 20 },
    { .letter = 'g', .shift = 30 },
    { .letter = 't', .shift = 40 },
    { .letter = '\0', .shift = 0 }, /* sentinel */
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err != NULL && errlen > 0) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
}

static int lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

/* Parse decimal digits in s[0..len) (all of it) into *out. */
static int parse_digits(const char *s, size_t len, uint64_t *out)
{
    int rc = len == 0 ? ACCT_STATS_EINVAL : ACCT_STATS_OK;
    uint64_t v = 0;

    for (size_t i = 0; i < len && rc == ACCT_STATS_OK; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (s[i] < '0' || s[i] > '9')
            rc = ACCT_STATS_EINVAL;
        else if (v > (UINT64_MAX - d) / 10)
            rc = ACCT_STATS_ERANGE;
        else
            v = v * 10 + d;
    }
    if (rc == ACCT_STATS_OK)
        *out = v;
    return rc;
}

/* Shift for a unit spelled s[0..len): "", "b", "k", "kb", "kib", ... */
static int parse_unit(const char *s, size_t len, unsigned *shift)
{
    int rc = ACCT_STATS_EINVAL;
    const struct unit *u = units;

    if (len == 0 || (len == 1 && lower(s[0]) == 'b')) {
        *shift = 0;
        rc = ACCT_STATS_OK;
        goto out;
    }
    while (u->letter != '\0' && u->letter != lower(s[0]))
        u++;
    if (u->letter != '\0' &&
        (len == 1 || (len == 2 && lower(s[1]) == 'b') ||
         (len == 3 && lower(s[1]) == 'i' && lower(s[2]) == 'b'))) {
        *shift = u->shift;
        rc = ACCT_STATS_OK;
    }
out:
    return rc;
}

/* One size in s[0..len); messages quote it. */
static int parse_size(const char *s, size_t len, uint64_t *out, char *err, size_t errlen)
{
    int rc = ACCT_STATS_EINVAL;
    int qlen = (int)(len > QUOTE_MAX ? QUOTE_MAX : len);
    size_t ndig = 0;
    uint64_t v = 0;
    unsigned shift = 0;

    while (ndig < len && s[ndig] >= '0' && s[ndig] <= '9')
        ndig++;
    if (len == 0) {
        set_err(err, errlen, "empty size");
        goto out;
    }
    if (ndig == 0) {
        set_err(err, errlen, "invalid size \"%.*s\": expected a number of bytes "
                "such as 8, 64K or 1MiB", qlen, s);
        goto out;
    }
    if (parse_unit(s + ndig, len - ndig, &shift) != ACCT_STATS_OK) {
        set_err(err, errlen, "invalid size \"%.*s\": unknown unit \"%.*s\" "
                "(use B, K, M, G or T, optionally followed by B or iB)",
                qlen, s, (int)(len - ndig > QUOTE_MAX ? QUOTE_MAX : len - ndig), s + ndig);
        goto out;
    }
    rc = ndig > SIZE_MAX_DIGITS ? ACCT_STATS_ERANGE : parse_digits(s, ndig, &v);
    if (rc == ACCT_STATS_OK && v > (UINT64_MAX >> shift))
        rc = ACCT_STATS_ERANGE;
    if (rc != ACCT_STATS_OK) {
        set_err(err, errlen, "size \"%.*s\" is too large", qlen, s);
        goto out;
    }
    v <<= shift;
    if (v == 0) {
        rc = ACCT_STATS_ERANGE;
        set_err(err, errlen, "size \"%.*s\" is zero: sizes start at 1 byte", qlen, s);
        goto out;
    }
    *out = v;
out:
    return rc;
}

int acct_size_parse(const char *text, uint64_t *out, char *err, size_t errlen)
{
    int rc = ACCT_STATS_EINVAL;

    if (text == NULL || out == NULL)
        set_err(err, errlen, "no size given");
    else
        rc = parse_size(text, strlen(text), out, err, errlen);
    return rc;
}

void acct_size_list_free(struct acct_size_list *list)
{
    if (list != NULL) {
        free(list->v);
        list->v = NULL;
        list->n = 0;
    }
}

/* Append v to list (capacity *cap), growing it by doubling. */
static int list_push(struct acct_size_list *list, size_t *cap, uint64_t v,
                     char *err, size_t errlen)
{
    int rc = ACCT_STATS_ERANGE;

    if (list->n >= ACCT_SIZE_LIST_MAX) {
        set_err(err, errlen, "size list has more than %d sizes", ACCT_SIZE_LIST_MAX);
        goto out;
    }
    if (list->n == *cap) {
        size_t ncap = *cap == 0 ? LIST_INITIAL_CAP : *cap * 2;
        uint64_t *nv = realloc(list->v, ncap * sizeof(*nv));
        rc = ACCT_STATS_ENOMEM;
        if (nv == NULL) {
            set_err(err, errlen, "out of memory");
            goto out;
        }
        list->v = nv;
        *cap = ncap;
    }
    list->v[list->n++] = v;
    rc = ACCT_STATS_OK;
out:
    return rc;
}

/* One list item in s[0..len): "SIZE", "FROM:TO" or "FROM:TO:FACTOR". */
static int parse_item(const char *s, size_t len, struct acct_size_list *list, size_t *cap,
                      char *err, size_t errlen)
{
    int rc = ACCT_STATS_EINVAL;
    int qlen = (int)(len > QUOTE_MAX ? QUOTE_MAX : len);
    const char *c1 = memchr(s, ':', len);
    const char *c2 = c1 != NULL ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - s)) : NULL;
    const char *to_end = c2 != NULL ? c2 : s + len;
    uint64_t from = 0, to = 0, factor = DEFAULT_FACTOR;

    if (len == 0) {
        set_err(err, errlen, "empty item in size list");
        goto out;
    }
    if (c1 == NULL) {
        rc = parse_size(s, len, &from, err, errlen);
        if (rc == ACCT_STATS_OK)
            rc = list_push(list, cap, from, err, errlen);
        goto out;
    }
    if (c2 != NULL && memchr(c2 + 1, ':', len - (size_t)(c2 + 1 - s)) != NULL) {
        set_err(err, errlen, "invalid range \"%.*s\": expected FROM:TO or FROM:TO:FACTOR",
                qlen, s);
        goto out;
    }
    rc = parse_size(s, (size_t)(c1 - s), &from, err, errlen);
    if (rc != ACCT_STATS_OK)
        goto out;
    rc = parse_size(c1 + 1, (size_t)(to_end - (c1 + 1)), &to, err, errlen);
    if (rc != ACCT_STATS_OK)
        goto out;
    if (c2 != NULL) {
        size_t flen = len - (size_t)(c2 + 1 - s);
        rc = flen > SIZE_MAX_DIGITS ? ACCT_STATS_ERANGE : parse_digits(c2 + 1, flen, &factor);
        if (rc == ACCT_STATS_OK && factor < MIN_FACTOR)
            rc = ACCT_STATS_ERANGE;
        if (rc != ACCT_STATS_OK) {
            set_err(err, errlen, "invalid range \"%.*s\": FACTOR must be an integer >= 2",
                    qlen, s);
            goto out;
        }
    }
    if (from > to) {
        rc = ACCT_STATS_ERANGE;
        set_err(err, errlen, "invalid range \"%.*s\": FROM is larger than TO", qlen, s);
        goto out;
    }
    for (uint64_t v = from;;) {
        rc = list_push(list, cap, v, err, errlen);
        if (rc != ACCT_STATS_OK || v > to / factor)
            break;
        v *= factor; /* cannot overflow: v <= to / factor */
    }
out:
    return rc;
}

int acct_size_list_parse(const char *text, struct acct_size_list *out, char *err,
                         size_t errlen)
{
    int rc = ACCT_STATS_EINVAL;
    struct acct_size_list list = { NULL, 0 };
    size_t cap = 0;

    if (out == NULL || text == NULL) {
        set_err(err, errlen, "no size list given");
        goto out;
    }
    if (*text == '\0') {
        set_err(err, errlen, "empty size list");
        goto out;
    }
    for (const char *item = text;;) {
        const char *comma = strchr(item, ',');
        size_t len = comma != NULL ? (size_t)(comma - item) : strlen(item);
        rc = parse_item(item, len, &list, &cap, err, errlen);
        if (rc != ACCT_STATS_OK || comma == NULL)
            break;
        item = comma + 1;
    }
out:
    if (rc != ACCT_STATS_OK)
        acct_size_list_free(&list);
    if (out != NULL)
        *out = list;
    return rc;
}

int acct_size_format(uint64_t bytes, char *buf, size_t len)
{
    int rc = ACCT_STATS_EINVAL;
    int unit = -1;
    int n = 0;
    uint64_t v = bytes;

    if (buf == NULL || len == 0)
        goto out;
    for (int i = 0; v != 0 && units[i].letter != '\0'; i++) {
        uint64_t mask = ((uint64_t)1 << units[i].shift) - 1;
        if ((bytes & mask) != 0)
            break;
        unit = i;
    }
    if (unit >= 0)
        v = bytes >> units[unit].shift;
    if (unit >= 0)
        n = snprintf(buf, len, "%llu%c", (unsigned long long)v,
                     (char)(units[unit].letter - 'a' + 'A'));
    else
        n = snprintf(buf, len, "%llu", (unsigned long long)v);
    rc = (n >= 0 && (size_t)n < len) ? ACCT_STATS_OK : ACCT_STATS_ERANGE;
out:
    return rc;
}
