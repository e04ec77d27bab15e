/* test_autorandom.c — autorandom: the low 63-S bits are the counter's 1, 2, 3 ... and the S
 * bits above them are the shard: with shard_from=id every ID draws its own (all 2^S shards
 * seen), with shard_from=instance an instance keeps one, taken from its clock (two clocks a
 * ms apart give, here, different shards; the same ms the same); S at its limits; decode
 * splits at S; parse's refusals. The registry-wide tests (uniqueness, fork, parsers) cover
 * it through its declarations.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "strategy.h"

static const idb_strategy *ar(void)
{
    const idb_strategy *s = idb_strategy_find("autorandom");
    assert_non_null(s);
    return s;
}

/* An instance with the options kv (a fresh counter each: name= is among them). */
static void *on(idb_clock *c, const char **kv, int n)
{
    void *inst = NULL;
    idb_err err = { 0 };
    if (idb_strategy_create_kv(ar(), kv, n, c, &inst, &err) != 0)
        fail_msg("autorandom create: %s", err.msg);
    return inst;
}

static uint64_t next_u64(void *inst)
{
    idb_id id;
    idb_err err = { 0 };
    if (ar()->next(inst, &id, &err) != 0) fail_msg("autorandom next: %s", err.msg);
    assert_int_equal(id.len, 8);
    return idb_id_u64(&id);
}

/* shard_from=id, S=5: low 58 bits count 1..3200, bit 63 clear, every one of the 32 shards
 * taken (a draw missing one of 32 in 3,200 has probability < 1e-40). */
static void test_per_id(void **state)
{
    (void)state;
    const char *kv[] = { "name=ar-per-id" };
    void *inst = on(NULL, kv, 1);
    int seen[32] = { 0 };
    for (uint64_t n = 1; n <= 3200; n++) {
        uint64_t v = next_u64(inst);
        assert_true(v >> 63 == 0);
        if ((v & ((1ULL << 58) - 1)) != n) fail_msg("ID %llu: low bits not %llu",
                                                    (unsigned long long)v, (unsigned long long)n);
        seen[v >> 58]++;
    }
    for (int s = 0; s < 32; s++)
        if (!seen[s]) fail_msg("shard %d never drawn", s);
    ar()->destroy(inst);
}

/* shard_from=instance, S=3: one shard per instance; the same ms gives the same. */
static void test_per_instance(void **state)
{
    (void)state;
    idb_clock c;
    idb_clock_manual_init(&c, 1700000000000LL * 1000000LL);
    const char *kv[] = { "name=ar-inst", "shard_from=instance", "shard_bits=3" };
    void *a = on(&c, kv, 3), *b = on(&c, kv, 3);
    uint64_t first = next_u64(a) >> 60;
    for (int i = 0; i < 100; i++) assert_int_equal(next_u64(a) >> 60, first);
    assert_int_equal(next_u64(b) >> 60, first);          /* same ms: same shard */
    int differs = 0;
    for (int ms = 1; ms <= 64 && !differs; ms++) {        /* other ms: another shard, soon */
        idb_clock_advance_ns(&c, 1000000);
        void *d = on(&c, kv, 3);
        differs = next_u64(d) >> 60 != first;
        ar()->destroy(d);
    }
    assert_true(differs);
    ar()->destroy(a);
    ar()->destroy(b);
}

/* S = 15: the counter has 48 bits; S = 16 is refused at create. */
static void test_limits(void **state)
{
    (void)state;
    const char *kv[] = { "name=ar-limits", "shard_bits=15" };
    void *inst = on(NULL, kv, 2);
    uint64_t v = next_u64(inst);
    assert_int_equal(v & ((1ULL << 48) - 1), 1);
    ar()->destroy(inst);
    const char *bad[] = { "name=ar-limits", "shard_bits=16" };
    void *x = NULL;
    idb_err err = { 0 };
    assert_int_equal(idb_strategy_create_kv(ar(), bad, 2, NULL, &x, &err), IDB_EINPUT);
}

/* Decode with the default S = 5; parse refuses 0 and bit 63. */
static void emit_kv(void *ctx, const char *key, const char *value)
{
    char *out = ctx;
    size_t n = strlen(out);
    snprintf(out + n, 128 - n, "%s=%s;", key, value);
}

static void test_decode_parse(void **state)
{
    (void)state;
    idb_id id;
    idb_err err = { 0 };
    char got[128] = "";
    assert_int_equal(ar()->parse("8935141660703064065", &id, &err), 0);   /* 31 << 58 | 1 */
    assert_int_equal(ar()->decode(NULL, &id, emit_kv, got, &err), 0);
    assert_string_equal(got, "shard=31;counter=1;");
    assert_int_equal(ar()->parse("0", &id, &err), IDB_EINPUT);
    assert_int_equal(ar()->parse("9223372036854775808", &id, &err), IDB_EINPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_id),
        cmocka_unit_test(test_per_instance),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_decode_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
