/* ksuid.c — `ksuid`: segmentio's K-Sortable Unique IDentifier (github.com/segmentio/ksuid),
 * 160 bits = 20 bytes.
 *
 *   byte  0             4                                                  20
 *   bit   0             32                                                 160
 *        +-------------+---------------------------------------------------+
 *        |  timestamp  |                      payload                      |
 *        |  32 bits BE |  128 random bits, drawn fresh for every KSUID     |
 *        +-------------+---------------------------------------------------+
 *   Text: always 27 characters of base62 (0-9, A-Z, a-z, in that order), most significant
 *   first, left-padded with '0'. 62^27 > 2^160, so not every string is a KSUID: the largest
 *   is aWgEPTl1tmebfsQzFP4bxwgy80V (20 bytes of 0xFF); anything above it is refused.
 *
 * timestamp: Unix seconds minus the KSUID epoch 1400000000 (2014-05-13T16:53:20Z),
 *   unsigned, so it lasts until 2150-06-19T23:21:35Z. Big-endian, so memcmp order follows
 *   time to the second; within one second the order is random (as segmentio's New():
 *   nothing is monotonic, and there is no state, lock or counter to keep).
 * payload: 16 bytes from random.h (idb_random_bytes), which re-seeds in a forked child.
 * Errors of next(), from the clock it is given:
 *   - before the KSUID epoch: IDB_EINPUT. The format cannot hold that time, and waiting
 *     would not help (IDB_ECLOCK means "behind the last timestamp used, wait behind_ms",
 *     which the simulator would honour for decades); objectid and ulid do the same
 *     before 1970.
 *   - 2^32 seconds or more after the epoch: IDB_EEXHAUSTED (the timestamp is used up).
 *
 * What it promises: unique across threads, processes and restarts with no coordination,
 * by 128 random bits (cross_process = IDB_XPROC_ALWAYS); ordered only by the second.
 *
 * Options: none.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "random.h"
#include "strategy.h"

#define KSUID_BYTES 20
#define KSUID_TS_BYTES 4
#define KSUID_PAYLOAD_BYTES (KSUID_BYTES - KSUID_TS_BYTES)
#define KSUID_LEN 27                          /* base62 characters */
#define KSUID_EPOCH_S 1400000000LL            /* 2014-05-13T16:53:20Z */
#define KSUID_TS_MAX 0xFFFFFFFFLL
#define KSUID_WORDS (KSUID_BYTES / 4)         /* 32-bit words, most significant first */
#define NS_PER_S 1000000000LL
#define BASE 62

static const char ksuid_alphabet[] =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

typedef struct ksuid {
    idb_clock *clock;           /* all an instance keeps: the caller's clock */
} ksuid;

/* Make an instance on clock (kept by the caller). Returns 0 or IDB_ENOMEM. */
static int ksuid_create(const idb_opts *opts, idb_clock *clock, void **inst, idb_err *err)
{
    (void)opts;
    ksuid *k = malloc(sizeof *k);
    if (!k) return idb_fail(err, IDB_ENOMEM, "out of memory");
    k->clock = clock;
    *inst = k;
    return 0;
}

/* Write a KSUID for the clock's current second. Returns 0, IDB_EINPUT (clock before the
 * KSUID epoch) or IDB_EEXHAUSTED (2^32 s or more after it). */
static int ksuid_next(void *inst, idb_id *id, idb_err *err)
{
    int64_t ns = idb_clock_now_ns(((ksuid *)inst)->clock);
    int64_t s = ns >= 0 ? ns / NS_PER_S : -((-ns + NS_PER_S - 1) / NS_PER_S);   /* floor */
    int64_t ts = s - KSUID_EPOCH_S;
    if (ts < 0)
        return idb_fail(err, IDB_EINPUT, "clock reads %lld s, before the KSUID epoch "
                        "1400000000 (2014-05-13T16:53:20Z), which a KSUID cannot hold",
                        (long long)s);
    if (ts > KSUID_TS_MAX)
        return idb_fail(err, IDB_EEXHAUSTED, "the 32-bit KSUID timestamp is used up (%lld s "
                        "is after 2150-06-19T23:21:35Z)", (long long)s);
    idb_put_be(id->b, (uint64_t)ts, KSUID_TS_BYTES);
    idb_random_bytes(id->b + KSUID_TS_BYTES, KSUID_PAYLOAD_BYTES);
    id->len = KSUID_BYTES;
    return 0;
}

/* 27 base62 characters of the 20-byte id into buf: long division of the 160-bit value by
 * 62, held as five 32-bit words, one digit per pass, least significant first. */
