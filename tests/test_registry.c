/* test_registry.c — the two plug-in registries refuse what breaks their interface: tables
 * holding a deliberately bad strategy (bits over IDB_ID_MAX * 8, 0, not a multiple of 8,
 * another interface version, a missing function, no fork rule) or a bad store (another
 * version, a missing function) are refused with a message naming the plug-in; the real
 * tables pass.
 * And the width contract of every store: 0 and IDB_ID_MAX + 1 bytes are refused at open,
 * the null store takes every width from 1 to IDB_ID_MAX (the others' round trips at
 * widths 1, 5, 20 and 32 are in their own tests).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store.h"
#include "strategy.h"
#include "store_test.h"

#define TEST(name) static void name(void **state __attribute__((unused)))

/* The strategy check on the table { good, bad, NULL }: must refuse with IDB_EINPUT and a
 * one-line message naming bad and containing why. */
static void expect_strategy_refused(const idb_strategy *bad, const char *why)
{
    const idb_strategy *good = idb_strategies[0];
    const idb_strategy *const table[] = { good, bad, NULL };
    idb_err err = { 0 };
    assert_int_equal(idb_strategy_check_table(table, &err), IDB_EINPUT);
    if (!strstr(err.msg, bad->name) || !strstr(err.msg, why) || strchr(err.msg, '\n'))
        fail_msg("expected a message naming %s and saying '%s', got: %s", bad->name, why,
                 err.msg);
}

/* A copy of a real strategy under another name, to break one field at a time. */
static idb_strategy plugin(const char *name)
{
    idb_strategy s = *idb_strategy_find("uuidv4");
    s.name = name;
    s.uniform_bits = 0;                  /* so any width keeps the key-space declarations */
    return s;
}

/* The key-space declarations: value_bits within the width, uniform_bits within value_bits
 * and never on a time-ordered strategy. */
TEST(test_strategy_key_space)
{
    idb_strategy s = plugin("wideval");
    s.value_bits = 129;
    expect_strategy_refused(&s, "value_bits = 129");
    s.name = "negval";
    s.value_bits = -1;
    expect_strategy_refused(&s, "value_bits = -1");
    s.name = "wideuniform";
    s.value_bits = 63;
    s.uniform_bits = 64;
    expect_strategy_refused(&s, "uniform_bits = 64");
    s.name = "timeuniform";
    s.uniform_bits = 8;
    s.time_ordered = 1;
    expect_strategy_refused(&s, "uniform_bits = 8");
    s.time_ordered = 0;
    const idb_strategy *const table[] = { &s, NULL };
    idb_err err = { 0 };
    if (idb_strategy_check_table(table, &err) != 0) fail_msg("refused: %s", err.msg);
    assert_int_equal(idb_strategy_value_bits(&s), 63);
    s.value_bits = 0;
    assert_int_equal(idb_strategy_value_bits(&s), 128);
}

TEST(test_real_tables_pass)
{
    idb_err err = { 0 };
    assert_int_equal(idb_strategy_check_table(idb_strategies, &err), 0);
    assert_int_equal(idb_store_check_table(idb_stores, &err), 0);
}

TEST(test_strategy_widths)
{
    idb_strategy s = plugin("toowide");
    s.bits = IDB_ID_MAX * 8 + 8;
    expect_strategy_refused(&s, "bits");
    s.name = "zerobits";
    s.bits = 0;
    expect_strategy_refused(&s, "bits = 0");
    s.name = "oddbits";
    s.bits = 12;
    expect_strategy_refused(&s, "bits = 12");
    s.name = "negbits";
    s.bits = -8;
    expect_strategy_refused(&s, "bits = -8");

    static const int good_bits[] = { 8, 40, 160, IDB_ID_MAX * 8 };
    for (size_t i = 0; i < sizeof good_bits / sizeof *good_bits; i++) {
        s.bits = good_bits[i];
        const idb_strategy *const table[] = { &s, NULL };
        idb_err err = { 0 };
        if (idb_strategy_check_table(table, &err) != 0)
            fail_msg("bits = %d refused: %s", s.bits, err.msg);
    }
}

TEST(test_strategy_version_and_functions)
{
    idb_strategy s = plugin("nextversion");
    s.version = IDB_STRATEGY_VERSION + 1;
    expect_strategy_refused(&s, "version");
    s = plugin("nonext");
    s.next = NULL;
    expect_strategy_refused(&s, "NULL");
    s = plugin("nodecode");
    s.decode = NULL;
    expect_strategy_refused(&s, "NULL");

    s = plugin(NULL);
    const idb_strategy *const table[] = { &s, NULL };
    idb_err err = { 0 };
    assert_int_equal(idb_strategy_check_table(table, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "no name"));
}

