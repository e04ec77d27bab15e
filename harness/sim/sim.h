/* sim.h — the sharded shop, simulated in virtual time.
 *
 * Two steps. sim_stream_open() turns a workload into an order stream: when each order
 * arrives, which shop it is for, which API instance takes it, where each shop lives,
 * each instance's clock error, and the scheduled events (a shop moves, a shard is added).
 * The stream depends only on the workload and its seed, so every strategy of a run sees
 * the same orders; they are drawn as they are played (sim_stream_make stores them).
 * sim_run() then plays the stream against one strategy's real code, each
 * generator on its own manual clock, and measures what came out (sim_metrics.h).
 *
 * Time. Virtual ns from 0 (the start) to duration_s; "true time" is this virtual time.
 * Instance i's clock reads  T0 + t + offset_i + drift_i * t  (- step_back_ms once t >=
 * step_at_s, for i = step_instance), where T0 = 2024-06-01T00:00:00Z, offset_i is drawn
 * uniformly in [-skew_ms, +skew_ms] and drift_i in [-drift_ppm, +drift_ppm] (seeded).
 * A clock is never set backwards except by that one step: a clock a strategy moved
 * forward by waiting stays where it is until true time catches up.
 *
 * Arrivals: a Poisson process (seeded) at orders_per_s, times burst_factor inside
 * [burst_at_s, burst_at_s + burst_s). Each order's shop is drawn from Zipf(shop_skew) over
 * `shops` (shop 0 most popular); shops are dealt to shards by a seeded shuffle, round
 * robin, so every shard holds about the same number of shops. Each order goes to a
 * uniformly drawn instance, except that during a burst the extra share (f-1)/f of orders
 * all go to instance 0 (a flash sale hammering one instance).
 *
 * Generators (who calls next()), from the strategy's declared properties only:
 *   coord == IDB_COORD_PER_ID         one central generator (the counter's client); each
 *                                     order waits for its requests to the counter server.
 *   declares `shard` or `shards`      one generator per shard (shard=k, shards=K); a
 *                                     `dir` option gets a private temporary directory,
 *                                     `range_size` the workload's value; shard and
 *                                     central generators run on true time.
 *   otherwise                         one generator per API instance, on that instance's
 *                                     clock; `worker` = the instance number (with
 *                                     duplicate_worker_ids = 1, instance 1 gets worker 0).
 * A strategy that declares `name` (a counter service, as counter and segment use) gets
 * the simulator's counter server (sim_server.h): one server with a service time
 * (service_us) and a FIFO queue of at most queue_max waiting requests, rtt_ms/2 away each
 * way, numbered from 1 in every run, that refuses every request sent inside the outage
 * window [outage_start_s, +outage_s) and every request that finds its queue full
 * (IDB_EUNAVAIL). A per-ID strategy then fails that order; a block strategy (segment)
 * goes on with its current and prefetched blocks and fails orders only once they are used
 * up. An order whose next() says IDB_EUNAVAIL fails.
 * Orders are played in arrival order. A generator serves one order at a time: an order
 * starts at max(arrival, the time its generator became free). The central generator is
 * free again as soon as it has sent a request (API instances call the server
 * concurrently; the server's queue is what serialises them). Generators share no state
 * but the server, whose requests are taken in the order the orders are played, so this
 * equals a full event-queue simulation.
 *
 * Stalls. When next() says IDB_ECLOCK (clock behind by behind_ms), the order waits that
 * long in true time and asks again; waits inside the strategy (a used-up sequence) jump
 * the manual clock forward and show in its waited_ns. Both are added to stalled_ms, and
 * the order is created (its true creation time) when its ID is finally given.
 * Coordination latency is reported per order: for a strategy using the counter server,
 * the time from sending its first request to the answer of its last (0 when the order made
 * none: a block strategy serving from a block it holds); for other per-range strategies,
 * lease_rtt_ms for an order whose ID starts a new range, i.e. is not its generator's
 * previous ID + 1, the first ID included. A per-ID order is created when its answer
 * arrives (it waits for the round trip and the queue); a block strategy's fetch is the
 * prefetch of its spare block (as in Leaf, made in the background), so it does not delay
 * creation, and a range lease does not either.
 *
 * Routing (the workload's `routing`, sim_router.h). shop: an order is stored on its shop's
 * shard, as above. range, hash: on the shard its ID routes to (the generator that makes
 * the ID is chosen as above: per shard strategies by the shop's shard); so shard_c is
 * where the row was inserted, shard_f where its range lives at the end (a split moves
 * rows). range_split = sample first plays the stream once to sample the run's IDs (one
 * order in ceil(n / SIM_SAMPLE_MAX), drawn by a hash of its number), then again, routed
 * (the same seed gives the same IDs). Events that move shops or add shards need routing = shop.
 *
 * Events. migrate_shop_at_s: shop 0 moves to another shard (seeded); its old orders keep
 * their IDs and move with it; new orders are created where it now lives. add_shard_at_s:
 * shard K is added and each shop moves to it with chance 1/(K+1) (seeded), its orders
 * with it. Per-shard strategies get a generator for the new shard; those that declare
 * `shards` are re-configured: naive = every shard restarts with shards=K+1 from its
 * start; safe = every shard restarts with shards=K+1 and base = the highest 64-bit ID
 * issued so far (when the strategy declares `base`).
 */
