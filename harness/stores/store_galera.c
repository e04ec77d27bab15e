/* store_galera.c — `galera`: orders in one InnoDB table replicated over a MariaDB Galera
 * cluster of N private nodes (galera-4), every node a primary: the chapter's interleaved
 * ranges run by a real system, whose nodes hand out AUTO_INCREMENT keys with
 * auto_increment_increment = N and offsets 1..N.
 *
 * The nodes: galera_servers.c (as root, in the run's private network namespace; N >= 3,
 * -s nodes=). Node 1 makes the database and the mariadb store's table (md_table_sql: with
 * strategy autoinc the id is AUTO_INCREMENT; else the strategy's keys, 8 bytes or any
 * width as BINARY), replicated to the others. Inserts are spread over the nodes round robin
 * per transaction (per --batch): transaction b goes to node b mod N, one prepared INSERT per
 * row there (autoinc: the key read back from each statement: mysql_stmt_insert_id), its
 * commit on that node (Galera certifies it on every node). A commit that fails with a
 * deadlock or a certification failure (IDB_EBUSY) is rolled back and its rows replayed on
 * the next node (new keys with autoinc, written back into the runner's rows), up to
 * GL_RETRIES_MAX times: retried_orders counts the orders of replayed transactions that then
 * committed, failed_orders those of transactions given up (their rows are not stored).
 * The join-node fault (-s join_at=N, set by the runner for --fault join-node@N): after the
 * commit that brings the orders to N or more, one more node joins (full state transfer),
 * the store waits until every node is synced in the larger cluster, and the inserts go on
 * round robin over N + 1 nodes. The join's time is inside that commit (the run's throughput
 * includes it) and is reported apart as join_ms in the pattern.
 * stats(): galera_stats.c. The run: --shards 1 (the nodes are the shards), one writer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "galera.h"
#include "server.h"

#define GL_POOL_MIN (6 << 20)
#define GL_ROW_BYTES_MAX 60000

static const idb_opt_decl gl_options[] = {
    { .name = "nodes", .type = IDB_OPT_INT, .def = "3",
      .help = "Galera nodes (every one a primary; at least 3)", .min = 3, .max = GL_NODES_MAX },
    { .name = IDB_STORE_JOIN_AT, .type = IDB_OPT_INT, .def = "0",
      .help = "one more node joins after this many orders (set by --fault join-node@N; 0: "
              "none)", .min = 0, .max = INT64_MAX / 2 },
    { .name = "buffer_pool_bytes", .type = IDB_OPT_INT, .def = "8388608",
      .help = "each node's innodb_buffer_pool_size", .min = GL_POOL_MIN,
      .max = INT64_C(1) << 40 },
    { .name = "flush_log_at_trx_commit", .type = IDB_OPT_INT, .def = "2",
      .help = "each node's innodb_flush_log_at_trx_commit", .min = 0, .max = 2 },
    { .name = "page_size", .type = IDB_OPT_INT, .def = "16384",
      .help = "each node's innodb_page_size (4096 .. 65536, a power of 2)", .min = 4096,
      .max = 65536 },
    { .name = "row_bytes", .type = IDB_OPT_INT, .def = "64",
      .help = "payload bytes per row", .min = 0, .max = GL_ROW_BYTES_MAX },
    { .name = IDB_STORE_AUTOINC, .type = IDB_OPT_INT, .def = "0",
      .help = "1: the id is AUTO_INCREMENT, assigned by the nodes (set by the runner for "
              "strategy autoinc)", .min = 0, .max = 1 },
    { .name = IDB_STORE_SHARD, .type = IDB_OPT_INT, .def = "0",
      .help = "this store's shard (set by the runner)", .min = 0, .max = 1 << 20 },
    { .name = IDB_STORE_SHARDS, .type = IDB_OPT_INT, .def = "1",
      .help = "the run's shard count (set by the runner; galera takes 1)", .min = 1,
      .max = 1 << 20 },
    { 0 },
};

/* The check hook: options that fit together and with the key width (nothing made). */
static int gl_check(const idb_opts *o, int key_bytes, idb_err *err)
{
    int rc = idb_store_check_width("galera", key_bytes, err);
    if (rc) return rc;
    int64_t ps = idb_opts_int(o, "page_size");
    if (ps & (ps - 1))
        return idb_fail(err, IDB_EINPUT, "galera: page_size=%lld: expected 4096, 8192, 16384, "
                        "32768 or 65536", (long long)ps);
    if (geteuid() != 0)          /* wsrep's group traffic has no authentication */
        return idb_fail(err, IDB_EINPUT, "galera: needs root: its nodes talk TCP without "
                        "authentication, so idbench runs them only in a private network "
                        "namespace (no per-run secret covers wsrep's group traffic)");
    if (idb_opts_int(o, IDB_STORE_SHARDS) > 1)
        return idb_fail(err, IDB_EINPUT, "galera: one shard per run (its nodes share the "
                        "table): leave --shards out");
    if (idb_opts_int(o, IDB_STORE_JOIN_AT) && idb_opts_int(o, "nodes") >= GL_NODES_MAX)
        return idb_fail(err, IDB_EINPUT, "galera: join_at: a cluster of %d nodes cannot grow",
                        GL_NODES_MAX);
    return 0;
}

