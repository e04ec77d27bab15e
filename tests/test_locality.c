/* test_locality.c — `idbench locality`'s summary (loc_summary.h) against hand-made rows
 * whose ratios are known: each ratio from the unrounded counts, against counter on the same
 * store (never another store's, never the padded row), counts instead of a multiple below
 * MX_LOC_FEW, the prose's ordered/spread split read from the measured share at the end, the
 * width sentence against the padded counter, and the CSV carrying the figures unrounded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loc_summary.h"
#include "tmpdir.h"

/* A row: pages written, misses and inserts/s of a run of 100,000 rows. */
static mx_loc_row row(const char *store, const char *strategy, int key, int padded,
                      double pages, double tail, double misses, double ips)
{
    return (mx_loc_row){ .store = store, .strategy = strategy, .key_bytes = key, .padded = padded,
                         .ids = 100000, .pages_written = pages, .fill = 0.9, .tail = tail,
                         .misses = misses, .inserts_per_s = ips };
}

/* The rows of two stores: the figures of a sqlite and a pagesim run of this machine. */
static int rows(mx_loc_row *r)
{
    int n = 0;
    r[n++] = row("sqlite", "counter", 8, 0, 4814, 1.0, 1, 296664);
    r[n++] = row("sqlite", "counter", 16, 1, 6545, 1.0, 2, 150000);
    r[n++] = row("sqlite", "uuidv7", 16, 0, 6545, 1.0, 2, 318932);
    r[n++] = row("sqlite", "uuidv4", 16, 0, 161239, 0.0003, 77908, 12464);
    r[n++] = row("pagesim", "counter", 8, 0, 2514, 1.0, 100, -1);
    r[n++] = row("pagesim", "counter", 16, 1, 2723, 1.0, 100, -1);
    r[n++] = row("pagesim", "uuidv7", 16, 0, 2723, 0.97, 100, -1);
    r[n++] = row("pagesim", "uuidv4", 16, 0, 18255, 0.0001, 14280, -1);
    return n;
}

/* The table as text. */
static char *table(const mx_loc_row *r, int n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    mx_loc_print(f, r, n);
    fclose(f);
    return buf;
}

/* The line of the table that starts with store and label. */
static const char *line_of(const char *t, const char *store, const char *label)
{
    for (const char *p = t; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        size_t ls = strlen(store);
        if (!strncmp(p, store, ls) && p[ls] == ' ') {
            const char *q = p + ls;
            while (*q == ' ') q++;
            if (!strncmp(q, label, strlen(label)) && q[strlen(label)] == ' ') return p;
        }
    }
    fail_msg("no line for %s %s in:\n%s", store, label, t);
    return NULL;
}

/* Whether the line starting at l holds s before its end. */
static int line_has(const char *l, const char *s)
{
    const char *e = strchr(l, '\n'), *h = strstr(l, s);
    return h && (!e || h < e);
}

static void ratio_rules(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(mx_loc_ratio(161239, 4814, 1, b, sizeof b), "33.5x");
    assert_string_equal(mx_loc_ratio(77908, 1, 1, b, sizeof b), "77,908 vs 1");
    assert_string_equal(mx_loc_ratio(77908, MX_LOC_FEW - 1, 1, b, sizeof b), "77,908 vs 29");
    assert_string_equal(mx_loc_ratio(60, MX_LOC_FEW, 1, b, sizeof b), "2x");
    assert_string_equal(mx_loc_ratio(5, 0, 1, b, sizeof b), "5 vs 0");
    assert_string_equal(mx_loc_ratio(5, 0, 0, b, sizeof b), "n/a");
    assert_string_equal(mx_loc_ratio(-1, 10, 1, b, sizeof b), "n/a");
    assert_string_equal(mx_loc_ratio(12464, 296664, 0, b, sizeof b), "0.042x");
}

