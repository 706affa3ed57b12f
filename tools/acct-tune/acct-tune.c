/* acct-tune: tune ACCT's collective algorithms for the partition this job
 * runs on (docs/acct-tune.md).
 *
 *   options      every rank parses argv to the same verdict
 *   conditions   host names of all ranks -> hosts, ranks per node, layout
 *   state        rank 0 loads the resume journal and broadcasts it
 *   model        pLogP parameters (every run on 2 ranks or more: the searches
 *                use them with --source model / hybrid, the rules' model
 *                regions always)
 *   grid         per collective, per communicator size (the first k ranks
 *                of the job: MPI_Comm_split keeps the job's block layout),
 *                per message size: search {method, segment} (oracle.c)
 *   output       rank 0 writes the result, the rules, the Open MPI rules
 *
 * The program is linked against libacct.so (ahead of MPI), so its MPI_*
 * collectives go through ACCT exactly as in users' jobs, and each experiment
 * forces one method with acct_tool_force(). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acct/alg.h"
#include "acct/layout.h"
#include "acct/tool.h"
#include "oracle.h"

#include "acct/model.h"
#include "plogp.h"
#include "plogp_file.h"
#include "race.h"

#define HOST_NAME_LEN MPI_MAX_PROCESSOR_NAME

/* ---- conditions ----------------------------------------------------------------- */

/* A processor name as a name of docs/rules.md: other characters become '_'. */
static void clean_name(const char *in, char *out, size_t len)
{
    size_t i = 0;

    for (; in[i] != '\0' && i + 1 < len; i++)
        out[i] = (char)((in[i] >= 'a' && in[i] <= 'z') || (in[i] >= 'A' && in[i] <= 'Z') ||
                                (in[i] >= '0' && in[i] <= '9') || strchr("._+-", in[i]) != NULL
                            ? in[i]
                            : '_');
    if (i == 0)
        out[i++] = '_';
    out[i] = '\0';
}

/* Gather the processor names; rank 0 fills cond. Collective over the world. */
static int gather_conditions(int rank, int nranks, struct acct_result_conditions *cond,
                             char *err, size_t errlen)
{
    int rc = 0, len = 0;
    char name[HOST_NAME_LEN];
    char *names = NULL;
    struct kit_topology t;

    memset(cond, 0, sizeof(*cond));
    memset(&t, 0, sizeof(t));
    memset(name, 0, sizeof(name));
    if (MPI_Get_processor_name(name, &len) != MPI_SUCCESS)
        snprintf(name, sizeof(name), "unknown");
    name[sizeof(name) - 1] = '\0';
    if (rank == 0)
        names = malloc((size_t)nranks * sizeof(name));
    rc = rank == 0 && names == NULL ? -1 : 0;
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    rc = kit_agree(rc, err, errlen, MPI_COMM_WORLD);
    if (rc != 0)
        goto out;
    PMPI_Gather(name, (int)sizeof(name), MPI_CHAR, names, (int)sizeof(name), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    if (rank == 0) {
        rc = kit_topology(names, sizeof(name), nranks, &t);
        cond->hosts = rc == 0 ? calloc((size_t)t.nodes, sizeof(*cond->hosts)) : NULL;
        rc = cond->hosts == NULL ? -1 : 0;
        if (rc != 0)
            snprintf(err, errlen, "out of memory");
        for (int h = 0; rc == 0 && h < t.nodes && h < ACCT_RESULT_MAX_HOSTS; h++)
            clean_name(names + (size_t)t.first_rank[h] * sizeof(name), cond->hosts[h],
                       sizeof(cond->hosts[h]));
        cond->nhosts = (size_t)(t.nodes < ACCT_RESULT_MAX_HOSTS ? t.nodes : ACCT_RESULT_MAX_HOSTS);
        cond->ranks = nranks;
        cond->ranks_per_node = t.rpn_max;
        cond->placement = t.layout == KIT_LAYOUT_BLOCK    ? ACCT_PLACEMENT_BLOCK
                          : t.layout == KIT_LAYOUT_CYCLIC ? ACCT_PLACEMENT_CYCLIC
                                                          : ACCT_PLACEMENT_MIXED;
        char version[MPI_MAX_LIBRARY_VERSION_STRING] = "unknown";
        if (MPI_Get_library_version(version, &len) != MPI_SUCCESS)
            snprintf(version, sizeof(version), "unknown");
        version[strcspn(version, "\n")] = '\0';
        size_t i = 0;
        for (; version[i] != '\0' && i + 1 < sizeof(cond->mpi_library); i++)
            cond->mpi_library[i] = version[i] >= ' ' && version[i] < 0x7f ? version[i] : '?';
        cond->mpi_library[i] = '\0';
        snprintf(cond->acct_version, sizeof(cond->acct_version), "%s", ACCT_VERSION_STRING);
        const char *job = getenv("SLURM_JOB_ID");
        if (job != NULL && strspn(job, "0123456789_") == strlen(job))
            snprintf(cond->slurm_job_id, sizeof(cond->slurm_job_id), "%.31s", job);
    }
    rc = kit_agree(rc, err, errlen, MPI_COMM_WORLD);
out:
    kit_topology_free(&t);
    free(names);
    return rc;
}

/* The 1-minute load average of each host (its first rank's), at the start
 * (end false) or the end of the run, into run->noise.load (rank 0, in
 * cond.hosts order; docs/tuning-result.md "noise"). Collective over the
 * world; agreed. */
static int gather_load(int rank, int nranks, struct tune_run_info *run, bool end, char *err,
                       size_t errlen)
{
    struct acct_result_noise *nz = &run->noise;
    struct { char name[HOST_NAME_LEN]; double load; } me, *all = NULL;
    int rc = 0, len = 0;

    memset(&me, 0, sizeof(me));
    if (MPI_Get_processor_name(me.name, &len) != MPI_SUCCESS)
        snprintf(me.name, sizeof(me.name), "unknown");
    me.name[sizeof(me.name) - 1] = '\0';
    if (getloadavg(&me.load, 1) != 1)
        me.load = -1; /* unknown: left out of the section */
    if (rank == 0 && (all = malloc((size_t)nranks * sizeof(*all))) == NULL)
        rc = -1;
    if (rank == 0 && rc == 0 && !end && run->cond.nhosts > 0 &&
        (nz->load = calloc(run->cond.nhosts, sizeof(*nz->load))) == NULL)
        rc = -1;
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    if (kit_agree(rc, err, errlen, MPI_COMM_WORLD) != 0)
        goto out;
    PMPI_Gather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, 0,
                MPI_COMM_WORLD);
    for (size_t h = 0; rank == 0 && nz->load != NULL && h < run->cond.nhosts; h++) {
        struct acct_result_load *l = &nz->load[h];
        for (int i = 0; i < nranks; i++) {
            char clean[ACCT_RULES_NAME_MAX + 1];
            clean_name(all[i].name, clean, sizeof(clean));
            if (strcmp(clean, run->cond.hosts[h]) != 0 || all[i].load < 0)
                continue;
            snprintf(l->host, sizeof(l->host), "%s", clean);
            *(end ? &l->end : &l->start) = all[i].load;
            break;
        }
    }
    if (rank == 0 && end && nz->load != NULL) { /* keep the hosts measured both times */
        size_t k = 0;
        for (size_t h = 0; h < run->cond.nhosts; h++)
            if (nz->load[h].host[0] != '\0')
                nz->load[k++] = nz->load[h];
        nz->nload = k;
    }
out:
    free(all);
    return rc;
}

