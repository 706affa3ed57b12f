/* acctd's SQLite store (see store.h, docs/acctd.md "The store"). */
#include "store.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <time.h>

#include "acct/common.h"
#include "migrations.h" /* generated from db/NNNN_*.sql: acctd_migrations[] */

struct store {
    sqlite3 *db;
    int schema;
    sqlite3_stmt *st_sample, *st_job_get, *st_job_add, *st_active, *st_sample_merge, *st_step_get;
    bool sample_new; /* the last store_sample_add made a new row */
};

int store_schema_known(void)
{
    return (int)ACCT_ARRAY_LEN(acctd_migrations);
}

int store_schema(const struct store *s)
{
    return s->schema;
}

const char *store_errmsg(struct store *s)
{
    return sqlite3_errmsg(s->db);
}

void store_now(char out[ACCT_RULES_TIME_LEN + 1])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, ACCT_RULES_TIME_LEN + 1, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int exec(struct store *s, const char *sql)
{
    return sqlite3_exec(s->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

static int prep(struct store *s, const char *sql, sqlite3_stmt **st)
{
    return sqlite3_prepare_v2(s->db, sql, -1, st, NULL) == SQLITE_OK ? 0 : -1;
}

/* A value for one statement parameter. The parameters of a statement are
 * bound ?1, ?2, ... in the order given. Texts are not copied
 * (SQLITE_STATIC): each statement is stepped before its values go out of
 * scope, and a cached statement clears its bindings after use. */
struct sqlv {
    char kind; /* 't' text (NULL binds NULL), 'i' integer, 'd' double */
    int len;   /* text bytes, -1: up to the NUL */
    union {
        const char *t;
        int64_t i;
        double d;
    } u;
};
#define VT(x) ((struct sqlv){ .kind = 't', .len = -1, .u.t = (x) })
#define VTN(x, n) ((struct sqlv){ .kind = 't', .len = (int)(n), .u.t = (x) })
#define VI(x) ((struct sqlv){ .kind = 'i', .u.i = (int64_t)(x) })
#define VD(x) ((struct sqlv){ .kind = 'd', .u.d = (x) })
#define SQLV(...)                                                                           \
    (const struct sqlv[]){ __VA_ARGS__ },                                                   \
        ACCT_ARRAY_LEN(((const struct sqlv[]){ __VA_ARGS__ }))

static void bind_values(sqlite3_stmt *st, const struct sqlv *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int p = (int)i + 1;
        if (v[i].kind == 't')
            sqlite3_bind_text(st, p, v[i].u.t, v[i].len, SQLITE_STATIC);
        else if (v[i].kind == 'i')
            sqlite3_bind_int64(st, p, v[i].u.i);
        else
            sqlite3_bind_double(st, p, v[i].u.d);
    }
}
#define BIND(st, ...) bind_values((st), SQLV(__VA_ARGS__))

/* Prepare sql, bind the values and run it to completion (INSERT, UPDATE,
 * DELETE): 0, or -1 on any error. */
static int run_values(struct store *s, const char *sql, const struct sqlv *v, size_t n)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (prep(s, sql, &st) == 0) {
        bind_values(st, v, n);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    }
    sqlite3_finalize(st);
    return rc;
}
#define RUN(s, sql, ...) run_values((s), (sql), SQLV(__VA_ARGS__))

/* Run a cached statement once with these values; its bindings are cleared
 * after. Returns sqlite3_step's result. */
static int step_cached(sqlite3_stmt *st, const struct sqlv *v, size_t n)
{
    sqlite3_reset(st);
    bind_values(st, v, n);
    return sqlite3_step(st);
}
#define STEP_CACHED(st, ...) step_cached((st), SQLV(__VA_ARGS__))

