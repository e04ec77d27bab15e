/* chacha_body.h — the wide ChaCha core's body, included by chacha.c once per vector width.
 * Before including, chacha.c defines CB_NAME (the function), CB_V (a vector of CB_W 32-bit
 * lanes: one block a lane, word i of every block in x[i]) and CB_VB (its bytes), and the
 * vector CB_IOTA (0, 1, ..) and the index lists (for __builtin_shufflevector: GCC >= 12
 * and clang) CB_R16 and CB_R8 (byte shuffles rotating each lane by 16 and 8), CB_LO32,
 * CB_HI32, CB_LO64 and CB_HI64 (the unpack shuffles, within each 128-bit chunk, of a 4x4
 * transpose). It uses ROTL, DOUBLE_ROUND, sigma and put_le32 from
 * chacha.c. No include guard: it is meant to be included more than once. */

/* Blocks counter .. counter + CB_W - 1 into out (see chacha.h); bytes 1: the rotations by
 * 16 and 8 as byte shuffles (pshufb), else as ROTL (vprold with AVX-512VL). */
static inline __attribute__((always_inline))
void CB_NAME(const uint32_t key[8], uint64_t counter, uint64_t nonce, int rounds,
             uint8_t *out, int bytes)
{
    const CB_V zero = { 0 };
    CB_V in[16], x[16];
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) in[i] = zero + sigma[i];
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) in[4 + i] = zero + key[i];
    CB_V base = zero + (uint32_t)counter;
    in[12] = base + (CB_V)CB_IOTA;                 /* the low words, wrapping ... */
    in[13] = zero + (uint32_t)(counter >> 32);
    in[13] -= (CB_V)(in[12] < base);               /* ... carry into the high word (-1: +1) */
    in[14] = zero + (uint32_t)nonce;
    in[15] = zero + (uint32_t)(nonce >> 32);
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++) x[i] = in[i];
#define CB_ROT16B(v) ((CB_V)__builtin_shufflevector((CB_VB)(v), (CB_VB)(v), CB_R16))
#define CB_ROT8B(v) ((CB_V)__builtin_shufflevector((CB_VB)(v), (CB_VB)(v), CB_R8))
    for (int i = 0; i < rounds; i += 2) {
        if (bytes) { DOUBLE_ROUND(x, CB_ROT16B, CB_ROT8B); }
        else { DOUBLE_ROUND(x, ROT16S, ROT8S); }
    }
#undef CB_ROT16B
#undef CB_ROT8B
#pragma GCC unroll 4
    for (int i = 0; i < 16; i += 4) {              /* words i..i+3 of every block */
        CB_V a = x[i] + in[i], b = x[i + 1] + in[i + 1];
        CB_V c = x[i + 2] + in[i + 2], d = x[i + 3] + in[i + 3];
        CB_V t0 = __builtin_shufflevector(a, b, CB_LO32);
        CB_V t1 = __builtin_shufflevector(a, b, CB_HI32);
        CB_V t2 = __builtin_shufflevector(c, d, CB_LO32);
        CB_V t3 = __builtin_shufflevector(c, d, CB_HI32);
        CB_V r[4] = {                              /* r[l]'s 128-bit chunk k: block l + 4k */
            __builtin_shufflevector(t0, t2, CB_LO64), __builtin_shufflevector(t0, t2, CB_HI64),
            __builtin_shufflevector(t1, t3, CB_LO64), __builtin_shufflevector(t1, t3, CB_HI64),
        };
#pragma GCC unroll 4
        for (int l = 0; l < 4; l++)
#pragma GCC unroll 4
            for (int k = 0; k < CB_W / 4; k++) {
                uint8_t *o = out + 64 * (l + 4 * k) + 4 * i;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                memcpy(o, (const uint8_t *)&r[l] + 16 * k, 16);
#else
                for (int w = 0; w < 4; w++) put_le32(o + 4 * w, r[l][4 * k + w]);
#endif
            }
    }
}
