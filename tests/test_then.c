/* test_then.c — `insert --then STRATEGY:N` (runner/insert_then.c) on the embedded stores:
 * the second phase's rows all in the record after the run's, every one of both phases found
 * through the store's read hooks with its fields; the phase's figures its own (on pagesim,
 * which is deterministic, the run's row is a plain run's and the two phases' counts add up
 * exactly to one run of both phases' keys); v7 into a v4 table writes fewer pages than the
 * v4 control by the model's own bounds; where its keys land; refusals before anything runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "insert.h"
#include "readrec.h"
#include "strategy.h"
#include "tmpdir.h"

#define FIRST 3000
#define THEN 2000
#define PHASE_N 20000                /* pagesim's phases */
#define POOL 64                      /* pagesim's cache_pages: far below the tree's leaves */

/* A run of first rows of strategy a on store into dir (record kept), then rows of b
 * (NULL: none); the results in res[0] and res[1]. Returns the run's code. */
static int run_then(const char *dir, const char *store, const char *a, long long first,
                    const char *b, long long then, int shards, const char *kv,
                    idb_insert_result *res, idb_err *err)
{
    idb_insert_config cfg = { .store = idb_store_find(store), .strategy = idb_strategy_find(a),
                              .ids = first, .batch = 500, .shards = shards, .shops = 40,
                              .shop_skew = 1.0, .dir = dir, .seed = 7, .record = 1,
                              .then_strategy = b ? idb_strategy_find(b) : NULL,
                              .then_ids = then };
    if (kv) {
        cfg.store_kv[0] = kv;
        cfg.n_store_kv = 1;
    }
    return idb_insert_run_then(&cfg, &res[0], b ? &res[1] : NULL, err);
}

/* The same, which must succeed. */
static void must_run(const char *dir, const char *store, const char *a, long long first,
                     const char *b, long long then, int shards, const char *kv,
                     idb_insert_result *res)
{
    idb_err err = { 0 };
    int rc = run_then(dir, store, a, first, b, then, shards, kv, res, &err);
    if (rc) fprintf(stderr, "insert: %s\n", err.msg);
    assert_int_equal(rc, 0);
}

/* 1 when id is one of strategy name's by its layout: a UUID's version nibble, or a 64-bit
 * counter's small values against snowflake's timestamped ones. */
static int made_by(const char *name, const idb_row *row)
{
    const uint8_t *b = row->id.b + row->id.len - 16 * (row->id.len >= 16) - 8 * (row->id.len < 16);
    if (!strcmp(name, "uuidv4")) return b[6] >> 4 == 4;
    if (!strcmp(name, "uuidv7")) return b[6] >> 4 == 7;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | b[i];
    if (!strcmp(name, "counter")) return v >= 1 && v < (1ULL << 22);   /* per process */
    return v > (1ULL << 22);                               /* snowflake: time << 22 */
}

/* Every entry of dir's record of store: the run's first, then the phase's (by their IDs'
 * layout), each found through the store's read hooks with the fields insert wrote. */
static void both_phases_read(const char *dir, const char *store, const char *a, const char *b)
{
    const idb_store *st = idb_store_find(store);
    idb_readrec rec;
    idb_err err = { 0 };
    assert_int_equal(idb_readrec_load(dir, store, &rec, &err), 0);
    assert_int_equal(rec.rows, FIRST + THEN);
    assert_int_equal(rec.then_rows, THEN);
    assert_string_equal(rec.strategy, a);
    assert_string_equal(rec.then_strategy, b);
    const char *kv[IDB_READREC_KV_MAX];
    for (int i = 0; i < rec.nkv; i++) kv[i] = rec.kv[i];
    idb_opts o;
    int width;
    assert_int_equal(idb_store_opts_parse(st, kv, rec.nkv, rec.width, &o, &width, &err), 0);
    void *h[2] = { 0 };
    for (int k = 0; k < rec.shards; k++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/shard-%d", dir, k);
        if (st->open_read) {
            assert_int_equal(st->open_read(path, &o, width, &h[k], &err), 0);
            continue;
        }
        assert_int_equal(st->open(path, &o, width, &h[k], &err), 0);   /* a model: replayed */
        for (int64_t i = 0; i < rec.rows; i++) {
            idb_row row;
            int s;
            idb_readrec_get(&rec, i, &row, &s);
            if (s == k) assert_int_equal(st->insert(h[k], &row, &err), 0);
        }
    }
    for (int64_t i = 0; i < rec.rows; i++) {
        idb_row want, got;
        int k, found = 0;
        idb_readrec_get(&rec, i, &want, &k);
        if (!made_by(i < FIRST ? a : b, &want))
            fail_msg("%s: entry %lld is not %s's", store, (long long)i, i < FIRST ? a : b);
        assert_int_equal(st->get(h[k], &want.id, &got, &found, &err), 0);
        assert_int_equal(found, 1);
        assert_memory_equal(got.id.b, want.id.b, want.id.len);
        assert_int_equal(got.shop, want.shop);
        assert_int_equal(got.display_no, want.display_no);
        assert_int_equal(got.created_ms, want.created_ms);
        assert_int_equal(got.total_cents, want.total_cents);
    }
    for (int k = 0; k < rec.shards; k++) (st->close_read ? st->close_read : st->close)(h[k]);
    idb_readrec_free(&rec);
}

