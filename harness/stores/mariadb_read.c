/* mariadb_read.c — the mariadb store's read side (store.h version 3: open_read, get,
 * read_counts; close_read is the store's close, md_close): point lookups on what an insert
 * run left.
 *
 * An insert run on private servers leaves each shard's data in DIR/shard-K/mariadb (the
 * server is stopped at the run's end; the database is dropped only on a user's server).
 * open_read restarts that server on the kept data with the run's settings (mariadb_server.c:
 * its private socket, no networking) and innodb_buffer_pool_load_at_startup=0 and
 * innodb_buffer_pool_dump_at_shutdown=0, so the buffer pool starts empty (MariaDB would
 * otherwise load the pages the insert run's server dumped at its shutdown) and this read
 * leaves no dump behind; with a cold cache the read runner has also dropped the OS page
 * cache of the data files before the start (read.c). It reads from the newest database
 * idbench_* holding an orders table (a DIR filled twice holds two). A run on a user's server
 * (socket=, socket_file=) is refused.
 *
 * A lookup is one prepared statement, SELECT ... FROM orders WHERE id = ?, in autocommit
 * (each its own read), its row's payload checked against the key as scan() checks it.
 * Queries (read --pattern range|shop; store.h idb_query): one prepared statement per kind,
 * made at its first use, the planner choosing the index (orders_created, orders_shop:
 * secondary_created=1, secondary_shop=1), rows checked as a lookup's.
 * The counts are the store's own rule (mariadb_stats.c), server-wide, since open_read:
 *   misses      Innodb_pages_read less the read-ahead pages (linear and random): the pages
 *               a lookup needed that the buffer pool lacked;
 *   read_pages  Innodb_pages_read: every page read from the files, read-ahead included.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mariadb.h"
#include "payload.h"

#define MD_LOOKUP "SELECT shop, display_no, created_ms, total_cents, payload FROM orders " \
                  "WHERE id = ?"
#define MD_FIND_DB "SELECT TABLE_SCHEMA FROM information_schema.TABLES WHERE TABLE_NAME = " \
    "'orders' AND TABLE_SCHEMA LIKE 'idbench\\_%' ORDER BY CREATE_TIME DESC, " \
    "TABLE_SCHEMA DESC LIMIT 1"

/* The settings that keep a restarted server's buffer pool empty (the header). */
static const char *const md_cold_settings[] = {
    "innodb_buffer_pool_load_at_startup=0", "innodb_buffer_pool_dump_at_shutdown=0",
};

/* Refuse what cannot be read before anything starts: a user's server, a shard directory
 * without a MariaDB data directory (a start would make a new, empty one). */
