/* report.c — report.md of a results directory, from the directory's files alone.
 *
 * Sections: the run and its environment (meta.json), the failed cells, one section per
 * entry of the plot table (the image and the sentences its mx_say_NAME writes, whose
 * figures are computed from the data it shows: no canned text), tables of medians with
 * min–max (generation.csv, insert.csv), uuidv4 against counter by store (report_ratio.c),
 * the simulations (simulate.csv, range.csv) and the claims
 * table (claims.md, as written by `idbench claims`). A plot that could not be drawn says
 * why instead. Also here: the prose helpers the sentences share (plots.h).
 */
#include "plots.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "report_doc.h"

#define GROUPED_MAX 1e15                         /* above: "1.23e+15", not grouped digits */

/* A number for prose (see plots.h). */
const char *mx_num(double v, char *buf)
{
    if (!isfinite(v)) return strcpy(buf, "n/a");
    if (fabs(v) >= GROUPED_MAX) {
        snprintf(buf, MX_NUM_LEN, "%.3g", v);
    } else if (fabs(v) >= 1000) {                /* at most 15 digits and 4 commas */
        char raw[MX_NUM_LEN];
        int len = snprintf(raw, sizeof raw, "%.0f", fabs(v)), o = 0;
        if (v < 0) buf[o++] = '-';
        for (int i = 0; i < len; i++) {
            if (i && (len - i) % 3 == 0) buf[o++] = ',';
            buf[o++] = raw[i];
        }
        buf[o] = 0;
    } else if (v == 0) {
        strcpy(buf, "0");
    } else {
        snprintf(buf, MX_NUM_LEN, "%.3g", v);
    }
    return buf;
}

/* "median (min–max)" for the columns NAME, NAME_min, NAME_max of row r, scaled. */
static void med_range(const mx_table *t, int r, const char *name, double scale, char *buf,
                      size_t len)
{
    char col[64], a[MX_NUM_LEN], b[MX_NUM_LEN], c[MX_NUM_LEN];
    double m = mx_table_num(t, r, mx_table_col(t, name)) * scale;
    snprintf(col, sizeof col, "%s_min", name);
    double lo = mx_table_num(t, r, mx_table_col(t, col)) * scale;
    snprintf(col, sizeof col, "%s_max", name);
    double hi = mx_table_num(t, r, mx_table_col(t, col)) * scale;
    if (isnan(lo) || lo == hi) snprintf(buf, len, "%s", mx_num(m, a));
    else snprintf(buf, len, "%s (%s–%s)", mx_num(m, a), mx_num(lo, b), mx_num(hi, c));
}

/* meta.json's keys and their labels in the environment table, in order of meta.json. */
static const struct {
    const char *key, *label;
} meta_rows[] = {
    { "command", "command" }, { "started_utc", "started (UTC)" },
    { "finished_utc", "finished (UTC)" }, { "wall_s", "wall time (s)" },
    { "matrix_files", "matrix files" }, { "seed", "seed" }, { "repeat", "repeats" },
    { "quick", "quick" }, { "status", "status" }, { "cells", "cells" },
    { "cells_done", "cells run" }, { "cells_failed", "cells failed" },
    { "git_revision", "git revision" }, { "git_dirty", "uncommitted changes" },
    { "compiler", "compiler" }, { "build", "build" }, { "sqlite", "SQLite" },
    { "lmdb", "LMDB" }, { "google_benchmark", "Google Benchmark" }, { "cpu_model", "CPU" },
    { "cores", "cores" }, { "memory_kib", "memory (KiB)" }, { "kernel", "kernel" },
};

/* Lowest and highest of col on store at the headline configuration (see plots.h). */
int mx_extremes(const mx_results *r, const char *store, const char *col, int positive, int *lo,
                int *hi)
{
    const mx_table *t = &r->ins;
    int c = mx_table_col(t, col), cs = mx_table_col(t, "strategy");
    *lo = *hi = -1;
    for (int row = 0; row < t->nrow; row++) {
        if (mx_ins_row(r, mx_table_str(t, row, cs), store) != row) continue;
        double v = mx_table_num(t, row, c);
        if (isnan(v) || (positive && v <= 0)) continue;
        if (*lo < 0 || v < mx_table_num(t, *lo, c)) *lo = row;
        if (*hi < 0 || v > mx_table_num(t, *hi, c)) *hi = row;
    }
    return *lo >= 0;
}


