/* matrix_cells.c — the matrix as a list of cells, and running one cell isolated.
 *
 * Every cell runs in a child process, so a cell that fails, crashes or hangs loses only
 * itself: the parent keeps every result already measured, records the failure and goes
 * on. Insert and curve cells (open-loop ones too: insert cells with a rate) fork and call
 * the insert runner (insert.h) in the child,
 * which sends back its return code, error and result struct through a pipe. The other
 * cells (generation benchmarks, simulations, claims) exec this same program
 * (/proc/self/exe) with the command's own flags, stdout to a file, stderr kept to explain
 * a failure. A child that outlives [matrix] cell_timeout_s is killed.
 *
 * A cell's child leads a process group of its own (so a Ctrl-C on the terminal reaches only
 * the matrix, which decides) and dies with the matrix (PR_SET_PDEATHSIG): it is killed with
 * its whole group on a timeout, and when the matrix caught a signal (tmpdir.h, the flag
 * mode). Its TMPDIR is the matrix's scratch directory, so whatever temporary directories
 * the cell makes go when the matrix removes its own.
 */
#include "matrix.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "metrics.h"
#include "server.h"
#include "tmpdir.h"

#define PLAN_FIRST_CAP 64                        /* cells allocated at first; doubled */

/* The curve of one run holds at most IDB_CURVE_MAX points: a block's cache sizes fit. */
_Static_assert(MX_LIST_MAX <= IDB_CURVE_MAX, "a [curve] block lists more cache sizes than a "
                                             "run's curve holds");

/* Append a cell to p (growing it). Returns the new cell or NULL when out of memory. */
static mx_cell *add_cell(mx_plan *p, int *cap, enum mx_kind kind)
{
    if (p->n == *cap) {
        int ncap = *cap ? *cap * 2 : PLAN_FIRST_CAP;
        mx_cell *c = realloc(p->cells, (size_t)ncap * sizeof *c);
        if (!c) return NULL;
        p->cells = c;
        *cap = ncap;
    }
    mx_cell *c = &p->cells[p->n++];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->est_s = -1;
    return c;
}

/* The key width cell c's run stores: its block's key_bytes, or the strategy's own width
 * (a block's key_bytes equal to that width makes the same run as none). */
static int key_width(const mx_cell *c)
{
    return c->key_bytes ? (int)c->key_bytes : c->strategy->bits / CHAR_BIT;
}

/* The configuration of the last cell c if an earlier cell has the same one, else -1;
 * *dup = 1 when that earlier cell is also of the same repeat (the same run twice). */
static int same_config(const mx_plan *p, const mx_cell *c, int *dup)
{
    int cfg = -1;
    *dup = 0;
    for (int i = 0; i < p->n - 1; i++) {
        const mx_cell *o = &p->cells[i];
        if (o->kind == c->kind && o->strategy == c->strategy && o->store == c->store &&
            o->ids == c->ids && o->shards == c->shards && o->batch == c->batch &&
            o->shops == c->shops && o->cache_pages == c->cache_pages && o->block == c->block &&
            key_width(o) == key_width(c) && o->rate == c->rate &&
            o->commit_ms == c->commit_ms && o->clients == c->clients &&
            o->then_strategy == c->then_strategy && o->then_ids == c->then_ids &&
            !strcmp(o->store_set, c->store_set)) {
            cfg = o->config;
            if (o->rep == c->rep) *dup = 1;
        }
    }
    return cfg;
}

