/* test_range.c — the `range` strategy: leases in the SQLite range directory, exact IDs,
 * restarts, shards and processes sharing a directory, bad directories, crashes. */
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

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    strcpy(f->dir, "/tmp/idbench-test-range-XXXXXX");
    if (!mkdtemp(f->dir)) { free(f); return -1; }
    *state = f;
    return 0;
}

static int teardown(void **state)
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
static int make_v(void **inst, idb_err *err, idb_clock *clock, const char *first, va_list ap)
{
    const char *kv[8];
    int n = 0;
    for (const char *s = first; s && n < 8; s = va_arg(ap, const char *)) kv[n++] = s;
    const idb_strategy *s = idb_strategy_find("range");
    if (!s) return idb_fail(err, IDB_EINPUT, "no range strategy");
    return idb_strategy_create_kv(s, kv, n, clock ? clock : idb_clock_real(), inst, err);
}

static int make(void **inst, idb_err *err, const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    int rc = make_v(inst, err, NULL, first, ap);
    va_end(ap);
    return rc;
}

/* Create or fail the test. */
static void *must_make(const char *first, ...)
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

static uint64_t next_u64(void *inst)
{
    idb_id id;
    idb_err err = { 0 };
    int rc = idb_strategy_find("range")->next(inst, &id, &err);
    if (rc) fail_msg("range next failed (%d): %s", rc, err.msg);
    assert_int_equal(id.len, 8);
    return idb_id_u64(&id);
}

static void destroy(void *inst) { idb_strategy_find("range")->destroy(inst); }

static const char *kvf(char *buf, size_t n, const char *key, const char *val)
{
    snprintf(buf, n, "%s=%s", key, val);
    return buf;
}

/* The lease table as "range:shard," pairs in range order. */
static void leases(const char *dir, char *out, size_t n)
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

static int64_t db_int(const char *dir, const char *sql)
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

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Range 0 of size 10 is 1..9; running out leases range 1 (10..19), then range 2. */
static void test_range_first_ids_and_next_lease(void **state)
{
    fixture *f = *state;
    char d[128];
    void *r = must_make(kvf(d, sizeof d, "dir", f->dir), "range_size=10", NULL);
    for (uint64_t want = 1; want <= 20; want++) assert_int_equal(next_u64(r), want);
    destroy(r);
    char l[256];
    leases(f->dir, l, sizeof l);
    assert_string_equal(l, "0:0,1:0,2:0,");
}

/* The lease is durable before the first ID: create leases eagerly, stamped by the clock. */
static void test_range_lease_before_first_id(void **state)
{
    fixture *f = *state;
    char d[128];
    const char *kv[] = { kvf(d, sizeof d, "dir", f->dir), "range_size=10", "shard=7" };
    idb_clock clock;
    idb_clock_manual_init(&clock, 1700000000123456789LL);
    void *r = NULL;
    idb_err err = { 0 };
    assert_int_equal(idb_strategy_create_kv(idb_strategy_find("range"), kv, 3, &clock, &r, &err),
                     0);
    char l[256];
    leases(f->dir, l, sizeof l);
    assert_string_equal(l, "0:7,");
    assert_int_equal(db_int(f->dir, "SELECT leased_at_ms FROM lease"), 1700000000123LL);
    assert_int_equal(db_int(f->dir, "SELECT range_size FROM meta"), 10);
    assert_int_equal(db_int(f->dir, "PRAGMA application_id"), 0x49444252);
    assert_int_equal(next_u64(r), 1);
    destroy(r);
}

