/* counter.c — `counter`: one central counter hands out 1, 2, 3, ...
 *
 *   bit 63                                                    0
 *   +----------------------------------------------------------+
 *   |        value: 64-bit unsigned, from the counter service   |
 *   +----------------------------------------------------------+
 *
 * Every ID is one request to the counter service (coordination per ID). The in-process
 * backend is one atomic per counter name; all instances naming the same counter share it,
 * which is what makes it central.
 *
 * Across processes: nothing yet (cross_process = IDB_XPROC_NONE). The in-process backend is
 * one atomic per process, so two processes (or a restarted one) count from 1 each.
 * After fork (fork = IDB_FORK_REFUSES): the child holds a copy of the parent's counter and
 * would hand out the parent's next numbers, so next() there returns IDB_EFORK.
 *
 * Options:
 *   name     STR, default "orders"   which counter; at most 255 bytes (IDB_COUNTER_NAME_MAX),
 *                                    kept whole, so instances naming it share one sequence
 *   service  ENUM inproc             counter service backend
 */
#include <stdlib.h>

#include "counter_service.h"
#include "forkgen.h"
#include "strategy.h"

typedef struct counter {
    idb_counter_service *svc;
    unsigned fork_gen;          /* idb_fork_generation() at create */
} counter;

static const idb_opt_decl counter_options[] = {
    { .name = "name", .type = IDB_OPT_STR, .size = IDB_COUNTER_NAME_MAX, .def = "orders",
      .help = "which counter of the service to use (instances naming the same one share it)" },
    { .name = "service", .type = IDB_OPT_ENUM, .def = "inproc", .choices = "inproc",
      .help = "counter service backend: inproc = one atomic in this process" },
    { 0 },
};

/* Make an instance on the counter called `name` (kept whole: the option's size is the
 * service's limit). Returns 0, IDB_ENOMEM, or the service's IDB_EINPUT / IDB_EEXHAUSTED. */
static int counter_create(const idb_opts *opts, idb_clock *clock, void **inst, idb_err *err)
{
    (void)clock;
    counter *c = malloc(sizeof *c);
    if (!c) return idb_fail(err, IDB_ENOMEM, "out of memory");
    idb_err e = { 0 };
    c->svc = idb_counter_inproc(idb_opts_str(opts, "name"), &e);
    if (!c->svc) { free(c); return idb_fail(err, e.code, "%s", e.msg); }
    c->fork_gen = idb_fork_generation();
    *inst = c;
    return 0;
}

/* The next number of the counter. Returns 0, IDB_EFORK or the service's error. */
static int counter_next(void *inst, idb_id *id, idb_err *err)
{
    counter *c = inst;
    uint64_t v;
    int rc = idb_fork_check(c->fork_gen, "counter", err);
    if (rc) return rc;
    rc = c->svc->take(c->svc, 1, &v, err);
    if (rc == 0) idb_id_set_u64(id, v);
    return rc;
}

/* Emit value. */
static int counter_decode(const idb_opts *opts, const idb_id *id, idb_emit_fn emit, void *ctx,
                          idb_err *err)
{
    (void)opts; (void)err;
    idb_emit_uint(emit, ctx, "value", idb_id_u64(id));
    return 0;
}

const idb_strategy idb_strategy_counter = {
    .version = IDB_STRATEGY_VERSION,
    .name = "counter",
    .summary = "central counter: 1, 2, 3... from one counter service (a request per ID)",
    .bits = 64,
    .time_ordered = 1,
    .coord = IDB_COORD_PER_ID,
    .cross_process = IDB_XPROC_NONE,
    .fork = IDB_FORK_REFUSES,
    .options = counter_options,
    .create = counter_create,
    .next = counter_next,
    .destroy = free,
    .format = idb_text_u64_format,
    .parse = idb_text_u64_parse,
    .decode = counter_decode,
};