/* The label of an insert or curve cell. */
static void run_label(mx_cell *c)
{
    char cache[MX_LABEL_MAX] = "";
    long long ids = (long long)c->ids, shards = (long long)c->shards;
    if (c->cache_pages)
        snprintf(cache, sizeof cache, " cache_pages=%lld", (long long)c->cache_pages);
    if (c->key_bytes)
        snprintf(cache + strlen(cache), sizeof cache - strlen(cache), " key_bytes=%lld",
                 (long long)c->key_bytes);
    if (c->clients > 1)
        snprintf(cache + strlen(cache), sizeof cache - strlen(cache), " clients=%lld",
                 (long long)c->clients);
    if (c->store_set[0])                         /* its block's store_set */
        snprintf(cache + strlen(cache), sizeof cache - strlen(cache), " %.100s",
                 c->store_set);
    if (c->then_strategy)                        /* its block's then: the second phase */
        snprintf(cache + strlen(cache), sizeof cache - strlen(cache), " then=%s:%lld",
                 c->then_strategy->name, (long long)c->then_ids);
    if (c->kind == MX_CURVE)
        snprintf(c->label, sizeof c->label, "curve %s %s n=%lld shards=%lld%s", c->store->name,
                 c->strategy->name, ids, shards, cache);
    else if (c->kind == MX_READ)                 /* its patterns and cache: its block's */
        snprintf(c->label, sizeof c->label, "%s %s %s n=%lld lookups=%lld", c->block->name,
                 c->store->name, c->strategy->name, ids, (long long)c->block->lookups);
    else if (c->kind == MX_SERIES)
        snprintf(c->label, sizeof c->label, "%s %s %s n=%lld window=%lld%s", c->block->name,
                 c->store->name, c->strategy->name, ids, (long long)c->window, cache);
    else if (c->rate > 0)
        snprintf(c->label, sizeof c->label, "openloop %s %s n=%lld shards=%lld rate=%g #%d",
                 c->store->name, c->strategy->name, ids, shards, c->rate, c->rep + 1);
    else
        snprintf(c->label, sizeof c->label, "insert %s %s n=%lld shards=%lld%s #%d",
                 c->store->name, c->strategy->name, ids, shards, cache, c->rep + 1);
}

/* How a block's runs are made: its cell kind, and whether they are open-loop runs. */
typedef struct block_how {
    enum mx_kind kind;
    int open;                                    /* an [openloop] block: a run per rate */
} block_how;

/* Where a run stands in its block: strategy s, store st, size z, shards k, clients w, and
 * point q (an index into b's cache sizes, for curve cells on a store without a curve hook;
 * into b's rates for open-loop runs). */
typedef struct run_at {
    int s, st, z, k, w, q;
} run_at;

/* Add the run of block b at a, repeat rep, unless the same run is there already. Returns 0
 * or IDB_ENOMEM. */
static int add_run(mx_plan *p, int *cap, const mx_block *b, block_how how, run_at a, int rep)
{
    int s = a.s, st = a.st, z = a.z, k = a.k, q = a.q;
    enum mx_kind kind = how.kind;
    const idb_store *store = b->stores[st];
    mx_cell *c = add_cell(p, cap, kind);
    if (!c) return IDB_ENOMEM;
    c->strategy = b->strategies[s];
    c->store = store;
    c->ids = b->sizes[z];
    c->shards = b->shards[k];
    c->batch = b->batch;
    c->shops = b->shops;
    c->key_bytes = b->key_bytes;
    c->clients = b->n_clients > 0 ? b->clients[a.w] : 1;
    c->rep = rep;
    c->block = kind == MX_CURVE || kind == MX_SERIES || kind == MX_READ ? b : NULL;
    c->cache_pages = (kind == MX_CURVE && !store->curve) ||
                             (kind == MX_SERIES && b->n_series_cache > 0 &&
                              idb_opts_declared(store->options, "cache_pages"))
                         ? (kind == MX_SERIES ? b->series_cache[q] : b->cache_pages[q]) : 0;
    c->window = kind == MX_SERIES ? b->window : 0;
    c->rate = how.open ? b->rates[q] : 0;
    c->commit_ms = how.open ? b->commit_ms : 0;
    mx_block_set(b, store, c->store_set, sizeof c->store_set);
    if (kind == MX_INSERT && !how.open)          /* checked when the file was read */
        (void)mx_then_parse(b->then, &c->then_strategy, &c->then_ids, &(idb_err){ 0 });
    int dup, cfg = same_config(p, c, &dup);
    if (dup) {                                   /* two blocks name the same run */
        p->n--;
        return 0;
    }
    c->config = cfg >= 0 ? cfg : p->n_configs++;
    run_label(c);
    return 0;
}

