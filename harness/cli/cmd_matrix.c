/* cmd_matrix.c — `idbench matrix` and `idbench plot` (see matrix.h for the pieces).
 *
 *   idbench matrix [MATRIX.ini...] [--quick] [--out DIR] [--repeat N] [--seed N]
 *   idbench plot RESULTS_DIR
 *
 * matrix reads and checks every matrix file first (a bad one: exit 2, nothing written),
 * then makes the results directory (results/<UTC time>/ or --out DIR, which must be new
 * or empty), runs every cell in its own child process, rewrites each results file as
 * cells finish, renders the plots and the report, and points results/latest at the new
 * directory (default location only, and only when the run is complete). Exit status 0
 * when every cell and plot succeeded, 1 when any failed (the rest is kept), 2 for bad
 * input. The results directory's path is printed on stdout; progress goes to stderr.
 *
 * SIGINT, SIGTERM, SIGHUP and SIGPIPE stop a run (tmpdir.h, the flag mode): the running cell is
 * killed with its process group, no other starts, meta.json says "interrupted" and how many
 * cells ran, the temporary directories go, and the process dies of the signal. meta.json's
 * status says how every run ended; see docs/results-format.md.
 */
#include <errno.h>
#include <getopt.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "matrix.h"
#include "metrics.h"
#include "readfile.h"
#include "results_index.h"
#include "tmpdir.h"

#define RESULTS_SUFFIX_MAX 100                   /* results/<time>-N: N below this */

/* Current UTC time as ISO 8601 ("2026-11-29T17:45:00Z"); with dashes for colons when
 * for_path. */
static void utc_now(char *buf, size_t len, int for_path)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, for_path ? "%Y-%m-%dT%H-%M-%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* 1 if dir exists and holds nothing but . and .. */
static int dir_is_empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = 0;
    closedir(d);
    return empty;
}

/* Make the results directory into out: --out DIR (new, or an empty directory), or
 * results/<UTC time> (a suffix -2, -3... when taken). Returns 0 or IDB_EINPUT. Creates
 * nothing but that directory (and results/). */
static int make_results_dir(const char *want, char *out, size_t len, idb_err *err)
{
    if (want) {
        struct stat sb;
        if (strlen(want) + 1 > len)
            return idb_fail(err, IDB_EINPUT, "--out %s: path too long", want);
        if (stat(want, &sb) == 0) {
            if (!S_ISDIR(sb.st_mode))
                return idb_fail(err, IDB_EINPUT, "--out %s: exists and is not a directory", want);
            if (!dir_is_empty(want))
                return idb_fail(err, IDB_EINPUT,
                                "--out %s: exists and is not empty (give a new directory)", want);
            if (access(want, W_OK | X_OK) != 0)
                return idb_fail(err, IDB_EINPUT, "--out %s: not writable", want);
        } else if (mkdir(want, 0777) != 0) {
            return idb_fail(err, IDB_EINPUT, "--out %s: cannot create: %s", want, strerror(errno));
        }
        snprintf(out, len, "%s", want);
        return 0;
    }
    if (mkdir("results", 0777) != 0 && errno != EEXIST)
        return idb_fail(err, IDB_EINPUT, "cannot create results/: %s", strerror(errno));
    char stamp[40];
    utc_now(stamp, sizeof stamp, 1);
    for (int i = 1; i < RESULTS_SUFFIX_MAX; i++) {
        if (i == 1) snprintf(out, len, "results/%s", stamp);
        else snprintf(out, len, "results/%s-%d", stamp, i);
        if (mkdir(out, 0777) == 0) return 0;
        if (errno != EEXIST)
            return idb_fail(err, IDB_EINPUT, "cannot create %s: %s", out, strerror(errno));
    }
    return idb_fail(err, IDB_EINPUT, "cannot find a free name for results/%s", stamp);
}

/* Point results/latest at results/NAME: a symlink made under a temporary name, then
 * renamed over the old one. Returns 0 or IDB_EIO. */
