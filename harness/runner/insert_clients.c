/* insert_clients.c — the timed part with C writers per shard (insert --clients C > 1; see
 * insert_int.h: idb_run_clients).
 *
 * The orders come pre-generated (insert.c: the same draws and IDs as one writer makes, so
 * the set of rows is the same); here each shard's rows are cut into transactions of
 * `batch` rows in stream order, and C threads per shard, each with its own store handle
 * (store.h version 2: client 0 is the shard's open() handle, the others open_client's),
 * take the next transaction from the shard's queue until none is left:
 *
 *   begin()   timed as the client's wait for the store's write lock (wait_ns)
 *   insert()  each row timed (lat[] at the row's place in the stream)
 *   commit()  timed (commit_lat[])
 *
 * A transaction that fails with IDB_EBUSY (a lost lock, a deadlock, a serialization
 * failure) is rolled back and done again in a new transaction, at most RETRY_MAX times:
 * failed_txns counts the failures, retries the new attempts. Any other error stops every
 * client and ends the run.
 *
 * Figures: wall = from the threads' start to the last one's end; inserts_per_s = ids /
 * wall; wait_share = every client's wait / every client's time (its thread's start to end);
 * wait_ns_per_order = every client's wait / ids; both unknown (-1) on a store without
 * begin() (a store that measures its waits itself replaces them: waits.h, with the clients'
 * time summed here). The committed transactions' rows are returned in commit order (for locality).
 *
 * Open loop (--rate R): the one writer's schedule (openloop.h, seeded --seed ^
 * IDB_OPEN_SEED_SALT: the same arrivals), order i of the stream arriving at at[i] into its
 * shard's queue. A client takes, under the queue's mutex, the orders of its shard that have
 * arrived, in stream order, up to `batch` of them, and does them as one transaction; when
 * none has arrived it sleeps until the next arrival (no spin, unlike one writer: C
 * spinning clients would take the 2 cores from the ones that work; timer slack 1 ns), and
 * that time is idle, not the client's. An order's latency runs from its arrival to the
 * end of its transaction's commit (the attempt that committed). Then: achieved_per_s =
 * ids / (the end of the last commit - the first arrival); inserts_per_s = ids / the
 * clients' mean busy time (their time without the idle waits, as one writer's is its
 * inserts and commits); wait_share over that busy time, as the closed loop measures it;
 * seconds adds the mean busy time.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "insert_int.h"
#include "metrics.h"
#include "openloop.h"

#define RETRY_MAX 16                 /* new transactions for one batch after failures */

typedef struct crun crun;

typedef struct client {
    crun *cr;
    int k;                           /* its shard */
    void *h;                         /* its store handle */
    int64_t wait_ns, busy_ns, failed, retries;
    int64_t idle_ns;                 /* open loop: waiting for an arrival */
    int64_t end_ns;                  /* the end of its last transaction's commit */
    pthread_t tid;
    int started;
} client;

struct crun {
    run *r;
    const idb_row *rows;             /* every order, in stream order */
    int64_t **srows;                 /* per shard: its rows' places in the stream */
    int64_t *nrows;                  /* per shard: how many */
    _Atomic int64_t *next;           /* per shard: the next batch to take */
    int64_t *order;                  /* rows in commit order */
    _Atomic int64_t norder, ncommits;
    atomic_int stop;
    int64_t *at;                     /* open loop: each row's arrival (ns; NULL: closed) */
    int64_t *olat;                   /* open loop: each row's order latency */
    int64_t start;                   /* open loop: the first arrival */
    _Atomic int64_t last_end;        /* open loop: the end of the last commit */
    pthread_mutex_t qmu;             /* open loop: guards next[] */
    pthread_mutex_t mu;              /* guards rc and err */
    int rc;
    idb_err err;
};

/* One transaction of rows srows[k][lo..hi) on c's handle: begin (timed as wait), the
 * inserts, the commit. Returns 0 or the store's code (IDB_EBUSY: the caller retries). */
