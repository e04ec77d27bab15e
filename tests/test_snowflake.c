/* test_snowflake.c — snowflake: public Twitter and Discord IDs, sequence exhaustion, clock
 * steps back (refuse and wait), worker placement, option and parser checks.
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

#define SF idb_strategy_find("snowflake")

#define T0_MS 1700000000000LL           /* 2023-11-14T22:13:20Z */
#define TWEPOCH 1288834974657LL

static idb_err err;                    /* error record of the test running now */

static char decoded[DECODED_MAX];      /* what decode() emitted: "key=value;" each */

/* Parse text and decode it with one option kv (or NULL); returns the fields as text. */
static const char *decode_text(const char *text, const char *kv)
{
    idb_opts o;
    idb_id id;
    decoded[0] = 0;
    assert_int_equal(SF->parse(text, &id, &err), 0);
    assert_int_equal(idb_opts_parse(&o, SF->options, &kv, kv != NULL, "test", &err), 0);
    assert_int_equal(SF->decode(&o, &id, collect_text, decoded, &err), 0);
    return decoded;
}

/* A snowflake instance with one option kv (or NULL) on c, a manual clock set to start_ns. */
static void *sf_on(idb_clock *c, int64_t start_ns, const char *kv)
{
    void *inst = NULL;
    idb_clock_manual_init(c, start_ns);
    assert_int_equal(idb_strategy_create_kv(SF, &kv, kv != NULL, c, &inst, &err), 0);
    return inst;
}

/* Next ID as an integer; asserts success. */
static uint64_t next_u64(void *inst)
{
    idb_id id;
    assert_int_equal(SF->next(inst, &id, &err), 0);
    assert_int_equal(id.len, 8);
    return idb_id_u64(&id);
}

TEST(test_tweet_example)
{
    /* worker 347 = datacenter 10 << 5 | worker 27 */
    assert_string_equal(decode_text("1050118621198921728", NULL), "timestamp_ms=1539202764211;"
                        "time=2018-10-10T20:19:24.211Z;worker=347;sequence=0;");
}

TEST(test_discord_example)
{
    /* Discord's 42-bit time reads the same here as the top bit is 0; our worker field holds
     * Discord's worker 1 << 5 | process 0 = 32 */
    assert_string_equal(decode_text("175928847299117063", "epoch_ms=1420070400000"),
                        "timestamp_ms=1462015105796;time=2016-04-30T11:18:25.796Z;"
                        "worker=32;sequence=7;");
}

TEST(test_sequence_exhaustion_waits)
{
    idb_clock c;
    void *inst = sf_on(&c, T0_MS * 1000000 + 250000, NULL);
    uint64_t t = (uint64_t)(T0_MS - TWEPOCH);
    for (uint64_t i = 0; i < 4096; i++)
        assert_int_equal(next_u64(inst), t << 22 | i);
    assert_int_equal(atomic_load(&c.waits), 0);
    assert_int_equal(next_u64(inst), (t + 1) << 22);          /* next ms, sequence 0 */
    assert_int_equal(atomic_load(&c.waits), 1);
    assert_int_equal(idb_clock_now_ms(&c), T0_MS + 1);
    assert_int_equal(next_u64(inst), (t + 1) << 22 | 1);
    SF->destroy(inst);
}

TEST(test_exhaustion_with_frozen_clock_fails)
{
    idb_clock c;
    void *inst = sf_on(&c, T0_MS * 1000000, NULL);
    idb_clock_freeze(&c, 1);
    idb_id id;
    for (int i = 0; i < 4096; i++) next_u64(inst);
    assert_int_equal(SF->next(inst, &id, &err), IDB_ECLOCK);
    assert_int_equal(err.behind_ms, 1);
    assert_int_equal(SF->next(inst, &id, &err), IDB_ECLOCK);
    idb_clock_freeze(&c, 0);
    assert_int_equal(next_u64(inst), (uint64_t)(T0_MS + 1 - TWEPOCH) << 22);
    SF->destroy(inst);
}

TEST(test_backwards_refuse)
{
    idb_clock c;
    void *inst = sf_on(&c, T0_MS * 1000000, NULL);
    idb_id id;
    uint64_t t = (uint64_t)(T0_MS - TWEPOCH);
    assert_int_equal(next_u64(inst), t << 22);
    idb_clock_advance_ns(&c, -5000000);
    for (int behind = 5; behind >= 1; behind--) {
        err.behind_ms = 0;
        assert_int_equal(SF->next(inst, &id, &err), IDB_ECLOCK);
        assert_int_equal(err.code, IDB_ECLOCK);
        assert_int_equal(err.behind_ms, behind);
        if (behind == 5)
            assert_string_equal(err.msg,
                                "clock moved backwards: refusing to generate IDs for 5 ms");
        idb_clock_advance_ns(&c, 1000000);
    }
    assert_int_equal(next_u64(inst), t << 22 | 1);           /* back at the last ms: works */
    SF->destroy(inst);
}

TEST(test_backwards_wait)
{
    idb_clock c;
    void *inst = sf_on(&c, T0_MS * 1000000, "on_backwards=wait");
    uint64_t first = next_u64(inst);
    idb_clock_advance_ns(&c, -5000000);
    int64_t waited = atomic_load(&c.waited_ns);
    uint64_t v = next_u64(inst);
    assert_true(v >> 22 >= first >> 22);
    assert_int_equal(v, first + 1);                          /* same ms, sequence 1 */
    assert_int_equal(atomic_load(&c.waited_ns) - waited, 5000000);
    assert_int_equal(idb_clock_now_ms(&c), T0_MS);
    SF->destroy(inst);
}

