/* insert_collect.c — the insert runner's figures after the timed part (insert_int.h): the
 * stores' statistics summed over shards (server figures and the miss-ratio curve included),
 * the latency percentiles, locality and the repeated IDs; a model store's time figures
 * blanked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insert_int.h"
#include "wlease.h"
#include "waits.h"
#include "metrics.h"
#include "readrec.h"
#include "repeats.h"

/* A model store (pagesim) measures no time: its time figures are left unknown (-1). */
void idb_run_blank_model_times(idb_insert_result *res)
{
    double *d[] = { &res->seconds, &res->gen_ns_per_id, &res->inserts_per_s,
                    &res->rate_per_s, &res->achieved_per_s };
    int64_t *i[] = { &res->lat_p50_ns, &res->lat_p99_ns, &res->lat_p999_ns, &res->lat_max_ns,
                     &res->commit_p99_ns, &res->order_lat_p50_ns, &res->order_lat_p99_ns,
                     &res->order_lat_p999_ns, &res->order_lat_max_ns };
    for (size_t k = 0; k < sizeof d / sizeof *d; k++) *d[k] = -1;
    for (size_t k = 0; k < sizeof i / sizeof *i; k++) *i[k] = -1;
}

/* Add shard k's server figures (store.h: has_server) s to sum: counts summed (-1 once a
 * shard cannot tell), leaf_fragmentation leaf-weighted (*frag, *leaves) like fill_factor. */
static void add_server(idb_store_stats *sum, idb_store_stats *s, int k, double *frag,
                       double *leaves)
{
    if (!s->has_server)
        s->wal_bytes = s->fpi = s->extend_pages = s->autovacuum_runs = -1,
        s->leaf_fragmentation = -1;
    if (!s->has_server && s->table_bytes <= 0)      /* storage not told (store.h) */
        s->index_bytes = s->table_bytes = s->secondary_bytes = -1;
    int64_t *acc[] = { &sum->wal_bytes, &sum->fpi, &sum->index_bytes, &sum->table_bytes,
                       &sum->extend_pages, &sum->autovacuum_runs, &sum->secondary_bytes };
    int64_t val[] = { s->wal_bytes, s->fpi, s->index_bytes, s->table_bytes, s->extend_pages,
                      s->autovacuum_runs, s->secondary_bytes };
    sum->id_clustered = s->id_clustered;            /* one layout in every shard */
    for (size_t i = 0; i < sizeof val / sizeof *val; i++)
        *acc[i] = (val[i] < 0 || (k > 0 && *acc[i] < 0)) ? -1 : *acc[i] + val[i];
    if (s->leaf_fragmentation < 0 || s->leaf_pages <= 0) *frag = -1;
    else if (*frag >= 0) *frag += s->leaf_fragmentation * (double)s->leaf_pages;
    if (s->leaf_pages > 0) *leaves += (double)s->leaf_pages;
}

/* The per-ID rates of the server figures summed in res->st; -1 when unknown. */
static void server_rates(idb_insert_result *res, double frag, double leaves, long long ids)
{
    idb_store_stats *sum = &res->st;
    sum->has_server = 1;
    sum->leaf_fragmentation = frag >= 0 && leaves > 0 ? frag / leaves : -1;
    res->wal_bytes_per_id = sum->wal_bytes < 0 ? -1 : (double)sum->wal_bytes / (double)ids;
    res->fpi_per_id = sum->fpi < 0 ? -1 : (double)sum->fpi / (double)ids;
    res->splits_per_id = sum->splits < 0 ? -1 : (double)sum->splits / (double)ids;
}

/* The backend figures of a store over backend servers (store.h: backends) from shard 0's
 * stats s (such a store takes one shard) into res; unknown (-1, "") without backends. */
