/* Network parameter sets shared by the model tests. */
#ifndef ACCT_MODEL_FIXTURES_H
#define ACCT_MODEL_FIXTURES_H

#include <math.h>

#include "acct/model.h"

/* cmocka's assert_float_equal passes when a value is NAN: never use it
 * here. Both must be numbers and within eps. */
#define assert_close(a, b, eps)                                                  \
    do {                                                                         \
        double x_ = (a), y_ = (b);                                               \
        assert_false(isnan(x_));                                                 \
        assert_false(isnan(y_));                                                 \
        if (!(fabs(x_ - y_) <= (eps)))                                           \
            fail_msg("%s = %.12g, expected %.12g (eps %g)", #a, x_, y_, (double)(eps)); \
    } while (0)

/* LogGP numbers of a 1 Gbit/s-like Ethernet (G = 8 ns/byte). */
static inline void fixture_loggp(struct acct_model *mdl, double gamma, double delta)
{
    struct acct_loggp lg = {.L_us = 20, .o_us = 3, .g_us = 7, .G_us_per_byte = 0.008};
    acct_model_init(mdl);
    acct_loggp_to_plogp(&lg, &mdl->net);
    mdl->gamma_us_per_byte = gamma;
    mdl->delta_us_per_byte = delta;
}

/* Two levels for a layout of rpn ranks per node: set 0 the levels of
 * tests/daemon/data/result-eth-levels-check.yaml, set 1 a fast intra level
 * against a slow inter one (net is the inter level). */
static inline void fixture_levels(struct acct_model *mdl, int set, int rpn)
{
    static const struct acct_loggp lv[2][2] = {
        {{.L_us = 0.5, .o_us = 2.2, .g_us = 0.5, .G_us_per_byte = 0.00015},
         {.L_us = 48.2, .o_us = 12.5, .g_us = 8.1, .G_us_per_byte = 0.0836}},
        {{.L_us = 2, .o_us = 1, .g_us = 3, .G_us_per_byte = 0.0004},
         {.L_us = 20, .o_us = 9, .g_us = 12, .G_us_per_byte = 0.008}},
    };
    acct_model_init(mdl);
    assert_int_equal(acct_loggp_to_plogp(&lv[set][1], &mdl->net), 0);
    mdl->nodes.ranks_per_node = rpn;
    assert_int_equal(acct_loggp_to_plogp(&lv[set][0], &mdl->nodes.intra), 0);
    assert_int_equal(acct_loggp_to_plogp(&lv[set][1], &mdl->nodes.inter), 0);
}

/* A measured-looking pLogP table: non-linear g(m) with an eager/rendezvous
 * step, small overheads (os, or <= g everywhere). */
static inline void fixture_plogp(struct acct_model *mdl, double gamma, double delta)
{
    static const uint64_t m[] = {0, 1, 64, 1024, 16384, 65536, 1048576};
    static const double gg[] = {5, 5, 6, 12, 60, 180, 2900};
    static const double os[] = {1, 1, 1.2, 2, 8, 2, 3};
    static const double orr[] = {1, 1, 1.3, 3, 10, 20, 150};
    acct_model_init(mdl);
    mdl->net.L_us = 30;
    mdl->net.n = sizeof m / sizeof *m;
    for (size_t i = 0; i < mdl->net.n; i++) {
        mdl->net.m[i] = m[i];
        mdl->net.g_us[i] = gg[i];
        mdl->net.os_us[i] = os[i];
        mdl->net.or_us[i] = orr[i];
    }
    mdl->gamma_us_per_byte = gamma;
    mdl->delta_us_per_byte = delta;
}

#endif
