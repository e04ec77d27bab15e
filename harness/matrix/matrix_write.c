/* matrix_write.c — the results files of a matrix run, each written to a temporary name
 * and renamed, so a reader never sees half a file and a failure leaves the old one.
 *
 * insert.csv    one row per closed-loop configuration (strategy x store x shards x ids x
 *               batch x clients x shops): the insert contract's fields, each the median
 *               over the repeats that succeeded; timing fields also as NAME_min /
 *               NAME_max; then shops, repeats (how many succeeded) and store_options
 *               (blank-separated k=v). clients is a key column (insert --clients: the
 *               writers per shard); wait_share, wait_ns_per_order, failed_txns and retries
 *               are its figures (empty wait columns: one writer, or a store that cannot tell),
 *               with the wait detail (wait_share_none, wait_share_<what>) and
 *               server_cpu_ns_per_order; spider's hot_share, hot_share_window_max and
 *               backend_* sums and maxima (its `;` lists stay in insert's own output).
 * openloop.csv  the same for the open-loop configurations ([openloop]: insert --rate), a
 *               commit_ms column after clients, rate_per_s and order_lat_* filled in.
 * positions.csv where new keys landed (closed loop): per configuration (clients included)
 *               and position bin (of configurations that differ only by their block's
 *               store_set, the first one's),
 *               the inserts summed over repeats (count) and their share of all inserts.
 * curve.csv     misses and page writes per insert against cache size.
 * generation.csv ns per ID from Google Benchmark, median/min/max over its repetitions.
 * insert_runs.csv, openloop_runs.csv  every repeat's own figures (what `idbench compare`
 *               tests): insert.csv's (openloop.csv's) columns without the _min/_max ones,
 *               and `repeat` (1-based) in place of `repeats`.
 * Every row of these ends with phase and first_strategy: "main" and "", or for a block
 * with then = STRATEGY:N "then" and the block's strategy, the row being the second
 * phase's (strategy: the second's, ids: N); such rows have no positions.
 */
#include "matrix.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "metrics.h"
#include "waits.h"

/* A numeric field of idb_insert_result: where it is, whether it is an int64 (else a
 * double), whether it is a timing (then min and max are written too), its decimals. */
typedef struct num_field {
    const char *name;
    size_t off;
    int is_i64, timing;
    int prec;                 /* decimals */
} num_field;

/* Results of one configuration, at most: its repeats ([matrix] repeat is at most 100). */
#define MX_REPEATS_MAX 128

