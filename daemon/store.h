/* acctd's SQLite store (docs/acctd.md, "The store"): schema migrations,
 * decision versions (immutable), activation history, tuning runs, live-sample
 * statistics. One writer (acctd), WAL, synchronous=FULL: a reply that
 * acknowledges a write is sent only after its transaction committed. */
#ifndef ACCTD_STORE_H
#define ACCTD_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "acct/result.h"
#include "acct/rules.h"

struct sqlite3;
struct store;
struct store_sample;

/* The newest schema this build knows (db/NNNN_*.sql). */
int store_schema_known(void);

/* Open (creating) path, set WAL + synchronous=FULL, check integrity
 * (quick_check), apply missing migrations in one transaction. A store whose
 * schema is newer than this build's is refused. On failure returns NULL and
 * a message in err. */
struct store *store_open(const char *path, char *err, size_t errlen);
void store_close(struct store *s);
int store_schema(const struct store *s);

/* PRAGMA integrity_check: "ok" or the first problem, into buf. 0 or -1. */
int store_integrity(struct store *s, char *buf, size_t len);

/* Transactions (BEGIN IMMEDIATE / COMMIT / ROLLBACK). 0 or -1. */
int store_begin(struct store *s);
int store_commit(struct store *s);
void store_rollback_tx(struct store *s);
/* A savepoint per request inside the round's transaction: store_release
 * keeps (ok) or undoes the request's changes. 0 or -1. */
int store_savepoint(struct store *s);
void store_release(struct store *s, bool ok);
/* Last SQLite error message. */
const char *store_errmsg(struct store *s);

/* A decision version. Strings owned by the struct (store_version_free). */
struct store_version {
    int64_t id;
    char partition[ACCT_RULES_NAME_MAX + 1], interconnect[ACCT_RULES_NAME_MAX + 1];
    char source[16], created[ACCT_RULES_TIME_LEN + 1];
    char tuning_run[ACCT_RULES_RUN_MAX + 1];
    int64_t parent;
    char reason[256];
    uint64_t hash;
    char *rules_text; /* NULL if not loaded */
    bool active;
    char activated_at[ACCT_RULES_TIME_LEN + 1];
};
void store_version_free(struct store_version *v);

/* Write rules as a new version (inside a transaction): assigns the id, sets
 * provenance.version to it and writes the canonical text. rules->prov is
 * modified (version). reason: "import", "refined: ...". uid -1 = acctd.
 * Returns the id (> 0) or -1. */
int64_t store_version_add(struct store *s, struct acct_rules *rules, int64_t parent,
                          const char *reason, long uid, char *err, size_t errlen);

/* Load version id (with_text: also its rules text). 0, 1 (no such), -1. */
int store_version_get(struct store *s, int64_t id, bool with_text, struct store_version *v);
/* The LogGP parameters (model_params) of tuning run run_id: L, o, g, G in
 * p[0..3]. 0, 1 if the run stored none, -1 on a store error. */
int store_model_get(struct store *s, const char *run_id, double p[4]);
/* The result file text of tuning run run_id (malloc'd, *len bytes, NUL
 * after them). 0, 1 when there is no such run, -1 on a store error. */
int store_result_text(struct store *s, const char *run_id, char **text, size_t *len);
/* The run's levels (model_levels, issue 21): intra L, o, g, G, inter L, o,
 * g, G, NIC pairs (0: not measured), NIC gap factor, two-way pairs (0: not
 * measured; runs stored before schema 6), two-way factor, pair-duplex
 * factor (0: not measured; runs stored before schema 7), its overlap in
 * bytes (0: the whole message; runs stored before schema 8) in
 * v[0 .. STORE_LEVELS_N - 1]. 0, 1 if the run stored none, -1 on a store
 * error. */
#define STORE_LEVELS_N 14
int store_model_levels_get(struct store *s, const char *run_id, double v[STORE_LEVELS_N]);
/* The active version of a pair. 0, 1 (none), -1. */
int store_active_get(struct store *s, const char *partition, const char *interconnect,
                     bool with_text, struct store_version *v);
/* Make id active for its pair (inside a transaction). *previous gets the
 * version active before (0 if none). 0, 1 (no such version), 2 (already
 * active), -1. */
