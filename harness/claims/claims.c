/* claims.c — the seven experiments behind `idbench claims` (see claims.h).
 *
 * Each claim_N() fills one row: what was run and against which thresholds, the figures,
 * and the verdict: "holds" when every check passes, "does not hold" when one fails, and
 * "holds with a caveat" when the checks pass but a measured side effect qualifies the
 * chapter's sentence (the caveat says which). Strategies are taken from the registry by
 * their declared properties where the claim is about a property (per-ID coordination,
 * "every other strategy"), and by name where the chapter's claim names one.
 */
#include "claims.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "collide.h"
#include "insert.h"
#include "random.h"
#include "sim.h"
#include "store.h"
#include "tmpdir.h"

#define SEED 42
#define YEAR_S (365.25 * 86400)

/* Append printf-style text to buf (CLAIM_TEXT_MAX bytes). */
static void app(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void app(char *buf, const char *fmt, ...)
{
    size_t n = strlen(buf);
    if (n + 1 >= CLAIM_TEXT_MAX) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, CLAIM_TEXT_MAX - n, fmt, ap);
    va_end(ap);
}

/* The verdict of all checks passing (ok) and a caveat noted (caveat[0] != 0). */
static void verdict(claim_row *r, int ok)
{
    r->verdict = !ok ? CLAIM_FAILS : r->caveat[0] ? CLAIM_CAVEAT : CLAIM_HOLDS;
}

/* The strategy called name, or an error (the claim is about it). */
static const idb_strategy *need(const char *name, idb_err *err)
{
    const idb_strategy *s = idb_strategy_find(name);
    if (!s) idb_fail(err, IDB_EINPUT, "claims: strategy %s is not registered", name);
    return s;
}

/* The common workload: 4 shards, 8 instances, perfect clocks; quick runs are smaller. */
static void base_workload(sim_workload *w, int quick, const char *name)
{
    sim_workload_defaults(w);
    snprintf(w->name, sizeof w->name, "%s", name);
    w->seed = SEED;
    w->duration_s = quick ? 4 : 10;
    w->orders_per_s = quick ? 10000 : 20000;
    w->shards = 4;
    w->instances = 8;
}

/* Make w's stream and play strategy st on it. Returns 0 or an IDB_E* code. */
static int sim_one(const sim_workload *w, const idb_strategy *st, int locality, sim_result *r,
                   idb_err *err)
{
    sim_stream s;
    int rc = sim_stream_make(w, &s, err);
    if (rc) return rc;
    sim_run_opts o = { .locality = locality };
    rc = sim_run(w, &s, st, &o, r, err);
    sim_stream_free(&s);
    return rc;
}

/* Insert n IDs of strategy name into one pagesim index; tail share and median position. */
static int insert_locality(const char *name, long long n, double *tail, double *p50, idb_err *err)
{
    const idb_strategy *st = need(name, err);
    const idb_store *store = idb_store_find("pagesim");
    if (!st) return IDB_EINPUT;
    if (!store) return idb_fail(err, IDB_EINPUT, "claims: store pagesim is not registered");
    char dir[4096];
    if (idb_tmpdir_make(dir, sizeof dir) != 0)
        return idb_fail(err, IDB_EIO, "claims: cannot make a temporary directory");
    idb_insert_config c = { .strategy = st, .store = store, .ids = n, .batch = 1000, .shards = 1,
                            .shops = 1, .shop_skew = 1.0, .dir = dir, .seed = SEED };
    idb_insert_result *res = calloc(1, sizeof *res);
    int rc = res ? idb_insert_run(&c, res, err) : idb_fail(err, IDB_ENOMEM, "out of memory");
    if (rc == 0) { *tail = res->tail_insert_frac; *p50 = res->insert_pos_p50; }
    free(res);
    idb_tmpdir_remove(dir);
    return rc;
}

/* 1. counter: one round trip per order; during an outage nothing else stops. Strategies
 * that take blocks from the same counter server (they declare its `name`, as segment
 * does) are reported apart: they go on with the blocks they hold, then fail too. */
