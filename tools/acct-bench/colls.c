/* acct-bench: the collectives it measures, their buffer shapes, and a cheap
 * result check so that a wrong algorithm cannot look fast.
 *
 * Message size m (bytes) and the buffers of one rank, p = communicator size:
 *
 *   collective            m is                          send        recv
 *   bcast                 the whole buffer              m (root's data, in place)
 *   reduce                each rank's vector (= result) m           m at root
 *   allreduce             each rank's vector (= result) m           m
 *   gather                each rank's contribution      m           p*m at root
 *   scatter               each rank's share             p*m at root m
 *   allgather             each rank's contribution      m           p*m
 *   alltoall              the block for one peer        p*m         p*m
 *   reduce_scatter_block  each rank's result block      p*m         m
 *   allgatherv            each rank's contribution      m           p*m
 *   reduce_scatter        each rank's result block      p*m         m
 *   gatherv               each rank's contribution      m           p*m at root
 *   scatterv              each rank's share             p*m at root m
 *   alltoallv             the block for one peer        p*m         p*m
 *   scan                  each rank's vector (= result) m           m
 *   exscan                each rank's vector (= result) m           m (undefined at rank 0)
 *   barrier               (no data; reported as 0)      -           -
 *
 * The check: element i of the block that "key" sends holds
 * pattern(key, i) = (key * 31 + i * 7 + 1) mod 251, a value every rank can
 * compute; receive buffers are first filled with 0xFF bytes (-1 as int, NaN as
 * double, 255 as byte: never a pattern value; a byte sum can be 255, but not
 * at every element). The v-collectives run the uniform call: every
 * rank's count is m's, the blocks back to back (allgatherv's and
 * reduce_scatter's decision key, the average block, is then m, as for
 * allgather and reduce_scatter_block; gatherv, scatterv and alltoallv are
 * decided without one, from the communicator size: docs/rules.md), with
 * the data and checks of the collective without counts. Reductions use MPI_SUM and their inputs are kept small
 * enough that no sum overflows its type: for byte the values are taken modulo
 * 255 / p + 1. (Overflow is avoided on purpose: Open MPI 4.1's AVX reduction
 * kernels saturate where C arithmetic wraps, so an overflowing sum has no one
 * right answer.) */
#include "kit.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define PATTERN_KEY_MUL 31u
#define PATTERN_IDX_MUL 7u
#define PATTERN_OFFSET 1u
#define PATTERN_MOD 251u
#define POISON_BYTE 0xFF

/* ---- datatypes ----------------------------------------------------------- */

const struct bench_dtype bench_dtypes[] = {
    { .name = "byte", .id = BENCH_DT_BYTE, .size = sizeof(unsigned char) },
    { .name = "int", .id = BENCH_DT_INT, .size = sizeof(int) },
    { .name = "double", .id = BENCH_DT_DOUBLE, .size = sizeof(double) },
    { .name = NULL },
};

const struct bench_dtype *bench_dtype_find(const char *name)
{
    const struct bench_dtype *d = bench_dtypes;

    while (d->name != NULL && strcmp(d->name, name) != 0)
        d++;
    return d->name != NULL ? d : NULL;
}

MPI_Datatype bench_dtype_move(const struct bench_dtype *dt)
{
    MPI_Datatype t = MPI_BYTE;

    if (dt->id == BENCH_DT_INT)
        t = MPI_INT;
    else if (dt->id == BENCH_DT_DOUBLE)
        t = MPI_DOUBLE;
    return t;
}

MPI_Datatype bench_dtype_reduce(const struct bench_dtype *dt)
{
    return dt->id == BENCH_DT_BYTE ? MPI_UNSIGNED_CHAR : bench_dtype_move(dt);
}

/* ---- element access ------------------------------------------------------ */

static uint64_t pattern(uint64_t key, size_t i)
{
    return (key * PATTERN_KEY_MUL + (uint64_t)i * PATTERN_IDX_MUL + PATTERN_OFFSET) %
           PATTERN_MOD;
}

