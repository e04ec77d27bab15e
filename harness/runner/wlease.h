/* wlease.h — worker numbers leased from a coordinator for the insert run's generators
 * (strategy option worker_source=etcd|postgres, strategies/worker_lease.h; the design is in
 * docs/worker-leases.md).
 *
 * The run starts one private coordinator (an etcd, or a PostgreSQL with a lease table) and,
 * per shard, a generator process (forked from the runner) that leases a worker number from
 * it, keeps the lease alive and makes that shard's IDs with its own strategy instance
 * (worker = the leased number), serving them one at a time over a pipe. The pool holds
 * `shards` worker numbers, so a generator started while all are held waits until one is
 * free. The fault pause-worker@N:MS SIGSTOPs the generator of order N's shard, starts a
 * replacement for that shard, waits until it holds a worker (the paused one's, once that
 * lease has run out) and MS ms have passed since the stop, SIGCONTs the paused one, and
 * from then on that shard's orders alternate between the two; the run waits during the
 * pause (so the resume comes before its end), and the orders left at the resume are
 * spread over at least a second (the run does not end first). Time spent on the fault
 * (waits, pacing) is not timed.
 */
#ifndef IDB_WLEASE_H
#define IDB_WLEASE_H

#include <stdint.h>

#include "insert.h"

typedef struct idb_wlease idb_wlease;

/* The worker_source the run's strategy options ask for: 0 none (also for a strategy that
 * does not declare it), 1 etcd, 2 postgres. */
int idb_wlease_source(const idb_insert_config *cfg);

/* Checks made before anything is created: worker_source with a strategy's own worker= (the
 * lease decides it), with more than one writer per shard, or the pause-worker fault
 * without worker_source or with MS not above lease_ms or N not below the order count;
 * the coordinator's binaries missing; etcd without root. Returns 0, IDB_EINPUT, IDB_EIO
 * (not installed: the package named) or IDB_EUNAVAIL (not root). */
int idb_wlease_check(const idb_insert_config *cfg, idb_err *err);

/* Start the coordinator (in a private temporary directory; etcd inside the run's private
 * network namespace) and every shard's generator, each holding a worker. *out is NULL when
 * cfg asks for no worker_source. Returns 0, IDB_EUNAVAIL (no namespace: not root), IDB_EIO
 * (a server or a generator failed: its message), IDB_ENOMEM; nothing is left running then. */
int idb_wlease_start(const idb_insert_config *cfg, idb_wlease **out, idb_err *err);

/* Order i's ID for shard k into *id, from that shard's generator (the fault applied first).
 * A generator that refuses for want of a lease (on_lease_lost=stop) makes a failed order:
 * id->len 0 and *failed + 1. *untimed_ns grows by the time the fault took. Returns 0, or
 * IDB_EIO (a generator died) or the strategy's error. */
int idb_wlease_next(idb_wlease *w, int64_t i, int k, idb_id *id, int64_t *failed,
                    int64_t *untimed_ns, idb_err *err);

/* The measured pause of the fault (SIGSTOP to SIGCONT, ms), -1 without it or before it. */
double idb_wlease_pause_ms(const idb_wlease *w);

/* Stop every generator (and reap it), then the coordinator, and free w. w may be NULL. */
void idb_wlease_stop(idb_wlease *w);

#endif
