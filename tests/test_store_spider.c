/* test_store_spider.c — the `spider` store against real servers (it starts B backends and
 * a head each time: suite slow): rows inserted through the head are read back from each
 * backend directly (the test's own connection to the backend's socket, not Spider), and
 * each must be on the backend the test computes for it independently of split.c:
 *   range, split=space, 63-bit keys, 4 backends: backend = key >> 61;
 *   range, 16-byte keys, 4 backends: backend = the key's top two bits;
 *   hash, 3 backends: backend = key mod 3;
 *   range, split=sample: the points handed over by set_bounds (the test's own cut).
 * The store's own figures must agree: each backend's share is its rows / all rows (they sum
 * to 1), hot_share the largest, and the window figure the test's count over insert order.
 * Without the Spider plugin (IDB_SPIDER_SKIP set by test_spider.sh) it is skipped (77).
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <mysql.h>

#include "store_test.h"
#include "spider.h"

#define N_ROWS 1200
#define WINDOW 100

/* Every row's key as held by backend j of s: its count, and each key's backend checked
 * against want[] (the test's own placement of rows[i], found by its key). */
static int64_t held_on(sp_store *s, int j, const idb_row *rows, const int *want, int n)
{
    MYSQL *db = mysql_init(NULL);
    assert_non_null(mysql_real_connect(db, NULL, "root", NULL, SP_DB, 0, s->back[j]->socket,
                                       0));
    assert_int_equal(mysql_query(db, "SELECT id FROM orders"), 0);
    MYSQL_RES *res = mysql_store_result(db);
    assert_non_null(res);
    int64_t count = 0;
    for (MYSQL_ROW f; (f = mysql_fetch_row(res));) {
        unsigned long *len = mysql_fetch_lengths(res);
        uint8_t key[IDB_ID_MAX];
        int kb = s->key_bytes;
        if (kb == 8) idb_put_be64(key, strtoull(f[0], NULL, 10));
        else memcpy(key, f[0], len[0]);
        int i = 0;
        while (i < n && memcmp(rows[i].id.b, key, (size_t)kb) != 0) i++;
        if (i == n) fail_msg("backend %d holds a key the test did not insert", j);
        if (want[i] != j) fail_msg("row %d is on backend %d, its place is %d", i, j, want[i]);
        count++;
    }
    mysql_free_result(res);
    mysql_close(db);
    return count;
}

/* The largest share of one backend within any WINDOW consecutive rows of want[]. */
static double window_max(const int *want, int n, int parts)
{
    double best = 0;
    for (int s = 0; s + WINDOW <= n; s++) {
        int c[IDB_SPLIT_PARTS_MAX] = { 0 };
        for (int i = s; i < s + WINDOW; i++) c[want[i]]++;
        for (int j = 0; j < parts; j++)
            if ((double)c[j] / WINDOW > best) best = (double)c[j] / WINDOW;
    }
    return best;
}

/* Open with kv, (set_bounds when points), insert rows, check every backend directly and
 * the store's figures, close. */
static void check_run(const char *const *kv, int nkv, int kb, const idb_row *rows,
                      const int *want, int parts, const idb_id *points)
{
    char *dir = make_dir();
    void *h = NULL;
    idb_err err = { 0 };
    if (open_kv(dir, kb, kv, nkv, &h, &err)) fail_msg("open: %s", err.msg);
    if (points && S->set_bounds(h, points, parts - 1, &err)) fail_msg("bounds: %s", err.msg);
    for (int i = 0; i < N_ROWS; i++) {
        if (S->insert(h, &rows[i], &err)) fail_msg("insert: %s", err.msg);
        if (i % 250 == 249) assert_int_equal(S->commit(h, &err), 0);
    }
    assert_int_equal(S->commit(h, &err), 0);
    idb_store_stats st;
    if (S->stats(h, &st, &err)) fail_msg("stats: %s", err.msg);
    sp_store *s = h;
    double sum = 0, hot = 0;
    assert_int_equal(st.backends, parts);
    for (int j = 0; j < parts; j++) {
        int64_t c = held_on(s, j, rows, want, N_ROWS), expect = 0;
        for (int i = 0; i < N_ROWS; i++) expect += want[i] == j;
        assert_int_equal(c, expect);
        assert_true(st.backend_share[j] == (double)c / N_ROWS);
        sum += st.backend_share[j];
        if (st.backend_share[j] > hot) hot = st.backend_share[j];
        assert_true(st.backend_cpu_s[j] >= 0);
    }
    assert_true(sum > 1 - 1e-9 && sum < 1 + 1e-9);
    assert_true(st.hot_share == hot);
    assert_true(st.hot_share_window_max == window_max(want, N_ROWS, parts));
    assert_true(st.pages_written > 0 && st.backend_pages_written_max <= st.pages_written);
    S->close(h);
    drop_dir(dir);
}

