/* range.c — `range`: each shard leases a large range of integers and counts through it.
 *
 *   bit 63 62                                                  0
 *   +---+------------------------------------------------------+
 *   | 0 |  value = n * range_size + offset                      |
 *   +---+------------------------------------------------------+
 *          n      = range number, leased from the range directory
 *          offset = 0 .. range_size-1   (range 0 starts at offset 1: no ID is 0)
 *
 * Range n covers [max(1, n*range_size), (n+1)*range_size), so with the default range_size
 * of 10^12 the first shard's first range is 1..999,999,999,999 and the next one starts at
 * 1,000,000,000,000, as in the chapter. IDs stop at 2^63-1 (the last range is cut there)
 * so that every ID fits a signed 64-bit column (SQLite INTEGER, SQL BIGINT).
 *
 * The range directory is the SQLite file <dir>/idbench-ranges.sqlite:
 *
 *   PRAGMA application_id = 0x49444252 ('IDBR')   marks the file as a range directory
 *   PRAGMA user_version   = 1                     its format
 *   meta(id = 1, range_size, created_at_ms)       one row; every user must agree on it
 *   lease(range_no PRIMARY KEY, shard, leased_at_ms)   one row per range ever leased
 *
 * Leasing is one transaction (BEGIN IMMEDIATE, waiting up to 10 minutes for other processes
 * that hold the lock, trying again every few milliseconds: busy_wait; synchronous=FULL, so
 * the lease is on disk when COMMIT returns): take one past the highest range number ever
 * leased, insert its row, commit. Rows are never
 * deleted, so that is the lowest unused range; a gap left by a row deleted by hand is
 * never refilled, because a deleted row does not prove its IDs were never handed out.
 * Several processes may share a directory: SQLite's file locking serialises the leases.
 *
 * When the lease is taken: eagerly, in create(), so a missing or unwritable directory or
 * a range_size mismatch is reported when the instance is made (on the command line,
 * before any work starts), and an instance never hands out an ID before its range is
 * durably recorded as leased. Later leases happen in next() when the range runs out.
 *
 * Handing out IDs needs no coordination: the current range is two words, `next` and
 * `last`; next() takes `next` with a compare-and-swap while it is <= `last`. When a range
 * runs out, the first thread to notice takes the mutex and leases the next range while
 * the others wait on the mutex; it publishes `next` before `last`, and `next` only ever
 * grows (a new range is always above the old one), so a successful compare-and-swap on
 * `next` proves the `last` read just before it belongs to the same range.
 *
 * Restarts and crashes: nothing about progress inside a range is ever written down, so
 * a new instance cannot know how far its predecessor got (a crash can come at any
 * moment). It therefore never resumes an old range: it always leases a fresh one and
 * abandons the rest of the old. That wastes at most one range per restart (64 bits leave
 * room for millions of 10^12-sized ranges) and guarantees it never hands out an ID that
 * may already have been handed out. For the same reason an instance belongs to the
 * process that created it: in a child made by fork() next() refuses (IDB_EFORK) instead of
 * handing out the same IDs as the parent; the child must create its own instance.
 *
 * What it promises: unique across processes and restarts when all share one range
 * directory (cross_process = IDB_XPROC_SHARED_DIR, the `dir` option); two directories hand
 * out the same ranges.
 *
 * backend=postgres keeps the leases on a PostgreSQL server instead of in the SQLite file
 * (remote.h; `dir` is then not used): Leaf's leaf_alloc row `range_<range_size>` counts the
 * ranges leased, and a lease is one committed `UPDATE leaf_alloc SET max_id = max_id + 1
 * ... RETURNING max_id` (range number = max_id - 1), WAL-logged before it returns, so the
 * same guarantee holds: a range is durably leased before any of its IDs is handed out, and
 * the range size is part of the row's name, so users of other sizes never share a row.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "forkgen.h"
#include "remote.h"
#include "strategy.h"

#define RANGE_FILE "idbench-ranges.sqlite"
#define RANGE_APP_ID 0x49444252          /* 'IDBR' */
#define RANGE_FORMAT 1
#define RANGE_BUSY_MS 600000            /* a lease waits for other processes this long at most */
#define RANGE_BUSY_STEP_US 4000          /* between two tries: a random wait below this */
#define RANGE_ID_MAX ((uint64_t)INT64_MAX)
#define RANGE_TAG_MAX 64                 /* "range_" and range_size in decimal */

