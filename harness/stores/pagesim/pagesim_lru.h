/* pagesim_lru.h — an LRU buffer pool of a fixed number of pages, simulated access by access.
 *
 * Counts the reads (misses) and page writes (dirty evictions; the final flush of the
 * dirty pages still cached is added by psl_counts) that the pagesim tree's accesses cause
 * in a pool of cache_pages pages. The pagesim store runs one for its configured size; its
 * curve hook computes the same numbers for any size in one pass (pagesim_curve.h).
 */
#ifndef IDB_PAGESIM_LRU_H
#define IDB_PAGESIM_LRU_H

#include <stdint.h>

typedef struct psl_lru psl_lru;

/* A pool of cache_pages (>= 1) pages, empty. Returns NULL when out of memory. */
psl_lru *psl_new(int64_t cache_pages);

/* Make room for page numbers 0 .. npages-1. Returns 0 or IDB_ENOMEM (pool unchanged). */
int psl_reserve(psl_lru *l, uint32_t npages);

/* Access page (reserved) with PSA_* flags: a hit moves it to the front; a miss that is not
 * a CREATE counts a read; a page entering a full pool evicts the least recently used one,
 * a page write if it is dirty. WRITE and CREATE leave the page dirty. */
void psl_access(psl_lru *l, uint32_t page, unsigned flags);

/* Reads so far, and page writes so far including the flush of the dirty pages still
 * cached (the pool itself is left as it is). */
void psl_counts(const psl_lru *l, int64_t *misses, int64_t *writes);

/* Free the pool (NULL is fine). */
void psl_free(psl_lru *l);

#endif
