/* acctd's configuration (docs/acctd.md, "Configuration"): one table of keys
 * drives the defaults' documentation, the file reader and the command line. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acct/common.h"
#include "acct/log.h"
#include "yamltree.h"

enum key_type { K_PATH, K_STR, K_INT, K_MODE, K_LEVEL };

struct key {
    const char *name;  /* in the file; the long option is the same with '-' */
    enum key_type type;
    size_t off, size;  /* field in struct acctd_config */
    long long min, max;
    int opt;           /* getopt value */
};

#define F(field) offsetof(struct acctd_config, field), sizeof(((struct acctd_config *)0)->field)

static const struct key keys[] = {
    {"state_dir", K_PATH, F(state_dir), 0, 0, 1000},
    {"runtime_dir", K_PATH, F(runtime_dir), 0, 0, 1001},
    {"database", K_PATH, F(database), 0, 0, 1002},
    {"socket", K_PATH, F(socket), 0, 0, 1003},
    {"rules_dir", K_PATH, F(rules_dir), 0, 0, 1004},
    {"policy_dir", K_PATH, F(policy_dir), 0, 0, 1005},
    {"admin_group", K_STR, F(admin_group), 0, 0, 1006},
    {"socket_mode", K_MODE, F(socket_mode), 0, 0777, 1007},
    {"log_level", K_LEVEL, F(log_level), 0, 0, 1008},
    {"max_clients", K_INT, F(max_clients), 1, 65536, 1009},
    {"client_timeout", K_INT, F(client_timeout_s), 1, 3600, 1010},
    {"refine_interval", K_INT, F(refine_interval_s), 0, 7 * 86400, 1011},
    {"samples_per_job", K_INT, F(samples_per_job), 1, 100000000, 1012},
    {"samples_per_user_hour", K_INT, F(samples_per_user_hour), 1, 1000000000, 1013},
    {"sample_max_age_days", K_INT, F(sample_max_age_days), 1, 3650, 1014},
    {"node", K_STR, F(node), 0, 0, 1015},
    {"primary", K_STR, F(primary), 0, 0, 1016},
    {"listen", K_STR, F(listen), 0, 0, 1017},
    {"sync_interval", K_INT, F(sync_interval_s), 1, 3600, 1018},
    {"munge_socket", K_PATH, F(munge_socket), 0, 0, 1019},
    {"max_comm_size", K_INT, F(max_comm_size), 1, 2147483647LL, 1030},
    {"max_registered_steps", K_INT, F(max_registered_steps), 16, 10000000, 1031},
    {"registered_step_lifetime", K_INT, F(registered_step_lifetime_s), 60, 366LL * 86400, 1032},
    {"reserved_clients", K_INT, F(reserved_clients), 0, 65535, 1040},
    {"idle_timeout", K_INT, F(idle_timeout_s), 1, 86400, 1041},
    {"auth_timeout", K_INT, F(auth_timeout_s), 1, 3600, 1042},
    {"tcp_per_address", K_INT, F(tcp_per_address), 1, 65536, 1043},
    {"sample_rows_per_user", K_INT, F(sample_rows_per_user), 1, 1000000000, 1044},
    {"max_store_mb", K_INT, F(max_store_mb), 1, 16 * 1024 * 1024, 1045},
};

static const char *const level_names[] = {"error", "warn", "info", "debug"};

void acctd_config_defaults(struct acctd_config *c)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->config_file, sizeof(c->config_file), "%s", ACCTD_DEFAULT_CONFIG);
    snprintf(c->state_dir, sizeof(c->state_dir), "/var/lib/acct");
    snprintf(c->runtime_dir, sizeof(c->runtime_dir), "/run/acct");
    snprintf(c->policy_dir, sizeof(c->policy_dir), "/etc/acct/policies");
    c->admin_gid = (gid_t)-1;
    c->socket_mode = 0666;
    c->log_level = ACCT_LOG_INFO;
    c->max_clients = 256;
    c->client_timeout_s = 10;
    c->reserved_clients = -1;
    c->idle_timeout_s = 60;
    c->auth_timeout_s = 5;
    c->tcp_per_address = 4;
    c->sample_rows_per_user = 1000000;
    c->max_store_mb = 8192;
    c->refine_interval_s = 300;
    c->samples_per_job = 100000;
    c->samples_per_user_hour = 1000000;
    c->sample_max_age_days = 90;
    c->sync_interval_s = 5;
    c->max_comm_size = 16777216;
    c->max_registered_steps = 100000;
    c->registered_step_lifetime_s = 30LL * 86400;
}

