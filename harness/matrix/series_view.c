/* series_view.c — series.csv as runs of windows (series_view.h): the run index, window
 * sizes, throughput under a device, and points aggregated over a factor SV_SPAN of size.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "series_view.h"

/* 1 when rows a and b of v agree on block, store and cache (and strategy when strat). */
static int same_cols(const sview *v, int a, int b, int strat)
{
    const int cols[] = { v->cb, v->cst, v->ccache, v->cs };
    size_t n = sizeof cols / sizeof *cols - (strat ? 0 : 1);
    for (size_t i = 0; i < n; i++)
        if (strcmp(mx_table_str(v->t, a, cols[i]), mx_table_str(v->t, b, cols[i]))) return 0;
    return 1;
}

/* The first i of [lo, hi) with a[i] > x (above) or a[i] >= x (not above), hi when none;
 * a increases over [lo, hi). */
static int search(const double *a, int lo, int hi, double x, int above)
{
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (above ? a[mid] > x : a[mid] >= x) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* A counter run's key (block, store, cache) and its first row, for the sorted lookup. */
typedef struct run_key {
    const char *block, *store, *cache;
    int first;
} run_key;

/* Order by block, store and cache. */
static int same_key_cmp(const run_key *x, const run_key *y)
{
    int c = strcmp(x->block, y->block);
    if (!c) c = strcmp(x->store, y->store);
    return c ? c : strcmp(x->cache, y->cache);
}

/* Order by block, store, cache, then first row. */
static int key_cmp(const void *a, const void *b)
{
    const run_key *x = a, *y = b;
    int c = same_key_cmp(x, y);
    return c ? c : (x->first > y->first) - (x->first < y->first);
}

/* row's key (its first row as given). */
static run_key key_of(const sview *v, int row, int first)
{
    return (run_key){ mx_table_str(v->t, row, v->cb), mx_table_str(v->t, row, v->cst),
                      mx_table_str(v->t, row, v->ccache), first };
}

/* Fill ctr: each run's counter run is the first run of counter with the same block, store
 * and cache (a binary search in the sorted counter runs), and each row's counter row the
 * one of its size there (another). O(n log n) whatever a file holds. Returns 0, or -1 when
 * out of memory. */
static int index_counter(sview *v)
{
    int n = v->t->nrow, k = 0;
    run_key *keys = malloc((size_t)(n > 0 ? n : 1) * sizeof *keys);
    if (!keys) return -1;
    for (int row = 0; row < n; row = v->run1[row])
        if (!strcmp(mx_table_str(v->t, row, v->cs), SV_SEQUENTIAL)) keys[k++] = key_of(v, row, row);
    qsort(keys, (size_t)k, sizeof *keys, key_cmp);
    for (int row = 0; row < n; row = v->run1[row]) {
        run_key want = key_of(v, row, -1);
        int lo = 0, hi = k;                      /* the first key not below want */
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (key_cmp(&keys[mid], &want) < 0) lo = mid + 1;
            else hi = mid;
        }
        int c = lo < k && !same_key_cmp(&keys[lo], &want) ? keys[lo].first : -1;
        for (int i = row; i < v->run1[row]; i++) {
            int at = c < 0 ? -1 : search(v->rows, c, v->run1[c], v->rows[i], 0);
            v->ctr[i] = at >= 0 && at < v->run1[c] && v->rows[at] == v->rows[i] ? at : -1;
        }
    }
    free(keys);
    return 0;
}

static double window_time(const sview *v, int row, const idb_device *d);

/* Fill the running sums of every run. */
static void index_sums(sview *v)
{
    for (int row = 0; row < v->t->nrow; row++) {
        sv_sum s = row > v->run0[row] ? v->sum[row - 1] : (sv_sum){ 0 };
        const double x[SV_SUMS] = {
            [SV_T_MEAS] = window_time(v, row, NULL), [SV_T_SSD] = window_time(v, row, &v->ssd),
            [SV_MISSES] = mx_table_num(v->t, row, v->cmiss),
            [SV_WRITES] = mx_table_num(v->t, row, v->cwr),
        };
        for (int i = 0; i < SV_SUMS; i++) {
            if (isnan(x[i])) s.unknown[i]++;
            else s.total[i] += x[i];
        }
        s.matched += v->ctr[row] >= 0;
        v->sum[row] = s;
    }
}

/* Fill the index: rows, runs (split where a column changes or rows stop increasing),
 * counter rows, running sums. Returns 0, or -1 when out of memory. */
static int index_all(sview *v)
{
    int n = v->t->nrow;
    for (int row = 0; row < n; row++) v->rows[row] = mx_table_num(v->t, row, v->crows);
    for (int row = 0; row < n;) {
        int end = row + 1;
        while (end < n && same_cols(v, row, end, 1) && v->rows[end] > v->rows[end - 1]) end++;
        for (int i = row; i < end; i++) v->run0[i] = row, v->run1[i] = end;
        row = end;
    }
    if (index_counter(v) != 0) return -1;
    index_sums(v);
    return 0;
}

