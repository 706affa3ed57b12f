/* spank_acct's decisions, apart from the SPANK mechanism (spank_acct.c).
 *
 * Everything here is a pure function of its arguments: the plugin's
 * plugstack.conf arguments, the job's environment values, the step id, the
 * existing LD_PRELOAD. No Slurm call, no file access, no global state — the
 * unit test (tests/unit/spank/test_policy.c) drives every branch without Slurm.
 *
 * Reference: docs/spank_acct.md (spank_acct(8)); the job environment the
 * plugin sets is the contract in docs/files.md. */
#ifndef ACCT_SPANK_POLICY_H
#define ACCT_SPANK_POLICY_H

#include "acct/proto.h" /* acct_proto_name_ok: the one name check */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Partition and interconnect names: 1..64 of [A-Za-z0-9._+-] (docs/rules.md).
 * Only a valid name is ever turned into a path component. */
#define ACCT_SPANK_NAME_MAX 64
/* Paths given in plugstack.conf (absolute, no newline). */
#define ACCT_SPANK_PATH_MAX 1024
/* interconnect_map= entries. */
#define ACCT_SPANK_MAP_MAX 64
/* Longest LD_PRELOAD the plugin writes; a longer one is left alone. */
#define ACCT_SPANK_PRELOAD_MAX 8192


struct acct_spank_map_entry {
    char partition[ACCT_SPANK_NAME_MAX + 1];
    char interconnect[ACCT_SPANK_NAME_MAX + 1];
};

/* The plugin's configuration (plugstack.conf arguments). */
struct acct_spank_conf {
    char lib[ACCT_SPANK_PATH_MAX];       /* as written into LD_PRELOAD ($LIB kept) */
    char lib_file[ACCT_SPANK_PATH_MAX];  /* the same with $LIB expanded: what is stat()ed */
    char rules_dir[ACCT_SPANK_PATH_MAX]; /* rules_dir/PARTITION/INTERCONNECT.yaml */
    char socket[ACCT_SPANK_PATH_MAX];    /* acctd's socket */
    char killswitch[ACCT_SPANK_PATH_MAX]; /* "" = no kill switch */
    bool default_on;                     /* default=on|off */
    bool batch_step;                     /* batch_step=on|off */
    char interconnect[ACCT_SPANK_NAME_MAX + 1]; /* "" = none (interconnect=) */
    struct acct_spank_map_entry map[ACCT_SPANK_MAP_MAX]; /* interconnect_map= */
    size_t nmap;
};

/* Called once per problem with one line (no newline) naming the argument,
 * e.g. "plugstack.conf argument 3 (rules_dir=x): FIELD rules_dir: must be an
 * absolute path; using /run/acct/rules". */
typedef void (*acct_spank_warn_f)(void *ctx, const char *msg);

/* Defaults (docs/files.md), then each "key=value" argument in order (a later
 * one overrides an earlier one). A bad value keeps the previous value, an
 * unknown key or an argument without '=' is ignored; each with one call of
 * warn. lib_token is what ld.so substitutes for $LIB on this platform (e.g.
 * "lib/x86_64-linux-gnu"). Returns the number of problems reported. */
int acct_spank_conf_parse(struct acct_spank_conf *conf, int ac, char *const *av,
                          const char *lib_token, acct_spank_warn_f warn, void *ctx);

/* The interconnect of partition: its interconnect_map entry, else
 * interconnect=, else NULL. partition may be NULL. */
const char *acct_spank_interconnect(const struct acct_spank_conf *conf, const char *partition);

/* ---- on or off --------------------------------------------------------- */

enum acct_spank_source {
    ACCT_SPANK_BY_DEFAULT = 0, /* default= of plugstack.conf */
    ACCT_SPANK_BY_ENV,         /* ACCT_DISABLE / ACCT in the job's environment */
    ACCT_SPANK_BY_OPTION,      /* --acct=on|off */
};

struct acct_spank_choice {
    bool on;
    enum acct_spank_source source;
    const char *why; /* static text for the log line */
    bool invalid;    /* a value was not a boolean (treated as off, or ignored) */
};

/* Command line > environment > default. option is --acct's argument (NULL if
 * not given); env_disable and env_acct the job's ACCT_DISABLE and ACCT (NULL
 * or "" = unset). The environment is read exactly as libacct reads it
 * (acct_env_state in libacct/core/env.c): off if ACCT_DISABLE is true or not
 * a boolean, or ACCT is false or not a boolean; on if one of them says so
 * explicitly; otherwise it expresses no choice. An --acct value that is not a
 * boolean is ignored (srun/sbatch refuse it before the job starts). */
struct acct_spank_choice acct_spank_choose(const char *option, const char *env_disable,
                                           const char *env_acct, bool default_on);

/* ---- steps ------------------------------------------------------------- */

/* The special step ids of Slurm 22.05 (slurm/slurm.h), spelled here so the
 * unit test needs no Slurm header; spank_acct.c checks them against slurm.h
 * at compile time. */
#define ACCT_SPANK_STEPID_MAX_NORMAL 0xfffffff0u
#define ACCT_SPANK_STEPID_PENDING 0xfffffffdu
#define ACCT_SPANK_STEPID_EXTERN 0xfffffffcu
#define ACCT_SPANK_STEPID_BATCH 0xfffffffbu
#define ACCT_SPANK_STEPID_INTERACTIVE 0xfffffffau

enum acct_spank_step {
    ACCT_SPANK_STEP_NORMAL = 0, /* srun's steps 0, 1, ... */
    ACCT_SPANK_STEP_BATCH,      /* the batch script */
    ACCT_SPANK_STEP_EXTERN,     /* the extern step (ssh adoption, ...) */
    ACCT_SPANK_STEP_INTERACTIVE, /* salloc's interactive step */
    ACCT_SPANK_STEP_OTHER,       /* pending or unknown special id */
};

enum acct_spank_step acct_spank_step_kind(uint32_t stepid);
const char *acct_spank_step_name(enum acct_spank_step kind);

/* ---- LD_PRELOAD -------------------------------------------------------- */

enum acct_spank_preload {
    ACCT_SPANK_PRELOAD_ADDED = 0, /* *out = lib, then the existing entries */
    ACCT_SPANK_PRELOAD_PRESENT,   /* an entry is lib, or another libacct.so: leave it */
    ACCT_SPANK_PRELOAD_TOO_LONG,  /* the result would exceed len - 1 */
};

/* Prepend lib to the existing LD_PRELOAD list (entries separated by blanks or
 * ':', as ld.so reads it; NULL or "" = none), keeping the user's entries in
 * their order. An existing entry equal to lib, or whose file name equals
 * lib's (another copy of libacct.so the user chose), counts as present. */
enum acct_spank_preload acct_spank_preload(const char *existing, const char *lib, char *out,
                                           size_t len);

#endif
