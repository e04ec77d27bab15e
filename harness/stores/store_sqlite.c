/* store_sqlite.c — `sqlite`: orders in a real SQLite database file, <dir>/orders.sqlite.
 *
 * The ID is the table's primary key, so the table's own B-tree is the index we measure:
 *
 *   schema=rowid  CREATE TABLE orders(id INTEGER PRIMARY KEY, shop INTEGER,
 *                   display_no INTEGER, created_ms INTEGER, total_cents INTEGER, payload BLOB)
 *                 8-byte keys only. The ID's 8 bytes are read as a signed 64-bit integer; an
 *                 ID with the top bit set would be a negative rowid (sorting before every
 *                 other) and is refused with IDB_EINPUT. A table B-tree: rows live in leaves
 *                 only, and a row appended at the right edge takes balance_quick() (the old
 *                 leaf stays ~100 % full).
 *   schema=blob   the same columns with `id BLOB PRIMARY KEY` ... WITHOUT ROWID, any width: an
 *                 index B-tree in memcmp order of the ID bytes. Splits go through
 *                 balance_nonroot(); interior pages hold whole rows too (one per cell).
 *   schema=auto   rowid for 8-byte keys, blob otherwise (the default).
 *
 * secondary_created=1 and secondary_shop=1 add the indexes orders_created (created_ms) and
 * orders_shop (shop, created_ms) (store.h idb_store_secondaries) for `idbench read`'s range
 * and shop queries (sqlite_read.c); their pages are in the run's figures.
 *
 * payload holds row_bytes bytes from a generator seeded by the key, so scan() checks every
 * row it reads back. Rows go through one prepared INSERT (reset and rebound per row); BEGIN is
 * issued by the first insert after a commit, COMMIT by commit().
 * Many writers (store.h version 2, insert --clients): each client is its own connection to
 * the same file on open()'s counting VFS (counts are atomic), begin() is BEGIN IMMEDIATE,
 * which takes the one write lock or waits for it in SQLite's busy handler (up to
 * SQ_BUSY_MS; then IDB_EBUSY), and stats() of open()'s handle counts every client's I/O.
 *
 * An existing orders.sqlite (or -wal/-journal/-shm) is never modified: a file that is not a
 * SQLite database with an `orders` table is "not an idbench store", one that is "already
 * exists". Both are IDB_EINPUT. The check opens the file read-only with immutable=1, which
 * takes no locks and creates no -wal/-shm.
 *
 * The connection runs on its own counting VFS (sqlite_vfs.c: one per store handle, so
 * shards in one process count apart), which sees every read and write SQLite makes to
 * orders.sqlite, -wal and -journal, as calls and bytes; a page is a call that moves exactly
 * page_size bytes (a WAL frame is a 24-byte header write and a page write).
 *
 * stats() (after the last commit, before close):
 *   First it runs the checkpoint that closing would run (PASSIVE, the WAL is kept), so
 *   that the copies of the last WAL frames into orders.sqlite are counted too; file_bytes
 *   and cache_misses are read before it. Then, from the VFS counts, cumulative since open:
 *   checkpoint_pages  pages written into orders.sqlite. With journal_mode=wal: the
 *                  checkpoints' copies of WAL frames (automatic, every ~1000 frames, and
 *                  the last one above); in rollback modes: the commits' page writes.
 *   wal_frames     pages written to orders.sqlite-wal: the frames appended at each commit
 *                  (or cache spill), and frames rewritten in place within one transaction.
 *                  Equals SQLITE_DBSTATUS_CACHE_WRITE in WAL mode (the tests check it).
 *   pages_written  checkpoint_pages + wal_frames + pages written to the rollback journal
 *                  (0 with WAL): every page written to the store's files. Temporary files
 *                  (IDB_VFS_OTHER) are not the store's and count in none of these.
 *   read_pages     pages read from orders.sqlite, -wal and -journal: the OS's view of the
 *                  cache misses, plus the checkpoints' reads of the WAL frames they copy.
 *   cache_misses   SQLITE_DBSTATUS_CACHE_MISS: pages read from the file or WAL because the page
 *                  cache (cache_pages) lacked them.
 *   The reads of stats()'s own dbstat walk (below: it reads every page) are subtracted
 *   from later calls' read_pages and cache_misses, so a second call is not inflated.
 *   leaf_pages, branch_pages, depth, fill_factor: one aggregate query over the dbstat virtual
 *                  table for name='orders' (its presence, SQLITE_ENABLE_DBSTAT_VTAB, is checked
 *                  at open). leaf = pagetype 'leaf', branch = 'internal'; depth = the most '/'
 *                  in a B-tree page's path ('/' is the root: 1; '/000/': 2; ...).
 *                  fill = Σ(pgsize − 8 − unused) / Σ(pgsize − 8) over leaf pages. dbstat's
 *                  `unused` is the gap between the cell-pointer array and the cell content plus
 *                  freeblocks and fragments, so "used" counts the 2-byte cell pointers and the
 *                  cells with their varint headers; the fixed 8-byte leaf-page header is left
 *                  out of both sides (as the lmdb store leaves out its 16-byte page header), so
 *                  1.0 means not one byte left for another cell. Overflow pages (payloads too
 *                  big for a leaf; none with row_bytes=64) count in neither.
 *   file_bytes     st_size of orders.sqlite + orders.sqlite-wal at stats() time, before its
 *                  checkpoint (closing the last connection deletes the WAL).
 *   splits         -1: SQLite does not count them.
 *   table_bytes, index_bytes, secondary_bytes  pgsize summed over dbstat: the orders B-tree
 *                  (the table is the ID's B-tree: id_clustered, index_bytes = table_bytes),
 *                  and every other B-tree but sqlite_schema (indexes on orders).
 */
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "payload.h"
#include "sqlite_vfs.h"
#include "store.h"
#include "store_read.h"

