/* test_matrix_file.c — reading matrix files (matrix_file.c) through the key parser: the
 * built-in defaults, a named block inheriting what it does not set, [quick] applied only
 * with --quick, later files overriding earlier ones, the fault block [faults.replicated],
 * and bad values refused as "FILE:LINE: KEY ..." in the one wording of keys.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matrix.h"
#include "server.h"

#define PATH_LEN 64

/* Write text to a new temporary file; its path goes into path (PATH_LEN bytes). */
static void temp_file(const char *text, char *path)
{
    strcpy(path, "/tmp/idb_test_mx.XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* Defaults, then text as a matrix file, then mx_finish(quick). Returns the code; err. */
static int load(idb_matrix *m, const char *text, int quick, char *path, idb_err *err)
{
    temp_file(text, path);
    mx_defaults(m);
    int rc = mx_load_file(m, path, err);
    if (rc == 0) rc = mx_finish(m, quick, err);
    unlink(path);
    return rc;
}

/* The built-in defaults (workloads/matrix.ini documents them). */
static void test_defaults(void **state)
{
    (void)state;
    idb_matrix *m = malloc(sizeof *m);
    mx_defaults(m);
    assert_int_equal(m->seed, 1);
    assert_int_equal(m->repeat, 5);
    assert_int_equal(m->cell_timeout_s, 900);
    assert_true(m->gen_min_time == 0.5);
    assert_int_equal(m->n_insert, 1);
    int n = 0;
    while (idb_strategies[n]) n++;
    assert_int_equal(m->insert[0].n_strategies, n);
    assert_int_equal(m->insert[0].sizes[0], 100000);
    assert_int_equal(m->insert[0].set, 0);
    assert_string_equal(m->curve[0].name, "curve");
    assert_int_equal(m->curve[0].n_stores, 1);
    assert_string_equal(m->curve[0].stores[0]->name, "pagesim");
    assert_int_equal(m->curve[0].sizes[0], 200000);
    assert_int_equal(m->curve[0].n_cache_pages, 11);
    assert_int_equal(m->curve[0].cache_pages[10], 16384);
    assert_int_equal(m->insert[0].n_cache_pages, 0);
    assert_string_equal(m->sim_strategies, "");
    assert_int_equal(m->n_workloads, 0);
    assert_int_equal(m->claims_enabled, 1);
    assert_int_equal(m->claims_quick, 0);
    free(m);
}

/* A named block takes the keys it does not set from its base; [quick] only with quick. */
static void test_blocks_and_quick(void **state)
{
    (void)state;
    const char *text = "[insert]\nsizes = 10, 20\nstores = null\n[insert.more]\nshards = 2\n"
                       "[curve.c]\ncache_pages = 5\n[quick]\ninsert.more.sizes = 3\n";
    idb_matrix *m = malloc(sizeof *m);
    idb_err err = { 0 };
    char path[PATH_LEN];
    for (int quick = 0; quick <= 1; quick++) {
        if (load(m, text, quick, path, &err) != 0) fail_msg("%s", err.msg);
        assert_int_equal(m->n_insert, 2);
        const mx_block *b = &m->insert[1];
        assert_string_equal(b->name, "insert.more");
        assert_int_equal(b->n_shards, 1);
        assert_int_equal(b->shards[0], 2);
        assert_int_equal(b->n_stores, 1);
        assert_string_equal(b->stores[0]->name, "null");
        assert_int_equal(b->n_sizes, quick ? 1 : 2);
        assert_int_equal(b->sizes[0], quick ? 3 : 10);
        assert_int_equal(m->curve[1].n_cache_pages, 1);
        assert_int_equal(m->curve[1].sizes[0], 200000);      /* from [curve], not [insert] */
    }
    free(m);
}

/* A block's clients list makes a cell per value, keyed on it (the one-writer run of a
 * block that repeats another block's run is that run, not a second one), labelled
 * clients=C above one writer; a block's repeat runs its cells that many times; clients
 * above 1 outside [insert...] blocks are refused. */
static void test_clients_block(void **state)
{
    (void)state;
    const char *text = "[matrix]\nrepeat = 3\n[generation]\nenabled = 0\n[simulate]\n"
                       "enabled = 0\n[claims]\nenabled = 0\n[insert]\nstores = null, pagesim\n"
                       "strategies = counter\nsizes = 10\n[insert.c]\nclients = 1, 4, 16\n"
                       "repeat = 1\n";
    idb_matrix *m = malloc(sizeof *m);
    idb_err err = { 0 };
    char path[PATH_LEN];
    if (load(m, text, 0, path, &err) != 0) fail_msg("%s", err.msg);
    assert_int_equal(m->insert[1].n_clients, 3);
    assert_int_equal(m->insert[1].repeat, 1);
    assert_int_equal(m->insert[0].n_clients, 1);
    assert_int_equal(m->insert[0].clients[0], 1);
    mx_plan p;
    assert_int_equal(mx_plan_make(m, &p, &err), 0);
    int n[17] = { 0 }, labelled = 0, configs[17] = { 0 };
    for (int i = 0; i < p.n; i++) {
        const mx_cell *c = &p.cells[i];
        if (c->kind != MX_INSERT || c->rate > 0) continue;
        assert_true(c->clients == 1 || c->clients == 4 || c->clients == 16);
        n[c->clients]++;
        configs[c->clients] |= 1 << c->config;
        labelled += strstr(c->label, " clients=") != NULL;
        if (c->clients > 1) assert_int_equal(c->rep, 0);
    }
    assert_int_equal(n[1], 2 * 3);              /* the base block's, three repeats; C = 1 of
                                                 * [insert.c] is the same run */
    assert_int_equal(n[4], 2);                  /* two stores, one repeat */
    assert_int_equal(n[16], 2);
    assert_int_equal(labelled, 4);
    assert_int_equal(configs[4] & configs[1], 0);   /* a configuration of its own */
    assert_int_equal(configs[4] & configs[16], 0);
    mx_plan_free(&p);
    assert_int_equal(load(m, "[openloop]\nclients = 4\n", 0, path, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, ":2: clients 4 in [openloop]: more than one writer"));
    assert_int_equal(load(m, "[series]\nenabled = 1\nclients = 1, 2\n", 0, path, &err), IDB_EINPUT);
    free(m);
}

/* A later file overrides the keys of an earlier one, store options included. */
static void test_later_file_overrides(void **state)
{
    (void)state;
    idb_matrix *m = malloc(sizeof *m);
    idb_err err = { 0 };
    char a[PATH_LEN], b[PATH_LEN];
    temp_file("[matrix]\nrepeat = 5\n[store.sqlite]\ncache_pages = 10\n", a);
    temp_file("[matrix]\nrepeat = 2\n[store.sqlite]\ncache_pages = 20\n", b);
    mx_defaults(m);
    assert_int_equal(mx_load_file(m, a, &err), 0);
    assert_int_equal(mx_load_file(m, b, &err), 0);
    assert_int_equal(mx_finish(m, 0, &err), 0);
    assert_int_equal(m->repeat, 2);
    const mx_store_opts *so = mx_store_options(m, idb_store_find("sqlite"));
    assert_non_null(so);
    assert_int_equal(so->n, 1);
    assert_string_equal(so->kv[0], "cache_pages=20");
    unlink(a);
    unlink(b);
    free(m);
}

/* Bad values: "FILE:LINE: " and the key parser's message. */
static void test_errors(void **state)
{
    (void)state;
    static const struct { const char *text, *msg; } bad[] = {
        { "[matrix]\nrepeat = 0\n", ":2: repeat = 0 is out of range 1..100" },
        { "[generation]\nmin_time = fast\n", ":2: min_time = 'fast': expected a number" },
        { "[claims]\nquick = 2\n", ":2: quick = '2': expected one of 0|1" },
        { "[insert]\nsizes = 10, 0\n", ":2: sizes: entry 0 is out of range 1..1000000000" },
        { "[insert]\nsizes =\n", ":2: sizes: expected at least one entry" },
        { "[insert]\nstrategies = counter, nosuch\n",
          ":2: unknown strategy 'nosuch' (see idbench list)" },
        { "[insert.x]\ncache_pages = 1\n", ":2: unknown key 'cache_pages' in [insert.x] (keys: "
          "enabled, strategies, stores, sizes, shards, batch, shops, key_bytes, clients, repeat, "
          "store_set, then)" },
        { "[curve]\nstores = null\n", ":2: store null has no cache to draw a miss-ratio curve of" },
        { "[store.sqlite]\ncache_pages = lots\n",
          ":2: store sqlite: option cache_pages = 'lots': expected an integer" },
        { "[simulate]\nskew_ms = -1\n", ":2: skew_ms: entry -1 is out of range 0..1e+07" },
        { "[quick]\nmatrix.repeat = 0\n", ":2: repeat = 0 is out of range 1..100" },
    };
    idb_matrix *m = malloc(sizeof *m);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        idb_err err = { 0 };
        char path[PATH_LEN], want[512];
        assert_int_equal(load(m, bad[i].text, 0, path, &err), IDB_EINPUT);
        snprintf(want, sizeof want, "%s%s", path, bad[i].msg);
        assert_string_equal(err.msg, want);
    }
    free(m);
}

/* Every run is checked at the end against the store (its table and its check hook, with
 * each strategy's width) and the error names the line that set the refused value: the
 * store option that makes the check fail, a curve's cache size, a [quick] override (only
 * with --quick); a store no run uses is not checked. */
static void test_runs_checked(void **state)
{
    (void)state;
    static const struct { const char *text, *msg; int quick; } bad[] = {
        { "[store.sqlite]\npage_size = 1000\n",
          ":2: sqlite: page_size=1000 is not a power of two (a run of [insert] with strategy "
          "counter)", 0 },
        { "[insert]\nstrategies = counter, uuidv7\n[store.sqlite]\nschema = rowid\n",
          ":4: sqlite: schema=rowid needs 8-byte keys, not 16; use schema=blob (a run of "
          "[insert] with strategy uuidv7)", 0 },
        { "[store.pagesim]\npage_size = 8192\nrow_bytes = 5000\n",
          ":3: pagesim: row_bytes=5000 is too large for page_size=8192: a leaf page must hold "
          "at least 2 rows (a run of [insert] with strategy counter)", 0 },
        { "[insert]\nenabled = 0\n[curve.s]\nstores = sqlite\ncache_pages = 5, 1073741824\n",
          ":5: store sqlite: option cache_pages = 1073741824 is out of range 1..1000000000 (a "
          "run of [curve.s] with strategy counter)", 0 },
        { "[insert]\nstores = sqlite\n[quick]\nstore.sqlite.page_size = 3000\n", NULL, 0 },
        { "[insert]\nstores = sqlite\n[quick]\nstore.sqlite.page_size = 3000\n",
          ":4: sqlite: page_size=3000 is not a power of two (a run of [insert] with strategy "
          "counter)", 1 },
        { "[openloop]\nenabled = 0\n[series]\nenabled = 0\n[insert]\nstores = sqlite\n[quick]\n"
          "insert.stores = null\n[store.sqlite]\npage_size = 3000\n", NULL, 1 },  /* no sqlite */
        { "[openloop]\nstores = lmdb, pagesim\n", ":2: store pagesim is a model and measures "
          "no time (a run of [openloop] needs a store that does)", 0 },
    };
    idb_matrix *m = malloc(sizeof *m);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        idb_err err = { 0 };
        char path[PATH_LEN], want[512];
        int rc = load(m, bad[i].text, bad[i].quick, path, &err);
        if (!bad[i].msg) {
            if (rc) fail_msg("%s", err.msg);
            continue;
        }
        assert_int_equal(rc, IDB_EINPUT);
        snprintf(want, sizeof want, "%s%s", path, bad[i].msg);
        assert_string_equal(err.msg, want);
    }
    free(m);
}