static int point_latest(const char *dir, idb_err *err)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, "results/.latest-%ld", (long)getpid());
    unlink(tmp);
    if (symlink(dir + strlen("results/"), tmp) != 0 || rename(tmp, "results/latest") != 0) {
        int e = errno;
        unlink(tmp);
        return idb_fail(err, IDB_EIO, "cannot point results/latest at %s: %s", dir, strerror(e));
    }
    return 0;
}

#define ARGV_MAX 80                              /* arguments of an exec'd cell */
#define ARGV_BUFS 6                              /* of them formatted into a buffer */
typedef char argbuf[MX_FILE_MAX + 64];           /* one: a flag and a path */

/* The running matrix: what the phases share. */
typedef struct run {
    mx_ctx x;
    mx_plan plan;
    mx_progress pr;
    mx_meta meta;
    char seed[32];
    char set_copy[sizeof ((idb_matrix *)0)->sim_set];   /* the --set words */
    int64_t t0_ns;
    int report_ok;                               /* report.md was written */
    int killed;                                  /* cells killed by a signal caught */
    int meta_unwritten;                          /* the last meta.json write failed */
} run;

/* argv of a simulate cell c into av from k on (strings live in r and bufs); returns the
 * stdout path. */
static const char *sim_argv(run *r, const mx_cell *c, char **av, argbuf *bufs, int k)
{
    const idb_matrix *m = r->x.m;
    int b = 0;
    av[k++] = "simulate";
    av[k++] = (char *)c->workload;
    av[k++] = "--seed";
    snprintf(r->seed, sizeof r->seed, "%lld", (long long)m->seed);
    av[k++] = r->seed;
    av[k++] = "--format";
    av[k++] = "csv";
    if (m->sim_strategies[0] && !c->range) {
        av[k++] = "--strategies";
        av[k++] = (char *)m->sim_strategies;
    }
    snprintf(r->set_copy, sizeof r->set_copy, "%s", c->range ? m->range_set : m->sim_set);
    for (char *save = NULL, *t = strtok_r(r->set_copy, " \t", &save); t && k < ARGV_MAX - 8;
         t = strtok_r(NULL, " \t", &save)) {
        av[k++] = "--set";
        av[k++] = t;
    }
    if (c->kind == MX_SKEW) {
        av[k++] = "--set";
        snprintf(bufs[b], sizeof bufs[b], "clock.skew_ms=%g", c->skew_ms);
        av[k++] = bufs[b++];
    }
    if (c->timeline) {
        av[k++] = "--timeline";
        snprintf(bufs[b], sizeof bufs[b], "%s/timeline.csv", r->x.scratch);
        av[k++] = bufs[b++];
    }
    av[k] = NULL;
    snprintf(bufs[b], sizeof bufs[b], "%s/sim.csv", r->x.scratch);
    return bufs[b];
}

#define KILL_BATCH "100"                         /* fault blocks' runs: rows per commit */

/* argv of a [counterkill] or [faults.replicated] cell c into av from k on (strings live in
 * bufs): the counter on its server (a kill and restart), or on a replicated server (its
 * run's options) with a failover from a lagging replica. Returns the stdout path. */