#ifndef IDB_SIM_H
#define IDB_SIM_H

#include <stdint.h>

#include "err.h"
#include "id.h"
#include "random.h"
#include "sim_workload.h"
#include "strategy.h"
#include "zipf.h"

#define SIM_T0_NS 1717200000000000000LL   /* 2024-06-01T00:00:00Z */
#define SIM_NO_MOVE 0xFFFFu

enum sim_event_kind { SIM_EV_MIGRATE, SIM_EV_ADD_SHARD };

typedef struct sim_event {
    int64_t t_ns;
    enum sim_event_kind kind;
    uint32_t shop;                /* MIGRATE: the shop that moves */
    uint16_t dest;                /* MIGRATE: where it goes */
    uint16_t *moves;              /* ADD_SHARD: per shop the new shard or SIM_NO_MOVE (owned) */
} sim_event;

typedef struct sim_stream {
    int64_t n, cap;               /* orders; allocated entries (0 for a generated stream) */
    int64_t *t_ns;                /* stored: arrival, non-decreasing, in [0, duration_ns) */
    uint32_t *shop;               /* stored: the order's shop */
    uint16_t *inst;               /* stored: the API instance that takes it */
    int64_t shops;
    int shards, instances;
    uint16_t *home;               /* per shop: its shard at the start */
    int64_t *offset_ns;           /* per instance: clock offset */
    double *drift_ppm;            /* per instance: clock drift */
    int64_t duration_ns;
    int nevents;                  /* in time order */
    sim_event ev[2];
    /* A generated stream (t_ns == NULL): what its orders are drawn from as they are read. */
    uint64_t seed;
    double orders_per_s, shop_skew, burst_factor;
    double burst_b0, burst_b1;    /* the burst window [b0, b1) in ns */
} sim_stream;

/* Allocate an empty stored stream for n orders (t, shop, inst zeroed), shops with home 0,
 * zero clock errors, no events (tests fill it by hand). Returns 0 or IDB_ENOMEM. */
int sim_stream_alloc(sim_stream *s, int64_t n, int64_t shops, int shards, int instances,
                     double duration_s, idb_err *err);

/* The order stream of workload w (seeded by w->seed), generated as it is read: shop homes,
 * clock errors and events are made now, the orders are counted (n) but not stored; each
 * reader (sim_cursor) draws them again, the same every time. Nothing per order is kept,
 * so a run's memory is its records only. Returns 0 or IDB_ENOMEM. */
int sim_stream_open(const sim_workload *w, sim_stream *s, idb_err *err);

/* The same stream as sim_stream_open, stored in t_ns, shop and inst (14 bytes an order)
 * for callers that read the arrays. Returns 0 or IDB_ENOMEM. */
int sim_stream_make(const sim_workload *w, sim_stream *s, idb_err *err);

/* Free what a stream holds (the struct itself is the caller's). */
void sim_stream_free(sim_stream *s);

/* A reader of a stream's orders, first to last (stored or generated alike). */
typedef struct sim_cursor {
    const sim_stream *s;
    int64_t n, j;                 /* orders in the stream; read so far */
    int stored;                   /* 1: read s's arrays; 0: draw the orders */
    idb_rng r_arr, r_shop, r_inst;
    idb_zipf zipf;                /* drawn: the shops' popularity */
    double t;                     /* drawn: the last arrival (ns, as drawn) */
    double burst_extra;           /* drawn: share of a burst's orders sent to instance 0 */
} sim_cursor;

/* Start reading s (which must outlive c) at its first order. Returns 0 or IDB_ENOMEM. */
int sim_cursor_open(sim_cursor *c, const sim_stream *s, idb_err *err);

/* The next order: 1 with its arrival (ns), shop and instance, or 0 after the last. */
int sim_cursor_next(sim_cursor *c, int64_t *t_ns, uint32_t *shop, uint16_t *inst);

