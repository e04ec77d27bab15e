/* spider.h — what the files of the `spider` store share (store_spider.c: options, open,
 * inserts, close; spider_servers.c: the private backends and head, their accounts and
 * tables; spider_stats.c: where the rows went and the backends' figures). Internal to
 * harness/stores.
 */
#ifndef IDB_SPIDER_H
#define IDB_SPIDER_H

#include "mariadb.h"
#include "split.h"

#define SP_BACKENDS_MAX IDB_SPLIT_PARTS_MAX   /* -s backends= at most */

/* The mariadb store's table (store_mariadb.c): the head's inserts and commits, and every
 * server's close, go through it on md_store handles. */
extern const idb_store idb_store_mariadb;
#define SP_DB "idbench"                        /* the database on every server */
#define SP_USER "idbench_spider"               /* the head's account on each backend */
#define SP_SECRET_MAX 64

enum sp_partition { SP_RANGE, SP_HASH, SP_KEY };   /* the option partition's choices */
enum sp_split { SP_SPACE, SP_SAMPLE };             /* the option split's choices */

/* One open store: B backends and the head, each a private server with a connection. */
typedef struct sp_store {
    md_store *head;                    /* the head: the Spider table, the prepared INSERT */
    md_store *back[SP_BACKENDS_MAX];   /* backend j: its InnoDB orders table */
    int nback, partition, split, space_bits, key_bytes, row_bytes;
    int64_t window;                    /* rows of hot_share_window_max's window */
    int table_made;                    /* 1 once the head's Spider table exists */
    idb_id points[SP_BACKENDS_MAX];    /* partition=range: the nback - 1 split points */
    char secret[SP_SECRET_MAX];        /* the head's password on the backends (this run's) */
    uint8_t *keys;                     /* the keys inserted, in insert order */
    int64_t nkeys, cap;
    long long cpu0[SP_BACKENDS_MAX + 1];  /* CPU ns of the backends (and the head, last) once
                                           * the backends' counters were read (their start) */
} sp_store;

/* Start backend j's private server in <dir>/backend-j (or the head's in <dir>/head for
 * j = -1) with o's settings, into a new md_store *out connected as root. Returns 0 or the
 * server API's code with one message. */
int sp_server_start(const char *dir, int j, const idb_opts *o, sp_store *s, md_store **out,
                    idb_err *err);

/* On backend b: the database, the head's account (SP_USER with s->secret) and the orders
 * table. Returns 0 or IDB_EIO. */
int sp_backend_schema(sp_store *s, md_store *b, idb_err *err);

/* On the head: Spider loaded, the database, one CREATE SERVER per backend (its socket,
 * SP_USER, s->secret). Returns 0 or IDB_EIO ("the Spider engine cannot be loaded: ..."). */
int sp_head_schema(sp_store *s, idb_err *err);

/* On the head: the Spider table partitioned over the backends by s->partition (range: by
 * s->points), then the INSERT prepared. Returns 0 or IDB_EIO. */
int sp_head_table(sp_store *s, idb_err *err);

/* The store's stats() (spider_stats.c). */
int sp_stats(void *h, idb_store_stats *st, idb_err *err);

#endif
