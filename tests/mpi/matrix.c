/* The correctness matrix: one collective, every shape, ACCT against native.
 *
 *   mpirun -np 16 -x LD_PRELOAD=libacct.so -x ACCT_FORCE=bcast=binomial:1024 \
 *          acct_matrix bcast
 *
 * For communicator sizes {1,2,3,4,5,7,8,13,16} (sub-communicators of the
 * world, so ranks are not the world's), counts {0,1,3,1000,4099}, datatypes
 * (byte, int, double, a strided vector, a struct with a gap, and different
 * but matching datatypes on root and non-roots), operations (int sum and
 * max, double sum, a user commutative op, a user NON-commutative op on an
 * affine-map type), roots {0, middle, last} and in-place where MPI allows
 * it, each case runs twice on identical inputs: through MPI_<coll> (ACCT,
 * with the forced algorithm) and through PMPI_<coll> (the native library).
 * The whole receive buffers, gaps included, must be byte-identical.
 * Arguments MPI-3.1 section 5 declares not significant on a rank hold junk
 * there, as a program may pass them (-1 counts, MPI_DATATYPE_NULL, NULL
 * buffers): gather's receive side off the root and its send side at an
 * in-place root, scatter's send side off the root and its receive side at
 * an in-place root, allgather's send side in place, reduce's receive
 * buffer off the root. Every rank must still decide alike. Exscan's receive
 * buffer at rank 0 is undefined in MPI: ACCT must leave it untouched.
 *
 * Reorder mode (matrix_check.sh with REORDER=1 forces the algorithm with
 * SACK reordering, docs/sack.md): ACCT_MATRIX_DELAY_US=MAX makes every rank
 * sleep before each MPI_<coll> call for a random time drawn from its own
 * seed (ACCT_MATRIX_SEED, default 1, and the world rank): 0 in 40 % of the
 * calls, else up to MAX µs, 5 x MAX in 5 %, so ranks enter in changing
 * orders. The native reference calls run without delay.
 *
 * Non-blocking mode (ACCT_MATRIX_NB=wait|test|wait,test): every ACCT call
 * is the collective's MPI_I<coll>, completed at once with MPI_Wait (wait) or
 * a loop of MPI_Test (test: the only progress is the polling); with
 * "wait,test" each communicator runs every case once per mode, in that
 * order (one job for both modes: docs/performance.md section 4). Each
 * sub-communicator first runs one MPI_Barrier
 * (the driver forces a barrier method, so it gets ACCT's private duplicate:
 * non-blocking calls never make one). The native reference stays blocking.
 *
 * Rank 0 prints: "matrix: <coll> np=<n> cases=<n> calls=<n> errors=<n> OK|FAILED"
 * where calls is how many MPI_<coll> calls rank 0 made (the driver compares
 * it with ACCT_REPORT). Exit status 0 only without errors. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int wrank, wsize;
static long delay_max; /* µs; 0: no entry delays */
static unsigned long long delay_rng;

/* Before each ACCT call in reorder mode: a seeded random entry delay. */
static void entry_delay(void)
{
    if (delay_max <= 0)
        return;
    delay_rng = delay_rng * 6364136223846793005ULL + 1442695040888963407ULL;
    unsigned r = (unsigned)(delay_rng >> 33) % 100;
    delay_rng = delay_rng * 6364136223846793005ULL + 1442695040888963407ULL;
    long us = r < 40 ? 0 : r < 95 ? (long)((delay_rng >> 33) % (unsigned long long)delay_max)
                                  : 5 * delay_max;
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    if (us > 0)
        nanosleep(&ts, NULL);
}
static long cases, errors, calls;
static int nb_mode; /* 0: blocking; 1: MPI_I<coll> + MPI_Wait; 2: + MPI_Test loop */
static MPI_Request nbreq;

/* Completes the non-blocking call just posted (rc: its return code). */
static void nb_complete(int rc)
{
    int flag = 0;
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "world rank %d: non-blocking call returned %d\n", wrank, rc);
        errors++;
        return;
    }
    if (nb_mode == 2) {
        while (!flag)
            MPI_Test(&nbreq, &flag, MPI_STATUS_IGNORE);
    } else {
        MPI_Wait(&nbreq, MPI_STATUS_IGNORE);
    }
}
/* COLL(Bcast, Ibcast, args): the blocking call, or in non-blocking mode
 * the non-blocking one, completed */
#define COLL(B, I, ...) (nb_mode ? nb_complete(MPI_##I(__VA_ARGS__, &nbreq)) : (void)MPI_##B(__VA_ARGS__))
static const char *coll;

/* ---- datatypes ----------------------------------------------------------- */
enum { T_BYTE, T_INT, T_DOUBLE, T_VECTOR, T_STRUCT, T_COUNT };
static MPI_Datatype types[T_COUNT], contig3, affine_t;
static const char *tname[T_COUNT] = {"byte", "int", "double", "vector", "struct"};
static MPI_Op op_usersum, op_affine;

