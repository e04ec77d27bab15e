/* store_lmdb.c — `lmdb`: orders in a real LMDB environment, <dir>/orders.lmdb/.
 *
 * One unnamed (main) database. Key: the ID's key_bytes bytes (any width 1 .. IDB_ID_MAX),
 * big-endian, so LMDB's default memcmp order is numeric and time order. Value: the rest of
 * the row, big-endian:
 *
 *   offset  0   4      8           16           24
 *           | shop | display_no | created_ms | total_cents | payload (row_bytes) |
 *
 * payload comes from a generator seeded by the key, so scan() checks each row it reads back.
 * The first insert after a commit begins a write transaction; commit() commits it. Rows go
 * in with MDB_NOOVERWRITE, or with append=1 with MDB_APPEND, which LMDB refuses for a key
 * that is not greater than the last one (IDB_EINPUT here). MDB_APPEND also changes the split:
 * the new key goes alone on a fresh page instead of LMDB's biased split.
 * sync=nosync (default) opens with MDB_NOSYNC: each commit still writes its pages and the meta
 * page to the file with pwrite(), but does not fsync, so the page writes we count are the
 * same and only the flush wait is gone (like SQLite's wal + synchronous=normal, which syncs
 * at checkpoints, not commits). A system crash can lose the last commits. sync=sync fsyncs.
 * Many writers (store.h version 2, insert --clients): clients share open()'s environment
 * (LMDB wants one per process), each with its own write txn; begin() is mdb_txn_begin, which
 * waits for LMDB's one writer lock; a commit and its page count run under open()'s acct
 * lock so that no other commit comes between them.
 * orders.lmdb is created here; an existing non-empty orders.lmdb (or a file by that name) is
 * refused (IDB_EINPUT) and not touched.
 *
 * stats():
 *   leaf_pages, branch_pages, depth: mdb_stat() of the main DB (ms_leaf_pages, ...).
 *   fill_factor    LMDB keeps no free-space count we can read, so it is computed from the page
 *                  layout (mdb.c 0.9: mdb_leaf_size, mdb_node_add). A leaf page is a 16-byte
 *                  header (PAGEHDRSZ), an array of 2-byte slot offsets growing up and nodes
 *                  growing down; a node is an 8-byte header (NODESIZE) + key + data, rounded up
 *                  to even (data larger than a node may hold goes to overflow pages and the
 *                  node keeps an 8-byte page number). Every row has the same width, so
 *                    used = entries × (2 + EVEN(8 + key_bytes + 24 + row_bytes))
 *                    fill = used / (leaf_pages × (psize − 16)).
 *                  Like the sqlite store's, the page header is out of both sides.
 *                  tests/test_store_lmdb.c checks this against the free space of every leaf page
 *                  read from data.mdb itself (mp_upper − mp_lower).
 *   pages_written  LMDB does not count its writes. A commit writes each dirty page once
 *                  (copy-on-write: a page touched in the txn gets a new page number) plus one of
 *                  the two meta pages. After each commit a read txn gives
 *                    live = branch + leaf + overflow pages of the main DB and the freeDB,
 *                    freed = pages the txn freed (its own freeDB record, keyed by its txnid),
 *                  and pages written = (live − live before) + freed + 1 (meta): every page
 *                  freed was replaced by a written page or dropped, every new page was written.
 *                  Exact for inserts, as long as no page is both allocated and freed inside one
 *                  txn ("loose" pages, which only merges and deletes make) and the dirty list
 *                  never spills (> 128k dirty pages in one txn). The test compares it with the
 *                  set of page numbers reachable after each commit and not before.
 *   cache_misses   -1: LMDB has no cache of its own; reads go through the OS page cache.
 *   read_pages     -1: reads are page faults of the memory map, not calls anyone counts.
 *   checkpoint_pages, wal_frames  -1: LMDB keeps no log, so it has neither.
 *   file_bytes     (me_last_pgno + 1) × psize: the pages of data.mdb that are in use or on the
 *                  freelist. Without MDB_WRITEMAP LMDB grows data.mdb by writing, so this is also
 *                  its st_size (not the map size); lock.mdb (a few KiB) is not counted.
 *   splits         -1: not counted.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "payload.h"
#include "store.h"
#include "store_read.h"

#define LM_PAGEHDRSZ 16   /* mdb.c: offsetof(MDB_page, mp_ptrs) */
#define LM_NODESIZE 8     /* mdb.c: offsetof(MDB_node, mn_data) */
#define LM_FIXED 24       /* shop, display_no, created_ms, total_cents */

