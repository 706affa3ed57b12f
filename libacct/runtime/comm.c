/* Per-communicator state, cached on the user's communicator as an MPI
 * attribute (not copied by MPI_Comm_dup), with a thread-local one-entry
 * cache in front of MPI_Comm_get_attr. A generation counter, bumped whenever
 * a state is deleted, keeps a cache from outliving a freed communicator
 * whose handle the MPI library reuses. */
#include "comm.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "acct/log.h"
#include "tags.h"

static int keyval = MPI_KEYVAL_INVALID;
static atomic_uint generation = 1;
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_comm *live;
static bool eager_only; /* MPI_THREAD_MULTIPLE: private duplicates only at creation */

static _Thread_local struct {
    MPI_Comm comm;
    struct rt_comm *st;
    unsigned gen;
} cache;

static void state_free(struct rt_comm *st)
{
    if (st->priv != MPI_COMM_NULL)
        PMPI_Comm_free(&st->priv);
    for (int i = 0; i < RT_SCHED_SLOTS; i++)
        acct_sched_free(&st->cache[i].sched);
    rt_scratch_free(&st->scratch);
    rt_tables_free(&st->tabs);
    acct_layout_free(&st->layout);
    free(st);
}

static void list_remove(struct rt_comm *st)
{
    pthread_mutex_lock(&list_lock);
    for (struct rt_comm **p = &live; *p != NULL; p = &(*p)->next)
        if (*p == st) {
            *p = st->next;
            break;
        }
    pthread_mutex_unlock(&list_lock);
}

/* The application freed a communicator we have state for. */
static int delete_fn(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)extra;
    struct rt_comm *st = value;
    atomic_fetch_add(&generation, 1);
    list_remove(st);
    /* non-blocking collectives still use its private duplicate: the last
     * one frees it (rt_comm_nb_done) */
    atomic_store(&st->nb_orphaned, true);
    if (atomic_load(&st->nb_inflight) == 0)
        state_free(st);
    return MPI_SUCCESS;
}

int rt_comm_init(int thread_level)
{
    eager_only = thread_level == MPI_THREAD_MULTIPLE;
    return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval, NULL);
}

void rt_comm_fini(void)
{
    struct rt_comm *st;
    /* Detach every state before PMPI_Finalize so no delete callback runs
     * during finalisation, then free them. */
    pthread_mutex_lock(&list_lock);
    st = live;
    live = NULL;
    pthread_mutex_unlock(&list_lock);
    atomic_fetch_add(&generation, 1);
    while (st != NULL) {
        struct rt_comm *next = st->next;
        /* runs delete_fn, which frees st (already unlinked) */
        PMPI_Comm_delete_attr(st->user, keyval);
        st = next;
    }
    if (keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&keyval);
}

struct rt_comm rt_comm_unknown = {.user = MPI_COMM_NULL, .priv = MPI_COMM_NULL, .unknown = true};

static struct rt_comm *state_new(MPI_Comm comm)
{
    struct rt_comm *st = calloc(1, sizeof *st);
    if (st == NULL)
        return &rt_comm_unknown;
    st->user = comm;
    st->priv = MPI_COMM_NULL;
    for (int i = 0; i < RT_SCHED_SLOTS; i++)
        acct_sched_init(&st->cache[i].sched);
    int inter = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || PMPI_Comm_rank(comm, &st->rank) != MPI_SUCCESS ||
        PMPI_Comm_size(comm, &st->size) != MPI_SUCCESS ||
        PMPI_Comm_set_attr(comm, keyval, st) != MPI_SUCCESS) {
        free(st);
        return NULL;
    }
    st->inter = inter != 0;
    if (rt_tables_build(&st->tabs, st->size) != 0) {
        /* out of memory: this rank cannot decide like the others */
        PMPI_Comm_delete_attr(comm, keyval);
        return &rt_comm_unknown;
    }
    pthread_mutex_lock(&list_lock);
    st->next = live;
    live = st;
    pthread_mutex_unlock(&list_lock);
    return st;
}

struct rt_comm *rt_comm_get(MPI_Comm comm)
{
    unsigned gen = atomic_load_explicit(&generation, memory_order_acquire);
    void *value = NULL;
    int found = 0;

    if (cache.comm == comm && cache.gen == gen && cache.st != NULL)
        return cache.st;
    if (keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL)
        return NULL;
    if (PMPI_Comm_get_attr(comm, keyval, &value, &found) != MPI_SUCCESS)
        return NULL;
    struct rt_comm *st = found ? value : state_new(comm);
    if (st != NULL && !st->unknown) {
        cache.comm = comm;
        cache.st = st;
        cache.gen = gen;
    }
    return st;
}

static void find_layout(struct rt_comm *st)
{
    st->layout_state = rt_locality(st->priv, st->rank, st->size, &st->layout) == 0 ? 1 : -1;
}

static void make_priv(struct rt_comm *st)
{
    if (PMPI_Comm_dup(st->user, &st->priv) != MPI_SUCCESS) {
        st->priv = MPI_COMM_NULL;
        st->broken = true;
    } else if (eager_only) { /* no communicator is made inside a collective */
        find_layout(st);
    }
}

void rt_comm_prepare(MPI_Comm comm)
{
    struct rt_comm *st = rt_comm_get(comm);
    if (st != NULL && !st->unknown && !st->inter && st->size >= 2)
        rt_comm_priv(st);
}

int rt_comm_nb_begin(struct rt_comm *st)
{
    atomic_fetch_add(&st->nb_inflight, 1);
    return RT_TAG_NB + (int)(st->nb_seq++ % RT_NB_TAGS);
}

void rt_comm_nb_done(struct rt_comm *st)
{
    if (atomic_fetch_sub(&st->nb_inflight, 1) == 1 && atomic_load(&st->nb_orphaned))
        state_free(st);
}

const struct acct_layout *rt_comm_layout(struct rt_comm *st)
{
    if (st->layout_state == 0 && !eager_only && rt_comm_priv(st) != MPI_COMM_NULL)
        find_layout(st);
    return st->layout_state == 1 ? &st->layout : NULL;
}

bool rt_comm_runs_acct(const struct rt_comm *st)
{
    if (st->size < 2)
        return false;
    return eager_only ? st->priv != MPI_COMM_NULL : !st->broken;
}

MPI_Comm rt_comm_priv(struct rt_comm *st)
{
    if (st->priv == MPI_COMM_NULL && !st->broken && !eager_only)
        make_priv(st);
    return st->priv;
}

void rt_comm_created(MPI_Comm comm)
{
    if (!eager_only || comm == MPI_COMM_NULL)
        return;
    struct rt_comm *st = rt_comm_get(comm);
    if (st != NULL && !st->unknown && !st->inter && st->size >= 2 && st->priv == MPI_COMM_NULL &&
        !st->broken)
        make_priv(st);
}
