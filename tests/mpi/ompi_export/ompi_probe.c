/* Which algorithm did Open MPI's coll/tuned really run?
 *
 *   ompi_probe run COLL BYTES[/ELEM]        (under mpirun)
 *   ompi_probe check CASE NP PREFIX         CASE = coll:bytes[/elem]:alg[:segment[:fanout]]
 *
 * "run" makes exactly one collective call, natively (no libacct), and
 * nothing else. Run under mpirun with Open MPI's PML monitoring
 * (--mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3
 * --mca pml_monitoring_filename PREFIX), each rank writes PREFIX.RANK.prof
 * at MPI_Finalize, with one "I" line (internal, i.e. collective traffic)
 * per peer it sent to: bytes and messages. (The MPI_T variables of the
 * same component cannot be used in Open MPI 4.1.4: their indices are
 * invalid.) Collectives in coll/tuned are built on PML sends, so who sent
 * how many messages to whom is a signature of the algorithm.
 *
 * "check" reads those files and compares them with the signature of the
 * Open MPI algorithm number alg (coll_tuned_<coll>_algorithm); segment is
 * the pipeline's segment size. coll is bcast, allreduce, alltoall, gather,
 * scatter, scan or exscan; bytes is ACCT's message size m (docs/rules.md:
 * the whole buffer for bcast, allreduce, scan and exscan, the block per
 * peer for the others). scan and exscan run bytes/elem elements of a
 * contiguous type of elem bytes (default: one element of bytes) with a
 * user-defined commutative op (bitwise or): Open MPI looks them up by the
 * type's size, not by the count.
 * alg 0 means the pattern must NOT be that of any algorithm listed after
 * it (coll:bytes:0:notalg1/notalg2): used to show that a malformed rules
 * file was dropped and Open MPI's fixed decision ran.
 *
 * Exit status of check: 0 if the pattern matches, 1 if not, 2 on usage
 * errors or missing monitoring output. It prints one verdict line and the
 * messages seen. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


struct pcase {
    char coll[32];
    long long bytes;
    long long elem; /* scan, exscan: bytes per element */
    int alg;
    long long seg;
    int fanout;
    int notalg[8];
    int nnot;
};

static int parse_case(const char *s, struct pcase *c)
{
    char buf[256];
    memset(c, 0, sizeof(*c));
    if (strlen(s) >= sizeof(buf))
        return -1;
    strcpy(buf, s);
    char *save = NULL;
    char *tok = strtok_r(buf, ":", &save);
    if (tok == NULL || strlen(tok) >= sizeof(c->coll))
        return -1;
    strcpy(c->coll, tok);
    tok = strtok_r(NULL, ":", &save);
    if (tok == NULL)
        return -1;
    c->bytes = atoll(tok);
    const char *slash = strchr(tok, '/');
    c->elem = slash != NULL ? atoll(slash + 1) : c->bytes;
    tok = strtok_r(NULL, ":", &save);
    if (tok == NULL)
        return -1;
    c->alg = atoi(tok);
    tok = strtok_r(NULL, ":", &save);
    if (tok != NULL) {
        if (c->alg == 0) {
            char *save2 = NULL;
            for (char *t = strtok_r(tok, "/", &save2); t != NULL && c->nnot < 8;
                 t = strtok_r(NULL, "/", &save2))
                c->notalg[c->nnot++] = atoi(t);
        } else {
            c->seg = atoll(tok);
            tok = strtok_r(NULL, ":", &save);
            if (tok != NULL)
                c->fanout = atoi(tok);
        }
    }
    if (c->bytes < 4 || c->bytes % 4 != 0 || c->elem < 1 || c->bytes % c->elem != 0)
        return -1;
    return 0;
}

static void bor(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int size;
    MPI_Type_size(*type, &size);
    for (size_t i = 0; i < (size_t)*len * (size_t)size; i++)
        ((unsigned char *)inout)[i] |= ((const unsigned char *)in)[i];
}

