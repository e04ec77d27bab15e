/* test_waits.c — the wait columns' arithmetic from crafted samples, with no server:
 *   - runner/waits.c: shares of samples (postgres) and of the writers' time (mariadb), the
 *     lock and latch classes summed into wait_share, IO and other kept out of it, the
 *     shares with the non-waiting one summing to 1, wait_ns_per_order, shards summed;
 *   - pg_waits.c: which pg_stat_activity row is a sample and of which class (a backend
 *     idle between transactions is none; IO is never a lock wait);
 *   - mariadb_waits.c: which performance_schema instrument counts in which class.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pg_int.h"
#include "mariadb.h"
#include "waits.h"

#define EPS 1e-12

/* Every figure of f within [0, 1]; the lock and latch classes sum to share; the share,
 * the other known classes and the non-waiting share sum to 1. */
static void assert_consistent(const idb_wait_figures *f)
{
    double lock = 0, all = f->none;
    assert_true(f->share >= 0 && f->share <= 1);
    assert_true(f->none >= 0 && f->none <= 1);
    for (int c = 0; c < IDB_WAIT_CLASSES; c++) {
        if (f->by[c] < 0) continue;
        assert_true(f->by[c] <= 1);
        if (c < IDB_WAIT_LOCK_CLASSES) lock += f->by[c];
        all += f->by[c];
    }
    assert_true(lock <= f->share + EPS && lock >= f->share - EPS);
    assert_true(all <= 1 + EPS && all >= 1 - EPS);
}

/* Samples: 1,000 samples of which 100 BufferContent, 50 BufferMapping, 30 Lock, 20 other
 * LWLocks (lock and latch: 200), 200 IO, 300 other, 300 not waiting. */
static void test_samples(void **state)
{
    (void)state;
    idb_store_waits w = { .kind = IDB_WAITS_SAMPLES, .samples = 1000 };
    w.v[IDB_WAIT_LWLOCK_BUFFER_CONTENT] = 100;
    w.v[IDB_WAIT_LWLOCK_BUFFER_MAPPING] = 50;
    w.v[IDB_WAIT_LOCK] = 30;
    w.v[IDB_WAIT_LATCH_OTHER] = 20;
    w.v[IDB_WAIT_INDEX_TREE] = w.v[IDB_WAIT_PAGE_LATCH] = w.v[IDB_WAIT_ROW_LOCK] = -1;
    w.v[IDB_WAIT_IO] = 200;
    w.v[IDB_WAIT_OTHER] = 300;
    idb_wait_figures f;
    idb_waits_figures(&w, 4e9, 2000, &f);       /* 4 s of the writers' time, 2,000 orders */
    assert_float_equal(f.share, 0.2, EPS);
    assert_float_equal(f.by[IDB_WAIT_LWLOCK_BUFFER_CONTENT], 0.1, EPS);
    assert_float_equal(f.by[IDB_WAIT_LWLOCK_BUFFER_MAPPING], 0.05, EPS);
    assert_float_equal(f.by[IDB_WAIT_LOCK], 0.03, EPS);
    assert_float_equal(f.by[IDB_WAIT_IO], 0.2, EPS);
    assert_float_equal(f.by[IDB_WAIT_OTHER], 0.3, EPS);
    assert_float_equal(f.none, 0.3, EPS);
    assert_true(f.by[IDB_WAIT_INDEX_TREE] < 0 && f.by[IDB_WAIT_ROW_LOCK] < 0);
    assert_float_equal(f.ns_per_order, 0.2 * 4e9 / 2000, 1e-6);   /* 400,000 ns */
    assert_consistent(&f);
}

/* Time: 1 s of the writers' time, 0.1 s on the index tree, 0.05 s row locks, 0.05 s other
 * latches, 0.1 s IO; 1,000 orders. */
