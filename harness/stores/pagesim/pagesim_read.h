/* pagesim_read.h — the pagesim store's read side (`idbench read`): point lookups through
 * the tree, counted in a buffer pool of their own.
 *
 * The model has no files, so `idbench read` replays an insert run's rows into a fresh
 * pagesim handle (runner/read.c) and then looks IDs up. Those lookups go through a second
 * LRU pool of cache_pages pages, empty when the first lookup comes (a cold cache): each
 * page on a lookup's root-to-leaf path is one access, a miss (a page read) when the pool
 * lacks it. The insert's own pool and counts are left as they were.
 */
#ifndef IDB_PAGESIM_READ_H
#define IDB_PAGESIM_READ_H

#include <stdint.h>

#include "err.h"
#include "pagesim_rows.h"
#include "pagesim_tree.h"

typedef struct psd_reads psd_reads;

/* An empty read pool of cache_pages (>= 1) pages. Returns NULL when out of memory. */
psd_reads *psd_new(int64_t cache_pages);

/* Look key up in tree t (rows: its row fields by the values of its leaf cells), counting
 * the path's pages in d: 1 with the row's fields in *out, or 0. Returns 0, or IDB_ENOMEM
 * with *found unset (the pool could not grow to the tree's pages). */
int psd_get(psd_reads *d, const pst_tree *t, const psr_rows *rows, const uint8_t *key,
            psr_row *out, int *found, idb_err *err);

/* Pages the lookups so far found missing from the pool (the model reads a page only on a
 * miss, so this is also its pages read). */
int64_t psd_misses(const psd_reads *d);

/* Free d (NULL is fine). */
void psd_free(psd_reads *d);

#endif
