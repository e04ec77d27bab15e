/* ctrsrv_repl.c — the replicated counter server's group (ctrsrv.h, replicas=R): waiting
 * until every standby/replica streams, and the failover after the primary is killed: the
 * most advanced live one promoted, the others pointed at it.
 *
 * The harness speaks to each server on its own Unix socket: postgres with libpq (blocking,
 * connect_timeout), redis with hiredis (AUTH with the group's password). PostgreSQL: the
 * position is pg_last_wal_receive_lsn (then pg_last_wal_replay_lsn), the promotion
 * pg_promote(true, 60) (it waits until the standby accepts writes), the others follow with
 * ALTER SYSTEM SET primary_conninfo and pg_reload_conf() (recovery_target_timeline is
 * 'latest' by default: they follow the new timeline). Redis: the position is
 * slave_repl_offset (INFO replication), the promotion REPLICAOF NO ONE, the others follow
 * with REPLICAOF 127.0.0.1 PORT. With sentinel=1 the promotion is Redis Sentinel's: it is
 * started and asked here (idb_ctrsrv_sentinel_start, idb_ctrsrv_sentinel_report).
 */
#include "ctrsrv.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hiredis/hiredis.h>
#include <libpq-fe.h>

#include "remote.h"
#include "secret.h"
#include "server.h"

#define STREAM_WAIT_MS 30000          /* standbys not streaming by then: the start fails */
#define POLL_NS 20000000L             /* 20 ms between two looks */
#define PG_CONNINFO "host=%s port=5432 user=%s dbname=postgres connect_timeout=5"
#define SQL_MAX 512

/* Sleep POLL_NS. */
static void nap(void)
{
    struct timespec ts = { 0, POLL_NS };
    nanosleep(&ts, NULL);
}

/* A libpq connection to server srv (its socket), or NULL with why in err. */
static PGconn *pg_open(idb_server *srv, idb_err *err)
{
    char ci[PATH_MAX + 128];
    snprintf(ci, sizeof ci, PG_CONNINFO, idb_server_socket_dir(srv), idb_server_user(srv));
    PGconn *c = PQconnectdb(ci);
    if (c && PQstatus(c) == CONNECTION_OK) return c;
    idb_fail(err, IDB_EIO, "postgres %s: %s", idb_server_socket_dir(srv),
             c ? strtok(PQerrorMessage(c), "\n") : "out of memory");
    PQfinish(c);
    return NULL;
}

/* Run sql on srv; its first row's two values into v[0..2) when v is not NULL (numbers).
 * 0 or IDB_EIO. */
static int pg_query(idb_server *srv, const char *sql, long long *v, idb_err *err)
{
    PGconn *c = pg_open(srv, err);
    if (!c) return IDB_EIO;
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    int rc = 0;
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK)
        rc = idb_fail(err, IDB_EIO, "postgres: %s: %s", sql,
                      strtok(PQresultErrorMessage(r), "\n"));
    else if (v && (PQntuples(r) < 1 || PQnfields(r) < 2))
        rc = idb_fail(err, IDB_EIO, "postgres: %s: no row", sql);
    else if (v)
        for (int i = 0; i < 2; i++) v[i] = atoll(PQgetvalue(r, 0, i));
    PQclear(r);
    PQfinish(c);
    return rc;
}

/* A hiredis connection to srv's socket, authenticated with the group's password. */
static redisContext *rd_open(idb_server *srv, idb_err *err)
{
    char secret[128] = "";
    struct timeval tv = { 5, 0 };
    redisContext *c = redisConnectUnixWithTimeout(idb_server_socket(srv), tv);
    if (!c || c->err) {
        idb_fail(err, IDB_EIO, "redis %s: %s", idb_server_socket(srv),
                 c ? c->errstr : "out of memory");
        redisFree(c);
        return NULL;
    }
    redisSetTimeout(c, tv);
    if (*idb_server_secret_file(srv)) {
        if (idb_secret_read(idb_server_secret_file(srv), secret, sizeof secret, err) != 0) {
            redisFree(c);
            return NULL;
        }
        redisReply *r = redisCommand(c, "AUTH %s", secret);
        explicit_bzero(secret, sizeof secret);
        int ok = r && r->type == REDIS_REPLY_STATUS;
        freeReplyObject(r);
        if (!ok) {
            idb_fail(err, IDB_EIO, "redis %s: AUTH refused", idb_server_socket(srv));
            redisFree(c);
            return NULL;
        }
    }
    return c;
}

/* One redis command argv[0..argc) on srv; a text reply (INFO's) into out when out is not
 * NULL. 0 or IDB_EIO (an error reply, or the connection failed). */
