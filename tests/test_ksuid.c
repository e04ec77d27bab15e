/* test_ksuid.c — ksuid: the README's vector, the largest value and one above it, decode,
 * generation from a manual clock (the timestamp is the clock's second since the KSUID
 * epoch, never decreasing; later seconds sort after earlier ones), the limits of the
 * timestamp (before the epoch: IDB_EINPUT; past 2^32 - 1 s: IDB_EEXHAUSTED), and a payload
 * that comes from random.h. Malformed strings: the KSUID tables in test_parsers.c;
 * uniqueness from two threads: test_uniqueness.c (every strategy of the registry).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "random.h"
#include "strategy.h"
#include "decode_test.h"

#define EPOCH_S 1400000000LL                 /* 2014-05-13T16:53:20Z */
#define NS 1000000000LL
#define README "0ujtsYcgvSTl8PAuAdqWYSMnLOv"
#define LARGEST "aWgEPTl1tmebfsQzFP4bxwgy80V"

/* The ksuid strategy. */
static const idb_strategy *S(void)
{
    const idb_strategy *s = idb_strategy_find("ksuid");
    if (!s) fail_msg("no strategy ksuid in the registry");
    return s;
}

/* Parse text and decode it into f; assert success. Returns the ID. */
static idb_id decode_text(const char *text, fields *f)
{
    idb_id id;
    idb_err err = { 0 };
    memset(f, 0, sizeof *f);
    if (S()->parse(text, &id, &err) != 0) fail_msg("%s: %s", text, err.msg);
    assert_int_equal(S()->decode(NULL, &id, collect_fields, f, &err), 0);
    return id;
}

/* A ksuid instance on clock. */
static void *make(idb_clock *clock)
{
    void *inst = NULL;
    idb_err err = { 0 };
    assert_int_equal(idb_strategy_create_kv(S(), NULL, 0, clock, &inst, &err), 0);
    return inst;
}

/* The 32-bit timestamp of a KSUID. */
static int64_t ts_of(const idb_id *id) { return (int64_t)idb_get_be(id->b, 4); }

TEST(test_readme_vector)
{
    const uint8_t raw[20] = { 0x06, 0x69, 0xF7, 0xEF, 0xB5, 0xA1, 0xCD, 0x34, 0xB5, 0xF9,
                              0x9D, 0x11, 0x54, 0xFB, 0x68, 0x53, 0x34, 0x5C, 0x97, 0x35 };
    fields f;
    char text[IDB_TEXT_MAX];
    idb_id id = decode_text(README, &f);
    assert_int_equal(id.len, 20);
    assert_memory_equal(id.b, raw, 20);
    assert_int_equal(f.n, 3);
    assert_string_equal(field(&f, "timestamp"), "107608047");
    assert_string_equal(field(&f, "time"), "2017-10-10T04:00:47Z");
    assert_string_equal(field(&f, "payload"), "b5a1cd34b5f99d1154fb6853345c9735");
    S()->format(&id, text);
    assert_string_equal(text, README);
}

TEST(test_largest_and_above)
{
    fields f;
    char text[IDB_TEXT_MAX];
    idb_id id = decode_text(LARGEST, &f);
    assert_int_equal(id.len, 20);
    for (int i = 0; i < 20; i++) assert_int_equal(id.b[i], 0xFF);
    assert_string_equal(field(&f, "timestamp"), "4294967295");
    assert_string_equal(field(&f, "time"), "2150-06-19T23:21:35Z");
    S()->format(&id, text);
    assert_string_equal(text, LARGEST);
    idb_err err = { 0 };
    assert_int_equal(S()->parse("aWgEPTl1tmebfsQzFP4bxwgy80W", &id, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "above the largest"));
    id = decode_text("000000000000000000000000000", &f);
    for (int i = 0; i < 20; i++) assert_int_equal(id.b[i], 0);
    assert_string_equal(field(&f, "time"), "2014-05-13T16:53:20Z");
}

TEST(test_parser_messages)
{
    idb_id id;
    idb_err err = { 0 };
    assert_int_equal(S()->parse("0ujtsYcgvSTl8PAuAdqWYSMnLO", &id, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "expected 27 characters, got 26"));
    assert_int_equal(S()->parse("0ujtsYcgvSTl8PAuAdqWYSMnLO-", &id, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "character 27 is not base62"));
}

