/* claims.c — the table of claims behind `idbench claims`, their verdicts and the markdown
 * (see claims.h); the experiments are in claim_*.c (claims_int.h).
 *
 * A claim holds when every check its experiment recorded passed; it "does not hold" when
 * one failed, and "holds with a caveat" when the checks pass but a measured side effect
 * qualifies the chapter's sentence (the caveat says which); "unknown" when the figures it
 * needs are missing (claim 8 on a store that cannot run here or cannot tell its waits).
 * The strategy under test is the one claims_opts hands in, else the registered strategy
 * the chapter names.
 */
#include "claims_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tmpdir.h"

/* Append printf-style text to buf (see claims_int.h). */
void claim_app(char *buf, const char *fmt, ...)
{
    size_t n = strlen(buf);
    if (n + 1 >= CLAIM_TEXT_MAX) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, CLAIM_TEXT_MAX - n, fmt, ap);
    va_end(ap);
}

/* Record one check; a failed one is listed in r->failures (see claims.h). */
int claim_check(claim_row *r, int ok, const char *what, ...)
{
    r->checks++;
    if (ok) return 1;
    r->failed++;
    size_t n = strlen(r->failures);
    if (n && n + 3 < CLAIM_TEXT_MAX) { strcpy(r->failures + n, "; "); n += 2; }
    if (n + 1 < CLAIM_TEXT_MAX) {
        va_list ap;
        va_start(ap, what);
        vsnprintf(r->failures + n, CLAIM_TEXT_MAX - n, what, ap);
        va_end(ap);
    }
    return 0;
}

/* The verdict from the checks and the caveat (see claims.h). */
void claim_verdict(claim_row *r)
{
    if (r->failed > 0) r->verdict = CLAIM_FAILS;
    else if (r->unknown[0]) r->verdict = CLAIM_UNKNOWN;
    else if (r->checks == 0) r->verdict = CLAIM_FAILS;
    else r->verdict = r->caveat[0] ? CLAIM_CAVEAT : CLAIM_HOLDS;
}

/* One insert run in a temporary directory (see claims_int.h). */
int claim_insert(idb_insert_config *c, idb_insert_result *res, idb_err *err)
{
    char dir[4096];
    if (idb_tmpdir_make(dir, sizeof dir) != 0)
        return idb_fail(err, IDB_EIO, "claims: cannot make a temporary directory");
    c->dir = dir;
    int rc = idb_insert_run(c, res, err);
    c->dir = NULL;
    idb_tmpdir_remove(dir);
    return rc;
}

/* The strategy called name, or an error (see claims_int.h). */
const idb_strategy *claim_need(const char *name, idb_err *err)
{
    const idb_strategy *s = idb_strategy_find(name);
    if (!s) idb_fail(err, IDB_EINPUT, "claims: strategy %s is not registered", name);
    return s;
}

/* 4 shards, 8 instances, perfect clocks (see claims_int.h). */
void claim_workload(sim_workload *w, int quick, const char *name)
{
    sim_workload_defaults(w);
    snprintf(w->name, sizeof w->name, "%s", name);
    w->seed = CLAIMS_SEED;
    w->duration_s = quick ? 4 : 10;
    w->orders_per_s = quick ? 10000 : 20000;
    w->shards = 4;
    w->instances = 8;
}

/* Make w's stream and play st on it (see claims_int.h). */
int claim_sim(const sim_workload *w, const idb_strategy *st, int locality, sim_result *r,
              idb_err *err)
{
    sim_stream s;
    int rc = sim_stream_make(w, &s, err);
    if (rc) return rc;
    sim_run_opts o = { .locality = locality };
    rc = sim_run(w, &s, st, &o, r, err);
    sim_stream_free(&s);
    return rc;
}

/* One claim: who it is about, the chapter's sentence, and the experiment that checks it. */
typedef struct claim_def {
    const char *subject, *claim;
    int (*run)(const claim_ctx *c, claim_row *r, idb_err *err);
    int every;                           /* 1: about every strategy, not the subject's */
} claim_def;

