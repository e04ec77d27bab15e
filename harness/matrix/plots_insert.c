/* plots_insert.c — the plots of insert.csv and positions.csv, at the headline configuration
 * (the fewest shards, and at that the most IDs): inserts, pages_written, bytes_per_row,
 * fill_factor, positions and latency. Per plot its data preparation (mx_prep_NAME: data files and
 * gnuplot variables) and its report sentences (mx_say_NAME), every figure computed from
 * the tables; entries of the plot table (plots.h).
 */
#include "plots.h"

#include <math.h>
#include <string.h>

/* How close to ln 2 the fill of random keys must be for the report to call it near. */
#define LN2_TOLERANCE 0.05
/* A strategy whose share of keys at the very end of the index is below this spreads its
 * keys over the whole index (random keys); at or above MX_TAIL_APPEND it appends. */
#define TAIL_RANDOM 0.01
#define TAIL_APPEND 0.99

/* One bar chart of insert.csv: per store a row, per strategy a column. */
typedef struct bar_spec {
    const char *file;                            /* its data file */
    const char *col;                             /* the insert.csv column */
    int per_id;                                  /* divide by the headline IDs */
    int range;                                   /* also COL_min and COL_max columns */
    const char *none;                            /* why not drawn: no store reported ... */
    const char *col2;                            /* a second value per strategy (or NULL) */
} bar_spec;

/* The values of store's row (per strategy of s) for b into vals; 1 when any is > 0. */
static int bar_values(const mx_results *r, const bar_spec *b, const mx_names *s,
                      const char *store, double vals[][3])
{
    int cm = mx_table_col(&r->ins, b->col);
    int clo = mx_table_col(&r->ins, "inserts_per_s_min");
    int chi = mx_table_col(&r->ins, "inserts_per_s_max");
    int any = 0;
    for (int j = 0; j < s->n; j++) {
        int row = mx_ins_row(r, s->v[j], store);
        double x = row < 0 ? NAN : mx_table_num(&r->ins, row, cm);
        if (b->per_id) x = x / (double)mx_store_ids(r, store);
        vals[j][0] = x;
        vals[j][1] = row < 0 ? NAN : mx_table_num(&r->ins, row, clo);
        vals[j][2] = row < 0 ? NAN : mx_table_num(&r->ins, row, chi);
        if (b->col2)
            vals[j][1] = row < 0 ? NAN : mx_table_num(&r->ins, row,
                                                      mx_table_col(&r->ins, b->col2));
        any |= x > 0;
    }
    return any;
}

/* A bar chart: one row per store that has a value > 0 (its number i; x_i its name), per
 * strategy the median (and with b->range its min and max). */
static int prep_bars(const mx_results *r, const char *scratch, FILE *v, idb_err *why,
                     const bar_spec *b)
{
    if (r->ins.nrow == 0)
        return idb_fail(why, IDB_EINPUT, "no insert.csv rows (no insert cell succeeded)");
    mx_names s;
    const char *stores[MX_STORES_MAX];
    int nst;
    mx_ins_names(r, &s, stores, &nst);
    FILE *f = mx_data_open(scratch, b->file, why);
    if (!f) return IDB_EIO;
    int rows = 0, rc = 0;
    for (int i = 0; i < nst && !rc; i++) {
        double vals[MX_LIST_MAX][3];
        if (!bar_values(r, b, &s, stores[i], vals)) continue;   /* e.g. null has no pages */
        char label[MX_TITLE_LEN];                /* a store at another size says so */
        long long ids = mx_store_ids(r, stores[i]);
        if (ids == r->ids) snprintf(label, sizeof label, "%s", stores[i]);
        else if (ids % 1000 == 0) snprintf(label, sizeof label, "%s (%lldk)", stores[i],
                                           ids / 1000);
        else snprintf(label, sizeof label, "%s (%lld)", stores[i], ids);
        fprintf(v, "x_%d = ", ++rows);
        rc = mx_gp_string(v, label, why);
        fprintf(f, "%d", rows);
        for (int j = 0; j < s.n; j++)
            for (int k = 0; k < (b->range ? 3 : b->col2 ? 2 : 1); k++) {
                fputc('\t', f);
                mx_put(f, vals[j][k], "");
            }
        fputc('\n', f);
    }
    if (mx_data_close(f, b->file, rc ? NULL : why)) return IDB_EIO;
    if (rc || mx_put_names(v, "", &s, NULL, why)) return IDB_EINPUT;
    return rows ? 0 : idb_fail(why, IDB_EINPUT, "no store reported %s", b->none);
}