/* 0 when store s cannot run here (its `available` hook says why, once per plan, with the
 * matrix's [store.NAME] options): its runs are skipped. */
static int store_ok(const idb_matrix *m, mx_plan *p, const idb_store *s)
{
    if (!s->available) return 1;
    for (int i = 0; i < p->n_checks; i++)
        if (p->checks[i].store == s) return p->checks[i].ok;
    if (p->n_checks == MX_STORES_MAX) return 1;
    mx_store_check *c = &p->checks[p->n_checks++];
    const mx_store_opts *so = mx_store_options(m, s);
    const char *kv[MX_KV_MAX];
    for (int i = 0; so && i < so->n; i++) kv[i] = so->kv[i];
    idb_err why = { 0 };
    c->store = s;
    c->ok = s->available(kv, so ? so->n : 0, c->version, sizeof c->version, &why) == 0;
    snprintf(c->why, sizeof c->why, "%s", c->ok ? "" : why.msg);
    return c->ok;
}

/* How many cache sizes a block's runs on its store st take: a curve block's on a store
 * without a curve hook, a series block's on a store that declares cache_pages; else 1. */
static int cache_points(const mx_block *b, block_how how, int st)
{
    const idb_store *s = b->stores[st];
    int n = how.kind == MX_CURVE && !s->curve ? b->n_cache_pages
            : how.kind == MX_SERIES && idb_opts_declared(s->options, "cache_pages")
                ? b->n_series_cache : 1;
    return n > 0 ? n : 1;
}

/* Add the cells of one block (every size x shards x store x strategy x clients) for
 * repeat rep, but none of a store that cannot run here (store_ok), and none when the
 * block's own repeat is below rep + 1. Returns 0 or IDB_ENOMEM. */
static int add_block(const idb_matrix *m, mx_plan *p, int *cap, const mx_block *b,
                     block_how how, int rep)
{
    if (b->repeat > 0 && rep >= b->repeat) return 0;
    int nw = b->n_clients > 0 ? b->n_clients : 1;
    run_at a;
    for (a.z = 0; a.z < b->n_sizes; a.z++)
        for (a.k = 0; a.k < b->n_shards; a.k++)
            for (a.st = 0; a.st < b->n_stores; a.st++)
                for (a.s = 0; a.s < b->n_strategies && store_ok(m, p, b->stores[a.st]); a.s++) {
                    if (b->key_bytes && b->strategies[a.s]->bits / 8 > b->key_bytes)
                        continue;                /* wider than the block's key_bytes */
                    if (b->strategies[a.s]->store_assigned &&
                        (!idb_store_assigns_keys(b->stores[a.st]) ||
                         (b->key_bytes && b->key_bytes != 8)))
                        continue;                /* autoinc: where the store assigns keys */
                    int points = how.open ? b->n_rates : cache_points(b, how, a.st);
                    for (a.w = 0; a.w < nw; a.w++)
                        for (a.q = 0; a.q < points; a.q++)
                            if (add_run(p, cap, b, how, a, rep)) return IDB_ENOMEM;
                }
    return 0;
}

/* Add the simulation cells: each workload, the timeline, the skew sweep. Returns 0 or
 * IDB_ENOMEM. */
