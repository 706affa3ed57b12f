/* The non-blocking collectives' progress engine (nb.h).
 *
 * The ops in flight form one list under one mutex. The progress callback
 * only *tries* the mutex: it runs inside opal_progress, which the engine's
 * own PMPI_Testall calls again (re-entry: the try fails and the nested call
 * returns at once), and under MPI_THREAD_MULTIPLE another thread may be
 * advancing the list already (then this one has nothing to do). Posting
 * takes the mutex for real: it is never called from inside the callback.
 *
 * An op's memory is held by two references: the engine's (dropped when the
 * schedule is done and the request completed) and the request's (dropped
 * by the request's free callback, when the application's MPI_Wait*,
 * MPI_Test* or MPI_Request_free releases it). The request's query callback
 * reads op->rc, so the op outlives the completion until the request goes. */
#include "nb.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "acct/log.h"
#include "account.h"
#include "comm.h"

typedef int (*opal_cb)(void);
typedef int (*opal_register_fn)(opal_cb);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_nb_op *inflight;          /* under lock */
static atomic_int ninflight;               /* the list's length, read without the lock */
static opal_register_fn hook_register, hook_unregister;
static bool registered;                    /* under lock */
/* This thread holds lock inside the engine: a request callback that Open
 * MPI runs from there (PMPI_Grequest_complete frees a request the
 * application already freed) must not take it again. */
static _Thread_local bool in_engine;

/* The hook, in the loaded MPI library (dlsym with the handle of the
 * object that defines PMPI_Init searches it and its dependencies, where
 * Open MPI's libopen-pal is), whatever scope it was loaded in. */
void rt_nb_init(void)
{
    Dl_info info;
    void *h, *reg = NULL, *unreg = NULL;
    const char *off = getenv("ACCT_NONBLOCKING");

    hook_register = hook_unregister = NULL;
    if (off != NULL && strcmp(off, "0") == 0) {
        acct_debug("ACCT_NONBLOCKING=0: non-blocking collectives run natively");
        return;
    }
    if (dladdr((void *)&PMPI_Init, &info) != 0 && info.dli_fname != NULL &&
        (h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD)) != NULL) {
        reg = dlsym(h, "opal_progress_register");
        unreg = dlsym(h, "opal_progress_unregister");
        dlclose(h); /* NOLOAD: the MPI library stays mapped as before */
    }
    if (reg == NULL || unreg == NULL) {
        acct_debug("no progress hook in the MPI library: non-blocking collectives run natively");
        return;
    }
    memcpy(&hook_register, &reg, sizeof reg); /* POSIX: a dlsym() result converts */
    memcpy(&hook_unregister, &unreg, sizeof unreg);
}

void rt_nb_agreed(int every_rank)
{
    if (!every_rank) {
        if (hook_register != NULL)
            acct_debug("not every rank can run non-blocking collectives: they run natively");
        hook_register = hook_unregister = NULL;
    }
}

bool rt_nb_available(void)
{
    return hook_register != NULL;
}

struct rt_nb_op *rt_nb_new(void)
{
    struct rt_nb_op *op = calloc(1, sizeof *op);
    if (op != NULL) {
        acct_sched_init(&op->sched);
        op->req = MPI_REQUEST_NULL;
    }
    return op;
}

void rt_nb_discard(struct rt_nb_op *op)
{
    if (op == NULL)
        return;
    acct_sched_free(&op->sched);
    rt_scratch_free(&op->scratch);
    for (int i = 0; i < op->nkept; i++)
        PMPI_Type_free(&op->kept[i]);
    free(op->pack[0]);
    free(op->pack[1]);
    free(op->blocks);
    free(op->counts);
    free(op);
}

/* Drop one reference (under lock); the last frees the op. */
static void op_release(struct rt_nb_op *op)
{
    if (--op->refs == 0)
        rt_nb_discard(op);
}

/* The generalized request's callbacks (MPI-3.1 section 12.2). */
static int nb_query(void *extra, MPI_Status *status)
{
    struct rt_nb_op *op = extra;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = op->rc;
    return op->rc;
}

static int nb_free(void *extra)
{
    if (in_engine) {
        op_release(extra);
        return MPI_SUCCESS;
    }
    pthread_mutex_lock(&lock);
    op_release(extra);
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

/* A started collective cannot be cancelled (MPI-3.1 section 5.12: freeing
 * or cancelling its request is erroneous): the call has no effect and the
 * request completes as the collective does, never marked cancelled. */
static int nb_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

/* Advance op once; true when it is done (its request then completed and
 * the engine's reference dropped by the caller). */
static bool advance(struct rt_nb_op *op)
{
    bool done = false;
    int rc = rt_exec_advance(&op->run, false, &done);
    while (rc == MPI_SUCCESS && done && op->then != NULL) { /* the next stage */
        int (*then)(struct rt_nb_op *) = op->then;
        op->then = NULL;
        done = false;
        rc = then(op);
        if (rc == MPI_SUCCESS)
            rc = rt_exec_advance(&op->run, false, &done);
    }
    if (rc == MPI_SUCCESS && !done)
        return false;
    op->rc = op->finish(op, rc);
    rt_account_nb_done(op->alg, op->coll, op->t0);
    rt_comm_nb_done(op->st);
    PMPI_Grequest_complete(op->req);
    return true;
}

/* Every op in flight, once; under lock. Returns how many completed. */
static int advance_all(void)
{
    int events = 0;
    for (struct rt_nb_op **p = &inflight; *p != NULL;) {
        struct rt_nb_op *op = *p;
        if (advance(op)) {
            *p = op->next;
            atomic_fetch_sub_explicit(&ninflight, 1, memory_order_relaxed);
            op_release(op);
            events++;
        } else {
            p = &op->next;
        }
    }
    return events;
}

/* The callback in the MPI library's progress loop. Its return value
 * counts events: MPI_Test rechecks its request after a call that
 * reported one, so a collective completed here is seen by that test. */
static int progress_cb(void)
{
    int events;
    if (atomic_load_explicit(&ninflight, memory_order_relaxed) == 0)
        return 0;
    if (pthread_mutex_trylock(&lock) != 0)
        return 0; /* re-entered from our own PMPI_Testall, or another thread advances */
    in_engine = true;
    events = advance_all();
    in_engine = false;
    pthread_mutex_unlock(&lock);
    return events;
}

int rt_nb_start(struct rt_nb_op *op, MPI_Request *request)
{
    int rc = PMPI_Grequest_start(nb_query, nb_free, nb_cancel, op, &op->req);
    if (rc != MPI_SUCCESS) {
        rt_comm_nb_done(op->st);
        rt_nb_discard(op);
        return rc;
    }
    op->refs = 2;
    *request = op->req;
    pthread_mutex_lock(&lock);
    in_engine = true;
    if (!registered && hook_register(progress_cb) == 0)
        registered = true;
    if (advance(op)) {
        op_release(op);
    } else { /* at the tail: the oldest collective advances first */
        struct rt_nb_op **p = &inflight;
        while (*p != NULL)
            p = &(*p)->next;
        op->next = NULL;
        *p = op;
        atomic_fetch_add_explicit(&ninflight, 1, memory_order_relaxed);
    }
    in_engine = false;
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

void rt_nb_fini(void)
{
    pthread_mutex_lock(&lock);
    if (inflight != NULL)
        acct_warn("MPI_Finalize with %d non-blocking collective(s) still in flight (erroneous "
                  "program); they are left incomplete",
                  atomic_load(&ninflight));
    if (registered)
        hook_unregister(progress_cb);
    registered = false;
    pthread_mutex_unlock(&lock);
}
