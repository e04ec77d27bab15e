/* autoinc.c — `autoinc`: the database assigns the key (PostgreSQL identity, MariaDB and
 * Galera AUTO_INCREMENT).
 *
 *   bit 63                                                    0
 *   +----------------------------------------------------------+
 *   |  value: 64-bit unsigned, the key the store's table gave   |
 *   +----------------------------------------------------------+
 *
 * The chapter's central counter as users run it: the database's own. The strategy declares
 * store_assigned (strategy.h), so the insert runner makes no ID before the insert: it asks
 * the store to insert the row and to hand back the key its table assigned (store.h version
 * 4: insert_assigned; INSERT ... RETURNING id on PostgreSQL, the statement's insert id on
 * MariaDB), and measures duplicates and order from the keys read back, as for every other
 * strategy. A store that cannot assign keys is refused before anything is made.
 *
 * Elsewhere (idbench ids, bench, the simulator, the claims) there is no table: next() is
 * the database's counter as one counter service hands it out (counter_service.h: the
 * in-process atomic called `name`, default "autoinc", or the simulator's counter server
 * attached under that name, with its outages): 1, 2, 3, ... with step 1, a request per ID
 * (coord = IDB_COORD_PER_ID), as `counter` with backend=local. Its options are `name` and
 * `service` only: the insert runner's database is the store, never a counter server.
 *
 * Across processes: nothing promised (cross_process = IDB_XPROC_NONE): two processes (two
 * databases) count from 1 each. After fork (fork = IDB_FORK_REFUSES): the child's copy would
 * hand out the parent's next values, so next() there returns IDB_EFORK.
 *
 * Options:
 *   name     STR, default "autoinc"   which counter of the service (instances naming it share)
 *   service  ENUM inproc              counter service backend (in this process)
 */
#include <stdlib.h>

#include "counter.h"
#include "counter_service.h"
#include "forkgen.h"
#include "strategy.h"

typedef struct autoinc {
    idb_counter_service *svc;          /* the counter called `name` */
    unsigned fork_gen;                 /* idb_fork_generation() at create */
} autoinc;

static const idb_opt_decl autoinc_options[] = {
    { .name = "name", .type = IDB_OPT_STR, .size = IDB_COUNTER_NAME_MAX, .def = "autoinc",
      .help = "which counter of the service (where no store assigns the key)" },
    { .name = "service", .type = IDB_OPT_ENUM, .def = "inproc", .choices = "inproc",
      .help = "counter service backend: inproc = one atomic in this process" },
    { 0 },
};

static int autoinc_create(const idb_opts *opts, idb_clock *clock, void **inst, idb_err *err)
{
    (void)clock;
    autoinc *a = malloc(sizeof *a);
    if (!a) return idb_fail(err, IDB_ENOMEM, "out of memory");
    idb_err e = { 0 };
    a->svc = idb_counter_inproc(idb_opts_str(opts, "name"), &e);
    if (!a->svc) {
        free(a);
        return idb_fail(err, e.code, "%s", e.msg);
    }
    a->fork_gen = idb_fork_generation();
    *inst = a;
    return 0;
}

static int autoinc_next(void *inst, idb_id *id, idb_err *err)
{
    autoinc *a = inst;
    uint64_t v;
    int rc = idb_fork_check(a->fork_gen, "autoinc", err);
    if (!rc) rc = a->svc->take(a->svc, 1, &v, err);
    if (!rc) idb_id_set_u64(id, v);
    return rc;
}

/* Emit value. */
static int autoinc_decode(const idb_opts *opts, const idb_id *id, idb_emit_fn emit, void *ctx,
                          idb_err *err)
{
    (void)opts;
    (void)err;
    idb_emit_uint(emit, ctx, "value", idb_id_u64(id));
    return 0;
}

/* Text forms that round-trip (strategy.h: vectors; tests/test_parsers.c). */
static const idb_text_vector autoinc_vectors[] = {
    { "1", "1" },
    { "18446744073709551615", "18446744073709551615" },
    { 0 },
};

const idb_strategy idb_strategy_autoinc = {
    .version = IDB_STRATEGY_VERSION,
    .name = "autoinc",
    .summary = "the database assigns the key: identity / AUTO_INCREMENT, read back per row",
    .bits = 64,
    .time_ordered = 1,
    .coord = IDB_COORD_PER_ID,
    .cross_process = IDB_XPROC_NONE,
    .fork = IDB_FORK_REFUSES,
    .options = autoinc_options,
    .on_clock_back = IDB_CLOCK_UNUSED,
    .vectors = autoinc_vectors,
    .create = autoinc_create,
    .next = autoinc_next,
    .destroy = free,
    .format = idb_text_u64_format,
    .parse = idb_text_u64_parse,
    .decode = autoinc_decode,
    .store_assigned = 1,
};
