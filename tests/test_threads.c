/* test_threads.c — the generators whose threads keep their own state (slots.h): uuidv7,
 * ulid and objectid shared by more threads than there are slots (so some threads share a
 * slot under its lock): every thread's IDs increase, and no ID comes twice; and objectid's
 * rule that a thread's block of counter values belongs to the second it was taken in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "slots.h"
#include "strategy.h"

#define THREADS (2 * IDB_SLOTS + 1)
#define PER_THREAD 20000
#define S(sec) ((int64_t)(sec) * 1000000000LL)

typedef struct worker {
    const idb_strategy *s;
    void *inst;
    idb_id *ids;
    int bad;                    /* the first i whose ID is not above the thread's last, + 1 */
    int rc;
} worker;

/* Thread body: PER_THREAD IDs, each above the thread's previous one. */
static void *work(void *p)
{
    worker *w = p;
    idb_err err = { 0 };
    for (int i = 0; i < PER_THREAD && !w->rc && !w->bad; i++) {
        w->rc = w->s->next(w->inst, &w->ids[i], &err);
        if (!w->rc && i && idb_id_cmp(&w->ids[i - 1], &w->ids[i]) >= 0) w->bad = i + 1;
    }
    return NULL;
}

static int cmp_id(const void *a, const void *b) { return idb_id_cmp(a, b); }

/* THREADS threads share one instance of name (options kv): each thread's IDs increase, and
 * all THREADS x PER_THREAD are distinct. */
static void threads_in_order_and_distinct(const char *name, const char *kv)
{
    const idb_strategy *s = idb_strategy_find(name);
    assert_non_null(s);
    void *inst;
    idb_err err = { 0 };
    const char *kvs[] = { kv };
    assert_int_equal(idb_strategy_create_kv(s, kvs, kv ? 1 : 0, idb_clock_real(), &inst, &err), 0);
    idb_id *ids = calloc((size_t)THREADS * PER_THREAD, sizeof *ids);
    assert_non_null(ids);
    worker w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){ .s = s, .inst = inst, .ids = ids + (size_t)i * PER_THREAD };
        assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        if (w[i].rc) fail_msg("%s: thread %d: next failed (%d)", name, i, w[i].rc);
        if (w[i].bad) fail_msg("%s: thread %d: ID %d not above its last", name, i, w[i].bad - 1);
    }
    qsort(ids, (size_t)THREADS * PER_THREAD, sizeof *ids, cmp_id);
    for (size_t i = 1; i < (size_t)THREADS * PER_THREAD; i++)
        if (idb_id_cmp(&ids[i - 1], &ids[i]) == 0) fail_msg("%s: an ID came twice", name);
    free(ids);
    s->destroy(inst);
}

static void uuidv7_threads(void **state)
{
    (void)state;
    threads_in_order_and_distinct("uuidv7", NULL);
}

static void ulid_threads(void **state) { (void)state; threads_in_order_and_distinct("ulid", NULL); }
/* counter_start=0: 660,000 IDs do not wrap the 24-bit counter, so each thread's increase. */
static void objectid_threads(void **state)
{
    (void)state;
    threads_in_order_and_distinct("objectid", "counter_start=0");
}

typedef struct on_slot {
    const idb_strategy *s;
    void *inst;
    unsigned want;              /* the slot to make the ID in; other threads only take one */
    idb_id id;
    int made;
} on_slot;

/* Thread body: make one ID if this thread's slot is o->want. */
static void *one_on_slot(void *p)
{
    on_slot *o = p;
    idb_err err = { 0 };
    if (idb_slot() == o->want && o->s->next(o->inst, &o->id, &err) == 0) o->made = 1;
    return NULL;
}

/* One ID from a new thread whose slot is want (threads are started until one gets it). */
static idb_id id_on_slot(const idb_strategy *s, void *inst, unsigned want)
{
    on_slot o = { .s = s, .inst = inst, .want = want };
    for (int i = 0; i <= IDB_SLOTS && !o.made; i++) {
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, one_on_slot, &o), 0);
        pthread_join(t, NULL);
    }
    assert_true(o.made);
    return o.id;
}

/* A block is dropped at a new second: a thread that took a block in second s and made one
 * ID (counter 0) makes its next ID in s + 1 from a new block (counter 256 or more), never
 * counter 1, which a thread filling s + 1 may already have used (2^24 values a second). */
static void objectid_block_belongs_to_its_second(void **state)
{
    (void)state;
    const idb_strategy *s = idb_strategy_find("objectid");
    idb_clock c;
    idb_clock_manual_init(&c, S(1700000000));
    void *inst;
    idb_err err = { 0 };
    const char *kv[] = { "counter_start=0" };
    assert_int_equal(idb_strategy_create_kv(s, kv, 1, &c, &inst, &err), 0);
    unsigned slot = (idb_slot() + 1) % IDB_SLOTS;       /* not the main thread's */
    idb_id a = id_on_slot(s, inst, slot);
    assert_int_equal(idb_get_be(a.b + 9, 3), 0);
    idb_clock_advance_ns(&c, S(1));
    idb_id b = id_on_slot(s, inst, slot);
    assert_int_equal(idb_get_be(b.b, 4), 1700000001);
    assert_true(idb_get_be(b.b + 9, 3) >= 256);
    s->destroy(inst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(uuidv7_threads),
        cmocka_unit_test(ulid_threads),
        cmocka_unit_test(objectid_threads),
        cmocka_unit_test(objectid_block_belongs_to_its_second),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
