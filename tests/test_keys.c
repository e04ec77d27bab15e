/* test_keys.c — the one key parser (keys.h): every type with its bounds, every kind of bad
 * value with its exact message, a refused value leaving the field as it was, lists and
 * their hooks, `all`, defaults, copying, finding and listing keys, the strict number
 * parsers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "keys.h"

#define SMALL 8                  /* capacity of the small text fields */
#define FEW 3                    /* capacity of the small lists */

/* A record holding one field of every type. */
typedef struct rec {
    int64_t i, any;
    uint64_t u;
    double d, ev;
    int b;
    int64_t e;
    char s[SMALL], name[SMALL], checked[2 * SMALL];
    int64_t ints[FEW];
    int n_ints;
    double dbls[FEW];
    int n_dbls;
    const char *names[FEW];
    int n_names;
} rec;

static const char *const known[FEW] = { "alpha", "beta", "gamma" };

/* LIST hook: entry i is one of known[] (stored as the pointer); `all` is every one. */
static int name_hook(const idb_key *k, void *base, void *ctx, int i, const char *text,
                     idb_err *err)
{
    (void)ctx;
    const char **out = (const char **)((char *)base + k->off);
    if (i == IDB_KEY_ALL) {
        for (int j = 0; j < FEW; j++) out[j] = known[j];
        return FEW;
    }
    for (int j = 0; j < FEW; j++)
        if (strcmp(text, known[j]) == 0) { out[i] = known[j]; return 0; }
    return idb_fail(err, IDB_EINPUT, "unknown name '%s'", text);
}

/* STR hook: refuses "bad"; otherwise rewrites the stored value to CTX/TEXT. */
static int prefix_hook(const idb_key *k, void *base, void *ctx, int i, const char *text,
                       idb_err *err)
{
    (void)i;
    if (strcmp(text, "bad") == 0) return idb_fail(err, IDB_EINPUT, "checked: 'bad' refused");
    snprintf((char *)base + k->off, k->size, "%s/%s", (const char *)ctx, text);
    return 0;
}

#define AT(f) IDB_KEY_AT(rec, f)
static const idb_key keys[] = {
    { .name = "i", .type = IDB_KEY_INT, .def = "5", .min = 1, .max = 100, .section = "a",
      AT(i) },
    { .name = "any", .type = IDB_KEY_INT, .def = "-7", .section = "a", AT(any) },
    { .name = "u", .type = IDB_KEY_U64, .def = "1", .section = "a", AT(u) },
    { .name = "d", .type = IDB_KEY_DOUBLE, .def = "1", .dmin = 0.5, .dmax = 2, .section = "a",
      AT(d) },
    { .name = "ev", .type = IDB_KEY_DOUBLE, .def = "off", .dmin = 0, .dmax = 10, .off_word = 1,
      .section = "b", AT(ev) },
    { .name = "b", .type = IDB_KEY_BOOL, .def = "0", .section = "b", AT(b) },
    { .name = "e", .type = IDB_KEY_ENUM, .def = "safe", .choices = "naive|safe", .section = "b",
      AT(e) },
    { .name = "s", .type = IDB_KEY_STR, .def = "abc", .section = "b", AT(s) },
    { .name = "name", .type = IDB_KEY_NAME, .def = "x", .section = "b", AT(name) },
    { .name = "ints", .type = IDB_KEY_INTS, .def = "1, 2", .min = 1, .max = 10, .section = "c",
      AT(ints), IDB_KEY_COUNT(rec, n_ints) },
    { .name = "dbls", .type = IDB_KEY_DOUBLES, .dmin = 0, .dmax = 1, .section = "c", AT(dbls),
      IDB_KEY_COUNT(rec, n_dbls) },
    { .name = "names", .type = IDB_KEY_LIST, .def = "all", .all = 1, .hook = name_hook,
      .elem = sizeof(const char *), .section = "c", AT(names), IDB_KEY_COUNT(rec, n_names) },
    { .name = "checked", .type = IDB_KEY_STR, .hook = prefix_hook, .section = "c", AT(checked) },
    { 0 },
};
#undef AT

