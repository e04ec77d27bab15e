/* chacha.h — the ChaCha block function behind random.h's stream: one block at a time (the
 * reference) and IDB_CHACHA_WIDE blocks at once on SIMD vectors (what the stream uses).
 *
 * Layout is DJB's: words 0-3 the constants, 4-11 the key, 12-13 a 64-bit block counter (low
 * word first), 14-15 a 64-bit nonce (low word first). RFC 8439's layout (32-bit counter,
 * 96-bit nonce) is the same words: its counter is word 12 and its nonce words 13-15, so its
 * test vectors check these functions while the 64-bit counter does not carry into word 13.
 *
 * The wide cores: one body written with GCC vector extensions (one block a 32-bit lane; 4
 * or 8 lanes, chacha_body.h), compiled for every CPU (SSE2 on x86-64) and again, on x86-64,
 * for AVX2 (VEX forms, byte-shuffle rotations) and AVX-512VL (one-instruction rotations);
 * the best this CPU runs is picked once at run time (idb_chacha_wide). Every core's output
 * is byte-identical to as many calls of the scalar block.
 */
#ifndef IDB_CHACHA_H
#define IDB_CHACHA_H

#include <stdint.h>

#define IDB_CHACHA_WIDE 4                 /* blocks a call of fn4 makes */
#define IDB_CHACHA_WIDE_BYTES (64 * IDB_CHACHA_WIDE)
#define IDB_CHACHA_WIDE8 8                /* blocks a call of fn8 makes */
#define IDB_CHACHA_WIDE8_BYTES (64 * IDB_CHACHA_WIDE8)

/* One ChaCha block (zero nonce) with the given (even) number of rounds into out. */
void idb_chacha_block(const uint32_t key[8], uint64_t counter, int rounds, uint8_t out[64]);

/* A wide core: blocks counter .. counter + 3 (or + 7) (the 64-bit counter wraps and
 * carries into word 13 as one number) under key and nonce, with the given (even) number of
 * rounds, into out, block after block: IDB_CHACHA_WIDE_BYTES (IDB_CHACHA_WIDE8_BYTES). */
typedef void idb_chacha_wide_fn(const uint32_t key[8], uint64_t counter, uint64_t nonce,
                                int rounds, uint8_t *out);

/* The cores of one instruction set ("generic", "avx2", "avx512"): 4 and 8 blocks a call. */
typedef struct idb_chacha_core {
    const char *name;
    idb_chacha_wide_fn *fn4, *fn8;
} idb_chacha_core;

/* The wide cores this CPU can run, from the generic one to the best; *n gets their count
 * (at least 1). A static table: never freed. For tests (every core against the vectors). */
const idb_chacha_core *idb_chacha_cores(int *n);

/* The best core this CPU runs (the last of idb_chacha_cores), picked on first call. */
const idb_chacha_core *idb_chacha_wide(void);

#endif
