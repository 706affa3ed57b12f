/* acct-tune: the files a run writes (rank 0 only, no MPI).
 *
 *   --out         the tuning result (docs/tuning-result.md)
 *   --rules       the chosen decisions as a rules file (docs/rules.md)
 *   --ompi-rules  the same for Open MPI's coll/tuned (docs/decisions.md)
 *
 * Decisions come from the measurements through the decision library: per
 * collective the exact decision map of the points (acct_dmap_from_points),
 * optionally encoded as a quadtree (--quadtree-depth, with its penalty
 * against the exact map printed), turned into rules that tile the plane.
 * Each file is written to a temporary name, synced and renamed, so a reader
 * never sees half a file; the result and the rules are then read back with
 * the project's own parsers: acct-tune never leaves a file that acctd or
 * libacct would refuse. */
#include "tune.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acct/alg.h"
#include "acct/dmap.h"

void tune_utc_now(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;

    if (gmtime_r(&now, &tm) == NULL || strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, len, "1970-01-01T00:00:00Z");
}

typedef int (*writer_fn)(FILE *f, const void *arg);

/* Write path through a temporary file in the same directory. */
static int write_atomic(const char *path, writer_fn w, const void *arg, char *err, size_t errlen)
{
    int rc = -1;
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    FILE *f = NULL;

    if (tmp == NULL) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
    f = fopen(tmp, "w");
    if (f == NULL)
        goto out;
    if (w(f, arg) != 0 || fflush(f) != 0 || fsync(fileno(f)) != 0)
        goto out;
    rc = fclose(f);
    f = NULL;
    if (rc == 0)
        rc = rename(tmp, path);
out:
    if (rc != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        if (f != NULL)
            fclose(f);
        unlink(tmp);
        rc = -1;
    }
    free(tmp);
    return rc;
}

static int write_result(FILE *f, const void *arg)
{
    return acct_result_write(f, arg);
}

static int write_rules(FILE *f, const void *arg)
{
    return acct_rules_write(f, arg);
}

struct ompi_arg {
    const char *path;
    const struct acct_rules *rules;
    int max_comm_size;
};

static int write_ompi(FILE *f, const void *arg)
{
    const struct ompi_arg *a = arg;
    struct acct_ompi_export_opts eo = { .max_comm_size = a->max_comm_size };
    struct acct_diags notes = ACCT_DIAGS_INIT;
    int rc = 0;

    acct_diags_reset(&notes, a->path);
    rc = acct_export_ompi(f, a->rules, &eo, &notes);

    acct_diags_print(&notes, stderr); /* methods with only a nearest Open MPI equivalent */
    acct_diags_free(&notes);
    return rc == ACCT_RULES_OK ? 0 : -1;
}

/* Points from records: *out allocated (n of them). */
static int make_points(const struct tune_opts *o, const struct tune_record *recs, size_t n,
                       struct acct_result_point **out)
{
    *out = calloc(n > 0 ? n : 1, sizeof(**out));
    if (*out == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct tune_record *t = &recs[i];
        struct acct_result_point *p = &(*out)[i];
        p->coll = (enum acct_coll_id)t->coll;
        p->comm_size = t->comm_size;
        p->bytes = t->bytes;
        p->d.alg = &acct_algs[t->alg];
        p->d.segment_bytes = t->segment;
        p->d.fanout = t->fanout;
        p->modelled = o->source == ACCT_RESULT_MODEL;
        p->reps = p->modelled ? 0 : (uint32_t)t->reps;
        p->median_us = t->median_us;
        p->q1_us = t->q1_us;
        p->q3_us = t->q3_us;
        p->min_us = t->min_us;
        p->max_us = t->max_us;
        p->has_avg = p->has_rank_max = t->has_views && !p->modelled;
        p->avg_us = p->has_avg ? t->avg_us : 0.0;
        p->rank_max_us = p->has_rank_max ? t->rank_max_us : 0.0;
    }
    return 0;
}

/* The rules of one collective: exact map, or quadtree with its penalty. */
/* The largest message size of coll with evidence (timed, or decided by
 * the strategy) against the sizes asked for: when the run stopped short of
 * them (--budget, or every method failing there), the rules end halfway to
 * the first size not reached and larger calls run native
 * (acct_rules_end_bytes; docs/acct-tune.md "Budget"). */
