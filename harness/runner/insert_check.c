/* insert_check.c — idb_insert_check (insert.h): every check of an insert run that needs no
 * file, made before the runner allocates or creates anything: the numbers, the open-loop
 * settings, every store and strategy option of every shard, --window/--series, the
 * kill-counter fault, the worker leases (wlease.h) and the directory.
 */
#include "insert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insert_int.h"
#include "openloop.h"
#include "rundir.h"
#include "series.h"
#include "wlease.h"

#define OPEN_RATE_MAX 1e9                /* orders per second */
#define OPEN_COMMIT_MS_MAX 3600e3        /* an hour */

/* Shard k's strategy options into kv: the user's -o options, plus what the harness fills
 * in (harness_kv.h): shard = k, shards, worker = k (one worker per shard), dir, and the
 * counter server's address when cs (may be NULL) started one. */
int idb_insert_shard_kv(const idb_insert_config *cfg, const idb_ctrsrv *cs, int k,
                        idb_harness_kv *kv, idb_err *err)
{
    idb_harness_place place = idb_harness_place_none();
    place.shard = k;
    place.shards = cfg->shards;
    place.worker = k;
    place.dir = cfg->dir;
    if (cs) idb_ctrsrv_place(cs, &place);
    return idb_strategy_harness_kv(cfg->strategy, &place, cfg->strategy_kv, cfg->n_strategy_kv,
                                   kv, err);
}

/* Parse the store options into o, the key width into *width (key_bytes) and make the
 * store's own checks (store.h: idb_store_opts_parse). A strategy whose keys the store
 * assigns (autoinc) needs a store that can (store.h version 4) and 8-byte keys; a store that
 * declares IDB_STORE_AUTOINC gets it set from the strategy (the runner's value wins). */
int idb_insert_check_store(const idb_insert_config *cfg, idb_opts *o, int *width,
                           idb_err *err)
{
    const idb_store *st = cfg->store;
    int assigned = cfg->strategy->store_assigned;
    if (assigned && !idb_store_assigns_keys(st))
        return idb_fail(err, IDB_EINPUT, "strategy %s: store %s cannot assign keys (the "
                        "stores that can: postgres, mariadb, galera)", cfg->strategy->name,
                        st->name);
    const char *kv[IDB_INSERT_MAX_KV + 2];
    char join[64];
    int n = cfg->n_store_kv;
    memcpy(kv, cfg->store_kv, (size_t)n * sizeof *kv);
    if (idb_opts_declared(st->options, IDB_STORE_AUTOINC))
        kv[n++] = assigned ? IDB_STORE_AUTOINC "=1" : IDB_STORE_AUTOINC "=0";
    if (idb_opts_declared(st->options, IDB_STORE_JOIN_AT)) {   /* --fault join-node@N */
        snprintf(join, sizeof join, IDB_STORE_JOIN_AT "=%lld", (long long)cfg->join_node_at);
        kv[n++] = join;
    }
    int rc = idb_store_opts_parse(st, kv, n, cfg->strategy->bits / 8, o, width, err);
    if (!rc && assigned && *width != 8)
        rc = idb_fail(err, IDB_EINPUT, "strategy %s: the store's key column is a 64-bit "
                      "integer: key_bytes=%d is not 8", cfg->strategy->name, *width);
    return rc;
}

/* Parse every shard's strategy options as create() will be given them (without creating
 * an instance, which may make files: range leases a range). */
static int check_strategy(const idb_insert_config *cfg, idb_err *err)
{
    char owner[IDB_OPT_NAME_MAX + sizeof "strategy "];
    snprintf(owner, sizeof owner, "strategy %s", cfg->strategy->name);
    idb_opts *o = malloc(sizeof *o);
    if (!o) return idb_fail(err, IDB_ENOMEM, "out of memory");
    int rc = 0;
    for (int k = 0; k < cfg->shards && !rc; k++) {
        idb_harness_kv kv;
        rc = idb_insert_shard_kv(cfg, NULL, k, &kv, err);
        if (!rc) rc = idb_opts_parse(o, cfg->strategy->options, kv.kv, kv.n, owner, err);
    }
    free(o);
    return rc;
}

