/* uuidv7.c — `uuidv7`: RFC 9562 §5.7 time-ordered UUIDs, monotonic by §6.2 Method 1.
 *
 *   octet  0                    6      8      10                    15
 *   bit    0                    48 52  64 66                         127
 *         +--------------------+--+---+--+---------------------------+
 *         |    unix_ts_ms      |v |ra |va|          rand_b           |
 *         | 48 bits, big-endian|7 |12 |10|          62 bits          |
 *         +--------------------+--+---+--+---------------------------+
 *   The 74 bits ra|rb, most significant first (counter_bits = C, default 42):
 *         +----------------------------------+-----------------------+
 *         | counter: C bits (rand_a, then    | random: 74 - C bits,  |
 *         | the top C-12 bits of rand_b)     | fresh for every UUID  |
 *         +----------------------------------+-----------------------+
 *
 * Monotonicity (RFC 9562 §6.2, Method 1, "Fixed Bit-Length Dedicated Counter"): the
 * counter sits right after the timestamp. At each new millisecond it is seeded randomly
 * with its most significant bit 0 (the rollover guard, so at least 2^(C-1) IDs fit in a
 * ms); within the same ms it is incremented by 1. Every UUID of one instance is therefore
 * greater (memcmp) than the one before it:
 *   - clock stepped back (now < last ms used): keep the last ms and increment the counter
 *     (§6.2 "MAY reuse the previous timestamp and increment the previous counter");
 *   - counter overflow (2^C values used in one ms): move the timestamp to last+1 ms, ahead
 *     of the clock (§6.2 allows "increment the timestamp ahead of the actual time"), and
 *     reseed; later calls keep using that ms until the clock passes it.
 * Errors: a clock before 1970 gives IDB_EINPUT; a timestamp past 2^48-1 ms (year 10889)
 * gives IDB_EEXHAUSTED.
 *
 * Threads: the (last ms, counter) pair is kept per thread (slots.h: one slot a thread, on
 * its own cache lines, under the slot's spinlock; the clock read and the random draw happen
 * outside it), so threads sharing an instance never write the same line and each thread's
 * UUIDs follow the rules above on their own: the order is per thread, not per instance.
 * Two threads' UUIDs are told apart as two processes' are, by the random counter seed of
 * each ms and the random tail. With state_file, every thread uses one slot (the order per
 * instance that the state file extends across restarts).
 *
 * What it promises. One instance used by one thread: every UUID above the one before
 * (above); by several threads: each thread's above that thread's last, all distinct. Across
 * processes and restarts: unique with no coordination, by its random bits (a random counter
 * seed per ms and 74 - C random bits per UUID; cross_process = IDB_XPROC_ALWAYS), but not
 * ordered: a restart with the clock behind makes UUIDs below the last run's. With
 * state_file=PATH (statefile.h) the order holds across restarts too: the instance reserves
 * time on disk ahead of use (one write and fsync per IDB_STATE_WINDOW_MS), and a new one
 * starts above what the last run reserved, as if it had used that ms up: while the clock
 * is behind it, the timestamp runs ahead of the clock (the rule above for a clock stepped
 * back; it never refuses). A corrupt state file is IDB_EINPUT; one in use by another
 * instance IDB_EUNAVAIL.
 * After fork (fork = IDB_FORK_REFUSES): the child's copy of (last ms, counter) would make
 * the parent's next counter values in the same ms, told apart only by the 74 - C random
 * tail bits (32 by default: far likelier to collide than two processes, whose counters are
 * seeded apart); a counter reseeded in the same ms could fall below UUIDs the instance
 * already made. So next() there returns IDB_EFORK.
 *
 * Options:
 *   counter_bits  INT 12..42, default 42   width C of the counter (decode needs the same)
 *   state_file    STR, default "" (off)    where to persist the time reserved
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "random.h"
#include "slots.h"
#include "spinlock.h"
#include "statefile.h"
#include "strategy.h"

#define UUIDV7_MS_MAX ((1ULL << 48) - 1)
#define UUIDV7_CBITS_DEFAULT 42

/* One thread's state (slots.h). */
typedef struct v7_slot {
    idb_spinlock lock;          /* guards last_ms and counter (and sf, in slot 0) */
    int64_t last_ms;            /* ms in the slot's last UUID; -1 before the first */
    uint64_t counter;           /* counter in the slot's last UUID */
} __attribute__((aligned(IDB_SLOT_ALIGN))) v7_slot;

