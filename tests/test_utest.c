/* test_utest.c — the Mann–Whitney U test (harness/compare/utest.c) against references that
 * do not come from its own code:
 *   - the published table of critical values of U, two-tailed alpha = 0.05 (as printed on
 *     numeracy-bank.net "Mann-Whitney U test" step 3 and in the usual textbook tables, e.g.
 *     n1 = n2 = 20: 127): the exact p must be <= 0.05 at the critical U and above it at U+1;
 *   - brute force: every split of the pooled values into samples of na and nb (enumerated
 *     here), p = the share of splits whose U is at least as far from na*nb/2 as the one
 *     observed; equal to the exact p, with or without ties, up to 10 values a side (random
 *     tied samples and the referee's two tied blocks of 5: 2/252);
 *   - the normal approximation's formula evaluated in Python (math.erfc) for tied samples
 *     above 10 a side;
 *   - scipy.stats.mannwhitneyu's documented example (males 19 22 16 29 24 against females
 *     20 11 17 12: U = 17, exact p = 0.1111111111111111, asymptotic p = 0.11134688653314041).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "utest.h"

#define N(a) ((int)(sizeof(a) / sizeof *(a)))
/* |x - want| <= tol, in doubles (cmocka's float assertion rounds to float). */
#define near(x, want, tol) near_at((x), (want), (tol), __FILE__, __LINE__)
#define ALPHA 0.05

static void near_at(double x, double want, double tol, const char *file, int line)
{
    if (!(fabs(x - want) <= tol)) {
        print_error("%s:%d: %.17g, want %.17g (within %g)\n", file, line, x, want, tol);
        fail();
    }
}

/* Critical U, two-tailed alpha 0.05 (the table above): reject when U <= u. */
static const struct { int n1, n2, u; } critical[] = {
    { 4, 4, 0 }, { 4, 5, 1 }, { 4, 8, 4 }, { 5, 5, 2 }, { 5, 6, 3 }, { 5, 10, 8 },
    { 6, 6, 5 }, { 6, 9, 10 }, { 7, 7, 8 }, { 7, 10, 14 }, { 8, 8, 13 }, { 9, 9, 17 },
    { 10, 10, 23 }, { 10, 20, 55 }, { 20, 20, 127 },
};

static void test_critical_values(void **state)
{
    (void)state;
    for (int i = 0; i < N(critical); i++) {
        double at = utest_exact_p(critical[i].u, critical[i].n1, critical[i].n2);
        double above = utest_exact_p(critical[i].u + 1, critical[i].n1, critical[i].n2);
        if (!(at <= ALPHA && above > ALPHA))
            fail_msg("n1=%d n2=%d: p(U<=%d) = %g, p(U<=%d) = %g", critical[i].n1,
                     critical[i].n2, critical[i].u, at, critical[i].u + 1, above);
    }
}

/* U of a against b: pairs a > b, ties 1/2 (the definition, counted directly). */
static double u_of(const double *a, int na, const double *b, int nb)
{
    double u = 0;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) u += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
    return u;
}

#define POOL_MAX 20

/* The permutation p of a against b: every split of the pooled values, by bit masks. */
static double brute_p(const double *a, int na, const double *b, int nb)
{
    double pool[POOL_MAX], x[POOL_MAX], y[POOL_MAX];
    int n = na + nb;
    for (int i = 0; i < n; i++) pool[i] = i < na ? a[i] : b[i - na];
    double mu = (double)na * nb / 2, far = fabs(u_of(a, na, b, nb) - mu);
    long long hits = 0, total = 0;
    for (uint32_t mask = 0; mask < (1u << n); mask++) {
        if (__builtin_popcount(mask) != na) continue;
        int k = 0, l = 0;
        for (int i = 0; i < n; i++) {
            if (mask >> i & 1) x[k++] = pool[i];
            else y[l++] = pool[i];
        }
        total++;
        hits += fabs(u_of(x, na, y, nb) - mu) >= far - 1e-9;
    }
    return (double)hits / (double)total;
}