/* Modulus for the inputs of a reduction: a sum over p ranks must not
 * overflow (only byte is small enough to need it). */
static uint64_t reduce_mod(const struct bench_call *c)
{
    uint64_t mod = PATTERN_MOD;

    if (c->dtype->id == BENCH_DT_BYTE)
        mod = UCHAR_MAX / (uint64_t)c->size + 1;
    return mod < PATTERN_MOD ? mod : PATTERN_MOD;
}

static void put(const struct bench_dtype *dt, void *buf, size_t i, uint64_t v)
{
    switch (dt->id) {
    case BENCH_DT_BYTE: ((unsigned char *)buf)[i] = (unsigned char)v; break;
    case BENCH_DT_INT: ((int *)buf)[i] = (int)v; break;
    case BENCH_DT_DOUBLE: ((double *)buf)[i] = (double)v; break;
    }
}

/* Element i equals v converted to the datatype (byte: modulo 256). */
static int equals(const struct bench_dtype *dt, const void *buf, size_t i, uint64_t v)
{
    int eq = 0;

    switch (dt->id) {
    case BENCH_DT_BYTE: eq = ((const unsigned char *)buf)[i] == (unsigned char)v; break;
    case BENCH_DT_INT: eq = ((const int *)buf)[i] == (int)v; break;
    case BENCH_DT_DOUBLE: eq = ((const double *)buf)[i] == (double)v; break;
    }
    return eq;
}

static size_t elems(const struct bench_call *c, int blocks)
{
    return (size_t)c->count * (size_t)blocks;
}

static void poison(const struct bench_call *c, void *buf, int blocks)
{
    if (buf != NULL)
        memset(buf, POISON_BYTE, elems(c, blocks) * c->dtype->size);
}

/* Block b of buf (count elements each) gets pattern(key_base + b * key_step, i)
 * modulo mod. */
static void fill_blocks(const struct bench_call *c, void *buf, int blocks, uint64_t key_base,
                        uint64_t key_step, uint64_t mod)
{
    for (int b = 0; b < blocks; b++) {
        uint64_t key = key_base + (uint64_t)b * key_step;
        size_t off = (size_t)b * (size_t)c->count;
        for (size_t i = 0; i < (size_t)c->count; i++)
            put(c->dtype, buf, off + i, pattern(key, i) % mod);
    }
}

/* Block b of buf holds pattern(key_base + b * key_step, i)? */
static int check_blocks(const struct bench_call *c, const void *buf, int blocks,
                        uint64_t key_base, uint64_t key_step)
{
    int ok = 1;

    for (int b = 0; b < blocks && ok; b++) {
        uint64_t key = key_base + (uint64_t)b * key_step;
        size_t off = (size_t)b * (size_t)c->count;
        for (size_t i = 0; i < (size_t)c->count && ok; i++)
            ok = equals(c->dtype, buf, off + i, pattern(key, i));
    }
    return ok;
}

/* buf[i] == sum over s < p of pattern(s * key_mul + key_add, i) modulo
 * reduce_mod()? */
static int check_sum(const struct bench_call *c, const void *buf, uint64_t key_mul,
                     uint64_t key_add)
{
    int ok = 1;
    uint64_t mod = reduce_mod(c);

    for (size_t i = 0; i < (size_t)c->count && ok; i++) {
        uint64_t sum = 0;
        for (int s = 0; s < c->size; s++)
            sum += pattern((uint64_t)s * key_mul + key_add, i) % mod;
        ok = equals(c->dtype, buf, i, sum);
    }
    return ok;
}

static uint64_t urank(int rank)
{
    return (uint64_t)rank;
}

/* ---- bcast --------------------------------------------------------------- */

static int run_bcast(const struct bench_call *c)
{
    return MPI_Bcast(c->sbuf, c->count, bench_dtype_move(c->dtype), c->root, c->comm);
}

