/* interleaved.c — `interleaved`: shard k of N hands out k+1, k+1+N, k+1+2N, ...
 *
 *   bit 63                                                    0
 *   +----------------------------------------------------------+
 *   | value = base + k + 1 + i*N  (k = shard, N = shards, i >= 0) |
 *   +----------------------------------------------------------+
 *
 * No coordination once N is fixed: shard k's IDs are the values congruent to k+1 mod N.
 * It only works for exactly N shards: adding one means a new allocation that must not
 * reuse numbers already handed out: the safe way re-bases every shard above the highest
 * ID issued so far (option `base`), the naive way just switches to the new modulus (the
 * simulator plays both). decode recovers shard = (value - base - 1) mod shards, so it
 * needs the same `shards` and `base` options.
 *
 * What it promises: one instance never repeats an ID; nothing across processes
 * (cross_process = IDB_XPROC_NONE): two instances with one shard number, at once or one
 * after the other (a restart counts from base + k + 1 again), hand out the same IDs; only
 * distinct shards and a base above everything issued so far keep them apart.
 * After fork (fork = IDB_FORK_REFUSES): the child's copy would continue the parent's i,
 * handing out the parent's next IDs, so next() there returns IDB_EFORK.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "forkgen.h"
#include "strategy.h"

typedef struct interleaved {
    uint64_t shard, shards, base;
    _Atomic uint64_t i;                /* how many IDs this shard has handed out */
    unsigned fork_gen;                 /* idb_fork_generation() at create */
} interleaved;

static const idb_opt_decl interleaved_options[] = {
    { .name = "shards", .type = IDB_OPT_INT, .def = "3", .min = 1, .max = 1 << 20,
      .help = "number of shards N sharing the interleaving" },
    { .name = "shard", .type = IDB_OPT_INT, .def = "0", .min = 0, .max = (1 << 20) - 1,
      .help = "this shard's number k, 0..N-1" },
    { .name = "base", .type = IDB_OPT_INT, .def = "0", .min = 0, .max = INT64_MAX,
      .help = "IDs start above this value (a re-allocation after adding a shard)" },
    { 0 },
};

static int interleaved_create(const idb_opts *opts, idb_clock *clock, void **inst, idb_err *err)
{
    (void)clock;
    int64_t n = idb_opts_int(opts, "shards"), k = idb_opts_int(opts, "shard");
    if (k >= n)
        return idb_fail(err, IDB_EINPUT,
                        "strategy interleaved: shard=%lld must be below shards=%lld",
                        (long long)k, (long long)n);
    interleaved *s = malloc(sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    s->shard = (uint64_t)k;
    s->shards = (uint64_t)n;
    s->base = (uint64_t)idb_opts_int(opts, "base");
    atomic_store(&s->i, 0);
    s->fork_gen = idb_fork_generation();
    *inst = s;
    return 0;
}

static int interleaved_next(void *inst, idb_id *id, idb_err *err)
{
    interleaved *s = inst;
    int rc = idb_fork_check(s->fork_gen, "interleaved", err);
    if (rc) return rc;
    uint64_t i = atomic_fetch_add_explicit(&s->i, 1, memory_order_relaxed);
    if (i > (UINT64_MAX - s->base - s->shard - 1) / s->shards)
        return idb_fail(err, IDB_EEXHAUSTED, "interleaved shard %llu is used up",
                        (unsigned long long)s->shard);
    idb_id_set_u64(id, s->base + s->shard + 1 + i * s->shards);
    return 0;
}

static int interleaved_decode(const idb_opts *opts, const idb_id *id, idb_emit_fn emit, void *ctx,
                              idb_err *err)
{
    uint64_t v = idb_id_u64(id), n = (uint64_t)idb_opts_int(opts, "shards");
    uint64_t base = (uint64_t)idb_opts_int(opts, "base");
    if (v <= base)
        return idb_fail(err, IDB_EINPUT, "%llu is not an interleaved ID above base %llu",
                        (unsigned long long)v, (unsigned long long)base);
    idb_emit_uint(emit, ctx, "shard", (v - base - 1) % n);
    idb_emit_uint(emit, ctx, "shards", n);
    idb_emit_uint(emit, ctx, "value", v);
    return 0;
}

/* Text forms that round-trip (strategy.h: vectors; tests/test_parsers.c). */
static const idb_text_vector interleaved_vectors[] = {
    { "4", "4" },
    { "18446744073709551615", "18446744073709551615" },
    { 0 },
};

const idb_strategy idb_strategy_interleaved = {
    .version = IDB_STRATEGY_VERSION,
    .name = "interleaved",
    .summary = "interleaved ranges: shard k of N hands out k+1, k+1+N, k+1+2N...",
    .bits = 64,
    .time_ordered = 0,
    .coord = IDB_COORD_NONE,
    .cross_process = IDB_XPROC_NONE,
    .fork = IDB_FORK_REFUSES,
    .options = interleaved_options,
    .on_clock_back = IDB_CLOCK_UNUSED,
    .vectors = interleaved_vectors,
    .create = interleaved_create,
    .next = interleaved_next,
    .destroy = free,
    .format = idb_text_u64_format,
    .parse = idb_text_u64_parse,
    .decode = interleaved_decode,
};
