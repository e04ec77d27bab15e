/* series.h — throughput over time: one CSV row per window of W inserts (insert --window W
 * --series FILE), so a run shows how a strategy's cost changes as its table grows.
 *
 * Columns (the first nine as issue 13 lists them, then two more):
 *   strategy, store, rows, index_bytes, inserts_per_s, cache_misses, pages_written,
 *   read_pages, lat_p99_ns, cache_bytes, modelled_inserts_per_s
 * rows and index_bytes are cumulative at the window's end (index_bytes: the store's
 * progress hook, store.h); the others are the window's own: inserts_per_s = the window's
 * inserts / its insert and commit time, lat_p99_ns of its inserts, cache_misses,
 * pages_written and read_pages the differences of the stores' cumulative figures (summed
 * over shards). The last window ends with the run and takes the run's final statistics
 * (idb_store_stats, after stats()' checkpoint or flush), so the windows add up to the whole
 * run. cache_bytes: the stores' own cache (summed over shards). modelled_inserts_per_s:
 * with a device model (device.h), the window's inserts / (its measured time + the device
 * time of its reads and writes). Unknown values are empty (a model store measures no
 * time; LMDB counts no reads). Rows are kept in memory and the file is written only at
 * the end of a run that succeeded (atomic_file.h), so a failed run leaves none.
 */
#ifndef IDB_SERIES_H
#define IDB_SERIES_H

#include <stdint.h>

#include "device.h"
#include "err.h"
#include "store.h"

typedef struct idb_series idb_series;

/* What a window closes with: its end (cumulative inserts), the run's cumulative insert +
 * commit time so far (ns, -1 when not measured), and its inserts' latencies. */
typedef struct idb_series_window {
    int64_t rows;
    int64_t busy_ns;
    const int64_t *lat;       /* the window's latencies (copied, not kept), or NULL */
    int64_t nlat;
} idb_series_window;

/* Check that path can be a series file (its directory exists, it is not a directory) and
 * that window is at least 1 and a multiple of batch. Returns 0 or IDB_EINPUT. */
int idb_series_check(const char *path, int64_t window, int batch, idb_err *err);

/* A new series for the run of strategy on store (names borrowed) with device d (copied).
 * Returns NULL when out of memory. */
idb_series *idb_series_new(const char *path, const char *strategy, const char *store,
                           const idb_device *d);

/* Close a window: its time and latency now, its counts with the next idb_series_counts
 * (the last window's after the run's statistics). Returns 0 or IDB_ENOMEM. */
int idb_series_window_end(idb_series *s, const idb_series_window *w, idb_err *err);

/* The stores' cumulative figures at the end of the window closed last: writes its row. */
int idb_series_counts(idb_series *s, const idb_store_progress *cum, idb_err *err);

/* Write the file (atomically). Returns 0 or IDB_EIO. */
int idb_series_write(idb_series *s, idb_err *err);

/* Free s (NULL is fine); the file is not written. */
void idb_series_free(idb_series *s);

/* Add b's figures into a (a figure unknown in either stays unknown, -1). */
void idb_series_add(idb_store_progress *a, const idb_store_progress *b);

#endif