static void fill_bcast(const struct bench_call *c)
{
    if (c->rank == c->root)
        fill_blocks(c, c->sbuf, 1, urank(c->root), 0, PATTERN_MOD);
    else
        poison(c, c->sbuf, 1);
}

static int check_bcast(const struct bench_call *c)
{
    return check_blocks(c, c->sbuf, 1, urank(c->root), 0);
}

/* ---- reduce, allreduce --------------------------------------------------- */

static int run_reduce(const struct bench_call *c)
{
    return MPI_Reduce(c->sbuf, c->rbuf, c->count, bench_dtype_reduce(c->dtype), MPI_SUM,
                      c->root, c->comm);
}

static int run_allreduce(const struct bench_call *c)
{
    return MPI_Allreduce(c->sbuf, c->rbuf, c->count, bench_dtype_reduce(c->dtype), MPI_SUM,
                         c->comm);
}

static void fill_reduce(const struct bench_call *c)
{
    fill_blocks(c, c->sbuf, 1, urank(c->rank), 0, reduce_mod(c));
    poison(c, c->rbuf, 1);
}

static int check_reduce(const struct bench_call *c)
{
    return c->rank != c->root || check_sum(c, c->rbuf, 1, 0);
}

static int check_allreduce(const struct bench_call *c)
{
    return check_sum(c, c->rbuf, 1, 0);
}

/* ---- scan, exscan: rank r's result sums ranks 0 .. r (exscan: 0 .. r-1;
 * its rank 0 result is undefined and not checked) --------------------------- */

static int run_scan(const struct bench_call *c)
{
    return MPI_Scan(c->sbuf, c->rbuf, c->count, bench_dtype_reduce(c->dtype), MPI_SUM, c->comm);
}

static int run_exscan(const struct bench_call *c)
{
    return MPI_Exscan(c->sbuf, c->rbuf, c->count, bench_dtype_reduce(c->dtype), MPI_SUM, c->comm);
}

/* buf[i] == sum over s < upto of pattern(s, i) modulo reduce_mod()? */
static int check_prefix(const struct bench_call *c, const void *buf, int upto)
{
    int ok = 1;
    uint64_t mod = reduce_mod(c);

    for (size_t i = 0; i < (size_t)c->count && ok; i++) {
        uint64_t sum = 0;
        for (int s = 0; s < upto; s++)
            sum += pattern((uint64_t)s, i) % mod;
        ok = equals(c->dtype, buf, i, sum);
    }
    return ok;
}

static int check_scan(const struct bench_call *c)
{
    return check_prefix(c, c->rbuf, c->rank + 1);
}

static int check_exscan(const struct bench_call *c)
{
    return c->rank == 0 || check_prefix(c, c->rbuf, c->rank);
}

/* ---- gather, allgather --------------------------------------------------- */

static int run_gather(const struct bench_call *c)
{
    MPI_Datatype t = bench_dtype_move(c->dtype);
    return MPI_Gather(c->sbuf, c->count, t, c->rbuf, c->count, t, c->root, c->comm);
}

static int run_allgather(const struct bench_call *c)
{
    MPI_Datatype t = bench_dtype_move(c->dtype);
    return MPI_Allgather(c->sbuf, c->count, t, c->rbuf, c->count, t, c->comm);
}

static void fill_gather(const struct bench_call *c)
{
    fill_blocks(c, c->sbuf, 1, urank(c->rank), 0, PATTERN_MOD);
    poison(c, c->rbuf, c->size);
}

static int check_gather(const struct bench_call *c)
{
    return c->rank != c->root || check_blocks(c, c->rbuf, c->size, 0, 1);
}

static int check_allgather(const struct bench_call *c)
{
    return check_blocks(c, c->rbuf, c->size, 0, 1);
}

/* ---- scatter ------------------------------------------------------------- */

static int run_scatter(const struct bench_call *c)
{
    MPI_Datatype t = bench_dtype_move(c->dtype);
    return MPI_Scatter(c->sbuf, c->count, t, c->rbuf, c->count, t, c->root, c->comm);
}

