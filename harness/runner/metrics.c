/* metrics.c — percentiles and /proc/self/io (see metrics.h). */
#include "metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "keysort.h"

int idb_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int64_t idb_percentile(int64_t *v, int64_t n, double q)
{
    if (n <= 0) return 0;
    int sorted = 1;
    for (int64_t i = 1; i < n && sorted; i++) sorted = v[i - 1] <= v[i];
    if (!sorted) idb_i64_sort(v, n);
    int64_t rank = (int64_t)ceil(q * (double)n);      /* nearest rank, 1-based */
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return v[rank - 1];
}

/* wchar of the io file at path, or -1. */
static int64_t wchar(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[128];
    long long v = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "wchar: %lld", &v) == 1) break;
    fclose(f);
    return v;
}

int64_t idb_proc_write_bytes(void) { return wchar("/proc/self/io"); }

int64_t idb_thread_write_bytes(void) { return wchar("/proc/thread-self/io"); }
