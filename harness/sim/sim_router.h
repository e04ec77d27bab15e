/* sim_router.h — where the simulator stores an order when it is routed by its ID (the
 * workload's `routing`), and the share of inserts each shard takes.
 *
 * routing = shop (the chapter's shop) stores an order on its shop's shard and needs no
 * router. The two others look at the ID only:
 *   range  the key space is split into ranges, one per shard at the start, range k on shard
 *          k. An ID's key is its value's top 64 bits (the value: the ID as a big-endian
 *          number, below 2^value_bits, strategy.h; so a 63-bit snowflake and a 128-bit UUID
 *          alike span [0, 2^64) as keys), and range i holds the keys in [lo[i], lo[i+1]).
 *          range_split = space: lo[k] = ceil(k 2^64 / B), equal slices of the declared
 *          space; sample: lo[k] = the k/B quantile of a sample of the run's own IDs
 *          (sim_router_bounds; one order in ceil(n / SIM_SAMPLE_MAX), drawn by a hash of its
 *          number: sim_router_sampled). With range_max_rows > 0, a range holding more rows splits
 *          at its median key, as range-sharded engines split by size: the rows below the
 *          median stay, the new range (the median and above) goes with its rows to the
 *          shard with the fewest rows then (the lowest number on a tie), and
 *          range_splits counts the splits. The median is exact for ranges of up to
 *          SIM_SPLIT_SCAN rows, else that of every k-th row (k = ceil(rows / SIM_SPLIT_SCAN));
 *          the rows of each side are counted exactly. A range whose median equals its low
 *          bound (more than half its rows share one key) cannot split there: it tries again
 *          once its rows have doubled.
 *   hash   shard = h mod B, h = splitmix64's finaliser chained over the ID's bytes as
 *          big-endian 8-byte words (the last padded with zeros): h = mix(h ^ word), h0 = 0.
 *
 * Shares (every routing): each insert is counted on the shard it went to, in the second of
 * its order's arrival. hot_share is the largest shard's share of the run's inserts;
 * hot_share_p99 the 99th percentile (nearest rank) over the seconds with inserts of each
 * second's largest share. With a timeline, the per-second counts per shard are kept
 * (seconds x shards x 4 bytes); without, one second at a time. Nothing is kept per order.
 */
#ifndef IDB_SIM_ROUTER_H
#define IDB_SIM_ROUTER_H

#include <stdint.h>

#include "err.h"
#include "id.h"
#include "sim_workload.h"
#include "strategy.h"

#define SIM_SPLIT_SCAN 65536      /* keys a split's median is selected among (8 bytes each) */
#define SIM_SAMPLE_MAX 65536      /* range_split = sample: IDs in the sample, about */

typedef struct sim_router {
    int routing;                  /* SIM_ROUTE_RANGE or SIM_ROUTE_HASH */
    int shards;
    int lead;                     /* the ID's bits above its value (bits - value_bits) */
    int64_t max_rows;             /* split a range above this (0: never) */
    int64_t n, cap;               /* ranges, in key order */
    uint64_t *lo;                 /* range i: keys in [lo[i], lo[i + 1]) (the last: to 2^64) */
    uint16_t *owner;              /* range i lives on this shard */
    int64_t *rows;                /* rows range i holds */
    int64_t *limit;               /* range i splits above this many rows */
    int64_t *load;                /* per shard: the rows of its ranges */
    int64_t splits;
    uint64_t *scratch;            /* SIM_SPLIT_SCAN keys, for a median */
} sim_router;

/* Make a router for w's routing (range or hash) over w->shards shards for strategy st's
 * IDs. bounds: NULL for equal slices of the key space, else shards - 1 increasing keys,
 * the low bounds of ranges 1 .. shards-1 (range_split = sample). Returns 0 or IDB_ENOMEM
 * (free with sim_router_free either way). */
