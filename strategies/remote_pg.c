/* remote_pg.c — the PostgreSQL client of the remote counter (remote_int.h), on libpq.
 *
 * Failover: the address may be a multi-host conninfo (host=A,B,C) with
 * target_session_attrs=read-write (what idbench hands out with replicas=R): libpq tries
 * each host in turn and keeps the one that accepts writes, so after a standby is promoted
 * new connections reach it with no help from the harness.
 *
 * Counter (IDB_REMOTE_SEQUENCE): a sequence called NAME, one `SELECT nextval('NAME')` per
 * take of 1 (n > 1: `SELECT nextval(..) FROM generate_series(1, n)` is not consecutive
 * under concurrency, so a sequence only hands out single numbers). Sequences are
 * WAL-logged: after a crash the sequence resumes past every number handed out (with a
 * gap), never below.
 * Block (IDB_REMOTE_BLOCK, Leaf's segment table):
 *
 *   leaf_alloc(biz_tag text PRIMARY KEY, max_id bigint NOT NULL)
 *   UPDATE leaf_alloc SET max_id = max_id + $2 WHERE biz_tag = $1 RETURNING max_id
 *
 * one statement, so one transaction, committed (synchronous_commit as the server has it)
 * before the block is used: numbers max_id - n + 1 .. max_id.
 *
 * Every wait is a poll() on the connection's socket with the deadline; libpq is used in
 * its non-blocking calls (PQconnectStart/Poll, PQsendQueryPrepared, PQconsumeInput). A
 * connection is a small state machine, so that a wait cut short by the deadline leaves it
 * where it was and the next take carries on (remote_int.h's keep):
 *
 *   CONNECTING --PQconnectPoll OK--> CONNECTED --PQsendPrepare--> PREPARING --result-->
 *   READY --PQsendQueryPrepared(n)--> TAKING(n) --result: the numbers--> READY
 *
 * A reply left coming for another n than the next take asks is read and dropped (a gap, as
 * sequences have after a crash). Why it matters: after a crash restart the first backend
 * rebuilds the relation cache's init files, which takes longer than a short timeout_ms; a
 * client that hung up at each deadline made the backend start over every time and never got
 * a connection (issue 12).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "remote_int.h"

#define STMT "idb_take"
#define SQL_MAX 512
#define SETUP_MIN_NS 10000000000LL   /* making the counter at create: at least 10 s */
#define LATE 1                       /* internal: the deadline came, the connection is fine */

enum pg_state { PG_CONNECTING, PG_CONNECTED, PG_PREPARING, PG_READY, PG_TAKING };

typedef struct pg_conn {
    PGconn *pg;
    enum pg_state state;
    PostgresPollingStatusType poll;  /* PG_CONNECTING: what PQconnectPoll waits for */
    PGresult *res;                   /* the last result of the statement in flight */
    uint64_t n;                      /* PG_TAKING: the numbers the statement in flight asks */
} pg_conn;

/* Wait until conn's socket is readable (or writable), or the deadline. 0, LATE (the
 * deadline came) or IDB_EUNAVAIL. */
static int wait_sock(PGconn *conn, int write, int64_t deadline, idb_err *err)
{
    struct pollfd p = { .fd = PQsocket(conn), .events = write ? POLLOUT : POLLIN };
    if (p.fd < 0) return idb_fail(err, IDB_EUNAVAIL, "postgres: no connection");
    int n;
    do n = poll(&p, 1, idb_remote_ms_left(deadline)); while (n < 0 && errno == EINTR);
    if (n == 0) {
        idb_fail(err, IDB_EUNAVAIL, "postgres: no answer in time");
        return LATE;
    }
    return n < 0 ? idb_fail(err, IDB_EUNAVAIL, "postgres: poll: %s", strerror(errno)) : 0;
}

/* rc with LATE made IDB_EUNAVAIL (its message is there), for waits that are not resumed. */
static int not_late(int rc)
{
    return rc == LATE ? IDB_EUNAVAIL : rc;
}

/* libpq's message, its last newline cut. */
static void pg_msg(PGconn *conn, char *buf, size_t len)
{
    snprintf(buf, len, "%s", PQerrorMessage(conn));
    buf[strcspn(buf, "\n")] = 0;                     /* libpq's hint lines: not on one line */
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ')) buf[--n] = 0;
}

