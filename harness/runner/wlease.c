/* wlease.c — the runner's side of the worker leases (wlease.h): the coordinator server,
 * one generator process per shard (wlease_gen.c) and the pipes to them, the pause-worker
 * fault, and the stop. docs/worker-leases.md has the design and the figures.
 */
#include "wlease.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness_kv.h"
#include "metrics.h"
#include "netns.h"
#include "server.h"
#include "tmpdir.h"
#include "wlease_int.h"
#include "worker_lease.h"

#define NS_PER_MS 1000000LL
#define READY_EXTRA_MS 30000           /* a generator's first answer: its lease + this */
#define RESUMED_NS 1000000000LL        /* after the resume the run lasts at least this */
#define SEARCH_ONLY 0711               /* the coordinator's directory: its user may pass */
#define PG_SOCKET_PREFIX ".s.PGSQL."

typedef struct wl_gen {
    pid_t pid;                         /* 0: none */
    int req, rep;                      /* the runner's ends of the two pipes */
    int worker;
} wl_gen;

struct idb_wlease {
    const idb_insert_config *cfg;
    const wl_coord *coord;
    int lease_ms, stop_on_lost;
    char dir[PATH_MAX];                /* the coordinator's files (temporary) */
    char addr[PATH_MAX + 128];         /* its address for the generators */
    idb_server *srv;
    wl_gen *gens;                      /* one per shard */
    wl_gen extra;                      /* the fault's replacement generator */
    int phase;                         /* fault: 0 to come, 1 paused, 2 resumed */
    int vshard, turn;                  /* the paused generator's shard; alternation */
    int64_t stop_ns, resume_ns, left; /* the pause; the orders left at the resume */
};

static const wl_coord *const coords[] = { NULL, &wl_coord_etcd, &wl_coord_postgres };

/* Shard 0's strategy options as parsed (every shard's were checked: insert_check.c). */
static int shard_opts(const idb_insert_config *cfg, idb_opts *o, idb_err *err)
{
    idb_harness_kv kv;
    idb_harness_place place = idb_harness_place_none();
    int rc = idb_strategy_harness_kv(cfg->strategy, &place, cfg->strategy_kv,
                                     cfg->n_strategy_kv, &kv, err);
    return rc ? rc : idb_opts_parse(o, cfg->strategy->options, kv.kv, kv.n, "strategy", err);
}

int idb_wlease_source(const idb_insert_config *cfg)
{
    idb_opts o;
    idb_err e = { 0 };
    if (!idb_opts_declared(cfg->strategy->options, IDB_WL_SOURCE)) return 0;
    return shard_opts(cfg, &o, &e) ? 0 : (int)idb_opts_int(&o, IDB_WL_SOURCE);
}

int idb_wlease_check(const idb_insert_config *cfg, idb_err *err)
{
    int src = idb_wlease_source(cfg);
    if (!src && cfg->pause_worker_at)
        return idb_fail(err, IDB_EINPUT, "--fault pause-worker needs leased workers: -o "
                        "worker_source=etcd|postgres (a strategy with a worker: snowflake)");
    if (!src) return 0;
    for (int i = 0; i < cfg->n_strategy_kv; i++)
        if (!strncmp(cfg->strategy_kv[i], "worker=", 7))
            return idb_fail(err, IDB_EINPUT, "worker_source: the lease decides the worker, "
                            "not -o %s", cfg->strategy_kv[i]);
    if (cfg->clients > 1)
        return idb_fail(err, IDB_EINPUT, "worker_source: one writer per shard (one generator "
                        "each), not --clients %d", cfg->clients);
    char version[64];
    if (idb_server_installed(coords[src]->kind, version, sizeof version, err))
        return IDB_EIO;                         /* the package is missing: one line says so */
    if (src == 1 && geteuid() != 0)
        return idb_fail(err, IDB_EUNAVAIL, "worker_source=etcd: etcd's peer listener runs "
                        "only in a private network namespace, which needs root");
    idb_opts o;
    int rc = shard_opts(cfg, &o, err);
    if (rc || !cfg->pause_worker_at) return rc;
    int64_t lease = idb_opts_int(&o, IDB_WL_LEASE_MS);
    if (cfg->pause_worker_at >= cfg->ids)
        return idb_fail(err, IDB_EINPUT, "--fault pause-worker@N: N must be 1 .. %lld (below "
                        "the order count)", cfg->ids - 1);
    if (cfg->pause_worker_ms <= lease)
        return idb_fail(err, IDB_EINPUT, "--fault pause-worker@N:MS: MS (%d) must be above "
                        "lease_ms (%lld), or the lease never runs out", cfg->pause_worker_ms,
                        (long long)lease);
    return 0;
}

