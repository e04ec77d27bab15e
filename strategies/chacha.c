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

/* The wide cores: word i of the 4 blocks in one 4-lane vector (lane l = block l). */
typedef uint32_t v4u __attribute__((vector_size(16)));
typedef uint8_t v16b __attribute__((vector_size(16)));

/* Rotations by 16 and 8 as byte shuffles (one pshufb where the CPU has it), for the cores
 * whose CPU has no vector rotate; ROTL (two shifts and an or, or AVX-512's vprold) else. */
#define ROT16B(v) ((v4u)__builtin_shuffle((v16b)(v), \
    (v16b){ 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13 }))
#define ROT8B(v) ((v4u)__builtin_shuffle((v16b)(v), \
    (v16b){ 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14 }))
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

/* Words i..i+3 of the 4 blocks (a, b, c, d: one word each, a lane a block), transposed to
 * 16 bytes of each block: block l's at out + 64 * l. */
static inline __attribute__((always_inline))
void store4(uint8_t *out, v4u a, v4u b, v4u c, v4u d)
{
    v4u t0 = __builtin_shuffle(a, b, (v4u){ 0, 4, 1, 5 });
    v4u t1 = __builtin_shuffle(a, b, (v4u){ 2, 6, 3, 7 });
    v4u t2 = __builtin_shuffle(c, d, (v4u){ 0, 4, 1, 5 });
    v4u t3 = __builtin_shuffle(c, d, (v4u){ 2, 6, 3, 7 });
    v4u r[4] = {
        __builtin_shuffle(t0, t2, (v4u){ 0, 1, 4, 5 }),
        __builtin_shuffle(t0, t2, (v4u){ 2, 3, 6, 7 }),
        __builtin_shuffle(t1, t3, (v4u){ 0, 1, 4, 5 }),
        __builtin_shuffle(t1, t3, (v4u){ 2, 3, 6, 7 }),
    };
#pragma GCC unroll 4
    for (int l = 0; l < 4; l++) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(out + 64 * l, &r[l], 16);
#else
        for (int w = 0; w < 4; w++) put_le32(out + 64 * l + 4 * w, r[l][w]);
#endif
    }
}

/* The wide core's body, inlined into each compiled variant: bytes 1 uses the byte-shuffle
 * rotations for 16 and 8. */
static inline __attribute__((always_inline))
void wide_body(const uint32_t key[8], uint64_t counter, uint64_t nonce, int rounds,
               uint8_t out[IDB_CHACHA_WIDE_BYTES], int bytes)
{
    v4u in[16], x[16];
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) in[i] = (v4u){ sigma[i], sigma[i], sigma[i], sigma[i] };
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) in[4 + i] = (v4u){ key[i], key[i], key[i], key[i] };
    uint64_t c[4] = { counter, counter + 1, counter + 2, counter + 3 };
    in[12] = (v4u){ (uint32_t)c[0], (uint32_t)c[1], (uint32_t)c[2], (uint32_t)c[3] };
    in[13] = (v4u){ (uint32_t)(c[0] >> 32), (uint32_t)(c[1] >> 32), (uint32_t)(c[2] >> 32),
                    (uint32_t)(c[3] >> 32) };
    uint32_t n0 = (uint32_t)nonce, n1 = (uint32_t)(nonce >> 32);
    in[14] = (v4u){ n0, n0, n0, n0 };
    in[15] = (v4u){ n1, n1, n1, n1 };
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++) x[i] = in[i];
    for (int i = 0; i < rounds; i += 2) {
        if (bytes) { DOUBLE_ROUND(x, ROT16B, ROT8B); }
        else { DOUBLE_ROUND(x, ROT16S, ROT8S); }
    }
#pragma GCC unroll 4
    for (int i = 0; i < 16; i += 4)
        store4(out + 4 * i, x[i] + in[i], x[i + 1] + in[i + 1], x[i + 2] + in[i + 2],
               x[i + 3] + in[i + 3]);
}

/* The core for every CPU (SSE2 on x86-64). */
static void wide_generic(const uint32_t key[8], uint64_t counter, uint64_t nonce, int rounds,
                         uint8_t out[IDB_CHACHA_WIDE_BYTES])
{
    wide_body(key, counter, nonce, rounds, out, 0);
}

#if defined(__x86_64__) && defined(__GNUC__)
/* AVX2's VEX forms and pshufb rotations (16, 8). */
__attribute__((target("avx2")))
static void wide_avx2(const uint32_t key[8], uint64_t counter, uint64_t nonce, int rounds,
                      uint8_t out[IDB_CHACHA_WIDE_BYTES])
{
    wide_body(key, counter, nonce, rounds, out, 1);
}

/* AVX-512VL: every rotation one vprold. */
__attribute__((target("avx512f,avx512vl")))
static void wide_avx512(const uint32_t key[8], uint64_t counter, uint64_t nonce, int rounds,
                        uint8_t out[IDB_CHACHA_WIDE_BYTES])
{
    wide_body(key, counter, nonce, rounds, out, 0);
}
#endif

/* Every core, generic first; the ones this CPU cannot run are cut off by cores_usable. */
static const idb_chacha_core cores[] = {
    { "generic", wide_generic },
#if defined(__x86_64__) && defined(__GNUC__)
    { "avx2", wide_avx2 },
    { "avx512", wide_avx512 },
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
