/* insert.c — the insert runner (see insert.h).
 *
 * Per batch of `batch` orders: choose shops (not timed), generate the IDs (timed as one
 * block per batch: generation cost), insert the rows one by one (each timed by chaining
 * one monotonic clock read per row), then commit every shard's store (each commit timed).
 * Afterwards, outside the timed part (insert_collect.c): store statistics, the miss-ratio
 * curve, and where each key landed in its shard's index (locality.c).
 *
 * --then STRATEGY:N: after the run's statistics, with the stores still open, a second
 * phase into the same tables (insert_then.c); the stores close after it.
 * seconds = generation + inserts + commits; inserts_per_s = ids / (inserts + commits),
 * so the store's rate is not diluted by ID generation, which gen_ns_per_id reports.
 * Multi-shard figures: page counts, writes and misses are summed; depth is the deepest
 * shard; fill_factor is total used bytes / total leaf capacity (leaf-weighted).
 *
 * Order of a run: every check that needs no file (idb_insert_check: numbers, every store
 * and strategy option of every shard, the directory), then all memory, then the directory
 * (rundir.h: its snapshot; made when missing), every strategy instance, and only then the
 * shard directories and stores. A failure from there on removes what the run made.
 * Keys: the strategies' random draws are seeded from --seed for the run (random.h:
 * idb_random_seed_thread), so the same seed gives the same keys; each key is padded to the
 * store option key_bytes (store.h) after its generation is timed; order_breaks counts the
 * keys not above their shard's previous key, in insert order.
 * IDs made ahead: a store that cuts the key space at the quantiles of the run's own keys
 * (store.h version 3: sample_parts, the spider store's split=sample) gets every order's ID
 * before the stores open (make_ahead: generation timed into gen_ns_per_id all the same),
 * the split points after open (give_bounds), and the timed loop takes those rows in order.
 * Memory: each shard's keys (for locality) are kept at the key's own width and grow with
 * what the shard receives, so the harness's memory is linear in the IDs and does not grow
 * with the shard count: per ID, key_bytes for the keys plus 8 for its latency (none on a
 * model store, which measures no time: its latency figures are unknown), and while
 * locality runs (after the stores are closed) 8 for its position plus 12 for the shard's
 * ranks (locality.c); the keys are then sorted in place for duplicate_ids (no copy).
 */
#include "insert.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "ctrsrv.h"
#include "harness_kv.h"
#include "insert_int.h"
#include "metrics.h"
#include "openloop.h"
#include "random.h"
#include "readrec.h"
#include "repeats.h"
#include "rundir.h"
#include "series.h"
#include "waits.h"
#include "wlease.h"
#include "split.h"
#include "zipf.h"

/* Mixed into --seed for the strategies' random draws (random.h: idb_random_seed_thread),
 * apart from the workload's own generator. */
#define IDS_SEED_SALT 0x1d5eed1d5eedULL
#define NS_PER_MS 1000000LL


/* Make every shard's strategy instance, in shard order. */
static int make_instances(run *r, idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    int rc = 0;
    for (int k = 0; k < cfg->shards && !rc; k++) {
        idb_harness_kv kv;
        rc = idb_insert_shard_kv(cfg, &r->cs, k, &kv, err);
        if (!rc)
            rc = idb_strategy_create_kv(cfg->strategy, kv.kv, kv.n,
                                        idb_run_shard_clock(cfg->store, &r->shards[k]),
                                        &r->shards[k].inst, err);
    }
    return rc;
}

idb_clock *idb_run_shard_clock(const idb_store *st, shard *sh)
{
    if (!st->model) return idb_clock_real();
    idb_clock_skip_init(&sh->clock);
    return &sh->clock;
}

/* The options shard k's store opens with: the run's, plus its place when the store
 * declares the options (IDB_STORE_SHARD, IDB_STORE_SHARDS; store.h): the runner's value. */
static int place_store_opts(const idb_store *st, const idb_opts *run_opts, int k, int shards,
                            idb_opts *out, idb_err *err)
{
    static const char *const names[] = { IDB_STORE_SHARD, IDB_STORE_SHARDS };
    const int values[] = { k, shards };
    *out = *run_opts;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (!idb_opts_declared(st->options, names[i])) continue;
        char text[IDB_OPT_VALUE_MAX];
        snprintf(text, sizeof text, "%d", values[i]);
        int rc = idb_opts_set(out, names[i], text, st->name, err);
        if (rc) return rc;
    }
    return 0;
}