static void done_cached(sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

static int64_t scalar_i64(struct store *s, const char *sql, int64_t dflt)
{
    sqlite3_stmt *st = NULL;
    int64_t v = dflt;
    if (prep(s, sql, &st) == 0 && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

int store_begin(struct store *s)
{
    return exec(s, "BEGIN IMMEDIATE");
}

int store_commit(struct store *s)
{
    return exec(s, "COMMIT");
}

int store_savepoint(struct store *s)
{
    return exec(s, "SAVEPOINT req");
}

void store_release(struct store *s, bool ok)
{
    if (!ok)
        exec(s, "ROLLBACK TO req");
    exec(s, "RELEASE req");
}

void store_rollback_tx(struct store *s)
{
    if (!sqlite3_get_autocommit(s->db))
        exec(s, "ROLLBACK");
}

static int migrate(struct store *s, char *err, size_t errlen)
{
    int known = store_schema_known();
    int rc = -1;
    s->schema = (int)scalar_i64(s, "PRAGMA user_version", -1);
    if (s->schema < 0) {
        snprintf(err, errlen, "cannot read the schema version: %s", sqlite3_errmsg(s->db));
        goto out;
    }
    if (s->schema > known) {
        snprintf(err, errlen,
                 "the store's schema version %d is newer than this acctd knows (%d): "
                 "refusing to use it (upgrade acctd)",
                 s->schema, known);
        goto out;
    }
    if (s->schema == known) {
        rc = 0;
        goto out;
    }
    if (store_begin(s) != 0) {
        snprintf(err, errlen, "cannot start the migration: %s", sqlite3_errmsg(s->db));
        goto out;
    }
    for (int v = s->schema; v < known; v++) {
        char pragma[64];
        if (sqlite3_exec(s->db, acctd_migrations[v].sql, NULL, NULL, NULL) != SQLITE_OK) {
            /* e.g. "duplicate column name": part of it is there already
             * (applied by hand?); the transaction leaves the store as it was */
            snprintf(err, errlen,
                     "migration %s (schema version %d to %d) failed: %s; the store is left at "
                     "schema version %d, unchanged",
                     acctd_migrations[v].name, v, v + 1, sqlite3_errmsg(s->db), s->schema);
            store_rollback_tx(s);
            goto out;
        }
        snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", v + 1);
        if (exec(s, pragma) != 0) {
            snprintf(err, errlen, "cannot set the schema version: %s", sqlite3_errmsg(s->db));
            store_rollback_tx(s);
            goto out;
        }
    }
    if (store_commit(s) != 0) {
        snprintf(err, errlen, "cannot commit the migration: %s", sqlite3_errmsg(s->db));
        store_rollback_tx(s);
        goto out;
    }
    s->schema = known;
    rc = 0;
out:
    return rc;
}

/* The first column of table that `from` lists and `in` does not (both
 * prepared "SELECT name FROM pragma_table_info(?1)"), copied into c:
 * true when there is one. */
static bool missing_column(sqlite3_stmt *from, sqlite3_stmt *in, const char *table, char *c,
                           size_t clen)
{
    bool missing = false;

    sqlite3_reset(from);
    sqlite3_bind_text(from, 1, table, -1, SQLITE_TRANSIENT);
    while (!missing && sqlite3_step(from) == SQLITE_ROW) {
        bool found = false;
        snprintf(c, clen, "%s", (const char *)sqlite3_column_text(from, 0));
        sqlite3_reset(in);
        sqlite3_bind_text(in, 1, table, -1, SQLITE_TRANSIENT);
        while (!found && sqlite3_step(in) == SQLITE_ROW)
            found = strcmp((const char *)sqlite3_column_text(in, 0), c) == 0;
        missing = !found;
    }
    return missing;
}

/* The store's schema against the one its version stands for: every table,
 * column, index and trigger the migrations up to s->schema create (built
 * in memory from the same SQL), with no column this acctd does not know in
 * those tables. A store whose user_version was set without its migration,
 * half of a migration applied by hand, or a table edited would otherwise
 * start and fail request by request ("no such column"); here it is refused
 * at start, naming what differs. 0, or -1 with err set. */
static int verify_schema(struct store *s, char *err, size_t errlen)
{
    sqlite3 *ref = NULL;
    sqlite3_stmt *want = NULL, *obj = NULL, *col = NULL, *cols = NULL;
    int rc = -1;

    if (sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) !=
        SQLITE_OK) {
        snprintf(err, errlen, "cannot build the expected schema: out of memory");
        goto out;
    }
    for (int v = 0; v < s->schema; v++)
        if (sqlite3_exec(ref, acctd_migrations[v].sql, NULL, NULL, NULL) != SQLITE_OK) {
            snprintf(err, errlen, "migration %s does not apply to an empty store: %s",
                     acctd_migrations[v].name, sqlite3_errmsg(ref));
            goto out;
        }
    if (sqlite3_prepare_v2(ref,
                           "SELECT type, name, tbl_name FROM sqlite_master "
                           "WHERE name NOT LIKE 'sqlite_%' ORDER BY rowid",
                           -1, &want, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(ref, "SELECT name FROM pragma_table_info(?1) ORDER BY cid", -1, &cols,
                           NULL) != SQLITE_OK ||
        prep(s, "SELECT 1 FROM sqlite_master WHERE type = ?1 AND name = ?2", &obj) != 0 ||
        prep(s, "SELECT name FROM pragma_table_info(?1) ORDER BY cid", &col) != 0) {
        snprintf(err, errlen, "cannot read the schema: %s", sqlite3_errmsg(s->db));
        goto out;
    }
    while (sqlite3_step(want) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(want, 0);
        const char *name = (const char *)sqlite3_column_text(want, 1);
        sqlite3_reset(obj);
        sqlite3_bind_text(obj, 1, type, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(obj, 2, name, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(obj) != SQLITE_ROW) {
            snprintf(err, errlen,
                     "the store says schema version %d but has no %s %s (of table %s)",
                     s->schema, type, name, (const char *)sqlite3_column_text(want, 2));
            goto out;
        }
        if (strcmp(type, "table") != 0)
            continue;
        /* the columns, both ways */
        char c[128];
        if (missing_column(cols, col, name, c, sizeof c)) {
            snprintf(err, errlen, "the store says schema version %d but table %s has no column %s",
                     s->schema, name, c);
            goto out;
        }
        if (missing_column(col, cols, name, c, sizeof c)) {
            snprintf(err, errlen,
                     "the store says schema version %d but table %s has a column %s that "
                     "schema version %d does not have",
                     s->schema, name, c, s->schema);
            goto out;
        }
    }
    rc = 0;
out:
    sqlite3_finalize(want);
    sqlite3_finalize(cols);
    sqlite3_finalize(obj);
    sqlite3_finalize(col);
    if (ref != NULL)
        sqlite3_close(ref);
    return rc;
}

/* WAL, synchronous=FULL, foreign keys, and a quick_check that the file is
 * sound. 0, or -1 with err set. */
static int setup_db(struct store *s, const char *path, char *err, size_t errlen)
{
    char *jm = NULL;
    sqlite3_stmt *st = NULL;
    if (prep(s, "PRAGMA journal_mode=WAL", &st) == 0 && sqlite3_step(st) == SQLITE_ROW)
        jm = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (jm == NULL) { /* the first read of the file: not a database, or its header damaged */
        snprintf(err, errlen, "%s: cannot read the store: %s (not an SQLite database, or damaged: "
                 "restore a backup)", path, sqlite3_errmsg(s->db));
        return -1;
    }
    if (strcmp(jm, "wal") != 0) {
        snprintf(err, errlen, "%s: cannot switch to WAL mode (%s): %s", path, jm,
                 sqlite3_errmsg(s->db));
        free(jm);
        return -1;
    }
    free(jm);
    if (exec(s, "PRAGMA synchronous=FULL") != 0 || exec(s, "PRAGMA foreign_keys=ON") != 0 ||
        exec(s, "PRAGMA wal_autocheckpoint=1000") != 0) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(s->db));
        return -1;
    }
    char ic[256];
    st = NULL;
    ic[0] = '\0';
    if (prep(s, "PRAGMA quick_check", &st) == 0 && sqlite3_step(st) == SQLITE_ROW)
        snprintf(ic, sizeof(ic), "%s", (const char *)sqlite3_column_text(st, 0));
    else
        snprintf(ic, sizeof(ic), "%s", sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
    if (strcmp(ic, "ok") != 0) {
        snprintf(err, errlen, "%s: the store is damaged (quick_check: %s): restore a backup", path, ic);
        return -1;
    }
    return 0;
}

/* The statements kept prepared. 0, or -1 with err set. */
static int prepare_cached(struct store *s, const char *path, char *err, size_t errlen)
{
    /* a sample merges into its row or makes a new one: two statements, so
     * that acctd knows which (sample_rows_per_user); an upsert with
     * RETURNING cost ~80 % more CPU per sample */
    if (prep(s,
             "INSERT INTO sample_stats VALUES "
             "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?17)",
             &s->st_sample) != 0 ||
        prep(s,
             "UPDATE sample_stats SET count = count + ?12, sum_us = sum_us + ?13, "
             "sumsq_us = sumsq_us + ?14, min_us = min(min_us, ?15), max_us = max(max_us, ?16), "
             "last_at = ?17 WHERE partition = ?1 AND interconnect = ?2 AND collective = ?3 "
             "AND comm_size = ?4 AND bucket = ?5 AND algorithm = ?6 AND segment = ?7 "
             "AND fanout = ?8 AND reorder = ?9 AND job = ?10",
             &s->st_sample_merge) != 0 ||
        prep(s, "SELECT uid, records FROM sample_jobs WHERE job = ?1", &s->st_job_get) != 0 ||
        prep(s,
             "INSERT INTO sample_jobs VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT DO UPDATE SET "
             "records = records + excluded.records, last_at = excluded.last_at",
             &s->st_job_add) != 0 ||
        prep(s,
             "SELECT version, at FROM activations WHERE partition = ?1 AND interconnect = ?2 "
             "AND undone = 0 ORDER BY seq DESC LIMIT 1",
             &s->st_active) != 0 ||
        prep(s,
             "SELECT uid, partition, interconnect FROM registered_steps "
             "WHERE job = ?1 AND expires > ?2",
             &s->st_step_get) != 0) {
        snprintf(err, errlen, "%s: cannot prepare statements: %s", path, sqlite3_errmsg(s->db));
        return -1;
    }
    return 0;
}

struct store *store_open(const char *path, char *err, size_t errlen)
{
    struct store *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if (sqlite3_open_v2(path, &s->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX |
                            SQLITE_OPEN_EXRESCODE,
                        NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open: %s", path,
                 s->db ? sqlite3_errmsg(s->db) : "out of memory");
        goto fail;
    }
    sqlite3_busy_timeout(s->db, 5000);
    if (setup_db(s, path, err, errlen) != 0)
        goto fail;
    char merr[512];
    if (migrate(s, merr, sizeof(merr)) != 0) {
        snprintf(err, errlen, "%s: %s", path, merr);
        goto fail;
    }
    if (verify_schema(s, merr, sizeof(merr)) != 0) {
        snprintf(err, errlen,
                 "%s: %s (a migration applied in part, or the store edited by hand): "
                 "refusing to use it (restore a backup)",
                 path, merr);
        goto fail;
    }
    if (prepare_cached(s, path, err, errlen) != 0)
        goto fail;
    return s;
fail:
    store_close(s);
    return NULL;
}

void store_close(struct store *s)
{
    if (s == NULL)
        return;
    sqlite3_finalize(s->st_sample);
    sqlite3_finalize(s->st_sample_merge);
    sqlite3_finalize(s->st_job_get);
    sqlite3_finalize(s->st_job_add);
    sqlite3_finalize(s->st_active);
    sqlite3_finalize(s->st_step_get);
    if (s->db != NULL)
        sqlite3_close(s->db);
    free(s);
}

int store_integrity(struct store *s, char *buf, size_t len)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (prep(s, "PRAGMA integrity_check(1)", &st) == 0 && sqlite3_step(st) == SQLITE_ROW) {
        snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
        rc = 0;
    } else {
        snprintf(buf, len, "integrity_check failed: %s", sqlite3_errmsg(s->db));
    }
    sqlite3_finalize(st);
    return rc;
}

/* ---- versions ------------------------------------------------------------------ */

void store_version_free(struct store_version *v)
{
    free(v->rules_text);
    v->rules_text = NULL;
}

static void copy_col(char *dst, size_t cap, sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(dst, cap, "%s", t ? (const char *)t : "");
}

#define VERSION_COLS                                                                      \
    "v.id, v.partition, v.interconnect, v.source, v.created, v.tuning_run, v.parent, "    \
    "v.reason, v.hash"

static void row_version(sqlite3_stmt *st, struct store_version *v, int text_col)
{
    memset(v, 0, sizeof(*v));
    v->id = sqlite3_column_int64(st, 0);
    copy_col(v->partition, sizeof(v->partition), st, 1);
    copy_col(v->interconnect, sizeof(v->interconnect), st, 2);
    copy_col(v->source, sizeof(v->source), st, 3);
    copy_col(v->created, sizeof(v->created), st, 4);
    copy_col(v->tuning_run, sizeof(v->tuning_run), st, 5);
    v->parent = sqlite3_column_int64(st, 6);
    copy_col(v->reason, sizeof(v->reason), st, 7);
    v->hash = (uint64_t)sqlite3_column_int64(st, 8);
    if (text_col >= 0 && sqlite3_column_type(st, text_col) != SQLITE_NULL)
        v->rules_text = strdup((const char *)sqlite3_column_text(st, text_col));
}

/* Fill active/activated_at of v from the activation history. */
static int mark_active(struct store *s, struct store_version *v)
{
    sqlite3_stmt *st = s->st_active;
    int rc = -1;
    int r = STEP_CACHED(st, VT(v->partition), VT(v->interconnect));
    v->active = false;
    v->activated_at[0] = '\0';
    if (r == SQLITE_ROW) {
        v->active = sqlite3_column_int64(st, 0) == v->id;
        if (v->active)
            copy_col(v->activated_at, sizeof(v->activated_at), st, 1);
        rc = 0;
    } else if (r == SQLITE_DONE) {
        rc = 0;
    }
    done_cached(st);
    return rc;
}

int store_version_get(struct store *s, int64_t id, bool with_text, struct store_version *v)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (prep(s, "SELECT " VERSION_COLS ", v.rules_text FROM versions v WHERE v.id = ?1", &st) != 0)
        goto out;
    sqlite3_bind_int64(st, 1, id);
    int r = sqlite3_step(st);
    if (r == SQLITE_DONE) {
        rc = 1;
        goto out;
    }
    if (r != SQLITE_ROW)
        goto out;
    row_version(st, v, with_text ? 9 : -1);
    if (with_text && v->rules_text == NULL)
        goto out;
    rc = mark_active(s, v);
out:
    sqlite3_finalize(st);
    return rc;
}

int store_model_get(struct store *s, const char *run_id, double p[4])
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (prep(s, "SELECT l_us, o_us, g_us, g_us_per_byte FROM model_params WHERE run_id = ?1",
             &st) != 0)
        goto out;
    sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
    int r = sqlite3_step(st);
    if (r == SQLITE_DONE) {
        rc = 1;
    } else if (r == SQLITE_ROW) {
        for (int k = 0; k < 4; k++)
            p[k] = sqlite3_column_double(st, k);
        rc = 0;
    }
out:
    sqlite3_finalize(st);
    return rc;
}

