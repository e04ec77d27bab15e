/* test_sim.c — the simulator: hand-computed scenarios (three shards and nine orders give
 * interleaved IDs 1..9; a counter outage fails exactly the orders in its window; the
 * counter server's queue by hand and at saturation), the events (worker-ID clash, naive vs
 * safe re-allocation, a moved shop, a clock step, a flash sale), determinism, the metrics
 * on hand-made inputs.
 * Strategies are taken from the registry by their declared properties.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "sim_metrics.h"

/* A workload with the defaults and a fixed seed. */
static void workload(sim_workload *w)
{
    sim_workload_defaults(w);
    w->seed = 7;
}

/* Run st on s under w; assert success. */
static void run(const sim_workload *w, const sim_stream *s, const idb_strategy *st, sim_run_opts *o,
                sim_result *r)
{
    idb_err err = { 0 };
    if (sim_run(w, s, st, o, r, &err) != 0) fail_msg("%s: %s", st->name, err.msg);
}

/* Make w's stream and run st; assert success. */
static void run_workload(const sim_workload *w, const idb_strategy *st, sim_result *r)
{
    sim_stream s;
    idb_err err = { 0 };
    assert_int_equal(sim_stream_make(w, &s, &err), 0);
    run(w, &s, st, NULL, r);
    sim_stream_free(&s);
}

/* 1 if st declares option name. */
static int declares(const idb_strategy *st, const char *name)
{
    return idb_opts_declared(st->options, name);
}

/* Three shards, nine orders, one per ms round robin over shops 0,1,2 (shop k on shard k):
 * strategies with `shards` hand out exactly 1..9, in creation order. */
static void test_three_shards_nine_orders(void **state)
{
    (void)state;
    int tested = 0;
    for (const idb_strategy *const *p = idb_strategies; *p; p++) {
        if (!declares(*p, "shards")) continue;
        sim_workload w;
        workload(&w);
        w.shards = 3;
        sim_stream s;
        idb_err err = { 0 };
        assert_int_equal(sim_stream_alloc(&s, 9, 3, 3, 1, 1.0, &err), 0);
        for (int k = 0; k < 3; k++) s.home[k] = (uint16_t)k;
        for (int j = 0; j < 9; j++) {
            s.t_ns[j] = (int64_t)j * 1000000;
            s.shop[j] = (uint32_t)(j % 3);
        }
        idb_id ids[9];
        sim_run_opts o = { .ids_out = ids };
        sim_result r;
        run(&w, &s, *p, &o, &r);
        for (int j = 0; j < 9; j++) assert_int_equal(idb_id_u64(&ids[j]), j + 1);
        assert_int_equal(r.orders, 9);
        assert_int_equal(r.duplicates, 0);
        assert_int_equal(r.inversions, 0);
        assert_int_equal(r.shard_monotonic, 1);
        assert_true(r.tail_insert_frac == 1.0);
        sim_stream_free(&s);
        tested++;
    }
    assert_true(tested > 0);
}

/* Ten orders at 0, 0.5, ..., 4.5 s; the counter server is down in [1 s, 3 s): per-ID
 * strategies fail exactly the four orders at 1.0, 1.5, 2.0 and 2.5 s, the others none. */
static void test_counter_outage(void **state)
{
    (void)state;
    sim_workload w;
    workload(&w);
    w.outage_start_s = 1;
    w.outage_s = 2;
    w.rtt_ms = 0.5;
    sim_stream s;
    idb_err err = { 0 };
    assert_int_equal(sim_stream_alloc(&s, 10, 1, 1, 1, 5.0, &err), 0);
    for (int j = 0; j < 10; j++) s.t_ns[j] = (int64_t)j * 500000000;
    int per_id = 0;
    for (const idb_strategy *const *p = idb_strategies; *p; p++) {
        idb_id ids[10];
        sim_run_opts o = { .ids_out = ids, .timeline = 1 };
        sim_result r;
        run(&w, &s, *p, &o, &r);
        assert_int_equal(r.outage_orders, 4);
        if ((*p)->coord == IDB_COORD_PER_ID) {
            per_id++;
            assert_int_equal(r.failed_orders, 4);
            for (int j = 0; j < 10; j++) assert_int_equal(ids[j].len == 0, j >= 2 && j <= 5);
            /* no queue at this rate: the round trip and the service time */
            double lat = w.rtt_ms + w.service_us / 1e3;
            assert_true(fabs(r.coord_lat_p50_ms - lat) < 1e-9);
            assert_true(fabs(r.coord_lat_p99_ms - lat) < 1e-9);
            assert_int_equal(r.server_served, 6);
            assert_int_equal(r.timeline_n, 5);
            int64_t want[5] = { 0, 2, 2, 0, 0 };
            for (int sec = 0; sec < 5; sec++) {
                assert_int_equal(r.tl_orders[sec], 2);
                assert_int_equal(r.tl_failed[sec], want[sec]);
            }
        } else {
            assert_int_equal(r.failed_orders, 0);
        }
        sim_result_free(&r);
    }
    assert_true(per_id > 0);
    sim_stream_free(&s);
}

