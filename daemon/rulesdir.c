/* The active rules: an in-memory cache (GET_RULES answers from it) and the
 * materialised files rules_dir/PARTITION/INTERCONNECT.yaml that spank_acct
 * points jobs at (docs/files.md). Each file is written to a temporary name,
 * fsync'ed, renamed over the old one and the directory fsync'ed, so a reader
 * sees the old or the new file, never a part. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acctd.h"

/* The longest wait between two tries to write a rules file that failed. */
#define RULES_RETRY_MAX_S 30

static void free_pairs(struct pair_entry *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].text);
    free(v);
}

void rulesdir_fini(struct acctd *d)
{
    free_pairs(d->pairs, d->npairs);
    d->pairs = NULL;
    d->npairs = 0;
}

const struct pair_entry *rulesdir_find(const struct acctd *d, const char *partition,
                                       const char *interconnect)
{
    for (size_t i = 0; i < d->npairs; i++)
        if (strcmp(d->pairs[i].partition, partition) == 0 &&
            strcmp(d->pairs[i].interconnect, interconnect) == 0)
            return &d->pairs[i];
    return NULL;
}

struct collect {
    struct pair_entry *v;
    size_t n;
};

static int collect_pair(void *arg, const struct store_version *v, int64_t nversions)
{
    struct collect *c = arg;
    (void)nversions;
    if (!acct_proto_name_ok(v->partition, ACCT_RULES_NAME_MAX) ||
        !acct_proto_name_ok(v->interconnect, ACCT_RULES_NAME_MAX)) {
        LOG_E("store holds an invalid pair name; skipping version %lld", (long long)v->id);
        return 0;
    }
    struct pair_entry *n = realloc(c->v, (c->n + 1) * sizeof(*n));
    if (n == NULL)
        return -1;
    c->v = n;
    struct pair_entry *e = &c->v[c->n];
    memset(e, 0, sizeof(*e));
    snprintf(e->partition, sizeof(e->partition), "%s", v->partition);
    snprintf(e->interconnect, sizeof(e->interconnect), "%s", v->interconnect);
    e->version = v->id;
    e->hash = v->hash;
    e->text = strdup(v->rules_text);
    if (e->text == NULL)
        return -1;
    e->len = strlen(e->text);
    c->n++;
    return 0;
}

/* The policy's exploration (docs/acctd.md, "Policies": refine.explore)
 * goes into the materialised file, not into the stored version: the
 * version stays as written (immutable, traceable), and the file jobs read
 * is that version plus `options: {explore: F, explore_seed: VERSION}`. A
 * version that sets options.explore itself keeps its own value. The text
 * is rewritten in canonical form; the cache's hash follows the text. A
 * text that does not parse is materialised as it is. */
static void add_exploration(struct acctd *d, struct pair_entry *e)
{
    struct policy pol = *policy_for(&d->policies, e->partition);
    struct acct_diags dg = ACCT_DIAGS_INIT;
    struct acct_rules *r = NULL;
    char *ptext = NULL, *buf = NULL;
    size_t len = 0;
    FILE *f = NULL;

    if (store_policy_get(d->store, e->partition, &ptext) == 0) {
        struct policy o = pol;
        if (policy_parse("store", ptext, strlen(ptext), &o, &dg) == 0)
            pol = o;
    }
    if (!(pol.explore > 0) ||
        acct_rules_parse_buffer("active", e->text, e->len, &r, &dg) != ACCT_RULES_OK ||
        r->opts.explore > 0)
        goto out;
    r->opts.explore = pol.explore;
    if (r->opts.explore_seed == 0)
        r->opts.explore_seed = (uint64_t)e->version;
    f = open_memstream(&buf, &len);
    if (f == NULL || acct_rules_write(f, r) != 0) {
        LOG_E("cannot add exploration to version %lld; materialised as stored",
              (long long)e->version);
        goto out;
    }
    fclose(f);
    f = NULL;
    free(e->text);
    e->text = buf;
    e->len = len;
    e->hash = acct_rules_hash(buf, len);
    buf = NULL;
    LOG_D("version %lld of (%s, %s): exploration %g from policy %s", (long long)e->version,
          e->partition, e->interconnect, pol.explore, pol.name);
out:
    if (f != NULL)
        fclose(f);
    free(buf);
    free(ptext);
    acct_rules_free(r);
    acct_diags_free(&dg);
}

static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = -1;
    if (fd >= 0) {
        rc = fsync(fd);
        close(fd);
    }
    return rc;
}

