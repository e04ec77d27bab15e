/* openloop.c — the open loop of the insert runner (see openloop.h).
 *
 * The schedule is computed before the first order, so how fast the store goes cannot
 * change when orders arrive. The loop waits until the next event: the next order's
 * arrival, or the --commit-ms deadline of the oldest uncommitted order, whichever comes
 * first. An order that arrives while the runner is busy (a slow insert, a commit stalled
 * by a checkpoint) is taken late, and its latency still counts from its arrival.
 */
#include "openloop.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metrics.h"
#include "random.h"

#define NS_PER_S 1e9
#define NS_PER_MS 1e6
#define SPIN_NS 100000              /* the last stretch of a wait is spun, not slept:
                                     * a sleep's wake-up can be late by tens of us */
#define NS_PER_S_INT 1000000000LL

static const struct { const char *name; int kind; } arrival_kinds[] = {
    { "poisson", IDB_ARRIVALS_POISSON }, { "fixed", IDB_ARRIVALS_FIXED },
};

/* The arrival kind called name (see openloop.h). */
int idb_arrivals_parse(const char *name, int *kind, idb_err *err)
{
    for (size_t i = 0; i < sizeof arrival_kinds / sizeof *arrival_kinds; i++)
        if (strcmp(name, arrival_kinds[i].name) == 0) {
            *kind = arrival_kinds[i].kind;
            return 0;
        }
    return idb_fail(err, IDB_EINPUT, "--arrivals: '%s' is not poisson or fixed", name);
}

/* The seeded arrival schedule (see openloop.h). Offsets are summed in double seconds and
 * rounded once each, so they do not drift by rounding. */
void idb_arrivals_make(uint64_t seed, double rate, int kind, int64_t n, int64_t *at)
{
    idb_rng rng;
    idb_rng_seed(&rng, seed);
    double t = 0;
    for (int64_t i = 0; i < n; i++) {
        at[i] = (int64_t)llround(t * NS_PER_S);
        double gap = kind == IDB_ARRIVALS_FIXED ? 1.0 / rate
                                                : -log1p(-idb_rng_double(&rng)) / rate;
        t = kind == IDB_ARRIVALS_FIXED ? (double)(i + 1) / rate : t + gap;
    }
}

/* Sleep until the monotonic clock reads t_ns (see openloop.h). */
void idb_sleep_until(int64_t t_ns)
{
    struct timespec ts = { .tv_sec = t_ns / NS_PER_S_INT, .tv_nsec = t_ns % NS_PER_S_INT };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
}

/* Wait until the monotonic clock reads t_ns (see openloop.h). */
void idb_wait_until(int64_t t_ns)
{
    int64_t sleep_to = t_ns - SPIN_NS;
    if (idb_mono_ns() < sleep_to) idb_sleep_until(sleep_to);
    while (idb_mono_ns() < t_ns) {}
}

/* The state of one open-loop run. */
typedef struct loop {
    const idb_openloop_plan *plan;
    const idb_openloop_ops *ops;
    int64_t *at, *lat;                /* arrivals (absolute ns), then order latencies */
    int64_t first, done;              /* orders [first, done) are inserted, not committed */
    int64_t last_commit_ns;
} loop;

/* Commit the pending orders; each one's latency ends with the commit. */
static int commit_pending(loop *l, idb_err *err)
{
    int rc = l->ops->commit(l->ops->ctx, err);
    if (rc) return rc;
    int64_t end = idb_mono_ns();
    for (int64_t i = l->first; i < l->done; i++) l->lat[i] = end - l->at[i];
    l->first = l->done;
    l->last_commit_ns = end;
    return 0;
}

/* The orders and commits, in time order. */
static int drive(loop *l, idb_err *err)
{
    const idb_openloop_plan *p = l->plan;
    int64_t after = (int64_t)llround(p->commit_ms * NS_PER_MS);
    int rc = 0;
    while (l->done < p->n && !rc) {
        int64_t next = l->at[l->done];
        if (after > 0 && l->first < l->done && l->at[l->first] + after <= next) {
            idb_wait_until(l->at[l->first] + after);
            rc = commit_pending(l, err);
            continue;
        }
        idb_wait_until(next);
        rc = l->ops->order(l->ops->ctx, l->done, err);
        if (!rc && ++l->done - l->first >= p->batch) rc = commit_pending(l, err);
    }
    if (!rc && l->first < l->done) rc = commit_pending(l, err);
    return rc;
}

/* One open-loop run (see openloop.h). */
int idb_openloop_run(const idb_openloop_plan *plan, const idb_openloop_ops *ops,
                     idb_openloop_out *out, idb_err *err)
{
    loop l = { .plan = plan, .ops = ops };
    l.at = malloc((size_t)plan->n * sizeof *l.at);
    l.lat = malloc((size_t)plan->n * sizeof *l.lat);
    if (!l.at || !l.lat) {
        free(l.at);
        free(l.lat);
        return idb_fail(err, IDB_ENOMEM, "out of memory for %lld arrivals", (long long)plan->n);
    }
    idb_arrivals_make(plan->seed, plan->rate, plan->arrivals, plan->n, l.at);
    int64_t start = idb_mono_ns();
    for (int64_t i = 0; i < plan->n; i++) l.at[i] += start;
    int rc = drive(&l, err);
    if (!rc) {
        out->achieved_per_s = (double)plan->n / ((double)(l.last_commit_ns - start) / NS_PER_S);
        out->p50_ns = idb_percentile(l.lat, plan->n, 0.50);
        out->p99_ns = idb_percentile(l.lat, plan->n, 0.99);
        out->p999_ns = idb_percentile(l.lat, plan->n, 0.999);
        out->max_ns = idb_percentile(l.lat, plan->n, 1.0);
    }
    free(l.at);
    free(l.lat);
    return rc;
}