static int one_txn(client *c, int64_t lo, int64_t hi, idb_err *err)
{
    crun *cr = c->cr;
    run *r = cr->r;
    const idb_store *st = r->cfg->store;
    int64_t t = idb_mono_ns();
    if (st->begin) {
        int rc = st->begin(c->h, err);
        int64_t t1 = idb_mono_ns();
        c->wait_ns += t1 - t;
        t = t1;
        if (rc) return rc;
    }
    for (int64_t i = lo; i < hi; i++) {
        int64_t at = cr->srows[c->k][i];
        int rc = st->insert(c->h, &cr->rows[at], err);
        int64_t t1 = idb_mono_ns();
        r->lat[at] = t1 - t;         /* a retry overwrites: the attempt that committed */
        t = t1;
        if (rc) return rc;
    }
    int rc = st->commit(c->h, err);
    c->end_ns = idb_mono_ns();
    if (!rc) r->commit_lat[atomic_fetch_add(&cr->ncommits, 1)] = c->end_ns - t;
    return rc;
}

/* Rows srows[k][lo..hi) in one committed transaction, retried after IDB_EBUSY. */
static int one_batch(client *c, int64_t lo, int64_t hi, idb_err *err)
{
    const idb_store *st = c->cr->r->cfg->store;
    for (int attempt = 0;; attempt++) {
        int rc = one_txn(c, lo, hi, err);
        if (rc != IDB_EBUSY) return rc;
        c->failed++;
        if (st->rollback) st->rollback(c->h);
        if (attempt == RETRY_MAX || !st->rollback)
            return idb_fail(err, IDB_EIO, "a transaction failed %d times (the last: %s)",
                            attempt + 1, err->msg);
        c->retries++;
    }
}

/* Open loop: the rows of c's shard that have arrived, from the queue's next one, up to
 * batch of them, into [*lo, *hi), waiting (idle) for an arrival when none has. Returns 0
 * when the queue is empty (or a client failed), else 1. */
static int take_arrived(client *c, int64_t batch, int64_t n, int64_t *lo, int64_t *hi)
{
    crun *cr = c->cr;
    const int64_t *rows = cr->srows[c->k];
    while (!atomic_load(&cr->stop)) {
        pthread_mutex_lock(&cr->qmu);
        int64_t i = atomic_load(&cr->next[c->k]), now = idb_mono_ns();
        if (i >= n) {
            pthread_mutex_unlock(&cr->qmu);
            return 0;
        }
        int64_t first = cr->at[rows[i]], j = i;
        while (j < n && j - i < batch && cr->at[rows[j]] <= now) j++;
        atomic_store(&cr->next[c->k], j);
        pthread_mutex_unlock(&cr->qmu);
        if (j > i) {
            *lo = i;
            *hi = j;
            return 1;
        }
        idb_sleep_until(first);      /* none has arrived: wait for the next, idle; no spin:
                                      * C spinning clients would take the cores from the
                                      * ones that work (timer slack 1 ns: client_main) */
        c->idle_ns += idb_mono_ns() - now;
    }
    return 0;
}

/* The next rows of c's shard into [*lo, *hi): the next batch (closed loop), or what has
 * arrived (open loop). Returns 0 when none is left, else 1. */
static int take(client *c, int64_t batch, int64_t n, int64_t *lo, int64_t *hi)
{
    if (c->cr->at) return take_arrived(c, batch, n, lo, hi);
    *lo = atomic_fetch_add(&c->cr->next[c->k], 1) * batch;
    *hi = *lo + batch < n ? *lo + batch : n;
    return *lo < n;
}

/* Open loop: the latencies of the committed rows [lo, hi) of c's shard, from each one's
 * arrival to the end of c's commit, and the run's last commit end. */
static void order_latencies(client *c, int64_t lo, int64_t hi)
{
    crun *cr = c->cr;
    for (int64_t i = lo; i < hi; i++) {
        int64_t row = cr->srows[c->k][i];
        cr->olat[row] = c->end_ns - cr->at[row];
    }
    int64_t last = atomic_load(&cr->last_end);
    while (last < c->end_ns && !atomic_compare_exchange_weak(&cr->last_end, &last, c->end_ns)) {}
}

/* A client's thread: transactions from its shard's queue until none is left, or another
 * client failed. */