int rulesdir_write_file(const char *dir, const char *name, const char *text, size_t len)
{
    char tmp[ACCTD_PATH_MAX + 160], path[ACCTD_PATH_MAX + 160];
    int fd = -1, rc = -1;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, name);
    fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        LOG_E("cannot create a file in %s: %s", dir, strerror(errno));
        goto out;
    }
    for (size_t off = 0; off < len;) {
        ssize_t n = write(fd, text + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            LOG_E("write %s: %s", tmp, strerror(errno));
            goto out;
        }
        off += (size_t)n;
    }
    if (fchmod(fd, 0644) != 0 || fsync(fd) != 0) {
        LOG_E("fsync %s: %s", tmp, strerror(errno));
        goto out;
    }
    if (close(fd) != 0) {
        fd = -1;
        LOG_E("close %s: %s", tmp, strerror(errno));
        goto out;
    }
    fd = -1;
    if (rename(tmp, path) != 0) {
        LOG_E("rename %s: %s", path, strerror(errno));
        goto out;
    }
    tmp[0] = '\0';
    if (fsync_dir(dir) != 0) {
        LOG_E("fsync %s: %s", dir, strerror(errno));
        goto out;
    }
    rc = 0;
out:;
    int err = errno; /* the failed step's, for the caller */
    if (fd >= 0)
        close(fd);
    if (tmp[0] != '\0')
        unlink(tmp);
    errno = err;
    return rc;
}

/* Same bytes already there? */
static bool same_file(const char *path, const char *text, size_t len)
{
    struct stat st;
    bool same = false;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != len)
        return false;
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return false;
    char *buf = malloc(len + 1);
    if (buf != NULL && fread(buf, 1, len + 1, f) == len)
        same = memcmp(buf, text, len) == 0;
    free(buf);
    fclose(f);
    return same;
}

/* Remove rules files (and emptied partition directories) that no active
 * pair owns. Only names that could be ours are touched. */
static void remove_stale(const struct acctd *d)
{
    DIR *top = opendir(d->cfg.rules_dir);
    struct dirent *pe;
    while (top != NULL && (pe = readdir(top)) != NULL) {
        if (!acct_proto_name_ok(pe->d_name, ACCT_RULES_NAME_MAX))
            continue;
        char pdir[ACCTD_PATH_MAX + 80];
        snprintf(pdir, sizeof(pdir), "%s/%.64s", d->cfg.rules_dir, pe->d_name);
        DIR *sub = opendir(pdir);
        struct dirent *ie;
        bool removed = false;
        while (sub != NULL && (ie = readdir(sub)) != NULL) {
            size_t l = strlen(ie->d_name);
            if (l < 6 || strcmp(ie->d_name + l - 5, ".yaml") != 0 ||
                l - 5 > ACCT_RULES_NAME_MAX)
                continue;
            char inter[ACCT_RULES_NAME_MAX + 1];
            memcpy(inter, ie->d_name, l - 5);
            inter[l - 5] = '\0';
            if (!acct_proto_name_ok(inter, ACCT_RULES_NAME_MAX) ||
                rulesdir_find(d, pe->d_name, inter) != NULL)
                continue;
            char path[ACCTD_PATH_MAX + 400];
            snprintf(path, sizeof(path), "%s/%.70s", pdir, ie->d_name);
            if (unlink(path) == 0) {
                LOG_I("removed %s: no active version of (%s, %s)", path, pe->d_name, inter);
                removed = true;
            }
        }
        if (sub != NULL)
            closedir(sub);
        if (removed) {
            fsync_dir(pdir);
            if (rmdir(pdir) == 0) /* fails while other files remain: fine */
                fsync_dir(d->cfg.rules_dir);
        }
    }
    if (top != NULL)
        closedir(top);
}

/* A pair whose file could not be written keeps its cache entry (GET_RULES
 * serves the new version) and is counted; rulesdir_poll retries. */
static void unwritten(struct acctd *d, struct pair_entry *e, const char *what, const char *path,
                      int err)
{
    snprintf(e->why, sizeof(e->why), "%s %s: %s", what, path, strerror(err));
    e->unwritten = true;
    d->rules_unwritten++;
}

/* Retry after 1, 2, 4, ... RULES_RETRY_MAX_S seconds while something failed. */
static void schedule_retry(struct acctd *d, bool failed)
{
    if (!failed) {
        if (d->rules_backoff_s > 0)
            LOG_I("rules files in %s: all written again", d->cfg.rules_dir);
        d->rules_backoff_s = 0;
        d->rules_retry_at = 0;
        return;
    }
    d->rules_backoff_s = d->rules_backoff_s == 0 ? 1 : d->rules_backoff_s * 2;
    if (d->rules_backoff_s > RULES_RETRY_MAX_S)
        d->rules_backoff_s = RULES_RETRY_MAX_S;
    d->rules_retry_at = time(NULL) + d->rules_backoff_s;
    LOG_W("rules files in %s: %zu not written%s; retrying in %d s", d->cfg.rules_dir,
          d->rules_unwritten, d->rules_error[0] ? ", active versions not read" : "",
          d->rules_backoff_s);
}