static const idb_opt_decl lm_options[] = {
    { .name = "map_mb", .type = IDB_OPT_INT, .def = "4096",
      .help = "LMDB map size in MiB (the most the store can hold)", .min = 1, .max = 1 << 24 },
    { .name = "append", .type = IDB_OPT_INT, .def = "0",
      .help = "1: insert with MDB_APPEND (keys must ascend)", .min = 0, .max = 1 },
    { .name = "sync", .type = IDB_OPT_ENUM, .def = "nosync",
      .help = "nosync = MDB_NOSYNC (no fsync per commit) | sync", .choices = "nosync|sync" },
    { .name = "row_bytes", .type = IDB_OPT_INT, .def = "64",
      .help = "payload bytes per row (derived from the key)", .min = 0, .max = 1 << 20 },
    { 0 },
};

typedef struct lm_store {
    MDB_env *env;
    MDB_txn *txn;             /* the open write txn, or NULL */
    MDB_dbi dbi;
    int key_bytes, row_bytes, append;
    int64_t map_mb;
    unsigned psize;
    int64_t live_pages;       /* pages in both trees after the last commit */
    int64_t pages_written;    /* see the header comment */
    uint8_t *val;             /* LM_FIXED + row_bytes scratch bytes */
    uint8_t *check;           /* row_bytes scratch bytes for scan() */
    char path[PATH_MAX];
    struct lm_store *main;    /* a client's (store.h, version 2): open()'s handle, whose env,
                               * dbi and page counts it shares; NULL on open()'s handle */
    pthread_mutex_t acct;     /* open()'s handle: a commit and its accounting as one step */
} lm_store;

/* Bytes one row takes in a leaf page: slot + node, as mdb_leaf_size() computes it. */
static size_t leaf_entry_bytes(unsigned psize, size_t key, size_t data)
{
    size_t nodemax = (((psize - LM_PAGEHDRSZ) / 2) & ~(size_t)1) - 2;   /* me_nodemax */
    size_t sz = LM_NODESIZE + key + data;
    if (sz > nodemax) sz -= data - sizeof(size_t);    /* data on overflow pages */
    return 2 + ((sz + 1) & ~(size_t)1);
}

/* Fail with code and "lmdb: what: <LMDB's message>". */
static int lm_fail(idb_err *err, int code, int rc, const char *what)
{
    return idb_fail(err, code, "lmdb: %s: %s", what, mdb_strerror(rc));
}

/* Close the environment and free s (NULL is fine). The files stay. */
static void lm_close(void *h)
{
    lm_store *s = h;
    if (!s) return;
    if (s->txn) mdb_txn_abort(s->txn);
    if (s->env && !s->main) {
        mdb_env_close(s->env);
        pthread_mutex_destroy(&s->acct);
    }
    free(s->val);
    free(s->check);
    free(s);
}

/* Pages in the main DB's and the freeDB's trees as seen by txn, into *live. */
static int live_pages(lm_store *s, MDB_txn *txn, int64_t *live)
{
    MDB_stat m, f;
    int rc = mdb_stat(txn, s->dbi, &m);
    if (!rc) rc = mdb_stat(txn, 0, &f);       /* dbi 0 is the freeDB */
    if (rc) return rc;
    *live = (int64_t)(m.ms_branch_pages + m.ms_leaf_pages + m.ms_overflow_pages +
                      f.ms_branch_pages + f.ms_leaf_pages + f.ms_overflow_pages);
    return 0;
}

