/* plots_other.c — the plots of the other results tables: generation (generation.csv),
 * miss_ratio (curve.csv), inversion_skew (skew.csv) and outage (timeline.csv). Per plot
 * its data preparation (mx_prep_NAME: data files and gnuplot variables) and its report
 * sentences (mx_say_NAME), every figure computed from the tables; entries of the plot
 * table (plots.h).
 */
#include "plots.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* generation.csv's kinds in plot order, their label suffix and fixed colour (NULL: the
 * strategy's own). */
static const struct {
    const char *kind, *suffix, *color;
} gen_kinds[] = {
    { "strategy", "", NULL },
    { "baseline", " (clock read)", "#000000" },
    { "peer", " (peer)", "#a0a0a0" },
};

/* The ns per ID of name with 2 threads in generation.csv, NaN when not measured. */
static double two_threads(const mx_table *t, const char *name)
{
    int cn = mx_table_col(t, "name"), ct = mx_table_col(t, "threads");
    double two = NAN;
    for (int q = 0; q < t->nrow; q++)
        if (!strcmp(mx_table_str(t, q, cn), name) && mx_table_num(t, q, ct) == 2)
            two = mx_table_num(t, q, mx_table_col(t, "ns_per_id"));
    return two;
}

/* generation: generation.dat = label number i (x_i its text), ns, min, max, colour, ns at
 * 2 threads, variant (mx_variant: a name on a server is hatched over its colour). */
int mx_prep_generation(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    const mx_table *t = &r->gen;
    if (t->nrow == 0)
        return idb_fail(why, IDB_EINPUT,
                        "no generation.csv (the generation benchmark did not run)");
    int ck = mx_table_col(t, "kind"), cn = mx_table_col(t, "name"), ct = mx_table_col(t, "threads");
    int cm = mx_table_col(t, "ns_per_id"), clo = mx_table_col(t, "ns_per_id_min");
    int chi = mx_table_col(t, "ns_per_id_max"), crep = mx_table_col(t, "repetitions");
    FILE *f = mx_data_open(scratch, "generation.dat", why);
    if (!f) return IDB_EIO;
    int rows = 0, reps = 0, rc = 0;
    for (size_t k = 0; k < sizeof gen_kinds / sizeof *gen_kinds; k++)
        for (int row = 0; row < t->nrow && !rc; row++) {
            if (strcmp(mx_table_str(t, row, ck), gen_kinds[k].kind) ||
                mx_table_num(t, row, ct) != 1) continue;
            const char *name = mx_table_str(t, row, cn);
            const char *col = gen_kinds[k].color ? gen_kinds[k].color : mx_color(name);
            char label[MX_TITLE_LEN];
            snprintf(label, sizeof label, "%s%s", name, gen_kinds[k].suffix);
            fprintf(v, "x_%d = ", ++rows);
            rc = mx_gp_string(v, label, why);
            fprintf(f, "%d\t", rows);
            mx_put(f, mx_table_num(t, row, cm), "\t");
            mx_put(f, mx_table_num(t, row, clo), "\t");
            mx_put(f, mx_table_num(t, row, chi), "\t");
            fprintf(f, "%ld\t", strtol(col + 1, NULL, 16));
            mx_put(f, two_threads(t, name), "\t");
            fprintf(f, "%d\n", mx_variant(name));
        }
    if (mx_data_close(f, "generation.dat", rc ? NULL : why)) return IDB_EIO;
    if (rc) return IDB_EINPUT;
    for (int row = 0; row < t->nrow; row++) {
        long long n = mx_table_ll(t, row, crep, 0);
        if (n > reps && n <= INT_MAX) reps = (int)n;
    }
    fprintf(v, "ngen = %d\nreps = %d\n", rows, reps);
    return rows ? 0 : idb_fail(why, IDB_EINPUT, "generation.csv has no rows");
}

