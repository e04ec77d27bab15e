/* test_counter_service.c — the in-process counter service: numbering, sharing by name,
 * and a refused take that leaves the counter as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "counter_service.h"

static void numbers_start_at_one_and_are_shared_by_name(void **state)
{
    (void)state;
    idb_err err = { 0 };
    idb_counter_service *a = idb_counter_inproc("t-shared", &err);
    idb_counter_service *b = idb_counter_inproc("t-shared", &err);
    idb_counter_service *c = idb_counter_inproc("t-other", &err);
    uint64_t v;
    assert_int_equal(a->take(a, 1, &v, &err), 0);
    assert_int_equal(v, 1);
    assert_int_equal(b->take(b, 10, &v, &err), 0);
    assert_int_equal(v, 2);                           /* same counter: 2..11 */
    assert_int_equal(a->take(a, 1, &v, &err), 0);
    assert_int_equal(v, 12);
    assert_int_equal(c->take(c, 1, &v, &err), 0);
    assert_int_equal(v, 1);                           /* another name: its own numbers */
}

static void refused_take_changes_nothing(void **state)
{
    (void)state;
    idb_err err = { 0 };
    idb_counter_service *s = idb_counter_inproc("t-full", &err);
    uint64_t v;
    assert_int_equal(s->take(s, UINT64_MAX - 2, &v, &err), 0);   /* 1 .. 2^64-3 */
    assert_int_equal(v, 1);
    assert_int_equal(s->take(s, 5, &v, &err), IDB_EEXHAUSTED);
    assert_string_equal(err.msg, "counter t-full is used up");
    assert_int_equal(s->take(s, 2, &v, &err), 0);               /* still there: 2^64-2, 2^64-1 */
    assert_true(v == UINT64_MAX - 1);
    assert_int_equal(s->take(s, 1, &v, &err), IDB_EEXHAUSTED);
    idb_counter_inproc_reset("t-full");
    assert_int_equal(s->take(s, 1, &v, &err), 0);
    assert_int_equal(v, 1);
}

/* A backend attached under a name replaces the atomic until detached. */
static int refuse(idb_counter_service *svc, uint64_t n, uint64_t *first, idb_err *err)
{
    (void)svc; (void)n; (void)first;
    return idb_fail(err, IDB_EUNAVAIL, "down");
}

static void attached_backend_is_used(void **state)
{
    (void)state;
    idb_err err = { 0 };
    idb_counter_service down = { .take = refuse };
    uint64_t v;
    assert_int_equal(idb_counter_attach("t-attach", &down, &err), 0);
    idb_counter_service *s = idb_counter_inproc("t-attach", &err);
    assert_ptr_equal(s, &down);
    assert_int_equal(s->take(s, 1, &v, &err), IDB_EUNAVAIL);
    idb_counter_detach("t-attach");
    s = idb_counter_inproc("t-attach", &err);
    assert_int_equal(s->take(s, 1, &v, &err), 0);
    assert_int_equal(v, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers_start_at_one_and_are_shared_by_name),
        cmocka_unit_test(refused_take_changes_nothing),
        cmocka_unit_test(attached_backend_is_used),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