struct affine { int a, b; }; /* x -> a x + b (mod 65521): composition is not commutative */

static void usersum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *x = in, *y = inout;
    for (int i = 0; i < *len; i++)
        y[i] = (x[i] + y[i]) % 1000003;
}

/* inout = in o inout, applying in first: ordered reduction x0 o x1 o ... */
static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    struct affine *f = in, *g = inout;
    for (int i = 0; i < *len; i++) {
        struct affine h = {(int)(((long)g[i].a * f[i].a) % 65521),
                           (int)(((long)g[i].a * f[i].b + g[i].b) % 65521)};
        g[i] = h;
    }
}

static void make_types(void)
{
    MPI_Datatype tmp;
    types[T_BYTE] = MPI_BYTE;
    types[T_INT] = MPI_INT;
    types[T_DOUBLE] = MPI_DOUBLE;
    MPI_Type_vector(2, 1, 2, MPI_INT, &types[T_VECTOR]); /* ints 0 and 2 of 3 */
    MPI_Type_commit(&types[T_VECTOR]);
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8}; /* int, 4-byte gap, double */
    MPI_Datatype mem[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, disp, mem, &tmp);
    MPI_Type_create_resized(tmp, 0, 16, &types[T_STRUCT]);
    MPI_Type_free(&tmp);
    MPI_Type_commit(&types[T_STRUCT]);
    MPI_Type_contiguous(3, MPI_INT, &contig3);
    MPI_Type_commit(&contig3);
    MPI_Type_contiguous(2, MPI_INT, &affine_t);
    MPI_Type_commit(&affine_t);
    MPI_Op_create(usersum_fn, 1, &op_usersum);
    MPI_Op_create(affine_fn, 0, &op_affine);
}

static size_t extent_of(MPI_Datatype dt)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(dt, &lb, &ext);
    return (size_t)ext;
}

/* ---- buffers ------------------------------------------------------------- */
static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "matrix: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void fill(void *p, size_t n, unsigned seed)
{
    unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)((seed * 131u + i * 7u + (i >> 8)) & 0xff);
}

struct pair { void *acct, *native; size_t n; };

static struct pair pair_new(size_t n, unsigned seed)
{
    struct pair p = {xmalloc(n), xmalloc(n), n};
    fill(p.acct, n, seed);
    memcpy(p.native, p.acct, n);
    return p;
}

static void pair_check(struct pair *p, const char *what, int size, int count, int root)
{
    cases++;
    if (memcmp(p->acct, p->native, p->n) != 0) {
        size_t at = 0;
        while (((unsigned char *)p->acct)[at] == ((unsigned char *)p->native)[at])
            at++;
        if (errors < 10)
            fprintf(stderr, "world rank %d: %s %s size=%d count=%d root=%d: differs from native at byte %zu of %zu\n",
                    wrank, coll, what, size, count, root, at, p->n);
        errors++;
    }
    free(p->acct);
    free(p->native);
}

/* ---- reductions: typed values that cannot overflow (Open MPI's AVX
 * integer sums saturate instead of wrapping) ---------------------------- */
enum { R_INT_SUM, R_INT_MAX, R_DOUBLE_SUM, R_USER_SUM, R_AFFINE, R_COUNT };
static const char *rname[R_COUNT] = {"int-sum", "int-max", "double-sum", "user-commutative",
                                     "user-noncommutative"};

static void red_type(int r, MPI_Datatype *dt, MPI_Op *op, size_t *esize)
{
    switch (r) {
    case R_INT_SUM: *dt = MPI_INT; *op = MPI_SUM; *esize = 4; break;
    case R_INT_MAX: *dt = MPI_INT; *op = MPI_MAX; *esize = 4; break;
    case R_DOUBLE_SUM: *dt = MPI_DOUBLE; *op = MPI_SUM; *esize = 8; break;
    case R_USER_SUM: *dt = MPI_INT; *op = op_usersum; *esize = 4; break;
    default: *dt = affine_t; *op = op_affine; *esize = 8; break;
    }
}

static void red_fill(int r, void *p, size_t n_elems, int rank, unsigned salt)
{
    for (size_t i = 0; i < n_elems; i++) {
        long v = (long)((rank * 37 + i * 11 + salt) % 97);
        if (r == R_DOUBLE_SUM)
            ((double *)p)[i] = (double)v;
        else if (r == R_AFFINE) {
            ((struct affine *)p)[i].a = (int)(v + 1);
            ((struct affine *)p)[i].b = (int)(v * 3 + rank);
        } else
            ((int *)p)[i] = (int)v;
    }
}

/* ---- the collectives ------------------------------------------------------ */
static const int counts[] = {0, 1, 3, 1000, 4099};
#define NCOUNTS (int)(sizeof counts / sizeof *counts)
/* junk in an argument that is not significant when cond holds */
#define JUNK_IF(cond, count) ((cond) ? -1 : (count))
#define JUNK_TYPE_IF(cond, type) ((cond) ? MPI_DATATYPE_NULL : (type))

