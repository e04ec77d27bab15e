/* test_claims.c — each claim's experiment gives its verdict on the default (quick)
 * settings, the table has one row per claim, and the collision arithmetic is exact.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "collide.h"

static claim_row rows[CLAIMS_N];

/* Run the quick experiments once for every test. */
static int setup(void **state)
{
    (void)state;
    idb_err err = { 0 };
    if (claims_run(1, rows, &err) != 0) { fprintf(stderr, "claims: %s\n", err.msg); return -1; }
    return 0;
}

/* The verdict of claim no, with its figures when it is not the expected one. */
static void expect(int no, const char *subject, enum claim_verdict want)
{
    const claim_row *r = &rows[no - 1];
    assert_int_equal(r->no, no);
    assert_string_equal(r->subject, subject);
    assert_true(r->experiment[0] && r->measured[0]);
    if (r->verdict != want)
        fail_msg("claim %d (%s): %s, expected %s; measured: %s", no, subject,
                 claim_verdict_text(r->verdict), claim_verdict_text(want), r->measured);
}

/* Claim 1 holds: one round trip per ID; the outage stops only the counter. */
static void test_claim1_counter(void **s) { (void)s; expect(1, "counter", CLAIM_HOLDS); }

/* range holds, with the caveat that a moved shop's old IDs break the destination's order. */
static void test_claim2_range(void **s)
{
    (void)s;
    expect(2, "range", CLAIM_CAVEAT);
    assert_non_null(strstr(rows[1].caveat, "destination shard"));
}

/* Claims 3 to 7 hold: interleaved, uuidv4, uuidv7, snowflake, objectid. */
static void test_claim3_interleaved(void **s) { (void)s; expect(3, "interleaved", CLAIM_HOLDS); }
static void test_claim4_uuidv4(void **s) { (void)s; expect(4, "uuidv4", CLAIM_HOLDS); }
static void test_claim5_uuidv7(void **s) { (void)s; expect(5, "uuidv7", CLAIM_HOLDS); }
static void test_claim6_snowflake(void **s) { (void)s; expect(6, "snowflake", CLAIM_HOLDS); }
static void test_claim7_objectid(void **s) { (void)s; expect(7, "objectid", CLAIM_HOLDS); }

/* The markdown table: a header, a rule and one row per claim. */
static void test_markdown(void **s)
{
    (void)s;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    claims_print_markdown(f, rows, CLAIMS_N);
    fclose(f);
    int lines = 0;
    for (char *p = buf; *p; p++) lines += *p == '\n';
    assert_int_equal(lines, 2 + CLAIMS_N);
    assert_true(strncmp(buf, "| # | claim | experiment | measured | verdict |\n", 47) == 0);
    free(buf);
}

/* n(p) against values worked out by hand, and the chapter's 86 years. */
static void test_collide_formula(void **s)
{
    (void)s;
    /* 2 bits (4 values): n(0.5) = 1/2 + sqrt(1/4 + 8 ln 2) */
    assert_true(fabs(collide_ids(2, 0.5) - (0.5 + sqrt(0.25 + 8 * log(2)))) < 1e-12);
    /* 122 bits at 1e9 per second: about 86 years */
    double years = collide_ids(122, 0.5) / 1e9 / (365.25 * 86400);
    assert_true(years > 85.5 && years < 86.5);
    /* tiny p: log1p keeps it exact; (n - 1/2)^2 - 1/4 = 2 N ln(1/(1-p)) ~ 2 N p */
    double n = collide_ids(64, 1e-9);
    assert_true(fabs(((n - 0.5) * (n - 0.5) - 0.25) / (2 * exp2(64) * 1e-9) - 1) < 1e-6);
    /* simulation at a small width lands within 5% of the formula */
    double med = collide_simulate(20, 2000, 1);
    assert_true(fabs(med / collide_ids(20, 0.5) - 1) < 0.05);
}

/* Run every test of this file. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_claim1_counter),
        cmocka_unit_test(test_claim2_range),
        cmocka_unit_test(test_claim3_interleaved),
        cmocka_unit_test(test_claim4_uuidv4),
        cmocka_unit_test(test_claim5_uuidv7),
        cmocka_unit_test(test_claim6_snowflake),
        cmocka_unit_test(test_claim7_objectid),
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_collide_formula),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
