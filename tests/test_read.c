/* test_read.c — idbench read's runner (runner/read.h) on the embedded stores: insert runs
 * with the record (readrec.h), then every recorded row looked up through each store's read
 * hooks and compared with what insert wrote, the plan's misses never found, a cold cache
 * that is cold (the first lookup misses every page of its path: the tree's depth) and a
 * warm one that is not, the same seed giving the same plan, recent:H and mixed:P:H drawing
 * where they say, and a DIR the record does not match refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insert.h"
#include "read.h"
#include "readrec.h"
#include "strategy.h"
#include "tmpdir.h"

#define ROWS 6000

/* An insert run of n rows of strategy on store into dir (shards shards), the record kept;
 * its result in *res. */
static void insert_into(const char *dir, const char *store, const char *strategy, int shards,
                        idb_insert_result *res)
{
    idb_insert_config cfg = { .store = idb_store_find(store),
                              .strategy = idb_strategy_find(strategy), .ids = ROWS,
                              .batch = 500, .shards = shards, .shops = 40, .shop_skew = 1.0,
                              .dir = dir, .seed = 7, .record = 1 };
    idb_err err = { 0 };
    int rc = idb_insert_run(&cfg, res, &err);
    if (rc) fprintf(stderr, "insert: %s\n", err.msg);
    assert_int_equal(rc, 0);
}

/* Every row of rec, looked up through store's read hooks on dir's shards (a model: its
 * rows replayed into open()'s handle first), is found with the fields insert wrote; IDs
 * one above each recorded ID's last byte that are not in the record are not found. */
static void every_row(const char *dir, const char *store_name)
{
    const idb_store *st = idb_store_find(store_name);
    idb_readrec rec;
    idb_err err = { 0 };
    assert_int_equal(idb_readrec_load(dir, store_name, &rec, &err), 0);
    assert_int_equal(rec.rows, ROWS);
    const char *kv[IDB_READREC_KV_MAX];
    for (int i = 0; i < rec.nkv; i++) kv[i] = rec.kv[i];
    idb_opts o;
    int width;
    assert_int_equal(idb_store_opts_parse(st, kv, rec.nkv, rec.width, &o, &width, &err), 0);
    void *h[4] = { 0 };
    for (int k = 0; k < rec.shards; k++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/shard-%d", dir, k);
        if (st->open_read) {
            assert_int_equal(st->open_read(path, &o, width, &h[k], &err), 0);
            continue;
        }
        assert_int_equal(st->open(path, &o, width, &h[k], &err), 0);
        for (int64_t i = 0; i < rec.rows; i++) {
            idb_row row;
            int s;
            idb_readrec_get(&rec, i, &row, &s);
            if (s == k) assert_int_equal(st->insert(h[k], &row, &err), 0);
        }
    }
    int64_t per_shard[4] = { 0 };
    for (int64_t i = 0; i < rec.rows; i++) {
        idb_row want, got;
        int k, found = 0;
        idb_readrec_get(&rec, i, &want, &k);
        per_shard[k]++;
        assert_int_equal(st->get(h[k], &want.id, &got, &found, &err), 0);
        assert_int_equal(found, 1);
        assert_memory_equal(got.id.b, want.id.b, want.id.len);
        assert_int_equal(got.shop, want.shop);
        assert_int_equal(got.display_no, want.display_no);
        assert_int_equal(got.created_ms, want.created_ms);
        assert_int_equal(got.total_cents, want.total_cents);
        idb_id other = want.id;                  /* another shard's row: not in shard k */
        if (rec.shards > 1) {
            idb_row o2;
            int k2;
            idb_readrec_get(&rec, (i + 1) % rec.rows, &o2, &k2);
            if (k2 != k) {
                assert_int_equal(st->get(h[k], &o2.id, &got, &found, &err), 0);
                assert_int_equal(found, 0);
            }
        }
        other.b[0] ^= 0x80;           /* not the run's: counter never sets it, uuidv4 1 in 2^122 */
        if (st->get(h[k], &other, &got, &found, &err) == 0) assert_int_equal(found, 0);
    }
    for (int k = 0; k < rec.shards; k++) {
        assert_true(per_shard[k] > 0);
        (st->close_read ? st->close_read : st->close)(h[k]);
    }
    idb_readrec_free(&rec);
}

