/* acctd: the daemon's shared state and the interfaces between its parts.
 *
 *   main.c      table of contents: ordered init, loop, fini in reverse
 *   config.c    defaults -> command line -> file -> validate
 *   store.c     SQLite store and migrations (db/)
 *   server.c    socket, poll loop, clients, dispatch table
 *   txn.c       the round's transaction: savepoints, group commit
 *   outq.c      output queued per uid
 *   req_*.c     one file per area of requests (docs/protocol.md)
 *   rulesdir.c  active-rules cache and materialised rules files
 *   policy.c    refinement policies (policies/NAME.yaml)
 *   refine.c    the evidence rule and refined versions
 *   sync.c      multi-node: primary (TCP + munge) and followers
 *   notify.c    sd_notify without libsystemd
 *   log.c       leveled logging to stderr (journald) */
#ifndef ACCTD_H
#define ACCTD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "acct/proto.h"
#include "acct/rules.h"
#include "config.h"
#include "policy.h"
#include "store.h"
#include "sync.h"

/* ---- logging ------------------------------------------------------------------ */
void acctd_log_init(int level);
void acctd_log_set_level(int level);
void acctd_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define LOG_E(...) acctd_log(0, __VA_ARGS__)
#define LOG_W(...) acctd_log(1, __VA_ARGS__)
#define LOG_I(...) acctd_log(2, __VA_ARGS__)
#define LOG_D(...) acctd_log(3, __VA_ARGS__)

/* ---- sd_notify ------------------------------------------------------------------- */
/* Send state ("READY=1", ...) to $NOTIFY_SOCKET if set. 0, or -1 (logged). */
int acctd_notify(const char *state);

/* ---- names: acct_proto_name_ok (acct/proto.h) -------------------------------------- */
/* mkdir -p: parents 0755, the last one mode. 0 or -1 (errno). */
int acctd_mkdir_p(const char *path, mode_t mode);

/* ---- limits of the loop (docs/acctd.md, "Limits") ------------------------------------ */
/* How long a statement waits for another process's store lock. */
#define ACCTD_BUSY_TIMEOUT_MS 20
/* While it is held, how often write requests try the lock again (they do
 * not wait for it then). */
#define ACCTD_LOCK_RETRY_MS 100
/* Replies of one round held for the group commit, per connection, before
 * it stops starting requests. */
#define ACCTD_HELD_OUT_MAX (64u * 1024)
/* Output queued for one non-admin uid's connections, all together, before
 * they stop starting requests. */
#define ACCTD_UID_OUT_MAX (8u * 1024 * 1024)
/* STAT groups in one LIST_SAMPLES reply: users, root/admin group. */
#define ACCTD_LIST_SAMPLES_PAGE_USER 1000
#define ACCTD_LIST_SAMPLES_PAGE_ADMIN 20000

/* ---- clients ----------------------------------------------------------------------- */
struct client {
    int fd;
    pid_t pid;
    uid_t uid;
    gid_t gid;
    bool admin;
    uint32_t max_body;   /* by privilege */
    uint8_t *in;         /* partial input */
    size_t in_len, in_cap;
    uint8_t *out;        /* replies not yet sent */
    size_t out_len, out_off, out_cap;
    time_t last_active;
    bool closing;        /* close once out is sent */
    bool awaiting_commit;/* a reply in out acknowledges this round's transaction */
    bool tcp;            /* a TCP peer (primary): no SO_PEERCRED ... */
    bool authed;         /* ... until AUTH with a munge credential */
    bool deferred;       /* a write request waits for another process's store lock */
    uid_t out_uid;       /* whose queued output this is (uid at accept; AUTH may change uid) */
    time_t connected;
    char addr[48];       /* TCP: the peer's address (the per-address pool) */
    bool follower;       /* TCP: a follower that proved itself (sync.c) */
    char nonce[68];      /* TCP: the nonce this primary issued ("" = none yet) */
    char peer_nonce[68]; /* TCP: the follower's nonce */
    uint32_t last_id;    /* TCP: the last signed request id (ids must increase) */
};

