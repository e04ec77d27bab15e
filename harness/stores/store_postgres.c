/* store_postgres.c — `postgres`: orders in a real PostgreSQL 15 server, one server per shard.
 *
 * Where: by default (no dsn) each shard starts its own private server in DIR/shard-K
 * (harness/servers, server.h) with the store's settings in its config, and stops it at close.
 * With -s dsn=CONNINFO every shard uses that server; with -s dsn_file=FILE (one conninfo per
 * line; empty lines and lines starting with '#' skipped) shard k uses line k mod n, so one
 * command measures a fleet whose shards run elsewhere. On a user's server each shard makes its
 * own schema idbench_<pid>_<shard>_<n>, works only there, and drops it at close unless keep=1;
 * nothing else of that server is touched except, when they are missing, the extensions
 * pgstattuple and pg_walinspect, made inside that schema (and so dropped with it).
 *
 * Schema (table orders in that schema; all NOT NULL):
 *   id           bigint for 8-byte keys, uuid for 16-byte keys, bytea for any other width.
 *                bigint is signed: the big-endian ID is stored with its top bit flipped
 *                (x XOR 2^63), which maps unsigned order onto signed order, so IDs above
 *                2^63 keep their place; scan() flips it back. uuid and bytea compare as
 *                memcmp (bytea: then by length; all keys have one width), like the ID bytes.
 *                With autoinc=1 (the runner's, for strategy autoinc) id is a bigint
 *                GENERATED ALWAYS AS IDENTITY, kept as is, each key read back by
 *                INSERT ... RETURNING id (method=prepared, secondary=0 only).
 *   shop integer, display_no integer (the uint32 bits), created_ms bigint, total_cents bigint,
 *   payload      bytea of row_bytes bytes (payload.h: derived from the key, checked by scan;
 *                with autoinc from the order's shop and display number).
 *   The ID's index is orders_id: the primary key, or with secondary=1 a unique index on id
 *   beside a `seq bigint GENERATED ALWAYS AS IDENTITY` primary key. fillfactor= is the index's.
 *   secondary_created=1, secondary_shop=1: indexes orders_created (created_ms) and
 *   orders_shop (shop, created_ms) (store.h idb_store_secondaries), for read's queries.
 * Writes: pg_write.c (method=prepared|pipeline|copy, --batch rows per transaction,
 * checkpoint_every), every session at isolation= (default read_committed, PostgreSQL's own).
 * Figures: pg_stats.c; the writers' lock and latch waits: pg_waits.c; reads (`idbench read`,
 * the private server restarted on the run's data): pg_read.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_int.h"
#include "pg_server.h"
#include "server.h"

#define SCHEMA_TRIES 100          /* schema names tried when one exists already */
#define DSN_LINE_MAX 1024         /* longest line of a dsn_file */
#define SQL_MAX 1024
#define FILLFACTOR_MIN 10         /* PostgreSQL's own bounds for a B-tree's fillfactor */
#define FILLFACTOR_MAX 100
#define SQLSTATE_DUPLICATE_SCHEMA "42P06"

