/* SAMPLES (live timings from libacct, anybody) and LIST_SAMPLES
 * (docs/protocol.md "SAMPLE"; limits in docs/acctd.md "Limits"). */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acct/alg.h"
#include "acct/common.h"
#include "acctd.h"

#define SAMPLE_MAX_COUNT 1000000000LL
#define SAMPLE_MAX_DIAGS 10
#define REL_SLACK 1e-9
/* No collective call takes an hour: a time above this is not a measurement
 * (docs/protocol.md, "SAMPLE"). With COUNT <= 1e9 every sum stays finite. */
#define SAMPLE_MAX_CALL_US 3.6e9
/* A step's registration outlives its end by this much: samples a job sent
 * just before it ended may be read after spank_acct's STEP_END. */
#define STEP_END_GRACE_S 120

/* The fields of one SAMPLE group, read in one pass. */
struct sample_fields {
    struct acct_field coll, alg;
    bool has_coll, has_alg, has_size, has_bucket, has_count, has_sum, has_min, has_max, has_sq;
    uint64_t size, bucket, seg, fan, reo, count;
    double sum, min, max, sq;
};

static void read_sample(const struct acct_field *g, struct sample_fields *s)
{
    struct acct_iter it;
    struct acct_field f;
    memset(s, 0, sizeof(*s));
    acct_iter_group(&it, g);
    /* the first of a repeated field counts (docs/protocol.md) */
    while (acct_iter_next(&it, &f)) {
        switch (f.tag) {
        case ACCT_T_COLLECTIVE:
            if (!s->has_coll)
                s->coll = f, s->has_coll = true;
            break;
        case ACCT_T_ALGORITHM:
            if (!s->has_alg)
                s->alg = f, s->has_alg = true;
            break;
#define U(TAG, var, flag)                     \
    case TAG:                                 \
        if (!(flag)) {                        \
            s->var = acct_field_u64(&f);      \
            flag = true;                      \
        }                                     \
        break;
#define D(TAG, var, flag)                     \
    case TAG:                                 \
        if (!(flag)) {                        \
            s->var = acct_field_f64(&f);      \
            flag = true;                      \
        }                                     \
        break;
            U(ACCT_T_COMM_SIZE, size, s->has_size)
            U(ACCT_T_BYTES_BUCKET, bucket, s->has_bucket)
            U(ACCT_T_COUNT, count, s->has_count)
            D(ACCT_T_SUM_US, sum, s->has_sum)
            D(ACCT_T_MIN_US, min, s->has_min)
            D(ACCT_T_MAX_US, max, s->has_max)
            D(ACCT_T_SUMSQ_US, sq, s->has_sq)
#undef U
#undef D
        case ACCT_T_SEGMENT:
            s->seg = acct_field_u64(&f);
            break;
        case ACCT_T_FANOUT:
            s->fan = acct_field_u64(&f);
            break;
        case ACCT_T_REORDER:
            s->reo = acct_field_u64(&f);
            break;
        default:
            break;
        }
    }
}

/* Copy a STR field into buf (cap bytes, NUL-terminated). false if too long. */
static bool field_str(const struct acct_field *f, char *buf, size_t cap)
{
    if (f->len >= cap)
        return false;
    memcpy(buf, f->val, f->len);
    buf[f->len] = '\0';
    return true;
}

/* Check one SAMPLE group into *x (names point into buffers of the caller).
 * NULL if fine, else a message in why. */
