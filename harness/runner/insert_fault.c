/* insert_fault.c — the counter-server faults of an insert run (insert.h): kill-counter
 * (SIGKILL, then a restart on the same data), failover-counter (SIGKILL of the primary,
 * then a standby/replica promoted: ctrsrv.h) and failover-lagged (the same after the
 * replicas stopped receiving for LAG_MS), ticked before each order, and each order's
 * ID, where an unavailable counter server is a failed order while a fault is asked. */
#include <stdint.h>
#include <stdio.h>

#include "ctrsrv.h"
#include "insert_int.h"
#include "metrics.h"
#include "openloop.h"
#include "wlease.h"

#define NS_PER_MS 1000000LL
#define LAG_DETECT_MS 200     /* failover-lagged: from the kill to the promotion */

int64_t idb_run_fault_at(const idb_insert_config *cfg)
{
    return cfg->kill_counter_at ? cfg->kill_counter_at
         : cfg->failover_counter_at ? cfg->failover_counter_at : cfg->failover_lag_at;
}

const char *idb_run_fault_name(const idb_insert_config *cfg)
{
    return cfg->kill_counter_at ? "kill-counter"
         : cfg->failover_counter_at ? "failover-counter" : "failover-lagged";
}

/* Whether the wait of state 1 or 3 (wait_ms from kill_ns) ends before order i: at the first
 * order after it, or at r->step_at (halfway through the orders left when the state began),
 * having slept out the rest of the wait, so that a run whose orders go faster than the
 * wait still sees the fault complete and orders served after it. */
static int wait_over(run *r, int64_t i, int64_t wait_ms)
{
    int64_t end = r->kill_ns + wait_ms * NS_PER_MS;
    if (idb_mono_ns() >= end) return 1;
    if (i < r->step_at) return 0;
    idb_sleep_until(end);
    return 1;
}

/* Enter state (1 killed, 2 done, 3 lagging) at order i: its clock and its last order. */
static void enter(run *r, int state, int64_t i)
{
    r->fault = state;
    r->kill_ns = idb_mono_ns();
    r->step_at = i + (r->cfg->ids - i) / 2;
}

/* The fault before order i: SIGKILL the counter server (the primary) at the fault's order
 * (failover-lagged: first the replicas stop receiving, and the kill comes at the first
 * order lag_ms later), then at the first order restart_ms (kill-counter) or detect_ms
 * (failover-counter; LAG_DETECT_MS for failover-lagged) later start it again, or promote a
 * replica (from this thread: the one that started them); each wait ends by halfway through
 * the orders left (wait_over). The time it takes is kept in fault_ns, apart from the
 * timing. */
static int fault_tick(run *r, int64_t i, idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    int lagged = cfg->failover_lag_at != 0;
    int failover = cfg->failover_counter_at != 0 || lagged;
    if (!idb_run_fault_at(cfg) || r->fault == 2) return 0;
    int64_t t0 = idb_mono_ns();
    int64_t wait_ms = lagged ? LAG_DETECT_MS
                    : failover ? cfg->failover_detect_ms : cfg->kill_restart_ms;
    int rc = 0;
    if (r->fault == 0 && i == idb_run_fault_at(cfg) && lagged) {
        rc = idb_ctrsrv_lag(&r->cs, err);
        enter(r, 3, i);
    } else if ((r->fault == 0 && i == idb_run_fault_at(cfg))
               || (r->fault == 3 && wait_over(r, i, cfg->failover_lag_ms))) {
        rc = idb_ctrsrv_kill(&r->cs, err);
        enter(r, failover && r->cs.sentinel ? 2 : 1, i);   /* Sentinel promotes, not idbench */
    } else if (r->fault == 1 && wait_over(r, i, wait_ms)) {
        rc = failover ? idb_ctrsrv_failover(&r->cs, err) : idb_ctrsrv_restart(&r->cs, err);
        r->fault = 2;
        r->down_ns = idb_mono_ns() - r->kill_ns;
    } else {
        return 0;
    }
    r->fault_ns += idb_mono_ns() - t0;
    return rc;
}

int idb_run_special_ids(const run *r)
{
    return r->wl || idb_run_fault_at(r->cfg) || r->cfg->strategy->store_assigned;
}

/* Order i's ID into *id on a run with a fault, leased workers or keys the store assigns
 * (see insert_int.h). Leased workers: from the shard's generator
 * (wlease.h), where a generator that lost its lease (on_lease_lost=stop) is a failed
 * order. A key the store assigns (autoinc) is made by the insert: an 8-byte zero
 * placeholder here. */
int idb_run_order_id_special(run *r, int64_t i, int k, idb_id *id, idb_err *err)
{
    if (r->wl) return idb_wlease_next(r->wl, i, k, id, &r->failed, &r->fault_ns, err);
    int rc = fault_tick(r, i, err);
    if (!rc && r->cfg->strategy->store_assigned) *id = (idb_id){ .len = 8 };
    else if (!rc) rc = r->cfg->strategy->next(r->shards[k].inst, id, err);
    if (rc == IDB_EUNAVAIL && idb_run_fault_at(r->cfg)) {
        r->failed++;
        id->len = 0;
        return 0;
    }
    if (!rc && r->fault == 2 && !r->served_ns) r->served_ns = idb_mono_ns();
    return rc;
}

/* Whether the run's fault completed (see insert_int.h); then Sentinel's failover said. */
int idb_run_fault_end(run *r, idb_err *err)
{
    char line[256];
    idb_err why = { 0 };
    if (!idb_run_fault_at(r->cfg)) return 0;
    if (r->fault != 2 || !r->served_ns)
        return idb_fail(err, IDB_EINPUT, "--fault %s@%lld: the run's orders ran out before "
                        "%s; ask for more orders (-n) or an earlier fault",
                        idb_run_fault_name(r->cfg), (long long)idb_run_fault_at(r->cfg),
                        r->fault != 2 ? "the fault completed"
                                      : "the counter served an order after it");
    if (!r->cs.sentinel) return 0;
    if (idb_ctrsrv_sentinel_report(&r->cs, line, sizeof line, &why) == 0)
        fprintf(stderr, "idbench: sentinel: %s\n", line);
    else
        fprintf(stderr, "idbench: sentinel: %s\n", why.msg);
    return 0;
}
