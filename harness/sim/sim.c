/* sim.c — playing an order stream against one strategy's real code (model: sim.h).
 *
 * The run keeps one generator per strategy instance (central, per shard or per API
 * instance), each with its own manual clock, a busy-until time and its last ID. Orders
 * are played in arrival order; events are applied when the first order at or after their
 * time arrives. Per-order records go into arrays sized once from the stream (no
 * allocation per order); sim_metrics() measures them afterwards.
 */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counter_service.h"
#include "harness_kv.h"
#include "locality.h"
#include "random.h"
#include "sim_metrics.h"
#include "sim_server.h"
#include "tmpdir.h"

#define SIM_COUNTER_NAME "idbench-sim"
#define SIM_MAX_RETRIES 100000          /* ECLOCK retries of one order before giving up */

enum gen_mode { MODE_CENTRAL, MODE_SHARD, MODE_INSTANCE };

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
    idb_err *err;
} run;

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
    place.name = SIM_COUNTER_NAME;               /* a counter service: this run's own */
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
    idb_err e = { 0 };
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

/* Per-order records of the successful orders. */
typedef struct recs {
    int64_t *t;                         /* creation time */
    idb_id *id;
    uint16_t *shard_c, *shard_f;        /* created on, lives on at the end */
    uint32_t *ord;                      /* the order's number in the stream */
    int64_t *lat;                       /* coordination latency (ns) */
} recs;

/* Allocate records for n orders (at least one). Returns 0 or -1 (out of memory; what was
 * allocated is for recs_free). */
static int recs_alloc(recs *x, int64_t n)
{
    size_t k = (size_t)(n > 0 ? n : 1);
    x->t = malloc(k * sizeof *x->t);
    x->id = malloc(k * sizeof *x->id);
    x->shard_c = malloc(k * sizeof *x->shard_c);
    x->shard_f = malloc(k * sizeof *x->shard_f);
    x->ord = malloc(k * sizeof *x->ord);
    x->lat = malloc(k * sizeof *x->lat);
    return x->t && x->id && x->shard_c && x->shard_f && x->ord && x->lat ? 0 : -1;
}