/* Make every shard's directory DIR/shard-K and open its store there, in shard order. */
static int open_stores(run *r, const idb_rundir *rd, const idb_opts *store_opts,
                       idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    int rc = 0;
    for (int k = 0; k < cfg->shards && !rc; k++) {
        char path[PATH_MAX];
        idb_opts placed;
        rc = idb_rundir_shard(rd, k, path, sizeof path, err);
        if (!rc) rc = place_store_opts(cfg->store, store_opts, k, cfg->shards, &placed, err);
        if (!rc) rc = cfg->store->open(path, &placed, r->width, &r->shards[k].store, err);
    }
    return rc;
}

/* Pad id to width bytes: big-endian, so leading zero bytes keep its order (key_bytes). */
static void pad_key(idb_id *id, int width)
{
    int pad = width - id->len;
    if (pad <= 0) return;
    memmove(id->b + pad, id->b, id->len);
    memset(id->b, 0, (size_t)pad);
    id->len = (uint8_t)width;
}

/* Keep id (padded to the run's key width w: pad_key) as the next key of shard sh, at its
 * own width (counting it in breaks when it is not above the shard's previous key:
 * order_breaks), growing its room (doubling, to at most `most`, the run's IDs) as it
 * fills: a shard's keys take the room of what it received. IDB_EINPUT for a key of
 * another width, IDB_ENOMEM. */
static int keep_key(shard *sh, const idb_id *id, int width, int64_t most, idb_err *err)
{
    if (id->len != width)
        return idb_fail(err, IDB_EINPUT, "a %d-byte key in a run of %d-byte keys", id->len,
                        width);
    size_t w = (size_t)width;
    if (sh->nkeys == sh->cap) {
        int64_t cap = sh->cap ? sh->cap * 2 : 64;     /* the refused keys start empty */
        if (cap > most) cap = most;
        uint8_t *keys = realloc(sh->keys, (size_t)cap * w);
        if (!keys) return idb_fail(err, IDB_ENOMEM, "out of memory for %lld keys", (long long)cap);
        sh->keys = keys;
        sh->cap = cap;
    }
    uint8_t *at = sh->keys + (size_t)sh->nkeys * w;
    if (sh->nkeys > 0 && memcmp(id->b, at - w, w) <= 0) sh->breaks++;
    memcpy(at, id->b, w);
    sh->nkeys++;
    return 0;
}

/* Close every shard (strategy instances and stores) and free the run. */
static void close_run(run *r)
{
    for (int k = 0; r->shards && k < r->cfg->shards; k++) {
        if (r->shards[k].inst) r->cfg->strategy->destroy(r->shards[k].inst);
        if (r->shards[k].store) r->cfg->store->close(r->shards[k].store);
        free(r->shards[k].keys);
    }
    free(r->refused.keys);
    if (r->rec) (void)idb_readrec_finish(r->rec, 1, &(idb_err){ 0 });   /* not renamed */
    free(r->shards);
    idb_zipf_free(&r->zipf);
    free(r->shop_shard);
    free(r->shop_orders);
    free(r->lat);
    free(r->commit_lat);
    free(r->ahead);
    free(r->ahead_shard);
    idb_series_free(r->series);
}

/* Every shard's running figures summed (series.h), all unknown without a progress hook. */
static int progress_sum(run *r, idb_store_progress *sum, idb_err *err)
{
    *sum = (idb_store_progress){ 0 };
    for (int k = 0; k < r->cfg->shards; k++) {
        idb_store_progress p = { -1, -1, -1, -1, -1 };
        int rc = r->cfg->store->progress ? r->cfg->store->progress(r->shards[k].store, &p, err)
                                         : 0;
        if (rc) return rc;
        idb_series_add(sum, &p);
    }
    return 0;
}

/* --series: close the window ending at `done` inserts (busy_ns: insert + commit time so
 * far); its counts now, or for the run's last window after the statistics (measure). */
