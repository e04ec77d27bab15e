/* matrix_csv.c — a small reader for the CSV files of a results directory (see matrix.h),
 * the results tables loaded once for the plots and the report, and the choices they share
 * about those files.
 *
 * A header line names the columns; every later non-empty line is a row. Fields are
 * separated by commas; a field may be "quoted" (a doubled "" inside is one quote), as
 * Google Benchmark writes its names. Rows shorter than the header read as empty fields.
 */
#include "matrix.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Split the line at s (NUL-terminated, modified in place) into at most max fields;
 * returns how many. */
static int split_fields(char *s, char **out, int max)
{
    int n = 0;
    char *p = s;
    for (;;) {
        char *start = p, *w = p;
        if (*p == '"') {                            /* quoted: unquote in place */
            start = w = ++p;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (*p == '"') p++;
                *w++ = *p++;
            }
            if (*p == '"') p++;
            while (*p && *p != ',') p++;
        } else {
            while (*p && *p != ',') p++;
            w = p;
        }
        int more = *p == ',';
        *w = 0;
        if (n < max) out[n++] = start;
        if (!more) break;
        p++;
    }
    return n;
}

#define READ_CHUNK (1 << 16)                    /* first buffer size; doubled as needed */

/* The whole file at path, NUL-terminated (see matrix.h). */
char *mx_read_file(const char *path, size_t *len, idb_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        idb_fail(err, IDB_EIO, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = READ_CHUNK, n = 0;
    char *buf = malloc(cap + 1);
    for (size_t r; buf && (r = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += r;
        if (n == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        int code = buf ? IDB_EIO : IDB_ENOMEM;
        free(buf);
        idb_fail(err, code, "cannot read %s: %s", path, idb_strerror(code));
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

/* The whole file in one buffer, split in place into header and rows (see matrix.h). */
int mx_table_load(const char *path, mx_table *t, idb_err *err)
{
    memset(t, 0, sizeof *t);
    size_t len = 0;
    idb_err why = { 0 };
    t->buf = mx_read_file(path, &len, &why);
    if (!t->buf) return idb_fail(err, why.code, "%s", why.msg);
    int lines = 0;
    for (size_t i = 0; i < len; i++) lines += t->buf[i] == '\n';
    char **line = malloc((size_t)(lines + 1) * sizeof *line);
    if (!line) { mx_table_free(t); return idb_fail(err, IDB_ENOMEM, "out of memory"); }
    int nl = 0;
    char *save = NULL;
    for (char *l = strtok_r(t->buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        l[strcspn(l, "\r")] = 0;
        if (*l) line[nl++] = l;
    }
    if (nl == 0) {
        free(line);
        mx_table_free(t);
        return idb_fail(err, IDB_EIO, "%s is empty", path);
    }
    int ncol = 1;
    for (const char *p = line[0]; *p; p++) ncol += *p == ',';
    t->head = calloc((size_t)ncol, sizeof *t->head);
    t->cell = calloc((size_t)ncol * (size_t)nl, sizeof *t->cell);
    if (!t->head || !t->cell) {
        free(line);
        mx_table_free(t);
        return idb_fail(err, IDB_ENOMEM, "out of memory");
    }
    t->ncol = split_fields(line[0], t->head, ncol);
    static char empty[1] = "";
    for (int r = 1; r < nl; r++) {
        char **row = t->cell + (size_t)(r - 1) * (size_t)ncol;
        int n = split_fields(line[r], row, t->ncol);
        for (int c = n; c < t->ncol; c++) row[c] = empty;
    }
    t->nrow = nl - 1;
    t->ncol = ncol;
    for (int c = 0; c < ncol; c++)
        if (!t->head[c]) t->head[c] = empty;
    free(line);
    return 0;
}

/* Column index by header name, or -1 (see matrix.h). */
int mx_table_col(const mx_table *t, const char *name)
{
    for (int c = 0; c < t->ncol; c++)
        if (strcmp(t->head[c], name) == 0) return c;
    return -1;
}

/* A field as text, "" outside the table (see matrix.h). */
const char *mx_table_str(const mx_table *t, int row, int col)
{
    if (col < 0 || col >= t->ncol || row < 0 || row >= t->nrow) return "";
    const char *s = t->cell[(size_t)row * (size_t)t->ncol + (size_t)col];
    return s ? s : "";
}

/* A field as a number, NAN unless the whole field parses (see matrix.h). */
double mx_table_num(const mx_table *t, int row, int col)
{
    const char *s = mx_table_str(t, row, col);
    char *end;
    double v = strtod(s, &end);
    return (end == s || *end) ? NAN : v;
}

/* Free a table (loaded, failed or empty) and leave it empty (see matrix.h). */
void mx_table_free(mx_table *t)
{
    free(t->head);
    free(t->cell);
    free(t->buf);
    memset(t, 0, sizeof *t);
}

/* Index in the strategy registry; unknown names sort after every known one (see matrix.h). */
int mx_strategy_rank(const char *name)
{
    int i = 0;
    for (const idb_strategy *const *s = idb_strategies; *s; s++, i++)
        if (strcmp((*s)->name, name) == 0) return i;
    return i + 1;
}

/* Fewest shards first, then most IDs (see matrix.h). */
int mx_headline(const mx_table *t, long long *ids, long long *shards)
{
    int cids = mx_table_col(t, "ids"), csh = mx_table_col(t, "shards");
    *ids = *shards = 0;
    for (int r = 0; r < t->nrow; r++) {
        long long k = (long long)mx_table_num(t, r, csh), n = (long long)mx_table_num(t, r, cids);
        if (*shards == 0 || k < *shards || (k == *shards && n > *ids)) { *shards = k; *ids = n; }
    }
    return t->nrow > 0;
}

/* The insert.csv row of (strategy, store) at configuration (ids, shards), or -1. */
int mx_insert_row(const mx_table *t, const char *strategy, const char *store, long long ids,
                  long long shards)
{
    int cs = mx_table_col(t, "strategy"), cst = mx_table_col(t, "store");
    int ci = mx_table_col(t, "ids"), ck = mx_table_col(t, "shards");
    for (int r = 0; r < t->nrow; r++)
        if (!strcmp(mx_table_str(t, r, cs), strategy) && !strcmp(mx_table_str(t, r, cst), store) &&
            (long long)mx_table_num(t, r, ci) == ids && (long long)mx_table_num(t, r, ck) == shards)
            return r;
    return -1;
}

/* Every results table and where it goes in mx_results: one entry each. */
static const struct {
    const char *file;
    size_t off;
} result_tables[] = {
    { "insert.csv", offsetof(mx_results, ins) },
    { "positions.csv", offsetof(mx_results, pos) },
    { "curve.csv", offsetof(mx_results, curve) },
    { "generation.csv", offsetof(mx_results, gen) },
    { "skew.csv", offsetof(mx_results, skew) },
    { "timeline.csv", offsetof(mx_results, tl) },
    { "simulate.csv", offsetof(mx_results, sim) },
};
#define N_RESULT_TABLES (sizeof result_tables / sizeof *result_tables)

/* Load every results table of dir; missing files are empty tables (see matrix.h). */
int mx_results_load(mx_results *r, const char *dir, idb_err *err)
{
    memset(r, 0, sizeof *r);
    r->dir = dir;
    for (size_t i = 0; i < N_RESULT_TABLES; i++) {
        char path[MX_FILE_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, result_tables[i].file);
        idb_err why = { 0 };
        mx_table *t = (mx_table *)((char *)r + result_tables[i].off);
        if (mx_table_load(path, t, &why) == IDB_ENOMEM) {
            mx_results_free(r);
            return idb_fail(err, IDB_ENOMEM, "%s", why.msg);
        }
    }
    mx_headline(&r->ins, &r->ids, &r->shards);
    int crep = mx_table_col(&r->ins, "repeats");
    for (int row = 0; row < r->ins.nrow; row++) {
        double n = mx_table_num(&r->ins, row, crep);
        if (n > r->reps) r->reps = (int)n;
    }
    return 0;
}

/* Free every table (see matrix.h). */
void mx_results_free(mx_results *r)
{
    for (size_t i = 0; i < N_RESULT_TABLES; i++)
        mx_table_free((mx_table *)((char *)r + result_tables[i].off));
}
