/* test_store_postgres.c — the postgres store against a throw-away server (test_postgres.sh
 * starts it and passes its conninfo in IDB_PG_DSN): rows read back equal rows written, for
 * every method, secondary=1 and every key width; 64-bit IDs above 2^63 keep their order;
 * page counts and sizes equal what an independent connection reads (pg_relation_size / block
 * size, count(*)); the shapes of the figures on a small run (ascending keys fill
 * pages and stay in order, random keys do not); bad input refused, a dead server a runtime
 * failure; the schema dropped at close (kept with keep=1) and nothing else touched.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "random.h"
#include "store.h"

#include "store_test.h"

#define KV_MAX 8
static char dsn_kv[1024];          /* "dsn=<IDB_PG_DSN>" */

/* kv: the dsn, then the n options of more. */
static int with_dsn(const char **kv, const char *const *more, int n)
{
    kv[0] = dsn_kv;
    for (int i = 0; i < n; i++) kv[i + 1] = more[i];
    return n + 1;
}

/* An independent connection to the test server. */
static PGconn *peer(void)
{
    PGconn *c = PQconnectdb(getenv("IDB_PG_DSN"));
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    return c;
}

/* The first value of sql on c as an integer (-1 when no row). */
static long long query_ll(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) fail_msg("%s: %s", sql, PQerrorMessage(c));
    long long v = PQntuples(r) ? atoll(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    return v;
}

/* How many schemas this process made (idbench_<pid>_...) exist on the server. */
static long long our_schemas(PGconn *c)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE "
             "'idbench\\_%ld\\_%%'", (long)getpid());
    return query_ll(c, sql);
}

/* Rows read back equal rows written: 8- and 16-byte keys for each method, secondary=1. */
static void test_roundtrip_methods(void **st)
{
    (void)st;
    static const char *const sets[][2] = {
        { "method=prepared", "secondary=0" }, { "method=pipeline", "secondary=0" },
        { "method=copy", "secondary=0" }, { "method=pipeline", "secondary=1" },
        { "method=copy", "secondary=1" },
    };
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
        const char *kv[KV_MAX];
        int n = with_dsn(kv, sets[i], 2);
        roundtrip(8, kv, n);
        roundtrip(16, kv, n);
    }
}

/* ... at 1, 5, 20 and 32 bytes (bytea), with no payload and a large one. */
static void test_roundtrip_widths(void **st)
{
    (void)st;
    static const int widths[] = { 1, 5, 20, IDB_ID_MAX };
    const char *kv[KV_MAX], *more[] = { "row_bytes=0" }, *big[] = { "row_bytes=3000" };
    int n = with_dsn(kv, NULL, 0);
    for (size_t i = 0; i < sizeof widths / sizeof *widths; i++) roundtrip(widths[i], kv, n);
    roundtrip(12, kv, with_dsn(kv, more, 1));
    roundtrip(9, kv, with_dsn(kv, big, 1));
}

/* 64-bit IDs on both sides of 2^63 come back in unsigned order (the bigint mapping). */
static void test_bigint_order(void **st)
{
    (void)st;
    static const uint64_t keys[] = { 0xffffffffffffffffu, 1, 0x8000000000000000u,
                                     0x7fffffffffffffffu, 0x8000000000000001u, 0xffffffffu,
                                     0 };
    enum { N = sizeof keys / sizeof *keys };
    const char *kv[KV_MAX];
    void *h = NULL;
    idb_err err = { 0 };
    assert_int_equal(open_kv("/", 8, kv, with_dsn(kv, NULL, 0), &h, &err), 0);
    for (int i = 0; i < N; i++) {
        idb_row r;
        make_row(&r, (uint64_t)i, 8, NULL);
        idb_put_be64(r.id.b, keys[i]);
        assert_int_equal(S->insert(h, &r, &err), 0);
    }
    assert_int_equal(S->commit(h, &err), 0);
    collected c = { calloc(N + 1, sizeof(idb_row)), 0, N + 1 };
    assert_int_equal(S->scan(h, collect, &c, &err), 0);
    S->close(h);
    assert_int_equal(c.n, N);
    for (int i = 1; i < N; i++)
        assert_true(idb_get_be64(c.rows[i - 1].id.b) < idb_get_be64(c.rows[i].id.b));
    assert_true(idb_get_be64(c.rows[N - 1].id.b) == 0xffffffffffffffffu);
    free(c.rows);
}

