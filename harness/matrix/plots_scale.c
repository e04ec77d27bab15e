/* plots_scale.c — the plots and report parts of series.csv (issue 13: the index outgrows
 * the cache): throughput as the table grows, misses per insert against index / cache, the
 * cache cliff (throughput relative to counter at the same size), and for the report the
 * cost per insert against size with its fitted growth, and the device model's random /
 * sequential ratios beside the published ones.
 *
 * series.csv holds one row per window of each run (series.h), runs one after another,
 * each tagged with its matrix block. A run is (block, store, strategy, cache_bytes). The
 * plots show the block named "series" (else the first block of the file). Throughput of
 * a window: the measured inserts/s; for a store that measures no time (pagesim) the
 * modelled one of the ssd preset from its reads and writes (device.h), and the panel says
 * so. The sweep is the same windows read against index size / cache size: the window that
 * ends at n rows costs what an insert into an n-row table costs, so a growing run gives
 * every size of the sweep without repeating the first n inserts at each size.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "plots.h"
#include "report_doc.h"

#define SCALE_PANELS 4                           /* stores (with a cache size) side by side */
#define MAIN_BLOCK "series"
#define SEQUENTIAL "counter"
#define RANDOM "uuidv4"
#define HALF 0.5
#define US_PER_S 1e6
#define DECADE 10.0
#define COST_SIZES 4                             /* 1e4 .. 1e7 */
#define COST_COLS (7 + COST_SIZES)               /* block .. unit, the sizes, N, k */
#define DEVICE_COLS 8                            /* the device table's columns */
#define LINE_LEN 1024                            /* one paragraph of the report */

/* Column indexes of series.csv. */
typedef struct sview {
    const mx_table *t;
    int cb, cs, cst, crows, cidx, cips, cmiss, cwr, crd, ccache;
    const char *block;                           /* the block the plots show */
} sview;

/* Set v up over r's series.csv. Returns 0 when it has no rows. */
static int sv_make(sview *v, const mx_results *r)
{
    const mx_table *t = &r->series;
    *v = (sview){ .t = t, .cb = mx_table_col(t, "block"), .cs = mx_table_col(t, "strategy"),
                  .cst = mx_table_col(t, "store"), .crows = mx_table_col(t, "rows"),
                  .cidx = mx_table_col(t, "index_bytes"), .cips = mx_table_col(t, "inserts_per_s"),
                  .cmiss = mx_table_col(t, "cache_misses"), .cwr = mx_table_col(t, "pages_written"),
                  .crd = mx_table_col(t, "read_pages"), .ccache = mx_table_col(t, "cache_bytes") };
    if (!t->nrow) return 0;
    v->block = mx_table_str(t, 0, v->cb);
    for (int row = 0; row < t->nrow; row++)
        if (!strcmp(mx_table_str(t, row, v->cb), MAIN_BLOCK)) v->block = MAIN_BLOCK;
    return 1;
}

/* 1 when rows a and b of v agree on block, store and cache (and strategy when strat). */
static int same_cols(const sview *v, int a, int b, int strat)
{
    const int cols[] = { v->cb, v->cst, v->ccache, v->cs };
    size_t n = sizeof cols / sizeof *cols - (strat ? 0 : 1);
    for (size_t i = 0; i < n; i++)
        if (strcmp(mx_table_str(v->t, a, cols[i]), mx_table_str(v->t, b, cols[i]))) return 0;
    return 1;
}

/* 1 when rows a and b of v belong to one run (block, store, strategy, cache). */
static int same_run(const sview *v, int a, int b)
{
    return same_cols(v, a, b, 1);
}

/* The inserts of row's window: its rows less the previous row's of the same run. */
static double window_rows(const sview *v, int row)
{
    double n = mx_table_num(v->t, row, v->crows);
    if (row > 0 && same_run(v, row - 1, row) &&
        mx_table_num(v->t, row - 1, v->crows) < n)
        n -= mx_table_num(v->t, row - 1, v->crows);
    return n;
}