/* generation: the fastest and slowest strategy with one thread, the clock read, peers. */
int mx_say_generation(const mx_results *r, FILE *f)
{
    const mx_table *g = &r->gen;
    int ck = mx_table_col(g, "kind"), cn = mx_table_col(g, "name");
    int ct = mx_table_col(g, "threads"), cm = mx_table_col(g, "ns_per_id");
    int flo = -1, fhi = -1, base = -1;
    for (int row = 0; row < g->nrow; row++) {
        if (mx_table_num(g, row, ct) != 1) continue;
        double v = mx_table_num(g, row, cm);
        if (!strcmp(mx_table_str(g, row, ck), "baseline")) base = row;
        if (strcmp(mx_table_str(g, row, ck), "strategy") || isnan(v)) continue;
        if (flo < 0 || v < mx_table_num(g, flo, cm)) flo = row;
        if (fhi < 0 || v > mx_table_num(g, fhi, cm)) fhi = row;
    }
    if (flo < 0) return IDB_EINPUT;
    char a[MX_NUM_LEN], b[MX_NUM_LEN];
    fprintf(f, "With one thread, `%s` was the fastest strategy at %s ns per ID and `%s` the "
               "slowest at %s ns", mx_table_str(g, flo, cn), mx_num(mx_table_num(g, flo, cm), a),
            mx_table_str(g, fhi, cn), mx_num(mx_table_num(g, fhi, cm), b));
    if (base >= 0)
        fprintf(f, "; one clock read alone (`%s`) costs %s ns", mx_table_str(g, base, cn),
                mx_num(mx_table_num(g, base, cm), a));
    for (int row = 0; row < g->nrow; row++)
        if (!strcmp(mx_table_str(g, row, ck), "peer") && mx_table_num(g, row, ct) == 1)
            fprintf(f, "; the peer `%s` took %s ns", mx_table_str(g, row, cn),
                    mx_num(mx_table_num(g, row, cm), a));
    fprintf(f, ".\n");
    return 0;
}

#define MISS_PANELS 3                            /* stores drawn side by side, at most */

/* One miss-ratio panel p (1-based) for store: per strategy a block of (cache, misses);
 * zero misses drawn a decade below the smallest real value. */
static int miss_panel(const mx_results *r, const char *scratch, FILE *v, int p,
                      const char *store, idb_err *why)
{
    const mx_table *t = &r->curve;
    int cs = mx_table_col(t, "strategy"), cst = mx_table_col(t, "store");
    int cp = mx_table_col(t, "cache_pages"), cm = mx_table_col(t, "misses_per_insert");
    mx_names s = { 0 };
    long long ids = 0;
    double minpos = INFINITY, maxv = 0;
    for (int row = 0; row < t->nrow; row++) {
        if (strcmp(mx_table_str(t, row, cst), store)) continue;
        mx_names_add(&s, mx_table_str(t, row, cs));
        ids = mx_table_ll(t, row, mx_table_col(t, "ids"), 0);
        double m = mx_table_num(t, row, cm);
        if (m > 0 && m < minpos) minpos = m;
        if (m > 0 && m > maxv) maxv = m;
    }
    if (isinf(minpos)) minpos = maxv = 1;
    int lo_dec = (int)floor(log10(minpos)), hi_dec = (int)ceil(log10(maxv));
    if (hi_dec <= lo_dec) hi_dec = lo_dec + 1;
    double floor_v = pow(10, lo_dec - 1);
    fprintf(v, "lodec%d = %d\nhidec%d = %d\n", p, lo_dec, p, hi_dec);
    char file[32], sfx[16];
    snprintf(file, sizeof file, "miss%d.dat", p);
    snprintf(sfx, sizeof sfx, "%d", p);
    FILE *f = mx_data_open(scratch, file, why);
    if (!f) return IDB_EIO;
    for (int i = 0; i < s.n; i++) {
        int any = 0;
        for (int row = 0; row < t->nrow; row++)
            if (!strcmp(mx_table_str(t, row, cst), store) &&
                !strcmp(mx_table_str(t, row, cs), s.v[i])) {
                double m = mx_table_num(t, row, cm);
                mx_put(f, mx_table_num(t, row, cp), "\t");
                mx_put(f, m == 0 ? floor_v : m, "\n");
                any = 1;
            }
        if (!any) fputs("NaN\tNaN\n", f);
        fputs("\n\n", f);
    }
    if (mx_data_close(f, file, why)) return IDB_EIO;
    fprintf(v, "floor%d = %.6g\ntitle%d = ", p, floor_v, p);
    char title[MX_TITLE_LEN + 64];
    snprintf(title, sizeof title, "%s%s, %lld IDs", store,
             strcmp(store, "pagesim") == 0 ? " (B+tree model, LRU, one pass)" : " (separate runs)",
             ids);
    if (mx_gp_string(v, title, why) || mx_put_names(v, sfx, &s, NULL, why)) return IDB_EINPUT;
    return 0;
}

