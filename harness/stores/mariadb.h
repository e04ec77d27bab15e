/* mariadb.h — what the files of the `mariadb` store share (store_mariadb.c: connection,
 * schema, inserts, scan; mariadb_stats.c: the server's counters and stats()). Internal to
 * harness/stores: nothing outside the store includes it.
 */
#ifndef IDB_MARIADB_H
#define IDB_MARIADB_H

#include <limits.h>
#include <mysql.h>
#include <stdint.h>

#include "store.h"

#define MD_DB_NAME_MAX 64          /* "idbench_<pid>_<shard>" and the like */
#define MD_SQL_MAX 1024            /* the longest statement the store builds */
#define MD_USER_MAX 256            /* a database user name (an option's longest value) */
#define MD_QUERIES (IDB_QUERY_SHOP + 1)   /* query kinds (store.h idb_query) */

/* The server-wide counters the store reads at open() and at stats(); stats() reports the
 * differences (see mariadb_stats.c for what each one means). */
typedef struct md_counters {
    int64_t pages_read;            /* Innodb_pages_read: every page read */
    int64_t read_ahead;            /* Innodb_buffer_pool_read_ahead (linear read-ahead) */
    int64_t read_ahead_rnd;        /* Innodb_buffer_pool_read_ahead_rnd (random) */
    int64_t pages_written;         /* Innodb_pages_written */
    int64_t log_written;           /* Innodb_os_log_written (redo bytes) */
    int64_t splits;                /* INNODB_METRICS index_page_splits */
} md_counters;

/* One open store: a connection to its shard's server and its own database there. */
typedef struct md_store {
    MYSQL *db;
    MYSQL_STMT *ins;               /* the prepared INSERT */
    MYSQL_BIND bind[6];
    unsigned long payload_len, id_len;
    uint64_t id_u64;               /* the ID as BIGINT UNSIGNED (8-byte keys) */
    uint8_t id_buf[IDB_ID_MAX];
    uint32_t shop, display_no;
    int64_t created_ms, total_cents;
    uint8_t *payload;              /* row_bytes bytes */
    uint8_t *check;                /* mariadb_read.c: row_bytes + 1 bytes, the payload a
                                    * key implies (NULL on a writer) */
    MYSQL_STMT *qs[MD_QUERIES];    /* mariadb_read.c: the queries by idb_query kind, made at
                                    * their first use (NULL until then) */
    int key_bytes, row_bytes, secondary, keep, in_txn;
    int autoinc;                   /* 1: the table's id is AUTO_INCREMENT (the store assigns
                                    * keys: md_insert_assigned), the INSERT names no id */
    int created_db;                /* 1 once open() created dbname (close drops it) */
    int64_t rows;                  /* rows committed by this session, and by the clients
                                    * closed so far on open()'s handle (fill_factor) */
    int64_t pending;               /* rows of the open transaction, not yet committed */
    int64_t page_size;             /* the server's innodb_page_size */
    int monitors_enabled;          /* 1 when open() enabled the index metrics (disabled at close) */
    md_counters start;             /* counters at open() */
    char dbname[MD_DB_NAME_MAX];
    char socket[PATH_MAX];
    char user[MD_USER_MAX];        /* the database user ("": the login user) */
    struct idb_server *server;     /* the private server, or NULL on a user's server */
    struct md_store *main;         /* a client's open()'s handle; NULL on that handle */
    int isolation;                 /* isolation= (enum index: md_isolation_sql's) */
    int64_t lock_wait_s;           /* lock_wait_timeout= (innodb_lock_wait_timeout) */
    int connect_wait_s;            /* md_connect: how long to retry a server that drops the
                                    * connection before its greeting (0: one try) */
    /* mariadb_waits.c: this session's wait time by class when it began (ps), whether
     * it could be read; on open()'s handle the sessions' sums, whether one failed, and
     * Innodb_row_lock_time at open (ms, -1: not counted). */
    int64_t waits_base[IDB_WAIT_CLASSES];
    int waits_ok;
    int64_t waits_ps[IDB_WAIT_CLASSES];
    int waits_failed;
    int64_t row_lock_ms0;
} md_store;