int store_result_text(struct store *s, const char *run_id, char **text, size_t *len)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    *text = NULL;
    *len = 0;
    if (prep(s, "SELECT result_text FROM tuning_runs WHERE id = ?1", &st) != 0)
        goto out;
    sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
    int r = sqlite3_step(st);
    if (r == SQLITE_DONE) {
        rc = 1;
    } else if (r == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        size_t n = (size_t)sqlite3_column_bytes(st, 0);
        if ((*text = malloc(n + 1)) != NULL) {
            if (n > 0)
                memcpy(*text, t, n);
            (*text)[n] = '\0';
            *len = n;
            rc = 0;
        }
    }
out:
    sqlite3_finalize(st);
    return rc;
}

int store_model_levels_get(struct store *s, const char *run_id, double v[STORE_LEVELS_N])
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (prep(s,
             "SELECT intra_l_us, intra_o_us, intra_g_us, intra_g_us_per_byte, inter_l_us, "
             "inter_o_us, inter_g_us, inter_g_us_per_byte, nic_pairs, nic_gap_factor, "
             "nic_bidir_pairs, nic_bidir_gap_factor, pair_duplex_factor, "
             "pair_duplex_overlap_bytes FROM model_levels WHERE run_id = ?1",
             &st) != 0)
        goto out;
    sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
    int r = sqlite3_step(st);
    if (r == SQLITE_DONE) {
        rc = 1;
    } else if (r == SQLITE_ROW) {
        for (int k = 0; k < STORE_LEVELS_N; k++)
            v[k] = sqlite3_column_double(st, k);
        rc = 0;
    }
out:
    sqlite3_finalize(st);
    return rc;
}

static int active_id(struct store *s, const char *p, const char *i, int64_t *id)
{
    sqlite3_stmt *st = s->st_active;
    int rc = -1;
    int r = STEP_CACHED(st, VT(p), VT(i));
    if (r == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0);
        rc = 0;
    } else if (r == SQLITE_DONE) {
        *id = 0;
        rc = 1;
    }
    done_cached(st);
    return rc;
}

int store_active_get(struct store *s, const char *partition, const char *interconnect,
                     bool with_text, struct store_version *v)
{
    int64_t id;
    int rc = active_id(s, partition, interconnect, &id);
    if (rc != 0)
        return rc;
    rc = store_version_get(s, id, with_text, v);
    return rc == 1 ? -1 : rc; /* an activation names an existing version */
}