static const char *check_sample(const struct acct_field *g, long long max_comm_size,
                                struct store_sample *x, char coll[32], char alg[64], char *why,
                                size_t wl)
{
    struct sample_fields s;
    enum acct_coll_id cid;
    char msg[512];
    read_sample(g, &s);
    if (!s.has_coll || !field_str(&s.coll, coll, 32) || acct_coll_from_name(coll, &cid) != 0) {
        snprintf(why, wl, "COLLECTIVE: missing or not a collective");
        return why;
    }
    if (!s.has_size || s.size < 1 || s.size > INT_MAX) {
        snprintf(why, wl, "COMM_SIZE: missing or not in 1..%d", INT_MAX);
        return why;
    }
    if ((long long)s.size > max_comm_size) {
        snprintf(why, wl, "COMM_SIZE: %llu is larger than the cluster (max_comm_size %lld)",
                 (unsigned long long)s.size, max_comm_size);
        return why;
    }
    x->comm_size = (int64_t)s.size;
    if (!s.has_bucket || s.bucket > 64) {
        snprintf(why, wl, "BYTES_BUCKET: missing or not in 0..64");
        return why;
    }
    if (cid == ACCT_COLL_barrier && s.bucket != 0) {
        snprintf(why, wl, "BYTES_BUCKET: %llu for barrier, which moves no data (must be 0)",
                 (unsigned long long)s.bucket);
        return why;
    }
    x->bucket = (int64_t)s.bucket;
    if (!s.has_alg || !field_str(&s.alg, alg, 64)) {
        snprintf(why, wl, "ALGORITHM: missing or too long");
        return why;
    }
    const struct acct_alg *a = acct_alg_find(cid, alg);
    if (a == NULL) {
        snprintf(why, wl, "ALGORITHM: %s",
                 acct_unknown_alg_msg(cid, alg, strlen(alg), msg, sizeof(msg)));
        return why;
    }
    if (s.reo > 1) {
        snprintf(why, wl, "REORDER: must be 0 or 1");
        return why;
    }
    if (s.seg != 0 && acct_check_segment(a, s.seg, msg, sizeof(msg)) != NULL) {
        snprintf(why, wl, "SEGMENT: %.400s", msg);
        return why;
    }
    if (s.fan != 0 &&
        (s.fan > INT_MAX || acct_check_fanout(a, (long long)s.fan, msg, sizeof(msg)) != NULL)) {
        snprintf(why, wl, "FANOUT: %.400s", s.fan > INT_MAX ? "too large" : msg);
        return why;
    }
    if (s.reo && acct_check_reorder(a, true, msg, sizeof(msg)) != NULL) {
        snprintf(why, wl, "REORDER: %.400s", msg);
        return why;
    }
    x->segment = (int64_t)s.seg;
    x->fanout = (int64_t)s.fan;
    x->reorder = (int64_t)s.reo;
    if (!s.has_count || s.count < 1 || s.count > SAMPLE_MAX_COUNT) {
        snprintf(why, wl, "COUNT: missing or not in 1..%lld", SAMPLE_MAX_COUNT);
        return why;
    }
    x->count = (int64_t)s.count;
    if (!s.has_sum || !isfinite(s.sum) || s.sum < 0) {
        snprintf(why, wl, "SUM_US: missing, negative or not finite");
        return why;
    }
    /* plausibility: each call took at most SAMPLE_MAX_CALL_US */
    if (s.sum > SAMPLE_MAX_CALL_US * (double)s.count) {
        snprintf(why, wl, "SUM_US: %.6g us for %llu call%s is more than %.3g us per call "
                 "(not a measurement)", s.sum, (unsigned long long)s.count,
                 s.count == 1 ? "" : "s", SAMPLE_MAX_CALL_US);
        return why;
    }
    static const struct {
        const char *name;
        size_t has, val;
    } opt[] = {
        {"MIN_US", offsetof(struct sample_fields, has_min), offsetof(struct sample_fields, min)},
        {"MAX_US", offsetof(struct sample_fields, has_max), offsetof(struct sample_fields, max)},
        {"SUMSQ_US", offsetof(struct sample_fields, has_sq), offsetof(struct sample_fields, sq)},
    };
    for (size_t k = 0; k < sizeof(opt) / sizeof(opt[0]); k++) {
        bool has = *(const bool *)((const char *)&s + opt[k].has);
        double v = *(const double *)((const char *)&s + opt[k].val);
        if (has && (!isfinite(v) || v < 0)) {
            snprintf(why, wl, "%s: %g is negative or not finite", opt[k].name, v);
            return why;
        }
    }
    if (s.has_max && s.max > SAMPLE_MAX_CALL_US) {
        snprintf(why, wl, "MAX_US: %.6g us is more than %.3g us per call (not a measurement)",
                 s.max, SAMPLE_MAX_CALL_US);
        return why;
    }
    x->sum_us = s.sum;
    double mean = x->sum_us / (double)x->count;
    x->min_us = s.has_min ? s.min : mean;
    x->max_us = s.has_max ? s.max : mean;
    x->sumsq_us = s.has_sq ? s.sq : mean * mean * (double)x->count;
    double slack = REL_SLACK * (mean + 1e-300);
    if (x->min_us < 0 || x->min_us > mean + slack || x->max_us < mean - slack) {
        snprintf(why, wl, "MIN_US/MAX_US: need 0 <= MIN_US <= SUM_US/COUNT <= MAX_US");
        return why;
    }
    double floor_sq = x->sum_us * x->sum_us / (double)x->count;
    if (!isfinite(floor_sq) || x->sumsq_us < floor_sq * (1 - REL_SLACK)) {
        snprintf(why, wl, "SUMSQ_US: smaller than SUM_US^2/COUNT (inconsistent moments)");
        return why;
    }
    /* no call was longer than MAX_US (or, without it, SAMPLE_MAX_CALL_US):
     * SUMSQ_US <= COUNT * MAX_US^2 */
    double top = s.has_max ? x->max_us : SAMPLE_MAX_CALL_US;
    double ceil_sq = top * top * (double)x->count;
    if (x->sumsq_us > ceil_sq * (1 + REL_SLACK) + 1e-300) {
        snprintf(why, wl, "SUMSQ_US: larger than COUNT*MAX_US^2 (inconsistent moments, or "
                          "over %.3g us per call)", SAMPLE_MAX_CALL_US);
        return why;
    }
    x->algorithm = alg;
    x->collective = coll;
    return NULL;
}

