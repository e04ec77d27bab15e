/* remote.c — the remote counter (remote.h): the connection pool, the deadline and the
 * retries, the emulated round trip; the servers' own protocols are in remote_pg.c and
 * remote_redis.c behind idb_remote_driver. */
#include "remote_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counter_service.h"
#include "forkgen.h"
#include "secret.h"

#define POOL_MAX 64                /* connections kept idle per instance */
#define OPEN_MIN_MS 2000           /* the first connection (at create) may take this long */
#define RETRY_NS 5000000LL         /* pause between two connection attempts in an outage */
#define NS_PER_MS 1000000LL
#define NS_PER_US 1000LL
#define ADDR_MAX IDB_OPT_VALUE_MAX
#define NAME_MAX_LEN IDB_OPT_VALUE_MAX

struct idb_remote {
    idb_counter_service svc;       /* first member: r as a counter service */
    idb_remote_conf conf;          /* addr and name point into the buffers below */
    const idb_remote_driver *drv;
    char addr[ADDR_MAX];
    char name[NAME_MAX_LEN];
    char secret[IDB_SECRET_MAX];   /* read from conf.secret_file at open, or "" */
    pthread_mutex_t lock;          /* guards idle[] */
    void *idle[POOL_MAX];
    int nidle;
    _Atomic int64_t trips;
    unsigned fork_gen;
};

/* The drivers by backend (local has none). */
static const idb_remote_driver *const drivers[IDB_BACKEND_COUNT] = {
    [IDB_BACKEND_POSTGRES] = &idb_remote_pg,
    [IDB_BACKEND_REDIS] = &idb_remote_redis,
};

static const char *const backend_names[IDB_BACKEND_COUNT] = { "local", "postgres", "redis" };


/* Name of backend b ("local", "postgres", "redis"), "?" when out of range. */
const char *idb_backend_name(enum idb_backend b)
{
    return (unsigned)b < IDB_BACKEND_COUNT ? backend_names[b] : "?";
}

/* Monotonic ns (see remote_int.h). */
int64_t idb_remote_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Milliseconds left, rounded up, at least 0 (see remote_int.h). */
int idb_remote_ms_left(int64_t deadline_ns)
{
    int64_t left = deadline_ns - idb_remote_now_ns();
    return left <= 0 ? 0 : (int)((left + NS_PER_MS - 1) / NS_PER_MS);
}

static void sleep_ns(int64_t ns)
{
    if (ns <= 0) return;
    struct timespec ts = { .tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL };
    while (nanosleep(&ts, &ts) != 0) {}
}

/* The shared options into *c (see remote.h). */
int idb_remote_conf_from(const idb_opts *opts, enum idb_backend b, const char *who,
                         idb_remote_conf *c, idb_err *err)
{
    const char *opt = b == IDB_BACKEND_REDIS ? "url" : "dsn";
    *c = (idb_remote_conf){ .backend = b, .addr = idb_opts_str(opts, opt),
                            .timeout_ms = (int)idb_opts_int(opts, "timeout_ms"),
                            .rtt_us = (int)idb_opts_int(opts, "rtt_us"),
                            .secret_file = idb_opts_str(opts, "secret_file"),
                            .wait_replicas = (int)idb_opts_int(opts, "wait_replicas") };
    if (!*c->addr)
        return idb_fail(err, IDB_EINPUT, "strategy %s: backend=%s needs %s= (idbench's "
                        "commands start a server and fill it in)", who, idb_backend_name(b),
                        opt);
    return 0;
}

/* 0 when name is 1 or more of A-Z a-z 0-9 _, else IDB_EINPUT. */
static int check_name(const char *name, idb_err *err)
{
    size_t n = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
    if (n > 0 && !name[n]) return 0;
    return idb_fail(err, IDB_EINPUT, "counter name '%.64s': on a counter server it must be "
                    "letters, digits and _ only", name);
}

static int service_take(idb_counter_service *svc, uint64_t n, uint64_t *first, idb_err *err)
{
    return idb_remote_take((idb_remote *)svc, n, first, err);
}

/* r as a counter service (see remote.h). */
idb_counter_service *idb_remote_service(idb_remote *r)
{
    return &r->svc;
}

/* One attempt at idb_remote_open's first connection: begun, completed and the counter made
 * before the deadline, or closed. */
static int first_connection(idb_remote *r, int64_t deadline, void **conn, idb_err *err)
{
    int rc = r->drv->start(&r->conf, deadline, conn, err);
    if (!rc && r->drv->setup) rc = r->drv->setup(*conn, &r->conf, deadline, err);
    if (rc && *conn) r->drv->close(*conn);
    return rc;
}

