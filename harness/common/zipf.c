/* zipf.c — Zipf draws by binary search over a precomputed CDF (see zipf.h). */
#include "zipf.h"

#include <math.h>
#include <stdlib.h>

int idb_zipf_init(idb_zipf *z, int64_t n, double s)
{
    z->n = n;
    z->cdf = malloc((size_t)n * sizeof *z->cdf);
    if (!z->cdf) return -1;
    double sum = 0;
    for (int64_t i = 0; i < n; i++) sum += 1.0 / pow((double)(i + 1), s);
    double acc = 0;
    for (int64_t i = 0; i < n; i++) {
        acc += 1.0 / pow((double)(i + 1), s) / sum;
        z->cdf[i] = acc;
    }
    z->cdf[n - 1] = 1.0;
    return 0;
}

int64_t idb_zipf_draw(const idb_zipf *z, idb_rng *r)
{
    double u = idb_rng_double(r);
    int64_t lo = 0, hi = z->n - 1;
    while (lo < hi) {                 /* first i with cdf[i] > u */
        int64_t mid = lo + (hi - lo) / 2;
        if (z->cdf[mid] > u) hi = mid; else lo = mid + 1;
    }
    return lo;
}

void idb_zipf_free(idb_zipf *z)
{
    free(z->cdf);
    z->cdf = NULL;
}
