/* locality.h — where new keys land in an index, computed after a run (not timed).
 *
 * For a sequence of keys inserted into one index, the relative position of each new key
 * among the keys already there: 0 = before all of them, 1 = after all of them. The first
 * key of an index has no position and is left out of every figure.
 */
#ifndef IDB_LOCALITY_H
#define IDB_LOCALITY_H

#include <stdint.h>

#include "id.h"

#define IDB_LOC_BUCKETS 20

typedef struct idb_locality {
    int64_t inserts;                  /* keys that had a position (all but the first) */
    int64_t tail;                     /* keys greater than every key already there */
    int64_t hist[IDB_LOC_BUCKETS];    /* positions in [i/B, (i+1)/B), 1.0 in the last */
    double *pos;                      /* every position, for the median (owned) */
} idb_locality;

/* Start an empty accumulator. Returns 0 or -1 when out of memory (capacity = most keys). */
int idb_locality_init(idb_locality *l, int64_t capacity);

/* Add the positions of keys[0..n) inserted in that order into one empty index
 * (O(n log n): sort for ranks, Fenwick tree for counts). Returns 0 or -1 (memory). */
int idb_locality_add(idb_locality *l, const idb_id *keys, int64_t n);

/* The same for n keys packed at width bytes each (keys + i * width), compared by memcmp.
 * Takes 8 bytes per key while it runs (locality.c). Returns 0 or -1 (memory, or n of
 * 2^32 - 1 keys or more). */
int idb_locality_add_packed(idb_locality *l, const uint8_t *keys, int width, int64_t n);

/* idb_locality_add_packed, but only the keys from index `from` on get a position (the
 * earlier ones are in the index before them: an index that already held keys[0..from)).
 * Returns 0 or -1. */
int idb_locality_add_packed_from(idb_locality *l, const uint8_t *keys, int width, int64_t n,
                                 int64_t from);

/* Share of inserts at the very end, and the median position; -1 when there were none. */
double idb_locality_tail_frac(const idb_locality *l);
double idb_locality_pos_p50(idb_locality *l);

void idb_locality_free(idb_locality *l);

#endif