/* Two shards in one directory get disjoint ranges, in lease order. */
static void test_range_two_shards_disjoint(void **state)
{
    fixture *f = *state;
    char d[128];
    void *a = must_make(kvf(d, sizeof d, "dir", f->dir), "range_size=10", "shard=0", NULL);
    void *b = must_make(d, "range_size=10", "shard=1", NULL);
    for (uint64_t want = 1; want <= 9; want++) assert_int_equal(next_u64(a), want);
    for (uint64_t want = 10; want <= 14; want++) assert_int_equal(next_u64(b), want);
    assert_int_equal(next_u64(a), 20);                /* range 2: the lowest unused */
    for (uint64_t want = 15; want <= 19; want++) assert_int_equal(next_u64(b), want);
    assert_int_equal(next_u64(b), 30);
    assert_int_equal(next_u64(a), 21);
    destroy(a);
    destroy(b);
    char l[256];
    leases(f->dir, l, sizeof l);
    assert_string_equal(l, "0:0,1:1,2:0,3:1,");
}

/* A restarted shard never resumes its old range: it abandons it and leases a fresh one. */
static void test_range_restart_takes_fresh_range(void **state)
{
    fixture *f = *state;
    char d[128];
    kvf(d, sizeof d, "dir", f->dir);
    void *r = must_make(d, "range_size=10", NULL);
    assert_int_equal(next_u64(r), 1);
    assert_int_equal(next_u64(r), 2);
    assert_int_equal(next_u64(r), 3);
    destroy(r);
    r = must_make(d, "range_size=10", NULL);
    assert_int_equal(next_u64(r), 10);
    destroy(r);
    r = must_make(d, "range_size=10", NULL);          /* even if it handed out nothing */
    destroy(r);
    r = must_make(d, "range_size=10", NULL);
    assert_int_equal(next_u64(r), 30);
    destroy(r);
}

static void emit_collect(void *ctx, const char *key, const char *value)
{
    char *out = ctx;
    size_t len = strlen(out);
    snprintf(out + len, 256 - len, "%s=%s ", key, value);
}

static void decode_str(const char *text, const char *size_kv, char *out, int want_rc)
{
    const idb_strategy *s = idb_strategy_find("range");
    idb_opts o;
    idb_err err = { 0 };
    const char *kv[] = { size_kv };
    assert_int_equal(idb_opts_parse(&o, s->options, kv, size_kv ? 1 : 0, "range", &err), 0);
    idb_id id;
    assert_int_equal(s->parse(text, &id, &err), 0);
    out[0] = 0;
    assert_int_equal(s->decode(&o, &id, emit_collect, out, &err), want_rc);
}

/* The default size is the chapter's: shard A gets 1..999,999,999,999, B starts at 10^12. */
static void test_range_default_size_is_the_chapters(void **state)
{
    fixture *f = *state;
    char d[128];
    void *a = must_make(kvf(d, sizeof d, "dir", f->dir), "shard=0", NULL);
    void *b = must_make(d, "shard=1", NULL);
    assert_int_equal(next_u64(a), 1);
    assert_int_equal(next_u64(b), 1000000000000ULL);
    assert_int_equal(next_u64(a), 2);
    idb_id id;
    char buf[IDB_TEXT_MAX];
    idb_id_set_u64(&id, 1000000000000ULL);
    idb_strategy_find("range")->format(&id, buf);
    assert_string_equal(buf, "1000000000000");
    destroy(a);
    destroy(b);

    char out[256];
    decode_str("999999999999", NULL, out, 0);
    assert_string_equal(out, "value=999999999999 range=0 offset=999999999999 ");
    decode_str("1000000000000", NULL, out, 0);
    assert_string_equal(out, "value=1000000000000 range=1 offset=0 ");
    decode_str("1234", "range_size=1000", out, 0);
    assert_string_equal(out, "value=1234 range=1 offset=234 ");
    decode_str("0", NULL, out, IDB_EINPUT);
    decode_str("9223372036854775808", NULL, out, IDB_EINPUT);
}

/* IDs stop at 2^63-1: the last range is cut there, and then every range is leased. */
static void test_range_exhaustion(void **state)
{
    fixture *f = *state;
    char d[128];
    kvf(d, sizeof d, "dir", f->dir);
    void *r[10];
    for (int k = 0; k < 10; k++) {
        char shard[32];
        snprintf(shard, sizeof shard, "shard=%d", k);
        r[k] = must_make(d, "range_size=1000000000000000000", shard, NULL);
        assert_int_equal(next_u64(r[k]), k ? (uint64_t)k * 1000000000000000000ULL : 1);
    }
    void *x = NULL;
    idb_err err = { 0 };
    assert_int_equal(make(&x, &err, d, "range_size=1000000000000000000", "shard=10", NULL),
                     IDB_EEXHAUSTED);
    assert_null(x);
    for (int k = 0; k < 10; k++) destroy(r[k]);
}