static int claim_1(int quick, claim_row *r, idb_err *err)
{
    sim_workload w;
    base_workload(&w, quick, "claim1");
    w.rtt_ms = 0.5;
    w.outage_start_s = quick ? 1 : 3;
    w.outage_s = quick ? 1 : 2;
    sim_stream s;
    int rc = sim_stream_make(&w, &s, err), ok = 1, n_per_id = 0;
    if (rc) return rc;
    app(r->experiment, "simulator, %lld orders over %.0f s, counter server down %.0f..%.0f s, rtt "
        "%.1f ms; checks: per-ID strategies have coord_lat p50 = p99 = rtt and fail exactly the "
        "orders arriving in the outage (> 0); every strategy that does not use the counter server "
        "fails none; block strategies on the same server are reported apart", (long long)s.n,
        w.duration_s, w.outage_start_s, w.outage_start_s + w.outage_s, w.rtt_ms);
    int64_t others_failed = 0, others = 0;
    for (const idb_strategy *const *p = idb_strategies; *p && rc == 0; p++) {
        sim_result res;
        if ((rc = sim_run(&w, &s, *p, NULL, &res, err))) break;
        if ((*p)->coord == IDB_COORD_PER_ID) {
            n_per_id++;
            app(r->measured, "%s: coord_lat p50 %.3f / p99 %.3f ms; %lld of the %lld orders in "
                "the outage failed, %lld in all. ", (*p)->name, res.coord_lat_p50_ms,
                res.coord_lat_p99_ms, (long long)res.failed_orders, (long long)res.outage_orders,
                (long long)res.failed_orders);
            ok &= res.coord_lat_p50_ms == w.rtt_ms && res.coord_lat_p99_ms == w.rtt_ms;
            ok &= res.failed_orders == res.outage_orders && res.outage_orders > 0;
        } else if (idb_opts_declared((*p)->options, "name")) {
            app(r->measured, "%s (blocks from the same server): %lld of the %lld orders in the "
                "outage failed, once its blocks ran out. ", (*p)->name,
                (long long)res.failed_orders, (long long)res.outage_orders);
            ok &= res.failed_orders < res.outage_orders;
        } else {
            others++;
            others_failed += res.failed_orders;
        }
        sim_result_free(&res);
    }
    sim_stream_free(&s);
    if (rc) return rc;
    app(r->measured, "%lld strategies that do not use the counter server: %lld failed orders.",
        (long long)others, (long long)others_failed);
    verdict(r, ok && n_per_id > 0 && others_failed == 0);
    return 0;
}

/* 2. range: no per-order coordination; ordered within a shard, not across; new ranges
 * when one is used up; a moved shop keeps its IDs. */
static int claim_2(int quick, claim_row *r, idb_err *err)
{
    const idb_strategy *st = need("range", err);
    if (!st) return IDB_EINPUT;
    sim_workload w;
    base_workload(&w, quick, "claim2");
    w.range_size = quick ? 2000 : 10000;
    w.migrate_shop_at_s = w.duration_s / 2;
    w.shop_skew = 1.2;
    sim_result res;
    int rc = sim_one(&w, st, 0, &res, err);
    if (rc) return rc;
    double lease_per_order = (double)res.leases / (double)res.orders;
    app(r->experiment, "simulator, %lld orders on %lld shards, range_size %lld, the most popular "
        "shop moves at %.0f s; checks: leases per order <= 0.01 and coord_lat p50 = 0, leases > "
        "shards, shard_monotonic = 1, inversion_frac > 0.01, moved orders > 0 with 0 duplicates "
        "and 0 collisions on their new shard", (long long)res.orders, (long long)w.shards,
        (long long)w.range_size, w.migrate_shop_at_s);
    app(r->measured, "%lld leases for %lld orders (%.5f per order), coord_lat p50 %.3f ms; "
        "shard_monotonic %d; inversion_frac %.3f; %lld orders moved, %lld duplicates, %lld "
        "collisions on the destination", (long long)res.leases, (long long)res.orders,
        lease_per_order, res.coord_lat_p50_ms, res.shard_monotonic, res.inversion_frac,
        (long long)res.moved_orders, (long long)res.duplicates, (long long)res.shard_collisions);
    int ok = lease_per_order <= 0.01 && res.coord_lat_p50_ms == 0 && res.leases > w.shards &&
             res.shard_monotonic == 1 && res.inversion_frac > 0.01 && res.moved_orders > 0 &&
             res.duplicates == 0 && res.shard_collisions == 0;
    if (!res.final_monotonic)
        app(r->caveat, "after the move, the destination shard holds the shop's old IDs from its "
            "old shard's range: there IDs no longer increase with creation time "
            "(final_monotonic 0)");
    sim_result_free(&res);
    verdict(r, ok);
    return 0;
}