static const claim_def claims[CLAIMS_N] = {
    { "counter", "every order waits one round trip to the counter server; while it is down no "
      "order gets an ID, while every other strategy goes on", claim_counter, 0 },
    { "range", "no coordination per order; IDs increase within a shard but do not sort by "
      "creation time across shards; a shard that uses up its range takes a new one; a moved "
      "shop keeps its IDs", claim_range, 0 },
    { "interleaved", "works for a fixed number of shards; adding a shard needs a new "
      "allocation that must not reuse numbers", claim_interleaved, 0 },
    { "uuidv4", "122 random bits; about 86 years at a billion IDs per second to a 50% chance "
      "of a collision; twice the bytes of a 64-bit ID; new IDs land all over the index",
      claim_uuidv4, 0 },
    { "uuidv7", "new IDs tend to be inserted near the end of the index", claim_uuidv7, 0 },
    { "snowflake", "41 bits of ms last about 69 years; 1,024 workers; 4,096 IDs per ms per "
      "worker, then it waits; it stops while its clock is behind; IDs sort roughly by creation "
      "time: near the end of the index, not always at the very end", claim_snowflake, 0 },
    { "objectid", "no coordination; roughly time-sorted (1 s timestamp); per-process random "
      "bytes keep processes apart", claim_objectid, 0 },
    { "uuidv7", "(issue 24) with many concurrent writers per shard, ordered keys show more lock "
      "and latch waiting per order than random keys: every writer appends to the same "
      "right-most leaf", claim_waits, 0 },
    { "range partitioning", "with a table split into key ranges over shards, time-ordered "
      "keys put more than X of the inserts on one shard, random or bit-reversed keys at most "
      "Y (X and Y from the arithmetic for B shards: the experiment)", claim_hotspot, 1 },
    { "counter", "(issue 26) a counter on an asynchronous replica repeats IDs after failover "
      "unless each increment waits for a replica", claim_failover, 0 },
    { "snowflake", "(issue 26) a paused worker that keeps its expired worker ID repeats IDs; "
      "one that stops does not", claim_leases, 0 },
    { "uuidv7", "(issue 27) time-ordered IDs read recent orders from fewer pages than random "
      "IDs on sqlite with a cold cache", claim_reads, 0 },
};

/* Claim no alone, on the strategy o hands in or the registered one (see claims.h). */
int claims_run_one(int no, const claims_opts *o, claim_row *r, idb_err *err)
{
    if (no < 1 || no > CLAIMS_N)
        return idb_fail(err, IDB_EINPUT, "claims: no claim %d (1..%d)", no, CLAIMS_N);
    const claim_def *d = &claims[no - 1];
    memset(r, 0, sizeof *r);
    r->no = no;
    r->subject = d->subject;
    r->claim = d->claim;
    claim_ctx c = { .quick = o->quick, .st = o->subject[no - 1], .exe = o->exe,
                    .waits_store = o->waits_store, .no_failover = o->no_failover };
    if (!c.st && !d->every && !(c.st = claim_need(d->subject, err))) return err->code;
    int rc = d->run(&c, r, err);
    if (rc == 0) claim_verdict(r);
    return rc;
}

/* See claims_int.h. */
int claim_not_run(claim_row *r, const char *option)
{
    snprintf(r->unknown, sizeof r->unknown, "not run (%s)", option);
    claim_app(r->measured, "%s" NOT_MEASURED, r->unknown);
    return 0;
}

/* Every claim's experiment in order; stops at the first that cannot run (see claims.h). */
int claims_run(const claims_opts *o, claim_row rows[CLAIMS_N], idb_err *err)
{
    for (int i = 0; i < CLAIMS_N; i++) {
        int rc = claims_run_one(i + 1, o, &rows[i], err);
        if (rc) return rc;
    }
    return 0;
}

/* The verdict as the table writes it (see claims.h). */
const char *claim_verdict_text(enum claim_verdict v)
{
    static const char *const text[] = {
        [CLAIM_HOLDS] = "holds", [CLAIM_FAILS] = "does not hold",
        [CLAIM_CAVEAT] = "holds with a caveat", [CLAIM_UNKNOWN] = "unknown",
    };
    return text[v];
}

/* One markdown row per claim; a caveat or the failed checks follow the verdict. */
void claims_print_markdown(FILE *f, const claim_row *rows, int n)
{
    fprintf(f, "| # | claim | experiment | measured | verdict |\n|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        const claim_row *r = &rows[i];
        const char *why = r->verdict == CLAIM_FAILS ? r->failures
                        : r->verdict == CLAIM_UNKNOWN ? r->unknown : r->caveat;
        if (r->verdict == CLAIM_FAILS && r->checks == 0) why = "nothing was checked";
        fprintf(f, "| %d | %s: %s | %s | %s | %s%s%s |\n", r->no, r->subject, r->claim,
                r->experiment, r->measured, claim_verdict_text(r->verdict),
                why[0] ? ": " : "", why);
    }
}
