/* report_ratio.c — the report's "uuidv4 against counter, by store" paragraph, and the
 * ratio formatter every sentence uses (mx_ratio).
 *
 * Per store of insert.csv at the headline configuration (mx_ins_row), the ratio of uuidv4's
 * median to counter's for time, pages, bytes, WAL and full-page images, so a reader sees how
 * much the engine changes the answer. Each aspect takes the first column of its list where
 * both figures are known and positive (a count of events: known, 0 included); an aspect with
 * no such column is named as unknown, never guessed. Ratios come from raw counts where
 * insert.csv has them (`wal_bytes`, `fpi`), not from per-ID figures rounded for print; a
 * denominator of fewer than MX_RATIO_MIN_EVENTS events is given as counts.
 */
#include "plots.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_doc.h"

#define RANDOM_STRATEGY "uuidv4"
#define BASE_STRATEGY "counter"

/* One way to measure an aspect: its insert.csv column, whether a smaller value is more
 * of the aspect (inserts_per_s: time per insert is its inverse), and the unit when the
 * column counts events (then a small denominator is given as counts), else NULL. */
typedef struct ratio_col {
    const char *aspect, *col, *what;
    int inverse;
    const char *events;
} ratio_col;

/* In order of preference within each aspect; aspects in the order the sentence names them. */
static const ratio_col ratio_cols[] = {
    { "time", "inserts_per_s", "time per insert, from `inserts_per_s`", 1, NULL },
    { "time", "seconds", "time, from `seconds`", 0, NULL },
    { "pages", "pages_written", "pages written, `pages_written`", 0, "pages" },
    { "pages", "leaf_pages", "leaf pages, `leaf_pages`", 0, "pages" },
    { "bytes", "file_bytes", "bytes on disk, `file_bytes`", 0, NULL },
    { "bytes", "index_bytes", "index bytes, `index_bytes`", 0, NULL },
    { "WAL", "wal_bytes", "WAL bytes, `wal_bytes`", 0, NULL },
    { "WAL", "wal_bytes_per_id", "WAL bytes per ID, `wal_bytes_per_id`", 0, NULL },
    { "FPI", "fpi", "full-page images, `fpi`", 0, "full-page images" },
};
#define N_RATIO_COLS ((int)(sizeof ratio_cols / sizeof *ratio_cols))

const char *mx_ratio(double num, double den, double num_events, double den_events,
                     const char *unit, char *buf)
{
    char a[MX_NUM_LEN], b[MX_NUM_LEN];
    if (den_events >= 0 && den_events < MX_RATIO_MIN_EVENTS)
        snprintf(buf, MX_RATIO_LEN, "%s vs %s %.48s", mx_num(num_events, a),
                 mx_num(den_events, b), unit);
    else
        snprintf(buf, MX_RATIO_LEN, "%s×", mx_num(num / den, a));
    return buf;
}

/* Column c of row row in insert.csv when known and positive (known and not negative for a
 * count of events), else NaN. */
static double positive(const mx_table *t, int row, const ratio_col *c)
{
    double v = mx_table_num(t, row, mx_table_col(t, c->col));
    return v > 0 || (c->events && v == 0) ? v : NAN;
}

/* The first column of aspect (from ratio_cols[from]) with both figures known: writes
 * "ASPECT N× (WHAT: U against C)" to f. Returns the index after the aspect's entries. */
static int say_aspect(const mx_table *t, int ru, int rc, int from, FILE *f)
{
    const char *aspect = ratio_cols[from].aspect;
    int end = from, done = 0;
    while (end < N_RATIO_COLS && !strcmp(ratio_cols[end].aspect, aspect)) end++;
    for (int i = from; i < end && !done; i++) {
        const ratio_col *c = &ratio_cols[i];
        double u = positive(t, ru, c), k = positive(t, rc, c);
        if (isnan(u) || isnan(k)) continue;
        char a[MX_NUM_LEN], b[MX_NUM_LEN], q[MX_RATIO_LEN];
        double den = c->inverse ? u : k, ev = c->events ? den : -1;
        mx_ratio(c->inverse ? k : u, den, c->events ? u : -1, ev, c->events ? c->events : "",
                 q);
        if (ev >= 0 && ev < MX_RATIO_MIN_EVENTS)           /* the counts say it all */
            fprintf(f, "%s%s %s (%s)", from ? "; " : "", aspect, q, c->what);
        else
            fprintf(f, "%s%s %s (%s: %s against %s)", from ? "; " : "", aspect, q, c->what,
                    mx_num(u, a), mx_num(k, b));
        done = 1;
    }
    if (!done) fprintf(f, "%s%s unknown", from ? "; " : "", aspect);
    return end;
}

/* The paragraph (see plots.h). */
int mx_say_ratio(const mx_results *r, FILE *f)
{
    mx_names strategies;
    const char *stores[MX_STORES_MAX];
    int nstores, said = 0;
    char hn[MX_NUM_LEN];
    mx_ins_names(r, &strategies, stores, &nstores);
    for (int s = 0; s < nstores; s++) {
        int ru = mx_ins_row(r, RANDOM_STRATEGY, stores[s]);
        int rc = mx_ins_row(r, BASE_STRATEGY, stores[s]);
        if (ru < 0 || rc < 0) continue;
        if (!said++)
            fprintf(f, "At %s IDs on %lld shard(s) (the headline configuration, or a "
                       "store's largest size when it has no run at it), `%s`'s median "
                       "against `%s`'s, as a ratio (above 1: `%s` costs more). ",
                    mx_num((double)r->ids, hn), r->shards, RANDOM_STRATEGY, BASE_STRATEGY,
                    RANDOM_STRATEGY);
        long long ids = mx_store_ids(r, stores[s]);
        char n[MX_NUM_LEN];
        if (ids != r->ids) fprintf(f, "On %s (at %s IDs, its largest): ", stores[s],
                                   mx_num((double)ids, n));
        else fprintf(f, "On %s: ", stores[s]);
        for (int i = 0; i < N_RATIO_COLS;) i = say_aspect(&r->ins, ru, rc, i, f);
        fputs(". ", f);
    }
    if (!said) return IDB_EINPUT;
    fputs("A ratio is given only where both figures are known.\n", f);
    return 0;
}

/* The section (see plots.h). */
int mx_report_ratio(const mx_results *r, struct mx_doc *d)
{
    d->ops->heading(d, 2, "uuidv4 against counter, by store");
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return IDB_ENOMEM;
    int rc = mx_say_ratio(r, m);
    if (fclose(m) != 0 || !text) {
        free(text);
        return IDB_ENOMEM;
    }
    while (len > 0 && text[len - 1] == '\n') text[--len] = 0;
    d->ops->para(d, !rc ? text
                        : "No store has both `uuidv4` and `counter` at the headline "
                          "configuration.");
    free(text);
    return 0;
}
