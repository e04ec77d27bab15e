/* matrix_plot.c — `idbench plot DIR`: the plots of a results directory.
 *
 * For each entry of the plot table (mx_plots, plots.c), its prepare function writes data
 * files cut to what the plot shows (tab-separated) and a small variables file (titles,
 * strategy names, colours) to a private temporary directory; then gnuplot runs
 * vars.gp  plots/common.gp  plots/NAME.gp   once for PNG and once for SVG, writing
 * DIR/plots/NAME.png.tmp and renaming it. Everything comes from the results tables loaded
 * once (mx_results), so a finished run can be re-rendered at any time. A plot whose data
 * is missing (its cells failed or were not in the matrix) is skipped with a reason; a
 * gnuplot failure is an error. With IDBENCH_KEEP_PLOT_DATA set, the temporary directory
 * is kept (and named on stderr) to debug a script.
 *
 * Also here: the data-file helpers the prepare functions share (plots.h).
 *
 * Colours: a strategy's colour is fixed by its index in `idbench list` order through
 * one palette, so it is the same in every plot and a new strategy gets one too.
 */
#include "plots.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tmpdir.h"

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

/* Add s to l unless present, keeping registry order (see plots.h). */
void mx_names_add(mx_names *l, const char *s)
{
    if (!*s || l->n == MX_LIST_MAX) return;
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0) return;
    int i = l->n++;
    while (i > 0 && mx_strategy_rank(l->v[i - 1]) > mx_strategy_rank(s)) {
        l->v[i] = l->v[i - 1];
        i--;
    }
    l->v[i] = s;
}

/* Open SCRATCH/NAME for writing (see plots.h). */
FILE *mx_data_open(const char *scratch, const char *name, idb_err *why)
{
    char path[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    FILE *f = fopen(path, "w");
    if (!f) idb_fail(why, IDB_EIO, "cannot write plot data %s: %s", name, strerror(errno));
    return f;
}

/* Close a data file, checking its writes (see plots.h). */
int mx_data_close(FILE *f, const char *name, idb_err *why)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return idb_fail(why, IDB_EIO, "cannot write plot data %s: %s", name, strerror(errno));
    return 0;
}

/* Write a number, NaN when unknown (see plots.h). */
void mx_put(FILE *f, double v, const char *sep)
{
    if (isnan(v)) fprintf(f, "NaN%s", sep);
    else fprintf(f, "%.6g%s", v, sep);
}

/* The names, colours and titles of l as gnuplot variables (see plots.h). */
void mx_put_names(FILE *v, const char *sfx, const mx_names *l, char (*title)[MX_TITLE_LEN])
{
    fprintf(v, "n%s = %d\nnames%s = '", sfx, l->n, sfx);
    for (int i = 0; i < l->n; i++) fprintf(v, "%s%s", i ? " " : "", l->v[i]);
    fprintf(v, "'\ncolors%s = '", sfx);
    for (int i = 0; i < l->n; i++) fprintf(v, "%s%s", i ? " " : "", mx_color(l->v[i]));
    fprintf(v, "'\n");
    for (int i = 0; i < l->n; i++)
        fprintf(v, "t%s_%d = '%s'\n", sfx, i + 1, title && title[i][0] ? title[i] : l->v[i]);
}

/* The insert.csv row of (strategy, store) at the headline configuration (see plots.h). */
int mx_ins_row(const mx_results *r, const char *strategy, const char *store)
{
    return mx_insert_row(&r->ins, strategy, store, r->ids, r->shards);
}

/* Strategies and stores of insert.csv at the headline configuration (see plots.h). */
void mx_ins_names(const mx_results *r, mx_names *strategies, const char *stores[], int *nstores)
{
    const mx_table *t = &r->ins;
    int cs = mx_table_col(t, "strategy"), cst = mx_table_col(t, "store");
    *nstores = 0;
    memset(strategies, 0, sizeof *strategies);
    for (int row = 0; row < t->nrow; row++) {
        if (mx_ins_row(r, mx_table_str(t, row, cs), mx_table_str(t, row, cst)) != row) continue;
        mx_names_add(strategies, mx_table_str(t, row, cs));
        const char *st = mx_table_str(t, row, cst);
        int seen = 0;
        for (int i = 0; i < *nstores; i++) seen |= !strcmp(stores[i], st);
        if (!seen && *nstores < MX_STORES_MAX) stores[(*nstores)++] = st;
    }
}

/* sqlite when insert.csv has it, else its first store (see plots.h). */
const char *mx_main_store(const mx_results *r)
{
    const mx_table *t = &r->ins;
    int cst = mx_table_col(t, "store");
    for (int row = 0; row < t->nrow; row++)
        if (!strcmp(mx_table_str(t, row, cst), "sqlite")) return "sqlite";
    return t->nrow ? mx_table_str(t, 0, cst) : "";
}

/* Where one gnuplot run reads and writes. */
typedef struct gp_paths {
    char out[MX_FILE_MAX + 8], final[MX_FILE_MAX], vars[MX_FILE_MAX], common[MX_FILE_MAX];
    char script[MX_FILE_MAX], errp[MX_FILE_MAX], setup[4 * MX_FILE_MAX];
} gp_paths;