/* The window's throughput under device d (NULL: the measured one): its inserts / (its
 * measured time + d's time for its reads and writes); NaN when a figure is unknown. */
static double throughput(const sview *v, int row, const idb_device *d)
{
    double ips = mx_table_num(v->t, row, v->cips), n = window_rows(v, row);
    double busy = isnan(ips) || ips <= 0 ? 0 : n / ips;
    if (!d) return isnan(ips) ? NAN : ips;
    double rd = mx_table_num(v->t, row, v->crd), wr = mx_table_num(v->t, row, v->cwr);
    double dev = idb_device_seconds(d, isnan(rd) ? -1 : (int64_t)rd, isnan(wr) ? -1 : (int64_t)wr);
    return dev < 0 || busy + dev <= 0 ? NAN : n / (busy + dev);
}

/* The plotted throughput of a window: measured, else modelled with the ssd preset. */
static double plotted(const sview *v, int row, int *modelled)
{
    double ips = throughput(v, row, NULL);
    *modelled = isnan(ips);
    if (!*modelled) return ips;
    idb_device ssd;
    idb_device_preset("ssd", &ssd);
    return throughput(v, row, &ssd);
}

/* Index bytes / cache bytes at row's end, NaN without a cache size. */
static double over_cache(const sview *v, int row)
{
    double c = mx_table_num(v->t, row, v->ccache);
    return c > 0 ? mx_table_num(v->t, row, v->cidx) / c : NAN;
}

/* The panels: the distinct (store, cache_bytes) of v's block in file order, up to
 * SCALE_PANELS, as the first row of each; cached: only those with a cache size. */
static int panels(const sview *v, int *first, int cached)
{
    int n = 0;
    for (int row = 0; row < v->t->nrow && n < SCALE_PANELS; row++) {
        if (strcmp(mx_table_str(v->t, row, v->cb), v->block)) continue;
        if (cached && isnan(over_cache(v, row))) continue;
        int seen = 0;
        for (int i = 0; i < n && !seen; i++)
            seen = !strcmp(mx_table_str(v->t, first[i], v->cst), mx_table_str(v->t, row, v->cst))
                   && !strcmp(mx_table_str(v->t, first[i], v->ccache),
                              mx_table_str(v->t, row, v->ccache));
        if (!seen) first[n++] = row;
    }
    return n;
}

/* 1 when row is of panel p's store and cache in v's block, of strategy s (NULL: any). */
static int in_panel(const sview *v, int row, int p, const char *s)
{
    return !strcmp(mx_table_str(v->t, row, v->cb), v->block) &&
           !strcmp(mx_table_str(v->t, row, v->cst), mx_table_str(v->t, p, v->cst)) &&
           !strcmp(mx_table_str(v->t, row, v->ccache), mx_table_str(v->t, p, v->ccache)) &&
           (!s || !strcmp(mx_table_str(v->t, row, v->cs), s));
}

/* counter's row of the same block, store, cache and rows as row, or -1. */
static int counter_row(const sview *v, int row)
{
    for (int i = 0; i < v->t->nrow; i++)
        if (!strcmp(mx_table_str(v->t, i, v->cs), SEQUENTIAL) && same_cols(v, i, row, 0) &&
            mx_table_num(v->t, i, v->crows) == mx_table_num(v->t, row, v->crows))
            return i;
    return -1;
}

#define SMOOTH 3                                 /* windows the cliff's ratio spans */

/* Throughput of rows[from..to) of one run under device d (NULL: measured), as their
 * inserts / their time; with counter, the same of counter's windows of the same sizes.
 * NaN when a figure is unknown. */
