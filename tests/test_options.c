/* test_options.c — declared options (options.h over the key parser, keys.h): defaults,
 * values of every scalar type, every rejection with its message, a refused value leaving
 * the old one, the strict integer parser. */
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
    { .name = "ratio", .type = IDB_KEY_DOUBLE, .def = "0.5", .dmin = 0, .dmax = 1, .help = "h" },
    { .name = "flag", .type = IDB_KEY_BOOL, .def = "1", .help = "h" },
    { 0 },
};

/* Parse decls with one "key=value" (or none when kv is NULL). */
static int parse(idb_opts *o, const char *kv, idb_err *err)
{
    const char *list[] = { kv };
    return idb_opts_parse(o, decls, list, kv ? 1 : 0, "test", err);
}

/* Every option starts at its default. */
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
    assert_true(idb_opts_double(&o, "ratio") == 0.5);
    assert_int_equal(idb_opts_int(&o, "flag"), 1);
    assert_int_equal(idb_opts_int(&o, "mode"), 0);            /* the index of the choice */
}

/* Given values replace the defaults, typed; a refused value keeps the one before. */
static void values_override_defaults(void **state)
{
    (void)state;
    idb_opts o;
    idb_err err = { 0 };
    const char *kv[] = { "size=100", "mode=safe", "path=/tmp/x=y", "any=-9000000000",
                         "ratio=0.25", "flag=0" };
    assert_int_equal(idb_opts_parse(&o, decls, kv, 6, "test", &err), 0);
    assert_int_equal(idb_opts_int(&o, "mode"), 1);
    assert_true(idb_opts_double(&o, "ratio") == 0.25);
    assert_string_equal(idb_opts_str(&o, "ratio"), "0.25");
    assert_int_equal(idb_opts_int(&o, "flag"), 0);
    assert_int_equal(idb_opts_int(&o, "size"), 100);
    assert_string_equal(idb_opts_str(&o, "mode"), "safe");
    assert_string_equal(idb_opts_str(&o, "path"), "/tmp/x=y");
    assert_int_equal(idb_opts_int(&o, "any"), -9000000000LL);
    assert_int_equal(idb_opts_set(&o, "size", "7", "test", &err), 0);
    assert_int_equal(idb_opts_int(&o, "size"), 7);
    assert_int_equal(idb_opts_set(&o, "size", "700", "test", &err), IDB_EINPUT);
    assert_int_equal(idb_opts_int(&o, "size"), 7);
    assert_string_equal(idb_opts_str(&o, "size"), "7");
}

/* Every kind of bad option, each with its exact message. */
static void bad_values_are_rejected(void **state)
{
    (void)state;
    static const struct { const char *kv, *msg; } bad[] = {
        { "nope=1", "test: unknown option 'nope' (options: size, mode, path, any, ratio, flag)" },
        { "size=0", "test: option size = 0 is out of range 1..100" },
        { "size=101", "test: option size = 101 is out of range 1..100" },
        { "size=1x", "test: option size = '1x': expected an integer" },
        { "size=", "test: option size = '': expected an integer" },
        { "size=99999999999999999999",
          "test: option size = '99999999999999999999': expected an integer" },
        { "mode=slow", "test: option mode = 'slow': expected one of fast|safe" },
        { "mode=fas", "test: option mode = 'fas': expected one of fast|safe" },
        { "ratio=2", "test: option ratio = 2 is out of range 0..1" },
        { "flag=yes", "test: option flag = 'yes': expected one of 0|1" },
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

/* A value too long for idb_opts is refused, naming the limit. */
static void long_value_is_rejected(void **state)
{
    (void)state;
    char kv[IDB_OPT_VALUE_MAX + 8] = "path=";
    memset(kv + 5, 'x', IDB_OPT_VALUE_MAX);
    kv[5 + IDB_OPT_VALUE_MAX] = 0;
    idb_opts o;
    idb_err err = { 0 };
    assert_int_equal(parse(&o, kv, &err), IDB_EINPUT);
    assert_string_equal(err.msg, "test: option path: value too long (at most 255 bytes)");
    kv[5 + IDB_OPT_VALUE_MAX - 1] = 0;                      /* 255 bytes: fits */
    assert_int_equal(parse(&o, kv, &err), 0);
    assert_int_equal(strlen(idb_opts_str(&o, "path")), IDB_OPT_VALUE_MAX - 1);
}

/* idb_parse_i64 takes a whole decimal int64 and nothing else. */
static void parse_i64_is_strict(void **state)
{
    (void)state;
    int64_t v;
    assert_int_equal(idb_parse_i64("-12", &v), 0);
    assert_int_equal(v, -12);
    assert_int_equal(idb_parse_i64("9223372036854775807", &v), 0);
    assert_int_equal(v, INT64_MAX);
    const char *bad[] = { "", "-", "+", " 1", "1 ", "0x10", "1e3", "9223372036854775808",
                          "1.5" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(idb_parse_i64(bad[i], &v), IDB_EINPUT);
}

/* Run every test of this file. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_apply),
        cmocka_unit_test(values_override_defaults),
        cmocka_unit_test(bad_values_are_rejected),
        cmocka_unit_test(long_value_is_rejected),
        cmocka_unit_test(parse_i64_is_strict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
