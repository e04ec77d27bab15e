/* objectid.c — `objectid`: MongoDB ObjectIds (bson-objectid spec), 96 bits = 12 bytes.
 *
 *   byte  0             4                   9          12
 *        +-------------+-------------------+----------+
 *        |  seconds    |  process random   | counter  |
 *        |  32 bits BE |  40 bits          | 24 bits  |
 *        +-------------+-------------------+----------+
 *
 * seconds: Unix time, unsigned 32-bit big-endian, so it lasts until 2106-02-07T06:28:15Z;
 *   later is IDB_EEXHAUSTED, before 1970 is IDB_EINPUT.
 * process random: 5 bytes drawn once per process. An instance stands for a process: it
 *   draws them at create and draws new ones when the fork generation (forkgen.h) has
 *   changed since (it runs in a forked child), as the spec's fork test requires.
 * counter: big-endian, starts at a random value (or counter_start), +1 per ID, wrapping
 *   (the start comes from the shared stream, so a seeded insert run repeats it)
 *   from 0xFFFFFF to 0. Both big-endian fields make memcmp order follow time, then counter.
 *
 * At most 2^24 IDs per second: an instance counts the IDs made in the current second; when
 * the counter would come back to its value at the first of them within the same second
 * (2^24 = 16,777,216 IDs made in it), the next ID would repeat that first one, so instead
 *   on_exhausted=wait    (default) wait (idb_clock_wait_until) for the next second, as
 *                        snowflake waits when a ms's 4096 are used: this bounds one
 *                        instance (a process) to 16.7M IDs/s;
 *   on_exhausted=refuse  return IDB_EEXHAUSTED until the clock reaches the next second.
 * A frozen manual clock that cannot be waited for gives IDB_ECLOCK. A new second (or a clock
 * reading another second, stepped back included) starts a new count. Across a step back the
 * spec's counter is the only guard: a second revisited repeats an ID only if 2^24 or more
 * counter values were handed out from its first visit to its last.
 *
 * Threads: each thread takes the counter in blocks of OID_BLOCK (256) values from the
 * instance and keeps its block in its own slot (slots.h: one a thread, on its own cache
 * lines), so the instance's shared (second, values handed out in it, counter) state, under
 * a spinlock held while waiting, is written once per 256 IDs, not per ID. A block belongs to
 * the second it was taken in: a thread whose clock reads another second drops what is left
 * of it and takes a new one, so every value used in a second was handed out in that second,
 * at most 2^24 of them. The counter is therefore +1 per ID within a thread's block, and
 * jumps (by less than 256 x threads) between blocks and at a thread's new second, where the
 * spec's one counter would go on +1; IDs of one thread within one second still increase
 * (but at the wrap). The clock is read outside the locks (and again when it looks behind,
 * as another thread may have moved on).
 * The random bytes and the fork generation they belong to share one atomic 64-bit word
 * (low 24 bits of the generation << 40 | 40 random bits).
 *
 * Across processes: unique with no coordination (each process draws its own 5 bytes;
 * cross_process = IDB_XPROC_ALWAYS), ordered only by the second.
 * After fork (fork = IDB_FORK_SAFE): the child's first next() redraws the 5 process bytes
 * from random.h, which re-seeds in the child, so parent and child are two processes with
 * independently drawn bytes, as two unrelated processes are (the counter copied across
 * the fork matters only when the 40 bits coincide: a 2^-40 event per pair).
 *
 * Options:
 *   counter_start  STR, default "random"   "random", or a decimal 0..16777215
 *   on_exhausted   wait|refuse, default wait   2^24 IDs made within one second
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forkgen.h"
#include "random.h"
#include "slots.h"
#include "spinlock.h"
#include "strategy.h"

#define OID_RAND_MASK ((1ULL << 40) - 1)
#define OID_GEN_MASK 0xFFFFFFu
#define OID_COUNTER_MASK 0xFFFFFFu
#define OID_PER_SECOND (1u << 24)       /* counter values: IDs one second can hold */
#define OID_NS_PER_S 1000000000LL
#define OID_SECONDS_MAX 0xFFFFFFFFLL    /* the 32-bit timestamp's last second */
#define OID_BLOCK 256u                  /* counter values a thread takes at once; divides
                                         * OID_PER_SECOND, so a second's last block is whole */

/* A thread's block of counter values (slots.h). */
typedef struct oid_slot {
    idb_spinlock lock;          /* guards the three below */
    int64_t sec;                /* the second the block was taken in */
    uint32_t next;              /* its next value (low 24 bits go in the ID) */
    uint32_t left;              /* values left in it; 0: none */
} __attribute__((aligned(IDB_SLOT_ALIGN))) oid_slot;

/* The instance's counter, handed out in blocks: its own cache lines. */
typedef struct oid_shared {
    idb_spinlock lock;          /* guards the three below */
    uint32_t counter;           /* the next block's first value */
    int64_t sec;                /* second of the last block; INT64_MIN before the first */
    uint32_t used;              /* values handed out in second sec (at most OID_PER_SECOND) */
} __attribute__((aligned(IDB_SLOT_ALIGN))) oid_shared;

