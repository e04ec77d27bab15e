/* test_insert.c — the insert runner's parts: insert positions (hand-computed), percentiles,
 * repeated IDs (crafted lists, and a strategy that repeats on the null store's shards),
 * Zipf draws, whole runs through the null and pagesim stores, the checks made before
 * anything is created, and a failed run's directory left as it was found (rundir.c). */
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
#include "locality.h"
#include "metrics.h"
#include "repeats.h"
#include "rundir.h"
#include "strategy.h"
#include "tmpdir.h"
#include "zipf.h"

/* Keys 5,1,3,9,2 into an empty index. Positions of each new key among those already
 * there (the first has none): 1 -> 0/1 = 0; 3 -> 1/2 = .5; 9 -> 3/3 = 1 (tail); 2 -> 1/4 = .25.
 * tail_frac = 1/4; median of {0, .25, .5, 1} (lower middle) = .25. */
static void positions_by_hand(void **state)
{
    (void)state;
    uint64_t vals[] = { 5, 1, 3, 9, 2 };
    idb_id keys[5];
    for (int i = 0; i < 5; i++) idb_id_set_u64(&keys[i], vals[i]);
    idb_locality l;
    assert_int_equal(idb_locality_init(&l, 5), 0);
    assert_int_equal(idb_locality_add(&l, keys, 5), 0);
    assert_int_equal(l.inserts, 4);
    assert_int_equal(l.tail, 1);
    assert_true(idb_locality_tail_frac(&l) == 0.25);
    assert_true(idb_locality_pos_p50(&l) == 0.25);
    assert_int_equal(l.hist[0], 1);                 /* 0 */
    assert_int_equal(l.hist[5], 1);                 /* .25 */
    assert_int_equal(l.hist[10], 1);                /* .5 */
    assert_int_equal(l.hist[IDB_LOC_BUCKETS - 1], 1);   /* 1.0 in the last bin */
    idb_locality_free(&l);
}

/* Two indexes added separately count separately: 1,2,3 then 3,2,1. */
static void positions_per_index(void **state)
{
    (void)state;
    idb_id a[3], b[3];
    for (int i = 0; i < 3; i++) {
        idb_id_set_u64(&a[i], (uint64_t)i + 1);
        idb_id_set_u64(&b[i], 3 - (uint64_t)i);
    }
    idb_locality l;
    assert_int_equal(idb_locality_init(&l, 6), 0);
    assert_int_equal(idb_locality_add(&l, a, 3), 0);
    assert_int_equal(idb_locality_add(&l, b, 3), 0);
    assert_int_equal(l.inserts, 4);
    assert_int_equal(l.tail, 2);                    /* 2 and 3 of the first index */
    assert_int_equal(l.hist[0], 2);                 /* 2 and 1 of the second: position 0 */
    idb_locality_free(&l);
}

static void percentiles_nearest_rank(void **state)
{
    (void)state;
    int64_t v[1000];
    for (int i = 0; i < 1000; i++) v[i] = 1000 - i;   /* 1..1000, reversed */
    assert_int_equal(idb_percentile(v, 1000, 0.50), 500);
    assert_int_equal(idb_percentile(v, 1000, 0.99), 990);
    assert_int_equal(idb_percentile(v, 1000, 0.999), 999);
    assert_int_equal(idb_percentile(v, 1000, 1.0), 1000);
    assert_int_equal(idb_percentile(v, 0, 0.5), 0);
}

