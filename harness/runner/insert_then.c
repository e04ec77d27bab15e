/* insert_then.c — the second phase of `idbench insert --then STRATEGY:N` (insert_int.h:
 * idb_run_then): a scheme change mid-table.
 *
 * After the run's timed part and its statistics, with the same store handles still open
 * (a server store keeps its server, its buffer pool and its session), N more orders get IDs
 * from the second strategy and go into the same table of every shard, measured as their
 * own phase:
 *   - the orders: the run's shops (the same Zipf popularity, shop -> shard map and display
 *     counters, which go on), the workload's generator seeded with --seed ^ THEN_SEED_SALT;
 *     one instance of the second strategy per shard with its default options and the
 *     harness's placement (shard, shards, worker, dir: harness_kv.h); the run's random
 *     stream goes on, so the same seed gives the same keys;
 *   - timed as the closed loop times (idb_run_timed_loop: generation apart, each insert,
 *     each commit), the CPU time of the private servers around it;
 *   - the stores' statistics again; the counts (pages written, checkpoint pages, WAL frames
 *     and bytes, full-page images, misses, pages read, splits, extended pages, autovacuum
 *     runs) are after - before: the phase's own; the shape (leaf and branch pages, depth,
 *     fill, file, index and table bytes) is the table's after the phase; index_growth_pages
 *     the leaf + branch pages it added; the storage columns over every row of the table;
 *   - wait columns unknown (a store's wait sampling ends at the run's statistics);
 *   - locality: where each of its keys landed among every key of its shard, the run's
 *     included (idb_locality_add_packed_from); repeats counted over both phases' keys (the
 *     caller takes the run's own out).
 * The stores close once, after this phase: their closing writes count in its
 * write_bytes_per_id. The insert record (readrec.h) gets the phase's rows after the run's.
 */
#include <stdlib.h>
#include <string.h>

#include "harness_kv.h"
#include "insert_int.h"
#include "metrics.h"
#include "readrec.h"
#include "repeats.h"

#define THEN_SEED_SALT 0x7be17be17be1ULL   /* the phase's workload generator: --seed ^ this */

/* The second phase's configuration: the run's, with the second strategy, its orders, its
 * seed, and none of the run's one-off features. */
static void then_config(const idb_insert_config *cfg, idb_insert_config *c2)
{
    *c2 = *cfg;
    c2->strategy = cfg->then_strategy;
    c2->ids = cfg->then_ids;
    c2->n_strategy_kv = 0;                       /* its defaults: -o is the first's */
    c2->seed = cfg->seed ^ THEN_SEED_SALT;
    c2->kill_counter_at = 0;
    c2->series = NULL;
    c2->window = 0;
    c2->n_curve = 0;
    c2->clients = 1;
    c2->rate = 0;
    c2->commit_ms = 0;
    c2->progress = NULL;
    c2->then_strategy = NULL;
    c2->then_ids = 0;
}

/* r2 (zeroed, cfg set) on r's shops and stores: its own instances, keys and latencies. */
static int then_alloc(run *r, run *r2, idb_err *err)
{
    const idb_insert_config *c2 = r2->cfg;
    r2->zipf = r->zipf;                          /* shared: r frees them */
    r2->shop_shard = r->shop_shard;
    r2->shop_orders = r->shop_orders;
    r2->width = r->width;
    r2->dev = r->dev;
    r2->rec = r->rec;
    r2->shards = calloc((size_t)c2->shards, sizeof *r2->shards);
    r2->lat = c2->store->model ? NULL : malloc((size_t)c2->ids * sizeof *r2->lat);
    r2->commit_lat =
        malloc((size_t)((c2->ids / c2->batch + 1) * c2->shards) * sizeof *r2->commit_lat);
    int ok = r2->shards && (r2->lat || c2->store->model) && r2->commit_lat;
    for (int k = 0; ok && k < c2->shards; k++) {
        r2->shards[k].store = r->shards[k].store;
        r2->shards[k].cap = c2->ids / c2->shards + 1;
        ok = (r2->shards[k].keys = malloc((size_t)r2->shards[k].cap * (size_t)r2->width)) != NULL;
    }
    if (!ok) return idb_fail(err, IDB_ENOMEM, "out of memory for %lld IDs", c2->ids);
    int rc = 0;
    for (int k = 0; k < c2->shards && !rc; k++) {
        idb_harness_kv kv;
        rc = idb_insert_shard_kv(c2, NULL, k, &kv, err);
        if (!rc)
            rc = idb_strategy_create_kv(c2->strategy, kv.kv, kv.n,
                                        idb_run_shard_clock(c2->store, &r2->shards[k]),
                                        &r2->shards[k].inst, err);
    }
    return rc;
}

