/* worker_lease.h — the options of a strategy whose worker number the harness can lease
 * from a coordinator instead of assigning it (issue 26 item 3; docs/worker-leases.md).
 *
 * A strategy with a worker field (snowflake) declares these in its option table with
 * IDB_WORKER_LEASE_OPTIONS; it does not read them itself: the insert runner does
 * (harness/runner/wlease.h). With worker_source=etcd|postgres each shard's generator runs
 * in a process of its own that leases a worker number (a key with a lease in a private etcd,
 * or a row of a lease table in a private PostgreSQL), keeps the lease alive every
 * lease_ms / 4, and makes its instance with worker = the leased number; on losing the
 * lease it stops (orders fail: the safe fencing) or goes on with the number it no longer
 * holds (continue: the common bug).
 */
#ifndef IDB_WORKER_LEASE_H
#define IDB_WORKER_LEASE_H

#define IDB_WL_SOURCE "worker_source"
#define IDB_WL_LEASE_MS "lease_ms"
#define IDB_WL_ON_LOST "on_lease_lost"
#define IDB_WL_SOURCES "none|etcd|postgres"   /* enum order: 0 none, 1 etcd, 2 postgres */
#define IDB_WL_LEASE_MS_MIN 2000              /* etcd's shortest lease TTL is 2 s */
#define IDB_WL_LEASE_MS_MAX 600000

/* The three option declarations, for a strategy's option table. */
#define IDB_WORKER_LEASE_OPTIONS                                                            \
    { .name = IDB_WL_SOURCE, .type = IDB_OPT_ENUM, .def = "none", .choices = IDB_WL_SOURCES, \
      .help = "insert: lease each generator's worker from a private etcd or postgres "     \
              "(each shard's generator in its own process); none: worker = shard" },       \
    { .name = IDB_WL_LEASE_MS, .type = IDB_OPT_INT, .def = "2000",                          \
      .min = IDB_WL_LEASE_MS_MIN, .max = IDB_WL_LEASE_MS_MAX,                               \
      .help = "worker_source: the lease's length in ms (etcd: whole seconds, rounded up)" }, \
    { .name = IDB_WL_ON_LOST, .type = IDB_OPT_ENUM, .def = "stop", .choices = "stop|continue", \
      .help = "worker_source: a generator whose lease ran out stops (orders fail) or "     \
              "continues with the worker it no longer holds" }

#endif
