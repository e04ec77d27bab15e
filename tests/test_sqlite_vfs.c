/* test_sqlite_vfs.c — every page write counted: the counting VFS (sqlite_vfs.c) counts
 * checkpoints too, agrees with the bytes the process wrote (/proc/self/io), counts per
 * store handle and passes errors through; and the I/O columns (checkpoint_pages,
 * wal_frames, read_pages) of every registered store.
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

#include "sqlite_file.h"
#include "store_test.h"

#define PAGE 4096                 /* the store's default page_size */

/* --- every page write counted --- */

/* /proc/self/io wchar: bytes this process passed to write(2)-family calls (the harness's
 * write_bytes_per_id reads the same counter). */
static long long wchar(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    assert_non_null(f);
    char line[128];
    long long v = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "wchar: %lld", &v) == 1) break;
    fclose(f);
    assert_true(v >= 0);
    return v;
}

/* n rows keyed by IDs of the real uuidv4 strategy (caller frees). */
static idb_row *uuidv4_rows(int n)
{
    const idb_strategy *u = idb_strategy_find("uuidv4");
    assert_non_null(u);
    void *inst = NULL;
    idb_err err = { 0 };
    assert_int_equal(idb_strategy_create_kv(u, NULL, 0, idb_clock_real(), &inst, &err), 0);
    idb_row *rows = calloc((size_t)n, sizeof *rows);
    for (int i = 0; i < n; i++) {
        make_row(&rows[i], (uint64_t)i, 16, NULL);
        assert_int_equal(u->next(inst, &rows[i].id, &err), 0);
    }
    u->destroy(inst);
    return rows;
}

/* Pages in the database file of the closed store in dir. */
static long long file_pages(const char *dir)
{
    char file[512];
    sqlfile f;
    snprintf(file, sizeof file, "%s/orders.sqlite", dir);
    sqlfile_read(file, &f);
    free(f.b);
    return f.pages;
}

/* How far the bytes of pages_written may be from wchar (see the test below). */
#define WCHAR_MARGIN 0.02

/* 20,000 uuidv4 IDs into the store, as the insert runner puts them: the pages it says it
 * wrote, times the page size, are the bytes the process passed to write(2) from open to
 * close (/proc/self/io wchar) within WCHAR_MARGIN. They differ by what pages leave out:
 * each WAL frame's 24-byte header (0.6 % at 4 KiB), the 32-byte WAL header at each
 * restart, the journal header written when journal_mode=wal is set; and by what the VFS
 * never sees: the real VFS growing the -shm file (a byte per 4 KiB) and other writes of
 * the process (none here). WAL frames alone, the old pages_written, are ~25 % short here
 * (45 % at 100,000 IDs): the checkpoints' copies are the rest. Random keys dirty most
 * leaves at every commit, so the automatic checkpoints copy the file's pages several
 * times over: more than twice the file, which the final checkpoint alone cannot give. */
static void test_pages_written_match_wchar(void **st)
{
    (void)st;
    const int n = 20000;
    idb_row *rows = uuidv4_rows(n);
    char *dir = make_dir();
    void *h = NULL;
    idb_err err = { 0 };
    idb_store_stats s;
    long long w0 = wchar();
    assert_int_equal(open_kv(dir, 16, NULL, 0, &h, &err), 0);
    insert_all(h, rows, n, 1000);
    assert_int_equal(S->stats(h, &s, &err), 0);
    S->close(h);
    long long w = wchar() - w0, bytes = s.pages_written * PAGE;
    print_message("      sqlite uuidv4 x%d: wchar %lld B, pages_written %lld (%lld B), "
                  "checkpoint_pages %lld, wal_frames %lld, read_pages %lld\n", n, w,
                  (long long)s.pages_written, bytes, (long long)s.checkpoint_pages,
                  (long long)s.wal_frames, (long long)s.read_pages);
    assert_true((double)llabs(bytes - w) <= WCHAR_MARGIN * (double)w);
    assert_int_equal(s.pages_written, s.checkpoint_pages + s.wal_frames);
    assert_true(s.checkpoint_pages > 2 * file_pages(dir));
    /* each checkpoint copy reads its WAL frame, each cache miss a page; the one database
     * write that is no copy is page 1, written when journal_mode=wal is set at open */
    assert_int_equal(s.read_pages, s.cache_misses + s.checkpoint_pages - 1);
    free(rows);
    drop_dir(dir);
}

