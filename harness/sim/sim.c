/* sim.c — playing an order stream against one strategy's real code (model: sim.h).
 *
 * The run keeps one generator per strategy instance (central, per shard or per API
 * instance), each with its own manual clock, a busy-until time and its last ID. Orders
 * are played in arrival order; events are applied when the first order at or after their
 * time arrives. Per-order records go into columns sized once from the stream (no
 * allocation per order); sim_metrics_take() measures them afterwards. Where a row is
 * stored is its shop's shard, or with routing by ID the router's (sim_router.h), which
 * also counts each shard's inserts per second; range_split = sample plays the stream twice
 * (run_pass: once to sample the IDs, once routed).
 *
 * Memory per successful order: its creation time (8 bytes), its ID at its own width (8
 * for 64-bit IDs, 16 for 128-bit), its creation shard (2) and its shop (4, needed at the
 * end for the shard it lives on, 2 more), plus 8 for a non-zero coordination latency; the
 * stream is generated as it is played (sim_stream_open), so nothing per order is kept of
 * it. The metrics then work in place on these columns (sim_metrics.h): for 64-bit IDs
 * about 24 bytes an order at the peak (docs/simulator.md, "Memory").
 */
#include "sim.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "counter_service.h"
#include "harness_kv.h"
#include "random.h"
#include "select_kth.h"
#include "sim_huge.h"
#include "sim_metrics.h"
#include "sim_router.h"
#include "sim_server.h"
#include "tmpdir.h"

#define SIM_COUNTER_NAME "idbench-sim"   /* slot 0; slot k > 0 adds "-k" */
#define SIM_MAX_RETRIES 100000          /* ECLOCK retries of one order before giving up */
#define LAT_CHUNK 4096                  /* latencies the first allocation holds */
#define SIM_MMAP_THRESHOLD (1 << 20)    /* allocations from 1 MiB up: own mappings (glibc) */

enum gen_mode { MODE_CENTRAL, MODE_SHARD, MODE_INSTANCE };

/* range_split = sample's first pass: the routing keys of one order in `every`. */
typedef struct sampler {
    uint64_t *v;
    int64_t n, every;
} sampler;

typedef struct gen {
    void *inst;
    idb_clock clock;
    int64_t busy_until;                 /* true ns when it can serve the next order */
    int clk;                            /* API instance whose clock error it has, or -1 */
    int stepped;                        /* the scheduled step back has happened */
    idb_id last;                        /* its last ID, when has_last */
    int has_last;                       /* 0 until its first ID since it was (re)made */
} gen;

typedef struct run {
    const sim_workload *w;
    const sim_stream *s;
    const idb_strategy *st;
    enum gen_mode mode;
    gen *g;
    int ngen, shards;                   /* generators made; shards now */
    char dir[4096];                     /* private temporary directory ("" = none) */
    uint64_t max_issued;                /* highest 64-bit ID issued so far */
    sim_server counter;                 /* the counter server, for strategies naming one */
    int uses_server;                    /* the strategy declares a counter service name */
    int routed;                         /* 1: stored where the router says (range, hash) */
    sim_router router;
    sim_shares shares;                  /* inserts per shard and second */
    sampler *smp;                       /* the sampling pass (no routing, no metrics) */
    char counter_name[32];              /* its counter server's name (from the run's slot) */
    idb_err *err;
} run;

/* tmpdir.c's registry of directories is not guarded against threads (only against
 * signals): runs on several threads (sim_run_opts.slot) make and remove theirs one at a
 * time. */
static pthread_mutex_t tmpdir_lock = PTHREAD_MUTEX_INITIALIZER;

/* idb_tmpdir_make, one thread at a time. */
static int tmpdir_make(char *buf, size_t len)
{
    pthread_mutex_lock(&tmpdir_lock);
    int rc = idb_tmpdir_make(buf, len);
    pthread_mutex_unlock(&tmpdir_lock);
    return rc;
}

