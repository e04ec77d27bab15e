/* test_uniqueness.c — every strategy in the registry: 1,000,000 IDs from two threads
 * sharing one instance are all distinct (a strategy that declares a rate cap,
 * max_ids_per_s: what the cap allows in CAPPED_SECONDS, if fewer). One test per strategy,
 * made from idb_strategies[], so a new strategy is covered without touching this file. Plus
 * the interleaved layout. */
#include <ftw.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "strategy.h"

enum { TOTAL = 1000000, THREADS = 2 };
#define CAPPED_SECONDS 2        /* a rate-capped strategy (max_ids_per_s) makes this many
                                 * seconds' worth of IDs at its cap, if fewer than TOTAL */

/* How many IDs to ask of s: TOTAL, or what its declared cap allows in CAPPED_SECONDS. */
static size_t total_for(const idb_strategy *s)
{
    double capped = s->max_ids_per_s * CAPPED_SECONDS;
    return s->max_ids_per_s > 0 && capped < TOTAL ? (size_t)capped / THREADS * THREADS : TOTAL;
}

static char tmpdir[64];

typedef struct worker {
    const idb_strategy *s;
    void *inst;
    idb_id *out;
    size_t n;
    int rc;
    idb_err err;
} worker;

static void *run_worker(void *p)
{
    worker *w = p;
    for (size_t i = 0; i < w->n; i++)
        if ((w->rc = w->s->next(w->inst, &w->out[i], &w->err)) != 0) break;
    return NULL;
}

static int cmp_id(const void *a, const void *b) { return idb_id_cmp(a, b); }

/* Options a strategy needs to run here: a private directory for those that declare one. */
static int test_options(const idb_strategy *s, const char **kv, char *buf, size_t n)
{
    int nkv = 0;
    if (idb_opts_declared(s->options, "dir")) {
        snprintf(buf, n, "dir=%s", tmpdir);
        kv[nkv++] = buf;
    }
    return nkv;
}

