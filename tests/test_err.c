/* test_err.c — error codes (err.h): every IDB_E* code has its own name, the codes run
 * without a gap from IDB_EINPUT down, an unknown code is "unknown error", idb_fail fills
 * the record (or accepts NULL) and returns the code. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <string.h>

#include "err.h"

#define UNKNOWN "unknown error"
#define CODES_MAX 64             /* more codes than err.h will ever have */

/* The codes err.h declares today; each must have a name of its own. */
static const int declared[] = {
    IDB_OK, IDB_EINPUT, IDB_ECLOCK, IDB_EUNAVAIL, IDB_EEXHAUSTED, IDB_EIO, IDB_ENOMEM,
    IDB_EFORK,
};

/* Every declared code is named, not "unknown error", and no two share a name. */
static void test_declared_codes_named(void **state)
{
    (void)state;
    size_t n = sizeof declared / sizeof *declared;
    for (size_t i = 0; i < n; i++) {
        const char *name = idb_strerror(declared[i]);
        assert_non_null(name);
        assert_true(name[0] != 0);
        if (strcmp(name, UNKNOWN) == 0) fail_msg("code %d has no name", declared[i]);
        for (size_t j = 0; j < i; j++)
            if (strcmp(name, idb_strerror(declared[j])) == 0)
                fail_msg("codes %d and %d are both '%s'", declared[i], declared[j], name);
    }
}

/* The codes run from -1 down without a gap, each name distinct (a code added later is
 * covered too), and at least the declared ones are there. */
static void test_codes_without_gap(void **state)
{
    (void)state;
    const char *names[CODES_MAX];
    int n = 0;
    for (int c = -1; strcmp(idb_strerror(c), UNKNOWN) != 0; c--) {
        assert_true(n < CODES_MAX);
        for (int j = 0; j < n; j++) assert_string_not_equal(names[j], idb_strerror(c));
        names[n++] = idb_strerror(c);
    }
    assert_true(n >= (int)(sizeof declared / sizeof *declared) - 1);
    assert_string_equal(idb_strerror(-(n + 2)), UNKNOWN);    /* nothing after the gap */
}

/* Codes that are not error codes are "unknown error". */
static void test_unknown_codes(void **state)
{
    (void)state;
    const int unknown[] = { 1, 2, 100, -100, INT_MIN, INT_MAX };
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++)
        assert_string_equal(idb_strerror(unknown[i]), UNKNOWN);
}

/* idb_fail fills code and message, cuts a long one, accepts NULL, returns the code. */
static void test_fail(void **state)
{
    (void)state;
    idb_err err = { 0 };
    assert_int_equal(idb_fail(&err, IDB_EIO, "cannot write %s: %d", "x.csv", 5), IDB_EIO);
    assert_int_equal(err.code, IDB_EIO);
    assert_string_equal(err.msg, "cannot write x.csv: 5");
    char big[2 * sizeof err.msg];
    memset(big, 'z', sizeof big - 1);
    big[sizeof big - 1] = 0;
    idb_fail(&err, IDB_EINPUT, "%s", big);
    assert_int_equal(strlen(err.msg), sizeof err.msg - 1);
    assert_int_equal(idb_fail(NULL, IDB_ENOMEM, "no record"), IDB_ENOMEM);
}

/* Run every test of this file. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_declared_codes_named),
        cmocka_unit_test(test_codes_without_gap),
        cmocka_unit_test(test_unknown_codes),
        cmocka_unit_test(test_fail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