/* idb_tmpdir_remove, one thread at a time. */
static void tmpdir_remove(const char *dir)
{
    pthread_mutex_lock(&tmpdir_lock);
    idb_tmpdir_remove(dir);
    pthread_mutex_unlock(&tmpdir_lock);
}

/* 1 if the strategy declares option name. */
static int declares(const idb_strategy *st, const char *name)
{
    return idb_opts_declared(st->options, name);
}

/* What the clock of generator g should read at true time t (ns from the start). */
static int64_t local_ns(const run *R, const gen *g, int64_t t)
{
    int64_t v = SIM_T0_NS + t;
    if (g->clk >= 0) {
        v += R->s->offset_ns[g->clk] + (int64_t)(R->s->drift_ppm[g->clk] * 1e-6 * (double)t);
        if (g->stepped) v -= (int64_t)(R->w->step_back_ms * 1e6);
    }
    return v;
}

/* Move generator g's clock to true time t: forward only, except the one scheduled step. */
static void set_clock(run *R, gen *g, int64_t t)
{
    const sim_workload *w = R->w;
    int step = 0;
    if (!g->stepped && g->clk == (int)w->step_instance && w->step_back_ms > 0 &&
        t >= (int64_t)(w->step_at_s * 1e9) && R->mode == MODE_INSTANCE) {
        g->stepped = 1;
        step = 1;
    }
    int64_t v = local_ns(R, g, t);
    if (step || v > idb_clock_now_ns(&g->clock)) idb_clock_set_ns(&g->clock, v);
}

/* Create (or re-create) generator k for the current shard count, with the options the
 * harness fills in (harness_kv.h): per shard, shard = k, shards and (base > 0) base; per
 * API instance, worker = k (instance 1 gets 0 when worker IDs clash on purpose); always
 * range_size, dir and the counter service's name. Returns 0 or an IDB_E* code with R->err
 * filled. */
static int make_gen(run *R, int k, uint64_t base)
{
    const idb_strategy *st = R->st;
    gen *g = &R->g[k];
    idb_harness_place place = idb_harness_place_none();
    if (R->mode == MODE_SHARD) {
        place.shard = k;
        place.shards = R->shards;
        if (base) place.base = (int64_t)base;
    }
    if (R->mode == MODE_INSTANCE) place.worker = (R->w->duplicate_worker_ids && k == 1) ? 0 : k;
    place.range_size = R->w->range_size;
    place.dir = R->dir;
    place.name = R->counter_name;               /* a counter service: this run's own */
    idb_harness_kv kv;
    int rc = idb_strategy_harness_kv(st, &place, NULL, 0, &kv, R->err);
    if (rc) return rc;
    if (g->inst) st->destroy(g->inst);
    g->inst = NULL;
    g->has_last = 0;
    return idb_strategy_create_kv(st, kv.kv, kv.n, &g->clock, &g->inst, R->err);
}

/* Set up generator k's clock (at the start, or when shard k is added at time t). */
static void init_gen_clock(run *R, int k, int64_t t)
{
    gen *g = &R->g[k];
    g->clk = R->mode == MODE_INSTANCE ? k : -1;
    g->busy_until = t;
    idb_clock_manual_init(&g->clock, 0);
    idb_clock_set_ns(&g->clock, local_ns(R, g, t));
}

/* Apply event e at true time t: shops move; per-shard strategies gain shard K. */
static int apply_event(run *R, const sim_event *e, uint16_t *home, int64_t t)
{
    if (e->kind == SIM_EV_MIGRATE) {
        home[e->shop] = e->dest;
        return 0;
    }
    for (int64_t i = 0; i < R->s->shops; i++)
        if (e->moves[i] != SIM_NO_MOVE) home[i] = e->moves[i];
    int k = R->shards++;
    if (R->mode != MODE_SHARD) return 0;
    if (R->uses_server) sim_server_begin(&R->counter, t);   /* create() may ask it */
    init_gen_clock(R, k, t);
    R->ngen = R->shards;
    if (declares(R->st, "shards")) {           /* re-allocate every shard: naive or safe */
        uint64_t base = R->w->reconfig_safe ? R->max_issued : 0;
        for (int j = 0; j < R->shards; j++) {
            int64_t busy = R->g[j].busy_until;
            int rc = make_gen(R, j, base);
            if (rc) return rc;
            R->g[j].busy_until = busy;
        }
        return 0;
    }
    return make_gen(R, k, 0);
}

