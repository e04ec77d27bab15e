/* remote.h — a counter on a real server, reached over a real socket ("remote counter").
 *
 * The strategies that ask a central counter (counter, segment, range) take their numbers
 * from the in-process atomic by default (backend=local). With backend=postgres or
 * backend=redis they take them from a server through this interface: one take() is one
 * round trip (PostgreSQL `SELECT nextval(...)` or Leaf's `UPDATE leaf_alloc ... RETURNING`,
 * Redis `INCRBY`). The strategies never start a server: the harness starts one per run and
 * hands its address over as the option dsn= (postgres) or url= (redis); a user may give
 * their own.
 *
 * Threads: an idb_remote is shared by every thread of an instance; each take() borrows an
 * idle connection from the instance's pool (making one when none is idle), so N threads
 * make N concurrent round trips, as N clients of one counter server would.
 *
 * Time: every round trip has a deadline of timeout_ms. A connection that fails (refused,
 * reset, the server killed) is dropped and a new one tried until the deadline, the way a
 * client retries until its timeout: so an outage makes each order wait timeout_ms and then
 * fail with IDB_EUNAVAIL. A connection that is only slow (still connecting, or its reply
 * not yet there) when the deadline comes is not thrown away: it goes back to the pool and
 * the next take carries on with it, so an order never waits past its deadline and a
 * connection that needs longer than timeout_ms (the first one to a server just restarted
 * after a crash) still gets made over several orders. A server that answers with an error
 * or garbage fails at once (IDB_EIO). rtt_us adds an emulated network delay (a sleep)
 * before each round trip; it is labelled emulated wherever it is reported.
 */
#ifndef IDB_REMOTE_H
#define IDB_REMOTE_H

#include <stdint.h>

#include "err.h"
#include "options.h"

enum idb_backend { IDB_BACKEND_LOCAL, IDB_BACKEND_POSTGRES, IDB_BACKEND_REDIS, IDB_BACKEND_COUNT };

/* The `backend` option's choices, in enum idb_backend order. */
#define IDB_BACKEND_CHOICES "local|postgres|redis"
#define IDB_REMOTE_TIMEOUT_DEFAULT "1000"
#define IDB_REMOTE_TIMEOUT_MAX 3600000     /* ms: an hour */
#define IDB_REMOTE_RTT_MAX 1000000         /* us: a second */
#define IDB_REMOTE_REPLICAS_MAX 3          /* standbys / replicas of a counter server */
#define IDB_REMOTE_CACHE_MAX 1000000       /* a sequence's CACHE */
#define IDB_REMOTE_SENTINEL_MASTER "idbench" /* the name Sentinel monitors the primary by */
#define IDB_REMOTE_SENTINEL_PREFIX "sentinel:"  /* a url entry that is a Sentinel's address */

/* What a take() asks of the server. */
enum idb_remote_mode {
    IDB_REMOTE_SEQUENCE,       /* postgres: nextval of a sequence; redis: INCRBY */
    IDB_REMOTE_BLOCK,          /* postgres: Leaf's leaf_alloc row; redis: INCRBY */
};

typedef struct idb_remote_conf {
    enum idb_backend backend;  /* IDB_BACKEND_POSTGRES or IDB_BACKEND_REDIS */
    enum idb_remote_mode mode;
    const char *addr;          /* postgres: a libpq conninfo; redis: unix:PATH | HOST:PORT,
                                  or several, comma-separated: the one whose ROLE is master,
                                  or with a sentinel:ADDR entry the one that Sentinel names */
    const char *name;          /* the counter's name: A-Z a-z 0-9 _ only */
    int timeout_ms;            /* deadline of one round trip, retries included */
    int rtt_us;                /* emulated network delay per round trip; 0 = none */
    const char *secret_file;   /* "" or NULL: no password; else a file holding it
                                  (secret.h: one line, 0600, yours), read at open */
    const char *secret;        /* set by idb_remote_open from secret_file: the password
                                  the drivers send (libpq password=, redis AUTH), or NULL */
    int wait_replicas;         /* redis: WAIT for this many replicas after each INCRBY */
    int seq_cache;             /* postgres sequence: its CACHE (0 or 1: none) */
} idb_remote_conf;

typedef struct idb_remote idb_remote;

/* The shared option declarations (no terminator), for a strategy's own table: dsn, url,
 * timeout_ms, rtt_us, durability, transport, secret_file, replicas, replication,
 * wait_replicas, sentinel. */
