/* collide.c — collision arithmetic, its simulation, and the birthday test on a strategy's
 * IDs (see collide.h). */
#include "collide.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "metrics.h"
#include "random.h"

#define BUCKET_BITS 12                   /* fingerprint bits that choose a bucket */
#define NBUCKETS (1 << BUCKET_BITS)
#define MIX_ROUNDS 4
#define MIX_K1 0x9E3779B97F4A7C15ULL     /* odd multipliers (golden ratio, splitmix64) */
#define MIX_K2 0xBF58476D1CE4E5B9ULL
#define WORD_BYTES ((int)sizeof(uint64_t))
#define COLLIDE_THREADS 2                /* the machine's cores; the split is fixed */

/* n(p) = 1/2 + sqrt(1/4 + 2 * 2^bits * ln(1/(1-p))) (see collide.h). */
double collide_ids(double bits, double p)
{
    double n = exp2(bits);
    return 0.5 + sqrt(0.25 + 2.0 * n * -log1p(-p));
}

/* Draw until the first repeat, `trials` times; the median count (see collide.h). */
double collide_simulate(int bits, int trials, uint64_t seed)
{
    /* Open addressing over a table 4x the largest count we expect to need; a slot holds
     * the value + 1 tagged with the trial number, so no table is cleared between trials. */
    double expect = collide_ids(bits, 0.5);
    size_t cap = 1;
    while ((double)cap < 8 * expect) cap <<= 1;
    uint64_t *slot = calloc(cap, sizeof *slot), *tag = calloc(cap, sizeof *tag);
    double *counts = malloc((size_t)trials * sizeof *counts);
    if (!slot || !tag || !counts) { free(slot); free(tag); free(counts); return -1; }
    uint64_t mask = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
    idb_random_seed(seed);
    for (int t = 0; t < trials; t++) {
        uint64_t trial = (uint64_t)t + 1;
        int64_t drawn = 0;
        for (;;) {
            uint64_t v = idb_random_u64() & mask;
            drawn++;
            size_t h = (size_t)((v * MIX_K1) >> 20) & (cap - 1);
            int repeat = 0;
            for (;; h = (h + 1) & (cap - 1)) {
                if (tag[h] != trial) { tag[h] = trial; slot[h] = v; break; }
                if (slot[h] == v) { repeat = 1; break; }
            }
            if (repeat || (double)drawn * 2 > (double)cap) break;   /* table full: stop */
        }
        counts[t] = (double)drawn;
    }
    qsort(counts, (size_t)trials, sizeof *counts, idb_cmp_double);
    int mid = trials / 2;
    double med = trials % 2 ? counts[mid] : (counts[mid - 1] + counts[mid]) / 2;
    free(slot); free(tag); free(counts);
    return med;
}

/* Expected repeats by fingerprint among n IDs of `bits` bits (see collide.h). */
double collide_expected(double n, double bits)
{
    return n * (n - 1) / 2 * (exp2(-bits) + exp2(-COLLIDE_FINGERPRINT_BITS));
}

/* The fingerprint of id: its first 16 bytes as two words (the rest folded in, the length
 * added), mixed by rounds that are each invertible, so distinct IDs of up to 16 bytes
 * give distinct (hi, lo). */
static void fingerprint(const idb_id *id, uint64_t *hi, uint64_t *lo)
{
    uint64_t w[2] = { 0, 0 };
    if (id->len == (int)sizeof w) {
        memcpy(w, id->b, sizeof w);                 /* the common case, in one load */
    } else {
        for (int i = 0; i < id->len; i++)
            w[(i / WORD_BYTES) % 2] ^= (uint64_t)id->b[i] << (8 * (i % WORD_BYTES));
    }
    uint64_t a = w[0] + (uint64_t)id->len * MIX_K2, b = w[1];
    for (int r = 0; r < MIX_ROUNDS; r++) {
        a += b; a *= MIX_K1; a ^= a >> 31;          /* a from a + b: invertible given b */
        b ^= a; b *= MIX_K2; b ^= b >> 29;          /* b from b ^ a: invertible given a */
    }
    *hi = a;
    *lo = b;
}

/* A bucket's values: a slice of the arena, or (once that is full) its own allocation. */
typedef struct bucket { uint64_t *v; int64_t n, cap; int owned; } bucket;

/* Software write-combining: fingerprints are staged STAGE at a time per bucket in one small
 * table and copied to their bucket a cache line at a time, so appending to 4,096 buckets
 * does not miss the TLB on every ID. */