/* A read of cfg on dir; its result. */
static idb_read_result read_run(const char *dir, const char *store, int64_t n, int pattern,
                                int warm, double miss_share)
{
    idb_read_config cfg = { .store = idb_store_find(store), .dir = dir, .lookups = n,
                            .pattern = pattern, .recent_pct = 5, .warm = warm, .seed = 11,
                            .miss_share = miss_share };
    idb_read_result r;
    idb_err err = { 0 };
    int rc = idb_read_run(&cfg, &r, &err);
    if (rc) fprintf(stderr, "read: %s\n", err.msg);
    assert_int_equal(rc, 0);
    return r;
}

/* Rows found with their fields on every store, one shard and two; the runner's counts:
 * every existing ID found, every missing one not (counted apart). */
static void rows_found(void **state)
{
    (void)state;
    static const char *const stores[] = { "sqlite", "lmdb", "pagesim" };
    static const char *const strategies[] = { "uuidv4", "counter" };
    for (int s = 0; s < 3; s++) {
        for (int g = 0; g < 2; g++) {
            char dir[256];
            idb_insert_result *res = malloc(sizeof *res);
            assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
            insert_into(dir, stores[s], strategies[g], 1 + g, res);
            every_row(dir, stores[s]);
            idb_read_result r = read_run(dir, stores[s], 3000, IDB_READ_UNIFORM, 0, 0.2);
            assert_int_equal(r.lookups, 3000);
            assert_int_equal(r.missing, 600);
            assert_int_equal(r.not_found, 600);
            assert_int_equal(r.found, 2400);
            assert_int_equal(r.rows, ROWS);
            assert_string_equal(r.strategy, strategies[g]);
            free(res);
            idb_tmpdir_remove(dir);
        }
    }
}

/* Cold: the first lookup misses every page of its root-to-leaf path (depth, from the
 * insert run's own count), and pages read per lookup are at least that on the stores that
 * can tell; lookups that touch every page at most once more miss no more than the tree's
 * pages. Warm: the same lookup misses nothing. */
static void cold_is_cold(void **state)
{
    (void)state;
    static const char *const stores[] = { "sqlite", "lmdb", "pagesim" };
    for (int s = 0; s < 3; s++) {
        char dir[256];
        idb_insert_result *res = malloc(sizeof *res);
        assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
        insert_into(dir, stores[s], "uuidv7", 1, res);
        assert_true(res->st.depth >= 2);
        idb_read_result cold = read_run(dir, stores[s], 1, IDB_READ_UNIFORM, 0, 0);
        idb_read_result warm = read_run(dir, stores[s], 1, IDB_READ_UNIFORM, 1, 0);
        if (strcmp(stores[s], "lmdb") == 0)      /* faults: the OS may map a neighbour too */
            assert_true(cold.misses_per_lookup >= 1);
        else
            assert_true(cold.misses_per_lookup == (double)res->st.depth);
        assert_true(cold.read_pages_per_lookup >= 1);
        assert_true(warm.misses_per_lookup == 0);
        idb_read_result many = read_run(dir, stores[s], 4000, IDB_READ_UNIFORM, 0, 0);
        double pages = (double)(res->st.leaf_pages + res->st.branch_pages);
        assert_true(many.misses_per_lookup * 4000 <= pages + 1);   /* + sqlite's schema page */
        assert_true(many.misses_per_lookup * 4000 >= (double)res->st.depth);
        free(res);
        idb_tmpdir_remove(dir);
    }
}

/* The plan: the same seed gives the same lookups, another seed others; recent:H draws only
 * from the newest ceil(N H / 100) rows of the record, and all over them; mixed:P:H puts
 * about P% + (1 - P%) H% of its lookups there; misses are none of the run's IDs. */
