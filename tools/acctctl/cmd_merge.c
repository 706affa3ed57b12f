/* acctctl merge: one layout-bound rules file from rules files tuned at
 * different ranks per node (docs/acctctl.md "acctctl merge", issue 20).
 *
 * Input i was tuned with R_i ranks per node (its provenance.layout); with
 * the inputs sorted by R, input i's rules cover ranks per node
 * [R_i, R_{i+1} - 1] and the last one's [R_k, max], each rule's own
 * ranks_per_node range (if any) intersected with that. Fewer ranks per
 * node than the lowest run's, and communicators whose layout is unknown,
 * are covered by no rule (native): nothing is extended to layouts no run
 * measured. The output is checked by parsing it again before it is
 * written. */
#include "acctctl.h"

#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acct/rules.h"

#define MERGE_MAX_INPUTS ACCT_RULES_RUNS_MAX /* one provenance.runs entry each */

struct input {
    const char *path;
    struct acct_rules *r;
    int rpn; /* the ranks per node it was tuned with */
};

static int by_rpn(const void *a, const void *b)
{
    const struct input *x = a, *y = b;
    return (x->rpn > y->rpn) - (x->rpn < y->rpn);
}

/* Load and check one input; prints its problems as FILE: FIELD: message. */
static bool load(struct input *in)
{
    struct acct_diags diags = ACCT_DIAGS_INIT;
    int rc = acct_rules_parse_file(in->path, &in->r, &diags);
    acct_diags_print(&diags, stderr);
    acct_diags_free(&diags);
    if (rc != ACCT_RULES_OK) {
        fprintf(stderr, "acctctl merge: %s: not a valid rules file\n", in->path);
        return false;
    }
    const struct acct_provenance *p = &in->r->prov;
    if (p->ranks_per_node_min < 1 || p->ranks_per_node_min != p->ranks_per_node_max) {
        fprintf(stderr,
                "%s: provenance.layout.ranks_per_node: %s (merge needs the single ranks per "
                "node the file was tuned with)\n",
                in->path, p->ranks_per_node_min < 1 ? "missing" : "a range");
        return false;
    }
    in->rpn = p->ranks_per_node_min;
    return true;
}

/* Do the inputs belong together? Every problem is printed. */
static bool compatible(const struct input *in, int n)
{
    bool ok = true;
    const struct acct_provenance *a = &in[0].r->prov;
    for (int i = 1; i < n; i++) {
        const struct acct_provenance *b = &in[i].r->prov;
        if (strcmp(a->partition, b->partition) != 0 || strcmp(a->interconnect, b->interconnect) != 0) {
            fprintf(stderr, "%s: provenance: %s/%s, but %s is %s/%s (merge one pair's runs)\n",
                    in[i].path, b->partition, b->interconnect, in[0].path, a->partition,
                    a->interconnect);
            ok = false;
        }
        if (in[i].rpn == in[i - 1].rpn) {
            fprintf(stderr, "%s: provenance.layout.ranks_per_node: %d, as %s (one run per ranks per node)\n",
                    in[i].path, in[i].rpn, in[i - 1].path);
            ok = false;
        }
        if (a->model.present && b->model.present && memcmp(&a->model, &b->model, sizeof a->model) != 0) {
            fprintf(stderr,
                    "%s: provenance.model: differs from %s's (a rules file names one model for "
                    "its modelled rules; merge runs of one calibration, or retune)\n",
                    in[i].path, in[0].path);
            ok = false;
        }
    }
    return ok;
}

/* The merged rules (into an empty copy of the first input). */
static struct acct_rules *merge(const struct input *in, int n)
{
    struct acct_rules *out = acct_rules_copy(in[0].r);
    if (out == NULL)
        return NULL;
    for (int c = 0; c < ACCT_COLL_COUNT; c++)
        out->coll[c].n = 0;
    out->nrules = 0;
    for (int c = 0; c < ACCT_COLL_COUNT; c++) {
        size_t total = 0;
        for (int i = 0; i < n; i++)
            total += in[i].r->coll[c].n;
        free(out->coll[c].v);
        out->coll[c].v = total ? calloc(total, sizeof *out->coll[c].v) : NULL;
        if (total && out->coll[c].v == NULL) {
            acct_rules_free(out);
            return NULL;
        }
        for (int i = 0; i < n; i++) {
            const int lo = in[i].rpn, hi = i + 1 < n ? in[i + 1].rpn - 1 : INT_MAX;
            for (size_t k = 0; k < in[i].r->coll[c].n; k++) {
                struct acct_rule r = in[i].r->coll[c].v[k];
                int rlo = r.rpn_min ? r.rpn_min : 1, rhi = r.rpn_min ? r.rpn_max : INT_MAX;
                rlo = rlo > lo ? rlo : lo;
                rhi = rhi < hi ? rhi : hi;
                if (rlo > rhi) /* the run's own rule for other layouts */
                    continue;
                r.rpn_min = rlo;
                r.rpn_max = rhi;
                r.line = r.col = 0;
                out->coll[c].v[out->coll[c].n++] = r;
                out->nrules++;
            }
        }
    }
    /* Provenance: the pair, every run's layout, the newest version. */
    struct acct_provenance *p = &out->prov;
    p->ranks_per_node_min = in[0].rpn;
    p->ranks_per_node_max = in[n - 1].rpn;
    p->tuning_run[0] = '\0';
    for (int i = 0; i < n; i++) {
        const struct acct_provenance *q = &in[i].r->prov;
        if (q->version > p->version)
            p->version = q->version;
        if (q->placement != p->placement)
            p->placement = ACCT_PLACEMENT_MIXED;
        if (q->source != p->source)
            p->source = ACCT_SOURCE_MEASURED;
        if (q->model.present && !p->model.present)
            p->model = q->model;
    }
    /* provenance.runs: the run behind each layout, so that acctd finds the
     * model to check each layout's rules with; only when every input names
     * its run (a layout with no run would borrow its neighbour's) */
    p->nruns = 0;
    bool all_named = true;
    for (int i = 0; i < n; i++)
        all_named = all_named && in[i].r->prov.tuning_run[0] != '\0';
    for (int i = 0; all_named && i < n; i++) {
        p->runs[i].ranks_per_node = in[i].rpn;
        snprintf(p->runs[i].run, sizeof p->runs[i].run, "%s", in[i].r->prov.tuning_run);
        p->nruns++;
    }
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm) != NULL)
        strftime(p->created, sizeof p->created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return out;
}

