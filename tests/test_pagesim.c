/* test_pagesim.c — the pagesim store: tree shape against hand computations, fill factors
 * at scale, the one-pass miss/write curve against separate LRU runs, rows and errors.
 *
 * Small trees use page_size=512, 8-byte keys, row_bytes=64:
 *   leaf cell = 8 + 24 + 64 + 4 = 100 bytes, capacity 512 - 16 = 496 -> 4 cells per leaf;
 *   branch cell = 8 + 8 + 4 = 20 bytes -> 24 cells per branch.
 * A split of t = 5 cells keeps t/2 = 2 on the old page and moves 3 to the new one, or
 * (split=right, new key at the page's end) keeps 4 and moves the new key alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pagesim_access.h"
#include "pagesim_curve.h"
#include "pagesim_lru.h"
#include "pagesim_rows.h"
#include "random.h"
#include "store.h"
#include "store_test.h"

#if defined(__SANITIZE_ADDRESS__)
#define BIG_N 200000             /* keeps the sanitizer build under a few seconds */
#else
#define BIG_N 1000000
#endif

/* Open a pagesim store in "." for key_bytes keys with options kv[0..n). */
static void *open_store(int key_bytes, const char *const *kv, int n)
{
    idb_opts o;
    idb_err err = { 0 };
    assert_int_equal(idb_opts_parse(&o, S->options, kv, n, "store pagesim", &err), 0);
    void *h = NULL;
    int rc = S->open(".", &o, key_bytes, &h, &err);
    if (rc) print_error("open: %s\n", err.msg);
    assert_int_equal(rc, 0);
    return h;
}

/* Open the small-tree configuration with the given split and cache_pages. */
static void *open_small(const char *split, const char *cache)
{
    const char *kv[] = { "page_size=512", "row_bytes=64", split, cache };
    return open_store(8, kv, 4);
}

/* The row stored for key v: every field derived from v, so scan can check them. */
static idb_row row_for(uint64_t v)
{
    idb_row r = { .shop = (uint32_t)(v * 3), .display_no = (uint32_t)(v + 1000),
                  .created_ms = (int64_t)v * 1000, .total_cents = -(int64_t)v };
    idb_id_set_u64(&r.id, v);
    return r;
}

/* Insert the 8-byte key v; returns the store's code. */
static int put(void *h, uint64_t v)
{
    idb_err err = { 0 };
    idb_row r = row_for(v);
    return S->insert(h, &r, &err);
}

/* Insert a random 16-byte key from rng. */
static void put_random16(void *h, idb_rng *rng)
{
    idb_row r = { 0 };
    r.id.len = 16;
    idb_put_be(r.id.b, idb_rng_next(rng), 8);
    idb_put_be(r.id.b + 8, idb_rng_next(rng), 8);
    idb_err err = { 0 };
    assert_int_equal(S->insert(h, &r, &err), 0);
}

/* The store's stats. */
static idb_store_stats stats_of(void *h)
{
    idb_store_stats st;
    idb_err err = { 0 };
    assert_int_equal(S->stats(h, &st, &err), 0);
    return st;
}

/* Check the tree shape; fill must be exactly used / (leaves * 496). */
static void check_shape(void *h, int64_t leaves, int64_t branches, int64_t depth,
                        int64_t splits, int64_t used_bytes)
{
    idb_store_stats st = stats_of(h);
    assert_int_equal(st.leaf_pages, leaves);
    assert_int_equal(st.branch_pages, branches);
    assert_int_equal(st.depth, depth);
    assert_int_equal(st.splits, splits);
    assert_true(st.fill_factor == (double)used_bytes / (double)(leaves * 496));
    assert_int_equal(st.file_bytes, (leaves + branches) * 512);
}

typedef struct seen { uint64_t last; int64_t n, stop_at; int ordered; } seen;