static void run_bcast(MPI_Comm comm, int rank, int size)
{
    int roots[3] = {0, size / 2, size - 1};
    for (int t = 0; t <= T_COUNT; t++) /* T_COUNT: mixed types */
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int ri = 0; ri < 3; ri++) {
                int root = roots[ri], n = counts[ci];
                MPI_Datatype dt = t < T_COUNT ? types[t] : (rank == root ? contig3 : MPI_INT);
                int cnt = t < T_COUNT ? n : (rank == root ? n : 3 * n);
                struct pair p = pair_new((size_t)cnt * extent_of(dt), (unsigned)(rank == root ? 1 : 100 + rank));
                entry_delay();
                COLL(Bcast, Ibcast, p.acct, cnt, dt, root, comm);
                calls++;
                PMPI_Bcast(p.native, cnt, dt, root, comm);
                pair_check(&p, t < T_COUNT ? tname[t] : "mixed", size, n, root);
            }
}

static void run_reduce(MPI_Comm comm, int rank, int size, int all)
{
    int roots[3] = {0, size / 2, size - 1};
    for (int r = 0; r < R_COUNT; r++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int ri = 0; ri < (all ? 1 : 3); ri++)
                for (int ip = 0; ip < 2; ip++) {
                    MPI_Datatype dt;
                    MPI_Op op;
                    size_t es;
                    int n = counts[ci], root = all ? -1 : roots[ri];
                    red_type(r, &dt, &op, &es);
                    int here = all || rank == root, inplace = ip && here;
                    void *send = xmalloc((size_t)n * es);
                    red_fill(r, send, (size_t)n, rank, (unsigned)ci);
                    struct pair p = pair_new((size_t)n * es, 7);
                    if (inplace) {
                        memcpy(p.acct, send, (size_t)n * es);
                        memcpy(p.native, send, (size_t)n * es);
                    }
                    const void *s = inplace ? MPI_IN_PLACE : send;
                    if (all) {
                        entry_delay();
                        COLL(Allreduce, Iallreduce, s, p.acct, n, dt, op, comm);
                        PMPI_Allreduce(s, p.native, n, dt, op, comm);
                    } else {
                        entry_delay();
                        /* the receive buffer is not significant off the root */
                        COLL(Reduce, Ireduce, s, here ? p.acct : NULL, n, dt, op, root, comm);
                        PMPI_Reduce(s, here ? p.native : NULL, n, dt, op, root, comm);
                    }
                    calls++;
                    char what[64];
                    snprintf(what, sizeof what, "%s%s", rname[r], inplace ? " in-place" : "");
                    pair_check(&p, what, size, n, root);
                    free(send);
                }
}

static void run_rsb(MPI_Comm comm, int rank, int size)
{
    for (int r = 0; r < R_COUNT; r++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int ip = 0; ip < 2; ip++) {
                MPI_Datatype dt;
                MPI_Op op;
                size_t es;
                int n = counts[ci];
                red_type(r, &dt, &op, &es);
                size_t all_n = (size_t)n * (size_t)size;
                void *send = xmalloc(all_n * es);
                red_fill(r, send, all_n, rank, (unsigned)ci);
                struct pair p = pair_new((ip ? all_n : (size_t)n) * es, 9);
                if (ip) {
                    memcpy(p.acct, send, all_n * es);
                    memcpy(p.native, send, all_n * es);
                    entry_delay();
                    COLL(Reduce_scatter_block, Ireduce_scatter_block, MPI_IN_PLACE, p.acct, n, dt, op, comm);
                    PMPI_Reduce_scatter_block(MPI_IN_PLACE, p.native, n, dt, op, comm);
                    p.n = (size_t)n * es; /* only the first block is defined */
                } else {
                    entry_delay();
                    COLL(Reduce_scatter_block, Ireduce_scatter_block, send, p.acct, n, dt, op, comm);
                    PMPI_Reduce_scatter_block(send, p.native, n, dt, op, comm);
                }
                calls++;
                char what[64];
                snprintf(what, sizeof what, "%s%s", rname[r], ip ? " in-place" : "");
                pair_check(&p, what, size, n, -1);
                free(send);
            }
}

/* scan (ex 0) / exscan (ex 1): every operation, in place or not. Exscan's
 * rank 0 receive buffer is undefined in MPI: there the check is that ACCT
 * left it as it was (its input in place, else the fill). */
