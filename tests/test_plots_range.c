/* test_plots_range.c — the hot_share plot ("share of inserts on the busiest shard") and its
 * sentences from crafted results: range.csv's simulator rows by routing and insert.csv's
 * spider rows by their partition, each in the data file's column the script draws; claim
 * 8's verdict on each range side (holds, then fails for a uniform strategy on one backend);
 * "not run" for a side without rows; a strategy of neither kind shown, not judged.
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
#include "tmpdir.h"

#define RANGE_HEAD "workload,strategy,orders,duplicates,failed_orders,stalled_ms," \
    "coord_lat_p50_ms,coord_lat_p99_ms,inversion_frac,shard_monotonic,tail_insert_frac," \
    "id_bytes,routing,range_split,shards,hot_share,hot_share_p99,range_splits\n"
#define INSERT_HEAD "strategy,store,shards,ids,fill_factor,tail_insert_frac,inserts_per_s," \
    "inserts_per_s_min,inserts_per_s_max,repeats,key_bytes,batch,shops,seconds,seconds_min," \
    "seconds_max,gen_ns_per_id,gen_ns_per_id_min,gen_ns_per_id_max,lat_p50_ns," \
    "lat_p50_ns_min,lat_p50_ns_max,lat_p99_ns,lat_p99_ns_min,lat_p99_ns_max,lat_p999_ns," \
    "lat_p999_ns_min,lat_p999_ns_max,lat_max_ns,lat_max_ns_min,lat_max_ns_max," \
    "commit_p99_ns,commit_p99_ns_min,commit_p99_ns_max,leaf_pages,depth,file_bytes," \
    "pages_written,write_bytes_per_id,cache_misses,insert_pos_p50,store_options,hot_share," \
    "backend_shares\n"
#define EMPTY28 ",,,,,,,,,,,,,,,,,,,,,,,,,,,,"

/* The plot table's hot_share entry. */
static const mx_plot *entry(void)
{
    for (int i = 0; i < mx_n_plots; i++)
        if (strcmp(mx_plots[i].name, "hot_share") == 0) return &mx_plots[i];
    fail_msg("no hot_share plot");
    return NULL;
}

/* Write text to dir/name. */
static void put(const char *dir, const char *name, const char *text)
{
    char path[MX_FILE_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* One range.csv row: 100,000 orders on 64 shards. */
static void range_row(char *buf, size_t len, const char *st, const char *routing, double hot,
                      double p99)
{
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "range-hotspot,%s,100000,0,0,0,0,0,0,1,1,8,%s,%s,64,%.4f,%.4f,\n",
             st, routing, strcmp(routing, "range") ? "" : "space", hot, p99);
}

/* One spider row of insert.csv: 200,000 IDs, 4 backends. */
static void spider_row(char *buf, size_t len, const char *st, const char *partition, double hot)
{
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "%s,spider,1,200000,0.9,1,1000,1000,1000,1,8,1000,1000" EMPTY28
             ",partition=%s split=space backends=4,%.4f,%.4f;0.25;0.25;0.25\n", st, partition,
             hot, hot);
}

/* The sentences of the plot, malloc'd. */
static char *say(const mx_results *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(entry()->sentences(r, f), 0);
    fclose(f);
    return buf;
}

/* Load dir (range.csv and insert.csv as given) into r. */
static void load(mx_results *r, const char *dir, const char *range, const char *ins)
{
    put(dir, "range.csv", range);
    put(dir, "insert.csv", ins);
    idb_err err = { 0 };
    if (mx_results_load(r, dir, &err) != 0) fail_msg("load: %s", err.msg);
}

