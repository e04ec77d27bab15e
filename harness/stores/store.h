/* store.h — the store plug-in interface (version 4): where the insert runner puts rows and
 * where `idbench read` looks them up.
 *
 * One const idb_store per store, listed in stores.c. The harness owns all timing: a store
 * never reads a clock. Rows arrive one at a time through insert(); commit() ends the
 * current transaction (the harness calls it every `batch` rows and once at the end).
 *
 * Lifecycle: open() -> (insert()... commit())... -> stats() -> close().
 * Optional hooks may be NULL; the harness checks before calling.
 *
 * Version 2 (many writers, `insert --clients C`) adds, after the version-1 fields:
 *   clients      how many handles may write at once (each from its own thread): 1 for a
 *                store with no open_client; IDB_STORE_CLIENTS_ANY for no limit of its own.
 *   open_client  another handle on the store that open() made, for one more writer thread.
 *   begin        start a write transaction, waiting for the store's write lock if it has
 *                one: the harness times this call as the client's wait for that lock.
 *   rollback     abandon the current transaction (after IDB_EBUSY, before a retry).
 * With C clients the lifecycle is: open() (client 0) -> open_client() for clients 1..C-1
 * -> per client thread, per batch: begin() -> insert()... -> commit() (any of them may
 * return IDB_EBUSY: then rollback() and the batch again, counted) -> close() of clients
 * 1..C-1 -> stats() and close() of client 0, which report the whole store.
 * A version-1 plug-in (no fields after `progress`) still loads: it takes one client, and
 * the runner refuses --clients above 1 for it with one line.
 *
 * Version 3 adds, after the version-2 fields:
 *   server_cpu_ns the CPU time of the store's private servers, read by the runner around
 *                 the timed part;
 *   sample_parts  how many parts a store with these options cuts the key space into at the
 *                 quantiles of the run's own keys (0: it needs no keys ahead: the spider
 *                 store's split=sample);
 *   set_bounds    the P - 1 split points (split.h) handed to the store after open();
 *   open_read, get, read_counts, close_read  reads (`idbench read`, runner/read.h):
 *                 open the store an insert run left in dir for lookups, its own cache
 *                 empty (NULL on a model store, which has no files: the read runner
 *                 replays the run's rows into open()'s handle instead); one point lookup
 *                 by ID; the lookups' page figures so far; close open_read's handle.
 * With sample_parts(o) = P > 0 the runner makes every order's ID before it opens the
 * stores (generation timed as always, one writer, the closed loop), cuts them at their
 * quantiles (idb_split_sample) and calls set_bounds() once after open() and before the
 * first insert; the inserts then take those IDs in the same order. A version-1 or -2
 * plug-in stops before these fields: it still loads and is never asked (`idbench read`
 * refuses it with one line: idb_store_can_read).
 * Any version may fill idb_store_stats.waits (lock and latch waits it measured itself).
 *
 * Version 4 adds, after the version-3 fields:
 *   insert_assigned  insert a row whose key the store's table assigns (an identity or
 *                 AUTO_INCREMENT column) and hand the key back in the row: the strategy
 *                 autoinc (strategy.h: store_assigned). A store that has it declares the
 *                 INT option IDB_STORE_AUTOINC, which the runner sets to 1 for such a run
 *                 (the store makes its table with the key column assigning values); its
 *                 check hook sees it. With it the lifecycle is the same, insert_assigned
 *                 taking insert()'s place. A store without it (every version before 4) is
 *                 refused for autoinc before anything is made (idb_store_assigns_keys).
 *   query         range and shop queries for `idbench read` (--pattern range:W, shop[:W])
 *                 on open_read's handle, through the indexes the options
 *                 secondary_created / secondary_shop made; a store without it (every
 *                 version before 4) is refused for those patterns with one line.
 */
#ifndef IDB_STORE_H
#define IDB_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "id.h"
#include "options.h"

#define IDB_STORE_VERSION 4
#define IDB_STORE_CLIENTS_ANY 4096   /* clients: as many writers as the runner starts */
#define IDB_STORE_BACKENDS_MAX 16    /* backend servers of one store (idb_store_stats) */