/* Free what a cursor holds. */
void sim_cursor_close(sim_cursor *c);

typedef struct sim_result {
    /* The output fields, in output order. */
    const char *workload;         /* w->name (borrowed) */
    const char *strategy;         /* s->name (borrowed) */
    int64_t orders;               /* orders placed (failed ones included) */
    int64_t duplicates;           /* orders whose ID equals an earlier order's ID */
    int64_t failed_orders;        /* orders that got no ID */
    double stalled_ms;            /* time generators waited: clock behind, sequence used up */
    double coord_lat_p50_ms, coord_lat_p99_ms;   /* over orders that got an ID */
    double inversion_frac;        /* pairs whose ID order disagrees with creation order */
    int shard_monotonic;          /* 1: on every shard IDs increase with creation time */
    double tail_insert_frac;      /* IDs above every ID already on their shard */
    int id_bytes;
    /* More, for claims and tests. */
    int64_t inversions;           /* the count behind inversion_frac */
    double max_inversion_gap_ms;  /* largest creation-time gap of an inverted pair */
    int64_t leases;               /* per-range strategies: ranges started */
    int64_t stalls;               /* orders that waited at least once */
    int64_t moved_orders;         /* orders that live on another shard than where made */
    int64_t shard_collisions;     /* duplicates among the orders of one (final) shard */
    int final_monotonic;          /* shard_monotonic over where orders live at the end */
    int64_t outage_orders;        /* orders arriving inside the counter outage window */
    double coord_lat_max_ms;      /* the largest coordination latency */
    int64_t server_served;        /* requests the counter server answered with numbers */
    int64_t server_refused_full;  /* requests it refused because its queue was full */
    double insert_last5_frac;     /* with opts->locality: share of inserts landing in the
                                   * last 5% of their shard's index */
    double wall_s;                /* wall time of sim_run (generation and metrics) */
    double cpu_s;                 /* CPU time of the calling thread during sim_run */
    double insert_pos_p50;        /* with opts->locality: median insert position (locality.h) */
    int64_t timeline_n;           /* seconds in the timeline (when asked for) */
    int64_t *tl_orders, *tl_failed;   /* per second of arrival: orders, failed (owned) */
    /* Where orders are stored (the workload's routing; sim_router.h): */
    int routing;                  /* SIM_ROUTE_* */
    int range_split;              /* SIM_SPLIT_* (routing = range) */
    int shards;                   /* shards at the end (an added one included) */
    double hot_share;             /* the largest shard's share of the run's inserts */
    double hot_share_p99;         /* p99 over seconds of each second's largest share */
    int64_t range_splits;         /* routing = range with range_max_rows: splits; else -1 */
    int64_t ranges;               /* routing = range: ranges at the end; else 0 */
    int tl_shards;                /* timeline: columns of tl_shard */
    uint32_t *tl_shard;           /* timeline: [second * tl_shards + shard] inserts (owned) */
    int32_t *tl_ranges;           /* timeline: ranges after each second's last insert, 0
                                   * for a second without one (owned) */
} sim_result;

typedef struct sim_run_opts {
    idb_id *ids_out;              /* optional: per stream order its ID (len 0: failed) */
    int timeline;                 /* 1: fill tl_orders / tl_failed */
    int locality;                 /* 1: fill insert_pos_p50 and insert_last5_frac (per
                                   * creation shard, in creation order) */
    int64_t *created_out;         /* optional: per stream order its creation time (true ns;
                                   * left as it was for failed orders) */
    int slot;                     /* runs made at the same time (threads) each need their
                                   * own slot, 0 .. SIM_SLOTS - 1: it names the run's counter
                                   * server; one thread at a time may use a slot */
} sim_run_opts;

#define SIM_SLOTS 8                   /* concurrent sim_run calls at most (distinct slots) */

/* Play stream s against strategy st under workload w (counter, range, clock step and
 * event settings; w->seed seeds the calling thread's randomness for the strategy). opts
 * may be NULL. Thread-safe for runs in distinct opts->slot sharing w and s (read only). Returns 0,
 * or an IDB_E* code with err filled when a generator cannot be made or next() fails
 * with something else than IDB_ECLOCK / IDB_EUNAVAIL (IDB_EUNAVAIL counts as a failed
 * order). Free r with sim_result_free. */
int sim_run(const sim_workload *w, const sim_stream *s, const idb_strategy *st,
            const sim_run_opts *opts, sim_result *r, idb_err *err);

/* Free what a result holds. */
void sim_result_free(sim_result *r);

#endif
