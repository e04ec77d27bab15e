/* sim_metrics.c — duplicates, inversions, per-shard order and tail inserts of a simulated
 * run (definitions in sim_metrics.h), in place on the orders' columns.
 *
 * Keys stand for IDs: a 64-bit ID is its native uint64_t, any other width its big-endian
 * bytes (memcmp order), IDs of mixed widths their bytes padded with zeros to the widest
 * and followed by their length (idb_id_cmp order). The steps:
 *   1. sort the columns into creation order (time, then key): a run is nearly in that order
 *      already (orders are played as they arrive), so the orders that break it are moved
 *      aside, sorted, and merged back from the end (a drop-merge sort);
 *   2. one scan in creation order: per shard the last and the highest key (monotonic,
 *      tail inserts); the highest key so far, by its index in the scratch column, for the
 *      largest time gap of an inverted pair; the insert positions when asked;
 *   3. time, creation shard and scratch freed, a bottom-up merge sort of the keys (with
 *      their final shard) counts the inversions and leaves equal keys side by side for
 *      the duplicates and the collisions within a final shard.
 */
#include "sim_metrics.h"

#include <stdlib.h>
#include <string.h>

#include "locality.h"
#include "sim_huge.h"

#define KEY_MAX (IDB_ID_MAX + 1)  /* the widest key: mixed widths, padded, length last */
#define INS_RUN 16                /* the merge sort starts from runs sorted by insertion */
#define SIDE_CHUNK 4096           /* orders the first aside allocation holds */

typedef struct keyfmt {
    size_t w;                     /* bytes per key */
    int u64;                      /* 1: native uint64_t */
} keyfmt;

/* The steps take the key format as a pointer but are inlined into one copy per format
 * (metrics_u64, metrics_w12/16/20, metrics_any below), where it is a constant: the
 * compiler then drops the per-key branches and compares 16-byte keys as two words, not by
 * memcmp. */
#define KEYFN static inline __attribute__((always_inline))

