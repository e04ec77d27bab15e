/* zipf.h — Zipf-distributed draws over 0..n-1 (rank 0 most popular), by inverse CDF. */
#ifndef IDB_ZIPF_H
#define IDB_ZIPF_H

#include <stdint.h>

#include "random.h"

typedef struct idb_zipf {
    int64_t n;
    double *cdf;              /* cdf[i] = P(rank <= i) */
    int64_t *guide;           /* guide[k]: the first rank with cdf > k / 2^bits, k <= 2^bits */
    int bits;
    double scale;             /* 2^bits */
} idb_zipf;

/* Prepare draws over n >= 1 items with exponent s >= 0 (0 = uniform). Returns 0 or -1
 * when out of memory. */
int idb_zipf_init(idb_zipf *z, int64_t n, double s);

/* One draw in 0..n-1: the first rank whose CDF is above a uniform draw in [0, 1)
 * (one table look-up, then a search over the ranks of its slice). */
int64_t idb_zipf_draw(const idb_zipf *z, idb_rng *r);

void idb_zipf_free(idb_zipf *z);

#endif