/* What the meta.json callback needs: the report, and the failures it keeps. */
typedef struct meta_ctx {
    mx_doc *d;
    char failures[MX_FAILURES_MAX][MX_FAILURE_LEN];
    int n_failures;
} meta_ctx;

/* meta.json callback: environment rows into the report, failures kept. */
static void on_meta(void *ctx, const char *key, const char *value)
{
    meta_ctx *mc = ctx;
    if (!strcmp(key, "failure")) {
        if (mc->n_failures < MX_FAILURES_MAX)
            snprintf(mc->failures[mc->n_failures++], sizeof mc->failures[0], "%s", value);
        return;
    }
    for (size_t i = 0; i < sizeof meta_rows / sizeof *meta_rows; i++)
        if (!strcmp(meta_rows[i].key, key)) {
            const char *cells[] = { meta_rows[i].label, value[0] ? value : "—" };
            mc->d->ops->row(mc->d, cells);
        }
}

#define INSERT_TABLES_MAX 256                    /* (ids, shards) configurations listed */
#define CELL_LEN 96                              /* a table cell made here, with its NUL */
#define LINE_LEN 320                             /* a heading or line made here */

/* The columns of an insert table: key_bytes beside the names, since one strategy appears at
 * its own width and padded (a block with key_bytes set) in the same table. */
static const char *const insert_head[] = {
    "strategy", "store", "key_bytes", "inserts/s", "p99 µs", "gen ns/ID", "pages/ID", "fill",
    "tail share", "write B/ID", "runs",
};
#define INSERT_COLS ((int)(sizeof insert_head / sizeof *insert_head))

/* One row of an insert.csv table in the report. */
static void insert_row(mx_doc *d, const mx_table *t, int r)
{
    char ips[CELL_LEN], p99[CELL_LEN], gen[CELL_LEN], pages[MX_NUM_LEN];
    med_range(t, r, "inserts_per_s", 1, ips, sizeof ips);
    med_range(t, r, "lat_p99_ns", 1e-3, p99, sizeof p99);
    med_range(t, r, "gen_ns_per_id", 1, gen, sizeof gen);
    mx_num(mx_table_num(t, r, mx_table_col(t, "pages_written")) /
               mx_table_num(t, r, mx_table_col(t, "ids")), pages);
    const char *cells[] = {
        mx_table_str(t, r, mx_table_col(t, "strategy")),
        mx_table_str(t, r, mx_table_col(t, "store")),
        mx_table_str(t, r, mx_table_col(t, "key_bytes")), ips, p99, gen, pages,
        mx_table_str(t, r, mx_table_col(t, "fill_factor")),
        mx_table_str(t, r, mx_table_col(t, "tail_insert_frac")),
        mx_table_str(t, r, mx_table_col(t, "write_bytes_per_id")),
        mx_table_str(t, r, mx_table_col(t, "repeats")),
    };
    _Static_assert(sizeof cells / sizeof *cells == INSERT_COLS, "one cell per column");
    d->ops->row(d, cells);
}

