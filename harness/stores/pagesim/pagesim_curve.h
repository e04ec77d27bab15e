/* pagesim_curve.h — the LRU miss and write counts of a page-access stream at many cache
 * sizes, in one pass (LRU stack distances, Mattson et al. 1970).
 *
 * A tracker takes the accesses as they happen and keeps O(pages) state (no trace), so
 * the pagesim store's memory does not grow with its accesses; it can be read at any time
 * for any cache sizes.
 */
#ifndef IDB_PAGESIM_CURVE_H
#define IDB_PAGESIM_CURVE_H

#include <stddef.h>
#include <stdint.h>

typedef struct psc_tracker psc_tracker;

/* An empty tracker. Returns NULL when out of memory. */
psc_tracker *psc_new(void);

/* Make room for pages 0 .. npages-1 and for `accesses` more accesses. Returns 0 or
 * IDB_ENOMEM (the tracker is then unchanged in what it counts). */
int psc_reserve(psc_tracker *c, uint32_t npages, uint32_t accesses);

/* Record one access (reserved) to page with PSA_* flags (pagesim_access.h). */
void psc_access(psc_tracker *c, uint32_t page, unsigned flags);

/* For each of the k cache sizes cache_pages[i] (>= 1) write to misses[i] the reads and to
 * writes[i] the page writes (dirty evictions + a flush of the dirty pages cached now) that
 * an LRU pool of that size would have made for the accesses so far, on pages 0 ..
 * npages-1 (reserved): exactly what psl_access/psl_counts report. Changes nothing. */
void psc_read(const psc_tracker *c, uint32_t npages, const int64_t *cache_pages, int k,
              int64_t *misses, int64_t *writes);

/* Free the tracker (NULL is fine). */
void psc_free(psc_tracker *c);

/* The same for a whole recorded trace: n accesses encoded by psa_encode, on pages 0 ..
 * npages-1. Returns 0 or IDB_ENOMEM. */
int psc_curve(const uint32_t *trace, size_t n, uint32_t npages, const int64_t *cache_pages,
              int k, int64_t *misses, int64_t *writes);

#endif
