/* acct-race-replay: replays the finalist races of acct-tune --race results
 * from the times per round they record (docs/tuning-result.md "races":
 * round_median_us, round_avg_us, round_rank_max_us) with the tuner's own
 * decision, race_decide (race_stats.c), under cheaper settings: a lower
 * round cap, or native's A/A twin timed only in the first rounds. No MPI.
 * docs/performance.md section 15, "Cost against the search";
 * tools/perf/acct-race-cost summarises its output.
 *
 *   acct-race-replay [--cap N] [--caps 4,6,8,12] [--twin-rounds 6] RESULT...
 *
 * --cap: the run's --race-rounds (default: the most rounds of any race in
 * the file, which is the cap when some race reached it). Per race, first
 * the race as run: the replay must give the recorded winner and
 * resolved_by (else "not_reproduced": an incumbent or a model prediction,
 * which the result does not mark, or a decision changed since the run);
 * then each candidate, round by round as acct-tune's driver runs it, until
 * race_decide says over. One tab-separated line per race and candidate:
 *
 *   file point rounds finalists seconds candidate status stop winner
 *   replay_winner changed ratio saved_s
 *
 * status: replayed, not_reproduced (stop, winner and replay_winner then
 * say where the replay as run ended, the recorded winner and "WINNER by
 * RULE" of the replay; "-" when it did not decide), no_rounds (a result
 * before the keys),
 * beyond (the candidate needs rounds the race did not run); stop: the
 * rounds the candidate ran; ratio: the candidate's winner over the race's
 * (its recorded ratio, interleaved over all the race's rounds); saved_s:
 * the race's recorded seconds times the share of its calls' time the
 * candidate does not run (the finalists' round_median_us per round). */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/decision.h"
#include "acct/diag.h"
#include "acct/result.h"
#include "race.h"

#define MAX_CANDIDATES 16
#define MIN_ROUNDS 6 /* race.c's RACE_MIN_ROUNDS */

struct candidate {
    size_t cap;         /* round cap, or 0: the run's */
    size_t twin_rounds; /* 0: every round */
};

struct replay {
    bool beyond;
    size_t stop, winner;
    enum race_resolve by;
};

/* The race rc as acct-tune's driver runs it (race.c tune_race): after each
 * round race_decide, until over; at the last recorded round of a race the
 * budget cut (cut), decided as final. */
static int run(const struct acct_result_race *rc, const double *const t[RACE_VIEWS],
               size_t native, size_t twin, size_t cap, size_t twin_rounds, bool cut,
               struct replay *out)
{
    enum race_verdict verdict[ACCT_RESULT_MAX_FINALISTS];
    double ratio[ACCT_RESULT_MAX_FINALISTS], p[ACCT_RESULT_MAX_FINALISTS];
    struct race_outcome o = { .verdict = verdict, .ratio = ratio, .p = p };
    struct race_input in = { .nc = rc->nf, .metric = (enum race_view)rc->metric,
                             .native = native, .twin = twin, .incumbent = RACE_NONE,
                             .twin_rounds = twin_rounds };
    struct race_params pp = { .alpha = rc->alpha, .tolerance = rc->tolerance,
                              .min_rounds = cap < MIN_ROUNDS ? cap : MIN_ROUNDS,
                              .max_rounds = cap };

    for (int v = 0; v < RACE_VIEWS; v++)
        in.t[v] = t[v];
    memset(out, 0, sizeof(*out));
    for (size_t r = 1; r <= cap; r++) {
        if (r > rc->rounds) {
            out->beyond = true;
            return 0;
        }
        in.rounds = r;
        pp.final = cut && r == rc->rounds;
        if (race_decide(&in, &pp, &o) != 0)
            return -1;
        if (o.over || pp.final) {
            out->stop = r;
            out->winner = o.winner;
            out->by = o.by;
            return 0;
        }
    }
    return -1; /* unreachable: over at the cap */
}

static int parse_list(const char *s, size_t *v, size_t *n, const char *opt)
{
    *n = 0;
    while (*s != '\0') {
        char *end;
        long x = strtol(s, &end, 10);
        if (end == s || x < 1 || x > 100000 || (*end != ',' && *end != '\0') ||
            *n == MAX_CANDIDATES / 2) {
            fprintf(stderr, "acct-race-replay: %s: \"%s\" is not a list of up to %d integers "
                    ">= 1\n", opt, s, MAX_CANDIDATES / 2);
            return -1;
        }
        v[(*n)++] = (size_t)x;
        s = *end == ',' ? end + 1 : end;
    }
    return 0;
}

