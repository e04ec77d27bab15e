/* insert.h — the insert runner: orders with IDs from a strategy into a store, measured.
 *
 * Each order belongs to a shop (Zipf popularity, seeded); each shop lives on one of
 * `shards` shards; each shard is its own store (in DIR/shard-K/) with its own strategy
 * instance where the strategy is per shard (see strategy.h: options shard/shards/worker).
 * Rows are committed in transactions of `batch`. The runner times everything: ID
 * generation apart from inserts, each insert, each commit. With a rate (openloop.h) orders
 * arrive on a seeded schedule instead and each order's latency is measured too. Locality figures
 * (tail_insert_frac, insert_pos_p50) are computed afterwards, outside the timed part.
 */
#ifndef IDB_INSERT_H
#define IDB_INSERT_H

#include <stdint.h>

#include "locality.h"
#include "store.h"
#include "strategy.h"

#define IDB_INSERT_MAX_KV 32
#define IDB_CURVE_MAX 64                  /* points of one miss-ratio curve (--curve) */

typedef struct idb_insert_config {
    const idb_strategy *strategy;
    const idb_store *store;
    long long ids;                    /* orders to insert, >= 1 */
    int batch;                        /* rows per transaction, >= 1 */
    int shards;                       /* >= 1 */
    /* Writers per shard (--clients; insert_clients.c), each with its own store handle and
     * transactions of `batch` rows: 0 or 1 is one writer, the runner as it always was;
     * above 1 needs a store that takes that many (store.h: idb_store_clients), and no
     * --series, --curve, --fault or --commit-ms (--rate: the C writers share the offered
     * rate, taking the orders that have arrived). */
    int clients;
    int shops;                        /* >= 1 */
    double shop_skew;                 /* Zipf exponent of shop popularity (default 1.0) */
    const char *dir;                  /* directory for the stores: a writable one, or a
                                       * missing one whose parent is (the run makes it) */
    const char *strategy_kv[IDB_INSERT_MAX_KV];   /* -o KEY=VALUE */
    int n_strategy_kv;
    const char *store_kv[IDB_INSERT_MAX_KV];      /* -s KEY=VALUE */
    int n_store_kv;
    uint64_t seed;
    const int64_t *curve_cache_pages; /* optional: cache sizes for the miss-ratio curve */
    int n_curve;
    /* Open loop (openloop.h): orders arrive at `rate` per second (0: closed loop, each
     * order as soon as the last one is done), `arrivals` apart (enum idb_arrivals), and a
     * commit also comes `commit_ms` after the first uncommitted order arrived (0: none). */
    double rate;
    int arrivals;
    double commit_ms;
    /* Throughput over time (series.h): a row per `window` inserts to the CSV file `series`
     * (both or neither; closed loop only; window a multiple of batch). A store that declares
     * the option `window` (store.h: IDB_STORE_WINDOW; spider) takes `window` alone too, for
     * its own windows of rows. */
    long long window;
    const char *series;
    /* The fault --fault kill-counter@N[:RESTART_MS] (0: none): the run's counter server
     * (ctrsrv.h) is SIGKILLed before order N+1 and started again at the first order
     * restart_ms later; meanwhile orders that get no ID are counted in failed_orders. */
    int64_t kill_counter_at;
    int kill_restart_ms;
    /* The fault --fault pause-worker@N:MS (0: none; needs worker_source, wlease.h): the
     * generator of order N's shard is SIGSTOPped for MS ms (above lease_ms; the run waits)
     * while a replacement takes its worker, then resumed; both then make that shard's IDs
     * in turn, the orders left spread over at least a second. */
    int64_t pause_worker_at;
    int pause_worker_ms;
    /* The fault --fault join-node@N (0: none): the store (one that declares the option
     * IDB_STORE_JOIN_AT: galera) gets join_at=N and adds a node to its cluster after the
     * commit that brings the orders to N or more. */
    int64_t join_node_at;
    /* The fault --fault failover-counter@N[:DETECT_MS] (0: none): the run's counter server
     * has replicas (replicas=R); its primary is SIGKILLed before order N+1 and at the first
     * order detect_ms later the most advanced replica is promoted (ctrsrv.h); the clients
     * find it by themselves; orders that get no ID meanwhile are failed_orders. */
    int64_t failover_counter_at;
    int failover_detect_ms;
    /* The fault --fault failover-lagged@N[:LAG_MS] (0: none): failover-counter with lag:
     * before order N+1 the replicas stop receiving (idb_ctrsrv_lag), at the first order
     * lag_ms later the primary is SIGKILLed, and 200 ms (a detector's delay) later the most
     * advanced replica is promoted, as failover-counter does. */
    int64_t failover_lag_at;
    int failover_lag_ms;
    /* Optional: called after each batch of the closed loop, outside the timed part, with the
     * orders done so far and the run's total (cmd_insert's progress line on a terminal). */
    void (*progress)(void *ctx, int64_t done, int64_t total);
    void *progress_ctx;
    /* 1: leave the insert record DIR/insert-STORE.rec for `idbench read` (readrec.h): every
     * stored row in creation order, written after the measured part (not in its figures);
     * costs 28 + key_bytes bytes of memory per row during the run. */
    int record;
    /* --then STRATEGY:N (insert_then.c): after the run, then_ids more orders with IDs from
     * then_strategy (its default options plus the harness's placement, harness_kv.h) into
     * the same stores, measured as a phase of their own (idb_insert_run_then). NULL: none.
     * Its IDs must fit the run's key width (key_bytes); one writer, the closed loop. */
    const idb_strategy *then_strategy;
    long long then_ids;
} idb_insert_config;