/* Run one statement that returns no rows. Returns 0, or code with err saying
 * "mariadb: what: <the server's message>". */
int md_exec(md_store *s, const char *sql, int code, const char *what, idb_err *err);

/* The first column of the first row of a query as an integer into *v (-1 for NULL or no
 * row). Returns 0 or IDB_EIO with err filled. */
int md_query_i64(md_store *s, const char *sql, int64_t *v, idb_err *err);

/* Fail with code and "mariadb: what: <the client's message for db>". */
int md_fail(MYSQL *db, int code, const char *what, idb_err *err);

/* Read the server-wide counters into *c. Returns 0 or IDB_EIO. */
int md_counters_read(md_store *s, md_counters *c, idb_err *err);

/* mariadb_stats.c: the server's counters now less those at open() (s->start) into *d;
 * FLUSH TABLES orders FOR EXPORT (its dirty pages written) then UNLOCK TABLES; the cache
 * misses among counter differences d: every page read less those read ahead of need,
 * linear or random. The two first return 0 or IDB_EIO. */
int md_counters_since_open(md_store *s, md_counters *d, idb_err *err);
int md_flush_table(md_store *s, idb_err *err);
int64_t md_misses(const md_counters *d);

/* The store's progress hook (store.h); mariadb_stats.c. */
int md_progress(void *h, idb_store_progress *p, idb_err *err);

/* Enable the index metrics (page splits) unless they are on already; records in
 * s->monitors_enabled that this store turned them on. Returns 0 or IDB_EIO. */
int md_monitors_on(md_store *s, idb_err *err);

/* Turn off what md_monitors_on turned on (best effort: close paths). */
void md_monitors_off(md_store *s);

/* With socket=: IDB_EINPUT when an option that sets a private server's setting
 * (buffer_pool_bytes, flush_log_at_trx_commit, page_size) was given a value other than its
 * default and the user's server has another; 0 otherwise; IDB_EIO when it cannot tell. */
int md_settings_check(md_store *s, const idb_opts *o, idb_err *err);

/* The store's `available` hook (mariadb_server.c; store.h). */
int md_available(const char *const *kv, int nkv, char *version, size_t cap, idb_err *why);

/* Start shard's private server in <dir>/mariadb with o's settings and then extra[0..nextra)
 * ("name=value", at most MD_EXTRA_MAX) (harness/servers); fills s->server, s->socket,
 * s->user. Returns 0 or the server API's code (IDB_EIO: the preflight or the start failed,
 * with one message). */
#define MD_EXTRA_MAX 4
int md_server_start(md_store *s, const char *dir, const idb_opts *o, const char *const *extra,
                    int nextra, idb_err *err);

/* store_mariadb.c: the close hook: rolls back, drops the database it created on a user's
 * server unless keep=1, stops a private server, frees s (NULL is fine). */
void md_close(void *h);
/* Bind s->bind[0..5] to s's row fields (id, shop, display_no, created_ms, total_cents,
 * payload): the INSERT's parameters, or the lookup's key and its result columns; the
 * payload's buffer holds payload_cap bytes. store_mariadb.c. */
void md_bind_row(md_store *s, unsigned long payload_cap);
/* A new zeroed md_store for key_bytes-wide keys and row_bytes of payload (its payload
 * buffer: row_bytes + 1 bytes), database dbname (NULL: none yet); the caller's, freed by
 * md_close. NULL with err (IDB_ENOMEM) when memory runs out. store_mariadb.c. */
md_store *md_alloc(int key_bytes, int row_bytes, const char *dbname, idb_err *err);