static void test_exact_matches_enumeration(void **state)
{
    (void)state;
    static const double a1[] = { 1.5, 2.5, 9, 4, 7.25 }, b1[] = { 3, 5, 6, 8, 10, 11 };
    static const double a2[] = { 10, 20, 30 }, b2[] = { 1, 2, 3, 4, 5, 6, 7 };
    static const double a3[] = { 5, 1, 9, 3, 7, 11, 13 }, b3[] = { 2, 4, 6, 8, 10, 12, 14, 15 };
    static const struct { const double *a, *b; int na, nb; } s[] = {
        { a1, b1, N(a1), N(b1) }, { a2, b2, N(a2), N(b2) }, { a3, b3, N(a3), N(b3) },
        { b1, a1, N(b1), N(a1) },
    };
    for (int i = 0; i < N(s); i++) {
        utest r;
        assert_int_equal(utest_run(s[i].a, s[i].na, s[i].b, s[i].nb, &r, NULL), 0);
        assert_true(r.exact);
        assert_false(r.ties);
        near(r.u, u_of(s[i].a, s[i].na, s[i].b, s[i].nb), 1e-12);
        near(r.p, brute_p(s[i].a, s[i].na, s[i].b, s[i].nb), 1e-12);
    }
}

static void test_scipy_example(void **state)
{
    (void)state;
    static const double males[] = { 19, 22, 16, 29, 24 }, females[] = { 20, 11, 17, 12 };
    utest r;
    assert_int_equal(utest_run(males, N(males), females, N(females), &r, NULL), 0);
    near(r.u, 17, 0);
    assert_true(r.exact);
    near(r.p, 0.1111111111111111, 1e-12);
    near(utest_normal_p(r.u, N(males), N(females), 0), 0.11134688653314041,
                        1e-12);
}

/* Many ties, 8 against 8: the exact permutation p (ties included) is the enumerated one,
 * 0.008547; the normal approximation, which compare used here before, gives
 * 0.00834417272122451 (the formula evaluated in Python with math.erfc, apart from this
 * code; tie term 198); without the tie correction it would be 0.010082. */
static void test_ties_small_exact(void **state)
{
    (void)state;
    static const double a[] = { 1, 1, 1, 2, 2, 3, 3, 3 }, b[] = { 2, 3, 3, 4, 4, 4, 5, 5 };
    utest r;
    assert_int_equal(utest_run(a, N(a), b, N(b), &r, NULL), 0);
    assert_true(r.ties);
    assert_true(r.exact);
    near(r.u, 7, 0);
    near(r.p, brute_p(a, N(a), b, N(b)), 1e-12);
    near(utest_normal_p(7, N(a), N(b), 198), 0.00834417272122451, 1e-12);
}

/* The referee's case: all 5 of A equal, all 5 of B equal and larger. Only the two splits
 * that keep the blocks whole are as extreme: p = 2 / C(10, 5) = 2/252 = 0.0079365 (the
 * normal approximation said 0.00398, below what any 5-against-5 test can reach). */
static void test_tied_blocks(void **state)
{
    (void)state;
    static const double a[] = { 7, 7, 7, 7, 7 }, b[] = { 9, 9, 9, 9, 9 };
    utest r;
    assert_int_equal(utest_run(a, N(a), b, N(b), &r, NULL), 0);
    assert_true(r.exact);
    near(r.u, 0, 0);
    near(r.p, 2.0 / 252, 1e-12);
    assert_int_equal(utest_run(b, N(b), a, N(a), &r, NULL), 0);
    near(r.u, 25, 0);
    near(r.p, 2.0 / 252, 1e-12);
    /* 4 against 4 blocks: 2/70 */
    assert_int_equal(utest_run(a, 4, b, 4, &r, NULL), 0);
    near(r.p, 2.0 / 70, 1e-12);
}

