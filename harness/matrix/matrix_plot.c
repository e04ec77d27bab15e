/* matrix_plot.c — `idbench plot DIR`: the plots of a results directory.
 *
 * For each entry of the plot table (mx_plots, plots.c), its prepare function writes data
 * files cut to what the plot shows (tab-separated numbers only) and a small variables file
 * (titles, strategy names, colours) to a private temporary directory; then gnuplot runs
 * NAME.vars.gp  plots/common.gp  plots/NAME.gp   in that directory, once for PNG and once
 * for SVG, its stdout a temporary file beside DIR/plots/NAME.png that is renamed into place
 * only when gnuplot succeeded and the file is complete (it ends as a PNG or SVG ends).
 * Everything comes from the results tables loaded once (mx_results), so a finished run can
 * be re-rendered at any time. A plot whose data is missing (its cells failed or were not in
 * the matrix) is skipped with a reason; a gnuplot failure is an error. With
 * IDBENCH_KEEP_PLOT_DATA set, the temporary directory is kept (and named on stderr) to debug
 * a script.
 *
 * No text from a file or the command line reaches gnuplot as code: paths never appear in
 * its commands (it runs in the data directory and writes to its stdout), data files hold
 * numbers, and every string (a name, a title) is a gnuplot string literal written by
 * mx_gp_string, in which every byte but letters, digits and a few harmless marks is an
 * octal escape: the command line gnuplot reads holds no quote, backquote, @, # or ; of it.
 *
 * Also here: the data-file helpers the prepare functions share (plots.h).
 *
 * Colours: colors.c (a strategy's colour is fixed by its index in `idbench list` order, so
 * it is the same in every plot and a new strategy gets one too).
 */
#include "plots.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic_file.h"
#include "tmpdir.h"

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

/* The bytes a gnuplot literal carries as themselves: nothing gnuplot could read as a quote,
 * an escape, a substitution (` @), a comment or the end of a command. */
#define GP_PLAIN "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,:/+()%"

/* A gnuplot string literal: double quotes, every other byte an octal escape (see plots.h). */
int mx_gp_string(FILE *f, const char *s, idb_err *why)
{
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return idb_fail(why, IDB_EINPUT, "a name or title holds a control character");
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (strchr(GP_PLAIN, *p)) fputc(*p, f);
        else fprintf(f, "\\%03o", *p);
    }
    fputs("\"\n", f);
    return 0;
}

/* The names' count, colours and titles as gnuplot variables (see plots.h). */
int mx_put_names(FILE *v, const char *sfx, const mx_names *l, char (*title)[MX_TITLE_LEN],
                 idb_err *why)
{
    fprintf(v, "n%s = %d\ncolors%s = '", sfx, l->n, sfx);
    for (int i = 0; i < l->n; i++) fprintf(v, "%s%s", i ? " " : "", mx_color(l->v[i]));
    fprintf(v, "'\ndashes%s = '", sfx);
    for (int i = 0; i < l->n; i++) fprintf(v, "%s%d", i ? " " : "", 1 + mx_variant(l->v[i]));
    fprintf(v, "'\n");
    for (int i = 0; i < l->n; i++) {
        fprintf(v, "t%s_%d = ", sfx, i + 1);
        if (mx_gp_string(v, title && title[i][0] ? title[i] : l->v[i], why)) return IDB_EINPUT;
    }
    return 0;
}

/* The IDs of store's rows in the plots (see plots.h). */
long long mx_store_ids(const mx_results *r, const char *store)
{
    const mx_table *t = &r->ins;
    int cst = mx_table_col(t, "store"), ci = mx_table_col(t, "ids");
    int ck = mx_table_col(t, "shards");
    long long most = -1;
    for (int row = 0; row < t->nrow; row++) {
        if (strcmp(mx_table_str(t, row, cst), store) != 0 ||
            mx_table_ll(t, row, ck, -1) != r->shards || mx_row_clients(t, row) != 1)
            continue;
        long long ids = mx_table_ll(t, row, ci, -1);
        if (ids == r->ids) return ids;
        if (ids > most) most = ids;
    }
    return most < 0 ? r->ids : most;
}