/* The counter server by hand: rtt 1 ms, 100 us per request, at most 2 waiting. Five
 * orders at 0 arrive at 0.5 ms: the first is served 0.5-0.6 and answered at 1.1 ms, the
 * next two wait (answered at 1.2 and 1.3 ms), the last two find 2 waiting and are refused.
 * A sixth order at 1 ms finds the server idle again: answered at 2.1 ms. Each order is
 * created when its answer arrives. */
static void test_counter_server_queue(void **state)
{
    (void)state;
    sim_workload w;
    workload(&w);
    w.rtt_ms = 1;
    w.service_us = 100;
    w.queue_max = 2;
    sim_stream s;
    idb_err err = { 0 };
    assert_int_equal(sim_stream_alloc(&s, 6, 1, 1, 1, 1.0, &err), 0);
    s.t_ns[5] = 1000000;
    int per_id = 0;
    for (const idb_strategy *const *p = idb_strategies; *p; p++) {
        if ((*p)->coord != IDB_COORD_PER_ID || !declares(*p, "name")) continue;
        idb_id ids[6];
        int64_t created[6];
        sim_run_opts o = { .ids_out = ids, .created_out = created };
        sim_result r;
        run(&w, &s, *p, &o, &r);
        static const int64_t want_created[6] = { 1100000, 1200000, 1300000, 0, 0, 2100000 };
        for (int j = 0; j < 6; j++) {
            assert_int_equal(ids[j].len == 0, j == 3 || j == 4);
            if (ids[j].len) assert_int_equal(created[j], want_created[j]);
        }
        assert_int_equal(r.failed_orders, 2);
        assert_int_equal(r.server_served, 4);
        assert_int_equal(r.server_refused_full, 2);
        /* latencies 1.1, 1.2, 1.3, 1.1 ms: nearest rank p50 = 2nd = 1.1, p99 = 4th = 1.3 */
        assert_true(fabs(r.coord_lat_p50_ms - 1.1) < 1e-9);
        assert_true(fabs(r.coord_lat_p99_ms - 1.3) < 1e-9);
        assert_true(fabs(r.coord_lat_max_ms - 1.3) < 1e-9);
        sim_result_free(&r);
        per_id++;
    }
    assert_true(per_id > 0);
    sim_stream_free(&s);
}

/* Throughput comes out of the model: at twice the capacity 1/service the server answers
 * about 1/service requests per second and refuses the rest; at half of it nothing fails
 * and p99 stays within a few service times of the round trip. */
static void test_counter_server_saturation(void **state)
{
    (void)state;
    int per_id = 0;
    for (const idb_strategy *const *p = idb_strategies; *p; p++) {
        if ((*p)->coord != IDB_COORD_PER_ID || !declares(*p, "name")) continue;
        sim_workload w;
        workload(&w);
        w.duration_s = 1;
        w.service_us = 20;                           /* capacity 50,000 requests/s */
        w.queue_max = 100;
        w.orders_per_s = 100000;
        sim_result r;
        run_workload(&w, *p, &r);
        double served = (double)(r.orders - r.failed_orders) / w.duration_s;
        assert_true(served > 0.98 * 50000 && served < 1.02 * 50000);
        assert_true(r.failed_orders > 0 && r.server_refused_full == r.failed_orders);
        assert_true(r.coord_lat_p99_ms >= w.rtt_ms + 0.9 * w.queue_max * w.service_us / 1e3);
        w.orders_per_s = 25000;
        run_workload(&w, *p, &r);
        assert_int_equal(r.failed_orders, 0);
        assert_true(r.coord_lat_p50_ms >= w.rtt_ms + w.service_us / 1e3);
        assert_true(r.coord_lat_p99_ms < w.rtt_ms + 10 * w.service_us / 1e3);
        per_id++;
    }
    assert_true(per_id > 0);
}

