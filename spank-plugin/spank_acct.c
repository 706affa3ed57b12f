/* spank_acct.so: puts ACCT into every job step, transparently.
 *
 * slurmstepd loads it (plugstack.conf: `optional .../spank_acct.so key=value
 * ...`). In the remote context, once per step per node
 * (slurm_spank_user_init), it prepends libacct.so to the step's LD_PRELOAD
 * and points ACCT_RULES at the node's rules file of (partition,
 * interconnect) — unless the user opted out (--acct=off, ACCT_DISABLE=1,
 * ACCT=off), the site kill switch exists, the step is the extern, batch or
 * interactive step, or something ACCT needs is missing on this node.
 *
 * As root, before the step's tasks start (slurm_spank_init_post_opt), it
 * registers the step (job, step, uid, partition, interconnect) with the
 * node's acctd, and at its end (slurm_spank_exit) says that it ended: acctd
 * accepts samples only for registered steps of their user (docs/acctd.md,
 * "Job identity"). That is its only contact with acctd: one request with a
 * deadline of ACCT_SPANK_STEP_TIMEOUT_MS, whose failure is one log line. It
 * never fails a step: every hook returns 0.
 *
 * This file is the SPANK mechanism; every choice is in policy.c. Reference:
 * docs/spank_acct.md (spank_acct(8)); job environment: docs/files.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "acct/common.h"
#include "acct/env.h"
#include "acct/proto.h"
#include "policy.h"

/* How long slurmstepd waits for acctd at most, per registration. */
#define ACCT_SPANK_STEP_TIMEOUT_MS 1000

_Static_assert(SLURM_BATCH_SCRIPT == ACCT_SPANK_STEPID_BATCH, "batch step id");
_Static_assert(SLURM_EXTERN_CONT == ACCT_SPANK_STEPID_EXTERN, "extern step id");
_Static_assert(SLURM_INTERACTIVE_STEP == ACCT_SPANK_STEPID_INTERACTIVE, "interactive step id");
_Static_assert(SLURM_PENDING_STEP == ACCT_SPANK_STEPID_PENDING, "pending step id");
_Static_assert(SLURM_MAX_NORMAL_STEP_ID == ACCT_SPANK_STEPID_MAX_NORMAL, "normal step ids");

/* What SPANK looks up in the plugin (SPANK_PLUGIN(acct, 1), made visible:
 * everything else in this object is hidden). */
ACCT_EXPORT const char plugin_name[] = "acct";
ACCT_EXPORT const char plugin_type[] = "spank";
ACCT_EXPORT const unsigned int plugin_version = SLURM_VERSION_NUMBER;
ACCT_EXPORT const unsigned int spank_plugin_version = 1;

#ifndef ACCT_SPANK_LIB_TOKEN
#define ACCT_SPANK_LIB_TOKEN "lib"
#endif

#define LOG_PREFIX "spank_acct: "

static int acct_option_cb(int val, const char *optarg, int remote);

static struct spank_option acct_option = {
    .name = "acct",
    .arginfo = "on|off",
    .usage = "Use ACCT's tuned MPI collectives in this job step (on), or the MPI "
             "library's own (off). Default: the site's setting.",
    .has_arg = 1,
    .val = 0,
    .cb = acct_option_cb,
};

static struct acct_spank_conf conf;

/* srun/sbatch/salloc check the value before the job exists (a bad value
 * stops the command there); on the node a bad value is never fatal. */
static int acct_option_cb(int val, const char *optarg, int remote)
{
    bool b;
    int rc = 0;
    (void)val;
    if (optarg == NULL || acct_parse_bool(optarg, &b) != 0) {
        if (!remote) {
            slurm_error("--acct=%s: expected on or off", optarg != NULL ? optarg : "");
            rc = -1;
        }
    }
    return rc;
}

static void warn_conf(void *ctx, const char *msg)
{
    (void)ctx;
    slurm_error(LOG_PREFIX "%s", msg);
}

ACCT_EXPORT int slurm_spank_init(spank_t sp, int ac, char *argv[])
{
    spank_context_t ctx = spank_context();
    if (ctx == S_CTX_LOCAL || ctx == S_CTX_REMOTE || ctx == S_CTX_ALLOCATOR) {
        spank_err_t e = spank_option_register(sp, &acct_option);
        if (e != ESPANK_SUCCESS)
            slurm_error(LOG_PREFIX "cannot register --acct: %s", spank_strerror(e));
    }
    /* Only slurmstepd acts on the configuration: report its problems in
     * slurmd's log, not on every user's terminal. */
    if (ctx == S_CTX_REMOTE)
        (void)acct_spank_conf_parse(&conf, ac, argv, ACCT_SPANK_LIB_TOKEN, warn_conf, NULL);
    return 0;
}