/* ---- state: rank 0 loads, everyone gets the records -------------------------------- */

static int share_state(struct tune_ctx *x, int rank, uint64_t fp)
{
    int rc = 0;
    unsigned long long n = 0;

    if (rank == 0 && x->o->state != NULL)
        rc = tune_state_open(&x->state, x->o->state, fp, x->err, sizeof(x->err));
    rc = kit_agree(rc, x->err, sizeof(x->err), MPI_COMM_WORLD);
    if (rc != 0)
        return rc;
    n = x->state.n;
    PMPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank != 0 && n > 0) {
        x->state.v = malloc((size_t)n * sizeof(*x->state.v));
        x->state.n = (size_t)n;
        rc = x->state.v == NULL ? -1 : 0;
        if (rc != 0)
            snprintf(x->err, sizeof(x->err), "out of memory for the state's records");
    }
    rc = kit_agree(rc, x->err, sizeof(x->err), MPI_COMM_WORLD);
    /* in chunks: an MPI count is an int */
    size_t chunk = (size_t)(1 << 20) / sizeof(*x->state.v);
    for (size_t off = 0; rc == 0 && off < (size_t)n; off += chunk) {
        size_t k = (size_t)n - off < chunk ? (size_t)n - off : chunk;
        PMPI_Bcast(x->state.v + off, (int)(k * sizeof(*x->state.v)), MPI_BYTE, 0,
                   MPI_COMM_WORLD);
    }
    return rc;
}

/* ---- model ---------------------------------------------------------------------------- */

static struct acct_model model;

static double model_cost(void *ctx, enum acct_coll_id coll, const struct acct_decision *d, int p,
                         uint64_t m)
{
    return acct_model_predict(coll, d, p, m, ctx);
}

/* Each world rank's node label, the same on every rank: ACCT_LAYOUT's
 * pretended placement when set (as the runtime and the oracle do), else the
 * lowest world rank of its MPI_COMM_TYPE_SHARED group. 0, or -1 (agreed). */
