/* test_plots.c — the plot table (mx_plots) against the plots/ folder, and report sentences
 * that must agree with their figures: every entry has a script plots/NAME.gp and every
 * script but common.gp an entry; the fill-factor sentence calls a store's random-key fill
 * near ln 2 only when it is, the inserts sentence names whose min–max ranges overlap; the
 * bytes_per_row, then and reads plots' data files; the counter-kill plot's data file has
 * the orders failed and the IDs handed out twice in the columns its script draws them from.
 * The ratio paragraph: test_plots_ratio.c; gnuplot literals and mx_num: test_gp_text.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <math.h>
#include <sys/stat.h>

#include "matrix.h"
#include "plots.h"
#include "tmpdir.h"
#include "results_fixture.h"

/* The table entry named name, or NULL. */
static const mx_plot *entry(const char *name)
{
    for (int i = 0; i < mx_n_plots; i++)
        if (strcmp(mx_plots[i].name, name) == 0) return &mx_plots[i];
    return NULL;
}

/* Every entry: a name, a title, both functions, a script; names unique. */
static void test_every_entry_has_a_script(void **state)
{
    (void)state;
    assert_true(mx_n_plots > 0 && mx_n_plots <= MX_PLOTS_MAX);
    for (int i = 0; i < mx_n_plots; i++) {
        const mx_plot *p = &mx_plots[i];
        assert_non_null(p->name);
        assert_non_null(p->title);
        assert_true(p->name[0] && p->title[0]);
        assert_non_null(p->prepare);
        assert_non_null(p->sentences);
        assert_ptr_equal(entry(p->name), p);
        char path[MX_FILE_MAX];
        snprintf(path, sizeof path, "%s/plots/%s.gp", mx_source_dir(), p->name);
        if (access(path, R_OK) != 0) fail_msg("plot table entry %s has no %s", p->name, path);
    }
}

/* Scripts that are not plots of a results directory: what every plot shares, and the one
 * plot of `idbench locality` (loc_summary.c). */
static int outside_table(const char *script)
{
    return !strcmp(script, "common.gp") || !strcmp(script, "locality.gp");
}

/* Every plots/NAME.gp but those: an entry of the table. */
static void test_every_script_has_an_entry(void **state)
{
    (void)state;
    char dir[MX_FILE_MAX];
    snprintf(dir, sizeof dir, "%s/plots", mx_source_dir());
    DIR *d = opendir(dir);
    assert_non_null(d);
    int scripts = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n <= 3 || strcmp(e->d_name + n - 3, ".gp") != 0) continue;
        if (outside_table(e->d_name)) continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(n - 3), e->d_name);
        if (!entry(name)) fail_msg("plots/%s has no entry in the plot table", e->d_name);
        scripts++;
    }
    closedir(d);
    assert_int_equal(scripts, mx_n_plots);
}

/* A results directory holding insert.csv with rows (strategy, store, fill, tail, ips,
 * ips_min, ips_max), 1000 IDs on 1 shard; loaded into r. */
typedef struct row {
    const char *strategy, *store;
    double fill, tail, ips, ips_min, ips_max;
    double pages;                          /* pages_written; 0 prints empty (unknown) */
} row;

/* The other columns insert.csv must have (key_bytes, batch, shops: 8, 1000, 1000; the rest
 * empty: unknown). */
static const char other_columns[] =
    "key_bytes,batch,shops,seconds,seconds_min,seconds_max,gen_ns_per_id,gen_ns_per_id_min,"
    "gen_ns_per_id_max,lat_p50_ns,lat_p50_ns_min,lat_p50_ns_max,lat_p99_ns,lat_p99_ns_min,"
    "lat_p99_ns_max,lat_p999_ns,lat_p999_ns_min,lat_p999_ns_max,lat_max_ns,lat_max_ns_min,"
    "lat_max_ns_max,commit_p99_ns,commit_p99_ns_min,commit_p99_ns_max,leaf_pages,depth,"
    "file_bytes,write_bytes_per_id,cache_misses,insert_pos_p50,store_options";

