/* matrix_results.c — the results tables of a directory, loaded once for the plots and the
 * report, and what each may hold.
 *
 * A results directory may come from anywhere (a colleague, an old version, an attacker), so
 * every value the plots and the report read is checked before anything is drawn: per file,
 * the columns it must have (its schema below: one entry per column), each a name (not
 * empty, at most MX_NAME_LEN bytes), free text, an integer or a number, finite and within
 * a range fit for its column, empty only where "unknown" is a value the writer uses. The
 * CSV reader (matrix_csv.c) has already refused control characters, oversized files and
 * rows of the wrong width. A file that breaks a rule makes the whole directory refused
 * (IDB_EINPUT: "FILE:LINE: column: why"), so nothing half-checked reaches gnuplot or
 * report.md. Columns the schema does not list are kept as text.
 */
#include "matrix.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MX_NAME_LEN 100                          /* bytes of a name, at most */
#define COUNT_MAX 1125899906842624.0             /* 2^50: IDs, orders, pages; exact in a double */
#define MEASURE_MAX 1e15                         /* ns, inserts/s, bytes: far above any run */
#define RATIO_MAX 1e9                            /* misses or writes per insert */
#define SHARDS_MAX 65536
#define THREADS_MAX 1024
#define INT31_MAX 2147483647.0                   /* batch, shops */
#define REPEATS_MAX 1000
#define SECONDS_MAX 1e9                          /* t_s, skew_ms */

/* What a column holds. */
enum col_kind {
    COL_NAME,                                    /* a strategy, store, workload, ... */
    COL_TEXT,                                    /* anything (store_options) */
    COL_INT,                                     /* an integer in [lo, hi] */
    COL_NUM,                                     /* a number in [lo, hi] */
};

typedef struct col_spec {
    const char *name;
    enum col_kind kind;
    double lo, hi;
    int empty_ok;                                /* an empty field is "unknown"; ABSENT_OK:
                                                  * and a file may lack the column (made
                                                  * before it existed) */
} col_spec;
#define ABSENT_OK 2

#define NAME(c) { c, COL_NAME, 0, 0, 0 }
#define TEXT(c) { c, COL_TEXT, 0, 0, 1 }
#define INT(c, lo, hi) { c, COL_INT, lo, hi, 0 }
#define COUNT(c) { c, COL_INT, 0, COUNT_MAX, 1 }            /* a count, maybe unknown */
#define NUM(c, lo, hi) { c, COL_NUM, lo, hi, 0 }
#define MEASURE(c) { c, COL_NUM, 0, MEASURE_MAX, 1 }
#define SHARE(c) { c, COL_NUM, 0, 1, 1 }
#define TIMING(c, kind) kind(c), kind(c "_min"), kind(c "_max")   /* median, min, max */
#define IDS INT("ids", 1, COUNT_MAX)
#define SHARDS INT("shards", 1, SHARDS_MAX)
#define END { NULL, COL_TEXT, 0, 0, 0 }
/* Columns added with insert --clients (issue 24): absent from older results. */
#define NEWER(c, kind, lo, hi) { c, kind, lo, hi, ABSENT_OK }
#define CLIENTS NEWER("clients", COL_INT, 1, THREADS_MAX)