/* 3. interleaved: fine for a fixed number of shards; adding one needs a new allocation,
 * and the naive one repeats IDs. */
static int claim_3(int quick, claim_row *r, idb_err *err)
{
    const idb_strategy *st = need("interleaved", err);
    if (!st) return IDB_EINPUT;
    sim_workload w;
    base_workload(&w, quick, "claim3");
    w.shards = 3;
    sim_result fixed, naive, safe;
    int rc = sim_one(&w, st, 0, &fixed, err);
    if (rc) return rc;
    w.add_shard_at_s = w.duration_s / 2;
    w.reconfig_safe = 0;
    if ((rc = sim_one(&w, st, 0, &naive, err))) return rc;
    w.reconfig_safe = 1;
    if ((rc = sim_one(&w, st, 0, &safe, err))) return rc;
    app(r->experiment, "simulator, %lld orders on 3 shards; then a 4th shard added at %.0f s with "
        "the naive (new modulus from the start) and the safe (re-based above the highest ID) "
        "re-allocation; checks: fixed 0 duplicates, naive > 0, safe 0", (long long)fixed.orders,
        w.add_shard_at_s);
    app(r->measured, "fixed: %lld duplicates; naive: %lld duplicates of %lld orders; safe: %lld "
        "duplicates", (long long)fixed.duplicates, (long long)naive.duplicates,
        (long long)naive.orders, (long long)safe.duplicates);
    verdict(r, fixed.duplicates == 0 && naive.duplicates > 0 && safe.duplicates == 0);
    return 0;
}

/* Bits that vary across n IDs of strategy st (a random bit is seen as 0 and as 1). */
static int varying_bits(const idb_strategy *st, int n, int *bits, idb_err *err)
{
    void *inst;
    int rc = idb_strategy_create_kv(st, NULL, 0, idb_clock_real(), &inst, err);
    if (rc) return rc;
    uint8_t or_[IDB_ID_MAX] = { 0 }, and_[IDB_ID_MAX];
    memset(and_, 0xFF, sizeof and_);
    idb_id id = { 0 };
    for (int i = 0; i < n && rc == 0; i++) {
        if ((rc = st->next(inst, &id, err))) break;
        for (int b = 0; b < id.len; b++) { or_[b] |= id.b[b]; and_[b] &= id.b[b]; }
    }
    st->destroy(inst);
    *bits = 0;
    for (int b = 0; b < id.len; b++)
        *bits += __builtin_popcount((unsigned)(or_[b] & ~and_[b]) & 0xFF);
    return rc;
}

/* 4. uuidv4: 122 random bits; 86 years to a 50% collision at 1e9/s; twice 64 bits; lands
 * all over the index. */
