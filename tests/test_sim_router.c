/* test_sim_router.c — the simulator's routing by ID (sim_router.h) and the shares of
 * inserts per shard: per second and over the run the shards' inserts add up to the orders
 * that got an ID (the shares to 1); hash routing spreads a counter within the binomial
 * tolerance; range routing in equal slices puts every time-ordered strategy's inserts on
 * one shard and the uniform ones' near 1/B, each row on the shard its key's slice says
 * (recomputed here from the IDs); range_max_rows splits at the median as often as the
 * arithmetic says for a counter, moving the hot range to the least-loaded shard; the run's
 * quantiles (range_split = sample) even out the run but not the seconds; shop routing's
 * shares are those of the shops' homes. Strategies are picked by their declarations.
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
#include "sim_router.h"

#define B 4

/* 4 shards, 8 instances, 10,000 orders per second for 4 s, seed 11. */
static void workload(sim_workload *w, int routing)
{
    sim_workload_defaults(w);
    w->seed = 11;
    w->duration_s = 4;
    w->shards = B;
    w->routing = routing;
}

/* A 6-sigma binomial bound on one of B shares of n uniform keys. */
static double tol(double n)
{
    return 6 * sqrt((1.0 / B) * (1 - 1.0 / B) / n);
}

/* Make w's stream, run st with the timeline (and ids when not NULL: s->n entries). */
static void run(const sim_workload *w, const idb_strategy *st, sim_result *r, sim_stream *s,
                idb_id **ids)
{
    idb_err err = { 0 };
    if (sim_stream_make(w, s, &err) != 0) fail_msg("stream: %s", err.msg);
    sim_run_opts o = { .timeline = 1 };
    if (ids) o.ids_out = *ids = calloc((size_t)s->n + 1, sizeof **ids);
    if (sim_run(w, s, st, &o, r, &err) != 0) fail_msg("%s: %s", st->name, err.msg);
}

/* The run's inserts per shard, summed from the timeline; asserts each second's inserts
 * are its orders less its failed ones, and its shares sum to 1. Returns the inserts. */
static int64_t timeline_totals(const sim_result *r, int64_t *per_shard)
{
    memset(per_shard, 0, (size_t)r->tl_shards * sizeof *per_shard);
    int64_t all = 0;
    for (int64_t s = 0; s < r->timeline_n; s++) {
        int64_t sum = 0;
        double share = 0;
        for (int k = 0; k < r->tl_shards; k++) sum += r->tl_shard[s * r->tl_shards + k];
        for (int k = 0; k < r->tl_shards && sum; k++) {
            share += (double)r->tl_shard[s * r->tl_shards + k] / (double)sum;
            per_shard[k] += r->tl_shard[s * r->tl_shards + k];
        }
        assert_int_equal(sum, r->tl_orders[s] - r->tl_failed[s]);
        if (sum) assert_true(fabs(share - 1) < 1e-9);
        all += sum;
    }
    assert_int_equal(all, r->orders - r->failed_orders);
    return all;
}

/* The largest of n counts over their total. */
static double largest_share(const int64_t *c, int n)
{
    int64_t sum = 0, max = 0;
    for (int k = 0; k < n; k++) { sum += c[k]; max = c[k] > max ? c[k] : max; }
    return sum ? (double)max / (double)sum : 0;
}

/* The slice of the key space an ID falls in (equal slices of 2^value_bits), recomputed
 * here from its bytes: the value's top bits times B. */
static int slice_of(const idb_strategy *st, const idb_id *id)
{
    int lead = st->bits - idb_strategy_value_bits(st);
    int byte = lead / 8, bit = lead % 8;
    /* the two bits of the value from bit `lead` (B = 4 slices) */
    unsigned v = (unsigned)id->b[byte] << 8 | (byte + 1 < id->len ? id->b[byte + 1] : 0);
    return (int)(v >> (14 - bit) & 3);
}