static const char *fault_argv(run *r, const mx_cell *c, char **av, argbuf *bufs, int k)
{
    const idb_matrix *m = r->x.m;
    int b = 0, kill = c->kind == MX_KILL;
    const char *dur = strchr(c->kill_run, ':');
    const mx_repl_run *rr = kill ? NULL : mx_repl_run_find(c->kill_run);  /* checked */
    const char *fixed[] = { "insert", "--strategy", "counter", "--batch", KILL_BATCH,
                            "--store", c->store->name, "-o" };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) av[k++] = (char *)fixed[i];
    snprintf(bufs[b], sizeof bufs[b], "backend=%.*s", (int)strcspn(c->kill_run, ":"),
             c->kill_run);
    av[k++] = bufs[b++];
    if (kill && dur) {
        av[k++] = "-o";
        snprintf(bufs[b], sizeof bufs[b], "durability=%s", dur + 1);
        av[k++] = bufs[b++];
    }
    for (size_t i = 0; rr && i < sizeof rr->opts / sizeof *rr->opts && rr->opts[i]; i++) {
        av[k++] = "-o";
        av[k++] = (char *)rr->opts[i];
    }
    av[k++] = "-o";
    snprintf(bufs[b], sizeof bufs[b], "timeout_ms=%lld",
             (long long)(kill ? m->kill_timeout_ms : m->repl_timeout_ms));
    av[k++] = bufs[b++];
    av[k++] = "-n";
    snprintf(bufs[b], sizeof bufs[b], "%lld", (long long)(kill ? m->kill_orders : m->repl_orders));
    av[k++] = bufs[b++];
    av[k++] = "--seed";
    snprintf(r->seed, sizeof r->seed, "%lld", (long long)m->seed);
    av[k++] = r->seed;
    av[k++] = "--fault";
    if (kill)
        snprintf(bufs[b], sizeof bufs[b], "kill-counter@%lld:%lld", (long long)m->kill_at,
                 (long long)m->kill_restart_ms);
    else
        snprintf(bufs[b], sizeof bufs[b], "failover-lagged@%lld:%lld",
                 (long long)m->repl_lag_at, (long long)m->repl_lag_ms);
    av[k++] = bufs[b++];
    av[k] = NULL;
    snprintf(bufs[b], sizeof bufs[b], "%s/%s.csv", r->x.scratch, kill ? "counterkill" : "failover");
    return bufs[b];
}

/* argv for exec'd cell c into av (NULL-terminated; strings live in r and bufs). Returns
 * the stdout path (NULL for an insert or curve cell, which is not exec'd). */
static const char *cell_argv(run *r, const mx_cell *c, char **av, argbuf *bufs)
{
    const idb_matrix *m = r->x.m;
    int k = 0, b = 0;
    av[k++] = "idbench";
    av[k] = NULL;
    switch (c->kind) {
    case MX_GEN:
        av[k++] = "bench";
        snprintf(bufs[b], sizeof bufs[b], "--benchmark_out=%s/generation.json.tmp", r->x.dir);
        av[k++] = bufs[b++];
        av[k++] = "--benchmark_out_format=json";
        av[k++] = "--benchmark_format=csv";
        snprintf(bufs[b], sizeof bufs[b], "--benchmark_min_time=%g", m->gen_min_time);
        av[k++] = bufs[b++];
        snprintf(bufs[b], sizeof bufs[b], "--benchmark_repetitions=%lld", (long long)m->repeat);
        av[k++] = bufs[b++];
        av[k] = NULL;
        snprintf(bufs[b], sizeof bufs[b], "%s/gb.csv", r->x.scratch);
        return bufs[b];
    case MX_SIM: case MX_SKEW:
        return sim_argv(r, c, av, bufs, k);
    case MX_KILL: case MX_FAILOVER:
        return fault_argv(r, c, av, bufs, k);
    case MX_CLAIMS:
        av[k++] = "claims";
        if (m->claims_quick) av[k++] = "--quick";
        av[k] = NULL;
        snprintf(bufs[b], sizeof bufs[b], "%s/claims.md.tmp", r->x.dir);
        return bufs[b];
    default:
        return NULL;
    }
}

/* After a simulate cell c: its rows into simulate.csv or skew.csv, its timeline into
 * timeline.csv. Returns 0 or IDB_EIO. */