/* The open-loop settings of cfg: a finite rate up to OPEN_RATE_MAX (0: closed loop), a
 * known arrival kind, commit_ms only with a rate, and not on a model store. Returns 1 when
 * they are fine, else 0 with err (IDB_EINPUT). */
static int open_ok(const idb_insert_config *cfg, idb_err *err)
{
    if (!(cfg->rate >= 0 && cfg->rate <= OPEN_RATE_MAX))
        return !idb_fail(err, IDB_EINPUT, "--rate must be above 0 and at most %g orders/s",
                         OPEN_RATE_MAX);
    if (!(cfg->commit_ms >= 0 && cfg->commit_ms <= OPEN_COMMIT_MS_MAX))
        return !idb_fail(err, IDB_EINPUT, "--commit-ms must be above 0 and at most %g",
                         OPEN_COMMIT_MS_MAX);
    if (cfg->arrivals != IDB_ARRIVALS_POISSON && cfg->arrivals != IDB_ARRIVALS_FIXED)
        return !idb_fail(err, IDB_EINPUT, "unknown arrival kind %d", cfg->arrivals);
    if (cfg->commit_ms > 0 && cfg->rate == 0)
        return !idb_fail(err, IDB_EINPUT, "--commit-ms needs --rate (the open loop)");
    if (cfg->rate > 0 && cfg->store->model)
        return !idb_fail(err, IDB_EINPUT, "--rate: store %s is a model and measures no time",
                         cfg->store->name);
    if (cfg->rate > 0 && cfg->strategy->store_assigned)
        return !idb_fail(err, IDB_EINPUT, "--rate: strategy %s takes the closed loop (a "
                         "store may replay a transaction and write its keys again)",
                         cfg->strategy->name);
    if (cfg->rate > 0 && cfg->series)
        return !idb_fail(err, IDB_EINPUT, "--series: the open loop (--rate) has no windows");
    return 1;
}

/* The --window / --series pair (series.h). Returns 0 or IDB_EINPUT. */
static int series_ok(const idb_insert_config *cfg, idb_err *err)
{
    int store_window = idb_opts_declared(cfg->store->options, IDB_STORE_WINDOW);
    if (cfg->series && !cfg->window)
        return idb_fail(err, IDB_EINPUT, "--window and --series go together");
    if (cfg->window && !cfg->series && !store_window)
        return idb_fail(err, IDB_EINPUT, "--window and --series go together (--window alone "
                        "is for a store with windows of its own: spider)");
    if (cfg->series && cfg->n_curve > 0)
        return idb_fail(err, IDB_EINPUT, "--series and --curve are separate runs");
    return cfg->series ? idb_series_check(cfg->series, cfg->window, cfg->batch, err) : 0;
}

/* The kill-counter, failover-counter and failover-lagged faults need a counter server the
 * run starts (a user's dsn=/url= server is theirs: never killed), the failovers one with
 * replicas=R, and an order count below the run's; the replication options are checked
 * too (ctrsrv.h).
 * 0 or IDB_EINPUT. */
