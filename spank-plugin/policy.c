/* spank_acct's decisions: configuration, on/off, step kinds, LD_PRELOAD.
 * Pure functions; see policy.h. */
#include "policy.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "acct/common.h"
#include "acct/env.h"

/* ---- configuration ----------------------------------------------------- */

struct parse {
    int index;         /* 1-based argument number, for messages */
    const char *arg;   /* the whole argument */
    acct_spank_warn_f warn;
    void *ctx;
    int problems;
};

static void problem(struct parse *p, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void problem(struct parse *p, const char *field, const char *fmt, ...)
{
    char what[512], line[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(line, sizeof(line), "plugstack.conf argument %d (%.200s): %s%s%s", p->index,
             p->arg, field != NULL ? field : "", field != NULL ? ": " : "", what);
    if (p->warn != NULL)
        p->warn(p->ctx, line);
    p->problems++;
}

/* An absolute path without blanks, ':' or control characters (it goes into
 * LD_PRELOAD or the job's environment), shorter than ACCT_SPANK_PATH_MAX. */
static const char *path_problem(const char *v)
{
    const char *why = NULL;
    if (v[0] != '/')
        why = "must be an absolute path";
    else if (strlen(v) >= ACCT_SPANK_PATH_MAX)
        why = "path is too long";
    for (const char *c = v; why == NULL && *c != '\0'; c++) {
        if ((unsigned char)*c <= ' ' || *c == ':' || *c == 0x7f)
            why = "path may not contain blanks, ':' or control characters";
    }
    return why;
}

static void set_path(struct parse *p, const char *key, const char *v, char *dst, bool allow_empty)
{
    const char *why = NULL;
    if (!(allow_empty && v[0] == '\0'))
        why = path_problem(v);
    if (why != NULL)
        problem(p, key, "%s; keeping %s", why, dst[0] != '\0' ? dst : "none");
    else
        snprintf(dst, ACCT_SPANK_PATH_MAX, "%s", v);
}

static void set_bool(struct parse *p, const char *key, const char *v, bool *dst)
{
    bool b;
    if (acct_parse_bool(v, &b) != 0)
        problem(p, key, "expected on or off, got \"%.64s\"; keeping %s", v, *dst ? "on" : "off");
    else
        *dst = b;
}

/* Replace every $LIB and ${LIB} in src by token (ld.so's dynamic string
 * token, ld.so(8)). Returns 0, or -1 if the result does not fit. */
static int expand_lib(const char *src, const char *token, char *dst, size_t len)
{
    size_t o = 0, tl = strlen(token);
    int rc = 0;
    while (*src != '\0' && rc == 0) {
        size_t skip = 0;
        if (strncmp(src, "$LIB", 4) == 0)
            skip = 4;
        else if (strncmp(src, "${LIB}", 6) == 0)
            skip = 6;
        if (skip > 0) {
            if (o + tl >= len)
                rc = -1;
            else {
                memcpy(dst + o, token, tl);
                o += tl;
                src += skip;
            }
        } else if (o + 1 >= len) {
            rc = -1;
        } else {
            dst[o++] = *src++;
        }
    }
    dst[o < len ? o : len - 1] = '\0';
    return rc;
}

static void set_lib(struct parse *p, struct acct_spank_conf *conf, const char *v,
                    const char *token)
{
    char expanded[ACCT_SPANK_PATH_MAX];
    const char *why = path_problem(v);
    if (why == NULL && expand_lib(v, token, expanded, sizeof(expanded)) != 0)
        why = "path is too long once $LIB is expanded";
    if (why == NULL && strchr(expanded, '$') != NULL)
        why = "the only ld.so token supported is $LIB";
    if (why != NULL) {
        problem(p, "lib", "%s; keeping %s", why, conf->lib);
    } else {
        snprintf(conf->lib, sizeof(conf->lib), "%s", v);
        snprintf(conf->lib_file, sizeof(conf->lib_file), "%s", expanded);
    }
}

static void set_interconnect(struct parse *p, const char *v, char *dst)
{
    if (!acct_proto_name_ok(v, ACCT_SPANK_NAME_MAX))
        problem(p, "interconnect",
                "\"%.80s\" is not a name (1-64 of A-Z a-z 0-9 . _ + -); keeping %s", v,
                dst[0] != '\0' ? dst : "none");
    else
        snprintf(dst, ACCT_SPANK_NAME_MAX + 1, "%s", v);
}

/* The first len characters of src, cut to fit dst (size bytes). A name cut
 * here is one character too long for acct_proto_name_ok. */
static void copy_cut(char *dst, size_t size, const char *src, size_t len)
{
    size_t n = len < size - 1 ? len : size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* One PARTITION:INTERCONNECT entry of interconnect_map (number k, 1-based)
 * into *e; false (reported) if it is not one or repeats a partition of
 * map[0..n). */
static bool map_entry(struct parse *p, const char *s, size_t len, size_t k,
                      const struct acct_spank_map_entry *map, size_t n,
                      struct acct_spank_map_entry *e)
{
    const char *colon = memchr(s, ':', len);
    bool ok = false;
    if (colon == NULL) {
        problem(p, "interconnect_map", "entry %zu \"%.*s\" is not PARTITION:INTERCONNECT", k,
                (int)(len > 80 ? 80 : len), s);
        goto done;
    }
    copy_cut(e->partition, sizeof(e->partition), s, (size_t)(colon - s));
    copy_cut(e->interconnect, sizeof(e->interconnect), colon + 1, len - (size_t)(colon - s) - 1);
    if ((size_t)(colon - s) > ACCT_SPANK_NAME_MAX || !acct_proto_name_ok(e->partition, ACCT_SPANK_NAME_MAX)) {
        problem(p, "interconnect_map", "entry %zu: partition \"%.80s\" is not a name", k,
                e->partition);
        goto done;
    }
    if (len - (size_t)(colon - s) - 1 > ACCT_SPANK_NAME_MAX ||
        !acct_proto_name_ok(e->interconnect, ACCT_SPANK_NAME_MAX)) {
        problem(p, "interconnect_map", "entry %zu: interconnect \"%.80s\" is not a name", k,
                e->interconnect);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        if (strcmp(map[i].partition, e->partition) == 0) {
            problem(p, "interconnect_map", "entry %zu: partition %s listed twice", k,
                    e->partition);
            goto done;
        }
    }
    ok = true;
done:
    return ok;
}

/* interconnect_map=PART:NAME,PART:NAME,... — all or nothing: one bad entry
 * keeps the previous map. */
static void set_map(struct parse *p, struct acct_spank_conf *conf, const char *v)
{
    struct acct_spank_map_entry map[ACCT_SPANK_MAP_MAX];
    size_t n = 0;
    bool ok = true;
    for (const char *s = v; ok; s = strchr(s, ',') + 1) {
        const char *end = strchr(s, ',');
        size_t len = end != NULL ? (size_t)(end - s) : strlen(s);
        if (n == ACCT_SPANK_MAP_MAX) {
            problem(p, "interconnect_map", "more than %d entries", ACCT_SPANK_MAP_MAX);
            ok = false;
        } else if (map_entry(p, s, len, n + 1, map, n, &map[n])) {
            n++;
        } else {
            ok = false;
        }
        if (end == NULL)
            break;
    }
    if (!ok) {
        problem(p, "interconnect_map", "keeping the previous map (%zu entries)", conf->nmap);
    } else {
        memcpy(conf->map, map, n * sizeof(map[0]));
        conf->nmap = n;
    }
}

int acct_spank_conf_parse(struct acct_spank_conf *conf, int ac, char *const *av,
                          const char *lib_token, acct_spank_warn_f warn, void *ctx)
{
    struct parse p = {0, "", warn, ctx, 0};
    memset(conf, 0, sizeof(*conf));
    snprintf(conf->lib, sizeof(conf->lib), "%s", "/usr/lib/acct/libacct.so");
    snprintf(conf->lib_file, sizeof(conf->lib_file), "%s", conf->lib);
    snprintf(conf->rules_dir, sizeof(conf->rules_dir), "%s", "/run/acct/rules");
    snprintf(conf->socket, sizeof(conf->socket), "%s", "/run/acct/acctd.sock");
    snprintf(conf->killswitch, sizeof(conf->killswitch), "%s", "/run/acct/disable");
    conf->default_on = true;
    conf->batch_step = true;
    if (lib_token == NULL)
        lib_token = "lib";

    for (int i = 0; i < ac && av != NULL; i++) {
        const char *arg = av[i] != NULL ? av[i] : "";
        const char *eq = strchr(arg, '=');
        char key[32];
        p.index = i + 1;
        p.arg = arg;
        if (eq == NULL || eq == arg || (size_t)(eq - arg) >= sizeof(key)) {
            problem(&p, NULL, "expected key=value; ignored");
            continue;
        }
        snprintf(key, sizeof(key), "%.*s", (int)(eq - arg), arg);
        const char *v = eq + 1;
        if (strcmp(key, "lib") == 0)
            set_lib(&p, conf, v, lib_token);
        else if (strcmp(key, "rules_dir") == 0)
            set_path(&p, key, v, conf->rules_dir, false);
        else if (strcmp(key, "socket") == 0)
            set_path(&p, key, v, conf->socket, false);
        else if (strcmp(key, "killswitch") == 0)
            set_path(&p, key, v, conf->killswitch, true);
        else if (strcmp(key, "default") == 0)
            set_bool(&p, key, v, &conf->default_on);
        else if (strcmp(key, "batch_step") == 0)
            set_bool(&p, key, v, &conf->batch_step);
        else if (strcmp(key, "interconnect") == 0)
            set_interconnect(&p, v, conf->interconnect);
        else if (strcmp(key, "interconnect_map") == 0)
            set_map(&p, conf, v);
        else
            problem(&p, NULL,
                    "unknown key %s (known: lib, rules_dir, socket, killswitch, default, "
                    "batch_step, interconnect, interconnect_map); ignored",
                    key);
    }
    return p.problems;
}

const char *acct_spank_interconnect(const struct acct_spank_conf *conf, const char *partition)
{
    const char *name = NULL;
    for (size_t i = 0; partition != NULL && i < conf->nmap && name == NULL; i++) {
        if (strcmp(conf->map[i].partition, partition) == 0)
            name = conf->map[i].interconnect;
    }
    if (name == NULL && conf->interconnect[0] != '\0')
        name = conf->interconnect;
    return name;
}

/* ---- on or off --------------------------------------------------------- */

/* 1 = on, 0 = off, -1 = not a boolean, -2 = unset. */
static int tri(const char *v)
{
    bool b;
    if (v == NULL || v[0] == '\0')
        return -2;
    if (acct_parse_bool(v, &b) != 0)
        return -1;
    return b ? 1 : 0;
}

struct acct_spank_choice acct_spank_choose(const char *option, const char *env_disable,
                                           const char *env_acct, bool default_on)
{
    struct acct_spank_choice c = {default_on, ACCT_SPANK_BY_DEFAULT,
                                  default_on ? "on by default" : "off by default", false};
    int opt = tri(option), dis = tri(env_disable), acc = tri(env_acct);

    if (opt >= 0) {
        c.on = opt == 1;
        c.source = ACCT_SPANK_BY_OPTION;
        c.why = c.on ? "--acct=on" : "--acct=off";
    } else {
        c.invalid = opt == -1;
        /* The same order as acct_env_state(): ACCT_DISABLE first. */
        if (dis == 1 || dis == -1) {
            c.on = false;
            c.source = ACCT_SPANK_BY_ENV;
            c.why = dis == 1 ? "ACCT_DISABLE is set" : "ACCT_DISABLE is not a boolean";
            c.invalid = c.invalid || dis == -1;
        } else if (acc == 0 || acc == -1) {
            c.on = false;
            c.source = ACCT_SPANK_BY_ENV;
            c.why = acc == 0 ? "ACCT=off is set" : "ACCT is not on/off";
            c.invalid = c.invalid || acc == -1;
        } else if (dis == 0 || acc == 1) {
            c.on = true;
            c.source = ACCT_SPANK_BY_ENV;
            c.why = acc == 1 ? "ACCT=on is set" : "ACCT_DISABLE=0 is set";
        }
    }
    return c;
}

/* ---- steps ------------------------------------------------------------- */

enum acct_spank_step acct_spank_step_kind(uint32_t stepid)
{
    enum acct_spank_step k = ACCT_SPANK_STEP_OTHER;
    if (stepid <= ACCT_SPANK_STEPID_MAX_NORMAL)
        k = ACCT_SPANK_STEP_NORMAL;
    else if (stepid == ACCT_SPANK_STEPID_BATCH)
        k = ACCT_SPANK_STEP_BATCH;
    else if (stepid == ACCT_SPANK_STEPID_EXTERN)
        k = ACCT_SPANK_STEP_EXTERN;
    else if (stepid == ACCT_SPANK_STEPID_INTERACTIVE)
        k = ACCT_SPANK_STEP_INTERACTIVE;
    return k;
}

const char *acct_spank_step_name(enum acct_spank_step kind)
{
    static const char *const names[] = {
        [ACCT_SPANK_STEP_NORMAL] = "normal",
        [ACCT_SPANK_STEP_BATCH] = "batch",
        [ACCT_SPANK_STEP_EXTERN] = "extern",
        [ACCT_SPANK_STEP_INTERACTIVE] = "interactive",
        [ACCT_SPANK_STEP_OTHER] = "special",
    };
    return (unsigned)kind < ACCT_ARRAY_LEN(names) ? names[kind] : "?";
}

/* ---- LD_PRELOAD -------------------------------------------------------- */

static const char *file_name(const char *path, size_t len, size_t *name_len)
{
    size_t i = len;
    while (i > 0 && path[i - 1] != '/')
        i--;
    *name_len = len - i;
    return path + i;
}

static bool is_sep(char c)
{
    return c == ' ' || c == ':' || c == '\t';
}

enum acct_spank_preload acct_spank_preload(const char *existing, const char *lib, char *out,
                                           size_t len)
{
    enum acct_spank_preload rc = ACCT_SPANK_PRELOAD_ADDED;
    size_t lib_len = strlen(lib), lib_name_len;
    const char *lib_name = file_name(lib, lib_len, &lib_name_len);
    const char *s = existing != NULL ? existing : "";

    /* Is lib, or a file of the same name, already listed? */
    for (const char *e = s; *e != '\0' && rc == ACCT_SPANK_PRELOAD_ADDED;) {
        while (is_sep(*e))
            e++;
        size_t n = 0;
        while (e[n] != '\0' && !is_sep(e[n]))
            n++;
        size_t nl;
        const char *nm = file_name(e, n, &nl);
        if (n > 0 && ((n == lib_len && memcmp(e, lib, n) == 0) ||
                      (nl == lib_name_len && lib_name_len > 0 &&
                       memcmp(nm, lib_name, nl) == 0)))
            rc = ACCT_SPANK_PRELOAD_PRESENT;
        e += n;
    }
    if (rc == ACCT_SPANK_PRELOAD_ADDED) {
        while (is_sep(*s))
            s++;
        int k = snprintf(out, len, "%s%s%s", lib, *s != '\0' ? ":" : "", s);
        if (k < 0 || (size_t)k >= len)
            rc = ACCT_SPANK_PRELOAD_TOO_LONG;
    }
    if (rc != ACCT_SPANK_PRELOAD_ADDED && len > 0)
        out[0] = '\0';
    return rc;
}
