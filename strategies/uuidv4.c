/* uuidv4.c — `uuidv4`: RFC 9562 §5.4 random UUIDs, 122 random bits.
 *
 *   octet  0      4      6      8      10                    15
 *   bit    0      32     48 52  64 66                         127
 *         +-------------+--+---+--+--------------------------+
 *         |  random_a   |v |ra |va|         random_c          |
 *         |   48 bits   |4 |12 |10|          62 bits          |
 *         +-------------+--+---+--+--------------------------+
 *   v  = version 0b0100 (high nibble of octet 6)
 *   va = variant 0b10 (top two bits of octet 8)
 *
 * No state and no coordination: all 128 bits come from the shared CSPRNG (random.h, one
 * per thread, so every call is thread-safe), then version and variant are overwritten.
 * Not time-ordered. Text form: lowercase 8-4-4-4-12; parse takes any case and checks that
 * the version is 4 and the variant 0b10.
 *
 * What it promises: unique across threads, processes and restarts with no coordination,
 * by 122 random bits (cross_process = IDB_XPROC_ALWAYS); no order at all.
 * After fork (fork = IDB_FORK_SAFE): every ID's random bits are drawn at next() from
 * random.h, whose per-thread stream is dropped in a forked child and re-keyed from the OS,
 * so the child's IDs are as independent of the parent's as another process's.
 */
#include <stdio.h>
#include <string.h>

#include "random.h"
#include "strategy.h"

/* Instances carry no state; every one is this address. */
static const char uuidv4_instance;

/* Make an instance: there is nothing to set up, so it always succeeds. */
static int uuidv4_create(const idb_opts *opts, idb_clock *clock, void **inst, idb_err *err)
{
    (void)opts; (void)clock; (void)err;
    *inst = (void *)&uuidv4_instance;
    return 0;
}

/* Nothing to free. */
static void uuidv4_destroy(void *inst)
{
    (void)inst;
}

/* Fill *id with 16 random bytes, then set version 4 and variant 0b10. Never fails. */
static int uuidv4_next(void *inst, idb_id *id, idb_err *err)
{
    (void)inst; (void)err;
    idb_random_bytes16(id->b);
    id->b[6] = (uint8_t)((id->b[6] & 0x0F) | 0x40);
    id->b[8] = (uint8_t)((id->b[8] & 0x3F) | 0x80);
    id->len = 16;
    return 0;
}

/* Parse 8-4-4-4-12 hex (any case) and check version 4 and variant 0b10. */
static int uuidv4_parse(const char *text, idb_id *id, idb_err *err)
{
    int rc = idb_text_uuid_parse(text, id, err);
    return rc ? rc : idb_uuid_check(id, text, 4, err);
}

/* Emit version, variant (as the 2-bit binary string "10") and random_bits. */
static int uuidv4_decode(const idb_opts *opts, const idb_id *id, idb_emit_fn emit, void *ctx,
                         idb_err *err)
{
    (void)opts;
    int rc = idb_uuid_check(id, NULL, 4, err);
    if (rc) return rc;
    idb_emit_int(emit, ctx, "version", 4);
    emit(ctx, "variant", "10");
    idb_emit_int(emit, ctx, "random_bits", 122);
    return 0;
}

/* Text forms that round-trip (strategy.h: vectors; tests/test_parsers.c). */
static const idb_text_vector uuidv4_vectors[] = {
    { "f47ac10b-58cc-4372-a567-0e02b2c3d479", "f47ac10b-58cc-4372-a567-0e02b2c3d479" },
    { "919108F7-52D1-4320-9BAC-F847DB4148A8", "919108f7-52d1-4320-9bac-f847db4148a8" },
    { 0 },
};

const idb_strategy idb_strategy_uuidv4 = {
    .version = IDB_STRATEGY_VERSION,
    .name = "uuidv4",
    .summary = "RFC 9562 UUIDv4: 122 random bits, no coordination, no order",
    .bits = 128,
    .time_ordered = 0,
    .uniform_bits = 48,              /* random up to the version nibble */
    .coord = IDB_COORD_NONE,
    .cross_process = IDB_XPROC_ALWAYS,
    .fork = IDB_FORK_SAFE,
    .options = NULL,
    .on_clock_back = IDB_CLOCK_UNUSED,
    .vectors = uuidv4_vectors,
    .create = uuidv4_create,
    .next = uuidv4_next,
    .destroy = uuidv4_destroy,
    .format = idb_text_uuid_format,
    .parse = uuidv4_parse,
    .decode = uuidv4_decode,
};