#define STAGE 8
typedef struct staging { uint64_t v[NBUCKETS][STAGE]; uint8_t n[NBUCKETS]; } staging;

/* Append the k values v to bucket b. Returns 0 or -1 (out of memory). */
static int bucket_add(bucket *b, const uint64_t *v, int k)
{
    if (b->n + k > b->cap) {
        int64_t cap = 2 * b->cap + STAGE;
        uint64_t *p = malloc((size_t)cap * sizeof *p);
        if (!p) return -1;
        memcpy(p, b->v, (size_t)b->n * sizeof *p);
        if (b->owned) free(b->v);
        b->v = p;
        b->cap = cap;
        b->owned = 1;
    }
    memcpy(b->v + b->n, v, (size_t)k * sizeof *v);
    b->n += k;
    return 0;
}

/* Stage fingerprint (hi, lo): lo goes to the bucket the top bits of hi choose. Returns 0
 * or -1 (out of memory). */
static int stage_add(staging *sg, bucket *bk, uint64_t hi, uint64_t lo)
{
    size_t i = (size_t)(hi >> (64 - BUCKET_BITS));
    sg->v[i][sg->n[i]++] = lo;
    if (sg->n[i] < STAGE) return 0;
    sg->n[i] = 0;
    return bucket_add(&bk[i], sg->v[i], STAGE);
}

/* Values of b equal to an earlier one, with table (size a power of two >= 2 b->n, zeroed
 * here) as an open-addressing set; 0 is tracked apart since it marks an empty slot. */
static int64_t bucket_repeats(const bucket *b, uint64_t *table, int64_t size)
{
    memset(table, 0, (size_t)size * sizeof *table);
    int64_t rep = 0;
    int zero = 0;
    for (int64_t i = 0; i < b->n; i++) {
        uint64_t v = b->v[i];
        if (v == 0) { rep += zero; zero = 1; continue; }
        int64_t h = (int64_t)((v * MIX_K1) >> 32) & (size - 1);
        while (table[h] && table[h] != v) h = (h + 1) & (size - 1);
        if (table[h] == v) rep++;
        else table[h] = v;
    }
    return rep;
}

/* Draw n IDs into the buckets, each from a fresh instance. Returns 0 or an IDB_E* code. */
static int draw(const idb_strategy *st, idb_clock *clock, int64_t n, bucket *bk, idb_err *err)
{
    idb_opts opts;
    char owner[64];
    snprintf(owner, sizeof owner, "strategy %s", st->name);
    staging *sg = calloc(1, sizeof *sg);
    if (!sg) return idb_fail(err, IDB_ENOMEM, "out of memory");
    int rc = idb_opts_parse(&opts, st->options, NULL, 0, owner, err);
    for (int64_t i = 0; i < n && rc == 0; i++) {
        void *inst;
        idb_id id;
        if ((rc = st->create(&opts, clock, &inst, err))) break;
        rc = st->next(inst, &id, err);
        st->destroy(inst);
        if (rc) break;
        uint64_t hi, lo;
        fingerprint(&id, &hi, &lo);
        if (stage_add(sg, bk, hi, lo) != 0)
            rc = idb_fail(err, IDB_ENOMEM, "out of memory for %lld fingerprints", (long long)n);
    }
    for (int i = 0; i < NBUCKETS && rc == 0; i++)
        if (bucket_add(&bk[i], sg->v[i], sg->n[i]) != 0)
            rc = idb_fail(err, IDB_ENOMEM, "out of memory for %lld fingerprints", (long long)n);
    free(sg);
    return rc;
}

/* One thread's share of the birthday test: its IDs, its buckets, then its share of the
 * counting over every thread's buckets. */
typedef struct worker {
    const idb_strategy *st;
    idb_clock *clock;
    int64_t n;                           /* IDs to draw */
    uint64_t seed;
    bucket *bk;                          /* NBUCKETS of its own */
    bucket *all;                         /* every worker's buckets, COLLIDE_THREADS x NBUCKETS */
    int first, last;                     /* the bucket numbers it counts: [first, last) */
    int64_t repeats;
    int rc;
    idb_err err;
} worker;

/* Draw the worker's IDs (phase 1). */
static void *worker_draw(void *arg)
{
    worker *w = arg;
    idb_random_seed(w->seed);                /* this thread's own stream */
    w->rc = draw(w->st, w->clock, w->n, w->bk, &w->err);
    return NULL;
}

