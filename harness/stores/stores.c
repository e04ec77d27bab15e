/* stores.c — the table of every store, and the checks every store shares (store.h).
 * Adding a store: one X(name) line in IDB_STORES, for a file that defines
 * `const idb_store idb_store_<name>`. */
#include <string.h>

#include "store.h"

/* Every store: one line each. */
#define IDB_STORES(X) \
    X(sqlite) \
    X(lmdb) \
    X(pagesim) \
    X(null) \

#define DECLARE(name) extern const idb_store idb_store_##name;
#define ENTRY(name) &idb_store_##name,

IDB_STORES(DECLARE)

const idb_store *const idb_stores[] = { IDB_STORES(ENTRY) NULL };

const idb_store *idb_store_find(const char *name)
{
    for (const idb_store *const *s = idb_stores; *s; s++)
        if (strcmp((*s)->name, name) == 0) return *s;
    return NULL;
}

int idb_store_check_table(const idb_store *const *table, idb_err *err)
{
    for (int i = 0; table[i]; i++) {
        const idb_store *s = table[i];
        if (!s->name || !s->name[0])
            return idb_fail(err, IDB_EINPUT, "store #%d of the registry has no name", i + 1);
        if (s->version != IDB_STORE_VERSION)
            return idb_fail(err, IDB_EINPUT, "store %s is refused by the registry: interface "
                            "version %d, expected %d", s->name, s->version, IDB_STORE_VERSION);
        if (!s->open || !s->insert || !s->commit || !s->stats || !s->close)
            return idb_fail(err, IDB_EINPUT, "store %s is refused by the registry: a required "
                            "function (open, insert, commit, stats, close) is NULL", s->name);
    }
    return 0;
}

int idb_store_check_width(const char *store, int key_bytes, idb_err *err)
{
    if (key_bytes >= 1 && key_bytes <= IDB_ID_MAX) return 0;
    return idb_fail(err, IDB_EINPUT, "%s: key width %d bytes: expected 1 to %d", store,
                    key_bytes, IDB_ID_MAX);
}
