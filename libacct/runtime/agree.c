/* Agreement at MPI_Init through the PMIx store (agree.h). */
#include "agree.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acct/log.h"
#include "acct/rt_abi.h"

#define KEY_STATE "acct.v1"
#define KEY_RULES "acct.rules"
#define KEY_FORCE "acct.force"
#define RULES_FILE_MAX (4u * 1024 * 1024)

static struct {
    bool pmix;          /* PMIx_Init succeeded */
    pmix_proc_t me;
    char *rules;        /* this rank's ACCT_RULES content, owned */
    size_t rules_len;
    const char *rules_path;
    char *force;        /* this rank's ACCT_FORCE, owned */
    bool nonblocking;   /* this rank's runtime can run non-blocking collectives */
} local;

uint64_t rt_hash(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ull;
    if (data == NULL)
        return 0;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* The whole file, NUL-terminated; NULL with a warning when unreadable. */
static char *read_file(const char *path, size_t *len)
{
    char *buf = NULL;
    struct stat sb;
    /* O_NONBLOCK: a FIFO (or a device) must not block MPI_Init in open();
     * it is refused below. Reads of a regular file ignore the flag. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        acct_warn("cannot open the rules file %s: %s; running with the native collectives", path,
                  strerror(errno));
        goto out;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        acct_warn("%s: not a regular file; running with the native collectives", path);
        goto out;
    }
    if (sb.st_size > RULES_FILE_MAX) {
        acct_warn("%s: larger than %u bytes; running with the native collectives",
                  path, RULES_FILE_MAX);
        goto out;
    }
    buf = malloc((size_t)sb.st_size + 1);
    size_t got = 0;
    while (buf != NULL && got < (size_t)sb.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)sb.st_size - got);
        if (n <= 0) {
            acct_warn("cannot read the rules file %s; running with the native collectives", path);
            free(buf);
            buf = NULL;
            break;
        }
        got += (size_t)n;
    }
    if (buf != NULL) {
        buf[got] = '\0';
        *len = got;
    }
out:
    if (fd >= 0)
        close(fd);
    return buf;
}

/* Did a launcher (mpirun, srun --mpi=pmix) start this process as a PMIx
 * client? It then names the namespace, the rank and the server's URI. A
 * process started on its own (an MPI singleton: a tool run from a shell or a
 * batch script) has none of them, and PMIx_Init before the MPI library's
 * own singleton start-up crashes inside libpmix (and hangs): such a process
 * is one rank, which needs no agreement (rt_agree_post_init). */
static bool pmix_server_advertised(void)
{
    extern char **environ;
    if (getenv("PMIX_NAMESPACE") == NULL || getenv("PMIX_RANK") == NULL)
        return false;
    for (char **e = environ; *e != NULL; e++)
        if (strncmp(*e, "PMIX_SERVER_URI", strlen("PMIX_SERVER_URI")) == 0)
            return true;
    return false;
}

static void put_string(const char *key, const char *value)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, value, PMIX_STRING);
    PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
}

int rt_agree_pre_init(int nonblocking)
{
    const char *path = getenv("ACCT_RULES");
    const char *force = getenv("ACCT_FORCE");
    char state[128];

    memset(&local, 0, sizeof local);
    local.nonblocking = nonblocking != 0;
    if (path != NULL && *path != '\0') {
        local.rules_path = path;
        local.rules = read_file(path, &local.rules_len);
    }
    if (force != NULL && *force != '\0')
        local.force = strdup(force);
    if (!pmix_server_advertised()) {
        acct_debug("no PMIx server in the environment: a singleton, no agreement");
        return -1;
    }
    if (PMIx_Init(&local.me, NULL, 0) != PMIX_SUCCESS)
        return -1;
    local.pmix = true;
    snprintf(state, sizeof state, "%u %016" PRIx64 " %016" PRIx64 " %d", ACCT_RT_ABI_VERSION,
             rt_hash(local.rules, local.rules_len),
             rt_hash(local.force, local.force ? strlen(local.force) : 0), nonblocking != 0);
    put_string(KEY_STATE, state);
    if (local.me.rank == 0) {
        if (local.rules != NULL && local.rules_len <= ACCT_AGREE_MAX_CONTENT)
            put_string(KEY_RULES, local.rules);
        if (local.force != NULL)
            put_string(KEY_FORCE, local.force);
    }
    PMIx_Commit();
    return 0;
}

