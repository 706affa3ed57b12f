/* acct-tune: the resume journal (--state FILE). No MPI; rank 0 only.
 *
 * A text file: a header line, then one line per experiment, appended as the
 * run goes (one write per line) and synced after every grid point:
 *
 *   acct-tune-state 1 FINGERPRINT
 *   m COLL COMM_SIZE BYTES ALG SEGMENT FANOUT OK REPS MEDIAN Q1 Q3 MIN MAX
 *
 * Times are printed with 17 significant digits, so a resumed run sees the
 * very numbers the first one measured and its searches take the same path
 * without measuring again. A run killed in the middle of a line leaves a
 * last line without a newline: it is dropped on load, and the file is
 * rewritten without it (temporary file, fsync, rename) before appending.
 * The fingerprint covers what changes the meaning of a record (repetitions,
 * warm-up, per-experiment limit, job size); a journal of another
 * fingerprint is refused rather than mixed. */
#include "tune.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acct/alg.h"

#define STATE_MAGIC "acct-tune-state"
#define STATE_VERSION 1
#define STATE_LINE_MAX 512
#define STATE_MAX_RECORDS 10000000

uint64_t tune_state_fingerprint(const struct tune_opts *o, int world_size)
{
    char text[256];
    int n = snprintf(text, sizeof(text), "reps=%d warmup=%d limit=%.17g ranks=%d", o->reps,
                     o->warmup, o->point_limit_s, world_size);
    if (o->min_time_s > 0 && n > 0 && (size_t)n < sizeof(text)) /* journals without it stay valid */
        n += snprintf(text + n, sizeof(text) - (size_t)n, " min_time=%.17g", o->min_time_s);
    n = n < (int)sizeof(text) ? n : (int)sizeof(text) - 1;
    return acct_rules_hash(text, n > 0 ? (size_t)n : 0);
}

static int cmp_rec(const void *a, const void *b)
{
    const struct tune_record *x = a, *y = b;
#define CMP_FIELD(f)              \
    if (x->f != y->f)             \
        return x->f < y->f ? -1 : 1
    CMP_FIELD(coll);
    CMP_FIELD(comm_size);
    CMP_FIELD(bytes);
    CMP_FIELD(alg);
    CMP_FIELD(fanout);
    CMP_FIELD(segment);
#undef CMP_FIELD
    return 0;
}

void tune_state_sort(struct tune_state *s)
{
    if (s->n > 1)
        qsort(s->v, s->n, sizeof(*s->v), cmp_rec);
}

const struct tune_record *tune_state_find(const struct tune_state *s, const struct tune_record *key)
{
    return s->n > 0 ? bsearch(key, s->v, s->n, sizeof(*s->v), cmp_rec) : NULL;
}

static int format_record(const struct tune_record *r, char *buf, size_t len)
{
    const struct acct_alg *a = &acct_algs[r->alg];
    return snprintf(buf, len, "m %s %" PRId32 " %" PRIu64 " %s %" PRIu64 " %" PRId32 " %" PRId32
                    " %" PRId32 " %.17g %.17g %.17g %.17g %.17g\n",
                    acct_coll_name((enum acct_coll_id)r->coll), r->comm_size, r->bytes, a->name,
                    r->segment, r->fanout, r->ok, r->reps, r->median_us, r->q1_us, r->q3_us,
                    r->min_us, r->max_us);
}

