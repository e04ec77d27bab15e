/* wlease_coord.c — the two coordinators of the worker leases (wlease_int.h).
 *
 * etcd: worker W is the key "idbench/workers/W". A generator grants itself a lease (TTL =
 * lease_ms in whole seconds, rounded up; at least 2) and creates the first free key with it
 * in a transaction that succeeds only while the key is absent (compare create_revision = 0);
 * it renews with /v3/lease/keepalive, whose answer has no TTL once the lease has run out
 * (etcd then deleted the key: another generator can create it).
 * postgres: the table worker_lease (worker PRIMARY KEY, holder, heartbeat), one row per
 * worker of the pool. A generator takes the lowest worker whose heartbeat is older than
 * lease_ms (SELECT ... FOR UPDATE SKIP LOCKED, so two never wait on one row) and writes its
 * name and the time into it; it renews by moving the heartbeat, only while the row is still
 * its own and not expired (the server's clock decides, as etcd's does).
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etcd_http.h"
#include "wlease_int.h"

#define ETCD_TIMEOUT_MS 2000
#define ETCD_BODY_MAX 4096
#define ETCD_TTL_MIN 2

/* POST body to etcd's path; the answer in out. 0 (HTTP 200) or IDB_EUNAVAIL. */
static int etcd_post(wl_session *s, const char *path, const char *body, char *out,
                     idb_err *err)
{
    int st = idb_etcd_call(s->addr, "POST", path, body, out, ETCD_BODY_MAX, ETCD_TIMEOUT_MS,
                           err);
    if (st < 0) return st;
    return st == 200 ? 0 : idb_fail(err, IDB_EUNAVAIL, "etcd %s: HTTP %d: %.120s", path, st, out);
}

static int etcd_open(wl_session *s, idb_err *err)
{
    (void)s;
    (void)err;
    return 0;
}

/* A new lease, then the first absent key of the pool created with it. */
static int etcd_acquire(wl_session *s, idb_err *err)
{
    char body[512], out[ETCD_BODY_MAX], key[64], k64[96], v64[128], ok[16];
    int ttl = (s->lease_ms + 999) / 1000;
    snprintf(body, sizeof body, "{\"TTL\":%d}", ttl < ETCD_TTL_MIN ? ETCD_TTL_MIN : ttl);
    int rc = etcd_post(s, "/v3/lease/grant", body, out, err);
    if (rc) return rc;
    if (!idb_etcd_field(out, "ID", s->lease, sizeof s->lease))
        return idb_fail(err, IDB_EUNAVAIL, "etcd: a lease grant without an ID: %.120s", out);
    idb_etcd_base64(s->holder, strlen(s->holder), v64, sizeof v64);
    for (int w = 0; w < s->workers; w++) {
        snprintf(key, sizeof key, WL_PREFIX "%d", w);
        idb_etcd_base64(key, strlen(key), k64, sizeof k64);
        snprintf(body, sizeof body, "{\"compare\":[{\"key\":\"%s\",\"target\":\"CREATE\","
                 "\"result\":\"EQUAL\",\"create_revision\":\"0\"}],\"success\":[{"
                 "\"request_put\":{\"key\":\"%s\",\"value\":\"%s\",\"lease\":\"%s\"}}]}",
                 k64, k64, v64, s->lease);
        if ((rc = etcd_post(s, "/v3/kv/txn", body, out, err))) return rc;
        if (idb_etcd_field(out, "succeeded", ok, sizeof ok) && !strcmp(ok, "true")) {
            s->worker = w;
            return 0;
        }
    }
    return IDB_EBUSY;                   /* this lease holds nothing: it runs out unused */
}

/* Keep-alive: an answer with a TTL above 0 is a lease still held. */
static int etcd_renew(wl_session *s, idb_err *err)
{
    char body[128], out[ETCD_BODY_MAX], ttl[32];
    snprintf(body, sizeof body, "{\"ID\":\"%s\"}", s->lease);
    int rc = etcd_post(s, "/v3/lease/keepalive", body, out, err);
    if (rc) return rc;
    return idb_etcd_field(out, "TTL", ttl, sizeof ttl) && atoll(ttl) > 0 ? 0 : IDB_EBUSY;
}

static void etcd_close(wl_session *s) { (void)s; }

