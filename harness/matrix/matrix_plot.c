/* matrix_plot.c — `idbench plot DIR`: the plots of a results directory.
 *
 * For each plot, data files cut to what the plot shows (tab-separated) and a small
 * variables file (titles, strategy names, colours) are written to a private temporary
 * directory; then gnuplot runs   vars.gp  plots/common.gp  plots/NAME.gp   once for PNG
 * and once for SVG, writing DIR/plots/NAME.png.tmp and renaming it. Everything is read
 * from DIR's files alone (insert.csv, positions.csv, curve.csv, generation.csv,
 * skew.csv, timeline.csv), so a finished run can be re-rendered at any time. A plot
 * whose data is missing (its cells failed or were not in the matrix) is skipped with a
 * reason; a gnuplot failure is an error. With IDBENCH_KEEP_PLOT_DATA set, the temporary
 * directory is kept (and named on stderr) to debug a script.
 *
 * Colours: a strategy's colour is fixed by its index in `idbench list` order through
 * one palette, so it is the same in every plot and a new strategy gets one too.
 */
#include "matrix.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tmpdir.h"

const char *const mx_plot_names[MX_PLOTS] = {
    "generation", "inserts", "pages_written", "fill_factor", "miss_ratio",
    "positions", "latency", "inversion_skew", "outage",
};

/* Twelve colours that stay apart on white (Tableau 10 and two darker ones). */
static const char *const palette[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
    "#e377c2", "#17becf", "#bcbd22", "#393b79", "#7f7f7f", "#637939",
};
#define NPAL (sizeof palette / sizeof *palette)

/* Registry index through the palette; other names by a string hash (see matrix.h). */
const char *mx_color(const char *strategy)
{
    int n = 0;
    for (const idb_strategy *const *s = idb_strategies; *s; s++) n++;
    int rank = mx_strategy_rank(strategy);
    if (rank < n) return palette[(size_t)rank % NPAL];
    unsigned h = 5381;                                /* not in the registry: hash */
    for (const char *p = strategy; *p; p++) h = h * 33 + (unsigned char)*p;
    return palette[h % NPAL];
}

/* Strategy names in `idbench list` order, each once. */
typedef struct names {
    const char *v[MX_LIST_MAX];
    int n;
} names;

/* Add s to l unless present, keeping registry order. */
static void names_add(names *l, const char *s)
{
    if (!*s || l->n == MX_LIST_MAX) return;
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0) return;
    int i = l->n++;
    while (i > 0 && mx_strategy_rank(l->v[i - 1]) > mx_strategy_rank(s)) { l->v[i] = l->v[i - 1]; i--; }
    l->v[i] = s;
}

/* Every plot's inputs. */
typedef struct pctx {
    const char *dir;
    char scratch[512];
    mx_table ins, pos, curve, gen, skew, tl;
    long long ids, shards;                            /* the headline configuration */
    char subtitle[256];
} pctx;

/* Open SCRATCH/NAME for writing. */
static FILE *open_data(const pctx *pc, const char *name)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", pc->scratch, name);
    return fopen(path, "w");
}

/* Write a number, NaN when unknown. */
static void put(FILE *f, double v, const char *sep)
{
    if (isnan(v)) fprintf(f, "NaN%s", sep);
    else fprintf(f, "%.6g%s", v, sep);
}

/* names<sfx>, colors<sfx>, n<sfx> and t<sfx>_<i> (titles) for l into the vars file;
 * title[i] overrides the name as a title when not NULL. */
static void put_names(FILE *v, const char *sfx, const names *l, char (*title)[128])
{
    fprintf(v, "n%s = %d\nnames%s = '", sfx, l->n, sfx);
    for (int i = 0; i < l->n; i++) fprintf(v, "%s%s", i ? " " : "", l->v[i]);
    fprintf(v, "'\ncolors%s = '", sfx);
    for (int i = 0; i < l->n; i++) fprintf(v, "%s%s", i ? " " : "", mx_color(l->v[i]));
    fprintf(v, "'\n");
    for (int i = 0; i < l->n; i++) fprintf(v, "t%s_%d = '%s'\n", sfx, i + 1, title && title[i][0] ? title[i] : l->v[i]);
}