/* The same with a rollback journal (journal_mode=delete): no WAL frames, the commits write
 * into the database file (checkpoint_pages), and pages_written adds the journal's pages. */
static void test_pages_written_rollback_journal(void **st)
{
    (void)st;
    const int n = 5000;
    const char *kv[] = { "journal_mode=delete", "synchronous=off" };
    idb_row *rows = uuidv4_rows(n);
    char *dir = make_dir();
    void *h = NULL;
    idb_err err = { 0 };
    idb_store_stats s;
    long long w0 = wchar();
    assert_int_equal(open_kv(dir, 16, kv, 2, &h, &err), 0);
    insert_all(h, rows, n, 1000);
    assert_int_equal(S->stats(h, &s, &err), 0);
    S->close(h);
    long long w = wchar() - w0, bytes = s.pages_written * PAGE;
    assert_int_equal(s.wal_frames, 0);
    assert_true(s.checkpoint_pages >= file_pages(dir));
    assert_true(s.pages_written > s.checkpoint_pages);        /* the journal's pages */
    /* journal records add 8 bytes a page, its header a sector per commit: 2 % is plenty */
    assert_true((double)llabs(bytes - w) <= WCHAR_MARGIN * (double)w);
    free(rows);
    drop_dir(dir);
}

/* Run sql on db, asserting success. */
static void exec_ok(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) fail_msg("%s: %s", sql, msg);
}

/* An SQLITE_DBSTATUS_* counter of db. */
static long long db_status(sqlite3 *db, int op)
{
    int cur = 0, hi = 0;
    assert_int_equal(sqlite3_db_status(db, op, &cur, &hi, 0), SQLITE_OK);
    return cur;
}

/* Insert n random rows into table t of db in transactions of 500. */
static void raw_inserts(sqlite3 *db, int n, idb_rng *rng)
{
    sqlite3_stmt *ins = NULL;
    uint8_t key[16], pay[64] = { 0 };
    assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?, ?)", -1, &ins, NULL), 0);
    for (int i = 0; i < n; i++) {
        if (i % 500 == 0) exec_ok(db, i ? "COMMIT; BEGIN" : "BEGIN");
        for (size_t j = 0; j < sizeof key; j += 8) {
            uint64_t v = idb_rng_next(rng);
            memcpy(key + j, &v, 8);
        }
        sqlite3_bind_blob(ins, 1, key, sizeof key, SQLITE_STATIC);
        sqlite3_bind_blob(ins, 2, pay, sizeof pay, SQLITE_STATIC);
        assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
        sqlite3_reset(ins);
    }
    exec_ok(db, "COMMIT");
    sqlite3_finalize(ins);
}

/* Sum of one direction's pages over the database and the WAL. */
static long long db_wal_pages(const idb_vfs_io *io)
{
    return io[IDB_VFS_DB].pages + io[IDB_VFS_WAL].pages;
}

/* The shim on a raw connection (small cache, a checkpoint every 100 frames), counted from
 * after the setup (the switch to WAL writes page 1 before there is a WAL):
 *  - WAL page writes = SQLITE_DBSTATUS_CACHE_WRITE, the pager's count of pages it wrote;
 *  - database writes are whole pages, and the automatic checkpoints made some;
 *  - page reads = SQLITE_DBSTATUS_CACHE_MISS (a miss reads a page from the database or
 *    the WAL) + one WAL read per page a checkpoint copied;
 *  - the bytes written to all files are what the process passed to write(2) within 0.1 %
 *    (the shim never sees the real VFS grow -shm: a byte per 4 KiB). */
