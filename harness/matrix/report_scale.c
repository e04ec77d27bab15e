/* report_scale.c — the report's tables of series.csv (issue 13): the cost per insert against
 * size (1e4 .. 1e7) with the fitted growth k of cost ∝ n^k, and the device model's random /
 * sequential throughput ratios beside the published ones. Read through series_view.h; a
 * figure at n rows aggregates the run's windows ending in (n / SV_SPAN, n].
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plots.h"
#include "report_doc.h"
#include "series_view.h"

#define US_PER_S 1e6
#define DECADE 10.0
#define COST_SIZES 4                             /* 1e4 .. 1e7 */
#define COST_COLS (7 + COST_SIZES)               /* block .. unit, the sizes, N, k */
#define DEVICE_COLS 8                            /* the device table's columns */
#define LINE_LEN 1024                            /* one paragraph of the report */

/* The cost per insert of the windows [from, to] of one run: measured microseconds, or for
 * a store that measures no time its page reads (misses) and writes per insert; NaN when
 * unknown. *unit names it. */
static double cost(const sview *v, int from, int to, const char **unit)
{
    *unit = sv_modelled(v, to) ? "page I/Os" : "µs";
    if (!sv_modelled(v, to)) return US_PER_S / sv_span(v, from, to, NULL, 0);
    return sv_per_insert(v, from, to, SV_MISSES) + sv_per_insert(v, from, to, SV_WRITES);
}

/* The growth exponent k of cost ∝ n^k: a least-squares line through (log n, log cost) of
 * the single windows of the run [run, end) whose end lies in its top decade (NaN: under 2). */
static double growth(const sview *v, int run, int end)
{
    double top = sv_rows(v, end - 1), sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    const char *unit;
    for (int i = run; i < end; i++) {
        double x = sv_rows(v, i), y = cost(v, i, i, &unit);
        if (x < top / DECADE || !(y > 0)) continue;
        x = log(x);
        y = log(y);
        sx += x, sy += y, sxx += x * x, sxy += x * y, k++;
    }
    double d = k * sxx - sx * sx;
    return k < 2 || d <= 0 ? NAN : (k * sxy - sx * sy) / d;
}

/* One table row: the run starting at table row `run`. */
static void cost_row(const sview *v, int run, mx_doc *d)
{
    int end = v->run1[run];
    const char *unit = "";
    char num[COST_COLS][MX_NUM_LEN];
    const char *cells[COST_COLS];
    cost(v, run, run, &unit);
    double cache = mx_table_num(v->t, run, v->ccache);
    cells[0] = mx_table_str(v->t, run, v->cb);
    cells[1] = mx_table_str(v->t, run, v->cst);
    cells[2] = isnan(cache) ? "—" : mx_num(cache / 1024, num[2]);
    cells[3] = mx_table_str(v->t, run, v->cs);
    cells[4] = unit;
    for (int e = 0; e < COST_SIZES; e++) {
        double size = pow(DECADE, e + 4), c = NAN;
        for (int i = run; i < end; i++)
            if (sv_rows(v, i) == size) c = cost(v, sv_point_from(v, i), i, &unit);
        cells[5 + e] = isnan(c) ? "—" : mx_num(c, num[5 + e]);
    }
    double g = growth(v, run, end);
    cells[5 + COST_SIZES] = mx_num(sv_rows(v, end - 1), num[5 + COST_SIZES]);
    cells[6 + COST_SIZES] = isnan(g) ? "—" : mx_num(g, num[6 + COST_SIZES]);
    d->ops->row(d, cells);
}

/* The cost table: a row per run of series.csv. */
static void cost_table(const sview *v, mx_doc *d)
{
    static const char *const head[COST_COLS] = {
        "block", "store", "cache KiB", "strategy", "unit", "1e4", "1e5", "1e6", "1e7", "N", "k",
    };
    char text[LINE_LEN];
    snprintf(text, sizeof text,
             "The cost per insert at each size (measured µs per insert; pagesim, which "
             "measures no time: page reads + writes per insert) over the windows ending "
             "between %.2g n and n rows, and k of cost ∝ n^k fitted (least squares, log–log) "
             "over the single windows of the run's top decade (N/10 .. N rows, N the run's "
             "size). k near 0: flat; a strategy whose inserts miss the cache grows with the "
             "index.", 1 / SV_SPAN);
    d->ops->heading(d, 2, "Cost per insert against size (series.csv)");
    d->ops->para(d, text);
    d->ops->table(d, COST_COLS, head, "lllllrrrrrr");
    for (int row = 0; row < v->t->nrow; row = v->run1[row]) cost_row(v, row, d);
}

/* The published random / sequential throughput ratios at the largest scale (docs/scale.md). */
static const struct { const char *device, *published; } vondra[] = {
    { "hdd", "about 20% (Vondra 2018: RAID10 of three 7.2k rpm SATA drives)" },
    { "ssd", "about 50% (Vondra 2019: 6 × Intel S3700 in RAID0)" },
};

/* One line per device for the run starting at row against counter, over the last quarter
 * of its windows. */
static void device_rows(const sview *v, int run, mx_doc *d)
{
    int end = v->run1[run], k = end - run, from = end - (k + 3) / 4;
    int c = sv_counter_row(v, end - 1);
    if (c < 0) return;
    char a[MX_NUM_LEN], b[MX_NUM_LEN], q[MX_NUM_LEN], m[MX_NUM_LEN];
    double meas = sv_span(v, from, end - 1, NULL, 0) / sv_span(v, from, end - 1, NULL, 1);
    for (size_t i = 0; i < sizeof vondra / sizeof *vondra; i++) {
        idb_device dev;
        idb_device_preset(vondra[i].device, &dev);
        double x = sv_span(v, from, end - 1, &dev, 0), y = sv_span(v, from, end - 1, &dev, 1);
        const char *cells[DEVICE_COLS] = {
            mx_table_str(v->t, run, v->cst), mx_table_str(v->t, run, v->cs), vondra[i].device,
            mx_num(sv_rows(v, c), a), mx_num(sv_over_cache(v, c), b),
            isnan(x / y) ? "n/a" : mx_num(x / y * 100, q),
            isnan(meas) ? "n/a" : mx_num(meas * 100, m), vondra[i].published,
        };
        d->ops->row(d, cells);
    }
}

/* The table of modelled random / sequential ratios beside the published ones: a line per
 * device for each run of the main block with a cache size but counter's. */
static void device_table(const sview *v, mx_doc *d)
{
    static const char *const head[DEVICE_COLS] = {
        "store", "strategy", "device", "rows", "index / cache", "modelled % of counter",
        "measured %", "published",
    };
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
    for (int row = 0; row < v->t->nrow; row = v->run1[row])
        if (!strcmp(mx_table_str(v->t, row, v->cb), v->block) &&
            !isnan(sv_over_cache(v, row)) &&
            strcmp(mx_table_str(v->t, row, v->cs), SV_SEQUENTIAL))
            device_rows(v, row, d);
}

/* The report's scale sections (plots.h): the cost table and the device model's ratios. */
void mx_report_scale(const mx_results *r, mx_doc *d)
{
    sview v;
    if (!sv_make(&v, r)) {
        d->ops->heading(d, 2, "Cost per insert against size");
        d->ops->para(d, "No series.csv rows.");
        return;
    }
    cost_table(&v, d);
    device_table(&v, d);
    sv_free(&v);
}
