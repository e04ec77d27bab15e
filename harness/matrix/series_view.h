/* series_view.h — inside harness/matrix only: series.csv read as runs of windows, for the
 * scale plots (plots_scale.c) and the scale sections of the report (report_scale.c).
 *
 * series.csv holds one row per window of each run, runs one after another, each tagged with
 * its matrix block. A run is consecutive rows agreeing on (block, store, strategy,
 * cache_bytes) with rows increasing. The view indexes each row's run, counter's window of
 * the same size and running sums of each run, once: every figure of a point is then a few
 * look-ups, so a view costs O(n log n) whatever series.csv holds.
 *
 * Sizes are read from the windows of one growing run: the window ending at n rows costs what
 * an insert into an n-row table costs. A point of a plot or a figure of the report at n rows
 * aggregates the run's windows ending above n / SV_SPAN and at most n (their inserts over
 * their time), so small tables are read from single windows and large ones from many: the
 * same resolution per factor of size from the first window to the last.
 */
#ifndef IDB_MATRIX_SERIES_VIEW_H
#define IDB_MATRIX_SERIES_VIEW_H

#include "device.h"
#include "matrix.h"

#define SV_SPAN 1.25                             /* a point: windows in (n / 1.25, n] */
#define SV_MAIN_BLOCK "series"
#define SV_SEQUENTIAL "counter"

/* What a view keeps running sums of, per run. */
enum { SV_T_MEAS, SV_T_SSD, SV_MISSES, SV_WRITES, SV_SUMS };

/* Per row: sums over its run's windows up to and including it, so that a point's figures
 * are two look-ups, not a walk over its windows: window times (measured; under the ssd
 * preset), cache misses, pages written; for each, the windows where it is unknown; and the
 * windows that have a counter window of their size. */
typedef struct sv_sum {
    double total[SV_SUMS];
    int unknown[SV_SUMS];
    int matched;
} sv_sum;

/* Column indexes of series.csv and the run index. */
typedef struct sview {
    const mx_table *t;
    int cb, cs, cst, crows, cidx, cips, cmiss, cwr, crd, ccache;
    const char *block;                           /* the block the plots show */
    idb_device ssd;                              /* the preset of stores without time */
    int *run0, *run1;                            /* per row: its run's rows [run0, run1) */
    int *ctr;                                    /* per row: counter's row of its size, -1 */
    double *rows;                                /* per row: rows at its end */
    sv_sum *sum;                                 /* per row: its run's sums up to it */
} sview;

/* Set v up over r's series.csv. Returns 1, or 0 when it has no rows or memory ran out (v
 * then needs no sv_free). */
int sv_make(sview *v, const mx_results *r);
void sv_free(sview *v);

double sv_rows(const sview *v, int row);         /* rows at the window's end */
double sv_window_rows(const sview *v, int row);  /* inserts of the window */
/* Index bytes / cache bytes at row's end, NaN without a cache size. */
double sv_over_cache(const sview *v, int row);
/* 1 when the run measures no time (pagesim): its throughput is the ssd preset's. */
int sv_modelled(const sview *v, int row);
/* The device a run's plotted throughput uses: NULL (measured) or &v->ssd. */
const idb_device *sv_plot_device(const sview *v, int row);

/* counter's row of the same block, store, cache and rows as row, or -1. */
int sv_counter_row(const sview *v, int row);
/* The first row of row's point: its run's first window ending above rows / SV_SPAN. */
int sv_point_from(const sview *v, int row);

/* Throughput of the windows [from, to] of one run under device d (NULL: measured), as their
 * inserts / their time (measured time + d's time for their reads and writes); counter: the
 * same of counter's windows of the same sizes. NaN when a figure is unknown. NULL and
 * &v->ssd are read from the running sums, another device window by window. */
double sv_span(const sview *v, int from, int to, const idb_device *d, int counter);
/* Sum `which` (SV_MISSES, SV_WRITES) over rows [from, to] per insert (NaN: unknown). */
double sv_per_insert(const sview *v, int from, int to, int which);
/* The plotted throughput of row's point: measured, else modelled with the ssd preset. */
double sv_point_ips(const sview *v, int row);
/* row's point's throughput over counter's at the same sizes (NaN: unknown). */
double sv_relative(const sview *v, int row);

#endif
