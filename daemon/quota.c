/* Limits on what users can make the store hold (docs/acctd.md, "Limits"):
 * sample_stats rows per uid over the retention window, and the store's
 * size. The counts live in memory: loaded once at startup (one pass, like
 * the quick_check before it), then kept by the SAMPLES handler (new rows)
 * and the background pass (pruned rows). */
#include <stdlib.h>
#include <time.h>

#include "acctd.h"

int64_t *quota_rows(struct acctd *d, uid_t uid)
{
    for (size_t i = 0; i < d->nurows; i++)
        if (d->urows[i].uid == uid)
            return &d->urows[i].rows;
    if (d->nurows == d->cap_urows) {
        size_t cap = d->cap_urows ? d->cap_urows * 2 : 64;
        struct uid_rows *n = realloc(d->urows, cap * sizeof(*n));
        if (n == NULL)
            return NULL;
        d->urows = n;
        d->cap_urows = cap;
    }
    d->urows[d->nurows] = (struct uid_rows){.uid = uid, .rows = 0};
    return &d->urows[d->nurows++].rows;
}

static int add_rows(void *arg, long uid, int64_t rows)
{
    int64_t *r = quota_rows(arg, (uid_t)uid);
    if (r == NULL)
        return -1;
    *r = rows;
    return 0;
}

int quota_load(struct acctd *d)
{
    d->nurows = 0;
    return store_rows_by_uid(d->store, add_rows, d);
}

bool quota_store_full(struct acctd *d)
{
    /* three PRAGMAs: asked at most once a second, not per request */
    time_t now = time(NULL);
    if (now != d->store_size_at) {
        d->store_size_at = now;
        d->store_bytes = store_size_bytes(d->store);
    }
    return d->store_bytes > d->cfg.max_store_mb * 1024 * 1024;
}