/* The stores of curve.csv in file order, at most max, into out; returns how many. */
static int curve_stores(const mx_table *t, const char **out, int max)
{
    int cst = mx_table_col(t, "store"), n = 0;
    for (int row = 0; row < t->nrow && n < max; row++) {
        int seen = 0;
        for (int i = 0; i < n; i++) seen |= !strcmp(out[i], mx_table_str(t, row, cst));
        if (!seen) out[n++] = mx_table_str(t, row, cst);
    }
    return n;
}

/* miss_ratio: per store of curve.csv a panel. */
int mx_prep_miss_ratio(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    if (r->curve.nrow == 0)
        return idb_fail(why, IDB_EINPUT, "no curve.csv rows (no curve cell succeeded)");
    const char *stores[MISS_PANELS];
    int np = curve_stores(&r->curve, stores, MISS_PANELS);
    for (int p = 0; p < np; p++)
        if (miss_panel(r, scratch, v, p + 1, stores[p], why)) return IDB_EIO;
    fprintf(v, "panels = %d\n", np);
    fprintf(v, "width = panels > 1 ? 560 * panels + 80 : 1000\nheight = 580\n");
    return 0;
}

#define SQLITE_DEFAULT_CACHE 2000                /* pages: the cache the sentence looks at */

/* One store's clause of the miss_ratio sentence (sep before it). */
static void say_miss_store(const mx_table *k, const char *st, const char *sep, FILE *f)
{
    int ks = mx_table_col(k, "strategy"), kst = mx_table_col(k, "store");
    int kp = mx_table_col(k, "cache_pages"), km = mx_table_col(k, "misses_per_insert");
    /* the cache size nearest SQLite's default at which some strategy misses */
    double best = NAN;
    for (int row = 0; row < k->nrow; row++) {
        double p = mx_table_num(k, row, kp);
        if (!strcmp(mx_table_str(k, row, kst), st) && mx_table_num(k, row, km) > 0 &&
            (isnan(best) || fabs(log(p / SQLITE_DEFAULT_CACHE)) <
                                fabs(log(best / SQLITE_DEFAULT_CACHE)))) best = p;
    }
    if (isnan(best)) {
        fprintf(f, "%s%s: no strategy missed at any cache size", sep, st);
        return;
    }
    int rl = -1, rh = -1;
    for (int row = 0; row < k->nrow; row++) {
        if (strcmp(mx_table_str(k, row, kst), st) || mx_table_num(k, row, kp) != best) continue;
        double v = mx_table_num(k, row, km);
        if (rl < 0 || v < mx_table_num(k, rl, km)) rl = row;
        if (rh < 0 || v > mx_table_num(k, rh, km)) rh = row;
    }
    char a[MX_NUM_LEN], b[MX_NUM_LEN], c[MX_NUM_LEN];
    fprintf(f, "%s%s with a cache of %s pages: `%s` missed %s pages per insert, `%s` %s", sep,
            st, mx_num(best, c), mx_table_str(k, rh, ks), mx_num(mx_table_num(k, rh, km), a),
            mx_table_str(k, rl, ks), mx_num(mx_table_num(k, rl, km), b));
}

#define MISS_STORES_MAX 8                        /* stores the sentence talks about */

/* miss_ratio: per store, the most and fewest misses near SQLite's default cache. */
int mx_say_miss_ratio(const mx_results *r, FILE *f)
{
    const char *stores[MISS_STORES_MAX];
    int n = curve_stores(&r->curve, stores, MISS_STORES_MAX);
    if (!n) return IDB_EINPUT;
    for (int i = 0; i < n; i++) say_miss_store(&r->curve, stores[i], i ? "; " : "", f);
    fprintf(f, ".\n");
    return 0;
}

/* inversion_skew: per strategy a block of (skew_ms > 0, inversion_frac). */
int mx_prep_inversion_skew(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    const mx_table *t = &r->skew;
    if (t->nrow == 0)
        return idb_fail(why, IDB_EINPUT,
                        "no skew.csv rows (no skew sweep in the matrix, or it failed)");
    int cs = mx_table_col(t, "strategy"), ck = mx_table_col(t, "skew_ms");
    int ci = mx_table_col(t, "inversion_frac");
    mx_names s = { 0 };
    for (int row = 0; row < t->nrow; row++) mx_names_add(&s, mx_table_str(t, row, cs));
    FILE *f = mx_data_open(scratch, "inversion_skew.dat", why);
    if (!f) return IDB_EIO;
    char title[MX_LIST_MAX][MX_TITLE_LEN];
    for (int i = 0; i < s.n; i++) {
        int drawn = 0;
        for (int row = 0; row < t->nrow; row++)
            if (!strcmp(mx_table_str(t, row, cs), s.v[i]) && mx_table_num(t, row, ck) > 0) {
                mx_put(f, mx_table_num(t, row, ck), "\t");
                mx_put(f, mx_table_num(t, row, ci), "\n");
                drawn += mx_table_num(t, row, ci) > 0;
            }
        fputs("NaN\tNaN\n\n\n", f);
        snprintf(title[i], sizeof title[i], "%s%s", s.v[i], drawn ? "" : " (0 at every skew)");
    }
    if (mx_data_close(f, "inversion_skew.dat", why)) return IDB_EIO;
    return mx_put_names(v, "", &s, title, why);
}

