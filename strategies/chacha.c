/* chacha.c — the scalar ChaCha block and the wide (SIMD) cores with their run-time choice
 * (see chacha.h). */
#include "chacha.h"

#include <stdatomic.h>
#include <string.h>

static const uint32_t sigma[4] = { 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574 };

#define ROTL(v, n) (((v) << (n)) | ((v) >> (32 - (n))))
#define QR(a, b, c, d)                      \
    a += b; d ^= a; d = ROTL(d, 16);        \
    c += d; b ^= c; b = ROTL(b, 12);        \
    a += b; d ^= a; d = ROTL(d, 8);         \
    c += d; b ^= c; b = ROTL(b, 7)

/* Little-endian store of one 32-bit word. */
static inline void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* The scalar block (see chacha.h): the reference every wide core is checked against. */
void idb_chacha_block(const uint32_t key[8], uint64_t counter, int rounds, uint8_t out[64])
{
    uint32_t in[16] = {
        sigma[0], sigma[1], sigma[2], sigma[3],
        key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
        (uint32_t)counter, (uint32_t)(counter >> 32), 0, 0,
    };
    uint32_t x[16];
    memcpy(x, in, sizeof x);
    for (int i = 0; i < rounds; i += 2) {
        QR(x[0], x[4], x[8], x[12]);  QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]); QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]); QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]);  QR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++) put_le32(out + 4 * i, x[i] + in[i]);
}

/* The wide cores: a vector of 4 (8) 32-bit lanes holds one word of 4 (8) blocks. */
typedef uint32_t v4u __attribute__((vector_size(16)));
typedef uint8_t v16b __attribute__((vector_size(16)));
typedef uint32_t v8u __attribute__((vector_size(32)));
typedef uint8_t v32b __attribute__((vector_size(32)));

#define QRW(a, b, c, d, R16, R8)             \
    a += b; d ^= a; d = R16(d);             \
    c += d; b ^= c; b = ROTL(b, 12);        \
    a += b; d ^= a; d = R8(d);              \
    c += d; b ^= c; b = ROTL(b, 7)
#define ROT16S(v) ROTL(v, 16)
#define ROT8S(v) ROTL(v, 8)
#define DOUBLE_ROUND(x, R16, R8)                                                              \
    QRW(x[0], x[4], x[8], x[12], R16, R8);  QRW(x[1], x[5], x[9], x[13], R16, R8);            \
    QRW(x[2], x[6], x[10], x[14], R16, R8); QRW(x[3], x[7], x[11], x[15], R16, R8);           \
    QRW(x[0], x[5], x[10], x[15], R16, R8); QRW(x[1], x[6], x[11], x[12], R16, R8);           \
    QRW(x[2], x[7], x[8], x[13], R16, R8);  QRW(x[3], x[4], x[9], x[14], R16, R8)

/* Byte shuffles rotating each 32-bit lane of a 16-byte chunk by 16 and by 8. */
#define R16_16 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13
#define R8_16 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14

/* body4: 4 blocks on 4-lane vectors. */
#define CB_NAME body4
#define CB_V v4u
#define CB_VB v16b
#define CB_W 4
#define CB_IOTA { 0, 1, 2, 3 }
#define CB_R16 R16_16
#define CB_R8 R8_16
#define CB_LO32 0, 4, 1, 5
#define CB_HI32 2, 6, 3, 7
#define CB_LO64 0, 1, 4, 5
#define CB_HI64 2, 3, 6, 7
#include "chacha_body.h"
#undef CB_NAME
#undef CB_V
#undef CB_VB
#undef CB_W
#undef CB_IOTA
#undef CB_R16
#undef CB_R8
#undef CB_LO32
#undef CB_HI32
#undef CB_LO64
#undef CB_HI64

/* body8: 8 blocks on 8-lane vectors; the transpose works in each 128-bit half, so block l's
 * words come from half 0 of r[l] and block l + 4's from half 1. */
#define CB_NAME body8
#define CB_V v8u
#define CB_VB v32b
#define CB_W 8
#define CB_IOTA { 0, 1, 2, 3, 4, 5, 6, 7 }
#define CB_R16 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, \
           18, 19, 16, 17, 22, 23, 20, 21, 26, 27, 24, 25, 30, 31, 28, 29
#define CB_R8 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, \
          19, 16, 17, 18, 23, 20, 21, 22, 27, 24, 25, 26, 31, 28, 29, 30
#define CB_LO32 0, 8, 1, 9, 4, 12, 5, 13
#define CB_HI32 2, 10, 3, 11, 6, 14, 7, 15
#define CB_LO64 0, 1, 8, 9, 4, 5, 12, 13
#define CB_HI64 2, 3, 10, 11, 6, 7, 14, 15
#include "chacha_body.h"

/* Every CPU (SSE2 on x86-64): 8 blocks as two 4-block calls, since 8-lane vectors split
 * into 16-byte halves spill (3x slower). */
static void wide_generic4(const uint32_t key[8], uint64_t counter, uint64_t nonce, int rounds,
                          uint8_t *out)
{
    body4(key, counter, nonce, rounds, out, 0);
}

static void wide_generic8(const uint32_t key[8], uint64_t counter, uint64_t nonce, int rounds,
                          uint8_t *out)
{
    body4(key, counter, nonce, rounds, out, 0);
    body4(key, counter + 4, nonce, rounds, out + IDB_CHACHA_WIDE_BYTES, 0);
}

#if defined(__x86_64__) && defined(__GNUC__)
/* One compiled variant of the 4-block and the 8-block core (BYTES: see chacha_body.h). */
#define CORES(NAME, ATTR, BYTES)                                                              \
    ATTR static void NAME##4(const uint32_t key[8], uint64_t counter, uint64_t nonce,         \
                             int rounds, uint8_t *out)                                        \
    { body4(key, counter, nonce, rounds, out, BYTES); }                                       \
    ATTR static void NAME##8(const uint32_t key[8], uint64_t counter, uint64_t nonce,         \
                             int rounds, uint8_t *out)                                        \
    { body8(key, counter, nonce, rounds, out, BYTES); }

CORES(wide_avx2, __attribute__((target("avx2"))), 1)   /* VEX forms, pshufb rotations */
CORES(wide_avx512, __attribute__((target("avx512f,avx512vl"))), 0)   /* vprold rotations */
#endif

/* Every core, generic first; the ones this CPU cannot run are cut off by cores_usable. */
static const idb_chacha_core cores[] = {
    { "generic", wide_generic4, wide_generic8 },
#if defined(__x86_64__) && defined(__GNUC__)
    { "avx2", wide_avx24, wide_avx28 },
    { "avx512", wide_avx5124, wide_avx5128 },
#endif
};

/* How many of cores[] this CPU runs (they are in order of what they need). */
static int cores_usable(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2")) return 1;
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512vl")) return 2;
    return 3;
#else
    return 1;
#endif
}

/* The usable cores (see chacha.h). */
const idb_chacha_core *idb_chacha_cores(int *n)
{
    *n = cores_usable();
    return cores;
}

static _Atomic(const idb_chacha_core *) best;   /* idb_chacha_wide's choice, once made */

/* The best usable core (see chacha.h); racing first calls pick the same one. */
const idb_chacha_core *idb_chacha_wide(void)
{
    const idb_chacha_core *c = atomic_load_explicit(&best, memory_order_relaxed);
    if (__builtin_expect(c == NULL, 0)) {
        c = &cores[cores_usable() - 1];
        atomic_store_explicit(&best, c, memory_order_relaxed);
    }
    return c;
}
