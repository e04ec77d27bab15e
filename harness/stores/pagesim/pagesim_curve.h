/* pagesim_curve.h — the LRU miss and write counts of a page-access trace at many cache
 * sizes, in one pass over the trace (LRU stack distances, Mattson et al. 1970).
 */
#ifndef IDB_PAGESIM_CURVE_H
#define IDB_PAGESIM_CURVE_H

#include <stddef.h>
#include <stdint.h>

/* trace: n accesses encoded by psa_encode, on pages 0 .. npages-1. For each of the k cache
 * sizes cache_pages[i] (>= 1) write to misses[i] the reads and to writes[i] the page
 * writes (dirty evictions + the final flush) that an LRU pool of that size would make:
 * exactly what psl_access/psl_counts report for the same trace. Returns 0 or IDB_ENOMEM. */
int psc_curve(const uint32_t *trace, size_t n, uint32_t npages, const int64_t *cache_pages,
              int k, int64_t *misses, int64_t *writes);

#endif
