/* sim_workload.c — the workload keys: one table of typed keys (keys.h: each key's type,
 * default and range, parsed and checked by the one key parser), the handler that reads them
 * from an ini file or a --set override, and the checks of keys that depend on each other
 * (see sim_workload.h). */
#include "sim_workload.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini.h"

/* Table entries: section, key, field, default, bounds. */
#define AT(f) IDB_KEY_AT(sim_workload, f)
#define INT(sec, key, f, dflt, lo, hi) \
    { .section = sec, .name = key, .type = IDB_KEY_INT, .def = dflt, .min = lo, .max = hi, AT(f) }
#define NUM(sec, key, f, dflt, lo, hi) \
    { .section = sec, .name = key, .type = IDB_KEY_DOUBLE, .def = dflt, .dmin = lo, .dmax = hi, \
      AT(f) }
#define EVENT(sec, key, f, dflt, lo, hi) \
    { .section = sec, .name = key, .type = IDB_KEY_DOUBLE, .def = dflt, .dmin = lo, .dmax = hi, \
      .off_word = 1, AT(f) }

static int check_strategies(const idb_key *k, void *base, void *ctx, int i, const char *text,
                            idb_err *err);

/* Every workload key, once (sim_workload.h lists them by section). */
static const idb_key keys[] = {
    { .section = "workload", .name = "name", .type = IDB_KEY_NAME, .def = "workload", AT(name) },
    { .section = "workload", .name = "seed", .type = IDB_KEY_U64, .def = "1", AT(seed) },
    NUM("workload", "duration_s", duration_s, "10", 0.001, 86400),
    NUM("workload", "orders_per_s", orders_per_s, "10000", 0.001, 1e8),
    INT("workload", "shops", shops, "1000", 1, SIM_MAX_SHOPS),
    NUM("workload", "shop_skew", shop_skew, "1.0", 0, 10),
    INT("workload", "shards", shards, "4", 1, SIM_MAX_SHARDS - 1),
    INT("workload", "instances", instances, "8", 1, SIM_MAX_INSTANCES),
    { .section = "workload", .name = "strategies", .type = IDB_KEY_STR, .def = "all",
      .hook = check_strategies, AT(strategies) },
    { .section = "workload", .name = "routing", .type = IDB_KEY_ENUM, .def = "shop",
      .choices = "shop|range|hash", AT(routing) },
    { .section = "workload", .name = "range_split", .type = IDB_KEY_ENUM, .def = "space",
      .choices = "space|sample", AT(range_split) },
    INT("workload", "range_max_rows", range_max_rows, "0", 0, SIM_MAX_ORDERS),
    NUM("clock", "skew_ms", skew_ms, "0", 0, 1e6),
    NUM("clock", "drift_ppm", drift_ppm, "0", 0, 1e5),
    NUM("clock", "step_back_ms", step_back_ms, "0", 0, 1e7),
    NUM("clock", "step_at_s", step_at_s, "0", 0, 86400),
    INT("clock", "step_instance", step_instance, "0", 0, SIM_MAX_INSTANCES - 1),
    NUM("counter", "rtt_ms", rtt_ms, "0.5", 0, 1e4),
    NUM("counter", "outage_start_s", outage_start_s, "0", 0, 86400),
    NUM("counter", "outage_s", outage_s, "0", 0, 86400),
    NUM("counter", "service_us", service_us, "5", 0, 1e6),
    INT("counter", "queue_max", queue_max, "1000000", 0, SIM_MAX_QUEUE),
    INT("range", "range_size", range_size, "1000000000000", 1, SIM_MAX_RANGE_SIZE),
    NUM("range", "lease_rtt_ms", lease_rtt_ms, "1", 0, 1e4),
    EVENT("events", "add_shard_at_s", add_shard_at_s, "off", 0, 86400),
    { .section = "events", .name = "interleaved_reconfig", .type = IDB_KEY_ENUM, .def = "safe",
      .choices = "naive|safe", AT(reconfig_safe) },
    EVENT("events", "migrate_shop_at_s", migrate_shop_at_s, "off", 0, 86400),
    { .section = "events", .name = "duplicate_worker_ids", .type = IDB_KEY_BOOL, .def = "0",
      AT(duplicate_worker_ids) },
    NUM("burst", "burst_at_s", burst_at_s, "0", 0, 86400),
    NUM("burst", "burst_s", burst_s, "0", 0, 86400),
    NUM("burst", "burst_factor", burst_factor, "1", 1, 1000),
    { 0 },
};
#undef INT
#undef NUM
#undef EVENT
#undef AT
#define NKEYS ((int)(sizeof keys / sizeof keys[0]) - 1)
#define RANGE_SPACE (UINT64_C(1) << 63)  /* the range strategy's IDs: 1 .. 2^63 - 1 */
#define SECTIONS "workload, clock, counter, range, events, burst"
_Static_assert(NKEYS <= (int)(sizeof ((sim_workload *)0)->line / sizeof(int)),
               "sim_workload.line[] is too short");