/* Scan callback: check the row's fields against its key, and that keys ascend. */
static int on_row(void *ctx, const idb_row *row)
{
    seen *s = ctx;
    uint64_t v = idb_id_u64(&row->id);
    idb_row want = row_for(v);
    assert_int_equal(row->id.len, 8);
    assert_int_equal(row->shop, want.shop);
    assert_int_equal(row->display_no, want.display_no);
    assert_int_equal(row->created_ms, want.created_ms);
    assert_int_equal(row->total_cents, want.total_cents);
    if (s->n && v <= s->last) s->ordered = 0;
    s->last = v;
    s->n++;
    return s->n == s->stop_at;
}

/* Scan h and check that it returns n rows, in key order, with their fields. */
static void check_scan(void *h, int64_t n)
{
    seen s = { .ordered = 1, .stop_at = -1 };
    idb_err err = { 0 };
    assert_int_equal(S->scan(h, on_row, &s, &err), 0);
    assert_int_equal(s.n, n);
    assert_true(s.ordered);
}

/* Ascending 1..20, split=middle. Leaf [1..4]; 5 splits it to [1,2] [3,4,5]; then every odd
 * key k >= 5 splits the last leaf [k-4+..] into 2 + 3: splits at 5,7,...,19 = 8, leaves
 * [1,2] [3,4] ... [15,16] [17,18,19,20] = 9, one root branch, depth 2, fill 2000/(9*496).
 * Ascending 1..100: the root holds 24 children, so the 25th leaf (key 51, after 24 leaf
 * splits) splits it 12 + 13 (depth 3). The right level-2 branch then gets a leaf per odd
 * key and splits 12 + 13 again at keys 75 and 99. Leaf splits 5,7,...,99 = 48, branch
 * splits 3 -> 51; leaves 49 (12+12+12+13); branches root + 4 = 5; fill 10000/(49*496). */
static void test_ascending_middle(void **state)
{
    (void)state;
    void *h = open_small("split=middle", "cache_pages=10");
    for (uint64_t v = 1; v <= 20; v++) assert_int_equal(put(h, v), 0);
    check_shape(h, 9, 1, 2, 8, 2000);
    check_scan(h, 20);
    for (uint64_t v = 21; v <= 100; v++) assert_int_equal(put(h, v), 0);
    check_shape(h, 49, 5, 3, 51, 10000);
    check_scan(h, 100);
    S->close(h);
}

/* Ascending 1..20, split=right: each key past a full last leaf starts a new leaf alone:
 * splits at 5, 9, 13, 17 = 4, leaves 5 x 4 keys, depth 2, fill 2000/(5*496).
 * 1..100: leaf splits at 5, 9, ..., 97 = 24; at 97 the root gets its 25th child at its
 * end, so it keeps 24 and the new child starts a new branch alone; a new root on top:
 * splits 25, branches 3, depth 3, leaves 25, fill 10000/(25*496). */
static void test_ascending_right(void **state)
{
    (void)state;
    void *h = open_small("split=right", "cache_pages=10");
    for (uint64_t v = 1; v <= 20; v++) assert_int_equal(put(h, v), 0);
    check_shape(h, 5, 1, 2, 4, 2000);
    for (uint64_t v = 21; v <= 100; v++) assert_int_equal(put(h, v), 0);
    check_shape(h, 25, 3, 3, 25, 10000);
    check_scan(h, 100);
    S->close(h);
}

/* Descending 20..1: [17..20]; 16 goes first, t=5 -> [16,17] [18,19,20]; 15, 14 fill the
 * first leaf, 13 splits it [13,14] [15,16,17], and so on: splits at 16,13,10,7,4,1 = 6,
 * leaves [1,2] then six of 3 keys = 7, fill 2000/(7*496). The new key is never at a page's
 * end, so split=right gives the same tree. */
static void test_descending(void **state)
{
    (void)state;
    const char *splits[] = { "split=middle", "split=right" };
    for (int i = 0; i < 2; i++) {
        void *h = open_small(splits[i], "cache_pages=10");
        for (uint64_t v = 20; v >= 1; v--) assert_int_equal(put(h, v), 0);
        check_shape(h, 7, 1, 2, 6, 2000);
        check_scan(h, 20);
        S->close(h);
    }
}