/* The insert.csv row of (strategy, store) at the headline configuration, or -1. */
static int ins_row(const pctx *pc, const char *strategy, const char *store)
{
    return mx_insert_row(&pc->ins, strategy, store, pc->ids, pc->shards);
}

/* Strategies and stores (in file order) of insert.csv at the headline configuration. */
static void ins_names(const pctx *pc, names *strategies, const char *stores[], int *nstores)
{
    const mx_table *t = &pc->ins;
    int cs = mx_table_col(t, "strategy"), cst = mx_table_col(t, "store");
    *nstores = 0;
    memset(strategies, 0, sizeof *strategies);
    for (int r = 0; r < t->nrow; r++) {
        if (ins_row(pc, mx_table_str(t, r, cs), mx_table_str(t, r, cst)) != r) continue;
        names_add(strategies, mx_table_str(t, r, cs));
        const char *st = mx_table_str(t, r, cst);
        int seen = 0;
        for (int i = 0; i < *nstores; i++) seen |= !strcmp(stores[i], st);
        if (!seen && *nstores < MX_STORES_MAX) stores[(*nstores)++] = st;
    }
}

/* generation: gen.dat = label, ns, min, max, colour, ns at 2 threads. */
static int prep_generation(pctx *pc, FILE *v, char *why)
{
    const mx_table *t = &pc->gen;
    if (t->nrow == 0) { strcpy(why, "no generation.csv (the generation benchmark did not run)"); return -1; }
    int ck = mx_table_col(t, "kind"), cn = mx_table_col(t, "name"), ct = mx_table_col(t, "threads");
    int cm = mx_table_col(t, "ns_per_id"), clo = mx_table_col(t, "ns_per_id_min"), chi = mx_table_col(t, "ns_per_id_max");
    FILE *f = open_data(pc, "generation.dat");
    if (!f) { snprintf(why, 256, "cannot write plot data: %s", strerror(errno)); return -1; }
    int rows = 0;
    static const char *const kinds[] = { "strategy", "baseline", "peer" };
    for (int k = 0; k < 3; k++)
        for (int r = 0; r < t->nrow; r++) {
            if (strcmp(mx_table_str(t, r, ck), kinds[k]) || mx_table_num(t, r, ct) != 1) continue;
            const char *name = mx_table_str(t, r, cn);
            double two = NAN;
            for (int q = 0; q < t->nrow; q++)
                if (!strcmp(mx_table_str(t, q, cn), name) && mx_table_num(t, q, ct) == 2) two = mx_table_num(t, q, cm);
            const char *col = k == 0 ? mx_color(name) : k == 1 ? "#000000" : "#a0a0a0";
            fprintf(f, "%s%s\t", name, k == 1 ? " (clock read)" : k == 2 ? " (peer)" : "");
            put(f, mx_table_num(t, r, cm), "\t");
            put(f, mx_table_num(t, r, clo), "\t");
            put(f, mx_table_num(t, r, chi), "\t");
            fprintf(f, "%ld\t", strtol(col + 1, NULL, 16));
            put(f, two, "\n");
            rows++;
        }
    fclose(f);
    int reps = 0;
    for (int r = 0; r < t->nrow; r++) {
        int n = (int)mx_table_num(t, r, mx_table_col(t, "repetitions"));
        if (n > reps) reps = n;
    }
    fprintf(v, "ngen = %d\nreps = %d\n", rows, reps);
    return rows ? 0 : (strcpy(why, "generation.csv has no rows"), -1);
}

/* inserts / pages_written / fill_factor: one row per store, per strategy the median (and
 * for inserts its min and max). which: 0 inserts_per_s, 1 pages per ID, 2 fill. */
