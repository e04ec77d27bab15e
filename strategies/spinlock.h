/* spinlock.h — a tiny test-and-test-and-set lock for the few-instruction critical sections
 * of ID generators (a mutex costs more than the work it guards). Yields the CPU after a
 * while so a preempted holder can finish. Initialise with {0}.
 */
#ifndef IDB_SPINLOCK_H
#define IDB_SPINLOCK_H

#include <sched.h>
#include <stdatomic.h>

typedef struct idb_spinlock { atomic_int held; } idb_spinlock;

static inline void idb_spin_lock(idb_spinlock *l)
{
    for (unsigned spins = 0;; spins++) {
        if (!atomic_exchange_explicit(&l->held, 1, memory_order_acquire)) return;
        while (atomic_load_explicit(&l->held, memory_order_relaxed)) {
            if (++spins > 1000) { sched_yield(); spins = 0; }
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
    }
}

static inline void idb_spin_unlock(idb_spinlock *l)
{
    atomic_store_explicit(&l->held, 0, memory_order_release);
}

#endif