typedef struct range {
    _Atomic uint64_t next;               /* next value to hand out */
    _Atomic uint64_t last;               /* last value of the current range (inclusive) */
    pthread_mutex_t lock;                /* guards db and leasing */
    sqlite3 *db;
    idb_clock *clock;
    uint64_t size;
    int64_t shard;
    unsigned fork_gen;                   /* idb_fork_generation() at create */
    int creating;                        /* 1 inside create(): an unusable dir is bad input */
    unsigned busy_seed;                  /* busy_wait's random waits */
    long long busy_us;                   /* busy_wait: microseconds waited for this statement */
    idb_remote *remote;                  /* backend=postgres: the lease server, else NULL */
    char path[4096];
} range;

static const idb_opt_decl range_options[] = {
    { .name = "shard", .type = IDB_OPT_INT, .def = "0", .min = 0, .max = INT64_MAX,
      .help = "this shard's number, recorded with each range it leases" },
    { .name = "range_size", .type = IDB_OPT_INT, .def = "1000000000000", .min = 1,
      .max = INT64_MAX,
      .help = "IDs per range; every user of one range directory must give the same" },
    { .name = "dir", .type = IDB_OPT_STR, .def = ".",
      .help = "directory holding the range directory file " RANGE_FILE },
    { .name = "backend", .type = IDB_OPT_ENUM, .def = "local", .choices = "local|postgres",
      .help = "where the leases are kept: local (the SQLite file in dir) or postgres" },
    IDB_REMOTE_OPTIONS
    { 0 },
};

/* Turn a failed SQLite call into an IDB_E* code and a message naming the file. Inside
 * create() a file or directory that cannot be opened or written is the dir option's fault
 * (IDB_EINPUT); later, or for other failures, it is a runtime failure. */
static int db_fail(range *r, int rc, const char *what, idb_err *err)
{
    int base = rc & 0xff;
    int unusable = r->creating ? IDB_EINPUT : IDB_EIO;
    if (base == SQLITE_NOTADB)
        return idb_fail(err, IDB_EINPUT, "strategy range: '%s' is not a range directory "
                        "(not an SQLite database)", r->path);
    if (base == SQLITE_ERROR || base == SQLITE_CORRUPT)      /* our SQL on a foreign schema */
        return idb_fail(err, IDB_EINPUT, "strategy range: '%s' is not a range directory or is "
                        "damaged: %s", r->path,
                        r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(rc));
    if (base == SQLITE_READONLY || base == SQLITE_CANTOPEN || base == SQLITE_IOERR) {
        char dir[sizeof r->path];
        snprintf(dir, sizeof dir, "%.*s", (int)(strlen(r->path) - strlen("/" RANGE_FILE)),
                 r->path);
        if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0)   /* the likely cause */
            return idb_fail(err, unusable, "strategy range: cannot %s '%s': directory '%s': %s",
                            what, r->path, dir, strerror(errno));
    }
    int sys = r->db ? sqlite3_system_errno(r->db) : 0;
    const char *msg = r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(rc);
    int code = base == SQLITE_BUSY || base == SQLITE_LOCKED ? IDB_EUNAVAIL
             : base == SQLITE_NOMEM ? IDB_ENOMEM
             : base == SQLITE_READONLY || base == SQLITE_CANTOPEN || base == SQLITE_PERM
               ? unusable : IDB_EIO;
    if (sys && base != SQLITE_BUSY && base != SQLITE_LOCKED)
        return idb_fail(err, code, "strategy range: cannot %s '%s': %s (%s)", what, r->path,
                        msg, strerror(sys));
    return idb_fail(err, code, "strategy range: cannot %s '%s': %s", what, r->path, msg);
}

/* Run one SQL statement that returns at most one integer; *out gets it (if out). */
static int db_int(range *r, const char *sql, int64_t *out, idb_err *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(r->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) return db_fail(r, rc, "read", err);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        if (out) *out = sqlite3_column_int64(st, 0);
        rc = SQLITE_DONE;
    } else if (out) {
        *out = 0;
    }
    if (rc != SQLITE_DONE) {
        int e = db_fail(r, rc, "read", err);
        sqlite3_finalize(st);
        return e;
    }
    sqlite3_finalize(st);
    return 0;
}

