/* Collective ids and names. */
#include "acct/coll.h"

#include <string.h>

static const char *const names[ACCT_COLL_COUNT] = {
#define ACCT_X_NAME(lower) [ACCT_COLL_##lower] = #lower,
    ACCT_COLLECTIVES(ACCT_X_NAME)
#undef ACCT_X_NAME
};

const char *acct_coll_name(enum acct_coll_id id)
{
    return (unsigned)id < ACCT_COLL_COUNT ? names[id] : "?";
}

int acct_coll_from_name(const char *name, enum acct_coll_id *out)
{
    if (name == NULL)
        return -1;
    for (int i = 0; i < ACCT_COLL_COUNT; i++) {
        if (strcmp(name, names[i]) == 0) {
            if (out != NULL)
                *out = (enum acct_coll_id)i;
            return 0;
        }
    }
    return -1;
}

bool acct_coll_rooted(enum acct_coll_id id)
{
    return id == ACCT_COLL_bcast || id == ACCT_COLL_reduce || id == ACCT_COLL_gather ||
           id == ACCT_COLL_scatter || id == ACCT_COLL_gatherv || id == ACCT_COLL_scatterv;
}

bool acct_coll_reduces(enum acct_coll_id id)
{
    return id == ACCT_COLL_reduce || id == ACCT_COLL_allreduce ||
           id == ACCT_COLL_reduce_scatter_block || id == ACCT_COLL_reduce_scatter ||
           id == ACCT_COLL_scan || id == ACCT_COLL_exscan;
}

bool acct_coll_vector(enum acct_coll_id id)
{
    return id == ACCT_COLL_allgatherv || id == ACCT_COLL_reduce_scatter ||
           id == ACCT_COLL_gatherv || id == ACCT_COLL_scatterv || id == ACCT_COLL_alltoallv;
}

bool acct_coll_bytes_alike(enum acct_coll_id id)
{
    return id != ACCT_COLL_gatherv && id != ACCT_COLL_scatterv && id != ACCT_COLL_alltoallv;
}
