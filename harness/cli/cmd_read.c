/* cmd_read.c — idbench read: point lookups by ID, or range and shop queries, on the store an
 * `idbench insert --dir D` run left in D (runner/read.h), printed as one CSV row or JSON
 * object with the writers insert uses (fields.h). Every flag, D and its insert record are
 * checked before anything is made; the read changes nothing in D (its lock file comes and
 * goes). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fields.h"
#include "keys.h"
#include "read.h"
#include "strategy.h"

#define LOOKUPS_MAX (1LL << 32)          /* -n */
#define PATTERN_CHARS 64                 /* the pattern as printed */
#define FIELDS_MAX 24

/* Everything read's command line says. */
typedef struct read_args {
    idb_read_config cfg;
    const char *store, *format, *cache, *pattern;
    char pattern_text[PATTERN_CHARS];
} read_args;

/* A percentage in text (a finite decimal) into *v within [lo, hi]; 0 or -1. */
static int pct(const char *text, double lo, double hi, double *v)
{
    return idb_parse_double(text, v) == 0 && *v >= lo && *v <= hi ? 0 : -1;
}

/* A window "N" + unit (ms, s, m, h) into *ms; 0 or -1. */
static int window(const char *text, int64_t *ms)
{
    static const struct { const char *unit; int64_t ms; } units[] = {
        { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
    };
    char *end;
    long long n = strtoll(text, &end, 10);
    if (end == text || text[0] == '-' || text[0] == '+' || n < 0 || n > (1LL << 40)) return -1;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(end, units[i].unit) == 0) {
            *ms = n * units[i].ms;
            return 0;
        }
    return -1;
}

/* --pattern range:W | shop | shop:W into c (ok 1), or ok 0 when buf is neither. */
static int parse_query(idb_read_config *c, const char *buf, const char *p1, const char *p2)
{
    if (strcmp(buf, "range") == 0 && p1 && !p2) {
        c->pattern = IDB_READ_RANGE;
        return window(p1, &c->window_ms) == 0;
    }
    if (strcmp(buf, "shop") == 0 && !p2) {
        c->pattern = IDB_READ_SHOP;
        c->window_ms = -1;
        return !p1 || window(p1, &c->window_ms) == 0;
    }
    return 0;
}

/* --pattern uniform | recent:H | mixed:P:H | range:W | shop[:W] into a->cfg. Returns 0 or 2
 * after a line. */
static int parse_pattern(read_args *a, const char *text)
{
    char buf[PATTERN_CHARS];
    idb_read_config *c = &a->cfg;
    if (strlen(text) >= sizeof buf) return cli_fail(IDB_EINPUT, "--pattern: too long");
    strcpy(buf, text);
    char *p1 = strchr(buf, ':'), *p2 = p1 ? strchr(p1 + 1, ':') : NULL;
    if (p1) *p1++ = 0;
    if (p2) *p2++ = 0;
    int ok = 0;
    if (strcmp(buf, "uniform") == 0 && !p1) {
        c->pattern = IDB_READ_UNIFORM;
        ok = 1;
    } else if (strcmp(buf, "recent") == 0 && p1 && !p2) {
        c->pattern = IDB_READ_RECENT;
        ok = pct(p1, 0, 100, &c->recent_pct) == 0 && c->recent_pct > 0;
    } else if (strcmp(buf, "mixed") == 0 && p2) {
        c->pattern = IDB_READ_MIXED;
        ok = pct(p1, 0, 100, &c->mixed_pct) == 0 && pct(p2, 0, 100, &c->recent_pct) == 0 &&
             c->recent_pct > 0;
    } else {
        ok = parse_query(c, buf, p1, p2);
    }
    if (!ok)
        return cli_fail(IDB_EINPUT, "--pattern '%s': expected uniform, recent:H, mixed:P:H, "
                        "range:W or shop[:W] (H in (0, 100], P in [0, 100], W a whole number "
                        "with ms, s, m or h)", text);
    if ((c->pattern == IDB_READ_RANGE || c->pattern == IDB_READ_SHOP) && c->miss_share != 0)
        return cli_fail(IDB_EINPUT, "--miss-share is for point lookups, not --pattern %s", text);
    snprintf(a->pattern_text, sizeof a->pattern_text, "%s", text);
    return 0;
}

enum { O_STORE = 256, O_DIR, O_STRATEGY, O_PATTERN, O_CACHE, O_SEED, O_MISS, O_FORMAT };