static int collect_sim(run *r, mx_cell *c, const char *out, idb_err *err)
{
    char path[MX_FILE_MAX], src[MX_FILE_MAX], val[32];
    snprintf(val, sizeof val, "%g", c->skew_ms);
    snprintf(path, sizeof path, "%s/%s.csv", r->x.dir,
             c->kind == MX_SKEW ? "skew" : c->range ? "range" : "simulate");
    int rc = mx_append_csv(path, out, c->kind == MX_SKEW ? "skew_ms" : NULL, val, err);
    if (!rc && c->timeline) {
        snprintf(path, sizeof path, "%s/timeline.csv", r->x.dir);
        snprintf(src, sizeof src, "%s/timeline.csv", r->x.scratch);
        rc = mx_append_csv(path, src, NULL, NULL, err);
    }
    return rc;
}

#define JSON_TAIL 16                             /* bytes read from a JSON file's end */

/* 1 when the file at path ends as a JSON object does ("}", then at most blanks): Google
 * Benchmark does not say when it could not write its whole output. */
static int json_complete(const char *path)
{
    char tail[JSON_TAIL + 1];
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fseek(f, -JSON_TAIL, SEEK_END) == 0 || fseek(f, 0, SEEK_SET) == 0
                   ? fread(tail, 1, JSON_TAIL, f) : 0;
    fclose(f);
    while (n > 0 && strchr(" \t\r\n", tail[n - 1])) n--;
    return n > 0 && tail[n - 1] == '}';
}

/* After cell c succeeded: move its output into the results files. Returns 0, or an
 * IDB_E* code with c->err filled (the cell then counts as failed). */
static int collect(run *r, mx_cell *c, const char *out)
{
    char path[MX_FILE_MAX], src[MX_FILE_MAX + 8];
    int rc = 0;
    switch (c->kind) {
    case MX_GEN:
        snprintf(path, sizeof path, "%s/generation.json", r->x.dir);
        snprintf(src, sizeof src, "%s.tmp", path);
        if (!json_complete(src))
            rc = idb_fail(&c->err, IDB_EIO, "generation.json is cut short (disk full?)");
        else if (rename(src, path) != 0)
            rc = idb_fail(&c->err, IDB_EIO, "no generation.json: %s", strerror(errno));
        else rc = mx_write_generation(r->x.dir, out, &c->err);
        break;
    case MX_INSERT: rc = mx_write_insert(&r->x, &r->plan, &c->err); break;
    case MX_CURVE: rc = mx_write_curve(&r->x, &r->plan, &c->err); break;
    case MX_SERIES:                              /* its rows into series.csv, by block */
        snprintf(path, sizeof path, "%s/series.csv", r->x.dir);
        mx_series_path(&r->x, src, sizeof src);
        rc = mx_append_csv(path, src, "block", c->block->name, &c->err);
        unlink(src);
        break;
    case MX_READ:                                /* its rows into read.csv, by block */
        snprintf(path, sizeof path, "%s/read.csv", r->x.dir);
        mx_read_path(&r->x, src, sizeof src);
        rc = mx_append_csv(path, src, "block", c->block->name, &c->err);
        unlink(src);
        break;
    case MX_SIM: case MX_SKEW: rc = collect_sim(r, c, out, &c->err); break;
    case MX_KILL:                                /* its row into counterkill.csv, by run */
        snprintf(path, sizeof path, "%s/counterkill.csv", r->x.dir);
        rc = mx_append_csv(path, out, "run", c->kill_run, &c->err);
        unlink(out);
        break;
    case MX_FAILOVER: {                          /* its row into failover.csv: run, backend,
                                                  * mode, then insert's row */
        char val[3 * sizeof c->kill_run];
        int nb = (int)strcspn(c->kill_run, ":");
        snprintf(path, sizeof path, "%s/failover.csv", r->x.dir);
        snprintf(val, sizeof val, "%s,%.*s,%s", c->kill_run, nb, c->kill_run,
                 c->kill_run[nb] ? c->kill_run + nb + 1 : "");
        rc = mx_append_csv(path, out, "run,backend,mode", val, &c->err);
        unlink(out);
        break;
    }
    case MX_CLAIMS:
        snprintf(path, sizeof path, "%s/claims.md", r->x.dir);
        if (rename(out, path) != 0)
            rc = idb_fail(&c->err, IDB_EIO, "no claims.md: %s", strerror(errno));
        break;
    default: break;
    }
    return rc;
}