/* One order. The store adds a payload of its `row_bytes` option (deterministic bytes). */
typedef struct idb_row {
    idb_id id;                /* primary key, big-endian bytes */
    uint32_t shop;            /* shop number */
    uint32_t display_no;      /* per-shop display number ("Order #1001") */
    int64_t created_ms;       /* Unix ms when the order was created */
    int64_t total_cents;
} idb_row;

/* Where the writers' time went, by class: the wait_share_<what> columns, one fixed set for
 * every store (docs/results-format.md). The classes before IDB_WAIT_LOCK_CLASSES are lock and
 * latch waits: wait_share is their sum. IO and other waits are kept apart, never counted as
 * lock waits. */
enum idb_wait_class {
    IDB_WAIT_LWLOCK_BUFFER_CONTENT,  /* postgres LWLock:BufferContent (a page's latch) */
    IDB_WAIT_LWLOCK_BUFFER_MAPPING,  /* postgres LWLock:BufferMapping (the buffer table) */
    IDB_WAIT_LOCK,                   /* postgres heavyweight Lock:* (relation extension,
                                      * transactionid, tuple, ...) */
    IDB_WAIT_INDEX_TREE,             /* mariadb sxlock index_tree_rw_lock */
    IDB_WAIT_PAGE_LATCH,             /* mariadb page latches (an instrument of a buffer
                                      * block's lock) */
    IDB_WAIT_ROW_LOCK,               /* mariadb row lock waits (Innodb_row_lock_time) */
    IDB_WAIT_LATCH_OTHER,            /* any other lock or latch: postgres LWLocks other than
                                      * the two above and BufferPin; mariadb's other innodb
                                      * mutexes and sxlocks */
    IDB_WAIT_LOCK_CLASSES,           /* the classes above are summed into wait_share */
    IDB_WAIT_IO = IDB_WAIT_LOCK_CLASSES,   /* waiting for IO (postgres IO:*, mariadb
                                      * wait/io/file): not a lock wait */
    IDB_WAIT_OTHER,                  /* any other wait: postgres Client (the backend waits
                                      * for its client), IPC, Activity, Timeout, Extension */
    IDB_WAIT_CLASSES
};

/* How a store measured idb_store_waits.v[]. */
enum idb_waits_kind {
    IDB_WAITS_NONE = 0,              /* not measured (zero-initialised stats) */
    IDB_WAITS_SAMPLES,               /* v[] counts samples of the writers' sessions, of
                                      * `samples` in all (the rest: not waiting) */
    IDB_WAITS_NS                     /* v[] is time waited in ns, summed over the writers;
                                      * the runner divides by the writers' time */
};

/* Lock and latch waits a store measured itself (postgres, mariadb), summed over all the
 * writers of the shard; the runner turns them into the wait columns (runner/waits.h). */
typedef struct idb_store_waits {
    int kind;                        /* enum idb_waits_kind */
    int64_t samples;                 /* IDB_WAITS_SAMPLES: every sample taken; else 0 */
    int64_t v[IDB_WAIT_CLASSES];     /* per class: samples or ns; -1: this class unknown */
} idb_store_waits;

