/* colors.c — a colour for every strategy, however many the registry holds (matrix.h).
 *
 * A strategy's colour follows from its index in `idbench list` order, so it is the same in
 * every plot and run. The first ones are Tableau 10's colours without its grey (grey and
 * black are the peers' and the clock read's in the generation plot) and two darker ones, as
 * before; after them come colours made in OKLab (a perceptually uniform space, Ottosson
 * 2020): hues a golden angle apart at five lightnesses, each kept only when it lies at least
 * MIN_DE (OKLab distance) from every colour before it and from grey, black and white, so a
 * new strategy never gets a colour that looks like another's. Names not in the registry hash
 * onto the same sequence past the registry's end.
 *
 * A name NAME@BACKEND (a strategy on a counter server: counter@redis) takes NAME's colour;
 * mx_variant tells the plots to draw it with a pattern or dash instead.
 */
#include "matrix.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_COLORS MX_COLORS_MAX
#define HASHED 16                        /* slots past the registry for unknown names */
#define MIN_DE 0.07                      /* least OKLab distance between two colours */
#define GOLDEN_DEG 137.50776405003785
#define CANDIDATES 20000                 /* hues tried before giving up on MIN_DE */

static const char *const fixed[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
    "#e377c2", "#17becf", "#bcbd22", "#393b79", "#637939",
};
#define N_FIXED ((int)(sizeof fixed / sizeof *fixed))
static const char *const avoid[] = { "#a0a0a0", "#7f7f7f", "#000000", "#ffffff" };
#define N_AVOID ((int)(sizeof avoid / sizeof *avoid))

typedef struct lab { double L, a, b; } lab;

/* sRGB's transfer function and its inverse. */
static double to_linear(double c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double to_gamma(double c)
{
    return c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055;
}

/* "#rrggbb" to OKLab. */
static lab from_hex(const char *hex)
{
    unsigned v = 0;
    sscanf(hex + 1, "%6x", &v);
    double r = to_linear((v >> 16 & 255) / 255.0), g = to_linear((v >> 8 & 255) / 255.0),
           b = to_linear((v & 255) / 255.0);
    double l = cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
    double m = cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
    double s = cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
    return (lab){ 0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s,
                  1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
                  0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s };
}

/* OKLab to "#rrggbb" in out (8 bytes); 0 when the colour lies outside sRGB. */
static int to_hex(lab c, char *out)
{
    double l = c.L + 0.3963377774 * c.a + 0.2158037573 * c.b;
    double m = c.L - 0.1055613458 * c.a - 0.0638541728 * c.b;
    double s = c.L - 0.0894841775 * c.a - 1.2914855480 * c.b;
    l = l * l * l, m = m * m * m, s = s * s * s;
    double rgb[3] = { 4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
                      -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
                      -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s };
    int v[3];
    for (int i = 0; i < 3; i++) {
        if (rgb[i] < 0 || rgb[i] > 1) return 0;
        v[i] = (int)lround(255 * to_gamma(rgb[i]));
    }
    snprintf(out, 8, "#%02x%02x%02x", v[0], v[1], v[2]);
    return 1;
}

static double dist(lab x, lab y)
{
    return sqrt((x.L - y.L) * (x.L - y.L) + (x.a - y.a) * (x.a - y.a) + (x.b - y.b) * (x.b - y.b));
}

static char colors[MAX_COLORS][8];
static int n_colors;

/* Whether hex lies MIN_DE from every colour made so far and from the avoided ones. */
static int apart(const char *hex)
{
    lab c = from_hex(hex);
    for (int i = 0; i < N_AVOID; i++)
        if (dist(c, from_hex(avoid[i])) < MIN_DE) return 0;
    for (int i = 0; i < n_colors; i++)
        if (dist(c, from_hex(colors[i])) < MIN_DE) return 0;
    return 1;
}

/* Make the colour sequence once (single-threaded callers: the plots). */
static void make_colors(void)
{
    static const double lightness[] = { 0.55, 0.70, 0.42, 0.62, 0.48 };
    for (int i = 0; i < N_FIXED; i++) snprintf(colors[n_colors++], 8, "%s", fixed[i]);
    for (int j = 0; j < CANDIDATES && n_colors < MAX_COLORS; j++) {
        double h = fmod(j * GOLDEN_DEG + 20, 360) * M_PI / 180;
        lab c = { lightness[j % 5], 0.14 * cos(h), 0.14 * sin(h) };
        char hex[8];
        if (to_hex(c, hex) && apart(hex)) snprintf(colors[n_colors++], 8, "%s", hex);
    }
    while (n_colors < MAX_COLORS) {                   /* never reached with MIN_DE as set */
        snprintf(colors[n_colors], 8, "%s", fixed[n_colors % N_FIXED]);
        n_colors++;
    }
}

const char *mx_color_at(int k)
{
    if (!n_colors) make_colors();
    return k >= 0 && k < MAX_COLORS ? colors[k] : NULL;
}

const char *mx_color(const char *strategy)
{
    if (!n_colors) make_colors();
    char base[128];
    snprintf(base, sizeof base, "%.*s", (int)strcspn(strategy, "@"), strategy);
    int n = 0;
    for (const idb_strategy *const *s = idb_strategies; *s; s++) n++;
    int rank = mx_strategy_rank(base);
    if (rank < n && rank < MAX_COLORS - HASHED) return colors[rank];
    unsigned h = 5381;                                /* not in the registry: hash */
    for (const char *p = base; *p; p++) h = h * 33 + (unsigned char)*p;
    int first = n < MAX_COLORS - HASHED ? n : MAX_COLORS - HASHED;
    return colors[first + (int)(h % HASHED)];
}

int mx_variant(const char *name)
{
    static const char *const backends[] = { "postgres", "redis", "etcd", "mariadb" };
    const char *at = strchr(name, '@');
    if (!at) return 0;
    for (int i = 0; i < (int)(sizeof backends / sizeof *backends); i++)
        if (!strcmp(at + 1, backends[i])) return i + 1;
    return 1;
}
