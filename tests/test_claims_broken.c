/* test_claims_broken.c — for each claim, a deliberately broken strategy (registered only
 * here, handed to the claim as its subject) makes exactly that claim fail, on the check
 * that catches its bug:
 *   1 counter      falls back to a local number when the server refuses (never fails)
 *   2 range        never leases again: wraps around inside its one range (repeats IDs);
 *                  and one that leases a new (unique) range every 20 IDs: 0.05 leases per
 *                  order, over the claim's limit of 0.01 (the limit tested from above; the
 *                  real range, far below it, holds in test_claims.c)
 *   3 interleaved  has no `base`: the safe re-allocation cannot re-base it (repeats IDs)
 *   4 uuidv4       40 or 48 random bits (or a 48-bit counter from a random start) spread
 *                  over 16 bytes by a bijective mixer: every bit still varies
 *   5 uuidv7       no timestamp: random in the top bits (lands anywhere in the index)
 *   6 snowflake    its sequence wraps inside a ms instead of waiting (repeats IDs)
 *   7 objectid     keeps its process bytes and counter after fork (no redraw)
 *  10 uuidv7       the same no-timestamp uuidv7: its recent orders spread over every leaf,
 *                  so its cold recent lookups on sqlite miss as many pages as uuidv4's
 * Each broken strategy reuses its original's options, text form and decode. The full-power
 * birthday test (2^26 IDs, minutes) runs only as `test_claims_broken full` (the slow suite),
 * in optimised builds without sanitizers; the default run checks the same claim's quick
 * thresholds (2^22 IDs against 40-bit sources, drawn per ID or counted from a random start).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "random.h"

#define LOCAL_BASE (1ULL << 62)          /* the broken counter's own numbers */
#define MIX_K1 0xD6E8FEB86659FD93ULL
#define MIX_K2 0xA0761D6478BD642FULL
#define MIX_K3 0xE7037ED1A0B428DBULL
#define SNOWFLAKE_SEQ_MASK 0xFFF
#define SNOWFLAKE_TIME_MAX ((1LL << 41) - 1)
#define OID_RANDOM_MASK ((1ULL << 40) - 1)
#define OID_COUNTER_MASK 0xFFFFFFu

static const idb_strategy *real(const char *name)
{
    const idb_strategy *s = idb_strategy_find(name);
    if (!s) abort();
    return s;
}

/* A wrapper around an instance of a registered strategy. */
typedef struct wrap {
    const idb_strategy *real;
    void *inner;
    uint64_t local;
} wrap;

/* Make a wrapper over real with options kv. Returns 0 or the error. */
static int wrap_create(const char *name, const char *const *kv, int nkv, idb_clock *clock,
                       void **inst, idb_err *err)
{
    wrap *w = calloc(1, sizeof *w);
    if (!w) return idb_fail(err, IDB_ENOMEM, "out of memory");
    w->real = real(name);
    int rc = idb_strategy_create_kv(w->real, kv, nkv, clock, &w->inner, err);
    if (rc) { free(w); return rc; }
    *inst = w;
    return 0;
}

static void wrap_destroy(void *inst)
{
    wrap *w = inst;
    if (w) w->real->destroy(w->inner);
    free(w);
}

/* 1. counter that never fails: a local number when the server says no. */
static int nofail_create(const idb_opts *o, idb_clock *clock, void **inst, idb_err *err)
{
    char name[IDB_OPT_VALUE_MAX + 8];
    snprintf(name, sizeof name, "name=%s", idb_opts_str(o, "name"));
    const char *kv[] = { name };
    return wrap_create("counter", kv, 1, clock, inst, err);
}

static int nofail_next(void *inst, idb_id *id, idb_err *err)
{
    wrap *w = inst;
    int rc = w->real->next(w->inner, id, err);
    if (rc != IDB_EUNAVAIL) return rc;
    idb_id_set_u64(id, LOCAL_BASE + ++w->local);         /* the bug */
    return 0;
}

/* 2. range that wraps inside its one range instead of leasing the next. */
typedef struct wrapping_range { uint64_t first, size, i; } wrapping_range;

