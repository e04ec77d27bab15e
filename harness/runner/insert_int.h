/* insert_int.h — inside harness/runner only: what insert.c and insert_check.c share. */
#ifndef IDB_INSERT_INT_H
#define IDB_INSERT_INT_H

#include "ctrsrv.h"
#include "harness_kv.h"
#include "insert.h"
#include "zipf.h"
#include "device.h"
#include "series.h"
#include "split.h"

/* The open loop's arrival schedule is seeded with --seed ^ this (openloop.h), with one writer
 * and with --clients C alike, so both see the same arrivals. */
#define IDB_OPEN_SEED_SALT 0xa221a1ULL

typedef struct shard {
    void *inst;                        /* strategy instance */
    void *store;                       /* store handle */
    uint8_t *keys;                     /* keys in insertion order, width bytes each
                                        * (locality, afterwards) */
    int64_t nkeys, cap;                /* keys kept; room (grows: see keep_key) */
    int64_t breaks;                    /* keys not above the shard's previous key */
    idb_clock clock;                   /* the instance's clock on a model store (a skipping
                                        * one: idb_run_shard_clock) */
} shard;

/* The clock shard sh's instance is made with: the real one, or on a model store (which
 * measures no time, so a generator's wait at its rate cap measures nothing) sh's own
 * skipping clock (clock.h): the same IDs, tick by tick, without the wait. */
idb_clock *idb_run_shard_clock(const idb_store *st, shard *sh);

typedef struct run {
    const idb_insert_config *cfg;
    shard *shards;
    idb_zipf zipf;
    int *shop_shard;                   /* shop -> shard */
    uint32_t *shop_orders;             /* per-shop display counter */
    int64_t *lat, *commit_lat;         /* lat: NULL on a model store (no time measured) */
    int64_t ncommits;
    int width;                         /* key width in the stores (key_bytes, store.h) */
    idb_device dev;                    /* the device model (device.h) */
    idb_series *series;                /* --series, or NULL */
    idb_ctrsrv cs;                     /* the run's counter server (none: cs.srv NULL) */
    int64_t nlat;                      /* statements timed in lat[] (failed orders have none) */
    double client_ns;                  /* the writers' time summed (insert_clients.c), for
                                        * the store-measured waits (waits.h); 0: one writer */
    int fault;                         /* kill-counter, failover-counter: 0 to come,
                                        * 1 killed, 2 restarted / a replica promoted;
                                        * failover-lagged: 3 the replicas lagging */
    int64_t kill_ns;                   /* when it was killed (3: when the lag began) */
    int64_t step_at;                   /* the order by which states 1 and 3 end (see
                                        * insert_fault.c): halfway through the rest */
    int64_t served_ns;                 /* the first order served after fault 2, or 0 */
    int64_t down_ns;                   /* from the kill to the restart's end */
    int64_t fault_ns;                  /* time spent killing and restarting: not timed */
    int64_t failed, dups;              /* failed_orders, duplicate_rows */
    shard refused;                     /* keys a shard's store refused (dups of them) */
    /* A store that splits at the quantiles of the run's own keys (store.h version 3): */
    int parts;                         /* its parts (0: none, nothing made ahead) */
    idb_row *ahead;                    /* every order, its ID made ahead (ids rows) */
    int *ahead_shard;                  /* each one's shard */
    int64_t ahead_gen_ns;              /* the time making those IDs took */
    idb_id points[IDB_SPLIT_PARTS_MAX];   /* the parts - 1 split points */
    struct idb_readrec_writer *rec;    /* cfg->record: the insert record (readrec.h) */
    struct idb_wlease *wl;             /* leased workers' generators (wlease.h), or NULL */
    int special_ids;                   /* idb_run_special_ids(): set once, before the loop */
} run;

/* Shard k's strategy options into kv: the user's -o options, plus what the harness fills
 * in (harness_kv.h): shard = k, shards, worker = k (one worker per shard), dir, and the
 * counter server's address when cs (may be NULL) started one. Returns 0 or IDB_EINPUT
 * (insert_check.c). */
int idb_insert_shard_kv(const idb_insert_config *cfg, const idb_ctrsrv *cs, int k,
                        idb_harness_kv *kv, idb_err *err);

/* Order i's ID when the run has a counter-server fault, leased workers or keys the store
 * assigns (insert_fault.c): the fault ticked first; while a fault is asked an unavailable
 * counter server is a failed order (id->len 0, counted in r->failed), not the end of the
 * run. 0 or the strategy's error. */
int idb_run_order_id_special(run *r, int64_t i, int k, idb_id *id, idb_err *err);

/* The order of cfg's counter-server fault (kill_counter_at, failover_counter_at or
 * failover_lag_at; 0: none) and its name as --fault spells it (insert_fault.c). */
int64_t idb_run_fault_at(const idb_insert_config *cfg);
const char *idb_run_fault_name(const idb_insert_config *cfg);

/* Whether r's orders take their IDs through idb_run_order_id_special: a fault (any row of
 * insert_fault.c's), leased workers (r->wl) or keys the store assigns (insert_fault.c). */
int idb_run_special_ids(const run *r);

/* After the timed part of a run with a fault: IDB_EINPUT when it did not complete (the
 * orders ran out before the restart or promotion, or none was served after it), so no run
 * reports a fault that did not happen; then, when Sentinel made the failover (sentinel=1),
 * one line on stderr, "idbench: sentinel: the primary is ...", from Sentinel's and the new
 * primary's own state (idb_ctrsrv_sentinel_report), so that who promoted is seen. */