/* The job's value of name into buf: "" if unset, "?" (not a boolean, not a
 * name) if it does not fit in len - 1 bytes. Returns whether it was set and
 * fitted. */
static bool job_getenv(spank_t sp, const char *name, char *buf, int len)
{
    spank_err_t e = spank_getenv(sp, name, buf, len);
    if (e == ESPANK_NOSPACE)
        snprintf(buf, (size_t)len, "?");
    else if (e != ESPANK_SUCCESS)
        buf[0] = '\0';
    return e == ESPANK_SUCCESS;
}

struct step {
    uint32_t job, step;
    enum acct_spank_step kind;
    char id[48]; /* "JOBID.STEPID" or "JOBID.batch" */
};

static bool set(spank_t sp, const struct step *st, const char *name, const char *value)
{
    spank_err_t e = spank_setenv(sp, name, value, 1);
    if (e != ESPANK_SUCCESS)
        slurm_error(LOG_PREFIX "job %s: cannot set %s: %s", st->id, name, spank_strerror(e));
    return e == ESPANK_SUCCESS;
}

/* A regular file (following links)? Sets *err on failure. */
static bool is_file(const char *path, mode_t type, int *err)
{
    struct stat sb;
    bool ok = false;
    *err = 0;
    if (stat(path, &sb) != 0)
        *err = errno;
    else if ((sb.st_mode & S_IFMT) != type)
        *err = type == S_IFREG ? EINVAL : ENOTSOCK;
    else
        ok = true;
    return ok;
}

static const char *file_error(int err)
{
    return err == EINVAL ? "not a regular file" : strerror(err);
}

/* The step is on: put libacct and its environment in, or say in one line
 * why not. */
static void inject(spank_t sp, const struct step *st)
{
    char partition[ACCT_SPANK_NAME_MAX + 2];
    char rules[ACCT_SPANK_PATH_MAX + 2 * ACCT_SPANK_NAME_MAX + 8];
    static char preload[ACCT_SPANK_PRELOAD_MAX], updated[ACCT_SPANK_PRELOAD_MAX];
    const char *ic = NULL;
    int err = 0;
    spank_err_t e;

    if (!is_file(conf.lib_file, S_IFREG, &err)) {
        slurm_info(LOG_PREFIX "job %s: %s: %s; step runs without ACCT", st->id, conf.lib_file,
                   file_error(err));
        goto done;
    }
    if (!job_getenv(sp, "SLURM_JOB_PARTITION", partition, (int)sizeof(partition)) ||
        !acct_proto_name_ok(partition, ACCT_SPANK_NAME_MAX)) {
        slurm_info(LOG_PREFIX "job %s: partition \"%.70s\" unknown or not a valid name; step "
                   "runs without ACCT", st->id, partition);
        goto done;
    }
    ic = acct_spank_interconnect(&conf, partition);
    if (ic == NULL) {
        slurm_info(LOG_PREFIX "job %s: no interconnect configured for partition %s "
                   "(interconnect= or interconnect_map= in plugstack.conf); step runs "
                   "without ACCT", st->id, partition);
        goto done;
    }
    snprintf(rules, sizeof(rules), "%s/%s/%s.yaml", conf.rules_dir, partition, ic);
    if (!is_file(rules, S_IFREG, &err)) {
        slurm_info(LOG_PREFIX "job %s: rules file %s: %s; step runs without ACCT", st->id,
                   rules, file_error(err));
        goto done;
    }
    e = spank_getenv(sp, "LD_PRELOAD", preload, (int)sizeof(preload));
    if (e == ESPANK_ENV_NOEXIST) {
        preload[0] = '\0';
    } else if (e != ESPANK_SUCCESS) {
        slurm_info(LOG_PREFIX "job %s: cannot read LD_PRELOAD (%s); step runs without ACCT",
                   st->id, spank_strerror(e));
        goto done;
    }
    enum acct_spank_preload pr = acct_spank_preload(preload, conf.lib, updated, sizeof(updated));
    if (pr == ACCT_SPANK_PRELOAD_TOO_LONG) {
        slurm_info(LOG_PREFIX "job %s: LD_PRELOAD would exceed %d bytes; step runs without ACCT",
                   st->id, ACCT_SPANK_PRELOAD_MAX);
        goto done;
    }
    /* ACCT's variables first, LD_PRELOAD last: a failure half-way leaves a
     * step without the preload (libacct without ACCT_RULES runs native). */
    if (!set(sp, st, "ACCT_RULES", rules) || !set(sp, st, "ACCT_PARTITION", partition) ||
        !set(sp, st, "ACCT_INTERCONNECT", ic) || !set(sp, st, "ACCT_JOB", st->id))
        goto done;
    if (is_file(conf.socket, S_IFSOCK, &err)) {
        if (!set(sp, st, "ACCT_SOCKET", conf.socket))
            goto done;
    } else {
        slurm_info(LOG_PREFIX "job %s: acctd socket %s: %s; ACCT uses the rules file, sends "
                   "no samples", st->id, conf.socket, strerror(err));
    }
    if (pr == ACCT_SPANK_PRELOAD_ADDED && !set(sp, st, "LD_PRELOAD", updated))
        goto done;
    slurm_verbose(LOG_PREFIX "job %s: ACCT on: %s%s, ACCT_RULES=%s", st->id, conf.lib,
                  pr == ACCT_SPANK_PRELOAD_PRESENT ? " (already in LD_PRELOAD)" : "", rules);
done:
    return;
}