/* The key called name (must exist). */
static const idb_key *K(const char *name)
{
    const idb_key *k = idb_keys_find(keys, NULL, name);
    assert_non_null(k);
    return k;
}

/* A record with every default. */
static void defaults(rec *r)
{
    idb_err err = { 0 };
    memset(r, 0, sizeof *r);
    if (idb_keys_defaults(keys, NULL, r, "ctx", &err) != 0) fail_msg("%s", err.msg);
}

/* Set key name to text on r; assert success. */
static void set_ok(rec *r, const char *name, const char *text)
{
    idb_err err = { 0 };
    if (idb_key_set(K(name), r, "ctx", text, &err) != 0)
        fail_msg("%s=%s: %s", name, text, err.msg);
}

/* Every default lands in its field with its type. */
static void test_defaults(void **state)
{
    (void)state;
    rec r;
    defaults(&r);
    assert_int_equal(r.i, 5);
    assert_int_equal(r.any, -7);
    assert_true(r.u == 1);
    assert_true(r.d == 1.0);
    assert_true(r.ev == IDB_KEY_OFF);
    assert_int_equal(r.b, 0);
    assert_int_equal(r.e, 1);                          /* the index of "safe" */
    assert_string_equal(r.s, "abc");
    assert_string_equal(r.name, "x");
    assert_int_equal(r.n_ints, 2);
    assert_int_equal(r.ints[0], 1);
    assert_int_equal(r.ints[1], 2);
    assert_int_equal(r.n_dbls, 0);                     /* no default: left as it was */
    assert_int_equal(r.n_names, FEW);                  /* `all` through the hook */
    assert_ptr_equal(r.names[2], known[2]);
    assert_string_equal(r.checked, "");
}

/* Good values of every scalar type, bounds included. */
static void test_scalars(void **state)
{
    (void)state;
    rec r;
    defaults(&r);
    set_ok(&r, "i", "1");
    assert_int_equal(r.i, 1);
    set_ok(&r, "i", "+100");
    assert_int_equal(r.i, 100);
    set_ok(&r, "any", "-9223372036854775808");
    assert_true(r.any == INT64_MIN);
    set_ok(&r, "u", "18446744073709551615");
    assert_true(r.u == UINT64_MAX);
    set_ok(&r, "d", "0.5");
    assert_true(r.d == 0.5);
    set_ok(&r, "d", "2e0");
    assert_true(r.d == 2.0);
    set_ok(&r, "ev", "10");
    assert_true(r.ev == 10.0);
    set_ok(&r, "ev", "off");
    assert_true(r.ev == IDB_KEY_OFF);
    set_ok(&r, "b", "1");
    assert_int_equal(r.b, 1);
    set_ok(&r, "e", "naive");
    assert_int_equal(r.e, 0);
    set_ok(&r, "s", "1234567");                        /* SMALL - 1 bytes: fits */
    assert_string_equal(r.s, "1234567");
    set_ok(&r, "s", "");
    assert_string_equal(r.s, "");
    set_ok(&r, "name", "A_b.c-9");
    assert_string_equal(r.name, "A_b.c-9");
}

/* Lists: entries trimmed, counted, replaced as a whole; `all`; a STR hook's rewrite. */
static void test_lists(void **state)
{
    (void)state;
    rec r;
    defaults(&r);
    set_ok(&r, "ints", " 3 ,4,\t10 ");
    assert_int_equal(r.n_ints, 3);
    assert_int_equal(r.ints[0], 3);
    assert_int_equal(r.ints[2], 10);
    set_ok(&r, "ints", "7");
    assert_int_equal(r.n_ints, 1);
    assert_int_equal(r.ints[0], 7);
    set_ok(&r, "dbls", "0, 0.25, 1");
    assert_int_equal(r.n_dbls, 3);
    assert_true(r.dbls[1] == 0.25);
    set_ok(&r, "names", "gamma, alpha");
    assert_int_equal(r.n_names, 2);
    assert_ptr_equal(r.names[0], known[2]);
    assert_ptr_equal(r.names[1], known[0]);
    set_ok(&r, "names", "all");
    assert_int_equal(r.n_names, FEW);
    set_ok(&r, "checked", "file");
    assert_string_equal(r.checked, "ctx/file");        /* the hook saw the caller's ctx */
}