static void run_scan(MPI_Comm comm, int rank, int size, int ex)
{
    for (int r = 0; r < R_COUNT; r++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int ip = 0; ip < 2; ip++) {
                MPI_Datatype dt;
                MPI_Op op;
                size_t es;
                int n = counts[ci];
                red_type(r, &dt, &op, &es);
                void *send = xmalloc((size_t)n * es);
                red_fill(r, send, (size_t)n, rank, (unsigned)ci);
                struct pair p = pair_new((size_t)n * es, 11);
                if (ip) {
                    memcpy(p.acct, send, (size_t)n * es);
                    memcpy(p.native, send, (size_t)n * es);
                }
                void *before = xmalloc((size_t)n * es);
                memcpy(before, p.acct, (size_t)n * es);
                const void *s = ip ? MPI_IN_PLACE : send;
                entry_delay();
                if (ex) {
                    COLL(Exscan, Iexscan, s, p.acct, n, dt, op, comm);
                    PMPI_Exscan(s, p.native, n, dt, op, comm);
                } else {
                    COLL(Scan, Iscan, s, p.acct, n, dt, op, comm);
                    PMPI_Scan(s, p.native, n, dt, op, comm);
                }
                calls++;
                if (ex && rank == 0) /* undefined: compare with what was there */
                    memcpy(p.native, before, (size_t)n * es);
                char what[64];
                snprintf(what, sizeof what, "%s%s", rname[r], ip ? " in-place" : "");
                pair_check(&p, what, size, n, -1);
                free(before);
                free(send);
            }
}

/* gather (dir 0) / scatter (dir 1) */
static void run_gather_scatter(MPI_Comm comm, int rank, int size, int scatter)
{
    int roots[3] = {0, size / 2, size - 1};
    for (int t = 0; t <= T_COUNT; t++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int ri = 0; ri < 3; ri++)
                for (int ip = 0; ip < 2; ip++) {
                    int root = roots[ri], n = counts[ci], is_root = rank == root;
                    int inplace = ip && is_root;
                    /* mixed: the root's side uses contig3 x n, the others int x 3n */
                    MPI_Datatype bt = t < T_COUNT ? types[t] : (is_root ? contig3 : MPI_INT);
                    MPI_Datatype ot = t < T_COUNT ? types[t] : MPI_INT; /* own block at non-roots */
                    int bc = t < T_COUNT ? n : (is_root ? n : 3 * n);
                    MPI_Datatype root_all_t = t < T_COUNT ? types[t] : contig3;
                    int root_all_c = n;
                    size_t own_bytes = (size_t)bc * extent_of(is_root ? bt : ot);
                    size_t all_bytes = (size_t)root_all_c * extent_of(root_all_t) * (size_t)size;
                    void *mine = xmalloc(own_bytes);
                    fill(mine, own_bytes, (unsigned)(rank + 3));
                    const char *what = t < T_COUNT ? tname[t] : "mixed";
                    char w[64];
                    snprintf(w, sizeof w, "%s%s", what, inplace ? " in-place" : "");
                    if (!scatter) {
                        struct pair p = pair_new(is_root ? all_bytes : 0, 11);
                        if (inplace) { /* root's block already in place */
                            size_t off = (size_t)root * (size_t)root_all_c * extent_of(root_all_t);
                            fill((char *)p.acct + off, own_bytes, (unsigned)(rank + 3));
                            memcpy(p.native, p.acct, p.n);
                        }
                        entry_delay();
                        COLL(Gather, Igather, inplace ? MPI_IN_PLACE : mine, JUNK_IF(inplace, bc),
                                   JUNK_TYPE_IF(inplace, is_root ? bt : ot),
                                   is_root ? p.acct : NULL, JUNK_IF(!is_root, root_all_c),
                                   JUNK_TYPE_IF(!is_root, root_all_t), root, comm);
                        PMPI_Gather(inplace ? MPI_IN_PLACE : mine, JUNK_IF(inplace, bc),
                                    JUNK_TYPE_IF(inplace, is_root ? bt : ot),
                                    is_root ? p.native : NULL, JUNK_IF(!is_root, root_all_c),
                                    JUNK_TYPE_IF(!is_root, root_all_t), root, comm);
                        pair_check(&p, w, size, n, root);
                    } else {
                        void *all = xmalloc(is_root ? all_bytes : 1);
                        if (is_root)
                            fill(all, all_bytes, 13);
                        struct pair p = pair_new(inplace ? 0 : own_bytes, (unsigned)(rank + 17));
                        entry_delay();
                        COLL(Scatter, Iscatter, is_root ? all : NULL, JUNK_IF(!is_root, root_all_c),
                                    JUNK_TYPE_IF(!is_root, root_all_t),
                                    inplace ? MPI_IN_PLACE : p.acct, JUNK_IF(inplace, bc),
                                    JUNK_TYPE_IF(inplace, is_root ? bt : ot), root, comm);
                        PMPI_Scatter(is_root ? all : NULL, JUNK_IF(!is_root, root_all_c),
                                     JUNK_TYPE_IF(!is_root, root_all_t),
                                     inplace ? MPI_IN_PLACE : p.native, JUNK_IF(inplace, bc),
                                     JUNK_TYPE_IF(inplace, is_root ? bt : ot), root, comm);
                        pair_check(&p, w, size, n, root);
                        free(all);
                    }
                    calls++;
                    free(mine);
                }
}

