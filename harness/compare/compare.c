/* compare.c — `idbench compare` (compare.h): read two results directories (or one, for
 * --within), check them, group every repeat's rows into cells, match the cells of the two
 * sides and judge each metric with the U test. compare_out.c prints the rows.
 *
 * A results directory may come from anywhere: it must have meta.json with a format_version
 * from MX_FORMAT_OLDEST_COMPARED to this idbench's, the same on both sides (a column that
 * changed meaning between versions is never set against its old self), insert_runs.csv
 * with every key and metric column, and every metric field empty (unknown) or a finite
 * number >= 0; anything else is refused as bad input before a line is printed.
 */
#include "compare_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "matrix.h"
#include "utest.h"

/* The metrics, and which way each is better: the one place this is decided. */
const cmp_metric cmp_metrics[] = {
    { "inserts_per_s", "inserts_per_s", NULL, CMP_HIGHER, 0 },
    { "lat_p50_ns", "lat_p50_ns", NULL, CMP_LOWER, 0 },
    { "lat_p99_ns", "lat_p99_ns", NULL, CMP_LOWER, 0 },
    { "commit_p99_ns", "commit_p99_ns", NULL, CMP_LOWER, 0 },
    { "order_lat_p99_ns", "order_lat_p99_ns", NULL, CMP_LOWER, 0 },     /* open loop only */
    { "pages_written_per_id", "pages_written", "ids", CMP_LOWER, 0 },
    { "write_bytes_per_id", "write_bytes_per_id", NULL, CMP_LOWER, 0 },   /* with its servers */
    { "client_write_bytes_per_id", "client_write_bytes_per_id", NULL, CMP_LOWER, 1 },
    { "fill_factor", "fill_factor", NULL, CMP_HIGHER, 0 },
    { "gen_ns_per_id", "gen_ns_per_id", NULL, CMP_LOWER, 0 },
};
const int cmp_n_metrics = (int)(sizeof cmp_metrics / sizeof *cmp_metrics);

const char *const cmp_verdicts[CMP_VERDICTS] = {
    [CMP_SAME] = "same", [CMP_BETTER] = "better", [CMP_WORSE] = "worse",
    [CMP_NOT_TESTED] = "not tested", [CMP_NO_DATA] = "no data",
    [CMP_ONLY_A] = "only in A", [CMP_ONLY_B] = "only in B",
};

#define KEYS_MAX 14                              /* key columns of a source */

/* A key column of a cell, and how the cell's label shows it (NULL: not shown). */
typedef struct key_col {
    const char *col, *label;
} key_col;

/* Key columns with a default: their value in a file without the column (or with it
 * empty); a value equal to it is left out of the label (clients: 1, the one writer of the
 * runs made before insert --clients; batch: 1000, insert's default, so two cells that differ
 * only in batch, as the matrix's clients block's (100) and its small block's, are told apart;
 * phase: main and first_strategy: none, a run's own row and every row of the files made
 * before insert --then). */
static const struct { const char *col, *def; } key_defaults[] = {
    { "clients", "1" }, { "batch", "1000" }, { "phase", "main" }, { "first_strategy", "" },
};

/* The default of key column col (see key_defaults), or NULL. */
static const char *key_default(const char *col)
{
    for (size_t i = 0; i < sizeof key_defaults / sizeof *key_defaults; i++)
        if (!strcmp(key_defaults[i].col, col)) return key_defaults[i].def;
    return NULL;
}

/* A file of every repeat's rows: its key columns (a cell is one value of them all). */
typedef struct source {
    const char *file, *loop;
    int required;                                /* a results directory must have it */
    key_col keys[KEYS_MAX];                      /* ends at a NULL col */
} source;

static const source sources[] = {
    { "insert_runs.csv", "closed", 1,
      { { "strategy", "" }, { "store", "" }, { "ids", "n=" }, { "shards", "shards=" },
        { "key_bytes", "key=" }, { "clients", "clients=" }, { "batch", "batch=" },
        { "shops", NULL }, { "store_options", NULL }, { "phase", "phase=" },
        { "first_strategy", "into=" }, { NULL, NULL } } },
    { "openloop_runs.csv", "open", 0,
      { { "strategy", "" }, { "store", "" }, { "ids", "n=" }, { "shards", "shards=" },
        { "key_bytes", "key=" }, { "rate_per_s", "rate=" }, { "commit_ms", "commit_ms=" },
        { "batch", "batch=" }, { "shops", NULL }, { "store_options", NULL }, { "phase", "phase=" },
        { "first_strategy", "into=" }, { NULL, NULL } } },
};
#define N_SOURCES ((int)(sizeof sources / sizeof *sources))