/* The aggregate the stats come from; tests/test_store_sqlite.c checks it against the file
 * itself (its own reader of the format) and sqlite3_analyzer. */
#define SQ_DBSTAT_SQL                                                                    \
    "SELECT sum(pagetype='leaf'), sum(pagetype='internal'),"                             \
    " max(CASE WHEN pagetype<>'overflow' THEN length(path)-length(replace(path,'/','')) END)," \
    " sum(CASE WHEN pagetype='leaf' THEN pgsize-8-unused END),"                          \
    " sum(CASE WHEN pagetype='leaf' THEN pgsize-8 END)"                                  \
    " FROM dbstat WHERE name='orders'"

/* Storage (store.h): the orders B-tree's pages (the table, keyed by the ID: rowid or WITHOUT
 * ROWID) and every other B-tree of the file but the schema's (indexes on orders), in bytes. */
#define SQ_STORAGE_SQL                                                                   \
    "SELECT coalesce(sum(CASE WHEN name='orders' THEN pgsize END), 0),"                 \
    " coalesce(sum(CASE WHEN name NOT IN ('orders','sqlite_schema') THEN pgsize END), 0)" \
    " FROM dbstat"

#define SQ_BUSY_MS 30000          /* how long a connection waits for another's write lock */

#define SQ_COLUMNS "shop INTEGER, display_no INTEGER, created_ms INTEGER, " \
                   "total_cents INTEGER, payload BLOB"

static const idb_opt_decl sq_options[] = {
    { .name = "schema", .type = IDB_OPT_ENUM, .def = "auto",
      .help = "rowid (INTEGER PRIMARY KEY, 8-byte keys) or blob "
              "(WITHOUT ROWID); auto = rowid for 8-byte keys", .choices = "auto|rowid|blob" },
    { .name = "page_size", .type = IDB_OPT_INT, .def = "4096",
      .help = "database page size in bytes (a power of two)", .min = 512, .max = 65536 },
    { .name = "cache_pages", .type = IDB_OPT_INT, .def = "2000",
      .help = "page cache size in pages (PRAGMA cache_size)", .min = 1, .max = 1000000000 },
    { .name = "journal_mode", .type = IDB_OPT_ENUM, .def = "wal", .help = "PRAGMA journal_mode",
      .choices = "delete|truncate|persist|wal|memory|off" },
    { .name = "synchronous", .type = IDB_OPT_ENUM, .def = "normal", .help = "PRAGMA synchronous",
      .choices = "off|normal|full" },
    { .name = "row_bytes", .type = IDB_OPT_INT, .def = "64",
      .help = "payload bytes per row (derived from the key)", .min = 0, .max = 1 << 20 },
    IDB_SECONDARY_OPTIONS,
    { 0 },
};

