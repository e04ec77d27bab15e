/* claim_random.c — claim 4, about uuidv4: 122 random bits; about 86 years at a billion IDs
 * per second to a 50% chance of a collision; twice the bytes of a 64-bit ID; new IDs land
 * all over the index.
 *
 * The random bits are tested on generated IDs by the full-width birthday test
 * (collide.h): 2^26 IDs (quick: 2^22), each from a fresh instance, must not repeat. A
 * source with b bits of entropy repeats about n(n-1)/2 / 2^b times: 8.0 at 2^26 IDs and
 * 48 bits (quick: 2^22 IDs and 40 bits), so the test misses such a source with probability
 * e^-8 = 3.4e-4; a 122-bit source (with the fingerprint's chance matches) repeats 3.0e-8
 * times (quick: 1.2e-10), its chance of a false alarm. Bit balance, pairwise independence
 * or collisions on narrow slices would not see a 48-bit source spread over 16 bytes.
 * The 86 years are computed from the format (122 bits) by the birthday formula, whose
 * approximation is checked by simulating small widths.
 */
#include "claims_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collide.h"
#include "random.h"
#include "store.h"

#define UUID_RANDOM_BITS 122
#define CHAPTER_YEARS 86
#define VARYING_IDS 10000
#define FORMULA_TOL 0.05
#define TAIL_MAX 0.05                     /* random IDs: almost never at the very end */
#define P50_LO 0.3                        /* ... and in the middle of the index */
#define P50_HI 0.7

/* Bits that vary across n IDs of strategy st (a random bit is seen as 0 and as 1) and the
 * length of its IDs (-1 when they differ). */
static int varying_bits(const idb_strategy *st, int n, int *bits, int *len, idb_err *err)
{
    void *inst;
    int rc = idb_strategy_create_kv(st, NULL, 0, idb_clock_real(), &inst, err);
    if (rc) return rc;
    uint8_t or_[IDB_ID_MAX] = { 0 }, and_[IDB_ID_MAX];
    memset(and_, 0xFF, sizeof and_);
    idb_id id = { 0 };
    *len = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if ((rc = st->next(inst, &id, err))) break;
        *len = i == 0 || *len == id.len ? id.len : -1;
        for (int b = 0; b < id.len; b++) { or_[b] |= id.b[b]; and_[b] &= id.b[b]; }
    }
    st->destroy(inst);
    *bits = 0;
    for (int b = 0; b < IDB_ID_MAX; b++)
        *bits += __builtin_popcount((unsigned)(or_[b] & ~and_[b]) & 0xFF);
    return rc;
}

/* Insert n IDs of st into one pagesim index: tail share and median position. */
static int insert_locality(const idb_strategy *st, long long n, double *tail, double *p50,
                           idb_err *err)
{
    const idb_store *store = idb_store_find("pagesim");
    if (!store) return idb_fail(err, IDB_EINPUT, "claims: store pagesim is not registered");
    idb_insert_config c = { .strategy = st, .store = store, .ids = n, .batch = 1000,
                            .shards = 1, .shops = 1, .shop_skew = 1.0, .seed = CLAIMS_SEED };
    idb_insert_result *res = calloc(1, sizeof *res);
    int rc = res ? claim_insert(&c, res, err) : idb_fail(err, IDB_ENOMEM, "out of memory");
    if (rc == 0) { *tail = res->tail_insert_frac; *p50 = res->insert_pos_p50; }
    free(res);
    return rc;
}

/* The birthday test: n IDs, the repeats, the false-alarm and miss figures. */
static int birthday(const claim_ctx *c, claim_row *r, idb_err *err)
{
    int log2_n = c->quick ? 22 : 26, weak_bits = c->quick ? 40 : 48;
    double n = exp2(log2_n);
    int64_t repeats;
    int rc = collide_repeats(c->st, idb_clock_real(), (int64_t)n, CLAIMS_SEED, &repeats, err);
    if (rc) return rc;
    double ok = collide_expected(n, UUID_RANDOM_BITS), weak = collide_expected(n, weak_bits);
    claim_app(r->experiment, "birthday test: 2^%d IDs, each from a fresh instance, compared "
              "by a %d-bit fingerprint of all their bytes; check: no ID repeats (one repeat "
              "fails)%s; ", log2_n, COLLIDE_FINGERPRINT_BITS,
              c->quick ? " (quick: 2^22 IDs catch a source of 40 bits or fewer; the full run's "
                         "2^26 catch 48 bits)" : "");
    claim_app(r->measured, "2^%d IDs: %lld repeated" MEASURED "; expected repeats: %.2g from "
              "%d random bits (the false-alarm rate %.2g), %.1f from a %d-bit source (missed "
              "with probability %.2g)" COMPUTED "; ", log2_n, (long long)repeats, ok,
              UUID_RANDOM_BITS, -expm1(-ok), weak, weak_bits, exp(-weak));
    claim_check(r, repeats == 0, "%lld of 2^%d IDs repeated", (long long)repeats, log2_n);
    return 0;
}