/* Record a failure (cell label and why) in the meta. */
static void add_failure(mx_meta *meta, const char *label, const char *why)
{
    if (meta->n_failures < MX_FAILURES_MAX)
        snprintf(meta->failures[meta->n_failures++], sizeof meta->failures[0], "%s: %s", label,
                 why);
}

/* The run's end in the meta: cells that ran to their end (succeeded or failed by
 * themselves), cells without results (failed, killed or never run), finish and wall time. */
static void finish_meta(run *r)
{
    r->meta.cells_done = -r->killed;
    r->meta.cells_failed = r->plan.n;
    for (int i = 0; i < r->plan.n; i++) {
        r->meta.cells_done += r->plan.cells[i].status != MX_PENDING;
        r->meta.cells_failed -= r->plan.cells[i].status == MX_DONE;
    }
    utc_now(r->meta.finished, sizeof r->meta.finished, 0);
    r->meta.wall_s = (double)(idb_mono_ns() - r->t0_ns) / 1e9;
}

/* finish_meta, then write meta.json; a failure is noted and makes the run failed. */
static void save_meta(run *r)
{
    idb_err err = { 0 };
    finish_meta(r);
    r->meta_unwritten = mx_meta_write(r->x.dir, &r->meta, &err) != 0;
    if (!r->meta_unwritten) return;
    mx_progress_note(NULL, "%s", err.msg);
    if (!idb_signal_caught()) r->meta.status = MX_STATUS_FAILED;
}

/* A file of the run's own (plots, report) could not be written: noted, recorded as a
 * failure, and the run failed (unless it was interrupted). */
static void run_failed(run *r, const char *what, const char *why)
{
    mx_progress_note(NULL, "%s: %s", what, why);
    add_failure(&r->meta, what, why);
    if (!idb_signal_caught()) r->meta.status = MX_STATUS_FAILED;
}

/* Run cell i: its child, then its results into the results files. */
static void run_cell(run *r, int i)
{
    mx_cell *c = &r->plan.cells[i];
    char *av[ARGV_MAX];
    argbuf bufs[ARGV_BUFS];
    const char *out = cell_argv(r, c, av, bufs);
    mx_progress_cell(&r->pr, i);
    mx_cell_run(&r->x, c, av, out, mx_progress_tick, &r->pr);
    r->killed += c->status == MX_FAILED && idb_signal_caught();
    if (c->status == MX_DONE && collect(r, c, out) != 0) c->status = MX_FAILED;
    idb_err terr = { 0 };
    if (c->status != MX_PENDING && mx_write_cells(&r->x, &r->plan, &terr) != 0) {
        c->status = MX_FAILED;                   /* the run's own file: as a results file */
        c->err = terr;
    }
    if (c->status != MX_FAILED || !idb_signal_caught())     /* ran to its end: on disk */
        mx_owner_cell(c->label, c->status == MX_DONE, c->err.msg);
    if (c->status == MX_FAILED) {
        add_failure(&r->meta, c->label, c->err.msg);
        if (c->kind == MX_GEN || c->kind == MX_CLAIMS) {     /* no half-written file left */
            char tmp[MX_FILE_MAX];
            snprintf(tmp, sizeof tmp, "%s/%s.tmp", r->x.dir,
                     c->kind == MX_GEN ? "generation.json" : "claims.md");
            unlink(tmp);
        }
    }
    mx_progress_end_cell(&r->pr, i);
}

/* "PREFIXNAME not drawn: why" on stderr for every plot the results could not show. */
static void note_not_drawn(const mx_results *res, const char *prefix)
{
    for (int i = 0; i < mx_n_plots; i++)
        if (!res->drawn[i])
            fprintf(stderr, "%s%s not drawn: %s\n", prefix, mx_plots[i].name, res->why_not[i].msg);
}

