/* test_store_sqlite.c — the sqlite store's behaviour: rows read back equal rows written
 * (every key width and schema); bad input is refused with the right code and leaves
 * existing files byte-identical. Its page figures are checked against independent
 * references in test_sqlite_stats.c, its write counting in test_sqlite_vfs.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "random.h"
#include "sqlite_vfs.h"
#include "store.h"
#include "strategy.h"

#include "store_test.h"

#define PAGE 4096                 /* the store's default page_size */

/* Rows read back equal rows written: 8-byte rowid keys. */
static void test_roundtrip_rowid_8(void **st) { (void)st; roundtrip(8, NULL, 0); }

/* ... 8-byte keys in a WITHOUT ROWID table. */
static void test_roundtrip_blob_8(void **st)
{
    (void)st;
    const char *kv[] = { "schema=blob" };
    roundtrip(8, kv, 1);
}

/* ... 12- and 16-byte keys (schema=auto picks blob). */
static void test_roundtrip_blob_12_16(void **st)
{
    (void)st;
    roundtrip(12, NULL, 0);
    roundtrip(16, NULL, 0);
}

/* ... 1-, 5-, 20- and 32-byte keys (schema=auto picks blob). */
static void test_roundtrip_any_width(void **st) { (void)st; roundtrip_widths(); }

/* ... with every non-default option (rollback journal, other page size, no payload). */
static void test_roundtrip_other_options(void **st)
{
    (void)st;
    const char *kv[] = { "journal_mode=delete", "synchronous=off", "page_size=8192",
                         "cache_pages=50", "row_bytes=0" };
    roundtrip(16, kv, 5);
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = malloc(1 << 22);
    *n = fread(buf, 1, 1 << 22, f);
    fclose(f);
    return buf;
}

/* Number of entries in dir, . and .. aside. */
static int dir_entries(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

/* Opening over dir/orders.sqlite must fail with IDB_EINPUT and message containing want,
 * leaving the file byte-identical and no other file beside it. */
static void expect_refused(const char *dir, const char *want)
{
    char file[512];
    snprintf(file, sizeof file, "%s/orders.sqlite", dir);
    size_t n0 = 0, n1 = 0;
    char *before = slurp(file, &n0);
    assert_non_null(before);
    int entries = dir_entries(dir);
    void *h = NULL;
    idb_err err = { 0 };
    assert_int_equal(open_kv(dir, 16, NULL, 0, &h, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, want));
    char *after = slurp(file, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    assert_int_equal(dir_entries(dir), entries);
    free(before);
    free(after);
}

/* A file that is not SQLite, and a SQLite database without our table: "not an idbench
 * store", untouched. */
static void test_refuses_foreign_files(void **st)
{
    (void)st;
    char *dir = make_dir();
    char file[512], cmd[700];
    snprintf(file, sizeof file, "%s/orders.sqlite", dir);
    FILE *f = fopen(file, "w");
    fputs("my precious notes\n", f);
    fclose(f);
    expect_refused(dir, "exists and is not an idbench store");
    remove(file);
    snprintf(cmd, sizeof cmd, "sqlite3 '%s' 'CREATE TABLE t(x); INSERT INTO t VALUES (1);'", file);
    assert_int_equal(system(cmd), 0);
    expect_refused(dir, "exists and is not an idbench store");
    drop_dir(dir);
}

/* An existing store is refused ("already exists"), not reused or wiped. */
static void test_refuses_existing_store(void **st)
{
    (void)st;
    char *dir = make_dir();
    void *h = NULL;
    idb_err err = { 0 };
    idb_row r;
    make_row(&r, 1, 16, NULL);
    assert_int_equal(open_kv(dir, 16, NULL, 0, &h, &err), 0);
    assert_int_equal(S->insert(h, &r, &err), 0);
    assert_int_equal(S->commit(h, &err), 0);
    S->close(h);
    expect_refused(dir, "already exists; use an empty --dir");
    drop_dir(dir);
}

/* Bad keys and options: rowid with 16- or 5-byte keys and widths 0 and IDB_ID_MAX + 1
 * (nothing created), a key with the top bit
 * set under rowid, a duplicate, a key of the wrong width, a page size not a power of two. */
static void test_bad_input(void **st)
{
    (void)st;
    char *dir = make_dir();
    void *h = NULL;
    idb_err err = { 0 };
    const char *rowid[] = { "schema=rowid" }, *odd[] = { "page_size=3000" };
    assert_int_equal(open_kv(dir, 16, rowid, 1, &h, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "schema=rowid"));
    assert_int_equal(open_kv(dir, 5, rowid, 1, &h, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "schema=rowid"));
    assert_int_equal(open_kv(dir, 0, NULL, 0, &h, &err), IDB_EINPUT);
    assert_int_equal(open_kv(dir, IDB_ID_MAX + 1, NULL, 0, &h, &err), IDB_EINPUT);
    assert_int_equal(open_kv(dir, 8, odd, 1, &h, &err), IDB_EINPUT);
    assert_int_equal(dir_entries(dir), 0);

    assert_int_equal(open_kv(dir, 8, rowid, 1, &h, &err), 0);
    idb_row r;
    make_row(&r, 5, 8, NULL);
    assert_int_equal(S->insert(h, &r, &err), 0);
    assert_int_equal(S->insert(h, &r, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "duplicate"));
    r.id.b[0] = 0x80;
    assert_int_equal(S->insert(h, &r, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "top bit"));
    make_row(&r, 6, 16, NULL);
    assert_int_equal(S->insert(h, &r, &err), IDB_EINPUT);
    assert_int_equal(S->commit(h, &err), 0);
    S->close(h);
    drop_dir(dir);
}

/* An unwritable directory is a runtime failure (IDB_EIO) and nothing is created. */
static void test_unwritable_dir(void **st)
{
    (void)st;
    char *dir = make_dir();
    assert_int_equal(open_unwritable(dir), IDB_EIO);
    assert_int_equal(dir_entries(dir), 0);
    drop_dir(dir);
}

/* A path that is not a directory is bad input. */
static void test_not_a_directory(void **st)
{
    (void)st;
    void *h = NULL;
    idb_err err = { 0 };
    assert_int_equal(open_kv("/nonexistent/idbench", 16, NULL, 0, &h, &err), IDB_EINPUT);
}

int main(void)
{
    S = idb_store_find("sqlite");
    if (!S) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_rowid_8),
        cmocka_unit_test(test_roundtrip_blob_8),
        cmocka_unit_test(test_roundtrip_blob_12_16),
        cmocka_unit_test(test_roundtrip_any_width),
        cmocka_unit_test(test_roundtrip_other_options),
        cmocka_unit_test(test_refuses_foreign_files),
        cmocka_unit_test(test_refuses_existing_store),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_unwritable_dir),
        cmocka_unit_test(test_not_a_directory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