/* The store's `available` hook: MariaDB's server binaries, the wsrep provider, rsync. */
static int gl_available(const char *const *kv, int nkv, char *version, size_t cap,
                        idb_err *why)
{
    (void)kv;
    (void)nkv;
    int rc = idb_server_installed("mariadb", version, cap, why);
    if (rc) return rc;
    if (geteuid() != 0)
        return idb_fail(why, IDB_EIO, "galera: needs root (its nodes run only in a private "
                        "network namespace)");
    const char *p = getenv(GL_PROVIDER_ENV);
    p = p && p[0] ? p : GL_PROVIDER_DEFAULT;
    if (access(p, R_OK) != 0)
        return idb_fail(why, IDB_EIO, "galera: the wsrep provider is not installed (%s: "
                        "Debian package galera-4)", p);
    if (access("/usr/bin/rsync", X_OK) != 0)
        return idb_fail(why, IDB_EIO, "galera: rsync (its state transfer) is not installed "
                        "(Debian package rsync)");
    return 0;
}

/* Close every node (each stops its server); free s. NULL is fine. */
static void gl_close(void *h)
{
    gl_store *s = h;
    if (!s) return;
    for (int j = GL_NODES_MAX; j >= 0; j--)
        if (s->node[j]) idb_store_mariadb.close(s->node[j]);
    free(s->txn);
    free(s->dst);
    free(s->keys);
    free(s->key_node);
    free(s->key_phase);
    free(s);
}

/* On node 1: the database and the table (replicated to every node). */
static int make_schema(gl_store *s, idb_err *err)
{
    md_store *m = s->node[0];
    char sql[MD_SQL_MAX];
    int rc = md_exec(m, "CREATE DATABASE " GL_DB, IDB_EIO, "creating the database", err);
    if (!rc && mysql_select_db(m->db, GL_DB) != 0) rc = md_fail(m->db, IDB_EIO, "USE", err);
    if (rc) return rc;
    md_table_sql(m, sql);
    return md_exec(m, sql, IDB_EIO, "creating the table", err);
}

/* Open: check, the nodes (node 1 first, then each joining), the table, every node's
 * INSERT. IDB_EINPUT for bad options or not root; IDB_EIO when a node cannot be started or
 * the cluster does not form; every server started is stopped on failure. */
static int gl_open(const char *dir, const idb_opts *o, int key_bytes, void **h, idb_err *err)
{
    int rc = gl_check(o, key_bytes, err);
    char version[64];
    if (!rc) rc = gl_available(NULL, 0, version, sizeof version, err);
    if (rc) return rc;
    gl_store *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    s->pool = idb_opts_int(o, "buffer_pool_bytes");
    s->flush = idb_opts_int(o, "flush_log_at_trx_commit");
    s->page_size = idb_opts_int(o, "page_size");
    s->first_nodes = s->nnodes = (int)idb_opts_int(o, "nodes");
    s->autoinc = (int)idb_opts_int(o, IDB_STORE_AUTOINC);
    s->key_bytes = key_bytes;
    s->row_bytes = (int)idb_opts_int(o, "row_bytes");
    s->join_at = idb_opts_int(o, IDB_STORE_JOIN_AT);
    s->join_ms = -1;
    if (snprintf(s->dir, sizeof s->dir, "%s", dir) >= (int)sizeof s->dir)
        rc = idb_fail(err, IDB_EINPUT, "galera: directory name too long");
    for (int j = 0; j < s->nnodes && !rc; j++)
        rc = gl_node_start(s, j, s->nnodes, &s->node[j], err);
    if (!rc) rc = gl_wait_cluster(s, s->nnodes, err);
    if (!rc) rc = make_schema(s, err);
    if (!rc) rc = md_prepare(s->node[0], err);
    for (int j = 1; j < s->nnodes && !rc; j++) rc = gl_node_ready(s, j, err);
    for (int j = 0; j < s->nnodes; j++)
        s->cpu0[j] = s->node[j] && s->node[j]->server ? idb_server_cpu_ns(s->node[j]->server)
                                                      : -1;
    if (rc) {
        gl_close(s);
        return rc;
    }
    *h = s;
    return 0;
}

/* Keep a copy of row as one of the open transaction's, for a replay (dst: the runner's
 * row, autoinc; NULL else). */
static int keep_row(gl_store *s, const idb_row *row, idb_row *dst, idb_err *err)
{
    if (s->ntxn == s->txn_cap) {
        int cap = s->txn_cap ? 2 * s->txn_cap : 1024;
        idb_row *t = realloc(s->txn, (size_t)cap * sizeof *t);
        if (t) s->txn = t;
        idb_row **d = t ? realloc(s->dst, (size_t)cap * sizeof *d) : NULL;
        if (d) s->dst = d;
        if (!t || !d) return idb_fail(err, IDB_ENOMEM, "out of memory");
        s->txn_cap = cap;
    }
    s->dst[s->ntxn] = dst;
    s->txn[s->ntxn++] = *row;
    return 0;
}

