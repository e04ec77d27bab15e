/* harness_kv.h — the options the harness fills in for a strategy instance.
 *
 * The insert runner and the simulator make many instances of one strategy (one per shard,
 * one per API instance) and tell each where it stands through options the strategy may
 * declare (see strategy.h for the list and what each means). This is the one place those
 * options are turned into "key=value" strings: only where the strategy declares the option,
 * only when the harness has a value for it, and never over a value the user gave (a
 * user's -o value wins). The caller decides the numbers: the insert runner gives
 * worker = shard, the simulator gives worker = API instance.
 */
#ifndef IDB_HARNESS_KV_H
#define IDB_HARNESS_KV_H

#include <stdint.h>

#include "strategy.h"

#define IDB_HARNESS_UNSET INT64_MIN    /* an integer the harness does not fill in */
#define IDB_HARNESS_FILLS 10           /* options the harness may fill in (idb_harness_place) */
#define IDB_HARNESS_USER_MAX 64        /* the user's options one instance may take */

/* What the harness knows about one instance: IDB_HARNESS_UNSET or NULL = not filled in. */
typedef struct idb_harness_place {
    int64_t shard;                     /* its shard k */
    int64_t shards;                    /* the shard count K */
    int64_t base;                      /* IDs start above this (re-configured shards) */
    int64_t worker;                    /* its worker number */
    int64_t range_size;                /* IDs per leased range */
    const char *dir;                   /* a directory for the strategy's own files */
    const char *name;                  /* the counter service to use */
    const char *dsn;                   /* the run's counter server (postgres), libpq conninfo */
    const char *url;                   /* the run's counter server (redis) */
    const char *secret_file;           /* its password's file (a TCP server), or NULL */
} idb_harness_place;

/* A place with nothing to fill in (every field unset). */
idb_harness_place idb_harness_place_none(void);

/* The options of one instance: the user's, then the harness's. kv[0..n) point at the
 * user's strings and into buf; valid while this struct and the user's strings live. */
typedef struct idb_harness_kv {
    const char *kv[IDB_HARNESS_USER_MAX + IDB_HARNESS_FILLS];
    int n;
    char buf[IDB_HARNESS_FILLS][IDB_OPT_NAME_MAX + IDB_OPT_VALUE_MAX];
} idb_harness_kv;

/* Fill out with the user's options user[0..nuser) ("key=value", may be NULL when nuser is
 * 0), then "key=value" for every option of place that s declares and the user did not set,
 * in the order of idb_harness_place. Returns 0, or IDB_EINPUT with err filled (more than
 * IDB_HARNESS_USER_MAX user options, or a value of IDB_OPT_VALUE_MAX bytes or more). */
int idb_strategy_harness_kv(const idb_strategy *s, const idb_harness_place *place,
                            const char *const *user, int nuser, idb_harness_kv *out,
                            idb_err *err);

#endif