/* inversion_skew: every strategy's inversion share at the largest skew. */
int mx_say_inversion_skew(const mx_results *r, FILE *f)
{
    const mx_table *k = &r->skew;
    int ks = mx_table_col(k, "strategy"), kk = mx_table_col(k, "skew_ms");
    int ki = mx_table_col(k, "inversion_frac");
    double top = -1;
    for (int row = 0; row < k->nrow; row++)
        if (mx_table_num(k, row, kk) > top) top = mx_table_num(k, row, kk);
    if (top < 0) return IDB_EINPUT;
    char a[MX_NUM_LEN], b[MX_NUM_LEN];
    fprintf(f, "At %s ms of skew the inversion share was", mx_num(top, a));
    for (int row = 0, n = 0; row < k->nrow; row++)
        if (mx_table_num(k, row, kk) == top)
            fprintf(f, "%s `%s` %s", n++ ? "," : "", mx_table_str(k, row, ks),
                    mx_num(mx_table_num(k, row, ki), b));
    fprintf(f, ".\n");
    return 0;
}

/* One strategy's block of outage.dat: (second, failed orders, orders), the last second's
 * step closed; returns its failed orders. */
static double outage_block(const mx_table *t, const char *strategy, FILE *f)
{
    int cs = mx_table_col(t, "strategy"), ct = mx_table_col(t, "t_s");
    int co = mx_table_col(t, "orders"), cf = mx_table_col(t, "failed_orders");
    double failed = 0;
    int last = -1;
    for (int row = 0; row < t->nrow; row++)
        if (!strcmp(mx_table_str(t, row, cs), strategy)) {
            mx_put(f, mx_table_num(t, row, ct), "\t");
            mx_put(f, mx_table_num(t, row, cf), "\t");
            mx_put(f, mx_table_num(t, row, co), "\n");
            failed += mx_table_num(t, row, cf);
            last = row;
        }
    if (last >= 0) {
        mx_put(f, mx_table_num(t, last, ct) + 1, "\t");
        mx_put(f, mx_table_num(t, last, cf), "\t");
        mx_put(f, mx_table_num(t, last, co), "\n");
    }
    fputs("\n\n", f);
    return failed;
}

/* outage: per strategy a block of (second, failed orders, orders). */
int mx_prep_outage(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    const mx_table *t = &r->tl;
    if (t->nrow == 0)
        return idb_fail(why, IDB_EINPUT, "no timeline.csv rows (no timeline_workload in the "
                                         "matrix, or it failed)");
    mx_names s = { 0 };
    for (int row = 0; row < t->nrow; row++)
        mx_names_add(&s, mx_table_str(t, row, mx_table_col(t, "strategy")));
    FILE *f = mx_data_open(scratch, "outage.dat", why);
    if (!f) return IDB_EIO;
    char title[MX_LIST_MAX][MX_TITLE_LEN];
    for (int i = 0; i < s.n; i++)
        snprintf(title[i], sizeof title[i], "%s: %.0f failed", s.v[i], outage_block(t, s.v[i], f));
    if (mx_data_close(f, "outage.dat", why)) return IDB_EIO;
    fprintf(v, "workload = ");
    if (mx_gp_string(v, mx_table_str(t, 0, mx_table_col(t, "workload")), why)) return IDB_EINPUT;
    return mx_put_names(v, "", &s, title, why);
}