/* Ask generator g for an ID at true time *t, waiting out IDB_ECLOCK. On success *t is
 * the creation time. Returns 0, IDB_EUNAVAIL (a failed order) or another IDB_E* code. */
static int take_id(run *R, gen *g, int64_t *t, idb_id *id, double *stalled_ns, int *stalled)
{
    idb_err e;                          /* not zeroed whole: 272 bytes an order */
    e.code = 0;
    e.behind_ms = 0;
    e.msg[0] = 0;
    for (int tries = 0;; tries++) {
        set_clock(R, g, *t);
        int64_t before = atomic_load(&g->clock.waited_ns);
        int rc = R->st->next(g->inst, id, &e);
        int64_t waited = atomic_load(&g->clock.waited_ns) - before;
        if (waited > 0) { *t += waited; *stalled_ns += (double)waited; *stalled = 1; }
        if (rc == 0 || rc == IDB_EUNAVAIL) return rc;
        if (rc != IDB_ECLOCK || tries == SIM_MAX_RETRIES)
            return idb_fail(R->err, rc, "strategy %s: %s", R->st->name, e.msg);
        int64_t wait = e.behind_ms > 0 ? e.behind_ms * 1000000 : 100000;
        *t += wait;
        *stalled_ns += (double)wait;
        *stalled = 1;
    }
}

/* Per-order records of the successful orders, one column each. */
typedef struct recs {
    int64_t *t;                         /* creation time */
    uint8_t *key;                       /* the ID, key_bytes each (see sim_metrics_cols) */
    size_t key_bytes;
    int key_u64;                        /* 1: native uint64_t keys (8-byte IDs) */
    uint16_t *shard_c, *shard_f;        /* created on, lives on at the end */
    uint32_t *shop;                     /* the order's shop (then the metrics' scratch) */
    int64_t *lat;                       /* the non-zero coordination latencies (ns) */
    int64_t nlat, lat_cap;
} recs;

/* Allocate records for n orders (at least one) of IDs of id_bytes. Returns 0 or -1 (out
 * of memory; what was allocated is for recs_free). */
static int recs_alloc(recs *x, int64_t n, int id_bytes)
{
    size_t k = (size_t)(n > 0 ? n : 1);
    x->key_bytes = (size_t)id_bytes;
    x->key_u64 = id_bytes == (int)sizeof(uint64_t);
    x->t = sim_huge_alloc(k * sizeof *x->t);
    x->key = sim_huge_alloc(k * x->key_bytes);
    x->shard_c = sim_huge_alloc(k * sizeof *x->shard_c);
    x->shop = sim_huge_alloc(k * sizeof *x->shop);
    return x->t && x->key && x->shard_c && x->shop ? 0 : -1;
}

/* Free the records (those the metrics have not taken). */
static void recs_free(recs *x)
{
    free(x->t); free(x->key); free(x->shard_c); free(x->shard_f); free(x->shop); free(x->lat);
}

/* Store record m: creation time t, ID id (of the records' width), shard, shop. Returns 0,
 * or IDB_EINPUT when the ID is not as wide as the strategy declares. */
