/* test_series.c — throughput over time and the device model (issue 13):
 *  - the windows of --series add up to the whole run (inserts, page writes, reads, misses)
 *    on sqlite and pagesim with two shards, a last window shorter than the others included;
 *  - the device model charges exactly read_pages * read_us + pages_written * write_us of
 *    the run's counted reads and writes, and its modelled throughput uses that time plus
 *    the measured busy time, per run and per window;
 *  - the presets: nvme, ssd and hdd give their cited figures; an unknown one, or a preset
 *    with figures, is refused;
 *  - a refused run leaves no series file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "insert.h"
#include "tmpdir.h"

#define COLS 11
#define ROWS_MAX 64
#define DIR_CHARS 256
#define PATH_CHARS 512
#define LINE_CHARS 1024

/* The series columns the tests read, by their place in series.h's list. */
enum { C_ROWS = 2, C_INDEX = 3, C_IPS = 4, C_MISS = 5, C_WRITTEN = 6, C_READ = 7, C_P99 = 8 };

/* A series file read back: each row's fields as numbers (-1 where empty). */
typedef struct series_file {
    int n;
    double v[ROWS_MAX][COLS];
} series_file;

/* Read path (header checked) into f. */
static void read_series(const char *path, series_file *f)
{
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    char line[LINE_CHARS];
    assert_non_null(fgets(line, sizeof line, in));
    assert_string_equal(line, "strategy,store,rows,index_bytes,inserts_per_s,cache_misses,"
                              "pages_written,read_pages,lat_p99_ns,cache_bytes,"
                              "modelled_inserts_per_s\n");
    f->n = 0;
    while (fgets(line, sizeof line, in) && f->n < ROWS_MAX) {
        char *rest = line;
        for (int c = 0; c < COLS; c++) {
            char *tok = strsep(&rest, ",\n");
            assert_non_null(tok);
            f->v[f->n][c] = *tok ? atof(tok) : -1;
        }
        f->n++;
    }
    fclose(in);
}

/* Sum of column c over f's rows. */
static double sum(const series_file *f, int c)
{
    double s = 0;
    for (int i = 0; i < f->n; i++) s += f->v[i][c];
    return s;
}

/* One run of strategy on store with a series of window; checks the windows against the
 * run's result. */
