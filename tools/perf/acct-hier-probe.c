/* acct-hier-probe: where a node-aware method's time goes between nodes
 * (issue 21, docs/performance.md section 16 "Session 35").
 *
 *   srun -N 2 -n 8 --ntasks-per-node=4 acct-hier-probe pair [-x SHAPES] [-r REPS] [-p PEER] [-s]
 *   srun ... -x LD_PRELOAD=libacct.so acct-hier-probe coll -c COLL -f SPEC[/SPEC...]
 *                                     [-m BYTES] [-r REPS] [-q RANKS_PER_NODE]
 *
 * pair: the leaders' exchange alone. Ranks 0 and PEER (default size / 2:
 * the second node's leader when 2 nodes hold the ranks in blocks) move,
 * for each shape BYTESxSTREAM (default 4Mx1,1Mx1,1Mx4: STREAM messages of
 * BYTES posted at once, as a node-aware method's leaders post one chunk),
 * one way (0 -> PEER) and both ways at once, each with the job's other
 * ranks spinning (a blocking MPI_Barrier: Open MPI's busy polling, what a
 * node-aware method's waiting ranks do) and sleeping (MPI_Ibarrier tested
 * once a millisecond, nanosleep between). The four patterns of a shape are
 * interleaved in each repetition, so the host's load hits them alike; the
 * time of one is the slower peer's, from the barrier to its last
 * completion. On 2 ranks there are no others: spin and sleep coincide;
 * -s runs the two "others spin" patterns only.
 *
 * coll: the whole method. Needs libacct.so preloaded: each SPEC (ACCT_FORCE
 * syntax, e.g. "allgather=hier_ring"; several separated by '/') is forced
 * with acct_tool_force and COLL (allgather, alltoall, allreduce, bcast,
 * reduce) of BYTES (acct-bench's meaning: a rank's block or vector) runs
 * three ways, interleaved: "block" (the blocking call), "spin" (the
 * non-blocking call, every rank in MPI_Wait) and "sleep" (the non-blocking
 * call, each node's leader in MPI_Wait and the other ranks testing it once
 * a millisecond and sleeping between: ACCT's schedule progresses in their
 * MPI_Test, docs/runtime.md "Non-blocking collectives"). A leader is a
 * rank with index 0 in its node (MPI_Comm_split_type SHARED, or -q R:
 * ranks in blocks of R). The time of one call is the slowest rank's.
 *
 * Prints, per pattern, the median, least and largest repetition in ms and
 * the ratio of medians against the pattern's reference (pair: one way
 * with the others spinning; coll: the spec's blocking call). Helpers
 * (barriers, the timing reductions) call PMPI_ directly so that a forced
 * method never runs them. MPI errors are fatal (the default handler). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { MAX_REPS = 100, MAX_SHAPES = 8, MAX_SPECS = 8, MAX_STREAM = 16 };

typedef int (*force_fn)(const char *);

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct stat3 {
    double med, least, most;
};

static struct stat3 stats(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    struct stat3 s = {n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0], v[n - 1]};
    return s;
}

/* Bytes with an optional K or M (powers of 1024); -1 when malformed. */
static long parse_bytes(const char *s, char **end)
{
    char *e;
    long v = strtol(s, &e, 10);
    if (e == s || v < 1)
        return -1;
    if (*e == 'K' || *e == 'k')
        v *= 1024, e++;
    else if (*e == 'M' || *e == 'm')
        v *= 1024 * 1024, e++;
    *end = e;
    return v;
}

static void nap_ms(void)
{
    struct timespec ts = {0, 1000000L};
    nanosleep(&ts, NULL);
}

/* Wait for rq: in MPI_Wait, or (sleep) testing once a millisecond. */
static void await(MPI_Request *rq, bool sleep)
{
    if (!sleep) {
        MPI_Wait(rq, MPI_STATUS_IGNORE);
        return;
    }
    for (int flag = 0;;) {
        MPI_Test(rq, &flag, MPI_STATUS_IGNORE);
        if (flag)
            return;
        nap_ms();
    }
}

