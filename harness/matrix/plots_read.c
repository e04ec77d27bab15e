/* plots_read.c — the reads plot (issue 27): read.csv's pages read per point lookup
 * (misses_per_lookup: pages the store's cache lacked, per lookup) by strategy, one group of
 * bars per store and pattern (recent:H, uniform, ...), from the first block of read.csv.
 * Its data preparation and report sentences (plots.h).
 */
#include "plots.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GROUP_LEN 160

/* The first block's name, its stores and patterns (file order), its strategies (registry
 * order) of read.csv t. */
typedef struct read_names {
    const char *block;
    const char *stores[MX_STORES_MAX], *patterns[MX_LIST_MAX];
    int nst, npat;
    mx_names strategies;
} read_names;

/* Add s to list v (n entries, at most max) unless it is there. */
static void add_once(const char **v, int *n, int max, const char *s)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp(v[i], s)) return;
    if (*n < max) v[(*n)++] = s;
}

/* The names of read.csv t into rn (see read_names). */
static void read_names_make(const mx_table *t, read_names *rn)
{
    int cb = mx_table_col(t, "block"), cst = mx_table_col(t, "store");
    int cp = mx_table_col(t, "pattern"), cs = mx_table_col(t, "strategy");
    memset(rn, 0, sizeof *rn);
    rn->block = t->nrow ? mx_table_str(t, 0, cb) : "";
    for (int row = 0; row < t->nrow; row++) {
        if (strcmp(mx_table_str(t, row, cb), rn->block)) continue;
        add_once(rn->stores, &rn->nst, MX_STORES_MAX, mx_table_str(t, row, cst));
        add_once(rn->patterns, &rn->npat, MX_LIST_MAX, mx_table_str(t, row, cp));
        mx_names_add(&rn->strategies, mx_table_str(t, row, cs));
    }
}

/* misses_per_lookup of (block, store, pattern, strategy) in t; NaN when none. */
static double misses(const mx_table *t, const char *block, const char *store,
                     const char *pattern, const char *strategy)
{
    int cb = mx_table_col(t, "block"), cst = mx_table_col(t, "store");
    int cp = mx_table_col(t, "pattern"), cs = mx_table_col(t, "strategy");
    int cm = mx_table_col(t, "misses_per_lookup");
    for (int row = 0; row < t->nrow; row++)
        if (!strcmp(mx_table_str(t, row, cb), block) && !strcmp(mx_table_str(t, row, cst), store)
            && !strcmp(mx_table_str(t, row, cp), pattern) &&
            !strcmp(mx_table_str(t, row, cs), strategy))
            return mx_table_num(t, row, cm);
    return NAN;
}

/* reads: reads.dat = per (store, pattern) with a figure its number i (x_i "STORE
 * PATTERN"), then per strategy the misses per lookup (NaN: none). */
int mx_prep_reads(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    const mx_table *t = &r->read;
    read_names rn;
    read_names_make(t, &rn);
    if (!t->nrow || !rn.strategies.n)
        return idb_fail(why, IDB_EINPUT, "no read.csv rows (no [read] block, or no read cell "
                        "succeeded)");
    FILE *f = mx_data_open(scratch, "reads.dat", why);
    if (!f) return IDB_EIO;
    int rows = 0, rc = 0;
    for (int i = 0; i < rn.nst && !rc; i++)
        for (int p = 0; p < rn.npat && !rc; p++) {
            int any = 0;                         /* a group without a figure: left out */
            for (int j = 0; j < rn.strategies.n; j++)
                any |= !isnan(misses(t, rn.block, rn.stores[i], rn.patterns[p],
                                     rn.strategies.v[j]));
            if (!any) continue;
            char label[GROUP_LEN];
            snprintf(label, sizeof label, "%.64s %.64s", rn.stores[i], rn.patterns[p]);
            fprintf(v, "x_%d = ", ++rows);
            rc = mx_gp_string(v, label, why);
            fprintf(f, "%d", rows);
            for (int j = 0; j < rn.strategies.n; j++) {
                fputc('\t', f);
                mx_put(f, misses(t, rn.block, rn.stores[i], rn.patterns[p],
                                 rn.strategies.v[j]), "");
            }
            fputc('\n', f);
        }
    if (mx_data_close(f, "reads.dat", rc ? NULL : why)) return IDB_EIO;
    if (rc || mx_put_names(v, "", &rn.strategies, NULL, why)) return IDB_EINPUT;
    char note[GROUP_LEN];                        /* the first row's size, lookups and cache */
    snprintf(note, sizeof note, "%s rows, %s lookups, %.16s cache, block %.40s",
             mx_table_str(t, 0, mx_table_col(t, "rows")),
             mx_table_str(t, 0, mx_table_col(t, "lookups")),
             mx_table_str(t, 0, mx_table_col(t, "cache")), rn.block);
    fprintf(v, "read_note = ");
    return mx_gp_string(v, note, why) ? IDB_EINPUT : 0;
}

/* reads: per store and pattern, the strategy whose lookups missed the fewest pages and the
 * one that missed the most, and their ratio. */
int mx_say_reads(const mx_results *r, FILE *f)
{
    const mx_table *t = &r->read;
    read_names rn;
    read_names_make(t, &rn);
    int said = 0;
    for (int i = 0; i < rn.nst; i++)
        for (int p = 0; p < rn.npat; p++) {
            int lo = -1, hi = -1;
            double vlo = NAN, vhi = NAN;
            for (int j = 0; j < rn.strategies.n; j++) {
                double x = misses(t, rn.block, rn.stores[i], rn.patterns[p],
                                  rn.strategies.v[j]);
                if (!(x >= 0)) continue;
                if (lo < 0 || x < vlo) { lo = j; vlo = x; }
                if (hi < 0 || x > vhi) { hi = j; vhi = x; }
            }
            if (lo < 0 || lo == hi) continue;
            char a[MX_NUM_LEN], b[MX_NUM_LEN], q[MX_NUM_LEN];
            fprintf(f, "On %s, %s lookups: `%s` missed the fewest pages per lookup (%s), `%s` "
                    "the most (%s, %s×).\n", rn.stores[i], rn.patterns[p],
                    rn.strategies.v[lo], mx_num(vlo, a), rn.strategies.v[hi], mx_num(vhi, b),
                    vlo > 0 ? mx_num(vhi / vlo, q) : "n/a");
            said++;
        }
    return said ? 0 : IDB_EINPUT;
}