typedef struct sq_store {
    sqlite3 *db;
    idb_vfs *vfs;             /* the counting VFS db runs on (its own) */
    int64_t stat_reads;       /* pages read by stats()'s dbstat walks so far */
    int64_t stat_misses;      /* cache misses of those walks */
    sqlite3_stmt *ins;        /* the one INSERT, reset and rebound per row */
    int key_bytes, rowid, row_bytes, in_txn;
    int owns_vfs;             /* 1 on open()'s handle; 0 on a client's (it shares the VFS) */
    char pragmas[160];        /* synchronous and cache_size, for the clients' connections */
    int64_t page_bytes, cache_bytes;  /* page_size; cache_pages * page_size */
    uint8_t *payload;         /* row_bytes scratch bytes */
    uint8_t *check;           /* row_bytes scratch bytes for scan() */
    char path[PATH_MAX];
} sq_store;

/* Fail with code and "sqlite: what: <SQLite's message>". */
static int sq_fail(idb_err *err, int code, sqlite3 *db, const char *what)
{
    return idb_fail(err, code, "sqlite: %s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
}

/* 0 if this SQLite has the dbstat virtual table, else IDB_EIO with a message that says so.
 * Asked of a throwaway in-memory connection, so nothing is created on failure. */
static int dbstat_check(idb_err *err)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_open(":memory:", &db);
    if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, "SELECT pgsize FROM dbstat", -1, &st, NULL);
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (rc == SQLITE_OK) return 0;
    return idb_fail(err, IDB_EIO, "sqlite: this SQLite (%s) lacks the dbstat virtual table "
                    "(SQLITE_ENABLE_DBSTAT_VTAB), which the page statistics need",
                    sqlite3_libversion());
}

/* Called when path exists: always refuses (IDB_EINPUT) without changing the file, saying
 * whether it looks like one of our stores. */
static int refuse_existing(const char *path, idb_err *err)
{
    char hdr[16] = { 0 };
    int ours = 0;
    struct stat st;
    FILE *f = lstat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "rb") : NULL;
    if (f && fread(hdr, 1, sizeof hdr, f) == sizeof hdr &&
        memcmp(hdr, "SQLite format 3", 16) == 0) {
        /* immutable=1: no locks, no -wal/-shm, no recovery; the file is only read */
        char uri[3 * PATH_MAX + 32] = "file:";
        sqlite3 *db = NULL;
        sqlite3_stmt *q = NULL;
        size_t n = strlen(uri);
        for (const char *c = path; *c; c++) {    /* a URI: escape what it would misread */
            if (*c == '%' || *c == '?' || *c == '#') n += (size_t)sprintf(uri + n, "%%%02X", *c);
            else uri[n++] = *c;
        }
        strcpy(uri + n, "?immutable=1");
        if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) == SQLITE_OK &&
            sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_schema WHERE type='table' AND "
                               "name='orders'", -1, &q, NULL) == SQLITE_OK)
            ours = sqlite3_step(q) == SQLITE_ROW;
        sqlite3_finalize(q);
        sqlite3_close(db);
    }
    if (f) fclose(f);
    if (ours) return idb_fail(err, IDB_EINPUT, "%s already exists; use an empty --dir", path);
    return idb_fail(err, IDB_EINPUT, "%s exists and is not an idbench store", path);
}

/* Remove the files a failed open created (only called when none existed before). */
static void remove_created(const char *path)
{
    static const char *const sfx[] = { "", "-wal", "-shm", "-journal" };
    char p[PATH_MAX + 16];
    for (size_t i = 0; i < sizeof sfx / sizeof *sfx; i++) {
        snprintf(p, sizeof p, "%s%s", path, sfx[i]);
        unlink(p);
    }
}

/* Close s->db, free s (NULL is fine). The files stay. */
static void sq_close(void *h)
{
    sq_store *s = h;
    if (!s) return;
    sqlite3_finalize(s->ins);
    /* rolls back an uncommitted transaction; fails (SQLITE_BUSY) only with a statement
     * left open, and then the VFS stays registered rather than freed under the connection */
    if (sqlite3_close(s->db) == SQLITE_OK && s->owns_vfs) idb_vfs_destroy(s->vfs);
    free(s->payload);
    free(s->check);
    free(s);
}