/* allgather (a2a 0) / alltoall (a2a 1); mixed: send int x 3n, receive contig3 x n */
static void run_all(MPI_Comm comm, int rank, int size, int a2a)
{
    for (int t = 0; t <= T_COUNT; t++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int ip = 0; ip < (a2a ? 1 : 2); ip++) {
                int n = counts[ci];
                MPI_Datatype st = t < T_COUNT ? types[t] : MPI_INT;
                MPI_Datatype rt = t < T_COUNT ? types[t] : contig3;
                int sc = t < T_COUNT ? n : 3 * n, rc = n;
                size_t sblock = (size_t)sc * extent_of(st), rblock = (size_t)rc * extent_of(rt);
                size_t sbytes = sblock * (a2a ? (size_t)size : 1);
                void *send = xmalloc(sbytes);
                fill(send, sbytes, (unsigned)(rank + 23));
                struct pair p = pair_new(rblock * (size_t)size, 29);
                if (ip) { /* own block already in place */
                    struct pair q = pair_new(rblock, (unsigned)(rank + 31));
                    memcpy((char *)p.acct + (size_t)rank * rblock, q.acct, rblock);
                    memcpy((char *)p.native + (size_t)rank * rblock, q.acct, rblock);
                    free(q.acct);
                    free(q.native);
                }
                const void *s = ip ? MPI_IN_PLACE : send;
                if (a2a) {
                    entry_delay();
                    COLL(Alltoall, Ialltoall, s, sc, st, p.acct, rc, rt, comm);
                    PMPI_Alltoall(s, sc, st, p.native, rc, rt, comm);
                } else {
                    entry_delay();
                    COLL(Allgather, Iallgather, s, JUNK_IF(ip, sc), JUNK_TYPE_IF(ip, st), p.acct, rc, rt, comm);
                    PMPI_Allgather(s, JUNK_IF(ip, sc), JUNK_TYPE_IF(ip, st), p.native, rc, rt, comm);
                }
                calls++;
                char w[64];
                snprintf(w, sizeof w, "%s%s", t < T_COUNT ? tname[t] : "mixed", ip ? " in-place" : "");
                pair_check(&p, w, size, n, -1);
                free(send);
            }
}

/* v-collectives: rank i's count for base count n under pattern v: uniform,
 * uneven with zeros (every third rank sends nothing), one rank alone. */
static int vcount(int v, int n, int i, int size)
{
    switch (v) {
    case 0: return n;
    case 1: return (i % 3) * n;
    default: return i == size / 2 ? n : 0;
    }
}

/* allgatherv: blocks in reverse rank order with a one-element gap before
 * each (pattern 1), else back to back; mixed: send int x 3c, receive
 * contig3 x c. The gaps keep their fill: both sides must leave them. */
static void run_allgatherv(MPI_Comm comm, int rank, int size)
{
    int *rc = xmalloc(sizeof(int) * (size_t)size), *dsp = xmalloc(sizeof(int) * (size_t)size);
    for (int t = 0; t <= T_COUNT; t++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int v = 0; v < 3; v++)
                for (int ip = 0; ip < 2; ip++) {
                    int n = counts[ci], end = 0;
                    MPI_Datatype st = t < T_COUNT ? types[t] : MPI_INT;
                    MPI_Datatype rt = t < T_COUNT ? types[t] : contig3;
                    for (int i = size - 1, at = 0; i >= 0; i--) {
                        rc[i] = vcount(v, n, i, size);
                        if (v == 1) {
                            dsp[i] = at + 1;
                            at += rc[i] + 1;
                            end = at;
                        }
                    }
                    if (v != 1)
                        for (int i = 0; i < size; i++) {
                            dsp[i] = end;
                            end += rc[i];
                        }
                    int sc = t < T_COUNT ? rc[rank] : 3 * rc[rank];
                    size_t sbytes = (size_t)sc * extent_of(st);
                    void *send = xmalloc(sbytes);
                    fill(send, sbytes, (unsigned)(rank + 23));
                    struct pair p = pair_new((size_t)end * extent_of(rt), 29);
                    if (ip) { /* own block already in place */
                        size_t off = (size_t)dsp[rank] * extent_of(rt), len = (size_t)rc[rank] * extent_of(rt);
                        fill((char *)p.acct + off, len, (unsigned)(rank + 31));
                        memcpy((char *)p.native + off, (char *)p.acct + off, len);
                    }
                    const void *sb = ip ? MPI_IN_PLACE : send;
                    entry_delay();
                    COLL(Allgatherv, Iallgatherv, sb, JUNK_IF(ip, sc), JUNK_TYPE_IF(ip, st), p.acct, rc, dsp, rt, comm);
                    PMPI_Allgatherv(sb, JUNK_IF(ip, sc), JUNK_TYPE_IF(ip, st), p.native, rc, dsp, rt, comm);
                    calls++;
                    char w[64];
                    snprintf(w, sizeof w, "%s pattern %d%s", t < T_COUNT ? tname[t] : "mixed", v,
                             ip ? " in-place" : "");
                    pair_check(&p, w, size, n, -1);
                    free(send);
                }
    free(rc);
    free(dsp);
}