static int add_sims(const idb_matrix *m, mx_plan *p, int *cap)
{
    mx_cell *c;
    int have_timeline = 0;
    for (int i = 0; i < m->n_workloads; i++) {
        if (!(c = add_cell(p, cap, MX_SIM))) return IDB_ENOMEM;
        c->workload = m->workloads[i];
        c->timeline = m->timeline_workload[0] && !have_timeline &&
                      strcmp(m->workloads[i], m->timeline_workload) == 0;
        have_timeline |= c->timeline;
        const char *slash = strrchr(c->workload, '/');
        snprintf(c->label, sizeof c->label, "simulate %.100s", slash ? slash + 1 : c->workload);
    }
    if (m->timeline_workload[0] && !have_timeline) {
        if (!(c = add_cell(p, cap, MX_SIM))) return IDB_ENOMEM;
        c->workload = m->timeline_workload;
        c->timeline = 1;
        snprintf(c->label, sizeof c->label, "simulate %.100s (timeline)", c->workload);
    }
    for (int i = 0; m->range_enabled && i < m->n_range_workloads; i++) {
        if (!(c = add_cell(p, cap, MX_SIM))) return IDB_ENOMEM;
        c->workload = m->range_workloads[i];
        c->range = 1;
        const char *slash = strrchr(c->workload, '/');
        snprintf(c->label, sizeof c->label, "simulate.range %.100s",
                 slash ? slash + 1 : c->workload);
    }
    for (int i = 0; m->skew_workload[0] && i < m->n_skew; i++) {
        if (!(c = add_cell(p, cap, MX_SKEW))) return IDB_ENOMEM;
        c->workload = m->skew_workload;
        c->skew_ms = m->skew_ms[i];
        snprintf(c->label, sizeof c->label, "simulate skew_ms=%g", c->skew_ms);
    }
    return 0;
}

/* 1 when the counter server of run ("postgres", "redis:none") is installed here; else a
 * note says why its cell (of block) is skipped. */
static int kill_backend_ok(const char *block, const char *run)
{
    char kind[sizeof ((mx_cell *)0)->kill_run], version[128];
    snprintf(kind, sizeof kind, "%.*s", (int)strcspn(run, ":"), run);
    idb_err why = { 0 };
    if (idb_server_installed(kind, version, sizeof version, &why) == 0) return 1;
    mx_progress_note(NULL, "%s %s skipped: %s", block, run, why.msg);
    return 0;
}

/* Add a cell per run of [counterkill] whose server and store are here (run once, not per
 * repeat: each is one kill). Returns 0 or IDB_ENOMEM. */
static int add_kills(const idb_matrix *m, mx_plan *p, int *cap)
{
    char runs[sizeof m->kill_runs];
    const idb_store *store = idb_store_find(m->kill_store);
    if (!store || !store_ok(m, p, store)) return 0;
    snprintf(runs, sizeof runs, "%s", m->kill_runs);
    for (char *save = NULL, *t = strtok_r(runs, ", \t", &save); t;
         t = strtok_r(NULL, ", \t", &save)) {
        if (!kill_backend_ok("counterkill", t)) continue;
        mx_cell *c = add_cell(p, cap, MX_KILL);
        if (!c) return IDB_ENOMEM;
        c->store = store;
        c->ids = m->kill_orders;
        snprintf(c->kill_run, sizeof c->kill_run, "%s", t);
        snprintf(c->label, sizeof c->label, "counterkill %s %s n=%lld kill-counter@%lld:%lld",
                 store->name, t, (long long)m->kill_orders, (long long)m->kill_at,
                 (long long)m->kill_restart_ms);
    }
    return 0;
}

/* Add a cell per run of [faults.replicated] whose server and store are here (once, not per
 * repeat: each is one failover). Returns 0 or IDB_ENOMEM. */
