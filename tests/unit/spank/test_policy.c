/* Unit test of spank_acct's decisions (policy.c): configuration arguments,
 * on/off precedence, step kinds, LD_PRELOAD editing. No Slurm needed. */
#include <stdio.h>
#include <string.h>

#include "acct_test.h"

#include "policy.h"

static char last[1024];
static int nwarn;

static void warn(void *ctx, const char *msg)
{
    (void)ctx;
    snprintf(last, sizeof(last), "%s", msg);
    nwarn++;
}

static int parse(struct acct_spank_conf *c, int ac, char *const *av)
{
    nwarn = 0;
    last[0] = '\0';
    int n = acct_spank_conf_parse(c, ac, av, "lib/x86_64-linux-gnu", warn, NULL);
    assert_true(n == nwarn);
    return n;
}

static void test_names(void **state)
{
    (void)state;
    assert_true(acct_proto_name_ok("eth", ACCT_SPANK_NAME_MAX));
    assert_true(acct_proto_name_ok("tcp-1g", ACCT_SPANK_NAME_MAX));
    assert_true(acct_proto_name_ok("a.b_c+d-e", ACCT_SPANK_NAME_MAX));
    assert_true(!acct_proto_name_ok("", ACCT_SPANK_NAME_MAX));
    assert_true(!acct_proto_name_ok(NULL, ACCT_SPANK_NAME_MAX));
    assert_true(!acct_proto_name_ok("../etc", ACCT_SPANK_NAME_MAX));
    /* "." and ".." are refused as acctd and the runtime refuse them (they
     * become a path component: rules/PARTITION/INTERCONNECT.yaml) */
    assert_true(!acct_proto_name_ok(".", ACCT_SPANK_NAME_MAX));
    assert_true(!acct_proto_name_ok("..", ACCT_SPANK_NAME_MAX));
    assert_true(acct_proto_name_ok("...", ACCT_SPANK_NAME_MAX));
    assert_true(!acct_proto_name_ok("a/b", ACCT_SPANK_NAME_MAX));
    assert_true(!acct_proto_name_ok("a b", ACCT_SPANK_NAME_MAX));
    char long_name[80];
    memset(long_name, 'x', 64);
    long_name[64] = '\0';
    assert_true(acct_proto_name_ok(long_name, ACCT_SPANK_NAME_MAX));
    long_name[64] = 'x';
    long_name[65] = '\0';
    assert_true(!acct_proto_name_ok(long_name, ACCT_SPANK_NAME_MAX));
}