int store_activate(struct store *s, int64_t id, const char *reason, long uid, int64_t *previous);
/* Undo the pair's latest activation. *now = version active afterwards,
 * *undone = the one rolled back. 0, 1 (nothing active), 2 (no earlier
 * version to go back to), -1. */
int store_rollback(struct store *s, const char *partition, const char *interconnect,
                   int64_t *now, int64_t *undone);

/* Iterate: callback per row; a non-zero return stops (and is returned). */
typedef int (*store_version_cb)(void *arg, const struct store_version *v, int64_t nversions);
/* Every pair with an active version (active version, with text if asked). */
int store_pairs(struct store *s, bool with_text, store_version_cb cb, void *arg);
/* Versions of a pair, newest first (no text). */
int store_versions(struct store *s, const char *partition, const char *interconnect,
                   store_version_cb cb, void *arg);
int64_t store_count_versions(struct store *s);

/* ---- replication (sync.c) ---- */
int64_t store_max_version(struct store *s);
/* The newest version id <= upto (0 if none); -1 on error. */
int64_t store_max_version_upto(struct store *s, int64_t upto);
/* Versions with id > since, ascending, at most limit, with text and active. */
int store_versions_since(struct store *s, int64_t since, int limit, store_version_cb cb,
                         void *arg);
/* Store a version verbatim (the primary's id and text). 0 stored, 1 already
 * there with the same hash, 2 there with another hash (diverged), -1. */
int store_version_put(struct store *s, const struct store_version *v);
/* Leave a pair without an active version: its live activations are marked
 * undone (a follower whose primary has none there). 0 or -1. */
int store_deactivate(struct store *s, const char *partition, const char *interconnect);
/* Call cb for each version with id > above (id order, no text). 0 or -1. */
int store_versions_above(struct store *s, int64_t above, store_version_cb cb, void *arg);

/* Follower: queue an accepted sample for the primary. */
int store_outbox_add(struct store *s, const struct store_sample *x, long uid);
/* The oldest queued samples of one (job, uid, pair), at most limit: cb per
 * sample (x->job etc. valid during the call), *uid and *last_seq set.
 * 0 (n rows in *n, 0 = queue empty), -1. */
typedef int (*store_sample_cb)(void *arg, const struct store_sample *x);
int store_outbox_next(struct store *s, int limit, long *uid, int64_t *last_seq, size_t *n,
                      store_sample_cb cb, void *arg);
/* Delete the rows of that group up to last_seq. */
int store_outbox_done(struct store *s, const char *job, long uid, const char *partition,
                      const char *interconnect, int64_t last_seq);

/* Import a tuning result (inside a transaction): the run, measurements,
 * model, and a new version from its rules. *version gets the new (or, for a
 * repeated import of the same content, the existing) version; *existing is
 * set then. 0, 1 (same run id with other content: err), -1. */
int store_import_result(struct store *s, const struct acct_result *r, const char *text,
                        size_t len, long uid, int64_t *version, bool *existing, char *err,
                        size_t errlen);

/* ---- samples ------------------------------------------------------------- */

struct store_sample {
    const char *partition, *interconnect, *job;
    const char *collective, *algorithm;
    int64_t comm_size, bucket, segment, fanout, reorder;
    int64_t count;
    double sum_us, sumsq_us, min_us, max_us;
};

/* Records stored so far for job and its owner uid: 0 (found), 1 (new job),
 * -1. */
int store_job_get(struct store *s, const char *job, long *uid, int64_t *records);
/* Add records to a job's count (creating it, owned by uid). */
int store_job_add(struct store *s, const char *job, long uid, int64_t records, int64_t now);
/* Merge one sample into the statistics (inside a transaction). */
int store_sample_add(struct store *s, const struct store_sample *x, long uid, int64_t now);
/* Job steps registered by spank_acct (docs/acctd.md, "Job identity").
 * Register (or renew) job for uid and its pair until expires (inside a
 * transaction); expired rows are deleted first, and the oldest beyond
 * max_rows (their number in *evicted). 0 or -1. */
int store_step_register(struct store *s, const char *job, long uid, const char *partition,
                        const char *interconnect, int64_t now, int64_t expires, int64_t max_rows,
                        int64_t *evicted);
/* The step ended: it expires at expires at the latest. 0, 1 (no such step
 * of that uid), -1. */