/* Fork a generator for shard k into g and wait for its first answer: the worker it holds.
 * 0, or IDB_EIO (it failed: its message; it is reaped). */
static int spawn(idb_wlease *w, int k, wl_gen *g, idb_err *err)
{
    int rq[2], rp[2];
    if (pipe2(rq, O_CLOEXEC) != 0) return idb_fail(err, IDB_EIO, "pipe: %s", strerror(errno));
    if (pipe2(rp, O_CLOEXEC) != 0) {
        close(rq[0]);
        close(rq[1]);
        return idb_fail(err, IDB_EIO, "pipe: %s", strerror(errno));
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(rq[1]);
        close(rp[0]);
        wl_gen_conf c = { .cfg = w->cfg, .coord = w->coord, .addr = w->addr, .shard = k,
                          .workers = w->cfg->shards, .lease_ms = w->lease_ms,
                          .stop_on_lost = w->stop_on_lost, .req_fd = rq[0], .rep_fd = rp[1] };
        wl_gen_main(&c);
    }
    close(rq[0]);
    close(rp[1]);
    *g = (wl_gen){ .pid = pid, .req = rq[1], .rep = rp[0], .worker = -1 };
    if (pid < 0) return idb_fail(err, IDB_EIO, "fork: %s", strerror(errno));
    struct pollfd p = { .fd = g->rep, .events = POLLIN };
    wl_reply r = { .rc = IDB_EIO };
    int n = poll(&p, 1, w->lease_ms + READY_EXTRA_MS);
    if (n == 1 && read(g->rep, &r, sizeof r) == (ssize_t)sizeof r && r.rc == 0) {
        g->worker = r.worker;
        return 0;
    }
    return idb_fail(err, IDB_EIO, "generator of shard %d: %s", k,
                    n == 1 ? (r.msg[0] ? r.msg : "it exited") : "no worker leased in time");
}

/* Close g's pipes, kill it (stopped or not) and reap it. */
static void end_gen(wl_gen *g)
{
    if (g->pid <= 0) return;
    close(g->req);
    close(g->rep);
    kill(g->pid, SIGKILL);
    while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR) {}
    g->pid = 0;
}

/* The coordinator server in w->dir, and its address for the generators. */
static int start_server(idb_wlease *w, idb_err *err)
{
    char sdir[PATH_MAX + 16];
    if (idb_tmpdir_make(w->dir, sizeof w->dir) != 0 || chmod(w->dir, SEARCH_ONLY) != 0)
        return idb_fail(err, IDB_EIO, "worker leases: cannot make a temporary directory: %s",
                        strerror(errno));
    snprintf(sdir, sizeof sdir, "%s/server", w->dir);
    idb_server_conf conf = { .kind = w->coord->kind, .dir = sdir };
    idb_err e = { 0 };
    int rc = w->coord == &wl_coord_etcd ? idb_netns_private(&e) : 0;
    if (!rc) rc = idb_server_start(&conf, &w->srv, &e);
    if (rc) return idb_fail(err, rc, "worker_source=%s: %s", w->coord->name, e.msg);
    const char *sock = idb_server_socket(w->srv), *num = strstr(sock, PG_SOCKET_PREFIX);
    if (w->coord == &wl_coord_etcd)
        snprintf(w->addr, sizeof w->addr, "%s", sock);
    else
        snprintf(w->addr, sizeof w->addr, "host=%s port=%s user=%s dbname=postgres",
                 idb_server_socket_dir(w->srv), num ? num + strlen(PG_SOCKET_PREFIX) : "5432",
                 idb_server_user(w->srv));
    return w->coord->setup(w->addr, w->cfg->shards, err);
}