/* idb_repeats on crafted lists: n minus the distinct keys, whatever their order. */
static void repeats_counted(void **state)
{
    (void)state;
    uint8_t none[] = { 3, 1, 2, 9 };
    assert_int_equal(idb_repeats(none, 4, 1), 0);
    uint8_t pairs[] = { 7, 3, 7, 3, 5 };               /* 7 and 3 twice */
    assert_int_equal(idb_repeats(pairs, 5, 1), 2);
    uint8_t triple[] = { 4, 4, 1, 4 };                 /* 4 three times: two repeats */
    assert_int_equal(idb_repeats(triple, 4, 1), 2);
    /* two-byte keys equal in one byte only are distinct: 0x0102 0x0201 0x0102 */
    uint8_t wide[] = { 1, 2, 2, 1, 1, 2 };
    assert_int_equal(idb_repeats(wide, 3, 2), 1);
    assert_int_equal(idb_repeats(wide, 1, 2), 0);
    assert_int_equal(idb_repeats(NULL, 0, 2), 0);
    /* sorted lists merged: 2 and 5 are in two lists, 9 twice in one; one list empty */
    uint8_t a[] = { 1, 2, 5 }, b[] = { 2, 5, 9, 9 }, *lists[] = { a, NULL, b };
    int64_t n[] = { 3, 0, 4 };
    assert_int_equal(idb_repeats_merged(lists, n, 3, 1), 3);
    /* the in-place sort against a known order: 1000 two-byte keys, a permutation */
    uint8_t k[2000];
    for (int i = 0; i < 1000; i++) {
        int v = (i * 617) % 1000;                   /* 617 is prime to 1000 */
        k[2 * i] = (uint8_t)(v >> 8), k[2 * i + 1] = (uint8_t)v;
    }
    idb_keys_sort(k, 1000, 2);
    for (int i = 0; i < 1000; i++) assert_int_equal(k[2 * i] << 8 | k[2 * i + 1], i);
}

/* A strategy for the test only: all instances share one count and hand out
 * 1 + (count mod REP_CYCLE), so over a run of n orders each of REP_CYCLE IDs comes n /
 * REP_CYCLE times, to whichever shard asks: n - REP_CYCLE repeats, however the rows are
 * spread over the shards. */
#define REP_CYCLE 1000
static uint64_t rep_count;
static int rep_create(const idb_opts *o, idb_clock *c, void **inst, idb_err *err)
{
    (void)o, (void)c, (void)err;
    *inst = &rep_count;
    return 0;
}
static int rep_next(void *inst, idb_id *id, idb_err *err)
{
    (void)err;
    idb_id_set_u64(id, 1 + (*(uint64_t *)inst)++ % REP_CYCLE);
    return 0;
}
static void rep_destroy(void *inst) { (void)inst; }
static const idb_strategy repeater = {
    .version = IDB_STRATEGY_VERSION, .name = "repeater", .summary = "test: repeats",
    .bits = 64, .create = rep_create, .next = rep_next, .destroy = rep_destroy,
    .fork = IDB_FORK_REFUSES,
};

/* duplicate_ids is counted by the harness over the whole run, on a store that keeps no
 * keys (null refuses none: duplicate_rows 0): 3,000 orders of 1,000 IDs are 2,000 repeats
 * on 1 shard and on 3 (each shard's own repeats and the other shards'). */
static void repeats_across_shards(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    idb_insert_config cfg = { .store = idb_store_find("null"), .strategy = &repeater,
                              .ids = 3 * REP_CYCLE, .batch = 100, .shards = 1, .shops = 50,
                              .shop_skew = 1.0, .dir = dir, .seed = 3 };
    idb_insert_result *res = malloc(sizeof *res);
    idb_err err = { 0 };
    for (int shards = 1; shards <= 3; shards += 2) {
        rep_count = 0;
        cfg.shards = shards;
        assert_int_equal(idb_insert_run(&cfg, res, &err), 0);
        assert_int_equal(res->duplicate_ids, 2 * REP_CYCLE);
        assert_int_equal(res->duplicate_rows, 0);
    }
    free(res);
    idb_tmpdir_remove(dir);
}

/* write_bytes_per_id and client_write_bytes_per_id: on SQLite (no child process) the same
 * figure, the store's pages (4 KiB each) within 5%. */
