/* cmd_compare.c — `idbench compare`: did a change make things better or worse?
 *
 *   idbench compare RESULTS_A RESULTS_B [--metric M]... [--alpha A] [--format table|csv|json]
 *                   [--fail-on-regression PCT]
 *   idbench compare --within RESULTS --a STRATEGY --b STRATEGY [same flags]
 *
 * The comparison itself is harness/compare/ (compare.h). Exit status 0; 3 with
 * --fail-on-regression PCT when some metric got worse by more than PCT percent and the
 * change is significant (or not tested: too few repeats); 2 for bad input (one idbench:
 * line, nothing on stdout); 1 for a runtime failure.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare.h"

#define EXIT_REGRESSION 3                        /* a regression beyond --fail-on-regression */
#define ALPHA_DEFAULT 0.05
#define PCT_MAX 1e6                              /* --fail-on-regression, at most */

/* The --format words, by enum cmp_format. */
static const struct { const char *word; enum cmp_format format; } formats[] = {
    { "table", CMP_TABLE }, { "csv", CMP_CSV }, { "json", CMP_JSON },
};

/* A finite decimal in (lo, hi] (lo_open) or [lo, hi] for flag into *out. Returns 0 or 2
 * after an error line. */
static int parse_real(const char *flag, const char *s, double lo, double hi, int lo_open,
                      double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end || s[strspn(s, "0123456789.eE+-")] || !isfinite(v) || v > hi || v < lo ||
        (lo_open && v == lo))
        return cli_usage("compare", "compare: %s '%s': want a number %s%g, %g]", flag, s,
                         lo_open ? "in (" : "in [", lo, hi);
    *out = v;
    return 0;
}

/* --metric NAME into o->metrics. Returns 0 or 2 after an error line naming the metrics. */
static int add_metric(cmp_opts *o, const char *name)
{
    int m = cmp_metric_find(name);
    if (m >= 0) {
        o->metrics |= 1u << m;
        return 0;
    }
    char list[512];
    size_t n = 0;
    for (int i = 0; i < cmp_n_metrics && n < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "",
                              cmp_metrics[i].name);
    return cli_usage("compare", "compare: unknown metric '%s' (metrics: %s)", name, list);
}

/* --format WORD into o->format. Returns 0 or 2 after an error line. */
static int set_format(cmp_opts *o, const char *word)
{
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (!strcmp(formats[i].word, word)) {
            o->format = formats[i].format;
            return 0;
        }
    return cli_usage("compare", "compare: --format '%s': want table, csv or json", word);
}

/* One flag c with its argument arg into o. Returns 0 or 2 after an error line. */
static int one_flag(cmp_opts *o, int c, const char *arg, const char *bad)
{
    enum { O_METRIC = 256, O_ALPHA, O_FORMAT, O_FAIL, O_WITHIN, O_A, O_B };
    switch (c) {
    case O_METRIC: return add_metric(o, arg);
    case O_ALPHA: return parse_real("--alpha", arg, 0, 1, 1, &o->alpha);
    case O_FORMAT: return set_format(o, arg);
    case O_FAIL: return parse_real("--fail-on-regression", arg, 0, PCT_MAX, 0, &o->fail_pct);
    case O_WITHIN: o->dir_a = o->dir_b = arg; return 0;
    case O_A: o->strat_a = arg; return 0;
    case O_B: o->strat_b = arg; return 0;
    default:
        return cli_usage("compare", "compare: unknown flag or missing value '%s'", bad);
    }
}

/* The command line into o. Returns 0 or 2 after an error line. */
static int parse_args(int argc, char **argv, cmp_opts *o)
{
    static const struct option longopts[] = {
        { "metric", required_argument, 0, 256 }, { "alpha", required_argument, 0, 257 },
        { "format", required_argument, 0, 258 },
        { "fail-on-regression", required_argument, 0, 259 },
        { "within", required_argument, 0, 260 }, { "a", required_argument, 0, 261 },
        { "b", required_argument, 0, 262 }, { 0 },
    };
    int c, rc, within = 0;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        within |= c == 260;
        if ((rc = one_flag(o, c, optarg, argv[optind - 1]))) return rc;
    }
    int npos = argc - optind;
    if (within && (npos || !o->strat_a || !o->strat_b))
        return cli_usage("compare", "compare: --within takes --a and --b and no directories");
    if (!within && (o->strat_a || o->strat_b))
        return cli_usage("compare", "compare: --a and --b go with --within");
    if (!within && npos != 2)
        return cli_usage("compare", "compare takes two results directories");
    if (!within) {
        o->dir_a = argv[optind];
        o->dir_b = argv[optind + 1];
    }
    return 0;
}

/* idbench compare: parse, compare, print; the exit status says whether it regressed. */
int cmd_compare(int argc, char **argv)
{
    cmp_opts o = { .alpha = ALPHA_DEFAULT, .fail_pct = -1, .format = CMP_TABLE };
    int rc = parse_args(argc, argv, &o), regressions = 0;
    if (rc) return rc;
    idb_err err = { 0 };
    if (cmp_run(&o, stdout, &regressions, &err) != 0) return cli_fail_err(&err);
    if (o.fail_pct < 0 || regressions == 0) return 0;
    fflush(stdout);
    fprintf(stderr, "idbench: compare: %d change%s worse than %g%%\n", regressions,
            regressions == 1 ? "" : "s", o.fail_pct);
    return EXIT_REGRESSION;
}