static int world_nodes(int rank, int world, int *label)
{
    int me = -1;
    const char *pretend = getenv("ACCT_LAYOUT");
    MPI_Comm local = MPI_COMM_NULL;
    if (pretend != NULL && *pretend != '\0')
        me = acct_layout_pattern_label(pretend, rank);
    if (me < 0 && PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                                       &local) == MPI_SUCCESS) {
        PMPI_Allreduce(&rank, &me, 1, MPI_INT, MPI_MIN, local);
        PMPI_Comm_free(&local);
    }
    if (PMPI_Allgather(&me, 1, MPI_INT, label, 1, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS)
        return -1;
    int ok = 1;
    for (int r = 0; r < world; r++)
        ok = ok && label[r] >= 0;
    return ok ? 0 : -1;
}

static void to_result(const struct acct_plogp *t, struct acct_result_loggp *out)
{
    struct acct_loggp lg = {0};
    acct_plogp_to_loggp(t, &lg);
    *out = (struct acct_result_loggp){lg.L_us, lg.o_us, lg.g_us, lg.G_us_per_byte};
}

/* pLogP between world ranks a and b, measured again (up to three times in
 * all) while the table is not a network's (acct_plogp_consistent: a pair
 * timed while the host did not schedule one of its ranks). Every rank holds
 * the same table, so every rank decides alike. The last table is kept when
 * none is consistent, and rank 0 says the model is not valid on this
 * partition. 0, or -1 (the measurement failed). */
static int measure_checked(int a, int b, const uint64_t *sizes, size_t nsizes,
                           const struct acct_plogp_opts *opts, const char *what,
                           struct acct_plogp *out)
{
    enum { ATTEMPTS = 3 };
    int rank = 0;
    char why[256];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 1; i <= ATTEMPTS; i++) {
        if (acct_plogp_measure_opts(MPI_COMM_WORLD, a, b, sizes, nsizes, opts, out) != 0)
            return -1;
        if (acct_plogp_consistent(out, why, sizeof why) == 0)
            return 0;
        if (rank == 0)
            fprintf(stderr, "acct-tune: pLogP %s (ranks %d, %d), attempt %d of %d: not a "
                    "network's table: %s%s\n", what, a, b, i, ATTEMPTS, why,
                    i < ATTEMPTS ? "; measuring again" : "");
    }
    if (rank == 0)
        fprintf(stderr, "acct-tune: pLogP %s stays inconsistent: the model is not valid on "
                "this partition (docs/models.md \"Measuring pLogP\")\n", what);
    return 0;
}

/* Issue 21: an intra-node pair (rank 0 and the next rank on its node) and
 * an inter-node pair (rank 0 and the lowest rank elsewhere) measured apart
 * (a pair that is ranks 0 and 1 reuses net), the pair-duplex factor of the
 * inter-node pair (both ways at once against one way: 7 interleaved
 * repetitions of 4 x 512 KiB each, ratio of the medians; ~2 s at 100
 * Mbit/s), and the NIC factor of k pairs between those two nodes (k = the
 * fewer ranks of the two, >= 2). The inter-node sizes cost ~0.1 s per MiB
 * at 100 Mbit/s: fewer repetitions.
 * Fills mdl->nodes and run->model's levels when the layout has both pairs;
 * collective over the world. 0, or -1 (agreed, message in x->err). */