typedef struct objectid {
    idb_clock *clock;
    int refuse;                 /* 1: on_exhausted=refuse */
    _Atomic uint64_t proc;      /* (fork generation & 0xFFFFFF) << 40 | 5 random bytes */
    oid_shared shared;
    oid_slot slot[IDB_SLOTS];
} objectid;

static const idb_opt_decl objectid_options[] = {
    { .name = "counter_start", .type = IDB_OPT_STR, .def = "random",
      .help = "first counter value: random, or a decimal 0..16777215" },
    { .name = "on_exhausted", .type = IDB_OPT_ENUM, .def = "wait", .choices = "wait|refuse",
      .help = "2^24 IDs made in one second: wait for the next second, or refuse (error)" },
    { 0 },
};

/* The process word for the current fork generation, with 5 fresh random bytes from the OS
 * (idb_random_process_bytes: a seeded insert run seeds the counter start, never these). */
static uint64_t objectid_draw(unsigned gen)
{
    uint64_t v;                  /* never seeded: these bytes keep processes apart */
    idb_random_process_bytes(&v, sizeof v);
    return (uint64_t)(gen & OID_GEN_MASK) << 40 | (v & OID_RAND_MASK);
}

/* Make an instance: draw the process bytes, set the counter from counter_start, keep
 * on_exhausted. Returns 0, IDB_EINPUT (counter_start not "random" nor 0..16777215) or
 * IDB_ENOMEM. */
static int objectid_create(const idb_opts *opts, idb_clock *clock, void **inst, idb_err *err)
{
    const char *start = idb_opts_str(opts, "counter_start");
    int64_t first;
    if (strcmp(start, "random") == 0)
        first = (int64_t)(idb_random_u64() & OID_COUNTER_MASK);
    else if (idb_parse_i64(start, &first) != 0 || first < 0 || first > OID_COUNTER_MASK)
        return idb_fail(err, IDB_EINPUT, "strategy objectid: option counter_start=%s: expected "
                        "random or a decimal 0..16777215", start);
    objectid *o = idb_slots_alloc(sizeof *o);   /* zeroed: locks free, blocks empty */
    if (!o) return idb_fail(err, IDB_ENOMEM, "out of memory");
    o->clock = clock;
    o->refuse = strcmp(idb_opts_str(opts, "on_exhausted"), "refuse") == 0;
    atomic_init(&o->proc, objectid_draw(idb_fork_generation()));
    o->shared.counter = (uint32_t)first;
    o->shared.sec = INT64_MIN;
    *inst = o;
    return 0;
}

/* The 5 process bytes for this process: redrawn once after a fork (the CAS makes every
 * thread of the child agree on one new value). */
static uint64_t objectid_proc(objectid *o)
{
    uint64_t w = atomic_load_explicit(&o->proc, memory_order_acquire);
    unsigned gen = idb_fork_now() & OID_GEN_MASK;
    if (w >> 40 != gen) {
        uint64_t fresh = objectid_draw(gen);
        if (atomic_compare_exchange_strong(&o->proc, &w, fresh)) w = fresh;
    }
    return w & OID_RAND_MASK;
}

/* The second of the clock reading ns, checked against the 32-bit field: 0 and *s, or
 * IDB_EINPUT (before 1970) or IDB_EEXHAUSTED (after 2106-02-07T06:28:15Z). */
static int objectid_second(int64_t ns, int64_t *s, idb_err *err)
{
    if (ns < 0)
        return idb_fail(err, IDB_EINPUT, "clock reads before 1970, which an ObjectId cannot hold");
    *s = ns / OID_NS_PER_S;
    if (*s > OID_SECONDS_MAX)
        return idb_fail(err, IDB_EEXHAUSTED, "the 32-bit ObjectId timestamp is used up "
                        "(%lld s is after 2106-02-07T06:28:15Z)", (long long)*s);
    return 0;
}

/* Second sh->sec has all its 2^24 counter values handed out: wait for the next second (or
 * refuse). Called with sh->lock held. Returns 0 with *s the new second, or IDB_EEXHAUSTED
 * (on_exhausted=refuse), IDB_ECLOCK (a clock that cannot be waited for) or
 * objectid_second's errors. */
static int objectid_exhausted(objectid *o, int64_t *s, idb_err *err)
{
    int64_t sec = o->shared.sec, next_ns = (sec + 1) * OID_NS_PER_S;
    if (o->refuse)
        return idb_fail(err, IDB_EEXHAUSTED, "all 2^24 ObjectId counter values of second %lld "
                        "are used (on_exhausted=refuse): no more IDs until the next second",
                        (long long)sec);
    if (idb_clock_wait_until(o->clock, next_ns) != 0) {
        idb_fail(err, IDB_ECLOCK, "all 2^24 ObjectId counter values of second %lld are used "
                 "and the clock cannot move forward", (long long)sec);
        if (err) err->behind_ms = (next_ns - idb_clock_now_ns(o->clock)) / 1000000 + 1;
        return IDB_ECLOCK;
    }
    return objectid_second(idb_clock_now_ns(o->clock), s, err);
}

