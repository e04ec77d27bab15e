/* spider_stats.c — the `spider` store's figures (stats()): where the run's rows went and
 * what each backend did, read from the backends themselves, not from Spider's arithmetic.
 *
 * After the last commit, for each backend (its own connection, around the head):
 *   its rows        SELECT id FROM orders ORDER BY id: the keys it holds (their count is its
 *                   share's numerator: backend_share = its rows / all the backends' rows);
 *   its InnoDB      after FLUSH TABLES orders FOR EXPORT (the dirty pages written), the
 *                   server's counters less those at open() (mariadb_stats.c's functions):
 *                   pages_written, cache_misses, read_pages, wal_bytes, splits: summed over
 *                   the backends into the usual columns, the largest backend's kept apart;
 *   its CPU time    idb_server_cpu_ns now less at open() (every backend, and the head).
 * Every key the run inserted (kept in insert order by insert()) is then looked up in the
 * backends' keys: it must be on exactly one, and, where the split has a rule (range: the
 * split points; hash: id mod B), on the one the rule says; else stats() fails (IDB_EIO,
 * naming the key). The backends' row count must equal the rows inserted. From the keys'
 * backends in insert order: hot_share_window_max (split.h: idb_split_window_max over the
 * store's window). leaf_pages and the page figures are not read (-1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "spider.h"

/* One backend's keys, sorted (ORDER BY id), width bytes each. */
typedef struct held { uint8_t *keys; int64_t n; } held;

/* Backend b's keys into *out (sorted by the server). Returns 0, IDB_ENOMEM or IDB_EIO. */
static int read_keys(const sp_store *s, md_store *b, held *out, idb_err *err)
{
    size_t w = (size_t)s->key_bytes;
    int64_t cap = 0;
    out->keys = NULL;
    out->n = 0;
    if (mysql_query(b->db, "SELECT id FROM orders ORDER BY id") != 0)
        return md_fail(b->db, IDB_EIO, "reading a backend's rows", err);
    MYSQL_RES *res = mysql_use_result(b->db);
    if (!res) return md_fail(b->db, IDB_EIO, "reading a backend's rows", err);
    int rc = 0;
    MYSQL_ROW f;
    while (!rc && (f = mysql_fetch_row(res))) {
        unsigned long *len = mysql_fetch_lengths(res);
        if (out->n == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t *k = realloc(out->keys, (size_t)cap * w);
            if (!k) { rc = idb_fail(err, IDB_ENOMEM, "out of memory"); break; }
            out->keys = k;
        }
        uint8_t *at = out->keys + (size_t)out->n * w;
        if (w == 8) idb_put_be64(at, strtoull(f[0], NULL, 10));
        else if (len[0] == w) memcpy(at, f[0], w);
        else rc = idb_fail(err, IDB_EIO, "spider: a backend holds a %lu-byte key", len[0]);
        out->n++;
    }
    if (!rc && mysql_errno(b->db)) rc = md_fail(b->db, IDB_EIO, "reading a backend's rows", err);
    while (mysql_fetch_row(res)) {}
    mysql_free_result(res);
    return rc;
}

/* 1 when key is among h's sorted keys. */
static int holds(const held *h, const uint8_t *key, size_t w)
{
    int64_t lo = 0, hi = h->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int c = memcmp(h->keys + (size_t)mid * w, key, w);
        if (c == 0) return 1;
        if (c < 0) lo = mid + 1; else hi = mid;
    }
    return 0;
}

/* The backend the split's rule puts key on, -1 when it has none (partition=key). */
static int rule(const sp_store *s, const uint8_t *key)
{
    if (s->nback == 1) return 0;
    if (s->partition == SP_RANGE)
        return idb_split_part(s->nback, s->key_bytes, s->points, key);
    if (s->partition == SP_HASH) return (int)(idb_get_be64(key) % (uint64_t)s->nback);
    return -1;
}