static double slowest(double v)
{
    double m = 0;
    PMPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* ---- pair ---- */

struct shape {
    long bytes;
    int stream;
};

static double pair_once(int me, int peer, const struct shape *sh, bool both, bool sleep,
                        char *sbuf, char *rbuf)
{
    MPI_Request rq[2 * MAX_STREAM], bar;
    int n = 0;
    bool in = me == 0 || me == peer;
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), v = 0;
    if (in) {
        int other = me == 0 ? peer : 0;
        bool send = me == 0 || both, recv = me == peer || both;
        for (int s = 0; s < sh->stream; s++) {
            if (recv)
                MPI_Irecv(rbuf + (size_t)s * (size_t)sh->bytes, (int)sh->bytes, MPI_BYTE, other, 7,
                          MPI_COMM_WORLD, &rq[n++]);
            if (send)
                MPI_Isend(sbuf, (int)sh->bytes, MPI_BYTE, other, 7, MPI_COMM_WORLD, &rq[n++]);
        }
        MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
        v = MPI_Wtime() - t0;
    }
    if (sleep) { /* the others sleep until the pair is done */
        PMPI_Ibarrier(MPI_COMM_WORLD, &bar);
        await(&bar, !in);
    } else {
        PMPI_Barrier(MPI_COMM_WORLD);
    }
    return slowest(v);
}

