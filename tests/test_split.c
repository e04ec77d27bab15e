/* test_split.c — the key-space split arithmetic of split.h (the spider store's range
 * partitions and split=sample's points), on crafted keys: `space` points against values
 * computed another way (2^63 / 4 in 64-bit arithmetic, the 128-bit space's quarters by
 * their top bits, a 20-byte space's thirds by __int128 on its low 16 bytes), `sample`
 * points at the quantiles of a sorted sample, which part a key falls in (points
 * included in the part above them), refusals, each part's share, and the largest share
 * within a window of rows against a brute force over every window (off-by-one windows
 * differ on the crafted sequences).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "split.h"

static void split_ok(int rc, const idb_err *err)
{
    if (rc) fail_msg("split: %s", err->msg);
}

/* 63-bit space in 8-byte keys over 4 parts: j * 2^61. */
static void test_space_63(void **state)
{
    (void)state;
    idb_id p[3];
    idb_err err = { 0 };
    split_ok(idb_split_space(4, 8, 63, p, &err), &err);
    for (int j = 0; j < 3; j++) {
        assert_int_equal(p[j].len, 8);
        assert_true(idb_id_u64(&p[j]) == (uint64_t)(j + 1) << 61);
    }
    /* 3 parts: floor(j * 2^63 / 3) */
    split_ok(idb_split_space(3, 8, 63, p, &err), &err);
    assert_true(idb_id_u64(&p[0]) == (UINT64_C(1) << 63) / 3);
    assert_true(idb_id_u64(&p[1]) == (uint64_t)(((unsigned __int128)2 << 63) / 3));
}

/* 128-bit space in 16-byte keys over 4 parts: the top two bits 01, 10, 11, the rest 0. */
static void test_space_128(void **state)
{
    (void)state;
    idb_id p[3];
    idb_err err = { 0 };
    split_ok(idb_split_space(4, 16, 128, p, &err), &err);
    for (int j = 0; j < 3; j++) {
        uint8_t want[16] = { (uint8_t)((j + 1) << 6) };
        assert_memory_equal(p[j].b, want, 16);
    }
    /* 16 parts: the top nibble */
    idb_id q[15];
    split_ok(idb_split_space(16, 16, 128, q, &err), &err);
    for (int j = 0; j < 15; j++) assert_int_equal(q[j].b[0], (j + 1) << 4);
}

/* A 100-bit space in 20-byte keys over 3 parts: floor(j * 2^100 / 3) by __int128. */
static void test_space_wide(void **state)
{
    (void)state;
    idb_id p[2];
    idb_err err = { 0 };
    split_ok(idb_split_space(3, 20, 100, p, &err), &err);
    for (int j = 0; j < 2; j++) {
        unsigned __int128 v = ((unsigned __int128)(j + 1) << 100) / 3;
        uint8_t want[20] = { 0 };
        for (int i = 0; i < 16; i++) want[19 - i] = (uint8_t)(v >> (8 * i));
        assert_memory_equal(p[j].b, want, 20);
    }
}

/* Refusals: parts, widths, a space wider than the keys, slices so thin points coincide. */
static void test_space_refused(void **state)
{
    (void)state;
    idb_id p[IDB_SPLIT_PARTS_MAX];
    idb_err err = { 0 };
    assert_int_equal(idb_split_space(1, 8, 63, p, &err), IDB_EINPUT);
    assert_int_equal(idb_split_space(17, 8, 63, p, &err), IDB_EINPUT);
    assert_int_equal(idb_split_space(4, 8, 65, p, &err), IDB_EINPUT);
    assert_int_equal(idb_split_space(4, 8, 0, p, &err), IDB_EINPUT);
    assert_int_equal(idb_split_space(4, 8, 1, p, &err), IDB_EINPUT);   /* 0, 1, 1 */
    split_ok(idb_split_space(4, 8, 2, p, &err), &err);                   /* 1, 2, 3 */
    assert_true(idb_id_u64(&p[2]) == 3);
}

/* Keys 0 .. n-1 as 8-byte big-endian, packed. */
static uint8_t *counting(int64_t n)
{
    uint8_t *k = malloc((size_t)n * 8);
    assert_non_null(k);
    for (int64_t i = 0; i < n; i++) idb_put_be64(k + 8 * i, (uint64_t)i * 10);
    return k;
}

/* sample: the key at floor(j n / P); refusals for too few keys and repeated quantiles. */
static void test_sample(void **state)
{
    (void)state;
    idb_id p[3];
    idb_err err = { 0 };
    uint8_t *k = counting(1001);
    split_ok(idb_split_sample(4, 8, k, 1001, p, &err), &err);
    assert_true(idb_id_u64(&p[0]) == 250 * 10);      /* floor(1001 / 4) = 250 */
    assert_true(idb_id_u64(&p[1]) == 500 * 10);
    assert_true(idb_id_u64(&p[2]) == 750 * 10);
    int64_t count[4] = { 0 };
    for (int i = 0; i < 1001; i++) count[idb_split_part(4, 8, p, k + 8 * i)]++;
    assert_int_equal(count[0], 250);
    assert_int_equal(count[1], 250);
    assert_int_equal(count[2], 250);
    assert_int_equal(count[3], 251);
    assert_int_equal(idb_split_sample(4, 8, k, 3, p, &err), IDB_EINPUT);
    memset(k, 0, 8 * 600);                            /* 600 equal keys: quantiles repeat */
    assert_int_equal(idb_split_sample(4, 8, k, 1001, p, &err), IDB_EINPUT);
    free(k);
}