/* Store text into key k of c. -1 with the problem in why (for field
 * k->name). */
static int set_key(struct acctd_config *c, const struct key *k, const char *text, char *why,
                   size_t cap)
{
    char *field = (char *)c + k->off;
    int rc = -1;
    switch (k->type) {
    case K_PATH:
    case K_STR:
        if (strlen(text) >= k->size) {
            snprintf(why, cap, "longer than %zu characters", k->size - 1);
            goto out;
        }
        if (k->type == K_PATH && text[0] != '/') {
            snprintf(why, cap, "\"%.64s\" is not an absolute path", text);
            goto out;
        }
        memcpy(field, text, strlen(text) + 1);
        break;
    case K_INT: {
        char *end;
        errno = 0;
        long long v = strtoll(text, &end, 10);
        if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno == ERANGE) {
            snprintf(why, cap, "\"%.64s\" is not a non-negative integer", text);
            goto out;
        }
        if (v < k->min || v > k->max) {
            snprintf(why, cap, "%lld is out of range (%lld to %lld)", v, k->min, k->max);
            goto out;
        }
        memcpy(field, &v, sizeof(v));
        break;
    }
    case K_MODE: {
        char *end;
        unsigned long v = strtoul(text, &end, 8);
        if (text[0] != '0' || *end != '\0' || v > 0777 || strlen(text) > 4) {
            snprintf(why, cap, "\"%.64s\" is not an octal mode such as 0660 (quote it in YAML)",
                     text);
            goto out;
        }
        unsigned u = (unsigned)v;
        memcpy(field, &u, sizeof(u));
        break;
    }
    case K_LEVEL: {
        int lv = -1;
        for (int i = 0; i < (int)ACCT_ARRAY_LEN(level_names); i++)
            if (strcmp(text, level_names[i]) == 0)
                lv = i;
        if (lv < 0) {
            snprintf(why, cap, "unknown level \"%.64s\" (valid: error, warn, info, debug)",
                     text);
            goto out;
        }
        memcpy(field, &lv, sizeof(lv));
        break;
    }
    }
    rc = 0;
out:
    return rc;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: acctd [-f] [-t] [-c FILE] [--KEY VALUE]...\n"
               "  -c, --config FILE   configuration file (default " ACCTD_DEFAULT_CONFIG ")\n"
               "  -f, --foreground    run in the foreground (acctd never forks; accepted)\n"
               "  -t, --check-config  check the configuration and exit\n"
               "  -V, --version       print the version\n"
               "  -h, --help          this help\n"
               "Every configuration key can be given as an option, overriding the file:\n");
    for (size_t i = 0; i < ACCT_ARRAY_LEN(keys); i++) {
        char opt[64];
        snprintf(opt, sizeof(opt), "%s", keys[i].name);
        for (char *p = opt; *p; p++)
            if (*p == '_')
                *p = '-';
        fprintf(f, "  --%s VALUE\n", opt);
    }
    fprintf(f, "See acctd(8): docs/acctd.md.\n");
}

