/* Live timing samples to the node's acctd: docs/samples.md is the
 * reference (who samples, the table, when batches go, what is dropped).
 *
 *   rt_impl_X (coll.c) --rt_account_call()--> rt_samples_add()
 *        |              (account.c)             |  fixed table, open addressing:
 *        |                                      |  key (method, comm size, bucket)
 *        |                                      v
 *        |                            interval over? --> flush(): SAMPLES requests
 *   MPI_Finalize --> rt_samples_fini() ----------------> flush() via acct_client_post
 *
 * Never blocking: acct_client_post connects and sends without waiting and
 * reads no reply; a batch that cannot be handed to the socket at once is
 * dropped. Never allocating per call: the table is static; the message
 * buffer is allocated at the first flush and reused. */
#include "samples.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <time.h>

#include "acct/env.h"
#include "acct/log.h"
#include "acct/proto.h"
#include "acct/rules.h"

/* Table geometry: slots and the load at which new keys are refused (keeps
 * linear probes short). Keys beyond it are counted in dropped_full. */
#define SAMPLE_SLOTS 1024
#define SAMPLE_MAX_KEYS (SAMPLE_SLOTS * 3 / 4)
/* SAMPLE groups per SAMPLES request: about 200 bytes each, so one request
 * (~52 KB) fits a Unix socket's default send buffer in one send. */
#define SAMPLE_BATCH 256
/* The protocol's bound on COUNT; a slot reaching it is sent early. */
#define SAMPLE_COUNT_MAX 1000000000ull
/* ACCT_SAMPLES_INTERVAL: seconds between periodic batches. */
#define SAMPLE_INTERVAL_DEFAULT 60
#define SAMPLE_INTERVAL_MIN 1
#define SAMPLE_INTERVAL_MAX 3600

/* Which calls are timed (docs/samples.md): the cost of one timed call
 * (two clock reads, measured at init, plus SAMPLE_BOOKKEEPING_NS for the
 * table) times 100 over the running mean time of timed calls gives the
 * mean gap between timed calls, within [1, SAMPLE_GAP_MAX]. */
#define SAMPLE_BUDGET_INV 100 /* timing may cost 1/100 of the collectives' time */
#define SAMPLE_BOOKKEEPING_NS 40
#define SAMPLE_GAP_MAX 4096

bool rt_samples_on;
atomic_uint rt_samples_countdown;

struct sample_slot {
    int alg;             /* registry index; -1: empty */
    int comm_size;
    int fanout;          /* 0: the algorithm's default */
    unsigned bucket;     /* acct_bytes_bucket of the message bytes */
    bool reorder;
    uint64_t segment;    /* bytes; 0: unsegmented */
    uint64_t count, sum_ns, min_ns, max_ns;
    double sumsq_us2;
};

static struct {
    struct sample_slot slot[SAMPLE_SLOTS];
    int used[SAMPLE_MAX_KEYS]; /* indexes of the slots in use, in order of first use */
    int nused;
    int hint;                  /* slot of the previous call (loops repeat one key) */
    bool locking;              /* MPI_THREAD_MULTIPLE: take `busy` */
    atomic_flag busy;
    uint64_t interval_ns, next_flush_ns;
    uint32_t request_id;
    int nalgs;                 /* registry entries */
    int max_keys;              /* ACCT_SAMPLES_KEYS: keys per interval, <= SAMPLE_MAX_KEYS */
    struct acct_wbuf w;
    char socket[sizeof(((struct sockaddr_un *)0)->sun_path)];
    char job[ACCT_RULES_NAME_MAX + 1];
    char partition[ACCT_RULES_NAME_MAX + 1];
    char interconnect[ACCT_RULES_NAME_MAX + 1];
    struct rt_samples_stats stats;
    atomic_uint_fast64_t dropped_busy;
    unsigned fixed_gap;        /* ACCT_SAMPLES_STRIDE, 0: adaptive */
    uint64_t cost_ns;          /* what timing one call costs */
    uint64_t mean_ns;          /* running mean of timed calls (EWMA 1/16); 0: none yet */
    atomic_uint gap;           /* mean gap between timed calls */
    atomic_uint_fast64_t rng;  /* xorshift64 state of the gaps */
} smp = {.busy = ATOMIC_FLAG_INIT};

/* This process's rank on its node from the launcher (Open MPI's mpirun,
 * Slurm's srun, MPICH's Hydra), or -1 if none says. */
