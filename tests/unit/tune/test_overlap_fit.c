/* Unit tests of the pair duplex's fit (tools/acct-tune/plogp_fit.h,
 * acct_plogp_overlap_fit; docs/models.md "Calibrated per partition"). No
 * MPI: synthetic times from the model, and the medians one hold measured
 * on the emulated cluster (docs/data/model-accuracy-s35.tar.gz,
 * hold/01-pair-2x1.txt). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "acct_test.h"

#include "plogp_fit.h"

#define KIB 1024u
static const uint64_t sizes[5] = { 256 * KIB, 384 * KIB, 512 * KIB, 768 * KIB, 1024 * KIB };

/* one(m) = L + G m; both(m) = one(m) + (D - 1) G max(0, m - c) */
static void model(double L, double G, double D, double c, double *one, double *both)
{
    for (int i = 0; i < 5; i++) {
        double m = (double)sizes[i];
        one[i] = L + G * m;
        both[i] = one[i] + (D - 1) * G * (m > c ? m - c : 0);
    }
}

static void test_exact(void **state)
{
    (void)state;
    double one[5], both[5], d = -1;
    uint64_t c = 1;
    /* 100 Mbit/s: G = 80 ns/B; D = 2, c = 192 KiB (Open MPI's TCP RDMA
     * pipeline threshold) */
    model(5e-4, 8e-8, 2.0, 192.0 * KIB, one, both);
    acct_assert(acct_plogp_overlap_fit(sizes, one, both, 5, &d, &c) == 0, "fit");
    acct_assert(fabs(d - 2.0) < 1e-9 && c == 192 * KIB, "D %g c %llu", d, (unsigned long long)c);
    model(5e-4, 8e-8, 1.5, 0, one, both);
    acct_assert(acct_plogp_overlap_fit(sizes, one, both, 5, &d, &c) == 0, "fit");
    acct_assert(fabs(d - 1.5) < 1e-9 && c == 0, "D %g c %llu", d, (unsigned long long)c);
}

/* The hold's medians (ms) at 256 KiB, 512 KiB and 1 MiB: both - one = 3.87,
 * 25.88, 67.76; the hold's own least-squares fits gave D 1.97-2.0, c
 * 100-192 KiB. */
static void test_hold(void **state)
{
    (void)state;
    const uint64_t m[3] = { 256 * KIB, 512 * KIB, 1024 * KIB };
    const double one[3] = { 21.20e-3, 43.13e-3, 87.61e-3 };
    const double both[3] = { 25.07e-3, 69.01e-3, 155.37e-3 };
    double d = 0;
    uint64_t c = 0;
    acct_assert(acct_plogp_overlap_fit(m, one, both, 3, &d, &c) == 0, "fit");
    acct_assert(d > 1.9 && d < 2.05 && c > 180 * KIB && c < 225 * KIB, "D %g c %llu KiB", d,
                (unsigned long long)(c / KIB));
}

/* One size whose two ways overlapped by chance (both = one at 1 MiB, the
 * kind of exchange that gave acct-tune c = 723 KiB from two sizes): with
 * five sizes the medians keep D and c near the truth. */
static void test_outlier(void **state)
{
    (void)state;
    double one[5], both[5], d = 0;
    uint64_t c = 0;
    model(5e-4, 8e-8, 2.0, 192.0 * KIB, one, both);
    both[4] = one[4];
    acct_assert(acct_plogp_overlap_fit(sizes, one, both, 5, &d, &c) == 0, "fit");
    acct_assert(d > 1.9 && d < 2.1 && c > 160 * KIB && c < 224 * KIB, "D %g c %llu KiB", d,
                (unsigned long long)(c / KIB));
    model(5e-4, 8e-8, 2.0, 192.0 * KIB, one, both);
    both[1] = one[1];
    acct_assert(acct_plogp_overlap_fit(sizes, one, both, 5, &d, &c) == 0, "fit");
    acct_assert(d > 1.9 && d < 2.1 && c > 160 * KIB && c < 224 * KIB, "D %g c %llu KiB", d,
                (unsigned long long)(c / KIB));
}

/* Full duplex: factor 1, overlap 0; a one-way time that does not grow (a
 * loaded host, not a link): factor 0, not measured. */
static void test_overlap(void **state)
{
    (void)state;
    double one[5], both[5], d = -1;
    uint64_t c = 7;
    model(5e-4, 8e-8, 1.02, 0, one, both);
    acct_assert(acct_plogp_overlap_fit(sizes, one, both, 5, &d, &c) == 0 && d == 1 && c == 0,
                "full duplex: D %g c %llu", d, (unsigned long long)c);
    for (int i = 0; i < 5; i++)
        one[i] = 0.01, both[i] = 0.02;
    acct_assert(acct_plogp_overlap_fit(sizes, one, both, 5, &d, &c) == 0 && d == 0 && c == 0,
                "flat one way: D %g", d);
}

static void test_bad(void **state)
{
    (void)state;
    double one[5], both[5], d;
    uint64_t c;
    model(5e-4, 8e-8, 2.0, 0, one, both);
    acct_assert(acct_plogp_overlap_fit(sizes, one, both, 1, &d, &c) == -1, "one size");
    acct_assert(acct_plogp_overlap_fit(sizes, one, both, ACCT_PLOGP_OVERLAP_SIZES + 1, &d, &c) ==
                    -1, "too many sizes");
    const uint64_t same[2] = { 4096, 4096 };
    acct_assert(acct_plogp_overlap_fit(same, one, both, 2, &d, &c) == -1, "one distinct size");
    one[2] = NAN;
    acct_assert(acct_plogp_overlap_fit(sizes, one, both, 5, &d, &c) == -1, "NaN time");
    one[2] = 0;
    acct_assert(acct_plogp_overlap_fit(sizes, one, both, 5, &d, &c) == -1, "zero time");
    acct_assert(acct_plogp_overlap_fit(NULL, one, both, 5, &d, &c) == -1, "NULL sizes");
}

static const struct acct_test_case cases[] = {
    ACCT_TEST_CASE("exact", test_exact),     ACCT_TEST_CASE("hold", test_hold),
    ACCT_TEST_CASE("outlier", test_outlier), ACCT_TEST_CASE("overlap", test_overlap),
    ACCT_TEST_CASE("bad", test_bad),
};

int main(int argc, char **argv)
{
    return acct_test_run("overlap_fit", cases, sizeof(cases) / sizeof(cases[0]),
                         argc > 1 ? argv[1] : NULL);
}