/* 0 if PRAGMA name reads back as want (a PRAGMA can silently not take), else IDB_EIO. */
static int pragma_is(sqlite3 *db, const char *name, const char *want, idb_err *err)
{
    char sql[64];
    sqlite3_stmt *st = NULL;
    snprintf(sql, sizeof sql, "PRAGMA %s", name);
    int ok = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
             sqlite3_step(st) == SQLITE_ROW &&
             strcmp((const char *)sqlite3_column_text(st, 0), want) == 0;
    sqlite3_finalize(st);
    return ok ? 0 : idb_fail(err, IDB_EIO, "sqlite: %s=%s was not accepted", name, want);
}

static int sq_prepare(sq_store *s, idb_err *err);

/* Apply the PRAGMAs and create the table on the fresh connection s->db. */
static int sq_setup(sq_store *s, const idb_opts *o, idb_err *err)
{
    char sql[512], psz[32];
    const char *mode = idb_opts_str(o, "journal_mode");
    snprintf(psz, sizeof psz, "%lld", (long long)idb_opts_int(o, "page_size"));
    snprintf(s->pragmas, sizeof s->pragmas, "PRAGMA synchronous=%s; PRAGMA cache_size=%lld;",
             idb_opts_str(o, "synchronous"), (long long)idb_opts_int(o, "cache_pages"));
    snprintf(sql, sizeof sql, "PRAGMA page_size=%s; PRAGMA journal_mode=%s; %s", psz, mode,
             s->pragmas);
    if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return sq_fail(err, IDB_EIO, s->db, "setting PRAGMAs");
    /* the page size too: the VFS counts calls of exactly that many bytes as pages */
    int rc = pragma_is(s->db, "journal_mode", mode, err);
    if (!rc) rc = pragma_is(s->db, "page_size", psz, err);
    if (rc) return rc;

    const char *create = s->rowid
        ? "CREATE TABLE orders(id INTEGER PRIMARY KEY, " SQ_COLUMNS ")"
        : "CREATE TABLE orders(id BLOB PRIMARY KEY, " SQ_COLUMNS ") WITHOUT ROWID";
    if (sqlite3_exec(s->db, create, NULL, NULL, NULL) != SQLITE_OK)
        return sq_fail(err, IDB_EIO, s->db, "creating the orders table");
    for (const idb_secondary *x = idb_store_secondaries; x->option; x++)
        if (idb_opts_int(o, x->option) && sqlite3_exec(s->db, x->sql, 0, 0, 0) != SQLITE_OK)
            return sq_fail(err, IDB_EIO, s->db, x->option);
    return sq_prepare(s, err);
}

/* The busy timeout and the one INSERT on s->db. */
static int sq_prepare(sq_store *s, idb_err *err)
{
    sqlite3_busy_timeout(s->db, SQ_BUSY_MS);
    if (sqlite3_prepare_v3(s->db, "INSERT INTO orders(id, shop, display_no, created_ms, "
                           "total_cents, payload) VALUES (?, ?, ?, ?, ?, ?)", -1,
                           SQLITE_PREPARE_PERSISTENT, &s->ins, NULL) != SQLITE_OK)
        return sq_fail(err, IDB_EIO, s->db, "preparing the insert");
    return 0;
}

/* 1 if o asks for the rowid schema with key_bytes-wide keys. */
static int sq_rowid(const idb_opts *o, int key_bytes)
{
    const char *schema = idb_opts_str(o, "schema");
    return strcmp(schema, "rowid") == 0 || (strcmp(schema, "auto") == 0 && key_bytes == 8);
}

/* The checks of o that need no file (store.h: check): the key width, schema=rowid with
 * keys other than 8 bytes, a page size that is not a power of two. 0 or IDB_EINPUT. */
static int sq_check(const idb_opts *o, int key_bytes, idb_err *err)
{
    int rc = idb_store_check_width("sqlite", key_bytes, err);
    if (rc) return rc;
    if (sq_rowid(o, key_bytes) && key_bytes != 8)
        return idb_fail(err, IDB_EINPUT, "sqlite: schema=rowid needs 8-byte keys, not %d; "
                        "use schema=blob", key_bytes);
    int64_t psz = idb_opts_int(o, "page_size");
    if (psz & (psz - 1))
        return idb_fail(err, IDB_EINPUT, "sqlite: page_size=%lld is not a power of two",
                        (long long)psz);
    return 0;
}