static int rd_exec(idb_server *srv, const char *const *argv, int argc, char *out, size_t len,
                   idb_err *err)
{
    redisContext *c = rd_open(srv, err);
    if (!c) return IDB_EIO;
    redisReply *r = redisCommandArgv(c, argc, (const char **)argv, NULL);
    int rc = !r || r->type == REDIS_REPLY_ERROR
           ? idb_fail(err, IDB_EIO, "redis: %s: %s", argv[0], r ? r->str : c->errstr) : 0;
    if (!rc && out)
        snprintf(out, len, "%s", r->type == REDIS_REPLY_STRING ? r->str : "");
    freeReplyObject(r);
    redisFree(c);
    return rc;
}

/* INFO replication of srv into out. */
static int rd_info(idb_server *srv, char *out, size_t len, idb_err *err)
{
    const char *argv[] = { "INFO", "replication" };
    return rd_exec(srv, argv, 2, out, len, err);
}

/* The number after "name:" in INFO text, or -1. */
static long long info_value(const char *text, const char *name)
{
    const char *p = strstr(text, name);
    return p ? atoll(p + strlen(name)) : -1;
}

/* How many standbys/replicas stream from the primary now, or -1 (asking failed). */
static int streaming(idb_ctrsrv *cs, idb_err *err)
{
    if (cs->backend == IDB_BACKEND_POSTGRES) {
        long long v[2];
        int rc = pg_query(cs->srv, "SELECT count(*), 0 FROM pg_stat_replication WHERE "
                          "state = 'streaming'", v, err);
        return rc ? -1 : (int)v[0];
    }
    char info[4096];
    if (rd_info(cs->srv, info, sizeof info, err)) return -1;
    int n = 0;
    for (const char *p = info; (p = strstr(p, "state=online")); p++) n++;
    return n;
}

/* Wait until all stream (see ctrsrv.h). */
int idb_ctrsrv_wait_streaming(idb_ctrsrv *cs, idb_err *err)
{
    int want = cs->ngroup - 1, got = 0;
    for (long waited = 0; waited < STREAM_WAIT_MS * 1000000L; waited += POLL_NS) {
        idb_err why = { 0 };
        got = streaming(cs, &why);
        if (got >= want) return 0;
        nap();
    }
    return idb_fail(err, IDB_EIO, "%d of %d replicas streaming after %d s", got < 0 ? 0 : got,
                    want, STREAM_WAIT_MS / 1000);
}

/* Where server i is in the primary's history: pos[0] received, pos[1] applied (postgres
 * LSNs as bytes; redis: its replication offset twice). 0 or IDB_EIO. */
static int position(idb_ctrsrv *cs, int i, long long *pos, idb_err *err)
{
    if (cs->backend == IDB_BACKEND_POSTGRES)
        return pg_query(cs->group[i], "SELECT COALESCE(pg_last_wal_receive_lsn() - '0/0', 0)"
                        "::bigint, COALESCE(pg_last_wal_replay_lsn() - '0/0', 0)::bigint",
                        pos, err);
    char info[4096];
    int rc = rd_info(cs->group[i], info, sizeof info, err);
    pos[0] = pos[1] = rc ? -1 : info_value(info, "slave_repl_offset:");
    return rc;
}

/* Promote server i: it takes writes when this returns. 0 or IDB_EIO. */
static int promote(idb_ctrsrv *cs, int i, idb_err *err)
{
    if (cs->backend == IDB_BACKEND_POSTGRES) {
        long long v[2];
        int rc = pg_query(cs->group[i], "SELECT pg_promote(true, 60)::int, 0", v, err);
        return rc ? rc : v[0] == 1 ? 0 : idb_fail(err, IDB_EIO, "pg_promote() said false");
    }
    const char *argv[] = { "REPLICAOF", "NO", "ONE" };
    return rd_exec(cs->group[i], argv, 3, NULL, 0, err);
}

/* Point server i at server to (the new primary). 0 or IDB_EIO. */
static int follow(idb_ctrsrv *cs, int i, int to, idb_err *err)
{
    if (cs->backend == IDB_BACKEND_POSTGRES) {
        char sql[SQL_MAX];
        snprintf(sql, sizeof sql, "ALTER SYSTEM SET primary_conninfo = 'host=%s port=5432 "
                 "user=%s'", idb_server_socket_dir(cs->group[to]),
                 idb_server_user(cs->group[to]));
        int rc = pg_query(cs->group[i], sql, NULL, err);
        return rc ? rc : pg_query(cs->group[i], "SELECT pg_reload_conf()", NULL, err);
    }
    char port[16];
    snprintf(port, sizeof port, "%d", idb_server_port(cs->group[to]));
    const char *argv[] = { "REPLICAOF", "127.0.0.1", port };
    return rd_exec(cs->group[i], argv, 3, NULL, 0, err);
}

