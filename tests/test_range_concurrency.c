/* test_range_concurrency.c — the `range` strategy under concurrency: threads sharing an
 * instance, processes sharing a directory, a generating process SIGKILLed and restarted
 * many times (no ID is ever handed out twice), and use after fork. */
#include "range_test.h"

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
    /* after the read-write open: a child killed mid-lease leaves a hot journal, which a
     * read-only connection cannot roll back (SQLITE_READONLY) */
    fprintf(stderr, "  %d rounds (seed %#llx): %zu distinct IDs, %d killed before any ID, "
            "%lld leases\n", ROUNDS, (unsigned long long)seed, n, killed_early,
            (long long)db_int(f->dir, "SELECT count(*) FROM lease"));
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
        _exit(rc == IDB_EFORK && strstr(err.msg, "fork") ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(next_u64(r), 2);
    destroy(r);
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_range_two_threads),
        T(test_range_threads_race_tiny_ranges),
        T(test_range_crash_restart),
        T(test_range_processes_share_directory),
        T(test_range_refuses_after_fork),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