static const idb_opt_decl wrapping_range_options[] = {
    { .name = "shard", .type = IDB_OPT_INT, .def = "0", .min = 0, .max = 1023, .help = "k" },
    { .name = "shards", .type = IDB_OPT_INT, .def = "1", .min = 1, .max = 1024, .help = "K" },
    { .name = "range_size", .type = IDB_OPT_INT, .def = "1000", .min = 1, .max = 1LL << 40,
      .help = "IDs per range" },
    { 0 },
};

static int wrapping_range_create(const idb_opts *o, idb_clock *clock, void **inst, idb_err *err)
{
    (void)clock;
    wrapping_range *r = calloc(1, sizeof *r);
    if (!r) return idb_fail(err, IDB_ENOMEM, "out of memory");
    r->size = (uint64_t)idb_opts_int(o, "range_size");
    r->first = (uint64_t)idb_opts_int(o, "shard") * r->size + 1;
    *inst = r;
    return 0;
}

static int wrapping_range_next(void *inst, idb_id *id, idb_err *err)
{
    (void)err;
    wrapping_range *r = inst;
    idb_id_set_u64(id, r->first + r->i++ % r->size);      /* the bug: back to the start */
    return 0;
}

/* 2b. range whose ranges hold 20 IDs: a lease every 20 orders, IDs unique and increasing
 * per shard (each shard's numbers start at shard << 40; a gap of one after every 20). */
#define LEAKY_RANGE_IDS 20

static int leaky_range_create(const idb_opts *o, idb_clock *clock, void **inst, idb_err *err)
{
    (void)clock;
    wrapping_range *r = calloc(1, sizeof *r);
    if (!r) return idb_fail(err, IDB_ENOMEM, "out of memory");
    r->first = ((uint64_t)idb_opts_int(o, "shard") << 40) + 1;
    *inst = r;
    return 0;
}

static int leaky_range_next(void *inst, idb_id *id, idb_err *err)
{
    (void)err;
    wrapping_range *r = inst;
    idb_id_set_u64(id, r->first + r->i + r->i / LEAKY_RANGE_IDS);   /* a new "range" per 20 */
    r->i++;
    return 0;
}

/* 3. interleaved without `base`. */
static idb_opt_decl no_base_options[8];

static int no_base_create(const idb_opts *o, idb_clock *clock, void **inst, idb_err *err)
{
    char shards[32], shard[32];
    snprintf(shards, sizeof shards, "shards=%lld", (long long)idb_opts_int(o, "shards"));
    snprintf(shard, sizeof shard, "shard=%lld", (long long)idb_opts_int(o, "shard"));
    const char *kv[] = { shards, shard };
    return wrap_create("interleaved", kv, 2, clock, inst, err);
}

static int wrap_next(void *inst, idb_id *id, idb_err *err)
{
    wrap *w = inst;
    return w->real->next(w->inner, id, err);
}

/* 4. uuidv4 from a source of few bits, spread over 16 bytes by a bijective 128-bit mix. */
static void spread(uint64_t v, idb_id *id)
{
    uint64_t a = v, b = MIX_K3;
    for (int r = 0; r < 4; r++) {
        a += b; a *= MIX_K1; a ^= a >> 29;
        b ^= a; b *= MIX_K2; b ^= b >> 32;
    }
    idb_put_be64(id->b, a);
    idb_put_be64(id->b + 8, b);
    id->b[6] = (uint8_t)((id->b[6] & 0x0F) | 0x40);
    id->b[8] = (uint8_t)((id->b[8] & 0x3F) | 0x80);
    id->len = 16;
}

static int none_create(const idb_opts *o, idb_clock *clock, void **inst, idb_err *err)
{
    (void)o, (void)clock, (void)err;
    *inst = NULL;
    return 0;
}

static int bits40_next(void *inst, idb_id *id, idb_err *err)
{
    (void)inst, (void)err;
    spread(idb_random_u64() & ((1ULL << 40) - 1), id);
    return 0;
}

static int bits48_next(void *inst, idb_id *id, idb_err *err)
{
    (void)inst, (void)err;
    spread(idb_random_u64() & ((1ULL << 48) - 1), id);
    return 0;
}

/* A counter from a random start, spread over 16 bytes: 48 or 40 bits of it used. */
typedef struct counter48 { uint64_t next; } counter48;