static int etcd_setup(const char *addr, int workers, idb_err *err)
{
    (void)addr;
    (void)workers;
    (void)err;
    return 0;
}

const wl_coord wl_coord_etcd = {
    "etcd", "etcd", etcd_open, etcd_acquire, etcd_renew, etcd_close, etcd_setup,
};

/* One statement with text parameters; its result (PGRES_TUPLES_OK / COMMAND_OK) or NULL
 * with err (IDB_EUNAVAIL). The caller clears it. */
static PGresult *pg_run(PGconn *c, const char *sql, int n, const char *const *p, idb_err *err)
{
    PGresult *r = PQexecParams(c, sql, n, NULL, p, NULL, NULL, 0);
    ExecStatusType st = PQresultStatus(r);
    if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) return r;
    idb_fail(err, IDB_EUNAVAIL, "lease table: %s", PQerrorMessage(c));
    PQclear(r);
    return NULL;
}

static int pg_open(wl_session *s, idb_err *err)
{
    PGconn *c = PQconnectdb(s->addr);
    if (PQstatus(c) != CONNECTION_OK) {
        idb_fail(err, IDB_EUNAVAIL, "lease table: cannot connect: %s", PQerrorMessage(c));
        PQfinish(c);
        return IDB_EUNAVAIL;
    }
    s->conn = c;
    return 0;
}

/* The lowest expired worker, locked without waiting, made ours. */
static int pg_acquire(wl_session *s, idb_err *err)
{
    char ms[32];
    snprintf(ms, sizeof ms, "%d", s->lease_ms);
    const char *p[] = { s->holder, ms };
    PGresult *r = pg_run(s->conn, "UPDATE " WL_TABLE " SET holder = $1, heartbeat = "
                         "clock_timestamp() WHERE worker = (SELECT worker FROM " WL_TABLE
                         " WHERE heartbeat < clock_timestamp() - $2::int * interval '1 ms' "
                         "ORDER BY worker LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING worker",
                         2, p, err);
    if (!r) return IDB_EUNAVAIL;
    int got = PQntuples(r) == 1;
    if (got) s->worker = atoi(PQgetvalue(r, 0, 0));
    PQclear(r);
    return got ? 0 : IDB_EBUSY;
}

/* The heartbeat moved, while the row is ours and not expired. */
static int pg_renew(wl_session *s, idb_err *err)
{
    char ms[32], w[16];
    snprintf(ms, sizeof ms, "%d", s->lease_ms);
    snprintf(w, sizeof w, "%d", s->worker);
    const char *p[] = { w, s->holder, ms };
    PGresult *r = pg_run(s->conn, "UPDATE " WL_TABLE " SET heartbeat = clock_timestamp() "
                         "WHERE worker = $1::int AND holder = $2 AND heartbeat >= "
                         "clock_timestamp() - $3::int * interval '1 ms' RETURNING worker",
                         3, p, err);
    if (!r) return IDB_EUNAVAIL;
    int held = PQntuples(r) == 1;
    PQclear(r);
    return held ? 0 : IDB_EBUSY;
}

static void pg_close(wl_session *s)
{
    PQfinish(s->conn);
    s->conn = NULL;
}

/* The table with one row per worker, every heartbeat -infinity (free). */
static int pg_setup(const char *addr, int workers, idb_err *err)
{
    wl_session s = { .addr = addr };
    char n[16];
    snprintf(n, sizeof n, "%d", workers - 1);
    const char *p[] = { n };
    int rc = pg_open(&s, err);
    PGresult *r = rc ? NULL : pg_run(s.conn, "CREATE TABLE " WL_TABLE " (worker int PRIMARY "
                                     "KEY, holder text, heartbeat timestamptz NOT NULL "
                                     "DEFAULT '-infinity')", 0, NULL, err);
    if (r) {
        PQclear(r);
        r = pg_run(s.conn, "INSERT INTO " WL_TABLE " (worker) SELECT generate_series(0, "
                   "$1::int)", 1, p, err);
    }
    if (!rc && !r) rc = IDB_EIO;
    PQclear(r);
    if (s.conn) pg_close(&s);
    return rc;
}

const wl_coord wl_coord_postgres = {
    "postgres", "postgres", pg_open, pg_acquire, pg_renew, pg_close, pg_setup,
};
