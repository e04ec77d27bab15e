/* collide.h — birthday-bound arithmetic for random IDs, and its check by simulation.
 *
 * With N = 2^bits equally likely values, the number of IDs after which the chance of at
 * least one collision reaches p is (the standard approximation 1 - exp(-n(n-1)/2N) = p,
 * solved for n):
 *
 *     n(p) = 1/2 + sqrt(1/4 + 2 N ln(1 / (1 - p)))
 *
 * computed with ln(1/(1-p)) = -log1p(-p), which stays exact for p as small as 1e-18.
 * collide_simulate() draws `bits`-bit values from the shared random module (the source
 * every random strategy uses) until the first repeat, many times, and reports the median
 * of the counts: for the formula to hold it must be close to n(0.5).
 */
#ifndef IDB_COLLIDE_H
#define IDB_COLLIDE_H

#include <stdint.h>

/* IDs needed for a collision chance p (0 < p < 1) among 2^bits values (bits > 0). */
double collide_ids(double bits, double p);

/* Median, over `trials` runs, of how many `bits`-bit random values were drawn up to and
 * including the first one equal to an earlier one. bits is 8..40, trials >= 1; the
 * calling thread's random stream is seeded with seed. Returns the median, or -1 when
 * out of memory. */
double collide_simulate(int bits, int trials, uint64_t seed);

#endif
