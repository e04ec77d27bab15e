/* compare.h — `idbench compare`: two results directories (or two strategies of one) cell by
 * cell, per metric, with the medians, the relative change and a two-sided Mann–Whitney U
 * test over the repeats (utest.h).
 *
 * A cell is one configuration of insert_runs.csv (closed loop) or openloop_runs.csv (open
 * loop): the same strategy, store, shards, IDs, key width, batch, shops, store options,
 * phase and first_strategy (an `insert --then` second phase is a cell of its own, apart from
 * a run's row; a file without the two columns keys as phase main, no first strategy), and
 * rate and commit_ms in the open loop. Each metric is one entry of cmp_metrics: its
 * column, what it is divided by, and which way is better; nothing about a metric is decided
 * anywhere else. A change is judged:
 *   better / worse   the U test's p < alpha, in that direction;
 *   same             p >= alpha (or the medians are equal);
 *   not tested       too few repeats: even the most extreme split could not give p < alpha
 *                    (utest_p_min), so only the change speaks;
 *   no data          one side has no value of the metric for the cell;
 *   only in A / B    the cell is on one side only.
 */
#ifndef IDB_COMPARE_H
#define IDB_COMPARE_H

#include <stdio.h>

#include "err.h"

/* Which way of a metric is better. */
enum cmp_better { CMP_HIGHER = 1, CMP_LOWER = -1 };

/* A metric compare knows: the value of a run is col / per (per NULL: col alone). */
typedef struct cmp_metric {
    const char *name;                            /* --metric NAME */
    const char *col;                             /* the column of the *_runs.csv files */
    const char *per;                             /* divided by this column, or NULL */
    enum cmp_better better;
    int optional;                                /* 1: older results lack the column (then
                                                  * no data), else a missing one is refused */
} cmp_metric;

extern const cmp_metric cmp_metrics[];           /* the table, in output order */
extern const int cmp_n_metrics;                  /* at most CMP_METRICS_MAX */
#define CMP_METRICS_MAX 32                       /* bits of cmp_opts.metrics */

enum cmp_format { CMP_TABLE, CMP_CSV, CMP_JSON };

/* What to compare and how (the command's flags). */
typedef struct cmp_opts {
    const char *dir_a, *dir_b;                   /* the two results directories (borrowed) */
    const char *strat_a, *strat_b;               /* --within: these strategies of dir_a (then
                                                  * dir_b == dir_a); NULL otherwise */
    unsigned metrics;                            /* bit i: cmp_metrics[i]; 0 = every metric */
    double alpha;                                /* significance level, in (0, 1) */
    double fail_pct;                             /* --fail-on-regression; < 0: not given */
    enum cmp_format format;
} cmp_opts;

/* Index of the metric called name in cmp_metrics, or -1. */
int cmp_metric_find(const char *name);

/* Compare as o says and print the result to out (only once everything was read and
 * checked: bad input prints nothing). *regressions gets the number of metric changes worse
 * than o->fail_pct that are significant or not tested (0 when fail_pct < 0). Returns 0, or
 * IDB_EINPUT with err (not a results directory, a format_version this idbench does not
 * compare or different on the two sides, a malformed file, a strategy --within does not find),
 * IDB_EIO (a file that cannot be read) or IDB_ENOMEM. */
int cmp_run(const cmp_opts *o, FILE *out, int *regressions, idb_err *err);

#endif