/* The user's budget this hour; creates the entry. NULL on ENOMEM. */
static struct user_rate *user_rate(struct acctd *d, uid_t uid, time_t now)
{
    time_t hour = now - now % 3600;
    for (size_t i = 0; i < d->nrates; i++) {
        struct user_rate *r = &d->rates[i];
        if (r->window != hour) { /* stale entries are reused */
            r->window = hour;
            r->records = 0;
            if (r->uid != uid)
                r->uid = (uid_t)-1;
        }
        if (r->uid == uid)
            return r;
    }
    for (size_t i = 0; i < d->nrates; i++)
        if (d->rates[i].uid == (uid_t)-1) {
            d->rates[i].uid = uid;
            return &d->rates[i];
        }
    if (d->nrates == d->cap_rates) {
        size_t cap = d->cap_rates ? d->cap_rates * 2 : 16;
        struct user_rate *n = realloc(d->rates, cap * sizeof(*n));
        if (n == NULL)
            return NULL;
        d->rates = n;
        d->cap_rates = cap;
    }
    d->rates[d->nrates] = (struct user_rate){.uid = uid, .window = hour, .records = 0};
    return &d->rates[d->nrates++];
}

/* The policy in force for partition p: files, then a SET_POLICY override. */
static void effective_policy(struct acctd *d, const char *p, struct policy *pol)
{
    char *text = NULL;
    *pol = *policy_for(&d->policies, p);
    if (store_policy_get(d->store, p, &text) == 0) {
        struct acct_diags dg = ACCT_DIAGS_INIT;
        struct policy o = *pol;
        if (policy_parse("store", text, strlen(text), &o, &dg) == 0)
            *pol = o;
        acct_diags_free(&dg);
    }
    free(text);
}

