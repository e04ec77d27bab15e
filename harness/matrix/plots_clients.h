/* plots_clients.h — inside harness/matrix only: the clients sweep of insert.csv (rows of
 * insert --clients C), which plots_clients.c draws and describes, and the verdict its
 * report sentence rests on (tests call both).
 */
#ifndef IDB_MATRIX_PLOTS_CLIENTS_H
#define IDB_MATRIX_PLOTS_CLIENTS_H

#include "plots.h"

#define MX_SWEEP_LINES_MAX 16
#define MX_SWEEP_POINTS_MAX 16
#define MX_RANDOM_LINE "uuidv4"                  /* the random keys ordered ones are set against */
#define MX_NO_ADVANTAGE (-1LL)                   /* mx_clients_lose_at: none to lose */

/* A line of the sweep: a strategy at a key width. */
typedef struct mx_sweep_line {
    const char *strategy;                        /* borrowed from the table */
    long long key_bytes;
    int padded;                                  /* 1: wider than the strategy's own keys */
    char title[MX_TITLE_LEN];                    /* "counter" or "counter (16 B)" */
} mx_sweep_line;

/* The sweep: the stores with a row at clients > 1 (in file order), each at the size, shard
 * count and batch of its first such row; the lines (registry order, then width); the
 * clients values (ascending, 1 included). */
typedef struct mx_sweep {
    const char *stores[MX_STORES_MAX];
    long long ids[MX_STORES_MAX], shards[MX_STORES_MAX], batch[MX_STORES_MAX];
    int nst;
    mx_sweep_line lines[MX_SWEEP_LINES_MAX];
    int nl;
    long long clients[MX_SWEEP_POINTS_MAX];
    int nc;
} mx_sweep;

/* Fill s from r's insert.csv. Returns 1, or 0 when no row has more than one writer. */
int mx_sweep_make(const mx_results *r, mx_sweep *s);
/* The insert.csv row of line l on store k of s at clients c, or -1. */
int mx_sweep_row(const mx_results *r, const mx_sweep *s, int k, const mx_sweep_line *l,
                 long long c);
/* Column col of that row, NaN when there is no such row or the value is unknown. */
double mx_sweep_value(const mx_results *r, const mx_sweep *s, int k, const mx_sweep_line *l,
                      long long c, const char *col);

/* Whether ordered keys lose their throughput advantage over random keys as writers grow:
 * at clients c[0..n) (ascending) with the ordered and random rates (points where either is
 * not > 0 are skipped), MX_NO_ADVANTAGE when the ordered rate is not above the random one
 * at the first point, 0 when it stays above at every point, else the first c where it is
 * not. An advantage is a higher median rate, nothing more (no margin). */
long long mx_clients_lose_at(const long long *c, const double *ordered, const double *random,
                             int n);

#endif