/* After the commit of txn txnid: add its pages to s->pages_written (see the header). */
static int account_commit(lm_store *s, size_t txnid, idb_err *err)
{
    MDB_txn *rt;
    MDB_cursor *c = NULL;
    int64_t live = 0, freed = 0;
    int rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &rt);
    if (rc) return lm_fail(err, IDB_EIO, rc, "read txn");
    rc = live_pages(s, rt, &live);
    if (!rc) rc = mdb_cursor_open(rt, 0, &c);
    if (!rc) {
        MDB_val k = { sizeof txnid, &txnid }, d;
        rc = mdb_cursor_get(c, &k, &d, MDB_SET);
        if (rc == 0 && d.mv_size >= sizeof(size_t)) {
            size_t n;                          /* an IDL: the count, then the page numbers */
            memcpy(&n, d.mv_data, sizeof n);
            freed = (int64_t)n;
        }
        if (rc == MDB_NOTFOUND) rc = 0;
        mdb_cursor_close(c);
    }
    mdb_txn_abort(rt);
    if (rc) return lm_fail(err, IDB_EIO, rc, "reading the freelist");
    s->pages_written += live - s->live_pages + freed + 1;
    s->live_pages = live;
    return 0;
}

/* Called when path exists: refuse unless it is an empty directory. Returns 0 (empty: use
 * it) or IDB_EINPUT, saying whether it looks like one of our stores; nothing is changed. */
static int check_existing(const char *path, const struct stat *st, idb_err *err)
{
    if (!S_ISDIR(st->st_mode))
        return idb_fail(err, IDB_EINPUT, "%s exists and is not an idbench store", path);
    DIR *d = opendir(path);
    if (!d) return idb_fail(err, IDB_EINPUT, "%s exists and cannot be read: %s", path,
                            strerror(errno));
    int entries = 0, data = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        entries++;
        data |= strcmp(e->d_name, "data.mdb") == 0;
    }
    closedir(d);
    if (!entries) return 0;
    if (data) return idb_fail(err, IDB_EINPUT, "%s already exists; use an empty --dir", path);
    return idb_fail(err, IDB_EINPUT, "%s exists and is not an idbench store", path);
}

/* Remove what a failed open created in path (and path itself if made_dir). */
static void remove_created(const char *path, int made_dir)
{
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s/data.mdb", path);
    unlink(p);
    snprintf(p, sizeof p, "%s/lock.mdb", path);
    unlink(p);
    if (made_dir) rmdir(path);
}

/* Open the environment in s->path and the main DB; records the page size and the
 * starting page count. */
static int lm_setup(lm_store *s, int sync, idb_err *err)
{
    int rc = mdb_env_create(&s->env);
    if (rc) return lm_fail(err, IDB_EIO, rc, "mdb_env_create");
    rc = mdb_env_set_mapsize(s->env, (size_t)s->map_mb << 20);
    if (rc) return lm_fail(err, IDB_EIO, rc, "map_mb");
    rc = mdb_env_open(s->env, s->path, sync ? 0 : MDB_NOSYNC, 0644);
    if (rc) return lm_fail(err, IDB_EIO, rc, s->path);
    MDB_txn *t;
    rc = mdb_txn_begin(s->env, NULL, 0, &t);
    if (!rc) rc = mdb_dbi_open(t, NULL, 0, &s->dbi);
    if (!rc) rc = live_pages(s, t, &s->live_pages);
    if (!rc) rc = mdb_txn_commit(t);
    else mdb_txn_abort(t);
    if (rc) return lm_fail(err, IDB_EIO, rc, "opening the main database");
    MDB_stat ms;
    mdb_env_stat(s->env, &ms);
    s->psize = ms.ms_psize;
    return 0;
}

/* Create the environment <dir>/orders.lmdb for key_bytes-wide IDs. IDB_EINPUT for a key
 * width outside 1 .. IDB_ID_MAX, a dir that is not a directory, or an existing orders.lmdb
 * that is not an empty directory; IDB_EIO if it cannot be created (e.g. an unwritable dir).
 * On failure, what this call created is removed. */