static void adds_up(const char *store, const char *cache, long long ids, long long window)
{
    char dir[DIR_CHARS], out[DIR_CHARS], path[PATH_CHARS];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    assert_int_equal(idb_tmpdir_make(out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/series.csv", out);
    idb_insert_config cfg = { .store = idb_store_find(store),
                              .strategy = idb_strategy_find("uuidv4"), .ids = ids,
                              .batch = 500, .shards = 2, .shops = 50, .shop_skew = 1.0,
                              .dir = dir, .seed = 7, .window = window, .series = path,
                              .store_kv = { cache }, .n_store_kv = 1 };
    idb_insert_result *res = malloc(sizeof *res);
    idb_err err = { 0 };
    assert_int_equal(idb_insert_run(&cfg, res, &err), 0);
    series_file *f = malloc(sizeof *f);
    read_series(path, f);
    assert_int_equal(f->n, (ids + window - 1) / window);
    for (int i = 0; i < f->n; i++) {
        double end = (i + 1) * window < ids ? (double)((i + 1) * window) : (double)ids;
        assert_true(f->v[i][C_ROWS] == end);
        assert_true(f->v[i][C_INDEX] > 0);
        assert_true(i == 0 || f->v[i][C_INDEX] >= f->v[i - 1][C_INDEX]);
        assert_true(cfg.store->model ? f->v[i][C_IPS] < 0 && f->v[i][C_P99] < 0
                                     : f->v[i][C_IPS] > 0 && f->v[i][C_P99] > 0);
    }
    assert_true(sum(f, C_MISS) == (double)res->st.cache_misses);
    assert_true(sum(f, C_WRITTEN) == (double)res->st.pages_written);
    assert_true(sum(f, C_READ) == (double)res->st.read_pages);
    assert_true(res->st.cache_misses > 0 && res->st.pages_written > 0);
    free(f);
    free(res);
    idb_tmpdir_remove(dir);
    idb_tmpdir_remove(out);
}

/* sqlite and pagesim, with a small cache so that there are misses to add up. */
static void windows_add_up(void **state)
{
    (void)state;
    adds_up("pagesim", "cache_pages=20", 12000, 3000);
    adds_up("sqlite", "cache_pages=20", 12000, 3000);
    adds_up("sqlite", "cache_pages=20", 10000, 3000);   /* a last window of 1,000 */
}

/* A run's modelled time is exactly its counted reads and writes times the figures. */
static void charged(const char *store, const char *const *kv, int nkv, double read_us,
                    double write_us)
{
    char dir[DIR_CHARS];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    idb_insert_config cfg = { .store = idb_store_find(store),
                              .strategy = idb_strategy_find("uuidv4"), .ids = 5000,
                              .batch = 500, .shards = 1, .shops = 50, .shop_skew = 1.0,
                              .dir = dir, .seed = 5, .n_store_kv = nkv };
    for (int i = 0; i < nkv; i++) cfg.store_kv[i] = kv[i];
    idb_insert_result *res = malloc(sizeof *res);
    idb_err err = { 0 };
    assert_int_equal(idb_insert_run(&cfg, res, &err), 0);
    assert_true(res->st.read_pages > 0 && res->st.pages_written > 0);
    double want = ((double)res->st.read_pages * read_us +
                   (double)res->st.pages_written * write_us) / 1e6;
    assert_true(fabs(res->modelled_device_s - want) <= 1e-9 * want);
    double busy = cfg.store->model ? 0 : 5000 / res->inserts_per_s;
    double ips = 5000 / (busy + want);
    assert_true(fabs(res->modelled_inserts_per_s - ips) <= 1e-6 * ips);
    free(res);
    idb_tmpdir_remove(dir);
}

static void device_charges_counts(void **state)
{
    (void)state;
    const char *sq[] = { "cache_pages=20", "read_us=7", "write_us=11" };
    charged("sqlite", sq, 3, 7, 11);
    const char *ps[] = { "cache_pages=20", "device=hdd" };
    charged("pagesim", ps, 2, 12360, 12360);
}

/* Per window, the modelled throughput is the window's rows over its measured busy time
 * (rows / inserts_per_s of the window) plus its modelled device time (its reads and writes
 * times the figures): on sqlite, timed, both parts count. Figures as series.csv prints them
 * (whole numbers), so within 0.1% and one. */
static void windows_model_busy_plus_device(void **state)
{
    (void)state;
    enum { C_MODEL = 10 };
    char dir[DIR_CHARS], out[DIR_CHARS], path[PATH_CHARS];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    assert_int_equal(idb_tmpdir_make(out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/series.csv", out);
    idb_insert_config cfg = { .store = idb_store_find("sqlite"),
                              .strategy = idb_strategy_find("uuidv4"), .ids = 6000,
                              .batch = 500, .shards = 1, .shops = 50, .shop_skew = 1.0,
                              .dir = dir, .seed = 9, .window = 1000, .series = path,
                              .store_kv = { "cache_pages=20", "read_us=7", "write_us=11" },
                              .n_store_kv = 3 };
    idb_insert_result *res = malloc(sizeof *res);
    idb_err err = { 0 };
    assert_int_equal(idb_insert_run(&cfg, res, &err), 0);
    series_file *f = malloc(sizeof *f);
    read_series(path, f);
    assert_int_equal(f->n, 6);
    for (int i = 0; i < f->n; i++) {
        double rows = f->v[i][C_ROWS] - (i ? f->v[i - 1][C_ROWS] : 0);
        double busy = rows / f->v[i][C_IPS];
        double dev = (f->v[i][C_READ] * 7 + f->v[i][C_WRITTEN] * 11) / 1e6;
        double want = rows / (busy + dev);
        if (!(fabs(f->v[i][C_MODEL] - want) <= 1e-3 * want + 1))
            fail_msg("window %d: modelled %.0f, want %.0f (busy %g s, device %g s)", i,
                     f->v[i][C_MODEL], want, busy, dev);
    }
    free(f);
    free(res);
    idb_tmpdir_remove(dir);
    idb_tmpdir_remove(out);
}

/* Off without options; the presets' figures; refusals. */
static void presets(void **state)
{
    (void)state;
    static const struct { const char *kv; double r, w; } ok[] = {
        { "device=nvme", 20, 20 }, { "device=ssd", 50, 65 }, { "device=hdd", 12360, 12360 },
        { "read_us=3", 3, 0 }, { "key_bytes=16", 0, 0 },
    };
    idb_device d;
    idb_err err = { 0 };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        const char *kv[] = { ok[i].kv };
        assert_int_equal(idb_device_parse(kv, 1, &d, &err), 0);
        assert_true(d.read_us == ok[i].r && d.write_us == ok[i].w);
        assert_int_equal(idb_device_on(&d), ok[i].r > 0 || ok[i].w > 0);
    }
    assert_true(idb_device_seconds(&d, 10, 10) < 0);          /* off: no modelled time */
    const char *bad[][2] = { { "device=floppy", NULL }, { "device=ssd", "write_us=1" },
                             { "read_us=-1", NULL } };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(idb_device_parse(bad[i], bad[i][1] ? 2 : 1, &d, &err), IDB_EINPUT);
}

/* A run refused before it starts writes no series file. */
static void refused_leaves_nothing(void **state)
{
    (void)state;
    char out[DIR_CHARS], path[PATH_CHARS];
    assert_int_equal(idb_tmpdir_make(out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/series.csv", out);
    idb_insert_config cfg = { .store = idb_store_find("pagesim"),
                              .strategy = idb_strategy_find("counter"), .ids = 1000,
                              .batch = 300, .shards = 1, .shops = 5, .shop_skew = 1.0,
                              .dir = out, .seed = 1, .window = 500, .series = path };
    idb_insert_result *res = malloc(sizeof *res);
    idb_err err = { 0 };
    assert_int_equal(idb_insert_run(&cfg, res, &err), IDB_EINPUT);   /* 500 % 300 */
    assert_int_equal(access(path, F_OK), -1);
    free(res);
    idb_tmpdir_remove(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(windows_add_up),
        cmocka_unit_test(device_charges_counts),
        cmocka_unit_test(windows_model_busy_plus_device),
        cmocka_unit_test(presets),
        cmocka_unit_test(refused_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