TEST(test_worker_bits)
{
    idb_clock c, d;
    uint64_t t = (uint64_t)(T0_MS - TWEPOCH);
    void *a = sf_on(&c, T0_MS * 1000000, "worker=5");
    void *b = sf_on(&d, T0_MS * 1000000, "worker=1023");
    assert_int_equal(next_u64(a), t << 22 | 5 << 12);
    assert_int_equal(next_u64(a), t << 22 | 5 << 12 | 1);
    assert_int_equal(next_u64(b), t << 22 | 0x3FF000);
    SF->destroy(a);
    SF->destroy(b);
}

TEST(test_worker_out_of_range)
{
    const char *kv[] = { "worker=1024" };
    void *inst = NULL;
    assert_int_equal(idb_strategy_create_kv(SF, kv, 1, idb_clock_real(), &inst, &err),
                     IDB_EINPUT);
    assert_null(inst);
    assert_string_equal(err.msg,
                        "strategy snowflake: option worker = 1024 is out of range 0..1023");
}

TEST(test_before_epoch)
{
    idb_clock c;
    void *inst = NULL;
    idb_clock_manual_init(&c, (TWEPOCH - 1) * 1000000);      /* create refuses the epoch */
    assert_int_equal(idb_strategy_create_kv(SF, NULL, 0, &c, &inst, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "epoch_ms = 1288834974657 is in the future"));
    inst = sf_on(&c, TWEPOCH * 1000000, NULL);                /* then the clock steps back */
    idb_clock_advance_ns(&c, -1000000);
    idb_id id;
    assert_int_equal(SF->next(inst, &id, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "before epoch_ms"));
    SF->destroy(inst);
}

TEST(test_time_field_used_up)
{
    idb_clock c;
    void *inst = sf_on(&c, ((1LL << 41) - 1) * 1000000, "epoch_ms=0");
    idb_id id;
    assert_int_equal(next_u64(inst), ((1ULL << 41) - 1) << 22);
    idb_clock_advance_ns(&c, 1000000);
    assert_int_equal(SF->next(inst, &id, &err), IDB_EEXHAUSTED);
    SF->destroy(inst);
}

TEST(test_parse_and_format)
{
    const idb_strategy *s = SF;
    idb_id id;
    char text[IDB_TEXT_MAX];
    assert_int_equal(s->parse("9223372036854775807", &id, &err), 0);
    s->format(&id, text);
    assert_string_equal(text, "9223372036854775807");
    assert_int_equal(s->parse("9223372036854775808", &id, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "top bit"));
    assert_int_equal(s->parse("012", &id, &err), IDB_EINPUT);
    assert_int_equal(s->parse("-1", &id, &err), IDB_EINPUT);
}

typedef struct worker_arg { void *inst; uint64_t *ids; int n; } worker_arg;

/* Thread body: make n IDs, each greater than the thread's previous one. */
static void *sf_worker(void *p)
{
    worker_arg *a = p;
    idb_id id;
    idb_err e;
    for (int i = 0; i < a->n; i++) {
        if (SF->next(a->inst, &id, &e) != 0) abort();
        a->ids[i] = idb_id_u64(&id);
        if (i && a->ids[i] <= a->ids[i - 1]) abort();
    }
    return NULL;
}

/* qsort order of integers. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Two threads share inst for n IDs each: every ID distinct, each thread's increasing. */
static void two_threads(void *inst, int n)
{
    uint64_t *ids = calloc(2 * (size_t)n, sizeof *ids);
    assert_non_null(ids);
    worker_arg a[2] = { { inst, ids, n }, { inst, ids + n, n } };
    pthread_t t[2];
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&t[i], NULL, sf_worker, &a[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    qsort(ids, 2 * (size_t)n, sizeof *ids, cmp_u64);
    for (int i = 1; i < 2 * n; i++) assert_true(ids[i - 1] < ids[i]);
    free(ids);
}

TEST(test_two_threads_manual_clock)
{
    idb_clock c;
    void *inst = sf_on(&c, T0_MS * 1000000, NULL);
    two_threads(inst, 50000);                  /* 25 ms of 4096 IDs: 24 waits for a new ms */
    assert_int_equal(atomic_load(&c.waits), (2 * 50000 - 1) / 4096);
    SF->destroy(inst);
}

TEST(test_two_threads_real_clock)
{
    /* A thread that read the clock just before another moved on to a new ms must not be
     * refused as if the clock had gone back. */
    void *inst = NULL;
    assert_int_equal(idb_strategy_create_kv(SF, NULL, 0, idb_clock_real(), &inst, &err), 0);
    two_threads(inst, 100000);
    SF->destroy(inst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tweet_example),
        cmocka_unit_test(test_discord_example),
        cmocka_unit_test(test_sequence_exhaustion_waits),
        cmocka_unit_test(test_exhaustion_with_frozen_clock_fails),
        cmocka_unit_test(test_backwards_refuse),
        cmocka_unit_test(test_backwards_wait),
        cmocka_unit_test(test_worker_bits),
        cmocka_unit_test(test_worker_out_of_range),
        cmocka_unit_test(test_before_epoch),
        cmocka_unit_test(test_time_field_used_up),
        cmocka_unit_test(test_parse_and_format),
        cmocka_unit_test(test_two_threads_manual_clock),
        cmocka_unit_test(test_two_threads_real_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
