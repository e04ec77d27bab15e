/* test_chacha.c — chacha.h's cores against RFC 8439's ChaCha20 test vectors: the scalar
 * block, and every wide (SIMD) core this CPU runs with the vector's block in each of its
 * lanes, 4 and 8 (so a wrong rotation, lane order or transposition in any core fails), then every
 * wide core against the scalar block at ChaCha12 over counters that carry into word 13. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "chacha.h"

/* One RFC 8439 keystream vector: key, nonce (its 12 bytes), 32-bit block counter, and the
 * keystream from that block on (hex, spaces ignored; the encryption vectors' keystream is
 * their ciphertext xor plaintext, given as both). */
typedef struct vec {
    const char *name, *key, *nonce;
    uint32_t counter;
    const char *stream, *plain;   /* plain: NULL when stream is the keystream itself */
} vec;

static const vec vecs[] = {
    { "2.3.2", "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
      "000000090000004a00000000", 1,
      "10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
      "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e", NULL },
    { "A.1#1", "0000000000000000000000000000000000000000000000000000000000000000",
      "000000000000000000000000", 0,
      "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
      "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586", NULL },
    { "A.1#2", "0000000000000000000000000000000000000000000000000000000000000000",
      "000000000000000000000000", 1,
      "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
      "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f", NULL },
    { "A.1#3", "0000000000000000000000000000000000000000000000000000000000000001",
      "000000000000000000000000", 1,
      "3aeb5224ecf849929b9d828db1ced4dd832025e8018b8160b82284f3c949aa5a"
      "8eca00bbb4a73bdad192b5c42f73f2fd4e273644c8b36125a64addeb006c13a0", NULL },
    { "A.1#4", "00ff000000000000000000000000000000000000000000000000000000000000",
      "000000000000000000000000", 2,
      "72d54dfbf12ec44b362692df94137f328fea8da73990265ec1bbbea1ae9af0ca"
      "13b25aa26cb4a648cb9b9d1be65b2c0924a66c54d545ec1b7374f4872e99f096", NULL },
    { "A.1#5", "0000000000000000000000000000000000000000000000000000000000000000",
      "000000000000000000000002", 0,
      "c2c64d378cd536374ae204b9ef933fcd1a8b2288b3dfa49672ab765b54ee27c7"
      "8a970e0e955c14f3a88e741b97c286f75f8fc299e8148362fa198a39531bed6d", NULL },
    /* 2.4.2: 114 bytes over blocks 1 and 2 ("Ladies and Gentlemen of the class of '99...") */
    { "2.4.2", "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
      "000000000000004a00000000", 1,
      "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
      "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
      "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
      "5af90bbf74a35be6b40b8eedf2785e42874d",
      "4c616469657320616e642047656e746c656d656e206f662074686520636c6173"
      "73206f66202739393a204966204920636f756c64206f6666657220796f75206f"
      "6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73"
      "637265656e20776f756c642062652069742e" },
};
#define NVECS (sizeof vecs / sizeof *vecs)

/* Bytes of hex string h into out (at most max); returns how many. */
static size_t unhex(const char *h, uint8_t *out, size_t max)
{
    size_t n = 0;
    unsigned v;
    while (n < max && sscanf(h + 2 * n, "%2x", &v) == 1) out[n++] = (uint8_t)v;
    return n;
}

/* The vector's keystream (ciphertext xor plaintext where it has one) into ks; its length. */
static size_t keystream_of(const vec *v, uint8_t ks[256])
{
    size_t n = unhex(v->stream, ks, 256);
    if (v->plain) {
        uint8_t p[256];
        assert_int_equal(unhex(v->plain, p, sizeof p), n);
        for (size_t i = 0; i < n; i++) ks[i] ^= p[i];
    }
    return n;
}

/* Key words, and RFC 8439's counter and nonce as chacha.h's 64-bit counter (word 12, then
 * the nonce's first word as word 13) and 64-bit nonce (words 14-15). */
static void layout(const vec *v, uint32_t key[8], uint64_t *counter, uint64_t *nonce)
{
    uint8_t k[32], n[12];
    assert_int_equal(unhex(v->key, k, sizeof k), 32);
    assert_int_equal(unhex(v->nonce, n, sizeof n), 12);
    for (int i = 0; i < 8; i++)
        key[i] = (uint32_t)k[4 * i] | (uint32_t)k[4 * i + 1] << 8 |
                 (uint32_t)k[4 * i + 2] << 16 | (uint32_t)k[4 * i + 3] << 24;
    uint32_t w[3];
    for (int i = 0; i < 3; i++)
        w[i] = (uint32_t)n[4 * i] | (uint32_t)n[4 * i + 1] << 8 |
               (uint32_t)n[4 * i + 2] << 16 | (uint32_t)n[4 * i + 3] << 24;
    *counter = (uint64_t)w[0] << 32 | v->counter;
    *nonce = (uint64_t)w[2] << 32 | w[1];
}

