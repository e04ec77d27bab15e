/* read_keys.c — the read runner's plan: which IDs its lookups ask for (see read.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "random.h"
#include "read.h"

#define PLAN_SALT 0x7ead7ead7eadULL      /* the plan's generator: --seed ^ this */
#define PCT 100.0
#define MISS_TRIES 1000                  /* draws of a missing ID before giving up */

int idb_read_check(const idb_read_config *cfg, idb_err *err)
{
    if (cfg->lookups < 1) return idb_fail(err, IDB_EINPUT, "read: -n must be at least 1");
    int query = cfg->pattern == IDB_READ_RANGE || cfg->pattern == IDB_READ_SHOP;
    if (query && (cfg->miss_share != 0 || cfg->window_ms < -1 ||
                  (cfg->pattern == IDB_READ_RANGE && cfg->window_ms < 0)))
        return idb_fail(err, IDB_EINPUT, "read: range:W needs a window W >= 0; --miss-share is "
                        "for point lookups");
    if (query) return 0;
    if (cfg->pattern != IDB_READ_UNIFORM && !(cfg->recent_pct > 0 && cfg->recent_pct <= PCT))
        return idb_fail(err, IDB_EINPUT, "read: recent H must be in (0, 100]");
    if (cfg->pattern == IDB_READ_MIXED && !(cfg->mixed_pct >= 0 && cfg->mixed_pct <= PCT))
        return idb_fail(err, IDB_EINPUT, "read: mixed P must be in [0, 100]");
    if (!(cfg->miss_share >= 0 && cfg->miss_share <= 1))
        return idb_fail(err, IDB_EINPUT, "read: --miss-share must be in [0, 1]");
    return 0;
}

int64_t idb_read_recent_from(int64_t rows, double pct)
{
    int64_t k = (int64_t)ceil((double)rows * pct / PCT);
    if (k < 1) k = 1;
    if (k > rows) k = rows;
    return rows - k;
}

/* The IDs of the record, sorted, for the misses' collision check: width bytes each. */
typedef struct id_set {
    uint8_t *ids;
    size_t w;
    int64_t n;
} id_set;

/* Whole-ID order of a and b, w bytes each (qsort_r). */
static int cmp_ids(const void *a, const void *b, void *w)
{
    return memcmp(a, b, *(const size_t *)w);
}

/* Every ID of rec into s, sorted. 0 or -1 (out of memory). */
static int set_make(const idb_readrec *rec, id_set *s)
{
    s->w = (size_t)rec->width;
    s->n = rec->rows;
    if (!(s->ids = malloc((size_t)rec->rows * s->w + 1))) return -1;
    for (int64_t i = 0; i < rec->rows; i++)
        memcpy(s->ids + (size_t)i * s->w, rec->data + (size_t)(i + 1) * rec->entry - s->w, s->w);
    qsort_r(s->ids, (size_t)s->n, s->w, cmp_ids, &s->w);
    return 0;
}

/* 1 when key (s->w bytes) is one of s's IDs. */
static int set_has(const id_set *s, const uint8_t *key)
{
    int64_t lo = 0, hi = s->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int c = memcmp(s->ids + (size_t)mid * s->w, key, s->w);
        if (c == 0) return 1;
        if (c < 0) lo = mid + 1; else hi = mid;
    }
    return 0;
}

/* A random ID of s's width that is none of s's IDs into *id (its top bit clear, so it is
 * a valid rowid on SQLite's INTEGER PRIMARY KEY too). IDB_EIO when MISS_TRIES draws all
 * collide (an ID space nearly full: 1-byte keys). */
static int miss_id(const id_set *s, idb_rng *rng, idb_id *id, idb_err *err)
{
    id->len = (uint8_t)s->w;
    for (int t = 0; t < MISS_TRIES; t++) {
        for (size_t i = 0; i < s->w; i++) id->b[i] = (uint8_t)idb_rng_next(rng);
        id->b[0] &= 0x7f;
        if (!set_has(s, id->b)) return 0;
    }
    return idb_fail(err, IDB_EIO, "read: no ID of %zu bytes found outside the run's IDs",
                    s->w);
}

/* 1 when lookup i of a plan with miss share f looks up a missing ID. */
static int is_miss(int64_t i, double f)
{
    return floor((double)(i + 1) * f) > floor((double)i * f);
}

int idb_read_plan(const idb_readrec *rec, const idb_read_config *cfg, idb_read_lookup *out,
                  idb_err *err)
{
    if (rec->rows < 1) return idb_fail(err, IDB_EINPUT, "read: the insert record holds no rows");
    id_set s = { 0 };
    if (cfg->miss_share > 0 && set_make(rec, &s) != 0)
        return idb_fail(err, IDB_ENOMEM, "out of memory for %lld IDs", (long long)rec->rows);
    idb_rng rng;
    idb_rng_seed(&rng, cfg->seed ^ PLAN_SALT);
    int64_t n = rec->rows, from = idb_read_recent_from(n, cfg->recent_pct);
    int rc = 0;
    for (int64_t i = 0; i < cfg->lookups && !rc; i++) {
        out[i].index = -1;
        if (cfg->miss_share > 0 && is_miss(i, cfg->miss_share)) {
            rc = miss_id(&s, &rng, &out[i].miss, err);
            continue;
        }
        int recent = cfg->pattern == IDB_READ_RECENT ||
                     (cfg->pattern == IDB_READ_MIXED &&
                      idb_rng_double(&rng) * PCT < cfg->mixed_pct);
        out[i].index = recent ? from + (int64_t)idb_rng_below(&rng, (uint64_t)(n - from))
                              : (int64_t)idb_rng_below(&rng, (uint64_t)n);
    }
    free(s.ids);
    return rc;
}
