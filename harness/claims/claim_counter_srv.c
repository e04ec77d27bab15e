/* claim_counter_srv.c — claim 1 on a real counter server: what a round trip per order
 * costs and what a killed server does, measured over a real socket (the simulator's
 * figures in claim_counter.c stay beside these, labelled simulated).
 *
 * For each backend (postgres: SELECT nextval; redis: INCRBY), on a private server started
 * for the claim (harness/runner/ctrsrv.h) and the strategy under test with backend=...:
 *   - round trip: ROUNDS IDs one at a time, each timed: p50 / p99 in us; checks: the IDs
 *     are exactly 1..ROUNDS (one counter, one request per ID) and p50 is above a local
 *     atomic's cost by far (>= RTT_FLOOR_US: a real round trip was made);
 *   - ceiling: 1, 2, 4 and 8 client threads sharing the instance (one connection each) for
 *     a fixed time: IDs per second; the ceiling is the highest;
 *   - outage (postgres): the server SIGKILLed, restarted after OUTAGE_MS, orders made
 *     meanwhile with timeout_ms = TIMEOUT_MS: the orders that got no ID are counted; checks:
 *     some failed, and no ID after the restart repeats one from before (WAL-logged
 *     sequence).
 * A backend whose server packages are missing (or whose server does not start) is reported
 * "<reason> (not measured)", and adds no check (so it cannot make the claim pass by
 * itself).
 */
#include "claims_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctrsrv.h"
#include "metrics.h"
#include "remote.h"

#define ROUNDS_FULL 2000
#define ROUNDS_QUICK 300
#define CEIL_NS_FULL 400000000LL          /* each thread count runs this long */
#define CEIL_NS_QUICK 150000000LL
#define CEIL_THREADS_MAX 8
#define CEIL_WARM_NS 50000000LL           /* untimed: every thread's connection made first */
#define RTT_FLOOR_US 1.0                  /* a local atomic costs ~0.007 us */
#define OUTAGE_MS 200
#define TIMEOUT_KV "timeout_ms=20"
#define AFTER_ORDERS 50                   /* orders after the restart, checked */
#define NS_PER_US 1e3
#define NS_PER_MS 1000000LL

typedef struct ceil_job {
    const idb_strategy *s;
    void *inst;
    int64_t until_ns;
    _Atomic int64_t *ids;
    int rc;
} ceil_job;

/* One client thread of the ceiling: IDs until the time is up. */
static void *ceil_thread(void *arg)
{
    ceil_job *j = arg;
    idb_id id;
    idb_err e = { 0 };
    int64_t n = 0;
    while (idb_mono_ns() < j->until_ns && !(j->rc = j->s->next(j->inst, &id, &e))) n++;
    atomic_fetch_add(j->ids, n);
    return NULL;
}

/* IDs per second with threads clients sharing inst for run_ns. */
static double ceiling(const idb_strategy *s, void *inst, int threads, int64_t run_ns)
{
    pthread_t t[CEIL_THREADS_MAX];
    ceil_job j[CEIL_THREADS_MAX];
    _Atomic int64_t ids = 0;
    int64_t t0 = idb_mono_ns();
    for (int i = 0; i < threads; i++) {
        j[i] = (ceil_job){ .s = s, .inst = inst, .until_ns = t0 + run_ns, .ids = &ids };
        if (pthread_create(&t[i], NULL, ceil_thread, &j[i]) != 0) threads = i;
    }
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    double secs = (double)(idb_mono_ns() - t0) / 1e9;
    return (double)atomic_load(&ids) / secs;
}

/* Round trips one at a time: p50/p99 in us into r; checks 1..n exactly. */
static int round_trips(const claim_ctx *c, void *inst, const char *b, claim_row *r,
                       idb_err *err)
{
    int n = c->quick ? ROUNDS_QUICK : ROUNDS_FULL, exact = 1, rc = 0;
    int64_t *lat = malloc((size_t)n * sizeof *lat);
    if (!lat) return idb_fail(err, IDB_ENOMEM, "out of memory");
    for (int i = 0; i < n && !rc; i++) {
        idb_id id;
        int64_t t0 = idb_mono_ns();
        rc = c->st->next(inst, &id, err);
        lat[i] = idb_mono_ns() - t0;
        exact &= !rc && id.len == 8 && idb_id_u64(&id) == (uint64_t)i + 1;
    }
    if (!rc) {
        double p50 = (double)idb_percentile(lat, n, 0.50) / NS_PER_US;
        double p99 = (double)idb_percentile(lat, n, 0.99) / NS_PER_US;
        claim_app(r->measured, "round trip p50 %.1f / p99 %.1f us over the socket"
                  MEASURED ", ", p50, p99);
        claim_check(r, exact, "%s: the IDs are not exactly 1..%d", b, n);
        claim_check(r, p50 >= RTT_FLOOR_US, "%s: round trip p50 %.3f us", b, p50);
    }
    free(lat);
    return rc;
}

/* The kill: orders on a second instance with a short timeout (TIMEOUT_KV) until OUTAGE_MS
 * after the kill (then restart), then AFTER_ORDERS more on inst; failed ones counted, IDs
 * after the restart checked against the highest before. */
