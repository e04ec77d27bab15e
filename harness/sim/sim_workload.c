/* sim_workload.c — the workload keys: one table with each key's type, default and range,
 * the handler that reads them from an ini file or a --set override, and the checks of
 * keys that depend on each other (see sim_workload.h). */
#include "sim_workload.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini.h"

enum key_type {
    K_NAME,      /* [A-Za-z0-9_.-]+, into a char[SIM_NAME_MAX] */
    K_U64,       /* unsigned decimal */
    K_INT,       /* int64_t in min..max */
    K_NUM,       /* finite double in min..max */
    K_EVENT,     /* `off` (SIM_OFF) or a double in min..max */
    K_ENUM,      /* one of choices "a|b": its index as int64_t */
    K_LIST,      /* `all` or a comma list of strategy names */
};

typedef struct key_decl {
    const char *section, *key;
    enum key_type type;
    size_t off;
    const char *def;
    double min, max;
    const char *choices;
} key_decl;

#define F(m) offsetof(sim_workload, m)
static const key_decl keys[] = {
    { "workload", "name", K_NAME, F(name), "workload", 0, 0, NULL },
    { "workload", "seed", K_U64, F(seed), "1", 0, 0, NULL },
    { "workload", "duration_s", K_NUM, F(duration_s), "10", 0.001, 86400, NULL },
    { "workload", "orders_per_s", K_NUM, F(orders_per_s), "10000", 0.001, 1e8, NULL },
    { "workload", "shops", K_INT, F(shops), "1000", 1, SIM_MAX_SHOPS, NULL },
    { "workload", "shop_skew", K_NUM, F(shop_skew), "1.0", 0, 10, NULL },
    { "workload", "shards", K_INT, F(shards), "4", 1, SIM_MAX_SHARDS - 1, NULL },
    { "workload", "instances", K_INT, F(instances), "8", 1, SIM_MAX_INSTANCES, NULL },
    { "workload", "strategies", K_LIST, F(strategies), "all", 0, 0, NULL },
    { "clock", "skew_ms", K_NUM, F(skew_ms), "0", 0, 1e6, NULL },
    { "clock", "drift_ppm", K_NUM, F(drift_ppm), "0", 0, 1e5, NULL },
    { "clock", "step_back_ms", K_NUM, F(step_back_ms), "0", 0, 1e7, NULL },
    { "clock", "step_at_s", K_NUM, F(step_at_s), "0", 0, 86400, NULL },
    { "clock", "step_instance", K_INT, F(step_instance), "0", 0, SIM_MAX_INSTANCES - 1, NULL },
    { "counter", "rtt_ms", K_NUM, F(rtt_ms), "0.5", 0, 1e4, NULL },
    { "counter", "outage_start_s", K_NUM, F(outage_start_s), "0", 0, 86400, NULL },
    { "counter", "outage_s", K_NUM, F(outage_s), "0", 0, 86400, NULL },
    { "range", "range_size", K_INT, F(range_size), "1000000000000", 1, 4611686018427387904.0, NULL },
    { "range", "lease_rtt_ms", K_NUM, F(lease_rtt_ms), "1", 0, 1e4, NULL },
    { "events", "add_shard_at_s", K_EVENT, F(add_shard_at_s), "off", 0, 86400, NULL },
    { "events", "interleaved_reconfig", K_ENUM, F(reconfig_safe), "safe", 0, 0, "naive|safe" },
    { "events", "migrate_shop_at_s", K_EVENT, F(migrate_shop_at_s), "off", 0, 86400, NULL },
    { "events", "duplicate_worker_ids", K_ENUM, F(duplicate_worker_ids), "0", 0, 0, "0|1" },
    { "burst", "burst_at_s", K_NUM, F(burst_at_s), "0", 0, 86400, NULL },
    { "burst", "burst_s", K_NUM, F(burst_s), "0", 0, 86400, NULL },
    { "burst", "burst_factor", K_NUM, F(burst_factor), "1", 1, 1000, NULL },
};
#undef F
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))
_Static_assert(NKEYS <= 64, "sim_workload.line[] is too short");

/* How many keys the table declares (see sim_workload.h). */
int sim_workload_key_count(void) { return NKEYS; }

/* "section.key" of key i, from a static buffer per key (see sim_workload.h). */
const char *sim_workload_key_name(int i)
{
    static char buf[NKEYS][2 * 64];
    if (i < 0 || i >= NKEYS) return NULL;
    snprintf(buf[i], sizeof buf[i], "%s.%s", keys[i].section, keys[i].key);
    return buf[i];
}

/* Parse a whole finite decimal number (no inf/nan/hex). Returns 0 or -1. */
static int parse_num(const char *s, double *out)
{
    if (!*s) return -1;
    for (const char *p = s; *p; p++)
        if (!strchr("0123456789.eE+-", *p)) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* Index of value in "a|b|c", or -1. */
static int choice_index(const char *choices, const char *value)
{
    size_t n = strlen(value);
    int i = 0;
    for (const char *p = choices;; i++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, value, n) == 0) return i;
        if (!bar) return -1;
        p = bar + 1;
    }
}

