/* claim_time.c — claims 5 and 6, about IDs that start with a timestamp.
 *
 * 5. uuidv7 lands near the end of the index: measured on the simulator, from the orders of
 *    8 API instances whose clocks are up to 10 ms apart, arriving at 4 shards (each shard's
 *    index fed in creation order), not from one generator, whose output is increasing by
 *    construction.
 * 6. snowflake: 41 bits of ms (the years computed from the format; the end of the field
 *    measured on a manual clock), 1,024 workers (the option's range, the first worker
 *    number past it refused), 4,096 IDs per ms then a wait, a refusal while the clock is
 *    behind, and roughly time-sorted under skew, stalls and a flash sale (the simulator).
 */
#include "claims_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SKEW_MS 10
#define NEAR_END_P50 0.95                 /* median insert position */
#define NEAR_END_LAST5 0.9                /* share of inserts in the last 5% of the index */
#define SNOWFLAKE_TIME_BITS 41
#define SNOWFLAKE_PER_MS 4096
#define SNOWFLAKE_WORKERS 1024
#define STEP_BACK_MS 5                    /* the manual clock's step back */
#define PER_MS_LIMIT 100000               /* stop counting a ms that never ends */
#define SIM_STEP_MS 200
#define YEARS_LO 68.5
#define YEARS_HI 70.5

/* Claim 5: uuidv7 from skewed instances (see the top). */
int claim_uuidv7(const claim_ctx *c, claim_row *r, idb_err *err)
{
    sim_workload w;
    claim_workload(&w, c->quick, "claim-uuidv7");
    w.skew_ms = SKEW_MS;
    sim_result res;
    int rc = claim_sim(&w, c->st, 1, &res, err);
    if (rc) return rc;
    claim_app(r->experiment, "simulator, %lld orders from %lld API instances whose clocks are up "
              "to %d ms apart, arriving at %lld shards, each shard's index fed in creation "
              "order; checks: insert_pos_p50 >= %.2f and >= %.0f%% of inserts in the last 5%% "
              "of the index", (long long)res.orders, (long long)w.instances, SKEW_MS,
              (long long)w.shards, NEAR_END_P50, 100 * NEAR_END_LAST5);
    claim_app(r->measured, "insert_pos_p50 %.4f, %.1f%% of inserts in the last 5%% of the "
              "index, tail_insert_frac %.4f (at the very end)" MEASURED, res.insert_pos_p50,
              100 * res.insert_last5_frac, res.tail_insert_frac);
    claim_check(r, res.insert_pos_p50 >= NEAR_END_P50, "insert_pos_p50 %.4f", res.insert_pos_p50);
    claim_check(r, res.insert_last5_frac >= NEAR_END_LAST5, "%.1f%% in the last 5%%",
                100 * res.insert_last5_frac);
    sim_result_free(&res);
    return 0;
}

/* IDs st hands out in one ms before it waits, on a manual clock; then, 5 ms back, how far
 * behind it says it is (-1: it did not refuse). */
static int per_ms(const idb_strategy *st, int *n_ms, int64_t *behind, idb_err *err)
{
    idb_clock c;
    void *inst;
    idb_clock_manual_init(&c, SIM_T0_NS);
    int rc = idb_strategy_create_kv(st, NULL, 0, &c, &inst, err);
    if (rc) return rc;
    idb_id id;
    int n = 0;
    while (rc == 0 && atomic_load(&c.waits) == 0 && n < PER_MS_LIMIT) {
        rc = st->next(inst, &id, err);
        n++;
    }
    *n_ms = atomic_load(&c.waits) ? n - 1 : n;   /* the last call waited for the next ms */
    *behind = -1;
    if (rc == 0) {
        idb_err e = { 0 };
        idb_clock_set_ns(&c, idb_clock_now_ns(&c) - STEP_BACK_MS * 1000000LL);
        if (st->next(inst, &id, &e) == IDB_ECLOCK) *behind = e.behind_ms;
    }
    st->destroy(inst);
    return rc;
}