/* The step this slurmstepd registered with acctd (slurm_spank_exit ends it). */
static struct {
    bool registered;
    char id[48];
    uid_t uid;
} reg;

/* Send STEP (register, or end) to the node's acctd as root. 0, or -1 with
 * a reason in why. */
static int step_request(const char *id, uid_t uid, const char *partition, const char *ic,
                        bool end, char *why, size_t wl)
{
    struct acct_wbuf w;
    uint8_t *buf = NULL;
    size_t len;
    struct acct_msg m;
    int rc = -1, fd = -1;
    acct_wbuf_init(&w, ACCT_PROTO_MAX_USER_BODY);
    acct_wbuf_start(&w, ACCT_MSG_STEP, 1);
    acct_put_str(&w, ACCT_T_JOB, id);
    acct_put_u64(&w, ACCT_T_UID, uid);
    if (end) {
        acct_put_u64(&w, ACCT_T_STEP_END, 1);
    } else {
        acct_put_str(&w, ACCT_T_PARTITION, partition);
        acct_put_str(&w, ACCT_T_INTERCONNECT, ic);
    }
    if (acct_wbuf_finish(&w) != 0) {
        snprintf(why, wl, "cannot encode the request");
        goto out;
    }
    fd = acct_client_connect(conf.socket, ACCT_SPANK_STEP_TIMEOUT_MS);
    if (fd < 0 || acct_client_call(fd, &w, ACCT_SPANK_STEP_TIMEOUT_MS, &buf, &len, &m) != 0) {
        snprintf(why, wl, "%.200s: %s", conf.socket, strerror(errno));
        goto out;
    }
    if (m.h.type == ACCT_MSG_ERROR) {
        char msg[256] = "";
        (void)acct_get_str(m.body, m.len, ACCT_T_ERR_MSG, msg, sizeof(msg));
        snprintf(why, wl, "acctd refused: %s", msg);
        goto out;
    }
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    free(buf);
    acct_wbuf_free(&w);
    return rc;
}

/* As root, before the tasks exist: register a normal or batch step whose
 * partition has an interconnect, if this node has acctd's socket. Whether
 * ACCT is on for the step does not matter (nothing is sent for a step that
 * does not run libacct). */
ACCT_EXPORT int slurm_spank_init_post_opt(spank_t sp, int ac, char *argv[])
{
    uint32_t job, step;
    uid_t uid; /* S_JOB_UID gives a uid_t */
    char partition[ACCT_SPANK_NAME_MAX + 2], id[48], why[600];
    const char *ic;
    int err = 0;
    (void)ac;
    (void)argv;
    if (spank_context() != S_CTX_REMOTE || !spank_remote(sp) ||
        spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS)
        goto done;
    enum acct_spank_step kind = acct_spank_step_kind(step);
    if (kind == ACCT_SPANK_STEP_BATCH)
        snprintf(id, sizeof(id), "%" PRIu32 ".batch", job);
    else
        snprintf(id, sizeof(id), "%" PRIu32 ".%" PRIu32, job, step);
    if ((kind != ACCT_SPANK_STEP_NORMAL && kind != ACCT_SPANK_STEP_BATCH) ||
        !job_getenv(sp, "SLURM_JOB_PARTITION", partition, (int)sizeof(partition)) ||
        !acct_proto_name_ok(partition, ACCT_SPANK_NAME_MAX) || (ic = acct_spank_interconnect(&conf, partition)) == NULL ||
        !is_file(conf.socket, S_IFSOCK, &err))
        goto done; /* no samples can come from this step: user_init says why */
    if (step_request(id, uid, partition, ic, false, why, sizeof(why)) != 0) {
        slurm_info(LOG_PREFIX "job %s: cannot register the step with acctd (%s); acctd will "
                   "refuse its samples", id, why);
        goto done;
    }
    reg.registered = true;
    reg.uid = uid;
    snprintf(reg.id, sizeof(reg.id), "%s", id);
done:
    return 0;
}