static double span(const sview *v, const int *rows, int from, int to, const idb_device *d,
                   int counter)
{
    double n = 0, t = 0;
    for (int i = from; i < to; i++) {
        int row = counter ? counter_row(v, rows[i]) : rows[i];
        if (row < 0) return NAN;
        double w = window_rows(v, row), tp = throughput(v, row, d);
        n += w;
        t += w / tp;
    }
    return t > 0 ? n / t : NAN;
}

/* The device the plots use for a row's run: NULL (measured) when it measures time, else
 * the ssd preset (into *ssd). */
static const idb_device *plot_device(const sview *v, int row, idb_device *ssd)
{
    int m;
    plotted(v, row, &m);
    idb_device_preset("ssd", ssd);
    return m ? ssd : NULL;
}

/* The throughput of the SMOOTH windows of one run ending at row relative to counter's of
 * the same sizes (NaN: none). */
static double relative(const sview *v, int row)
{
    int rows[SMOOTH], n = 0;
    for (int r = row; r >= 0 && n < SMOOTH && same_run(v, r, row); r--)
        rows[SMOOTH - 1 - n++] = r;
    idb_device ssd;
    const idb_device *d = plot_device(v, row, &ssd);
    const int *w = rows + SMOOTH - n;
    return span(v, w, 0, n, d, 0) / span(v, w, 0, n, d, 1);
}

/* What a plot draws of a row: its x and its y. */
typedef double (*axis_fn)(const sview *v, int row);

static double x_rows(const sview *v, int row) { return mx_table_num(v->t, row, v->crows); }
static double y_ips(const sview *v, int row) { int m; return plotted(v, row, &m); }
static double y_misses(const sview *v, int row)
{
    return mx_table_num(v->t, row, v->cmiss) / window_rows(v, row);
}

/* Panel p's data file: per strategy of s a block of (x, y) rows in file order, a NaN row
 * for a strategy without one (so block i stays strategy i). */
static int panel_data(const sview *v, const mx_names *s, int p, axis_fn x, axis_fn y,
                      const char *scratch, const char *file, idb_err *why)
{
    FILE *f = mx_data_open(scratch, file, why);
    if (!f) return IDB_EIO;
    for (int i = 0; i < s->n; i++) {
        int n = 0;
        for (int row = 0; row < v->t->nrow; row++) {
            if (!in_panel(v, row, p, s->v[i])) continue;
            mx_put(f, x(v, row), "\t");
            mx_put(f, y(v, row), "\n");
            n++;
        }
        fputs(n ? "\n\n" : "NaN\tNaN\n\n\n", f);
    }
    return mx_data_close(f, file, why);
}

/* A panel's title: its store, cache size and whether its throughput is modelled. */
static int panel_title(const sview *v, int p, int n, FILE *vars, idb_err *why)
{
    char title[MX_TITLE_LEN], num[MX_NUM_LEN];
    double cache = mx_table_num(v->t, p, v->ccache);
    int modelled = 0;
    plotted(v, p, &modelled);
    snprintf(title, sizeof title, "%s%s%s%s%s", mx_table_str(v->t, p, v->cst),
             isnan(cache) ? "" : ", cache ", isnan(cache) ? "" : mx_num(cache / 1024, num),
             isnan(cache) ? "" : " KiB", modelled ? " (modelled: ssd)" : "");
    fprintf(vars, "title%d = ", n);
    return mx_gp_string(vars, title, why) ? IDB_EINPUT : 0;
}

/* The plot of x against y, a panel per (store, cache) of the main block (cached: only
 * those with a cache size), a line per strategy (skip: one left out, or NULL). */