/* Shuffled 5,1,9,3,7,2,8,4,6,10,11,12,13.
 * Both: [1,3,5,9] + 7 (not at the end) -> [1,3] [5,7,9]; 2, 8, 4 -> [1,2,3,4] [5,7,8,9];
 *   6 -> [5,6] [7,8,9]; 10 -> [7,8,9,10].
 * middle: 11 -> [7,8] [9,10,11]; 12; 13 -> [9,10] [11,12,13]: 5 leaves, 4 splits.
 * right:  11 at the end -> [7,8,9,10] [11]; 12, 13 -> [11,12,13]: 4 leaves, 3 splits. */
static void test_shuffled(void **state)
{
    (void)state;
    static const uint64_t keys[] = { 5, 1, 9, 3, 7, 2, 8, 4, 6, 10, 11, 12, 13 };
    void *m = open_small("split=middle", "cache_pages=10");
    void *r = open_small("split=right", "cache_pages=10");
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        assert_int_equal(put(m, keys[i]), 0);
        assert_int_equal(put(r, keys[i]), 0);
    }
    check_shape(m, 5, 1, 2, 4, 1300);
    check_shape(r, 4, 1, 2, 3, 1300);
    check_scan(m, 13);
    check_scan(r, 13);
    S->close(m);
    S->close(r);
}

/* Random 16-byte keys, split=middle, default 4096-byte pages (37 cells of 108 bytes,
 * at most 3996/4080 = 0.979 full): Yao's ln 2 of the cells -> about 0.68 of the bytes. */
static void test_random_fill(void **state)
{
    (void)state;
    const char *kv[] = { "split=middle" };
    void *h = open_store(16, kv, 1);
    idb_rng rng;
    idb_rng_seed(&rng, 42);
    for (int i = 0; i < BIG_N; i++) put_random16(h, &rng);
    idb_store_stats st = stats_of(h);
    print_message("random middle n=%d: fill %.4f leaves %lld depth %lld\n", BIG_N,
                  st.fill_factor, (long long)st.leaf_pages, (long long)st.depth);
    assert_true(st.fill_factor > 0.66 && st.fill_factor < 0.72);
    S->close(h);
}

/* Ascending 8-byte keys, 4096-byte pages: 40 cells of 100 bytes, 4000/4080 per full leaf.
 * split=right fills every leaf but the last: BIG_N is a multiple of 40, so exactly
 * BIG_N/40 full leaves, fill 4000/4080 = 0.9804. split=middle leaves 20 of 41 cells
 * behind at each split: about 2000/4080 = 0.49. */
static void test_ascending_fill(void **state)
{
    (void)state;
    const char *right[] = { "split=right" }, *middle[] = { "split=middle" };
    void *r = open_store(8, right, 1), *m = open_store(8, middle, 1);
    for (uint64_t v = 1; v <= BIG_N; v++) {
        assert_int_equal(put(r, v), 0);
        assert_int_equal(put(m, v), 0);
    }
    idb_store_stats sr = stats_of(r), sm = stats_of(m);
    print_message("ascending n=%d: right fill %.4f, middle fill %.4f\n", BIG_N,
                  sr.fill_factor, sm.fill_factor);
    assert_int_equal(sr.leaf_pages, BIG_N / 40);
    assert_true(sr.fill_factor == 4000.0 / 4080.0 && sr.fill_factor >= 0.98);
    assert_true(sm.fill_factor > 0.48 && sm.fill_factor < 0.52);
    S->close(r);
    S->close(m);
}

/* Insert n random 16-byte keys (seed) into a store with options kv[0..nkv) + cache. */
static void *run_random(const char *const *kv, int nkv, int64_t cache, int n, uint64_t seed)
{
    char c[64];
    snprintf(c, sizeof c, "cache_pages=%lld", (long long)cache);
    const char *all[8];
    for (int i = 0; i < nkv; i++) all[i] = kv[i];
    all[nkv] = c;
    void *h = open_store(16, all, nkv + 1);
    idb_rng rng;
    idb_rng_seed(&rng, seed);
    for (int i = 0; i < n; i++) put_random16(h, &rng);
    return h;
}

