/* store_spider.c — `spider`: orders in one table split over B MariaDB servers by the Spider
 * storage engine (MariaDB 10.11, Debian's mariadb-plugin-spider), the way range-sharded
 * engines split a table by its key.
 *
 * A store is B private backend servers and one head server (spider_servers.c: every server
 * started by harness/servers, stopped at close and on every exit path idbench has). Rows
 * go through the head's Spider table, one prepared INSERT per row (the mariadb store's
 * columns and binding), autocommit off, commit() ending the transaction on the head (and so
 * on each backend Spider wrote to). The split (-s partition=):
 *   range  RANGE COLUMNS(id) at B - 1 split points (-s split=):
 *            space   B equal slices of the keys' value range [0, 2^space_bits)
 *                    (split.h: idb_split_space; space_bits 0 = 63 for 8-byte keys, whose
 *                    strategies all make positive signed 64-bit integers, else 8 x key_bytes)
 *            sample  the quantiles of the run's own IDs, made ahead by the runner and handed
 *                    over by set_bounds() (store.h version 3; split.h: idb_split_sample)
 *   hash   HASH(id): backend id mod B (8-byte keys only: MariaDB hashes an integer)
 *   key    KEY(id): MariaDB's own hash of the key bytes (any width)
 * stats(): spider_stats.c (each backend's rows counted there, the window, the InnoDB
 * figures and CPU time per backend).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server.h"
#include "spider.h"

#define SP_POOL_MIN (6 << 20)          /* innodb_buffer_pool_size's floor, with some room */
#define SP_ROW_BYTES_MAX 60000
#define SP_WINDOW_MAX (INT64_C(1) << 34)
#define SP_PLUGIN_DEFAULT "/usr/lib/mysql/plugin/ha_spider.so"
#define SP_PLUGIN_ENV "IDBENCH_SPIDER_PLUGIN"   /* tests: point at a missing plugin */

static const idb_opt_decl sp_options[] = {
    { .name = "backends", .type = IDB_OPT_INT, .def = "4",
      .help = "backend servers the table is split over", .min = 1, .max = SP_BACKENDS_MAX },
    { .name = "partition", .type = IDB_OPT_ENUM, .def = "range",
      .help = "range: by key ranges; hash: id mod backends (8-byte keys); key: MariaDB's "
              "hash of the key", .choices = "range|hash|key" },
    { .name = "split", .type = IDB_OPT_ENUM, .def = "space",
      .help = "partition=range: space = equal slices of the value range; sample = quantiles "
              "of the run's own IDs", .choices = "space|sample" },
    { .name = "space_bits", .type = IDB_OPT_INT, .def = "0",
      .help = "split=space: the keys span [0, 2^N); 0 = 63 for 8-byte keys, else 8 x "
              "key_bytes", .min = 0, .max = 8 * IDB_ID_MAX },
    { .name = IDB_STORE_WINDOW, .type = IDB_OPT_INT, .def = "1000",
      .help = "rows of hot_share_window_max's window (the runner's --window)", .min = 1,
      .max = SP_WINDOW_MAX },
    { .name = "buffer_pool_bytes", .type = IDB_OPT_INT, .def = "8388608",
      .help = "each server's innodb_buffer_pool_size", .min = SP_POOL_MIN,
      .max = INT64_C(1) << 40 },
    { .name = "flush_log_at_trx_commit", .type = IDB_OPT_INT, .def = "2",
      .help = "each server's innodb_flush_log_at_trx_commit", .min = 0, .max = 2 },
    { .name = "page_size", .type = IDB_OPT_INT, .def = "16384",
      .help = "each server's innodb_page_size (4096 .. 65536, a power of 2)", .min = 4096,
      .max = 65536 },
    { .name = "row_bytes", .type = IDB_OPT_INT, .def = "64",
      .help = "payload bytes per row (derived from the key)", .min = 0,
      .max = SP_ROW_BYTES_MAX },
    { .name = IDB_STORE_SHARD, .type = IDB_OPT_INT, .def = "0",
      .help = "this store's shard (set by the runner)", .min = 0, .max = 1 << 20 },
    { .name = IDB_STORE_SHARDS, .type = IDB_OPT_INT, .def = "1",
      .help = "the run's shard count (set by the runner; spider takes 1)", .min = 1,
      .max = 1 << 20 },
    { 0 },
};

