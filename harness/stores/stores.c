/* stores.c — the table of every store. Adding a store: one line here. */
#include <string.h>

#include "store.h"

extern const idb_store idb_store_sqlite;
extern const idb_store idb_store_lmdb;
extern const idb_store idb_store_pagesim;
extern const idb_store idb_store_null;

const idb_store *const idb_stores[] = {
    &idb_store_sqlite,
    &idb_store_lmdb,
    &idb_store_pagesim,
    &idb_store_null,
    NULL,
};

const idb_store *idb_store_find(const char *name)
{
    for (const idb_store *const *s = idb_stores; *s; s++)
        if (strcmp((*s)->name, name) == 0) return *s;
    return NULL;
}