static int outage(const claim_ctx *c, idb_ctrsrv *cs, void *inst, const char *const *kv,
                  const char *b, claim_row *r, idb_err *err)
{
    idb_id id;
    uint64_t before = 0;
    void *quick = NULL;
    const char *qkv[] = { kv[0], kv[1], TIMEOUT_KV };
    int rc = idb_strategy_create_kv(c->st, qkv, 3, idb_clock_real(), &quick, err);
    if (!rc) rc = c->st->next(quick, &id, err);
    if (!rc) before = idb_id_u64(&id);
    if (!rc) rc = idb_ctrsrv_kill(cs, err);
    int64_t t0 = idb_mono_ns(), failed = 0, orders = 0, repeats = 0;
    while (!rc && idb_mono_ns() - t0 < OUTAGE_MS * NS_PER_MS) {
        idb_err e = { 0 };
        orders++;
        if (c->st->next(quick, &id, &e) != 0) failed++;
        else if (idb_id_u64(&id) > before) before = idb_id_u64(&id);
    }
    if (quick) c->st->destroy(quick);
    if (!rc) rc = idb_ctrsrv_restart(cs, err);
    for (int i = 0; i < AFTER_ORDERS && !rc; i++) {
        rc = c->st->next(inst, &id, err);
        repeats += !rc && idb_id_u64(&id) <= before;
    }
    if (rc) return rc;
    claim_app(r->measured, ", killed for %d ms: %lld of %lld orders failed, %lld of %d IDs "
              "after the restart repeated one from before" MEASURED, OUTAGE_MS,
              (long long)failed, (long long)orders, (long long)repeats, AFTER_ORDERS);
    claim_check(r, failed > 0, "%s: no order failed while the server was down", b);
    claim_check(r, repeats == 0, "%s: %lld IDs repeated after the restart", b,
                (long long)repeats);
    return 0;
}

/* One backend: its server, the strategy under test on it, the three experiments. */
static int one_backend(const claim_ctx *c, const char *bkv, claim_row *r, idb_err *err)
{
    const char *b = strchr(bkv, '=') + 1;
    idb_ctrsrv cs;
    const char *kv[] = { bkv, NULL, NULL };
    int backend = idb_ctrsrv_backend(c->st, kv, 1);
    idb_err why = { 0 };
    if (!backend || !idb_ctrsrv_available(backend, &why) ||
        idb_ctrsrv_start(c->st, kv, 1, NULL, &cs, &why) != 0) {
        claim_app(r->measured, "; %s: %s" NOT_MEASURED, b, backend ? why.msg
                  : "the strategy has no backend option");
        return 0;
    }
    void *inst = NULL;
    kv[1] = idb_ctrsrv_kv(&cs);
    kv[2] = idb_ctrsrv_secret_kv(&cs);
    claim_app(r->measured, "; %s (%s): ", b, cs.version);
    int rc = idb_strategy_create_kv(c->st, kv, kv[2] ? 3 : 2, idb_clock_real(), &inst, err);
    if (!rc) rc = round_trips(c, inst, b, r, err);
    double best = 0;
    if (!rc) ceiling(c->st, inst, CEIL_THREADS_MAX, CEIL_WARM_NS);  /* a connection each */
    for (int t = 1; t <= CEIL_THREADS_MAX && !rc; t *= 2) {
        double v = ceiling(c->st, inst, t, c->quick ? CEIL_NS_QUICK : CEIL_NS_FULL);
        claim_app(r->measured, "%d threads %.0f IDs/s, ", t, v);
        if (v > best) best = v;
    }
    if (!rc) claim_app(r->measured, "ceiling %.0f IDs/s" MEASURED, best);
    if (!rc && backend == IDB_BACKEND_POSTGRES) rc = outage(c, &cs, inst, kv, b, r, err);
    if (inst) c->st->destroy(inst);
    idb_ctrsrv_stop(&cs);
    return rc;
}

/* Claim 1 on real servers (see the top of this file). */
int claim_counter_servers(const claim_ctx *c, claim_row *r, idb_err *err)
{
    static const char *const backends[] = { "backend=postgres", "backend=redis" };
    claim_app(r->experiment, ". real servers (private, Unix socket): per backend %d IDs one at "
              "a time (round trip p50/p99; checks: exactly 1..%d, p50 >= %.0f us), 1/2/4/8 "
              "client threads for %.2f s each after a warm-up (ceiling), postgres killed for %d "
              "ms with "
              "%s (checks: orders failed, none of %d IDs after the restart repeats). ",
              c->quick ? ROUNDS_QUICK : ROUNDS_FULL, c->quick ? ROUNDS_QUICK : ROUNDS_FULL,
              RTT_FLOOR_US, (double)(c->quick ? CEIL_NS_QUICK : CEIL_NS_FULL) / 1e9,
              OUTAGE_MS, TIMEOUT_KV, AFTER_ORDERS);
    int rc = 0;
    for (size_t i = 0; i < sizeof backends / sizeof *backends && !rc; i++)
        rc = one_backend(c, backends[i], r, err);
    return rc;
}