/* The value range's bits for split=space: the option, or its default for the width. */
static int space_bits(const idb_opts *o, int key_bytes)
{
    int bits = (int)idb_opts_int(o, "space_bits");
    return bits ? bits : key_bytes == 8 ? 63 : 8 * key_bytes;
}

/* The check hook: options that fit together and with the key width (nothing made). */
static int sp_check(const idb_opts *o, int key_bytes, idb_err *err)
{
    int rc = idb_store_check_width("spider", key_bytes, err);
    if (rc) return rc;
    int64_t ps = idb_opts_int(o, "page_size"), b = idb_opts_int(o, "backends");
    int part = (int)idb_opts_int(o, "partition"), split = (int)idb_opts_int(o, "split");
    if (ps & (ps - 1))
        return idb_fail(err, IDB_EINPUT, "spider: page_size=%lld: expected 4096, 8192, 16384, "
                        "32768 or 65536", (long long)ps);
    if (split == SP_SAMPLE && part != SP_RANGE)
        return idb_fail(err, IDB_EINPUT, "spider: split=sample goes with partition=range (the "
                        "split points of ranges), not partition=%s",
                        idb_opts_str(o, "partition"));
    if (part == SP_HASH && key_bytes != 8)
        return idb_fail(err, IDB_EINPUT, "spider: partition=hash takes 8-byte keys (MariaDB's "
                        "HASH() takes an integer), not %d-byte ones: use partition=key",
                        key_bytes);
    if (space_bits(o, key_bytes) > 8 * key_bytes)
        return idb_fail(err, IDB_EINPUT, "spider: space_bits=%d is wider than the %d-byte "
                        "keys", space_bits(o, key_bytes), key_bytes);
    if (idb_opts_int(o, IDB_STORE_SHARDS) > 1)
        return idb_fail(err, IDB_EINPUT, "spider: one shard per run (its backends are the "
                        "shards): leave --shards out");
    if (part != SP_RANGE || split != SP_SPACE || b < 2) return 0;
    idb_id points[SP_BACKENDS_MAX];
    return idb_split_space((int)b, key_bytes, space_bits(o, key_bytes), points, err);
}

/* store.h version 3: the parts of split=sample (B), 0 for every other split. */
static int sp_sample_parts(const idb_opts *o)
{
    int b = (int)idb_opts_int(o, "backends");
    return idb_opts_int(o, "partition") == SP_RANGE && idb_opts_int(o, "split") == SP_SAMPLE &&
           b > 1 ? b : 0;
}

/* The Spider plugin's path: SP_PLUGIN_ENV, else Debian's. */
static const char *plugin_path(void)
{
    const char *p = getenv(SP_PLUGIN_ENV);
    return p && p[0] ? p : SP_PLUGIN_DEFAULT;
}

/* The store's `available` hook: MariaDB's server binaries and the Spider plugin. */
static int sp_available(const char *const *kv, int nkv, char *version, size_t cap,
                        idb_err *why)
{
    (void)kv;
    (void)nkv;
    int rc = idb_server_installed("mariadb", version, cap, why);
    if (rc) return rc;
    if (access(plugin_path(), R_OK) != 0)
        return idb_fail(why, IDB_EIO, "spider: the Spider engine is not installed (%s: "
                        "Debian package mariadb-plugin-spider)", plugin_path());
    return 0;
}

/* Close the head, then every backend (each stops its server); free s. NULL is fine. */
static void sp_close(void *h)
{
    sp_store *s = h;
    if (!s) return;
    if (s->head) idb_store_mariadb.close(s->head);
    for (int j = 0; j < s->nback; j++)
        if (s->back[j]) idb_store_mariadb.close(s->back[j]);
    free(s->keys);
    free(s);
}

/* Each backend's counters and CPU time, and the head's CPU time, now: the run's start. */
static int mark_start(sp_store *s, idb_err *err)
{
    for (int j = 0; j < s->nback; j++) {
        int rc = md_counters_read(s->back[j], &s->back[j]->start, err);
        if (rc) return rc;
        s->cpu0[j] = idb_server_cpu_ns(s->back[j]->server);
    }
    s->cpu0[s->nback] = idb_server_cpu_ns(s->head->server);
    return 0;
}

