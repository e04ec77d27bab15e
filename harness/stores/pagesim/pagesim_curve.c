/* pagesim_curve.c — one-pass LRU miss/write curve from stack distances (pagesim_curve.h).
 *
 * LRU has the inclusion property (Mattson, Gecsei, Slutz, Traiger, "Evaluation techniques
 * for storage hierarchies", IBM Systems Journal 9(2), 1970): a pool of C pages holds
 * exactly the C most recently used pages. So an access hits in every pool of C >= d
 * pages and misses in every smaller one, where its stack distance d = 1 + the number of
 * distinct other pages accessed since the previous access to the same page (infinite for
 * a first access). Misses(C) = accesses with d > C that are not page creations.
 *
 * d by a Fenwick tree over access times: each page marks the time of its latest access;
 * the distinct pages seen since time s are the marks after s, a prefix-count query.
 * O(log n) per access.
 *
 * Writes(C), exactly, with one value per page, m: the least C for which the page is dirty
 * in the pool right now (undefined before its first write). Right after a write access
 * m = 0 (dirty in every pool). The page stays cached between two accesses in pools with
 * C >= d of the later access, so it was evicted during the gap iff C < d, and was dirty
 * then iff C >= m: a write-back for every C in [m, d), added on a difference array over
 * C. Then m = max(m, d) (pools with C < d reread it clean), and m = 0 if the access
 * writes. At the end a page with m defined is written once more for every C >= m: it is
 * either evicted dirty later or flushed. Creations start dirty, m = 0.
 *
 * Sizes above npages are answered as npages + 1 (a pool that never evicts).
 */
#include "pagesim_curve.h"

#include <stdlib.h>

#include "err.h"
#include "pagesim_access.h"

/* Add v at 1-based position i of a Fenwick tree of n entries. */
static void fen_add(int32_t *f, size_t n, size_t i, int32_t v)
{
    for (; i <= n; i += i & (~i + 1)) f[i] += v;
}

/* Sum of the Fenwick tree's entries 1 .. i. */
static int64_t fen_sum(const int32_t *f, size_t i)
{
    int64_t s = 0;
    for (; i > 0; i -= i & (~i + 1)) s += f[i];
    return s;
}

/* One pass: stack distance per access (Fenwick), a histogram of distances for misses,
 * the per-page bound m and a difference array over C for writes; then read off each C. */
int psc_curve(const uint32_t *trace, size_t n, uint32_t npages, const int64_t *cache_pages,
              int k, int64_t *misses, int64_t *writes)
{
    size_t top = (size_t)npages + 1;           /* index of "never evicts" */
    int32_t *fen = calloc(n + 1, sizeof *fen);
    int64_t *last = malloc((size_t)npages * sizeof *last);   /* time + 1, 0 = never */
    int32_t *m = malloc((size_t)npages * sizeof *m);         /* -1 = undefined */
    int64_t *hist = calloc(top + 1, sizeof *hist);           /* misses by distance */
    int64_t *diff = calloc(top + 2, sizeof *diff);           /* writes, difference array */
    int rc = IDB_ENOMEM;
    if (!fen || (npages && (!last || !m)) || !hist || !diff) goto out;
    for (uint32_t p = 0; p < npages; p++) { last[p] = 0; m[p] = -1; }

    int64_t cold = 0, marked = 0;              /* non-creating first accesses; marks set */
    for (size_t t = 0; t < n; t++) {
        uint32_t p = psa_page(trace[t]);
        unsigned fl = psa_flags(trace[t]);
        if (last[p]) {
            int64_t d = 1 + marked - fen_sum(fen, (size_t)last[p]);
            hist[d]++;
            if (m[p] >= 0 && m[p] < d) {   /* evicted dirty in pools with m <= C < d */
                diff[m[p]]++;
                diff[d]--;
                m[p] = (int32_t)d;
            }
            fen_add(fen, n, (size_t)last[p], -1);
            marked--;
        } else if (!(fl & PSA_CREATE)) {
            cold++;
        }
        if (fl & (PSA_WRITE | PSA_CREATE)) m[p] = 0;
        fen_add(fen, n, t + 1, 1);
        marked++;
        last[p] = (int64_t)t + 1;
    }
    for (uint32_t p = 0; p < npages; p++)
        if (m[p] >= 0) diff[m[p]]++;

    /* hist[c] becomes the accesses with d > c; diff[c] becomes Writes(c). */
    int64_t above = 0;
    for (size_t c = top + 1; c-- > 0;) { int64_t h = hist[c]; hist[c] = above; above += h; }
    for (size_t c = 1; c <= top; c++) diff[c] += diff[c - 1];
    for (int i = 0; i < k; i++) {
        size_t c = cache_pages[i] > (int64_t)top ? top : (size_t)cache_pages[i];
        misses[i] = cold + hist[c];
        writes[i] = diff[c];
    }
    rc = 0;
out:
    free(fen);
    free(last);
    free(m);
    free(hist);
    free(diff);
    return rc;
}
