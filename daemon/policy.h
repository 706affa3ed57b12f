/* Refinement policies (docs/acctd.md, "Policies"): policy_dir/default.yaml,
 * policy_dir/PARTITION.yaml, and SET_POLICY overrides kept in the store. */
#ifndef ACCTD_POLICY_H
#define ACCTD_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "acct/rules.h"

#define POLICY_VERSION 1
#define ACCTD_POLICY_NAME_MAX 256

/* What acctd does when a version to be activated fails acctctl check's
 * test (check.on_activate; docs/acctd.md "Policies"). */
enum policy_check { POLICY_CHECK_WARN = 0, POLICY_CHECK_REFUSE, POLICY_CHECK_OFF };
extern const char *const policy_check_names[3];

struct policy {
    char name[ACCTD_POLICY_NAME_MAX];  /* where it came from (file, "store", "built-in") */
    bool enabled;          /* refine this partition from live samples */
    bool activate;         /* activate refined versions at once */
    long long min_calls;   /* timed calls per method in a cell */
    long long min_jobs;    /* distinct jobs per method */
    long long min_users;   /* distinct users per method (>= 2: no single user decides) */
    double significance;   /* one-sided Welch t-test level */
    double min_gain;       /* relative gain of the mean time, 0.05 = 5 % */
    long long max_age_days;/* samples older than this are ignored */
    double retune_drift;   /* live mean slower than the run's median by this: retune */
    double explore;        /* options.explore of the materialised rules (0 = off) */
    long long min_job_calls;/* a job counts only with this many timed calls of a method */
    bool require_registered; /* SAMPLES only from job steps registered by spank_acct */
    int check_on_activate;   /* enum policy_check */
    double check_bound;      /* a rule over this predicted penalty is a finding */
    long long check_max_comm;/* sample communicator sizes up to this */
    long long check_rpn;     /* the layout checked (0: the version's provenance.layout) */
};

struct policy_entry {
    char partition[ACCT_RULES_NAME_MAX + 1];
    struct policy p;
};

struct policy_set {
    struct policy dflt;
    struct policy_entry *v;
    size_t n;
};

void policy_builtin(struct policy *p);

/* Parse a policy text over the defaults in *p (name: for messages and
 * p->name). 0, or -1 with problems in d. */
int policy_parse(const char *name, const char *buf, size_t len, struct policy *p,
                 struct acct_diags *d);

/* Load policy_dir (missing dir: built-in defaults only). Problems are
 * logged to d (all files are checked); 0 or -1 (then *set is unchanged). */
int policy_load(const char *dir, struct policy_set *set, struct acct_diags *d);
void policy_set_free(struct policy_set *set);

/* The policy of a partition (override text from the store wins). */
const struct policy *policy_for(const struct policy_set *set, const char *partition);

#endif