static void plan_draws(void **state)
{
    (void)state;
    char dir[256];
    idb_insert_result *res = malloc(sizeof *res);
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    insert_into(dir, "pagesim", "uuidv4", 1, res);
    idb_readrec rec;
    idb_err err = { 0 };
    assert_int_equal(idb_readrec_load(dir, "pagesim", &rec, &err), 0);
    enum { N = 20000 };
    idb_read_lookup *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    idb_read_config cfg = { .lookups = N, .pattern = IDB_READ_RECENT, .recent_pct = 5,
                            .seed = 3 };
    assert_int_equal(idb_read_plan(&rec, &cfg, a, &err), 0);
    assert_int_equal(idb_read_plan(&rec, &cfg, b, &err), 0);
    assert_memory_equal(a, b, N * sizeof *a);
    int64_t from = idb_read_recent_from(ROWS, 5);
    assert_int_equal(from, ROWS - 300);
    int64_t lo = ROWS, hi = 0;
    for (int i = 0; i < N; i++) {
        assert_true(a[i].index >= from && a[i].index < ROWS);
        lo = a[i].index < lo ? a[i].index : lo;
        hi = a[i].index > hi ? a[i].index : hi;
    }
    assert_int_equal(lo, from);
    assert_int_equal(hi, ROWS - 1);
    cfg.seed = 4;
    assert_int_equal(idb_read_plan(&rec, &cfg, b, &err), 0);
    assert_memory_not_equal(a, b, N * sizeof *a);
    cfg.pattern = IDB_READ_MIXED;
    cfg.mixed_pct = 50;
    assert_int_equal(idb_read_plan(&rec, &cfg, a, &err), 0);
    int recent = 0;
    for (int i = 0; i < N; i++) recent += a[i].index >= from;
    double want = 0.5 + 0.5 * 0.05;               /* 0.525 */
    assert_true(recent > (want - 0.03) * N && recent < (want + 0.03) * N);
    cfg.pattern = IDB_READ_UNIFORM;
    cfg.miss_share = 0.5;
    assert_int_equal(idb_read_plan(&rec, &cfg, a, &err), 0);
    int misses = 0;
    for (int i = 0; i < N; i++) {
        if (a[i].index >= 0) continue;
        misses++;
        for (int64_t j = 0; j < rec.rows; j += 97) {   /* a sample of the run's IDs */
            idb_row row;
            int k;
            idb_readrec_get(&rec, j, &row, &k);
            assert_true(idb_id_cmp(&row.id, &a[i].miss) != 0);
        }
    }
    assert_int_equal(misses, N / 2);
    idb_readrec_free(&rec);
    free(a);
    free(b);
    free(res);
    idb_tmpdir_remove(dir);
}

/* Misses cannot collide: in a crafted record of 1-byte IDs holding 127 of the 128 values a
 * miss may take (top bit clear), every miss is the one value left out. */
static void misses_avoid_ids(void **state)
{
    (void)state;
    idb_readrec rec;
    idb_err err = { 0 };
    assert_int_equal(idb_readrec_init(&rec, "counter", "pagesim", 1, 1, 1, NULL, 0, &err), 0);
    for (int v = 0; v < 128; v++) {
        idb_row row = { .id = { .len = 1, .b = { (uint8_t)v } } };
        if (v != 77) assert_int_equal(idb_readrec_add(&rec, &row, 0, &err), 0);
    }
    enum { N = 400 };
    idb_read_lookup plan[N];
    idb_read_config cfg = { .lookups = N, .pattern = IDB_READ_UNIFORM, .miss_share = 0.25,
                            .seed = 9 };
    assert_int_equal(idb_read_plan(&rec, &cfg, plan, &err), 0);
    int misses = 0;
    for (int i = 0; i < N; i++) {
        if (plan[i].index >= 0) continue;
        misses++;
        assert_int_equal(plan[i].miss.len, 1);
        assert_int_equal(plan[i].miss.b[0], 77);
    }
    assert_int_equal(misses, N / 4);
    idb_readrec_free(&rec);
}

/* A record whose entry names a shard past the record's (0xfffffff0: negative as an int)
 * is refused, as is one whose size is not a whole number of entries (the fuzz target's
 * first finding). */