/* gatherv (scatter 0) / scatterv (scatter 1): roots {0, middle, last},
 * count patterns as allgatherv's, blocks reversed with gaps on pattern 1;
 * mixed: the root's side contig3 x c, the others' int x 3c. The counts
 * and displacements are significant at the root only: -1 elsewhere. */
static void run_rooted_v(MPI_Comm comm, int rank, int size, int scatter)
{
    int roots[3] = {0, size / 2, size - 1};
    int *rc = xmalloc(sizeof(int) * (size_t)size), *dsp = xmalloc(sizeof(int) * (size_t)size);
    int *junk = xmalloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        junk[i] = -1;
    for (int t = 0; t <= T_COUNT; t++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int v = 0; v < 3; v++)
                for (int ri = 0; ri < 3; ri++)
                    for (int ip = 0; ip < 2; ip++) {
                        int n = counts[ci], end = 0, root = roots[ri], is_root = rank == root;
                        int inplace = ip && is_root;
                        MPI_Datatype at = t < T_COUNT ? types[t] : contig3;  /* the root's blocks */
                        MPI_Datatype ot = t < T_COUNT ? types[t] : (is_root ? contig3 : MPI_INT);
                        for (int i = size - 1, pos = 0; i >= 0; i--) {
                            rc[i] = vcount(v, n, i, size);
                            if (v == 1) {
                                dsp[i] = pos + 1;
                                pos += rc[i] + 1;
                                end = pos;
                            }
                        }
                        if (v != 1)
                            for (int i = 0; i < size; i++) {
                                dsp[i] = end;
                                end += rc[i];
                            }
                        int oc = t < T_COUNT || is_root ? rc[rank] : 3 * rc[rank];
                        size_t own_bytes = (size_t)oc * extent_of(ot);
                        size_t all_bytes = (size_t)end * extent_of(at);
                        char w[80];
                        snprintf(w, sizeof w, "%s pattern %d%s", t < T_COUNT ? tname[t] : "mixed", v,
                                 inplace ? " in-place" : "");
                        if (!scatter) {
                            void *mine = xmalloc(own_bytes);
                            fill(mine, own_bytes, (unsigned)(rank + 3));
                            struct pair p = pair_new(is_root ? all_bytes : 0, 11);
                            if (inplace) {
                                size_t off = (size_t)dsp[root] * extent_of(at);
                                fill((char *)p.acct + off, own_bytes, (unsigned)(rank + 3));
                                memcpy(p.native, p.acct, p.n);
                            }
                            const void *sb = inplace ? MPI_IN_PLACE : mine;
                            entry_delay();
                            COLL(Gatherv, Igatherv, sb, JUNK_IF(inplace, oc), JUNK_TYPE_IF(inplace, ot),
                                        is_root ? p.acct : NULL, is_root ? rc : junk,
                                        is_root ? dsp : junk, JUNK_TYPE_IF(!is_root, at), root, comm);
                            PMPI_Gatherv(sb, JUNK_IF(inplace, oc), JUNK_TYPE_IF(inplace, ot),
                                         is_root ? p.native : NULL, is_root ? rc : junk,
                                         is_root ? dsp : junk, JUNK_TYPE_IF(!is_root, at), root, comm);
                            pair_check(&p, w, size, n, root);
                            free(mine);
                        } else {
                            void *all = xmalloc(is_root ? all_bytes : 1);
                            if (is_root)
                                fill(all, all_bytes, 13);
                            struct pair p = pair_new(inplace ? 0 : own_bytes, (unsigned)(rank + 17));
                            entry_delay();
                            COLL(Scatterv, Iscatterv, is_root ? all : NULL, is_root ? rc : junk, is_root ? dsp : junk,
                                         JUNK_TYPE_IF(!is_root, at), inplace ? MPI_IN_PLACE : p.acct,
                                         JUNK_IF(inplace, oc), JUNK_TYPE_IF(inplace, ot), root, comm);
                            PMPI_Scatterv(is_root ? all : NULL, is_root ? rc : junk, is_root ? dsp : junk,
                                          JUNK_TYPE_IF(!is_root, at), inplace ? MPI_IN_PLACE : p.native,
                                          JUNK_IF(inplace, oc), JUNK_TYPE_IF(inplace, ot), root, comm);
                            pair_check(&p, w, size, n, root);
                            free(all);
                        }
                        calls++;
                    }
    free(rc);
    free(dsp);
    free(junk);
}

