/* Exact decision maps: the grid of measured communicator sizes x message
 * sizes of one collective, the median time of every method at every cell,
 * and the best method per cell (acct/dmap.h, docs/decisions.md). */
#include "acct/dmap.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void acct_dmap_free(struct acct_dmap *m)
{
    if (m == NULL)
        return;
    free(m->comm);
    free(m->bytes);
    free(m->comm_lo);
    free(m->comm_hi);
    free(m->bytes_lo);
    free(m->bytes_hi);
    free(m->methods);
    free(m->time);
    free(m->best);
    free(m->measured);
    free(m->decided);
    free(m);
}

/* floor(sqrt(a * b)) without overflow, for a < b: the largest x with
 * x * x <= a * b (compared as x / b <= a / x in exact integer steps). */
uint64_t acct_geo_mid(uint64_t a, uint64_t b)
{
    if (a == 0)
        return 0;
    long double r = sqrtl((long double)a) * sqrtl((long double)b);
    uint64_t x = r >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)r;
    /* Correct the floating-point estimate: x*x <= a*b, computed with 128 bits. */
    __extension__ typedef unsigned __int128 u128;
    u128 ab = (u128)a * b;
    while (x > 0 && (u128)x * x > ab)
        x--;
    while (x < UINT64_MAX && (u128)(x + 1) * (x + 1) <= ab)
        x++;
    if (x < a)
        x = a;
    if (x >= b)
        x = b - 1;
    return x;
}

static void extents(struct acct_dmap *m)
{
    for (size_t i = 0; i < m->ncomm; i++) {
        m->comm_lo[i] = i == 0 ? m->comm[0] /* never below the smallest measured size */
                            : m->comm_hi[i - 1] + 1;
        m->comm_hi[i] = i + 1 == m->ncomm
                            ? m->comm[i] /* never beyond the largest measured size */
                            : (int)acct_geo_mid((uint64_t)m->comm[i], (uint64_t)m->comm[i + 1]);
    }
    for (size_t j = 0; j < m->nbytes; j++) {
        m->bytes_lo[j] = j == 0 ? 0 : m->bytes_hi[j - 1] + 1;
        m->bytes_hi[j] = j + 1 == m->nbytes ? UINT64_MAX
                                            : acct_geo_mid(m->bytes[j], m->bytes[j + 1]);
    }
}

static bool valid_method(enum acct_coll_id coll, const struct acct_decision *d)
{
    return d->alg != NULL && d->alg->coll == coll;
}