/* inserts: inserts per second, median with min and max. */
int mx_prep_inserts(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    static const bar_spec b = { "inserts.dat", "inserts_per_s", 0, 1, "an insert rate", NULL };
    return prep_bars(r, scratch, v, why, &b);
}

/* pages_written: page writes per ID inserted. */
int mx_prep_pages_written(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    static const bar_spec b = { "pages_written.dat", "pages_written", 1, 0, "pages written", NULL };
    return prep_bars(r, scratch, v, why, &b);
}

/* bytes_per_row: bytes on disk per row (table + ID index + other indexes, insert.csv's
 * bytes_per_row: docs/results-format.md), by store and strategy. */
int mx_prep_bytes_per_row(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    static const bar_spec b = { "bytes_per_row.dat", "bytes_per_row", 0, 0,
                                "bytes per row (results made before the storage columns?)",
                                NULL };
    return prep_bars(r, scratch, v, why, &b);
}

/* fill_factor: leaf fill. */
int mx_prep_fill_factor(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    static const bar_spec b = { "fill_factor.dat", "fill_factor", 0, 0, "a fill factor", NULL };
    return prep_bars(r, scratch, v, why, &b);
}

/* wal_fpi: per server store and strategy, WAL bytes and full-page images per ID. */
int mx_prep_wal_fpi(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    static const bar_spec b = { "wal_fpi.dat", "wal_bytes_per_id", 0, 0,
                                "WAL bytes (no server store in the run)", "fpi_per_id" };
    int rc = prep_bars(r, scratch, v, why, &b);
    /* MariaDB's redo log has no full-page images: a panel of none would not draw */
    const mx_table *t = &r->ins;
    int c = mx_table_col(t, "fpi_per_id"), known = 0;
    for (int row = 0; c >= 0 && row < t->nrow; row++) known |= !isnan(mx_table_num(t, row, c));
    if (!rc) fprintf(v, "fpi_known = %d\n", known);
    return rc;
}

/* 1 when positions.csv row row is of store at the headline configuration (one writer). */
static int pos_headline(const mx_results *r, int row, const char *store)
{
    const mx_table *t = &r->pos;
    return !strcmp(mx_table_str(t, row, mx_table_col(t, "store")), store) &&
           mx_table_ll(t, row, mx_table_col(t, "ids"), -1) == r->ids &&
           mx_table_ll(t, row, mx_table_col(t, "shards"), -1) == r->shards &&
           mx_row_clients(t, row) == 1;
}

/* positions: per strategy a block of (bin centre, % of inserts), on the store the
 * sentences talk about; titles with the share that landed at the very end. */
int mx_prep_positions(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    const mx_table *t = &r->pos;
    if (t->nrow == 0) return idb_fail(why, IDB_EINPUT, "no positions.csv rows");
    int cs = mx_table_col(t, "strategy"), clo = mx_table_col(t, "bin_lo");
    int chi = mx_table_col(t, "bin_hi"), csh = mx_table_col(t, "share");
    const char *store = mx_main_store(r);
    mx_names s = { 0 };
    for (int row = 0; row < t->nrow; row++)
        if (pos_headline(r, row, store)) mx_names_add(&s, mx_table_str(t, row, cs));
    if (!s.n)
        return idb_fail(why, IDB_EINPUT,
                        "positions.csv has no rows for the headline configuration");
    FILE *f = mx_data_open(scratch, "positions.dat", why);
    if (!f) return IDB_EIO;
    char title[MX_LIST_MAX][MX_TITLE_LEN];
    int ctail = mx_table_col(&r->ins, "tail_insert_frac");
    int cp50 = mx_table_col(&r->ins, "insert_pos_p50");
    for (int i = 0; i < s.n; i++) {
        for (int row = 0; row < t->nrow; row++)
            if (!strcmp(mx_table_str(t, row, cs), s.v[i]) && pos_headline(r, row, store)) {
                mx_put(f, (mx_table_num(t, row, clo) + mx_table_num(t, row, chi)) / 2, "\t");
                mx_put(f, 100 * mx_table_num(t, row, csh), "\n");
            }
        fputs("\n\n", f);
        int ir = mx_ins_row(r, s.v[i], store);
        snprintf(title[i], sizeof title[i], "%s: median %.2f, %.1f%% at the very end", s.v[i],
                 mx_table_num(&r->ins, ir, cp50), 100 * mx_table_num(&r->ins, ir, ctail));
    }
    if (mx_data_close(f, "positions.dat", why)) return IDB_EIO;
    if (mx_put_names(v, "", &s, title, why)) return IDB_EINPUT;
    int cols = s.n <= 4 ? s.n : s.n <= 9 ? 3 : 4;
    fprintf(v, "cols = %d\nrows = %d\n", cols, (s.n + cols - 1) / cols);
    fprintf(v, "width = 1300\nheight = 250 * rows + 70\n");
    return 0;
}

