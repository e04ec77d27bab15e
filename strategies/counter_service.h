/* counter_service.h — the central counter service, as a seam.
 *
 * The `counter` strategy (and hi/lo block strategies) ask a counter service for numbers.
 * This file is the interface; counter_service.c has the in-process backend: one atomic
 * per named counter, shared by every instance in the process that names it. Another
 * backend (the simulator's counter server with its outages; a network client later)
 * implements take() and is attached under a name, so strategies reach it unchanged.
 */
#ifndef IDB_COUNTER_SERVICE_H
#define IDB_COUNTER_SERVICE_H

#include <stdint.h>

#include "err.h"
#include "options.h"

/* A counter's name is stored whole: at most IDB_COUNTER_NAME_MAX - 1 bytes. The strategies'
 * `name` options declare this size, so the option parser refuses a longer name with the
 * same limit before any counter is made; the service refuses one too (never cuts it, which
 * would let two names share one counter, or one name get two). */
#define IDB_COUNTER_NAME_MAX IDB_OPT_VALUE_MAX

typedef struct idb_counter_service idb_counter_service;

struct idb_counter_service {
    /* Reserve n consecutive numbers; *first gets the first of them (numbers start at 1).
     * Returns 0, or IDB_EUNAVAIL / IDB_EEXHAUSTED with err filled. */
    int (*take)(idb_counter_service *svc, uint64_t n, uint64_t *first, idb_err *err);
};

/* The counter called name: the service attached under name, else the in-process atomic
 * (created at 0 on first use; lives until exit). Returns NULL with err filled: IDB_EINPUT
 * when name has IDB_COUNTER_NAME_MAX bytes or more, IDB_EEXHAUSTED when the table of
 * counters is full. */
idb_counter_service *idb_counter_inproc(const char *name, idb_err *err);

/* Attach svc (owned by the caller, alive until detached) under name: from now on
 * idb_counter_inproc(name) returns svc instead of the atomic. Returns 0, or IDB_EINPUT
 * (name too long, as above) or IDB_EEXHAUSTED when the table of counters is full. */
int idb_counter_attach(const char *name, idb_counter_service *svc, idb_err *err);

/* Undo idb_counter_attach: name is the in-process atomic again. */
void idb_counter_detach(const char *name);

/* Reset an in-process counter to 0 (tests and the simulator). */
void idb_counter_inproc_reset(const char *name);

#endif