static void writes_split(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    idb_insert_config cfg = { .store = idb_store_find("sqlite"),
                              .strategy = idb_strategy_find("counter"), .ids = 2000,
                              .batch = 100, .shards = 1, .shops = 50, .shop_skew = 1.0,
                              .dir = dir, .seed = 3 };
    idb_insert_result *res = malloc(sizeof *res);
    idb_err err = { 0 };
    assert_int_equal(idb_insert_run(&cfg, res, &err), 0);
    assert_true(res->client_write_bytes_per_id > 0);
    assert_true(res->write_bytes_per_id == res->client_write_bytes_per_id);
    double pages = (double)res->st.pages_written * 4096;     /* within 5% (the docs: 2%) */
    assert_true(fabs(res->write_bytes_per_id * 2000 - pages) <= 0.05 * pages);
    free(res);
    idb_tmpdir_remove(dir);
}

/* Zipf with s = 1 over 4 items: P(rank i) = (1/(i+1)) / H_4, H_4 = 25/12. */
static void zipf_frequencies(void **state)
{
    (void)state;
    idb_zipf z;
    idb_rng r;
    idb_rng_seed(&r, 5);
    assert_int_equal(idb_zipf_init(&z, 4, 1.0), 0);
    int64_t seen[4] = { 0 };
    enum { N = 200000 };
    for (int i = 0; i < N; i++) seen[idb_zipf_draw(&z, &r)]++;
    for (int i = 0; i < 4; i++) {
        double want = 12.0 / 25.0 / (i + 1);
        double got = (double)seen[i] / N;
        assert_true(got > want - 0.01 && got < want + 0.01);
    }
    idb_zipf_free(&z);
}

/* A whole run: counter into pagesim lands at the tail; uuidv4 lands all over. */
static void runs_through_pagesim(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    idb_insert_config cfg = { .store = idb_store_find("pagesim"), .ids = 20000, .batch = 100,
                              .shards = 2, .shops = 50, .shop_skew = 1.0, .dir = dir, .seed = 3 };
    idb_insert_result *res = malloc(sizeof *res);
    idb_err err = { 0 };
    cfg.strategy = idb_strategy_find("interleaved");
    assert_int_equal(idb_insert_run(&cfg, res, &err), 0);
    assert_true(res->tail_insert_frac == 1.0);      /* each shard's own IDs only increase */
    assert_int_equal(res->key_bytes, 8);
    assert_true(res->st.leaf_pages > 0);
    cfg.strategy = idb_strategy_find("uuidv4");
    assert_int_equal(idb_insert_run(&cfg, res, &err), 0);
    assert_int_equal(res->key_bytes, 16);
    assert_true(res->tail_insert_frac < 0.01);
    assert_true(res->insert_pos_p50 > 0.45 && res->insert_pos_p50 < 0.55);
    int64_t total = 0;
    for (int i = 0; i < IDB_LOC_BUCKETS; i++) total += res->pos_hist[i];
    assert_int_equal(total, 20000 - 2);            /* the first key of each shard has no position */
    free(res);
    idb_tmpdir_remove(dir);
}

/* On a model store a generator at its rate cap does not wait (insert_int.h:
 * idb_run_shard_clock): sonyflake's 256 IDs per 10 ms tick make 600,000 IDs 23.4 s of
 * ticks, yet the run takes well under that (the real clock advanced less than half of it:
 * a run that waited fails here), and its IDs stay in order (the skipped ticks moved its
 * clock; one that did not would never finish). */