/* One latency panel: rows p50 p99 p99.9 max, per strategy of s a column in µs. */
static int latency_panel(const mx_results *r, const char *scratch, const mx_names *s,
                         const char *store, const char *file, idb_err *why)
{
    static const char *const cols[] = { "lat_p50_ns", "lat_p99_ns", "lat_p999_ns", "lat_max_ns" };
    FILE *f = mx_data_open(scratch, file, why);
    if (!f) return IDB_EIO;
    for (size_t q = 0; q < sizeof cols / sizeof *cols; q++) {
        fprintf(f, "%zu", q);
        int c = mx_table_col(&r->ins, cols[q]);
        for (int j = 0; j < s->n; j++) {
            int row = mx_ins_row(r, s->v[j], store);
            fputc('\t', f);
            mx_put(f, row < 0 ? NAN : mx_table_num(&r->ins, row, c) / 1000, "");
        }
        fputc('\n', f);
    }
    return mx_data_close(f, file, why);
}

#define LATENCY_PANELS 3                         /* stores drawn side by side, at most */

/* latency: per store that measured latency a panel (null excepted). */
int mx_prep_latency(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    if (r->ins.nrow == 0) return idb_fail(why, IDB_EINPUT, "no insert.csv rows");
    mx_names s;
    const char *stores[MX_STORES_MAX];
    int nst, np = 0;
    mx_ins_names(r, &s, stores, &nst);
    for (int i = 0; i < nst && np < LATENCY_PANELS; i++) {
        int lo, hi;                              /* a model (pagesim) measures no time */
        if (!strcmp(stores[i], "null") || !mx_extremes(r, stores[i], "lat_p50_ns", 1, &lo, &hi))
            continue;
        char file[32];
        snprintf(file, sizeof file, "lat%d.dat", ++np);
        if (latency_panel(r, scratch, &s, stores[i], file, why)) return IDB_EIO;
        fprintf(v, "title%d = ", np);
        if (mx_gp_string(v, stores[i], why)) return IDB_EINPUT;
    }
    if (mx_put_names(v, "", &s, NULL, why)) return IDB_EINPUT;
    fprintf(v, "panels = %d\n", np);
    fprintf(v, "width = panels > 1 ? 560 * panels + 80 : 1000\nheight = 580\n");
    return np ? 0 : idb_fail(why, IDB_EINPUT, "no store but null measured latency in insert.csv");
}

/* Sentences ---------------------------------------------------------------------------- */

/* Print the strategies of rows whose [lo, hi] of column name overlaps row top's, as
 * "`a`, `b` and `c`"; returns how many. */
static int print_overlaps(const mx_results *r, const char *store, const char *name, int top,
                          FILE *f)
{
    const mx_table *t = &r->ins;
    char col[64];
    snprintf(col, sizeof col, "%s_min", name);
    int clo = mx_table_col(t, col), cs = mx_table_col(t, "strategy");
    snprintf(col, sizeof col, "%s_max", name);
    int chi = mx_table_col(t, col);
    double lo = mx_table_num(t, top, clo), hi = mx_table_num(t, top, chi);
    int rows[MX_LIST_MAX], n = 0;
    for (int row = 0; row < t->nrow && n < MX_LIST_MAX; row++)
        if (row != top && mx_ins_row(r, mx_table_str(t, row, cs), store) == row &&
            mx_table_num(t, row, clo) <= hi && lo <= mx_table_num(t, row, chi))
            rows[n++] = row;
    for (int i = 0; f && i < n; i++)
        fprintf(f, "%s`%s`", i == 0 ? "" : i == n - 1 ? " and " : ", ",
                mx_table_str(t, rows[i], cs));
    return n;
}

