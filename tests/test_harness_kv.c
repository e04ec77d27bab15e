/* test_harness_kv.c — the options the harness fills in for a strategy (harness_kv.h): only
 * those the strategy declares and the harness has, in a fixed order, never over the
 * user's; the limits; and that every registered strategy accepts what it is given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "harness_kv.h"

#define LONG_TEXT (IDB_OPT_VALUE_MAX + 8)

static const idb_opt_decl every_option[] = {
    { .name = "name", .type = IDB_OPT_STR, .def = "n" },
    { .name = "dir", .type = IDB_OPT_STR, .def = "." },
    { .name = "worker", .type = IDB_OPT_INT, .def = "0" },
    { .name = "epoch", .type = IDB_OPT_INT, .def = "0" },
    { .name = "range_size", .type = IDB_OPT_INT, .def = "1" },
    { .name = "base", .type = IDB_OPT_INT, .def = "0" },
    { .name = "shards", .type = IDB_OPT_INT, .def = "1" },
    { .name = "shard", .type = IDB_OPT_INT, .def = "0" },
    { 0 },
};
static const idb_opt_decl worker_only[] = {
    { .name = "worker", .type = IDB_OPT_INT, .def = "0" },
    { 0 },
};
static const idb_strategy every = { .name = "every", .options = every_option };
static const idb_strategy worker = { .name = "worker", .options = worker_only };
static const idb_strategy bare = { .name = "bare", .options = NULL };

/* A place with every field set. */
static idb_harness_place full_place(void)
{
    idb_harness_place p = { .shard = 3, .shards = 4, .base = 99, .worker = 7,
                            .range_size = 1000, .dir = "/tmp/d", .name = "svc" };
    return p;
}

/* kv as one line "a=1 b=2" for comparisons. */
static const char *joined(const idb_harness_kv *kv, char *buf, size_t len)
{
    buf[0] = 0;
    for (int i = 0; i < kv->n; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? " " : "", kv->kv[i]);
    return buf;
}

/* Every declared option the place has, in the order of idb_harness_place. */
static void test_fills_declared(void **state)
{
    (void)state;
    idb_harness_place p = full_place();
    idb_harness_kv kv;
    idb_err err = { 0 };
    char buf[512];
    assert_int_equal(idb_strategy_harness_kv(&every, &p, NULL, 0, &kv, &err), 0);
    assert_string_equal(joined(&kv, buf, sizeof buf),
                        "shard=3 shards=4 base=99 worker=7 range_size=1000 dir=/tmp/d name=svc");
    assert_int_equal(idb_strategy_harness_kv(&worker, &p, NULL, 0, &kv, &err), 0);
    assert_string_equal(joined(&kv, buf, sizeof buf), "worker=7");
    assert_int_equal(idb_strategy_harness_kv(&bare, &p, NULL, 0, &kv, &err), 0);
    assert_int_equal(kv.n, 0);
}

/* Unset fields are not filled in; 0 and "" are values like any other. */
static void test_unset_not_filled(void **state)
{
    (void)state;
    idb_harness_place p = idb_harness_place_none();
    idb_harness_kv kv;
    idb_err err = { 0 };
    char buf[512];
    assert_int_equal(idb_strategy_harness_kv(&every, &p, NULL, 0, &kv, &err), 0);
    assert_int_equal(kv.n, 0);
    p.worker = 0;
    p.dir = "";
    assert_int_equal(idb_strategy_harness_kv(&every, &p, NULL, 0, &kv, &err), 0);
    assert_string_equal(joined(&kv, buf, sizeof buf), "worker=0 dir=");
}

