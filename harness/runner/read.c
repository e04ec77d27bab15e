/* read.c — the read runner (see read.h): DIR's record, each shard's store opened for
 * reading (a cold or warm cache), the plan's lookups timed and checked against the record.
 */
#include "read.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics.h"
#include "rundir.h"
#include "server.h"
#include "strategy.h"

#define REPLAY_BATCH 1000                /* a model's replayed rows per commit */
#define DEPTH_MAX 8                      /* directories below DIR/shard-K walked (LMDB: 1) */

/* The shards' handles for the read, and what they need. */
typedef struct reader {
    const idb_read_config *cfg;
    idb_readrec rec;
    idb_opts opts;
    void **h;                            /* one per shard */
    int nopen;
    int queries;                         /* 1: range or shop queries (q), not lookups */
    idb_read_queries q;
} reader;

/* Drop the OS page cache of every regular file under path (no symlink followed):
 * fdatasync, then posix_fadvise(DONTNEED), which drops the clean pages nobody maps. */
static void drop_cache(const char *path, int depth)
{
    DIR *d = depth <= DEPTH_MAX ? opendir(path) : NULL;
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        char p[PATH_MAX];
        struct stat sb;
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        if ((size_t)snprintf(p, sizeof p, "%s/%s", path, e->d_name) >= sizeof p) continue;
        if (lstat(p, &sb) != 0) continue;
        if (S_ISDIR(sb.st_mode)) {
            drop_cache(p, depth + 1);
            continue;
        }
        if (!S_ISREG(sb.st_mode)) continue;
        int fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) continue;
        (void)fdatasync(fd);
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
    }
    closedir(d);
}

/* Replay the record's rows of shard k into the model store's new handle h, in creation
 * order (one writer, as the insert run put them there). */
static int replay(reader *rd, int k, void *h, idb_err *err)
{
    const idb_store *st = rd->cfg->store;
    int rc = 0;
    int64_t since = 0;
    for (int64_t i = 0; i < rd->rec.rows && !rc; i++) {
        idb_row row;
        int shard;
        idb_readrec_get(&rd->rec, i, &row, &shard);
        if (shard != k) continue;
        rc = st->insert(h, &row, err);
        if (!rc && ++since == REPLAY_BATCH) {
            rc = st->commit(h, err);
            since = 0;
        }
    }
    return rc ? rc : st->commit(h, err);
}

/* Open every shard for reading: a file store after its OS cache is dropped (cold), a
 * model by replaying its rows. */
static int open_shards(reader *rd, idb_err *err)
{
    const idb_store *st = rd->cfg->store;
    int rc = 0;
    for (int k = 0; k < rd->rec.shards && !rc; k++) {
        char path[PATH_MAX];
        if ((rc = idb_rundir_shard_path(rd->cfg->dir, k, path, sizeof path, err))) return rc;
        if (st->open_read) {
            if (!rd->cfg->warm) drop_cache(path, 0);
            rc = st->open_read(path, &rd->opts, rd->rec.width, &rd->h[k], err);
        } else {
            rc = st->open(path, &rd->opts, rd->rec.width, &rd->h[k], err);
            if (!rc) rc = replay(rd, k, rd->h[k], err);
        }
        if (rd->h[k]) rd->nopen = k + 1;
    }
    return rc;
}

/* Close every shard opened for reading. */
static void close_shards(reader *rd)
{
    const idb_store *st = rd->cfg->store;
    for (int k = 0; k < rd->nopen; k++)
        if (rd->h[k]) (st->close_read ? st->close_read : st->close)(rd->h[k]);
}

/* The stores' read counts summed over shards into m and p (-1 when a shard cannot tell). */
static int counts(reader *rd, int64_t *m, int64_t *p, idb_err *err)
{
    *m = *p = 0;
    for (int k = 0; k < rd->rec.shards; k++) {
        int64_t a, b;
        int rc = rd->cfg->store->read_counts(rd->h[k], &a, &b, err);
        if (rc) return rc;
        *m = *m < 0 || a < 0 ? -1 : *m + a;
        *p = *p < 0 || b < 0 ? -1 : *p + b;
    }
    return 0;
}

/* 1 when a and b hold the same order (ID and fields). */
static int same_row(const idb_row *a, const idb_row *b)
{
    return idb_id_cmp(&a->id, &b->id) == 0 && a->shop == b->shop &&
           a->display_no == b->display_no && a->created_ms == b->created_ms &&
           a->total_cents == b->total_cents;
}

/* Run the plan once: each lookup timed into lat (NULL: not timed), counted in res. A row
 * found that differs from the record's, or found for an ID that does not exist, is an
 * error (IDB_EIO): the store returned what was never written. */