static int series_tick(run *r, int64_t done, int64_t busy_ns, idb_err *err)
{
    int64_t start = (done - 1) / r->cfg->window * r->cfg->window;
    idb_series_window w = { .rows = done, .busy_ns = r->cfg->store->model ? -1 : busy_ns,
                            .lat = r->cfg->store->model ? NULL : r->lat + start,
                            .nlat = done - start };
    int rc = idb_series_window_end(r->series, &w, err);
    if (rc || done == r->cfg->ids) return rc;
    idb_store_progress cum;
    if (!(rc = progress_sum(r, &cum, err))) rc = idb_series_counts(r->series, &cum, err);
    return rc;
}

/* The next order of the workload into *row (its ID not yet made) and its shard: a shop
 * drawn from the Zipf popularity, the shop's next display number, a total. */
static void draw_row(run *r, idb_rng *rng, int64_t created_ms, idb_row *row, int *row_shard)
{
    int64_t shop = idb_zipf_draw(&r->zipf, rng);
    *row_shard = r->shop_shard[shop];
    *row = (idb_row){ .shop = (uint32_t)shop, .display_no = 1000 + ++r->shop_orders[shop],
                      .created_ms = created_ms,
                      .total_cents = (int64_t)idb_rng_below(rng, 50000) };
}

/* Insert row into shard k's store (autoinc: the key the store assigns written into row).
 * With a counter server or leased workers, a key the store refuses is an ID handed out
 * twice to that shard: counted (*dup = 1: duplicate_rows), not the end of the run. */
static int insert_row(run *r, int k, idb_row *row, int *dup, idb_err *err)
{
    *dup = 0;
    const idb_store *st = r->cfg->store;
    int rc = r->cfg->strategy->store_assigned
           ? st->insert_assigned(r->shards[k].store, row, err)
           : st->insert(r->shards[k].store, row, err);
    if (rc == IDB_EINPUT && (r->cs.backend != 0 || r->wl)) {
        r->dups++;
        *dup = 1;
        return 0;
    }
    return rc;
}

/* The timed part: every batch's generation, inserts and commits (insert_int.h). */
int idb_run_timed_loop(run *r, idb_insert_result *res, idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    const idb_store *st = cfg->store;
    idb_rng rng;
    idb_rng_seed(&rng, cfg->seed);
    idb_row *rows = malloc((size_t)cfg->batch * sizeof *rows);
    int *row_shard = malloc((size_t)cfg->batch * sizeof *row_shard);
    int *dup = calloc((size_t)cfg->batch, sizeof *dup);
    if (!rows || !row_shard || !dup) {
        free(rows);
        free(row_shard);
        free(dup);
        return idb_fail(err, IDB_ENOMEM, "out of memory");
    }
    int64_t gen_ns = 0, ins_ns = 0, commit_ns = 0, done = 0;
    int rc = 0;
    while (done < cfg->ids && !rc) {
        int b = (int)(cfg->ids - done < cfg->batch ? cfg->ids - done : cfg->batch);
        if (r->ahead) {                               /* made ahead (store.h version 3) */
            memcpy(rows, r->ahead + done, (size_t)b * sizeof *rows);
            memcpy(row_shard, r->ahead_shard + done, (size_t)b * sizeof *row_shard);
        } else {
            int64_t created = idb_clock_now_ms(idb_clock_real());
            for (int i = 0; i < b; i++)               /* the workload: not timed */
                draw_row(r, &rng, created, &rows[i], &row_shard[i]);
            int64_t t0 = idb_mono_ns(), f0 = r->fault_ns;
            for (int i = 0; i < b && !rc; i++)
                rc = idb_run_order_id(r, done + i, row_shard[i], &rows[i].id, err);
            gen_ns += idb_mono_ns() - t0 - (r->fault_ns - f0);
            for (int i = 0; i < b && !rc; i++)
                if (rows[i].id.len) pad_key(&rows[i].id, r->width);   /* 0: a failed order */
        }
        int64_t t = idb_mono_ns();                    /* padding is the harness's: not timed */
        for (int i = 0; i < b && !rc; i++) {
            if (rows[i].id.len == 0) continue;        /* a failed order */
            int64_t prev = t;
            rc = insert_row(r, row_shard[i], &rows[i], &dup[i], err);
            t = idb_mono_ns();
            if (r->lat) r->lat[r->nlat++] = t - prev;   /* none kept on a model store */
            ins_ns += t - prev;
        }
        for (int k = 0; k < cfg->shards && !rc; k++) {
            int64_t prev = t;
            rc = st->commit(r->shards[k].store, err);
            t = idb_mono_ns();
            r->commit_lat[r->ncommits++] = t - prev;
            commit_ns += t - prev;
        }
        for (int i = 0; i < b && !rc; i++) {          /* bookkeeping for locality: not timed */
            if (rows[i].id.len)
                rc = keep_key(dup[i] ? &r->refused : &r->shards[row_shard[i]], &rows[i].id,
                              r->width, cfg->ids, err);
            if (!rc && r->rec && rows[i].id.len && !dup[i])   /* the insert record */
                rc = idb_readrec_put(r->rec, &rows[i], row_shard[i], err);
        }
        done += b;
        if (!rc && r->series && (done % cfg->window == 0 || done == cfg->ids))
            rc = series_tick(r, done, ins_ns + commit_ns, err);   /* not timed */
        if (!rc && cfg->progress) cfg->progress(cfg->progress_ctx, done, cfg->ids);
    }
    free(rows);
    free(row_shard);
    free(dup);
    gen_ns += r->ahead_gen_ns;                        /* 0 unless the IDs were made ahead */
    res->seconds = (double)(gen_ns + ins_ns + commit_ns) / 1e9;
    res->gen_ns_per_id = (double)gen_ns / (double)cfg->ids;
    res->inserts_per_s = (double)cfg->ids / ((double)(ins_ns + commit_ns) / 1e9);
    return rc;
}

