/* test_keysort.c — keysort.h's in-place radix sorts against qsort on the same input: keys of
 * widths 1 to IDB_ID_MAX with shared prefixes, runs of equal keys and all-equal bytes;
 * int64 with both signs and the extremes; doubles with both signs, both zeros and
 * infinities; the sizes around the insertion-sort cut and the empty and one-key cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "id.h"
#include "keysort.h"

static uint64_t rng = 0x9E3779B97F4A7C15u;

/* xorshift64: the inputs' bytes. */
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static size_t qwidth;
static int cmp_key(const void *a, const void *b) { return memcmp(a, b, qwidth); }

/* n keys of width w whose first `shared` bytes are one of few values and whose other bytes
 * take `spread` values each (few: many equal keys). */
static void fill(uint8_t *k, size_t n, size_t w, size_t shared, unsigned spread)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < w; j++)
            k[i * w + j] = (uint8_t)(j < shared ? (j == shared - 1 ? next() % 2 : 7)
                                                : next() % spread);
}

/* idb_keys_sort and qsort agree on one input. */
static void agree(size_t n, size_t w, size_t shared, unsigned spread)
{
    uint8_t *a = malloc(n * w + 1), *b = malloc(n * w + 1);
    fill(a, n, w, shared, spread);
    memcpy(b, a, n * w);
    idb_keys_sort(a, (int64_t)n, (int)w);
    qwidth = w;
    qsort(b, n, w, cmp_key);
    assert_memory_equal(a, b, n * w);
    free(a);
    free(b);
}

static void keys_sorted_as_memcmp(void **state)
{
    (void)state;
    static const size_t widths[] = { 1, 2, 3, 8, 16, 20, IDB_ID_MAX };
    static const size_t sizes[] = { 0, 1, 2, 23, 24, 25, 300, 5000 };
    for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            size_t w = widths[wi], n = sizes[si];
            agree(n, w, 0, 256);                    /* random bytes */
            agree(n, w, 0, 3);                      /* many equal keys */
            agree(n, w, w / 2, 256);                /* a shared prefix (constant bytes) */
            agree(n, w, w, 256);                    /* every byte shared but the last of it */
        }
}

/* A sorted input and its reverse come back sorted (the permutation's cycles). */
static void keys_in_order_and_reversed(void **state)
{
    (void)state;
    enum { N = 1000 };
    uint8_t k[N * 2];
    for (int i = 0; i < N; i++) { k[2 * i] = (uint8_t)(i >> 8); k[2 * i + 1] = (uint8_t)i; }
    idb_keys_sort(k, N, 2);
    for (int i = 0; i < N; i++) assert_int_equal(k[2 * i] << 8 | k[2 * i + 1], i);
    for (int i = 0; i < N; i++) {
        k[2 * i] = (uint8_t)((N - 1 - i) >> 8);
        k[2 * i + 1] = (uint8_t)(N - 1 - i);
    }
    idb_keys_sort(k, N, 2);
    for (int i = 0; i < N; i++) assert_int_equal(k[2 * i] << 8 | k[2 * i + 1], i);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void i64_sorted(void **state)
{
    (void)state;
    enum { N = 4000 };
    int64_t a[N], b[N];
    for (int i = 0; i < N; i++) a[i] = (int64_t)next() >> (i % 50);   /* both signs, sizes */
    a[0] = INT64_MIN;
    a[1] = INT64_MAX;
    a[2] = -1;
    a[3] = 0;
    memcpy(b, a, sizeof a);
    idb_i64_sort(a, N);
    qsort(b, N, sizeof *b, cmp_i64);
    assert_memory_equal(a, b, sizeof a);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void doubles_sorted(void **state)
{
    (void)state;
    enum { N = 3000 };
    double a[N], b[N];
    for (int i = 0; i < N; i++) a[i] = ((double)(next() % 2001) - 1000.0) / 7.0;
    a[0] = -0.0;
    a[1] = 0.0;
    a[2] = INFINITY;
    a[3] = -INFINITY;
    a[4] = 5e-324;
    a[5] = -5e-324;
    memcpy(b, a, sizeof a);
    idb_double_sort(a, N);
    qsort(b, N, sizeof *b, cmp_double);
    for (int i = 0; i < N; i++) assert_true(a[i] == b[i]);   /* the zeros compare equal */
    int neg0 = -1, pos0 = -1;                        /* -0.0 sorts before +0.0, both kept */
    for (int i = 0; i < N; i++)
        if (a[i] == 0.0 && signbit(a[i])) neg0 = i;
        else if (a[i] == 0.0 && pos0 < 0) pos0 = i;
    assert_true(neg0 >= 0 && pos0 > neg0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keys_sorted_as_memcmp),
        cmocka_unit_test(keys_in_order_and_reversed),
        cmocka_unit_test(i64_sorted),
        cmocka_unit_test(doubles_sorted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