/* inserts: the highest and lowest median rate, and whose range the highest overlaps. */
int mx_say_inserts(const mx_results *r, FILE *f)
{
    const mx_table *t = &r->ins;
    const char *store = mx_main_store(r);
    int lo, hi, cs = mx_table_col(t, "strategy"), cr = mx_table_col(t, "inserts_per_s");
    if (!mx_extremes(r, store, "inserts_per_s", 1, &lo, &hi)) return IDB_EINPUT;
    char a[MX_NUM_LEN], b[MX_NUM_LEN], c[MX_NUM_LEN];
    fprintf(f, "On %s (%s IDs, %lld shard%s), `%s` had the highest median rate (%s inserts per "
               "second", store, mx_num((double)r->ids, c), r->shards, r->shards == 1 ? "" : "s",
            mx_table_str(t, hi, cs), mx_num(mx_table_num(t, hi, cr), a));
    double top_lo = mx_table_num(t, hi, mx_table_col(t, "inserts_per_s_min"));
    double top_hi = mx_table_num(t, hi, mx_table_col(t, "inserts_per_s_max"));
    if (top_lo < top_hi) {                       /* a range: more than one run */
        if (print_overlaps(r, store, "inserts_per_s", hi, NULL) > 0) {
            fprintf(f, "; its min–max range overlaps those of ");
            print_overlaps(r, store, "inserts_per_s", hi, f);
        } else {
            fprintf(f, ", its min–max range above every other strategy's");
        }
    }
    fprintf(f, ") and `%s` the lowest (%s): %.1f× fewer.\n", mx_table_str(t, lo, cs),
            mx_num(mx_table_num(t, lo, cr), b), mx_table_num(t, hi, cr) / mx_table_num(t, lo, cr));
    return 0;
}

/* pages_written: the most and the fewest pages per ID on the main store. */
int mx_say_pages_written(const mx_results *r, FILE *f)
{
    const mx_table *t = &r->ins;
    const char *store = mx_main_store(r);
    int lo, hi, cs = mx_table_col(t, "strategy"), cp = mx_table_col(t, "pages_written");
    if (!mx_extremes(r, store, "pages_written", 1, &lo, &hi)) return IDB_EINPUT;
    char a[MX_NUM_LEN], b[MX_NUM_LEN], q[MX_RATIO_LEN];
    double most = mx_table_num(t, hi, cp), fewest = mx_table_num(t, lo, cp);
    fprintf(f, "On %s, `%s` wrote the most pages per ID inserted, %s: %s the %s of `%s`, "
            "which wrote the fewest.\n",
            store, mx_table_str(t, hi, cs), mx_num(most / (double)r->ids, a),
            mx_ratio(most, fewest, most, fewest, "pages", q),
            mx_num(fewest / (double)r->ids, b), mx_table_str(t, lo, cs));
    return 0;
}

/* bytes_per_row: the most and the fewest bytes per row on the main store, with each one's
 * ID width (id_bytes) and the ratio of the two. */
int mx_say_bytes_per_row(const mx_results *r, FILE *f)
{
    const mx_table *t = &r->ins;
    const char *store = mx_main_store(r);
    int lo, hi, cs = mx_table_col(t, "strategy"), cb = mx_table_col(t, "bytes_per_row");
    int cw = mx_table_col(t, "id_bytes");
    if (cb < 0 || !mx_extremes(r, store, "bytes_per_row", 1, &lo, &hi)) return IDB_EINPUT;
    char a[MX_NUM_LEN], b[MX_NUM_LEN], wa[MX_NUM_LEN], wb[MX_NUM_LEN];
    double most = mx_table_num(t, hi, cb), fewest = mx_table_num(t, lo, cb);
    fprintf(f, "On %s, rows of `%s` take the most bytes on disk, %s per row (%s-byte IDs): "
            "%.2f× the %s of `%s` (%s-byte IDs), which take the fewest.\n", store,
            mx_table_str(t, hi, cs), mx_num(most, a),
            cw < 0 ? "?" : mx_num(mx_table_num(t, hi, cw), wa), most / fewest,
            mx_num(fewest, b), mx_table_str(t, lo, cs),
            cw < 0 ? "?" : mx_num(mx_table_num(t, lo, cw), wb));
    return 0;
}

/* Stores of insert.csv at the headline configuration, sorted by name, into out; count. */
static int stores_by_name(const mx_results *r, const char *out[])
{
    mx_names ignored;
    int n;
    mx_ins_names(r, &ignored, out, &n);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(out[j - 1], out[j]) > 0; j--) {
            const char *x = out[j];
            out[j] = out[j - 1];
            out[j - 1] = x;
        }
    return n;
}