/* Every kind of bad value, with its exact message; the record is left as it was. */
static void test_bad_values(void **state)
{
    (void)state;
    static const struct { const char *key, *text, *msg; } bad[] = {
        { "i", "0", "i = 0 is out of range 1..100" },
        { "i", "101", "i = 101 is out of range 1..100" },
        { "i", "x", "i = 'x': expected an integer" },
        { "i", "", "i = '': expected an integer" },
        { "i", " 5", "i = ' 5': expected an integer" },
        { "i", "1.0", "i = '1.0': expected an integer" },
        { "any", "9223372036854775808", "any = '9223372036854775808': expected an integer" },
        { "u", "-1", "u = '-1': expected an unsigned integer" },
        { "u", "18446744073709551616",
          "u = '18446744073709551616': expected an unsigned integer" },
        { "d", "0.4", "d = 0.4 is out of range 0.5..2" },
        { "d", "nan", "d = 'nan': expected a number" },
        { "d", "inf", "d = 'inf': expected a number" },
        { "d", "1e999", "d = '1e999': expected a number" },
        { "d", "0x1p0", "d = '0x1p0': expected a number" },
        { "d", "off", "d = 'off': expected a number" },
        { "ev", "of", "ev = 'of': expected a number or 'off'" },
        { "ev", "11", "ev = 11 is out of range 0..10" },
        { "b", "2", "b = '2': expected one of 0|1" },
        { "b", "01", "b = '01': expected one of 0|1" },
        { "e", "Safe", "e = 'Safe': expected one of naive|safe" },
        { "e", "", "e = '': expected one of naive|safe" },
        { "s", "12345678", "s: value too long (at most 7 bytes)" },
        { "name", "a b", "name = 'a b': expected 1 to 7 letters, digits, '_', '.' or '-'" },
        { "name", "", "name = '': expected 1 to 7 letters, digits, '_', '.' or '-'" },
        { "name", "abcdefgh", "name = 'abcdefgh': expected 1 to 7 letters, digits, '_', '.' or "
                              "'-'" },
        { "ints", "0", "ints: entry 0 is out of range 1..10" },
        { "ints", "1, x", "ints: entry 'x': expected an integer" },
        { "ints", "1,,2", "ints = '1,,2': empty entry in the list" },
        { "ints", "1,", "ints = '1,': empty entry in the list" },
        { "ints", " ", "ints: expected at least one entry" },
        { "ints", "1,2,3,4", "ints: more than 3 entries" },
        { "dbls", "0.5, 2", "dbls: entry 2 is out of range 0..1" },
        { "dbls", "0.5, off", "dbls: entry 'off': expected a number" },
        { "names", "", "names: expected at least one entry" },
        { "checked", "bad", "checked: 'bad' refused" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rec r, before;
        defaults(&r);
        before = r;
        idb_err err = { 0 };
        if (idb_key_set(K(bad[i].key), &r, "ctx", bad[i].text, &err) != IDB_EINPUT)
            fail_msg("%s = '%s' was accepted", bad[i].key, bad[i].text);
        assert_int_equal(err.code, IDB_EINPUT);
        assert_string_equal(err.msg, bad[i].msg);
        if (!K(bad[i].key)->hook) assert_memory_equal(&r, &before, sizeof r);
    }
}

/* A LIST hook's refusal is passed on as it is, and the count is not changed. */
static void test_list_hook_refuses(void **state)
{
    (void)state;
    rec r;
    defaults(&r);
    idb_err err = { 0 };
    assert_int_equal(idb_key_set(K("names"), &r, NULL, "alpha, delta", &err), IDB_EINPUT);
    assert_string_equal(err.msg, "unknown name 'delta'");
    assert_int_equal(r.n_names, FEW);
    assert_int_equal(idb_key_set(K("names"), &r, NULL, "all, beta", &err), IDB_EINPUT);
    assert_string_equal(err.msg, "unknown name 'all'");  /* `all` only alone */
}

/* idb_key_check parses without storing; a list key is not one value. */
static void test_check(void **state)
{
    (void)state;
    idb_key_value v;
    idb_err err = { 0 };
    assert_int_equal(idb_key_check(K("e"), "naive", &v, &err), 0);
    assert_int_equal(v.i, 0);
    assert_int_equal(idb_key_check(K("d"), "1.5", &v, &err), 0);
    assert_true(v.d == 1.5);
    assert_int_equal(idb_key_check(K("u"), "42", NULL, &err), 0);
    assert_int_equal(idb_key_check(K("ints"), "1", &v, &err), IDB_EINPUT);
    assert_string_equal(err.msg, "ints: a list, not one value (a bug)");
    /* a STR key of size 0 (an option) takes up to IDB_KEY_VALUE_MAX - 1 bytes */
    idb_key opt = { .name = "o", .type = IDB_KEY_STR };
    char text[IDB_KEY_VALUE_MAX + 1];
    memset(text, 'x', IDB_KEY_VALUE_MAX);
    text[IDB_KEY_VALUE_MAX] = 0;
    assert_int_equal(idb_key_check(&opt, text, &v, &err), IDB_EINPUT);
    assert_string_equal(err.msg, "o: value too long (at most 255 bytes)");
    text[IDB_KEY_VALUE_MAX - 1] = 0;
    assert_int_equal(idb_key_check(&opt, text, &v, &err), 0);
    rec r;                                       /* ... but has no field to be stored in */
    assert_int_equal(idb_key_set(&opt, &r, NULL, "x", &err), IDB_EINPUT);
    assert_string_equal(err.msg, "o: declared without a field to store in (a bug)");
}

/* Defaults by section, and a bad default reported as the table's bug. */
static void test_defaults_by_section(void **state)
{
    (void)state;
    rec r;
    idb_err err = { 0 };
    memset(&r, 0, sizeof r);
    assert_int_equal(idb_keys_defaults(keys, "b", &r, NULL, &err), 0);
    assert_string_equal(r.s, "abc");                   /* section b */
    assert_int_equal(r.i, 0);                          /* section a: untouched */
    assert_int_equal(r.n_ints, 0);                     /* section c: untouched */
    static const idb_key broken[] = {
        { .name = "i", .type = IDB_KEY_INT, .def = "0", .min = 1, .max = 2, IDB_KEY_AT(rec, i) },
        { 0 },
    };
    assert_int_equal(idb_keys_defaults(broken, NULL, &r, NULL, &err), IDB_EINPUT);
    assert_string_equal(err.msg, "bad default of key i: i = 0 is out of range 1..2");
}

/* idb_key_copy copies the value and a list's count, nothing else. */
static void test_copy(void **state)
{
    (void)state;
    rec a, b;
    defaults(&a);
    defaults(&b);
    set_ok(&a, "ints", "9, 8, 7");
    set_ok(&a, "s", "zz");
    idb_key_copy(K("ints"), &b, &a);
    assert_int_equal(b.n_ints, 3);
    assert_memory_equal(b.ints, a.ints, sizeof a.ints);
    assert_string_equal(b.s, "abc");
    idb_key_copy(K("s"), &b, &a);
    assert_string_equal(b.s, "zz");
}

/* Finding a key by section and name; listing the names of a section. */
static void test_find_and_names(void **state)
{
    (void)state;
    char buf[64];
    assert_ptr_equal(idb_keys_find(keys, "a", "d"), &keys[3]);
    assert_null(idb_keys_find(keys, "b", "d"));
    assert_null(idb_keys_find(keys, NULL, "nope"));
    assert_string_equal(idb_keys_names(keys, "a", buf, sizeof buf), "i, any, u, d");
    assert_string_equal(idb_keys_names(keys, "nope", buf, sizeof buf), "none");
    assert_string_equal(idb_keys_names(keys, NULL, buf, 12), "i, any, u");   /* cut */
}

/* Count the entries given to it; refuse "stop". */
static int count_entry(void *ctx, int i, const char *entry, idb_err *err)
{
    int *n = ctx;
    assert_int_equal(i, *n);
    if (strcmp(entry, "stop") == 0) return idb_fail(err, IDB_EIO, "stopped at %d", i);
    (*n)++;
    return 0;
}

/* idb_key_each: trimmed entries in order; fn's code and message passed on; long entries. */
static void test_each(void **state)
{
    (void)state;
    int n = 0;
    idb_err err = { 0 };
    assert_int_equal(idb_key_each(K("ints"), "a, b ,c", 5, count_entry, &n, &err), 3);
    assert_int_equal(n, 3);
    n = 0;
    assert_int_equal(idb_key_each(K("ints"), "a, stop, c", 5, count_entry, &n, &err), IDB_EIO);
    assert_string_equal(err.msg, "stopped at 1");
    char text[IDB_KEY_ENTRY_MAX + 8];
    memset(text, 'y', IDB_KEY_ENTRY_MAX);
    text[IDB_KEY_ENTRY_MAX] = 0;
    n = 0;
    assert_int_equal(idb_key_each(K("ints"), text, 5, count_entry, &n, &err), IDB_EINPUT);
    assert_string_equal(err.msg, "ints: entry 1 is longer than 1023 bytes");
}

/* The number parsers take whole decimals and nothing else. */
static void test_parsers(void **state)
{
    (void)state;
    double d;
    assert_int_equal(idb_parse_double("-1.5e3", &d), 0);
    assert_true(d == -1500.0);
    assert_int_equal(idb_parse_double(".5", &d), 0);
    assert_true(d == 0.5);
    const char *bad[] = { "", " 1", "1 ", "1e", "e1", "nan", "inf", "0x10", "1e400", "1,5" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (idb_parse_double(bad[i], &d) != IDB_EINPUT) fail_msg("'%s' was accepted", bad[i]);
}

/* Integers are parsed as integers, never through a double: the ends of int64 and uint64 and
 * 2^53 + 1 (the first integer a double cannot hold) are stored exactly; one past an end,
 * and anything but a plain decimal, is refused. */
static void test_integers_exact(void **state)
{
    (void)state;
    rec r;
    defaults(&r);
    set_ok(&r, "any", "9223372036854775807");
    assert_true(r.any == INT64_MAX);
    set_ok(&r, "any", "9007199254740993");
    assert_true(r.any == 9007199254740993LL);
    set_ok(&r, "u", "9007199254740993");
    assert_true(r.u == 9007199254740993ULL);
    set_ok(&r, "u", "18446744073709551615");
    assert_true(r.u == UINT64_MAX);
    int64_t v;
    assert_int_equal(idb_parse_i64("-9223372036854775808", &v), 0);
    assert_true(v == INT64_MIN);
    const char *bad[] = { "9223372036854775808", "-9223372036854775809", "0x10", "1e3", "1.0",
                          "", "+", "-", " 1", "1 ", "9007199254740993.0" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (idb_parse_i64(bad[i], &v) != IDB_EINPUT) fail_msg("'%s' was accepted", bad[i]);
}

/* Run every test of this file. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_list_hook_refuses),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_defaults_by_section),
        cmocka_unit_test(test_copy),
        cmocka_unit_test(test_find_and_names),
        cmocka_unit_test(test_each),
        cmocka_unit_test(test_parsers),
        cmocka_unit_test(test_integers_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