static int prep_bars(pctx *pc, FILE *v, char *why, int which)
{
    if (pc->ins.nrow == 0) { strcpy(why, "no insert.csv rows (no insert cell succeeded)"); return -1; }
    names s;
    const char *stores[MX_STORES_MAX];
    int nst;
    ins_names(pc, &s, stores, &nst);
    static const char *const files[] = { "inserts.dat", "pages_written.dat", "fill_factor.dat" };
    FILE *f = open_data(pc, files[which]);
    if (!f) { snprintf(why, 256, "cannot write plot data: %s", strerror(errno)); return -1; }
    int cm = mx_table_col(&pc->ins, which == 0 ? "inserts_per_s" : which == 1 ? "pages_written" : "fill_factor");
    int clo = mx_table_col(&pc->ins, "inserts_per_s_min"), chi = mx_table_col(&pc->ins, "inserts_per_s_max");
    int rows = 0;
    for (int i = 0; i < nst; i++) {
        double vals[MX_LIST_MAX][3];
        int any = 0;
        for (int j = 0; j < s.n; j++) {
            int r = ins_row(pc, s.v[j], stores[i]);
            double x = r < 0 ? NAN : mx_table_num(&pc->ins, r, cm);
            if (which == 1) x = x / (double)pc->ids;
            vals[j][0] = x;
            vals[j][1] = r < 0 ? NAN : mx_table_num(&pc->ins, r, clo);
            vals[j][2] = r < 0 ? NAN : mx_table_num(&pc->ins, r, chi);
            any |= x > 0;
        }
        if (!any) continue;                               /* e.g. null has no pages */
        fprintf(f, "%s", stores[i]);
        for (int j = 0; j < s.n; j++)
            for (int k = 0; k < (which == 0 ? 3 : 1); k++) { fputc('\t', f); put(f, vals[j][k], ""); }
        fputc('\n', f);
        rows++;
    }
    fclose(f);
    put_names(v, "", &s, NULL);
    return rows ? 0 : (snprintf(why, 256, "no store reported %s", which == 1 ? "pages written" : "a fill factor"), -1);
}

/* miss_ratio: per store of curve.csv a panel, per strategy a block of (cache, misses). */
static int prep_miss(pctx *pc, FILE *v, char *why)
{
    const mx_table *t = &pc->curve;
    if (t->nrow == 0) { strcpy(why, "no curve.csv rows (no curve cell succeeded)"); return -1; }
    int cs = mx_table_col(t, "strategy"), cst = mx_table_col(t, "store"), cp = mx_table_col(t, "cache_pages");
    int cm = mx_table_col(t, "misses_per_insert"), ci = mx_table_col(t, "ids");
    const char *stores[3];
    int np = 0;
    for (int r = 0; r < t->nrow && np < 3; r++) {
        int seen = 0;
        for (int i = 0; i < np; i++) seen |= !strcmp(stores[i], mx_table_str(t, r, cst));
        if (!seen) stores[np++] = mx_table_str(t, r, cst);
    }
    for (int p = 0; p < np; p++) {
        names s = { 0 };
        long long ids = 0;
        for (int r = 0; r < t->nrow; r++)
            if (!strcmp(mx_table_str(t, r, cst), stores[p])) {
                names_add(&s, mx_table_str(t, r, cs));
                ids = (long long)mx_table_num(t, r, ci);
            }
        char file[32], sfx[8];
        snprintf(file, sizeof file, "miss%d.dat", p + 1);
        snprintf(sfx, sizeof sfx, "%d", p + 1);
        FILE *f = open_data(pc, file);
        if (!f) { snprintf(why, 256, "cannot write plot data: %s", strerror(errno)); return -1; }
        double minpos = INFINITY, maxv = 0;               /* zero is drawn a decade below */
        for (int r = 0; r < t->nrow; r++) {
            double m = mx_table_num(t, r, cm);
            if (strcmp(mx_table_str(t, r, cst), stores[p]) || !(m > 0)) continue;
            if (m < minpos) minpos = m;
            if (m > maxv) maxv = m;
        }
        if (isinf(minpos)) minpos = maxv = 1;
        int lo_dec = (int)floor(log10(minpos)), hi_dec = (int)ceil(log10(maxv));
        if (hi_dec <= lo_dec) hi_dec = lo_dec + 1;
        double floor_v = pow(10, lo_dec - 1);
        fprintf(v, "ytics%d = \"('0' %g", p + 1, floor_v);
        for (int d = lo_dec; d <= hi_dec; d++) fprintf(v, ", '10^{%d}' %g", d, pow(10, d));
        fprintf(v, ")\"\n");
        for (int i = 0; i < s.n; i++) {
            int any = 0;
            for (int r = 0; r < t->nrow; r++)
                if (!strcmp(mx_table_str(t, r, cst), stores[p]) && !strcmp(mx_table_str(t, r, cs), s.v[i])) {
                    double v = mx_table_num(t, r, cm);
                    put(f, mx_table_num(t, r, cp), "\t");
                    put(f, v == 0 ? floor_v : v, "\n");
                    any = 1;
                }
            if (!any) fputs("NaN\tNaN\n", f);
            fputs("\n\n", f);
        }
        fclose(f);
        put_names(v, sfx, &s, NULL);
        fprintf(v, "floor%d = %.6g\n", p + 1, floor_v);
        fprintf(v, "title%d = '%s%s, %lld IDs'\n", p + 1, stores[p],
                strcmp(stores[p], "pagesim") == 0 ? " (B+tree model, LRU, one pass)" : " (separate runs)", ids);
    }
    fprintf(v, "panels = %d\n", np);
    return 0;
}

