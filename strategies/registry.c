/* registry.c — the table of every ID strategy. Adding a strategy: one line here. */
#include <string.h>

#include "strategy.h"

extern const idb_strategy idb_strategy_counter;
extern const idb_strategy idb_strategy_range;
extern const idb_strategy idb_strategy_interleaved;
extern const idb_strategy idb_strategy_uuidv4;
extern const idb_strategy idb_strategy_uuidv7;
extern const idb_strategy idb_strategy_snowflake;
extern const idb_strategy idb_strategy_objectid;
extern const idb_strategy idb_strategy_ulid;
extern const idb_strategy idb_strategy_segment;

const idb_strategy *const idb_strategies[] = {
    &idb_strategy_counter,
    &idb_strategy_range,
    &idb_strategy_interleaved,
    &idb_strategy_uuidv4,
    &idb_strategy_uuidv7,
    &idb_strategy_snowflake,
    &idb_strategy_objectid,
    &idb_strategy_ulid,
    &idb_strategy_segment,
    NULL,
};

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