/* Counters a store reports after a run; -1 = the store cannot tell (printed empty). */
typedef struct idb_store_stats {
    int64_t leaf_pages;       /* pages holding rows */
    int64_t branch_pages;     /* interior pages */
    int64_t depth;            /* levels, leaf level included (1 = the root is a leaf) */
    double fill_factor;       /* bytes used in leaf pages / capacity of those pages */
    int64_t file_bytes;       /* size of the store's files on disk */
    int64_t pages_written;    /* every page written to the store's files, checkpoints too */
    int64_t checkpoint_pages; /* pages of those written into the main database file */
    int64_t wal_frames;       /* pages of those written to a write-ahead log, as frames */
    int64_t cache_misses;     /* pages read because the store's cache lacked them */
    int64_t read_pages;       /* pages read from the store's files (the OS's view of misses) */
    int64_t splits;           /* page splits (-1 if unknown) */
    /* Server stores' figures. A store that leaves has_server 0 (every zero-initialised
     * stats) has none of them: the runner reports them unknown. With has_server 1, -1 marks
     * one figure the store cannot tell. */
    int has_server;
    int64_t wal_bytes;        /* write-ahead log bytes written during the run */
    int64_t fpi;              /* full-page images in that log */
    int64_t index_bytes;      /* the ID's index, on disk */
    int64_t table_bytes;      /* the table (heap), on disk */
    /* Storage (any store may fill these three; with has_server 0, index_bytes and
     * table_bytes left 0 are read as unknown): id_clustered 1 when the rows are kept in
     * the ID's B-tree (sqlite, lmdb, pagesim, InnoDB's PRIMARY KEY (id)), so index_bytes is
     * table_bytes; secondary_bytes: every index on the table other than the ID's and the
     * table itself, on disk (0: none; -1: unknown). */
    int id_clustered;
    int64_t secondary_bytes;
    /* Optional: the fill (as fill_factor) of the leaf pages written since the previous
     * stats() call, or open(), and how many they are (insert --then: the leaves a phase
     * touched); touched_leaves 0 (zero-initialised): unknown. pagesim only. */
    double touched_fill;
    int64_t touched_leaves;
    double leaf_fragmentation;   /* leaf pages out of key order / leaf pages, 0-1 */
    int64_t extend_pages;     /* pages the table and its indexes were extended by (new
                               * pages: not in cache_misses) */
    int64_t autovacuum_runs;  /* autovacuum and autoanalyze passes on the table in the run */
    int users_server;         /* 1: the rows went to a server idbench did not start (dsn=):
                               * its writes are not idbench's to see (write_bytes_per_id) */
    idb_store_waits waits;    /* lock and latch waits the store measured (kind 0: none) */
    /* A store over several backend servers (spider). backends 0 (every other store, every
     * zero-initialised stats): none of the figures below; the runner reports them unknown.
     * Shares are of the rows the backends hold after the run (counted there). */
    int backends;
    double backend_share[IDB_STORE_BACKENDS_MAX];   /* backend j's share of the rows */
    double hot_share;                /* the largest of them */
    double hot_share_window_max;     /* the largest share of one backend within any window
                                      * of `window` consecutive rows, in insert order */
    double backend_cpu_s[IDB_STORE_BACKENDS_MAX];   /* CPU seconds of backend j's server
                                                     * in the run, -1 unknown */
    double head_cpu_s;               /* the same for the head server */
    int64_t backend_pages_written_max;   /* the largest backend's pages_written (the sum
                                          * is pages_written) */
    int64_t backend_cache_misses_max;    /* the same for cache_misses */
} idb_store_stats;

/* A range or shop query (`idbench read --pattern range:W|shop[:W]`, runner/read.h): the
 * rows with created_ms >= created_lo and
 *   IDB_QUERY_ID_FROM       id >= id_lo: the ID's own index, for a time-ordered strategy;
 *   IDB_QUERY_CREATED_FROM  nothing more: the index on created_ms (-s secondary_created=1);
 *   IDB_QUERY_SHOP          shop = shop: the index on (shop, created_ms) (-s
 *                           secondary_shop=1). */
enum idb_query_kind { IDB_QUERY_ID_FROM, IDB_QUERY_CREATED_FROM, IDB_QUERY_SHOP };
typedef struct idb_query {
    int kind;                 /* enum idb_query_kind */
    idb_id id_lo;             /* IDB_QUERY_ID_FROM */
    int64_t created_lo;
    uint32_t shop;            /* IDB_QUERY_SHOP */
} idb_query;

/* The secondary indexes a store with a query hook makes at open() when their option is 1
 * (sqlite, postgres, mariadb: the same names, SQL every one of them takes), listed in
 * idb_store_secondaries (stores.c, ended by { 0 }); IDB_SECONDARY_OPTIONS declares the
 * options in a store's table. */
typedef struct idb_secondary {
    const char *option;       /* secondary_created, secondary_shop */
    const char *sql;          /* CREATE INDEX ... ON orders(...) */
} idb_secondary;
extern const idb_secondary idb_store_secondaries[];
#define IDB_SECONDARY_OPTIONS \
    { .name = "secondary_created", .type = IDB_OPT_INT, .def = "0", \
      .help = "1: an index on created_ms (read --pattern range on IDs not time-ordered)", \
      .min = 0, .max = 1 }, \
    { .name = "secondary_shop", .type = IDB_OPT_INT, .def = "0", \
      .help = "1: an index on (shop, created_ms) (read --pattern shop)", .min = 0, .max = 1 }

