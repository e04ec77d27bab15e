/* sim_stream.c — turning a workload into the order stream every strategy is played
 * against: Poisson arrivals with a burst, Zipf shops, instances, shop homes, clock errors
 * and scheduled events (see sim.h for the model). Each concern draws from its own seeded
 * generator, so changing one key (say skew_ms) leaves the others' draws alone. A stream
 * is generated as it is read (sim_cursor), or stored once for callers reading its arrays:
 * both come from the one generator below, so they are the same orders.
 */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "random.h"
#include "zipf.h"

/* Free and zero the per-order arrays and the per-shop/instance ones. */
void sim_stream_free(sim_stream *s)
{
    free(s->t_ns);
    free(s->shop);
    free(s->inst);
    free(s->home);
    free(s->offset_ns);
    free(s->drift_ppm);
    for (int i = 0; i < s->nevents; i++) free(s->ev[i].moves);
    memset(s, 0, sizeof *s);
}

/* Resize the per-order arrays to cap entries. Returns 0 or -1 (s unchanged on failure). */
static int grow(sim_stream *s, int64_t cap)
{
    int64_t *t = realloc(s->t_ns, (size_t)cap * sizeof *t);
    if (!t) return -1;
    s->t_ns = t;
    uint32_t *shop = realloc(s->shop, (size_t)cap * sizeof *shop);
    if (!shop) return -1;
    s->shop = shop;
    uint16_t *inst = realloc(s->inst, (size_t)cap * sizeof *inst);
    if (!inst) return -1;
    s->inst = inst;
    s->cap = cap;
    return 0;
}

/* Allocate the per-shop and per-instance arrays of an empty stream. Returns 0 or -1. */
static int alloc_header(sim_stream *s, int64_t shops, int shards, int instances,
                        double duration_s)
{
    memset(s, 0, sizeof *s);
    s->shops = shops;
    s->shards = shards;
    s->instances = instances;
    s->duration_ns = (int64_t)llround(duration_s * 1e9);
    s->home = calloc((size_t)shops, sizeof *s->home);
    s->offset_ns = calloc((size_t)instances, sizeof *s->offset_ns);
    s->drift_ppm = calloc((size_t)instances, sizeof *s->drift_ppm);
    return s->home && s->offset_ns && s->drift_ppm ? 0 : -1;
}

/* Header, then zeroed arrays for n orders (see sim.h). */
int sim_stream_alloc(sim_stream *s, int64_t n, int64_t shops, int shards, int instances,
                     double duration_s, idb_err *err)
{
    if (alloc_header(s, shops, shards, instances, duration_s) != 0 ||
        grow(s, n > 0 ? n : 1) != 0) {
        sim_stream_free(s);
        return idb_fail(err, IDB_ENOMEM, "out of memory for %lld orders", (long long)n);
    }
    memset(s->t_ns, 0, (size_t)s->cap * sizeof *s->t_ns);
    memset(s->shop, 0, (size_t)s->cap * sizeof *s->shop);
    memset(s->inst, 0, (size_t)s->cap * sizeof *s->inst);
    s->n = n;
    return 0;
}

/* Seed r from the workload seed and a purpose tag (one stream per concern). */
static void sub_rng(idb_rng *r, uint64_t seed, uint64_t tag)
{
    idb_rng_seed(r, seed ^ (tag * 0x9E3779B97F4A7C15ULL));
}

/* Next arrival after t (ns, as double) of a Poisson process whose rate is `rate` per s,
 * times `factor` in [b0, b1): the exact inverse of the integrated rate. */
static double next_arrival(idb_rng *r, double t, double rate, double factor, double b0, double b1)
{
    double need = -log1p(-idb_rng_double(r));   /* Exp(1) of integrated rate (per ns units) */
    for (;;) {
        double lam = rate * 1e-9 * ((t >= b0 && t < b1) ? factor : 1.0);
        double edge = t < b0 ? b0 : (t < b1 ? b1 : INFINITY);
        if (t + need / lam <= edge) return t + need / lam;
        need -= (edge - t) * lam;
        t = edge;
    }
}

