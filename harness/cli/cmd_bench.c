/* cmd_bench.c — idbench bench: ID generation benchmarks through Google Benchmark.
 *
 * Registers gen/<strategy> for every strategy in the registry (1 and 2 threads sharing
 * one instance), the counter servers' cells gen/counter@postgres, gen/counter@redis and
 * gen/segment@postgres (1, 2 and 4 threads sharing one instance, so one connection each,
 * on one private server per backend started for the run; left out with a note on stderr
 * when the filter does not ask for them or the server packages are missing; segment's
 * block size is said on stderr: a counter of one benchmark only breaks Google Benchmark's
 * CSV reporter, which wants every counter in every run), the reference
 * baseline/clock_realtime (one clock_gettime, the floor for any time-based ID), and, when
 * built with them, the peers peer/libuuid_v4 (uuid_generate_random) and peer/libbson_oid
 * (bson_oid_init). Flags are Google
 * Benchmark's own (--benchmark_filter, --benchmark_min_time, --benchmark_out=FILE
 * --benchmark_out_format=json, ...).
 */
#include <limits.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "ctrsrv.h"
#include "keys.h"
#include "strategy.h"
#include "tmpdir.h"

#ifdef IDB_HAVE_LIBUUID
#include <uuid/uuid.h>
#endif
#ifdef IDB_HAVE_LIBBSON
#include <bson/bson.h>
#endif

#define BATCH 64
#define GEN_THREADS 2            /* gen/<strategy> runs at 1 and at this many threads */
#define BENCH_NAME_MAX 128       /* a benchmark's name with Google Benchmark's suffixes */
/* segment@postgres's block: big enough that the spare arrives (one round trip, ~0.1-1 ms)
 * before 90% of a block is used at local speed (~20 ns an ID), as Leaf sizes its step. */
#define SEGMENT_BLOCK 100000
#define SEGMENT_BLOCK_KV "block=100000"
#define SERVER_THREADS 4         /* the counter servers' cells run at 1, 2 and 4 threads */

typedef struct gen_bench {
    const idb_strategy *s;
    void *inst;
    int64_t block;               /* segment's block size, reported; 0: none */
} gen_bench;

/* The counter servers' cells: name, strategy, the option that picks the server. */
static const struct server_cell {
    const char *name, *strategy, *backend_kv, *extra_kv;
    int64_t block;
} server_cells[] = {
    { "gen/counter@postgres", "counter", "backend=postgres", NULL, 0 },
    { "gen/counter@redis", "counter", "backend=redis", NULL, 0 },
    { "gen/segment@postgres", "segment", "backend=postgres", SEGMENT_BLOCK_KV, SEGMENT_BLOCK },
};
#define NCELLS (sizeof server_cells / sizeof *server_cells)

/* gen/<strategy>: BATCH IDs per step from the shared instance. Also reports
 * wait_ns_per_id: time spent waiting on the clock (idb_clock_wait_until: a Snowflake
 * sequence used up, a clock behind), per ID, so a rate cap shows apart from the cost of
 * making an ID. Thread 0 reports the whole benchmark's waits over all threads' IDs. */
static void run_gen(idb_bench_state *st, void *user)
{
    gen_bench *g = user;
    idb_id id;
    idb_err err = { 0 };
    idb_clock *clock = idb_clock_real();
    int64_t waited0 = atomic_load(&clock->waited_ns), ids = 0;
    while (idb_bench_keep_running_batch(st, BATCH)) {
        for (int i = 0; i < BATCH; i++)
            if (g->s->next(g->inst, &id, &err)) { idb_bench_skip_with_error(st, err.msg); return; }
        ids += BATCH;
    }
    if (idb_bench_thread_index(st) == 0 && ids > 0)
        idb_bench_counter(st, "wait_ns_per_id", (double)(atomic_load(&clock->waited_ns) - waited0) /
                                                 (double)(ids * idb_bench_threads(st)));
}

/* baseline/clock_realtime: one clock_gettime(CLOCK_REALTIME) per item. */
static void run_clock(idb_bench_state *st, void *user)
{
    (void)user;
    struct timespec ts;
    volatile long sink = 0;
    while (idb_bench_keep_running_batch(st, BATCH))
        for (int i = 0; i < BATCH; i++) { clock_gettime(CLOCK_REALTIME, &ts); sink += ts.tv_nsec; }
}

#ifdef IDB_HAVE_LIBUUID
/* peer/libuuid_v4: util-linux's uuid_generate_random. */
static void run_libuuid(idb_bench_state *st, void *user)
{
    (void)user;
    uuid_t u;
    while (idb_bench_keep_running_batch(st, BATCH))
        for (int i = 0; i < BATCH; i++) uuid_generate_random(u);
}
#endif

#ifdef IDB_HAVE_LIBBSON
/* peer/libbson_oid: libbson's bson_oid_init with the default context. */
static void run_libbson(idb_bench_state *st, void *user)
{
    (void)user;
    bson_oid_t oid;
    while (idb_bench_keep_running_batch(st, BATCH))
        for (int i = 0; i < BATCH; i++) bson_oid_init(&oid, NULL);
}
#endif

