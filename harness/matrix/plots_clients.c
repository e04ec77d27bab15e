/* plots_clients.c — the plots of the clients sweep (insert --clients C; the default
 * matrix's [insert.clients] and [insert.clients16] blocks): per store, throughput and p99
 * latency against the writers per shard (clients), and the lock wait per order against
 * them; and the report's sentence on whether ordered keys lose their advantage over random
 * ones as writers grow. Entries of the plot table (plots.h).
 *
 * The sweep is read from insert.csv: every (strategy, store, ids, shards, batch, key_bytes)
 * that has a row at some clients > 1 is a line, its points that configuration's rows at each
 * clients value (the one-writer row included). A line is a strategy at a key width: its
 * title says the width when it is not the strategy's own ("counter (16 B)"), drawn dashed in
 * the strategy's colour.
 */
#include "plots.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plots_clients.h"

#define PANELS_MAX 4                             /* stores drawn side by side, at most */
#define NS_PER_US 1e3

/* The distinct clients values of the sweep, ascending. */
static void add_clients(mx_sweep *s, long long c)
{
    for (int i = 0; i < s->nc; i++)
        if (s->clients[i] == c) return;
    if (s->nc == MX_SWEEP_POINTS_MAX) return;
    int i = s->nc++;
    for (; i > 0 && s->clients[i - 1] > c; i--) s->clients[i] = s->clients[i - 1];
    s->clients[i] = c;
}

/* Add line (strategy, key_bytes) to s unless it is there; kept in registry order, then by
 * width. */
static void add_line(mx_sweep *s, const char *strategy, long long kb)
{
    for (int i = 0; i < s->nl; i++)
        if (!strcmp(s->lines[i].strategy, strategy) && s->lines[i].key_bytes == kb) return;
    if (s->nl == MX_SWEEP_LINES_MAX) return;
    int i = s->nl++, rank = mx_strategy_rank(strategy);
    for (; i > 0; i--) {
        const mx_sweep_line *p = &s->lines[i - 1];
        int pr = mx_strategy_rank(p->strategy);
        if (pr < rank || (pr == rank && p->key_bytes < kb)) break;
        s->lines[i] = *p;
    }
    mx_sweep_line *l = &s->lines[i];
    *l = (mx_sweep_line){ .strategy = strategy, .key_bytes = kb };
    const idb_strategy *st = idb_strategy_find(strategy);
    l->padded = st && kb != st->bits / CHAR_BIT;
    if (l->padded) snprintf(l->title, sizeof l->title, "%s (%lld B)", strategy, kb);
    else snprintf(l->title, sizeof l->title, "%s", strategy);
}

/* The sweep of r's insert.csv (see plots_clients.h). */
int mx_sweep_make(const mx_results *r, mx_sweep *s)
{
    const mx_table *t = &r->ins;
    int cs = mx_table_col(t, "strategy"), cst = mx_table_col(t, "store");
    int ci = mx_table_col(t, "ids"), ck = mx_table_col(t, "shards");
    int cw = mx_table_col(t, "key_bytes"), cb = mx_table_col(t, "batch");
    memset(s, 0, sizeof *s);
    for (int row = 0; row < t->nrow; row++) {
        long long c = mx_row_clients(t, row);
        if (c <= 1) continue;
        const char *store = mx_table_str(t, row, cst);
        int k = 0;
        while (k < s->nst && strcmp(s->stores[k], store)) k++;
        if (k == s->nst) {
            if (s->nst == MX_STORES_MAX) continue;
            s->stores[s->nst] = store;             /* the store's first sweep row: its size */
            s->ids[s->nst] = mx_table_ll(t, row, ci, -1);
            s->batch[s->nst] = mx_table_ll(t, row, cb, -1);
            s->shards[s->nst++] = mx_table_ll(t, row, ck, -1);
        }
        if (mx_table_ll(t, row, ci, -1) != s->ids[k] ||
            mx_table_ll(t, row, ck, -1) != s->shards[k] ||
            mx_table_ll(t, row, cb, -1) != s->batch[k])
            continue;
        add_clients(s, c);
        add_line(s, mx_table_str(t, row, cs), mx_table_ll(t, row, cw, -1));
    }
    if (s->nst) add_clients(s, 1);
    return s->nst > 0;
}