static const col_spec insert_cols[] = {
    NAME("strategy"), NAME("store"), SHARDS, IDS, INT("key_bytes", 1, IDB_ID_MAX),
    INT("batch", 1, INT31_MAX), TIMING("seconds", MEASURE), TIMING("gen_ns_per_id", MEASURE),
    TIMING("inserts_per_s", MEASURE), TIMING("lat_p50_ns", COUNT), TIMING("lat_p99_ns", COUNT),
    TIMING("lat_p999_ns", COUNT), TIMING("lat_max_ns", COUNT), TIMING("commit_p99_ns", COUNT),
    COUNT("leaf_pages"), COUNT("depth"), SHARE("fill_factor"), COUNT("file_bytes"),
    COUNT("pages_written"), MEASURE("write_bytes_per_id"), COUNT("cache_misses"),
    SHARE("tail_insert_frac"), SHARE("insert_pos_p50"), INT("shops", 1, INT31_MAX),
    INT("repeats", 1, REPEATS_MAX), TEXT("store_options"), CLIENTS,
    NEWER("wait_share", COL_NUM, 0, 1), NEWER("wait_ns_per_order", COL_NUM, 0, MEASURE_MAX),
    NEWER("failed_txns", COL_INT, 0, COUNT_MAX), NEWER("retries", COL_INT, 0, COUNT_MAX),
    NEWER("wait_share_none", COL_NUM, 0, 1),
    NEWER("server_cpu_ns_per_order", COL_NUM, 0, MEASURE_MAX),
    NEWER("hot_share", COL_NUM, 0, 1), NEWER("hot_share_window_max", COL_NUM, 0, 1), END,
};
static const col_spec positions_cols[] = {
    NAME("strategy"), NAME("store"), SHARDS, IDS, CLIENTS, NUM("bin_lo", 0, 1),
    NUM("bin_hi", 0, 1),
    INT("count", 0, COUNT_MAX), NUM("share", 0, 1), END,
};
static const col_spec curve_cols[] = {
    NAME("strategy"), NAME("store"), INT("cache_pages", 1, COUNT_MAX),
    { "misses_per_insert", COL_NUM, 0, RATIO_MAX, 1 },
    { "writes_per_insert", COL_NUM, 0, RATIO_MAX, 1 }, IDS, SHARDS, END,
};
static const col_spec generation_cols[] = {
    NAME("kind"), NAME("name"), INT("threads", 1, THREADS_MAX), TIMING("ns_per_id", MEASURE),
    INT("repetitions", 0, REPEATS_MAX), END,
};
static const col_spec skew_cols[] = {
    NUM("skew_ms", 0, SECONDS_MAX), NAME("workload"), NAME("strategy"), SHARE("inversion_frac"),
    END,
};
static const col_spec timeline_cols[] = {
    NAME("workload"), NAME("strategy"), INT("t_s", 0, SECONDS_MAX),
    INT("orders", 0, COUNT_MAX), INT("failed_orders", 0, COUNT_MAX), END,
};
static const col_spec simulate_cols[] = { NAME("workload"), NAME("strategy"), END };
static const col_spec range_cols[] = {
    NAME("workload"), NAME("strategy"), NAME("routing"), INT("shards", 1, 1024), SHARE("hot_share"),
    SHARE("hot_share_p99"), END,
};
static const col_spec series_cols[] = {
    NAME("block"), NAME("strategy"), NAME("store"), INT("rows", 1, COUNT_MAX),
    COUNT("index_bytes"), MEASURE("inserts_per_s"), COUNT("cache_misses"),
    COUNT("pages_written"), COUNT("read_pages"), COUNT("lat_p99_ns"), COUNT("cache_bytes"),
    MEASURE("modelled_inserts_per_s"), END,
};

static const col_spec read_cols[] = {
    NAME("block"), NAME("store"), NAME("strategy"), NAME("pattern"), NAME("cache"),
    INT("lookups", 1, COUNT_MAX), INT("found", 0, COUNT_MAX), INT("not_found", 0, COUNT_MAX),
    MEASURE("misses_per_lookup"), MEASURE("read_pages_per_lookup"), MEASURE("lookups_per_s"),
    COUNT("lat_p50_ns"), COUNT("lat_p99_ns"), INT("rows", 1, COUNT_MAX), END,
};
static const col_spec counterkill_cols[] = {
    NAME("run"), NAME("store"), IDS, INT("failed_orders", 0, COUNT_MAX),
    INT("duplicate_ids", 0, COUNT_MAX), END,
};
static const col_spec failover_cols[] = {       /* failover_ms: empty when the fault did
                                                  * not complete within the run */
    NAME("run"), NAME("backend"), NAME("mode"), NAME("store"), IDS,
    INT("failed_orders", 0, COUNT_MAX), INT("duplicate_ids", 0, COUNT_MAX),
    INT("lost_ids", 0, COUNT_MAX), MEASURE("failover_ms"), END,
};
static const col_spec cells_cols[] = {
    INT("cell", 1, COUNT_MAX), NAME("kind"), NAME("store"), NAME("strategy"), NAME("status"),
    NUM("seconds", 0, SECONDS_MAX), TEXT("label"), END,
};
/* Every results table: its file, where it goes in mx_results, its schema. */
static const struct {
    const char *file;
    size_t off;
    const col_spec *cols;
} result_tables[] = {
    { "insert.csv", offsetof(mx_results, ins), insert_cols },
    { "positions.csv", offsetof(mx_results, pos), positions_cols },
    { "curve.csv", offsetof(mx_results, curve), curve_cols },
    { "generation.csv", offsetof(mx_results, gen), generation_cols },
    { "skew.csv", offsetof(mx_results, skew), skew_cols },
    { "timeline.csv", offsetof(mx_results, tl), timeline_cols },
    { "simulate.csv", offsetof(mx_results, sim), simulate_cols },
    { "series.csv", offsetof(mx_results, series), series_cols },
    { "counterkill.csv", offsetof(mx_results, kill), counterkill_cols },
    { "failover.csv", offsetof(mx_results, failover), failover_cols },
    { "range.csv", offsetof(mx_results, range), range_cols },
    { "read.csv", offsetof(mx_results, read), read_cols },
    { "cells.csv", offsetof(mx_results, cells), cells_cols },
};
#define N_RESULT_TABLES (sizeof result_tables / sizeof *result_tables)

#define NUM_CHARS "0123456789+-.eE"              /* what a number is written with */

