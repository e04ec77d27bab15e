/* remote_int.h — what remote.c asks of each server's client (remote_pg.c, remote_redis.c).
 *
 * A driver makes connections and makes one round trip on one of them, both before an
 * absolute deadline (idb_remote_now_ns() time). Its failures are sorted for remote.c:
 * IDB_EUNAVAIL = the connection is gone or nothing answered in time (remote.c drops the
 * connection and tries a new one until the deadline); IDB_EIO = the server answered with
 * an error or garbage (no retry); IDB_EINPUT = the address is malformed.
 */
#ifndef IDB_REMOTE_INT_H
#define IDB_REMOTE_INT_H

#include "remote.h"

typedef struct idb_remote_driver {
    const char *name;
    /* Check the address without connecting. Returns 0 or IDB_EINPUT. */
    int (*check)(const idb_remote_conf *c, idb_err *err);
    /* A new connection in *conn; with setup, make the counter when it is missing. */
    int (*connect)(const idb_remote_conf *c, int setup, int64_t deadline_ns, void **conn,
                   idb_err *err);
    /* One round trip: n numbers, the first in *first. */
    int (*take)(void *conn, const idb_remote_conf *c, uint64_t n, int64_t deadline_ns,
                uint64_t *first, idb_err *err);
    void (*close)(void *conn);
} idb_remote_driver;

extern const idb_remote_driver idb_remote_pg, idb_remote_redis;

/* Monotonic time in ns (clock.h has it for the harness; the drivers need it too). */
int64_t idb_remote_now_ns(void);

/* Milliseconds left until deadline_ns, at least 0 (for poll()). */
int idb_remote_ms_left(int64_t deadline_ns);

#endif