/* positions: per strategy a block of (bin centre, % of inserts); titles with the share
 * that landed at the very end (tail_insert_frac). */
static int prep_positions(pctx *pc, FILE *v, char *why)
{
    const mx_table *t = &pc->pos;
    if (t->nrow == 0) { strcpy(why, "no positions.csv rows"); return -1; }
    int cs = mx_table_col(t, "strategy"), cst = mx_table_col(t, "store"), ci = mx_table_col(t, "ids");
    int ck = mx_table_col(t, "shards"), clo = mx_table_col(t, "bin_lo"), chi = mx_table_col(t, "bin_hi");
    int csh = mx_table_col(t, "share");
    const char *store = NULL;
    for (int r = 0; r < t->nrow && !store; r++)
        if ((long long)mx_table_num(t, r, ci) == pc->ids && (long long)mx_table_num(t, r, ck) == pc->shards)
            store = mx_table_str(t, r, cst);
    if (!store) { strcpy(why, "positions.csv has no rows for the headline configuration"); return -1; }
    names s = { 0 };
    for (int r = 0; r < t->nrow; r++)
        if (!strcmp(mx_table_str(t, r, cst), store) && (long long)mx_table_num(t, r, ci) == pc->ids &&
            (long long)mx_table_num(t, r, ck) == pc->shards)
            names_add(&s, mx_table_str(t, r, cs));
    FILE *f = open_data(pc, "positions.dat");
    if (!f) { snprintf(why, 256, "cannot write plot data: %s", strerror(errno)); return -1; }
    char title[MX_LIST_MAX][128];
    int ctail = mx_table_col(&pc->ins, "tail_insert_frac"), cp50 = mx_table_col(&pc->ins, "insert_pos_p50");
    for (int i = 0; i < s.n; i++) {
        for (int r = 0; r < t->nrow; r++)
            if (!strcmp(mx_table_str(t, r, cs), s.v[i]) && !strcmp(mx_table_str(t, r, cst), store) &&
                (long long)mx_table_num(t, r, ci) == pc->ids && (long long)mx_table_num(t, r, ck) == pc->shards) {
                put(f, (mx_table_num(t, r, clo) + mx_table_num(t, r, chi)) / 2, "\t");
                put(f, 100 * mx_table_num(t, r, csh), "\n");
            }
        fputs("\n\n", f);
        int ir = ins_row(pc, s.v[i], store);
        snprintf(title[i], sizeof title[i], "%s: median %.2f, %.1f%% at the very end", s.v[i],
                 mx_table_num(&pc->ins, ir, cp50), 100 * mx_table_num(&pc->ins, ir, ctail));
    }
    fclose(f);
    put_names(v, "", &s, title);
    int cols = s.n <= 4 ? s.n : s.n <= 6 ? 3 : s.n <= 9 ? 3 : 4;
    fprintf(v, "cols = %d\nrows = %d\n", cols, (s.n + cols - 1) / cols);
    return 0;
}