/* The insert.csv medians (min–max), one table per (ids, shards, clients). */
static void insert_tables(mx_doc *d)
{
    const mx_table *t = &d->r->ins;
    int ci = mx_table_col(t, "ids"), ck = mx_table_col(t, "shards");
    char done[INSERT_TABLES_MAX][64];
    int nd = 0;
    for (int r0 = 0; r0 < t->nrow; r0++) {
        char key[64], caption[LINE_LEN], writers[48] = "";
        long long c0 = mx_row_clients(t, r0);
        snprintf(key, sizeof key, "%.20s/%.20s/%lld", mx_table_str(t, r0, ci),
                 mx_table_str(t, r0, ck), c0);
        int seen = 0;
        for (int i = 0; i < nd; i++) seen |= !strcmp(done[i], key);
        if (seen || nd == INSERT_TABLES_MAX) continue;
        strcpy(done[nd++], key);
        if (c0 != 1) snprintf(writers, sizeof writers, ", %lld writers per shard", c0);
        snprintf(caption, sizeof caption, "%s IDs, %s shard(s)%s", mx_table_str(t, r0, ci),
                 mx_table_str(t, r0, ck), writers);
        d->ops->heading(d, 3, caption);
        d->ops->table(d, INSERT_COLS, insert_head, "llrrrrrrrrr");
        for (int r = r0; r < t->nrow; r++)
            if (!strcmp(mx_table_str(t, r, ci), mx_table_str(t, r0, ci)) &&
                !strcmp(mx_table_str(t, r, ck), mx_table_str(t, r0, ck)) &&
                mx_row_clients(t, r) == c0)
                insert_row(d, t, r);
    }
}

/* A CSV table as a table of the report, every column. */
static void whole_table(mx_doc *d, const mx_table *t)
{
    d->ops->table(d, t->ncol, (const char *const *)t->head, NULL);
    for (int r = 0; r < t->nrow; r++) d->ops->row(d, (const char *const *)&t->cell[r * t->ncol]);
}

/* DIR/claims.md into the report, or say it is missing. Returns 0 or IDB_ENOMEM. */
static int claims(mx_doc *d)
{
    char path[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/claims.md", d->r->dir);
    idb_err err = { 0 };
    size_t len;
    char *text = mx_read_file(path, &len, &err);
    if (!text && err.code == IDB_ENOMEM) return IDB_ENOMEM;
    if (!text) d->ops->para(d, "No claims.md: the claims did not run or failed.");
    else d->ops->include(d, text);
    free(text);
    return 0;
}

/* The head of the report: what it is, the environment, the failed cells. */
static void report_head(mx_doc *d)
{
    static const char *const env_head[] = { "", "" };
    meta_ctx mc = { .d = d };
    d->ops->begin(d, "idbench results");
    d->ops->para(d, "Every figure below is computed from the files in this directory; "
                    "`idbench plot DIR` re-renders the plots and this report from them. "
                    "idbench's docs/results-format.md explains every file, column and plot.");
    d->ops->heading(d, 2, "Environment");
    d->ops->table(d, 2, env_head, NULL);
    if (mx_meta_read(d->r->dir, on_meta, &mc, NULL) != 0) {
        const char *cells[] = { "meta.json", "missing" };
        d->ops->row(d, cells);
    }
    d->ops->heading(d, 2, "Failed cells");
    if (!mc.n_failures) d->ops->para(d, "None.");
    for (int i = 0; i < mc.n_failures; i++) d->ops->item(d, mc.failures[i]);
}

/* A plot's sentences (into a malloc'd string the caller frees, without the final newline),
 * or NULL when the data is too incomplete for a figure (*nomem: or memory ran out). */
static char *plot_sentences(const mx_results *r, const mx_plot *p, int *nomem)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    *nomem = !m;
    if (!m) return NULL;
    int rc = p->sentences(r, m);
    if (fclose(m) != 0 || !text) {
        *nomem = 1;
        free(text);
        return NULL;
    }
    if (rc != 0) {
        free(text);
        return NULL;
    }
    while (len > 0 && text[len - 1] == '\n') text[--len] = 0;
    return text;
}

/* Tables written in a plot's section after its image and sentences (drawn or not). */
static const struct {
    const char *plot;
    void (*table)(const mx_results *r, mx_doc *d);
} plot_tables[] = {
    { "failover_dups", mx_report_failover },
};

/* A section per entry of the plot table: its image and sentences, or why it is missing,
 * then its table (plot_tables). Returns 0 or IDB_ENOMEM. */
