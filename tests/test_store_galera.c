/* test_store_galera.c — the `galera` store against a real 3-node cluster it starts (suite
 * slow; as root only: 77 otherwise), with strategy autoinc's hook (insert_assigned) and the
 * join-node fault (join_at), checked by the test's own connections to every node's socket,
 * not by the store's figures:
 *   before the join: each node's auto_increment_increment is 3 and the offsets are 1, 2, 3
 *   (which node has which is Galera's: its membership order); the keys handed back for a
 *   transaction on a node ascend with residue its offset mod 3 (not always one step apart:
 *   measured, the node's counter also jumps past rows its applier writes meanwhile);
 *   after one node joined: 4 nodes, each with increment 4 and its own offset 1..4, the new
 *   keys of step 4 with residue the node's offset mod 4, none equal to an old key;
 *   every node holds exactly the keys handed back (SELECT id FROM orders on each node);
 *   a node that drops the store's connection (KILL CONNECTION) is reconnected by the next
 *   wait for the cluster, its INSERT prepared again (the batch after it runs there).
 * Then stats() reports 4 backends whose shares are the test's own counts, and the pattern
 * file names step 3 before and step 4 after on every node.
 */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <mysql.h>

#include "store_test.h"
#include "galera.h"

#define BATCH 200
#define BEFORE 3                      /* transactions before the join: one per node */
#define AFTER 4                       /* transactions after it: one per node */
#define N_ROWS ((BEFORE + AFTER) * BATCH)

extern const idb_store idb_store_galera;

/* One query's first integer on node j's socket (the test's own connection). */
static int64_t node_i64(gl_store *s, int j, const char *sql)
{
    MYSQL *db = mysql_init(NULL);
    assert_non_null(mysql_real_connect(db, NULL, "root", NULL, GL_DB, 0, s->node[j]->socket,
                                       0));
    assert_int_equal(mysql_query(db, sql), 0);
    MYSQL_RES *res = mysql_store_result(db);
    MYSQL_ROW f = mysql_fetch_row(res);
    int64_t v = f && f[0] ? strtoll(f[0], NULL, 10) : -1;
    mysql_free_result(res);
    mysql_close(db);
    return v;
}

/* Node j holds exactly keys[0..n) (in any order, all distinct). */
static void node_holds(gl_store *s, int j, const uint64_t *keys, int n)
{
    MYSQL *db = mysql_init(NULL);
    assert_non_null(mysql_real_connect(db, NULL, "root", NULL, GL_DB, 0, s->node[j]->socket,
                                       0));
    assert_int_equal(mysql_query(db, "SET SESSION wsrep_sync_wait = 1"), 0);
    assert_int_equal(mysql_query(db, "SELECT id FROM orders"), 0);
    MYSQL_RES *res = mysql_store_result(db);
    int count = 0;
    for (MYSQL_ROW f; (f = mysql_fetch_row(res)); count++) {
        uint64_t v = strtoull(f[0], NULL, 10);
        int i = 0;
        while (i < n && keys[i] != v) i++;
        if (i == n) fail_msg("node %d holds key %llu, never handed back", j + 1,
                             (unsigned long long)v);
    }
    mysql_free_result(res);
    mysql_close(db);
    if (count != n) fail_msg("node %d holds %d rows, %d were committed", j + 1, count, n);
}

/* One transaction of BATCH rows from row `from`: keys into keys[], checked to ascend with
 * residue want mod step. */
static void batch(gl_store *s, idb_row *rows, uint64_t *keys, int from, uint64_t step,
                  uint64_t want)
{
    idb_err err = { 0 };
    for (int i = from; i < from + BATCH; i++) {
        if (idb_store_galera.insert_assigned(s, &rows[i], &err)) fail_msg("%s", err.msg);
        keys[i] = idb_id_u64(&rows[i].id);
        if (keys[i] % step != want % step)
            fail_msg("row %d: key %llu, not %llu mod %llu", i, (unsigned long long)keys[i],
                     (unsigned long long)(want % step), (unsigned long long)step);
        /* ascending, but not always one step apart: the node's counter also moves past
         * the keys its applier writes meanwhile (another node's rows) */
        if (i > from && keys[i] <= keys[i - 1])
            fail_msg("row %d: key %llu after %llu: not ascending", i,
                     (unsigned long long)keys[i], (unsigned long long)keys[i - 1]);
    }
    if (idb_store_galera.commit(s, &err)) fail_msg("%s", err.msg);
}

