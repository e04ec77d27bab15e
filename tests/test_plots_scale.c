/* test_plots_scale.c — what the report says of series.csv, against hand-made windows whose
 * figures are known: where a strategy falls below half of counter's (and where it only
 * dips), where the sweep starts against the cache, the cost per insert at a size and its
 * fitted growth k, pagesim's page I/Os per insert, and the device model's ratios with the
 * presets' figures.
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

#include "matrix.h"
#include "plots.h"
#include "report_doc.h"
#include "tmpdir.h"
#include "results_fixture.h"

#define W 1000                                   /* rows per window */
#define CACHE 1000000                            /* cache bytes; index 100 bytes a row */

/* Throughput of a window ending at rows: a function of the test. */
typedef double (*ips_fn)(double rows);

static double flat1000(double rows) { (void)rows; return 1000; }
static double rising(double rows) { return 900 + rows / 100; }
static double cliff(double rows) { return rows > 40000 ? 100 : 1000; }
static double dip(double rows) { return rows > 50000 ? 700 : rows > 40000 ? 600 : 1000; }
static double dent(double rows) { return rows > 20000 && rows <= 25000 ? 100 : 1000; }
static double low_half_low(double rows) { return rows > 20000 && rows <= 40000 ? 500 : 400; }
static double half(double rows) { (void)rows; return 500; }
static double sqrt_cost(double rows) { return 1e6 / sqrt(rows); }    /* µs = sqrt(rows) */

/* One run of windows up to n rows into f: measured (ips) or, with ips NULL, pagesim's
 * counts: reads and writes per window. */
static void run(FILE *f, const char *store, const char *strategy, int n, ips_fn ips,
                int reads, int writes, int cached)
{
    for (int rows = W; rows <= n; rows += W) {
        fprintf(f, "series,%s,%s,%d,%d,", strategy, store, rows, rows * 100);
        if (ips) fprintf(f, "%.6f,%d,%d,%d,", ips(rows), reads, writes, reads);
        else fprintf(f, ",%d,%d,%d,", reads, writes, reads);
        fprintf(f, ",%s,\n", cached ? "1000000" : "");
    }
}

typedef void (*fill_fn)(FILE *f);

/* A results directory holding series.csv written by fill, loaded into r. */
static void load(mx_results *r, char *dir, size_t len, fill_fn fill)
{
    FILE *f = fixture_create(dir, len, "series.csv");
    fputs("block,strategy,store,rows,index_bytes,inserts_per_s,cache_misses,pages_written,"
          "read_pages,lat_p99_ns,cache_bytes,modelled_inserts_per_s\n", f);
    fill(f);
    fixture_load(r, dir, f);
}

/* The sentences of plot name, or the report's scale tables (name NULL), for the series.csv
 * that fill writes; a malloc'd string. */
static char *say(fill_fn fill, const char *name)
{
    mx_results r;
    char dir[MX_SCRATCH_MAX], *buf = NULL;
    size_t len = 0;
    load(&r, dir, sizeof dir, fill);
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    if (name) {
        const mx_plot *p = NULL;
        for (int i = 0; i < mx_n_plots; i++)
            if (!strcmp(mx_plots[i].name, name)) p = &mx_plots[i];
        assert_non_null(p);
        assert_int_equal(p->sentences(&r, f), 0);
    } else {
        mx_doc d = { .ops = &mx_doc_md, .r = &r, .f = f };
        mx_report_scale(&r, &d);
    }
    fclose(f);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
    return buf;
}

static void fill_cliff(FILE *f)
{
    run(f, "sqlite", "counter", 60000, flat1000, 0, 0, 1);
    run(f, "sqlite", "uuidv7", 60000, rising, 0, 0, 1);
    run(f, "sqlite", "uuidv4", 60000, cliff, 0, 0, 1);
}

static void fill_dip(FILE *f)
{
    run(f, "sqlite", "counter", 60000, flat1000, 0, 0, 1);
    run(f, "sqlite", "uuidv4", 60000, dip, 0, 0, 1);
}

