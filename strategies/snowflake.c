/* snowflake.c — `snowflake`: Twitter's 64-bit time | worker | sequence IDs (2010 release).
 *
 *   bit 63 62                               22 21           12 11           0
 *      +--+-----------------------------------+---------------+--------------+
 *      |0 |  ms since epoch_ms: 41 bits       | worker: 10    | sequence: 12 |
 *      +--+-----------------------------------+---------------+--------------+
 *
 * The top bit stays 0 so IDs are positive signed 64-bit integers. Twitter split the worker
 * field into datacenter (5 bits) << 5 | worker (5 bits); here it is one 10-bit number.
 * The default epoch is Twitter's twepoch, 1288834974657 = 2010-11-04T01:42:54.657Z; 41 bits
 * of ms last about 69.7 years from the epoch (to 2080-07-10 for Twitter's).
 *
 * Generation (as IdWorker.nextId): in the same ms the sequence goes up by 1; when all 4096
 * of a ms are used, wait (idb_clock_wait_until) for the next ms. A new ms starts at
 * sequence 0. When the clock reads earlier than the last ms used:
 *   on_backwards=refuse  return IDB_ECLOCK with err->behind_ms, until the clock catches up;
 *   on_backwards=wait    wait until the clock reads the last ms, then go on.
 * A clock that cannot be waited for (a frozen manual clock) gives IDB_ECLOCK. A clock before
 * epoch_ms gives IDB_EINPUT (create() refuses an epoch_ms in the future); a time past the
 * 41 bits gives IDB_EEXHAUSTED.
 * Threads: all threads sharing an instance share its worker, so its (last ms, sequence)
 * pair is one for the instance, guarded by a spinlock held while waiting: the cap of 4,096
 * IDs per ms is the worker's, whatever the number of threads, and two threads make no more
 * IDs per second than one once the cap binds (the pair's cache line moves between their
 * cores at every ID). Threads that want more each use an instance with a worker of their
 * own (distinct worker options), as processes do.
 *
 * What it promises. One instance: every ID above the one before. Across processes: unique
 * when each has its own worker (cross_process = IDB_XPROC_DISTINCT_WORKER); the worker is
 * not checked, so two with one worker repeat IDs. Across restarts: only with state_file.
 * Without it the refusal of a clock behind lives in memory: an instance started while the
 * clock is behind where a previous one got to reissues its IDs. With state_file=PATH
 * (statefile.h) the instance reserves time on disk ahead of use (one write and fsync per
 * IDB_STATE_WINDOW_MS), and create() reads what the last run reserved: while the clock is
 * at or behind it, create() refuses (IDB_ECLOCK, err->behind_ms) or, with
 * on_backwards=wait, waits until the clock passes it; then IDs start above it. A corrupt
 * state file is IDB_EINPUT; one in use by another instance IDB_EUNAVAIL.
 * After fork (fork = IDB_FORK_REFUSES): the child would be a second process with the same
 * worker and a copy of (last ms, sequence), repeating the parent's IDs, so next() there
 * returns IDB_EFORK (the parent keeps any state file and its lock).
 *
 * Options:
 *   epoch_ms      INT, default 1288834974657   Unix ms that time field 0 stands for
 *   worker        INT 0..1023, default 0       this generator's worker number
 *   on_backwards  refuse|wait, default refuse  what to do when the clock steps back
 *   state_file    STR, default "" (off)        where to persist the time reserved
 *   worker_source, lease_ms, on_lease_lost     read by the insert runner, not here: the
 *                 worker leased from a coordinator (worker_lease.h, docs/worker-leases.md)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spinlock.h"
#include "statefile.h"
#include "strategy.h"
#include "worker_lease.h"

#define SNOWFLAKE_EPOCH_DEFAULT 1288834974657LL
#define SNOWFLAKE_TIME_MAX ((1LL << 41) - 1)
#define SNOWFLAKE_SEQ_MAX 4095
#define NS_PER_MS 1000000

typedef struct snowflake {
    idb_clock *clock;
    int64_t epoch_ms;
    uint64_t worker;
    int wait_on_backwards;      /* 1: on_backwards=wait */
    idb_spinlock lock;          /* guards last_ms and seq */
    int64_t last_ms;            /* Unix ms of the last ID; INT64_MIN before the first */
    int seq;                    /* sequence of the last ID */
    idb_statefile *sf;          /* state_file, or NULL (guarded by lock) */
    unsigned fork_gen;          /* idb_fork_generation() at create */
} snowflake;

