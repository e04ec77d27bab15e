/* test_plots_clients.c — the clients sweep's plots and report sentence (plots_clients.c)
 * on crafted insert.csv rows: the verdict "ordered keys lose their advantage at C" both
 * ways (and none to lose), the sentence computed from the rows, the rows keyed on clients
 * (the headline figures read only the one-writer rows), the plots' data files (a block per
 * line, its points by rising clients, in the columns the scripts draw), and the cores from
 * meta.json.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "plots.h"
#include "plots_clients.h"
#include "tmpdir.h"
#include "results_fixture.h"

/* The table entry named name. */
static const mx_plot *entry(const char *name)
{
    for (int i = 0; i < mx_n_plots; i++)
        if (strcmp(mx_plots[i].name, name) == 0) return &mx_plots[i];
    fail_msg("no plot %s", name);
    return NULL;
}

/* One crafted row: strategy, store, key_bytes, clients, inserts/s, p99 ns, wait ns/order. */
typedef struct row {
    const char *strategy, *store;
    int key_bytes, clients;
    double ips, p99, wait;
} row;

/* The columns insert.csv must have besides those the rows set (empty: unknown). */
static const char other_columns[] =
    "batch,shops,seconds,seconds_min,seconds_max,gen_ns_per_id,gen_ns_per_id_min,"
    "gen_ns_per_id_max,inserts_per_s_min,inserts_per_s_max,lat_p50_ns,lat_p50_ns_min,"
    "lat_p50_ns_max,lat_p99_ns_min,lat_p99_ns_max,lat_p999_ns,lat_p999_ns_min,lat_p999_ns_max,"
    "lat_max_ns,lat_max_ns_min,lat_max_ns_max,commit_p99_ns,commit_p99_ns_min,"
    "commit_p99_ns_max,leaf_pages,depth,fill_factor,file_bytes,pages_written,"
    "write_bytes_per_id,cache_misses,tail_insert_frac,insert_pos_p50,store_options";
#define OTHER_EMPTY ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,"   /* the 32 after batch and shops */

/* A results directory with insert.csv of rows[0..n) (20,000 IDs, 1 shard) and a meta.json
 * saying cores (none when 0), loaded into r. */
static void load(mx_results *r, char *dir, size_t len, const row *rows, int n, int cores)
{
    FILE *f = fixture_create(dir, len, "insert.csv");
    fprintf(f, "strategy,store,shards,ids,key_bytes,clients,inserts_per_s,lat_p99_ns,"
               "wait_ns_per_order,wait_share,repeats,%s\n", other_columns);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s,%s,1,20000,%d,%d,%.0f,%.0f,", rows[i].strategy, rows[i].store,
                rows[i].key_bytes, rows[i].clients, rows[i].ips, rows[i].p99);
        if (rows[i].wait >= 0) fprintf(f, "%.1f,0.5", rows[i].wait);
        else fputs(",", f);
        fprintf(f, ",1,100,1000%s\n", OTHER_EMPTY);
    }
    assert_int_equal(fclose(f), 0);
    if (cores) {
        char path[MX_FILE_MAX];
        snprintf(path, sizeof path, "%s/meta.json", dir);
        f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "{\n  \"format_version\": 3,\n  \"cores\": %d,\n  \"status\": \"complete\"\n}\n",
                cores);
        assert_int_equal(fclose(f), 0);
    }
    idb_err err = { 0 };
    if (mx_results_load(r, dir, &err) != 0) fail_msg("load: %s", err.msg);
}

/* The sentences of plot name for r, malloc'd. */
static char *say(const mx_results *r, const char *name)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(entry(name)->sentences(r, f), 0);
    fclose(f);
    return buf;
}

/* postgres: uuidv7 ahead with one writer, behind from 4 on (lost at 4); counter (16 B)
 * ahead all the way. sqlite: uuidv7 ahead all the way (kept). uuidv4 is the random line.
 * Every one-writer row of the sweep is faster than the sweep's others, and the headline
 * (one writer, most IDs) must not see the clients rows at all. */