static int run_case(const struct pcase *c, int size)
{
    size_t n = (size_t)c->bytes;
    int rc = MPI_SUCCESS;
    if (strcmp(c->coll, "bcast") == 0) {
        char *b = calloc(n, 1);
        rc = b ? MPI_Bcast(b, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD) : MPI_ERR_NO_MEM;
        free(b);
    } else if (strcmp(c->coll, "allreduce") == 0) {
        int *s = calloc(n, 1), *r = calloc(n, 1);
        rc = (s && r) ? MPI_Allreduce(s, r, (int)(n / 4), MPI_INT, MPI_SUM, MPI_COMM_WORLD)
                      : MPI_ERR_NO_MEM;
        free(s);
        free(r);
    } else if (strcmp(c->coll, "alltoall") == 0) {
        char *s = calloc(n * (size_t)size, 1), *r = calloc(n * (size_t)size, 1);
        rc = (s && r) ? MPI_Alltoall(s, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE, MPI_COMM_WORLD)
                      : MPI_ERR_NO_MEM;
        free(s);
        free(r);
    } else if (strcmp(c->coll, "gather") == 0) {
        char *s = calloc(n, 1), *r = calloc(n * (size_t)size, 1);
        rc = (s && r) ? MPI_Gather(s, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD)
                      : MPI_ERR_NO_MEM;
        free(s);
        free(r);
    } else if (strcmp(c->coll, "scatter") == 0) {
        char *s = calloc(n * (size_t)size, 1), *r = calloc(n, 1);
        rc = (s && r) ? MPI_Scatter(s, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD)
                      : MPI_ERR_NO_MEM;
        free(s);
        free(r);
    } else if (strcmp(c->coll, "scan") == 0 || strcmp(c->coll, "exscan") == 0) {
        MPI_Datatype t;
        MPI_Op op;
        char *s = calloc(n, 1), *r = calloc(n, 1);
        MPI_Type_contiguous((int)c->elem, MPI_BYTE, &t);
        MPI_Type_commit(&t);
        MPI_Op_create(bor, 1, &op);
        int count = (int)(c->bytes / c->elem);
        if (s == NULL || r == NULL)
            rc = MPI_ERR_NO_MEM;
        else if (c->coll[0] == 's')
            rc = MPI_Scan(s, r, count, t, op, MPI_COMM_WORLD);
        else
            rc = MPI_Exscan(s, r, count, t, op, MPI_COMM_WORLD);
        MPI_Op_free(&op);
        MPI_Type_free(&t);
        free(s);
        free(r);
    } else {
        rc = MPI_ERR_ARG;
    }
    return rc;
}

static int ilog2ceil(int p)
{
    int k = 0;
    while ((1 << k) < p)
        k++;
    return k;
}

/* cnt/sz: p x p matrices, [src * p + dst]. Returns 1 if the pattern is that
 * of Open MPI algorithm alg, else 0; why gets the first mismatch. */
