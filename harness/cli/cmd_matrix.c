/* cmd_matrix.c — `idbench matrix` and `idbench plot` (see matrix.h for the pieces).
 *
 *   idbench matrix [MATRIX.ini...] [--quick] [--out DIR] [--repeat N] [--seed N]
 *   idbench plot RESULTS_DIR
 *
 * matrix reads and checks every matrix file first (a bad one: exit 2, nothing written),
 * then makes the results directory (results/<UTC time>/ or --out DIR, which must be new
 * or empty), runs every cell in its own child process, rewrites each results file as
 * cells finish, renders the plots and the report, and points results/latest at the new
 * directory (default location only). Exit status 0 when every cell and plot succeeded,
 * 1 when any failed (the rest is kept), 2 for bad input. The results directory's path
 * is printed on stdout; progress goes to stderr.
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
#include "tmpdir.h"

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
 * results/<UTC time> (a suffix -2, -3... when taken). Returns 0 or an exit status after
 * an error line. Creates nothing but that directory (and results/). */
static int make_results_dir(const char *want, char *out, size_t len)
{
    if (want) {
        struct stat sb;
        if (strlen(want) + 64 > len) return cli_fail(IDB_EINPUT, "--out %s: path too long", want);
        if (stat(want, &sb) == 0) {
            if (!S_ISDIR(sb.st_mode)) return cli_fail(IDB_EINPUT, "--out %s: exists and is not a directory", want);
            if (!dir_is_empty(want)) return cli_fail(IDB_EINPUT, "--out %s: exists and is not empty (give a new directory)", want);
            if (access(want, W_OK | X_OK) != 0) return cli_fail(IDB_EINPUT, "--out %s: not writable", want);
        } else if (mkdir(want, 0777) != 0) {
            return cli_fail(IDB_EINPUT, "--out %s: cannot create: %s", want, strerror(errno));
        }
        snprintf(out, len, "%s", want);
        return 0;
    }
    if (mkdir("results", 0777) != 0 && errno != EEXIST)
        return cli_fail(IDB_EINPUT, "cannot create results/: %s", strerror(errno));
    char stamp[40];
    utc_now(stamp, sizeof stamp, 1);
    for (int i = 1; i < 100; i++) {
        if (i == 1) snprintf(out, len, "results/%s", stamp);
        else snprintf(out, len, "results/%s-%d", stamp, i);
        if (mkdir(out, 0777) == 0) return 0;
        if (errno != EEXIST) return cli_fail(IDB_EINPUT, "cannot create %s: %s", out, strerror(errno));
    }
    return cli_fail(IDB_EINPUT, "cannot find a free name for results/%s", stamp);
}

/* Point results/latest at results/NAME: a symlink made under a temporary name, then
 * renamed over the old one. Returns 0 or -1. */
static int point_latest(const char *dir)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, "results/.latest-%ld", (long)getpid());
    unlink(tmp);
    if (symlink(dir + strlen("results/"), tmp) != 0) return -1;
    if (rename(tmp, "results/latest") != 0) { unlink(tmp); return -1; }
    return 0;
}

/* The running matrix: what the phases share. */
typedef struct run {
    mx_ctx x;
    mx_plan plan;
    mx_progress pr;
    mx_meta meta;
    char seed[32];
    int64_t t0_ns;
} run;