/* The user's options come first, as given, and the harness does not repeat theirs. */
static void test_user_wins(void **state)
{
    (void)state;
    idb_harness_place p = full_place();
    const char *user[] = { "worker=9", "epoch=5", "dir=/mine", "shardsX=1" };
    idb_harness_kv kv;
    idb_err err = { 0 };
    char buf[512];
    assert_int_equal(idb_strategy_harness_kv(&every, &p, user, 4, &kv, &err), 0);
    assert_ptr_equal(kv.kv[0], user[0]);
    assert_string_equal(joined(&kv, buf, sizeof buf),
                        "worker=9 epoch=5 dir=/mine shardsX=1 shard=3 shards=4 base=99 "
                        "range_size=1000 name=svc");
    idb_opts o;                                         /* as a strategy would see them */
    assert_int_equal(idb_strategy_harness_kv(&every, &p, user, 1, &kv, &err), 0);
    assert_int_equal(idb_opts_parse(&o, every_option, kv.kv, kv.n, "t", &err), 0);
    assert_int_equal(idb_opts_int(&o, "worker"), 9);
    assert_int_equal(idb_opts_int(&o, "shard"), 3);
}

/* Too many user options, or a text too long to be an option value, is refused. */
static void test_limits(void **state)
{
    (void)state;
    idb_harness_place p = idb_harness_place_none();
    idb_harness_kv kv;
    idb_err err = { 0 };
    char dir[LONG_TEXT];
    memset(dir, 'd', sizeof dir);
    dir[IDB_OPT_VALUE_MAX] = 0;
    p.dir = dir;
    assert_int_equal(idb_strategy_harness_kv(&every, &p, NULL, 0, &kv, &err), IDB_EINPUT);
    assert_string_equal(err.msg, "strategy every: option dir: value too long (at most 255 bytes)");
    dir[IDB_OPT_VALUE_MAX - 1] = 0;                     /* 255 bytes: fits */
    assert_int_equal(idb_strategy_harness_kv(&every, &p, NULL, 0, &kv, &err), 0);
    idb_opts o;
    assert_int_equal(idb_opts_parse(&o, every_option, kv.kv, kv.n, "t", &err), 0);
    assert_string_equal(idb_opts_str(&o, "dir"), dir);
    const char *user[IDB_HARNESS_USER_MAX + 1];
    for (int i = 0; i <= IDB_HARNESS_USER_MAX; i++) user[i] = "epoch=1";
    assert_int_equal(idb_strategy_harness_kv(&every, &p, user, IDB_HARNESS_USER_MAX, &kv, &err),
                     0);
    assert_int_equal(kv.n, IDB_HARNESS_USER_MAX + 1);
    assert_int_equal(idb_strategy_harness_kv(&every, &p, user, IDB_HARNESS_USER_MAX + 1, &kv,
                                             &err), IDB_EINPUT);
    assert_string_equal(err.msg, "strategy every: more than 64 options");
}

/* Every registered strategy accepts what the insert runner and the simulator give it, and
 * gets each value it declares. */
static void test_registry_accepts(void **state)
{
    (void)state;
    idb_harness_place p = full_place();
    p.shard = 1;
    p.shards = 2;
    p.worker = 1;
    for (const idb_strategy *const *s = idb_strategies; *s; s++) {
        idb_harness_kv kv;
        idb_opts o;
        idb_err err = { 0 };
        assert_int_equal(idb_strategy_harness_kv(*s, &p, NULL, 0, &kv, &err), 0);
        if (idb_opts_parse(&o, (*s)->options, kv.kv, kv.n, (*s)->name, &err) != 0)
            fail_msg("%s", err.msg);
        if (idb_opts_declared((*s)->options, "worker"))
            assert_int_equal(idb_opts_int(&o, "worker"), 1);
        if (idb_opts_declared((*s)->options, "shards"))
            assert_int_equal(idb_opts_int(&o, "shards"), 2);
        if (idb_opts_declared((*s)->options, "dir"))
            assert_string_equal(idb_opts_str(&o, "dir"), "/tmp/d");
    }
}

/* Run every test of this file. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fills_declared),
        cmocka_unit_test(test_unset_not_filled),
        cmocka_unit_test(test_user_wins),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_registry_accepts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
