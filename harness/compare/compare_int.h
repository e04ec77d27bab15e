/* compare_int.h — what compare.c (reading, matching, judging) hands compare_out.c (printing
 * the table, CSV or JSON): one row per cell and metric, or per cell on one side only. */
#ifndef IDB_COMPARE_INT_H
#define IDB_COMPARE_INT_H

#include "compare.h"

#define CMP_LABEL_MAX 256                        /* a cell's label, with its NUL */

/* How a row was judged (compare.h says what each means); cmp_verdicts[] names them. */
enum cmp_verdict {
    CMP_SAME, CMP_BETTER, CMP_WORSE, CMP_NOT_TESTED, CMP_NO_DATA, CMP_ONLY_A, CMP_ONLY_B,
    CMP_VERDICTS
};
extern const char *const cmp_verdicts[CMP_VERDICTS];

typedef struct cmp_row {
    const char *loop;                            /* "closed" or "open" */
    char cell[CMP_LABEL_MAX];
    const cmp_metric *m;                         /* NULL for a cell on one side only */
    double a, b;                                 /* medians over the repeats (NAN: none) */
    double change_pct;                           /* (b - a) / a * 100 (NAN: unknown) */
    double p;                                    /* two-sided p (NAN: not tested) */
    double p_min;                                /* the least p these repeats allow */
    int na, nb;                                  /* repeats with a value */
    int exact;                                   /* p from the exact distribution */
    enum cmp_verdict verdict;
    int regression;                              /* beyond --fail-on-regression */
} cmp_row;

/* The rows of a comparison, and what the output says about it. */
typedef struct cmp_result {
    cmp_row *rows;
    int n, cap;
    const cmp_opts *o;
} cmp_result;

/* Print r to out in r->o->format. */
void cmp_print(const cmp_result *r, FILE *out);

#endif
