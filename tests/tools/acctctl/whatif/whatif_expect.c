/* The expected answers of acctctl whatif, computed through the model API
 * itself (acct_model_rank, acct_model_predict), not copied from acctctl's
 * output (test-whatif.sh compares the two):
 *
 *   whatif_expect rank COLL P M MODEL          one line per method, fastest
 *                                              first: METHOD<TAB>%.6g (or -)
 *   whatif_expect penalty COLL P M MODEL ALG   predicted(ALG) / best, %.4g
 *   whatif_expect sized COLL P 0 MODEL ALG     a collective decided from the
 *                                              communicator size alone: the
 *                                              geometric mean over check's
 *                                              sampled sizes (1 B .. 16 MiB) of
 *                                              ALG's prediction, over the least
 *                                              such mean of any method, %.4g
 *
 * MODEL: a pLogP table or a tuning result (acct_whatif_model_file). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/model_space.h"
#include "acct/model_whatif.h"

int main(int argc, char **argv)
{
    struct acct_model mdl;
    struct acct_diags d = ACCT_DIAGS_INIT;
    struct acct_model_pred *pr = NULL;
    enum acct_coll_id coll;
    size_t n = 0;
    char m[160];

    if (argc < 6 || acct_coll_from_name(argv[2], &coll) != 0) {
        fprintf(stderr, "usage: whatif_expect rank|penalty COLL P M MODEL [ALG]\n");
        return 2;
    }
    int p = atoi(argv[3]);
    uint64_t bytes = strtoull(argv[4], NULL, 10);
    if (acct_whatif_model_file(argv[5], &mdl, NULL, &d) != 0) {
        acct_diags_print(&d, stderr);
        return 2;
    }
    if (acct_model_rank(coll, p, bytes, false, &mdl, 0, 0, &pr, &n) != 0 || n == 0)
        return 2;
    if (strcmp(argv[1], "rank") == 0) {
        for (size_t i = 0; i < n; i++) {
            acct_decision_format(&pr[i].d, m, sizeof(m));
            if (isnan(pr[i].t_us))
                printf("%s\t-\n", m);
            else
                printf("%s\t%.6g\n", m, pr[i].t_us);
        }
    } else if (strcmp(argv[1], "penalty") == 0 && argc == 7) {
        struct acct_decision dec = { .alg = acct_alg_find(coll, argv[6]) };
        if (dec.alg == NULL)
            return 2;
        printf("%.4g\n", acct_model_predict(coll, &dec, p, bytes, &mdl) / pr[0].t_us);
    } else if (strcmp(argv[1], "sized") == 0 && argc == 7) {
        struct acct_decision dec = { .alg = acct_alg_find(coll, argv[6]) };
        uint64_t ms[80];
        size_t nm = acct_check_samples(1, UINT64_MAX, ACCT_CHECK_DEFAULT_MAX_BYTES,
                                       ACCT_CHECK_SAMPLES, ms);
        char names[64][160];
        double sums[64] = { 0 }, logalg = 0;
        size_t counts[64] = { 0 }, nn = 0;
        if (dec.alg == NULL)
            return 2;
        for (size_t j = 0; j < nm; j++) {
            struct acct_model_pred *r = NULL;
            size_t nr = 0;
            if (acct_model_rank(coll, p, ms[j], false, &mdl, 0, 0, &r, &nr) != 0)
                return 2;
            for (size_t i = 0; i < nr && isfinite(r[i].t_us); i++) {
                acct_decision_format(&r[i].d, m, sizeof(m));
                size_t k = 0;
                while (k < nn && strcmp(names[k], m) != 0)
                    k++;
                if (k == nn) {
                    if (nn == 64)
                        return 2;
                    snprintf(names[nn++], sizeof names[0], "%s", m);
                }
                if (counts[k] == j) {
                    sums[k] += log(r[i].t_us);
                    counts[k]++;
                }
            }
            logalg += log(acct_model_predict(coll, &dec, p, ms[j], &mdl));
            free(r);
        }
        double least = INFINITY;
        for (size_t k = 0; k < nn; k++)
            if (counts[k] == nm && sums[k] < least)
                least = sums[k];
        printf("%.4g\n", exp((logalg - least) / (double)nm));
    } else {
        return 2;
    }
    free(pr);
    acct_diags_free(&d);
    return 0;
}
