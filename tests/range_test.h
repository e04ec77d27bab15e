/* range_test.h — what the range tests share: a private directory per test (fixture),
 * creating instances from "key=value" options, reading the lease table back. */
#ifndef IDB_RANGE_TEST_H
#define IDB_RANGE_TEST_H

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "random.h"
#include "strategy.h"

#define RANGE_FILE "idbench-ranges.sqlite"

typedef struct fixture {
    char dir[64];
} fixture;

/* cmocka setup: a fresh private directory for the test. */
static inline int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    strcpy(f->dir, "/tmp/idbench-test-range-XXXXXX");
    if (!mkdtemp(f->dir)) { free(f); return -1; }
    *state = f;
    return 0;
}

/* cmocka teardown: remove what the tests may leave in the directory, then it. */
static inline int teardown(void **state)
{
    fixture *f = *state;
    static const char *const files[] = { RANGE_FILE, RANGE_FILE "-journal", RANGE_FILE "-wal",
                                         RANGE_FILE "-shm", "plain-file" };
    char p[128];
    chmod(f->dir, 0700);
    snprintf(p, sizeof p, "%s/sub", f->dir);
    chmod(p, 0700);
    rmdir(p);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", f->dir, files[i]);
        unlink(p);
    }
    rmdir(f->dir);
    free(f);
    return 0;
}

/* Create a range instance with the given options ("key=value", NULL-terminated). */
static inline int make_v(void **inst, idb_err *err, idb_clock *clock, const char *first, va_list ap)
{
    const char *kv[8];
    int n = 0;
    for (const char *s = first; s && n < 8; s = va_arg(ap, const char *)) kv[n++] = s;
    const idb_strategy *s = idb_strategy_find("range");
    if (!s) return idb_fail(err, IDB_EINPUT, "no range strategy");
    return idb_strategy_create_kv(s, kv, n, clock ? clock : idb_clock_real(), inst, err);
}

/* Create a range instance from "key=value" options (NULL-terminated); returns its code. */
static inline int make(void **inst, idb_err *err, const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    int rc = make_v(inst, err, NULL, first, ap);
    va_end(ap);
    return rc;
}

/* Create or fail the test. */
static inline void *must_make(const char *first, ...)
{
    void *inst = NULL;
    idb_err err = { 0 };
    va_list ap;
    va_start(ap, first);
    int rc = make_v(&inst, &err, NULL, first, ap);
    va_end(ap);
    if (rc) fail_msg("range create failed (%d): %s", rc, err.msg);
    return inst;
}

/* The next ID of inst as an integer (fails the test on an error). */
static inline uint64_t next_u64(void *inst)
{
    idb_id id;
    idb_err err = { 0 };
    int rc = idb_strategy_find("range")->next(inst, &id, &err);
    if (rc) fail_msg("range next failed (%d): %s", rc, err.msg);
    assert_int_equal(id.len, 8);
    return idb_id_u64(&id);
}

/* Destroy a range instance. */
static inline void destroy(void *inst) { idb_strategy_find("range")->destroy(inst); }

/* "key=val" into buf; returns buf. */
static inline const char *kvf(char *buf, size_t n, const char *key, const char *val)
{
    snprintf(buf, n, "%s=%s", key, val);
    return buf;
}

/* The lease table as "range:shard," pairs in range order. */
static inline void leases(const char *dir, char *out, size_t n)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, RANGE_FILE);
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT range_no, shard FROM lease ORDER BY range_no",
                                        -1, &st, NULL), SQLITE_OK);
    out[0] = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        size_t len = strlen(out);
        snprintf(out + len, n - len, "%lld:%lld,", (long long)sqlite3_column_int64(st, 0),
                 (long long)sqlite3_column_int64(st, 1));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* The one integer that sql returns from dir's range directory. */
static inline int64_t db_int(const char *dir, const char *sql)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, RANGE_FILE);
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* qsort order of uint64_t. */
static inline int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

#endif
