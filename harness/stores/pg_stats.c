/* pg_stats.c — the postgres store's figures (stats) and its read-back (scan).
 *
 * At open (pg_stats_begin), after the table exists: the extensions pgstattuple and
 * pg_walinspect are found (pg_extension) or made in our schema; a temporary physical
 * replication slot keeps the run's WAL from being recycled by checkpoints (it goes when the
 * session ends); the WAL insert position is the run's start. Without the rights for one of
 * these (a user's server, no superuser) the figures that need it are unknown (-1).
 *
 * stats():
 *   leaf_pages, branch_pages, depth, fill_factor, leaf_fragmentation
 *                  pgstatindex() of the ID's index orders_id: leaf_pages, internal_pages,
 *                  tree_level + 1, avg_leaf_density / 100, leaf_fragmentation / 100 (leaf
 *                  pages whose right sibling has a lower block number: out of key order).
 *   index_bytes, table_bytes, file_bytes
 *                  pg_relation_size of the index and of the table (main forks);
 *                  pg_total_relation_size of the table (every index, TOAST, free-space map).
 *   secondary_bytes  pg_indexes_size of the table less the ID's index: every other index
 *                  (the seq primary key of secondary=1 among them); id_clustered 0 (a heap).
 *   fpi, splits, wal_bytes
 *                  pg_get_wal_records_info from the start to the flushed position: full-page
 *                  images of our schema's relations (block references marked FPW); Btree
 *                  SPLIT_L/SPLIT_R records of the ID's index; the bytes (record_length, block
 *                  images included) of every record that touches our relations or belongs to
 *                  a transaction that did (its commit): the run's own WAL, not that of other
 *                  sessions or shards on the same server, nor checkpoint records. Without
 *                  pg_walinspect, wal_bytes is the WAL insert position difference (everything
 *                  the server wrote meanwhile) and fpi, splits are unknown.
 *   cache_misses   heap_blks_read + idx_blks_read of the table and its indexes
 *                  (pg_statio_all_tables, after pg_stat_force_next_flush(), so this session's
 *                  counts are in) less extend_pages: blocks read from outside
 *                  shared_buffers. PostgreSQL 15 counts each page a relation is extended by
 *                  (ReadBuffer with P_NEW) as a block read; a new page is not a miss. On a
 *                  server of version 16 or later (a dsn=) nothing is subtracted (extensions
 *                  go around ReadBuffer there; not checked against such a server). Reads by
 *                  autovacuum count too: the private server runs with autovacuum=off unless
 *                  the option says on, and autovacuum_runs says whether it ran.
 *   extend_pages   the main-fork blocks of the table and its indexes (created empty at open),
 *                  less one per B-tree (its metapage, written by the index build without the
 *                  buffer manager): the pages PostgreSQL 15 counted as reads when extending.
 *   autovacuum_runs  autovacuum_count + autoanalyze_count of the table (pg_stat_all_tables).
 *   pages_written, checkpoint_pages, wal_frames, read_pages: -1 (the server does not count
 *                  them per table).
 *
 * progress() (between transactions, for --series): pg_relation_size of the index, the
 * server's shared_buffers, and cache_misses as in stats().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "payload.h"
#include "pg_int.h"

#define SQL_MAX 2048
#define PERCENT 100.0
/* The table's and its indexes' blocks read from the OS, extensions included (PostgreSQL
 * 15 counts a page a relation is extended by as a block read), as a scalar subquery. */
#define PG_READS_SQL "(SELECT heap_blks_read + coalesce(idx_blks_read, 0) FROM " \
                     "pg_statio_all_tables WHERE relid = 'orders'::regclass)"
/* The pages the table and its indexes were extended by through the buffer manager since
 * CREATE TABLE (the relations were empty): their main forks' blocks, less each B-tree's
 * metapage, which the index build wrote without the buffer manager. */