/* The one-pass curve equals, exactly, separate LRU runs at each cache size. */
static void test_curve_matches_lru(void **state)
{
    (void)state;
    static const int64_t sizes[] = { 1, 2, 5, 10, 50, 200, 1000, 100000 };
    enum { NS = sizeof sizes / sizeof *sizes, N = 50000 };
    const char *configs[][2] = { { "page_size=1024", "split=middle" },
                                 { "page_size=1024", "split=right" },
                                 { "page_size=4096", "split=middle" } };
    for (int c = 0; c < 3; c++) {
        void *h = run_random(configs[c], 2, 7, N, 1234 + (uint64_t)c);
        idb_curve_point pts[NS];
        idb_err err = { 0 };
        assert_int_equal(S->curve(h, sizes, NS, pts, &err), 0);
        S->close(h);
        for (int i = 0; i < NS; i++) {
            void *g = run_random(configs[c], 2, sizes[i], N, 1234 + (uint64_t)c);
            idb_store_stats st = stats_of(g);
            S->close(g);
            assert_int_equal(pts[i].cache_pages, sizes[i]);
            assert_int_equal(llround(pts[i].misses_per_insert * N), st.cache_misses);
            assert_int_equal(llround(pts[i].writes_per_insert * N), st.pages_written);
        }
        print_message("%s %s: misses/insert C=10 %.3f C=1000 %.3f\n", configs[c][0],
                      configs[c][1], pts[3].misses_per_insert, pts[6].misses_per_insert);
    }
}

/* The curve module against the LRU module on a random trace over 60 pages with reads,
 * writes, and first accesses that are creations or not (cold misses). */
static void test_curve_random_trace(void **state)
{
    (void)state;
    enum { P = 60, N = 20000, K = 65 };
    static uint32_t trace[N];
    uint8_t seen_page[P] = { 0 };
    idb_rng rng;
    idb_rng_seed(&rng, 7);
    for (int t = 0; t < N; t++) {
        uint32_t p = (uint32_t)(idb_rng_below(&rng, 4) ? idb_rng_below(&rng, 12)
                                                       : idb_rng_below(&rng, P));
        unsigned fl = idb_rng_below(&rng, 10) < 3 ? PSA_WRITE : 0;
        if (!seen_page[p]) { seen_page[p] = 1; if (idb_rng_below(&rng, 2)) fl = PSA_CREATE; }
        trace[t] = psa_encode(p, fl);
    }
    int64_t sizes[K], misses[K], writes[K];
    for (int i = 0; i < K; i++) sizes[i] = i + 1;
    assert_int_equal(psc_curve(trace, N, P, sizes, K, misses, writes), 0);
    for (int i = 0; i < K; i++) {
        psl_lru *l = psl_new(sizes[i]);
        assert_non_null(l);
        assert_int_equal(psl_reserve(l, P), 0);
        for (int t = 0; t < N; t++) psl_access(l, psa_page(trace[t]), psa_flags(trace[t]));
        int64_t m, w;
        psl_counts(l, &m, &w);
        psl_free(l);
        assert_int_equal(misses[i], m);
        assert_int_equal(writes[i], w);
    }
}

/* Stats and curve misses/writes of a small tree after keys 1..n at pool size cache. */
static void tiny(int n, int64_t cache, int64_t misses, int64_t writes)
{
    char c[32];
    snprintf(c, sizeof c, "cache_pages=%lld", (long long)cache);
    void *h = open_small("split=middle", c);
    for (int v = 1; v <= n; v++) assert_int_equal(put(h, (uint64_t)v), 0);
    idb_store_stats st = stats_of(h);
    assert_int_equal(st.cache_misses, misses);
    assert_int_equal(st.pages_written, writes);
    idb_curve_point pt;
    idb_err err = { 0 };
    assert_int_equal(S->curve(h, &cache, 1, &pt, &err), 0);
    assert_true(pt.misses_per_insert == (double)misses * (1.0 / n));
    assert_true(pt.writes_per_insert == (double)writes * (1.0 / n));
    S->close(h);
}

