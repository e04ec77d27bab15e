/* store_read.h — inside harness/stores only: the read sides (store.h version 3:
 * open_read, get, read_counts, close_read) of the stores whose files hold them apart from
 * their write side: sqlite_read.c and lmdb_read.c. */
#ifndef IDB_STORE_READ_H
#define IDB_STORE_READ_H

#include <sqlite3.h>

#include "store.h"

/* sqlite (sqlite_read.c): <dir>/orders.sqlite opened read-only on a counting VFS of its
 * own, a fresh connection (its page cache empty) with the run's cache_pages. misses:
 * SQLITE_DBSTATUS_CACHE_MISS; read_pages: pages read from the database file and its WAL. */
int idb_sqlite_open_read(const char *dir, const idb_opts *o, int key_bytes, void **h,
                         idb_err *err);
int idb_sqlite_get(void *h, const idb_id *id, idb_row *row, int *found, idb_err *err);
int idb_sqlite_read_counts(void *h, int64_t *misses, int64_t *read_pages, idb_err *err);
void idb_sqlite_close_read(void *h);
/* The store's query hook (store.h): q's rows on open_read's handle h, fn called on each. */
int idb_sqlite_query(void *h, const idb_query *q, int (*fn)(void *ctx, const idb_row *row),
                     void *ctx, idb_err *err);

/* store_sqlite.c: the row of the current result of q whose columns col .. col + 4 are shop,
 * display_no, created_ms, total_cents and payload, under id, into *row, the payload checked
 * against the one id implies (check: row_bytes of scratch). 0 or IDB_EIO. */
int idb_sqlite_row(sqlite3_stmt *q, int col, const idb_id *id, int row_bytes, uint8_t *check,
                   idb_row *row, idb_err *err);

/* lmdb (lmdb_read.c): <dir>/orders.lmdb opened MDB_RDONLY | MDB_NOLOCK | MDB_NORDAHEAD.
 * LMDB's cache is the OS page cache over its memory map: misses are the major page faults
 * of the calling thread (RUSAGE_THREAD) during lookups; read_pages the pages of data.mdb
 * that became resident meanwhile (mincore over the map). */
int idb_lmdb_open_read(const char *dir, const idb_opts *o, int key_bytes, void **h,
                       idb_err *err);
int idb_lmdb_get(void *h, const idb_id *id, idb_row *row, int *found, idb_err *err);
int idb_lmdb_read_counts(void *h, int64_t *misses, int64_t *read_pages, idb_err *err);
void idb_lmdb_close_read(void *h);

/* store_lmdb.c: the row stored under id as LMDB value val (len bytes: shop, display_no,
 * created_ms, total_cents big-endian, then row_bytes of payload) into *row, the payload
 * checked against the one id implies (check: row_bytes of scratch). Returns 0 or IDB_EIO
 * (a value of another size, a payload that is not id's). */
int idb_lmdb_row(const uint8_t *val, size_t len, const idb_id *id, int row_bytes,
                 uint8_t *check, idb_row *row, idb_err *err);

#endif