int idb_wlease_start(const idb_insert_config *cfg, idb_wlease **out, idb_err *err)
{
    *out = NULL;
    int src = idb_wlease_source(cfg);
    if (!src) return 0;
    idb_opts o;
    int rc = shard_opts(cfg, &o, err);
    idb_wlease *w = rc ? NULL : calloc(1, sizeof *w);
    if (rc) return rc;
    if (!w || !(w->gens = calloc((size_t)cfg->shards, sizeof *w->gens))) {
        free(w);
        return idb_fail(err, IDB_ENOMEM, "out of memory");
    }
    w->cfg = cfg;
    w->coord = coords[src];
    w->lease_ms = (int)idb_opts_int(&o, IDB_WL_LEASE_MS);
    w->stop_on_lost = idb_opts_int(&o, IDB_WL_ON_LOST) == 0;
    rc = start_server(w, err);
    for (int k = 0; k < cfg->shards && !rc; k++) rc = spawn(w, k, &w->gens[k], err);
    if (rc) {
        idb_wlease_stop(w);
        return rc;
    }
    *out = w;
    return 0;
}

/* Sleep ns nanoseconds. */
static void nap(int64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* The pause-worker fault before order i (shard k): at order N stop that shard's generator,
 * start its replacement and wait until it holds a worker (the paused one's, once its lease
 * ran out) and MS has passed since the stop; then resume the paused one. The run waits
 * meanwhile (so the resume always comes before the run's end); from then on the orders
 * left are spread over at least RESUMED_NS. */
static int fault(idb_wlease *w, int64_t i, int k, idb_err *err)
{
    const idb_insert_config *cfg = w->cfg;
    if (!cfg->pause_worker_at) return 0;
    if (w->phase == 0 && i == cfg->pause_worker_at) {
        w->vshard = k;
        kill(w->gens[k].pid, SIGSTOP);
        w->stop_ns = idb_mono_ns();
        w->phase = 1;
        int rc = spawn(w, k, &w->extra, err);
        if (rc) return rc;
        int64_t due = w->stop_ns + cfg->pause_worker_ms * NS_PER_MS, now = idb_mono_ns();
        if (now < due) nap(due - now);
        kill(w->gens[k].pid, SIGCONT);
        w->resume_ns = idb_mono_ns();
        w->left = cfg->ids - i;
        w->phase = 2;
    }
    if (w->phase == 2) {
        int64_t due = w->resume_ns + RESUMED_NS * (i - cfg->pause_worker_at) / w->left;
        int64_t now = idb_mono_ns();
        if (now < due) nap(due - now);
    }
    return 0;
}

/* The generator that makes shard k's next ID: after the resume the paused one and its
 * replacement in turn for its shard. */
static wl_gen *pick(idb_wlease *w, int k)
{
    if (w->phase != 2 || k != w->vshard) return &w->gens[k];
    w->turn ^= 1;
    return w->turn ? &w->gens[k] : &w->extra;
}

int idb_wlease_next(idb_wlease *w, int64_t i, int k, idb_id *id, int64_t *failed,
                    int64_t *untimed_ns, idb_err *err)
{
    int64_t t0 = idb_mono_ns();
    int rc = fault(w, i, k, err);
    *untimed_ns += idb_mono_ns() - t0;
    if (rc) return rc;
    wl_gen *g = pick(w, k);
    wl_reply r;
    char b = 'n';
    ssize_t sent, got = 0;
    while ((sent = write(g->req, &b, 1)) < 0 && errno == EINTR) {}
    if (sent == 1)
        while ((got = read(g->rep, &r, sizeof r)) < 0 && errno == EINTR) {}
    if (got != (ssize_t)sizeof r)
        return idb_fail(err, IDB_EIO, "the generator of shard %d (worker %d) is gone", k,
                        g->worker);
    if (r.rc == IDB_EUNAVAIL) {            /* on_lease_lost=stop: it refuses */
        (*failed)++;
        id->len = 0;
        return 0;
    }
    if (r.rc) return idb_fail(err, r.rc, "%s", r.msg);
    *id = r.id;
    return 0;
}

double idb_wlease_pause_ms(const idb_wlease *w)
{
    return w && w->phase == 2 ? (double)(w->resume_ns - w->stop_ns) / 1e6 : -1;
}

void idb_wlease_stop(idb_wlease *w)
{
    if (!w) return;
    for (int k = 0; w->gens && k < w->cfg->shards; k++) end_gen(&w->gens[k]);
    end_gen(&w->extra);
    idb_server_stop(w->srv);
    if (w->dir[0]) idb_tmpdir_remove(w->dir);
    free(w->gens);
    free(w);
}
