/* claims_int.h — what the claim experiments share (inside harness/claims only).
 *
 * Each claim_*.c file holds the experiment of one or two claims: a function that runs it on
 * the strategy it is handed (ctx->st), appends what it ran to r->experiment and its figures
 * to r->measured, and records each threshold with claim_check(); claims.c turns the checks
 * into the verdict. Figures are marked with the labels below.
 */
#ifndef IDB_CLAIMS_INT_H
#define IDB_CLAIMS_INT_H

#include "claims.h"
#include "insert.h"
#include "sim.h"

#define CLAIMS_SEED 42
#define YEAR_S (365.25 * 86400)

/* How each figure in `measured` says where it comes from. */
#define MEASURED " (measured)"
#define NOT_MEASURED " (not measured)"
#define FROM_FORMAT " (computed from the format)"
#define COMPUTED " (computed)"
#define FORMAT " (format)"                /* a field's declared range */

typedef struct claim_ctx {
    int quick;
    const idb_strategy *st;              /* the strategy under test (claim 8: NULL for every
                                          * strategy, else that one alone) */
    const char *exe;                     /* the idbench binary (see claims_opts) */
    const char *waits_store;             /* claim 8's store (see claims_opts) */
    int no_failover;                     /* claims 10, 11 not run (see claims_opts) */
} claim_ctx;

/* Append printf-style text to buf (CLAIM_TEXT_MAX bytes; cut when full). */
void claim_app(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The common workload: 4 shards, 8 instances, perfect clocks; quick runs are smaller. */
void claim_workload(sim_workload *w, int quick, const char *name);

/* Make w's stream and play st on it (locality: fill the insert positions). Returns 0 or an
 * IDB_E* code. */
int claim_sim(const sim_workload *w, const idb_strategy *st, int locality, sim_result *r,
              idb_err *err);

/* The registered strategy called name, or NULL with err filled. */
const idb_strategy *claim_need(const char *name, idb_err *err);

/* One idbench insert run of config c (its dir set here: a temporary directory, removed
 * after) into *res (the caller's, zeroed). Returns 0 or the run's IDB_E* code. */
int claim_insert(idb_insert_config *c, idb_insert_result *res, idb_err *err);

/* A claim left out by an option: r unknown, "not run (OPTION)", and measured says so.
 * Returns 0. */
int claim_not_run(claim_row *r, const char *option);

/* The experiments, one per claim (claims.c lists them). Each returns 0, or an IDB_E* code
 * with err filled when it could not run. */
int claim_counter(const claim_ctx *c, claim_row *r, idb_err *err);
int claim_counter_servers(const claim_ctx *c, claim_row *r, idb_err *err);   /* claim 1's */
int claim_range(const claim_ctx *c, claim_row *r, idb_err *err);
int claim_interleaved(const claim_ctx *c, claim_row *r, idb_err *err);
int claim_uuidv4(const claim_ctx *c, claim_row *r, idb_err *err);
int claim_uuidv7(const claim_ctx *c, claim_row *r, idb_err *err);
int claim_snowflake(const claim_ctx *c, claim_row *r, idb_err *err);
int claim_objectid(const claim_ctx *c, claim_row *r, idb_err *err);
int claim_waits(const claim_ctx *c, claim_row *r, idb_err *err);
int claim_failover(const claim_ctx *c, claim_row *r, idb_err *err);
int claim_leases(const claim_ctx *c, claim_row *r, idb_err *err);
int claim_hotspot(const claim_ctx *c, claim_row *r, idb_err *err);   /* every strategy */
int claim_reads(const claim_ctx *c, claim_row *r, idb_err *err);

#endif
