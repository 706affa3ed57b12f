/* Synthetic decision maps with random blocks (acct_synth_map in
 * acct/dmap.h): test data for the quadtree and its benchmark. */
#include <stdlib.h>

#include "internal.h"

#define SYNTH_MAX_METHODS 7

static double uniform(unsigned *seed)
{
    return (double)rand_r(seed) / ((double)RAND_MAX + 1.0);
}

/* Cut [i0, i1) x [j0, j1) into random blocks; each gets a winner. */
static void blocks(int32_t *win, size_t nbytes, size_t i0, size_t i1, size_t j0, size_t j1,
                   size_t nmethods, unsigned *seed, int depth)
{
    size_t rows = i1 - i0, cols = j1 - j0;
    if (rows * cols <= 2 || depth > 12 || uniform(seed) < 0.18 * depth) {
        int32_t k = (int32_t)(rand_r(seed) % (int)nmethods);
        for (size_t i = i0; i < i1; i++)
            for (size_t j = j0; j < j1; j++)
                win[i * nbytes + j] = k;
        return;
    }
    if ((cols >= rows && cols > 1) || rows == 1) {
        size_t cut = j0 + 1 + (size_t)rand_r(seed) % (cols - 1);
        blocks(win, nbytes, i0, i1, j0, cut, nmethods, seed, depth + 1);
        blocks(win, nbytes, i0, i1, cut, j1, nmethods, seed, depth + 1);
    } else {
        size_t cut = i0 + 1 + (size_t)rand_r(seed) % (rows - 1);
        blocks(win, nbytes, i0, cut, j0, j1, nmethods, seed, depth + 1);
        blocks(win, nbytes, cut, i1, j0, j1, nmethods, seed, depth + 1);
    }
}

int acct_synth_map(enum acct_coll_id coll, size_t ncomm, size_t nbytes, size_t nmethods,
                   unsigned seed, struct acct_dmap **out)
{
    static const char *const bcast[SYNTH_MAX_METHODS][2] = {
        { "binomial", "0" }, { "pipeline", "8192" }, { "linear", "0" }, { "binary", "8192" },
        { "chain", "0" },    { "split_binary", "1024" }, { "knomial", "0" },
    };
    static const char *const allreduce[SYNTH_MAX_METHODS][2] = {
        { "recursive_doubling", "0" }, { "ring", "0" }, { "rabenseifner", "0" },
        { "reduce_bcast", "0" }, { "segmented_ring", "8192" }, { "allgather_reduce", "0" },
        { "reduce_bcast", "65536" },
    };
    int rc = ACCT_RULES_EINVAL;
    int *comm = NULL;
    uint64_t *bytes = NULL;
    int32_t *win = NULL;
    double *pen = NULL;
    struct acct_dmap *m = NULL;
    struct acct_decision methods[SYNTH_MAX_METHODS];
    *out = NULL;
    if ((coll != ACCT_COLL_bcast && coll != ACCT_COLL_allreduce) || nmethods < 1 ||
        nmethods > SYNTH_MAX_METHODS || ncomm < 1 || ncomm > 40 || nbytes < 1 || nbytes > 56)
        goto done;
    for (size_t k = 0; k < nmethods; k++) {
        const char *const *e = coll == ACCT_COLL_bcast ? bcast[k] : allreduce[k];
        methods[k] = (struct acct_decision){ .alg = acct_alg_find(coll, e[0]),
                                             .segment_bytes = strtoull(e[1], NULL, 10) };
        if (methods[k].alg == NULL)
            goto done;
    }
    rc = ACCT_RULES_ENOMEM;
    comm = malloc(ncomm * sizeof(*comm));
    bytes = malloc(nbytes * sizeof(*bytes));
    win = malloc(ncomm * nbytes * sizeof(*win));
    pen = malloc(ncomm * nbytes * nmethods * sizeof(*pen));
    if (comm == NULL || bytes == NULL || win == NULL || pen == NULL)
        goto done;
    for (size_t i = 0; i < ncomm; i++) /* 2, 3, 4, 6, 8, 12, 16, ... */
        comm[i] = (i % 2 == 0 ? 2 : 3) << (i / 2);
    for (size_t j = 0; j < nbytes; j++)
        bytes[j] = 8ull << j;
    rc = acct_dmap_create(coll, comm, ncomm, bytes, nbytes, methods, nmethods, &m, NULL);
    if (rc != ACCT_RULES_OK)
        goto done;
    blocks(win, nbytes, 0, ncomm, 0, nbytes, nmethods, &seed, 0);
    /* Per block, a penalty per method: blocks are found again by their
     * winner and top-left cell, so draw per cell and copy from the block's
     * first cell along runs of equal winners. */
    for (size_t c = 0; c < ncomm * nbytes; c++)
        for (size_t k = 0; k < nmethods; k++)
            pen[c * nmethods + k] = 0.05 + 1.95 * uniform(&seed);
    for (size_t i = 0; i < ncomm; i++)
        for (size_t j = 0; j < nbytes; j++) {
            size_t c = i * nbytes + j;
            size_t src = c;
            if (j > 0 && win[c - 1] == win[c])
                src = c - 1;
            else if (i > 0 && win[c - nbytes] == win[c])
                src = c - nbytes;
            for (size_t k = 0; k < nmethods; k++)
                pen[c * nmethods + k] = pen[src * nmethods + k];
        }
    for (size_t i = 0; i < ncomm; i++)
        for (size_t j = 0; j < nbytes; j++) {
            size_t c = i * nbytes + j;
            int32_t w = win[c];
            if (nmethods > 1 && uniform(&seed) < 0.03)
                w = (int32_t)(((size_t)w + 1 + (size_t)rand_r(&seed) % (nmethods - 1)) %
                              nmethods);
            double base = 5.0 + 0.002 * (double)bytes[j] * (1.0 + (double)i / 3.0);
            for (size_t k = 0; k < nmethods; k++) {
                double t = (int32_t)k == w ? base : base * (1.0 + pen[c * nmethods + k]);
                t *= 1.0 + 0.02 * (2.0 * uniform(&seed) - 1.0);
                if ((int32_t)k == w)
                    t = base * 0.98; /* the winner stays the winner despite noise */
                acct_dmap_set(m, i, j, k, t);
            }
        }
    rc = acct_dmap_finish(m, NULL);
    if (rc != ACCT_RULES_OK)
        goto done;
    *out = m;
    m = NULL;
done:
    acct_dmap_free(m);
    free(comm);
    free(bytes);
    free(win);
    free(pen);
    return rc;
}