/* The plots and the report of a finished run; meta.json written before the report, which
 * reads it. No report after a signal. */
static void render_run(run *r)
{
    mx_results res;
    idb_err err = { 0 };
    if (mx_results_load(&res, r->x.dir, &err) != 0) {
        run_failed(r, "plots", err.msg);
        return;
    }
    if (mx_plot_all(&res, &err) != 0) run_failed(r, "plots", err.msg);
    if (!idb_signal_caught()) {
        note_not_drawn(&res, "matrix: plot ");
        save_meta(r);
        int rc = mx_report_write(&res, &err);
        if (rc != 0) run_failed(r, "report", err.msg);
        char md[MX_FILE_MAX];                    /* report.md is written before report.html */
        snprintf(md, sizeof md, "%s/report.md", r->x.dir);
        r->report_ok = rc == 0 || access(md, F_OK) == 0;
    }
    mx_results_free(&res);
}

/* Run every cell (until a signal), then the plots and the report; meta.json says how the
 * run ended. */
static void run_all(run *r)
{
    mx_progress_start(&r->pr, &r->plan);
    mx_progress_note(NULL, "%d cells; results in %s", r->plan.n, r->x.dir);
    for (int i = 0; i < r->plan.n && !idb_signal_caught(); i++) run_cell(r, i);
    mx_progress_finish(&r->pr);
    r->meta.status = MX_STATUS_COMPLETE;
    if (!idb_signal_caught()) render_run(r);
    if (idb_signal_caught()) {
        int left = 0;
        for (int i = 0; i < r->plan.n; i++) left += r->plan.cells[i].status == MX_PENDING;
        char why[128];
        snprintf(why, sizeof why, "interrupted (%s): %d of %d cells not run",
                 strsignal(idb_signal_caught()), left, r->plan.n);
        add_failure(&r->meta, "matrix", why);
        r->meta.status = MX_STATUS_INTERRUPTED;
    }
    save_meta(r);
}

/* The command line of matrix: flags into quick, out, repeat, seed (-1: not given), the
 * matrix files from argv[*first] on. Returns 0 or an exit status after an error line. */
static int parse_flags(int argc, char **argv, int *quick, const char **out, long long *repeat,
                       long long *seed, int *first)
{
    enum { O_QUICK = 256, O_OUT, O_REPEAT, O_SEED };
    static const struct option longopts[] = {
        { "quick", no_argument, 0, O_QUICK }, { "out", required_argument, 0, O_OUT },
        { "repeat", required_argument, 0, O_REPEAT }, { "seed", required_argument, 0, O_SEED },
        { 0 },
    };
    int c, rc;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_QUICK: *quick = 1; break;
        case O_OUT: *out = optarg; break;
        case O_REPEAT:
            if ((rc = cli_parse_count("--repeat", optarg, 1, 100, repeat))) return rc;
            break;
        case O_SEED:
            if ((rc = cli_parse_count("--seed", optarg, 0, INT64_MAX, seed))) return rc;
            break;
        default:
            return cli_usage("matrix", "matrix: unknown flag or missing value '%s'",
                             argv[optind - 1]);
        }
    }
    *first = optind;
    return 0;
}

/* Read and check the matrix files (the default one when none is given), apply the flags,
 * and make the plan. Returns 0 or an IDB_E* code with err. */
static int load_matrix(idb_matrix *m, mx_plan *plan, char **files, int n, int quick,
                       long long repeat, long long seed, idb_err *err)
{
    char def[MX_PATH_MAX];
    snprintf(def, sizeof def, "%s/workloads/matrix.ini", mx_source_dir());
    mx_defaults(m);
    int rc = n == 0 ? mx_load_file(m, def, err) : 0;
    for (int i = 0; i < n && !rc; i++) rc = mx_load_file(m, files[i], err);
    if (!rc) rc = mx_finish(m, quick, err);
    if (rc) return rc;
    if (repeat) m->repeat = repeat;
    if (seed >= 0) m->seed = seed;
    return mx_plan_make(m, plan, err);
}