static const idb_opt_decl pg_options[] = {
    { .name = "dsn", .type = IDB_OPT_STR, .def = "",
      .help = "libpq conninfo of a server to use (default: a private server per shard)" },
    { .name = "dsn_file", .type = IDB_OPT_STR, .def = "",
      .help = "file of conninfos, one per line: shard k uses line k mod n" },
    { .name = "method", .type = IDB_OPT_ENUM, .def = "prepared",
      .help = "prepared statements | pipeline mode | COPY", .choices = "prepared|pipeline|copy" },
    { .name = "secondary", .type = IDB_OPT_INT, .def = "0",
      .help = "1: bigint identity primary key, a unique index on the ID", .min = 0, .max = 1 },
    { .name = "shared_buffers", .type = IDB_OPT_STR, .def = "8MB",
      .help = "private server's shared_buffers (N, NkB, NMB or NGB)" },
    { .name = "checkpoint_every", .type = IDB_OPT_INT, .def = "0",
      .help = "rows between explicit CHECKPOINTs (0: none)", .min = 0, .max = INT64_MAX / 2 },
    { .name = "autovacuum", .type = IDB_OPT_ENUM, .def = "off",
      .help = "private server's autovacuum (off: no vacuum reads in cache_misses)",
      .choices = "on|off" },
    { .name = "synchronous_commit", .type = IDB_OPT_ENUM, .def = "on",
      .help = "the session's synchronous_commit", .choices = "on|off|local" },
    { .name = "fillfactor", .type = IDB_OPT_INT, .def = "90",
      .help = "the ID index's fillfactor (%)", .min = FILLFACTOR_MIN, .max = FILLFACTOR_MAX },
    { .name = "isolation", .type = IDB_OPT_ENUM, .def = "read_committed",
      .help = "every writer session's transaction isolation (PostgreSQL's default: "
              "read_committed)", .choices = "read_committed|repeatable_read|serializable" },
    { .name = "lock_timeout_ms", .type = IDB_OPT_INT, .def = "0",
      .help = "every writer session's lock_timeout (0: wait for ever, PostgreSQL's default); "
              "a timeout is a failed transaction, retried", .min = 0, .max = 2147483647 },
    { .name = "wait_sample_us", .type = IDB_OPT_INT, .def = "1000",
      .help = "period of the writers' wait-event sampling (wait_share; 0: none)",
      .min = 0, .max = 1000000 },
    { .name = "keep", .type = IDB_OPT_INT, .def = "0",
      .help = "1: keep the schema on a user's server", .min = 0, .max = 1 },
    IDB_SECONDARY_OPTIONS,
    { .name = "row_bytes", .type = IDB_OPT_INT, .def = "64",
      .help = "payload bytes per row (derived from the key)", .min = 0, .max = 1 << 20 },
    { .name = IDB_STORE_AUTOINC, .type = IDB_OPT_INT, .def = "0",
      .help = "set by the runner (strategy autoinc): 1 = id is an identity column, each key "
              "read back by INSERT ... RETURNING id", .min = 0, .max = 1 },
    { .name = IDB_STORE_SHARD, .type = IDB_OPT_INT, .def = "0",
      .help = "set by the runner: this shard's number", .min = 0, .max = 1 << 20 },
    { .name = IDB_STORE_SHARDS, .type = IDB_OPT_INT, .def = "1",
      .help = "set by the runner: the number of shards", .min = 1, .max = 1 << 20 },
    { 0 },
};

int pg_fail(pg_store *s, idb_err *err, int code, const char *what)
{
    const char *m = s->c ? PQerrorMessage(s->c) : "";
    int n = (int)strcspn(m, "\n");
    if (s->c && PQstatus(s->c) == CONNECTION_BAD && !n) m = "the connection is lost", n = 22;
    return idb_fail(err, code, "postgres: shard %d: %s%s%.*s", s->shard, what, n ? ": " : "",
                    n, m);
}

int pg_exec(pg_store *s, const char *sql, ExecStatusType want, PGresult **out,
            const char *what, idb_err *err)
{
    PGresult *r = PQexec(s->c, sql);
    if (PQresultStatus(r) != want) {
        const char *m = PQresultErrorMessage(r);
        int n = (int)strcspn(m, "\n");
        int code = pg_state_code(r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL);
        int rc = n ? idb_fail(err, code, "postgres: shard %d: %s: %.*s", s->shard, what, n, m)
                   : pg_fail(s, err, IDB_EIO, what);
        PQclear(r);
        return rc;
    }
    if (out) *out = r; else PQclear(r);
    return 0;
}

int pg_state_code(const char *state)
{
    static const char *const retry[] = { "40001", "40P01", "55P03" };
    for (size_t i = 0; state && i < sizeof retry / sizeof *retry; i++)
        if (strcmp(state, retry[i]) == 0) return IDB_EBUSY;
    return IDB_EIO;
}

void pg_key_encode(const pg_store *s, const idb_id *id, uint8_t *out)
{
    memcpy(out, id->b, (size_t)id->len);
    if (s->key_type == PG_KEY_BIGINT && !s->autoinc) out[0] ^= 0x80;   /* 2^63: unsigned ->
                                                                         * signed order */
}

