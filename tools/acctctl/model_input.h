/* What whatif and check ask about (docs/acctctl.md, "acctctl whatif"): a
 * version's rules and the model of its tuning run, from acctd (SHOW and
 * GET_MODEL) or from files (--rules, --model), in any mix. */
#ifndef ACCTCTL_MODEL_INPUT_H
#define ACCTCTL_MODEL_INPUT_H

#include <stdint.h>

#include "acct/model.h"
#include "acct/rules.h"
#include "client.h"

struct acctctl_mi {
    struct acct_rules *rules; /* owned */
    struct acct_model mdl;
    char rules_from[256];     /* "eth/tcp-1g version 3", or the file */
    char model_from[600];     /* "tuning run R of version 3 (LogGP L 50 o 5 g 5 G 0.008)", or the file */
};

/* Load the rules (rules_file, else acctd: version, or the active one of c's
 * pair) and the model (model_file, else acctd's GET_MODEL of that version;
 * of rules merged from several runs, the run behind ranks per node rpn, 0:
 * the lowest layout's). Prints every problem; returns 0, or -1 (the
 * commands then exit 2). */
int acctctl_mi_load(const struct acctctl_common *c, uint64_t version, int rpn,
                    const char *rules_file, const char *model_file, struct acctctl_mi *mi);
void acctctl_mi_free(struct acctctl_mi *mi);

/* A comma-separated list of sizes with units ("64,1K,1M"; "2:1M" is every
 * power of two from 2 to 1M; ends included) into out (at most max values),
 * each in [lo, hi]. Returns the count, or -1 with a message in err. */
int acctctl_size_list(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, int max,
                      char *err, size_t errlen);

#endif