/* latency: per store a panel (null excepted), rows p50 p99 p99.9 max, per strategy µs. */
static int prep_latency(pctx *pc, FILE *v, char *why)
{
    if (pc->ins.nrow == 0) { strcpy(why, "no insert.csv rows"); return -1; }
    names s;
    const char *stores[MX_STORES_MAX];
    int nst, np = 0;
    ins_names(pc, &s, stores, &nst);
    static const char *const cols[] = { "lat_p50_ns", "lat_p99_ns", "lat_p999_ns", "lat_max_ns" };
    for (int i = 0; i < nst && np < 3; i++) {
        if (!strcmp(stores[i], "null")) continue;
        char file[32];
        snprintf(file, sizeof file, "lat%d.dat", ++np);
        FILE *f = open_data(pc, file);
        if (!f) { snprintf(why, 256, "cannot write plot data: %s", strerror(errno)); return -1; }
        for (int q = 0; q < 4; q++) {
            fprintf(f, "%d", q);
            for (int j = 0; j < s.n; j++) {
                int r = ins_row(pc, s.v[j], stores[i]);
                fputc('\t', f);
                put(f, r < 0 ? NAN : mx_table_num(&pc->ins, r, mx_table_col(&pc->ins, cols[q])) / 1000, "");
            }
            fputc('\n', f);
        }
        fclose(f);
        fprintf(v, "title%d = '%s'\n", np, stores[i]);
    }
    put_names(v, "", &s, NULL);
    fprintf(v, "panels = %d\n", np);
    return np ? 0 : (strcpy(why, "no store but null in insert.csv"), -1);
}

/* inversion_skew: per strategy a block of (skew_ms > 0, inversion_frac). */
static int prep_skew(pctx *pc, FILE *v, char *why)
{
    const mx_table *t = &pc->skew;
    if (t->nrow == 0) { strcpy(why, "no skew.csv rows (no skew sweep in the matrix, or it failed)"); return -1; }
    int cs = mx_table_col(t, "strategy"), ck = mx_table_col(t, "skew_ms"), ci = mx_table_col(t, "inversion_frac");
    names s = { 0 };
    for (int r = 0; r < t->nrow; r++) names_add(&s, mx_table_str(t, r, cs));
    FILE *f = open_data(pc, "inversion_skew.dat");
    if (!f) { snprintf(why, 256, "cannot write plot data: %s", strerror(errno)); return -1; }
    char title[MX_LIST_MAX][128];
    for (int i = 0; i < s.n; i++) {
        int drawn = 0;
        for (int r = 0; r < t->nrow; r++)
            if (!strcmp(mx_table_str(t, r, cs), s.v[i]) && mx_table_num(t, r, ck) > 0) {
                put(f, mx_table_num(t, r, ck), "\t");
                put(f, mx_table_num(t, r, ci), "\n");
                drawn += mx_table_num(t, r, ci) > 0;
            }
        fputs("NaN\tNaN\n\n\n", f);
        snprintf(title[i], sizeof title[i], "%s%s", s.v[i], drawn ? "" : " (0 at every skew)");
    }
    fclose(f);
    put_names(v, "", &s, title);
    return 0;
}