/* Count repeats in buckets [first, last) over every worker's values (phase 2): each
 * bucket's values of all workers go through one set. */
static void *worker_count(void *arg)
{
    worker *w = arg;
    int64_t most = 0, size = 1;
    for (int i = w->first; i < w->last; i++) {
        int64_t k = 0;
        for (int t = 0; t < COLLIDE_THREADS; t++) k += w->all[t * NBUCKETS + i].n;
        most = k > most ? k : most;
    }
    while (size < 2 * most) size <<= 1;
    uint64_t *table = malloc((size_t)size * sizeof *table), *vals = NULL;
    vals = malloc((size_t)(most ? most : 1) * sizeof *vals);
    if (!table || !vals) w->rc = idb_fail(&w->err, IDB_ENOMEM, "out of memory");
    for (int i = w->first; i < w->last && w->rc == 0; i++) {
        bucket merged = { .v = vals };
        for (int t = 0; t < COLLIDE_THREADS; t++) {
            const bucket *b = &w->all[t * NBUCKETS + i];
            memcpy(vals + merged.n, b->v, (size_t)b->n * sizeof *vals);
            merged.n += b->n;
        }
        w->repeats += bucket_repeats(&merged, table, size);
    }
    free(table);
    free(vals);
    return NULL;
}

/* Run fn on every worker, one thread each (the first on this thread). Returns 0 or the
 * first worker's error. */
static int run_workers(worker *w, void *(*fn)(void *), idb_err *err)
{
    pthread_t tid[COLLIDE_THREADS];
    int started[COLLIDE_THREADS] = { 0 };
    for (int t = 1; t < COLLIDE_THREADS; t++)
        started[t] = pthread_create(&tid[t], NULL, fn, &w[t]) == 0;
    fn(&w[0]);
    for (int t = 1; t < COLLIDE_THREADS; t++) {
        if (started[t]) pthread_join(tid[t], NULL);
        else fn(&w[t]);                      /* no thread: do its share here */
    }
    for (int t = 0; t < COLLIDE_THREADS; t++)
        if (w[t].rc) { *err = w[t].err; return w[t].rc; }
    return 0;
}

/* The birthday test on st's IDs (see collide.h). The buckets start as slices of one arena
 * of transparent huge pages (fewer page faults and TLB misses for 8n bytes written once). */
int collide_repeats(const idb_strategy *st, idb_clock *clock, int64_t n, uint64_t seed,
                    int64_t *repeats, idb_err *err)
{
    double per = (double)n / COLLIDE_THREADS / NBUCKETS;
    int64_t cap = (int64_t)(per + 4 * sqrt(per)) + 64;   /* 4 sigma: a rare bucket grows */
    size_t nb = (size_t)COLLIDE_THREADS * NBUCKETS, arena_len = (size_t)cap * nb * 8;
    bucket *bk = calloc(nb, sizeof *bk);
    uint64_t *arena = mmap(NULL, arena_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                           -1, 0);
    worker w[COLLIDE_THREADS];
    int rc = 0;
    *repeats = 0;
    if (!bk || arena == MAP_FAILED) {
        rc = idb_fail(err, IDB_ENOMEM, "out of memory for %lld fingerprints", (long long)n);
        arena = NULL;
    } else {
        madvise(arena, arena_len, MADV_HUGEPAGE);        /* advice only: fine if refused */
        for (size_t i = 0; i < nb; i++)
            bk[i] = (bucket){ .v = arena + i * (size_t)cap, .cap = cap };
        for (int t = 0; t < COLLIDE_THREADS; t++)
            w[t] = (worker){ .st = st, .clock = clock, .seed = seed + (uint64_t)t,
                             .n = n / COLLIDE_THREADS + (t < n % COLLIDE_THREADS),
                             .bk = bk + t * NBUCKETS, .all = bk,
                             .first = t * NBUCKETS / COLLIDE_THREADS,
                             .last = (t + 1) * NBUCKETS / COLLIDE_THREADS };
        rc = run_workers(w, worker_draw, err);
        if (rc == 0) rc = run_workers(w, worker_count, err);
        for (int t = 0; t < COLLIDE_THREADS && rc == 0; t++) *repeats += w[t].repeats;
    }
    for (size_t i = 0; bk && i < nb; i++)
        if (bk[i].owned) free(bk[i].v);
    if (arena) munmap(arena, arena_len);
    free(bk);
    return rc;
}
