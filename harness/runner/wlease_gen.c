/* wlease_gen.c — a generator process of the worker leases (wlease.h): it leases a worker
 * from the coordinator, makes its shard's strategy instance with worker = that number, and
 * answers the runner's requests with IDs; a thread renews the lease every lease_ms / 4.
 *
 * Fencing: the lease is held until (the send time of the last renewal that succeeded) +
 * lease_ms on the monotonic clock, which runs on while the process is stopped. A request
 * after that deadline, or after a renewal said the lease is gone, finds the lease lost:
 * with on_lease_lost=stop the generator answers IDB_EUNAVAIL from then on (the order
 * fails; it never generates again with that worker), with continue it goes on with the
 * worker it no longer holds. The deadline is checked at each request, so a generator that
 * resumes from SIGSTOP refuses before its renewal thread has even run.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "harness_kv.h"
#include "metrics.h"
#include "wlease_int.h"

#define ACQUIRE_RETRY_NS 50000000L     /* 50 ms between tries while every worker is held */
#define ACQUIRE_GIVE_UP_NS 120000000000LL   /* 2 min: the runner's wait is shorter */
#define NS_PER_MS 1000000LL

typedef struct gen {
    const wl_gen_conf *c;
    wl_session s;
    _Atomic int64_t deadline_ns;       /* the lease is held until then (monotonic) */
    _Atomic int lost;                  /* a renewal found it gone */
    _Atomic int quit;
} gen;

/* Sleep ns nanoseconds. */
static void nap(long long ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* Write reply r whole to fd; 0 or -1. */
static int put(int fd, const wl_reply *r)
{
    ssize_t n;
    while ((n = write(fd, r, sizeof *r)) < 0 && errno == EINTR) {}
    return n == (ssize_t)sizeof *r ? 0 : -1;
}

/* The renewal thread: every lease_ms / 4, renew; a success moves the deadline to the
 * renewal's send time + lease_ms; IDB_EBUSY (gone) marks the lease lost for good. */
static void *renewer(void *arg)
{
    gen *g = arg;
    while (!atomic_load(&g->quit) && !atomic_load(&g->lost)) {
        nap((long long)g->s.lease_ms * NS_PER_MS / 4);
        int64_t t = idb_mono_ns();
        idb_err e = { 0 };
        int rc = g->c->coord->renew(&g->s, &e);
        if (rc == 0) atomic_store(&g->deadline_ns, t + (int64_t)g->s.lease_ms * NS_PER_MS);
        else if (rc == IDB_EBUSY) atomic_store(&g->lost, 1);
    }
    return NULL;
}

/* Lease a worker, retrying while every one is held. 0 or the coordinator's error. */
static int acquire(gen *g, idb_err *err)
{
    int64_t start = idb_mono_ns();
    for (;;) {
        int64_t t = idb_mono_ns();
        int rc = g->c->coord->acquire(&g->s, err);
        if (rc == 0) {
            atomic_store(&g->deadline_ns, t + (int64_t)g->s.lease_ms * NS_PER_MS);
            return 0;
        }
        if (rc != IDB_EBUSY) return rc;
        if (idb_mono_ns() - start > ACQUIRE_GIVE_UP_NS)
            return idb_fail(err, IDB_EIO, "generator of shard %d: no worker became free in "
                            "%lld s", g->c->shard, ACQUIRE_GIVE_UP_NS / 1000000000LL);
        nap(ACQUIRE_RETRY_NS);
    }
}

/* The shard's instance with worker = the leased number (the user's options, the harness's
 * place, as make_instances gives them, but this worker). */
static int make_instance(gen *g, void **inst, idb_err *err)
{
    const idb_insert_config *cfg = g->c->cfg;
    idb_harness_place place = idb_harness_place_none();
    place.shard = g->c->shard;
    place.shards = cfg->shards;
    place.worker = g->s.worker;
    place.dir = cfg->dir;
    idb_harness_kv kv;
    int rc = idb_strategy_harness_kv(cfg->strategy, &place, cfg->strategy_kv,
                                     cfg->n_strategy_kv, &kv, err);
    return rc ? rc : idb_strategy_create_kv(cfg->strategy, kv.kv, kv.n, idb_clock_real(), inst,
                                            err);
}

/* Answer requests until the pipe closes. */
static void serve(gen *g, void *inst)
{
    const wl_gen_conf *c = g->c;
    char b;
    for (;;) {
        ssize_t n = read(c->req_fd, &b, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        wl_reply r = { .worker = g->s.worker };
        int lost = atomic_load(&g->lost) || idb_mono_ns() > atomic_load(&g->deadline_ns);
        if (lost) atomic_store(&g->lost, 1);      /* a deadline passed is never undone */
        idb_err e = { 0 };
        if (lost && c->stop_on_lost)
            r.rc = idb_fail(&e, IDB_EUNAVAIL, "worker %d: lease lost", g->s.worker);
        else
            r.rc = c->cfg->strategy->next(inst, &r.id, &e);
        snprintf(r.msg, sizeof r.msg, "%s", e.msg);
        if (put(c->rep_fd, &r) != 0) return;
    }
}

void wl_gen_main(const wl_gen_conf *c)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT };
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) signal(sigs[i], SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);                 /* dies with the runner */
    gen g = { .c = c, .s = { .addr = c->addr, .workers = c->workers,
                             .lease_ms = c->lease_ms, .worker = -1 } };
    snprintf(g.s.holder, sizeof g.s.holder, "pid-%ld", (long)getpid());
    wl_reply r = { .worker = -1 };
    idb_err e = { 0 };
    void *inst = NULL;
    pthread_t th;
    r.rc = c->coord->open(&g.s, &e);
    if (!r.rc) r.rc = acquire(&g, &e);
    if (!r.rc) r.rc = make_instance(&g, &inst, &e);
    if (!r.rc && pthread_create(&th, NULL, renewer, &g) != 0)
        r.rc = idb_fail(&e, IDB_EIO, "generator: cannot start its renewal thread");
    r.worker = g.s.worker;
    snprintf(r.msg, sizeof r.msg, "%s", e.msg);
    if (put(c->rep_fd, &r) == 0 && !r.rc) serve(&g, inst);
    _exit(r.rc ? 1 : 0);                  /* the lease runs out by itself; nothing flushed */
}
