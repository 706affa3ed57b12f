/* libFuzzer target for ACCT_FORCE parsing: no crash, no leak, and the
 * canonical text of what was accepted parses back to the same thing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct/force.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[ACCT_FORCE_MAX_LEN + 64];
    char out[ACCT_FORCE_MAX_LEN + 64];
    struct acct_force f, g;
    struct acct_diags d = ACCT_DIAGS_INIT;

    if (size >= sizeof(text))
        size = sizeof(text) - 1;
    memcpy(text, data, size);
    text[size] = '\0'; /* an environment variable ends at the first NUL */
    int bad = acct_force_parse(text, &f, &d);
    if (bad < 0 || (size_t)bad != d.total || f.count > ACCT_COLL_COUNT)
        abort();
    int n = acct_force_format(&f, out, sizeof(out));
    if (n < 0 || (size_t)n >= sizeof(out))
        abort();
    if (acct_force_parse(out, &g, NULL) != 0 || g.count != f.count)
        abort();
    for (int i = 0; i < ACCT_COLL_COUNT; i++)
        if (f.forced[i] != g.forced[i] ||
            (f.forced[i] && !acct_decision_equal(&f.d[i], &g.d[i])))
            abort();
    acct_diags_free(&d);
    return 0;
}
