/* ulid.c — `ulid`: the ULID spec (github.com/ulid/spec), monotonic within a millisecond.
 *
 *   octet  0                          6                                        15
 *   bit    0                          48                                       127
 *         +--------------------------+-----------------------------------------+
 *         |        timestamp         |               randomness                |
 *         | 48 bits, big-endian,     | 80 bits: fresh at each new ms, then +1  |
 *         | Unix time in ms          | per ULID within that ms (monotonic)     |
 *         +--------------------------+-----------------------------------------+
 *   Text: 26 characters of Crockford base32, 0123456789ABCDEFGHJKMNPQRSTVWXYZ (no I, L,
 *   O, U), most significant first; 26 x 5 = 130 bits, so the first character holds only
 *   the top 3 bits and is at most '7'. Output is uppercase; input may be either case.
 *
 * Monotonicity (the spec's "monotonic mode"): at a new millisecond the 80-bit random part
 * is drawn fresh; within the same millisecond it is incremented by 1 at its least
 * significant bit, with carry. Every ULID of one instance is therefore greater (memcmp)
 * than the one before it:
 *   - clock stepped back (now < last ms used): keep the last ms and increment, as
 *     ulid/javascript's monotonicFactory does (`if (seedTime <= lastTime)`); the time
 *     field stays frozen until the clock passes it again. Never an ID not above the last.
 *   - overflow (the random part was all ones, so 2^80 - start ULIDs were made in one ms):
 *     IDB_EEXHAUSTED, "ULID random part overflowed within one millisecond", as the spec
 *     says ("throws"). The state is left as it was, so calls keep failing until the
 *     clock reaches a later ms. With a random start that needs on the order of 2^79 IDs.
 * Errors: a clock before 1970 gives IDB_EINPUT; past 2^48-1 ms (year 10889) IDB_EEXHAUSTED
 * (kept for clocks to come: an idb_clock counts int64 ns, so it ends in 2262).
 *
 * Threads: the (last ms, random part) pair is kept per thread (slots.h: one slot a thread,
 * on its own cache lines, under the slot's spinlock; the clock is read outside it, the
 * random draw at a new ms inside it), so threads sharing an instance never write the same
 * line and each thread's ULIDs follow the rules above on their own: the order is per
 * thread, not per instance. Two threads' ULIDs are told apart by their 80 random bits, as
 * two processes' are. With state_file or a test hook, every thread uses one slot (the
 * order per instance; the hooks' starts are not random, so two slots would collide).
 *
 * What it promises. One instance used by one thread: every ULID above the one before
 * (above); by several threads: each thread's above that thread's last, all distinct. Across
 * processes and restarts: unique with no coordination, by its 80 random bits
 * (cross_process = IDB_XPROC_ALWAYS), but not ordered: a restart with the clock behind
 * makes ULIDs below the last run's. With state_file=PATH (statefile.h) the order holds
 * across restarts too: the instance reserves time on disk ahead of use (one write and
 * fsync per IDB_STATE_WINDOW_MS), and a new one starts at the ms after what the last run
 * reserved (whose random parts it cannot know), with a fresh random part, and goes on
 * as above: while the clock is behind that ms, the time field stays on it (+1 per ULID;
 * it never refuses). A corrupt state file is IDB_EINPUT; one in use by another instance
 * IDB_EUNAVAIL.
 * After fork (fork = IDB_FORK_REFUSES): the child's copy of (last ms, random part) would
 * go on +1 from the parent's last ULID in the same ms, repeating the parent's next ones;
 * redrawing instead could put the child below ULIDs the instance already made (the order
 * above), so next() there returns IDB_EFORK.
 *
 * Options:
 *   overflow_after  INT >= 0, default 0   TEST HOOK. 0 = the spec: each ms starts at a
 *                   random value. N > 0: each ms starts the random part at 2^80 - N instead,
 *                   so exactly N ULIDs fit in one ms and the next fails; IDs are then not
 *                   random at all (two instances collide), so never use it for real IDs.
 *                   It exists so the overflow error can be tested: no seed of the random
 *                   stream can be found that starts near the top of 80 bits.
 *   carry_after     INT >= 0, default 0   TEST HOOK, like overflow_after: N > 0 starts each
 *                   ms's random part at 2^64 - N, so the (N+1)-th ULID of a ms carries the +1
 *                   from the low 64 into the high 16 random bits (tested: still increasing).
 *   state_file      STR, default "" (off)   where to persist the time reserved
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "random.h"
#include "slots.h"
#include "spinlock.h"
#include "statefile.h"
#include "strategy.h"

#define ULID_MS_MAX ((1ULL << 48) - 1)
#define ULID_LEN 26
#define ULID_HI_MAX 0xFFFFULL            /* the top 16 of the 80 random bits */

