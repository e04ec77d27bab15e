/* test_objectid.c — objectid: the bson-objectid spec's test plan (timestamps at the 32-bit
 * edges, counter wrap, new random bytes after fork) and the BSON corpus value.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "strategy.h"
#include "decode_test.h"

#define S(sec) ((int64_t)(sec) * 1000000000)

static idb_err err;                    /* error record of the test running now */

static char decoded[DECODED_MAX];      /* what decode() emitted: "key=value;" each */

static const idb_strategy *oid(void) { return idb_strategy_find("objectid"); }

/* Decode id with default options; returns the fields as text. */
static const char *decode(const idb_id *id)
{
    idb_opts o;
    decoded[0] = 0;
    assert_int_equal(idb_opts_parse(&o, oid()->options, NULL, 0, "test", &err), 0);
    assert_int_equal(oid()->decode(&o, id, collect_text, decoded, &err), 0);
    return decoded;
}

/* An objectid instance with options kv on clock. */
static void *make(const char *const *kv, int nkv, idb_clock *clock)
{
    void *inst = NULL;
    assert_int_equal(idb_strategy_create_kv(oid(), kv, nkv, clock, &inst, &err), 0);
    return inst;
}

/* Next ObjectId; asserts success. */
static idb_id next_id(void *inst)
{
    idb_id id;
    assert_int_equal(oid()->next(inst, &id, &err), 0);
    assert_int_equal(id.len, 12);
    return id;
}

/* One spec timestamp case: clock at sec (+0.999 s); bytes 0-3 must be be, and decode must
 * start with fields (timestamp_s and time). */
static void check_timestamp(uint32_t sec, const uint8_t be[4], const char *fields)
{
    idb_clock c;
    idb_clock_manual_init(&c, S(sec) + 999999999);
    void *inst = make(NULL, 0, &c);
    idb_id id = next_id(inst);
    assert_memory_equal(id.b, be, 4);
    assert_int_equal(strncmp(decode(&id), fields, strlen(fields)), 0);
    oid()->destroy(inst);
}

TEST(test_timestamp_0)
{
    check_timestamp(0, (const uint8_t[]){ 0, 0, 0, 0 },
                    "timestamp_s=0;time=1970-01-01T00:00:00Z;");
}

TEST(test_timestamp_7fffffff)
{
    check_timestamp(0x7FFFFFFF, (const uint8_t[]){ 0x7F, 0xFF, 0xFF, 0xFF }, 
                    "timestamp_s=2147483647;time=2038-01-19T03:14:07Z;");
}

TEST(test_timestamp_80000000)
{
    check_timestamp(0x80000000u, (const uint8_t[]){ 0x80, 0, 0, 0 }, 
                    "timestamp_s=2147483648;time=2038-01-19T03:14:08Z;");
}

TEST(test_timestamp_ffffffff)
{
    check_timestamp(0xFFFFFFFFu, (const uint8_t[]){ 0xFF, 0xFF, 0xFF, 0xFF }, 
                    "timestamp_s=4294967295;time=2106-02-07T06:28:15Z;");
}

TEST(test_timestamp_past_32_bits_refused)
{
    idb_clock c;
    idb_clock_manual_init(&c, S(0x100000000LL));
    void *inst = make(NULL, 0, &c);
    idb_id id;
    assert_int_equal(oid()->next(inst, &id, &err), IDB_EEXHAUSTED);
    idb_clock_set_ns(&c, -1);
    assert_int_equal(oid()->next(inst, &id, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "before 1970"));
    oid()->destroy(inst);
}

TEST(test_counter_wraps)
{
    const char *kv[] = { "counter_start=16777215" };
    idb_clock c;
    idb_clock_manual_init(&c, S(1457650802));
    void *inst = make(kv, 1, &c);
    idb_id a = next_id(inst), b = next_id(inst);
    assert_memory_equal(a.b + 9, ((const uint8_t[]){ 0xFF, 0xFF, 0xFF }), 3);
    assert_memory_equal(b.b + 9, ((const uint8_t[]){ 0, 0, 0 }), 3);
    assert_non_null(strstr(decode(&a), ";counter=16777215;"));
    assert_non_null(strstr(decode(&b), ";counter=0;"));
    oid()->destroy(inst);
}

