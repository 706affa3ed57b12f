/* ACCT_REPORT: what libacct did in this job, written by rank 0 at
 * MPI_Finalize as YAML (docs/user-guide.md, "The report file").
 * Written to a temporary name and renamed, so a reader never sees half. */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "acct/alg.h"
#include "acct/log.h"
#include "account.h"
#include "decide.h"
#include "explore.h"
#include "sack.h"

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "single";
    case MPI_THREAD_FUNNELED: return "funneled";
    case MPI_THREAD_SERIALIZED: return "serialized";
    case MPI_THREAD_MULTIPLE: return "multiple";
    default: return "unknown";
    }
}

/* The first line of MPI_Get_library_version, quoted for YAML. */
static void mpi_library(char *out, size_t len)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int vlen = 0;
    size_t o = 0;

    if (PMPI_Get_library_version(version, &vlen) != MPI_SUCCESS)
        version[0] = '\0';
    for (const char *p = version; *p != '\0' && *p != '\n' && o + 2 < len; p++)
        if (*p != '"' && *p != '\\' && (unsigned char)*p >= ' ')
            out[o++] = *p;
    out[o] = '\0';
}

int rt_report_write(const char *path, const struct rt_report_job *job)
{
    int rc = -1;
    char tmp[4096], lib[256];
    FILE *f = NULL;

    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
        acct_warn("ACCT_REPORT path is too long: %s", path);
        goto out;
    }
    f = fopen(tmp, "w");
    if (f == NULL) {
        acct_warn("cannot write the report %s: %s", tmp, strerror(errno));
        goto out;
    }
    mpi_library(lib, sizeof lib);
    fprintf(f, "# ACCT report: what libacct did in this job (world rank 0's calls)\n");
    fprintf(f, "acct_report: 1\n");
    fprintf(f, "library_version: \"%s\"\n", ACCT_VERSION_STRING);
    fprintf(f, "active: %s\n", job->active ? "true" : "false");
    if (!job->active)
        fprintf(f, "inactive_reason: \"%s\"\n", job->inactive_why ? job->inactive_why : "unknown");
    fprintf(f, "mpi_library: \"%s\"\n", lib);
    fprintf(f, "world_size: %d\n", job->world_size);
    fprintf(f, "thread_level: %s\n", thread_level_name(job->thread_level));
    const struct acct_rules *rules = job->active ? rt_decide_rules() : NULL;
    if (rules != NULL)
        fprintf(f, "rules: {partition: %s, interconnect: %s, version: %lld, source: %s, "
                   "created: \"%s\", hash: \"%016llx\"%s%s%s}\n",
                rules->prov.partition, rules->prov.interconnect, (long long)rules->prov.version,
                acct_rules_source_name(rules->prov.source), rules->prov.created,
                (unsigned long long)rules->hash,
                rules->prov.tuning_run[0] ? ", tuning_run: \"" : "", rules->prov.tuning_run,
                rules->prov.tuning_run[0] ? "\"" : "");
    else
        fprintf(f, "rules: none\n");
    char force[1024] = "";
    if (job->active)
        acct_force_format(rt_decide_force(), force, sizeof force);
    fprintf(f, "forced: \"%s\"\n", force);
    /* exploration (explore.h): the agreed options, and rank 0's calls that
     * ran their rule's runner-up (every rank explores the same calls) */
    if (rules != NULL && rt_explore.on)
        fprintf(f, "explore: {fraction: %g, seed: %llu, period: %llu}\n", rules->opts.explore,
                (unsigned long long)rt_explore.seed, (unsigned long long)rt_explore.period);
    else
        fprintf(f, "explore: off\n");
    bool any = false;
    for (int c = 0; c < ACCT_COLL_COUNT; c++)
        any = any || atomic_load(&rt_explored[c]) > 0;
    fprintf(f, "explored:%s\n", any ? "" : " []");
    for (int c = 0; c < ACCT_COLL_COUNT; c++) {
        unsigned long long x = atomic_load(&rt_explored[c]);
        if (x > 0)
            fprintf(f, "  - {collective: %s, calls: %llu}\n", acct_coll_name((enum acct_coll_id)c),
                    x);
    }
    /* SACK's automatic mode (sack.h): per communicator size and rule */
    if (rules != NULL && rules->opts.auto_reorder)
        rt_sack_auto_report(f);
    else
        fprintf(f, "sack_auto: off\n");
    fprintf(f, "collectives:\n");
    /* every collective's native row, and each algorithm that ran */
    for (int i = 0; i < acct_alg_count() && i < RT_MAX_ALGS; i++) {
        const struct acct_alg *a = &acct_algs[i];
        unsigned long long calls = atomic_load(&rt_account_alg[i].calls);
        unsigned long long ns = atomic_load(&rt_account_alg[i].nanoseconds);
        unsigned long long reordered = atomic_load(&rt_account_alg[i].reordered);
        if (calls == 0 && !(a->flags & ACCT_ALG_NATIVE))
            continue;
        fprintf(f, "  - {collective: %s, algorithm: %s, calls: %llu, seconds: %.9f, reordered: %llu}\n",
                acct_coll_name(a->coll), a->name, calls, (double)ns * 1e-9, reordered);
    }
    /* the non-blocking collectives (account.h): one row per method that ran
     * them, as `i<collective>`, seconds from post to completion */
    for (int i = 0; i < acct_alg_count() && i < RT_MAX_ALGS; i++) {
        const struct acct_alg *a = &acct_algs[i];
        unsigned long long calls = atomic_load(&rt_account_nb[i].calls);
        unsigned long long ns = atomic_load(&rt_account_nb[i].nanoseconds);
        if (calls > 0)
            fprintf(f, "  - {collective: i%s, algorithm: %s, calls: %llu, seconds: %.9f, reordered: 0}\n",
                    acct_coll_name(a->coll), a->name, calls, (double)ns * 1e-9);
    }
    /* the same calls per (method, communicator size, segment bytes) */
    const struct rt_detail *rows;
    uint64_t dropped;
    size_t n = rt_account_details(&rows, &dropped);
    fprintf(f, "detail:%s\n", n == 0 ? " []" : "");
    for (size_t i = 0; i < n; i++) {
        const struct acct_alg *a = &acct_algs[rows[i].alg];
        fprintf(f, "  - {collective: %s, algorithm: %s, comm_size: %d, segment: %llu, "
                   "calls: %llu, seconds: %.9f}\n",
                acct_coll_name(a->coll), a->name, rows[i].comm_size,
                (unsigned long long)rows[i].segment, (unsigned long long)rows[i].calls,
                (double)rows[i].nanoseconds * 1e-9);
    }
    fprintf(f, "detail_dropped: %llu\n", (unsigned long long)dropped);
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
        acct_warn("cannot write the report %s: %s", tmp, strerror(errno));
        goto out;
    }
    if (fclose(f) != 0) {
        f = NULL;
        acct_warn("cannot write the report %s: %s", tmp, strerror(errno));
        goto out;
    }
    f = NULL;
    if (rename(tmp, path) != 0) {
        acct_warn("cannot rename the report to %s: %s", path, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    if (f != NULL)
        fclose(f);
    if (rc != 0)
        unlink(tmp);
    return rc;
}