/* Who may send samples for job in (p, i) (docs/acctd.md, "Job identity"):
 * 1 if the job is a registered step of uid and that pair (or a follower
 * checked it), 0 if it is unregistered but allowed (an administrator's own
 * samples, or a partition whose policy does not require registration).
 * Else an error reply in out and -1. */
static int job_identity(struct acctd *d, const struct client *c, const struct acct_msg *m,
                        const char *job, const char *p, const char *i, uid_t uid,
                        bool forwarded, time_t now, struct acct_wbuf *out)
{
    uint64_t checked = 0;
    if (forwarded && acct_get_u64(m->body, m->len, ACCT_T_CHECKED, &checked) == 0 &&
        checked == 1)
        return 1; /* the follower that ingested them checked them */
    long ruid = -1;
    char rp[ACCT_RULES_NAME_MAX + 1], ri[ACCT_RULES_NAME_MAX + 1];
    int r = store_step_get(d->store, job, (int64_t)now, &ruid, rp, ri);
    if (r < 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
        return -1;
    }
    if (r == 0 && ruid != (long)uid) {
        acct_put_error(out, m->h.id, ACCT_ERR_PERMISSION,
                       "JOB: job step %s is registered to another user (not uid %u)", job,
                       (unsigned)uid);
        return -1;
    }
    if (r == 0 && (strcmp(rp, p) != 0 || strcmp(ri, i) != 0)) {
        acct_put_error(out, m->h.id, ACCT_ERR_PERMISSION,
                       "%s: job step %s runs in %s/%s, not in %s/%s",
                       strcmp(rp, p) != 0 ? "PARTITION" : "INTERCONNECT", job, rp, ri, p, i);
        return -1;
    }
    if (r == 0)
        return 1;
    /* root, the admin group and acctd's own uid may write decisions (or
     * the store) anyway */
    if ((c->admin || c->uid == geteuid()) && !forwarded)
        return 0;
    struct policy pol;
    effective_policy(d, p, &pol);
    if (!pol.require_registered)
        return 0;
    acct_put_error(out, m->h.id, ACCT_ERR_PERMISSION,
                   "JOB: %s is not a job step registered on node %s for uid %u (spank_acct "
                   "registers Slurm steps; partition %s requires registered jobs: "
                   "samples.require_registered_jobs in policy %s)",
                   job, d->cfg.node, (unsigned)uid, p, pol.name);
    return -1;
}