static void test_conf(void **state)
{
    (void)state;
    struct acct_spank_conf c;

    assert_true(parse(&c, 0, NULL) == 0);
    assert_true(strcmp(c.lib, "/usr/lib/acct/libacct.so") == 0);
    assert_true(strcmp(c.lib_file, c.lib) == 0);
    assert_true(strcmp(c.rules_dir, "/run/acct/rules") == 0);
    assert_true(strcmp(c.socket, "/run/acct/acctd.sock") == 0);
    assert_true(strcmp(c.killswitch, "/run/acct/disable") == 0);
    assert_true(c.default_on && c.batch_step);
    assert_true(c.interconnect[0] == '\0' && c.nmap == 0);
    assert_true(acct_spank_interconnect(&c, "eth") == NULL);

    char *good[] = {"lib=/opt/acct/$LIB/libacct.so", "rules_dir=/srv/rules", "socket=/srv/a.sock",
                    "killswitch=", "default=off", "batch_step=no", "interconnect=ib-hdr",
                    "interconnect_map=eth:tcp-1g,fast:veth"};
    assert_true(parse(&c, 8, good) == 0);
    assert_true(strcmp(c.lib, "/opt/acct/$LIB/libacct.so") == 0);
    assert_true(strcmp(c.lib_file, "/opt/acct/lib/x86_64-linux-gnu/libacct.so") == 0);
    assert_true(strcmp(c.rules_dir, "/srv/rules") == 0);
    assert_true(strcmp(c.socket, "/srv/a.sock") == 0);
    assert_true(c.killswitch[0] == '\0');
    assert_true(!c.default_on && !c.batch_step);
    assert_true(c.nmap == 2);
    assert_true(strcmp(acct_spank_interconnect(&c, "eth"), "tcp-1g") == 0);
    assert_true(strcmp(acct_spank_interconnect(&c, "fast"), "veth") == 0);
    assert_true(strcmp(acct_spank_interconnect(&c, "other"), "ib-hdr") == 0);
    assert_true(strcmp(acct_spank_interconnect(&c, NULL), "ib-hdr") == 0);

    char *braces[] = {"lib=/x/${LIB}/acct/libacct.so"};
    assert_true(parse(&c, 1, braces) == 0);
    assert_true(strcmp(c.lib_file, "/x/lib/x86_64-linux-gnu/acct/libacct.so") == 0);
    assert_true(strcmp(c.lib, "/x/${LIB}/acct/libacct.so") == 0);

    /* Each bad argument: one message naming it, the previous value kept. */
    char *bad_lib[] = {"lib=relative/libacct.so"};
    assert_true(parse(&c, 1, bad_lib) == 1);
    assert_true(strcmp(c.lib, "/usr/lib/acct/libacct.so") == 0);
    assert_true(strstr(last, "argument 1 (lib=relative/libacct.so): lib: must be an absolute path") !=
          NULL);
    char *bad_token[] = {"lib=/x/$ORIGIN/libacct.so"};
    assert_true(parse(&c, 1, bad_token) == 1);
    assert_true(strstr(last, "$LIB") != NULL);
    char *blank[] = {"socket=/a b", "rules_dir=/a:b", "killswitch=x"};
    assert_true(parse(&c, 3, blank) == 3);
    assert_true(strcmp(c.socket, "/run/acct/acctd.sock") == 0);
    assert_true(strcmp(c.rules_dir, "/run/acct/rules") == 0);
    assert_true(strcmp(c.killswitch, "/run/acct/disable") == 0);
    char *bad_bool[] = {"default=maybe", "batch_step="};
    assert_true(parse(&c, 2, bad_bool) == 2);
    assert_true(c.default_on && c.batch_step);
    assert_true(strstr(last, "argument 2 (batch_step=): batch_step: expected on or off") != NULL);
    char *unknown[] = {"colour=blue", "noequals", "=x", "default=off"};
    assert_true(parse(&c, 4, unknown) == 3);
    assert_true(!c.default_on); /* later arguments still apply */
    char *bad_ic[] = {"interconnect=../x"};
    assert_true(parse(&c, 1, bad_ic) == 1);
    assert_true(c.interconnect[0] == '\0');

    /* interconnect_map is all or nothing. */
    char *maps[] = {"interconnect_map=eth:tcp-1g", "interconnect_map=eth:a,fast"};
    assert_true(parse(&c, 2, maps) == 2);
    assert_true(c.nmap == 1 && strcmp(acct_spank_interconnect(&c, "eth"), "tcp-1g") == 0);
    assert_true(acct_spank_interconnect(&c, "fast") == NULL);
    char *dup[] = {"interconnect_map=eth:a,eth:b"};
    assert_true(parse(&c, 1, dup) == 2);
    assert_true(c.nmap == 0);
    char *badpart[] = {"interconnect_map=e/th:a", "interconnect_map=eth:", "interconnect_map="};
    assert_true(parse(&c, 3, badpart) == 6);
    assert_true(c.nmap == 0);
    char longmap[ACCT_SPANK_MAP_MAX * 8 + 64];
    size_t o = (size_t)snprintf(longmap, sizeof(longmap), "interconnect_map=");
    for (int i = 0; i <= ACCT_SPANK_MAP_MAX; i++)
        o += (size_t)snprintf(longmap + o, sizeof(longmap) - o, "%sp%d:i", i ? "," : "", i);
    char *toomany[] = {longmap};
    assert_true(parse(&c, 1, toomany) == 2);
    assert_true(c.nmap == 0);

    char longpath[ACCT_SPANK_PATH_MAX + 16] = "socket=/";
    memset(longpath + 8, 'a', ACCT_SPANK_PATH_MAX);
    longpath[8 + ACCT_SPANK_PATH_MAX] = '\0';
    char *toolong[] = {longpath};
    assert_true(parse(&c, 1, toolong) == 1);
    assert_true(strcmp(c.socket, "/run/acct/acctd.sock") == 0);
}

static void test_choose(void **state)
{
    (void)state;
    struct acct_spank_choice c;
    c = acct_spank_choose(NULL, NULL, NULL, true);
    assert_true(c.on && c.source == ACCT_SPANK_BY_DEFAULT && !c.invalid);
    c = acct_spank_choose(NULL, "", "", false);
    assert_true(!c.on && c.source == ACCT_SPANK_BY_DEFAULT);
    /* The environment, read like libacct reads it. */
    c = acct_spank_choose(NULL, "1", NULL, true);
    assert_true(!c.on && c.source == ACCT_SPANK_BY_ENV);
    c = acct_spank_choose(NULL, "yes", "on", true);
    assert_true(!c.on && c.source == ACCT_SPANK_BY_ENV); /* ACCT_DISABLE wins */
    c = acct_spank_choose(NULL, "0", "off", true);
    assert_true(!c.on && c.source == ACCT_SPANK_BY_ENV); /* either one says off */
    c = acct_spank_choose(NULL, NULL, "off", true);
    assert_true(!c.on && c.source == ACCT_SPANK_BY_ENV);
    c = acct_spank_choose(NULL, "bogus", NULL, true);
    assert_true(!c.on && c.invalid);
    c = acct_spank_choose(NULL, NULL, "bogus", true);
    assert_true(!c.on && c.invalid);
    c = acct_spank_choose(NULL, NULL, "on", false);
    assert_true(c.on && c.source == ACCT_SPANK_BY_ENV);
    c = acct_spank_choose(NULL, "0", NULL, false);
    assert_true(c.on && c.source == ACCT_SPANK_BY_ENV);
    /* The command line wins. */
    c = acct_spank_choose("off", NULL, "on", true);
    assert_true(!c.on && c.source == ACCT_SPANK_BY_OPTION);
    c = acct_spank_choose("on", "1", "off", false);
    assert_true(c.on && c.source == ACCT_SPANK_BY_OPTION);
    c = acct_spank_choose("ON", NULL, NULL, false);
    assert_true(c.on && c.source == ACCT_SPANK_BY_OPTION);
    c = acct_spank_choose("nope", "1", NULL, true);
    assert_true(!c.on && c.source == ACCT_SPANK_BY_ENV && c.invalid);
    c = acct_spank_choose("nope", NULL, NULL, true);
    assert_true(c.on && c.source == ACCT_SPANK_BY_DEFAULT && c.invalid);
}

