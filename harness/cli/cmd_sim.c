/* cmd_sim.c — the simulator's command:
 *   idbench simulate WORKLOAD.ini... [--seed N] [--strategies a,b] [--format csv|json|table]
 *                    [--set SECTION.KEY=VALUE]... [--timeline FILE] [--jobs N] [-v]
 * Every workload and flag is checked before any simulation starts; results are collected
 * in memory and printed only when every run succeeded, and the timeline file is written
 * to a temporary name and renamed, so a failure never leaves a partial result.
 * The strategies of one workload are independent runs on one stream: --jobs threads
 * (default: the online CPUs, at most SIM_SLOTS) take them in turn, each on its own slot
 * (sim.h), and the rows, timelines and -v lines are written afterwards in the serial order,
 * so the output is the same bytes for every --jobs. A stream above SIM_PARALLEL_MAX_ORDERS
 * runs its strategies one at a time (memory).
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cli.h"
#include "sim.h"

#define MAX_WORKLOADS 64
#define MAX_SETS 32
#define NFIELDS 18
#define NAME_FIELDS 2       /* the first fields, workload and strategy, are text */

static const char *field_names[NFIELDS] = {
    "workload", "strategy", "orders", "duplicates", "failed_orders", "stalled_ms",
    "coord_lat_p50_ms", "coord_lat_p99_ms", "inversion_frac", "shard_monotonic",
    "tail_insert_frac", "id_bytes", "routing", "range_split", "shards", "hot_share",
    "hot_share_p99", "range_splits",
};
/* Text fields besides the names (JSON strings); an empty numeric field is JSON null. */
static const int text_field[NFIELDS] = { [0] = 1, [1] = 1, [12] = 1, [13] = 1 };
static const char *const routing_names[] = { "shop", "range", "hash" };
static const char *const split_names[] = { "space", "sample" };

/* Streams of more orders run their strategies one at a time whatever --jobs says: each run
 * holds about 24-44 bytes an order at its peak (docs/simulator.md, "Memory"), so two at
 * once would double the process's peak (the hour of internet-hour: 8 GiB a run). */
#define SIM_PARALLEL_MAX_ORDERS 50000000

#define CELL_CHARS 64                   /* longest field text, NUL included */
typedef struct cell_row { char v[NFIELDS][CELL_CHARS]; } cell_row;

/* The output fields of r as text, in field_names order. */
static void row_cells(const sim_result *r, cell_row *c)
{
    snprintf(c->v[0], sizeof c->v[0], "%s", r->workload);
    snprintf(c->v[1], sizeof c->v[1], "%s", r->strategy);
    snprintf(c->v[2], sizeof c->v[2], "%lld", (long long)r->orders);
    snprintf(c->v[3], sizeof c->v[3], "%lld", (long long)r->duplicates);
    snprintf(c->v[4], sizeof c->v[4], "%lld", (long long)r->failed_orders);
    snprintf(c->v[5], sizeof c->v[5], "%.3f", r->stalled_ms);
    snprintf(c->v[6], sizeof c->v[6], "%.3f", r->coord_lat_p50_ms);
    snprintf(c->v[7], sizeof c->v[7], "%.3f", r->coord_lat_p99_ms);
    snprintf(c->v[8], sizeof c->v[8], "%.6g", r->inversion_frac);
    snprintf(c->v[9], sizeof c->v[9], "%d", r->shard_monotonic);
    snprintf(c->v[10], sizeof c->v[10], "%.4f", r->tail_insert_frac);
    snprintf(c->v[11], sizeof c->v[11], "%d", r->id_bytes);
    snprintf(c->v[12], sizeof c->v[12], "%s", routing_names[r->routing]);
    snprintf(c->v[13], sizeof c->v[13], "%s",
             r->routing == SIM_ROUTE_RANGE ? split_names[r->range_split] : "");
    snprintf(c->v[14], sizeof c->v[14], "%d", r->shards);
    snprintf(c->v[15], sizeof c->v[15], "%.4f", r->hot_share);
    snprintf(c->v[16], sizeof c->v[16], "%.4f", r->hot_share_p99);
    c->v[17][0] = 0;
    if (r->range_splits >= 0)
        snprintf(c->v[17], sizeof c->v[17], "%lld", (long long)r->range_splits);
}

/* The fields of one row (field_names, or a cell_row's values) as an aligned table line:
 * the two name columns left-aligned, the figures right-aligned, each wd[f] wide. */