/* The birthday formula at 122 bits, and checked against simulated small widths. */
static int formula(const claim_ctx *c, claim_row *r, idb_err *err)
{
    double years = collide_ids(UUID_RANDOM_BITS, 0.5) / 1e9 / YEAR_S;
    static const int wq[] = { 24, 26 }, wf[] = { 24, 28, 32 };
    const int *widths = c->quick ? wq : wf;
    int nw = c->quick ? 2 : 3, trials = c->quick ? 2000 : 3000;
    claim_app(r->experiment, "n(p) = 1/2 + sqrt(1/4 + 2*2^B*ln(1/(1-p))) at B = %d, 1e9 IDs/s; "
              "first-collision counts of B-bit random values, %d trials per B, median vs n(0.5); "
              "checks: years within %.0f%% of %d, every median within %.0f%%; ",
              UUID_RANDOM_BITS, trials, 100 * FORMULA_TOL, CHAPTER_YEARS, 100 * FORMULA_TOL);
    claim_app(r->measured, "%.1f years to 50%% (%.3g IDs)" FROM_FORMAT "; medians:", years,
              collide_ids(UUID_RANDOM_BITS, 0.5));
    claim_check(r, fabs(years / CHAPTER_YEARS - 1) <= FORMULA_TOL, "%.1f years", years);
    for (int i = 0; i < nw; i++) {
        double med = collide_simulate(widths[i], trials, CLAIMS_SEED + (uint64_t)i);
        if (med < 0) return idb_fail(err, IDB_ENOMEM, "out of memory");
        double f = collide_ids(widths[i], 0.5), dev = med / f - 1;
        claim_app(r->measured, " B=%d %.0f vs %.0f (%+.1f%%)%s", widths[i], med, f, 100 * dev,
                  i + 1 < nw ? "," : MEASURED "; ");
        claim_check(r, fabs(dev) <= FORMULA_TOL, "B=%d median %+.1f%%", widths[i], 100 * dev);
    }
    return 0;
}

/* Claim 4 (see the top of this file). */
int claim_uuidv4(const claim_ctx *c, claim_row *r, idb_err *err)
{
    int bits, len, rc;
    idb_random_seed(CLAIMS_SEED);
    if ((rc = varying_bits(c->st, VARYING_IDS, &bits, &len, err))) return rc;
    claim_app(r->experiment, "%d IDs: bits that vary, ID length; checks: %d bits, 16 = 2 x 8 "
              "bytes; ", VARYING_IDS, UUID_RANDOM_BITS);
    claim_app(r->measured, "%d varying bits, %d bytes" MEASURED "; ", bits, len);
    claim_check(r, bits == UUID_RANDOM_BITS, "%d varying bits", bits);
    claim_check(r, len == 2 * (int)sizeof(uint64_t), "%d bytes", len);
    if ((rc = birthday(c, r, err)) || (rc = formula(c, r, err))) return rc;
    double tail, p50;
    long long n = c->quick ? 50000 : 200000;
    if ((rc = insert_locality(c->st, n, &tail, &p50, err))) return rc;
    claim_app(r->experiment, "%lld IDs into one pagesim index; checks: tail_insert_frac < %.2f "
              "and insert_pos_p50 in %.1f..%.1f", n, TAIL_MAX, P50_LO, P50_HI);
    claim_app(r->measured, "tail_insert_frac %.4f, insert_pos_p50 %.3f" MEASURED, tail, p50);
    claim_check(r, tail < TAIL_MAX && p50 >= P50_LO && p50 <= P50_HI,
                "tail_insert_frac %.4f, insert_pos_p50 %.3f", tail, p50);
    return 0;
}