static const char ulid_alphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/* One thread's state (slots.h). */
typedef struct ulid_slot {
    idb_spinlock lock;          /* guards last_ms, rhi, rlo (and sf, in slot 0) */
    int64_t last_ms;            /* ms in the slot's last ULID; -1 before the first */
    uint64_t rhi, rlo;          /* random part of the slot's last ULID: 16 + 64 bits */
} __attribute__((aligned(IDB_SLOT_ALIGN))) ulid_slot;

typedef struct ulid {
    idb_clock *clock;
    uint64_t overflow_after;    /* 0, or the test hook's N */
    uint64_t carry_after;       /* 0, or the carry test hook's N */
    idb_statefile *sf;          /* state_file, or NULL (guarded by slot 0's lock) */
    unsigned fork_gen;          /* idb_fork_generation() at create */
    int one_slot;               /* 1: state_file or a test hook: every thread in slot 0 */
    ulid_slot slot[IDB_SLOTS];
} ulid;

static const idb_opt_decl ulid_options[] = {
    { .name = "overflow_after", .type = IDB_OPT_INT, .def = "0", .min = 0, .max = INT64_MAX,
      .help = "TEST HOOK, not random: N>0 starts each ms at 2^80-N so ULID N+1 in a ms "
              "overflows; 0 = random start (the spec)" },
    { .name = "carry_after", .type = IDB_OPT_INT, .def = "0", .min = 0, .max = INT64_MAX,
      .help = "TEST HOOK, not random: N>0 starts each ms at 2^64-N so ULID N+1 in a ms "
              "carries into the high 16 random bits; 0 = random start (the spec)" },
    { .name = "state_file", .type = IDB_OPT_STR, .def = "",
      .help = "file where the time used is reserved ahead (fsync per second), so ULIDs "
              "keep increasing across restarts; empty = off" },
    { 0 },
};

static void ulid_fresh(const ulid *u, ulid_slot *sl);

/* With a state file at path (empty: none): lock and read it, and start at the ms after
 * what the last run reserved, with a fresh random part. Returns 0, IDB_EEXHAUSTED (no ms
 * left after it) or idb_statefile_open's errors. */
static int ulid_restore(ulid *u, const char *path, idb_err *err)
{
    int rc = path[0] ? idb_statefile_open(path, "ulid", &u->sf, err) : 0;
    if (rc || !u->sf || u->sf->reserved_ms == IDB_STATE_NONE) return rc;
    int64_t reserved = u->sf->reserved_ms;
    if ((uint64_t)reserved >= ULID_MS_MAX) {
        idb_statefile_close(u->sf);
        u->sf = NULL;
        return idb_fail(err, IDB_EEXHAUSTED, "the 48-bit ULID timestamp is used up (state_file "
                        "reserved up to %lld ms)", (long long)reserved);
    }
    u->slot[0].last_ms = u->sf->reserved_ms + 1;
    ulid_fresh(u, &u->slot[0]);
    return 0;
}

/* Make an instance on clock (kept by the caller), with its state file if any. Returns 0,
 * IDB_ENOMEM or ulid_restore's errors. */