static void test_vfs_counts_raw(void **st)
{
    (void)st;
    char *dir = make_dir(), file[512];
    snprintf(file, sizeof file, "%s/raw.sqlite", dir);
    idb_vfs *v = NULL;
    idb_err err = { 0 };
    sqlite3 *db = NULL;
    idb_rng rng;
    idb_rng_seed(&rng, 11);
    long long w0 = wchar();
    assert_int_equal(idb_vfs_create(PAGE, &v, &err), 0);
    assert_int_equal(sqlite3_open_v2(file, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                     idb_vfs_name(v)), SQLITE_OK);
    exec_ok(db, "PRAGMA page_size=4096; PRAGMA journal_mode=wal; PRAGMA cache_size=20;"
                " PRAGMA wal_autocheckpoint=100; CREATE TABLE t(k BLOB PRIMARY KEY, p BLOB)"
                " WITHOUT ROWID");
    idb_vfs_counts a, b;
    idb_vfs_get(v, &a);
    long long cw = db_status(db, SQLITE_DBSTATUS_CACHE_WRITE);
    long long cm = db_status(db, SQLITE_DBSTATUS_CACHE_MISS);
    raw_inserts(db, 5000, &rng);
    idb_vfs_get(v, &b);
    long long ckpt = b.write[IDB_VFS_DB].pages - a.write[IDB_VFS_DB].pages;
    assert_int_equal(b.write[IDB_VFS_WAL].pages - a.write[IDB_VFS_WAL].pages,
                     db_status(db, SQLITE_DBSTATUS_CACHE_WRITE) - cw);
    assert_true(ckpt > 0);
    assert_int_equal(b.write[IDB_VFS_DB].bytes, b.write[IDB_VFS_DB].pages * PAGE);
    assert_int_equal(db_wal_pages(b.read) - db_wal_pages(a.read),
                     db_status(db, SQLITE_DBSTATUS_CACHE_MISS) - cm + ckpt);
    assert_int_equal(sqlite3_close(db), SQLITE_OK);
    idb_vfs_get(v, &b);
    long long w = wchar() - w0, bytes = 0;
    for (int k = 0; k < IDB_VFS_KINDS; k++) bytes += b.write[k].bytes;
    print_message("      raw: shim wrote %lld B, wchar %lld B\n", bytes, w);
    assert_true(bytes <= w && (double)(w - bytes) <= 0.001 * (double)w);
    idb_vfs_destroy(v);
    drop_dir(dir);
}

/* Two store handles in one process (two shards) count apart: inserting into A changes
 * nothing in B's counts, and a second stats() of B equals the first (B's cache is small,
 * so its dbstat walk reads pages from the files: they are not counted again). */
static void test_handles_count_apart(void **st)
{
    (void)st;
    char *da = make_dir(), *db = make_dir();
    void *a = NULL, *b = NULL;
    idb_err err = { 0 };
    idb_store_stats b0, b1, sa;
    const char *small[] = { "cache_pages=10" };
    idb_row *rows = uuidv4_rows(6000);
    assert_int_equal(open_kv(da, 16, NULL, 0, &a, &err), 0);
    assert_int_equal(open_kv(db, 16, small, 1, &b, &err), 0);
    insert_all(b, rows, 1000, 100);
    assert_int_equal(S->stats(b, &b0, &err), 0);
    insert_all(a, rows + 1000, 5000, 1000);
    assert_int_equal(S->stats(a, &sa, &err), 0);
    assert_int_equal(S->stats(b, &b1, &err), 0);
    assert_true(sa.pages_written > 0 && sa.read_pages > 0);
    assert_int_equal(b1.pages_written, b0.pages_written);
    assert_int_equal(b1.checkpoint_pages, b0.checkpoint_pages);
    assert_int_equal(b1.wal_frames, b0.wal_frames);
    assert_int_equal(b1.read_pages, b0.read_pages);
    assert_int_equal(b1.cache_misses, b0.cache_misses);
    S->close(a);
    S->close(b);
    free(rows);
    drop_dir(da);
    drop_dir(db);
}

/* A file size limit (as a full disk would) in a child: exit 0 if the store reports the
 * failed write as IDB_EIO with SQLite's disk message, 1 if every insert and commit
 * succeeded (the error was swallowed), 2 for anything else. */