static void *client_main(void *arg)
{
    client *c = arg;
    crun *cr = c->cr;
    int64_t batch = cr->r->cfg->batch, n = cr->nrows[c->k], lo, hi;
    if (cr->at) prctl(PR_SET_TIMERSLACK, 1UL);   /* idb_sleep_until's wake-ups: not 50 us late */
    int64_t t0 = idb_mono_ns();
    idb_err err = { 0 };
    int rc = 0;
    while (!rc && !atomic_load(&cr->stop) && take(c, batch, n, &lo, &hi)) {
        rc = one_batch(c, lo, hi, &err);
        if (!rc) {                   /* the rows' place in commit order */
            int64_t at = atomic_fetch_add(&cr->norder, hi - lo);
            for (int64_t i = lo; i < hi; i++) cr->order[at + i - lo] = cr->srows[c->k][i];
            if (cr->at) order_latencies(c, lo, hi);
        }
    }
    c->busy_ns = idb_mono_ns() - t0 - c->idle_ns;
    if (rc) {
        atomic_store(&cr->stop, 1);
        pthread_mutex_lock(&cr->mu);
        if (!cr->rc) {
            cr->rc = rc;
            cr->err = err;
        }
        pthread_mutex_unlock(&cr->mu);
    }
    return NULL;
}

int idb_shard_rows(const run *r, const int *row_shard, int64_t **srows, int64_t *nrows,
                   idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    for (int64_t i = 0; i < cfg->ids; i++) nrows[row_shard[i]]++;
    for (int k = 0; k < cfg->shards; k++)
        if (!(srows[k] = malloc((size_t)(nrows[k] + 1) * sizeof **srows)))
            return idb_fail(err, IDB_ENOMEM, "out of memory");
    int64_t *fill = calloc((size_t)cfg->shards, sizeof *fill);
    if (!fill) return idb_fail(err, IDB_ENOMEM, "out of memory");
    for (int64_t i = 0; i < cfg->ids; i++) srows[row_shard[i]][fill[row_shard[i]]++] = i;
    free(fill);
    return 0;
}

/* Open the clients' handles: client 0 of shard k is its open() handle, the others
 * open_client's. Returns 0 or the store's code. */
static int open_clients(crun *cr, client *cl, int n, idb_err *err)
{
    run *r = cr->r;
    int C = r->cfg->clients;
    for (int i = 0; i < n; i++) {
        cl[i] = (client){ .cr = cr, .k = i / C };
        int c = i % C;
        if (c == 0) cl[i].h = r->shards[cl[i].k].store;
        else {
            int rc = r->cfg->store->open_client(r->shards[cl[i].k].store, c, &cl[i].h, err);
            if (rc) return rc;
        }
    }
    return 0;
}

/* Start every client, wait for all; the wall time into *wall_ns. */
static int run_clients(crun *cr, client *cl, int n, int64_t *wall_ns, idb_err *err)
{
    int rc = 0;
    int64_t t0 = idb_mono_ns();
    cr->start = t0;
    for (int64_t i = 0; cr->at && i < cr->r->cfg->ids; i++) cr->at[i] += t0;
    for (int i = 0; i < n && !rc; i++) {
        if (pthread_create(&cl[i].tid, NULL, client_main, &cl[i]) != 0) {
            atomic_store(&cr->stop, 1);
            rc = idb_fail(err, IDB_EIO, "cannot start client thread %d", i);
        } else {
            cl[i].started = 1;
        }
    }
    for (int i = 0; i < n; i++)
        if (cl[i].started) pthread_join(cl[i].tid, NULL);
    *wall_ns = idb_mono_ns() - t0;
    if (!rc && cr->rc) {
        *err = cr->err;
        rc = cr->rc;
    }
    return rc;
}

