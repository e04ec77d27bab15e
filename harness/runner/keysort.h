/* keysort.h — in-place radix sorts (American flag sort: no memory taken, so sorting adds
 * nothing to a run's peak; O(n x the key bytes that differ)): the run's keys before its
 * repeats are counted and split points cut, latencies before their percentiles, insert
 * positions before their median. */
#ifndef IDB_KEYSORT_H
#define IDB_KEYSORT_H

#include <stdint.h>

/* Sort the n keys of width bytes (1 .. IDB_ID_MAX) at keys[0 .. n * width) in memcmp order,
 * in place. */
void idb_keys_sort(uint8_t *keys, int64_t n, int width);

/* Sort v[0..n) ascending, in place. */
void idb_i64_sort(int64_t *v, int64_t n);

/* Sort v[0..n) ascending, in place; v holds no NaN (-0.0 sorts before +0.0). */
void idb_double_sort(double *v, int64_t n);

#endif