static int fill_the_disk(const char *dir)
{
    struct rlimit lim = { .rlim_cur = 256 << 10, .rlim_max = 256 << 10 };
    signal(SIGXFSZ, SIG_IGN);                 /* write() fails with EFBIG instead */
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0) return 2;
    void *h = NULL;
    idb_err err = { 0 };
    idb_rng rng;
    idb_rng_seed(&rng, 5);
    if (open_kv(dir, 16, NULL, 0, &h, &err) != 0) return 2;
    int rc = 0;
    for (int i = 0; i < 20000 && !rc; i++) {
        idb_row r;
        make_row(&r, (uint64_t)i, 16, &rng);
        rc = S->insert(h, &r, &err);
        if (!rc && (i + 1) % 500 == 0) rc = S->commit(h, &err);
    }
    if (!rc) rc = S->commit(h, &err);
    S->close(h);
    if (!rc) return 1;
    return rc == IDB_EIO && strstr(err.msg, "disk") ? 0 : 2;
}

/* The shim passes errors through: a write past the file size limit fails the insert or
 * commit (IDB_EIO, "database or disk is full" / "disk I/O error"); a read past the end of
 * a file returns SQLITE_IOERR_SHORT_READ with the rest zeroed, and counts a call but no
 * bytes. */
static void test_vfs_passes_errors(void **st)
{
    (void)st;
    char *dir = make_dir();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(fill_the_disk(dir));
    int status = 0;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    drop_dir(dir);

    idb_vfs *v = NULL;
    idb_err err = { 0 };
    assert_int_equal(idb_vfs_create(PAGE, &v, &err), 0);
    sqlite3_vfs *vfs = sqlite3_vfs_find(idb_vfs_name(v));
    assert_non_null(vfs);
    sqlite3_file *f = calloc(1, (size_t)vfs->szOsFile);
    int flags = SQLITE_OPEN_TEMP_JOURNAL | SQLITE_OPEN_CREATE | SQLITE_OPEN_READWRITE |
                SQLITE_OPEN_EXCLUSIVE | SQLITE_OPEN_DELETEONCLOSE, out = 0;
    assert_int_equal(vfs->xOpen(vfs, NULL, f, flags, &out), SQLITE_OK);
    char buf[PAGE];
    memset(buf, 'x', sizeof buf);
    assert_int_equal(f->pMethods->xWrite(f, buf, 100, 0), SQLITE_OK);
    assert_int_equal(f->pMethods->xRead(f, buf, PAGE, 0), SQLITE_IOERR_SHORT_READ);
    assert_true(buf[99] == 'x' && buf[100] == 0 && buf[PAGE - 1] == 0);
    idb_vfs_counts c;
    idb_vfs_get(v, &c);
    assert_int_equal(c.write[IDB_VFS_OTHER].bytes, 100);
    assert_int_equal(c.read[IDB_VFS_OTHER].calls, 1);
    assert_int_equal(c.read[IDB_VFS_OTHER].bytes, 0);
    assert_int_equal(f->pMethods->xClose(f), SQLITE_OK);
    free(f);
    idb_vfs_destroy(v);
}

/* What each registered store says in the I/O columns. */
enum io_col { UNKNOWN, ZERO, COUNTED, MISSES, KNOWN };
static const char *const io_col_names[] = {
    [UNKNOWN] = "-1 (cannot tell)", [ZERO] = "0", [COUNTED] = "> 0",
    [MISSES] = "cache_misses (> 0)", [KNOWN] = ">= 0 (counted; a small run may read none)",
};
static const struct {
    const char *store;
    enum io_col checkpoint_pages, wal_frames, read_pages;
    const char *elsewhere;      /* a store too slow to start here: the test that checks it */
} io_cols[] = {
    { "sqlite", COUNTED, COUNTED, COUNTED, NULL },   /* its counting VFS */
    { "lmdb", UNKNOWN, UNKNOWN, UNKNOWN, NULL },     /* no log; reads are page faults */
    { "pagesim", UNKNOWN, UNKNOWN, MISSES, NULL },   /* a model: a page is read only on a miss */
    { "null", ZERO, ZERO, ZERO, NULL },              /* no files */
    { "postgres", UNKNOWN, UNKNOWN, UNKNOWN, NULL }, /* a private server: not counted per table */
    { "mariadb", UNKNOWN, UNKNOWN, KNOWN, NULL },    /* Innodb_pages_read: 0 when all is pooled */
    { "spider", UNKNOWN, UNKNOWN, KNOWN, NULL },     /* its backends' Innodb_pages_read, summed */
    /* a cluster of 3+ nodes takes 15-50 s to form: the slow suite's test_store_galera
     * checks all three are -1 */
    { "galera", UNKNOWN, UNKNOWN, UNKNOWN, "test_store_galera" },
};
#define N_IO_COLS (sizeof io_cols / sizeof *io_cols)