static void end_unmeasured(const struct tune_opts *o, const struct acct_result *res,
                           const struct acct_result_point *dec, size_t ndec,
                           enum acct_coll_id coll, struct acct_rules *rules)
{
    const uint64_t *v;
    uint64_t zero, top = 0, next = 0;
    bool any = false;
    size_t n = tune_coll_sizes(coll, o, &v, &zero);

    for (size_t i = 0; i < res->npoints + ndec; i++) {
        const struct acct_result_point *p = i < res->npoints ? &res->points[i]
                                                             : &dec[i - res->npoints];
        if (p->coll == coll && (i >= res->npoints || !p->modelled)) {
            top = p->bytes > top ? p->bytes : top;
            any = true;
        }
    }
    for (size_t k = 0; any && k < n && next == 0; k++)
        if (v[k] > top)
            next = v[k];
    if (next == 0 || acct_rules_end_bytes(rules, coll, top, next) == 0)
        return;
    char a[32], b[32];
    acct_size_format(top, a, sizeof(a));
    acct_size_format(v[n - 1], b, sizeof(b));
    printf(TUNE_NAME ": %s measured up to %s of the %s asked for: its rules end there, larger "
                     "calls run native\n",
           acct_coll_name(coll), a, b);
}

/* A collective decided from the communicator size alone (gatherv,
 * scatterv, alltoallv; docs/acct-tune.md "v-collectives"): one method per
 * measured communicator size, the least geometric mean over the sizes it
 * measured of each method's time to the best (acct_dmap_row_cells), every
 * rule bytes [0, max]. One line on stdout says what each row got. */
static int row_rules(const struct tune_opts *o, const struct acct_dmap *map,
                     struct acct_rules *rules, struct acct_diags *diags)
{
    int32_t *cells = malloc(map->ncomm * map->nbytes * sizeof(*cells));
    double *score = malloc(map->ncomm * sizeof(*score));
    const uint64_t *v;
    uint64_t zero;
    size_t asked = o->primary == TUNE_PRIMARY_USED ? 0 : tune_coll_sizes(map->coll, o, &v, &zero);
    int rc = cells == NULL || score == NULL ? ACCT_RULES_ENOMEM
                                            : acct_dmap_row_cells(map, cells, score);

    if (rc == ACCT_RULES_OK)
        rc = acct_cells_rules(map, cells, rules, diags);
    if (rc == ACCT_RULES_OK) {
        printf(TUNE_NAME ": %s is decided by communicator size alone: per size, the method "
                         "with the least geometric mean of its time over the best at the "
                         "message sizes measured:",
               acct_coll_name(map->coll));
        for (size_t i = 0; i < map->ncomm; i++) {
            char d[96];
            size_t n = 0;
            for (size_t j = 0; j < map->nbytes; j++)
                n += map->measured[i * map->nbytes + j];
            acct_decision_format(&map->methods[cells[i * map->nbytes]], d, sizeof(d));
            printf("%s %d ranks %s ", i > 0 ? "," : "", map->comm[i], d);
            if (isnan(score[i]))
                printf("(best at most sizes: no method measured at all %zu)", n);
            else
                printf("(%.2fx over %zu sizes)", score[i], n);
            if (asked > n)
                printf(" [%zu of the %zu sizes asked for]", n, asked);
        }
        printf("\n");
    }
    free(cells);
    free(score);
    return rc;
}

static int coll_rules(const struct tune_opts *o, const struct acct_result *res,
                      const struct acct_result_point *dec, size_t ndec, enum acct_coll_id coll,
                      struct acct_rules *rules, char *err, size_t errlen)
{
    int rc = ACCT_RULES_OK;
    struct acct_dmap *map = NULL;
    struct acct_quadtree *qt = NULL;
    struct acct_diags diags = ACCT_DIAGS_INIT;