/* Create <dir>/orders.sqlite for key_bytes-wide IDs. Refuses (IDB_EINPUT) key widths
 * outside 1 .. IDB_ID_MAX, schema=rowid with keys other than 8 bytes, a page size that is
 * not a power of two, a dir that is not a directory, and any existing store file; IDB_EIO
 * if the file cannot be created (e.g. an unwritable dir) or SQLite lacks dbstat. On
 * failure nothing is left. */
static int sq_open(const char *dir, const idb_opts *o, int key_bytes, void **h, idb_err *err)
{
    int rc = sq_check(o, key_bytes, err);
    if (rc) return rc;
    int rowid = sq_rowid(o, key_bytes);
    if ((rc = dbstat_check(err))) return rc;

    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return idb_fail(err, IDB_EINPUT, "sqlite: %s is not a directory", dir);
    sq_store *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    if ((size_t)snprintf(s->path, sizeof s->path, "%s/orders.sqlite", dir) >= sizeof s->path - 16) {
        free(s);
        return idb_fail(err, IDB_EINPUT, "sqlite: directory name too long");
    }
    static const char *const sfx[] = { "", "-wal", "-journal", "-shm" };
    for (size_t i = 0; i < sizeof sfx / sizeof *sfx; i++) {
        char p[PATH_MAX + 16];
        snprintf(p, sizeof p, "%s%s", s->path, sfx[i]);
        if (lstat(p, &st) == 0) {
            rc = i == 0 ? refuse_existing(p, err)
                        : idb_fail(err, IDB_EINPUT, "%s exists; use an empty --dir", p);
            free(s);
            return rc;
        }
    }
    if (access(dir, W_OK | X_OK) != 0) {
        rc = idb_fail(err, IDB_EIO, "sqlite: cannot create files in %s: %s", dir,
                      strerror(errno));
        free(s);
        return rc;
    }

    s->key_bytes = key_bytes;
    s->rowid = rowid;
    s->row_bytes = (int)idb_opts_int(o, "row_bytes");
    s->page_bytes = idb_opts_int(o, "page_size");
    s->cache_bytes = idb_opts_int(o, "cache_pages") * s->page_bytes;
    s->payload = malloc((size_t)s->row_bytes + 1);
    s->check = malloc((size_t)s->row_bytes + 1);
    if (!s->payload || !s->check) {
        sq_close(s);
        return idb_fail(err, IDB_ENOMEM, "out of memory");
    }
    rc = idb_vfs_create((int)idb_opts_int(o, "page_size"), &s->vfs, err);
    s->owns_vfs = !rc;
    if (!rc && sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                               idb_vfs_name(s->vfs)) != SQLITE_OK)
        rc = sq_fail(err, IDB_EIO, s->db, "creating the database file");
    if (!rc) rc = sq_setup(s, o, err);
    if (rc) {
        char path[PATH_MAX];
        strcpy(path, s->path);
        sq_close(s);
        remove_created(path);
        return rc;
    }
    *h = s;
    return 0;
}

/* Insert one row, beginning a transaction if none is open. IDB_EINPUT for a key of the
 * wrong width, a duplicate, or (schema=rowid) a key with the top bit set; IDB_EIO else. */
static int sq_insert(void *h, const idb_row *row, idb_err *err)
{
    sq_store *s = h;
    char hex[IDB_ID_HEX_MAX];
    if (row->id.len != s->key_bytes)
        return idb_fail(err, IDB_EINPUT, "sqlite: a %d-byte ID in a store for %d-byte keys",
                        row->id.len, s->key_bytes);
    if (s->rowid && (row->id.b[0] & 0x80))
        return idb_fail(err, IDB_EINPUT, "sqlite: ID %s has its top bit set, so it is not a "
                        "valid rowid (schema=rowid); use schema=blob", idb_id_hex(&row->id, hex));
    if (!s->in_txn) {
        if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
            return sq_fail(err, IDB_EIO, s->db, "BEGIN");
        s->in_txn = 1;
    }
    sqlite3_stmt *st = s->ins;
    if (s->rowid) sqlite3_bind_int64(st, 1, (sqlite3_int64)idb_id_u64(&row->id));
    else sqlite3_bind_blob(st, 1, row->id.b, s->key_bytes, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, row->shop);
    sqlite3_bind_int64(st, 3, row->display_no);
    sqlite3_bind_int64(st, 4, row->created_ms);
    sqlite3_bind_int64(st, 5, row->total_cents);
    idb_payload_fill(s->payload, s->row_bytes, &row->id);
    sqlite3_bind_blob(st, 6, s->payload, s->row_bytes, SQLITE_STATIC);  /* 0 bytes: empty blob */
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        sqlite3_reset(st);
        return 0;
    }
    int code = (rc & 0xff) == SQLITE_CONSTRAINT ? IDB_EINPUT
             : (rc & 0xff) == SQLITE_BUSY       ? IDB_EBUSY : IDB_EIO;
    if (code == IDB_EINPUT)
        idb_fail(err, code, "sqlite: duplicate key %s", idb_id_hex(&row->id, hex));
    else
        sq_fail(err, code, s->db, "insert");
    sqlite3_reset(st);
    return code;
}

