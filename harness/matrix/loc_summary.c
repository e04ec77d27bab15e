/* loc_summary.c — `idbench locality`'s table, sentences, CSV and plot (loc_summary.h).
 *
 * Ratios are taken from the runs' counts as measured (pages written, misses: totals over
 * the run), never from figures rounded for print. The prose calls a strategy ordered when at
 * least MX_LOC_END_SHARE of its inserts landed at the end of the index on every store, and
 * spread otherwise: a label read off the measured positions, not off the strategy's name.
 */
#include "loc_summary.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "atomic_file.h"
#include "plots.h"
#include "tmpdir.h"

#define CELL 112                        /* one table cell's text */
#define LOC_PLOT "locality"             /* plots/locality.gp */

int mx_loc_base(const mx_loc_row *rows, int n, int i)
{
    for (int j = 0; j < n; j++)
        if (!rows[j].padded && !strcmp(rows[j].strategy, MX_LOC_BASE) &&
            !strcmp(rows[j].store, rows[i].store))
            return j;
    return -1;
}

const char *mx_loc_ratio(double a, double b, int count_like, char *buf, size_t len)
{
    char x[MX_NUM_LEN], y[MX_NUM_LEN];
    if (!(a >= 0) || !(b >= 0) || (b == 0 && !count_like)) snprintf(buf, len, "n/a");
    else if (count_like && b < MX_LOC_FEW)
        snprintf(buf, len, "%s vs %s", mx_num(a, x), mx_num(b, y));
    else snprintf(buf, len, "%sx", mx_num(a / b, x));
    return buf;
}

/* Per ID: v / ids, or -1 when v is unknown. */
static double per_id(const mx_loc_row *r, double v)
{
    return v >= 0 && r->ids > 0 ? v / r->ids : -1;
}

/* The columns: header, the figure shown, and the figure its ratio is taken from (a count
 * where count_like: pages, misses). */
typedef struct loc_col {
    const char *head;
    double (*shown)(const mx_loc_row *);
    double (*total)(const mx_loc_row *);
    int count_like, percent, ratio;      /* ratio 0: a share, shown without one */
} loc_col;

static double pages_id(const mx_loc_row *r) { return per_id(r, r->pages_written); }
static double pages(const mx_loc_row *r) { return r->pages_written; }
static double fill(const mx_loc_row *r) { return r->fill; }
static double tail(const mx_loc_row *r) { return r->tail; }
static double miss_id(const mx_loc_row *r) { return per_id(r, r->misses); }
static double misses(const mx_loc_row *r) { return r->misses; }
static double ips(const mx_loc_row *r) { return r->inserts_per_s; }

static const loc_col cols[] = {
    { "pages written/ID", pages_id, pages, 1, 0, 1 },
    { "leaf fill", fill, fill, 0, 0, 1 },
    { "keys at end", tail, tail, 0, 1, 0 },
    { "misses/insert", miss_id, misses, 1, 0, 1 },
    { "inserts/s", ips, ips, 0, 0, 1 },
};
#define N_COLS ((int)(sizeof cols / sizeof *cols))

/* A row's label: the strategy, "(16 B)" when padded. */
static void label(const mx_loc_row *r, char *buf, size_t len)
{
    if (r->padded) snprintf(buf, len, "%.40s (%d B)", r->strategy, r->key_bytes);
    else snprintf(buf, len, "%.40s", r->strategy);
}

/* Cell c of row i: "FIGURE (RATIO)", the ratio left out on the base row itself. */
static void cell(const mx_loc_row *rows, int n, int i, const loc_col *c, char *buf, size_t len)
{
    char v[MX_NUM_LEN], q[2 * MX_NUM_LEN + 8];
    double x = c->shown(&rows[i]);
    if (!(x >= 0)) { snprintf(buf, len, "-"); return; }
    if (c->percent) snprintf(v, sizeof v, "%.2f%%", 100 * x);
    else mx_num(x, v);
    int b = mx_loc_base(rows, n, i);
    if (b < 0 || b == i || !c->ratio) { snprintf(buf, len, "%s", v); return; }
    mx_loc_ratio(c->total(&rows[i]), c->total(&rows[b]), c->count_like, q, sizeof q);
    snprintf(buf, len, "%s (%s)", v, q);
}

