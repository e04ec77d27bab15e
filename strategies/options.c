/* options.c — checking key=value options against a declaration table (see options.h); the
 * values are parsed and checked by the one key parser (keys.c). */
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Index of option name in o, or -1. */
static int find(const idb_opts *o, const char *name)
{
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->v[i].decl->name, name) == 0) return i;
    return -1;
}

/* Check value against option i's declaration and keep it. */
static int assign(idb_opts *o, int i, const char *value, const char *owner, idb_err *err)
{
    idb_err e = { 0 };
    idb_key_value v;
    if (idb_key_check(o->v[i].decl, value, &v, &e) != 0)
        return idb_fail(err, e.code, "%s: option %s", owner, e.msg);
    o->v[i].val = v;
    snprintf(o->v[i].text, sizeof o->v[i].text, "%s", value);   /* checked: it fits */
    return 0;
}

/* One option by name, through the key parser (see options.h). */
int idb_opts_set(idb_opts *o, const char *name, const char *value, const char *owner,
                 idb_err *err)
{
    int i = find(o, name);
    if (i < 0) {
        char known[IDB_OPT_VALUE_MAX];
        return idb_fail(err, IDB_EINPUT, "%s: unknown option '%s' (options: %s)", owner, name,
                        idb_keys_names(o->decls, NULL, known, sizeof known));
    }
    return assign(o, i, value, owner, err);
}

/* Defaults first, then each "key=value" in order (see options.h). */
int idb_opts_parse(idb_opts *o, const idb_opt_decl *decls, const char *const *kv, int nkv,
                   const char *owner, idb_err *err)
{
    memset(o, 0, sizeof *o);
    o->decls = decls;
    for (const idb_opt_decl *d = decls; d && d->name; d++) {
        if (o->n == IDB_OPTS_MAX) abort();           /* declaration table too long */
        o->v[o->n].decl = d;
        if (assign(o, o->n, d->def, owner, err) != 0) abort();   /* bad default: a bug */
        o->n++;
    }
    for (int k = 0; k < nkv; k++) {
        const char *eq = strchr(kv[k], '=');
        if (!eq || eq == kv[k])
            return idb_fail(err, IDB_EINPUT, "%s: option '%s' is not KEY=VALUE", owner, kv[k]);
        char name[IDB_OPT_NAME_MAX];
        size_t len = (size_t)(eq - kv[k]);
        if (len >= sizeof name)
            return idb_fail(err, IDB_EINPUT, "%s: option name too long in '%s'", owner, kv[k]);
        memcpy(name, kv[k], len);
        name[len] = 0;
        int rc = idb_opts_set(o, name, eq + 1, owner, err);
        if (rc) return rc;
    }
    return 0;
}

/* Whether decls has a key called name (see options.h). */
int idb_opts_declared(const idb_opt_decl *decls, const char *name)
{
    return idb_keys_find(decls, NULL, name) != NULL;
}

/* Index of declared option name in o; aborts when it is not declared (a bug). */
static int must_find(const idb_opts *o, const char *name)
{
    int i = find(o, name);
    if (i < 0) { fprintf(stderr, "idbench: bug: option %s not declared\n", name); abort(); }
    return i;
}

/* The integer value of a declared option (see options.h). */
int64_t idb_opts_int(const idb_opts *o, const char *name)
{
    int i = must_find(o, name);
    return o->v[i].decl->type == IDB_KEY_U64 ? (int64_t)o->v[i].val.u : o->v[i].val.i;
}

/* The text of a declared option, as given (see options.h). */
const char *idb_opts_str(const idb_opts *o, const char *name)
{
    return o->v[must_find(o, name)].text;
}

/* The number of a declared DOUBLE option (see options.h). */
double idb_opts_double(const idb_opts *o, const char *name)
{
    return o->v[must_find(o, name)].val.d;
}
