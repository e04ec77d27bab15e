/* test_ulid.c — ulid: the spec's vectors, Crockford base32 text, monotonicity (one ms, a
 * clock step back, +1 per ULID), the overflow error, the time field's limits, two threads.
 * Malformed and case-folded text: the ULID tables in test_parsers.c.
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

#include "random.h"
#include "strategy.h"
#include "decode_test.h"

#define T0_NS 1469922850259000000LL      /* 2016-07-30T23:54:10.259Z, the spec's example */
#define T0_MS 1469922850259LL

/* The ulid strategy. */
static const idb_strategy *S(void) { return idb_strategy_find("ulid"); }

/* Parse text and decode it into f; assert success. Returns the ID. */
static idb_id decode_text(const char *text, fields *f)
{
    idb_id id;
    idb_err err = { 0 };
    memset(f, 0, sizeof *f);
    assert_int_equal(S()->parse(text, &id, &err), 0);
    assert_int_equal(S()->decode(NULL, &id, collect_fields, f, &err), 0);
    return id;
}

/* A ulid instance with options kv on clock. */
static void *make(const char *const *kv, int nkv, idb_clock *clock)
{
    void *inst = NULL;
    idb_err err = { 0 };
    assert_int_equal(idb_strategy_create_kv(S(), kv, nkv, clock, &inst, &err), 0);
    return inst;
}

/* The 48-bit ms timestamp of a ULID. */
static int64_t ulid_ms(const idb_id *id) { return (int64_t)idb_get_be(id->b, 6); }

/* 1 if the 80-bit random part of b is that of a plus one. */
static int is_plus_one(const idb_id *a, const idb_id *b)
{
    uint64_t ahi = idb_get_be(a->b + 6, 2), alo = idb_get_be(a->b + 8, 8);
    uint64_t bhi = idb_get_be(b->b + 6, 2), blo = idb_get_be(b->b + 8, 8);
    return alo == UINT64_MAX ? blo == 0 && bhi == ahi + 1 : blo == alo + 1 && bhi == ahi;
}

static void test_spec_example(void **state)
{
    (void)state;
    /* The spec's 01ARZ3NDEK... decodes to 1469922850259 from its bits (the ulid/javascript
     * README's 1469918176385 belongs to 01ARYZ6S41..., tested below). */
    const uint8_t want[16] = { 0x01, 0x56, 0x3e, 0x3a, 0xb5, 0xd3, 0xd6, 0x76,
                               0x4c, 0x61, 0xef, 0xb9, 0x93, 0x02, 0xbd, 0x5b };
    fields f;
    char text[IDB_TEXT_MAX];
    idb_id id = decode_text("01ARZ3NDEKTSV4RRFFQ69G5FAV", &f);
    assert_int_equal(id.len, 16);
    assert_memory_equal(id.b, want, 16);
    assert_int_equal(f.n, 3);
    assert_string_equal(field(&f, "timestamp_ms"), "1469922850259");
    assert_string_equal(field(&f, "time"), "2016-07-30T23:54:10.259Z");
    assert_string_equal(field(&f, "random"), "d6764c61efb99302bd5b");
    S()->format(&id, text);
    assert_string_equal(text, "01ARZ3NDEKTSV4RRFFQ69G5FAV");
}