/* outage: per strategy that failed orders, how many; how many failed none. */
int mx_say_outage(const mx_results *r, FILE *f)
{
    const mx_table *k = &r->tl;
    int ks = mx_table_col(k, "strategy"), kf = mx_table_col(k, "failed_orders");
    int ko = mx_table_col(k, "orders");
    if (!k->nrow) return IDB_EINPUT;
    const char *seen[MX_LIST_MAX];
    int ns = 0, zero = 0;
    for (int row = 0; row < k->nrow; row++) {
        int dup = 0;
        for (int j = 0; j < ns; j++) dup |= !strcmp(seen[j], mx_table_str(k, row, ks));
        if (!dup && ns < MX_LIST_MAX) seen[ns++] = mx_table_str(k, row, ks);
    }
    char a[MX_NUM_LEN], b[MX_NUM_LEN];
    for (int j = 0; j < ns; j++) {
        double fl = 0, od = 0;
        for (int row = 0; row < k->nrow; row++)
            if (!strcmp(mx_table_str(k, row, ks), seen[j])) {
                fl += mx_table_num(k, row, kf);
                od += mx_table_num(k, row, ko);
            }
        if (fl > 0)
            fprintf(f, "`%s` failed %s of its %s orders (%.1f%%). ", seen[j], mx_num(fl, a),
                    mx_num(od, b), 100 * fl / od);
        else zero++;
    }
    fprintf(f, "%d of the %d strategies failed none.\n", zero, ns);
    return 0;
}

/* latency_rate ------------------------------------------------------------------------- */

#define RATE_PANELS 3                            /* stores drawn side by side, at most */
#define NS_PER_MS 1e6