static int prep_panels(const mx_results *r, const char *scratch, FILE *vars, idb_err *why,
                       const char *stem, int cached, axis_fn x, axis_fn y, const char *skip)
{
    sview v;
    if (!sv_make(&v, r)) return idb_fail(why, IDB_EINPUT, "no series.csv rows (no series cell "
                                         "succeeded, or no [series] block)");
    int first[SCALE_PANELS], np = panels(&v, first, cached);
    if (!np) return idb_fail(why, IDB_EINPUT, "no series.csv run with a cache size");
    mx_names s = { 0 };
    for (int row = 0; row < v.t->nrow; row++)
        if (!skip || strcmp(mx_table_str(v.t, row, v.cs), skip))
            mx_names_add(&s, mx_table_str(v.t, row, v.cs));
    int rc = 0;
    for (int i = 0; i < np && !rc; i++) {
        char file[32];
        snprintf(file, sizeof file, "%s%d.dat", stem, i + 1);
        rc = panel_data(&v, &s, first[i], x, y, scratch, file, why);
        if (!rc) rc = panel_title(&v, first[i], i + 1, vars, why);
    }
    if (!rc && mx_put_names(vars, "", &s, NULL, why)) rc = IDB_EINPUT;
    fprintf(vars, "panels = %d\nwidth = panels > 1 ? 520 * panels + 80 : 1000\n"
            "height = 560\n", np);
    return rc;
}

/* series: inserts/s against rows inserted, a panel per store (log x). */
int mx_prep_series(const mx_results *r, const char *scratch, FILE *vars, idb_err *why)
{
    return prep_panels(r, scratch, vars, why, "series", 0, x_rows, y_ips, NULL);
}

/* series_misses: cache misses per insert against index size / cache size. */
int mx_prep_series_misses(const mx_results *r, const char *scratch, FILE *vars, idb_err *why)
{
    return prep_panels(r, scratch, vars, why, "misses", 1, over_cache, y_misses, NULL);
}

/* cliff: throughput relative to counter's at the same size against index / cache. */
int mx_prep_cliff(const mx_results *r, const char *scratch, FILE *vars, idb_err *why)
{
    return prep_panels(r, scratch, vars, why, "cliff", 1, over_cache, relative, SEQUENTIAL);
}


/* The rows of strategy s in panel p, in file order (by rows), into out; how many. */
static int run_rows(const sview *v, int p, const char *s, int *out, int max)
{
    int n = 0;
    for (int row = 0; row < v->t->nrow && n < max; row++)
        if (in_panel(v, row, p, s)) out[n++] = row;
    return n;
}

#define RUN_ROWS_MAX 100000                      /* windows of one run the prose reads */

/* series: per strategy on the first panel, the throughput of its first and last window. */
int mx_say_series(const mx_results *r, FILE *f)
{
    sview v;
    int first[SCALE_PANELS], *rows = malloc(RUN_ROWS_MAX * sizeof *rows);
    if (!rows || !sv_make(&v, r) || !panels(&v, first, 0)) { free(rows); return IDB_EINPUT; }
    mx_names s = { 0 };
    for (int row = 0; row < v.t->nrow; row++) mx_names_add(&s, mx_table_str(v.t, row, v.cs));
    char a[MX_NUM_LEN], b[MX_NUM_LEN], n[MX_NUM_LEN];
    int m, said = 0;
    fprintf(f, "On %s (block [%s], one run each, a point per window), from the first window "
            "to the last:", mx_table_str(v.t, first[0], v.cst), v.block);
    for (int i = 0; i < s.n; i++) {
        int k = run_rows(&v, first[0], s.v[i], rows, RUN_ROWS_MAX);
        if (!k) continue;
        fprintf(f, "%s %s %s → %s inserts/s at %s rows", said++ ? ";" : "", s.v[i],
                mx_num(plotted(&v, rows[0], &m), a), mx_num(plotted(&v, rows[k - 1], &m), b),
                mx_num(x_rows(&v, rows[k - 1]), n));
    }
    plotted(&v, first[0], &m);
    fprintf(f, ". %s\n", m ? "Modelled with the ssd preset: the store measures no time."
                           : "Measured.");
    free(rows);
    return 0;
}

/* series_misses: per strategy on the first panel with a cache, the misses per insert of
 * the last window and the index size / cache size there. */
