/* forkgen.c — the fork generation and the IDB_EFORK refusal (see forkgen.h). */
#include "forkgen.h"

#include <pthread.h>

atomic_uint idb_fork_gen_value;
static pthread_once_t forkgen_once = PTHREAD_ONCE_INIT;

/* In the child: a new process, so a new generation. */
static void forkgen_child(void) { atomic_fetch_add(&idb_fork_gen_value, 1); }

static void forkgen_register(void) { pthread_atfork(NULL, NULL, forkgen_child); }

/* Register the handler once and read the generation (see forkgen.h). */
unsigned idb_fork_generation(void)
{
    pthread_once(&forkgen_once, forkgen_register);
    return idb_fork_now();
}

/* The IDB_EFORK refusal (see forkgen.h). */
int idb_fork_refuse(const char *owner, idb_err *err)
{
    return idb_fail(err, IDB_EFORK, "strategy %s: this instance belongs to the process that "
                    "created it and would repeat its IDs in this child of fork(); create a new "
                    "instance in the child", owner);
}
