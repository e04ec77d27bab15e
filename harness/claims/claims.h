/* claims.h — the chapter's claims about each strategy, each checked by an experiment.
 *
 * `idbench claims` runs seven experiments (the simulator, the insert runner on the
 * deterministic in-memory `pagesim` store, the collision arithmetic and its simulation,
 * and direct calls on manual clocks) and prints one markdown row per claim: the claim,
 * the experiment, the measured figures and a verdict computed from them against the
 * thresholds the row states. Every experiment is seeded: the same build gives the same
 * table. `--quick` runs smaller experiments (for tests), with the same thresholds.
 */
#ifndef IDB_CLAIMS_H
#define IDB_CLAIMS_H

#include <stdio.h>

#include "err.h"

#define CLAIMS_N 7
#define CLAIM_TEXT_MAX 1024

enum claim_verdict { CLAIM_HOLDS, CLAIM_FAILS, CLAIM_CAVEAT };

typedef struct claim_row {
    int no;                              /* 1..CLAIMS_N */
    const char *subject;                 /* the strategy the claim is about */
    const char *claim;                   /* what the chapter says (abridged) */
    char experiment[CLAIM_TEXT_MAX];     /* what was run, with the thresholds */
    char measured[CLAIM_TEXT_MAX];       /* the figures */
    enum claim_verdict verdict;
    char caveat[CLAIM_TEXT_MAX];         /* why "holds with a caveat" ("" otherwise) */
} claim_row;

/* Run every experiment (quick: smaller ones) and fill rows[0..CLAIMS_N). Returns 0, or an
 * IDB_E* code with err filled when an experiment could not run (a strategy that cannot be
 * made, no temporary directory, out of memory). */
int claims_run(int quick, claim_row rows[CLAIMS_N], idb_err *err);

/* "holds", "does not hold" or "holds with a caveat". */
const char *claim_verdict_text(enum claim_verdict v);

/* Print rows as a markdown table (with the caveats in the verdict cell) to f. */
void claims_print_markdown(FILE *f, const claim_row *rows, int n);

#endif