static int read_check(const char *dir, const idb_opts *o, idb_err *err)
{
    char path[PATH_MAX];
    struct stat sb;
    if (idb_opts_str(o, "socket")[0] || idb_opts_str(o, "socket_file")[0])
        return idb_fail(err, IDB_EINPUT, "mariadb: read restarts the run's private servers; "
                        "a run on a user's server (socket=, socket_file=) cannot be read");
    if ((size_t)snprintf(path, sizeof path, "%s/mariadb/data/mysql", dir) >= sizeof path)
        return idb_fail(err, IDB_EINPUT, "mariadb: directory name too long: %s", dir);
    if (lstat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return idb_fail(err, IDB_EINPUT, "mariadb: %s holds no MariaDB data (no %s)", dir, path);
    return 0;
}

/* Select the newest idbench database with an orders table. IDB_EINPUT when none. */
static int use_db(md_store *s, idb_err *err)
{
    if (mysql_query(s->db, MD_FIND_DB) != 0) return md_fail(s->db, IDB_EIO, "finding the run's "
                                                            "database", err);
    MYSQL_RES *res = mysql_store_result(s->db);
    if (!res) return md_fail(s->db, IDB_EIO, "finding the run's database", err);
    MYSQL_ROW row = mysql_fetch_row(res);
    int found = row && row[0];
    if (found) snprintf(s->dbname, sizeof s->dbname, "%s", row[0]);
    mysql_free_result(res);                      /* row goes with it */
    if (!found)
        return idb_fail(err, IDB_EINPUT, "mariadb: the server at %s holds no orders table of "
                        "an idbench run", s->socket);
    return mysql_select_db(s->db, s->dbname) ? md_fail(s->db, IDB_EIO, "USE", err) : 0;
}

/* Prepare the lookup: bind[0] its parameter (the ID), bind[1..5] its result columns, into
 * s's row fields. */
static int prepare_lookup(md_store *s, idb_err *err)
{
    MYSQL_BIND *b = s->bind;
    s->ins = mysql_stmt_init(s->db);
    if (!s->ins) return idb_fail(err, IDB_ENOMEM, "mariadb: out of memory");
    if (mysql_stmt_prepare(s->ins, MD_LOOKUP, sizeof MD_LOOKUP - 1) != 0)
        return idb_fail(err, IDB_EIO, "mariadb: prepare: %s", mysql_stmt_error(s->ins));
    md_bind_row(s, (unsigned long)s->row_bytes + 1);     /* + 1: a longer payload shows */
    if (mysql_stmt_bind_param(s->ins, b) != 0 || mysql_stmt_bind_result(s->ins, b + 1) != 0)
        return idb_fail(err, IDB_EIO, "mariadb: bind: %s", mysql_stmt_error(s->ins));
    return 0;
}

int md_open_read(const char *dir, const idb_opts *o, int key_bytes, void **h, idb_err *err)
{
    int rc = idb_store_check_width("mariadb", key_bytes, err);
    if (!rc) rc = read_check(dir, o, err);
    if (rc) return rc;
    md_store *s = md_alloc(key_bytes, (int)idb_opts_int(o, "row_bytes"), NULL, err);
    if (!s) return IDB_ENOMEM;
    s->check = malloc((size_t)s->row_bytes + 1);
    rc = s->check ? 0 : idb_fail(err, IDB_ENOMEM, "out of memory");
    if (!rc) rc = md_server_start(s, dir, o, md_cold_settings,
                                  (int)(sizeof md_cold_settings / sizeof *md_cold_settings),
                                  err);
    if (!rc) rc = md_connect(s, s->user, err);
    if (!rc) rc = use_db(s, err);
    if (!rc) rc = prepare_lookup(s, err);
    if (!rc) rc = md_counters_read(s, &s->start, err);
    if (rc) {
        md_close(s);
        return rc;
    }
    *h = s;
    return 0;
}

int md_get(void *h, const idb_id *id, idb_row *row, int *found, idb_err *err)
{
    md_store *s = h;
    *found = 0;
    if (id->len != s->key_bytes) return 0;       /* no key of another width is stored */
    if (s->key_bytes == 8) s->id_u64 = idb_get_be(id->b, 8);
    else memcpy(s->id_buf, id->b, (size_t)s->key_bytes);
    if (mysql_stmt_execute(s->ins) != 0)
        return idb_fail(err, IDB_EIO, "mariadb: lookup: %s", mysql_stmt_error(s->ins));
    int f = mysql_stmt_fetch(s->ins), rc = 0;
    if (f == 0) {
        *row = (idb_row){ .id = *id, .shop = s->shop, .display_no = s->display_no,
                          .created_ms = s->created_ms, .total_cents = s->total_cents };
        idb_payload_fill(s->check, s->row_bytes, id);
        if (s->payload_len != (unsigned long)s->row_bytes ||
            memcmp(s->check, s->payload, (size_t)s->row_bytes) != 0)
            rc = idb_fail(err, IDB_EIO, "mariadb: lookup: a row's payload is not the one "
                          "written");
        *found = !rc;
        if (!rc && mysql_stmt_fetch(s->ins) != MYSQL_NO_DATA)
            rc = idb_fail(err, IDB_EIO, "mariadb: lookup: more than one row under one ID");
    } else if (f != MYSQL_NO_DATA) {
        rc = idb_fail(err, IDB_EIO, "mariadb: lookup: %s", f == MYSQL_DATA_TRUNCATED
                      ? "a payload longer than row_bytes" : mysql_stmt_error(s->ins));
    }
    mysql_stmt_free_result(s->ins);
    return rc;
}

int md_read_counts(void *h, int64_t *misses, int64_t *read_pages, idb_err *err)
{
    md_store *s = h;
    md_counters d;
    int rc = md_counters_since_open(s, &d, err);
    if (rc) return rc;
    *misses = md_misses(&d);
    *read_pages = d.pages_read;
    return 0;
}

/* The query statements by idb_query kind (parameters: the bound, then created_lo). */
static const char *const md_queries[] = {
    [IDB_QUERY_ID_FROM] = "SELECT id, shop, display_no, created_ms, total_cents, payload FROM "
                          "orders WHERE id >= ? AND created_ms >= ?",
    [IDB_QUERY_CREATED_FROM] = "SELECT id, shop, display_no, created_ms, total_cents, payload "
                               "FROM orders WHERE created_ms >= ?",
    [IDB_QUERY_SHOP] = "SELECT id, shop, display_no, created_ms, total_cents, payload FROM "
                       "orders WHERE shop = ? AND created_ms >= ?",
};

/* The key of width s->key_bytes as a parameter or result: BIGINT UNSIGNED or BINARY(n). */
static MYSQL_BIND key_bind(const md_store *s, void *u64, void *bytes, unsigned long *len)
{
    return s->key_bytes == 8
        ? (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_LONGLONG, .buffer = u64, .is_unsigned = 1 }
        : (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_BLOB, .buffer = bytes,
                        .buffer_length = (unsigned long)s->key_bytes, .length = len };
}

/* Execute st (q's kind, prepared) with q's parameters; its results bound to s's row
 * fields (out: 6 binds). */
static int md_query_exec(md_store *s, MYSQL_STMT *st, const idb_query *q, MYSQL_BIND *out,
                         idb_err *err)
{
    MYSQL_BIND in[2];
    uint64_t lo_u64 = idb_get_be(q->id_lo.b, q->id_lo.len == 8 ? 8 : 0);
    uint8_t lo[IDB_ID_MAX];
    unsigned long lo_len = (unsigned long)s->key_bytes;
    uint32_t shop = q->shop;
    int64_t created = q->created_lo;
    int n = 0;
    memset(in, 0, sizeof in);
    memcpy(lo, q->id_lo.b, (size_t)q->id_lo.len);
    if (q->kind == IDB_QUERY_ID_FROM) in[n++] = key_bind(s, &lo_u64, lo, &lo_len);
    if (q->kind == IDB_QUERY_SHOP)
        in[n++] = (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_LONG, .buffer = &shop,
                                .is_unsigned = 1 };
    in[n++] = (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_LONGLONG, .buffer = &created };
    memset(out, 0, 6 * sizeof *out);
    out[0] = key_bind(s, &s->id_u64, s->id_buf, &s->id_len);
    memcpy(out + 1, s->bind + 1, 5 * sizeof *out);      /* the lookup's result binds */
    if (mysql_stmt_bind_param(st, in) != 0 || mysql_stmt_bind_result(st, out) != 0 ||
        mysql_stmt_execute(st) != 0)
        return idb_fail(err, IDB_EIO, "mariadb: query: %s", mysql_stmt_error(st));
    return 0;
}

int md_query(void *h, const idb_query *q, int (*fn)(void *ctx, const idb_row *row), void *ctx,
             idb_err *err)
{
    md_store *s = h;
    MYSQL_BIND out[6];
    if (q->kind < 0 || q->kind >= MD_QUERIES ||
        (q->kind == IDB_QUERY_ID_FROM && q->id_lo.len != s->key_bytes))
        return idb_fail(err, IDB_EINPUT, "mariadb: a query of unknown kind or bound");
    MYSQL_STMT **st = &s->qs[q->kind];
    if (!*st && !(*st = mysql_stmt_init(s->db))) return idb_fail(err, IDB_ENOMEM, "out of memory");
    const char *sql = md_queries[q->kind];
    if (!mysql_stmt_param_count(*st) /* every query has one: 0 until prepared */ &&
        mysql_stmt_prepare(*st, sql, strlen(sql)) != 0)
        return idb_fail(err, IDB_EIO, "mariadb: prepare: %s", mysql_stmt_error(*st));
    int rc = md_query_exec(s, *st, q, out, err), f = 0;
    while (!rc && (f = mysql_stmt_fetch(*st)) == 0) {
        idb_row row = { .shop = s->shop, .display_no = s->display_no,
                        .created_ms = s->created_ms, .total_cents = s->total_cents };
        row.id.len = (uint8_t)s->key_bytes;
        if (s->key_bytes == 8) idb_put_be(row.id.b, s->id_u64, 8);
        else memcpy(row.id.b, s->id_buf, (size_t)s->key_bytes);
        idb_payload_fill(s->check, s->row_bytes, &row.id);
        if (s->payload_len != (unsigned long)s->row_bytes ||
            memcmp(s->check, s->payload, (size_t)s->row_bytes) != 0)
            rc = idb_fail(err, IDB_EIO, "mariadb: query: a row's payload is not the one written");
        if (!rc && fn(ctx, &row)) break;
    }
    if (!rc && f != 0 && f != MYSQL_NO_DATA)
        rc = idb_fail(err, IDB_EIO, "mariadb: query: %s", mysql_stmt_error(*st));
    mysql_stmt_free_result(*st);
    return rc;
}