/* Which part: below the first point 0, a point itself goes above it, past the last P-1. */
static void test_part(void **state)
{
    (void)state;
    idb_id p[3];
    for (int j = 0; j < 3; j++) idb_id_set_u64(&p[j], (uint64_t)(j + 1) * 100);
    uint8_t key[8];
    static const struct { uint64_t v; int part; } cases[] = {
        { 0, 0 }, { 99, 0 }, { 100, 1 }, { 199, 1 }, { 200, 2 }, { 299, 2 }, { 300, 3 },
        { UINT64_MAX, 3 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        idb_put_be64(key, cases[i].v);
        assert_int_equal(idb_split_part(4, 8, p, key), cases[i].part);
    }
    idb_err err = { 0 };
    idb_id bad[3] = { p[1], p[0], p[2] };
    assert_int_equal(idb_split_check(4, 8, bad, &err), IDB_EINPUT);
    bad[0] = p[0];
    bad[1] = p[0];
    assert_int_equal(idb_split_check(4, 8, bad, &err), IDB_EINPUT);
}

/* The largest share within any w consecutive rows, by brute force over every window. */
static double brute(const uint8_t *part, int64_t n, int parts, int64_t w)
{
    if (n < w) w = n;
    int64_t best = 0;
    for (int64_t s = 0; s + w <= n; s++) {
        int64_t c[IDB_SPLIT_PARTS_MAX] = { 0 };
        for (int64_t i = s; i < s + w; i++) c[part[i]]++;
        for (int j = 0; j < parts; j++) if (c[j] > best) best = c[j];
    }
    return n ? (double)best / (double)w : 0;
}

/* Crafted sequences: a run of 4 of one part among alternation (window 4: 1.0; window 5:
 * 0.8; window 3: 1.0), round robin (1/P), and seeded random ones against brute(). */
static void test_window(void **state)
{
    (void)state;
    uint8_t run4[] = { 0, 1, 0, 1, 2, 2, 2, 2, 1, 0, 1, 0 };
    int64_t n = (int64_t)sizeof run4;
    assert_true(idb_split_window_max(run4, n, 3, 4) == 1.0);
    assert_true(idb_split_window_max(run4, n, 3, 5) == 0.8);
    assert_true(idb_split_window_max(run4, n, 3, 6) == 4.0 / 6);
    uint8_t run3[] = { 0, 1, 1, 1, 0, 2, 0, 2 };   /* window 4: 3/4; window 3: 1 */
    assert_true(idb_split_window_max(run3, 8, 3, 4) == 0.75);
    assert_true(idb_split_window_max(run3, 8, 3, 3) == 1.0);
    assert_true(idb_split_window_max(run3, 8, 3, 100) == 3.0 / 8);   /* one window: all */
    uint8_t rr[400];
    for (int i = 0; i < 400; i++) rr[i] = (uint8_t)(i % 4);
    assert_true(idb_split_window_max(rr, 400, 4, 100) == 0.25);
    assert_true(idb_split_window_max(rr, 400, 4, 6) == 2.0 / 6);
    assert_true(idb_split_window_max(rr, 0, 4, 6) == 0);
    assert_true(idb_split_window_max(rr, 400, 4, 0) == -1);
    assert_true(idb_split_window_max(rr, 400, 3, 10) == -1);        /* part 3 of 3 parts */
    srand(7);
    uint8_t r[300];
    for (int t = 0; t < 50; t++) {
        int parts = 2 + t % 5;
        for (int i = 0; i < 300; i++) r[i] = (uint8_t)(rand() % parts);
        int64_t w = 1 + t * 7 % 40;
        assert_true(idb_split_window_max(r, 300, parts, w) == brute(r, 300, parts, w));
    }
}

/* Shares from counts sum to 1; the hot share is the largest. */
static void test_shares(void **state)
{
    (void)state;
    int64_t count[4] = { 10, 60, 20, 10 };
    double share[4];
    assert_true(idb_split_shares(count, 4, share) == 0.6);
    assert_true(share[0] == 0.1 && share[2] == 0.2);
    int64_t none[2] = { 0, 0 };
    assert_true(idb_split_shares(none, 2, share) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_space_63), cmocka_unit_test(test_space_128),
        cmocka_unit_test(test_space_wide), cmocka_unit_test(test_space_refused),
        cmocka_unit_test(test_sample), cmocka_unit_test(test_part),
        cmocka_unit_test(test_window), cmocka_unit_test(test_shares),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
