/* plots_range.c — the plot hot_share, "share of inserts on the busiest shard" (issue 25):
 * per strategy, its hot_share with range routing and with hash routing in the simulator
 * (range.csv, the [simulate.range] block), beside the real range-sharded engine's (the
 * rows of store spider in insert.csv: its partition=range|hash|key and split from the
 * row's store_options, its backends from backend_shares or else the row's backends=N),
 * "not run" where there are none;
 * and the report's sentences, with claim 9's verdict (claims.h) on each side's figures. An
 * entry of the plot table (plots.h).
 */
#include "plots.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"

#define REAL_STORE "spider"
enum { SIM_RANGE, SIM_HASH, REAL_RANGE, REAL_HASH, SIDES };
static const char *const side_names[SIDES] = {
    "simulator, range", "simulator, hash", REAL_STORE ", range", REAL_STORE ", hash",
};

/* One strategy's figures on each side (NaN: none) and the shards behind them. */
typedef struct hot_row {
    double share[SIDES], p99_sim_range, n[SIDES];
    int shards[SIDES];
} hot_row;

/* 1 if the space-separated options opts hold key=value. */
static int has_opt(const char *opts, const char *kv)
{
    size_t n = strlen(kv);
    for (const char *p = strstr(opts, kv); p; p = strstr(p + 1, kv))
        if ((p == opts || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return 1;
    return 0;
}

/* The backends of a spider row: the entries of backend_shares ("a;b;c;d"); without them
 * (the matrix's insert.csv keeps no `;` lists) its store option backends=N; 0 if neither. */
static int backends(const char *shares, const char *opts)
{
    int n = 1;
    if (*shares) {
        for (const char *p = shares; *p; p++) n += *p == ';';
        return n;
    }
    static const char key[] = "backends=";
    for (const char *p = strstr(opts, key); p; p = strstr(p + 1, key))
        if (p == opts || p[-1] == ' ') return atoi(p + sizeof key - 1);
    return 0;
}

/* Fill rows[i] for strategy names->v[i] from range.csv and insert.csv (spider rows at the
 * most IDs; range partitions only with split=space, equal slices as the simulator's). */
static void hot_rows(const mx_results *r, const mx_names *names, hot_row *rows)
{
    const mx_table *t = &r->range, *ins = &r->ins;
    int cs = mx_table_col(t, "strategy"), cr = mx_table_col(t, "routing");
    int csh = mx_table_col(t, "shards"), ch = mx_table_col(t, "hot_share");
    int cp = mx_table_col(t, "hot_share_p99"), csp = mx_table_col(t, "range_split");
    int cord = mx_table_col(t, "orders");
    int is = mx_table_col(ins, "strategy"), ist = mx_table_col(ins, "store");
    int ih = mx_table_col(ins, "hot_share"), io = mx_table_col(ins, "store_options");
    int ib = mx_table_col(ins, "backend_shares"), iid = mx_table_col(ins, "ids");
    for (int i = 0; i < names->n; i++) {
        hot_row *h = &rows[i];
        for (int k = 0; k < SIDES; k++) { h->share[k] = h->n[k] = NAN; h->shards[k] = 0; }
        h->p99_sim_range = NAN;
        for (int q = 0; q < t->nrow; q++) {
            if (strcmp(mx_table_str(t, q, cs), names->v[i])) continue;
            const char *how = mx_table_str(t, q, cr), *split = mx_table_str(t, q, csp);
            int k = !strcmp(how, "hash") ? SIM_HASH
                  : !strcmp(how, "range") && strcmp(split, "sample") ? SIM_RANGE : -1;
            if (k < 0 || !isnan(h->share[k])) continue;          /* the first row of each */
            h->share[k] = mx_table_num(t, q, ch);
            h->n[k] = mx_table_num(t, q, cord);
            h->shards[k] = (int)mx_table_num(t, q, csh);
            if (k == SIM_RANGE) h->p99_sim_range = mx_table_num(t, q, cp);
        }
        for (int q = 0; ih >= 0 && q < ins->nrow; q++) {
            const char *opts = mx_table_str(ins, q, io);
            if (strcmp(mx_table_str(ins, q, ist), REAL_STORE) ||
                strcmp(mx_table_str(ins, q, is), names->v[i]) || isnan(mx_table_num(ins, q, ih)))
                continue;
            int k = has_opt(opts, "partition=hash") || has_opt(opts, "partition=key") ? REAL_HASH
                  : has_opt(opts, "split=sample") ? -1 : REAL_RANGE;
            double n = mx_table_num(ins, q, iid);
            if (k < 0 || (!isnan(h->n[k]) && h->n[k] >= n)) continue;   /* the most IDs */
            h->share[k] = mx_table_num(ins, q, ih);
            h->n[k] = n;
            h->shards[k] = backends(mx_table_str(ins, q, ib), opts);
        }
    }
}

/* The strategies of range.csv and of spider's insert.csv rows, in registry order. */
static void hot_names(const mx_results *r, mx_names *names)
{
    memset(names, 0, sizeof *names);
    int cs = mx_table_col(&r->range, "strategy");
    for (int q = 0; q < r->range.nrow; q++) mx_names_add(names, mx_table_str(&r->range, q, cs));
    int is = mx_table_col(&r->ins, "strategy"), ist = mx_table_col(&r->ins, "store");
    for (int q = 0; mx_table_col(&r->ins, "hot_share") >= 0 && q < r->ins.nrow; q++)
        if (!strcmp(mx_table_str(&r->ins, q, ist), REAL_STORE))
            mx_names_add(names, mx_table_str(&r->ins, q, is));
}

/* hot_share: hot.dat = per strategy a row: index, the four sides' hot_share (NaN where
 * none), the simulator's range hot_share_p99; variables n, t_i (names) and side_k (the
 * sides' titles with their shards, or "not run"). */
int mx_prep_hot_share(const mx_results *r, const char *scratch, FILE *v, idb_err *why)
{
    mx_names names;
    hot_names(r, &names);
    if (!r->range.nrow)
        return idb_fail(why, IDB_EINPUT, "no range.csv rows ([simulate.range] off)");
    static hot_row rows[MX_LIST_MAX];
    hot_rows(r, &names, rows);
    FILE *f = mx_data_open(scratch, "hot.dat", why);
    if (!f) return IDB_EIO;
    int shards[SIDES] = { 0 };
    for (int i = 0; i < names.n; i++) {
        fprintf(f, "%d\t", i);
        for (int k = 0; k < SIDES; k++) {
            mx_put(f, rows[i].share[k], "\t");
            if (rows[i].shards[k]) shards[k] = rows[i].shards[k];
        }
        mx_put(f, rows[i].p99_sim_range, "\n");
    }
    if (mx_data_close(f, "hot.dat", why)) return IDB_EIO;
    for (int k = 0; k < SIDES; k++) {
        char title[MX_TITLE_LEN];
        if (shards[k]) snprintf(title, sizeof title, "%s (%d shards, fair share %.3g)",
                                side_names[k], shards[k], 1.0 / shards[k]);
        else snprintf(title, sizeof title, "%s: not run", side_names[k]);
        fprintf(v, "side_%d = ", k + 1);
        if (mx_gp_string(v, title, why)) return IDB_EINPUT;
    }
    return mx_put_names(v, "", &names, NULL, why) ? IDB_EINPUT : 0;
}

/* The range of one side's shares over the strategies of one kind: lo, hi and how many; the
 * names of the extremes into lo_name, hi_name. */
static int side_span(const mx_names *names, const hot_row *rows, int k, enum claim_hot_kind kind,
                     double *lo, double *hi, const char **lo_name, const char **hi_name)
{
    int n = 0;
    for (int i = 0; i < names->n; i++) {
        const idb_strategy *st = idb_strategy_find(names->v[i]);
        double s = rows[i].share[k];
        if (!st || isnan(s) || claim_hotspot_kind(st, rows[i].shards[k]) != kind) continue;
        if (!n || s < *lo) { *lo = s; *lo_name = names->v[i]; }
        if (!n || s > *hi) { *hi = s; *hi_name = names->v[i]; }
        n++;
    }
    return n;
}

/* One side's sentence: time-ordered and uniform strategies' spans, claim 9's verdict on
 * them (range sides). Returns 1 if it said something. */
static int say_side(FILE *f, const mx_names *names, const hot_row *rows, int k)
{
    static claim_hot v[CLAIM_HOT_MAX];
    double tlo = 0, thi = 0, ulo = 0, uhi = 0;
    const char *tl = "", *th = "", *ul = "", *uh = "";
    int nt = side_span(names, rows, k, CLAIM_HOT_TIME, &tlo, &thi, &tl, &th);
    int nu = side_span(names, rows, k, CLAIM_HOT_UNIFORM, &ulo, &uhi, &ul, &uh);
    double olo = 0, ohi = 0;
    const char *ol = "", *oh = "";
    int no = side_span(names, rows, k, CLAIM_HOT_OTHER, &olo, &ohi, &ol, &oh);
    int shards = 0, nv = 0;
    for (int i = 0; i < names->n && nv < CLAIM_HOT_MAX; i++) {
        const idb_strategy *st = idb_strategy_find(names->v[i]);
        if (!st || isnan(rows[i].share[k])) continue;
        shards = rows[i].shards[k] ? rows[i].shards[k] : shards;
        v[nv++] = (claim_hot){ .strategy = names->v[i],
                               .kind = claim_hotspot_kind(st, rows[i].shards[k]),
                               .slack = claim_hotspot_slack(st, rows[i].shards[k], 0),
                               .share = rows[i].share[k], .n = rows[i].n[k] };
    }
    if (!nt && !nu && !no) return 0;
    char a[MX_NUM_LEN], b[MX_NUM_LEN];
    fprintf(f, "%s (%d shards, fair share %s): ", side_names[k], shards,
            mx_num(shards ? 1.0 / shards : NAN, a));
    if (nt == 1)
        fprintf(f, "the time-ordered `%s` put %s of the inserts on the busiest shard", tl,
                mx_num(tlo, a));
    else if (nt && tlo == thi)
        fprintf(f, "the %d time-ordered strategies all put %s of the inserts on the busiest "
                "shard", nt, mx_num(tlo, a));
    else if (nt)
        fprintf(f, "time-ordered strategies put %s (`%s`) to %s (`%s`) of the inserts on the "
                "busiest shard", mx_num(tlo, a), tl, mx_num(thi, b), th);
    if (nu) fprintf(f, "%suniform ones (random or bit-reversed) %s (`%s`) to %s (`%s`)",
                    nt ? ", " : "", mx_num(ulo, a), ul, mx_num(uhi, b), uh);
    if (no) fprintf(f, "%sthe others (neither, or fewer uniform bits than shards need) %s "
                    "(`%s`) to %s (`%s`)", nt || nu ? ", " : "", mx_num(olo, a), ol,
                    mx_num(ohi, b), oh);
    if (k == SIM_RANGE || k == REAL_RANGE) {
        claim_row row;
        memset(&row, 0, sizeof row);
        int bad = claim_hotspot_judge(&row, v, nv, shards, "");
        claim_verdict(&row);
        fprintf(f, "; claim 9 (more than %s on one shard for time-ordered keys, at most the "
                "6-sigma bound for uniform ones) %s", mx_num(claim_hotspot_x(shards), a),
                bad ? "does not hold" : claim_verdict_text(row.verdict));
        if (bad) fprintf(f, " (%s)", row.failures);
    }
    fprintf(f, ".\n");
    return 1;
}

/* hot_share: per side, what the figures say; the real engine "not run" when it has none. */
int mx_say_hot_share(const mx_results *r, FILE *f)
{
    mx_names names;
    hot_names(r, &names);
    static hot_row rows[MX_LIST_MAX];
    hot_rows(r, &names, rows);
    int said = 0;
    for (int k = 0; k < SIDES; k++) {
        if (say_side(f, &names, rows, k)) { said++; continue; }
        if (k == REAL_RANGE || k == REAL_HASH)
            fprintf(f, "%s: not run (no insert.csv rows of store %s with hot_share).\n",
                    side_names[k], REAL_STORE);
    }
    return said ? 0 : IDB_EINPUT;
}