/* The benchmarks besides gen/<strategy>: one entry each (the peers when built with them). */
static const idb_bench_def others[] = {
    { .name = "baseline/clock_realtime", .run = run_clock },
#ifdef IDB_HAVE_LIBUUID
    { .name = "peer/libuuid_v4", .run = run_libuuid },
#endif
#ifdef IDB_HAVE_LIBBSON
    { .name = "peer/libbson_oid", .run = run_libbson },
#endif
};

/* The --benchmark_filter=RE of argv, or NULL when there is none (or it is empty, "all" or
 * negative: left to Google Benchmark, which then may run anything). */
static const char *filter_of(int argc, char **argv)
{
    static const char flag[] = "--benchmark_filter=";
    const char *re = NULL;
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], flag, sizeof flag - 1) == 0) re = argv[i] + sizeof flag - 1;
    return !re || !*re || *re == '-' || strcmp(re, "all") == 0 ? NULL : re;
}

/* 1 when rx matches name at some thread count 1..threads (name/real_time/threads:N). */
static int matches(const regex_t *rx, const char *name, int threads)
{
    char full[2 * BENCH_NAME_MAX];
    for (int t = 1; t <= threads; t++) {
        snprintf(full, sizeof full, "%.*s/real_time/threads:%d", BENCH_NAME_MAX, name, t);
        if (regexec(rx, full, 0, NULL, 0) == 0) return 1;
    }
    return 0;
}

/* Does the filter of argv ask for the benchmark called name (run at up to threads)? 1 also
 * when there is no filter, or one idbench leaves to Google Benchmark. */
static int wanted(int argc, char **argv, const char *name, int threads)
{
    const char *re = filter_of(argc, argv);
    regex_t rx;
    if (!re || regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) != 0) return 1;
    int any = matches(&rx, name, threads);
    regfree(&rx);
    return any;
}

/* Does a --benchmark_filter=RE in argv match none of the names we register (every
 * strategy of the registry, the counter servers' cells, then others[])? Google Benchmark
 * would only print its own complaint, so idbench checks first. A negative filter ("-RE")
 * is left to Google Benchmark. Returns 1 when nothing matches. */
static int filter_matches_nothing(int argc, char **argv)
{
    const char *re = filter_of(argc, argv);
    regex_t rx;
    if (!re || regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) != 0) return 0;   /* GB reports */
    int any = 0;
    char name[BENCH_NAME_MAX];
    for (const idb_strategy *const *s = idb_strategies; *s && !any; s++) {
        snprintf(name, sizeof name, "gen/%s", (*s)->name);
        any = matches(&rx, name, GEN_THREADS);
    }
    for (size_t i = 0; i < NCELLS && !any; i++)
        any = matches(&rx, server_cells[i].name, SERVER_THREADS);
    for (size_t i = 0; i < sizeof others / sizeof *others && !any; i++) {
        snprintf(name, sizeof name, "%s/real_time", others[i].name);
        any = regexec(&rx, name, 0, NULL, 0) == 0;
    }
    regfree(&rx);
    return !any;
}

/* The counter server of backend b for the cells, started on first use in srv[b]. Returns
 * 0, or an error (the packages missing, it would not start) in err. */
static int cell_server(idb_ctrsrv *srv, const struct server_cell *c, const idb_strategy *s,
                       idb_err *err)
{
    const char *kv[] = { c->backend_kv };
    int b = idb_ctrsrv_backend(s, kv, 1);
    if (srv[b].srv) return 0;
    if (!idb_ctrsrv_available(b, err)) return IDB_EIO;
    return idb_ctrsrv_start(s, kv, 1, NULL, &srv[b], err);
}

/* Register the counter servers' cells the filter asks for into g[0..NCELLS) (g[i].inst
 * NULL: left out, with a note on stderr saying why), with their servers in srv. */
static void register_cells(int argc, char **argv, gen_bench *g, idb_ctrsrv *srv)
{
    for (size_t i = 0; i < NCELLS; i++) {
        const struct server_cell *c = &server_cells[i];
        const idb_strategy *s = idb_strategy_find(c->strategy);
        if (!s || !wanted(argc, argv, c->name, SERVER_THREADS)) continue;
        idb_err err = { 0 };
        const char *kv[] = { c->backend_kv, NULL, c->extra_kv };
        int rc = cell_server(srv, c, s, &err);
        int b = idb_ctrsrv_backend(s, kv, 1);
        kv[1] = idb_ctrsrv_kv(&srv[b]);
        if (!rc) rc = idb_strategy_create_kv(s, kv, c->extra_kv ? 3 : 2, idb_clock_real(),
                                             &g[i].inst, &err);
        if (rc) {
            g[i].inst = NULL;
            fprintf(stderr, "idbench: bench: %s left out: %s\n", c->name, err.msg);
            continue;
        }
        g[i].s = s;
        g[i].block = c->block;
        if (c->block)
            fprintf(stderr, "idbench: bench: %s takes blocks of %lld IDs, the next fetched in "
                    "the background at 10%% use\n", c->name, (long long)c->block);
        idb_bench_register(&(idb_bench_def){ .name = c->name, .run = run_gen, .user = &g[i],
                                             .max_threads = SERVER_THREADS,
                                             .threads_pow2 = 1 });
    }
}