/* Shares add up per second and over the run, for every routing, and hot_share is the
 * largest of the run's per-shard totals. */
static void test_shares_sum(void **state)
{
    (void)state;
    static const char *const names[] = { "uuidv4", "counter", "snowflake" };
    for (int routing = SIM_ROUTE_SHOP; routing <= SIM_ROUTE_HASH; routing++)
        for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
            sim_workload w;
            workload(&w, routing);
            sim_result r;
            sim_stream s;
            run(&w, idb_strategy_find(names[i]), &r, &s, NULL);
            int64_t tot[B];
            assert_int_equal(r.tl_shards, B);
            timeline_totals(&r, tot);
            assert_true(fabs(r.hot_share - largest_share(tot, B)) < 1e-12);
            assert_true(r.hot_share_p99 >= 1.0 / B && r.hot_share_p99 <= 1);
            assert_int_equal(r.routing, routing);
            assert_int_equal(r.range_splits, -1);
            sim_result_free(&r);
            sim_stream_free(&s);
        }
}

/* hash routing of a counter (1, 2, 3 ...): every shard within 6 sigma of 1/B. */
static void test_hash_counter_even(void **state)
{
    (void)state;
    sim_workload w;
    workload(&w, SIM_ROUTE_HASH);
    sim_result r;
    sim_stream s;
    run(&w, idb_strategy_find("counter"), &r, &s, NULL);
    int64_t tot[B];
    double n = (double)timeline_totals(&r, tot);
    for (int k = 0; k < B; k++) {
        double share = (double)tot[k] / n;
        if (fabs(share - 1.0 / B) > tol(n)) fail_msg("shard %d: %.4f", k, share);
    }
    assert_true(r.hot_share <= 1.0 / B + tol(n));
    sim_result_free(&r);
    sim_stream_free(&s);
}

/* range routing in equal slices: every row on the shard of its key's slice (recomputed from
 * the IDs); time-ordered strategies on one shard (counter, snowflake, uuidv7 ...), uniform
 * ones (uuidv4, bitrev, autorandom) near 1/B. */
static void test_range_space(void **state)
{
    (void)state;
    int judged = 0;
    for (const idb_strategy *const *p = idb_strategies; *p; p++) {
        sim_workload w;
        workload(&w, SIM_ROUTE_RANGE);
        sim_result r;
        sim_stream s;
        idb_id *ids;
        run(&w, *p, &r, &s, &ids);
        int64_t tot[B], mine[B] = { 0 };
        double n = (double)timeline_totals(&r, tot);
        for (int64_t j = 0; j < s.n; j++)
            if (ids[j].len) mine[slice_of(*p, &ids[j])]++;
        for (int k = 0; k < B; k++)
            if (mine[k] != tot[k]) fail_msg("%s, shard %d: %lld rows, its slice holds %lld",
                                            (*p)->name, k, (long long)tot[k], (long long)mine[k]);
        if ((*p)->time_ordered && r.hot_share < 0.999)
            fail_msg("%s (time-ordered): hot_share %.4f", (*p)->name, r.hot_share);
        if ((*p)->uniform_bits >= 2 && r.hot_share > 1.0 / B + tol(n))
            fail_msg("%s (uniform lead): hot_share %.4f", (*p)->name, r.hot_share);
        judged += (*p)->time_ordered || (*p)->uniform_bits >= 2;
        assert_int_equal(r.ranges, B);
        free(ids);
        sim_result_free(&r);
        sim_stream_free(&s);
    }
    assert_true(judged >= 4);
    assert_non_null(idb_strategy_find("bitrev"));
    assert_true(idb_strategy_find("bitrev")->uniform_bits == 63);
    assert_true(idb_strategy_find("counter")->time_ordered);
}

/* A strategy with few uniform bits (autorandom: 5 shard bits) spreads over 2^bits places
 * only: over 64 equal ranges, 32 take its inserts, each about 1/32 of them. */