/* A store's running figures while a run goes on (the progress hook): cumulative since
 * open, -1 = the store cannot tell. */
typedef struct idb_store_progress {
    int64_t index_bytes;      /* bytes of the store's B-tree pages now */
    int64_t cache_bytes;      /* the store's own page cache (its option), in bytes */
    int64_t pages_written;    /* as idb_store_stats, so far (no checkpoint or flush forced) */
    int64_t read_pages;
    int64_t cache_misses;
} idb_store_progress;

/* One point of a miss-ratio curve. */
typedef struct idb_curve_point {
    int64_t cache_pages;
    double misses_per_insert;
    double writes_per_insert;
} idb_curve_point;

typedef struct idb_store {
    int version;              /* IDB_STORE_VERSION */
    const char *name;         /* short, stable, lowercase */
    const char *summary;      /* one line */
    const idb_opt_decl *options;

    /* Create a new, empty store in the existing directory dir for keys of key_bytes,
     * any width from 1 to IDB_ID_MAX (idb_store_check_width refuses others); keys are
     * kept in idb_id_cmp order. Refuses (IDB_EINPUT) a store file that exists and is not
     * one of ours. Returns 0 and *h, or an IDB_E* code with err filled. */
    int (*open)(const char *dir, const idb_opts *opts, int key_bytes, void **h, idb_err *err);
    /* Add one row in the current transaction (begun implicitly). IDB_EINPUT on a key the
     * store cannot take (e.g. a duplicate, or not ascending with lmdb append=1). */
    int (*insert)(void *h, const idb_row *row, idb_err *err);
    /* Commit the current transaction (no-op when none is open). */
    int (*commit)(void *h, idb_err *err);
    /* Fill st after the last commit. */
    int (*stats)(void *h, idb_store_stats *st, idb_err *err);
    /* Close and free (NULL is fine). The files stay in dir. */
    void (*close)(void *h);

    /* Optional: the whole miss-ratio curve of this run at n cache sizes, in one pass. */
    int (*curve)(void *h, const int64_t *cache_pages, int n, idb_curve_point *out, idb_err *err);
    /* Optional: call fn on every stored row in key order (tests read rows back). fn
     * returns 0 to go on. */
    int (*scan)(void *h, int (*fn)(void *ctx, const idb_row *row), void *ctx, idb_err *err);
    /* Optional: the checks open() makes of opts for key_bytes-wide keys that need no file
     * (values that do not fit together or with the width), so that a run can refuse them
     * before it creates anything. open() makes them too. Returns 0 or IDB_EINPUT. */
    int (*check)(const idb_opts *opts, int key_bytes, idb_err *err);
    /* 1 for a model (pagesim): it counts pages but measures no time, so its runs report
     * no latency or throughput (insert.c leaves those unknown). */
    int model;
    /* Optional: whether the store can run on this machine with the -s options kv[0..nkv):
     * 0 with its server's version in version (cap bytes; "" when it has none), or IDB_EIO
     * with why saying what is missing (a server's binaries). The matrix lists the runs of a
     * store that is not available as skipped instead of failing them. */
    int (*available)(const char *const *kv, int nkv, char *version, size_t cap, idb_err *why);
    /* Optional: the running figures of idb_store_progress, cheaply and without changing
     * what the run does (no checkpoint, no page walk, no cache traffic): the insert
     * runner calls it between transactions for --series. Returns 0 or IDB_EIO. */
    int (*progress)(void *h, idb_store_progress *p, idb_err *err);

    /* --- version 2: many writers (see the header). A version-1 plug-in stops above. --- */
    /* Writers the store takes at once, >= 1 (IDB_STORE_CLIENTS_ANY: no limit of its own);
     * above 1 needs open_client. 0 (not set) is read as 1. */
    int clients;
    /* Another handle on the store h (returned by open(), not yet closed) for client c
     * (1-based among the extra ones), usable from another thread at the same time as h and
     * the other clients; insert/commit/begin/rollback take it like h; close() frees it (the
     * runner closes every client before h). Returns 0 and *client, or an IDB_E* code. */
    int (*open_client)(void *h, int c, void **client, idb_err *err);
    /* Optional: begin a write transaction on h now, blocking while another writer holds the
     * store's write lock; the harness times the call as lock wait (wait_share). IDB_EBUSY
     * when the store gave up waiting (retried by the runner), IDB_EIO else. */
    int (*begin)(void *h, idb_err *err);
    /* Optional (needed for retries): roll back h's open transaction, if any. Never fails
     * in a way the runner can act on; a store that cannot roll back closes its txn. */
    void (*rollback)(void *h);

    /* --- version 3 (see the header). A version-2 plug-in stops above. --- */
    /* Optional: the CPU time (ns) the private server(s) behind h have used so far (user +
     * system, from /proc: server.h idb_server_cpu_ns), or -1 when h writes to a server
     * idbench did not start (dsn=, socket=). The runner reads it before and after the timed
     * part (server_cpu_ns_per_order). */
    int64_t (*server_cpu_ns)(void *h);
    /* Optional: with options o (parsed and checked), the number of parts P (2 ..
     * IDB_SPLIT_PARTS_MAX of split.h) the store cuts the key space into at the quantiles of
     * the run's own keys, or 0 when it needs none. */
    int (*sample_parts)(const idb_opts *o);
    /* Needed with sample_parts: the n = P - 1 split points (ascending, the store's key
     * width), once, after open() and before the first insert. Returns 0, IDB_EINPUT (points
     * that are not P - 1 ascending keys of the width) or IDB_EIO (the store's layout could
     * not be made). */
    int (*set_bounds)(void *h, const idb_id *points, int n, idb_err *err);
    /* Optional: open the store an insert run left in dir (made by open() with the same opts
     * and key_bytes) for lookups only, its own page cache empty; the files are not changed.
     * IDB_EINPUT when dir holds no such store, IDB_EIO else. A model store leaves it NULL:
     * its handle for reads is open()'s, filled again by insert() (the run's rows replayed). */
    int (*open_read)(const char *dir, const idb_opts *opts, int key_bytes, void **h,
                     idb_err *err);
    /* Look id up on h (open_read's, or a model's open() handle after its rows): *found 1
     * with the stored row in *row, or 0. A model counts the lookup's pages in a buffer pool
     * of its own for reads, empty at the first get (cold). Returns 0 or IDB_EIO. */
    int (*get)(void *h, const idb_id *id, idb_row *row, int *found, idb_err *err);
    /* The lookups' figures on h so far, cumulative since open_read (a model: since its first
     * get): *misses pages the store's cache lacked, *read_pages pages read from its files;
     * -1 for a figure it cannot tell. Returns 0 or IDB_EIO. */
    int (*read_counts)(void *h, int64_t *misses, int64_t *read_pages, idb_err *err);
    /* Optional: close open_read's handle (NULL is fine); NULL: close() closes it. */
    void (*close_read)(void *h);

    /* --- version 4 (see the header). A version-3 plug-in stops above. --- */
    /* Optional: add row (its id ignored) in the current transaction with the key the
     * store's key column assigns, and write that key into row->id (8 bytes, big-endian: the
     * value read back from the statement, never computed). Only on a store opened with
     * IDB_STORE_AUTOINC = 1. IDB_EINPUT for a key the store refuses (a duplicate), IDB_EBUSY
     * for a failure a new transaction may not meet (a deadlock, a certification failure:
     * the runner rolls back and retries, counted), IDB_EIO else. */
    int (*insert_assigned)(void *h, idb_row *row, idb_err *err);
    /* Optional: run query q on open_read's handle h, calling fn on every row it returns
     * (fn returns 0 to go on); the rows are counted in read_counts like a lookup's. A
     * store sets it when it keeps the indexes a query needs (the options
     * secondary_created and secondary_shop, idb_query). Returns 0, IDB_EINPUT (a query it
     * cannot run) or IDB_EIO. */
    int (*query)(void *h, const struct idb_query *q, int (*fn)(void *ctx, const idb_row *row),
                 void *ctx, idb_err *err);
} idb_store;

