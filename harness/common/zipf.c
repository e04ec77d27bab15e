/* zipf.c — Zipf draws by inverse CDF (see zipf.h): a guide table narrows each draw to the
 * few ranks whose CDF crosses its slice of [0, 1), then a binary search over them gives the
 * first rank whose CDF is above the draw, the same rank a search over the whole table finds. */
#include "zipf.h"

#include <math.h>
#include <stdlib.h>

#define GUIDE_MAX_BITS 16             /* at most 65,536 slices (256 KiB) */

/* First i in [lo, hi] with cdf[i] > u (hi when none is before it). */
static inline int64_t first_above(const double *cdf, int64_t lo, int64_t hi, double u)
{
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (cdf[mid] > u) hi = mid; else lo = mid + 1;
    }
    return lo;
}

int idb_zipf_init(idb_zipf *z, int64_t n, double s)
{
    z->n = n;
    z->cdf = malloc((size_t)n * sizeof *z->cdf);
    z->guide = NULL;
    if (!z->cdf) return -1;
    double sum = 0;
    for (int64_t i = 0; i < n; i++) sum += 1.0 / pow((double)(i + 1), s);
    double acc = 0;
    for (int64_t i = 0; i < n; i++) {
        acc += 1.0 / pow((double)(i + 1), s) / sum;
        z->cdf[i] = acc;
    }
    z->cdf[n - 1] = 1.0;
    /* slices of 2^-bits, about one rank each: guide[k] = first rank with cdf > k / 2^bits,
     * exact (k / 2^bits and u * 2^bits are exact in binary) */
    z->bits = 0;
    while (z->bits < GUIDE_MAX_BITS && ((int64_t)1 << z->bits) < n) z->bits++;
    int64_t g = (int64_t)1 << z->bits;
    z->scale = (double)g;
    z->guide = malloc((size_t)(g + 1) * sizeof *z->guide);
    if (!z->guide) { idb_zipf_free(z); return -1; }
    for (int64_t k = 0, i = 0; k <= g; k++) {
        double edge = ldexp((double)k, -z->bits);
        while (i < n - 1 && !(z->cdf[i] > edge)) i++;
        z->guide[k] = i;
    }
    return 0;
}

int64_t idb_zipf_draw(const idb_zipf *z, idb_rng *r)
{
    double u = idb_rng_double(r);     /* in [0, 1): its slice k is below 2^bits */
    int64_t k = (int64_t)(u * z->scale);   /* exact: a power of two */
    return first_above(z->cdf, z->guide[k], z->guide[k + 1], u);
}

void idb_zipf_free(idb_zipf *z)
{
    free(z->cdf);
    free(z->guide);
    z->cdf = NULL;
    z->guide = NULL;
}
