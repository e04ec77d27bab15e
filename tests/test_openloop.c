/* test_openloop.c — the insert runner's open loop (openloop.c, insert --rate): order latency
 * sees commit stalls that per-statement latency misses, grows when orders come faster than
 * the store takes them, is bounded by --commit-ms at a low rate; the arrival schedule is
 * seeded; bad open-loop settings are refused; a model store reports no time. A fake store
 * (stalling commits, slow inserts) stands in for a real one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "insert.h"
#include "metrics.h"
#include "openloop.h"
#include "tmpdir.h"

#define NS_PER_MS 1000000LL
#define NS_PER_US 1000LL

/* The fake store's behaviour, set by each test. */
typedef struct fake_state {
    int stall_every;                  /* every Nth commit stalls (0: never) */
    int64_t stall_ns;                 /* for this long */
    int64_t insert_ns;                /* each insert takes this long */
    int64_t commits;
} fake_state;
static fake_state fake;

/* Spin for ns (a stall the runner cannot see as a sleep). */
static void busy(int64_t ns)
{
    int64_t end = idb_mono_ns() + ns;
    while (idb_mono_ns() < end) {}
}

static int fake_open(const char *dir, const idb_opts *o, int key_bytes, void **h, idb_err *e)
{
    (void)dir, (void)o, (void)key_bytes, (void)e;
    *h = &fake;
    return 0;
}

static int fake_insert(void *h, const idb_row *row, idb_err *err)
{
    (void)h, (void)row, (void)err;
    busy(fake.insert_ns);
    return 0;
}

static int fake_commit(void *h, idb_err *err)
{
    (void)h, (void)err;
    if (fake.stall_every && ++fake.commits % fake.stall_every == 0) busy(fake.stall_ns);
    return 0;
}

static int fake_stats(void *h, idb_store_stats *st, idb_err *err)
{
    (void)h, (void)err;
    *st = (idb_store_stats){ .leaf_pages = -1, .branch_pages = -1, .depth = -1,
                             .fill_factor = -1, .file_bytes = -1, .pages_written = -1,
                             .checkpoint_pages = -1, .wal_frames = -1, .read_pages = -1,
                             .cache_misses = -1, .splits = -1 };
    return 0;
}

static void fake_close(void *h) { (void)h; }

static const idb_store fake_store = {
    .version = IDB_STORE_VERSION, .name = "fake", .summary = "test store",
    .open = fake_open, .insert = fake_insert, .commit = fake_commit, .stats = fake_stats,
    .close = fake_close,
};

static int arrivals = IDB_ARRIVALS_POISSON;     /* of the runs below */

/* One run of n counter IDs into store at rate (0: closed loop); returns the result. */
static idb_insert_result run(const idb_store *store, long long n, double rate, int batch,
                             double commit_ms)
{
    char dir[256];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    idb_insert_config cfg = { .strategy = idb_strategy_find("counter"), .store = store,
                              .ids = n, .batch = batch, .shards = 1, .shops = 10,
                              .shop_skew = 1.0, .dir = dir, .seed = 7, .rate = rate,
                              .commit_ms = commit_ms, .arrivals = arrivals };
    idb_insert_result *res = malloc(sizeof *res);
    assert_non_null(res);
    idb_err err = { 0 };
    int rc = idb_insert_run(&cfg, res, &err);
    if (rc) fail_msg("run: %s", err.msg);
    idb_insert_result out = *res;
    free(res);
    idb_tmpdir_remove(dir);
    return out;
}

/* Every 10th commit stalls 20 ms: the orders waiting on it see the stall; the statements
 * (inserts) never do. */
static void stall_in_order_latency(void **state)
{
    (void)state;
    const int64_t stall = 20 * NS_PER_MS;
    fake = (fake_state){ .stall_every = 10, .stall_ns = stall };
    idb_insert_result r = run(&fake_store, 400, 2000, 1000, 2);
    assert_true(fake.commits >= 50);                 /* commit-ms, not batch, committed */
    assert_true(r.order_lat_max_ns >= stall);
    assert_true(r.lat_p50_ns < stall);   /* the median statement: no stall (a max was a
                                          * timing: one preemption on a loaded host broke it) */
    assert_true(r.commit_p99_ns >= stall);
    assert_true(r.rate_per_s == 2000);
}

/* Every commit takes 10 ms, orders come every 20 ms, one per commit: each order's latency
 * holds its own commit. */
static void own_commit_in_order_latency(void **state)
{
    (void)state;
    const int64_t stall = 10 * NS_PER_MS;
    fake = (fake_state){ .stall_every = 1, .stall_ns = stall };
    arrivals = IDB_ARRIVALS_FIXED;
    idb_insert_result r = run(&fake_store, 20, 50, 1, 0);
    arrivals = IDB_ARRIVALS_POISSON;
    assert_true(r.order_lat_p50_ns >= stall);
    assert_true(r.lat_p50_ns < stall);
}

/* Inserts take at least 500 us each (a busy loop: 2,000/s at most) and orders come at
 * 10,000/s: the store falls behind, and order i cannot be done before i inserts are, so it
 * waits at least i * (500 - 100) us: the median order of 200 at least ~40 ms, of 800 at
 * least ~160 ms, the 99th percentile of 800 at least ~316 ms (asserted at 3/4 of that, for
 * the Poisson arrivals). Lower bounds only: a loaded host makes every wait longer, never
 * shorter (a ratio of two runs' latencies, asserted before, failed under load). */
