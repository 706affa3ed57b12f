/* acctctl algorithms: the algorithm registry as a table, TSV or JSON. */
#include "acctctl.h"

#include <getopt.h>
#include <stdbool.h>
#include <string.h>

#include "acct/alg.h"
#include "acct/common.h"
#include "output.h"

/* Every flag of acct/alg.h as a word; bits missing here print as 0xNN. */
static const struct {
    unsigned bit;
    const char *word;
} flag_words[] = {
    { ACCT_ALG_NATIVE, "native" },
    { ACCT_ALG_SEGMENTED, "segmented" },
    { ACCT_ALG_FANOUT, "fanout" },
    { ACCT_ALG_COMMUTATIVE, "commutative-only" },
    { ACCT_ALG_POW2, "power-of-two" },
    { ACCT_ALG_COUNT_GE_SIZE, "count-ge-size" },
    { ACCT_ALG_REORDER, "reorder" },
    { ACCT_ALG_NODES, "node-aware" },
    { ACCT_ALG_ALL_COUNTS, "counts-broadcast" },
    { ACCT_ALG_LEVELS, "layout-cost" },
};

/* "segmented,fanout", or "-" for none. */
static void flags_text(unsigned flags, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ACCT_ARRAY_LEN(flag_words); i++) {
        if (flags & flag_words[i].bit) {
            o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s", o > 0 ? "," : "",
                                  flag_words[i].word);
            flags &= ~flag_words[i].bit;
        }
    }
    if (flags != 0)
        o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s0x%x", o > 0 ? "," : "",
                              flags);
    if (o == 0)
        snprintf(buf, len, "-");
}

static void fanout_text(const struct acct_alg *a, char *buf, size_t len)
{
    if (a->flags & ACCT_ALG_FANOUT)
        snprintf(buf, len, "%d-%d (%d)", a->fanout_min, a->fanout_max, a->fanout_default);
    else
        snprintf(buf, len, "-");
}

static bool selected(const struct acct_alg *a, bool all, enum acct_coll_id coll)
{
    return all || a->coll == coll;
}

static void print_table(bool all, enum acct_coll_id coll)
{
    int wc = (int)strlen("COLLECTIVE"), wn = (int)strlen("ALGORITHM");
    int wf = (int)strlen("FLAGS"), wo = (int)strlen("FANOUT");
    char flags[128], fan[64];

    for (const struct acct_alg *a = acct_algs; a->name != NULL; a++) {
        if (!selected(a, all, coll))
            continue;
        flags_text(a->flags, flags, sizeof(flags));
        fanout_text(a, fan, sizeof(fan));
        int l = (int)strlen(acct_coll_name(a->coll));
        wc = l > wc ? l : wc;
        l = (int)strlen(a->name);
        wn = l > wn ? l : wn;
        l = (int)strlen(flags);
        wf = l > wf ? l : wf;
        l = (int)strlen(fan);
        wo = l > wo ? l : wo;
    }
    printf("%-*s  %-*s  %-*s  %-*s  %s\n", wc, "COLLECTIVE", wn, "ALGORITHM", wf, "FLAGS", wo,
           "FANOUT", "DESCRIPTION");
    for (const struct acct_alg *a = acct_algs; a->name != NULL; a++) {
        if (!selected(a, all, coll))
            continue;
        flags_text(a->flags, flags, sizeof(flags));
        fanout_text(a, fan, sizeof(fan));
        printf("%-*s  %-*s  %-*s  %-*s  %s\n", wc, acct_coll_name(a->coll), wn, a->name, wf,
               flags, wo, fan, a->description != NULL ? a->description : "");
    }
}