static int lm_open(const char *dir, const idb_opts *o, int key_bytes, void **h, idb_err *err)
{
    int rc = idb_store_check_width("lmdb", key_bytes, err);
    if (rc) return rc;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return idb_fail(err, IDB_EINPUT, "lmdb: %s is not a directory", dir);
    lm_store *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    if ((size_t)snprintf(s->path, sizeof s->path, "%s/orders.lmdb", dir) >= sizeof s->path - 16) {
        free(s);
        return idb_fail(err, IDB_EINPUT, "lmdb: directory name too long");
    }
    int made_dir = 0;
    if (lstat(s->path, &st) == 0) {
        rc = check_existing(s->path, &st, err);
    } else if (mkdir(s->path, 0755) != 0) {
        rc = idb_fail(err, IDB_EIO, "lmdb: cannot create %s: %s", s->path, strerror(errno));
    } else {
        made_dir = 1;
        rc = 0;
    }
    if (rc) {
        free(s);
        return rc;
    }
    s->key_bytes = key_bytes;
    pthread_mutex_init(&s->acct, NULL);
    s->row_bytes = (int)idb_opts_int(o, "row_bytes");
    s->append = (int)idb_opts_int(o, "append");
    s->map_mb = idb_opts_int(o, "map_mb");
    s->val = malloc(LM_FIXED + (size_t)s->row_bytes);
    s->check = malloc((size_t)s->row_bytes + 1);
    rc = s->val && s->check ? lm_setup(s, strcmp(idb_opts_str(o, "sync"), "sync") == 0, err)
                            : idb_fail(err, IDB_ENOMEM, "out of memory");
    if (rc) {
        char path[PATH_MAX];
        strcpy(path, s->path);
        lm_close(s);
        remove_created(path, made_dir);
        return rc;
    }
    *h = s;
    return 0;
}

/* Put one row, beginning a write txn if none is open. IDB_EINPUT for a key of the wrong
 * width, a duplicate, or (append=1) a key not above the last; IDB_EIO else (the txn is then
 * aborted: LMDB cannot go on with it, e.g. after MDB_MAP_FULL). */
static int lm_insert(void *h, const idb_row *row, idb_err *err)
{
    lm_store *s = h;
    char buf[IDB_ID_HEX_MAX];
    if (row->id.len != s->key_bytes)
        return idb_fail(err, IDB_EINPUT, "lmdb: a %d-byte ID in a store for %d-byte keys",
                        row->id.len, s->key_bytes);
    int rc;
    if (!s->txn && (rc = mdb_txn_begin(s->env, NULL, 0, &s->txn)) != 0) {
        s->txn = NULL;
        return lm_fail(err, IDB_EIO, rc, "mdb_txn_begin");
    }
    idb_put_be(s->val, row->shop, 4);
    idb_put_be(s->val + 4, row->display_no, 4);
    idb_put_be(s->val + 8, (uint64_t)row->created_ms, 8);
    idb_put_be(s->val + 16, (uint64_t)row->total_cents, 8);
    idb_payload_fill(s->val + LM_FIXED, s->row_bytes, &row->id);
    MDB_val k = { (size_t)s->key_bytes, (void *)row->id.b };
    MDB_val v = { LM_FIXED + (size_t)s->row_bytes, s->val };
    rc = mdb_put(s->txn, s->dbi, &k, &v, s->append ? MDB_APPEND : MDB_NOOVERWRITE);
    if (rc == 0) return 0;
    if (rc == MDB_KEYEXIST)     /* the txn stays usable */
        return s->append
            ? idb_fail(err, IDB_EINPUT, "lmdb: append=1: key %s is not greater than the last "
                       "key", idb_id_hex(&row->id, buf))
            : idb_fail(err, IDB_EINPUT, "lmdb: duplicate key %s", idb_id_hex(&row->id, buf));
    mdb_txn_abort(s->txn);
    s->txn = NULL;
    if (rc == MDB_MAP_FULL)
        return idb_fail(err, IDB_EIO, "lmdb: the map is full (map_mb=%lld): raise map_mb",
                        (long long)s->map_mb);
    return lm_fail(err, IDB_EIO, rc, "mdb_put");
}

/* Commit the open write txn, if any, and count its pages (in open()'s handle, under its
 * acct lock: no other client's commit comes between a commit and its count). IDB_EIO if
 * LMDB refuses. */
