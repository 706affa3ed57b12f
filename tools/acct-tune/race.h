/* acct-tune: finalist racing (issue 23) — the statistics and the decision
 * of one race, pure (race_stats.c, no MPI), and the MPI driver that times
 * the finalists interleaved (race.c). docs/acct-tune.md "Racing".
 *
 * A race re-times a point's finalists (the search's best few methods,
 * native, the incumbent of --incumbent, and native's A/A twin) in rounds:
 * in each round every finalist is forced and timed once (a few repetitions
 * after barriers, as any experiment), in an order rotated by one each
 * round (ABC, BCA, CAB, ...). A round gives every finalist its three
 * views (enum race_view). After each round rank 0 calls race_decide() on
 * the rounds so far; it says whether the race is over and who won, and
 * rank 0 broadcasts that, so every rank runs the same rounds and ends with
 * the same decision (docs/architecture.md rule 1). */
#ifndef ACCT_TUNE_RACE_H
#define ACCT_TUNE_RACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The views of one timed experiment (microseconds per call). */
enum race_view {
    RACE_VIEW_MAX = 0,  /* median over repetitions of the slowest rank's time (acct-tune's
                         * median_us, the search's statistic) */
    RACE_VIEW_AVG,      /* mean over ranks of each rank's mean time per call (OSU's default
                         * "average latency", IMB t_avg) */
    RACE_VIEW_RANK_MAX, /* maximum over ranks of each rank's mean time per call (OSU's max
                         * latency, IMB t_max; acct-ab -b without -a) */
    RACE_VIEWS
};

/* "max", "avg", "rank_max" (the words of docs/tuning-result.md). */
const char *race_view_name(enum race_view v);

/* ---- statistics ------------------------------------------------------------------ */

/* Wilcoxon signed-rank test, one-sided: the probability under H0 (the
 * differences are symmetric about 0) of a sum of positive ranks at least
 * as large as the one of d[0..n-1]. Zeros are dropped, ties get average
 * ranks; exact (the permutation distribution of the signs, with the tied
 * ranks) for up to RACE_EXACT_MAX non-zero differences, else the normal
 * approximation with continuity and tie correction. Returns 1 when no
 * difference is non-zero (nothing against H0). *w_plus (may be NULL): the
 * sum of positive ranks. */
#define RACE_EXACT_MAX 60
double race_wilcoxon_greater(const double *d, size_t n, double *w_plus);

/* Sign test, one-sided: P(Bin(n', 1/2) >= k) where n' counts the non-zero
 * differences and k the positive ones; 1 when n' = 0. */
double race_sign_greater(const double *d, size_t n);

/* Median of v[0..n-1] (copied, not reordered); NAN for n = 0. */
double race_median(const double *v, size_t n);

/* Quantile q (0..1) of v[0..n-1], linear between order statistics (copied,
 * not reordered); NAN for n = 0. */
double race_quantile(const double *v, size_t n, double q);

/* The fewest rounds in which the exact one-sided signed-rank test can
 * reach p < alpha (its smallest p over n rounds is 2^-n): a race capped
 * below it can never show native slower, so rule 6 keeps native. */
size_t race_rounds_needed(double alpha);

/* ---- the finalists ----------------------------------------------------------- */

/* A method as a race times it: a registry index, its fan-out and segment. */
struct race_method {
    int32_t alg, fanout;
    uint64_t seg;
};

/* One measurement of a point: the method and its time on the race's metric
 * (microseconds; NAN or non-positive: not measured, ignored). */
struct race_measured {
    struct race_method m;
    double t;
};

/* The K best methods of v[0..n-1] on t, best first (ties: the earlier).
 * A method is (alg, fanout) at its best segment (the lowest t; ties: the
 * earlier). Each is followed by its **segment variant** — the method's
 * best record at another segment — when that is within tol of it
 * (t <= (1 + tol) x the best's): the search's times of two segments of
 * one method that close do not say which is faster, and only a race does
 * (docs/acct-tune.md "Racing"). Writes at most cap methods to out and
 * returns how many (0 for n = 0 or k <= 0); -1 when out of memory. */
int race_best_methods(const struct race_measured *v, size_t n, int k, double tol,
                      struct race_method *out, size_t cap);

/* ---- the decision of one race ------------------------------------------------- */

