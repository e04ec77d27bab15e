/* test_counter_service.c — the in-process counter service: numbering, sharing by name,
 * and a refused take that leaves the counter as it was; long names kept whole (by the
 * service, and by `counter` and `segment` through their `name` option) or refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "counter_service.h"
#include "strategy.h"

#define LONG_NAME 100                  /* longer than the 63 bytes names were once cut to */

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

/* A name of len bytes: prefix, then 'x' up to len, then tail (NUL-terminated in buf). */
static const char *long_name(char *buf, const char *prefix, size_t len, const char *tail)
{
    size_t p = strlen(prefix), t = strlen(tail);
    assert_true(p + t <= len);
    memcpy(buf, prefix, p);
    memset(buf + p, 'x', len - p - t);
    memcpy(buf + len - t, tail, t + 1);
    return buf;
}

/* Names that differ only after byte 63 are two counters; the same long name is one. */
static void long_names_kept_whole(void **state)
{
    (void)state;
    char a[LONG_NAME + 1], b[LONG_NAME + 1];
    idb_err err = { 0 };
    idb_counter_service *s1 = idb_counter_inproc(long_name(a, "t-long", LONG_NAME, "A"), &err);
    idb_counter_service *s2 = idb_counter_inproc(long_name(b, "t-long", LONG_NAME, "B"), &err);
    idb_counter_service *s3 = idb_counter_inproc(a, &err);
    assert_non_null(s1);
    assert_ptr_not_equal(s1, s2);
    assert_ptr_equal(s1, s3);
    uint64_t v;
    assert_int_equal(s1->take(s1, 5, &v, &err), 0);
    assert_int_equal(s2->take(s2, 1, &v, &err), 0);
    assert_int_equal(v, 1);
}

/* A name of IDB_COUNTER_NAME_MAX bytes or more is refused, never cut; one byte less works. */
static void too_long_name_refused(void **state)
{
    (void)state;
    char name[IDB_COUNTER_NAME_MAX + 1];
    idb_err err = { 0 };
    long_name(name, "t-max", IDB_COUNTER_NAME_MAX, "");
    assert_null(idb_counter_inproc(name, &err));
    assert_int_equal(err.code, IDB_EINPUT);
    assert_non_null(strstr(err.msg, "too long"));
    idb_counter_service down = { 0 };
    assert_int_equal(idb_counter_attach(name, &down, &err), IDB_EINPUT);
    name[IDB_COUNTER_NAME_MAX - 1] = 0;
    assert_non_null(idb_counter_inproc(name, &err));
}

/* Two instances of strategy sname on the counter named name (option name=...): IDs made
 * alternately by both must all differ (one sequence). */
static void one_sequence(const char *sname, const char *name)
{
    enum { EACH = 50 };
    const idb_strategy *s = idb_strategy_find(sname);
    char kv0[IDB_COUNTER_NAME_MAX + sizeof "name="];
    snprintf(kv0, sizeof kv0, "name=%s", name);
    const char *kv[] = { kv0, "block=10" };
    int nkv = idb_opts_declared(s->options, "block") ? 2 : 1;
    void *inst[2] = { 0 };
    idb_err err = { 0 };
    for (int i = 0; i < 2; i++)
        assert_int_equal(idb_strategy_create_kv(s, kv, nkv, idb_clock_real(), &inst[i], &err), 0);
    uint64_t got[2 * EACH];
    for (int i = 0; i < 2 * EACH; i++) {
        idb_id id;
        assert_int_equal(s->next(inst[i % 2], &id, &err), 0);
        got[i] = idb_id_u64(&id);
        for (int j = 0; j < i; j++)
            if (got[j] == got[i]) fail_msg("%s: ID %llu twice with a %zu-byte name", sname,
                                           (unsigned long long)got[i], strlen(name));
    }
    for (int i = 0; i < 2; i++) s->destroy(inst[i]);
}

/* counter and segment: two instances with the same long name share one sequence; a name
 * over the option's declared size is refused with the limit in the message. */
static void strategies_keep_long_names(void **state)
{
    (void)state;
    static const char *const users[] = { "counter", "segment" };
    char name[IDB_COUNTER_NAME_MAX + 1], kv0[IDB_COUNTER_NAME_MAX + sizeof "name=" + 1];
    for (size_t u = 0; u < sizeof users / sizeof *users; u++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "t-%s-", users[u]);
        one_sequence(users[u], long_name(name, prefix, LONG_NAME, ""));
        one_sequence(users[u], long_name(name, prefix, IDB_COUNTER_NAME_MAX - 1, ""));
        snprintf(kv0, sizeof kv0, "name=%s", long_name(name, prefix, IDB_COUNTER_NAME_MAX, ""));
        const char *kv[] = { kv0 };
        void *inst = NULL;
        idb_err err = { 0 };
        const idb_strategy *s = idb_strategy_find(users[u]);
        assert_int_equal(idb_strategy_create_kv(s, kv, 1, idb_clock_real(), &inst, &err),
                         IDB_EINPUT);
        char want[64];
        snprintf(want, sizeof want, "name: value too long (at most %d bytes)",
                 IDB_COUNTER_NAME_MAX - 1);
        if (!strstr(err.msg, want)) fail_msg("%s: got '%s'", users[u], err.msg);
        assert_null(inst);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers_start_at_one_and_are_shared_by_name),
        cmocka_unit_test(refused_take_changes_nothing),
        cmocka_unit_test(attached_backend_is_used),
        cmocka_unit_test(long_names_kept_whole),
        cmocka_unit_test(too_long_name_refused),
        cmocka_unit_test(strategies_keep_long_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