static int measure_levels(struct tune_ctx *x, struct tune_run_info *run, struct acct_model *mdl,
                          const uint64_t *sizes, size_t nsizes)
{
    int world = 0, rank = 0, rc = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *label = malloc((size_t)world * 3 * sizeof *label);
    if (label == NULL || world_nodes(rank, world, label) != 0) {
        free(label);
        return 0; /* no layout known: one network, as before */
    }
    int *a = label + world, *b = label + 2 * world, na = 0, nb = 0, intra = -1, inter = -1;
    for (int r = 1; r < world; r++) {
        if (label[r] == label[0] && intra < 0)
            intra = r;
        if (label[r] != label[0] && inter < 0)
            inter = r;
    }
    if (intra < 0 || inter < 0) {
        free(label);
        return 0;
    }
    for (int r = 0; r < world; r++) {
        if (label[r] == label[0])
            a[na++] = r;
        else if (label[r] == label[inter])
            b[nb++] = r;
    }
    const struct acct_plogp_opts slow = {.reps = 5, .stream = 4};
    struct acct_model_nodes *n = &mdl->nodes;
    if (intra == 1)
        n->intra = mdl->net;
    else
        rc = measure_checked(0, intra, sizes, nsizes, NULL, "intra", &n->intra);
    if (rc == 0 && inter == 1)
        n->inter = mdl->net;
    else if (rc == 0)
        rc = measure_checked(0, inter, sizes, nsizes, &slow, "inter", &n->inter);
    /* the pair duplex: one message each way (the leaders' exchange of a
     * node-aware method; streamed messages overlap and hide it) at five
     * sizes up to 1 MiB, 7 times each, its factor and overlap by a robust
     * fit (docs/models.md "Calibrated per partition": two sizes, 1 and
     * 4 MiB, gave c = 723 KiB where holds gave 100-192 KiB) */
    static const uint64_t dx_sizes[] = { 256u << 10, 384u << 10, 512u << 10, 768u << 10,
                                         1u << 20 };
    const size_t dx_n = sizeof(dx_sizes) / sizeof(dx_sizes[0]);
    struct acct_plogp_overlap dx = {0};
    if (rc == 0) {
        rc = acct_plogp_pair_overlap(MPI_COMM_WORLD, 0, inter, dx_sizes, dx_n, 7, &dx);
        /* beyond the result's bound the pair was not timed as a link (a
         * host that did not schedule a rank): not used, as not measured */
        bool ok = dx.factor <= ACCT_RESULT_PAIR_DUPLEX_MAX;
        n->pair_duplex_factor = ok ? dx.factor : 0;
        n->pair_duplex_overlap_bytes = ok && dx.factor > 1 ? dx.overlap_bytes : 0;
    }
    int k = na < nb ? na : nb;
    if (rc == 0 && k >= 2) {
        rc = acct_plogp_nic_factor(MPI_COMM_WORLD, a, b, k, 256 * 1024, 4, 5, &n->nic_gap_factor);
        n->nic_pairs = k;
    }
    if (rc == 0 && k >= 2) {
        rc = acct_plogp_nic_bidir_factor(MPI_COMM_WORLD, a, b, k, 256 * 1024, 4, 5,
                                         &n->nic_bidir_factor);
        n->nic_bidir_pairs = k;
    }
    if (rc != 0) {
        snprintf(x->err, sizeof(x->err),
                 "measuring the intra-node (0, %d) / inter-node (0, %d) pLogP, the pair-duplex "
                 "or the NIC factor failed", intra, inter);
    } else {
        /* the labels' layout (ACCT_LAYOUT's pretence included): the most
         * ranks on a node; cyclic when rank 1 is on another node than 0 */
        int most = 0;
        for (int r = 0; r < world; r++) {
            int c = 0;
            for (int q = 0; q < world; q++)
                c += label[q] == label[r];
            most = c > most ? c : most;
        }
        n->ranks_per_node = most;
        n->cyclic = label[1] != label[0];
        run->model.has_levels = true;
        to_result(&n->intra, &run->model.intra);
        to_result(&n->inter, &run->model.inter);
        run->model.nic_pairs = k >= 2 ? k : 0;
        run->model.nic_gap_factor = k >= 2 ? n->nic_gap_factor : 0;
        run->model.nic_bidir_pairs = k >= 2 ? n->nic_bidir_pairs : 0;
        run->model.nic_bidir_gap_factor = k >= 2 ? n->nic_bidir_factor : 0;
        run->model.pair_duplex_factor = n->pair_duplex_factor;
        run->model.pair_duplex_overlap_bytes = n->pair_duplex_overlap_bytes;
        if (rank == 0) {
            fprintf(stderr, "acct-tune: pair duplex (ranks 0, %d), one message each way, both "
                    "ways / one way, medians of 7:", inter);
            for (size_t i = 0; i < dx.n; i++)
                fprintf(stderr, "%s %llu KiB %.2f / %.2f ms", i ? ";" : "",
                        (unsigned long long)(dx_sizes[i] >> 10),
                        1e3 * dx.at[i].both_median_s, 1e3 * dx.at[i].one_median_s);
            fprintf(stderr, ": factor %.3f beyond %llu bytes%s\n", dx.factor,
                    (unsigned long long)n->pair_duplex_overlap_bytes,
                    n->pair_duplex_factor > 0 ? "" : " (not a link's: not used)");
        }
    }
    free(label);
    return rc;
}

/* Write the levels beside --plogp-out FILE: FILE.intra, FILE.inter (pLogP
 * tables) and FILE.nic ("acct-nic 1", pairs, gap_factor, ranks_per_node,
 * placement, the two-way and the pair-duplex factor when measured) for
 * acct-tune-replay --plogp-intra/--plogp-inter/--nic. */
static int write_levels(const char *path, const struct acct_model_nodes *n, char *err, size_t len)
{
    char p[4096];
    snprintf(p, sizeof p, "%s.intra", path);
    if (tune_plogp_write(p, &n->intra, err, len) != 0)
        return -1;
    snprintf(p, sizeof p, "%s.inter", path);
    if (tune_plogp_write(p, &n->inter, err, len) != 0)
        return -1;
    snprintf(p, sizeof p, "%s.nic", path);
    FILE *f = fopen(p, "w");
    if (f == NULL) {
        snprintf(err, len, "%.400s: %s", p, strerror(errno));
        return -1;
    }
    fprintf(f, "acct-nic 1\npairs %d\ngap_factor %.17g\nranks_per_node %d\nplacement %s\n",
            n->nic_pairs, n->nic_gap_factor, n->ranks_per_node, n->cyclic ? "cyclic" : "block");
    if (n->nic_bidir_pairs >= 2)
        fprintf(f, "bidir_pairs %d\nbidir_gap_factor %.17g\n", n->nic_bidir_pairs,
                n->nic_bidir_factor);
    if (n->pair_duplex_factor >= 1)
        fprintf(f, "pair_duplex_factor %.17g\npair_duplex_overlap_bytes %llu\n",
                n->pair_duplex_factor, (unsigned long long)n->pair_duplex_overlap_bytes);
    if (fclose(f) != 0) {
        snprintf(err, len, "%.400s: %s", p, strerror(errno));
        return -1;
    }
    return 0;
}