/* The run's facts known before it starts, into r->meta. */
static void start_meta(run *r, const char *command, int quick)
{
    const idb_matrix *m = r->x.m;
    mx_meta *meta = &r->meta;
    snprintf(meta->command, sizeof meta->command, "%s", command);
    for (int i = 0, n = 0; i < m->n_files; i++)      /* in the tree: relative to it */
        n += snprintf(meta->files + n, sizeof meta->files - (size_t)n, "%s%s", i ? " " : "",
                      mx_tree_relative(m->files[i]));
    utc_now(meta->started, sizeof meta->started, 0);
    meta->seed = m->seed;
    meta->repeat = m->repeat;
    meta->quick = quick;
    meta->cells = r->plan.n;
    meta->checks = r->plan.checks;
    meta->n_checks = r->plan.n_checks;
    for (int i = 0; i < r->plan.n_checks; i++)
        if (!r->plan.checks[i].ok)
            mx_progress_note(NULL, "store %s skipped: %s", r->plan.checks[i].store->name,
                             r->plan.checks[i].why);
    r->t0_ns = idb_mono_ns();
}

/* The last line of a run on stderr: where its report is, or why there is none. */
static void say_end(const run *r, const char *dir, int failures)
{
    char took[16];
    mx_fmt_duration(r->meta.wall_s, took, sizeof took);
    if (idb_signal_caught())
        mx_progress_note(NULL, "interrupted (%s) after %s: %s/meta.json says which cells ran",
                         strsignal(idb_signal_caught()), took, dir);
    else if (r->report_ok)
        mx_progress_note(NULL, "done in %s: %s/report.md%s", took, dir,
                         failures ? " (with failures: see the report)" : "");
    else
        mx_progress_note(NULL, "failed after %s: no report; %s holds what was written", took,
                         dir);
}

/* Run the matrix into the results directory dir (made); returns the number of failures.
 * meta.json says "running" before the server templates are made (they take seconds), so a
 * run that holds its owner file is seen running. results/latest moves to dir only when the
 * run is complete. */
static int run_matrix(run *r, const char *dir, int default_location)
{
    idb_err err = { 0 };
    if (mx_meta_write(dir, &r->meta, &err) != 0) {
        cli_fail_err(&err);
        return 1;
    }
    mx_templates_make(&r->plan, r->x.scratch);   /* removed with the scratch directory */
    run_all(r);
    int failures = r->meta.n_failures + r->meta_unwritten;
    int complete = !strcmp(r->meta.status, MX_STATUS_COMPLETE) && !r->meta_unwritten;
    if (default_location && complete && point_latest(dir, &err) != 0) {
        mx_progress_note(NULL, "%s", err.msg);
        failures++;
    } else if (default_location && !complete) {
        mx_progress_note(NULL, "results/latest not moved: the run is %s", r->meta.status);
    }
    if (!idb_signal_caught() && mx_index_update(dir, &err) != 0) {
        mx_progress_note(NULL, "%s", err.msg);   /* the index beside it: results/index.html */
        failures++;
    }
    say_end(r, dir, failures);
    if (!idb_signal_caught()) printf("%s\n", dir);
    return failures ? failures : idb_signal_caught() != 0;
}

/* Recover the killed runs (mx_recover) beside the results directory about to be made: in
 * --out's parent, or in results/. */
static void recover_beside(const char *out)
{
    char parent[MX_PATH_MAX];
    mx_parent_dir(out ? out : MX_RUNS_DIR "/x", parent, sizeof parent);
    mx_recover(parent);
}