TEST(test_store_version_and_functions)
{
    idb_store s = *idb_store_find("null");
    const idb_store *const table[] = { idb_stores[0], &s, NULL };
    idb_err err = { 0 };
    s.name = "nextversion";
    s.version = IDB_STORE_VERSION + 1;
    assert_int_equal(idb_store_check_table(table, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "store nextversion"));
    assert_non_null(strstr(err.msg, "version"));
    s = *idb_store_find("null");
    s.name = "noinsert";
    s.insert = NULL;
    assert_int_equal(idb_store_check_table(table, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "store noinsert"));
    s.insert = idb_store_find("null")->insert;
    assert_int_equal(idb_store_check_table(table, &err), 0);
}

/* Interface version 2 (store.h): a version-1 plug-in still loads and takes one client
 * whatever its later fields hold; a version-2 one that takes more clients needs
 * open_client; every registered store's clients are at least 1. */
TEST(test_store_clients_versions)
{
    idb_store s = *idb_store_find("null");
    const idb_store *const table[] = { &s, NULL };
    idb_err err = { 0 };
    s.name = "oldplugin";
    s.version = 1;
    s.clients = 8;                         /* not read for version 1 */
    s.open_client = NULL;
    assert_int_equal(idb_store_check_table(table, &err), 0);
    assert_int_equal(idb_store_clients(&s), 1);
    s.version = 2;
    assert_int_equal(idb_store_check_table(table, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "open_client"));
    s = *idb_store_find("null");
    assert_int_equal(s.version, IDB_STORE_VERSION);
    assert_true(idb_store_clients(&s) > 1);
    for (const idb_store *const *t = idb_stores; *t; t++)
        assert_true(idb_store_clients(*t) >= 1);
}

/* Always 4: the options test_sample_parts_versions's stand-in hook sees are ignored. */
static int four_parts(const idb_opts *o) { (void)o; return 4; }

/* Interface version 3 (store.h): sample_parts needs set_bounds; a version-2 plug-in's
 * later fields are never read (no parts asked of it); spider asks for parts only with
 * split=sample over partition=range and more than one backend. */
