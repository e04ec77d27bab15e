/* remote_int.h — what remote.c asks of each server's client (remote_pg.c, remote_redis.c).
 *
 * A driver begins connections, makes the counter on the first one, and makes one round trip
 * on a connection, each before an absolute deadline (idb_remote_now_ns() time). A
 * connection may be left half made: begun but not yet connected, or with a reply still to
 * come; its take() carries on from there. Failures are sorted for remote.c: IDB_EUNAVAIL =
 * the connection is gone or nothing answered in time (remote.c tries a new one until the
 * deadline); IDB_EIO = the server answered with an error or garbage (no retry); IDB_EINPUT =
 * the address is malformed.
 */
#ifndef IDB_REMOTE_INT_H
#define IDB_REMOTE_INT_H

#include "remote.h"

typedef struct idb_remote_driver {
    const char *name;
    /* Check the address without connecting. Returns 0 or IDB_EINPUT. */
    int (*check)(const idb_remote_conf *c, idb_err *err);
    /* Begin a new connection in *conn (the caller's: close it). A driver may complete it
     * before the deadline or leave the rest to take(). Returns 0, IDB_EUNAVAIL (no server
     * there), IDB_ENOMEM; *conn is NULL on failure. */
    int (*start)(const idb_remote_conf *c, int64_t deadline_ns, void **conn, idb_err *err);
    /* Complete conn and make the counter when it is missing (the first connection of
     * idb_remote_open). Returns 0 or a failure as above; conn is closed by the caller.
     * NULL: start() completes connections and the counter needs no making. */
    int (*setup)(void *conn, const idb_remote_conf *c, int64_t deadline_ns, idb_err *err);
    /* Complete conn (connect, prepare, a reply an earlier take left coming) and make one
     * round trip: n numbers, the first in *first. On a failure *keep says what conn is
     * worth: 1 = healthy and only late (the deadline came first): keep it, a later take
     * resumes it where this one stopped; 0 = close it. */
    int (*take)(void *conn, const idb_remote_conf *c, uint64_t n, int64_t deadline_ns,
                uint64_t *first, int *keep, idb_err *err);
    void (*close)(void *conn);
} idb_remote_driver;

extern const idb_remote_driver idb_remote_pg, idb_remote_redis;

/* Monotonic time in ns (clock.h has it for the harness; the drivers need it too). */
int64_t idb_remote_now_ns(void);

/* Milliseconds left until deadline_ns, at least 0 (for poll()). */
int idb_remote_ms_left(int64_t deadline_ns);

#endif