/* One flag (getopt_long's c, its optarg) into a. Returns 0 or 2 after a line. */
static int read_flag(read_args *a, int c, const char *arg)
{
    long long v;
    int rc = 0;
    switch (c) {
    case O_STORE: a->store = arg; break;
    case O_DIR: a->cfg.dir = arg; break;
    case O_STRATEGY: a->cfg.strategy = arg; break;
    case O_PATTERN: a->pattern = arg; break;
    case O_CACHE: a->cache = arg; break;
    case O_FORMAT: a->format = arg; break;
    case 'n': rc = cli_parse_count("-n", arg, 1, LOOKUPS_MAX, &v); a->cfg.lookups = v; break;
    case O_SEED:
        if (!(rc = cli_parse_count("--seed", arg, 0, INT64_MAX, &v))) a->cfg.seed = (uint64_t)v;
        break;
    case O_MISS:
        if (idb_parse_double(arg, &a->cfg.miss_share) != 0 || !(a->cfg.miss_share >= 0) ||
            a->cfg.miss_share > 1)
            rc = cli_fail(IDB_EINPUT, "--miss-share: '%s' is not a share in [0, 1]", arg);
        break;
    default: rc = -1;
    }
    return rc;
}

/* Read the flags into *a. Returns 0, or the exit status after a line. */
static int parse_read_flags(int argc, char **argv, read_args *a)
{
    static const struct option longopts[] = {
        { "store", required_argument, 0, O_STORE }, { "dir", required_argument, 0, O_DIR },
        { "strategy", required_argument, 0, O_STRATEGY },
        { "pattern", required_argument, 0, O_PATTERN },
        { "cache", required_argument, 0, O_CACHE }, { "seed", required_argument, 0, O_SEED },
        { "miss-share", required_argument, 0, O_MISS },
        { "format", required_argument, 0, O_FORMAT }, { 0 },
    };
    int c, rc = 0;
    optind = 0;
    opterr = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, "n:", longopts, NULL)) != -1)
        if ((rc = read_flag(a, c, optarg)) < 0)
            return cli_usage("read", "read: unknown flag or missing value '%s'", argv[optind - 1]);
    if (rc) return rc;
    if (optind != argc) return cli_usage("read", "read: unexpected argument '%s'", argv[optind]);
    if (!a->store || !a->cfg.dir || !a->cfg.lookups || !a->pattern)
        return cli_usage("read", "read needs --store, --dir, -n and --pattern");
    if (strcmp(a->format, "csv") != 0 && strcmp(a->format, "json") != 0)
        return cli_fail(IDB_EINPUT, "--format: '%s' is not csv or json", a->format);
    if (strcmp(a->cache, "cold") != 0 && strcmp(a->cache, "warm") != 0)
        return cli_fail(IDB_EINPUT, "--cache: '%s' is not cold or warm", a->cache);
    a->cfg.warm = a->cache[0] == 'w';
    if (a->cfg.strategy && !idb_strategy_find(a->cfg.strategy))
        return cli_fail(IDB_EINPUT, "unknown strategy '%s' (see idbench list)", a->cfg.strategy);
    if (!(a->cfg.store = idb_store_find(a->store)))
        return cli_fail(IDB_EINPUT, "unknown store '%s'", a->store);
    return parse_pattern(a, a->pattern);
}

/* The result: the contract's columns first (docs/results-format.md), then the run's. */
static void print_read(const read_args *a, const idb_read_result *r, int json)
{
    int64_t seed = (int64_t)a->cfg.seed;
    double share = a->cfg.miss_share;
    const cli_field f[] = {
        { "store", K_STR, a->store }, { "strategy", K_STR, r->strategy },
        { "pattern", K_STR, a->pattern_text }, { "cache", K_STR, a->cache },
        { "lookups", K_I64, &r->lookups }, { "found", K_I64, &r->found },
        { "not_found", K_I64, &r->not_found },
        { "misses_per_lookup", K_F4, &r->misses_per_lookup },
        { "read_pages_per_lookup", K_F4, &r->read_pages_per_lookup },
        { "lookups_per_s", K_F0, &r->lookups_per_s },
        { "lat_p50_ns", K_I64, &r->lat_p50_ns }, { "lat_p99_ns", K_I64, &r->lat_p99_ns },
        { "miss_ids", K_I64, &r->missing }, { "miss_share", K_F4, &share },
        { "rows", K_I64, &r->rows }, { "seed", K_I64, &seed },
        { "rows_returned", K_I64, &r->rows_returned },
        { "misses_per_row", K_F4, &r->misses_per_row },
    };
    _Static_assert(sizeof f / sizeof *f <= FIELDS_MAX, "FIELDS_MAX is too small");
    cli_print_fields(f, (int)(sizeof f / sizeof *f), NULL, json);
}

/* idbench read: parse, check, run once, print. */
int cmd_read(int argc, char **argv)
{
    read_args a = { .cfg = { .seed = 1 }, .format = "csv", .cache = "cold" };
    int rc = parse_read_flags(argc, argv, &a);
    if (rc) return rc;
    idb_err err = { 0 };
    idb_read_result res;
    if (idb_read_run(&a.cfg, &res, &err) != 0) return cli_fail_err(&err);
    print_read(&a, &res, a.format[0] == 'j');
    return 0;
}