/* idbench matrix: read and check the files, make the directory, run, plot, report. */
int cmd_matrix(int argc, char **argv)
{
    int quick = 0, first = argc, rc;
    long long repeat = 0, seed = -1;
    const char *out = NULL;
    char command[2048], dir[MX_PATH_MAX];
    for (int i = 0, n = 0; i <= argc && n < (int)sizeof command - 1; i++)
        n += snprintf(command + n, sizeof command - (size_t)n, "%s%s", i ? " " : "",
                      i ? argv[i - 1] : "idbench");
    if ((rc = parse_flags(argc, argv, &quick, &out, &repeat, &seed, &first))) return rc;
    if (idb_signals_catch(IDB_ON_SIGNAL_FLAG) != 0)
        return cli_fail(IDB_EIO, "cannot catch signals: %s", strerror(errno));
    run *r = calloc(1, sizeof *r);
    idb_matrix *m = calloc(1, sizeof *m);
    if (!r || !m) { free(r); free(m); return cli_fail(IDB_ENOMEM, "out of memory"); }
    idb_err err = { 0 };
    rc = load_matrix(m, &r->plan, argv + first, argc - first, quick, repeat, seed, &err);
    if (!rc) recover_beside(out);
    if (!rc) rc = make_results_dir(out, dir, sizeof dir, &err);
    if (!rc && idb_tmpdir_make(r->x.scratch, sizeof r->x.scratch) != 0)
        rc = idb_fail(&err, IDB_EIO, "cannot create a temporary directory: %s", strerror(errno));
    if (!rc) rc = mx_owner_take(dir, r->x.scratch, &err);
    if (rc) {
        mx_plan_free(&r->plan);
        free(r);
        free(m);
        return cli_fail_err(&err);
    }
    r->x.m = m;
    r->x.dir = dir;
    start_meta(r, command, quick);
    int failures = run_matrix(r, dir, !out);
    idb_tmpdir_remove(r->x.scratch);
    mx_owner_release();                          /* after the scratch directory went */
    mx_plan_free(&r->plan);
    free(r);
    free(m);
    idb_signal_die();                            /* after a signal: die of it */
    return failures ? EXIT_RUNTIME : 0;           /* main() checks the writes to stdout */
}

/* idbench plot DIR: re-render the plots and report.md from DIR's files alone. */
int cmd_plot(int argc, char **argv)
{
    if (argc != 2) return cli_usage("plot", "plot takes one results directory");
    const char *dir = argv[1];
    struct stat sb;
    char meta[MX_FILE_MAX];
    snprintf(meta, sizeof meta, "%s/meta.json", dir);
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return cli_fail(IDB_EINPUT, "plot: %s is not a directory", dir);
    if (access(meta, F_OK) != 0)
        return cli_fail(IDB_EINPUT, "plot: %s is not a results directory (no meta.json)", dir);
    idb_err merr = { 0 };
    int mfd = idb_open_input(meta, MX_CSV_BYTES_MAX, IDB_EINPUT, &merr);
    if (mfd < 0) return cli_fail(IDB_EINPUT, "plot: %s", merr.msg);
    close(mfd);
    if (idb_signals_catch(IDB_ON_SIGNAL_FLAG) != 0)
        return cli_fail(IDB_EIO, "cannot catch signals: %s", strerror(errno));
    mx_recover(dir);                             /* its matrix killed: say so in meta.json */
    mx_results res;
    idb_err err = { 0 }, rerr = { 0 };
    if (mx_results_load(&res, dir, &err) != 0) return cli_fail_err(&err);
    int rc = mx_plot_all(&res, &err);
    if (idb_signal_caught()) {                   /* no report: die of the signal */
        mx_results_free(&res);
        idb_signal_die();
    }
    if (rc == IDB_EINPUT) {
        mx_results_free(&res);
        return cli_fail_err(&err);
    }
    note_not_drawn(&res, "plot: ");
    int rc2 = mx_report_write(&res, &rerr);
    mx_results_free(&res);
    if (rc) return cli_fail_err(&err);
    idb_signal_die();                            /* a signal while writing the report */
    return rc2 ? cli_fail_err(&rerr) : 0;
}