/* 1 when st can assign keys (version 4, insert_assigned set, IDB_STORE_AUTOINC declared):
 * the stores the strategy autoinc runs on (stores.c). */
int idb_store_assigns_keys(const idb_store *st);

/* The parts store st cuts the run's own keys into with options o (version 3's
 * sample_parts), 0 for a store before version 3 or without the hook (stores.c). */
int idb_store_sample_parts(const idb_store *st, const idb_opts *o);

/* 1 when st can serve `idbench read`: version 3, get and read_counts set, and open_read
 * set or st a model (whose rows the read runner replays). */
int idb_store_can_read(const idb_store *st);

/* Writers store st takes at once: its `clients` when it is version 2+ and has open_client,
 * else 1 (stores.c). */
int idb_store_clients(const idb_store *st);

/* The CPU time (ns) of the private servers behind h so far: st's server_cpu_ns hook when
 * it is version 3 and has one, else -1 (no private server, or cannot tell) (stores.c). */
int64_t idb_store_server_cpu_ns(const idb_store *st, void *h);

/* Options a store may declare (INT) to learn where it stands: the insert runner sets them
 * for each shard's open() (a user's value is overwritten): its shard number k (0-based)
 * and the run's shard count. A server store uses them to pick the k-th of a list of
 * servers. */
