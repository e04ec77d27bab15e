/* test_segment.c — segment: blocks from the counter service, the prefetch at 10% (the
 * double buffer), decode, two instances on one counter, restarts, two threads, errors.
 *
 * take(svc, 0, &first) reserves nothing and sets first to the next number the counter
 * would hand out: a peek at how many numbers (so blocks) the instances have taken.
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

#include "counter_service.h"
#include "strategy.h"
#include "decode_test.h"

/* The segment strategy. */
static const idb_strategy *S(void) { return idb_strategy_find("segment"); }

/* Parse text and decode it with block=block into f; assert success. */
static void decode_text(const char *text, const char *block, fields *f)
{
    idb_opts o;
    idb_id id;
    idb_err err = { 0 };
    const char *kv[] = { block };
    memset(f, 0, sizeof *f);
    assert_int_equal(S()->parse(text, &id, &err), 0);
    assert_int_equal(idb_opts_parse(&o, S()->options, kv, block ? 1 : 0, "test", &err), 0);
    assert_int_equal(S()->decode(&o, &id, collect_fields, f, &err), 0);
}

/* A segment instance on counter `name` (reset to 0 first when fresh) with block size. */
static void *make(const char *name, int block, int fresh)
{
    char nkv[80], bkv[40];
    snprintf(nkv, sizeof nkv, "name=%s", name);
    snprintf(bkv, sizeof bkv, "block=%d", block);
    const char *kv[] = { nkv, bkv };
    if (fresh) idb_counter_inproc_reset(name);
    void *inst = NULL;
    idb_err err = { 0 };
    assert_int_equal(idb_strategy_create_kv(S(), kv, 2, idb_clock_real(), &inst, &err), 0);
    return inst;
}

/* Next ID as an integer; asserts success. */
static uint64_t next_u64(void *inst)
{
    idb_id id;
    idb_err err = { 0 };
    assert_int_equal(S()->next(inst, &id, &err), 0);
    assert_int_equal(id.len, 8);
    return idb_id_u64(&id);
}

/* The next number counter `name` would hand out (nothing is reserved). */
static uint64_t peek(const char *name)
{
    uint64_t first;
    idb_counter_service *svc = idb_counter_inproc(name, NULL);
    assert_non_null(svc);
    assert_int_equal(svc->take(svc, 0, &first, NULL), 0);
    return first;
}

static void test_decode(void **state)
{
    (void)state;
    fields f;
    decode_text("1234", NULL, &f);                           /* default block=1000 */
    assert_int_equal(f.n, 3);
    assert_string_equal(field(&f, "value"), "1234");
    assert_string_equal(field(&f, "block"), "1");
    assert_string_equal(field(&f, "offset"), "233");
    decode_text("1", NULL, &f);
    assert_string_equal(field(&f, "block"), "0");
    assert_string_equal(field(&f, "offset"), "0");
    decode_text("1000", NULL, &f);
    assert_string_equal(field(&f, "block"), "0");
    assert_string_equal(field(&f, "offset"), "999");
    decode_text("1001", NULL, &f);
    assert_string_equal(field(&f, "block"), "1");
    assert_string_equal(field(&f, "offset"), "0");
    decode_text("18446744073709551615", "block=1", &f);     /* 2^64-1: printed unsigned */
    assert_string_equal(field(&f, "value"), "18446744073709551615");
    assert_string_equal(field(&f, "block"), "18446744073709551614");
    assert_string_equal(field(&f, "offset"), "0");
}

static void test_parse_format_and_zero(void **state)
{
    (void)state;
    idb_id id;
    idb_err err = { 0 };
    char text[IDB_TEXT_MAX];
    assert_int_equal(S()->parse("2001", &id, &err), 0);
    S()->format(&id, text);
    assert_string_equal(text, "2001");
    assert_int_equal(S()->parse("0", &id, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "start at 1"));
    idb_id_set_u64(&id, 0);
    fields f = { 0 };
    assert_int_equal(S()->decode(NULL, &id, collect_fields, &f, &err), IDB_EINPUT);
}

static void test_consecutive_on_its_own_counter(void **state)
{
    (void)state;
    void *inst = make("seg-alone", 100, 1);
    for (uint64_t want = 1; want <= 5000; want++) assert_true(next_u64(inst) == want);
    S()->destroy(inst);
}

static void test_prefetch_at_ten_percent(void **state)
{
    (void)state;
    void *inst = make("seg-prefetch", 1000, 1);
    assert_true(peek("seg-prefetch") == 1001);               /* create took block 1 */
    for (int i = 0; i < 99; i++) next_u64(inst);
    assert_true(peek("seg-prefetch") == 1001);               /* 9.9% used: not yet */
    assert_true(next_u64(inst) == 100);
    assert_true(peek("seg-prefetch") == 2001);               /* 10%: 2 blocks handed out */
    for (int i = 100; i < 1000; i++) next_u64(inst);
    assert_true(peek("seg-prefetch") == 2001);               /* no fetch at exhaustion */
    assert_true(next_u64(inst) == 1001);                      /* the spare, at once */
    for (int i = 1; i < 99; i++) next_u64(inst);
    assert_true(peek("seg-prefetch") == 2001);
    next_u64(inst);                                           /* 10% of block 2 */
    assert_true(peek("seg-prefetch") == 3001);
    S()->destroy(inst);

    inst = make("seg-prefetch", 1, 1);                       /* block=1: prefetch after 1 */
    assert_true(peek("seg-prefetch") == 2);
    for (uint64_t want = 1; want <= 10; want++) {
        assert_true(next_u64(inst) == want);
        assert_true(peek("seg-prefetch") == want + 2);
    }
    S()->destroy(inst);
}