/* Free r2's own parts (not the stores, shops or record, which are r's). */
static void then_free(run *r2)
{
    for (int k = 0; r2->shards && k < r2->cfg->shards; k++) {
        if (r2->shards[k].inst) r2->cfg->strategy->destroy(r2->shards[k].inst);
        free(r2->shards[k].keys);
    }
    free(r2->shards);
    free(r2->lat);
    free(r2->commit_lat);
}

/* The phase's counts from the cumulative statistics in then->st: less first's. */
static void then_counts(idb_insert_result *then, const idb_insert_result *first, long long ids)
{
    idb_store_stats *a = &then->st;
    const idb_store_stats *b = &first->st;
    int64_t *now[] = { &a->pages_written, &a->checkpoint_pages, &a->wal_frames,
                       &a->cache_misses, &a->read_pages, &a->splits, &a->wal_bytes, &a->fpi,
                       &a->extend_pages, &a->autovacuum_runs };
    const int64_t was[] = { b->pages_written, b->checkpoint_pages, b->wal_frames,
                            b->cache_misses, b->read_pages, b->splits, b->wal_bytes, b->fpi,
                            b->extend_pages, b->autovacuum_runs };
    for (size_t i = 0; i < sizeof was / sizeof *was; i++)
        *now[i] = *now[i] < 0 || was[i] < 0 ? -1 : *now[i] - was[i];
    then->wal_bytes_per_id = a->wal_bytes < 0 ? -1 : (double)a->wal_bytes / (double)ids;
    then->fpi_per_id = a->fpi < 0 ? -1 : (double)a->fpi / (double)ids;
    then->splits_per_id = a->splits < 0 ? -1 : (double)a->splits / (double)ids;
    a->waits = (idb_store_waits){ .kind = IDB_WAITS_NONE };
}

/* Shard k's keys of both phases, the run's first, into one buffer (malloc'd) of n keys. */
static uint8_t *both_phases(const run *r, const run *r2, int k, int64_t *n)
{
    size_t w = (size_t)r->width, n1 = (size_t)r->shards[k].nkeys, n2 = (size_t)r2->shards[k].nkeys;
    uint8_t *buf = malloc((n1 + n2 ? n1 + n2 : 1) * w);
    if (!buf) return NULL;
    if (n1) memcpy(buf, r->shards[k].keys, n1 * w);
    if (n2) memcpy(buf + n1 * w, r2->shards[k].keys, n2 * w);
    *n = (int64_t)(n1 + n2);
    return buf;
}

/* The phase's latencies, locality among every key of its shards, and repeats over both
 * phases (sorted copies; r's keys stay in their order for the run's own figures). */
