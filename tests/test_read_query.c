/* test_read_query.c — idbench read's range and shop queries (runner/read_query.c) on the
 * sqlite store: insert runs with -s secondary_created=1 / secondary_shop=1 on two shards,
 * then range:W (by ID range on a time-ordered strategy, by the created_ms index on uuidv4)
 * and shop queries whose rows_returned must equal a count made here from the record alone;
 * a cold query misses, the same warm one does not; the indexes cost pages at insert; a
 * query without its index, on a store without queries, or with a negative window refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insert.h"
#include "read.h"
#include "readrec.h"
#include "strategy.h"
#include "tmpdir.h"

#define ROWS 6000

/* An insert of ROWS rows of strategy on store into dir, 2 shards, with -s kv[0..nkv). */
static void insert_into(const char *dir, const char *store, const char *strategy,
                        const char *const *kv, int nkv, idb_insert_result *res)
{
    idb_insert_config cfg = { .store = idb_store_find(store),
                              .strategy = idb_strategy_find(strategy), .ids = ROWS,
                              .batch = 500, .shards = 2, .shops = 40, .shop_skew = 1.0,
                              .dir = dir, .seed = 7, .record = 1 };
    for (int i = 0; i < nkv; i++) cfg.store_kv[i] = kv[i];
    cfg.n_store_kv = nkv;
    idb_err err = { 0 };
    int rc = idb_insert_run(&cfg, res, &err);
    if (rc) fprintf(stderr, "insert: %s\n", err.msg);
    assert_int_equal(rc, 0);
}

/* The record's newest created_ms and the window that keeps about the newest half. */
static int64_t half_window(const idb_readrec *rec, int64_t *t_end)
{
    int64_t lo = INT64_MAX;
    *t_end = INT64_MIN;
    for (int64_t i = 0; i < rec->rows; i++) {
        idb_row row;
        int k;
        idb_readrec_get(rec, i, &row, &k);
        if (row.created_ms > *t_end) *t_end = row.created_ms;
        if (row.created_ms < lo) lo = row.created_ms;
    }
    return (*t_end - lo) / 2;
}

/* Rows of rec with created_ms >= from (and shop == shop when shop >= 0). */
static int64_t count(const idb_readrec *rec, int64_t from, int64_t shop)
{
    int64_t n = 0;
    for (int64_t i = 0; i < rec->rows; i++) {
        idb_row row;
        int k;
        idb_readrec_get(rec, i, &row, &k);
        n += row.created_ms >= from && (shop < 0 || row.shop == (uint64_t)shop);
    }
    return n;
}

/* A read of pattern on dir (-n n, window w); rc into *rc, the result returned. */
static idb_read_result query_run(const char *dir, int pattern, int64_t n, int64_t w, int warm,
                                 int *rc)
{
    idb_read_config cfg = { .store = idb_store_find("sqlite"), .dir = dir, .lookups = n,
                            .pattern = pattern, .warm = warm, .seed = 3, .window_ms = w };
    idb_read_result r;
    idb_err err = { 0 };
    *rc = idb_read_run(&cfg, &r, &err);
    if (*rc) fprintf(stderr, "read: %s\n", err.msg);
    return r;
}

/* range:W returns exactly the record's rows of the window, by ID range (counter, uuidv7) or
 * by the created_ms index (uuidv4); cold it misses, warm it does not. */
static void range_rows(void **state)
{
    (void)state;
    static const char *const strategies[] = { "counter", "uuidv7", "uuidv4" };
    static const char *const kv[] = { "secondary_created=1" };
    for (int g = 0; g < 3; g++) {
        char dir[256];
        idb_insert_result *res = malloc(sizeof *res);
        assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
        insert_into(dir, "sqlite", strategies[g], kv, g == 2, res);
        idb_readrec rec;
        idb_err err = { 0 };
        assert_int_equal(idb_readrec_load(dir, "sqlite", &rec, &err), 0);
        int64_t t_end, w = half_window(&rec, &t_end), want = count(&rec, t_end - w, -1);
        assert_true(want > 0 && want < ROWS);
        int rc;
        idb_read_result cold = query_run(dir, IDB_READ_RANGE, 1, w, 0, &rc);
        assert_int_equal(rc, 0);
        assert_int_equal(cold.rows_returned, want);
        assert_int_equal(cold.found, 1);
        assert_true(cold.misses_per_lookup >= 1 && cold.misses_per_row > 0);
        idb_read_result warm = query_run(dir, IDB_READ_RANGE, 3, w, 1, &rc);
        assert_int_equal(rc, 0);
        assert_int_equal(warm.rows_returned, 3 * want);
        assert_true(warm.misses_per_row == 0);
        idb_read_result all = query_run(dir, IDB_READ_RANGE, 1, t_end, 0, &rc);
        assert_int_equal(all.rows_returned, ROWS);
        idb_readrec_free(&rec);
        free(res);
        idb_tmpdir_remove(dir);
    }
}

