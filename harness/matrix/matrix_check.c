/* matrix_check.c — the end of reading matrix files (mx_finish, matrix.h): the [quick]
 * overrides applied, named blocks inheriting from their base block, and the checks of every
 * run the matrix will make before anything runs: each run's store options (the store's
 * table, then its check hook with each strategy's width, naming the FILE:LINE that set the
 * refused value; a block's store_set only of the block's stores), the options the harness
 * fills in for each shard, open-loop runs on stores
 * that measure time, series windows that end with a commit. The keys and sections of a
 * matrix file are matrix_file.c's (shared through matrix_file_int.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness_kv.h"
#include "matrix.h"
#include "matrix_file_int.h"

/* Copy into b every block key it did not set from base (enabled, store_set and then, a
 * block's own, excepted). */
static void inherit(mx_block *b, const mx_block *base)
{
    const idb_key *first = mx_first_block_key(), *own = mx_block_key("store_set");
    const idb_key *then = mx_block_key("then");
    for (const idb_key *k = first + 1; k->name && mx_is_block_key(k); k++)
        if (k != own && k != then && !(b->set & (1u << (k - first)))) {
            idb_key_copy(k, b, base);
            b->at[k - first] = base->at[k - first];
        }
}

/* The index of path among m's files (the first one of that name), else the last file's. */
static int file_index(const idb_matrix *m, const char *path)
{
    for (int i = 0; i < m->n_files; i++)
        if (strcmp(m->files[i], path) == 0) return i;
    return m->n_files - 1;
}

/* "FILE:LINE" of at into buf; a built-in default names the last file read. */
static const char *where_text(const idb_matrix *m, mx_where at, char *buf, size_t len)
{
    int f = at.line > 0 ? at.file : m->n_files - 1;
    if (f < 0 || f >= m->n_files) snprintf(buf, len, "the built-in defaults");
    else if (at.line > 0) snprintf(buf, len, "%s:%d", m->files[f], at.line);
    else snprintf(buf, len, "%s", m->files[f]);
    return buf;
}

/* Where block key `key` of b was set. */
static mx_where block_at(const mx_block *b, const char *key)
{
    return b->at[mx_block_key(key) - mx_first_block_key()];
}

/* The store options of one run on st: the first n of so's (so may be NULL when n is 0),
 * then the block's store_set for st (blank-separated; NULL: none), then cache_kv (NULL:
 * none), through st's table and then its check hook for key_bytes (as matrix_cells.c
 * passes them). Returns 0 or IDB_EINPUT with err. */
static int store_ok(const idb_store *st, const mx_store_opts *so, int n, const char *set,
                    const char *cache_kv, int key_bytes, idb_err *err)
{
    const char *kv[2 * MX_KV_MAX + 1];
    char copy[MX_CELL_SET_MAX];
    int nkv = 0, width;
    for (int i = 0; i < n; i++) kv[nkv++] = so->kv[i];
    snprintf(copy, sizeof copy, "%s", set ? set : "");
    for (char *save = NULL, *t = strtok_r(copy, " ", &save); t && nkv < 2 * MX_KV_MAX;
         t = strtok_r(NULL, " ", &save))
        kv[nkv++] = t;
    if (cache_kv) kv[nkv++] = cache_kv;
    idb_opts o;
    return idb_store_opts_parse(st, kv, nkv, key_bytes, &o, &width, err);
}

/* The line to name when a run of b on st is refused: the first of st's [store.NAME]
 * options with which the check fails, else b's store_set (set: its options for st), else
 * b's cache_pages (the cache size a curve run adds), else b's strategies (the width). */
static mx_where blame_store(const mx_block *b, const idb_store *st, const mx_store_opts *so,
                            const char *set, int cached, int key_bytes)
{
    idb_err scratch = { 0 };
    int n = so ? so->n : 0;
    for (int i = 1; i <= n; i++)
        if (store_ok(st, so, i, NULL, NULL, key_bytes, &scratch) != 0) return so->at[i - 1];
    if (*set && store_ok(st, so, n, set, NULL, key_bytes, &scratch) != 0)
        return block_at(b, "store_set");
    return block_at(b, cached ? "cache_pages" : "strategies");
}

