/* test_statefile.c — state_file=PATH (strategies/statefile.h) on a manual clock: the time
 * reserved ahead of use, a restart after a clean destroy and after a crash with the clock
 * stepped back (refused, or waited for, or gone on above, as each strategy says), one user
 * at a time (lock), a corrupt file refused and left as it was, a forked child refused, a
 * failed write refused. Every strategy of the registry that declares `state_file` is
 * tested; one that also declares `on_backwards` must refuse (or wait) at create.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "statefile.h"
#include "strategy.h"
#include "decode_test.h"

#define T0_MS 1700000000000LL           /* 2023-11-14T22:13:20Z */
#define NS_PER_MS 1000000LL
#define RUN_IDS 12000                   /* IDs of a run: 4 per ms, 3 s of clock */
#define IDS_PER_MS 4
#define STEP_BACK_MS 5000
#define PATH_MAX_TEST 512

#define DIR_TEMPLATE "/tmp/idb-statefile-XXXXXX"
static char dir[sizeof DIR_TEMPLATE];
static char path[PATH_MAX_TEST];       /* the state file of the test running now */
static char kv_path[PATH_MAX_TEST + 16];

/* Make the private directory and the state file's name in it. */
static int setup(void **state)
{
    (void)state;
    memcpy(dir, DIR_TEMPLATE, sizeof dir);
    if (!mkdtemp(dir)) return -1;
    snprintf(path, sizeof path, "%s/state", dir);
    snprintf(kv_path, sizeof kv_path, "state_file=%s", path);
    return 0;
}

/* Remove every file in the directory, then the directory. */
static int teardown(void **state)
{
    (void)state;
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[PATH_MAX_TEST + 256];
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            if (unlink(p) != 0) rmdir(p);
        }
    if (d) closedir(d);
    rmdir(dir);
    return 0;
}

/* Remove the state file and its companions between strategies. */
static void fresh(void)
{
    teardown(NULL);
    assert_int_equal(setup(NULL), 0);
}

/* Create s with state_file and extra (NULL or one more KEY=VALUE) on c. Returns the code. */
static int make(const idb_strategy *s, const char *extra, idb_clock *c, void **inst, idb_err *e)
{
    const char *kv[] = { kv_path, extra };
    *inst = NULL;
    return idb_strategy_create_kv(s, kv, extra ? 2 : 1, c, inst, e);
}

/* Whether s refuses a clock behind at create (it declares on_backwards). */
static int refuses(const idb_strategy *s) { return idb_opts_declared(s->options, "on_backwards"); }

/* The reserved_ms the state file holds now; asserts it parses. */
static int64_t file_ms(void)
{
    char text[256] = "";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    const char *p = strstr(text, "reserved_ms ");
    assert_non_null(p);
    return strtoll(p + strlen("reserved_ms "), NULL, 10);
}

/* A run: RUN_IDS IDs from inst, the clock moving 1 ms per IDS_PER_MS; each above the last.
 * Returns the last (the highest). */
static idb_id run(const idb_strategy *s, void *inst, idb_clock *c)
{
    idb_id id = { 0 }, prev = { 0 };
    idb_err e = { 0 };
    for (int i = 0; i < RUN_IDS; i++) {
        if (s->next(inst, &id, &e) != 0) fail_msg("%s: ID %d: %s", s->name, i, e.msg);
        if (i && idb_id_cmp(&prev, &id) >= 0) fail_msg("%s: ID %d not above the last", s->name, i);
        prev = id;
        if (i % IDS_PER_MS == IDS_PER_MS - 1) idb_clock_advance_ns(c, NS_PER_MS);
    }
    return id;
}

/* After a run that reached high, on c stepped back: a strategy that refuses refuses with
 * behind_ms up to file_ms() + 1, and with on_backwards=wait waits exactly that far; the
 * others go on without moving the clock. Either way every ID after is above high. */
static void restart_above(const idb_strategy *s, idb_clock *c, const idb_id *high)
{
    void *inst;
    idb_err e = { 0 };
    int64_t now = idb_clock_now_ms(c), reserved = file_ms();
    assert_true(now <= reserved);
    if (refuses(s)) {
        assert_int_equal(make(s, NULL, c, &inst, &e), IDB_ECLOCK);
        assert_null(inst);
        assert_int_equal(e.behind_ms, reserved + 1 - now);
        assert_non_null(strstr(e.msg, "state_file"));
        assert_int_equal(make(s, "on_backwards=wait", c, &inst, &e), 0);
        assert_int_equal(idb_clock_now_ns(c), (reserved + 1) * NS_PER_MS);   /* waited */
    } else {
        assert_int_equal(make(s, NULL, c, &inst, &e), 0);
        assert_int_equal(idb_clock_now_ms(c), now);                        /* did not */
    }
    for (int i = 0; i < 100; i++) {
        idb_id id;
        assert_int_equal(s->next(inst, &id, &e), 0);
        if (idb_id_cmp(&id, high) <= 0) fail_msg("%s: ID %d after the restart is not above "
                                                 "the last run's", s->name, i);
    }
    s->destroy(inst);
}