static int lm_commit(void *h, idb_err *err)
{
    lm_store *s = h, *m = s->main ? s->main : s;
    if (!s->txn) return 0;
    size_t id = mdb_txn_id(s->txn);
    pthread_mutex_lock(&m->acct);
    int rc = mdb_txn_commit(s->txn);
    s->txn = NULL;
    rc = rc ? lm_fail(err, IDB_EIO, rc, "mdb_txn_commit") : account_commit(m, id, err);
    pthread_mutex_unlock(&m->acct);
    return rc;
}

/* A client (store.h, version 2): a handle on h's environment (LMDB wants one env per
 * process) with its own write txn and scratch bytes. IDB_ENOMEM only. */
static int lm_open_client(void *h, int c, void **client, idb_err *err)
{
    (void)c;
    lm_store *m = h, *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    *s = (lm_store){ .env = m->env, .dbi = m->dbi, .key_bytes = m->key_bytes,
                     .row_bytes = m->row_bytes, .append = m->append, .map_mb = m->map_mb,
                     .psize = m->psize, .main = m };
    s->val = malloc(LM_FIXED + (size_t)s->row_bytes);
    s->check = malloc((size_t)s->row_bytes + 1);
    if (!s->val || !s->check) {
        lm_close(s);
        return idb_fail(err, IDB_ENOMEM, "out of memory");
    }
    *client = s;
    return 0;
}

/* Begin the write txn now: mdb_txn_begin blocks while another client holds LMDB's one
 * writer lock (the wait the runner times). IDB_EIO if LMDB refuses. */
static int lm_begin(void *h, idb_err *err)
{
    lm_store *s = h;
    if (s->txn) return 0;
    int rc = mdb_txn_begin(s->env, NULL, 0, &s->txn);
    if (!rc) return 0;
    s->txn = NULL;
    return lm_fail(err, IDB_EIO, rc, "mdb_txn_begin");
}

/* Abort the open write txn, if any. */
static void lm_rollback(void *h)
{
    lm_store *s = h;
    if (s->txn) mdb_txn_abort(s->txn);
    s->txn = NULL;
}

/* Fill st as the header comment describes (from the open write txn if there is one). */
static int lm_stats(void *h, idb_store_stats *st, idb_err *err)
{
    lm_store *s = h;
    MDB_txn *t = s->txn;
    MDB_stat ms;
    MDB_envinfo ei;
    int rc = 0;
    if (!t) rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &t);
    if (!rc) rc = mdb_stat(t, s->dbi, &ms);
    if (t != s->txn) mdb_txn_abort(t);
    if (!rc) rc = mdb_env_info(s->env, &ei);
    if (rc) return lm_fail(err, IDB_EIO, rc, "mdb_stat");
    size_t entry = leaf_entry_bytes(s->psize, (size_t)s->key_bytes,
                                    LM_FIXED + (size_t)s->row_bytes);
    double cap = (double)ms.ms_leaf_pages * (double)(s->psize - LM_PAGEHDRSZ);
    *st = (idb_store_stats){
        .leaf_pages = (int64_t)ms.ms_leaf_pages,
        .branch_pages = (int64_t)ms.ms_branch_pages,
        .depth = ms.ms_depth,
        .fill_factor = cap > 0 ? (double)ms.ms_entries * (double)entry / cap : 0.0,
        .file_bytes = (int64_t)(ei.me_last_pgno + 1) * s->psize,
        .pages_written = s->pages_written,
        .checkpoint_pages = -1, .wal_frames = -1,     /* no log: nothing to checkpoint */
        .cache_misses = -1,
        .read_pages = -1,     /* reads are page faults of the map, not calls to count */
        .splits = -1,
        /* storage: the main DB's pages (the rows sit in the ID's B-tree), no other index */
        .table_bytes = (int64_t)(ms.ms_leaf_pages + ms.ms_branch_pages + ms.ms_overflow_pages) *
                       (int64_t)s->psize,
        .id_clustered = 1, .secondary_bytes = 0,
    };
    st->index_bytes = st->table_bytes;
    return 0;
}