/* Measure pLogP between world ranks 0 and 1 (every rank calls it; a few
 * hundred ping-pongs, well under a second on this host), and the two
 * levels when the layout has them (measure_levels). */
static int setup_model(struct tune_ctx *x, struct tune_run_info *run)
{
    static const uint64_t sizes[] = { 1, 1024, 8192, 65536, 1048576 };
    int rc = 0;
    struct acct_loggp lg;

    memset(&lg, 0, sizeof(lg));
    acct_model_init(&model);
    if (measure_checked(0, 1, sizes, sizeof(sizes) / sizeof(sizes[0]), NULL, "pair",
                        &model.net) != 0) {
        rc = -1;
        snprintf(x->err, sizeof(x->err), "measuring the pLogP parameters failed");
    }
    rc = kit_agree(rc, x->err, sizeof(x->err), MPI_COMM_WORLD);
    if (rc == 0) {
        PMPI_Bcast(&model.net, (int)sizeof(model.net), MPI_BYTE, 0, MPI_COMM_WORLD);
        /* conditions are rank 0's: every rank needs the layout's words */
        PMPI_Bcast(&run->cond.ranks_per_node, 1, MPI_INT, 0, MPI_COMM_WORLD);
        PMPI_Bcast(&run->cond.placement, (int)sizeof run->cond.placement, MPI_BYTE, 0,
                   MPI_COMM_WORLD);
        rc = kit_agree(measure_levels(x, run, &model, sizes, sizeof(sizes) / sizeof(sizes[0])),
                       x->err, sizeof(x->err), MPI_COMM_WORLD);
    }
    if (rc == 0) {
        /* the searches use the model only when asked to; a measured run
         * records it for the model regions of its rules (output.c) */
        if (x->o->source != ACCT_RESULT_MEASURED)
            x->model_cost = model_cost;
        x->model_ctx = &model;
        x->seed_cost = model_cost; /* a measured run's seeds after noisy rises */
        /* the result's model section: LogGP numbers, all >= 0 (the
         * conversion clamps L at 0 keeping the one-byte time, model.h) */
        if (acct_plogp_to_loggp(&model.net, &lg) == 0) {
            run->model.present = true;
            run->model.L_us = lg.L_us;
            run->model.o_us = lg.o_us;
            run->model.g_us = lg.g_us;
            run->model.G_us_per_byte = lg.G_us_per_byte;
        }
        if (x->o->plogp_out != NULL && x->rank_world == 0 &&
            (tune_plogp_write(x->o->plogp_out, &model.net, x->err, sizeof(x->err)) != 0 ||
             (run->model.has_levels &&
              write_levels(x->o->plogp_out, &model.nodes, x->err, sizeof(x->err)) != 0)))
            rc = -1;
        rc = kit_agree(rc, x->err, sizeof(x->err), MPI_COMM_WORLD);
    }
    return rc;
}

/* ---- the grid ------------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The communicator sizes (and, in used mode, message sizes) of coll.
 * comm[]/bytes[] have room for the options' lists or the used points. */
static size_t plan_comm_sizes(const struct tune_opts *o, enum acct_coll_id coll, int world,
                              uint64_t *comm)
{
    size_t n = 0;

    if (o->primary != TUNE_PRIMARY_USED) {
        memcpy(comm, o->comm_sizes.v, o->comm_sizes.n * sizeof(*comm));
        return o->comm_sizes.n;
    }
    for (size_t i = 0; i < o->nused; i++)
        if (o->used[i].coll == coll && o->used[i].comm_size <= world)
            comm[n++] = (uint64_t)o->used[i].comm_size;
    qsort(comm, n, sizeof(*comm), cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || comm[i] != comm[k - 1])
            comm[k++] = comm[i];
    return k;
}