/* Run, destroy (the file keeps the last ms used), step the clock back, create again. */
TEST(test_restart_after_destroy)
{
    for (const idb_strategy *const *sp = idb_strategies; *sp; sp++) {
        const idb_strategy *s = *sp;
        if (!idb_opts_declared(s->options, "state_file")) continue;
        fresh();
        idb_clock c;
        idb_clock_manual_init(&c, T0_MS * NS_PER_MS);
        void *inst;
        idb_err e = { 0 };
        assert_int_equal(make(s, NULL, &c, &inst, &e), 0);
        idb_id high = run(s, inst, &c);
        s->destroy(inst);
        int64_t last = file_ms();
        assert_true(last >= T0_MS + RUN_IDS / IDS_PER_MS - 1);
        assert_true(last < T0_MS + RUN_IDS / IDS_PER_MS + IDB_STATE_WINDOW_MS);
        idb_clock_advance_ns(&c, -STEP_BACK_MS * NS_PER_MS);
        restart_above(s, &c, &high);
    }
}

/* A run in a child that exits without destroy (a crash): the file keeps the reservation,
 * ahead of every ID the child made; the restart stays above it. */
TEST(test_restart_after_crash)
{
    for (const idb_strategy *const *sp = idb_strategies; *sp; sp++) {
        const idb_strategy *s = *sp;
        if (!idb_opts_declared(s->options, "state_file")) continue;
        fresh();
        idb_clock c;
        idb_clock_manual_init(&c, T0_MS * NS_PER_MS);
        int fd[2];
        assert_int_equal(pipe(fd), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            void *inst;
            idb_err e = { 0 };
            close(fd[0]);
            if (make(s, NULL, &c, &inst, &e) != 0) _exit(1);
            idb_id high = run(s, inst, &c);
            _exit(write(fd[1], &high, sizeof high) == (ssize_t)sizeof high ? 0 : 1);
        }
        close(fd[1]);
        idb_id high = { 0 };
        assert_int_equal(read(fd[0], &high, sizeof high), (ssize_t)sizeof high);
        close(fd[0]);
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_true(file_ms() >= T0_MS + RUN_IDS / IDS_PER_MS);   /* ahead of what it used */
        restart_above(s, &c, &high);               /* c: the parent's, still at T0 */
    }
}

/* One user at a time: a second instance on the file, in this process or another, is
 * refused with a message saying so; after the first is destroyed it works. */
