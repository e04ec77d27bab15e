/* test_sonyflake.c — sonyflake on a manual clock: the bit layout (time in 10 ms ticks since
 * epoch_ms | 8-bit sequence | 16-bit worker), the sequence's 256 IDs per tick and the wait
 * for the next tick, a clock stepped back (it goes on in its last tick, then waits), a
 * frozen clock refused, decode, and its option limits. The registry-wide tests (uniqueness,
 * fork, parsers, the simulator's step and burst) cover it through its declarations.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "strategy.h"

#define EPOCH_MS 1409529600000LL                /* sonyflake's default: 2014-09-01 UTC */
#define MS 1000000LL

static const idb_strategy *sony(void)
{
    const idb_strategy *s = idb_strategy_find("sonyflake");
    assert_non_null(s);
    return s;
}

/* An instance with worker w on c, a manual clock at start_ms. */
static void *on(idb_clock *c, int64_t start_ms, const char *worker)
{
    idb_clock_manual_init(c, start_ms * MS);
    void *inst = NULL;
    idb_err err = { 0 };
    const char *kv[] = { worker };
    if (idb_strategy_create_kv(sony(), kv, worker ? 1 : 0, c, &inst, &err) != 0)
        fail_msg("sonyflake create: %s", err.msg);
    return inst;
}

static uint64_t next_u64(void *inst)
{
    idb_id id;
    idb_err err = { 0 };
    if (sony()->next(inst, &id, &err) != 0) fail_msg("sonyflake next: %s", err.msg);
    assert_int_equal(id.len, 8);
    return idb_id_u64(&id);
}

/* 1,234 ms after the epoch is tick 123; worker 7 in the low 16 bits; sequence 0, then 1. */
static void test_layout(void **state)
{
    (void)state;
    idb_clock c;
    void *inst = on(&c, EPOCH_MS + 1234, "worker=7");
    assert_int_equal(next_u64(inst), (123ULL << 24) | 7);
    assert_int_equal(next_u64(inst), (123ULL << 24) | (1ULL << 16) | 7);
    idb_clock_advance_ns(&c, 10 * MS);                  /* the next tick: sequence 0 again */
    assert_int_equal(next_u64(inst), (124ULL << 24) | 7);
    sony()->destroy(inst);
}

/* 256 IDs in one tick, then the 257th waits for the next tick (the manual clock moves). */
static void test_sequence_wraps_to_next_tick(void **state)
{
    (void)state;
    idb_clock c;
    void *inst = on(&c, EPOCH_MS + 5000, NULL);
    for (uint64_t q = 0; q < 256; q++) assert_int_equal(next_u64(inst), (500ULL << 24) | q << 16);
    assert_int_equal(next_u64(inst), 501ULL << 24);
    assert_true(idb_clock_now_ms(&c) >= EPOCH_MS + 5010);   /* it waited for tick 501 */
    sony()->destroy(inst);
}

/* A clock stepped back 200 ms: IDs go on in the last tick (still increasing), and once its
 * sequence is used up the next one waits for the clock to reach the following tick. With the
 * clock frozen, that wait cannot happen: IDB_ECLOCK. */
static void test_clock_back(void **state)
{
    (void)state;
    idb_clock c;
    void *inst = on(&c, EPOCH_MS + 10000, NULL);
    uint64_t last = next_u64(inst);
    idb_clock_set_ns(&c, (EPOCH_MS + 9800) * MS);
    for (int i = 0; i < 255; i++) {
        uint64_t v = next_u64(inst);
        assert_true(v > last);
        assert_int_equal(v >> 24, 1000);                /* still tick 1000 */
        last = v;
    }
    idb_clock_freeze(&c, 1);
    idb_id id;
    idb_err err = { 0 };
    assert_int_equal(sony()->next(inst, &id, &err), IDB_ECLOCK);
    idb_clock_freeze(&c, 0);
    assert_int_equal(next_u64(inst), 1001ULL << 24);    /* waited 210 ms for tick 1001 */
    assert_true(idb_clock_now_ms(&c) >= EPOCH_MS + 10010);
    sony()->destroy(inst);
}

/* decode()'s emit: "key=value;" appended to the string ctx. */
static void append(void *ctx, const char *key, const char *value)
{
    size_t n = strlen(ctx);
    snprintf((char *)ctx + n, 256 - n, "%s=%s;", key, value);
}

/* decode: tick * 10 ms + epoch, sequence, worker; options checked. */
static void test_decode_and_options(void **state)
{
    (void)state;
    const idb_strategy *s = sony();
    idb_id id;
    idb_err err = { 0 };
    char got[256] = "";
    assert_int_equal(s->parse("2071724155", &id, &err), 0);   /* tick 123, seq 124, w 123 */
    assert_int_equal(idb_id_u64(&id), (123ULL << 24) | (124ULL << 16) | 123);
    assert_int_equal(s->decode(NULL, &id, append, got, &err), 0);
    assert_string_equal(got, "timestamp_ms=1409529601230;time=2014-09-01T00:00:01.230Z;"
                             "sequence=124;worker=123;");
    assert_int_equal(s->parse("9223372036854775808", &id, &err), IDB_EINPUT);   /* top bit */
    void *inst = NULL;
    const char *bad[][1] = { { "worker=65536" }, { "worker=-1" }, { "epoch_ms=99999999999999" } };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        idb_clock c;
        idb_clock_manual_init(&c, (EPOCH_MS + 1) * MS);
        if (idb_strategy_create_kv(s, bad[i], 1, &c, &inst, &err) != IDB_EINPUT)
            fail_msg("sonyflake %s: not refused", bad[i][0]);
    }
    assert_true(s->max_ids_per_s == 25600);             /* 256 per 10 ms tick */
    assert_int_equal(s->on_clock_back, IDB_CLOCK_BACK_WAIT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_sequence_wraps_to_next_tick),
        cmocka_unit_test(test_clock_back),
        cmocka_unit_test(test_decode_and_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