/* The insert.csv row of line l on store k of s at clients c, or -1. */
int mx_sweep_row(const mx_results *r, const mx_sweep *s, int k, const mx_sweep_line *l,
                 long long c)
{
    mx_row_key key = { l->strategy, s->stores[k], s->ids[k], s->shards[k], l->key_bytes, c,
                       s->batch[k] };
    return mx_find_row(&r->ins, &key);
}

/* Column col of line l on store k at clients c, NaN when there is no such row or value. */
double mx_sweep_value(const mx_results *r, const mx_sweep *s, int k, const mx_sweep_line *l,
                      long long c, const char *col)
{
    int row = mx_sweep_row(r, s, k, l, c);
    return row < 0 ? NAN : mx_table_num(&r->ins, row, mx_table_col(&r->ins, col));
}

/* 1 when store k of s has a value > 0 in col (NaN-free) at some point of some line. */
static int store_has(const mx_results *r, const mx_sweep *s, int k, const char *col)
{
    for (int i = 0; i < s->nl; i++)
        for (int j = 0; j < s->nc; j++)
            if (mx_sweep_value(r, s, k, &s->lines[i], s->clients[j], col) >= 0) return 1;
    return 0;
}

/* The lines' count, colours, dash types (2: padded) and titles as gnuplot variables. */
static int put_lines(FILE *v, const mx_sweep *s, idb_err *why)
{
    fprintf(v, "n = %d\ncolors = '", s->nl);
    for (int i = 0; i < s->nl; i++)
        fprintf(v, "%s%s", i ? " " : "", mx_color(s->lines[i].strategy));
    fprintf(v, "'\ndashes = '");
    for (int i = 0; i < s->nl; i++) fprintf(v, "%s%d", i ? " " : "", s->lines[i].padded ? 2 : 1);
    fprintf(v, "'\n");
    for (int i = 0; i < s->nl; i++) {
        fprintf(v, "t_%d = ", i + 1);
        if (mx_gp_string(v, s->lines[i].title, why)) return IDB_EINPUT;
    }
    return 0;
}

/* One panel's data file: per line a block (index i - 1) of rows clients, inserts/s, p99 µs,
 * wait µs per order (NaN when unknown), by rising clients. */
static int sweep_panel(const mx_results *r, const mx_sweep *s, int k, const char *scratch,
                       const char *file, idb_err *why)
{
    FILE *f = mx_data_open(scratch, file, why);
    if (!f) return IDB_EIO;
    for (int i = 0; i < s->nl; i++) {
        for (int j = 0; j < s->nc; j++) {
            const mx_sweep_line *l = &s->lines[i];
            long long c = s->clients[j];
            if (mx_sweep_row(r, s, k, l, c) < 0) continue;
            fprintf(f, "%lld\t", c);
            mx_put(f, mx_sweep_value(r, s, k, l, c, "inserts_per_s"), "\t");
            mx_put(f, mx_sweep_value(r, s, k, l, c, "lat_p99_ns") / NS_PER_US, "\t");
            mx_put(f, mx_sweep_value(r, s, k, l, c, "wait_ns_per_order") / NS_PER_US, "\n");
        }
        fputs("\n\n", f);
    }
    return mx_data_close(f, file, why);
}

/* Panels for the stores of s with a value in col (at most PANELS_MAX): their data files
 * (PREFIX1.dat, ...) and titles (title1, ...), the lines, the clients values as xtics. */
static int prep_sweep(const mx_results *r, const char *scratch, FILE *v, idb_err *why,
                      const char *prefix, const char *col, const char *none)
{
    mx_sweep s;
    if (!mx_sweep_make(r, &s))
        return idb_fail(why, IDB_EINPUT, "no insert.csv rows with more than one writer per "
                        "shard (no [insert...] block with clients above 1)");
    int np = 0;
    for (int k = 0; k < s.nst && np < PANELS_MAX; k++) {
        if (!store_has(r, &s, k, col)) continue;
        char file[32], title[MX_TITLE_LEN];
        snprintf(file, sizeof file, "%s%d.dat", prefix, ++np);
        if (sweep_panel(r, &s, k, scratch, file, why)) return IDB_EIO;
        snprintf(title, sizeof title, "%.60s, %lld IDs", s.stores[k], s.ids[k]);
        fprintf(v, "title%d = ", np);
        if (mx_gp_string(v, title, why)) return IDB_EINPUT;
    }
    if (!np) return idb_fail(why, IDB_EINPUT, "no store of the clients sweep reported %s", none);
    fprintf(v, "panels = %d\nxt = '", np);
    for (int j = 0; j < s.nc; j++) fprintf(v, "%s%lld", j ? " " : "", s.clients[j]);
    fprintf(v, "'\nwidth = panels > 1 ? 480 * panels + 160 : 1000\n");
    return put_lines(v, &s, why);
}