/* Both phases' rows readable on every embedded store, one shard and two, v4 -> v7 and
 * counter -> snowflake; the rows each phase's row says the table holds. */
static void rows_readable(void **state)
{
    (void)state;
    static const struct { const char *store, *a, *b; int shards; } runs[] = {
        { "sqlite", "uuidv4", "uuidv7", 2 }, { "sqlite", "counter", "snowflake", 1 },
        { "lmdb", "uuidv4", "uuidv7", 1 }, { "lmdb", "counter", "snowflake", 2 },
        { "pagesim", "uuidv4", "uuidv7", 2 },
    };
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        char tmp[256], dir[300];
        assert_int_equal(idb_tmpdir_make(tmp, sizeof tmp), 0);
        snprintf(dir, sizeof dir, "%s/d", tmp);
        idb_insert_result res[2];
        must_run(dir, runs[i].store, runs[i].a, FIRST, runs[i].b, THEN, runs[i].shards, NULL,
                 res);
        assert_int_equal(res[0].phase, 0);
        assert_int_equal(res[1].phase, 1);
        assert_int_equal(res[0].rows_held, FIRST);
        assert_int_equal(res[1].rows_held, FIRST + THEN);
        assert_int_equal(res[1].duplicate_ids, 0);
        both_phases_read(dir, runs[i].store, runs[i].a, runs[i].b);
        idb_tmpdir_remove(tmp);
    }
}

/* On pagesim (deterministic; the uuidv4 keys of both phases are one random stream): the
 * run's row equals a plain run's of its rows, and the phase's counts are the difference
 * to one run of both phases' rows: pages written, misses, splits add up exactly, and the
 * phase's index growth is the rest of the pages. */
static void phase_counts_its_own(void **state)
{
    (void)state;
    char tmp[256], d1[300], d2[300], d3[300];
    assert_int_equal(idb_tmpdir_make(tmp, sizeof tmp), 0);
    snprintf(d1, sizeof d1, "%s/then", tmp);
    snprintf(d2, sizeof d2, "%s/first", tmp);
    snprintf(d3, sizeof d3, "%s/both", tmp);
    idb_insert_result t[2], one[1], both[1];
    must_run(d1, "pagesim", "uuidv4", PHASE_N, "uuidv4", PHASE_N, 1, "cache_pages=64", t);
    must_run(d2, "pagesim", "uuidv4", PHASE_N, NULL, 0, 1, "cache_pages=64", one);
    must_run(d3, "pagesim", "uuidv4", 2 * PHASE_N, NULL, 0, 1, "cache_pages=64", both);
    assert_int_equal(t[0].st.pages_written, one[0].st.pages_written);
    assert_int_equal(t[0].st.leaf_pages, one[0].st.leaf_pages);
    assert_int_equal(t[0].st.cache_misses, one[0].st.cache_misses);
    assert_int_equal(t[0].st.pages_written + t[1].st.pages_written, both[0].st.pages_written);
    assert_int_equal(t[0].st.cache_misses + t[1].st.cache_misses, both[0].st.cache_misses);
    assert_int_equal(t[0].st.splits + t[1].st.splits, both[0].st.splits);
    assert_true(t[1].st.pages_written < both[0].st.pages_written);   /* not the table's */
    assert_int_equal(t[1].st.leaf_pages, both[0].st.leaf_pages);      /* the table's shape */
    assert_int_equal(t[0].index_growth_pages + t[1].index_growth_pages,
                     both[0].st.leaf_pages + both[0].st.branch_pages);
    assert_int_equal(t[1].st.file_bytes, both[0].st.file_bytes);
    idb_tmpdir_remove(tmp);
}

/* v7 into a v4 table against the v4 control, on pagesim with a pool of POOL pages: v7's
 * keys ascend, so each page it fills is written once after it leaves the pool, plus the
 * pool's flush and the path's pages: pages_written <= growth + POOL + depth. The control's
 * random keys miss the pool with probability at least 1 - POOL / L (L leaves at the phase's
 * start), and each miss past the pool's first POOL evicts a leaf an insert dirtied:
 * pages_written >= N (1 - POOL / L) - POOL. The control's bound is above v7's. Where the
 * keys land: v7's below most v4 keys (never at the end), snowflake's after every counter's. */
