/* cmd_sim.c — the simulator's command:
 *   idbench simulate WORKLOAD.ini... [--seed N] [--strategies a,b] [--format csv|json|table]
 *                    [--set SECTION.KEY=VALUE]... [--timeline FILE] [-v]
 * Every workload and flag is checked before any simulation starts; results are collected
 * in memory and printed only when every run succeeded, and the timeline file is written
 * to a temporary name and renamed, so a failure never leaves a partial result.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cli.h"
#include "sim.h"

#define MAX_WORKLOADS 64
#define MAX_SETS 32
#define NFIELDS 12

static const char *field_names[NFIELDS] = {
    "workload", "strategy", "orders", "duplicates", "failed_orders", "stalled_ms",
    "coord_lat_p50_ms", "coord_lat_p99_ms", "inversion_frac", "shard_monotonic",
    "tail_insert_frac", "id_bytes",
};

typedef struct cell_row { char v[NFIELDS][64]; } cell_row;

/* The output fields of r as text, in field_names order. */
static void row_cells(const sim_result *r, cell_row *c)
{
    snprintf(c->v[0], 64, "%s", r->workload);
    snprintf(c->v[1], 64, "%s", r->strategy);
    snprintf(c->v[2], 64, "%lld", (long long)r->orders);
    snprintf(c->v[3], 64, "%lld", (long long)r->duplicates);
    snprintf(c->v[4], 64, "%lld", (long long)r->failed_orders);
    snprintf(c->v[5], 64, "%.3f", r->stalled_ms);
    snprintf(c->v[6], 64, "%.3f", r->coord_lat_p50_ms);
    snprintf(c->v[7], 64, "%.3f", r->coord_lat_p99_ms);
    snprintf(c->v[8], 64, "%.6g", r->inversion_frac);
    snprintf(c->v[9], 64, "%d", r->shard_monotonic);
    snprintf(c->v[10], 64, "%.4f", r->tail_insert_frac);
    snprintf(c->v[11], 64, "%d", r->id_bytes);
}

/* Print rows as csv (with header), a JSON array of objects, or an aligned table. */
static void print_rows(const cell_row *rows, int n, const char *format)
{
    if (strcmp(format, "json") == 0) {
        printf("[\n");
        for (int i = 0; i < n; i++) {
            printf("  {");
            for (int f = 0; f < NFIELDS; f++)
                printf(f < 2 ? "\"%s\": \"%s\"%s" : "\"%s\": %s%s", field_names[f], rows[i].v[f],
                       f + 1 < NFIELDS ? ", " : "");
            printf("}%s\n", i + 1 < n ? "," : "");
        }
        printf("]\n");
        return;
    }
    if (strcmp(format, "table") == 0) {
        int wd[NFIELDS];
        for (int f = 0; f < NFIELDS; f++) {
            wd[f] = (int)strlen(field_names[f]);
            for (int i = 0; i < n; i++)
                if ((int)strlen(rows[i].v[f]) > wd[f]) wd[f] = (int)strlen(rows[i].v[f]);
        }
        for (int f = 0; f < NFIELDS; f++)
            printf(f < 2 ? "%-*s%s" : "%*s%s", wd[f], field_names[f], f + 1 < NFIELDS ? "  " : "\n");
        for (int i = 0; i < n; i++)
            for (int f = 0; f < NFIELDS; f++)
                printf(f < 2 ? "%-*s%s" : "%*s%s", wd[f], rows[i].v[f], f + 1 < NFIELDS ? "  " : "\n");
        return;
    }
    for (int f = 0; f < NFIELDS; f++) printf("%s%s", field_names[f], f + 1 < NFIELDS ? "," : "\n");
    for (int i = 0; i < n; i++)
        for (int f = 0; f < NFIELDS; f++) printf("%s%s", rows[i].v[f], f + 1 < NFIELDS ? "," : "\n");
}

/* Append r's timeline (one line per second) to the open file tl. */
static void timeline_rows(FILE *tl, const sim_result *r)
{
    for (int64_t s = 0; s < r->timeline_n; s++)
        fprintf(tl, "%s,%s,%lld,%lld,%lld\n", r->workload, r->strategy, (long long)s,
                (long long)r->tl_orders[s], (long long)r->tl_failed[s]);
}

typedef struct sim_args {
    const char *paths[MAX_WORKLOADS];
    int npaths;
    const char *sets[MAX_SETS];
    int nsets;
    const char *strategies, *format, *timeline;
    int have_seed, verbose;
    uint64_t seed;
} sim_args;

