/* segment.c — `segment`: hi/lo blocks from the central counter, as Meituan Leaf's segment
 * mode: a block of IDs per request, handed out locally, the next block fetched early.
 *
 *   bit 63                                                    0
 *   +----------------------------------------------------------+
 *   |  value: 64-bit unsigned, 1, 2, 3 ... in blocks of `block` |
 *   +----------------------------------------------------------+
 *   value  = block_no * block + offset + 1     (numbers start at 1, as the counter's do)
 *   block_no = (value - 1) / block              which block of the counter it came from
 *   offset   = (value - 1) % block              its place in that block, 0 .. block-1
 *
 * A block is one take(svc, block, &first) from the counter service (counter_service.h):
 * numbers first .. first+block-1. The instance hands them out one by one under a
 * spinlock, so coordination is per block, not per ID.
 *
 * Double buffer (Leaf's SegmentBuffer): when 10% of the current block is used (block/10
 * IDs, at least 1) the instance takes the next block as a spare, so when the current one
 * runs out the spare is already there and no ID waits for a round trip. The fetch is
 * made by the thread whose ID crossed the 10% point, after handing out its ID and
 * outside the lock (other threads keep handing out the current block meanwhile); with
 * the in-process service it is synchronous in that thread. With a server (backend=
 * postgres) the fetch is a round trip, so it is made by the instance's own fetcher
 * thread instead, woken at the 10% point, and no ID waits for it. Only when the current block
 * is used up with no spare (a prefetch failed, or it is still in flight) does next()
 * wait: on the other thread's fetch, or by fetching itself. A failed prefetch is retried
 * by the next call; its error reaches the caller only when a block is really needed.
 *
 * Blocks come from one counter that only grows, and an instance fetches one block at a
 * time, so its spare is always above its current block: within one instance IDs
 * increase; across instances sharing a counter they increase roughly (by block).
 *
 * Restart: a new instance takes a fresh block in create() (so an unavailable service is
 * reported before any work starts) and never resumes an old one: progress inside a block
 * is never written anywhere, so the rest of its predecessor's current block and spare
 * are abandoned. That wastes at most 2 blocks per restart and never reuses an ID.
 *
 * Across processes: nothing promised (cross_process = IDB_XPROC_NONE). The in-process
 * service is one atomic per process, so two processes (or a restarted one) take the same
 * blocks; with backend=postgres the blocks come from Leaf's leaf_alloc table on one server
 * shared by all (remote_pg.c: one UPDATE ... RETURNING max_id per block), so they do not.
 * After fork (fork = IDB_FORK_REFUSES): the child holds copies of the parent's current
 * block, spare and counter, and would hand out the parent's next IDs, so next() there
 * returns IDB_EFORK, before its lock (which a parent's thread may have held at fork).
 *
 * Decode assumes every user of the counter takes blocks of the same size (block_no and
 * offset are computed from the `block` option given to decode); sharing the counter with
 * `counter` or a different block size keeps IDs unique but makes block_no meaningless.
 *
 * Options:
 *   block    INT >= 1, default 1000   IDs per block (Leaf's step)
 *   name     STR, default "segments"   which counter (not `counter`'s "orders" by default);
 *                                      at most 255 bytes (IDB_COUNTER_NAME_MAX), kept whole
 *   service  ENUM inproc               counter service backend (in this process)
 *   backend  ENUM local|postgres       where the counter lives (default local)
 *   dsn, timeout_ms, rtt_us, ...       the server's (remote.h)
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "counter_service.h"
#include "forkgen.h"
#include "remote.h"
#include "spinlock.h"
#include "strategy.h"

#define SEGMENT_BLOCK_DEFAULT 1000

typedef struct segment {
    idb_counter_service *svc;
    uint64_t block;             /* IDs per block */
    uint64_t prefetch_at;       /* IDs used in the current block that trigger the prefetch */
    idb_spinlock lock;          /* guards everything below */
    uint64_t next;              /* next value of the current block */
    uint64_t left;              /* values left in the current block */
    uint64_t spare;             /* first value of the spare block; 0 = none */
    int fetching;               /* 1 while some thread is taking a block */
    unsigned fork_gen;          /* idb_fork_generation() at create (set once) */
    idb_remote *remote;         /* the server's client, or NULL (backend=local) */
    /* The fetcher thread (backend=postgres only): woken by `want`, stopped by `stop`. */
    int has_fetcher;
    pthread_t fetcher;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int want, stop;
} segment;