static void test_unique_two_threads(void **state)
{
    const idb_strategy *s = *state;
    const char *kv[4];
    char buf[128];
    int nkv = test_options(s, kv, buf, sizeof buf);
    void *inst = NULL;
    idb_err err = { 0 };
    int rc = idb_strategy_create_kv(s, kv, nkv, idb_clock_real(), &inst, &err);
    if (rc) fail_msg("%s: create failed (%d): %s", s->name, rc, err.msg);

    size_t total = total_for(s);
    idb_id *ids = calloc(total, sizeof *ids);
    assert_non_null(ids);
    worker w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){ .s = s, .inst = inst, .out = ids + (size_t)i * (total / THREADS),
                         .n = total / THREADS };
        assert_int_equal(pthread_create(&t[i], NULL, run_worker, &w[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    s->destroy(inst);
    for (int i = 0; i < THREADS; i++)
        if (w[i].rc) fail_msg("%s: next failed (%d): %s", s->name, w[i].rc, w[i].err.msg);

    for (size_t i = 0; i < total; i++)
        if (ids[i].len * 8 != s->bits)
            fail_msg("%s: ID %zu is %d bytes; the strategy declares %d bits", s->name, i,
                     ids[i].len, s->bits);
    qsort(ids, total, sizeof *ids, cmp_id);
    for (size_t i = 1; i < total; i++)
        if (idb_id_cmp(&ids[i - 1], &ids[i]) == 0) {
            char text[IDB_TEXT_MAX];
            s->format(&ids[i], text);
            fail_msg("%s: ID %s was handed out twice", s->name, text);
        }
    free(ids);
}

static void take(void *inst, uint64_t *out, int n)
{
    const idb_strategy *s = idb_strategy_find("interleaved");
    for (int i = 0; i < n; i++) {
        idb_id id;
        idb_err err = { 0 };
        int rc = s->next(inst, &id, &err);
        if (rc) fail_msg("interleaved: next failed (%d): %s", rc, err.msg);
        out[i] = idb_id_u64(&id);
    }
}

/* shards=3: shards 0, 1, 2 take 10,000 IDs each; the sets are disjoint and their union is
 * exactly 1..30000. */
static void test_interleaved_three_shards_cover_1_to_30000(void **state)
{
    (void)state;
    enum { EACH = 10000, K = 3 };
    const idb_strategy *s = idb_strategy_find("interleaved");
    assert_non_null(s);
    static unsigned char seen[K * EACH + 1];
    memset(seen, 0, sizeof seen);
    for (int k = 0; k < K; k++) {
        char shard[32];
        snprintf(shard, sizeof shard, "shard=%d", k);
        const char *kv[] = { "shards=3", shard };
        void *inst = NULL;
        idb_err err = { 0 };
        assert_int_equal(idb_strategy_create_kv(s, kv, 2, idb_clock_real(), &inst, &err), 0);
        static uint64_t v[EACH];
        take(inst, v, EACH);
        s->destroy(inst);
        for (int i = 0; i < EACH; i++) {
            if (v[i] < 1 || v[i] > K * EACH)
                fail_msg("shard %d handed out %llu, outside 1..%d", k, (unsigned long long)v[i],
                         K * EACH);
            if (seen[v[i]])
                fail_msg("%llu handed out by shard %d and shard %d", (unsigned long long)v[i],
                         seen[v[i]] - 1, k);
            seen[v[i]] = (unsigned char)(k + 1);
            assert_int_equal((v[i] - 1) % K, k);              /* k+1, k+1+N, ... */
        }
        assert_int_equal(v[0], k + 1);
        assert_int_equal(v[EACH - 1], (uint64_t)k + 1 + (uint64_t)(EACH - 1) * K);
    }
    for (int x = 1; x <= K * EACH; x++)
        if (!seen[x]) fail_msg("%d was handed out by no shard", x);
}

static void test_interleaved_rejects_shard_equal_to_shards(void **state)
{
    (void)state;
    const idb_strategy *s = idb_strategy_find("interleaved");
    assert_non_null(s);
    static const char *const bad[][2] = {
        { "shard=3", "shards=3" }, { "shard=4", "shards=3" }, { "shard=1", "shards=1" },
        { "shard=-1", "shards=3" }, { "shard=0", "shards=0" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        void *inst = NULL;
        idb_err err = { 0 };
        int rc = idb_strategy_create_kv(s, bad[i], 2, idb_clock_real(), &inst, &err);
        if (rc != IDB_EINPUT)
            fail_msg("interleaved %s %s: expected IDB_EINPUT, got %d", bad[i][0], bad[i][1], rc);
        assert_null(inst);
        assert_true(err.msg[0] != 0);
    }
}

static int group_setup(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/idbench-test-unique-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

/* nftw callback: remove one entry. */
static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb; (void)flag; (void)f;
    return remove(p);
}

/* Remove the private directory and whatever the strategies left in it (no strategy's
 * file names are needed here). */
static int group_teardown(void **state)
{
    (void)state;
    return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
    size_t n = 0;
    for (const idb_strategy *const *s = idb_strategies; *s; s++) n++;
    struct CMUnitTest *tests = calloc(n + 2, sizeof *tests);
    char (*names)[80] = calloc(n, sizeof *names);
    if (!tests || !names) return 1;
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "unique_1m_2threads_%s", idb_strategies[i]->name);
        tests[i] = (struct CMUnitTest){ .name = names[i], .test_func = test_unique_two_threads,
                                        .initial_state = (void *)idb_strategies[i] };
    }
    const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_interleaved_three_shards_cover_1_to_30000),
        cmocka_unit_test(test_interleaved_rejects_shard_equal_to_shards),
    };
    tests[n] = fixed[0];
    tests[n + 1] = fixed[1];
    int failed = _cmocka_run_group_tests("test_uniqueness", tests, n + 2, group_setup,
                                         group_teardown);
    free(tests);
    free(names);
    return failed;
}
