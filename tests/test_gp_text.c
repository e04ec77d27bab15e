/* test_gp_text.c — text the matrix writes for gnuplot and the report: mx_gp_string makes any
 * string a results file could hold data to gnuplot (run here: hostile strings come back
 * unchanged and run nothing) and refuses control characters; mx_num fits any double.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "matrix.h"
#include "plots.h"
#include "tmpdir.h"

/* Strings a hostile results file could hold: each must come back from gnuplot as itself,
 * and none may run anything (PWNED would appear in the directory gnuplot runs in). */
static const char *const hostile[] = {
    "plain", "it's", "x'); system('touch PWNED'); print('", "x'; system('touch PWNED'); a='",
    "x'''; system('touch PWNED'); a='", "''''x", "`touch PWNED`",
    "@m $(touch PWNED) \\ \" '' ''' end' # ; \\047", "\xc3\xbcnicode \xe2\x9c\x93", "",
};

/* mx_gp_string: every hostile string is data to gnuplot, printed back unchanged. */
static void test_gp_string_is_data(void **state)
{
    (void)state;
    char dir[MX_SCRATCH_MAX], path[MX_FILE_MAX], cmd[2 * MX_FILE_MAX], line[512];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    snprintf(path, sizeof path, "%s/t.gp", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    size_t n = sizeof hostile / sizeof *hostile;
    for (size_t i = 0; i < n; i++) {
        fputs("v = ", f);
        assert_int_equal(mx_gp_string(f, hostile[i], NULL), 0);
        fputs("print '<' . v . '>'\n", f);
    }
    assert_int_equal(fclose(f), 0);
    snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot t.gp 2>&1", dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    for (size_t i = 0; i < n; i++) {
        char want[512];
        snprintf(want, sizeof want, "<%s>\n", hostile[i]);
        assert_non_null(fgets(line, sizeof line, p));
        assert_string_equal(line, want);
    }
    assert_null(fgets(line, sizeof line, p));
    assert_int_equal(pclose(p), 0);
    snprintf(path, sizeof path, "%s/PWNED", dir);
    struct stat sb;
    assert_int_not_equal(stat(path, &sb), 0);
    idb_tmpdir_remove(dir);
}

/* mx_gp_string refuses a control character (a newline would end the literal's line). */
static void test_gp_string_refuses_control_characters(void **state)
{
    (void)state;
    static const char *const bad[] = { "a\nsystem('touch PWNED')", "tab\there", "del\x7f" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        idb_err err = { 0 };
        assert_int_equal(mx_gp_string(f, bad[i], &err), IDB_EINPUT);
        fclose(f);
        assert_int_equal(len, 0);
        assert_true(err.msg[0] != 0);
        free(buf);
    }
}

/* mx_num: any double fits its buffer (1e24 once wrote past it). */
static void test_num_fits_any_value(void **state)
{
    (void)state;
    static const struct { double v; const char *want; } cases[] = {
        { 1234567, "1,234,567" }, { -999999999999999, "-999,999,999,999,999" },
        { 1e15, "1e+15" }, { 1e24, "1e+24" }, { -1e300, "-1e+300" }, { 0.000123456, "0.000123" },
        { INFINITY, "n/a" }, { NAN, "n/a" }, { 0, "0" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[MX_NUM_LEN + 1];
        buf[MX_NUM_LEN] = 'X';                           /* a guard byte past the buffer */
        assert_string_equal(mx_num(cases[i].v, buf), cases[i].want);
        assert_int_equal(buf[MX_NUM_LEN], 'X');
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gp_string_is_data),
        cmocka_unit_test(test_gp_string_refuses_control_characters),
        cmocka_unit_test(test_num_fits_any_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