TEST(test_counter_start_checked)
{
    const char *bad[] = { "counter_start=16777216", "counter_start=-1", "counter_start=12x",
                          "counter_start=" };
    for (int i = 0; i < 4; i++) {
        void *inst = NULL;
        assert_int_equal(idb_strategy_create_kv(oid(), &bad[i], 1, idb_clock_real(), &inst, &err),
                         IDB_EINPUT);
        assert_non_null(strstr(err.msg, "counter_start"));
    }
    const char *zero[] = { "counter_start=0" };
    idb_clock c;
    idb_clock_manual_init(&c, S(1));
    void *inst = make(zero, 1, &c);
    idb_id id = next_id(inst);
    assert_memory_equal(id.b + 9, ((const uint8_t[]){ 0, 0, 0 }), 3);
    oid()->destroy(inst);
}

TEST(test_consecutive_differ_in_counter)
{
    idb_clock c;
    idb_clock_manual_init(&c, S(1700000000));
    void *inst = make(NULL, 0, &c);
    idb_id a = next_id(inst);
    idb_clock_advance_ns(&c, 999999999);                      /* still the same second */
    idb_id b = next_id(inst);
    assert_memory_equal(a.b, b.b, 9);
    assert_int_equal(idb_get_be(b.b + 9, 3), (idb_get_be(a.b + 9, 3) + 1) & 0xFFFFFF);
    oid()->destroy(inst);
}

TEST(test_corpus_value)
{
    idb_id id;
    char text[IDB_TEXT_MAX];
    assert_int_equal(oid()->parse("56E1FC72E0C917E9C4714161", &id, &err), 0);
    assert_int_equal(id.len, 12);
    assert_string_equal(decode(&id), "timestamp_s=1457650802;time=2016-03-10T23:00:02Z;"
                        "process_random=e0c917e9c4;counter=7422305;");   /* 0x714161 */
    oid()->format(&id, text);
    assert_string_equal(text, "56e1fc72e0c917e9c4714161");
    assert_int_equal(oid()->parse("56e1fc72e0c917e9c471416", &id, &err), IDB_EINPUT);
    assert_int_equal(oid()->parse("56e1fc72e0c917e9c471416g", &id, &err), IDB_EINPUT);
}