/* clients: throughput and p99 against clients, a panel per store that measured time. */
int mx_prep_clients(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    int rc = prep_sweep(r, scratch, v, why, "clients", "inserts_per_s",
                        "a time (only a model or no store ran it)");
    if (!rc) fprintf(v, "height = 820\n");
    return rc;
}

/* clients_wait: lock wait per order against clients, a panel per store that measured it. */
int mx_prep_clients_wait(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    return prep_sweep(r, scratch, v, why, "wait", "wait_ns_per_order",
                      "a lock wait (wait_ns_per_order empty: a store that cannot tell)");
}

/* Sentences ---------------------------------------------------------------------------- */

/* Where ordered keys lose their advantage (see plots_clients.h). */
long long mx_clients_lose_at(const long long *c, const double *ordered, const double *random,
                             int n)
{
    int first = 1;
    for (int j = 0; j < n; j++) {
        if (!(ordered[j] > 0) || !(random[j] > 0)) continue;     /* a point not measured */
        int ahead = ordered[j] > random[j];
        if (first && !ahead) return MX_NO_ADVANTAGE;
        if (!ahead) return c[j];
        first = 0;
    }
    return first ? MX_NO_ADVANTAGE : 0;
}

/* The cores of r's run from meta.json into *(long *)ctx. */
static void meta_cores(void *ctx, const char *key, const char *value)
{
    if (!strcmp(key, "cores")) *(long *)ctx = atol(value);
}

/* The points where both line o and line q have a rate on store k: clients into c, the
 * rates into ord and rnd; returns how many. */
static int pair_points(const mx_results *r, const mx_sweep *s, int k, const mx_sweep_line *o,
                       const mx_sweep_line *q, long long *c, double *ord, double *rnd)
{
    int n = 0;
    for (int j = 0; j < s->nc; j++) {
        double a = mx_sweep_value(r, s, k, o, s->clients[j], "inserts_per_s");
        double b = mx_sweep_value(r, s, k, q, s->clients[j], "inserts_per_s");
        if (!(a > 0) || !(b > 0)) continue;
        c[n] = s->clients[j];
        ord[n] = a;
        rnd[n++] = b;
    }
    return n;
}

/* The clause of ordered line o against random line q from their n >= 2 points. */
static void say_pair(const mx_sweep_line *o, const mx_sweep_line *q, const long long *c,
                     const double *ord, const double *rnd, int n, FILE *f)
{
    long long at = mx_clients_lose_at(c, ord, rnd, n);
    fprintf(f, "`%s` inserted %.2f× `%s`'s rate with %lld writer%s", o->title, ord[0] / rnd[0],
            q->title, c[0], c[0] == 1 ? "" : "s");
    if (at == MX_NO_ADVANTAGE) {
        fprintf(f, ": ordered keys had no advantage to lose");
        return;
    }
    if (at == 0) {
        fprintf(f, " and kept its advantage up to %lld writers (%.2f× there)", c[n - 1],
                ord[n - 1] / rnd[n - 1]);
        return;
    }
    int j = 0;
    while (c[j] != at) j++;
    fprintf(f, " and lost that advantage at %lld writers (%.2f×)", at, ord[j] / rnd[j]);
}

/* The wait per order of the ordered lines and the random one at the sweep's most clients
 * on store k, when the store measured it. */