/* Parse simulate's flags into a. Returns 0 or the exit status after printing an error. */
static int parse_sim_args(int argc, char **argv, sim_args *a)
{
    static const struct option longopts[] = {
        { "seed", required_argument, NULL, 'S' }, { "strategies", required_argument, NULL, 'x' },
        { "format", required_argument, NULL, 'f' }, { "set", required_argument, NULL, 's' },
        { "timeline", required_argument, NULL, 't' }, { "verbose", no_argument, NULL, 'v' },
        { 0 },
    };
    memset(a, 0, sizeof *a);
    a->format = "csv";
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "v", longopts, NULL)) != -1) {
        switch (c) {
        case 'S': {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (!*optarg || *optarg < '0' || *optarg > '9' || *end || errno == ERANGE)
                return cli_fail(IDB_EINPUT, "--seed: '%s' is not an unsigned integer", optarg);
            a->seed = v;
            a->have_seed = 1;
            break;
        }
        case 'x': a->strategies = optarg; break;
        case 'f':
            if (strcmp(optarg, "csv") && strcmp(optarg, "json") && strcmp(optarg, "table"))
                return cli_fail(IDB_EINPUT, "--format: '%s' is not csv, json or table", optarg);
            a->format = optarg;
            break;
        case 's':
            if (a->nsets == MAX_SETS) return cli_fail(IDB_EINPUT, "too many --set flags (at most %d)", MAX_SETS);
            a->sets[a->nsets++] = optarg;
            break;
        case 't': a->timeline = optarg; break;
        case 'v': a->verbose = 1; break;
        default:
            return cli_usage("simulate", "simulate: unknown flag or missing value '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage("simulate", "simulate needs at least one workload file");
    if (argc - optind > MAX_WORKLOADS)
        return cli_fail(IDB_EINPUT, "too many workload files (at most %d)", MAX_WORKLOADS);
    for (int i = optind; i < argc; i++) a->paths[a->npaths++] = argv[i];
    return 0;
}

/* idbench simulate: every workload x strategy, one row each. */
int cmd_simulate(int argc, char **argv)
{
    sim_args a;
    int rc = parse_sim_args(argc, argv, &a);
    if (rc) return rc;
    idb_err err = { 0 };
    sim_workload *w = calloc((size_t)a.npaths, sizeof *w);
    const idb_strategy *(*sts)[SIM_MAX_STRATEGIES] = calloc((size_t)a.npaths, sizeof *sts);
    int *nst = calloc((size_t)a.npaths, sizeof *nst), total = 0;
    if (!w || !sts || !nst) { rc = cli_fail(IDB_ENOMEM, "out of memory"); goto out; }
    for (int i = 0; i < a.npaths; i++) {            /* check everything before running */
        if (sim_workload_load(a.paths[i], &w[i], &err) != 0) { rc = cli_fail_err(&err); goto out; }
        for (int k = 0; k < a.nsets; k++)
            if (sim_workload_set(&w[i], a.sets[k], &err) != 0) { rc = cli_fail_err(&err); goto out; }
        if (a.have_seed) w[i].seed = a.seed;
        nst[i] = sim_workload_strategies(&w[i], a.strategies, sts[i], &err);
        if (nst[i] < 0) { rc = cli_fail_err(&err); goto out; }
        total += nst[i];
    }
    cell_row *rows = calloc((size_t)total, sizeof *rows);
    idb_atomic tla;
    FILE *tl = NULL;
    if (!rows) { rc = cli_fail(IDB_ENOMEM, "out of memory"); goto out; }
    if (a.timeline) {
        tl = idb_atomic_open(&tla, a.timeline);
        if (!tl) { rc = cli_fail(IDB_EIO, "--timeline %s: cannot write: %s", a.timeline, strerror(errno)); goto out_rows; }
        fprintf(tl, "workload,strategy,t_s,orders,failed_orders\n");
    }
    int nrows = 0;
    for (int i = 0; i < a.npaths && rc == 0; i++) {
        sim_stream s;
        if (sim_stream_make(&w[i], &s, &err) != 0) { rc = cli_fail_err(&err); break; }
        for (int k = 0; k < nst[i]; k++) {
            sim_result r;
            sim_run_opts o = { .timeline = tl != NULL };
            if (sim_run(&w[i], &s, sts[i][k], &o, &r, &err) != 0) {
                rc = cli_fail(err.code == IDB_EINPUT ? IDB_EIO : err.code, "%s: %s", w[i].name, err.msg);
                break;
            }
            row_cells(&r, &rows[nrows++]);
            if (tl) timeline_rows(tl, &r);
            if (a.verbose)
                fprintf(stderr, "simulate: %s/%s: %lld orders in %.3f s wall, %.3f s CPU = %.0f orders "
                        "per CPU second\n", w[i].name, r.strategy, (long long)r.orders, r.wall_s, r.cpu_s,
                        r.cpu_s > 0 ? (double)r.orders / r.cpu_s : 0);
            sim_result_free(&r);
        }
        sim_stream_free(&s);
    }
    if (tl && idb_atomic_commit(&tla, rc != 0) != 0 && rc == 0)
        rc = cli_fail(IDB_EIO, "--timeline %s: cannot write: %s", a.timeline, strerror(errno));
    if (rc == 0) {
        print_rows(rows, nrows, a.format);
        if (fflush(stdout) != 0) rc = cli_fail(IDB_EIO, "cannot write the results to stdout");
    }
out_rows:
    free(rows);
out:
    free(w);
    free(sts);
    free(nst);
    return rc;
}