/* Hand-checked LRU. Keys 1..6 (C = create, W = write, R = read; pages 0, 1 leaves, 2 root):
 *   open 0C | 1..4: 0W x4 | 5: 0W, split 1C, new root 2C | 6: 2R 1W
 *   cache 1: 1C evicts dirty 0 (w1), 2C evicts 1 (w2), 1W misses (m1) evicting 2 (w3),
 *            flush 1 (w4)                                         -> 1 miss, 4 writes
 *   cache 2: 2C evicts dirty 0 (w1); flush 1, 2                   -> 0 misses, 3 writes
 *   cache 3: flush 0, 1, 2                                        -> 0 misses, 3 writes
 * Key 7 adds 2R 1W, split 3C, parent 2W:
 *   cache 1: after 6 {1 dirty}; 2R m2 evicts 1 (w4), 1W m3 evicts clean 2, 3C evicts 1
 *            (w5), 2W m4 evicts 3 (w6), flush 2 (w7)              -> 4 misses, 7 writes
 *   cache 2: 3C evicts dirty 2 (w2; LRU order 1, 2), 2W m1 evicts 1 (w3), flush 2, 3
 *                                                                 -> 1 miss, 5 writes
 *   cache 3: 3C evicts dirty 0 (w1); flush 1, 2, 3                -> 0 misses, 4 writes
 *   cache 4: flush 0..3                                           -> 0 misses, 4 writes */
static void test_tiny_lru(void **state)
{
    (void)state;
    tiny(6, 1, 1, 4);
    tiny(6, 2, 0, 3);
    tiny(6, 3, 0, 3);
    tiny(7, 1, 4, 7);
    tiny(7, 2, 1, 5);
    tiny(7, 3, 0, 4);
    tiny(7, 4, 0, 4);
}

/* A duplicate key is IDB_EINPUT and changes nothing; inserts go on afterwards. */
static void test_duplicate(void **state)
{
    (void)state;
    void *h = open_small("split=middle", "cache_pages=2");
    for (uint64_t v = 1; v <= 10; v++) assert_int_equal(put(h, v), 0);
    idb_store_stats before = stats_of(h);
    idb_err err = { 0 };
    idb_row r = row_for(5);
    assert_int_equal(S->insert(h, &r, &err), IDB_EINPUT);
    assert_int_equal(err.code, IDB_EINPUT);
    assert_non_null(strstr(err.msg, "duplicate"));
    idb_store_stats after = stats_of(h);
    assert_int_equal(after.touched_leaves, 0);     /* no leaf written since `before` */
    before.touched_fill = after.touched_fill = 0;  /* those are since the previous stats() */
    before.touched_leaves = 0;
    assert_memory_equal(&before, &after, sizeof before);
    assert_int_equal(put(h, 11), 0);
    check_scan(h, 11);
    S->close(h);
}

/* Scan: shuffled keys come back in key order with their fields; fn can stop it early. */
static void test_scan(void **state)
{
    (void)state;
    enum { N = 5000 };
    static uint64_t keys[N];
    idb_rng rng;
    idb_rng_seed(&rng, 99);
    for (int i = 0; i < N; i++) keys[i] = (uint64_t)i * 7919 + 3;
    for (int i = N - 1; i > 0; i--) {
        int j = (int)idb_rng_below(&rng, (uint64_t)i + 1);
        uint64_t t = keys[i]; keys[i] = keys[j]; keys[j] = t;
    }
    void *h = open_small("split=right", "cache_pages=3");
    for (int i = 0; i < N; i++) assert_int_equal(put(h, keys[i]), 0);
    check_scan(h, N);
    seen s = { .ordered = 1, .stop_at = 5 };
    idb_err err = { 0 };
    assert_int_equal(S->scan(h, on_row, &s, &err), 0);
    assert_int_equal(s.n, 5);
    assert_int_equal(s.last, 4 * 7919 + 3);
    S->close(h);
}

/* Bad input: a page too small for 2 rows, key widths 0 and IDB_ID_MAX + 1, a missing
 * directory, a key of the wrong width, a cache size of 0 in curve, an out-of-range option. */