/* shop and shop:W: each query returns the record's orders of its shop (the shops drawn as
 * the runner draws them: idb_read_queries_make), and no more. */
static void shop_rows(void **state)
{
    (void)state;
    static const char *const kv[] = { "secondary_shop=1" };
    char dir[256];
    idb_insert_result *res = malloc(sizeof *res);
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    insert_into(dir, "sqlite", "uuidv4", kv, 1, res);
    idb_readrec rec;
    idb_err err = { 0 };
    assert_int_equal(idb_readrec_load(dir, "sqlite", &rec, &err), 0);
    int64_t t_end, w = half_window(&rec, &t_end);
    for (int windowed = 0; windowed < 2; windowed++) {
        int64_t win = windowed ? w : -1, from = windowed ? t_end - w : INT64_MIN, want = 0;
        idb_read_config cfg = { .store = idb_store_find("sqlite"), .dir = dir, .lookups = 20,
                                .pattern = IDB_READ_SHOP, .seed = 3, .window_ms = win };
        idb_opts o;
        int width;
        const char *rkv[IDB_READREC_KV_MAX];
        for (int i = 0; i < rec.nkv; i++) rkv[i] = rec.kv[i];
        assert_int_equal(idb_store_opts_parse(cfg.store, rkv, rec.nkv, rec.width, &o, &width,
                                              &err), 0);
        idb_read_queries q;
        assert_int_equal(idb_read_queries_make(&rec, &cfg, &o, 0, &q, &err), 0);
        for (int64_t i = 0; i < cfg.lookups; i++) want += count(&rec, from, q.shop_of[i]);
        idb_read_queries_free(&q);
        int rc;
        idb_read_result r = query_run(dir, IDB_READ_SHOP, 20, win, 0, &rc);
        assert_int_equal(rc, 0);
        assert_int_equal(r.rows_returned, want);
        assert_true(want > 20);
    }
    idb_readrec_free(&rec);
    free(res);
    idb_tmpdir_remove(dir);
}

/* The indexes' cost shows in the insert run's pages; queries without their index, on a
 * store without queries, or with a negative window are refused. */
static void index_cost_and_refusals(void **state)
{
    (void)state;
    static const char *const kv[] = { "secondary_created=1", "secondary_shop=1" };
    char with[256], without[256];
    idb_insert_result *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    assert_int_equal(idb_tmpdir_make(with, sizeof with), 0);
    assert_int_equal(idb_tmpdir_make(without, sizeof without), 0);
    insert_into(with, "sqlite", "uuidv4", kv, 2, a);
    insert_into(without, "sqlite", "uuidv4", NULL, 0, b);
    insert_into(without, "lmdb", "counter", NULL, 0, b);
    assert_true(a->st.pages_written > b->st.pages_written);
    int rc;
    query_run(without, IDB_READ_RANGE, 1, 10, 0, &rc);
    assert_int_equal(rc, IDB_EINPUT);                /* uuidv4 without secondary_created */
    query_run(without, IDB_READ_SHOP, 1, -1, 0, &rc);
    assert_int_equal(rc, IDB_EINPUT);                /* without secondary_shop */
    query_run(with, IDB_READ_RANGE, 1, -5, 0, &rc);
    assert_int_equal(rc, IDB_EINPUT);
    idb_read_config cfg = { .store = idb_store_find("lmdb"), .dir = without, .lookups = 1,
                            .pattern = IDB_READ_RANGE, .window_ms = 10 };
    idb_read_result r;
    idb_err err = { 0 };
    assert_int_equal(idb_read_run(&cfg, &r, &err), IDB_EINPUT);   /* lmdb: no queries */
    free(a);
    free(b);
    idb_tmpdir_remove(with);
    idb_tmpdir_remove(without);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(range_rows),
        cmocka_unit_test(shop_rows),
        cmocka_unit_test(index_cost_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