/* alltoallv: rank i sends rank j vcount-like counts of (i, j); the
 * receive blocks in reverse order with gaps (pattern 1); mixed: send int x
 * 3c, receive contig3 x c. */
static int a2av_count(int v, int n, int i, int j)
{
    switch (v) {
    case 0: return n;
    case 1: return ((i + 2 * j) % 3) * n;
    default: return i == j + 1 ? n : 0;
    }
}

static void run_alltoallv(MPI_Comm comm, int rank, int size)
{
    int *sc = xmalloc(sizeof(int) * (size_t)size), *sd = xmalloc(sizeof(int) * (size_t)size);
    int *rcn = xmalloc(sizeof(int) * (size_t)size), *rd = xmalloc(sizeof(int) * (size_t)size);
    for (int t = 0; t <= T_COUNT; t++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int v = 0; v < 3; v++) {
                int n = counts[ci], send_n = 0, end = 0;
                MPI_Datatype st = t < T_COUNT ? types[t] : MPI_INT;
                MPI_Datatype rt = t < T_COUNT ? types[t] : contig3;
                for (int j = 0; j < size; j++) {
                    int k = t < T_COUNT ? 1 : 3;
                    sc[j] = k * a2av_count(v, n, rank, j);
                    sd[j] = send_n;
                    send_n += sc[j];
                }
                for (int j = size - 1; j >= 0; j--) {
                    rcn[j] = a2av_count(v, n, j, rank);
                    rd[j] = end + (v == 1);
                    end = rd[j] + rcn[j];
                }
                size_t sbytes = (size_t)send_n * extent_of(st);
                void *send = xmalloc(sbytes);
                fill(send, sbytes, (unsigned)(rank + 23));
                struct pair p = pair_new((size_t)end * extent_of(rt), 29);
                entry_delay();
                COLL(Alltoallv, Ialltoallv, send, sc, sd, st, p.acct, rcn, rd, rt, comm);
                PMPI_Alltoallv(send, sc, sd, st, p.native, rcn, rd, rt, comm);
                calls++;
                char w[64];
                snprintf(w, sizeof w, "%s pattern %d", t < T_COUNT ? tname[t] : "mixed", v);
                pair_check(&p, w, size, n, -1);
                free(send);
            }
    free(sc);
    free(sd);
    free(rcn);
    free(rd);
}

/* reduce_scatter: every reduction, count patterns as allgatherv's. */
static void run_reduce_scatter(MPI_Comm comm, int rank, int size)
{
    int *rc = xmalloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < R_COUNT; r++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int v = 0; v < 3; v++)
                for (int ip = 0; ip < 2; ip++) {
                    MPI_Datatype dt;
                    MPI_Op op;
                    size_t es, all_n = 0;
                    red_type(r, &dt, &op, &es);
                    for (int i = 0; i < size; i++) {
                        rc[i] = vcount(v, counts[ci], i, size);
                        all_n += (size_t)rc[i];
                    }
                    size_t mine = (size_t)rc[rank];
                    void *send = xmalloc(all_n * es);
                    red_fill(r, send, all_n, rank, (unsigned)ci);
                    struct pair p = pair_new((ip ? all_n : mine) * es, 9);
                    if (ip) {
                        memcpy(p.acct, send, all_n * es);
                        memcpy(p.native, send, all_n * es);
                        entry_delay();
                        COLL(Reduce_scatter, Ireduce_scatter, MPI_IN_PLACE, p.acct, rc, dt, op, comm);
                        PMPI_Reduce_scatter(MPI_IN_PLACE, p.native, rc, dt, op, comm);
                        p.n = mine * es; /* only the first block is defined */
                    } else {
                        entry_delay();
                        COLL(Reduce_scatter, Ireduce_scatter, send, p.acct, rc, dt, op, comm);
                        PMPI_Reduce_scatter(send, p.native, rc, dt, op, comm);
                    }
                    calls++;
                    char what[64];
                    snprintf(what, sizeof what, "%s pattern %d%s", rname[r], v, ip ? " in-place" : "");
                    pair_check(&p, what, size, counts[ci], -1);
                    free(send);
                }
    free(rc);
}

/* Open MPI's MPI_Wtime counts from a per-process origin; the host's
 * monotonic clock is shared by all ranks of this (single-host) test. */
static double host_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void run_barrier(MPI_Comm comm, int rank, int size)
{
    (void)rank, (void)size;
    /* A barrier must not let anyone out before everyone is in: the last
     * rank enters late; everyone checks the time it entered. */
    for (int i = 0; i < 5; i++) {
        double entered = 0, t0;
        int last = size - 1, me;
        MPI_Comm_rank(comm, &me);
        PMPI_Barrier(comm);
        if (me == last) {
            t0 = host_now();
            while (host_now() - t0 < 0.02)
                ;
            entered = host_now();
        }
        if (nb_mode)
            nb_complete(MPI_Ibarrier(comm, &nbreq));
        else
            MPI_Barrier(comm);
        calls++;
        double out = host_now();
        /* the late rank's entry time, shared after the fact */
        PMPI_Bcast(&entered, 1, MPI_DOUBLE, last, comm);
        cases++;
        if (out < entered) { /* same node clock: oversubscribed ranks share it */
            if (errors < 10)
                fprintf(stderr, "world rank %d: barrier left %.6f s before the last rank entered\n",
                        wrank, entered - out);
            errors++;
        }
    }
}