static const row sweep[] = {
    { "counter", "postgres", 16, 1, 1200, 90000, -1 },
    { "counter", "postgres", 16, 4, 1500, 190000, 3000 },
    { "counter", "postgres", 16, 16, 1400, 900000, 9000 },
    { "uuidv7", "postgres", 16, 1, 1000, 100000, -1 },
    { "uuidv7", "postgres", 16, 4, 800, 200000, 4000 },
    { "uuidv7", "postgres", 16, 16, 700, 1000000, 12000 },
    { "uuidv4", "postgres", 16, 1, 800, 120000, -1 },
    { "uuidv4", "postgres", 16, 4, 850, 150000, 1000 },
    { "uuidv4", "postgres", 16, 16, 800, 400000, 2000 },
    { "uuidv7", "sqlite", 16, 1, 30000, 5000, -1 },
    { "uuidv7", "sqlite", 16, 4, 32000, 9000, 60000 },
    { "uuidv4", "sqlite", 16, 1, 15000, 8000, -1 },
    { "uuidv4", "sqlite", 16, 4, 14000, 20000, 150000 },
};
#define NSWEEP ((int)(sizeof sweep / sizeof *sweep))

/* The verdict on crafted rates: lost at the first C where ordered is not ahead; kept;
 * none to lose; points where either rate is missing skipped. */
static void test_lose_at(void **state)
{
    (void)state;
    long long c[] = { 1, 4, 16 };
    double ord[] = { 1000, 800, 700 }, rnd[] = { 800, 850, 800 };
    assert_int_equal(mx_clients_lose_at(c, ord, rnd, 3), 4);
    double kept[] = { 1000, 900, 810 };
    assert_int_equal(mx_clients_lose_at(c, kept, rnd, 3), 0);
    double tie[] = { 1000, 850, 900 };                       /* equal is not ahead */
    assert_int_equal(mx_clients_lose_at(c, tie, rnd, 3), 4);
    double none[] = { 700, 900, 900 };
    assert_int_equal(mx_clients_lose_at(c, none, rnd, 3), MX_NO_ADVANTAGE);
    double gap[] = { 1000, NAN, 700 };                       /* C = 4 not measured */
    assert_int_equal(mx_clients_lose_at(c, gap, rnd, 3), 16);
}

/* The report sentence from the rows, both verdicts, and the cores. */
static void test_sentence(void **state)
{
    (void)state;
    mx_results r;
    char dir[MX_SCRATCH_MAX];
    load(&r, dir, sizeof dir, sweep, NSWEEP, 2);
    char *s = say(&r, "clients");
    assert_non_null(strstr(s, "On postgres (20000 IDs, 1 shard): `counter (16 B)` inserted 1.50× "
                              "`uuidv4`'s rate with 1 writer and kept its advantage up to 16 "
                              "writers (1.75× there); `uuidv7` inserted 1.25× `uuidv4`'s rate "
                              "with 1 writer and lost that advantage at 4 writers (0.94×)"));
    assert_non_null(strstr(s, "lock wait per order at the most writers: `counter (16 B)` 9 µs, "
                              "`uuidv7` 12 µs against 2 µs for `uuidv4`."));
    assert_non_null(strstr(s, "On sqlite (20000 IDs, 1 shard): `uuidv7` inserted 2.00× "
                              "`uuidv4`'s rate with 1 writer and kept its advantage up to 4 "
                              "writers (2.29× there)"));
    assert_non_null(strstr(s, "This machine has 2 cores (meta.json): throughput cannot scale "
                              "past about 2 writers"));
    free(s);
    s = say(&r, "clients_wait");
    assert_non_null(strstr(s, "On postgres with 16 writers per shard, lock wait per order: "
                              "`counter (16 B)` 9 µs (50% of the clients' time)"));
    assert_null(strstr(s, "On sqlite"));                   /* no row at 16 writers */
    free(s);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);

    /* no meta.json: the sentence says the cores are unknown; no ordered line of uuidv4's
     * width: no sentence at all */
    load(&r, dir, sizeof dir, sweep, NSWEEP, 0);
    s = say(&r, "clients");
    assert_non_null(strstr(s, "meta.json does not say how many cores ran this."));
    free(s);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
    static const row lonely[] = {
        { "counter", "postgres", 8, 1, 1200, 90000, -1 },
        { "counter", "postgres", 8, 4, 1500, 190000, 3000 },
        { "uuidv4", "postgres", 16, 1, 800, 120000, -1 },
        { "uuidv4", "postgres", 16, 4, 850, 150000, 1000 },
    };
    load(&r, dir, sizeof dir, lonely, 4, 2);
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(entry("clients")->sentences(&r, f), IDB_EINPUT);
    fclose(f);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
}