/* The insert.csv row of (strategy, store) at the headline configuration (see plots.h). */
int mx_ins_row(const mx_results *r, const char *strategy, const char *store)
{
    return mx_insert_row(&r->ins, strategy, store, mx_store_ids(r, store), r->shards);
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

/* The formats drawn: the extension, and how a complete file of it ends (a PNG with its
 * IEND chunk; an SVG with its closing tag, then at most blanks). */
static const struct {
    const char *ext, *end;
    size_t end_len;
} formats[] = {
    { "png", "\0\0\0\0IEND\xae\x42\x60\x82", 12 },
    { "svg", "</svg>", 6 },
};
#define N_FORMATS (sizeof formats / sizeof *formats)
#define TAIL_READ 64                             /* bytes read from an output's end */

/* 1 when the file open at fd is a complete file of format fmt (see formats). */
static int output_complete(int fd, size_t fmt)
{
    struct stat sb;
    char tail[TAIL_READ];
    if (fstat(fd, &sb) != 0 || sb.st_size < (off_t)formats[fmt].end_len) return 0;
    off_t from = sb.st_size > TAIL_READ ? sb.st_size - TAIL_READ : 0;
    ssize_t n = pread(fd, tail, (size_t)(sb.st_size - from), from);
    if (n != sb.st_size - from) return 0;
    while (n > 0 && fmt != 0 && strchr(" \t\r\n", tail[n - 1])) n--;   /* SVG: blanks */
    size_t e = formats[fmt].end_len;
    return (size_t)n >= e && memcmp(tail + n - e, formats[fmt].end, e) == 0;
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

/* In the child: gnuplot in scratch, stdout to out_fd, stderr to gnuplot.err; plot name in
 * format fmt. Never returns. */
static void gnuplot_child(const char *scratch, const char *name, size_t fmt, int out_fd,
                          pid_t parent)
{
    char setup[256], vars[MX_FILE_MAX], common[MX_FILE_MAX], script[MX_FILE_MAX];
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(126);
    int e = chdir(scratch) == 0 ? open("gnuplot.err", O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
    int n = open("/dev/null", O_RDONLY);
    if (e < 0 || n < 0 || dup2(n, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(e, 2) < 0) _exit(126);
    snprintf(setup, sizeof setup, "fmt = '%s'; datafile = '%s.dat'", formats[fmt].ext, name);
    snprintf(vars, sizeof vars, "%s.vars.gp", name);
    snprintf(common, sizeof common, "%s/plots/common.gp", mx_source_dir());
    snprintf(script, sizeof script, "%s/plots/%s.gp", mx_source_dir(), name);
    execlp("gnuplot", "gnuplot", "-e", setup, vars, common, script, (char *)NULL);
    dprintf(2, "cannot run gnuplot: %s (install gnuplot-nox)\n", strerror(errno));
    _exit(127);
}

/* Wait for the child pid into *status, killing it when a signal is caught. Returns 0, or
 * -1 when it could not be waited for. */
static int wait_killable(pid_t pid, int *status)
{
    for (int killed = 0;;) {
        if (!killed && idb_signal_caught()) killed = kill(pid, SIGKILL) == 0;
        if (waitpid(pid, status, 0) == pid) return 0;
        if (errno != EINTR) return -1;
    }
}

/* Run gnuplot on NAME.vars.gp, common.gp and NAME.gp for format fmt, into the file final
 * of the directory dirfd (DIR/plots) through a temporary name. Returns 0 or IDB_EIO with
 * why (gnuplot's last error line, or what was wrong with the file). */
static int gnuplot(int dirfd, const char *final, const char *scratch, const char *name,
                   size_t fmt, idb_err *why)
{
    char errp[MX_FILE_MAX], last[512];
    const char *ext = formats[fmt].ext;
    snprintf(errp, sizeof errp, "%s/gnuplot.err", scratch);
    idb_atomic a;
    if (!idb_atomic_openat(&a, dirfd, final))
        return idb_fail(why, IDB_EIO, "cannot write plots/%s.%s: %s", name, ext, strerror(errno));
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) gnuplot_child(scratch, name, fmt, fileno(a.f), parent);
    int status = 0;
    if (pid < 0 || wait_killable(pid, &status) != 0) {
        idb_atomic_commit(&a, 1);
        return idb_fail(why, IDB_EIO, "cannot run gnuplot: %s", strerror(errno));
    }
    int errors = gp_error_line(errp, last, sizeof last);
    int ran = WIFEXITED(status) && WEXITSTATUS(status) == 0 && !errors;
    int whole = ran && output_complete(fileno(a.f), fmt);
    if (idb_atomic_commit(&a, !whole) == 0) return 0;
    if (idb_signal_caught()) return idb_fail(why, IDB_EIO, "gnuplot %s.%s: interrupted", name, ext);
    if (!ran)
        return idb_fail(why, IDB_EIO, "gnuplot %s.%s: %.200s", name, ext,
                        last[0] ? last : "failed");
    return idb_fail(why, IDB_EIO, "cannot write plots/%s.%s: %s", name, ext,
                    whole ? strerror(errno) : "gnuplot's output is incomplete (disk full?)");
}

/* Plot i of the table: its variables and data, then gnuplot for PNG and SVG. Returns 0
 * (drawn, or skipped with r->why_not[i] set) or IDB_EIO when gnuplot failed. */
static int plot_one(mx_results *r, int i, int plotsfd, const char *scratch,
                    const char *subtitle)
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
    fprintf(v, "ids = %lld\nshards = %lld\nsubtitle = ", r->ids, r->shards);
    int rc = mx_gp_string(v, subtitle, why);
    if (!rc) rc = p->prepare(r, scratch, v, why);
    if (mx_data_close(v, "variables", rc ? NULL : why) != 0) rc = IDB_EIO;
    if (rc) return 0;
    for (size_t fmt = 0; fmt < N_FORMATS; fmt++) {
        char final[MX_FILE_MAX];
        snprintf(final, sizeof final, "%s.%s", p->name, formats[fmt].ext);
        if (gnuplot(plotsfd, final, scratch, p->name, fmt, why)) return IDB_EIO;
    }
    r->drawn[i] = 1;
    why->msg[0] = 0;
    return 0;
}

/* Render plots/NAME.gp as a PNG into png (see plots.h): its directory opened without
 * following a symlink in its last component, the file made in it as every plot's. */
int mx_gnuplot_png(const char *png, const char *scratch, const char *name, idb_err *why)
{
    char dir[MX_FILE_MAX];
    const char *slash = strrchr(png, '/'), *base = slash ? slash + 1 : png;
    if (!slash) snprintf(dir, sizeof dir, ".");
    else snprintf(dir, sizeof dir, "%.*s", slash == png ? 1 : (int)(slash - png), png);
    int dfd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) return idb_fail(why, IDB_EIO, "cannot open %s: %s", dir, strerror(errno));
    int rc = gnuplot(dfd, base, scratch, name, 0, why);
    close(dfd);
    return rc;
}

/* What every plot needs: the scripts, DIR/plots (made when missing), a scratch directory
 * (into scratch). Returns 0 or an IDB_E* code with err. */
static int plots_ready(const mx_results *r, int *plotsfd, char *scratch, size_t len,
                       idb_err *err)
{
    char path[MX_FILE_MAX];
    struct stat sb;
    snprintf(path, sizeof path, "%s/plots/common.gp", mx_source_dir());
    if (access(path, R_OK) != 0)
        return idb_fail(err, IDB_EINPUT,
                        "cannot find the plot scripts (%s): was the source tree moved?", path);
    snprintf(path, sizeof path, "%s/plots", r->dir);
    if (mkdir(path, 0777) != 0 && (errno != EEXIST || stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)))
        return idb_fail(err, IDB_EIO, "cannot create %s: %s", path,
                        errno == EEXIST ? "it exists and is not a directory" : strerror(errno));
    *plotsfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (*plotsfd < 0 && (errno == ELOOP || errno == ENOTDIR))
        return idb_fail(err, IDB_EINPUT, "%s is a symlink: refused (plots are written only "
                        "into a real directory)", path);
    if (*plotsfd < 0)
        return idb_fail(err, IDB_EIO, "cannot open %s: %s", path, strerror(errno));
    if (idb_tmpdir_make(scratch, len) != 0) {
        close(*plotsfd);
        *plotsfd = -1;
        return idb_fail(err, IDB_EIO, "cannot create a temporary directory: %s", strerror(errno));
    }
    return 0;
}

