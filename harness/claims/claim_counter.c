/* claim_counter.c — claim 1: a central counter costs every order a round trip to its
 * server, and while the server is down no order gets an ID while every other strategy
 * goes on.
 *
 * Two experiments on the simulator's counter server (sim_server.h: a single server with a
 * service time and a finite FIFO queue, rtt/2 away each way):
 *   - an outage at a light load: the strategy under test must make one request per order
 *     (counted by the server), wait at least rtt + service for it, and fail exactly the
 *     orders sent during the outage; every registered strategy that does not use the
 *     server fails none; block strategies on the same server are reported apart;
 *   - a load sweep at fractions of the server's capacity 1/service (computed): p50, p99,
 *     failed orders and the IDs handed out per second, measured; below capacity nothing
 *     fails, above it the full queue refuses orders, the highest rate served is the
 *     capacity, and p99 grows from about one round trip to a full queue's wait.
 * Then the same on real servers (claim_counter_srv.c): the measured round trip, the
 * ceiling of one server, the orders failed while it was killed.
 */
#include "claims_int.h"

#include <string.h>

/* The simulator's figures are labelled simulated: the real server's are measured
 * (claim_counter_srv.c). */
#define SIMULATED " (simulated)"

#define RTT_MS 0.5
#define SWEEP_QUEUE_MAX 1000             /* a small queue, so overload shows as refusals */
#define SATURATION_TOL 0.03              /* served rate vs 1/service */
#define LIGHT_WAIT_SERVICES 20           /* p99 wait at half capacity, in service times */

/* The outage run of the subject and of every other registered strategy. */
static int counter_outage(const claim_ctx *c, claim_row *r, idb_err *err)
{
    sim_workload w;
    claim_workload(&w, c->quick, "claim-counter");
    w.rtt_ms = RTT_MS;
    w.outage_start_s = c->quick ? 1 : 3;
    w.outage_s = c->quick ? 1 : 2;
    double floor_ms = w.rtt_ms + w.service_us / 1e3;
    sim_result res;
    int rc = claim_sim(&w, c->st, 0, &res, err);
    if (rc) return rc;
    int64_t got = res.orders - res.failed_orders;
    claim_app(r->experiment, "outage: simulator, %lld orders over %.0f s, counter server %.1f ms "
              "away (rtt), %.0f us per request, down %.0f..%.0f s; checks: one request per "
              "order that got an ID, coord_lat p50 >= rtt + service = %.3f ms and p99 < 2 x "
              "rtt, exactly the orders sent in the outage fail (> 0), every strategy that does "
              "not use the counter server fails none, block strategies on it fail fewer, those "
              "asking it per ID fail the same. ",
              (long long)res.orders, w.duration_s, w.rtt_ms, w.service_us, w.outage_start_s,
              w.outage_start_s + w.outage_s, floor_ms);
    claim_app(r->measured, "%s: %lld requests for %lld orders with an ID, coord_lat p50 %.3f / "
              "p99 %.3f ms, %lld of the %lld orders in the outage failed, %lld in all"
              SIMULATED "; ", c->st->name, (long long)res.server_served, (long long)got,
              res.coord_lat_p50_ms, res.coord_lat_p99_ms, (long long)res.failed_orders,
              (long long)res.outage_orders, (long long)res.failed_orders);
    claim_check(r, res.server_served == got, "%lld requests for %lld orders",
                (long long)res.server_served, (long long)got);
    claim_check(r, res.coord_lat_p50_ms >= floor_ms && res.coord_lat_p99_ms < 2 * w.rtt_ms,
                "coord_lat p50 %.3f / p99 %.3f ms", res.coord_lat_p50_ms, res.coord_lat_p99_ms);
    claim_check(r, res.failed_orders == res.outage_orders && res.outage_orders > 0,
                "%lld failed orders for %lld in the outage", (long long)res.failed_orders,
                (long long)res.outage_orders);
    int64_t others = 0, others_failed = 0;
    for (const idb_strategy *const *p = idb_strategies; *p && rc == 0; p++) {
        if (*p == c->st || strcmp((*p)->name, r->subject) == 0) continue;
        if ((rc = claim_sim(&w, *p, 0, &res, err))) break;
        int on_server = idb_opts_declared((*p)->options, "name");
        if (on_server && (*p)->coord == IDB_COORD_PER_ID) {
            claim_app(r->measured, "%s (a request per ID to the same server): %lld of the %lld "
                      "orders in the outage failed" SIMULATED "; ", (*p)->name,
                      (long long)res.failed_orders, (long long)res.outage_orders);
            claim_check(r, res.failed_orders == res.outage_orders, "%s failed %lld of %lld",
                        (*p)->name, (long long)res.failed_orders, (long long)res.outage_orders);
        } else if (on_server) {
            claim_app(r->measured, "%s (blocks from the same server): %lld of the %lld orders "
                      "in the outage failed, once its blocks ran out" SIMULATED "; ", (*p)->name,
                      (long long)res.failed_orders, (long long)res.outage_orders);
            claim_check(r, res.failed_orders < res.outage_orders, "%s failed %lld", (*p)->name,
                        (long long)res.failed_orders);
        } else {
            others++;
            others_failed += res.failed_orders;
        }
        sim_result_free(&res);
    }
    if (rc) return rc;
    claim_app(r->measured, "%lld strategies that do not use the counter server: %lld failed "
              "orders" SIMULATED "; ", (long long)others, (long long)others_failed);
    claim_check(r, others_failed == 0, "%lld orders of other strategies failed",
                (long long)others_failed);
    return 0;
}

