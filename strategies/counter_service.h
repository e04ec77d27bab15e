/* counter_service.h — the central counter service, as a seam.
 *
 * The `counter` strategy (and hi/lo block strategies) ask a counter service for numbers.
 * This file is the interface; counter_service.c has the in-process backend: one atomic
 * per named counter, shared by every instance in the process that names it. A network
 * backend later implements the same two calls.
 */
#ifndef IDB_COUNTER_SERVICE_H
#define IDB_COUNTER_SERVICE_H

#include <stdint.h>

#include "err.h"

typedef struct idb_counter_service idb_counter_service;

struct idb_counter_service {
    /* Reserve n consecutive numbers; *first gets the first of them (numbers start at 1).
     * Returns 0, or IDB_EUNAVAIL / IDB_EEXHAUSTED with err filled. */
    int (*take)(idb_counter_service *svc, uint64_t n, uint64_t *first, idb_err *err);
};

/* The in-process counter called name (created at 0 on first use; lives until exit).
 * Returns NULL with err filled when the table of counters is full. */
idb_counter_service *idb_counter_inproc(const char *name, idb_err *err);

/* Reset an in-process counter to 0 (tests only). */
void idb_counter_inproc_reset(const char *name);

#endif