static int report_plots(mx_doc *d)
{
    for (int i = 0; i < mx_n_plots; i++) {
        const mx_plot *p = &mx_plots[i];
        char title[LINE_LEN], line[LINE_LEN];
        snprintf(title, sizeof title, "%d. %s", i + 1, p->title);
        d->ops->heading(d, 2, title);
        if (!d->r->drawn[i]) {
            const char *why = d->r->why_not[i].msg;
            snprintf(line, sizeof line, "Not drawn: %s.", why[0] ? why : "no data");
            d->ops->para(d, line);
        } else {
            d->ops->plot(d, i);
            int nomem;
            char *text = plot_sentences(d->r, p, &nomem);
            if (nomem) return IDB_ENOMEM;
            d->ops->para(d, text ? text : "(No figure: the data for this plot is incomplete.)");
            free(text);
        }
        for (size_t j = 0; j < sizeof plot_tables / sizeof *plot_tables; j++)
            if (!strcmp(plot_tables[j].plot, p->name)) plot_tables[j].table(d->r, d);
    }
    return 0;
}

/* The tables: generation, inserts (and uuidv4 against counter), simulations, claims.
 * Returns 0 or IDB_ENOMEM. */
static int report_tables(mx_doc *d)
{
    static const char *const gen_head[] = {
        "kind", "name", "threads", "ns per ID", "repetitions",
    };
    const mx_table *g = &d->r->gen;
    d->ops->heading(d, 2, "Generation: ns per ID, median (min–max)");
    d->ops->table(d, 5, gen_head, "llrrr");
    for (int r = 0; r < g->nrow; r++) {
        char m[CELL_LEN];
        med_range(g, r, "ns_per_id", 1, m, sizeof m);
        const char *cells[] = { mx_table_str(g, r, 0), mx_table_str(g, r, 1),
                                mx_table_str(g, r, 2), m,
                                mx_table_str(g, r, mx_table_col(g, "repetitions")) };
        d->ops->row(d, cells);
    }
    d->ops->heading(d, 2, "Inserts: medians (min–max) over the repeats");
    if (!d->r->ins.nrow) d->ops->para(d, "No insert results.");
    insert_tables(d);
    if (mx_report_ratio(d->r, d) != 0) return IDB_ENOMEM;
    mx_report_storage(d->r, d);
    mx_report_then(d->r, d);
    mx_report_scale(d->r, d);
    d->ops->heading(d, 2, "Simulations (simulate.csv)");
    if (d->r->sim.nrow) whole_table(d, &d->r->sim);
    else d->ops->para(d, "No simulation results.");
    if (d->r->range.nrow) {
        d->ops->heading(d, 2, "Simulations routed by ID (range.csv)");
        whole_table(d, &d->r->range);
    }
    if (mx_report_time(d->r, d) != 0) return IDB_ENOMEM;
    d->ops->heading(d, 2, "Claims (claims.md)");
    return claims(d);
}

/* Write the report through ops (see report_doc.h). */
int mx_report_write_doc(const mx_results *r, const mx_doc_ops *ops, idb_err *err)
{
    mx_doc d = { .ops = ops, .r = r };
    char path[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/%s", r->dir, ops->file);
    idb_atomic a;
    d.f = idb_atomic_open(&a, path);
    if (!d.f) return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    report_head(&d);
    int rc = report_plots(&d);
    if (!rc) rc = report_tables(&d);
    if (!rc) ops->end(&d);
    if (idb_atomic_commit(&a, rc != 0) != 0 && !rc)
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    if (rc) return idb_fail(err, rc, "cannot write %s: out of memory", path);
    return 0;
}

/* Write report.md and report.html from r (see matrix.h). */
int mx_report_write(const mx_results *r, idb_err *err)
{
    static const mx_doc_ops *const writers[] = { &mx_doc_md, &mx_doc_html };
    for (size_t i = 0; i < sizeof writers / sizeof *writers; i++) {
        int rc = mx_report_write_doc(r, writers[i], err);
        if (rc) return rc;
    }
    return 0;
}
