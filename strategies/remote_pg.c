/* remote_pg.c — the PostgreSQL client of the remote counter (remote_int.h), on libpq.
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
 * its non-blocking calls (PQconnectStart/Poll, PQsendQueryPrepared, PQconsumeInput).
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

/* Wait until conn's socket is readable (or writable), or the deadline. 0 or IDB_EUNAVAIL. */
static int wait_sock(PGconn *conn, int write, int64_t deadline, idb_err *err)
{
    struct pollfd p = { .fd = PQsocket(conn), .events = write ? POLLOUT : POLLIN };
    if (p.fd < 0) return idb_fail(err, IDB_EUNAVAIL, "postgres: no connection");
    int n;
    do n = poll(&p, 1, idb_remote_ms_left(deadline)); while (n < 0 && errno == EINTR);
    if (n == 0) return idb_fail(err, IDB_EUNAVAIL, "postgres: no answer in time");
    return n < 0 ? idb_fail(err, IDB_EUNAVAIL, "postgres: poll: %s", strerror(errno)) : 0;
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

/* The results of the statement sent on conn, until none is left; the last kept in *res
 * (the caller clears it). 0 or IDB_EUNAVAIL. */
static int wait_result(PGconn *conn, int64_t deadline, PGresult **res, idb_err *err)
{
    *res = NULL;
    for (;;) {
        while (PQisBusy(conn)) {
            int rc = wait_sock(conn, 0, deadline, err);
            if (rc) return rc;
            if (!PQconsumeInput(conn)) return pg_fail(conn, IDB_EUNAVAIL, "read", err);
        }
        PGresult *r = PQgetResult(conn);
        if (!r) return *res ? 0 : pg_fail(conn, IDB_EUNAVAIL, "no result", err);
        PQclear(*res);
        *res = r;
    }
}

/* Flush what PQsend* queued, before the deadline. 0 or IDB_EUNAVAIL. */
static int flush(PGconn *conn, int64_t deadline, idb_err *err)
{
    int f;
    while ((f = PQflush(conn)) == 1) {
        int rc = wait_sock(conn, 1, deadline, err);
        if (rc) return rc;
    }
    return f == 0 ? 0 : pg_fail(conn, IDB_EUNAVAIL, "send", err);
}

/* One statement with no parameters and no rows wanted, before the deadline. */
static int run_sql(PGconn *conn, const char *sql, int64_t deadline, idb_err *err)
{
    if (!PQsendQuery(conn, sql)) return pg_fail(conn, IDB_EIO, "send", err);
    PGresult *res;
    int rc = flush(conn, deadline, err);
    if (!rc) rc = wait_result(conn, deadline, &res, err);
    if (rc) return rc;
    ExecStatusType st = PQresultStatus(res);
    PQclear(res);
    return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? 0 : pg_fail(conn, IDB_EIO, sql, err);
}

/* Make the sequence or the leaf_alloc row when missing (IF NOT EXISTS, ON CONFLICT). */
static int setup(PGconn *conn, const idb_remote_conf *c, int64_t deadline, idb_err *err)
{
    char sql[SQL_MAX];
    if (c->mode == IDB_REMOTE_SEQUENCE) {
        snprintf(sql, sizeof sql, "CREATE SEQUENCE IF NOT EXISTS \"%s\"", c->name);
        return run_sql(conn, sql, deadline, err);
    }
    int rc = run_sql(conn, "CREATE TABLE IF NOT EXISTS leaf_alloc(biz_tag text PRIMARY KEY,"
                     " max_id bigint NOT NULL)", deadline, err);
    snprintf(sql, sizeof sql, "INSERT INTO leaf_alloc VALUES ('%s', 0) ON CONFLICT DO NOTHING",
             c->name);                               /* the name is [A-Za-z0-9_]: checked */
    return rc ? rc : run_sql(conn, sql, deadline, err);
}

/* Prepare the take statement on conn. */
static int prepare(PGconn *conn, const idb_remote_conf *c, int64_t deadline, idb_err *err)
{
    char sql[SQL_MAX];
    if (c->mode == IDB_REMOTE_SEQUENCE)
        snprintf(sql, sizeof sql, "SELECT nextval('\"%s\"')", c->name);
    else
        snprintf(sql, sizeof sql, "UPDATE leaf_alloc SET max_id = max_id + $1::bigint "
                 "WHERE biz_tag = '%s' RETURNING max_id", c->name);
    if (!PQsendPrepare(conn, STMT, sql, 0, NULL)) return pg_fail(conn, IDB_EIO, "prepare", err);
    PGresult *res;
    int rc = flush(conn, deadline, err);
    if (!rc) rc = wait_result(conn, deadline, &res, err);
    if (rc) return rc;
    ExecStatusType st = PQresultStatus(res);
    PQclear(res);
    return st == PGRES_COMMAND_OK ? 0 : pg_fail(conn, IDB_EIO, "prepare", err);
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

/* Drive PQconnectPoll until connected or the deadline. */
static int connect_poll(PGconn *conn, int64_t deadline, idb_err *err)
{
    for (;;) {
        PostgresPollingStatusType s = PQconnectPoll(conn);
        if (s == PGRES_POLLING_OK) return 0;
        if (s == PGRES_POLLING_FAILED) return pg_fail(conn, IDB_EUNAVAIL, "connect", err);
        int rc = wait_sock(conn, s == PGRES_POLLING_WRITING, deadline, err);
        if (rc) return rc;
    }
}

/* Server notices (e.g. "already exists, skipping") are not idbench's output. */
static void quiet(void *arg, const char *message)
{
    (void)arg; (void)message;
}

static int pg_connect(const idb_remote_conf *c, int setup_it, int64_t deadline, void **out,
                      idb_err *err)
{
    PGconn *conn = PQconnectStart(c->addr);
    if (!conn) return idb_fail(err, IDB_ENOMEM, "postgres: out of memory");
    int rc = PQstatus(conn) == CONNECTION_BAD ? pg_fail(conn, IDB_EUNAVAIL, "connect", err)
                                              : connect_poll(conn, deadline, err);
    if (!rc) PQsetNoticeProcessor(conn, quiet, NULL);
    if (!rc && PQsetnonblocking(conn, 1) != 0) rc = pg_fail(conn, IDB_EIO, "nonblocking", err);
    int64_t setup_by = idb_remote_now_ns() + SETUP_MIN_NS;   /* not an order's round trip */
    if (setup_by < deadline) setup_by = deadline;
    if (!rc && setup_it) rc = setup(conn, c, setup_by, err);
    if (!rc) rc = prepare(conn, c, setup_it ? setup_by : deadline, err);
    if (rc) { PQfinish(conn); return rc; }
    *out = conn;
    return 0;
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

static int pg_take(void *cp, const idb_remote_conf *c, uint64_t n, int64_t deadline,
                   uint64_t *first, idb_err *err)
{
    PGconn *conn = cp;
    if (c->mode == IDB_REMOTE_SEQUENCE && n != 1)
        return idb_fail(err, IDB_EIO, "postgres: a sequence hands out one number at a time");
    char nt[24];
    snprintf(nt, sizeof nt, "%" PRIu64, n);
    const char *params[] = { nt };
    int np = c->mode == IDB_REMOTE_BLOCK ? 1 : 0;
    if (!PQsendQueryPrepared(conn, STMT, np, np ? params : NULL, NULL, NULL, 0))
        return pg_fail(conn, IDB_EUNAVAIL, "send", err);
    PGresult *res;
    int rc = flush(conn, deadline, err);
    if (!rc) rc = wait_result(conn, deadline, &res, err);
    if (rc) return rc;
    int64_t v = 0;
    rc = PQresultStatus(res) == PGRES_TUPLES_OK ? one_value(res, &v, err)
                                                : pg_fail(conn, IDB_EIO, "take", err);
    PQclear(res);
    if (!rc && (uint64_t)v < n)
        rc = idb_fail(err, IDB_EIO, "postgres: max_id %lld is below the block", (long long)v);
    if (!rc) *first = (uint64_t)v - n + 1;
    return rc;
}

static void pg_close(void *conn)
{
    PQfinish(conn);
}

const idb_remote_driver idb_remote_pg = {
    .name = "postgres",
    .check = pg_check,
    .connect = pg_connect,
    .take = pg_take,
    .close = pg_close,
};
