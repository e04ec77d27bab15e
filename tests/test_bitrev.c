/* test_bitrev.c — bitrev: the counter's numbers with their 63 low bits reversed, checked
 * against an independent reversal (the number's 63-digit binary text read backwards), the
 * spread that is its reason to exist (numbers 1 .. 2^k fill the 2^k top-bit ranges one
 * each), decode back to the counter's number and parse's refusals. The registry-wide
 * tests (uniqueness, fork, parsers) cover it through its declarations.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "strategy.h"

#define SPREAD_BITS 10                  /* 2^10 numbers over 2^10 ranges */

static const idb_strategy *bitrev(void)
{
    const idb_strategy *s = idb_strategy_find("bitrev");
    assert_non_null(s);
    return s;
}

/* An instance on the counter called name. */
static void *on(const char *name)
{
    char opt[64];
    snprintf(opt, sizeof opt, "name=%s", name);
    const char *kv[] = { opt };
    void *inst = NULL;
    idb_err err = { 0 };
    if (idb_strategy_create_kv(bitrev(), kv, 1, NULL, &inst, &err) != 0)
        fail_msg("bitrev create: %s", err.msg);
    return inst;
}

static uint64_t next_u64(void *inst)
{
    idb_id id;
    idb_err err = { 0 };
    if (bitrev()->next(inst, &id, &err) != 0) fail_msg("bitrev next: %s", err.msg);
    assert_int_equal(id.len, 8);
    return idb_id_u64(&id);
}

/* n's 63 low bits reversed, another way: its binary text, read backwards. */
static uint64_t by_text(uint64_t n)
{
    char bits[64];
    for (int i = 0; i < 63; i++) bits[i] = (char)('0' + ((n >> (62 - i)) & 1));
    uint64_t r = 0;
    for (int i = 62; i >= 0; i--) r = (r << 1) | (uint64_t)(bits[i] - '0');
    return r;
}

/* The first 5,000 numbers of a fresh counter, each reversed as the text says; decode gives
 * the number back. */
static void test_reversed(void **state)
{
    (void)state;
    void *inst = on("bitrev-reversed");
    for (uint64_t n = 1; n <= 5000; n++) {
        uint64_t v = next_u64(inst);
        if (v != by_text(n)) fail_msg("number %llu: %llu, want %llu", (unsigned long long)n,
                                      (unsigned long long)v, (unsigned long long)by_text(n));
        assert_true(v >> 63 == 0);
    }
    bitrev()->destroy(inst);
}

/* Numbers 1 .. 2^k land one in each of the 2^k ranges of the top k bits of 63. */
static void test_spread(void **state)
{
    (void)state;
    void *inst = on("bitrev-spread");
    int seen[1 << SPREAD_BITS] = { 0 };
    for (int i = 0; i < 1 << SPREAD_BITS; i++) seen[next_u64(inst) >> (63 - SPREAD_BITS)]++;
    for (int r = 0; r < 1 << SPREAD_BITS; r++)
        if (seen[r] != 1) fail_msg("range %d holds %d IDs, want 1", r, seen[r]);
    bitrev()->destroy(inst);
}

/* Decode emits the counter's number. */
static void emit_counter(void *ctx, const char *key, const char *value)
{
    if (strcmp(key, "counter") == 0) snprintf(ctx, 32, "%s", value);
}

static void test_decode(void **state)
{
    (void)state;
    idb_id id;
    idb_err err = { 0 };
    char got[32] = "";
    assert_int_equal(bitrev()->parse("1152921504606846976", &id, &err), 0);   /* 2^60 */
    assert_int_equal(bitrev()->decode(NULL, &id, emit_counter, got, &err), 0);
    assert_string_equal(got, "4");
}

/* parse refuses what next cannot make: 0 and bit 63 set. */
static void test_parse_refuses(void **state)
{
    (void)state;
    idb_id id;
    idb_err err = { 0 };
    assert_int_equal(bitrev()->parse("0", &id, &err), IDB_EINPUT);
    assert_int_equal(bitrev()->parse("9223372036854775808", &id, &err), IDB_EINPUT);
    assert_int_equal(bitrev()->parse("9223372036854775807", &id, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reversed),
        cmocka_unit_test(test_spread),
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_parse_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