int64_t store_version_add(struct store *s, struct acct_rules *rules, int64_t parent,
                          const char *reason, long uid, char *err, size_t errlen)
{
    int64_t id = scalar_i64(s, "SELECT coalesce(max(id), 0) + 1 FROM versions", -1);
    char *text = NULL;
    size_t len = 0;
    int64_t rc = -1;
    if (id <= 0) {
        snprintf(err, errlen, "store: %s", sqlite3_errmsg(s->db));
        goto out;
    }
    rules->prov.version = id;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    int w = acct_rules_write(f, rules);
    if (fclose(f) != 0 || w != 0) {
        snprintf(err, errlen, "cannot write the rules text");
        goto out;
    }
    /* What is stored must parse back to the same rules (rule 5: every
     * materialised file is valid). */
    struct acct_rules *back = NULL;
    struct acct_diags d = ACCT_DIAGS_INIT;
    if (acct_rules_parse_buffer("version", text, len, &back, &d) != ACCT_RULES_OK ||
        !acct_rules_equal(back, rules)) {
        char line[ACCT_DIAG_MSG_MAX + 64] = "does not round-trip";
        if (d.n > 0)
            acct_diag_format(&d, 0, line, sizeof(line));
        snprintf(err, errlen, "the new version's rules are invalid: %s", line);
        acct_rules_free(back);
        acct_diags_free(&d);
        goto out;
    }
    acct_rules_free(back);
    acct_diags_free(&d);
    if (RUN(s, "INSERT INTO versions VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)", VI(id),
            VT(rules->prov.partition), VT(rules->prov.interconnect),
            VT(acct_rules_source_name(rules->prov.source)), VT(rules->prov.created),
            VT(rules->prov.tuning_run), VI(parent), VT(reason), VI(uid),
            VI(acct_rules_hash(text, len)), VTN(text, len)) != 0)
        goto dberr;
    rc = id;
    goto out;
dberr:
    snprintf(err, errlen, "store: %s", sqlite3_errmsg(s->db));
out:
    free(text);
    return rc;
}

int store_activate(struct store *s, int64_t id, const char *reason, long uid, int64_t *previous)
{
    struct store_version v;
    char now[ACCT_RULES_TIME_LEN + 1];
    int rc = store_version_get(s, id, false, &v);
    if (rc != 0)
        goto out;
    rc = -1;
    if (active_id(s, v.partition, v.interconnect, previous) < 0)
        goto out;
    if (*previous == id) {
        rc = 2;
        goto out;
    }
    store_now(now);
    rc = RUN(s,
             "INSERT INTO activations (partition, interconnect, version, at, reason, uid) "
             "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
             VT(v.partition), VT(v.interconnect), VI(id), VT(now), VT(reason), VI(uid));
out:
    return rc;
}

int store_rollback(struct store *s, const char *partition, const char *interconnect,
                   int64_t *now_v, int64_t *undone)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    int64_t seq = 0;
    char now[ACCT_RULES_TIME_LEN + 1];
    *now_v = *undone = 0;
    if (prep(s,
             "SELECT seq, version FROM activations WHERE partition = ?1 AND interconnect = ?2 "
             "AND undone = 0 ORDER BY seq DESC LIMIT 2",
             &st) != 0)
        goto out;
    BIND(st, VT(partition), VT(interconnect));
    int r = sqlite3_step(st);
    if (r == SQLITE_DONE) {
        rc = 1;
        goto out;
    }
    if (r != SQLITE_ROW)
        goto out;
    seq = sqlite3_column_int64(st, 0);
    *undone = sqlite3_column_int64(st, 1);
    r = sqlite3_step(st);
    if (r == SQLITE_DONE) {
        rc = 2;
        goto out;
    }
    if (r != SQLITE_ROW)
        goto out;
    *now_v = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    st = NULL;
    store_now(now);
    rc = RUN(s, "UPDATE activations SET undone = 1, undone_at = ?2 WHERE seq = ?1", VI(seq),
             VT(now));
out:
    sqlite3_finalize(st);
    return rc;
}

int store_pairs(struct store *s, bool with_text, store_version_cb cb, void *arg)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    /* the latest live activation per pair */
    if (prep(s,
             "SELECT " VERSION_COLS ", v.rules_text, a.at, "
             "(SELECT count(*) FROM versions w WHERE w.partition = v.partition AND "
             "w.interconnect = v.interconnect) "
             "FROM activations a JOIN versions v ON v.id = a.version "
             "WHERE a.seq = (SELECT max(b.seq) FROM activations b WHERE b.partition = a.partition "
             "AND b.interconnect = a.interconnect AND b.undone = 0) "
             "ORDER BY v.partition, v.interconnect",
             &st) != 0)
        goto out;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        struct store_version v;
        row_version(st, &v, with_text ? 9 : -1);
        v.active = true;
        copy_col(v.activated_at, sizeof(v.activated_at), st, 10);
        int c = (with_text && v.rules_text == NULL) ? -1 : cb(arg, &v, sqlite3_column_int64(st, 11));
        store_version_free(&v);
        if (c != 0) {
            rc = c;
            goto out;
        }
    }
    rc = r == SQLITE_DONE ? 0 : -1;
out:
    sqlite3_finalize(st);
    return rc;
}

/* Calls cb(arg, v, 0) for each row of st (VERSION_COLS, then rules_text at
 * text_col when >= 0: a row without it is an error) until cb returns
 * non-zero, and finalizes st. active: the id of the pair's active version
 * (0: none), or ACTIVE_LOOKUP to ask the store for each row's pair.
 * Returns 0, cb's non-zero value, or -1. */
#define ACTIVE_LOOKUP (-1)
static int each_version(struct store *s, sqlite3_stmt *st, int text_col, int64_t active,
                        store_version_cb cb, void *arg)
{
    int r = SQLITE_DONE, rc = 0;
    while (rc == 0 && (r = sqlite3_step(st)) == SQLITE_ROW) {
        struct store_version v;
        row_version(st, &v, text_col);
        if (active != ACTIVE_LOOKUP)
            v.active = v.id == active;
        bool bad = (text_col >= 0 && v.rules_text == NULL) ||
                   (active == ACTIVE_LOOKUP && mark_active(s, &v) != 0);
        rc = bad ? -1 : cb(arg, &v, 0);
        store_version_free(&v);
    }
    if (rc == 0 && r != SQLITE_DONE)
        rc = -1;
    sqlite3_finalize(st);
    return rc;
}

int store_versions(struct store *s, const char *partition, const char *interconnect,
                   store_version_cb cb, void *arg)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    int64_t active = 0;
    if (active_id(s, partition, interconnect, &active) < 0)
        goto out;
    if (prep(s,
             "SELECT " VERSION_COLS " FROM versions v WHERE v.partition = ?1 AND "
             "v.interconnect = ?2 ORDER BY v.id DESC",
             &st) != 0)
        goto out;
    BIND(st, VT(partition), VT(interconnect));
    return each_version(s, st, -1, active, cb, arg);
out:
    sqlite3_finalize(st);
    return rc;
}

int64_t store_count_versions(struct store *s)
{
    return scalar_i64(s, "SELECT count(*) FROM versions", 0);
}

/* ---- import ----------------------------------------------------------------------- */

/* The tuning run r->id imported before: 0 if it is new, 1 with *version
 * the version its import made if it had the same content (hash), 2 (err
 * set) if it had other content, -1 on a store error. */