/* openloop.csv of r's directory into t (an empty table when it is missing). */
static void load_openloop(const mx_results *r, mx_table *t)
{
    char path[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/openloop.csv", r->dir);
    mx_table_load(path, t, NULL);
}

/* The open-loop runs at the headline configuration of t (fewest shards, most orders):
 * their ids and shards; 0 when t has no rows. */
typedef struct ol_view {
    const mx_table *t;
    long long ids, shards;
    int cs, cst, crate, cp50, cp99, clat99, cach, ccms, cbatch;
} ol_view;

/* Set up v over t. Returns 0 when t has no rows. */
static int ol_view_make(ol_view *v, const mx_table *t)
{
    v->t = t;
    v->cs = mx_table_col(t, "strategy");
    v->cst = mx_table_col(t, "store");
    v->crate = mx_table_col(t, "rate_per_s");
    v->cp50 = mx_table_col(t, "order_lat_p50_ns");
    v->cp99 = mx_table_col(t, "order_lat_p99_ns");
    v->clat99 = mx_table_col(t, "lat_p99_ns");
    v->cach = mx_table_col(t, "achieved_per_s");
    v->ccms = mx_table_col(t, "commit_ms");
    v->cbatch = mx_table_col(t, "batch");
    return mx_headline(t, &v->ids, &v->shards);
}

/* 1 when row of v's table is of strategy (NULL: any) on store at the headline. */
static int ol_row_is(const ol_view *v, int row, const char *strategy, const char *store)
{
    const mx_table *t = v->t;
    return (!strategy || !strcmp(mx_table_str(t, row, v->cs), strategy)) &&
           !strcmp(mx_table_str(t, row, v->cst), store) &&
           mx_table_ll(t, row, mx_table_col(t, "ids"), -1) == v->ids &&
           mx_table_ll(t, row, mx_table_col(t, "shards"), -1) == v->shards;
}

/* One panel: per strategy of s a block (rate, p50 ms, p99 ms), by rising rate; a strategy
 * without a run on store gets a NaN row, so block i stays strategy i. */
static int rate_panel(const ol_view *v, const mx_names *s, const char *store,
                      const char *scratch, const char *file, idb_err *why)
{
    FILE *f = mx_data_open(scratch, file, why);
    if (!f) return IDB_EIO;
    for (int i = 0; i < s->n; i++) {
        int rows[MX_LIST_MAX], n = 0;
        for (int row = 0; row < v->t->nrow && n < MX_LIST_MAX; row++)
            if (ol_row_is(v, row, s->v[i], store)) rows[n++] = row;
        for (int a = 1; a < n; a++)              /* by rate: few rows, insertion sort */
            for (int b = a; b > 0 && mx_table_num(v->t, rows[b - 1], v->crate) >
                                         mx_table_num(v->t, rows[b], v->crate); b--) {
                int x = rows[b];
                rows[b] = rows[b - 1];
                rows[b - 1] = x;
            }
        for (int k = 0; k < n; k++) {
            mx_put(f, mx_table_num(v->t, rows[k], v->crate), "\t");
            mx_put(f, mx_table_num(v->t, rows[k], v->cp50) / NS_PER_MS, "\t");
            mx_put(f, mx_table_num(v->t, rows[k], v->cp99) / NS_PER_MS, "\n");
        }
        fputs(n ? "\n\n" : "NaN\tNaN\tNaN\n\n\n", f);
    }
    return mx_data_close(f, file, why);
}

/* latency_rate: per store of openloop.csv a panel of order latency (p50, p99) against the
 * offered rate, a line per strategy. */
int mx_prep_latency_rate(const mx_results *r, const char *scratch, FILE *vars, idb_err *why)
{
    mx_table t;
    load_openloop(r, &t);
    ol_view v;
    if (!ol_view_make(&v, &t)) {
        mx_table_free(&t);
        return idb_fail(why, IDB_EINPUT, "no openloop.csv rows (no open-loop cell succeeded)");
    }
    mx_names s = { 0 }, stores = { 0 };
    for (int row = 0; row < t.nrow; row++) {
        mx_names_add(&s, mx_table_str(&t, row, v.cs));
        const char *st = mx_table_str(&t, row, v.cst);
        int seen = 0;
        for (int i = 0; i < stores.n; i++) seen |= !strcmp(stores.v[i], st);
        if (!seen && stores.n < RATE_PANELS) stores.v[stores.n++] = st;
    }
    int rc = 0;
    for (int i = 0; i < stores.n && !rc; i++) {
        char file[32];
        snprintf(file, sizeof file, "rate%d.dat", i + 1);
        rc = rate_panel(&v, &s, stores.v[i], scratch, file, why);
        fprintf(vars, "title%d = ", i + 1);
        if (!rc && mx_gp_string(vars, stores.v[i], why)) rc = IDB_EINPUT;
    }
    if (!rc && mx_put_names(vars, "", &s, NULL, why)) rc = IDB_EINPUT;
    fprintf(vars, "panels = %d\nol_subtitle = '%lld orders per run, commit every %g ms or %g "
            "rows'\n", stores.n, v.ids, mx_table_num(&t, 0, v.ccms),
            mx_table_num(&t, 0, v.cbatch));
    fprintf(vars, "width = panels > 1 ? 560 * panels + 80 : 1000\nheight = 580\n");
    mx_table_free(&t);
    return rc;
}

/* latency_rate: on the main store (sqlite if it ran) at the highest offered rate, the
 * lowest and highest order latency p99 over the strategies, against the per-statement p99
 * of the same runs. */
int mx_say_latency_rate(const mx_results *r, FILE *f)
{
    mx_table t;
    load_openloop(r, &t);
    ol_view v;
    int lo = -1, hi = -1;
    double top = 0, stmt = 0;
    const char *store = "";
    if (ol_view_make(&v, &t)) {
        store = mx_table_str(&t, 0, v.cst);
        for (int row = 0; row < t.nrow; row++)
            if (!strcmp(mx_table_str(&t, row, v.cst), "sqlite")) store = "sqlite";
        for (int row = 0; row < t.nrow; row++)
            if (ol_row_is(&v, row, NULL, store) && mx_table_num(&t, row, v.crate) > top)
                top = mx_table_num(&t, row, v.crate);
    }
    for (int row = 0; row < t.nrow; row++) {
        double p99 = mx_table_num(&t, row, v.cp99);
        if (!ol_row_is(&v, row, NULL, store) || mx_table_num(&t, row, v.crate) != top ||
            !(p99 >= 0)) continue;
        if (lo < 0 || p99 < mx_table_num(&t, lo, v.cp99)) lo = row;
        if (hi < 0 || p99 > mx_table_num(&t, hi, v.cp99)) hi = row;
        stmt = fmax(stmt, mx_table_num(&t, row, v.clat99));
    }
    if (lo < 0) {
        mx_table_free(&t);
        return IDB_EINPUT;
    }
    char a[MX_NUM_LEN], b[MX_NUM_LEN], c[MX_NUM_LEN], d[MX_NUM_LEN];
    double plo = mx_table_num(&t, lo, v.cp99), phi = mx_table_num(&t, hi, v.cp99);
    fprintf(f, "On %s at the highest offered rate, %s orders per second, the 99th percentile "
               "of order latency (arrival to durable commit) ran from %s ms (`%s`) to %s ms "
               "(`%s`), %.1f× apart; the per-statement 99th percentile of the same runs was at "
               "most %s ms, as it leaves out waiting and commits.\n", store, mx_num(top, a),
            mx_num(plo / NS_PER_MS, b), mx_table_str(&t, lo, v.cs), mx_num(phi / NS_PER_MS, c),
            mx_table_str(&t, hi, v.cs), phi / plo, mx_num(stmt / NS_PER_MS, d));
    mx_table_free(&t);
    return 0;
}
