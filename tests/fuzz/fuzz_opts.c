/* fuzz_opts.c — libFuzzer target: the option parser, idb_opts_parse, over every strategy's
 * and every store's declared options.
 *
 * Input: byte 0 picks the plug-in (the strategies in registry order, then the stores,
 * modulo their count); the rest is "KEY=VALUE" lines, as -o / -s give them. Checked when
 * the options are accepted (a refusal must say why):
 *   - the value a key was last given is kept whole, as given (no silent cut);
 *   - every value is within what its key declares: an INT in min..max, a DOUBLE finite
 *     and in dmin..dmax (or `off` where allowed), an ENUM one of its choices, a BOOL 0 or
 *     1, so a plug-in only ever sees valid values;
 *   - the accessors read every option without aborting, and parsing the kept texts
 *     again gives the same values (idb_opts_set agrees with idb_opts_parse).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "store.h"
#include "strategy.h"

#define KV_MAX 64                        /* option lines read from one input */

/* One plug-in's option table and its name for messages. */
typedef struct plugin {
    const idb_opt_decl *decls;
    char owner[IDB_OPT_NAME_MAX + 16];
} plugin;

/* The plug-in of index i over strategies then stores; 0 when i is past both. */
static int plugin_at(int i, plugin *p)
{
    for (const idb_strategy *const *s = idb_strategies; *s; s++)
        if (i-- == 0) {
            p->decls = (*s)->options;
            snprintf(p->owner, sizeof p->owner, "strategy %s", (*s)->name);
            return 1;
        }
    for (const idb_store *const *s = idb_stores; *s; s++)
        if (i-- == 0) {
            p->decls = (*s)->options;
            snprintf(p->owner, sizeof p->owner, "store %s", (*s)->name);
            return 1;
        }
    return 0;
}

/* Number of choices in "a|b|c". */
static int64_t choice_count(const char *choices)
{
    int64_t n = 1;
    for (; *choices; choices++) n += *choices == '|';
    return n;
}

/* Option i of o holds a value its declaration allows. */
static void check_bounds(const plugin *p, const idb_opts *o, int i)
{
    const idb_opt_decl *d = o->v[i].decl;
    const idb_key_value *v = &o->v[i].val;
    const char *t = o->v[i].text;
    if (d->type == IDB_KEY_INT && (d->min || d->max))
        FUZZ_CHECK(v->i >= d->min && v->i <= d->max, "%s: %s = '%s' kept as %lld, outside "
                   "%lld..%lld", p->owner, d->name, t, (long long)v->i, (long long)d->min,
                   (long long)d->max);
    if (d->type == IDB_KEY_DOUBLE) {
        int off = d->off_word && v->d == IDB_KEY_OFF && strcmp(t, "off") == 0;
        FUZZ_CHECK(off || isfinite(v->d), "%s: %s = '%s' is not finite", p->owner, d->name, t);
        if (!off && (d->dmin != 0 || d->dmax != 0))
            FUZZ_CHECK(v->d >= d->dmin && v->d <= d->dmax, "%s: %s = '%s' kept as %g, outside "
                       "%g..%g", p->owner, d->name, t, v->d, d->dmin, d->dmax);
    }
    if (d->type == IDB_KEY_ENUM)
        FUZZ_CHECK(v->i >= 0 && v->i < choice_count(d->choices), "%s: %s = '%s' is choice %lld "
                   "of '%s'", p->owner, d->name, t, (long long)v->i, d->choices);
    if (d->type == IDB_KEY_BOOL)
        FUZZ_CHECK(v->i == 0 || v->i == 1, "%s: %s = '%s' kept as %lld", p->owner, d->name, t,
                   (long long)v->i);
}

/* The same value, bit for bit, as the type keeps it. */
static int same_value(const idb_opt_decl *d, const idb_key_value *a, const idb_key_value *b)
{
    if (d->type == IDB_KEY_DOUBLE) return memcmp(&a->d, &b->d, sizeof a->d) == 0;
    if (d->type == IDB_KEY_U64) return a->u == b->u;
    return a->i == b->i;
}

/* Accepted options: each check of the header comment. kv[0..n) were given. */
static void check_accepted(const plugin *p, const idb_opts *o, char **kv, int n)
{
    for (int k = n - 1; k >= 0; k--) {               /* the last value of a key wins */
        const char *eq = strchr(kv[k], '=');
        size_t len = (size_t)(eq - kv[k]);
        for (int i = 0; i < o->n; i++)
            if (strlen(o->v[i].decl->name) == len && !strncmp(o->v[i].decl->name, kv[k], len)) {
                int later = 0;
                for (int j = k + 1; j < n; j++)
                    later |= !strncmp(kv[j], kv[k], len + 1);
                FUZZ_CHECK(later || strcmp(o->v[i].text, eq + 1) == 0, "%s: %s kept as '%s', "
                           "given '%s'", p->owner, o->v[i].decl->name, o->v[i].text, eq + 1);
            }
    }
    idb_opts again = *o;
    idb_err err = { 0 };
    for (int i = 0; i < o->n; i++) {
        const char *name = o->v[i].decl->name;
        check_bounds(p, o, i);
        FUZZ_CHECK(strcmp(idb_opts_str(o, name), o->v[i].text) == 0, "%s: %s", p->owner, name);
        if (o->v[i].decl->type == IDB_KEY_DOUBLE) (void)idb_opts_double(o, name);
        else (void)idb_opts_int(o, name);
        int rc = idb_opts_set(&again, name, o->v[i].text, p->owner, &err);
        FUZZ_CHECK(rc == 0, "%s: its own value of %s refused: %s", p->owner, name, err.msg);
        FUZZ_CHECK(same_value(o->v[i].decl, &o->v[i].val, &again.v[i].val),
                   "%s: %s = '%s' parsed to another value the second time", p->owner, name,
                   o->v[i].text);
    }
}

/* One input: the plug-in of byte 0, its options from the lines after it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int count = 0;
    plugin p;
    while (plugin_at(count, &p)) count++;
    if (size < 1 || count == 0) return 0;
    plugin_at(data[0] % count, &p);
    char *text = fuzz_text(data + 1, size - 1);
    char *kv[KV_MAX];
    int n = fuzz_lines(text, kv, KV_MAX);
    idb_opts o;
    idb_err err = { 0 };
    int rc = idb_opts_parse(&o, p.decls, (const char *const *)kv, n, p.owner, &err);
    if (rc == 0) check_accepted(&p, &o, kv, n);
    else FUZZ_CHECK(rc == IDB_EINPUT && err.msg[0], "%s: refused with %d and no message",
                    p.owner, rc);
    free(text);
    return 0;
}