static void point_name(const struct acct_result_race *rc, char *buf, size_t len)
{
    snprintf(buf, len, "%s:%d:%llu", acct_coll_name(rc->coll), rc->comm_size,
             (unsigned long long)rc->bytes);
}

static int replay_file(const char *path, size_t cap_opt, const struct candidate *cands,
                       size_t ncands)
{
    struct acct_result *r = NULL;
    struct acct_diags d = ACCT_DIAGS_INIT;
    int rc = acct_result_parse_file(path, &r, &d);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

    if (rc != ACCT_RULES_OK) {
        acct_diags_print(&d, stderr);
        acct_diags_free(&d);
        return -1;
    }
    acct_diags_free(&d);
    size_t cap = cap_opt;
    for (size_t i = 0; cap_opt == 0 && i < r->nraces; i++)
        cap = r->races[i].rounds > cap ? r->races[i].rounds : cap;
    for (size_t i = 0; i < r->nraces; i++) {
        const struct acct_result_race *rc0 = &r->races[i];
        size_t nf = rc0->nf, R = rc0->rounds, native = RACE_NONE, twin = RACE_NONE, w = 0;
        double *t[RACE_VIEWS] = { NULL, NULL, NULL }, *wr = NULL, total = 0;
        bool have = true;
        char pt[96];

        point_name(rc0, pt, sizeof(pt));
        for (size_t k = 0; k < nf; k++) {
            const struct acct_result_finalist *f = &rc0->f[k];
            bool is_native = f->d.alg == NULL || strcmp(f->d.alg->name, "native") == 0;
            have &= f->round_us != NULL && f->nrounds == R;
            if (f->verdict == ACCT_RESULT_TWIN)
                twin = k;
            else if (is_native && native == RACE_NONE)
                native = k;
            if (f->verdict == ACCT_RESULT_WINNER)
                w = k;
        }
        if (!have || native == RACE_NONE || R > cap) {
            for (size_t j = 0; j < ncands; j++)
                printf("%s\t%s\t%zu\t%zu\t%.3f\t%zu\t%zu\tno_rounds\t-\t-\t-\t-\t-\t-\n", base, pt,
                       R, nf, rc0->has_cost ? rc0->seconds : NAN, cands[j].cap,
                       cands[j].twin_rounds);
            continue;
        }
        for (int v = 0; v < RACE_VIEWS; v++)
            if ((t[v] = malloc(R * nf * sizeof(double))) == NULL)
                have = false;
        if (have && (wr = calloc(R, sizeof(double))) == NULL)
            have = false;
        if (!have) {
            fprintf(stderr, "acct-race-replay: out of memory\n");
            for (int v = 0; v < RACE_VIEWS; v++)
                free(t[v]);
            acct_result_free(r);
            return -1;
        }
        /* race.h's layout t[v][r * nc + c]; each round's weight: the sum of
         * the finalists' times per call (slowest rank) */
        for (size_t k = 0; k < nf; k++)
            for (size_t q = 0; q < R; q++) {
                for (int v = 0; v < RACE_VIEWS; v++)
                    t[v][q * nf + k] = rc0->f[k].round_us[(size_t)v * R + q];
                wr[q] += rc0->f[k].round_us[q];
                total += rc0->f[k].round_us[q];
            }
        /* the race as run: cut by the budget when it stopped short of the
         * cap without being over */
        struct replay full, cut_try;
        bool cut = false, ok = run(rc0, (const double *const *)t, native, twin, cap, 0, false,
                                   &full) == 0;
        if (ok && full.beyond) {
            cut = true;
            ok = run(rc0, (const double *const *)t, native, twin, cap, 0, true, &cut_try) == 0;
            full = cut_try;
        }
        bool same = ok && !full.beyond && full.stop == R && full.winner == w &&
                    strcmp(race_resolve_name(full.by),
                           acct_result_resolve_name(rc0->resolved_by)) == 0;
        for (size_t j = 0; j < ncands; j++) {
            struct replay c;
            size_t ccap = cands[j].cap ? cands[j].cap : cap;
            printf("%s\t%s\t%zu\t%zu\t%.3f\t%zu\t%zu\t", base, pt, R, nf,
                   rc0->has_cost ? rc0->seconds : NAN, cands[j].cap, cands[j].twin_rounds);
            if (!same) { /* what the replay as run decided instead, when it decided */
                char wn[64], fn[64] = "-", line[96] = "-";
                acct_decision_format(&rc0->f[w].d, wn, sizeof(wn));
                bool decided = ok && !full.beyond;
                if (decided) {
                    acct_decision_format(&rc0->f[full.winner].d, fn, sizeof(fn));
                    snprintf(line, sizeof(line), "%s by %s", fn, race_resolve_name(full.by));
                }
                printf("not_reproduced\t%s\t%s\t%s\t-\t-\t-\n",
                       decided ? (snprintf(fn, sizeof(fn), "%zu", full.stop), fn) : "-", wn,
                       line);
                continue;
            }
            if (run(rc0, (const double *const *)t, native, twin, ccap, cands[j].twin_rounds,
                    cut && ccap >= R, &c) != 0 || c.beyond) {
                printf("beyond\t-\t-\t-\t-\t-\t-\n");
                continue;
            }
            double unrun = 0;
            for (size_t q = c.stop; q < R; q++)
                unrun += wr[q];
            for (size_t q = cands[j].twin_rounds; twin != RACE_NONE && cands[j].twin_rounds > 0 &&
                                                   q < c.stop; q++)
                unrun += rc0->f[twin].round_us[q];
            char wn[64], cn[64];
            acct_decision_format(&rc0->f[w].d, wn, sizeof(wn));
            acct_decision_format(&rc0->f[c.winner].d, cn, sizeof(cn));
            printf("replayed\t%zu\t%s\t%s\t%d\t%.6g\t%.3f\n", c.stop, wn, cn, c.winner != w,
                   rc0->f[c.winner].ratio,
                   rc0->has_cost && total > 0 ? rc0->seconds * unrun / total : NAN);
        }
        for (int v = 0; v < RACE_VIEWS; v++)
            free(t[v]);
        free(wr);
    }
    acct_result_free(r);
    return 0;
}