static const idb_opt_decl segment_options[] = {
    { .name = "block", .type = IDB_OPT_INT, .def = "1000", .min = 1, .max = INT64_MAX,
      .help = "IDs per block taken from the counter service (Leaf's step)" },
    { .name = "name", .type = IDB_OPT_STR, .size = IDB_COUNTER_NAME_MAX, .def = "segments",
      .help = "which counter of the service to take blocks from (instances naming the "
              "same one share it)" },
    { .name = "service", .type = IDB_OPT_ENUM, .def = "inproc", .choices = "inproc",
      .help = "counter service backend: inproc = one atomic in this process" },
    { .name = "backend", .type = IDB_OPT_ENUM, .def = "local", .choices = "local|postgres",
      .help = "where the blocks come from: local (an atomic), postgres (Leaf's leaf_alloc)" },
    IDB_REMOTE_OPTIONS
    { 0 },
};

/* Take one block from the service; *first gets its first value. Returns 0 or the
 * service's IDB_EUNAVAIL / IDB_EEXHAUSTED with err filled. */
static int segment_take(segment *s, uint64_t *first, idb_err *err)
{
    return s->svc->take(s->svc, s->block, first, err);
}

/* The fetcher thread: a block each time it is woken, made the spare (a failure leaves
 * none: next() then fetches itself, and reports the error if that fails too). */
static void *fetcher_main(void *arg)
{
    segment *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->want && !s->stop) pthread_cond_wait(&s->cv, &s->mu);
        if (s->stop) break;
        s->want = 0;
        pthread_mutex_unlock(&s->mu);
        uint64_t first;
        idb_err ignored = { 0 };
        int rc = segment_take(s, &first, &ignored);
        idb_spin_lock(&s->lock);
        s->fetching = 0;
        if (rc == 0) s->spare = first;
        idb_spin_unlock(&s->lock);
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Stop the fetcher (not in a child of fork(): it does not run there), close the server's
 * client, free. */
static void segment_destroy(void *inst)
{
    segment *s = inst;
    if (!s) return;
    if (s->has_fetcher && s->fork_gen == idb_fork_now()) {
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        pthread_cond_signal(&s->cv);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->fetcher, NULL);
    }
    if (s->has_fetcher) {
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
    }
    idb_remote_close(s->remote);
    free(s);
}

/* The counter service of opts: the in-process one, or the server's (and its fetcher). */
static int segment_service(segment *s, const idb_opts *opts, idb_err *err)
{
    if (idb_opts_int(opts, "backend") == IDB_BACKEND_LOCAL) {
        idb_err e = { 0 };
        s->svc = idb_counter_inproc(idb_opts_str(opts, "name"), &e);
        return s->svc ? 0 : idb_fail(err, e.code, "%s", e.msg);
    }
    idb_remote_conf c;
    int rc = idb_remote_conf_from(opts, IDB_BACKEND_POSTGRES, "segment", &c, err);
    c.mode = IDB_REMOTE_BLOCK;
    c.name = idb_opts_str(opts, "name");
    if (!rc) rc = idb_remote_open(&c, &s->remote, err);
    if (rc) return rc;
    s->svc = idb_remote_service(s->remote);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->has_fetcher = 1;
    if (pthread_create(&s->fetcher, NULL, fetcher_main, s) != 0) {
        s->has_fetcher = 0;
        return idb_fail(err, IDB_ENOMEM, "segment: cannot start the fetcher thread");
    }
    return 0;
}

/* Make an instance and take its first block. Returns 0 and *inst, or IDB_ENOMEM, or the
 * counter service's error (table of counters full, counter used up, a name too long), or
 * the server's (remote.h: idb_remote_open). */
static int segment_create(const idb_opts *opts, idb_clock *clock, void **inst, idb_err *err)
{
    (void)clock;
    segment *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    s->block = (uint64_t)idb_opts_int(opts, "block");
    s->prefetch_at = s->block / 10 ? s->block / 10 : 1;
    s->fork_gen = idb_fork_generation();
    int rc = segment_service(s, opts, err);
    if (!rc) rc = segment_take(s, &s->next, err);
    if (rc) { segment_destroy(s); return rc; }
    s->left = s->block;
    *inst = s;
    return 0;
}

/* Called with the lock held and the current block used up: make a block current, from
 * the spare, or by waiting for another thread's fetch, or by fetching. Returns with the
 * lock held: 0 (s->left > 0) or the service's error. */
