/* claim_leases.c — claim 11 (issue 26): a paused worker that keeps its expired worker ID
 * repeats IDs; one that stops does not.
 *
 * The experiment is `idbench insert`'s own machinery (docs/worker-leases.md): snowflake
 * with leased worker IDs (worker_source=postgres, and etcd in the full run; lease_ms 2000),
 * 2 shards, the fault pause-worker@N:MS (one shard's generator SIGSTOPped for MS ms, longer
 * than its lease, while a replacement takes its worker, then resumed), into the null store
 * (duplicate_ids is the harness's count over the run's IDs), once with
 * on_lease_lost=continue and once with stop. Checks per source: continue repeats IDs
 * (duplicate_ids > 0); stop repeats none and fails orders instead (the resumed
 * generator's). A source whose server is not installed adds no check ("not measured");
 * with none at all, or with claims_opts.no_failover, the claim is "unknown".
 */
#include "claims_int.h"

#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "store.h"

#define IDS 8000
#define PAUSE_AT 2000
#define PAUSE_MS 3000                     /* above the default lease_ms, 2000 */
#define BATCH 100
#define SHARDS 2

/* One source: its option and the server kind that must be installed. */
static const struct { const char *kv, *kind; } sources[] = {
    { "worker_source=postgres", "postgres" }, { "worker_source=etcd", "etcd" },
};

/* One run with source kv and on_lease_lost=mode into *res (the caller's, zeroed). */
static int lease_run(const idb_strategy *st, const char *kv, const char *mode,
                     idb_insert_result *res, idb_err *err)
{
    const idb_store *null_store = idb_store_find("null");
    if (!null_store) return idb_fail(err, IDB_EINPUT, "claims: no store null");
    idb_insert_config c = { .strategy = st, .store = null_store, .ids = IDS, .batch = BATCH,
                            .shards = SHARDS, .shops = 1000, .shop_skew = 1.0,
                            .seed = CLAIMS_SEED, .pause_worker_at = PAUSE_AT,
                            .pause_worker_ms = PAUSE_MS };
    c.strategy_kv[c.n_strategy_kv++] = kv;
    c.strategy_kv[c.n_strategy_kv++] = mode;
    return claim_insert(&c, res, err);
}

/* Claim 11 (see the header). */
int claim_leases(const claim_ctx *c, claim_row *r, idb_err *err)
{
    size_t n = c->quick ? 1 : sizeof sources / sizeof *sources;
    claim_app(r->experiment, "idbench insert of %d orders over %d shards (null store) with "
              "--fault pause-worker@%d:%d, once with on_lease_lost=continue and once with "
              "stop, per source:", IDS, SHARDS, PAUSE_AT, PAUSE_MS);
    for (size_t i = 0; i < n; i++) claim_app(r->experiment, " %s", sources[i].kv);
    claim_app(r->experiment, "; checks: continue repeats IDs (duplicate_ids > 0), stop "
              "repeats none and fails orders");
    if (c->no_failover) return claim_not_run(r, "no_failover");
    idb_insert_result *res = malloc(sizeof *res);
    if (!res) return idb_fail(err, IDB_ENOMEM, "out of memory");
    int rc = 0, ran = 0;
    static const char *const modes[] = { "on_lease_lost=continue", "on_lease_lost=stop" };
    for (size_t i = 0; i < n && !rc; i++) {
        char version[128];
        idb_err why = { 0 };
        if (idb_server_installed(sources[i].kind, version, sizeof version, &why) != 0) {
            claim_app(r->measured, "%s%s: %s" NOT_MEASURED, i ? "; " : "", sources[i].kv,
                      why.msg);
            continue;
        }
        for (int m = 0; m < 2 && !rc; m++) {
            memset(res, 0, sizeof *res);
            rc = lease_run(c->st, sources[i].kv, modes[m], res, err);
            if (rc) break;
            claim_app(r->measured, "%s%s, %s: %lld duplicate IDs, %lld failed orders"
                      MEASURED, i || m ? "; " : "", sources[i].kv, modes[m],
                      (long long)res->duplicate_ids, (long long)res->failed_orders);
            if (m == 0)
                claim_check(r, res->duplicate_ids > 0, "%s: a worker that continues after "
                            "its lease ran out repeated no ID", sources[i].kv);
            else
                claim_check(r, res->duplicate_ids == 0 && res->failed_orders > 0, "%s: a "
                            "worker that stops repeated %lld IDs and failed %lld orders",
                            sources[i].kv, (long long)res->duplicate_ids,
                            (long long)res->failed_orders);
        }
        ran++;
    }
    free(res);
    if (!rc && !ran) snprintf(r->unknown, sizeof r->unknown, "no worker source can run here");
    return rc;
}