typedef struct idb_insert_result {
    int key_bytes;
    double seconds;                   /* wall time timed: generation + inserts + commits */
    double gen_ns_per_id;
    double inserts_per_s;             /* ids / (insert + commit time) */
    int64_t lat_p50_ns, lat_p99_ns, lat_p999_ns, lat_max_ns;
    int64_t commit_p99_ns;
    /* Open loop only (-1 in the closed loop): from each order's scheduled arrival to the end
     * of the commit that made it durable; the offered rate. */
    int64_t order_lat_p50_ns, order_lat_p99_ns, order_lat_p999_ns, order_lat_max_ns;
    double rate_per_s;
    double achieved_per_s;            /* ids / wall time from the first order to the last
                                       * commit (open loop: from the first arrival) */
    idb_store_stats st;               /* summed over shards (depth, fill: see insert.c) */
    /* Server stores (store.h: has_server): per ID from st's sums; -1 when unknown. */
    double wal_bytes_per_id, fpi_per_id, splits_per_id;
    /* Bytes passed to write(2)-family calls during the run, per ID: by idbench and every
     * process it started and reaped by the run's end (its private servers: /proc/self/io
     * wchar), -1 when a store wrote through a server idbench did not start (dsn=) or
     * /proc cannot be read; and by the runner's thread alone (/proc/thread-self/io). */
    double write_bytes_per_id, client_write_bytes_per_id;
    double tail_insert_frac;
    double insert_pos_p50;
    int64_t order_breaks;             /* IDs not above the previous ID of their shard */
    int64_t pos_hist[IDB_LOC_BUCKETS];   /* where new keys land: counts per position bin */
    idb_curve_point curve[IDB_CURVE_MAX];   /* when n_curve > 0 */
    idb_opts store_opts;              /* the store's options as used (echoed in the output) */
    /* The device model (device.h; store options device, read_us, write_us), -1 when off
     * or a count it needs is unknown: the modelled device seconds of the run's page reads
     * and writes, and ids / (measured insert + commit time + those seconds). */
    double modelled_device_s, modelled_inserts_per_s;
    /* With a counter server (backend=postgres|redis): orders that got no ID (only with the
     * kill-counter fault; otherwise an unavailable server ends the run), and IDs a shard's
     * primary key refused because they were handed out to it before (counted, not fatal). */
    int64_t failed_orders;
    int64_t duplicate_rows;
    /* Every store: the run's IDs that repeat an ID handed out before in the run, whichever
     * shard got either (counted by the harness from all the IDs, after the timed part). */
    int64_t duplicate_ids;
    /* Many writers (insert_clients.c): the writers per shard; the share of the clients' time
     * spent waiting for the store's write lock (0-1) and that wait per order, both -1 when
     * unknown (one writer, or a store with no begin()); transactions that failed with
     * IDB_EBUSY and the new transactions that retried them (0 with one writer, where a
     * failure ends the run). */
    int64_t clients;
    double wait_share, wait_ns_per_order;
    int64_t failed_txns, retries;
    /* Waits a store measured itself (store.h: idb_store_waits; postgres, mariadb) replace
     * wait_share and wait_ns_per_order (runner/waits.h, with every writer's time, one writer
     * too) and give each class's share of the writers' time (wait_share_<what>) and the
     * share not waiting (wait_share_none); -1 when unknown or not a class of the store.
     * With begin() waits (sqlite, lmdb) the classes stay -1 and wait_share_none is
     * 1 - wait_share. */
    double wait_share_by[IDB_WAIT_CLASSES];
    double wait_share_none;
    /* The CPU time (user + system, /proc, 10 ms ticks) the store's private servers used
     * from the timed part's start to its end, per order; -1 for embedded stores and
     * servers idbench did not start (store.h: server_cpu_ns). */
    double server_cpu_ns_per_order;
    /* --fault kill-counter@N:MS: the time from the kill to the end of the restart, measured
     * (at least MS, as the fault asks); -1 without the fault or before a restart. */
    double counter_down_ms;
    /* --fault pause-worker@N:MS: the measured pause (SIGSTOP to SIGCONT, ms; at least MS,
     * longer when the replacement took longer to lease the worker); -1 without it. */
    double worker_pause_ms;
    /* --fault failover-counter: from the kill of the primary to the first order served
     * after the promotion, measured; -1 without the fault or with no order served after. */
    double failover_ms;
    /* With a counter backend (postgres, redis): the numbers between the run's lowest and
     * highest ID that no order got (IDs read as unsigned integers); -1 without one, or when
     * an ID does not fit 64 bits. */
    int64_t lost_ids;
    /* A store over backend servers (store.h: backends; spider), from its stats; unknown
     * (-1, "") for every other store: the backends, each one's share of the rows
     * ("0.2500;0.2500;..." in backend order) and CPU seconds ("1.23;0.45;..."), the
     * largest share, the largest within any --window of rows, the head's CPU seconds, and
     * the backends' pages written and cache misses, summed and the largest. */
    int64_t backends;
    char backend_shares[IDB_STORE_BACKENDS_MAX * 8];
    char backend_cpu_s[IDB_STORE_BACKENDS_MAX * 12];
    double hot_share, hot_share_window_max, head_cpu_s;
    int64_t backend_pages_written_sum, backend_pages_written_max;
    int64_t backend_cache_misses_sum, backend_cache_misses_max;
    /* The phase (--then): 0 the run itself ("main"), 1 the second phase ("then"), whose
     * counts are its own (after - before) and whose shape (pages, fill, bytes) is the
     * table's after it; index_growth_pages: leaf + branch pages the phase added (the main
     * phase: from an empty table), -1 unknown. */
    int phase;
    int64_t index_growth_pages;
    int64_t index_growth_bytes;       /* index_bytes the same way (servers: no page counts) */
    double leaf_fill_touched;         /* fill of the leaves the phase wrote (store.h:
                                       * touched_fill; pagesim), -1 unknown */
    /* Storage per row (docs/results-format.md), from the table after the phase, over the
     * rows it holds; -1 unknown: the strategy's own ID width (key_bytes is the stored one),
     * the table's bytes (the ID's B-tree where the rows are kept in it: id_clustered), the
     * ID's index apart from the table (0 when clustered), every other index, their sum. */
    int64_t id_bytes, rows_held;
    double bytes_per_row_table, bytes_per_row_id_index, bytes_per_row_secondary;
    double bytes_per_row;
} idb_insert_result;

/* Check cfg without creating anything: the numbers, the store's options (its table, then
 * its check hook with the strategy's width), every shard's strategy options (the user's
 * and the harness's, as create() will get them), and dir when it is not NULL. Returns 0,
 * or IDB_EINPUT (IDB_ENOMEM) with err filled. */
int idb_insert_check(const idb_insert_config *cfg, idb_err *err);

/* Run one insert experiment: idb_insert_check first, so bad input creates nothing; after
 * that, a failure removes whatever the run made in cfg->dir (rundir.h), leaving it as it
 * was. Returns 0, or an IDB_E* code with err filled (IDB_EINPUT for bad configuration,
 * unknown options, a store refusing a key; IDB_EIO for files). */
int idb_insert_run(const idb_insert_config *cfg, idb_insert_result *res, idb_err *err);

/* idb_insert_run with cfg->then_strategy set: res gets the run's figures (phase 0) and
 * then (the caller's) the second phase's (phase 1, ids = cfg->then_ids), both measured as
 * insert_then.c says. then may be NULL only without cfg->then_strategy. Same returns. */
int idb_insert_run_then(const idb_insert_config *cfg, idb_insert_result *res,
                        idb_insert_result *then, idb_err *err);

#endif