/* Make an instance of every strategy of the registry (a strategy that declares `dir` gets
 * dir) and register gen/<name> for it into g[i] and names[i]. Returns 0, or the exit
 * status after printing why a strategy could not be made. */
static int register_gens(gen_bench *g, char (*names)[BENCH_NAME_MAX], const char *dir)
{
    char dirkv[PATH_MAX + sizeof "dir="];
    snprintf(dirkv, sizeof dirkv, "dir=%s", dir);
    const char *kv[] = { dirkv };
    for (int i = 0; idb_strategies[i]; i++) {
        const idb_strategy *s = idb_strategies[i];
        int nkv = idb_opts_declared(s->options, "dir") ? 1 : 0;
        idb_err err = { 0 };
        g[i].s = s;
        if (idb_strategy_create_kv(s, kv, nkv, idb_clock_real(), &g[i].inst, &err) != 0)
            return cli_fail(err.code, "bench: %s: %s", s->name, err.msg);
        snprintf(names[i], BENCH_NAME_MAX, "gen/%s", s->name);
        idb_bench_register(&(idb_bench_def){ .name = names[i], .run = run_gen, .user = &g[i],
                                             .max_threads = GEN_THREADS });
    }
    return 0;
}

/* Google Benchmark's flags that take a number, and whether it is an integer: idbench checks
 * their values itself, as every number it reads (Google Benchmark would take a hex float or
 * print its own message besides idbench's). */
static const struct { const char *flag; int integer; } number_flags[] = {
    { "--benchmark_min_time=", 0 }, { "--benchmark_min_warmup_time=", 0 },
    { "--benchmark_repetitions=", 1 }, { "--benchmark_v=", 1 },
};

/* Check one --benchmark_* flag's value when it is a number. Returns 0, or 2 after an error. */
static int check_flag(const char *arg)
{
    for (size_t i = 0; i < sizeof number_flags / sizeof *number_flags; i++) {
        size_t n = strlen(number_flags[i].flag);
        if (strncmp(arg, number_flags[i].flag, n) != 0) continue;
        const char *v = arg + n;
        int64_t iv;
        double dv;
        int bad = number_flags[i].integer ? idb_parse_i64(v, &iv) != 0 || iv < 0 || iv > INT_MAX
                                          : idb_parse_double(v, &dv) != 0 || dv < 0;
        if (bad)
            return cli_fail(IDB_EINPUT, "bench: %.*s: '%s' is not %s", (int)n - 1, arg, v,
                            number_flags[i].integer ? "an integer 0..2147483647"
                                                    : "a decimal number >= 0");
    }
    return 0;
}

/* idbench bench [--benchmark_* flags]: see the header comment. */
int cmd_bench(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--benchmark_", 12) != 0)
            return cli_usage("bench", "bench: '%s' is not a --benchmark_* flag", argv[i]);
        int rc = check_flag(argv[i]);
        if (rc) return rc;
    }
    if (filter_matches_nothing(argc, argv))
        return cli_fail(IDB_EINPUT, "bench: no benchmark matches the filter (see idbench list)");
#ifndef __OPTIMIZE__
    fprintf(stderr, "idbench: warning: built without optimisation; timings are not meaningful\n");
#endif
    char dir[PATH_MAX];
    if (idb_tmpdir_make(dir, sizeof dir) != 0)
        return cli_fail(IDB_EIO, "cannot create a temporary directory for the strategies "
                        "that keep files");

    int n = 0;
    for (const idb_strategy *const *s = idb_strategies; *s; s++) n++;
    gen_bench *g = calloc((size_t)n + NCELLS, sizeof *g);
    char (*names)[BENCH_NAME_MAX] = calloc((size_t)n, sizeof *names);
    idb_ctrsrv srv[IDB_CTRSRV_BACKENDS];
    memset(srv, 0, sizeof srv);
    int status = !g || !names ? cli_fail(IDB_ENOMEM, "out of memory")
                              : register_gens(g, names, dir);
    if (!status) register_cells(argc, argv, g + n, srv);
    if (!status) {
        for (size_t i = 0; i < sizeof others / sizeof *others; i++)
            idb_bench_register(&others[i]);
        int ran = idb_bench_run(argc, argv);
        if (ran < 0) status = cli_usage("bench", "bench: unknown flag");
        else if (ran == 0) status = cli_fail(IDB_EINPUT, "bench: no benchmark matches the filter");
    }
    for (size_t i = 0; g && i < (size_t)n + NCELLS; i++)
        if (g[i].inst) g[i].s->destroy(g[i].inst);
    for (int b = 0; b < IDB_CTRSRV_BACKENDS; b++) idb_ctrsrv_stop(&srv[b]);
    free(g);
    free(names);
    idb_tmpdir_remove(dir);
    return status;
}