#define IDB_REMOTE_OPTIONS \
    { .name = "dsn", .type = IDB_OPT_STR, .def = "", \
      .help = "backend=postgres: the server's libpq conninfo (default: idbench starts one)" }, \
    { .name = "url", .type = IDB_OPT_STR, .def = "", \
      .help = "backend=redis: unix:PATH or HOST:PORT, or several comma-separated, one of " \
              "them sentinel:ADDR (ask that Sentinel for the primary) (default: idbench " \
              "starts one)" }, \
    { .name = "timeout_ms", .type = IDB_OPT_INT, .def = IDB_REMOTE_TIMEOUT_DEFAULT, .min = 1, \
      .max = IDB_REMOTE_TIMEOUT_MAX, \
      .help = "deadline of one round trip to the counter server, retries included" }, \
    { .name = "rtt_us", .type = IDB_OPT_INT, .def = "0", .min = 0, .max = IDB_REMOTE_RTT_MAX, \
      .help = "emulated network delay added to each round trip (labelled emulated)" }, \
    { .name = "durability", .type = IDB_OPT_ENUM, .def = "none", \
      .choices = "none|everysec|always", \
      .help = "backend=redis, server started by idbench: appendonly no / appendfsync " \
              "everysec / always" }, \
    { .name = "transport", .type = IDB_OPT_ENUM, .def = "unix", .choices = "unix|tcp", \
      .help = "server started by idbench: reached on its Unix socket or on loopback TCP " \
              "(with a password made for the run)" }, \
    { .name = "secret_file", .type = IDB_OPT_STR, .def = "", \
      .help = "a file (0600, yours) holding the server's password, sent by the client " \
              "(default: the one idbench made for a server it started on TCP)" }, \
    { .name = "replicas", .type = IDB_OPT_INT, .def = "0", .min = 0, \
      .max = IDB_REMOTE_REPLICAS_MAX, \
      .help = "server started by idbench: its standbys (postgres) or replicas (redis), for " \
              "--fault failover-counter; the clients list them all and use the primary" }, \
    { .name = "replication", .type = IDB_OPT_ENUM, .def = "async", .choices = "async|sync", \
      .help = "backend=postgres with replicas: asynchronous streaming, or synchronous " \
              "(synchronous_standby_names '*', synchronous_commit on)" }, \
    { .name = "wait_replicas", .type = IDB_OPT_INT, .def = "0", .min = 0, \
      .max = IDB_REMOTE_REPLICAS_MAX, \
      .help = "backend=redis: WAIT K timeout after each INCRBY; fewer than K replicas " \
              "acknowledging it fails the order (its number is never used)" }, \
    { .name = "sentinel", .type = IDB_OPT_INT, .def = "0", .min = 0, .max = 1, \
      .help = "backend=redis with replicas: 1 starts a Redis Sentinel that promotes a " \
              "replica when the primary dies; the clients ask it for the primary" },

/* Read the shared options of opts into *c (addr from dsn or url by backend, secret_file;
 * name and mode are the caller's). Returns 0, or IDB_EINPUT when the backend's address is
 * missing. */
int idb_remote_conf_from(const idb_opts *opts, enum idb_backend b, const char *who,
                         idb_remote_conf *c, idb_err *err);

/* Read c's secret_file (when given; a file that is not one only its owner, the caller,
 * can read is refused: IDB_EINPUT), connect (one connection, kept in the pool) and make the
 * counter when missing: the sequence, or the leaf_alloc row. The first connection may take
 * timeout_ms or 2 s, whichever is longer (a server just started, a loaded machine).
 * Returns 0 and *out (owned by the caller: close it), or IDB_EINPUT (a malformed address or
 * name, a bad secret file), IDB_EUNAVAIL (no server answered in that time), IDB_EIO (the
 * server refused: a wrong password among others), IDB_ENOMEM. */
int idb_remote_open(const idb_remote_conf *c, idb_remote **out, idb_err *err);

/* One round trip: reserve n consecutive numbers, *first the first (numbers start at 1).
 * Thread-safe. Returns 0, or IDB_EUNAVAIL (no answer within timeout_ms), IDB_EIO (an
 * error or garbage reply), IDB_EFORK (called in a child of fork()). */
int idb_remote_take(idb_remote *r, uint64_t n, uint64_t *first, idb_err *err);

/* Close every connection and free r (NULL is fine). In a child of fork() the connections
 * are the parent's: they are left open there. */
void idb_remote_close(idb_remote *r);

/* r as a counter service (counter_service.h): take() is idb_remote_take. Lives as long
 * as r. */
struct idb_counter_service *idb_remote_service(idb_remote *r);

/* Round trips made, and the backend's name ("postgres", "redis"). */
int64_t idb_remote_round_trips(const idb_remote *r);
const char *idb_backend_name(enum idb_backend b);

#endif
