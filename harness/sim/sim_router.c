/* sim_router.c — the simulator's router by ID (range, hash) and the shares of inserts per
 * shard (the model: sim_router.h). */
#include "sim_router.h"

#include <stdlib.h>
#include <string.h>

#include "select_kth.h"

/* splitmix64's finaliser. */
static uint64_t mix64(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* One order in `every`, by a hash of its number (see sim_router.h). */
int sim_router_sampled(int64_t j, int64_t every)
{
    return every <= 1 || mix64((uint64_t)j ^ UINT64_C(0x5a4d504c45)) % (uint64_t)every == 0;
}

/* The hash router's shard (see sim_router.h). */
int sim_router_hash_shard(const idb_id *id, int shards)
{
    uint64_t h = 0;
    for (int at = 0; at < id->len; at += 8) {
        uint64_t word = 0;
        for (int i = 0; i < 8; i++) word = word << 8 | (at + i < id->len ? id->b[at + i] : 0);
        h = mix64(h ^ word);
    }
    return (int)(h % (uint64_t)shards);
}

/* The 64 bits of be (len bytes) from bit `lead` on (0: the first), zero-padded. */
uint64_t sim_router_key(const sim_router *r, const uint8_t *be, int len)
{
    int at = r->lead / 8, sh = r->lead % 8;
    uint64_t k = 0;
    for (int i = 0; i < 8; i++) k = k << 8 | (at + i < len ? be[at + i] : 0);
    if (sh) k = k << sh | (at + 8 < len ? be[at + 8] : 0) >> (8 - sh);
    return k;
}

/* The same for the native value of an 8-byte ID. */
uint64_t sim_router_key_u64(const sim_router *r, uint64_t v)
{
    return r->lead ? v << r->lead : v;
}

/* Make room for one more range. Returns 0 or -1. */
static int grow(sim_router *r)
{
    if (r->n < r->cap) return 0;
    int64_t cap = r->cap ? 2 * r->cap : 16;
    uint64_t *lo = realloc(r->lo, (size_t)cap * sizeof *lo);
    if (lo) r->lo = lo;
    uint16_t *owner = realloc(r->owner, (size_t)cap * sizeof *owner);
    if (owner) r->owner = owner;
    int64_t *rows = realloc(r->rows, (size_t)cap * sizeof *rows);
    if (rows) r->rows = rows;
    int64_t *limit = realloc(r->limit, (size_t)cap * sizeof *limit);
    if (limit) r->limit = limit;
    if (!lo || !owner || !rows || !limit) return -1;
    r->cap = cap;
    return 0;
}

/* Ranges at the equal slices or at bounds (see sim_router.h). */
int sim_router_init(sim_router *r, const sim_workload *w, const idb_strategy *st,
                    const uint64_t *bounds, idb_err *err)
{
    memset(r, 0, sizeof *r);
    r->routing = (int)w->routing;
    r->shards = (int)w->shards;
    r->lead = st->bits - idb_strategy_value_bits(st);
    r->max_rows = w->range_max_rows;
    r->load = calloc((size_t)r->shards, sizeof *r->load);
    if (!r->load) return idb_fail(err, IDB_ENOMEM, "out of memory for the router");
    if (r->routing != SIM_ROUTE_RANGE) return 0;
    uint64_t b = (uint64_t)r->shards, q = UINT64_MAX / b, rem = UINT64_MAX % b + 1;
    if (rem == b) { q++; rem = 0; }                      /* 2^64 = b q + rem */
    for (int k = 0; k < r->shards; k++) {
        if (grow(r) != 0) return idb_fail(err, IDB_ENOMEM, "out of memory for the router");
        uint64_t kk = (uint64_t)k;
        r->lo[k] = k == 0 ? 0 : bounds ? bounds[k - 1] : kk * q + (kk * rem + b - 1) / b;
        r->owner[k] = (uint16_t)k;
        r->rows[k] = 0;
        r->limit[k] = r->max_rows;
        r->n++;
    }
    if (r->max_rows > 0 && !(r->scratch = malloc(SIM_SPLIT_SCAN * sizeof *r->scratch)))
        return idb_fail(err, IDB_ENOMEM, "out of memory for the router");
    return 0;
}

/* Free everything (see sim_router.h). */
void sim_router_free(sim_router *r)
{
    free(r->lo); free(r->owner); free(r->rows); free(r->limit); free(r->load); free(r->scratch);
    memset(r, 0, sizeof *r);
}

/* The range holding key k: the last whose low bound is at or below it. */
static int64_t find_range(const sim_router *r, uint64_t k)
{
    int64_t lo = 0, hi = r->n - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (r->lo[mid] <= k) lo = mid; else hi = mid - 1;
    }
    return lo;
}

