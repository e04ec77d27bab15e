/* utest.c — the two-sided Mann–Whitney U test: ranks with ties averaged, U, and its p-value
 * from the exact permutation distribution (small samples, ties included) or the normal
 * approximation with the tie correction (see utest.h for the definitions).
 *
 * The exact distribution is counted over the pooled doubled mid-ranks (integers even with
 * ties): c[k][s] is how many ways k of the ranks seen so far can be chosen for sample a with
 * doubled sum s. After N ranks, c[na][s] / C(N, na) is P(2 * rank sum of a = s); U is that
 * rank sum less na(na+1)/2, so its distribution is the same shifted.
 */
#include "utest.h"

#include <math.h>
#include <stdlib.h>

/* A value and the sample it came from, for ranking the pooled samples. */
typedef struct pooled {
    double v;
    int from_a;
} pooled;

static int cmp_pooled(const void *x, const void *y)
{
    double a = ((const pooled *)x)->v, b = ((const pooled *)y)->v;
    return (a > b) - (a < b);
}

/* 2 / C(na + nb, na), at most 1 (see utest.h). */
double utest_p_min(int na, int nb)
{
    if (na < 1 || nb < 1) return 1;
    double c = 1;                                /* C(na + nb, na), as a double */
    for (int i = 1; i <= na; i++) c = c * (double)(nb + i) / (double)i;
    return fmin(1, 2 / c);
}

/* The exact two-sided p of a rank-sum (see utest.h): the subsets of na of the n doubled
 * mid-ranks r2[] are counted by their sum s in c[k][s] (k of them chosen so far), one rank
 * at a time; p is the share of the C(n, na) subsets whose sum is at least as far from the
 * mean na*(n+1) as s_obs. Integers throughout, so "as far" is decided exactly. */
double utest_perm_p(const int *r2, int n, int na, long s_obs)
{
    if (na < 1 || na >= n || n > UTEST_EXACT_MAX) return NAN;
    long smax = 0;
    for (int i = 0; i < n; i++) smax += r2[i];
    double *c = calloc((size_t)(na + 1) * (size_t)(smax + 1), sizeof *c);
    if (!c) return NAN;
#define C(k, v) c[(size_t)(k) * (size_t)(smax + 1) + (size_t)(v)]
    C(0, 0) = 1;
    for (int j = 0; j < n; j++)
        for (int k = na < j + 1 ? na : j + 1; k >= 1; k--)
            for (long v = smax - r2[j]; v >= 0; v--) C(k, v + r2[j]) += C(k - 1, v);
    long mean = (long)na * (n + 1), far = labs(s_obs - mean);
    double tail = 0, total = 0;
    for (long v = 0; v <= smax; v++) {
        total += C(na, v);
        if (labs(v - mean) >= far) tail += C(na, v);
    }
#undef C
    free(c);
    return fmin(1, tail / total);
}

/* The exact two-sided p of U = u without ties (see utest.h): the ranks 1..N, doubled. */
double utest_exact_p(double u, int na, int nb)
{
    int n = na + nb, r2[UTEST_EXACT_MAX];
    if (na < 1 || nb < 1 || n > UTEST_EXACT_MAX) return NAN;
    for (int i = 0; i < n; i++) r2[i] = 2 * (i + 1);
    /* 2 * rank sum of a = 2U + na(na+1) */
    return utest_perm_p(r2, n, na, lround(2 * u) + (long)na * (na + 1));
}

/* Rank the pooled values (ties get their mean rank): the sum of a's ranks, the tie term
 * sum(t^3 - t) over the groups of t equal values, and each value's doubled mid-rank in
 * r2[] (an integer; r2 may be NULL, and is filled only for n <= UTEST_EXACT_MAX). Sorts p. */
static void rank_sum(pooled *p, int n, double *ra, double *tie_term, int *r2)
{
    qsort(p, (size_t)n, sizeof *p, cmp_pooled);
    *ra = *tie_term = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && p[j].v == p[i].v) j++;
        double rank = (double)(i + 1 + j) / 2, t = (double)(j - i);   /* ranks i+1 .. j */
        for (int k = i; k < j; k++) {
            if (p[k].from_a) *ra += rank;
            if (r2 && n <= UTEST_EXACT_MAX) r2[k] = i + 1 + j;
        }
        *tie_term += t * t * t - t;
        i = j;
    }
}

/* The normal approximation's two-sided p (see utest.h). */
double utest_normal_p(double u, int na, int nb, double tie_term)
{
    double n = (double)na + nb, mu = (double)na * nb / 2;
    double var = (double)na * nb / 12 * ((n + 1) - tie_term / (n * (n - 1)));
    if (!(var > 0)) return 1;
    double z = (fabs(u - mu) - 0.5) / sqrt(var);
    return fmin(1, erfc(z / sqrt(2)));
}

/* U and its two-sided p for a against b (see utest.h). */
int utest_run(const double *a, int na, const double *b, int nb, utest *out, idb_err *err)
{
    if (na < 1 || nb < 1 || na > UTEST_N_MAX || nb > UTEST_N_MAX)
        return idb_fail(err, IDB_EINPUT, "U test: samples of %d and %d values (1 to %d each)",
                        na, nb, UTEST_N_MAX);
    int n = na + nb;
    pooled *p = malloc((size_t)n * sizeof *p);
    if (!p) return idb_fail(err, IDB_ENOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        p[i].v = i < na ? a[i] : b[i - na];
        p[i].from_a = i < na;
        if (!isfinite(p[i].v)) {
            free(p);
            return idb_fail(err, IDB_EINPUT, "U test: a value is not finite");
        }
    }
    double ra, tie_term;
    int r2[UTEST_EXACT_MAX];
    rank_sum(p, n, &ra, &tie_term, r2);
    free(p);
    utest r = { .u = ra - (double)na * (na + 1) / 2, .ties = tie_term > 0 };
    r.exact = (na <= UTEST_EXACT_SIDE && nb <= UTEST_EXACT_SIDE) ||
              (!r.ties && n <= UTEST_EXACT_MAX);
    r.p = r.exact ? utest_perm_p(r2, n, na, lround(2 * ra)) : NAN;
    if (r.exact && isnan(r.p)) return idb_fail(err, IDB_ENOMEM, "out of memory");
    if (!r.exact) r.p = utest_normal_p(r.u, na, nb, tie_term);
    *out = r;
    return 0;
}
