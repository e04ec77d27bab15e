/* claims.h — the chapter's claims about each strategy, each checked by an experiment.
 *
 * `idbench claims` runs ten experiments on the strategies' real output (the simulator
 * with its counter server and skewed clocks, the insert runner on the deterministic
 * in-memory `pagesim` store, a birthday test on generated IDs, processes forked and
 * exec'd, direct calls on manual clocks, claim 8: many writers on a real store, and claim
 * 10: an insert then cold-cache point lookups on sqlite) and
 * prints one markdown row per claim: the claim, the experiment with the thresholds it
 * checks, the figures (each marked measured or computed from the format) and a verdict
 * computed from the checks. Every experiment is seeded: the same build gives the same table,
 * but for the timings of real servers (claim 1's, and claim 8's wait figures). `--quick`
 * runs smaller experiments (for tests): the same thresholds, and the birthday test at a
 * lower power it states.
 *
 * The strategy each claim is about is a parameter (claims_opts.subject), so a test can hand
 * a deliberately broken plug-in to one claim and see that claim fail.
 */
#ifndef IDB_CLAIMS_H
#define IDB_CLAIMS_H

#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "strategy.h"

#define CLAIMS_N 12
#define CLAIM_TEXT_MAX 4096

/* The claims, numbered as the table numbers them. */
enum claim_no {
    CLAIM_COUNTER = 1, CLAIM_RANGE, CLAIM_INTERLEAVED, CLAIM_UUIDV4, CLAIM_UUIDV7,
    CLAIM_SNOWFLAKE, CLAIM_OBJECTID, CLAIM_WAITS, CLAIM_HOTSPOT, CLAIM_FAILOVER,
    CLAIM_LEASES, CLAIM_READS,
};

/* CLAIM_UNKNOWN: the figures a claim needs are not there (a store that cannot run here or
 * cannot tell): it neither holds nor fails. */
enum claim_verdict { CLAIM_HOLDS, CLAIM_FAILS, CLAIM_CAVEAT, CLAIM_UNKNOWN };

typedef struct claim_row {
    int no;                              /* 1..CLAIMS_N */
    const char *subject;                 /* the strategy the chapter's claim is about */
    const char *claim;                   /* what the chapter says (abridged) */
    char experiment[CLAIM_TEXT_MAX];     /* what was run, with the thresholds */
    char measured[CLAIM_TEXT_MAX];       /* the figures, each marked measured or computed */
    enum claim_verdict verdict;
    char caveat[CLAIM_TEXT_MAX];         /* why "holds with a caveat" ("" otherwise) */
    int checks, failed;                  /* checks made; checks that failed */
    char failures[CLAIM_TEXT_MAX];       /* the failed checks ("" when none failed) */
    char unknown[CLAIM_TEXT_MAX];        /* why its figures are missing ("": they are not) */
} claim_row;

typedef struct claims_opts {
    int quick;                           /* 1: the smaller experiments */
    /* The strategy to test per claim (index no - 1); NULL: the registered strategy the
     * chapter names (claim_row.subject). */
    const idb_strategy *subject[CLAIMS_N];
    /* The idbench binary the objectid claim runs as separate processes (`EXE gen NAME`);
     * NULL: /proc/self/exe (idbench itself). */
    const char *exe;
    /* The store claim 8 (waits) runs on: NULL for postgres (skipped, "unknown", when its
     * server is not installed), a store's name, or "none" (not run: "unknown"). */
    const char *waits_store;
    /* 1: claims 10 and 11 (a replicated counter's failover, leased workers paused: private
     * servers and faults, tens of seconds) are not run: "unknown". */
    int no_failover;
} claims_opts;

/* Run every experiment and fill rows[0..CLAIMS_N). Returns 0, or an IDB_E* code with err
 * filled when an experiment could not run (a strategy that cannot be made, no temporary
 * directory, a process that cannot be started, out of memory). A claim whose checks fail
 * is not an error: its verdict says so. */
int claims_run(const claims_opts *o, claim_row rows[CLAIMS_N], idb_err *err);

/* Run claim no (enum claim_no) alone into *r. Returns as claims_run. */
int claims_run_one(int no, const claims_opts *o, claim_row *r, idb_err *err);

/* Record one check of row r: ok, or failed with what (printf format) appended to
 * r->failures. Returns ok. */
