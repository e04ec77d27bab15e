/* clock.c — the real, the manual and the skipping clock (see clock.h). */
#include "clock.h"

#include "err.h"

static idb_clock real_clock = { .kind = IDB_CLOCK_REAL };

idb_clock *idb_clock_real(void) { return &real_clock; }

void idb_clock_skip_init(idb_clock *c)
{
    c->kind = IDB_CLOCK_SKIP;
    atomic_store(&c->now_ns, 0);
    atomic_store(&c->frozen, 0);
    atomic_store(&c->waited_ns, 0);
    atomic_store(&c->waits, 0);
}

void idb_clock_manual_init(idb_clock *c, int64_t start_ns)
{
    c->kind = IDB_CLOCK_MANUAL;
    atomic_store(&c->now_ns, start_ns);
    atomic_store(&c->frozen, 0);
    atomic_store(&c->waited_ns, 0);
    atomic_store(&c->waits, 0);
}

void idb_clock_set_ns(idb_clock *c, int64_t ns)
{
    if (c->kind == IDB_CLOCK_MANUAL) atomic_store(&c->now_ns, ns);
}

void idb_clock_advance_ns(idb_clock *c, int64_t delta_ns)
{
    if (c->kind == IDB_CLOCK_MANUAL) atomic_fetch_add(&c->now_ns, delta_ns);
}

void idb_clock_freeze(idb_clock *c, int frozen)
{
    atomic_store(&c->frozen, frozen);
}

int idb_clock_wait_until(idb_clock *c, int64_t ns)
{
    int64_t now = idb_clock_now_ns(c);
    if (now >= ns) return 0;
    if (c->kind == IDB_CLOCK_MANUAL) {
        if (atomic_load(&c->frozen)) return IDB_ECLOCK;
        /* Jump forward, unless another thread already moved the clock past ns. */
        int64_t cur = now;
        while (cur < ns && !atomic_compare_exchange_weak(&c->now_ns, &cur, ns)) {}
    } else if (c->kind == IDB_CLOCK_SKIP) {
        atomic_fetch_add(&c->now_ns, ns - now);   /* now reads at least ns */
    } else {
        int64_t start = now;
        while (now < ns) {
            if (ns - now > 2000000) {   /* more than 2 ms to go: sleep most of it */
                int64_t d = ns - now - 1000000;
                struct timespec ts = { d / 1000000000, d % 1000000000 };
                nanosleep(&ts, NULL);
            }
            now = idb_clock_now_ns(c);
        }
        ns = now;
        now = start;
    }
    atomic_fetch_add(&c->waited_ns, ns - now);
    atomic_fetch_add(&c->waits, 1);
    return 0;
}