static int recs_put(run *R, recs *x, int64_t m, int64_t t, const idb_id *id, uint16_t shard,
                    uint32_t shop)
{
    if ((size_t)id->len != x->key_bytes)
        return idb_fail(R->err, IDB_EINPUT, "strategy %s gave a %d-byte ID (it declares %d "
                        "bits)", R->st->name, id->len, R->st->bits);
    uint8_t *k = x->key + (size_t)m * x->key_bytes;
    if (x->key_u64) {
        uint64_t v = idb_id_u64(id);
        memcpy(k, &v, sizeof v);
    } else {
        memcpy(k, id->b, x->key_bytes);
    }
    x->t[m] = t;
    x->shard_c[m] = shard;
    x->shop[m] = shop;
    return 0;
}

/* Keep latency lat (ns) when it is not 0. Returns 0 or -1 (out of memory). */
static int recs_lat(recs *x, int64_t lat)
{
    if (lat == 0) return 0;
    if (x->nlat == x->lat_cap) {
        int64_t cap = x->lat_cap + x->lat_cap / 2 + LAT_CHUNK;
        int64_t *v = realloc(x->lat, (size_t)cap * sizeof *v);
        if (!v) return -1;
        x->lat = v;
        x->lat_cap = cap;
    }
    x->lat[x->nlat++] = lat;
    return 0;
}

/* 1 if id is prev + 1 (big-endian, same width): the next ID of the same range. */
static int id_follows(const idb_id *prev, const idb_id *id)
{
    if (prev->len != id->len) return 0;
    int i = id->len - 1;
    while (i >= 0 && id->b[i] == 0 && prev->b[i] == 0xFF) i--;    /* the carry */
    if (i < 0 || id->b[i] != (uint8_t)(prev->b[i] + 1)) return 0;
    return memcmp(id->b, prev->b, (size_t)i) == 0;
}

/* The k-th smallest in place (select_kth.h). */
SIM_SELECT_KTH(select_kth, int64_t)

/* Coordination latency p50, p99 and max (ms) over the m records (nearest rank; most
 * latencies are 0 for most strategies, so only the nz others are kept, and the ranks are
 * selected among them in place). */
static void coord_percentiles(int64_t *v, int64_t nz, int64_t m, sim_result *r)
{
    static const double q[2] = { 0.50, 0.99 };
    double *out[2] = { &r->coord_lat_p50_ms, &r->coord_lat_p99_ms };
    int64_t from = 0;                   /* v[from..nz) holds the ranks not selected yet */
    for (int k = 0; k < 2; k++) {
        int64_t need = (int64_t)(q[k] * (double)m + 0.999999999), zeros = m - nz;
        if (need < 1) need = 1;
        if (need <= zeros || nz == 0) { *out[k] = 0; continue; }
        int64_t at = need - zeros - 1;
        if (at >= from) {
            select_kth(v + from, nz - from, at - from);
            from = at;
        }
        *out[k] = (double)v[at] / 1e6;
    }
    int64_t max = 0;
    for (int64_t i = 0; i < nz; i++) max = v[i] > max ? v[i] : max;
    r->coord_lat_max_ms = (double)max / 1e6;
}

/* One order of the stream as the cursor gives it. */
typedef struct order {
    int64_t j;                          /* its number in the stream */
    int64_t t;                          /* arrival (true ns) */
    uint32_t shop;
    uint16_t inst;
} order;

/* Order od (the event loop has run): its generator, its ID, its record. Returns 0 (the order
 * got an ID or failed) or an IDB_E* code. */