/* One row on the open transaction's node. */
static int put(gl_store *s, idb_row *row, idb_err *err)
{
    md_store *m = s->node[s->cur];
    return s->autoinc ? md_insert_assigned(m, row, err) : idb_store_mariadb.insert(m, row, err);
}

static int gl_insert(void *h, const idb_row *row, idb_err *err)
{
    gl_store *s = h;
    int rc = s->autoinc ? idb_fail(err, IDB_EINPUT, "galera: autoinc=1 takes insert_assigned")
                        : idb_store_mariadb.insert(s->node[s->cur], row, err);
    return rc ? rc : keep_row(s, row, NULL, err);
}

static int gl_insert_assigned(void *h, idb_row *row, idb_err *err)
{
    gl_store *s = h;
    int rc = put(s, row, err);
    return rc ? rc : keep_row(s, row, row, err);
}

/* Keep the committed transaction's keys with their node and phase. */
static int keep_keys(gl_store *s, idb_err *err)
{
    if (s->nkeys + s->ntxn > s->cap) {
        int64_t cap = s->cap ? 2 * s->cap : 65536;
        while (cap < s->nkeys + s->ntxn) cap *= 2;
        uint64_t *k = realloc(s->keys, (size_t)cap * sizeof *k);
        if (k) s->keys = k;
        uint8_t *n = realloc(s->key_node, (size_t)cap), *p = n ? realloc(s->key_phase, (size_t)cap)
                                                               : NULL;
        if (n) s->key_node = n;
        if (p) s->key_phase = p;
        if (!k || !n || !p) return idb_fail(err, IDB_ENOMEM, "out of memory");
        s->cap = cap;
    }
    for (int i = 0; i < s->ntxn; i++) {
        const idb_id *id = &s->txn[i].id;
        s->keys[s->nkeys] = id->len == 8 ? idb_id_u64(id) : 0;
        s->key_node[s->nkeys] = (uint8_t)s->cur;
        s->key_phase[s->nkeys++] = (uint8_t)s->joined;
    }
    return 0;
}

/* Commit on the transaction's node; on IDB_EBUSY roll back and replay its rows on the next
 * node (counted); then the next transaction's node, and the join when its time came. */
static int gl_commit(void *h, idb_err *err)
{
    gl_store *s = h;
    int rc = idb_store_mariadb.commit(s->node[s->cur], err);
    for (int tries = 1; rc == IDB_EBUSY && tries < GL_RETRIES_MAX; tries++) {
        idb_store_mariadb.rollback(s->node[s->cur]);
        s->failed_txns++;
        s->cur = (s->cur + 1) % s->nnodes;
        rc = 0;
        for (int i = 0; i < s->ntxn && !rc; i++) {
            rc = put(s, &s->txn[i], err);
            if (!rc && s->dst[i]) s->dst[i]->id = s->txn[i].id;    /* the new key (autoinc) */
        }
        if (!rc) rc = idb_store_mariadb.commit(s->node[s->cur], err);
        if (!rc) s->retried_orders += s->ntxn;
    }
    if (rc == IDB_EBUSY) {                        /* given up: the orders failed */
        idb_store_mariadb.rollback(s->node[s->cur]);
        s->failed_txns++;
        s->failed_orders += s->ntxn;
        s->ntxn = 0;
        rc = 0;
    }
    if (!rc && s->ntxn) rc = keep_keys(s, err);
    if (rc) return rc;
    s->orders += s->ntxn;
    s->batches += s->ntxn > 0;
    s->ntxn = 0;
    s->cur = (int)(s->batches % s->nnodes);
    if (s->join_at && !s->joined && s->orders >= s->join_at) {
        rc = gl_join(s, err);
        s->cur = (int)(s->batches % s->nnodes);
    }
    return rc;
}

/* The server_cpu_ns hook (store.h, version 3): every node's CPU time summed. */
static int64_t gl_server_cpu_ns(void *h)
{
    gl_store *s = h;
    int64_t sum = 0;
    for (int j = 0; j < s->nnodes; j++) {
        long long ns = idb_server_cpu_ns(s->node[j]->server);
        if (ns < 0) return -1;
        sum += ns;
    }
    return sum;
}

const idb_store idb_store_galera = {
    .version = IDB_STORE_VERSION,
    .name = "galera",
    .summary = "MariaDB Galera: N private primaries (>= 3) replicating one table, inserts "
               "round robin per transaction",
    .options = gl_options,
    .open = gl_open,
    .insert = gl_insert,
    .commit = gl_commit,
    .stats = gl_stats,
    .close = gl_close,
    .check = gl_check,
    .available = gl_available,
    .clients = 1,
    .server_cpu_ns = gl_server_cpu_ns,
    .insert_assigned = gl_insert_assigned,
};