/* COMMIT the open transaction, if any. IDB_EIO if SQLite refuses. */
static int sq_commit(void *h, idb_err *err)
{
    sq_store *s = h;
    if (!s->in_txn) return 0;
    int rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return sq_fail(err, (rc & 0xff) == SQLITE_BUSY ? IDB_EBUSY : IDB_EIO, s->db, "COMMIT");
    s->in_txn = 0;
    return 0;
}

/* A client (store.h, version 2): its own connection to h's file, on h's counting VFS (so
 * stats() of h counts every client's I/O), with the same synchronous and cache_size.
 * IDB_ENOMEM, or IDB_EIO when SQLite cannot open or prepare. */
static int sq_open_client(void *h, int c, void **client, idb_err *err)
{
    (void)c;
    const sq_store *m = h;
    sq_store *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    *s = (sq_store){ .vfs = m->vfs, .key_bytes = m->key_bytes, .rowid = m->rowid,
                     .row_bytes = m->row_bytes, .page_bytes = m->page_bytes,
                     .cache_bytes = m->cache_bytes };
    memcpy(s->path, m->path, sizeof s->path);
    memcpy(s->pragmas, m->pragmas, sizeof s->pragmas);
    s->payload = malloc((size_t)s->row_bytes + 1);
    s->check = malloc((size_t)s->row_bytes + 1);
    int rc = s->payload && s->check ? 0 : idb_fail(err, IDB_ENOMEM, "out of memory");
    if (!rc && sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE,
                               idb_vfs_name(s->vfs)) != SQLITE_OK)
        rc = sq_fail(err, IDB_EIO, s->db, "opening a client connection");
    if (!rc && sqlite3_exec(s->db, s->pragmas, NULL, NULL, NULL) != SQLITE_OK)
        rc = sq_fail(err, IDB_EIO, s->db, "setting a client's PRAGMAs");
    if (!rc) rc = sq_prepare(s, err);
    if (rc) {
        sq_close(s);
        return rc;
    }
    *client = s;
    return 0;
}

/* BEGIN IMMEDIATE: take the write lock now, waiting up to SQ_BUSY_MS while another
 * connection holds it (SQLite's busy handler sleeps meanwhile). IDB_EBUSY when the wait
 * ran out, IDB_EIO else. */
static int sq_begin(void *h, idb_err *err)
{
    sq_store *s = h;
    if (s->in_txn) return 0;
    int rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return sq_fail(err, (rc & 0xff) == SQLITE_BUSY ? IDB_EBUSY : IDB_EIO, s->db,
                       "BEGIN IMMEDIATE");
    s->in_txn = 1;
    return 0;
}

/* ROLLBACK the open transaction, if any (and whatever SQLite rolled back itself). */
static void sq_rollback(void *h)
{
    sq_store *s = h;
    sqlite3_reset(s->ins);
    if (!sqlite3_get_autocommit(s->db)) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    s->in_txn = 0;
}

/* Size of path in bytes, 0 if it does not exist. */
static int64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
}

/* Pages read from the store's files (database, WAL, journal) in counts c. */
static int64_t read_pages(const idb_vfs_counts *c)
{
    int64_t n = 0;
    for (int k = 0; k < IDB_VFS_OTHER; k++) n += c->read[k].pages;
    return n;
}

/* SQLITE_DBSTATUS_CACHE_MISS so far, or -1 if SQLite will not say. */
static int64_t cache_misses(sqlite3 *db)
{
    int cur = 0, hi = 0;
    return sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_MISS, &cur, &hi, 0) == SQLITE_OK ? cur
                                                                                    : -1;
}