static int ulid_create(const idb_opts *opts, idb_clock *clock, void **inst, idb_err *err)
{
    ulid *u = idb_slots_alloc(sizeof *u);
    if (!u) return idb_fail(err, IDB_ENOMEM, "out of memory");
    u->clock = clock;
    u->overflow_after = (uint64_t)idb_opts_int(opts, "overflow_after");
    u->carry_after = (uint64_t)idb_opts_int(opts, "carry_after");
    for (int i = 0; i < IDB_SLOTS; i++) u->slot[i].last_ms = -1;
    u->fork_gen = idb_fork_generation();
    int rc = ulid_restore(u, idb_opts_str(opts, "state_file"), err);
    u->one_slot = u->sf || u->overflow_after || u->carry_after;
    if (rc) { free(u); return rc; }
    *inst = u;
    return 0;
}

/* Free an instance: its state file records the last ms used and is unlocked. */
static void ulid_destroy(void *inst)
{
    ulid *u = inst;
    if (!u) return;
    idb_statefile_close(u->sf);
    free(u);
}

/* The random part for a new ms: 80 random bits, or 2^80 - N (2^64 - N) under the
 * overflow (carry) test hook. */
static void ulid_fresh(const ulid *u, ulid_slot *sl)
{
    if (u->carry_after) {
        sl->rhi = 0;
        sl->rlo = 0 - u->carry_after;         /* 2^64 - N */
        return;
    }
    if (u->overflow_after) {
        sl->rhi = ULID_HI_MAX;
        sl->rlo = 0 - u->overflow_after;      /* 2^64 - N: N <= 2^63, so no borrow */
        return;
    }
    sl->rlo = idb_random_u64();
    sl->rhi = idb_random_u64() & ULID_HI_MAX;
}

/* Write the next ULID into *id, greater than the thread's previous one (the instance's,
 * with state_file or a test hook) and different from every other thread's. Returns 0,
 * IDB_EINPUT (clock before 1970), IDB_EEXHAUSTED (random part overflowed within one
 * ms, or the 48-bit timestamp is used up), IDB_EIO (the state file could not be
 * written) or IDB_EFORK (a forked child). */
static int ulid_next(void *inst, idb_id *id, idb_err *err)
{
    ulid *u = inst;
    int rc = idb_fork_check(u->fork_gen, "ulid", err);
    if (rc) return rc;
    int64_t now = idb_clock_now_ms(u->clock);

    ulid_slot *sl = &u->slot[u->one_slot ? 0 : idb_slot()];
    idb_spin_lock(&sl->lock);
    if (now > sl->last_ms) {                 /* new ms: fresh randomness */
        if ((uint64_t)now > ULID_MS_MAX)     /* negative never gets here: last_ms >= -1 */
            rc = idb_fail(err, IDB_EEXHAUSTED, "the 48-bit ULID timestamp is used up");
        else if (!u->sf || (rc = idb_statefile_cover(u->sf, now, err)) == 0) {
            sl->last_ms = now;
            ulid_fresh(u, sl);
        }
    } else if (sl->last_ms < 0) {            /* first call, clock before 1970 */
        rc = idb_fail(err, IDB_EINPUT, "clock reads %lld ms, before 1970, which a ULID cannot "
                      "hold", (long long)now);
    } else if (sl->rhi == ULID_HI_MAX && sl->rlo == UINT64_MAX) {   /* same ms (or behind) */
        rc = idb_fail(err, IDB_EEXHAUSTED, "ULID random part overflowed within one millisecond");
    } else if (!u->sf || (rc = idb_statefile_cover(u->sf, sl->last_ms, err)) == 0) {
        if (++sl->rlo == 0) sl->rhi++;       /* +1 */
    }
    uint64_t hi = (uint64_t)sl->last_ms << 16 | sl->rhi, lo = sl->rlo;
    idb_spin_unlock(&sl->lock);
    if (rc) return rc;

    idb_put_be(id->b, hi, 8);
    idb_put_be(id->b + 8, lo, 8);
    id->len = 16;
    return 0;
}