/* Print one line of the table: name columns, then the figure cells, padded to w. */
static void print_line(FILE *f, const char *cells[], const int *w, int ncells)
{
    for (int c = 0; c < ncells; c++)
        fprintf(f, "%s%-*s", c ? "  " : "", c + 1 < ncells ? w[c] : 0, cells[c]);
    fputc('\n', f);
}

#define TABLE_COLS (N_COLS + 3)                  /* store, strategy, key bytes, figures */
#define TABLE_ROWS_MAX 64

void mx_loc_print(FILE *f, const mx_loc_row *rows, int n)
{
    static char text[TABLE_ROWS_MAX][TABLE_COLS][CELL];
    const char *head[TABLE_COLS] = { "store", "strategy", "key B" };
    int w[TABLE_COLS] = { 0 };
    if (n > TABLE_ROWS_MAX) n = TABLE_ROWS_MAX;
    for (int c = 0; c < N_COLS; c++) head[c + 3] = cols[c].head;
    for (int c = 0; c < TABLE_COLS; c++) w[c] = (int)strlen(head[c]);
    for (int i = 0; i < n; i++) {
        snprintf(text[i][0], CELL, "%s", rows[i].store);
        label(&rows[i], text[i][1], CELL);
        snprintf(text[i][2], CELL, "%d", rows[i].key_bytes);
        for (int c = 0; c < N_COLS; c++) cell(rows, n, i, &cols[c], text[i][c + 3], CELL);
        for (int c = 0; c < TABLE_COLS; c++)
            if ((int)strlen(text[i][c]) > w[c]) w[c] = (int)strlen(text[i][c]);
    }
    print_line(f, head, w, TABLE_COLS);
    for (int i = 0; i < n; i++) {
        const char *line[TABLE_COLS];
        for (int c = 0; c < TABLE_COLS; c++) line[c] = text[i][c];
        if (i > 0 && strcmp(rows[i].store, rows[i - 1].store)) fputc('\n', f);
        print_line(f, line, w, TABLE_COLS);
    }
    fprintf(f, "(in brackets: against %s on the same store; \"A vs B\" where %s counted fewer "
               "than %d; - unknown)\n", MX_LOC_BASE, MX_LOC_BASE, MX_LOC_FEW);
}

/* Lowest and highest pages-written ratio to the base over rows that pass keep (NaN when
 * none); the stores they were on. */
typedef struct span { double lo, hi; int n; } span;

static void span_add(span *s, double v)
{
    if (!isfinite(v)) return;
    if (s->n == 0 || v < s->lo) s->lo = v;
    if (s->n == 0 || v > s->hi) s->hi = v;
    s->n++;
}

/* "A" or "A-B" (multiples) into buf. */
static const char *span_text(const span *s, char *buf, size_t len)
{
    char a[MX_NUM_LEN], b[MX_NUM_LEN];
    mx_num(s->lo, a);
    mx_num(s->hi, b);
    if (!strcmp(a, b)) snprintf(buf, len, "%sx", a);
    else snprintf(buf, len, "%s-%sx", a, b);
    return buf;
}

/* Whether strategy name's keys landed at the end at least MX_LOC_END_SHARE of the time on
 * every store it ran on (unpadded rows). */
static int ordered(const mx_loc_row *rows, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!rows[i].padded && !strcmp(rows[i].strategy, name) &&
            !(rows[i].tail >= MX_LOC_END_SHARE))
            return 0;
    return 1;
}

/* Pages ratio of row i to row b (or NaN). */
static double pages_ratio(const mx_loc_row *rows, int i, int b)
{
    if (b < 0 || !(rows[i].pages_written >= 0) || !(rows[b].pages_written > 0)) return NAN;
    return rows[i].pages_written / rows[b].pages_written;
}

/* The padded base row on rows[i]'s store at rows[i]'s width, or -1. */
static int padded_base(const mx_loc_row *rows, int n, int i)
{
    for (int j = 0; j < n; j++)
        if (rows[j].padded && !strcmp(rows[j].strategy, MX_LOC_BASE) &&
            !strcmp(rows[j].store, rows[i].store) && rows[j].key_bytes == rows[i].key_bytes)
            return j;
    return -1;
}

/* Append to buf (at *at, of len) with printf's rules; keeps buf terminated. */
static void add(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    if (*at >= len) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *at, len - *at, fmt, ap);
    va_end(ap);
    if (k > 0) *at = *at + (size_t)k < len ? *at + (size_t)k : len - 1;
}

