/* pagesim_curve.c — one-pass LRU miss/write curve from stack distances (pagesim_curve.h).
 *
 * LRU has the inclusion property (Mattson, Gecsei, Slutz, Traiger, "Evaluation techniques
 * for storage hierarchies", IBM Systems Journal 9(2), 1970): a pool of C pages holds
 * exactly the C most recently used pages. So an access hits in every pool of C >= d
 * pages and misses in every smaller one, where its stack distance d = 1 + the number of
 * distinct other pages accessed since the previous access to the same page (infinite for
 * a first access). Misses(C) = accesses with d > C that are not page creations.
 *
 * d by a Fenwick tree over time slots: each page marks the slot of its latest access; the
 * distinct pages seen since slot s are the marks after s, a prefix-count query. O(log n)
 * per access. At most one mark per page is live, so when the slots run out the live marks
 * are renumbered 1 .. live in the same order (the counts after any mark are unchanged)
 * and the tree rebuilt: the slots stay at most about 4 per page, not one per access.
 *
 * Writes(C), exactly, with one value per page, m: the least C for which the page is dirty
 * in the pool right now (undefined before its first write). Right after a write access
 * m = 0 (dirty in every pool). The page stays cached between two accesses in pools with
 * C >= d of the later access, so it was evicted during the gap iff C < d, and was dirty
 * then iff C >= m: a write-back for every C in [m, d), added on a difference array over
 * C. Then m = max(m, d) (pools with C < d reread it clean), and m = 0 if the access
 * writes. A page with m defined is written once more for every C >= m: it is either
 * evicted dirty later or flushed. Creations start dirty, m = 0.
 *
 * Sizes above npages are answered as npages + 1 (a pool that never evicts).
 */
#include "pagesim_curve.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "pagesim_access.h"

#define SLOTS_PER_PAGE 2         /* slots kept free per page after a renumbering, at least */
#define FIRST_ROOM 256

struct psc_tracker {
    uint32_t *fen;               /* Fenwick tree over slots 1 .. nslots (1-based) */
    uint32_t *slot_page;         /* page whose access took slot s (1-based) */
    uint32_t nslots, used;       /* room; slots taken so far */
    int64_t marked;              /* live marks (pages accessed at least once) */
    uint32_t *last;              /* per page: slot of its latest access, 0 = never */
    int32_t *m;                  /* per page: least dirty pool size, -1 = undefined */
    int64_t *hist;               /* accesses by stack distance 0 .. npages + 1 */
    int64_t *diff;               /* writes, difference array over C, 0 .. npages + 1 */
    uint32_t npages;             /* room in the per-page arrays */
    int64_t cold;                /* first accesses that are not creations */
};

/* Add v at 1-based position i of a Fenwick tree of n entries. */
static void fen_add(uint32_t *f, uint32_t n, uint32_t i, uint32_t v)
{
    for (; i <= n; i += i & (~i + 1)) f[i] += v;
}

/* Sum of the Fenwick tree's entries 1 .. i. */
static int64_t fen_sum(const uint32_t *f, uint32_t i)
{
    int64_t s = 0;
    for (; i > 0; i -= i & (~i + 1)) s += f[i];
    return s;
}

/* Renumber the live marks 1 .. live in slot order and rebuild the tree (linear). */
static void renumber(psc_tracker *c)
{
    uint32_t k = 0;
    for (uint32_t s = 1; s <= c->used; s++) {
        uint32_t p = c->slot_page[s];
        if (c->last[p] != s) continue;           /* a later access of p took a later slot */
        c->slot_page[++k] = p;
        c->last[p] = k;
    }
    for (uint32_t i = 1; i <= c->nslots; i++) c->fen[i] = i <= k;
    for (uint32_t i = 1; i <= c->nslots; i++) {
        uint32_t j = i + (i & (~i + 1));
        if (j <= c->nslots) c->fen[j] += c->fen[i];
    }
    c->used = k;
}

psc_tracker *psc_new(void)
{
    psc_tracker *c = calloc(1, sizeof *c);
    if (c && psc_reserve(c, 1, 1)) { psc_free(c); return NULL; }
    return c;
}