void pg_key_decode(const pg_store *s, const uint8_t *in, int len, idb_id *id)
{
    id->len = (uint8_t)len;
    memcpy(id->b, in, (size_t)len);
    if (s->key_type == PG_KEY_BIGINT && !s->autoinc) id->b[0] ^= 0x80;
}

/* The k-th (mod n) conninfo of file path into out. IDB_EINPUT for a file that cannot be read,
 * has no conninfo, a line too long, or (when check) a line libpq cannot parse. */
static int dsn_from_file(const char *path, int k, char *out, size_t cap, idb_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f) return idb_fail(err, IDB_EINPUT, "postgres: dsn_file %s: %s", path, strerror(errno));
    char line[DSN_LINE_MAX], *msg = NULL;
    int n = 0, rc = 0;
    char (*all)[DSN_LINE_MAX] = NULL;
    while (!rc && fgets(line, sizeof line, f)) {
        size_t len = strcspn(line, "\r\n");
        if (line[len] == 0 && !feof(f)) {
            rc = idb_fail(err, IDB_EINPUT, "postgres: dsn_file %s: line %d is too long", path,
                          n + 1);
            break;
        }
        line[len] = 0;
        if (!line[strspn(line, " \t")] || line[0] == '#') continue;
        PQconninfoOption *o = PQconninfoParse(line, &msg);
        if (!o) {
            rc = idb_fail(err, IDB_EINPUT, "postgres: dsn_file %s: a malformed conninfo: %.*s",
                          path, msg ? (int)strcspn(msg, "\n") : 0, msg ? msg : "");
            PQfreemem(msg);
            break;
        }
        PQconninfoFree(o);
        void *more = realloc(all, (size_t)(n + 1) * sizeof *all);
        if (!more) { rc = idb_fail(err, IDB_ENOMEM, "out of memory"); break; }
        all = more;
        memcpy(all[n++], line, len + 1);
    }
    fclose(f);
    if (!rc && !n) rc = idb_fail(err, IDB_EINPUT, "postgres: dsn_file %s has no conninfo", path);
    if (!rc && snprintf(out, cap, "%s", all[k % n]) >= (int)cap)
        rc = idb_fail(err, IDB_EINPUT, "postgres: dsn_file %s: a conninfo is too long", path);
    free(all);
    return rc;
}

/* 1 if v is a size PostgreSQL takes for shared_buffers: digits, then nothing, kB, MB or GB. */
static int size_setting_ok(const char *v)
{
    static const char *const units[] = { "", "kB", "MB", "GB" };
    size_t d = strspn(v, "0123456789");
    if (!d || d > 9) return 0;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(v + d, units[i]) == 0) return 1;
    return 0;
}

/* The check hook (pg_int.h): dsn and dsn_file (not both; each conninfo must parse),
 * shared_buffers. */
int pg_check(const idb_opts *o, int key_bytes, idb_err *err)
{
    int rc = idb_store_check_width("postgres", key_bytes, err);
    if (rc) return rc;
    const char *dsn = idb_opts_str(o, "dsn"), *file = idb_opts_str(o, "dsn_file");
    if (dsn[0] && file[0])
        return idb_fail(err, IDB_EINPUT, "postgres: give dsn or dsn_file, not both");
    if (strchr(dsn, ',') || strchr(file, ','))     /* the options are echoed as CSV fields */
        return idb_fail(err, IDB_EINPUT, "postgres: a comma in dsn or dsn_file would break the "
                        "CSV results: put the conninfo in a dsn_file");
    if (idb_opts_int(o, IDB_STORE_AUTOINC) &&
        (idb_opts_int(o, "method") != PG_PREPARED || idb_opts_int(o, "secondary")))
        return idb_fail(err, IDB_EINPUT, "postgres: strategy autoinc reads each key back "
                        "(INSERT ... RETURNING id): method=prepared and secondary=0 only");
    if (!size_setting_ok(idb_opts_str(o, "shared_buffers")))
        return idb_fail(err, IDB_EINPUT, "postgres: shared_buffers=%s: expected N, NkB, NMB or "
                        "NGB", idb_opts_str(o, "shared_buffers"));
    char *msg = NULL, one[DSN_LINE_MAX];
    if (file[0]) return dsn_from_file(file, 0, one, sizeof one, err);
    if (!dsn[0]) return 0;
    PQconninfoOption *p = PQconninfoParse(dsn, &msg);
    if (p) {
        PQconninfoFree(p);
        return 0;
    }
    rc = idb_fail(err, IDB_EINPUT, "postgres: dsn: a malformed conninfo: %.*s",
                  msg ? (int)strcspn(msg, "\n") : 0, msg ? msg : "");
    PQfreemem(msg);
    return rc;
}

