/* test_fork.c — the fork rule of strategy.h, for every strategy in the registry (read from
 * idb_strategies[], so a strategy added later is covered without touching this file): on a
 * manual clock frozen in one ms, make an ID, fork, one next() in each process; the child
 * sends its result through a pipe. A strategy declared IDB_FORK_SAFE must give the child
 * an ID different from the parent's (and from the one before the fork); one declared
 * IDB_FORK_REFUSES must get IDB_EFORK in the child and nothing else. A strategy declaring
 * neither fails. The check itself is tried on mislabelled copies (counter declared safe,
 * uuidv4 declared refusing), which it must catch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "strategy.h"

#define FROZEN_NS 1700000000123000000LL  /* 2023-11-14T22:13:20.123Z: after every epoch */
#define WHY_MAX 512

static char tmpdir[64];

/* Write a printf-style reason into why (WHY_MAX bytes); returns -1. */
__attribute__((format(printf, 2, 3)))
static int failed(char *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, WHY_MAX, fmt, ap);
    va_end(ap);
    return -1;
}

/* What the child sends back: its next()'s code, ID and message. */
typedef struct child_result {
    int rc;
    idb_id id;
    char msg[sizeof ((idb_err *)0)->msg];
} child_result;

/* Options a strategy needs to run here: a private directory for those that declare one. */
static int fork_options(const idb_strategy *s, const char **kv, char *buf, size_t n)
{
    if (!idb_opts_declared(s->options, "dir")) return 0;
    snprintf(buf, n, "dir=%s", tmpdir);
    kv[0] = buf;
    return 1;
}

/* Fork with inst made; the child's next() result into *out. Returns 0 or -1 (why filled). */
static int child_next(const idb_strategy *s, void *inst, child_result *out, char *why)
{
    int fd[2];
    if (pipe(fd) != 0) return failed(why, "pipe failed");
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return failed(why, "fork failed");
    if (pid == 0) {                  /* no destroy: the instance is the parent's */
        child_result r = { 0 };
        idb_err e = { 0 };
        r.rc = s->next(inst, &r.id, &e);
        memcpy(r.msg, e.msg, sizeof r.msg);
        _exit(write(fd[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    ssize_t got = read(fd[0], out, sizeof *out);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (got != (ssize_t)sizeof *out || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return failed(why, "the child did not report");
    return 0;
}

/* Compare the child's result with s's declaration, given the IDs made in the parent
 * before (first) and after (mine) the fork. Returns 0, or -1 with why filled. */
static int judge(const idb_strategy *s, const idb_id *first, const idb_id *mine,
                 const child_result *c, char *why)
{
    if (s->fork == IDB_FORK_SAFE) {
        if (c->rc != 0)
            return failed(why, "declared safe but the child's next() failed (%d): %s",
                          c->rc, c->msg);
        if (idb_id_cmp(&c->id, mine) == 0 || idb_id_cmp(&c->id, first) == 0)
            return failed(why, "declared safe but the child repeated an ID of the parent");
        return 0;
    }
    if (s->fork == IDB_FORK_REFUSES) {
        if (c->rc != IDB_EFORK || !strstr(c->msg, s->name) || !strstr(c->msg, "fork"))
            return failed(why, "declared refusing but the child's next() gave %d (%s), "
                          "not IDB_EFORK naming it", c->rc, c->msg);
        return 0;
    }
    return failed(why, "no fork rule declared (fork = %d)", (int)s->fork);
}

/* The fork check of s: 0 when its behaviour matches its declaration, else -1 and why. */
static int fork_check(const idb_strategy *s, char *why)
{
    idb_clock clock;
    idb_clock_manual_init(&clock, FROZEN_NS);
    idb_clock_freeze(&clock, 1);
    const char *kv[1];
    char buf[128];
    void *inst = NULL;
    idb_err e = { 0 };
    int nkv = fork_options(s, kv, buf, sizeof buf);
    if (idb_strategy_create_kv(s, kv, nkv, &clock, &inst, &e) != 0)
        return failed(why, "create failed: %s", e.msg);
    idb_id first, mine;
    child_result c;
    int rc = s->next(inst, &first, &e) != 0 ? failed(why, "next failed: %s", e.msg)
           : child_next(s, inst, &c, why);
    if (rc == 0 && s->next(inst, &mine, &e) != 0)
        rc = failed(why, "the parent's next() after fork failed: %s", e.msg);
    if (rc == 0) rc = judge(s, &first, &mine, &c, why);
    s->destroy(inst);
    return rc;
}

/* One registered strategy: behaviour matches its declaration. */
static void test_strategy_fork(void **state)
{
    const idb_strategy *s = *state;
    char why[WHY_MAX];
    if (fork_check(s, why) != 0) fail_msg("strategy %s: %s", s->name, why);
}

/* The check catches a declaration the behaviour does not match, both ways. */
static void test_check_catches_mislabels(void **state)
{
    (void)state;
    char why[WHY_MAX];
    idb_strategy lying = *idb_strategy_find("counter");
    lying.fork = IDB_FORK_SAFE;                  /* refuses, so the child's next() fails */
    assert_int_equal(fork_check(&lying, why), -1);
    assert_non_null(strstr(why, "declared safe"));
    lying = *idb_strategy_find("uuidv4");
    lying.fork = IDB_FORK_REFUSES;               /* never refuses */
    assert_int_equal(fork_check(&lying, why), -1);
    assert_non_null(strstr(why, "declared refusing"));
    lying.fork = IDB_FORK_UNDECLARED;
    assert_int_equal(fork_check(&lying, why), -1);
    assert_non_null(strstr(why, "no fork rule"));
}

static int setup(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/idb-fork-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    size_t n = 0;
    for (const idb_strategy *const *s = idb_strategies; *s; s++) n++;
    struct CMUnitTest *tests = calloc(n + 1, sizeof *tests);
    if (!tests) return 1;
    for (size_t i = 0; i < n; i++)
        tests[i] = (struct CMUnitTest){ .name = idb_strategies[i]->name,
                                        .test_func = test_strategy_fork,
                                        .initial_state = (void *)idb_strategies[i] };
    tests[n] = (struct CMUnitTest)cmocka_unit_test(test_check_catches_mislabels);
    int failed = _cmocka_run_group_tests("test_fork", tests, n + 1, setup, teardown);
    free(tests);
    return failed;
}
