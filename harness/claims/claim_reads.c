/* claim_reads.c — claim 12 (issue 27): time-ordered IDs read recent orders from fewer pages
 * than random IDs on sqlite with a cold cache.
 *
 * The experiment is `idbench insert --dir` then `idbench read`'s own machinery (insert.h
 * with its record, read.h): the strategy under test (time-ordered; uuidv7 by default) and
 * uuidv4 (random), each inserted into a fresh sqlite database (one shard, the same seeded
 * orders, 16-byte keys for both), then READ_LOOKUPS point lookups `--pattern recent:5
 * --cache cold` (every lookup among the newest 5% of the orders), and the same number
 * `--pattern uniform` for scale. The figure is misses_per_lookup: pages sqlite's cache
 * lacked per lookup, its cache empty at the first lookup.
 *
 * The threshold, derived: a lookup walks root -> interior -> leaf. With time-ordered keys
 * the newest 5% of the rows sit in the last 5% of the leaves, so the lookups' misses are at
 * most those leaves (and their few parents) once each, spread over the lookups: at 20k rows
 * (quick) about 0.05 x 20k / ~100 rows per 4 KiB leaf = 10 leaves plus their parents for
 * 2,000 lookups, under 0.02 per lookup. With random keys the newest 5% are spread over
 * every leaf: 1,000 rows over ~200 leaves, so most lookups still find a leaf no earlier
 * lookup read (measured ~0.23 per lookup, as a uniform read). The check asks far less than
 * that factor of ~10: the ordered strategy's misses per recent lookup at most RATIO_MAX
 * (half) of uuidv4's — a read workload that ignores recency (recent:5 drawn uniformly) makes
 * the two equal within a few percent and fails it. Every lookup must find its row (the
 * lookups are of existing IDs), and uuidv4's figure must be above zero (a store that counts
 * no misses cannot show the claim: "unknown").
 */
#include "claims_int.h"

#include <stdlib.h>
#include <string.h>

#include "read.h"
#include "tmpdir.h"

#define READ_STORE "sqlite"
#define RANDOM_STRATEGY "uuidv4"
#define KEY_BYTES_KV "key_bytes=16"
#define RECENT_PCT 5.0
#define RATIO_MAX 0.5                     /* ordered misses per recent lookup <= this x random's */
#define IDS_FULL 100000
#define IDS_QUICK 20000
#define LOOKUPS_FULL 10000
#define LOOKUPS_QUICK 2000
#define BATCH 1000

/* The verdict's checks from the two strategies' figures (see claims.h). */
void claim_reads_judge(claim_row *r, const char *store, const claim_read_fig *ordered,
                       const claim_read_fig *random)
{
    const claim_read_fig *fig[] = { ordered, random };
    const char *who[] = { r->subject, RANDOM_STRATEGY };
    for (int i = 0; i < 2; i++)
        claim_check(r, fig[i]->found == fig[i]->lookups, "on %s, %s found %lld of %lld "
                    "looked-up rows", store, who[i], (long long)fig[i]->found,
                    (long long)fig[i]->lookups);
    if (!(random->recent > 0)) {
        snprintf(r->unknown, sizeof r->unknown, "store %s counted no misses for %s's recent "
                 "lookups", store, RANDOM_STRATEGY);
        return;
    }
    claim_check(r, ordered->recent <= RATIO_MAX * random->recent, "on %s with a cold cache, "
                "%s's misses per recent lookup (%.4f) are not at most %.2fx %s's (%.4f)", store,
                r->subject, ordered->recent, RATIO_MAX, RANDOM_STRATEGY, random->recent);
}

/* Point lookups of pattern (recent_pct for recent) on dir's store: misses per lookup and
 * the rows found into *misses and *found. */
static int lookups(const idb_store *store, const char *dir, int pattern, int64_t n,
                   double *misses, int64_t *found, idb_err *err)
{
    idb_read_config cfg = { .store = store, .dir = dir, .lookups = n, .pattern = pattern,
                            .recent_pct = RECENT_PCT, .warm = 0, .seed = CLAIMS_SEED };
    idb_read_result res;
    int rc = idb_read_run(&cfg, &res, err);
    if (rc) return rc;
    *misses = res.misses_per_lookup;
    *found += res.found;
    return 0;
}

/* Insert ids orders of st into a fresh store in a temporary directory, then its recent and
 * uniform lookups, into *fig. */
static int read_run(const idb_strategy *st, const idb_store *store, long long ids,
                    int64_t n, claim_read_fig *fig, idb_err *err)
{
    char dir[4096];
    if (idb_tmpdir_make(dir, sizeof dir) != 0)
        return idb_fail(err, IDB_EIO, "claims: cannot make a temporary directory");
    idb_insert_config c = { .strategy = st, .store = store, .ids = ids, .batch = BATCH,
                            .shards = 1, .shops = 1000, .shop_skew = 1.0,
                            .seed = CLAIMS_SEED, .dir = dir, .record = 1 };
    c.store_kv[c.n_store_kv++] = KEY_BYTES_KV;
    idb_insert_result *res = calloc(1, sizeof *res);
    int rc = res ? idb_insert_run(&c, res, err) : idb_fail(err, IDB_ENOMEM, "out of memory");
    free(res);
    *fig = (claim_read_fig){ .lookups = 2 * n };
    if (!rc) rc = lookups(store, dir, IDB_READ_RECENT, n, &fig->recent, &fig->found, err);
    if (!rc) rc = lookups(store, dir, IDB_READ_UNIFORM, n, &fig->uniform, &fig->found, err);
    idb_tmpdir_remove(dir);
    return rc;
}

/* Claim 10: the time-ordered strategy c->st against uuidv4 on sqlite (see the header). */
int claim_reads(const claim_ctx *c, claim_row *r, idb_err *err)
{
    long long ids = c->quick ? IDS_QUICK : IDS_FULL;
    int64_t n = c->quick ? LOOKUPS_QUICK : LOOKUPS_FULL;
    claim_app(r->experiment, "%lld orders (batch %d, 16-byte keys) of %s and of %s, each into "
              "a fresh %s database (insert --dir), then %lld point lookups read --pattern "
              "recent:%.0f --cache cold, and %lld --pattern uniform (for scale); checks: every "
              "lookup finds its row, %s's misses per recent lookup <= %.2fx %s's (time-ordered: "
              "the newest %.0f%% sit in the last leaves; random: over every leaf)", ids, BATCH,
              r->subject, RANDOM_STRATEGY, READ_STORE, (long long)n, RECENT_PCT, (long long)n,
              r->subject, RATIO_MAX, RANDOM_STRATEGY, RECENT_PCT);
    const idb_store *store = idb_store_find(READ_STORE);
    if (!store) return idb_fail(err, IDB_EINPUT, "claims: store %s is not registered",
                                READ_STORE);
    const idb_strategy *rnd = claim_need(RANDOM_STRATEGY, err);
    if (!rnd) return err->code;
    claim_read_fig fo, fr;
    int rc = read_run(c->st, store, ids, n, &fo, err);
    if (!rc) rc = read_run(rnd, store, ids, n, &fr, err);
    if (rc) return rc;
    claim_app(r->measured, "misses per lookup, recent:%.0f / uniform: %s %.4f / %.4f, %s "
              "%.4f / %.4f" MEASURED "; recent ratio %.3f" COMPUTED, RECENT_PCT, r->subject,
              fo.recent, fo.uniform, RANDOM_STRATEGY, fr.recent, fr.uniform,
              fr.recent > 0 ? fo.recent / fr.recent : -1);
    claim_reads_judge(r, store->name, &fo, &fr);
    return 0;
}