int sim_router_init(sim_router *r, const sim_workload *w, const idb_strategy *st,
                    const uint64_t *bounds, idb_err *err);

/* Free what r holds. */
void sim_router_free(sim_router *r);

/* The routing key of an ID of st's width given as big-endian bytes (len of them), or as the
 * native value of an 8-byte ID: its value's top 64 bits (see the top). */
uint64_t sim_router_key(const sim_router *r, const uint8_t *be, int len);
uint64_t sim_router_key_u64(const sim_router *r, uint64_t v);
/* ... of the k-th of a column of IDs of key_bytes each (native uint64_t when key_u64, else
 * big-endian bytes), as the simulator records them. */
uint64_t sim_router_key_at(const sim_router *r, const uint8_t *keys, size_t key_bytes,
                           int key_u64, int64_t k);

/* Route one new row of id: its shard; a range router counts the row in its range, whose
 * number goes to *range (-1 for hash). */
int sim_router_route(sim_router *r, const idb_id *id, int64_t *range);

/* 1 when range i holds more rows than it may (the caller then calls sim_router_split). */
int sim_router_over(const sim_router *r, int64_t i);

/* Split range i at the median of its rows, found among the m keys recorded so far (keys:
 * m IDs of key_bytes each, native uint64_t when key_u64, else big-endian), which include
 * every row routed so far. Returns 0 (split, or put off: see the top) or IDB_ENOMEM when
 * SIM_MAX_RANGES would be passed (the workload check keeps runs below it). */
int sim_router_split(sim_router *r, int64_t i, const uint8_t *keys, size_t key_bytes,
                     int key_u64, int64_t m, idb_err *err);

/* The shard the row of routing key k lives on now (after the splits so far). */
int sim_router_owner(const sim_router *r, uint64_t k);

/* 1 if order j is in range_split = sample's sample of one in `every` orders: drawn by a
 * hash of j, not every every-th order (a stride aliases with a bit-reversed counter: every
 * 16th of bitrev's IDs share their top 4 bits). */
int sim_router_sampled(int64_t j, int64_t every);

/* The hash router's shard of id (see the top). */
int sim_router_hash_shard(const idb_id *id, int shards);

/* The shards - 1 split points of a sample of n keys (sorted in place): the keys at ranks
 * k n / shards, k = 1 .. shards-1, each raised above the one before when equal. */
void sim_router_bounds(uint64_t *sample, int64_t n, int shards, uint64_t *bounds);

/* The shares of inserts per shard (see the top). */
typedef struct sim_shares {
    int shards;                   /* slots: every shard number is below this */
    int64_t seconds;              /* length of the run in seconds */
    int64_t *total;               /* per shard: inserts over the run */
    int64_t *cur;                 /* per shard: inserts in second `sec` */
    int64_t sec;                  /* the second being counted (-1: none yet) */
    double *sec_max;              /* per second with inserts: its largest share */
    int64_t nsec;
    uint32_t *tl;                 /* with a timeline: [second * shards + shard] inserts */
    int32_t *tl_ranges;           /* with a timeline: ranges at the second's last insert */
} sim_shares;

/* Make the counters for shards slots over seconds seconds (with the timeline arrays when
 * timeline). Returns 0 or IDB_ENOMEM (free with sim_shares_free either way). */
int sim_shares_init(sim_shares *s, int shards, int64_t seconds, int timeline, idb_err *err);

/* Count one insert on shard in second sec (non-decreasing from call to call; a second
 * past the run counts in the last), ranges the router's ranges after it (0: none). */
void sim_shares_add(sim_shares *s, int64_t sec, int shard, int64_t ranges);

/* hot_share and hot_share_p99 of what was counted (0 and 0 when nothing was). */
void sim_shares_end(sim_shares *s, double *hot_share, double *hot_share_p99);

/* Free the counters but tl and tl_ranges when keep (they then belong to the caller). */
void sim_shares_free(sim_shares *s, int keep);

#endif
