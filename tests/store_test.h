/* store_test.h — what the store tests share: private directories, opening a store with
 * key=value options, deterministic rows, inserting with commits, and the round trip
 * (write shuffled rows, scan them back in key order, compare every field), at any key
 * width. Each test file sets S to the store it tests before using these; a file uses what
 * it needs (hence static inline). Include after <cmocka.h>. */
#ifndef IDB_STORE_TEST_H
#define IDB_STORE_TEST_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "random.h"
#include "store.h"

static const idb_store *S;

/* nftw callback: remove one entry. */
static inline int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb; (void)flag; (void)f;
    return remove(p);
}

/* A fresh empty directory (mode 0755, so another user can look but not write). */
static inline char *make_dir(void)
{
    char t[] = "/tmp/idb-store-XXXXXX";
    assert_non_null(mkdtemp(t));
    chmod(t, 0755);
    return strdup(t);
}

/* Remove dir and everything in it, and free the name. */
static inline void drop_dir(char *dir)
{
    chmod(dir, 0755);
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
}

/* Parse kv and open the store; returns the store's code. */
static inline int open_kv(const char *dir, int key_bytes, const char *const *kv, int nkv, void **h,
                   idb_err *err)
{
    idb_opts o;
    char owner[64];
    snprintf(owner, sizeof owner, "store %s", S->name);
    int rc = idb_opts_parse(&o, S->options, kv, nkv, owner, err);
    return rc ? rc : S->open(dir, &o, key_bytes, h, err);
}

/* Row number i with key bytes from rng (ascending: i + 1, big-endian, in the last 8 bytes
 * or all of a shorter key). For 8-byte keys the top bit is cleared so they are valid
 * rowids; keys under 8 bytes end in i (its last 1 or 2 bytes), so rows 0 .. 255 (1 byte)
 * or 0 .. 65535 (wider) have distinct keys. */
static inline void make_row(idb_row *r, uint64_t i, int key_bytes, idb_rng *rng)
{
    memset(r, 0, sizeof *r);
    r->id.len = (uint8_t)key_bytes;
    if (rng) {
        for (int j = 0; j < key_bytes; j += 8) {
            uint64_t v = idb_rng_next(rng);
            for (int b = 0; b < 8 && j + b < key_bytes; b++)
                r->id.b[j + b] = (uint8_t)(v >> (8 * b));
        }
        if (key_bytes == 8) r->id.b[0] &= 0x7f;
        if (key_bytes < 8) {
            int n = key_bytes < 2 ? key_bytes : 2;
            idb_put_be(r->id.b + key_bytes - n, i, n);
        }
    } else {
        int n = key_bytes < 8 ? key_bytes : 8;
        idb_put_be(r->id.b + key_bytes - n, i + 1, n);
    }
    r->shop = (uint32_t)(i % 97);
    r->display_no = (uint32_t)(1001 + i);
    r->created_ms = 1700000000000LL + (int64_t)i;
    r->total_cents = (int64_t)(i * 37) - 500;
}

/* Insert rows[0..n) committing every batch rows (and at the end); asserts success. */
static inline void insert_all(void *h, const idb_row *rows, int n, int batch)
{
    idb_err err = { 0 };
    for (int i = 0; i < n; i++) {
        assert_int_equal(S->insert(h, &rows[i], &err), 0);
        if ((i + 1) % batch == 0) assert_int_equal(S->commit(h, &err), 0);
    }
    assert_int_equal(S->commit(h, &err), 0);
}

typedef struct collected { idb_row *rows; int n, cap; } collected;

/* scan() callback: append the row. */
static inline int collect(void *ctx, const idb_row *row)
{
    collected *c = ctx;
    assert_true(c->n < c->cap);
    c->rows[c->n++] = *row;
    return 0;
}

/* qsort order of rows by key. */
static inline int by_key(const void *a, const void *b)
{
    return idb_id_cmp(&((const idb_row *)a)->id, &((const idb_row *)b)->id);
}

/* Write N shuffled rows (all 256 for 1-byte keys) in uneven commits, scan, and compare
 * with the sorted rows. */
static inline void roundtrip(int key_bytes, const char *const *kv, int nkv)
{
    const int N = key_bytes == 1 ? 256 : 3000;
    char *dir = make_dir();
    idb_rng rng;
    idb_rng_seed(&rng, 42 + (uint64_t)key_bytes);
    idb_row *rows = calloc((size_t)N, sizeof *rows);
    for (int i = 0; i < N; i++) make_row(&rows[i], (uint64_t)i, key_bytes, &rng);
    for (int i = N - 1; i > 0; i--) {              /* shuffle */
        int j = (int)idb_rng_below(&rng, (uint64_t)i + 1);
        idb_row t = rows[i]; rows[i] = rows[j]; rows[j] = t;
    }
    void *h = NULL;
    idb_err err = { 0 };
    assert_int_equal(open_kv(dir, key_bytes, kv, nkv, &h, &err), 0);
    insert_all(h, rows, N, 700);
    collected c = { calloc((size_t)N + 1, sizeof(idb_row)), 0, N + 1 };
    assert_int_equal(S->scan(h, collect, &c, &err), 0);
    S->close(h);
    qsort(rows, (size_t)N, sizeof *rows, by_key);
    assert_int_equal(c.n, N);
    for (int i = 0; i < N; i++) {
        assert_int_equal(c.rows[i].id.len, key_bytes);
        assert_memory_equal(c.rows[i].id.b, rows[i].id.b, (size_t)key_bytes);
        assert_int_equal(c.rows[i].shop, rows[i].shop);
        assert_int_equal(c.rows[i].display_no, rows[i].display_no);
        assert_int_equal(c.rows[i].created_ms, rows[i].created_ms);
        assert_int_equal(c.rows[i].total_cents, rows[i].total_cents);
    }
    free(c.rows);
    free(rows);
    drop_dir(dir);
}

/* The round trip at the widths every store must take: 1, 5, 20 and IDB_ID_MAX bytes. */
static inline void roundtrip_widths(void)
{
    static const int widths[] = { 1, 5, 20, IDB_ID_MAX };
    for (size_t i = 0; i < sizeof widths / sizeof *widths; i++) roundtrip(widths[i], NULL, 0);
}

/* Open in dir as a user who cannot write there: as root, in a child that drops to nobody;
 * otherwise after chmod 0555. Returns the store's code. */
static inline int open_unwritable(const char *dir)
{
    chmod(dir, 0555);
    if (geteuid() != 0) {
        void *h = NULL;
        idb_err err = { 0 };
        int rc = open_kv(dir, 16, NULL, 0, &h, &err);
        if (rc == 0) S->close(h);
        return rc;
    }
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        void *h = NULL;
        idb_err err = { 0 };
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(100);
        _exit(-open_kv(dir, 16, NULL, 0, &h, &err));
    }
    int status = 0;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 100);
    return -WEXITSTATUS(status);
}

#endif
