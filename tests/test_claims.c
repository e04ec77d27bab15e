/* test_claims.c — each claim's experiment gives its verdict on the registered strategies
 * (quick settings), verdict() fails what it must, the table keeps its shape and every
 * figure says whether it was measured or computed, and the collision arithmetic and the
 * birthday test's expectations are exact. Broken strategies are in test_claims_broken.c.
 * IDBENCH names the idbench binary (the objectid claim runs it as separate processes).
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
    claims_opts o = { .quick = 1, .exe = getenv("IDBENCH"), .waits_store = "none",
                      .no_failover = 1 };  /* 10, 11: test_claim_failover.sh (slow) */
    idb_err err = { 0 };           /* claim 8 on a real store: test_claim_waits.sh (slow) */
    if (!o.exe) { fprintf(stderr, "IDBENCH is not set\n"); return -1; }
    if (claims_run(&o, rows, &err) != 0) { fprintf(stderr, "claims: %s\n", err.msg); return -1; }
    return 0;
}

/* The verdict of claim no, with its figures when it is not the expected one. */
static void expect(int no, const char *subject, enum claim_verdict want)
{
    const claim_row *r = &rows[no - 1];
    assert_int_equal(r->no, no);
    assert_string_equal(r->subject, subject);
    assert_true(r->experiment[0] && r->measured[0]);
    assert_true(r->checks > 0 || want == CLAIM_UNKNOWN);
    if (r->verdict != want)
        fail_msg("claim %d (%s): %s, expected %s; failed checks: %s; measured: %s", no, subject,
                 claim_verdict_text(r->verdict), claim_verdict_text(want), r->failures,
                 r->measured);
}

/* Claim 1 holds: one round trip per ID; the outage stops only the counter. */
static void test_claim_counter(void **s) { (void)s; expect(CLAIM_COUNTER, "counter", CLAIM_HOLDS); }

/* range holds, with the caveat that a moved shop's old IDs break the destination's order. */
static void test_claim_range(void **s)
{
    (void)s;
    expect(CLAIM_RANGE, "range", CLAIM_CAVEAT);
    assert_non_null(strstr(rows[CLAIM_RANGE - 1].caveat, "destination shard"));
}

/* The other claims hold: interleaved, uuidv4, uuidv7, snowflake, objectid. */
static void test_claim_interleaved(void **s)
{
    (void)s;
    expect(CLAIM_INTERLEAVED, "interleaved", CLAIM_HOLDS);
}
static void test_claim_uuidv4(void **s) { (void)s; expect(CLAIM_UUIDV4, "uuidv4", CLAIM_HOLDS); }
static void test_claim_uuidv7(void **s) { (void)s; expect(CLAIM_UUIDV7, "uuidv7", CLAIM_HOLDS); }
static void test_claim_snowflake(void **s)
{
    (void)s;
    expect(CLAIM_SNOWFLAKE, "snowflake", CLAIM_HOLDS);
}
static void test_claim_objectid(void **s)
{
    (void)s;
    expect(CLAIM_OBJECTID, "objectid", CLAIM_HOLDS);
}

/* Claim 8 not run (waits store none): unknown, with why, and no check. */
static void test_claim_waits_not_run(void **s)
{
    (void)s;
    expect(CLAIM_WAITS, "uuidv7", CLAIM_UNKNOWN);
    assert_int_equal(rows[CLAIM_WAITS - 1].checks, 0);
    assert_string_equal(rows[CLAIM_WAITS - 1].unknown, "waits store none");
}

/* Claims 10 and 11 not run (no_failover): unknown, with why, and no check. */
static void test_claim_failover_not_run(void **s)
{
    (void)s;
    expect(CLAIM_FAILOVER, "counter", CLAIM_UNKNOWN);
    expect(CLAIM_LEASES, "snowflake", CLAIM_UNKNOWN);
    for (int no = CLAIM_FAILOVER; no <= CLAIM_LEASES; no++) {
        assert_int_equal(rows[no - 1].checks, 0);
        assert_string_equal(rows[no - 1].unknown, "not run (no_failover)");
    }
}

/* Claim 8's verdict from crafted figures, both ways: 4x the random wait per order at a
 * share of 0.3 holds; equal waits (a store that serialises every writer, whatever the key)
 * fail the ratio check; 1.6x at a share of 0.01 fails the share check alone; an empty
 * figure is unknown, never a pass. */