int req_samples(struct acctd *d, struct client *c, const struct acct_msg *m,
                struct acct_wbuf *out)
{
    char job[ACCT_RULES_NAME_MAX + 1], p[ACCT_RULES_NAME_MAX + 1], i[ACCT_RULES_NAME_MAX + 1];
    char diags[SAMPLE_MAX_DIAGS][600];
    size_t ndiag = 0;
    uint64_t accepted = 0, rejected = 0;
    int64_t calls = 0;
    bool ok = false;
    time_t now = time(NULL);
    if (req_name(m, ACCT_T_JOB, true, job, sizeof(job), m->h.id, out) != 0 ||
        req_name(m, ACCT_T_PARTITION, true, p, sizeof(p), m->h.id, out) != 0 ||
        req_name(m, ACCT_T_INTERCONNECT, true, i, sizeof(i), m->h.id, out) != 0)
        return 0;
    size_t nsamples = acct_count(m->body, m->len, ACCT_T_SAMPLE);
    if (nsamples == 0 || nsamples > ACCT_PROTO_MAX_SAMPLES) {
        acct_put_error(out, m->h.id, ACCT_ERR_INVALID, "SAMPLE: %zu samples (1 to %d allowed)",
                       nsamples, ACCT_PROTO_MAX_SAMPLES);
        return 0;
    }
    /* a follower forwards its jobs' samples with their uid: trusted only
     * from an administrator over munge-authenticated TCP */
    uid_t uid = c->uid;
    uint64_t fwd;
    bool forwarded = false;
    if (acct_get_u64(m->body, m->len, ACCT_T_UID, &fwd) == 0) {
        forwarded = true;
        if (!c->tcp || !c->admin) {
            acct_put_error(out, m->h.id, ACCT_ERR_PERMISSION,
                           "UID: only a follower acctd may forward samples for another uid");
            return 0;
        }
        if (fwd >= (uid_t)-1) {
            acct_put_error(out, m->h.id, ACCT_ERR_INVALID, "UID: out of range");
            return 0;
        }
        uid = (uid_t)fwd;
    }
    int reg = job_identity(d, c, m, job, p, i, uid, forwarded, now, out);
    if (reg < 0)
        return 0;
    long owner = -1;
    int64_t job_records = 0;
    int jr = store_job_get(d->store, job, &owner, &job_records);
    if (jr < 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
        return 0;
    }
    /* an unregistered job belongs to the first uid that named it; a
     * registered step to the uid spank_acct registered it for */
    if (jr == 0 && owner != (long)uid && reg == 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_LIMIT, "JOB: job %s belongs to another user", job);
        return 0;
    }
    struct user_rate *rate = user_rate(d, uid, now);
    if (rate == NULL) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "out of memory");
        return 0;
    }
    /* the store's growth: rows per uid, the store's size (quota.c) */
    int64_t *rows = quota_rows(d, uid), new_rows = 0;
    bool store_full = quota_store_full(d);
    if (rows == NULL) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "out of memory");
        return 0;
    }
    if (acctd_write_begin(d, c) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
        return 0;
    }
    struct acct_iter it;
    struct acct_field f;
    size_t idx = 0;
    acct_iter_init(&it, m->body, m->len);
    while (acct_iter_next(&it, &f)) {
        if (f.tag != ACCT_T_SAMPLE)
            continue;
        struct store_sample x = {.partition = p, .interconnect = i, .job = job};
        char coll[32], alg[64], why[512];
        const char *bad = check_sample(&f, d->cfg.max_comm_size, &x, coll, alg, why, sizeof(why));
        if (bad == NULL && job_records + (int64_t)accepted >= d->cfg.samples_per_job) {
            snprintf(why, sizeof(why), "LIMIT: job %s reached samples_per_job (%lld)", job,
                     d->cfg.samples_per_job);
            bad = why;
        }
        if (bad == NULL && rate->records >= d->cfg.samples_per_user_hour) {
            snprintf(why, sizeof(why), "LIMIT: uid %u reached samples_per_user_hour (%lld)",
                     (unsigned)uid, d->cfg.samples_per_user_hour);
            bad = why;
        }
        if (bad == NULL && *rows >= d->cfg.sample_rows_per_user) {
            snprintf(why, sizeof(why),
                     "LIMIT: uid %u holds sample_rows_per_user (%lld) rows; older ones go "
                     "after sample_max_age_days",
                     (unsigned)uid, d->cfg.sample_rows_per_user);
            bad = why;
        }
        if (bad == NULL && store_full) {
            snprintf(why, sizeof(why), "LIMIT: the store is larger than max_store_mb (%lld MiB)",
                     d->cfg.max_store_mb);
            bad = why;
        }
        if (bad == NULL && (store_sample_add(d->store, &x, (long)uid, (int64_t)now) != 0 ||
                            (d->cfg.primary[0] != '\0' &&
                             store_outbox_add(d->store, &x, (long)uid) != 0))) {
            acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
            goto out;
        }
        if (bad != NULL) {
            rejected++;
            if (ndiag < SAMPLE_MAX_DIAGS)
                snprintf(diags[ndiag++], sizeof(diags[0]), "sample[%zu]: %s", idx, bad);
        } else {
            accepted++;
            rate->records++;
            if (store_sample_was_new(d->store)) {
                (*rows)++;
                new_rows++;
            }
            calls += x.count;
        }
        idx++;
    }
    if (accepted > 0 && store_job_add(d->store, job, (long)uid, (int64_t)accepted,
                                      (int64_t)now) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
        goto out;
    }
    acct_wbuf_start(out, ACCT_MSG_SAMPLES | ACCT_MSG_REPLY, m->h.id);
    acct_put_u64(out, ACCT_T_ACCEPTED, accepted);
    acct_put_u64(out, ACCT_T_REJECTED, rejected);
    for (size_t k = 0; k < ndiag; k++)
        acct_put_str(out, ACCT_T_DIAG, diags[k]);
    if (rejected > 0)
        LOG_D("uid %u job %s: %llu samples accepted, %llu rejected (%s)", (unsigned)uid, job,
              (unsigned long long)accepted, (unsigned long long)rejected, diags[0]);
    ok = true;
    d->samples_total += calls;