/* Check value v of a column that should be `want` (st for MISSES). */
static void check_io_col(const char *store, const char *col, int64_t v, enum io_col want,
                         const idb_store_stats *st)
{
    int ok = want == UNKNOWN ? v == -1 : want == ZERO ? v == 0
           : want == MISSES ? v == st->cache_misses && v > 0 : want == KNOWN ? v >= 0 : v > 0;
    if (!ok) fail_msg("store %s: %s = %lld, should be %s", store, col, (long long)v,
                      io_col_names[want]);
}

/* Stats of store S after 3,000 random 16-byte keys, committed, with a cache of 10 pages
 * where S has one (so that pagesim misses) and one backend where S has backends (spider:
 * two servers, not five). */
static void stats_after_inserts(idb_store_stats *s)
{
    static const char *const opt[] = { "cache_pages=10", "backends=1" };
    const char *kv[2];
    int nkv = 0;
    for (size_t i = 0; i < sizeof opt / sizeof *opt; i++) {
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(opt[i], "="), opt[i]);
        if (idb_opts_declared(S->options, name)) kv[nkv++] = opt[i];
    }
    char *dir = make_dir();
    void *h = NULL;
    idb_err err = { 0 };
    idb_rng rng;
    idb_rng_seed(&rng, 3);
    idb_row r;
    assert_int_equal(open_kv(dir, 16, kv, nkv, &h, &err), 0);
    for (int k = 0; k < 3000; k++) {
        make_row(&r, (uint64_t)k, 16, &rng);
        assert_int_equal(S->insert(h, &r, &err), 0);
    }
    assert_int_equal(S->commit(h, &err), 0);
    assert_int_equal(S->stats(h, s, &err), 0);
    S->close(h);
    drop_dir(dir);
}

/* Every registered store fills the I/O columns as io_cols says (a new store must be added
 * there). S is put back before any check can fail, so later tests test sqlite. */
static void test_io_columns_every_store(void **st)
{
    (void)st;
    const idb_store *sqlite = S;
    idb_store_stats got[N_IO_COLS];
    int of[N_IO_COLS], n = 0;                 /* got[k] is for io_cols[of[k]] */
    for (const idb_store *const *p = idb_stores; *p && n < (int)N_IO_COLS; p++, n++) {
        of[n] = 0;
        while (of[n] < (int)N_IO_COLS && strcmp(io_cols[of[n]].store, (*p)->name)) of[n]++;
        if (of[n] == (int)N_IO_COLS) break;
        S = *p;
        if (!io_cols[of[n]].elsewhere) stats_after_inserts(&got[n]);
    }
    S = sqlite;
    for (const idb_store *const *p = idb_stores; *p; p++)
        if (p - idb_stores >= n) fail_msg("store %s: not in io_cols", (*p)->name);
    for (int k = 0; k < n; k++) {
        const char *name = io_cols[of[k]].store;
        if (io_cols[of[k]].elsewhere) continue;
        check_io_col(name, "checkpoint_pages", got[k].checkpoint_pages,
                     io_cols[of[k]].checkpoint_pages, &got[k]);
        check_io_col(name, "wal_frames", got[k].wal_frames, io_cols[of[k]].wal_frames, &got[k]);
        check_io_col(name, "read_pages", got[k].read_pages, io_cols[of[k]].read_pages, &got[k]);
    }
}

/* The whole content of path (NULL if absent); *n its size. */

int main(void)
{
    S = idb_store_find("sqlite");
    if (!S) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pages_written_match_wchar),
        cmocka_unit_test(test_pages_written_rollback_journal),
        cmocka_unit_test(test_vfs_counts_raw),
        cmocka_unit_test(test_handles_count_apart),
        cmocka_unit_test(test_vfs_passes_errors),
        cmocka_unit_test(test_io_columns_every_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
