/* metrics.h — small measurement helpers the runners share: a monotonic clock for the
 * harness's own timing, percentiles, and the process's write volume. */
#ifndef IDB_METRICS_H
#define IDB_METRICS_H

#include <stdint.h>
#include <time.h>

/* Monotonic time in ns (for durations; the harness owns all timing). */
static inline int64_t idb_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The q-quantile (0..1, nearest rank) of v[0..n); sorts v in place unless it is sorted
 * already (so asking several quantiles of one array sorts once). 0 when n == 0. */
int64_t idb_percentile(int64_t *v, int64_t n, double q);

/* qsort order of doubles (ascending; NaNs compare equal to everything). */
int idb_cmp_double(const void *a, const void *b);

/* Bytes this process has passed to write(2)-family calls so far (/proc/self/io wchar),
 * or -1 when /proc/self/io cannot be read. */
int64_t idb_proc_write_bytes(void);
/* The same for the calling thread alone (/proc/thread-self/io wchar): no child process's
 * writes, which /proc/self/io adds once they are reaped. -1 when it cannot be read. */
int64_t idb_thread_write_bytes(void);

#endif