out:
    acctd_write_end(d, ok);
    if (!ok)
        *rows -= new_rows; /* undone with the savepoint */
    return 0;
}

/* STEP (spank_acct, as root, at step start and end; docs/protocol.md). */
int req_step(struct acctd *d, struct client *c, const struct acct_msg *m, struct acct_wbuf *out)
{
    char job[ACCT_RULES_NAME_MAX + 1], p[ACCT_RULES_NAME_MAX + 1] = "",
                                       i[ACCT_RULES_NAME_MAX + 1] = "";
    uint64_t uid = 0, end = 0;
    time_t now = time(NULL);
    bool ok = false;
    if (c->tcp) {
        acct_put_error(out, m->h.id, ACCT_ERR_PERMISSION,
                       "STEP: register steps with the node's own acctd on its Unix socket");
        return 0;
    }
    if (acct_get_u64(m->body, m->len, ACCT_T_STEP_END, &end) == 0 && end > 1) {
        acct_put_error(out, m->h.id, ACCT_ERR_INVALID, "STEP_END: must be 0 or 1");
        return 0;
    }
    if (req_name(m, ACCT_T_JOB, true, job, sizeof(job), m->h.id, out) != 0 ||
        req_name(m, ACCT_T_PARTITION, end == 0, p, sizeof(p), m->h.id, out) != 0 ||
        req_name(m, ACCT_T_INTERCONNECT, end == 0, i, sizeof(i), m->h.id, out) != 0)
        return 0;
    if (acct_get_u64(m->body, m->len, ACCT_T_UID, &uid) != 0 || uid >= (uid_t)-1) {
        acct_put_error(out, m->h.id, ACCT_ERR_INVALID, "UID: required (the step's uid)");
        return 0;
    }
    if (acctd_write_begin(d, c) != 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
        return 0;
    }
    int64_t evicted = 0;
    int r = end ? store_step_end(d->store, job, (long)uid, (int64_t)now + STEP_END_GRACE_S)
                : store_step_register(d->store, job, (long)uid, p, i, (int64_t)now,
                                      (int64_t)now + d->cfg.registered_step_lifetime_s,
                                      d->cfg.max_registered_steps, &evicted);
    if (r < 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "store: %s", store_errmsg(d->store));
        goto out;
    }
    if (r == 1) {
        acct_put_error(out, m->h.id, ACCT_ERR_NOT_FOUND, "JOB: no registered step %s of uid %llu",
                       job, (unsigned long long)uid);
        goto out;
    }
    if (evicted > 0)
        LOG_W("more than max_registered_steps (%lld) job steps registered: the %lld oldest "
              "forgotten", d->cfg.max_registered_steps, (long long)evicted);
    LOG_D("step %s of uid %llu %s%s%s%s", job, (unsigned long long)uid,
          end ? "ended" : "registered in ", p, end ? "" : "/", i);
    acct_wbuf_start(out, ACCT_MSG_STEP | ACCT_MSG_REPLY, m->h.id);
    acct_put_str(out, ACCT_T_JOB, job);
    ok = true;