/* Each inserted key's backend into part[] (insert order), checked as the header says. */
static int place(const sp_store *s, const held *h, uint8_t *part, idb_err *err)
{
    size_t w = (size_t)s->key_bytes;
    for (int64_t i = 0; i < s->nkeys; i++) {
        const uint8_t *key = s->keys + (size_t)i * w;
        int on = -1, found = 0, want = rule(s, key);
        for (int j = 0; j < s->nback; j++)
            if (holds(&h[j], key, w)) { on = j; found++; }
        char hex[IDB_ID_HEX_MAX];
        if (found != 1)
            return idb_fail(err, IDB_EIO, "spider: row %s is on %d backends, not 1",
                            idb_hex(key, w, hex), found);
        if (want >= 0 && on != want)
            return idb_fail(err, IDB_EIO, "spider: row %s is on backend %d, its %s says %d",
                            idb_hex(key, w, hex), on,
                            s->partition == SP_RANGE ? "range" : "hash", want);
        part[i] = (uint8_t)on;
    }
    return 0;
}

/* Backend j's figures: flush, counters since open, CPU time; summed into st, the largest
 * kept in st's maxima. */
static int backend_figures(sp_store *s, int j, idb_store_stats *st, idb_err *err)
{
    md_store *b = s->back[j];
    md_counters d;
    int rc = md_flush_table(b, err);
    if (!rc) rc = md_counters_since_open(b, &d, err);
    if (rc) return rc;
    int64_t misses = md_misses(&d);
    st->pages_written += d.pages_written;
    st->cache_misses += misses;
    st->read_pages += d.pages_read;
    st->wal_bytes += d.log_written;
    st->splits += d.splits;
    if (d.pages_written > st->backend_pages_written_max)
        st->backend_pages_written_max = d.pages_written;
    if (misses > st->backend_cache_misses_max) st->backend_cache_misses_max = misses;
    long long cpu = idb_server_cpu_ns(b->server);
    st->backend_cpu_s[j] = cpu < 0 || s->cpu0[j] < 0 ? -1 : (double)(cpu - s->cpu0[j]) / 1e9;
    return 0;
}

/* Shares and the window from the backends' keys (h) and the inserted keys. */
static int shares(sp_store *s, const held *h, idb_store_stats *st, idb_err *err)
{
    int64_t count[SP_BACKENDS_MAX], total = 0;
    for (int j = 0; j < s->nback; j++) total += count[j] = h[j].n;
    if (total != s->nkeys)
        return idb_fail(err, IDB_EIO, "spider: the backends hold %lld rows, %lld were inserted",
                        (long long)total, (long long)s->nkeys);
    st->hot_share = idb_split_shares(count, s->nback, st->backend_share);
    uint8_t *part = malloc((size_t)s->nkeys + 1);
    if (!part) return idb_fail(err, IDB_ENOMEM, "out of memory");
    int rc = place(s, h, part, err);
    if (!rc) st->hot_share_window_max = idb_split_window_max(part, s->nkeys, s->nback, s->window);
    free(part);
    return rc;
}

int sp_stats(void *h, idb_store_stats *st, idb_err *err)
{
    sp_store *s = h;
    *st = (idb_store_stats){ .leaf_pages = -1, .branch_pages = -1, .depth = -1,
                             .fill_factor = -1, .file_bytes = -1, .checkpoint_pages = -1,
                             .wal_frames = -1, .has_server = 1, .fpi = -1,
                             .leaf_fragmentation = -1, .index_bytes = -1, .table_bytes = -1,
                             .secondary_bytes = -1, .extend_pages = -1, .autovacuum_runs = -1,
                             .backends = s->nback };
    int rc = s->table_made ? idb_store_mariadb.commit(s->head, err) : 0;
    for (int j = 0; j < s->nback && !rc; j++) rc = backend_figures(s, j, st, err);
    long long cpu = idb_server_cpu_ns(s->head->server);
    st->head_cpu_s = cpu < 0 || s->cpu0[s->nback] < 0 ? -1
                   : (double)(cpu - s->cpu0[s->nback]) / 1e9;
    held keys[SP_BACKENDS_MAX] = { { 0 } };
    for (int j = 0; j < s->nback && !rc; j++) rc = read_keys(s, s->back[j], &keys[j], err);
    if (!rc) rc = shares(s, keys, st, err);
    for (int j = 0; j < s->nback; j++) free(keys[j].keys);
    return rc;
}
