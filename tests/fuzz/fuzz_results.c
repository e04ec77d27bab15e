/* fuzz_results.c — libFuzzer target: what `idbench plot DIR` reads from a results
 * directory, short of gnuplot: the CSV reader (harness/matrix/matrix_csv.c), the results
 * tables loaded once (mx_results_load), each plot's data preparation and the report
 * (report.md with every plot's sentences, meta.json and claims.md).
 *
 * Input: the files of a results directory, each introduced by a line "=== NAME" (NAME one
 * of the files below; text before the first such line is insert.csv). They are written to
 * a private temporary directory, the other files of the list removed. Then:
 *   - the directory is refused (IDB_EINPUT, one printable line) or every table loads and reads back
 *     within its bounds: at least one column, a name per column, a text per field;
 *   - the rows of insert.csv are found again by mx_insert_row at their own configuration;
 *   - each plot's prepare function writes its data (into a scratch directory, variables to
 *     /dev/null); a plot whose data was prepared counts as drawn, so the report writes its
 *     sentences; the report is written.
 * ASan and UBSan catch the rest (a NaN or huge number cast to an integer, a buffer too
 * small for a number).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "matrix.h"
#include "tmpdir.h"

#define HEADER "=== "
#define SCRATCH "scratch"
#define CAST_MAX 0x1p62                  /* |v| below it casts to long long defined */

/* The files of a results directory the readers open; the first is the default. */
static const char *const files[] = {
    "insert.csv", "positions.csv", "curve.csv", "generation.csv", "skew.csv",
    "timeline.csv", "simulate.csv", "meta.json", "claims.md",
};
#define NFILES (sizeof files / sizeof *files)

/* Index in files[] of the name after HEADER at line (up to its end), or -1. */
static int file_index(const char *line)
{
    size_t n = strcspn(line, "\n");
    for (size_t i = 0; i < NFILES; i++)
        if (strlen(files[i]) == n && strncmp(line, files[i], n) == 0) return (int)i;
    return -1;
}

/* Split text into the files and write each one present to dir; remove the rest. */
static void write_files(const char *text, const char *dir)
{
    const char *start[NFILES] = { 0 }, *end[NFILES] = { 0 };
    int cur = 0;
    start[0] = text;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        const char *next = nl ? nl + 1 : p + strlen(p);
        int i = strncmp(p, HEADER, strlen(HEADER)) == 0 ? file_index(p + strlen(HEADER)) : -1;
        if (i >= 0) {
            if (start[cur] && !end[cur]) end[cur] = p;
            cur = i;
            start[cur] = next;
            end[cur] = NULL;
        }
        p = next;
    }
    if (start[cur] && !end[cur]) end[cur] = text + strlen(text);
    for (size_t i = 0; i < NFILES; i++) {
        char path[MX_FILE_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        if (start[i] && end[i] > start[i])
            fuzz_write_file(path, start[i], (size_t)(end[i] - start[i]));
        else
            unlink(path);
    }
}

/* A loaded table reads back within its bounds. */
static void check_table(const mx_table *t, const char *name)
{
    if (!t->buf) {                                   /* missing or empty: an empty table */
        FUZZ_CHECK(t->ncol == 0 && t->nrow == 0, "%s: failed but not empty", name);
        return;
    }
    FUZZ_CHECK(t->ncol >= 1 && t->nrow >= 0, "%s: %d columns, %d rows", name, t->ncol, t->nrow);
    for (int c = 0; c < t->ncol; c++) {
        FUZZ_CHECK(t->head[c] != NULL, "%s: column %d has no name", name, c);
        int found = mx_table_col(t, t->head[c]);
        FUZZ_CHECK(found >= 0 && found <= c, "%s: column '%s' found at %d", name, t->head[c],
                   found);
    }
    for (int r = 0; r < t->nrow; r++)
        for (int c = 0; c < t->ncol; c++) {
            FUZZ_CHECK(mx_table_str(t, r, c) != NULL, "%s: row %d column %d", name, r, c);
            (void)mx_table_num(t, r, c);
        }
    FUZZ_CHECK(*mx_table_str(t, -1, 0) == 0 && *mx_table_str(t, t->nrow, 0) == 0 &&
               *mx_table_str(t, 0, t->ncol) == 0, "%s: a field outside the table", name);
}