/* The time field's end with epoch_ms=0: *last_ok = an ID at 2^41 - 1 ms, *past = the error
 * at 2^41 ms (0 when it gave an ID). */
static int time_field_end(const idb_strategy *st, int *last_ok, int *past, idb_err *err)
{
    static const char *const kv[] = { "epoch_ms=0" };
    int64_t end_ms = (int64_t)1 << SNOWFLAKE_TIME_BITS;
    idb_clock c;
    void *inst;
    idb_id id;
    idb_clock_manual_init(&c, (end_ms - 1) * 1000000);
    int rc = idb_strategy_create_kv(st, kv, 1, &c, &inst, err);
    if (rc) return rc;
    idb_err e = { 0 };
    *last_ok = st->next(inst, &id, &e) == 0;
    idb_clock_set_ns(&c, end_ms * 1000000);
    *past = st->next(inst, &id, &e);
    st->destroy(inst);
    return 0;
}

/* Workers: the option's range (format), and whether one past it is refused (measured). */
static void workers(const idb_strategy *st, int64_t *n, int *refused)
{
    *n = -1;
    *refused = 0;
    for (const idb_opt_decl *d = st->options; d && d->name; d++)
        if (strcmp(d->name, "worker") == 0) *n = d->max - d->min + 1;
    char opt[64];
    snprintf(opt, sizeof opt, "worker=%lld", (long long)*n);
    const char *kv[] = { opt };
    void *inst;
    idb_err e = { 0 };
    if (idb_strategy_create_kv(st, kv, 1, idb_clock_real(), &inst, &e) == 0) st->destroy(inst);
    else *refused = e.code == IDB_EINPUT;
}

/* The simulator runs of claim 6: skew (and range's under the same skew), step, burst. */
static int snowflake_sim(const claim_ctx *c, claim_row *r, idb_err *err)
{
    const idb_strategy *range = claim_need("range", err);
    if (!range) return err->code;
    sim_workload w;
    claim_workload(&w, c->quick, "claim-snowflake");
    w.skew_ms = SKEW_MS;
    sim_result skew, rskew, step, burst;
    int rc;
    if ((rc = claim_sim(&w, c->st, 1, &skew, err))) return rc;
    if ((rc = claim_sim(&w, range, 0, &rskew, err))) return rc;
    w.skew_ms = 1;
    w.step_back_ms = SIM_STEP_MS;
    w.step_at_s = w.duration_s / 2;
    w.step_instance = 2;
    if ((rc = claim_sim(&w, c->st, 0, &step, err))) return rc;
    w.step_back_ms = 0;
    w.burst_at_s = 1;
    w.burst_s = c->quick ? 0.02 : 0.1;
    w.burst_factor = 300;
    w.orders_per_s = 20000;
    if ((rc = claim_sim(&w, c->st, 0, &burst, err))) return rc;
    claim_app(r->experiment, "simulator: clocks up to %d ms apart, a %d ms step back, a burst of "
              "6M orders/s mostly on one instance; checks: step stall >= 90%% of the step with 0 "
              "duplicates, burst stall > 0 with 0 duplicates, skew: 0 < inversion_frac < "
              "range's / 10, tail_insert_frac < 1, insert_pos_p50 >= %.2f", SKEW_MS, SIM_STEP_MS,
              NEAR_END_P50);
    claim_app(r->measured, "step: stalled %.1f ms, %lld duplicates" MEASURED "; burst: stalled "
              "%.1f ms, %lld duplicates" MEASURED "; skew: inversion_frac %.3g (range %.3f), "
              "tail_insert_frac %.4f, insert_pos_p50 %.4f" MEASURED, step.stalled_ms,
              (long long)step.duplicates, burst.stalled_ms, (long long)burst.duplicates,
              skew.inversion_frac, rskew.inversion_frac, skew.tail_insert_frac,
              skew.insert_pos_p50);
    claim_check(r, step.stalled_ms >= 0.9 * SIM_STEP_MS && step.duplicates == 0,
                "step: stalled %.1f ms, %lld duplicates", step.stalled_ms,
                (long long)step.duplicates);
    claim_check(r, burst.stalled_ms > 0 && burst.duplicates == 0,
                "burst: stalled %.1f ms, %lld duplicates", burst.stalled_ms,
                (long long)burst.duplicates);
    claim_check(r, skew.inversion_frac > 0 && skew.inversion_frac < rskew.inversion_frac / 10 &&
                skew.tail_insert_frac < 1 && skew.insert_pos_p50 >= NEAR_END_P50,
                "skew: inversion_frac %.3g, tail_insert_frac %.4f, insert_pos_p50 %.4f",
                skew.inversion_frac, skew.tail_insert_frac, skew.insert_pos_p50);
    sim_result_free(&skew);
    sim_result_free(&rskew);
    sim_result_free(&step);
    sim_result_free(&burst);
    return 0;
}