typedef struct uuidv7 {
    idb_clock *clock;
    int cbits;                  /* counter width C */
    uint64_t cmax;              /* 2^C - 1 */
    idb_statefile *sf;          /* state_file, or NULL (guarded by slot 0's lock) */
    unsigned fork_gen;          /* idb_fork_generation() at create */
    v7_slot slot[IDB_SLOTS];    /* one a thread; only slot 0 with a state file */
} uuidv7;

static const idb_opt_decl uuidv7_options[] = {
    { .name = "counter_bits", .type = IDB_OPT_INT, .def = "42", .min = 12, .max = 42,
      .help = "bits of the per-ms counter after the timestamp (RFC 9562 Method 1)" },
    { .name = "state_file", .type = IDB_OPT_STR, .def = "",
      .help = "file where the time used is reserved ahead (fsync per second), so UUIDs "
              "keep increasing across restarts; empty = off" },
    { 0 },
};

/* Make an instance on clock with the counter width from opts; with a state file, start
 * above what the last run reserved (its ms counts as used up). Returns 0, IDB_ENOMEM or
 * idb_statefile_open's errors. */
static int uuidv7_create(const idb_opts *opts, idb_clock *clock, void **inst, idb_err *err)
{
    uuidv7 *u = idb_slots_alloc(sizeof *u);
    if (!u) return idb_fail(err, IDB_ENOMEM, "out of memory");
    u->clock = clock;
    u->cbits = (int)idb_opts_int(opts, "counter_bits");
    u->cmax = (1ULL << u->cbits) - 1;
    for (int i = 0; i < IDB_SLOTS; i++) u->slot[i].last_ms = -1;
    u->fork_gen = idb_fork_generation();
    const char *path = idb_opts_str(opts, "state_file");
    int rc = path[0] ? idb_statefile_open(path, "uuidv7", &u->sf, err) : 0;
    if (rc) { free(u); return rc; }
    if (u->sf && u->sf->reserved_ms != IDB_STATE_NONE) {
        u->slot[0].last_ms = u->sf->reserved_ms;
        u->slot[0].counter = u->cmax;   /* full: the next UUID is in a later ms */
    }
    *inst = u;
    return 0;
}

/* Free an instance: its state file records the last ms used and is unlocked. */
static void uuidv7_destroy(void *inst)
{
    uuidv7 *u = inst;
    if (!u) return;
    idb_statefile_close(u->sf);
    free(u);
}

/* A fresh counter for a new ms: C-1 random bits, the top bit 0 (rollover guard). */
static inline uint64_t uuidv7_seed(const uuidv7 *u)
{
    return idb_random_u64() >> (65 - u->cbits);
}

/* Write the next UUIDv7 into *id, greater than the thread's previous one (the instance's,
 * with a state file) and different from every other thread's. Returns 0,
 * IDB_EINPUT (clock before 1970), IDB_EEXHAUSTED (48-bit timestamp used up), IDB_EIO
 * (the state file could not be written) or IDB_EFORK (a forked child). */