/* range/space over 4 backends: keys spread over [0, 2^63) in runs, backend = key >> 61. */
static void test_range_space(void **state)
{
    (void)state;
    idb_row *rows = calloc(N_ROWS, sizeof *rows);
    int *want = calloc(N_ROWS, sizeof *want);
    idb_rng rng;
    idb_rng_seed(&rng, 3);
    for (int i = 0; i < N_ROWS; i++) {
        make_row(&rows[i], (uint64_t)i, 8, NULL);
        uint64_t v = (uint64_t)(i / 150 % 4) << 61 | (uint64_t)i << 20 |
                     idb_rng_below(&rng, 1 << 20);
        idb_id_set_u64(&rows[i].id, v);
        want[i] = (int)(v >> 61);
    }
    const char *kv[] = { "backends=4", "window=100" };
    check_run(kv, 2, 8, rows, want, 4, NULL);
    free(rows);
    free(want);
}

/* range/space with 16-byte keys: the 128-bit space's quarters, by the top two bits. */
static void test_range_space_16(void **state)
{
    (void)state;
    idb_row *rows = calloc(N_ROWS, sizeof *rows);
    int *want = calloc(N_ROWS, sizeof *want);
    idb_rng rng;
    idb_rng_seed(&rng, 4);
    for (int i = 0; i < N_ROWS; i++) {
        make_row(&rows[i], (uint64_t)i, 16, &rng);
        want[i] = rows[i].id.b[0] >> 6;
    }
    const char *kv[] = { "backends=4", "window=100", "partition=range" };
    check_run(kv, 3, 16, rows, want, 4, NULL);
    free(rows);
    free(want);
}

/* hash over 3 backends: a counter's keys 1, 2, 3 ... go to key mod 3, evenly. */
static void test_hash(void **state)
{
    (void)state;
    idb_row *rows = calloc(N_ROWS, sizeof *rows);
    int *want = calloc(N_ROWS, sizeof *want);
    for (int i = 0; i < N_ROWS; i++) {
        make_row(&rows[i], (uint64_t)i, 8, NULL);
        want[i] = (int)((uint64_t)(i + 1) % 3);
    }
    const char *kv[] = { "backends=3", "window=100", "partition=hash" };
    check_run(kv, 3, 8, rows, want, 3, NULL);
    free(rows);
    free(want);
}

/* range/sample: the points the runner would hand over (here: 400 and 1000 of keys 1..N in
 * 2 points for 3 backends); an ascending run fills them in turn. Bad points are refused. */
static void test_sample_points(void **state)
{
    (void)state;
    idb_row *rows = calloc(N_ROWS, sizeof *rows);
    int *want = calloc(N_ROWS, sizeof *want);
    idb_id points[2];
    idb_id_set_u64(&points[0], 400);
    idb_id_set_u64(&points[1], 1000);
    for (int i = 0; i < N_ROWS; i++) {
        make_row(&rows[i], (uint64_t)i, 8, NULL);
        want[i] = i + 1 < 400 ? 0 : i + 1 < 1000 ? 1 : 2;
    }
    const char *kv[] = { "backends=3", "window=100", "split=sample" };
    check_run(kv, 3, 8, rows, want, 3, points);
    free(rows);
    free(want);
}

static int setup(void **state)
{
    (void)state;
    S = idb_store_find("spider");
    return S ? 0 : -1;
}

int main(void)
{
    if (getenv("IDB_SPIDER_SKIP")) return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_range_space), cmocka_unit_test(test_range_space_16),
        cmocka_unit_test(test_hash), cmocka_unit_test(test_sample_points),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