    acct_diags_reset(&diags, "decisions");
    rc = acct_dmap_from_points_decided(res->points, res->npoints, dec, ndec, coll, &map,
                                       &diags);
    if (rc == ACCT_RULES_OK && map != NULL) {
        if (!acct_coll_bytes_alike(coll)) {
            rc = row_rules(o, map, rules, &diags);
        } else if (o->quadtree_depth >= 0) {
            struct acct_qt_params qp = { .max_depth = o->quadtree_depth,
                                         .accuracy = o->quadtree_accuracy,
                                         .leaf_choice = o->quadtree_leaf };
            struct acct_penalty_stats st;
            rc = acct_qt_build(map, &qp, &qt, &diags);
            if (rc == ACCT_RULES_OK && acct_qt_stats(qt, map, &st) == ACCT_RULES_OK)
                acct_penalty_print_row(stdout, acct_coll_name(coll), &st);
            if (rc == ACCT_RULES_OK)
                rc = acct_qt_rules(qt, rules, &diags);
        } else {
            rc = acct_dmap_rules(map, rules, &diags);
        }
    }
    if (rc == ACCT_RULES_OK && map != NULL && acct_coll_bytes_alike(coll))
        end_unmeasured(o, res, dec, ndec, coll, rules);
    if (rc != ACCT_RULES_OK) {
        char line[TUNE_ERRLEN] = "out of memory";
        if (diags.n > 0)
            acct_diag_format(&diags, 0, line, sizeof(line));
        snprintf(err, errlen, "cannot build the decisions of %s: %s", acct_coll_name(coll),
                 line);
    }
    acct_qt_free(qt);
    acct_dmap_free(map);
    acct_diags_free(&diags);
    return rc;
}

/* ---- runner-ups (docs/rules.md, runner_up; exploration: docs/samples.md) */

static int cmp_point(const void *pa, const void *pb)
{
    const struct acct_result_point *a = *(const struct acct_result_point *const *)pa;
    const struct acct_result_point *b = *(const struct acct_result_point *const *)pb;
    if (a->coll != b->coll)
        return a->coll < b->coll ? -1 : 1;
    if (a->comm_size != b->comm_size)
        return a->comm_size < b->comm_size ? -1 : 1;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? -1 : 1;
    return a->median_us < b->median_us ? -1 : a->median_us > b->median_us;
}

/* The rule of collective coll containing (comm_size, bytes), or NULL. */
static struct acct_rule *rule_at(struct acct_rules *rules, enum acct_coll_id coll,
                                 int comm_size, uint64_t bytes)
{
    struct acct_rule_list *l = &rules->coll[coll];
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].comm_min <= comm_size && comm_size <= l->v[i].comm_max &&
            l->v[i].bytes_min <= bytes && bytes <= l->v[i].bytes_max)
            return &l->v[i];
    return NULL;
}

/* Each rule's runner-up: at every measured point (cell) inside the rule,
 * the fastest method other than the rule's decision; the rule's runner-up
 * is the method that is so at the most cells (the first met on a tie).
 * None where no other method was measured. Out of memory: none at all (the
 * rules stay valid without them). */
static void add_runner_ups(const struct acct_result *res, struct acct_rules *rules)
{
    struct tally {
        struct acct_rule *rule;
        const struct acct_decision *d;
    } *t = NULL;
    const struct acct_result_point **v = NULL;
    size_t n = res->npoints, nt = 0;

    if (n == 0 || (v = malloc(n * sizeof(*v))) == NULL || (t = malloc(n * sizeof(*t))) == NULL)
        goto out;
    for (size_t i = 0; i < n; i++)
        v[i] = &res->points[i];
    qsort(v, n, sizeof(*v), cmp_point);
    for (size_t i = 0, j; i < n; i = j) { /* one cell: v[i..j), fastest first */
        for (j = i; j < n && v[j]->coll == v[i]->coll && v[j]->comm_size == v[i]->comm_size &&
                    v[j]->bytes == v[i]->bytes;
             j++)
            ;
        struct acct_rule *x = rule_at(rules, v[i]->coll, v[i]->comm_size, v[i]->bytes);
        for (size_t k = i; x != NULL && k < j; k++)
            if (!acct_decision_equal(&v[k]->d, &x->d)) {
                t[nt++] = (struct tally){x, &v[k]->d};
                break;
            }
    }
    for (size_t a = 0; a < nt; a++) {
        struct acct_rule *x = t[a].rule;
        const struct acct_decision *best = NULL;
        size_t best_n = 0;
        if (x->runner_up.alg != NULL)
            continue; /* done at its first cell */
        for (size_t b = a; b < nt; b++) {
            size_t m = 0;
            if (t[b].rule != x)
                continue;
            for (size_t c = a; c < nt; c++)
                m += t[c].rule == x && acct_decision_equal(t[c].d, t[b].d);
            if (m > best_n) {
                best = t[b].d;
                best_n = m;
            }
        }
        x->runner_up = *best;
    }
out:
    free(v);
    free(t);
}