static void test_steps(void **state)
{
    (void)state;
    assert_true(acct_spank_step_kind(0) == ACCT_SPANK_STEP_NORMAL);
    assert_true(acct_spank_step_kind(12) == ACCT_SPANK_STEP_NORMAL);
    assert_true(acct_spank_step_kind(ACCT_SPANK_STEPID_MAX_NORMAL) == ACCT_SPANK_STEP_NORMAL);
    assert_true(acct_spank_step_kind(ACCT_SPANK_STEPID_BATCH) == ACCT_SPANK_STEP_BATCH);
    assert_true(acct_spank_step_kind(ACCT_SPANK_STEPID_EXTERN) == ACCT_SPANK_STEP_EXTERN);
    assert_true(acct_spank_step_kind(ACCT_SPANK_STEPID_INTERACTIVE) == ACCT_SPANK_STEP_INTERACTIVE);
    assert_true(acct_spank_step_kind(ACCT_SPANK_STEPID_PENDING) == ACCT_SPANK_STEP_OTHER);
    assert_true(acct_spank_step_kind(0xffffffffu) == ACCT_SPANK_STEP_OTHER);
    assert_true(strcmp(acct_spank_step_name(ACCT_SPANK_STEP_EXTERN), "extern") == 0);
}

static void test_preload(void **state)
{
    (void)state;
    const char *lib = "/usr/lib/acct/libacct.so";
    char out[128];
    assert_true(acct_spank_preload(NULL, lib, out, sizeof(out)) == ACCT_SPANK_PRELOAD_ADDED);
    assert_true(strcmp(out, lib) == 0);
    assert_true(acct_spank_preload("", lib, out, sizeof(out)) == ACCT_SPANK_PRELOAD_ADDED);
    assert_true(strcmp(out, lib) == 0);
    assert_true(acct_spank_preload("  ", lib, out, sizeof(out)) == ACCT_SPANK_PRELOAD_ADDED);
    assert_true(strcmp(out, lib) == 0);
    assert_true(acct_spank_preload("/u/mine.so", lib, out, sizeof(out)) == ACCT_SPANK_PRELOAD_ADDED);
    assert_true(strcmp(out, "/usr/lib/acct/libacct.so:/u/mine.so") == 0);
    assert_true(acct_spank_preload("/a.so /b.so:c.so", lib, out, sizeof(out)) ==
          ACCT_SPANK_PRELOAD_ADDED);
    assert_true(strcmp(out, "/usr/lib/acct/libacct.so:/a.so /b.so:c.so") == 0);
    /* Never twice: the same path, or another libacct.so the user chose. */
    assert_true(acct_spank_preload("/a.so:/usr/lib/acct/libacct.so", lib, out, sizeof(out)) ==
          ACCT_SPANK_PRELOAD_PRESENT);
    assert_true(out[0] == '\0');
    assert_true(acct_spank_preload("/home/u/build/lib/libacct.so /a.so", lib, out, sizeof(out)) ==
          ACCT_SPANK_PRELOAD_PRESENT);
    assert_true(acct_spank_preload("libacct.so", lib, out, sizeof(out)) == ACCT_SPANK_PRELOAD_PRESENT);
    /* A similar name is not the same library. */
    assert_true(acct_spank_preload("/x/libacct.so.1:/x/mylibacct.so", lib, out, sizeof(out)) ==
          ACCT_SPANK_PRELOAD_ADDED);
    assert_true(strcmp(out, "/usr/lib/acct/libacct.so:/x/libacct.so.1:/x/mylibacct.so") == 0);
    assert_true(acct_spank_preload("/u/mine.so", lib, out, 10) == ACCT_SPANK_PRELOAD_TOO_LONG);
    assert_true(out[0] == '\0');
    /* Exactly fitting. */
    char exact[64];
    size_t need = strlen("/usr/lib/acct/libacct.so:/u/mine.so") + 1;
    assert_true(acct_spank_preload("/u/mine.so", lib, exact, need) == ACCT_SPANK_PRELOAD_ADDED);
    assert_true(acct_spank_preload("/u/mine.so", lib, exact, need - 1) == ACCT_SPANK_PRELOAD_TOO_LONG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names), cmocka_unit_test(test_conf),
        cmocka_unit_test(test_choose), cmocka_unit_test(test_steps),
        cmocka_unit_test(test_preload),
    };
    return cmocka_run_group_tests_name("test_spank_policy", tests, NULL, NULL) == 0 ? 0 : 1;
}