/* Random tied samples of up to 10 a side (values 0..3, so ties everywhere): every p is the
 * share of the enumerated splits (brute_p), and says "exact". */
static void test_ties_random_enumerated(void **state)
{
    (void)state;
    static const int sizes[][2] = { { 2, 3 }, { 3, 3 }, { 4, 4 }, { 5, 5 }, { 3, 7 },
                                    { 6, 5 }, { 7, 7 }, { 10, 10 } };
    uint32_t x = 12345;
    double a[10], b[10];
    for (int s = 0; s < N(sizes); s++)
        for (int rep = 0; rep < (sizes[s][0] + sizes[s][1] > 16 ? 2 : 40); rep++) {
            int na = sizes[s][0], nb = sizes[s][1];
            for (int i = 0; i < na + nb; i++) {
                x = x * 1103515245u + 12345u;
                double v = (double)(x >> 16 & 3);
                if (i < na) a[i] = v;
                else b[i - na] = v + (rep % 3 == 0);     /* b shifted up in a third */
            }
            utest r;
            assert_int_equal(utest_run(a, na, b, nb, &r, NULL), 0);
            double want = brute_p(a, na, b, nb);
            if (!r.exact || fabs(r.p - want) > 1e-12)
                fail_msg("%d vs %d, case %d: p %.17g (exact %d), enumerated %.17g", na, nb, rep,
                         r.p, r.exact, want);
        }
}

/* Above 10 a side with ties: the normal approximation with the tie correction. 12 against
 * 13, U = 36.5, tie term 228, p = 0.024666640118439394 (the formula in Python, math.erfc). */
static void test_ties_normal_large(void **state)
{
    (void)state;
    static const double a[] = { 1, 1, 2, 2, 2, 3, 3, 4, 5, 5, 6, 7 },
                        b[] = { 2, 3, 3, 4, 4, 5, 6, 6, 7, 7, 8, 8, 9 };
    utest r;
    assert_int_equal(utest_run(a, N(a), b, N(b), &r, NULL), 0);
    assert_true(r.ties);
    assert_false(r.exact);
    near(r.u, 36.5, 0);
    near(r.p, 0.024666640118439394, 1e-12);
}

static void test_degenerate(void **state)
{
    (void)state;
    static const double same[] = { 4, 4, 4, 4, 4 }, one[] = { 1 };
    utest r = { 0 };
    assert_int_equal(utest_run(same, N(same), same, N(same), &r, NULL), 0);
    near(r.p, 1, 0);                       /* no spread: nothing to test */
    assert_int_equal(utest_run(same, 0, one, 1, &r, NULL), IDB_EINPUT);
    static const double bad[] = { 1, NAN };
    assert_int_equal(utest_run(bad, N(bad), one, 1, &r, NULL), IDB_EINPUT);
}

/* The least p: 2 / C(na + nb, na); 3 against 3 cannot reach 0.05, 5 against 5 can. */
static void test_p_min(void **state)
{
    (void)state;
    near(utest_p_min(3, 3), 0.1, 1e-12);
    near(utest_p_min(5, 5), 2.0 / 252, 1e-12);
    near(utest_p_min(1, 1), 1, 0);
    near(utest_p_min(0, 4), 1, 0);
    near(utest_exact_p(0, 3, 3), utest_p_min(3, 3), 1e-12);
    near(utest_exact_p(0, 5, 5), utest_p_min(5, 5), 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_critical_values), cmocka_unit_test(test_exact_matches_enumeration),
        cmocka_unit_test(test_scipy_example), cmocka_unit_test(test_ties_small_exact),
        cmocka_unit_test(test_tied_blocks), cmocka_unit_test(test_ties_random_enumerated),
        cmocka_unit_test(test_ties_normal_large),
        cmocka_unit_test(test_degenerate), cmocka_unit_test(test_p_min),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