static int parse_list(const char *s, const char *at, const idb_strategy *out[SIM_MAX_STRATEGIES],
                      idb_err *err);

/* Check the strategy list s ("all" or names separated by commas). Returns 0, or -1 with
 * the reason in msg. */
static int check_list(const char *s, char *msg, size_t msglen)
{
    if (strcmp(s, "all") == 0) return 0;
    const idb_strategy *out[SIM_MAX_STRATEGIES];
    idb_err err = { 0 };
    if (parse_list(s, "", out, &err) < 0) {
        snprintf(msg, msglen, "%s", err.msg);
        return -1;
    }
    return 0;
}

/* Set key k of w from text value. Returns 0, or -1 with the reason in msg. */
static int set_key(sim_workload *w, int k, const char *value, char *msg, size_t msglen)
{
    const key_decl *d = &keys[k];
    char *field = (char *)w + d->off;
    switch (d->type) {
    case K_NAME:
        for (const char *p = value; *p; p++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *p))
                goto bad_name;
        if (!*value || strlen(value) >= SIM_NAME_MAX) goto bad_name;
        strcpy(field, value);
        return 0;
    bad_name:
        snprintf(msg, msglen, "%s = '%s': expected 1 to %d letters, digits, '_', '.' or '-'",
                 d->key, value, SIM_NAME_MAX - 1);
        return -1;
    case K_U64: {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(value, &end, 10);
        if (!*value || *value < '0' || *value > '9' || *end || errno == ERANGE) {
            snprintf(msg, msglen, "%s = '%s': expected an unsigned integer", d->key, value);
            return -1;
        }
        *(uint64_t *)field = v;
        return 0;
    }
    case K_INT: {
        int64_t v;
        if (idb_parse_i64(value, &v) != 0) {
            snprintf(msg, msglen, "%s = '%s': expected an integer", d->key, value);
            return -1;
        }
        if ((double)v < d->min || (double)v > d->max) {
            snprintf(msg, msglen, "%s = %s is out of range %.0f..%.0f", d->key, value, d->min, d->max);
            return -1;
        }
        *(int64_t *)field = v;
        return 0;
    }
    case K_EVENT:
        if (strcmp(value, "off") == 0) { *(double *)field = SIM_OFF; return 0; }
        /* fall through */
    case K_NUM: {
        double v;
        if (parse_num(value, &v) != 0) {
            snprintf(msg, msglen, "%s = '%s': expected a number%s", d->key, value,
                     d->type == K_EVENT ? " or 'off'" : "");
            return -1;
        }
        if (v < d->min || v > d->max) {
            snprintf(msg, msglen, "%s = %s is out of range %g..%g", d->key, value, d->min, d->max);
            return -1;
        }
        *(double *)field = v;
        return 0;
    }
    case K_ENUM: {
        int i = choice_index(d->choices, value);
        if (i < 0) {
            snprintf(msg, msglen, "%s = '%s': expected one of %s", d->key, value, d->choices);
            return -1;
        }
        *(int64_t *)field = i;
        return 0;
    }
    case K_LIST:
        if (strlen(value) >= SIM_LIST_MAX) {
            snprintf(msg, msglen, "%s: list too long", d->key);
            return -1;
        }
        if (check_list(value, msg, msglen) != 0) return -1;
        strcpy(field, value);
        return 0;
    }
    return -1;
}

/* Index of section/key in the table, or -1. */
static int find_key(const char *section, const char *key)
{
    for (int i = 0; i < NKEYS; i++)
        if (strcmp(keys[i].section, section) == 0 && strcmp(keys[i].key, key) == 0) return i;
    return -1;
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
                  char *msg, size_t msglen)
{
    sim_workload *w = ctx;
    if (!known_section(section)) {
        snprintf(msg, msglen, "unknown section [%s] (sections: workload, clock, counter, range, "
                 "events, burst)", section);
        return -1;
    }
    int k = find_key(section, key);
    if (k < 0) {
        char known[400] = "";
        for (int i = 0; i < NKEYS; i++) {
            if (strcmp(keys[i].section, section) != 0) continue;
            if (known[0]) strncat(known, ", ", sizeof known - strlen(known) - 1);
            strncat(known, keys[i].key, sizeof known - strlen(known) - 1);
        }
        snprintf(msg, msglen, "unknown key '%s' in [%s] (keys: %s)", key, section, known);
        return -1;
    }
    if (set_key(w, k, value, msg, msglen) != 0) return -1;
    w->line[k] = line;
    return 0;
}

/* Every key set from its default text, as a file would set it (see sim_workload.h). */
void sim_workload_defaults(sim_workload *w)
{
    memset(w, 0, sizeof *w);
    for (int k = 0; k < NKEYS; k++) {
        char msg[256];
        if (set_key(w, k, keys[k].def, msg, sizeof msg) != 0) abort();   /* bad default: a bug */
    }
}