static void test_cluster_and_join(void **state)
{
    (void)state;
    S = &idb_store_galera;
    char *dir = make_dir();
    const char *kv[] = { "nodes=3", "autoinc=1", "join_at=600" };
    void *h = NULL;
    idb_err err = { 0 };
    if (open_kv(dir, 8, kv, 3, &h, &err)) fail_msg("%s", err.msg);
    gl_store *s = h;
    static idb_row rows[N_ROWS];
    static uint64_t keys[N_ROWS];
    for (int i = 0; i < N_ROWS; i++)
        rows[i] = (idb_row){ .id.len = 8, .shop = (uint32_t)i % 7, .display_no = 1000u + i };
    for (int j = 0; j < 3; j++)
        assert_int_equal(node_i64(s, j, "SELECT @@auto_increment_increment"), 3);
    /* node b + 1's offset: Galera's choice (the node's index in its membership view,
     * ordered by node UUID, not by start order), one each of 1, 2, 3 */
    int before = 0;
    for (int b = 0; b < BEFORE; b++) {
        int64_t off = node_i64(s, b, "SELECT @@auto_increment_offset");
        assert_in_range(off, 1, 3);
        before |= 1 << off;
        batch(s, rows, keys, b * BATCH, 3, (uint64_t)off);
    }
    assert_int_equal(before, 0xe);
    assert_int_equal(s->nnodes, 4);                     /* joined after 600 orders */
    int offsets = 0;
    for (int j = 0; j < 4; j++) {
        assert_int_equal(node_i64(s, j, "SELECT @@auto_increment_increment"), 4);
        offsets |= 1 << node_i64(s, j, "SELECT @@auto_increment_offset");
    }
    assert_int_equal(offsets, 0x1e);                    /* 1, 2, 3, 4: one each */
    /* node 1 drops the store's connection (KILL from the test's own): the next wait for the
     * cluster reconnects and prepares the INSERT again, which the batch on node 1 uses */
    char kill[64];
    snprintf(kill, sizeof kill, "KILL CONNECTION %lu", mysql_thread_id(s->node[0]->db));
    MYSQL *db = mysql_init(NULL);
    assert_non_null(mysql_real_connect(db, NULL, "root", NULL, GL_DB, 0, s->node[0]->socket,
                                       0));
    assert_int_equal(mysql_query(db, kill), 0);
    mysql_close(db);
    if (gl_wait_cluster(s, 4, &err)) fail_msg("after a dropped connection: %s", err.msg);
    for (int b = 0; b < AFTER; b++) {                   /* round robin goes on: 4, 1, 2, 3 */
        int j = (BEFORE + b) % 4;
        uint64_t off = (uint64_t)node_i64(s, j, "SELECT @@auto_increment_offset");
        batch(s, rows, keys, (BEFORE + b) * BATCH, 4, off);
    }
    for (int i = BEFORE * BATCH; i < N_ROWS; i++)       /* nothing reused */
        for (int k = 0; k < BEFORE * BATCH; k++)
            if (keys[i] == keys[k]) fail_msg("key %llu handed out before and after the join",
                                             (unsigned long long)keys[i]);
    for (int j = 0; j < 4; j++) node_holds(s, j, keys, N_ROWS);
    idb_store_stats st;
    if (idb_store_galera.stats(s, &st, &err)) fail_msg("%s", err.msg);
    assert_int_equal(st.backends, 4);
    /* the I/O columns galera cannot tell (test_sqlite_vfs's io_cols leaves them to here) */
    assert_int_equal(st.checkpoint_pages, -1);
    assert_int_equal(st.wal_frames, -1);
    assert_int_equal(st.read_pages, -1);
    /* transactions 0..6 on nodes 1, 2, 3, (join) 4, 1, 2, 3 */
    const double want[4] = { 2.0 / 7, 2.0 / 7, 2.0 / 7, 1.0 / 7 };
    for (int j = 0; j < 4; j++) assert_true(fabs(st.backend_share[j] - want[j]) < 1e-9);
    char path[PATH_MAX], text[4096] = "";
    snprintf(path, sizeof path, "%s/galera-pattern.txt", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t got = fread(text, 1, sizeof text - 1, f);
    text[got] = 0;
    fclose(f);
    assert_non_null(strstr(text, "node 1 before: 200 keys, step 3"));
    assert_non_null(strstr(text, "node 4 after the join: 200 keys, step 4"));
    assert_non_null(strstr(text, "node 1 after the join: 200 keys, step 4"));
    idb_store_galera.close(s);
    drop_dir(dir);
}

int main(void)
{
    if (geteuid() != 0 || getenv("IDB_GALERA_SKIP")) return 77;   /* root only */
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_cluster_and_join) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
