/* counter.h — the counter strategy's parts that other strategies built on its numbers
 * reuse (bitrev.c, autorandom.c): its option entries and table, and its create, next and
 * destroy (counter.c; strategy.h's contracts). */
#ifndef IDB_COUNTER_H
#define IDB_COUNTER_H

#include "counter_service.h"
#include "remote.h"
#include "strategy.h"

/* The counter's option entries (no terminator), for a table that adds its own after them. */
#define IDB_COUNTER_OPTIONS \
    { .name = "name", .type = IDB_OPT_STR, .size = IDB_COUNTER_NAME_MAX, .def = "orders", \
      .help = "which counter of the service to use (instances naming the same one share it)" }, \
    { .name = "service", .type = IDB_OPT_ENUM, .def = "inproc", .choices = "inproc", \
      .help = "counter service backend: inproc = one atomic in this process" }, \
    { .name = "backend", .type = IDB_OPT_ENUM, .def = "local", .choices = IDB_BACKEND_CHOICES, \
      .help = "where the counter lives: local (an atomic), postgres (nextval), redis (INCR)" }, \
    { .name = "cache", .type = IDB_OPT_INT, .def = "1", .min = 1, .max = IDB_REMOTE_CACHE_MAX, \
      .help = "backend=postgres: the sequence's CACHE (numbers each session takes ahead)" }, \
    IDB_REMOTE_OPTIONS

/* The counter's declared options: name, service, backend, cache and the server's (remote.h). */
extern const idb_opt_decl idb_counter_options[];

/* An instance on the counter the options name (in this process or on a server). */
int idb_counter_create(const idb_opts *opts, idb_clock *clock, void **inst, idb_err *err);

/* The counter's next number into id (64 bits). 0, IDB_EFORK or the service's error. */
int idb_counter_next(void *inst, idb_id *id, idb_err *err);

/* The same for a strategy built on the counter: its errors (IDB_EFORK) name `name`. */
int idb_counter_next_as(void *inst, const char *name, idb_id *id, idb_err *err);

/* Close and free an instance (NULL is fine). */
void idb_counter_destroy(void *inst);

#endif
