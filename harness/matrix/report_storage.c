/* report_storage.c — the report's "Storage per row, by store" table: for each strategy at
 * the headline configuration (mx_ins_row), its ID's own width and, per store side by side,
 * the bytes a row takes on disk as insert.csv's medians give them: the sum, then table +
 * ID index apart from the table + the other indexes (docs/results-format.md, storage per
 * row). A store that cannot tell (an empty column) shows "?"; results made before these
 * columns existed get a sentence instead of a table.
 */
#include "plots.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_doc.h"

#define CELL_MAX (4 * MX_NUM_LEN + 16)   /* one store's cell */
#define COLS_MAX (MX_STORES_MAX + 2)

/* The cell of row r: "SUM (TABLE + ID + SECONDARY)", "?" when the sum is unknown, "" when
 * there is no row. */
static void storage_cell(const mx_table *t, int r, char *buf)
{
    static const char *const parts[] = { "bytes_per_row", "bytes_per_row_table",
                                         "bytes_per_row_id_index", "bytes_per_row_secondary" };
    double v[4];
    char n[4][MX_NUM_LEN];
    if (r < 0) {
        buf[0] = 0;
        return;
    }
    for (int i = 0; i < 4; i++) {
        v[i] = mx_table_num(t, r, mx_table_col(t, parts[i]));
        mx_num(v[i], n[i]);
    }
    if (isnan(v[0]) || v[0] < 0) snprintf(buf, CELL_MAX, "?");
    else snprintf(buf, CELL_MAX, "%s (%s + %s + %s)", n[0], n[1], n[2], n[3]);
}

/* The section (see plots.h). */
void mx_report_storage(const mx_results *r, struct mx_doc *d)
{
    const mx_table *t = &r->ins;
    d->ops->heading(d, 2, "Storage per row, by store");
    if (mx_table_col(t, "bytes_per_row") < 0) {
        d->ops->para(d, "insert.csv has no `bytes_per_row` columns (results made before them).");
        return;
    }
    mx_names strategies;
    const char *stores[MX_STORES_MAX];
    int nstores;
    mx_ins_names(r, &strategies, stores, &nstores);
    if (!strategies.n || !nstores) {
        d->ops->para(d, "No insert results.");
        return;
    }
    d->ops->para(d, "Bytes on disk per row after the run, medians at the headline "
                    "configuration: the sum (table + the ID's index apart from the table + "
                    "every other index). The table is the ID's B-tree where the rows sit in "
                    "it (sqlite, lmdb, pagesim, mariadb), so its ID index adds 0; postgres "
                    "keeps a heap and the index apart. `id_bytes` is the ID's own width; "
                    "`key_bytes` the width stored. ? : the store cannot tell.");
    const char *head[COLS_MAX] = { "strategy", "id_bytes / key_bytes" };
    char align[COLS_MAX + 1] = "lr";
    for (int s = 0; s < nstores; s++) {
        head[2 + s] = stores[s];
        align[2 + s] = 'r';
    }
    align[2 + nstores] = 0;
    d->ops->table(d, 2 + nstores, head, align);
    for (int i = 0; i < strategies.n; i++) {
        char cells[MX_STORES_MAX][CELL_MAX], width[64] = "?";
        const char *row[COLS_MAX] = { strategies.v[i], width };
        for (int s = 0; s < nstores; s++) {
            int ri = mx_ins_row(r, strategies.v[i], stores[s]);
            storage_cell(t, ri, cells[s]);
            row[2 + s] = cells[s];
            if (ri >= 0 && !strcmp(width, "?") && mx_table_col(t, "id_bytes") >= 0)
                snprintf(width, sizeof width, "%s / %s",
                         mx_table_str(t, ri, mx_table_col(t, "id_bytes")),
                         mx_table_str(t, ri, mx_table_col(t, "key_bytes")));
        }
        d->ops->row(d, row);
    }
}