/* Write r to path ("-": stdout) after parsing the text once more. */
static int emit(const struct acct_rules *r, const char *path)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (mem == NULL || acct_rules_write(mem, r) != 0 || fclose(mem) != 0) {
        free(buf);
        fprintf(stderr, "acctctl merge: out of memory\n");
        return ACCTCTL_FAIL;
    }
    struct acct_diags diags = ACCT_DIAGS_INIT;
    struct acct_rules *check = NULL;
    int rc = acct_rules_parse_buffer(path, buf, len, &check, &diags);
    if (rc != ACCT_RULES_OK) { /* a bug, not bad input: say everything */
        acct_diags_print(&diags, stderr);
        fprintf(stderr, "acctctl merge: the merged rules do not parse; nothing written\n");
    }
    acct_rules_free(check);
    acct_diags_free(&diags);
    if (rc == ACCT_RULES_OK) {
        FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
        if (f == NULL || fwrite(buf, 1, len, f) != len || (f != stdout && fclose(f) != 0)) {
            fprintf(stderr, "acctctl merge: cannot write %s\n", path);
            rc = -1;
        }
    }
    free(buf);
    return rc == ACCT_RULES_OK ? ACCTCTL_OK : ACCTCTL_FAIL;
}

/* Which run covers which ranks per node (standard error). */
static void report_cover(const struct input *in, int n)
{
    for (int i = 0; i < n; i++) {
        char hi[16] = "max";
        if (i + 1 < n)
            snprintf(hi, sizeof hi, "%d", in[i + 1].rpn - 1);
        fprintf(stderr, "acctctl merge: %s (run %s) covers ranks_per_node [%d, %s]\n", in[i].path,
                in[i].r->prov.tuning_run[0] ? in[i].r->prov.tuning_run : "not named", in[i].rpn, hi);
    }
}

int acctctl_cmd_merge(int argc, char **argv)
{
    static const struct option opts[] = {
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *out_path = "-";
    int ch;

    opterr = 0;
    optind = 1;
    while ((ch = acctctl_getopt(argc, argv, "+o:h", opts)) != -1) {
        switch (ch) {
        case 'o':
            out_path = optarg;
            break;
        case 'h':
            acctctl_command_usage(argv[0], stdout);
            return ACCTCTL_OK;
        default:
            return acctctl_usage_error(argv[0], "unknown option %s", argv[optind - 1]);
        }
    }
    const int n = argc - optind;
    if (n < 2)
        return acctctl_usage_error(argv[0], "give at least two rules files");
    if (n > MERGE_MAX_INPUTS)
        return acctctl_usage_error(argv[0], "at most %d files", MERGE_MAX_INPUTS);

    struct input in[MERGE_MAX_INPUTS] = {{0}};
    bool ok = true;
    for (int i = 0; i < n; i++) {
        in[i].path = argv[optind + i];
        ok = load(&in[i]) && ok;
    }
    /* The files that loaded are checked against each other even when
     * another did not, so that one run names every problem. */
    int nloaded = 0;
    for (int i = 0; i < n; i++)
        if (in[i].r != NULL && in[i].rpn > 0)
            in[nloaded++] = in[i];
        else
            acct_rules_free(in[i].r);
    int rc = ACCTCTL_FAIL;
    qsort(in, (size_t)nloaded, sizeof *in, by_rpn);
    if (nloaded > 1 && compatible(in, nloaded) && ok) {
        struct acct_rules *m = merge(in, n);
        if (m == NULL)
            fprintf(stderr, "acctctl merge: out of memory\n");
        else if ((rc = emit(m, out_path)) == ACCTCTL_OK)
            report_cover(in, n);
        acct_rules_free(m);
    }
    for (int i = 0; i < nloaded; i++)
        acct_rules_free(in[i].r);
    return rc;
}