/* A failure of conn: gone (IDB_EUNAVAIL, retried) or an answer (code). */
static int pg_fail(PGconn *conn, int code, const char *what, idb_err *err)
{
    char m[sizeof err->msg / 2];
    pg_msg(conn, m, sizeof m);
    int gone = PQstatus(conn) == CONNECTION_BAD;
    return idb_fail(err, gone ? IDB_EUNAVAIL : code, "postgres: %s: %s", what, m);
}

/* Flush what PQsend* queued, before the deadline. 0, LATE or IDB_EUNAVAIL. */
static int flush(PGconn *conn, int64_t deadline, idb_err *err)
{
    int f;
    while ((f = PQflush(conn)) == 1) {
        int rc = wait_sock(conn, 1, deadline, err);
        if (rc) return rc;
    }
    return f == 0 ? 0 : pg_fail(conn, IDB_EUNAVAIL, "send", err);
}

/* Send what is queued and read the results of the statement in flight until none is left,
 * the last kept in pc->res (whoever moves pc to the next state clears it). 0, LATE (call
 * again to carry on) or IDB_EUNAVAIL. */
static int finish(pg_conn *pc, int64_t deadline, idb_err *err)
{
    int rc = flush(pc->pg, deadline, err);
    while (!rc) {
        while (!rc && PQisBusy(pc->pg)) {
            rc = wait_sock(pc->pg, 0, deadline, err);
            if (!rc && !PQconsumeInput(pc->pg)) rc = pg_fail(pc->pg, IDB_EUNAVAIL, "read", err);
        }
        if (rc) break;
        PGresult *r = PQgetResult(pc->pg);
        if (!r) return pc->res ? 0 : pg_fail(pc->pg, IDB_EUNAVAIL, "no result", err);
        PQclear(pc->res);
        pc->res = r;
    }
    return rc;
}

/* The finished statement's status against want: 0 (pc READY), or IDB_EIO; pc->res cleared. */
static int finished(pg_conn *pc, ExecStatusType want, const char *what, idb_err *err)
{
    ExecStatusType st = PQresultStatus(pc->res);
    PQclear(pc->res);
    pc->res = NULL;
    pc->state = PG_READY;
    return st == want ? 0 : pg_fail(pc->pg, IDB_EIO, what, err);
}

/* One statement with no parameters and no rows wanted, before the deadline. */
static int run_sql(pg_conn *pc, const char *sql, int64_t deadline, idb_err *err)
{
    if (!PQsendQuery(pc->pg, sql)) return pg_fail(pc->pg, IDB_EIO, "send", err);
    int rc = not_late(finish(pc, deadline, err));
    if (rc) return rc;
    ExecStatusType st = PQresultStatus(pc->res);
    PQclear(pc->res);
    pc->res = NULL;
    return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? 0
                                                          : pg_fail(pc->pg, IDB_EIO, sql, err);
}

/* Make the sequence or the leaf_alloc row when missing (IF NOT EXISTS, ON CONFLICT). */
static int make_counter(pg_conn *pc, const idb_remote_conf *c, int64_t deadline, idb_err *err)
{
    char sql[SQL_MAX];
    if (c->mode == IDB_REMOTE_SEQUENCE) {
        snprintf(sql, sizeof sql, "CREATE SEQUENCE IF NOT EXISTS \"%s\" CACHE %d", c->name,
                 c->seq_cache > 1 ? c->seq_cache : 1);
        return run_sql(pc, sql, deadline, err);
    }
    int rc = run_sql(pc, "CREATE TABLE IF NOT EXISTS leaf_alloc(biz_tag text PRIMARY KEY,"
                     " max_id bigint NOT NULL)", deadline, err);
    snprintf(sql, sizeof sql, "INSERT INTO leaf_alloc VALUES ('%s', 0) ON CONFLICT DO NOTHING",
             c->name);                               /* the name is [A-Za-z0-9_]: checked */
    return rc ? rc : run_sql(pc, sql, deadline, err);
}