#define R(f) offsetof(idb_insert_result, f)
static const num_field fields[] = {
    { "seconds", R(seconds), 0, 1, 3 },
    { "gen_ns_per_id", R(gen_ns_per_id), 0, 1, 1 },
    { "inserts_per_s", R(inserts_per_s), 0, 1, 0 },
    { "lat_p50_ns", R(lat_p50_ns), 1, 1, 0 },
    { "lat_p99_ns", R(lat_p99_ns), 1, 1, 0 },
    { "lat_p999_ns", R(lat_p999_ns), 1, 1, 0 },
    { "lat_max_ns", R(lat_max_ns), 1, 1, 0 },
    { "commit_p99_ns", R(commit_p99_ns), 1, 1, 0 },
    { "leaf_pages", R(st.leaf_pages), 1, 0, 0 },
    { "depth", R(st.depth), 1, 0, 0 },
    { "fill_factor", R(st.fill_factor), 0, 0, 4 },
    { "file_bytes", R(st.file_bytes), 1, 0, 0 },
    { "pages_written", R(st.pages_written), 1, 0, 0 },
    { "write_bytes_per_id", R(write_bytes_per_id), 0, 0, 1 },
    { "cache_misses", R(st.cache_misses), 1, 0, 0 },
    { "tail_insert_frac", R(tail_insert_frac), 0, 0, 4 },
    { "insert_pos_p50", R(insert_pos_p50), 0, 0, 4 },
    { "checkpoint_pages", R(st.checkpoint_pages), 1, 0, 0 },
    { "wal_frames", R(st.wal_frames), 1, 0, 0 },
    { "read_pages", R(st.read_pages), 1, 0, 0 },
    { "order_breaks", R(order_breaks), 1, 0, 0 },
    { "rate_per_s", R(rate_per_s), 0, 0, 0 },
    { "achieved_per_s", R(achieved_per_s), 0, 1, 0 },
    { "order_lat_p50_ns", R(order_lat_p50_ns), 1, 1, 0 },
    { "order_lat_p99_ns", R(order_lat_p99_ns), 1, 1, 0 },
    { "order_lat_p999_ns", R(order_lat_p999_ns), 1, 1, 0 },
    { "order_lat_max_ns", R(order_lat_max_ns), 1, 1, 0 },
    { "wal_bytes_per_id", R(wal_bytes_per_id), 0, 0, 1 },
    { "fpi_per_id", R(fpi_per_id), 0, 0, 4 },
    { "splits_per_id", R(splits_per_id), 0, 0, 4 },
    { "leaf_fragmentation", R(st.leaf_fragmentation), 0, 0, 4 },
    { "index_bytes", R(st.index_bytes), 1, 0, 0 },
    { "table_bytes", R(st.table_bytes), 1, 0, 0 },
    { "extend_pages", R(st.extend_pages), 1, 0, 0 },
    { "autovacuum_runs", R(st.autovacuum_runs), 1, 0, 0 },
    { "wal_bytes", R(st.wal_bytes), 1, 0, 0 },
    { "fpi", R(st.fpi), 1, 0, 0 },
    { "client_write_bytes_per_id", R(client_write_bytes_per_id), 0, 0, 1 },
    { "wait_share", R(wait_share), 0, 0, 4 },
    { "wait_ns_per_order", R(wait_ns_per_order), 0, 0, 1 },
    { "failed_txns", R(failed_txns), 1, 0, 0 },
    { "retries", R(retries), 1, 0, 0 },
    { "wait_share_none", R(wait_share_none), 0, 0, 4 },
    { "server_cpu_ns_per_order", R(server_cpu_ns_per_order), 0, 0, 1 },
    { "hot_share", R(hot_share), 0, 0, 4 },
    { "hot_share_window_max", R(hot_share_window_max), 0, 0, 4 },
    { "backend_pages_written_sum", R(backend_pages_written_sum), 1, 0, 0 },
    { "backend_pages_written_max", R(backend_pages_written_max), 1, 0, 0 },
    { "backend_cache_misses_sum", R(backend_cache_misses_sum), 1, 0, 0 },
    { "backend_cache_misses_max", R(backend_cache_misses_max), 1, 0, 0 },
    { "head_cpu_s", R(head_cpu_s), 0, 0, 3 },
    { "index_growth_pages", R(index_growth_pages), 1, 0, 0 },
    { "index_growth_bytes", R(index_growth_bytes), 1, 0, 0 },
    { "leaf_fill_touched", R(leaf_fill_touched), 0, 0, 4 },
    { "id_bytes", R(id_bytes), 1, 0, 0 },
    { "rows_held", R(rows_held), 1, 0, 0 },
    { "bytes_per_row_table", R(bytes_per_row_table), 0, 0, 1 },
    { "bytes_per_row_id_index", R(bytes_per_row_id_index), 0, 0, 1 },
    { "bytes_per_row_secondary", R(bytes_per_row_secondary), 0, 0, 1 },
    { "bytes_per_row", R(bytes_per_row), 0, 0, 1 },
#define WAIT(cls, what) { "wait_share_" #what, R(wait_share_by[cls]), 0, 0, 4 },
    IDB_WAIT_COLUMN_TABLE(WAIT)
#undef WAIT
};
#define NFIELDS (sizeof fields / sizeof *fields)

/* The field's value in r as a double; negative means unknown. */
static double field_value(const num_field *f, const idb_insert_result *r)
{
    const char *p = (const char *)r + f->off;
    return f->is_i64 ? (double)*(const int64_t *)p : *(const double *)p;
}

/* Median (mean of the middle two for an even count), min and max of v[0..n); NAN when
 * n == 0 or any value is unknown (< 0). Sorts v. (matrix.h: the aggregate of insert.csv) */
void mx_aggregate(double *v, int n, double *med, double *lo, double *hi)
{
    *med = *lo = *hi = NAN;
    for (int i = 0; i < n; i++)
        if (v[i] < 0) return;
    if (n == 0) return;
    qsort(v, (size_t)n, sizeof *v, idb_cmp_double);
    *med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    *lo = v[0];
    *hi = v[n - 1];
}