/* How many keys the table declares (see sim_workload.h). */
int sim_workload_key_count(void) { return NKEYS; }

/* "section.key" of key i, from a static buffer per key (see sim_workload.h). */
const char *sim_workload_key_name(int i)
{
    static char buf[NKEYS][2 * SIM_NAME_MAX];
    if (i < 0 || i >= NKEYS) return NULL;
    snprintf(buf[i], sizeof buf[i], "%s.%s", keys[i].section, keys[i].name);
    return buf[i];
}

static int parse_list(const char *s, const char *at,
                      const idb_strategy *out[SIM_MAX_STRATEGIES], idb_err *err);

/* Hook of `strategies`: the list ("all" or names separated by commas) names known
 * strategies, each once. */
static int check_strategies(const idb_key *k, void *base, void *ctx, int i, const char *text,
                            idb_err *err)
{
    (void)k, (void)base, (void)ctx, (void)i;
    const idb_strategy *out[SIM_MAX_STRATEGIES];
    return parse_list(text, "", out, err) < 0 ? IDB_EINPUT : 0;
}

/* Index of section/key in the table, or -1. */
static int find_key(const char *section, const char *key)
{
    const idb_key *k = idb_keys_find(keys, section, key);
    return k ? (int)(k - keys) : -1;
}

/* 1 if section is one of the table's sections. */
static int known_section(const char *section)
{
    for (int i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].section, section) == 0) return 1;
    return 0;
}

/* ini handler: one key of a workload file. */
static int on_key(void *ctx, const char *section, const char *key, const char *value, int line,
                  idb_err *err)
{
    sim_workload *w = ctx;
    if (!known_section(section))
        return idb_fail(err, IDB_EINPUT, "unknown section [%s] (sections: %s)", section,
                        SECTIONS);
    int k = find_key(section, key);
    if (k < 0) {
        char known[SIM_LIST_MAX];
        return idb_fail(err, IDB_EINPUT, "unknown key '%s' in [%s] (keys: %s)", key, section,
                        idb_keys_names(keys, section, known, sizeof known));
    }
    int rc = idb_key_set(&keys[k], w, NULL, value, err);
    if (rc == 0) w->line[k] = line;
    return rc;
}

/* Every key set from its default text, as a file would set it (see sim_workload.h). */
void sim_workload_defaults(sim_workload *w)
{
    memset(w, 0, sizeof *w);
    if (idb_keys_defaults(keys, NULL, w, NULL, NULL) != 0) abort();   /* bad default: a bug */
}

/* "FILE:LINE: " (or "--set: ", or "" for a default) for key k, into buf. */
static const char *where(const sim_workload *w, int k, char *buf, size_t len)
{
    if (w->line[k] > 0) snprintf(buf, len, "%s:%d: ", w->source, w->line[k]);
    else if (w->line[k] < 0) snprintf(buf, len, "--set %s.%s: ", keys[k].section, keys[k].name);
    else snprintf(buf, len, "%s%s%s.%s (default): ", w->source, w->source[0] ? ": " : "",
                  keys[k].section, keys[k].name);
    return buf;
}

/* Fail naming where key kname ("section.key") was set. */
#define FAIL_AT(kname, ...) do { \
        char at_[SIM_LIST_MAX + 64], why_[256]; \
        snprintf(why_, sizeof why_, __VA_ARGS__); \
        where(w, find_key_full(kname), at_, sizeof at_); \
        return idb_fail(err, IDB_EINPUT, "%s%s", at_, why_); \
    } while (0)

/* Index of "section.key" in the table (aborts when absent: a programming error). */
static int find_key_full(const char *name)
{
    for (int i = 0; i < NKEYS; i++)
        if (strcmp(sim_workload_key_name(i), name) == 0) return i;
    abort();
}

/* Rate x duration, plus the burst's extra orders inside the run (see sim_workload.h). */
double sim_workload_expected_orders(const sim_workload *w)
{
    double burst = w->burst_s;
    if (w->burst_at_s + burst > w->duration_s)
        burst = w->duration_s > w->burst_at_s ? w->duration_s - w->burst_at_s : 0;
    return w->orders_per_s * (w->duration_s + burst * (w->burst_factor - 1));
}

/* The routing keys: range_split = sample and range_max_rows only with routing = range; no
 * shop moves or added shards unless orders follow their shop (routing = shop); at most
 * SIM_MAX_RANGES ranges for n expected orders (a split scans the orders so far: its cost). */