/* argv for exec'd cell c into av (strings live in r, buf). Returns the stdout path. */
static const char *cell_argv(run *r, const mx_cell *c, char **av, char bufs[][1100], int *n)
{
    const idb_matrix *m = r->x.m;
    static char set_copy[1024];
    int k = 0, b = 0;
    av[k++] = "idbench";
    switch (c->kind) {
    case MX_GEN:
        av[k++] = "bench";
        snprintf(bufs[b], 1100, "--benchmark_out=%s/generation.json.tmp", r->x.dir); av[k++] = bufs[b++];
        av[k++] = "--benchmark_out_format=json";
        av[k++] = "--benchmark_format=csv";
        snprintf(bufs[b], 1100, "--benchmark_min_time=%g", m->gen_min_time); av[k++] = bufs[b++];
        snprintf(bufs[b], 1100, "--benchmark_repetitions=%lld", (long long)m->repeat); av[k++] = bufs[b++];
        snprintf(bufs[b], 1100, "%s/gb.csv", r->x.scratch);
        *n = k;
        av[k] = NULL;
        return bufs[b];
    case MX_SIM: case MX_SKEW:
        av[k++] = "simulate";
        av[k++] = (char *)c->workload;
        av[k++] = "--seed";
        snprintf(r->seed, sizeof r->seed, "%lld", (long long)m->seed); av[k++] = r->seed;
        av[k++] = "--format";
        av[k++] = "csv";
        if (m->sim_strategies[0]) { av[k++] = "--strategies"; av[k++] = (char *)m->sim_strategies; }
        snprintf(set_copy, sizeof set_copy, "%s", m->sim_set);
        for (char *save = NULL, *t = strtok_r(set_copy, " \t", &save); t && k < 60; t = strtok_r(NULL, " \t", &save)) {
            av[k++] = "--set";
            av[k++] = t;
        }
        if (c->kind == MX_SKEW) {
            av[k++] = "--set";
            snprintf(bufs[b], 1100, "clock.skew_ms=%g", c->skew_ms); av[k++] = bufs[b++];
        }
        if (c->timeline) {
            av[k++] = "--timeline";
            snprintf(bufs[b], 1100, "%s/timeline.csv", r->x.scratch); av[k++] = bufs[b++];
        }
        snprintf(bufs[b], 1100, "%s/sim.csv", r->x.scratch);
        break;
    case MX_CLAIMS:
        av[k++] = "claims";
        if (m->claims_quick) av[k++] = "--quick";
        snprintf(bufs[b], 1100, "%s/claims.md.tmp", r->x.dir);
        break;
    default:
        av[k] = NULL;
        *n = k;
        return NULL;
    }
    av[k] = NULL;
    *n = k;
    return bufs[b];
}

/* After cell c succeeded: move its output into the results files. Returns 0, or -1 with
 * c->error filled (the cell then counts as failed). */
static int collect(run *r, mx_cell *c, const char *out)
{
    idb_err err = { 0 };
    char path[1100], src[1200];
    int rc = 0;
    switch (c->kind) {
    case MX_GEN:
        snprintf(path, sizeof path, "%s/generation.json", r->x.dir);
        snprintf(src, sizeof src, "%s.tmp", path);
        if (rename(src, path) != 0) rc = idb_fail(&err, IDB_EIO, "no generation.json: %s", strerror(errno));
        else rc = mx_write_generation(r->x.dir, out, &err);
        break;
    case MX_INSERT: rc = mx_write_insert(&r->x, &r->plan, &err); break;
    case MX_CURVE: rc = mx_write_curve(&r->x, &r->plan, &err); break;
    case MX_SIM: case MX_SKEW: {
        char val[32];
        snprintf(val, sizeof val, "%g", c->skew_ms);
        snprintf(path, sizeof path, "%s/%s.csv", r->x.dir, c->kind == MX_SIM ? "simulate" : "skew");
        rc = mx_append_csv(path, out, c->kind == MX_SKEW ? "skew_ms" : NULL, val, &err);
        if (!rc && c->timeline) {
            snprintf(path, sizeof path, "%s/timeline.csv", r->x.dir);
            snprintf(src, sizeof src, "%s/timeline.csv", r->x.scratch);
            rc = mx_append_csv(path, src, NULL, NULL, &err);
        }
        break;
    }
    case MX_CLAIMS:
        snprintf(path, sizeof path, "%s/claims.md", r->x.dir);
        if (rename(out, path) != 0) rc = idb_fail(&err, IDB_EIO, "no claims.md: %s", strerror(errno));
        break;
    default: break;
    }
    if (rc) snprintf(c->error, sizeof c->error, "%s", err.msg);
    return rc ? -1 : 0;
}

/* Record a failure (cell label and why) in the meta. */
static void add_failure(mx_meta *meta, const char *label, const char *why)
{
    if (meta->n_failures < (int)(sizeof meta->failures / sizeof *meta->failures))
        snprintf(meta->failures[meta->n_failures++], sizeof meta->failures[0], "%s: %s", label, why);
}