static int run_imported(struct store *s, const struct acct_result *r, uint64_t hash,
                        int64_t *version, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (prep(s, "SELECT result_hash FROM tuning_runs WHERE id = ?1", &st) != 0)
        goto out;
    sqlite3_bind_text(st, 1, r->id, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    if (step == SQLITE_DONE)
        rc = 0;
    if (step != SQLITE_ROW)
        goto out;
    if ((uint64_t)sqlite3_column_int64(st, 0) != hash) {
        snprintf(err, errlen,
                 "tuning run \"%s\" was imported before with other content; refusing to "
                 "replace it (give the run a new id)",
                 r->id);
        rc = 2;
        goto out;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (prep(s, "SELECT id FROM versions WHERE tuning_run = ?1 AND reason = 'import' "
                "ORDER BY id LIMIT 1", &st) != 0)
        goto out;
    sqlite3_bind_text(st, 1, r->id, -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_ROW)
        goto out;
    *version = sqlite3_column_int64(st, 0);
    rc = 1;
out:
    sqlite3_finalize(st);
    return rc;
}

/* "host1,host2": the hosts of r's conditions (malloc'd; NULL: out of
 * memory). */
static char *hosts_joined(const struct acct_result *r)
{
    size_t hl = 1;
    for (size_t i = 0; i < r->cond.nhosts; i++)
        hl += strlen(r->cond.hosts[i]) + 1;
    char *hosts = calloc(1, hl);
    if (hosts == NULL)
        return NULL;
    for (size_t i = 0; i < r->cond.nhosts; i++) {
        if (i)
            strcat(hosts, ",");
        strcat(hosts, r->cond.hosts[i]);
    }
    return hosts;
}

/* The rows of tuning run r: tuning_runs, measurements, model_params. 0 or
 * -1 (store error). A measurement's optional per-rank views (avg_us,
 * rank_max_us) and the run's races (acct-tune --race, issue 23) have no
 * columns: they are kept, without loss, in tuning_runs.result_text (the
 * file as imported, column 17 of the INSERT below; no request reads it
 * back yet), and nothing in acctd decides on them: the decisions are the
 * result's rules. */
static int insert_run(struct store *s, const struct acct_result *r, const char *text, size_t len,
                      long uid, uint64_t hash, const char *hosts)
{
    sqlite3_stmt *st = NULL;
    char now[ACCT_RULES_TIME_LEN + 1];
    int rc = -1;
    store_now(now);
    if (RUN(s,
            "INSERT INTO tuning_runs VALUES "
            "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)",
            VT(r->id), VT(r->partition), VT(r->interconnect), VT(r->started), VT(r->finished),
            VI(r->complete), VT(r->strategy), VT(acct_result_source_name(r->source)),
            VI(r->cond.ranks), VI(r->cond.ranks_per_node), VT(hosts), VT(r->cond.mpi_library),
            VT(r->cond.slurm_job_id), VT(now), VI(uid), VI(hash), VTN(text, len)) != 0)
        goto out;
    if (prep(s, "INSERT INTO measurements VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)", &st) != 0)
        goto out;
    for (size_t i = 0; i < r->npoints; i++) {
        const struct acct_result_point *p = &r->points[i];
        char method[160];
        acct_decision_format(&p->d, method, sizeof(method));
        int step_rc = STEP_CACHED(st, VT(r->id), VT(acct_coll_name(p->coll)), VI(p->comm_size),
                                  VI(p->bytes), VT(method), VI(p->modelled), VI(p->reps),
                                  VD(p->median_us), VD(p->q1_us), VD(p->q3_us), VD(p->min_us),
                                  VD(p->max_us));
        done_cached(st);
        if (step_rc != SQLITE_DONE)
            goto out;
    }
    if (r->model.present &&
        RUN(s, "INSERT INTO model_params VALUES (?1,?2,?3,?4,?5)", VT(r->id), VD(r->model.L_us),
            VD(r->model.o_us), VD(r->model.g_us), VD(r->model.G_us_per_byte)) != 0)
        goto out;
    const struct acct_result_loggp *ia = &r->model.intra, *ie = &r->model.inter;
    if (r->model.present && r->model.has_levels &&
        RUN(s, "INSERT INTO model_levels VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,"
               "?15)",
            VT(r->id), VD(ia->L_us), VD(ia->o_us), VD(ia->g_us), VD(ia->G_us_per_byte),
            VD(ie->L_us), VD(ie->o_us), VD(ie->g_us), VD(ie->G_us_per_byte),
            VI(r->model.nic_pairs), VD(r->model.nic_gap_factor), VI(r->model.nic_bidir_pairs),
            VD(r->model.nic_bidir_gap_factor), VD(r->model.pair_duplex_factor),
            VD((double)r->model.pair_duplex_overlap_bytes)) != 0)
        goto out;
    rc = 0;
out:
    sqlite3_finalize(st);
    return rc;
}

/* A copy of rules, options and hash included (NULL: out of memory). */
int store_import_result(struct store *s, const struct acct_result *r, const char *text,
                        size_t len, long uid, int64_t *version, bool *existing, char *err,
                        size_t errlen)
{
    int rc = -1;
    uint64_t hash = acct_rules_hash(text, len);
    char *hosts = NULL;
    struct acct_rules *copy = NULL;
    *existing = false;
    *version = 0;
    /* a run imported before: same content is a no-op, other content refused */
    int known = run_imported(s, r, hash, version, err, errlen);
    if (known < 0)
        goto dberr;
    if (known > 0) {
        *existing = known == 1;
        rc = known == 1 ? 0 : 1;
        goto out;
    }
    if ((hosts = hosts_joined(r)) == NULL) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (insert_run(s, r, text, len, uid, hash, hosts) != 0)
        goto dberr;
    /* the decisions: a copy of the rules whose provenance acctd completes */
    if ((copy = acct_rules_copy(r->rules)) == NULL) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    snprintf(copy->prov.tuning_run, sizeof(copy->prov.tuning_run), "%s", r->id);
    int64_t id = store_version_add(s, copy, 0, "import", uid, err, errlen);
    if (id < 0)
        goto out;
    *version = id;
    rc = 0;
    goto out;
dberr:
    snprintf(err, errlen, "store: %s", sqlite3_errmsg(s->db));
out:
    free(hosts);
    acct_rules_free(copy);
    return rc;
}

/* ---- samples ----------------------------------------------------------------------- */

int store_job_get(struct store *s, const char *job, long *uid, int64_t *records)
{
    sqlite3_stmt *st = s->st_job_get;
    int rc = -1;
    int r = STEP_CACHED(st, VT(job));
    if (r == SQLITE_ROW) {
        *uid = (long)sqlite3_column_int64(st, 0);
        *records = sqlite3_column_int64(st, 1);
        rc = 0;
    } else if (r == SQLITE_DONE) {
        *records = 0;
        rc = 1;
    }
    done_cached(st);
    return rc;
}

int store_job_add(struct store *s, const char *job, long uid, int64_t records, int64_t now)
{
    int r = STEP_CACHED(s->st_job_add, VT(job), VI(uid), VI(records), VI(now));
    done_cached(s->st_job_add);
    return r == SQLITE_DONE ? 0 : -1;
}

int store_sample_add(struct store *s, const struct store_sample *x, long uid, int64_t now)
{
#define SAMPLE_VALUES                                                                        \
    VT(x->partition), VT(x->interconnect), VT(x->collective), VI(x->comm_size), VI(x->bucket), \
        VT(x->algorithm), VI(x->segment), VI(x->fanout), VI(x->reorder), VT(x->job), VI(uid),  \
        VI(x->count), VD(x->sum_us), VD(x->sumsq_us), VD(x->min_us), VD(x->max_us), VI(now)
    int r = STEP_CACHED(s->st_sample_merge, SAMPLE_VALUES);
    s->sample_new = r == SQLITE_DONE && sqlite3_changes(s->db) == 0;
    done_cached(s->st_sample_merge);
    if (s->sample_new) { /* no row yet */
        r = STEP_CACHED(s->st_sample, SAMPLE_VALUES);
        done_cached(s->st_sample);
    }
#undef SAMPLE_VALUES
    return r == SQLITE_DONE ? 0 : -1;
}

bool store_sample_was_new(const struct store *s)
{
    return s->sample_new;
}

int store_rows_by_uid(struct store *s, store_uid_cb cb, void *arg)
{
    sqlite3_stmt *st = NULL;
    int r = SQLITE_ERROR;
    if (prep(s, "SELECT uid, count(*) FROM sample_stats GROUP BY uid", &st) == 0)
        while ((r = sqlite3_step(st)) == SQLITE_ROW)
            if (cb(arg, (long)sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)) != 0)
                break;
    sqlite3_finalize(st);
    return r == SQLITE_DONE || r == SQLITE_ROW ? 0 : -1;
}

int store_next_sample_pair(struct store *s, const char *partition, const char *interconnect,
                           char *p, char *i, size_t cap)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    /* a seek on the primary key's prefix: no scan of the pairs in between */
    if (prep(s,
             "SELECT partition, interconnect FROM sample_stats "
             "WHERE (partition, interconnect) > (?1, ?2) "
             "ORDER BY partition, interconnect LIMIT 1",
             &st) != 0)
        goto out;
    BIND(st, VT(partition), VT(interconnect));
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
        snprintf(p, cap, "%s", (const char *)sqlite3_column_text(st, 0));
        snprintf(i, cap, "%s", (const char *)sqlite3_column_text(st, 1));
        rc = 0;
    } else if (r == SQLITE_DONE) {
        rc = 1;
    }
