/* Robust summary statistics for timing samples, and byte-size parsing.
 *
 * Pure C, no MPI: used by acct-bench, the tuner and the daemon alike, so that
 * every performance figure in the project is summarised the same way.
 *
 * Quantiles use linear interpolation between order statistics (Hyndman & Fan
 * type 7, the default of R and NumPy): for sorted samples x[0..n-1] and a
 * probability p, h = (n-1)p and q(p) = x[floor h] + (h - floor h) *
 * (x[floor h + 1] - x[floor h]). So the median of an even count is the mean of
 * the two middle samples, and q(0) = min, q(1) = max.
 *
 * Outliers: timing noise is one-sided (an interrupt, a page fault or the OS
 * scheduler only ever makes a repetition slower), so only high outliers are
 * dropped: samples strictly above the fence Q3 + k * IQR, where Q1, Q3 and
 * IQR = Q3 - Q1 are computed over all samples. The fence is never below Q3, so
 * at least 75% of the samples (and at least one) are always kept. Every figure
 * of the summary except n, dropped and fence is then computed over the kept
 * samples. */
#ifndef ACCT_STATS_H
#define ACCT_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Return codes of every function in this header (0 on success). */
enum acct_stats_rc {
    ACCT_STATS_OK = 0,
    ACCT_STATS_EINVAL = -1, /* NULL pointer, no samples, NaN, bad parameter, bad syntax */
    ACCT_STATS_ERANGE = -2, /* a value is out of range or overflows */
    ACCT_STATS_ENOMEM = -3, /* allocation failed */
};

/* Static, human-readable name of a return code. */
const char *acct_stats_strerror(int rc);

/* The customary fence factor (Tukey's "far out" values). */
#define ACCT_STATS_OUTLIER_K 3.0
/* Pass as outlier_k to keep every sample. */
#define ACCT_STATS_KEEP_ALL 0.0

struct acct_summary {
    size_t n;       /* samples given */
    size_t kept;    /* samples used for the figures below */
    size_t dropped; /* n - kept: samples above the fence */
    double fence;   /* Q3 + k*IQR over all samples; +inf when nothing can be dropped */
    double min;
    double max;
    double mean;
    double median;
    double p25;     /* first quartile */
    double p75;     /* third quartile */
    double rel_iqr; /* (p75 - p25) / median, a relative spread; 0 if median is 0 */
};

/* Quantile p (0 <= p <= 1) of n >= 1 samples already sorted ascending, with
 * the interpolation described above. */
int acct_stats_quantile_sorted(const double *sorted, size_t n, double p, double *out);

/* Summarise n >= 1 samples (the array is not modified; a sorted copy is
 * made). outlier_k > 0 applies the fence Q3 + outlier_k * IQR; outlier_k ==
 * ACCT_STATS_KEEP_ALL (0) or +inf keeps every sample. Fails with
 * ACCT_STATS_EINVAL on NULL, n == 0, a NaN or infinite sample, or a negative
 * or NaN outlier_k; *out is only written on success. */
int acct_stats_summarize(const double *samples, size_t n, double outlier_k,
                         struct acct_summary *out);

/* ---- byte sizes ----------------------------------------------------------
 *
 * A size is decimal digits and an optional unit, case-insensitive: none or
 * "B" (bytes), "K", "M", "G", "T", each optionally followed by "B" or "iB".
 * Every unit is a power of 1024 ("64K" = "64KB" = "64KiB" = 65536): message
 * sizes in MPI benchmarks are customarily binary. No sign, no blanks, no
 * fraction; zero is rejected (a message of zero bytes measures nothing a
 * size list is for).
 *
 * A size list is comma-separated items; an item is a size or a range
 * "FROM:TO" or "FROM:TO:FACTOR": FROM, FROM*FACTOR, FROM*FACTOR^2, ... while
 * <= TO (TO itself is included only if it is on that sequence). FACTOR is a
 * plain integer >= 2, default 2. FROM > TO is an error. Items are kept in the
 * order given; duplicates are kept.
 *
 * On error the parsers return ACCT_STATS_EINVAL (syntax) or ACCT_STATS_ERANGE
 * (overflow, zero, FROM > TO) and, if err is not NULL, write a message that
 * quotes the offending text into err (at most errlen bytes, NUL-terminated). */

/* Largest number of sizes a list may produce. */
#define ACCT_SIZE_LIST_MAX 4096

/* Big enough for any formatted uint64_t size. */
#define ACCT_SIZE_FORMAT_LEN 24

struct acct_size_list {
    uint64_t *v;
    size_t n;
};

/* Parse one size (the whole of text). */
int acct_size_parse(const char *text, uint64_t *out, char *err, size_t errlen);

/* Parse a size list into out (allocated; free with acct_size_list_free). On
 * error out is left empty ({NULL, 0}). */
int acct_size_list_parse(const char *text, struct acct_size_list *out, char *err,
                         size_t errlen);

/* Free the list's array and empty it. NULL is allowed. */
void acct_size_list_free(struct acct_size_list *list);

/* Format bytes with the largest unit that divides it exactly ("64K", "1M",
 * "1536", "0"); acct_size_parse reads the result back to the same value
 * (except "0"). Fails with ACCT_STATS_EINVAL on NULL and ACCT_STATS_ERANGE if
 * len is too small (ACCT_SIZE_FORMAT_LEN always suffices). */
int acct_size_format(uint64_t bytes, char *buf, size_t len);

#endif
