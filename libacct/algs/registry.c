/* The algorithm registry (acct/alg.h): one table, designated initialisers,
 * a sentinel. Adding an algorithm touches its collective's folder only:
 * its file under algs/<coll>/ (builder and closed form) and its line in
 * that folder's CMakeLists.txt, their declarations in <coll>.h
 * (ACCT_ALG_FUNCTIONS) and its row in <coll>/entries.h (with its
 * limits, SACK tree and Open MPI equivalent); the matrix tests, the model,
 * validation, listings and exports pick it up, and tests/unit/test_registry.c
 * fails for a row that leaves a fact out. */
#include "acct/alg.h"

#include <stdio.h>
#include <string.h>

#include "algs.h"

#define ACCT_NATIVE_ENTRY(c)                                               \
    {.coll = ACCT_COLL_##c, .name = "native",                                  \
     .description = "the MPI library's own implementation (no ACCT algorithm)", \
     .flags = ACCT_ALG_NATIVE, .ompi = {0, "(decision)", true}}

const struct acct_alg acct_algs[] = {
#include "barrier/entries.h"
#include "bcast/entries.h"
#include "reduce/entries.h"
#include "allreduce/entries.h"
#include "gather/entries.h"
#include "scatter/entries.h"
#include "allgather/entries.h"
#include "alltoall/entries.h"
#include "reduce_scatter_block/entries.h"
#include "allgatherv/entries.h"
#include "reduce_scatter/entries.h"
#include "gatherv/entries.h"
#include "scatterv/entries.h"
#include "alltoallv/entries.h"
#include "scan/entries.h"
#include "exscan/entries.h"
    {.name = NULL},
};

int acct_alg_count(void)
{
    int n = 0;
    while (acct_algs[n].name != NULL)
        n++;
    return n;
}

const struct acct_alg *acct_alg_find(enum acct_coll_id coll, const char *name)
{
    if (name == NULL)
        return NULL;
    for (const struct acct_alg *a = acct_algs; a->name != NULL; a++)
        if (a->coll == coll && strcmp(a->name, name) == 0)
            return a;
    return NULL;
}

const struct acct_alg *acct_alg_native(enum acct_coll_id coll)
{
    return acct_alg_find(coll, "native");
}

int acct_alg_index(const struct acct_alg *alg)
{
    return (int)(alg - acct_algs);
}

const struct acct_layout acct_layout_any = {0};

bool acct_alg_applicable(const struct acct_alg *alg, const struct acct_call *call,
                         const char **why)
{
    const char *reason = NULL;
    if (alg->flags & ACCT_ALG_NATIVE)
        goto out;
    if (alg->coll != call->coll)
        reason = "algorithm of another collective";
    else if ((alg->flags & ACCT_ALG_COMMUTATIVE) && !call->commutative)
        reason = "needs a commutative operation";
    else if ((alg->flags & ACCT_ALG_POW2) && (call->size & (call->size - 1)) != 0)
        reason = "needs a power-of-two number of processes";
    else if ((alg->flags & ACCT_ALG_COUNT_GE_SIZE) && call->count < (uint64_t)call->size)
        reason = "needs at least one element per process";
    else if ((alg->flags & ACCT_ALG_FANOUT) && call->fanout != 0 &&
             (call->fanout < alg->fanout_min || call->fanout > alg->fanout_max))
        reason = "fan-out out of range";
    else if ((alg->flags & ACCT_ALG_NODES) && call->layout != &acct_layout_any &&
             (call->layout == NULL || call->layout->size != call->size))
        reason = "needs to know which ranks share a node";
out:
    if (why != NULL)
        *why = reason;
    return reason == NULL;
}

bool acct_alg_reorderable(const struct acct_alg *alg, const struct acct_call *call,
                          const char **why)
{
    const char *reason = NULL;
    if (alg->flags & ACCT_ALG_NATIVE)
        reason = "the native algorithm cannot be reordered";
    else if (!(alg->flags & ACCT_ALG_REORDER))
        reason = "the algorithm has no SACK reordering";
    else if (call != NULL && acct_coll_reduces(alg->coll) && !call->commutative)
        reason = "reordering needs a commutative operation";
    if (why != NULL)
        *why = reason;
    return reason == NULL;
}

const char *acct_alg_reorder_msg(const struct acct_alg *alg, char *buf, size_t len)
{
    size_t n = 0;
    int k = 0;
#define ACCT_APPEND(...)                                                                           \
    do {                                                                                           \
        int w_ = snprintf(buf + n, len - n, __VA_ARGS__);                                          \
        n = w_ < 0 ? n : (size_t)w_ >= len - n ? len - 1 : n + (size_t)w_;                        \
    } while (0)
    if (len == 0)
        return buf;
    buf[0] = '\0';
    ACCT_APPEND("%s %s has no SACK reordering (reorder-capable %s algorithms:",
                acct_coll_name(alg->coll), alg->name, acct_coll_name(alg->coll));
    for (const struct acct_alg *a = acct_algs; a->name != NULL; a++)
        if (a->coll == alg->coll && acct_alg_reorderable(a, NULL, NULL))
            ACCT_APPEND("%s %s", k++ ? "," : "", a->name);
    ACCT_APPEND("%s)", k ? "" : " none");
#undef ACCT_APPEND
    return buf;
}

const struct acct_alg *acct_alg_resolve(const struct acct_alg *alg, struct acct_call *call)
{
    const struct acct_alg *a = alg;
    /* a chain visits each algorithm at most once: the registry size bounds it */
    for (int hops = 0; a != NULL && hops <= acct_alg_count(); hops++) {
        if (acct_alg_applicable(a, call, NULL))
            break;
        a = a->fallback != NULL ? acct_alg_find(a->coll, a->fallback) : NULL;
    }
    if (a == NULL || !acct_alg_applicable(a, call, NULL))
        a = acct_alg_native(call->coll);
    if (a != alg) {
        if (!(a->flags & ACCT_ALG_SEGMENTED))
            call->seg = 0;
        if (!(a->flags & ACCT_ALG_FANOUT))
            call->fanout = 0;
    }
    return a;
}

int acct_alg_schedule(const struct acct_alg *alg, const struct acct_call *call,
                      struct acct_sched *s)
{
    struct acct_call c = *call;
    acct_sched_reset(s);
    if (alg->build == NULL || !acct_alg_applicable(alg, call, NULL))
        return -1;
    /* Builders always see a fan-out in range. */
    if ((alg->flags & ACCT_ALG_FANOUT) && c.fanout == 0)
        c.fanout = alg->fanout_default;
    if (alg->build(&c, s) != 0) {
        acct_sched_reset(s);
        return -1;
    }
    return acct_sched_finish(s);
}
