/* claim_hotspot.c — claim 9, about range partitioning (issue 25): where the keys of a
 * range-sharded table land. Time-ordered keys put more than X of the inserts on one shard,
 * keys whose leading bits are spread evenly (random, bit-reversed) at most Y. Which
 * strategies are which comes from their declarations (time_ordered; uniform_bits, at least
 * log2 B of them: strategy.h); the others (small numbers per shard: range, interleaved;
 * autorandom's 32 places over more than 32 shards) are measured and shown, not judged.
 *
 * The thresholds, for B shards and n inserts:
 *   X = 1/2. Time-ordered keys made within a span of time lie in one interval of the key
 *     space. An interval narrower than a range crosses at most one boundary, so one shard
 *     takes at least half of it. With equal slices (range_split = space) the run's keys are
 *     such an interval whenever the run is shorter than a slice of the key's time field
 *     (1/B of 69 years for snowflake, of thousands for uuidv7); with the run's quantiles
 *     (range_split = sample) so are one second's keys when a second holds less than 1/B of
 *     the run: the hot spot moves from shard to shard, and each second's largest share
 *     (hot_share_p99) stays above X though the whole run's evens out.
 *   Y(n) = 1/B + 6 sqrt((1/B)(1 - 1/B) / n): a shard's count of n uniform keys is
 *     binomial(n, 1/B); its share passes 6 standard deviations above 1/B with probability
 *     below 1e-9, so the largest of B shares (of S seconds: a union bound of B S such tails)
 *     passes Y with probability below B S 1e-9. For one second n is taken as 0.9 of the
 *     rate (the Poisson count of a second at 10,000 per second is 10 of its deviations
 *     above that). Plus, where the range bounds need not fall on the edges of a strategy's
 *     2^u uniform places (the run's quantiles), 2^-u: a bound inside a place splits it by
 *     the bits below, which for autorandom (u = 5) are its counter, so by time, and a
 *     second's share moves by up to one place (1/32) while the run's stays even.
 */
#include "claims_int.h"

#include <math.h>
#include <string.h>

#define HOT_X 0.5
#define HOT_Z 6.0
#define SEC_N_FRAC 0.9             /* a second's inserts taken as this share of the rate */

/* X (see the top). */
double claim_hotspot_x(int shards)
{
    (void)shards;
    return HOT_X;
}

/* Y(n) (see the top). */
double claim_hotspot_y(int shards, double n)
{
    double p = 1.0 / shards;
    return n > 0 ? p + HOT_Z * sqrt(p * (1 - p) / n) : 1;
}

/* Y's slack for st's places (see claims.h). */
double claim_hotspot_slack(const idb_strategy *st, int shards, int sample)
{
    int aligned = !sample && (shards & (shards - 1)) == 0;
    return aligned || st->uniform_bits <= 0 ? 0 : ldexp(1.0, -st->uniform_bits);
}

/* The kind of a strategy as claim 9 judges it over `shards` ranges, from its declarations. */
enum claim_hot_kind claim_hotspot_kind(const idb_strategy *st, int shards)
{
    int even = st->uniform_bits >= 31 || (st->uniform_bits > 0 && 1 << st->uniform_bits >= shards);
    return st->time_ordered ? CLAIM_HOT_TIME : even ? CLAIM_HOT_UNIFORM : CLAIM_HOT_OTHER;
}

/* Record the checks of figures v[0..nv) (see claims.h). */
int claim_hotspot_judge(claim_row *r, const claim_hot *v, int nv, int shards, const char *what)
{
    static const char *const kinds[] = { "time-ordered", "uniform", "other" };
    double x = claim_hotspot_x(shards);
    int bad = 0;
    for (int k = 0; k < 3; k++) {
        int first = 1;
        for (int i = 0; i < nv; i++) {
            if ((int)v[i].kind != k) continue;
            if (first) claim_app(r->measured, "%s%s: ", what, kinds[k]);
            claim_app(r->measured, "%s%s %.4f", first ? "" : ", ", v[i].strategy, v[i].share);
            first = 0;
            double y = claim_hotspot_y(shards, v[i].n) + v[i].slack;
            if (k == CLAIM_HOT_TIME)
                bad += !claim_check(r, v[i].share > x, "%s%s: %.4f not above X = %.2f", what,
                                    v[i].strategy, v[i].share, x);
            else if (k == CLAIM_HOT_UNIFORM)
                bad += !claim_check(r, v[i].share <= y, "%s%s: %.4f above Y = %.4f", what,
                                    v[i].strategy, v[i].share, y);
        }
        if (!first) claim_app(r->measured, MEASURED "; ");
    }
    return bad;
}

