/* pg_int.h — what the three files of the postgres store share: the store's state, the key
 * encoding and the helpers between store_postgres.c (options, open, close, schema),
 * pg_write.c (insert and commit by prepared statements, pipeline or COPY) and pg_stats.c
 * (the statistics queries and scan). Not a public interface.
 */
#ifndef IDB_PG_INT_H
#define IDB_PG_INT_H

#include <libpq-fe.h>
#include <stdint.h>

#include "store.h"

#define PG_NAME_MAX 64           /* an identifier we make, NUL included */
#define PG_LSN_MAX 32            /* "XXXXXXXX/XXXXXXXX" plus NUL, with room */
#define PG_FIXED_FIELDS 5        /* id, shop, display_no, created_ms, total_cents */
#define PG_FIELDS (PG_FIXED_FIELDS + 1)   /* and the payload */

/* How the ID column is typed (key width decides: see store_postgres.c). */
enum pg_key_type { PG_KEY_BIGINT, PG_KEY_UUID, PG_KEY_BYTEA };
/* method= */
enum pg_method { PG_PREPARED, PG_PIPELINE, PG_COPY };

struct idb_server;
struct pg_sampler;

typedef struct pg_store {
    PGconn *c;
    char dsn[IDB_OPT_VALUE_MAX];  /* what we connected with (kept to drop the schema) */
    struct idb_server *srv;       /* our private server, or NULL with a dsn */
    int shard;
    int key_bytes, row_bytes, secondary, keep, fillfactor;
    int autoinc;                  /* 1: id is an identity column (the store assigns keys:
                                   * pg_insert_assigned), kept as is (no top bit flipped) */
    enum pg_key_type key_type;
    enum pg_method method;
    int64_t checkpoint_every;     /* rows between CHECKPOINTs, 0: none */
    int64_t since_checkpoint;     /* rows since the last one */
    int64_t rows;                 /* rows committed */
    int in_txn;                   /* BEGIN sent, COMMIT not yet */
    int pending;                  /* pipeline: statements whose results are not read yet */
    int made_schema;              /* the schema is ours to drop */
    char schema[PG_NAME_MAX];     /* idbench_<pid>_<shard>_<n>: lowercase, needs no quotes */
    char start_lsn[PG_LSN_MAX];   /* WAL insert position when the run began */
    char slot[PG_NAME_MAX];       /* the temporary replication slot keeping that WAL, or "" */
    char ext_stattuple[PG_NAME_MAX];   /* schema of pgstattuple, "" if not available */
    char ext_walinspect[PG_NAME_MAX];  /* schema of pg_walinspect, "" if not available */
    uint8_t *buf;                 /* one row's encoded fields (COPY tuple or params) */
    size_t buf_cap;
    struct pg_store *main;        /* a client's (store.h, version 2): open()'s handle; NULL
                                   * on open()'s handle itself */
    int64_t shared_rows;          /* open()'s handle: rows every client committed (atomic),
                                   * for checkpoint_every across clients */
    int has_clients;              /* open()'s handle: open_client made a client */
    char sync_commit[16];         /* synchronous_commit, for the clients' sessions */
    int isolation;                /* isolation= (enum index: pg_isolation_sql's), every session */
    int64_t lock_timeout_ms;      /* lock_timeout_ms=, every session (0: none) */
    struct pg_sampler *sampler;   /* open()'s handle: the wait sampler (pg_waits.c), or NULL */
    int64_t read_base;            /* pg_read.c: blocks read when the lookups could start */
    int queries_prepared;         /* pg_read.c: bit k: query kind k is prepared */
} pg_store;

/* "postgres: shard K: what: <libpq's message, first line>" into err with code; returns code. */
int pg_fail(pg_store *s, idb_err *err, int code, const char *what);
/* Run sql (no parameters, text results); 0 if it returned status want (PGRES_COMMAND_OK or
 * PGRES_TUPLES_OK), else pg_fail with what. *out gets the result when out is not NULL (the
 * caller PQclear()s it), else it is cleared. */
int pg_exec(pg_store *s, const char *sql, ExecStatusType want, PGresult **out,
            const char *what, idb_err *err);
/* Encode row's ID as the bytes of its column's binary value into out (key_bytes bytes):
 * bigint: the big-endian ID with its top bit flipped (so signed order = unsigned order);
 * uuid and bytea: the ID's bytes. decode is the inverse. */
void pg_key_encode(const pg_store *s, const idb_id *id, uint8_t *out);
void pg_key_decode(const pg_store *s, const uint8_t *in, int len, idb_id *id);

/* The code of a failed statement's SQLSTATE state (may be NULL): IDB_EBUSY for a
 * serialization failure, a deadlock or a lock not available (a retry may succeed),
 * else IDB_EIO. */
int pg_state_code(const char *state);