static int one_order(run *R, const order *od, uint16_t *home, recs *x, int64_t *m,
                     double *stalled_ns, sim_result *r, const sim_run_opts *o)
{
    int64_t j = od->j, t = od->t;
    int per_id = R->st->coord == IDB_COORD_PER_ID;
    uint16_t shard = home[od->shop];
    gen *g = &R->g[R->mode == MODE_CENTRAL ? 0 : R->mode == MODE_SHARD ? shard : od->inst];
    if (t < g->busy_until) t = g->busy_until;
    int64_t sent = t;
    idb_id id = { 0 };
    int failed = 0, stalled = 0;
    if (R->uses_server) sim_server_begin(&R->counter, t);
    int rc = take_id(R, g, &t, &id, stalled_ns, &stalled);
    if (rc == IDB_EUNAVAIL) failed = 1;     /* e.g. the counter server is down */
    else if (rc) return rc;
    r->stalls += stalled;
    if (o && o->ids_out) { o->ids_out[j] = id; if (failed) o->ids_out[j].len = 0; }
    if (o && o->timeline) {
        int64_t sec = od->t / 1000000000;
        if (sec < r->timeline_n) { r->tl_orders[sec]++; r->tl_failed[sec] += failed; }
    }
    if (failed) { r->failed_orders++; return 0; }
    if (R->smp && sim_router_sampled(j, R->smp->every) && R->smp->n < 2 * SIM_SAMPLE_MAX)
        R->smp->v[R->smp->n++] = sim_router_key(&R->router, id.b, id.len);
    int64_t range = -1;
    uint16_t place = R->routed ? (uint16_t)sim_router_route(&R->router, &id, &range) : shard;
    int64_t lat = R->uses_server ? R->counter.lat_ns : 0;
    if (per_id) t += lat;                   /* the order waits for its round trip */
    g->busy_until = per_id ? sent : t;      /* the server, not the caller, serialises */
    if (R->st->coord == IDB_COORD_PER_RANGE && (!g->has_last || !id_follows(&g->last, &id))) {
        r->leases++;
        if (!R->uses_server) lat = (int64_t)(R->w->lease_rtt_ms * 1e6);
    }
    g->last = id;
    g->has_last = 1;
    if (id.len == 8 && idb_id_u64(&id) > R->max_issued) R->max_issued = idb_id_u64(&id);
    if ((rc = recs_put(R, x, *m, t, &id, place, od->shop)) != 0) return rc;
    if (recs_lat(x, lat) != 0) return idb_fail(R->err, IDB_ENOMEM, "out of memory for latencies");
    if (o && o->created_out) o->created_out[j] = t;
    (*m)++;
    if (sim_router_over(&R->router, range) &&
        (rc = sim_router_split(&R->router, range, x->key, x->key_bytes, x->key_u64, *m,
                               R->err)) != 0)
        return rc;
    sim_shares_add(&R->shares, od->t / 1000000000, place, R->router.n);
    return 0;
}

/* After the last order: where each order lives at the end (its shop's final home), the
 * moved orders, the latency percentiles; frees what the metrics do not need. Returns 0 or
 * IDB_ENOMEM. */
static int play_end(run *R, recs *x, int64_t m, const uint16_t *home, sim_result *r)
{
    coord_percentiles(x->lat, x->nlat, m, r);
    free(x->lat);                            /* done with: lower the peak of the metrics */
    x->lat = NULL;
    size_t fb = (size_t)(m > 0 ? m : 1) * sizeof *x->shard_f;
    x->shard_f = sim_huge_alloc(fb);
    if (!x->shard_f) return idb_fail(R->err, IDB_ENOMEM, "out of memory for %lld orders",
                                     (long long)m);
    for (int64_t i = 0; i < m; i++) x->shard_f[i] = home[x->shop[i]];
    if (R->routed && R->router.routing == SIM_ROUTE_RANGE)     /* where its range is now */
        for (int64_t i = 0; i < m; i++)
            x->shard_f[i] = (uint16_t)sim_router_owner(&R->router, sim_router_key_at(
                &R->router, x->key, x->key_bytes, x->key_u64, i));
    else if (R->routed)
        memcpy(x->shard_f, x->shard_c, (size_t)m * sizeof *x->shard_f);
    for (int64_t i = 0; i < m; i++) r->moved_orders += x->shard_f[i] != x->shard_c[i];
    r->server_served = R->counter.served;
    r->server_refused_full = R->counter.refused_full;
    return 0;
}