/* Print v with prec decimals, or nothing when it is NAN. */
static void put_num(FILE *f, int prec, double v, const char *sep)
{
    if (!isnan(v)) fprintf(f, "%.*f", prec, v);
    fputs(sep, f);
}

/* The successful results of configuration cfg of kind into out[]; returns how many. */
static int gather(const mx_plan *p, enum mx_kind kind, int cfg, const mx_cell **out, int max)
{
    int n = 0;
    for (int i = 0; i < p->n && n < max; i++)
        if (p->cells[i].kind == kind && p->cells[i].config == cfg &&
            p->cells[i].status == MX_DONE && p->cells[i].res)
            out[n++] = &p->cells[i];
    return n;
}

/* The header of insert.csv, or with open of openloop.csv (a commit_ms column more). */
static void insert_header(FILE *f, int open)
{
    fprintf(f, "strategy,store,shards,ids,key_bytes,batch,clients%s", open ? ",commit_ms" : "");
    for (size_t k = 0; k < NFIELDS; k++) {
        fprintf(f, ",%s", fields[k].name);
        if (fields[k].timing) fprintf(f, ",%s_min,%s_max", fields[k].name, fields[k].name);
    }
    fputs(",shops,repeats,store_options,phase,first_strategy\n", f);
}

/* A cell's strategy column: the second strategy's for a then cell (its row is the phase). */
static const char *row_strategy(const mx_cell *c)
{
    return c->then_strategy ? c->then_strategy->name : c->strategy->name;
}

/* The phase columns that end a row: "main" and "", or "then" and the first strategy. */
static void phase_cols(FILE *f, const mx_cell *c)
{
    fprintf(f, ",%s,%s\n", c->then_strategy ? "then" : "main",
            c->then_strategy ? c->strategy->name : "");
}

/* One row of insert.csv (openloop.csv for an open-loop configuration: with commit_ms) for
 * the results r[0..n) of one configuration. */
static void insert_row(FILE *f, const mx_cell *const *r, int n)
{
    const mx_cell *c = r[0];
    fprintf(f, "%s,%s,%lld,%lld,%d,%lld,%lld,", row_strategy(c), c->store->name,
            (long long)c->shards, (long long)(c->then_strategy ? c->then_ids : c->ids),
            c->res->key_bytes, (long long)c->batch, (long long)c->res->clients);
    if (c->rate > 0) fprintf(f, "%g,", c->commit_ms);
    double v[MX_REPEATS_MAX];
    for (size_t k = 0; k < NFIELDS; k++) {
        double med, lo, hi;
        for (int i = 0; i < n; i++) v[i] = field_value(&fields[k], r[i]->res);
        mx_aggregate(v, n, &med, &lo, &hi);
        put_num(f, fields[k].prec, med, ",");
        if (fields[k].timing) {
            put_num(f, fields[k].prec, lo, ",");
            put_num(f, fields[k].prec, hi, ",");
        }
    }
    fprintf(f, "%lld,%d,", (long long)c->shops, n);
    const idb_opts *o = &c->res->store_opts;
    for (int i = 0; i < o->n; i++)
        fprintf(f, "%s%s=%s", i ? " " : "", o->v[i].decl->name, o->v[i].text);
    phase_cols(f, c);
}

/* Rewrite openloop.csv from every open-loop insert cell finished so far; nothing when the
 * plan has none. Returns 0 or IDB_EIO. */
