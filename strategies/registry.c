/* registry.c — the table of every ID strategy. Adding a strategy: one X(name) line in
 * IDB_STRATEGIES, for a file that defines `const idb_strategy idb_strategy_<name>`. */
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

#define DECLARE(name) extern const idb_strategy idb_strategy_##name;
#define ENTRY(name) &idb_strategy_##name,

IDB_STRATEGIES(DECLARE)

const idb_strategy *const idb_strategies[] = { IDB_STRATEGIES(ENTRY) NULL };

const idb_strategy *idb_strategy_find(const char *name)
{
    for (const idb_strategy *const *s = idb_strategies; *s; s++)
        if (strcmp((*s)->name, name) == 0) return *s;
    return NULL;
}

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