/* Every order of the run drawn and its ID made, batch by batch as the closed loop does
 * (the same draws, so the same rows and IDs), into rows[0..ids) and row_shard; the
 * generation's time added to *gen_ns (padding to the key width not timed). */
static int generate_all(run *r, idb_row *rows, int *row_shard, int64_t *gen_ns, idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    idb_rng rng;
    idb_rng_seed(&rng, cfg->seed);
    int rc = 0;
    for (int64_t done = 0; done < cfg->ids && !rc; done += cfg->batch) {
        int b = (int)(cfg->ids - done < cfg->batch ? cfg->ids - done : cfg->batch);
        int64_t created = idb_clock_now_ms(idb_clock_real());
        for (int i = 0; i < b; i++)
            draw_row(r, &rng, created, &rows[done + i], &row_shard[done + i]);
        int64_t t0 = idb_mono_ns();
        for (int i = 0; i < b && !rc; i++)
            rc = r->cfg->strategy->next(r->shards[row_shard[done + i]].inst,
                                        &rows[done + i].id, err);
        *gen_ns += idb_mono_ns() - t0;
        for (int i = 0; i < b && !rc; i++) pad_key(&rows[done + i].id, r->width);
    }
    return rc;
}

/* A store that cuts the key space at the quantiles of the run's own keys (store.h version
 * 3: sample_parts P > 0): every order made ahead (generate_all: r->ahead, timed into
 * r->ahead_gen_ns), a sorted copy of the keys cut into P parts (split.h) into r->points,
 * freed again. The timed loop then takes the rows made ahead. */
static int make_ahead(run *r, const idb_opts *store_opts, idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    r->parts = idb_store_sample_parts(cfg->store, store_opts);
    if (r->parts <= 0) return 0;
    size_t w = (size_t)r->width, n = (size_t)cfg->ids;
    r->ahead = malloc(n * sizeof *r->ahead);
    r->ahead_shard = malloc(n * sizeof *r->ahead_shard);
    uint8_t *keys = malloc(n * w);
    int rc = r->ahead && r->ahead_shard && keys ? 0
           : idb_fail(err, IDB_ENOMEM, "out of memory for %lld IDs made ahead", cfg->ids);
    if (!rc) rc = generate_all(r, r->ahead, r->ahead_shard, &r->ahead_gen_ns, err);
    for (size_t i = 0; !rc && i < n; i++) memcpy(keys + i * w, r->ahead[i].id.b, w);
    if (!rc) {
        idb_keys_sort(keys, cfg->ids, r->width);
        rc = idb_split_sample(r->parts, r->width, keys, cfg->ids, r->points, err);
    }
    free(keys);
    return rc;
}