static void test_claim_waits_verdict(void **s)
{
    (void)s;
    static const struct {
        claim_wait_fig ordered, random;
        enum claim_verdict want;
        int failed;
        const char *why;                         /* in failures or unknown */
    } cases[] = {
        { { 0.30, 4000 }, { 0.08, 1000 }, CLAIM_HOLDS, 0, "" },
        { { 0.60, 1500 }, { 0.60, 1499 }, CLAIM_FAILS, 1, "is not 1.5x uuidv4's" },
        { { 0.60, 1000 }, { 0.60, 1000 }, CLAIM_FAILS, 1, "is not 1.5x uuidv4's" },
        { { 0.01, 1600 }, { 0.01, 1000 }, CLAIM_FAILS, 1, "wait share 0.010 is below 0.02" },
        { { 0.30, 4000 }, { -1, -1 }, CLAIM_UNKNOWN, 0, "reported no wait figures" },
        { { -1, -1 }, { -1, -1 }, CLAIM_UNKNOWN, 0, "reported no wait figures" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        claim_row r;
        memset(&r, 0, sizeof r);
        r.subject = "uuidv7";
        claim_waits_judge(&r, "postgres", 16, &cases[i].ordered, &cases[i].random);
        claim_verdict(&r);
        if (r.verdict != cases[i].want || r.failed != cases[i].failed)
            fail_msg("case %zu: %s with %d failed (%s%s)", i, claim_verdict_text(r.verdict),
                     r.failed, r.failures, r.unknown);
        const char *text = cases[i].want == CLAIM_UNKNOWN ? r.unknown : r.failures;
        if (!strstr(text, cases[i].why)) fail_msg("case %zu: '%s' lacks '%s'", i, text,
                                                  cases[i].why);
    }
    assert_string_equal(claim_verdict_text(CLAIM_UNKNOWN), "unknown");
}

/* Claim 12 holds on the registered uuidv7: its recent lookups on sqlite with a cold cache
 * miss at most half as many pages as uuidv4's; both strategies' figures are named. */
static void test_claim_reads(void **s)
{
    (void)s;
    expect(CLAIM_READS, "uuidv7", CLAIM_HOLDS);
    const char *m = rows[CLAIM_READS - 1].measured;
    assert_non_null(strstr(m, "uuidv7 0."));
    assert_non_null(strstr(m, "uuidv4 0."));
    assert_non_null(strstr(m, "recent ratio"));
}

/* Claim 12's verdict from crafted figures, both ways: 0.02 against 0.23 misses per recent
 * lookup holds; 0.12 against 0.23 (just over half) and equal figures (a read workload that
 * ignores recency) fail the ratio check; a row not found fails alone; a random figure of 0
 * (a store that counts no misses) is unknown, never a pass. */
static void test_claim_reads_verdict(void **s)
{
    (void)s;
    static const struct {
        claim_read_fig ordered, random;
        enum claim_verdict want;
        int failed;
        const char *why;                         /* in failures or unknown */
    } cases[] = {
        { { 0.02, 0.28, 100, 100 }, { 0.23, 0.28, 100, 100 }, CLAIM_HOLDS, 0, "" },
        { { 0.115, 0.28, 100, 100 }, { 0.23, 0.28, 100, 100 }, CLAIM_HOLDS, 0, "" },
        { { 0.12, 0.28, 100, 100 }, { 0.23, 0.28, 100, 100 }, CLAIM_FAILS, 1,
          "are not at most 0.50x uuidv4's" },
        { { 0.28, 0.28, 100, 100 }, { 0.28, 0.28, 100, 100 }, CLAIM_FAILS, 1,
          "misses per recent lookup (0.2800)" },
        { { 0.02, 0.28, 100, 99 }, { 0.23, 0.28, 100, 100 }, CLAIM_FAILS, 1,
          "uuidv7 found 99 of 100" },
        { { 0, 0, 100, 100 }, { 0, 0, 100, 100 }, CLAIM_UNKNOWN, 0, "counted no misses" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        claim_row r;
        memset(&r, 0, sizeof r);
        r.subject = "uuidv7";
        claim_reads_judge(&r, "sqlite", &cases[i].ordered, &cases[i].random);
        claim_verdict(&r);
        if (r.verdict != cases[i].want || r.failed != cases[i].failed)
            fail_msg("case %zu: %s with %d failed (%s%s)", i, claim_verdict_text(r.verdict),
                     r.failed, r.failures, r.unknown);
        const char *text = cases[i].want == CLAIM_UNKNOWN ? r.unknown : r.failures;
        if (!strstr(text, cases[i].why)) fail_msg("case %zu: '%s' lacks '%s'", i, text,
                                                  cases[i].why);
    }
}

/* Claim 9 holds on the registered strategies: time-ordered keys on one range shard, the
 * uniform ones (uuidv4, bitrev, autorandom) spread; every judged strategy is named. */
static void test_claim_hotspot(void **s)
{
    (void)s;
    expect(CLAIM_HOTSPOT, "range partitioning", CLAIM_HOLDS);
    const char *m = rows[CLAIM_HOTSPOT - 1].measured;
    static const char *const named[] = { "counter", "snowflake", "uuidv7", "uuidv4", "bitrev",
                                         "autorandom", "time-ordered: ", "uniform: " };
    for (size_t i = 0; i < sizeof named / sizeof *named; i++)
        if (!strstr(m, named[i])) fail_msg("claim 9 does not name %s: %s", named[i], m);
    assert_null(strstr(m, "interleaved"));      /* neither kind: not judged in the claim */
}

/* Claim 9's verdict both ways on crafted figures (B = 4, n = 10,000: Y = 0.276): holds for
 * time-ordered 1.0 and uniform 0.25; fails a time-ordered share at X (0.5: not above) and
 * a uniform one above Y; a strategy of neither kind is shown, not judged; the thresholds. */
static void test_hotspot_verdict(void **s)
{
    (void)s;
    assert_true(claim_hotspot_x(4) == 0.5);
    assert_true(fabs(claim_hotspot_y(4, 10000) - (0.25 + 6 * sqrt(0.1875 / 10000))) < 1e-12);
    claim_hot v[] = {
        { "t", CLAIM_HOT_TIME, 1.0, 10000, 0 }, { "u", CLAIM_HOT_UNIFORM, 0.25, 10000, 0 },
        { "o", CLAIM_HOT_OTHER, 1.0, 10000, 0 },
    };
    claim_row r;
    memset(&r, 0, sizeof r);
    assert_int_equal(claim_hotspot_judge(&r, v, 3, 4, "x, "), 0);
    claim_verdict(&r);
    assert_int_equal(r.verdict, CLAIM_HOLDS);
    assert_int_equal(r.checks, 2);                 /* "o" is not checked */
    assert_non_null(strstr(r.measured, "x, other: o 1.0000 (measured)"));
    v[0].share = 0.5;                              /* time-ordered at X: not above it */
    v[1].share = 0.28;                             /* uniform above Y = 0.2760 */
    memset(&r, 0, sizeof r);
    assert_int_equal(claim_hotspot_judge(&r, v, 3, 4, ""), 2);
    claim_verdict(&r);
    assert_int_equal(r.verdict, CLAIM_FAILS);
    assert_non_null(strstr(r.failures, "t: 0.5000 not above X"));
    assert_non_null(strstr(r.failures, "u: 0.2800 above Y = 0.2760"));
    v[0].share = 1.0;                              /* each side alone fails it too */
    memset(&r, 0, sizeof r);
    assert_int_equal(claim_hotspot_judge(&r, v, 2, 4, ""), 1);
    v[1].share = 0.2759;
    memset(&r, 0, sizeof r);
    assert_int_equal(claim_hotspot_judge(&r, v, 2, 4, ""), 0);
    v[1].share = 0.29;                             /* within Y + a place of 1/32 ... */
    v[1].slack = claim_hotspot_slack(idb_strategy_find("autorandom"), 4, 1);
    assert_true(v[1].slack == 1.0 / 32);
    memset(&r, 0, sizeof r);
    assert_int_equal(claim_hotspot_judge(&r, v, 2, 4, ""), 0);
    v[1].share = 0.31;                             /* ... not beyond it */
    memset(&r, 0, sizeof r);
    assert_int_equal(claim_hotspot_judge(&r, v, 2, 4, ""), 1);
    /* equal slices on a power of two fall on the places' edges: no slack */
    assert_true(claim_hotspot_slack(idb_strategy_find("autorandom"), 4, 0) == 0);
    assert_true(claim_hotspot_slack(idb_strategy_find("autorandom"), 3, 0) == 1.0 / 32);
}

/* verdict(): a failed check fails the claim, with or without a caveat; no check at all
 * fails it too; only passed checks hold (with the caveat when there is one). */
static void test_verdict(void **s)
{
    (void)s;
    claim_row r;
    memset(&r, 0, sizeof r);
    claim_verdict(&r);
    assert_int_equal(r.verdict, CLAIM_FAILS);                 /* nothing checked */
    assert_int_equal(claim_check(&r, 1, "fine"), 1);
    claim_verdict(&r);
    assert_int_equal(r.verdict, CLAIM_HOLDS);
    assert_int_equal(claim_check(&r, 0, "x %d", 7), 0);
    assert_int_equal(claim_check(&r, 1, "fine"), 1);
    claim_verdict(&r);
    assert_int_equal(r.verdict, CLAIM_FAILS);
    assert_int_equal(r.checks, 3);
    assert_int_equal(r.failed, 1);
    assert_string_equal(r.failures, "x 7");
    strcpy(r.caveat, "but");
    claim_verdict(&r);
    assert_int_equal(r.verdict, CLAIM_FAILS);                 /* a caveat does not save it */
    claim_check(&r, 0, "y");
    assert_string_equal(r.failures, "x 7; y");
    memset(&r, 0, sizeof r);
    claim_check(&r, 1, "fine");
    strcpy(r.caveat, "but");
    claim_verdict(&r);
    assert_int_equal(r.verdict, CLAIM_CAVEAT);
    assert_string_equal(claim_verdict_text(CLAIM_FAILS), "does not hold");
}

/* 1 if s ends with one of the labels that say where a figure comes from. */
static int labelled(const char *s, size_t len)
{
    static const char *const labels[] = { "(measured)", "(computed from the format)",
                                          "(computed)", "(format)", "(simulated)",
                                          "(not measured)" };
    for (size_t i = 0; i < sizeof labels / sizeof *labels; i++) {
        size_t n = strlen(labels[i]);
        if (len >= n && strncmp(s + len - n, labels[i], n) == 0) return 1;
    }
    return 0;
}

/* The markdown table: a header, a rule and one row per claim, `| N | SUBJECT: ...`, the
 * verdict last; every "; "-separated part of every measured cell ends with its label. */
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
    char *line = strchr(strchr(buf, '\n') + 1, '\n') + 1;
    for (int i = 0; i < CLAIMS_N; i++, line = strchr(line, '\n') + 1) {
        char head[64];
        snprintf(head, sizeof head, "| %d | %s: ", i + 1, rows[i].subject);
        assert_true(strncmp(line, head, strlen(head)) == 0);
        char *end = strchr(line, '\n'), *last = end - 2;
        while (last > line && *last != '|') last--;
        assert_true(strncmp(last, "| holds", 7) == 0 || strncmp(last, "| does not hold", 15) == 0 ||
                    strncmp(last, "| unknown: ", 11) == 0);
        const char *m = rows[i].measured;
        for (const char *part = m; *part;) {
            const char *semi = strstr(part, "; ");
            size_t n = semi ? (size_t)(semi - part) : strlen(part);
            if (!labelled(part, n)) fail_msg("claim %d: unlabelled figure: %.*s", i + 1, (int)n,
                                             part);
            part += n + (semi ? 2 : 0);
        }
    }
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

/* The birthday test's expectations: 2^26 IDs of 48 bits expect 8 repeats (2^51 - 2^25
 * pairs / 2^48), 2^22 of 40 bits too; 122 bits expect the fingerprint's 2^-25 only. */
static void test_birthday_expectations(void **s)
{
    (void)s;
    assert_true(fabs(collide_expected(exp2(26), 48) - 8) < 1e-4);
    assert_true(fabs(collide_expected(exp2(22), 40) - 8) < 1e-4);
    assert_true(fabs(collide_expected(exp2(26), 122) / exp2(51 - 76) - 1) < 1e-6);
    assert_true(exp(-collide_expected(exp2(26), 48)) < 3.4e-4);   /* the stated miss rate */
}

/* Run every test of this file. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_claim_counter),
        cmocka_unit_test(test_claim_range),
        cmocka_unit_test(test_claim_interleaved),
        cmocka_unit_test(test_claim_uuidv4),
        cmocka_unit_test(test_claim_uuidv7),
        cmocka_unit_test(test_claim_snowflake),
        cmocka_unit_test(test_claim_reads),
        cmocka_unit_test(test_claim_reads_verdict),
        cmocka_unit_test(test_claim_objectid),
        cmocka_unit_test(test_claim_waits_not_run),
        cmocka_unit_test(test_claim_failover_not_run),
        cmocka_unit_test(test_claim_waits_verdict),
        cmocka_unit_test(test_claim_hotspot),
        cmocka_unit_test(test_hotspot_verdict),
        cmocka_unit_test(test_verdict),
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_collide_formula),
        cmocka_unit_test(test_birthday_expectations),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