static int check_fault(const idb_insert_config *cfg, idb_err *err)
{
    if (cfg->join_node_at && !idb_opts_declared(cfg->store->options, IDB_STORE_JOIN_AT))
        return idb_fail(err, IDB_EINPUT, "--fault join-node needs a store whose cluster a node "
                        "can join (galera), not %s", cfg->store->name);
    if (cfg->join_node_at && cfg->join_node_at >= cfg->ids)
        return idb_fail(err, IDB_EINPUT, "--fault join-node@N: N must be 1 .. %lld (below "
                        "the order count)", cfg->ids - 1);
    const char *const *kv = cfg->strategy_kv;
    int n = cfg->n_strategy_kv, b = idb_ctrsrv_backend(cfg->strategy, kv, n);
    int rc = idb_ctrsrv_check(cfg->strategy, kv, n, err);
    int64_t at = idb_run_fault_at(cfg);
    const char *name = idb_run_fault_name(cfg);
    if (rc || !at) return rc;
    int own = 0;
    for (int i = 0; i < n; i++)
        own |= strncmp(kv[i], "dsn=", 4) == 0 || strncmp(kv[i], "url=", 4) == 0;
    if (!b || own)
        return idb_fail(err, IDB_EINPUT, "--fault %s needs a counter server idbench "
                        "starts: --strategy counter|segment|range -o backend=postgres|redis, "
                        "without dsn=/url=", name);
    if ((cfg->failover_counter_at || cfg->failover_lag_at)
        && idb_ctrsrv_replicas(cfg->strategy, kv, n) < 1)
        return idb_fail(err, IDB_EINPUT, "--fault %s needs replicas to promote: "
                        "-o replicas=R (R >= 1)", name);
    if (cfg->kill_counter_at && idb_ctrsrv_sentinel(cfg->strategy, kv, n))
        return idb_fail(err, IDB_EINPUT, "--fault kill-counter restarts the primary on its "
                        "data while Sentinel (sentinel=1) promotes a replica: two primaries; "
                        "use --fault failover-counter with sentinel=1");
    if (at < 1 || at >= cfg->ids || cfg->kill_restart_ms < 0 || cfg->failover_detect_ms < 0
        || cfg->failover_lag_ms < 0)
        return idb_fail(err, IDB_EINPUT, "--fault %s@N: N must be 1 .. %lld (below "
                        "the order count)", name, cfg->ids - 1);
    return 0;
}

/* --clients above 1 (insert_clients.c): a store that takes that many writers at once (a
 * version-1 store takes one), without the one-writer features (--rate is taken: the open
 * loop's writers commit what they took at once, so --commit-ms is not). */
static int check_clients(const idb_insert_config *cfg, idb_err *err)
{
    if (cfg->clients < 0) return idb_fail(err, IDB_EINPUT, "--clients must be at least 1");
    if (cfg->clients <= 1) return 0;
    if (cfg->strategy->store_assigned)
        return idb_fail(err, IDB_EINPUT, "--clients %d: strategy %s takes one writer per "
                        "shard (its keys come back from each insert)", cfg->clients,
                        cfg->strategy->name);
    int most = idb_store_clients(cfg->store);
    if (cfg->clients > most)
        return idb_fail(err, IDB_EINPUT, "--clients %d: store %s takes %d writer%s at once%s",
                        cfg->clients, cfg->store->name, most, most == 1 ? "" : "s",
                        cfg->store->version < 2 ? " (store interface version 1)"
                        : !cfg->store->open_client ? " (it has no open_client)" : "");
    static const char *const alone[] = { "--commit-ms", "--series", "--curve", "--fault" };
    int used[] = { cfg->commit_ms > 0, cfg->series != NULL, cfg->n_curve > 0,
                   cfg->kill_counter_at != 0 || cfg->pause_worker_at != 0 ||
                   cfg->join_node_at != 0 || cfg->failover_counter_at != 0
                   || cfg->failover_lag_at != 0 };
    for (size_t i = 0; i < sizeof used / sizeof *used; i++)
        if (used[i])
            return idb_fail(err, IDB_EINPUT, "%s takes one writer per shard (not --clients %d)",
                            alone[i], cfg->clients);
    return 0;
}

/* A store that cuts the run's own keys into parts (store.h version 3: sample_parts with
 * the options o) needs them all made ahead by the runner: the closed loop with one writer,
 * no fault, no leased workers, at least one order per part. 0 or IDB_EINPUT. */
static int check_ahead(const idb_insert_config *cfg, const idb_opts *o, idb_err *err)
{
    int parts = idb_store_sample_parts(cfg->store, o);
    if (parts <= 0) return 0;
    static const char *const alone[] = { "--rate", "--fault", "--clients", "worker_source" };
    int used[] = { cfg->rate > 0,
                   cfg->kill_counter_at || cfg->pause_worker_at || cfg->failover_counter_at
                   || cfg->failover_lag_at,
                   cfg->clients > 1, idb_wlease_source(cfg) != 0 };
    for (size_t i = 0; i < sizeof used / sizeof *used; i++)
        if (used[i])
            return idb_fail(err, IDB_EINPUT, "store %s: split points from the run's own IDs "
                            "(made ahead) take the closed loop with one writer, not %s",
                            cfg->store->name, alone[i]);
    if (cfg->ids < parts)
        return idb_fail(err, IDB_EINPUT, "store %s: %lld IDs cannot be cut into %d parts at "
                        "their quantiles", cfg->store->name, cfg->ids, parts);
    return 0;
}