int acct_dmap_create(enum acct_coll_id coll, const int *comm, size_t ncomm,
                     const uint64_t *bytes, size_t nbytes,
                     const struct acct_decision *methods, size_t nmethods,
                     struct acct_dmap **out, struct acct_diags *diags)
{
    int rc = ACCT_RULES_EINVAL;
    struct acct_dmap *m = NULL;
    *out = NULL;
    if ((int)coll < 0 || coll >= ACCT_COLL_COUNT) {
        acct_diags_add(diags, 0, 0, "", "decision map: collective id %d out of range", (int)coll);
        goto done;
    }
    if (ncomm < 1 || nbytes < 1 || nmethods < 1 || ncomm > ACCT_DMAP_MAX_SIZES ||
        nbytes > ACCT_DMAP_MAX_SIZES || nmethods > ACCT_DMAP_MAX_METHODS ||
        ncomm * nbytes * nmethods > ACCT_DMAP_MAX_CELLS) {
        acct_diags_add(diags, 0, 0, "", "decision map of %s: %zu communicator sizes x %zu "
                       "message sizes x %zu methods is empty or too large (limits %d, %d, "
                       "%d; %u values)", acct_coll_name(coll), ncomm, nbytes, nmethods,
                       ACCT_DMAP_MAX_SIZES, ACCT_DMAP_MAX_SIZES, ACCT_DMAP_MAX_METHODS,
                       ACCT_DMAP_MAX_CELLS);
        goto done;
    }
    for (size_t i = 0; i < ncomm; i++)
        if (comm[i] < 1 || (i > 0 && comm[i] <= comm[i - 1])) {
            acct_diags_add(diags, 0, 0, "", "decision map of %s: communicator sizes must be "
                           ">= 1 and strictly ascending (size %zu is %d)", acct_coll_name(coll),
                           i, comm[i]);
            goto done;
        }
    for (size_t j = 1; j < nbytes; j++)
        if (bytes[j] <= bytes[j - 1]) {
            acct_diags_add(diags, 0, 0, "", "decision map of %s: message sizes must be "
                           "strictly ascending (size %zu)", acct_coll_name(coll), j);
            goto done;
        }
    for (size_t k = 0; k < nmethods; k++)
        if (!valid_method(coll, &methods[k])) {
            acct_diags_add(diags, 0, 0, "", "decision map of %s: method %zu is not an "
                           "algorithm of %s", acct_coll_name(coll), k, acct_coll_name(coll));
            goto done;
        }
    rc = ACCT_RULES_ENOMEM;
    m = calloc(1, sizeof(*m));
    if (m == NULL)
        goto done;
    size_t ncell = ncomm * nbytes;
    m->coll = coll;
    m->ncomm = ncomm;
    m->nbytes = nbytes;
    m->nmethods = nmethods;
    m->comm = malloc(ncomm * sizeof(*m->comm));
    m->comm_lo = malloc(ncomm * sizeof(*m->comm_lo));
    m->comm_hi = malloc(ncomm * sizeof(*m->comm_hi));
    m->bytes = malloc(nbytes * sizeof(*m->bytes));
    m->bytes_lo = malloc(nbytes * sizeof(*m->bytes_lo));
    m->bytes_hi = malloc(nbytes * sizeof(*m->bytes_hi));
    m->methods = malloc(nmethods * sizeof(*m->methods));
    m->time = malloc(ncell * nmethods * sizeof(*m->time));
    m->best = malloc(ncell * sizeof(*m->best));
    m->measured = calloc(ncell, sizeof(*m->measured));
    m->decided = malloc(ncell * sizeof(*m->decided));
    if (!m->comm || !m->comm_lo || !m->comm_hi || !m->bytes || !m->bytes_lo || !m->bytes_hi ||
        !m->methods || !m->time || !m->best || !m->measured || !m->decided)
        goto done;
    memcpy(m->comm, comm, ncomm * sizeof(*comm));
    memcpy(m->bytes, bytes, nbytes * sizeof(*bytes));
    memcpy(m->methods, methods, nmethods * sizeof(*methods));
    for (size_t i = 0; i < ncell * nmethods; i++)
        m->time[i] = -1.0;
    for (size_t i = 0; i < ncell; i++)
        m->best[i] = m->decided[i] = -1;
    extents(m);
    *out = m;
    m = NULL;
    rc = ACCT_RULES_OK;
done:
    acct_dmap_free(m);
    return rc;
}

int acct_dmap_set(struct acct_dmap *m, size_t i, size_t j, size_t k, double median_us)
{
    if (m == NULL || i >= m->ncomm || j >= m->nbytes || k >= m->nmethods ||
        !isfinite(median_us) || median_us < 0)
        return ACCT_RULES_EINVAL;
    size_t c = i * m->nbytes + j;
    m->time[c * m->nmethods + k] = median_us;
    m->measured[c] = true;
    return ACCT_RULES_OK;
}

int acct_dmap_decide(struct acct_dmap *m, size_t i, size_t j, size_t k)
{
    if (m == NULL || i >= m->ncomm || j >= m->nbytes || k >= m->nmethods)
        return ACCT_RULES_EINVAL;
    m->decided[i * m->nbytes + j] = (int32_t)k;
    return ACCT_RULES_OK;
}

int acct_dmap_finish(struct acct_dmap *m, struct acct_diags *diags)
{
    size_t ncell = m->ncomm * m->nbytes;
    size_t nmeasured = 0;
    for (size_t c = 0; c < ncell; c++) {
        const double *t = &m->time[c * m->nmethods];
        int32_t best = -1;
        for (size_t k = 0; k < m->nmethods; k++)
            if (t[k] >= 0 && (best < 0 || t[k] < t[best]))
                best = (int32_t)k;
        m->best[c] = best >= 0 ? best : m->decided[c];
        nmeasured += m->best[c] >= 0;
    }
    if (nmeasured == 0) {
        acct_diags_add(diags, 0, 0, "", "decision map of %s: no cell has a measurement",
                       acct_coll_name(m->coll));
        return ACCT_RULES_EINVAL;
    }
    /* Holes: the nearest measured cell (Manhattan distance in index
     * space): a breadth-first search from every measured cell at once,
     * sources in row-major order, neighbours up, left, right, down; a hole
     * takes the decision of the search that reaches it first. Linear in the
     * number of cells. */
    if (nmeasured < ncell) {
        size_t *queue = malloc(ncell * sizeof(*queue));
        if (queue == NULL)
            return ACCT_RULES_ENOMEM;
        size_t head = 0, tail = 0;
        for (size_t c = 0; c < ncell; c++)
            if (m->best[c] >= 0)
                queue[tail++] = c;
        while (head < tail) {
            size_t c = queue[head++], i = c / m->nbytes, j = c % m->nbytes;
            size_t nb[4];
            int k = 0;
            if (i > 0)
                nb[k++] = c - m->nbytes;
            if (j > 0)
                nb[k++] = c - 1;
            if (j + 1 < m->nbytes)
                nb[k++] = c + 1;
            if (i + 1 < m->ncomm)
                nb[k++] = c + m->nbytes;
            for (int q = 0; q < k; q++)
                if (m->best[nb[q]] < 0) {
                    m->best[nb[q]] = m->best[c];
                    queue[tail++] = nb[q];
                }
        }
        free(queue);
    }
    return ACCT_RULES_OK;
}

