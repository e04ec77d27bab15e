/* plots_counter.c — the counter-server plots: what an ID costs when the counter is a real
 * server (generation.csv's gen/counter@postgres, gen/counter@redis, gen/segment@postgres
 * rows, written by the generation benchmark), by client threads, next to the in-process
 * counter and segment; and what a kill of the server did to an insert run (counterkill.csv,
 * one row per backend and durability: orders failed, IDs handed out twice). Their data
 * preparation and report sentences (plots.h).
 */
#include "plots.h"

#include <math.h>
#include <string.h>

#define SERVER_MARK '@'                          /* "counter@postgres": NAME@BACKEND */

/* 1 when name is one of the plot's: counter, segment, or any NAME@BACKEND. */
static int is_counter_name(const char *name)
{
    return strchr(name, SERVER_MARK) || !strcmp(name, "counter") || !strcmp(name, "segment");
}

/* The ns per ID of name at threads in t, NaN when not measured. */
static double ns_at(const mx_table *t, const char *name, int threads)
{
    int cn = mx_table_col(t, "name"), ct = mx_table_col(t, "threads");
    int cm = mx_table_col(t, "ns_per_id"), ck = mx_table_col(t, "kind");
    for (int q = 0; q < t->nrow; q++)
        if (!strcmp(mx_table_str(t, q, ck), "strategy") &&
            !strcmp(mx_table_str(t, q, cn), name) && mx_table_num(t, q, ct) == threads)
            return mx_table_num(t, q, cm);
    return NAN;
}

/* counter_server: counter.dat = per name a block (threads, ns per ID), by rising threads. */
int mx_prep_counter_server(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    const mx_table *t = &r->gen;
    int cn = mx_table_col(t, "name"), ck = mx_table_col(t, "kind");
    int ct = mx_table_col(t, "threads"), servers = 0;
    mx_names s = { 0 };
    for (int row = 0; row < t->nrow; row++) {
        const char *name = mx_table_str(t, row, cn);
        if (strcmp(mx_table_str(t, row, ck), "strategy") || !is_counter_name(name)) continue;
        mx_names_add(&s, name);
        servers += strchr(name, SERVER_MARK) != NULL;
    }
    if (!servers)
        return idb_fail(why, IDB_EINPUT, "no counter-server rows in generation.csv (no "
                        "server packages, or the benchmark did not run)");
    FILE *f = mx_data_open(scratch, "counter.dat", why);
    if (!f) return IDB_EIO;
    for (int i = 0; i < s.n; i++) {
        int most = 0;
        for (int row = 0; row < t->nrow; row++)
            if (!strcmp(mx_table_str(t, row, cn), s.v[i]) && mx_table_num(t, row, ct) > most)
                most = (int)mx_table_num(t, row, ct);
        for (int th = 1; th <= most; th++) {
            double ns = ns_at(t, s.v[i], th);
            if (isnan(ns)) continue;
            fprintf(f, "%d\t", th);
            mx_put(f, ns, "\n");
        }
        fputs("\n\n", f);
    }
    if (mx_data_close(f, "counter.dat", why)) return IDB_EIO;
    return mx_put_names(v, "", &s, NULL, why) ? IDB_EINPUT : 0;
}

/* counter_server: with one thread, a round trip per ID against the local atomic, and what
 * segment's blocks leave of it. */
int mx_say_counter_server(const mx_results *r, FILE *f)
{
    static const char *const servers[] = { "counter@postgres", "counter@redis" };
    double local = ns_at(&r->gen, "counter", 1);
    char a[MX_NUM_LEN], b[MX_NUM_LEN];
    int said = 0;
    for (size_t i = 0; i < sizeof servers / sizeof *servers; i++) {
        double ns = ns_at(&r->gen, servers[i], 1);
        if (isnan(ns)) continue;
        fprintf(f, "%s`%s` took %s ns per ID with one thread against %s ns for the local "
                "counter", said++ ? "; " : "With a real counter server, ", servers[i],
                mx_num(ns, a), mx_num(local, b));
    }
    double seg = ns_at(&r->gen, "segment", 1), segpg = ns_at(&r->gen, "segment@postgres", 1);
    if (!isnan(segpg))
        fprintf(f, "%s`segment@postgres` (blocks of 100,000 fetched in the background) took "
                "%s ns against %s ns for local `segment` (%.1f×)", said++ ? "; " : "",
                mx_num(segpg, a), mx_num(seg, b), segpg / seg);
    if (!said) return IDB_EINPUT;
    fprintf(f, ".\n");
    return 0;
}

/* counter_kill: kill.dat = per run of counterkill.csv (in file order, each once) a row:
 * index, orders failed, IDs handed out twice; its name is the variable t_<index + 1>. */
int mx_prep_counter_kill(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    const mx_table *t = &r->kill;
    int cr = mx_table_col(t, "run"), cf = mx_table_col(t, "failed_orders");
    int cd = mx_table_col(t, "duplicate_ids");
    mx_names s = { 0 };
    if (!t->nrow)
        return idb_fail(why, IDB_EINPUT, "no counterkill.csv rows ([counterkill] off, or no "
                        "server packages)");
    FILE *f = mx_data_open(scratch, "kill.dat", why);
    if (!f) return IDB_EIO;
    for (int row = 0; row < t->nrow; row++) {
        int had = s.n;
        mx_names_add(&s, mx_table_str(t, row, cr));
        if (s.n == had) continue;                /* a run once: its first row */
        fprintf(f, "%d\t", had);
        mx_put(f, mx_table_num(t, row, cf), "\t");
        mx_put(f, mx_table_num(t, row, cd), "\n");
    }
    if (mx_data_close(f, "kill.dat", why)) return IDB_EIO;
    return mx_put_names(v, "", &s, NULL, why) ? IDB_EINPUT : 0;
}

/* counter_kill: per run, the IDs handed out twice after the restart and the orders failed. */
int mx_say_counter_kill(const mx_results *r, FILE *f)
{
    const mx_table *t = &r->kill;
    int cr = mx_table_col(t, "run"), cf = mx_table_col(t, "failed_orders");
    int cd = mx_table_col(t, "duplicate_ids");
    mx_names s = { 0 };
    char a[MX_NUM_LEN], b[MX_NUM_LEN];
    for (int row = 0; row < t->nrow; row++) {
        int had = s.n;
        mx_names_add(&s, mx_table_str(t, row, cr));
        if (s.n == had) continue;
        fprintf(f, "%s`%s` handed out %s IDs twice after the restart (%s orders failed)",
                had ? "; " : "With the counter server killed during an insert run: ",
                mx_table_str(t, row, cr), mx_num(mx_table_num(t, row, cd), a),
                mx_num(mx_table_num(t, row, cf), b));
    }
    if (!s.n) return IDB_EINPUT;
    fprintf(f, ".\n");
    return 0;
}