static int counter48_create(const idb_opts *o, idb_clock *clock, void **inst, idb_err *err)
{
    (void)o, (void)clock;
    counter48 *c = malloc(sizeof *c);
    if (!c) return idb_fail(err, IDB_ENOMEM, "out of memory");
    c->next = idb_random_u64();                          /* a random start, 48 bits used */
    *inst = c;
    return 0;
}

static int counter48_next(void *inst, idb_id *id, idb_err *err)
{
    (void)err;
    counter48 *c = inst;
    spread(c->next++ & ((1ULL << 48) - 1), id);
    return 0;
}

static int counter40_next(void *inst, idb_id *id, idb_err *err)
{
    (void)err;
    counter48 *c = inst;
    spread(c->next++ & ((1ULL << 40) - 1), id);
    return 0;
}

/* 5. "uuidv7" without its timestamp: random bytes with version 7. */
static int no_time_next(void *inst, idb_id *id, idb_err *err)
{
    (void)inst, (void)err;
    idb_random_bytes(id->b, 16);
    id->b[6] = (uint8_t)((id->b[6] & 0x0F) | 0x70);
    id->b[8] = (uint8_t)((id->b[8] & 0x3F) | 0x80);
    id->len = 16;
    return 0;
}

/* 6. snowflake whose sequence wraps inside a ms instead of waiting for the next. */
typedef struct wrapping_sf {
    idb_clock *clock;
    int64_t epoch_ms, last_ms;
    uint64_t worker, seq;
} wrapping_sf;

static int wrapping_sf_create(const idb_opts *o, idb_clock *clock, void **inst, idb_err *err)
{
    wrapping_sf *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    s->clock = clock;
    s->epoch_ms = idb_opts_int(o, "epoch_ms");
    s->worker = (uint64_t)idb_opts_int(o, "worker");
    s->last_ms = INT64_MIN;
    *inst = s;
    return 0;
}

static int wrapping_sf_next(void *inst, idb_id *id, idb_err *err)
{
    wrapping_sf *s = inst;
    int64_t ms = idb_clock_now_ns(s->clock) / 1000000 - s->epoch_ms;
    if (ms < 0) return idb_fail(err, IDB_EINPUT, "before the epoch");
    if (ms > SNOWFLAKE_TIME_MAX) return idb_fail(err, IDB_EEXHAUSTED, "past 41 bits");
    if (ms < s->last_ms) {
        if (err) err->behind_ms = s->last_ms - ms;
        return idb_fail(err, IDB_ECLOCK, "clock behind");
    }
    s->seq = ms == s->last_ms ? (s->seq + 1) & SNOWFLAKE_SEQ_MASK : 0;   /* the bug */
    s->last_ms = ms;
    idb_id_set_u64(id, (uint64_t)ms << 22 | s->worker << 12 | s->seq);
    return 0;
}

/* 7. ObjectId without the after-fork redraw. */
typedef struct stale_oid { idb_clock *clock; uint64_t proc; uint32_t counter; } stale_oid;

