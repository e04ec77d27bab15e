/* report.c — report.md of a results directory, from the directory's files alone.
 *
 * Sections: the run and its environment (meta.json), the failed cells, one section per
 * entry of the plot table (the image and the sentences its mx_say_NAME writes, whose
 * figures are computed from the data it shows: no canned text), tables of medians with
 * min–max (generation.csv, insert.csv), the simulations (simulate.csv) and the claims
 * table (claims.md, as written by `idbench claims`). A plot that could not be drawn says
 * why instead. Also here: the prose helpers the sentences share (plots.h).
 */
#include "plots.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"

/* What writing the report needs besides the results. */
typedef struct rctx {
    const mx_results *r;
    FILE *f;
    char failures[MX_FAILURES_MAX][MX_FAILURE_LEN];
    int n_failures;
} rctx;

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

/* meta.json callback: environment rows into the report, failures kept. */
static void on_meta(void *ctx, const char *key, const char *value)
{
    rctx *rc = ctx;
    if (!strcmp(key, "failure")) {
        if (rc->n_failures < MX_FAILURES_MAX)
            snprintf(rc->failures[rc->n_failures++], sizeof rc->failures[0], "%s", value);
        return;
    }
    for (size_t i = 0; i < sizeof meta_rows / sizeof *meta_rows; i++)
        if (!strcmp(meta_rows[i].key, key))
            fprintf(rc->f, "| %s | %s |\n", meta_rows[i].label, value[0] ? value : "—");
}

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

#define INSERT_TABLES_MAX 256                    /* (ids, shards) configurations listed */

/* One row of an insert.csv table in the report. */
static void insert_row(FILE *f, const mx_table *t, int r)
{
    char ips[96], p99[96], gen[96], a[MX_NUM_LEN];
    med_range(t, r, "inserts_per_s", 1, ips, sizeof ips);
    med_range(t, r, "lat_p99_ns", 1e-3, p99, sizeof p99);
    med_range(t, r, "gen_ns_per_id", 1, gen, sizeof gen);
    double pages = mx_table_num(t, r, mx_table_col(t, "pages_written")) /
                   mx_table_num(t, r, mx_table_col(t, "ids"));
    fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
            mx_table_str(t, r, mx_table_col(t, "strategy")),
            mx_table_str(t, r, mx_table_col(t, "store")), ips, p99, gen, mx_num(pages, a),
            mx_table_str(t, r, mx_table_col(t, "fill_factor")),
            mx_table_str(t, r, mx_table_col(t, "tail_insert_frac")),
            mx_table_str(t, r, mx_table_col(t, "write_bytes_per_id")),
            mx_table_str(t, r, mx_table_col(t, "repeats")));
}

/* The insert.csv medians (min–max), one table per (ids, shards). */
static void insert_tables(rctx *rc)
{
    const mx_table *t = &rc->r->ins;
    int ci = mx_table_col(t, "ids"), ck = mx_table_col(t, "shards");
    char done[INSERT_TABLES_MAX][32];
    int nd = 0;
    for (int r0 = 0; r0 < t->nrow; r0++) {
        char key[32];
        snprintf(key, sizeof key, "%s/%s", mx_table_str(t, r0, ci), mx_table_str(t, r0, ck));
        int seen = 0;
        for (int i = 0; i < nd; i++) seen |= !strcmp(done[i], key);
        if (seen || nd == INSERT_TABLES_MAX) continue;
        strcpy(done[nd++], key);
        fprintf(rc->f, "\n**%s IDs, %s shard(s)**\n\n"
                       "| strategy | store | inserts/s | p99 µs | gen ns/ID | pages/ID | fill | "
                       "tail share | write B/ID | runs |\n"
                       "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
                mx_table_str(t, r0, ci), mx_table_str(t, r0, ck));
        for (int r = r0; r < t->nrow; r++)
            if (!strcmp(mx_table_str(t, r, ci), mx_table_str(t, r0, ci)) &&
                !strcmp(mx_table_str(t, r, ck), mx_table_str(t, r0, ck)))
                insert_row(rc->f, t, r);
    }
}

