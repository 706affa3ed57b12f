/* Unit tests of acct-tune's MPI-free parts: options, the grid (methods,
 * segments), --used files and the resume journal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acct_test.h"

#include "acct/alg.h"
#include "tune.h"


static char dir[] = "/tmp/acct-tune-test-XXXXXX";

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

static int parse(const char *line, int world, struct tune_opts *o, char *err, size_t len)
{
    char buf[512];
    char *argv[32];
    int argc = 0;

    snprintf(buf, sizeof(buf), "acct-tune %s", line);
    for (char *t = strtok(buf, " "); t != NULL && argc < 31; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    return tune_opts_parse(argc, argv, world, o, err, len);
}

static void test_options(void **state)
{
    (void)state;
    struct tune_opts o;
    char err[TUNE_ERRLEN];

    acct_assert(parse("", 8, &o, err, sizeof(err)) == TUNE_EXIT_OK, "defaults: %s", err);
    acct_assert(o.comm_sizes.n == 5 && o.comm_sizes.v[0] == 2 && o.comm_sizes.v[1] == 3 &&
              o.comm_sizes.v[3] == 6 && o.comm_sizes.v[4] == 8,
          "default comm sizes on 8 ranks: 2,3,4,6,8 (got %zu)", o.comm_sizes.n);
    acct_assert(o.sizes.n == 18 && o.sizes.v[0] == 8 && o.sizes.v[17] == 1048576, "default sizes");
    acct_assert(o.strategy == TUNE_SMGD && o.primary == TUNE_PRIMARY_FULL, "default strategy");
    tune_opts_free(&o);

    acct_assert(parse("--budget 10m --sizes 64K,8,8 --strategy reduced", 4, &o, err, sizeof(err)) ==
              TUNE_EXIT_OK && o.budget_s == 600.0 && o.sizes.n == 2 && o.sizes.v[0] == 8 &&
              o.primary == TUNE_PRIMARY_REDUCED,
          "budget, sorted unique sizes, reduced: %s", err);
    tune_opts_free(&o);
    acct_assert(parse("--source hybrid", 4, &o, err, sizeof(err)) == TUNE_EXIT_OK &&
              o.strategy == TUNE_HYBRID && strcmp(o.strategy_word, "hybrid") == 0,
          "--source hybrid implies the hybrid strategy");
    tune_opts_free(&o);
    acct_assert(parse("--strategy plane", 4, &o, err, sizeof(err)) == TUNE_EXIT_OK &&
              o.primary == TUNE_PRIMARY_PLANE && o.strategy == TUNE_SMGD &&
              o.row_stride == 2 && o.col_stride == 2 && o.keep < 0 && o.check == 0.2 &&
              strcmp(o.strategy_word, "plane") == 0,
          "--strategy plane and its defaults: %s", err);
    tune_opts_free(&o);
    acct_assert(parse("--strategy plane --source hybrid --row-stride 3 --col-stride 4 --keep 0.5 "
                "--check 0", 4, &o, err, sizeof(err)) == TUNE_EXIT_OK &&
              o.strategy == TUNE_HYBRID && strcmp(o.strategy_word, "plane") == 0 &&
              o.row_stride == 3 && o.col_stride == 4 && o.keep == 0.5 && o.check == 0.0,
          "plane with hybrid searches keeps its word; strides, keep, check: %s", err);
    tune_opts_free(&o);
    acct_assert(parse("--source model --plogp-out p.txt", 4, &o, err, sizeof(err)) == TUNE_EXIT_OK &&
              o.plogp_out != NULL && strcmp(o.plogp_out, "p.txt") == 0,
          "--plogp-out with --source model");
    tune_opts_free(&o);
    acct_assert(parse("--plogp-out p.txt", 4, &o, err, sizeof(err)) == TUNE_EXIT_OK &&
                    o.max_comm_size == TUNE_DEFAULT_MAX_COMM &&
                    o.extrap_margin == ACCT_EXTRAP_MARGIN,
                "--plogp-out with a measured run (the model is always measured); the model "
                "regions' defaults: %s", err);
    tune_opts_free(&o);
    acct_assert(parse("", 4, &o, err, sizeof(err)) == TUNE_EXIT_OK &&
                    o.eager_mode == TUNE_EAGER_AUTO,
                "--eager-limits: auto by default");
    tune_opts_free(&o);
    acct_assert(parse("--race 2 --eager-limits none", 4, &o, err, sizeof(err)) == TUNE_EXIT_OK &&
                    o.eager_mode == TUNE_EAGER_NONE && o.eager.n == 0,
                "--eager-limits none: %s", err);
    tune_opts_free(&o);
    acct_assert(parse("--race 2 --eager-limits 64K,4K,4K", 4, &o, err, sizeof(err)) ==
                        TUNE_EXIT_OK &&
                    o.eager_mode == TUNE_EAGER_LIST && o.eager.n == 2 && o.eager.v[0] == 4096 &&
                    o.eager.v[1] == 65536,
                "--eager-limits 64K,4K,4K: sorted, unique: %s", err);
    tune_opts_free(&o);
    acct_assert(parse("--max-comm-size 0 --extrap-margin 1.5", 4, &o, err, sizeof(err)) ==
                        TUNE_EXIT_OK &&
                    o.max_comm_size == 0 && o.extrap_margin == 1.5,
                "--max-comm-size 0 (no model regions), --extrap-margin: %s", err);
    tune_opts_free(&o);

    static const struct {
        const char *args, *msg;
    } bad[] = {
        { "--strategy bogus", "--strategy: unknown strategy \"bogus\"" },
        { "--comm-sizes 2,5", "--comm-sizes: 5 is larger than the number of ranks (4)" },
        { "--sizes 2M", "--sizes: 2097152 is larger than --max-bytes" },
        { "--budget 5x", "--budget: \"5x\" is not a duration" },
        { "--collectives bcast,bcats", "--collectives: unknown collective \"bcats\"" },
        { "--partition a/b", "--partition: \"a/b\" is not a name" },
        { "--reps 0", "--reps: \"0\" is not an integer" },
        { "--strategy used", "--strategy used needs --used FILE" },
        { "--max-comm-size 1048577", "--max-comm-size: \"1048577\" is not an integer from 0 to 1048576" },
        { "--max-comm-size -1", "--max-comm-size: \"-1\"" },
        { "--extrap-margin 0.9", "--extrap-margin: \"0.9\"" },
        { "--extrap-margin 101", "--extrap-margin: \"101\"" },
        { "--bogus", "unknown option --bogus" },
        { "--out", "option --out needs a value" },
        { "--max-bytes 4G", "does not fit an MPI count" },
        { "--strategy plane --source model", "--strategy plane measures" },
        { "--row-stride 0", "--row-stride: \"0\" is not an integer" },
        { "--col-stride 65", "--col-stride: \"65\" is not an integer" },
        { "--keep -1", "--keep: \"-1\"" },
        { "--check x", "--check: \"x\"" },
        { "--eager-limits 1", "--eager-limits: 1 is below 2 bytes" },
        { "--eager-limits fast", "--eager-limits: " },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        int rc = parse(bad[i].args, 4, &o, err, sizeof(err));
        acct_assert(rc == TUNE_EXIT_USAGE && strstr(err, bad[i].msg) != NULL,
              "\"%s\": rc %d, message \"%s\"", bad[i].args, rc, err);
        tune_opts_free(&o);
    }
}

static void test_grid(void **state)
{
    (void)state;
    uint64_t segs[40];
    size_t n = tune_segments(65536, 1024, 12, segs);

    acct_assert(n == 7 && segs[0] == 0 && segs[1] == 32768 && segs[6] == 1024,
          "segments of 64K from 1K: 0,32K..1K (got %zu)", n);
    acct_assert(tune_segments(1024, 1024, 12, segs) == 1, "no segment below the minimum");
    acct_assert(tune_segments(1048576, 1024, 4, segs) == 4 && segs[3] == 131072, "max segments");

    /* the eager probe's segments: the largest power of two below each
     * limit (Open MPI's vader 4096 -> 2K, tcp 65536 -> 32K, openib 12288
     * -> 8K), distinct, descending; a limit below 2 gives none */
    const uint64_t lim[] = { 4096, 65536, 12288, 4097, 1, 3 };
    uint64_t es[6];
    size_t ne = tune_eager_segments(lim, 6, es);
    acct_assert(ne == 5 && es[0] == 32768 && es[1] == 8192 && es[2] == 4096 && es[3] == 2048 &&
                    es[4] == 2,
                "eager segments: got %zu (%llu %llu %llu %llu)", ne, (unsigned long long)es[0],
                (unsigned long long)es[1], (unsigned long long)es[2], (unsigned long long)es[3]);
    acct_assert(tune_eager_segments(lim, 0, es) == 0, "no limits, no segments");

    struct tune_method *m = NULL;
    size_t nm = 0;
    acct_assert(tune_methods(ACCT_COLL_bcast, 3, false, &m, &nm) == 0 && nm > 0, "bcast methods");
    for (size_t i = 0; i < nm; i++) {
        acct_assert(!(m[i].d.alg->flags & ACCT_ALG_NODES), "node-aware method without nodes");
        acct_assert(m[i].d.alg->coll == ACCT_COLL_bcast, "method of another collective");
        acct_assert(!(m[i].d.alg->flags & ACCT_ALG_POW2), "power-of-two method on 3 ranks");
        acct_assert(!(m[i].d.alg->flags & ACCT_ALG_FANOUT) || m[i].d.fanout < 3,
              "fan-out %d not below 3", m[i].d.fanout);
        acct_assert((m[i].proxy == 0) == ((m[i].d.alg->flags & ACCT_ALG_SEGMENTED) != 0),
              "bcast segmented methods have the pipeline proxy");
    }
    free(m);
    acct_assert(tune_methods(ACCT_COLL_alltoall, 4, false, &m, &nm) == 0 && nm >= 4,
                "alltoall methods");
    for (size_t i = 0; i < nm; i++)
        acct_assert(m[i].proxy == -1, "alltoall has no proxy");
    free(m);

    /* node-aware methods: only with nodes, then every registered one, each
     * applicable on its size alone */
    size_t flat = 0, hier = 0;
    acct_assert(tune_methods(ACCT_COLL_allreduce, 8, false, &m, &flat) == 0, "allreduce flat");
    free(m);
    acct_assert(tune_methods(ACCT_COLL_allreduce, 8, true, &m, &nm) == 0, "allreduce nodes");
    for (size_t i = 0; i < nm; i++)
        if (m[i].d.alg->flags & ACCT_ALG_NODES) {
            hier++;
            acct_assert(tune_applicable(ACCT_COLL_allreduce, &m[i].d, 8, 1 << 20),
                        "%s not applicable on 8 ranks", m[i].d.alg->name);
        }
    size_t registered = 0; /* the registry's node-aware allreduces */
    for (int i = 0; i < acct_alg_count(); i++)
        registered += acct_algs[i].coll == ACCT_COLL_allreduce &&
                      (acct_algs[i].flags & ACCT_ALG_NODES);
    acct_assert(registered >= 5 && hier == registered && nm == flat + registered,
                "allreduce: %zu node-aware of %zu (flat %zu, registered %zu)", hier, nm, flat,
                registered);
    free(m);

    /* the layouts that call for them: two nodes or more, one with two ranks or more */
    const int pairs[] = { 0, 0, 1, 1 }, spread[] = { 0, 1, 2, 3 }, one[] = { 5, 5, 5, 5 },
              uneven[] = { 0, 1, 1, 2 };
    acct_assert(tune_nodes_among(pairs, 4) && !tune_nodes_among(pairs, 2), "pairs");
    acct_assert(!tune_nodes_among(spread, 4), "one rank per node");
    acct_assert(!tune_nodes_among(one, 4), "one node");
    acct_assert(tune_nodes_among(uneven, 4) && !tune_nodes_among(uneven, 2), "uneven");
}