/* Every table: loaded alone (each must say why it fails), and as r holds it. */
static void check_tables(const mx_results *r, const char *dir)
{
    const mx_table *in_r[] = { &r->ins, &r->pos, &r->curve, &r->gen, &r->skew, &r->tl, &r->sim };
    for (size_t i = 0; i < sizeof in_r / sizeof *in_r; i++) {
        char path[MX_FILE_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        mx_table t;
        idb_err err = { 0 };
        int rc = mx_table_load(path, &t, &err);
        FUZZ_CHECK(rc == 0 || ((rc == IDB_EIO || rc == IDB_ENOMEM) && err.msg[0]),
                   "%s: refused with %d and no message", files[i], rc);
        check_table(&t, files[i]);
        check_table(in_r[i], files[i]);
        FUZZ_CHECK(t.nrow == in_r[i]->nrow && t.ncol == in_r[i]->ncol, "%s: loaded twice, "
                   "two shapes", files[i]);
        mx_table_free(&t);
    }
}

/* Each insert.csv row is the row mx_insert_row finds at its configuration, or an earlier
 * row of the same configuration. */
static void check_insert_rows(const mx_results *r)
{
    const mx_table *t = &r->ins;
    int cs = mx_table_col(t, "strategy"), cst = mx_table_col(t, "store");
    int ci = mx_table_col(t, "ids"), ck = mx_table_col(t, "shards");
    for (int row = 0; row < t->nrow; row++) {
        double ids = mx_table_num(t, row, ci), shards = mx_table_num(t, row, ck);
        if (!(fabs(ids) < CAST_MAX && fabs(shards) < CAST_MAX)) continue;
        int found = mx_insert_row(t, mx_table_str(t, row, cs), mx_table_str(t, row, cst),
                                  (long long)ids, (long long)shards);
        FUZZ_CHECK(found >= 0 && found <= row, "insert.csv row %d found at %d", row, found);
    }
}

/* Prepare every plot's data as mx_plot_all would, without gnuplot; then the report. */
static void plots_and_report(mx_results *r, const char *scratch)
{
    FILE *vars = fopen("/dev/null", "w");
    if (!vars) abort();
    for (int i = 0; i < mx_n_plots; i++) {
        idb_err why = { 0 };
        int rc = mx_plots[i].prepare(r, scratch, vars, &why);
        r->drawn[i] = rc == 0;
        r->why_not[i] = why;
        if (rc != 0)
            FUZZ_CHECK((rc == IDB_EINPUT || rc == IDB_EIO) && why.msg[0], "plot %s not "
                       "prepared (%d) without a reason", mx_plots[i].name, rc);
    }
    fclose(vars);
    idb_err err = { 0 };
    FUZZ_CHECK(mx_report_write(r, &err) == 0, "report.md not written: %s", err.msg);
}

/* One input: the files of a results directory, read as `idbench plot` reads them. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char dir[MX_PATH_MAX], scratch[MX_PATH_MAX];
    if (!dir[0]) {
        fuzz_tmp_path("results", dir, sizeof dir);
        fuzz_tmp_path(SCRATCH, scratch, sizeof scratch);
        if (mkdir(dir, 0700) != 0 || mkdir(scratch, 0700) != 0) { perror(dir); abort(); }
    }
    char *text = fuzz_text(data, size);
    write_files(text, dir);
    free(text);
    mx_results r;
    idb_err err = { 0 };
    int rc = mx_results_load(&r, dir, &err);
    if (rc != 0) {
        /* refused (bad input, checked against each file's schema) or out of memory, with
         * one printable line saying why */
        FUZZ_CHECK((rc == IDB_EINPUT || rc == IDB_ENOMEM) && err.msg[0], "mx_results_load: %d",
                   rc);
        for (const char *p = err.msg; *p; p++)
            FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f, "a control byte in: %s",
                       err.msg);
        return 0;
    }
    check_tables(&r, dir);
    check_insert_rows(&r);
    plots_and_report(&r, scratch);
    mx_results_free(&r);
    return 0;
}
