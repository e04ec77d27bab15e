/* test_store_mariadb.c — the `mariadb` store against a real server: rows read back as
 * written at every width (and with secondary=1), duplicates refused, the page figures checked
 * against the .ibd file's own pages and SHOW TABLE STATUS, and the relations the issue
 * quotes (uuid-like keys take more leaf pages than ascending ones; with a pool smaller than
 * the index they miss the pool far more often) on small runs.
 *
 * Run by tests/test_mariadb.sh, which starts a throw-away server with a 6 MiB buffer pool and
 * passes IDB_MD_SOCKET (its socket) and IDB_MD_DATADIR (its data directory, to read .ibd
 * files); without them the test fails.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <mysql.h>

#include "store_test.h"

#define PAGE_TYPE_INDEX 17855     /* FIL_PAGE_INDEX */
#define FIL_PAGE_TYPE 24          /* offsets in a page (fil0fil.h, page0page.h) */
#define PAGE_HDR 38
#define PAGE_HEAP_TOP (PAGE_HDR + 2)
#define PAGE_GARBAGE (PAGE_HDR + 8)
#define PAGE_LEVEL (PAGE_HDR + 26)
#define PAGE_INDEX_ID (PAGE_HDR + 28)
#define SUPREMUM_END 120          /* PAGE_NEW_SUPREMUM_END: where records start */
#define PAGE_OVERHEAD 128         /* mariadb_stats.c: what a page holds apart from records */
#define PRIMARY_ROOT 3            /* file-per-table: the first index's root page */
#define FILL_TOLERANCE 0.01

static char sock_kv[PATH_MAX + 16];

static int setup(void **state)
{
    (void)state;
    S = idb_store_find("mariadb");
    const char *sock = getenv("IDB_MD_SOCKET");
    if (!S || !sock || !getenv("IDB_MD_DATADIR")) return -1;
    snprintf(sock_kv, sizeof sock_kv, "socket=%s", sock);
    return 0;
}

/* Rows read back equal rows written, at every width store_test.h tries and 8 and 16. */
static void test_roundtrip(void **state)
{
    (void)state;
    static const int widths[] = { 1, 5, 8, 16, 20, IDB_ID_MAX };
    const char *kv[] = { sock_kv, "row_bytes=300" };
    for (size_t i = 0; i < sizeof widths / sizeof *widths; i++) roundtrip(widths[i], kv, 2);
}

static void test_roundtrip_secondary(void **state)
{
    (void)state;
    const char *kv[] = { sock_kv, "secondary=1", "row_bytes=0" };
    roundtrip(16, kv, 3);
    roundtrip(8, kv, 3);
}

/* A duplicate ID is bad input (IDB_EINPUT), and the store still works after it. */
static void test_duplicate(void **state)
{
    (void)state;
    const char *kv[] = { sock_kv };
    void *h = NULL;
    idb_err err = { 0 };
    idb_row r;
    make_row(&r, 7, 16, NULL);
    assert_int_equal(open_kv("/", 16, kv, 1, &h, &err), 0);
    assert_int_equal(S->insert(h, &r, &err), 0);
    assert_int_equal(S->insert(h, &r, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "Duplicate"));
    assert_int_equal(S->commit(h, &err), 0);
    S->close(h);
}

/* Insert n rows of key_bytes with options kv; ascending keys unless rng. Returns stats. */
static void run_rows(const char *const *kv, int nkv, int n, int key_bytes, idb_rng *rng,
                     idb_store_stats *st, void (*inspect)(void *h))
{
    void *h = NULL;
    idb_err err = { 0 };
    assert_int_equal(open_kv("/", key_bytes, kv, nkv, &h, &err), 0);
    for (int i = 0; i < n; i++) {
        idb_row r;
        make_row(&r, (uint64_t)i, key_bytes, rng);
        if (rng && key_bytes >= 8) idb_put_be(r.id.b + key_bytes - 4, (uint64_t)i, 4);
        assert_int_equal(S->insert(h, &r, &err), 0);
        if ((i + 1) % 1000 == 0) assert_int_equal(S->commit(h, &err), 0);
    }
    assert_int_equal(S->commit(h, &err), 0);
    int rc = S->stats(h, st, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
    if (inspect) inspect(h);
    S->close(h);
}

/* What the .ibd file says about the index whose root is page root: its leaf pages and the
 * bytes of their live records. */
typedef struct ibd_count { int64_t leaves, record_bytes; } ibd_count;

static ibd_count count_ibd(const char *path, long psize, int root)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t *p = malloc((size_t)psize);
    ibd_count c = { 0, 0 };
    uint64_t index_id = 0;
    assert_int_equal(fseek(f, (long)root * psize, SEEK_SET), 0);
    assert_int_equal(fread(p, 1, (size_t)psize, f), (size_t)psize);
    index_id = idb_get_be(p + PAGE_INDEX_ID, 8);
    rewind(f);
    while (fread(p, 1, (size_t)psize, f) == (size_t)psize) {
        if (idb_get_be(p + FIL_PAGE_TYPE, 2) != PAGE_TYPE_INDEX) continue;
        if (idb_get_be(p + PAGE_INDEX_ID, 8) != index_id) continue;
        if (idb_get_be(p + PAGE_LEVEL, 2) != 0) continue;
        c.leaves++;
        c.record_bytes += (int64_t)idb_get_be(p + PAGE_HEAP_TOP, 2) - SUPREMUM_END -
                          (int64_t)idb_get_be(p + PAGE_GARBAGE, 2);
    }
    free(p);
    fclose(f);
    return c;
}

