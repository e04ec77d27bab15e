/* claim_waits.c — claim 8 (issue 24): with C concurrent writers per shard, ordered keys
 * show more lock and latch waiting per order than random keys on a store, because every
 * writer appends to the same right-most leaf (its latch, InnoDB's index lock) while random
 * keys spread the writers over the tree.
 *
 * The experiment is `idbench insert`'s own machinery (insert.h, insert_clients.c): the
 * strategy under test (ordered; uuidv7 by default) and uuidv4 (random), each inserted by
 * C writers into a fresh store, the same seeded orders, 16-byte keys for both; the figures
 * are the runs' wait_share (the clients' time spent waiting, 0-1) and wait_ns_per_order.
 * The store is claims_opts.waits_store: postgres by default (its private server), any
 * store that takes C writers, or "none". Checks (WAIT_* below): the ordered run's wait per
 * order is at least WAIT_RATIO_MIN times the random run's, and its wait share at least
 * WAIT_SHARE_MIN (a wait that matters, not noise).
 *
 * The claim is "unknown" — neither holds nor fails, and no check is recorded — when the
 * store cannot run here (its server is not installed: skipped, with why), when it is
 * "none", or when the store leaves the wait figures empty (a store that cannot tell: the
 * postgres and mariadb stores before their waits are measured). Figures are timings: they
 * vary from run to run (the claim's row is not part of the reproducible table).
 */
#include "claims_int.h"

#include <stdlib.h>
#include <string.h>


#define WAIT_RATIO_MIN 1.5                /* ordered wait per order >= this x random's */
#define WAIT_SHARE_MIN 0.02               /* and ordered's wait share at least this */
#define WAITS_STORE_DEFAULT "postgres"
#define WAITS_NONE "none"
#define RANDOM_STRATEGY "uuidv4"
#define KEY_BYTES_KV "key_bytes=16"
#define CLIENTS_FULL 16
#define CLIENTS_QUICK 4
#define IDS_FULL 50000
#define IDS_QUICK 5000
#define BATCH 100
#define NS_PER_US 1e3

/* The verdict's checks from the two runs' figures (see claims.h). */
void claim_waits_judge(claim_row *r, const char *store, int clients,
                       const claim_wait_fig *ordered, const claim_wait_fig *random)
{
    if (ordered->share < 0 || ordered->ns_per_order < 0 || random->share < 0 ||
        random->ns_per_order < 0) {
        snprintf(r->unknown, sizeof r->unknown, "store %s reported no wait figures (its "
                 "wait_share and wait_ns_per_order are empty)", store);
        return;
    }
    claim_check(r, ordered->ns_per_order >= WAIT_RATIO_MIN * random->ns_per_order,
                "on %s with %d writers, %s's wait per order (%.3g us) is not %.1fx %s's "
                "(%.3g us)", store, clients, r->subject, ordered->ns_per_order / NS_PER_US,
                WAIT_RATIO_MIN, RANDOM_STRATEGY, random->ns_per_order / NS_PER_US);
    claim_check(r, ordered->share >= WAIT_SHARE_MIN, "on %s, %s's wait share %.3f is below "
                "%.2f", store, r->subject, ordered->share, WAIT_SHARE_MIN);
}

/* One run of st on store with C writers in a temporary directory: its wait figures. */
static int waits_run(const idb_strategy *st, const idb_store *store, int C, long long ids,
                     claim_wait_fig *fig, idb_err *err)
{
    idb_insert_config c = { .strategy = st, .store = store, .ids = ids, .batch = BATCH,
                            .shards = 1, .shops = 1000, .shop_skew = 1.0,
                            .seed = CLAIMS_SEED, .clients = C };
    c.store_kv[c.n_store_kv++] = KEY_BYTES_KV;
    idb_insert_result *res = calloc(1, sizeof *res);
    int rc = res ? claim_insert(&c, res, err) : idb_fail(err, IDB_ENOMEM, "out of memory");
    if (rc == 0) *fig = (claim_wait_fig){ res->wait_share, res->wait_ns_per_order };
    free(res);
    return rc;
}

/* The store the claim runs on, or NULL with r->unknown saying why it does not run. */
static const idb_store *waits_store(const claim_ctx *c, claim_row *r, int C)
{
    const char *name = c->waits_store ? c->waits_store : WAITS_STORE_DEFAULT;
    if (!strcmp(name, WAITS_NONE)) {
        snprintf(r->unknown, sizeof r->unknown, "waits store none");
        return NULL;
    }
    const idb_store *s = idb_store_find(name);
    char version[128];
    idb_err why = { 0 };
    if (!s) snprintf(r->unknown, sizeof r->unknown, "no store %s", name);
    else if (idb_store_clients(s) < C)
        snprintf(r->unknown, sizeof r->unknown, "store %s takes fewer than %d writers", name, C);
    else if (s->available && s->available(NULL, 0, version, sizeof version, &why) != 0)
        snprintf(r->unknown, sizeof r->unknown, "skipped: store %s cannot run here: %s", name,
                 why.msg);
    else return s;
    return NULL;
}

/* Claim 8: the ordered strategy c->st against uuidv4 with C writers (see the header). */
int claim_waits(const claim_ctx *c, claim_row *r, idb_err *err)
{
    int C = c->quick ? CLIENTS_QUICK : CLIENTS_FULL;
    long long ids = c->quick ? IDS_QUICK : IDS_FULL;
    const char *name = c->waits_store ? c->waits_store : WAITS_STORE_DEFAULT;
    claim_app(r->experiment, "%lld orders by %d writers per shard (insert --clients %d, "
              "batch %d, 16-byte keys) into store %s, %s and %s; checks: %s's wait per order "
              ">= %.1fx %s's, and its wait share >= %.2f", ids, C, C, BATCH, name, r->subject,
              RANDOM_STRATEGY, r->subject, WAIT_RATIO_MIN, RANDOM_STRATEGY, WAIT_SHARE_MIN);
    const idb_store *store = waits_store(c, r, C);
    if (!store) {
        claim_app(r->measured, "%s (not measured)", r->unknown);
        return 0;
    }
    const idb_strategy *rnd = claim_need(RANDOM_STRATEGY, err);
    if (!rnd) return err->code;
    claim_wait_fig fo = { -1, -1 }, fr = { -1, -1 };
    int rc = waits_run(c->st, store, C, ids, &fo, err);
    if (!rc) rc = waits_run(rnd, store, C, ids, &fr, err);
    if (rc) return rc;
    const char *who[] = { r->subject, RANDOM_STRATEGY };
    const claim_wait_fig *fig[] = { &fo, &fr };
    for (int i = 0; i < 2; i++) {
        if (fig[i]->share < 0) claim_app(r->measured, "%s%s: wait figures empty (measured)",
                                         i ? "; " : "", who[i]);
        else claim_app(r->measured, "%s%s: wait share %.3f" MEASURED "; %s: %.3g us wait per "
                       "order" MEASURED, i ? "; " : "", who[i], fig[i]->share, who[i],
                       fig[i]->ns_per_order / NS_PER_US);
    }
    claim_waits_judge(r, store->name, C, &fo, &fr);
    return 0;
}
