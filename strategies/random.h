/* random.h — the shared random module: the only randomness a strategy may use.
 *
 * idb_random_*: a ChaCha12 stream per thread, keyed from getrandom(2) on first use, with
 * fast key erasure (a refill's first 32 bytes become the next key, the rest are handed
 * out, each zeroed as it goes; a refill is 16 blocks from chacha.h's 8-lane SIMD core, or 4
 * blocks in a stream seeded by idb_random_seed, whose bytes stay what they always were), and
 * re-seeded in any child process (fork(), _Fork(), a raw clone(): the fork generation of
 * forkgen.h, kept in a MADV_WIPEONFORK page) so parent and child never share a stream.
 * idb_random_seed() makes the calling thread's stream deterministic (tests, the simulator);
 * a forked child still re-seeds from the OS.
 *
 * idb_rng: a small explicitly seeded generator (xoshiro256**) for the harness's own
 * workload choices (shops, Zipf draws, simulated events). Not for IDs.
 */
#ifndef IDB_RANDOM_H
#define IDB_RANDOM_H

#include <stddef.h>
#include <stdint.h>

#include "chacha.h"   /* the block function, exposed for tests of published keystreams */

/* Fill p with n random bytes. Never fails: aborts if the OS has no entropy to give. */
void idb_random_bytes(void *p, size_t n);

/* 64 random bits. */
uint64_t idb_random_u64(void);

/* 32 random bits (half the cost of idb_random_u64, for callers that need no more). */
uint32_t idb_random_u32(void);

/* 16 random bytes into p (a UUID's worth) in one draw: the bytes idb_random_bytes(p, 16)
 * would give, without its loop. Never fails (aborts as idb_random_bytes). */
void idb_random_bytes16(void *p);

/* Make the calling thread's stream deterministic from seed (same seed, same bytes). */
void idb_random_seed(uint64_t seed);

/* For benchmarks only (the insert runner around its instances and generation loop, so that
 * the same --seed gives the same keys): make the calling thread's stream deterministic from
 * seed; idb_random_unseed() gives back the stream it
 * replaced. Never for `gen` or real use. A forked child re-keys from the OS either way. */
void idb_random_seed_thread(uint64_t seed);
void idb_random_unseed(void);

/* Fill p with n bytes for what keeps processes apart (ObjectId's process bytes): straight
 * from the OS (getrandom) while idb_random_seed_thread's benchmark mode is on, so a seeded
 * run never seeds them; else as idb_random_bytes (idb_random_seed: the simulator and tests
 * stay deterministic). Aborts as idb_random_bytes. */
void idb_random_process_bytes(void *p, size_t n);


typedef struct idb_rng { uint64_t s[4]; } idb_rng;

/* Seed r from seed (splitmix64 expansion). */
void idb_rng_seed(idb_rng *r, uint64_t seed);

/* The draws are inline: the simulator makes several per order (a call each cost ~8% of
 * its time). */

/* x rotated left by k (0 < k < 64). */
static inline uint64_t idb_rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* Next 64 bits. */
static inline uint64_t idb_rng_next(idb_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = idb_rotl64(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t;
    s[3] = idb_rotl64(s[3], 45);
    return result;
}

/* Uniform double in [0, 1). */
static inline double idb_rng_double(idb_rng *r)
{
    return (double)(idb_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n), n > 0, without modulo bias. */
static inline uint64_t idb_rng_below(idb_rng *r, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;   /* reject the biased tail */
    uint64_t v;
    do v = idb_rng_next(r); while (v >= limit);
    return v % n;
}

#endif