/* Check one field s against c; NULL when it is fine, else why not (into why). */
static const char *check_field(const col_spec *c, const char *s, char *why, size_t len)
{
    if (!*s) return c->empty_ok || c->kind == COL_TEXT ? NULL : "is empty";
    if (c->kind == COL_TEXT) return NULL;
    if (c->kind == COL_NAME)
        return strlen(s) > MX_NAME_LEN ? "is longer than a name may be" : NULL;
    char *end;
    double v = strtod(s, &end);
    if (s[strspn(s, NUM_CHARS)] || end == s || *end || !isfinite(v))
        return c->kind == COL_INT ? "is not an integer" : "is not a number";
    if (c->kind == COL_INT && v != floor(v)) return "is not an integer";
    if (v >= c->lo && v <= c->hi) return NULL;
    snprintf(why, len, "is out of range %.15g..%.15g", c->lo, c->hi);
    return why;
}

/* Check table t (read from file) against its schema cols. Returns 0 or IDB_EINPUT. */
static int check_table(const mx_table *t, const char *file, const col_spec *cols, idb_err *err)
{
    for (const col_spec *c = cols; c->name; c++) {
        int col = mx_table_col(t, c->name);
        if (col < 0 && c->empty_ok == ABSENT_OK) continue;
        if (col < 0)
            return idb_fail(err, IDB_EINPUT, "%s: no column %s (not a results file of this "
                                             "idbench)", file, c->name);
        for (int r = 0; r < t->nrow; r++) {
            char buf[96];
            const char *s = mx_table_str(t, r, col), *why = check_field(c, s, buf, sizeof buf);
            if (why)
                return idb_fail(err, IDB_EINPUT, "%s:%d: %s: '%.40s%s' %s", file, t->line[r],
                                c->name, s, strlen(s) > 40 ? "..." : "", why);
        }
    }
    return 0;
}

/* Load one results table of r->dir (an empty table when the file is missing) and check it.
 * Returns 0 or an IDB_E* code with err. */
static int load_table(mx_results *r, size_t i, idb_err *err)
{
    char path[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/%s", r->dir, result_tables[i].file);
    mx_table *t = (mx_table *)((char *)r + result_tables[i].off);
    if (access(path, F_OK) != 0 && errno == ENOENT) return 0;
    int rc = mx_table_load(path, t, err);
    return rc ? rc : check_table(t, result_tables[i].file, result_tables[i].cols, err);
}

/* Move insert.csv's second-phase rows (phase = then) from r->ins to r->then, so that
 * every reader of ins sees runs only. Returns 0 or IDB_ENOMEM. */
static int split_then(mx_results *r, idb_err *err)
{
    mx_table *t = &r->ins, *th = &r->then;
    int cp = mx_table_col(t, "phase"), n = 0, kept = 0;
    for (int row = 0; cp >= 0 && row < t->nrow; row++)
        n += !strcmp(mx_table_str(t, row, cp), "then");
    if (!n) return 0;
    th->cell = malloc((size_t)n * (size_t)t->ncol * sizeof *th->cell);
    th->line = malloc((size_t)n * sizeof *th->line);
    if (!th->cell || !th->line) return idb_fail(err, IDB_ENOMEM, "out of memory");
    th->head = t->head;
    th->ncol = t->ncol;
    size_t w = (size_t)t->ncol * sizeof *t->cell;
    for (int row = 0; row < t->nrow; row++) {
        int then = !strcmp(mx_table_str(t, row, cp), "then");
        mx_table *to = then ? th : t;
        int at = then ? th->nrow++ : kept++;
        memmove(to->cell + (size_t)at * (size_t)t->ncol, t->cell + (size_t)row * (size_t)t->ncol,
                w);
        to->line[at] = t->line[row];
    }
    t->nrow = kept;
    return 0;
}

/* Load and check every results table of dir; missing files are empty tables (see
 * matrix.h). */
int mx_results_load(mx_results *r, const char *dir, idb_err *err)
{
    memset(r, 0, sizeof *r);
    r->dir = dir;
    for (size_t i = 0; i < N_RESULT_TABLES; i++) {
        int rc = load_table(r, i, err);
        if (rc) {
            mx_results_free(r);
            return rc;
        }
    }
    int rc = split_then(r, err);
    if (rc) {
        mx_results_free(r);
        return rc;
    }
    mx_headline(&r->ins, &r->ids, &r->shards);
    int crep = mx_table_col(&r->ins, "repeats");
    for (int row = 0; row < r->ins.nrow; row++) {
        long long n = mx_table_ll(&r->ins, row, crep, 0);
        if (n > r->reps && n <= INT_MAX) r->reps = (int)n;
    }
    return 0;
}

/* Free every table (see matrix.h). */
void mx_results_free(mx_results *r)
{
    for (size_t i = 0; i < N_RESULT_TABLES; i++)
        mx_table_free((mx_table *)((char *)r + result_tables[i].off));
    free(r->then.cell);                          /* its head and text are ins's */
    free(r->then.line);
    memset(&r->then, 0, sizeof r->then);
}