static void fill_dent(FILE *f)
{
    run(f, "sqlite", "counter", 60000, flat1000, 0, 0, 1);
    run(f, "sqlite", "uuidv4", 60000, dent, 0, 0, 1);
}

/* At exactly half of counter's: uuidv7 throughout; uuidv4 below (0.4), then exactly half
 * from 20,000 to 40,000 rows, then below for good. */
static void fill_half(FILE *f)
{
    run(f, "sqlite", "counter", 60000, flat1000, 0, 0, 1);
    run(f, "sqlite", "uuidv7", 60000, half, 0, 0, 1);
    run(f, "sqlite", "uuidv4", 60000, low_half_low, 0, 0, 1);
}

/* Windows of other sizes than counter's: uuidv4 ends windows at 10,000, 10,100 and 10,200
 * rows, counter at 10,000, 10,150 and 10,200; a point that spans a window counter lacks has
 * no ratio, so only the first counts. */
static void fill_unmatched(FILE *f)
{
    static const int c[] = { 10000, 10150, 10200 }, u[] = { 10000, 10100, 10200 };
    for (int i = 0; i < 3; i++)
        fprintf(f, "series,counter,sqlite,%d,%d,1000,0,0,0,,1000000,\n", c[i], c[i] * 100);
    for (int i = 0; i < 3; i++)
        fprintf(f, "series,uuidv4,sqlite,%d,%d,%d,0,0,0,,1000000,\n", u[i], u[i] * 100,
                i ? 100 : 1000);
}

/* uuidv4 drops to a tenth after 40,000 rows (4× the cache): the point at 41,000 rows has
 * one slow window of nine (exactly half: not below), the one at 42,000 two (a third).
 * uuidv7 rises from 0.91 at its first window. A dip to 0.6 (then 0.7 after 50,000 rows)
 * never falls below half; its lowest point is the one whose windows all lie in the dip
 * (50,000 rows: 5×). A tenth between 20,000 and 25,000 rows only: below half, but not for
 * good. Exactly half is not below: a run at half throughout stays above; a run at half
 * between stretches below falls below for good only after it (41,000 rows). */
static void test_cliff_sentence(void **state)
{
    (void)state;
    char *s = say(fill_cliff, "cliff");
    assert_non_null(strstr(s, "On sqlite: uuidv4 (from 0.1× the cache) falls below half of "
                              "counter's at 4.2× the cache (42,000 rows) and stays there (0.1 "
                              "at the end); uuidv7 (from 0.1× the cache) stays above half of "
                              "counter's (lowest 0.91, at 0.1× the cache)."));
    assert_non_null(strstr(s, "between 0.8 n and n"));
    free(s);
    s = say(fill_dip, "cliff");
    assert_non_null(strstr(s, "uuidv4 (from 0.1× the cache) stays above half of counter's "
                              "(lowest 0.6, at 5× the cache)."));
    free(s);
    s = say(fill_unmatched, "cliff");
    assert_non_null(strstr(s, "uuidv4 (from 1× the cache) stays above half of counter's "
                              "(lowest 1, at 1× the cache)."));
    free(s);
    s = say(fill_half, "cliff");                  /* exactly half is not below half */
    assert_non_null(strstr(s, "uuidv7 (from 0.1× the cache) stays above half of counter's "
                              "(lowest 0.5, at 0.1× the cache)"));
    assert_non_null(strstr(s, "uuidv4 (from 0.1× the cache) falls below half of counter's at "
                              "4.1× the cache (41,000 rows) and stays there (0.4 at the end)"));
    free(s);
    s = say(fill_dent, "cliff");
    assert_non_null(strstr(s, "uuidv4 (from 0.1× the cache) falls below but comes back above "
                              "half of counter's (lowest 0.1, at 2.5× the cache)."));
    free(s);
}

static void fill_counts(FILE *f)
{
    run(f, "sqlite", "counter", 20000, flat1000, 3, 7, 1);    /* 3 misses, 7 writes a window */
    run(f, "sqlite", "uuidv4", 20000, flat1000, 40, 90, 1);
}