/* Rows are keyed on clients: the one-writer row of each line is found apart from the
 * others, and the headline lookups see only one-writer rows. */
static void test_rows_keyed_on_clients(void **state)
{
    (void)state;
    mx_results r;
    char dir[MX_SCRATCH_MAX];
    load(&r, dir, sizeof dir, sweep, NSWEEP, 2);
    int ips = mx_table_col(&r.ins, "inserts_per_s");
    for (long long c = 1; c <= 16; c *= 4) {
        mx_row_key k = { "uuidv7", "postgres", 20000, 1, 16, c, 100 };
        int row = mx_find_row(&r.ins, &k);
        assert_true(row >= 0);
        assert_int_equal(mx_row_clients(&r.ins, row), c);
    }
    int row = mx_insert_row(&r.ins, "uuidv7", "postgres", 20000, 1);
    assert_true(row >= 0);
    assert_true(mx_table_num(&r.ins, row, ips) == 1000);      /* the one-writer row */
    mx_row_key k8 = { "uuidv7", "postgres", 20000, 1, 8, 4, 0 };
    assert_int_equal(mx_find_row(&r.ins, &k8), -1);            /* no 8-byte uuidv7 */
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
}

/* The first line of file in dir, read after the prepare step: block 1 of clients1.dat. */
static void data_lines(const char *dir, const char *file, char lines[][64], int n)
{
    char path[MX_FILE_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("no %s", path);
    for (int i = 0; i < n; i++) assert_non_null(fgets(lines[i], 64, f));
    fclose(f);
}

/* The data files: per store a panel file; per line (counter (16 B), uuidv7, uuidv4 in
 * registry order) a block of clients, inserts/s, p99 µs, wait µs; the variables name the
 * lines, dash the padded one, and list the clients values. */
static void test_data_files(void **state)
{
    (void)state;
    mx_results r;
    char dir[MX_SCRATCH_MAX];
    load(&r, dir, sizeof dir, sweep, NSWEEP, 2);
    char *vars = NULL;
    size_t vlen = 0;
    FILE *v = open_memstream(&vars, &vlen);
    idb_err why = { 0 };
    if (entry("clients")->prepare(&r, dir, v, &why) != 0) fail_msg("clients: %s", why.msg);
    fclose(v);
    char l[4][64];
    data_lines(dir, "clients1.dat", l, 4);                    /* postgres, counter (16 B) */
    assert_string_equal(l[0], "1\t1200\t90\tNaN\n");
    assert_string_equal(l[1], "4\t1500\t190\t3\n");
    assert_string_equal(l[2], "16\t1400\t900\t9\n");
    assert_string_equal(l[3], "\n");
    data_lines(dir, "clients2.dat", l, 2);                    /* sqlite: no counter rows */
    assert_string_equal(l[0], "\n");
    assert_non_null(strstr(vars, "panels = 2\n"));
    assert_non_null(strstr(vars, "xt = '1 4 16'\n"));
    assert_non_null(strstr(vars, "n = 3\n"));
    assert_non_null(strstr(vars, "dashes = '2 1 1'\n"));
    assert_non_null(strstr(vars, "t_1 = \"counter (16 B)\"\n"));
    assert_non_null(strstr(vars, "title1 = \"postgres, 20000 IDs\"\n"));
    free(vars);
    vars = NULL;
    v = open_memstream(&vars, &vlen);
    if (entry("clients_wait")->prepare(&r, dir, v, &why) != 0) fail_msg("wait: %s", why.msg);
    fclose(v);
    data_lines(dir, "wait1.dat", l, 1);
    assert_string_equal(l[0], "1\t1200\t90\tNaN\n");
    free(vars);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);

    /* no clients rows: not drawn, and it says why */
    static const row one[] = { { "uuidv7", "sqlite", 16, 1, 30000, 5000, -1 } };
    load(&r, dir, sizeof dir, one, 1, 2);
    v = tmpfile();
    assert_int_equal(entry("clients")->prepare(&r, dir, v, &why), IDB_EINPUT);
    assert_non_null(strstr(why.msg, "no insert.csv rows with more than one writer"));
    fclose(v);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lose_at),
        cmocka_unit_test(test_sentence),
        cmocka_unit_test(test_rows_keyed_on_clients),
        cmocka_unit_test(test_data_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