static const idb_opt_decl snowflake_options[] = {
    { .name = "epoch_ms", .type = IDB_OPT_INT, .def = "1288834974657", .min = 0,
      .max = 253402300799999,           /* 9999-12-31T23:59:59.999Z */
      .help = "Unix ms of time field 0 (default: Twitter's, 2010-11-04T01:42:54.657Z)" },
    { .name = "worker", .type = IDB_OPT_INT, .def = "0", .min = 0, .max = 1023,
      .help = "worker number in the 10-bit worker field" },
    { .name = "on_backwards", .type = IDB_OPT_ENUM, .def = "refuse", .choices = "refuse|wait",
      .help = "clock behind the last ms: refuse (error) or wait for it to catch up" },
    { .name = "state_file", .type = IDB_OPT_STR, .def = "",
      .help = "file where the time used is reserved ahead (fsync per second), so a restart "
              "with the clock behind refuses or waits; empty = off" },
    IDB_WORKER_LEASE_OPTIONS,
    { 0 },
};

/* With a state file at path (empty: none), lock and read it and start above what the last
 * run reserved: while the clock is at or behind it refuse, or wait with on_backwards=wait.
 * Returns 0, IDB_ECLOCK (err->behind_ms) or idb_statefile_open's errors. */
static int snowflake_restore(snowflake *s, const char *path, idb_err *err)
{
    if (!path[0]) return 0;
    int rc = idb_statefile_open(path, "snowflake", &s->sf, err);
    int64_t r = rc ? 0 : s->sf->reserved_ms;
    if (rc || r == IDB_STATE_NONE) return rc;
    int64_t now = idb_clock_now_ms(s->clock);
    if (now <= r && !s->wait_on_backwards)
        rc = idb_statefile_behind(s->sf, now, "on_backwards=wait waits instead", err);
    else if (now <= r && idb_clock_wait_until(s->clock, (r + 1) * NS_PER_MS) != 0)
        rc = idb_statefile_behind(s->sf, now, "the clock cannot move forward", err);
    if (rc) {
        idb_statefile_close(s->sf);
        s->sf = NULL;
        return rc;
    }
    s->last_ms = r;                     /* as if ms r were used up: the next ID is above it */
    s->seq = SNOWFLAKE_SEQ_MAX;
    return 0;
}

/* Make an instance on clock from opts (with its state file, if any). Returns 0,
 * IDB_EINPUT (epoch_ms is after the clock's time: no ID could be made), IDB_ENOMEM, or
 * snowflake_restore's errors. */
static int snowflake_create(const idb_opts *opts, idb_clock *clock, void **inst, idb_err *err)
{
    int64_t epoch = idb_opts_int(opts, "epoch_ms"), now = idb_clock_now_ms(clock);
    if (epoch > now)
        return idb_fail(err, IDB_EINPUT, "strategy snowflake: option epoch_ms = %lld is in the "
                        "future (the clock reads %lld)", (long long)epoch, (long long)now);
    snowflake *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    s->clock = clock;
    s->epoch_ms = idb_opts_int(opts, "epoch_ms");
    s->worker = (uint64_t)idb_opts_int(opts, "worker");
    s->wait_on_backwards = strcmp(idb_opts_str(opts, "on_backwards"), "wait") == 0;
    s->last_ms = INT64_MIN;
    s->fork_gen = idb_fork_generation();
    int rc = snowflake_restore(s, idb_opts_str(opts, "state_file"), err);
    if (rc) { free(s); return rc; }
    *inst = s;
    return 0;
}

/* Free an instance: its state file records the last ms used and is unlocked. */
static void snowflake_destroy(void *inst)
{
    snowflake *s = inst;
    if (!s) return;
    idb_statefile_close(s->sf);
    free(s);
}

/* Fail with IDB_ECLOCK, recording how far (ms) the clock is behind. */
static int snowflake_behind(idb_err *err, int64_t behind, const char *why)
{
    int rc = idb_fail(err, IDB_ECLOCK,
                      "clock moved backwards: refusing to generate IDs for %lld ms%s",
                      (long long)behind, why);
    if (err) err->behind_ms = behind;
    return rc;
}

/* Choose the (ms, sequence) of the next ID with the lock held, and cover ms in the state
 * file; commits nothing on error. now is a clock reading taken before the lock. Returns 0
 * or an IDB_E* code. */
