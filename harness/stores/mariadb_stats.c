/* mariadb_stats.c — the `mariadb` store's figures: the server's counters and stats().
 *
 * Counters are server-wide (a user's server counts its other work too): open() reads them,
 * stats() reads them again after the run's last commit and after FLUSH TABLES orders FOR
 * EXPORT (which writes the table's dirty pages, so the pages the run dirtied are counted as
 * written, as the other stores count checkpoints), and reports the differences:
 *   cache_misses   Innodb_pages_read less Innodb_buffer_pool_read_ahead (linear) and
 *                  Innodb_buffer_pool_read_ahead_rnd (random read-ahead): the pages read
 *                  because a statement needed one the buffer pool lacked (misses), not the
 *                  pages read ahead of need. Not Innodb_buffer_pool_reads: MariaDB 10.11
 *                  counts read-ahead pages there too (it moved with Innodb_pages_read, page
 *                  for page, through 11,300 random and 1,455 linear read-ahead pages).
 *   read_pages     Innodb_pages_read: every page read from the files (misses and
 *                  read-ahead).
 *   pages_written  Innodb_pages_written: pages written to the data files (the doublewrite
 *                  buffer's copies and the redo log are not pages of the store).
 *   wal_bytes      Innodb_os_log_written: redo log bytes.
 *   splits         INNODB_METRICS index_page_splits: B-tree page splits, every index.
 * Page figures, for the index keyed by the ID (PRIMARY, the clustered index; id_key with
 * secondary=1), from ANALYZE TABLE's persistent statistics:
 *   leaf_pages     mysql.innodb_index_stats n_leaf_pages: the pages the index's leaf segment
 *                  uses (btr_get_size(BTR_N_LEAF_PAGES)); exact, not sampled. For an index
 *                  of fewer leaves than ANALYZE samples (innodb_stats_persistent_sample_pages,
 *                  20) ANALYZE reads the whole leaf level and MariaDB 10.11 stores 1; then
 *                  the pages that scan read (n_diff_pfx01's sample_size) are the leaves.
 *   fill_factor    computed from the record format (rem0rec.h, ROW_FORMAT=DYNAMIC): a
 *                  record is a 5-byte header + the variable-length header (1 byte for the
 *                  payload, 2 when VARBINARY is over 255 bytes) + its fields; a clustered record
 *                  also holds the 6-byte transaction ID and 7-byte roll pointer, a secondary
 *                  record holds the key and the 8-byte primary key. fill = rows × record /
 *                  (leaf_pages × (page size − 128)), 128 = FIL header 38 + page header 56 +
 *                  infimum and supremum 26 + FIL trailer 8; the page directory is out of both
 *                  sides. tests/test_store_mariadb.c checks it against the records' bytes in
 *                  the .ibd file's leaf pages.
 *   file_bytes     INNODB_SYS_TABLESPACES.FILE_SIZE of db/orders (the .ibd file).
 *   index_bytes    innodb_index_stats `size` of the ID's index × page size: the pages its two
 *                  segments reserve (SHOW TABLE STATUS's Data_length, or Index_length with
 *                  secondary=1).
 *   table_bytes    the same for PRIMARY: InnoDB's table is its clustered index, so without
 *                  secondary=1 it equals index_bytes.
 *   secondary_bytes  the same summed over every other index (0: none); id_clustered 1
 *                  without secondary=1 (the rows sit in the ID's PRIMARY KEY).
 *   fpi, leaf_fragmentation: -1 (InnoDB's redo holds no full-page images; not read).
 *   branch_pages, depth, checkpoint_pages, wal_frames: -1 (not read).
 * progress() (between transactions, for --series): md_progress below.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mariadb.h"

#define MD_PAGE_OVERHEAD 128      /* see the header comment */
#define MD_REC_HEADER 5           /* REC_N_NEW_EXTRA_BYTES */
#define MD_TRX_FIELDS (6 + 7)     /* DB_TRX_ID + DB_ROLL_PTR */
#define MD_SEQ_BYTES 8            /* the BIGINT primary key of secondary=1 */
#define MD_FIXED_FIELDS (4 + 4 + 8 + 8)   /* shop, display_no, created_ms, total_cents */
#define MD_SHORT_VARCHAR 255      /* longest VARBINARY with a 1-byte length */