/* Insert n rows (random keys when rng, else ascending) committing every batch. */
static void fill(void *h, int key_bytes, idb_rng *rng, int n, int batch)
{
    idb_err err = { 0 };
    for (int i = 0; i < n; i++) {
        idb_row r;
        make_row(&r, (uint64_t)i, key_bytes, rng);
        assert_int_equal(S->insert(h, &r, &err), 0);
        if ((i + 1) % batch == 0) assert_int_equal(S->commit(h, &err), 0);
    }
    assert_int_equal(S->commit(h, &err), 0);
}

/* The store's figures against an independent connection's: the index's pages (leaf +
 * internal + the meta page) and bytes, the table's bytes, the rows; shape in range. */
static void test_pages_match_relation_size(void **st)
{
    (void)st;
    const char *kv[KV_MAX], *sec[] = { "secondary=1" };
    for (int secondary = 0; secondary <= 1; secondary++) {
        void *h = NULL;
        idb_err err = { 0 };
        idb_rng rng;
        idb_rng_seed(&rng, 11);
        int n = with_dsn(kv, sec, secondary);
        assert_int_equal(open_kv("/", 16, kv, n, &h, &err), 0);
        fill(h, 16, &rng, 20000, 1000);
        idb_store_stats s;
        assert_int_equal(S->stats(h, &s, &err), 0);
        PGconn *c = peer();
        char sql[512], ns[128];
        snprintf(ns, sizeof ns, "(SELECT oid FROM pg_namespace WHERE nspname LIKE "
                 "'idbench\\_%ld\\_%%')", (long)getpid());
        long long bs = query_ll(c, "SELECT current_setting('block_size')::int");
        snprintf(sql, sizeof sql, "SELECT pg_relation_size(oid) FROM pg_class WHERE relname = "
                 "'orders_id' AND relnamespace = %s", ns);
        long long idx = query_ll(c, sql);
        snprintf(sql, sizeof sql, "SELECT pg_relation_size(oid) FROM pg_class WHERE relname = "
                 "'orders' AND relnamespace = %s", ns);
        long long tbl = query_ll(c, sql);
        PGresult *r = PQexec(c, "SELECT nspname FROM pg_namespace WHERE nspname LIKE "
                             "'idbench\\_%'");
        assert_int_equal(PQntuples(r), 1);
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s.orders", PQgetvalue(r, 0, 0));
        PQclear(r);
        assert_int_equal(query_ll(c, sql), 20000);
        S->close(h);
        assert_true(s.has_server && idx > 0 && tbl > 0);
        assert_int_equal(s.index_bytes, idx);
        assert_int_equal(s.table_bytes, tbl);
        assert_int_equal(s.leaf_pages + s.branch_pages + 1, idx / bs);
        assert_true(s.file_bytes >= idx + tbl);
        assert_true(s.depth >= 2 && s.fill_factor > 0.5 && s.fill_factor <= 1);
        assert_true(s.wal_bytes > 20000 * 16 && s.splits >= s.leaf_pages - 1);
        assert_true(s.cache_misses >= 0 && s.fpi >= 0);
        PQfinish(c);
    }
}

/* The figures in small: ascending 8-byte keys fill leaves to ~90% in order;
 * random 16-byte keys leave them ~70% full and out of order, in an index at least 1.6x the
 * bytes, with more splits per row. */
static void test_fill_shapes(void **st)
{
    (void)st;
    const char *kv[KV_MAX];
    idb_store_stats asc, rnd;
    idb_err err = { 0 };
    idb_rng rng;
    idb_rng_seed(&rng, 5);
    void *h = NULL;
    assert_int_equal(open_kv("/", 8, kv, with_dsn(kv, NULL, 0), &h, &err), 0);
    fill(h, 8, NULL, 50000, 1000);
    assert_int_equal(S->stats(h, &asc, &err), 0);
    S->close(h);
    assert_int_equal(open_kv("/", 16, kv, with_dsn(kv, NULL, 0), &h, &err), 0);
    fill(h, 16, &rng, 50000, 1000);
    assert_int_equal(S->stats(h, &rnd, &err), 0);
    S->close(h);
    assert_true(asc.fill_factor >= 0.88 && asc.leaf_fragmentation == 0);
    assert_true(rnd.fill_factor >= 0.6 && rnd.fill_factor <= 0.8);
    assert_true(rnd.leaf_fragmentation >= 0.4);
    assert_true((double)rnd.index_bytes >= 1.6 * (double)asc.index_bytes);
    assert_true(rnd.splits > asc.splits);
}