static void fill_scatter(const struct bench_call *c)
{
    if (c->rank == c->root)
        fill_blocks(c, c->sbuf, c->size, 0, 1, PATTERN_MOD);
    poison(c, c->rbuf, 1);
}

static int check_scatter(const struct bench_call *c)
{
    return check_blocks(c, c->rbuf, 1, urank(c->rank), 0);
}

/* ---- alltoall: the block from s to d has key s * p + d -------------------- */

static int run_alltoall(const struct bench_call *c)
{
    MPI_Datatype t = bench_dtype_move(c->dtype);
    return MPI_Alltoall(c->sbuf, c->count, t, c->rbuf, c->count, t, c->comm);
}

static void fill_alltoall(const struct bench_call *c)
{
    fill_blocks(c, c->sbuf, c->size, urank(c->rank) * urank(c->size), 1, PATTERN_MOD);
    poison(c, c->rbuf, c->size);
}

static int check_alltoall(const struct bench_call *c)
{
    return check_blocks(c, c->rbuf, c->size, urank(c->rank), urank(c->size));
}

/* ---- reduce_scatter_block: same keys as alltoall, summed over senders ----- */

static int run_reduce_scatter_block(const struct bench_call *c)
{
    return MPI_Reduce_scatter_block(c->sbuf, c->rbuf, c->count, bench_dtype_reduce(c->dtype),
                                    MPI_SUM, c->comm);
}

static void fill_reduce_scatter_block(const struct bench_call *c)
{
    fill_blocks(c, c->sbuf, c->size, urank(c->rank) * urank(c->size), 1, reduce_mod(c));
    poison(c, c->rbuf, 1);
}

static int check_reduce_scatter_block(const struct bench_call *c)
{
    return check_sum(c, c->rbuf, urank(c->size), urank(c->rank));
}

/* ---- v-collectives: the uniform call (allgather's and
 * reduce_scatter_block's data); the count arrays are made by fill, before
 * any timed call ---------------------------------------------------------- */

static int *v_counts, *v_displs, v_size;

static void v_arrays(const struct bench_call *c)
{
    if (c->size > v_size) {
        int *a = realloc(v_counts, sizeof(int) * (size_t)c->size);
        int *b = a != NULL ? realloc(v_displs, sizeof(int) * (size_t)c->size) : NULL;
        if (a != NULL)
            v_counts = a;
        if (b == NULL)
            return; /* run fails the call: the benchmark reports it */
        v_displs = b;
        v_size = c->size;
    }
    for (int i = 0; i < c->size; i++) {
        v_counts[i] = c->count;
        v_displs[i] = i * c->count;
    }
}

static int run_allgatherv(const struct bench_call *c)
{
    MPI_Datatype t = bench_dtype_move(c->dtype);
    if (v_size < c->size)
        return MPI_ERR_NO_MEM;
    return MPI_Allgatherv(c->sbuf, c->count, t, c->rbuf, v_counts, v_displs, t, c->comm);
}

static void fill_allgatherv(const struct bench_call *c)
{
    v_arrays(c);
    fill_gather(c);
}

static int run_reduce_scatter(const struct bench_call *c)
{
    if (v_size < c->size)
        return MPI_ERR_NO_MEM;
    return MPI_Reduce_scatter(c->sbuf, c->rbuf, v_counts, bench_dtype_reduce(c->dtype), MPI_SUM,
                              c->comm);
}

static void fill_reduce_scatter(const struct bench_call *c)
{
    v_arrays(c);
    fill_reduce_scatter_block(c);
}

static int run_gatherv(const struct bench_call *c)
{
    MPI_Datatype t = bench_dtype_move(c->dtype);
    if (v_size < c->size)
        return MPI_ERR_NO_MEM;
    return MPI_Gatherv(c->sbuf, c->count, t, c->rbuf, v_counts, v_displs, t, c->root, c->comm);
}