/* The run's end in the meta: failed cells, finish time, wall time. */
static void finish_meta(run *r)
{
    r->meta.cells_failed = 0;
    for (int i = 0; i < r->plan.n; i++) r->meta.cells_failed += r->plan.cells[i].status < 0;
    utc_now(r->meta.finished, sizeof r->meta.finished, 0);
    r->meta.wall_s = (double)(idb_mono_ns() - r->t0_ns) / 1e9;
}

/* Run every cell, then the plots and the report. Returns the number of failures. */
static int run_all(run *r)
{
    mx_progress_start(&r->pr, &r->plan);
    char est[16];
    mx_fmt_duration(mx_estimate(&r->plan), est, sizeof est);
    mx_progress_note(NULL, "%d cells, first guess %s; results in %s", r->plan.n, est, r->x.dir);
    for (int i = 0; i < r->plan.n; i++) {
        mx_cell *c = &r->plan.cells[i];
        char *av[80], bufs[6][1100];
        int n;
        const char *out = cell_argv(r, c, av, bufs, &n);
        mx_progress_cell(&r->pr, i);
        mx_cell_run(&r->x, c, av, out, mx_progress_tick, &r->pr);
        if (c->status == 1 && collect(r, c, out) != 0) c->status = -1;
        if (c->status < 0) {
            add_failure(&r->meta, c->label, c->error);
            if (c->kind == MX_GEN || c->kind == MX_CLAIMS) {     /* no half-written file left */
                char tmp[1200];
                snprintf(tmp, sizeof tmp, "%s/%s.tmp", r->x.dir, c->kind == MX_GEN ? "generation.json" : "claims.md");
                unlink(tmp);
            }
        }
        mx_progress_end_cell(&r->pr, i);
    }
    mx_progress_finish(&r->pr);
    finish_meta(r);                                  /* the report reads the failures from it */
    if (mx_meta_write(r->x.dir, &r->meta) != 0) mx_progress_note(NULL, "cannot write meta.json: %s", strerror(errno));
    int ok[MX_PLOTS];
    char why[MX_PLOTS][256];
    idb_err err = { 0 };
    if (mx_plot_all(r->x.dir, ok, why, &err) != 0) {
        mx_progress_note(NULL, "plots: %s", err.msg);
        add_failure(&r->meta, "plots", err.msg);
    }
    for (int i = 0; i < MX_PLOTS; i++)
        if (!ok[i]) mx_progress_note(NULL, "plot %s not drawn: %s", mx_plot_names[i], why[i]);
    if (mx_report_write(r->x.dir, ok, why, &err) != 0) {
        mx_progress_note(NULL, "report: %s", err.msg);
        add_failure(&r->meta, "report", err.msg);
    }
    return r->meta.n_failures;
}

