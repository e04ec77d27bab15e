/* store_null.c — `null`: accepts every row and keeps nothing.
 *
 * Measures the harness's own overhead: an insert run against it costs exactly the work
 * the runner does around a store (generation, timing, bookkeeping) and nothing else.
 */
#include <stdlib.h>
#include <string.h>

#include "store.h"

typedef struct null_store { int64_t rows; } null_store;

/* Count rows from here on; refuses (IDB_EINPUT) only a key width outside 1 .. IDB_ID_MAX. */
static int null_open(const char *dir, const idb_opts *opts, int key_bytes, void **h,
                     idb_err *err)
{
    (void)dir; (void)opts;
    int rc = idb_store_check_width("null", key_bytes, err);
    if (rc) return rc;
    null_store *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    *h = s;
    return 0;
}

static int null_insert(void *h, const idb_row *row, idb_err *err)
{
    (void)row; (void)err;
    ((null_store *)h)->rows++;
    return 0;
}

static int null_commit(void *h, idb_err *err) { (void)h; (void)err; return 0; }

/* Another handle (its own counter): see store.h. IDB_ENOMEM only. */
static int null_open_client(void *h, int c, void **client, idb_err *err)
{
    (void)h; (void)c;
    null_store *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    *client = s;
    return 0;
}

/* No lock to wait for: begin() and rollback() do nothing. */
static int null_begin(void *h, idb_err *err) { (void)h; (void)err; return 0; }
static void null_rollback(void *h) { (void)h; }

static int null_stats(void *h, idb_store_stats *st, idb_err *err)
{
    (void)h; (void)err;
    *st = (idb_store_stats){ .leaf_pages = -1, .branch_pages = -1, .depth = -1,
                             .fill_factor = -1, .file_bytes = 0, .pages_written = 0,
                             .checkpoint_pages = 0, .wal_frames = 0, .read_pages = 0,
                             .cache_misses = -1, .splits = -1 };
    return 0;
}

const idb_store idb_store_null = {
    .version = IDB_STORE_VERSION,
    .name = "null",
    .summary = "accepts and drops rows: measures the harness's own overhead",
    .options = NULL,
    .open = null_open,
    .insert = null_insert,
    .commit = null_commit,
    .stats = null_stats,
    .close = free,
    .clients = IDB_STORE_CLIENTS_ANY,
    .open_client = null_open_client,
    .begin = null_begin,
    .rollback = null_rollback,
};