static void print_table_line(const char *const *v, const int *wd)
{
    for (int f = 0; f < NFIELDS; f++)
        printf(f < NAME_FIELDS ? "%-*s%s" : "%*s%s", wd[f], v[f], f + 1 < NFIELDS ? "  " : "\n");
}

/* Print rows as csv (with header), a JSON array of objects, or an aligned table. */
static void print_rows(const cell_row *rows, int n, const char *format)
{
    const char *v[NFIELDS];
    if (strcmp(format, "json") == 0) {
        printf("[\n");
        for (int i = 0; i < n; i++) {
            printf("  {");
            for (int f = 0; f < NFIELDS; f++)
                printf(text_field[f] ? "\"%s\": \"%s\"%s" : "\"%s\": %s%s", field_names[f],
                       text_field[f] || rows[i].v[f][0] ? rows[i].v[f] : "null",
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
        print_table_line(field_names, wd);
        for (int i = 0; i < n; i++) {
            for (int f = 0; f < NFIELDS; f++) v[f] = rows[i].v[f];
            print_table_line(v, wd);
        }
        return;
    }
    for (int f = 0; f < NFIELDS; f++)
        printf("%s%s", field_names[f], f + 1 < NFIELDS ? "," : "\n");
    for (int i = 0; i < n; i++)
        for (int f = 0; f < NFIELDS; f++)
            printf("%s%s", rows[i].v[f], f + 1 < NFIELDS ? "," : "\n");
}

#define TIMELINE_HEADER "workload,strategy,t_s,orders,failed_orders,inserts,hot_share," \
                        "shard_shares,ranges\n"

/* Append r's timeline (one line per second) to the open file tl: the orders arriving in
 * the second, the failed ones, the inserts, the largest shard's share of them, each
 * shard's share ("a;b;...", shard 0 first) and (routing = range) the ranges after the
 * second's last insert; the shares are empty in a second without inserts. */
static void timeline_rows(FILE *tl, const sim_result *r)
{
    int64_t ranges = r->ranges ? r->tl_shards : 0;       /* before the first split */
    for (int64_t s = 0; s < r->timeline_n; s++) {
        const uint32_t *c = r->tl_shard + s * r->tl_shards;
        int64_t sum = 0, max = 0;
        for (int k = 0; k < r->tl_shards; k++) {
            sum += c[k];
            max = c[k] > max ? c[k] : max;
        }
        fprintf(tl, "%s,%s,%lld,%lld,%lld,%lld,", r->workload, r->strategy, (long long)s,
                (long long)r->tl_orders[s], (long long)r->tl_failed[s], (long long)sum);
        if (sum) fprintf(tl, "%.6f", (double)max / (double)sum);
        fputc(',', tl);
        for (int k = 0; sum && k < r->tl_shards; k++)
            fprintf(tl, "%s%.6f", k ? ";" : "", (double)c[k] / (double)sum);
        if (r->ranges && r->tl_ranges[s]) ranges = r->tl_ranges[s];
        if (r->ranges) fprintf(tl, ",%lld\n", (long long)ranges);
        else fputs(",\n", tl);
    }
}

typedef struct sim_args {
    const char *paths[MAX_WORKLOADS];
    int npaths;
    const char *sets[MAX_SETS];
    int nsets;
    const char *strategies, *format, *timeline;
    int have_seed, verbose;
    int jobs;                           /* threads running strategies (--jobs) */
    uint64_t seed;
} sim_args;

/* Parse simulate's flags into a. Returns 0 or the exit status after printing an error. */
static int parse_sim_args(int argc, char **argv, sim_args *a)
{
    static const struct option longopts[] = {
        { "seed", required_argument, NULL, 'S' }, { "strategies", required_argument, NULL, 'x' },
        { "format", required_argument, NULL, 'f' }, { "set", required_argument, NULL, 's' },
        { "timeline", required_argument, NULL, 't' }, { "verbose", no_argument, NULL, 'v' },
        { "jobs", required_argument, NULL, 'j' }, { 0 },
    };
    memset(a, 0, sizeof *a);
    a->format = "csv";
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    a->jobs = cpus < 1 ? 1 : cpus > SIM_SLOTS ? SIM_SLOTS : (int)cpus;
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
            if (a->nsets == MAX_SETS)
                return cli_fail(IDB_EINPUT, "too many --set flags (at most %d)", MAX_SETS);
            a->sets[a->nsets++] = optarg;
            break;
        case 't': a->timeline = optarg; break;
        case 'j': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (!*optarg || *end || v < 1 || v > SIM_SLOTS)
                return cli_fail(IDB_EINPUT, "--jobs: '%s' is not an integer in 1..%d", optarg,
                                SIM_SLOTS);
            a->jobs = (int)v;
            break;
        }
        case 'v': a->verbose = 1; break;
        default:
            return cli_usage("simulate", "simulate: unknown flag or missing value '%s'",
                             argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage("simulate", "simulate needs at least one workload file");
    if (argc - optind > MAX_WORKLOADS)
        return cli_fail(IDB_EINPUT, "too many workload files (at most %d)", MAX_WORKLOADS);
    for (int i = optind; i < argc; i++) a->paths[a->npaths++] = argv[i];
    return 0;
}

/* The workloads of a run, loaded and checked, and the strategies each one runs. */
typedef struct sim_plan {
    sim_workload *w;                                /* one per workload file */
    const idb_strategy *(*sts)[SIM_MAX_STRATEGIES]; /* sts[i]: workload i's strategies */
    int *nst;                                       /* nst[i]: how many */
    int total;                                      /* sum of nst: rows of output */
} sim_plan;

/* Free what plan_load allocated (p may be partly filled). */
static void plan_free(sim_plan *p)
{
    free(p->w);
    free(p->sts);
    free(p->nst);
}

/* Load every workload of a with the --set flags (checked once all are applied, so their
 * order does not matter) and --seed, and pick its strategies, before anything runs.
 * Returns 0, or the exit status after printing an error (*p is then still to be freed
 * with plan_free). */
static int plan_load(const sim_args *a, sim_plan *p)
{
    idb_err err = { 0 };
    p->w = calloc((size_t)a->npaths, sizeof *p->w);
    p->sts = calloc((size_t)a->npaths, sizeof *p->sts);
    p->nst = calloc((size_t)a->npaths, sizeof *p->nst);
    p->total = 0;
    if (!p->w || !p->sts || !p->nst) return cli_fail(IDB_ENOMEM, "out of memory");
    for (int i = 0; i < a->npaths; i++) {
        sim_workload *w = &p->w[i];
        if (sim_workload_load_set(a->paths[i], a->sets, a->nsets, w, &err) != 0)
            return cli_fail_err(&err);
        if (a->have_seed) w->seed = a->seed;
        p->nst[i] = sim_workload_strategies(w, a->strategies, p->sts[i], &err);
        if (p->nst[i] < 0) return cli_fail_err(&err);
        p->total += p->nst[i];
    }
    return 0;
}

/* The strategies of one workload, shared by the threads that run them. */
typedef struct sim_batch {
    const sim_workload *w;
    const sim_stream *s;
    const idb_strategy *const *sts;
    int nst, timeline;
    atomic_int next;                    /* the next strategy to take */
    sim_result *res;                    /* per strategy: its result */
    idb_err *err;                       /* per strategy: its error */
    int *rc;                            /* per strategy: sim_run's return */
} sim_batch;

typedef struct sim_worker {
    sim_batch *b;
    int slot;
} sim_worker;

/* A thread: take the next strategy of the batch until none is left, each run on the
 * thread's slot (its own counter server) with its own result and error. */
static void *batch_worker(void *arg)
{
    sim_worker *wk = arg;
    sim_batch *b = wk->b;
    for (int k; (k = atomic_fetch_add(&b->next, 1)) < b->nst;) {
        sim_run_opts o = { .timeline = b->timeline, .slot = wk->slot };
        b->rc[k] = sim_run(b->w, b->s, b->sts[k], &o, &b->res[k], &b->err[k]);
    }
    return NULL;
}

/* Run the batch on up to jobs threads, the caller's among them (slot 0); a thread that
 * cannot be started leaves its share to those that did. */
static void batch_run(sim_batch *b, int jobs)
{
    if (jobs > b->nst) jobs = b->nst;
    if (jobs < 1) jobs = 1;
    sim_worker wk[SIM_SLOTS];
    pthread_t th[SIM_SLOTS];
    int started = 0;
    for (int i = 1; i < jobs; i++) {
        wk[i] = (sim_worker){ .b = b, .slot = i };
        if (pthread_create(&th[i], NULL, batch_worker, &wk[i]) != 0) break;
        started = i;
    }
    wk[0] = (sim_worker){ .b = b, .slot = 0 };
    batch_worker(&wk[0]);
    for (int i = 1; i <= started; i++) pthread_join(th[i], NULL);
}

/* Run every strategy of workload w on one stream of arrivals, a->jobs at a time: a row
 * each into rows (from *nrows on), its timeline into tl when not NULL, in the strategies'
 * order. Returns 0 or the exit status after printing an error (the first strategy's, in
 * that order, that failed). */
static int run_workload(const sim_args *a, const sim_workload *w,
                        const idb_strategy *const *sts, int nst, FILE *tl,
                        cell_row *rows, int *nrows)
{
    idb_err err = { 0 };
    sim_stream s;
    int rc = 0;
    if (sim_stream_open(w, &s, &err) != 0) return cli_fail_err(&err);
    sim_batch b = { .w = w, .s = &s, .sts = sts, .nst = nst, .timeline = tl != NULL };
    atomic_init(&b.next, 0);
    b.res = calloc((size_t)(nst > 0 ? nst : 1), sizeof *b.res);
    b.err = calloc((size_t)(nst > 0 ? nst : 1), sizeof *b.err);
    b.rc = calloc((size_t)(nst > 0 ? nst : 1), sizeof *b.rc);
    if (!b.res || !b.err || !b.rc) {
        rc = cli_fail(IDB_ENOMEM, "out of memory");
        goto out;
    }
    batch_run(&b, s.n > SIM_PARALLEL_MAX_ORDERS ? 1 : a->jobs);
    for (int k = 0; k < nst && rc == 0; k++) {
        if (b.rc[k] != 0) {
            /* every input was checked before the first run: a refusal now comes from what the
             * simulator itself gave a strategy, so it is a runtime failure, not bad input */
            rc = cli_fail(b.err[k].code == IDB_EINPUT ? IDB_EIO : b.err[k].code, "%s: %s",
                          w->name, b.err[k].msg);
            break;
        }
        const sim_result *r = &b.res[k];
        row_cells(r, &rows[(*nrows)++]);
        if (tl) timeline_rows(tl, r);
        if (a->verbose)
            fprintf(stderr, "simulate: %s/%s: %lld orders in %.3f s wall, %.3f s CPU = %.0f "
                    "orders per CPU second\n", w->name, r->strategy, (long long)r->orders,
                    r->wall_s, r->cpu_s, r->cpu_s > 0 ? (double)r->orders / r->cpu_s : 0);
    }
    for (int k = 0; k < nst; k++) sim_result_free(&b.res[k]);
out:
    free(b.res);
    free(b.err);
    free(b.rc);
    sim_stream_free(&s);
    return rc;
}

/* idbench simulate: every workload x strategy, one row each. */
int cmd_simulate(int argc, char **argv)
{
    sim_args a;
    sim_plan p = { 0 };
    int rc = parse_sim_args(argc, argv, &a);
    if (rc) return rc;
    if ((rc = plan_load(&a, &p)) != 0) goto out;
    cell_row *rows = calloc((size_t)p.total, sizeof *rows);
    idb_atomic tla;
    FILE *tl = NULL;
    if (!rows) { rc = cli_fail(IDB_ENOMEM, "out of memory"); goto out; }
    if (a.timeline) {
        tl = idb_atomic_open(&tla, a.timeline);
        if (!tl) {
            rc = cli_fail(IDB_EIO, "--timeline %s: cannot write: %s", a.timeline,
                          strerror(errno));
            goto out_rows;
        }
        fputs(TIMELINE_HEADER, tl);
    }
    int nrows = 0;
    for (int i = 0; i < a.npaths && rc == 0; i++)
        rc = run_workload(&a, &p.w[i], p.sts[i], p.nst[i], tl, rows, &nrows);
    if (tl && idb_atomic_commit(&tla, rc != 0) != 0 && rc == 0)
        rc = cli_fail(IDB_EIO, "--timeline %s: cannot write: %s", a.timeline, strerror(errno));
    if (rc == 0) {
        print_rows(rows, nrows, a.format);
        /* rows larger than stdio's buffer: a write that failed while printing them has left
         * its reason in errno, which main()'s later check would no longer see */
        if (fflush(stdout) != 0 || ferror(stdout)) rc = cli_stdout_failed(errno);
    }
out_rows:
    free(rows);
out:
    plan_free(&p);
    return rc;
}