/* One "m ..." line (without its newline) into r; 0 or -1. */
static int parse_record(const char *line, struct tune_record *r)
{
    char coll[32], alg[64];
    int32_t p = 0, fanout = 0, ok = 0, reps = 0;
    uint64_t bytes = 0, seg = 0;
    int used = 0;
    enum acct_coll_id id;
    const struct acct_alg *a = NULL;

    memset(r, 0, sizeof(*r));
    if (sscanf(line, "m %31s %" SCNd32 " %" SCNu64 " %63s %" SCNu64 " %" SCNd32 " %" SCNd32
               " %" SCNd32 " %lf %lf %lf %lf %lf%n", coll, &p, &bytes, alg, &seg, &fanout, &ok,
               &reps, &r->median_us, &r->q1_us, &r->q3_us, &r->min_us, &r->max_us, &used) != 13 ||
        line[used] != '\0')
        return -1;
    if (acct_coll_from_name(coll, &id) != 0 || (a = acct_alg_find(id, alg)) == NULL ||
        p < 1 || reps < 0 || (ok != 0 && ok != 1) || seg > ACCT_RULES_MAX_SEGMENT ||
        fanout < 0 || fanout > 1024)
        return -1;
    if (ok && !(r->min_us >= 0.0 && r->min_us <= r->q1_us && r->q1_us <= r->median_us &&
                r->median_us <= r->q3_us && r->q3_us <= r->max_us && reps >= 1))
        return -1;
    r->coll = (int32_t)id;
    r->comm_size = p;
    r->bytes = bytes;
    r->alg = (int32_t)acct_alg_index(a);
    r->segment = seg;
    r->fanout = fanout;
    r->ok = ok;
    r->reps = reps;
    return 0;
}

static int add_record(struct tune_state *s, size_t *cap, const struct tune_record *r)
{
    if (s->n == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        struct tune_record *nv = realloc(s->v, c * sizeof(*nv));
        if (nv == NULL)
            return -1;
        s->v = nv;
        *cap = c;
    }
    s->v[s->n++] = *r;
    return 0;
}

int tune_state_insert(struct tune_state *s, size_t *cap, const struct tune_record *r)
{
    size_t lo = 0, hi = s->n;

    while (lo < hi) { /* the first record not below r */
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_rec(&s->v[mid], r) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < s->n && cmp_rec(&s->v[lo], r) == 0) {
        s->v[lo] = *r;
        return 0;
    }
    if (add_record(s, cap, r) != 0) /* appended: moved into its place below */
        return -1;
    memmove(&s->v[lo + 1], &s->v[lo], (s->n - 1 - lo) * sizeof(*s->v));
    s->v[lo] = *r;
    return 0;
}

/* Load an existing journal: the header, then every complete line. */
static int load(struct tune_state *s, FILE *f, uint64_t fp, bool any_fp, char *err,
                size_t errlen)
{
    int rc = 0, ln = 0;
    size_t cap = 0;
    char line[STATE_LINE_MAX + 2];

    while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
        size_t len = strlen(line);
        ln++;
        if (len == 0 || line[len - 1] != '\n') {
            if (feof(f))
                break; /* cut by a kill: dropped */
            snprintf(err, errlen, "%s:%d:1: line longer than %d characters", s->path, ln,
                     STATE_LINE_MAX);
            rc = -1;
            break;
        }
        line[len - 1] = '\0';
        if (ln == 1) {
            uint64_t got = 0;
            int version = 0, used = 0;
            if (sscanf(line, STATE_MAGIC " %d %" SCNx64 "%n", &version, &got, &used) != 2 ||
                line[used] != '\0' || version != STATE_VERSION) {
                snprintf(err, errlen, "%s:1:1: not an acct-tune state file of version %d",
                         s->path, STATE_VERSION);
                rc = -1;
            } else if (got != fp && !any_fp) {
                snprintf(err, errlen, "%s:1:1: recorded with other --reps, --warmup, "
                         "--point-limit or job size: remove it or use another --state file",
                         s->path);
                rc = -1;
            }
            continue;
        }
        struct tune_record r;
        if (parse_record(line, &r) != 0) {
            snprintf(err, errlen, "%s:%d:1: invalid record \"%.80s\"", s->path, ln, line);
            rc = -1;
        } else if (s->n >= STATE_MAX_RECORDS || add_record(s, &cap, &r) != 0) {
            snprintf(err, errlen, "%s:%d:1: too many records or out of memory", s->path, ln);
            rc = -1;
        }
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "%s: cannot read: %s", s->path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && ln == 0) {
        snprintf(err, errlen, "%s:1:1: empty state file", s->path);
        rc = -1;
    }
    return rc;
}

