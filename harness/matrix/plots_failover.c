/* plots_failover.c — what a counter failover from a lagging replica did to an insert run,
 * by backend and replication mode (failover.csv, the matrix's [faults.replicated] block:
 * one row per run, `idbench insert --fault failover-lagged@N:LAG_MS`): the failover_dups
 * plot (bars: IDs handed out twice per run), its sentence (which modes repeated IDs and
 * which did not, from the figures) and the table of its report section (backend, mode,
 * orders, duplicate_ids, lost_ids, failed_orders, failover_ms). Each run counts once: its
 * first row in file order.
 */
#include "plots.h"

#include <string.h>

#include "report_doc.h"

#define LIST_LEN 1024                            /* the runs named in one half-sentence */

/* The columns of failover.csv the plot, sentence and table read. */
typedef struct fo_cols { int run, backend, mode, ids, dup, lost, failed, ms; } fo_cols;

static fo_cols cols_of(const mx_table *t)
{
    return (fo_cols){ mx_table_col(t, "run"), mx_table_col(t, "backend"),
                      mx_table_col(t, "mode"), mx_table_col(t, "ids"),
                      mx_table_col(t, "duplicate_ids"), mx_table_col(t, "lost_ids"),
                      mx_table_col(t, "failed_orders"), mx_table_col(t, "failover_ms") };
}

/* Row row of t is its run's first (each run counts once); s collects the runs seen. */
static int first_of_run(const mx_table *t, int row, int crun, mx_names *s)
{
    int had = s->n;
    mx_names_add(s, mx_table_str(t, row, crun));
    return s->n > had;
}

/* failover_dups: failover.dat = per run (file order, each once) a row: index, IDs handed
 * out twice; its name is the variable t_<index + 1>. */
int mx_prep_failover_dups(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    const mx_table *t = &r->failover;
    fo_cols c = cols_of(t);
    mx_names s = { 0 };
    if (!t->nrow)
        return idb_fail(why, IDB_EINPUT, "no failover.csv rows ([faults.replicated] off, or "
                        "no server packages)");
    FILE *f = mx_data_open(scratch, "failover.dat", why);
    if (!f) return IDB_EIO;
    for (int row = 0; row < t->nrow; row++) {
        if (!first_of_run(t, row, c.run, &s)) continue;
        fprintf(f, "%d\t", s.n - 1);
        mx_put(f, mx_table_num(t, row, c.dup), "\n");
    }
    if (mx_data_close(f, "failover.dat", why)) return IDB_EIO;
    return mx_put_names(v, "", &s, NULL, why) ? IDB_EINPUT : 0;
}

/* Append "BACKEND MODE (N IDs)" (or without the count) to list, comma-separated. */
static void list_add(char *list, const mx_table *t, int row, const fo_cols *c, int count)
{
    size_t n = strlen(list);
    char num[MX_NUM_LEN];
    if (n + 1 >= LIST_LEN) return;
    snprintf(list + n, LIST_LEN - n, "%s%s %s", n ? ", " : "", mx_table_str(t, row, c->backend),
             mx_table_str(t, row, c->mode));
    n = strlen(list);
    if (count && n + 1 < LIST_LEN)
        snprintf(list + n, LIST_LEN - n, " (%s IDs)", mx_num(mx_table_num(t, row, c->dup), num));
}

/* failover_dups: which runs handed out IDs twice (how many) and which repeated none. */
int mx_say_failover_dups(const mx_results *r, FILE *f)
{
    const mx_table *t = &r->failover;
    fo_cols c = cols_of(t);
    mx_names s = { 0 };
    char rep[LIST_LEN] = "", none[LIST_LEN] = "";
    for (int row = 0; row < t->nrow; row++) {
        if (!first_of_run(t, row, c.run, &s)) continue;
        int dup = mx_table_num(t, row, c.dup) > 0;
        list_add(dup ? rep : none, t, row, &c, dup);
    }
    if (!s.n) return IDB_EINPUT;
    fprintf(f, "With the counter's primary killed after its replicas lagged and a replica "
            "promoted: ");
    if (rep[0]) fprintf(f, "%s handed out IDs twice", rep);
    if (rep[0] && none[0]) fprintf(f, "; ");
    if (none[0]) fprintf(f, "%s repeated no ID", none);
    fprintf(f, ".\n");
    return 0;
}

/* The table of the failover_dups section, from failover.csv (see plots.h). */
void mx_report_failover(const mx_results *r, struct mx_doc *d)
{
    static const char *const head[] = { "backend", "mode", "orders", "duplicate_ids",
                                         "lost_ids", "failed_orders", "failover_ms" };
    const mx_table *t = &r->failover;
    fo_cols c = cols_of(t);
    mx_names s = { 0 };
    if (!t->nrow) return;
    d->ops->table(d, 7, head, "llrrrrr");
    for (int row = 0; row < t->nrow; row++) {
        if (!first_of_run(t, row, c.run, &s)) continue;
        char ids[MX_NUM_LEN], dup[MX_NUM_LEN], lost[MX_NUM_LEN], failed[MX_NUM_LEN];
        char ms[MX_NUM_LEN];
        const char *fms = mx_table_str(t, row, c.ms);
        const char *cells[] = { mx_table_str(t, row, c.backend), mx_table_str(t, row, c.mode),
                                mx_num(mx_table_num(t, row, c.ids), ids),
                                mx_num(mx_table_num(t, row, c.dup), dup),
                                mx_num(mx_table_num(t, row, c.lost), lost),
                                mx_num(mx_table_num(t, row, c.failed), failed),
                                fms[0] ? mx_num(mx_table_num(t, row, c.ms), ms) : "—" };
        d->ops->row(d, cells);
    }
}