/* A strategy that takes 4 workers: a block of 8 shards is refused, naming its shards line. */
static const idb_opt_decl four_workers[] = {
    { .name = "worker", .type = IDB_OPT_INT, .def = "0", .min = 0, .max = 3, .help = "" },
    { 0 },
};
static const idb_strategy fake = { .version = IDB_STRATEGY_VERSION, .name = "fake", .bits = 64,
                                   .options = four_workers };

static void test_shards_checked(void **state)
{
    (void)state;
    idb_matrix *m = malloc(sizeof *m);
    idb_err err = { 0 };
    char path[PATH_LEN], want[512];
    temp_file("[insert]\nstores = null\n\nshards = 1, 4\n[insert.big]\nshards = 8\n", path);
    for (int big = 0; big <= 1; big++) {
        mx_defaults(m);
        assert_int_equal(mx_load_file(m, path, &err), 0);
        m->insert[0].strategies[0] = &fake;
        m->insert[0].n_strategies = 1;
        m->insert[1].enabled = big;
        int rc = mx_finish(m, 0, &err);
        if (!big) { assert_int_equal(rc, 0); continue; }
        assert_int_equal(rc, IDB_EINPUT);
        snprintf(want, sizeof want, "%s:6: strategy fake: option worker = 7 is out of range 0..3 "
                 "(a run of [insert.big] with 8 shards)", path);
        assert_string_equal(err.msg, want);
    }
    unlink(path);
    free(m);
}