/* series_misses plots misses per insert (3 and 40 per 1,000-row window: 0.003 and 0.04),
 * not pages written (0.007, 0.09): every point of its data file, block by block. */
static void test_misses_plot_data(void **state)
{
    (void)state;
    mx_results r;
    char dir[MX_SCRATCH_MAX], path[MX_FILE_MAX + 16];
    load(&r, dir, sizeof dir, fill_counts);
    const mx_plot *p = NULL;
    for (int i = 0; i < mx_n_plots; i++)
        if (!strcmp(mx_plots[i].name, "series_misses")) p = &mx_plots[i];
    assert_non_null(p);
    FILE *vars = tmpfile();
    assert_non_null(vars);
    idb_err why = { 0 };
    if (p->prepare(&r, dir, vars, &why) != 0) fail_msg("series_misses: %s", why.msg);
    fclose(vars);
    snprintf(path, sizeof path, "%s/misses1.dat", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static const double want[] = { 0.003, 0.04 };    /* counter's block, then uuidv4's */
    int block = 0, points[2] = { 0, 0 }, blank = 1;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        double x, y;
        if (sscanf(line, "%lf %lf", &x, &y) != 2) {
            if (!blank) block++;
            blank = 1;
            continue;
        }
        blank = 0;
        assert_true(block < 2);
        if (!(fabs(y - want[block]) <= 1e-9))
            fail_msg("misses1.dat, block %d: %g misses per insert, want %g", block, y,
                     want[block]);
        points[block]++;
    }
    fclose(f);
    assert_true(points[0] > 0 && points[1] > 0);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
}

static void fill_growth(FILE *f)
{
    run(f, "lmdb", "counter", 100000, sqrt_cost, 0, 0, 0);
    for (int rows = W; rows <= 10000; rows += W)    /* pagesim: 0.5 + 0.25 I/Os per insert */
        fprintf(f, "series,counter,pagesim,%d,%d,,500,250,500,,1000000,\n", rows, rows * 100);
}

/* Cost ∝ sqrt(n): the table gives k = 0.5 over the top decade, the mean cost of the
 * windows ending at 9,000 and 10,000 rows at 1e4, of those at 81,000 .. 100,000 at 1e5;
 * pagesim's page reads + writes per insert. */
static void test_cost_table(void **state)
{
    (void)state;
    char *s = say(fill_growth, NULL);
    assert_non_null(strstr(s, "| series | lmdb | — | counter | µs | 97.4 | 301 | — | — | "
                              "100,000 | 0.5 |"));
    assert_non_null(strstr(s, "| series | pagesim | 977 | counter | page I/Os | 0.75 | — | — "
                              "| — | 10,000 | "));
    free(s);
}

static void fill_device(FILE *f)
{
    run(f, "pagesim", "counter", 20000, NULL, 0, 10, 1);
    run(f, "pagesim", "uuidv4", 20000, NULL, 1000, 1000, 1);
}

/* pagesim measures no time: with hdd every page costs 12,360 µs, so uuidv4 (2,000 pages a
 * window) runs at 10 / 2,000 = 0.5% of counter (10 writes); with ssd (50 µs a read, 65 a
 * write) at 650 / 115,000 = 0.565%. No measured ratio. */
static void test_device_table(void **state)
{
    (void)state;
    char *s = say(fill_device, NULL);
    assert_non_null(strstr(s, "| pagesim | uuidv4 | hdd | 20,000 | 2 | 0.5 | n/a | about 20%"));
    assert_non_null(strstr(s, "| pagesim | uuidv4 | ssd | 20,000 | 2 | 0.565 | n/a | about 50%"));
    assert_null(strstr(s, "| pagesim | counter | hdd"));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cliff_sentence),
        cmocka_unit_test(test_misses_plot_data),
        cmocka_unit_test(test_cost_table),
        cmocka_unit_test(test_device_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
