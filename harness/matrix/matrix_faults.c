/* matrix_faults.c — the keys of a matrix file's fault blocks, apart from matrix_file.c (the
 * other sections): each block runs `idbench insert` of the counter strategy on a private
 * counter server with a fault, once per entry of its runs.
 *   [counterkill]        enabled, store, orders, kill_at, restart_ms, timeout_ms, runs
 *                        (BACKEND[:DURABILITY]): --fault kill-counter@KILL_AT:RESTART_MS,
 *                        into counterkill.csv
 *   [faults.replicated]  enabled, store, orders, lag_at, lag_ms, timeout_ms, runs
 *                        (BACKEND:MODE, the table repl_runs below): a replicated counter
 *                        server, --fault failover-lagged@LAG_AT:LAG_MS, into failover.csv
 * matrix_file.c reads these sections through mx_fault_keys like its own.
 */
#include "matrix.h"

#include <string.h>

#include "matrix_file_int.h"

/* The replicated runs [faults.replicated] may name: BACKEND:MODE and the counter options
 * that make it (claim 10's: redis WAIT with 2 replicas, so that one may lag). */
static const mx_repl_run repl_runs[] = {
    { "postgres:async", { "replicas=1", "replication=async" } },
    { "postgres:sync", { "replicas=1", "replication=sync" } },
    { "redis:nowait", { "replicas=1" } },
    { "redis:wait1", { "replicas=2", "wait_replicas=1" } },
};
#define N_REPL_RUNS (sizeof repl_runs / sizeof *repl_runs)
#define REPL_RUN_NAMES "postgres:async, postgres:sync, redis:nowait, redis:wait1"

/* The replicated run called name, or NULL (see matrix.h). */
const mx_repl_run *mx_repl_run_find(const char *name)
{
    for (size_t i = 0; i < N_REPL_RUNS; i++)
        if (!strcmp(repl_runs[i].name, name)) return &repl_runs[i];
    return NULL;
}

/* Hook of a fault block's store: a store's name. */
static int fault_store_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                             idb_err *err)
{
    (void)k, (void)base, (void)ctx, (void)i;
    char names[MX_STORE_LIST_MAX];
    return idb_store_find(text) ? 0 : idb_fail(err, IDB_EINPUT, "unknown store '%s' (stores: "
                                               "%s)", text, mx_store_names(names, sizeof names));
}

/* The counter servers [counterkill] runs may name, with a durability (redis) or not. */
static const struct { const char *backend; int durability; } kill_backends[] = {
    { "postgres", 0 }, { "redis", 1 },
};
static const char *const redis_durabilities[] = { "none", "everysec", "always" };

/* Check one entry of [counterkill] runs: BACKEND or BACKEND:DURABILITY. */
static int kill_run_entry(void *ctx, int i, const char *run, idb_err *err)
{
    (void)ctx, (void)i;
    const char *colon = strchr(run, ':');
    size_t n = colon ? (size_t)(colon - run) : strlen(run);
    for (size_t b = 0; b < sizeof kill_backends / sizeof *kill_backends; b++) {
        if (strlen(kill_backends[b].backend) != n || strncmp(run, kill_backends[b].backend, n))
            continue;
        if (!colon) return 0;
        for (size_t d = 0; kill_backends[b].durability && d < sizeof redis_durabilities /
                                                               sizeof *redis_durabilities; d++)
            if (!strcmp(colon + 1, redis_durabilities[d])) return 0;
    }
    return idb_fail(err, IDB_EINPUT, "'%s' is not a counter server run (postgres, or "
                    "redis:none|everysec|always)", run);
}

/* Hook of [counterkill] runs: comma-separated BACKEND[:DURABILITY] entries. */
static int kill_runs_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                           idb_err *err)
{
    (void)base, (void)ctx, (void)i;
    int n = idb_key_each(k, text, MX_LIST_MAX, kill_run_entry, NULL, err);
    return n < 0 ? n : 0;
}

/* Check one entry of [faults.replicated] runs: a BACKEND:MODE of repl_runs. */
static int repl_run_entry(void *ctx, int i, const char *run, idb_err *err)
{
    (void)ctx, (void)i;
    return mx_repl_run_find(run) ? 0 : idb_fail(err, IDB_EINPUT, "'%s' is not a replicated "
                                                "counter run (%s)", run, REPL_RUN_NAMES);
}

/* Hook of [faults.replicated] runs: comma-separated BACKEND:MODE entries. */
static int repl_runs_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                           idb_err *err)
{
    (void)base, (void)ctx, (void)i;
    int n = idb_key_each(k, text, MX_LIST_MAX, repl_run_entry, NULL, err);
    return n < 0 ? n : 0;
}

#define M(f) IDB_KEY_AT(idb_matrix, f)
#define KILL "counterkill"
#define REPL "faults.replicated"

/* Every key of the fault blocks, with its built-in default (see matrix_file_int.h). */
const idb_key mx_fault_keys[] = {
    { .section = KILL, .name = "enabled", .type = IDB_KEY_BOOL, .def = "0", M(kill_enabled) },
    { .section = KILL, .name = "store", .type = IDB_KEY_STR, .def = "sqlite",
      .hook = fault_store_value, M(kill_store) },
    { .section = KILL, .name = "orders", .type = IDB_KEY_INT, .def = "1200", .min = 2,
      .max = 1000000000, M(kill_orders) },
    { .section = KILL, .name = "kill_at", .type = IDB_KEY_INT, .def = "400", .min = 1,
      .max = 1000000000, M(kill_at) },
    { .section = KILL, .name = "restart_ms", .type = IDB_KEY_INT, .def = "500",
      .min = 0, .max = 3600000, M(kill_restart_ms) },
    { .section = KILL, .name = "timeout_ms", .type = IDB_KEY_INT, .def = "100",
      .min = 1, .max = 3600000, M(kill_timeout_ms) },
    { .section = KILL, .name = "runs", .type = IDB_KEY_STR,
      .def = "postgres, redis:none, redis:always", .hook = kill_runs_value, M(kill_runs) },
    { .section = REPL, .name = "enabled", .type = IDB_KEY_BOOL, .def = "0", M(repl_enabled) },
    { .section = REPL, .name = "store", .type = IDB_KEY_STR, .def = "sqlite",
      .hook = fault_store_value, M(repl_store) },
    { .section = REPL, .name = "orders", .type = IDB_KEY_INT, .def = "4000", .min = 2,
      .max = 1000000000, M(repl_orders) },
    { .section = REPL, .name = "lag_at", .type = IDB_KEY_INT, .def = "1000", .min = 1,
      .max = 1000000000, M(repl_lag_at) },
    { .section = REPL, .name = "lag_ms", .type = IDB_KEY_INT, .def = "100", .min = 0,
      .max = 3600000, M(repl_lag_ms) },
    { .section = REPL, .name = "timeout_ms", .type = IDB_KEY_INT, .def = "300", .min = 1,
      .max = 3600000, M(repl_timeout_ms) },
    { .section = REPL, .name = "runs", .type = IDB_KEY_STR, .def = REPL_RUN_NAMES,
      .hook = repl_runs_value, M(repl_runs) },
    { 0 },
};
#undef M

/* The fault sections (see matrix_file_int.h). */
const char *const mx_fault_sections[] = { KILL, REPL, NULL };
