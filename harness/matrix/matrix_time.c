/* matrix_time.c — where a matrix run's time went: cells.csv (one row per cell that ran, its
 * wall time) and the report's "Where the time went" section read back from it.
 *
 * cells.csv  cell (1-based, the plan's order), kind (generation, insert, openloop, curve,
 *            simulate, skew, claims, series, kill, read, failover), store and strategy ("-"
 *            where the kind has none), status (done | failed), seconds (the cell's wall
 *            time, child start to end, as measured by matrix_cells.c: startup of its
 *            servers included), label (the progress line's; commas written as ';').
 * It is rewritten after every cell (through a temporary name), so a killed run keeps the
 * times of the cells that ended. The report groups the rows by kind and store: cells,
 * seconds, share of the whole and seconds per cell, the largest first.
 */
#include "matrix.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "plots.h"
#include "report_doc.h"

/* The kinds' names in cells.csv, by enum mx_kind (an open-loop insert is "openloop"). */
static const char *const kind_names[MX_KINDS] = {
    [MX_GEN] = "generation", [MX_INSERT] = "insert", [MX_CURVE] = "curve",
    [MX_SIM] = "simulate", [MX_SKEW] = "skew", [MX_CLAIMS] = "claims",
    [MX_SERIES] = "series", [MX_KILL] = "kill", [MX_READ] = "read",
    [MX_FAILOVER] = "failover",
};

static const char *kind_name(const mx_cell *c)
{
    if (c->kind == MX_INSERT && c->rate > 0) return "openloop";
    return c->kind >= 0 && c->kind < MX_KINDS && kind_names[c->kind] ? kind_names[c->kind] : "-";
}

/* Rewrite DIR/cells.csv from every cell of p that ran (see above). */
int mx_write_cells(const mx_ctx *x, const mx_plan *p, idb_err *err)
{
    char path[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/cells.csv", x->dir);
    idb_atomic a;
    FILE *f = idb_atomic_open(&a, path);
    if (!f) return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    fputs("cell,kind,store,strategy,status,seconds,label\n", f);
    for (int i = 0; i < p->n; i++) {
        const mx_cell *c = &p->cells[i];
        if (c->status == MX_PENDING) continue;
        char label[MX_LABEL_MAX];
        snprintf(label, sizeof label, "%s", c->label);
        for (char *q = label; *q; q++)
            if (*q == ',' || *q == '"' || *q == '\n' || *q == '\r') *q = ';';
        fprintf(f, "%d,%s,%s,%s,%s,%.3f,%s\n", i + 1, kind_name(c),
                c->store ? c->store->name : "-", c->strategy ? c->strategy->name : "-",
                c->status == MX_DONE ? "done" : "failed", c->took_s, label);
    }
    if (idb_atomic_commit(&a, 0) != 0)
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

/* One group of the report's table: a kind on a store. */
typedef struct time_group {
    const char *kind, *store;                    /* borrowed from the table */
    int cells;
    double seconds;
} time_group;

static int by_seconds(const void *a, const void *b)
{
    double x = ((const time_group *)a)->seconds, y = ((const time_group *)b)->seconds;
    return (x < y) - (x > y);
}

/* The groups of t (cells.csv) into g (room for t->nrow); returns how many, *total the sum
 * of every row's seconds, *slowest the row of the longest cell (-1 when none). */
static int group_rows(const mx_table *t, time_group *g, double *total, int *slowest)
{
    int ck = mx_table_col(t, "kind"), cs = mx_table_col(t, "store"),
        cx = mx_table_col(t, "seconds"), n = 0;
    *total = 0;
    *slowest = -1;
    for (int r = 0; r < t->nrow; r++) {
        const char *kind = mx_table_str(t, r, ck), *store = mx_table_str(t, r, cs);
        double s = mx_table_num(t, r, cx);
        int j = 0;
        while (j < n && (strcmp(g[j].kind, kind) || strcmp(g[j].store, store))) j++;
        if (j == n) g[n++] = (time_group){ .kind = kind, .store = store };
        g[j].cells++;
        g[j].seconds += s;
        *total += s;
        if (*slowest < 0 || s > mx_table_num(t, *slowest, cx)) *slowest = r;
    }
    qsort(g, (size_t)n, sizeof *g, by_seconds);
    return n;
}

/* meta.json's wall_s into *(double *)ctx. */
static void on_wall(void *ctx, const char *key, const char *value)
{
    char *end;
    double v = strtod(value, &end);
    if (!strcmp(key, "wall_s") && end != value && !*end && isfinite(v) && v >= 0)
        *(double *)ctx = v;
}

/* The report's section (see above). Returns 0 or IDB_ENOMEM. */
int mx_report_time(const mx_results *r, mx_doc *d)
{
    static const char *const head[] = { "kind", "store", "cells", "seconds", "share",
                                        "s per cell" };
    const mx_table *t = &r->cells;
    d->ops->heading(d, 2, "Where the time went (cells.csv)");
    if (!t->nrow) {
        d->ops->para(d, "No cells.csv: the run kept no cell times.");
        return 0;
    }
    time_group *g = calloc((size_t)t->nrow, sizeof *g);
    if (!g) return IDB_ENOMEM;
    double total;
    int slowest, n = group_rows(t, g, &total, &slowest);
    char line[2 * MX_LABEL_MAX + 200], took[32], outside[96] = "";
    double wall = NAN;
    mx_meta_read(r->dir, on_wall, &wall, NULL);
    if (!isnan(wall) && wall >= total)           /* plots, report, between cells */
        snprintf(outside, sizeof outside, ", of the run's %.1f s (%.1f s outside the cells: "
                 "plots, report, between cells)", wall, wall - total);
    mx_fmt_duration(total, took, sizeof took);
    snprintf(line, sizeof line, "%d cells ran for %s in all (%.1f s)%s. A cell's time is its "
             "wall time, its servers' start and stop included; the longest, %.1f s: %s.",
             t->nrow, took, total, outside, mx_table_num(t, slowest, mx_table_col(t, "seconds")),
             mx_table_str(t, slowest, mx_table_col(t, "label")));
    d->ops->para(d, line);
    d->ops->table(d, 6, head, "llrrrr");
    for (int i = 0; i < n; i++) {
        char cells[16], secs[32], share[16], per[32];
        snprintf(cells, sizeof cells, "%d", g[i].cells);
        snprintf(secs, sizeof secs, "%.1f", g[i].seconds);
        snprintf(share, sizeof share, "%.1f%%", total > 0 ? 100 * g[i].seconds / total : 0.0);
        snprintf(per, sizeof per, "%.2f", g[i].seconds / g[i].cells);
        const char *row[] = { g[i].kind, g[i].store, cells, secs, share, per };
        d->ops->row(d, row);
    }
    free(g);
    return 0;
}