/* Play every order; fill r's counts and the records. Returns 0 or an IDB_E* code. */
static int play(run *R, recs *x, int64_t *m_out, sim_result *r, const sim_run_opts *o,
                uint16_t *home)
{
    const sim_workload *w = R->w;
    const sim_stream *s = R->s;
    int64_t out0 = (int64_t)(w->outage_start_s * 1e9);
    int64_t out1 = (int64_t)((w->outage_start_s + w->outage_s) * 1e9);
    int64_t m = 0;
    double stalled_ns = 0;
    int next_ev = 0, rc = 0;
    sim_cursor cur;
    if ((rc = sim_cursor_open(&cur, s, R->err)) != 0) return rc;
    order od = { 0 };
    for (; rc == 0 && sim_cursor_next(&cur, &od.t, &od.shop, &od.inst); od.j++) {
        while (rc == 0 && next_ev < s->nevents && s->ev[next_ev].t_ns <= od.t)
            rc = apply_event(R, &s->ev[next_ev++], home, od.t);
        if (rc) break;
        r->outage_orders += w->outage_s > 0 && od.t >= out0 && od.t < out1;
        rc = one_order(R, &od, home, x, &m, &stalled_ns, r, o);
    }
    sim_cursor_close(&cur);
    if (rc) return rc;
    r->stalled_ms = stalled_ns / 1e6;
    *m_out = m;
    return play_end(R, x, m, home, r);
}

/* Seconds of clock id (CLOCK_MONOTONIC for wall time, CLOCK_THREAD_CPUTIME_ID for CPU). */
static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* FNV-1a of a name, to give each strategy its own random stream. */
static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) { h ^= (unsigned char)*s; h *= 1099511628211ULL; }
    return h;
}

/* Fill r's metrics from the m records of a played run, handing the columns to the
 * metrics (which free them). Returns 0 or IDB_ENOMEM. */
static int measure(recs *x, int64_t m, int nshards, const sim_run_opts *opts, sim_result *r,
                   idb_err *err)
{
    sim_metrics_cols c = { .m = m, .t_ns = x->t, .keys = x->key, .key_bytes = x->key_bytes,
                           .key_u64 = x->key_u64, .shard_c = x->shard_c,
                           .shard_f = x->shard_f, .scratch = x->shop, .nshards = nshards,
                           .locality = opts && opts->locality };
    x->t = NULL, x->key = NULL, x->shard_c = x->shard_f = NULL, x->shop = NULL;
    sim_metrics_out mo;
    if (sim_metrics_take(&c, &mo) != 0) return idb_fail(err, IDB_ENOMEM, "out of memory measuring");
    r->duplicates = mo.duplicates;
    r->inversions = mo.inversions;
    r->inversion_frac = mo.inversion_frac;
    r->max_inversion_gap_ms = mo.max_inversion_gap_ns / 1e6;
    r->shard_monotonic = mo.shard_monotonic;
    r->final_monotonic = mo.final_monotonic;
    r->tail_insert_frac = mo.tail_insert_frac;
    r->shard_collisions = mo.shard_collisions;
    r->insert_pos_p50 = mo.insert_pos_p50;
    r->insert_last5_frac = mo.insert_last5_frac;
    return 0;
}

/* Set up where run R stores its orders and the shares it counts: the router for the
 * workload's routing (none in the sampling pass, R->smp), bounds the split points of
 * range_split = sample. Returns 0 or IDB_ENOMEM. */
static int routing_begin(run *R, const sim_run_opts *opts, const uint64_t *bounds)
{
    sim_workload rw = *R->w;
    rw.shards = R->s->shards;
    R->routed = !R->smp && rw.routing != SIM_ROUTE_SHOP;
    if (!R->routed) rw.routing = SIM_ROUTE_SHOP;
    int rc = sim_router_init(&R->router, &rw, R->st, bounds, R->err);
    if (rc) return rc;
    int slots = R->s->shards;
    for (int i = 0; i < R->s->nevents; i++) slots += R->s->ev[i].kind == SIM_EV_ADD_SHARD;
    int64_t secs = (R->s->duration_ns + 999999999) / 1000000000;
    return sim_shares_init(&R->shares, slots, secs, opts && opts->timeline, R->err);
}

