/* repeats.h — repeated keys (duplicate_ids): the repeats counted over several lists of
 * fixed-width keys, each sorted in place by idb_keys_sort (keysort.h, no allocation). */
#ifndef IDB_REPEATS_H
#define IDB_REPEATS_H

#include <stdint.h>

#include "keysort.h"

/* The keys of nlists lists, each sorted (idb_keys_sort), lists[i] holding n[i] keys of
 * width bytes (NULL when n[i] is 0), that repeat a key before them in the merged order:
 * the total minus the distinct keys (a key three times counts 2, in one list or across).
 * Returns -1 when its heap of nlists entries cannot be had. */
int64_t idb_repeats_merged(uint8_t *const *lists, const int64_t *n, int nlists, int width);

/* The repeats among n keys of width bytes at keys (sorted in place first): n minus the
 * distinct keys; 0 when n <= 1. */
int64_t idb_repeats(uint8_t *keys, int64_t n, int width);

#endif