static size_t plan_sizes(const struct tune_opts *o, enum acct_coll_id coll, int p,
                         uint64_t *bytes)
{
    size_t n = 0;
    const uint64_t *v = NULL;
    uint64_t zero = 0;

    if (o->primary != TUNE_PRIMARY_USED) {
        n = tune_coll_sizes(coll, o, &v, &zero);
        memcpy(bytes, v, n * sizeof(*bytes));
        return n;
    }
    for (size_t i = 0; i < o->nused; i++)
        if (o->used[i].coll == coll && o->used[i].comm_size == p)
            bytes[n++] = coll == ACCT_COLL_barrier ? 0 : o->used[i].bytes;
    qsort(bytes, n, sizeof(*bytes), cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if ((k == 0 || bytes[i] != bytes[k - 1]) && bytes[i] <= o->max_bytes)
            bytes[k++] = bytes[i];
    return k;
}

/* --strategy plane: the whole plane of coll on the first (largest
 * communicator size) ranks of the job. */
static int tune_collective_plane(struct tune_ctx *x, enum acct_coll_id coll, int wrank,
                                 const uint64_t *comm, size_t ncomm, uint64_t *bytes)
{
    int rc = 0;
    int *p = malloc(ncomm * sizeof(*p));
    int pmax = (int)comm[ncomm - 1];
    MPI_Comm plane = MPI_COMM_NULL;

    for (size_t i = 0; p != NULL && i < ncomm; i++)
        p[i] = (int)comm[i];
    x->coll = coll;
    x->nsizes = plan_sizes(x->o, coll, pmax, bytes);
    x->sizes = bytes;
    rc = p == NULL ? -1 : 0;
    if (rc != 0)
        snprintf(x->err, sizeof(x->err), "out of memory");
    rc = kit_agree(rc, x->err, sizeof(x->err), MPI_COMM_WORLD);
    if (rc == 0 && MPI_Comm_split(MPI_COMM_WORLD, wrank < pmax ? 0 : MPI_UNDEFINED, wrank,
                                  &plane) != MPI_SUCCESS) {
        rc = -1;
        snprintf(x->err, sizeof(x->err), "MPI_Comm_split for %d ranks failed", pmax);
    }
    if (rc == 0 && plane != MPI_COMM_NULL) {
        x->comm = plane;
        rc = tune_plane(x, p, ncomm) == TUNE_OK ? 0 : -1;
        MPI_Comm_free(&plane);
    }
    free(p);
    return kit_agree(rc, x->err, sizeof(x->err), MPI_COMM_WORLD);
}

/* Everything of one collective: each communicator size in turn. */
static int tune_collective(struct tune_ctx *x, enum acct_coll_id coll, int wrank, int world,
                           uint64_t *comm, uint64_t *bytes)
{
    int rc = 0;
    size_t ncomm = plan_comm_sizes(x->o, coll, world, comm);

    /* --strategy plane interpolates over message sizes: not for a
     * collective decided by communicator size alone, which is measured
     * point by point (tune_point_params) */
    if (x->o->primary == TUNE_PRIMARY_PLANE && acct_coll_bytes_alike(coll))
        return ncomm > 0 ? tune_collective_plane(x, coll, wrank, comm, ncomm, bytes) : 0;

    for (size_t i = 0; i < ncomm && rc == 0; i++) {
        int k = (int)comm[i];
        MPI_Comm sub = MPI_COMM_NULL;
        x->coll = coll;
        x->nsizes = plan_sizes(x->o, coll, k, bytes);
        x->sizes = bytes;
        /* MPI_ (not PMPI_): libacct attaches its per-communicator state */
        if (MPI_Comm_split(MPI_COMM_WORLD, wrank < k ? 0 : MPI_UNDEFINED, wrank, &sub) !=
            MPI_SUCCESS) {
            rc = -1;
            snprintf(x->err, sizeof(x->err), "MPI_Comm_split for %d ranks failed", k);
        } else if (sub != MPI_COMM_NULL) {
            x->comm = sub;
            rc = tune_comm(x) == TUNE_OK ? 0 : -1;
            MPI_Comm_free(&sub);
        }
        rc = kit_agree(rc, x->err, sizeof(x->err), MPI_COMM_WORLD);
    }
    return rc;
}

static size_t count_points(const struct tune_opts *o, int world, uint64_t *comm, uint64_t *bytes)
{
    size_t total = 0;

    for (int c = 0; c < ACCT_COLL_COUNT; c++) {
        if (!o->coll[c])
            continue;
        size_t nc = plan_comm_sizes(o, (enum acct_coll_id)c, world, comm);
        for (size_t i = 0; i < nc; i++)
            total += plan_sizes(o, (enum acct_coll_id)c, (int)comm[i], bytes);
    }
    return total;
}

/* ---- main ------------------------------------------------------------------------------ */

static int load_used(struct tune_opts *o, int rank, char *err, size_t errlen)
{
    int rc = 0;
    unsigned long long n = 0;

    if (o->used_file == NULL)
        return 0;
    if (rank == 0)
        rc = tune_used_parse(o->used_file, &o->used, &o->nused, err, errlen);
    rc = kit_agree(rc, err, errlen, MPI_COMM_WORLD);
    if (rc != 0)
        return rc;
    n = o->nused;
    PMPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank != 0) {
        o->used = malloc((size_t)n * sizeof(*o->used));
        o->nused = (size_t)n;
        rc = o->used == NULL ? -1 : 0;
        if (rc != 0)
            snprintf(err, errlen, "out of memory");
    }
    rc = kit_agree(rc, err, errlen, MPI_COMM_WORLD);
    if (rc == 0)
        PMPI_Bcast(o->used, (int)((size_t)n * sizeof(*o->used)), MPI_BYTE, 0, MPI_COMM_WORLD);
    return rc;
}