/* How a block kind adds cache_pages to its runs (matrix_cells.c). */
enum { CACHE_NONE, CACHE_CURVE, CACHE_SERIES };

/* Every run of block b on store st: its options (and, in a curve block on a store without
 * a curve hook, or a series block on a store that declares cache_pages, each cache_pages=Q
 * as matrix_cells.c adds it) with each strategy's width. */
static int check_store_runs(const idb_matrix *m, const mx_block *b, int curve,
                            const idb_store *st, idb_err *err)
{
    const mx_store_opts *so = mx_store_options(m, st);
    int cached = curve == CACHE_CURVE ? !st->curve
                 : curve == CACHE_SERIES && b->n_series_cache > 0 &&
                       idb_opts_declared(st->options, "cache_pages");
    char set[MX_CELL_SET_MAX];
    mx_block_set(b, st, set, sizeof set);
    const int64_t *sizes = curve == CACHE_SERIES ? b->series_cache : b->cache_pages;
    int nsizes = curve == CACHE_SERIES ? b->n_series_cache : b->n_cache_pages;
    for (int q = 0; q < (cached ? nsizes : 1); q++) {
        char cache_kv[IDB_OPT_NAME_MAX + IDB_OPT_VALUE_MAX];
        if (cached)
            snprintf(cache_kv, sizeof cache_kv, "cache_pages=%lld", (long long)sizes[q]);
        for (int i = 0; i < b->n_strategies; i++) {
            int width = b->strategies[i]->bits / 8;
            idb_err why = { 0 };
            if (b->key_bytes && b->key_bytes < width) continue;  /* not run (matrix_cells) */
            if (b->key_bytes) width = (int)b->key_bytes;
            if (store_ok(st, so, so ? so->n : 0, set, cached ? cache_kv : NULL, width,
                         &why) == 0)
                continue;
            char where[MX_PATH_MAX + 16];
            where_text(m, blame_store(b, st, so, set, cached, width), where, sizeof where);
            return idb_fail(err, IDB_EINPUT, "%s: %s (a run of [%s] with strategy %s)", where,
                            why.msg, b->name, b->strategies[i]->name);
        }
    }
    return 0;
}

/* The options the harness fills in for each run of b with strategy s (insert.c): with K
 * shards, shard = worker = k for k = 0 .. K-1, checked at both ends (bounds are ranges). */
static int check_strategy_runs(const idb_matrix *m, const mx_block *b, const idb_strategy *s,
                               idb_err *err)
{
    char owner[IDB_OPT_NAME_MAX + sizeof "strategy "];
    snprintf(owner, sizeof owner, "strategy %s", s->name);
    for (int j = 0; j < b->n_shards; j++) {
        int64_t ends[] = { 0, b->shards[j] - 1 };
        for (size_t e = 0; e < sizeof ends / sizeof *ends; e++) {
            idb_harness_place place = idb_harness_place_none();
            place.shard = place.worker = ends[e];
            place.shards = b->shards[j];
            idb_harness_kv kv;
            idb_opts o;
            idb_err why = { 0 };
            int rc = idb_strategy_harness_kv(s, &place, NULL, 0, &kv, &why);
            if (!rc) rc = idb_opts_parse(&o, s->options, kv.kv, kv.n, owner, &why);
            if (!rc) continue;
            char where[MX_PATH_MAX + 16];
            where_text(m, block_at(b, "shards"), where, sizeof where);
            return idb_fail(err, IDB_EINPUT, "%s: %s (a run of [%s] with %lld shards)", where,
                            why.msg, b->name, (long long)b->shards[j]);
        }
    }
    return 0;
}

/* A run of an open-loop block b on st: st must measure time (not a model). */
static int check_open_store(const idb_matrix *m, const mx_block *b, const idb_store *st,
                            idb_err *err)
{
    if (!st->model) return 0;
    char where[MX_PATH_MAX + 16];
    where_text(m, block_at(b, "stores"), where, sizeof where);
    return idb_fail(err, IDB_EINPUT, "%s: store %s is a model and measures no time (a run of "
                    "[%s] needs a store that does)", where, st->name, b->name);
}

