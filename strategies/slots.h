/* slots.h — per-thread state inside one shared instance, for the generators that need no
 * coordination between threads (uuidv7, ulid: an order per thread; objectid: a block of
 * counter values per thread).
 *
 * An instance keeps IDB_SLOTS slots, each on cache lines of its own (IDB_SLOT_ALIGN) with
 * its own spinlock; a thread always takes the same slot, idb_slot(): its thread number (the
 * order in which threads first asked) mod IDB_SLOTS. So up to IDB_SLOTS threads sharing an
 * instance each write only their own slot's lines, and no line bounces between cores; more
 * threads share slots, still correct under the slot's lock. A slot's lock is uncontended
 * but when two threads share a slot, so it costs one atomic exchange per ID, as the single
 * lock did.
 */
#ifndef IDB_SLOTS_H
#define IDB_SLOTS_H

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define IDB_SLOTS 16
#define IDB_SLOT_ALIGN 128         /* two cache lines: adjacent-line prefetch pairs them */

/* This thread's slot + 1 (0: not taken yet). */
extern _Thread_local unsigned idb_slot_plus1;

/* Take this thread's slot (first call in a thread): the slow path of idb_slot(). */
unsigned idb_slot_take(void);

/* This thread's slot, 0 .. IDB_SLOTS - 1: the same for the thread's whole life. */
static inline unsigned idb_slot(void)
{
    unsigned s = idb_slot_plus1;
    return __builtin_expect(s != 0, 1) ? s - 1 : idb_slot_take();
}

/* size bytes, zeroed, aligned to IDB_SLOT_ALIGN (for an instance holding slots); NULL when
 * out of memory. Free with free(). */
static inline void *idb_slots_alloc(size_t size)
{
    size_t n = (size + IDB_SLOT_ALIGN - 1) / IDB_SLOT_ALIGN * IDB_SLOT_ALIGN;
    void *p = aligned_alloc(IDB_SLOT_ALIGN, n);
    if (p) memset(p, 0, n);
    return p;
}

#endif