static void table_ratios(void **state)
{
    (void)state;
    mx_loc_row r[16];
    int n = rows(r);
    char *t = table(r, n);
    /* pages: 161239 / 4814 = 33.49 (the per-ID figures 1.61 / 0.0481 would say 33.47) */
    const char *l = line_of(t, "sqlite", "uuidv4");
    assert_true(line_has(l, "1.61 (33.5x)"));
    assert_true(line_has(l, "(77,908 vs 1)"));          /* counter missed once: counts */
    assert_true(line_has(l, "(0.042x)"));               /* inserts/s: 12464 / 296664 */
    /* the padded row against counter, not against itself */
    assert_true(line_has(line_of(t, "sqlite", "counter (16 B)"), "(1.36x)"));
    /* pagesim's rows against pagesim's counter: 18255 / 2514 = 7.26, misses 14280 / 100 */
    l = line_of(t, "pagesim", "uuidv4");
    assert_true(line_has(l, "(7.26x)"));
    assert_true(line_has(l, "(143x)"));
    assert_true(line_has(l, "-"));                      /* no inserts/s: unknown, not 0 */
    free(t);
}

static void sentences(void **state)
{
    (void)state;
    mx_loc_row r[16];
    int n = rows(r);
    char s[2048];
    assert_int_equal(mx_loc_sentences(r, n, s, sizeof s), 0);
    /* ordered: uuidv7 on both stores, 6545/4814 = 1.36 and 2723/2514 = 1.08 */
    assert_non_null(strstr(s, "(uuidv7) wrote 1.08-1.36x counter's pages per ID"));
    /* spread: uuidv4, 7.26 (pagesim) to 33.5 (sqlite); at most 0.03% (sqlite) at the end */
    assert_non_null(strstr(s, "uuidv4, whose keys landed at the end 0.03% of the time at most, "
                              "wrote 7.26-33.5x"));
    /* width: the padded counters 1.08-1.36x; uuidv4 against them 18255/2723 = 6.70,
     * 161239/6545 = 24.6 */
    assert_non_null(strstr(s, "padded to 16 bytes) wrote 1.08-1.36x"));
    assert_non_null(strstr(s, "uuidv4 wrote 6.7-24.6x the padded counter's"));

    /* a spread strategy of another width (12 bytes) is not set against the 16-byte padded
     * counter: only against counter, in sentence one */
    r[n] = row("sqlite", "objectid", 12, 0, 50000, 0.001, 100, 100000);
    assert_int_equal(mx_loc_sentences(r, n + 1, s, sizeof s), 0);
    assert_non_null(strstr(s, "objectid, whose keys landed"));
    assert_null(strstr(s, "objectid wrote"));

    /* a strategy below MX_LOC_END_SHARE on one store is spread, whatever its name */
    r[6].tail = MX_LOC_END_SHARE - 0.01;
    assert_int_equal(mx_loc_sentences(r, n, s, sizeof s), 0);
    assert_non_null(strstr(s, "uuidv7, whose keys landed at the end"));
    assert_null(strstr(s, "(uuidv7)"));
    r[6].tail = MX_LOC_END_SHARE;                       /* the boundary itself: ordered */
    assert_int_equal(mx_loc_sentences(r, n, s, sizeof s), 0);
    assert_non_null(strstr(s, "(uuidv7)"));

    /* no counter row at all: nothing to compare with, said so */
    for (int i = 0; i < n; i++) r[i].strategy = "uuidv4";
    assert_int_equal(mx_loc_sentences(r, n, s, sizeof s), IDB_EINPUT);
    assert_non_null(strstr(s, "nothing to compare with"));
}

static void csv_unrounded(void **state)
{
    (void)state;
    mx_loc_row r[16];
    int n = rows(r);
    r[0].fill = 0.98765432101;
    char dir[256], path[300], line[512];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    snprintf(path, sizeof path, "%s/l.csv", dir);
    idb_err err = { 0 };
    assert_int_equal(mx_loc_write_csv(path, r, n, &err), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "store,strategy,key_bytes,padded,ids,pages_written,fill_factor,"
                              "tail_insert_frac,cache_misses,inserts_per_s\n");
    assert_non_null(fgets(line, sizeof line, f));
    assert_true(!strncmp(line, "sqlite,counter,8,0,100000,4814,", 31));
    char *end;
    assert_true(strtod(line + 31, &end) == 0.98765432101);   /* every digit kept */
    assert_string_equal(end, ",1,1,296664\n");
    int lines = 2;
    while (fgets(line, sizeof line, f)) lines++;
    assert_int_equal(lines, n + 1);
    assert_true(line[strlen(line) - 2] == ',');          /* pagesim: inserts/s empty */
    fclose(f);
    idb_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ratio_rules),
        cmocka_unit_test(table_ratios),
        cmocka_unit_test(sentences),
        cmocka_unit_test(csv_unrounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