static void v7_into_v4(void **state)
{
    (void)state;
    char tmp[256], d1[300], d2[300], d3[300];
    assert_int_equal(idb_tmpdir_make(tmp, sizeof tmp), 0);
    snprintf(d1, sizeof d1, "%s/v7", tmp);
    snprintf(d2, sizeof d2, "%s/v4", tmp);
    snprintf(d3, sizeof d3, "%s/sf", tmp);
    idb_insert_result v7[2], v4[2], sf[2];
    must_run(d1, "pagesim", "uuidv4", PHASE_N, "uuidv7", PHASE_N, 1, "cache_pages=64", v7);
    must_run(d2, "pagesim", "uuidv4", PHASE_N, "uuidv4", PHASE_N, 1, "cache_pages=64", v4);
    double v7_most = (double)(v7[1].index_growth_pages + POOL + v7[1].st.depth);
    double l0 = (double)v4[0].st.leaf_pages;
    double v4_least = PHASE_N * (1 - POOL / l0) - POOL;
    assert_true((double)v7[1].st.pages_written <= v7_most);
    assert_true((double)v4[1].st.pages_written >= v4_least);
    assert_true(v7_most < v4_least);
    assert_true(v7[1].leaf_fill_touched > 0 && v7[1].leaf_fill_touched <= 1);
    assert_true(v7[0].leaf_fill_touched == v7[0].st.fill_factor);   /* the run wrote them all */
    assert_true(fabs(v7[1].leaf_fill_touched - v7[1].st.fill_factor) > 0.01);   /* its own */
    assert_true(v7[1].tail_insert_frac < 0.01);
    assert_true(v7[1].insert_pos_p50 > 0 && v7[1].insert_pos_p50 < 0.5);
    must_run(d3, "pagesim", "counter", FIRST, "snowflake", THEN, 1, NULL, sf);
    assert_true(sf[1].tail_insert_frac == 1.0);
    idb_tmpdir_remove(tmp);
}

/* Storage per row on pagesim: the one tree's pages over the rows, no separate ID index, no
 * secondary; the strategy's own ID width apart from the stored one. */
static void storage_per_row(void **state)
{
    (void)state;
    char tmp[256], dir[300];
    assert_int_equal(idb_tmpdir_make(tmp, sizeof tmp), 0);
    snprintf(dir, sizeof dir, "%s/d", tmp);
    idb_insert_result r[2];
    must_run(dir, "pagesim", "counter", FIRST, "snowflake", THEN, 1, "key_bytes=16", r);
    for (int p = 0; p < 2; p++) {
        double pages = (double)(r[p].st.leaf_pages + r[p].st.branch_pages);
        assert_int_equal(r[p].id_bytes, 8);
        assert_int_equal(r[p].key_bytes, 16);
        assert_true(r[p].bytes_per_row_table * (double)r[p].rows_held == pages * 4096);
        assert_true(r[p].bytes_per_row_id_index == 0 && r[p].bytes_per_row_secondary == 0);
        assert_true(r[p].bytes_per_row == r[p].bytes_per_row_table);
    }
    idb_tmpdir_remove(tmp);
}

/* Refused before anything is made: a second strategy wider than the table's keys, N 0,
 * with features of one-off runs; the directory is not created. */
static void refusals(void **state)
{
    (void)state;
    char tmp[256], dir[300];
    assert_int_equal(idb_tmpdir_make(tmp, sizeof tmp), 0);
    snprintf(dir, sizeof dir, "%s/never", tmp);
    idb_insert_result r[2];
    idb_err err = { 0 };
    assert_int_equal(run_then(dir, "sqlite", "counter", 100, "uuidv7", 100, 1, NULL, r, &err),
                     IDB_EINPUT);
    assert_non_null(strstr(err.msg, "do not fit"));
    assert_int_equal(run_then(dir, "sqlite", "counter", 100, "uuidv7", 0, 1, NULL, r, &err),
                     IDB_EINPUT);
    struct stat sb;
    assert_int_not_equal(stat(dir, &sb), 0);
    must_run(dir, "sqlite", "counter", 100, "uuidv7", 100, 1, "key_bytes=16", r);   /* fits */
    idb_tmpdir_remove(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_readable),   cmocka_unit_test(phase_counts_its_own),
        cmocka_unit_test(v7_into_v4),      cmocka_unit_test(storage_per_row),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