/* Send the preparation of the take statement (pc: CONNECTED -> PREPARING). */
static int send_prepare(pg_conn *pc, const idb_remote_conf *c, idb_err *err)
{
    char sql[SQL_MAX];
    if (c->mode == IDB_REMOTE_SEQUENCE)
        snprintf(sql, sizeof sql, "SELECT nextval('\"%s\"')", c->name);
    else
        snprintf(sql, sizeof sql, "UPDATE leaf_alloc SET max_id = max_id + $1::bigint "
                 "WHERE biz_tag = '%s' RETURNING max_id", c->name);
    if (!PQsendPrepare(pc->pg, STMT, sql, 0, NULL))
        return pg_fail(pc->pg, IDB_EIO, "prepare", err);
    pc->state = PG_PREPARING;
    return 0;
}

/* A malformed conninfo is bad input. */
static int pg_check(const idb_remote_conf *c, idb_err *err)
{
    char *msg = NULL;
    PQconninfoOption *o = PQconninfoParse(c->addr, &msg);
    if (o) { PQconninfoFree(o); return 0; }
    int rc = idb_fail(err, IDB_EINPUT, "dsn '%.64s': %s", c->addr,
                      msg ? strtok(msg, "\n") : "malformed");
    PQfreemem(msg);
    return rc;
}

/* Server notices (e.g. "already exists, skipping") are not idbench's output. */
static void quiet(void *arg, const char *message)
{
    (void)arg; (void)message;
}

/* Drive PQconnectPoll until connected (pc: CONNECTING -> CONNECTED) or the deadline.
 * 0, LATE or IDB_EUNAVAIL / IDB_EIO. */
static int connect_step(pg_conn *pc, int64_t deadline, idb_err *err)
{
    while (pc->poll != PGRES_POLLING_OK) {
        if (pc->poll == PGRES_POLLING_FAILED)
            return pg_fail(pc->pg, IDB_EUNAVAIL, "connect", err);
        int rc = wait_sock(pc->pg, pc->poll == PGRES_POLLING_WRITING, deadline, err);
        if (rc) return rc;
        pc->poll = PQconnectPoll(pc->pg);
    }
    PQsetNoticeProcessor(pc->pg, quiet, NULL);
    if (PQsetnonblocking(pc->pg, 1) != 0) return pg_fail(pc->pg, IDB_EIO, "nonblocking", err);
    pc->state = PG_CONNECTED;
    return 0;
}

/* Carry pc on to READY (or TAKING, a reply left coming) before the deadline. 0, LATE or a
 * failure. */
static int make_ready(pg_conn *pc, const idb_remote_conf *c, int64_t deadline, idb_err *err)
{
    int rc = 0;
    if (pc->state == PG_CONNECTING) rc = connect_step(pc, deadline, err);
    if (!rc && pc->state == PG_CONNECTED) rc = send_prepare(pc, c, err);
    if (!rc && pc->state == PG_PREPARING) {
        rc = finish(pc, deadline, err);
        if (!rc) rc = finished(pc, PGRES_COMMAND_OK, "prepare", err);
    }
    return rc;
}

/* Begin a connection (PQconnectStartParams: the conninfo, then the password when there is
 * one, read from secret_file by remote.c): take() or setup() completes it. */
static int pg_start(const idb_remote_conf *c, int64_t deadline, void **out, idb_err *err)
{
    (void)deadline;
    *out = NULL;
    pg_conn *pc = calloc(1, sizeof *pc);
    const char *const keys[] = { "dbname", c->secret ? "password" : NULL, NULL };
    const char *const values[] = { c->addr, c->secret, NULL };   /* the conninfo, expanded */
    if (!pc || !(pc->pg = PQconnectStartParams(keys, values, 1))) {
        free(pc);
        return idb_fail(err, IDB_ENOMEM, "postgres: out of memory");
    }
    pc->state = PG_CONNECTING;
    pc->poll = PGRES_POLLING_WRITING;                /* libpq: as if PQconnectPoll said so */
    if (PQstatus(pc->pg) == CONNECTION_BAD) {
        int rc = pg_fail(pc->pg, IDB_EUNAVAIL, "connect", err);
        PQfinish(pc->pg);
        free(pc);
        return rc;
    }
    *out = pc;
    return 0;
}

/* Connect by the deadline, then make the counter and prepare with at least SETUP_MIN_NS
 * (not an order's round trip). */