int sv_make(sview *v, const mx_results *r)
{
    const mx_table *t = &r->series;
    *v = (sview){ .t = t, .cb = mx_table_col(t, "block"), .cs = mx_table_col(t, "strategy"),
                  .cst = mx_table_col(t, "store"), .crows = mx_table_col(t, "rows"),
                  .cidx = mx_table_col(t, "index_bytes"), .cips = mx_table_col(t, "inserts_per_s"),
                  .cmiss = mx_table_col(t, "cache_misses"), .cwr = mx_table_col(t, "pages_written"),
                  .crd = mx_table_col(t, "read_pages"), .ccache = mx_table_col(t, "cache_bytes") };
    if (!t->nrow) return 0;
    idb_device_preset("ssd", &v->ssd);
    size_t n = (size_t)t->nrow;
    v->run0 = malloc(n * sizeof *v->run0);
    v->run1 = malloc(n * sizeof *v->run1);
    v->ctr = malloc(n * sizeof *v->ctr);
    v->rows = malloc(n * sizeof *v->rows);
    v->sum = malloc(n * sizeof *v->sum);
    if (!v->run0 || !v->run1 || !v->ctr || !v->rows || !v->sum || index_all(v) != 0) {
        sv_free(v);
        return 0;
    }
    v->block = mx_table_str(t, 0, v->cb);
    for (int row = 0; row < t->nrow; row++)
        if (!strcmp(mx_table_str(t, row, v->cb), SV_MAIN_BLOCK)) v->block = SV_MAIN_BLOCK;
    return 1;
}

void sv_free(sview *v)
{
    free(v->run0);
    free(v->run1);
    free(v->ctr);
    free(v->rows);
    free(v->sum);
    v->run0 = v->run1 = v->ctr = NULL;
    v->rows = NULL;
    v->sum = NULL;
}

double sv_rows(const sview *v, int row)
{
    return v->rows[row];
}

/* Inserts of the windows [from, to] of one run. */
static double rows_of(const sview *v, int from, int to)
{
    return v->rows[to] - (from > v->run0[from] ? v->rows[from - 1] : 0);
}

double sv_window_rows(const sview *v, int row)
{
    return rows_of(v, row, row);
}

double sv_over_cache(const sview *v, int row)
{
    double c = mx_table_num(v->t, row, v->ccache);
    return c > 0 ? mx_table_num(v->t, row, v->cidx) / c : NAN;
}

int sv_modelled(const sview *v, int row)
{
    return isnan(mx_table_num(v->t, row, v->cips));
}

const idb_device *sv_plot_device(const sview *v, int row)
{
    return sv_modelled(v, row) ? &v->ssd : NULL;
}

int sv_counter_row(const sview *v, int row)
{
    return v->ctr[row];
}

int sv_point_from(const sview *v, int row)
{
    return search(v->rows, v->run0[row], row, v->rows[row] / SV_SPAN, 1);
}

/* The window's time under device d (NULL: measured only): its inserts / its measured
 * throughput, plus d's time for its reads and writes; NaN when a figure is unknown. */
static double window_time(const sview *v, int row, const idb_device *d)
{
    double ips = mx_table_num(v->t, row, v->cips), n = sv_window_rows(v, row);
    if (!d) return ips > 0 ? n / ips : NAN;
    double busy = ips > 0 ? n / ips : 0;
    double rd = mx_table_num(v->t, row, v->crd), wr = mx_table_num(v->t, row, v->cwr);
    double dev = idb_device_seconds(d, isnan(rd) ? -1 : (int64_t)rd, isnan(wr) ? -1 : (int64_t)wr);
    return dev < 0 || busy + dev <= 0 ? NAN : busy + dev;
}

/* The sums of the windows [from, to] of one run. */
static sv_sum sum_of(const sview *v, int from, int to)
{
    sv_sum a = from > v->run0[from] ? v->sum[from - 1] : (sv_sum){ 0 }, b = v->sum[to];
    for (int i = 0; i < SV_SUMS; i++) {
        b.total[i] -= a.total[i];
        b.unknown[i] -= a.unknown[i];
    }
    b.matched -= a.matched;
    return b;
}

/* Throughput of the windows [from, to] from the running time sum `which`. */
static double summed(const sview *v, int from, int to, int which)
{
    sv_sum s = sum_of(v, from, to);
    double t = s.total[which];
    return s.unknown[which] || !(t > 0) ? NAN : rows_of(v, from, to) / t;
}

double sv_span(const sview *v, int from, int to, const idb_device *d, int counter)
{
    int which = !d ? SV_T_MEAS : d == &v->ssd ? SV_T_SSD : -1;
    if (which >= 0 && !counter) return summed(v, from, to, which);
    if (which >= 0 && sum_of(v, from, to).matched != to - from + 1) return NAN;
    int a = counter ? v->ctr[from] : from, b = counter ? v->ctr[to] : to;
    if (which >= 0 && b - a == to - from) return summed(v, a, b, which);
    double n = 0, t = 0;                         /* another device, or counter's windows */
    for (int i = from; i <= to; i++) {           /* differ between the matched ones */
        int row = counter ? v->ctr[i] : i;
        if (row < 0) return NAN;
        n += sv_window_rows(v, row);
        t += window_time(v, row, d);
    }
    return t > 0 ? n / t : NAN;
}

double sv_per_insert(const sview *v, int from, int to, int which)
{
    sv_sum s = sum_of(v, from, to);
    return s.unknown[which] ? NAN : s.total[which] / rows_of(v, from, to);
}

double sv_point_ips(const sview *v, int row)
{
    return sv_span(v, sv_point_from(v, row), row, sv_plot_device(v, row), 0);
}

double sv_relative(const sview *v, int row)
{
    const idb_device *d = sv_plot_device(v, row);
    int from = sv_point_from(v, row);
    return sv_span(v, from, row, d, 0) / sv_span(v, from, row, d, 1);
}