static int check_routing(const sim_workload *w, double n, idb_err *err)
{
    if (w->routing != SIM_ROUTE_RANGE && w->range_split != SIM_SPLIT_SPACE)
        FAIL_AT("workload.range_split", "range_split = sample needs routing = range");
    if (w->routing != SIM_ROUTE_RANGE && w->range_max_rows > 0)
        FAIL_AT("workload.range_max_rows", "range_max_rows needs routing = range");
    if (w->routing != SIM_ROUTE_SHOP && w->migrate_shop_at_s != SIM_OFF)
        FAIL_AT("events.migrate_shop_at_s", "moving a shop needs routing = shop (with routing "
                "by ID an order's shard does not follow its shop)");
    if (w->routing != SIM_ROUTE_SHOP && w->add_shard_at_s != SIM_OFF)
        FAIL_AT("events.add_shard_at_s", "adding a shard needs routing = shop (the router "
                "does not re-balance onto a new shard; range_max_rows moves ranges instead)");
    /* a range splits at most once per max_rows / 2 inserts (ordered keys; at its median) */
    if (w->range_max_rows > 0 &&
        (double)w->shards + 2 * n / (double)w->range_max_rows > SIM_MAX_RANGES)
        FAIL_AT("workload.range_max_rows", "range_max_rows = %lld is too small for about %.0f "
                "orders: up to %.0f ranges, more than the %d a run may make (at least %.0f)",
                (long long)w->range_max_rows, n,
                (double)w->shards + 2 * n / (double)w->range_max_rows, SIM_MAX_RANGES,
                ceil(2 * n / (SIM_MAX_RANGES - (double)w->shards)));
    return 0;
}

/* The rules between keys, each naming the key that breaks it (see sim_workload.h). */
int sim_workload_check(const sim_workload *w, idb_err *err)
{
    if (w->step_instance >= w->instances)
        FAIL_AT("clock.step_instance", "step_instance = %lld must be below instances = %lld",
                (long long)w->step_instance, (long long)w->instances);
    if (w->duplicate_worker_ids && w->instances < 2)
        FAIL_AT("events.duplicate_worker_ids", "duplicate_worker_ids = 1 needs instances >= 2");
    if (w->migrate_shop_at_s != SIM_OFF && w->shards < 2)
        FAIL_AT("events.migrate_shop_at_s", "moving a shop needs shards >= 2");
    if (w->migrate_shop_at_s != SIM_OFF && w->migrate_shop_at_s >= w->duration_s)
        FAIL_AT("events.migrate_shop_at_s",
                "migrate_shop_at_s = %g is not before the end (duration_s = %g)",
                w->migrate_shop_at_s, w->duration_s);
    if (w->add_shard_at_s != SIM_OFF && w->add_shard_at_s >= w->duration_s)
        FAIL_AT("events.add_shard_at_s",
                "add_shard_at_s = %g is not before the end (duration_s = %g)",
                w->add_shard_at_s, w->duration_s);
    if (w->step_back_ms > 0 && w->step_at_s >= w->duration_s)
        FAIL_AT("clock.step_at_s", "step_at_s = %g is not before the end (duration_s = %g)",
                w->step_at_s, w->duration_s);
    /* range: each shard (the added one too) leases a whole range below 2^63 */
    uint64_t ranges = (uint64_t)w->shards + (w->add_shard_at_s != SIM_OFF);
    if ((uint64_t)w->range_size > RANGE_SPACE / ranges)
        FAIL_AT("range.range_size", "range_size = %lld is too large for %llu shards: each "
                "leases a whole range, so shards x range_size must be at most 2^63 (here "
                "range_size at most %llu)", (long long)w->range_size,
                (unsigned long long)ranges, (unsigned long long)(RANGE_SPACE / ranges));
    double n = sim_workload_expected_orders(w);
    if (n > (double)SIM_MAX_ORDERS)
        FAIL_AT("workload.orders_per_s", "about %.0f orders (orders_per_s x duration_s, with the "
                "burst) is more than the %lld a run may hold", n, SIM_MAX_ORDERS);
    return check_routing(w, n, err);
}

/* Defaults, the name from the file name, then the file's keys (no whole-workload checks). */
static int load_keys(const char *path, sim_workload *w, idb_err *err)
{
    sim_workload_defaults(w);
    if (strlen(path) >= sizeof w->source)
        return idb_fail(err, IDB_EINPUT, "%s: path too long", path);
    strcpy(w->source, path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 4 && strcmp(base + n - 4, ".ini") == 0) n -= 4;
    if (n > 0 && n < SIM_NAME_MAX) {               /* a name that is not a NAME: the default */
        char name[SIM_NAME_MAX];
        memcpy(name, base, n);
        name[n] = 0;
        idb_key_set(&keys[find_key_full("workload.name")], w, NULL, name, NULL);
    }
    return ini_parse_file(path, on_key, w, err);
}

