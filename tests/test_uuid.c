/* test_uuid.c — uuidv4 and uuidv7: RFC 9562 vectors, version/variant bits, strict parsing,
 * and UUIDv7 monotonicity (one ms, clock step back, counter overflow, two threads).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strategy.h"
#include "decode_test.h"

#define V4 idb_strategy_find("uuidv4")
#define V7 idb_strategy_find("uuidv7")
#define T0_NS 1645557742000000000LL      /* 2022-02-22T19:22:22Z, the RFC's instant */
#define T0_MS 1645557742000LL
#define RFC_V4 "919108f7-52d1-4320-9bac-f847db4148a8"
#define RFC_V7 "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"

static idb_err err;                    /* error record of the test running now */
static char decoded[DECODED_MAX];      /* what decode() emitted: "key=value;" each */

/* Decode id with strategy s and one option kv (or NULL); returns the fields as text. */
static const char *decode(const idb_strategy *s, const char *kv, const idb_id *id)
{
    idb_opts o;
    decoded[0] = 0;
    assert_int_equal(idb_opts_parse(&o, s->options, &kv, kv != NULL, "test", &err), 0);
    assert_int_equal(s->decode(&o, id, collect_text, decoded, &err), 0);
    return decoded;
}

/* An instance of s with one option kv (or NULL) on clock. */
static void *make(const idb_strategy *s, const char *kv, idb_clock *clock)
{
    void *inst = NULL;
    assert_int_equal(idb_strategy_create_kv(s, &kv, kv != NULL, clock, &inst, &err), 0);
    return inst;
}

/* A uuidv7 instance with option kv (or NULL) on c, a manual clock set to start_ns. */
static void *v7_on(idb_clock *c, int64_t start_ns, const char *kv)
{
    idb_clock_manual_init(c, start_ns);
    return make(V7, kv, c);
}

/* The 48-bit ms timestamp of a UUIDv7. */
static int64_t v7_ms(const idb_id *id) { return (int64_t)idb_get_be(id->b, 6); }

TEST(test_v4_vector)
{
    const uint8_t want[16] = { 0x91, 0x91, 0x08, 0xf7, 0x52, 0xd1, 0x43, 0x20,
                               0x9b, 0xac, 0xf8, 0x47, 0xdb, 0x41, 0x48, 0xa8 };
    idb_id id;
    char text[IDB_TEXT_MAX];
    assert_int_equal(V4->parse(RFC_V4, &id, &err), 0);
    assert_int_equal(id.len, 16);
    assert_memory_equal(id.b, want, 16);
    assert_string_equal(decode(V4, NULL, &id), "version=4;variant=10;random_bits=122;");
    V4->format(&id, text);
    assert_string_equal(text, RFC_V4);
}

TEST(test_v7_vector)
{
    idb_id id;
    assert_int_equal(V7->parse(RFC_V7, &id, &err), 0);
    /* counter: rand_a 0xcc3, then the top 30 bits of rand_b 0x18c4dc0c0c07398f */
    assert_string_equal(decode(V7, NULL, &id), "version=7;variant=10;timestamp_ms=1645557742000;"
                        "time=2022-02-22T19:22:22.000Z;counter=3508330093580;");
    assert_non_null(strstr(decode(V7, "counter_bits=12", &id), ";counter=3267;"));   /* 0xcc3 */
}

TEST(test_uppercase_parses)
{
    idb_id id;
    char text[IDB_TEXT_MAX];
    assert_int_equal(V4->parse("919108F7-52D1-4320-9BAC-F847DB4148A8", &id, &err), 0);
    V4->format(&id, text);
    assert_string_equal(text, RFC_V4);
    assert_int_equal(V7->parse("017F22E2-79B0-7cc3-98C4-DC0C0C07398F", &id, &err), 0);
    V7->format(&id, text);
    assert_string_equal(text, RFC_V7);
}

TEST(test_parsers_check_version)
{
    idb_id id;
    assert_int_equal(V4->parse(RFC_V7, &id, &err), IDB_EINPUT);
    assert_string_equal(err.msg, "'" RFC_V7 "' is not a UUIDv4: version is 7, expected 4");
    assert_int_equal(V7->parse(RFC_V4, &id, &err), IDB_EINPUT);
    assert_string_equal(err.msg, "'" RFC_V4 "' is not a UUIDv7: version is 4, expected 7");
}

TEST(test_parsers_check_variant)
{
    idb_id id;
    assert_int_equal(V4->parse("919108f7-52d1-4320-cbac-f847db4148a8", &id, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "variant bits are 11, expected 10"));
    assert_int_equal(V7->parse("00000000-0000-0000-0000-000000000000", &id, &err), IDB_EINPUT);
    assert_int_equal(V4->parse("919108f7-52d1-4320-9bac-f847db4148a", &id, &err), IDB_EINPUT);
}

TEST(test_v4_generated_bits)
{
    void *inst = make(V4, NULL, idb_clock_real());
    idb_id id, prev = { 0 }, back;
    char text[IDB_TEXT_MAX];
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(V4->next(inst, &id, &err), 0);
        assert_int_equal(id.len, 16);
        assert_int_equal(id.b[6] >> 4, 4);
        assert_int_equal(id.b[8] & 0xC0, 0x80);
        assert_true(idb_id_cmp(&id, &prev) != 0);
        V4->format(&id, text);
        assert_int_equal(V4->parse(text, &back, &err), 0);
        assert_memory_equal(back.b, id.b, 16);
        prev = id;
    }
    V4->destroy(inst);
}