/* Hand the split points made ahead to every shard's store (store.h: set_bounds). */
static int give_bounds(run *r, idb_err *err)
{
    int rc = 0;
    for (int k = 0; r->parts > 0 && k < r->cfg->shards && !rc; k++)
        rc = r->cfg->store->set_bounds(r->shards[k].store, r->points, r->parts - 1, err);
    return rc;
}

/* --clients C > 1: every order drawn and its ID made first, batch by batch as the closed
 * loop does (the same draws, so the same rows and IDs; generation timed, padding not),
 * then the C writers per shard (insert_clients.c; on a model store the interleaving of
 * insert_interleave.c), then each shard's keys kept in the order their transactions
 * committed (locality; a model's: the order its tree received them). */
static int clients_loop(run *r, idb_insert_result *res, idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    idb_row *rows = malloc((size_t)cfg->ids * sizeof *rows);
    int *row_shard = malloc((size_t)cfg->ids * sizeof *row_shard);
    int64_t *order = malloc((size_t)cfg->ids * sizeof *order);
    int rc = rows && row_shard && order ? 0 : idb_fail(err, IDB_ENOMEM, "out of memory");
    int64_t gen_ns = 0;
    if (!rc) rc = generate_all(r, rows, row_shard, &gen_ns, err);
    res->seconds = (double)gen_ns / 1e9;
    res->gen_ns_per_id = (double)gen_ns / (double)cfg->ids;
    if (!rc)                                   /* a model: interleaved, untimed */
        rc = (cfg->store->model ? idb_run_interleaved : idb_run_clients)(r, rows, row_shard,
                                                                         order, res, err);
    for (int64_t i = 0; i < cfg->ids && !rc; i++)     /* bookkeeping: not timed */
        rc = keep_key(&r->shards[row_shard[order[i]]], &rows[order[i]].id, r->width,
                      cfg->ids, err);
    for (int64_t i = 0; i < cfg->ids && !rc && r->rec; i++)   /* the record: creation order */
        rc = idb_readrec_put(r->rec, &rows[i], row_shard[i], err);
    if (!rc && cfg->progress) cfg->progress(cfg->progress_ctx, cfg->ids, cfg->ids);
    free(rows);
    free(row_shard);
    free(order);
    return rc;
}

/* The open loop's state for its two operations (openloop.h): the run, the workload's
 * generator, and the times summed as in the closed loop. */
typedef struct open_ctx {
    run *r;
    idb_rng rng;
    int64_t gen_ns, ins_ns, commit_ns;
} open_ctx;

/* Open loop: order i's row drawn, its ID made (timed as generation), inserted (timed as
 * the statement's latency) and kept for locality. */
static int open_order(void *ctx, int64_t i, idb_err *err)
{
    open_ctx *o = ctx;
    run *r = o->r;
    idb_row row;
    int k;
    draw_row(r, &o->rng, idb_clock_now_ms(idb_clock_real()), &row, &k);
    int64_t t0 = idb_mono_ns(), f0 = r->fault_ns;
    int rc = idb_run_order_id(r, i, k, &row.id, err);
    int64_t t1 = idb_mono_ns();
    o->gen_ns += t1 - t0 - (r->fault_ns - f0);
    if (rc || row.id.len == 0) return rc;         /* an error, or a failed order */
    if (row.id.len < r->width) {                  /* key_bytes: padding is not timed */
        pad_key(&row.id, r->width);
        t1 = idb_mono_ns();
    }
    int dup;
    rc = insert_row(r, k, &row, &dup, err);
    int64_t t2 = idb_mono_ns();
    o->ins_ns += t2 - t1;
    r->lat[r->nlat++] = t2 - t1;
    if (!rc && !dup && r->rec) rc = idb_readrec_put(r->rec, &row, k, err);
    return rc ? rc : keep_key(dup ? &r->refused : &r->shards[k], &row.id, r->width,
                              r->cfg->ids, err);
}

