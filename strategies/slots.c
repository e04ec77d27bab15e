/* slots.c — a thread's slot number (see slots.h). */
#include "slots.h"

_Thread_local unsigned idb_slot_plus1;

static atomic_uint threads_seen;   /* threads that took a slot so far */

/* The next thread number mod IDB_SLOTS, kept for this thread (see slots.h). */
unsigned idb_slot_take(void)
{
    unsigned s = atomic_fetch_add_explicit(&threads_seen, 1, memory_order_relaxed) % IDB_SLOTS;
    idb_slot_plus1 = s + 1;
    return s;
}