static int uuidv7_next(void *inst, idb_id *id, idb_err *err)
{
    uuidv7 *u = inst;
    int rc = idb_fork_check(u->fork_gen, "uuidv7", err);
    if (rc) return rc;
    int64_t now = idb_clock_now_ms(u->clock);
    /* the random tail is 74 - counter_bits bits: 32 with the default counter */
    uint64_t r = u->cbits >= 42 ? idb_random_u32() : idb_random_u64();

    v7_slot *sl = &u->slot[u->sf ? 0 : idb_slot()];
    idb_spin_lock(&sl->lock);
    int64_t ms = sl->last_ms;
    uint64_t ctr = sl->counter + 1;
    if (now > ms) {                         /* new ms: reseed */
        ms = now;
        ctr = uuidv7_seed(u);
    } else if (ctr > u->cmax) {             /* same ms (or clock behind), counter full */
        ms++;
        ctr = uuidv7_seed(u);
    }
    if ((uint64_t)ms > UUIDV7_MS_MAX)       /* negative ms wraps to a huge value here */
        rc = ms < 0 ? idb_fail(err, IDB_EINPUT, "clock reads %lld ms, before 1970, which a "
                               "UUIDv7 cannot hold", (long long)ms)
                    : idb_fail(err, IDB_EEXHAUSTED, "the 48-bit UUIDv7 timestamp is used up");
    else if (u->sf)
        rc = idb_statefile_cover(u->sf, ms, err);
    if (rc == 0) {
        sl->last_ms = ms;
        sl->counter = ctr;
    }
    idb_spin_unlock(&sl->lock);
    if (rc) return rc;

    int low = u->cbits - 12;                /* counter bits that spill into rand_b */
    int rnd = 74 - u->cbits;                /* random bits at the end */
    uint64_t hi = (uint64_t)ms << 16 | 0x7000 | ctr >> low;
    uint64_t lo = 1ULL << 63 | (ctr & ((1ULL << low) - 1)) << rnd | (r & ((1ULL << rnd) - 1));
    idb_put_be64(id->b, hi);
    idb_put_be64(id->b + 8, lo);
    id->len = 16;
    return 0;
}

/* Parse 8-4-4-4-12 hex (any case) and check version 7 and variant 0b10. */
static int uuidv7_parse(const char *text, idb_id *id, idb_err *err)
{
    int rc = idb_text_uuid_parse(text, id, err);
    return rc ? rc : idb_uuid_check(id, text, 7, err);
}

/* Emit version, variant ("10"), timestamp_ms, time (ISO 8601 UTC with ms) and counter
 * (the top counter_bits bits after the timestamp; opts NULL means the default width). */
static int uuidv7_decode(const idb_opts *opts, const idb_id *id, idb_emit_fn emit, void *ctx,
                         idb_err *err)
{
    int rc = idb_uuid_check(id, NULL, 7, err);
    if (rc) return rc;
    int cbits = opts ? (int)idb_opts_int(opts, "counter_bits") : UUIDV7_CBITS_DEFAULT;
    uint64_t hi = idb_get_be(id->b, 8), lo = idb_get_be(id->b + 8, 8);
    int64_t ms = (int64_t)(hi >> 16);
    uint64_t ctr = (hi & 0xFFF) << (cbits - 12) | (lo & ((1ULL << 62) - 1)) >> (74 - cbits);

    idb_emit_int(emit, ctx, "version", 7);
    emit(ctx, "variant", "10");
    idb_emit_int(emit, ctx, "timestamp_ms", ms);
    idb_emit_time(emit, ctx, "time", ms, 0);
    idb_emit_uint(emit, ctx, "counter", ctr);
    return 0;
}

/* Text forms that round-trip (strategy.h: vectors; tests/test_parsers.c). */
static const idb_text_vector uuidv7_vectors[] = {
    { "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f" },
    { 0 },
};

const idb_strategy idb_strategy_uuidv7 = {
    .version = IDB_STRATEGY_VERSION,
    .name = "uuidv7",
    .summary = "RFC 9562 UUIDv7: 48-bit Unix ms, per-ms counter (Method 1), random tail",
    .bits = 128,
    .time_ordered = 1,
    .coord = IDB_COORD_NONE,
    .cross_process = IDB_XPROC_ALWAYS,
    .fork = IDB_FORK_REFUSES,
    .options = uuidv7_options,
    .on_clock_back = IDB_CLOCK_BACK_CONTINUE,
    .vectors = uuidv7_vectors,
    .create = uuidv7_create,
    .next = uuidv7_next,
    .destroy = uuidv7_destroy,
    .format = idb_text_uuid_format,
    .parse = uuidv7_parse,
    .decode = uuidv7_decode,
};