static void make_run_id(const struct tune_opts *o, const char *started, char *id, size_t len)
{
    char compact[ACCT_RULES_TIME_LEN + 1];
    size_t k = 0;

    if (o->run_id[0] != '\0') {
        snprintf(id, len, "%s", o->run_id);
        return;
    }
    for (const char *s = started; *s != '\0'; s++)
        if (*s != '-' && *s != ':')
            compact[k++] = *s;
    compact[k] = '\0';
    snprintf(id, len, "r-%s-%s", compact, o->partition);
}

/* Every rank must run ACCT's runtime, or nothing can be measured. */
static int check_active(struct tune_ctx *x, const struct tune_opts *o)
{
    int active = acct_tool_active(), all = 0;

    if (o->source == ACCT_RESULT_MODEL)
        return 0;
    PMPI_Allreduce(&active, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all)
        return 0;
    snprintf(x->err, sizeof(x->err), "ACCT is not active in this job (ACCT_DISABLE set, "
             "or the runtime did not load): nothing can be measured");
    return -1;
}

/* Tune every collective asked for, over the job's points. */
static int tune_all(struct tune_ctx *x, const struct tune_opts *o, int rank, int world)
{
    int rc = -1;
    size_t room = o->sizes.n + o->comm_sizes.n + o->nused + 1;
    uint64_t *comm = malloc(room * sizeof(*comm));
    uint64_t *bytes = malloc(room * sizeof(*bytes));

    if (comm == NULL || bytes == NULL)
        snprintf(x->err, sizeof(x->err), "out of memory");
    if (kit_agree(comm == NULL || bytes == NULL ? -1 : 0, x->err, sizeof(x->err),
                  MPI_COMM_WORLD) != 0)
        goto out;
    x->total = count_points(o, world, comm, bytes);
    for (int c = 0; c < ACCT_COLL_COUNT; c++) {
        if (o->coll[c] &&
            tune_collective(x, (enum acct_coll_id)c, rank, world, comm, bytes) != 0)
            goto out;
    }
    acct_tool_force("");
    rc = 0;
out:
    free(comm);
    free(bytes);
    return rc;
}

/* --incumbent RULES: rank 0 reads the active version's rules (its
 * decisions join the races); agreed. */
static int load_incumbent(struct tune_ctx *x, const struct tune_opts *o, int rank)
{
    int rc = 0;

    if (o->incumbent == NULL)
        return 0;
    if (rank == 0) {
        struct acct_diags d = ACCT_DIAGS_INIT;
        if (acct_rules_parse_file(o->incumbent, &x->incumbent, &d) != ACCT_RULES_OK) {
            char line[TUNE_ERRLEN] = "cannot be read";
            if (d.n > 0)
                acct_diag_format(&d, 0, line, sizeof(line));
            snprintf(x->err, sizeof(x->err), "--incumbent: %s", line);
            rc = -1;
        }
        acct_diags_free(&d);
    }
    return kit_agree(rc, x->err, sizeof(x->err), MPI_COMM_WORLD);
}

/* Rank 0 writes the result (and the rules files asked for); agreed. */
static int write_outputs(struct tune_ctx *x, const struct tune_opts *o, struct tune_run_info *run,
                         int rank, int world)
{
    int wrc = 0;

    tune_utc_now(run->finished, sizeof(run->finished));
    make_run_id(o, run->started, run->id, sizeof(run->id));
    run->complete = !x->incomplete && !x->stopped;
    run->experiments = x->experiments;
    run->experiment_s = x->experiment_s;
    run->races = x->races;
    run->nraces = x->nraces;
    if (gather_load(rank, world, run, true, x->err, sizeof(x->err)) != 0)
        return -1;
    if (rank == 0 && tune_noise(x, &run->noise) != 0)
        wrc = -1, snprintf(x->err, sizeof(x->err), "out of memory");
    if (rank == 0 && wrc == 0)
        wrc = tune_write_outputs(o, run, x->recs, x->nrecs, x->decided, x->ndecided, x->err,
                                 sizeof(x->err));
    if (kit_agree(wrc, x->err, sizeof(x->err), MPI_COMM_WORLD) != 0)
        return -1;
    if (rank == 0)
        printf(TUNE_NAME ": wrote %s (%zu measurements, %s): %llu experiments run, %llu taken "
               "from the state file, %.1f s in experiments\n", o->out, x->nrecs,
               run->complete ? "complete" : "incomplete: stopped by the budget",
               (unsigned long long)x->experiments, (unsigned long long)x->replayed,
               x->experiment_s);
    if (rank == 0)
        tune_race_summary(x);
    return 0;
}

/* Rank 0: the race's eager probe segments from --eager-limits (auto: the
 * MPI library's, through MPI_T; docs/acct-tune.md "The eager probe"). */