size_t acct_dmap_row(const struct acct_dmap *m, int comm_size)
{
    size_t lo = 0, hi = m->ncomm - 1;
    while (lo < hi) { /* first row whose comm_hi >= comm_size */
        size_t mid = lo + (hi - lo) / 2;
        if (m->comm_hi[mid] < comm_size)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t acct_dmap_col(const struct acct_dmap *m, uint64_t bytes)
{
    size_t lo = 0, hi = m->nbytes - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->bytes_hi[mid] < bytes)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- from a tuning result ------------------------------------------------ */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static size_t uniq_int(int *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[i] != v[k - 1])
            v[k++] = v[i];
    return k;
}

static size_t uniq_u64(uint64_t *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[i] != v[k - 1])
            v[k++] = v[i];
    return k;
}

static size_t find_int(const int *v, size_t n, int x)
{
    const int *p = bsearch(&x, v, n, sizeof(*v), cmp_int);
    return p ? (size_t)(p - v) : SIZE_MAX;
}

static size_t find_u64(const uint64_t *v, size_t n, uint64_t x)
{
    const uint64_t *p = bsearch(&x, v, n, sizeof(*v), cmp_u64);
    return p ? (size_t)(p - v) : SIZE_MAX;
}

/* Method index of every point of coll, through a small open-addressing
 * hash of the decisions (points can number a million). */
static uint64_t dec_hash(const struct acct_decision *d)
{
    uint64_t h = (uint64_t)(uintptr_t)d->alg * 0x9e3779b97f4a7c15ull;
    h ^= d->segment_bytes + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
    h ^= (uint64_t)(unsigned)d->fanout * 0x85ebca77c2b2ae63ull + (h << 6) + (h >> 2);
    h ^= (uint64_t)d->reorder + (h << 6) + (h >> 2);
    return h ^ (h >> 29);
}

static int index_methods(const struct acct_result_point *pts, size_t npts,
                         enum acct_coll_id coll, size_t n, int32_t *pidx,
                         struct acct_decision *methods, size_t *nm, struct acct_diags *diags)
{
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    int32_t *slot = malloc(cap * sizeof(*slot));
    if (slot == NULL)
        return ACCT_RULES_ENOMEM;
    for (size_t s = 0; s < cap; s++)
        slot[s] = -1;
    int rc = ACCT_RULES_OK;
    size_t k = 0;
    *nm = 0;
    for (size_t p = 0; p < npts && rc == ACCT_RULES_OK; p++) {
        if (pts[p].coll != coll)
            continue;
        const struct acct_decision *d = &pts[p].d;
        size_t s = (size_t)dec_hash(d) & (cap - 1);
        while (slot[s] >= 0 && !acct_decision_equal(&methods[slot[s]], d))
            s = (s + 1) & (cap - 1);
        if (slot[s] < 0) {
            if (*nm == ACCT_DMAP_MAX_METHODS) {
                acct_diags_add(diags, 0, 0, "", "decision map of %s: more than %d methods",
                               acct_coll_name(coll), ACCT_DMAP_MAX_METHODS);
                rc = ACCT_RULES_EINVAL;
                break;
            }
            methods[*nm] = *d;
            slot[s] = (int32_t)(*nm)++;
        }
        pidx[k++] = slot[s];
    }
    free(slot);
    return rc;
}

/* The map of pts[0..ntimed-1] (timed) and pts[ntimed..npts-1] (decided
 * without a measurement). */