TEST(test_fork_new_random)
{
    void *inst = make(NULL, 0, idb_clock_real());
    idb_id mine = next_id(inst), again = next_id(inst), theirs = { 0 };
    assert_memory_equal(mine.b + 4, again.b + 4, 5);          /* same process, same bytes */
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        idb_id id;
        close(fd[0]);
        int ok = oid()->next(inst, &id, &err) == 0 &&
                 write(fd[1], &id, sizeof id) == (ssize_t)sizeof id;
        _exit(ok ? 0 : 1);
    }
    close(fd[1]);
    assert_int_equal(read(fd[0], &theirs, sizeof theirs), (ssize_t)sizeof theirs);
    close(fd[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(theirs.len, 12);
    assert_memory_not_equal(mine.b + 4, theirs.b + 4, 5);
    assert_memory_equal(mine.b + 4, next_id(inst).b + 4, 5);  /* the parent keeps its own */
    oid()->destroy(inst);
}

/* Make all 2^24 IDs of one second on c (manual, at sec + 0.5 s) from inst, checking that
 * every counter value comes once and that each ID is in that second. Returns the last ID. */
static idb_id fill_second(void *inst, idb_clock *c, int64_t sec)
{
    enum { PER_SECOND = 1 << 24 };
    uint8_t *seen = calloc(PER_SECOND / 8, 1);
    assert_non_null(seen);
    idb_clock_set_ns(c, S(sec) + S(1) / 2);
    idb_id id = { 0 };
    for (int i = 0; i < PER_SECOND; i++) {
        if (oid()->next(inst, &id, &err) != 0) fail_msg("ID %d of the second: %s", i, err.msg);
        uint32_t ctr = (uint32_t)idb_get_be(id.b + 9, 3);
        if (idb_get_be(id.b, 4) != (uint64_t)sec || seen[ctr / 8] & 1u << ctr % 8)
            fail_msg("ID %d: second %llu, counter %u seen before", i,
                     (unsigned long long)idb_get_be(id.b, 4), ctr);
        seen[ctr / 8] |= (uint8_t)(1u << ctr % 8);
    }
    free(seen);
    return id;
}

/* 2^24 IDs in one second: the next one waits for the next second (the manual clock jumps
 * there), so no ID of the second repeats; a frozen clock that cannot be waited for refuses
 * with IDB_ECLOCK. The counter goes on from where it was. */
TEST(test_full_second_waits)
{
    const char *kv[] = { "counter_start=16777200" };
    idb_clock c;
    idb_clock_manual_init(&c, 0);
    void *inst = make(kv, 1, &c);
    idb_id last = fill_second(inst, &c, 1700000000);
    assert_int_equal(idb_get_be(last.b + 9, 3), 16777199);      /* one short of the start */
    idb_clock_freeze(&c, 1);
    idb_id id;
    assert_int_equal(oid()->next(inst, &id, &err), IDB_ECLOCK);
    assert_non_null(strstr(err.msg, "2^24"));
    idb_clock_freeze(&c, 0);
    id = next_id(inst);
    assert_int_equal(idb_get_be(id.b, 4), 1700000001);         /* waited for the next second */
    assert_int_equal(idb_get_be(id.b + 9, 3), 16777200);
    assert_int_equal(idb_clock_now_ns(&c), S(1700000001));
    assert_true(atomic_load(&c.waits) >= 1);
    assert_true(idb_id_cmp(&last, &id) < 0);
    oid()->destroy(inst);
}

/* on_exhausted=refuse: after 2^24 IDs in one second, IDB_EEXHAUSTED until the next second;
 * the clock is not moved. */
TEST(test_full_second_refuses)
{
    const char *kv[] = { "on_exhausted=refuse" };
    idb_clock c;
    idb_clock_manual_init(&c, 0);
    void *inst = make(kv, 1, &c);
    fill_second(inst, &c, 1600000000);
    idb_id id;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(oid()->next(inst, &id, &err), IDB_EEXHAUSTED);
        assert_non_null(strstr(err.msg, "on_exhausted=refuse"));
    }
    assert_int_equal(idb_clock_now_ns(&c), S(1600000000) + S(1) / 2);
    idb_clock_advance_ns(&c, S(1) / 2);
    id = next_id(inst);
    assert_int_equal(idb_get_be(id.b, 4), 1600000001);
    oid()->destroy(inst);
}

typedef struct worker_arg { void *inst; idb_id *ids; int n; } worker_arg;

/* Thread body: make n ObjectIds. */
static void *oid_worker(void *p)
{
    worker_arg *a = p;
    idb_err err = { 0 };
    for (int i = 0; i < a->n; i++)
        if (oid()->next(a->inst, &a->ids[i], &err) != 0) abort();
    return NULL;
}

/* qsort order of IDs. */
static int cmp_id(const void *a, const void *b) { return idb_id_cmp(a, b); }

TEST(test_two_threads_distinct)
{
    enum { N = 100000 };
    idb_clock c;
    idb_clock_manual_init(&c, S(1700000000));
    void *inst = make(NULL, 0, &c);
    idb_id *ids = calloc(2 * N, sizeof *ids);
    assert_non_null(ids);
    worker_arg a[2] = { { inst, ids, N }, { inst, ids + N, N } };
    pthread_t t[2];
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&t[i], NULL, oid_worker, &a[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    qsort(ids, 2 * N, sizeof *ids, cmp_id);
    for (int i = 1; i < 2 * N; i++) assert_true(idb_id_cmp(&ids[i - 1], &ids[i]) < 0);
    free(ids);
    oid()->destroy(inst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timestamp_0),
        cmocka_unit_test(test_timestamp_7fffffff),
        cmocka_unit_test(test_timestamp_80000000),
        cmocka_unit_test(test_timestamp_ffffffff),
        cmocka_unit_test(test_timestamp_past_32_bits_refused),
        cmocka_unit_test(test_counter_wraps),
        cmocka_unit_test(test_full_second_waits),
        cmocka_unit_test(test_full_second_refuses),
        cmocka_unit_test(test_counter_start_checked),
        cmocka_unit_test(test_consecutive_differ_in_counter),
        cmocka_unit_test(test_corpus_value),
        cmocka_unit_test(test_fork_new_random),
        cmocka_unit_test(test_two_threads_distinct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
