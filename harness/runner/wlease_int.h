/* wlease_int.h — inside the worker leases (wlease.c: the runner's side; wlease_gen.c: a
 * generator process; wlease_coord.c: the coordinators): the coordinator table and the
 * messages of the pipe between the runner and a generator. */
#ifndef IDB_WLEASE_INT_H
#define IDB_WLEASE_INT_H

#include <limits.h>
#include <stdint.h>

#include "insert.h"

#define WL_PREFIX "idbench/workers/"       /* etcd: worker W is the key PREFIX + W */
#define WL_TABLE "worker_lease"            /* postgres: one row per worker */

/* A generator's session with its coordinator (a connection, a lease, the worker held). */
typedef struct wl_session {
    const char *addr;                  /* etcd: its socket; postgres: libpq conninfo */
    int workers;                       /* the pool: worker numbers 0 .. workers - 1 */
    int lease_ms;
    char holder[64];                   /* who holds a worker: "pid-N" */
    int worker;                        /* the worker held, -1 before */
    char lease[32];                    /* etcd: the lease's ID */
    void *conn;                        /* postgres: the PGconn */
} wl_session;

/* A coordinator: how a generator leases a worker and keeps it. */
typedef struct wl_coord wl_coord;
struct wl_coord {
    const char *name;                  /* "etcd", "postgres" */
    const char *kind;                  /* the server kind (servers/server.h) */
    /* Connect (s->addr). 0 or IDB_EUNAVAIL. */
    int (*open)(wl_session *s, idb_err *err);
    /* Lease a free worker into s->worker: 0; IDB_EBUSY when every worker is held; or
     * IDB_EUNAVAIL. */
    int (*acquire)(wl_session *s, idb_err *err);
    /* Keep the lease alive: 0 when it is still held, IDB_EBUSY when it is lost (ran out,
     * taken), IDB_EUNAVAIL when the coordinator did not answer. */
    int (*renew)(wl_session *s, idb_err *err);
    void (*close)(wl_session *s);
    /* In the runner, once the server runs (addr: as above): make what the coordinator
     * needs for a pool of `workers`. 0 or IDB_EIO. */
    int (*setup)(const char *addr, int workers, idb_err *err);
};

extern const wl_coord wl_coord_etcd, wl_coord_postgres;

/* A reply on the pipe from a generator: the worker it holds (its first message, rc 0,
 * id.len 0) or an ID (rc 0), or an error (rc, msg). */
typedef struct wl_reply {
    int32_t rc;
    int32_t worker;
    idb_id id;
    char msg[256];                     /* an idb_err message (sizeof err->msg) */
} wl_reply;

/* What a generator process needs (wlease_gen.c). */
typedef struct wl_gen_conf {
    const idb_insert_config *cfg;
    const wl_coord *coord;
    const char *addr;
    int shard, workers, lease_ms, stop_on_lost;
    int req_fd, rep_fd;                /* requests in (one byte each), replies out */
} wl_gen_conf;

/* The generator process's body: lease a worker (waiting while all are held), make the
 * instance, say which worker it holds, then answer each request byte with an ID until
 * the request pipe closes; a thread keeps the lease alive. Never returns (_exit). */
void wl_gen_main(const wl_gen_conf *c);

#endif