/* The page writes and reads of st from the VFS counts, after the checkpoint that close()
 * would run (see the header). IDB_EIO if the checkpoint fails. */
static int io_stats(sq_store *s, idb_store_stats *st, idb_err *err)
{
    if (!s->in_txn &&
        sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL) !=
            SQLITE_OK)
        return sq_fail(err, IDB_EIO, s->db, "checkpoint");
    idb_vfs_counts c;
    idb_vfs_get(s->vfs, &c);
    st->checkpoint_pages = c.write[IDB_VFS_DB].pages;
    st->wal_frames = c.write[IDB_VFS_WAL].pages;
    st->pages_written = st->checkpoint_pages + st->wal_frames + c.write[IDB_VFS_JOURNAL].pages;
    st->read_pages = read_pages(&c) - s->stat_reads;
    return 0;
}

/* The tree's shape from dbstat (see the header). IDB_EIO if the query fails. */
static int shape_stats(sq_store *s, idb_store_stats *st, idb_err *err)
{
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(s->db, SQ_DBSTAT_SQL, -1, &q, NULL) != SQLITE_OK ||
        sqlite3_step(q) != SQLITE_ROW) {
        sq_fail(err, IDB_EIO, s->db, "dbstat");
        sqlite3_finalize(q);
        return IDB_EIO;
    }
    st->leaf_pages = sqlite3_column_int64(q, 0);
    st->branch_pages = sqlite3_column_int64(q, 1);
    st->depth = sqlite3_column_int64(q, 2);
    int64_t used = sqlite3_column_int64(q, 3), cap = sqlite3_column_int64(q, 4);
    st->fill_factor = cap > 0 ? (double)used / (double)cap : 0.0;
    sqlite3_finalize(q);
    q = NULL;
    if (sqlite3_prepare_v2(s->db, SQ_STORAGE_SQL, -1, &q, NULL) != SQLITE_OK ||
        sqlite3_step(q) != SQLITE_ROW) {
        sq_fail(err, IDB_EIO, s->db, "dbstat (storage)");
        sqlite3_finalize(q);
        return IDB_EIO;
    }
    st->table_bytes = st->index_bytes = sqlite3_column_int64(q, 0);
    st->secondary_bytes = sqlite3_column_int64(q, 1);
    st->id_clustered = 1;
    sqlite3_finalize(q);
    return 0;
}

/* Fill st as the header comment describes. IDB_EIO if a query or the checkpoint fails. */
static int sq_stats(void *h, idb_store_stats *st, idb_err *err)
{
    sq_store *s = h;
    *st = (idb_store_stats){ .splits = -1 };
    int64_t miss0 = cache_misses(s->db);
    if (miss0 < 0) return sq_fail(err, IDB_EIO, s->db, "sqlite3_db_status");
    st->cache_misses = miss0 - s->stat_misses;
    char wal[PATH_MAX + 8];
    snprintf(wal, sizeof wal, "%s-wal", s->path);
    st->file_bytes = file_size(s->path) + file_size(wal);
    int rc = io_stats(s, st, err);
    if (rc) return rc;

    idb_vfs_counts c;          /* what the dbstat walk reads is not the run's */
    idb_vfs_get(s->vfs, &c);
    int64_t reads0 = read_pages(&c);
    miss0 = cache_misses(s->db);
    rc = shape_stats(s, st, err);
    idb_vfs_get(s->vfs, &c);
    s->stat_reads += read_pages(&c) - reads0;
    s->stat_misses += cache_misses(s->db) - miss0;
    return rc;
}

/* The running figures (store.h: progress) from the VFS counts and the connection's page
 * count (PRAGMA page_count, the database as the pager sees it, WAL pages included): no
 * checkpoint and no walk. Whatever the pragma reads is kept out of later figures as
 * stats() keeps its walk out. IDB_EIO if the pragma fails. */