/* Open: check, the backends (servers, accounts, tables), the head (Spider, its servers),
 * then its table (unless split=sample: set_bounds makes it). IDB_EINPUT for bad options;
 * IDB_EIO when a server cannot be started or refuses; every server started is stopped on
 * failure. */
static int sp_open(const char *dir, const idb_opts *o, int key_bytes, void **h, idb_err *err)
{
    int rc = sp_check(o, key_bytes, err);
    char version[64];
    if (!rc) rc = sp_available(NULL, 0, version, sizeof version, err);
    if (rc) return rc;
    sp_store *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    s->nback = (int)idb_opts_int(o, "backends");
    s->partition = (int)idb_opts_int(o, "partition");
    s->split = (int)idb_opts_int(o, "split");
    s->space_bits = space_bits(o, key_bytes);
    s->key_bytes = key_bytes;
    s->row_bytes = (int)idb_opts_int(o, "row_bytes");
    s->window = idb_opts_int(o, IDB_STORE_WINDOW);
    rc = idb_server_secret_new(s->secret, sizeof s->secret, err);
    for (int j = 0; j < s->nback && !rc; j++) {
        rc = sp_server_start(dir, j, o, s, &s->back[j], err);
        if (!rc) rc = sp_backend_schema(s, s->back[j], err);
    }
    if (!rc) rc = sp_server_start(dir, -1, o, s, &s->head, err);
    if (!rc) rc = sp_head_schema(s, err);
    if (!rc && s->partition == SP_RANGE && s->nback > 1 && s->split == SP_SPACE)
        rc = idb_split_space(s->nback, key_bytes, s->space_bits, s->points, err);
    if (!rc && sp_sample_parts(o) == 0) rc = sp_head_table(s, err);
    if (!rc) rc = mark_start(s, err);
    if (rc) {
        sp_close(s);
        return rc;
    }
    *h = s;
    return 0;
}

/* store.h version 3: the split points of split=sample; makes the head's table. */
static int sp_set_bounds(void *h, const idb_id *points, int n, idb_err *err)
{
    sp_store *s = h;
    if (s->table_made || s->split != SP_SAMPLE || n != s->nback - 1)
        return idb_fail(err, IDB_EINPUT, "spider: %d split points for %d backends%s", n,
                        s->nback, s->table_made ? " after the table was made" : "");
    int rc = idb_split_check(s->nback, s->key_bytes, points, err);
    if (rc) return rc;
    memcpy(s->points, points, (size_t)n * sizeof *points);
    return sp_head_table(s, err);
}

/* Keep key (width bytes) as the next inserted one, growing the room by doubling. */
static int keep(sp_store *s, const idb_id *id, idb_err *err)
{
    size_t w = (size_t)s->key_bytes;
    if (s->nkeys == s->cap) {
        int64_t cap = s->cap ? 2 * s->cap : 4096;
        uint8_t *k = realloc(s->keys, (size_t)cap * w);
        if (!k) return idb_fail(err, IDB_ENOMEM, "out of memory for %lld keys", (long long)cap);
        s->keys = k;
        s->cap = cap;
    }
    memcpy(s->keys + (size_t)s->nkeys++ * w, id->b, w);
    return 0;
}

/* Insert through the head (the mariadb store's prepared INSERT), keeping the key. */
static int sp_insert(void *h, const idb_row *row, idb_err *err)
{
    sp_store *s = h;
    if (!s->table_made)
        return idb_fail(err, IDB_EINPUT, "spider: split=sample: no split points were given "
                        "(the insert runner hands them over: set_bounds)");
    int rc = idb_store_mariadb.insert(s->head, row, err);
    return rc ? rc : keep(s, &row->id, err);
}

/* Commit on the head: Spider commits what it wrote on each backend. */
static int sp_commit(void *h, idb_err *err)
{
    sp_store *s = h;
    return idb_store_mariadb.commit(s->head, err);
}

const idb_store idb_store_spider = {
    .version = IDB_STORE_VERSION,
    .name = "spider",
    .summary = "MariaDB Spider: one table split over B private backend servers (range, hash "
               "or key partitions)",
    .options = sp_options,
    .open = sp_open,
    .insert = sp_insert,
    .commit = sp_commit,
    .stats = sp_stats,
    .close = sp_close,
    .check = sp_check,
    .available = sp_available,
    .clients = 1,
    .sample_parts = sp_sample_parts,
    .set_bounds = sp_set_bounds,
};