/* idbench matrix: read and check the files, make the directory, run, plot, report. */
int cmd_matrix(int argc, char **argv)
{
    enum { O_QUICK = 256, O_OUT, O_REPEAT, O_SEED };
    static const struct option longopts[] = {
        { "quick", no_argument, 0, O_QUICK }, { "out", required_argument, 0, O_OUT },
        { "repeat", required_argument, 0, O_REPEAT }, { "seed", required_argument, 0, O_SEED }, { 0 },
    };
    int quick = 0, c, rc;
    long long repeat = 0, seed = -1;
    const char *out = NULL;
    char command[2048];
    for (int i = 0, n = 0; i <= argc && n < (int)sizeof command - 1; i++)
        n += snprintf(command + n, sizeof command - (size_t)n, "%s%s", i ? " " : "", i ? argv[i - 1] : "idbench");
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_QUICK: quick = 1; break;
        case O_OUT: out = optarg; break;
        case O_REPEAT: if ((rc = cli_parse_count("--repeat", optarg, 1, 100, &repeat))) return rc; break;
        case O_SEED: if ((rc = cli_parse_count("--seed", optarg, 0, INT64_MAX, &seed))) return rc; break;
        default: return cli_usage("matrix", "matrix: unknown flag or missing value '%s'", argv[optind - 1]);
        }
    }
    run *r = calloc(1, sizeof *r);
    idb_matrix *m = calloc(1, sizeof *m);
    if (!r || !m) { free(r); free(m); return cli_fail(IDB_ENOMEM, "out of memory"); }
    mx_defaults(m);
    idb_err err = { 0 };
    char def[MX_PATH_MAX];
    snprintf(def, sizeof def, "%s/workloads/matrix.ini", mx_source_dir());
    rc = 0;
    if (optind == argc) rc = mx_load_file(m, def, &err);
    for (int i = optind; i < argc && !rc; i++) rc = mx_load_file(m, argv[i], &err);
    if (!rc) rc = mx_finish(m, quick, &err);
    if (!rc) {
        if (repeat) m->repeat = repeat;
        if (seed >= 0) m->seed = seed;
        rc = mx_plan_make(m, &r->plan, &err);
    }
    if (rc) { free(r); free(m); return cli_fail_err(&err); }

    char dir[1100];
    if ((rc = make_results_dir(out, dir, sizeof dir)) != 0) { mx_plan_free(&r->plan); free(r); free(m); return rc; }
    r->x.m = m;
    r->x.dir = dir;
    if (idb_tmpdir_make(r->x.scratch, sizeof r->x.scratch) != 0) {
        mx_plan_free(&r->plan); free(r); free(m);
        return cli_fail(IDB_EIO, "cannot create a temporary directory: %s", strerror(errno));
    }
    mx_meta *meta = &r->meta;
    snprintf(meta->command, sizeof meta->command, "%s", command);
    for (int i = 0, n = 0; i < m->n_files; i++)
        n += snprintf(meta->files + n, sizeof meta->files - (size_t)n, "%s%s", i ? " " : "", m->files[i]);
    utc_now(meta->started, sizeof meta->started, 0);
    meta->seed = m->seed;
    meta->repeat = m->repeat;
    meta->quick = quick;
    meta->cells = r->plan.n;
    r->t0_ns = idb_mono_ns();
    int failures = 0;
    if (mx_meta_write(dir, meta) != 0) {
        failures = 1;
        cli_fail(IDB_EIO, "cannot write %s/meta.json: %s", dir, strerror(errno));
    } else {
        failures = run_all(r);
        finish_meta(r);
        if (mx_meta_write(dir, meta) != 0) { failures++; mx_progress_note(NULL, "cannot write meta.json: %s", strerror(errno)); }
        if (!out && point_latest(dir) != 0) mx_progress_note(NULL, "cannot point results/latest at %s: %s", dir, strerror(errno));
        char took[16];
        mx_fmt_duration(meta->wall_s, took, sizeof took);
        mx_progress_note(NULL, "done in %s: %s/report.md%s", took, dir, failures ? " (with failures: see the report)" : "");
        printf("%s\n", dir);
    }
    idb_tmpdir_remove(r->x.scratch);
    mx_plan_free(&r->plan);
    free(r);
    free(m);
    if (failures) return fflush(stdout), EXIT_RUNTIME;
    return fflush(stdout) == 0 ? 0 : cli_fail(IDB_EIO, "cannot write to stdout");
}

/* idbench plot DIR: re-render the plots and report.md from DIR's files alone. */
int cmd_plot(int argc, char **argv)
{
    if (argc != 2) return cli_usage("plot", "plot takes one results directory");
    const char *dir = argv[1];
    struct stat sb;
    char meta[1100];
    snprintf(meta, sizeof meta, "%s/meta.json", dir);
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) return cli_fail(IDB_EINPUT, "plot: %s is not a directory", dir);
    if (access(meta, R_OK) != 0) return cli_fail(IDB_EINPUT, "plot: %s is not a results directory (no meta.json)", dir);
    int ok[MX_PLOTS];
    char why[MX_PLOTS][256];
    idb_err err = { 0 };
    int rc = mx_plot_all(dir, ok, why, &err);
    if (rc == IDB_EINPUT) return cli_fail_err(&err);
    for (int i = 0; i < MX_PLOTS; i++)
        if (!ok[i]) fprintf(stderr, "plot: %s not drawn: %s\n", mx_plot_names[i], why[i]);
    idb_err err2 = { 0 };
    int rc2 = mx_report_write(dir, ok, why, &err2);
    if (rc) return cli_fail_err(&err);
    if (rc2) return cli_fail_err(&err2);
    return 0;
}