/* The figures of the clients cl[0..n) into res (see the header). */
static void client_figures(const crun *cr, const client *cl, int n, int64_t wall_ns,
                           idb_insert_result *res)
{
    const idb_insert_config *cfg = cr->r->cfg;
    int64_t wait = 0, busy = 0;
    res->failed_txns = res->retries = 0;
    for (int i = 0; i < n; i++) {
        wait += cl[i].wait_ns;
        busy += cl[i].busy_ns;
        res->failed_txns += cl[i].failed;
        res->retries += cl[i].retries;
    }
    int known = cfg->store->begin != NULL;
    res->wait_share = known && busy > 0 ? (double)wait / (double)busy : -1;
    res->wait_ns_per_order = known ? (double)wait / (double)cfg->ids : -1;
    double took = cr->at ? (double)busy / n : (double)wall_ns;   /* open: the mean busy time */
    res->inserts_per_s = (double)cfg->ids / (took / 1e9);
    res->seconds += took / 1e9;
    cr->r->client_ns = (double)busy;
    if (!cr->at) return;
    res->rate_per_s = cfg->rate;
    res->achieved_per_s = (double)cfg->ids / ((double)(cr->last_end - cr->start) / 1e9);
    res->order_lat_p50_ns = idb_percentile(cr->olat, cfg->ids, 0.50);
    res->order_lat_p99_ns = idb_percentile(cr->olat, cfg->ids, 0.99);
    res->order_lat_p999_ns = idb_percentile(cr->olat, cfg->ids, 0.999);
    res->order_lat_max_ns = idb_percentile(cr->olat, cfg->ids, 1.0);
}

/* Open loop (cfg->rate > 0): the arrivals (offsets until run_clients adds its start), the
 * order latencies, and room for a commit per order. 0 or IDB_ENOMEM. */
static int open_plan(crun *cr, idb_err *err)
{
    const idb_insert_config *cfg = cr->r->cfg;
    if (!(cfg->rate > 0)) return 0;
    size_t n = (size_t)cfg->ids, most = n + (size_t)cfg->shards;
    cr->at = malloc(n * sizeof *cr->at);
    cr->olat = malloc(n * sizeof *cr->olat);
    int64_t *cl = realloc(cr->r->commit_lat, most * sizeof *cl);
    if (cl) cr->r->commit_lat = cl;
    if (!cr->at || !cr->olat || !cl)
        return idb_fail(err, IDB_ENOMEM, "out of memory for %lld arrivals", cfg->ids);
    idb_arrivals_make(cfg->seed ^ IDB_OPEN_SEED_SALT, cfg->rate, cfg->arrivals, cfg->ids,
                      cr->at);
    return 0;
}

/* The timed part with cfg->clients writers per shard (insert_int.h). */
int idb_run_clients(run *r, const idb_row *rows, const int *row_shard, int64_t *order,
                    idb_insert_result *res, idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    int n = cfg->shards * cfg->clients;
    crun cr = { .r = r, .rows = rows, .order = order };
    pthread_mutex_init(&cr.mu, NULL);
    pthread_mutex_init(&cr.qmu, NULL);
    cr.srows = calloc((size_t)cfg->shards, sizeof *cr.srows);
    cr.nrows = calloc((size_t)cfg->shards, sizeof *cr.nrows);
    cr.next = calloc((size_t)cfg->shards, sizeof *cr.next);
    client *cl = calloc((size_t)n, sizeof *cl);
    int rc = cr.srows && cr.nrows && cr.next && cl ? 0
           : idb_fail(err, IDB_ENOMEM, "out of memory");
    if (!rc) rc = idb_shard_rows(r, row_shard, cr.srows, cr.nrows, err);
    if (!rc) rc = open_plan(&cr, err);
    if (!rc) rc = open_clients(&cr, cl, n, err);
    int64_t wall = 0;
    if (!rc) rc = run_clients(&cr, cl, n, &wall, err);
    if (!rc) {
        client_figures(&cr, cl, n, wall, res);
        r->nlat = cfg->ids;
        r->ncommits = atomic_load(&cr.ncommits);
    }
    for (int i = 0; cl && i < n; i++)          /* client 0 stays: the shard's handle */
        if (i % cfg->clients && cl[i].h) cfg->store->close(cl[i].h);
    for (int k = 0; cr.srows && k < cfg->shards; k++) free(cr.srows[k]);
    free(cr.srows);
    free(cr.nrows);
    free((void *)cr.next);
    free(cl);
    free(cr.at);
    free(cr.olat);
    pthread_mutex_destroy(&cr.mu);
    pthread_mutex_destroy(&cr.qmu);
    return rc;
}
