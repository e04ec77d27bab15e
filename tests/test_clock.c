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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(manual_clock_moves_only_when_told),
        cmocka_unit_test(manual_wait_jumps_and_counts),
        cmocka_unit_test(real_clock_wait_reaches_the_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
