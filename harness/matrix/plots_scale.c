/* plots_scale.c — the plots of series.csv (issue 13: the index outgrows the cache) and
 * their sentences: throughput as the table grows, misses per insert against index / cache,
 * and the cache cliff (throughput relative to counter at the same size). The report's
 * tables of series.csv are in report_scale.c; both read it through series_view.h.
 *
 * The plots show the block named "series" (else the first block of the file). A point at
 * n rows aggregates the run's windows ending in (n / SV_SPAN, n]. Throughput: measured;
 * for a store that measures no time (pagesim) the ssd preset's modelled throughput from its
 * reads and writes (device.h), and the panel says so.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plots.h"
#include "series_view.h"

#define SCALE_PANELS 5                           /* stores (with a cache size) side by side */
#define HALF 0.5

/* The panels: the distinct (store, cache_bytes) of v's block in file order, up to
 * SCALE_PANELS, as the first row of each; cached: only those with a cache size. */
static int panels(const sview *v, int *first, int cached)
{
    int n = 0;
    for (int row = 0; row < v->t->nrow && n < SCALE_PANELS; row++) {
        if (strcmp(mx_table_str(v->t, row, v->cb), v->block)) continue;
        if (cached && isnan(sv_over_cache(v, row))) continue;
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

/* The first row of the first run of strategy s in panel p, or -1. */
static int first_run(const sview *v, int p, const char *s)
{
    for (int row = 0; row < v->t->nrow; row = v->run1[row])
        if (in_panel(v, row, p, s)) return row;
    return -1;
}

/* The strategies of v but skip (NULL: none), in file order. */
static mx_names strategies(const sview *v, const char *skip)
{
    mx_names s = { 0 };
    for (int row = 0; row < v->t->nrow; row++)
        if (!skip || strcmp(mx_table_str(v->t, row, v->cs), skip))
            mx_names_add(&s, mx_table_str(v->t, row, v->cs));
    return s;
}

/* For the sentences: v over r, its panels into first (cached: only those with a cache
 * size) and its strategies into s. Returns the panels, or 0 (nothing to say; v is then
 * freed). */
static int open_panels(sview *v, const mx_results *r, int *first, int cached, mx_names *s)
{
    if (!sv_make(v, r)) return 0;
    int np = panels(v, first, cached);
    if (!np) sv_free(v);
    else *s = strategies(v, NULL);
    return np;
}

/* What a plot draws of a row: its x and its y. */
typedef double (*axis_fn)(const sview *v, int row);

static double y_misses(const sview *v, int row)
{
    return sv_per_insert(v, sv_point_from(v, row), row, SV_MISSES);
}

/* Panel p's data file: per strategy of s a block of (x, y) rows of its first run, a NaN
 * row for a strategy without one (so block i stays strategy i). */
static int panel_data(const sview *v, const mx_names *s, int p, axis_fn x, axis_fn y,
                      const char *scratch, const char *file, idb_err *why)
{
    FILE *f = mx_data_open(scratch, file, why);
    if (!f) return IDB_EIO;
    for (int i = 0; i < s->n; i++) {
        int run = first_run(v, p, s->v[i]);
        for (int row = run; run >= 0 && row < v->run1[run]; row++) {
            mx_put(f, x(v, row), "\t");
            mx_put(f, y(v, row), "\n");
        }
        fputs(run >= 0 ? "\n\n" : "NaN\tNaN\n\n\n", f);
    }
    return mx_data_close(f, file, why);
}

/* A panel's title: its store, cache size and whether its throughput is modelled. */
static int panel_title(const sview *v, int p, int n, FILE *vars, idb_err *why)
{
    char title[MX_TITLE_LEN], num[MX_NUM_LEN];
    double cache = mx_table_num(v->t, p, v->ccache);
    snprintf(title, sizeof title, "%s%s%s%s%s", mx_table_str(v->t, p, v->cst),
             isnan(cache) ? "" : ", cache ", isnan(cache) ? "" : mx_num(cache / 1024, num),
             isnan(cache) ? "" : " KiB", sv_modelled(v, p) ? " (modelled: ssd)" : "");
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
    int first[SCALE_PANELS], np = panels(&v, first, cached), rc = 0;
    if (!np) rc = idb_fail(why, IDB_EINPUT, "no series.csv run with a cache size");
    mx_names s = strategies(&v, skip);
    for (int i = 0; i < np && !rc; i++) {
        char file[32];
        snprintf(file, sizeof file, "%s%d.dat", stem, i + 1);
        rc = panel_data(&v, &s, first[i], x, y, scratch, file, why);
        if (!rc) rc = panel_title(&v, first[i], i + 1, vars, why);
    }
    if (!rc && mx_put_names(vars, "", &s, NULL, why)) rc = IDB_EINPUT;
    fprintf(vars, "panels = %d\nwidth = panels > 1 ? 520 * panels + 80 : 1000\n"
            "height = 560\n", np);
    sv_free(&v);
    return rc;
}

/* series: inserts/s against rows inserted, a panel per store (log x). */
int mx_prep_series(const mx_results *r, const char *scratch, FILE *vars, idb_err *why)
{
    return prep_panels(r, scratch, vars, why, "series", 0, sv_rows, sv_point_ips, NULL);
}

/* series_misses: cache misses per insert against index size / cache size. */
int mx_prep_series_misses(const mx_results *r, const char *scratch, FILE *vars, idb_err *why)
{
    return prep_panels(r, scratch, vars, why, "misses", 1, sv_over_cache, y_misses, NULL);
}

/* cliff: throughput relative to counter's at the same size against index / cache. */
int mx_prep_cliff(const mx_results *r, const char *scratch, FILE *vars, idb_err *why)
{
    return prep_panels(r, scratch, vars, why, "cliff", 1, sv_over_cache, sv_relative,
                       SV_SEQUENTIAL);
}

/* series: per strategy on the first panel, the throughput of its first and last point. */
int mx_say_series(const mx_results *r, FILE *f)
{
    sview v;
    int first[SCALE_PANELS];
    mx_names s;
    if (!open_panels(&v, r, first, 0, &s)) return IDB_EINPUT;
    char a[MX_NUM_LEN], b[MX_NUM_LEN], n[MX_NUM_LEN];
    int said = 0;
    fprintf(f, "On %s (block [%s], one run each; a point at n rows: the windows ending "
            "between %.2g n and n, their inserts over their time), from the first point to "
            "the last:", mx_table_str(v.t, first[0], v.cst), v.block, 1 / SV_SPAN);
    for (int i = 0; i < s.n; i++) {
        int run = first_run(&v, first[0], s.v[i]);
        if (run < 0) continue;
        int last = v.run1[run] - 1;
        fprintf(f, "%s %s %s → %s inserts/s at %s rows", said++ ? ";" : "", s.v[i],
                mx_num(sv_point_ips(&v, run), a), mx_num(sv_point_ips(&v, last), b),
                mx_num(sv_rows(&v, last), n));
    }
    fprintf(f, ". %s\n", sv_modelled(&v, first[0])
                             ? "Modelled with the ssd preset: the store measures no time."
                             : "Measured.");
    sv_free(&v);
    return 0;
}

/* series_misses: per strategy on the first panel with a cache, the misses per insert of
 * the last point and the index size / cache size there. */
int mx_say_series_misses(const mx_results *r, FILE *f)
{
    sview v;
    int first[SCALE_PANELS];
    mx_names s;
    if (!open_panels(&v, r, first, 1, &s)) return IDB_EINPUT;
    char a[MX_NUM_LEN], b[MX_NUM_LEN];
    fprintf(f, "On %s, at the last point:", mx_table_str(v.t, first[0], v.cst));
    for (int i = 0; i < s.n; i++) {
        int run = first_run(&v, first[0], s.v[i]);
        if (run < 0) continue;
        int last = v.run1[run] - 1;
        fprintf(f, " %s %s misses per insert with the index at %s× the cache;", s.v[i],
                mx_num(y_misses(&v, last), a), mx_num(sv_over_cache(&v, last), b));
    }
    fprintf(f, " a miss is a page the store's own cache lacked (served here from the OS page "
            "cache).\n");
    sv_free(&v);
    return 0;
}

/* One strategy's cliff in panel p: the first point from which its throughput stays below
 * half of counter's, or its lowest ratio (and whether it ever fell below half); and where
 * its run starts against the cache. */
static void say_cliff(const sview *v, int p, const char *s, int *said, FILE *f)
{
    int run = first_run(v, p, s), from = -1, low = -1, end = run < 0 ? -1 : v->run1[run];
    double lowest = NAN;
    for (int row = run; run >= 0 && row < end; row++) {
        double q = sv_relative(v, row);
        if (isnan(q)) continue;
        if (q < HALF && from < 0) from = row;
        if (q >= HALF) from = -1;
        if (low < 0 || q < lowest) low = row, lowest = q;
    }
    char a[MX_NUM_LEN], b[MX_NUM_LEN], c[MX_NUM_LEN], d[MX_NUM_LEN];
    if (low < 0) return;
    fprintf(f, "%s %s (from %s× the cache)", *said ? ";" : "", s,
            mx_num(sv_over_cache(v, run), d));
    if (from >= 0)
        fprintf(f, " falls below half of counter's at %s× the cache (%s rows) and stays there "
                "(%s at the end)", mx_num(sv_over_cache(v, from), a), mx_num(sv_rows(v, from), b),
                mx_num(sv_relative(v, end - 1), c));
    else
        fprintf(f, " %s half of counter's (lowest %s, at %s× the cache)",
                lowest < HALF ? "falls below but comes back above" : "stays above",
                mx_num(lowest, a), mx_num(sv_over_cache(v, low), b));
    (*said)++;
}

/* cliff: per panel with a cache, where each strategy falls below half of counter's. */
int mx_say_cliff(const mx_results *r, FILE *f)
{
    sview v;
    int first[SCALE_PANELS];
    mx_names s;
    int np = open_panels(&v, r, first, 1, &s);
    if (!np) return IDB_EINPUT;
    for (int p = 0; p < np; p++) {
        fprintf(f, "%sOn %s%s:", p ? " " : "", mx_table_str(v.t, first[p], v.cst),
                sv_modelled(&v, first[p]) ? " (modelled throughput, ssd preset)" : "");
        int said = 0;
        for (int i = 0; i < s.n; i++)
            if (strcmp(s.v[i], SV_SEQUENTIAL)) say_cliff(&v, first[p], s.v[i], &said, f);
        fputc('.', f);
    }
    fprintf(f, " Each point at n rows: the throughput of the windows ending between %.2g n "
            "and n over counter's of the same windows; \"stays\" means at every later point.\n",
            1 / SV_SPAN);
    sv_free(&v);
    return 0;
}
