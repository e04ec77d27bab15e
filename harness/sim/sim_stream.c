/* sim_stream.c — turning a workload into the order stream every strategy is played
 * against: Poisson arrivals with a burst, Zipf shops, instances, shop homes, clock errors
 * and scheduled events (see sim.h for the model). Each concern draws from its own seeded
 * generator, so changing one key (say skew_ms) leaves the others' draws alone.
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

int sim_stream_alloc(sim_stream *s, int64_t n, int64_t shops, int shards, int instances,
                     double duration_s, idb_err *err)
{
    memset(s, 0, sizeof *s);
    s->shops = shops;
    s->shards = shards;
    s->instances = instances;
    s->duration_ns = (int64_t)llround(duration_s * 1e9);
    s->home = calloc((size_t)shops, sizeof *s->home);
    s->offset_ns = calloc((size_t)instances, sizeof *s->offset_ns);
    s->drift_ppm = calloc((size_t)instances, sizeof *s->drift_ppm);
    if (!s->home || !s->offset_ns || !s->drift_ppm || grow(s, n > 0 ? n : 1) != 0) {
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

/* Shops, clocks, events, then the arrivals one by one (see sim.h). */
int sim_stream_make(const sim_workload *w, sim_stream *s, idb_err *err)
{
    double expect = sim_workload_expected_orders(w);
    int64_t cap = (int64_t)(expect + 10 * sqrt(expect) + 64);
    int rc = sim_stream_alloc(s, 0, w->shops, (int)w->shards, (int)w->instances, w->duration_s,
                              err);
    if (rc) return rc;
    if (grow(s, cap) != 0) goto oom;

    idb_rng r_arr, r_shop, r_inst, r_home, r_clock, r_ev;
    sub_rng(&r_arr, w->seed, 1);
    sub_rng(&r_shop, w->seed, 2);
    sub_rng(&r_inst, w->seed, 3);
    sub_rng(&r_home, w->seed, 4);
    sub_rng(&r_clock, w->seed, 5);
    sub_rng(&r_ev, w->seed, 6);

    deal_shops(s, &r_home);
    for (int i = 0; i < s->instances; i++) {
        s->offset_ns[i] = (int64_t)llround((2 * idb_rng_double(&r_clock) - 1) * w->skew_ms * 1e6);
        s->drift_ppm[i] = (2 * idb_rng_double(&r_clock) - 1) * w->drift_ppm;
    }
    if (make_events(w, s, &r_ev) != 0) goto oom;

    idb_zipf zipf;
    if (idb_zipf_init(&zipf, w->shops, w->shop_skew) != 0) goto oom;
    double b0 = w->burst_at_s * 1e9, b1 = (w->burst_at_s + w->burst_s) * 1e9;
    double f = w->burst_factor, extra = (f - 1) / f, end = (double)s->duration_ns;
    double t = 0;
    for (;;) {
        t = next_arrival(&r_arr, t, w->orders_per_s, f, b0, b1);
        if (t >= end) break;
        if (s->n == s->cap && grow(s, s->cap + s->cap / 2 + 64) != 0) {
            idb_zipf_free(&zipf);
            goto oom;
        }
        int64_t j = s->n++;
        s->t_ns[j] = (int64_t)t;
        s->shop[j] = (uint32_t)idb_zipf_draw(&zipf, &r_shop);
        double u = idb_rng_double(&r_inst);
        uint64_t pick = idb_rng_below(&r_inst, (uint64_t)s->instances);
        s->inst[j] = (uint16_t)((t >= b0 && t < b1 && u < extra) ? 0 : pick);
    }
    idb_zipf_free(&zipf);
    return 0;
oom:
    sim_stream_free(s);
    return idb_fail(err, IDB_ENOMEM, "out of memory for about %.0f orders", expect);
}