/* One SECTION.KEY=VALUE override through the file handler, without the whole-workload
 * checks; with once, a key already set by an override is refused (the order of the
 * overrides must not matter). Returns 0 or IDB_EINPUT with err "--set TEXT: ...". */
static int apply_set(sim_workload *w, const char *assignment, int once, idb_err *err)
{
    const char *eq = strchr(assignment, '=');
    const char *dot = eq ? memchr(assignment, '.', (size_t)(eq - assignment)) : NULL;
    if (!eq || !dot)
        return idb_fail(err, IDB_EINPUT, "--set %s: expected SECTION.KEY=VALUE", assignment);
    char section[INI_NAME_MAX], key[INI_NAME_MAX];
    size_t sl = (size_t)(dot - assignment), kl = (size_t)(eq - dot - 1);
    if (sl == 0 || sl >= sizeof section || kl == 0 || kl >= sizeof key)
        return idb_fail(err, IDB_EINPUT, "--set %s: expected SECTION.KEY=VALUE", assignment);
    memcpy(section, assignment, sl);
    section[sl] = 0;
    memcpy(key, dot + 1, kl);
    key[kl] = 0;
    int k = find_key(section, key);
    if (once && k >= 0 && w->line[k] < 0)
        return idb_fail(err, IDB_EINPUT, "--set %s: %s.%s is set by another --set too (a key "
                        "may be set once)", assignment, section, key);
    idb_err e = { 0 };
    int rc = on_key(w, section, key, eq + 1, 0, &e);
    if (rc) return idb_fail(err, rc, "--set %s: %s", assignment, e.msg);
    w->line[k] = -1;
    return 0;
}

/* Defaults, the file, every override, then the checks once (see sim_workload.h). */
int sim_workload_load_set(const char *path, const char *const *sets, int nsets,
                          sim_workload *w, idb_err *err)
{
    int rc = load_keys(path, w, err);
    for (int i = 0; i < nsets && rc == 0; i++) rc = apply_set(w, sets[i], 1, err);
    return rc ? rc : sim_workload_check(w, err);
}

/* Defaults, the file's keys, the checks (see sim_workload.h). */
int sim_workload_load(const char *path, sim_workload *w, idb_err *err)
{
    return sim_workload_load_set(path, NULL, 0, w, err);
}

/* One override, then the checks (see sim_workload.h). */
int sim_workload_set(sim_workload *w, const char *assignment, idb_err *err)
{
    int rc = apply_set(w, assignment, 0, err);
    return rc ? rc : sim_workload_check(w, err);
}

int sim_workload_strategies(const sim_workload *w, const char *list,
                            const idb_strategy *out[SIM_MAX_STRATEGIES], idb_err *err)
{
    const char *s = list ? list : w->strategies;
    char at[SIM_LIST_MAX + 64] = "";
    if (list) snprintf(at, sizeof at, "--strategies: ");
    else if (w->source[0]) where(w, find_key_full("workload.strategies"), at, sizeof at);
    return parse_list(s, at, out, err);
}

/* Resolve list s ("all" or comma-separated names) into out; messages start with at.
 * Returns the count or IDB_EINPUT. */
static int parse_list(const char *s, const char *at,
                      const idb_strategy *out[SIM_MAX_STRATEGIES], idb_err *err)
{
    int n = 0;
    if (strcmp(s, "all") == 0) {
        for (const idb_strategy *const *p = idb_strategies; *p && n < SIM_MAX_STRATEGIES; p++)
            out[n++] = *p;
        return n;
    }
    for (const char *p = s;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char name[SIM_NAME_MAX];
        if (len == 0 || len >= sizeof name)
            return idb_fail(err, IDB_EINPUT, "%sempty or overlong strategy name in '%s'", at, s);
        memcpy(name, p, len);
        name[len] = 0;
        const idb_strategy *st = idb_strategy_find(name);
        if (!st)
            return idb_fail(err, IDB_EINPUT, "%sunknown strategy '%s' (see idbench list)", at,
                            name);
        for (int i = 0; i < n; i++)
            if (out[i] == st)
                return idb_fail(err, IDB_EINPUT, "%sstrategy '%s' is listed twice", at, name);
        if (n == SIM_MAX_STRATEGIES)
            return idb_fail(err, IDB_EINPUT, "%smore than %d strategies", at,
                            SIM_MAX_STRATEGIES);
        out[n++] = st;
        if (!comma) break;
        p = comma + 1;
    }
    return n;
}
