/* test_options.c — declared options: defaults, every rejection, per-shard overrides. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "options.h"

static const idb_opt_decl decls[] = {
    { .name = "size", .type = IDB_OPT_INT, .def = "10", .min = 1, .max = 100, .help = "h" },
    { .name = "mode", .type = IDB_OPT_ENUM, .def = "fast", .choices = "fast|safe", .help = "h" },
    { .name = "path", .type = IDB_OPT_STR, .def = ".", .help = "h" },
    { .name = "any", .type = IDB_OPT_INT, .def = "-5", .help = "no bounds" },
    { 0 },
};

static int parse(idb_opts *o, const char *kv, idb_err *err)
{
    const char *list[] = { kv };
    return idb_opts_parse(o, decls, list, kv ? 1 : 0, "test", err);
}

static void defaults_apply(void **state)
{
    (void)state;
    idb_opts o;
    idb_err err = { 0 };
    assert_int_equal(parse(&o, NULL, &err), 0);
    assert_int_equal(idb_opts_int(&o, "size"), 10);
    assert_string_equal(idb_opts_str(&o, "mode"), "fast");
    assert_string_equal(idb_opts_str(&o, "path"), ".");
    assert_int_equal(idb_opts_int(&o, "any"), -5);
}

static void values_override_defaults(void **state)
{
    (void)state;
    idb_opts o;
    idb_err err = { 0 };
    const char *kv[] = { "size=100", "mode=safe", "path=/tmp/x=y", "any=-9000000000" };
    assert_int_equal(idb_opts_parse(&o, decls, kv, 4, "test", &err), 0);
    assert_int_equal(idb_opts_int(&o, "size"), 100);
    assert_string_equal(idb_opts_str(&o, "mode"), "safe");
    assert_string_equal(idb_opts_str(&o, "path"), "/tmp/x=y");
    assert_int_equal(idb_opts_int(&o, "any"), -9000000000LL);
    assert_int_equal(idb_opts_set(&o, "size", "7", "test", &err), 0);
    assert_int_equal(idb_opts_int(&o, "size"), 7);
}

static void bad_values_are_rejected(void **state)
{
    (void)state;
    static const struct { const char *kv, *msg; } bad[] = {
        { "nope=1", "test: unknown option 'nope' (options: size, mode, path, any)" },
        { "size=0", "test: option size=0 is out of range 1..100" },
        { "size=101", "test: option size=101 is out of range 1..100" },
        { "size=1x", "test: option size: '1x' is not an integer" },
        { "size=", "test: option size: '' is not an integer" },
        { "size=99999999999999999999", "test: option size: '99999999999999999999' is not an integer" },
        { "mode=slow", "test: option mode=slow: expected one of fast|safe" },
        { "mode=fas", "test: option mode=fas: expected one of fast|safe" },
        { "size", "test: option 'size' is not KEY=VALUE" },
        { "=3", "test: option '=3' is not KEY=VALUE" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        idb_opts o;
        idb_err err = { 0 };
        assert_int_equal(parse(&o, bad[i].kv, &err), IDB_EINPUT);
        assert_int_equal(err.code, IDB_EINPUT);
        assert_string_equal(err.msg, bad[i].msg);
    }
}

static void parse_i64_is_strict(void **state)
{
    (void)state;
    int64_t v;
    assert_int_equal(idb_parse_i64("-12", &v), 0);
    assert_int_equal(v, -12);
    assert_int_equal(idb_parse_i64("9223372036854775807", &v), 0);
    assert_int_equal(v, INT64_MAX);
    const char *bad[] = { "", "-", "+", " 1", "1 ", "0x10", "1e3", "9223372036854775808", "1.5" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) assert_int_equal(idb_parse_i64(bad[i], &v), IDB_EINPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_apply),
        cmocka_unit_test(values_override_defaults),
        cmocka_unit_test(bad_values_are_rejected),
        cmocka_unit_test(parse_i64_is_strict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
