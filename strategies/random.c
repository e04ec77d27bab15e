/* random.c — ChaCha12 per-thread CSPRNG with fork safety, and xoshiro256** (see random.h).
 *
 * Fork safety: each thread's stream records the fork generation (forkgen.h) it was keyed
 * in; every draw compares it with idb_fork_now(), whose word lives in a MADV_WIPEONFORK
 * page, so a child made by fork(), _Fork() or a raw clone() drops the parent's stream
 * (key, buffer, saved stream) and re-keys from the OS before its first byte. The atfork
 * handler below stays as the second line. */
#include "random.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "forkgen.h"

#define CHACHA_ROUNDS 12
#define BLOCKS 4                       /* ChaCha blocks made per refill (chacha_blocks4) */
#define BUF_BYTES (64 * BLOCKS)
#define KEY_BYTES 32                   /* the first 32 bytes of each refill become the next key */

static _Thread_local struct {
    uint32_t key[8];
    uint64_t counter;
    uint8_t buf[BUF_BYTES];
    unsigned pos;                      /* next unread byte of buf; BUF_BYTES = empty */
    int seeded;
    int bench;                         /* seeded by idb_random_seed_thread (random.h) */
    unsigned gen;                      /* the fork generation this stream belongs to */
} rs = { .pos = BUF_BYTES }, saved;   /* saved: the stream idb_random_seed_thread put aside */

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* In the child only the forking thread exists, and this is its state: drop it. */
static void after_fork_child(void)
{
    explicit_bzero(&rs, sizeof rs);
    explicit_bzero(&saved, sizeof saved);   /* never the parent's stream again */
    rs.pos = saved.pos = BUF_BYTES;
}

/* The stream is the parent's (rs.gen is not this process's generation): drop it, as the
 * atfork handler does, and take this generation. Also a thread's first draw (gen 0). */
static void __attribute__((noinline)) stream_forked(unsigned now)
{
    after_fork_child();
    rs.gen = now;
}

/* Drop a stream made in another process before it gives a byte: one load and compare. */
static inline void fork_guard(void)
{
    unsigned now = idb_fork_now();
    if (__builtin_expect(rs.gen != now, 0)) stream_forked(now);
}

static void register_atfork(void) { pthread_atfork(NULL, NULL, after_fork_child); }

#define ROTL(v, n) (((v) << (n)) | ((v) >> (32 - (n))))
#define QR(a, b, c, d)                      \
    a += b; d ^= a; d = ROTL(d, 16);        \
    c += d; b ^= c; b = ROTL(b, 12);        \
    a += b; d ^= a; d = ROTL(d, 8);         \
    c += d; b ^= c; b = ROTL(b, 7)

static const uint32_t sigma[4] = { 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574 };

/* Little-endian store of one 32-bit word. */
static inline void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

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

/* BLOCKS consecutive blocks (counters counter..counter+3) at once: the same rounds as
 * idb_chacha_block on 4-lane vectors, one lane per block, so the compiler emits SIMD.
 * Output is byte-identical to four idb_chacha_block calls. */
typedef uint32_t v4u __attribute__((vector_size(16)));

static void chacha_blocks4(const uint32_t key[8], uint64_t counter, uint8_t out[256])
{
    v4u in[16], x[16];
    for (int i = 0; i < 4; i++) in[i] = (v4u){ sigma[i], sigma[i], sigma[i], sigma[i] };
    for (int i = 0; i < 8; i++) in[4 + i] = (v4u){ key[i], key[i], key[i], key[i] };
    for (int l = 0; l < 4; l++) {
        in[12][l] = (uint32_t)(counter + (uint64_t)l);
        in[13][l] = (uint32_t)((counter + (uint64_t)l) >> 32);
    }
    in[14] = in[15] = (v4u){ 0, 0, 0, 0 };
    memcpy(x, in, sizeof x);
    for (int i = 0; i < CHACHA_ROUNDS; i += 2) {
        QR(x[0], x[4], x[8], x[12]);  QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]); QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]); QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]);  QR(x[3], x[4], x[9], x[14]);
    }
    uint32_t words[4][16];                    /* block l, word i */
    for (int i = 0; i < 16; i++) {
        v4u v = x[i] + in[i];
        for (int l = 0; l < 4; l++) words[l][i] = v[l];
    }
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out, words, sizeof words);
#else
    for (int l = 0; l < 4; l++)
        for (int i = 0; i < 16; i++) put_le32(out + 64 * l + 4 * i, words[l][i]);