/* "FILE:LINE: " (or "--set: ", or "" for a default) for key k, into buf. */
static const char *where(const sim_workload *w, int k, char *buf, size_t len)
{
    if (w->line[k] > 0) snprintf(buf, len, "%s:%d: ", w->source, w->line[k]);
    else if (w->line[k] < 0) snprintf(buf, len, "--set %s.%s: ", keys[k].section, keys[k].key);
    else snprintf(buf, len, "%s%s%s.%s (default): ", w->source, w->source[0] ? ": " : "",
                  keys[k].section, keys[k].key);
    return buf;
}

/* Fail naming where key k (section, key) was set. */
#define FAIL_AT(kname, ...) do { \
        char at_[SIM_LIST_MAX + 64], why_[256]; \
        snprintf(why_, sizeof why_, __VA_ARGS__); \
        return idb_fail(err, IDB_EINPUT, "%s%s", where(w, find_key_full(kname), at_, sizeof at_), why_); \
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
    if (w->burst_at_s + burst > w->duration_s) burst = w->duration_s > w->burst_at_s ? w->duration_s - w->burst_at_s : 0;
    return w->orders_per_s * (w->duration_s + burst * (w->burst_factor - 1));
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
        FAIL_AT("events.migrate_shop_at_s", "migrate_shop_at_s = %g is not before the end (duration_s = %g)",
                w->migrate_shop_at_s, w->duration_s);
    if (w->add_shard_at_s != SIM_OFF && w->add_shard_at_s >= w->duration_s)
        FAIL_AT("events.add_shard_at_s", "add_shard_at_s = %g is not before the end (duration_s = %g)",
                w->add_shard_at_s, w->duration_s);
    if (w->step_back_ms > 0 && w->step_at_s >= w->duration_s)
        FAIL_AT("clock.step_at_s", "step_at_s = %g is not before the end (duration_s = %g)",
                w->step_at_s, w->duration_s);
    double n = sim_workload_expected_orders(w);
    if (n > (double)SIM_MAX_ORDERS)
        FAIL_AT("workload.orders_per_s", "about %.0f orders (orders_per_s x duration_s, with the "
                "burst) is more than the %lld a run may hold", n, SIM_MAX_ORDERS);
    return 0;
}

/* Defaults, the name from the file name, the file's keys, the checks (see sim_workload.h). */
int sim_workload_load(const char *path, sim_workload *w, idb_err *err)
{
    sim_workload_defaults(w);
    if (strlen(path) >= sizeof w->source)
        return idb_fail(err, IDB_EINPUT, "%s: path too long", path);
    strcpy(w->source, path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 4 && strcmp(base + n - 4, ".ini") == 0) n -= 4;
    if (n > 0 && n < SIM_NAME_MAX) {
        char name[SIM_NAME_MAX], msg[256];
        memcpy(name, base, n);
        name[n] = 0;
        if (set_key(w, find_key_full("workload.name"), name, msg, sizeof msg) != 0)
            strcpy(w->name, "workload");
    }
    int rc = ini_parse_file(path, on_key, w, err);
    return rc ? rc : sim_workload_check(w, err);
}

/* One SECTION.KEY=VALUE override through the file handler, then the checks (see sim_workload.h). */
int sim_workload_set(sim_workload *w, const char *assignment, idb_err *err)
{
    const char *eq = strchr(assignment, '=');
    const char *dot = eq ? memchr(assignment, '.', (size_t)(eq - assignment)) : NULL;
    if (!eq || !dot)
        return idb_fail(err, IDB_EINPUT, "--set %s: expected SECTION.KEY=VALUE", assignment);
    char section[64], key[64], msg[512];
    size_t sl = (size_t)(dot - assignment), kl = (size_t)(eq - dot - 1);
    if (sl == 0 || sl >= sizeof section || kl == 0 || kl >= sizeof key)
        return idb_fail(err, IDB_EINPUT, "--set %s: expected SECTION.KEY=VALUE", assignment);
    memcpy(section, assignment, sl);
    section[sl] = 0;
    memcpy(key, dot + 1, kl);
    key[kl] = 0;
    if (on_key(w, section, key, eq + 1, 0, msg, sizeof msg) != 0)
        return idb_fail(err, IDB_EINPUT, "--set %s: %s", assignment, msg);
    w->line[find_key(section, key)] = -1;
    return sim_workload_check(w, err);
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
static int parse_list(const char *s, const char *at, const idb_strategy *out[SIM_MAX_STRATEGIES],
                      idb_err *err)
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
        char name[64];
        if (len == 0 || len >= sizeof name)
            return idb_fail(err, IDB_EINPUT, "%sempty or overlong strategy name in '%s'", at, s);
        memcpy(name, p, len);
        name[len] = 0;
        const idb_strategy *st = idb_strategy_find(name);
        if (!st)
            return idb_fail(err, IDB_EINPUT, "%sunknown strategy '%s' (see idbench list)", at, name);
        for (int i = 0; i < n; i++)
            if (out[i] == st)
                return idb_fail(err, IDB_EINPUT, "%sstrategy '%s' is listed twice", at, name);
        if (n == SIM_MAX_STRATEGIES)
            return idb_fail(err, IDB_EINPUT, "%smore than %d strategies", at, SIM_MAX_STRATEGIES);
        out[n++] = st;
        if (!comma) break;
        p = comma + 1;
    }
    return n;
}