/* Deal shops to shards: a seeded shuffle, then round robin. */
static void deal_shops(sim_stream *s, idb_rng *r)
{
    uint32_t *perm = malloc((size_t)s->shops * sizeof *perm);
    if (!perm) {                                 /* fall back to plain round robin */
        for (int64_t i = 0; i < s->shops; i++) s->home[i] = (uint16_t)(i % s->shards);
        return;
    }
    for (int64_t i = 0; i < s->shops; i++) perm[i] = (uint32_t)i;
    for (int64_t i = s->shops - 1; i > 0; i--) {
        int64_t j = (int64_t)idb_rng_below(r, (uint64_t)i + 1);
        uint32_t x = perm[i]; perm[i] = perm[j]; perm[j] = x;
    }
    for (int64_t i = 0; i < s->shops; i++) s->home[perm[i]] = (uint16_t)(i % s->shards);
    free(perm);
}

/* Schedule the workload's events in time order (migrate, add shard). Returns 0 or -1. */
static int make_events(const sim_workload *w, sim_stream *s, idb_rng *r)
{
    int mig = w->migrate_shop_at_s != SIM_OFF, add = w->add_shard_at_s != SIM_OFF;
    int add_first = add && (!mig || w->add_shard_at_s <= w->migrate_shop_at_s);
    for (int pass = 0; pass < 2; pass++) {
        int is_add = (pass == 0) == add_first;
        if (is_add ? !add : !mig) continue;
        sim_event *e = &s->ev[s->nevents++];
        memset(e, 0, sizeof *e);
        int shards_then = s->shards + (!is_add && add && add_first ? 1 : 0);
        if (is_add) {
            e->kind = SIM_EV_ADD_SHARD;
            e->t_ns = (int64_t)llround(w->add_shard_at_s * 1e9);
            e->moves = malloc((size_t)s->shops * sizeof *e->moves);
            if (!e->moves) return -1;
            for (int64_t i = 0; i < s->shops; i++)
                e->moves[i] = idb_rng_below(r, (uint64_t)shards_then + 1) == 0
                                  ? (uint16_t)shards_then : SIM_NO_MOVE;
        } else {
            e->kind = SIM_EV_MIGRATE;
            e->t_ns = (int64_t)llround(w->migrate_shop_at_s * 1e9);
            e->shop = 0;
            /* where shop 0 lives then: its home, unless an earlier add-shard moved it */
            uint16_t from = s->home[0];
            if (s->nevents == 2 && s->ev[0].moves && s->ev[0].moves[0] != SIM_NO_MOVE)
                from = s->ev[0].moves[0];
            uint64_t hop = 1 + idb_rng_below(r, (uint64_t)shards_then - 1);   /* not its own */
            e->dest = (uint16_t)((from + hop) % shards_then);
        }
    }
    return 0;
}

/* The sub-generators of the orders: arrivals, shops, instances (see sub_rng). */
enum { TAG_ARRIVAL = 1, TAG_SHOP, TAG_INSTANCE, TAG_HOME, TAG_CLOCK, TAG_EVENT };

/* Next arrival of s's Poisson process after t (ns, as drawn; see next_arrival). */
static double stream_next_arrival(const sim_stream *s, idb_rng *r, double t)
{
    return next_arrival(r, t, s->orders_per_s, s->burst_factor, s->burst_b0, s->burst_b1);
}

