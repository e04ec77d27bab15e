/* matrix_cells.c — the matrix as a list of cells, and running one cell isolated.
 *
 * Every cell runs in a child process, so a cell that fails, crashes or hangs loses only
 * itself: the parent keeps every result already measured, records the failure and goes
 * on. Insert and curve cells fork and call the insert runner (insert.h) in the child,
 * which sends back its return code, error and result struct through a pipe. The other
 * cells (generation benchmarks, simulations, claims) exec this same program
 * (/proc/self/exe) with the command's own flags, stdout to a file, stderr kept to explain
 * a failure. A child that outlives [matrix] cell_timeout_s is killed.
 */
#include "matrix.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "metrics.h"
#include "tmpdir.h"

/* Append a cell to p (growing it). Returns the new cell or NULL when out of memory. */
static mx_cell *add_cell(mx_plan *p, int *cap, enum mx_kind kind)
{
    if (p->n == *cap) {
        int ncap = *cap ? *cap * 2 : 64;
        mx_cell *c = realloc(p->cells, (size_t)ncap * sizeof *c);
        if (!c) return NULL;
        p->cells = c;
        *cap = ncap;
    }
    mx_cell *c = &p->cells[p->n++];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    return c;
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
            o->shops == c->shops && o->cache_pages == c->cache_pages && o->block == c->block) {
            cfg = o->config;
            if (o->rep == c->rep) *dup = 1;
        }
    }
    return cfg;
}

/* Add the cells of one block (every size x shards x store x strategy) for repeat rep. */
static int add_block(mx_plan *p, int *cap, const mx_block *b, enum mx_kind kind, int rep)
{
    for (int z = 0; z < b->n_sizes; z++)
        for (int k = 0; k < b->n_shards; k++)
            for (int st = 0; st < b->n_stores; st++)
                for (int s = 0; s < b->n_strategies; s++) {
                    const idb_store *store = b->stores[st];
                    int points = kind == MX_CURVE && !store->curve ? b->n_cache_pages : 1;
                    for (int q = 0; q < points; q++) {
                        mx_cell *c = add_cell(p, cap, kind);
                        if (!c) return -1;
                        c->strategy = b->strategies[s];
                        c->store = store;
                        c->ids = b->sizes[z];
                        c->shards = b->shards[k];
                        c->batch = b->batch;
                        c->shops = b->shops;
                        c->rep = rep;
                        c->block = kind == MX_CURVE ? b : NULL;
                        c->cache_pages = kind == MX_CURVE && !store->curve ? b->cache_pages[q] : 0;
                        int dup, cfg = same_config(p, c, &dup);
                        if (dup) { p->n--; continue; }   /* two blocks name the same run */
                        c->config = cfg >= 0 ? cfg : p->n_configs++;
                        char cache[40] = "";
                        if (c->cache_pages) snprintf(cache, sizeof cache, " cache_pages=%lld", (long long)c->cache_pages);
                        if (kind == MX_CURVE)
                            snprintf(c->label, sizeof c->label, "curve %s %s n=%lld shards=%lld%s",
                                     store->name, c->strategy->name, (long long)c->ids, (long long)c->shards, cache);
                        else
                            snprintf(c->label, sizeof c->label, "insert %s %s n=%lld shards=%lld #%d",
                                     store->name, c->strategy->name, (long long)c->ids, (long long)c->shards, rep + 1);
                    }
                }
    return 0;
}

/* A first guess of a cell's seconds, before anything of its kind has run: per ID by
 * store, random keys cost far more on SQLite (a page write per insert). The progress
 * estimate replaces it with measured times as cells finish (matrix_progress.c). */
static double first_guess(const idb_matrix *m, const mx_cell *c)
{
    double per_id;
    switch (c->kind) {
    case MX_GEN: {
        int n = 0;
        for (const idb_strategy *const *s = idb_strategies; *s; s++) n++;
        return (double)m->repeat * (2 * n + 3) * m->gen_min_time * 1.6 + 1;
    }
    case MX_INSERT: case MX_CURVE:
        if (!strcmp(c->store->name, "sqlite")) per_id = c->strategy->time_ordered ? 4e-6 : 80e-6;
        else if (!strcmp(c->store->name, "lmdb")) per_id = 7e-6;
        else if (!strcmp(c->store->name, "pagesim")) per_id = c->kind == MX_CURVE ? 5e-6 : 2e-6;
        else per_id = 1e-6;
        return 0.05 + per_id * (double)c->ids;
    case MX_SIM: return 5;
    case MX_SKEW: return 3;
    case MX_CLAIMS: return m->claims_quick ? 10 : 60;
    default: return 1;
    }
}