static int pg_setup(void *conn, const idb_remote_conf *c, int64_t deadline, idb_err *err)
{
    pg_conn *pc = conn;
    int rc = not_late(connect_step(pc, deadline, err));
    int64_t setup_by = idb_remote_now_ns() + SETUP_MIN_NS;
    if (setup_by < deadline) setup_by = deadline;
    if (!rc) rc = make_counter(pc, c, setup_by, err);
    if (!rc) rc = not_late(make_ready(pc, c, setup_by, err));
    return rc;
}

/* The one value of res as a number >= 1, or IDB_EIO (garbage). */
static int one_value(PGresult *res, int64_t *v, idb_err *err)
{
    char *end;
    if (PQntuples(res) != 1 || PQnfields(res) != 1 || PQgetisnull(res, 0, 0))
        return idb_fail(err, IDB_EIO, "postgres: the counter's reply has %d rows, not 1 "
                        "(is the leaf_alloc row there?)", PQntuples(res));
    const char *t = PQgetvalue(res, 0, 0);
    errno = 0;
    long long x = strtoll(t, &end, 10);
    if (errno || end == t || *end || x < 1)
        return idb_fail(err, IDB_EIO, "postgres: the counter's reply '%.32s' is not a number "
                        ">= 1", t);
    *v = x;
    return 0;
}

/* Send the take statement for n numbers (pc: READY -> TAKING). */
static int send_take(pg_conn *pc, const idb_remote_conf *c, uint64_t n, idb_err *err)
{
    char nt[24];
    snprintf(nt, sizeof nt, "%" PRIu64, n);
    const char *params[] = { nt };
    int np = c->mode == IDB_REMOTE_BLOCK ? 1 : 0;
    if (!PQsendQueryPrepared(pc->pg, STMT, np, np ? params : NULL, NULL, NULL, 0))
        return pg_fail(pc->pg, IDB_EUNAVAIL, "send", err);
    pc->state = PG_TAKING;
    pc->n = n;
    return 0;
}

/* The numbers of the finished take (pc: TAKING -> READY): *first, or IDB_EIO. */
static int taken(pg_conn *pc, uint64_t n, uint64_t *first, idb_err *err)
{
    int64_t v = 0;
    int rc = PQresultStatus(pc->res) == PGRES_TUPLES_OK ? one_value(pc->res, &v, err)
                                                        : pg_fail(pc->pg, IDB_EIO, "take", err);
    PQclear(pc->res);
    pc->res = NULL;
    pc->state = PG_READY;
    if (!rc && (uint64_t)v < n)
        rc = idb_fail(err, IDB_EIO, "postgres: max_id %lld is below the block", (long long)v);
    if (!rc) *first = (uint64_t)v - n + 1;
    return rc;
}

/* Complete pc, drop a reply left coming for another n, then one round trip. */
static int pg_take(void *conn, const idb_remote_conf *c, uint64_t n, int64_t deadline,
                   uint64_t *first, int *keep, idb_err *err)
{
    pg_conn *pc = conn;
    *keep = 0;
    if (c->mode == IDB_REMOTE_SEQUENCE && n != 1)
        return idb_fail(err, IDB_EIO, "postgres: a sequence hands out one number at a time");
    int rc = make_ready(pc, c, deadline, err);
    if (!rc && pc->state == PG_TAKING && pc->n != n) {
        rc = finish(pc, deadline, err);              /* numbers nobody takes: a gap */
        if (!rc) rc = taken(pc, pc->n, &(uint64_t){ 0 }, err);
    }
    if (!rc && pc->state == PG_READY) rc = send_take(pc, c, n, err);
    if (!rc) rc = finish(pc, deadline, err);
    if (rc == LATE) {
        *keep = 1;                                   /* healthy, only slow: resumed later */
        return IDB_EUNAVAIL;
    }
    return rc ? rc : taken(pc, n, first, err);
}

static void pg_close(void *conn)
{
    pg_conn *pc = conn;
    PQclear(pc->res);
    PQfinish(pc->pg);
    free(pc);
}

const idb_remote_driver idb_remote_pg = {
    .name = "postgres",
    .check = pg_check,
    .start = pg_start,
    .setup = pg_setup,
    .take = pg_take,
    .close = pg_close,
};