/* Render every plot of the table from r (see matrix.h). */
int mx_plot_all(mx_results *r, idb_err *err)
{
    char scratch[MX_SCRATCH_MAX], subtitle[256];
    idb_err why = { 0 };
    int plotsfd = -1, rc = plots_ready(r, &plotsfd, scratch, sizeof scratch, &why);
    for (int i = 0; i < mx_n_plots; i++) {                /* none drawn yet, or none at all */
        r->drawn[i] = 0;
        r->why_not[i] = why;
    }
    if (rc) return idb_fail(err, rc, "%s", why.msg);
    snprintf(subtitle, sizeof subtitle, "%lld IDs, %lld shard%s, median of %d run%s", r->ids,
             r->shards, r->shards == 1 ? "" : "s", r->reps, r->reps == 1 ? "" : "s");
    int failed = 0;
    for (int i = 0; i < mx_n_plots && !idb_signal_caught(); i++)
        if (plot_one(r, i, plotsfd, scratch, subtitle) != 0 && !failed) {
            failed = 1;
            idb_fail(err, IDB_EIO, "%s", r->why_not[i].msg);
        }
    if (idb_signal_caught() && !failed) failed = idb_fail(err, IDB_EIO, "plots: interrupted");
    if (getenv("IDBENCH_KEEP_PLOT_DATA")) fprintf(stderr, "plot: data kept in %s\n", scratch);
    else idb_tmpdir_remove(scratch);
    close(plotsfd);
    return failed ? IDB_EIO : 0;
}