/* Bad input is IDB_EINPUT (before connecting); a server that is not there is IDB_EIO. */
static void test_bad_input(void **st)
{
    (void)st;
    static const char *const bad[][2] = {
        { "dsn=host='unterminated", "row_bytes=1" }, { "dsn=nonsense", "row_bytes=1" },
        { "dsn_file=/nonexistent/dsns", "row_bytes=1" }, { "shared_buffers=12XB", "keep=0" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        void *h = NULL;
        idb_err err = { 0 };
        assert_int_equal(open_kv("/", 16, bad[i], 2, &h, &err), IDB_EINPUT);
    }
    const char *both[] = { dsn_kv, "dsn_file=/dev/null" };
    void *h = NULL;
    idb_err err = { 0 };
    assert_int_equal(open_kv("/", 16, both, 2, &h, &err), IDB_EINPUT);
    const char *gone[] = { "dsn=host=/nonexistent-socket-dir user=postgres" };
    assert_int_equal(open_kv("/", 16, gone, 1, &h, &err), IDB_EIO);
    assert_non_null(strstr(err.msg, "cannot connect"));
}

/* A duplicate key is IDB_EINPUT for every method (at insert, or at the commit that sends
 * it); a key of the wrong width too. */
static void test_duplicate_key(void **st)
{
    (void)st;
    static const char *const methods[] = { "method=prepared", "method=pipeline", "method=copy" };
    for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
        const char *kv[KV_MAX];
        void *h = NULL;
        idb_err err = { 0 };
        idb_row r;
        assert_int_equal(open_kv("/", 8, kv, with_dsn(kv, &methods[m], 1), &h, &err), 0);
        make_row(&r, 1, 8, NULL);
        assert_int_equal(S->insert(h, &r, &err), 0);
        int rc = S->insert(h, &r, &err);
        if (!rc) rc = S->commit(h, &err);
        assert_int_equal(rc, IDB_EINPUT);
        assert_non_null(strstr(err.msg, "duplicate"));
        S->close(h);
    }
    const char *kv[KV_MAX];
    void *h = NULL;
    idb_err err = { 0 };
    idb_row r;
    assert_int_equal(open_kv("/", 8, kv, with_dsn(kv, NULL, 0), &h, &err), 0);
    make_row(&r, 1, 16, NULL);
    assert_int_equal(S->insert(h, &r, &err), IDB_EINPUT);
    S->close(h);
}

/* close drops our schema (keep=1 keeps it); a table of the user's is not touched. */
static void test_schema_dropped_or_kept(void **st)
{
    (void)st;
    PGconn *c = peer();
    PQclear(PQexec(c, "CREATE TABLE IF NOT EXISTS public.users_own (x int)"));
    const char *kv[KV_MAX], *keep[] = { "keep=1" };
    for (int k = 0; k <= 1; k++) {
        void *h = NULL;
        idb_err err = { 0 };
        assert_int_equal(open_kv("/", 16, kv, with_dsn(kv, keep, k), &h, &err), 0);
        fill(h, 16, NULL, 100, 30);
        assert_int_equal(our_schemas(c), 1);
        S->close(h);
        assert_int_equal(our_schemas(c), k);
    }
    char sql[256];
    snprintf(sql, sizeof sql, "DO $$ DECLARE s text; BEGIN FOR s IN SELECT nspname FROM "
             "pg_namespace WHERE nspname LIKE 'idbench\\_%ld\\_%%' LOOP EXECUTE 'DROP SCHEMA ' "
             "|| s || ' CASCADE'; END LOOP; END $$", (long)getpid());
    PQclear(PQexec(c, sql));
    assert_int_equal(our_schemas(c), 0);
    assert_int_equal(query_ll(c, "SELECT count(*) FROM pg_class WHERE relname = 'users_own'"), 1);
    assert_int_equal(query_ll(c, "SELECT count(*) FROM pg_replication_slots"), 0);
    PQfinish(c);
}

int main(void)
{
    S = idb_store_find("postgres");
    const char *dsn = getenv("IDB_PG_DSN");
    if (!S || !dsn) {
        fprintf(stderr, "test_store_postgres: run by test_postgres.sh (IDB_PG_DSN)\n");
        return 1;
    }
    snprintf(dsn_kv, sizeof dsn_kv, "dsn=%s", dsn);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_methods),
        cmocka_unit_test(test_roundtrip_widths),
        cmocka_unit_test(test_bigint_order),
        cmocka_unit_test(test_pages_match_relation_size),
        cmocka_unit_test(test_fill_shapes),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_duplicate_key),
        cmocka_unit_test(test_schema_dropped_or_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