static void fill_gatherv(const struct bench_call *c)
{
    v_arrays(c);
    fill_gather(c);
}

static int run_scatterv(const struct bench_call *c)
{
    MPI_Datatype t = bench_dtype_move(c->dtype);
    if (v_size < c->size)
        return MPI_ERR_NO_MEM;
    return MPI_Scatterv(c->sbuf, v_counts, v_displs, t, c->rbuf, c->count, t, c->root, c->comm);
}

static void fill_scatterv(const struct bench_call *c)
{
    v_arrays(c);
    fill_scatter(c);
}

static int run_alltoallv(const struct bench_call *c)
{
    MPI_Datatype t = bench_dtype_move(c->dtype);
    if (v_size < c->size)
        return MPI_ERR_NO_MEM;
    return MPI_Alltoallv(c->sbuf, v_counts, v_displs, t, c->rbuf, v_counts, v_displs, t,
                         c->comm);
}

static void fill_alltoallv(const struct bench_call *c)
{
    v_arrays(c);
    fill_alltoall(c);
}

/* ---- barrier ------------------------------------------------------------- */

static int run_barrier(const struct bench_call *c)
{
    return MPI_Barrier(c->comm);
}

static void fill_nothing(const struct bench_call *c)
{
    (void)c;
}

static int check_nothing(const struct bench_call *c)
{
    (void)c;
    return 1;
}

/* ---- the table ----------------------------------------------------------- */