static int sq_progress(void *h, idb_store_progress *p, idb_err *err)
{
    sq_store *s = h;
    idb_vfs_counts c;
    idb_vfs_get(s->vfs, &c);
    int64_t reads0 = read_pages(&c), miss0 = cache_misses(s->db);
    if (miss0 < 0) return sq_fail(err, IDB_EIO, s->db, "sqlite3_db_status");
    *p = (idb_store_progress){
        .cache_bytes = s->cache_bytes,
        .pages_written = c.write[IDB_VFS_DB].pages + c.write[IDB_VFS_WAL].pages +
                         c.write[IDB_VFS_JOURNAL].pages,
        .read_pages = reads0 - s->stat_reads, .cache_misses = miss0 - s->stat_misses,
    };
    sqlite3_stmt *q = NULL;
    int ok = sqlite3_prepare_v2(s->db, "PRAGMA page_count", -1, &q, NULL) == SQLITE_OK &&
             sqlite3_step(q) == SQLITE_ROW;
    if (ok) p->index_bytes = sqlite3_column_int64(q, 0) * s->page_bytes;
    sqlite3_finalize(q);
    if (!ok) return sq_fail(err, IDB_EIO, s->db, "page_count");
    idb_vfs_get(s->vfs, &c);
    s->stat_reads += read_pages(&c) - reads0;
    s->stat_misses += cache_misses(s->db) - miss0;
    return 0;
}

int idb_sqlite_row(sqlite3_stmt *q, int col, const idb_id *id, int row_bytes, uint8_t *check,
                   idb_row *row, idb_err *err)
{
    char hex[IDB_ID_HEX_MAX];
    *row = (idb_row){ .id = *id, .shop = (uint32_t)sqlite3_column_int64(q, col),
                      .display_no = (uint32_t)sqlite3_column_int64(q, col + 1),
                      .created_ms = sqlite3_column_int64(q, col + 2),
                      .total_cents = sqlite3_column_int64(q, col + 3) };
    const void *p = sqlite3_column_blob(q, col + 4);
    int n = sqlite3_column_bytes(q, col + 4);
    idb_payload_fill(check, row_bytes, id);
    if (n != row_bytes || (n && memcmp(p, check, (size_t)n) != 0))
        return idb_fail(err, IDB_EIO, "sqlite: row %s: payload does not match its key",
                        idb_id_hex(id, hex));
    return 0;
}

/* Call fn on every row in key order, rebuilt from the table; IDB_EIO if a row's payload is
 * not the one its key implies (or its key has the wrong width). Stops when fn returns != 0. */
static int sq_scan(void *h, int (*fn)(void *ctx, const idb_row *row), void *ctx, idb_err *err)
{
    sq_store *s = h;
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT id, shop, display_no, created_ms, total_cents, "
                           "payload FROM orders ORDER BY id", -1, &q, NULL) != SQLITE_OK)
        return sq_fail(err, IDB_EIO, s->db, "scan");
    int rc, ret = 0;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        idb_id id = { 0 };
        idb_row r;
        if (s->rowid) {
            idb_id_set_u64(&id, (uint64_t)sqlite3_column_int64(q, 0));
        } else {
            int n = sqlite3_column_bytes(q, 0);
            const void *b = sqlite3_column_blob(q, 0);
            if (n != s->key_bytes) {
                ret = idb_fail(err, IDB_EIO, "sqlite: a %d-byte key in the table", n);
                break;
            }
            id.len = (uint8_t)n;
            memcpy(id.b, b, (size_t)n);
        }
        if ((ret = idb_sqlite_row(q, 1, &id, s->row_bytes, s->check, &r, err))) break;
        if (fn(ctx, &r)) break;
    }
    if (!ret && rc != SQLITE_ROW && rc != SQLITE_DONE) ret = sq_fail(err, IDB_EIO, s->db, "scan");
    sqlite3_finalize(q);
    return ret;
}

const idb_store idb_store_sqlite = {
    .version = IDB_STORE_VERSION,
    .name = "sqlite",
    .summary = "a real SQLite file: orders table keyed by the ID (rowid or WITHOUT ROWID)",
    .options = sq_options,
    .open = sq_open,
    .insert = sq_insert,
    .commit = sq_commit,
    .stats = sq_stats,
    .close = sq_close,
    .scan = sq_scan,
    .check = sq_check,
    .progress = sq_progress,
    .clients = IDB_STORE_CLIENTS_ANY,
    .open_client = sq_open_client,
    .begin = sq_begin,
    .rollback = sq_rollback,
    .open_read = idb_sqlite_open_read,       /* reads: sqlite_read.c */
    .get = idb_sqlite_get,
    .read_counts = idb_sqlite_read_counts,
    .close_read = idb_sqlite_close_read,
    .query = idb_sqlite_query,
};