static void test_uniform_bits_places(void **state)
{
    (void)state;
    int tested = 0;
    for (const idb_strategy *const *p = idb_strategies; *p; p++) {
        int bits = (*p)->uniform_bits;
        if (bits < 1 || bits > 5) continue;
        sim_workload w;
        workload(&w, SIM_ROUTE_RANGE);
        w.shards = 64;
        sim_result r;
        sim_stream s;
        run(&w, *p, &r, &s, NULL);
        int64_t tot[64];
        double n = (double)timeline_totals(&r, tot), place = 1.0 / (1 << bits);
        int used = 0;
        for (int k = 0; k < 64; k++) used += tot[k] > 0;
        assert_int_equal(used, 1 << bits);
        if (fabs(r.hot_share - place) > 6 * sqrt(place * (1 - place) / n))
            fail_msg("%s: hot_share %.4f, expected about %.4f", (*p)->name, r.hot_share, place);
        tested++;
        sim_result_free(&r);
        sim_stream_free(&s);
    }
    assert_true(tested >= 1);
}

/* range_max_rows = R on a counter: the last range takes every insert and splits at its
 * median when it holds R + 1 rows, keeping ceil((R + 1) / 2): splits = 1 + (n - R - 1) /
 * floor((R + 1) / 2) for n >= R + 1 rows; the timeline's last ranges count is B + splits;
 * the hot range moves to the least-loaded shard, so the run's shares even out while each
 * second's stays high, and the moved rows are counted. */
static void test_range_splits(void **state)
{
    /* R = 101 and 1000: the hot range moves 20 or 200 times a second, so no shard keeps a
     * second (101: about 780 splits, so a median off by one row changes the count); R =
     * 19,999: once a second, so each second has one hot shard, and the first 20,000 rows
     * (half the run) were inserted on shard 0 */
    (void)state;
    static const int64_t limits[] = { 101, 1000, 19999 };
    for (size_t i = 0; i < sizeof limits / sizeof *limits; i++) {
        int64_t R = limits[i];
        sim_workload w;
        workload(&w, SIM_ROUTE_RANGE);
        w.range_max_rows = R;
        sim_result r;
        sim_stream s;
        run(&w, idb_strategy_find("counter"), &r, &s, NULL);
        int64_t tot[B], n = timeline_totals(&r, tot);
        int64_t want = n >= R + 1 ? 1 + (n - R - 1) / ((R + 1) / 2) : 0;
        if (r.range_splits != want)
            fail_msg("R %lld, %lld rows: %lld splits, expected %lld", (long long)R, (long long)n,
                     (long long)r.range_splits, (long long)want);
        assert_int_equal(r.ranges, B + want);
        assert_int_equal(r.tl_ranges[r.timeline_n - 1], B + want);
        assert_true(r.moved_orders > 0);
        if (R < 19999) assert_true(r.hot_share < 0.3);   /* round the shards, 20+ times a s */
        else assert_true(r.hot_share <= 0.51 && r.hot_share_p99 > 0.5);   /* once a second */
        sim_result_free(&r);
        sim_stream_free(&s);
    }
}

/* range_split = sample: a counter's run evens out over the shards (its own quantiles),
 * each second does not: the hot spot moves. */