/* As root, after the tasks: the step ended (acctd keeps the registration a
 * short grace period for samples still in flight). */
ACCT_EXPORT int slurm_spank_exit(spank_t sp, int ac, char *argv[])
{
    char why[600];
    (void)ac;
    (void)argv;
    if (!reg.registered || spank_context() != S_CTX_REMOTE || !spank_remote(sp))
        goto done;
    reg.registered = false;
    if (step_request(reg.id, reg.uid, NULL, NULL, true, why, sizeof(why)) != 0)
        slurm_debug(LOG_PREFIX "job %s: cannot tell acctd that the step ended (%s); the "
                    "registration expires by itself", reg.id, why);
done:
    return 0;
}

ACCT_EXPORT int slurm_spank_user_init(spank_t sp, int ac, char *argv[])
{
    struct step st = {0, 0, ACCT_SPANK_STEP_OTHER, ""};
    char env_disable[64], env_acct[64];
    char *optarg = NULL;
    int err = 0;
    (void)ac;
    (void)argv;

    if (!spank_remote(sp))
        goto done;
    if (spank_get_item(sp, S_JOB_ID, &st.job) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_STEPID, &st.step) != ESPANK_SUCCESS) {
        slurm_error(LOG_PREFIX "cannot read the job and step ids; step runs without ACCT");
        goto done;
    }
    st.kind = acct_spank_step_kind(st.step);
    if (st.kind == ACCT_SPANK_STEP_BATCH)
        snprintf(st.id, sizeof(st.id), "%" PRIu32 ".batch", st.job);
    else
        snprintf(st.id, sizeof(st.id), "%" PRIu32 ".%" PRIu32, st.job, st.step);
    if (st.kind != ACCT_SPANK_STEP_NORMAL && st.kind != ACCT_SPANK_STEP_BATCH) {
        slurm_debug(LOG_PREFIX "job %s: %s step, left alone", st.id,
                    acct_spank_step_name(st.kind));
        goto done;
    }

    if (spank_option_getopt(sp, &acct_option, &optarg) != ESPANK_SUCCESS)
        optarg = NULL;
    (void)job_getenv(sp, "ACCT_DISABLE", env_disable, (int)sizeof(env_disable));
    (void)job_getenv(sp, "ACCT", env_acct, (int)sizeof(env_acct));
    struct acct_spank_choice c = acct_spank_choose(optarg, env_disable, env_acct, conf.default_on);
    if (c.invalid)
        slurm_info(LOG_PREFIX "job %s: a value of --acct, ACCT_DISABLE or ACCT is not on/off",
                   st.id);

    if (!c.on) {
        /* Tell libacct too: an LD_PRELOAD inherited from an enclosing step
         * (the batch script) must not switch ACCT back on. */
        if (c.source == ACCT_SPANK_BY_OPTION)
            (void)set(sp, &st, "ACCT_DISABLE", "1");
        slurm_debug(LOG_PREFIX "job %s: ACCT off (%s)", st.id, c.why);
        goto done;
    }
    if (conf.killswitch[0] != '\0' && (is_file(conf.killswitch, S_IFREG, &err) || err == EINVAL)) {
        (void)set(sp, &st, "ACCT_DISABLE", "1");
        slurm_info(LOG_PREFIX "job %s: site kill switch %s present; step runs without ACCT",
                   st.id, conf.killswitch);
        goto done;
    }
    if (c.source == ACCT_SPANK_BY_OPTION) {
        /* --acct=on wins over the environment: libacct must agree. */
        (void)spank_unsetenv(sp, "ACCT_DISABLE");
        (void)spank_unsetenv(sp, "ACCT");
    }
    if (st.kind == ACCT_SPANK_STEP_BATCH && !conf.batch_step) {
        slurm_debug(LOG_PREFIX "job %s: batch step, left alone (batch_step=off)", st.id);
        goto done;
    }
    inject(sp, &st);
done:
    return 0;
}