/* Route one row (see sim_router.h). */
int sim_router_route(sim_router *r, const idb_id *id, int64_t *range)
{
    *range = -1;
    if (r->routing == SIM_ROUTE_HASH) return sim_router_hash_shard(id, r->shards);
    int64_t i = find_range(r, sim_router_key(r, id->b, id->len));
    r->rows[i]++;
    r->load[r->owner[i]]++;
    *range = i;
    return r->owner[i];
}

/* 1 when range i is over its limit (see sim_router.h). */
int sim_router_over(const sim_router *r, int64_t i)
{
    return r->max_rows > 0 && i >= 0 && r->rows[i] > r->limit[i];
}

/* The shard range k lives on now (see sim_router.h). */
int sim_router_owner(const sim_router *r, uint64_t k)
{
    return r->owner[find_range(r, k)];
}

/* The k-th smallest in place (select_kth.h). */
SIM_SELECT_KTH(select_u64, uint64_t)

/* The routing key of record k of the keys (see sim_router.h). */
uint64_t sim_router_key_at(const sim_router *r, const uint8_t *keys, size_t kb, int u64,
                           int64_t k)
{
    const uint8_t *p = keys + (size_t)k * kb;
    if (!u64) return sim_router_key(r, p, (int)kb);
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return sim_router_key_u64(r, v);
}

/* The shard with the fewest rows (the lowest number on a tie). */
static int least_loaded(const sim_router *r)
{
    int best = 0;
    for (int s = 1; s < r->shards; s++)
        if (r->load[s] < r->load[best]) best = s;
    return best;
}

/* Split range i at its median (see sim_router.h). */
int sim_router_split(sim_router *r, int64_t i, const uint8_t *keys, size_t key_bytes,
                     int key_u64, int64_t m, idb_err *err)
{
    uint64_t lo = r->lo[i], hi = i + 1 < r->n ? r->lo[i + 1] : 0;
    int has_hi = i + 1 < r->n;
    int64_t rows = r->rows[i], every = (rows + SIM_SPLIT_SCAN - 1) / SIM_SPLIT_SCAN, seen = 0;
    int64_t got = 0;
    for (int64_t k = 0; k < m && got < SIM_SPLIT_SCAN; k++) {
        uint64_t v = sim_router_key_at(r, keys, key_bytes, key_u64, k);
        if (v >= lo && (!has_hi || v < hi) && seen++ % every == 0) r->scratch[got++] = v;
    }
    if (got == 0) { r->limit[i] = 2 * rows; return 0; }
    select_u64(r->scratch, got, got / 2);
    uint64_t mid = r->scratch[got / 2];
    if (mid == lo) { r->limit[i] = 2 * rows; return 0; }     /* try again when doubled */
    int64_t left = 0;
    for (int64_t k = 0; k < m; k++) {
        uint64_t v = sim_router_key_at(r, keys, key_bytes, key_u64, k);
        left += v >= lo && v < mid;
    }
    if (r->n >= SIM_MAX_RANGES || grow(r) != 0)
        return idb_fail(err, IDB_ENOMEM, "range routing: more than %d ranges", SIM_MAX_RANGES);
    size_t tail = (size_t)(r->n - i - 1);
    memmove(r->lo + i + 2, r->lo + i + 1, tail * sizeof *r->lo);
    memmove(r->owner + i + 2, r->owner + i + 1, tail * sizeof *r->owner);
    memmove(r->rows + i + 2, r->rows + i + 1, tail * sizeof *r->rows);
    memmove(r->limit + i + 2, r->limit + i + 1, tail * sizeof *r->limit);
    r->n++;
    int64_t right = rows - left;
    r->load[r->owner[i]] -= right;
    int to = least_loaded(r);
    r->load[to] += right;
    r->lo[i + 1] = mid;
    r->owner[i + 1] = (uint16_t)to;
    r->rows[i] = left;
    r->rows[i + 1] = right;
    r->limit[i] = r->limit[i + 1] = r->max_rows;
    r->splits++;
    return 0;
}