/* ---- the active rules cache -------------------------------------------------------- */
struct pair_entry {
    char partition[ACCT_RULES_NAME_MAX + 1], interconnect[ACCT_RULES_NAME_MAX + 1];
    int64_t version;
    uint64_t hash;
    char *text;
    size_t len;
    bool unwritten;      /* its file could not be written: retried (rulesdir.c) */
    char why[ACCTD_PATH_MAX + 300]; /* ... and why */
};

struct user_rate {
    uid_t uid;
    time_t window; /* start of the hour */
    int64_t records;
};

/* Bytes queued for sending to one uid's connections (server.c). */
struct uid_out {
    uid_t uid;
    size_t bytes;
};

/* sample_stats rows held by one uid (quota.c). */
struct uid_rows {
    uid_t uid;
    int64_t rows;
};

struct acctd {
    struct acctd_config cfg;
    struct store *store;
    int listen_fd;
    dev_t sock_dev;      /* the socket file this acctd bound (server.c): */
    ino_t sock_ino;      /* unlinked at exit only if it is still this one */
    time_t sock_checked; /* last look for a vanished socket (once a second) */
    bool sock_foreign;   /* the path is another file now: said once */
    int lock_fd;         /* STATE_DIR/acctd.lock, locked for the daemon's life */
    int tcp_fd;          /* primary: followers connect here; -1 = none */
    time_t last_sync;    /* follower: last SYNC with the primary */
    struct client **clients;
    size_t nclients, cap_clients;
    struct pair_entry *pairs;
    size_t npairs;
    struct user_rate *rates;
    size_t nrates, cap_rates;
    struct policy_set policies;
    time_t started, last_refine;
    bool tx_open;        /* this round's transaction */
    bool rules_dirty;    /* activations happened: re-materialise after commit */
    size_t rules_unwritten; /* pairs whose rules file is not written (STATUS) */
    char rules_error[320];  /* the active versions could not be read: why */
    time_t rules_retry_at;  /* when to try rules_dirty again (0: nothing to retry) */
    int rules_backoff_s;    /* 1, 2, 4, ... RULES_RETRY_MAX_S */
    bool reload_requested;
    int64_t samples_total; /* timed calls stored (STATUS NSAMPLES) */
    struct uid_out *outq;  /* queued output per uid, entries with bytes > 0 */
    size_t noutq, cap_outq;
    struct uid_rows *urows;
    size_t nurows, cap_urows;
    time_t store_size_at; /* when store_bytes was last asked (quota.c) */
    int64_t store_bytes;
    bool store_locked;   /* this round: another process holds the write lock */
    bool lock_seen;      /* ... and it was logged */
    int64_t lock_retry_ms; /* CLOCK_MONOTONIC ms of the next try */
    /* the background pass (prune, refine), one pair per round */
    int bg_phase;        /* 0 idle, 1 pruning, 2 refining */
    char bg_p[ACCT_RULES_NAME_MAX + 1], bg_i[ACCT_RULES_NAME_MAX + 1];
    size_t bg_next;      /* refining: index into pairs */
    struct sync_status sync; /* follower: its view of the primary (sync.c) */
};

/* ---- server (server.c) -------------------------------------------------------------- */
int server_init(struct acctd *d);
void server_fini(struct acctd *d);
/* Run until *stop; calls reload when *reload is set. Returns 0 or -1. */
int server_run(struct acctd *d, volatile int *stop, volatile int *reload,
               int (*reload_fn)(struct acctd *));

/* Decode, check and answer one complete message of len bytes: exactly one
 * reply, finished, in out. Returns -1 if the connection must be closed
 * after the reply. (The loop's unit of work; the request fuzzer calls it.) */
int acctd_handle_message(struct acctd *d, struct client *c, const uint8_t *buf, size_t len,
                         struct acct_wbuf *out);

/* ---- the round's transaction (txn.c) ------------------------------------------------ */
/* Open the round's transaction (BEGIN IMMEDIATE: the write lock) unless it
 * is open. 0, or -1: while another process holds the lock store_locked is
 * set and the writes of the round wait (tried again every
 * ACCTD_LOCK_RETRY_MS). */
int acctd_tx_open(struct acctd *d);
/* For write handlers: make sure this round's transaction is open and open a
 * savepoint for the request. 0 or -1. */
