/* acctd's configuration: defaults -> command line -> file -> validate
 * (docs/acctd.md, "Configuration"). */
#ifndef ACCTD_CONFIG_H
#define ACCTD_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "acct/rules.h"

#define ACCTD_PATH_MAX 4096
#define ACCTD_DEFAULT_CONFIG "/etc/acct/acctd.yaml"
/* acctd's own YAML files (acctd.yaml, policies) are small and hand-written:
 * the struct acct_yt_doc fields (yamltree.h) they share. Empty is fine (an
 * empty mapping), the last newline optional. */
#define ACCTD_YAML_MAX_BYTES (256u * 1024)
#define ACCTD_YAML_MAX_NODES 10000
#define ACCTD_YAML_DOC                                                                     \
    .limit = ACCTD_YAML_MAX_BYTES, .max_nodes = ACCTD_YAML_MAX_NODES, .empty_is_map = true, \
    .newline_optional = true

struct acctd_config {
    char config_file[ACCTD_PATH_MAX];
    bool config_given;  /* -c was used: a missing file is an error */
    char state_dir[ACCTD_PATH_MAX];
    char runtime_dir[ACCTD_PATH_MAX];
    char database[ACCTD_PATH_MAX];   /* "" = state_dir/acct.db */
    char socket[108];                /* "" = runtime_dir/acctd.sock */
    char rules_dir[ACCTD_PATH_MAX];  /* "" = runtime_dir/rules */
    char policy_dir[ACCTD_PATH_MAX];
    char admin_group[64];            /* name or number; "" = root only */
    gid_t admin_gid;                 /* resolved; (gid_t)-1 = none */
    unsigned socket_mode;
    int log_level;                   /* enum acct_log_level */
    long long max_clients;
    long long client_timeout_s;
    long long reserved_clients;      /* of max_clients, for root/admin only; -1 = derived */
    long long idle_timeout_s;        /* a connection with nothing pending is closed */
    long long auth_timeout_s;        /* a TCP peer must AUTH within this */
    long long tcp_per_address;       /* TCP connections of one source address */
    long long sample_rows_per_user;  /* sample_stats rows one uid may hold */
    long long max_store_mb;          /* no new sample rows beyond this store size */
    long long refine_interval_s;     /* 0 = only on REFINE requests */
    long long samples_per_job;       /* SAMPLE records stored per job */
    long long samples_per_user_hour; /* SAMPLE records per user per hour */
    long long sample_max_age_days;   /* older statistics are pruned */
    char node[65];                   /* node name ("" = hostname) */
    char primary[256];               /* "HOST:PORT" of the primary: this node follows it */
    char listen[256];                /* "ADDR:PORT": accept munge-authenticated TCP */
    long long sync_interval_s;       /* follower: seconds between SYNCs */
    char munge_socket[ACCTD_PATH_MAX]; /* "" = libmunge's default */
    long long max_comm_size;         /* SAMPLES: largest COMM_SIZE (the cluster's ranks) */
    long long max_registered_steps;  /* STEP registrations kept at most */
    long long registered_step_lifetime_s; /* a registration expires after this */
    bool foreground;                 /* -f: accepted, acctd never forks */
    bool check_only;                 /* -t: validate the config and exit */
    /* which fields the command line set (the file does not override them) */
    unsigned long long cli_set;
};

/* Defaults (the paths of docs/files.md). */
void acctd_config_defaults(struct acctd_config *c);

/* Command line. Returns 0 to continue, 1 if it printed --help/--version
 * (exit 0), -1 on a usage error (printed; exit 2). */
int acctd_config_cmdline(struct acctd_config *c, int argc, char **argv);

/* Read the config file (keys the command line set are ignored). A missing
 * default file is fine; problems go to d. Returns 0 or -1. */
int acctd_config_file(struct acctd_config *c, struct acct_diags *d);

/* Parse config text (for the file reader and the fuzzer). */
int acctd_config_parse(struct acctd_config *c, const char *name, const char *buf, size_t len,
                       struct acct_diags *d);

/* Derive the defaults that depend on other keys and check consistency
 * (admin group exists, paths fit). Returns 0 or -1 (problems in d). */
int acctd_config_validate(struct acctd_config *c, struct acct_diags *d);

#endif