/* Open loop: every shard's store committed, each commit timed. */
static int open_commit(void *ctx, idb_err *err)
{
    open_ctx *o = ctx;
    run *r = o->r;
    int rc = 0;
    for (int k = 0; k < r->cfg->shards && !rc; k++) {
        int64_t t0 = idb_mono_ns();
        rc = r->cfg->store->commit(r->shards[k].store, err);
        int64_t t = idb_mono_ns() - t0;
        r->commit_lat[r->ncommits++] = t;
        o->commit_ns += t;
    }
    return rc;
}

/* The timed part in the open loop (cfg->rate > 0): orders on the seeded schedule of
 * openloop.c; seconds and inserts_per_s as in the closed loop (busy time, waits
 * excluded), plus the order latencies and the achieved rate. */
static int open_loop(run *r, idb_insert_result *res, idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    size_t most = (size_t)(cfg->ids + 1) * (size_t)cfg->shards;   /* a commit per order */
    int64_t *cl = realloc(r->commit_lat, most * sizeof *cl);
    if (!cl) return idb_fail(err, IDB_ENOMEM, "out of memory for %zu commits", most);
    r->commit_lat = cl;
    open_ctx o = { .r = r };
    idb_rng_seed(&o.rng, cfg->seed);
    idb_openloop_plan plan = { .n = cfg->ids, .rate = cfg->rate, .arrivals = cfg->arrivals,
                               .seed = cfg->seed ^ IDB_OPEN_SEED_SALT, .batch = cfg->batch,
                               .commit_ms = cfg->commit_ms };
    idb_openloop_ops ops = { &o, open_order, open_commit };
    idb_openloop_out out;
    int rc = idb_openloop_run(&plan, &ops, &out, err);
    if (rc) return rc;
    res->seconds = (double)(o.gen_ns + o.ins_ns + o.commit_ns) / 1e9;
    res->gen_ns_per_id = (double)o.gen_ns / (double)cfg->ids;
    res->inserts_per_s = (double)cfg->ids / ((double)(o.ins_ns + o.commit_ns) / 1e9);
    res->order_lat_p50_ns = out.p50_ns;
    res->order_lat_p99_ns = out.p99_ns;
    res->order_lat_p999_ns = out.p999_ns;
    res->order_lat_max_ns = out.max_ns;
    res->rate_per_s = cfg->rate;
    res->achieved_per_s = out.achieved_per_s;
    return 0;
}


/* Everything in memory, before any file: the shards, the shop table (shops to shards,
 * seeded), latencies (not on a model store: it measures no time, so its latency figures
 * are unknown and 8 bytes per ID would be kept for nothing), each shard's first room for
 * keys. */
static int alloc_run(run *r, idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    r->shards = calloc((size_t)cfg->shards, sizeof *r->shards);
    r->shop_shard = malloc((size_t)cfg->shops * sizeof *r->shop_shard);
    r->shop_orders = calloc((size_t)cfg->shops, sizeof *r->shop_orders);
    int timed = !cfg->store->model;
    r->lat = timed ? malloc((size_t)cfg->ids * sizeof *r->lat) : NULL;
    r->commit_lat =
        malloc((size_t)((cfg->ids / cfg->batch + 1) * cfg->shards) * sizeof *r->commit_lat);
    int ok = r->shards && r->shop_shard && r->shop_orders && (r->lat || !timed) && r->commit_lat &&
             idb_zipf_init(&r->zipf, cfg->shops, cfg->shop_skew) == 0;
    for (int k = 0; ok && k < cfg->shards; k++) {   /* an even share; keep_key grows it */
        r->shards[k].cap = cfg->ids / cfg->shards + 1;
        ok = (r->shards[k].keys = malloc((size_t)r->shards[k].cap * (size_t)r->width)) != NULL;
    }
    if (!ok) return idb_fail(err, IDB_ENOMEM, "out of memory for %lld IDs", cfg->ids);
    idb_rng rng;
    idb_rng_seed(&rng, cfg->seed ^ 0x5eed5eed5eedULL);
    for (int i = 0; i < cfg->shops; i++)
        r->shop_shard[i] = (int)idb_rng_below(&rng, (uint64_t)cfg->shards);
    return 0;
}

