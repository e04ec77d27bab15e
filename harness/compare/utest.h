/* utest.h — the two-sided Mann–Whitney U test (Wilcoxon rank-sum test) over two samples of
 * repeats, as `idbench compare` uses it (and Google Benchmark's compare.py).
 *
 * U of sample a counts the pairs (a_i, b_j) with a_i > b_j, a tie counting one half; under
 * the null hypothesis (both samples from one distribution) it has mean na*nb/2. The p-value:
 *   - exact when both samples have at most UTEST_EXACT_SIDE values (ties or not), or without
 *     ties with na + nb <= UTEST_EXACT_MAX: U's permutation distribution over every way of
 *     splitting the pooled mid-ranks into na and nb (counted by a recurrence, not sampled),
 *     p = P(|U - na*nb/2| >= |U_obs - na*nb/2|);
 *   - otherwise the normal approximation with the tie correction of the variance and a
 *     continuity correction of 1/2 (as scipy.stats.mannwhitneyu's "asymptotic" method).
 *     With ties and few runs it is far off (5 tied against 5 tied: 0.00398 where the
 *     exact p is 2/252 = 0.00794), hence the exact test up to UTEST_EXACT_SIDE.
 * With few repeats even the most extreme split cannot reach a small p: utest_p_min says how
 * low p can go, and a caller says "too few repeats" when that is above its alpha.
 */
#ifndef IDB_UTEST_H
#define IDB_UTEST_H

#include "err.h"

#define UTEST_EXACT_MAX 40       /* na + nb of an exact p: C(40,20) < 2^53, counts exact */
#define UTEST_EXACT_SIDE 10      /* both samples this small: exact even with ties */
#define UTEST_N_MAX 100000       /* repeats of one sample, at most */

typedef struct utest {
    double u;                    /* U of sample a (pairs a > b, ties 1/2) */
    double p;                    /* two-sided p-value, in [0, 1] */
    int exact;                   /* 1: the exact distribution; 0: the normal approximation */
    int ties;                    /* 1: some values are equal (across or within samples) */
} utest;

/* Run the test on a[0..na) and b[0..nb) (both borrowed, not changed; every value finite).
 * Returns 0, IDB_EINPUT when a sample is empty, larger than UTEST_N_MAX or holds a value
 * that is not finite, or IDB_ENOMEM; out is then left alone. */
int utest_run(const double *a, int na, const double *b, int nb, utest *out, idb_err *err);

/* The smallest two-sided p the test can give for samples of na and nb values without ties:
 * 2 / C(na + nb, na), at most 1 (3 against 3 repeats: 0.1). 1 when a sample is empty. */
double utest_p_min(int na, int nb);

/* The exact two-sided p for U = u of samples of na and nb values without ties (u in
 * [0, na*nb]); the distribution is counted for na + nb <= UTEST_EXACT_MAX only: NAN beyond,
 * or when out of memory. */
double utest_exact_p(double u, int na, int nb);

/* The exact two-sided permutation p of a rank sum: r2[0..n) are the pooled doubled
 * mid-ranks (integers; borrowed), s_obs twice the observed rank sum of sample a (na of
 * the n values). p = the share of the C(n, na) subsets of r2 whose sum is as far from
 * na*(n+1) as s_obs or farther. NAN when na is not in [1, n), n > UTEST_EXACT_MAX, or
 * out of memory. */
double utest_perm_p(const int *r2, int n, int na, long s_obs);

/* The normal approximation's two-sided p for U = u of samples of na and nb values, with
 * tie_term = sum(t^3 - t) over the groups of t equal values (0 without ties): continuity
 * correction 1/2, variance corrected for ties; 1 when every value is equal. */
double utest_normal_p(double u, int na, int nb, double tie_term);

#endif
