/* bench.h — a pure-C interface to Google Benchmark (the adapter is bench_gbench.cc).
 *
 * C code describes a benchmark with an idb_bench_def (name, run function, user data,
 * threads) and registers it; run() loops on idb_bench_keep_running_batch() around the
 * work being measured. Google Benchmark does the timing, repetitions, statistics and
 * reporting (console or --benchmark_out=FILE --benchmark_out_format=json).
 */
#ifndef IDB_BENCH_H
#define IDB_BENCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct idb_bench_state idb_bench_state;   /* opaque: a benchmark::State */

typedef struct idb_bench_def {
    const char *name;                 /* e.g. "gen/uuidv7" (copied) */
    void (*run)(idb_bench_state *st, void *user);
    void *user;                       /* handed to run; owned by the caller */
    int max_threads;                  /* 0: one thread, no suffix; N: runs at 1..N threads */
    int threads_pow2;                 /* 1: at 1, 2, 4 .. max_threads threads instead */
} idb_bench_def;

/* Register def (copied). Items processed = iterations, so reports carry items/s. */
void idb_bench_register(const idb_bench_def *def);

/* 1 while the benchmark wants n more iterations (counted as n items), 0 when done. */
int idb_bench_keep_running_batch(idb_bench_state *st, int64_t n);

/* Which of the benchmark's threads this is (0-based), and how many there are. */
int idb_bench_thread_index(const idb_bench_state *st);
int idb_bench_threads(const idb_bench_state *st);

/* Report a user counter with the benchmark (summed over its threads). */
void idb_bench_counter(idb_bench_state *st, const char *name, double value);

/* Stop this benchmark and report msg instead of a time. */
void idb_bench_skip_with_error(idb_bench_state *st, const char *msg);

/* Parse Google Benchmark's flags from argv and run the registered benchmarks that match.
 * Returns the number of benchmarks run, or -1 when argv holds a flag it does not know. */
int idb_bench_run(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