int mx_say_series_misses(const mx_results *r, FILE *f)
{
    sview v;
    int first[SCALE_PANELS], *rows = malloc(RUN_ROWS_MAX * sizeof *rows);
    if (!rows || !sv_make(&v, r) || !panels(&v, first, 1)) { free(rows); return IDB_EINPUT; }
    mx_names s = { 0 };
    for (int row = 0; row < v.t->nrow; row++) mx_names_add(&s, mx_table_str(v.t, row, v.cs));
    char a[MX_NUM_LEN], b[MX_NUM_LEN];
    fprintf(f, "On %s, in the last window:", mx_table_str(v.t, first[0], v.cst));
    for (int i = 0; i < s.n; i++) {
        int k = run_rows(&v, first[0], s.v[i], rows, RUN_ROWS_MAX);
        if (!k) continue;
        fprintf(f, " %s %s misses per insert with the index at %s× the cache;", s.v[i],
                mx_num(y_misses(&v, rows[k - 1]), a), mx_num(over_cache(&v, rows[k - 1]), b));
    }
    fprintf(f, " a miss is a page the store's own cache lacked (served here from the OS page "
            "cache).\n");
    free(rows);
    return 0;
}

/* One strategy's cliff in panel p: the first window from which its throughput stays below
 * half of counter's, or its lowest ratio. */
static void say_cliff(const sview *v, int p, const char *s, int *rows, int *said, FILE *f)
{
    int k = run_rows(v, p, s, rows, RUN_ROWS_MAX), from = -1, low = -1;
    for (int i = 0; i < k; i++) {
        double q = relative(v, rows[i]);
        if (isnan(q)) continue;
        if (q < HALF && from < 0) from = i;
        if (q >= HALF) from = -1;
        if (low < 0 || q < relative(v, rows[low])) low = i;
    }
    char a[MX_NUM_LEN], b[MX_NUM_LEN], c[MX_NUM_LEN];
    if (from >= 0)
        fprintf(f, "%s %s falls below half of counter's at %s× the cache (%s rows) and "
                "stays there (%s at the end)", *said ? ";" : "", s,
                mx_num(over_cache(v, rows[from]), a), mx_num(x_rows(v, rows[from]), b),
                mx_num(relative(v, rows[k - 1]), c));
    else if (low >= 0)
        fprintf(f, "%s %s stays above half of counter's (lowest %s, at %s× the cache)",
                *said ? ";" : "", s,
                mx_num(relative(v, rows[low]), a), mx_num(over_cache(v, rows[low]), b));
    *said += from >= 0 || low >= 0;
}

/* cliff: per panel with a cache, where each strategy falls below half of counter's. */
int mx_say_cliff(const mx_results *r, FILE *f)
{
    sview v;
    int first[SCALE_PANELS], np, *rows = malloc(RUN_ROWS_MAX * sizeof *rows);
    if (!rows || !sv_make(&v, r) || !(np = panels(&v, first, 1))) {
        free(rows);
        return IDB_EINPUT;
    }
    mx_names s = { 0 };
    for (int row = 0; row < v.t->nrow; row++) mx_names_add(&s, mx_table_str(v.t, row, v.cs));
    for (int p = 0; p < np; p++) {
        int m;
        plotted(&v, first[p], &m);
        fprintf(f, "%sOn %s%s:", p ? " " : "", mx_table_str(v.t, first[p], v.cst),
                m ? " (modelled throughput, ssd preset)" : "");
        int said = 0;
        for (int i = 0; i < s.n; i++)
            if (strcmp(s.v[i], SEQUENTIAL)) say_cliff(&v, first[p], s.v[i], rows, &said, f);
        fputc('.', f);
    }
    fprintf(f, " Each point: the throughput of %d windows ending there over counter's of "
            "the same sizes; \"stays\" means at every later point.\n", SMOOTH);
    free(rows);
    return 0;
}