/* ---- model regions (acct/extrap.h; docs/acct-tune.md, "Model regions") */

static void print_region_report(enum acct_coll_id coll, const struct acct_extrap_report *r,
                                double margin, int pmax)
{
    if (!r->has_points)
        return;
    if (r->measured_max < pmax) { /* above the largest measured size */
        printf(TUNE_NAME ": model regions of %s beyond %d ranks: ", acct_coll_name(coll),
               r->measured_max);
        if (r->cells == 0)
            printf("none (the model predicts none of the measured methods): larger "
                   "communicators run native\n");
        else {
            printf("model's pick within %gx of the measured best at %zu of %zu cells, median "
                   "error %.0f %% of %zu predictions: %s",
                   margin, r->hits, r->cells, r->median_err * 100, r->pairs,
                   r->trusted ? "trusted" : "not trusted");
            if (r->trusted)
                printf(", %zu rows up to %d ranks (%zu halved: no method within the margin "
                       "at both ends), %zu rules, measured winner kept at %zu of %zu points "
                       "(both bands)\n",
                       r->rows, pmax, r->splits, r->rules, r->kept, r->points);
            else
                printf(": none, larger communicators run native\n");
        }
    }
    if (r->rpn >= 2) /* per layout: the model laid out as measured, node-aware methods in */
        printf(TUNE_NAME ": model regions of %s at %d ranks per node: model's pick within %gx "
               "of the measured best at %zu of %zu cells, median error %.0f %% of %zu "
               "predictions: %s, %zu layout-bound rules, a node-aware method at %zu of %zu "
               "points\n",
               acct_coll_name(coll), r->rpn, margin, r->at_hits, r->at_cells,
               r->at_median_err * 100, r->at_pairs, r->at_trusted ? "trusted" : "not trusted",
               r->at_rules, r->at_hier, r->at_points);
    if (r->measured_min > 1) { /* below the smallest (the same trust) */
        printf(TUNE_NAME ": model regions of %s below %d ranks: %s", acct_coll_name(coll),
               r->measured_min, r->trusted ? "trusted" : "not trusted");
        if (r->rows_below > 0)
            printf(", %zu rows down to 2 ranks", r->rows_below);
        printf(", %zu rule%s", r->rules_below, r->rules_below == 1 ? "" : "s");
        if (r->native_below > 0)
            printf(", native (evidence: none) at %zu size%s%s", r->native_below,
                   r->native_below == 1 ? "" : "s",
                   r->native_below == 1 ? " (one rank: nothing to decide)" : "");
        printf("\n");
    }
}