static void test_other_vectors(void **state)
{
    (void)state;
    fields f;
    decode_text("01ARYZ6S41TSV4RRFFQ69G5FAV", &f);         /* ulid(1469918176385) */
    assert_string_equal(field(&f, "timestamp_ms"), "1469918176385");
    assert_string_equal(field(&f, "time"), "2016-07-30T22:36:16.385Z");
    decode_text("01AN4Z07BY79KA1307SR9X4MV3", &f);         /* the spec's diagram */
    assert_string_equal(field(&f, "timestamp_ms"), "1465824320894");
    idb_id id = decode_text("7ZZZZZZZZZZZZZZZZZZZZZZZZZ", &f);   /* the largest ULID */
    for (int i = 0; i < 16; i++) assert_int_equal(id.b[i], 0xff);
    assert_string_equal(field(&f, "timestamp_ms"), "281474976710655");
    assert_string_equal(field(&f, "time"), "10889-08-02T05:31:50.655Z");
    assert_string_equal(field(&f, "random"), "ffffffffffffffffffff");
    id = decode_text("00000000000000000000000000", &f);
    for (int i = 0; i < 16; i++) assert_int_equal(id.b[i], 0);
    assert_string_equal(field(&f, "time"), "1970-01-01T00:00:00.000Z");
    /* The spec's monotonic example: ...MMVRZ + 1 = ...MMVS0 (a carry across characters). */
    idb_id b = decode_text("01BX5ZZKBKACTAV9WEVGEMMVS0", &f);
    id = decode_text("01BX5ZZKBKACTAV9WEVGEMMVRZ", &f);
    assert_int_equal(ulid_ms(&id), ulid_ms(&b));
    assert_true(is_plus_one(&id, &b));
}

static void test_parser_messages(void **state)
{
    (void)state;
    idb_id id;
    idb_err err = { 0 };
    assert_int_equal(S()->parse("8ZZZZZZZZZZZZZZZZZZZZZZZZZ", &id, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "overflows 128 bits"));
    assert_int_equal(S()->parse("01ARZ3NDEKTSV4RRFFQ69G5FAU", &id, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "character 26 is not Crockford base32"));
    assert_int_equal(S()->parse("01ARZ3NDEK", &id, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "expected 26 characters, got 10"));
}

static void test_generated(void **state)
{
    (void)state;
    idb_clock c;
    idb_clock_manual_init(&c, T0_NS + 999999);              /* ms is the floor */
    void *inst = make(NULL, 0, &c);
    idb_id id, back;
    idb_err err = { 0 };
    char text[IDB_TEXT_MAX];
    fields f;
    assert_int_equal(S()->next(inst, &id, &err), 0);
    assert_int_equal(id.len, 16);
    assert_int_equal(ulid_ms(&id), T0_MS);
    S()->format(&id, text);
    assert_int_equal(strlen(text), 26);
    assert_memory_equal(text, "01ARZ3NDEK", 10);             /* the spec's time prefix */
    assert_int_equal(S()->parse(text, &back, &err), 0);
    assert_memory_equal(back.b, id.b, 16);
    assert_int_equal(S()->decode(NULL, &id, collect_fields, memset(&f, 0, sizeof f), &err), 0);
    assert_string_equal(field(&f, "timestamp_ms"), "1469922850259");
    S()->destroy(inst);
}

static void test_increasing_in_one_ms(void **state)
{
    (void)state;
    idb_clock c;
    idb_clock_manual_init(&c, T0_NS);
    void *inst = make(NULL, 0, &c);
    idb_id id, prev;
    idb_err err = { 0 };
    assert_int_equal(S()->next(inst, &prev, &err), 0);
    for (int i = 1; i < 100000; i++) {
        assert_int_equal(S()->next(inst, &id, &err), 0);
        assert_true(memcmp(id.b, prev.b, 16) > 0);
        assert_int_equal(ulid_ms(&id), T0_MS);
        assert_true(is_plus_one(&prev, &id));                /* +1 at the LSB */
        prev = id;
    }
    S()->destroy(inst);
}

static void test_new_ms_fresh_random(void **state)
{
    (void)state;
    idb_random_seed(42);
    idb_clock c;
    idb_clock_manual_init(&c, T0_NS);
    void *inst = make(NULL, 0, &c);
    idb_id id, prev;
    idb_err err = { 0 };
    assert_int_equal(S()->next(inst, &prev, &err), 0);
    int fresh = 0;
    for (int i = 0; i < 100; i++) {
        idb_clock_advance_ns(&c, 1000000);
        assert_int_equal(S()->next(inst, &id, &err), 0);
        assert_int_equal(ulid_ms(&id), ulid_ms(&prev) + 1);
        fresh += !is_plus_one(&prev, &id) && memcmp(id.b + 6, prev.b + 6, 10) != 0;
        prev = id;
    }
    assert_int_equal(fresh, 100);
    S()->destroy(inst);
}