/* The scalar block (zero nonce only) gives every zero-nonce vector's first block. */
static void scalar_block_matches_rfc8439(void **state)
{
    (void)state;
    for (size_t i = 0; i < NVECS; i++) {
        uint32_t key[8];
        uint64_t counter, nonce;
        uint8_t ks[256], out[64];
        layout(&vecs[i], key, &counter, &nonce);
        if (nonce || counter >> 32) continue;
        assert_true(keystream_of(&vecs[i], ks) >= 64);
        idb_chacha_block(key, counter, 20, out);
        assert_memory_equal(out, ks, 64);
    }
}

/* Every wide core this CPU runs gives every vector with its first block in each lane l
 * (started at counter - l; blocks before 0 wrap to the top of the 64-bit counter, whose
 * carry back into word 13 must be right too) and its second block, if any, in lane l + 1. */
static void every_core_matches_rfc8439_in_every_lane(void **state)
{
    (void)state;
    int ncores;
    const idb_chacha_core *cores = idb_chacha_cores(&ncores);
    assert_true(ncores >= 1);
    for (int c = 0; c < ncores; c++) {
        for (size_t i = 0; i < NVECS; i++) {
            uint32_t key[8];
            uint64_t counter, nonce;
            uint8_t ks[256], out[IDB_CHACHA_WIDE8_BYTES];
            layout(&vecs[i], key, &counter, &nonce);
            size_t n = keystream_of(&vecs[i], ks);
            for (int w = 4; w <= 8; w += 4)
                for (size_t l = 0; l < (size_t)w; l++) {
                    size_t fits = ((size_t)w - l) * 64;
                    (w == 4 ? cores[c].fn4 : cores[c].fn8)(key, counter - l, nonce, 20, out);
                    if (memcmp(out + 64 * l, ks, n < fits ? n : fits) != 0)
                        fail_msg("core %s%d, RFC 8439 %s, block in lane %zu: wrong keystream",
                                 cores[c].name, w, vecs[i].name, l);
                }
        }
    }
}

/* Every wide core (4 and 8 blocks) equals as many scalar blocks at ChaCha12 (the stream's rounds),
 * with counters below, across and at the top of 2^32 and 2^64. */
static void every_core_matches_scalar_chacha12(void **state)
{
    (void)state;
    static const uint64_t counters[] = { 0, 1000, (1ULL << 32) - 2, (1ULL << 32) - 1,
                                         UINT64_MAX - 1, 0x123456789abcdefULL };
    uint32_t key[8];
    for (int i = 0; i < 8; i++) key[i] = 0x9e3779b9u * (uint32_t)(i + 1);
    int ncores;
    const idb_chacha_core *cores = idb_chacha_cores(&ncores);
    for (int c = 0; c < ncores; c++)
        for (size_t k = 0; k < sizeof counters / sizeof *counters; k++)
            for (int w = 4; w <= 8; w += 4) {
                uint8_t got[IDB_CHACHA_WIDE8_BYTES], want[IDB_CHACHA_WIDE8_BYTES];
                (w == 4 ? cores[c].fn4 : cores[c].fn8)(key, counters[k], 0, 12, got);
                for (int b = 0; b < w; b++)
                    idb_chacha_block(key, counters[k] + (uint64_t)b, 12, want + 64 * b);
                if (memcmp(got, want, 64 * (size_t)w) != 0)
                    fail_msg("core %s%d at counter %llu differs from the scalar block",
                             cores[c].name, w, (unsigned long long)counters[k]);
            }
}

/* The core the stream uses is the best this CPU runs: the last of the list. */
static void stream_uses_the_best_core(void **state)
{
    (void)state;
    int n;
    const idb_chacha_core *cores = idb_chacha_cores(&n);
    assert_ptr_equal(idb_chacha_wide(), &cores[n - 1]);
    print_message("cores on this CPU: %d, the stream uses %s\n", n, idb_chacha_wide()->name);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scalar_block_matches_rfc8439),
        cmocka_unit_test(every_core_matches_rfc8439_in_every_lane),
        cmocka_unit_test(every_core_matches_scalar_chacha12),
        cmocka_unit_test(stream_uses_the_best_core),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
