/* options.c — checking key=value options against a declaration table (see options.h). */
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int idb_parse_i64(const char *s, int64_t *out)
{
    const char *p = s;
    if (*p == '-' || *p == '+') p++;
    if (*p < '0' || *p > '9') return IDB_EINPUT;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9') return IDB_EINPUT;
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno == ERANGE) return IDB_EINPUT;
    *out = v;
    return 0;
}

static int choice_ok(const char *choices, const char *v)
{
    size_t n = strlen(v);
    for (const char *p = choices; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, v, n) == 0) return 1;
        if (!bar) break;
        p = bar + 1;
    }
    return 0;
}

static int find(const idb_opts *o, const char *name)
{
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->v[i].decl->name, name) == 0) return i;
    return -1;
}

static int assign(idb_opts *o, int i, const char *value, const char *owner, idb_err *err)
{
    const idb_opt_decl *d = o->v[i].decl;
    if (strlen(value) >= IDB_OPT_VALUE_MAX)
        return idb_fail(err, IDB_EINPUT, "%s: option %s: value too long", owner, d->name);
    if (d->type == IDB_OPT_INT) {
        int64_t v;
        if (idb_parse_i64(value, &v) != 0)
            return idb_fail(err, IDB_EINPUT, "%s: option %s: '%s' is not an integer", owner,
                            d->name, value);
        if ((d->min || d->max) && (v < d->min || v > d->max))
            return idb_fail(err, IDB_EINPUT, "%s: option %s=%s is out of range %lld..%lld",
                            owner, d->name, value, (long long)d->min, (long long)d->max);
        o->v[i].i = v;
    } else if (d->type == IDB_OPT_ENUM && !choice_ok(d->choices, value)) {
        return idb_fail(err, IDB_EINPUT, "%s: option %s=%s: expected one of %s", owner, d->name,
                        value, d->choices);
    }
    strcpy(o->v[i].text, value);
    return 0;
}

int idb_opts_set(idb_opts *o, const char *name, const char *value, const char *owner,
                 idb_err *err)
{
    int i = find(o, name);
    if (i < 0) {
        char known[200] = "";
        for (int j = 0; j < o->n; j++) {
            if (j) strncat(known, ", ", sizeof known - strlen(known) - 1);
            strncat(known, o->v[j].decl->name, sizeof known - strlen(known) - 1);
        }
        return idb_fail(err, IDB_EINPUT, "%s: unknown option '%s' (options: %s)", owner, name,
                        o->n ? known : "none");
    }
    return assign(o, i, value, owner, err);
}

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
        char name[64];
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

int idb_opts_declared(const idb_opt_decl *decls, const char *name)
{
    for (const idb_opt_decl *d = decls; d && d->name; d++)
        if (strcmp(d->name, name) == 0) return 1;
    return 0;
}

int64_t idb_opts_int(const idb_opts *o, const char *name)
{
    int i = find(o, name);
    if (i < 0) { fprintf(stderr, "idbench: bug: option %s not declared\n", name); abort(); }
    return o->v[i].i;
}

const char *idb_opts_str(const idb_opts *o, const char *name)
{
    int i = find(o, name);
    if (i < 0) { fprintf(stderr, "idbench: bug: option %s not declared\n", name); abort(); }
    return o->v[i].text;
}
