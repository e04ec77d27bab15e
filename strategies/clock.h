/* clock.h — the only source of time a strategy may use.
 *
 * A strategy is handed an idb_clock at create() and never reads the wall clock itself.
 * Three kinds exist:
 *   - the real clock (idb_clock_real()): CLOCK_REALTIME; waiting spins (then sleeps for
 *     long waits) until the time is reached;
 *   - a skipping clock (idb_clock_skip_init()): CLOCK_REALTIME plus an offset; waiting adds
 *     what is left to the offset instead of passing it, so a generator at its rate cap
 *     makes the IDs it would make in real time (the same ticks, each used up) without the
 *     wait. For runs that measure no time (a model store's), where the wait measures
 *     nothing;
 *   - a manual clock (idb_clock_manual_init()): time is whatever tests or the simulator set;
 *     it never moves by itself, can be stepped back, and waiting jumps it forward to the
 *     awaited time (virtual time), unless it is frozen, in which case waiting fails.
 * Both count how long callers waited (stalled time), which the simulator reports.
 * All functions are safe to call from several threads.
 */
#ifndef IDB_CLOCK_H
#define IDB_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

enum idb_clock_kind { IDB_CLOCK_REAL, IDB_CLOCK_MANUAL, IDB_CLOCK_SKIP };

typedef struct idb_clock {
    enum idb_clock_kind kind;
    _Atomic int64_t now_ns;      /* manual clocks: Unix time in ns; skipping: the offset */
    _Atomic int frozen;          /* manual clocks: 1 = waiting cannot move time */
    _Atomic int64_t waited_ns;   /* total time callers waited in idb_clock_wait_until */
    _Atomic int64_t waits;       /* number of waits that had to wait */
} idb_clock;

/* The process-wide real clock. Never NULL; never freed. */
idb_clock *idb_clock_real(void);

/* Initialise c as a skipping clock (offset 0: it reads the real time until a wait). */
void idb_clock_skip_init(idb_clock *c);
/* Initialise c as a manual clock reading start_ns (Unix ns), not frozen. */
void idb_clock_manual_init(idb_clock *c, int64_t start_ns);

/* Manual clocks: set the time (may go backwards), move it by delta_ns (may be negative),
 * freeze or unfreeze it. No effect on the real clock. */
void idb_clock_set_ns(idb_clock *c, int64_t ns);
void idb_clock_advance_ns(idb_clock *c, int64_t delta_ns);
void idb_clock_freeze(idb_clock *c, int frozen);

/* Current time in Unix ns. */
static inline int64_t idb_clock_now_ns(idb_clock *c)
{
    if (c->kind == IDB_CLOCK_MANUAL)
        return atomic_load_explicit(&c->now_ns, memory_order_acquire);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    if (c->kind == IDB_CLOCK_SKIP) ns += atomic_load_explicit(&c->now_ns, memory_order_acquire);
    return ns;
}

/* Current time in whole Unix milliseconds (floor). */
static inline int64_t idb_clock_now_ms(idb_clock *c)
{
    int64_t ns = idb_clock_now_ns(c);
    return ns >= 0 ? ns / 1000000 : -((-ns + 999999) / 1000000);
}

/* Wait until the clock reads at least ns. The real clock busy-waits (sleeping for long
 * waits); a manual clock jumps forward to ns; a skipping clock moves its offset by what is
 * left. Adds the time waited to c->waited_ns.
 * Returns 0, or IDB_ECLOCK when c is a frozen manual clock that is behind ns. */
int idb_clock_wait_until(idb_clock *c, int64_t ns);

#endif