TEST(test_v7_generated_bits)
{
    idb_clock c;
    void *inst = v7_on(&c, T0_NS + 123456, NULL);
    idb_id id;
    assert_int_equal(V7->next(inst, &id, &err), 0);
    assert_int_equal(id.len, 16);
    assert_int_equal(id.b[6] >> 4, 7);
    assert_int_equal(id.b[8] & 0xC0, 0x80);
    assert_int_equal(v7_ms(&id), T0_MS);
    assert_non_null(strstr(decode(V7, NULL, &id), ";timestamp_ms=1645557742000;"));
    V7->destroy(inst);
}

TEST(test_v7_counter_seeded_and_incremented)
{
    idb_clock c;
    void *inst = v7_on(&c, T0_NS, NULL);
    idb_id id;
    for (int ms = 0; ms < 200; ms++) {
        long long first = 0;
        for (int i = 0; i < 3; i++) {
            assert_int_equal(V7->next(inst, &id, &err), 0);
            long long ctr = atoll(strstr(decode(V7, NULL, &id), "counter=") + 8);
            if (i == 0) first = ctr;
            assert_true(first < (1LL << 41));                /* seeded with its top bit 0 */
            assert_int_equal(ctr, first + i);                /* +1 within the ms */
        }
        idb_clock_advance_ns(&c, 1000000);
    }
    V7->destroy(inst);
}

TEST(test_v7_increasing_in_one_ms)
{
    idb_clock c;
    void *inst = v7_on(&c, T0_NS, NULL);
    idb_id id, prev;
    assert_int_equal(V7->next(inst, &prev, &err), 0);
    for (int i = 1; i < 100000; i++) {
        assert_int_equal(V7->next(inst, &id, &err), 0);
        assert_true(memcmp(id.b, prev.b, 16) > 0);
        assert_int_equal(v7_ms(&id), T0_MS);
        prev = id;
    }
    V7->destroy(inst);
}

TEST(test_v7_clock_step_back)
{
    idb_clock c;
    void *inst = v7_on(&c, T0_NS, NULL);
    idb_id id, prev;
    assert_int_equal(V7->next(inst, &prev, &err), 0);
    idb_clock_advance_ns(&c, -10000000000LL);                /* 10 s back */
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(V7->next(inst, &id, &err), 0);
        assert_true(memcmp(id.b, prev.b, 16) > 0);
        assert_int_equal(v7_ms(&id), T0_MS);
        prev = id;
        idb_clock_advance_ns(&c, 1000000);                   /* still 9 s behind at the end */
    }
    V7->destroy(inst);
}

TEST(test_v7_counter_overflow)
{
    idb_clock c;
    void *inst = v7_on(&c, T0_NS, "counter_bits=12");       /* the clock never moves */
    idb_id id, prev;
    assert_int_equal(V7->next(inst, &prev, &err), 0);
    for (int i = 1; i < 10000; i++) {
        assert_int_equal(V7->next(inst, &id, &err), 0);
        assert_true(memcmp(id.b, prev.b, 16) > 0);
        assert_true(v7_ms(&id) - v7_ms(&prev) <= 1);
        prev = id;
    }
    /* 10000 IDs need at least 3 ms of 4096 counter values: the timestamp ran ahead */
    assert_true(v7_ms(&id) >= T0_MS + 2);
    assert_int_equal(idb_clock_now_ms(&c), T0_MS);
    V7->destroy(inst);
}

typedef struct worker_arg { void *inst; idb_id *ids; int n; } worker_arg;

/* Thread body: make n IDs into ids, each greater than the thread's previous one. */
static void *v7_worker(void *p)
{
    worker_arg *a = p;
    idb_err e;
    for (int i = 0; i < a->n; i++) {
        if (V7->next(a->inst, &a->ids[i], &e) != 0) abort();
        if (i && memcmp(a->ids[i].b, a->ids[i - 1].b, 16) <= 0) abort();
    }
    return NULL;
}

/* qsort order of IDs. */
static int cmp_id(const void *a, const void *b) { return idb_id_cmp(a, b); }

TEST(test_v7_two_threads_distinct)
{
    enum { N = 100000 };
    idb_clock c;
    void *inst = v7_on(&c, T0_NS, "counter_bits=12");       /* overflows often, too */
    idb_id *ids = calloc(2 * N, sizeof *ids);
    assert_non_null(ids);
    worker_arg a[2] = { { inst, ids, N }, { inst, ids + N, N } };
    pthread_t t[2];
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&t[i], NULL, v7_worker, &a[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    qsort(ids, 2 * N, sizeof *ids, cmp_id);
    for (int i = 1; i < 2 * N; i++) assert_true(idb_id_cmp(&ids[i - 1], &ids[i]) < 0);
    free(ids);
    V7->destroy(inst);
}

TEST(test_v7_before_1970)
{
    idb_clock c;
    void *inst = v7_on(&c, -5000000, NULL);
    idb_id id;
    assert_int_equal(V7->next(inst, &id, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "before 1970"));
    V7->destroy(inst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v4_vector),
        cmocka_unit_test(test_v7_vector),
        cmocka_unit_test(test_uppercase_parses),
        cmocka_unit_test(test_parsers_check_version),
        cmocka_unit_test(test_parsers_check_variant),
        cmocka_unit_test(test_v4_generated_bits),
        cmocka_unit_test(test_v7_generated_bits),
        cmocka_unit_test(test_v7_counter_seeded_and_incremented),
        cmocka_unit_test(test_v7_increasing_in_one_ms),
        cmocka_unit_test(test_v7_clock_step_back),
        cmocka_unit_test(test_v7_counter_overflow),
        cmocka_unit_test(test_v7_two_threads_distinct),
        cmocka_unit_test(test_v7_before_1970),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