/* After collect: the device model's figures (device.h) and the series' last window, whose
 * counts are the run's final statistics (so the windows add up to the run); then the
 * series file. */
static int model_and_series(run *r, idb_insert_result *res, idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    double busy = cfg->store->model ? 0 : (double)cfg->ids / res->inserts_per_s;
    res->modelled_device_s = idb_device_seconds(&r->dev, res->st.read_pages,
                                                res->st.pages_written);
    res->modelled_inserts_per_s =
        res->modelled_device_s < 0 ? -1 : (double)cfg->ids / (busy + res->modelled_device_s);
    if (!r->series) return 0;
    idb_store_progress cum;
    int rc = progress_sum(r, &cum, err);
    cum.pages_written = res->st.pages_written;
    cum.read_pages = res->st.read_pages;
    cum.cache_misses = res->st.cache_misses;
    if (!rc) rc = idb_series_counts(r->series, &cum, err);
    return rc ? rc : idb_series_write(r->series, err);
}

/* The measured part on the opened shards: the timed loop, the stores' statistics, then the
 * stores closed (their final writes count in write_bytes_per_id), then locality. */
static int measure(run *r, idb_insert_result *res, idb_insert_result *then, idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    idb_wmark m0, m1, mid;                   /* write marks: start, end, between phases */
    (void)idb_run_wmark(r, &m0);
    res->order_lat_p50_ns = res->order_lat_p99_ns = -1;          /* the closed loop's */
    res->order_lat_p999_ns = res->order_lat_max_ns = -1;
    res->rate_per_s = -1;
    res->clients = cfg->clients > 1 ? cfg->clients : 1;
    res->wait_share = res->wait_ns_per_order = -1;               /* clients_loop's */
    for (int c = 0; c < IDB_WAIT_CLASSES; c++) res->wait_share_by[c] = -1;
    res->wait_share_none = -1;                                   /* wait_columns' */
    int64_t cpu0 = idb_run_server_cpu_ns(r);
    int rc = cfg->clients > 1 ? clients_loop(r, res, err)
           : cfg->rate > 0    ? open_loop(r, res, err)
                              : idb_run_timed_loop(r, res, err);
    int64_t cpu1 = idb_run_server_cpu_ns(r);
    res->server_cpu_ns_per_order = cpu0 < 0 || cpu1 < 0 ? -1
                                 : (double)(cpu1 - cpu0) / (double)cfg->ids;
    if (!rc && !(cfg->rate > 0)) res->achieved_per_s = (double)cfg->ids / res->seconds;
    if (!rc) rc = idb_run_collect_stores(r, res, err);
    if (!rc && !cfg->store->model) idb_run_wait_columns(r, res);
    if (!rc) rc = model_and_series(r, res, err);
    if (!rc) idb_run_storage(res, cfg->strategy->bits / 8, cfg->ids - r->failed - r->dups, NULL);
    if (!rc && then && idb_run_wmark(r, &mid))
        rc = idb_fail(err, IDB_EIO, "cannot write the insert record");
    if (!rc && then) rc = idb_run_then(r, res, then, err);      /* insert_then.c */
    for (int k = 0; k < cfg->shards; k++) {
        cfg->store->close(r->shards[k].store);
        r->shards[k].store = NULL;
    }
    if (!rc && idb_run_wmark(r, &m1)) rc = idb_fail(err, IDB_EIO, "cannot write the insert record");
    if (!rc) rc = idb_run_collect_keys(r, res, err);
    if (!rc && cfg->store->model) idb_run_blank_model_times(res);
    idb_run_write_figures(res, &m0, then ? &mid : &m1, cfg->ids);   /* closing: then's */
    if (!rc && then) {
        idb_run_write_figures(then, &mid, &m1, cfg->then_ids);
        then->duplicate_ids -= res->duplicate_ids;    /* the phase's own repeats */
    }
    return rc;
}

/* The run's counter server, when the strategy's options ask for one (ctrsrv.h): in a
 * private temporary directory, not in DIR, which the server's user (postgres) may not be
 * able to enter; removed at the end (a counter's data is not a result). */
