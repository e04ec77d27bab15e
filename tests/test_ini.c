/* test_ini.c — the ini reader and the workload keys: the syntax, every error path of a
 * workload file (each naming file and line), --set overrides, the template listing every
 * key with its default, and every shipped workload loading cleanly.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ini.h"
#include "sim_workload.h"

typedef struct seen { int n; char sec[16][64], key[16][64], val[16][256]; int line[16]; } seen;

/* ini handler: remember every key; refuse the key "refuse" (bad input) and "io" (I/O). */
static int collect(void *ctx, const char *section, const char *key, const char *value, int line,
                   idb_err *err)
{
    seen *s = ctx;
    if (strcmp(key, "refuse") == 0) return idb_fail(err, IDB_EINPUT, "no thanks");
    if (strcmp(key, "io") == 0) return idb_fail(err, IDB_EIO, "disk gone");
    assert_true(s->n < 16);
    snprintf(s->sec[s->n], 64, "%s", section);
    snprintf(s->key[s->n], 64, "%s", key);
    snprintf(s->val[s->n], 256, "%s", value);
    s->line[s->n++] = line;
    return 0;
}

/* Parse text; expect failure with exactly message want. */
static void expect_error(const char *text, const char *want)
{
    seen s = { 0 };
    idb_err err = { 0 };
    assert_int_equal(ini_parse_string("f.ini", text, collect, &s, &err), IDB_EINPUT);
    assert_string_equal(err.msg, want);
}

/* Comments, blanks, trailing comments, reopened sections, CRLF, empty values. */
static void test_syntax(void **state)
{
    (void)state;
    const char *text = "# comment\n; another\n\n[a]\n  k1 = v1  \r\nk2=two words # trailing\n"
                       "[ b ]\nk3 = a#b\nk4 =\n[a] # reopened\nk5 = x ; tail\nk6 =   # empty\n";
    seen s = { 0 };
    idb_err err = { 0 };
    assert_int_equal(ini_parse_string("f.ini", text, collect, &s, &err), 0);
    assert_int_equal(s.n, 6);
    assert_string_equal(s.key[5], "k6"); assert_string_equal(s.val[5], "");
    assert_string_equal(s.sec[0], "a");
    assert_string_equal(s.key[0], "k1");
    assert_string_equal(s.val[0], "v1");
    assert_int_equal(s.line[0], 5);
    assert_string_equal(s.val[1], "two words");
    assert_string_equal(s.sec[2], "b"); assert_string_equal(s.val[2], "a#b");
    assert_string_equal(s.val[3], "");
    assert_string_equal(s.sec[4], "a"); assert_string_equal(s.val[4], "x");
}

/* Every syntax error names file and line. */
static void test_syntax_errors(void **state)
{
    (void)state;
    expect_error("[a]\nnovalue\n",
        "f.ini:2: expected 'key = value', '[section]' or a comment, got 'novalue'");
    expect_error("k = v\n", "f.ini:1: key 'k' is outside any [section]");
    expect_error("[a]\nk = 1\nk = 2\n",
        "f.ini:3: duplicate key 'k' in [a] (first given on line 2)");
    expect_error("[a]\nk = 1\n[b]\n[a]\nk = 2\n",
        "f.ini:5: duplicate key 'k' in [a] (first given on line 2)");
    expect_error("[a\n", "f.ini:1: section header without closing ']'");
    expect_error("[a] b\n", "f.ini:1: unexpected text after the section header");
    expect_error("[a b]\n", "f.ini:1: bad section name 'a b' (letters, digits, _ . - only)");
    expect_error("[]\n", "f.ini:1: bad section name '' (letters, digits, _ . - only)");
    expect_error("[a]\n = v\n", "f.ini:2: bad key '' (letters, digits, _ . - only)");
    expect_error("[a]\nk k = v\n", "f.ini:2: bad key 'k k' (letters, digits, _ . - only)");
    expect_error("[a]\nrefuse = 1\n", "f.ini:2: no thanks");
    seen s = { 0 };                                    /* the handler's code is kept */
    idb_err err = { 0 };
    assert_int_equal(ini_parse_string("f.ini", "[a]\nio = 1\n", collect, &s, &err), IDB_EIO);
    assert_string_equal(err.msg, "f.ini:2: disk gone");
    char *long_line = malloc(INI_LINE_MAX + 20);
    memset(long_line, 'x', INI_LINE_MAX + 10);
    strcpy(long_line + INI_LINE_MAX + 10, "\n");
    expect_error(long_line, "f.ini:1: line longer than 1024 bytes");
    free(long_line);
}

