/* pg_write.c — the postgres store's writes: one row per insert(), one transaction per commit().
 *
 * Every row is encoded once, as a tuple of PostgreSQL's binary COPY format (a field count,
 * then each field as a 4-byte length and its binary value, all big-endian); the prepared
 * statement's binary parameters point into the same bytes. The methods:
 *   prepared  BEGIN on the first row, then one EXECUTE of the prepared INSERT per row, each
 *             a round trip: insert() returns when the server has inserted the row.
 *   pipeline  the same statements in libpq's pipeline mode: insert() only queues the row;
 *             every PIPE_WINDOW statements the results so far are read (one round trip),
 *             and commit() sends COMMIT and a sync and reads the rest. A row's error (a
 *             duplicate key) shows at the next read, so insert time moves into commit time.
 *   copy      BEGIN; COPY orders FROM STDIN (FORMAT binary) on the first row, each row one
 *             CopyData message (buffered by libpq), the COPY's end and COMMIT in commit().
 * A duplicate key (SQLSTATE 23505) is IDB_EINPUT; anything else from the server, or a lost
 * connection, is IDB_EIO. After a failure the transaction is not usable: the run stops.
 * checkpoint_every=N: after the commit that brings the rows since the last CHECKPOINT to N
 * or more, commit() runs CHECKPOINT (timed as part of that commit: it is the server's work
 * the run asked for), so full-page images follow at known places.
 */
#include <stdio.h>
#include <string.h>

#include "payload.h"
#include "pg_int.h"

#define PIPE_WINDOW 1024          /* pipelined statements between reads of their results */
#define INSERT_STMT "idbench_insert"
#define SQLSTATE_UNIQUE "23505"
#define COPY_SIGNATURE "PGCOPY\n\377\r\n"   /* with its NUL: 11 bytes */
#define COPY_HEADER_BYTES (sizeof COPY_SIGNATURE + 2 * sizeof(int32_t))
#define ROW_SQL "orders (id, shop, display_no, created_ms, total_cents, payload)"

/* Where each field's value lies in s->buf after encode(). */
typedef struct pg_fields {
    const char *values[PG_FIELDS];
    int lengths[PG_FIELDS];
    int formats[PG_FIELDS];
    size_t tuple_bytes;
} pg_fields;

/* Append one field (4-byte length, then len bytes from v, or from the encoder when v is
 * NULL: the caller fills them) at *at in buf; records where its value starts. */
static uint8_t *field(uint8_t *at, const void *v, int len, pg_fields *f, int i)
{
    idb_put_be(at, (uint32_t)len, sizeof(int32_t));
    at += sizeof(int32_t);
    if (v) memcpy(at, v, (size_t)len);
    f->values[i] = (const char *)at;
    f->lengths[i] = len;
    f->formats[i] = 1;
    return at + len;
}

/* Encode row as one binary COPY tuple into s->buf, the parameters' places into f. */
static void encode(pg_store *s, const idb_row *row, pg_fields *f)
{
    uint8_t *p = s->buf, v[sizeof(int64_t)];
    idb_put_be(p, PG_FIELDS, sizeof(int16_t));
    p += sizeof(int16_t);
    uint8_t *key = p + sizeof(int32_t);
    p = field(p, NULL, s->key_bytes, f, 0);
    pg_key_encode(s, &row->id, key);
    idb_put_be(v, row->shop, sizeof(int32_t));
    p = field(p, v, sizeof(int32_t), f, 1);
    idb_put_be(v, row->display_no, sizeof(int32_t));
    p = field(p, v, sizeof(int32_t), f, 2);
    idb_put_be(v, (uint64_t)row->created_ms, sizeof v);
    p = field(p, v, sizeof v, f, 3);
    idb_put_be(v, (uint64_t)row->total_cents, sizeof v);
    p = field(p, v, sizeof v, f, 4);
    uint8_t *pay = p + sizeof(int32_t);
    p = field(p, NULL, s->row_bytes, f, 5);
    idb_id from = row->id;                         /* autoinc: the order's own key */
    if (s->autoinc) idb_payload_order_key(row->shop, row->display_no, &from);
    idb_payload_fill(pay, s->row_bytes, &from);
    f->tuple_bytes = (size_t)(p - s->buf);
}