static void test_range_exhaustion_at_int64_max(void **state)
{
    fixture *f = *state;
    char d[128];
    kvf(d, sizeof d, "dir", f->dir);
    void *a = must_make(d, "range_size=9223372036854775807", NULL);
    void *b = must_make(d, "range_size=9223372036854775807", NULL);
    assert_int_equal(next_u64(a), 1);
    assert_int_equal(next_u64(b), 9223372036854775807ULL);   /* range 1 holds one ID */
    idb_id id;
    idb_err err = { 0 };
    assert_int_equal(idb_strategy_find("range")->next(b, &id, &err), IDB_EEXHAUSTED);
    assert_non_null(strstr(err.msg, "leased"));
    assert_int_equal(idb_strategy_find("range")->next(b, &id, &err), IDB_EEXHAUSTED);
    assert_int_equal(next_u64(a), 2);                          /* a is unaffected */
    destroy(a);
    destroy(b);
}

static void test_range_size_mismatch(void **state)
{
    fixture *f = *state;
    char d[128];
    kvf(d, sizeof d, "dir", f->dir);
    destroy(must_make(d, "range_size=10", NULL));
    void *r = NULL;
    idb_err err = { 0 };
    assert_int_equal(make(&r, &err, d, "range_size=11", NULL), IDB_EINPUT);
    assert_null(r);
    assert_non_null(strstr(err.msg, "range_size=10"));
    assert_non_null(strstr(err.msg, "range_size=11"));
    assert_non_null(strstr(err.msg, f->dir));
    assert_null(strchr(err.msg, '\n'));
    assert_int_equal(make(&r, &err, d, NULL), IDB_EINPUT);   /* the default differs too */
    char l[64];
    leases(f->dir, l, sizeof l);
    assert_string_equal(l, "0:0,");                           /* nothing leased by failures */
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, n, fp), n);
    assert_int_equal(fclose(fp), 0);
}

static void test_range_refuses_non_sqlite_file(void **state)
{
    fixture *f = *state;
    char d[128], path[128], text[4096];
    kvf(d, sizeof d, "dir", f->dir);
    snprintf(path, sizeof path, "%s/%s", f->dir, RANGE_FILE);
    for (size_t i = 0; i < sizeof text; i++) text[i] = "not a database\n"[i % 15];
    write_file(path, text, sizeof text);
    void *r = NULL;
    idb_err err = { 0 };
    assert_int_equal(make(&r, &err, d, NULL), IDB_EINPUT);
    assert_null(r);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "not a range directory"));
    char back[sizeof text];
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    assert_int_equal(fread(back, 1, sizeof back, fp), sizeof back);
    fclose(fp);
    assert_memory_equal(back, text, sizeof text);             /* left as it was */
}

static void test_range_refuses_other_sqlite_db(void **state)
{
    fixture *f = *state;
    char d[128], path[128];
    kvf(d, sizeof d, "dir", f->dir);
    snprintf(path, sizeof path, "%s/%s", f->dir, RANGE_FILE);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE orders(id INTEGER PRIMARY KEY)", NULL, NULL,
                                  NULL), SQLITE_OK);
    sqlite3_close(db);
    void *r = NULL;
    idb_err err = { 0 };
    assert_int_equal(make(&r, &err, d, NULL), IDB_EINPUT);
    assert_null(r);
    assert_non_null(strstr(err.msg, "not a range directory"));

    /* a range directory whose lease table is gone */
    unlink(path);
    destroy(must_make(d, NULL, NULL));
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "DROP TABLE lease", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(make(&r, &err, d, NULL), IDB_EINPUT);
    assert_null(r);
    assert_non_null(strstr(err.msg, "damaged"));
}

