/* sonyflake.c — `sonyflake`: Sony's 64-bit time | sequence | machine IDs (sony/sonyflake).
 *
 *   bit 63 62                                24 23           16 15                    0
 *      +--+-------------------------------------+---------------+----------------------+
 *      |0 |  10 ms ticks since epoch_ms: 39 bits | sequence: 8   | worker (machine): 16 |
 *      +--+-------------------------------------+---------------+----------------------+
 *
 * Sonyflake trades Snowflake's per-ms sequence for a longer life: 39 bits of 10 ms ticks
 * last about 174 years from the epoch (the default is sonyflake's, 2014-09-01T00:00:00Z =
 * 1409529600000 ms), and 16 bits of machine ID (here the `worker` option: one per process)
 * leave 8 bits of sequence: at most 256 IDs per 10 ms tick, 25,600 per second per worker
 * (declared as max_ids_per_s, so tests ask no more of it than that).
 *
 * Generation (as Sonyflake.NextID): when the clock's tick is past the last tick used, take
 * it with sequence 0; otherwise (the same tick, or a clock behind) add 1 to the sequence,
 * and when all 256 are used, move to the next tick after the last one and wait until the
 * clock reaches it. So a clock stepped back does not stop it at once: it goes on in the
 * tick it had reached and waits once that tick's 256 IDs are used (on_clock_back =
 * IDB_CLOCK_BACK_WAIT). A clock that cannot be waited for (a frozen manual clock) gives
 * IDB_ECLOCK; a clock before epoch_ms IDB_EINPUT (create() refuses an epoch_ms in the
 * future); a tick past the 39 bits IDB_EEXHAUSTED. (tick, sequence) is guarded by a
 * spinlock, held while waiting.
 *
 * What it promises. One instance: every ID above the one before. Across processes: unique
 * when each has its own worker (IDB_XPROC_DISTINCT_WORKER). Across restarts: nothing (no
 * state file: a restart with the clock behind the last tick used can repeat IDs, as
 * sonyflake's own). After fork (IDB_FORK_REFUSES): the child would continue the parent's
 * (tick, sequence) with the same worker, so next() there returns IDB_EFORK.
 *
 * Options:
 *   epoch_ms   INT, default 1409529600000   Unix ms that tick 0 starts at
 *   worker     INT 0..65535, default 0      the 16-bit machine ID
 *   worker_source, lease_ms, on_lease_lost  read by the insert runner, not here: the
 *              worker leased from a coordinator (worker_lease.h, docs/worker-leases.md)
 */
#include <stdlib.h>

#include "forkgen.h"
#include "spinlock.h"
#include "strategy.h"
#include "worker_lease.h"

#define SONY_EPOCH_DEFAULT 1409529600000LL
#define SONY_TICK_MS 10
#define SONY_TICK_MAX ((1LL << 39) - 1)
#define SONY_SEQ_MAX 255
#define NS_PER_MS 1000000LL

typedef struct sonyflake {
    idb_clock *clock;
    int64_t epoch_ms;
    uint64_t worker;
    idb_spinlock lock;          /* guards tick and seq */
    int64_t tick;               /* tick of the last ID; -1 before the first */
    int seq;                    /* its sequence */
    unsigned fork_gen;          /* idb_fork_generation() at create */
} sonyflake;

static const idb_opt_decl sonyflake_options[] = {
    { .name = "epoch_ms", .type = IDB_OPT_INT, .def = "1409529600000", .min = 0,
      .max = 253402300799999,
      .help = "Unix ms that tick 0 starts at (default: sonyflake's, 2014-09-01T00:00:00Z)" },
    { .name = "worker", .type = IDB_OPT_INT, .def = "0", .min = 0, .max = 65535,
      .help = "the 16-bit machine ID of this generator" },
    IDB_WORKER_LEASE_OPTIONS,
    { 0 },
};

/* Make an instance on clock from opts. Returns 0, IDB_EINPUT (epoch_ms in the future) or
 * IDB_ENOMEM. */
static int sonyflake_create(const idb_opts *opts, idb_clock *clock, void **inst, idb_err *err)
{
    int64_t epoch = idb_opts_int(opts, "epoch_ms"), now = idb_clock_now_ms(clock);
    if (epoch > now)
        return idb_fail(err, IDB_EINPUT, "strategy sonyflake: option epoch_ms = %lld is in the "
                        "future (the clock reads %lld)", (long long)epoch, (long long)now);
    sonyflake *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    s->clock = clock;
    s->epoch_ms = epoch;
    s->worker = (uint64_t)idb_opts_int(opts, "worker");
    s->tick = -1;
    s->fork_gen = idb_fork_generation();
    *inst = s;
    return 0;
}

static void sonyflake_destroy(void *inst) { free(inst); }

/* The clock's tick since the epoch, or IDB_EINPUT before the epoch. */
static int now_tick(const sonyflake *s, int64_t *tick, idb_err *err)
{
    int64_t ms = idb_clock_now_ms(s->clock);
    if (ms < s->epoch_ms)
        return idb_fail(err, IDB_EINPUT, "clock reads %lld ms, before epoch_ms=%lld",
                        (long long)ms, (long long)s->epoch_ms);
    *tick = (ms - s->epoch_ms) / SONY_TICK_MS;
    return 0;
}

