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
 *   draws them at create and draws new ones when idb_random_fork_generation() has changed
 *   since (it runs in a forked child), as the spec's fork test requires.
 * counter: big-endian, starts at a random value (or counter_start), +1 per ID with an
 *   atomic fetch_add, wrapping from 0xFFFFFF to 0. Both big-endian fields make memcmp
 *   order follow time, then counter.
 * The random bytes and the fork generation they belong to share one atomic 64-bit word
 * (low 24 bits of the generation << 40 | 40 random bits), so next() takes no lock.
 *
 * Options:
 *   counter_start  STR, default "random"   "random", or a decimal 0..16777215
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "random.h"
#include "strategy.h"

#define OID_RAND_MASK ((1ULL << 40) - 1)
#define OID_GEN_MASK 0xFFFFFFu

typedef struct objectid {
    idb_clock *clock;
    _Atomic uint64_t proc;      /* (fork generation & 0xFFFFFF) << 40 | 5 random bytes */
    _Atomic uint32_t counter;   /* low 24 bits go in the next ID */
} objectid;

static const idb_opt_decl objectid_options[] = {
    { .name = "counter_start", .type = IDB_OPT_STR, .def = "random",
      .help = "first counter value: random, or a decimal 0..16777215" },
    { 0 },
};

/* The process word for the current fork generation, with 5 fresh random bytes. */
static uint64_t objectid_draw(unsigned gen)
{
    return (uint64_t)(gen & OID_GEN_MASK) << 40 | (idb_random_u64() & OID_RAND_MASK);
}

/* Make an instance: draw the process bytes, set the counter from counter_start. Returns 0,
 * IDB_EINPUT (counter_start not "random" nor 0..16777215) or IDB_ENOMEM. */
static int objectid_create(const idb_opts *opts, idb_clock *clock, void **inst, idb_err *err)
{
    const char *start = idb_opts_str(opts, "counter_start");
    int64_t first;
    if (strcmp(start, "random") == 0)
        first = (int64_t)(idb_random_u64() & 0xFFFFFF);
    else if (idb_parse_i64(start, &first) != 0 || first < 0 || first > 0xFFFFFF)
        return idb_fail(err, IDB_EINPUT, "strategy objectid: option counter_start=%s: expected "
                        "random or a decimal 0..16777215", start);
    objectid *o = malloc(sizeof *o);
    if (!o) return idb_fail(err, IDB_ENOMEM, "out of memory");
    o->clock = clock;
    atomic_init(&o->proc, objectid_draw(idb_random_fork_generation()));
    atomic_init(&o->counter, (uint32_t)first);
    *inst = o;
    return 0;
}

/* The 5 process bytes for this process: redrawn once after a fork (the CAS makes every
 * thread of the child agree on one new value). */
static uint64_t objectid_proc(objectid *o)
{
    uint64_t w = atomic_load_explicit(&o->proc, memory_order_acquire);
    unsigned gen = idb_random_fork_generation() & OID_GEN_MASK;
    if (w >> 40 != gen) {
        uint64_t fresh = objectid_draw(gen);
        if (atomic_compare_exchange_strong(&o->proc, &w, fresh)) w = fresh;
    }
    return w & OID_RAND_MASK;
}

/* Write the next ObjectId into *id. Returns 0, IDB_EINPUT (clock before 1970) or
 * IDB_EEXHAUSTED (past 0xFFFFFFFF seconds). */
static int objectid_next(void *inst, idb_id *id, idb_err *err)
{
    objectid *o = inst;
    int64_t ns = idb_clock_now_ns(o->clock);
    if (ns < 0)
        return idb_fail(err, IDB_EINPUT, "clock reads before 1970, which an ObjectId cannot hold");
    uint64_t s = (uint64_t)ns / 1000000000;
    if (s > 0xFFFFFFFF)
        return idb_fail(err, IDB_EEXHAUSTED, "the 32-bit ObjectId timestamp is used up "
                        "(%llu s is after 2106-02-07T06:28:15Z)", (unsigned long long)s);
    uint32_t c = atomic_fetch_add_explicit(&o->counter, 1, memory_order_relaxed);
    uint64_t p = objectid_proc(o);
    idb_put_be64(id->b, s << 32 | p >> 8);                  /* bytes 0-7 */
    idb_put_be(id->b + 8, (p & 0xFF) << 24 | (c & 0xFFFFFF), 4);   /* bytes 8-11 */
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

const idb_strategy idb_strategy_objectid = {
    .version = IDB_STRATEGY_VERSION,
    .name = "objectid",
    .summary = "MongoDB ObjectId: 32-bit seconds | 5 random bytes per process | 24-bit counter",
    .bits = 96,
    .time_ordered = 1,
    .coord = IDB_COORD_NONE,
    .options = objectid_options,
    .create = objectid_create,
    .next = objectid_next,
    .destroy = free,
    .format = idb_text_hex_format,
    .parse = objectid_parse,
    .decode = objectid_decode,
};
