/* registry.c — the table of every ID strategy, and the check that each one keeps the
 * interface (strategy.h). Adding a strategy: one X(name) line in IDB_STRATEGIES, for a file
 * that defines `const idb_strategy idb_strategy_<name>`. */
#include <stdio.h>
#include <string.h>

#include "strategy.h"

/* Every strategy, in `idbench list` order: one line each. */
#define IDB_STRATEGIES(X) \
    X(counter) \
    X(range) \
    X(interleaved) \
    X(uuidv4) \
    X(uuidv7) \
    X(snowflake) \
    X(objectid) \
    X(ulid) \
    X(segment) \
    X(ksuid) \
    X(sonyflake) \
    X(bitrev) \
    X(autorandom) \
    X(autoinc) \

#define DECLARE(name) extern const idb_strategy idb_strategy_##name;
#define ENTRY(name) &idb_strategy_##name,

IDB_STRATEGIES(DECLARE)

const idb_strategy *const idb_strategies[] = { IDB_STRATEGIES(ENTRY) NULL };

/* Each cross_process value: its name in `idbench list`, and the option its condition names
 * (which the strategy must declare), or NULL. */
static const struct { const char *name, *needs; } xproc[IDB_XPROC_COUNT] = {
    [IDB_XPROC_NONE] = { "none", NULL },
    [IDB_XPROC_ALWAYS] = { "always", NULL },
    [IDB_XPROC_DISTINCT_WORKER] = { "distinct-worker", "worker" },
    [IDB_XPROC_SHARED_DIR] = { "shared-dir", "dir" },
};

/* The list name of x (see strategy.h). */
const char *idb_xproc_name(enum idb_xproc x)
{
    return (unsigned)x < IDB_XPROC_COUNT ? xproc[x].name : "?";
}

/* Why s's cross_process is wrong, or NULL when it is right. */
static const char *xproc_fault(const idb_strategy *s, char *why, size_t n)
{
    unsigned x = (unsigned)s->cross_process;
    if (x >= IDB_XPROC_COUNT)
        snprintf(why, n, "cross_process = %u is not one of enum idb_xproc", x);
    else if (xproc[x].needs && !idb_opts_declared(s->options, xproc[x].needs))
        snprintf(why, n, "cross_process = %s needs a `%s` option, which it does not declare",
                 xproc[x].name, xproc[x].needs);
    else
        return NULL;
    return why;
}

/* Each declared fork value's name; IDB_FORK_UNDECLARED has none. */
static const char *const fork_names[IDB_FORK_COUNT] = {
    [IDB_FORK_SAFE] = "safe",
    [IDB_FORK_REFUSES] = "refuses",
};

/* The name of f (see strategy.h). */
const char *idb_fork_rule_name(enum idb_fork f)
{
    return (unsigned)f < IDB_FORK_COUNT && fork_names[f] ? fork_names[f] : "?";
}

/* Why s's fork rule is wrong (undeclared or out of range), or NULL when it is declared. */
static const char *fork_fault(const idb_strategy *s, char *why, size_t n)
{
    if ((unsigned)s->fork < IDB_FORK_COUNT && fork_names[s->fork]) return NULL;
    snprintf(why, n, "fork = %d: it must declare the fork rule, IDB_FORK_SAFE or "
             "IDB_FORK_REFUSES (strategy.h)", (int)s->fork);
    return why;
}

/* Why s's declared behaviour is wrong (strategy.h), or NULL when it is declared. */
static const char *behaviour_fault(const idb_strategy *s, char *why, size_t n)
{
    if ((unsigned)s->on_clock_back >= IDB_CLOCK_BACK_COUNT)
        snprintf(why, n, "on_clock_back = %d is not an enum idb_clock_back",
                 (int)s->on_clock_back);
    else if (!(s->max_ids_per_s >= 0))
        snprintf(why, n, "max_ids_per_s = %g: a cap is 0 (none) or positive", s->max_ids_per_s);
    else if (!s->vectors || !s->vectors[0].text || !s->vectors[0].canonical)
        snprintf(why, n, "no text vectors: declare at least one ID's text form in `vectors`");
    else if (s->value_bits < 0 || s->value_bits > s->bits)
        snprintf(why, n, "value_bits = %d: 0 (the width) or 1 .. bits = %d", s->value_bits,
                 s->bits);
    else if (s->uniform_bits < 0 || s->uniform_bits > idb_strategy_value_bits(s) ||
             (s->uniform_bits && s->time_ordered))
        snprintf(why, n, "uniform_bits = %d: 0 .. value_bits, and not with time_ordered",
                 s->uniform_bits);
    else
        return NULL;
    return why;
}

/* Why s breaks the interface, or NULL when it keeps it. */
static const char *strategy_fault(const idb_strategy *s, char *why, size_t n)
{
    if (s->version != IDB_STRATEGY_VERSION)
        snprintf(why, n, "interface version %d, expected %d", s->version, IDB_STRATEGY_VERSION);
    else if (s->bits <= 0 || s->bits % 8 != 0 || s->bits > IDB_ID_MAX * 8)
        snprintf(why, n, "bits = %d: an ID width must be a multiple of 8 from 8 to %d "
                 "(IDB_ID_MAX = %d bytes)", s->bits, IDB_ID_MAX * 8, IDB_ID_MAX);
    else if (!s->create || !s->next || !s->destroy || !s->format || !s->parse || !s->decode)
        snprintf(why, n, "a required function (create, next, destroy, format, parse, "
                 "decode) is NULL");
    else if (xproc_fault(s, why, n) || fork_fault(s, why, n))
        return why;
    else
        return behaviour_fault(s, why, n);
    return why;
}

/* Check every plug-in of table (see strategy.h). */
int idb_strategy_check_table(const idb_strategy *const *table, idb_err *err)
{
    char why[160];
    for (int i = 0; table[i]; i++) {
        const idb_strategy *s = table[i];
        if (!s->name || !s->name[0])
            return idb_fail(err, IDB_EINPUT, "strategy #%d of the registry has no name", i + 1);
        if (strategy_fault(s, why, sizeof why))
            return idb_fail(err, IDB_EINPUT, "strategy %s is refused by the registry: %s",
                            s->name, why);
    }
    return 0;
}

/* The strategy called name, or NULL (see strategy.h). */
const idb_strategy *idb_strategy_find(const char *name)
{
    for (const idb_strategy *const *s = idb_strategies; *s; s++)
        if (strcmp((*s)->name, name) == 0) return *s;
    return NULL;
}

/* value_bits, or the width when none is declared (see strategy.h). */
int idb_strategy_value_bits(const idb_strategy *s)
{
    return s->value_bits ? s->value_bits : s->bits;
}

/* Parse options and create an instance (see strategy.h). */
int idb_strategy_create_kv(const idb_strategy *s, const char *const *kv, int nkv,
                           idb_clock *clock, void **inst, idb_err *err)
{
    char owner[64];
    idb_opts opts;
    strcpy(owner, "strategy ");
    strncat(owner, s->name, sizeof owner - strlen(owner) - 1);
    int rc = idb_opts_parse(&opts, s->options, kv, nkv, owner, err);
    return rc ? rc : s->create(&opts, clock, inst, err);
}
