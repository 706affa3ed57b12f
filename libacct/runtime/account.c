/* Per-call accounting: counts, times and the report's detail table
 * (account.h). */
#include "account.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "samples.h"

struct rt_alg_stats rt_account_alg[RT_MAX_ALGS];
struct rt_alg_stats rt_account_nb[RT_MAX_ALGS];

static bool timing; /* a report was asked for */

/* Registry index of each collective's native entry (filled at init). */
static int native_index[ACCT_COLL_COUNT];

/* The detail table: open addressing, linear probing (report mode only). */
static struct rt_detail details[RT_DETAIL_SLOTS];
static size_t ndetails;
static uint64_t details_dropped;
static pthread_mutex_t details_lock = PTHREAD_MUTEX_INITIALIZER;

void rt_account_init(bool timed)
{
    timing = timed;
    for (size_t i = 0; i < RT_MAX_ALGS; i++) {
        atomic_store(&rt_account_alg[i].calls, 0);
        atomic_store(&rt_account_alg[i].nanoseconds, 0);
        atomic_store(&rt_account_alg[i].reordered, 0);
        atomic_store(&rt_account_nb[i].calls, 0);
        atomic_store(&rt_account_nb[i].nanoseconds, 0);
        atomic_store(&rt_account_nb[i].reordered, 0);
    }
    for (size_t i = 0; i < RT_DETAIL_SLOTS; i++)
        details[i] = (struct rt_detail){.alg = -1};
    ndetails = 0;
    details_dropped = 0;
    for (int c = 0; c < ACCT_COLL_COUNT; c++) {
        const struct acct_alg *n = acct_alg_native((enum acct_coll_id)c);
        native_index[c] = n != NULL ? acct_alg_index(n) : -1;
    }
}

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t rt_account_begin(void)
{
    return timing || (rt_samples_on && rt_samples_tick()) ? now_ns() : 0; /* report, samples */
}

static void detail(int alg_index, uint64_t segment, int comm_size, uint64_t ns)
{
    uint64_t h = ((uint64_t)(unsigned)alg_index * 0x9E3779B97F4A7C15ull) ^
                 (segment * 0xC2B2AE3D27D4EB4Full) ^ ((uint64_t)(unsigned)comm_size << 17);
    h ^= h >> 29;
    pthread_mutex_lock(&details_lock);
    for (size_t probe = 0; probe < RT_DETAIL_SLOTS; probe++) {
        struct rt_detail *d = &details[(h + probe) % RT_DETAIL_SLOTS];
        if (d->alg == -1) {
            if (ndetails >= RT_DETAIL_SLOTS * 3 / 4)
                break; /* keep probes short: count it as dropped */
            *d = (struct rt_detail){.alg = alg_index, .comm_size = comm_size, .segment = segment};
            ndetails++;
        }
        if (d->alg == alg_index && d->comm_size == comm_size && d->segment == segment) {
            d->calls++;
            d->nanoseconds += ns;
            pthread_mutex_unlock(&details_lock);
            return;
        }
    }
    details_dropped++;
    pthread_mutex_unlock(&details_lock);
}

void rt_account_call(enum acct_coll_id coll, const struct rt_ran *ran, MPI_Comm comm, uint64_t t0)
{
    int idx = ran->alg != NULL ? acct_alg_index(ran->alg) : native_index[coll];
    uint64_t ns = t0 != 0 ? now_ns() - t0 : 0;
    if (idx < 0 || idx >= RT_MAX_ALGS)
        return;
    atomic_fetch_add_explicit(&rt_account_alg[idx].calls, 1, memory_order_relaxed);
    if (t0 != 0)
        atomic_fetch_add_explicit(&rt_account_alg[idx].nanoseconds, ns, memory_order_relaxed);
    if (ran->reorder)
        atomic_fetch_add_explicit(&rt_account_alg[idx].reordered, 1, memory_order_relaxed);
    int size = 0;
    if (timing && t0 != 0 && PMPI_Comm_size(comm, &size) == MPI_SUCCESS) /* a report */
        detail(idx, ran->segment, size, ns);
    if (rt_samples_on && t0 != 0)
        rt_samples_add(idx, ran->segment, ran->fanout, ran->reorder, ran->bytes, comm, ns, t0 + ns);
}

uint64_t rt_account_nb_call(enum acct_coll_id coll, const struct acct_alg *alg)
{
    int idx = alg != NULL ? acct_alg_index(alg) : native_index[coll];
    if (idx >= 0 && idx < RT_MAX_ALGS)
        atomic_fetch_add_explicit(&rt_account_nb[idx].calls, 1, memory_order_relaxed);
    return timing ? now_ns() : 0;
}

void rt_account_nb_done(const struct acct_alg *alg, int coll, uint64_t t0)
{
    int idx = alg != NULL ? acct_alg_index(alg) : native_index[coll];
    if (t0 != 0 && idx >= 0 && idx < RT_MAX_ALGS)
        atomic_fetch_add_explicit(&rt_account_nb[idx].nanoseconds, now_ns() - t0,
                                  memory_order_relaxed);
}

static int cmp_detail(const void *pa, const void *pb)
{
    const struct rt_detail *a = pa, *b = pb;
    if (a->alg != b->alg)
        return a->alg == -1 ? 1 : b->alg == -1 ? -1 : (a->alg > b->alg) - (a->alg < b->alg);
    if (a->comm_size != b->comm_size)
        return (a->comm_size > b->comm_size) - (a->comm_size < b->comm_size);
    return (a->segment > b->segment) - (a->segment < b->segment);
}

size_t rt_account_details(const struct rt_detail **rows, uint64_t *dropped)
{
    /* called once, at MPI_Finalize, when no collective runs any more */
    qsort(details, RT_DETAIL_SLOTS, sizeof *details, cmp_detail);
    *rows = details;
    *dropped = details_dropped;
    return ndetails;
}