int main(int argc, char **argv)
{
    size_t caps[MAX_CANDIDATES / 2] = { 4, 6, 8, 12 }, ncaps = 4;
    size_t twins[MAX_CANDIDATES / 2] = { 6 }, ntwins = 1, cap = 0;
    struct candidate cands[MAX_CANDIDATES];
    size_t n = 0;
    int i = 1, bad = 0;

    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "acct-race-replay: %s needs a value\n", argv[i]);
            return 2;
        }
        if (strcmp(argv[i], "--caps") == 0) {
            if (parse_list(argv[++i], caps, &ncaps, "--caps") != 0)
                return 2;
        } else if (strcmp(argv[i], "--twin-rounds") == 0) {
            if (parse_list(argv[++i], twins, &ntwins, "--twin-rounds") != 0)
                return 2;
        } else if (strcmp(argv[i], "--cap") == 0) {
            size_t one[MAX_CANDIDATES / 2], k = 0;
            if (parse_list(argv[++i], one, &k, "--cap") != 0 || k != 1) {
                fprintf(stderr, "acct-race-replay: --cap: one integer >= 1\n");
                return 2;
            }
            cap = one[0];
        } else {
            fprintf(stderr, "acct-race-replay: unknown option %s (--cap, --caps, "
                    "--twin-rounds)\n", argv[i]);
            return 2;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "usage: acct-race-replay [--cap N] [--caps 4,6,8,12] "
                "[--twin-rounds 6] RESULT...\n");
        return 2;
    }
    for (size_t k = 0; k < ncaps; k++)
        cands[n++] = (struct candidate){ .cap = caps[k] };
    for (size_t k = 0; k < ntwins; k++)
        cands[n++] = (struct candidate){ .twin_rounds = twins[k] };
    printf("file\tpoint\trounds\tfinalists\tseconds\tcap\ttwin_rounds\tstatus\tstop\twinner\t"
           "replay_winner\tchanged\tratio\tsaved_s\n");
    for (; i < argc; i++)
        bad |= replay_file(argv[i], cap, cands, n) != 0;
    return bad ? 1 : 0;
}