/* Every cell of m in run order, each with its first guess of time (see matrix.h). */
int mx_plan_make(const idb_matrix *m, mx_plan *p, idb_err *err)
{
    int cap = 0;
    memset(p, 0, sizeof *p);
    mx_cell *c;
#define ADD(kind) do { if (!(c = add_cell(p, &cap, kind))) goto oom; } while (0)
    if (m->gen_enabled) { ADD(MX_GEN); snprintf(c->label, sizeof c->label, "generation benchmarks"); }
    for (int rep = 0; rep < m->repeat; rep++)
        for (int b = 0; b < m->n_insert; b++)
            if (m->insert[b].enabled && add_block(p, &cap, &m->insert[b], MX_INSERT, rep)) goto oom;
    for (int b = 0; b < m->n_curve; b++)
        if (m->curve[b].enabled && add_block(p, &cap, &m->curve[b], MX_CURVE, 0)) goto oom;
    if (m->sim_enabled) {
        int have_timeline = 0;
        for (int i = 0; i < m->n_workloads; i++) {
            ADD(MX_SIM);
            c->workload = m->workloads[i];
            c->timeline = m->timeline_workload[0] && strcmp(m->workloads[i], m->timeline_workload) == 0 && !have_timeline;
            have_timeline |= c->timeline;
            const char *base = strrchr(c->workload, '/') ? strrchr(c->workload, '/') + 1 : c->workload;
            snprintf(c->label, sizeof c->label, "simulate %.100s", base);
        }
        if (m->timeline_workload[0] && !have_timeline) {
            ADD(MX_SIM);
            c->workload = m->timeline_workload;
            c->timeline = 1;
            snprintf(c->label, sizeof c->label, "simulate %.100s (timeline)", c->workload);
        }
        for (int i = 0; m->skew_workload[0] && i < m->n_skew; i++) {
            ADD(MX_SKEW);
            c->workload = m->skew_workload;
            c->skew_ms = m->skew_ms[i];
            snprintf(c->label, sizeof c->label, "simulate skew_ms=%g", c->skew_ms);
        }
    }
    if (m->claims_enabled) { ADD(MX_CLAIMS); snprintf(c->label, sizeof c->label, "claims%s", m->claims_quick ? " --quick" : ""); }
#undef ADD
    for (int i = 0; i < p->n; i++) p->cells[i].est0_s = p->cells[i].est_s = first_guess(m, &p->cells[i]);
    return 0;
oom:
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

/* What an insert child sends back. */
typedef struct child_msg {
    int rc;
    idb_err err;
    idb_insert_result res;
} child_msg;

/* In the child: run the insert cell c in dir and write the outcome to fd. Never returns. */
static void insert_child(const mx_ctx *x, const mx_cell *c, const char *dir, int fd)
{
    idb_insert_config cfg = {
        .strategy = c->strategy, .store = c->store, .ids = c->ids, .batch = (int)c->batch,
        .shards = (int)c->shards, .shops = (int)c->shops, .shop_skew = 1.0, .dir = dir,
        .seed = (uint64_t)x->m->seed,
    };
    char cache_kv[64];
    const mx_store_opts *so = mx_store_options(x->m, c->store);
    for (int i = 0; so && i < so->n && cfg.n_store_kv < IDB_INSERT_MAX_KV - 1; i++)
        cfg.store_kv[cfg.n_store_kv++] = so->kv[i];
    if (c->cache_pages) {                              /* later options override earlier */
        snprintf(cache_kv, sizeof cache_kv, "cache_pages=%lld", (long long)c->cache_pages);
        cfg.store_kv[cfg.n_store_kv++] = cache_kv;
    }
    if (c->kind == MX_CURVE && c->store->curve) {
        cfg.curve_cache_pages = c->block->cache_pages;
        cfg.n_curve = c->block->n_cache_pages;
    }
    child_msg *msg = calloc(1, sizeof *msg);
    if (!msg) _exit(3);
    msg->rc = idb_insert_run(&cfg, &msg->res, &msg->err);
    const char *p = (const char *)msg;
    size_t left = sizeof *msg;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) _exit(4);
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
    if (out < 0 || errfd < 0) _exit(126);
    dup2(out, 1);
    dup2(errfd, 2);
    close(out);
    close(errfd);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) { dup2(devnull, 0); close(devnull); }
    execv("/proc/self/exe", argv);
    dprintf(2, "idbench: cannot run /proc/self/exe: %s\n", strerror(errno));
    _exit(127);
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
        if (line[0]) snprintf(buf, len, "%.250s", strncmp(line, "idbench: ", 9) == 0 ? line + 9 : line);
    }
    fclose(f);
}