static void test_clock_step_back(void **state)
{
    (void)state;
    idb_clock c;
    idb_clock_manual_init(&c, T0_NS);
    void *inst = make(NULL, 0, &c);
    idb_id id, prev;
    idb_err err = { 0 };
    assert_int_equal(S()->next(inst, &prev, &err), 0);
    idb_clock_advance_ns(&c, -10000000000LL);                /* 10 s back */
    for (int i = 0; i < 100000; i++) {
        assert_int_equal(S()->next(inst, &id, &err), 0);
        assert_true(memcmp(id.b, prev.b, 16) > 0);
        assert_int_equal(ulid_ms(&id), T0_MS);                /* the time field is kept */
        assert_true(is_plus_one(&prev, &id));
        prev = id;
        if (i % 100 == 0) idb_clock_advance_ns(&c, 1000000); /* still 9 s behind at the end */
    }
    idb_clock_set_ns(&c, T0_NS + 1000000);                   /* caught up: a new ms */
    assert_int_equal(S()->next(inst, &id, &err), 0);
    assert_int_equal(ulid_ms(&id), T0_MS + 1);
    S()->destroy(inst);
}

/* Within one ms, the +1 carries from the low 64 random bits into the high 16: with the
 * random part started at 2^64 - 3, ULIDs 1..3 end in ...FFFD..FFFF with high bits 0, the
 * 4th is high 1, low 0, the 5th high 1, low 1; every one greater than the one before. */
static void test_carry_into_high_bits(void **state)
{
    (void)state;
    const char *kv[] = { "carry_after=3" };
    idb_clock c;
    idb_clock_manual_init(&c, T0_NS);
    idb_clock_freeze(&c, 1);
    void *inst = make(kv, 1, &c);
    idb_id id, prev = { 0 };
    idb_err err = { 0 };
    static const struct { uint64_t hi16, lo; } want[] = {
        { 0, UINT64_MAX - 2 }, { 0, UINT64_MAX - 1 }, { 0, UINT64_MAX }, { 1, 0 }, { 1, 1 },
    };
    for (int i = 0; i < 5; i++) {
        assert_int_equal(S()->next(inst, &id, &err), 0);
        assert_int_equal(ulid_ms(&id), T0_MS);
        assert_true(memcmp(id.b, prev.b, 16) > 0);           /* increasing within the ms */
        assert_int_equal(idb_get_be(id.b + 6, 2), want[i].hi16);
        assert_true(idb_get_be(id.b + 8, 8) == want[i].lo);
        prev = id;
    }
    S()->destroy(inst);
}

static void test_overflow_is_an_error(void **state)
{
    (void)state;
    const char *kv[] = { "overflow_after=5" };
    idb_clock c;
    idb_clock_manual_init(&c, T0_NS);
    void *inst = make(kv, 1, &c);
    idb_id id, prev = { 0 };
    idb_err err = { 0 };
    char text[IDB_TEXT_MAX];
    for (int i = 0; i < 5; i++) {                            /* 2^80-5 .. 2^80-1 */
        assert_int_equal(S()->next(inst, &id, &err), 0);
        assert_true(memcmp(id.b, prev.b, 16) > 0);
        prev = id;
    }
    S()->format(&prev, text);
    assert_string_equal(text + 10, "ZZZZZZZZZZZZZZZZ");      /* the spec's last before throw */
    for (int i = 0; i < 3; i++) {                            /* and it stays an error */
        memset(&err, 0, sizeof err);
        assert_int_equal(S()->next(inst, &id, &err), IDB_EEXHAUSTED);
        assert_int_equal(err.code, IDB_EEXHAUSTED);
        assert_string_equal(err.msg, "ULID random part overflowed within one millisecond");
    }
    idb_clock_advance_ns(&c, -5000000);                      /* behind: still the same ms */
    assert_int_equal(S()->next(inst, &id, &err), IDB_EEXHAUSTED);
    idb_clock_set_ns(&c, T0_NS + 1000000);                   /* next ms: fine again */
    assert_int_equal(S()->next(inst, &id, &err), 0);
    assert_true(memcmp(id.b, prev.b, 16) > 0);
    assert_int_equal(ulid_ms(&id), T0_MS + 1);
    S()->destroy(inst);
}