/* outage: per strategy a block of (second, failed orders, orders). */
static int prep_outage(pctx *pc, FILE *v, char *why)
{
    const mx_table *t = &pc->tl;
    if (t->nrow == 0) { strcpy(why, "no timeline.csv rows (no timeline_workload in the matrix, or it failed)"); return -1; }
    int cs = mx_table_col(t, "strategy"), ct = mx_table_col(t, "t_s"), co = mx_table_col(t, "orders");
    int cf = mx_table_col(t, "failed_orders"), cw = mx_table_col(t, "workload");
    names s = { 0 };
    for (int r = 0; r < t->nrow; r++) names_add(&s, mx_table_str(t, r, cs));
    FILE *f = open_data(pc, "outage.dat");
    if (!f) { snprintf(why, 256, "cannot write plot data: %s", strerror(errno)); return -1; }
    char title[MX_LIST_MAX][128];
    for (int i = 0; i < s.n; i++) {
        double failed = 0;
        int last = -1;
        for (int r = 0; r < t->nrow; r++)
            if (!strcmp(mx_table_str(t, r, cs), s.v[i])) {
                put(f, mx_table_num(t, r, ct), "\t");
                put(f, mx_table_num(t, r, cf), "\t");
                put(f, mx_table_num(t, r, co), "\n");
                failed += mx_table_num(t, r, cf);
                last = r;
            }
        if (last >= 0) {                                  /* close the last second's step */
            put(f, mx_table_num(t, last, ct) + 1, "\t");
            put(f, mx_table_num(t, last, cf), "\t");
            put(f, mx_table_num(t, last, co), "\n");
        }
        fputs("\n\n", f);
        snprintf(title[i], sizeof title[i], "%s: %.0f failed", s.v[i], failed);
    }
    fclose(f);
    put_names(v, "", &s, title);
    fprintf(v, "workload = '%s'\n", mx_table_str(t, 0, cw));
    return 0;
}

/* Run gnuplot on vars, common.gp and NAME.gp for fmt, into DIR/plots/NAME.fmt. Returns 0
 * or -1 with why (gnuplot's last error line). */
static int gnuplot(const pctx *pc, const char *name, const char *fmt, char *why)
{
    char out[1300], final[1200], setup[3000], vars[700], common[1200], script[1200], errp[700];
    snprintf(final, sizeof final, "%s/plots/%s.%s", pc->dir, name, fmt);
    snprintf(out, sizeof out, "%s.tmp", final);
    snprintf(setup, sizeof setup, "fmt='%s'; out='%s'; datadir='%s'; datafile='%s/%s.dat'", fmt, out,
             pc->scratch, pc->scratch, name);
    snprintf(vars, sizeof vars, "%s/%s.vars.gp", pc->scratch, name);
    snprintf(common, sizeof common, "%s/plots/common.gp", mx_source_dir());
    snprintf(script, sizeof script, "%s/plots/%s.gp", mx_source_dir(), name);
    snprintf(errp, sizeof errp, "%s/gnuplot.err", pc->scratch);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) { snprintf(why, 256, "cannot fork: %s", strerror(errno)); return -1; }
    if (pid == 0) {
        int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644), n = open("/dev/null", O_RDWR);
        if (e >= 0) dup2(e, 2);
        if (n >= 0) { dup2(n, 0); dup2(n, 1); }
        execlp("gnuplot", "gnuplot", "-e", setup, vars, common, script, (char *)NULL);
        dprintf(2, "cannot run gnuplot: %s (install gnuplot-nox)\n", strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    char line[512] = "", last[512] = "";
    FILE *ef = fopen(errp, "r");
    int errors = 0;
    while (ef && fgets(line, sizeof line, ef)) {
        line[strcspn(line, "\n")] = 0;
        if (strstr(line, "rror") || strstr(line, "cannot run")) { errors = 1; snprintf(last, sizeof last, "%s", line); }
    }
    if (ef) fclose(ef);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || errors) {
        snprintf(why, 256, "gnuplot %s.%s: %s", name, fmt, last[0] ? last : "failed");
        unlink(out);
        return -1;
    }
    if (rename(out, final) != 0) { snprintf(why, 256, "cannot rename %.150s: %s", out, strerror(errno)); return -1; }
    return 0;
}

