/* fuzz_matrix.c — libFuzzer target: the matrix file reader (harness/matrix/matrix_file.c),
 * mx_load_file and then mx_finish, without and with --quick.
 *
 * Input: a matrix file. It is written into a private temporary directory that also holds
 * links to the source tree's workloads/NAME.ini, so the workload paths of
 * workloads/matrix.ini resolve as they do next to it. Checked for an accepted matrix (a
 * refusal must say why):
 *   - every block has 1..MX_BLOCKS_MAX entries, every list count is within its array and
 *     every strategy and store it names is a registered one;
 *   - the [store.NAME] options are accepted by that store's option table; so are the
 *     options an enabled block's store_set gives each of its stores, and it names no other;
 *   - every workload path it kept is readable; the seed is not negative.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "matrix.h"

#define WORKLOADS_DIR "workloads"

/* Link every workloads/NAME.ini of the source tree into the temporary directory (once). */
static void link_workloads(void)
{
    char src[MX_PATH_MAX], from[2 * MX_PATH_MAX], to[MX_PATH_MAX];
    snprintf(src, sizeof src, "%s/%s", mx_source_dir(), WORKLOADS_DIR);
    DIR *d = opendir(src);
    if (!d) { perror(src); abort(); }
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 4, ".ini") != 0) continue;
        snprintf(from, sizeof from, "%s/%s", src, e->d_name);
        if (symlink(from, fuzz_tmp_path(e->d_name, to, sizeof to)) != 0) { perror(to); abort(); }
    }
    closedir(d);
}

/* A list count is within 0..max. */
#define COUNT(n, max) FUZZ_CHECK((n) >= 0 && (n) <= (max), "%s = %d", #n, (n))

/* One block of an accepted matrix. */
static void check_block(const mx_block *b)
{
    COUNT(b->n_strategies, MX_LIST_MAX);
    COUNT(b->n_stores, MX_STORES_MAX);
    COUNT(b->n_sizes, MX_LIST_MAX);
    COUNT(b->n_shards, MX_LIST_MAX);
    COUNT(b->n_cache_pages, MX_LIST_MAX);
    for (int i = 0; i < b->n_strategies; i++)
        FUZZ_CHECK(b->strategies[i] && idb_strategy_find(b->strategies[i]->name),
                   "[%s] strategy %d", b->name, i);
    for (int i = 0; i < b->n_stores; i++)
        FUZZ_CHECK(b->stores[i] && idb_store_find(b->stores[i]->name), "[%s] store %d",
                   b->name, i);
    if (!b->enabled) return;
    int entries = b->store_set[0] != 0, given = 0;
    for (const char *p = b->store_set; *p; p++) entries += *p == ',';
    for (int i = 0; i < b->n_stores; i++) {
        char set[MX_CELL_SET_MAX], *save = NULL;
        const char *kv[MX_KV_MAX];
        int n = 0;
        given += mx_block_set(b, b->stores[i], set, sizeof set);
        for (char *t = strtok_r(set, " ", &save); t && n < MX_KV_MAX;
             t = strtok_r(NULL, " ", &save))
            kv[n++] = t;
        idb_opts o;
        idb_err err = { 0 };
        FUZZ_CHECK(idb_opts_parse(&o, b->stores[i]->options, kv, n, b->stores[i]->name, &err)
                   == 0, "[%s] store_set kept options store %s refuses: %s", b->name,
                   b->stores[i]->name, err.msg);
    }
    FUZZ_CHECK(given == entries, "[%s] store_set names a store not in the block", b->name);
}

/* An accepted matrix keeps the rules of the header comment. */
static void check_matrix(const idb_matrix *m)
{
    FUZZ_CHECK(m->seed >= 0, "seed %lld", (long long)m->seed);
    COUNT(m->n_insert, MX_BLOCKS_MAX);
    COUNT(m->n_curve, MX_BLOCKS_MAX);
    FUZZ_CHECK(m->n_insert >= 1 && m->n_curve >= 1, "no base block");
    for (int i = 0; i < m->n_insert; i++) check_block(&m->insert[i]);
    for (int i = 0; i < m->n_curve; i++) check_block(&m->curve[i]);
    COUNT(m->n_store_opts, MX_STORES_MAX);
    for (int i = 0; i < m->n_store_opts; i++) {
        const mx_store_opts *so = &m->store_opts[i];
        COUNT(so->n, MX_KV_MAX);
        const char *kv[MX_KV_MAX];
        for (int j = 0; j < so->n; j++) kv[j] = so->kv[j];
        idb_opts o;
        idb_err err = { 0 };
        FUZZ_CHECK(idb_opts_parse(&o, so->store->options, kv, so->n, so->store->name, &err) == 0,
                   "[store.%s] kept options its table refuses: %s", so->store->name, err.msg);
        FUZZ_CHECK(mx_store_options(m, so->store) == so, "[store.%s] twice", so->store->name);
    }
    COUNT(m->n_workloads, MX_WORKLOADS_MAX);
    for (int i = 0; i < m->n_workloads; i++)
        FUZZ_CHECK(access(m->workloads[i], R_OK) == 0, "workload %s", m->workloads[i]);
    COUNT(m->n_skew, MX_LIST_MAX);
    COUNT(m->n_quick, MX_QUICK_MAX);
}

/* mx_finish on a copy of m (quick or not), then the checks. */
static void finish(const idb_matrix *m, int quick, idb_matrix *scratch)
{
    memcpy(scratch, m, sizeof *m);
    idb_err err = { 0 };
    int rc = mx_finish(scratch, quick, &err);
    if (rc == 0) check_matrix(scratch);
    else FUZZ_CHECK(rc == IDB_EINPUT && err.msg[0], "mx_finish refused with %d and no message",
                    rc);
}

/* One input: a matrix file, loaded and finished twice (without and with --quick). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int linked;
    if (!linked) { link_workloads(); linked = 1; }
    char path[MX_PATH_MAX];
    fuzz_tmp_path("fuzz-matrix.ini", path, sizeof path);
    fuzz_write_file(path, data, size);
    static idb_matrix m[2];              /* static: 2 x 300 KB per input costs ASan dearly */
    mx_defaults(m);
    idb_err err = { 0 };
    int rc = mx_load_file(m, path, &err);
    if (rc == 0) {
        finish(m, 0, m + 1);
        finish(m, 1, m + 1);
    } else {
        FUZZ_CHECK((rc == IDB_EINPUT || rc == IDB_ENOMEM) && err.msg[0],
                   "refused with %d and no message", rc);
    }
    return 0;
}