out:
    sqlite3_finalize(st);
    return rc;
}

int store_prune_pair(struct store *s, const char *partition, const char *interconnect,
                     int64_t cutoff, store_uid_cb cb, void *arg)
{
    sqlite3_stmt *st = NULL;
    int r = SQLITE_ERROR, n = 0;
    if (prep(s,
             "DELETE FROM sample_stats WHERE partition = ?1 AND interconnect = ?2 "
             "AND last_at < ?3 RETURNING uid, count",
             &st) == 0) {
        BIND(st, VT(partition), VT(interconnect), VI(cutoff));
        while ((r = sqlite3_step(st)) == SQLITE_ROW) {
            n++;
            cb(arg, (long)sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
        }
    }
    sqlite3_finalize(st);
    return r == SQLITE_DONE ? n : -1;
}

int64_t store_size_bytes(struct store *s)
{
    int64_t pages = scalar_i64(s, "PRAGMA page_count", -1);
    int64_t free_pages = scalar_i64(s, "PRAGMA freelist_count", 0);
    int64_t size = scalar_i64(s, "PRAGMA page_size", -1);
    return pages < 0 || size < 0 ? -1 : (pages - free_pages) * size;
}

void store_set_busy_timeout(struct store *s, int ms)
{
    sqlite3_busy_timeout(s->db, ms);
}

bool store_busy(const struct store *s)
{
    return (sqlite3_errcode(s->db) & 0xff) == SQLITE_BUSY;
}

int64_t store_count_samples(struct store *s)
{
    return scalar_i64(s, "SELECT coalesce(sum(count), 0) FROM sample_stats", 0);
}

int store_step_register(struct store *s, const char *job, long uid, const char *partition,
                        const char *interconnect, int64_t now, int64_t expires, int64_t max_rows,
                        int64_t *evicted)
{
    *evicted = 0;
    if (RUN(s, "DELETE FROM registered_steps WHERE expires <= ?1", VI(now)) != 0 ||
        RUN(s, "INSERT OR REPLACE INTO registered_steps VALUES (?1, ?2, ?3, ?4, ?5, ?6)", VT(job),
            VI(uid), VT(partition), VT(interconnect), VI(now), VI(expires)) != 0)
        return -1;
    int64_t n = scalar_i64(s, "SELECT count(*) FROM registered_steps", -1);
    if (n < 0)
        return -1;
    if (n > max_rows) {
        if (RUN(s,
                "DELETE FROM registered_steps WHERE job IN (SELECT job FROM registered_steps "
                "WHERE job != ?2 ORDER BY registered, job LIMIT ?1)",
                VI(n - max_rows), VT(job)) != 0)
            return -1;
        *evicted = n - max_rows;
    }
    return 0;
}

int store_step_end(struct store *s, const char *job, long uid, int64_t expires)
{
    if (RUN(s, "UPDATE registered_steps SET expires = min(expires, ?3) WHERE job = ?1 AND uid = ?2",
            VT(job), VI(uid), VI(expires)) != 0)
        return -1;
    return sqlite3_changes(s->db) > 0 ? 0 : 1;
}

int store_step_get(struct store *s, const char *job, int64_t now, long *uid,
                   char partition[ACCT_RULES_NAME_MAX + 1],
                   char interconnect[ACCT_RULES_NAME_MAX + 1])
{
    sqlite3_stmt *st = s->st_step_get;
    int rc = -1;
    int r = STEP_CACHED(st, VT(job), VI(now));
    if (r == SQLITE_ROW) {
        const char *p = (const char *)sqlite3_column_text(st, 1);
        const char *i = (const char *)sqlite3_column_text(st, 2);
        *uid = (long)sqlite3_column_int64(st, 0);
        snprintf(partition, ACCT_RULES_NAME_MAX + 1, "%s", p ? p : "");
        snprintf(interconnect, ACCT_RULES_NAME_MAX + 1, "%s", i ? i : "");
        rc = 0;
    } else if (r == SQLITE_DONE) {
        rc = 1;
    }
    done_cached(st);
    return rc;
}

int64_t store_count_steps(struct store *s, int64_t now)
{
    sqlite3_stmt *st = NULL;
    int64_t n = -1;
    if (prep(s, "SELECT count(*) FROM registered_steps WHERE expires > ?1", &st) == 0) {
        BIND(st, VI(now));
        if (sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return n;
}

/* ---- sample rows: the key of a cell and method, and its moments ---------------- */

/* The columns of sample_stats and sample_outbox that name a cell and a
 * method, in key order. */
#define CELL_KEY                                                                          \
    "partition, interconnect, collective, comm_size, bucket, algorithm, segment, fanout, " \
    "reorder"

static const char *col_str(sqlite3_stmt *st, int col)
{
    return (const char *)sqlite3_column_text(st, col);
}

/* The fields struct store_stat and struct store_sample share, decoded
 * from CELL_KEY at column b and the moments (count, sum_us, sumsq_us,
 * min_us, max_us) after it: designated initializers for either. */
#define CELL_FIELDS(st, b)                                                                  \
    .partition = col_str(st, (b)), .interconnect = col_str(st, (b) + 1),                    \
    .collective = col_str(st, (b) + 2), .comm_size = sqlite3_column_int64(st, (b) + 3),     \
    .bucket = sqlite3_column_int64(st, (b) + 4), .algorithm = col_str(st, (b) + 5),         \
    .segment = sqlite3_column_int64(st, (b) + 6), .fanout = sqlite3_column_int64(st, (b) + 7), \
    .reorder = sqlite3_column_int64(st, (b) + 8), .count = sqlite3_column_int64(st, (b) + 9), \
    .sum_us = sqlite3_column_double(st, (b) + 10),                                         \
    .sumsq_us = sqlite3_column_double(st, (b) + 11),                                       \
    .min_us = sqlite3_column_double(st, (b) + 12), .max_us = sqlite3_column_double(st, (b) + 13)

/* A row of STATS_SELECT or of store_job_stats. false if a text column is
 * NULL. */
static bool row_stat(sqlite3_stmt *st, struct store_stat *x)
{
    *x = (struct store_stat){CELL_FIELDS(st, 0), .jobs = sqlite3_column_int64(st, 14),
                             .users = sqlite3_column_int64(st, 15)};
    return x->partition != NULL && x->interconnect != NULL && x->collective != NULL &&
           x->algorithm != NULL;
}

static int run_stats(struct store *s, sqlite3_stmt *st, store_stat_cb cb, void *arg)
{
    int r, rc = -1;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        struct store_stat x;
        if (!row_stat(st, &x))
            goto out;
        int c = cb(arg, &x);
        if (c != 0) {
            rc = c;
            goto out;
        }
    }
    rc = r == SQLITE_DONE ? 0 : -1;
out:
    (void)s;
    return rc;
}

/* The statistics of each cell and method over all jobs (row_stat), to be
 * followed by WHERE ... GROUP BY CELL_KEY. */
#define STATS_SELECT                                                                       \
    "SELECT " CELL_KEY ", sum(count), sum(sum_us), sum(sumsq_us), min(min_us), max(max_us), " \
    "count(DISTINCT job), count(DISTINCT uid) FROM sample_stats "

int store_stats(struct store *s, const char *partition, const char *interconnect,
                const char *collective, store_stat_cb cb, void *arg)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    /* Only the given filters are written as comparisons, so that SQLite
     * can seek the primary key (partition, interconnect, collective, ...);
     * "?1 IS NULL OR partition = ?1" would make every listing a full scan.
     * An absent filter stays in the text as "?N IS NULL" (true, evaluated
     * once) so that the three parameters are always there to bind. */
    char sql[768];
    int n = snprintf(sql, sizeof sql, STATS_SELECT "WHERE %s AND %s AND %s GROUP BY " CELL_KEY,
                     partition ? "partition = ?1" : "?1 IS NULL",
                     interconnect ? "interconnect = ?2" : "?2 IS NULL",
                     collective ? "collective = ?3" : "?3 IS NULL");
    if (n < 0 || (size_t)n >= sizeof sql || prep(s, sql, &st) != 0)
        goto out;
    BIND(st, VT(partition), VT(interconnect), VT(collective)); /* NULL binds NULL */
    rc = run_stats(s, st, cb, arg);
out:
    sqlite3_finalize(st);
    return rc;
}

int store_stats_page(struct store *s, const char *partition, const char *interconnect,
                     const char *collective, const struct store_stat *after, int64_t limit,
                     store_stat_cb cb, void *arg)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    /* as store_stats, in primary-key order, from after the key of *after:
     * a seek, so a page costs its own rows whatever page it is */
    char sql[1024];
    int n = snprintf(sql, sizeof sql,
                     STATS_SELECT "WHERE %s AND %s AND %s AND %s GROUP BY " CELL_KEY
                                  " ORDER BY " CELL_KEY " LIMIT ?13",
                     partition ? "partition = ?1" : "?1 IS NULL",
                     interconnect ? "interconnect = ?2" : "?2 IS NULL",
                     collective ? "collective = ?3" : "?3 IS NULL",
                     after ? "(" CELL_KEY ") > (?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
                           : "?4 IS NULL");
    if (n < 0 || (size_t)n >= sizeof sql || prep(s, sql, &st) != 0)
        goto out;
    if (after != NULL)
        BIND(st, VT(partition), VT(interconnect), VT(collective), VT(after->partition),
             VT(after->interconnect), VT(after->collective), VI(after->comm_size),
             VI(after->bucket), VT(after->algorithm), VI(after->segment), VI(after->fanout),
             VI(after->reorder), VI(limit));
    else
        BIND(st, VT(partition), VT(interconnect), VT(collective), VT(NULL), VT(NULL), VT(NULL),
             VI(0), VI(0), VT(NULL), VI(0), VI(0), VI(0), VI(limit));
    rc = run_stats(s, st, cb, arg);
out:
    sqlite3_finalize(st);
    return rc;
}