static int add_failovers(const idb_matrix *m, mx_plan *p, int *cap)
{
    char runs[sizeof m->repl_runs];
    const idb_store *store = idb_store_find(m->repl_store);
    if (!store || !store_ok(m, p, store)) return 0;
    snprintf(runs, sizeof runs, "%s", m->repl_runs);
    for (char *save = NULL, *t = strtok_r(runs, ", \t", &save); t;
         t = strtok_r(NULL, ", \t", &save)) {
        if (!kill_backend_ok("faults.replicated", t)) continue;
        mx_cell *c = add_cell(p, cap, MX_FAILOVER);
        if (!c) return IDB_ENOMEM;
        c->store = store;
        c->ids = m->repl_orders;
        snprintf(c->kill_run, sizeof c->kill_run, "%s", t);
        snprintf(c->label, sizeof c->label, "faults.replicated %s %s n=%lld "
                 "failover-lagged@%lld:%lld", store->name, t, (long long)m->repl_orders,
                 (long long)m->repl_lag_at, (long long)m->repl_lag_ms);
    }
    return 0;
}

/* Every cell of m in run order, pending, with no estimate yet (see matrix.h). */
int mx_plan_make(const idb_matrix *m, mx_plan *p, idb_err *err)
{
    int cap = 0, rc = 0;
    mx_cell *c;
    memset(p, 0, sizeof *p);
    if (m->gen_enabled) {
        if (!(c = add_cell(p, &cap, MX_GEN))) rc = IDB_ENOMEM;
        else snprintf(c->label, sizeof c->label, "generation benchmarks");
    }
    const block_how closed = { MX_INSERT, 0 }, open = { MX_INSERT, 1 }, curve = { MX_CURVE, 0 };
    for (int rep = 0; !rc && rep < m->repeat; rep++)
        for (int b = 0; !rc && b < m->n_insert; b++)
            if (m->insert[b].enabled) rc = add_block(m, p, &cap, &m->insert[b], closed, rep);
    for (int b = 0; !rc && b < m->n_curve; b++)
        if (m->curve[b].enabled) rc = add_block(m, p, &cap, &m->curve[b], curve, 0);
    const block_how series = { MX_SERIES, 0 };          /* once: a run is its own series */
    for (int b = 0; !rc && b < m->n_series; b++)
        if (m->series[b].enabled) rc = add_block(m, p, &cap, &m->series[b], series, 0);
    const block_how read = { MX_READ, 0 };              /* once: reads measure pages */
    for (int b = 0; !rc && b < m->n_read; b++)
        if (m->read[b].enabled) rc = add_block(m, p, &cap, &m->read[b], read, 0);
    for (int rep = 0; !rc && rep < m->repeat; rep++)      /* after the closed loop's cells */
        for (int b = 0; !rc && b < m->n_openloop; b++)
            if (m->openloop[b].enabled) rc = add_block(m, p, &cap, &m->openloop[b], open, rep);
    if (!rc && m->kill_enabled) rc = add_kills(m, p, &cap);
    if (!rc && m->repl_enabled) rc = add_failovers(m, p, &cap);
    if (!rc && m->sim_enabled) rc = add_sims(m, p, &cap);
    if (!rc && m->claims_enabled) {
        if (!(c = add_cell(p, &cap, MX_CLAIMS))) rc = IDB_ENOMEM;
        else snprintf(c->label, sizeof c->label, "claims%s", m->claims_quick ? " --quick" : "");
    }
    if (!rc) return 0;
    mx_plan_free(p);
    return idb_fail(err, IDB_ENOMEM, "out of memory for the matrix cells");
}

/* Free the cells and their results (see matrix.h). */
void mx_plan_free(mx_plan *p)
{
    for (int i = 0; p->cells && i < p->n; i++) free(p->cells[i].res);
    free(p->cells);
    memset(p, 0, sizeof *p);
}

/* Exit statuses of a cell's child when it cannot do its job (as a shell's 126 and 127). */
enum {
    EXIT_CHILD_NOMEM = 3,                        /* no memory for the message */
    EXIT_CHILD_PIPE = 4,                         /* the pipe to the parent failed */
    EXIT_CHILD_ORPHAN = 5,                       /* the parent died before it started */
    EXIT_CHILD_CANNOT_EXEC = 126,                /* cannot open its stdout or stderr */
    EXIT_CHILD_NOT_FOUND = 127,                  /* cannot exec this program */
};

