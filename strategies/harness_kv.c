/* harness_kv.c — the options the harness fills in for a strategy instance (see
 * harness_kv.h; the list and its meaning are in strategy.h). */
#include "harness_kv.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Every option the harness may fill in, and where its value is in idb_harness_place. */
static const struct fill {
    const char *name;
    int is_text;                       /* 1: a const char * field, 0: an int64_t */
    size_t off;
} fills[] = {
    { "shard", 0, offsetof(idb_harness_place, shard) },
    { "shards", 0, offsetof(idb_harness_place, shards) },
    { "base", 0, offsetof(idb_harness_place, base) },
    { "worker", 0, offsetof(idb_harness_place, worker) },
    { "range_size", 0, offsetof(idb_harness_place, range_size) },
    { "dir", 1, offsetof(idb_harness_place, dir) },
    { "name", 1, offsetof(idb_harness_place, name) },
    { "dsn", 1, offsetof(idb_harness_place, dsn) },
    { "url", 1, offsetof(idb_harness_place, url) },
    { "secret_file", 1, offsetof(idb_harness_place, secret_file) },
};
_Static_assert(sizeof fills / sizeof *fills == IDB_HARNESS_FILLS, "IDB_HARNESS_FILLS");

/* Every field unset (see harness_kv.h). */
idb_harness_place idb_harness_place_none(void)
{
    idb_harness_place p = { IDB_HARNESS_UNSET, IDB_HARNESS_UNSET, IDB_HARNESS_UNSET,
                            IDB_HARNESS_UNSET, IDB_HARNESS_UNSET, NULL, NULL, NULL, NULL, NULL };
    return p;
}

/* 1 if one of kv[0..n) ("key=value") sets name. */
static int user_sets(const char *const *kv, int n, const char *name)
{
    size_t len = strlen(name);
    for (int i = 0; i < n; i++)
        if (strncmp(kv[i], name, len) == 0 && kv[i][len] == '=') return 1;
    return 0;
}

/* The user's options, then each harness option the strategy declares and the user did
 * not set, in the order of fills[] (see harness_kv.h). */
int idb_strategy_harness_kv(const idb_strategy *s, const idb_harness_place *place,
                            const char *const *user, int nuser, idb_harness_kv *out,
                            idb_err *err)
{
    out->n = 0;
    if (nuser > IDB_HARNESS_USER_MAX)
        return idb_fail(err, IDB_EINPUT, "strategy %s: more than %d options", s->name,
                        IDB_HARNESS_USER_MAX);
    for (int i = 0; i < nuser; i++) out->kv[out->n++] = user[i];
    int nb = 0;
    for (size_t i = 0; i < sizeof fills / sizeof *fills; i++) {
        const struct fill *f = &fills[i];
        const char *field = (const char *)place + f->off;
        const char *text = f->is_text ? *(const char *const *)field : NULL;
        int64_t v = f->is_text ? 0 : *(const int64_t *)field;
        if ((f->is_text ? !text : v == IDB_HARNESS_UNSET) ||
            !idb_opts_declared(s->options, f->name) || user_sets(user, nuser, f->name))
            continue;
        if (text && strlen(text) >= IDB_OPT_VALUE_MAX)
            return idb_fail(err, IDB_EINPUT, "strategy %s: option %s: value too long (at most "
                            "%d bytes)", s->name, f->name, IDB_OPT_VALUE_MAX - 1);
        char *b = out->buf[nb++];
        if (text) snprintf(b, sizeof out->buf[0], "%s=%s", f->name, text);
        else snprintf(b, sizeof out->buf[0], "%s=%lld", f->name, (long long)v);
        out->kv[out->n++] = b;
    }
    return 0;
}