/* The distinct unpadded strategies other than the base, in row order, split by ordered. */
static int names(const mx_loc_row *rows, int n, int want_ordered, const char **out, int max)
{
    int k = 0;
    for (int i = 0; i < n && k < max; i++) {
        const char *s = rows[i].strategy;
        int seen = 0;
        for (int j = 0; j < k; j++) seen |= !strcmp(out[j], s);
        if (rows[i].padded || seen || !strcmp(s, MX_LOC_BASE) ||
            ordered(rows, n, s) != want_ordered)
            continue;
        out[k++] = s;
    }
    return k;
}

#define NAMES_MAX 32

/* Sentence one: ordered keys against the base, spread keys against the base. */
static void say_order(const mx_loc_row *rows, int n, char *buf, size_t len, size_t *at)
{
    const char *ord[NAMES_MAX], *spr[NAMES_MAX];
    int no = names(rows, n, 1, ord, NAMES_MAX), ns = names(rows, n, 0, spr, NAMES_MAX);
    char t[CELL];
    span so = { 0 };
    for (int i = 0; i < n; i++)
        if (!rows[i].padded && strcmp(rows[i].strategy, MX_LOC_BASE) &&
            ordered(rows, n, rows[i].strategy))
            span_add(&so, pages_ratio(rows, i, mx_loc_base(rows, n, i)));
    if (no > 0 && so.n > 0) {
        add(buf, len, at, "Keys that landed at the end of the index (");
        for (int j = 0; j < no; j++) add(buf, len, at, "%s%s", j ? ", " : "", ord[j]);
        add(buf, len, at, ") wrote %s %s's pages per ID", span_text(&so, t, sizeof t), MX_LOC_BASE);
    } else {
        add(buf, len, at, "No strategy but %s kept its keys at the end of the index", MX_LOC_BASE);
    }
    for (int j = 0; j < ns; j++) {
        span s = { 0 };
        double end = 0;
        int m = 0;
        for (int i = 0; i < n; i++)
            if (!rows[i].padded && !strcmp(rows[i].strategy, spr[j])) {
                span_add(&s, pages_ratio(rows, i, mx_loc_base(rows, n, i)));
                if (m++ == 0 || rows[i].tail > end) end = rows[i].tail;
            }
        if (s.n == 0) continue;
        add(buf, len, at,
            "%s %s, whose keys landed at the end %.2f%% of the time at most, wrote %s",
            j ? ";" : ", while", spr[j], 100 * end, span_text(&s, t, sizeof t));
    }
    add(buf, len, at, ".\n");
}

/* Sentence two: width against order, from the padded base. */
static void say_width(const mx_loc_row *rows, int n, char *buf, size_t len, size_t *at)
{
    span w = { 0 };
    char t[CELL];
    int width = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].padded && !strcmp(rows[i].strategy, MX_LOC_BASE)) {
            span_add(&w, pages_ratio(rows, i, mx_loc_base(rows, n, i)));
            width = rows[i].key_bytes;
        }
    if (w.n == 0) {
        add(buf, len, at, "Width and order are not told apart: no padded %s ran.\n", MX_LOC_BASE);
        return;
    }
    add(buf, len, at, "Width alone (%s padded to %d bytes) wrote %s %s's pages", MX_LOC_BASE,
        width, span_text(&w, t, sizeof t), MX_LOC_BASE);
    const char *spr[NAMES_MAX];
    int ns = names(rows, n, 0, spr, NAMES_MAX), said = 0;
    for (int j = 0; j < ns; j++) {
        span s = { 0 };
        for (int i = 0; i < n; i++)
            if (!rows[i].padded && !strcmp(rows[i].strategy, spr[j]))
                span_add(&s, pages_ratio(rows, i, padded_base(rows, n, i)));
        if (s.n == 0) continue;
        add(buf, len, at, "%s %s wrote %s the padded %s's: that part is where its keys landed, "
            "not their width", said++ ? ";" : ", so at the same width", spr[j],
            span_text(&s, t, sizeof t), MX_LOC_BASE);
    }
    add(buf, len, at, ".\n");
}

int mx_loc_sentences(const mx_loc_row *rows, int n, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    int any = 0;
    for (int i = 0; i < n; i++) any |= mx_loc_base(rows, n, i) >= 0;
    if (!any) {
        add(buf, len, &at, "No store ran %s: there is nothing to compare with.\n", MX_LOC_BASE);
        return IDB_EINPUT;
    }
    say_order(rows, n, buf, len, &at);
    say_width(rows, n, buf, len, &at);
    return 0;
}