static int db_exec(range *r, const char *sql, const char *what, idb_err *err)
{
    int rc = sqlite3_exec(r->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : db_fail(r, rc, what, err);
}

/* SQLite's busy handler (ctx: the range): the lock is another process's; wait a short random
 * time and try again, RANGE_BUSY_MS in all. SQLite's own handler waits up to 100 ms between
 * tries, so with several processes leasing in turn one of them could wait through many
 * leases of the others and give up ("database is locked"); short random waits give each a
 * fair chance. Returns nonzero to try again, 0 to give up (SQLITE_BUSY). */
static int busy_wait(void *ctx, int tries)
{
    range *r = ctx;
    if (tries == 0) r->busy_us = 0;
    if (r->busy_us >= (long long)RANGE_BUSY_MS * 1000) return 0;
    long us = 100 + (long)(rand_r(&r->busy_seed) % RANGE_BUSY_STEP_US);
    struct timespec ts = { .tv_sec = 0, .tv_nsec = us * 1000 };
    nanosleep(&ts, NULL);
    r->busy_us += us;
    return 1;
}

/* Inside the transaction: make a fresh file a range directory, or check an existing one.
 * Returns 0, or IDB_EINPUT (not a range directory, other range_size) / IDB_EIO. */
static int check_or_init(range *r, idb_err *err)
{
    int64_t app, tables, version, size;
    int rc = db_int(r, "PRAGMA application_id", &app, err);
    if (!rc) rc = db_int(r, "SELECT count(*) FROM sqlite_schema", &tables, err);
    if (rc) return rc;
    if (app == 0 && tables == 0) {
        char sql[512];
        snprintf(sql, sizeof sql,
                 "CREATE TABLE meta(id INTEGER PRIMARY KEY CHECK (id = 1),"
                 " range_size INTEGER NOT NULL CHECK (range_size >= 1),"
                 " created_at_ms INTEGER NOT NULL);"
                 "CREATE TABLE lease(range_no INTEGER PRIMARY KEY,"
                 " shard INTEGER NOT NULL, leased_at_ms INTEGER NOT NULL);"
                 "INSERT INTO meta VALUES(1, %llu, %lld);"
                 "PRAGMA application_id = %d; PRAGMA user_version = %d;",
                 (unsigned long long)r->size, (long long)idb_clock_now_ms(r->clock),
                 RANGE_APP_ID, RANGE_FORMAT);
        return db_exec(r, sql, "create the range directory", err);
    }
    if (app != RANGE_APP_ID)
        return idb_fail(err, IDB_EINPUT, "strategy range: '%s' is not a range directory "
                        "(an SQLite database of something else)", r->path);
    if ((rc = db_int(r, "PRAGMA user_version", &version, err))) return rc;
    if (version != RANGE_FORMAT)
        return idb_fail(err, IDB_EINPUT, "strategy range: '%s' has range directory format %lld;"
                        " this idbench reads format %d", r->path, (long long)version,
                        RANGE_FORMAT);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(r->db, "SELECT range_size FROM meta WHERE id = 1", -1, &st, NULL)
        != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return idb_fail(err, IDB_EINPUT, "strategy range: '%s' is a damaged range directory "
                        "(no meta row)", r->path);
    }
    size = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if ((uint64_t)size != r->size)
        return idb_fail(err, IDB_EINPUT, "strategy range: range directory '%s' was made with "
                        "range_size=%lld, not range_size=%llu", r->path, (long long)size,
                        (unsigned long long)r->size);
    return 0;
}

/* Range n as *lo..*hi: [max(1, n * size), (n+1) * size), cut at RANGE_ID_MAX. */
static void range_bounds(const range *r, uint64_t n, uint64_t *lo, uint64_t *hi)
{
    uint64_t start = n * r->size;              /* <= INT64_MAX: checked by the caller */
    *lo = start ? start : 1;
    *hi = start + (r->size - 1) > RANGE_ID_MAX ? RANGE_ID_MAX : start + (r->size - 1);
}

/* backend=postgres: one committed round trip leases the next range number. */
static int lease_remote(range *r, uint64_t *lo, uint64_t *hi, idb_err *err)
{
    uint64_t first;
    int rc = idb_remote_take(r->remote, 1, &first, err);
    if (rc) return rc;
    uint64_t n = first - 1;
    if (n > RANGE_ID_MAX / r->size)
        return idb_fail(err, IDB_EEXHAUSTED, "strategy range: every range of range_size=%llu "
                        "on the server is leased", (unsigned long long)r->size);
    range_bounds(r, n, lo, hi);
    return 0;
}