static void test_hot_share_plot(void **state)
{
    (void)state;
    char dir[MX_SCRATCH_MAX], range[4096] = RANGE_HEAD, ins[4096] = INSERT_HEAD;
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    range_row(range, sizeof range, "counter", "range", 1.0, 1.0);
    range_row(range, sizeof range, "counter", "hash", 0.0161, 0.0172);
    range_row(range, sizeof range, "uuidv4", "range", 0.0159, 0.0171);
    range_row(range, sizeof range, "uuidv4", "hash", 0.0160, 0.0170);
    range_row(range, sizeof range, "interleaved", "range", 1.0, 1.0);
    spider_row(ins, sizeof ins, "counter", "range", 1.0);
    spider_row(ins, sizeof ins, "uuidv4", "range", 0.2504);
    mx_results r;
    load(&r, dir, range, ins);
    FILE *vars = tmpfile();
    assert_non_null(vars);
    idb_err why = { 0 };
    if (entry()->prepare(&r, dir, vars, &why) != 0) fail_msg("prepare: %s", why.msg);
    fclose(vars);
    /* hot.dat, in registry order (counter, interleaved, uuidv4): index, sim range, sim hash,
     * spider range, spider hash (NaN), sim range p99 */
    char path[MX_FILE_MAX + 64];
    snprintf(path, sizeof path, "%s/hot.dat", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    double v[3][6];
    char sh[3][16];
    for (int i = 0; i < 3; i++)
        assert_int_equal(fscanf(f, "%lf %lf %lf %lf %15s %lf", &v[i][0], &v[i][1], &v[i][2],
                                &v[i][3], sh[i], &v[i][5]), 6);
    fclose(f);
    assert_true(v[0][1] == 1.0 && v[0][2] == 0.0161 && v[0][3] == 1.0 && v[0][5] == 1.0);
    assert_true(v[2][1] == 0.0159 && v[2][2] == 0.016 && v[2][3] == 0.2504);
    assert_true(v[1][1] == 1.0 && isnan(v[1][2]) && isnan(v[1][3]));   /* interleaved */
    assert_string_equal(sh[0], "NaN");                       /* no spider hash rows */
    char *s = say(&r);
    assert_non_null(strstr(s, "simulator, range (64 shards, fair share 0.0156): the "
                              "time-ordered `counter` put 1 of the inserts on the busiest"));
    assert_non_null(strstr(s, "the others (neither, or fewer uniform bits than shards need) 1 "
                              "(`interleaved`)"));
    assert_non_null(strstr(s, "uniform ones (random or bit-reversed) 0.0159 (`uuidv4`)"));
    assert_non_null(strstr(s, "spider, range (4 shards, fair share 0.25)"));
    assert_non_null(strstr(s, "spider, hash: not run"));
    const char *claim = strstr(s, "claim 9");
    assert_non_null(claim);
    assert_non_null(strstr(claim, ") holds."));
    assert_null(strstr(s, "does not hold"));
    free(s);
    mx_results_free(&r);
    /* uuidv4 on one backend of four: claim 9 does not hold on the real engine */
    char ins2[4096] = INSERT_HEAD;
    spider_row(ins2, sizeof ins2, "counter", "range", 1.0);
    spider_row(ins2, sizeof ins2, "uuidv4", "range", 0.9);
    spider_row(ins2, sizeof ins2, "uuidv4", "hash", 0.25);
    load(&r, dir, range, ins2);
    s = say(&r);
    const char *real = strstr(s, "spider, range");
    assert_non_null(real);
    assert_non_null(strstr(real, "does not hold (uuidv4: 0.9000 above Y"));
    assert_non_null(strstr(s, "spider, hash (4 shards"));
    assert_null(strstr(s, "not run"));
    free(s);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
}

/* The matrix's insert.csv has no backend_shares column (its `;` lists stay in insert's own
 * output): a spider side's backends come from its rows' store option backends=4. */
static void test_backends_from_options(void **state)
{
    (void)state;
    char dir[MX_SCRATCH_MAX], range[4096] = RANGE_HEAD;
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    range_row(range, sizeof range, "counter", "range", 1.0, 1.0);
    mx_results r;
    char *s, ins3[4096];
    snprintf(ins3, sizeof ins3, "%s", INSERT_HEAD);
    *strstr(ins3, ",backend_shares") = 0;
    strcat(ins3, "\n");
    static const char *const rows[][2] = { { "counter", "1.0000" }, { "uuidv4", "0.2504" } };
    for (size_t i = 0; i < 2; i++) {
        size_t n = strlen(ins3);
        snprintf(ins3 + n, sizeof ins3 - n, "%s,spider,1,200000,0.9,1,1000,1000,1000,1,8,1000,"
                 "1000" EMPTY28 ",backends=4 partition=%s split=space,%s\n", rows[i][0],
                 i ? "key" : "hash", rows[i][1]);
    }
    load(&r, dir, range, ins3);
    s = say(&r);
    assert_non_null(strstr(s, "spider, hash (4 shards, fair share 0.25)"));
    assert_non_null(strstr(s, "spider, range: not run"));
    free(s);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_hot_share_plot),
                                        cmocka_unit_test(test_backends_from_options) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