static int claim_4(int quick, claim_row *r, idb_err *err)
{
    const idb_strategy *st = need("uuidv4", err);
    if (!st) return IDB_EINPUT;
    int bits, rc;
    idb_random_seed(SEED);
    if ((rc = varying_bits(st, 10000, &bits, err))) return rc;
    double years = collide_ids(122, 0.5) / 1e9 / YEAR_S;
    static const int wq[] = { 24, 26 }, wf[] = { 24, 28, 32 };
    const int *widths = quick ? wq : wf;
    int nw = quick ? 2 : 3, trials = quick ? 2000 : 3000, ok = 1;
    double tail, p50;
    long long n = quick ? 50000 : 200000;
    if ((rc = insert_locality("uuidv4", n, &tail, &p50, err))) return rc;
    app(r->experiment, "10,000 IDs: bits that vary; n(p) = 1/2 + sqrt(1/4 + 2*2^B*ln(1/(1-p))) at "
        "B = 122, 1e9 IDs/s; first-collision counts of B-bit random values, %d trials per B, "
        "median vs n(0.5); bits/8 vs 8 bytes; %lld IDs into one pagesim index; checks: 122 bits, "
        "years within 5%% of 86, every median within 5%%, 16 = 2 x 8 bytes, tail_insert_frac "
        "< 0.05 and insert_pos_p50 in 0.3..0.7", trials, n);
    app(r->measured, "%d varying bits; %.1f years to 50%% (%.3g IDs); medians:", bits, years,
        collide_ids(122, 0.5));
    for (int i = 0; i < nw; i++) {
        double med = collide_simulate(widths[i], trials, SEED + (uint64_t)i);
        if (med < 0) return idb_fail(err, IDB_ENOMEM, "out of memory");
        double f = collide_ids(widths[i], 0.5), dev = med / f - 1;
        app(r->measured, " B=%d %.0f vs %.0f (%+.1f%%)%s", widths[i], med, f, 100 * dev,
            i + 1 < nw ? "," : ";");
        ok &= fabs(dev) <= 0.05;
    }
    app(r->measured, " %d bytes; tail_insert_frac %.4f, insert_pos_p50 %.3f", st->bits / 8, tail,
        p50);
    ok &= bits == 122 && fabs(years / 86 - 1) <= 0.05 && st->bits / 8 == 16 && tail < 0.05 &&
          p50 >= 0.3 && p50 <= 0.7;
    verdict(r, ok);
    return 0;
}

/* 5. uuidv7: new IDs land near the end of the index. */
static int claim_5(int quick, claim_row *r, idb_err *err)
{
    const idb_strategy *st = need("uuidv7", err);
    if (!st) return IDB_EINPUT;
    double tail, p50;
    long long n = quick ? 50000 : 200000;
    int rc = insert_locality("uuidv7", n, &tail, &p50, err);
    if (rc) return rc;
    sim_workload w;
    base_workload(&w, quick, "claim5");
    w.skew_ms = 10;
    sim_result res;
    if ((rc = sim_one(&w, st, 1, &res, err))) return rc;
    app(r->experiment, "%lld IDs from one generator into one pagesim index; simulator with 8 "
        "instances whose clocks are up to 10 ms apart, 4 shards; checks: insert tail_insert_frac "
        ">= 0.9 and insert_pos_p50 >= 0.95; simulator insert_pos_p50 >= 0.95", n);
    app(r->measured, "insert: tail_insert_frac %.4f, insert_pos_p50 %.4f; simulator: "
        "tail_insert_frac %.4f, insert_pos_p50 %.4f", tail, p50, res.tail_insert_frac,
        res.insert_pos_p50);
    int ok = tail >= 0.9 && p50 >= 0.95 && res.insert_pos_p50 >= 0.95;
    sim_result_free(&res);
    verdict(r, ok);
    return 0;
}

/* IDs snowflake hands out in one ms before it waits, on a manual clock. */
static int snowflake_per_ms(const idb_strategy *st, int *per_ms, int64_t *behind, idb_err *err)
{
    idb_clock c;
    void *inst;
    idb_clock_manual_init(&c, SIM_T0_NS);
    int rc = idb_strategy_create_kv(st, NULL, 0, &c, &inst, err);
    if (rc) return rc;
    idb_id id;
    int n = 0;
    while (rc == 0 && atomic_load(&c.waits) == 0 && n < 100000) {
        rc = st->next(inst, &id, err);
        n++;
    }
    *per_ms = n - 1;                     /* the last call waited for the next ms */
    if (rc == 0) {                       /* step the clock back 5 ms: it must refuse */
        idb_err e = { 0 };
        idb_clock_set_ns(&c, idb_clock_now_ns(&c) - 5000000);
        *behind = st->next(inst, &id, &e) == IDB_ECLOCK ? e.behind_ms : -1;
    }
    st->destroy(inst);
    return rc;
}

/* 6. snowflake: 69 years, 1024 workers, 4096 per ms then a wait, stops while behind,
 * roughly (not exactly) time-sorted under skew. */