/* After the last order: the routing figures into r (the timeline's arrays handed over). */
static void routing_end(run *R, sim_result *r)
{
    int range = R->routed && R->router.routing == SIM_ROUTE_RANGE;
    sim_shares_end(&R->shares, &r->hot_share, &r->hot_share_p99);
    r->routing = (int)R->w->routing;
    r->range_split = (int)R->w->range_split;
    r->shards = R->shards;
    r->range_splits = range && R->w->range_max_rows > 0 ? R->router.splits : -1;
    r->ranges = range ? R->router.n : 0;
    if (R->shares.tl) {
        r->tl_shards = R->shares.shards;
        r->tl_shard = R->shares.tl;
        r->tl_ranges = R->shares.tl_ranges;
        R->shares.tl = NULL;
        R->shares.tl_ranges = NULL;
    }
}

/* One pass over the stream (see sim_run): the sampling pass when smp is not NULL (no
 * routing, no metrics), else the run itself, routed with the split points bounds (NULL:
 * equal slices). Returns as sim_run. */
static int run_pass(const sim_workload *w, const sim_stream *s, const idb_strategy *st,
                    const sim_run_opts *opts, sim_result *r, sampler *smp,
                    const uint64_t *bounds, idb_err *err)
{
    memset(r, 0, sizeof *r);
    r->workload = w->name;
    r->strategy = st->name;
    r->orders = s->n;
    r->id_bytes = st->bits / 8;
    run R = { .w = w, .s = s, .st = st, .shards = s->shards, .smp = smp, .err = err };
    int slot = opts ? opts->slot : 0;
    if (slot) snprintf(R.counter_name, sizeof R.counter_name, "%s-%d", SIM_COUNTER_NAME, slot);
    else snprintf(R.counter_name, sizeof R.counter_name, "%s", SIM_COUNTER_NAME);
    R.mode = st->coord == IDB_COORD_PER_ID ? MODE_CENTRAL
           : (declares(st, "shard") || declares(st, "shards")) ? MODE_SHARD : MODE_INSTANCE;
    int maxgen = R.mode == MODE_CENTRAL ? 1
               : R.mode == MODE_SHARD ? s->shards + 1 : s->instances;
    recs x = { 0 };
    int recs_ok = recs_alloc(&x, s->n, st->bits / 8) == 0;
    uint16_t *home = malloc((size_t)s->shops * sizeof *home);
    R.g = calloc((size_t)maxgen, sizeof *R.g);
    int rc = 0;
    if (!recs_ok || !home || !R.g) {
        rc = idb_fail(err, IDB_ENOMEM, "out of memory for %lld orders", (long long)s->n);
        goto done;
    }
    memcpy(home, s->home, (size_t)s->shops * sizeof *home);
    if (opts && opts->timeline) {
        r->timeline_n = (s->duration_ns + 999999999) / 1000000000;
        r->tl_orders = calloc((size_t)r->timeline_n + 1, sizeof *r->tl_orders);
        r->tl_failed = calloc((size_t)r->timeline_n + 1, sizeof *r->tl_failed);
        if (!r->tl_orders || !r->tl_failed) {
            rc = idb_fail(err, IDB_ENOMEM, "out of memory");
            goto done;
        }
    }
    if ((rc = routing_begin(&R, opts, bounds)) != 0) goto done;
    if (declares(st, "dir") && tmpdir_make(R.dir, sizeof R.dir) != 0) {
        R.dir[0] = 0;
        rc = idb_fail(err, IDB_EIO, "cannot make a temporary directory for strategy %s", st->name);
        goto done;
    }
    if (declares(st, "name")) {                /* a fresh counter server for this run */
        if ((rc = sim_server_init(&R.counter, w, R.counter_name, err))) goto done;
        R.uses_server = 1;
    }
    idb_random_seed(w->seed ^ fnv(st->name));
    R.ngen = R.mode == MODE_CENTRAL ? 1 : R.mode == MODE_SHARD ? s->shards : s->instances;
    if (R.uses_server) sim_server_begin(&R.counter, 0);
    for (int k = 0; k < R.ngen; k++) {
        init_gen_clock(&R, k, 0);
        if ((rc = make_gen(&R, k, 0))) goto done;
    }
    int64_t m = 0;
    if ((rc = play(&R, &x, &m, r, opts, home))) goto done;
    routing_end(&R, r);
    if (!smp) rc = measure(&x, m, R.shards, opts, r, err);
done:
    if (R.g)
        for (int k = 0; k < maxgen; k++)
            if (R.g[k].inst) st->destroy(R.g[k].inst);
    free(R.g);
    sim_server_free(&R.counter, R.counter_name);
    if (R.dir[0]) tmpdir_remove(R.dir);
    sim_router_free(&R.router);
    sim_shares_free(&R.shares, 0);
    recs_free(&x);
    free(home);
    if (rc) sim_result_free(r);
    return rc;
}