int mx_loc_write_csv(const char *path, const mx_loc_row *rows, int n, idb_err *err)
{
    idb_atomic a;
    if (!idb_atomic_open(&a, path))
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    fprintf(a.f, "store,strategy,key_bytes,padded,ids,pages_written,fill_factor,"
                 "tail_insert_frac,cache_misses,inserts_per_s\n");
    for (int i = 0; i < n; i++) {
        const mx_loc_row *r = &rows[i];
        fprintf(a.f, "%s,%s,%d,%d,%lld,", r->store, r->strategy, r->key_bytes, r->padded, r->ids);
        const double v[] = { r->pages_written, r->fill, r->tail, r->misses, r->inserts_per_s };
        for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
            if (v[k] >= 0) fprintf(a.f, "%.17g", v[k]);
            fputs(k + 1 < sizeof v / sizeof *v ? "," : "\n", a.f);
        }
    }
    if (idb_atomic_commit(&a, 0) != 0)
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

/* The stores in row order, each once. */
static int stores(const mx_loc_row *rows, int n, const char **out, int max)
{
    int k = 0;
    for (int i = 0; i < n && k < max; i++) {
        int seen = 0;
        for (int j = 0; j < k; j++) seen |= !strcmp(out[j], rows[i].store);
        if (!seen) out[k++] = rows[i].store;
    }
    return k;
}

/* The plot's variables and data: a row per store, a column per (strategy, padded) label,
 * pages written per ID (NaN where that label did not run on the store). */
static int plot_files(const char *scratch, const mx_loc_row *rows, int n, idb_err *err)
{
    const char *st[NAMES_MAX];
    int nst = stores(rows, n, st, NAMES_MAX), nl = 0;
    int first[NAMES_MAX];                            /* a row of each label */
    char lab[NAMES_MAX][CELL], l[CELL];
    for (int i = 0; i < n && nl < NAMES_MAX; i++) {
        label(&rows[i], l, sizeof l);
        int seen = 0;
        for (int j = 0; j < nl; j++) seen |= !strcmp(lab[j], l);
        if (!seen) { snprintf(lab[nl], CELL, "%s", l); first[nl++] = i; }
    }
    FILE *v = mx_data_open(scratch, LOC_PLOT ".vars.gp", err);
    if (!v) return IDB_EIO;
    int rc = 0;
    fprintf(v, "n = %d\nnstores = %d\ncolors = \"", nl, nst);
    for (int j = 0; j < nl; j++)
        fprintf(v, "%s%s", j ? " " : "", mx_color(rows[first[j]].strategy));
    fprintf(v, "\"\npatterns = \"");
    for (int j = 0; j < nl; j++) fprintf(v, "%s%d", j ? " " : "", rows[first[j]].padded);
    fprintf(v, "\"\n");
    for (int j = 0; j < nl && !rc; j++) {
        fprintf(v, "t_%d = ", j + 1);
        rc = mx_gp_string(v, lab[j], err);
    }
    for (int s = 0; s < nst && !rc; s++) {
        fprintf(v, "s_%d = ", s + 1);
        rc = mx_gp_string(v, st[s], err);
    }
    if (mx_data_close(v, "variables", rc ? NULL : err) != 0 || rc) return rc ? rc : IDB_EIO;
    FILE *d = mx_data_open(scratch, LOC_PLOT ".dat", err);
    if (!d) return IDB_EIO;
    for (int s = 0; s < nst; s++)
        for (int j = 0; j < nl; j++) {
            double x = NAN;
            for (int i = 0; i < n; i++) {
                label(&rows[i], l, sizeof l);
                if (!strcmp(rows[i].store, st[s]) && !strcmp(l, lab[j]) && pages_id(&rows[i]) > 0)
                    x = pages_id(&rows[i]);
            }
            mx_put(d, x, j + 1 < nl ? "\t" : "\n");
        }
    return mx_data_close(d, "data", err);
}

int mx_loc_plot(const char *png, const mx_loc_row *rows, int n, idb_err *err)
{
    char scratch[256];
    if (idb_tmpdir_make(scratch, sizeof scratch) != 0)
        return idb_fail(err, IDB_EIO, "cannot create a temporary directory: %s", strerror(errno));
    int rc = plot_files(scratch, rows, n, err);
    if (!rc) rc = mx_gnuplot_png(png, scratch, LOC_PLOT, err);
    idb_tmpdir_remove(scratch);
    return rc;
}
