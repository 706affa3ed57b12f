/* The round's transaction (see server.c): write requests and the background
 * work share one transaction per round of the loop, each in its own
 * savepoint; the commit settles the clients whose replies acknowledge it
 * and then materialises the rules files if activations happened. */
#include "acctd.h"

#include <stdint.h>
#include <time.h>

/* Open the round's transaction (BEGIN IMMEDIATE: the write lock). If
 * another process holds the lock, say so in store_locked and fail. */
int acctd_tx_open(struct acctd *d)
{
    if (d->tx_open)
        return 0;
    if (d->store_locked)
        return -1;
    /* while the lock is taken: a try every 100 ms, without waiting */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t now_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    if (d->lock_seen && now_ms < d->lock_retry_ms) {
        d->store_locked = true;
        return -1;
    }
    if (d->lock_seen)
        store_set_busy_timeout(d->store, 0);
    int r = store_begin(d->store);
    if (d->lock_seen)
        store_set_busy_timeout(d->store, ACCTD_BUSY_TIMEOUT_MS);
    if (r != 0) {
        if (store_busy(d->store)) {
            if (!d->lock_seen)
                LOG_I("the store is locked by another process: writes wait for it");
            d->lock_seen = d->store_locked = true;
            d->lock_retry_ms = now_ms + ACCTD_LOCK_RETRY_MS;
        } else {
            LOG_E("cannot begin a transaction: %s", store_errmsg(d->store));
        }
        return -1;
    }
    if (d->lock_seen)
        LOG_I("the other process released the store's lock: writes go on");
    d->lock_seen = false;
    d->tx_open = true;
    return 0;
}

int acctd_write_begin(struct acctd *d, struct client *c)
{
    if (acctd_tx_open(d) != 0) {
        if (d->store_locked)
            LOG_W("the store is locked by another process: %s",
                  c != NULL ? "request refused" : "background work postponed");
        return -1;
    }
    if (c != NULL)
        c->awaiting_commit = true;
    if (store_savepoint(d->store) != 0) {
        LOG_E("cannot open a savepoint: %s", store_errmsg(d->store));
        return -1;
    }
    return 0;
}

void acctd_write_end(struct acctd *d, bool ok)
{
    store_release(d->store, ok);
}

/* After the commit (or its failure): replies may go, or the clients that
 * expected an acknowledgement are dropped. */
static void settle(struct acctd *d, bool committed)
{
    for (size_t i = 0; i < d->nclients; i++) {
        struct client *c = d->clients[i];
        if (!c->awaiting_commit)
            continue;
        c->awaiting_commit = false;
        if (!committed) {
            acctd_out_discard(d, c);
            c->closing = true;
        }
    }
}

int acctd_commit_now(struct acctd *d)
{
    int rc = 0;
    if (!d->tx_open)
        goto out;
    d->tx_open = false;
    if (store_commit(d->store) != 0) {
        LOG_E("commit failed: %s; the requests of this round are undone",
              store_errmsg(d->store));
        store_rollback_tx(d->store);
        settle(d, false);
        d->rules_dirty = true; /* the cache may hold uncommitted versions */
        d->samples_total = store_count_samples(d->store);
        if (quota_load(d) != 0)
            LOG_E("cannot recount the sample rows per user: %s", store_errmsg(d->store));
        rc = -1;
        goto out;
    }
    settle(d, true);
out:
    if (d->rules_dirty) {
        d->rules_dirty = false;
        if (rulesdir_sync(d) != 0)
            LOG_E("cannot materialise the rules files in %s", d->cfg.rules_dir);
    }
    return rc;
}