/* The fill of the random-key strategies (tail share below TAIL_RANDOM) on store: their
 * lowest and highest; their names added to l. 0 when store has none with a fill. */
static int random_fill(const mx_results *r, const char *store, double *lo, double *hi,
                       mx_names *l)
{
    const mx_table *t = &r->ins;
    int cs = mx_table_col(t, "strategy"), cf = mx_table_col(t, "fill_factor");
    int ct = mx_table_col(t, "tail_insert_frac"), n = 0;
    for (int row = 0; row < t->nrow; row++) {
        double fill = mx_table_num(t, row, cf);
        if (mx_ins_row(r, mx_table_str(t, row, cs), store) != row || !(fill > 0) ||
            !(mx_table_num(t, row, ct) < TAIL_RANDOM)) continue;
        if (!n++ || fill < *lo) *lo = fill;
        if (n == 1 || fill > *hi) *hi = fill;
        mx_names_add(l, mx_table_str(t, row, cs));
    }
    return n > 0;
}

/* Print the stores of list[0..n) with their random-key fill as "a (0.67) and b (0.67)". */
static void print_fills(FILE *f, const char *const *list, const double (*fill)[2], int n)
{
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s%s (%.2f", i == 0 ? "" : i == n - 1 ? " and " : ", ", list[i], fill[i][0]);
        if (fabs(fill[i][1] - fill[i][0]) >= 0.005) fprintf(f, "–%.2f", fill[i][1]);
        fputc(')', f);
    }
}

/* fill_factor, second sentence: on which stores random keys' fill is near ln 2. */
static void say_ln2(const mx_results *r, FILE *f, const char *const *stores, int nst)
{
    const char *near[MX_STORES_MAX], *far[MX_STORES_MAX];
    double near_fill[MX_STORES_MAX][2], far_fill[MX_STORES_MAX][2];
    int nn = 0, nf = 0;
    mx_names random = { 0 };
    for (int s = 0; s < nst; s++) {
        double lo = 0, hi = 0;
        if (!random_fill(r, stores[s], &lo, &hi, &random)) continue;
        if (fabs(lo - log(2)) <= LN2_TOLERANCE && fabs(hi - log(2)) <= LN2_TOLERANCE) {
            near[nn] = stores[s];
            near_fill[nn][0] = lo;
            near_fill[nn++][1] = hi;
        } else {
            far[nf] = stores[s];
            far_fill[nf][0] = lo;
            far_fill[nf++][1] = hi;
        }
    }
    if (!random.n) return;
    fprintf(f, " Random insertion with pages split in half settles near ln 2 = 0.693; keys "
               "spread over the whole index (under %.0f%% at the very end: ", 100 * TAIL_RANDOM);
    for (int i = 0; i < random.n; i++) fprintf(f, "%s`%s`", i ? ", " : "", random.v[i]);
    if (nn) {
        fprintf(f, ") filled leaves to within %.2f of it on ", LN2_TOLERANCE);
        print_fills(f, near, near_fill, nn);
        if (nf) fprintf(f, ", but not on ");
    } else {
        fprintf(f, ") filled leaves on ");
    }
    print_fills(f, far, far_fill, nf);
    if (!nn) fprintf(f, ", not within %.2f of it", LN2_TOLERANCE);
    fputc('.', f);
}

/* fill_factor: the lowest and highest fill per store, and how random keys compare with
 * ln 2 on each. */
int mx_say_fill_factor(const mx_results *r, FILE *f)
{
    const mx_table *t = &r->ins;
    const char *stores[MX_STORES_MAX];
    int nst = stores_by_name(r, stores), said = 0, lo, hi;
    int cs = mx_table_col(t, "strategy"), cf = mx_table_col(t, "fill_factor");
    for (int s = 0; s < nst; s++) {
        if (!mx_extremes(r, stores[s], "fill_factor", 1, &lo, &hi)) continue;
        fprintf(f, "%s %s: `%s` fills leaves to %.2f, `%s` to %.2f",
                said ? ";" : "Lowest and highest leaf fill by store —", stores[s],
                mx_table_str(t, lo, cs), mx_table_num(t, lo, cf), mx_table_str(t, hi, cs),
                mx_table_num(t, hi, cf));
        said = 1;
    }
    if (!said) return IDB_EINPUT;
    fputc('.', f);
    say_ln2(r, f, stores, nst);
    fputc('\n', f);
    return 0;
}