/* One routing of the experiment: every judged strategy's figure into v. Returns 0 or an
 * IDB_E* code. */
static int one_split(const claim_ctx *c, sim_workload *w, int split, claim_hot *v, int *nv,
                     idb_err *err)
{
    w->routing = SIM_ROUTE_RANGE;
    w->range_split = split;
    *nv = 0;
    for (const idb_strategy *const *p = idb_strategies; *p; p++) {
        const idb_strategy *st = c->st ? c->st : *p;
        if (c->st && p != idb_strategies) break;             /* a subject: it alone */
        if (!c->st && claim_hotspot_kind(st, (int)w->shards) == CLAIM_HOT_OTHER) continue;
        sim_result res;
        int rc = claim_sim(w, st, 0, &res, err);
        if (rc) return rc;
        double per_s = w->orders_per_s * SEC_N_FRAC;
        v[*nv] = (claim_hot){ .strategy = st->name, .kind = claim_hotspot_kind(st, (int)w->shards),
                              .share = split == SIM_SPLIT_SPACE ? res.hot_share
                                                                : res.hot_share_p99,
                              .n = split == SIM_SPLIT_SPACE ? (double)res.orders : per_s,
                              .slack = claim_hotspot_slack(st, (int)w->shards,
                                                           split == SIM_SPLIT_SAMPLE) };
        (*nv)++;
        sim_result_free(&res);
    }
    return 0;
}

/* Claim 9: range routing over 4 shards, equal slices and the run's quantiles. */
int claim_hotspot(const claim_ctx *c, claim_row *r, idb_err *err)
{
    sim_workload w;
    claim_workload(&w, c->quick, "claim-hotspot");
    static claim_hot v[CLAIM_HOT_MAX];
    int nv = 0, shards = (int)w.shards;
    int rc = one_split(c, &w, SIM_SPLIT_SPACE, v, &nv, err);
    if (rc) return rc;
    claim_app(r->experiment, "simulator, routing = range over %d shards, %.0f orders per second "
              "for %.0f s, every strategy that declares time_ordered or uniform_bits >= log2 B; "
              "checks: with equal slices of the key space (range_split = space) the whole "
              "run's hot_share of time-ordered keys > X = %.2f and of uniform keys <= Y(n) = "
              "1/B + 6 sqrt((1/B)(1-1/B)/n) (a 6-sigma binomial bound, n the run's orders); "
              "with the run's quantiles (range_split = sample) the p99 over seconds of each "
              "second's largest share (hot_share_p99) > X for time-ordered keys and <= Y(%.0f) "
              "(0.9 of a second's orders) + 2^-uniform_bits (a bound inside one of its places "
              "splits that place by time) for uniform ones", shards, w.orders_per_s,
              w.duration_s, claim_hotspot_x(shards), w.orders_per_s * SEC_N_FRAC);
    claim_hotspot_judge(r, v, nv, shards, "space, hot_share, ");
    if ((rc = one_split(c, &w, SIM_SPLIT_SAMPLE, v, &nv, err))) return rc;
    claim_hotspot_judge(r, v, nv, shards, "sample, hot_share_p99, ");
    claim_app(r->measured, "X = %.2f, Y = %.4f for the run and %.4f for a second" COMPUTED,
              claim_hotspot_x(shards), claim_hotspot_y(shards, w.orders_per_s * w.duration_s),
              claim_hotspot_y(shards, w.orders_per_s * SEC_N_FRAC));
    return 0;
}
