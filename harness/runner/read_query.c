/* read_query.c — the read runner's range and shop queries (read.h: --pattern range:W and
 * shop[:W]): which query each one is, what the record says it must return, and one query
 * run on the shards' read handles with its rows checked against that.
 *
 * t_end is the newest created_ms of the record; a window W keeps created_ms >= t_end - W.
 * range:W (every query the same: the shop's dashboard of the last W): on a time-ordered
 * strategy (its declared time_ordered) by the ID's own index: on each shard id >= the
 * smallest ID among that shard's rows in the window (the bound an application derives from
 * the window's start time, here taken from the record), created_ms >= the start too, so the
 * answer is exactly the window's rows however roughly the IDs follow time; a shard with no
 * row in the window is not asked. Otherwise by the index on created_ms, which the insert run
 * must have made (-s secondary_created=1). shop[:W]: query i asks for the orders of the shop
 * of a row drawn uniformly from the record (popular shops asked more, as they order more),
 * created_ms >= t_end - W (no W: all of them), on the shard that holds that shop, by the
 * index on (shop, created_ms) (-s secondary_shop=1).
 * Each query's rows must all satisfy its predicate, and their number and the sum of a hash
 * of each row's fields must be the record's for that predicate: else IDB_EIO.
 */
#include <stdlib.h>
#include <string.h>

#include "random.h"
#include "read.h"

#define QUERY_SALT 0x9e3779b97f4a7c15ULL   /* the shop draws' generator: --seed ^ this */

/* A hash of row's ID and fields (splitmix64 steps over FNV-1a of the ID), summed over a
 * query's rows: the same set of rows gives the same sum whatever their order. */
static uint64_t row_hash(const idb_row *row)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int i = 0; i < row->id.len; i++) h = (h ^ row->id.b[i]) * 0x100000001b3ULL;
    const uint64_t f[] = { row->shop, row->display_no, (uint64_t)row->created_ms,
                           (uint64_t)row->total_cents };
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        h += f[i] + 0x9e3779b97f4a7c15ULL;
        h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
        h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
        h ^= h >> 31;
    }
    return h;
}

/* 1 when row is in query q's answer. */
static int matches(const idb_query *q, const idb_row *row)
{
    if (row->created_ms < q->created_lo) return 0;
    if (q->kind == IDB_QUERY_SHOP) return row->shop == q->shop;
    return q->kind != IDB_QUERY_ID_FROM || idb_id_cmp(&row->id, &q->id_lo) >= 0;
}

/* The index a query needs, made by the insert run: 1 when store option name is 1. */
static int has_index(const idb_store *st, const idb_opts *o, const char *name)
{
    return idb_opts_declared(st->options, name) && idb_opts_int(o, name) == 1;
}

/* The record's expectations of every shard (range) or shop (shop) into q. */
static int expect(const idb_readrec *rec, idb_read_queries *q, idb_err *err)
{
    uint32_t shops = 0;
    for (int64_t i = 0; i < rec->rows; i++) {
        idb_row row;
        int k;
        idb_readrec_get(rec, i, &row, &k);
        if (row.shop >= shops) shops = row.shop + 1;
    }
    q->nshops = shops;
    q->per_shard = calloc((size_t)rec->shards, sizeof *q->per_shard);
    q->per_shop = calloc(shops + 1, sizeof *q->per_shop);
    q->shop_shard = calloc(shops + 1, sizeof *q->shop_shard);
    q->id_lo = calloc((size_t)rec->shards, sizeof *q->id_lo);
    if (!q->per_shard || !q->per_shop || !q->shop_shard || !q->id_lo)
        return idb_fail(err, IDB_ENOMEM, "out of memory");
    for (int64_t i = 0; i < rec->rows; i++) {
        idb_row row;
        int k;
        idb_readrec_get(rec, i, &row, &k);
        q->shop_shard[row.shop] = k;
        if (row.created_ms < q->created_lo) continue;
        idb_read_expect *e = q->kind == IDB_QUERY_SHOP ? &q->per_shop[row.shop] : &q->per_shard[k];
        e->rows++;
        e->sum += row_hash(&row);
        if (!q->id_lo[k].len || idb_id_cmp(&row.id, &q->id_lo[k]) < 0) q->id_lo[k] = row.id;
    }
    return 0;
}