/* SET SESSION CHARACTERISTICS' level for isolation= (its choices' order). */
static const char *const pg_isolation_sql[] = {
    "READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE",
};

/* libpq prints NOTICEs on stderr by default; the store has nothing to say there. */
static void quiet(void *arg, const char *message) { (void)arg; (void)message; }

/* Connect s to s->dsn and set the session up (pg_int.h). */
int pg_connect(pg_store *s, const idb_opts *o, idb_err *err)
{
    s->c = PQconnectdb(s->dsn);
    if (!s->c) return idb_fail(err, IDB_ENOMEM, "out of memory");
    if (PQstatus(s->c) != CONNECTION_OK) return pg_fail(s, err, IDB_EIO, "cannot connect");
    PQsetNoticeProcessor(s->c, quiet, NULL);
    char sql[SQL_MAX];
    if (o) snprintf(s->sync_commit, sizeof s->sync_commit, "%s",
                    idb_opts_str(o, "synchronous_commit"));
    if (o) s->isolation = (int)idb_opts_int(o, "isolation");
    if (o) s->lock_timeout_ms = idb_opts_int(o, "lock_timeout_ms");
    snprintf(sql, sizeof sql, "SET synchronous_commit = %s", s->sync_commit);
    int rc = pg_exec(s, sql, PGRES_COMMAND_OK, NULL, "synchronous_commit", err);
    snprintf(sql, sizeof sql, "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL %s",
             pg_isolation_sql[s->isolation]);
    if (!rc) rc = pg_exec(s, sql, PGRES_COMMAND_OK, NULL, "isolation", err);
    snprintf(sql, sizeof sql, "SET lock_timeout = %lld", (long long)s->lock_timeout_ms);
    return rc ? rc : pg_exec(s, sql, PGRES_COMMAND_OK, NULL, "lock_timeout", err);
}

/* Make our own schema (the first free name) and make it the search path. */
static int make_schema(pg_store *s, idb_err *err)
{
    static int serial;
    char sql[SQL_MAX];
    for (int i = 0; i < SCHEMA_TRIES; i++) {
        snprintf(s->schema, sizeof s->schema, "idbench_%ld_%d_%d", (long)getpid(), s->shard,
                 serial++);
        snprintf(sql, sizeof sql, "CREATE SCHEMA %s", s->schema);
        PGresult *r = PQexec(s->c, sql);
        const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        int taken = !ok && state && strcmp(state, SQLSTATE_DUPLICATE_SCHEMA) == 0;
        PQclear(r);
        if (ok) {
            s->made_schema = 1;
            snprintf(sql, sizeof sql, "SET search_path = %s", s->schema);
            return pg_exec(s, sql, PGRES_COMMAND_OK, NULL, "search_path", err);
        }
        if (!taken) return pg_fail(s, err, IDB_EIO, "CREATE SCHEMA");
    }
    return idb_fail(err, IDB_EIO, "postgres: shard %d: no free schema name", s->shard);
}

