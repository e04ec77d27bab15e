/* test_fork_routes.c — the fork rule of strategy.h for a child made by any route, not only
 * fork(): glibc's _Fork() (which runs no atfork handler) and a raw clone(2) (SIGCHLD only,
 * no CLONE_VM: a copy of the process that glibc knows nothing of). For every strategy in
 * the registry, driven by what it declares: one instance is made and used in the parent;
 * then, for each route, a child generates N IDs from that instance and writes them to a
 * pipe, and the parent generates N more. A strategy declared IDB_FORK_SAFE must give N IDs
 * in every child and no ID twice over the parent and all three children; one declared
 * IDB_FORK_REFUSES must get IDB_EFORK at the child's first next() and make nothing. Every
 * assert message names the strategy and the route.
 *
 * Run twice by meson: as is (the fork generation in a MADV_WIPEONFORK page, which the test
 * checks is in use) and with IDBENCH_NO_WIPEONFORK=1 (forkgen.h's getpid() fallback).
 */
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "forkgen.h"
#include "strategy.h"

#define N_IDS 3000                       /* IDs per process and route */
#define N_ROUTES 3

static char tmpdir[64];

/* A raw clone(2) as fork: flags SIGCHLD only, the child on a copy of the stack. */
static pid_t raw_clone(void)
{
    return (pid_t)syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0);
}

/* The ways a child is made. */
static const struct route {
    const char *name;
    pid_t (*make)(void);
} routes[N_ROUTES] = { { "fork", fork }, { "_Fork", _Fork }, { "clone", raw_clone } };

/* What a child sends after its IDs: how many it made and how its last next() ended. */
typedef struct child_end {
    int rc, n;
    char msg[sizeof ((idb_err *)0)->msg];
} child_end;

/* Every ID made for one strategy, over all processes. */
typedef struct idlist {
    idb_id *v;
    size_t n, cap;
} idlist;

static void push(idlist *l, const idb_id *id)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4096;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        assert_non_null(l->v);
    }
    l->v[l->n++] = *id;
}

static int cmp_id(const void *a, const void *b) { return idb_id_cmp(a, b); }

/* Options a strategy needs to run here: a private directory for those that declare one. */
static int route_options(const idb_strategy *s, const char **kv, char *buf, size_t n)
{
    if (!idb_opts_declared(s->options, "dir")) return 0;
    snprintf(buf, n, "dir=%s/%s", tmpdir, s->name);
    kv[0] = buf;
    return 1;
}

/* read() until n bytes or EOF; returns the bytes read. */
static size_t read_full(int fd, void *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)p + got, n - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    return got;
}

/* The child: up to N_IDS IDs from inst, then to fd its end record and the IDs; never
 * returns. */
static void child_run(const idb_strategy *s, void *inst, int fd)
{
    static idb_id ids[N_IDS];
    child_end end = { 0 };
    idb_err e = { 0 };
    while (end.n < N_IDS && (end.rc = s->next(inst, &ids[end.n], &e)) == 0) end.n++;
    memcpy(end.msg, e.msg, sizeof end.msg);
    size_t bytes = (size_t)end.n * sizeof *ids;
    int ok = write(fd, &end, sizeof end) == (ssize_t)sizeof end;
    for (size_t off = 0; ok && off < bytes;) {
        ssize_t w = write(fd, (char *)ids + off, bytes - off);
        ok = w > 0;
        off += ok ? (size_t)w : 0;
    }
    _exit(ok ? 0 : 3);
}

/* One route for s: a child of inst made by r, its IDs into all; checks its end against the
 * declaration. */