/* positions: the strategy with the fewest keys at the very end, and those that append. */
int mx_say_positions(const mx_results *r, FILE *f)
{
    const mx_table *t = &r->ins;
    const char *store = mx_main_store(r);
    int lo, hi, cs = mx_table_col(t, "strategy"), ctail = mx_table_col(t, "tail_insert_frac");
    if (!mx_extremes(r, store, "tail_insert_frac", 0, &lo, &hi)) return IDB_EINPUT;
    int n99 = 0, total = 0;
    fprintf(f, "`%s` put %.2f%% of its new keys at the very end of the index (median position "
               "%.2f), while ", mx_table_str(t, lo, cs), 100 * mx_table_num(t, lo, ctail),
            mx_table_num(t, lo, mx_table_col(t, "insert_pos_p50")));
    for (int row = 0; row < t->nrow; row++)
        if (mx_ins_row(r, mx_table_str(t, row, cs), store) == row) {
            total++;
            n99 += mx_table_num(t, row, ctail) >= TAIL_APPEND;
        }
    fprintf(f, "%d of the %d strategies put at least %.0f%% there (", n99, total,
            100 * TAIL_APPEND);
    for (int row = 0, k = 0; row < t->nrow; row++)
        if (mx_ins_row(r, mx_table_str(t, row, cs), store) == row &&
            mx_table_num(t, row, ctail) >= TAIL_APPEND)
            fprintf(f, "%s`%s`", k++ ? ", " : "", mx_table_str(t, row, cs));
    fprintf(f, ").\n");
    return 0;
}

/* latency: the range of the 99th percentile over the strategies on the main store. */
int mx_say_latency(const mx_results *r, FILE *f)
{
    const mx_table *t = &r->ins;
    const char *store = mx_main_store(r);
    int lo, hi, cs = mx_table_col(t, "strategy"), c = mx_table_col(t, "lat_p99_ns");
    if (!mx_extremes(r, store, "lat_p99_ns", 1, &lo, &hi)) return IDB_EINPUT;
    char a[MX_NUM_LEN], b[MX_NUM_LEN];
    fprintf(f, "On %s the 99th percentile of a single insert ranged from %s µs (`%s`) to %s µs "
               "(`%s`).\n", store, mx_num(mx_table_num(t, lo, c) / 1000, a),
            mx_table_str(t, lo, cs), mx_num(mx_table_num(t, hi, c) / 1000, b),
            mx_table_str(t, hi, cs));
    return 0;
}

/* wal_fpi: per store, the strategies with the most and the least WAL per ID, and how
 * their full-page images compare. */
int mx_say_wal_fpi(const mx_results *r, FILE *f)
{
    const mx_table *t = &r->ins;
    const char *stores[MX_STORES_MAX];
    int nst = stores_by_name(r, stores), said = 0, lo, hi;
    int cs = mx_table_col(t, "strategy"), cw = mx_table_col(t, "wal_bytes_per_id");
    int cf = mx_table_col(t, "fpi_per_id");
    for (int s = 0; s < nst; s++) {
        if (!mx_extremes(r, stores[s], "wal_bytes_per_id", 1, &lo, &hi)) continue;
        char a[MX_NUM_LEN], b[MX_NUM_LEN], c[MX_NUM_LEN], d[MX_NUM_LEN], q[MX_RATIO_LEN];
        int raw = mx_table_col(t, "wal_bytes");        /* unrounded, when insert.csv has it */
        double wh = mx_table_num(t, hi, raw), wl = mx_table_num(t, lo, raw);
        if (!(wh > 0 && wl > 0)) wh = mx_table_num(t, hi, cw), wl = mx_table_num(t, lo, cw);
        fprintf(f, "%sOn %s, `%s` wrote %s WAL bytes per ID, `%s` %s (%s)", said ? " " : "",
                stores[s], mx_table_str(t, hi, cs), mx_num(mx_table_num(t, hi, cw), a),
                mx_table_str(t, lo, cs), mx_num(mx_table_num(t, lo, cw), c),
                mx_ratio(wh, wl, -1, -1, "", q));
        if (isnan(mx_table_num(t, hi, cf)) || isnan(mx_table_num(t, lo, cf)))
            fputs("; it counts no full-page images.", f);
        else
            fprintf(f, "; full-page images per ID: %s and %s.",
                    mx_num(mx_table_num(t, hi, cf), b), mx_num(mx_table_num(t, lo, cf), d));
        said = 1;
    }
    if (!said) return IDB_EINPUT;
    fputc('\n', f);
    return 0;
}
