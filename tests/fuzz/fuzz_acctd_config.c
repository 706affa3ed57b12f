/* libFuzzer target for acctd's configuration and policy parsers
 * (docs/acctd.md): no crash, no leak; the first byte picks the parser. A
 * refusal always carries at least one diagnostic, an acceptance none. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct acct_diags d = ACCT_DIAGS_INIT;
    if (size == 0)
        return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    int rc;
    if (data[0] & 1) {
        struct policy p;
        policy_builtin(&p);
        rc = policy_parse("fuzz.yaml", text, len, &p, &d);
        if (rc == 0 && (p.min_users < 2 || p.min_jobs < 2 || p.significance <= 0 ||
                        p.significance > 0.5 || p.min_gain < 0 || p.min_gain > 0.99))
            abort();
    } else {
        struct acctd_config c;
        acctd_config_defaults(&c);
        rc = acctd_config_parse(&c, "fuzz.yaml", text, len, &d);
        if (rc == 0 && (c.max_clients < 1 || c.client_timeout_s < 1 ||
                        (c.state_dir[0] != '/') || c.socket_mode > 0777))
            abort();
    }
    if ((rc == 0) != (d.total == 0))
        abort();
    acct_diags_free(&d);
    return 0;
}