#define TICK_NS 200000000LL                      /* the tick callback's period */
#define POLL_MS 20                               /* how often the parent looks at the child */
#define EXIT_POLL_US 500                         /* ... once its pipe has ended, */
#define EXIT_POLLS 200                           /* ... for up to 100 ms */

/* What an insert child sends back. */
typedef struct child_msg {
    int rc;
    idb_err err;
    idb_insert_result res;
} child_msg;

/* In the child, first: a process group of its own, death with the parent (whose pid is
 * parent), the default signal actions, TMPDIR the scratch directory. */
static void child_setup(const mx_ctx *x, pid_t parent)
{
    setpgid(0, 0);
    idb_signals_default();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(EXIT_CHILD_ORPHAN);
    mx_owner_forget();
    setenv("TMPDIR", x->scratch, 1);
}

/* Where a series cell's rows go before cmd_matrix.c collects them (see matrix.h). */
void mx_series_path(const mx_ctx *x, char *buf, size_t len)
{
    snprintf(buf, len, "%s/series.csv", x->scratch);
}

/* In the child: run the insert cell c in dir and write the outcome to fd. Never returns. */
static void insert_child(const mx_ctx *x, const mx_cell *c, const char *dir, int fd)
{
    idb_insert_config cfg = {
        .strategy = c->strategy, .store = c->store, .ids = c->ids, .batch = (int)c->batch,
        .shards = (int)c->shards, .shops = (int)c->shops, .shop_skew = 1.0, .dir = dir,
        .seed = (uint64_t)x->m->seed, .rate = c->rate, .commit_ms = c->commit_ms,
        .clients = (int)c->clients, .then_strategy = c->then_strategy,
        .then_ids = c->then_ids,
    };
    char cache_kv[64], width_kv[64], set[MX_CELL_SET_MAX];
    const mx_store_opts *so = mx_store_options(x->m, c->store);
    for (int i = 0; so && i < so->n && cfg.n_store_kv < IDB_INSERT_MAX_KV - 2; i++)
        cfg.store_kv[cfg.n_store_kv++] = so->kv[i];
    snprintf(set, sizeof set, "%s", c->store_set);     /* its block's own, after those */
    for (char *save = NULL, *t = strtok_r(set, " ", &save);
         t && cfg.n_store_kv < IDB_INSERT_MAX_KV - 2; t = strtok_r(NULL, " ", &save))
        cfg.store_kv[cfg.n_store_kv++] = t;
    if (c->cache_pages) {                              /* later options override earlier */
        snprintf(cache_kv, sizeof cache_kv, "cache_pages=%lld", (long long)c->cache_pages);
        cfg.store_kv[cfg.n_store_kv++] = cache_kv;
    }
    if (c->key_bytes) {                                /* the block's width, last */
        snprintf(width_kv, sizeof width_kv, "key_bytes=%lld", (long long)c->key_bytes);
        cfg.store_kv[cfg.n_store_kv++] = width_kv;
    }
    if (c->kind == MX_CURVE && c->store->curve) {
        cfg.curve_cache_pages = c->block->cache_pages;
        cfg.n_curve = c->block->n_cache_pages;
    }
    char series[MX_FILE_MAX];
    if (c->kind == MX_SERIES) {                        /* cmd_matrix.c collects the file */
        mx_series_path(x, series, sizeof series);
        cfg.window = c->window;
        cfg.series = series;
    }
    child_msg *msg = calloc(1, sizeof *msg);
    idb_insert_result *then = calloc(1, sizeof *then);
    if (!msg || !then) _exit(EXIT_CHILD_NOMEM);
    cfg.record = c->kind == MX_READ;                   /* the record the reads need */
    msg->rc = idb_insert_run_then(&cfg, &msg->res, then, &msg->err);
    if (!msg->rc && c->kind == MX_READ) msg->rc = mx_read_cell(x, c, dir, &msg->err);
    if (!msg->rc && cfg.then_strategy) msg->res = *then;   /* the cell is the second phase */
    const char *p = (const char *)msg;
    size_t left = sizeof *msg;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) _exit(EXIT_CHILD_PIPE);
        p += w;
        left -= (size_t)w;
    }
    _exit(0);
}

