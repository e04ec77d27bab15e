/* test_plots_failover.c — the failover_dups plot, its sentence and its report table, from a
 * crafted failover.csv with known figures ([faults.replicated]: a row per backend and
 * replication mode): the data file's bars are the duplicate_ids column (each run once, its
 * first row), the sentence names the modes that repeated IDs (with how many) and those
 * that repeated none, the report's section has the table with each figure (an empty
 * failover_ms as "—"); a failover.csv with a bad field is refused with one message naming
 * the file, line and column; no rows: the plot says why it is not drawn.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "plots.h"
#include "tmpdir.h"

#define HEAD "run,backend,mode,strategy,store,shards,ids,failed_orders,duplicate_ids," \
    "duplicate_rows,lost_ids,failover_ms,phase\n"
/* Known figures: two modes repeat IDs, two do not; redis:wait1's failover_ms unknown; a
 * second postgres:async row (a later file's) is not counted again; every column the table
 * shows differs from its neighbours (duplicate_rows from duplicate_ids too), so that a
 * column read in place of another shows. */
#define ROWS "postgres:async,postgres,async,counter,sqlite,1,4000,1,1367,1300,3,493.6,main\n" \
    "postgres:sync,postgres,sync,counter,sqlite,1,4000,2,0,0,0,618.1,main\n"                 \
    "redis:nowait,redis,nowait,counter,sqlite,1,4000,7,158,150,11,328.1,main\n"              \
    "redis:wait1,redis,wait1,counter,sqlite,1,4000,2,0,0,0,,main\n"                          \
    "postgres:async,postgres,async,counter,sqlite,1,4000,1,99999,0,0,1.0,main\n"

/* The plot table's failover_dups entry and its index. */
static const mx_plot *entry(int *index)
{
    for (int i = 0; i < mx_n_plots; i++)
        if (strcmp(mx_plots[i].name, "failover_dups") == 0) {
            if (index) *index = i;
            return &mx_plots[i];
        }
    fail_msg("no failover_dups plot");
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

/* dir/name's text, malloc'd. */
static char *slurp(const char *dir, const char *name)
{
    char path[MX_FILE_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len;
    char *text = mx_read_file(path, &len, NULL);
    assert_non_null(text);
    return text;
}

static void test_failover_figures(void **state)
{
    (void)state;
    char dir[MX_SCRATCH_MAX];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    put(dir, "failover.csv", HEAD ROWS);
    mx_results r;
    idb_err err = { 0 };
    if (mx_results_load(&r, dir, &err) != 0) fail_msg("load: %s", err.msg);
    int index;
    const mx_plot *p = entry(&index);
    assert_string_equal(p->title, "Duplicates after a counter failover, by backend and "
                                  "replication mode");
    FILE *vars = tmpfile();
    assert_non_null(vars);
    if (p->prepare(&r, dir, vars, &err) != 0) fail_msg("prepare: %s", err.msg);
    fclose(vars);
    char *dat = slurp(dir, "failover.dat");                /* index, duplicate_ids */
    assert_string_equal(dat, "0\t1367\n1\t0\n2\t158\n3\t0\n");
    free(dat);
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    assert_non_null(f);
    assert_int_equal(p->sentences(&r, f), 0);
    fclose(f);
    assert_non_null(strstr(s, "postgres async (1,367 IDs), redis nowait (158 IDs) handed out "
                              "IDs twice; postgres sync, redis wait1 repeated no ID."));
    free(s);
    if (mx_report_write(&r, &err) != 0) fail_msg("report: %s", err.msg);
    char *md = slurp(dir, "report.md"), title[256];
    snprintf(title, sizeof title, "## %d. Duplicates after a counter failover", index + 1);
    const char *sec = strstr(md, title);
    assert_non_null(sec);
    static const char *const want[] = {
        "| backend | mode | orders | duplicate_ids | lost_ids | failed_orders | failover_ms |",
        "| postgres | async | 4,000 | 1,367 | 3 | 1 | 494 |",
        "| postgres | sync | 4,000 | 0 | 0 | 2 | 618 |",
        "| redis | nowait | 4,000 | 158 | 11 | 7 | 328 |",
        "| redis | wait1 | 4,000 | 0 | 0 | 2 | — |",
    };
    const char *next = strstr(sec + 3, "\n## ");
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const char *at = strstr(sec, want[i]);
        if (!at || (next && at > next)) fail_msg("no row '%s' in the section", want[i]);
    }
    assert_null(strstr(md, "99,999"));                     /* a run counts once */
    free(md);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
}

/* Only repeats, or none: the sentence says only the half it has. */
static void test_one_sided(void **state)
{
    (void)state;
    char dir[MX_SCRATCH_MAX];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    put(dir, "failover.csv", HEAD
        "postgres:sync,postgres,sync,counter,sqlite,1,4000,2,0,0,0,618.1,main\n");
    mx_results r;
    idb_err err = { 0 };
    if (mx_results_load(&r, dir, &err) != 0) fail_msg("load: %s", err.msg);
    char *s = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&s, &len);
    assert_int_equal(entry(NULL)->sentences(&r, f), 0);
    fclose(f);
    assert_non_null(strstr(s, "promoted: postgres sync repeated no ID.\n"));
    assert_null(strstr(s, "twice"));
    free(s);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
}

/* A bad field is refused naming the file, its line and the column; no rows: not drawn. */
static void test_refused(void **state)
{
    (void)state;
    static const struct { const char *row, *msg; } bad[] = {
        { "redis:nowait,redis,nowait,counter,sqlite,1,4000,7,-5,0,11,328.1,main\n",
          "failover.csv:3: duplicate_ids: '-5' is out of range 0..1.12589990684262e+15" },
        { "redis:nowait,redis,nowait,counter,sqlite,1,4000,7,158,0,many,328.1,main\n",
          "failover.csv:3: lost_ids: 'many' is not an integer" },
        { "redis:nowait,redis,nowait,counter,sqlite,1,4000,,158,0,11,328.1,main\n",
          "failover.csv:3: failed_orders: '' is empty" },
    };
    char dir[MX_SCRATCH_MAX], text[1024];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(text, sizeof text, "%s%s%s", HEAD,
                 "postgres:sync,postgres,sync,counter,sqlite,1,4000,2,0,0,0,618.1,main\n",
                 bad[i].row);
        put(dir, "failover.csv", text);
        mx_results r;
        idb_err err = { 0 };
        assert_int_equal(mx_results_load(&r, dir, &err), IDB_EINPUT);
        assert_string_equal(err.msg, bad[i].msg);
        assert_null(strchr(err.msg, '\n'));
    }
    put(dir, "failover.csv", HEAD);
    mx_results r;
    idb_err err = { 0 };
    if (mx_results_load(&r, dir, &err) != 0) fail_msg("load: %s", err.msg);
    FILE *vars = tmpfile();
    assert_int_equal(entry(NULL)->prepare(&r, dir, vars, &err), IDB_EINPUT);
    fclose(vars);
    assert_non_null(strstr(err.msg, "no failover.csv rows"));
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_failover_figures),
                                        cmocka_unit_test(test_one_sided),
                                        cmocka_unit_test(test_refused) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