/* Run every test of this file. */
/* [series] blocks (issue 13): their defaults; a run per cache size on the stores that
 * declare cache_pages (one run, no cache, on LMDB), once whatever repeat says; a window that
 * is not a multiple of the batch is refused at the line that set it. */
static void test_series_block(void **state)
{
    (void)state;
    idb_matrix *m = malloc(sizeof *m);
    mx_defaults(m);
    assert_int_equal(m->n_series, 1);
    assert_string_equal(m->series[0].name, "series");
    assert_int_equal(m->series[0].n_strategies, 3);
    assert_int_equal(m->series[0].n_stores, 3);
    assert_int_equal(m->series[0].sizes[0], 200000);
    assert_int_equal(m->series[0].window, 10000);
    assert_int_equal(m->series[0].n_series_cache, 0);
    assert_int_equal(m->series[0].enabled, 0);                 /* on only where a file says */
    idb_err err = { 0 };
    char path[PATH_LEN], want[512];
    const char *text = "[generation]\nenabled = 0\n[insert]\nenabled = 0\n[curve]\n"
                       "enabled = 0\n[openloop]\nenabled = 0\n[simulate]\nenabled = 0\n"
                       "[claims]\nenabled = 0\n[series]\nenabled = 1\ncache_pages = 50, 100\n";
    if (load(m, text, 0, path, &err) != 0) fail_msg("%s", err.msg);
    mx_plan p;
    assert_int_equal(mx_plan_make(m, &p, &err), 0);
    int cells = 0, lmdb = 0;
    for (int i = 0; i < p.n; i++) {
        assert_int_equal(p.cells[i].kind, MX_SERIES);
        assert_int_equal(p.cells[i].window, 10000);
        cells++;
        if (!strcmp(p.cells[i].store->name, "lmdb")) lmdb++;
        assert_true(!strcmp(p.cells[i].store->name, "lmdb") ? p.cells[i].cache_pages == 0
                                                           : p.cells[i].cache_pages >= 50);
    }
    assert_int_equal(cells, 3 * (2 + 2 + 1));        /* sqlite, pagesim: 2 caches; lmdb: 1 */
    assert_int_equal(lmdb, 3);
    mx_plan_free(&p);
    assert_int_equal(load(m, "[series]\nenabled = 1\nbatch = 1000\nwindow = 1500\n", 0, path,
                          &err), IDB_EINPUT);
    snprintf(want, sizeof want, "%s:4: window 1500 of [series] is not a multiple of its "
             "batch 1000", path);
    assert_string_equal(err.msg, want);
    free(m);
}