/* Report: cost per insert against size ---------------------------------------------------- */

/* A window's cost per insert: measured microseconds, or for a store that measures no time
 * its page reads and writes per insert; NaN when unknown. *unit names it. */
static double cost(const sview *v, int row, const char **unit)
{
    double ips = mx_table_num(v->t, row, v->cips);
    *unit = isnan(ips) ? "page I/Os" : "µs";
    if (!isnan(ips)) return ips > 0 ? US_PER_S / ips : NAN;
    return (mx_table_num(v->t, row, v->cmiss) + mx_table_num(v->t, row, v->cwr)) /
           window_rows(v, row);
}

/* The growth exponent k of cost ∝ n^k: a least-squares line through (log n, log cost) of
 * the windows of rows[0..n) whose end lies in the top decade of the run (NaN: under 2). */
static double growth(const sview *v, const int *rows, int n)
{
    double top = x_rows(v, rows[n - 1]), sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    const char *unit;
    for (int i = 0; i < n; i++) {
        double x = x_rows(v, rows[i]), y = cost(v, rows[i], &unit);
        if (x < top / DECADE || !(y > 0)) continue;
        x = log(x);
        y = log(y);
        sx += x, sy += y, sxx += x * x, sxy += x * y, k++;
    }
    double d = k * sxx - sx * sx;
    return k < 2 || d <= 0 ? NAN : (k * sxy - sx * sy) / d;
}

/* One table row: run starting at table row `at` (its windows follow it). */
static void cost_row(const sview *v, int at, int *rows, mx_doc *d)
{
    int n = 0;
    for (int row = at; row < v->t->nrow && same_run(v, at, row) && n < RUN_ROWS_MAX; row++)
        rows[n++] = row;
    const char *unit = "";
    char num[COST_COLS][MX_NUM_LEN];
    const char *cells[COST_COLS];
    cost(v, at, &unit);
    double cache = mx_table_num(v->t, at, v->ccache);
    cells[0] = mx_table_str(v->t, at, v->cb);
    cells[1] = mx_table_str(v->t, at, v->cst);
    cells[2] = isnan(cache) ? "—" : mx_num(cache / 1024, num[2]);
    cells[3] = mx_table_str(v->t, at, v->cs);
    cells[4] = unit;
    for (int e = 0; e < COST_SIZES; e++) {
        double size = pow(DECADE, e + 4), c = NAN;
        for (int i = 0; i < n; i++)
            if (x_rows(v, rows[i]) == size) c = cost(v, rows[i], &unit);
        cells[5 + e] = isnan(c) ? "—" : mx_num(c, num[5 + e]);
    }
    double g = growth(v, rows, n);
    cells[5 + COST_SIZES] = mx_num(x_rows(v, rows[n - 1]), num[5 + COST_SIZES]);
    cells[6 + COST_SIZES] = isnan(g) ? "—" : mx_num(g, num[6 + COST_SIZES]);
    d->ops->row(d, cells);
}

/* The cost table: a row per run of series.csv. */
static void cost_table(const sview *v, int *rows, mx_doc *d)
{
    static const char *const head[COST_COLS] = {
        "block", "store", "cache KiB", "strategy", "unit", "1e4", "1e5", "1e6", "1e7", "N", "k",
    };
    d->ops->heading(d, 2, "Cost per insert against size (series.csv)");
    d->ops->para(d, "The cost of the window ending at each size (measured µs per insert; "
                 "pagesim, which measures no time: page reads + writes per insert), and k of "
                 "cost ∝ n^k fitted (least squares, log–log) over the windows of the run's top "
                 "decade (N/10 .. N rows, N the run's size). k near 0: flat; a strategy whose "
                 "inserts miss the cache grows with the index.");
    d->ops->table(d, COST_COLS, head, "lllllrrrrrr");
    for (int row = 0; row < v->t->nrow; row++)
        if (row == 0 || !same_run(v, row - 1, row)) cost_row(v, row, rows, d);
}

