/* claim_failover.c — claim 10 (issue 26): a counter on an asynchronous replica repeats IDs
 * after failover unless each increment waits for a replica.
 *
 * The experiment is `idbench insert`'s own machinery: the counter strategy under test on a
 * replicated private server (replicas=R), the fault failover-lagged@N:LAG_MS (insert.h:
 * the replicas stop receiving at order N, the primary is SIGKILLed LAG_MS later and a
 * replica promoted), into the null store (duplicate_ids is the harness's count over the
 * run's IDs, whatever the store). Per backend an asynchronous mode and one that waits for
 * a replica: postgres replication=async and sync; redis without WAIT and with
 * wait_replicas=1 of 2 (`--quick`: postgres only). Checks: each run completed the failover
 * (failover_ms set); the asynchronous run repeats IDs (duplicate_ids > 0); the waiting run
 * repeats none. A backend whose server is not installed adds no check ("not measured");
 * with none at all, or with claims_opts.no_failover, the claim is "unknown".
 */
#include "claims_int.h"

#include <stdlib.h>
#include <string.h>

#include "ctrsrv.h"
#include "remote.h"
#include "store.h"

#define IDS 4000
#define LAG_AT 1000                       /* order at which the replicas stop receiving */
#define LAG_MS 200                        /* then the primary is killed this much later */
#define BATCH 100
#define TIMEOUT_KV "timeout_ms=300"

/* One mode of one backend: its options after backend=, and whether it waits for a replica. */
typedef struct fo_mode {
    int backend;                          /* enum idb_backend */
    const char *name;                     /* in the table */
    const char *kv[4];                    /* NULL-terminated */
    int waits;                            /* 1: must repeat none; 0: must repeat some */
} fo_mode;

static const fo_mode modes[] = {
    { IDB_BACKEND_POSTGRES, "postgres async",
      { "backend=postgres", "replicas=1", "replication=async", NULL }, 0 },
    { IDB_BACKEND_POSTGRES, "postgres sync",
      { "backend=postgres", "replicas=1", "replication=sync", NULL }, 1 },
    { IDB_BACKEND_REDIS, "redis without WAIT", { "backend=redis", "replicas=1", NULL }, 0 },
    { IDB_BACKEND_REDIS, "redis wait_replicas=1 of 2",
      { "backend=redis", "replicas=2", "wait_replicas=1", NULL }, 1 },
};

/* One run of mode m with strategy st into *res (the caller's, zeroed). */
static int fo_run(const idb_strategy *st, const fo_mode *m, idb_insert_result *res,
                  idb_err *err)
{
    const idb_store *null_store = idb_store_find("null");
    if (!null_store) return idb_fail(err, IDB_EINPUT, "claims: no store null");
    idb_insert_config c = { .strategy = st, .store = null_store, .ids = IDS, .batch = BATCH,
                            .shards = 1, .shops = 1000, .shop_skew = 1.0,
                            .seed = CLAIMS_SEED, .failover_lag_at = LAG_AT,
                            .failover_lag_ms = LAG_MS };
    for (int i = 0; m->kv[i]; i++) c.strategy_kv[c.n_strategy_kv++] = m->kv[i];
    c.strategy_kv[c.n_strategy_kv++] = TIMEOUT_KV;
    return claim_insert(&c, res, err);
}

/* Claim 10 (see the header). */
int claim_failover(const claim_ctx *c, claim_row *r, idb_err *err)
{
    size_t n = c->quick ? 2 : sizeof modes / sizeof *modes;
    claim_app(r->experiment, "idbench insert of %d orders (null store, %s) with --fault "
              "failover-lagged@%d:%d on a replicated private server: ", IDS, TIMEOUT_KV,
              LAG_AT, LAG_MS);
    for (size_t i = 0; i < n; i++)
        claim_app(r->experiment, "%s%s", i ? ", " : "", modes[i].name);
    claim_app(r->experiment, "; checks: the failover completed, the asynchronous modes "
              "repeat IDs (duplicate_ids > 0), the waiting modes none");
    if (c->no_failover) return claim_not_run(r, "no_failover");
    idb_insert_result *res = malloc(sizeof *res);
    if (!res) return idb_fail(err, IDB_ENOMEM, "out of memory");
    int rc = 0, ran = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const fo_mode *m = &modes[i];
        idb_err why = { 0 };
        if (!idb_ctrsrv_available(m->backend, &why)) {
            claim_app(r->measured, "%s%s: %s" NOT_MEASURED, i ? "; " : "", m->name, why.msg);
            continue;
        }
        memset(res, 0, sizeof *res);
        rc = fo_run(c->st, m, res, err);
        if (rc) break;
        ran++;
        claim_app(r->measured, "%s%s: %lld duplicate IDs, %lld failed orders, failover %.0f "
                  "ms" MEASURED, i ? "; " : "", m->name, (long long)res->duplicate_ids,
                  (long long)res->failed_orders, res->failover_ms);
        claim_check(r, res->failover_ms >= 0, "%s: the failover did not complete", m->name);
        if (m->waits)
            claim_check(r, res->duplicate_ids == 0, "%s: %lld IDs repeated although each "
                        "increment waits for a replica", m->name, (long long)res->duplicate_ids);
        else
            claim_check(r, res->duplicate_ids > 0, "%s: no ID repeated after the failover",
                        m->name);
    }
    free(res);
    if (!rc && !ran) snprintf(r->unknown, sizeof r->unknown, "no counter server can run here");
    return rc;
}