static int stale_oid_create(const idb_opts *o, idb_clock *clock, void **inst, idb_err *err)
{
    (void)o;
    stale_oid *s = malloc(sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    s->clock = clock;
    s->proc = idb_random_u64() & OID_RANDOM_MASK;        /* drawn once, never again */
    s->counter = (uint32_t)idb_random_u64() & OID_COUNTER_MASK;
    *inst = s;
    return 0;
}

static int stale_oid_next(void *inst, idb_id *id, idb_err *err)
{
    (void)err;
    stale_oid *s = inst;
    uint64_t sec = (uint64_t)idb_clock_now_ns(s->clock) / 1000000000;
    uint32_t c = s->counter++ & OID_COUNTER_MASK;
    idb_put_be64(id->b, sec << 32 | s->proc >> 8);
    idb_put_be(id->b + 8, (s->proc & 0xFF) << 24 | c, 4);
    id->len = 12;
    return 0;
}

static idb_strategy nofail, wrapping_range_st, leaky_range_st, no_base, bits40, bits48, ctr40,
    ctr48, no_time, no_time_named, wrapping_sf_st, stale_oid_st;

/* base with name, options and the three instance functions replaced. */
static idb_strategy broken(const char *base, const char *name, const idb_opt_decl *options,
                           int (*create)(const idb_opts *, idb_clock *, void **, idb_err *),
                           int (*next)(void *, idb_id *, idb_err *), void (*destroy)(void *))
{
    idb_strategy s = *real(base);
    s.name = name;
    s.options = options;
    s.create = create;
    s.next = next;
    s.destroy = destroy;
    return s;
}

/* Fill the broken strategies from their originals. */
static int setup(void **state)
{
    (void)state;
    int k = 0;
    for (const idb_opt_decl *d = real("interleaved")->options; d->name; d++)
        if (strcmp(d->name, "base") != 0) no_base_options[k++] = *d;
    nofail = broken("counter", "counter-never-fails", real("counter")->options, nofail_create,
                    nofail_next, wrap_destroy);
    wrapping_range_st = broken("range", "range-wraps", wrapping_range_options,
                               wrapping_range_create, wrapping_range_next, free);
    leaky_range_st = broken("range", "range-leases-per-20", wrapping_range_options,
                            leaky_range_create, leaky_range_next, free);
    no_base = broken("interleaved", "interleaved-no-base", no_base_options, no_base_create,
                     wrap_next, wrap_destroy);
    bits40 = broken("uuidv4", "uuidv4-40-bits", NULL, none_create, bits40_next, free);
    bits48 = broken("uuidv4", "uuidv4-48-bits", NULL, none_create, bits48_next, free);
    ctr48 = broken("uuidv4", "uuidv4-48-bit-counter", NULL, counter48_create, counter48_next,
                   free);
    ctr40 = broken("uuidv4", "uuidv4-40-bit-counter", NULL, counter48_create, counter40_next,
                   free);
    no_time = broken("uuidv7", "uuidv7-no-time", NULL, none_create, no_time_next, free);
    /* claim 12 reads its insert's DIR back: idbench read refuses a DIR filled by a strategy
     * it does not have, so this one carries the registered name */
    no_time_named = broken("uuidv7", "uuidv7", NULL, none_create, no_time_next, free);
    wrapping_sf_st = broken("snowflake", "snowflake-wraps", real("snowflake")->options,
                            wrapping_sf_create, wrapping_sf_next, free);
    stale_oid_st = broken("objectid", "objectid-no-redraw", real("objectid")->options,
                          stale_oid_create, stale_oid_next, free);
    return getenv("IDBENCH") ? 0 : -1;
}

/* Claim no with st as its subject must not hold, and the failed checks must say why. */
static void expect_fails(int no, const idb_strategy *st, int quick, const char *why)
{
    claims_opts o = { .quick = quick, .exe = getenv("IDBENCH") };
    o.subject[no - 1] = st;
    static claim_row r;
    idb_err err = { 0 };
    if (claims_run_one(no, &o, &r, &err) != 0) fail_msg("claim %d, %s: %s", no, st->name, err.msg);
    if (r.verdict != CLAIM_FAILS || !strstr(r.failures, why))
        fail_msg("claim %d with %s: %s (failed checks: '%s', expected one about '%s'); "
                 "measured: %s", no, st->name, claim_verdict_text(r.verdict), r.failures, why,
                 r.measured);
}

static void test_counter_never_fails(void **s)
{
    (void)s;
    expect_fails(CLAIM_COUNTER, &nofail, 1, "in the outage");
}

static void test_range_wraps(void **s)
{
    (void)s;
    expect_fails(CLAIM_RANGE, &wrapping_range_st, 1, "duplicates");
}

/* 0.05 leases per order: over claim 2's limit (0.01), and nothing else wrong. */
static void test_range_leases_too_often(void **s)
{
    (void)s;
    expect_fails(CLAIM_RANGE, &leaky_range_st, 1, "leases per order");
}

static void test_interleaved_no_base(void **s)
{
    (void)s;
    expect_fails(CLAIM_INTERLEAVED, &no_base, 1, "safe:");
}

/* Quick mode catches a 40-bit source (2^22 IDs expect 8 repeats). */
static void test_uuidv4_40_bits(void **s)
{
    (void)s;
    expect_fails(CLAIM_UUIDV4, &bits40, 1, "repeated");
}

/* ... and a 40-bit counter from a random start (the birthday test takes each ID from a
 * fresh instance: the random start is all the randomness there is, 40 bits). The quick run
 * of the full run's 48-bit case, which runs only in the slow suite. */
static void test_uuidv4_40_bit_counter(void **s)
{
    (void)s;
    expect_fails(CLAIM_UUIDV4, &ctr40, 1, "repeated");
}

/* The full run passes the real uuidv4 and catches 48 bits, drawn per ID or as a counter
 * from a random start. */
static void test_uuidv4_48_bits_full(void **s)
{
    (void)s;
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
    claims_opts o = { .quick = 0, .exe = getenv("IDBENCH") };
    static claim_row r;
    idb_err err = { 0 };
    assert_int_equal(claims_run_one(CLAIM_UUIDV4, &o, &r, &err), 0);
    if (r.verdict != CLAIM_HOLDS) fail_msg("uuidv4, full: %s", r.failures);   /* the real one */
    expect_fails(CLAIM_UUIDV4, &bits48, 0, "repeated");
    expect_fails(CLAIM_UUIDV4, &ctr48, 0, "repeated");
#else
    skip();
#endif
}

static void test_uuidv7_no_time(void **s)
{
    (void)s;
    expect_fails(CLAIM_UUIDV7, &no_time, 1, "insert_pos_p50");
}

/* Claim 10 with a "uuidv7" whose bytes are all random: its recent orders are spread over
 * every leaf as uuidv4's are, so its recent lookups miss as many pages. */
static void test_reads_no_time(void **s)
{
    (void)s;
    expect_fails(CLAIM_READS, &no_time_named, 1, "misses per recent lookup");
}

static void test_snowflake_wraps(void **s)
{
    (void)s;
    expect_fails(CLAIM_SNOWFLAKE, &wrapping_sf_st, 1, "IDs per ms");
}

static void test_objectid_no_redraw(void **s)
{
    (void)s;
    expect_fails(CLAIM_OBJECTID, &stale_oid_st, 1, "fork:");
}

/* A broken plug-in reaches only its own claim: with the ObjectId without its redraw in
 * claim 7's place, the whole table has claims 1-6 as they are on the registered strategies
 * (counter, interleaved, uuidv4, uuidv7, snowflake hold; range holds with its caveat), only
 * claim 7 fails, claims 8, 10 and 11, not run (waits store none, no_failover), are
 * unknown, and claims 9 and 12 hold. */
static void test_only_its_claim(void **s)
{
    (void)s;
    claims_opts o = { .quick = 1, .exe = getenv("IDBENCH"), .waits_store = "none",
                      .no_failover = 1 };
    o.subject[CLAIM_OBJECTID - 1] = &stale_oid_st;
    static claim_row rows[CLAIMS_N];
    idb_err err = { 0 };
    if (claims_run(&o, rows, &err) != 0) fail_msg("claims: %s", err.msg);
    for (int i = 0; i < CLAIMS_N; i++) {
        enum claim_verdict want = i + 1 == CLAIM_OBJECTID ? CLAIM_FAILS
                                : i + 1 == CLAIM_RANGE ? CLAIM_CAVEAT
                                : i + 1 == CLAIM_WAITS || i + 1 == CLAIM_FAILOVER
                                  || i + 1 == CLAIM_LEASES
                                ? CLAIM_UNKNOWN : CLAIM_HOLDS;
        if (rows[i].verdict != want)
            fail_msg("claim %d: %s (%s)", i + 1, claim_verdict_text(rows[i].verdict),
                     rows[i].failures);
    }
}

/* Run every test of this file but the full-power one; with the argument "full", only that
 * one (the slow suite: minutes). */
int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_never_fails),
        cmocka_unit_test(test_range_wraps),
        cmocka_unit_test(test_range_leases_too_often),
        cmocka_unit_test(test_interleaved_no_base),
        cmocka_unit_test(test_uuidv4_40_bits),
        cmocka_unit_test(test_uuidv4_40_bit_counter),
        cmocka_unit_test(test_uuidv7_no_time),
        cmocka_unit_test(test_snowflake_wraps),
        cmocka_unit_test(test_reads_no_time),
        cmocka_unit_test(test_objectid_no_redraw),
        cmocka_unit_test(test_only_its_claim),
    };
    const struct CMUnitTest full[] = {
        cmocka_unit_test(test_uuidv4_48_bits_full),
    };
    if (argc > 1 && strcmp(argv[1], "full") == 0) return cmocka_run_group_tests(full, setup, NULL);
    return cmocka_run_group_tests(tests, setup, NULL);
}