static void test_ns(void **state)
{
    (void)state;
    idb_store_waits w = { .kind = IDB_WAITS_NS };
    for (int c = 0; c < IDB_WAIT_CLASSES; c++) w.v[c] = -1;
    w.v[IDB_WAIT_INDEX_TREE] = 100000000;
    w.v[IDB_WAIT_PAGE_LATCH] = 0;
    w.v[IDB_WAIT_ROW_LOCK] = 50000000;
    w.v[IDB_WAIT_LATCH_OTHER] = 50000000;
    w.v[IDB_WAIT_IO] = 100000000;
    idb_wait_figures f;
    idb_waits_figures(&w, 1e9, 1000, &f);
    assert_float_equal(f.share, 0.2, EPS);
    assert_float_equal(f.by[IDB_WAIT_INDEX_TREE], 0.1, EPS);
    assert_float_equal(f.by[IDB_WAIT_ROW_LOCK], 0.05, EPS);
    assert_float_equal(f.by[IDB_WAIT_IO], 0.1, EPS);
    assert_float_equal(f.none, 0.7, EPS);
    assert_float_equal(f.ns_per_order, 200000, 1e-6);    /* 0.2 s of lock waits / 1,000 */
    assert_true(f.by[IDB_WAIT_LWLOCK_BUFFER_CONTENT] < 0 && f.by[IDB_WAIT_OTHER] < 0);
    assert_consistent(&f);
}

/* Nothing measured, no sample, no writers' time: every figure unknown. */
static void test_unknown(void **state)
{
    (void)state;
    idb_wait_figures f;
    idb_store_waits none = { .kind = IDB_WAITS_NONE, .samples = 10 };
    idb_store_waits empty = { .kind = IDB_WAITS_SAMPLES, .samples = 0 };
    idb_store_waits ns = { .kind = IDB_WAITS_NS };
    const idb_store_waits *ws[] = { &none, &empty, &ns };
    for (size_t i = 0; i < sizeof ws / sizeof *ws; i++) {
        idb_waits_figures(ws[i], i == 2 ? 0 : 1e9, 100, &f);
        assert_true(f.share < 0 && f.ns_per_order < 0 && f.none < 0);
        for (int c = 0; c < IDB_WAIT_CLASSES; c++) assert_true(f.by[c] < 0);
    }
}

/* Shards: samples and classes added; a class one shard does not know is unknown; shards
 * that measured differently give nothing. */
static void test_shards(void **state)
{
    (void)state;
    idb_store_waits a = { .kind = IDB_WAITS_SAMPLES, .samples = 10 }, b = a, sum;
    a.v[IDB_WAIT_LOCK] = 4;
    b.v[IDB_WAIT_LOCK] = 1;
    a.v[IDB_WAIT_ROW_LOCK] = -1;
    idb_waits_add(&sum, &a, 0);
    idb_waits_add(&sum, &b, 1);
    assert_int_equal(sum.samples, 20);
    assert_int_equal(sum.v[IDB_WAIT_LOCK], 5);
    assert_int_equal(sum.v[IDB_WAIT_ROW_LOCK], -1);
    idb_store_waits c = { .kind = IDB_WAITS_NS };
    idb_waits_add(&sum, &c, 2);
    assert_int_equal(sum.kind, IDB_WAITS_NONE);
}

