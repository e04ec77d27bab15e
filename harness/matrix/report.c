/* report.c — report.md of a results directory, from the directory's files alone.
 *
 * Sections: the run and its environment (meta.json), the failed cells, one section per
 * plot (the image and one sentence whose figures are computed from the data it shows:
 * no canned text), tables of medians with min–max (generation.csv, insert.csv), the
 * simulations (simulate.csv) and the claims table (claims.md, as written by `idbench
 * claims`). A plot that could not be drawn says why instead.
 */
#include "matrix.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"

/* Everything the report reads. */
typedef struct rctx {
    const char *dir;
    FILE *f;
    mx_table ins, curve, gen, skew, tl, sim;
    long long ids, shards;
    char failures[64][512];
    int n_failures;
} rctx;

/* A number for prose: thousands grouped for big values, 3 significant digits for small
 * ones, "n/a" when unknown. buf needs 32 bytes. */
static const char *num(double v, char *buf)
{
    if (isnan(v)) return strcpy(buf, "n/a");
    if (fabs(v) >= 1000) {
        char raw[32];
        snprintf(raw, sizeof raw, "%.0f", fabs(v));
        int len = (int)strlen(raw), o = 0;
        if (v < 0) buf[o++] = '-';
        for (int i = 0; i < len; i++) {
            if (i && (len - i) % 3 == 0) buf[o++] = ',';
            buf[o++] = raw[i];
        }
        buf[o] = 0;
    } else if (v == 0) {
        strcpy(buf, "0");
    } else {
        snprintf(buf, 32, "%.3g", v);
    }
    return buf;
}

/* "median (min–max)" for the columns NAME, NAME_min, NAME_max of row r, scaled. */
static void med_range(const mx_table *t, int r, const char *name, double scale, char *buf, size_t len)
{
    char col[64], a[32], b[32], c[32];
    double m = mx_table_num(t, r, mx_table_col(t, name)) * scale;
    snprintf(col, sizeof col, "%s_min", name);
    double lo = mx_table_num(t, r, mx_table_col(t, col)) * scale;
    snprintf(col, sizeof col, "%s_max", name);
    double hi = mx_table_num(t, r, mx_table_col(t, col)) * scale;
    if (isnan(lo) || lo == hi) snprintf(buf, len, "%s", num(m, a));
    else snprintf(buf, len, "%s (%s–%s)", num(m, a), num(lo, b), num(hi, c));
}

/* meta.json callback: environment rows into the report, failures kept. */
static void on_meta(void *ctx, const char *key, const char *value)
{
    rctx *rc = ctx;
    static const struct { const char *key, *label; } rows[] = {
        { "command", "command" }, { "started_utc", "started (UTC)" }, { "finished_utc", "finished (UTC)" },
        { "wall_s", "wall time (s)" }, { "matrix_files", "matrix files" }, { "seed", "seed" },
        { "repeat", "repeats" }, { "quick", "quick" }, { "cells", "cells" }, { "cells_failed", "cells failed" },
        { "git_revision", "git revision" }, { "git_dirty", "uncommitted changes" }, { "compiler", "compiler" },
        { "build", "build" }, { "sqlite", "SQLite" }, { "lmdb", "LMDB" },
        { "google_benchmark", "Google Benchmark" }, { "cpu_model", "CPU" }, { "cores", "cores" },
        { "memory_kib", "memory (KiB)" }, { "kernel", "kernel" },
    };
    if (!strcmp(key, "failure")) {
        if (rc->n_failures < 64) snprintf(rc->failures[rc->n_failures++], sizeof rc->failures[0], "%s", value);
        return;
    }
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        if (!strcmp(rows[i].key, key)) fprintf(rc->f, "| %s | %s |\n", rows[i].label, value[0] ? value : "—");
}

/* The insert.csv row of (strategy, store) at the headline configuration, or -1. */
static int row_of(const rctx *rc, const char *strategy, const char *store)
{
    return mx_insert_row(&rc->ins, strategy, store, rc->ids, rc->shards);
}

/* At the headline configuration on store, the rows with the lowest and highest value of
 * column col (ignoring NaN and values <= 0 when positive). Returns 0 when none. */