/* Write header + records to path via a temporary file, fsync, rename. */
static int rewrite(struct tune_state *s, uint64_t fp, char *err, size_t errlen)
{
    int rc = -1;
    size_t len = strlen(s->path) + 32;
    char *tmp = malloc(len);
    FILE *f = NULL;
    char line[STATE_LINE_MAX];

    if (tmp == NULL) {
        snprintf(err, errlen, "%s: out of memory", s->path);
        return -1;
    }
    snprintf(tmp, len, "%s.tmp.%ld", s->path, (long)getpid());
    f = fopen(tmp, "w");
    if (f == NULL)
        goto out;
    if (fprintf(f, STATE_MAGIC " %d %016" PRIx64 "\n", STATE_VERSION, fp) < 0)
        goto out;
    for (size_t i = 0; i < s->n; i++) {
        format_record(&s->v[i], line, sizeof(line));
        if (fputs(line, f) < 0)
            goto out;
    }
    if (fflush(f) != 0 || fsync(fileno(f)) != 0)
        goto out;
    if (fclose(f) != 0) {
        f = NULL;
        goto out;
    }
    f = NULL;
    if (rename(tmp, s->path) != 0)
        goto out;
    rc = 0;
out:
    if (rc != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", s->path, strerror(errno));
        if (f != NULL)
            fclose(f);
        unlink(tmp);
    }
    free(tmp);
    return rc;
}

int tune_state_open(struct tune_state *s, const char *path, uint64_t fingerprint, char *err,
                    size_t errlen)
{
    int rc = 0;
    FILE *f = NULL;

    memset(s, 0, sizeof(*s));
    s->path = strdup(path);
    if (s->path == NULL) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    f = fopen(path, "r");
    if (f != NULL) {
        rc = load(s, f, fingerprint, false, err, errlen);
        fclose(f);
    } else if (errno != ENOENT) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc == 0)
        rc = rewrite(s, fingerprint, err, errlen); /* no torn line left behind */
    if (rc == 0) {
        s->f = fopen(path, "a");
        if (s->f == NULL) {
            snprintf(err, errlen, "%s: cannot open for appending: %s", path, strerror(errno));
            rc = -1;
        }
    }
    if (rc == 0)
        tune_state_sort(s);
    else
        tune_state_close(s);
    return rc;
}

int tune_state_append(struct tune_state *s, const struct tune_record *r)
{
    char line[STATE_LINE_MAX];
    int n = format_record(r, line, sizeof(line));

    if (s->f == NULL)
        return 0;
    /* one write(2) per line: a kill leaves whole lines and at most one torn one */
    return n > 0 && (size_t)n < sizeof(line) && fflush(s->f) == 0 &&
                   write(fileno(s->f), line, (size_t)n) == n
               ? 0
               : -1;
}

int tune_state_sync(struct tune_state *s)
{
    return s->f == NULL || (fflush(s->f) == 0 && fsync(fileno(s->f)) == 0) ? 0 : -1;
}

void tune_state_close(struct tune_state *s)
{
    if (s->f != NULL)
        fclose(s->f);
    free(s->v);
    free(s->path);
    memset(s, 0, sizeof(*s));
}

int tune_state_read(struct tune_state *s, const char *path, char *err, size_t errlen)
{
    int rc = -1;
    FILE *f = NULL;

    memset(s, 0, sizeof(*s));
    s->path = strdup(path);
    if (s->path == NULL) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    } else {
        rc = load(s, f, 0, true, err, errlen);
        fclose(f);
    }
    if (rc == 0)
        tune_state_sort(s);
    return rc;
}