/* Where each counter comes from: its name in GLOBAL_STATUS or INNODB_METRICS. */
typedef struct md_counter_src { const char *name; size_t off; } md_counter_src;
#define C(f) offsetof(md_counters, f)
static const md_counter_src md_sources[] = {
    { "INNODB_PAGES_READ", C(pages_read) },
    { "INNODB_BUFFER_POOL_READ_AHEAD", C(read_ahead) },
    { "INNODB_BUFFER_POOL_READ_AHEAD_RND", C(read_ahead_rnd) },
    { "INNODB_PAGES_WRITTEN", C(pages_written) },
    { "INNODB_OS_LOG_WRITTEN", C(log_written) },
    { "INDEX_PAGE_SPLITS", C(splits) },
};
#define MD_NSOURCES (sizeof md_sources / sizeof *md_sources)

static const char md_counters_sql[] =
    "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE "
    "VARIABLE_NAME IN ('INNODB_PAGES_READ', 'INNODB_BUFFER_POOL_READ_AHEAD', "
    "'INNODB_BUFFER_POOL_READ_AHEAD_RND', 'INNODB_PAGES_WRITTEN', 'INNODB_OS_LOG_WRITTEN') "
    "UNION ALL "
    "SELECT UPPER(NAME), COUNT FROM information_schema.INNODB_METRICS WHERE "
    "NAME = 'index_page_splits'";

/* The metrics the store needs enabled. */
static const char *const md_monitors[] = { "index_page_splits" };
#define MD_NMONITORS (sizeof md_monitors / sizeof *md_monitors)

int md_counters_read(md_store *s, md_counters *c, idb_err *err)
{
    if (mysql_query(s->db, md_counters_sql) != 0)
        return md_fail(s->db, IDB_EIO, "reading the server's counters", err);
    MYSQL_RES *res = mysql_store_result(s->db);
    if (!res) return md_fail(s->db, IDB_EIO, "reading the server's counters", err);
    unsigned seen = 0;
    for (MYSQL_ROW row; (row = mysql_fetch_row(res));) {
        for (size_t i = 0; i < MD_NSOURCES; i++) {
            if (!row[0] || !row[1] || strcmp(row[0], md_sources[i].name) != 0) continue;
            *(int64_t *)((char *)c + md_sources[i].off) = strtoll(row[1], NULL, 10);
            seen |= 1u << i;
        }
    }
    mysql_free_result(res);
    if (seen != (1u << MD_NSOURCES) - 1)
        return idb_fail(err, IDB_EIO, "mariadb: the server does not report every counter the "
                        "store reads (MariaDB 10.11 InnoDB expected)");
    return 0;
}

int md_monitors_on(md_store *s, idb_err *err)
{
    for (size_t i = 0; i < MD_NMONITORS; i++) {
        char sql[MD_SQL_MAX];
        int64_t on = -1;
        snprintf(sql, sizeof sql, "SELECT ENABLED FROM information_schema.INNODB_METRICS "
                 "WHERE NAME = '%s'", md_monitors[i]);
        int rc = md_query_i64(s, sql, &on, err);
        if (rc) return rc;
        if (on == 1) continue;
        snprintf(sql, sizeof sql, "SET GLOBAL innodb_monitor_enable = '%s'", md_monitors[i]);
        rc = md_exec(s, sql, IDB_EIO, "enabling the index metrics", err);
        if (rc) return rc;
        s->monitors_enabled |= 1 << i;
    }
    return 0;
}

void md_monitors_off(md_store *s)
{
    for (size_t i = 0; i < MD_NMONITORS; i++) {
        if (!(s->monitors_enabled & (1 << i))) continue;
        char sql[MD_SQL_MAX];
        snprintf(sql, sizeof sql, "SET GLOBAL innodb_monitor_disable = '%s'", md_monitors[i]);
        mysql_query(s->db, sql);                     /* best effort: a close path */
    }
    s->monitors_enabled = 0;
}