static int extremes(const rctx *rc, const char *store, const char *col, int positive, int *lo, int *hi)
{
    const mx_table *t = &rc->ins;
    int c = mx_table_col(t, col), cs = mx_table_col(t, "strategy");
    *lo = *hi = -1;
    for (int r = 0; r < t->nrow; r++) {
        if (row_of(rc, mx_table_str(t, r, cs), store) != r) continue;
        double v = mx_table_num(t, r, c);
        if (isnan(v) || (positive && v <= 0)) continue;
        if (*lo < 0 || v < mx_table_num(t, *lo, c)) *lo = r;
        if (*hi < 0 || v > mx_table_num(t, *hi, c)) *hi = r;
    }
    return *lo >= 0;
}

/* The store a sentence talks about: sqlite when it has rows, else the first store. */
static const char *main_store(const rctx *rc)
{
    const mx_table *t = &rc->ins;
    int cst = mx_table_col(t, "store");
    for (int r = 0; r < t->nrow; r++)
        if (!strcmp(mx_table_str(t, r, cst), "sqlite")) return "sqlite";
    return t->nrow ? mx_table_str(t, 0, cst) : "";
}

/* The headline sentence of plot i. */
static void sentence(rctx *rc, int i)
{
    FILE *f = rc->f;
    char a[32], b[32], c[32];
    const mx_table *t = &rc->ins;
    int cs = mx_table_col(t, "strategy");
    const char *store = main_store(rc);
    int lo, hi;
    switch (i) {
    case 0: {
        const mx_table *g = &rc->gen;
        int ck = mx_table_col(g, "kind"), cn = mx_table_col(g, "name");
        int ct = mx_table_col(g, "threads"), cm = mx_table_col(g, "ns_per_id");
        int flo = -1, fhi = -1, base = -1;
        for (int r = 0; r < g->nrow; r++) {
            if (mx_table_num(g, r, ct) != 1) continue;
            double v = mx_table_num(g, r, cm);
            if (!strcmp(mx_table_str(g, r, ck), "baseline")) base = r;
            if (strcmp(mx_table_str(g, r, ck), "strategy") || isnan(v)) continue;
            if (flo < 0 || v < mx_table_num(g, flo, cm)) flo = r;
            if (fhi < 0 || v > mx_table_num(g, fhi, cm)) fhi = r;
        }
        if (flo < 0) break;
        fprintf(f, "With one thread, `%s` was the fastest strategy at %s ns per ID and `%s` the slowest at %s ns",
                mx_table_str(g, flo, cn), num(mx_table_num(g, flo, cm), a),
                mx_table_str(g, fhi, cn), num(mx_table_num(g, fhi, cm), b));
        if (base >= 0)
            fprintf(f, "; one clock read alone (`%s`) costs %s ns", mx_table_str(g, base, cn),
                    num(mx_table_num(g, base, cm), c));
        for (int r = 0; r < g->nrow; r++)
            if (!strcmp(mx_table_str(g, r, ck), "peer"))
                fprintf(f, "; the peer `%s` took %s ns", mx_table_str(g, r, cn), num(mx_table_num(g, r, cm), a));
        fprintf(f, ".\n");
        return;
    }
    case 1:
        if (!extremes(rc, store, "inserts_per_s", 1, &lo, &hi)) break;
        fprintf(f, "On %s (%s IDs, %lld shard%s), `%s` inserted the most rows per second (%s, median) "
                   "and `%s` the fewest (%s): %.1f× fewer.\n",
                store, num((double)rc->ids, c), rc->shards, rc->shards == 1 ? "" : "s", mx_table_str(t, hi, cs),
                num(mx_table_num(t, hi, mx_table_col(t, "inserts_per_s")), a), mx_table_str(t, lo, cs),
                num(mx_table_num(t, lo, mx_table_col(t, "inserts_per_s")), b),
                mx_table_num(t, hi, mx_table_col(t, "inserts_per_s")) / mx_table_num(t, lo, mx_table_col(t, "inserts_per_s")));
        return;
    case 2:
        if (!extremes(rc, store, "pages_written", 1, &lo, &hi)) break;
        fprintf(f, "On %s, `%s` wrote %s pages per ID inserted, %.1f× the %s of `%s`, the fewest.\n", store,
                mx_table_str(t, hi, cs), num(mx_table_num(t, hi, mx_table_col(t, "pages_written")) / (double)rc->ids, a),
                mx_table_num(t, hi, mx_table_col(t, "pages_written")) / mx_table_num(t, lo, mx_table_col(t, "pages_written")),
                num(mx_table_num(t, lo, mx_table_col(t, "pages_written")) / (double)rc->ids, b), mx_table_str(t, lo, cs));
        return;
    case 3: {
        int said = 0;
        static const char *const stores[] = { "lmdb", "pagesim", "sqlite" };
        for (int s = 0; s < 3; s++) {
            if (!extremes(rc, stores[s], "fill_factor", 1, &lo, &hi)) continue;
            fprintf(f, "%s %s: `%s` fills leaves to %.2f, `%s` to %.2f",
                    said ? ";" : "Lowest and highest leaf fill by store —", stores[s], mx_table_str(t, lo, cs),
                    mx_table_num(t, lo, mx_table_col(t, "fill_factor")), mx_table_str(t, hi, cs),
                    mx_table_num(t, hi, mx_table_col(t, "fill_factor")));
            said = 1;
        }
        if (said) { fprintf(f, " (random insertion tends to ln 2 = 0.693).\n"); return; }
        break;
    }
    case 4: {
        const mx_table *k = &rc->curve;
        int ks = mx_table_col(k, "strategy"), kst = mx_table_col(k, "store");
        int kp = mx_table_col(k, "cache_pages"), km = mx_table_col(k, "misses_per_insert");
        const char *done[8];
        int nd = 0;
        for (int r0 = 0; r0 < k->nrow && nd < 8; r0++) {       /* a clause per store */
            const char *st = mx_table_str(k, r0, kst);
            int seen = 0;
            for (int j = 0; j < nd; j++) seen |= !strcmp(done[j], st);
            if (seen) continue;
            done[nd++] = st;
            /* the cache size nearest SQLite's default 2000 pages at which someone misses */
            double best = NAN;
            for (int r = 0; r < k->nrow; r++) {
                double p = mx_table_num(k, r, kp);
                if (!strcmp(mx_table_str(k, r, kst), st) && mx_table_num(k, r, km) > 0 &&
                    (isnan(best) || fabs(log(p / 2000)) < fabs(log(best / 2000)))) best = p;
            }
            if (isnan(best)) { fprintf(f, "%s%s: no strategy missed at any cache size", nd > 1 ? "; " : "", st); continue; }
            int rl = -1, rh = -1;
            for (int r = 0; r < k->nrow; r++) {
                if (strcmp(mx_table_str(k, r, kst), st) || mx_table_num(k, r, kp) != best) continue;
                double v = mx_table_num(k, r, km);
                if (rl < 0 || v < mx_table_num(k, rl, km)) rl = r;
                if (rh < 0 || v > mx_table_num(k, rh, km)) rh = r;
            }
            fprintf(f, "%s%s with a cache of %s pages: `%s` missed %s pages per insert, `%s` %s",
                    nd > 1 ? "; " : "", st, num(best, c), mx_table_str(k, rh, ks), num(mx_table_num(k, rh, km), a),
                    mx_table_str(k, rl, ks), num(mx_table_num(k, rl, km), b));
        }
        if (!nd) break;
        fprintf(f, ".\n");
        return;
    }
    case 5: {
        if (!extremes(rc, store, "tail_insert_frac", 0, &lo, &hi)) break;
        int ctail = mx_table_col(t, "tail_insert_frac"), n99 = 0, total = 0;
        fprintf(f, "`%s` put %.2f%% of its new keys at the very end of the index (median position %.2f), while ",
                mx_table_str(t, lo, cs), 100 * mx_table_num(t, lo, ctail), mx_table_num(t, lo, mx_table_col(t, "insert_pos_p50")));
        for (int r = 0; r < t->nrow; r++)
            if (row_of(rc, mx_table_str(t, r, cs), store) == r) { total++; n99 += mx_table_num(t, r, ctail) >= 0.99; }
        fprintf(f, "%d of the %d strategies put at least 99%% there (", n99, total);
        for (int r = 0, k = 0; r < t->nrow; r++)
            if (row_of(rc, mx_table_str(t, r, cs), store) == r && mx_table_num(t, r, ctail) >= 0.99)
                fprintf(f, "%s`%s`", k++ ? ", " : "", mx_table_str(t, r, cs));
        fprintf(f, ").\n");
        return;
    }
    case 6:
        if (!extremes(rc, store, "lat_p99_ns", 1, &lo, &hi)) break;
        fprintf(f, "On %s the 99th percentile of a single insert ranged from %s µs (`%s`) to %s µs (`%s`).\n", store,
                num(mx_table_num(t, lo, mx_table_col(t, "lat_p99_ns")) / 1000, a), mx_table_str(t, lo, cs),
                num(mx_table_num(t, hi, mx_table_col(t, "lat_p99_ns")) / 1000, b), mx_table_str(t, hi, cs));
        return;
    case 7: {
        const mx_table *k = &rc->skew;
        int ks = mx_table_col(k, "strategy"), kk = mx_table_col(k, "skew_ms"), ki = mx_table_col(k, "inversion_frac");
        double top = -1;
        for (int r = 0; r < k->nrow; r++) if (mx_table_num(k, r, kk) > top) top = mx_table_num(k, r, kk);
        if (top < 0) break;
        fprintf(f, "At %s ms of skew the inversion share was", num(top, a));
        for (int r = 0, n = 0; r < k->nrow; r++)
            if (mx_table_num(k, r, kk) == top)
                fprintf(f, "%s `%s` %s", n++ ? "," : "", mx_table_str(k, r, ks), num(mx_table_num(k, r, ki), b));
        fprintf(f, ".\n");
        return;
    }
    case 8: {
        const mx_table *k = &rc->tl;
        int ks = mx_table_col(k, "strategy"), kf = mx_table_col(k, "failed_orders"), ko = mx_table_col(k, "orders");
        if (!k->nrow) break;
        const char *seen[MX_LIST_MAX];
        int ns = 0, zero = 0;
        for (int r = 0; r < k->nrow; r++) {
            int dup = 0;
            for (int j = 0; j < ns; j++) dup |= !strcmp(seen[j], mx_table_str(k, r, ks));
            if (!dup && ns < MX_LIST_MAX) seen[ns++] = mx_table_str(k, r, ks);
        }
        for (int j = 0; j < ns; j++) {
            double fl = 0, od = 0;
            for (int r = 0; r < k->nrow; r++)
                if (!strcmp(mx_table_str(k, r, ks), seen[j])) { fl += mx_table_num(k, r, kf); od += mx_table_num(k, r, ko); }
            if (fl > 0) fprintf(f, "`%s` failed %s of its %s orders (%.1f%%). ", seen[j], num(fl, a), num(od, b), 100 * fl / od);
            else zero++;
        }
        fprintf(f, "%d of the %d strategies failed none.\n", zero, ns);
        return;
    }
    default: break;
    }
    fprintf(f, "(No figure: the data for this plot is incomplete.)\n");
}