static void test_bad_input(void **state)
{
    (void)state;
    idb_opts o;
    idb_err err = { 0 };
    void *h = NULL;
    const char *big[] = { "page_size=512", "row_bytes=300" };
    assert_int_equal(idb_opts_parse(&o, S->options, big, 2, "store pagesim", &err), 0);
    assert_int_equal(S->open(".", &o, 8, &h, &err), IDB_EINPUT);
    assert_int_equal(idb_opts_parse(&o, S->options, NULL, 0, "store pagesim", &err), 0);
    assert_int_equal(S->open(".", &o, 0, &h, &err), IDB_EINPUT);
    assert_int_equal(S->open(".", &o, IDB_ID_MAX + 1, &h, &err), IDB_EINPUT);
    assert_int_equal(S->open("/nonexistent/pagesim", &o, 8, &h, &err), IDB_EINPUT);
    const char *small[] = { "page_size=256" };
    assert_int_equal(idb_opts_parse(&o, S->options, small, 1, "store pagesim", &err),
                     IDB_EINPUT);
    const char *zero[] = { "cache_pages=0" };
    assert_int_equal(idb_opts_parse(&o, S->options, zero, 1, "store pagesim", &err),
                     IDB_EINPUT);

    h = open_small("split=middle", "cache_pages=2");
    idb_row r = { 0 };
    r.id.len = 16;
    assert_int_equal(S->insert(h, &r, &err), IDB_EINPUT);
    int64_t c0 = 0;
    idb_curve_point pt;
    assert_int_equal(S->curve(h, &c0, 1, &pt, &err), IDB_EINPUT);
    assert_int_equal(S->commit(h, &err), 0);
    S->close(h);
    S->close(NULL);
}

/* Rows read back equal rows written at key widths 1, 5, 20 and 32 (store_test.h). */
static void test_roundtrip_any_width(void **state)
{
    (void)state;
    roundtrip_widths();
}

#define ROWS_N 100000          /* rows: many blocks and several 64 KiB chunks */

/* Row i of test_rows: fields from i, with the extremes of every field among them. */
static psr_row rows_row(uint32_t i)
{
    static const int64_t ext[] = { INT64_MIN, INT64_MAX, 0, -1, 1, INT64_MIN + 1 };
    size_t n = sizeof ext / sizeof *ext;
    psr_row r = { .shop = i * 2654435761u, .display_no = i % 7 ? i : UINT32_MAX,
                  .created_ms = i % 5 ? 1700000000000LL + i / 3 : ext[i % n],
                  .total_cents = i % 3 ? (int64_t)(i % 50000) - 25000 : ext[(i / 3) % n] };
    return r;
}

/* The compact row table gives back every row as written, extremes included, in any
 * order of reading (pagesim_rows.c: varints, blocks, chunks). */
static void test_rows(void **state)
{
    (void)state;
    psr_rows *t = psr_new();
    assert_non_null(t);
    for (uint32_t i = 0; i < ROWS_N; i++) {
        psr_row r = rows_row(i);
        assert_int_equal(psr_append(t, &r), 0);
    }
    assert_int_equal(psr_count(t), ROWS_N);
    for (uint32_t k = 0; k < ROWS_N; k++) {
        uint32_t i = (uint32_t)(((uint64_t)k * 7919) % ROWS_N);   /* a scattered order */
        psr_row want = rows_row(i), got;
        psr_get(t, i, &got);
        assert_int_equal(got.shop, want.shop);
        assert_int_equal(got.display_no, want.display_no);
        assert_true(got.created_ms == want.created_ms);
        assert_true(got.total_cents == want.total_cents);
    }
    psr_free(t);
    psr_free(NULL);
}

/* Run every pagesim test. */
int main(void)
{
    S = idb_store_find("pagesim");
    if (!S) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_any_width),
        cmocka_unit_test(test_ascending_middle),
        cmocka_unit_test(test_ascending_right),
        cmocka_unit_test(test_descending),
        cmocka_unit_test(test_shuffled),
        cmocka_unit_test(test_tiny_lru),
        cmocka_unit_test(test_duplicate),
        cmocka_unit_test(test_scan),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_curve_random_trace),
        cmocka_unit_test(test_curve_matches_lru),
        cmocka_unit_test(test_random_fill),
        cmocka_unit_test(test_ascending_fill),
        cmocka_unit_test(test_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