static void test_range_sample(void **state)
{
    (void)state;
    sim_workload w;
    workload(&w, SIM_ROUTE_RANGE);
    w.range_split = SIM_SPLIT_SAMPLE;
    w.duration_s = 8;
    sim_result r;
    sim_stream s;
    run(&w, idb_strategy_find("counter"), &r, &s, NULL);
    int64_t tot[B];
    timeline_totals(&r, tot);
    assert_true(r.hot_share < 1.0 / B + 0.01);
    assert_true(r.hot_share_p99 > 0.95);
    assert_int_equal(r.range_split, SIM_SPLIT_SAMPLE);
    sim_result_free(&r);
    sim_stream_free(&s);
    /* uniform keys stay even with the run's quantiles: bitrev too (a sample of every k-th
     * order took one residue of its counter mod k, whose IDs share their top bits: 0.5) */
    static const char *const even[] = { "bitrev", "uuidv4" };
    for (size_t i = 0; i < sizeof even / sizeof *even; i++) {
        run(&w, idb_strategy_find(even[i]), &r, &s, NULL);
        if (r.hot_share > 1.0 / B + 0.02)
            fail_msg("%s, range_split = sample: hot_share %.4f", even[i], r.hot_share);
        sim_result_free(&r);
        sim_stream_free(&s);
    }
}

/* shop routing: the shares are those of the shops' homes (recomputed from the stream). */
static void test_shop_shares(void **state)
{
    (void)state;
    sim_workload w;
    workload(&w, SIM_ROUTE_SHOP);
    w.shop_skew = 1.5;
    sim_result r;
    sim_stream s;
    idb_id *ids;
    run(&w, idb_strategy_find("uuidv7"), &r, &s, &ids);
    int64_t tot[B], mine[B] = { 0 };
    timeline_totals(&r, tot);
    for (int64_t j = 0; j < s.n; j++)
        if (ids[j].len) mine[s.home[s.shop[j]]]++;
    for (int k = 0; k < B; k++) assert_int_equal(mine[k], tot[k]);
    assert_true(fabs(r.hot_share - largest_share(mine, B)) < 1e-12);
    assert_int_equal(r.ranges, 0);
    free(ids);
    sim_result_free(&r);
    sim_stream_free(&s);
}

/* The router's arithmetic by hand: equal slices of 3, the key of a 63-bit value, the
 * sample's split points. */
static void test_router_by_hand(void **state)
{
    (void)state;
    sim_workload w;
    workload(&w, SIM_ROUTE_RANGE);
    w.shards = 3;
    sim_router r;
    idb_err err = { 0 };
    assert_int_equal(sim_router_init(&r, &w, idb_strategy_find("snowflake"), NULL, &err), 0);
    assert_int_equal(r.n, 3);
    assert_true(r.lo[1] == UINT64_C(6148914691236517206));    /* ceil(2^64 / 3) */
    assert_true(r.lo[2] == UINT64_C(12297829382473034411));   /* ceil(2^65 / 3) */
    assert_true(sim_router_key_u64(&r, UINT64_C(1) << 62) == UINT64_C(1) << 63);
    idb_id id = { .len = 8 };
    idb_id_set_u64(&id, (UINT64_C(1) << 63) - 1);              /* the largest: last slice */
    int64_t range;
    assert_int_equal(sim_router_route(&r, &id, &range), 2);
    idb_id_set_u64(&id, UINT64_C(3074457345618258602));       /* 2^63 / 3, rounded down */
    assert_int_equal(sim_router_route(&r, &id, &range), 0);
    sim_router_free(&r);
    uint64_t sample[] = { 9, 1, 5, 5, 5, 7 }, bounds[2];
    sim_router_bounds(sample, 6, 3, bounds);                 /* sorted: 1 5 5 5 7 9 */
    assert_true(bounds[0] == 5 && bounds[1] == 7);           /* ranks 2 and 4 */
    uint64_t flat[] = { 9, 5, 5, 5, 5, 5 };
    sim_router_bounds(flat, 6, 3, bounds);                   /* 5 twice: raised to 6 */
    assert_true(bounds[0] == 5 && bounds[1] == 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_router_by_hand),
        cmocka_unit_test(test_shares_sum),
        cmocka_unit_test(test_hash_counter_even),
        cmocka_unit_test(test_range_space),
        cmocka_unit_test(test_uniform_bits_places),
        cmocka_unit_test(test_range_splits),
        cmocka_unit_test(test_range_sample),
        cmocka_unit_test(test_shop_shares),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