int store_job_stats(struct store *s, const char *partition, const char *interconnect,
                    int64_t since, store_stat_cb cb, void *arg)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (prep(s,
             "SELECT " CELL_KEY ", count, sum_us, sumsq_us, min_us, max_us, 1, uid FROM sample_stats "
             "WHERE partition = ?1 AND interconnect = ?2 AND last_at >= ?3 "
             "ORDER BY collective, comm_size, bucket, algorithm, segment, fanout, reorder, job",
             &st) != 0)
        goto out;
    BIND(st, VT(partition), VT(interconnect), VI(since));
    rc = run_stats(s, st, cb, arg);
out:
    sqlite3_finalize(st);
    return rc;
}

/* ---- policies, refinement log ----------------------------------------------------- */

int store_policy_set(struct store *s, const char *partition, const char *text, long uid)
{
    char now[ACCT_RULES_TIME_LEN + 1];
    if (text == NULL || text[0] == '\0')
        return RUN(s, "DELETE FROM policies WHERE partition = ?1", VT(partition));
    store_now(now);
    return RUN(s, "INSERT OR REPLACE INTO policies VALUES (?1, ?2, ?3, ?4)", VT(partition),
               VT(text), VT(now), VI(uid));
}

int store_policy_get(struct store *s, const char *partition, char **text)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    *text = NULL;
    if (prep(s, "SELECT text FROM policies WHERE partition = ?1", &st) != 0)
        goto out;
    sqlite3_bind_text(st, 1, partition, -1, SQLITE_STATIC);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
        *text = strdup((const char *)sqlite3_column_text(st, 0));
        rc = *text != NULL ? 0 : -1;
    } else if (r == SQLITE_DONE) {
        rc = 1;
    }
out:
    sqlite3_finalize(st);
    return rc;
}

int store_refinement_log(struct store *s, const char *partition, const char *interconnect,
                         const char *collective, int64_t comm_size, int64_t bucket,
                         const char *old_method, const char *new_method, double old_mean,
                         double new_mean, double p, int64_t jobs, int64_t users,
                         int64_t version)
{
    char now[ACCT_RULES_TIME_LEN + 1];
    store_now(now);
    return RUN(s,
               "INSERT INTO refinements (at, partition, interconnect, collective, comm_size, "
               "bucket, old_method, new_method, old_mean_us, new_mean_us, p_value, jobs, users, "
               "version) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)",
               VT(now), VT(partition), VT(interconnect), VT(collective), VI(comm_size),
               VI(bucket), VT(old_method), VT(new_method), VD(old_mean), VD(new_mean), VD(p),
               VI(jobs), VI(users), VI(version));
}