static int write_openloop(const mx_ctx *x, const mx_plan *p, idb_err *err)
{
    int any = 0;
    for (int i = 0; i < p->n && !any; i++)
        any = p->cells[i].kind == MX_INSERT && p->cells[i].rate > 0;
    if (!any) return 0;
    char path[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/openloop.csv", x->dir);
    idb_atomic a;
    FILE *f = idb_atomic_open(&a, path);
    if (!f) return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    insert_header(f, 1);
    const mx_cell *r[MX_REPEATS_MAX];
    for (int cfg = 0; cfg < p->n_configs; cfg++) {
        int n = gather(p, MX_INSERT, cfg, r, MX_REPEATS_MAX);
        if (n > 0 && r[0]->rate > 0) insert_row(f, r, n);
    }
    if (idb_atomic_commit(&a, 0) != 0)
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

static int write_runs(const mx_ctx *x, const mx_plan *p, int open, idb_err *err);

/* 1 if an earlier closed-loop configuration than cfg (whose cell is c) differs from it only
 * by its block's store_set: its bins would be a second set under positions.csv's key
 * (strategy, store, shards, ids, clients). */
static int positions_written(const mx_plan *p, int cfg, const mx_cell *c)
{
    for (int i = 0; i < p->n; i++) {
        const mx_cell *o = &p->cells[i];
        if (o->kind == MX_INSERT && o->config < cfg && o->status == MX_DONE && o->res &&
            o->rate == 0 && !o->key_bytes && o->strategy == c->strategy &&
            o->store == c->store && o->shards == c->shards && o->ids == c->ids &&
            o->batch == c->batch && o->shops == c->shops && o->res->clients == c->res->clients)
            return 1;
    }
    return 0;
}

/* Rewrite insert.csv and positions.csv from every closed-loop insert cell finished so far,
 * and openloop.csv from the open-loop ones (see matrix.h). */
int mx_write_insert(const mx_ctx *x, const mx_plan *p, idb_err *err)
{
    char path[MX_FILE_MAX], ppath[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/insert.csv", x->dir);
    snprintf(ppath, sizeof ppath, "%s/positions.csv", x->dir);
    idb_atomic a, pa;
    FILE *f = idb_atomic_open(&a, path), *pf = f ? idb_atomic_open(&pa, ppath) : NULL;
    if (!f || !pf) {
        if (f) idb_atomic_commit(&a, 1);
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", f ? ppath : path, strerror(errno));
    }
    insert_header(f, 0);
    fputs("strategy,store,shards,ids,clients,bin_lo,bin_hi,count,share\n", pf);
    const mx_cell *r[MX_REPEATS_MAX];
    int any_set = 0;                             /* a cell with a block's store_set */
    for (int i = 0; i < p->n && !any_set; i++) any_set = p->cells[i].store_set[0] != 0;
    for (int cfg = 0; cfg < p->n_configs; cfg++) {
        int n = gather(p, MX_INSERT, cfg, r, MX_REPEATS_MAX);
        if (n == 0 || r[0]->rate > 0) continue;             /* open loop: openloop.csv */
        insert_row(f, r, n);
        if (r[0]->key_bytes) continue;   /* padding keeps order: positions as unpadded */
        if (r[0]->then_strategy) continue;        /* a second phase: not a run's positions */
        if (any_set && positions_written(p, cfg, r[0])) continue;

        int64_t count[IDB_LOC_BUCKETS] = { 0 }, total = 0;
        for (int i = 0; i < n; i++)
            for (int b = 0; b < IDB_LOC_BUCKETS; b++) {
                count[b] += r[i]->res->pos_hist[b];
                total += r[i]->res->pos_hist[b];
            }
        for (int b = 0; b < IDB_LOC_BUCKETS; b++)
            fprintf(pf, "%s,%s,%lld,%lld,%lld,%.2f,%.2f,%lld,%.6f\n", r[0]->strategy->name,
                    r[0]->store->name, (long long)r[0]->shards, (long long)r[0]->ids,
                    (long long)r[0]->res->clients, (double)b / IDB_LOC_BUCKETS,
                    (double)(b + 1) / IDB_LOC_BUCKETS, (long long)count[b],
                    total ? (double)count[b] / (double)total : 0.0);
    }
    int bad = idb_atomic_commit(&a, 0);
    if (idb_atomic_commit(&pa, bad) != 0 || bad)
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    int rc = write_openloop(x, p, err);
    if (!rc) rc = write_runs(x, p, 0, err);
    return rc ? rc : write_runs(x, p, 1, err);
}

/* The header of insert_runs.csv, or with open of openloop_runs.csv: one repeat a row. */
static void runs_header(FILE *f, int open)
{
    fprintf(f, "strategy,store,shards,ids,key_bytes,batch,clients%s", open ? ",commit_ms" : "");
    for (size_t k = 0; k < NFIELDS; k++) fprintf(f, ",%s", fields[k].name);
    fputs(",shops,repeat,store_options,phase,first_strategy\n", f);
}

/* One row of insert_runs.csv (openloop_runs.csv) for the finished cell c. */
static void runs_row(FILE *f, const mx_cell *c)
{
    fprintf(f, "%s,%s,%lld,%lld,%d,%lld,%lld,", row_strategy(c), c->store->name,
            (long long)c->shards, (long long)(c->then_strategy ? c->then_ids : c->ids),
            c->res->key_bytes, (long long)c->batch, (long long)c->res->clients);
    if (c->rate > 0) fprintf(f, "%g,", c->commit_ms);
    for (size_t k = 0; k < NFIELDS; k++) {
        double v = field_value(&fields[k], c->res);
        put_num(f, fields[k].prec, v < 0 ? NAN : v, ",");
    }
    fprintf(f, "%lld,%d,", (long long)c->shops, c->rep + 1);
    const idb_opts *o = &c->res->store_opts;
    for (int i = 0; i < o->n; i++)
        fprintf(f, "%s%s=%s", i ? " " : "", o->v[i].decl->name, o->v[i].text);
    phase_cols(f, c);
}

/* Rewrite insert_runs.csv (open: openloop_runs.csv, none when the plan has no open-loop
 * cell) from every insert cell of that loop finished so far. Returns 0 or IDB_EIO. */
static int write_runs(const mx_ctx *x, const mx_plan *p, int open, idb_err *err)
{
    int any = !open;
    for (int i = 0; i < p->n && !any; i++)
        any = p->cells[i].kind == MX_INSERT && p->cells[i].rate > 0;
    if (!any) return 0;
    char path[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/%s", x->dir, open ? "openloop_runs.csv" : "insert_runs.csv");
    idb_atomic a;
    FILE *f = idb_atomic_open(&a, path);
    if (!f) return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    runs_header(f, open);
    for (int i = 0; i < p->n; i++) {
        const mx_cell *c = &p->cells[i];
        if (c->kind == MX_INSERT && c->status == MX_DONE && c->res && (c->rate > 0) == open)
            runs_row(f, c);
    }
    if (idb_atomic_commit(&a, 0) != 0)
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

/* Rewrite curve.csv from every curve cell finished so far (see matrix.h). */
int mx_write_curve(const mx_ctx *x, const mx_plan *p, idb_err *err)
{
    char path[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/curve.csv", x->dir);
    idb_atomic a;
    FILE *f = idb_atomic_open(&a, path);
    if (!f) return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    fputs("strategy,store,cache_pages,misses_per_insert,writes_per_insert,ids,shards\n", f);
    for (int i = 0; i < p->n; i++) {
        const mx_cell *c = &p->cells[i];
        if (c->kind != MX_CURVE || c->status != MX_DONE || !c->res) continue;
        const idb_insert_result *r = c->res;
        if (!c->cache_pages) {
            for (int k = 0; k < c->block->n_cache_pages; k++)
                fprintf(f, "%s,%s,%lld,%.6f,%.6f,%lld,%lld\n", c->strategy->name, c->store->name,
                        (long long)r->curve[k].cache_pages, r->curve[k].misses_per_insert,
                        r->curve[k].writes_per_insert, (long long)c->ids, (long long)c->shards);
            continue;
        }
        fprintf(f, "%s,%s,%lld,", c->strategy->name, c->store->name, (long long)c->cache_pages);
        double ids = (double)c->ids;
        put_num(f, 6, r->st.cache_misses < 0 ? NAN : (double)r->st.cache_misses / ids, ",");
        put_num(f, 6, r->st.pages_written < 0 ? NAN : (double)r->st.pages_written / ids, ",");
        fprintf(f, "%lld,%lld\n", (long long)c->ids, (long long)c->shards);
    }
    if (idb_atomic_commit(&a, 0) != 0)
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

/* Split a Google Benchmark name into kind (strategy, peer, baseline), the name within
 * it and the thread count. Returns 1, or 0 for an aggregate row or an unknown name. */
static int parse_bench_name(const char *name, char *kind, char *what, size_t len, int *threads)
{
    static const char *const aggregates[] = { "_mean", "_median", "_stddev", "_cv" };
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof aggregates / sizeof *aggregates; i++) {
        size_t a = strlen(aggregates[i]);
        if (n > a && strcmp(name + n - a, aggregates[i]) == 0) return 0;
    }
    static const struct { const char *prefix, *kind; } kinds[] = {
        { "gen/", "strategy" }, { "peer/", "peer" }, { "baseline/", "baseline" },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        size_t pl = strlen(kinds[i].prefix);
        if (strncmp(name, kinds[i].prefix, pl) != 0) continue;
        const char *rest = name + pl, *slash = strchr(rest, '/');
        snprintf(what, len, "%.*s", (int)(slash ? slash - rest : (ptrdiff_t)strlen(rest)), rest);
        strcpy(kind, kinds[i].kind);
        const char *t = strstr(name, "threads:");
        *threads = t ? atoi(t + strlen("threads:")) : 1;
        return 1;
    }
    return 0;
}

/* Nanoseconds in one Google Benchmark time_unit (1 for ns and anything unknown). */
static double unit_ns(const char *unit)
{
    static const struct { const char *unit; double ns; } units[] = {
        { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
    };
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (!strcmp(unit, units[i].unit)) return units[i].ns;
    return 1;
}

/* Summarise Google Benchmark's CSV rows per benchmark and thread count (see matrix.h). */
int mx_write_generation(const char *dir, const char *gb_csv, idb_err *err)
{
    mx_table t;
    if (mx_table_load(gb_csv, &t, NULL) != 0)
        return idb_fail(err, IDB_EIO, "the generation benchmark wrote no results");
    int cname = mx_table_col(&t, "name"), ctime = mx_table_col(&t, "real_time");
    int cunit = mx_table_col(&t, "time_unit");
    int cerr = mx_table_col(&t, "error_occurred");
    char path[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/generation.csv", dir);
    idb_atomic a;
    FILE *f = idb_atomic_open(&a, path);
    if (!f) {
        mx_table_free(&t);
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    }
    fputs("kind,name,threads,ns_per_id,ns_per_id_min,ns_per_id_max,repetitions\n", f);
    char *done = calloc((size_t)t.nrow + 1, sizeof *done);
    double *v = malloc(((size_t)t.nrow + 1) * sizeof *v);
    for (int r = 0; done && v && r < t.nrow; r++) {
        char kind[16], what[64], k2[16], w2[64];
        int threads, th2, n = 0;
        if (done[r] ||
            !parse_bench_name(mx_table_str(&t, r, cname), kind, what, sizeof what, &threads))
            continue;
        for (int q = r; q < t.nrow; q++) {            /* every repetition of the same benchmark */
            if (done[q] || !parse_bench_name(mx_table_str(&t, q, cname), k2, w2, sizeof w2, &th2) ||
                strcmp(w2, what) || strcmp(k2, kind) || th2 != threads) continue;
            done[q] = 1;
            double ns = mx_table_num(&t, q, ctime) * unit_ns(mx_table_str(&t, q, cunit));
            if (!isnan(ns) && strcmp(mx_table_str(&t, q, cerr), "true") != 0) v[n++] = ns;
        }
        double med, lo, hi;
        mx_aggregate(v, n, &med, &lo, &hi);
        fprintf(f, "%s,%s,%d,", kind, what, threads);
        put_num(f, 2, med, ",");
        put_num(f, 2, lo, ",");
        put_num(f, 2, hi, ",");
        fprintf(f, "%d\n", n);
    }
    int bad = !done || !v;
    free(done);
    free(v);
    mx_table_free(&t);
    if (idb_atomic_commit(&a, bad) != 0)
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

/* Rewrite dst as its old rows plus src's rows, through a temporary name (see matrix.h). */
int mx_append_csv(const char *dst, const char *src, const char *prefix_col, const char *prefix_val,
                  idb_err *err)
{
    size_t slen = 0, dlen = 0;
    char *s = mx_read_file(src, &slen, NULL);
    if (!s || !slen) {
        free(s);
        return idb_fail(err, IDB_EIO, "the run wrote no rows");
    }
    char *d = mx_read_file(dst, &dlen, NULL);         /* NULL: a new file */
    idb_atomic a;
    FILE *f = idb_atomic_open(&a, dst);
    if (!f) {
        free(s);
        free(d);
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", dst, strerror(errno));
    }
    char *body = strchr(s, '\n');
    body = body ? body + 1 : s + slen;
    if (d && dlen) fwrite(d, 1, dlen, f);
    else {
        if (prefix_col) fprintf(f, "%s,", prefix_col);
        fwrite(s, 1, (size_t)(body - s), f);
    }
    for (char *save = NULL, *l = strtok_r(body, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (!*l) continue;
        if (prefix_col) fprintf(f, "%s,", prefix_val);
        fprintf(f, "%s\n", l);
    }
    free(s);
    free(d);
    if (idb_atomic_commit(&a, 0) != 0)
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", dst, strerror(errno));
    return 0;
}