int idb_run_fault_end(run *r, idb_err *err);

/* Order i's ID (shard k's instance) into *id: the strategy's next() inline on the insert
 * loop's path, idb_run_order_id_special for the runs above. */
static inline int idb_run_order_id(run *r, int64_t i, int k, idb_id *id, idb_err *err)
{
    if (r->special_ids) return idb_run_order_id_special(r, i, k, id, err);
    return r->cfg->strategy->next(r->shards[k].inst, id, err);
}

/* The store options of cfg into o and the keys' width into *width (store.h:
 * idb_store_opts_parse). Returns 0 or IDB_EINPUT (insert_check.c). */
int idb_insert_check_store(const idb_insert_config *cfg, idb_opts *o, int *width,
                           idb_err *err);

/* A model store (pagesim) measures no time: its time figures are left unknown (-1)
 * (insert_collect.c). */
void idb_run_blank_model_times(idb_insert_result *res);

/* After the timed part, stores still open: their stats summed over shards into res->st,
 * the server figures per ID, the miss-ratio curve. Returns 0 or a store's IDB_E* code
 * (insert_collect.c). */
int idb_run_collect_stores(run *r, idb_insert_result *res, idb_err *err);

/* After the stores are closed: the latency percentiles (r->lat freed), locality, then the
 * repeated IDs (every shard's keys sorted, then freed). 0 or IDB_ENOMEM (insert_collect.c). */
int idb_run_collect_keys(run *r, idb_insert_result *res, idb_err *err);

/* The timed part with cfg->clients > 1 writers per shard (insert_clients.c), on the
 * pre-generated rows[0..ids) (row_shard: each one's shard) and the opened shards (their
 * handles are client 0): every row committed once, order[] filled with the rows' places
 * in commit order, r->lat and r->commit_lat with the times; in res: seconds (added),
 * inserts_per_s, wait_share, wait_ns_per_order, failed_txns, retries; with cfg->rate
 * (the open loop: the one writer's arrivals, shared by the clients) also rate_per_s,
 * achieved_per_s and order_lat_*. Returns 0 or the first client's error (every client
 * stopped), IDB_ENOMEM. */
int idb_run_clients(run *r, const idb_row *rows, const int *row_shard, int64_t *order,
                    idb_insert_result *res, idb_err *err);

/* Each shard's rows (insert_clients.c): srows[k] (allocated here, n + 1 entries; the
 * caller frees each) gets shard k's rows' places in the stream, in stream order, nrows[k]
 * (zeroed by the caller) their count; srows and nrows have cfg->shards entries. Returns 0
 * or IDB_ENOMEM. */
int idb_shard_rows(const run *r, const int *row_shard, int64_t **srows, int64_t *nrows,
                   idb_err *err);

/* idb_run_clients on a model store (insert_interleave.c): no threads and no time; the rows
 * of each round of C transactions reach the tree interleaved, deterministically, one per
 * client in turn; order[] gets the rows' places in that arrival order; failed_txns and
 * retries 0. Returns 0 or the store's code. */
int idb_run_interleaved(run *r, const idb_row *rows, const int *row_shard, int64_t *order,
                        idb_insert_result *res, idb_err *err);

/* The closed loop's timed part on r's opened shards (insert.c): every batch's generation,
 * inserts and commits; seconds, gen_ns_per_id and inserts_per_s into res. */
int idb_run_timed_loop(run *r, idb_insert_result *res, idb_err *err);

/* The CPU time of every shard's private servers so far, -1 when one cannot tell; the wait
 * columns of res from the stores' waits (insert_collect.c). */
int64_t idb_run_server_cpu_ns(const run *r);
void idb_run_wait_columns(const run *r, idb_insert_result *res);

/* Bytes passed to write(2) so far, by the process and its reaped children and by this
 * thread, the insert record's own bytes taken out (-1: /proc cannot tell). */
typedef struct idb_wmark { int64_t proc, thread; } idb_wmark;

/* *m now (the record's buffered entries pushed first). 0, or -1 when the record's write
 * failed (insert_collect.c). */
int idb_run_wmark(run *r, idb_wmark *m);

/* write_bytes_per_id and client_write_bytes_per_id of res from the marks a to b over ids
 * orders (-1 when unknown, or the rows went to a user's server) (insert_collect.c). */
void idb_run_write_figures(idb_insert_result *res, const idb_wmark *a, const idb_wmark *b,
                           long long ids);

/* The storage columns of res from res->st (the table after the phase: store.h's
 * table_bytes, index_bytes, secondary_bytes, id_clustered) over rows, the strategy's own
 * width id_bytes, and index_growth_pages: leaf + branch pages now less before's (NULL: an
 * empty table) (insert_collect.c). */
void idb_run_storage(idb_insert_result *res, int id_bytes, int64_t rows,
                     const idb_insert_result *before);

/* The second phase of --then (insert_then.c), the stores still open after r's run and its
 * statistics (first: the run's figures): cfg->then_ids orders with IDs from
 * cfg->then_strategy, each shard's instance made here, timed as the closed loop times, then
 * the stores' statistics again, into then as the phase's own (counts after - before; the
 * shape, storage and index growth of the table after it), its latencies, where its keys
 * landed among every key of their shard, and its IDs' repeats over both phases (the
 * caller takes the run's out). Its rows go to the run's insert record too. Returns 0 or an
 * IDB_E* code (a key the store refuses, a repeat of the run's, ends it as any run). */
int idb_run_then(run *r, const idb_insert_result *first, idb_insert_result *then,
                 idb_err *err);

#endif