/* A failed statement's result r (cleared here): IDB_EINPUT for a duplicate key, else IDB_EIO. */
static int result_fail(pg_store *s, PGresult *r, const char *what, idb_err *err)
{
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    int dup = state && strcmp(state, SQLSTATE_UNIQUE) == 0;
    const char *m = r ? PQresultErrorMessage(r) : "";
    int n = (int)strcspn(m, "\n"), rc;
    int code = pg_state_code(state);
    if (dup) rc = idb_fail(err, IDB_EINPUT, "postgres: shard %d: duplicate key: %.*s", s->shard,
                           n, m);
    else if (n) rc = idb_fail(err, code, "postgres: shard %d: %s: %.*s", s->shard, what, n, m);
    else rc = pg_fail(s, err, IDB_EIO, what);
    PQclear(r);
    return rc;
}

int pg_write_prepare(pg_store *s, idb_err *err)
{
    PGresult *r = s->autoinc               /* the identity column assigns the key */
                ? PQprepare(s->c, INSERT_STMT, "INSERT INTO orders (shop, display_no, "
                            "created_ms, total_cents, payload) VALUES ($1, $2, $3, $4, $5) "
                            "RETURNING id", PG_FIELDS - 1, NULL)
                : PQprepare(s->c, INSERT_STMT, "INSERT INTO " ROW_SQL
                            " VALUES ($1, $2, $3, $4, $5, $6)", PG_FIELDS, NULL);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) return result_fail(s, r, "PREPARE", err);
    PQclear(r);
    return 0;
}

/* Pipeline: read the results of the n oldest statements sent. The first failure is
 * returned, after every result is read (the pipeline stays in step). */
static int pipe_read(pg_store *s, int n, idb_err *err)
{
    int rc = 0;
    for (int i = 0; i < n; i++) {
        PGresult *r = PQgetResult(s->c);
        if (!r) return rc ? rc : pg_fail(s, err, IDB_EIO, "pipeline: a result is missing");
        ExecStatusType st = PQresultStatus(r);
        if (st != PGRES_COMMAND_OK && !rc && st == PGRES_PIPELINE_ABORTED) {
            rc = pg_fail(s, err, IDB_EIO, "pipeline aborted");
        } else if (st != PGRES_COMMAND_OK && !rc) {
            rc = result_fail(s, r, "pipeline", err);       /* clears r */
            r = NULL;
        }
        PQclear(r);
        if ((r = PQgetResult(s->c)) != NULL) {   /* each statement's results end with NULL */
            PQclear(r);
            if (!rc) rc = pg_fail(s, err, IDB_EIO, "pipeline: out of step");
        }
        s->pending--;
    }
    return rc;
}

/* Send sql (no parameters) as one pipelined statement. */
static int pipe_send(pg_store *s, const char *sql, idb_err *err)
{
    if (!PQsendQueryParams(s->c, sql, 0, NULL, NULL, NULL, NULL, 0))
        return pg_fail(s, err, IDB_EIO, sql);
    s->pending++;
    return 0;
}

/* pipeline: queue one row (BEGIN first); read results every PIPE_WINDOW statements. */
static int pipe_insert(pg_store *s, const pg_fields *f, idb_err *err)
{
    if (!s->in_txn) {
        if (!PQenterPipelineMode(s->c)) return pg_fail(s, err, IDB_EIO, "pipeline mode");
        int rc = pipe_send(s, "BEGIN", err);
        if (rc) return rc;
        s->in_txn = 1;
    }
    if (!PQsendQueryPrepared(s->c, INSERT_STMT, PG_FIELDS, f->values, f->lengths, f->formats, 0))
        return pg_fail(s, err, IDB_EIO, "INSERT");
    if (++s->pending < PIPE_WINDOW) return 0;
    if (!PQsendFlushRequest(s->c) || PQflush(s->c) < 0)
        return pg_fail(s, err, IDB_EIO, "pipeline flush");
    return pipe_read(s, s->pending, err);
}