typedef struct md_peek { char dbname[64]; } md_peek;
static md_peek peek;

/* inspect hook: the store's database name (the first field after the connection is not
 * public; ask the server which idbench_ database exists). */
static void find_db(void *h)
{
    (void)h;
    MYSQL *db = mysql_init(NULL);
    assert_non_null(mysql_real_connect(db, NULL, NULL, NULL, NULL, 0, getenv("IDB_MD_SOCKET"),
                                       0));
    assert_int_equal(mysql_query(db, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA "
                                     "WHERE SCHEMA_NAME LIKE 'idbench\\_%'"), 0);
    MYSQL_RES *res = mysql_store_result(db);
    MYSQL_ROW row = mysql_fetch_row(res);
    assert_non_null(row);
    snprintf(peek.dbname, sizeof peek.dbname, "%s", row[0]);
    assert_null(mysql_fetch_row(res));              /* only the store's own database */
    mysql_free_result(res);
    mysql_close(db);
}

static ibd_count counted;
static int64_t data_length;
static int ibd_root = PRIMARY_ROOT;

/* inspect hook: count the .ibd's pages (stats() flushed the table) and SHOW TABLE STATUS. */
static void inspect_ibd(void *h)
{
    find_db(h);
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/%s/orders.ibd", getenv("IDB_MD_DATADIR"), peek.dbname);
    counted = count_ibd(path, 16384, ibd_root);
    MYSQL *db = mysql_init(NULL);
    assert_non_null(mysql_real_connect(db, NULL, NULL, NULL, peek.dbname, 0,
                                       getenv("IDB_MD_SOCKET"), 0));
    assert_int_equal(mysql_query(db, "SELECT DATA_LENGTH, INDEX_LENGTH FROM "
                                     "information_schema.TABLES WHERE TABLE_NAME = 'orders' "
                                     "AND TABLE_SCHEMA = DATABASE()"), 0);
    MYSQL_RES *res = mysql_store_result(db);
    MYSQL_ROW row = mysql_fetch_row(res);
    assert_non_null(row);
    data_length = strtoll(row[ibd_root == PRIMARY_ROOT ? 0 : 1], NULL, 10);
    mysql_free_result(res);
    mysql_close(db);
}

/* leaf_pages and fill_factor against the leaf pages and record bytes in the .ibd file
 * itself; the index's reserved size (SHOW TABLE STATUS) holds at least those pages. */
static void check_pages(const char *secondary, int root, int n)
{
    const char *kv[] = { sock_kv, "row_bytes=100", secondary };
    idb_rng rng;
    idb_rng_seed(&rng, 5);
    idb_store_stats st;
    ibd_root = root;
    run_rows(kv, 3, n, 16, &rng, &st, inspect_ibd);
    assert_true(st.leaf_pages > 2);
    assert_int_equal(st.leaf_pages, counted.leaves);
    double fill = (double)counted.record_bytes /
                  ((double)counted.leaves * (16384.0 - PAGE_OVERHEAD));
    assert_true(st.fill_factor > fill - FILL_TOLERANCE && st.fill_factor < fill + FILL_TOLERANCE);
    assert_true(data_length >= st.leaf_pages * 16384);
    assert_int_equal(st.index_bytes, data_length);
    assert_true(st.table_bytes >= st.index_bytes || root == PRIMARY_ROOT);
    assert_true(st.file_bytes >= data_length);
    assert_true(st.has_server && st.wal_bytes > n * 100);   /* redo holds every row */
    assert_true(st.splits >= st.leaf_pages - 1);
    assert_true(st.pages_written >= st.leaf_pages);
}

/* 20,000 rows: ANALYZE samples the leaves; 1,000: it reads them all (mariadb_stats.c). */
static void test_pages_primary(void **state)
{
    (void)state;
    check_pages("secondary=0", PRIMARY_ROOT, 20000);
    check_pages("secondary=0", PRIMARY_ROOT, 1000);
}

static void test_pages_secondary(void **state)
{
    (void)state;
    check_pages("secondary=1", PRIMARY_ROOT + 1, 20000);
    check_pages("secondary=1", PRIMARY_ROOT + 1, 5000);
}

/* uuid-like (random) 16-byte keys against ascending ones: ≥ 1.3× the leaf pages; with an
 * index larger than the 6 MiB pool, ≥ 10× the pool misses per ID. */
static void test_relations(void **state)
{
    (void)state;
    const char *kv[] = { sock_kv, "row_bytes=400" };
    const int n = 30000;
    idb_rng rng;
    idb_rng_seed(&rng, 9);
    idb_store_stats asc, rnd;
    run_rows(kv, 2, n, 16, NULL, &asc, NULL);
    run_rows(kv, 2, n, 16, &rng, &rnd, NULL);
    fprintf(stderr, "ascending: %lld leaves, %lld misses; random: %lld leaves, %lld misses\n",
            (long long)asc.leaf_pages, (long long)asc.cache_misses,
            (long long)rnd.leaf_pages, (long long)rnd.cache_misses);
    assert_true(rnd.leaf_pages * 10 >= asc.leaf_pages * 13);
    assert_true(rnd.cache_misses >= 10 * (asc.cache_misses > 0 ? asc.cache_misses : 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_roundtrip_secondary),
        cmocka_unit_test(test_duplicate),
        cmocka_unit_test(test_pages_primary),
        cmocka_unit_test(test_pages_secondary),
        cmocka_unit_test(test_relations),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