static void one_route(const idb_strategy *s, void *inst, const struct route *r, idlist *all)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = r->make();
    if (pid < 0) fail_msg("strategy %s, route %s: could not make a child", s->name, r->name);
    if (pid == 0) {
        close(fd[0]);
        child_run(s, inst, fd[1]);
    }
    close(fd[1]);
    int n = 0;
    child_end end = { .rc = 1, .n = -1 };
    if (read_full(fd[0], &end, sizeof end) != sizeof end) end.n = -1;
    idb_id id;
    while (n < N_IDS && read_full(fd[0], &id, sizeof id) == sizeof id) {
        push(all, &id);
        n++;
    }
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("strategy %s, route %s: the child did not exit cleanly", s->name, r->name);
    if (end.n != n)
        fail_msg("strategy %s, route %s: the child says %d IDs, sent %d", s->name, r->name,
                 end.n, n);
    if (s->fork == IDB_FORK_SAFE && (end.rc != 0 || n != N_IDS))
        fail_msg("strategy %s, route %s: declared safe but the child made %d of %d IDs "
                 "(rc %d: %s)", s->name, r->name, n, N_IDS, end.rc, end.msg);
    if (s->fork == IDB_FORK_REFUSES &&
        (end.rc != IDB_EFORK || n != 0 || !strstr(end.msg, s->name)))
        fail_msg("strategy %s, route %s: declared refusing but the child made %d IDs and "
                 "ended with %d (%s), not IDB_EFORK naming it at once", s->name, r->name, n,
                 end.rc, end.msg);
}

/* The parent's N_IDS IDs from inst into all (tag says when). */
static void parent_ids(const idb_strategy *s, void *inst, int count, const char *tag,
                       idlist *all)
{
    idb_err e = { 0 };
    idb_id id;
    for (int i = 0; i < count; i++) {
        if (s->next(inst, &id, &e) != 0)
            fail_msg("strategy %s: the parent's next() %s failed: %s", s->name, tag, e.msg);
        push(all, &id);
    }
}

/* One registered strategy over the three routes. */
static void test_routes(void **state)
{
    const idb_strategy *s = *state;
    if (s->fork != IDB_FORK_SAFE && s->fork != IDB_FORK_REFUSES)
        fail_msg("strategy %s: no fork rule declared", s->name);
    const char *kv[1];
    char buf[128];
    void *inst = NULL;
    idb_err e = { 0 };
    int nkv = route_options(s, kv, buf, sizeof buf);
    if (idb_strategy_create_kv(s, kv, nkv, idb_clock_real(), &inst, &e) != 0)
        fail_msg("strategy %s: create failed: %s", s->name, e.msg);
    idlist all = { 0 };
    parent_ids(s, inst, 100, "before the children", &all);
    for (int r = 0; r < N_ROUTES; r++) {
        one_route(s, inst, &routes[r], &all);
        parent_ids(s, inst, N_IDS, "after a child", &all);
    }
    s->destroy(inst);
    qsort(all.v, all.n, sizeof *all.v, cmp_id);
    size_t dups = 0;
    for (size_t i = 1; i < all.n; i++) dups += idb_id_cmp(&all.v[i - 1], &all.v[i]) == 0;
    size_t n = all.n;
    free(all.v);
    if (dups)
        fail_msg("strategy %s: %zu of %zu IDs made twice over the parent and its fork, "
                 "_Fork and clone children", s->name, dups, n);
}

/* The generation lives in the wiped page unless the fallback is asked for. */
static void test_wipeonfork_in_use(void **state)
{
    (void)state;
    const char *off = getenv("IDBENCH_NO_WIPEONFORK");
    assert_int_equal(idb_fork_wipes(), !(off && *off && strcmp(off, "0")));
}

static int setup(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/idb-froutes-XXXXXX");
    if (!mkdtemp(tmpdir)) return -1;
    char d[128];
    for (const idb_strategy *const *s = idb_strategies; *s; s++) {
        snprintf(d, sizeof d, "%s/%s", tmpdir, (*s)->name);
        if (mkdir(d, 0700) != 0) return -1;
    }
    return 0;
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
                                        .test_func = test_routes,
                                        .initial_state = (void *)idb_strategies[i] };
    tests[n] = (struct CMUnitTest)cmocka_unit_test(test_wipeonfork_in_use);
    int failed = _cmocka_run_group_tests("test_fork_routes", tests, n + 1, setup, teardown);
    free(tests);
    return failed;
}