int store_step_end(struct store *s, const char *job, long uid, int64_t expires);
/* The live registration of job: 0 (found: *uid, partition, interconnect),
 * 1 (none, or expired), -1. */
int store_step_get(struct store *s, const char *job, int64_t now, long *uid,
                   char partition[ACCT_RULES_NAME_MAX + 1],
                   char interconnect[ACCT_RULES_NAME_MAX + 1]);
/* Live registrations. -1 on error. */
int64_t store_count_steps(struct store *s, int64_t now);
/* Total timed calls stored. */
int64_t store_count_samples(struct store *s);

/* Did the last store_sample_add make a new row (not merge into one)? */
bool store_sample_was_new(const struct store *s);
/* Rows of sample_stats per uid. */
typedef int (*store_uid_cb)(void *arg, long uid, int64_t n);
int store_rows_by_uid(struct store *s, store_uid_cb cb, void *arg);
/* The first pair of sample_stats after (partition, interconnect) ("", ""
 * for the first): names into p and i (cap bytes each). 0, 1 none, -1. */
int store_next_sample_pair(struct store *s, const char *partition, const char *interconnect,
                           char *p, char *i, size_t cap);
/* Delete one pair's statistics older than cutoff, cb(arg, uid, calls) per
 * row deleted. Rows deleted, or -1. */
int store_prune_pair(struct store *s, const char *partition, const char *interconnect,
                     int64_t cutoff, store_uid_cb cb, void *arg);
/* Bytes of the store's pages in use (free pages not counted), or -1. */
int64_t store_size_bytes(struct store *s);
/* How long a statement waits for another process's lock (ms); did the last
 * statement fail because of such a lock? */
void store_set_busy_timeout(struct store *s, int ms);
bool store_busy(const struct store *s);

/* Aggregates per (pair, collective, comm_size, bucket, method), for
 * LIST_SAMPLES. NULL filters match everything. */
struct store_stat {
    const char *partition, *interconnect, *collective, *algorithm;
    int64_t comm_size, bucket, segment, fanout, reorder;
    int64_t count, jobs, users;
    double sum_us, sumsq_us, min_us, max_us;
};
typedef int (*store_stat_cb)(void *arg, const struct store_stat *st);
int store_stats(struct store *s, const char *partition, const char *interconnect,
                const char *collective, store_stat_cb cb, void *arg);

/* One page of store_stats in key order: at most limit aggregates whose
 * key (pair, collective, comm_size, bucket, method) comes after that of
 * *after (NULL: from the first). cb may return 1 to stop early. */
int store_stats_page(struct store *s, const char *partition, const char *interconnect,
                     const char *collective, const struct store_stat *after, int64_t limit,
                     store_stat_cb cb, void *arg);

/* Per-job moments of one pair, in cell order, for the refinement pass:
 * same struct, jobs = 1 and users = the job's uid. */
int store_job_stats(struct store *s, const char *partition, const char *interconnect,
                    int64_t since, store_stat_cb cb, void *arg);

/* Policy overrides. text NULL/"" removes. store_policy_get: 0 found (*text
 * malloc'ed), 1 none, -1. */
int store_policy_set(struct store *s, const char *partition, const char *text, long uid);
int store_policy_get(struct store *s, const char *partition, char **text);

/* Log one refinement decision. */
int store_refinement_log(struct store *s, const char *partition, const char *interconnect,
                         const char *collective, int64_t comm_size, int64_t bucket,
                         const char *old_method, const char *new_method, double old_mean,
                         double new_mean, double p, int64_t jobs, int64_t users,
                         int64_t version);

/* Mean of the medians run_id measured for method at (collective,
 * comm_size, bytes in [lo, hi]). 0 found, 1 none, -1. */
int store_measured(struct store *s, const char *run_id, const char *collective,
                   int64_t comm_size, uint64_t lo, uint64_t hi, const char *method,
                   double *median_us);
/* Record a cell that needs a retune. */
int store_retune_mark(struct store *s, const char *partition, const char *interconnect,
                      const char *collective, int64_t comm_size, int64_t bucket,
                      const char *method, const char *run_id, double measured_us,
                      double live_us, int64_t jobs, int64_t users);

/* "YYYY-MM-DDTHH:MM:SSZ" of now. */
void store_now(char out[ACCT_RULES_TIME_LEN + 1]);

#endif