int acctd_config_cmdline(struct acctd_config *c, int argc, char **argv)
{
    struct option opts[ACCT_ARRAY_LEN(keys) + 6];
    static char names[ACCT_ARRAY_LEN(keys)][64];
    size_t n = 0;
    int rc = -1;
    opts[n++] = (struct option){"config", required_argument, NULL, 'c'};
    opts[n++] = (struct option){"foreground", no_argument, NULL, 'f'};
    opts[n++] = (struct option){"check-config", no_argument, NULL, 't'};
    opts[n++] = (struct option){"version", no_argument, NULL, 'V'};
    opts[n++] = (struct option){"help", no_argument, NULL, 'h'};
    for (size_t i = 0; i < ACCT_ARRAY_LEN(keys); i++) {
        snprintf(names[i], sizeof(names[i]), "%s", keys[i].name);
        for (char *p = names[i]; *p; p++)
            if (*p == '_')
                *p = '-';
        opts[n++] = (struct option){names[i], required_argument, NULL, keys[i].opt};
    }
    opts[n] = (struct option){NULL, 0, NULL, 0};
    struct acct_diags d = ACCT_DIAGS_INIT;
    acct_diags_reset(&d, "acctd");
    optind = 0; /* GNU getopt: full re-initialisation (reload parses again) */
    for (;;) {
        int o = getopt_long(argc, argv, "c:ftVh", opts, NULL);
        if (o == -1)
            break;
        switch (o) {
        case 'c':
            if (strlen(optarg) >= sizeof(c->config_file)) {
                fprintf(stderr, "acctd: --config: path too long\n");
                goto out;
            }
            snprintf(c->config_file, sizeof(c->config_file), "%s", optarg);
            c->config_given = true;
            break;
        case 'f':
            c->foreground = true;
            break;
        case 't':
            c->check_only = true;
            break;
        case 'V':
            printf("acctd %s\n", ACCT_VERSION_STRING);
            rc = 1;
            goto out;
        case 'h':
            usage(stdout);
            rc = 1;
            goto out;
        default: {
            const struct key *k = NULL;
            for (size_t i = 0; i < ACCT_ARRAY_LEN(keys); i++)
                if (keys[i].opt == o)
                    k = &keys[i];
            if (k == NULL) {
                usage(stderr);
                goto out;
            }
            char why[ACCT_DIAG_MSG_MAX];
            if (set_key(c, k, optarg, why, sizeof(why)) != 0) {
                acct_diags_add(&d, 0, 0, k->name, "%s", why);
                acct_diags_print(&d, stderr);
                goto out;
            }
            c->cli_set |= 1ull << (k - keys);
        }
        }
    }
    if (optind < argc) {
        fprintf(stderr, "acctd: unexpected argument \"%s\"\n", argv[optind]);
        usage(stderr);
        goto out;
    }
    rc = 0;
out:
    acct_diags_free(&d);
    return rc;
}

/* The key of keys[] named by the scalar kn, or NULL. */
static const struct key *find_key(const struct ynode *kn)
{
    for (size_t i = 0; kn->kind == Y_SCALAR && i < ACCT_ARRAY_LEN(keys); i++)
        if (strcmp(keys[i].name, kn->s) == 0)
            return &keys[i];
    return NULL;
}

/* The walk of an acctd.yaml: known keys, at most once (reported by
 * acct_yt_walk_map), each a single value. Every value is checked, a
 * duplicate's too; the command line's keys are checked but not taken. */
static void walk_config(struct yt_parse *p, const struct ynode *root, void *arg)
{
    struct acctd_config *c = arg;
    struct yt_key defs[ACCT_ARRAY_LEN(keys)];
    const struct ynode *vals[ACCT_ARRAY_LEN(keys)], *names[ACCT_ARRAY_LEN(keys)];
    for (size_t i = 0; i < ACCT_ARRAY_LEN(keys); i++)
        defs[i] = (struct yt_key){keys[i].name, false};
    if (!acct_yt_walk_map(p, root, "", "key", defs, ACCT_ARRAY_LEN(keys), vals, names))
        return;
    for (const struct ynode *kn = root->first; kn != NULL && kn->next != NULL;
         kn = kn->next->next) {
        const struct ynode *v = kn->next;
        const struct key *k = find_key(kn);
        char why[ACCT_DIAG_MSG_MAX];
        if (k == NULL)
            continue; /* reported by the walk */
        if (v->kind != Y_SCALAR)
            YT_ERR_AT(p, v, k->name, "expected a single value");
        else if (k->type == K_INT && !v->plain)
            YT_ERR_AT(p, v, k->name, "expected an integer, not a quoted string");
        else if (!(c->cli_set & (1ull << (k - keys))) &&
                 set_key(c, k, v->s, why, sizeof(why)) != 0)
            YT_ERR_AT(p, v, k->name, "%s", why); /* else the command line wins */
    }
}

static const struct acct_yt_doc config_doc = {
    .doc = "configuration file", .docs = "configuration files",
    .nothing = "no configuration given", .walk = walk_config, ACCTD_YAML_DOC};