/* A series block b: its window a multiple of its batch (a window ends with a commit). */
static int check_window(const idb_matrix *m, const mx_block *b, idb_err *err)
{
    if (!b->enabled || b->window % b->batch == 0) return 0;
    char where[MX_PATH_MAX + 16];
    where_text(m, block_at(b, "window"), where, sizeof where);
    return idb_fail(err, IDB_EINPUT, "%s: window %lld of [%s] is not a multiple of its batch "
                    "%lld", where, (long long)b->window, b->name, (long long)b->batch);
}

/* The clients of block b (closed is 1 for an [insert...] block): above 1 only in a closed
 * loop of whole runs (insert --clients refuses --curve, --series and --commit-ms; its
 * --rate is not wired into [openloop...] blocks), and on each store of b only as many as
 * it takes (store.h: idb_store_clients). */
static int check_clients(const idb_matrix *m, const mx_block *b, int closed, idb_err *err)
{
    char where[MX_PATH_MAX + 16];
    where_text(m, block_at(b, "clients"), where, sizeof where);
    for (int w = 0; b->enabled && w < b->n_clients; w++) {
        if (b->clients[w] <= 1) continue;
        if (!closed)
            return idb_fail(err, IDB_EINPUT, "%s: clients %lld in [%s]: more than one writer "
                            "per shard runs in [insert...] blocks only", where,
                            (long long)b->clients[w], b->name);
        for (int j = 0; j < b->n_stores; j++)
            if (idb_store_clients(b->stores[j]) < b->clients[w])
                return idb_fail(err, IDB_EINPUT, "%s: clients %lld in [%s]: store %s takes %d "
                                "writer(s) at once", where, (long long)b->clients[w], b->name,
                                b->stores[j]->name, idb_store_clients(b->stores[j]));
    }
    return 0;
}

/* A block b's store_set names only stores of b (else it would change no run: a mistake). */
static int check_set_stores(const idb_matrix *m, const mx_block *b, idb_err *err)
{
    for (const char *p = b->store_set; b->enabled && *p; p += strcspn(p, ",")) {
        p += strspn(p, ", \t");
        if (!*p) break;
        size_t n = strcspn(p, ".");
        int in = 0;
        for (int j = 0; j < b->n_stores && !in; j++)
            in = strlen(b->stores[j]->name) == n && !strncmp(p, b->stores[j]->name, n);
        if (in) continue;
        char where[MX_PATH_MAX + 16];
        where_text(m, block_at(b, "store_set"), where, sizeof where);
        return idb_fail(err, IDB_EINPUT, "%s: store_set of [%s] names store %.*s, which is not "
                        "one of the block's stores", where, b->name, (int)n, p);
    }
    return 0;
}

#define THEN_IDS_MAX 1000000000   /* the sizes key's limit */

int mx_then_parse(const char *text, const idb_strategy **s, int64_t *n, idb_err *err)
{
    *s = NULL;
    *n = 0;
    if (!*text) return 0;
    const char *colon = strrchr(text, ':');
    char name[64], *end;
    if (!colon || colon == text || (size_t)(colon - text) >= sizeof name)
        return idb_fail(err, IDB_EINPUT, "then: '%s' is not STRATEGY:N", text);
    memcpy(name, text, (size_t)(colon - text));
    name[colon - text] = 0;
    if (!(*s = idb_strategy_find(name)))
        return idb_fail(err, IDB_EINPUT, "then: unknown strategy '%s' (see idbench list)", name);
    long long v = strtoll(colon + 1, &end, 10);
    if (end == colon + 1 || *end || v < 1 || v > THEN_IDS_MAX)
        return idb_fail(err, IDB_EINPUT, "then: '%s': N must be 1 .. %d", text, THEN_IDS_MAX);
    *n = v;
    return 0;
}

/* A block b's then (insert --then): in an [insert...] block (closed is 1) of one writer
 * per shard and no store splitting at the run's own keys, its strategy's IDs no wider than
 * each run's keys (the block's key_bytes, else each strategy's width). */