const struct bench_coll bench_colls[] = {
    { .name = "bcast", .rooted = 1, .has_data = 1,
      .size_meaning = "the whole buffer broadcast from the root",
      .send = BENCH_BLOCKS_ONE, .recv = BENCH_BLOCKS_NONE,
      .run = run_bcast, .fill = fill_bcast, .check = check_bcast },
    { .name = "reduce", .rooted = 1, .has_data = 1,
      .size_meaning = "each rank's vector (= the result at the root)",
      .send = BENCH_BLOCKS_ONE, .recv = BENCH_BLOCKS_ONE_AT_ROOT,
      .run = run_reduce, .fill = fill_reduce, .check = check_reduce },
    { .name = "allreduce", .rooted = 0, .has_data = 1,
      .size_meaning = "each rank's vector (= the result)",
      .send = BENCH_BLOCKS_ONE, .recv = BENCH_BLOCKS_ONE,
      .run = run_allreduce, .fill = fill_reduce, .check = check_allreduce },
    { .name = "gather", .rooted = 1, .has_data = 1,
      .size_meaning = "each rank's contribution (root receives p times this)",
      .send = BENCH_BLOCKS_ONE, .recv = BENCH_BLOCKS_P_AT_ROOT,
      .run = run_gather, .fill = fill_gather, .check = check_gather },
    { .name = "scatter", .rooted = 1, .has_data = 1,
      .size_meaning = "each rank's share (root sends p times this)",
      .send = BENCH_BLOCKS_P_AT_ROOT, .recv = BENCH_BLOCKS_ONE,
      .run = run_scatter, .fill = fill_scatter, .check = check_scatter },
    { .name = "allgather", .rooted = 0, .has_data = 1,
      .size_meaning = "each rank's contribution (each receives p times this)",
      .send = BENCH_BLOCKS_ONE, .recv = BENCH_BLOCKS_P,
      .run = run_allgather, .fill = fill_gather, .check = check_allgather },
    { .name = "alltoall", .rooted = 0, .has_data = 1,
      .size_meaning = "the block sent to each peer (each sends p times this)",
      .send = BENCH_BLOCKS_P, .recv = BENCH_BLOCKS_P,
      .run = run_alltoall, .fill = fill_alltoall, .check = check_alltoall },
    { .name = "barrier", .rooted = 0, .has_data = 0,
      .size_meaning = "no data (sizes are ignored)",
      .send = BENCH_BLOCKS_NONE, .recv = BENCH_BLOCKS_NONE,
      .run = run_barrier, .fill = fill_nothing, .check = check_nothing },
    { .name = "reduce_scatter_block", .rooted = 0, .has_data = 1,
      .size_meaning = "each rank's result block (each sends p times this)",
      .send = BENCH_BLOCKS_P, .recv = BENCH_BLOCKS_ONE,
      .run = run_reduce_scatter_block, .fill = fill_reduce_scatter_block,
      .check = check_reduce_scatter_block },
    { .name = "allgatherv", .rooted = 0, .has_data = 1,
      .size_meaning = "each rank's contribution, the same on every rank (each receives p times this)",
      .send = BENCH_BLOCKS_ONE, .recv = BENCH_BLOCKS_P,
      .run = run_allgatherv, .fill = fill_allgatherv, .check = check_allgather },
    { .name = "reduce_scatter", .rooted = 0, .has_data = 1,
      .size_meaning = "each rank's result block, the same on every rank (each sends p times this)",
      .send = BENCH_BLOCKS_P, .recv = BENCH_BLOCKS_ONE,
      .run = run_reduce_scatter, .fill = fill_reduce_scatter,
      .check = check_reduce_scatter_block },
    { .name = "gatherv", .rooted = 1, .has_data = 1,
      .size_meaning = "each rank's contribution, the same on every rank (root receives p times this)",
      .send = BENCH_BLOCKS_ONE, .recv = BENCH_BLOCKS_P_AT_ROOT,
      .run = run_gatherv, .fill = fill_gatherv, .check = check_gather },
    { .name = "scatterv", .rooted = 1, .has_data = 1,
      .size_meaning = "each rank's share, the same for every rank (root sends p times this)",
      .send = BENCH_BLOCKS_P_AT_ROOT, .recv = BENCH_BLOCKS_ONE,
      .run = run_scatterv, .fill = fill_scatterv, .check = check_scatter },
    { .name = "alltoallv", .rooted = 0, .has_data = 1,
      .size_meaning = "the block sent to each peer, the same for every pair (each sends p times this)",
      .send = BENCH_BLOCKS_P, .recv = BENCH_BLOCKS_P,
      .run = run_alltoallv, .fill = fill_alltoallv, .check = check_alltoall },
    { .name = "scan", .rooted = 0, .has_data = 1,
      .size_meaning = "each rank's vector (= its result, the prefix over ranks 0..r)",
      .send = BENCH_BLOCKS_ONE, .recv = BENCH_BLOCKS_ONE,
      .run = run_scan, .fill = fill_reduce, .check = check_scan },
    { .name = "exscan", .rooted = 0, .has_data = 1,
      .size_meaning = "each rank's vector (= its result, the prefix over ranks 0..r-1)",
      .send = BENCH_BLOCKS_ONE, .recv = BENCH_BLOCKS_ONE,
      .run = run_exscan, .fill = fill_reduce, .check = check_exscan },
    { .name = NULL },
};

const struct bench_coll *bench_coll_find(const char *name)
{
    const struct bench_coll *c = bench_colls;

    while (c->name != NULL && strcmp(c->name, name) != 0)
        c++;
    return c->name != NULL ? c : NULL;
}

size_t bench_blocks_bytes(enum bench_blocks blocks, size_t m, int p, int is_root,
                          int *overflow)
{
    size_t n = 0;
    size_t mult = 0;

    switch (blocks) {
    case BENCH_BLOCKS_NONE: mult = 0; break;
    case BENCH_BLOCKS_ONE: mult = 1; break;
    case BENCH_BLOCKS_ONE_AT_ROOT: mult = is_root ? 1 : 0; break;
    case BENCH_BLOCKS_P: mult = (size_t)p; break;
    case BENCH_BLOCKS_P_AT_ROOT: mult = is_root ? (size_t)p : 0; break;
    }
    *overflow = mult != 0 && m > SIZE_MAX / mult;
    if (!*overflow)
        n = m * mult;
    return n;
}