/* Lag (see ctrsrv.h). */
int idb_ctrsrv_lag(idb_ctrsrv *cs, idb_err *err)
{
    if (cs->ngroup < 2)
        return idb_fail(err, IDB_EINPUT, "failover-lagged: the counter server has no "
                        "replicas (replicas=R)");
    if (cs->backend != IDB_BACKEND_POSTGRES) {
        const char *argv[] = { "REPLICAOF", "127.0.0.1", "1" };
        for (int i = 0; i < cs->ngroup; i++)
            if (i != cs->primary && rd_exec(cs->group[i], argv, 3, NULL, 0, err)) return IDB_EIO;
        return 0;
    }
    PGconn *c = pg_open(cs->srv, err);
    if (!c) return IDB_EIO;
    PGresult *r = PQexec(c, "SELECT pid FROM pg_stat_replication");
    int rc = PQresultStatus(r) == PGRES_TUPLES_OK ? 0
           : idb_fail(err, IDB_EIO, "postgres: pg_stat_replication: %s",
                      strtok(PQresultErrorMessage(r), "\n"));
    for (int i = 0; !rc && i < PQntuples(r) && cs->nlag < IDB_CTRSRV_GROUP_MAX; i++) {
        int pid = atoi(PQgetvalue(r, i, 0));
        if (pid > 0 && kill(pid, SIGSTOP) == 0) cs->lag_pid[cs->nlag++] = pid;
    }
    if (!rc && cs->nlag < cs->ngroup - 1)
        rc = idb_fail(err, IDB_EIO, "failover-lagged: %d of %d walsenders stopped", cs->nlag,
                      cs->ngroup - 1);
    PQclear(r);
    PQfinish(c);
    return rc;
}

/* The failover (see ctrsrv.h). */
int idb_ctrsrv_failover(idb_ctrsrv *cs, idb_err *err)
{
    if (cs->ngroup < 2)
        return idb_fail(err, IDB_EINPUT, "failover-counter: the counter server has no "
                        "replicas (replicas=R)");
    int best = -1;
    long long best_pos[2] = { -1, -1 };
    for (int i = 0; i < cs->ngroup; i++) {
        long long pos[2];
        if (i == cs->primary || !idb_server_alive(cs->group[i])) continue;
        if (position(cs, i, pos, err)) return IDB_EIO;
        if (pos[0] > best_pos[0] || (pos[0] == best_pos[0] && pos[1] > best_pos[1])) {
            best = i;
            memcpy(best_pos, pos, sizeof pos);
        }
    }
    if (best < 0) return idb_fail(err, IDB_EIO, "failover-counter: no live replica");
    int rc = promote(cs, best, err);
    for (int i = 0; i < cs->ngroup && !rc; i++)
        if (i != best && i != cs->primary && idb_server_alive(cs->group[i]))
            rc = follow(cs, i, best, err);
    if (rc) return rc;
    cs->primary = best;
    cs->srv = cs->group[best];
    return 0;
}

/* Sentinel ------------------------------------------------------------------------------ */

#define SENTINEL_QUORUM 1             /* one Sentinel: its own vote decides */
#define SENTINEL_DOWN_MS 200          /* down-after-milliseconds: a detector's delay */
#define SENTINEL_FAILOVER_MS 1000     /* failover-timeout */
#define SENTINEL_SETTINGS 4
#define SWITCH_WAIT_MS 5000           /* the report waits this long for +switch-master */

/* SENTINEL ARG idbench on the Sentinel: its reply (the caller frees it) or NULL. */
static redisReply *sentinel_ask(idb_ctrsrv *cs, const char *arg, idb_err *err)
{
    redisContext *c = rd_open(cs->sentinel, err);
    if (!c) return NULL;
    redisReply *r = redisCommand(c, "SENTINEL %s " IDB_REMOTE_SENTINEL_MASTER, arg);
    if (!r || r->type != REDIS_REPLY_ARRAY) {
        idb_fail(err, IDB_EIO, "sentinel: SENTINEL %s: %s", arg,
                 r && r->type == REDIS_REPLY_ERROR ? r->str : c->errstr[0] ? c->errstr
                 : "not a list");
        freeReplyObject(r);
        r = NULL;
    }
    redisFree(c);
    return r;
}