static void record_shard_bounds(void **state)
{
    (void)state;
    char dir[256], path[300];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    snprintf(path, sizeof path, "%s/insert-pagesim.rec", dir);
    static const char head[] = "idbench insert record 1\nstrategy=counter\nstore=pagesim\n"
                               "key_bytes=8\nshards=2\nseed=1\nend\n";
    uint8_t entry[36] = { 0xff, 0xff, 0xff, 0xf0 };
    for (int bad = 0; bad < 2; bad++) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fwrite(head, 1, sizeof head - 1, f);
        fwrite(entry, 1, bad ? sizeof entry - 1 : sizeof entry, f);
        fclose(f);
        idb_readrec rec;
        idb_err err = { 0 };
        assert_int_equal(idb_readrec_load(dir, "pagesim", &rec, &err), IDB_EINPUT);
        assert_null(rec.data);
        entry[0] = entry[1] = entry[2] = 0;
        entry[3] = 1;                            /* shard 1 of 2: fine once whole */
    }
    idb_readrec rec;
    idb_err err = { 0 };
    FILE *f = fopen(path, "ab");
    fputc(0, f);                                 /* 35 + 1: one whole entry again */
    fclose(f);
    assert_int_equal(idb_readrec_load(dir, "pagesim", &rec, &err), 0);
    assert_int_equal(rec.rows, 1);
    idb_readrec_free(&rec);
    idb_tmpdir_remove(dir);
}

/* recent:5 after counter on pagesim reads the few newest leaves: far fewer misses per
 * lookup than uniform over the whole tree (the recency the pattern asks for is used). */
static void recent_is_recent(void **state)
{
    (void)state;
    char dir[256];
    idb_insert_result *res = malloc(sizeof *res);
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    insert_into(dir, "pagesim", "counter", 1, res);
    idb_read_result rec = read_run(dir, "pagesim", 5000, IDB_READ_RECENT, 0, 0);
    idb_read_result uni = read_run(dir, "pagesim", 5000, IDB_READ_UNIFORM, 0, 0);
    assert_true(rec.misses_per_lookup * 5 < uni.misses_per_lookup);
    free(res);
    idb_tmpdir_remove(dir);
}

/* Refused before anything: a DIR with no record of the store, a strategy other than the
 * record's, a store that cannot read, bad numbers. */
static void refusals(void **state)
{
    (void)state;
    char dir[256];
    idb_insert_result *res = malloc(sizeof *res);
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    insert_into(dir, "pagesim", "uuidv7", 1, res);
    idb_read_config cfg = { .store = idb_store_find("sqlite"), .dir = dir, .lookups = 10,
                            .pattern = IDB_READ_UNIFORM };
    idb_read_result r;
    idb_err err = { 0 };
    assert_int_equal(idb_read_run(&cfg, &r, &err), IDB_EINPUT);    /* no sqlite record */
    cfg.store = idb_store_find("pagesim");
    cfg.strategy = "uuidv4";
    assert_int_equal(idb_read_run(&cfg, &r, &err), IDB_EINPUT);
    cfg.strategy = "uuidv7";
    assert_int_equal(idb_read_run(&cfg, &r, &err), 0);
    cfg.store = idb_store_find("null");
    assert_int_equal(idb_read_run(&cfg, &r, &err), IDB_EINPUT);
    cfg.store = idb_store_find("pagesim");
    cfg.miss_share = 1.5;
    assert_int_equal(idb_read_run(&cfg, &r, &err), IDB_EINPUT);
    cfg.miss_share = 0;
    cfg.pattern = IDB_READ_RECENT;
    cfg.recent_pct = 0;
    assert_int_equal(idb_read_run(&cfg, &r, &err), IDB_EINPUT);
    free(res);
    idb_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_found),     cmocka_unit_test(cold_is_cold),
        cmocka_unit_test(plan_draws),     cmocka_unit_test(recent_is_recent),
        cmocka_unit_test(refusals),       cmocka_unit_test(misses_avoid_ids),
        cmocka_unit_test(record_shard_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