int idb_read_queries_make(const idb_readrec *rec, const idb_read_config *cfg,
                          const idb_opts *opts, int time_ordered, idb_read_queries *q,
                          idb_err *err)
{
    const idb_store *st = cfg->store;
    memset(q, 0, sizeof *q);
    if (st->version < 4 || !st->query)
        return idb_fail(err, IDB_EINPUT, "read: store %s has no range or shop queries", st->name);
    if (rec->rows < 1) return idb_fail(err, IDB_EINPUT, "read: the insert record holds no rows");
    int64_t t_end = INT64_MIN;
    for (int64_t i = 0; i < rec->rows; i++) {
        idb_row row;
        int k;
        idb_readrec_get(rec, i, &row, &k);
        if (row.created_ms > t_end) t_end = row.created_ms;
    }
    q->shards = rec->shards;
    q->created_lo = cfg->window_ms < 0 ? INT64_MIN : t_end - cfg->window_ms;
    if (cfg->pattern == IDB_READ_SHOP) {
        q->kind = IDB_QUERY_SHOP;
        if (!has_index(st, opts, "secondary_shop"))
            return idb_fail(err, IDB_EINPUT, "read: --pattern shop needs the index on (shop, "
                            "created_ms): insert with -s secondary_shop=1");
    } else {
        q->kind = time_ordered ? IDB_QUERY_ID_FROM : IDB_QUERY_CREATED_FROM;
        if (!time_ordered && !has_index(st, opts, "secondary_created"))
            return idb_fail(err, IDB_EINPUT, "read: --pattern range on %s (not time-ordered) "
                            "needs the index on created_ms: insert with -s secondary_created=1",
                            rec->strategy);
    }
    int rc = expect(rec, q, err);
    if (rc || q->kind != IDB_QUERY_SHOP) return rc;
    if (!(q->shop_of = malloc((size_t)cfg->lookups * sizeof *q->shop_of)))
        return idb_fail(err, IDB_ENOMEM, "out of memory");
    idb_rng rng;
    idb_rng_seed(&rng, cfg->seed ^ QUERY_SALT);
    for (int64_t i = 0; i < cfg->lookups; i++) {
        idb_row row;
        int k;
        idb_readrec_get(rec, (int64_t)idb_rng_below(&rng, (uint64_t)rec->rows), &row, &k);
        q->shop_of[i] = row.shop;
    }
    return 0;
}

/* What one query's rows added up to, and whether one fell outside it. */
typedef struct qrun {
    const idb_query *q;
    idb_read_expect got;
    int outside;
} qrun;

/* The store's row callback: count and check row. */
static int take(void *ctx, const idb_row *row)
{
    qrun *r = ctx;
    if (!matches(r->q, row)) r->outside++;
    r->got.rows++;
    r->got.sum += row_hash(row);
    return 0;
}

/* Run q on shard k's handle h and compare with e. */
static int run_one(const idb_store *st, void *h, int k, const idb_query *q,
                   const idb_read_expect *e, int64_t *rows, idb_err *err)
{
    qrun r = { .q = q };
    int rc = st->query(h, q, take, &r, err);
    if (rc) return rc;
    *rows += r.got.rows;
    if (r.outside)
        return idb_fail(err, IDB_EIO, "read: %s: shard %d: the query returned %d rows outside "
                        "its bounds", st->name, k, r.outside);
    if (r.got.rows != e->rows || r.got.sum != e->sum)
        return idb_fail(err, IDB_EIO, "read: %s: shard %d: the query returned %lld rows, not "
                        "the %lld rows insert wrote there", st->name, k,
                        (long long)r.got.rows, (long long)e->rows);
    return 0;
}

int idb_read_queries_run(const idb_read_queries *q, const idb_store *st, void *const *h,
                         int64_t i, int64_t *rows, idb_err *err)
{
    idb_query one = { .kind = q->kind, .created_lo = q->created_lo };
    if (q->kind == IDB_QUERY_SHOP) {
        one.shop = q->shop_of[i];
        int k = q->shop_shard[one.shop];
        return run_one(st, h[k], k, &one, &q->per_shop[one.shop], rows, err);
    }
    for (int k = 0; k < q->shards; k++) {
        if (q->kind == IDB_QUERY_ID_FROM && !q->id_lo[k].len) continue;   /* none there */
        one.id_lo = q->id_lo[k];
        int rc = run_one(st, h[k], k, &one, &q->per_shard[k], rows, err);
        if (rc) return rc;
    }
    return 0;
}

void idb_read_queries_free(idb_read_queries *q)
{
    free(q->per_shard);
    free(q->per_shop);
    free(q->shop_shard);
    free(q->id_lo);
    free(q->shop_of);
    memset(q, 0, sizeof *q);
}