out:
    acctd_write_end(d, ok);
    return 0;
}

static int put_stat(void *arg, const struct store_stat *s)
{
    struct acct_wbuf *out = arg;
    double mean = s->count > 0 ? s->sum_us / (double)s->count : 0;
    double var = s->count > 1 ? (s->sumsq_us - s->sum_us * mean) / (double)(s->count - 1) : 0;
    char method[200];
    /* ACCT_FORCE syntax (acct_decision_format): empty fields are "not given" */
    char seg[24] = "", fan[24] = "";
    if (s->segment)
        snprintf(seg, sizeof(seg), "%lld", (long long)s->segment);
    if (s->fanout)
        snprintf(fan, sizeof(fan), "%lld", (long long)s->fanout);
    if (s->reorder)
        snprintf(method, sizeof(method), "%s:%s:%s:reorder", s->algorithm, seg, fan);
    else if (s->fanout)
        snprintf(method, sizeof(method), "%s:%s:%s", s->algorithm, seg, fan);
    else if (s->segment)
        snprintf(method, sizeof(method), "%s:%s", s->algorithm, seg);
    else
        snprintf(method, sizeof(method), "%s", s->algorithm);
    acct_group_begin(out, ACCT_T_STAT);
    acct_put_str(out, ACCT_T_PARTITION, s->partition);
    acct_put_str(out, ACCT_T_INTERCONNECT, s->interconnect);
    acct_put_str(out, ACCT_T_COLLECTIVE, s->collective);
    acct_put_u64(out, ACCT_T_COMM_SIZE, (uint64_t)s->comm_size);
    acct_put_u64(out, ACCT_T_BYTES_BUCKET, (uint64_t)s->bucket);
    acct_put_str(out, ACCT_T_METHOD, method);
    acct_put_str(out, ACCT_T_ALGORITHM, s->algorithm);
    acct_put_u64(out, ACCT_T_SEGMENT, (uint64_t)s->segment);
    acct_put_u64(out, ACCT_T_FANOUT, (uint64_t)s->fanout);
    acct_put_u64(out, ACCT_T_REORDER, (uint64_t)s->reorder);
    acct_put_u64(out, ACCT_T_COUNT, (uint64_t)s->count);
    acct_put_u64(out, ACCT_T_JOBS, (uint64_t)s->jobs);
    acct_put_u64(out, ACCT_T_USERS, (uint64_t)s->users);
    acct_put_f64(out, ACCT_T_MEAN_US, mean);
    acct_put_f64(out, ACCT_T_STDDEV_US, var > 0 ? sqrt(var) : 0);
    acct_put_f64(out, ACCT_T_MIN_US, s->min_us);
    acct_put_f64(out, ACCT_T_MAX_US, s->max_us);
    acct_group_end(out);
    return out->err != 0 ? -1 : 0;
}

/* A page of LIST_SAMPLES: at most limit STAT groups, MORE if there are more. */
struct stat_page {
    struct acct_wbuf *out;
    int64_t n, limit;
    bool more;
};

static int put_page_stat(void *arg, const struct store_stat *s)
{
    struct stat_page *pg = arg;
    if (pg->n == pg->limit) {
        pg->more = true;
        return 1;
    }
    pg->n++;
    return put_stat(pg->out, s);
}

/* The key of the STAT group in the request: the last one of the previous
 * page. 0, 1 (none), or -1 (INVALID written). */
