/* test_random.c — the shared random module: ChaCha core against a published keystream,
 * deterministic seeding, fork safety, and the seeded workload generator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "forkgen.h"
#include "random.h"

/* RFC 7539 §A.1 test vector #1: ChaCha20, all-zero key and nonce, block 0. */
static void chacha20_zero_key_keystream(void **state)
{
    (void)state;
    static const uint8_t want[64] = {
        0x76, 0xb8, 0xe0, 0xad, 0xa0, 0xf1, 0x3d, 0x90,
        0x40, 0x5d, 0x6a, 0xe5, 0x53, 0x86, 0xbd, 0x28,
        0xbd, 0xd2, 0x19, 0xb8, 0xa0, 0x8d, 0xed, 0x1a,
        0xa8, 0x36, 0xef, 0xcc, 0x8b, 0x77, 0x0d, 0xc7,
        0xda, 0x41, 0x59, 0x7c, 0x51, 0x57, 0x48, 0x8d,
        0x77, 0x24, 0xe0, 0x3f, 0xb8, 0xd8, 0x4a, 0x37,
        0x6a, 0x43, 0xb8, 0xf4, 0x15, 0x18, 0xa1, 0x1c,
        0xc3, 0x87, 0xb6, 0x69, 0xb2, 0xee, 0x65, 0x86,
    };
    uint32_t key[8] = { 0 };
    uint8_t out[sizeof want];
    idb_chacha_block(key, 0, 20, out);
    assert_memory_equal(out, want, sizeof want);
}

/* The stream is ChaCha12 keyed from the seed: after idb_random_seed(s) the first refill
 * is blocks 0..3 under the seeded key, whose first 32 bytes become the next key (fast key
 * erasure) and the remaining 224 bytes are handed out, then the same under that key —
 * checked against the scalar core. Also when the thread drew from its OS-keyed stream
 * (16-block refills) first. */
static void stream_is_chacha12_with_key_erasure(void **state)
{
    (void)state;
    uint8_t before[100];
    idb_random_bytes(before, sizeof before);
    idb_rng r;
    idb_rng_seed(&r, 99);
    uint32_t key[8];
    for (int i = 0; i < 4; i++) {
        uint64_t v = idb_rng_next(&r);
        key[2 * i] = (uint32_t)v;
        key[2 * i + 1] = (uint32_t)(v >> 32);
    }
    uint8_t want[256], got[2 * 224];
    idb_random_seed(99);
    idb_random_bytes(got, sizeof got);
    for (int refill = 0; refill < 2; refill++) {     /* the second under the erased key */
        for (int b = 0; b < 4; b++) idb_chacha_block(key, (uint64_t)b, 12, want + 64 * b);
        assert_memory_equal(got + 224 * refill, want + 32, 224);
        memcpy(key, want, sizeof key);               /* little-endian words */
    }
}

static void seeded_streams_repeat(void **state)
{
    (void)state;
    uint8_t a[1000], b[1000], c[1000];
    idb_random_seed(42);
    idb_random_bytes(a, sizeof a);
    idb_random_seed(42);
    idb_random_bytes(b, sizeof b);
    idb_random_seed(43);
    idb_random_bytes(c, sizeof c);
    assert_memory_equal(a, b, sizeof a);
    assert_memory_not_equal(a, c, sizeof a);
}

/* Every bit position is 1 about half the time over 100,000 draws (5 sigma bounds). */
static void bits_are_balanced(void **state)
{
    (void)state;
    int ones[64] = { 0 };
    enum { N = 100000 };
    for (int i = 0; i < N; i++) {
        uint64_t v = idb_random_u64();
        for (int b = 0; b < 64; b++) ones[b] += (int)((v >> b) & 1);
    }
    for (int b = 0; b < 64; b++) {
        assert_true(ones[b] > N / 2 - 800);
        assert_true(ones[b] < N / 2 + 800);
    }
}

/* A forked child's stream differs from the parent's next bytes, even when seeded. */
static void fork_reseeds_child(void **state)
{
    (void)state;
    idb_random_seed(7);
    unsigned gen = idb_fork_generation();
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        uint8_t child[32];
        idb_random_bytes(child, sizeof child);
        unsigned g = idb_fork_generation();
        if (write(fd[1], child, sizeof child) != sizeof child ||
            write(fd[1], &g, sizeof g) != sizeof g)
            _exit(1);
        _exit(0);
    }
    uint8_t parent[32], child[32];
    unsigned child_gen;
    idb_random_bytes(parent, sizeof parent);
    assert_int_equal(read(fd[0], child, sizeof child), sizeof child);
    assert_int_equal(read(fd[0], &child_gen, sizeof child_gen), sizeof child_gen);
    int status;
    waitpid(pid, &status, 0);
    assert_memory_not_equal(parent, child, sizeof parent);
    assert_int_equal(child_gen, gen + 1);
    assert_int_equal(idb_fork_generation(), gen);
}

static void rng_is_seeded_and_bounded(void **state)
{
    (void)state;
    idb_rng a, b;
    idb_rng_seed(&a, 1);
    idb_rng_seed(&b, 1);
    for (int i = 0; i < 100; i++) assert_int_equal(idb_rng_next(&a), idb_rng_next(&b));
    int seen[7] = { 0 };
    for (int i = 0; i < 7000; i++) {
        uint64_t v = idb_rng_below(&a, 7);
        assert_true(v < 7);
        seen[v]++;
        double d = idb_rng_double(&a);
        assert_true(d >= 0 && d < 1);
    }
    for (int i = 0; i < 7; i++) assert_true(seen[i] > 800 && seen[i] < 1200);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chacha20_zero_key_keystream),
        cmocka_unit_test(stream_is_chacha12_with_key_erasure),
        cmocka_unit_test(seeded_streams_repeat),
        cmocka_unit_test(bits_are_balanced),
        cmocka_unit_test(fork_reseeds_child),
        cmocka_unit_test(rng_is_seeded_and_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