static void ksuid_format(const idb_id *id, char *buf)
{
    uint32_t w[KSUID_WORDS];
    for (int i = 0; i < KSUID_WORDS; i++) w[i] = (uint32_t)idb_get_be(id->b + 4 * i, 4);
    for (int pos = KSUID_LEN - 1; pos >= 0; pos--) {
        uint64_t rem = 0;
        for (int i = 0; i < KSUID_WORDS; i++) {
            uint64_t cur = rem << 32 | w[i];
            w[i] = (uint32_t)(cur / BASE);
            rem = cur % BASE;
        }
        buf[pos] = ksuid_alphabet[rem];
    }
    buf[KSUID_LEN] = 0;
}

/* Value 0..61 of a base62 character, or -1. */
static int ksuid_digit(char c)
{
    const char *p = c ? strchr(ksuid_alphabet, c) : NULL;
    return p ? (int)(p - ksuid_alphabet) : -1;
}

/* Strict parser: exactly 27 base62 characters whose value fits in 160 bits. Returns 0, or
 * IDB_EINPUT saying what is wrong (and where). */
static int ksuid_parse(const char *text, idb_id *id, idb_err *err)
{
    char sb[IDB_SHOWN_MAX];
    size_t n = strlen(text);
    if (n != KSUID_LEN)
        return idb_fail(err, IDB_EINPUT, "'%s' is not a KSUID: expected 27 characters, got %zu",
                        idb_text_shown(text, sb), n);
    uint32_t w[KSUID_WORDS] = { 0 };
    for (int pos = 0; pos < KSUID_LEN; pos++) {
        int d = ksuid_digit(text[pos]);
        if (d < 0)
            return idb_fail(err, IDB_EINPUT, "'%s' is not a KSUID: character %d is not base62 "
                            "(0-9, A-Z, a-z)", idb_text_shown(text, sb), pos + 1);
        uint64_t carry = (uint64_t)d;         /* w = w * 62 + d, least significant word first */
        for (int i = KSUID_WORDS - 1; i >= 0; i--) {
            uint64_t cur = (uint64_t)w[i] * BASE + carry;
            w[i] = (uint32_t)cur;
            carry = cur >> 32;
        }
        if (carry)
            return idb_fail(err, IDB_EINPUT, "'%s' is not a KSUID: its value is above the "
                            "largest, aWgEPTl1tmebfsQzFP4bxwgy80V (2^160 - 1)",
                            idb_text_shown(text, sb));
    }
    for (int i = 0; i < KSUID_WORDS; i++) idb_put_be(id->b + 4 * i, w[i], 4);
    id->len = KSUID_BYTES;
    return 0;
}

/* Emit timestamp (seconds since the KSUID epoch, as segmentio's `ksuid -f inspect`), time
 * (ISO 8601 UTC, to the second) and payload (32 hex digits). Returns 0, or IDB_EINPUT when
 * id is not 20 bytes (every 20-byte value is a KSUID). */
static int ksuid_decode(const idb_opts *opts, const idb_id *id, idb_emit_fn emit, void *ctx,
                        idb_err *err)
{
    (void)opts;
    if (id->len != KSUID_BYTES)
        return idb_fail(err, IDB_EINPUT, "a KSUID has 20 bytes, not %d", id->len);
    int64_t ts = (int64_t)idb_get_be(id->b, KSUID_TS_BYTES);
    idb_emit_uint(emit, ctx, "timestamp", (uint64_t)ts);
    idb_emit_time(emit, ctx, "time", (ts + KSUID_EPOCH_S) * 1000, 1);
    idb_emit_hex(emit, ctx, "payload", id->b + KSUID_TS_BYTES, KSUID_PAYLOAD_BYTES);
    return 0;
}

/* Text forms that round-trip (strategy.h: vectors; tests/test_parsers.c). */
static const idb_text_vector ksuid_vectors[] = {
    { "0ujtsYcgvSTl8PAuAdqWYSMnLOv", "0ujtsYcgvSTl8PAuAdqWYSMnLOv" },
    { 0 },
};

const idb_strategy idb_strategy_ksuid = {
    .version = IDB_STRATEGY_VERSION,
    .name = "ksuid",
    .summary = "KSUID (segmentio): 32-bit seconds since 2014-05-13 | 128 random bits, base62",
    .bits = KSUID_BYTES * 8,
    .time_ordered = 1,
    .coord = IDB_COORD_NONE,
    .cross_process = IDB_XPROC_ALWAYS,
    .fork = IDB_FORK_SAFE,
    .options = NULL,
    .on_clock_back = IDB_CLOCK_BACK_CONTINUE,
    .vectors = ksuid_vectors,
    .create = ksuid_create,
    .next = ksuid_next,
    .destroy = free,
    .format = ksuid_format,
    .parse = ksuid_parse,
    .decode = ksuid_decode,
};