static void load(mx_results *r, char *dir, size_t len, const row *rows, int n)
{
    FILE *f = fixture_create(dir, len, "insert.csv");
    fprintf(f, "strategy,store,shards,ids,fill_factor,tail_insert_frac,inserts_per_s,"
               "inserts_per_s_min,inserts_per_s_max,repeats,pages_written,%s\n", other_columns);
    for (int i = 0; i < n; i++) {
        char pages[32] = "";
        if (rows[i].pages > 0) snprintf(pages, sizeof pages, "%.0f", rows[i].pages);
        fprintf(f, "%s,%s,1,1000,%.4f,%.4f,%.0f,%.0f,%.0f,3,%s,8,1000,1000%s\n",
                rows[i].strategy, rows[i].store, rows[i].fill, rows[i].tail, rows[i].ips,
                rows[i].ips_min, rows[i].ips_max, pages, ",,,,,,,,,,,,,,,,,,,,,,,,,,,,");
    }
    fixture_load(r, dir, f);
}

/* The sentences of plot name for r, in a malloc'd string. */
static char *say(const mx_results *r, const char *name)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_non_null(entry(name));
    assert_int_equal(entry(name)->sentences(r, f), 0);
    fclose(f);
    return buf;
}

static const row sample[] = {
    { "counter", "sqlite", 0.984, 1, 390000, 350000, 470000, 0 },
    { "uuidv4", "sqlite", 0.869, 0.0001, 18000, 17000, 19000, 0 },
    { "snowflake", "sqlite", 0.980, 1, 391000, 360000, 480000, 0 },
    { "ulid", "sqlite", 0.878, 1, 270000, 240000, 320000, 0 },
    { "counter", "lmdb", 0.961, 1, 1500000, 1400000, 1600000, 0 },
    { "uuidv4", "lmdb", 0.670, 0.0001, 180000, 170000, 210000, 0 },
};

/* SQLite's random-key fill of 0.87 is not near ln 2; LMDB's 0.67 is. */
static void test_fill_sentence_follows_the_figures(void **state)
{
    (void)state;
    mx_results r;
    char dir[MX_SCRATCH_MAX];
    load(&r, dir, sizeof dir, sample, sizeof sample / sizeof *sample);
    char *s = say(&r, "fill_factor");
    assert_non_null(strstr(s, "sqlite: `uuidv4` fills leaves to 0.87, `counter` to 0.98"));
    assert_non_null(strstr(s, "within 0.05 of it on lmdb (0.67), but not on sqlite (0.87)."));
    assert_null(strstr(s, "tends to ln 2"));
    free(s);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);

    row near[sizeof sample / sizeof *sample];                /* now sqlite settles near it */
    memcpy(near, sample, sizeof near);
    near[1].fill = 0.70;
    load(&r, dir, sizeof dir, near, sizeof near / sizeof *near);
    s = say(&r, "fill_factor");
    assert_non_null(strstr(s, "within 0.05 of it on lmdb (0.67) and sqlite (0.70)."));
    assert_null(strstr(s, "but not"));
    free(s);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
}

/* pages_written: the sentence names the strategy that wrote the most and the one that wrote
 * the fewest as such (the old wording put "the fewest" after the most's name), with their
 * per-ID figures (1000 IDs) and the ratio. */
static void test_pages_sentence_names_most_and_fewest(void **state)
{
    (void)state;
    row rows[sizeof sample / sizeof *sample];
    memcpy(rows, sample, sizeof rows);
    const double pages[] = { 48, 2040, 50, 66, 32, 887 };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) rows[i].pages = pages[i];
    mx_results r;
    char dir[MX_SCRATCH_MAX];
    load(&r, dir, sizeof dir, rows, sizeof rows / sizeof *rows);
    char *s = say(&r, "pages_written");
    assert_non_null(strstr(s, "On sqlite, `uuidv4` wrote the most pages per ID inserted, 2.04: "
                              "42.5× the 0.048 of `counter`, which wrote the fewest."));
    free(s);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
}

