/* sim_metrics.c — duplicates, inversions, per-shard order and tail inserts of a simulated
 * run (definitions in sim_metrics.h). Sorting is LSD radix on 64-bit keys with 16-bit
 * digits (digits that are the same for every key are skipped); an ID is sorted as its
 * length and its 8-byte words, so any width works and a run of a million orders is
 * measured in tens of milliseconds.
 */
#include "sim_metrics.h"

#include <stdlib.h>
#include <string.h>

typedef struct kp {
    uint64_t key;
    uint32_t idx;
    uint32_t pad;
} kp;

#define DIGITS 4
#define RADIX 65536

/* Stable sort of a[0..n) by key; tmp holds n entries, cnt DIGITS * RADIX counters. */
static void radix_sort(kp *a, kp *tmp, int64_t n, uint32_t *cnt)
{
    if (n < 2) return;
    memset(cnt, 0, sizeof *cnt * DIGITS * RADIX);
    for (int64_t i = 0; i < n; i++) {
        uint64_t k = a[i].key;
        for (int d = 0; d < DIGITS; d++) cnt[d * RADIX + ((k >> (16 * d)) & 0xFFFF)]++;
    }
    kp *src = a, *dst = tmp;
    for (int d = 0; d < DIGITS; d++) {
        uint32_t *c = cnt + d * RADIX;
        if (c[(src[0].key >> (16 * d)) & 0xFFFF] == (uint32_t)n) continue;   /* constant digit */
        uint32_t sum = 0;
        for (int v = 0; v < RADIX; v++) { uint32_t x = c[v]; c[v] = sum; sum += x; }
        for (int64_t i = 0; i < n; i++) dst[c[(src[i].key >> (16 * d)) & 0xFFFF]++] = src[i];
        kp *x = src; src = dst; dst = x;
    }
    if (src != a) memcpy(a, src, (size_t)n * sizeof *a);
}

/* Bottom-up merge sort; each element taken from the right half jumps every element
 * still waiting in the left half: that many inversions (see sim_metrics.h). */
int64_t sim_count_inversions(uint32_t *a, uint32_t *tmp, int64_t n)
{
    int64_t inv = 0;
    uint32_t *src = a, *dst = tmp;
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                if (src[i] <= src[j]) dst[k++] = src[i++];
                else { inv += mid - i; dst[k++] = src[j++]; }
            }
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        uint32_t *x = src; src = dst; dst = x;
    }
    if (src != a) memcpy(a, src, (size_t)n * sizeof *a);
    return inv;
}

/* Count orders in the equal-ID run a[s..e) that share a final shard with an earlier one. */
static int64_t run_collisions(const kp *a, int64_t s, int64_t e, const uint16_t *shard_f)
{
    int64_t c = 0;
    for (int64_t i = s + 1; i < e; i++)
        for (int64_t j = s; j < i; j++)
            if (shard_f[a[i].idx] == shard_f[a[j].idx]) { c++; break; }
    return c;
}

/* Per-shard order over orders in creation order: monotonic flag and tail-insert count. */
static void shard_order(const kp *b, const uint32_t *rank, const uint16_t *shard, int64_t m,
                        int nshards, int64_t *last, int *monotonic, int64_t *tails,
                        int64_t *inserts)
{
    for (int k = 0; k < nshards; k++) last[k] = -1;     /* ranks are >= 0 */
    int64_t *maxr = last + nshards;
    for (int k = 0; k < nshards; k++) maxr[k] = -1;
    *monotonic = 1;
    *tails = *inserts = 0;
    for (int64_t i = 0; i < m; i++) {
        uint32_t idx = b[i].idx;
        int64_t r = rank[idx];
        int k = shard[idx];
        if (r <= last[k]) *monotonic = 0;
        if (maxr[k] >= 0) { (*inserts)++; if (r > maxr[k]) (*tails)++; }
        if (r > maxr[k]) maxr[k] = r;
        last[k] = r;
    }
}

/* The key of id for radix pass w: bytes 8w .. 8w+7 big-endian, bytes past id->len as 0.
 * Sorting by the length, then by each word from the last to the first, is idb_id_cmp
 * order (a shorter ID that is a prefix of a longer one pads to less or equal). */
static uint64_t id_word(const idb_id *id, int w)
{
    uint64_t v = 0;
    for (int i = 8 * w; i < 8 * w + 8; i++) v = v << 8 | (i < id->len ? id->b[i] : 0);
    return v;
}

/* a[0..m) = every order, in idb_id_cmp order of their IDs, ties in order number (stable
 * LSD radix: the length first, then the 8-byte words from the last to the first). */
