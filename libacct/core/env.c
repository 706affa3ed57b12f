/* Reading ACCT's environment variables. */
#include "acct/env.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "acct/common.h"

static const struct {
    const char *word;
    bool value;
} bool_words[] = {
    {"1", true},       {"0", false},       {"yes", true},      {"no", false},
    {"on", true},      {"off", false},     {"true", true},     {"false", false},
    {"enable", true},  {"disable", false}, {"enabled", true},  {"disabled", false},
};

int acct_parse_bool(const char *text, bool *out)
{
    int rc = -1;
    if (text == NULL || out == NULL)
        goto done;
    while (isspace((unsigned char)*text))
        text++;
    size_t len = strlen(text);
    while (len > 0 && isspace((unsigned char)text[len - 1]))
        len--;
    for (size_t i = 0; i < ACCT_ARRAY_LEN(bool_words); i++) {
        if (strlen(bool_words[i].word) == len && strncasecmp(text, bool_words[i].word, len) == 0) {
            *out = bool_words[i].value;
            rc = 0;
            break;
        }
    }
done:
    return rc;
}

/* An empty variable counts as unset. */
static const char *env_value(const char *name)
{
    const char *v = getenv(name);
    return (v != NULL && *v != '\0') ? v : NULL;
}

enum acct_env_state acct_env_state(const char **why)
{
    enum acct_env_state state = ACCT_ENV_ON;
    const char *reason = NULL;
    bool flag;
    const char *v = env_value("ACCT_DISABLE");

    if (v != NULL) {
        if (acct_parse_bool(v, &flag) != 0) {
            state = ACCT_ENV_INVALID;
            reason = "ACCT_DISABLE is not a boolean (1/0, yes/no, on/off); ACCT stays off";
        } else if (flag) {
            state = ACCT_ENV_OFF;
            reason = "ACCT_DISABLE is set";
        }
    }
    v = env_value("ACCT");
    if (state == ACCT_ENV_ON && v != NULL) {
        if (acct_parse_bool(v, &flag) != 0) {
            state = ACCT_ENV_INVALID;
            reason = "ACCT is not on/off; ACCT stays off";
        } else if (!flag) {
            state = ACCT_ENV_OFF;
            reason = "ACCT=off is set";
        }
    }
    if (why != NULL)
        *why = reason;
    return state;
}

int acct_env_launcher_rank(void)
{
    static const char *const names[] = {
        "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID",
    };
    int rank = -1;
    for (size_t i = 0; i < ACCT_ARRAY_LEN(names) && rank < 0; i++) {
        const char *v = env_value(names[i]);
        if (v == NULL)
            continue;
        char *end = NULL;
        errno = 0;
        long r = strtol(v, &end, 10);
        if (errno == 0 && end != v && *end == '\0' && r >= 0 && r <= 0x7fffffffL)
            rank = (int)r;
    }
    return rank;
}