/* Shops, clocks, events, then the arrivals counted (see sim.h). */
int sim_stream_open(const sim_workload *w, sim_stream *s, idb_err *err)
{
    if (alloc_header(s, w->shops, (int)w->shards, (int)w->instances, w->duration_s) != 0)
        goto oom;
    s->seed = w->seed;
    s->orders_per_s = w->orders_per_s;
    s->shop_skew = w->shop_skew;
    s->burst_factor = w->burst_factor;
    s->burst_b0 = w->burst_at_s * 1e9;
    s->burst_b1 = (w->burst_at_s + w->burst_s) * 1e9;

    idb_rng r_arr, r_home, r_clock, r_ev;
    sub_rng(&r_home, w->seed, TAG_HOME);
    sub_rng(&r_clock, w->seed, TAG_CLOCK);
    sub_rng(&r_ev, w->seed, TAG_EVENT);
    deal_shops(s, &r_home);
    for (int i = 0; i < s->instances; i++) {
        s->offset_ns[i] = (int64_t)llround((2 * idb_rng_double(&r_clock) - 1) * w->skew_ms * 1e6);
        s->drift_ppm[i] = (2 * idb_rng_double(&r_clock) - 1) * w->drift_ppm;
    }
    if (make_events(w, s, &r_ev) != 0) goto oom;

    /* count the orders: the arrival times alone, from their own generator */
    sub_rng(&r_arr, w->seed, TAG_ARRIVAL);
    double end = (double)s->duration_ns;
    for (double t = stream_next_arrival(s, &r_arr, 0); t < end;
         t = stream_next_arrival(s, &r_arr, t))
        s->n++;
    return 0;
oom:
    sim_stream_free(s);
    return idb_fail(err, IDB_ENOMEM, "out of memory for the stream of workload %s", w->name);
}

/* The generated stream, then every order read into the arrays (see sim.h). */
int sim_stream_make(const sim_workload *w, sim_stream *s, idb_err *err)
{
    int rc = sim_stream_open(w, s, err);
    if (rc) return rc;
    sim_cursor c;                              /* opened while s is still generated */
    if ((rc = sim_cursor_open(&c, s, err)) != 0) {
        sim_stream_free(s);
        return rc;
    }
    if (grow(s, s->n > 0 ? s->n : 1) != 0) {
        sim_cursor_close(&c);
        sim_stream_free(s);
        return idb_fail(err, IDB_ENOMEM, "out of memory for %lld orders", (long long)c.n);
    }
    for (int64_t j = 0; sim_cursor_next(&c, &s->t_ns[j], &s->shop[j], &s->inst[j]); j++) {}
    sim_cursor_close(&c);
    return 0;
}

/* Stored: read the arrays; generated: the three generators of the orders (see sim.h). */
int sim_cursor_open(sim_cursor *c, const sim_stream *s, idb_err *err)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->n = s->n;
    c->stored = s->t_ns != NULL;
    if (c->stored) return 0;
    sub_rng(&c->r_arr, s->seed, TAG_ARRIVAL);
    sub_rng(&c->r_shop, s->seed, TAG_SHOP);
    sub_rng(&c->r_inst, s->seed, TAG_INSTANCE);
    if (idb_zipf_init(&c->zipf, s->shops, s->shop_skew) != 0)
        return idb_fail(err, IDB_ENOMEM, "out of memory for %lld shops", (long long)s->shops);
    c->burst_extra = (s->burst_factor - 1) / s->burst_factor;
    return 0;
}

/* One order, read or drawn (see sim.h). */
int sim_cursor_next(sim_cursor *c, int64_t *t_ns, uint32_t *shop, uint16_t *inst)
{
    const sim_stream *s = c->s;
    if (c->j >= c->n) return 0;
    int64_t j = c->j++;
    if (c->stored) {
        *t_ns = s->t_ns[j];
        *shop = s->shop[j];
        *inst = s->inst[j];
        return 1;
    }
    /* generated: each order's draws, each from its own generator (as counted at open) */
    double t = stream_next_arrival(s, &c->r_arr, c->t);
    c->t = t;
    *t_ns = (int64_t)t;
    *shop = (uint32_t)idb_zipf_draw(&c->zipf, &c->r_shop);
    double u = idb_rng_double(&c->r_inst);
    uint64_t pick = idb_rng_below(&c->r_inst, (uint64_t)s->instances);
    *inst = (uint16_t)((t >= s->burst_b0 && t < s->burst_b1 && u < c->burst_extra) ? 0 : pick);
    return 1;
}

/* Free the Zipf table (see sim.h). */
void sim_cursor_close(sim_cursor *c)
{
    idb_zipf_free(&c->zipf);
}