static void test_ignores_the_clock(void **state)
{
    (void)state;
    idb_clock c;
    idb_clock_manual_init(&c, 1700000000000000000LL);
    idb_clock_freeze(&c, 1);
    const char *kv[] = { "name=seg-clock", "block=1000" };
    void *inst = NULL;
    idb_err err = { 0 };
    idb_counter_inproc_reset("seg-clock");
    assert_int_equal(idb_strategy_create_kv(S(), kv, 2, &c, &inst, &err), 0);
    uint64_t prev = 0;
    for (int i = 0; i < 100000; i++) {                       /* one ms, then 10 s back */
        if (i == 50000) idb_clock_advance_ns(&c, -10000000000LL);
        uint64_t v = next_u64(inst);
        assert_true(v > prev);
        prev = v;
    }
    S()->destroy(inst);
}

static void test_two_instances_never_overlap(void **state)
{
    (void)state;
    enum { N = 20000 };
    void *a = make("seg-shared", 64, 1), *b = make("seg-shared", 64, 0);
    static uint8_t seen[3 * N];
    memset(seen, 0, sizeof seen);
    uint64_t pa = 0, pb = 0;
    for (int i = 0; i < N; i++) {
        uint64_t va = next_u64(a);
        uint64_t vb = next_u64(b);
        if (i % 3 == 0) vb = next_u64(b);                    /* b runs faster */
        assert_true(va > pa && vb > pb);                     /* each instance increases */
        pa = va;
        pb = vb;
        assert_true(va < sizeof seen && vb < sizeof seen);
        assert_int_equal(seen[va]++, 0);
        assert_int_equal(seen[vb]++, 0);
    }
    S()->destroy(a);
    S()->destroy(b);
}

static void test_restart_starts_above(void **state)
{
    (void)state;
    void *a = make("seg-restart", 1000, 1);
    uint64_t last = 0;
    for (int i = 0; i < 150; i++) last = next_u64(a);        /* spare taken: 1..2000 */
    assert_true(last == 150);
    uint64_t could = peek("seg-restart") - 1;                /* all a could hand out */
    assert_true(could == 2000);
    S()->destroy(a);
    void *b = make("seg-restart", 1000, 0);                  /* the restart */
    uint64_t first = next_u64(b);
    assert_true(first > could);                              /* 151..2000 abandoned */
    for (int i = 0; i < 5000; i++) assert_true(next_u64(b) > could);
    S()->destroy(b);
}

static void test_service_errors_reach_create(void **state)
{
    (void)state;
    idb_counter_service *svc = idb_counter_inproc("seg-full", NULL);
    uint64_t first;
    idb_counter_inproc_reset("seg-full");
    assert_int_equal(svc->take(svc, UINT64_MAX - 2, &first, NULL), 0);   /* 3 numbers left */
    const char *kv[] = { "name=seg-full", "block=5" };
    void *inst = NULL;
    idb_err err = { 0 };
    assert_int_equal(idb_strategy_create_kv(S(), kv, 2, idb_clock_real(), &inst, &err),
                     IDB_EEXHAUSTED);
    assert_non_null(strstr(err.msg, "used up"));
    assert_null(inst);
    const char *bad[] = { "block=0" };
    assert_int_equal(idb_strategy_create_kv(S(), bad, 1, idb_clock_real(), &inst, &err),
                     IDB_EINPUT);
}

typedef struct worker_arg { void *inst; uint64_t *ids; int n; } worker_arg;

/* Thread body: make n IDs into ids, each greater than the thread's previous one. */
static void *worker(void *p)
{
    worker_arg *a = p;
    idb_err err = { 0 };
    idb_id id;
    for (int i = 0; i < a->n; i++) {
        if (S()->next(a->inst, &id, &err) != 0) abort();
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

/* Two threads share an instance of block size `block` alone on its counter: the IDs are
 * exactly 1..2N (every block is used up, in order, before the next). */
static void two_threads(int block)
{
    enum { N = 100000 };
    void *inst = make("seg-threads", block, 1);
    uint64_t *ids = calloc(2 * N, sizeof *ids);
    assert_non_null(ids);
    worker_arg a[2] = { { inst, ids, N }, { inst, ids + N, N } };
    pthread_t t[2];
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&t[i], NULL, worker, &a[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    qsort(ids, 2 * N, sizeof *ids, cmp_u64);
    for (int i = 0; i < 2 * N; i++) assert_true(ids[i] == (uint64_t)i + 1);
    free(ids);
    S()->destroy(inst);
}

static void test_two_threads_block_7(void **state) { (void)state; two_threads(7); }
static void test_two_threads_block_1000(void **state) { (void)state; two_threads(1000); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_parse_format_and_zero),
        cmocka_unit_test(test_consecutive_on_its_own_counter),
        cmocka_unit_test(test_prefetch_at_ten_percent),
        cmocka_unit_test(test_ignores_the_clock),
        cmocka_unit_test(test_two_instances_never_overlap),
        cmocka_unit_test(test_restart_starts_above),
        cmocka_unit_test(test_service_errors_reach_create),
        cmocka_unit_test(test_two_threads_block_7),
        cmocka_unit_test(test_two_threads_block_1000),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