/* mariadb_read.c: the read side (store.h version 3): the run's private server restarted on
 * the data in dir, point lookups by a prepared statement (see mariadb_read.c). */
int md_open_read(const char *dir, const idb_opts *o, int key_bytes, void **h, idb_err *err);
int md_get(void *h, const idb_id *id, idb_row *row, int *found, idb_err *err);
int md_read_counts(void *h, int64_t *misses, int64_t *read_pages, idb_err *err);
int md_query(void *h, const idb_query *q, int (*fn)(void *ctx, const idb_row *row), void *ctx,
             idb_err *err);

/* Stop s's private server (orderly) and forget it; NULL server is fine. */
void md_server_stop(md_store *s);
/* Start s's private server in path with exactly these settings (no defaults added) and
 * record its socket and user in s. 0, IDB_EINPUT or IDB_EIO (mariadb_server.c). */
int md_server_start_at(md_store *s, const char *path, const char *const *settings, int n,
                       idb_err *err);
/* One node of a store made of several servers (spider's head and backends, galera's
 * nodes): md_server_start_at, then connect as its user and read its InnoDB page size. */
int md_node_start(md_store *s, const char *path, const char *const *settings, int n,
                  idb_err *err);

/* mariadb_waits.c: the settings a private server gets for the wait figures
 * (perf_schema=on). */
#define MD_WAITS_SETTINGS 4
extern const char *const md_waits_settings[MD_WAITS_SETTINGS];
/* The class (store.h enum idb_wait_class) of a performance_schema instrument's wait time,
 * -1 for one that is not counted (table io, table locks, sockets: they hold other waits). */
int md_wait_class(const char *event);
/* At the end of a session's open (s connected): its wait time so far, the baseline; on
 * open()'s handle also Innodb_row_lock_time (private server only). */
void md_waits_begin(md_store *s);
/* At a session's end (a client's close): its waits since md_waits_begin added to open()'s
 * handle's sums (or that handle marked failed when performance_schema cannot be read). */
void md_waits_end(md_store *s);
/* In open()'s handle's stats(): its own session's waits added, then every session's sums
 * into w (ns; kind IDB_WAITS_NONE when one session's could not be read). */
void md_waits_stats(md_store *s, idb_store_waits *w);
/* Connect s->db to the server at s->socket as user (NULL: the login user), without a
 * password; a connection lost before the server's greeting is tried again for up to
 * s->connect_wait_s seconds (a Galera node answers only once its state transfer is done).
 * Returns 0, IDB_ENOMEM or IDB_EIO ("cannot connect to the server at ..."). */
int md_connect(md_store *s, const char *user, idb_err *err);
/* Close s's prepared statements, the INSERT and the read queries, and forget them (before
 * its connection closes: md_close, a Galera node's reconnect). store_mariadb.c. */
void md_stmts_close(md_store *s);

/* The CREATE TABLE orders statement for s's key_bytes, row_bytes and secondary into sql
 * (MD_SQL_MAX bytes): InnoDB, the options of the header of store_mariadb.c. The spider
 * store takes its columns for its backends' tables and its head's Spider table. */
void md_table_sql(const md_store *s, char *sql);

/* Prepare the INSERT into orders on s->db (its database selected), bind it to s's row
 * fields, turn autocommit off (s->payload must hold row_bytes + 1 bytes). Returns 0,
 * IDB_ENOMEM or IDB_EIO. */
int md_prepare(md_store *s, idb_err *err);

/* The store's insert_assigned hook (store.h version 4; store_mariadb.c): execute the
 * INSERT without an id (s->autoinc) and read the key the server assigned back from the
 * statement (mysql_stmt_insert_id: a single-row INSERT's own key) into row->id. */
int md_insert_assigned(void *h, idb_row *row, idb_err *err);

/* The store's stats() (mariadb_stats.c). */
int md_stats(void *h, idb_store_stats *st, idb_err *err);

#endif