/* bytes_per_row: insert.csv with the storage columns (id_bytes, bytes_per_row) for four
 * strategies on sqlite and one on lmdb; f the file's path. */
static void storage_csv(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "strategy,store,shards,ids,fill_factor,tail_insert_frac,inserts_per_s,"
               "inserts_per_s_min,inserts_per_s_max,repeats,pages_written,id_bytes,"
               "bytes_per_row,%s\n", other_columns);
    static const struct { const char *st, *store; int width; double bytes; } v[] = {
        { "counter", "sqlite", 8, 24.5 }, { "uuidv4", "sqlite", 16, 51.25 },
        { "uuidv7", "sqlite", 16, 33.0 }, { "snowflake", "sqlite", 8, 25.0 },
        { "uuidv4", "lmdb", 16, 99.0 },
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        fprintf(f, "%s,%s,1,1000,0.9,0.5,1000,900,1100,3,10,%d,%.2f,8,1000,1000%s\n", v[i].st,
                v[i].store, v[i].width, v[i].bytes, ",,,,,,,,,,,,,,,,,,,,,,,,,,,,");
    assert_int_equal(fclose(f), 0);
}

/* bytes_per_row: its data file holds per store its bytes per row by strategy (sqlite's
 * row: counter, uuidv4, uuidv7, snowflake in `idbench list` order), and the sentence names
 * the most and the fewest on the main store with their ID widths and the ratio; results
 * without the storage columns give no sentence (and no plot). */
static void test_bytes_per_row_plot(void **state)
{
    (void)state;
    char dir[MX_SCRATCH_MAX], path[MX_FILE_MAX];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    snprintf(path, sizeof path, "%s/insert.csv", dir);
    storage_csv(path);
    mx_results r;
    assert_int_equal(mx_results_load(&r, dir, NULL), 0);
    char *s = say(&r, "bytes_per_row");
    assert_non_null(strstr(s, "On sqlite, rows of `uuidv4` take the most bytes on disk, 51.2 "
                              "per row (16-byte IDs): 2.09× the 24.5 of `counter` (8-byte "
                              "IDs), which take the fewest."));
    free(s);
    char *vars = NULL;
    size_t vlen = 0;
    FILE *vf = open_memstream(&vars, &vlen);
    idb_err why = { 0 };
    assert_int_equal(entry("bytes_per_row")->prepare(&r, dir, vf, &why), 0);
    fclose(vf);
    assert_non_null(strstr(vars, "x_1 = \"sqlite\""));
    free(vars);
    snprintf(path, sizeof path, "%s/bytes_per_row.dat", dir);
    FILE *d = fopen(path, "r");
    assert_non_null(d);
    char line[256];
    assert_non_null(fgets(line, sizeof line, d));
    double c[5];
    assert_int_equal(sscanf(line, "%lf %lf %lf %lf %lf", &c[0], &c[1], &c[2], &c[3], &c[4]), 5);
    assert_true(c[0] == 1 && c[1] == 24.5 && c[2] == 51.25 && c[3] == 33 && c[4] == 25);
    fclose(d);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);

    load(&r, dir, sizeof dir, sample, sizeof sample / sizeof *sample);   /* no such columns */
    FILE *f = fopen("/dev/null", "w");
    assert_int_equal(entry("bytes_per_row")->sentences(&r, f), IDB_EINPUT);
    fclose(f);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
}

/* then: insert.csv with one run and three second phases on sqlite (uuidv4 -> uuidv7,
 * uuidv4 -> uuidv4, counter -> snowflake) and one on lmdb; the data file holds per store the
 * pages written per row of each pair's phase (the pairs in file order, NaN where a store
 * lacks one), the titles name both strategies, the sentence gives per store the fewest and
 * the most with their ratio; without second phases, no plot and no sentence. */