/* The running figures (store.h: progress): the pages in use now and the pages written so
 * far (its commits' count); LMDB has no cache of its own and its reads are page faults,
 * so those are unknown (-1). IDB_EIO if mdb_stat fails. */
static int lm_progress(void *h, idb_store_progress *p, idb_err *err)
{
    idb_store_stats st;
    int rc = lm_stats(h, &st, err);
    *p = (idb_store_progress){ .index_bytes = st.file_bytes, .cache_bytes = -1,
                               .pages_written = st.pages_written, .read_pages = -1,
                               .cache_misses = -1 };
    return rc;
}

/* Call fn on every row in key order (cursor walk, in the open write txn if any); IDB_EIO if a
 * record has the wrong size or a payload its key does not imply. Stops when fn returns != 0. */
int idb_lmdb_row(const uint8_t *val, size_t len, const idb_id *id, int row_bytes,
                 uint8_t *check, idb_row *row, idb_err *err)
{
    char hex[IDB_ID_HEX_MAX];
    if (len != LM_FIXED + (size_t)row_bytes)
        return idb_fail(err, IDB_EIO, "lmdb: row %s has %zu bytes", idb_id_hex(id, hex), len);
    *row = (idb_row){ .id = *id, .shop = (uint32_t)idb_get_be(val, 4),
                      .display_no = (uint32_t)idb_get_be(val + 4, 4),
                      .created_ms = (int64_t)idb_get_be(val + 8, 8),
                      .total_cents = (int64_t)idb_get_be(val + 16, 8) };
    idb_payload_fill(check, row_bytes, id);
    if (row_bytes && memcmp(val + LM_FIXED, check, (size_t)row_bytes) != 0)
        return idb_fail(err, IDB_EIO, "lmdb: row %s: payload does not match its key",
                        idb_id_hex(id, hex));
    return 0;
}

static int lm_scan(void *h, int (*fn)(void *ctx, const idb_row *row), void *ctx, idb_err *err)
{
    lm_store *s = h;
    MDB_txn *t = s->txn;
    MDB_cursor *c = NULL;
    MDB_val k, v;
    int rc = 0, ret = 0;
    if (!t) rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &t);
    if (!rc) rc = mdb_cursor_open(t, s->dbi, &c);
    for (int op = MDB_FIRST; !rc && !ret; op = MDB_NEXT) {
        if ((rc = mdb_cursor_get(c, &k, &v, (MDB_cursor_op)op)) != 0) break;
        idb_row r;
        if (k.mv_size != (size_t)s->key_bytes || v.mv_size != LM_FIXED + (size_t)s->row_bytes) {
            ret = idb_fail(err, IDB_EIO, "lmdb: a record of %zu+%zu bytes in the store",
                           k.mv_size, v.mv_size);
            break;
        }
        idb_id id = { .len = (uint8_t)k.mv_size };
        memcpy(id.b, k.mv_data, k.mv_size);
        ret = idb_lmdb_row(v.mv_data, v.mv_size, &id, s->row_bytes, s->check, &r, err);
        if (!ret && fn(ctx, &r)) break;
    }
    if (c) mdb_cursor_close(c);
    if (t && t != s->txn) mdb_txn_abort(t);
    if (!ret && rc && rc != MDB_NOTFOUND) ret = lm_fail(err, IDB_EIO, rc, "scan");
    return ret;
}

const idb_store idb_store_lmdb = {
    .version = IDB_STORE_VERSION,
    .name = "lmdb",
    .summary = "a real LMDB environment: IDs as big-endian keys in the main database",
    .options = lm_options,
    .open = lm_open,
    .insert = lm_insert,
    .commit = lm_commit,
    .stats = lm_stats,
    .close = lm_close,
    .scan = lm_scan,
    .progress = lm_progress,
    .clients = IDB_STORE_CLIENTS_ANY,
    .open_client = lm_open_client,
    .begin = lm_begin,
    .rollback = lm_rollback,
    .open_read = idb_lmdb_open_read,       /* reads: lmdb_read.c */
    .get = idb_lmdb_get,
    .read_counts = idb_lmdb_read_counts,
    .close_read = idb_lmdb_close_read,
};