/* The [read] block (issue 27): built in off with its defaults; turned on, a cell per store
 * and strategy, once (not per repeat), kind MX_READ, its block kept for the patterns; a
 * named block inherits the patterns; a pattern or a cache that is not one is refused at its
 * line. */
static void test_read_block(void **state)
{
    (void)state;
    idb_matrix *m = malloc(sizeof *m);
    mx_defaults(m);
    assert_int_equal(m->n_read, 1);
    assert_string_equal(m->read[0].name, "read");
    assert_int_equal(m->read[0].enabled, 0);
    assert_int_equal(m->read[0].n_strategies, 4);
    assert_int_equal(m->read[0].n_stores, 3);
    assert_int_equal(m->read[0].sizes[0], 200000);
    assert_string_equal(m->read[0].read_patterns, "recent:5, uniform");
    assert_string_equal(m->read[0].read_cache, "cold");
    assert_int_equal(m->read[0].lookups, 10000);
    idb_err err = { 0 };
    char path[PATH_LEN], want[512];
    const char *text = "[matrix]\nrepeat = 3\n[generation]\nenabled = 0\n[insert]\n"
                       "enabled = 0\n[curve]\nenabled = 0\n[openloop]\nenabled = 0\n"
                       "[simulate]\nenabled = 0\n[claims]\nenabled = 0\n[read]\nenabled = 1\n"
                       "stores = sqlite, pagesim\nstrategies = counter, uuidv4\n"
                       "patterns = recent:2, mixed:50:5\ncache = warm\nlookups = 7\n"
                       "[read.more]\nstores = lmdb\nstrategies = uuidv7\n";
    if (load(m, text, 0, path, &err) != 0) fail_msg("%s", err.msg);
    assert_int_equal(m->n_read, 2);
    assert_string_equal(m->read[1].read_patterns, "recent:2, mixed:50:5");
    assert_string_equal(m->read[1].read_cache, "warm");
    mx_plan p;
    assert_int_equal(mx_plan_make(m, &p, &err), 0);
    assert_int_equal(p.n, 2 * 2 + 1);                /* once each, not 3 repeats */
    for (int i = 0; i < p.n; i++) {
        assert_int_equal(p.cells[i].kind, MX_READ);
        assert_non_null(p.cells[i].block);
        assert_int_equal(p.cells[i].block->lookups, 7);
    }
    assert_string_equal(p.cells[4].block->name, "read.more");
    mx_plan_free(&p);
    static const struct { const char *text, *msg; } bad[] = {
        { "[read]\npatterns = recent:0\n", ":2: 'recent:0' is not a read pattern (uniform, "
          "recent:H or mixed:P:H; H in (0, 100], P in [0, 100])" },
        { "[read]\npatterns = uniform, range:5m\n", ":2: 'range:5m' is not a read pattern "
          "(uniform, recent:H or mixed:P:H; H in (0, 100], P in [0, 100])" },
        { "[read]\ncache = hot\n", ":2: cache 'hot' is not cold or warm" },
        { "[read]\nlookups = 0\n", ":2: lookups = 0 is out of range 1..1073741824" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(load(m, bad[i].text, 0, path, &err), IDB_EINPUT);
        snprintf(want, sizeof want, "%s%s", path, bad[i].msg);
        assert_string_equal(err.msg, want);
    }
    free(m);
}

/* [faults.replicated] (issue 26): its defaults (off, the four runs), its keys read and a
 * cell per run whose server is installed (once, not per repeat, with the block's orders),
 * its runs under --quick from [quick], and every bad value refused as FILE:LINE. */
static void test_faults_replicated(void **state)
{
    (void)state;
    idb_matrix *m = malloc(sizeof *m);
    mx_defaults(m);
    assert_int_equal(m->repl_enabled, 0);
    assert_string_equal(m->repl_store, "sqlite");
    assert_string_equal(m->repl_runs, "postgres:async, postgres:sync, redis:nowait, redis:wait1");
    assert_int_equal(m->repl_orders, 4000);
    assert_int_equal(m->repl_lag_at, 1000);
    assert_int_equal(m->repl_lag_ms, 100);
    assert_int_equal(m->repl_timeout_ms, 300);
    const mx_repl_run *w = mx_repl_run_find("redis:wait1");
    assert_non_null(w);
    assert_string_equal(w->opts[0], "replicas=2");
    assert_string_equal(w->opts[1], "wait_replicas=1");
    assert_string_equal(mx_repl_run_find("postgres:sync")->opts[1], "replication=sync");
    assert_null(mx_repl_run_find("postgres"));
    idb_err err = { 0 };
    char path[PATH_LEN], want[512], version[128];
    const char *text = "[matrix]\nrepeat = 3\n[generation]\nenabled = 0\n[insert]\n"
                       "enabled = 0\n[curve]\nenabled = 0\n[openloop]\nenabled = 0\n"
                       "[simulate]\nenabled = 0\n[claims]\nenabled = 0\n"
                       "[faults.replicated]\nenabled = 1\nruns = postgres:sync, redis:wait1\n"
                       "orders = 300\nlag_at = 50\nlag_ms = 20\ntimeout_ms = 70\n"
                       "[quick]\nfaults.replicated.runs = postgres:async\n";
    if (load(m, text, 0, path, &err) != 0) fail_msg("%s", err.msg);
    assert_string_equal(m->repl_runs, "postgres:sync, redis:wait1");
    assert_int_equal(m->repl_orders, 300);
    assert_int_equal(m->repl_lag_at, 50);
    assert_int_equal(m->repl_lag_ms, 20);
    assert_int_equal(m->repl_timeout_ms, 70);
    static const char *const runs[] = { "postgres:sync", "redis:wait1" };
    mx_plan p;
    assert_int_equal(mx_plan_make(m, &p, &err), 0);
    int k = 0;
    for (size_t i = 0; i < 2; i++) {
        char kind[16];
        snprintf(kind, sizeof kind, "%.*s", (int)strcspn(runs[i], ":"), runs[i]);
        if (idb_server_installed(kind, version, sizeof version, &err) != 0) continue;
        assert_true(k < p.n);                        /* once each, not 3 repeats */
        assert_int_equal(p.cells[k].kind, MX_FAILOVER);
        assert_string_equal(p.cells[k].kill_run, runs[i]);
        assert_int_equal(p.cells[k].ids, 300);
        assert_string_equal(p.cells[k].store->name, "sqlite");
        k++;
    }
    assert_int_equal(p.n, k);
    mx_plan_free(&p);
    if (load(m, text, 1, path, &err) != 0) fail_msg("%s", err.msg);
    assert_string_equal(m->repl_runs, "postgres:async");
    static const struct { const char *text, *msg; } bad[] = {
        { "[faults.replicated]\nruns = postgres:async, redis:wait2\n", ":2: 'redis:wait2' is "
          "not a replicated counter run (postgres:async, postgres:sync, redis:nowait, "
          "redis:wait1)" },
        { "[faults.replicated]\nruns = postgres\n", ":2: 'postgres' is not a replicated "
          "counter run (postgres:async, postgres:sync, redis:nowait, redis:wait1)" },
        { "[faults.replicated]\nruns =\n", ":2: runs: expected at least one entry" },
        { "[faults.replicated]\nlag_ms = -1\n", ":2: lag_ms = -1 is out of range 0..3600000" },
        { "[faults.replicated]\norders = 1\n", ":2: orders = 1 is out of range 2..1000000000" },
        { "[faults.replicated]\nenabled = yes\n", ":2: enabled = 'yes': expected one of 0|1" },
        { "[faults.replicated]\nstore = nosuch\n", ":2: unknown store 'nosuch' (stores: " },
        { "[faults.replicated]\nkill_at = 5\n", ":2: unknown key 'kill_at' in "
          "[faults.replicated] (keys: enabled, store, orders, lag_at, lag_ms, timeout_ms, runs)" },
        { "[faults]\nenabled = 1\n", ":2: unknown section [faults] (sections: " },
        { "[quick]\nfaults.replicated.runs = redis:none\n", ":2: 'redis:none' is not a "
          "replicated counter run (postgres:async, postgres:sync, redis:nowait, redis:wait1)" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(load(m, bad[i].text, 0, path, &err), IDB_EINPUT);
        snprintf(want, sizeof want, "%s%s", path, bad[i].msg);
        if (strncmp(err.msg, want, strlen(want)) != 0)
            fail_msg("case %zu: got '%s', want '%s...'", i, err.msg, want);
    }
    free(m);
}

/* A block's store_set (issue 25): store options of its own runs only, after [store.NAME]'s,
 * not inherited; runs that differ only by it are runs of their own (a configuration each),
 * a run that it leaves as another block's is made once; refused before anything runs:
 * not STORE.KEY=VALUE, an unknown store or option, a value the store's table or check
 * refuses (at the store_set line), a store not in the block. */
static void test_store_set(void **state)
{
    (void)state;
    idb_matrix *m = malloc(sizeof *m);
    idb_err err = { 0 };
    char path[PATH_LEN], want[512];
    const char *text = "[matrix]\nrepeat = 1\n[generation]\nenabled = 0\n[curve]\n"
                       "enabled = 0\n[openloop]\n"
                       "enabled = 0\n[simulate]\nenabled = 0\n[claims]\nenabled = 0\n"
                       "[store.sqlite]\ncache_pages = 10\n"
                       "[insert]\nstrategies = counter\nstores = sqlite, null\nsizes = 100\n"
                       "store_set = sqlite.cache_pages=20\n"
                       "[insert.a]\nstores = sqlite, null\n"                 /* not inherited */
                       "[insert.b]\nstore_set = sqlite.cache_pages=40, sqlite.schema=blob\n";
    if (load(m, text, 0, path, &err) != 0) fail_msg("%s", err.msg);
    assert_string_equal(m->insert[0].store_set, "sqlite.cache_pages=20");
    assert_string_equal(m->insert[1].store_set, "");
    char set[MX_CELL_SET_MAX];
    const idb_store *sq = idb_store_find("sqlite"), *nul = idb_store_find("null");
    assert_int_equal(mx_block_set(&m->insert[2], sq, set, sizeof set), 2);
    assert_string_equal(set, "cache_pages=40 schema=blob");
    assert_int_equal(mx_block_set(&m->insert[2], nul, set, sizeof set), 0);
    assert_string_equal(set, "");
    mx_plan p;
    assert_int_equal(mx_plan_make(m, &p, &err), 0);
    static const char *const sqlite_sets[] = { "cache_pages=20", "", "cache_pages=40 schema=blob" };
    int n_sqlite = 0, n_null = 0, configs[3] = { -1, -1, -1 };
    for (int i = 0; i < p.n; i++) {
        const mx_cell *c = &p.cells[i];
        assert_int_equal(c->kind, MX_INSERT);
        if (c->store == nul) { n_null++; assert_string_equal(c->store_set, ""); continue; }
        assert_true(n_sqlite < 3);
        assert_string_equal(c->store_set, sqlite_sets[n_sqlite]);
        configs[n_sqlite++] = c->config;
    }
    assert_int_equal(n_sqlite, 3);                  /* a run per store_set, in block order */
    assert_int_equal(n_null, 1);                    /* [insert.a]'s null run is [insert]'s */
    assert_true(configs[0] != configs[1] && configs[1] != configs[2] && configs[0] != configs[2]);
    assert_non_null(strstr(p.cells[0].label, "cache_pages=20"));
    mx_plan_free(&p);
    static const struct { const char *text, *msg; } bad[] = {
        { "[insert]\nstores = sqlite\nstore_set = cache_pages=20\n", ":3: store_set: "
          "'cache_pages=20' is not STORE.KEY=VALUE (entries are separated by commas, with no "
          "blanks inside)" },
        { "[insert]\nstore_set = oracle.cache_pages=20\n", ":2: store_set: unknown store "
          "'oracle' in 'oracle.cache_pages=20' (stores: " },
        { "[insert]\nstore_set = sqlite.color=red\n", ":2: store sqlite: unknown option "
          "'color'" },
        { "[insert]\nstore_set = sqlite.cache_pages=lots\n", ":2: store sqlite: option "
          "cache_pages = 'lots': expected an integer" },
        { "[insert]\nstores = sqlite\nstrategies = counter\n\nstore_set = "
          "sqlite.page_size=1000\n", ":5: sqlite: page_size=1000 is not a power of two (a run "
          "of [insert] with strategy counter)" },
        { "[insert.x]\nstore_set = sqlite.cache_pages=20\nstores = null, lmdb\n",
          ":2: store_set of [insert.x] names store sqlite, which is not one of the block's "
          "stores" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(load(m, bad[i].text, 0, path, &err), IDB_EINPUT);
        snprintf(want, sizeof want, "%s%s", path, bad[i].msg);
        if (strncmp(err.msg, want, strlen(want))) fail_msg("got '%s', want '%s'", err.msg, want);
    }
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_series_block),
        cmocka_unit_test(test_read_block),
        cmocka_unit_test(test_blocks_and_quick),
        cmocka_unit_test(test_later_file_overrides),
        cmocka_unit_test(test_clients_block),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_runs_checked),
        cmocka_unit_test(test_shards_checked),
        cmocka_unit_test(test_store_set),
        cmocka_unit_test(test_faults_replicated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