/* --then STRATEGY:N (insert_then.c): N >= 1, the closed loop with one writer and none of
 * the run's one-off features, a store that needs no keys ahead, the second strategy's IDs
 * no wider than the run's keys (width: key_bytes), its options (defaults and the harness's
 * placement) as its instances will get them. 0 or IDB_EINPUT. */
static int check_then(const idb_insert_config *cfg, const idb_opts *o, int width, idb_err *err)
{
    const idb_strategy *s = cfg->then_strategy;
    if (!s) return 0;
    if (cfg->then_ids < 1) return idb_fail(err, IDB_EINPUT, "--then %s:N: N must be at least 1",
                                           s->name);
    static const char *const alone[] = { "--clients", "--rate", "--series", "--curve",
                                         "--fault" };
    int used[] = { cfg->clients > 1, cfg->rate > 0, cfg->series != NULL, cfg->n_curve > 0,
                   cfg->kill_counter_at != 0 };
    for (size_t i = 0; i < sizeof used / sizeof *used; i++)
        if (used[i])
            return idb_fail(err, IDB_EINPUT, "--then takes the closed loop with one writer and "
                            "no %s", alone[i]);
    if (idb_store_sample_parts(cfg->store, o) > 0)
        return idb_fail(err, IDB_EINPUT, "--then: store %s splits at the run's own IDs made "
                        "ahead (split=sample), which the second phase's are not",
                        cfg->store->name);
    if (s->bits / 8 > width)
        return idb_fail(err, IDB_EINPUT, "--then %s: its %d-byte IDs do not fit the table's "
                        "%d-byte keys (-s key_bytes=%d makes room for both)", s->name,
                        s->bits / 8, width, s->bits / 8);
    idb_insert_config c2 = *cfg;
    c2.strategy = s;
    c2.n_strategy_kv = 0;
    return check_strategy(&c2, err);
}

/* Check cfg without creating anything (see insert.h). */
int idb_insert_check(const idb_insert_config *cfg, idb_err *err)
{
    if (cfg->ids < 1) return idb_fail(err, IDB_EINPUT, "the number of IDs must be at least 1");
    if (cfg->batch < 1) return idb_fail(err, IDB_EINPUT, "--batch must be at least 1");
    if (cfg->shards < 1) return idb_fail(err, IDB_EINPUT, "--shards must be at least 1");
    if (cfg->shops < 1) return idb_fail(err, IDB_EINPUT, "--shops must be at least 1");
    if (cfg->n_curve > IDB_CURVE_MAX)
        return idb_fail(err, IDB_EINPUT, "--curve takes at most %d cache sizes", IDB_CURVE_MAX);
    if (check_clients(cfg, err)) return IDB_EINPUT;
    if (!open_ok(cfg, err)) return IDB_EINPUT;
    if (series_ok(cfg, err)) return IDB_EINPUT;
    if (cfg->n_curve > 0 && !cfg->store->curve)
        return idb_fail(err, IDB_EINPUT,
                        "store %s has no miss-ratio curve (--curve needs pagesim)",
                        cfg->store->name);
    idb_opts *o = malloc(sizeof *o);
    if (!o) return idb_fail(err, IDB_ENOMEM, "out of memory");
    int width;
    int rc = idb_insert_check_store(cfg, o, &width, err);
    if (!rc) rc = check_ahead(cfg, o, err);
    if (!rc) rc = check_then(cfg, o, width, err);
    free(o);
    idb_device dev;
    if (!rc) rc = idb_device_parse(cfg->store_kv, cfg->n_store_kv, &dev, err);
    if (!rc) rc = check_strategy(cfg, err);
    if (!rc) rc = check_fault(cfg, err);
    if (!rc) rc = idb_wlease_check(cfg, err);
    if (!rc && cfg->dir) rc = idb_rundir_check(cfg->dir, err);
    return rc;
}