#define KEY_MAX 2048                             /* a cell's key: its key fields joined */
#define KEY_SEP '\x1f'                           /* between them (the CSV reader refuses it) */

/* One side of the comparison: a results directory's tables. */
typedef struct side {
    const char *dir;
    int version;                                 /* meta.json's format_version (1: none) */
    mx_table t[N_SOURCES];                       /* empty when the file is not there */
} side;

/* A cell: the rows of one source with one key. */
typedef struct group {
    char key[KEY_MAX];
    char label[CMP_LABEL_MAX];
    int *rows, n;
} group;

/* meta.json's format_version into *(int *)ctx. */
static void meta_version(void *ctx, const char *key, const char *value)
{
    if (!strcmp(key, "format_version")) *(int *)ctx = atoi(value) > 0 ? atoi(value) : -1;
}

/* dir is a results directory of this idbench's format: meta.json read, s->version set.
 * Returns 0 or IDB_EINPUT. */
static int check_dir(side *s, idb_err *err)
{
    struct stat sb;
    char path[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/meta.json", s->dir);
    if (stat(s->dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return idb_fail(err, IDB_EINPUT, "compare: %s is not a directory", s->dir);
    if (access(path, R_OK) != 0 || mx_meta_read(s->dir, meta_version, &s->version, NULL) != 0)
        return idb_fail(err, IDB_EINPUT, "compare: %s is not a results directory (no meta.json)",
                        s->dir);
    if (s->version == 0) s->version = 1;         /* written before format_version existed */
    return 0;
}

/* Every metric field of source i's table in s: empty or a finite number >= 0. Returns 0 or
 * IDB_EINPUT ("FILE:LINE: column: why"). */
static int check_values(const side *s, int i, idb_err *err)
{
    const mx_table *t = &s->t[i];
    for (int k = 0; sources[i].keys[k].col; k++)
        if (mx_table_col(t, sources[i].keys[k].col) < 0 && !key_default(sources[i].keys[k].col))
            return idb_fail(err, IDB_EINPUT, "%s/%s: no column %s", s->dir, sources[i].file,
                            sources[i].keys[k].col);
    for (int m = 0; m < cmp_n_metrics; m++)
        for (int pass = 0; pass < 2; pass++) {
            const char *name = pass ? cmp_metrics[m].per : cmp_metrics[m].col;
            int c = name ? mx_table_col(t, name) : -2;
            if (c == -1 && cmp_metrics[m].optional) continue;        /* no data */
            if (c == -1)
                return idb_fail(err, IDB_EINPUT, "%s/%s: no column %s", s->dir, sources[i].file,
                                name);
            for (int r = 0; c >= 0 && r < t->nrow; r++) {
                const char *v = mx_table_str(t, r, c);
                double x = mx_table_num(t, r, c);
                if (*v && !(isfinite(x) && x >= 0))
                    return idb_fail(err, IDB_EINPUT, "%s/%s:%d: %s: '%.40s' is not a number >= 0",
                                    s->dir, sources[i].file, t->line[r], name, v);
            }
        }
    return 0;
}

/* Load every source file of s (checked); a missing optional one is an empty table. Returns
 * 0 or an IDB_E* code. */
static int load_side(side *s, idb_err *err)
{
    for (int i = 0; i < N_SOURCES; i++) {
        char path[MX_FILE_MAX];
        snprintf(path, sizeof path, "%s/%s", s->dir, sources[i].file);
        if (access(path, F_OK) != 0 && errno == ENOENT) {
            if (!sources[i].required) continue;
            return idb_fail(err, IDB_EINPUT, "compare: %s has no %s (not a results directory "
                            "of a matrix run)", s->dir, sources[i].file);
        }
        int rc = mx_table_load(path, &s->t[i], err);
        if (!rc) rc = check_values(s, i, err);
        if (rc) return rc;
    }
    return 0;
}

/* Both sides readable and of one format_version this idbench reads. Returns 0 or an IDB_E*
 * code. */
static int load_sides(side *a, side *b, idb_err *err)
{
    int rc = check_dir(a, err);
    if (!rc) rc = check_dir(b, err);
    if (rc) return rc;
    if (a->version != b->version)
        return idb_fail(err, IDB_EINPUT, "compare: %s has format_version %d but %s has %d: "
                        "results of different formats are not compared", a->dir, a->version,
                        b->dir, b->version);
    if (a->version < MX_FORMAT_OLDEST_COMPARED || a->version > MX_FORMAT_VERSION)
        return idb_fail(err, IDB_EINPUT, "compare: %s has format_version %d; this idbench "
                        "compares versions %d to %d (re-run the matrix)", a->dir, a->version,
                        MX_FORMAT_OLDEST_COMPARED, MX_FORMAT_VERSION);
    rc = load_side(a, err);
    return rc ? rc : b == a ? 0 : load_side(b, err);
}

/* The cells of one source on one side: per row its key and cell, per cell its first row. */
typedef struct cells {
    char (*key)[KEY_MAX];                        /* per row */
    char (*label)[CMP_LABEL_MAX];                /* per row: its cell's label */
    int *cell;                                   /* per row: its cell, -1 when left out */
    int *first;                                  /* per cell: its first row */
    int n;                                       /* cells */
} cells;

static void cells_free(cells *c)
{
    free(c->key);
    free(c->label);
    free(c->cell);
    free(c->first);
    memset(c, 0, sizeof *c);
}

/* Append "%s%s%s" of a, b, c to buf (size len, *n bytes used). Returns 0, or 1 when it did
 * not fit (buf then holds a cut string). */
static int append3(char *buf, size_t len, size_t *n, const char *a, const char *b, const char *c)
{
    int w = snprintf(buf + *n, len - *n, "%s%s%s", a, b, c);
    if (w < 0 || (size_t)w >= len - *n) {
        *n = len - 1;
        return 1;
    }
    *n += (size_t)w;
    return 0;
}

/* Row r's key (its key fields; the strategy left out when within) and its cell's label.
 * Returns 0 or IDB_EINPUT (the key is longer than KEY_MAX). */
static int row_key(const mx_table *t, const source *src, int r, int within, char *key,
                   char *label, idb_err *err)
{
    size_t kn = 0, ln = 0;
    char sep[2] = { KEY_SEP, 0 };
    key[0] = label[0] = 0;
    for (int k = 0; src->keys[k].col; k++) {
        if (within && !strcmp(src->keys[k].col, "strategy")) continue;
        const char *v = mx_table_str(t, r, mx_table_col(t, src->keys[k].col));
        const char *def = key_default(src->keys[k].col);
        if (!*v && def) v = def;
        if (append3(key, KEY_MAX, &kn, v, sep, ""))
            return idb_fail(err, IDB_EINPUT, "%s:%d: the row's key fields are too long",
                            src->file, t->line[r]);
        if (src->keys[k].label && *v && !(def && !strcmp(v, def)))
            append3(label, CMP_LABEL_MAX, &ln, ln ? " " : "", src->keys[k].label, v);
    }
    return 0;
}

/* Group the rows of t (only those of strategy strat when it is not NULL) into cells.
 * Returns 0, IDB_EINPUT or IDB_ENOMEM; c is then empty. */
static int cells_make(const mx_table *t, const source *src, const char *strat, cells *c,
                      idb_err *err)
{
    size_t n = (size_t)t->nrow + 1;
    memset(c, 0, sizeof *c);
    c->key = malloc(n * sizeof *c->key);
    c->label = malloc(n * sizeof *c->label);
    c->cell = malloc(n * sizeof *c->cell);
    c->first = malloc(n * sizeof *c->first);
    if (!c->key || !c->label || !c->cell || !c->first) {
        cells_free(c);
        return idb_fail(err, IDB_ENOMEM, "out of memory");
    }
    int cs = mx_table_col(t, "strategy");
    for (int r = 0; r < t->nrow; r++) {
        c->cell[r] = -1;
        if (strat && strcmp(mx_table_str(t, r, cs), strat)) continue;
        int rc = row_key(t, src, r, strat != NULL, c->key[r], c->label[r], err);
        if (rc) {
            cells_free(c);
            return rc;
        }
        int g = 0;
        while (g < c->n && strcmp(c->key[c->first[g]], c->key[r])) g++;
        if (g == c->n) c->first[c->n++] = r;
        c->cell[r] = g;
    }
    return 0;
}

/* The cell of cs whose key is key, or -1. */
static int cells_find(const cells *cs, const char *key)
{
    for (int g = 0; g < cs->n; g++)
        if (!strcmp(cs->key[cs->first[g]], key)) return g;
    return -1;
}

/* The known values of metric m over the rows of cell g into v (room for t->nrow); returns
 * how many. A run's value is unknown when its field (or the divisor) is empty or 0. */
static int metric_values(const mx_table *t, const cells *cs, int g, const cmp_metric *m,
                         double *v)
{
    int col = mx_table_col(t, m->col), per = m->per ? mx_table_col(t, m->per) : -1, n = 0;
    for (int r = 0; r < t->nrow; r++) {
        if (cs->cell[r] != g || !*mx_table_str(t, r, col)) continue;
        double x = mx_table_num(t, r, col), d = per >= 0 ? mx_table_num(t, r, per) : 1;
        if (per >= 0 && !(d > 0)) continue;
        v[n++] = x / d;
    }
    return n;
}

/* A new row of res (zeroed, unknown figures NAN), or NULL when out of memory. */
static cmp_row *new_row(cmp_result *res, const char *loop, const char *label,
                        const cmp_metric *m)
{
    if (res->n == res->cap) {
        int cap = res->cap ? res->cap * 2 : 64;
        cmp_row *rows = realloc(res->rows, (size_t)cap * sizeof *rows);
        if (!rows) return NULL;
        res->rows = rows;
        res->cap = cap;
    }
    cmp_row *row = &res->rows[res->n++];
    memset(row, 0, sizeof *row);
    row->loop = loop;
    snprintf(row->cell, sizeof row->cell, "%s", label);
    row->m = m;
    row->a = row->b = row->change_pct = row->p = NAN;
    row->p_min = 1;
    return row;
}

/* Judge row's metric from a's values va[0..na) and b's vb[0..nb) (both sorted by this):
 * medians, change, U test when the repeats allow one, verdict, regression. Returns 0 or an
 * IDB_E* code. */
static int judge(cmp_row *row, double *va, int na, double *vb, int nb, const cmp_opts *o,
                 idb_err *err)
{
    double lo, hi;
    row->na = na;
    row->nb = nb;
    if (na) mx_aggregate(va, na, &row->a, &lo, &hi);
    if (nb) mx_aggregate(vb, nb, &row->b, &lo, &hi);
    if (!na || !nb) {
        row->verdict = CMP_NO_DATA;
        return 0;
    }
    row->change_pct = row->a != 0 ? (row->b - row->a) / row->a * 100
                      : row->b == 0 ? 0 : INFINITY;
    int good = ((row->b > row->a) - (row->b < row->a)) * (int)row->m->better;
    row->p_min = utest_p_min(na, nb);
    if (row->p_min > o->alpha) {
        row->verdict = CMP_NOT_TESTED;
    } else {
        utest u;
        int rc = utest_run(va, na, vb, nb, &u, err);
        if (rc) return rc;
        row->p = u.p;
        row->exact = u.exact;
        row->verdict = u.p >= o->alpha || !good ? CMP_SAME : good > 0 ? CMP_BETTER : CMP_WORSE;
    }
    double worse_pct = good < 0 ? fabs(row->change_pct) : 0;
    row->regression = o->fail_pct >= 0 && worse_pct > o->fail_pct &&
                      (row->verdict == CMP_WORSE || row->verdict == CMP_NOT_TESTED);
    return 0;
}

/* The rows of one cell found on both sides: one per selected metric with a value on
 * either side. va, vb have room for every row of a side's table. Returns 0 or a code. */
static int compare_cell(cmp_result *res, const source *src, const mx_table *ta,
                        const cells *ca, int ga, const mx_table *tb, const cells *cb, int gb,
                        double *va, double *vb, idb_err *err)
{
    for (int m = 0; m < cmp_n_metrics; m++) {
        if (res->o->metrics && !(res->o->metrics & (1u << m))) continue;
        int na = metric_values(ta, ca, ga, &cmp_metrics[m], va);
        int nb = metric_values(tb, cb, gb, &cmp_metrics[m], vb);
        if (!na && !nb) continue;
        cmp_row *row = new_row(res, src->loop, ca->label[ca->first[ga]], &cmp_metrics[m]);
        if (!row) return idb_fail(err, IDB_ENOMEM, "out of memory");
        int rc = judge(row, va, na, vb, nb, res->o, err);
        if (rc) return rc;
    }
    return 0;
}

/* Every cell of source i: matched ones metric by metric, then those on one side only.
 * found[0], found[1] count the cells of each side. Returns 0 or an IDB_E* code. */
static int compare_source(cmp_result *res, const side *a, const side *b, int i, int found[2],
                          idb_err *err)
{
    const source *src = &sources[i];
    const mx_table *ta = &a->t[i], *tb = &b->t[i];
    cells ca, cb;
    memset(&cb, 0, sizeof cb);
    int rc = cells_make(ta, src, res->o->strat_a, &ca, err);
    if (!rc) rc = cells_make(tb, src, res->o->strat_b, &cb, err);
    double *va = malloc(((size_t)ta->nrow + 1) * sizeof *va);
    double *vb = malloc(((size_t)tb->nrow + 1) * sizeof *vb);
    if (!rc && (!va || !vb)) rc = idb_fail(err, IDB_ENOMEM, "out of memory");
    for (int g = 0; !rc && g < ca.n; g++) {
        int gb = cells_find(&cb, ca.key[ca.first[g]]);
        if (gb >= 0) rc = compare_cell(res, src, ta, &ca, g, tb, &cb, gb, va, vb, err);
        else if (!new_row(res, src->loop, ca.label[ca.first[g]], NULL))
            rc = idb_fail(err, IDB_ENOMEM, "out of memory");
        else res->rows[res->n - 1].verdict = CMP_ONLY_A;
    }
    for (int g = 0; !rc && g < cb.n; g++) {
        if (cells_find(&ca, cb.key[cb.first[g]]) >= 0) continue;
        if (!new_row(res, src->loop, cb.label[cb.first[g]], NULL))
            rc = idb_fail(err, IDB_ENOMEM, "out of memory");
        else res->rows[res->n - 1].verdict = CMP_ONLY_B;
    }
    found[0] += ca.n;
    found[1] += cb.n;
    free(va);
    free(vb);
    cells_free(&ca);
    cells_free(&cb);
    return rc;
}

/* Index of metric name, or -1 (see compare.h). */
int cmp_metric_find(const char *name)
{
    for (int m = 0; m < cmp_n_metrics; m++)
        if (!strcmp(cmp_metrics[m].name, name)) return m;
    return -1;
}

/* Read, check, match, judge, then print (see compare.h). */
int cmp_run(const cmp_opts *o, FILE *out, int *regressions, idb_err *err)
{
    side sa = { .dir = o->dir_a }, sb = { .dir = o->dir_b };
    side *b = o->strat_a ? &sa : &sb;             /* --within: one directory, two strategies */
    cmp_result res = { .o = o };
    int found[2] = { 0, 0 };
    int rc = load_sides(&sa, b, err);
    for (int i = 0; !rc && i < N_SOURCES; i++) rc = compare_source(&res, &sa, b, i, found, err);
    if (!rc && o->strat_a && (!found[0] || !found[1]))
        rc = idb_fail(err, IDB_EINPUT, "compare: no runs of strategy '%s' in %s",
                      found[0] ? o->strat_b : o->strat_a, o->dir_a);
    if (!rc) {
        *regressions = 0;
        for (int i = 0; i < res.n; i++) *regressions += res.rows[i].regression;
        cmp_print(&res, out);
    }
    free(res.rows);
    for (int i = 0; i < N_SOURCES; i++) {
        mx_table_free(&sa.t[i]);
        mx_table_free(&sb.t[i]);
    }
    return rc;
}
