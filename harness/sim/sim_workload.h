/* sim_workload.h — the workload of one simulated scenario: its keys, defaults and checks.
 *
 * A workload file (workloads/NAME.ini, read with ini.h) sets any of these keys; every key not
 * set keeps its default. workloads/template.ini lists every key with its default and a
 * comment, and the table in sim_workload.c is the one place the keys are declared:
 *
 *   [workload] name seed duration_s orders_per_s shops shop_skew shards instances strategies
 *              routing range_split range_max_rows
 *   [clock]    skew_ms drift_ppm step_back_ms step_at_s step_instance
 *   [counter]  rtt_ms outage_start_s outage_s service_us queue_max
 *   [range]    range_size lease_rtt_ms
 *   [events]   add_shard_at_s interleaved_reconfig migrate_shop_at_s duplicate_worker_ids
 *   [burst]    burst_at_s burst_s burst_factor
 *
 * Values are checked as they are read (type and range), and the whole workload once more
 * after the last one (keys that depend on each other, e.g. step_instance < instances).
 * Every error names where the value came from: "FILE:LINE: ..." for a file, "--set
 * SECTION.KEY=VALUE: ..." for an override given on the command line.
 */
#ifndef IDB_SIM_WORKLOAD_H
#define IDB_SIM_WORKLOAD_H

#include <stdint.h>

#include "err.h"
#include "strategy.h"

#define SIM_NAME_MAX 64
#define SIM_LIST_MAX 512
#define SIM_MAX_SHARDS 1024
#define SIM_MAX_INSTANCES 1024
#define SIM_MAX_SHOPS 1000000
/* expected orders per run. The simulator's peak memory is about 24 bytes an order for
 * 64-bit IDs and at most 2 (B + 2) (or 16 + B) for B-byte IDs: 36 for 128-bit, 44 for
 * KSUID's 20 bytes (docs/simulator.md, "Memory"); so 450M orders take about 11 GB for
 * 64-bit IDs and at most about 20 GB for the widest strategy: room for
 * workloads/internet-hour.ini (360M) on a 24 GiB machine. A workload above is refused
 * before it starts, not killed for memory. */
#define SIM_MAX_ORDERS 450000000LL
#define SIM_MAX_STRATEGIES 64
#define SIM_MAX_QUEUE 100000000LL     /* queue_max: requests waiting for the counter server */
#define SIM_MAX_RANGE_SIZE (1LL << 62)   /* range_size: leases of 2^62 IDs at most */
#define SIM_OFF IDB_KEY_OFF              /* an event time that is `off` */
#define SIM_MAX_RANGES 4096              /* routing = range: ranges a run may split into */

/* routing: the order's shop's shard (the chapter's shop), the range of its ID, or a hash
 * of its ID (sim_router.h). */
enum sim_routing { SIM_ROUTE_SHOP, SIM_ROUTE_RANGE, SIM_ROUTE_HASH };
/* range_split: equal slices of the strategy's key space, or the quantiles of a sample of
 * the run's own IDs. */
enum sim_range_split { SIM_SPLIT_SPACE, SIM_SPLIT_SAMPLE };

typedef struct sim_workload {
    /* [workload] */
    char name[SIM_NAME_MAX];             /* default: the file name without .ini */
    uint64_t seed;
    double duration_s, orders_per_s;
    int64_t shops;
    double shop_skew;                    /* Zipf exponent; 0 = every shop alike */
    int64_t shards, instances;
    char strategies[SIM_LIST_MAX];       /* "all" or a comma list of names */
    int64_t routing;                     /* where an order is stored: SIM_ROUTE_* */
    int64_t range_split;                 /* routing = range: SIM_SPLIT_* */
    int64_t range_max_rows;              /* routing = range: split a range above this many
                                          * rows (0: never) */
    /* [clock] */
    double skew_ms, drift_ppm, step_back_ms, step_at_s;
    int64_t step_instance;
    /* [counter] */
    double rtt_ms, outage_start_s, outage_s;
    double service_us;                   /* the counter server's time per request */
    int64_t queue_max;                   /* requests that may wait for it (more: refused) */
    /* [range] */
    int64_t range_size;
    double lease_rtt_ms;
    /* [events] */
    double add_shard_at_s;               /* SIM_OFF or seconds */
    int64_t reconfig_safe;               /* interleaved_reconfig: 1 = safe, 0 = naive */
    double migrate_shop_at_s;            /* SIM_OFF or seconds */
    int duplicate_worker_ids;            /* 0 or 1 */
    /* [burst] */
    double burst_at_s, burst_s, burst_factor;

    /* Where each key was set, for messages: index = key number in the table. */
    char source[SIM_LIST_MAX];           /* file path, or "" when only defaults/overrides */
    int line[64];                        /* 0 = default, -1 = --set, else the file line */
} sim_workload;

/* Fill w with every default (name "workload", line[] all 0). */
void sim_workload_defaults(sim_workload *w);

/* Defaults, then the keys of the file at path, then the whole-workload checks. name
 * defaults to the file's base name without ".ini". Returns 0 or IDB_EINPUT with err
 * "PATH:LINE: ..." (or "PATH: cannot read: ..."). */
int sim_workload_load(const char *path, sim_workload *w, idb_err *err);

/* Defaults, the keys of the file at path, then the overrides sets[0..nsets) (the --set
 * flags, "SECTION.KEY=VALUE", each checked like a file value; a key set by two of them is
 * refused), then the whole-workload checks once, so the order of the overrides does not
 * matter. Returns 0 or IDB_EINPUT with err as sim_workload_load and sim_workload_set. */
int sim_workload_load_set(const char *path, const char *const *sets, int nsets,
                          sim_workload *w, idb_err *err);

/* Override one key from "SECTION.KEY=VALUE" (the --set flag), checked like a file value,
 * then re-run the whole-workload checks. Returns 0 or IDB_EINPUT with err
 * "--set TEXT: ...". */
int sim_workload_set(sim_workload *w, const char *assignment, idb_err *err);

/* The whole-workload checks (run by load and set; tests may call them). Returns 0 or
 * IDB_EINPUT naming the file and line of the offending key. */
int sim_workload_check(const sim_workload *w, idb_err *err);

/* The strategies the workload names, in registry order for "all", else in list order.
 * list overrides w->strategies when not NULL (the --strategies flag; then messages name
 * the flag instead of the file). Returns the count (>= 1), or IDB_EINPUT. */
int sim_workload_strategies(const sim_workload *w, const char *list,
                            const idb_strategy *out[SIM_MAX_STRATEGIES], idb_err *err);

/* Expected number of orders (rate x duration, with the burst). */
double sim_workload_expected_orders(const sim_workload *w);

/* Number of keys in the table, and the i-th as "section.key" (tests: the template lists
 * every key; line[i] of a loaded workload is where key i was set). */
int sim_workload_key_count(void);
const char *sim_workload_key_name(int i);

#endif