static int segment_refill(segment *s, idb_err *err)
{
    while (s->left == 0) {
        if (s->spare) {                      /* the double buffer's other half */
            s->next = s->spare;
            s->left = s->block;
            s->spare = 0;
        } else if (s->fetching) {            /* another thread is taking one: wait */
            idb_spin_unlock(&s->lock);
            sched_yield();
            idb_spin_lock(&s->lock);
        } else {                             /* no spare: take one ourselves, now */
            uint64_t first;
            s->fetching = 1;
            idb_spin_unlock(&s->lock);
            int rc = segment_take(s, &first, err);
            idb_spin_lock(&s->lock);
            s->fetching = 0;
            if (rc) return rc;
            s->spare = first;                /* made current by the next turn */
        }
    }
    return 0;
}

/* Write the next ID into *id. Returns 0, or the counter service's IDB_EUNAVAIL /
 * IDB_EEXHAUSTED when the block is used up and no new one can be taken, or IDB_EFORK. */
static int segment_next(void *inst, idb_id *id, idb_err *err)
{
    segment *s = inst;
    int rc = idb_fork_check(s->fork_gen, "segment", err);
    if (rc) return rc;
    idb_spin_lock(&s->lock);
    if (s->left == 0) {
        rc = segment_refill(s, err);
        if (rc) { idb_spin_unlock(&s->lock); return rc; }
    }
    uint64_t v = s->next++;
    s->left--;
    int prefetch = !s->spare && !s->fetching && s->block - s->left >= s->prefetch_at;
    if (prefetch) s->fetching = 1;
    idb_spin_unlock(&s->lock);
    idb_id_set_u64(id, v);

    if (prefetch && s->has_fetcher) {        /* the 10% point: wake the fetcher */
        pthread_mutex_lock(&s->mu);
        s->want = 1;
        pthread_cond_signal(&s->cv);
        pthread_mutex_unlock(&s->mu);
    } else if (prefetch) {                   /* the 10% point: take the spare now */
        uint64_t first;
        idb_err ignored = { 0 };             /* v is good; a failure is retried later */
        rc = segment_take(s, &first, &ignored);
        idb_spin_lock(&s->lock);
        s->fetching = 0;
        if (rc == 0) s->spare = first;
        idb_spin_unlock(&s->lock);
    }
    return 0;
}

/* Decimal, like counter, but 0 is refused: blocks start at 1. Returns 0 or IDB_EINPUT. */
static int segment_parse(const char *text, idb_id *id, idb_err *err)
{
    int rc = idb_text_u64_parse(text, id, err);
    if (rc == 0 && idb_id_u64(id) == 0)
        return idb_fail(err, IDB_EINPUT, "'%s' is not a segment ID (they start at 1)", text);
    return rc;
}

/* Emit value, block ((value-1)/block) and offset ((value-1)%block); opts NULL means the
 * default block size. Returns 0, or IDB_EINPUT for an ID that is not 8 bytes or is 0. */
static int segment_decode(const idb_opts *opts, const idb_id *id, idb_emit_fn emit, void *ctx,
                          idb_err *err)
{
    uint64_t block = opts ? (uint64_t)idb_opts_int(opts, "block") : SEGMENT_BLOCK_DEFAULT;
    uint64_t v = idb_id_u64(id);
    if (id->len != 8 || v == 0)
        return idb_fail(err, IDB_EINPUT, "not a segment ID: they are 8 bytes and start at 1");
    idb_emit_uint(emit, ctx, "value", v);
    idb_emit_uint(emit, ctx, "block", (v - 1) / block);
    idb_emit_uint(emit, ctx, "offset", (v - 1) % block);
    return 0;
}

/* Text forms that round-trip (strategy.h: vectors; tests/test_parsers.c). */
static const idb_text_vector segment_vectors[] = {
    { "1", "1" },
    { "18446744073709551615", "18446744073709551615" },
    { 0 },
};

const idb_strategy idb_strategy_segment = {
    .version = IDB_STRATEGY_VERSION,
    .name = "segment",
    .summary = "hi/lo blocks (Leaf segment): a block of IDs per counter request, next "
               "block fetched at 10%",
    .bits = 64,
    .time_ordered = 1,
    .coord = IDB_COORD_PER_RANGE,
    .cross_process = IDB_XPROC_NONE,
    .fork = IDB_FORK_REFUSES,
    .options = segment_options,
    .on_clock_back = IDB_CLOCK_UNUSED,
    .vectors = segment_vectors,
    .create = segment_create,
    .next = segment_next,
    .destroy = segment_destroy,
    .format = idb_text_u64_format,
    .parse = segment_parse,
    .decode = segment_decode,
};
