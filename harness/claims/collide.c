/* collide.c — collision arithmetic and its simulation (see collide.h). */
#include "collide.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "random.h"

/* n(p) = 1/2 + sqrt(1/4 + 2 * 2^bits * ln(1/(1-p))) (see collide.h). */
double collide_ids(double bits, double p)
{
    double n = exp2(bits);
    return 0.5 + sqrt(0.25 + 2.0 * n * -log1p(-p));
}

/* Draw until the first repeat, `trials` times; the median count (see collide.h). */
double collide_simulate(int bits, int trials, uint64_t seed)
{
    /* Open addressing over a table 4x the largest count we expect to need; a slot holds
     * the value + 1 tagged with the trial number, so no table is cleared between trials. */
    double expect = collide_ids(bits, 0.5);
    size_t cap = 1;
    while ((double)cap < 8 * expect) cap <<= 1;
    uint64_t *slot = calloc(cap, sizeof *slot), *tag = calloc(cap, sizeof *tag);
    double *counts = malloc((size_t)trials * sizeof *counts);
    if (!slot || !tag || !counts) { free(slot); free(tag); free(counts); return -1; }
    uint64_t mask = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
    idb_random_seed(seed);
    for (int t = 0; t < trials; t++) {
        uint64_t trial = (uint64_t)t + 1;
        int64_t drawn = 0;
        for (;;) {
            uint64_t v = idb_random_u64() & mask;
            drawn++;
            size_t h = (size_t)((v * 0x9E3779B97F4A7C15ULL) >> 20) & (cap - 1);
            int repeat = 0;
            for (;; h = (h + 1) & (cap - 1)) {
                if (tag[h] != trial) { tag[h] = trial; slot[h] = v; break; }
                if (slot[h] == v) { repeat = 1; break; }
            }
            if (repeat || (double)drawn * 2 > (double)cap) break;   /* table full: stop */
        }
        counts[t] = (double)drawn;
    }
    qsort(counts, (size_t)trials, sizeof *counts, idb_cmp_double);
    int mid = trials / 2;
    double med = trials % 2 ? counts[mid] : (counts[mid - 1] + counts[mid]) / 2;
    free(slot); free(tag); free(counts);
    return med;
}