/* store_postgres.c: the check hook (options only, no server: dsn and dsn_file, not both,
 * each conninfo parsed; shared_buffers); 0 or IDB_EINPUT. */
int pg_check(const idb_opts *o, int key_bytes, idb_err *err);
/* Fill s from the options (key type, widths, method, its dsn; s->buf allocated), no
 * connection yet. 0, IDB_EINPUT (a dsn_file) or IDB_ENOMEM. */
int pg_configure(pg_store *s, const idb_opts *o, int key_bytes, idb_err *err);
/* Connect s to s->dsn and set the session up (o NULL: a client, with s->sync_commit
 * already set). IDB_EIO when it does not connect. */
int pg_connect(pg_store *s, const idb_opts *o, idb_err *err);
/* The close hook: the connection closed, our schema dropped from a user's server unless
 * keep=1, our private server stopped, s freed (NULL is fine). */
void pg_close(void *h);

/* pg_write.c: the store's rollback hook (version 2: after IDB_EBUSY). */
void pg_rollback(void *h);
/* pg_write.c: the store's insert and commit hooks. */
int pg_insert(void *h, const idb_row *row, idb_err *err);
int pg_commit(void *h, idb_err *err);
/* pg_write.c: the store's insert_assigned hook (store.h version 4; s->autoinc, method
 * prepared): one INSERT ... RETURNING id per row, the key read back into row->id. */
int pg_insert_assigned(void *h, idb_row *row, idb_err *err);
/* Prepare the insert statement (method prepared or pipeline). */
int pg_write_prepare(pg_store *s, idb_err *err);

/* pg_stats.c: after the table exists: find or make the extensions, keep the WAL from here
 * (a temporary slot) and mark the start. Figures it cannot reach stay unknown; fails only
 * on a lost connection. */
int pg_stats_begin(pg_store *s, idb_err *err);
int pg_stats(void *h, idb_store_stats *st, idb_err *err);
int pg_progress(void *h, idb_store_progress *p, idb_err *err);
int pg_scan(void *h, int (*fn)(void *ctx, const idb_row *row), void *ctx, idb_err *err);
/* Row i of a binary result r whose columns are id, shop, display_no, created_ms,
 * total_cents, payload into *row, the payload checked against the key (check: row_bytes of
 * scratch). 0 or IDB_EIO (a wrong width, a payload not the key's). */
int pg_row(pg_store *s, const PGresult *r, int i, idb_row *row, uint8_t *check, idb_err *err);
/* The blocks of orders and its indexes read from outside shared_buffers so far
 * (pg_statio_all_tables after a forced stats flush) into *n (-1: unknown). 0 or IDB_EIO. */
int pg_blocks_read(pg_store *s, int64_t *n, idb_err *err);

/* pg_read.c: the read side (store.h version 3): the run's private server restarted on
 * the data in dir, point lookups by a prepared statement (see pg_read.c). */
int pg_open_read(const char *dir, const idb_opts *o, int key_bytes, void **h, idb_err *err);
int pg_get(void *h, const idb_id *id, idb_row *row, int *found, idb_err *err);
int pg_read_counts(void *h, int64_t *misses, int64_t *read_pages, idb_err *err);
int pg_query(void *h, const idb_query *q, int (*fn)(void *ctx, const idb_row *row), void *ctx,
             idb_err *err);

/* pg_waits.c: the writers' wait events, sampled (see there). The class of one backend's
 * sample (store.h enum idb_wait_class) from pg_stat_activity's state, wait_event_type and
 * wait_event (each may be NULL): -1 when it is not in a transaction (not a sample),
 * IDB_WAIT_CLASSES when it is not waiting. */
int pg_wait_class(const char *state, const char *type, const char *event);
/* Count one backend's row into w (samples, and v[] of its class): pg_wait_class's. */
void pg_waits_count(idb_store_waits *w, const char *state, const char *type,
                    const char *event);
/* Start s's sampler (open()'s handle, connected), one sample every period_us (0: none;
 * s->sampler stays NULL): its own session on s->dsn, following s's backend. IDB_EIO when it
 * cannot connect or start (pg_waits_free undoes what it made). */
int pg_waits_start(pg_store *s, int64_t period_us, idb_err *err);
/* Follow one more writer's backend pid (a client of m, open()'s handle). */
void pg_waits_add(pg_store *m, int pid);
/* Stop the sampling and put what it counted into w (kind IDB_WAITS_NONE without a sampler
 * or after a failed sample query). */
void pg_waits_stop(pg_store *s, idb_store_waits *w);
/* The CPU ns the sampler's backend used so far on s's private server (0: none). */
int64_t pg_waits_sampler_cpu_ns(const pg_store *s);
/* Stop and free s's sampler (NULL is fine). */
void pg_waits_free(pg_store *s);

#endif