/* pipeline: COMMIT, sync, read everything, leave pipeline mode. */
static int pipe_commit(pg_store *s, idb_err *err)
{
    int rc = pipe_send(s, "COMMIT", err);
    if (!rc && !PQpipelineSync(s->c)) rc = pg_fail(s, err, IDB_EIO, "pipeline sync");
    if (!rc) rc = pipe_read(s, s->pending, err);
    PGresult *r = rc ? NULL : PQgetResult(s->c);
    if (!rc && PQresultStatus(r) != PGRES_PIPELINE_SYNC)
        rc = pg_fail(s, err, IDB_EIO, "pipeline: no sync");
    PQclear(r);
    if (!rc && !PQexitPipelineMode(s->c)) rc = pg_fail(s, err, IDB_EIO, "leaving pipeline mode");
    return rc;
}

/* copy: BEGIN and the COPY, then its binary header. */
static int copy_begin(pg_store *s, idb_err *err)
{
    uint8_t head[COPY_HEADER_BYTES] = { 0 };      /* signature, flags 0, extension length 0 */
    memcpy(head, COPY_SIGNATURE, sizeof COPY_SIGNATURE);
    int rc = pg_exec(s, "BEGIN", PGRES_COMMAND_OK, NULL, "BEGIN", err);
    if (!rc) rc = pg_exec(s, "COPY " ROW_SQL " FROM STDIN (FORMAT binary)", PGRES_COPY_IN, NULL,
                          "COPY", err);
    if (!rc && PQputCopyData(s->c, (const char *)head, (int)sizeof head) != 1)
        rc = pg_fail(s, err, IDB_EIO, "COPY");
    return rc;
}

/* copy: the trailer, the end of the COPY and its result, then COMMIT. */
static int copy_commit(pg_store *s, idb_err *err)
{
    uint8_t trailer[sizeof(int16_t)] = { 0xff, 0xff };          /* a field count of -1 */
    if (PQputCopyData(s->c, (const char *)trailer, (int)sizeof trailer) != 1 ||
        PQputCopyEnd(s->c, NULL) != 1)
        return pg_fail(s, err, IDB_EIO, "COPY");
    PGresult *r = PQgetResult(s->c);
    int rc = PQresultStatus(r) == PGRES_COMMAND_OK ? 0 : result_fail(s, r, "COPY", err);
    if (!rc) PQclear(r);
    while ((r = PQgetResult(s->c)) != NULL) PQclear(r);
    return rc ? rc : pg_exec(s, "COMMIT", PGRES_COMMAND_OK, NULL, "COMMIT", err);
}

int pg_insert(void *h, const idb_row *row, idb_err *err)
{
    pg_store *s = h;
    if (row->id.len != s->key_bytes)
        return idb_fail(err, IDB_EINPUT, "postgres: a %d-byte ID in a store for %d-byte keys",
                        row->id.len, s->key_bytes);
    pg_fields f;
    encode(s, row, &f);
    s->since_checkpoint++;
    if (s->method == PG_PIPELINE) return pipe_insert(s, &f, err);
    if (s->method == PG_COPY) {
        int rc = s->in_txn ? 0 : copy_begin(s, err);
        if (rc) return rc;
        s->in_txn = 1;
        if (PQputCopyData(s->c, (const char *)s->buf, (int)f.tuple_bytes) != 1)
            return pg_fail(s, err, IDB_EIO, "COPY");
        return 0;
    }
    if (!s->in_txn) {
        int rc = pg_exec(s, "BEGIN", PGRES_COMMAND_OK, NULL, "BEGIN", err);
        if (rc) return rc;
        s->in_txn = 1;
    }
    PGresult *r = PQexecPrepared(s->c, INSERT_STMT, PG_FIELDS, f.values, f.lengths, f.formats,
                                 0);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) return result_fail(s, r, "INSERT", err);
    PQclear(r);
    return 0;
}