/* One point of the load sweep. */
typedef struct load_point {
    double load, rate, served_per_s, p50, p99;
    int64_t orders, failed;
} load_point;

/* The subject at each load of the sweep; checks against the capacity (see the top). */
static int counter_load(const claim_ctx *c, claim_row *r, idb_err *err)
{
    static const double full[] = { 0.25, 0.5, 0.9, 1.1, 2.0 }, quick[] = { 0.5, 2.0 };
    const double *loads = c->quick ? quick : full;
    int n = c->quick ? (int)(sizeof quick / sizeof *quick) : (int)(sizeof full / sizeof *full);
    sim_workload w;
    claim_workload(&w, c->quick, "claim-counter-load");
    w.rtt_ms = RTT_MS;
    w.duration_s = c->quick ? 0.5 : 1;
    w.queue_max = SWEEP_QUEUE_MAX;
    if (w.service_us <= 0)
        return idb_fail(err, IDB_EINPUT, "claims: the counter server needs a service time");
    double cap = 1e6 / w.service_us, best = 0;
    load_point pt[sizeof full / sizeof *full];
    for (int i = 0; i < n; i++) {
        sim_result res;
        w.orders_per_s = loads[i] * cap;
        int rc = claim_sim(&w, c->st, 0, &res, err);
        if (rc) return rc;
        pt[i] = (load_point){ .load = loads[i], .rate = w.orders_per_s, .orders = res.orders,
                              .failed = res.failed_orders, .p50 = res.coord_lat_p50_ms,
                              .p99 = res.coord_lat_p99_ms,
                              .served_per_s = (double)(res.orders - res.failed_orders) /
                                              w.duration_s };
        sim_result_free(&res);
        if (pt[i].served_per_s > best) best = pt[i].served_per_s;
    }
    double full_wait_ms = w.queue_max * w.service_us / 1e3;
    claim_app(r->experiment, "load: simulator, %.1f s at", w.duration_s);
    for (int i = 0; i < n; i++) claim_app(r->experiment, " %.2fx", loads[i]);
    claim_app(r->experiment, " the server's capacity 1/service = %.0f requests/s, queue of %lld; "
              "checks: below capacity 0 failed and p99 <= rtt + %d services, above it some "
              "failed (queue full), the most IDs served per second within %.0f%% of the "
              "capacity, p99 at the highest load >= rtt + half a full queue's wait (%.1f ms)",
              cap, (long long)w.queue_max, LIGHT_WAIT_SERVICES, 100 * SATURATION_TOL,
              full_wait_ms / 2);
    claim_app(r->measured, "capacity %.0f requests/s" COMPUTED "; ", cap);
    for (int i = 0; i < n; i++) {
        const load_point *p = &pt[i];
        claim_app(r->measured, "%.2fx (%.0f orders/s): p50 %.3f / p99 %.3f ms, %lld of %lld "
                  "failed, %.0f served/s" SIMULATED "; ", p->load, p->rate, p->p50, p->p99,
                  (long long)p->failed, (long long)p->orders, p->served_per_s);
        if (p->load < 1)
            claim_check(r, p->failed == 0, "%.2fx: %lld failed", p->load, (long long)p->failed);
        if (p->load <= 0.5)
            claim_check(r, p->p99 <= w.rtt_ms + LIGHT_WAIT_SERVICES * w.service_us / 1e3,
                        "%.2fx: p99 %.3f ms", p->load, p->p99);
        if (p->load > 1)
            claim_check(r, p->failed > 0, "%.2fx: no order failed", p->load);
    }
    claim_app(r->measured, "saturation throughput %.0f IDs/s" SIMULATED, best);
    claim_check(r, best >= (1 - SATURATION_TOL) * cap && best <= (1 + SATURATION_TOL) * cap,
                "saturation %.0f IDs/s", best);
    claim_check(r, pt[n - 1].p99 >= w.rtt_ms + full_wait_ms / 2, "p99 at %.2fx: %.3f ms",
                pt[n - 1].load, pt[n - 1].p99);
    return 0;
}

/* Claim 1 (see the top of this file). */
int claim_counter(const claim_ctx *c, claim_row *r, idb_err *err)
{
    int rc = counter_outage(c, r, err);
    if (!rc) rc = counter_load(c, r, err);
    return rc ? rc : claim_counter_servers(c, r, err);
}