/* The big-endian 64-bit word at p. */
static inline uint64_t be64_at(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* Order of keys a and b (memcmp order for byte keys): a width of 8 bytes or more that is a
 * multiple of 4 (metrics_fixed's 12, 16 and 20, whose loop the compiler unrolls, and e.g.
 * 24 or 32 in metrics_any) as big-endian 64-bit words and a 32-bit tail, any other by
 * memcmp. The tail is read as the word that ends with it: its first 4 bytes are equal by
 * then. */
KEYFN int kcmp(const keyfmt *f, const uint8_t *a, const uint8_t *b)
{
    if (f->u64) {
        uint64_t x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        return (x > y) - (x < y);
    }
    if (f->w < 8 || (f->w % 8 != 0 && f->w % 8 != 4)) return memcmp(a, b, f->w);
    uint64_t x = be64_at(a), y = be64_at(b);        /* the first words that differ */
    size_t o = 8;
    for (; o + 8 <= f->w; o += 8)
        if (x == y) x = be64_at(a + o), y = be64_at(b + o);
    if (o < f->w && x == y) x = be64_at(a + o - 4), y = be64_at(b + o - 4);
    return (x > y) - (x < y);
}

/* Copy key s to d. */
KEYFN void kcpy(const keyfmt *f, uint8_t *d, const uint8_t *s)
{
    if (f->u64) memcpy(d, s, sizeof(uint64_t));
    else memcpy(d, s, f->w);
}

/* Key i of c. */
KEYFN uint8_t *key_at(const sim_metrics_cols *c, int64_t i)
{
    return c->keys + (size_t)i * c->key_bytes;
}

/* Creation order of (t, k) against order i of c: by time, then by key. */
KEYFN int tk_cmp(const sim_metrics_cols *c, const keyfmt *f, int64_t t, const uint8_t *k,
                  int64_t i)
{
    if (t != c->t_ns[i]) return t < c->t_ns[i] ? -1 : 1;
    return kcmp(f, k, key_at(c, i));
}

/* Orders moved aside by the sort into creation order, as packed records:
 * time (8 bytes), creation shard (2), final shard (2), key. */
typedef struct aside {
    uint8_t *b;
    int64_t n, cap;
    size_t rs;                    /* bytes per record */
} aside;

#define AS_T 0
#define AS_SC sizeof(int64_t)
#define AS_SF (AS_SC + sizeof(uint16_t))
#define AS_KEY (AS_SF + sizeof(uint16_t))

static _Thread_local keyfmt aside_fmt;    /* qsort context of aside_cmp */

/* qsort order of aside records: creation order. */
static int aside_cmp(const void *pa, const void *pb)
{
    const uint8_t *a = pa, *b = pb;
    int64_t ta, tb;
    memcpy(&ta, a + AS_T, sizeof ta);
    memcpy(&tb, b + AS_T, sizeof tb);
    if (ta != tb) return ta < tb ? -1 : 1;
    return kcmp(&aside_fmt, a + AS_KEY, b + AS_KEY);
}

/* Move order i of c aside. Returns 0 or -1 (out of memory). */
KEYFN int aside_push(aside *a, const sim_metrics_cols *c, const keyfmt *f, int64_t i)
{
    if (a->n == a->cap) {
        int64_t cap = a->cap + a->cap / 2 + SIDE_CHUNK;
        uint8_t *b = realloc(a->b, (size_t)cap * a->rs);
        if (!b) return -1;
        a->b = b;
        a->cap = cap;
    }
    uint8_t *r = a->b + (size_t)a->n++ * a->rs;
    memcpy(r + AS_T, &c->t_ns[i], sizeof c->t_ns[i]);
    memcpy(r + AS_SC, &c->shard_c[i], sizeof c->shard_c[i]);
    memcpy(r + AS_SF, &c->shard_f[i], sizeof c->shard_f[i]);
    kcpy(f, r + AS_KEY, key_at(c, i));
    return 0;
}

/* Order d of c = aside record r. */
KEYFN void put_aside(sim_metrics_cols *c, const keyfmt *f, int64_t d, const uint8_t *r)
{
    memcpy(&c->t_ns[d], r + AS_T, sizeof c->t_ns[d]);
    memcpy(&c->shard_c[d], r + AS_SC, sizeof c->shard_c[d]);
    memcpy(&c->shard_f[d], r + AS_SF, sizeof c->shard_f[d]);
    kcpy(f, key_at(c, d), r + AS_KEY);
}

/* Order d of c = order s. */
KEYFN void move_order(sim_metrics_cols *c, const keyfmt *f, int64_t d, int64_t s)
{
    c->t_ns[d] = c->t_ns[s];
    c->shard_c[d] = c->shard_c[s];
    c->shard_f[d] = c->shard_f[s];
    kcpy(f, key_at(c, d), key_at(c, s));
}

/* Step 1: sort c into creation order (time, then key; orders equal in both are the same
 * to every figure, so their order does not matter). Each order at or after the last one
 * kept stays; one below it is moved aside, unless it is at or after the one kept before
 * (then the last kept, an order ahead of its time, goes aside instead). The aside orders
 * are sorted and merged in from the end. Returns 0 or -1 (out of memory). */
KEYFN int sort_creation(sim_metrics_cols *c, const keyfmt *f)
{
    aside a = { .rs = AS_KEY + f->w };
    int64_t kept = 0;
    for (int64_t i = 0; i < c->m; i++) {
        const uint8_t *k = key_at(c, i);
        if (kept == 0 || tk_cmp(c, f, c->t_ns[i], k, kept - 1) >= 0) {
            if (kept != i) move_order(c, f, kept, i);
            kept++;
        } else if (kept >= 2 && tk_cmp(c, f, c->t_ns[i], k, kept - 2) >= 0) {
            if (aside_push(&a, c, f, kept - 1) != 0) goto oom;
            move_order(c, f, kept - 1, i);
        } else if (aside_push(&a, c, f, i) != 0) {
            goto oom;
        }
    }
    aside_fmt = *f;
    if (a.n > 1) qsort(a.b, (size_t)a.n, a.rs, aside_cmp);
    for (int64_t i = kept - 1, j = a.n - 1, o = c->m - 1; j >= 0; o--) {
        const uint8_t *r = a.b + (size_t)j * a.rs;
        int64_t t;
        memcpy(&t, r + AS_T, sizeof t);
        if (i >= 0 && tk_cmp(c, f, t, r + AS_KEY, i) < 0) {
            move_order(c, f, o, i--);
        } else {
            put_aside(c, f, o, r);
            j--;
        }
    }
    free(a.b);
    return 0;
oom:
    free(a.b);
    return -1;
}

/* Step 2a: per creation shard and per final shard, in creation order: is each key above the
 * one before it there (monotonic), and how many are above every key before them there
 * (tail inserts; the first of a shard has no position). Returns 0 or -1 (memory). */
KEYFN int shard_order(const sim_metrics_cols *c, const keyfmt *f, sim_metrics_out *out)
{
    size_t w = f->w, ns = (size_t)c->nshards;
    uint8_t *st = malloc(ns * (3 * w + 2) + 1);
    if (!st) return -1;
    uint8_t *last_c = st, *max_c = st + ns * w, *last_f = st + 2 * ns * w;
    uint8_t *seen_c = st + 3 * ns * w, *seen_f = seen_c + ns;
    memset(seen_c, 0, 2 * ns);
    int64_t tails = 0, inserts = 0;
    for (int64_t i = 0; i < c->m; i++) {
        const uint8_t *k = key_at(c, i);
        size_t sc = c->shard_c[i], sf = c->shard_f[i];
        if (seen_c[sc]) {
            if (kcmp(f, k, last_c + sc * w) <= 0) out->shard_monotonic = 0;
            inserts++;
            if (kcmp(f, k, max_c + sc * w) > 0) { tails++; kcpy(f, max_c + sc * w, k); }
        } else {
            kcpy(f, max_c + sc * w, k);
            seen_c[sc] = 1;
        }
        kcpy(f, last_c + sc * w, k);
        if (seen_f[sf] && kcmp(f, k, last_f + sf * w) <= 0) out->final_monotonic = 0;
        seen_f[sf] = 1;
        kcpy(f, last_f + sf * w, k);
    }
    out->tail_insert_frac = inserts ? (double)tails / (double)inserts : 0;
    free(st);
    return 0;
}

/* Step 2b: the largest time gap of an inverted pair, in creation order. top[i] (the
 * scratch column) is the index of the first highest key of orders 0..i (the highest key so
 * far never decreases). For an order below the highest key before it, only an earlier
 * order at least the largest gap so far before it can give a gap as large: p is the last
 * such order (a pointer moved on with the times; the order that set the gap when it
 * grows). If the highest key up to p is not above v, the order is passed over; else the
 * earliest order with a key above v, at or before p, is found by bisecting top (its gap is
 * at least the gap so far). Where IDs are far out of order (range routing) most inverted
 * orders are passed over in one comparison, where a search from the order back would take
 * ~20 dependent loads. */
KEYFN double max_inversion_gap(const sim_metrics_cols *c, const keyfmt *f)
{
    uint32_t *top = c->scratch;
    const int64_t *t = c->t_ns;
    int64_t gap = 0, p = -1;                     /* t[p] <= t[i] - gap */
    uint32_t h = 0;                              /* top[i - 1] */
    for (int64_t i = 0; i < c->m; i++) {
        const uint8_t *v = key_at(c, i);
        int d = kcmp(f, key_at(c, h), v);
        if (d > 0) {
            while (p + 1 < i && t[p + 1] < t[i] - gap) p++;
            if (p >= 0 && kcmp(f, key_at(c, top[p]), v) > 0) {
                int64_t lo = 0, hi = p;          /* the first top key above v: in [0, p] */
                while (lo < hi) {
                    int64_t mid = lo + (hi - lo) / 2;
                    if (kcmp(f, key_at(c, top[mid]), v) > 0) hi = mid; else lo = mid + 1;
                }
                gap = t[i] - t[lo];              /* not below the gap so far: t[lo] <= t[p] */
                p = lo;
            }
        } else if (d < 0) {
            h = (uint32_t)i;                     /* a new highest key */
        }
        top[i] = h;
    }
    return (double)gap;
}

/* Key k as big-endian bytes at p (the insert positions compare by memcmp). */
KEYFN void key_be(const keyfmt *f, uint8_t *p, const uint8_t *k)
{
    if (!f->u64) { memcpy(p, k, f->w); return; }
    uint64_t v;
    memcpy(&v, k, sizeof v);
    idb_put_be64(p, v);
}

/* Step 2c: each creation shard's keys in creation order (grouped by a counting sort) fed to
 * one index each (locality.h): the median insert position and the share in the last 5%. */
KEYFN void insert_positions(const sim_metrics_cols *c, const keyfmt *f, sim_metrics_out *out)
{
    _Static_assert(IDB_LOC_BUCKETS == 20, "the last locality bucket must be the last 5%");
    size_t ns = (size_t)c->nshards, w = f->w;
    int64_t *at = calloc(ns + 1, sizeof *at);
    uint8_t *keys = malloc((size_t)c->m * w);
    idb_locality l;
    if (!at || !keys || idb_locality_init(&l, c->m) != 0) goto out;
    for (int64_t i = 0; i < c->m; i++) at[c->shard_c[i] + 1]++;
    for (size_t k = 0; k < ns; k++) at[k + 1] += at[k];
    for (int64_t i = 0; i < c->m; i++)
        key_be(f, keys + (size_t)at[c->shard_c[i]]++ * w, key_at(c, i));
    int ok = 1;                       /* now at[k] is where shard k ends */
    for (size_t k = 0; k < ns && ok; k++) {
        int64_t from = k ? at[k - 1] : 0;
        if (at[k] > from)
            ok = idb_locality_add_packed(&l, keys + (size_t)from * w, (int)w, at[k] - from) == 0;
    }
    if (ok && l.inserts > 0) {
        out->insert_pos_p50 = idb_locality_pos_p50(&l);
        out->insert_last5_frac = (double)l.hist[IDB_LOC_BUCKETS - 1] / (double)l.inserts;
    }
    idb_locality_free(&l);
out:
    free(at);
    free(keys);
}

/* Sort the n keys k (with their final shards s) in runs of INS_RUN by insertion; returns
 * the inversions the shifts undid (each shift, one pair). */
KEYFN int64_t insertion_runs(const keyfmt *f, uint8_t *k, uint16_t *s, int64_t n)
{
    size_t w = f->w;
    int64_t inv = 0;
    uint8_t hold[KEY_MAX];
    for (int64_t lo = 0; lo < n; lo += INS_RUN) {
        int64_t hi = lo + INS_RUN < n ? lo + INS_RUN : n;
        for (int64_t i = lo + 1; i < hi; i++) {
            if (kcmp(f, k + (size_t)(i - 1) * w, k + (size_t)i * w) <= 0) continue;
            kcpy(f, hold, k + (size_t)i * w);
            uint16_t hs = s[i];
            int64_t j = i;
            for (; j > lo && kcmp(f, k + (size_t)(j - 1) * w, hold) > 0; j--) {
                kcpy(f, k + (size_t)j * w, k + (size_t)(j - 1) * w);
                s[j] = s[j - 1];
            }
            inv += i - j;
            kcpy(f, k + (size_t)j * w, hold);
            s[j] = hs;
        }
    }
    return inv;
}

/* Copy entries [from, to) of (k, s) to (dk, ds) at o. */
KEYFN void copy_keys(size_t w, const uint8_t *k, const uint16_t *s, uint8_t *dk, uint16_t *ds,
                      int64_t o, int64_t from, int64_t to)
{
    memcpy(dk + (size_t)o * w, k + (size_t)from * w, (size_t)(to - from) * w);
    memcpy(ds + o, s + from, (size_t)(to - from) * sizeof *s);
}

/* The first index in [a, b) of the sorted keys k whose key is above key x (past_equal
 * 1), or at or above it (past_equal 0); b when none is. */
KEYFN int64_t bound(const keyfmt *f, const uint8_t *k, int64_t a, int64_t b, const uint8_t *x,
                    int past_equal)
{
    while (a < b) {
        int64_t m = a + (b - a) / 2;
        if (kcmp(f, k + (size_t)m * f->w, x) < past_equal) a = m + 1; else b = m;
    }
    return a;
}

/* merge_runs' loop for native 64-bit keys (the same order and count), in a function of its
 * own: inlined into the whole of metrics_u64 it kept its counters on the stack. */
static __attribute__((noinline)) int64_t merge_u64(const uint8_t *k, const uint16_t *s,
                                                   uint8_t *dk, uint16_t *ds, int64_t *pi,
                                                   int64_t mid, int64_t *pj, int64_t end,
                                                   int64_t *po)
{
    const uint64_t *k64 = (const uint64_t *)(const void *)k;   /* malloc'd: aligned */
    const uint64_t *a = k64 + *pi, *ae = k64 + mid, *b = k64 + *pj, *be = k64 + end;
    const uint16_t *sa = s + *pi, *sb = s + *pj;
    uint64_t *o = (uint64_t *)(void *)dk + *po;
    uint16_t *so = ds + *po;
    int64_t inv = 0;
    while (a < ae && b < be) {
        if (*a <= *b) {
            *o++ = *a++;
            *so++ = *sa++;
        } else {
            inv += ae - a;
            *o++ = *b++;
            *so++ = *sb++;
        }
    }
    *pi = a - k64, *pj = b - k64, *po = so - ds;
    return inv;
}

/* Merge runs [lo, mid) and [mid, hi) of (k, s) into (dk, ds); returns the inversions
 * between them: each key taken from the right run jumps every key still waiting in the
 * left one. As a merge that takes the left key on ties would: the left keys at or below
 * the right run's first, and the right keys at or above the left run's last, are copied
 * in one piece (runs of nearly sorted keys overlap in a few keys only). */
KEYFN int64_t merge_runs(const keyfmt *f, const uint8_t *k, const uint16_t *s, uint8_t *dk,
                          uint16_t *ds, int64_t lo, int64_t mid, int64_t hi)
{
    size_t w = f->w;
    if (mid == hi || kcmp(f, k + (size_t)(mid - 1) * w, k + (size_t)mid * w) <= 0) {
        copy_keys(w, k, s, dk, ds, lo, lo, hi);        /* already in order */
        return 0;
    }
    int64_t first = bound(f, k, lo, mid, k + (size_t)mid * w, 1);  /* above the right's first */
    int64_t end = bound(f, k, mid, hi, k + (size_t)(mid - 1) * w, 0); /* at or above the
                                                                       * left's last */
    copy_keys(w, k, s, dk, ds, lo, lo, first);
    copy_keys(w, k, s, dk, ds, end, end, hi);
    int64_t inv = 0, i = first, j = mid, o = first;
    if (f->u64) inv = merge_u64(k, s, dk, ds, &i, mid, &j, end, &o);
    else while (i < mid && j < end) {
        if (kcmp(f, k + (size_t)i * w, k + (size_t)j * w) <= 0) {
            kcpy(f, dk + (size_t)o * w, k + (size_t)i * w);
            ds[o++] = s[i++];
        } else {
            inv += mid - i;
            kcpy(f, dk + (size_t)o * w, k + (size_t)j * w);
            ds[o++] = s[j++];
        }
    }
    copy_keys(w, k, s, dk, ds, o, i, mid);
    copy_keys(w, k, s, dk, ds, o + (mid - i), j, end);
    return inv;
}

/* 1 if each run of n keys k is at or below the next run (so all are in order, as the runs
 * are sorted): the merge sort is done. */
KEYFN int runs_in_order(const keyfmt *f, const uint8_t *k, int64_t n, int64_t run)
{
    for (int64_t mid = run; mid < n; mid += run)
        if (kcmp(f, k + (size_t)(mid - 1) * f->w, k + (size_t)mid * f->w) > 0) return 0;
    return 1;
}

/* Count orders in the equal-key run s[0..n) (final shards) that share a final shard with an
 * earlier one. */
static int64_t run_collisions(const uint16_t *s, int64_t n)
{
    int64_t c = 0;
    for (int64_t i = 1; i < n; i++)
        for (int64_t j = 0; j < i; j++)
            if (s[i] == s[j]) { c++; break; }
    return c;
}

/* Step 3: inversions of the keys in creation order by a merge sort of (keys, final shards)
 * with buffers of the same size; then duplicates and collisions over equal keys. Frees
 * the keys and final shards. Returns 0 or -1 (out of memory). */
KEYFN int sorted_figures(sim_metrics_cols *c, const keyfmt *f, sim_metrics_out *out)
{
    int64_t m = c->m;
    size_t w = f->w;
    uint8_t *k2 = sim_huge_alloc((size_t)m * w);
    uint16_t *s2 = sim_huge_alloc((size_t)m * sizeof *s2);
    if (!k2 || !s2) { free(k2); free(s2); return -1; }
    uint8_t *k = c->keys;
    uint16_t *s = c->shard_f;
    int64_t inv = insertion_runs(f, k, s, m);
    for (int64_t run = INS_RUN; run < m && !runs_in_order(f, k, m, run); run *= 2) {
        for (int64_t lo = 0; lo < m; lo += 2 * run) {
            int64_t mid = lo + run < m ? lo + run : m, hi = lo + 2 * run < m ? lo + 2 * run : m;
            inv += merge_runs(f, k, s, k2, s2, lo, mid, hi);
        }
        uint8_t *tk = k; k = k2; k2 = tk;
        uint16_t *ts = s; s = s2; s2 = ts;
    }
    free(k2);
    free(s2);
    c->keys = k;                                   /* the sorted ones, whichever buffer */
    c->shard_f = s;
    out->inversions = inv;
    out->inversion_frac = m > 1 ? (double)inv / ((double)m * (double)(m - 1) / 2) : 0;
    int64_t distinct = 0;
    for (int64_t start = 0, i = 1; start < m; i++) {     /* runs of equal keys */
        if (i < m && kcmp(f, k + (size_t)(i - 1) * w, k + (size_t)i * w) == 0) continue;
        if (i - start > 1) out->shard_collisions += run_collisions(s + start, i - start);
        distinct++;
        start = i;
    }
    out->duplicates = m - distinct;
    return 0;
}

/* Free every column of c. */
static void cols_free(sim_metrics_cols *c)
{
    free(c->t_ns); free(c->keys); free(c->shard_c); free(c->shard_f); free(c->scratch);
    c->t_ns = NULL, c->keys = NULL, c->shard_c = c->shard_f = NULL, c->scratch = NULL;
}

/* The three steps (see the top of this file) for keys of format f. Returns 0 or -1. */
KEYFN int metrics_steps(sim_metrics_cols *c, const keyfmt *f, sim_metrics_out *out)
{
    if (sort_creation(c, f) != 0 || shard_order(c, f, out) != 0) return -1;
    out->max_inversion_gap_ns = max_inversion_gap(c, f);
    if (c->locality) insert_positions(c, f, out);
    free(c->t_ns); free(c->shard_c); free(c->scratch);   /* lower the peak of step 3 */
    c->t_ns = NULL, c->shard_c = NULL, c->scratch = NULL;
    return sorted_figures(c, f, out);
}

/* The steps for native 64-bit keys, for byte keys of a width the compiler knows (words,
 * not memcmp; copies as moves, not memmove), and for any other width. */
static int metrics_u64(sim_metrics_cols *c, sim_metrics_out *out)
{
    static const keyfmt f = { .w = sizeof(uint64_t), .u64 = 1 };
    return metrics_steps(c, &f, out);
}

#define METRICS_FIXED(W)                                                                   \
    static int metrics_w##W(sim_metrics_cols *c, sim_metrics_out *out)                     \
    {                                                                                      \
        static const keyfmt f = { .w = W, .u64 = 0 };                                      \
        return metrics_steps(c, &f, out);                                                  \
    }
METRICS_FIXED(12)                 /* objectid */
METRICS_FIXED(16)                 /* the UUIDs, ulid */
METRICS_FIXED(20)                 /* ksuid */

static const struct {
    size_t w;
    int (*steps)(sim_metrics_cols *, sim_metrics_out *);
} metrics_fixed[] = { { 12, metrics_w12 }, { 16, metrics_w16 }, { 20, metrics_w20 } };

static int metrics_any(sim_metrics_cols *c, sim_metrics_out *out)
{
    const keyfmt f = { .w = c->key_bytes, .u64 = 0 };
    for (size_t i = 0; i < sizeof metrics_fixed / sizeof *metrics_fixed; i++)
        if (metrics_fixed[i].w == f.w) return metrics_fixed[i].steps(c, out);
    return metrics_steps(c, &f, out);
}

/* The checks, then the steps in the copy for c's key format. */
int sim_metrics_take(sim_metrics_cols *c, sim_metrics_out *out)
{
    memset(out, 0, sizeof *out);
    out->shard_monotonic = out->final_monotonic = 1;
    out->insert_pos_p50 = out->insert_last5_frac = -1;
    int rc = -1;
    size_t w = c->key_bytes;
    if (c->m <= 0) { rc = 0; goto done; }
    if (c->m >= (int64_t)UINT32_MAX || w > KEY_MAX || (c->key_u64 && w != sizeof(uint64_t)))
        goto done;
    rc = c->key_u64 ? metrics_u64(c, out) : metrics_any(c, out);
done:
    cols_free(c);
    return rc;
}

/* Copy in into columns (keys as described at the top), then sim_metrics_take. */
int sim_metrics(const sim_metrics_in *in, sim_metrics_out *out)
{
    int64_t m = in->m > 0 ? in->m : 0;
    int minw = IDB_ID_MAX, maxw = 0;
    for (int64_t i = 0; i < m; i++) {
        if (in->ids[i].len < minw) minw = in->ids[i].len;
        if (in->ids[i].len > maxw) maxw = in->ids[i].len;
    }
    int mixed = minw != maxw;
    sim_metrics_cols c = { .m = m, .key_u64 = !mixed && maxw == (int)sizeof(uint64_t),
                           .key_bytes = (size_t)maxw + (size_t)mixed, .nshards = in->nshards };
    size_t k = (size_t)(m ? m : 1);
    c.t_ns = malloc(k * sizeof *c.t_ns);
    c.keys = calloc(k, c.key_bytes ? c.key_bytes : 1);
    c.shard_c = malloc(k * sizeof *c.shard_c);
    c.shard_f = malloc(k * sizeof *c.shard_f);
    c.scratch = malloc(k * sizeof *c.scratch);
    if (!c.t_ns || !c.keys || !c.shard_c || !c.shard_f || !c.scratch) {
        cols_free(&c);
        return -1;
    }
    for (int64_t i = 0; i < m; i++) {
        uint8_t *p = key_at(&c, i);
        if (c.key_u64) {
            uint64_t v = idb_id_u64(&in->ids[i]);
            memcpy(p, &v, sizeof v);
        } else {
            memcpy(p, in->ids[i].b, in->ids[i].len);
            if (mixed) p[maxw] = in->ids[i].len;
        }
    }
    memcpy(c.t_ns, in->t_ns, (size_t)m * sizeof *c.t_ns);
    memcpy(c.shard_c, in->shard_c, (size_t)m * sizeof *c.shard_c);
    memcpy(c.shard_f, in->shard_f, (size_t)m * sizeof *c.shard_f);
    return sim_metrics_take(&c, out);
}
