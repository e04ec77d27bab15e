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

#include "chacha.h"
#include "forkgen.h"

#define CHACHA_ROUNDS 12
/* A refill: 4 blocks (one fn4 call) for a seeded stream, whose bytes seeded runs and their
 * golden figures depend on; 16 blocks (two fn8 calls) for a stream keyed from the OS, whose
 * layout nobody can see, so the key's 32 bytes are 3% of a refill instead of 12.5% and the
 * 8-lane core makes twice the bytes per round. */
#define SEEDED_BYTES IDB_CHACHA_WIDE_BYTES
#define OS_BYTES (2 * IDB_CHACHA_WIDE8_BYTES)
#define BUF_BYTES OS_BYTES
#define KEY_BYTES 32                   /* the first 32 bytes of each refill become the next key */

static _Thread_local struct {
    uint32_t key[8];
    uint8_t buf[BUF_BYTES];
    unsigned pos, end;                 /* next unread byte of buf, end of the refill's bytes;
                                        * pos == end: empty */
    int seeded;
    int os_keyed;                      /* keyed from the OS: 16-block refills */
    int bench;                         /* seeded by idb_random_seed_thread (random.h) */
    unsigned gen;                      /* the fork generation this stream belongs to */
} rs, saved;                           /* saved: the stream idb_random_seed_thread put aside */

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* In the child only the forking thread exists, and this is its state: drop it. */
static void after_fork_child(void)
{
    explicit_bzero(&rs, sizeof rs);
    explicit_bzero(&saved, sizeof saved);   /* never the parent's stream again */
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
    rs.seeded = 1;
    rs.os_keyed = 1;
}

static void refill(void)
{
    if (!rs.seeded) seed_from_os();
    const idb_chacha_core *core = idb_chacha_wide();
    if (rs.os_keyed) {
        core->fn8(rs.key, 0, 0, CHACHA_ROUNDS, rs.buf);
        core->fn8(rs.key, IDB_CHACHA_WIDE8, 0, CHACHA_ROUNDS, rs.buf + IDB_CHACHA_WIDE8_BYTES);
        rs.end = OS_BYTES;
    } else {
        core->fn4(rs.key, 0, 0, CHACHA_ROUNDS, rs.buf);
        rs.end = SEEDED_BYTES;
    }
    memcpy(rs.key, rs.buf, KEY_BYTES);   /* fast key erasure: the old key is gone; every
                                          * key makes its blocks from counter 0, once */
    rs.pos = KEY_BYTES;
}

void idb_random_bytes(void *p, size_t n)
{
    uint8_t *out = p;
    fork_guard();
    while (n > 0) {
        if (rs.pos == rs.end) refill();
        size_t take = rs.end - rs.pos;
        if (take > n) take = n;
        memcpy(out, rs.buf + rs.pos, take);
        explicit_bzero(rs.buf + rs.pos, take);
        rs.pos += (unsigned)take;
        out += take;
        n -= take;
    }
}

/* n (a few) bytes into v: straight from the buffer when the stream is this process's and
 * the buffer holds them (a leaf: no loop, no refill, no call), else through
 * idb_random_bytes, whose fork_guard handles a new child or a first draw. Handed-out bytes
 * do not linger. */
static inline void draw_small(void *v, size_t n)
{
    atomic_uint *w = atomic_load_explicit(&idb_fork_gen_word, memory_order_relaxed);
    unsigned g = atomic_load_explicit(w, memory_order_relaxed);   /* 0: not set up, a child */
    unsigned pos = rs.pos;
    if (__builtin_expect(g != 0 && g == rs.gen && pos + n <= rs.end, 1)) {
        uint8_t *b = rs.buf + pos;
        rs.pos = pos + (unsigned)n;
        memcpy(v, b, n);
        memset(b, 0, n);
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

void idb_random_bytes16(void *p)
{
    draw_small(p, 16);
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
    explicit_bzero(rs.buf, sizeof rs.buf);   /* the old stream's unread bytes go too */
    rs.pos = rs.end = 0;               /* empty: the first draw refills */
    rs.seeded = 1;
    rs.os_keyed = 0;
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