/* range_split = sample: play the stream once unrouted, keeping the routing keys of one order
 * in every (sim_router_sampled: about SIM_SAMPLE_MAX), and put the shards - 1 split points at
 * their quantiles into bounds. Returns 0 or an IDB_E* code. */
static int sample_bounds(const sim_workload *w, const sim_stream *s, const idb_strategy *st,
                         uint64_t *bounds, idb_err *err)
{
    sampler smp = { .every = s->n / SIM_SAMPLE_MAX + 1 };
    smp.v = malloc(2 * SIM_SAMPLE_MAX * sizeof *smp.v);         /* about half of it used */
    if (!smp.v) return idb_fail(err, IDB_ENOMEM, "out of memory for the sample of IDs");
    sim_result pre;
    int rc = run_pass(w, s, st, NULL, &pre, &smp, NULL, err);
    if (rc == 0) {
        sim_router_bounds(smp.v, smp.n, s->shards, bounds);
        sim_result_free(&pre);
    }
    free(smp.v);
    return rc;
}

/* See sim.h. */
int sim_run(const sim_workload *w, const sim_stream *s, const idb_strategy *st,
            const sim_run_opts *opts, sim_result *r, idb_err *err)
{
    double start = clock_s(CLOCK_MONOTONIC), cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    if (opts && (opts->slot < 0 || opts->slot >= SIM_SLOTS)) {
        memset(r, 0, sizeof *r);
        return idb_fail(err, IDB_EINPUT, "simulator slot %d is not in 0..%d", opts->slot,
                        SIM_SLOTS - 1);
    }
#ifdef __GLIBC__
    /* columns go to their own mappings, given back when freed: glibc would otherwise raise
     * its threshold after the first large free and put the next columns on the heap, whose
     * freed middle stays resident (the peak of a second strategy grew by ~12 B an order) */
    mallopt(M_MMAP_THRESHOLD, SIM_MMAP_THRESHOLD);
#endif
    uint64_t bounds[SIM_MAX_SHARDS];
    int rc = 0, sample = w->routing == SIM_ROUTE_RANGE && w->range_split == SIM_SPLIT_SAMPLE;
    if (sample) rc = sample_bounds(w, s, st, bounds, err);
    if (rc == 0) rc = run_pass(w, s, st, opts, r, NULL, sample ? bounds : NULL, err);
    else memset(r, 0, sizeof *r);
    r->wall_s = clock_s(CLOCK_MONOTONIC) - start;
    r->cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    return rc;
}

/* Free the timeline arrays; the rest of a result is plain values (see sim.h). */
void sim_result_free(sim_result *r)
{
    free(r->tl_orders);
    free(r->tl_failed);
    free(r->tl_shard);
    free(r->tl_ranges);
    r->tl_orders = r->tl_failed = NULL;
    r->tl_shard = NULL;
    r->tl_ranges = NULL;
    r->timeline_n = 0;
}