#define PG_EXTEND_SQL "(SELECT coalesce(sum(greatest(pg_relation_size(c.oid) / " \
    "current_setting('block_size')::bigint - (c.relam = 403)::int, 0)), 0)::bigint " \
    "FROM pg_class c WHERE c.oid = 'orders'::regclass OR c.oid IN " \
    "(SELECT indexrelid FROM pg_index WHERE indrelid = 'orders'::regclass))"
/* Autovacuum and autoanalyze passes on the table so far (it is the run's own). */
#define PG_AUTOVACUUM_SQL "(SELECT autovacuum_count + autoanalyze_count FROM " \
                          "pg_stat_all_tables WHERE relid = 'orders'::regclass)"
/* PostgreSQL 16 extends relations outside ReadBuffer: no longer counted as reads. */
#define PG_EXTEND_NOT_READ 160000

/* Schema of extension ext (found, else made in ours) into out; "" when neither works. */
static int find_extension(pg_store *s, const char *ext, char *out, size_t cap, idb_err *err)
{
    const char *v[] = { ext };
    PGresult *r = PQexecParams(s->c, "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n "
                               "ON n.oid = e.extnamespace WHERE e.extname = $1", 1, NULL, v,
                               NULL, NULL, 0);
    int found = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
    if (found) snprintf(out, cap, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
    if (found) return 0;
    char sql[SQL_MAX];
    snprintf(sql, sizeof sql, "CREATE EXTENSION %s SCHEMA %s", ext, s->schema);
    r = PQexec(s->c, sql);
    if (PQresultStatus(r) == PGRES_COMMAND_OK) snprintf(out, cap, "%s", s->schema);
    else out[0] = 0;
    PQclear(r);
    return PQstatus(s->c) == CONNECTION_OK ? 0 : pg_fail(s, err, IDB_EIO, "extensions");
}

/* An identifier (schema name) quoted for SQL into out. */
static void quote_ident(pg_store *s, const char *name, char *out, size_t cap)
{
    char *q = PQescapeIdentifier(s->c, name, strlen(name));
    snprintf(out, cap, "%s", q ? q : "\"\"");
    PQfreemem(q);
}

int pg_stats_begin(pg_store *s, idb_err *err)
{
    int rc = find_extension(s, "pgstattuple", s->ext_stattuple, sizeof s->ext_stattuple, err);
    if (!rc) rc = find_extension(s, "pg_walinspect", s->ext_walinspect,
                                 sizeof s->ext_walinspect, err);
    if (rc) return rc;
    if (s->ext_walinspect[0]) {
        const char *v[] = { s->schema };
        PGresult *r = PQexecParams(s->c, "SELECT pg_create_physical_replication_slot($1, true, "
                                   "true)", 1, NULL, v, NULL, NULL, 0);
        if (PQresultStatus(r) == PGRES_TUPLES_OK) snprintf(s->slot, sizeof s->slot, "%s",
                                                           s->schema);
        PQclear(r);
    }
    PGresult *r;
    rc = pg_exec(s, "SELECT pg_current_wal_insert_lsn()", PGRES_TUPLES_OK, &r, "WAL position",
                 err);
    if (rc) return rc;
    snprintf(s->start_lsn, sizeof s->start_lsn, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
    return 0;
}

/* Field i of row 0 of r as an integer (-1 when NULL). */
static int64_t get_i64(const PGresult *r, int i)
{
    return PQgetisnull(r, 0, i) ? -1 : strtoll(PQgetvalue(r, 0, i), NULL, 10);
}

/* Field i of row 0 of r as a fraction of its percent value (-1 when NULL or NaN). */
static double get_frac(const PGresult *r, int i)
{
    double v = PQgetisnull(r, 0, i) ? -1 : strtod(PQgetvalue(r, 0, i), NULL);
    return v == v && v >= 0 ? v / PERCENT : -1;
}

/* Have this session's statistics counted before the next query reads them. */
static int flush_stats(pg_store *s, idb_err *err)
{
    return pg_exec(s, "SELECT pg_stat_force_next_flush()", PGRES_TUPLES_OK, NULL,
                   "statistics", err);
}

int pg_blocks_read(pg_store *s, int64_t *n, idb_err *err)
{
    PGresult *r = NULL;
    int rc = flush_stats(s, err);
    if (!rc) rc = pg_exec(s, "SELECT " PG_READS_SQL, PGRES_TUPLES_OK, &r, "blocks read", err);
    if (rc) return rc;
    *n = get_i64(r, 0);
    PQclear(r);
    return 0;
}

/* cache_misses from the blocks read (reads, extensions included on PostgreSQL before 16)
 * and the pages extended by, on a server of version number version; -1 when unknown. */
static int64_t misses(int64_t reads, int64_t extended, int64_t version)
{
    if (reads < 0 || extended < 0) return -1;
    int64_t m = version < PG_EXTEND_NOT_READ ? reads - extended : reads;
    return m < 0 ? 0 : m;
}

/* Sizes, the WAL written and the blocks read (after a forced stats flush). */
static int sizes(pg_store *s, idb_store_stats *st, idb_err *err)
{
    int rc = flush_stats(s, err);
    const char *v[] = { s->start_lsn };
    PGresult *r = rc ? NULL : PQexecParams(s->c,
        "SELECT pg_relation_size('orders_id'), pg_relation_size('orders'), "
        "pg_total_relation_size('orders'), "
        "pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint, "
        PG_READS_SQL ", " PG_EXTEND_SQL ", " PG_AUTOVACUUM_SQL ", "
        "current_setting('server_version_num')::int, "
        "pg_indexes_size('orders') - pg_relation_size('orders_id')", 1, NULL, v, NULL, NULL, 0);
    if (rc) return rc;
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        PQclear(r);
        return pg_fail(s, err, IDB_EIO, "sizes");
    }
    st->index_bytes = get_i64(r, 0);
    st->table_bytes = get_i64(r, 1);
    st->file_bytes = get_i64(r, 2);
    st->wal_bytes = get_i64(r, 3);
    st->cache_misses = misses(get_i64(r, 4), get_i64(r, 5), get_i64(r, 7));
    st->extend_pages = get_i64(r, 5);
    st->autovacuum_runs = get_i64(r, 6);
    st->secondary_bytes = get_i64(r, 8);
    PQclear(r);
    return 0;
}

/* The index's shape from pgstatindex (unknown without pgstattuple). */
static int shape(pg_store *s, idb_store_stats *st, idb_err *err)
{
    if (!s->ext_stattuple[0]) return 0;
    char sql[SQL_MAX], q[PG_NAME_MAX * 2 + 2];
    quote_ident(s, s->ext_stattuple, q, sizeof q);
    snprintf(sql, sizeof sql, "SELECT leaf_pages, internal_pages, tree_level + 1, "
             "avg_leaf_density, leaf_fragmentation FROM %s.pgstatindex('orders_id'::regclass)",
             q);
    PGresult *r;
    int rc = pg_exec(s, sql, PGRES_TUPLES_OK, &r, "pgstatindex", err);
    if (rc) return rc;
    st->leaf_pages = get_i64(r, 0);
    st->branch_pages = get_i64(r, 1);
    st->depth = get_i64(r, 2);
    st->fill_factor = get_frac(r, 3);
    st->leaf_fragmentation = get_frac(r, 4);
    PQclear(r);
    return 0;
}

/* Full-page images of our relations and splits of the ID's index in the run's WAL. Only a
 * record with a block image (fpi_length > 0) can have a block reference marked FPW, so the
 * FPW pattern runs on those alone: on every record it took half of a 50,000-row run's
 * query (~0.45 of 0.87 s), the same figures. */
static int wal_records(pg_store *s, idb_store_stats *st, idb_err *err)
{
    if (!s->ext_walinspect[0]) return 0;
    char sql[SQL_MAX], q[PG_NAME_MAX * 2 + 2];
    quote_ident(s, s->ext_walinspect, q, sizeof q);
    snprintf(sql, sizeof sql,
        "WITH db AS (SELECT 'rel \\d+/' || oid || '/' AS pfx FROM pg_database "
        "  WHERE datname = current_database()), "
        "rel AS (SELECT db.pfx || '(' || string_agg(relfilenode::text, '|') || ') ' AS pat, "
        "  db.pfx || (SELECT relfilenode FROM pg_class WHERE oid = 'orders_id'::regclass) || "
        "  ' ' AS idx FROM db, pg_class WHERE relnamespace = $2::regnamespace AND "
        "  relfilenode <> 0 GROUP BY db.pfx), "
        "w AS (SELECT w.*, w.block_ref ~ rel.pat AS mine FROM rel, "
        "  %s.pg_get_wal_records_info($1::pg_lsn, least(pg_current_wal_flush_lsn(), "
        "  pg_current_wal_insert_lsn())) w), "
        "x AS (SELECT DISTINCT xid FROM w WHERE mine AND xid <> '0') "
        "SELECT coalesce(sum(CASE WHEN w.fpi_length > 0 THEN regexp_count(w.block_ref, "
        "  rel.pat || 'fork \\w+ blk \\d+ \\(FPW') END), 0), "
        " count(*) FILTER (WHERE w.resource_manager = 'Btree' AND "
        "  w.record_type LIKE 'SPLIT%%' AND w.block_ref ~ rel.idx), "
        " coalesce(sum(w.record_length) FILTER (WHERE w.mine OR w.xid IN (SELECT xid FROM x)), "
        "  0) FROM w, rel", q);
    const char *v[] = { s->start_lsn, s->schema };
    PGresult *r = PQexecParams(s->c, sql, 2, NULL, v, NULL, NULL, 0);
    if (PQresultStatus(r) == PGRES_TUPLES_OK) {
        st->fpi = get_i64(r, 0);
        st->splits = get_i64(r, 1);
        st->wal_bytes = get_i64(r, 2);
    }
    PQclear(r);          /* WAL no longer there (no slot): the figures stay unknown */
    return PQstatus(s->c) == CONNECTION_OK ? 0 : pg_fail(s, err, IDB_EIO, "pg_walinspect");
}

int pg_stats(void *h, idb_store_stats *st, idb_err *err)
{
    pg_store *s = h;
    *st = (idb_store_stats){
        .leaf_pages = -1, .branch_pages = -1, .depth = -1, .fill_factor = -1,
        .file_bytes = -1, .pages_written = -1, .checkpoint_pages = -1, .wal_frames = -1,
        .cache_misses = -1, .read_pages = -1, .splits = -1,
        .has_server = 1, .wal_bytes = -1, .fpi = -1, .index_bytes = -1, .table_bytes = -1,
        .secondary_bytes = -1,
        .leaf_fragmentation = -1, .extend_pages = -1, .autovacuum_runs = -1,
        .users_server = s->srv == NULL,
    };
    pg_waits_stop(s, &st->waits);            /* before the statistics queries */
    int rc = sizes(s, st, err);
    if (!rc) rc = shape(s, st, err);
    if (!rc) rc = wal_records(s, st, err);
    return rc;
}

/* The running figures (store.h: progress): the index's size now, shared_buffers, and the
 * table's and index's blocks read from the OS so far, extensions left out (as in stats:
 * pg_statio after a forced flush of this session's counts, less the pages extended by);
 * pages written and read are not counted per table (-1). Sizes and statistics views only:
 * no page of the index is read. */
int pg_progress(void *h, idb_store_progress *p, idb_err *err)
{
    pg_store *s = h;
    *p = (idb_store_progress){ .index_bytes = -1, .cache_bytes = -1, .pages_written = -1,
                               .read_pages = -1, .cache_misses = -1 };
    int rc = flush_stats(s, err);
    PGresult *r = NULL;
    if (!rc)
        rc = pg_exec(s, "SELECT pg_relation_size('orders_id'), "
                     "pg_size_bytes(current_setting('shared_buffers')), " PG_READS_SQL ", "
                     PG_EXTEND_SQL ", current_setting('server_version_num')::int",
                     PGRES_TUPLES_OK, &r, "progress", err);
    if (rc) return rc;
    p->index_bytes = get_i64(r, 0);
    p->cache_bytes = get_i64(r, 1);
    p->cache_misses = misses(get_i64(r, 2), get_i64(r, 3), get_i64(r, 4));
    PQclear(r);
    return 0;
}

/* One row of a binary result r into *row (pg_int.h); IDB_EIO on a wrong width or payload. */
int pg_row(pg_store *s, const PGresult *r, int i, idb_row *row, uint8_t *check, idb_err *err)
{
    static const int widths[PG_FIXED_FIELDS] = { 0, 4, 4, 8, 8 };
    for (int f = 1; f < PG_FIXED_FIELDS; f++)
        if (PQgetlength(r, i, f) != widths[f])
            return idb_fail(err, IDB_EIO, "postgres: row %d: field %d has %d bytes", i, f,
                            PQgetlength(r, i, f));
    if (PQgetlength(r, i, 0) != s->key_bytes || PQgetlength(r, i, 5) != s->row_bytes)
        return idb_fail(err, IDB_EIO, "postgres: row %d: a %d-byte key or a %d-byte payload",
                        i, PQgetlength(r, i, 0), PQgetlength(r, i, 5));
    pg_key_decode(s, (const uint8_t *)PQgetvalue(r, i, 0), s->key_bytes, &row->id);
    row->shop = (uint32_t)idb_get_be((const uint8_t *)PQgetvalue(r, i, 1), 4);
    row->display_no = (uint32_t)idb_get_be((const uint8_t *)PQgetvalue(r, i, 2), 4);
    row->created_ms = (int64_t)idb_get_be((const uint8_t *)PQgetvalue(r, i, 3), 8);
    row->total_cents = (int64_t)idb_get_be((const uint8_t *)PQgetvalue(r, i, 4), 8);
    idb_id from = row->id;                         /* autoinc: the order's own key */
    if (s->autoinc) idb_payload_order_key(row->shop, row->display_no, &from);
    idb_payload_fill(check, s->row_bytes, &from);
    if (s->row_bytes && memcmp(PQgetvalue(r, i, 5), check, (size_t)s->row_bytes) != 0) {
        char buf[IDB_ID_HEX_MAX];
        return idb_fail(err, IDB_EIO, "postgres: row %s: payload does not match its key",
                        idb_id_hex(&row->id, buf));
    }
    return 0;
}

/* Every row in key order, in one result (scan is for tests: memory grows with the rows). */
int pg_scan(void *h, int (*fn)(void *ctx, const idb_row *row), void *ctx, idb_err *err)
{
    pg_store *s = h;
    PGresult *r = PQexecParams(s->c, "SELECT id, shop, display_no, created_ms, total_cents, "
                               "payload FROM orders ORDER BY id", 0, NULL, NULL, NULL, NULL, 1);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        PQclear(r);
        return pg_fail(s, err, IDB_EIO, "scan");
    }
    uint8_t *check = malloc((size_t)s->row_bytes + 1);
    int rc = check ? 0 : idb_fail(err, IDB_ENOMEM, "out of memory");
    for (int i = 0; !rc && i < PQntuples(r); i++) {
        idb_row row = { 0 };
        rc = pg_row(s, r, i, &row, check, err);
        if (!rc && fn(ctx, &row)) break;
    }
    free(check);
    PQclear(r);
    return rc;
}
