/* autorandom.c — `autorandom`: TiDB's AUTO_RANDOM: S shard bits on top of an increasing
 * number, so a range-partitioned table takes new rows in 2^S places instead of one.
 *
 *   bit 63 62          63-S  62-S                                 0
 *      +--+---------------+------------------------------------------+
 *      |0 | shard: S bits | n: 63-S bits, the counter's 1, 2, 3 ...   |
 *      +--+---------------+------------------------------------------+
 *   S = shard_bits (default 5, TiDB's default; 1..15)
 *
 * n comes from the counter strategy's service (counter.c: the in-process atomic, or
 * backend=postgres|redis), so n is unique where the counter is and so is the ID, whatever
 * the shard bits. TiDB takes the shard bits from its transaction's start timestamp; here
 * `shard_from` says where they come from: `id` (default) draws them for every ID from the
 * CSPRNG (random.h), as one-row transactions each get their own; `instance` takes them once
 * at create from the clock's ms (splitmix64 of it), so one instance writes to one shard
 * range, as one long transaction does. Not time-ordered (the shard bits lead).
 *
 * Errors: the counter's (server errors; IDB_EFORK after fork: fork = IDB_FORK_REFUSES), and
 * IDB_EEXHAUSTED for an n past 63-S bits. parse() refuses 0 and values with bit 63 set
 * (it has no options, so it cannot check n against S).
 *
 * Options: the counter's (name, service, backend and the server's), and
 *   shard_bits  INT 1..15, default 5     S
 *   shard_from  ENUM id|instance         where the shard bits come from (see above)
 */
#include <stdlib.h>

#include "counter.h"
#include "random.h"
#include "strategy.h"

#define AR_SIGN_BIT 63

enum { AR_FROM_ID, AR_FROM_INSTANCE };

typedef struct autorandom {
    void *ctr;                  /* the counter's instance */
    int bits;                   /* S */
    int from;                   /* AR_FROM_* */
    uint64_t shard;             /* AR_FROM_INSTANCE: the instance's shard bits */
} autorandom;

static const idb_opt_decl autorandom_options[] = {
    IDB_COUNTER_OPTIONS
    { .name = "shard_bits", .type = IDB_OPT_INT, .def = "5", .min = 1, .max = 15,
      .help = "shard bits on top (TiDB AUTO_RANDOM's S; default 5: 32 places)" },
    { .name = "shard_from", .type = IDB_OPT_ENUM, .def = "id", .choices = "id|instance",
      .help = "id: random shard bits per ID; instance: fixed at create from the clock" },
    { 0 },
};

/* splitmix64's finaliser: a well-mixed 64-bit value from x. */
static uint64_t mix64(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* The counter's instance, S and the shard source. Returns 0, IDB_ENOMEM or the counter's. */
static int autorandom_create(const idb_opts *opts, idb_clock *clock, void **inst,
                             idb_err *err)
{
    autorandom *a = calloc(1, sizeof *a);
    if (!a) return idb_fail(err, IDB_ENOMEM, "out of memory");
    a->bits = (int)idb_opts_int(opts, "shard_bits");
    a->from = (int)idb_opts_int(opts, "shard_from");
    if (a->from == AR_FROM_INSTANCE)
        a->shard = mix64(clock ? (uint64_t)idb_clock_now_ms(clock) : 0) >> (64 - a->bits);
    int rc = idb_counter_create(opts, clock, &a->ctr, err);
    if (rc) {
        free(a);
        return rc;
    }
    *inst = a;
    return 0;
}

/* shard << (63-S) | n. Returns 0, the counter's error, or IDB_EEXHAUSTED. */
static int autorandom_next(void *inst, idb_id *id, idb_err *err)
{
    autorandom *a = inst;
    int rc = idb_counter_next_as(a->ctr, "autorandom", id, err);
    if (rc) return rc;
    int low = AR_SIGN_BIT - a->bits;
    uint64_t n = idb_id_u64(id);
    if (n >> low)
        return idb_fail(err, IDB_EEXHAUSTED, "autorandom: counter value %llu is past %d bits",
                        (unsigned long long)n, low);
    uint64_t shard = a->from == AR_FROM_ID ? idb_random_u64() >> (64 - a->bits) : a->shard;
    idb_id_set_u64(id, shard << low | n);
    return 0;
}

static void autorandom_destroy(void *inst)
{
    autorandom *a = inst;
    if (a) idb_counter_destroy(a->ctr);
    free(a);
}

/* Decimal; refuses 0 and values with bit 63 set (never made). */
static int autorandom_parse(const char *text, idb_id *id, idb_err *err)
{
    int rc = idb_text_u64_parse(text, id, err);
    if (rc) return rc;
    uint64_t v = idb_id_u64(id);
    if (v == 0 || v >> AR_SIGN_BIT)
        return idb_fail(err, IDB_EINPUT, "autorandom: '%s' is not a positive 63-bit number",
                        text);
    return 0;
}

/* Emit shard and counter, split at the options' S (5 without options). */
static int autorandom_decode(const idb_opts *opts, const idb_id *id, idb_emit_fn emit,
                             void *ctx, idb_err *err)
{
    (void)err;
    int low = AR_SIGN_BIT - (opts ? (int)idb_opts_int(opts, "shard_bits") : 5);
    uint64_t v = idb_id_u64(id);
    idb_emit_uint(emit, ctx, "shard", v >> low);
    idb_emit_uint(emit, ctx, "counter", v & ((UINT64_C(1) << low) - 1));
    return 0;
}

/* Text forms that round-trip: shard 0 and 31 with n = 1 (S = 5), and the largest. */
static const idb_text_vector autorandom_vectors[] = {
    { "1", "1" },
    { "8935141660703064065", "8935141660703064065" },   /* 31 << 58 | 1 */
    { "9223372036854775807", "9223372036854775807" },
    { 0 },
};

const idb_strategy idb_strategy_autorandom = {
    .version = IDB_STRATEGY_VERSION,
    .name = "autorandom",
    .summary = "TiDB AUTO_RANDOM: 5 random shard bits on top of the counter's number",
    .bits = 64,
    .time_ordered = 0,
    .value_bits = 63,
    .uniform_bits = 5,               /* shard_bits' default: 32 places */
    .coord = IDB_COORD_PER_ID,
    .cross_process = IDB_XPROC_NONE,
    .fork = IDB_FORK_REFUSES,
    .options = autorandom_options,
    .on_clock_back = IDB_CLOCK_UNUSED,
    .vectors = autorandom_vectors,
    .create = autorandom_create,
    .next = autorandom_next,
    .destroy = autorandom_destroy,
    .format = idb_text_u64_format,
    .parse = autorandom_parse,
    .decode = autorandom_decode,
};