/* Two instances given the same worker ID: strategies with `worker` repeat IDs; with
 * distinct worker IDs they do not. */
static void test_worker_clash(void **state)
{
    (void)state;
    int tested = 0;
    for (const idb_strategy *const *p = idb_strategies; *p; p++) {
        if (!declares(*p, "worker") || declares(*p, "shard") || (*p)->coord == IDB_COORD_PER_ID)
            continue;
        sim_workload w;
        workload(&w);
        w.duration_s = 2;
        w.orders_per_s = 20000;
        w.instances = 2;
        sim_result ok, clash;
        run_workload(&w, *p, &ok);
        w.duplicate_worker_ids = 1;
        run_workload(&w, *p, &clash);
        assert_int_equal(ok.duplicates, 0);
        assert_true(clash.duplicates > 0);
        tested++;
    }
    assert_true(tested > 0);
}

/* Adding a shard: naive re-allocation repeats IDs, safe does not; every other strategy
 * gives 0 duplicates either way, and moved orders collide with nothing. */
static void test_add_shard(void **state)
{
    (void)state;
    int tested = 0;
    for (const idb_strategy *const *p = idb_strategies; *p; p++) {
        sim_workload w;
        workload(&w);
        w.duration_s = 2;
        w.orders_per_s = 10000;
        w.shards = 3;
        w.range_size = 1000;
        w.add_shard_at_s = 1;
        w.reconfig_safe = 0;
        sim_result naive, safe;
        run_workload(&w, *p, &naive);
        w.reconfig_safe = 1;
        run_workload(&w, *p, &safe);
        assert_int_equal(safe.duplicates, 0);
        assert_true(safe.moved_orders > 0);
        assert_int_equal(safe.shard_collisions, 0);
        if (declares(*p, "shards")) { assert_true(naive.duplicates > 0); tested++; }
        else assert_int_equal(naive.duplicates, 0);
    }
    assert_true(tested > 0);
}

/* Moving the most popular shop: its orders move, nothing repeats anywhere. */
static void test_migrate(void **state)
{
    (void)state;
    for (const idb_strategy *const *p = idb_strategies; *p; p++) {
        sim_workload w;
        workload(&w);
        w.duration_s = 2;
        w.orders_per_s = 10000;
        w.migrate_shop_at_s = 1;
        sim_result r;
        run_workload(&w, *p, &r);
        assert_true(r.moved_orders > 0);
        assert_int_equal(r.duplicates, 0);
        assert_int_equal(r.shard_collisions, 0);
        assert_int_equal(r.failed_orders, 0);
    }
}

/* What a 200 ms step back on one instance may cost a strategy, by its declaration
 * (strategy.h: on_clock_back): one that refuses stalls for about the step; one that waits
 * stalls at most that long; one that goes on, or reads no clock, does not stall. */
static void check_step(const idb_strategy *st, double stalled_ms, double step_ms)
{
    switch (st->on_clock_back) {
    case IDB_CLOCK_BACK_REFUSE:
        if (!(stalled_ms >= step_ms - 10 && stalled_ms <= step_ms + 0.5))
            fail_msg("%s refuses a clock behind: stalled %.1f ms, expected about %.0f", st->name,
                     stalled_ms, step_ms);
        break;
    case IDB_CLOCK_BACK_WAIT:
        if (!(stalled_ms <= step_ms + 0.5))
            fail_msg("%s waits for a clock behind: stalled %.1f ms, more than the %.0f ms step",
                     st->name, stalled_ms, step_ms);
        break;
    default:
        if (stalled_ms != 0)
            fail_msg("%s declares it goes on (or reads no clock): stalled %.1f ms", st->name,
                     stalled_ms);
    }
}

/* A 200 ms step back on one instance: each strategy stalls as it declares (check_step);
 * nothing repeats. A flash sale of 300 times the rate on one instance: nothing repeats; a
 * strategy whose declared cap (max_ids_per_s) is below the sale's rate stalls, one with no
 * cap does not. Every assert names the strategy. */