static void test_used(void **state)
{
    (void)state;
    char path[256], err[TUNE_ERRLEN];
    struct tune_used_point *pts = NULL;
    size_t n = 0;

    snprintf(path, sizeof(path), "%s/used.txt", dir);
    write_file(path, "# points\nbcast 8 64K\n\n  allreduce 4 8   # small\nbarrier 16 0\n");
    acct_assert(tune_used_parse(path, &pts, &n, err, sizeof(err)) == 0 && n == 3 &&
              pts[0].coll == ACCT_COLL_bcast && pts[0].comm_size == 8 &&
              pts[0].bytes == 65536 && pts[1].bytes == 8 && pts[2].coll == ACCT_COLL_barrier,
          "used file: %s", err);
    free(pts);
    static const struct {
        const char *text, *msg;
    } bad[] = {
        { "bcast 8 64K\nbcats 8 1K\n", ":2:1: collective: unknown collective \"bcats\"" },
        { "bcast x 1K\n", ":1:7: comm_size: not an integer >= 2: \"x\"" },
        { "bcast 8 12Q\n", ":1:9: bytes: not a size: \"12Q\"" },
        { "bcast 8\n", ":1:1: bytes: missing" },
        { "bcast 8 1K extra\n", ":1:12: line: unexpected text after BYTES" },
        { "# nothing\n", "no points" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        write_file(path, bad[i].text);
        err[0] = '\0';
        acct_assert(tune_used_parse(path, &pts, &n, err, sizeof(err)) == -1 && pts == NULL &&
                  strstr(err, bad[i].msg) != NULL,
              "used file %zu: \"%s\"", i, err);
    }
}

static struct tune_record rec(int p, uint64_t bytes, uint64_t seg, double med)
{
    struct tune_record r;
    memset(&r, 0, sizeof(r));
    r.coll = ACCT_COLL_bcast;
    r.comm_size = p;
    r.bytes = bytes;
    r.alg = acct_alg_index(acct_alg_find(ACCT_COLL_bcast, "binomial"));
    r.segment = seg;
    r.ok = 1;
    r.reps = 10;
    r.min_us = med * 0.9;
    r.q1_us = med * 0.95;
    r.median_us = med;
    r.q3_us = med * 1.05;
    r.max_us = med * 1.1;
    return r;
}

static void test_state(void **state)
{
    (void)state;
    char path[256], err[TUNE_ERRLEN];
    struct tune_state s;
    struct tune_record a = rec(4, 65536, 8192, 123.456789012345678);
    struct tune_record b = rec(4, 1024, 0, 7.25);

    snprintf(path, sizeof(path), "%s/state.txt", dir);
    acct_assert(tune_state_open(&s, path, 42, err, sizeof(err)) == 0 && s.n == 0, "new: %s", err);
    acct_assert(tune_state_append(&s, &a) == 0 && tune_state_append(&s, &b) == 0 &&
              tune_state_sync(&s) == 0, "append");
    tune_state_close(&s);
    /* a kill in the middle of a line */
    FILE *f = fopen(path, "a");
    fputs("m bcast 4 8 binomial 0 0 1 10 1.5 1.", f);
    fclose(f);
    acct_assert(tune_state_open(&s, path, 42, err, sizeof(err)) == 0 && s.n == 2, "reload: %s (n %zu)",
          err, s.n);
    const struct tune_record *hit = tune_state_find(&s, &a);
    acct_assert(hit != NULL && hit->median_us == a.median_us && hit->q3_us == a.q3_us,
          "exact replay of the numbers");
    struct tune_record c = rec(4, 8, 0, 1.0);
    acct_assert(tune_state_find(&s, &c) == NULL, "the torn record is gone");
    tune_state_close(&s);
    f = fopen(path, "r");
    char line[512];
    int lines = 0, torn = 0;
    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        lines++;
        torn |= line[strlen(line) - 1] != '\n';
    }
    if (f != NULL)
        fclose(f);
    acct_assert(lines == 3 && !torn, "rewritten without the torn line (%d lines)", lines);
    acct_assert(tune_state_open(&s, path, 43, err, sizeof(err)) == -1 &&
              strstr(err, ":1:1: recorded with other --reps") != NULL,
          "other fingerprint refused: %s", err);
    write_file(path, "acct-tune-state 1 000000000000002a\nm bcast 4 8 nosuch 0 0 1 10 1 1 1 1 1\n");
    acct_assert(tune_state_open(&s, path, 42, err, sizeof(err)) == -1 &&
              strstr(err, ":2:1: invalid record") != NULL, "bad record: %s", err);
    write_file(path, "acct-tune-state 1 000000000000002a\nm bcast 4 8 binomial 0 0 1 10 5 1 1 1 1\n");
    acct_assert(tune_state_open(&s, path, 42, err, sizeof(err)) == -1, "unordered quartiles accepted");
    write_file(path, "something else\n");
    acct_assert(tune_state_open(&s, path, 42, err, sizeof(err)) == -1 &&
              strstr(err, "not an acct-tune state file") != NULL, "not a state file: %s", err);
}

int main(void)
{
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options), cmocka_unit_test(test_grid),
        cmocka_unit_test(test_used),    cmocka_unit_test(test_state),
    };
    int failed = cmocka_run_group_tests_name("test_tune", tests, NULL, NULL);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return failed == 0 ? 0 : 1;
}
