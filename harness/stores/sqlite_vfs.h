/* sqlite_vfs.h — a counting SQLite VFS: every read and write SQLite makes to its files,
 * counted per file kind, as calls and bytes.
 *
 * One idb_vfs per store handle: it registers its own sqlite3_vfs (a unique name, never the
 * default) over the default VFS and passes every method through; the files it opens get
 * per-file sqlite3_io_methods (version 1..3 as the real file has them, xShmMap and xFetch
 * included) that count xRead and xWrite and pass everything else through. Open the
 * connection with sqlite3_open_v2(..., idb_vfs_name(v)); several shards in one process
 * each have their own idb_vfs, so their counts stay apart.
 *
 * What is counted, per kind (the xOpen flags of the file):
 *   calls  every xRead / xWrite, whatever it returned;
 *   bytes  bytes of the calls that returned SQLITE_OK (a short read counts no bytes);
 *   pages  calls that returned SQLITE_OK and moved exactly page_bytes bytes: page images.
 *          (A WAL frame is two writes, its 24-byte header and the page; the WAL header is
 *          32 bytes; the database header read is 100 bytes: none of those is a page.)
 * Not counted: the -shm file (SQLite maps it into memory; the real VFS grows it itself) and
 * memory-mapped reads through xFetch (idbench leaves mmap_size at its default, 0).
 */
#ifndef IDB_SQLITE_VFS_H
#define IDB_SQLITE_VFS_H

#include <stdint.h>

#include "err.h"

/* File kinds, from the xOpen flags. */
typedef enum idb_vfs_kind {
    IDB_VFS_DB,               /* SQLITE_OPEN_MAIN_DB: the database file */
    IDB_VFS_WAL,              /* SQLITE_OPEN_WAL: the write-ahead log */
    IDB_VFS_JOURNAL,          /* SQLITE_OPEN_MAIN_JOURNAL: the rollback journal */
    IDB_VFS_OTHER,            /* temporary files, statement journals, anything else */
    IDB_VFS_KINDS
} idb_vfs_kind;

/* One direction of one kind of file. */
typedef struct idb_vfs_io {
    int64_t calls, bytes, pages;
} idb_vfs_io;

typedef struct idb_vfs_counts {
    idb_vfs_io read[IDB_VFS_KINDS], write[IDB_VFS_KINDS];
} idb_vfs_counts;

typedef struct idb_vfs idb_vfs;

/* Create and register (sqlite3_vfs_register(..., 0): not the default) a counting VFS over
 * the default VFS, counting reads and writes of page_bytes (>= 1) as pages. The caller owns
 * *out and frees it with idb_vfs_destroy(). Returns 0, IDB_ENOMEM, or IDB_EIO when SQLite has
 * no default VFS or refuses the registration (err says which). */
int idb_vfs_create(int page_bytes, idb_vfs **out, idb_err *err);

/* The registered name, for sqlite3_open_v2's zVfs argument; valid until idb_vfs_destroy(). */
const char *idb_vfs_name(const idb_vfs *v);

/* The counts so far (cumulative since idb_vfs_create). */
void idb_vfs_get(const idb_vfs *v, idb_vfs_counts *out);

/* Unregister and free v (NULL is fine). Every connection opened with it must be closed. */
void idb_vfs_destroy(idb_vfs *v);

#endif