#define IDB_STORE_SHARD "shard"
#define IDB_STORE_SHARDS "shards"
/* An INT option a store may declare to learn the run's --window (rows; the runner sets it
 * when --window is given, else the store's default stands): the spider store's
 * hot_share_window_max. */
#define IDB_STORE_WINDOW "window"
/* An INT option (0|1) a store that assigns keys declares (version 4: insert_assigned): the
 * runner sets it to 1 when the strategy lets the store assign keys (autoinc). */
#define IDB_STORE_AUTOINC "autoinc"
/* An INT option a store of several servers declares to take --fault join-node@N: the runner
 * sets it to N (galera: one more node joins after N orders). */
#define IDB_STORE_JOIN_AT "join_at"

/* The registry (stores.c): every store, NULL-terminated; lookup by name. */
extern const idb_store *const idb_stores[];
const idb_store *idb_store_find(const char *name);

/* Check every store of table (NULL-terminated; idb_stores at start-up) against this
 * interface: a name, version 1 to 4 (IDB_STORE_VERSION), the five required functions set,
 * from version 2, clients above 1 only with open_client, from version 3, sample_parts
 * only with set_bounds, and from version 4, insert_assigned only with the option
 * IDB_STORE_AUTOINC declared.
 * Returns 0, or IDB_EINPUT with err naming the first plug-in that fails and why. */
int idb_store_check_table(const idb_store *const *table, idb_err *err);

/* Options every store takes, declared once here and applied by the insert runner, not by
 * the store (a store sees only its own options):
 *   key_bytes  INT, default 0  pad every key to N bytes, big-endian with leading zero bytes
 *              (order kept); 0 = the strategy's own width; less than it is refused.
 *   device, read_us, write_us  the device model (runner/device.h): modelled microseconds
 *              per page read / written, or a preset; accounted, never slept. */
extern const idb_opt_decl idb_store_common_options[];

/* Parse kv[0..nkv) ("key=value", -s options) for store st: the common options into width
 * (natural, the strategy's width, when key_bytes is 0 or not given), every other one
 * against st's table into o, then st's check hook with that width. Returns 0, or
 * IDB_EINPUT with err (an unknown option, key_bytes below natural, a check refused). */
int idb_store_opts_parse(const idb_store *st, const char *const *kv, int nkv, int natural,
                         idb_opts *o, int *width, idb_err *err);

/* The value of option key in kv[0..nkv) ("key=value" strings, the last one given), or ""
 * when it is not given: for hooks that see the raw options (available). */
const char *idb_store_kv_value(const char *const *kv, int nkv, const char *key);

/* For a store's open(): 0 when key_bytes is a width every store takes (1 .. IDB_ID_MAX),
 * else IDB_EINPUT with err saying so, the message starting with the store's name. */
int idb_store_check_width(const char *store, int key_bytes, idb_err *err);

#endif
