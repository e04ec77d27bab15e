/* stores.c — the table of every store, and the checks every store shares (store.h).
 * Adding a store: one X(name) line in IDB_STORES, for a file that defines
 * `const idb_store idb_store_<name>`. */
#include <stdio.h>
#include <string.h>

#include "store.h"

/* Every store: one line each. */
#define IDB_STORES(X) \
    X(sqlite) \
    X(lmdb) \
    X(pagesim) \
    X(null) \
    X(postgres) \
    X(mariadb) \
    X(spider) \
    X(galera) \

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
        if (s->version < 1 || s->version > IDB_STORE_VERSION)
            return idb_fail(err, IDB_EINPUT, "store %s is refused by the registry: interface "
                            "version %d, expected 1 to %d", s->name, s->version,
                            IDB_STORE_VERSION);
        if (!s->open || !s->insert || !s->commit || !s->stats || !s->close)
            return idb_fail(err, IDB_EINPUT, "store %s is refused by the registry: a required "
                            "function (open, insert, commit, stats, close) is NULL", s->name);
        if (s->version >= 2 && (s->clients < 0 || (s->clients > 1 && !s->open_client)))
            return idb_fail(err, IDB_EINPUT, "store %s is refused by the registry: it takes "
                            "%d clients but has no open_client", s->name, s->clients);
        if (s->version >= 3 && s->sample_parts && !s->set_bounds)
            return idb_fail(err, IDB_EINPUT, "store %s is refused by the registry: it has "
                            "sample_parts but no set_bounds", s->name);
        if (s->version >= 4 && s->insert_assigned &&
            !idb_opts_declared(s->options, IDB_STORE_AUTOINC))
            return idb_fail(err, IDB_EINPUT, "store %s is refused by the registry: it has "
                            "insert_assigned but no option " IDB_STORE_AUTOINC, s->name);
    }
    return 0;
}

/* Writers st takes at once (see store.h). Version 1 ends at `progress`: its later fields
 * are not read. */
int idb_store_clients(const idb_store *st)
{
    if (st->version < 2 || !st->open_client || st->clients < 1) return 1;
    return st->clients;
}

/* The CPU time of h's private servers (see store.h); -1 for a store before version 3 or
 * without the hook. */
int64_t idb_store_server_cpu_ns(const idb_store *st, void *h)
{
    if (st->version < 3 || !st->server_cpu_ns || !h) return -1;
    return st->server_cpu_ns(h);
}

/* Parts st cuts the run's keys into (see store.h). Version 2 ends at `rollback`. */
int idb_store_sample_parts(const idb_store *st, const idb_opts *o)
{
    if (st->version < 3 || !st->sample_parts) return 0;
    return st->sample_parts(o);
}

/* Whether st assigns keys (see store.h). Version 3 ends at `close_read`. */
int idb_store_assigns_keys(const idb_store *st)
{
    return st->version >= 4 && st->insert_assigned &&
           idb_opts_declared(st->options, IDB_STORE_AUTOINC);
}

/* Whether st serves reads (see store.h). Version 2 ends at `rollback`. */
int idb_store_can_read(const idb_store *st)
{
    return st->version >= 3 && st->get && st->read_counts && (st->open_read || st->model);
}

int idb_store_check_width(const char *store, int key_bytes, idb_err *err)
{
    if (key_bytes >= 1 && key_bytes <= IDB_ID_MAX) return 0;
    return idb_fail(err, IDB_EINPUT, "%s: key width %d bytes: expected 1 to %d", store,
                    key_bytes, IDB_ID_MAX);
}

const idb_secondary idb_store_secondaries[] = {
    { "secondary_created", "CREATE INDEX orders_created ON orders(created_ms)" },
    { "secondary_shop", "CREATE INDEX orders_shop ON orders(shop, created_ms)" },
    { 0 },
};

const idb_opt_decl idb_store_common_options[] = {
    { .name = "key_bytes", .type = IDB_OPT_INT, .def = "0",
      .help = "pad every key to N bytes, big-endian with leading zeros (order kept); 0 = the "
              "strategy's width", .min = 0, .max = IDB_ID_MAX },
    { .name = "device", .type = IDB_OPT_ENUM, .def = "none",
      .help = "modelled device: read_us and write_us of a cited specification (docs/scale.md)",
      .choices = "none|nvme|ssd|hdd" },
    { .name = "read_us", .type = IDB_KEY_DOUBLE, .def = "0",
      .help = "modelled microseconds per page read (accounted, not slept)", .dmin = 0,
      .dmax = 1e6 },
    { .name = "write_us", .type = IDB_KEY_DOUBLE, .def = "0",
      .help = "modelled microseconds per page written (accounted, not slept)", .dmin = 0,
      .dmax = 1e6 },
    { 0 },
};

/* 1 if kv ("key=value") sets one of the common options. */
static int is_common(const char *kv)
{
    size_t n = strcspn(kv, "=");
    for (const idb_opt_decl *d = idb_store_common_options; d->name; d++)
        if (strlen(d->name) == n && strncmp(d->name, kv, n) == 0) return 1;
    return 0;
}

int idb_store_opts_parse(const idb_store *st, const char *const *kv, int nkv, int natural,
                         idb_opts *o, int *width, idb_err *err)
{
    const char *own[IDB_OPTS_MAX * 4], *common[IDB_OPTS_MAX * 4];
    int nown = 0, ncommon = 0;
    if (nkv > (int)(sizeof own / sizeof *own))
        return idb_fail(err, IDB_EINPUT, "store %s: too many options (%d)", st->name, nkv);
    for (int i = 0; i < nkv; i++) {
        if (is_common(kv[i])) common[ncommon++] = kv[i];
        else own[nown++] = kv[i];
    }
    char owner[IDB_OPT_NAME_MAX + sizeof "store "];
    snprintf(owner, sizeof owner, "store %s", st->name);
    int rc = idb_opts_parse(o, idb_store_common_options, common, ncommon, owner, err);
    if (rc) return rc;
    int64_t kb = idb_opts_int(o, "key_bytes");
    if (kb && kb < natural)
        return idb_fail(err, IDB_EINPUT, "store %s: key_bytes=%lld is narrower than the "
                        "strategy's %d-byte keys (0 keeps their width)", st->name,
                        (long long)kb, natural);
    *width = kb ? (int)kb : natural;
    rc = idb_opts_parse(o, st->options, own, nown, owner, err);
    if (!rc && st->check) rc = st->check(o, *width, err);
    return rc;
}

/* The value of option key in kv (see store.h). */
const char *idb_store_kv_value(const char *const *kv, int nkv, const char *key)
{
    size_t n = strlen(key);
    const char *v = "";
    for (int i = 0; i < nkv; i++)
        if (strncmp(kv[i], key, n) == 0 && kv[i][n] == '=') v = kv[i] + n + 1;
    return v;
}