/* CREATE TABLE orders with the ID column typed for the key width (header comment). */
static int make_table(pg_store *s, idb_err *err)
{
    static const char *const types[] = {
        [PG_KEY_BIGINT] = "bigint", [PG_KEY_UUID] = "uuid", [PG_KEY_BYTEA] = "bytea",
    };
    char sql[SQL_MAX];
    snprintf(sql, sizeof sql,
             "CREATE TABLE orders (%s id %s%s NOT NULL, shop integer NOT NULL, "
             "display_no integer NOT NULL, created_ms bigint NOT NULL, "
             "total_cents bigint NOT NULL, payload bytea NOT NULL, "
             "CONSTRAINT orders_id %s (id) WITH (fillfactor = %d))",
             s->secondary ? "seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY," : "",
             types[s->key_type], s->autoinc ? " GENERATED ALWAYS AS IDENTITY" : "",
             s->secondary ? "UNIQUE" : "PRIMARY KEY", s->fillfactor);
    return pg_exec(s, sql, PGRES_COMMAND_OK, NULL, "CREATE TABLE", err);
}

/* Close the connection; drop our schema from a user's server unless keep=1 (on a new
 * connection when the old one is not idle); stop our private server (pg_int.h). */
void pg_close(void *h)
{
    pg_store *s = h;
    if (!s) return;
    int drop = s->made_schema && !s->srv && !s->keep;
    if (s->c && drop && (PQpipelineStatus(s->c) != PQ_PIPELINE_OFF ||
                         PQtransactionStatus(s->c) != PQTRANS_IDLE)) {
        PQfinish(s->c);
        s->c = PQconnectdb(s->dsn);
        PQsetNoticeProcessor(s->c, quiet, NULL);
    }
    if (s->c && drop && PQstatus(s->c) == CONNECTION_OK) {
        char sql[SQL_MAX];
        snprintf(sql, sizeof sql, "DROP SCHEMA %s CASCADE", s->schema);
        PQclear(PQexec(s->c, sql));
    } else if (s->made_schema && s->keep && !s->srv) {
        fprintf(stderr, "postgres: shard %d: kept schema %s\n", s->shard, s->schema);
    }
    pg_waits_free(s);
    PQfinish(s->c);
    pg_server_stop(s->srv);
    free(s->buf);
    free(s);
}

/* Fill s from the options (no connection yet) (pg_int.h). */
int pg_configure(pg_store *s, const idb_opts *o, int key_bytes, idb_err *err)
{
    s->shard = (int)idb_opts_int(o, IDB_STORE_SHARD);
    s->key_bytes = key_bytes;
    s->key_type = key_bytes == (int)sizeof(int64_t) ? PG_KEY_BIGINT
                : key_bytes == 16 ? PG_KEY_UUID : PG_KEY_BYTEA;
    s->row_bytes = (int)idb_opts_int(o, "row_bytes");
    s->secondary = (int)idb_opts_int(o, "secondary");
    s->autoinc = (int)idb_opts_int(o, IDB_STORE_AUTOINC);
    s->keep = (int)idb_opts_int(o, "keep");
    s->fillfactor = (int)idb_opts_int(o, "fillfactor");
    s->method = (enum pg_method)idb_opts_int(o, "method");
    s->checkpoint_every = idb_opts_int(o, "checkpoint_every");
    /* one COPY tuple: a count, then length + bytes per field (fixed fields <= 8 bytes) */
    s->buf_cap = sizeof(int16_t) + PG_FIELDS * sizeof(int32_t) + (size_t)key_bytes +
                 (PG_FIXED_FIELDS - 1) * sizeof(int64_t) + (size_t)s->row_bytes;
    s->buf = malloc(s->buf_cap);
    if (!s->buf) return idb_fail(err, IDB_ENOMEM, "out of memory");
    const char *file = idb_opts_str(o, "dsn_file");
    if (file[0])
        return dsn_from_file(file, s->shard, s->dsn, sizeof s->dsn, err);
    snprintf(s->dsn, sizeof s->dsn, "%s", idb_opts_str(o, "dsn"));
    return 0;
}

/* Open shard k's store: connect to its server (starting a private one in dir when no dsn is
 * given), make the schema and table, prepare the writes, mark the statistics' start.
 * IDB_EINPUT for bad options; IDB_EIO when the server cannot be reached or refuses. On
 * failure everything this call made is undone (pg_close). */
