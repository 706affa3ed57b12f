/* Output queued per uid (docs/acctd.md, "Limits"): the bytes of replies not
 * yet sent, counted against each connection's uid, so that one user's slow
 * readers cannot hold all of acctd's memory. The server counts what it
 * queues and sends; the round's transaction (txn.c) discards the replies of
 * a failed commit. */
#include "acctd.h"

#include <stdlib.h>

/* Count delta bytes (negative: sent or discarded) against c's uid. */
void acctd_outq_add(struct acctd *d, const struct client *c, long long delta)
{
    size_t i = 0;
    while (i < d->noutq && d->outq[i].uid != c->out_uid)
        i++;
    if (i == d->noutq) {
        if (delta <= 0)
            return;
        if (d->noutq == d->cap_outq) {
            size_t cap = d->cap_outq ? d->cap_outq * 2 : 16;
            struct uid_out *n = realloc(d->outq, cap * sizeof(*n));
            if (n == NULL)
                return; /* not counted: the per-connection limit still holds */
            d->outq = n;
            d->cap_outq = cap;
        }
        d->outq[d->noutq++] = (struct uid_out){.uid = c->out_uid, .bytes = 0};
    }
    long long b = (long long)d->outq[i].bytes + delta;
    d->outq[i].bytes = b > 0 ? (size_t)b : 0;
    if (d->outq[i].bytes == 0)
        d->outq[i] = d->outq[--d->noutq];
}

size_t acctd_outq_bytes(const struct acctd *d, uid_t uid)
{
    for (size_t i = 0; i < d->noutq; i++)
        if (d->outq[i].uid == uid)
            return d->outq[i].bytes;
    return 0;
}

/* Forget c's unsent output (the peer is gone or must not get it). */
void acctd_out_discard(struct acctd *d, struct client *c)
{
    acctd_outq_add(d, c, -(long long)(c->out_len - c->out_off));
    c->out_off = c->out_len = 0;
}
