/* locality.c — relative insert positions by ranks and a Fenwick tree (see locality.h).
 *
 * Memory: while one index's n keys are added, 8 bytes per key (a 32-bit index array
 * sorted by key with a stable merge sort and its merge buffer, reused for the ranks; then
 * the ranks and a 32-bit Fenwick tree), on top of the 8 bytes per position kept for the
 * median. The keys
 * are the caller's (idb_id records, or packed at their own width).
 */
#include "locality.h"

#include <stdlib.h>
#include <string.h>

#include "keysort.h"

/* The keys of one index and how two of them compare (by their insertion numbers). */
typedef struct keyset {
    const idb_id *ids;                /* idb_id records, or NULL */
    const uint8_t *packed;            /* else n keys of width bytes each */
    size_t width;
    int64_t from;                     /* positions kept only from this key on */
} keyset;

/* Order of keys a and b of ks (memcmp order; idb_id_cmp for records). */
static int key_cmp(const keyset *ks, uint32_t a, uint32_t b)
{
    if (ks->ids) return idb_id_cmp(&ks->ids[a], &ks->ids[b]);
    return memcmp(ks->packed + (size_t)a * ks->width, ks->packed + (size_t)b * ks->width,
                  ks->width);
}

/* Sort ix[0..n) by key, stably (equal keys keep insertion order), bottom-up merge sort
 * with buffer tmp of n entries. The result is in ix. */
static void sort_by_key(const keyset *ks, uint32_t *ix, uint32_t *tmp, uint32_t n)
{
    uint32_t *src = ix, *dst = tmp;
    for (uint64_t run = 1; run < n; run *= 2) {
        for (uint64_t lo = 0; lo < n; lo += 2 * run) {
            uint64_t mid = lo + run < n ? lo + run : n, hi = lo + 2 * run < n ? lo + 2 * run : n;
            uint64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                dst[o++] = key_cmp(ks, src[j], src[i]) < 0 ? src[j++] : src[i++];
            while (i < mid) dst[o++] = src[i++];
            while (j < hi) dst[o++] = src[j++];
        }
        uint32_t *s = src; src = dst; dst = s;
    }
    if (src != ix) memcpy(ix, src, (size_t)n * sizeof *ix);
}

int idb_locality_init(idb_locality *l, int64_t capacity)
{
    memset(l, 0, sizeof *l);
    l->pos = malloc((size_t)(capacity > 0 ? capacity : 1) * sizeof *l->pos);
    return l->pos ? 0 : -1;
}

/* Positions of ks's n keys: rank by key, then count the smaller keys already inserted. */
static int add_keys(idb_locality *l, const keyset *ks, int64_t n)
{
    if (n > (int64_t)UINT32_MAX - 1) return -1;
    uint32_t m = (uint32_t)n;
    uint32_t *ix = malloc((size_t)(m ? m : 1) * sizeof *ix);
    uint32_t *rank = malloc((size_t)(m ? m : 1) * sizeof *rank);
    if (!ix || !rank) { free(ix); free(rank); return -1; }
    for (uint32_t i = 0; i < m; i++) ix[i] = i;
    sort_by_key(ks, ix, rank, m);
    for (uint32_t r = 0; r < m; r++) rank[ix[r]] = r + 1;       /* 1-based ranks */
    free(ix);
    uint32_t *fen = calloc((size_t)m + 1, sizeof *fen);          /* in the sort's room */
    if (!fen) { free(rank); return -1; }
    for (uint32_t i = 0; i < m; i++) {
        int64_t less = 0;                                      /* keys already there below */
        for (uint32_t j = rank[i] - 1; j > 0; j -= j & (~j + 1)) less += fen[j];
        for (uint32_t j = rank[i]; j <= m; j += j & (~j + 1)) fen[j]++;
        if (i == 0 || i < ks->from) continue;
        double p = (double)less / (double)i;
        int b = (int)(p * IDB_LOC_BUCKETS);
        l->hist[b < IDB_LOC_BUCKETS ? b : IDB_LOC_BUCKETS - 1]++;
        l->tail += less == i;
        l->pos[l->inserts++] = p;
    }
    free(rank);
    free(fen);
    return 0;
}

int idb_locality_add(idb_locality *l, const idb_id *keys, int64_t n)
{
    keyset ks = { .ids = keys };
    return add_keys(l, &ks, n);
}

int idb_locality_add_packed(idb_locality *l, const uint8_t *keys, int width, int64_t n)
{
    return idb_locality_add_packed_from(l, keys, width, n, 0);
}

int idb_locality_add_packed_from(idb_locality *l, const uint8_t *keys, int width, int64_t n,
                                 int64_t from)
{
    keyset ks = { .packed = keys, .width = (size_t)width, .from = from };
    return add_keys(l, &ks, n);
}

double idb_locality_tail_frac(const idb_locality *l)
{
    return l->inserts ? (double)l->tail / (double)l->inserts : -1;
}

double idb_locality_pos_p50(idb_locality *l)
{
    if (!l->inserts) return -1;
    idb_double_sort(l->pos, l->inserts);
    return l->pos[(l->inserts - 1) / 2];
}

void idb_locality_free(idb_locality *l)
{
    free(l->pos);
    l->pos = NULL;
}
