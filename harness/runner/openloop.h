/* openloop.h — the open loop of the insert runner (insert --rate R): orders arrive on a
 * schedule computed from the seed, independent of how fast the store goes, and each order's
 * latency runs from its scheduled arrival to the end of the commit that makes it durable.
 * A commit stall is then seen by every order that arrived during it, and a store that
 * falls behind shows growing latency (no coordinated omission).
 *
 * The runner (insert.c) supplies what one order and one commit do; this file owns the
 * schedule, the waiting, when to commit (--batch rows pending, or --commit-ms after the
 * first uncommitted order's arrival) and the order latencies.
 */
#ifndef IDB_OPENLOOP_H
#define IDB_OPENLOOP_H

#include <stdint.h>

#include "err.h"

/* How orders arrive: exponential gaps of mean 1/R (a Poisson process), or every 1/R. */
enum idb_arrivals { IDB_ARRIVALS_POISSON = 0, IDB_ARRIVALS_FIXED = 1 };

/* The arrival kind called name ("poisson", "fixed") into *kind. Returns 0 or IDB_EINPUT
 * with err naming the kinds. */
int idb_arrivals_parse(const char *name, int *kind, idb_err *err);

/* The arrival offsets (ns after the start) of n orders at rate orders per second into at
 * (room for n, the caller's): the first at 0, then the gaps of kind; Poisson gaps are
 * drawn from seed alone, so the same seed gives the same schedule. */
void idb_arrivals_make(uint64_t seed, double rate, int kind, int64_t n, int64_t *at);

/* Sleep, then spin, until the monotonic clock (idb_mono_ns) reads t_ns or later. */
void idb_wait_until(int64_t t_ns);

/* Sleep (no spin) until the monotonic clock reads t_ns: late by the scheduler's wake-up
 * (and the thread's timer slack) only. */
void idb_sleep_until(int64_t t_ns);

/* What the runner does for the open loop; every function returns 0 or an IDB_E* code
 * with err filled, which ends the loop. */
typedef struct idb_openloop_ops {
    void *ctx;
    /* Make, generate and insert order i (0-based, in arrival order). */
    int (*order)(void *ctx, int64_t i, idb_err *err);
    /* Commit everything inserted so far. */
    int (*commit)(void *ctx, idb_err *err);
} idb_openloop_ops;

/* One open-loop run of n orders. */
typedef struct idb_openloop_plan {
    int64_t n;
    double rate;                      /* orders per second, > 0 */
    int arrivals;                     /* enum idb_arrivals */
    uint64_t seed;                    /* of the schedule */
    int64_t batch;                    /* commit when this many orders are pending, >= 1 */
    double commit_ms;                 /* and when the first pending order arrived this long
                                       * ago; 0: by batch only */
} idb_openloop_plan;

/* What the open loop measured: order latency percentiles (ns) and the achieved rate. */
typedef struct idb_openloop_out {
    int64_t p50_ns, p99_ns, p999_ns, max_ns;
    double achieved_per_s;            /* n / (end of the last commit - the first arrival) */
} idb_openloop_out;

/* Run the open loop of plan through ops: wait for each order's arrival (when ahead of it),
 * do the order, commit when batch orders are pending or commit_ms has passed since the
 * first pending one arrived (waiting for that instead of the next arrival when it comes
 * first), and commit what is pending at the end. Returns 0 with out filled, or the first
 * failing op's code (IDB_ENOMEM when the latencies find no memory), err filled. */
int idb_openloop_run(const idb_openloop_plan *plan, const idb_openloop_ops *ops,
                     idb_openloop_out *out, idb_err *err);

#endif
