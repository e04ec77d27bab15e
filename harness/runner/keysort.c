/* keysort.c — in-place radix sorts of fixed-width keys and of int64 (see keysort.h).
 *
 * American flag sort: the keys are dealt into 256 buckets by their byte at depth d (a
 * count, then a cycle-leader permutation inside the array), and each bucket is sorted on
 * the next byte; a byte every key shares costs one counting pass and no permutation; small
 * buckets finish by insertion sort. Byte order is memcmp order, so the result is the one
 * any correct sort gives. No memory is taken: a level's counts are on the stack (at most
 * IDB_ID_MAX levels of 4 KiB). */
#include "keysort.h"

#include <string.h>

#include "id.h"

#define SMALL 24                     /* buckets this small: insertion sort */

/* Swap the width-byte keys at a and b. */
static void swap_keys(uint8_t *a, uint8_t *b, size_t w)
{
    uint8_t t[IDB_ID_MAX];
    memcpy(t, a, w);
    memcpy(a, b, w);
    memcpy(b, t, w);
}

/* Insertion sort of n keys of width w that agree on their first d bytes. */
static void insertion(uint8_t *k, size_t n, size_t w, size_t d)
{
    uint8_t t[IDB_ID_MAX];
    for (size_t i = 1; i < n; i++) {
        size_t j = i;
        if (memcmp(k + (j - 1) * w + d, k + i * w + d, w - d) <= 0) continue;
        memcpy(t, k + i * w, w);
        do {
            memcpy(k + j * w, k + (j - 1) * w, w);
            j--;
        } while (j > 0 && memcmp(k + (j - 1) * w + d, t + d, w - d) > 0);
        memcpy(k + j * w, t, w);
    }
}

/* Sort n keys of width w that agree on their first d bytes. */
static void flag_sort(uint8_t *k, size_t n, size_t w, size_t d)
{
    size_t end[256], next[256];
    for (;;) {
        if (n < 2 || d >= w) return;
        if (n <= SMALL) {
            insertion(k, n, w, d);
            return;
        }
        size_t count[256] = { 0 };
        for (size_t i = 0; i < n; i++) count[k[i * w + d]]++;
        if (count[k[d]] == n) {          /* every key has this byte: on to the next */
            d++;
            continue;
        }
        size_t at = 0;
        for (int b = 0; b < 256; b++) {
            next[b] = at;
            at += count[b];
            end[b] = at;
        }
        for (int b = 0; b < 256; b++)
            while (next[b] < end[b]) {
                uint8_t *key = k + next[b] * w;
                int c = key[d];
                if (c == b) next[b]++;
                else swap_keys(key, k + next[c]++ * w, w);
            }
        size_t from = 0;
        for (int b = 0; b < 256; b++) {
            if (end[b] - from > 1) flag_sort(k + from * w, end[b] - from, w, d + 1);
            from = end[b];
        }
        return;
    }
}

void idb_keys_sort(uint8_t *keys, int64_t n, int width)
{
    if (n > 1 && width > 0) flag_sort(keys, (size_t)n, (size_t)width, 0);
}

/* Bits whose unsigned order is v's numeric order: for int64 the sign flipped; for a double
 * (no NaN) all bits flipped when negative, else the sign. */
static uint64_t i64_bits(uint64_t u) { return u ^ UINT64_C(0x8000000000000000); }
static uint64_t dbl_bits(uint64_t u) { return u >> 63 ? ~u : u | UINT64_C(0x8000000000000000); }
static uint64_t dbl_unbits(uint64_t u) { return u >> 63 ? u & ~UINT64_C(0x8000000000000000) : ~u; }

/* The 8-byte words at v (int64 or double: read and written through memcpy) as big-endian
 * sort keys of f(bits), in place. */
static void to_key(void *v, int64_t n, uint64_t (*f)(uint64_t))
{
    uint8_t *p = v;
    for (int64_t i = 0; i < n; i++, p += 8) {
        uint64_t u;
        memcpy(&u, p, 8);
        u = f(u);
        for (int j = 0; j < 8; j++) p[j] = (uint8_t)(u >> (56 - 8 * j));
    }
}

/* The inverse of to_key, with g the inverse of its f. */
static void from_key(void *v, int64_t n, uint64_t (*g)(uint64_t))
{
    uint8_t *p = v;
    for (int64_t i = 0; i < n; i++, p += 8) {
        uint64_t u = 0;
        for (int j = 0; j < 8; j++) u = u << 8 | p[j];
        u = g(u);
        memcpy(p, &u, 8);
    }
}

void idb_i64_sort(int64_t *v, int64_t n)
{
    if (n < 2) return;
    to_key(v, n, i64_bits);
    idb_keys_sort((uint8_t *)v, n, 8);
    from_key(v, n, i64_bits);
}

void idb_double_sort(double *v, int64_t n)
{
    if (n < 2) return;
    to_key(v, n, dbl_bits);
    idb_keys_sort((uint8_t *)v, n, 8);
    from_key(v, n, dbl_unbits);
}
