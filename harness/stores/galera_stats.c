/* galera_stats.c — the `galera` store's figures (stats()) and the pattern of the keys its
 * nodes assigned, read from the nodes themselves.
 *
 * After the last commit, on every node (wsrep_sync_wait = 1: the read waits until the node
 * applied everything committed before it): SELECT id FROM orders ORDER BY id. Every node must
 * hold exactly the rows committed (the same multiset as the keys the inserts were handed),
 * else stats() fails (IDB_EIO). Columns: backends = the nodes, backend_share = each node's
 * share of the orders written through it, backend_cpu_s its CPU seconds in the run; the page
 * figures are not read (-1).
 *
 * The pattern (the chapter's interleaved scheme as Galera runs it), one line per node and
 * phase (before and after the join-node fault), into <dir>/galera-pattern.txt and on stderr:
 *   galera: node J PHASE: N keys, step S, residues mod S: R[,R...] (increment I offset O now)
 * where S is the smallest gap between two keys the node assigned one after the other in that
 * phase (inside a transaction: its auto_increment_increment then), R every value of key mod S
 * seen (one value: the node kept one offset), I and O the node's settings at the end. A
 * summary line gives the orders, retried_orders (orders of transactions replayed after a
 * deadlock or certification failure, then committed), failed_orders (given up), failed
 * transactions, the join's time (join_ms, -1 without), the largest key and the values below
 * it that no order got (skipped_ids). Keys handed out twice are the run's duplicate_ids.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "galera.h"
#include "server.h"

#define GL_RESIDUES_SHOWN 8

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Node j's keys, sorted by the server, compared with want[0..n) (sorted). */
static int check_node(gl_store *s, int j, const uint64_t *want, int64_t n, idb_err *err)
{
    md_store *m = s->node[j];
    int rc = md_exec(m, "SET SESSION wsrep_sync_wait = 1", IDB_EIO, "wsrep_sync_wait", err);
    if (!rc && mysql_query(m->db, "SELECT id FROM orders ORDER BY id") != 0)
        rc = md_fail(m->db, IDB_EIO, "reading a node's rows", err);
    MYSQL_RES *res = rc ? NULL : mysql_use_result(m->db);
    if (!rc && !res) rc = md_fail(m->db, IDB_EIO, "reading a node's rows", err);
    int64_t i = 0;
    MYSQL_ROW f;
    while (!rc && (f = mysql_fetch_row(res))) {
        uint64_t v = strtoull(f[0], NULL, 10);
        if (i >= n || v != want[i])
            rc = idb_fail(err, IDB_EIO, "galera: node %d holds key %llu where the run's keys "
                          "have %s", j + 1, (unsigned long long)v, i >= n ? "no more" : "another");
        i++;
    }
    if (res) {
        while (mysql_fetch_row(res)) {}
        mysql_free_result(res);
    }
    if (!rc && i != n)
        rc = idb_fail(err, IDB_EIO, "galera: node %d holds %lld rows, %lld were committed",
                      j + 1, (long long)i, (long long)n);
    if (!rc) rc = md_exec(m, "COMMIT", IDB_EIO, "commit", err);
    return rc;
}

/* One node's line for phase p into f and stderr. */
static void node_line(gl_store *s, int j, int p, FILE *f)
{
    int64_t n = 0;
    uint64_t step = 0, last = 0;
    for (int64_t i = 0; i < s->nkeys; i++) {
        if (s->key_node[i] != j || s->key_phase[i] != p) continue;
        uint64_t k = s->keys[i];
        if (n && k > last && (!step || k - last < step)) step = k - last;
        last = k;
        n++;
    }
    if (!n) return;
    char res[128] = "";
    size_t used = 0;
    int shown = 0;
    uint64_t seen[GL_RESIDUES_SHOWN];
    for (int64_t i = 0; step && i < s->nkeys && shown < GL_RESIDUES_SHOWN; i++) {
        if (s->key_node[i] != j || s->key_phase[i] != p) continue;
        uint64_t r = s->keys[i] % step;
        int dup = 0;
        for (int q = 0; q < shown; q++) dup |= seen[q] == r;
        if (dup) continue;
        seen[shown++] = r;
        used += (size_t)snprintf(res + used, sizeof res - used, "%s%llu", shown > 1 ? "," : "",
                                 (unsigned long long)r);
    }
    int64_t inc = -1, off = -1;
    idb_err e = { 0 };
    (void)md_query_i64(s->node[j], "SELECT @@auto_increment_increment", &inc, &e);
    (void)md_query_i64(s->node[j], "SELECT @@auto_increment_offset", &off, &e);
    char line[384];
    snprintf(line, sizeof line, "galera: node %d %s: %lld keys, step %llu, residues mod %llu: "
             "%s (increment %lld offset %lld now)\n", j + 1, p ? "after the join" : "before",
             (long long)n, (unsigned long long)step, (unsigned long long)step,
             step ? res : "-", (long long)inc, (long long)off);
    fputs(line, f);
    fputs(line, stderr);
}