int claim_check(claim_row *r, int ok, const char *what, ...) __attribute__((format(printf, 3, 4)));

/* Set r->verdict from its checks: "does not hold" when a check failed, "unknown" when none
 * failed and r->unknown says why the figures are missing, "does not hold" when no check was
 * made (nothing measured cannot hold), else "holds with a caveat" when r->caveat is set, else
 * "holds". */
void claim_verdict(claim_row *r);

/* Claim 8's figures of one run (claim_waits.c): wait_share and wait_ns_per_order, -1 when
 * the store left them empty. */
typedef struct claim_wait_fig {
    double share, ns_per_order;
} claim_wait_fig;

/* Claim 8's checks into r (r->subject is the ordered strategy) from the runs of the ordered
 * and the random strategy on store with clients writers: the ordered wait per order at
 * least 1.5x the random one's and its wait share at least 0.02; when a figure is unknown
 * (< 0), no check and r->unknown says so. claim_verdict then gives the verdict. */
void claim_waits_judge(claim_row *r, const char *store, int clients,
                       const claim_wait_fig *ordered, const claim_wait_fig *random);

/* Claim 10's figures of one strategy (claim_reads.c): misses per point lookup of the
 * recent and the uniform lookups with a cold cache, the lookups made and the rows found. */
typedef struct claim_read_fig {
    double recent, uniform;
    int64_t lookups, found;
} claim_read_fig;

/* Claim 10's checks into r (r->subject is the time-ordered strategy) from the figures of
 * the ordered and the random (uuidv4) strategy on store: each found every row it looked up,
 * and the ordered misses per recent lookup at most 0.5x the random's; when the random's is
 * not above 0 (a store that counts no misses), r->unknown says so and no ratio check is
 * made. claim_verdict then gives the verdict. */
void claim_reads_judge(claim_row *r, const char *store, const claim_read_fig *ordered,
                       const claim_read_fig *random);

/* Claim 9 (range partitioning, claim_hotspot.c): its thresholds, figures and checks, also
 * for the report's figures of a real range-sharded engine. */
#define CLAIM_HOT_MAX 64
enum claim_hot_kind { CLAIM_HOT_TIME, CLAIM_HOT_UNIFORM, CLAIM_HOT_OTHER };
typedef struct claim_hot {
    const char *strategy;
    enum claim_hot_kind kind;            /* claim_hotspot_kind of the strategy */
    double share;                        /* the largest shard's share */
    double n;                            /* the inserts behind it */
    double slack;                        /* added to Y (claim_hotspot_slack) */
} claim_hot;
/* X: time-ordered keys put more than this share on one of `shards` range shards. */
double claim_hotspot_x(int shards);
/* Y(n): uniform keys put at most this share of n inserts on one of `shards` (a 6-sigma
 * binomial bound; 1 for n <= 0). */
double claim_hotspot_y(int shards, double n);
/* What a uniform strategy's Y allows beyond the binomial bound: 2^-uniform_bits when the
 * range bounds need not fall on its places' edges (sample: the run's quantiles; or shards
 * not a power of two), as a bound inside one of its 2^uniform_bits places splits that
 * place by the bits below (autorandom's counter: by time, so a second's share moves by up
 * to a place); else 0. */
double claim_hotspot_slack(const idb_strategy *st, int shards, int sample);
/* Time-ordered (declares time_ordered), uniform over `shards` ranges (declares at least
 * log2(shards) uniform_bits) or neither. */
enum claim_hot_kind claim_hotspot_kind(const idb_strategy *st, int shards);
/* Append figures v[0..nv) to r->measured (labelled measured, grouped by kind, each group
 * starting with what) and record a check for each time-ordered one (share > X) and each
 * uniform one (share <= Y(n) + slack); others are shown, not checked. Returns the failed
 * checks. */
int claim_hotspot_judge(claim_row *r, const claim_hot *v, int nv, int shards, const char *what);

/* "holds", "does not hold", "holds with a caveat" or "unknown". */
const char *claim_verdict_text(enum claim_verdict v);

/* Print rows as a markdown table to f: | # | claim | experiment | measured | verdict |,
 * one row per claim, the claim text starting with its strategy's name, the verdict last
 * (followed by the caveat, or by the failed checks). */
void claims_print_markdown(FILE *f, const claim_row *rows, int n);

#endif