TEST(test_decode_refuses_other_widths)
{
    idb_id id = { .len = 16 };
    idb_err err = { 0 };
    fields f = { 0 };
    assert_int_equal(S()->decode(NULL, &id, collect_fields, &f, &err), IDB_EINPUT);
    assert_int_equal(f.n, 0);
}

/* From a manual clock moving forward by uneven steps: the timestamp is the clock's second
 * minus the epoch, never decreasing, and an ID of a later second sorts after every ID of
 * an earlier one; each ID formats to 27 characters and parses back to itself. */
TEST(test_seconds_from_manual_clock)
{
    idb_clock c;
    int64_t start = (EPOCH_S + 107608047) * NS + NS - 1;    /* the README's second, last ns */
    idb_clock_manual_init(&c, start);
    void *inst = make(&c);
    idb_id prev = { 0 }, id, back;
    idb_err err = { 0 };
    char text[IDB_TEXT_MAX];
    for (int i = 0; i < 2000; i++) {
        assert_int_equal(S()->next(inst, &id, &err), 0);
        int64_t now_s = idb_clock_now_ns(&c) / NS;
        assert_int_equal(id.len, 20);
        assert_int_equal(ts_of(&id), now_s - EPOCH_S);
        if (i > 0) {
            assert_true(ts_of(&id) >= ts_of(&prev));
            if (ts_of(&id) > ts_of(&prev)) assert_true(idb_id_cmp(&prev, &id) < 0);
        }
        S()->format(&id, text);
        assert_int_equal(strlen(text), 27);
        assert_int_equal(S()->parse(text, &back, &err), 0);
        assert_memory_equal(back.b, id.b, 20);
        prev = id;
        idb_clock_advance_ns(&c, (int64_t)(i % 7) * 123456789);
    }
    assert_true(ts_of(&prev) - 107608047 > 100);             /* the clock went on */
    S()->destroy(inst);
}

/* The first and last seconds a KSUID can hold, and one outside on each side. */
TEST(test_timestamp_limits)
{
    idb_clock c;
    idb_id id;
    idb_err err = { 0 };
    idb_clock_manual_init(&c, EPOCH_S * NS);
    void *inst = make(&c);
    assert_int_equal(S()->next(inst, &id, &err), 0);
    assert_int_equal(ts_of(&id), 0);
    idb_clock_set_ns(&c, EPOCH_S * NS - 1);
    assert_int_equal(S()->next(inst, &id, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "before the KSUID epoch"));
    idb_clock_set_ns(&c, -5 * NS);                            /* before 1970 too */
    assert_int_equal(S()->next(inst, &id, &err), IDB_EINPUT);
    idb_clock_set_ns(&c, (EPOCH_S + 0xFFFFFFFFLL) * NS + NS - 1);
    assert_int_equal(S()->next(inst, &id, &err), 0);
    assert_int_equal(ts_of(&id), 0xFFFFFFFFLL);
    idb_clock_set_ns(&c, (EPOCH_S + 0x100000000LL) * NS);
    assert_int_equal(S()->next(inst, &id, &err), IDB_EEXHAUSTED);
    assert_non_null(strstr(err.msg, "used up"));
    S()->destroy(inst);
}

/* The payload is 16 bytes of random.h's stream: the same seed gives the same KSUIDs; two
 * KSUIDs of one second share the timestamp and differ in the payload. */
TEST(test_payload_from_random_module)
{
    idb_clock c;
    idb_clock_manual_init(&c, (EPOCH_S + 5) * NS);
    void *inst = make(&c);
    idb_id a, b, a2;
    idb_err err = { 0 };
    uint8_t want[16];
    idb_random_seed(42);
    idb_random_bytes(want, sizeof want);
    idb_random_seed(42);
    assert_int_equal(S()->next(inst, &a, &err), 0);
    assert_memory_equal(a.b + 4, want, 16);
    assert_int_equal(S()->next(inst, &b, &err), 0);
    assert_memory_equal(a.b, b.b, 4);
    assert_memory_not_equal(a.b + 4, b.b + 4, 16);
    idb_random_seed(42);
    assert_int_equal(S()->next(inst, &a2, &err), 0);
    assert_memory_equal(a.b, a2.b, 20);
    S()->destroy(inst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_readme_vector),
        cmocka_unit_test(test_largest_and_above),
        cmocka_unit_test(test_parser_messages),
        cmocka_unit_test(test_decode_refuses_other_widths),
        cmocka_unit_test(test_seconds_from_manual_clock),
        cmocka_unit_test(test_timestamp_limits),
        cmocka_unit_test(test_payload_from_random_module),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