static int matches(const struct pcase *c, int alg, int p, const unsigned long long *cnt,
                   const unsigned long long *sz, char *why, size_t wlen)
{
    unsigned long long m = (unsigned long long)c->bytes;
    int lg = ilog2ceil(p);
    snprintf(why, wlen, "ok");
#define FAIL(...)                            \
    do {                                     \
        snprintf(why, wlen, __VA_ARGS__);    \
        return 0;                            \
    } while (0)
    if (strcmp(c->coll, "bcast") == 0) {
        unsigned long long total = 0;
        for (int i = 0; i < p * p; i++)
            total += sz[i];
        switch (alg) {
        case 1: /* basic_linear: root sends m to everyone, nobody else sends */
            for (int s = 0; s < p; s++)
                for (int d = 0; d < p; d++) {
                    unsigned long long want = (s == 0 && d != 0) ? 1 : 0;
                    if (cnt[s * p + d] != want)
                        FAIL("rank %d sent %llu messages to %d, linear sends %llu", s,
                             cnt[s * p + d], d, want);
                }
            return 1;
        case 3: { /* pipeline: a chain 0 -> 1 -> ... -> p-1 of ceil(m/seg) segments */
            unsigned long long segs = c->seg > 0 ? (m + (unsigned long long)c->seg - 1) /
                                                       (unsigned long long)c->seg
                                                 : 1;
            for (int s = 0; s < p; s++)
                for (int d = 0; d < p; d++) {
                    unsigned long long want = (d == s + 1) ? segs : 0;
                    if (cnt[s * p + d] != want)
                        FAIL("rank %d sent %llu messages to %d, a pipeline of %llu segments "
                             "sends %llu", s, cnt[s * p + d], d, segs, want);
                }
            return 1;
        }
        case 6: { /* binomial, unsegmented: p-1 messages of m, the root sends log2 p */
            int root_peers = 0;
            unsigned long long msgs = 0;
            for (int d = 0; d < p; d++)
                root_peers += cnt[d] > 0;
            for (int i = 0; i < p * p; i++)
                msgs += cnt[i];
            if (msgs != (unsigned long long)(p - 1) || total != m * (unsigned long long)(p - 1))
                FAIL("%llu messages of %llu bytes in all, a binomial tree sends %d of %llu",
                     msgs, total, p - 1, m * (unsigned long long)(p - 1));
            if (root_peers != lg)
                FAIL("the root sent to %d ranks, a binomial tree's root to %d", root_peers, lg);
            return 1;
        }
        default:
            FAIL("no signature for bcast algorithm %d", alg);
        }
    } else if (strcmp(c->coll, "allreduce") == 0) {
        switch (alg) {
        case 1: /* basic_linear: reduce to 0 (everyone sends to 0), bcast from 0 */
            for (int s = 0; s < p; s++)
                for (int d = 0; d < p; d++) {
                    unsigned long long want = (s != d && (s == 0 || d == 0)) ? 1 : 0;
                    if (cnt[s * p + d] != want)
                        FAIL("rank %d sent %llu messages to %d, linear (reduce+bcast) sends %llu",
                             s, cnt[s * p + d], d, want);
                }
            return 1;
        case 3: /* recursive doubling (p a power of two): log2 p exchanges, rank ^ 2^k */
        case 6: /* rabenseifner: the same partners, twice each (halving + doubling) */
            for (int s = 0; s < p; s++)
                for (int d = 0; d < p; d++) {
                    int partner = d != s && ((s ^ d) & ((s ^ d) - 1)) == 0;
                    unsigned long long want = partner ? (alg == 3 ? 1 : 2) : 0;
                    if (cnt[s * p + d] != want)
                        FAIL("rank %d sent %llu messages to %d, %s sends %llu", s,
                             cnt[s * p + d], d, alg == 3 ? "recursive doubling" : "rabenseifner",
                             want);
                }
            return 1;
        case 4: /* ring: 2(p-1) messages to the right neighbour only */
            for (int s = 0; s < p; s++)
                for (int d = 0; d < p; d++) {
                    unsigned long long want = d == (s + 1) % p ? 2ull * (unsigned)(p - 1) : 0;
                    if (cnt[s * p + d] != want)
                        FAIL("rank %d sent %llu messages to %d, the ring sends %llu", s,
                             cnt[s * p + d], d, want);
                }
            return 1;
        default:
            FAIL("no signature for allreduce algorithm %d", alg);
        }
    } else if (strcmp(c->coll, "alltoall") == 0) {
        switch (alg) {
        case 1: /* linear and pairwise: one block of m to every other rank */
        case 2:
            for (int s = 0; s < p; s++)
                for (int d = 0; d < p; d++) {
                    unsigned long long want = s != d;
                    if (cnt[s * p + d] != want || sz[s * p + d] != want * m)
                        FAIL("rank %d sent %llu messages (%llu bytes) to %d, a direct exchange "
                             "sends %llu (%llu)", s, cnt[s * p + d], sz[s * p + d], d, want,
                             want * m);
                }
            return 1;
        case 3: /* modified bruck: ceil(log2 p) messages to rank + 2^k */
            for (int s = 0; s < p; s++)
                for (int d = 0; d < p; d++) {
                    int dist = (d - s + p) % p;
                    int partner = dist != 0 && (dist & (dist - 1)) == 0;
                    unsigned long long want = partner;
                    if (cnt[s * p + d] != want)
                        FAIL("rank %d sent %llu messages to %d, bruck sends %llu", s,
                             cnt[s * p + d], d, want);
                }
            (void)lg;
            return 1;
        default:
            FAIL("no signature for alltoall algorithm %d", alg);
        }
    } else if (strcmp(c->coll, "gather") == 0) {
        int root_from = 0;
        for (int s = 1; s < p; s++)
            root_from += cnt[s * p] > 0;
        switch (alg) {
        case 1: /* basic_linear: every rank sends its block straight to the root */
            for (int s = 1; s < p; s++)
                for (int d = 0; d < p; d++) {
                    unsigned long long want = d == 0;
                    if (cnt[s * p + d] != want)
                        FAIL("rank %d sent %llu messages to %d, linear sends %llu", s,
                             cnt[s * p + d], d, want);
                }
            return 1;
        case 2: /* binomial: the root hears from ceil(log2 p) subtrees only */
            if (root_from != lg)
                FAIL("the root heard from %d ranks, a binomial tree's root from %d", root_from,
                     lg);
            return 1;
        default:
            FAIL("no signature for gather algorithm %d", alg);
        }
    }
    if (strcmp(c->coll, "scatter") == 0) {
        int root_to = 0;
        for (int d = 1; d < p; d++)
            root_to += cnt[d] > 0;
        switch (alg) {
        case 1: /* basic_linear: the root sends every rank its block, nobody else sends */
            for (int s = 0; s < p; s++)
                for (int d = 0; d < p; d++) {
                    unsigned long long want = s == 0 && d != 0;
                    if (cnt[s * p + d] != want)
                        FAIL("rank %d sent %llu messages to %d, linear sends %llu", s,
                             cnt[s * p + d], d, want);
                }
            return 1;
        case 2: /* binomial: the root sends to ceil(log2 p) subtrees only */
            if (root_to != lg)
                FAIL("the root sent to %d ranks, a binomial tree's root to %d", root_to, lg);
            return 1;
        default:
            FAIL("no signature for scatter algorithm %d", alg);
        }
    }
    if (strcmp(c->coll, "scan") == 0 || strcmp(c->coll, "exscan") == 0) {
        switch (alg) {
        case 1: /* linear: the chain 0 -> 1 -> ... -> p-1, one message of m per hop */
            for (int s = 0; s < p; s++)
                for (int d = 0; d < p; d++) {
                    unsigned long long want = d == s + 1;
                    if (cnt[s * p + d] != want || sz[s * p + d] != want * m)
                        FAIL("rank %d sent %llu messages (%llu bytes) to %d, the linear chain "
                             "sends %llu (%llu)", s, cnt[s * p + d], sz[s * p + d], d, want,
                             want * m);
                }
            return 1;
        case 2: /* recursive doubling: one message of m to each rank ^ 2^k below p */
            for (int s = 0; s < p; s++)
                for (int d = 0; d < p; d++) {
                    unsigned long long want = d != s && ((s ^ d) & ((s ^ d) - 1)) == 0;
                    if (cnt[s * p + d] != want || sz[s * p + d] != want * m)
                        FAIL("rank %d sent %llu messages (%llu bytes) to %d, recursive "
                             "doubling sends %llu (%llu)", s, cnt[s * p + d], sz[s * p + d], d,
                             want, want * m);
                }
            return 1;
        default:
            FAIL("no signature for %s algorithm %d", c->coll, alg);
        }
    }
    FAIL("unknown collective %s", c->coll);
#undef FAIL
}

