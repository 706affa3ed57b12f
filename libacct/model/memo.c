/* The prediction memo (acct/model.h, struct acct_model_memo): an
 * open-addressing table of acct_model_predict_how's answers, keyed by the
 * point, the decision and a fingerprint of the model's parameters. */
#include "acct/model.h"

#include <stdlib.h>
#include <string.h>

struct memo_entry {
    uint64_t model;           /* the parameters' fingerprint */
    const struct acct_alg *alg; /* NULL: a free slot */
    uint64_t seg, bytes;
    int fanout, p;
    bool reorder;
    enum acct_coll_id coll;
    double t_us;
    enum acct_model_source how;
};

struct acct_model_memo {
    struct memo_entry *v;
    size_t cap, n;        /* cap a power of two, n <= cap / 2 */
    size_t hits, misses;
};

/* FNV-1a over the bytes of x, continuing h. */
static uint64_t mix(uint64_t h, const void *x, size_t len)
{
    const unsigned char *b = x;
    for (size_t i = 0; i < len; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t mix_table(uint64_t h, const struct acct_plogp *t)
{
    size_t n = t->n < ACCT_PLOGP_MAX_SIZES ? t->n : ACCT_PLOGP_MAX_SIZES;
    h = mix(h, &t->L_us, sizeof t->L_us);
    h = mix(h, &n, sizeof n);
    h = mix(h, t->m, n * sizeof *t->m);
    h = mix(h, t->os_us, n * sizeof *t->os_us);
    h = mix(h, t->or_us, n * sizeof *t->or_us);
    return mix(h, t->g_us, n * sizeof *t->g_us);
}

/* Every parameter a prediction reads (not the memo pointer, not padding). */
static uint64_t fingerprint(const struct acct_model *mdl)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const struct acct_model_nodes *nd = &mdl->nodes;
    int cyclic = nd->cyclic;
    h = mix_table(h, &mdl->net);
    h = mix(h, &nd->ranks_per_node, sizeof nd->ranks_per_node);
    if (nd->ranks_per_node > 0) {
        h = mix(h, &cyclic, sizeof cyclic);
        h = mix_table(h, &nd->intra);
        h = mix_table(h, &nd->inter);
        h = mix(h, &nd->nic_gap_factor, sizeof nd->nic_gap_factor);
        h = mix(h, &nd->nic_pairs, sizeof nd->nic_pairs);
        h = mix(h, &nd->nic_bidir_factor, sizeof nd->nic_bidir_factor);
        h = mix(h, &nd->nic_bidir_pairs, sizeof nd->nic_bidir_pairs);
        h = mix(h, &nd->pair_duplex_factor, sizeof nd->pair_duplex_factor);
        h = mix(h, &nd->pair_duplex_overlap_bytes, sizeof nd->pair_duplex_overlap_bytes);
    }
    h = mix(h, &mdl->gamma_us_per_byte, sizeof mdl->gamma_us_per_byte);
    h = mix(h, &mdl->delta_us_per_byte, sizeof mdl->delta_us_per_byte);
    h = mix(h, &mdl->contention, sizeof mdl->contention);
    return mix(h, &mdl->sim_budget_bytes, sizeof mdl->sim_budget_bytes);
}

struct acct_model_memo *acct_model_memo_new(void)
{
    return calloc(1, sizeof(struct acct_model_memo));
}

void acct_model_memo_free(struct acct_model_memo *m)
{
    if (m == NULL)
        return;
    free(m->v);
    free(m);
}

void acct_model_memo_stats(const struct acct_model_memo *m, size_t *hits, size_t *misses)
{
    *hits = m != NULL ? m->hits : 0;
    *misses = m != NULL ? m->misses : 0;
}

static uint64_t slot_of(const struct memo_entry *e)
{
    uint64_t h = e->model;
    h = mix(h, &e->alg, sizeof e->alg);
    h = mix(h, &e->seg, sizeof e->seg);
    h = mix(h, &e->bytes, sizeof e->bytes);
    h = mix(h, &e->fanout, sizeof e->fanout);
    h = mix(h, &e->p, sizeof e->p);
    h = mix(h, &e->reorder, sizeof e->reorder);
    return mix(h, &e->coll, sizeof e->coll);
}

static bool same_key(const struct memo_entry *a, const struct memo_entry *b)
{
    return a->model == b->model && a->alg == b->alg && a->seg == b->seg &&
           a->bytes == b->bytes && a->fanout == b->fanout && a->p == b->p &&
           a->reorder == b->reorder && a->coll == b->coll;
}

/* The slot of key k: its entry, or the free slot where it goes. */
static struct memo_entry *find(const struct acct_model_memo *m, const struct memo_entry *k)
{
    size_t i = (size_t)slot_of(k) & (m->cap - 1);
    while (m->v[i].alg != NULL && !same_key(&m->v[i], k))
        i = (i + 1) & (m->cap - 1);
    return &m->v[i];
}

static int grow(struct acct_model_memo *m)
{
    size_t cap = m->cap ? 2 * m->cap : 1024;
    struct acct_model_memo n = { .v = calloc(cap, sizeof(struct memo_entry)), .cap = cap };
    if (n.v == NULL)
        return -1;
    for (size_t i = 0; i < m->cap; i++)
        if (m->v[i].alg != NULL)
            *find(&n, &m->v[i]) = m->v[i];
    free(m->v);
    m->v = n.v;
    m->cap = cap;
    return 0;
}

bool acct_model_memo_get(struct acct_model_memo *m, const struct acct_model *mdl,
                         enum acct_coll_id coll, const struct acct_decision *d, int p,
                         uint64_t bytes, double *t_us, enum acct_model_source *how,
                         uint64_t *key)
{
    struct memo_entry k = { .model = fingerprint(mdl), .alg = d->alg, .seg = d->segment_bytes,
                            .bytes = bytes, .fanout = d->fanout, .p = p,
                            .reorder = d->reorder, .coll = coll };
    *key = k.model;
    if (d->alg == NULL)
        return false;
    const struct memo_entry *e = m->cap > 0 ? find(m, &k) : NULL;
    if (e == NULL || e->alg == NULL) {
        m->misses++;
        return false;
    }
    m->hits++;
    *t_us = e->t_us;
    if (how != NULL)
        *how = e->how;
    return true;
}

void acct_model_memo_put(struct acct_model_memo *m, uint64_t key, enum acct_coll_id coll,
                         const struct acct_decision *d, int p, uint64_t bytes, double t_us,
                         enum acct_model_source how)
{
    struct memo_entry k = { .model = key, .alg = d->alg, .seg = d->segment_bytes,
                            .bytes = bytes, .fanout = d->fanout, .p = p,
                            .reorder = d->reorder, .coll = coll, .t_us = t_us, .how = how };
    if (d->alg == NULL || ((m->n + 1) * 2 > m->cap && grow(m) != 0))
        return; /* out of memory: not remembered, still answered */
    struct memo_entry *e = find(m, &k);
    if (e->alg == NULL)
        m->n++;
    *e = k;
}