/* The pattern file and lines (sorted: the run's keys, sorted; n of them). */
static int pattern(gl_store *s, const uint64_t *sorted, int64_t n, idb_err *err)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/galera-pattern.txt", s->dir);
    FILE *f = fopen(path, "w");
    if (!f) return idb_fail(err, IDB_EIO, "galera: cannot write %s", path);
    int64_t distinct = 0;
    for (int64_t i = 0; i < n; i++) distinct += i == 0 || sorted[i] != sorted[i - 1];
    uint64_t max = n ? sorted[n - 1] : 0;
    char line[384];
    snprintf(line, sizeof line, "galera: %d nodes%s, %lld orders, retried_orders %lld, "
             "failed_orders %lld, failed transactions %lld, join_ms %.0f, largest key %llu, "
             "skipped_ids %lld\n", s->nnodes, s->joined ? " (one joined)" : "",
             (long long)s->orders, (long long)s->retried_orders, (long long)s->failed_orders,
             (long long)s->failed_txns, s->join_ms, (unsigned long long)max,
             s->autoinc ? (long long)(max - (uint64_t)distinct) : -1LL);
    fputs(line, f);
    fputs(line, stderr);
    for (int p = 0; s->autoinc && p <= s->joined; p++)
        for (int j = 0; j < s->nnodes; j++) node_line(s, j, p, f);
    return fclose(f) == 0 ? 0 : idb_fail(err, IDB_EIO, "galera: cannot write %s", path);
}

int gl_stats(void *h, idb_store_stats *st, idb_err *err)
{
    gl_store *s = h;
    *st = (idb_store_stats){ .leaf_pages = -1, .branch_pages = -1, .depth = -1,
                             .fill_factor = -1, .file_bytes = -1, .pages_written = -1,
                             .checkpoint_pages = -1, .wal_frames = -1, .cache_misses = -1,
                             .read_pages = -1, .splits = -1, .has_server = 1, .wal_bytes = -1,
                             .fpi = -1, .leaf_fragmentation = -1, .index_bytes = -1,
                             .table_bytes = -1, .extend_pages = -1, .autovacuum_runs = -1,
                             .backends = s->nnodes, .hot_share = -1,
                             .hot_share_window_max = -1, .head_cpu_s = -1,
                             .backend_pages_written_max = -1, .backend_cache_misses_max = -1 };
    int64_t count[GL_NODES_MAX + 1] = { 0 };
    for (int64_t i = 0; i < s->nkeys; i++) count[s->key_node[i]]++;
    for (int j = 0; j < s->nnodes; j++) {
        st->backend_share[j] = s->nkeys ? (double)count[j] / (double)s->nkeys : 0;
        long long cpu = idb_server_cpu_ns(s->node[j]->server);
        st->backend_cpu_s[j] = cpu < 0 || s->cpu0[j] < 0 ? -1 : (double)(cpu - s->cpu0[j]) / 1e9;
    }
    uint64_t *sorted = malloc((size_t)(s->nkeys + 1) * sizeof *sorted);
    if (!sorted) return idb_fail(err, IDB_ENOMEM, "out of memory");
    memcpy(sorted, s->keys, (size_t)s->nkeys * sizeof *sorted);
    qsort(sorted, (size_t)s->nkeys, sizeof *sorted, cmp_u64);
    int rc = 0;
    for (int j = 0; j < s->nnodes && !rc && s->key_bytes == 8; j++)
        rc = check_node(s, j, sorted, s->nkeys, err);
    if (!rc) rc = pattern(s, sorted, s->nkeys, err);
    free(sorted);
    return rc;
}