/* The decision judges every finalist against the leader; the verdicts
 * returned (and recorded) are then judged by the same rules against the
 * winner, the reference of the returned ratio and p (the same thing when
 * the winner is the leader; docs/tuning-result.md "races"). */
enum race_verdict {
    RACE_WINNER = 0,
    RACE_SEPARATED, /* more than the tolerance slower than the winner (median ratio), and
                     * the signed-rank test says slower at alpha/k */
    RACE_EQUIVALENT,/* median ratio to the winner in [1/(1 + tol), 1 + tol] */
    RACE_UNDECIDED, /* more than the tolerance slower, but the test has not said so; or
                     * more than the tolerance faster round by round (the race stays open,
                     * or a tie rule or rule 6 chose a slower winner) */
    RACE_GUARDED,   /* slower than native on some view beyond the noise band: not eligible */
    RACE_TWIN,      /* native's A/A twin: measures the noise, never chosen */
    RACE_VERDICTS
};
const char *race_verdict_name(enum race_verdict v);

/* How the winner was chosen. */
enum race_resolve {
    RACE_BY_TEST = 0,  /* every other eligible finalist separated */
    RACE_BY_CAP,       /* round cap: the leader; no other within the tolerance */
    RACE_BY_NATIVE,    /* several equivalent and native is one of them, or the leader did
                        * not show native slower at alpha at the end */
    RACE_BY_INCUMBENT, /* several equivalent: the incumbent is one of them */
    RACE_BY_MODEL,     /* several equivalent: the lowest model prediction */
    RACE_BY_SPREAD,    /* several equivalent: the lowest spread (IQR / median over rounds) */
    RACE_BY_ORDER,     /* several equivalent, equal spreads: the first finalist */
    RACE_RESOLVES
};
const char *race_resolve_name(enum race_resolve r);

#define RACE_NONE ((size_t)-1)

struct race_params {
    double alpha;        /* one-sided level of each comparison, before Bonferroni */
    double tolerance;    /* equivalence (and the guard's least noise band), e.g. 0.03 */
    size_t min_rounds;   /* before any verdict */
    size_t max_rounds;   /* the cap */
    bool final;          /* no more rounds (the budget cut the race): decide as over,
                          * rule 6 included */
};

/* The finalists and their rounds. t[v][r * nc + c]: view v of finalist c
 * in round r (r < rounds), microseconds > 0 (a non-positive or non-finite
 * value makes that round count as a loss for c: +inf). */
struct race_input {
    size_t nc, rounds;
    const double *t[RACE_VIEWS];
    enum race_view metric;   /* the view optimised */
    size_t native;           /* index of native (always a finalist) */
    size_t twin;             /* native's A/A twin, or RACE_NONE */
    size_t twin_rounds;      /* the A/A spread from the twin's first twin_rounds rounds
                              * only (0: all; acct-race-replay prices timing the twin in
                              * the first rounds alone) */
    size_t incumbent;        /* or RACE_NONE */
    const double *model;     /* per finalist a prediction in us (NAN / inf: none), or NULL */
};

struct race_outcome {
    bool over;               /* stop racing */
    size_t leader, winner;
    enum race_resolve by;
    size_t k;                /* comparisons (Bonferroni divisor) */
    /* per finalist (nc entries, caller's arrays) */
    enum race_verdict *verdict;
    double *ratio;           /* median over rounds of t_metric(c) / t_metric(winner) */
    double *p;               /* one-sided p that c is slower than the winner (1 for it) */
    /* noise: median over rounds of twin / native per view, |. - 1| (NAN without twin) */
    double aa[RACE_VIEWS];
};

/* Decide after in->rounds rounds. Pure and deterministic: the same input
 * gives the same outcome. over is true at the cap, or once rounds >=
 * min_rounds and every eligible finalist other than the leader is settled:
 * separated, or equivalent with a signed-rank test at alpha/k that its
 * ratio to the leader is below 1 + tolerance; or once rounds >= min_rounds,
 * native leads and no eligible finalist is undecided (each is separated or
 * within the tolerance: the tie rule picks native, more rounds cannot
 * change that). Returns 0, or -1 for bad arguments / out of memory. */
int race_decide(const struct race_input *in, const struct race_params *pp,
                struct race_outcome *out);

#endif