static void test_then_plot(void **state)
{
    (void)state;
    char dir[MX_SCRATCH_MAX], path[MX_FILE_MAX];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    snprintf(path, sizeof path, "%s/insert.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "strategy,store,shards,ids,fill_factor,tail_insert_frac,inserts_per_s,"
               "inserts_per_s_min,inserts_per_s_max,repeats,pages_written,phase,"
               "first_strategy,%s\n", other_columns);
    static const struct { const char *st, *store, *phase, *first; int pages; } v[] = {
        { "uuidv4", "sqlite", "run", "", 900 }, { "uuidv7", "sqlite", "then", "uuidv4", 40 },
        { "uuidv4", "sqlite", "then", "uuidv4", 1000 },
        { "snowflake", "sqlite", "then", "counter", 30 },
        { "uuidv7", "lmdb", "then", "uuidv4", 50 },
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        fprintf(f, "%s,%s,1,1000,0.9,0.5,1000,900,1100,3,%d,%s,%s,8,1000,1000%s\n", v[i].st,
                v[i].store, v[i].pages, v[i].phase, v[i].first, ",,,,,,,,,,,,,,,,,,,,,,,,,,,,");
    assert_int_equal(fclose(f), 0);
    mx_results r;
    assert_int_equal(mx_results_load(&r, dir, NULL), 0);
    assert_int_equal(r.then.nrow, 4);
    char *s = say(&r, "then");
    assert_non_null(strstr(s, "On sqlite, `counter` → `snowflake` wrote the fewest pages per "
                              "row of its second phase (0.03) and `uuidv4` → `uuidv4` the most "
                              "(1, 33.3× as many).\n"));
    assert_non_null(strstr(s, "On lmdb, `uuidv4` → `uuidv7` wrote 0.05 pages per row.\n"));
    free(s);
    char *vars = NULL;
    size_t vlen = 0;
    FILE *vf = open_memstream(&vars, &vlen);
    idb_err why = { 0 };
    assert_int_equal(entry("then")->prepare(&r, dir, vf, &why), 0);
    fclose(vf);
    assert_non_null(strstr(vars, "x_1 = \"sqlite\""));
    assert_non_null(strstr(vars, "x_2 = \"lmdb\""));
    assert_non_null(strstr(vars, "n = 3\n"));
    assert_non_null(strstr(vars, "t_1 = \"uuidv4 to uuidv7\""));
    assert_non_null(strstr(vars, "t_3 = \"counter to snowflake\""));
    free(vars);
    snprintf(path, sizeof path, "%s/then.dat", dir);
    FILE *d = fopen(path, "r");
    assert_non_null(d);
    char line[256];
    double c[4];
    assert_non_null(fgets(line, sizeof line, d));
    assert_int_equal(sscanf(line, "%lf %lf %lf %lf", &c[0], &c[1], &c[2], &c[3]), 4);
    assert_true(c[0] == 1 && c[1] == 0.04 && c[2] == 1 && c[3] == 0.03);
    assert_non_null(fgets(line, sizeof line, d));
    assert_int_equal(sscanf(line, "%lf %lf", &c[0], &c[1]), 2);
    assert_true(c[0] == 2 && c[1] == 0.05 && strstr(line, "NaN"));
    fclose(d);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);

    load(&r, dir, sizeof dir, sample, sizeof sample / sizeof *sample);   /* no second phase */
    f = fopen("/dev/null", "w");
    assert_int_equal(entry("then")->sentences(&r, f), IDB_EINPUT);
    fclose(f);
    vf = fopen("/dev/null", "w");
    assert_int_equal(entry("then")->prepare(&r, dir, vf, &why), IDB_EINPUT);
    fclose(vf);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
}

/* reads: read.csv of two blocks; only the first ("read") is drawn: per (store, pattern) a
 * row of misses per lookup by strategy in registry order (none for a group without any
 * figure: pagesim uniform), the labels "STORE PATTERN", the
 * sentences name the fewest and the most per group with the ratio; the second block's
 * figures (99) appear nowhere; without read.csv, no plot and no sentence. */