static int snowflake_step(snowflake *s, int64_t now, int64_t *ms, int *seq, idb_err *err)
{
    idb_clock *c = s->clock;
    if (now < s->last_ms) now = idb_clock_now_ms(c);    /* another thread may have moved on */
    if (now < s->last_ms) {
        if (!s->wait_on_backwards) return snowflake_behind(err, s->last_ms - now, "");
        if (idb_clock_wait_until(c, s->last_ms * 1000000))
            return snowflake_behind(err, s->last_ms - now, " (the clock cannot move forward)");
        now = s->last_ms;
    }
    if (now > s->last_ms) {
        *ms = now;
        *seq = 0;
    } else if (s->seq < SNOWFLAKE_SEQ_MAX) {
        *ms = now;
        *seq = s->seq + 1;
    } else {                                            /* 4096 used: wait for the next ms */
        if (idb_clock_wait_until(c, (s->last_ms + 1) * 1000000)) {
            idb_fail(err, IDB_ECLOCK, "sequence used up in ms %lld and the clock cannot move "
                     "forward", (long long)s->last_ms);
            if (err) err->behind_ms = s->last_ms + 1 - idb_clock_now_ms(c);
            return IDB_ECLOCK;
        }
        now = idb_clock_now_ms(c);
        *ms = now > s->last_ms ? now : s->last_ms + 1;
        *seq = 0;
    }
    if (*ms < s->epoch_ms)
        return idb_fail(err, IDB_EINPUT, "clock reads %lld ms, before epoch_ms=%lld",
                        (long long)*ms, (long long)s->epoch_ms);
    if (*ms - s->epoch_ms > SNOWFLAKE_TIME_MAX)
        return idb_fail(err, IDB_EEXHAUSTED, "the 41-bit time field is used up: %lld ms is "
                        "more than 2^41 ms after epoch_ms=%lld", (long long)*ms,
                        (long long)s->epoch_ms);
    return s->sf ? idb_statefile_cover(s->sf, *ms, err) : 0;
}

/* Write the next ID into *id. Returns 0, or IDB_ECLOCK (clock behind, err->behind_ms set,
 * or a clock that cannot be waited for), IDB_EINPUT (before the epoch), IDB_EEXHAUSTED, or
 * IDB_EIO (the state file could not be written) or IDB_EFORK (a forked child). */
static int snowflake_next(void *inst, idb_id *id, idb_err *err)
{
    snowflake *s = inst;
    int rc = idb_fork_check(s->fork_gen, "snowflake", err);
    if (rc) return rc;
    int64_t now = idb_clock_now_ms(s->clock), ms = 0;
    int seq = 0;
    idb_spin_lock(&s->lock);
    rc = snowflake_step(s, now, &ms, &seq, err);
    if (rc == 0) { s->last_ms = ms; s->seq = seq; }
    idb_spin_unlock(&s->lock);
    if (rc) return rc;
    idb_put_be64(id->b, (uint64_t)(ms - s->epoch_ms) << 22 | s->worker << 12 | (uint64_t)seq);
    id->len = 8;
    return 0;
}

/* Parse a decimal ID and reject values with the top (sign) bit set. */
static int snowflake_parse(const char *text, idb_id *id, idb_err *err)
{
    int rc = idb_text_u64_parse(text, id, err);
    if (rc == 0 && idb_id_u64(id) >> 63)
        return idb_fail(err, IDB_EINPUT, "'%s' is not a snowflake ID: the top bit is set", text);
    return rc;
}

/* Emit timestamp_ms (Unix ms, epoch_ms added; opts NULL means Twitter's epoch), time (ISO
 * 8601 UTC with ms), worker and sequence. */
static int snowflake_decode(const idb_opts *opts, const idb_id *id, idb_emit_fn emit, void *ctx,
                            idb_err *err)
{
    if (id->len != 8)
        return idb_fail(err, IDB_EINPUT, "a snowflake ID has 8 bytes, not %d", id->len);
    uint64_t v = idb_id_u64(id);
    if (v >> 63)
        return idb_fail(err, IDB_EINPUT, "%llu is not a snowflake ID: the top bit is set",
                        (unsigned long long)v);
    int64_t epoch = opts ? idb_opts_int(opts, "epoch_ms") : SNOWFLAKE_EPOCH_DEFAULT;
    int64_t ms = (int64_t)(v >> 22) + epoch;

    idb_emit_int(emit, ctx, "timestamp_ms", ms);
    idb_emit_time(emit, ctx, "time", ms, 0);
    idb_emit_uint(emit, ctx, "worker", v >> 12 & 0x3FF);
    idb_emit_uint(emit, ctx, "sequence", v & 0xFFF);
    return 0;
}

/* Text forms that round-trip (strategy.h: vectors; tests/test_parsers.c). */
static const idb_text_vector snowflake_vectors[] = {
    { "1541815603606036480", "1541815603606036480" },
    { "175928847299117063", "175928847299117063" },
    { 0 },
};

const idb_strategy idb_strategy_snowflake = {
    .version = IDB_STRATEGY_VERSION,
    .name = "snowflake",
    .summary = "Twitter snowflake: 41-bit ms since epoch | 10-bit worker | 12-bit sequence",
    .bits = 64,
    .time_ordered = 1,
    .value_bits = 63,
    .coord = IDB_COORD_NONE,
    .cross_process = IDB_XPROC_DISTINCT_WORKER,
    .fork = IDB_FORK_REFUSES,
    .options = snowflake_options,
    .on_clock_back = IDB_CLOCK_BACK_REFUSE,
    .max_ids_per_s = 4096000,
    .vectors = snowflake_vectors,
    .create = snowflake_create,
    .next = snowflake_next,
    .destroy = snowflake_destroy,
    .format = idb_text_u64_format,
    .parse = snowflake_parse,
    .decode = snowflake_decode,
};