static void print_tsv(bool all, enum acct_coll_id coll)
{
    char flags[128];
    printf("collective\talgorithm\tflags\tfanout_min\tfanout_max\tfanout_default\tdescription\n");
    for (const struct acct_alg *a = acct_algs; a->name != NULL; a++) {
        if (!selected(a, all, coll))
            continue;
        flags_text(a->flags, flags, sizeof(flags));
        printf("%s\t%s\t%s\t", acct_coll_name(a->coll), a->name, flags);
        if (a->flags & ACCT_ALG_FANOUT)
            printf("%d\t%d\t%d\t", a->fanout_min, a->fanout_max, a->fanout_default);
        else
            printf("-\t-\t-\t");
        /* Descriptions are one line; keep the columns intact regardless. */
        for (const char *s = a->description != NULL ? a->description : ""; *s != '\0'; s++)
            putchar(*s == '\t' || *s == '\n' ? ' ' : *s);
        putchar('\n');
    }
}

static void print_json(bool all, enum acct_coll_id coll)
{
    bool first = true;
    printf("[");
    for (const struct acct_alg *a = acct_algs; a->name != NULL; a++) {
        if (!selected(a, all, coll))
            continue;
        printf("%s\n  {\"collective\": ", first ? "" : ",");
        first = false;
        acctctl_json_string(acct_coll_name(a->coll), stdout);
        printf(", \"name\": ");
        acctctl_json_string(a->name, stdout);
        printf(", \"flags\": [");
        unsigned rest = a->flags;
        bool firstf = true;
        for (size_t i = 0; i < ACCT_ARRAY_LEN(flag_words); i++) {
            if (a->flags & flag_words[i].bit) {
                printf("%s", firstf ? "" : ", ");
                acctctl_json_string(flag_words[i].word, stdout);
                firstf = false;
                rest &= ~flag_words[i].bit;
            }
        }
        if (rest != 0)
            printf("%s\"0x%x\"", firstf ? "" : ", ", rest);
        printf("], \"fanout\": ");
        if (a->flags & ACCT_ALG_FANOUT)
            printf("{\"min\": %d, \"max\": %d, \"default\": %d}", a->fanout_min,
                   a->fanout_max, a->fanout_default);
        else
            printf("null");
        printf(", \"description\": ");
        acctctl_json_string(a->description != NULL ? a->description : "", stdout);
        printf("}");
    }
    printf("%s]\n", first ? "" : "\n");
}

int acctctl_cmd_algorithms(int argc, char **argv)
{
    static const struct option opts[] = {
        { "collective", required_argument, NULL, 'c' },
        { "format", required_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    enum acctctl_format fmt = ACCTCTL_FMT_TABLE;
    enum acct_coll_id coll = ACCT_COLL_COUNT;
    bool all = true;
    int ch;

    opterr = 0;
    optind = 1;
    while ((ch = acctctl_getopt(argc, argv, ":c:f:h", opts)) != -1) {
        switch (ch) {
        case 'c':
            if (acct_coll_from_name(optarg, &coll) != 0) {
                char names[256];
                size_t o = 0;
                for (int i = 0; i < ACCT_COLL_COUNT; i++)
                    o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s",
                                          i > 0 ? ", " : "",
                                          acct_coll_name((enum acct_coll_id)i));
                return acctctl_usage_error(argv[0],
                                           "--collective: unknown collective \"%s\" (valid: %s)",
                                           optarg, names);
            }
            all = false;
            break;
        case 'f':
            if (acctctl_format_parse(optarg, &fmt) != 0)
                return acctctl_usage_error(argv[0],
                                           "--format: unknown format \"%s\" (valid: table, "
                                           "tsv, json)",
                                           optarg);
            break;
        case 'h':
            acctctl_command_usage(argv[0], stdout);
            return ACCTCTL_OK;
        case ':':
            return acctctl_usage_error(argv[0], "option %s needs a value", argv[optind - 1]);
        default:
            return acctctl_usage_error(argv[0], "unknown option %s", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return acctctl_usage_error(argv[0], "unexpected argument \"%s\"", argv[optind]);
    switch (fmt) {
    case ACCTCTL_FMT_TABLE: print_table(all, coll); break;
    case ACCTCTL_FMT_TSV: print_tsv(all, coll); break;
    case ACCTCTL_FMT_JSON: print_json(all, coll); break;
    }
    return fflush(stdout) == 0 && !ferror(stdout) ? ACCTCTL_OK : ACCTCTL_FAIL;
}
