/* ctrsrv.h — the one counter server of a run (counter/segment/range with backend=postgres
 * or backend=redis): started privately by the harness, handed to every strategy instance
 * as the option dsn= or url=, killed and restarted by faults, stopped at the end.
 *
 * The strategies never start servers (strategies/remote.h); the commands that make
 * instances (insert, gen, bench, claims) call idb_ctrsrv_start with the user's options
 * first. It starts nothing when the backend is local or the user gave dsn= / url= (their
 * server); otherwise it starts one server (servers/server.h) in dir, with the strategy's
 * durability (Redis: appendonly / appendfsync) and transport (tcp: loopback) in its
 * config, and idb_ctrsrv_kv (and idb_ctrsrv_secret_kv: on TCP the server asks a password
 * made for the run) says what to add to the instances' options. All shards and
 * threads share it, as a central counter must be shared.
 *
 * Replication (replicas=R): a primary and R standbys (postgres: pg_basebackup from the
 * primary over its Unix socket, streaming over it; replication=sync sets
 * synchronous_standby_names '*' and synchronous_commit on) or R replicas (redis:
 * replicaof over loopback TCP, which as root is inside the run's private network
 * namespace, servers/netns.h, and always with one per-run password for the group:
 * requirepass through the ACL file, masterauth). Each has its own directory DIR/replica-I
 * and socket; the address handed out lists every server of the group, so that clients
 * find the primary after idb_ctrsrv_failover.
 *
 * Sentinel (redis, replicas=R, sentinel=1): one Redis Sentinel in DIR/sentinel, in the same
 * namespace, monitoring the primary with quorum 1 (down-after 200 ms, failover-timeout
 * 1000 ms), asking the group's password and holding it; the address handed out starts with
 * sentinel:unix:ITS_SOCKET, so clients ask it for the primary, and the failover faults
 * leave the promotion to it (idb_ctrsrv_failover is not called).
 */
#ifndef IDB_CTRSRV_H
#define IDB_CTRSRV_H

#include <limits.h>

#include "harness_kv.h"
#include "strategy.h"

#define IDB_CTRSRV_KV_MAX (IDB_OPT_NAME_MAX + IDB_OPT_VALUE_MAX)
#define IDB_CTRSRV_BACKENDS 3          /* enum idb_backend's count (remote.h): local, ... */

#define IDB_CTRSRV_GROUP_MAX 4         /* a primary and IDB_REMOTE_REPLICAS_MAX (remote.h) */

typedef struct idb_ctrsrv {
    struct idb_server *sentinel;       /* sentinel=1: the Redis Sentinel, or NULL */
    struct idb_server *srv;            /* the primary (after a failover: the promoted one);
                                          NULL when no server was started */
    struct idb_server *group[IDB_CTRSRV_GROUP_MAX];   /* replicas=R: group[0] the first
                                          primary, 1..R its standbys/replicas; kept (the
                                          killed ones too) until idb_ctrsrv_stop */
    int ngroup;                        /* 1 + R, or 0 */
    int primary;                       /* group[primary] is srv */
    int lag_pid[IDB_CTRSRV_GROUP_MAX]; /* postgres, idb_ctrsrv_lag: the primary's SIGSTOPped
                                          walsenders (SIGCONT by stop; gone after a kill) */
    int nlag;
    int sync;                          /* postgres: replication=sync */
    int backend;                       /* enum idb_backend of the options */
    int rtt_us;                        /* the options' emulated delay (reported as such) */
    int durability;                    /* 0 none, 1 everysec, 2 always (redis) */
    char kv[IDB_CTRSRV_KV_MAX];        /* "dsn=..." / "url=..." or "" */
    char secret_kv[IDB_CTRSRV_KV_MAX]; /* "secret_file=PATH" (transport=tcp) or "" */
    char version[64];                  /* the server's version, or "" */
    char dir[PATH_MAX];                /* the server's files: removed by idb_ctrsrv_stop */
} idb_ctrsrv;

/* Read backend, durability, transport and rtt_us from the user's options user[0..nuser)
 * for strategy s (they are checked by the caller first), and when a server is needed
 * start it in dir (made when missing; NULL: a private temporary directory); dir and
 * everything in it is removed by idb_ctrsrv_stop (a counter's data is not a result).
 * Returns 0 (cs->srv NULL when none was needed), or
 * the server's error (IDB_EIO: a package or binary missing, it would not start). */
int idb_ctrsrv_start(const idb_strategy *s, const char *const *user, int nuser,
                     const char *dir, idb_ctrsrv *cs, idb_err *err);

/* The option to add to every instance's options ("dsn=..."/"url=..."), or NULL. */
const char *idb_ctrsrv_kv(const idb_ctrsrv *cs);