/* In the child: exec this program with argv, stdout to out_path, stderr to err_path. */
static void exec_child(char *const *argv, const char *out_path, const char *err_path)
{
    int out = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int errfd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || errfd < 0) _exit(EXIT_CHILD_CANNOT_EXEC);
    dup2(out, 1);
    dup2(errfd, 2);
    close(out);
    close(errfd);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) { dup2(devnull, 0); close(devnull); }
    execv("/proc/self/exe", argv);
    dprintf(2, "idbench: cannot run /proc/self/exe: %s\n", strerror(errno));
    _exit(EXIT_CHILD_NOT_FOUND);
}

/* The last non-empty line of the file at path (without "idbench: ") into buf. */
static void last_line(const char *path, char *buf, size_t len)
{
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        size_t pl = strlen("idbench: ");
        if (line[0])
            snprintf(buf, len, "%.250s", strncmp(line, "idbench: ", pl) == 0 ? line + pl : line);
    }
    fclose(f);
}

/* Describe a child's wait status into buf. */
static void describe_status(int status, char *buf, size_t len)
{
    if (WIFSIGNALED(status))
        snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
}

/* A running cell, as the parent sees it. */
typedef struct child {
    pid_t pid;
    int fd;                                      /* the insert child's pipe, or -1 */
    child_msg *msg;                              /* what it sent (insert cells) */
    size_t got;
    int status, timed_out;
    int interrupted;                             /* the signal the matrix caught, or 0 */
} child;

/* Read what the insert child sends (beyond its message: discarded); 0 at its end. */
static int child_read(child *ch, int timeout_ms)
{
    struct pollfd pf = { .fd = ch->fd, .events = POLLIN };
    if (poll(&pf, 1, timeout_ms) <= 0) return 1;
    char sink[4096];
    int into_msg = ch->msg && ch->got < sizeof *ch->msg;
    char *dst = into_msg ? (char *)ch->msg + ch->got : sink;
    size_t room = into_msg ? sizeof *ch->msg - ch->got : sizeof sink;
    ssize_t r = read(ch->fd, dst, room);
    if (r > 0 && into_msg) ch->got += (size_t)r;
    return !(r == 0 || (r < 0 && errno != EINTR));
}

/* Wait for the child to exit (and its pipe to end), ticking, killing its process group
 * after the matrix's time limit or when the matrix caught a signal. */
static void child_wait(const mx_ctx *x, child *ch, int64_t t0, void (*tick)(void *ctx),
                       void *tick_ctx)
{
    int reading = ch->fd >= 0, exited = 0;
    int fast_polls = EXIT_POLLS;                 /* its pipe ended: it is exiting */
    int64_t next_tick = idb_mono_ns() + TICK_NS;
    for (;;) {
        if (!exited && waitpid(ch->pid, &ch->status, WNOHANG) == ch->pid) exited = 1;
        if (reading) reading = child_read(ch, exited ? -1 : POLL_MS);  /* once exited: to EOF */
        else if (!exited && ch->fd >= 0 && fast_polls-- > 0) usleep(EXIT_POLL_US);
        else if (!exited) usleep(POLL_MS * 1000);
        if (exited) {
            if (!reading) return;
            continue;
        }
        if (tick && idb_mono_ns() >= next_tick) {
            tick(tick_ctx);
            next_tick += TICK_NS;
        }
        if (!ch->interrupted && idb_signal_caught()) {
            ch->interrupted = idb_signal_caught();
            kill(-ch->pid, SIGKILL);
        }
        if (!ch->timed_out && idb_mono_ns() - t0 > x->m->cell_timeout_s * 1000000000LL) {
            kill(-ch->pid, SIGKILL);
            ch->timed_out = 1;
        }
    }
}

