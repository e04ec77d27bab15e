/* series.c — throughput over time, one row per window (see series.h). */
#include "series.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "metrics.h"

#define NS_PER_S 1e9
#define P99 0.99
#define ROWS_FIRST 64

/* One row as it will be printed (-1: unknown, printed empty). */
typedef struct srow {
    int64_t rows, index_bytes, misses, written, reads, lat_p99_ns, cache_bytes;
    double inserts_per_s, modelled_per_s;
} srow;

struct idb_series {
    char path[4096];
    const char *strategy, *store;
    idb_device dev;
    srow *rows;
    int64_t n, cap;
    int64_t prev_rows, prev_busy_ns;     /* at the previous window's end */
    double busy_s;                       /* the window closed last: its measured seconds */
    idb_store_progress prev;             /* the stores' figures at the previous end */
    int64_t *scratch;                    /* a window's latencies, to sort */
    int64_t scratch_cap;
};

int idb_series_check(const char *path, int64_t window, int batch, idb_err *err)
{
    if (window < 1) return idb_fail(err, IDB_EINPUT, "--window must be at least 1");
    if (window % batch)
        return idb_fail(err, IDB_EINPUT, "--window %lld is not a multiple of --batch %d "
                        "(a window ends with a transaction)", (long long)window, batch);
    if (!path[0] || strlen(path) >= sizeof ((idb_series *)0)->path)
        return idb_fail(err, IDB_EINPUT, "--series: an empty or too long path");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *(slash == dir ? slash + 1 : slash) = '\0';
    else strcpy(dir, ".");
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return idb_fail(err, IDB_EINPUT, "--series %s: no directory %s", path, dir);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return idb_fail(err, IDB_EINPUT, "--series %s: is a directory", path);
    return 0;
}

idb_series *idb_series_new(const char *path, const char *strategy, const char *store,
                           const idb_device *d)
{
    idb_series *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    snprintf(s->path, sizeof s->path, "%s", path);
    s->strategy = strategy;
    s->store = store;
    s->dev = *d;
    return s;
}

void idb_series_free(idb_series *s)
{
    if (!s) return;
    free(s->rows);
    free(s->scratch);
    free(s);
}

/* Room for one more row, and its time and latency from w. */
int idb_series_window_end(idb_series *s, const idb_series_window *w, idb_err *err)
{
    if (s->n == s->cap) {
        int64_t cap = s->cap ? s->cap * 2 : ROWS_FIRST;
        srow *r = realloc(s->rows, (size_t)cap * sizeof *r);
        if (!r) return idb_fail(err, IDB_ENOMEM, "out of memory for the series");
        s->rows = r;
        s->cap = cap;
    }
    if (w->nlat > s->scratch_cap) {
        int64_t *t = realloc(s->scratch, (size_t)w->nlat * sizeof *t);
        if (!t) return idb_fail(err, IDB_ENOMEM, "out of memory for the series");
        s->scratch = t;
        s->scratch_cap = w->nlat;
    }
    srow *r = &s->rows[s->n];
    *r = (srow){ .rows = w->rows, .inserts_per_s = -1, .lat_p99_ns = -1 };
    s->busy_s = -1;
    if (w->busy_ns >= 0) {
        s->busy_s = (double)(w->busy_ns - s->prev_busy_ns) / NS_PER_S;
        r->inserts_per_s = (double)(w->rows - s->prev_rows) / s->busy_s;
        s->prev_busy_ns = w->busy_ns;
    }
    if (w->lat && w->nlat > 0) {
        memcpy(s->scratch, w->lat, (size_t)w->nlat * sizeof *s->scratch);
        r->lat_p99_ns = idb_percentile(s->scratch, w->nlat, P99);
    }
    return 0;
}

/* b - a, or -1 when either is unknown. */
static int64_t delta(int64_t b, int64_t a)
{
    return a < 0 || b < 0 ? -1 : b - a;
}

int idb_series_counts(idb_series *s, const idb_store_progress *cum, idb_err *err)
{
    (void)err;
    srow *r = &s->rows[s->n++];
    r->index_bytes = cum->index_bytes;
    r->cache_bytes = cum->cache_bytes;
    r->misses = delta(cum->cache_misses, s->prev.cache_misses);
    r->written = delta(cum->pages_written, s->prev.pages_written);
    r->reads = delta(cum->read_pages, s->prev.read_pages);
    double dev = idb_device_seconds(&s->dev, r->reads, r->written);
    double busy = s->busy_s < 0 ? 0 : s->busy_s;            /* a model measures no time */
    r->modelled_per_s = dev < 0 ? -1 : (double)(r->rows - s->prev_rows) / (busy + dev);
    s->prev = *cum;
    s->prev_rows = r->rows;
    return 0;
}

void idb_series_add(idb_store_progress *a, const idb_store_progress *b)
{
    int64_t *x[] = { &a->index_bytes, &a->cache_bytes, &a->pages_written, &a->read_pages,
                     &a->cache_misses };
    const int64_t y[] = { b->index_bytes, b->cache_bytes, b->pages_written, b->read_pages,
                          b->cache_misses };
    for (size_t i = 0; i < sizeof y / sizeof *y; i++)
        *x[i] = *x[i] < 0 || y[i] < 0 ? -1 : *x[i] + y[i];
}

/* v then sep, or only sep for unknown (< 0). */
static void put_i(FILE *f, int64_t v, const char *sep)
{
    if (v >= 0) fprintf(f, "%lld", (long long)v);
    fputs(sep, f);
}

static void put_d(FILE *f, double v, const char *sep)
{
    if (v >= 0) fprintf(f, "%.0f", v);
    fputs(sep, f);
}

int idb_series_write(idb_series *s, idb_err *err)
{
    idb_atomic a;
    FILE *f = idb_atomic_open(&a, s->path);
    if (!f) return idb_fail(err, IDB_EIO, "--series %s: %s", s->path, strerror(errno));
    fputs("strategy,store,rows,index_bytes,inserts_per_s,cache_misses,pages_written,"
          "read_pages,lat_p99_ns,cache_bytes,modelled_inserts_per_s\n", f);
    for (int64_t i = 0; i < s->n; i++) {
        const srow *r = &s->rows[i];
        fprintf(f, "%s,%s,", s->strategy, s->store);
        put_i(f, r->rows, ",");
        put_i(f, r->index_bytes, ",");
        put_d(f, r->inserts_per_s, ",");
        put_i(f, r->misses, ",");
        put_i(f, r->written, ",");
        put_i(f, r->reads, ",");
        put_i(f, r->lat_p99_ns, ",");
        put_i(f, r->cache_bytes, ",");
        put_d(f, r->modelled_per_s, "\n");
    }
    if (idb_atomic_commit(&a, 0) != 0)
        return idb_fail(err, IDB_EIO, "--series %s: %s", s->path, strerror(errno));
    return 0;
}
