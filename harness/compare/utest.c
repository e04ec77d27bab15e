/* utest.c — the two-sided Mann–Whitney U test: ranks with ties averaged, U, and its p-value
 * from the exact distribution (small samples without ties) or the normal approximation with
 * the tie correction (see utest.h for the definitions).
 *
 * The exact distribution is counted over the ranks 1..N: c[k][u] is how many ways k ranks of
 * sample a can be chosen among the ranks seen so far with k ranks giving U = u (a rank j,
 * 0-based, chosen as the k-th of a has j - (k - 1) ranks of b below it). After N ranks,
 * c[na][u] / C(N, na) is P(U = u).
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

/* The exact two-sided p of U = u (see utest.h). */
double utest_exact_p(double u, int na, int nb)
{
    if (na < 1 || nb < 1 || na + nb > UTEST_EXACT_MAX) return NAN;
    int umax = na * nb, n = na + nb;
    double *c = calloc((size_t)(na + 1) * (size_t)(umax + 1), sizeof *c);
    if (!c) return NAN;
#define C(k, v) c[(size_t)(k) * (size_t)(umax + 1) + (size_t)(v)]
    C(0, 0) = 1;
    for (int j = 0; j < n; j++)
        for (int k = na < j + 1 ? na : j + 1; k >= 1; k--) {
            int d = j - (k - 1);                 /* ranks of b below this one */
            if (d > nb) continue;
            for (int v = umax - d; v >= 0; v--) C(k, v + d) += C(k - 1, v);
        }
    double lo = fmin(u, (double)umax - u), tail = 0, total = 0;
    for (int v = 0; v <= umax; v++) {
        total += C(na, v);
        if (v <= lo) tail += C(na, v);
    }
#undef C
    free(c);
    return fmin(1, 2 * tail / total);
}

/* Rank the pooled values (ties get their mean rank): the sum of a's ranks, and the tie
 * term sum(t^3 - t) over the groups of t equal values. Sorts p. */
static void rank_sum(pooled *p, int n, double *ra, double *tie_term)
{
    qsort(p, (size_t)n, sizeof *p, cmp_pooled);
    *ra = *tie_term = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && p[j].v == p[i].v) j++;
        double rank = (double)(i + 1 + j) / 2, t = (double)(j - i);   /* ranks i+1 .. j */
        for (int k = i; k < j; k++)
            if (p[k].from_a) *ra += rank;
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
    rank_sum(p, n, &ra, &tie_term);
    free(p);
    utest r = { .u = ra - (double)na * (na + 1) / 2, .ties = tie_term > 0 };
    r.exact = !r.ties && n <= UTEST_EXACT_MAX;
    r.p = r.exact ? utest_exact_p(r.u, na, nb) : NAN;
    if (r.exact && isnan(r.p)) return idb_fail(err, IDB_ENOMEM, "out of memory");
    if (!r.exact) r.p = utest_normal_p(r.u, na, nb, tie_term);
    *out = r;
    return 0;
}
