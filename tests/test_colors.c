/* test_colors.c — every strategy gets a colour of its own (colors.c): the first
 * MX_COLORS_MAX - 16 colours of the sequence lie pairwise apart, and apart from the peers'
 * grey, the clock read's black and the white background, by a distance computed here
 * independently of colors.c (Euclidean in sRGB weighted by the "redmean" rule); the
 * registry's k-th strategy has the k-th colour; NAME@BACKEND has NAME's colour and a
 * variant of its own; an unknown name gets a colour that is none of the registry's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "matrix.h"

#define APART 50.0              /* least redmean distance (0-765) between two colours */
#define SEQ (MX_COLORS_MAX - 16)  /* colours the registry can take */

/* The redmean distance between two "#rrggbb" colours. */
static double distance(const char *x, const char *y)
{
    unsigned a, b;
    assert_int_equal(sscanf(x, "#%6x", &a), 1);
    assert_int_equal(sscanf(y, "#%6x", &b), 1);
    double r1 = a >> 16 & 255, g1 = a >> 8 & 255, b1 = a & 255;
    double r2 = b >> 16 & 255, g2 = b >> 8 & 255, b2 = b & 255, rm = (r1 + r2) / 2;
    double dr = r1 - r2, dg = g1 - g2, db = b1 - b2;
    return sqrt((2 + rm / 256) * dr * dr + 4 * dg * dg + (2 + (255 - rm) / 256) * db * db);
}

static void colours_apart(void **state)
{
    (void)state;
    static const char *const others[] = { "#a0a0a0", "#7f7f7f", "#000000", "#ffffff" };
    for (int i = 0; i < SEQ; i++) {
        const char *c = mx_color_at(i);
        assert_non_null(c);
        for (size_t o = 0; o < sizeof others / sizeof *others; o++)
            if (distance(c, others[o]) < APART)
                fail_msg("colour %d %s is too near %s (%.0f)", i, c, others[o],
                         distance(c, others[o]));
        for (int j = 0; j < i; j++)
            if (distance(c, mx_color_at(j)) < APART)
                fail_msg("colours %d %s and %d %s are too near (%.0f)", j, mx_color_at(j), i, c,
                         distance(c, mx_color_at(j)));
    }
    assert_null(mx_color_at(MX_COLORS_MAX));
}

static void registry_order(void **state)
{
    (void)state;
    int k = 0;
    for (const idb_strategy *const *s = idb_strategies; *s; s++, k++)
        if (strcmp(mx_color((*s)->name), mx_color_at(k)))
            fail_msg("%s (registry %d) has %s, not %s", (*s)->name, k, mx_color((*s)->name),
                     mx_color_at(k));
    assert_true(k < SEQ);
    /* a name not in the registry: none of the registry's colours */
    const char *u = mx_color("no-such-strategy");
    for (int i = 0; i < k; i++) assert_string_not_equal(u, mx_color_at(i));
}

static void server_variants(void **state)
{
    (void)state;
    assert_string_equal(mx_color("counter@redis"), mx_color("counter"));
    assert_string_equal(mx_color("counter@postgres"), mx_color("counter"));
    assert_string_equal(mx_color("segment@postgres"), mx_color("segment"));
    assert_int_equal(mx_variant("counter"), 0);
    assert_true(mx_variant("counter@postgres") > 0);
    assert_true(mx_variant("counter@redis") > 0);
    assert_int_not_equal(mx_variant("counter@postgres"), mx_variant("counter@redis"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(colours_apart),
        cmocka_unit_test(registry_order),
        cmocka_unit_test(server_variants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
