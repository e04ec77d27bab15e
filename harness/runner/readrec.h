/* readrec.h — the insert record: what `idbench insert --dir D` leaves in D for `idbench
 * read` (runner/read.h), the file D/insert-STORE.rec.
 *
 * Written by the insert runner in a run that asks for it (insert.h: record): a temporary
 * file beside it is opened before the stores, each committed batch's rows are appended
 * (buffered; outside the timed part, and their bytes taken out of write_bytes_per_id), and
 * it is renamed into place when the run succeeded (atomic_file.h), so the runner's memory
 * does not grow with it. Read back through readfile.h (no symlink, a regular file,
 * bounded). One per store, so one D can hold the runs of several stores. Format:
 *
 *   idbench insert record 1\n          the magic line and the format's version
 *   strategy=NAME\n store=NAME\n key_bytes=W\n shards=K\n seed=S\n
 *   s=KEY=VALUE\n ...                   the run's -s options, in the order given
 *   then_strategy=NAME\n then_rows=N\n  only after `insert --then NAME:N`: the last N
 *                                       entries are the second phase's rows (IDs of NAME)
 *   end\n
 *   entries of 28 + W bytes to the end of the file (their number: its size), in the order
 *   the rows were created (the run's draw order:
 *   the order of their orders), every integer big-endian:
 *     | shard u32 | shop u32 | display_no u32 | created_ms i64 | total_cents i64 | ID (W) |
 *
 * Rows the store refused (an ID handed out twice by a counter server) and failed orders
 * are not recorded: every entry is a row the store holds.
 */
#ifndef IDB_READREC_H
#define IDB_READREC_H

#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include "atomic_file.h"
#include "err.h"
#include "store.h"

#define IDB_READREC_KV_MAX 32          /* -s options kept */
#define IDB_READREC_NAME_MAX 64        /* strategy and store names */
#define IDB_READREC_KV_CHARS 256       /* one -s option */

typedef struct idb_readrec {
    char strategy[IDB_READREC_NAME_MAX], store[IDB_READREC_NAME_MAX];
    int width, shards;
    uint64_t seed;
    char kv[IDB_READREC_KV_MAX][IDB_READREC_KV_CHARS];
    int nkv;
    char then_strategy[IDB_READREC_NAME_MAX];   /* --then's strategy, "" without one */
    int64_t then_rows;                 /* its rows: the last entries (0 without --then) */
    int64_t rows;                      /* entries */
    size_t entry;                      /* bytes of one: 28 + width */
    uint8_t *data;                     /* rows * entry bytes (owned) */
    size_t cap;                        /* room in data, in entries */
} idb_readrec;

/* Start an empty record (rows 0) of a run's header fields: names, width, shards, seed and
 * its -s options kv[0..nkv). IDB_EINPUT when a name or an option does not fit the format
 * (too long, a newline in it). */
int idb_readrec_init(idb_readrec *rec, const char *strategy, const char *store, int width,
                     int shards, uint64_t seed, const char *const *kv, int nkv, idb_err *err);

/* Mark rec (idb_readrec_init's) as a --then run's: its last rows entries hold IDs of
 * strategy. IDB_EINPUT when the name does not fit the format. */
int idb_readrec_then(idb_readrec *rec, const char *strategy, int64_t rows, idb_err *err);

/* Append row (its ID width bytes) of shard shard as the next entry. IDB_EINPUT for an ID
 * of another width, IDB_ENOMEM. */
int idb_readrec_add(idb_readrec *rec, const idb_row *row, int shard, idb_err *err);

/* Entry i (< rows) into *row and *shard. */
void idb_readrec_get(const idb_readrec *rec, int64_t i, idb_row *row, int *shard);

/* The writer of a record file during an insert run. */
typedef struct idb_readrec_writer {
    idb_atomic a;
    FILE *f;                           /* NULL: not open */
    void *buf;                         /* f's buffer (its own map), or NULL */
    size_t entry;
    int width;
    int64_t rows;
} idb_readrec_writer;

/* Start writing dir/insert-STORE.rec (a temporary name until idb_readrec_finish) with the
 * header of rec (idb_readrec_init's fields; its entries are not written). IDB_EIO. */
int idb_readrec_create(idb_readrec_writer *w, const char *dir, const idb_readrec *rec,
                       idb_err *err);

/* Append one entry (row's ID must be the record's width). A write error shows at
 * idb_readrec_finish. IDB_EINPUT for an ID of another width. */
int idb_readrec_put(idb_readrec_writer *w, const idb_row *row, int shard, idb_err *err);

/* Push the buffered entries to the file (write(2)); returns the bytes of every entry put
 * so far (they have all passed to write once this returns 0), or -1 on a failed write. */
int64_t idb_readrec_sync(idb_readrec_writer *w);

/* Rename the file into place (failed 0) or remove it (failed 1). Returns 0, or IDB_EIO
 * with err (then nothing is left). A writer never opened (f NULL) is fine. */
int idb_readrec_finish(idb_readrec_writer *w, int failed, idb_err *err);

/* Read dir/insert-STORE.rec into rec (freed with idb_readrec_free): IDB_EINPUT when it is
 * missing ("D holds no insert record of STORE: not a directory idbench insert --dir
 * made"), a symlink or not a regular file, too large, or not in the format above (its
 * fields out of range, its size not its rows' entries, then_strategy without then_rows or
 * then_rows above the entries); IDB_EIO / IDB_ENOMEM else. */
int idb_readrec_load(const char *dir, const char *store, idb_readrec *rec, idb_err *err);

/* Free rec's entries (the struct is the caller's). */
void idb_readrec_free(idb_readrec *rec);

#endif