TEST(test_second_user_refused)
{
    const idb_strategy *s = idb_strategy_find("snowflake");
    void *a, *b;
    idb_err e = { 0 };
    assert_int_equal(make(s, NULL, idb_clock_real(), &a, &e), 0);
    assert_int_equal(make(s, NULL, idb_clock_real(), &b, &e), IDB_EUNAVAIL);
    assert_non_null(strstr(e.msg, "in use by another instance"));
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        void *c;
        idb_err ce = { 0 };
        _exit(make(s, NULL, idb_clock_real(), &c, &ce) == IDB_EUNAVAIL ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    s->destroy(a);
    assert_int_equal(make(s, NULL, idb_clock_real(), &b, &e), 0);
    s->destroy(b);
}

/* Write text as the state file. */
static void put_file(const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A corrupt file is refused with IDB_EINPUT for every strategy, and left as it was. */
TEST(test_corrupt_refused)
{
    static const char *const bad[] = {       /* %s: the strategy's own name */
        "", "garbage\n", "idbench-state 1\n",
        "idbench-state 2\nstrategy %s\nreserved_ms 5\n",
        "idbench-state 1\nstrategy other\nreserved_ms 5\n",
        "idbench-state 1\nstrategy %s\nreserved_ms -5\n",
        "idbench-state 1\nstrategy %s\nreserved_ms 5",
        "idbench-state 1\nstrategy %s\nreserved_ms 5x\n",
        "idbench-state 1\nstrategy %s\nreserved_ms 5\n\n",
        "idbench-state 1\nstrategy %s\nreserved_ms \n",
        "idbench-state 1\nstrategy %s\nreserved_ms 99999999999999999999\n",
        "idbench-state 1\nstrategy %s\nreserved_ms 9223372036854\n",       /* past 2262 */
    };
    for (const idb_strategy *const *sp = idb_strategies; *sp; sp++) {
        const idb_strategy *s = *sp;
        if (!idb_opts_declared(s->options, "state_file")) continue;
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
            char text[256], back[256] = "";
            snprintf(text, sizeof text, bad[i], s->name);
            put_file(text);
            void *inst;
            idb_err e = { 0 };
            if (make(s, NULL, idb_clock_real(), &inst, &e) != IDB_EINPUT)
                fail_msg("%s: file %zu accepted: '%s'", s->name, i, text);
            assert_non_null(strstr(e.msg, "corrupt"));
            FILE *f = fopen(path, "r");
            assert_non_null(f);
            back[fread(back, 1, sizeof back - 1, f)] = 0;
            fclose(f);
            assert_string_equal(back, text);                  /* never reset */
        }
        unlink(path);
    }
    void *inst;
    idb_err e = { 0 };
    assert_int_equal(mkdir(path, 0700), 0);                   /* a directory: bad input */
    assert_int_equal(make(idb_strategy_find("ulid"), NULL, idb_clock_real(), &inst, &e),
                     IDB_EINPUT);
    rmdir(path);
}

/* A forked child with the parent's instance is refused (IDB_EFORK) and its destroy changes
 * nothing; the parent keeps the lock and goes on. */
TEST(test_fork_child_refused)
{
    const idb_strategy *s = idb_strategy_find("uuidv7");
    idb_clock c;
    idb_clock_manual_init(&c, T0_MS * NS_PER_MS);
    void *inst;
    idb_id id;
    idb_err e = { 0 };
    assert_int_equal(make(s, NULL, &c, &inst, &e), 0);
    assert_int_equal(s->next(inst, &id, &e), 0);
    int64_t before = file_ms();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        idb_err ce = { 0 };
        int rc = s->next(inst, &id, &ce);
        s->destroy(inst);
        _exit(rc == IDB_EFORK && strstr(ce.msg, "fork") ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(file_ms(), before);
    void *other;
    assert_int_equal(make(s, NULL, &c, &other, &e), IDB_EUNAVAIL);   /* still locked */
    idb_clock_advance_ns(&c, 2 * IDB_STATE_WINDOW_MS * NS_PER_MS);
    assert_int_equal(s->next(inst, &id, &e), 0);
    assert_true(file_ms() > before);
    s->destroy(inst);
}

/* The module: a reservation is written before the ID and only when ms passes it; close
 * writes the last ms used; a failed write is IDB_EIO and the strategy hands out nothing. */
TEST(test_reserved_ahead)
{
    idb_statefile *sf;
    idb_err e = { 0 };
    assert_int_equal(idb_statefile_open(path, "ulid", &sf, &e), 0);
    assert_true(sf->reserved_ms == IDB_STATE_NONE);
    assert_int_equal(idb_statefile_cover(sf, T0_MS, &e), 0);
    assert_int_equal(file_ms(), T0_MS + IDB_STATE_WINDOW_MS);
    assert_int_equal(unlink(path), 0);                       /* a write would bring it back */
    assert_int_equal(idb_statefile_cover(sf, T0_MS + IDB_STATE_WINDOW_MS, &e), 0);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(idb_statefile_cover(sf, T0_MS + IDB_STATE_WINDOW_MS + 1, &e), 0);
    assert_int_equal(file_ms(), T0_MS + 2 * IDB_STATE_WINDOW_MS + 1);
    idb_statefile_close(sf);
    assert_int_equal(file_ms(), T0_MS + IDB_STATE_WINDOW_MS + 1);   /* the last ms used */

    const idb_strategy *s = idb_strategy_find("snowflake");
    assert_int_equal(unlink(path), 0);                       /* ulid's: snowflake refuses it */
    char tmp[PATH_MAX_TEST + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    idb_clock c;
    idb_clock_manual_init(&c, (T0_MS + 2 * IDB_STATE_WINDOW_MS) * NS_PER_MS);
    void *inst;
    idb_id id;
    assert_int_equal(make(s, NULL, &c, &inst, &e), 0);
    assert_int_equal(mkdir(tmp, 0700), 0);                   /* the temp file cannot be made */
    assert_int_equal(s->next(inst, &id, &e), IDB_EIO);
    assert_non_null(strstr(e.msg, "state_file"));
    assert_int_equal(rmdir(tmp), 0);
    assert_int_equal(s->next(inst, &id, &e), 0);
    s->destroy(inst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_restart_after_destroy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_after_crash, setup, teardown),
        cmocka_unit_test_setup_teardown(test_second_user_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fork_child_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reserved_ahead, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