static void backend_figures(idb_insert_result *res, const idb_store_stats *s)
{
    int64_t *i64[] = { &res->backends, &res->backend_pages_written_sum,
                       &res->backend_pages_written_max, &res->backend_cache_misses_sum,
                       &res->backend_cache_misses_max };
    double *dbl[] = { &res->hot_share, &res->hot_share_window_max, &res->head_cpu_s };
    res->backend_shares[0] = res->backend_cpu_s[0] = 0;
    if (s->backends <= 0) {
        for (size_t k = 0; k < sizeof i64 / sizeof *i64; k++) *i64[k] = -1;
        for (size_t k = 0; k < sizeof dbl / sizeof *dbl; k++) *dbl[k] = -1;
        return;
    }
    int64_t v64[] = { s->backends, s->pages_written, s->backend_pages_written_max,
                      s->cache_misses, s->backend_cache_misses_max };
    double vd[] = { s->hot_share, s->hot_share_window_max, s->head_cpu_s };
    for (size_t k = 0; k < sizeof i64 / sizeof *i64; k++) *i64[k] = v64[k];
    for (size_t k = 0; k < sizeof dbl / sizeof *dbl; k++) *dbl[k] = vd[k];
    size_t n = 0, m = 0, ns = sizeof res->backend_shares, nc = sizeof res->backend_cpu_s;
    for (int j = 0; j < s->backends && j < IDB_STORE_BACKENDS_MAX && n < ns && m < nc; j++) {
        const char *sep = j ? ";" : "";
        n += (size_t)snprintf(res->backend_shares + n, ns - n, "%s%.4f", sep,
                              s->backend_share[j]);
        if (s->backend_cpu_s[j] < 0)
            m += (size_t)snprintf(res->backend_cpu_s + m, nc - m, "%s", sep);
        else
            m += (size_t)snprintf(res->backend_cpu_s + m, nc - m, "%s%.2f", sep,
                                   s->backend_cpu_s[j]);
    }
}

/* After the timed part, stores still open: their stats summed over shards, the curve. */
int idb_run_collect_stores(run *r, idb_insert_result *res, idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    double used = 0, cap = 0, frag = 0, leaves = 0, tused = 0, tleaves = 0;
    idb_store_stats *sum = &res->st;
    *sum = (idb_store_stats){ .depth = -1 };
    for (int k = 0; k < cfg->shards; k++) {
        idb_store_stats s = { 0 };
        int rc = cfg->store->stats(r->shards[k].store, &s, err);
        if (rc) return rc;
        idb_waits_add(&sum->waits, &s.waits, k);
        add_server(sum, &s, k, &frag, &leaves);
        if (k == 0) backend_figures(res, &s);
        int64_t *acc[] = { &sum->leaf_pages, &sum->branch_pages, &sum->file_bytes,
                           &sum->pages_written, &sum->cache_misses, &sum->splits,
                           &sum->checkpoint_pages, &sum->wal_frames, &sum->read_pages };
        int64_t val[] = { s.leaf_pages, s.branch_pages, s.file_bytes, s.pages_written,
                          s.cache_misses, s.splits, s.checkpoint_pages, s.wal_frames,
                          s.read_pages };
        for (size_t i = 0; i < sizeof val / sizeof *val; i++)
            *acc[i] = (val[i] < 0 || (k > 0 && *acc[i] < 0)) ? -1 : *acc[i] + val[i];
        if (s.depth > sum->depth) sum->depth = s.depth;
        sum->users_server |= s.users_server;
        if (s.fill_factor >= 0 && s.leaf_pages > 0) {
            used += s.fill_factor * (double)s.leaf_pages;
            cap += (double)s.leaf_pages;
        }
        tused += s.touched_fill * (double)s.touched_leaves;   /* leaf-weighted too */
        tleaves += (double)s.touched_leaves;
    }
    sum->fill_factor = cap > 0 ? used / cap : -1;
    res->leaf_fill_touched = tleaves > 0 ? tused / tleaves : -1;
    server_rates(res, frag, leaves, cfg->ids);

    if (cfg->n_curve > 0) {                            /* the store has curve (checked) */
        for (int i = 0; i < cfg->n_curve; i++)
            res->curve[i] = (idb_curve_point){ cfg->curve_cache_pages[i], 0, 0 };
        for (int k = 0; k < cfg->shards; k++) {
            idb_curve_point pts[IDB_CURVE_MAX];
            int rc = cfg->store->curve(r->shards[k].store, cfg->curve_cache_pages, cfg->n_curve,
                                       pts, err);
            if (rc) return rc;
            for (int i = 0; i < cfg->n_curve; i++) {
                /* per-insert rates of a shard, weighted by its share of the inserts */
                double w = (double)r->shards[k].nkeys / (double)cfg->ids;
                res->curve[i].misses_per_insert += pts[i].misses_per_insert * w;
                res->curve[i].writes_per_insert += pts[i].writes_per_insert * w;
            }
        }
    }
    return 0;
}

/* A key of width bytes (big-endian, zero-padded on the left: insert.c) as a number into
 * *v; 0 when it does not fit 64 bits. */
static int key_u64(const uint8_t *key, int width, uint64_t *v)
{
    *v = 0;
    for (int i = 0; i < width; i++) {
        if (i < width - 8 && key[i]) return 0;
        *v = *v << 8 | key[i];
    }
    return 1;
}