/* The second option to add, "secret_file=PATH" (the server's password: it listens on
 * loopback TCP, transport=tcp), or NULL (a Unix socket only, or no server). */
const char *idb_ctrsrv_secret_kv(const idb_ctrsrv *cs);

/* Set place->dsn or place->url to the started server's address, and place->secret_file
 * when it has a password (nothing when no server was started). */
void idb_ctrsrv_place(const idb_ctrsrv *cs, idb_harness_place *place);

/* The backend the options ask for (enum idb_backend), without starting anything: 0 =
 * local, also for a strategy that has no backend option. */
int idb_ctrsrv_backend(const idb_strategy *s, const char *const *user, int nuser);

/* Check the replication options without starting anything: replicas=R needs a server
 * idbench starts (backend=postgres|redis, no dsn=/url=, transport=unix); replication= is
 * postgres's and sync needs R >= 1; wait_replicas=K is redis's, K <= R; cache= is
 * postgres's. 0 or IDB_EINPUT (idb_ctrsrv_start checks this first too). */
int idb_ctrsrv_check(const idb_strategy *s, const char *const *user, int nuser, idb_err *err);

/* The replicas=R the options ask for (0: none). */
int idb_ctrsrv_replicas(const idb_strategy *s, const char *const *user, int nuser);

/* Whether the user's options ask for Redis Sentinel (sentinel=1), unchecked. */
int idb_ctrsrv_sentinel(const idb_strategy *s, const char *const *user, int nuser);

/* A fault: SIGKILL the server (idb_server_kill), then start it again on the same data
 * (idb_server_restart; call from the thread that started it). 0 or IDB_EIO. */
int idb_ctrsrv_kill(idb_ctrsrv *cs, idb_err *err);
int idb_ctrsrv_restart(idb_ctrsrv *cs, idb_err *err);

/* The failover after idb_ctrsrv_kill with replicas (ctrsrv_repl.c): the most advanced live
 * standby (postgres: pg_last_wal_receive_lsn, then replay; redis: its replication offset)
 * promoted (pg_promote(); REPLICAOF NO ONE), the other ones pointed at it, cs->srv the new
 * primary. The clients find it themselves (their address lists every server: libpq's
 * target_session_attrs=read-write, the redis client's ROLE check). 0, IDB_EINPUT (no
 * replicas) or IDB_EIO. */
int idb_ctrsrv_failover(idb_ctrsrv *cs, idb_err *err);

/* Make the replicas lag (the fault failover-lagged, ctrsrv_repl.c): from now on nothing
 * the primary acknowledges reaches them, as in a partition. postgres: the primary's
 * walsenders (pg_stat_replication.pid) are SIGSTOPped, so the WAL stays in the primary
 * (what a sender already wrote to the socket would still be delivered); redis: each replica is
 * pointed at 127.0.0.1:1 (REPLICAOF; nothing listens there), so its link is down and it
 * keeps its data and its offset. Needs replicas. 0, IDB_EINPUT or IDB_EIO. */
int idb_ctrsrv_lag(idb_ctrsrv *cs, idb_err *err);

/* Wait (at most 30 s) until every standby/replica of the group streams from the primary
 * (ctrsrv_repl.c; called by idb_ctrsrv_start). 0 or IDB_EIO. */
int idb_ctrsrv_wait_streaming(idb_ctrsrv *cs, idb_err *err);

/* sentinel=1 (ctrsrv_repl.c, called by idb_ctrsrv_start once the group streams): start
 * Sentinel in DIR/sentinel with the group's password secret, monitoring the primary, and
 * wait (at most 30 s) until it knows every replica. 0 or IDB_EIO. */
int idb_ctrsrv_sentinel_start(idb_ctrsrv *cs, const char *secret, idb_err *err);

/* After a failover with Sentinel: which server Sentinel names as the primary once its
 * failover ended (+switch-master, which waits for the other replicas' reconfiguration:
 * polled for at most 5 s) and what it did, into line (len bytes): "the primary is
 * replica-I (port P): promoted by Sentinel at config-epoch E; SLAVEOF calls on it: S,
 * REPLICAOF calls: T" (Sentinel sends SLAVEOF, idbench REPLICAOF); cs->srv and
 * cs->primary set to it. 0 or IDB_EIO (no Sentinel, or it did not answer). */
int idb_ctrsrv_sentinel_report(idb_ctrsrv *cs, char *line, size_t len, idb_err *err);

/* Stop the server (if any) and remove dir's server files. Safe to call twice. */
void idb_ctrsrv_stop(idb_ctrsrv *cs);

/* 1 when the server packages for backend are there (binaries), else 0 with why in err. */
int idb_ctrsrv_available(int backend, idb_err *err);

#endif