/* Judge how the child ended into c->status and c->err (err_path: the exec'd child's
 * stderr). */
static void child_judge(const mx_ctx *x, mx_cell *c, const child *ch, const char *err_path)
{
    char why[200];
    int clean = WIFEXITED(ch->status) && WEXITSTATUS(ch->status) == 0;
    describe_status(ch->status, why, sizeof why);
    c->status = MX_FAILED;
    if (ch->interrupted) {
        idb_fail(&c->err, IDB_EIO, "interrupted (%s)", strsignal(ch->interrupted));
    } else if (ch->timed_out) {
        idb_fail(&c->err, IDB_EIO, "timed out after %llds ([matrix] cell_timeout_s)",
                 (long long)x->m->cell_timeout_s);
    } else if (ch->fd < 0) {                     /* an exec'd cell */
        char line[256];
        if (clean) { c->status = MX_DONE; return; }
        last_line(err_path, line, sizeof line);
        idb_fail(&c->err, IDB_EIO, "%.180s%s%s", line, line[0] ? " — " : "", why);
    } else if (ch->got != sizeof *ch->msg || !clean) {
        idb_fail(&c->err, IDB_EIO, "the run %s", why);
    } else if (ch->msg->rc != 0) {
        idb_fail(&c->err, ch->msg->rc, "%s", ch->msg->err.msg[0] ? ch->msg->err.msg : "failed");
    } else if (!(c->res = malloc(sizeof *c->res))) {
        idb_fail(&c->err, IDB_ENOMEM, "out of memory");
    } else {
        *c->res = ch->msg->res;
        c->status = MX_DONE;
    }
}

/* Fork, run or exec the cell, wait with a time limit, and judge the outcome (see matrix.h). */
void mx_cell_run(const mx_ctx *x, mx_cell *c, char *const *argv, const char *out_path,
                 void (*tick)(void *ctx), void *tick_ctx)
{
    static int serial;
    char dir[MX_FILE_MAX], err_path[MX_FILE_MAX];
    snprintf(dir, sizeof dir, "%s/cell-%d", x->scratch, ++serial);
    snprintf(err_path, sizeof err_path, "%s/cell-%d.stderr", x->scratch, serial);
    int64_t t0 = idb_mono_ns();
    c->status = MX_FAILED;
    c->err = (idb_err){ 0 };
    int isinsert = c->kind == MX_INSERT || c->kind == MX_CURVE || c->kind == MX_SERIES ||
                   c->kind == MX_READ;
    int fds[2] = { -1, -1 };
    if (mkdir(dir, idb_private_dir_mode()) != 0 || (isinsert && pipe(fds) != 0)) {
        idb_fail(&c->err, IDB_EIO, "cannot prepare the cell: %s", strerror(errno));
        return;
    }
    fflush(NULL);
    pid_t parent = getpid();
    child ch = { .pid = fork(), .fd = fds[0] };
    if (ch.pid < 0) {
        idb_fail(&c->err, IDB_EIO, "cannot fork: %s", strerror(errno));
        if (isinsert) { close(fds[0]); close(fds[1]); }
        idb_tmpdir_remove(dir);
        return;
    }
    if (ch.pid == 0) {
        child_setup(x, parent);
        if (isinsert) { close(fds[0]); insert_child(x, c, dir, fds[1]); }
        exec_child(argv, out_path, err_path);
    }
    setpgid(ch.pid, ch.pid);                     /* as the child does: whoever is first */
    if (isinsert) {
        close(fds[1]);
        ch.msg = calloc(1, sizeof *ch.msg);
    }
    child_wait(x, &ch, t0, tick, tick_ctx);
    if (isinsert) close(fds[0]);
    c->took_s = (double)(idb_mono_ns() - t0) / 1e9;
    child_judge(x, c, &ch, err_path);
    free(ch.msg);
    unlink(err_path);
    idb_tmpdir_remove(dir);
}