int acctd_write_begin(struct acctd *d, struct client *c);
/* End the request's savepoint: keep (ok) or undo its changes. */
void acctd_write_end(struct acctd *d, bool ok);
/* Commit the round's transaction now (before work that must see it): the
 * clients awaiting it may get their replies (or, if it fails, are dropped
 * without them), then the rules files are materialised if rules_dirty.
 * 0, or -1 if the commit failed. */
int acctd_commit_now(struct acctd *d);

/* ---- output queued per uid (outq.c) -------------------------------------------------- */
/* Count delta bytes (negative: sent or discarded) against c's uid. */
void acctd_outq_add(struct acctd *d, const struct client *c, long long delta);
/* The bytes queued for uid's connections. */
size_t acctd_outq_bytes(const struct acctd *d, uid_t uid);
/* Forget c's unsent output (the peer is gone or must not get it). */
void acctd_out_discard(struct acctd *d, struct client *c);

/* A request handler: writes exactly one reply into out. Returns 0, or -1
 * to close the connection after the reply. */
typedef int (*acctd_handler)(struct acctd *d, struct client *c, const struct acct_msg *m,
                             struct acct_wbuf *out);

struct acctd_request {
    enum acct_msg_type type;
    bool admin;          /* root or admin group only */
    bool primary_only;   /* changes decisions: refused on a follower */
    bool write;          /* takes the store's write lock: waits while another process holds it */
    acctd_handler fn;
};
/* The dispatch table (requests.c), ends with fn == NULL. */
extern const struct acctd_request acctd_requests[];

/* Handlers, one group per file. */
int req_hello(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);
int req_status(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);
int req_list(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);
int req_get_rules(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);
int req_show(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);
int req_get_model(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);
int req_get_result(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);

/* check.c: the policy in force for a partition (files, then a SET_POLICY
 * override), and acctctl check's test of a version before it is activated:
 * 0 clean, 1 findings (one diagnostic per rule in dg, named by its field
 * and line), -1 not checked (no model, or an error); why gets one line. */
void acctd_policy_in_force(struct acctd *d, const char *partition, struct policy *pol);
int acctd_check_version(struct acctd *d, int64_t version, const struct policy *pol,
                        struct acct_diags *dg, char *why, size_t len);
/* A version with no tuning run of its own whose rules were merged from
 * several runs (acctctl merge: provenance.runs) gets, in v->tuning_run, the
 * run behind its rules for ranks per node rpn (0: the lowest layout's), so
 * that its model and result are found. v->rules_text must be loaded.
 * Returns true if it filled v->tuning_run this way. */
bool acctd_version_layout_run(struct store_version *v, int rpn);
int req_list_versions(struct acctd *, struct client *, const struct acct_msg *,
                      struct acct_wbuf *);
int req_diff(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);
int req_import(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);
int req_activate(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);
int req_rollback(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);
int req_reload(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);
int req_set_policy(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);
int req_refine(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);
int req_samples(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);
int req_list_samples(struct acctd *, struct client *, const struct acct_msg *,
                     struct acct_wbuf *);
int req_step(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);

int req_auth(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);
int req_sync(struct acctd *, struct client *, const struct acct_msg *, struct acct_wbuf *);

/* Read what is there on c and answer every complete request it may start
 * (server.c; the connection fuzzer calls it). */
void acctd_serve_input(struct acctd *d, struct client *c, struct acct_wbuf *out);
/* Send what is queued for c (as much as the socket takes). */
void acctd_flush_client(struct acctd *d, struct client *c);

/* ---- per-uid limits on the store (quota.c) ------------------------------------------ */
/* Count the sample rows of every uid (startup, after a failed commit). 0 or -1. */
int quota_load(struct acctd *d);
/* The row counter of uid (created at 0). NULL: out of memory. */
int64_t *quota_rows(struct acctd *d, uid_t uid);
/* Is the store over max_store_mb? */
bool quota_store_full(struct acctd *d);

/* ---- multi-node (sync.c) ---------------------------------------------------------- */
int sync_listen_init(struct acctd *d);
void sync_fini(struct acctd *d);
/* Follower: SYNC with the primary if sync_interval has passed. */
void sync_poll(struct acctd *d, time_t now);

