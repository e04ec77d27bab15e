/* test_store_lmdb.c — the lmdb store against references: rows read back equal rows written;
 * page counts and depth equal `mdb_stat`'s; fill and page counts equal a walk of the pages
 * in data.mdb itself (free space = mp_upper - mp_lower of each leaf); pages_written equals,
 * commit by commit, the page numbers reachable after the commit and not before (+1 meta);
 * split policies show (random ~ln 2, ascending and MDB_APPEND nearly full); append=1 refuses
 * keys out of order; bad input is refused and leaves existing files byte-identical.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "random.h"
#include "store.h"

#include "store_test.h"

/* Insert rows first..first+n (random when rng, else ascending), committing every batch;
 * returns stats. */
static void fill_store(void *h, int key_bytes, idb_rng *rng, int first, int n, int batch,
                       idb_store_stats *s)
{
    idb_err err = { 0 };
    idb_row r;
    for (int i = 0; i < n; i++) {
        make_row(&r, (uint64_t)(first + i), key_bytes, rng);
        assert_int_equal(S->insert(h, &r, &err), 0);
        if ((i + 1) % batch == 0) assert_int_equal(S->commit(h, &err), 0);
    }
    assert_int_equal(S->commit(h, &err), 0);
    assert_int_equal(S->stats(h, s, &err), 0);
}


/* Rows read back equal rows written, 8- and 16-byte keys. */
static void test_roundtrip_8_16(void **st)
{
    (void)st;
    roundtrip(8, NULL, 0);
    roundtrip(16, NULL, 0);
}

/* ... 1-, 5-, 20- and 32-byte keys. */
static void test_roundtrip_any_width(void **st) { (void)st; roundtrip_widths(); }

/* ... with sync=sync, no payload, and a payload big enough for overflow pages. */
static void test_roundtrip_other_options(void **st)
{
    (void)st;
    const char *a[] = { "sync=sync", "row_bytes=0" }, *b[] = { "row_bytes=3000", "map_mb=64" };
    roundtrip(12, a, 2);
    roundtrip(16, b, 2);
}

/* ---- a reader of data.mdb, independent of the store (layout of LMDB 0.9 mdb.c) ---- */

typedef struct pages {
    uint8_t *map;             /* the whole data.mdb */
    size_t size;
    unsigned psize;
    uint8_t *seen;            /* 1 per page reachable from the trees */
    long long leaf, branch, overflow, depth, free_bytes;
} pages;

