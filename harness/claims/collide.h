/* collide.h — birthday-bound arithmetic for random IDs, its check by simulation, and the
 * birthday test on a strategy's real output.
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
 *
 * collide_repeats() is the full-width birthday test: it draws n IDs from a strategy, each
 * from a fresh instance (so entropy drawn per instance counts as much as entropy drawn per
 * ID), on two threads (each with its own seeded random stream: the same seed gives the
 * same IDs), and counts the IDs equal to an earlier one. IDs are compared by a 76-bit
 * fingerprint of all their bytes: a bijective mix of the first 16 bytes (the rest folded
 * in), of which 12 bits pick one of 4,096 buckets and 64 bits are kept, so n IDs take
 * 8n bytes (2^26 IDs: 512 MiB) instead of 16n. Among n(n-1)/2 pairs of distinct IDs the
 * fingerprint matches about n(n-1)/2 / 2^76 of them by chance (2^26 IDs: 3.0e-8):
 * collide_expected() gives the expected repeats of a source with `bits` bits of entropy,
 * those chance matches included.
 */
#ifndef IDB_COLLIDE_H
#define IDB_COLLIDE_H

#include <stdint.h>

#include "err.h"
#include "strategy.h"

#define COLLIDE_FINGERPRINT_BITS 76

/* IDs needed for a collision chance p (0 < p < 1) among 2^bits values (bits > 0). */
double collide_ids(double bits, double p);

/* Median, over `trials` runs, of how many `bits`-bit random values were drawn up to and
 * including the first one equal to an earlier one. bits is 8..40, trials >= 1; the
 * calling thread's random stream is seeded with seed. Returns the median, or -1 when
 * out of memory. */
double collide_simulate(int bits, int trials, uint64_t seed);

/* Expected repeats among n IDs of a source with `bits` bits of entropy, counted by
 * fingerprint: n(n-1)/2 x (2^-bits + 2^-COLLIDE_FINGERPRINT_BITS). */
double collide_expected(double n, double bits);

/* Draw n IDs of strategy st (n >= 1, each from a fresh instance with default options on
 * clock; st must be safe to use from two threads, as strategy.h asks) and count in
 * *repeats the IDs whose fingerprint equals another's. Thread t's random stream is seeded
 * with seed + t; the calling thread's stream is left seeded so. Returns 0, or IDB_ENOMEM,
 * or the strategy's error from create or next. */
int collide_repeats(const idb_strategy *st, idb_clock *clock, int64_t n, uint64_t seed,
                    int64_t *repeats, idb_err *err);

#endif
