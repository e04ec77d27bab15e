/* sqlite_read.c — the sqlite store's read side (store.h version 3; store_read.h): point
 * lookups in <dir>/orders.sqlite as an insert run left it.
 *
 * A new connection, read-only, on a counting VFS of its own (sqlite_vfs.h), with the run's
 * cache_pages as its page cache, so its cache starts empty. The lookup is one prepared
 * statement, `SELECT ... FROM orders WHERE id = ?`, run in autocommit (each lookup its own
 * read transaction, as an application's would be). Preparing it reads the schema; the
 * counts start after that:
 *   misses      SQLITE_DBSTATUS_CACHE_MISS: pages the page cache lacked;
 *   read_pages  pages read from orders.sqlite and its WAL (the VFS counts): the OS's view.
 * The payload of every row found is checked against its key (as scan() does).
 * Queries (idbench read --pattern range|shop; store.h idb_query), each prepared at its first
 * use, the planner choosing the index (orders_created, orders_shop: secondary_created=1,
 * secondary_shop=1):
 *   ID_FROM       WHERE id >= ?1 AND created_ms >= ?2
 *   CREATED_FROM  WHERE created_ms >= ?2
 *   SHOP          WHERE shop = ?1 AND created_ms >= ?2
 */
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqlite_vfs.h"
#include "store_read.h"

#define SR_SELECT "SELECT shop, display_no, created_ms, total_cents, payload FROM orders " \
                  "WHERE id = ?"

typedef struct sq_reader {
    sqlite3 *db;
    idb_vfs *vfs;
    sqlite3_stmt *q;
    sqlite3_stmt *qs[IDB_QUERY_SHOP + 1];   /* the queries (idb_query kinds), made at need */
    int key_bytes, rowid, row_bytes;
    uint8_t *check;           /* row_bytes scratch bytes: the payload the key implies */
    int64_t reads0, miss0;    /* the counts when the lookups start */
} sq_reader;

/* Pages read from the database file, its WAL and journal (VFS counts of v). */
static int64_t vfs_reads(const idb_vfs *v)
{
    idb_vfs_counts c;
    idb_vfs_get(v, &c);
    int64_t n = 0;
    for (int k = 0; k < IDB_VFS_OTHER; k++) n += c.read[k].pages;
    return n;
}

/* SQLITE_DBSTATUS_CACHE_MISS so far, or -1. */
static int64_t misses_now(sqlite3 *db)
{
    int cur = 0, hi = 0;
    return sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_MISS, &cur, &hi, 0) == SQLITE_OK ? cur
                                                                                    : -1;
}

void idb_sqlite_close_read(void *h)
{
    sq_reader *r = h;
    if (!r) return;
    sqlite3_finalize(r->q);
    for (int k = 0; k <= IDB_QUERY_SHOP; k++) sqlite3_finalize(r->qs[k]);
    if (sqlite3_close(r->db) == SQLITE_OK) idb_vfs_destroy(r->vfs);
    free(r->check);
    free(r);
}