static void above_capacity_grows(void **state)
{
    (void)state;
    fake = (fake_state){ .insert_ns = 500 * NS_PER_US };
    idb_insert_result a = run(&fake_store, 200, 10000, 1, 0);
    idb_insert_result b = run(&fake_store, 800, 10000, 1, 0);   /* 4x the run: ~4x the wait */
    assert_true(a.order_lat_p50_ns > 30 * NS_PER_MS);
    assert_true(b.order_lat_p50_ns > 120 * NS_PER_MS);
    assert_true(b.order_lat_p99_ns > 237 * NS_PER_MS);
    assert_true(b.achieved_per_s < 2500);            /* the store's pace, not the offered */
}

/* At 100 orders/s with batches of 1,000, --commit-ms 5 commits order by order (orders come
 * ~10 ms apart: most find nothing uncommitted) and bounds each order's wait; without it,
 * the orders wait for the one commit at the end (the last order arrives ~1.5 s after the
 * first). Counted commits and a comparison, not a latency bound: a loaded host delays
 * both runs. */
static void commit_ms_bounds_wait(void **state)
{
    (void)state;
    fake = (fake_state){ .stall_every = 1 << 30 };   /* count commits, never stall */
    idb_insert_result timed = run(&fake_store, 150, 100, 1000, 5);
    int64_t timed_commits = fake.commits;
    fake = (fake_state){ .stall_every = 1 << 30 };
    idb_insert_result batched = run(&fake_store, 150, 100, 1000, 0);
    assert_true(timed_commits >= 50);
    assert_true(fake.commits <= 2);
    assert_true(batched.order_lat_p99_ns > 1000 * NS_PER_MS);
    assert_true(timed.order_lat_p50_ns < batched.order_lat_p50_ns);
}

/* The schedule: the same seed gives the same arrivals, another seed others; Poisson gaps
 * average 1/R; fixed arrivals are exactly i/R. */
static void arrivals_seeded(void **state)
{
    (void)state;
    enum { N = 100000 };
    const double rate = 5000;
    int64_t *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);
    assert_true(a && b && c);
    idb_arrivals_make(11, rate, IDB_ARRIVALS_POISSON, N, a);
    idb_arrivals_make(11, rate, IDB_ARRIVALS_POISSON, N, b);
    idb_arrivals_make(12, rate, IDB_ARRIVALS_POISSON, N, c);
    assert_memory_equal(a, b, N * sizeof *a);
    assert_memory_not_equal(a, c, N * sizeof *a);
    double mean_gap = (double)a[N - 1] / (N - 1), want = 1e9 / rate;
    assert_true(mean_gap > want * 0.98 && mean_gap < want * 1.02);
    int64_t shorter = 0;                             /* exponential: P(gap < mean) = 1 - 1/e */
    for (int i = 1; i < N; i++) shorter += a[i] - a[i - 1] < want;
    assert_true(shorter > N * 0.62 && shorter < N * 0.64);
    idb_arrivals_make(11, rate, IDB_ARRIVALS_FIXED, N, a);
    for (int i = 0; i < N; i++) assert_true(llabs(a[i] - (int64_t)(i * want)) <= 1);
    free(a), free(b), free(c);
}

/* Closed loop: no order latency, no rate; pagesim (a model): pages but no time. */
static void closed_and_model(void **state)
{
    (void)state;
    idb_insert_result c = run(idb_store_find("null"), 1000, 0, 100, 0);
    assert_true(c.order_lat_p99_ns == -1 && c.rate_per_s == -1);
    assert_true(c.achieved_per_s > 0 && c.seconds > 0 && c.lat_p99_ns >= 0);
    idb_insert_result p = run(idb_store_find("pagesim"), 1000, 0, 100, 0);
    assert_true(p.st.leaf_pages > 0);
    assert_true(p.seconds == -1 && p.inserts_per_s == -1 && p.gen_ns_per_id == -1);
    assert_true(p.lat_p99_ns == -1 && p.lat_max_ns == -1 && p.commit_p99_ns == -1);
    assert_true(p.achieved_per_s == -1 && p.order_lat_max_ns == -1);
}

/* Bad open-loop settings are refused before anything is made. */
static void bad_settings(void **state)
{
    (void)state;
    idb_insert_config base = { .strategy = idb_strategy_find("counter"),
                               .store = idb_store_find("null"), .ids = 10, .batch = 1,
                               .shards = 1, .shops = 1, .shop_skew = 1.0 };
    struct { double rate, commit_ms; const char *store; int arrivals; } bad[] = {
        { -1, 0, "null", 0 }, { 2e9, 0, "null", 0 }, { 0, 5, "null", 0 }, { 10, -1, "null", 0 },
        { 10, 0, "pagesim", 0 }, { 10, 0, "null", 9 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        idb_insert_config cfg = base;
        cfg.rate = bad[i].rate;
        cfg.commit_ms = bad[i].commit_ms;
        cfg.store = idb_store_find(bad[i].store);
        cfg.arrivals = bad[i].arrivals;
        idb_err err = { 0 };
        assert_int_equal(idb_insert_check(&cfg, &err), IDB_EINPUT);
    }
    idb_err err = { 0 };
    base.rate = 10;
    assert_int_equal(idb_insert_check(&base, &err), 0);
    int kind = -1;
    assert_int_equal(idb_arrivals_parse("fixed", &kind, &err), 0);
    assert_int_equal(kind, IDB_ARRIVALS_FIXED);
    assert_int_equal(idb_arrivals_parse("Poisson", &kind, &err), IDB_EINPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stall_in_order_latency), cmocka_unit_test(own_commit_in_order_latency),
        cmocka_unit_test(above_capacity_grows),
        cmocka_unit_test(commit_ms_bounds_wait), cmocka_unit_test(arrivals_seeded),
        cmocka_unit_test(closed_and_model), cmocka_unit_test(bad_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
