/* claim_shards.c — claims 2 and 3, about numbers handed out per shard: a range per shard
 * (no coordination per order, ordered within a shard, not across, new ranges when one is
 * used up, a moved shop keeps its IDs) and interleaving (fine for a fixed number of shards;
 * adding one needs a new allocation that must not reuse numbers). Both on the simulator.
 */
#include "claims_int.h"

#define LEASES_PER_ORDER_MAX 0.01
#define ACROSS_SHARDS_INVERSION_MIN 0.01

/* Claim 2: range, with the most popular shop moving halfway. */
int claim_range(const claim_ctx *c, claim_row *r, idb_err *err)
{
    sim_workload w;
    claim_workload(&w, c->quick, "claim-range");
    w.range_size = c->quick ? 2000 : 10000;
    w.migrate_shop_at_s = w.duration_s / 2;
    w.shop_skew = 1.2;
    sim_result res;
    int rc = claim_sim(&w, c->st, 0, &res, err);
    if (rc) return rc;
    double lease_per_order = (double)res.leases / (double)res.orders;
    claim_app(r->experiment, "simulator, %lld orders on %lld shards, range_size %lld, the most "
              "popular shop moves at %.0f s; checks: leases per order <= %.2f and coord_lat p50 "
              "= 0, leases > shards, shard_monotonic = 1, inversion_frac > %.2f, moved orders > "
              "0 with 0 duplicates and 0 collisions on their new shard", (long long)res.orders,
              (long long)w.shards, (long long)w.range_size, w.migrate_shop_at_s,
              LEASES_PER_ORDER_MAX, ACROSS_SHARDS_INVERSION_MIN);
    claim_app(r->measured, "%lld leases for %lld orders (%.5f per order), coord_lat p50 %.3f ms, "
              "shard_monotonic %d, inversion_frac %.3f" MEASURED "; %lld orders moved, %lld "
              "duplicates, %lld collisions on the destination" MEASURED, (long long)res.leases,
              (long long)res.orders, lease_per_order, res.coord_lat_p50_ms, res.shard_monotonic,
              res.inversion_frac, (long long)res.moved_orders, (long long)res.duplicates,
              (long long)res.shard_collisions);
    claim_check(r, lease_per_order <= LEASES_PER_ORDER_MAX && res.coord_lat_p50_ms == 0,
                "%.5f leases per order, coord_lat p50 %.3f ms", lease_per_order,
                res.coord_lat_p50_ms);
    claim_check(r, res.leases > w.shards, "%lld leases", (long long)res.leases);
    claim_check(r, res.shard_monotonic == 1, "shard_monotonic %d", res.shard_monotonic);
    claim_check(r, res.inversion_frac > ACROSS_SHARDS_INVERSION_MIN, "inversion_frac %.3f",
                res.inversion_frac);
    claim_check(r, res.moved_orders > 0 && res.duplicates == 0 && res.shard_collisions == 0,
                "%lld moved, %lld duplicates, %lld collisions", (long long)res.moved_orders,
                (long long)res.duplicates, (long long)res.shard_collisions);
    if (!res.final_monotonic)
        claim_app(r->caveat, "after the move, the destination shard holds the shop's old IDs "
                  "from its old shard's range: there IDs no longer increase with creation time "
                  "(final_monotonic 0, measured)");
    sim_result_free(&res);
    return 0;
}

/* Claim 3: interleaved on 3 shards, then a 4th added the naive and the safe way. */
int claim_interleaved(const claim_ctx *c, claim_row *r, idb_err *err)
{
    sim_workload w;
    claim_workload(&w, c->quick, "claim-interleaved");
    w.shards = 3;
    sim_result fixed, naive, safe;
    int rc = claim_sim(&w, c->st, 0, &fixed, err);
    if (rc) return rc;
    w.add_shard_at_s = w.duration_s / 2;
    w.reconfig_safe = 0;
    if ((rc = claim_sim(&w, c->st, 0, &naive, err))) return rc;
    w.reconfig_safe = 1;
    if ((rc = claim_sim(&w, c->st, 0, &safe, err))) return rc;
    claim_app(r->experiment, "simulator, %lld orders on 3 shards; then a 4th shard added at %.0f "
              "s with the naive (new modulus from the start) and the safe (re-based above the "
              "highest ID) re-allocation; checks: fixed 0 duplicates, naive > 0, safe 0",
              (long long)fixed.orders, w.add_shard_at_s);
    claim_app(r->measured, "fixed: %lld duplicates" MEASURED "; naive: %lld duplicates of %lld "
              "orders" MEASURED "; safe: %lld duplicates" MEASURED, (long long)fixed.duplicates,
              (long long)naive.duplicates, (long long)naive.orders, (long long)safe.duplicates);
    claim_check(r, fixed.duplicates == 0, "fixed: %lld duplicates", (long long)fixed.duplicates);
    claim_check(r, naive.duplicates > 0, "naive: no duplicates");
    claim_check(r, safe.duplicates == 0, "safe: %lld duplicates", (long long)safe.duplicates);
    return 0;
}
