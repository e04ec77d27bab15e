/* pg_read.c — the postgres store's read side (store.h version 3: open_read, get,
 * read_counts; close_read is the store's close): point lookups on what an insert run left.
 *
 * An insert run on private servers leaves each shard's data directory in
 * DIR/shard-K/postgres (the server is stopped at the run's end; the schema is dropped only on
 * a user's server). open_read restarts that server on the kept data, with the run's
 * settings (pg_server.c: the same private socket, no TCP), and reads from the newest schema
 * idbench_* holding an orders table (a DIR filled twice holds two). A fresh server's
 * shared_buffers are empty, and no pg_prewarm autoprewarm runs (no shared_preload_libraries):
 * with a cold cache the read runner has also dropped the OS page cache of the data files
 * before the start (read.c). A run on a user's server (dsn=, dsn_file=) is refused: its
 * schema is gone and its server is not idbench's to restart.
 *
 * A lookup is one prepared statement, SELECT ... FROM orders WHERE id = $1, binary
 * parameter and results, in autocommit, its row checked as scan() checks (pg_row).
 * Queries (read --pattern range|shop; store.h idb_query) are prepared statements too, one
 * per kind at its first use, all rows in one result, the planner choosing the index
 * (orders_created, orders_shop: secondary_created=1, secondary_shop=1).
 * misses: the blocks of orders and its indexes read from outside shared_buffers
 * (pg_statio_all_tables heap_blks_read + idx_blks_read, after a forced stats flush), since
 * open_read. read_pages: unknown (-1), as in insert's figures: the server does not count
 * reads per table outside its buffer manager (each miss is one block read from the OS).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pg_int.h"
#include "pg_server.h"

#define PG_LOOKUP "lookup"
#define PG_LOOKUP_SQL "SELECT id, shop, display_no, created_ms, total_cents, payload " \
                      "FROM orders WHERE id = $1"
#define PG_FIND_SCHEMA "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON " \
    "n.oid = c.relnamespace WHERE c.relname = 'orders' AND c.relkind = 'r' AND " \
    "n.nspname LIKE 'idbench\\_%' ORDER BY n.oid DESC LIMIT 1"

/* Refuse what cannot be read before anything starts: a user's server, a shard directory
 * without a PostgreSQL data directory (a start would initdb a new, empty one). */
static int read_check(const char *dir, const idb_opts *o, int key_bytes, idb_err *err)
{
    char path[PATH_MAX];
    struct stat sb;
    int rc = pg_check(o, key_bytes, err);
    if (rc) return rc;
    if (idb_opts_str(o, "dsn")[0] || idb_opts_str(o, "dsn_file")[0])
        return idb_fail(err, IDB_EINPUT, "postgres: read restarts the run's private servers; "
                        "a run on a user's server (dsn=, dsn_file=) cannot be read");
    if ((size_t)snprintf(path, sizeof path, "%s/postgres/data/PG_VERSION", dir) >= sizeof path)
        return idb_fail(err, IDB_EINPUT, "postgres: directory name too long: %s", dir);
    if (lstat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return idb_fail(err, IDB_EINPUT, "postgres: %s holds no PostgreSQL data (no %s)", dir,
                        path);
    return 0;
}

/* The newest idbench schema with an orders table made the search path. IDB_EINPUT when
 * there is none. */
static int use_schema(pg_store *s, idb_err *err)
{
    PGresult *r;
    int rc = pg_exec(s, PG_FIND_SCHEMA, PGRES_TUPLES_OK, &r, "finding the run's schema", err);
    if (rc) return rc;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return idb_fail(err, IDB_EINPUT, "postgres: shard %d: the server holds no orders table "
                        "of an idbench run", s->shard);
    }
    snprintf(s->schema, sizeof s->schema, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
    char sql[PG_NAME_MAX + 32];
    snprintf(sql, sizeof sql, "SET search_path = %s", s->schema);
    return pg_exec(s, sql, PGRES_COMMAND_OK, NULL, "search_path", err);
}

int pg_open_read(const char *dir, const idb_opts *o, int key_bytes, void **h, idb_err *err)
{
    int rc = read_check(dir, o, key_bytes, err);
    if (rc) return rc;
    pg_store *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    rc = pg_configure(s, o, key_bytes, err);
    if (!rc) rc = pg_server_start(dir, o, &s->srv, s->dsn, sizeof s->dsn, err);
    if (!rc) rc = pg_connect(s, o, err);
    if (!rc) rc = use_schema(s, err);
    if (!rc) {
        PGresult *r = PQprepare(s->c, PG_LOOKUP, PG_LOOKUP_SQL, 1, NULL);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) rc = pg_fail(s, err, IDB_EIO, "prepare");
        PQclear(r);
    }
    if (!rc) rc = pg_blocks_read(s, &s->read_base, err);
    if (rc) {
        pg_close(s);
        return rc;
    }
    *h = s;
    return 0;
}