/* Free the records. */
static void recs_free(recs *x)
{
    free(x->t); free(x->id); free(x->shard_c); free(x->shard_f); free(x->ord); free(x->lat);
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

/* qsort order of int64_t. */
static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* Coordination latency p50, p99 and max (ms) over the m records (nearest rank; most
 * latencies are 0 for most strategies, so only the others are sorted). Returns 0 or -1
 * when out of memory. */
static int coord_percentiles(const recs *x, int64_t m, sim_result *r)
{
    int64_t nz = 0;
    for (int64_t i = 0; i < m; i++) nz += x->lat[i] != 0;
    int64_t *v = malloc((size_t)(nz ? nz : 1) * sizeof *v);
    if (!v) return -1;
    nz = 0;
    for (int64_t i = 0; i < m; i++)
        if (x->lat[i]) v[nz++] = x->lat[i];
    qsort(v, (size_t)nz, sizeof *v, cmp_i64);
    static const double q[2] = { 0.50, 0.99 };
    double *out[2] = { &r->coord_lat_p50_ms, &r->coord_lat_p99_ms };
    for (int k = 0; k < 2; k++) {
        int64_t need = (int64_t)(q[k] * (double)m + 0.999999999), zeros = m - nz;
        if (need < 1) need = 1;
        *out[k] = need <= zeros || nz == 0 ? 0 : (double)v[need - zeros - 1] / 1e6;
    }
    r->coord_lat_max_ms = nz ? (double)v[nz - 1] / 1e6 : 0;
    free(v);
    return 0;
}

/* Order j of the stream, arrived at t (the event loop has run): its generator, its ID, its
 * record. Returns 0 (the order got an ID or failed) or an IDB_E* code. */
static int one_order(run *R, int64_t j, int64_t t, uint16_t *home, recs *x, int64_t *m,
                     double *stalled_ns, sim_result *r, const sim_run_opts *o)
{
    const sim_stream *s = R->s;
    int per_id = R->st->coord == IDB_COORD_PER_ID;
    uint16_t shard = home[s->shop[j]];
    gen *g = &R->g[R->mode == MODE_CENTRAL ? 0 : R->mode == MODE_SHARD ? shard : s->inst[j]];
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
        int64_t sec = s->t_ns[j] / 1000000000;
        if (sec < r->timeline_n) { r->tl_orders[sec]++; r->tl_failed[sec] += failed; }
    }
    if (failed) { r->failed_orders++; return 0; }
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
    x->t[*m] = t;
    x->id[*m] = id;
    x->shard_c[*m] = shard;
    x->ord[*m] = (uint32_t)j;
    x->lat[*m] = lat;
    if (o && o->created_out) o->created_out[j] = t;
    (*m)++;
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
    int next_ev = 0;
    for (int64_t j = 0; j < s->n; j++) {
        int64_t t = s->t_ns[j];
        while (next_ev < s->nevents && s->ev[next_ev].t_ns <= t) {
            int rc = apply_event(R, &s->ev[next_ev++], home, t);
            if (rc) return rc;
        }
        r->outage_orders += w->outage_s > 0 && t >= out0 && t < out1;
        int rc = one_order(R, j, t, home, x, &m, &stalled_ns, r, o);
        if (rc) return rc;
    }
    /* a shop's final home decides where its orders live at the end */
    for (int64_t i = 0; i < m; i++) x->shard_f[i] = home[s->shop[x->ord[i]]];
    for (int64_t i = 0; i < m; i++) r->moved_orders += x->shard_f[i] != x->shard_c[i];
    free(x->ord);                            /* done with: lower the peak of the metrics */
    x->ord = NULL;
    r->stalled_ms = stalled_ns / 1e6;
    r->server_served = R->counter.served;
    r->server_refused_full = R->counter.refused_full;
    *m_out = m;
    int pct = coord_percentiles(x, m, r);
    free(x->lat);                            /* done with: lower the peak of the metrics */
    x->lat = NULL;
    if (pct != 0) return idb_fail(R->err, IDB_ENOMEM, "out of memory for the latencies");
    return 0;
}

static const recs *sort_recs;          /* qsort context for by_shard_time */

/* qsort order of record indices: by creation shard, creation time, then ID. */
static int by_shard_time(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const recs *x = sort_recs;
    if (x->shard_c[a] != x->shard_c[b]) return x->shard_c[a] < x->shard_c[b] ? -1 : 1;
    if (x->t[a] != x->t[b]) return x->t[a] < x->t[b] ? -1 : 1;
    return idb_id_cmp(&x->id[a], &x->id[b]);
}

/* Median insert position of the m records and the share of inserts in the last 5% of
 * their index, each shard its own index fed in creation order (locality.h), into r (-1
 * when out of memory or there were no inserts). */