static int claim_6(int quick, claim_row *r, idb_err *err)
{
    const idb_strategy *st = need("snowflake", err);
    const idb_strategy *range = need("range", err);
    if (!st || !range) return IDB_EINPUT;
    int64_t workers = -1, behind = -1;
    for (const idb_opt_decl *d = st->options; d && d->name; d++)
        if (strcmp(d->name, "worker") == 0) workers = d->max - d->min + 1;
    double years = ldexp(1, 41) / 1000 / YEAR_S;
    int per_ms, rc = snowflake_per_ms(st, &per_ms, &behind, err);
    if (rc) return rc;
    sim_workload w;
    base_workload(&w, quick, "claim6");
    w.skew_ms = 10;
    sim_result skew, rskew, step, burst;
    if ((rc = sim_one(&w, st, 1, &skew, err))) return rc;
    if ((rc = sim_one(&w, range, 0, &rskew, err))) return rc;
    w.skew_ms = 1;
    w.step_back_ms = 200;
    w.step_at_s = w.duration_s / 2;
    w.step_instance = 2;
    if ((rc = sim_one(&w, st, 0, &step, err))) return rc;
    w.step_back_ms = 0;
    w.burst_at_s = 1;
    w.burst_s = quick ? 0.02 : 0.1;
    w.burst_factor = 300;
    w.orders_per_s = 20000;
    if ((rc = sim_one(&w, st, 0, &burst, err))) return rc;
    app(r->experiment, "2^41 ms in years; the worker option's range; IDs in one ms on a manual "
        "clock before it waits; next() after a 5 ms step back; simulator: clocks up to 10 ms "
        "apart, a 200 ms step back, a burst of 6M orders/s mostly on one instance; checks: "
        "68.5..70.5 years, 1024 workers, 4096 per ms, refusal for 5 ms, step stall >= 90%% of the "
        "step with 0 duplicates, burst stall > 0 with 0 duplicates, skew: 0 < inversion_frac < "
        "range's / 10, tail_insert_frac < 1, insert_pos_p50 >= 0.95");
    app(r->measured, "%.1f years; %lld workers; %d IDs per ms; refused, %lld ms behind; step: "
        "stalled %.1f ms, %lld duplicates; burst: stalled %.1f ms, %lld duplicates; skew: "
        "inversion_frac %.3g (range %.3f), tail_insert_frac %.4f, insert_pos_p50 %.4f", years,
        (long long)workers, per_ms, (long long)behind, step.stalled_ms,
        (long long)step.duplicates, burst.stalled_ms, (long long)burst.duplicates,
        skew.inversion_frac, rskew.inversion_frac, skew.tail_insert_frac, skew.insert_pos_p50);
    int ok = years >= 68.5 && years <= 70.5 && workers == 1024 && per_ms == 4096 && behind == 5 &&
             step.stalled_ms >= 0.9 * 200 && step.duplicates == 0 && burst.stalled_ms > 0 &&
             burst.duplicates == 0 && skew.inversion_frac > 0 &&
             skew.inversion_frac < rskew.inversion_frac / 10 && skew.tail_insert_frac < 1 &&
             skew.insert_pos_p50 >= 0.95;
    sim_result_free(&skew);
    sim_result_free(&rskew);
    sim_result_free(&step);
    sim_result_free(&burst);
    verdict(r, ok);
    return 0;
}

/* qsort comparator for uint64_t. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Distinct 5-byte process values (bytes 4..8) among n objectid instances on one clock. */
static int objectid_processes(const idb_strategy *st, int n, int *distinct, idb_err *err)
{
    idb_clock c;
    idb_clock_manual_init(&c, SIM_T0_NS);
    uint64_t *v = malloc((size_t)n * sizeof *v);
    if (!v) return idb_fail(err, IDB_ENOMEM, "out of memory");
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        void *inst;
        idb_id id;
        if ((rc = idb_strategy_create_kv(st, NULL, 0, &c, &inst, err))) break;
        rc = st->next(inst, &id, err);
        v[i] = idb_get_be(id.b + 4, 5);
        st->destroy(inst);
    }
    qsort(v, (size_t)n, sizeof *v, cmp_u64);
    *distinct = n > 0;
    for (int i = 1; i < n; i++) *distinct += v[i] != v[i - 1];
    free(v);
    return rc;
}