static void say_waits(const mx_results *r, const mx_sweep *s, int k, const mx_sweep_line *q,
                      FILE *f)
{
    long long top = s->clients[s->nc - 1];
    double wq = mx_sweep_value(r, s, k, q, top, "wait_ns_per_order");
    if (!(wq >= 0)) return;
    char a[MX_NUM_LEN], b[MX_NUM_LEN];
    int said = 0;
    for (int i = 0; i < s->nl; i++) {
        const mx_sweep_line *o = &s->lines[i];
        double w = mx_sweep_value(r, s, k, o, top, "wait_ns_per_order");
        if (o == q || o->key_bytes != q->key_bytes || !(w >= 0)) continue;
        fprintf(f, "%s`%s` %s µs", said++ ? ", " : "; lock wait per order at the most writers: ",
                o->title, mx_num(w / NS_PER_US, a));
    }
    if (said) fprintf(f, " against %s µs for `%s`", mx_num(wq / NS_PER_US, b), q->title);
}

/* clients: per store, whether the ordered lines of uuidv4's width lose their advantage in
 * throughput over uuidv4 as writers grow, and at which clients value; then the cores. */
int mx_say_clients(const mx_results *r, FILE *f)
{
    mx_sweep s;
    if (!mx_sweep_make(r, &s)) return IDB_EINPUT;
    int said = 0;
    for (int k = 0; k < s.nst; k++) {
        const mx_sweep_line *q = NULL;
        for (int i = 0; i < s.nl; i++)
            if (!strcmp(s.lines[i].strategy, MX_RANDOM_LINE)) q = &s.lines[i];
        if (!q) break;
        int pairs = 0;
        for (int i = 0; i < s.nl; i++) {
            const mx_sweep_line *o = &s.lines[i];
            if (o == q || o->key_bytes != q->key_bytes) continue;   /* one width: order alone */
            long long c[MX_SWEEP_POINTS_MAX];
            double ord[MX_SWEEP_POINTS_MAX], rnd[MX_SWEEP_POINTS_MAX];
            int n = pair_points(r, &s, k, o, q, c, ord, rnd);
            if (n < 2) continue;
            if (!pairs++) fprintf(f, "%sOn %s (%lld IDs, %lld shard%s): ", said ? " " : "",
                                  s.stores[k], s.ids[k], s.shards[k], s.shards[k] == 1 ? "" : "s");
            else fputs("; ", f);
            say_pair(o, q, c, ord, rnd, n, f);
        }
        if (!pairs) continue;
        say_waits(r, &s, k, q, f);
        fputc('.', f);
        said++;
    }
    if (!said) return IDB_EINPUT;
    long cores = 0;
    mx_meta_read(r->dir, meta_cores, &cores, NULL);
    if (cores > 0)
        fprintf(f, " This machine has %ld core%s (meta.json): throughput cannot scale past about "
                "%ld writer%s, so beyond that the rates show queueing, and the wait per order, not "
                "the rate, carries the argument.\n", cores, cores == 1 ? "" : "s", cores,
                cores == 1 ? "" : "s");
    else fprintf(f, " meta.json does not say how many cores ran this.\n");
    return 0;
}

/* clients_wait: per store that measured it, the wait per order of each line at the most
 * writers, and the share of the clients' time it was. */
int mx_say_clients_wait(const mx_results *r, FILE *f)
{
    mx_sweep s;
    if (!mx_sweep_make(r, &s)) return IDB_EINPUT;
    long long top = s.clients[s.nc - 1];
    int said = 0;
    char a[MX_NUM_LEN];
    for (int k = 0; k < s.nst; k++) {
        int n = 0;
        for (int i = 0; i < s.nl; i++) {
            double w = mx_sweep_value(r, &s, k, &s.lines[i], top, "wait_ns_per_order");
            double sh = mx_sweep_value(r, &s, k, &s.lines[i], top, "wait_share");
            if (!(w >= 0)) continue;
            if (!n++) fprintf(f, "%sOn %s with %lld writers per shard, lock wait per order: ",
                              said++ ? " " : "", s.stores[k], top);
            else fputs(", ", f);
            fprintf(f, "`%s` %s µs", s.lines[i].title, mx_num(w / NS_PER_US, a));
            if (sh >= 0) fprintf(f, " (%.0f%% of the clients' time)", 100 * sh);
        }
        if (n) fputc('.', f);
    }
    if (!said) return IDB_EINPUT;
    fputc('\n', f);
    return 0;
}
