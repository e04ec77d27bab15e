/* test_clock.c — manual and real clocks: set, step back, wait (virtual and real), freeze. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clock.h"
#include "err.h"

static void manual_clock_moves_only_when_told(void **state)
{
    (void)state;
    idb_clock c;
    idb_clock_manual_init(&c, 5000000000);
    assert_int_equal(idb_clock_now_ns(&c), 5000000000);
    assert_int_equal(idb_clock_now_ms(&c), 5000);
    idb_clock_advance_ns(&c, 1500000);
    assert_int_equal(idb_clock_now_ms(&c), 5001);
    idb_clock_set_ns(&c, 4000000000);                 /* step back */
    assert_int_equal(idb_clock_now_ms(&c), 4000);
    idb_clock_set_ns(&c, -1);                         /* before 1970: floor */
    assert_int_equal(idb_clock_now_ms(&c), -1);
}

static void manual_wait_jumps_and_counts(void **state)
{
    (void)state;
    idb_clock c;
    idb_clock_manual_init(&c, 1000);
    assert_int_equal(idb_clock_wait_until(&c, 500), 0);       /* already there: no wait */
    assert_int_equal(atomic_load(&c.waits), 0);
    assert_int_equal(idb_clock_wait_until(&c, 4000), 0);
    assert_int_equal(idb_clock_now_ns(&c), 4000);
    assert_int_equal(atomic_load(&c.waits), 1);
    assert_int_equal(atomic_load(&c.waited_ns), 3000);
    idb_clock_freeze(&c, 1);
    assert_int_equal(idb_clock_wait_until(&c, 9000), IDB_ECLOCK);
    assert_int_equal(idb_clock_now_ns(&c), 4000);
    idb_clock_freeze(&c, 0);
    assert_int_equal(idb_clock_wait_until(&c, 9000), 0);
    assert_int_equal(atomic_load(&c.waited_ns), 8000);
}

static void real_clock_wait_reaches_the_time(void **state)
{
    (void)state;
    idb_clock *c = idb_clock_real();
    int64_t target = idb_clock_now_ns(c) + 3000000;          /* 3 ms ahead: sleeps, then spins */
    assert_int_equal(idb_clock_wait_until(c, target), 0);
    assert_true(idb_clock_now_ns(c) >= target);
    assert_true(atomic_load(&c->waited_ns) >= 3000000 - 100000);
    idb_clock_set_ns(c, 0);                                   /* no effect on the real clock */
    assert_true(idb_clock_now_ns(c) >= target);
}

/* A skipping clock reads the real time plus what its waits skipped: a wait of an hour
 * returns at once (a clock that slept it would time the test out) and is counted. */
static void skip_clock_jumps_instead_of_waiting(void **state)
{
    (void)state;
    idb_clock c;
    idb_clock_skip_init(&c);
    int64_t real = idb_clock_now_ns(idb_clock_real()), now = idb_clock_now_ns(&c);
    assert_true(now >= real && now - real < 60 * 1000000000LL);   /* offset 0: real time */
    int64_t hour = 3600LL * 1000000000LL, target = now + hour;
    assert_int_equal(idb_clock_wait_until(&c, now - 1), 0);       /* already there */
    assert_int_equal(atomic_load(&c.waits), 0);
    assert_int_equal(idb_clock_wait_until(&c, target), 0);
    assert_true(idb_clock_now_ns(&c) >= target);
    assert_true(idb_clock_now_ns(idb_clock_real()) < target - hour / 2);   /* it did not wait */
    assert_int_equal(atomic_load(&c.waits), 1);
    assert_true(atomic_load(&c.waited_ns) > hour - 60 * 1000000000LL);
    assert_true(atomic_load(&c.waited_ns) <= hour);
    int64_t a = idb_clock_now_ns(&c), b = idb_clock_now_ns(&c);      /* still moves on */
    assert_true(b >= a && a >= target);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(manual_clock_moves_only_when_told),
        cmocka_unit_test(manual_wait_jumps_and_counts),
        cmocka_unit_test(real_clock_wait_reaches_the_time),
        cmocka_unit_test(skip_clock_jumps_instead_of_waiting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
