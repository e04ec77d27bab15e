/* test_keypad.c — order apart from width, and repeatable runs (issue 10, sections 5-6):
 * keys padded by the store option key_bytes (read back in order, SQLite's table kind),
 * pagesim's split=right default and fillfactor, seeded keys (same seed, same figures;
 * ObjectId's process bytes never seeded), order_breaks, and insert.csv's aggregate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insert.h"
#include "matrix.h"
#include "random.h"
#include "tmpdir.h"

#define N 4000                          /* IDs per run */
#define DIR_MAX 256

/* One run of strategy on store with the store options kv[0..nkv) and seed, in a fresh
 * temporary directory (kept in dir when dir is not NULL, else removed). */
static void run(const char *strategy, const char *store, const char **kv, int nkv,
                uint64_t seed, idb_insert_result *res, char *dir)
{
    char tmp[DIR_MAX];
    assert_int_equal(idb_tmpdir_make(tmp, sizeof tmp), 0);
    idb_insert_config cfg = { .strategy = idb_strategy_find(strategy),
                              .store = idb_store_find(store), .ids = N, .batch = 500,
                              .shards = 1, .shops = 100, .shop_skew = 1.0, .dir = tmp,
                              .seed = seed };
    for (int i = 0; i < nkv; i++) cfg.store_kv[cfg.n_store_kv++] = kv[i];
    idb_err err = { 0 };
    int rc = idb_insert_run(&cfg, res, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
    if (dir) strcpy(dir, tmp);
    else idb_tmpdir_remove(tmp);
}

/* counter at key_bytes=16 on sqlite: a WITHOUT ROWID table (schema=auto picks blob), and
 * the rows read back in key order are the counter's values padded with 8 zero bytes. */
static void padded_keys_on_sqlite(void **state)
{
    (void)state;
    static idb_insert_result res;
    const char *kv[] = { "key_bytes=16" };
    char dir[DIR_MAX], path[DIR_MAX + 64];
    run("counter", "sqlite", kv, 1, 1, &res, dir);
    assert_int_equal(res.key_bytes, 16);
    snprintf(path, sizeof path, "%s/shard-0/orders.sqlite", dir);
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_schema WHERE name='orders'",
                                        -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_non_null(strstr((const char *)sqlite3_column_text(st, 0), "WITHOUT ROWID"));
    sqlite3_finalize(st);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT id FROM orders", -1, &st, NULL), SQLITE_OK);
    uint64_t first = 0;
    int n = 0;
    for (; sqlite3_step(st) == SQLITE_ROW; n++) {
        const uint8_t *b = sqlite3_column_blob(st, 0);
        assert_int_equal(sqlite3_column_bytes(st, 0), 16);
        uint64_t v = 0;
        for (int i = 0; i < 8; i++) assert_int_equal(b[i], 0);
        for (int i = 8; i < 16; i++) v = v << 8 | b[i];
        if (n == 0) first = v;
        assert_true(v == first + (uint64_t)n);   /* the counter's values, in order */
    }
    assert_int_equal(n, N);
    sqlite3_finalize(st);
    sqlite3_close(db);
    idb_tmpdir_remove(dir);
    assert_int_equal(res.order_breaks, 0);
}

/* key_bytes below the strategy's width is refused before anything is made. */
static void narrower_width_refused(void **state)
{
    (void)state;
    idb_insert_config cfg = { .strategy = idb_strategy_find("uuidv4"),
                              .store = idb_store_find("lmdb"), .ids = 10, .batch = 10,
                              .shards = 1, .shops = 1, .shop_skew = 1.0, .seed = 1 };
    cfg.store_kv[cfg.n_store_kv++] = "key_bytes=8";
    idb_err err = { 0 };
    assert_int_equal(idb_insert_check(&cfg, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "key_bytes=8"));
    cfg.store_kv[0] = "key_bytes=16";
    assert_int_equal(idb_insert_check(&cfg, &err), 0);
}

/* pagesim: split=right by default (ordered keys fill pages), fillfactor=90 keeps 90 %. */
static void pagesim_fillfactor(void **state)
{
    (void)state;
    static idb_insert_result dflt, full, ff90, middle;
    const char *kv100[] = { "split=right" }, *kv90[] = { "fillfactor=90" },
               *kvm[] = { "split=middle" };
    run("counter", "pagesim", NULL, 0, 1, &dflt, NULL);
    run("counter", "pagesim", kv100, 1, 1, &full, NULL);
    run("counter", "pagesim", kv90, 1, 1, &ff90, NULL);
    run("counter", "pagesim", kvm, 1, 1, &middle, NULL);
    assert_true(dflt.st.fill_factor == full.st.fill_factor);
    assert_true(full.st.fill_factor > 0.95);
    assert_true(middle.st.fill_factor < 0.55);
    double ratio = ff90.st.fill_factor / full.st.fill_factor;
    assert_true(ratio > 0.88 && ratio < 0.92);
    assert_true(ff90.st.fill_factor > 0.85 && ff90.st.fill_factor < 0.92);
}

/* The figures of a run that depend only on its keys' order. */
static int same_figures(const idb_insert_result *a, const idb_insert_result *b)
{
    return a->st.leaf_pages == b->st.leaf_pages && a->st.fill_factor == b->st.fill_factor &&
           a->st.pages_written == b->st.pages_written && a->order_breaks == b->order_breaks &&
           memcmp(a->pos_hist, b->pos_hist, sizeof a->pos_hist) == 0;
}

/* Same seed, same keys: byte-identical pages and positions; another seed, other ones
 * (uuidv4). ObjectId's counter start follows the seed too. */
static void seeded_runs_repeat(void **state)
{
    (void)state;
    static idb_insert_result a, b, c;
    const char *names[] = { "uuidv4", "objectid" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        run(names[i], "pagesim", NULL, 0, 7, &a, NULL);
        run(names[i], "pagesim", NULL, 0, 7, &b, NULL);
        assert_true(same_figures(&a, &b));
    }
    run("uuidv4", "pagesim", NULL, 0, 8, &c, NULL);
    assert_false(same_figures(&a, &c) && a.order_breaks == c.order_breaks);
    run("uuidv4", "pagesim", NULL, 0, 7, &a, NULL);
    assert_false(memcmp(a.pos_hist, c.pos_hist, sizeof a.pos_hist) == 0);
}

/* order_breaks: none for counter; for random keys about half (each new key is below the
 * previous one with probability 1/2). */
static void order_breaks_counted(void **state)
{
    (void)state;
    static idb_insert_result r;
    run("counter", "null", NULL, 0, 1, &r, NULL);
    assert_int_equal(r.order_breaks, 0);
    run("uuidv4", "null", NULL, 0, 1, &r, NULL);
    assert_true(r.order_breaks > N * 0.45 && r.order_breaks < N * 0.55);
}

/* A seeded stream seeds ObjectId's counter start but not its 5 process bytes. */
static void objectid_process_bytes_unseeded(void **state)
{
    (void)state;
    const idb_strategy *s = idb_strategy_find("objectid");
    idb_id id[2];
    for (int i = 0; i < 2; i++) {
        void *inst;
        idb_err err = { 0 };
        idb_random_seed_thread(99);
        assert_int_equal(idb_strategy_create_kv(s, NULL, 0, idb_clock_real(), &inst, &err), 0);
        assert_int_equal(s->next(inst, &id[i], &err), 0);
        s->destroy(inst);
        idb_random_unseed();
    }
    assert_memory_equal(id[0].b + 9, id[1].b + 9, 3);        /* counter: seeded */
    assert_memory_not_equal(id[0].b + 4, id[1].b + 4, 5);    /* process bytes: the OS's */
}

/* insert.csv's aggregate: median (odd and even counts), min, max, unknown values. */
static void aggregate_known_inputs(void **state)
{
    (void)state;
    double med, lo, hi;
    double odd[] = { 30, 10, 20 };
    mx_aggregate(odd, 3, &med, &lo, &hi);
    assert_true(med == 20 && lo == 10 && hi == 30);
    double even[] = { 4, 1, 3, 100 };
    mx_aggregate(even, 4, &med, &lo, &hi);
    assert_true(med == 3.5 && lo == 1 && hi == 100);
    double one[] = { 7 };
    mx_aggregate(one, 1, &med, &lo, &hi);
    assert_true(med == 7 && lo == 7 && hi == 7);
    double unknown[] = { 1, -1, 3 };
    mx_aggregate(unknown, 3, &med, &lo, &hi);
    assert_true(isnan(med) && isnan(lo) && isnan(hi));
    mx_aggregate(odd, 0, &med, &lo, &hi);
    assert_true(isnan(med));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(padded_keys_on_sqlite),
        cmocka_unit_test(narrower_width_refused),
        cmocka_unit_test(pagesim_fillfactor),
        cmocka_unit_test(seeded_runs_repeat),
        cmocka_unit_test(order_breaks_counted),
        cmocka_unit_test(objectid_process_bytes_unseeded),
        cmocka_unit_test(aggregate_known_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
