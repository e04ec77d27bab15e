/* matrix_csv.c — a small reader for the CSV files of a results directory (see matrix.h),
 * the results tables loaded once for the plots and the report, and the choices they share
 * about those files.
 *
 * A header line names the columns; every later non-empty line is a row. Fields are
 * separated by commas; a field may be "quoted" (a doubled "" inside is one quote), as
 * Google Benchmark writes its names. A file is refused (IDB_EINPUT) when it holds a control
 * character other than its line ends (binary junk, or a name that could break a line
 * elsewhere), is not a regular file or is larger than MX_CSV_BYTES_MAX (checked before it
 * is read: readfile.h), has more than MX_CSV_COLS_MAX columns, or
 * has a row with another number of fields than its header (a truncated or garbled file).
 */
#include "matrix.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "readfile.h"

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

/* The whole file at path, NUL-terminated: a regular file of at most MX_CSV_BYTES_MAX bytes,
 * checked before it is read (readfile.h; see matrix.h). */
char *mx_read_file(const char *path, size_t *len, idb_err *err)
{
    return idb_read_input(path, MX_CSV_BYTES_MAX, IDB_EIO, len, err);
}

/* The first control character of buf[0..len) other than a line end ("\n" or "\r\n"):
 * its offset, or len when there is none. */
static size_t control_char(const char *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c == '\n' || (c == '\r' && i + 1 < len && buf[i + 1] == '\n')) continue;
        if (c < 0x20 || c == 0x7f) return i;
    }
    return len;
}

/* The line number (1-based) of offset off in buf. */
static int line_of(const char *buf, size_t off)
{
    int line = 1;
    for (size_t i = 0; i < off; i++) line += buf[i] == '\n';
    return line;
}

/* Append row (ncol fields) found at line to t, growing its arrays. Returns 0 or
 * IDB_ENOMEM. */
static int add_row(mx_table *t, char **row, int line, int *cap)
{
    if (t->nrow == *cap) {
        int ncap = *cap ? *cap * 2 : 64;
        char **cell = realloc(t->cell, (size_t)ncap * (size_t)t->ncol * sizeof *cell);
        if (cell) t->cell = cell;
        int *lines = cell ? realloc(t->line, (size_t)ncap * sizeof *lines) : NULL;
        if (!lines) return IDB_ENOMEM;
        t->line = lines;
        *cap = ncap;
    }
    memcpy(t->cell + (size_t)t->nrow * (size_t)t->ncol, row, (size_t)t->ncol * sizeof *row);
    t->line[t->nrow++] = line;
    return 0;
}

/* Split t->buf (len bytes, checked) into header and rows in place. Returns 0, IDB_EINPUT
 * (no header, too many columns, a row with another number of fields) or IDB_ENOMEM. */
static int split_table(mx_table *t, size_t len, const char *path, idb_err *err)
{
    char **row = NULL;
    int cap = 0, line = 0, rc = 0;
    for (char *l = t->buf, *next; !rc && l < t->buf + len; l = next) {
        line++;
        char *nl = strchr(l, '\n');
        next = nl ? nl + 1 : t->buf + len;
        if (nl) *nl = 0;
        l[strcspn(l, "\r")] = 0;
        if (!*l) continue;
        int n = 1;
        for (const char *p = l; *p && !t->ncol; p++) n += *p == ',';
        if (!t->ncol) {                              /* the header */
            if (n > MX_CSV_COLS_MAX)
                return idb_fail(err, IDB_EINPUT, "%s:%d: %d columns (at most %d)", path, line, n,
                                MX_CSV_COLS_MAX);
            if (!(t->head = calloc((size_t)n, sizeof *t->head)) ||
                !(row = calloc((size_t)n + 1, sizeof *row)))
                return idb_fail(err, IDB_ENOMEM, "out of memory");
            t->ncol = split_fields(l, t->head, n);
            continue;
        }
        n = split_fields(l, row, t->ncol + 1);
        if (n != t->ncol)
            rc = idb_fail(err, IDB_EINPUT, "%s:%d: %s%d fields where the header has %d", path,
                          line, n > t->ncol ? "more than " : "", n > t->ncol ? t->ncol : n,
                          t->ncol);
        else if (add_row(t, row, line, &cap) != 0)
            rc = idb_fail(err, IDB_ENOMEM, "out of memory");
    }
    free(row);
    if (!rc && !t->ncol) rc = idb_fail(err, IDB_EINPUT, "%s is empty", path);
    return rc;
}