/* Load DIR's tables, then per plot: its data, its variables, gnuplot for PNG and SVG (see matrix.h). */
int mx_plot_all(const char *dir, int ok[MX_PLOTS], char why_not[MX_PLOTS][256], idb_err *err)
{
    pctx pc = { .dir = dir };
    char path[1200];
    for (int i = 0; i < MX_PLOTS; i++) { ok[i] = 0; why_not[i][0] = 0; }
    snprintf(path, sizeof path, "%s/plots/common.gp", mx_source_dir());
    if (access(path, R_OK) != 0)
        return idb_fail(err, IDB_EINPUT, "cannot find the plot scripts (%s): was the source tree moved?", path);
    snprintf(path, sizeof path, "%s/plots", dir);
    if (mkdir(path, 0777) != 0 && errno != EEXIST) return idb_fail(err, IDB_EIO, "cannot create %s: %s", path, strerror(errno));
    if (idb_tmpdir_make(pc.scratch, sizeof pc.scratch) != 0) return idb_fail(err, IDB_EIO, "cannot create a temporary directory");
    static const char *const files[] = { "insert.csv", "positions.csv", "curve.csv", "generation.csv", "skew.csv", "timeline.csv" };
    mx_table *tables[] = { &pc.ins, &pc.pos, &pc.curve, &pc.gen, &pc.skew, &pc.tl };
    for (int i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        mx_table_load(path, tables[i]);
    }
    mx_headline(&pc.ins, &pc.ids, &pc.shards);
    int reps = 0;
    for (int r = 0; r < pc.ins.nrow; r++) {
        int n = (int)mx_table_num(&pc.ins, r, mx_table_col(&pc.ins, "repeats"));
        if (n > reps) reps = n;
    }
    snprintf(pc.subtitle, sizeof pc.subtitle, "%lld IDs, %lld shard%s, median of %d run%s", pc.ids, pc.shards,
             pc.shards == 1 ? "" : "s", reps, reps == 1 ? "" : "s");
    int failed = 0;
    for (int i = 0; i < MX_PLOTS; i++) {
        char vpath[700];
        snprintf(vpath, sizeof vpath, "%s/%s.vars.gp", pc.scratch, mx_plot_names[i]);
        FILE *v = fopen(vpath, "w");
        if (!v) { snprintf(why_not[i], 256, "cannot write plot variables: %s", strerror(errno)); continue; }
        fprintf(v, "ids = %lld\nshards = %lld\nsubtitle = '%s'\n", pc.ids, pc.shards, pc.subtitle);
        int rc;
        switch (i) {
        case 0: rc = prep_generation(&pc, v, why_not[i]); break;
        case 1: case 2: case 3: rc = prep_bars(&pc, v, why_not[i], i - 1); break;
        case 4: rc = prep_miss(&pc, v, why_not[i]); break;
        case 5: rc = prep_positions(&pc, v, why_not[i]); break;
        case 6: rc = prep_latency(&pc, v, why_not[i]); break;
        case 7: rc = prep_skew(&pc, v, why_not[i]); break;
        default: rc = prep_outage(&pc, v, why_not[i]); break;
        }
        if (i == 4 || i == 6) fprintf(v, "width = panels > 1 ? 560 * panels + 80 : 1000\nheight = 580\n");
        if (i == 5) fprintf(v, "width = 1300\nheight = 250 * rows + 70\n");
        fclose(v);
        if (rc) continue;
        if (gnuplot(&pc, mx_plot_names[i], "png", why_not[i]) || gnuplot(&pc, mx_plot_names[i], "svg", why_not[i])) {
            if (!failed) idb_fail(err, IDB_EIO, "%s", why_not[i]);
            failed = 1;
            continue;
        }
        ok[i] = 1;
    }
    for (int i = 0; i < 6; i++) mx_table_free(tables[i]);
    if (getenv("IDBENCH_KEEP_PLOT_DATA")) fprintf(stderr, "plot: data kept in %s\n", pc.scratch);
    else idb_tmpdir_remove(pc.scratch);
    return failed ? IDB_EIO : 0;
}
