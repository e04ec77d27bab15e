/* test_range.c — the `range` strategy: leases in the SQLite range directory, exact IDs,
 * restarts, shards sharing a directory, the chapter's default size, exhaustion, and bad
 * or foreign directories. Threads, processes and crashes: test_range_concurrency.c. */
#include "range_test.h"

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
 * range directory, and then writing an existing one, fail with IDB_EINPUT (create() refuses
 * a dir that cannot be used: bad input) naming the file. */
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
        if (rc != IDB_EINPUT || !strstr(err.msg, sub) || strchr(err.msg, '\n') || r) _exit(11);
        char p2[200];
        snprintf(p2, sizeof p2, "%s/%s", sub, RANGE_FILE);
        if (access(p2, F_OK) == 0 || errno != ENOENT) _exit(12);   /* nothing was created */
        rc = make(&r, &err, d, NULL);
        fprintf(stderr, "  unwritable (existing file): rc=%d: %s\n", rc, err.msg);
        if (rc != IDB_EINPUT || !strstr(err.msg, path) || r) _exit(13);
        if (chmod(path, 0666) != 0) _exit(14);
        rc = make(&r, &err, d, NULL);
        fprintf(stderr, "  unwritable (file writable, dir not): rc=%d: %s\n", rc, err.msg);
        if (rc != IDB_EINPUT || !strstr(err.msg, path) || r) _exit(15);
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
