/* matrix_read.c — the [read] block of a matrix file (issue 27): each cell an insert into
 * the cell's directory with its record kept (insert --dir), then `idbench read`'s point
 * lookups (runner/read.h) once per pattern of the block's `patterns` (uniform, recent:H,
 * mixed:P:H), `cache` (cold or warm) and `lookups`, a row per pattern into the scratch
 * read.csv that cmd_matrix.c appends to the results' read.csv (with the block's name).
 * The rows have `idbench read`'s own columns, in its order (docs/reads.md).
 */
#include "matrix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "matrix_file_int.h"
#include "read.h"

#define PATTERN_MAX 64

/* One pattern's text into cfg (pattern, recent_pct, mixed_pct). Returns 0 or IDB_EINPUT. */
static int parse_pattern(const char *text, idb_read_config *cfg, idb_err *err)
{
    char buf[PATTERN_MAX];
    if (strlen(text) >= sizeof buf) return idb_fail(err, IDB_EINPUT, "pattern too long");
    strcpy(buf, text);
    char *p1 = strchr(buf, ':'), *p2 = p1 ? strchr(p1 + 1, ':') : NULL;
    if (p1) *p1++ = 0;
    if (p2) *p2++ = 0;
    double a = 0, b = 0;
    int ok = 0;
    if (!strcmp(buf, "uniform") && !p1) {
        cfg->pattern = IDB_READ_UNIFORM;
        ok = 1;
    } else if (!strcmp(buf, "recent") && p1 && !p2) {
        ok = idb_parse_double(p1, &a) == 0 && a > 0 && a <= 100;
        cfg->pattern = IDB_READ_RECENT;
        cfg->recent_pct = a;
    } else if (!strcmp(buf, "mixed") && p2) {
        ok = idb_parse_double(p1, &a) == 0 && idb_parse_double(p2, &b) == 0 && a >= 0 &&
             a <= 100 && b > 0 && b <= 100;
        cfg->pattern = IDB_READ_MIXED;
        cfg->mixed_pct = a;
        cfg->recent_pct = b;
    }
    return ok ? 0 : idb_fail(err, IDB_EINPUT, "'%s' is not a read pattern (uniform, recent:H "
                             "or mixed:P:H; H in (0, 100], P in [0, 100])", text);
}

/* Check one entry of [read] patterns (idb_key_each). */
static int pattern_entry(void *ctx, int i, const char *text, idb_err *err)
{
    (void)ctx, (void)i;
    idb_read_config cfg = { 0 };
    return parse_pattern(text, &cfg, err);
}

/* Hook of [read] patterns (see matrix.h). */
int mx_read_patterns_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                           idb_err *err)
{
    (void)base, (void)ctx, (void)i;
    int n = idb_key_each(k, text, MX_LIST_MAX, pattern_entry, NULL, err);
    return n < 0 ? n : n == 0 ? idb_fail(err, IDB_EINPUT, "no pattern") : 0;
}

/* Hook of [read] cache (see matrix.h). */
int mx_read_cache_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                        idb_err *err)
{
    (void)k, (void)base, (void)ctx, (void)i;
    return !strcmp(text, "cold") || !strcmp(text, "warm") ? 0
           : idb_fail(err, IDB_EINPUT, "cache '%s' is not cold or warm", text);
}

/* Where a read cell's rows go before cmd_matrix.c collects them (see matrix.h). */
void mx_read_path(const mx_ctx *x, char *buf, size_t len)
{
    snprintf(buf, len, "%s/read.csv", x->scratch);
}

/* v with its digits, or nothing when it is unknown (< 0), then sep. */
static void put_num(FILE *f, double v, int digits, const char *sep)
{
    if (v >= 0 && isfinite(v)) fprintf(f, "%.*f", digits, v);
    fputs(sep, f);
}

/* One row of read.csv: idbench read's columns in its order. */
static void put_row(FILE *f, const mx_cell *c, const char *pattern, const char *cache,
                    const idb_read_result *r, uint64_t seed)
{
    fprintf(f, "%s,%s,%s,%s,%lld,%lld,%lld,", c->store->name, r->strategy, pattern, cache,
            (long long)r->lookups, (long long)r->found, (long long)r->not_found);
    put_num(f, r->misses_per_lookup, 4, ",");
    put_num(f, r->read_pages_per_lookup, 4, ",");
    put_num(f, r->lookups_per_s, 0, ",");
    put_num(f, (double)r->lat_p50_ns, 0, ",");
    put_num(f, (double)r->lat_p99_ns, 0, ",");
    fprintf(f, "%lld,0.0000,%lld,%llu,", (long long)r->missing, (long long)r->rows,
            (unsigned long long)seed);
    put_num(f, (double)r->rows_returned, 0, ",");
    put_num(f, r->misses_per_row, 4, "\n");
}

/* The reads of cell c on dir, which its insert filled (see matrix.h). */
int mx_read_cell(const mx_ctx *x, const mx_cell *c, const char *dir, idb_err *err)
{
    const mx_block *b = c->block;
    char path[MX_FILE_MAX], list[MX_SET_MAX];
    mx_read_path(x, path, sizeof path);
    FILE *f = fopen(path, "w");
    if (!f) return idb_fail(err, IDB_EIO, "cannot write %s", path);
    fprintf(f, "store,strategy,pattern,cache,lookups,found,not_found,misses_per_lookup,"
               "read_pages_per_lookup,lookups_per_s,lat_p50_ns,lat_p99_ns,miss_ids,"
               "miss_share,rows,seed,rows_returned,misses_per_row\n");
    snprintf(list, sizeof list, "%s", b->read_patterns);
    int rc = 0;
    for (char *save = NULL, *t = strtok_r(list, ", \t", &save); t && !rc;
         t = strtok_r(NULL, ", \t", &save)) {
        idb_read_config cfg = { .store = c->store, .dir = dir, .lookups = b->lookups,
                                .warm = !strcmp(b->read_cache, "warm"),
                                .seed = (uint64_t)x->m->seed };
        idb_read_result res;
        rc = parse_pattern(t, &cfg, err);
        if (!rc) rc = idb_read_run(&cfg, &res, err);
        if (!rc) put_row(f, c, t, b->read_cache, &res, cfg.seed);
    }
    if (fclose(f) != 0 && !rc) rc = idb_fail(err, IDB_EIO, "cannot write %s", path);
    return rc;
}