/* A new block for slot sl (its lock held), in second *s (from a clock reading before the
 * locks; moved on when another thread already has, or after a wait): takes sh->lock.
 * Returns 0 with the block in sl and *s its second, or an IDB_E* code. */
static int objectid_block(objectid *o, oid_slot *sl, int64_t *s, idb_err *err)
{
    oid_shared *sh = &o->shared;
    int rc = 0;
    idb_spin_lock(&sh->lock);
    if (*s < sh->sec)                           /* another thread may have moved on */
        rc = objectid_second(idb_clock_now_ns(o->clock), s, err);
    if (rc == 0 && *s == sh->sec && sh->used == OID_PER_SECOND)
        rc = objectid_exhausted(o, s, err);
    if (rc == 0) {
        if (*s != sh->sec) {                    /* a new second: a new count */
            sh->sec = *s;
            sh->used = 0;
        }
        sh->used += OID_BLOCK;
        sl->sec = *s;
        sl->next = sh->counter;
        sl->left = OID_BLOCK;
        sh->counter += OID_BLOCK;
    }
    idb_spin_unlock(&sh->lock);
    return rc;
}

/* Write the next ObjectId into *id. Returns 0, IDB_EINPUT (clock before 1970),
 * IDB_EEXHAUSTED (past 0xFFFFFFFF seconds; or 2^24 IDs in one second with
 * on_exhausted=refuse) or IDB_ECLOCK (2^24 IDs in one second on a clock that cannot move). */
static int objectid_next(void *inst, idb_id *id, idb_err *err)
{
    objectid *o = inst;
    int64_t s = 0;
    int rc = objectid_second(idb_clock_now_ns(o->clock), &s, err);
    if (rc) return rc;
    oid_slot *sl = &o->slot[idb_slot()];
    idb_spin_lock(&sl->lock);
    if (sl->left == 0 || sl->sec != s) rc = objectid_block(o, sl, &s, err);
    uint32_t c = sl->next;
    if (rc == 0) {
        sl->next++;
        sl->left--;
    }
    idb_spin_unlock(&sl->lock);
    if (rc) return rc;
    uint64_t p = objectid_proc(o);
    idb_put_be64(id->b, (uint64_t)s << 32 | p >> 8);                  /* bytes 0-7 */
    idb_put_be(id->b + 8, (p & 0xFF) << 24 | (c & OID_COUNTER_MASK), 4);   /* bytes 8-11 */
    id->len = 12;
    return 0;
}

/* Parse exactly 24 hex digits (any case). */
static int objectid_parse(const char *text, idb_id *id, idb_err *err)
{
    return idb_text_hex_parse(text, 12, id, err);
}

/* Emit timestamp_s, time (ISO 8601 UTC), process_random (10 hex digits) and counter. */
static int objectid_decode(const idb_opts *opts, const idb_id *id, idb_emit_fn emit, void *ctx,
                           idb_err *err)
{
    (void)opts;
    if (id->len != 12)
        return idb_fail(err, IDB_EINPUT, "an ObjectId has 12 bytes, not %d", id->len);
    uint64_t s = idb_get_be(id->b, 4);
    idb_emit_uint(emit, ctx, "timestamp_s", s);
    idb_emit_time(emit, ctx, "time", (int64_t)s * 1000, 1);
    idb_emit_hex(emit, ctx, "process_random", id->b + 4, 5);
    idb_emit_uint(emit, ctx, "counter", idb_get_be(id->b + 9, 3));
    return 0;
}

/* Text forms that round-trip (strategy.h: vectors; tests/test_parsers.c). */
static const idb_text_vector objectid_vectors[] = {
    { "507f1f77bcf86cd799439011", "507f1f77bcf86cd799439011" },
    { 0 },
};

const idb_strategy idb_strategy_objectid = {
    .version = IDB_STRATEGY_VERSION,
    .name = "objectid",
    .summary = "MongoDB ObjectId: 32-bit seconds | 5 random bytes per process | 24-bit counter",
    .bits = 96,
    .time_ordered = 1,
    .coord = IDB_COORD_NONE,
    .cross_process = IDB_XPROC_ALWAYS,
    .fork = IDB_FORK_SAFE,
    .options = objectid_options,
    .on_clock_back = IDB_CLOCK_BACK_CONTINUE,
    .max_ids_per_s = 16777216,
    .vectors = objectid_vectors,
    .create = objectid_create,
    .next = objectid_next,
    .destroy = free,
    .format = idb_text_hex_format,
    .parse = objectid_parse,
    .decode = objectid_decode,
};