/* Bytes one row's record takes in a leaf page of the ID's index (header comment). */
static int64_t record_bytes(const md_store *s)
{
    if (s->secondary) return MD_REC_HEADER + s->key_bytes + MD_SEQ_BYTES;
    int declared = s->row_bytes ? s->row_bytes : 1;
    int lenbytes = declared > MD_SHORT_VARCHAR ? 2 : 1;
    return MD_REC_HEADER + lenbytes + s->key_bytes + MD_TRX_FIELDS + MD_FIXED_FIELDS +
           s->row_bytes;
}

/* The pages the index reserves (innodb_index_stats `size`, after ANALYZE) in bytes. */
static int index_size(md_store *s, const char *index, int64_t *bytes, idb_err *err)
{
    char sql[MD_SQL_MAX];
    snprintf(sql, sizeof sql, "SELECT stat_value FROM mysql.innodb_index_stats WHERE "
             "database_name = '%s' AND table_name = 'orders' AND index_name = '%s' AND "
             "stat_name = 'size'", s->dbname, index);
    int rc = md_query_i64(s, sql, bytes, err);
    if (!rc && *bytes >= 0) *bytes *= s->page_size;
    return rc;
}

/* The pages every index of the table but PRIMARY and the ID's reserves, in bytes (after
 * ANALYZE; 0 with none). */
static int other_indexes_size(md_store *s, int64_t *bytes, idb_err *err)
{
    char sql[MD_SQL_MAX];
    snprintf(sql, sizeof sql, "SELECT COALESCE(SUM(stat_value), 0) FROM "
             "mysql.innodb_index_stats WHERE database_name = '%s' AND table_name = 'orders' "
             "AND stat_name = 'size' AND index_name NOT IN ('PRIMARY', 'id_key')", s->dbname);
    int rc = md_query_i64(s, sql, bytes, err);
    if (!rc && *bytes >= 0) *bytes *= s->page_size;
    return rc;
}

/* The leaf pages of index from its persistent statistics (after ANALYZE): n_leaf_pages, or,
 * when ANALYZE scanned the whole leaf level (an index of fewer leaves than it samples:
 * MariaDB 10.11 then stores n_leaf_pages = 1), the pages that scan visited, its
 * n_diff_pfx01 sample_size. */
static int leaf_pages(md_store *s, const char *index, int64_t *leaves, idb_err *err)
{
    char sql[MD_SQL_MAX];
    static const char *const q[] = { "stat_value", "sample_size" };
    static const char *const name[] = { "n_leaf_pages", "n_diff_pfx01" };
    int64_t v[2];
    for (int i = 0; i < 2; i++) {
        snprintf(sql, sizeof sql, "SELECT %s FROM mysql.innodb_index_stats WHERE "
                 "database_name = '%s' AND table_name = 'orders' AND index_name = '%s' AND "
                 "stat_name = '%s'", q[i], s->dbname, index, name[i]);
        int rc = md_query_i64(s, sql, &v[i], err);
        if (rc) return rc;
    }
    *leaves = v[0] == 1 && v[1] > 1 ? v[1] : v[0];
    return 0;
}

/* The size of the table's .ibd file (INNODB_SYS_TABLESPACES.FILE_SIZE) into *bytes. */
static int ibd_bytes(md_store *s, int64_t *bytes, idb_err *err)
{
    char sql[MD_SQL_MAX];
    snprintf(sql, sizeof sql, "SELECT FILE_SIZE FROM information_schema.INNODB_SYS_TABLESPACES "
             "WHERE NAME = '%s/orders'", s->dbname);
    return md_query_i64(s, sql, bytes, err);
}

int md_flush_table(md_store *s, idb_err *err)
{
    int rc = md_exec(s, "FLUSH TABLES orders FOR EXPORT", IDB_EIO, "flushing the table", err);
    return rc ? rc : md_exec(s, "UNLOCK TABLES", IDB_EIO, "UNLOCK TABLES", err);
}