/* rank r's string value of key, or NULL if it has none (never waits). */
static char *get_string(uint32_t rank, const char *key)
{
    pmix_proc_t p;
    pmix_info_t info;
    pmix_value_t *val = NULL;
    bool optional = true;
    char *out = NULL;

    PMIX_PROC_CONSTRUCT(&p);
    PMIX_LOAD_PROCID(&p, local.me.nspace, rank);
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
    if (PMIx_Get(&p, key, &info, 1, &val) == PMIX_SUCCESS && val != NULL) {
        if (val->type == PMIX_STRING && val->data.string != NULL)
            out = strdup(val->data.string);
        PMIX_VALUE_RELEASE(val);
    }
    PMIX_INFO_DESTRUCT(&info);
    return out;
}

static void take_local(struct rt_agreed *out)
{
    out->rules = local.rules;
    out->rules_len = local.rules_len;
    out->force = local.force;
    local.rules = NULL;
    local.force = NULL;
}

void rt_agree_post_init(int world_rank, int world_size, struct rt_agreed *out)
{
    char *state0 = NULL;
    unsigned abi0 = 0;
    uint64_t rules0 = 0, force0 = 0;
    bool content0 = false, need_content = false, need_force = false;

    memset(out, 0, sizeof *out);
    if (world_size == 1) { /* nobody to agree with */
        take_local(out);
        out->nonblocking = local.nonblocking;
        out->active = 1;
        goto done;
    }
    if (!local.pmix) {
        out->why = "no PMIx: cannot check that every rank runs ACCT alike";
        goto done;
    }
    state0 = get_string(0, KEY_STATE);
    if (state0 == NULL || sscanf(state0, "%u %" SCNx64 " %" SCNx64, &abi0, &rules0, &force0) != 3) {
        out->why = "rank 0 runs without ACCT";
        goto done;
    }
    char *r0 = get_string(0, KEY_RULES);
    content0 = r0 != NULL;
    free(r0);
    /* The same predicate on every rank: every rank published, same ABI,
     * and whoever differs from rank 0 can fetch rank 0's content. */
    out->nonblocking = 1;
    for (int q = 0; q < world_size; q++) {
        char *s = get_string((uint32_t)q, KEY_STATE);
        unsigned abi;
        uint64_t rh, fh;
        int nb = 0;
        int fields = s != NULL ? sscanf(s, "%u %" SCNx64 " %" SCNx64 " %d", &abi, &rh, &fh, &nb) : 0;
        bool ok = fields >= 3 && abi == abi0;
        /* non-blocking collectives through ACCT only if every rank can */
        out->nonblocking = out->nonblocking && fields == 4 && nb == 1;
        if (ok && rh != rules0 && !content0 && rules0 != 0)
            ok = false;
        if (q == world_rank && ok) {
            need_content = rh != rules0;
            need_force = fh != force0;
        }
        free(s);
        if (!ok) {
            out->why = "not every rank runs the same ACCT (opted out, missing, or other "
                       "rules that rank 0 cannot share)";
            goto done;
        }
    }
    take_local(out);
    if (need_content) { /* use rank 0's rules instead of ours */
        free(out->rules);
        out->rules = rules0 != 0 ? get_string(0, KEY_RULES) : NULL;
        out->rules_len = out->rules ? strlen(out->rules) : 0;
        if (rules0 != 0 && out->rules == NULL)
            out->why = "cannot fetch rank 0's rules"; /* not reached: checked above */
        acct_debug("using rank 0's rules instead of %s", local.rules_path ? local.rules_path : "none");
    }
    if (need_force) {
        free(out->force);
        out->force = force0 != 0 ? get_string(0, KEY_FORCE) : NULL;
    }
    out->active = out->why == NULL;
done:
    free(state0);
    /* This rank's own inputs and its PMIx reference are no longer needed
     * (Open MPI keeps its own reference to the PMIx client). */
    free(local.rules);
    free(local.force);
    local.rules = local.force = NULL;
    if (local.pmix) {
        PMIx_Finalize(NULL, 0);
        local.pmix = false;
    }
    if (!out->active)
        acct_debug("agreement: %s", out->why ? out->why : "?");
}

void rt_agree_free(struct rt_agreed *a)
{
    free(a->rules);
    free(a->force);
    memset(a, 0, sizeof *a);
}