static void test_time_limits(void **state)
{
    (void)state;
    idb_clock c;
    idb_id id;
    idb_err err = { 0 };
    idb_clock_manual_init(&c, -5000000);                     /* before 1970 */
    void *inst = make(NULL, 0, &c);
    assert_int_equal(S()->next(inst, &id, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "before 1970"));
    idb_clock_set_ns(&c, 0);                                 /* the epoch itself is fine */
    assert_int_equal(S()->next(inst, &id, &err), 0);
    assert_int_equal(ulid_ms(&id), 0);
    /* The clock's int64 ns ends in 2262, long before the 48-bit ms field (10889), so its
     * last ms is the latest a ULID can get here; the field's own limit is unreachable. */
    idb_clock_set_ns(&c, INT64_MAX);
    assert_int_equal(S()->next(inst, &id, &err), 0);
    assert_int_equal(ulid_ms(&id), INT64_MAX / 1000000);
    S()->destroy(inst);
}

static void test_decode_wrong_width(void **state)
{
    (void)state;
    idb_id id;
    idb_err err = { 0 };
    fields f = { 0 };
    idb_id_set_u64(&id, 42);
    assert_int_equal(S()->decode(NULL, &id, collect_fields, &f, &err), IDB_EINPUT);
    assert_int_equal(f.n, 0);
}

typedef struct worker_arg { void *inst; idb_clock *clock; idb_id *ids; int n; } worker_arg;

/* Thread body: make n IDs into ids, each greater than the thread's previous one; the
 * clock moves on now and then (only thread 0 moves it). */
static void *worker(void *p)
{
    worker_arg *a = p;
    idb_err err = { 0 };
    for (int i = 0; i < a->n; i++) {
        if (a->clock && i % 1000 == 999) idb_clock_advance_ns(a->clock, 1000000);
        if (S()->next(a->inst, &a->ids[i], &err) != 0) abort();
        if (i && memcmp(a->ids[i].b, a->ids[i - 1].b, 16) <= 0) abort();
    }
    return NULL;
}

/* qsort order of IDs. */
static int cmp_id(const void *a, const void *b) { return idb_id_cmp(a, b); }

static void test_two_threads_distinct(void **state)
{
    (void)state;
    enum { N = 100000 };
    idb_clock c;
    idb_clock_manual_init(&c, T0_NS);
    void *inst = make(NULL, 0, &c);
    idb_id *ids = calloc(2 * N, sizeof *ids);
    assert_non_null(ids);
    worker_arg a[2] = { { inst, &c, ids, N }, { inst, NULL, ids + N, N } };
    pthread_t t[2];
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&t[i], NULL, worker, &a[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    qsort(ids, 2 * N, sizeof *ids, cmp_id);
    for (int i = 1; i < 2 * N; i++) assert_true(idb_id_cmp(&ids[i - 1], &ids[i]) < 0);
    free(ids);
    S()->destroy(inst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_example),
        cmocka_unit_test(test_other_vectors),
        cmocka_unit_test(test_parser_messages),
        cmocka_unit_test(test_generated),
        cmocka_unit_test(test_increasing_in_one_ms),
        cmocka_unit_test(test_new_ms_fresh_random),
        cmocka_unit_test(test_clock_step_back),
        cmocka_unit_test(test_overflow_is_an_error),
        cmocka_unit_test(test_carry_into_high_bits),
        cmocka_unit_test(test_time_limits),
        cmocka_unit_test(test_decode_wrong_width),
        cmocka_unit_test(test_two_threads_distinct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