/* The whole file in one buffer, checked, split in place into header and rows (see
 * matrix.h). */
int mx_table_load(const char *path, mx_table *t, idb_err *err)
{
    memset(t, 0, sizeof *t);
    size_t len = 0;
    idb_err why = { 0 };
    t->buf = mx_read_file(path, &len, &why);
    if (!t->buf) return idb_fail(err, why.code, "%s", why.msg);
    size_t bad = control_char(t->buf, len);
    int rc = 0;
    if (bad < len)
        rc = idb_fail(err, IDB_EINPUT, "%s:%d: a control character (byte 0x%02x)", path,
                      line_of(t->buf, bad), (unsigned char)t->buf[bad]);
    else
        rc = split_table(t, len, path, err);
    if (rc) mx_table_free(t);
    return rc;
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

/* A field as a whole number, or bad (see matrix.h). */
long long mx_table_ll(const mx_table *t, int row, int col, long long bad)
{
    double v = mx_table_num(t, row, col);
    return isfinite(v) && fabs(v) <= 0x1p62 ? (long long)v : bad;
}

/* Free a table (loaded, failed or empty) and leave it empty (see matrix.h). */
void mx_table_free(mx_table *t)
{
    free(t->head);
    free(t->cell);
    free(t->line);
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

/* Row r's writers per shard: its clients column, 1 without one (see matrix.h). */
long long mx_row_clients(const mx_table *t, int r)
{
    int c = mx_table_col(t, "clients");
    return c < 0 || !*mx_table_str(t, r, c) ? 1 : mx_table_ll(t, r, c, -1);
}

/* Fewest shards first, then most IDs, among one-writer rows (see matrix.h). */
int mx_headline(const mx_table *t, long long *ids, long long *shards)
{
    int cids = mx_table_col(t, "ids"), csh = mx_table_col(t, "shards");
    *ids = *shards = 0;
    for (int r = 0; r < t->nrow; r++) {
        long long k = mx_table_ll(t, r, csh, 0), n = mx_table_ll(t, r, cids, 0);
        if (k <= 0 || n <= 0 || mx_row_clients(t, r) != 1) continue;   /* not a headline */
        if (*shards == 0 || k < *shards || (k == *shards && n > *ids)) { *shards = k; *ids = n; }
    }
    return t->nrow > 0;
}

/* The one-writer insert.csv row of (strategy, store) at (ids, shards), or -1. */
int mx_insert_row(const mx_table *t, const char *strategy, const char *store, long long ids,
                  long long shards)
{
    mx_row_key k = { strategy, store, ids, shards, 0, 1, 0 };
    return mx_find_row(t, &k);
}

/* The first row of t that matches k (see matrix.h). */
int mx_find_row(const mx_table *t, const mx_row_key *k)
{
    int cs = mx_table_col(t, "strategy"), cst = mx_table_col(t, "store");
    int ci = mx_table_col(t, "ids"), ck = mx_table_col(t, "shards");
    int cw = mx_table_col(t, "key_bytes"), cb = mx_table_col(t, "batch");
    int cp = mx_table_col(t, "phase");         /* a --then phase's row is not a run's */
    for (int r = 0; r < t->nrow; r++)
        if ((cp < 0 || strcmp(mx_table_str(t, r, cp), "then") != 0) &&
            !strcmp(mx_table_str(t, r, cs), k->strategy) &&
            !strcmp(mx_table_str(t, r, cst), k->store) &&
            (k->ids <= 0 || mx_table_ll(t, r, ci, -1) == k->ids) &&
            mx_table_ll(t, r, ck, -1) == k->shards &&
            (k->key_bytes <= 0 || mx_table_ll(t, r, cw, -1) == k->key_bytes) &&
            (k->batch <= 0 || mx_table_ll(t, r, cb, -1) == k->batch) &&
            mx_row_clients(t, r) == k->clients)
            return r;
    return -1;
}