/* Report: the device model against the published ratios ---------------------------------- */

/* The published random / sequential throughput ratios at the largest scale (docs/scale.md). */
static const struct { const char *device, *published; } vondra[] = {
    { "hdd", "about 20% (Vondra 2018: RAID10 of three 7.2k rpm SATA drives)" },
    { "ssd", "about 50% (Vondra 2019: 6 × Intel S3700 in RAID0)" },
};

/* One line per device for strategy s against counter in panel p, at s's last window. */
static void device_rows(const sview *v, int p, const char *s, int *rows, mx_doc *d)
{
    int k = run_rows(v, p, s, rows, RUN_ROWS_MAX), from = k - (k + 3) / 4;  /* last quarter */
    int c = k ? counter_row(v, rows[k - 1]) : -1;
    if (c < 0) return;
    char a[MX_NUM_LEN], b[MX_NUM_LEN], q[MX_NUM_LEN], m[MX_NUM_LEN];
    double meas = span(v, rows, from, k, NULL, 0) / span(v, rows, from, k, NULL, 1);
    for (size_t i = 0; i < sizeof vondra / sizeof *vondra; i++) {
        idb_device dev;
        idb_device_preset(vondra[i].device, &dev);
        double x = span(v, rows, from, k, &dev, 0), y = span(v, rows, from, k, &dev, 1);
        const char *cells[DEVICE_COLS] = {
            mx_table_str(v->t, p, v->cst), s, vondra[i].device,
            mx_num(x_rows(v, c), a), mx_num(over_cache(v, c), b),
            isnan(x / y) ? "n/a" : mx_num(x / y * 100, q),
            isnan(meas) ? "n/a" : mx_num(meas * 100, m), vondra[i].published,
        };
        d->ops->row(d, cells);
    }
}

/* The table of modelled random / sequential ratios beside the published ones. */
static void device_table(const sview *v, int *rows, mx_doc *d)
{
    static const char *const head[DEVICE_COLS] = {
        "store", "strategy", "device", "rows", "index / cache", "modelled % of counter",
        "measured %", "published",
    };
    int first[SCALE_PANELS], np = panels(v, first, 1);
    char text[LINE_LEN];
    snprintf(text, sizeof text,
             "Throughput of each strategy relative to counter over the last quarter of its "
             "run's windows (block [%s]), with every page read and write there charged the "
             "preset's latency (device.h; accounted, not slept) on top of the measured time, "
             "beside the measured ratio (the OS page cache serving every miss) and the "
             "published ratio of random to sequential UUIDs at the largest scale. What the "
             "model leaves out (OS cache, read-ahead, write-back, queue depth, group commit) "
             "and why the figures differ: docs/scale.md.", v->block);
    d->ops->heading(d, 2, "The device model against the published ratios");
    d->ops->para(d, text);
    d->ops->table(d, DEVICE_COLS, head, "lllrrrrl");
    for (int p = 0; p < np; p++)
        for (int row = 0; row < v->t->nrow; row++)
            if (in_panel(v, row, first[p], NULL) && strcmp(mx_table_str(v->t, row, v->cs),
                                                           SEQUENTIAL) &&
                (row == 0 || !same_run(v, row - 1, row)))
                device_rows(v, first[p], mx_table_str(v->t, row, v->cs), rows, d);
}

/* The report's scale sections (plots.h): the cost table and the device model's ratios. */
void mx_report_scale(const mx_results *r, mx_doc *d)
{
    sview v;
    int *rows = malloc(RUN_ROWS_MAX * sizeof *rows);
    if (!rows || !sv_make(&v, r)) {
        d->ops->heading(d, 2, "Cost per insert against size");
        d->ops->para(d, "No series.csv rows.");
        free(rows);
        return;
    }
    cost_table(&v, rows, d);
    device_table(&v, rows, d);
    free(rows);
}