/* The paths of plot name in format fmt for results dir, scratch directory scratch. */
static void gp_paths_make(gp_paths *g, const char *dir, const char *scratch, const char *name,
                          const char *fmt)
{
    snprintf(g->final, sizeof g->final, "%s/plots/%s.%s", dir, name, fmt);
    snprintf(g->out, sizeof g->out, "%s.tmp", g->final);
    snprintf(g->setup, sizeof g->setup,
             "fmt='%s'; out='%s'; datadir='%s'; datafile='%s/%s.dat'", fmt, g->out, scratch,
             scratch, name);
    snprintf(g->vars, sizeof g->vars, "%s/%s.vars.gp", scratch, name);
    snprintf(g->common, sizeof g->common, "%s/plots/common.gp", mx_source_dir());
    snprintf(g->script, sizeof g->script, "%s/plots/%s.gp", mx_source_dir(), name);
    snprintf(g->errp, sizeof g->errp, "%s/gnuplot.err", scratch);
}

/* The last line of gnuplot's stderr at path that reports an error into last ("" when
 * none). Returns 1 when there was one. */
static int gp_error_line(const char *path, char *last, size_t len)
{
    char line[512];
    int errors = 0;
    last[0] = 0;
    FILE *ef = fopen(path, "r");
    while (ef && fgets(line, sizeof line, ef)) {
        line[strcspn(line, "\n")] = 0;
        if (strstr(line, "rror") || strstr(line, "cannot run")) {
            errors = 1;
            snprintf(last, len, "%s", line);
        }
    }
    if (ef) fclose(ef);
    return errors;
}

/* Run gnuplot on vars, common.gp and NAME.gp for fmt, into DIR/plots/NAME.fmt. Returns 0
 * or IDB_EIO with why (gnuplot's last error line). */
static int gnuplot(const char *dir, const char *scratch, const char *name, const char *fmt,
                   idb_err *why)
{
    gp_paths g;
    gp_paths_make(&g, dir, scratch, name, fmt);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return idb_fail(why, IDB_EIO, "cannot fork: %s", strerror(errno));
    if (pid == 0) {
        int e = open(g.errp, O_WRONLY | O_CREAT | O_TRUNC, 0644), n = open("/dev/null", O_RDWR);
        if (e >= 0) dup2(e, 2);
        if (n >= 0) { dup2(n, 0); dup2(n, 1); }
        execlp("gnuplot", "gnuplot", "-e", g.setup, g.vars, g.common, g.script, (char *)NULL);
        dprintf(2, "cannot run gnuplot: %s (install gnuplot-nox)\n", strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    char last[512];
    int errors = gp_error_line(g.errp, last, sizeof last);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || errors) {
        unlink(g.out);
        return idb_fail(why, IDB_EIO, "gnuplot %s.%s: %.200s", name, fmt,
                        last[0] ? last : "failed");
    }
    if (rename(g.out, g.final) != 0)
        return idb_fail(why, IDB_EIO, "cannot rename %.150s: %s", g.out, strerror(errno));
    return 0;
}

/* Plot i of the table: its variables and data, then gnuplot for PNG and SVG. Returns 0
 * (drawn, or skipped with r->why_not[i] set) or IDB_EIO when gnuplot failed. */
static int plot_one(mx_results *r, int i, const char *scratch, const char *subtitle)
{
    const mx_plot *p = &mx_plots[i];
    idb_err *why = &r->why_not[i];
    char vpath[MX_FILE_MAX];
    snprintf(vpath, sizeof vpath, "%s/%s.vars.gp", scratch, p->name);
    FILE *v = fopen(vpath, "w");
    if (!v) {
        idb_fail(why, IDB_EIO, "cannot write plot variables: %s", strerror(errno));
        return 0;
    }
    fprintf(v, "ids = %lld\nshards = %lld\nsubtitle = '%s'\n", r->ids, r->shards, subtitle);
    int rc = p->prepare(r, scratch, v, why);
    if (mx_data_close(v, "variables", rc ? NULL : why) != 0) rc = IDB_EIO;
    if (rc) return 0;
    if (gnuplot(r->dir, scratch, p->name, "png", why) ||
        gnuplot(r->dir, scratch, p->name, "svg", why))
        return IDB_EIO;
    r->drawn[i] = 1;
    why->msg[0] = 0;
    return 0;
}

/* Render every plot of the table from r (see matrix.h). */
int mx_plot_all(mx_results *r, idb_err *err)
{
    char path[MX_FILE_MAX], scratch[MX_SCRATCH_MAX], subtitle[256];
    for (int i = 0; i < mx_n_plots; i++) {
        r->drawn[i] = 0;
        r->why_not[i] = (idb_err){ 0 };
    }
    snprintf(path, sizeof path, "%s/plots/common.gp", mx_source_dir());
    if (access(path, R_OK) != 0)
        return idb_fail(err, IDB_EINPUT,
                        "cannot find the plot scripts (%s): was the source tree moved?", path);
    snprintf(path, sizeof path, "%s/plots", r->dir);
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return idb_fail(err, IDB_EIO, "cannot create %s: %s", path, strerror(errno));
    if (idb_tmpdir_make(scratch, sizeof scratch) != 0)
        return idb_fail(err, IDB_EIO, "cannot create a temporary directory");
    snprintf(subtitle, sizeof subtitle, "%lld IDs, %lld shard%s, median of %d run%s", r->ids,
             r->shards, r->shards == 1 ? "" : "s", r->reps, r->reps == 1 ? "" : "s");
    int failed = 0;
    for (int i = 0; i < mx_n_plots; i++)
        if (plot_one(r, i, scratch, subtitle) != 0 && !failed) {
            failed = 1;
            idb_fail(err, IDB_EIO, "%s", r->why_not[i].msg);
        }
    if (getenv("IDBENCH_KEEP_PLOT_DATA")) fprintf(stderr, "plot: data kept in %s\n", scratch);
    else idb_tmpdir_remove(scratch);
    return failed ? IDB_EIO : 0;
}
