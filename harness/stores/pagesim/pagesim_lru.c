/* pagesim_lru.c — an LRU buffer pool, simulated (see pagesim_lru.h).
 *
 * Page-indexed arrays: prev/next links of a doubly linked list (head = most recently
 * used, tail = least) and a state byte (cached, dirty). O(1) per access.
 */
#include "pagesim_lru.h"

#include <stdlib.h>

#include "err.h"
#include "pagesim_access.h"

#define NIL UINT32_MAX
#define CACHED 1u
#define DIRTY 2u

struct psl_lru {
    int64_t cap;                 /* pool size in pages */
    int64_t count;               /* pages cached */
    int64_t dirty;               /* dirty pages cached */
    int64_t misses, writes;      /* reads; writes by eviction */
    uint32_t *prev, *next;
    uint8_t *state;
    uint32_t npages;             /* room in the arrays */
    uint32_t head, tail;
};

/* An empty pool of cache_pages pages; the page arrays grow with psl_reserve. */
psl_lru *psl_new(int64_t cache_pages)
{
    psl_lru *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->cap = cache_pages;
    l->head = l->tail = NIL;
    return l;
}

/* Grow the page-indexed arrays (doubling) to cover npages pages, new ones uncached. */
int psl_reserve(psl_lru *l, uint32_t npages)
{
    if (npages <= l->npages) return 0;
    uint32_t n = l->npages ? l->npages : 256;
    while (n < npages) n = n > UINT32_MAX / 2 ? npages : n * 2;
    uint32_t *prev = realloc(l->prev, (size_t)n * sizeof *prev);
    if (!prev) return IDB_ENOMEM;
    l->prev = prev;
    uint32_t *next = realloc(l->next, (size_t)n * sizeof *next);
    if (!next) return IDB_ENOMEM;
    l->next = next;
    uint8_t *state = realloc(l->state, n);
    if (!state) return IDB_ENOMEM;
    l->state = state;
    for (uint32_t i = l->npages; i < n; i++) state[i] = 0;
    l->npages = n;
    return 0;
}

/* Take page p out of the list. */
static void unlink_page(psl_lru *l, uint32_t p)
{
    if (l->prev[p] != NIL) l->next[l->prev[p]] = l->next[p]; else l->head = l->next[p];
    if (l->next[p] != NIL) l->prev[l->next[p]] = l->prev[p]; else l->tail = l->prev[p];
}

/* Put page p at the front of the list. */
static void push_front(psl_lru *l, uint32_t p)
{
    l->prev[p] = NIL;
    l->next[p] = l->head;
    if (l->head != NIL) l->prev[l->head] = p; else l->tail = p;
    l->head = p;
}

/* Drop the least recently used page, writing it if dirty. */
static void evict(psl_lru *l)
{
    uint32_t v = l->tail;
    unlink_page(l, v);
    if (l->state[v] & DIRTY) { l->writes++; l->dirty--; }
    l->state[v] = 0;
    l->count--;
}

/* Hit: move to the front. Miss: count a read unless creating, evict if full, insert. */
void psl_access(psl_lru *l, uint32_t page, unsigned flags)
{
    if (l->state[page] & CACHED) {
        unlink_page(l, page);
    } else {
        if (!(flags & PSA_CREATE)) l->misses++;
        if (l->count == l->cap) evict(l);
        l->state[page] = CACHED;
        l->count++;
    }
    push_front(l, page);
    if ((flags & (PSA_WRITE | PSA_CREATE)) && !(l->state[page] & DIRTY)) {
        l->state[page] |= DIRTY;
        l->dirty++;
    }
}

/* Reads, and writes by eviction plus the dirty pages a flush would write now. */
void psl_counts(const psl_lru *l, int64_t *misses, int64_t *writes)
{
    *misses = l->misses;
    *writes = l->writes + l->dirty;
}

/* Free the arrays and the pool. */
void psl_free(psl_lru *l)
{
    if (!l) return;
    free(l->prev);
    free(l->next);
    free(l->state);
    free(l);
}
