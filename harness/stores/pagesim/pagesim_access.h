/* pagesim_access.h — the page-access vocabulary shared by the pagesim tree, its LRU buffer
 * pool and its one-pass miss-ratio curve.
 *
 * The tree reports every page it touches as one access: a page number plus two flags.
 * The pagesim store records each access as one uint32_t in a trace,
 *
 *     bit 31 ........................ 2   1        0
 *        | page number (< 2^30)        | CREATE | WRITE |
 *
 * and feeds it to the LRU simulation at the same time. A CREATE access makes a new page
 * (no read is needed: it is never a miss) and leaves it dirty; a WRITE access dirties it.
 */
#ifndef IDB_PAGESIM_ACCESS_H
#define IDB_PAGESIM_ACCESS_H

#include <stdint.h>

#define PSA_WRITE 1u                 /* the access modifies the page */
#define PSA_CREATE 2u                /* the access makes the page (implies dirty, no read) */
#define PSA_FLAGS 3u
#define PSA_MAX_PAGES (1u << 30)     /* page numbers must fit the trace encoding */

/* Encode one access for the trace. */
static inline uint32_t psa_encode(uint32_t page, unsigned flags)
{
    return (page << 2) | (flags & PSA_FLAGS);
}

/* The page number of an encoded access. */
static inline uint32_t psa_page(uint32_t a) { return a >> 2; }

/* The flags of an encoded access. */
static inline unsigned psa_flags(uint32_t a) { return a & PSA_FLAGS; }

#endif