static void test_range_bad_dir(void **state)
{
    fixture *f = *state;
    char d[160], path[128];
    void *r = NULL;
    idb_err err = { 0 };
    snprintf(d, sizeof d, "dir=%s/missing", f->dir);
    assert_int_equal(make(&r, &err, d, NULL), IDB_EINPUT);
    assert_non_null(strstr(err.msg, d + 4));
    snprintf(path, sizeof path, "%s/plain-file", f->dir);
    write_file(path, "x", 1);
    snprintf(d, sizeof d, "dir=%s", path);
    assert_int_equal(make(&r, &err, d, NULL), IDB_EINPUT);
    assert_non_null(strstr(err.msg, path));
    assert_null(r);
}

/* In a child (dropping root, which may write anywhere): with dir read-only, creating the
 * range directory, and then writing an existing one, fail with IDB_EIO naming the file. */
static void test_range_unwritable_dir(void **state)
{
    fixture *f = *state;
    char d[128], path[128], sub[128];
    kvf(d, sizeof d, "dir", f->dir);
    snprintf(path, sizeof path, "%s/%s", f->dir, RANGE_FILE);
    snprintf(sub, sizeof sub, "%s/sub", f->dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    destroy(must_make(d, NULL, NULL));                        /* an existing directory file */
    if (geteuid() == 0) assert_int_equal(chown(path, 65534, 65534), 0);   /* the child's */
    assert_int_equal(chmod(path, 0444), 0);
    assert_int_equal(chmod(f->dir, 0555), 0);
    assert_int_equal(chmod(sub, 0555), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(10);
        void *r = NULL;
        idb_err err = { 0 };
        char dsub[160];
        snprintf(dsub, sizeof dsub, "dir=%s", sub);
        int rc = make(&r, &err, dsub, NULL);
        fprintf(stderr, "  unwritable (new file): rc=%d: %s\n", rc, err.msg);
        if (rc != IDB_EIO || !strstr(err.msg, sub) || strchr(err.msg, '\n') || r) _exit(11);
        char p2[200];
        snprintf(p2, sizeof p2, "%s/%s", sub, RANGE_FILE);
        if (access(p2, F_OK) == 0 || errno != ENOENT) _exit(12);   /* nothing was created */
        rc = make(&r, &err, d, NULL);
        fprintf(stderr, "  unwritable (existing file): rc=%d: %s\n", rc, err.msg);
        if (rc != IDB_EIO || !strstr(err.msg, path) || r) _exit(13);
        if (chmod(path, 0666) != 0) _exit(14);
        rc = make(&r, &err, d, NULL);
        fprintf(stderr, "  unwritable (file writable, dir not): rc=%d: %s\n", rc, err.msg);
        if (rc != IDB_EIO || !strstr(err.msg, path) || r) _exit(15);
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

typedef struct thread_arg {
    void *inst;
    uint64_t *out;
    size_t n;
    int rc;
} thread_arg;

static void *take_ids(void *p)
{
    thread_arg *a = p;
    idb_id id;
    idb_err err = { 0 };
    for (size_t i = 0; i < a->n; i++) {
        if ((a->rc = idb_strategy_find("range")->next(a->inst, &id, &err)) != 0) break;
        a->out[i] = idb_id_u64(&id);
    }
    return NULL;
}

/* Two threads share one instance through 200 leases: 200,000 IDs, exactly 1..200000. */
static void test_range_two_threads(void **state)
{
    fixture *f = *state;
    enum { N = 200000 };
    char d[128];
    void *r = must_make(kvf(d, sizeof d, "dir", f->dir), "range_size=1000", NULL);
    uint64_t *ids = malloc(N * sizeof *ids);
    assert_non_null(ids);
    thread_arg a[2] = { { r, ids, N / 2, 0 }, { r, ids + N / 2, N / 2, 0 } };
    pthread_t t[2];
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&t[i], NULL, take_ids, &a[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    assert_int_equal(a[0].rc, 0);
    assert_int_equal(a[1].rc, 0);
    qsort(ids, N, sizeof *ids, cmp_u64);
    for (size_t i = 0; i < N; i++)
        if (ids[i] != i + 1) fail_msg("sorted ID %zu is %llu, expected %zu", i,
                                      (unsigned long long)ids[i], i + 1);
    destroy(r);
    assert_int_equal(db_int(f->dir, "SELECT count(*) FROM lease"), 201);
    free(ids);
}

/* Many threads race through tiny ranges (a lease every 3 IDs, on tmpfs when there is one so
 * leases are quick): IDs stay exactly 1..N, so no thread ever hands out a value from a
 * range while another thread is replacing it. */
static void test_range_threads_race_tiny_ranges(void **state)
{
    (void)state;
    enum { THREADS = 4, EACH = 6000, N = THREADS * EACH };
    char dir[64] = "/dev/shm/idbench-test-range-XXXXXX";
    if (!mkdtemp(dir)) {
        strcpy(dir, "/tmp/idbench-test-range-XXXXXX");
        assert_non_null(mkdtemp(dir));
    }
    char d[128];
    void *r = must_make(kvf(d, sizeof d, "dir", dir), "range_size=3", NULL);
    uint64_t *ids = malloc(N * sizeof *ids);
    assert_non_null(ids);
    thread_arg a[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        a[i] = (thread_arg){ r, ids + (size_t)i * EACH, EACH, 0 };
        assert_int_equal(pthread_create(&t[i], NULL, take_ids, &a[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    destroy(r);
    for (int i = 0; i < THREADS; i++) assert_int_equal(a[i].rc, 0);
    qsort(ids, N, sizeof *ids, cmp_u64);
    for (size_t i = 0; i < N; i++)
        if (ids[i] != i + 1) fail_msg("sorted ID %zu is %llu, expected %zu", i,
                                      (unsigned long long)ids[i], i + 1);
    free(ids);
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, RANGE_FILE);
    unlink(p);
    rmdir(dir);
}

/* Write fixed-size records to fd in atomic (<= PIPE_BUF) batches until killed or done. */
typedef struct rec { uint64_t shard, id; } rec;

static void child_write_ids(int fd, const char *dkv, int shard, long limit)
{
    char skv[32];
    snprintf(skv, sizeof skv, "shard=%d", shard);
    void *r = NULL;
    idb_err err = { 0 };
    const char *size = limit < 0 ? "range_size=1000" : "range_size=500";
    if (make(&r, &err, dkv, size, skv, NULL) != 0) {
        fprintf(stderr, "child: %s\n", err.msg);
        _exit(3);
    }
    rec batch[32];                                   /* 512 bytes: one atomic pipe write */
    for (long done = 0; limit < 0 || done < limit;) {
        int n = 0;
        for (; n < 32 && (limit < 0 || done < limit); n++, done++) {
            idb_id id;
            if (idb_strategy_find("range")->next(r, &id, &err) != 0) {
                fprintf(stderr, "child: %s\n", err.msg);
                _exit(4);
            }
            batch[n] = (rec){ (uint64_t)shard, idb_id_u64(&id) };
        }
        if (write(fd, batch, (size_t)n * sizeof *batch) != (ssize_t)(n * sizeof *batch))
            _exit(5);
    }
    destroy(r);
    _exit(0);
}

/* Read complete records from fd into *v (growing it) until EOF or until *n >= want. */
static void read_records(int fd, rec **v, size_t *n, size_t *cap, size_t want, char *part,
                         size_t *npart)
{
    char buf[8192];
    while (*n < want) {
        memcpy(buf, part, *npart);
        ssize_t got = read(fd, buf + *npart, sizeof buf - *npart);
        if (got < 0 && errno == EINTR) continue;
        assert_true(got >= 0);
        if (got == 0) return;
        size_t have = *npart + (size_t)got, whole = have / sizeof(rec);
        if (*n + whole > *cap) {
            *cap = (*n + whole) * 2;
            *v = realloc(*v, *cap * sizeof **v);
            assert_non_null(*v);
        }
        memcpy(*v + *n, buf, whole * sizeof(rec));
        *n += whole;
        *npart = have - whole * sizeof(rec);          /* a record cut short: keep the bytes */
        memcpy(part, buf + whole * sizeof(rec), *npart);
    }
}

/* Crash test: 40 times, a child hands out IDs as fast as it can and is SIGKILLed at a
 * random moment (sometimes during create, often during a lease); what it wrote before
 * dying is drained. No ID is ever seen twice, and each restart is above all before it. */
static void test_range_crash_restart(void **state)
{
    fixture *f = *state;
    enum { ROUNDS = 40 };
    const uint64_t seed = 0x1db3a4e5ULL;
    idb_rng rng;
    idb_rng_seed(&rng, seed);
    char d[128];
    kvf(d, sizeof d, "dir", f->dir);
    rec *all = NULL;
    size_t n = 0, cap = 0;
    uint64_t prev_max = 0;
    int killed_early = 0;
    char backwards[160] = "";
    for (int round = 0; round < ROUNDS; round++) {
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            child_write_ids(fds[1], d, round % 3, -1);
        }
        close(fds[1]);
        /* One round in 8 kills right away, within 0..3 ms; the rest after 1..4000 IDs. */
        size_t want = 0;
        if (idb_rng_below(&rng, 8) == 0)
            usleep((useconds_t)idb_rng_below(&rng, 3000));
        else
            want = 1 + (size_t)idb_rng_below(&rng, 4000);
        size_t start = n, npart = 0;
        char part[sizeof(rec)];
        read_records(fds[0], &all, &n, &cap, start + want, part, &npart);
        if (n < start + want) {
            int status;
            waitpid(pid, &status, 0);
            fail_msg("round %d: the child stopped after %zu IDs (status 0x%x)", round, n - start,
                     status);
        }
        kill(pid, SIGKILL);
        read_records(fds[0], &all, &n, &cap, SIZE_MAX, part, &npart);   /* drain to EOF */
        close(fds[0]);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        if (n == start) { killed_early++; continue; }
        uint64_t lo = UINT64_MAX, hi = 0;
        for (size_t i = start; i < n; i++) {
            if (all[i].id < lo) lo = all[i].id;
            if (all[i].id > hi) hi = all[i].id;
        }
        if (lo <= prev_max && !backwards[0])
            snprintf(backwards, sizeof backwards, "round %d (seed %#llx): restart handed out "
                     "%llu, not above %llu", round, (unsigned long long)seed,
                     (unsigned long long)lo, (unsigned long long)prev_max);
        prev_max = hi;
    }
    uint64_t *ids = malloc((n ? n : 1) * sizeof *ids);
    assert_non_null(ids);
    for (size_t i = 0; i < n; i++) ids[i] = all[i].id;
    qsort(ids, n, sizeof *ids, cmp_u64);
    for (size_t i = 1; i < n; i++)
        if (ids[i] == ids[i - 1])
            fail_msg("seed %#llx: ID %llu was seen twice", (unsigned long long)seed,
                     (unsigned long long)ids[i]);
    if (backwards[0]) fail_msg("%s", backwards);            /* no duplicate, but a step back */
    fprintf(stderr, "  %d rounds (seed %#llx): %zu distinct IDs, %d killed before any ID, "
            "%lld leases\n", ROUNDS, (unsigned long long)seed, n, killed_early,
            (long long)db_int(f->dir, "SELECT count(*) FROM lease"));
    assert_true(n > 1000);
    char path[128], ok[16] = "";
    snprintf(path, sizeof path, "%s/%s", f->dir, RANGE_FILE);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);     /* rolls back a hot journal */
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(ok, sizeof ok, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    assert_string_equal(ok, "ok");
    free(ids);
    free(all);
}

/* Four processes share one directory at once: all IDs distinct, each in a range leased
 * by its own shard, and exactly the leases needed (161 for 4 x 20,000 of size 500). */
static void test_range_processes_share_directory(void **state)
{
    fixture *f = *state;
    enum { PROCS = 4, EACH = 20000 };
    char d[128];
    kvf(d, sizeof d, "dir", f->dir);
    destroy(must_make(d, "range_size=500", "shard=9", NULL));   /* range 0 to shard 9 */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid[PROCS];
    for (int k = 0; k < PROCS; k++) {
        pid[k] = fork();
        assert_true(pid[k] >= 0);
        if (pid[k] == 0) {
            close(fds[0]);
            child_write_ids(fds[1], d, k, EACH);
        }
    }
    close(fds[1]);
    rec *all = NULL;
    size_t n = 0, cap = 0, npart = 0;
    char part[sizeof(rec)];
    read_records(fds[0], &all, &n, &cap, SIZE_MAX, part, &npart);
    close(fds[0]);
    for (int k = 0; k < PROCS; k++) {
        int status;
        assert_int_equal(waitpid(pid[k], &status, 0), pid[k]);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    assert_int_equal(n, PROCS * EACH);
    assert_int_equal(npart, 0);
    /* range 0 went to shard 9, so every child needs exactly 40 ranges of 500 */
    assert_int_equal(db_int(f->dir, "SELECT count(*) FROM lease"), 1 + PROCS * 40);
    char path[128];
    snprintf(path, sizeof path, "%s/%s", f->dir, RANGE_FILE);
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT shard FROM lease WHERE range_no = ?", -1,
                                        &st, NULL), SQLITE_OK);
    uint64_t *ids = malloc(n * sizeof *ids);
    assert_non_null(ids);
    for (size_t i = 0; i < n; i++) {
        ids[i] = all[i].id;
        sqlite3_bind_int64(st, 1, (sqlite3_int64)(all[i].id / 500));
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        if ((uint64_t)sqlite3_column_int64(st, 0) != all[i].shard)
            fail_msg("ID %llu from shard %llu is in a range leased by shard %lld",
                     (unsigned long long)all[i].id, (unsigned long long)all[i].shard,
                     (long long)sqlite3_column_int64(st, 0));
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    qsort(ids, n, sizeof *ids, cmp_u64);
    for (size_t i = 1; i < n; i++)
        if (ids[i] == ids[i - 1]) fail_msg("ID %llu seen twice", (unsigned long long)ids[i]);
    assert_int_equal(ids[0], 500);
    assert_int_equal(ids[n - 1], 500ULL * (1 + PROCS * 40) - 1);   /* no gaps at all */
    free(ids);
    free(all);
}

/* An instance used in a forked child refuses, rather than repeat the parent's IDs. */
static void test_range_refuses_after_fork(void **state)
{
    fixture *f = *state;
    char d[128];
    void *r = must_make(kvf(d, sizeof d, "dir", f->dir), "range_size=10", NULL);
    assert_int_equal(next_u64(r), 1);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        idb_id id;
        idb_err err = { 0 };
        int rc = idb_strategy_find("range")->next(r, &id, &err);
        destroy(r);
        _exit(rc == IDB_EIO && strstr(err.msg, "fork") ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(next_u64(r), 2);
    destroy(r);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_range_first_ids_and_next_lease),
        T(test_range_lease_before_first_id),
        T(test_range_two_shards_disjoint),
        T(test_range_restart_takes_fresh_range),
        T(test_range_default_size_is_the_chapters),
        T(test_range_exhaustion),
        T(test_range_exhaustion_at_int64_max),
        T(test_range_size_mismatch),
        T(test_range_refuses_non_sqlite_file),
        T(test_range_refuses_other_sqlite_db),
        T(test_range_bad_dir),
        T(test_range_unwritable_dir),
        T(test_range_two_threads),
        T(test_range_threads_race_tiny_ranges),
        T(test_range_crash_restart),
        T(test_range_processes_share_directory),
        T(test_range_refuses_after_fork),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