static int check_then(const idb_matrix *m, const mx_block *b, int closed, idb_err *err)
{
    const idb_strategy *s;
    int64_t n;
    char where[MX_PATH_MAX + 16];
    where_text(m, block_at(b, "then"), where, sizeof where);
    idb_err e = { 0 };
    if (!b->enabled || !b->then[0]) return 0;
    if (mx_then_parse(b->then, &s, &n, &e))
        return idb_fail(err, IDB_EINPUT, "%s: %s", where, e.msg);
    if (!closed)
        return idb_fail(err, IDB_EINPUT, "%s: then in [%s]: a second phase runs in [insert...] "
                        "blocks only", where, b->name);
    for (int w = 0; w < b->n_clients; w++)
        if (b->clients[w] > 1)
            return idb_fail(err, IDB_EINPUT, "%s: then in [%s] takes one writer per shard, not "
                            "clients %lld", where, b->name, (long long)b->clients[w]);
    for (int j = 0; j < b->n_strategies; j++) {
        int width = b->key_bytes ? (int)b->key_bytes : b->strategies[j]->bits / 8;
        if (s->bits / 8 > width)
            return idb_fail(err, IDB_EINPUT, "%s: then %s in [%s]: its %d-byte IDs do not fit "
                            "%s's %d-byte keys (key_bytes = %d makes room)", where, s->name,
                            b->name, s->bits / 8, b->strategies[j]->name, width, s->bits / 8);
    }
    return 0;
}

/* Every run of every enabled [insert...], [curve...], [openloop...], [series...] and
 * [read...] block, before anything is run. */
static int check_runs(const idb_matrix *m, idb_err *err)
{
    const struct { const mx_block *v; int n, curve; } kinds[] = {
        { m->insert, m->n_insert, CACHE_NONE }, { m->curve, m->n_curve, CACHE_CURVE },
        { m->openloop, m->n_openloop, CACHE_NONE }, { m->series, m->n_series, CACHE_SERIES },
        { m->read, m->n_read, CACHE_NONE },
    };
    int rc = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        for (int i = 0; i < kinds[k].n && !rc; i++) {
            const mx_block *b = &kinds[k].v[i];
            if (kinds[k].v == m->series) rc = check_window(m, b, err);
            if (!rc) rc = check_clients(m, b, kinds[k].v == m->insert, err);
            if (!rc) rc = check_set_stores(m, b, err);
            if (!rc) rc = check_then(m, b, kinds[k].v == m->insert, err);
            for (int j = 0; b->enabled && j < b->n_stores && !rc; j++) {
                rc = check_store_runs(m, b, kinds[k].curve, b->stores[j], err);
                if (!rc && kinds[k].v == m->openloop)
                    rc = check_open_store(m, b, b->stores[j], err);
            }
            for (int j = 0; b->enabled && j < b->n_strategies && !rc; j++)
                rc = check_strategy_runs(m, b, b->strategies[j], err);
        }
    return rc;
}

/* [quick] overrides, then block inheritance, then whole-matrix checks (see matrix.h). */
int mx_finish(idb_matrix *m, int quick, idb_err *err)
{
    m->quick = quick;
    for (int i = 0; quick && i < m->n_quick; i++) {
        const mx_quick *q = &m->quick_over[i];
        idb_err e = { 0 };
        int rc = mx_apply(m, q->file, (mx_where){ file_index(m, q->file), q->line },
                          q->section, q->key, q->value, &e);
        if (rc) return idb_fail(err, rc, "%s:%d: %s", q->file, q->line, e.msg);
    }
    for (size_t k = 0; k < mx_n_block_kinds(); k++) {
        int *n;
        mx_block *list = mx_kind_blocks(m, k, &n);
        for (int i = 1; i < *n; i++) inherit(&list[i], &list[0]);
    }
    if (m->sim_enabled && m->skew_workload[0] && m->n_skew == 0)
        return idb_fail(err, IDB_EINPUT, "%s: [simulate] skew_workload needs skew_ms values",
                        m->files[m->n_files - 1]);
    return check_runs(m, err);
}