/* Fail with code and "sqlite: what: <SQLite's message>". */
static int sr_fail(idb_err *err, int code, sqlite3 *db, const char *what)
{
    return idb_fail(err, code, "sqlite: %s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
}

/* The connection, its cache size and the prepared lookup on r (path: the file). */
static int reader_setup(sq_reader *r, const char *path, const idb_opts *o, idb_err *err)
{
    char sql[64];
    int rc = idb_vfs_create((int)idb_opts_int(o, "page_size"), &r->vfs, err);
    if (rc) return rc;
    if (sqlite3_open_v2(path, &r->db, SQLITE_OPEN_READONLY, idb_vfs_name(r->vfs)) != SQLITE_OK)
        return sr_fail(err, IDB_EIO, r->db, "opening the database to read");
    snprintf(sql, sizeof sql, "PRAGMA cache_size=%lld", (long long)idb_opts_int(o, "cache_pages"));
    if (sqlite3_exec(r->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return sr_fail(err, IDB_EIO, r->db, "PRAGMA cache_size");
    if (sqlite3_prepare_v3(r->db, SR_SELECT, -1, SQLITE_PREPARE_PERSISTENT, &r->q, NULL) !=
        SQLITE_OK)
        return sr_fail(err, IDB_EINPUT, r->db, "preparing the lookup (no orders table?)");
    return 0;
}

int idb_sqlite_open_read(const char *dir, const idb_opts *o, int key_bytes, void **h,
                         idb_err *err)
{
    char path[PATH_MAX];
    struct stat st;
    if ((size_t)snprintf(path, sizeof path, "%s/orders.sqlite", dir) >= sizeof path)
        return idb_fail(err, IDB_EINPUT, "sqlite: directory name too long");
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return idb_fail(err, IDB_EINPUT, "sqlite: %s holds no SQLite store (no %s)", dir, path);
    sq_reader *r = calloc(1, sizeof *r);
    if (!r) return idb_fail(err, IDB_ENOMEM, "out of memory");
    const char *schema = idb_opts_str(o, "schema");
    r->key_bytes = key_bytes;
    r->rowid = strcmp(schema, "rowid") == 0 || (strcmp(schema, "auto") == 0 && key_bytes == 8);
    r->row_bytes = (int)idb_opts_int(o, "row_bytes");
    r->check = malloc((size_t)r->row_bytes + 1);
    int rc = r->check ? reader_setup(r, path, o, err) : idb_fail(err, IDB_ENOMEM, "out of memory");
    if (!rc && (r->miss0 = misses_now(r->db)) < 0)
        rc = sr_fail(err, IDB_EIO, r->db, "sqlite3_db_status");
    if (rc) {
        idb_sqlite_close_read(r);
        return rc;
    }
    r->reads0 = vfs_reads(r->vfs);
    *h = r;
    return 0;
}

int idb_sqlite_get(void *h, const idb_id *id, idb_row *row, int *found, idb_err *err)
{
    sq_reader *r = h;
    *found = 0;
    if (id->len != r->key_bytes) return 0;       /* no key of another width is stored */
    int b = r->rowid ? sqlite3_bind_int64(r->q, 1, (sqlite3_int64)idb_id_u64(id))
                     : sqlite3_bind_blob(r->q, 1, id->b, id->len, SQLITE_STATIC);
    if (b != SQLITE_OK) return sr_fail(err, IDB_EIO, r->db, "binding the lookup");
    int rc = 0, s = sqlite3_step(r->q);
    if (s == SQLITE_ROW) {
        rc = idb_sqlite_row(r->q, 0, id, r->row_bytes, r->check, row, err);
        *found = !rc;
    } else if (s != SQLITE_DONE) {
        rc = sr_fail(err, IDB_EIO, r->db, "lookup");
    }
    sqlite3_reset(r->q);
    return rc;
}

int idb_sqlite_read_counts(void *h, int64_t *misses, int64_t *read_pages, idb_err *err)
{
    sq_reader *r = h;
    int64_t m = misses_now(r->db);
    if (m < 0) return sr_fail(err, IDB_EIO, r->db, "sqlite3_db_status");
    *misses = m - r->miss0;
    *read_pages = vfs_reads(r->vfs) - r->reads0;
    return 0;
}

/* The query statements by idb_query kind (columns: id, then idb_sqlite_row's). */
static const char *const sr_queries[] = {
    [IDB_QUERY_ID_FROM] = "SELECT id, shop, display_no, created_ms, total_cents, payload FROM "
                          "orders WHERE id >= ?1 AND created_ms >= ?2",
    [IDB_QUERY_CREATED_FROM] = "SELECT id, shop, display_no, created_ms, total_cents, payload "
                               "FROM orders WHERE created_ms >= ?2",
    [IDB_QUERY_SHOP] = "SELECT id, shop, display_no, created_ms, total_cents, payload FROM "
                       "orders WHERE shop = ?1 AND created_ms >= ?2",
};

/* Bind q's parameters to statement st. SQLITE_OK or SQLite's code. */
static int bind_query(sq_reader *r, sqlite3_stmt *st, const idb_query *q)
{
    int b = SQLITE_OK;
    if (q->kind == IDB_QUERY_ID_FROM)
        b = r->rowid ? sqlite3_bind_int64(st, 1, (sqlite3_int64)idb_id_u64(&q->id_lo))
                     : sqlite3_bind_blob(st, 1, q->id_lo.b, q->id_lo.len, SQLITE_STATIC);
    else if (q->kind == IDB_QUERY_SHOP)
        b = sqlite3_bind_int64(st, 1, (sqlite3_int64)q->shop);
    return b == SQLITE_OK ? sqlite3_bind_int64(st, 2, q->created_lo) : b;
}

/* The ID in column 0 of st's current row into *id. IDB_EIO for a key of another width. */
static int row_id(sq_reader *r, sqlite3_stmt *st, idb_id *id, idb_err *err)
{
    id->len = (uint8_t)r->key_bytes;
    if (r->rowid) {
        idb_put_be(id->b, (uint64_t)sqlite3_column_int64(st, 0), 8);
        return 0;
    }
    if (sqlite3_column_bytes(st, 0) != r->key_bytes)
        return idb_fail(err, IDB_EIO, "sqlite: query: a key of %d bytes",
                        sqlite3_column_bytes(st, 0));
    memcpy(id->b, sqlite3_column_blob(st, 0), (size_t)r->key_bytes);
    return 0;
}

int idb_sqlite_query(void *h, const idb_query *q, int (*fn)(void *ctx, const idb_row *row),
                     void *ctx, idb_err *err)
{
    sq_reader *r = h;
    if (q->kind < 0 || q->kind > IDB_QUERY_SHOP)
        return idb_fail(err, IDB_EINPUT, "sqlite: unknown query kind %d", q->kind);
    if (q->kind == IDB_QUERY_ID_FROM && q->id_lo.len != r->key_bytes)
        return idb_fail(err, IDB_EINPUT, "sqlite: query: a bound of another width");
    sqlite3_stmt **st = &r->qs[q->kind];
    if (!*st && sqlite3_prepare_v3(r->db, sr_queries[q->kind], -1, SQLITE_PREPARE_PERSISTENT,
                                   st, NULL) != SQLITE_OK)
        return sr_fail(err, IDB_EIO, r->db, "preparing a query");
    if (bind_query(r, *st, q) != SQLITE_OK) return sr_fail(err, IDB_EIO, r->db, "binding");
    int rc = 0, s;
    while (!rc && (s = sqlite3_step(*st)) == SQLITE_ROW) {
        idb_row row;
        rc = row_id(r, *st, &row.id, err);
        if (!rc) rc = idb_sqlite_row(*st, 1, &row.id, r->row_bytes, r->check, &row, err);
        if (!rc && fn(ctx, &row)) break;
    }
    if (!rc && s != SQLITE_ROW && s != SQLITE_DONE) rc = sr_fail(err, IDB_EIO, r->db, "query");
    sqlite3_reset(*st);
    return rc;
}