static int start_counter(run *r, idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    if (!idb_ctrsrv_backend(cfg->strategy, cfg->strategy_kv, cfg->n_strategy_kv)) return 0;
    return idb_ctrsrv_start(cfg->strategy, cfg->strategy_kv, cfg->n_strategy_kv, NULL, &r->cs,
                            err);
}

/* One insert run: checks, memory, then files; a failure after that undoes them. */
int idb_insert_run(const idb_insert_config *cfg, idb_insert_result *res, idb_err *err)
{
    return idb_insert_run_then(cfg, res, NULL, err);
}

/* The same with the second phase of --then into then (insert.h). */
int idb_insert_run_then(const idb_insert_config *cfg, idb_insert_result *res,
                        idb_insert_result *then, idb_err *err)
{
    memset(res, 0, sizeof *res);
    if (then) memset(then, 0, sizeof *then);
    if (cfg->then_strategy && !then)
        return idb_fail(err, IDB_EINPUT, "--then: no room for the second phase's figures");
    if (!cfg->then_strategy) then = NULL;
    if (!cfg->dir) return idb_fail(err, IDB_EINPUT, "no directory for the stores");
    run r = { .cfg = cfg };
    int rc = idb_insert_check(cfg, err);
    if (!rc)                                   /* the options kept for the output */
        rc = idb_insert_check_store(cfg, &res->store_opts, &r.width, err);
    if (!rc) rc = idb_device_parse(cfg->store_kv, cfg->n_store_kv, &r.dev, err);
    if (!rc && cfg->window > 0 && idb_opts_declared(cfg->store->options, IDB_STORE_WINDOW)) {
        char w[32];                            /* --window for a store's own windows */
        snprintf(w, sizeof w, "%lld", cfg->window);
        rc = idb_opts_set(&res->store_opts, IDB_STORE_WINDOW, w, cfg->store->name, err);
    }
    if (!rc && cfg->series &&
        !(r.series = idb_series_new(cfg->series, cfg->strategy->name, cfg->store->name, &r.dev)))
        rc = idb_fail(err, IDB_ENOMEM, "out of memory");
    if (rc) return rc;
    res->key_bytes = r.width;

    idb_rundir rd;
    idb_readrec head;                                     /* the record's header */
    idb_readrec_writer writer = { 0 };                    /* f NULL until created */
    if (cfg->record) {                                    /* before any file: may refuse */
        r.rec = &writer;
        rc = idb_readrec_init(&head, cfg->strategy->name, cfg->store->name, r.width,
                              cfg->shards, cfg->seed, cfg->store_kv, cfg->n_store_kv, err);
        if (!rc && then) rc = idb_readrec_then(&head, cfg->then_strategy->name, cfg->then_ids,
                                               err);
    }
    if (rc || (rc = alloc_run(&r, err)) ||
        (rc = idb_rundir_begin(&rd, cfg->dir, cfg->shards, err))) {
        close_run(&r);
        return rc;
    }
    idb_random_seed_thread(cfg->seed ^ IDS_SEED_SALT);  /* the keys repeat with the seed */
    rc = r.rec ? idb_readrec_create(r.rec, cfg->dir, &head, err) : 0;
    if (!rc) rc = start_counter(&r, err);
    if (!rc) rc = idb_wlease_start(cfg, &r.wl, err);     /* generators: before any store */
    r.special_ids = idb_run_special_ids(&r);
    if (!rc) rc = make_instances(&r, err);
    if (!rc) rc = make_ahead(&r, &res->store_opts, err);
    if (!rc) rc = open_stores(&r, &rd, &res->store_opts, err);
    if (!rc) rc = give_bounds(&r, err);
    if (!rc) rc = measure(&r, res, then, err);
    if (!rc) rc = idb_run_fault_end(&r, err);
    if (!rc && r.rec) rc = idb_readrec_finish(r.rec, 0, err);   /* renamed into place */
    idb_random_unseed();
    close_run(&r);
    idb_ctrsrv_stop(&r.cs);                            /* after the instances' goodbyes */
    idb_wlease_stop(r.wl);
    if (rc) idb_rundir_undo(&rd);                      /* leave DIR as the run found it */
    idb_rundir_end(&rd);
    return rc;
}