int md_counters_since_open(md_store *s, md_counters *d, idb_err *err)
{
    md_counters now;
    int rc = md_counters_read(s, &now, err);
    if (rc) return rc;
    *d = (md_counters){ .pages_read = now.pages_read - s->start.pages_read,
                        .read_ahead = now.read_ahead - s->start.read_ahead,
                        .read_ahead_rnd = now.read_ahead_rnd - s->start.read_ahead_rnd,
                        .pages_written = now.pages_written - s->start.pages_written,
                        .log_written = now.log_written - s->start.log_written,
                        .splits = now.splits - s->start.splits };
    return 0;
}

int64_t md_misses(const md_counters *d)
{
    return d->pages_read - d->read_ahead - d->read_ahead_rnd;
}

/* Leaf pages of the ID's index (after ANALYZE TABLE) and the .ibd file's size into st. */
static int page_figures(md_store *s, idb_store_stats *st, idb_err *err)
{
    int rc = md_exec(s, "ANALYZE TABLE orders", IDB_EIO, "ANALYZE TABLE", err);
    if (rc) return rc;
    rc = leaf_pages(s, s->secondary ? "id_key" : "PRIMARY", &st->leaf_pages, err);
    if (rc) return rc;
    rc = index_size(s, s->secondary ? "id_key" : "PRIMARY", &st->index_bytes, err);
    if (!rc) rc = index_size(s, "PRIMARY", &st->table_bytes, err);
    if (!rc) rc = ibd_bytes(s, &st->file_bytes, err);
    if (!rc) rc = other_indexes_size(s, &st->secondary_bytes, err);
    if (rc) return rc;
    st->id_clustered = !s->secondary;
    st->fill_factor = -1;
    if (st->leaf_pages > 0 && s->page_size > MD_PAGE_OVERHEAD)
        st->fill_factor = (double)(s->rows * record_bytes(s)) /
                          ((double)st->leaf_pages * (double)(s->page_size - MD_PAGE_OVERHEAD));
    return 0;
}

int md_stats(void *h, idb_store_stats *st, idb_err *err)
{
    md_store *s = h;
    *st = (idb_store_stats){ .leaf_pages = -1, .branch_pages = -1, .depth = -1,
                             .fill_factor = -1, .file_bytes = -1, .checkpoint_pages = -1,
                             .wal_frames = -1, .has_server = 1, .fpi = -1,
                             .leaf_fragmentation = -1, .extend_pages = -1,
                             .autovacuum_runs = -1, .users_server = s->server == NULL };
    md_waits_stats(s, &st->waits);           /* before this session does more */
    int rc = 0;
    if (s->in_txn) {
        s->in_txn = 0;
        if (mysql_commit(s->db) != 0) return md_fail(s->db, IDB_EIO, "commit", err);
    }
    rc = md_flush_table(s, err);
    md_counters d;
    if (!rc) rc = md_counters_since_open(s, &d, err);
    if (rc) return rc;
    st->cache_misses = md_misses(&d);
    st->read_pages = d.pages_read;
    st->pages_written = d.pages_written;
    st->wal_bytes = d.log_written;
    st->splits = d.splits;
    return page_figures(s, st, err);
}

/* The running figures (store.h: progress): the server's counters since open() as stats()
 * reads them but with no flush forced (pages_written: what InnoDB wrote back so far), the
 * .ibd file's size as the index's (InnoDB's table is its clustered index; with
 * secondary=1 the file holds both indexes) and innodb_buffer_pool_size. No ANALYZE. */
int md_progress(void *h, idb_store_progress *p, idb_err *err)
{
    md_store *s = h;
    md_counters d;
    *p = (idb_store_progress){ .index_bytes = -1, .cache_bytes = -1, .pages_written = -1,
                               .read_pages = -1, .cache_misses = -1 };
    int rc = md_counters_since_open(s, &d, err);
    if (rc) return rc;
    p->cache_misses = md_misses(&d);
    p->read_pages = d.pages_read;
    p->pages_written = d.pages_written;
    rc = ibd_bytes(s, &p->index_bytes, err);
    if (!rc) rc = md_query_i64(s, "SELECT @@innodb_buffer_pool_size", &p->cache_bytes, err);
    return rc;
}