#endif
}

static void os_bytes(void *p, size_t n)
{
    uint8_t *k = p;
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(k + got, n - got, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            fprintf(stderr, "idbench: getrandom failed: %s\n", strerror(errno));
            abort();
        }
        got += (size_t)r;
    }
}

static void seed_from_os(void)
{
    pthread_once(&atfork_once, register_atfork);
    uint8_t k[KEY_BYTES];
    os_bytes(k, sizeof k);
    memcpy(rs.key, k, sizeof k);
    explicit_bzero(k, sizeof k);
    rs.counter = 0;
    rs.seeded = 1;
}

static void refill(void)
{
    if (!rs.seeded) seed_from_os();
    chacha_blocks4(rs.key, rs.counter, rs.buf);
    rs.counter += BLOCKS;
    memcpy(rs.key, rs.buf, KEY_BYTES);   /* fast key erasure: the old key is gone */
    rs.counter = 0;
    rs.pos = KEY_BYTES;
}

void idb_random_bytes(void *p, size_t n)
{
    uint8_t *out = p;
    fork_guard();
    while (n > 0) {
        if (rs.pos == BUF_BYTES) refill();
        size_t take = BUF_BYTES - rs.pos;
        if (take > n) take = n;
        memcpy(out, rs.buf + rs.pos, take);
        explicit_bzero(rs.buf + rs.pos, take);
        rs.pos += (unsigned)take;
        out += take;
        n -= take;
    }
}

/* n (a few) bytes into v: straight from the buffer when it holds them (no loop, no
 * refill), else through idb_random_bytes. Handed-out bytes do not linger. */
static inline void draw_small(void *v, size_t n)
{
    fork_guard();
    if (rs.pos + n <= BUF_BYTES) {
        memcpy(v, rs.buf + rs.pos, n);
        memset(rs.buf + rs.pos, 0, n);
        rs.pos += (unsigned)n;
        return;
    }
    idb_random_bytes(v, n);
}

uint64_t idb_random_u64(void)
{
    uint64_t v;
    draw_small(&v, sizeof v);
    return v;
}

uint32_t idb_random_u32(void)
{
    uint32_t v;
    draw_small(&v, sizeof v);
    return v;
}

void idb_random_seed(uint64_t seed)
{
    pthread_once(&atfork_once, register_atfork);
    idb_rng r;
    idb_rng_seed(&r, seed);
    for (int i = 0; i < 4; i++) {
        uint64_t v = idb_rng_next(&r);
        rs.key[2 * i] = (uint32_t)v;
        rs.key[2 * i + 1] = (uint32_t)(v >> 32);
    }
    rs.counter = 0;
    rs.seeded = 1;
    rs.pos = BUF_BYTES;
    rs.gen = idb_fork_generation();    /* this process's: a child still re-keys */
}

void idb_random_seed_thread(uint64_t seed)
{
    fork_guard();                      /* never put aside a parent's stream */
    saved = rs;
    idb_random_seed(seed);
    rs.bench = 1;
}

void idb_random_process_bytes(void *p, size_t n)
{
    fork_guard();
    if (rs.bench) os_bytes(p, n);
    else idb_random_bytes(p, n);
}

void idb_random_unseed(void)
{
    fork_guard();                      /* a parent's saved stream is dropped, not restored */
    rs = saved;                        /* the stream as it was (unseeded: keys from the OS) */
    rs.gen = idb_fork_now();
    explicit_bzero(&saved, sizeof saved);
    saved.pos = BUF_BYTES;
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void idb_rng_seed(idb_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t idb_rng_next(idb_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl64(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

double idb_rng_double(idb_rng *r) { return (double)(idb_rng_next(r) >> 11) * 0x1.0p-53; }

uint64_t idb_rng_below(idb_rng *r, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;   /* reject the biased tail */
    uint64_t v;
    do v = idb_rng_next(r); while (v >= limit);
    return v % n;
}