/* Grow the per-page arrays to npages pages (doubling), new pages never accessed. */
static int grow_pages(psc_tracker *c, uint32_t npages)
{
    if (npages <= c->npages) return 0;
    uint32_t n = c->npages ? c->npages : FIRST_ROOM;
    while (n < npages) n = n > UINT32_MAX / 2 ? npages : n * 2;
    uint32_t *last = realloc(c->last, (size_t)n * sizeof *last);
    if (!last) return IDB_ENOMEM;
    c->last = last;
    int32_t *m = realloc(c->m, (size_t)n * sizeof *m);
    if (!m) return IDB_ENOMEM;
    c->m = m;
    int64_t *hist = realloc(c->hist, ((size_t)n + 2) * sizeof *hist);
    if (!hist) return IDB_ENOMEM;
    c->hist = hist;
    int64_t *diff = realloc(c->diff, ((size_t)n + 2) * sizeof *diff);
    if (!diff) return IDB_ENOMEM;
    c->diff = diff;
    size_t from = c->npages ? (size_t)c->npages + 2 : 0;
    memset(hist + from, 0, ((size_t)n + 2 - from) * sizeof *hist);
    memset(diff + from, 0, ((size_t)n + 2 - from) * sizeof *diff);
    for (uint32_t p = c->npages; p < n; p++) { last[p] = 0; m[p] = -1; }
    c->npages = n;
    return 0;
}

int psc_reserve(psc_tracker *c, uint32_t npages, uint32_t accesses)
{
    if (grow_pages(c, npages)) return IDB_ENOMEM;
    if ((uint64_t)c->used + accesses <= c->nslots) return 0;
    uint64_t want = (uint64_t)SLOTS_PER_PAGE * c->npages + accesses;
    if ((uint64_t)c->marked + accesses <= c->nslots && c->nslots >= want) {
        renumber(c);                              /* enough room once renumbered */
        return 0;
    }
    if (want > UINT32_MAX - 1) return IDB_ENOMEM;
    uint32_t n = (uint32_t)want;
    uint32_t *fen = realloc(c->fen, ((size_t)n + 1) * sizeof *fen);
    if (!fen) return IDB_ENOMEM;
    c->fen = fen;
    uint32_t *sp = realloc(c->slot_page, ((size_t)n + 1) * sizeof *sp);
    if (!sp) return IDB_ENOMEM;
    c->slot_page = sp;
    c->nslots = n;
    renumber(c);
    return 0;
}

void psc_access(psc_tracker *c, uint32_t p, unsigned fl)
{
    if (c->last[p]) {
        int64_t d = 1 + c->marked - fen_sum(c->fen, c->last[p]);
        c->hist[d]++;
        if (c->m[p] >= 0 && c->m[p] < d) {       /* evicted dirty in pools m <= C < d */
            c->diff[c->m[p]]++;
            c->diff[d]--;
            c->m[p] = (int32_t)d;
        }
        fen_add(c->fen, c->nslots, c->last[p], UINT32_MAX);   /* -1, modulo 2^32 */
        c->marked--;
    } else if (!(fl & PSA_CREATE)) {
        c->cold++;
    }
    if (fl & (PSA_WRITE | PSA_CREATE)) c->m[p] = 0;
    c->used++;
    c->slot_page[c->used] = p;
    fen_add(c->fen, c->nslots, c->used, 1);
    c->marked++;
    c->last[p] = c->used;
}

void psc_read(const psc_tracker *c, uint32_t npages, const int64_t *cache_pages, int k,
              int64_t *misses, int64_t *writes)
{
    int64_t top = (int64_t)npages + 1;
    for (int i = 0; i < k; i++) {
        int64_t cap = cache_pages[i] > top ? top : cache_pages[i];
        int64_t miss = c->cold, wr = 0;
        for (int64_t d = cap + 1; d <= top; d++) miss += c->hist[d];
        for (int64_t x = 0; x <= cap; x++) wr += c->diff[x];
        for (uint32_t p = 0; p < npages; p++) wr += c->m[p] >= 0 && c->m[p] <= cap;
        misses[i] = miss;
        writes[i] = wr;
    }
}

void psc_free(psc_tracker *c)
{
    if (!c) return;
    free(c->fen);
    free(c->slot_page);
    free(c->last);
    free(c->m);
    free(c->hist);
    free(c->diff);
    free(c);
}

int psc_curve(const uint32_t *trace, size_t n, uint32_t npages, const int64_t *cache_pages,
              int k, int64_t *misses, int64_t *writes)
{
    psc_tracker *c = psc_new();
    if (!c || n > UINT32_MAX || psc_reserve(c, npages, (uint32_t)n)) {
        psc_free(c);
        return IDB_ENOMEM;
    }
    for (size_t t = 0; t < n; t++) psc_access(c, psa_page(trace[t]), psa_flags(trace[t]));
    psc_read(c, npages, cache_pages, k, misses, writes);
    psc_free(c);
    return 0;
}