/* One transaction: (when check) check or create the directory, then lease one past the
 * highest range number ever leased. On success *lo..*hi is the new range. */
static int lease(range *r, int check, uint64_t *lo, uint64_t *hi, idb_err *err)
{
    if (r->remote) return lease_remote(r, lo, hi, err);
    int rc = db_exec(r, "BEGIN IMMEDIATE", "lock", err);
    if (rc) return rc;
    if (check && (rc = check_or_init(r, err))) goto rollback;
    int64_t n;
    if ((rc = db_int(r, "SELECT coalesce(max(range_no) + 1, 0) FROM lease", &n, err)))
        goto rollback;
    if (n < 0 || (uint64_t)n > RANGE_ID_MAX / r->size) {
        rc = idb_fail(err, IDB_EEXHAUSTED, "strategy range: every range of range_size=%llu "
                      "in '%s' is leased", (unsigned long long)r->size, r->path);
        goto rollback;
    }
    char sql[160];
    snprintf(sql, sizeof sql, "INSERT INTO lease VALUES(%lld, %lld, %lld)", (long long)n,
             (long long)r->shard, (long long)idb_clock_now_ms(r->clock));
    if ((rc = db_exec(r, sql, "lease a range in", err))) goto rollback;
    if ((rc = db_exec(r, "COMMIT", "commit a lease to", err))) goto rollback;
    range_bounds(r, (uint64_t)n, lo, hi);
    return 0;
rollback:
    sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);   /* may fail: nothing was begun */
    return rc;
}