static void insert_positions(const recs *x, int64_t m, sim_result *r)
{
    _Static_assert(IDB_LOC_BUCKETS == 20, "the last locality bucket must be the last 5%");
    uint32_t *ix = malloc((size_t)m * sizeof *ix);
    idb_id *keys = malloc((size_t)m * sizeof *keys);
    idb_locality l;
    r->insert_pos_p50 = r->insert_last5_frac = -1;
    if (!ix || !keys || idb_locality_init(&l, m) != 0) goto out;
    for (int64_t i = 0; i < m; i++) ix[i] = (uint32_t)i;
    sort_recs = x;
    qsort(ix, (size_t)m, sizeof *ix, by_shard_time);
    for (int64_t i = 0; i < m; i++) keys[i] = x->id[ix[i]];
    int ok = 1;
    for (int64_t s = 0; s < m && ok;) {
        int64_t e = s;
        while (e < m && x->shard_c[ix[e]] == x->shard_c[ix[s]]) e++;
        ok = idb_locality_add(&l, keys + s, e - s) == 0;
        s = e;
    }
    if (ok && l.inserts > 0) {
        r->insert_pos_p50 = idb_locality_pos_p50(&l);
        r->insert_last5_frac = (double)l.hist[IDB_LOC_BUCKETS - 1] / (double)l.inserts;
    }
    idb_locality_free(&l);
out:
    free(ix);
    free(keys);
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

/* Fill r's metrics from the m records of a played run. Returns 0 or IDB_ENOMEM. */
static int measure(const recs *x, int64_t m, int nshards, const sim_run_opts *opts,
                   sim_result *r, idb_err *err)
{
    sim_metrics_in in = { .m = m, .t_ns = x->t, .ids = x->id, .shard_c = x->shard_c,
                          .shard_f = x->shard_f, .nshards = nshards };
    sim_metrics_out mo;
    if (sim_metrics(&in, &mo) != 0) return idb_fail(err, IDB_ENOMEM, "out of memory measuring");
    r->duplicates = mo.duplicates;
    r->inversions = mo.inversions;
    r->inversion_frac = mo.inversion_frac;
    r->max_inversion_gap_ms = mo.max_inversion_gap_ns / 1e6;
    r->shard_monotonic = mo.shard_monotonic;
    r->final_monotonic = mo.final_monotonic;
    r->tail_insert_frac = mo.tail_insert_frac;
    r->shard_collisions = mo.shard_collisions;
    r->insert_pos_p50 = r->insert_last5_frac = -1;
    if (opts && opts->locality) insert_positions(x, m, r);
    return 0;
}

/* See sim.h. */
int sim_run(const sim_workload *w, const sim_stream *s, const idb_strategy *st,
            const sim_run_opts *opts, sim_result *r, idb_err *err)
{
    double start = clock_s(CLOCK_MONOTONIC), cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    memset(r, 0, sizeof *r);
    r->workload = w->name;
    r->strategy = st->name;
    r->orders = s->n;
    r->id_bytes = st->bits / 8;
    run R = { .w = w, .s = s, .st = st, .shards = s->shards, .err = err };
    R.mode = st->coord == IDB_COORD_PER_ID ? MODE_CENTRAL
           : (declares(st, "shard") || declares(st, "shards")) ? MODE_SHARD : MODE_INSTANCE;
    int maxgen = R.mode == MODE_CENTRAL ? 1
               : R.mode == MODE_SHARD ? s->shards + 1 : s->instances;
    recs x = { 0 };
    int recs_ok = recs_alloc(&x, s->n) == 0;
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
    if (declares(st, "dir") && idb_tmpdir_make(R.dir, sizeof R.dir) != 0) {
        R.dir[0] = 0;
        rc = idb_fail(err, IDB_EIO, "cannot make a temporary directory for strategy %s", st->name);
        goto done;
    }
    if (declares(st, "name")) {                /* a fresh counter server for this run */
        if ((rc = sim_server_init(&R.counter, w, SIM_COUNTER_NAME, err))) goto done;
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
    rc = measure(&x, m, R.shards, opts, r, err);
done:
    if (R.g)
        for (int k = 0; k < maxgen; k++)
            if (R.g[k].inst) st->destroy(R.g[k].inst);
    free(R.g);
    sim_server_free(&R.counter, SIM_COUNTER_NAME);
    if (R.dir[0]) idb_tmpdir_remove(R.dir);
    recs_free(&x);
    free(home);
    if (rc) sim_result_free(r);
    r->wall_s = clock_s(CLOCK_MONOTONIC) - start;
    r->cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    return rc;
}

/* Free the timeline arrays; the rest of a result is plain values (see sim.h). */
void sim_result_free(sim_result *r)
{
    free(r->tl_orders);
    free(r->tl_failed);
    r->tl_orders = r->tl_failed = NULL;
    r->timeline_n = 0;
}
