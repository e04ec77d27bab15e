/* test_plots_ratio.c — the uuidv4-against-counter paragraph of the report (mx_say_ratio):
 * its ratios computed per store from the figures of insert.csv, known figures only, raw
 * counts rather than per-ID figures rounded for print, and the multiple formatter mx_ratio.
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
#include "results_fixture.h"

/* A row of the ratio fixture: figures as text, "" when unknown. */
typedef struct ratio_row {
    const char *strategy, *store, *ips, *pages, *bytes, *wal;
    const char *ids;                                   /* NULL: 1000 */
    const char *fpi, *fpi_per_id;                      /* NULL: unknown */
} ratio_row;

/* The columns insert.csv must have that the ratio fixture leaves empty. */
static const char ratio_empty[] =
    "seconds,seconds_min,seconds_max,gen_ns_per_id,gen_ns_per_id_min,gen_ns_per_id_max,"
    "lat_p50_ns,lat_p50_ns_min,lat_p50_ns_max,lat_p99_ns,lat_p99_ns_min,lat_p99_ns_max,"
    "lat_p999_ns,lat_p999_ns_min,lat_p999_ns_max,lat_max_ns,lat_max_ns_min,lat_max_ns_max,"
    "commit_p99_ns,commit_p99_ns_min,commit_p99_ns_max,leaf_pages,depth,write_bytes_per_id,"
    "cache_misses,insert_pos_p50,store_options";
#define RATIO_EMPTY_COLS 27

/* A results directory whose insert.csv holds rows (1000 IDs, 1 shard), loaded into r. */
static void load_ratio(mx_results *r, char *dir, size_t len, const ratio_row *rows, int n)
{
    FILE *f = fixture_create(dir, len, "insert.csv");
    fprintf(f, "strategy,store,shards,ids,fill_factor,tail_insert_frac,inserts_per_s,"
               "inserts_per_s_min,inserts_per_s_max,repeats,key_bytes,batch,shops,"
               "pages_written,file_bytes,wal_bytes_per_id,fpi,fpi_per_id,%s\n", ratio_empty);
    for (int i = 0; i < n; i++) {
        const ratio_row *w = &rows[i];
        fprintf(f, "%s,%s,1,%s,0.9,0.5,%s,%s,%s,3,8,1000,1000,%s,%s,%s,%s,%s", w->strategy,
                w->store, w->ids ? w->ids : "1000", w->ips, w->ips, w->ips, w->pages, w->bytes,
                w->wal, w->fpi ? w->fpi : "", w->fpi_per_id ? w->fpi_per_id : "");
        for (int c = 0; c < RATIO_EMPTY_COLS; c++) fputc(',', f);
        fputc('\n', f);
    }
    fixture_load(r, dir, f);
}

/* mx_say_ratio's paragraph for a results directory holding rows, in a malloc'd string
 * (NULL when it returned non-zero); the directory is gone again. */
static char *say_ratio(const ratio_row *rows, int n)
{
    mx_results r;
    char dir[MX_SCRATCH_MAX], *buf = NULL;
    size_t len = 0;
    load_ratio(&r, dir, sizeof dir, rows, n);
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    int rc = mx_say_ratio(&r, f);
    fclose(f);
    mx_results_free(&r);
    idb_tmpdir_remove(dir);
    if (rc == 0) return buf;
    assert_int_equal(rc, IDB_EINPUT);
    assert_int_equal(len, 0);
    free(buf);
    return NULL;
}

static const ratio_row ratio_sample[] = {
    { "counter", "sqlite", "400000", "1000", "4000000", "", NULL, NULL, NULL },
    { "uuidv4", "sqlite", "20000", "40000", "6000000", "", NULL, NULL, NULL },
    { "counter", "pagesim", "", "500", "2000000", "", NULL, NULL, NULL },
    { "uuidv4", "pagesim", "", "800", "3000000", "", NULL, NULL, NULL },
    { "counter", "null", "10000000", "0", "0", "", NULL, NULL, NULL },
    { "uuidv4", "null", "9000000", "0", "0", "", NULL, NULL, NULL },
    { "uuidv4", "lmdb", "200000", "900", "5000000", "", NULL, NULL, NULL },
    { "counter", "postgres", "10000", "300", "", "120", NULL, NULL, NULL },
    { "uuidv4", "postgres", "5000", "900", "", "360", NULL, NULL, NULL },
};
#define RATIO_SAMPLE_N ((int)(sizeof ratio_sample / sizeof *ratio_sample))

/* Per store with both strategies, each ratio computed where both figures are known; a store
 * without counter is left out; one changed figure changes its ratio. */
