/* forkgen.h — noticing that an instance is used in a child made by fork(), for the fork rule
 * of strategy.h (every strategy either refuses there with IDB_EFORK or is safe there).
 *
 * A fork generation: 0 in the process that started, incremented in the child after every
 * fork() by a pthread_atfork handler (registered by the first idb_fork_generation() call, so
 * before any instance that recorded a generation exists). An instance records the
 * generation at create; next() compares it with idb_fork_now(), one relaxed atomic load.
 * A child made without the atfork handlers (a raw clone(2) or vfork) is not noticed.
 */
#ifndef IDB_FORKGEN_H
#define IDB_FORKGEN_H

#include <stdatomic.h>

#include "err.h"

/* The current generation; read it through idb_fork_now() (written only by forkgen.c). */
extern atomic_uint idb_fork_gen_value;

/* The current fork generation, registering the atfork handler first if it is not yet.
 * Call it at create (any thread); never fails. */
unsigned idb_fork_generation(void);

/* The current fork generation, without registering: for next(), once the instance has
 * called idb_fork_generation() at create. */
static inline unsigned idb_fork_now(void)
{
    return atomic_load_explicit(&idb_fork_gen_value, memory_order_relaxed);
}

/* The refusal of an instance of strategy `owner` used in a forked child: fills err with a
 * message naming owner and saying to create a new instance; returns IDB_EFORK. */
int idb_fork_refuse(const char *owner, idb_err *err);

/* 0 when gen (recorded at create) is still this process's generation, else the refusal. */
static inline int idb_fork_check(unsigned gen, const char *owner, idb_err *err)
{
    if (__builtin_expect(idb_fork_now() != gen, 0)) return idb_fork_refuse(owner, err);
    return 0;
}

#endif