int pg_get(void *h, const idb_id *id, idb_row *row, int *found, idb_err *err)
{
    pg_store *s = h;
    uint8_t key[IDB_ID_MAX];
    *found = 0;
    if (id->len != s->key_bytes) return 0;       /* no key of another width is stored */
    pg_key_encode(s, id, key);
    const char *v[] = { (const char *)key };
    const int len[] = { s->key_bytes }, fmt[] = { 1 };
    PGresult *r = PQexecPrepared(s->c, PG_LOOKUP, 1, v, len, fmt, 1);
    int rc = 0;
    if (PQresultStatus(r) != PGRES_TUPLES_OK) rc = pg_fail(s, err, IDB_EIO, "lookup");
    else if (PQntuples(r) > 1)
        rc = idb_fail(err, IDB_EIO, "postgres: shard %d: %d rows under one ID", s->shard,
                      PQntuples(r));
    else if (PQntuples(r) == 1 && !(rc = pg_row(s, r, 0, row, s->buf, err)))
        *found = 1;
    PQclear(r);
    return rc;
}

int pg_read_counts(void *h, int64_t *misses, int64_t *read_pages, idb_err *err)
{
    pg_store *s = h;
    int64_t n;
    int rc = pg_blocks_read(s, &n, err);
    if (rc) return rc;
    *misses = n < 0 || s->read_base < 0 ? -1 : n - s->read_base;
    *read_pages = -1;
    return 0;
}

/* The query statements by idb_query kind (binary parameters: the key, created_lo as bigint,
 * shop as integer; the columns pg_row reads). */
static const char *const pg_queries[] = {
    [IDB_QUERY_ID_FROM] = "SELECT id, shop, display_no, created_ms, total_cents, payload FROM "
                          "orders WHERE id >= $1 AND created_ms >= $2",
    [IDB_QUERY_CREATED_FROM] = "SELECT id, shop, display_no, created_ms, total_cents, payload "
                               "FROM orders WHERE created_ms >= $1",
    [IDB_QUERY_SHOP] = "SELECT id, shop, display_no, created_ms, total_cents, payload FROM "
                       "orders WHERE shop = $1 AND created_ms >= $2",
};

int pg_query(void *h, const idb_query *q, int (*fn)(void *ctx, const idb_row *row), void *ctx,
             idb_err *err)
{
    pg_store *s = h;
    char name[16];
    uint8_t key[IDB_ID_MAX], lo[8], shop[4];
    if (q->kind < 0 || q->kind > IDB_QUERY_SHOP ||
        (q->kind == IDB_QUERY_ID_FROM && q->id_lo.len != s->key_bytes))
        return idb_fail(err, IDB_EINPUT, "postgres: a query of unknown kind or bound");
    snprintf(name, sizeof name, "query%d", q->kind);
    if (!(s->queries_prepared & (1 << q->kind))) {
        PGresult *r = PQprepare(s->c, name, pg_queries[q->kind], 0, NULL);
        int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
        if (!ok) return pg_fail(s, err, IDB_EIO, "preparing a query");
        s->queries_prepared |= 1 << q->kind;
    }
    idb_put_be(lo, (uint64_t)q->created_lo, 8);
    idb_put_be(shop, q->shop, 4);
    const char *v[2];
    int len[2], n = 0;
    const int fmt[2] = { 1, 1 };
    if (q->kind == IDB_QUERY_ID_FROM) {
        pg_key_encode(s, &q->id_lo, key);
        v[n] = (const char *)key, len[n++] = s->key_bytes;
    } else if (q->kind == IDB_QUERY_SHOP) {
        v[n] = (const char *)shop, len[n++] = 4;
    }
    v[n] = (const char *)lo, len[n++] = 8;
    PGresult *r = PQexecPrepared(s->c, name, n, v, len, fmt, 1);
    int rc = PQresultStatus(r) == PGRES_TUPLES_OK ? 0 : pg_fail(s, err, IDB_EIO, "query");
    for (int i = 0; !rc && i < PQntuples(r); i++) {
        idb_row row = { 0 };
        rc = pg_row(s, r, i, &row, s->buf, err);
        if (!rc && fn(ctx, &row)) break;
    }
    PQclear(r);
    return rc;
}