static const char *const titles[MX_PLOTS] = {
    "ID generation: time per ID", "Inserts per second", "Pages written per ID", "Leaf fill factor",
    "Miss-ratio curves", "Where new keys land in the index", "Insert latency percentiles",
    "Clock skew against ID order", "Orders failed during the counter outage",
};

/* The insert.csv medians (min–max), one table per (ids, shards). */
static void insert_tables(rctx *rc)
{
    const mx_table *t = &rc->ins;
    int ci = mx_table_col(t, "ids"), ck = mx_table_col(t, "shards");
    char done[256][32];
    int nd = 0;
    for (int r0 = 0; r0 < t->nrow; r0++) {
        char key[32];
        snprintf(key, sizeof key, "%s/%s", mx_table_str(t, r0, ci), mx_table_str(t, r0, ck));
        int seen = 0;
        for (int i = 0; i < nd; i++) seen |= !strcmp(done[i], key);
        if (seen || nd == 256) continue;
        strcpy(done[nd++], key);
        fprintf(rc->f, "\n**%s IDs, %s shard(s)**\n\n"
                       "| strategy | store | inserts/s | p99 µs | gen ns/ID | pages/ID | fill | tail share | write B/ID | runs |\n"
                       "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
                mx_table_str(t, r0, ci), mx_table_str(t, r0, ck));
        for (int r = r0; r < t->nrow; r++) {
            if (strcmp(mx_table_str(t, r, ci), mx_table_str(t, r0, ci)) ||
                strcmp(mx_table_str(t, r, ck), mx_table_str(t, r0, ck))) continue;
            char ips[96], p99[96], gen[96], a[32];
            med_range(t, r, "inserts_per_s", 1, ips, sizeof ips);
            med_range(t, r, "lat_p99_ns", 1e-3, p99, sizeof p99);
            med_range(t, r, "gen_ns_per_id", 1, gen, sizeof gen);
            fprintf(rc->f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", mx_table_str(t, r, mx_table_col(t, "strategy")),
                    mx_table_str(t, r, mx_table_col(t, "store")), ips, p99, gen,
                    num(mx_table_num(t, r, mx_table_col(t, "pages_written")) / mx_table_num(t, r, ci), a),
                    mx_table_str(t, r, mx_table_col(t, "fill_factor")), mx_table_str(t, r, mx_table_col(t, "tail_insert_frac")),
                    mx_table_str(t, r, mx_table_col(t, "write_bytes_per_id")), mx_table_str(t, r, mx_table_col(t, "repeats")));
        }
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
    char path[1100], line[4096];
    snprintf(path, sizeof path, "%s/claims.md", rc->dir);
    FILE *c = fopen(path, "r");
    if (!c) { fprintf(rc->f, "No claims.md: the claims did not run or failed.\n"); return; }
    while (fgets(line, sizeof line, c)) fputs(line, rc->f);
    fclose(c);
}

/* Write report.md from DIR's files through a temporary name (see matrix.h). */
int mx_report_write(const char *dir, const int ok[MX_PLOTS], char why_not[MX_PLOTS][256], idb_err *err)
{
    rctx rc = { .dir = dir };
    char path[1100];
    static const char *const files[] = { "insert.csv", "curve.csv", "generation.csv", "skew.csv", "timeline.csv", "simulate.csv" };
    mx_table *tables[] = { &rc.ins, &rc.curve, &rc.gen, &rc.skew, &rc.tl, &rc.sim };
    for (int i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        mx_table_load(path, tables[i]);
    }
    mx_headline(&rc.ins, &rc.ids, &rc.shards);
    snprintf(path, sizeof path, "%s/report.md", dir);
    idb_atomic a;
    rc.f = idb_atomic_open(&a, path);
    if (!rc.f) {
        for (int i = 0; i < 6; i++) mx_table_free(tables[i]);
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    }
    FILE *f = rc.f;
    fprintf(f, "# idbench results\n\nEvery figure below is computed from the files in this directory; "
               "`idbench plot DIR` re-renders the plots and this report from them. "
               "README.md (section \"The matrix\") explains every file, column and plot.\n\n## Environment\n\n| | |\n|---|---|\n");
    if (mx_meta_read(dir, on_meta, &rc) != 0) fprintf(f, "| meta.json | missing |\n");
    fprintf(f, "\n## Failed cells\n\n");
    if (!rc.n_failures) fprintf(f, "None.\n");
    for (int i = 0; i < rc.n_failures; i++) fprintf(f, "- %s\n", rc.failures[i]);
    for (int i = 0; i < MX_PLOTS; i++) {
        fprintf(f, "\n## %d. %s\n\n", i + 1, titles[i]);
        if (!ok[i]) { fprintf(f, "Not drawn: %s.\n", why_not[i][0] ? why_not[i] : "no data"); continue; }
        fprintf(f, "![%s](plots/%s.png)\n\n", titles[i], mx_plot_names[i]);
        sentence(&rc, i);
    }
    fprintf(f, "\n## Generation: ns per ID, median (min–max)\n\n"
               "| kind | name | threads | ns per ID | repetitions |\n|---|---|---:|---:|---:|\n");
    for (int r = 0; r < rc.gen.nrow; r++) {
        char m[96];
        med_range(&rc.gen, r, "ns_per_id", 1, m, sizeof m);
        fprintf(f, "| %s | %s | %s | %s | %s |\n", mx_table_str(&rc.gen, r, 0), mx_table_str(&rc.gen, r, 1),
                mx_table_str(&rc.gen, r, 2), m, mx_table_str(&rc.gen, r, mx_table_col(&rc.gen, "repetitions")));
    }
    fprintf(f, "\n## Inserts: medians (min–max) over the repeats\n");
    if (!rc.ins.nrow) fprintf(f, "\nNo insert results.\n");
    insert_tables(&rc);
    fprintf(f, "\n## Simulations (simulate.csv)\n\n");
    if (rc.sim.nrow) whole_table(f, &rc.sim);
    else fprintf(f, "No simulation results.\n");
    fprintf(f, "\n## Claims (claims.md)\n\n");
    claims(&rc);
    for (int i = 0; i < 6; i++) mx_table_free(tables[i]);
    if (idb_atomic_commit(&a, 0) != 0) return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}