static int local_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID",
                                       "MPI_LOCALRANKID", "PMI_LOCAL_RANK"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        char *end;
        if (v == NULL || *v == '\0')
            continue;
        errno = 0;
        long r = strtol(v, &end, 10);
        if (errno == 0 && *end == '\0' && r >= 0 && r <= 0x7fffffff)
            return (int)r;
    }
    return -1;
}

/* Does this rank sample? ACCT_SAMPLES: "node" (default: the first rank of
 * each node, by the launcher's local rank; world rank 0 alone if no
 * launcher says), "all" (every rank), or a false boolean (none). *why gets
 * a reason when not. */
static bool selected(int world_rank, const char **why)
{
    const char *mode = getenv("ACCT_SAMPLES");
    bool b;
    if (mode == NULL || *mode == '\0' || strcmp(mode, "node") == 0) {
        int lr = local_rank();
        if (lr >= 0 ? lr == 0 : world_rank == 0)
            return true;
        *why = "not the first rank of its node";
        return false;
    }
    if (strcmp(mode, "all") == 0)
        return true;
    if (acct_parse_bool(mode, &b) == 0 && !b)
        *why = "ACCT_SAMPLES is off";
    else
        *why = "ACCT_SAMPLES is not node, all or off";
    return false;
}

static uint64_t parse_interval(void)
{
    const char *v = getenv("ACCT_SAMPLES_INTERVAL");
    char *end;
    long s;
    if (v == NULL || *v == '\0')
        return SAMPLE_INTERVAL_DEFAULT;
    errno = 0;
    s = strtol(v, &end, 10);
    if (errno != 0 || *end != '\0' || s < SAMPLE_INTERVAL_MIN || s > SAMPLE_INTERVAL_MAX) {
        acct_debug("samples: ACCT_SAMPLES_INTERVAL=\"%s\" is not %d..%d seconds; using %d", v,
                   SAMPLE_INTERVAL_MIN, SAMPLE_INTERVAL_MAX, SAMPLE_INTERVAL_DEFAULT);
        return SAMPLE_INTERVAL_DEFAULT;
    }
    return (uint64_t)s;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ACCT_SAMPLES_KEYS: distinct keys kept per interval (1..SAMPLE_MAX_KEYS,
 * default SAMPLE_MAX_KEYS): bounds the records one batch sends. */
static int parse_keys(void)
{
    const char *v = getenv("ACCT_SAMPLES_KEYS");
    char *end;
    long n;
    if (v == NULL || *v == '\0')
        return SAMPLE_MAX_KEYS;
    errno = 0;
    n = strtol(v, &end, 10);
    if (errno != 0 || *end != '\0' || n < 1 || n > SAMPLE_MAX_KEYS) {
        acct_debug("samples: ACCT_SAMPLES_KEYS=\"%s\" is not 1..%d; using %d", v, SAMPLE_MAX_KEYS,
                   SAMPLE_MAX_KEYS);
        return SAMPLE_MAX_KEYS;
    }
    return (int)n;
}

/* A fixed mean gap from ACCT_SAMPLES_STRIDE (1 = time every call), or 0
 * for the adaptive gap. */
static unsigned parse_stride(void)
{
    const char *v = getenv("ACCT_SAMPLES_STRIDE");
    char *end;
    long n;
    if (v == NULL || *v == '\0')
        return 0;
    errno = 0;
    n = strtol(v, &end, 10);
    if (errno != 0 || *end != '\0' || n < 1 || n > SAMPLE_GAP_MAX) {
        acct_debug("samples: ACCT_SAMPLES_STRIDE=\"%s\" is not 1..%d; adaptive", v, SAMPLE_GAP_MAX);
        return 0;
    }
    return (unsigned)n;
}

/* What two clock reads cost here (the least of a few short runs), plus
 * the table's bookkeeping: the cost of timing one call. */
static uint64_t timing_cost(void)
{
    uint64_t best = UINT64_MAX;
    for (int run = 0; run < 5; run++) {
        uint64_t t0 = mono_ns(), t1 = t0;
        for (int i = 0; i < 32; i++)
            t1 = mono_ns();
        if ((t1 - t0) / 16 < best)
            best = (t1 - t0) / 16; /* 32 reads = 16 timed calls */
    }
    return best + SAMPLE_BOOKKEEPING_NS;
}

bool rt_samples_draw(void)
{
    uint64_t x = atomic_load_explicit(&smp.rng, memory_order_relaxed);
    unsigned g = atomic_load_explicit(&smp.gap, memory_order_relaxed);
    x = x != 0 ? x : 0x9E3779B97F4A7C15ull; /* xorshift never leaves 0 */
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    atomic_store_explicit(&smp.rng, x, memory_order_relaxed);
    /* uniform in [1, 2g - 1]: mean g, and no aliasing with a program's
     * own period (e.g. alternating small and large calls) */
    unsigned next = g <= 1 ? 1 : 1 + (unsigned)(x % (2 * (uint64_t)g - 1));
    atomic_store_explicit(&rt_samples_countdown, next, memory_order_relaxed);
    return true;
}

/* After a timed call of ns: the running mean and the gap it implies. */
static void adapt_gap(uint64_t ns)
{
    if (smp.fixed_gap != 0)
        return;
    smp.mean_ns = smp.mean_ns == 0 ? ns : smp.mean_ns - smp.mean_ns / 16 + ns / 16;
    uint64_t m = smp.mean_ns ? smp.mean_ns : 1;
    uint64_t g = (SAMPLE_BUDGET_INV * smp.cost_ns + m - 1) / m;
    atomic_store_explicit(&smp.gap, (unsigned)(g < 1 ? 1 : g > SAMPLE_GAP_MAX ? SAMPLE_GAP_MAX : g),
                          memory_order_relaxed);
}

static void table_reset(void)
{
    for (int i = 0; i < SAMPLE_SLOTS; i++)
        smp.slot[i].alg = -1;
    smp.nused = 0;
    smp.hint = 0;
}

void rt_samples_init(int world_rank, int thread_level)
{
    const char *sock = getenv("ACCT_SOCKET");
    const char *job = getenv("ACCT_JOB");
    const char *part = getenv("ACCT_PARTITION");
    const char *inter = getenv("ACCT_INTERCONNECT");
    const char *why = NULL;

    rt_samples_on = false;
    if (sock == NULL || *sock == '\0')
        why = "ACCT_SOCKET is not set";
    else if (strlen(sock) >= sizeof(smp.socket))
        why = "ACCT_SOCKET is too long for a Unix socket path";
    else if (!acct_proto_name_ok(job, ACCT_RULES_NAME_MAX))
        why = "ACCT_JOB is not set or not a valid job identity";
    else if (!acct_proto_name_ok(part, ACCT_RULES_NAME_MAX))
        why = "ACCT_PARTITION is not set or not a valid name";
    else if (!acct_proto_name_ok(inter, ACCT_RULES_NAME_MAX))
        why = "ACCT_INTERCONNECT is not set or not a valid name";
    if (why != NULL || !selected(world_rank, &why)) {
        acct_debug("samples: off: %s", why);
        return;
    }
    memset(&smp.stats, 0, sizeof smp.stats);
    atomic_store(&smp.dropped_busy, 0);
    strcpy(smp.socket, sock);
    strcpy(smp.job, job);
    strcpy(smp.partition, part);
    strcpy(smp.interconnect, inter);
    smp.locking = thread_level == MPI_THREAD_MULTIPLE;
    atomic_flag_clear(&smp.busy);
    smp.interval_ns = parse_interval() * 1000000000ull;
    smp.next_flush_ns = mono_ns() + smp.interval_ns;
    smp.request_id = 0;
    smp.nalgs = acct_alg_count();
    smp.fixed_gap = parse_stride();
    smp.max_keys = parse_keys();
    smp.cost_ns = timing_cost();
    smp.mean_ns = 0;
    atomic_store(&smp.gap, smp.fixed_gap ? smp.fixed_gap : 1);
    atomic_store(&smp.rng, 0x9E3779B97F4A7C15ull ^ ((uint64_t)(unsigned)world_rank << 32) ^ mono_ns());
    atomic_store(&rt_samples_countdown, 1);
    acct_wbuf_init(&smp.w, ACCT_PROTO_MAX_USER_BODY);
    table_reset();
    rt_samples_on = true;
    acct_debug("samples: on: job %s, %s/%s, to %s every %llu s; timing a call costs %llu ns, "
               "gap %s", smp.job, smp.partition, smp.interconnect, smp.socket,
               (unsigned long long)(smp.interval_ns / 1000000000u),
               (unsigned long long)smp.cost_ns, smp.fixed_gap ? "fixed" : "adaptive");
}

/* One SAMPLE group from a slot; the moments made consistent for the
 * daemon's checks (rounding could put SUMSQ a hair under SUM²/COUNT). */
static void put_sample(struct acct_wbuf *w, const struct sample_slot *s)
{
    const struct acct_alg *alg = &acct_algs[s->alg];
    double sum = (double)s->sum_ns / 1e3, mean = sum / (double)s->count;
    double mn = (double)s->min_ns / 1e3, mx = (double)s->max_ns / 1e3;
    double sumsq = s->sumsq_us2, floor_sq = sum * sum / (double)s->count;
    if (mn > mean)
        mn = mean;
    if (mx < mean)
        mx = mean;
    if (sumsq < floor_sq)
        sumsq = floor_sq;
    acct_group_begin(w, ACCT_T_SAMPLE);
    acct_put_str(w, ACCT_T_COLLECTIVE, acct_coll_name(alg->coll));
    acct_put_u64(w, ACCT_T_COMM_SIZE, (uint64_t)s->comm_size);
    acct_put_u64(w, ACCT_T_BYTES_BUCKET, s->bucket);
    acct_put_str(w, ACCT_T_ALGORITHM, alg->name);
    if (s->segment != 0)
        acct_put_u64(w, ACCT_T_SEGMENT, s->segment);
    if (s->fanout != 0)
        acct_put_u64(w, ACCT_T_FANOUT, (uint64_t)s->fanout);
    if (s->reorder)
        acct_put_u64(w, ACCT_T_REORDER, 1);
    acct_put_u64(w, ACCT_T_COUNT, s->count);
    acct_put_f64(w, ACCT_T_SUM_US, sum);
    acct_put_f64(w, ACCT_T_MIN_US, mn);
    acct_put_f64(w, ACCT_T_MAX_US, mx);
    acct_put_f64(w, ACCT_T_SUMSQ_US, sumsq);
    acct_group_end(w);
}

/* Send the table in SAMPLES requests of up to SAMPLE_BATCH samples and
 * empty it, whatever happened to the requests (fire and forget). Called
 * with the table held (or single-threaded). */
static void flush(void)
{
    for (int from = 0; from < smp.nused; from += SAMPLE_BATCH) {
        int to = smp.nused - from > SAMPLE_BATCH ? from + SAMPLE_BATCH : smp.nused;
        acct_wbuf_start(&smp.w, ACCT_MSG_SAMPLES, ++smp.request_id);
        acct_put_str(&smp.w, ACCT_T_JOB, smp.job);
        acct_put_str(&smp.w, ACCT_T_PARTITION, smp.partition);
        acct_put_str(&smp.w, ACCT_T_INTERCONNECT, smp.interconnect);
        for (int i = from; i < to; i++)
            put_sample(&smp.w, &smp.slot[smp.used[i]]);
        if (acct_wbuf_finish(&smp.w) != 0) {
            smp.stats.batches_failed++;
            acct_debug("samples: cannot encode a batch (out of memory); dropped");
        } else if (acct_client_post(smp.socket, &smp.w) != 0) {
            int e = errno;
            smp.stats.batches_failed++;
            acct_debug("samples: %s: %s; batch of %d dropped", smp.socket, strerror(e), to - from);
        } else {
            smp.stats.batches_sent++;
            smp.stats.records_sent += (uint64_t)(to - from);
        }
    }
    table_reset();
}

static inline bool same_key(const struct sample_slot *s, const struct sample_slot *k)
{
    return s->alg == k->alg && s->comm_size == k->comm_size && s->bucket == k->bucket &&
           s->segment == k->segment && s->fanout == k->fanout && s->reorder == k->reorder;
}

/* The slot of a key: found, or claimed; NULL when the table is full. */
static struct sample_slot *lookup(const struct sample_slot *k)
{
    struct sample_slot *s = &smp.slot[smp.hint];
    if (same_key(s, k))
        return s;
    uint64_t h = ((uint64_t)(unsigned)k->alg * 0x9E3779B97F4A7C15ull) ^
                 (k->segment * 0xC2B2AE3D27D4EB4Full) ^ ((uint64_t)(unsigned)k->comm_size << 20) ^
                 ((uint64_t)k->bucket << 8) ^ ((uint64_t)(unsigned)k->fanout << 40) ^
                 (uint64_t)k->reorder;
    h ^= h >> 29;
    for (int probe = 0; probe < SAMPLE_SLOTS; probe++) {
        int i = (int)((h + (uint64_t)probe) % SAMPLE_SLOTS);
        s = &smp.slot[i];
        if (s->alg == -1) {
            if (smp.nused >= smp.max_keys)
                return NULL;
            *s = *k;
            smp.used[smp.nused++] = i;
            smp.hint = i;
            return s;
        }
        if (same_key(s, k)) {
            smp.hint = i;
            return s;
        }
    }
    return NULL;
}

void rt_samples_add(int alg_index, uint64_t segment, int fanout, bool reorder, uint64_t bytes,
                    MPI_Comm comm, uint64_t ns, uint64_t end_ns)
{
    struct sample_slot k = {.alg = alg_index, .bucket = acct_bytes_bucket(bytes)};
    struct sample_slot *s;
    if (alg_index < 0 || alg_index >= smp.nalgs ||
        PMPI_Comm_size(comm, &k.comm_size) != MPI_SUCCESS || k.comm_size < 1)
        return;
    const struct acct_alg *ran = &acct_algs[alg_index];
    k.segment = (ran->flags & ACCT_ALG_SEGMENTED) ? segment : 0;
    k.fanout = (ran->flags & ACCT_ALG_FANOUT) && fanout >= ran->fanout_min &&
                       fanout <= ran->fanout_max
                   ? fanout
                   : 0;
    k.reorder = reorder && !(ran->flags & ACCT_ALG_NATIVE);
    k.count = 0;
    k.min_ns = UINT64_MAX;
    if (smp.locking && atomic_flag_test_and_set_explicit(&smp.busy, memory_order_acquire)) {
        atomic_fetch_add_explicit(&smp.dropped_busy, 1, memory_order_relaxed);
        return;
    }
    if ((s = lookup(&k)) == NULL) {
        smp.stats.dropped_full++;
    } else {
        double us = (double)ns / 1e3;
        s->count++;
        s->sum_ns += ns;
        s->sumsq_us2 += us * us;
        if (ns < s->min_ns)
            s->min_ns = ns;
        if (ns > s->max_ns)
            s->max_ns = ns;
        smp.stats.calls++;
    }
    adapt_gap(ns);
    if (end_ns >= smp.next_flush_ns || (s != NULL && s->count >= SAMPLE_COUNT_MAX)) {
        flush();
        smp.next_flush_ns = end_ns + smp.interval_ns;
    }
    if (smp.locking)
        atomic_flag_clear_explicit(&smp.busy, memory_order_release);
}

void rt_samples_fini(void)
{
    if (!rt_samples_on)
        return;
    /* MPI_Finalize: no collective runs any more, but be exact about it */
    while (smp.locking && atomic_flag_test_and_set_explicit(&smp.busy, memory_order_acquire))
        ;
    rt_samples_on = false;
    flush();
    smp.stats.dropped_busy = atomic_load(&smp.dropped_busy);
    acct_debug("samples: mean gap %u, %llu calls sampled, %llu records in %llu batches sent, %llu batches "
               "dropped, %llu calls dropped (table full %llu, busy %llu)",
               atomic_load(&smp.gap), (unsigned long long)smp.stats.calls,
               (unsigned long long)smp.stats.records_sent,
               (unsigned long long)smp.stats.batches_sent,
               (unsigned long long)smp.stats.batches_failed,
               (unsigned long long)(smp.stats.dropped_full + smp.stats.dropped_busy),
               (unsigned long long)smp.stats.dropped_full,
               (unsigned long long)smp.stats.dropped_busy);
    acct_wbuf_free(&smp.w);
    if (smp.locking)
        atomic_flag_clear_explicit(&smp.busy, memory_order_release);
}

void rt_samples_get_stats(struct rt_samples_stats *out)
{
    *out = smp.stats;
    out->dropped_busy = atomic_load(&smp.dropped_busy);
}

uint64_t rt_samples_bytes(int count, MPI_Datatype dt)
{
    int size = 0;
    if (count <= 0 || PMPI_Type_size(dt, &size) != MPI_SUCCESS || size < 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

uint64_t rt_samples_block_bytes(enum acct_coll_id coll, const void *sbuf, int scount,
                                MPI_Datatype stype, const void *rbuf, int rcount,
                                MPI_Datatype rtype)
{
    /* The side that is significant on every rank: scatter's receive block
     * (its send side counts at the root only), the others' send block;
     * MPI_IN_PLACE moves it to the other side. */
    bool recv_side = coll == ACCT_COLL_scatter ? rbuf != MPI_IN_PLACE : sbuf == MPI_IN_PLACE;
    return recv_side ? rt_samples_bytes(rcount, rtype) : rt_samples_bytes(scount, stype);
}

uint64_t rt_samples_v_bytes(const int *counts, MPI_Datatype dt, MPI_Comm comm)
{
    int p = 0, inter = 1;
    uint64_t sum = 0;
    /* an intercommunicator's arrays have the remote group's size */
    if (counts == NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
        PMPI_Comm_size(comm, &p) != MPI_SUCCESS)
        return 0;
    for (int i = 0; i < p; i++)
        sum += rt_samples_bytes(counts[i], dt);
    return p > 0 ? sum / (uint64_t)p : 0;
}