/* lost_ids (insert.h): the numbers from the lowest key to the highest of the sorted lists
 * that no key is, given rep repeats among them; -1 when a key does not fit 64 bits. */
static int64_t lost_ids(uint8_t *const *lists, const int64_t *n, int nlists, int width,
                        int64_t rep)
{
    uint64_t lo = UINT64_MAX, hi = 0, v;
    int64_t total = 0;
    for (int k = 0; k < nlists; k++) {
        if (!n[k]) continue;
        total += n[k];
        const uint8_t *first = lists[k], *last = lists[k] + (size_t)(n[k] - 1) * (size_t)width;
        if (!key_u64(first, width, &v)) return -1;
        if (v < lo) lo = v;
        if (!key_u64(last, width, &v)) return -1;
        if (v > hi) hi = v;
    }
    return total ? (int64_t)(hi - lo + 1) - (total - rep) : 0;
}

/* duplicate_ids, after locality has used every shard's keys in their order: each shard's
 * keys and the refused ones sorted in place, the repeats counted over all of them merged
 * (repeats.h: no copy, so the count adds nothing to the run's peak); then the keys freed. */
static int count_repeats(run *r, idb_insert_result *res, idb_err *err)
{
    int n = r->cfg->shards + 1;
    uint8_t **lists = malloc((size_t)n * sizeof *lists);
    int64_t *counts = malloc((size_t)n * sizeof *counts);
    int64_t rep = -1;
    if (lists && counts) {
        for (int k = 0; k < n; k++) {
            shard *sh = k < r->cfg->shards ? &r->shards[k] : &r->refused;
            idb_keys_sort(sh->keys, sh->nkeys, r->width);
            lists[k] = sh->keys;
            counts[k] = sh->nkeys;
        }
        rep = idb_repeats_merged(lists, counts, n, r->width);
        res->lost_ids = r->cs.backend && rep >= 0 ? lost_ids(lists, counts, n, r->width, rep)
                                                  : -1;
    }
    free(lists);
    free(counts);
    for (int k = 0; k < n; k++) {                      /* done with: lower the peak */
        shard *sh = k < r->cfg->shards ? &r->shards[k] : &r->refused;
        free(sh->keys);
        sh->keys = NULL;
    }
    if (rep < 0) return idb_fail(err, IDB_ENOMEM, "out of memory");
    res->duplicate_ids = rep;
    return 0;
}

/* After the stores are closed (so their memory is not held with it): the latency
 * percentiles (then the latencies are freed), where each key landed (locality), then the
 * repeated IDs (count_repeats, which frees the keys). */
int idb_run_collect_keys(run *r, idb_insert_result *res, idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    res->lat_p50_ns = idb_percentile(r->lat, r->nlat, 0.50);   /* sorts; the rest are lookups */
    res->lat_p99_ns = idb_percentile(r->lat, r->nlat, 0.99);
    res->lat_p999_ns = idb_percentile(r->lat, r->nlat, 0.999);
    res->lat_max_ns = idb_percentile(r->lat, r->nlat, 1.0);
    res->failed_orders = r->failed;
    res->duplicate_rows = r->dups;
    res->counter_down_ms = r->fault == 2 && r->cfg->kill_counter_at
                         ? (double)r->down_ns / 1e6 : -1;
    res->failover_ms = r->fault == 2 && r->served_ns
                     && (r->cfg->failover_counter_at || r->cfg->failover_lag_at)
                     ? (double)(r->served_ns - r->kill_ns) / 1e6 : -1;
    res->worker_pause_ms = idb_wlease_pause_ms(r->wl);
    res->commit_p99_ns = idb_percentile(r->commit_lat, r->ncommits, 0.99);
    free(r->lat);                                      /* done with: lower the peak */
    r->lat = NULL;
    idb_locality loc;
    if (idb_locality_init(&loc, cfg->ids) != 0) return idb_fail(err, IDB_ENOMEM, "out of memory");
    for (int k = 0; k < cfg->shards; k++) {
        if (idb_locality_add_packed(&loc, r->shards[k].keys, r->width, r->shards[k].nkeys)) {
            idb_locality_free(&loc);
            return idb_fail(err, IDB_ENOMEM, "out of memory");
        }
    }
    res->order_breaks = 0;
    for (int k = 0; k < cfg->shards; k++) res->order_breaks += r->shards[k].breaks;
    res->tail_insert_frac = idb_locality_tail_frac(&loc);
    res->insert_pos_p50 = idb_locality_pos_p50(&loc);
    memcpy(res->pos_hist, loc.hist, sizeof loc.hist);
    idb_locality_free(&loc);
    return count_repeats(r, res, err);
}