static int run_plan(reader *rd, const idb_read_lookup *plan, int64_t *lat, idb_read_result *res,
                    idb_err *err)
{
    const idb_store *st = rd->cfg->store;
    char hex[IDB_ID_HEX_MAX];
    int rc = 0;
    for (int64_t i = 0; i < rd->cfg->lookups && !rc; i++) {
        idb_row want = { 0 }, got;
        int shard = (int)(i % rd->rec.shards), found = 0;
        if (plan[i].index >= 0) idb_readrec_get(&rd->rec, plan[i].index, &want, &shard);
        else want.id = plan[i].miss;
        int64_t t0 = idb_mono_ns();
        rc = st->get(rd->h[shard], &want.id, &got, &found, err);
        if (lat) lat[i] = idb_mono_ns() - t0;
        if (rc) break;
        if (found && (plan[i].index < 0 || !same_row(&got, &want)))
            return idb_fail(err, IDB_EIO, "read: %s: the store returned a row for ID %s that "
                            "insert did not write", st->name, idb_id_hex(&want.id, hex));
        res->found += found;
        res->not_found += !found;
        res->missing += plan[i].index < 0;
    }
    return rc;
}

/* Run the queries once: each timed into lat (NULL: not timed), their rows added to res. */
static int run_queries(reader *rd, int64_t *lat, idb_read_result *res, idb_err *err)
{
    int rc = 0;
    for (int64_t i = 0; i < rd->cfg->lookups && !rc; i++) {
        int64_t before = res->rows_returned, t0 = idb_mono_ns();
        rc = idb_read_queries_run(&rd->q, rd->cfg->store, rd->h, i, &res->rows_returned, err);
        if (lat) lat[i] = idb_mono_ns() - t0;
        res->found += !rc && res->rows_returned > before;
        res->not_found += !rc && res->rows_returned == before;
    }
    return rc;
}

/* The plan (lookups or queries) once, into res. */
static int run_once(reader *rd, const idb_read_lookup *plan, int64_t *lat,
                    idb_read_result *res, idb_err *err)
{
    return rd->queries ? run_queries(rd, lat, res, err) : run_plan(rd, plan, lat, res, err);
}

/* Check cfg against DIR's record: the store's, the strategy when given; the store's
 * options as the run used them. */
static int check_record(reader *rd, idb_err *err)
{
    const idb_read_config *cfg = rd->cfg;
    if (cfg->strategy && strcmp(cfg->strategy, rd->rec.strategy) != 0 &&
        strcmp(cfg->strategy, rd->rec.then_strategy) != 0)
        return idb_fail(err, IDB_EINPUT, "--strategy %s: %s was filled by %s%s%s", cfg->strategy,
                        cfg->dir, rd->rec.strategy, rd->rec.then_strategy[0] ? " then " : "",
                        rd->rec.then_strategy);
    if (!idb_strategy_find(rd->rec.strategy))
        return idb_fail(err, IDB_EINPUT, "%s was filled by strategy '%s', which this idbench "
                        "does not have", cfg->dir, rd->rec.strategy);
    const char *kv[IDB_READREC_KV_MAX];
    for (int i = 0; i < rd->rec.nkv; i++) kv[i] = rd->rec.kv[i];
    int width = 0;
    int rc = idb_store_opts_parse(cfg->store, kv, rd->rec.nkv, rd->rec.width, &rd->opts,
                                  &width, err);
    if (!rc && width != rd->rec.width)
        rc = idb_fail(err, IDB_EINPUT, "%s: the record's key width does not match its options",
                      cfg->dir);
    return rc;
}

/* The measured part on the opened shards: the warm pass, then the timed pass. */
static int measure(reader *rd, const idb_read_lookup *plan, idb_read_result *res, idb_err *err)
{
    const idb_read_config *cfg = rd->cfg;
    int model = cfg->store->model;
    int64_t *lat = model ? NULL : malloc((size_t)cfg->lookups * sizeof *lat);
    if (!model && !lat) return idb_fail(err, IDB_ENOMEM, "out of memory");
    idb_read_result unmeasured = { 0 };
    int64_t m0, p0, m1, p1;
    int rc = cfg->warm ? run_once(rd, plan, NULL, &unmeasured, err) : 0;
    if (!rc) rc = counts(rd, &m0, &p0, err);
    if (!rc) rc = run_once(rd, plan, lat, res, err);
    if (!rc) rc = counts(rd, &m1, &p1, err);
    if (!rc) {
        double n = (double)cfg->lookups;
        res->misses_per_lookup = m0 < 0 || m1 < 0 ? -1 : (double)(m1 - m0) / n;
        res->read_pages_per_lookup = p0 < 0 || p1 < 0 ? -1 : (double)(p1 - p0) / n;
        res->lookups_per_s = res->lat_p50_ns = res->lat_p99_ns = -1;
        res->misses_per_row = !rd->queries || m0 < 0 || m1 < 0 ? -1
                            : res->rows_returned ? (double)(m1 - m0) / (double)res->rows_returned
                            : 0;
        if (!rd->queries) res->rows_returned = -1;
    }
    if (!rc && lat) {
        int64_t busy = 0;
        for (int64_t i = 0; i < cfg->lookups; i++) busy += lat[i];
        res->lookups_per_s = busy > 0 ? (double)cfg->lookups / ((double)busy / 1e9) : -1;
        res->lat_p50_ns = idb_percentile(lat, cfg->lookups, 0.50);
        res->lat_p99_ns = idb_percentile(lat, cfg->lookups, 0.99);
    }
    free(lat);
    return rc;
}