/* pg_stat_activity rows: only backends in a transaction are samples; the class of each. */
static void test_pg_classes(void **state)
{
    (void)state;
    static const struct { const char *state, *type, *event; int cls; } rows[] = {
        { "active", NULL, NULL, IDB_WAIT_CLASSES },
        { "active", "", "", IDB_WAIT_CLASSES },
        { "idle", "Client", "ClientRead", -1 },
        { NULL, NULL, NULL, -1 },
        { "idle in transaction", "Client", "ClientRead", IDB_WAIT_OTHER },
        { "idle in transaction (aborted)", "Client", "ClientRead", IDB_WAIT_OTHER },
        { "active", "LWLock", "BufferContent", IDB_WAIT_LWLOCK_BUFFER_CONTENT },
        { "active", "LWLock", "BufferMapping", IDB_WAIT_LWLOCK_BUFFER_MAPPING },
        { "active", "LWLock", "WALInsert", IDB_WAIT_LATCH_OTHER },
        { "active", "BufferPin", "BufferPin", IDB_WAIT_LATCH_OTHER },
        { "active", "Lock", "extend", IDB_WAIT_LOCK },
        { "active", "Lock", "transactionid", IDB_WAIT_LOCK },
        { "active", "IO", "WALSync", IDB_WAIT_IO },
        { "active", "IO", "DataFileRead", IDB_WAIT_IO },
        { "active", "IPC", "ProcArrayGroupUpdate", IDB_WAIT_OTHER },
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        assert_int_equal(pg_wait_class(rows[i].state, rows[i].type, rows[i].event),
                         rows[i].cls);
}

/* Crafted samples through the sampler's counting, then the runner's figures: 2 backends
 * sampled 5 times (10 rows), one idle row that does not count. */
static void test_pg_counted(void **state)
{
    (void)state;
    static const char *const rows[][3] = {
        { "active", NULL, NULL }, { "active", "LWLock", "BufferContent" },
        { "active", "IO", "WALWrite" }, { "idle in transaction", "Client", "ClientRead" },
        { "active", "LWLock", "BufferContent" }, { "active", "Lock", "extend" },
        { "active", NULL, NULL }, { "idle", "Client", "ClientRead" },
        { "active", "IO", "DataFileRead" }, { "active", NULL, NULL },
        { "active", "LWLock", "WALInsert" },
    };
    idb_store_waits w = { .kind = IDB_WAITS_SAMPLES };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        pg_waits_count(&w, rows[i][0], rows[i][1], rows[i][2]);
    assert_int_equal(w.samples, 10);
    idb_wait_figures f;
    idb_waits_figures(&w, 1e6, 10, &f);
    assert_float_equal(f.share, 0.4, EPS);            /* 2 content, 1 lock, 1 WALInsert */
    assert_float_equal(f.by[IDB_WAIT_IO], 0.2, EPS);  /* never in wait_share */
    assert_float_equal(f.by[IDB_WAIT_OTHER], 0.1, EPS);
    assert_float_equal(f.none, 0.3, EPS);
    assert_float_equal(f.ns_per_order, 0.4 * 1e6 / 10, 1e-9);
    assert_consistent(&f);
}

/* performance_schema instruments: the index tree's, other latches, file IO; table IO and
 * table locks (which hold the others) and sockets not counted. */
static void test_md_classes(void **state)
{
    (void)state;
    assert_int_equal(md_wait_class("wait/synch/sxlock/innodb/index_tree_rw_lock"),
                     IDB_WAIT_INDEX_TREE);
    assert_int_equal(md_wait_class("wait/synch/mutex/innodb/lock_wait_mutex"),
                     IDB_WAIT_LATCH_OTHER);
    assert_int_equal(md_wait_class("wait/synch/sxlock/innodb/fil_space_latch"),
                     IDB_WAIT_LATCH_OTHER);
    assert_int_equal(md_wait_class("wait/io/file/innodb/innodb_log_file"), IDB_WAIT_IO);
    assert_int_equal(md_wait_class("wait/io/table/sql/handler"), -1);
    assert_int_equal(md_wait_class("wait/lock/table/sql/handler"), -1);
    assert_int_equal(md_wait_class("wait/io/socket/sql/client_connection"), -1);
    assert_int_equal(md_wait_class(NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples),    cmocka_unit_test(test_ns),
        cmocka_unit_test(test_unknown),    cmocka_unit_test(test_shards),
        cmocka_unit_test(test_pg_classes), cmocka_unit_test(test_pg_counted),
        cmocka_unit_test(test_md_classes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