static int page_after(const struct acct_msg *m, struct store_stat *k, char p[], char i[],
                      char coll[32], char alg[64], struct acct_wbuf *out)
{
    struct acct_field f;
    uint64_t v[5];
    static const unsigned utags[] = {ACCT_T_COMM_SIZE, ACCT_T_BYTES_BUCKET, ACCT_T_SEGMENT,
                                     ACCT_T_FANOUT, ACCT_T_REORDER};
    if (!acct_msg_find(m, ACCT_T_STAT, &f))
        return 1;
    const uint8_t *g = f.val;
    size_t gl = f.len;
    const char *bad = NULL;
    if (acct_get_str(g, gl, ACCT_T_PARTITION, p, ACCT_RULES_NAME_MAX + 1) != 0)
        bad = "PARTITION";
    else if (acct_get_str(g, gl, ACCT_T_INTERCONNECT, i, ACCT_RULES_NAME_MAX + 1) != 0)
        bad = "INTERCONNECT";
    else if (acct_get_str(g, gl, ACCT_T_COLLECTIVE, coll, 32) != 0)
        bad = "COLLECTIVE";
    else if (acct_get_str(g, gl, ACCT_T_ALGORITHM, alg, 64) != 0)
        bad = "ALGORITHM";
    for (size_t t = 0; bad == NULL && t < ACCT_ARRAY_LEN(utags); t++)
        if (acct_get_u64(g, gl, utags[t], &v[t]) != 0 || v[t] > INT64_MAX)
            bad = acct_tag_name(utags[t]);
    if (bad != NULL) {
        acct_put_error(out, m->h.id, ACCT_ERR_INVALID,
                       "STAT: the page cursor needs %s (send back the last STAT group of the "
                       "previous page)",
                       bad);
        return -1;
    }
    *k = (struct store_stat){.partition = p, .interconnect = i, .collective = coll,
                             .algorithm = alg, .comm_size = (int64_t)v[0],
                             .bucket = (int64_t)v[1], .segment = (int64_t)v[2],
                             .fanout = (int64_t)v[3], .reorder = (int64_t)v[4]};
    return 0;
}

int req_list_samples(struct acctd *d, struct client *c, const struct acct_msg *m,
                     struct acct_wbuf *out)
{
    char p[ACCT_RULES_NAME_MAX + 1], i[ACCT_RULES_NAME_MAX + 1], coll[32] = "";
    char ap[ACCT_RULES_NAME_MAX + 1], ai[ACCT_RULES_NAME_MAX + 1], acoll[32], aalg[64];
    struct store_stat after;
    enum acct_coll_id cid;
    if (req_name(m, ACCT_T_PARTITION, false, p, sizeof(p), m->h.id, out) != 0 ||
        req_name(m, ACCT_T_INTERCONNECT, false, i, sizeof(i), m->h.id, out) != 0)
        return 0;
    int r = acct_get_str(m->body, m->len, ACCT_T_COLLECTIVE, coll, sizeof(coll));
    if (r < 0 || (r == 0 && acct_coll_from_name(coll, &cid) != 0)) {
        acct_put_error(out, m->h.id, ACCT_ERR_INVALID, "COLLECTIVE: not a collective");
        return 0;
    }
    int a = page_after(m, &after, ap, ai, acoll, aalg, out);
    if (a < 0)
        return 0;
    /* pages, so that no reply (queued for a peer that may not read it) is
     * large: docs/acctd.md, "Limits" */
    struct stat_page pg = {.out = out,
                           .limit = c->admin ? ACCTD_LIST_SAMPLES_PAGE_ADMIN
                                             : ACCTD_LIST_SAMPLES_PAGE_USER};
    acct_wbuf_start(out, ACCT_MSG_LIST_SAMPLES | ACCT_MSG_REPLY, m->h.id);
    if (store_stats_page(d->store, p[0] ? p : NULL, i[0] ? i : NULL, coll[0] ? coll : NULL,
                         a == 0 ? &after : NULL, pg.limit + 1, put_page_stat, &pg) < 0) {
        acct_put_error(out, m->h.id, ACCT_ERR_INTERNAL, "listing failed (store: %s)",
                       store_errmsg(d->store));
        return 0;
    }
    acct_put_u64(out, ACCT_T_MORE, pg.more);
    return 0;
}