/* IDB_EINPUT for a store with no read side (null, spider, galera: the last two would read
 * through a coordinator or a node, which nothing here does yet), naming those that read. */
static int refuse_store(const idb_store *st, idb_err *err)
{
    char list[256] = "";
    size_t n = 0;
    for (const idb_store *const *s = idb_stores; *s && n < sizeof list; s++)
        if (idb_store_can_read(*s)) {
            int w = snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", (*s)->name);
            n += w > 0 ? (size_t)w : 0;
        }
    return idb_fail(err, IDB_EINPUT, "read: store %s has no read side (idbench read serves %s)",
                    st->name, list);
}

/* The checks that need no lock and create nothing: cfg, the store, DIR and its record, the
 * plan. */
static int prepare(reader *rd, idb_read_lookup **plan, idb_err *err)
{
    const idb_read_config *cfg = rd->cfg;
    struct stat sb;
    int rc = idb_read_check(cfg, err);
    if (rc) return rc;
    if (!idb_store_can_read(cfg->store)) return refuse_store(cfg->store, err);
    if (!cfg->dir || lstat(cfg->dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return idb_fail(err, IDB_EINPUT, "--dir %s is not a directory",
                        cfg->dir ? cfg->dir : "(none)");
    if ((rc = idb_readrec_load(cfg->dir, cfg->store->name, &rd->rec, err))) return rc;
    if ((rc = check_record(rd, err))) return rc;
    rd->queries = cfg->pattern == IDB_READ_RANGE || cfg->pattern == IDB_READ_SHOP;
    if (rd->queries)
        return idb_read_queries_make(&rd->rec, cfg, &rd->opts,
                                     idb_strategy_find(rd->rec.strategy)->time_ordered, &rd->q,
                                     err);
    *plan = malloc((size_t)cfg->lookups * sizeof **plan);
    if (!*plan) return idb_fail(err, IDB_ENOMEM, "out of memory for %lld lookups",
                                (long long)cfg->lookups);
    return idb_read_plan(&rd->rec, cfg, *plan, err);
}

/* The strategy whose rows the plan looks up: the record's --then strategy when every
 * existing row it looks up is among the second phase's (its last then_rows entries), else
 * the run's. */
static const char *plan_strategy(const idb_readrec *rec, const idb_read_lookup *plan,
                                 int64_t n)
{
    if (!rec->then_strategy[0] || !plan) return rec->strategy;
    int64_t from = rec->rows - rec->then_rows, seen = 0;
    for (int64_t i = 0; i < n; i++) {
        if (plan[i].index < 0) continue;                 /* an ID made not to exist */
        if (plan[i].index < from) return rec->strategy;
        seen++;
    }
    return seen ? rec->then_strategy : rec->strategy;
}

int idb_read_run(const idb_read_config *cfg, idb_read_result *res, idb_err *err)
{
    memset(res, 0, sizeof *res);
    reader rd = { .cfg = cfg };
    idb_read_lookup *plan = NULL;
    int lockfd = -1;
    int rc = prepare(&rd, &plan, err);
    if (!rc) rc = idb_run_lock(cfg->dir, &lockfd, err);
    if (!rc && !(rd.h = calloc((size_t)rd.rec.shards, sizeof *rd.h)))
        rc = idb_fail(err, IDB_ENOMEM, "out of memory");
    if (!rc) rc = open_shards(&rd, err);
    if (!rc) rc = measure(&rd, plan, res, err);
    if (rd.h) close_shards(&rd);
    if (lockfd >= 0) idb_run_unlock(cfg->dir, lockfd);
    res->lookups = cfg->lookups;
    res->rows = rd.rec.rows;
    snprintf(res->strategy, sizeof res->strategy, "%s",
             plan_strategy(&rd.rec, rc ? NULL : plan, cfg->lookups));
    free(rd.h);
    free(plan);
    idb_read_queries_free(&rd.q);
    idb_readrec_free(&rd.rec);
    return rc;
}