static void sort_by_id(const idb_id *ids, int64_t m, kp *a, kp *tmp, uint32_t *cnt)
{
    int width = 0;
    for (int64_t i = 0; i < m; i++) {
        a[i] = (kp){ .key = ids[i].len, .idx = (uint32_t)i };
        if (ids[i].len > width) width = ids[i].len;
    }
    radix_sort(a, tmp, m, cnt);                 /* a no-op pass when every length is equal */
    for (int w = (width + 7) / 8 - 1; w >= 0; w--) {
        for (int64_t i = 0; i < m; i++) a[i].key = id_word(&ids[a[i].idx], w);
        radix_sort(a, tmp, m, cnt);
    }
}

/* Dense ranks of the IDs (rank[order]; equal IDs share one) from a in ID order; counts
 * duplicates and the collisions within a final shard. */
static void rank_ids(const sim_metrics_in *in, const kp *a, uint32_t *rank, sim_metrics_out *out)
{
    int64_t m = in->m, run = 0;
    uint32_t r = 0;
    for (int64_t i = 0; i < m; i++) {
        if (i > 0 && idb_id_cmp(&in->ids[a[i].idx], &in->ids[a[i - 1].idx]) != 0) {
            if (i - run > 1) out->shard_collisions += run_collisions(a, run, i, in->shard_f);
            r++;
            run = i;
        }
        rank[a[i].idx] = r;
    }
    if (m - run > 1) out->shard_collisions += run_collisions(a, run, m, in->shard_f);
    out->duplicates = m - ((int64_t)r + 1);
}

/* Largest time gap of an inverted pair over b (creation order, key = time): the first
 * earlier order with a higher rank is found by binary search over the running maximum of
 * ranks. Leaves the ranks in creation order in seq (pm is scratch). */
static double max_inversion_gap(const kp *b, const uint32_t *rank, int64_t m, uint32_t *seq,
                                uint32_t *pm)
{
    double gap = 0;
    for (int64_t i = 0; i < m; i++) {
        seq[i] = rank[b[i].idx];
        pm[i] = i == 0 || seq[i] > pm[i - 1] ? seq[i] : pm[i - 1];
        if (i > 0 && pm[i - 1] > seq[i]) {
            int64_t lo = 0, hi = i - 1;
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (pm[mid] > seq[i]) hi = mid; else lo = mid + 1;
            }
            double g = (double)(b[i].key - b[lo].key);
            if (g > gap) gap = g;
        }
    }
    return gap;
}

/* The six steps below, over index arrays sorted by radix (see sim_metrics.h). */
int sim_metrics(const sim_metrics_in *in, sim_metrics_out *out)
{
    int64_t m = in->m;
    memset(out, 0, sizeof *out);
    out->shard_monotonic = out->final_monotonic = 1;
    if (m <= 0) return 0;
    kp *a = malloc((size_t)m * sizeof *a), *b = malloc((size_t)m * sizeof *b);
    uint32_t *rank = malloc((size_t)m * sizeof *rank), *seq = malloc((size_t)m * sizeof *seq);
    uint32_t *pm = malloc((size_t)m * sizeof *pm);
    uint32_t *cnt = malloc(sizeof *cnt * DIGITS * RADIX);
    int64_t *last = malloc(sizeof *last * 2 * (size_t)in->nshards);
    int rc = -1;
    if (!a || !b || !rank || !seq || !pm || !cnt || !last) goto done;

    /* 1. ID order. 2. Dense ranks, duplicates, collisions within a final shard. */
    sort_by_id(in->ids, m, a, b, cnt);
    rank_ids(in, a, rank, out);

    /* 3. Creation order, ties in ID order: a is in ID order, sort it stably by time. */
    for (int64_t i = 0; i < m; i++)
        b[i] = (kp){ .key = (uint64_t)in->t_ns[a[i].idx], .idx = a[i].idx };
    radix_sort(b, a, m, cnt);

    /* 4. Per-shard order and tail inserts. */
    int64_t tails, inserts;
    shard_order(b, rank, in->shard_c, m, in->nshards, last, &out->shard_monotonic, &tails,
                &inserts);
    out->tail_insert_frac = inserts ? (double)tails / (double)inserts : 0;
    shard_order(b, rank, in->shard_f, m, in->nshards, last, &out->final_monotonic, &tails,
                &inserts);

    /* 5. Largest time gap of an inverted pair. */
    out->max_inversion_gap_ns = max_inversion_gap(b, rank, m, seq, pm);

    /* 6. Inversions of the rank sequence in creation order. */
    out->inversions = sim_count_inversions(seq, pm, m);
    out->inversion_frac =
        m > 1 ? (double)out->inversions / ((double)m * (double)(m - 1) / 2) : 0;
    rc = 0;
done:
    free(a); free(b); free(rank); free(seq); free(pm); free(cnt); free(last);
    return rc;
}