/* A missing file is an error naming it. */
static void test_missing_file(void **state)
{
    (void)state;
    seen s = { 0 };
    idb_err err = { 0 };
    assert_int_equal(ini_parse_file("/nonexistent/x.ini", collect, &s, &err), IDB_EINPUT);
    assert_string_equal(err.msg, "/nonexistent/x.ini: cannot read: No such file or directory");
    sim_workload w;
    assert_int_equal(sim_workload_load("/nonexistent/x.ini", &w, &err), IDB_EINPUT);
    assert_string_equal(err.msg, "/nonexistent/x.ini: cannot read: No such file or directory");
}

/* Write text to a temporary file; its path goes into path (64 bytes). */
static void temp_file(const char *text, char *path)
{
    strcpy(path, "/tmp/idb_test_ini.XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* Load text as a workload file and expect message want, with FILE replaced by its path. */
static void expect_workload_error(const char *text, const char *want_after_file)
{
    char path[64], want[512];
    temp_file(text, path);
    sim_workload w;
    idb_err err = { 0 };
    assert_int_equal(sim_workload_load(path, &w, &err), IDB_EINPUT);
    snprintf(want, sizeof want, "%s%s", path, want_after_file);
    assert_string_equal(err.msg, want);
    unlink(path);
}

/* The workload parser's every error path: section, key, each kind of value, cross-key. */
static void test_workload_errors(void **state)
{
    (void)state;
    expect_workload_error("[workload]\nshards = 2\n[bogus]\nx = 1\n",
        ":4: unknown section [bogus] (sections: workload, clock, counter, range, events, burst)");
    expect_workload_error("[clock]\nskew = 5\n",
        ":2: unknown key 'skew' in [clock] (keys: skew_ms, drift_ppm, step_back_ms, step_at_s, "
        "step_instance)");
    expect_workload_error("[workload]\nshards = many\n",
        ":2: shards = 'many': expected an integer");
    expect_workload_error("[workload]\nshards = 0\n", ":2: shards = 0 is out of range 1..1023");
    expect_workload_error("[workload]\nseed = -1\n",
        ":2: seed = '-1': expected an unsigned integer");
    expect_workload_error("[workload]\nduration_s = 1e\n",
        ":2: duration_s = '1e': expected a number");
    expect_workload_error("[workload]\nduration_s = nan\n",
        ":2: duration_s = 'nan': expected a number");
    expect_workload_error("[workload]\nduration_s = 0\n",
        ":2: duration_s = 0 is out of range 0.001..86400");
    expect_workload_error("[events]\nadd_shard_at_s = soon\n",
        ":2: add_shard_at_s = 'soon': expected a number or 'off'");
    expect_workload_error("[events]\ninterleaved_reconfig = careful\n",
        ":2: interleaved_reconfig = 'careful': expected one of naive|safe");
    expect_workload_error("[events]\nduplicate_worker_ids = 2\n",
        ":2: duplicate_worker_ids = '2': expected one of 0|1");
    expect_workload_error("[workload]\nstrategies = counter,nosuch\n",
        ":2: unknown strategy 'nosuch' (see idbench list)");
    expect_workload_error("[workload]\nstrategies = counter,counter\n",
        ":2: strategy 'counter' is listed twice");
    expect_workload_error("[workload]\nname = a b\n",
        ":2: name = 'a b': expected 1 to 63 letters, digits, '_', '.' or '-'");
    expect_workload_error("[workload]\nshards = 2\nshards = 3\n",
        ":3: duplicate key 'shards' in [workload] (first given on line 2)");
    expect_workload_error("[workload]\nshards\n",
        ":2: expected 'key = value', '[section]' or a comment, got 'shards'");
    expect_workload_error("[workload]\ninstances = 4\n[clock]\nstep_instance = 4\n",
        ":4: step_instance = 4 must be below instances = 4");
    expect_workload_error("[workload]\nshards = 1\n[events]\nmigrate_shop_at_s = 1\n",
        ":4: moving a shop needs shards >= 2");
    expect_workload_error("[events]\nadd_shard_at_s = 10\n",
        ":2: add_shard_at_s = 10 is not before the end (duration_s = 10)");
    expect_workload_error("[workload]\ninstances = 1\n[events]\nduplicate_worker_ids = 1\n",
        ":4: duplicate_worker_ids = 1 needs instances >= 2");
    char too_many[160];                          /* the limit is the simulator's constant */
    snprintf(too_many, sizeof too_many, ":2: about 1000000000 orders (orders_per_s x "
             "duration_s, with the burst) is more than the %lld a run may hold",
             (long long)SIM_MAX_ORDERS);
    expect_workload_error("[workload]\norders_per_s = 10000000\nduration_s = 100\n", too_many);
}

/* --set overrides: checked like file values, naming the flag. */
static void test_set(void **state)
{
    (void)state;
    sim_workload w;
    idb_err err = { 0 };
    sim_workload_defaults(&w);
    assert_int_equal(sim_workload_set(&w, "clock.skew_ms=7.5", &err), 0);
    assert_true(w.skew_ms == 7.5);
    assert_int_equal(sim_workload_set(&w, "events.add_shard_at_s=off", &err), 0);
    assert_true(w.add_shard_at_s == SIM_OFF);
    assert_int_equal(sim_workload_set(&w, "clock.skew_ms=fast", &err), IDB_EINPUT);
    assert_string_equal(err.msg, "--set clock.skew_ms=fast: skew_ms = 'fast': expected a number");
    assert_int_equal(sim_workload_set(&w, "clock.nosuch=1", &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "--set clock.nosuch=1: unknown key 'nosuch' in [clock]"));
    assert_int_equal(sim_workload_set(&w, "skew_ms=1", &err), IDB_EINPUT);
    assert_string_equal(err.msg, "--set skew_ms=1: expected SECTION.KEY=VALUE");
    assert_int_equal(sim_workload_set(&w, "clock.skew_ms", &err), IDB_EINPUT);
    assert_int_equal(sim_workload_set(&w, "clock.step_instance=8", &err), IDB_EINPUT);
    assert_string_equal(err.msg,
                        "--set clock.step_instance: step_instance = 8 must be below instances = 8");
}

/* The directory of this source file's sibling `workloads/`. */
static void workloads_dir(char *buf, size_t len)
{
    const char *f = __FILE__, *slash = strrchr(f, '/');
    snprintf(buf, len, "%.*s/../workloads", slash ? (int)(slash - f) : 1, slash ? f : ".");
}

/* template.ini sets every key, each to its default. */
static void test_template(void **state)
{
    (void)state;
    char dir[512], path[600];
    workloads_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/template.ini", dir);
    sim_workload t, d;
    idb_err err = { 0 };
    if (sim_workload_load(path, &t, &err) != 0) fail_msg("%s", err.msg);
    for (int i = 0; i < sim_workload_key_count(); i++)
        if (t.line[i] <= 0) fail_msg("template.ini does not list %s", sim_workload_key_name(i));
    sim_workload_defaults(&d);
    memcpy(d.name, t.name, sizeof d.name);
    memcpy(d.source, t.source, sizeof d.source);
    memcpy(d.line, t.line, sizeof d.line);
    assert_memory_equal(&d, &t, sizeof d);
}

/* Every shipped workload loads. */
static void test_shipped(void **state)
{
    (void)state;
    static const char *names[] = { "steady", "clock-skew", "clock-step-back", "counter-outage",
                                   "add-shard", "add-shard-safe", "migrate-shop", "worker-id-clash",
                                   "flash-sale" };
    char dir[512], path[700];
    workloads_dir(dir, sizeof dir);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s.ini", dir, names[i]);
        sim_workload w;
        idb_err err = { 0 };
        if (sim_workload_load(path, &w, &err) != 0) fail_msg("%s", err.msg);
        assert_string_equal(w.name, names[i]);
    }
}

/* Run every test of this file. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_syntax),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_workload_errors),
        cmocka_unit_test(test_set),
        cmocka_unit_test(test_template),
        cmocka_unit_test(test_shipped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