TEST(test_sample_parts_versions)
{
    idb_store s = *idb_store_find("null");
    const idb_store *const table[] = { &s, NULL };
    idb_err err = { 0 };
    static idb_opts o;
    s.name = "halfsample";
    s.sample_parts = four_parts;
    s.set_bounds = NULL;
    assert_int_equal(idb_store_check_table(table, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "set_bounds"));
    assert_int_equal(idb_store_sample_parts(&s, &o), 4);
    s.version = 2;                          /* stops before sample_parts: never read */
    assert_int_equal(idb_store_check_table(table, &err), 0);
    assert_int_equal(idb_store_sample_parts(&s, &o), 0);
    const idb_store *sp = idb_store_find("spider");
    assert_non_null(sp);
    static const struct { const char *kv[3]; int parts; } cases[] = {
        { { "split=sample", "backends=5", "partition=range" }, 5 },
        { { "split=space", "backends=5", "partition=range" }, 0 },
        { { "split=sample", "backends=1", "partition=range" }, 0 },
        { { "split=space", "backends=3", "partition=key" }, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        assert_int_equal(idb_opts_parse(&o, sp->options, cases[i].kv, 3, "spider", &err), 0);
        assert_int_equal(idb_store_sample_parts(sp, &o), cases[i].parts);
    }
}

/* Interface version 3 (store.h: reads): sqlite, lmdb and pagesim (a model: no open_read)
 * serve `idbench read`; null (no get) does not, nor a version-2 plug-in whatever its later
 * fields hold, nor a version-3 file store without open_read. */
TEST(test_store_read_versions)
{
    static const char *const readers[] = { "sqlite", "lmdb", "pagesim" };
    for (size_t i = 0; i < sizeof readers / sizeof *readers; i++)
        assert_true(idb_store_can_read(idb_store_find(readers[i])));
    assert_false(idb_store_can_read(idb_store_find("null")));
    idb_store s = *idb_store_find("sqlite");
    s.version = 2;
    assert_false(idb_store_can_read(&s));
    s.version = 3;
    s.open_read = NULL;                    /* a file store that cannot open to read */
    assert_false(idb_store_can_read(&s));
    idb_err err = { 0 };
    const idb_store *const table[] = { &s, NULL };
    assert_int_equal(idb_store_check_table(table, &err), 0);
}

/* cross_process must be a value of enum idb_xproc, and a condition naming an option needs
 * the strategy to declare it (uuidv4 declares none); the names are the list's. */
TEST(test_strategy_cross_process)
{
    idb_strategy s = plugin("badxproc");
    s.cross_process = IDB_XPROC_COUNT;
    expect_strategy_refused(&s, "cross_process");
    s.name = "noworker";
    s.cross_process = IDB_XPROC_DISTINCT_WORKER;
    expect_strategy_refused(&s, "`worker`");
    s.name = "nodir";
    s.cross_process = IDB_XPROC_SHARED_DIR;
    expect_strategy_refused(&s, "`dir`");
    s.options = idb_strategy_find("range")->options;           /* declares dir */
    const idb_strategy *const table[] = { &s, NULL };
    idb_err err = { 0 };
    assert_int_equal(idb_strategy_check_table(table, &err), 0);
    assert_string_equal(idb_xproc_name(IDB_XPROC_DISTINCT_WORKER), "distinct-worker");
    assert_string_equal(idb_xproc_name(IDB_XPROC_COUNT), "?");
}

/* The fork rule must be declared (strategy.h): 0 (undeclared) and a value out of the enum
 * are refused with the reason; both declared values pass; the names are the rule's. */
TEST(test_strategy_fork_rule)
{
    idb_strategy s = plugin("nofork");
    s.fork = IDB_FORK_UNDECLARED;
    expect_strategy_refused(&s, "fork rule");
    s.name = "badfork";
    s.fork = IDB_FORK_COUNT;
    expect_strategy_refused(&s, "fork = ");
    static const enum idb_fork declared[] = { IDB_FORK_SAFE, IDB_FORK_REFUSES };
    for (size_t i = 0; i < sizeof declared / sizeof *declared; i++) {
        s.fork = declared[i];
        const idb_strategy *const table[] = { &s, NULL };
        idb_err err = { 0 };
        if (idb_strategy_check_table(table, &err) != 0)
            fail_msg("fork = %d refused: %s", (int)s.fork, err.msg);
    }
    assert_string_equal(idb_fork_rule_name(IDB_FORK_SAFE), "safe");
    assert_string_equal(idb_fork_rule_name(IDB_FORK_REFUSES), "refuses");
    assert_string_equal(idb_fork_rule_name(IDB_FORK_UNDECLARED), "?");
}

/* The declared behaviour (strategy.h): an on_clock_back out of the enum, a negative cap and
 * a table without text vectors are refused with the reason; every registered strategy
 * declares vectors. */
TEST(test_strategy_declared_behaviour)
{
    idb_strategy s = plugin("badclock");
    s.on_clock_back = IDB_CLOCK_BACK_COUNT;
    expect_strategy_refused(&s, "on_clock_back");
    s = plugin("badcap");
    s.max_ids_per_s = -1;
    expect_strategy_refused(&s, "max_ids_per_s");
    s = plugin("novectors");
    s.vectors = NULL;
    expect_strategy_refused(&s, "vectors");
    static const idb_text_vector empty[] = { { 0 } };
    s.vectors = empty;
    expect_strategy_refused(&s, "vectors");
    for (const idb_strategy *const *p = idb_strategies; *p; p++)
        if (!(*p)->vectors || !(*p)->vectors[0].text) fail_msg("%s: no vectors", (*p)->name);
}

/* Every store refuses key widths 0 and IDB_ID_MAX + 1 at open, before touching dir. */
TEST(test_every_store_refuses_bad_widths)
{
    static const int bad[] = { 0, IDB_ID_MAX + 1 };
    char *dir = make_dir();
    for (const idb_store *const *p = idb_stores; *p; p++) {
        S = *p;
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
            void *h = NULL;
            idb_err err = { 0 };
            int rc = open_kv(dir, bad[i], NULL, 0, &h, &err);
            if (rc != IDB_EINPUT || h || !strstr(err.msg, "key width"))
                fail_msg("store %s, %d-byte keys: got %d (%s)", S->name, bad[i], rc, err.msg);
        }
    }
    drop_dir(dir);
}

/* The null store takes every width from 1 to IDB_ID_MAX. */
TEST(test_null_store_takes_every_width)
{
    S = idb_store_find("null");
    assert_non_null(S);
    for (int w = 1; w <= IDB_ID_MAX; w++) {
        void *h = NULL;
        idb_err err = { 0 };
        idb_row r;
        if (open_kv(".", w, NULL, 0, &h, &err) != 0) fail_msg("%d-byte keys: %s", w, err.msg);
        make_row(&r, 1, w, NULL);
        assert_int_equal(S->insert(h, &r, &err), 0);
        assert_int_equal(S->commit(h, &err), 0);
        S->close(h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_tables_pass),
        cmocka_unit_test(test_strategy_widths),
        cmocka_unit_test(test_strategy_key_space),
        cmocka_unit_test(test_strategy_version_and_functions),
        cmocka_unit_test(test_strategy_cross_process),
        cmocka_unit_test(test_strategy_fork_rule),
        cmocka_unit_test(test_store_version_and_functions),
        cmocka_unit_test(test_store_clients_versions),
        cmocka_unit_test(test_sample_parts_versions),
        cmocka_unit_test(test_store_read_versions),
        cmocka_unit_test(test_strategy_declared_behaviour),
        cmocka_unit_test(test_every_store_refuses_bad_widths),
        cmocka_unit_test(test_null_store_takes_every_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