int main(int argc, char **argv)
{
    static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 13, 16};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    coll = argc > 1 ? argv[1] : "";
    const char *dm = getenv("ACCT_MATRIX_DELAY_US"), *ds = getenv("ACCT_MATRIX_SEED");
    delay_max = dm != NULL ? atol(dm) : 0;
    /* the modes to run: blocking (0), or the listed non-blocking ones */
    const char *nb = getenv("ACCT_MATRIX_NB");
    int modes[2] = {0, 0}, nmodes = 1;
    if (nb != NULL && *nb) {
        static const struct { const char *text; int modes[2], n; } nb_words[] = {
            {"wait", {1, 0}, 1}, {"test", {2, 0}, 1}, {"wait,test", {1, 2}, 2}};
        size_t w = 0;
        while (w < sizeof nb_words / sizeof *nb_words && strcmp(nb, nb_words[w].text) != 0)
            w++;
        if (w == sizeof nb_words / sizeof *nb_words) {
            if (wrank == 0)
                fprintf(stderr, "matrix: ACCT_MATRIX_NB=%s: expected wait, test or wait,test\n", nb);
            MPI_Finalize();
            return 2;
        }
        memcpy(modes, nb_words[w].modes, sizeof modes);
        nmodes = nb_words[w].n;
    }
    nb_mode = modes[0];
    delay_rng = (ds != NULL ? strtoull(ds, NULL, 10) : 1) * 1000003ULL + (unsigned long long)wrank;
    make_types();
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        int size = sizes[si];
        if (size > wsize)
            break;
        MPI_Comm comm;
        /* reversed key: sub-communicator ranks differ from world ranks */
        MPI_Comm_split(MPI_COMM_WORLD, wrank < size ? 0 : MPI_UNDEFINED, size - wrank, &comm);
        if (comm != MPI_COMM_NULL) {
            int rank;
            MPI_Comm_rank(comm, &rank);
            if (nb_mode) /* ACCT's private duplicate (forced barrier method) */
                MPI_Barrier(comm);
            for (int mi = 0; mi < nmodes; mi++) {
                nb_mode = modes[mi];
                if (!strcmp(coll, "bcast")) run_bcast(comm, rank, size);
                else if (!strcmp(coll, "reduce")) run_reduce(comm, rank, size, 0);
                else if (!strcmp(coll, "allreduce")) run_reduce(comm, rank, size, 1);
                else if (!strcmp(coll, "reduce_scatter_block")) run_rsb(comm, rank, size);
                else if (!strcmp(coll, "gather")) run_gather_scatter(comm, rank, size, 0);
                else if (!strcmp(coll, "scatter")) run_gather_scatter(comm, rank, size, 1);
                else if (!strcmp(coll, "allgather")) run_all(comm, rank, size, 0);
                else if (!strcmp(coll, "alltoall")) run_all(comm, rank, size, 1);
                else if (!strcmp(coll, "barrier")) run_barrier(comm, rank, size);
                else if (!strcmp(coll, "allgatherv")) run_allgatherv(comm, rank, size);
                else if (!strcmp(coll, "reduce_scatter")) run_reduce_scatter(comm, rank, size);
                else if (!strcmp(coll, "gatherv")) run_rooted_v(comm, rank, size, 0);
                else if (!strcmp(coll, "scatterv")) run_rooted_v(comm, rank, size, 1);
                else if (!strcmp(coll, "alltoallv")) run_alltoallv(comm, rank, size);
                else if (!strcmp(coll, "scan")) run_scan(comm, rank, size, 0);
                else if (!strcmp(coll, "exscan")) run_scan(comm, rank, size, 1);
                else {
                    if (wrank == 0 && mi == 0)
                        fprintf(stderr, "matrix: unknown collective '%s'\n", coll);
                    errors++;
                }
            }
            nb_mode = modes[0];
            MPI_Comm_free(&comm);
        }
        PMPI_Barrier(MPI_COMM_WORLD);
    }
    long in[2] = {cases, errors}, out[2];
    PMPI_Allreduce(in, out, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0) {
        printf("matrix: %s np=%d cases=%ld calls=%ld errors=%ld %s\n", coll, wsize, out[0], calls,
               out[1], out[1] == 0 && out[0] > 0 ? "OK" : "FAILED");
        fflush(stdout);
    }
    MPI_Finalize();
    return out[1] == 0 && out[0] > 0 ? 0 : 1;
}