/* A CSV table as a markdown table, every column. */
static void whole_table(FILE *f, const mx_table *t)
{
    fputc('|', f);
    for (int c = 0; c < t->ncol; c++) fprintf(f, " %s |", t->head[c]);
    fputs("\n|", f);
    for (int c = 0; c < t->ncol; c++) fputs("---|", f);
    fputc('\n', f);
    for (int r = 0; r < t->nrow; r++) {
        fputc('|', f);
        for (int c = 0; c < t->ncol; c++) fprintf(f, " %s |", mx_table_str(t, r, c));
        fputc('\n', f);
    }
}

/* Copy DIR/claims.md into the report, or say it is missing. */
static void claims(rctx *rc)
{
    char path[MX_FILE_MAX], line[4096];
    snprintf(path, sizeof path, "%s/claims.md", rc->r->dir);
    FILE *c = fopen(path, "r");
    if (!c) {
        fprintf(rc->f, "No claims.md: the claims did not run or failed.\n");
        return;
    }
    while (fgets(line, sizeof line, c)) fputs(line, rc->f);
    fclose(c);
}

/* The head of the report: what it is, the environment, the failed cells. */
static void report_head(rctx *rc)
{
    FILE *f = rc->f;
    fprintf(f, "# idbench results\n\nEvery figure below is computed from the files in this "
               "directory; `idbench plot DIR` re-renders the plots and this report from them. "
               "idbench's docs/results-format.md explains every file, column and plot.\n\n"
               "## Environment\n\n| | |\n|---|---|\n");
    if (mx_meta_read(rc->r->dir, on_meta, rc, NULL) != 0) fprintf(f, "| meta.json | missing |\n");
    fprintf(f, "\n## Failed cells\n\n");
    if (!rc->n_failures) fprintf(f, "None.\n");
    for (int i = 0; i < rc->n_failures; i++) fprintf(f, "- %s\n", rc->failures[i]);
}

/* A section per entry of the plot table: its image and sentences, or why it is missing. */
static void report_plots(rctx *rc)
{
    FILE *f = rc->f;
    for (int i = 0; i < mx_n_plots; i++) {
        const mx_plot *p = &mx_plots[i];
        fprintf(f, "\n## %d. %s\n\n", i + 1, p->title);
        if (!rc->r->drawn[i]) {
            const char *why = rc->r->why_not[i].msg;
            fprintf(f, "Not drawn: %s.\n", why[0] ? why : "no data");
            continue;
        }
        fprintf(f, "![%s](plots/%s.png)\n\n", p->title, p->name);
        if (p->sentences(rc->r, f) != 0)
            fprintf(f, "(No figure: the data for this plot is incomplete.)\n");
    }
}

/* The tables: generation, inserts, simulations, claims. */
static void report_tables(rctx *rc)
{
    FILE *f = rc->f;
    const mx_table *g = &rc->r->gen;
    fprintf(f, "\n## Generation: ns per ID, median (min–max)\n\n"
               "| kind | name | threads | ns per ID | repetitions |\n|---|---|---:|---:|---:|\n");
    for (int r = 0; r < g->nrow; r++) {
        char m[96];
        med_range(g, r, "ns_per_id", 1, m, sizeof m);
        fprintf(f, "| %s | %s | %s | %s | %s |\n", mx_table_str(g, r, 0), mx_table_str(g, r, 1),
                mx_table_str(g, r, 2), m, mx_table_str(g, r, mx_table_col(g, "repetitions")));
    }
    fprintf(f, "\n## Inserts: medians (min–max) over the repeats\n");
    if (!rc->r->ins.nrow) fprintf(f, "\nNo insert results.\n");
    insert_tables(rc);
    mx_report_scale(rc->r, f);
    fprintf(f, "\n## Simulations (simulate.csv)\n\n");
    if (rc->r->sim.nrow) whole_table(f, &rc->r->sim);
    else fprintf(f, "No simulation results.\n");
    fprintf(f, "\n## Claims (claims.md)\n\n");
    claims(rc);
}

/* Write report.md from r through a temporary name (see matrix.h). */
int mx_report_write(const mx_results *r, idb_err *err)
{
    rctx rc = { .r = r };
    char path[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/report.md", r->dir);
    idb_atomic a;
    rc.f = idb_atomic_open(&a, path);
    if (!rc.f) return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    report_head(&rc);
    report_plots(&rc);
    report_tables(&rc);
    if (idb_atomic_commit(&a, 0) != 0)
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}