int pg_insert_assigned(void *h, idb_row *row, idb_err *err)
{
    pg_store *s = h;
    if (!s->autoinc || s->method != PG_PREPARED)
        return idb_fail(err, IDB_EINPUT, "postgres: insert_assigned needs autoinc=1 and "
                        "method=prepared");
    pg_fields f;
    encode(s, row, &f);
    s->since_checkpoint++;
    if (!s->in_txn) {
        int rc = pg_exec(s, "BEGIN", PGRES_COMMAND_OK, NULL, "BEGIN", err);
        if (rc) return rc;
        s->in_txn = 1;
    }
    PGresult *r = PQexecPrepared(s->c, INSERT_STMT, PG_FIELDS - 1, f.values + 1,
                                 f.lengths + 1, f.formats + 1, 1);   /* no id; binary */
    if (PQresultStatus(r) != PGRES_TUPLES_OK) return result_fail(s, r, "INSERT", err);
    int ok = PQntuples(r) == 1 && PQgetlength(r, 0, 0) == (int)sizeof(int64_t);
    if (ok) pg_key_decode(s, (const uint8_t *)PQgetvalue(r, 0, 0), 8, &row->id);
    PQclear(r);
    return ok ? 0 : idb_fail(err, IDB_EIO, "postgres: shard %d: INSERT ... RETURNING id gave "
                             "no 8-byte key", s->shard);
}

/* With clients, a commit of since_checkpoint rows: added to every client's count (open()'s
 * handle's shared_rows); the client whose rows cross a multiple of checkpoint_every runs
 * the CHECKPOINT, so with C clients they come every checkpoint_every rows of the shard. */
static int client_checkpoint(pg_store *s, idb_err *err)
{
    int64_t add = s->since_checkpoint, every = s->checkpoint_every;
    s->since_checkpoint = 0;
    pg_store *m = s->main ? s->main : s;
    int64_t now = __atomic_add_fetch(&m->shared_rows, add, __ATOMIC_RELAXED);
    if (!every || now / every == (now - add) / every) return 0;
    return pg_exec(s, "CHECKPOINT", PGRES_COMMAND_OK, NULL, "CHECKPOINT", err);
}

int pg_commit(void *h, idb_err *err)
{
    pg_store *s = h;
    if (!s->in_txn) return 0;
    int rc = s->method == PG_PIPELINE ? pipe_commit(s, err)
           : s->method == PG_COPY ? copy_commit(s, err)
           : pg_exec(s, "COMMIT", PGRES_COMMAND_OK, NULL, "COMMIT", err);
    if (rc) return rc;
    s->in_txn = 0;
    if (s->main || s->has_clients) return client_checkpoint(s, err);
    if (s->checkpoint_every && s->since_checkpoint >= s->checkpoint_every) {
        s->since_checkpoint = 0;
        return pg_exec(s, "CHECKPOINT", PGRES_COMMAND_OK, NULL, "CHECKPOINT", err);
    }
    return 0;
}

/* Roll back s's open transaction (store.h, version 2): leave a pipeline or COPY, drain
 * the results, ROLLBACK; the rows of the batch come again in a new transaction. */
void pg_rollback(void *h)
{
    pg_store *s = h;
    PGresult *r;
    if (PQtransactionStatus(s->c) == PQTRANS_ACTIVE && s->method == PG_COPY)
        PQputCopyEnd(s->c, "rolled back");
    if (PQpipelineStatus(s->c) != PQ_PIPELINE_OFF) PQpipelineSync(s->c);
    for (int idle = 0; idle < 2 && PQpipelineStatus(s->c) != PQ_PIPELINE_OFF;) {
        r = PQgetResult(s->c);
        if (!r) { idle++; continue; }
        if (PQresultStatus(r) == PGRES_PIPELINE_SYNC) PQexitPipelineMode(s->c);
        PQclear(r);
    }
    while ((r = PQgetResult(s->c)) != NULL) PQclear(r);
    s->pending = 0;
    s->since_checkpoint = 0;
    if (PQtransactionStatus(s->c) != PQTRANS_IDLE) PQclear(PQexec(s->c, "ROLLBACK"));
    s->in_txn = 0;
}