/* Shared reply helpers (requests.c). Read a required/optional name field;
 * on a problem write an INVALID error and return -1. */
int req_name(const struct acct_msg *m, unsigned tag, bool required, char *buf, size_t cap,
             uint32_t id, struct acct_wbuf *out);
/* Put the fields of a version (as SHOW). */
void req_put_version(struct acct_wbuf *out, const struct store_version *v, bool text);

/* ---- rules cache and files (rulesdir.c) --------------------------------------------- */
/* Reload the cache from the store and make rules_dir match it (write
 * changed files, remove files of pairs without an active version). Returns
 * -1 if the store could not be read; a file that could not be written
 * leaves its pair unwritten (counted in rules_unwritten) and schedules a
 * retry with backoff. Either way the loop retries (rulesdir_poll). */
int rulesdir_sync(struct acctd *d);
/* Called each round: set rules_dirty when a retry is due. */
void rulesdir_poll(struct acctd *d, time_t now);
/* After a commit that activated a version of (partition, interconnect):
 * set warning to why the pair's file is not written ("" if it is). */
void rulesdir_pair_warning(const struct acctd *d, const char *partition,
                           const char *interconnect, char *warning, size_t cap);
/* STATUS: RULES_PENDING and one WARNING per unwritten pair. */
void rulesdir_put_status(const struct acctd *d, struct acct_wbuf *out);
const struct pair_entry *rulesdir_find(const struct acctd *d, const char *partition,
                                       const char *interconnect);
void rulesdir_fini(struct acctd *d);
/* Write one file atomically: temp name, fsync, rename, fsync dir. */
int rulesdir_write_file(const char *dir, const char *name, const char *text, size_t len);

/* ---- refinement (refine.c) ------------------------------------------------------------- */
/* One pass over the pairs (NULL: all). Appends a DIFF_LINE per decision
 * taken or refused to out (if not NULL). Writes versions inside the
 * caller's transaction. Returns versions written, or -1. */
int refine_run(struct acctd *d, const char *partition, const char *interconnect,
               struct acct_wbuf *out);

/* Exposed for the unit tests: P(T > t) of Student's t with df degrees of
 * freedom; and replacing the decision of {p} x [lo, hi] in a rule list
 * (dec NULL: native), keeping the rest of every rule it cuts, with runner
 * (if not NULL and not dec) as the new rule's runner-up. */
double refine_t_upper(double t, double df);

/* The evidence rule on per-job observations (docs/acctd.md, "Refinement"):
 * a job's mean time per call, its timed calls, its uid. */
struct refine_obs {
    double mean;
    int64_t calls;
    uid_t uid;
};
struct refine_verdict {
    double p, gain, mean_a, mean_b; /* test, relative gain, the two trimmed means */
    size_t jobs, users;             /* observations kept (both sides together) */
    size_t jobs_a, users_a;         /* ... of which the incumbent's */
};
/* Does challenger b beat incumbent a under policy p? ref: the cell's
 * reference time for the plausibility bound (0: none). 1 yes, 0 no (why
 * either way), -1 (ENOMEM). */
int refine_beats(const struct refine_obs *a, size_t na, const struct refine_obs *b, size_t nb,
                 double ref, const struct policy *p, struct refine_verdict *r, char *why,
                 size_t wl);
/* Does the incumbent run retune_drift slower in jobs than measured, with
 * enough evidence and without any single user? 1 yes; 0 no, 2 not without
 * some user (why); -1 (ENOMEM). */
int refine_drifts(const struct refine_obs *v, size_t n, double measured, const struct policy *p,
                  struct refine_verdict *r, char *why, size_t wl);
/* The median over users (of each user's median job) of the usable
 * observations: the plausibility reference of a cell without a measured
 * time; 0 with fewer than three users. */
double refine_cell_ref(const struct refine_obs *v, size_t n, long long min_job_calls);
int refine_carve(struct acct_rule_list *l, int p, uint64_t lo, uint64_t hi,
                 const struct acct_decision *dec, const struct acct_decision *runner);

#endif