/* Reads the "I" (internal: collective) lines of PREFIX.RANK.prof, the PML
 * monitoring output of each rank, into cnt and sz. */
static int read_profiles(const char *prefix, int p, unsigned long long *cnt,
                         unsigned long long *sz)
{
    for (int r = 0; r < p; r++) {
        char path[4096], line[8192];
        snprintf(path, sizeof(path), "%s.%d.prof", prefix, r);
        FILE *f = fopen(path, "r");
        if (f == NULL) {
            fprintf(stderr, "ompi_probe: cannot open %s (was the job run with "
                            "--mca pml_monitoring_enable 2?)\n", path);
            return -1;
        }
        while (fgets(line, sizeof(line), f) != NULL) {
            int src, dst;
            unsigned long long bytes, msgs;
            if (line[0] == 'E' && line[1] == '\t') {
                fprintf(stderr, "ompi_probe: %s: unexpected user point-to-point traffic\n", path);
                fclose(f);
                return -1;
            }
            if (sscanf(line, "I\t%d\t%d\t%llu bytes\t%llu msgs sent", &src, &dst, &bytes,
                       &msgs) != 4)
                continue;
            if (src != r || dst < 0 || dst >= p) {
                fprintf(stderr, "ompi_probe: %s: bad line %s", path, line);
                fclose(f);
                return -1;
            }
            cnt[src * p + dst] += msgs;
            sz[src * p + dst] += bytes;
        }
        fclose(f);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int status = 2;
    struct pcase c;

    if (argc == 4 && strcmp(argv[1], "run") == 0) {
        /* Exactly one collective call and nothing else, so the monitoring
         * output holds only its messages. */
        int size;
        char spec[128];
        snprintf(spec, sizeof(spec), "%s:%s:1", argv[2], argv[3]);
        MPI_Init(&argc, &argv);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        if (parse_case(spec, &c) == 0 && run_case(&c, size) == MPI_SUCCESS)
            status = 0;
        MPI_Finalize();
        return status;
    }
    if (argc == 5 && strcmp(argv[1], "check") == 0) {
        int p = atoi(argv[3]);
        if (parse_case(argv[2], &c) != 0 || p < 2 || p > 256) {
            fprintf(stderr, "ompi_probe: bad case \"%s\" or size %s\n", argv[2], argv[3]);
            return 2;
        }
        size_t pp = (size_t)p * (size_t)p;
        unsigned long long *cnt = calloc(pp, sizeof(*cnt)), *sz = calloc(pp, sizeof(*sz));
        if (cnt == NULL || sz == NULL || read_profiles(argv[4], p, cnt, sz) != 0) {
            free(cnt);
            free(sz);
            return 2;
        }
        char why[256];
        int ok;
        if (c.alg != 0) {
            ok = matches(&c, c.alg, p, cnt, sz, why, sizeof(why));
        } else {
            ok = 1;
            snprintf(why, sizeof(why), "matches none of the excluded algorithms");
            for (int k = 0; k < c.nnot && ok; k++) {
                char w2[256];
                if (matches(&c, c.notalg[k], p, cnt, sz, w2, sizeof(w2))) {
                    ok = 0;
                    snprintf(why, sizeof(why), "matches excluded algorithm %d", c.notalg[k]);
                }
            }
        }
        printf("%s %s np=%d: %s\n", ok ? "PASS" : "FAIL", argv[2], p, why);
        printf("  messages sent (src->dst:count/bytes):");
        for (int s = 0; s < p; s++)
            for (int d = 0; d < p; d++)
                if (cnt[s * p + d])
                    printf(" %d->%d:%llu/%llu", s, d, cnt[s * p + d], sz[s * p + d]);
        printf("\n");
        free(cnt);
        free(sz);
        return ok ? 0 : 1;
    }
    fprintf(stderr, "usage: ompi_probe run COLL BYTES[/ELEM]   (under mpirun)\n"
                    "       ompi_probe check CASE NP PREFIX    (CASE = coll:bytes[/elem]:alg[:seg[:fanout]])\n");
    return 2;
}
