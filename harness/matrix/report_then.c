/* report_then.c — the report's "A scheme change mid-table" section: insert.csv's second
 * phases (blocks with then = STRATEGY:N; results.c keeps them in r->then, apart from the
 * runs), one table row each: the store, the first and second strategy, the phase's rows,
 * pages written per row, inserts per second, the index's fill after it and its growth per
 * row; then per store where the matrix ran both uuidv4 -> uuidv7 and the uuidv4 -> uuidv4
 * control, whether v7 into a v4 table keeps v7's advantage in pages written per row (the
 * control's over v7's, from the medians, never from printed figures).
 */
#include "plots.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_doc.h"

#define LINE 512

/* Row r's column name as a number over its ids (NaN when unknown). */
static double per_row(const mx_table *t, int r, const char *name)
{
    return mx_table_num(t, r, mx_table_col(t, name)) / mx_table_num(t, r, mx_table_col(t, "ids"));
}

/* The then row of (first, second, store), or -1. */
static int then_row(const mx_table *t, const char *first, const char *second, const char *store)
{
    int cs = mx_table_col(t, "strategy"), cf = mx_table_col(t, "first_strategy");
    int cst = mx_table_col(t, "store");
    for (int r = 0; r < t->nrow; r++)
        if (!strcmp(mx_table_str(t, r, cs), second) && !strcmp(mx_table_str(t, r, cf), first) &&
            !strcmp(mx_table_str(t, r, cst), store))
            return r;
    return -1;
}

/* The sentence for store: v7's pages per row into a v4 table against the v4 control's. */
static void verdict(mx_doc *d, const mx_table *t, const char *store)
{
    int r7 = then_row(t, "uuidv4", "uuidv7", store), r4 = then_row(t, "uuidv4", "uuidv4", store);
    if (r7 < 0 || r4 < 0) return;
    double p7 = per_row(t, r7, "pages_written"), p4 = per_row(t, r4, "pages_written");
    char a[MX_NUM_LEN], b[MX_NUM_LEN], q[MX_NUM_LEN], line[LINE];
    if (!(p7 > 0) || !(p4 >= 0)) {
        snprintf(line, sizeof line, "On %s the pages written are unknown: no verdict.", store);
    } else {
        snprintf(line, sizeof line, "On %s, uuidv7 into a uuidv4 table wrote %s pages per row "
                 "against %s for the uuidv4 control: %s (the control writes %s× v7's).",
                 store, mx_num(p7, a), mx_num(p4, b),
                 p7 < p4 ? "v7 keeps its advantage" : "v7 loses its advantage", mx_num(p4 / p7, q));
    }
    d->ops->item(d, line);
}

/* The section (see plots.h). */
void mx_report_then(const mx_results *r, struct mx_doc *d)
{
    static const char *const head[] = { "store", "first → then", "rows", "pages written / row",
                                        "inserts/s", "fill after", "index growth pages / row" };
    const mx_table *t = &r->then;
    if (!t->nrow) return;
    d->ops->heading(d, 2, "A scheme change mid-table (insert --then)");
    d->ops->para(d, "Each row is a second phase: rows of a second strategy inserted into the "
                    "table a first strategy filled (its figures the phase's own; fill of the "
                    "whole ID index after it).");
    d->ops->table(d, 7, head, "llrrrrr");
    int cst = mx_table_col(t, "store"), cs = mx_table_col(t, "strategy");
    int cf = mx_table_col(t, "first_strategy");
    for (int i = 0; i < t->nrow; i++) {
        char pair[160], pages[MX_NUM_LEN], growth[MX_NUM_LEN];
        snprintf(pair, sizeof pair, "%.70s → %.70s", mx_table_str(t, i, cf),
                 mx_table_str(t, i, cs));
        mx_num(per_row(t, i, "pages_written"), pages);
        mx_num(per_row(t, i, "index_growth_pages"), growth);
        const char *cells[] = { mx_table_str(t, i, cst), pair, mx_table_str(t, i,
                                mx_table_col(t, "ids")), pages,
                                mx_table_str(t, i, mx_table_col(t, "inserts_per_s")),
                                mx_table_str(t, i, mx_table_col(t, "fill_factor")), growth };
        d->ops->row(d, cells);
    }
    const char *done[MX_STORES_MAX];
    int nd = 0;
    for (int i = 0; i < t->nrow && nd < MX_STORES_MAX; i++) {
        const char *st = mx_table_str(t, i, cst);
        int seen = 0;
        for (int j = 0; j < nd; j++) seen |= !strcmp(done[j], st);
        if (seen) continue;
        done[nd++] = st;
        verdict(d, t, st);
    }
}