/* The value of field name in a flat [name, value, ...] reply, or NULL. */
static const char *field(const redisReply *r, const char *name)
{
    for (size_t i = 0; i + 1 < r->elements; i += 2)
        if (r->element[i]->type == REDIS_REPLY_STRING && strcmp(r->element[i]->str, name) == 0
            && r->element[i + 1]->type == REDIS_REPLY_STRING)
            return r->element[i + 1]->str;
    return NULL;
}

/* Start Sentinel (see ctrsrv.h). Its config (DIR/sentinel/sentinel.conf, 0600, the redis
 * user's: it rewrites it) monitors the primary's loopback port inside the namespace. */
int idb_ctrsrv_sentinel_start(idb_ctrsrv *cs, const char *secret, idb_err *err)
{
    char dir[PATH_MAX + 16], set[SENTINEL_SETTINGS][SQL_MAX];
    const char *settings[SENTINEL_SETTINGS];
    const char *m = IDB_REMOTE_SENTINEL_MASTER;
    snprintf(set[0], SQL_MAX, "sentinel=monitor %s 127.0.0.1 %d %d", m,
             idb_server_port(cs->srv), SENTINEL_QUORUM);
    snprintf(set[1], SQL_MAX, "sentinel=auth-pass %s %s", m, secret);
    snprintf(set[2], SQL_MAX, "sentinel=down-after-milliseconds %s %d", m, SENTINEL_DOWN_MS);
    snprintf(set[3], SQL_MAX, "sentinel=failover-timeout %s %d", m, SENTINEL_FAILOVER_MS);
    for (int i = 0; i < SENTINEL_SETTINGS; i++) settings[i] = set[i];
    snprintf(dir, sizeof dir, "%s/sentinel", cs->dir);
    idb_server_conf conf = { .kind = "sentinel", .dir = dir, .settings = settings,
                             .nsettings = SENTINEL_SETTINGS, .tcp = 1, .secret = secret };
    int rc = idb_server_start(&conf, &cs->sentinel, err);
    explicit_bzero(set, sizeof set);
    if (rc) return rc;
    long long known = 0;
    for (long waited = 0; waited < STREAM_WAIT_MS * 1000000L; waited += POLL_NS) {
        idb_err why = { 0 };
        redisReply *r = sentinel_ask(cs, "master", &why);
        const char *v = r ? field(r, "num-slaves") : NULL;
        known = v ? atoll(v) : 0;
        freeReplyObject(r);
        if (known >= cs->ngroup - 1) return 0;
        nap();
    }
    return idb_fail(err, IDB_EIO, "sentinel knows %lld of %d replicas after %d s", known,
                    cs->ngroup - 1, STREAM_WAIT_MS / 1000);
}

/* The calls of command name in INFO commandstats text ("cmdstat_NAME:calls=N"), or 0. */
static long long calls(const char *text, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, "cmdstat_%s:calls=", name);
    const char *p = strstr(text, key);
    return p ? atoll(p + strlen(key)) : 0;
}

/* What Sentinel did (see ctrsrv.h). */
int idb_ctrsrv_sentinel_report(idb_ctrsrv *cs, char *line, size_t len, idb_err *err)
{
    if (!cs->sentinel) return idb_fail(err, IDB_EIO, "sentinel: none was started");
    int port = -1, who = -1, old = idb_server_port(cs->group[cs->primary]);
    long long epoch = -1;
    for (long waited = 0; waited < SWITCH_WAIT_MS * 1000000L; waited += POLL_NS) {
        redisReply *r = sentinel_ask(cs, "master", err);   /* the switch, once it ends */
        if (!r) return IDB_EIO;
        const char *p = field(r, "port"), *e = field(r, "config-epoch");
        port = p ? atoi(p) : -1;
        epoch = e ? atoll(e) : -1;
        freeReplyObject(r);
        if (port != old) break;
        nap();
    }
    for (int i = 0; i < cs->ngroup; i++)
        if (idb_server_port(cs->group[i]) == port) who = i;
    if (who < 0) return idb_fail(err, IDB_EIO, "sentinel: names port %d, not the group's", port);
    char stats[8192] = "";
    const char *argv[] = { "INFO", "commandstats" };
    if (idb_server_alive(cs->group[who]) &&
        rd_exec(cs->group[who], argv, 2, stats, sizeof stats, err))
        return IDB_EIO;
    snprintf(line, len, "the primary is %s%d (port %d): promoted by Sentinel at config-epoch "
             "%lld; SLAVEOF calls on it: %lld, REPLICAOF calls: %lld",
             who ? "replica-" : "server ", who, port, epoch, calls(stats, "slaveof"),
             calls(stats, "replicaof"));
    cs->primary = who;
    cs->srv = cs->group[who];
    return 0;
}
