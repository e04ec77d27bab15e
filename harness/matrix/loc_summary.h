/* loc_summary.h — `idbench locality`'s summary: from one measured insert run per (store,
 * strategy), the table a person reads at a glance (each figure with its ratio to counter on
 * the same store), two sentences derived from the figures, a CSV of the figures and one plot.
 *
 * The rows hold what the insert runner measured (counts, not per-ID roundings); every ratio
 * is computed here from those counts. A ratio whose denominator counts fewer than
 * MX_LOC_FEW events is printed as the two counts ("77,908 vs 1") instead of a multiple.
 * The runs themselves are made by harness/cli/cmd_locality.c.
 */
#ifndef IDB_LOC_SUMMARY_H
#define IDB_LOC_SUMMARY_H

#include <stdio.h>

#include "err.h"

#define MX_LOC_FEW 30                  /* fewer events than this: print counts, not a ratio */
#define MX_LOC_BASE "counter"          /* every ratio is against this strategy's row */
#define MX_LOC_END_SHARE 0.5           /* a strategy whose keys land at the end this often
                                          (tail_insert_frac) is called ordered in the prose */

/* One run. Unknown figures are negative. */
typedef struct mx_loc_row {
    const char *store, *strategy;      /* borrowed names */
    int key_bytes;                     /* the key as stored */
    int padded;                        /* 1: a narrower ID padded to key_bytes (-s key_bytes) */
    long long ids;                     /* rows inserted */
    double pages_written;              /* pages written to the store's files, checkpoints too */
    double fill;                       /* leaf fill factor, 0-1 */
    double tail;                       /* share of inserts at the end of the index, 0-1 */
    double misses;                     /* pages the store's cache lacked */
    double inserts_per_s;              /* measured (pagesim: unknown, it only counts) */
} mx_loc_row;

/* The index of the row of MX_LOC_BASE, not padded, on rows[i]'s store; -1 when none. */
int mx_loc_base(const mx_loc_row *rows, int n, int i);

/* The share of a with b as base, for the table and the prose: "33.5x" from unrounded figures,
 * or "77,908 vs 1" when count_like and b < MX_LOC_FEW, or "n/a" when either is unknown or
 * b is 0. buf of len bytes; returns buf. */
const char *mx_loc_ratio(double a, double b, int count_like, char *buf, size_t len);

/* Print the table (one line per row, aligned columns; per store a blank line) to f. */
void mx_loc_print(FILE *f, const mx_loc_row *rows, int n);

/* Write the two sentences (what the figures show) into buf, ending in a newline. Returns 0,
 * or IDB_EINPUT when no store has a base row to compare with (buf then says so). */
int mx_loc_sentences(const mx_loc_row *rows, int n, char *buf, size_t len);

/* Write the rows as CSV (header, then one line per row, figures unrounded) to path through
 * a temporary name. Returns 0 or IDB_EIO with err. */
int mx_loc_write_csv(const char *path, const mx_loc_row *rows, int n, idb_err *err);

/* Draw pages written per ID by store and strategy (plots/locality.gp) into the PNG file
 * png. Returns 0, IDB_EIO (gnuplot failed, or the file could not be written) or
 * IDB_EINPUT with err. */
int mx_loc_plot(const char *png, const mx_loc_row *rows, int n, idb_err *err);

#endif