static int pg_open(const char *dir, const idb_opts *o, int key_bytes, void **h, idb_err *err)
{
    int rc = pg_check(o, key_bytes, err);
    if (rc) return rc;
    pg_store *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    rc = pg_configure(s, o, key_bytes, err);
    if (!rc && !s->dsn[0]) rc = pg_server_start(dir, o, &s->srv, s->dsn, sizeof s->dsn, err);
    if (!rc) rc = pg_connect(s, o, err);
    if (!rc) rc = make_schema(s, err);
    if (!rc) rc = make_table(s, err);
    for (const idb_secondary *x = idb_store_secondaries; !rc && x->option; x++)
        if (idb_opts_int(o, x->option))
            rc = pg_exec(s, x->sql, PGRES_COMMAND_OK, NULL, x->option, err);
    if (!rc && s->method != PG_COPY) rc = pg_write_prepare(s, err);
    if (!rc) rc = pg_stats_begin(s, err);
    if (!rc) rc = pg_waits_start(s, idb_opts_int(o, "wait_sample_us"), err);
    if (rc) {
        pg_close(s);
        return rc;
    }
    *h = s;
    return 0;
}

/* A client (store.h, version 2): its own session on h's server, in h's schema, with the
 * writes prepared as h's; it makes and drops nothing and runs no server. IDB_EIO when it
 * cannot connect. */
static int pg_open_client(void *h, int c, void **client, idb_err *err)
{
    (void)c;
    pg_store *m = h, *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    s->main = m;
    s->shard = m->shard;
    s->key_bytes = m->key_bytes;
    s->key_type = m->key_type;
    s->row_bytes = m->row_bytes;
    s->secondary = m->secondary;
    s->autoinc = m->autoinc;
    s->method = m->method;
    s->checkpoint_every = m->checkpoint_every;
    s->buf_cap = m->buf_cap;
    memcpy(s->dsn, m->dsn, sizeof s->dsn);
    memcpy(s->schema, m->schema, sizeof s->schema);
    memcpy(s->sync_commit, m->sync_commit, sizeof s->sync_commit);
    s->isolation = m->isolation;
    s->lock_timeout_ms = m->lock_timeout_ms;
    char sql[SQL_MAX];
    snprintf(sql, sizeof sql, "SET search_path = %s", s->schema);
    int rc = (s->buf = malloc(s->buf_cap)) ? 0 : idb_fail(err, IDB_ENOMEM, "out of memory");
    if (!rc) rc = pg_connect(s, NULL, err);
    if (!rc) rc = pg_exec(s, sql, PGRES_COMMAND_OK, NULL, "search_path", err);
    if (!rc && s->method != PG_COPY) rc = pg_write_prepare(s, err);
    if (rc) {
        pg_close(s);
        return rc;
    }
    m->has_clients = 1;
    pg_waits_add(m, PQbackendPID(s->c));
    *client = s;
    return 0;
}

/* The server_cpu_ns hook (store.h, version 3): the private server's CPU less the wait
 * sampler's backend (its sampling is idbench's, not the writers'); -1 with a dsn. */
static int64_t pg_server_cpu_ns(void *h)
{
    pg_store *s = h;
    long long ns = s->srv ? idb_server_cpu_ns(s->srv) : -1;
    return ns < 0 ? -1 : ns - pg_waits_sampler_cpu_ns(s);
}

const idb_store idb_store_postgres = {
    .version = IDB_STORE_VERSION,
    .name = "postgres",
    .summary = "a real PostgreSQL server per shard: orders keyed by the ID (B-tree index)",
    .options = pg_options,
    .open = pg_open,
    .insert = pg_insert,
    .commit = pg_commit,
    .stats = pg_stats,
    .progress = pg_progress,
    .close = pg_close,
    .scan = pg_scan,
    .check = pg_check,
    .available = pg_available,
    .clients = IDB_STORE_CLIENTS_ANY,
    .open_client = pg_open_client,
    .rollback = pg_rollback,
    .server_cpu_ns = pg_server_cpu_ns,
    .open_read = pg_open_read,
    .get = pg_get,
    .read_counts = pg_read_counts,
    .close_read = pg_close,
    .query = pg_query,
    .insert_assigned = pg_insert_assigned,
};