static int then_keys(const run *r, run *r2, idb_insert_result *then, idb_err *err)
{
    int shards = r->cfg->shards;
    then->lat_p50_ns = idb_percentile(r2->lat, r2->nlat, 0.50);
    then->lat_p99_ns = idb_percentile(r2->lat, r2->nlat, 0.99);
    then->lat_p999_ns = idb_percentile(r2->lat, r2->nlat, 0.999);
    then->lat_max_ns = idb_percentile(r2->lat, r2->nlat, 1.0);
    then->commit_p99_ns = idb_percentile(r2->commit_lat, r2->ncommits, 0.99);
    idb_locality loc;
    uint8_t **lists = calloc((size_t)shards, sizeof *lists);
    int64_t *counts = calloc((size_t)shards, sizeof *counts);
    int rc = lists && counts && idb_locality_init(&loc, r2->cfg->ids) == 0 ? 0
           : idb_fail(err, IDB_ENOMEM, "out of memory");
    if (rc) {
        free(lists);
        free(counts);
        return rc;
    }
    for (int k = 0; k < shards && !rc; k++) {
        lists[k] = both_phases(r, r2, k, &counts[k]);
        if (!lists[k] || idb_locality_add_packed_from(&loc, lists[k], r->width, counts[k],
                                                      r->shards[k].nkeys))
            rc = idb_fail(err, IDB_ENOMEM, "out of memory");
        else
            idb_keys_sort(lists[k], counts[k], r->width);
    }
    then->order_breaks = 0;
    for (int k = 0; k < shards; k++) then->order_breaks += r2->shards[k].breaks;
    then->tail_insert_frac = idb_locality_tail_frac(&loc);
    then->insert_pos_p50 = idb_locality_pos_p50(&loc);
    memcpy(then->pos_hist, loc.hist, sizeof loc.hist);
    idb_locality_free(&loc);
    then->duplicate_ids = rc ? -1 : idb_repeats_merged(lists, counts, shards, r->width);
    if (!rc && then->duplicate_ids < 0) rc = idb_fail(err, IDB_ENOMEM, "out of memory");
    for (int k = 0; k < shards; k++) free(lists[k]);
    free(lists);
    free(counts);
    return rc;
}

int idb_run_then(run *r, const idb_insert_result *first, idb_insert_result *then,
                 idb_err *err)
{
    idb_insert_config c2;
    then_config(r->cfg, &c2);
    run r2 = { .cfg = &c2 };
    then->phase = 1;
    then->key_bytes = r->width;
    then->store_opts = first->store_opts;
    then->clients = 1;
    then->rate_per_s = then->counter_down_ms = -1;
    then->order_lat_p50_ns = then->order_lat_p99_ns = -1;
    then->order_lat_p999_ns = then->order_lat_max_ns = -1;
    then->wait_share = then->wait_ns_per_order = then->wait_share_none = -1;
    for (int c = 0; c < IDB_WAIT_CLASSES; c++) then->wait_share_by[c] = -1;
    int rc = then_alloc(r, &r2, err);
    int64_t cpu0 = idb_run_server_cpu_ns(&r2);
    if (!rc) rc = idb_run_timed_loop(&r2, then, err);
    int64_t cpu1 = idb_run_server_cpu_ns(&r2);
    then->server_cpu_ns_per_order = cpu0 < 0 || cpu1 < 0 ? -1
                                  : (double)(cpu1 - cpu0) / (double)c2.ids;
    if (!rc) then->achieved_per_s = (double)c2.ids / then->seconds;
    if (!rc) rc = idb_run_collect_stores(&r2, then, err);     /* cumulative since open */
    if (!rc) {
        then_counts(then, first, c2.ids);
        idb_run_storage(then, c2.strategy->bits / 8, first->rows_held + c2.ids, first);
        then->modelled_device_s = idb_device_seconds(&r->dev, then->st.read_pages,
                                                     then->st.pages_written);
        double busy = c2.store->model ? 0 : (double)c2.ids / then->inserts_per_s;
        then->modelled_inserts_per_s = then->modelled_device_s < 0 ? -1
                                     : (double)c2.ids / (busy + then->modelled_device_s);
        rc = then_keys(r, &r2, then, err);
    }
    if (!rc && c2.store->model) idb_run_blank_model_times(then);
    then_free(&r2);
    return rc;
}