static void model_store_skips_clock_waits(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    idb_insert_config cfg = { .store = idb_store_find("pagesim"), .ids = 600000, .batch = 1000,
                              .shards = 1, .shops = 50, .shop_skew = 1.0, .dir = dir, .seed = 3,
                              .strategy = idb_strategy_find("sonyflake") };
    idb_insert_result *res = malloc(sizeof *res);
    idb_err err = { 0 };
    int64_t t0 = idb_clock_now_ns(idb_clock_real());
    assert_int_equal(idb_insert_run(&cfg, res, &err), 0);
    int64_t took = idb_clock_now_ns(idb_clock_real()) - t0, span = 600000LL / 256 * 10000000LL;
    assert_true(took < span / 2);
    assert_true(res->tail_insert_frac == 1.0);      /* still in order: the ticks advanced */
    assert_int_equal(res->order_breaks, 0);
    free(res);
    idb_tmpdir_remove(dir);
}

/* Bad configurations are refused before anything is created. */
static void bad_configs(void **state)
{
    (void)state;
    idb_insert_config cfg = { .store = idb_store_find("null"),
                              .strategy = idb_strategy_find("counter"),
                              .ids = 10, .batch = 10, .shards = 1, .shops = 1,
                              .dir = "/nonexistent/x" };
    idb_insert_result *res = malloc(sizeof *res);
    idb_err err = { 0 };
    assert_int_equal(idb_insert_run(&cfg, res, &err), IDB_EINPUT);
    assert_string_equal(err.msg, "cannot create /nonexistent/x: /nonexistent: No such file or "
                        "directory");
    cfg.dir = "/tmp";
    cfg.ids = 0;
    assert_int_equal(idb_insert_run(&cfg, res, &err), IDB_EINPUT);
    cfg.ids = 10;
    cfg.store_kv[0] = "nope=1";
    cfg.n_store_kv = 1;
    cfg.store = idb_store_find("pagesim");
    assert_int_equal(idb_insert_run(&cfg, res, &err), IDB_EINPUT);
    free(res);
}

/* idb_insert_check, with no directory at all: the store's table and its own check (with
 * the strategy's width), and every shard's strategy options as the harness fills them. */
static void check_without_dir(void **state)
{
    (void)state;
    idb_insert_config cfg = { .store = idb_store_find("sqlite"),
                              .strategy = idb_strategy_find("snowflake"),
                              .ids = 10, .batch = 10, .shards = 1024, .shops = 1 };
    idb_err err = { 0 };
    assert_int_equal(idb_insert_check(&cfg, &err), 0);
    cfg.store_kv[cfg.n_store_kv++] = "page_size=1000";   /* in the table's range, not 2^k */
    assert_int_equal(idb_insert_check(&cfg, &err), IDB_EINPUT);
    assert_string_equal(err.msg, "sqlite: page_size=1000 is not a power of two");
    cfg.store_kv[0] = "schema=rowid";
    assert_int_equal(idb_insert_check(&cfg, &err), 0);
    cfg.strategy = idb_strategy_find("uuidv7");              /* 16-byte keys */
    assert_int_equal(idb_insert_check(&cfg, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "schema=rowid needs 8-byte keys"));
    cfg.strategy = idb_strategy_find("snowflake");
    cfg.shards = 1025;                                       /* worker 1024 > 1023 */
    assert_int_equal(idb_insert_check(&cfg, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "worker"));
    cfg.shards = 2;
    cfg.strategy_kv[cfg.n_strategy_kv++] = "bogus=1";
    assert_int_equal(idb_insert_check(&cfg, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "unknown option 'bogus'"));
}

