/* report_ratio.c — the report's "uuidv4 against counter, by store" paragraph.
 *
 * Per store of insert.csv at the headline configuration (mx_ins_row), the ratio of uuidv4's
 * median to counter's for time, pages, bytes and WAL, so a reader sees how much the engine
 * changes the answer. Each aspect takes the first column of its list where both figures are
 * known and positive; an aspect with no such column is named as unknown, never guessed.
 */
#include "plots.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_doc.h"

#define RANDOM_STRATEGY "uuidv4"
#define BASE_STRATEGY "counter"

/* One way to measure an aspect: its insert.csv column, and whether a smaller value is more
 * of the aspect (inserts_per_s: time per insert is its inverse). */
typedef struct ratio_col {
    const char *aspect, *col, *what;
    int inverse;
} ratio_col;

/* In order of preference within each aspect; aspects in the order the sentence names them. */
static const ratio_col ratio_cols[] = {
    { "time", "inserts_per_s", "time per insert, from `inserts_per_s`", 1 },
    { "time", "seconds", "time, from `seconds`", 0 },
    { "pages", "pages_written", "pages written, `pages_written`", 0 },
    { "pages", "leaf_pages", "leaf pages, `leaf_pages`", 0 },
    { "bytes", "file_bytes", "bytes on disk, `file_bytes`", 0 },
    { "bytes", "index_bytes", "index bytes, `index_bytes`", 0 },
    { "WAL", "wal_bytes_per_id", "WAL bytes per ID, `wal_bytes_per_id`", 0 },
};
#define N_RATIO_COLS ((int)(sizeof ratio_cols / sizeof *ratio_cols))

/* Column c of row row in insert.csv when known and positive, else NaN. */
static double positive(const mx_table *t, int row, const char *c)
{
    double v = mx_table_num(t, row, mx_table_col(t, c));
    return v > 0 ? v : NAN;
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
        double u = positive(t, ru, c->col), k = positive(t, rc, c->col);
        if (isnan(u) || isnan(k)) continue;
        char a[MX_NUM_LEN], b[MX_NUM_LEN], q[MX_NUM_LEN];
        fprintf(f, "%s%s %s× (%s: %s against %s)", from ? "; " : "", aspect,
                mx_num(c->inverse ? k / u : u / k, q), c->what, mx_num(u, a), mx_num(k, b));
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
