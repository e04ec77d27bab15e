/* split.h — splitting a key space into P parts (the `spider` store's range partitions, the
 * insert runner's split points for split=sample) and the load figures of such a split:
 * which part a key falls in, each part's share, the busiest part within a window of rows.
 *
 * Keys are big-endian byte strings of one width (id.h), so memcmp order is numeric order.
 * P - 1 split points b[0] < b[1] < ... < b[P-2] cut the space into P parts: part 0 holds
 * the keys below b[0], part j the keys in [b[j-1], b[j]), part P-1 the keys from b[P-2] on.
 * Pure arithmetic: no allocation, no I/O (tests/test_split.c).
 */
#ifndef IDB_SPLIT_H
#define IDB_SPLIT_H

#include <stdint.h>

#include "err.h"
#include "id.h"

#define IDB_SPLIT_PARTS_MAX 16          /* most parts (the spider store's backends) */

/* `space`: the P - 1 points that cut [0, 2^space_bits) into P equal slices, point j - 1 =
 * floor(j * 2^space_bits / P), as width-byte keys into out[0 .. P-2]. space_bits from 1 to
 * 8 * width (a 63-bit positive integer: 63 with width 8; a 128-bit UUID: 128 with width 16).
 * Returns 0, or IDB_EINPUT (parts outside 2 .. IDB_SPLIT_PARTS_MAX, width outside
 * 1 .. IDB_ID_MAX, space_bits outside 1 .. 8 * width, or slices so thin that two points
 * coincide) with err saying which. */
int idb_split_space(int parts, int width, int space_bits, idb_id *out, idb_err *err);

/* `sample`: the P - 1 points at the quantiles of n keys sorted ascending (width bytes each,
 * packed): point j - 1 = the key at index floor(j * n / P), so each part gets n / P of the
 * sample (give or take one). Returns 0, or IDB_EINPUT when parts or width is out of range,
 * n < parts, or two points coincide (a key repeated across a quantile: the parts would not
 * be ranges). */
int idb_split_sample(int parts, int width, const uint8_t *sorted, int64_t n, idb_id *out,
                     idb_err *err);

/* Check P - 1 split points: each width bytes, strictly ascending. Returns 0 or IDB_EINPUT. */
int idb_split_check(int parts, int width, const idb_id *points, idb_err *err);

/* The part (0 .. parts-1) key (width bytes) falls in, by the split points (binary search). */
int idb_split_part(int parts, int width, const idb_id *points, const uint8_t *key);

/* The largest share of one part among `window` consecutive rows, over every such run of
 * rows: part[i] (0 .. parts-1) is row i's part, in insert order. With n <= window the one
 * window is all n rows. 0 when n is 0; -1 for window < 1 or a part out of range. */
double idb_split_window_max(const uint8_t *part, int64_t n, int parts, int64_t window);

/* Each part's share of n rows from its count (count[j] / n into share[j]); returns the
 * largest share (the hot share), 0 when n is 0. */
double idb_split_shares(const int64_t *count, int parts, double *share);

#endif