static void range_free(range *r)
{
    if (!r) return;
    /* A connection must not be closed (or used) in a child of fork(): leave it. */
    if (r->fork_gen == idb_fork_now()) sqlite3_close(r->db);
    idb_remote_close(r->remote);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

/* backend=postgres: connect, make the row range_<range_size> and lease the first range. */
static int range_create_remote(const idb_opts *opts, idb_clock *clock, void **inst,
                               idb_err *err)
{
    range *r = calloc(1, sizeof *r);
    if (!r) return idb_fail(err, IDB_ENOMEM, "out of memory");
    pthread_mutex_init(&r->lock, NULL);
    r->clock = clock;
    r->size = (uint64_t)idb_opts_int(opts, "range_size");
    r->shard = idb_opts_int(opts, "shard");
    r->fork_gen = idb_fork_generation();
    char tag[RANGE_TAG_MAX];
    snprintf(tag, sizeof tag, "range_%llu", (unsigned long long)r->size);
    idb_remote_conf c;
    int rc = idb_remote_conf_from(opts, IDB_BACKEND_POSTGRES, "range", &c, err);
    c.mode = IDB_REMOTE_BLOCK;
    c.name = tag;
    if (!rc) rc = idb_remote_open(&c, &r->remote, err);
    uint64_t lo, hi;
    if (!rc) rc = lease(r, 0, &lo, &hi, err);
    if (rc) { range_free(r); return rc; }
    atomic_store(&r->next, lo);
    atomic_store(&r->last, hi);
    *inst = r;
    return 0;
}

/* Open (creating if needed) <dir>/idbench-ranges.sqlite, check it and lease the first
 * range. Returns 0 and *inst; IDB_EINPUT for a dir that is not a directory or cannot be
 * used (the file cannot be created, opened or written there), a file that is not a range
 * directory or another range_size; IDB_EIO when the disk fails; IDB_EUNAVAIL when another
 * process holds the lock for 10 s; IDB_EEXHAUSTED when every range is leased. */
static int range_create(const idb_opts *opts, idb_clock *clock, void **inst, idb_err *err)
{
    if (idb_opts_int(opts, "backend") != IDB_BACKEND_LOCAL)
        return range_create_remote(opts, clock, inst, err);
    const char *dir = idb_opts_str(opts, "dir");
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return idb_fail(err, IDB_EINPUT, "strategy range: dir '%s': %s", dir, strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return idb_fail(err, IDB_EINPUT, "strategy range: dir '%s' is not a directory", dir);
    range *r = calloc(1, sizeof *r);
    if (!r) return idb_fail(err, IDB_ENOMEM, "out of memory");
    if ((size_t)snprintf(r->path, sizeof r->path, "%s/%s", dir, RANGE_FILE) >= sizeof r->path) {
        free(r);
        return idb_fail(err, IDB_EINPUT, "strategy range: dir '%.64s...' is too long", dir);
    }
    pthread_mutex_init(&r->lock, NULL);
    r->clock = clock;
    r->size = (uint64_t)idb_opts_int(opts, "range_size");
    r->shard = idb_opts_int(opts, "shard");
    r->fork_gen = idb_fork_generation();
    r->creating = 1;

    int rc = sqlite3_open_v2(r->path, &r->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) { rc = db_fail(r, rc, "open", err); goto fail; }
    if (sqlite3_db_readonly(r->db, "main") == 1) {
        rc = idb_fail(err, IDB_EINPUT, "strategy range: cannot write '%s': it is read-only",
                      r->path);
        goto fail;
    }
    r->busy_seed = (unsigned)getpid() ^ (unsigned)(uintptr_t)r;
    sqlite3_busy_handler(r->db, busy_wait, r);
    if ((rc = db_exec(r, "PRAGMA synchronous = FULL", "set up", err))) goto fail;
    uint64_t lo, hi;
    if ((rc = lease(r, 1, &lo, &hi, err))) goto fail;
    r->creating = 0;
    atomic_store(&r->next, lo);
    atomic_store(&r->last, hi);
    *inst = r;
    return 0;
fail:
    range_free(r);
    return rc;
}

/* Slow path: the range ran out (or looked so). Lease the next one unless another thread
 * already did. Returns 0 (try again) or an IDB_E* code. */
static int refill(range *r, idb_err *err)
{
    int rc = 0;
    pthread_mutex_lock(&r->lock);
    if (atomic_load(&r->next) > atomic_load(&r->last)) {
        uint64_t lo, hi;
        rc = lease(r, 0, &lo, &hi, err);
        if (rc == 0) {
            atomic_store(&r->next, lo);      /* next first: see the header comment */
            atomic_store(&r->last, hi);
        }
    }
    pthread_mutex_unlock(&r->lock);
    return rc;
}

static int range_next(void *inst, idb_id *id, idb_err *err)
{
    range *r = inst;
    int rc = idb_fork_check(r->fork_gen, "range", err);
    if (rc) return rc;
    for (;;) {
        uint64_t v = atomic_load(&r->next);
        if (v <= atomic_load(&r->last)) {
            if (atomic_compare_exchange_weak(&r->next, &v, v + 1)) {
                idb_id_set_u64(id, v);
                return 0;
            }
            continue;
        }
        rc = refill(r, err);
        if (rc) return rc;
    }
}

static void range_destroy(void *inst)
{
    range_free(inst);
}

static int range_decode(const idb_opts *opts, const idb_id *id, idb_emit_fn emit, void *ctx,
                        idb_err *err)
{
    uint64_t v = idb_id_u64(id), size = (uint64_t)idb_opts_int(opts, "range_size");
    if (id->len != 8 || v == 0 || v > RANGE_ID_MAX)
        return idb_fail(err, IDB_EINPUT, "%llu is not a range ID (they are 1..2^63-1)",
                        (unsigned long long)v);
    idb_emit_uint(emit, ctx, "value", v);
    idb_emit_uint(emit, ctx, "range", v / size);
    idb_emit_uint(emit, ctx, "offset", v % size);
    return 0;
}

/* Text forms that round-trip (strategy.h: vectors; tests/test_parsers.c). */
static const idb_text_vector range_vectors[] = {
    { "1000000000000", "1000000000000" },
    { "1", "1" },
    { 0 },
};

const idb_strategy idb_strategy_range = {
    .version = IDB_STRATEGY_VERSION,
    .name = "range",
    .summary = "a range per shard: each shard leases a range of integers and counts through it",
    .bits = 64,
    .time_ordered = 0,
    .value_bits = 63,
    .coord = IDB_COORD_PER_RANGE,
    .cross_process = IDB_XPROC_SHARED_DIR,
    .fork = IDB_FORK_REFUSES,
    .options = range_options,
    .on_clock_back = IDB_CLOCK_UNUSED,
    .vectors = range_vectors,
    .create = range_create,
    .next = range_next,
    .destroy = range_destroy,
    .format = idb_text_u64_format,
    .parse = idb_text_u64_parse,
    .decode = range_decode,
};