/* Little-endian reads (the host's order, which is data.mdb's). */
static uint64_t rd(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* Walk the tree under pgno; count into pg only when count (the main DB). */
static void walk(pages *pg, uint64_t pgno, int level, int count)
{
    assert_true((pgno + 1) * pg->psize <= pg->size);
    const uint8_t *p = pg->map + pgno * pg->psize;
    unsigned flags = (unsigned)rd(p + 10, 2), lower = (unsigned)rd(p + 12, 2);
    unsigned upper = (unsigned)rd(p + 14, 2), n = (lower - 16) / 2;
    pg->seen[pgno] = 1;
    if (flags & 0x02) {                                   /* P_LEAF */
        if (count) {
            pg->leaf++;
            pg->free_bytes += upper - lower;
            if (level > pg->depth) pg->depth = level;
        }
        for (unsigned i = 0; i < n; i++) {
            const uint8_t *node = p + rd(p + 16 + 2 * i, 2);
            if (rd(node + 4, 2) & 0x01) {                 /* F_BIGDATA: data on overflow pages */
                uint64_t ov = rd(node + 8 + rd(node + 6, 2), 8);
                unsigned num = (unsigned)rd(pg->map + ov * pg->psize + 12, 4);
                for (unsigned k = 0; k < num; k++) pg->seen[ov + k] = 1;
                if (count) pg->overflow += num;
            }
        }
    } else {
        assert_true(flags & 0x01);                        /* P_BRANCH */
        if (count) pg->branch++;
        for (unsigned i = 0; i < n; i++) {
            const uint8_t *node = p + rd(p + 16 + 2 * i, 2);
            walk(pg, rd(node, 4) | rd(node + 4, 2) << 32, level + 1, count);
        }
    }
}

/* Read envdir/data.mdb and walk the main DB and the freeDB from the newest meta page. */
static void read_pages(const char *envdir, pages *pg)
{
    char path[512];
    snprintf(path, sizeof path, "%s/data.mdb", envdir);
    memset(pg, 0, sizeof *pg);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    pg->size = (size_t)ftell(f);
    rewind(f);
    pg->map = malloc(pg->size);
    assert_int_equal(fread(pg->map, 1, pg->size, f), pg->size);
    fclose(f);
    const uint8_t *m0 = pg->map + 16;
    assert_int_equal(rd(m0, 4), 0xBEEFC0DE);
    pg->psize = (unsigned)rd(m0 + 24, 4);                 /* mm_dbs[FREE_DBI].md_pad */
    const uint8_t *m1 = pg->map + pg->psize + 16;
    const uint8_t *m = rd(m1 + 128, 8) > rd(m0 + 128, 8) ? m1 : m0;   /* mm_txnid */
    pg->seen = calloc(pg->size / pg->psize + 1, 1);
    uint64_t free_root = rd(m + 24 + 40, 8), main_root = rd(m + 72 + 40, 8);
    if (free_root != UINT64_MAX) walk(pg, free_root, 1, 0);
    if (main_root != UINT64_MAX) walk(pg, main_root, 1, 1);
}

/* Free what read_pages allocated. */
static void free_pages(pages *pg)
{
    free(pg->map);
    free(pg->seen);
}

/* Run `mdb_stat -e envdir`; out = page size, depth, branch, leaf, overflow, entries, pages
 * used (last page number + 1). */
static void mdb_stat_shell(const char *envdir, long long out[7])
{
    static const char *const names[7] = { "Page size:", "Tree depth:", "Branch pages:",
                                          "Leaf pages:", "Overflow pages:", "Entries:",
                                          "Number of pages used:" };
    char cmd[600], line[256];
    snprintf(cmd, sizeof cmd, "mdb_stat -e '%s'", envdir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    for (int i = 0; i < 7; i++) out[i] = -1;
    while (fgets(line, sizeof line, p))
        for (int i = 0; i < 7; i++) {
            char *at = strstr(line, names[i]);
            if (at) out[i] = atoll(at + strlen(names[i]));
        }
    if (pclose(p) != 0 || out[5] < 0) fail_msg("mdb_stat failed (is lmdb-utils installed?)");
}

/* A small run: page counts and depth equal mdb_stat's; page counts, depth and fill equal the
 * walk of data.mdb (fill exactly: the layout formula is the bytes the pages really use). */
static void test_stats_match_mdb_stat_and_pages(void **st)
{
    (void)st;
    for (int kb = 8; kb <= 16; kb += 8) {
        char *dir = make_dir(), env[512];
        snprintf(env, sizeof env, "%s/orders.lmdb", dir);
        void *h = NULL;
        idb_err err = { 0 };
        idb_rng rng;
        idb_rng_seed(&rng, 3);
        idb_store_stats s;
        assert_int_equal(open_kv(dir, kb, NULL, 0, &h, &err), 0);
        fill_store(h, kb, &rng, 0, 5000, 400, &s);
        S->close(h);
        long long ref[7];
        mdb_stat_shell(env, ref);
        assert_int_equal(s.file_bytes, ref[6] * ref[0]);
        assert_int_equal(s.depth, ref[1]);
        assert_int_equal(s.branch_pages, ref[2]);
        assert_int_equal(s.leaf_pages, ref[3]);
        assert_int_equal(ref[4], 0);
        assert_int_equal(ref[5], 5000);
        pages pg;
        read_pages(env, &pg);
        assert_int_equal(pg.psize, ref[0]);
        assert_int_equal(pg.leaf, s.leaf_pages);
        assert_int_equal(pg.branch, s.branch_pages);
        assert_int_equal(pg.depth, s.depth);
        long long cap = pg.leaf * (pg.psize - 16);
        assert_true(s.fill_factor == (double)(cap - pg.free_bytes) / (double)cap);
        assert_int_equal(s.file_bytes, (long long)pg.size);
        assert_int_equal(s.cache_misses, -1);
        free_pages(&pg);
        drop_dir(dir);
    }
}

/* pages_written, commit by commit, equals the pages reachable after the commit and not
 * before, plus the meta page: random keys (pages freed and reused), then ascending ones. */
static void test_pages_written_matches_page_diff(void **st)
{
    (void)st;
    char *dir = make_dir(), env[512];
    snprintf(env, sizeof env, "%s/orders.lmdb", dir);
    void *h = NULL;
    idb_err err = { 0 };
    idb_rng rng;
    idb_rng_seed(&rng, 11);
    assert_int_equal(open_kv(dir, 16, NULL, 0, &h, &err), 0);
    uint8_t *before = calloc(1, 1);
    size_t nbefore = 1;
    long long last = 0, total = 0;
    for (int c = 0; c < 30; c++) {
        idb_store_stats s;
        fill_store(h, 16, c < 20 ? &rng : NULL, 300 * c, 300, 1000, &s);
        pages pg;
        read_pages(env, &pg);
        size_t np = pg.size / pg.psize;
        long long fresh = 0;
        for (size_t i = 0; i < np; i++) fresh += pg.seen[i] && (i >= nbefore || !before[i]);
        assert_int_equal(s.pages_written - last, fresh + 1);
        last = s.pages_written;
        total += fresh;
        free(before);
        before = pg.seen;
        nbefore = np;
        free(pg.map);
    }
    print_message("      lmdb: %lld pages written in 30 commits of 300 rows\n", last);
    assert_true(total > 30);
    free(before);
    S->close(h);
    drop_dir(dir);
}

/* 50,000 random 16-byte keys fill leaves to ~ln 2; ascending keys (LMDB's biased split) and
 * append=1 (new key alone on a fresh page) nearly fill them. */
static void test_fill_random_vs_ascending(void **st)
{
    (void)st;
    static const char *const append[] = { "append=1" };
    double fill[3];
    for (int run = 0; run < 3; run++) {
        char *dir = make_dir();
        void *h = NULL;
        idb_err err = { 0 };
        idb_rng rng;
        idb_rng_seed(&rng, 5);
        idb_store_stats s;
        assert_int_equal(open_kv(dir, 16, append, run == 2, &h, &err), 0);
        fill_store(h, 16, run == 0 ? &rng : NULL, 0, 50000, 1000, &s);
        S->close(h);
        fill[run] = s.fill_factor;
        drop_dir(dir);
    }
    print_message("      lmdb fill: random %.4f ascending %.4f append %.4f\n", fill[0], fill[1],
                  fill[2]);
    assert_true(fill[0] >= 0.60 && fill[0] <= 0.75);
    assert_true(fill[1] >= 0.90);
    assert_true(fill[2] >= 0.90);
}

/* append=1 refuses a key that is not above the last one, saying so; the txn goes on. */
static void test_append_out_of_order(void **st)
{
    (void)st;
    char *dir = make_dir();
    void *h = NULL;
    idb_err err = { 0 };
    const char *kv[] = { "append=1" };
    assert_int_equal(open_kv(dir, 8, kv, 1, &h, &err), 0);
    idb_row r;
    make_row(&r, 9, 8, NULL);
    assert_int_equal(S->insert(h, &r, &err), 0);
    make_row(&r, 3, 8, NULL);
    assert_int_equal(S->insert(h, &r, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "append=1: key 0000000000000004 is not greater than the "
                           "last key"));
    make_row(&r, 9, 8, NULL);                             /* equal is not greater either */
    assert_int_equal(S->insert(h, &r, &err), IDB_EINPUT);
    make_row(&r, 10, 8, NULL);
    assert_int_equal(S->insert(h, &r, &err), 0);
    assert_int_equal(S->commit(h, &err), 0);
    S->close(h);
    drop_dir(dir);
}

/* Without append, a duplicate and a key of the wrong width are refused; so are widths 0 and
 * IDB_ID_MAX + 1 at open. */
static void test_bad_keys(void **st)
{
    (void)st;
    char *dir = make_dir();
    void *h = NULL;
    idb_err err = { 0 };
    idb_row r;
    assert_int_equal(open_kv(dir, 0, NULL, 0, &h, &err), IDB_EINPUT);
    assert_int_equal(open_kv(dir, IDB_ID_MAX + 1, NULL, 0, &h, &err), IDB_EINPUT);
    assert_null(h);
    assert_int_equal(open_kv(dir, 8, NULL, 0, &h, &err), 0);
    make_row(&r, 1, 8, NULL);
    assert_int_equal(S->insert(h, &r, &err), 0);
    assert_int_equal(S->insert(h, &r, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, "duplicate"));
    make_row(&r, 2, 16, NULL);
    assert_int_equal(S->insert(h, &r, &err), IDB_EINPUT);
    assert_int_equal(S->commit(h, &err), 0);
    S->close(h);
    drop_dir(dir);
}

/* The whole content of path (NULL if absent); *n its size. */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = malloc(1 << 22);
    *n = fread(buf, 1, 1 << 22, f);
    fclose(f);
    return buf;
}

/* Opening in dir must fail with IDB_EINPUT, a message containing want, and file (inside
 * dir) byte-identical afterwards. */
static void expect_refused(const char *dir, const char *file, const char *want)
{
    size_t n0 = 0, n1 = 0;
    char *before = slurp(file, &n0);
    assert_non_null(before);
    void *h = NULL;
    idb_err err = { 0 };
    assert_int_equal(open_kv(dir, 16, NULL, 0, &h, &err), IDB_EINPUT);
    assert_non_null(strstr(err.msg, want));
    char *after = slurp(file, &n1);
    assert_non_null(after);
    assert_int_equal(n0, n1);
    assert_memory_equal(before, after, n0);
    free(before);
    free(after);
}

/* A file named orders.lmdb, a directory with someone's file, and an existing store: all
 * refused, all untouched. An empty orders.lmdb directory is used. */
static void test_refuses_existing(void **st)
{
    (void)st;
    char *dir = make_dir(), path[512], file[600];
    snprintf(path, sizeof path, "%s/orders.lmdb", dir);
    FILE *f = fopen(path, "w");
    fputs("not a directory\n", f);
    fclose(f);
    expect_refused(dir, path, "exists and is not an idbench store");
    remove(path);

    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(file, sizeof file, "%s/notes.txt", path);
    f = fopen(file, "w");
    fputs("keep me\n", f);
    fclose(f);
    expect_refused(dir, file, "exists and is not an idbench store");
    remove(file);

    void *h = NULL;                                       /* empty directory: fine */
    idb_err err = { 0 };
    idb_store_stats s;
    assert_int_equal(open_kv(dir, 16, NULL, 0, &h, &err), 0);
    fill_store(h, 16, NULL, 0, 100, 50, &s);
    S->close(h);
    snprintf(file, sizeof file, "%s/data.mdb", path);
    expect_refused(dir, file, "already exists; use an empty --dir");
    drop_dir(dir);
}

/* An unwritable directory is a runtime failure (IDB_EIO); nothing is created. A path that
 * is not a directory is bad input. */
static void test_unwritable_and_missing_dir(void **st)
{
    (void)st;
    char *dir = make_dir(), path[512];
    assert_int_equal(open_unwritable(dir), IDB_EIO);
    snprintf(path, sizeof path, "%s/orders.lmdb", dir);
    struct stat sb;
    assert_int_not_equal(lstat(path, &sb), 0);
    drop_dir(dir);
    void *h = NULL;
    idb_err err = { 0 };
    assert_int_equal(open_kv("/nonexistent/idbench", 16, NULL, 0, &h, &err), IDB_EINPUT);
}

int main(void)
{
    S = idb_store_find("lmdb");
    if (!S) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_8_16),
        cmocka_unit_test(test_roundtrip_any_width),
        cmocka_unit_test(test_roundtrip_other_options),
        cmocka_unit_test(test_stats_match_mdb_stat_and_pages),
        cmocka_unit_test(test_pages_written_matches_page_diff),
        cmocka_unit_test(test_fill_random_vs_ascending),
        cmocka_unit_test(test_append_out_of_order),
        cmocka_unit_test(test_bad_keys),
        cmocka_unit_test(test_refuses_existing),
        cmocka_unit_test(test_unwritable_and_missing_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
