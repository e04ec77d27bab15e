/* bitrev.c — `bitrev`: Spanner's bit-reversed positive sequence: the central counter's
 * numbers with their 63 low bits reversed, so consecutive numbers land far apart.
 *
 *   bit 63 62                                                   0
 *      +--+-----------------------------------------------------+
 *      |0 |  n's bits 0..62 in reverse order (bit i -> bit 62-i) |
 *      +--+-----------------------------------------------------+
 *   n = 1, 2, 3, 4 ...  ->  2^62, 2^61, 2^62 + 2^61, 2^60 ...
 *
 * The numbers come from the counter strategy's service (counter.c: the in-process atomic,
 * or backend=postgres|redis, a round trip per ID), so bitrev is unique exactly where the
 * counter is, and spreads writes over a range-partitioned key space: numbers 1..2^k fill
 * the k top bits' 2^k ranges one each (Spanner's `bit_reversed_positive` sequences, for
 * the same reason). Reversal is a bijection on 63 bits, so nothing is lost and the text
 * form decodes back to the counter's number; IDs are not time-ordered (time_ordered = 0).
 *
 * Errors: the counter's (server errors, IDB_EFORK after fork: fork = IDB_FORK_REFUSES), and
 * IDB_EEXHAUSTED for a number past 63 bits. parse() refuses what next() cannot make: 0 and
 * values with bit 63 set.
 *
 * Options: the counter's (name, service, backend and the server's: counter.c).
 */
#include <stdlib.h>

#include "counter.h"
#include "strategy.h"

#define BITREV_BITS 63
#define BITREV_MASK ((UINT64_C(1) << BITREV_BITS) - 1)

/* v's bits 0..62 reversed (bit i to bit 62-i); bit 63 of the result is 0. Its own inverse
 * on values below 2^63. All 64 bits reversed in five mask-and-swap steps and a byte swap
 * (no loop per bit: it runs for every ID), then shifted down by one. */
static uint64_t reverse63(uint64_t v)
{
    v = (v >> 1 & UINT64_C(0x5555555555555555)) | (v & UINT64_C(0x5555555555555555)) << 1;
    v = (v >> 2 & UINT64_C(0x3333333333333333)) | (v & UINT64_C(0x3333333333333333)) << 2;
    v = (v >> 4 & UINT64_C(0x0f0f0f0f0f0f0f0f)) | (v & UINT64_C(0x0f0f0f0f0f0f0f0f)) << 4;
    return __builtin_bswap64(v) >> (64 - BITREV_BITS);
}

/* The counter's next number, reversed. Returns 0, the counter's error, or IDB_EEXHAUSTED. */
static int bitrev_next(void *inst, idb_id *id, idb_err *err)
{
    int rc = idb_counter_next_as(inst, "bitrev", id, err);
    if (rc) return rc;
    uint64_t n = idb_id_u64(id);
    if (n > BITREV_MASK)
        return idb_fail(err, IDB_EEXHAUSTED, "bitrev: counter value %llu is past 63 bits",
                        (unsigned long long)n);
    idb_id_set_u64(id, reverse63(n));
    return 0;
}

/* Decimal; refuses 0 and values with bit 63 set (never made). */
static int bitrev_parse(const char *text, idb_id *id, idb_err *err)
{
    int rc = idb_text_u64_parse(text, id, err);
    if (rc) return rc;
    uint64_t v = idb_id_u64(id);
    if (v == 0 || v > BITREV_MASK)
        return idb_fail(err, IDB_EINPUT, "bitrev: '%s' is not a bit-reversed positive "
                        "number (1 .. 2^63-1)", text);
    return 0;
}

/* Emit the counter's number (the reversal undone). */
static int bitrev_decode(const idb_opts *opts, const idb_id *id, idb_emit_fn emit, void *ctx,
                         idb_err *err)
{
    (void)opts; (void)err;
    idb_emit_uint(emit, ctx, "counter", reverse63(idb_id_u64(id)));
    return 0;
}

/* Text forms that round-trip: counter numbers 1, 2, 3 and 2^63-1 reversed (strategy.h). */
static const idb_text_vector bitrev_vectors[] = {
    { "4611686018427387904", "4611686018427387904" },   /* n = 1: 2^62 */
    { "2305843009213693952", "2305843009213693952" },   /* n = 2: 2^61 */
    { "6917529027641081856", "6917529027641081856" },   /* n = 3: 2^62 + 2^61 */
    { "9223372036854775807", "9223372036854775807" },   /* n = 2^63-1: all 63 bits */
    { 0 },
};

const idb_strategy idb_strategy_bitrev = {
    .version = IDB_STRATEGY_VERSION,
    .name = "bitrev",
    .summary = "bit-reversed counter (Spanner bit_reversed_positive): 63 low bits reversed",
    .bits = 64,
    .time_ordered = 0,
    .value_bits = 63,
    .uniform_bits = 63,
    .coord = IDB_COORD_PER_ID,
    .cross_process = IDB_XPROC_NONE,
    .fork = IDB_FORK_REFUSES,
    .on_clock_back = IDB_CLOCK_UNUSED,
    .options = idb_counter_options,
    .vectors = bitrev_vectors,
    .create = idb_counter_create,
    .next = bitrev_next,
    .destroy = idb_counter_destroy,
    .format = idb_text_u64_format,
    .parse = bitrev_parse,
    .decode = bitrev_decode,
};