static void test_step_and_burst(void **state)
{
    (void)state;
    int stalled = 0;
    for (const idb_strategy *const *p = idb_strategies; *p; p++) {
        sim_workload w;
        workload(&w);
        w.duration_s = 2;
        w.orders_per_s = 20000;
        w.step_back_ms = 200;
        w.step_at_s = 1;
        w.step_instance = 1;
        sim_result r;
        run_workload(&w, *p, &r);
        if (r.duplicates) fail_msg("%s: %lld duplicates after a step back", (*p)->name,
                                   (long long)r.duplicates);
        check_step(*p, r.stalled_ms, (double)w.step_back_ms);
        stalled += r.stalled_ms > 0;
        w.step_back_ms = 0;
        w.burst_at_s = 1;
        w.burst_s = 0.01;
        w.burst_factor = 300;
        run_workload(&w, *p, &r);
        if (r.duplicates) fail_msg("%s: %lld duplicates in a burst", (*p)->name,
                                   (long long)r.duplicates);
        double sale = w.orders_per_s * w.burst_factor;
        if ((*p)->max_ids_per_s > 0 && (*p)->max_ids_per_s < sale && !(r.stalled_ms > 0))
            fail_msg("%s declares at most %.0f IDs/s: no stall in a sale of %.0f/s", (*p)->name,
                     (*p)->max_ids_per_s, sale);
        if ((*p)->max_ids_per_s == 0 && r.stalled_ms != 0)
            fail_msg("%s declares no cap: stalled %.1f ms in a sale", (*p)->name, r.stalled_ms);
    }
    assert_true(stalled > 0);
}

/* Same seed, same everything; another seed, another stream. */
static void test_determinism(void **state)
{
    (void)state;
    sim_workload w;
    workload(&w);
    w.duration_s = 1;
    w.orders_per_s = 20000;
    w.skew_ms = 5;
    for (const idb_strategy *const *p = idb_strategies; *p; p++) {
        sim_stream s1, s2;
        idb_err err = { 0 };
        assert_int_equal(sim_stream_make(&w, &s1, &err), 0);
        assert_int_equal(sim_stream_make(&w, &s2, &err), 0);
        assert_int_equal(s1.n, s2.n);
        idb_id *a = calloc((size_t)s1.n, sizeof *a), *b = calloc((size_t)s1.n, sizeof *b);
        sim_run_opts oa = { .ids_out = a }, ob = { .ids_out = b };
        sim_result ra, rb;
        run(&w, &s1, *p, &oa, &ra);
        run(&w, &s2, *p, &ob, &rb);
        assert_memory_equal(a, b, (size_t)s1.n * sizeof *a);
        assert_int_equal(ra.inversions, rb.inversions);
        assert_true(ra.tail_insert_frac == rb.tail_insert_frac);
        free(a); free(b);
        sim_stream_free(&s1); sim_stream_free(&s2);
    }
    sim_stream s1, s2;
    idb_err err = { 0 };
    assert_int_equal(sim_stream_make(&w, &s1, &err), 0);
    w.seed = 8;
    assert_int_equal(sim_stream_make(&w, &s2, &err), 0);
    assert_true(s1.n != s2.n || memcmp(s1.t_ns, s2.t_ns, (size_t)s1.n * sizeof *s1.t_ns) != 0);
    sim_stream_free(&s1); sim_stream_free(&s2);
}

/* Inversions, duplicates, per-shard order and tails on hand-made inputs. */
static void test_metrics(void **state)
{
    (void)state;
    int64_t t[] = { 0, 1, 2, 3, 4 };
    uint64_t v[] = { 30, 10, 20, 20, 40 };
    idb_id ids[5];
    for (int i = 0; i < 5; i++) idb_id_set_u64(&ids[i], v[i]);
    uint16_t sc[] = { 0, 1, 0, 1, 0 }, sf[] = { 0, 1, 0, 0, 0 };
    sim_metrics_in in = { .m = 5, .t_ns = t, .ids = ids, .shard_c = sc, .shard_f = sf,
                          .nshards = 2 };
    sim_metrics_out out;
    assert_int_equal(sim_metrics(&in, &out), 0);
    assert_int_equal(out.duplicates, 1);
    assert_int_equal(out.inversions, 3);                     /* (30,10), (30,20), (30,20) */
    assert_true(out.inversion_frac == 3.0 / 10);
    assert_int_equal(out.shard_monotonic, 0);                /* shard 0: 30, 20, 40 */
    assert_int_equal(out.shard_collisions, 1);               /* both 20s end on shard 0 */
    assert_true(out.max_inversion_gap_ns == 3);              /* 30 at t=0, 20 at t=3 */
    /* tails: shard 0 after 30: 20 no, 40 yes; shard 1 after 10: 20 yes -> 2 of 3 */
    assert_true(out.tail_insert_frac == 2.0 / 3);
}