/* Choose the next (tick, sequence) with the lock held; commits nothing on error. */
static int sonyflake_step(sonyflake *s, int64_t *tick, int *seq, idb_err *err)
{
    int64_t now = 0;
    int rc = now_tick(s, &now, err);
    if (rc) return rc;
    if (now > s->tick) {
        *tick = now;
        *seq = 0;
    } else if (s->seq < SONY_SEQ_MAX) {              /* the same tick, or a clock behind */
        *tick = s->tick;
        *seq = s->seq + 1;
    } else {                                         /* 256 used: the next tick, waited for */
        *tick = s->tick + 1;
        *seq = 0;
        if (idb_clock_wait_until(s->clock, (s->epoch_ms + *tick * SONY_TICK_MS) * NS_PER_MS)) {
            idb_fail(err, IDB_ECLOCK, "sequence used up in tick %lld and the clock cannot "
                     "move forward", (long long)s->tick);
            if (err)
                err->behind_ms = s->epoch_ms + *tick * SONY_TICK_MS - idb_clock_now_ms(s->clock);
            return IDB_ECLOCK;
        }
    }
    if (*tick > SONY_TICK_MAX)
        return idb_fail(err, IDB_EEXHAUSTED, "the 39-bit time field is used up: tick %lld is "
                        "past 2^39 ticks of 10 ms after epoch_ms=%lld", (long long)*tick,
                        (long long)s->epoch_ms);
    return 0;
}

/* Write the next ID into *id. Returns 0, or IDB_ECLOCK, IDB_EINPUT, IDB_EEXHAUSTED or
 * IDB_EFORK (a forked child). */
static int sonyflake_next(void *inst, idb_id *id, idb_err *err)
{
    sonyflake *s = inst;
    int rc = idb_fork_check(s->fork_gen, "sonyflake", err);
    if (rc) return rc;
    int64_t tick = 0;
    int seq = 0;
    idb_spin_lock(&s->lock);
    rc = sonyflake_step(s, &tick, &seq, err);
    if (rc == 0) { s->tick = tick; s->seq = seq; }
    idb_spin_unlock(&s->lock);
    if (rc) return rc;
    idb_put_be64(id->b, (uint64_t)tick << 24 | (uint64_t)seq << 16 | s->worker);
    id->len = 8;
    return 0;
}

/* Parse a decimal ID and reject values with the top (sign) bit set. */
static int sonyflake_parse(const char *text, idb_id *id, idb_err *err)
{
    int rc = idb_text_u64_parse(text, id, err);
    if (rc == 0 && idb_id_u64(id) >> 63)
        return idb_fail(err, IDB_EINPUT, "'%s' is not a sonyflake ID: the top bit is set", text);
    return rc;
}

/* Emit timestamp_ms (the tick's start, epoch_ms added; opts NULL: sonyflake's epoch), time,
 * sequence and worker. */
static int sonyflake_decode(const idb_opts *opts, const idb_id *id, idb_emit_fn emit, void *ctx,
                            idb_err *err)
{
    if (id->len != 8)
        return idb_fail(err, IDB_EINPUT, "a sonyflake ID has 8 bytes, not %d", id->len);
    uint64_t v = idb_id_u64(id);
    if (v >> 63)
        return idb_fail(err, IDB_EINPUT, "%llu is not a sonyflake ID: the top bit is set",
                        (unsigned long long)v);
    int64_t epoch = opts ? idb_opts_int(opts, "epoch_ms") : SONY_EPOCH_DEFAULT;
    int64_t ms = (int64_t)(v >> 24) * SONY_TICK_MS + epoch;
    idb_emit_int(emit, ctx, "timestamp_ms", ms);
    idb_emit_time(emit, ctx, "time", ms, 0);
    idb_emit_uint(emit, ctx, "sequence", v >> 16 & 0xFF);
    idb_emit_uint(emit, ctx, "worker", v & 0xFFFF);
    return 0;
}

/* Text forms that round-trip (strategy.h: vectors; tests/test_parsers.c), computed from
 * the layout above: 2^63 - 1 is tick 2^39 - 1, sequence 255, machine 65535; 2^24 is tick 1,
 * sequence 0, machine 0. */
static const idb_text_vector sonyflake_vectors[] = {
    { "9223372036854775807", "9223372036854775807" },
    { "16777216", "16777216" },
    { 0 },
};

const idb_strategy idb_strategy_sonyflake = {
    .version = IDB_STRATEGY_VERSION,
    .name = "sonyflake",
    .summary = "Sony's sonyflake: 39-bit 10 ms ticks since epoch | 8-bit sequence | 16-bit "
               "machine",
    .bits = 64,
    .time_ordered = 1,
    .value_bits = 63,
    .coord = IDB_COORD_NONE,
    .cross_process = IDB_XPROC_DISTINCT_WORKER,
    .fork = IDB_FORK_REFUSES,
    .options = sonyflake_options,
    .on_clock_back = IDB_CLOCK_BACK_WAIT,
    .max_ids_per_s = 25600,
    .vectors = sonyflake_vectors,
    .create = sonyflake_create,
    .next = sonyflake_next,
    .destroy = sonyflake_destroy,
    .format = idb_text_u64_format,
    .parse = sonyflake_parse,
    .decode = sonyflake_decode,
};
