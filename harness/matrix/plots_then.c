/* plots_then.c — the scheme-change plot (issue 27): insert.csv's second phases (blocks with
 * then = STRATEGY:N; matrix_results.c keeps them in r->then), as bars of pages written per
 * row of the phase: one group per store, one bar per (first -> second) pair, coloured as
 * the second strategy. Its data preparation and report sentences (plots.h); the report's
 * table of the phases and its v7-into-v4 verdict are report_then.c's.
 */
#include "plots.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PAIRS_MAX MX_LIST_MAX
#define PAIR_LEN (2 * 64 + 8)

/* The distinct (first, second) pairs of t in file order: their rows' texts. */
typedef struct pairs {
    const char *first[PAIRS_MAX], *second[PAIRS_MAX];
    int n;
} pairs;

/* The pairs and the stores (file order) of the then table t. */
static void then_names(const mx_table *t, pairs *p, const char *stores[], int *nst)
{
    int cf = mx_table_col(t, "first_strategy"), cs = mx_table_col(t, "strategy");
    int cst = mx_table_col(t, "store");
    p->n = *nst = 0;
    for (int row = 0; row < t->nrow; row++) {
        const char *f = mx_table_str(t, row, cf), *s = mx_table_str(t, row, cs);
        const char *st = mx_table_str(t, row, cst);
        int seen = 0;
        for (int i = 0; i < p->n; i++) seen |= !strcmp(p->first[i], f) && !strcmp(p->second[i], s);
        if (!seen && p->n < PAIRS_MAX) { p->first[p->n] = f; p->second[p->n++] = s; }
        seen = 0;
        for (int i = 0; i < *nst; i++) seen |= !strcmp(stores[i], st);
        if (!seen && *nst < MX_STORES_MAX) stores[(*nst)++] = st;
    }
}

/* Pages written per row of the phase (first -> second) on store; NaN when none. */
static double then_pages(const mx_table *t, const char *first, const char *second,
                         const char *store)
{
    int cf = mx_table_col(t, "first_strategy"), cs = mx_table_col(t, "strategy");
    int cst = mx_table_col(t, "store"), cp = mx_table_col(t, "pages_written");
    int ci = mx_table_col(t, "ids");
    for (int row = 0; row < t->nrow; row++)
        if (!strcmp(mx_table_str(t, row, cf), first) && !strcmp(mx_table_str(t, row, cs), second)
            && !strcmp(mx_table_str(t, row, cst), store))
            return mx_table_num(t, row, cp) / mx_table_num(t, row, ci);
    return NAN;
}

/* then: then.dat = per store (its number i; x_i its name) the pages written per row of
 * each pair's phase; n, colors (the second strategy's) and t_i ("FIRST → SECOND"). */
int mx_prep_then(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    const mx_table *t = &r->then;
    pairs p;
    const char *stores[MX_STORES_MAX];
    int nst, rows = 0, rc = 0;
    then_names(t, &p, stores, &nst);
    if (!t->nrow || !p.n)
        return idb_fail(why, IDB_EINPUT, "no second phases in insert.csv (no [insert...] block "
                        "with then = STRATEGY:N)");
    FILE *f = mx_data_open(scratch, "then.dat", why);
    if (!f) return IDB_EIO;
    for (int i = 0; i < nst && !rc; i++) {
        fprintf(v, "x_%d = ", ++rows);
        rc = mx_gp_string(v, stores[i], why);
        fprintf(f, "%d", rows);
        for (int j = 0; j < p.n; j++) {
            fputc('\t', f);
            mx_put(f, then_pages(t, p.first[j], p.second[j], stores[i]), "");
        }
        fputc('\n', f);
    }
    if (mx_data_close(f, "then.dat", rc ? NULL : why)) return IDB_EIO;
    if (rc) return IDB_EINPUT;
    fprintf(v, "n = %d\ncolors = '", p.n);
    for (int j = 0; j < p.n; j++) fprintf(v, "%s%s", j ? " " : "", mx_color(p.second[j]));
    fprintf(v, "'\n");
    for (int j = 0; j < p.n && !rc; j++) {
        char title[PAIR_LEN];
        snprintf(title, sizeof title, "%.64s to %.64s", p.first[j], p.second[j]);
        fprintf(v, "t_%d = ", j + 1);
        rc = mx_gp_string(v, title, why);
    }
    return rc ? IDB_EINPUT : 0;
}

/* then: per store, the phase that wrote the fewest and the one that wrote the most pages
 * per row (from the medians), and their ratio. */
int mx_say_then(const mx_results *r, FILE *f)
{
    const mx_table *t = &r->then;
    pairs p;
    const char *stores[MX_STORES_MAX];
    int nst, said = 0;
    then_names(t, &p, stores, &nst);
    for (int i = 0; i < nst; i++) {
        int lo = -1, hi = -1;
        double vlo = NAN, vhi = NAN;
        for (int j = 0; j < p.n; j++) {
            double x = then_pages(t, p.first[j], p.second[j], stores[i]);
            if (!(x >= 0)) continue;
            if (lo < 0 || x < vlo) { lo = j; vlo = x; }
            if (hi < 0 || x > vhi) { hi = j; vhi = x; }
        }
        if (lo < 0) continue;
        char a[MX_NUM_LEN], b[MX_NUM_LEN], q[MX_NUM_LEN];
        if (lo == hi)
            fprintf(f, "On %s, `%s` → `%s` wrote %s pages per row.\n", stores[i], p.first[lo],
                    p.second[lo], mx_num(vlo, a));
        else
            fprintf(f, "On %s, `%s` → `%s` wrote the fewest pages per row of its second phase "
                    "(%s) and `%s` → `%s` the most (%s, %s× as many).\n", stores[i],
                    p.first[lo], p.second[lo], mx_num(vlo, a), p.first[hi], p.second[hi],
                    mx_num(vhi, b), vlo > 0 ? mx_num(vhi / vlo, q) : "n/a");
        said++;
    }
    return said ? 0 : IDB_EINPUT;
}