/* ---- replication ---------------------------------------------------------------- */

int64_t store_max_version(struct store *s)
{
    return scalar_i64(s, "SELECT coalesce(max(id), 0) FROM versions", -1);
}

int64_t store_max_version_upto(struct store *s, int64_t upto)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (prep(s, "SELECT coalesce(max(id), 0) FROM versions WHERE id <= ?1", &st) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, upto);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

int store_versions_above(struct store *s, int64_t above, store_version_cb cb, void *arg)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (prep(s, "SELECT " VERSION_COLS " FROM versions v WHERE v.id > ?1 ORDER BY v.id", &st) != 0)
        goto out;
    sqlite3_bind_int64(st, 1, above);
    return each_version(s, st, -1, 0, cb, arg);
out:
    sqlite3_finalize(st);
    return rc;
}

int store_deactivate(struct store *s, const char *partition, const char *interconnect)
{
    char now[ACCT_RULES_TIME_LEN + 1];
    store_now(now);
    return RUN(s,
               "UPDATE activations SET undone = 1, undone_at = ?3 WHERE partition = ?1 AND "
               "interconnect = ?2 AND undone = 0",
               VT(partition), VT(interconnect), VT(now));
}

int store_versions_since(struct store *s, int64_t since, int limit, store_version_cb cb,
                         void *arg)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (prep(s, "SELECT " VERSION_COLS ", v.rules_text FROM versions v WHERE v.id > ?1 "
                "ORDER BY v.id LIMIT ?2", &st) != 0)
        goto out;
    BIND(st, VI(since), VI(limit));
    return each_version(s, st, 9, ACTIVE_LOOKUP, cb, arg);
out:
    sqlite3_finalize(st);
    return rc;
}

int store_version_put(struct store *s, const struct store_version *v)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (prep(s, "SELECT hash FROM versions WHERE id = ?1", &st) != 0)
        goto out;
    sqlite3_bind_int64(st, 1, v->id);
    int r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
        rc = (uint64_t)sqlite3_column_int64(st, 0) == v->hash ? 1 : 2;
        goto out;
    }
    if (r != SQLITE_DONE)
        goto out;
    rc = RUN(s, "INSERT INTO versions VALUES (?1,?2,?3,?4,?5,?6,?7,?8,-1,?9,?10)", VI(v->id),
             VT(v->partition), VT(v->interconnect), VT(v->source), VT(v->created),
             VT(v->tuning_run), VI(v->parent), VT(v->reason), VI(v->hash), VT(v->rules_text));
out:
    sqlite3_finalize(st);
    return rc;
}

/* ---- retune marks (schema 2) --------------------------------------------------- */

int store_measured(struct store *s, const char *run_id, const char *collective,
                   int64_t comm_size, uint64_t lo, uint64_t hi, const char *method,
                   double *median_us)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    /* bytes are stored as signed 64-bit: clamp the upper bound */
    int64_t h = hi > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)hi;
    if (prep(s,
             "SELECT avg(median_us), count(*) FROM measurements WHERE run_id = ?1 AND "
             "collective = ?2 AND comm_size = ?3 AND bytes BETWEEN ?4 AND ?5 AND method = ?6 "
             "AND modelled = 0",
             &st) != 0)
        goto out;
    BIND(st, VT(run_id), VT(collective), VI(comm_size), VI(lo), VI(h), VT(method));
    if (sqlite3_step(st) != SQLITE_ROW)
        goto out;
    if (sqlite3_column_int64(st, 1) == 0) {
        rc = 1;
        goto out;
    }
    *median_us = sqlite3_column_double(st, 0);
    rc = 0;
out:
    sqlite3_finalize(st);
    return rc;
}

int store_retune_mark(struct store *s, const char *partition, const char *interconnect,
                      const char *collective, int64_t comm_size, int64_t bucket,
                      const char *method, const char *run_id, double measured_us,
                      double live_us, int64_t jobs, int64_t users)
{
    char now[ACCT_RULES_TIME_LEN + 1];
    store_now(now);
    return RUN(s,
               "INSERT INTO retune_marks (at, partition, interconnect, collective, comm_size, "
               "bucket, method, run_id, measured_us, live_us, jobs, users) "
               "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)",
               VT(now), VT(partition), VT(interconnect), VT(collective), VI(comm_size),
               VI(bucket), VT(method), VT(run_id), VD(measured_us), VD(live_us), VI(jobs),
               VI(users));
}

/* ---- the follower's outbox (schema 3) ------------------------------------------------ */

int store_outbox_add(struct store *s, const struct store_sample *x, long uid)
{
    return RUN(s,
               "INSERT INTO sample_outbox (job, uid, partition, interconnect, collective, "
               "comm_size, bucket, algorithm, segment, fanout, reorder, count, sum_us, sumsq_us, "
               "min_us, max_us) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16)",
               VT(x->job), VI(uid), VT(x->partition), VT(x->interconnect), VT(x->collective),
               VI(x->comm_size), VI(x->bucket), VT(x->algorithm), VI(x->segment),
               VI(x->fanout), VI(x->reorder), VI(x->count), VD(x->sum_us), VD(x->sumsq_us),
               VD(x->min_us), VD(x->max_us));
}

int store_outbox_next(struct store *s, int limit, long *uid, int64_t *last_seq, size_t *n,
                      store_sample_cb cb, void *arg)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    *n = 0;
    /* the group of the oldest row, then its rows in order */
    if (prep(s,
             "SELECT o.seq, o.job, o.uid, o.partition, o.interconnect, o.collective, "
             "o.comm_size, o.bucket, o.algorithm, o.segment, o.fanout, o.reorder, o.count, "
             "o.sum_us, o.sumsq_us, o.min_us, o.max_us FROM sample_outbox o, "
             "(SELECT job, uid, partition, interconnect FROM sample_outbox ORDER BY seq LIMIT 1) f "
             "WHERE o.job = f.job AND o.uid = f.uid AND o.partition = f.partition AND "
             "o.interconnect = f.interconnect ORDER BY o.seq LIMIT ?1",
             &st) != 0)
        goto out;
    BIND(st, VI(limit));
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        struct store_sample x = {.job = col_str(st, 1), CELL_FIELDS(st, 3)};
        if (x.job == NULL || x.partition == NULL || x.interconnect == NULL ||
            x.collective == NULL || x.algorithm == NULL)
            goto out;
        *last_seq = sqlite3_column_int64(st, 0);
        *uid = (long)sqlite3_column_int64(st, 2);
        if (cb(arg, &x) != 0)
            goto out;
        (*n)++;
    }
    rc = r == SQLITE_DONE ? 0 : -1;
out:
    sqlite3_finalize(st);
    return rc;
}

int store_outbox_done(struct store *s, const char *job, long uid, const char *partition,
                      const char *interconnect, int64_t last_seq)
{
    return RUN(s,
               "DELETE FROM sample_outbox WHERE job = ?1 AND uid = ?2 AND partition = ?3 AND "
               "interconnect = ?4 AND seq <= ?5",
               VT(job), VI(uid), VT(partition), VT(interconnect), VI(last_seq));
}