static int model_regions(const struct tune_opts *o, const struct tune_run_info *run,
                         const struct acct_result *res, struct acct_rules *rules, char *err,
                         size_t errlen)
{
    struct acct_extrap_report rep[ACCT_COLL_COUNT];
    struct acct_diags diags = ACCT_DIAGS_INIT;
    struct acct_loggp lg;
    int rc;

    if (o->max_comm_size == 0 || !run->model.present)
        return 0; /* no model: no regions (a run on one rank, or --max-comm-size 0) */
    lg = (struct acct_loggp){ run->model.L_us, run->model.o_us, run->model.g_us,
                              run->model.G_us_per_byte };
    acct_diags_reset(&diags, "model regions");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* per layout: the run's levels, at the ranks per node it measured at */
    const struct acct_result_model *rmod = &run->model;
    struct acct_rules_model levels = {
        .has_levels = rmod->has_levels,
        .intra = { rmod->intra.L_us, rmod->intra.o_us, rmod->intra.g_us,
                   rmod->intra.G_us_per_byte },
        .inter = { rmod->inter.L_us, rmod->inter.o_us, rmod->inter.g_us,
                   rmod->inter.G_us_per_byte },
        .nic_pairs = rmod->nic_pairs,
        .nic_gap_factor = rmod->nic_gap_factor,
        .nic_bidir_pairs = rmod->nic_bidir_pairs,
        .nic_bidir_gap_factor = rmod->nic_bidir_gap_factor,
        .pair_duplex_factor = rmod->pair_duplex_factor,
        .pair_duplex_overlap_bytes = rmod->pair_duplex_overlap_bytes,
    };
    rc = acct_extrap_rules(res->points, res->npoints, &lg, &levels, run->cond.ranks_per_node,
                           run->id, o->extrap_margin, o->max_comm_size, rules, rep, NULL,
                           &diags);
    if (rc != ACCT_RULES_OK) {
        char line[TUNE_ERRLEN] = "out of memory";
        if (diags.n > 0)
            acct_diag_format(&diags, 0, line, sizeof(line));
        snprintf(err, errlen, "cannot build the model regions: %s", line);
    }
    acct_diags_free(&diags);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (int c = 0; rc == ACCT_RULES_OK && c < ACCT_COLL_COUNT; c++)
        print_region_report((enum acct_coll_id)c, &rep[c], o->extrap_margin, o->max_comm_size);
    if (rc == ACCT_RULES_OK) /* rank 0's predictions: the others wait (docs/acct-tune.md) */
        printf(TUNE_NAME ": model regions up to %d ranks: %.1f s of predictions\n",
               o->max_comm_size,
               (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    return rc == ACCT_RULES_OK ? 0 : -1;
}

static int make_rules(const struct tune_opts *o, const struct tune_run_info *run,
                      struct acct_result *res, const struct acct_result_point *dec, size_t ndec,
                      char *err, size_t errlen)
{
    int rc = 0;
    struct acct_rules *rules = calloc(1, sizeof(*rules));
    struct acct_provenance *pv = NULL;

    if (rules == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    res->rules = rules;
    pv = &rules->prov;
    snprintf(pv->partition, sizeof(pv->partition), "%s", o->partition);
    snprintf(pv->interconnect, sizeof(pv->interconnect), "%s", o->interconnect);
    pv->version = 1;
    pv->source = o->source == ACCT_RESULT_MODEL ? ACCT_SOURCE_MODEL : ACCT_SOURCE_MEASURED;
    snprintf(pv->created, sizeof(pv->created), "%s", run->finished);
    snprintf(pv->tuning_run, sizeof(pv->tuning_run), "%s", run->id);
    pv->ranks_per_node_min = pv->ranks_per_node_max = run->cond.ranks_per_node;
    pv->placement = run->cond.placement;
    if (o->quadtree_depth >= 0) {
        printf("quadtrees (depth <= %d, accuracy %g%%, %s leaves): penalty against the exact "
               "map\n",
               o->quadtree_depth, o->quadtree_accuracy,
               o->quadtree_leaf == ACCT_QT_LEAF_MAJORITY ? "majority" : "least-penalty");
        acct_penalty_print_header(stdout);
    }
    /* at raced points the race decides (race_output.c) */
    struct acct_result dres = *res;
    struct acct_result_point *dpts = NULL;
    size_t ndpts = 0;
    if (tune_race_decision_points(res->points, res->npoints, res->races, res->nraces, &dpts,
                                  &ndpts) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (dpts != NULL) {
        dres.points = dpts;
        dres.npoints = ndpts;
    }
    for (int c = 0; c < ACCT_COLL_COUNT && rc == 0; c++)
        if (o->coll[c])
            rc = coll_rules(o, &dres, dec, ndec, (enum acct_coll_id)c, rules, err, errlen) ==
                         ACCT_RULES_OK
                     ? 0
                     : -1;
    free(dpts);
    if (rc == 0)
        add_runner_ups(res, rules);
    if (rc == 0)
        rc = model_regions(o, run, res, rules, err, errlen);
    return rc;
}

/* The verdict of reading a written file back with the project's parser. */
static int read_back(const char *what, int rc, struct acct_diags *d, char *err, size_t errlen)
{
    if (rc != ACCT_RULES_OK) {
        char line[TUNE_ERRLEN] = "unreadable";
        acct_diags_print(d, stderr);
        if (d->n > 0)
            acct_diag_format(d, 0, line, sizeof(line));
        snprintf(err, errlen, "the %s written does not read back (a bug): %s", what, line);
    }
    acct_diags_free(d);
    return rc == ACCT_RULES_OK ? 0 : -1;
}

static int check_result(const char *path, char *err, size_t errlen)
{
    struct acct_result *back = NULL;
    struct acct_diags d = ACCT_DIAGS_INIT;
    int rc = acct_result_parse_file(path, &back, &d);

    acct_result_free(back);
    return read_back("result", rc, &d, err, errlen);
}

static int check_rules(const char *path, char *err, size_t errlen)
{
    struct acct_rules *back = NULL;
    struct acct_diags d = ACCT_DIAGS_INIT;
    int rc = acct_rules_parse_file(path, &back, &d);

    acct_rules_free(back);
    return read_back("rules file", rc, &d, err, errlen);
}

int tune_write_outputs(const struct tune_opts *o, const struct tune_run_info *run,
                       const struct tune_record *recs, size_t nrecs,
                       const struct tune_record *decided, size_t ndecided, char *err,
                       size_t errlen)
{
    int rc = -1;
    struct acct_result *res = calloc(1, sizeof(*res));
    struct acct_result_point *dec = NULL;

    if (res == NULL) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    snprintf(res->id, sizeof(res->id), "%s", run->id);
    snprintf(res->partition, sizeof(res->partition), "%s", o->partition);
    snprintf(res->interconnect, sizeof(res->interconnect), "%s", o->interconnect);
    snprintf(res->started, sizeof(res->started), "%s", run->started);
    snprintf(res->finished, sizeof(res->finished), "%s", run->finished);
    res->complete = run->complete;
    snprintf(res->strategy, sizeof(res->strategy), "%s", o->strategy_word);
    res->source = o->source;
    res->budget_s = o->budget_s;
    res->experiment_s = run->experiment_s;
    res->experiments = run->experiments;
    res->cond = run->cond;
    res->cond.hosts = malloc(run->cond.nhosts * sizeof(*res->cond.hosts));
    res->model = run->model;
    if (res->cond.hosts == NULL || make_points(o, recs, nrecs, &res->points) != 0 ||
        make_points(o, decided, ndecided, &dec) != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    res->npoints = nrecs;
    res->races = (struct acct_result_race *)run->races; /* borrowed: not freed below */
    res->nraces = run->nraces;
    res->noise = run->noise; /* borrowed: its load is not freed below */
    memcpy(res->cond.hosts, run->cond.hosts, run->cond.nhosts * sizeof(*res->cond.hosts));
    if (make_rules(o, run, res, dec, ndecided, err, errlen) != 0)
        goto out;
    if (write_atomic(o->out, write_result, res, err, errlen) != 0 ||
        check_result(o->out, err, errlen) != 0)
        goto out;
    if (o->rules != NULL && (write_atomic(o->rules, write_rules, res->rules, err, errlen) != 0 ||
                             check_rules(o->rules, err, errlen) != 0))
        goto out;
    if (o->ompi_rules != NULL) {
        /* sections up to the largest size a rule names (the model regions'
         * P), at most the exporter's 65536: Open MPI applies the last
         * section above it */
        int pmax = o->max_comm_size > run->cond.ranks && res->rules->prov.model.present
                       ? o->max_comm_size
                       : run->cond.ranks;
        struct ompi_arg a = { .path = o->ompi_rules, .rules = res->rules,
                              .max_comm_size = pmax < 65536 ? pmax : 65536 };
        if (write_atomic(o->ompi_rules, write_ompi, &a, err, errlen) != 0)
            goto out;
    }
    rc = 0;
out:
    free(dec);
    if (res != NULL) {
        res->races = NULL;
        res->nraces = 0;
        res->noise.load = NULL;
        res->noise.nload = 0;
    }
    acct_result_free(res);
    return rc;
}