/* 26 uppercase Crockford base32 characters of the 128-bit id into buf. */
static void ulid_format(const idb_id *id, char *buf)
{
    uint64_t hi = idb_get_be(id->b, 8), lo = idb_get_be(id->b + 8, 8);
    for (int i = 0; i < ULID_LEN; i++) {
        int shift = 5 * (ULID_LEN - 1 - i);  /* bit offset of this digit, 125 .. 0 */
        uint64_t d = shift >= 64 ? hi >> (shift - 64)
                   : shift == 0 ? lo : lo >> shift | hi << (64 - shift);
        buf[i] = ulid_alphabet[d & 31];
    }
    buf[ULID_LEN] = 0;
}

/* Value 0..31 of a Crockford base32 character (either case), or -1 (I, L, O, U and
 * anything else outside the alphabet). */
static int ulid_digit(char c)
{
    if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
    const char *p = c ? strchr(ulid_alphabet, c) : NULL;
    return p ? (int)(p - ulid_alphabet) : -1;
}

/* Strict parser: exactly 26 characters of the alphabet (either case), the first at most
 * '7'. Returns 0, or IDB_EINPUT saying what is wrong and where. */
static int ulid_parse(const char *text, idb_id *id, idb_err *err)
{
    char sb[IDB_SHOWN_MAX];
    size_t n = strlen(text);
    if (n != ULID_LEN)
        return idb_fail(err, IDB_EINPUT, "'%s' is not a ULID: expected 26 characters, got %zu",
                        idb_text_shown(text, sb), n);
    uint64_t hi = 0, lo = 0;
    for (int i = 0; i < ULID_LEN; i++) {
        int d = ulid_digit(text[i]);
        if (d < 0)
            return idb_fail(err, IDB_EINPUT, "'%s' is not a ULID: character %d is not "
                            "Crockford base32 (0-9, A-Z without I, L, O, U)",
                            idb_text_shown(text, sb), i + 1);
        if (i == 0 && d > 7)
            return idb_fail(err, IDB_EINPUT, "'%s' is not a ULID: it starts above '7', "
                            "which overflows 128 bits", idb_text_shown(text, sb));
        hi = hi << 5 | lo >> 59;
        lo = lo << 5 | (uint64_t)d;
    }
    idb_put_be(id->b, hi, 8);
    idb_put_be(id->b + 8, lo, 8);
    id->len = 16;
    return 0;
}

/* Emit timestamp_ms, time (ISO 8601 UTC with ms) and random (20 hex digits). Returns 0,
 * or IDB_EINPUT when id is not 16 bytes. */
static int ulid_decode(const idb_opts *opts, const idb_id *id, idb_emit_fn emit, void *ctx,
                       idb_err *err)
{
    (void)opts;
    if (id->len != 16)
        return idb_fail(err, IDB_EINPUT, "a ULID has 16 bytes, not %d", id->len);
    int64_t ms = (int64_t)idb_get_be(id->b, 6);
    idb_emit_int(emit, ctx, "timestamp_ms", ms);
    idb_emit_time(emit, ctx, "time", ms, 0);
    idb_emit_hex(emit, ctx, "random", id->b + 6, 10);
    return 0;
}

/* Text forms that round-trip (strategy.h: vectors; tests/test_parsers.c). */
static const idb_text_vector ulid_vectors[] = {
    { "01ARZ3NDEKTSV4RRFFQ69G5FAV", "01ARZ3NDEKTSV4RRFFQ69G5FAV" },
    { 0 },
};

const idb_strategy idb_strategy_ulid = {
    .version = IDB_STRATEGY_VERSION,
    .name = "ulid",
    .summary = "ULID: 48-bit Unix ms + 80 random bits (+1 within a ms), Crockford base32",
    .bits = 128,
    .time_ordered = 1,
    .coord = IDB_COORD_NONE,
    .cross_process = IDB_XPROC_ALWAYS,
    .fork = IDB_FORK_REFUSES,
    .options = ulid_options,
    .on_clock_back = IDB_CLOCK_BACK_CONTINUE,
    .vectors = ulid_vectors,
    .create = ulid_create,
    .next = ulid_next,
    .destroy = ulid_destroy,
    .format = ulid_format,
    .parse = ulid_parse,
    .decode = ulid_decode,
};