/* Claim 6: snowflake (see the top). */
int claim_snowflake(const claim_ctx *c, claim_row *r, idb_err *err)
{
    int64_t nworkers, behind;
    int refused, n_ms, last_ok, past, rc;
    double years = ldexp(1, SNOWFLAKE_TIME_BITS) / 1000 / YEAR_S;
    workers(c->st, &nworkers, &refused);
    if ((rc = per_ms(c->st, &n_ms, &behind, err))) return rc;
    if ((rc = time_field_end(c->st, &last_ok, &past, err))) return rc;
    claim_app(r->experiment, "2^%d ms in years; an ID at 2^%d - 1 ms and none at 2^%d ms "
              "(epoch_ms=0, manual clock); the worker option's range and the first number past "
              "it; IDs in one ms on a manual clock before it waits; next() after a %d ms step "
              "back; checks: %.1f..%.1f years, the field ends there, %d workers and the next "
              "refused, %d per ms, refusal for %d ms; ", SNOWFLAKE_TIME_BITS,
              SNOWFLAKE_TIME_BITS, SNOWFLAKE_TIME_BITS, STEP_BACK_MS, YEARS_LO, YEARS_HI,
              SNOWFLAKE_WORKERS, SNOWFLAKE_PER_MS, STEP_BACK_MS);
    claim_app(r->measured, "%.1f years" FROM_FORMAT "; ID at 2^%d - 1 ms: %s, at 2^%d ms: %s"
              MEASURED "; %lld workers" FORMAT "; worker=%lld %s" MEASURED "; %d IDs per ms, "
              "then a wait" MEASURED "; %d ms back: %s, %lld ms behind" MEASURED "; ", years,
              SNOWFLAKE_TIME_BITS,
              last_ok ? "given" : "refused", SNOWFLAKE_TIME_BITS, past ? idb_strerror(past) :
              "given", (long long)nworkers, (long long)nworkers, refused ? "refused" : "accepted",
              n_ms, STEP_BACK_MS, behind >= 0 ? "refused" : "not refused", (long long)behind);
    claim_check(r, years >= YEARS_LO && years <= YEARS_HI, "%.1f years", years);
    claim_check(r, last_ok && past == IDB_EEXHAUSTED, "time field end: %s / %s",
                last_ok ? "given" : "refused", past ? idb_strerror(past) : "given");
    claim_check(r, nworkers == SNOWFLAKE_WORKERS && refused, "%lld workers, next %s",
                (long long)nworkers, refused ? "refused" : "accepted");
    claim_check(r, n_ms == SNOWFLAKE_PER_MS, "%d IDs per ms", n_ms);
    claim_check(r, behind == STEP_BACK_MS, "step back: %lld ms behind", (long long)behind);
    return snowflake_sim(c, r, err);
}