/* 7. objectid: no coordination; sorted at 1 s granularity; per-process random bytes. */
static int claim_7(int quick, claim_row *r, idb_err *err)
{
    const idb_strategy *st = need("objectid", err);
    if (!st) return IDB_EINPUT;
    int distinct = 0, rc;
    idb_random_seed(SEED);
    if ((rc = objectid_processes(st, 1024, &distinct, err))) return rc;
    sim_workload w;
    base_workload(&w, quick, "claim7");
    w.instances = 64;
    w.outage_start_s = 1;
    w.outage_s = 1;
    sim_result res;
    if ((rc = sim_one(&w, st, 0, &res, err))) return rc;
    app(r->experiment, "1024 instances on one clock, one ID each: distinct 5-byte process values; "
        "simulator, 64 instances, perfect clocks, counter server down for 1 s; checks: "
        "coordination none, 0 failed, 1024 distinct, 0 duplicates, inversion_frac > 0 and every "
        "inverted pair less than 1000 ms apart");
    app(r->measured, "coordination %s; %lld failed of %lld; %d distinct process values; %lld "
        "duplicates; inversion_frac %.4f, largest inverted gap %.3f ms",
        st->coord == IDB_COORD_NONE ? "none" : "yes", (long long)res.failed_orders,
        (long long)res.orders, distinct, (long long)res.duplicates, res.inversion_frac,
        res.max_inversion_gap_ms);
    int ok = st->coord == IDB_COORD_NONE && res.failed_orders == 0 && distinct == 1024 &&
             res.duplicates == 0 && res.inversion_frac > 0 && res.max_inversion_gap_ms < 1000;
    sim_result_free(&res);
    verdict(r, ok);
    return 0;
}

/* One claim: who it is about, the chapter's sentence, and the experiment that checks it. */
typedef struct claim_def {
    const char *subject, *claim;
    int (*run)(int quick, claim_row *r, idb_err *err);
} claim_def;

/* Every claim's experiment in order; stops at the first that cannot run (see claims.h). */
int claims_run(int quick, claim_row rows[CLAIMS_N], idb_err *err)
{
    static const claim_def all[CLAIMS_N] = {
        { "counter", "every order waits one round trip to the counter server; while it is down no "
          "order gets an ID, while every other strategy goes on", claim_1 },
        { "range", "no coordination per order; IDs increase within a shard but do not sort by "
          "creation time across shards; a shard that uses up its range takes a new one; a moved "
          "shop keeps its IDs", claim_2 },
        { "interleaved", "works for a fixed number of shards; adding a shard needs a new "
          "allocation that must not reuse numbers", claim_3 },
        { "uuidv4", "122 random bits; about 86 years at a billion IDs per second to a 50% chance "
          "of a collision; twice the bytes of a 64-bit ID; new IDs land all over the index",
          claim_4 },
        { "uuidv7", "new IDs tend to be inserted near the end of the index", claim_5 },
        { "snowflake", "41 bits of ms last about 69 years; 1,024 workers; 4,096 IDs per ms per "
          "worker, then it waits; it stops while its clock is behind; IDs sort roughly by creation "
          "time: near the end of the index, not always at the very end", claim_6 },
        { "objectid", "no coordination; roughly time-sorted (1 s timestamp); per-process random "
          "bytes keep processes apart", claim_7 },
    };
    for (int i = 0; i < CLAIMS_N; i++) {
        claim_row *r = &rows[i];
        memset(r, 0, sizeof *r);
        r->no = i + 1;
        r->subject = all[i].subject;
        r->claim = all[i].claim;
        int rc = all[i].run(quick, r, err);
        if (rc) return rc;
    }
    return 0;
}

/* The verdict as the table writes it (see claims.h). */
const char *claim_verdict_text(enum claim_verdict v)
{
    return v == CLAIM_HOLDS ? "holds" : v == CLAIM_FAILS ? "does not hold" : "holds with a caveat";
}

/* One markdown row per claim; a caveat follows its verdict (see claims.h). */
void claims_print_markdown(FILE *f, const claim_row *rows, int n)
{
    fprintf(f, "| # | claim | experiment | measured | verdict |\n|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        const claim_row *r = &rows[i];
        fprintf(f, "| %d | %s: %s | %s | %s | %s%s%s |\n", r->no, r->subject, r->claim,
                r->experiment, r->measured, claim_verdict_text(r->verdict),
                r->caveat[0] ? ": " : "", r->caveat);
    }
}