/* Parse from the file name (from_file) or from buf. */
static int parse(struct acctd_config *c, bool from_file, const char *name, const char *buf,
                 size_t len, struct acct_diags *d)
{
    uint64_t hash;
    return acct_yt_parse(&config_doc, from_file, name, buf, len, true, d, c, &hash) ==
                   ACCT_RULES_OK
               ? 0
               : -1;
}

int acctd_config_parse(struct acctd_config *c, const char *name, const char *buf, size_t len,
                       struct acct_diags *d)
{
    return parse(c, false, name, buf, len, d);
}

int acctd_config_file(struct acctd_config *c, struct acct_diags *d)
{
    acct_diags_reset(d, c->config_file);
    if (!c->config_given && access(c->config_file, F_OK) != 0 && errno == ENOENT)
        return 0; /* no file: defaults */
    return parse(c, true, c->config_file, NULL, 0, d);
}

int acctd_config_validate(struct acctd_config *c, struct acct_diags *d)
{
    int n;
    if (c->database[0] == '\0') {
        n = snprintf(c->database, sizeof(c->database), "%s/acct.db", c->state_dir);
        if (n < 0 || (size_t)n >= sizeof(c->database))
            acct_diags_add(d, 0, 0, "database", "state_dir is too long");
    }
    if (c->socket[0] == '\0') {
        n = snprintf(c->socket, sizeof(c->socket), "%s/acctd.sock", c->runtime_dir);
        if (n < 0 || (size_t)n >= sizeof(c->socket))
            acct_diags_add(d, 0, 0, "socket",
                           "runtime_dir is too long for a socket path (at most 107 bytes)");
    }
    if (c->rules_dir[0] == '\0') {
        n = snprintf(c->rules_dir, sizeof(c->rules_dir), "%s/rules", c->runtime_dir);
        if (n < 0 || (size_t)n >= sizeof(c->rules_dir))
            acct_diags_add(d, 0, 0, "rules_dir", "runtime_dir is too long");
    }
    c->admin_gid = (gid_t)-1;
    if (c->admin_group[0] != '\0') {
        char *end;
        unsigned long g = strtoul(c->admin_group, &end, 10);
        if (c->admin_group[0] >= '0' && c->admin_group[0] <= '9' && *end == '\0' &&
            g < (unsigned long)(gid_t)-1) {
            c->admin_gid = (gid_t)g;
        } else {
            struct group *gr = getgrnam(c->admin_group);
            if (gr == NULL)
                acct_diags_add(d, 0, 0, "admin_group", "no such group \"%.64s\"", c->admin_group);
            else
                c->admin_gid = gr->gr_gid;
        }
    }
    const char *hp[] = {c->primary, c->listen};
    const char *hn[] = {"primary", "listen"};
    for (int i = 0; i < 2; i++) {
        const char *colon = strrchr(hp[i], ':');
        char *end;
        if (hp[i][0] == '\0')
            continue;
        unsigned long port = colon ? strtoul(colon + 1, &end, 10) : 0;
        if (colon == NULL || colon == hp[i] || colon[1] == '\0' || *end != '\0' || port < 1 ||
            port > 65535)
            acct_diags_add(d, 0, 0, hn[i], "\"%.64s\" is not HOST:PORT (port 1 to 65535)",
                           hp[i]);
    }
    if (c->primary[0] != '\0' && c->listen[0] != '\0')
        acct_diags_add(d, 0, 0, "listen", "a follower (primary is set) does not listen on TCP");
    /* root and the admin group always find a free slot (docs/acctd.md, "Limits") */
    if (c->reserved_clients < 0)
        c->reserved_clients = c->max_clients > 1 ? (c->max_clients / 8 > 0 ? c->max_clients / 8 : 1)
                                                 : 0;
    else if (c->reserved_clients >= c->max_clients)
        acct_diags_add(d, 0, 0, "reserved_clients",
                       "%lld leaves no connection for users (max_clients is %lld)",
                       c->reserved_clients, c->max_clients);
    if (c->node[0] == '\0' && gethostname(c->node, sizeof(c->node) - 1) != 0)
        snprintf(c->node, sizeof(c->node), "unknown");
    return d->total == 0 ? 0 : -1;
}