static int from_points(const struct acct_result_point *pts, size_t npts, size_t ntimed,
                       enum acct_coll_id coll, struct acct_dmap **out, struct acct_diags *diags)
{
    int rc = ACCT_RULES_ENOMEM;
    int *comm = NULL;
    uint64_t *bytes = NULL;
    struct acct_decision *methods = NULL;
    struct acct_dmap *m = NULL;
    int32_t *pidx = NULL;
    size_t n = 0, nm = 0;
    *out = NULL;
    for (size_t p = 0; p < npts; p++)
        n += pts[p].coll == coll;
    if (n == 0) {
        rc = ACCT_RULES_OK;
        goto done;
    }
    comm = malloc(n * sizeof(*comm));
    bytes = malloc(n * sizeof(*bytes));
    methods = malloc((n < ACCT_DMAP_MAX_METHODS ? n : ACCT_DMAP_MAX_METHODS) * sizeof(*methods));
    pidx = malloc(n * sizeof(*pidx));
    if (comm == NULL || bytes == NULL || methods == NULL || pidx == NULL)
        goto done;
    rc = index_methods(pts, npts, coll, n, pidx, methods, &nm, diags);
    if (rc != ACCT_RULES_OK)
        goto done;
    size_t k = 0;
    for (size_t p = 0; p < npts; p++)
        if (pts[p].coll == coll) {
            comm[k] = pts[p].comm_size;
            bytes[k] = pts[p].bytes;
            k++;
        }
    qsort(comm, n, sizeof(*comm), cmp_int);
    qsort(bytes, n, sizeof(*bytes), cmp_u64);
    size_t nc = uniq_int(comm, n), nb = uniq_u64(bytes, n);
    rc = acct_dmap_create(coll, comm, nc, bytes, nb, methods, nm, &m, diags);
    if (rc != ACCT_RULES_OK)
        goto done;
    k = 0;
    for (size_t p = 0; p < npts; p++) {
        const struct acct_result_point *pt = &pts[p];
        if (pt->coll != coll)
            continue;
        size_t i = find_int(comm, nc, pt->comm_size), j = find_u64(bytes, nb, pt->bytes);
        size_t mk = (size_t)pidx[k++];
        if (p >= ntimed) {
            acct_dmap_decide(m, i, j, mk); /* in range by construction */
        } else if (acct_dmap_set(m, i, j, mk, pt->median_us) != ACCT_RULES_OK) {
            acct_diags_add(diags, 0, 0, "", "decision map of %s: point %zu has an invalid "
                           "median time", acct_coll_name(coll), p);
            rc = ACCT_RULES_EINVAL;
            goto done;
        }
    }
    rc = acct_dmap_finish(m, diags);
    if (rc != ACCT_RULES_OK)
        goto done;
    *out = m;
    m = NULL;
done:
    acct_dmap_free(m);
    free(comm);
    free(bytes);
    free(methods);
    free(pidx);
    return rc;
}

size_t acct_rules_end_bytes(struct acct_rules *r, enum acct_coll_id coll, uint64_t measured,
                            uint64_t next)
{
    struct acct_rule_list *l = &r->coll[coll];
    uint64_t mid = acct_geo_mid(measured, next);
    size_t n = 0;

    if (next <= measured || mid < measured)
        return 0;
    for (size_t i = 0; i < l->n; i++) {
        struct acct_rule *x = &l->v[i];
        if (x->bytes_max == UINT64_MAX && x->bytes_min <= mid) {
            x->bytes_max = mid;
            n++;
        }
    }
    return n;
}

int acct_dmap_from_points(const struct acct_result_point *pts, size_t npts,
                          enum acct_coll_id coll, struct acct_dmap **out,
                          struct acct_diags *diags)
{
    return from_points(pts, npts, npts, coll, out, diags);
}

int acct_dmap_from_points_decided(const struct acct_result_point *pts, size_t npts,
                                  const struct acct_result_point *dec, size_t ndec,
                                  enum acct_coll_id coll, struct acct_dmap **out,
                                  struct acct_diags *diags)
{
    struct acct_result_point *all = NULL;
    int rc = ACCT_RULES_ENOMEM;

    *out = NULL;
    if (ndec == 0)
        return from_points(pts, npts, npts, coll, out, diags);
    if (npts > SIZE_MAX / sizeof(*all) - ndec ||
        (all = malloc((npts + ndec) * sizeof(*all))) == NULL)
        return rc;
    if (npts > 0)
        memcpy(all, pts, npts * sizeof(*all));
    memcpy(all + npts, dec, ndec * sizeof(*all));
    rc = from_points(all, npts + ndec, npts, coll, out, diags);
    free(all);
    return rc;
}