/* Make the file path (relative to dir) with text, or a directory when text is NULL. */
static void make(const char *dir, const char *path, const char *text)
{
    char full[512];
    snprintf(full, sizeof full, "%s/%s", dir, path);
    if (!text) { assert_int_equal(mkdir(full, 0777), 0); return; }
    FILE *f = fopen(full, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* 1 if path (relative to dir) exists. */
static int exists(const char *dir, const char *path)
{
    char full[512];
    struct stat sb;
    snprintf(full, sizeof full, "%s/%s", dir, path);
    return lstat(full, &sb) == 0;
}

/* Undo removes what appeared after the snapshot (in DIR and in the shard directories that
 * were there), and nothing that was there: not even in a directory that is not a shard's. */
static void rundir_undo(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    idb_rundir rd;
    idb_err err = { 0 };
    assert_int_equal(idb_rundir_begin(&rd, dir, 1, &err), 0);   /* empty: nothing kept */
    assert_int_equal(rd.n, 0);
    idb_rundir_undo(&rd);
    idb_rundir_end(&rd);
    make(dir, "mine", "x");
    make(dir, "shard-0", NULL);
    make(dir, "shard-0/mine", "x");
    make(dir, "other", NULL);
    assert_int_equal(idb_rundir_check(dir, &err), 0);
    assert_int_equal(idb_rundir_begin(&rd, dir, 2, &err), 0);
    assert_int_equal(rd.made_dir, 0);
    char path[PATH_MAX];
    assert_int_equal(idb_rundir_shard(&rd, 0, path, sizeof path, &err), 0);
    assert_int_equal(idb_rundir_shard(&rd, 1, path, sizeof path, &err), 0);
    const char *made[] = { "shard-0/store", "shard-1/store", "ranges", "shard-1/sub" };
    for (size_t i = 0; i < sizeof made / sizeof *made; i++)
        make(dir, made[i], i == 3 ? NULL : "new");
    make(dir, "shard-1/sub/deep", "new");
    idb_rundir_undo(&rd);
    idb_rundir_end(&rd);
    const char *kept[] = { "mine", "shard-0", "shard-0/mine", "other" };
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) assert_true(exists(dir, kept[i]));
    const char *gone[] = { "shard-0/store", "shard-1", "ranges" };
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++) assert_false(exists(dir, gone[i]));

    char sub[PATH_MAX];                                  /* a directory the run made */
    snprintf(sub, sizeof sub, "%s/new", dir);
    assert_int_equal(idb_rundir_begin(&rd, sub, 1, &err), 0);
    assert_int_equal(rd.made_dir, 1);
    assert_true(exists(dir, "new"));
    assert_int_equal(idb_rundir_shard(&rd, 0, path, sizeof path, &err), 0);
    idb_rundir_undo(&rd);
    idb_rundir_end(&rd);
    assert_false(exists(dir, "new"));
    assert_int_equal(idb_tmpdir_remove(dir), 0);
}

/* A run that fails after it made its stores (sqlite on shard 1 finds a foreign file)
 * removes them, and its range directory, and keeps the foreign file. */
static void failed_run_undone(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    make(dir, "shard-1", NULL);
    make(dir, "shard-1/orders.sqlite", "not a database");
    idb_insert_config cfg = { .store = idb_store_find("sqlite"),
                              .strategy = idb_strategy_find("range"),
                              .ids = 100, .batch = 10, .shards = 2, .shops = 4, .dir = dir };
    idb_insert_result *res = malloc(sizeof *res);
    idb_err err = { 0 };
    assert_int_equal(idb_insert_run(&cfg, res, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "is not an idbench store"));
    assert_false(exists(dir, "shard-0"));
    assert_false(exists(dir, "idbench-ranges.sqlite"));
    assert_true(exists(dir, "shard-1/orders.sqlite"));
    free(res);
    assert_int_equal(idb_tmpdir_remove(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(positions_by_hand),
        cmocka_unit_test(positions_per_index),
        cmocka_unit_test(percentiles_nearest_rank),
        cmocka_unit_test(repeats_counted),
        cmocka_unit_test(repeats_across_shards),
        cmocka_unit_test(writes_split),
        cmocka_unit_test(zipf_frequencies),
        cmocka_unit_test(runs_through_pagesim),
        cmocka_unit_test(model_store_skips_clock_waits),
        cmocka_unit_test(bad_configs),
        cmocka_unit_test(check_without_dir),
        cmocka_unit_test(rundir_undo),
        cmocka_unit_test(failed_run_undone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