/* Connect, make the counter, keep the connection (see remote.h). */
int idb_remote_open(const idb_remote_conf *c, idb_remote **out, idb_err *err)
{
    const idb_remote_driver *drv = (unsigned)c->backend < IDB_BACKEND_COUNT
                                   ? drivers[c->backend] : NULL;
    if (!drv) return idb_fail(err, IDB_EINPUT, "backend %d has no server", (int)c->backend);
    if (strlen(c->addr) >= ADDR_MAX || strlen(c->name) >= NAME_MAX_LEN)
        return idb_fail(err, IDB_EINPUT, "counter server address or name too long");
    int rc = check_name(c->name, err);
    if (!rc) rc = drv->check(c, err);
    if (rc) return rc;
    idb_remote *r = calloc(1, sizeof *r);
    if (!r) return idb_fail(err, IDB_ENOMEM, "out of memory");
    memcpy(r->addr, c->addr, strlen(c->addr) + 1);
    memcpy(r->name, c->name, strlen(c->name) + 1);
    r->conf = *c;
    r->conf.addr = r->addr;
    r->conf.name = r->name;
    r->conf.secret_file = NULL;                /* read once, here: the file may go */
    r->conf.secret = NULL;
    if (c->secret_file && *c->secret_file) {
        if ((rc = idb_secret_read(c->secret_file, r->secret, sizeof r->secret, err))) {
            free(r);
            return rc;
        }
        r->conf.secret = r->secret;
    }
    r->drv = drv;
    r->svc.take = service_take;
    r->fork_gen = idb_fork_generation();
    pthread_mutex_init(&r->lock, NULL);
    void *conn = NULL;
    int64_t wait_ms = c->timeout_ms > OPEN_MIN_MS ? c->timeout_ms : OPEN_MIN_MS;
    int64_t deadline = idb_remote_now_ns() + wait_ms * NS_PER_MS;
    while ((rc = first_connection(r, deadline, &conn, err)) == IDB_EUNAVAIL) {
        int64_t left = deadline - idb_remote_now_ns();    /* retried as a take is */
        if (left <= 0) break;
        sleep_ns(left < RETRY_NS ? left : RETRY_NS);
    }
    if (rc) {
        pthread_mutex_destroy(&r->lock);
        free(r);
        return rc;
    }
    r->idle[r->nidle++] = conn;
    *out = r;
    return 0;
}

/* An idle connection of the pool, or NULL. */
static void *borrow(idb_remote *r)
{
    pthread_mutex_lock(&r->lock);
    void *conn = r->nidle ? r->idle[--r->nidle] : NULL;
    pthread_mutex_unlock(&r->lock);
    return conn;
}

/* Give conn back to the pool (closed when the pool is full). */
static void give_back(idb_remote *r, void *conn)
{
    pthread_mutex_lock(&r->lock);
    int kept = r->nidle < POOL_MAX;
    if (kept) r->idle[r->nidle++] = conn;
    pthread_mutex_unlock(&r->lock);
    if (!kept) r->drv->close(conn);
}

/* One round trip with retries until the deadline (see remote.h). */
int idb_remote_take(idb_remote *r, uint64_t n, uint64_t *first, idb_err *err)
{
    int rc = idb_fork_check(r->fork_gen, "counter server client", err);
    if (rc) return rc;
    int64_t deadline = idb_remote_now_ns() + (int64_t)r->conf.timeout_ms * NS_PER_MS;
    sleep_ns((int64_t)r->conf.rtt_us * NS_PER_US);          /* the emulated network */
    atomic_fetch_add_explicit(&r->trips, 1, memory_order_relaxed);
    idb_err last = { 0 };
    for (;;) {
        void *conn = borrow(r);
        int keep = 0;
        rc = conn ? 0 : r->drv->start(&r->conf, deadline, &conn, &last);
        if (!rc) {
            rc = r->drv->take(conn, &r->conf, n, deadline, first, &keep, &last);
            if (rc == 0 || keep) give_back(r, conn);      /* late: the next take resumes it */
            else r->drv->close(conn);                     /* gone, or an answer not trusted */
            if (rc == 0) return 0;
        }
        if (rc != IDB_EUNAVAIL) return idb_fail(err, rc, "%s", last.msg);
        int64_t left = deadline - idb_remote_now_ns();
        if (left <= 0) break;
        sleep_ns(left < RETRY_NS ? left : RETRY_NS);
    }
    return idb_fail(err, IDB_EUNAVAIL, "counter server (%s) gave no number within "
                    "timeout_ms=%d: %s", r->drv->name, r->conf.timeout_ms, last.msg);
}

/* Close and free (see remote.h). */
void idb_remote_close(idb_remote *r)
{
    if (!r) return;
    if (r->fork_gen == idb_fork_now())
        for (int i = 0; i < r->nidle; i++) r->drv->close(r->idle[i]);
    explicit_bzero(r->secret, sizeof r->secret);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

/* Round trips so far (see remote.h). */
int64_t idb_remote_round_trips(const idb_remote *r)
{
    return atomic_load_explicit(&((idb_remote *)r)->trips, memory_order_relaxed);
}