/* The CPU time of every shard's private servers so far (store.h: server_cpu_ns), -1 when
 * one shard cannot tell (an embedded store, a server idbench did not start). */
int64_t idb_run_server_cpu_ns(const run *r)
{
    int64_t sum = 0;
    for (int k = 0; k < r->cfg->shards; k++) {
        int64_t v = idb_store_server_cpu_ns(r->cfg->store, r->shards[k].store);
        if (v < 0) return -1;
        sum += v;
    }
    return sum;
}

/* The wait columns (waits.h): from the waits the stores measured (summed in res->st.waits)
 * over the writers' time (the clients' summed, or one writer's insert + commit time), else
 * the begin() figures with no classes. */
void idb_run_wait_columns(const run *r, idb_insert_result *res)
{
    idb_wait_figures f;
    double client_ns = r->cfg->clients > 1 ? r->client_ns
                     : (double)r->cfg->ids / res->inserts_per_s * 1e9;
    idb_waits_figures(&res->st.waits, client_ns, r->cfg->ids, &f);
    if (f.share >= 0) {
        res->wait_share = f.share;
        res->wait_ns_per_order = f.ns_per_order;
    }
    for (int c = 0; c < IDB_WAIT_CLASSES; c++) res->wait_share_by[c] = f.by[c];
    res->wait_share_none = f.none >= 0 ? f.none
                         : res->wait_share >= 0 ? 1 - res->wait_share : -1;
}

int idb_run_wmark(run *r, idb_wmark *m)
{
    int64_t own = r->rec ? idb_readrec_sync(r->rec) : 0;   /* the record's writes */
    int64_t p = idb_proc_write_bytes(), t = idb_thread_write_bytes();
    m->proc = p < 0 || own < 0 ? -1 : p - own;           /* the store's and servers' only */
    m->thread = t < 0 || own < 0 ? -1 : t - own;
    return own < 0 ? -1 : 0;
}

void idb_run_write_figures(idb_insert_result *res, const idb_wmark *a, const idb_wmark *b,
                           long long ids)
{
    res->write_bytes_per_id = (a->proc < 0 || b->proc < 0 || res->st.users_server) ? -1
                            : (double)(b->proc - a->proc) / (double)ids;
    res->client_write_bytes_per_id = (a->thread < 0 || b->thread < 0) ? -1
                                   : (double)(b->thread - a->thread) / (double)ids;
}

void idb_run_storage(idb_insert_result *res, int id_bytes, int64_t rows,
                     const idb_insert_result *before)
{
    const idb_store_stats *st = &res->st;
    res->id_bytes = id_bytes;
    res->rows_held = rows;
    int64_t pages = st->leaf_pages < 0 || st->branch_pages < 0 ? -1
                  : st->leaf_pages + st->branch_pages;
    int64_t was = !before ? 0
                : before->st.leaf_pages < 0 || before->st.branch_pages < 0 ? -1
                : before->st.leaf_pages + before->st.branch_pages;
    res->index_growth_pages = pages < 0 || was < 0 ? -1 : pages - was;
    int64_t bytes_was = before ? before->st.index_bytes : 0;
    res->index_growth_bytes = st->index_bytes < 0 || bytes_was < 0 ? -1
                            : st->index_bytes - bytes_was;
    double n = (double)rows, *per[] = { &res->bytes_per_row_table, &res->bytes_per_row_id_index,
                                        &res->bytes_per_row_secondary, &res->bytes_per_row };
    for (size_t i = 0; i < sizeof per / sizeof *per; i++) *per[i] = -1;
    if (rows <= 0 || st->table_bytes < 0) return;
    res->bytes_per_row_table = (double)st->table_bytes / n;
    res->bytes_per_row_id_index = st->id_clustered ? 0                 /* the table is it */
                                : st->index_bytes < 0 ? -1 : (double)st->index_bytes / n;
    if (st->secondary_bytes >= 0) res->bytes_per_row_secondary = (double)st->secondary_bytes / n;
    if (res->bytes_per_row_id_index >= 0 && res->bytes_per_row_secondary >= 0)
        res->bytes_per_row = res->bytes_per_row_table + res->bytes_per_row_id_index +
                             res->bytes_per_row_secondary;
}