/* Describe a child's wait status into buf. */
static void describe_status(int status, char *buf, size_t len)
{
    if (WIFSIGNALED(status)) snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
}

/* Fork, run or exec the cell, wait with a time limit, and judge the outcome (see matrix.h). */
void mx_cell_run(const mx_ctx *x, mx_cell *c, char *const *argv, const char *out_path,
                 void (*tick)(void *ctx), void *tick_ctx)
{
    static int serial;
    char dir[600], err_path[600];
    snprintf(dir, sizeof dir, "%s/cell-%d", x->scratch, ++serial);
    snprintf(err_path, sizeof err_path, "%s/cell-%d.stderr", x->scratch, serial);
    int64_t t0 = idb_mono_ns();
    c->status = -1;
    c->error[0] = 0;
    int isinsert = c->kind == MX_INSERT || c->kind == MX_CURVE;
    int fds[2] = { -1, -1 };
    if (mkdir(dir, 0700) != 0 || (isinsert && pipe(fds) != 0)) {
        snprintf(c->error, sizeof c->error, "cannot prepare the cell: %s", strerror(errno));
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(c->error, sizeof c->error, "cannot fork: %s", strerror(errno));
        if (isinsert) { close(fds[0]); close(fds[1]); }
        idb_tmpdir_remove(dir);
        return;
    }
    if (pid == 0) {
        if (isinsert) { close(fds[0]); insert_child(x, c, dir, fds[1]); }
        exec_child(argv, out_path, err_path);
    }
    child_msg *msg = isinsert ? calloc(1, sizeof *msg) : NULL;
    size_t got = 0;
    if (isinsert) close(fds[1]);
    int status = 0, timed_out = 0, reading = isinsert, exited = 0;
    int64_t next_tick = idb_mono_ns() + 200000000;
    for (;;) {
        if (!exited && waitpid(pid, &status, WNOHANG) == pid) exited = 1;
        if (reading) {                                 /* once exited: drain to EOF */
            struct pollfd pf = { .fd = fds[0], .events = POLLIN };
            if (poll(&pf, 1, exited ? -1 : 20) > 0) {
                char sink[4096];
                char *dst = msg && got < sizeof *msg ? (char *)msg + got : sink;
                size_t room = msg && got < sizeof *msg ? sizeof *msg - got : sizeof sink;
                ssize_t r = read(fds[0], dst, room);
                if (r > 0 && dst != sink) got += (size_t)r;
                if (r == 0 || (r < 0 && errno != EINTR)) reading = 0;
            }
        } else if (!exited) {
            usleep(20000);
        }
        if (exited) {
            if (!reading) break;
            continue;
        }
        if (tick && idb_mono_ns() >= next_tick) { tick(tick_ctx); next_tick += 200000000; }
        if (!timed_out && idb_mono_ns() - t0 > x->m->cell_timeout_s * 1000000000LL) {
            kill(pid, SIGKILL);
            timed_out = 1;
        }
    }
    if (isinsert) close(fds[0]);
    c->took_s = (double)(idb_mono_ns() - t0) / 1e9;
    char why[200];
    describe_status(status, why, sizeof why);
    if (timed_out) {
        snprintf(c->error, sizeof c->error, "timed out after %llds ([matrix] cell_timeout_s)", (long long)x->m->cell_timeout_s);
    } else if (isinsert) {
        if (got == sizeof *msg && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            if (msg->rc == 0) {
                c->status = 1;
                c->res = malloc(sizeof *c->res);
                if (c->res) *c->res = msg->res;
                else { c->status = -1; snprintf(c->error, sizeof c->error, "out of memory"); }
            } else {
                snprintf(c->error, sizeof c->error, "%s", msg->err.msg[0] ? msg->err.msg : "failed");
            }
        } else {
            snprintf(c->error, sizeof c->error, "the run %s", why);
        }
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        c->status = 1;
    } else {
        char line[256];
        last_line(err_path, line, sizeof line);
        snprintf(c->error, sizeof c->error, "%s%s%s", line, line[0] ? " — " : "", why);
    }
    free(msg);
    unlink(err_path);
    idb_tmpdir_remove(dir);
}