static void test_ratio_sentence_follows_the_figures(void **state)
{
    (void)state;
    char *s = say_ratio(ratio_sample, RATIO_SAMPLE_N);
    assert_non_null(s);
    assert_non_null(strstr(s, "On sqlite: time 20× (time per insert, from `inserts_per_s`: "
                              "20,000 against 400,000); pages 40× (pages written, "
                              "`pages_written`: 40,000 against 1,000); bytes 1.5× (bytes on "
                              "disk, `file_bytes`: 6,000,000 against 4,000,000); WAL unknown; "
                              "FPI unknown."));
    assert_non_null(strstr(s, "On pagesim: time unknown; pages 1.6× ("));
    assert_non_null(strstr(s, "On null: time 1.11× ("));
    assert_non_null(strstr(s, "pages 0 vs 0 pages (pages written, `pages_written`); bytes "
                              "unknown; WAL unknown; FPI unknown."));   /* null: counted 0 */
    assert_non_null(strstr(s, "On postgres: time 2× (time per insert, from `inserts_per_s`: "
                              "5,000 against 10,000); pages 3× ("));
    assert_non_null(strstr(s, "bytes unknown; WAL 3× (WAL bytes per ID, `wal_bytes_per_id`: "
                              "360 against 120); FPI unknown."));
    assert_null(strstr(s, "lmdb"));
    free(s);

    ratio_row other[RATIO_SAMPLE_N];                       /* uuidv4 writes fewer pages */
    memcpy(other, ratio_sample, sizeof other);
    other[1].pages = "30000";
    s = say_ratio(other, RATIO_SAMPLE_N);
    assert_non_null(s);
    assert_non_null(strstr(s, "On sqlite: time 20× (time per insert, from `inserts_per_s`: "
                              "20,000 against 400,000); pages 30× ("));
    free(s);

    other[1].pages = "40000";                  /* postgres ran at its own, smaller size */
    other[7].ids = other[8].ids = "500";
    s = say_ratio(other, RATIO_SAMPLE_N);
    assert_non_null(s);
    assert_non_null(strstr(s, "At 1,000 IDs on 1 shard(s)"));
    assert_non_null(strstr(s, "On sqlite: time 20× ("));
    assert_non_null(strstr(s, "On postgres (at 500 IDs, its largest): time 2× ("));
    free(s);

    assert_null(say_ratio(ratio_sample + 6, 1));          /* no store has both: no paragraph */
}

/* mx_ratio: a multiple from the figures as given; a denominator of fewer than 30 events
 * (0 included) as the counts; one that is not a count (negative) always a multiple. */
static void test_ratio_formatter(void **state)
{
    (void)state;
    char q[MX_RATIO_LEN];
    assert_string_equal(mx_ratio(117209, 155, 117209, 155, "FPIs", q), "756×");
    assert_string_equal(mx_ratio(117209, 30, 117209, 30, "FPIs", q), "3,907×");
    assert_string_equal(mx_ratio(117209, 29, 117209, 29, "FPIs", q), "117,209 vs 29 FPIs");
    assert_string_equal(mx_ratio(5, 0, 5, 0, "pages", q), "5 vs 0 pages");
    assert_string_equal(mx_ratio(3, 2, -1, -1, "", q), "1.5×");
}

/* Ratios from raw counts, not from per-ID figures rounded for print: counter's 155 and 249
 * full-page images in 1M IDs both print as fpi_per_id 0.0002, yet uuidv4's 151,000 are 974×
 * the first and 606× the second; 12 of them are counts, not a multiple. */
static void test_ratio_from_unrounded_counts(void **state)
{
    (void)state;
    ratio_row rows[] = {
        { "counter", "postgres", "10000", "300", "", "120", "1000000", "155", "0.0002" },
        { "uuidv4", "postgres", "5000", "900", "", "360", "1000000", "151000", "0.1510" },
    };
    char *s = say_ratio(rows, 2);
    assert_non_null(strstr(s, "; FPI 974× (full-page images, `fpi`: 151,000 against 155)."));
    free(s);
    rows[0].fpi = "249";
    s = say_ratio(rows, 2);
    assert_non_null(strstr(s, "; FPI 606× (full-page images, `fpi`: 151,000 against 249)."));
    free(s);
    rows[0].fpi = "12";
    s = say_ratio(rows, 2);
    assert_non_null(strstr(s, "; FPI 151,000 vs 12 full-page images (full-page images, `fpi`)."));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ratio_sentence_follows_the_figures),
        cmocka_unit_test(test_ratio_formatter),
        cmocka_unit_test(test_ratio_from_unrounded_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