/* The largest inverted gap of orders (t, v), one shard, 8-byte IDs. */
static double gap_of(const int64_t *t, const uint64_t *v, int n)
{
    idb_id ids[16];
    uint16_t s[16] = { 0 };
    for (int i = 0; i < n; i++) idb_id_set_u64(&ids[i], v[i]);
    sim_metrics_in in = { .m = n, .t_ns = t, .ids = ids, .shard_c = s, .shard_f = s,
                          .nshards = 1 };
    sim_metrics_out out;
    assert_int_equal(sim_metrics(&in, &out), 0);
    return out.max_inversion_gap_ns;
}

/* The gap search passes over orders that cannot beat the gap so far: a gap found keeps
 * its size when a later, smaller one is seen (the orders far enough back are found again
 * once the gap grows), an order whose key only equals the highest key far enough back is
 * not an inverted pair with it, and the last order far enough back can be the one. */
static void test_metrics_gap_search(void **state)
{
    (void)state;
    int64_t t1[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
    uint64_t v1[] = { 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 50, 105 };
    assert_true(gap_of(t1, v1, 12) == 10);       /* 100 at 0, 50 at 10; then 106 at 6 */
    int64_t t2[] = { 0, 1, 50, 51 };
    uint64_t v2[] = { 50, 40, 70, 50 };
    assert_true(gap_of(t2, v2, 4) == 1);         /* (50, 40) and (70, 50), not (50, 50) */
    int64_t t3[] = { 0, 1, 2, 4 };
    uint64_t v3[] = { 10, 5, 30, 20 };
    assert_true(gap_of(t3, v3, 4) == 2);         /* (30, 20): the first key above 20 is the
                                                  * last order far enough back */
}

/* The same five orders as test_metrics with IDs of 1, 5, 20 and 32 bytes that differ only
 * in their last byte (the rest 0xAB): every figure is the same at every width. Then IDs
 * of mixed widths: a prefix sorts before the longer ID (idb_id_cmp), equal bytes of
 * another width are not a duplicate. */
static void test_metrics_any_width(void **state)
{
    (void)state;
    static const int widths[] = { 1, 5, 20, IDB_ID_MAX };
    int64_t t[] = { 0, 1, 2, 3, 4 };
    uint8_t last[] = { 30, 10, 20, 20, 40 };
    uint16_t sc[] = { 0, 1, 0, 1, 0 }, sf[] = { 0, 1, 0, 0, 0 };
    for (size_t k = 0; k < sizeof widths / sizeof *widths; k++) {
        idb_id ids[5];
        for (int i = 0; i < 5; i++) {
            ids[i].len = (uint8_t)widths[k];
            memset(ids[i].b, 0xAB, sizeof ids[i].b);
            ids[i].b[widths[k] - 1] = last[i];
        }
        sim_metrics_in in = { .m = 5, .t_ns = t, .ids = ids, .shard_c = sc, .shard_f = sf,
                              .nshards = 2 };
        sim_metrics_out out;
        assert_int_equal(sim_metrics(&in, &out), 0);
        assert_int_equal(out.duplicates, 1);
        assert_int_equal(out.inversions, 3);
        assert_int_equal(out.shard_monotonic, 0);
        assert_int_equal(out.shard_collisions, 1);
        assert_true(out.max_inversion_gap_ns == 3);
        assert_true(out.tail_insert_frac == 2.0 / 3);
    }
    /* created in this order on one shard: AB, AB00, AB (again), AC: one duplicate, and
     * AB00 > AB (later) is the one inversion */
    idb_id mixed[4] = { { .len = 1, .b = { 0xAB } }, { .len = 2, .b = { 0xAB, 0 } },
                        { .len = 1, .b = { 0xAB } }, { .len = 1, .b = { 0xAC } } };
    uint16_t zero[4] = { 0 };
    sim_metrics_in in = { .m = 4, .t_ns = t, .ids = mixed, .shard_c = zero, .shard_f = zero,
                          .nshards = 1 };
    sim_metrics_out out;
    assert_int_equal(sim_metrics(&in, &out), 0);
    assert_int_equal(out.duplicates, 1);
    assert_int_equal(out.inversions, 1);
}

/* The inversions, largest inverted gap, duplicates and collisions of the n orders (t, v,
 * sc, sf) at key widths 8 (native), 12, 16, 20 (compared as words) and 24 (memcmp),
 * against a count over every pair. A byte key holds v's 8 big-endian bytes at its start,
 * across its first two words (at 4) or at its end, the rest 0xAB: each word and the
 * 32-bit tail of 12 and 20 decide some order. */
static void brute_check(const int64_t *t, const uint64_t *v, const uint16_t *sc,
                        const uint16_t *sf, idb_id *ids, int n)
{
    static const struct { int w, at; } widths[] = {
        { 8, 0 }, { 12, 0 }, { 12, 4 }, { 16, 0 }, { 16, 4 }, { 16, 8 },
        { 20, 0 }, { 20, 4 }, { 20, 12 }, { 24, 16 },
    };
    int64_t inv = 0, dup = 0, coll = 0, gap = 0;
    for (int a = 0; a < n; a++) {
        int seen = 0, same_shard = 0;
        for (int b = 0; b < n; b++) {
            if (t[a] < t[b] && v[a] > v[b]) {
                inv++;
                if (t[b] - t[a] > gap) gap = t[b] - t[a];
            }
            if (b < a && v[b] == v[a]) { seen = 1; same_shard |= sf[b] == sf[a]; }
        }
        dup += seen;
        coll += same_shard;
    }
    for (size_t k = 0; k < sizeof widths / sizeof *widths; k++) {
        for (int i = 0; i < n; i++) {
            if (widths[k].w == 8) { idb_id_set_u64(&ids[i], v[i]); continue; }
            memset(&ids[i], 0xAB, sizeof ids[i]);
            ids[i].len = (uint8_t)widths[k].w;
            idb_put_be64(ids[i].b + widths[k].at, v[i]);
        }
        sim_metrics_in in = { .m = n, .t_ns = t, .ids = ids, .shard_c = sc, .shard_f = sf,
                              .nshards = 4 };
        sim_metrics_out out;
        assert_int_equal(sim_metrics(&in, &out), 0);
        assert_int_equal(out.inversions, inv);
        assert_true(out.max_inversion_gap_ns == (double)gap);
        assert_int_equal(out.duplicates, dup);
        assert_int_equal(out.shard_collisions, coll);
    }
}

/* Nearly sorted keys with duplicates (what runs make: IDs displaced by up to a few hundred
 * places), times with ties, four final shards, then four key ranges by creation shard (as
 * range routing makes): the inversions, largest inverted gap, duplicates and collisions
 * equal a count over every pair. Catches a merge that skips or double-counts keys where
 * runs overlap, and a gap search that passes over an order it should not. */
static void test_metrics_brute(void **state)
{
    (void)state;
    enum { N = 3000 };
    static int64_t t[N];
    static uint64_t v[N];
    static uint16_t sc[N], sf[N];
    static idb_id ids[N];
    idb_rng r;
    idb_rng_seed(&r, 28);
    for (int i = 0; i < N; i++) {
        t[i] = i / 3 + (int64_t)idb_rng_below(&r, 2);          /* ties, and some swapped */
        v[i] = ((uint64_t)i + idb_rng_below(&r, 400)) / 2;        /* duplicates, displaced */
        sc[i] = (uint16_t)idb_rng_below(&r, 4);
        sf[i] = (uint16_t)idb_rng_below(&r, 4);
    }
    brute_check(t, v, sc, sf, ids, N);
    for (int i = 0; i < N; i++)        /* four ranges, as range routing makes: large gaps */
        v[i] = (uint64_t)sc[i] * N + (uint64_t)i / 2 + idb_rng_below(&r, 40);
    brute_check(t, v, sc, sf, ids, N);
}

/* Run every test of this file. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_shards_nine_orders),
        cmocka_unit_test(test_counter_outage),
        cmocka_unit_test(test_counter_server_queue),
        cmocka_unit_test(test_counter_server_saturation),
        cmocka_unit_test(test_worker_clash),
        cmocka_unit_test(test_add_shard),
        cmocka_unit_test(test_migrate),
        cmocka_unit_test(test_step_and_burst),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_metrics_any_width),
        cmocka_unit_test(test_metrics_brute),
        cmocka_unit_test(test_metrics_gap_search),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