static int run_pair(int argc, char **argv, int me, int np)
{
    struct shape sh[MAX_SHAPES];
    int nsh = 0, reps = 7, peer = np / 2, opt, npat = 4;
    const char *shapes = "4Mx1,1Mx1,1Mx4";
    while ((opt = getopt(argc, argv, "x:r:p:s")) != -1) {
        if (opt == 'x')
            shapes = optarg;
        else if (opt == 'r')
            reps = atoi(optarg);
        else if (opt == 'p')
            peer = atoi(optarg);
        else if (opt == 's')
            npat = 2;
        else
            return 2;
    }
    for (const char *p = shapes; *p && nsh < MAX_SHAPES;) {
        char *e;
        long b = parse_bytes(p, &e);
        if (b < 1 || b > (1L << 26) || *e != 'x')
            return 2;
        long s = strtol(e + 1, &e, 10);
        if (s < 1 || s > MAX_STREAM || (*e != ',' && *e != '\0'))
            return 2;
        sh[nsh++] = (struct shape){b, (int)s};
        p = *e == ',' ? e + 1 : e;
    }
    if (nsh == 0 || reps < 1 || reps > MAX_REPS || peer < 1 || peer >= np)
        return 2;
    long most = 0;
    for (int i = 0; i < nsh; i++)
        most = sh[i].bytes * sh[i].stream > most ? sh[i].bytes * sh[i].stream : most;
    char *sbuf = malloc((size_t)most), *rbuf = malloc((size_t)most);
    if (sbuf == NULL || rbuf == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(sbuf, 0x5a, (size_t)most);
    char host[MPI_MAX_PROCESSOR_NAME], peer_host[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    MPI_Get_processor_name(host, &len);
    memcpy(peer_host, host, sizeof host);
    PMPI_Bcast(peer_host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, peer, MPI_COMM_WORLD);
    if (me == 0)
        printf("# pair: ranks 0 (%s) and %d (%s) of %d, %d repetitions, patterns interleaved\n"
               "shape\tpattern\tmedian_ms\tleast_ms\tmost_ms\tratio\n",
               host, peer, peer_host, np, reps);
    static const char *const names[4] = {"one way, others spin", "both ways, others spin",
                                         "one way, others sleep", "both ways, others sleep"};
    for (int i = 0; i < nsh; i++) {
        static double t[4][MAX_REPS];
        pair_once(me, peer, &sh[i], true, false, sbuf, rbuf); /* warm-up */
        for (int r = 0; r < reps; r++)
            for (int k = 0; k < npat; k++) {
                int pat = (k + r) % npat; /* rotated order */
                t[pat][r] = pair_once(me, peer, &sh[i], pat % 2 == 1, pat >= 2, sbuf, rbuf);
            }
        struct stat3 s[4];
        for (int pat = 0; pat < npat; pat++)
            s[pat] = stats(t[pat], reps);
        for (int pat = 0; me == 0 && pat < npat; pat++)
            printf("%ldx%d\t%s\t%.2f\t%.2f\t%.2f\t%.3f\n", sh[i].bytes, sh[i].stream, names[pat],
                   1e3 * s[pat].med, 1e3 * s[pat].least, 1e3 * s[pat].most,
                   s[pat].med / s[0].med);
    }
    free(sbuf);
    free(rbuf);
    return 0;
}

/* ---- coll ---- */

enum coll { C_ALLGATHER, C_ALLTOALL, C_ALLREDUCE, C_BCAST, C_REDUCE, NCOLL };
static const char *const coll_names[NCOLL] = {"allgather", "alltoall", "allreduce", "bcast",
                                              "reduce"};

static void coll_call(enum coll c, bool nb, char *sbuf, char *rbuf, int m, MPI_Request *rq)
{
    MPI_Request dummy;
    MPI_Request *r = nb ? rq : &dummy;
    switch (c) {
    case C_ALLGATHER:
        if (nb)
            MPI_Iallgather(sbuf, m, MPI_BYTE, rbuf, m, MPI_BYTE, MPI_COMM_WORLD, r);
        else
            MPI_Allgather(sbuf, m, MPI_BYTE, rbuf, m, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case C_ALLTOALL:
        if (nb)
            MPI_Ialltoall(sbuf, m, MPI_BYTE, rbuf, m, MPI_BYTE, MPI_COMM_WORLD, r);
        else
            MPI_Alltoall(sbuf, m, MPI_BYTE, rbuf, m, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case C_ALLREDUCE:
        if (nb)
            MPI_Iallreduce(sbuf, rbuf, m, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD, r);
        else
            MPI_Allreduce(sbuf, rbuf, m, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
        break;
    case C_BCAST:
        if (nb)
            MPI_Ibcast(rbuf, m, MPI_BYTE, 0, MPI_COMM_WORLD, r);
        else
            MPI_Bcast(rbuf, m, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
    case C_REDUCE:
    case NCOLL:
        if (nb)
            MPI_Ireduce(sbuf, rbuf, m, MPI_BYTE, MPI_BOR, 0, MPI_COMM_WORLD, r);
        else
            MPI_Reduce(sbuf, rbuf, m, MPI_BYTE, MPI_BOR, 0, MPI_COMM_WORLD);
        break;
    }
}

/* mode 0 block, 1 spin, 2 sleep (the non-leaders) */
static double coll_once(enum coll c, int mode, bool leader, char *sbuf, char *rbuf, int m)
{
    MPI_Request rq = MPI_REQUEST_NULL;
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    coll_call(c, mode > 0, sbuf, rbuf, m, &rq);
    if (mode > 0)
        await(&rq, mode == 2 && !leader);
    return slowest(MPI_Wtime() - t0);
}

static int run_coll(int argc, char **argv, int me, int np)
{
    const char *cname = NULL, *specs = NULL;
    long m = 1L << 20;
    int reps = 5, q = 0, opt;
    while ((opt = getopt(argc, argv, "c:f:m:r:q:")) != -1) {
        char *e = NULL;
        if (opt == 'c')
            cname = optarg;
        else if (opt == 'f')
            specs = optarg;
        else if (opt == 'm') {
            m = parse_bytes(optarg, &e);
            if (m < 1 || *e != '\0')
                return 2;
        } else if (opt == 'r')
            reps = atoi(optarg);
        else if (opt == 'q')
            q = atoi(optarg);
        else
            return 2;
    }
    int c = 0;
    while (c < NCOLL && (cname == NULL || strcmp(cname, coll_names[c]) != 0))
        c++;
    if (c == NCOLL || specs == NULL || reps < 1 || reps > MAX_REPS || q < 0 || m > (1L << 24))
        return 2;
    char spec[MAX_SPECS][128];
    int ns = 0;
    for (const char *p = specs; *p && ns < MAX_SPECS;) {
        size_t l = strcspn(p, "/");
        if (l == 0 || l >= sizeof spec[0])
            return 2;
        memcpy(spec[ns], p, l);
        spec[ns++][l] = '\0';
        p += l + (p[l] == '/');
    }
    force_fn force = (force_fn)(void (*)(void))dlsym(RTLD_DEFAULT, "acct_tool_force");
    if (force == NULL || force(spec[0]) != 0) {
        if (me == 0)
            fprintf(stderr, "acct-hier-probe: ACCT is not active (preload libacct.so) or "
                            "'%s' is not a valid ACCT_FORCE entry\n",
                    spec[0]);
        return 3;
    }
    int local = 0;
    if (q > 0) {
        local = me % q;
    } else {
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
    }
    int nleaders = 0, lead = local == 0;
    PMPI_Allreduce(&lead, &nleaders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    size_t big = (size_t)m * (size_t)np;
    char *sbuf = malloc(big), *rbuf = malloc(big);
    if (sbuf == NULL || rbuf == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(sbuf, 1 + me % 7, big);
    memset(rbuf, 0, big);
    if (me == 0)
        printf("# coll: %s, %ld bytes, %d ranks, %d leaders, %d repetitions, patterns "
               "interleaved\nspec\tmode\tmedian_ms\tleast_ms\tmost_ms\tratio\n",
               coll_names[c], m, np, nleaders, reps);
    static const char *const modes[3] = {"block", "spin", "sleep"};
    static double t[MAX_SPECS][3][MAX_REPS];
    for (int s = 0; s < ns; s++) { /* warm-up: connections, the layout */
        force(spec[s]);
        coll_once((enum coll)c, 0, lead, sbuf, rbuf, (int)m);
        coll_once((enum coll)c, 1, lead, sbuf, rbuf, (int)m);
    }
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < 3 * ns; k++) {
            int j = (k + r) % (3 * ns), s = j / 3, mode = j % 3; /* rotated order */
            force(spec[s]);
            t[s][mode][r] = coll_once((enum coll)c, mode, lead, sbuf, rbuf, (int)m);
        }
    for (int s = 0; s < ns; s++) {
        struct stat3 st[3];
        for (int mode = 0; mode < 3; mode++)
            st[mode] = stats(t[s][mode], reps);
        for (int mode = 0; me == 0 && mode < 3; mode++)
            printf("%s\t%s\t%.2f\t%.2f\t%.2f\t%.3f\n", spec[s], modes[mode], 1e3 * st[mode].med,
                   1e3 * st[mode].least, 1e3 * st[mode].most, st[mode].med / st[0].med);
    }
    force("");
    free(sbuf);
    free(rbuf);
    return 0;
}

int main(int argc, char **argv)
{
    int me, np, rc = 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np >= 2 && argc >= 2 && strcmp(argv[1], "pair") == 0)
        rc = run_pair(argc - 1, argv + 1, me, np);
    else if (np >= 2 && argc >= 2 && strcmp(argv[1], "coll") == 0)
        rc = run_coll(argc - 1, argv + 1, me, np);
    if (rc == 2 && me == 0)
        fprintf(stderr, "usage: acct-hier-probe pair [-x BYTESxSTREAM,...] [-r REPS] [-p PEER] [-s]\n"
                        "       acct-hier-probe coll -c COLL -f SPEC[/SPEC...] [-m BYTES] "
                        "[-r REPS] [-q RANKS_PER_NODE]\n"
                        "on 2 or more ranks (see the comment at the top of acct-hier-probe.c)\n");
    fflush(stdout);
    MPI_Finalize();
    return rc;
}
