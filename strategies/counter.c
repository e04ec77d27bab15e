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
 * Backends (option backend; remote.h): local = the in-process atomic (7 ns); postgres =
 * `SELECT nextval('NAME')` per ID on a PostgreSQL server; redis = `INCRBY NAME 1` per ID on
 * a Redis server: a real round trip per ID, over the socket the harness's server gives in
 * dsn= / url=, with a deadline of timeout_ms and an emulated delay of rtt_us.
 *
 * Across processes: nothing promised (cross_process = IDB_XPROC_NONE). The in-process
 * backend is one atomic per process, so two processes (or a restarted one) count from 1
 * each; the server backends are shared by all their clients (and Redis without an
 * append-only file forgets what it handed out when it is killed: see remote_redis.c).
 * After fork (fork = IDB_FORK_REFUSES): the child holds a copy of the parent's counter and
 * would hand out the parent's next numbers, so next() there returns IDB_EFORK.
 *
 * Options:
 *   name     STR, default "orders"   which counter; at most 255 bytes (IDB_COUNTER_NAME_MAX),
 *                                    kept whole, so instances naming it share one sequence
 *   service  ENUM inproc             counter service backend (in this process)
 *   backend  ENUM local|postgres|redis  where the counter lives (default local)
 *   cache    INT 1..1000000          backend=postgres: CREATE SEQUENCE ... CACHE (default 1)
 *   dsn, url, timeout_ms, rtt_us, durability, transport: the server's (remote.h)
 */
#include <stdlib.h>

#include "counter.h"
#include "counter_service.h"
#include "forkgen.h"
#include "remote.h"
#include "strategy.h"

typedef struct counter {
    idb_counter_service *svc;
    idb_remote *remote;         /* the server's client, or NULL (backend=local) */
    unsigned fork_gen;          /* idb_fork_generation() at create */
} counter;

const idb_opt_decl idb_counter_options[] = {
    IDB_COUNTER_OPTIONS
    { 0 },
};

/* Make an instance on the counter called `name` (kept whole: the option's size is the
 * service's limit), in this process or on the server of `backend`. Returns 0, IDB_ENOMEM,
 * the service's IDB_EINPUT / IDB_EEXHAUSTED, or the server's (idb_remote_open). */
int idb_counter_create(const idb_opts *opts, idb_clock *clock, void **inst, idb_err *err)
{
    (void)clock;
    counter *c = malloc(sizeof *c);
    if (!c) return idb_fail(err, IDB_ENOMEM, "out of memory");
    c->remote = NULL;
    enum idb_backend b = (enum idb_backend)idb_opts_int(opts, "backend");
    if (b != IDB_BACKEND_LOCAL) {
        idb_remote_conf rc;
        int e = idb_remote_conf_from(opts, b, "counter", &rc, err);
        rc.mode = IDB_REMOTE_SEQUENCE;
        rc.name = idb_opts_str(opts, "name");
        rc.seq_cache = (int)idb_opts_int(opts, "cache");
        if (!e) e = idb_remote_open(&rc, &c->remote, err);
        if (e) { free(c); return e; }
        c->svc = idb_remote_service(c->remote);
    } else {
        idb_err e = { 0 };
        c->svc = idb_counter_inproc(idb_opts_str(opts, "name"), &e);
        if (!c->svc) { free(c); return idb_fail(err, e.code, "%s", e.msg); }
    }
    c->fork_gen = idb_fork_generation();
    *inst = c;
    return 0;
}

int idb_counter_next_as(void *inst, const char *name, idb_id *id, idb_err *err)
{
    counter *c = inst;
    uint64_t v;
    int rc = idb_fork_check(c->fork_gen, name, err);
    if (rc) return rc;
    rc = c->svc->take(c->svc, 1, &v, err);
    if (rc == 0) idb_id_set_u64(id, v);
    return rc;
}

int idb_counter_next(void *inst, idb_id *id, idb_err *err)
{
    return idb_counter_next_as(inst, "counter", id, err);
}

/* Close the server's client (if any) and free. */
void idb_counter_destroy(void *inst)
{
    counter *c = inst;
    if (c) idb_remote_close(c->remote);
    free(c);
}

/* Emit value. */
static int counter_decode(const idb_opts *opts, const idb_id *id, idb_emit_fn emit, void *ctx,
                          idb_err *err)
{
    (void)opts; (void)err;
    idb_emit_uint(emit, ctx, "value", idb_id_u64(id));
    return 0;
}

/* Text forms that round-trip (strategy.h: vectors; tests/test_parsers.c). */
static const idb_text_vector counter_vectors[] = {
    { "1", "1" },
    { "18446744073709551615", "18446744073709551615" },
    { 0 },
};

const idb_strategy idb_strategy_counter = {
    .version = IDB_STRATEGY_VERSION,
    .name = "counter",
    .summary = "central counter: 1, 2, 3... from one counter service (a request per ID)",
    .bits = 64,
    .time_ordered = 1,
    .coord = IDB_COORD_PER_ID,
    .cross_process = IDB_XPROC_NONE,
    .fork = IDB_FORK_REFUSES,
    .options = idb_counter_options,
    .on_clock_back = IDB_CLOCK_UNUSED,
    .vectors = counter_vectors,
    .create = idb_counter_create,
    .next = idb_counter_next,
    .destroy = idb_counter_destroy,
    .format = idb_text_u64_format,
    .parse = idb_text_u64_parse,
    .decode = counter_decode,
};