static void eager_setup(struct tune_ctx *x, const struct tune_opts *o)
{
    uint64_t lim[TUNE_EAGER_MAX];
    char names[TUNE_EAGER_MAX][TUNE_EAGER_NAME];
    size_t n = 0;
    char line[512] = "", buf[32];
    size_t len = 0;

    if (o->eager_mode == TUNE_EAGER_AUTO) {
        n = tune_eager_read(lim, names, TUNE_EAGER_MAX);
    } else if (o->eager_mode == TUNE_EAGER_LIST) {
        for (size_t i = 0; i < o->eager.n && n < TUNE_EAGER_MAX; i++, n++) {
            lim[n] = o->eager.v[i];
            snprintf(names[n], TUNE_EAGER_NAME, "--eager-limits");
        }
    }
    x->neager = tune_eager_segments(lim, n, x->eager_segs);
    if (!o->progress)
        return;
    for (size_t i = 0; i < n && len < sizeof(line); i++)
        len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s %llu", i ? ", " : "",
                                names[i], (unsigned long long)lim[i]);
    for (size_t i = 0; i < x->neager && len < sizeof(line); i++) {
        acct_size_format(x->eager_segs[i], buf, sizeof(buf));
        len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s", i ? ", " : ": segments ",
                                buf);
    }
    fprintf(stderr, TUNE_NAME ": eager limits (%s)%s%s\n",
            o->eager_mode == TUNE_EAGER_AUTO ? "MPI_T" : "--eager-limits", n ? ": " : ": none",
            line);
}

int main(int argc, char **argv)
{
    int rc = TUNE_EXIT_FAIL;
    int mpi_up = 0, rank = 0, world = 0;
    struct tune_opts opts;
    struct tune_ctx x;
    struct tune_run_info run;

    memset(&opts, 0, sizeof(opts));
    memset(&x, 0, sizeof(x));
    memset(&run, 0, sizeof(run));
    switch (kit_early_options(argc, argv, TUNE_NAME, tune_usage)) {
    case KIT_EARLY_DONE: return TUNE_EXIT_OK;
    case KIT_EARLY_ALONE: return TUNE_EXIT_USAGE;
    case KIT_EARLY_RUN: break;
    }
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        snprintf(x.err, sizeof(x.err), "MPI_Init failed");
        goto out;
    }
    mpi_up = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world);
    x.rank_world = rank;
    x.t_start = kit_now();
    tune_utc_now(run.started, sizeof(run.started));
    PMPI_Bcast(run.started, (int)sizeof(run.started), MPI_CHAR, 0, MPI_COMM_WORLD);

    rc = tune_opts_parse(argc, argv, world, &opts, x.err, sizeof(x.err));
    rc = kit_agree(rc, x.err, sizeof(x.err), MPI_COMM_WORLD);
    if (rc != 0 || opts.help)
        goto out;
    x.o = &opts;
    if (rank == 0 && opts.race > 0 && (size_t)opts.race_rounds < race_rounds_needed(opts.race_alpha))
        fprintf(stderr, "acct-tune: warning: --race-rounds %d is below the %zu rounds a race needs "
                "to show native slower at --race-alpha %g: every race will keep native\n",
                opts.race_rounds, race_rounds_needed(opts.race_alpha), opts.race_alpha);
    if (rank == 0 && opts.race > 0)
        eager_setup(&x, &opts);
    x.after_point = opts.race > 0 ? tune_race : NULL;
    x.after_comm = opts.race > 0 ? NULL : tune_aa_pair;
    rc = TUNE_EXIT_FAIL;
    if (check_active(&x, &opts) != 0 ||
        load_used(&opts, rank, x.err, sizeof(x.err)) != 0 ||
        gather_conditions(rank, world, &run.cond, x.err, sizeof(x.err)) != 0 ||
        gather_load(rank, world, &run, false, x.err, sizeof(x.err)) != 0 ||
        share_state(&x, rank, tune_state_fingerprint(&opts, world)) != 0 ||
        ((opts.source != ACCT_RESULT_MEASURED || world >= 2) && setup_model(&x, &run) != 0) ||
        load_incumbent(&x, &opts, rank) != 0 ||
        tune_all(&x, &opts, rank, world) != 0 ||
        write_outputs(&x, &opts, &run, rank, world) != 0)
        goto out;
    rc = TUNE_EXIT_OK;
out:
    if (rank == 0 && rc != TUNE_EXIT_OK)
        fprintf(stderr, TUNE_NAME ": error: %s\n", x.err);
    if (rank == 0 && rc == TUNE_EXIT_OK && opts.help)
        tune_usage(stdout);
    free(x.recs);
    free(x.decided);
    for (size_t i = 0; i < x.nraces; i++) {
        for (size_t j = 0; j < x.races[i].nf; j++)
            free(x.races[i].f[j].round_us);
        free(x.races[i].f);
    }
    free(x.races);
    free(x.aa);
    free(x.aa_pair);
    free(run.noise.load);
    acct_rules_free(x.incumbent);
    tune_state_close(&x.seen);
    free(run.cond.hosts);
    tune_state_close(&x.state);
    tune_opts_free(&opts);
    if (mpi_up)
        MPI_Finalize();
    return rc;
}