/* qsort order of keys. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Split points at the sample's quantiles (see sim_router.h). */
void sim_router_bounds(uint64_t *sample, int64_t n, int shards, uint64_t *bounds)
{
    if (n > 1) qsort(sample, (size_t)n, sizeof *sample, cmp_u64);
    uint64_t prev = 0;
    for (int k = 1; k < shards; k++) {
        uint64_t b = n > 0 ? sample[(int64_t)k * n / shards] : 0;
        if (b <= prev && prev < UINT64_MAX) b = prev + 1;   /* increasing, above 0 */
        bounds[k - 1] = prev = b;
    }
}

/* Counters for shards slots (see sim_router.h). */
int sim_shares_init(sim_shares *s, int shards, int64_t seconds, int timeline, idb_err *err)
{
    memset(s, 0, sizeof *s);
    s->shards = shards;
    s->seconds = seconds > 0 ? seconds : 1;
    s->sec = -1;
    s->total = calloc((size_t)shards, sizeof *s->total);
    s->cur = calloc((size_t)shards, sizeof *s->cur);
    s->sec_max = calloc((size_t)s->seconds, sizeof *s->sec_max);
    int ok = s->total && s->cur && s->sec_max;
    if (timeline) {
        s->tl = calloc((size_t)s->seconds * (size_t)shards, sizeof *s->tl);
        s->tl_ranges = calloc((size_t)s->seconds, sizeof *s->tl_ranges);
        ok = ok && s->tl && s->tl_ranges;
    }
    return ok ? 0 : idb_fail(err, IDB_ENOMEM, "out of memory for the shares per second");
}

/* Close second s->sec: its largest share. */
static void close_second(sim_shares *s)
{
    int64_t sum = 0, max = 0;
    for (int k = 0; k < s->shards; k++) {
        sum += s->cur[k];
        if (s->cur[k] > max) max = s->cur[k];
        s->cur[k] = 0;
    }
    if (sum > 0) s->sec_max[s->nsec++] = (double)max / (double)sum;
}

/* Count one insert (see sim_router.h). */
void sim_shares_add(sim_shares *s, int64_t sec, int shard, int64_t ranges)
{
    if (sec >= s->seconds) sec = s->seconds - 1;
    if (sec != s->sec) {
        if (s->sec >= 0) close_second(s);
        s->sec = sec;
    }
    s->cur[shard]++;
    s->total[shard]++;
    if (s->tl) {
        s->tl[sec * s->shards + shard]++;
        s->tl_ranges[sec] = (int32_t)ranges;
    }
}

/* qsort order of doubles. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* hot_share and hot_share_p99 (see sim_router.h). */
void sim_shares_end(sim_shares *s, double *hot_share, double *hot_share_p99)
{
    if (s->sec >= 0) close_second(s);
    s->sec = -1;
    int64_t sum = 0, max = 0;
    for (int k = 0; k < s->shards; k++) {
        sum += s->total[k];
        if (s->total[k] > max) max = s->total[k];
    }
    *hot_share = sum ? (double)max / (double)sum : 0;
    *hot_share_p99 = 0;
    if (s->nsec == 0) return;
    qsort(s->sec_max, (size_t)s->nsec, sizeof *s->sec_max, cmp_double);
    int64_t rank = (int64_t)(0.99 * (double)s->nsec + 0.999999999);   /* nearest rank */
    *hot_share_p99 = s->sec_max[(rank < 1 ? 1 : rank) - 1];
}

/* Free (see sim_router.h). */
void sim_shares_free(sim_shares *s, int keep)
{
    free(s->total); free(s->cur); free(s->sec_max);
    if (!keep) { free(s->tl); free(s->tl_ranges); }
    s->total = s->cur = NULL;
    s->sec_max = NULL;
    s->tl = NULL;
    s->tl_ranges = NULL;
}