static void test_reads_plot(void **state)
{
    (void)state;
    char dir[MX_SCRATCH_MAX], path[MX_FILE_MAX];
    mx_results r;
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    snprintf(path, sizeof path, "%s/read.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "block,store,strategy,pattern,cache,lookups,found,not_found,misses_per_lookup,"
               "read_pages_per_lookup,lookups_per_s,lat_p50_ns,lat_p99_ns,miss_ids,miss_share,"
               "rows,seed,rows_returned,misses_per_row\n");
    static const struct { const char *block, *store, *st, *pat; double m; } v[] = {
        { "read", "sqlite", "uuidv4", "recent:5", 0.345 }, { "read", "sqlite", "counter",
          "recent:5", 0.03 }, { "read", "sqlite", "uuidv4", "uniform", 0.385 },
        { "read", "sqlite", "counter", "uniform", 0.31 },
        { "read", "pagesim", "counter", "recent:5", 0.025 },
        { "read.more", "sqlite", "counter", "recent:5", 99 },
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        fprintf(f, "%s,%s,%s,%s,cold,200,200,0,%.4f,%.4f,,,,0,0.0000,3000,1,,\n", v[i].block,
                v[i].store, v[i].st, v[i].pat, v[i].m, v[i].m);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(mx_results_load(&r, dir, NULL), 0);
    char *s = say(&r, "reads");
    assert_string_equal(s, "On sqlite, recent:5 lookups: `counter` missed the fewest pages per "
                           "lookup (0.03), `uuidv4` the most (0.345, 11.5×).\n"
                           "On sqlite, uniform lookups: `counter` missed the fewest pages per "
                           "lookup (0.31), `uuidv4` the most (0.385, 1.24×).\n");
    free(s);
    char *vars = NULL;
    size_t vlen = 0;
    FILE *vf = open_memstream(&vars, &vlen);
    idb_err why = { 0 };
    assert_int_equal(entry("reads")->prepare(&r, dir, vf, &why), 0);
    fclose(vf);
    assert_non_null(strstr(vars, "x_1 = \"sqlite recent\0725\""));
    assert_non_null(strstr(vars, "x_3 = \"pagesim recent\0725\""));
    assert_null(strstr(vars, "x_4"));                    /* pagesim uniform: no figure */
    assert_non_null(strstr(vars, "t_1 = \"counter\""));
    assert_non_null(strstr(vars, "t_2 = \"uuidv4\""));
    free(vars);
    snprintf(path, sizeof path, "%s/reads.dat", dir);
    FILE *d = fopen(path, "r");
    assert_non_null(d);
    char all[512] = "";
    size_t n = fread(all, 1, sizeof all - 1, d);
    all[n] = 0;
    fclose(d);
    assert_string_equal(all, "1\t0.03\t0.345\n2\t0.31\t0.385\n3\t0.025\tNaN\n");
    mx_results_free(&r);
    idb_tmpdir_remove(dir);

    load(&r, dir, sizeof dir, sample, sizeof sample / sizeof *sample);   /* no read.csv */
    f = fopen("/dev/null", "w");
    assert_int_equal(entry("reads")->sentences(&r, f), IDB_EINPUT);
    fclose(f);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
}

/* counter_kill: kill.dat holds per run its index, the orders failed (column 2) and the IDs
 * handed out twice (column 3), as plots/counter_kill.gp draws them; the sentence names
 * each figure. On results/sample's counterkill.csv (failed 5 and 5, twice 0 and 400), so
 * swapped columns show. */
static void test_kill_plot_columns(void **state)
{
    (void)state;
    mx_results r;
    char dir[MX_SCRATCH_MAX], path[MX_FILE_MAX + 32];
    assert_int_equal(idb_tmpdir_make(dir, sizeof dir), 0);
    snprintf(path, sizeof path, "%s/insert.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "strategy,store,shards,ids,fill_factor,tail_insert_frac,inserts_per_s,"
               "inserts_per_s_min,inserts_per_s_max,repeats,pages_written,%s\n", other_columns);
    assert_int_equal(fclose(f), 0);
    char cmd[2 * MX_FILE_MAX + 64];                /* the sample's: postgres 5 failed, 0
                                                    * twice; redis:none 5 failed, 400 twice */
    snprintf(cmd, sizeof cmd, "cp '%s/results/sample/counterkill.csv' '%s/'", mx_source_dir(),
             dir);
    assert_int_equal(system(cmd), 0);
    idb_err lerr = { 0 };
    if (mx_results_load(&r, dir, &lerr) != 0) fail_msg("load: %s", lerr.msg);
    FILE *vars = tmpfile();
    assert_non_null(vars);
    idb_err why = { 0 };
    if (entry("counter_kill")->prepare(&r, dir, vars, &why) != 0)
        fail_msg("counter_kill: %s", why.msg);
    fclose(vars);
    snprintf(path, sizeof path, "%s/kill.dat", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    char line[2][64];
    assert_non_null(fgets(line[0], sizeof line[0], f));
    assert_non_null(fgets(line[1], sizeof line[1], f));
    fclose(f);
    assert_string_equal(line[0], "0\t5\t0\n");           /* run, failed, duplicates */
    assert_string_equal(line[1], "1\t5\t400\n");
    char *s = say(&r, "counter_kill");
    assert_non_null(strstr(s, "handed out 400 IDs twice after the restart (5 orders failed)"));
    free(s);
    /* the script: column 2 is drawn as the orders failed, column 3 as the IDs twice */
    snprintf(path, sizeof path, "%s/plots/counter_kill.gp", mx_source_dir());
    f = fopen(path, "r");
    assert_non_null(f);
    char gp[4096];
    size_t n = fread(gp, 1, sizeof gp - 1, f);
    gp[n] = 0;
    fclose(f);
    const char *c2 = strstr(gp, "0.18):2"), *c3 = strstr(gp, "0.18):3");
    assert_non_null(c2);
    assert_non_null(c3);
    assert_true(strstr(c2, "title 'orders failed") && strstr(c2, "title 'orders failed") < c3);
    assert_non_null(strstr(c3, "title 'IDs handed out twice'"));
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
}

/* The highest median's range overlaps counter's (not ulid's nor uuidv4's). */
static void test_inserts_sentence_names_overlaps(void **state)
{
    (void)state;
    mx_results r;
    char dir[MX_SCRATCH_MAX];
    load(&r, dir, sizeof dir, sample, sizeof sample / sizeof *sample);
    char *s = say(&r, "inserts");
    assert_non_null(strstr(s, "`snowflake` had the highest median rate (391,000 inserts per "
                              "second; its min–max range overlaps those of `counter`)"));
    assert_non_null(strstr(s, "`uuidv4` the lowest (18,000)"));
    free(s);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);

    row apart[sizeof sample / sizeof *sample];               /* now above every other range */
    memcpy(apart, sample, sizeof apart);
    apart[2].ips_min = 475000;
    apart[2].ips_max = 500000;
    load(&r, dir, sizeof dir, apart, sizeof apart / sizeof *apart);
    s = say(&r, "inserts");
    assert_non_null(strstr(s, "(391,000 inserts per second, its min–max range above every "
                              "other strategy's)"));
    free(s);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_entry_has_a_script),
        cmocka_unit_test(test_every_script_has_an_entry),
        cmocka_unit_test(test_fill_sentence_follows_the_figures),
        cmocka_unit_test(test_inserts_sentence_names_overlaps),
        cmocka_unit_test(test_kill_plot_columns),
        cmocka_unit_test(test_pages_sentence_names_most_and_fewest),
        cmocka_unit_test(test_bytes_per_row_plot),
        cmocka_unit_test(test_then_plot),
        cmocka_unit_test(test_reads_plot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