void rulesdir_poll(struct acctd *d, time_t now)
{
    if (d->rules_retry_at != 0 && now >= d->rules_retry_at)
        d->rules_dirty = true;
}

int rulesdir_sync(struct acctd *d)
{
    struct collect c = {0};
    int rc = -1;
    d->rules_unwritten = 0;
    if (store_pairs(d->store, true, collect_pair, &c) != 0) {
        snprintf(d->rules_error, sizeof(d->rules_error),
                 "cannot read the active versions: %s", store_errmsg(d->store));
        LOG_E("%s", d->rules_error);
        free_pairs(c.v, c.n);
        /* the old entries stay; their files are as they were */
        for (size_t i = 0; i < d->npairs; i++)
            d->rules_unwritten += d->pairs[i].unwritten;
        goto out;
    }
    d->rules_error[0] = '\0';
    free_pairs(d->pairs, d->npairs);
    d->pairs = c.v;
    d->npairs = c.n;
    for (size_t i = 0; i < d->npairs; i++)
        add_exploration(d, &d->pairs[i]);
    rc = 0;
    /* a failure here shows again, per pair, below */
    if (acctd_mkdir_p(d->cfg.rules_dir, 0755) != 0)
        LOG_E("cannot create %s: %s", d->cfg.rules_dir, strerror(errno));
    for (size_t i = 0; i < d->npairs; i++) {
        struct pair_entry *e = &d->pairs[i];
        char dir[ACCTD_PATH_MAX + 80], name[ACCT_RULES_NAME_MAX + 8], path[ACCTD_PATH_MAX + 160];
        snprintf(dir, sizeof(dir), "%s/%s", d->cfg.rules_dir, e->partition);
        snprintf(name, sizeof(name), "%s.yaml", e->interconnect);
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        if (same_file(path, e->text, e->len))
            continue;
        if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
            LOG_E("cannot create %s: %s", dir, strerror(errno));
            unwritten(d, e, "cannot create", dir, errno);
            continue;
        }
        if (rulesdir_write_file(dir, name, e->text, e->len) != 0) {
            unwritten(d, e, "cannot write", path, errno);
            continue;
        }
        LOG_I("materialised %s (version %lld)", path, (long long)e->version);
    }
    remove_stale(d);
out:
    schedule_retry(d, rc != 0 || d->rules_unwritten > 0);
    return rc;
}

void rulesdir_pair_warning(const struct acctd *d, const char *partition,
                           const char *interconnect, char *warning, size_t cap)
{
    warning[0] = '\0';
    const struct pair_entry *e = rulesdir_find(d, partition, interconnect);
    if (d->rules_error[0] != '\0')
        snprintf(warning, cap, "the rules file of (%s, %s) is not rewritten: %s; acctd retries",
                 partition, interconnect, d->rules_error);
    else if (e != NULL && e->unwritten)
        snprintf(warning, cap,
                 "the rules file of (%s, %s) is not written: %s; jobs starting now still read "
                 "the old one (or none); acctd retries (acctctl status shows it)",
                 partition, interconnect, e->why);
}

void rulesdir_put_status(const struct acctd *d, struct acct_wbuf *out)
{
    time_t now = time(NULL);
    long long in = d->rules_retry_at > now ? (long long)(d->rules_retry_at - now) : 0;
    char line[sizeof(d->pairs->why) + sizeof(d->rules_error) + 2 * ACCT_RULES_NAME_MAX + 200];
    acct_put_u64(out, ACCT_T_RULES_PENDING, d->rules_unwritten);
    if (d->rules_error[0] != '\0') {
        snprintf(line, sizeof(line), "rules files: %s; next try in %lld s", d->rules_error, in);
        acct_put_str(out, ACCT_T_WARNING, line);
    }
    for (size_t i = 0; i < d->npairs; i++) {
        const struct pair_entry *e = &d->pairs[i];
        if (!e->unwritten)
            continue;
        snprintf(line, sizeof(line),
                 "rules file of (%s, %s) version %lld not written: %s; next try in %lld s",
                 e->partition, e->interconnect, (long long)e->version, e->why, in);
        acct_put_str(out, ACCT_T_WARNING, line);
    }
}
