/* keys.c — parsing, checking and storing one typed `key = value` (see keys.h). */
#include "keys.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"
#define NUMBER_CHARS "0123456789.eE+-"

/* A whole decimal int64: optional sign, digits only (see keys.h). */
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

/* A whole finite decimal number: no blanks, inf, nan or hex (see keys.h). */
int idb_parse_double(const char *s, double *out)
{
    if (!*s || strspn(s, NUMBER_CHARS) != strlen(s)) return IDB_EINPUT;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v)) return IDB_EINPUT;
    *out = v;
    return 0;
}

/* Parse a whole unsigned decimal (digits only). Returns 0 or IDB_EINPUT. */
static int parse_u64(const char *s, uint64_t *out)
{
    if (!*s || strspn(s, "0123456789") != strlen(s)) return IDB_EINPUT;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno == ERANGE) return IDB_EINPUT;
    *out = v;
    return 0;
}

/* Index of value in choices "a|b|c", or -1. */
static int choice_index(const char *choices, const char *value)
{
    size_t n = strlen(value);
    int i = 0;
    for (const char *p = choices; p; i++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, value, n) == 0) return i;
        p = bar ? bar + 1 : NULL;
    }
    return -1;
}

/* The subject of a message about text: "KEY = " for a value, "KEY: entry " for an entry
 * of a list (entry != 0). */
static const char *subject(const idb_key *k, int entry, char *buf, size_t len)
{
    snprintf(buf, len, entry ? "%s: entry " : "%s = ", k->name);
    return buf;
}

/* Fail with "SUBJECT'TEXT': expected WHAT". */
static int expected(const idb_key *k, int entry, const char *text, const char *what,
                    idb_err *err)
{
    char subj[96];
    return idb_fail(err, IDB_EINPUT, "%s'%s': expected %s", subject(k, entry, subj, sizeof subj),
                    text, what);
}

/* Parse text as an integer of k (type INT, or an entry of INTS) within its bounds. */
static int check_int(const idb_key *k, int entry, const char *text, idb_key_value *v,
                     idb_err *err)
{
    char subj[96];
    if (idb_parse_i64(text, &v->i) != 0) return expected(k, entry, text, "an integer", err);
    if ((k->min || k->max) && (v->i < k->min || v->i > k->max))
        return idb_fail(err, IDB_EINPUT, "%s%s is out of range %lld..%lld",
                        subject(k, entry, subj, sizeof subj), text, (long long)k->min,
                        (long long)k->max);
    return 0;
}

/* Parse text as a number of k (type DOUBLE, or an entry of DOUBLES) within its bounds. */
static int check_double(const idb_key *k, int entry, const char *text, idb_key_value *v,
                        idb_err *err)
{
    char subj[96];
    if (k->off_word && strcmp(text, "off") == 0) { v->d = IDB_KEY_OFF; return 0; }
    if (idb_parse_double(text, &v->d) != 0)
        return expected(k, entry, text, k->off_word ? "a number or 'off'" : "a number", err);
    if ((k->dmin != 0 || k->dmax != 0) && (v->d < k->dmin || v->d > k->dmax))
        return idb_fail(err, IDB_EINPUT, "%s%s is out of range %g..%g",
                        subject(k, entry, subj, sizeof subj), text, k->dmin, k->dmax);
    return 0;
}

/* Refuse text that does not fit k: a NAME of the wrong length or characters, or any other
 * scalar of cap bytes or more (cap: a STR's or NAME's size, else IDB_KEY_VALUE_MAX). */
static int check_length(const idb_key *k, const char *text, idb_err *err)
{
    int is_text = k->type == IDB_KEY_STR || k->type == IDB_KEY_NAME;
    size_t n = strlen(text), cap = is_text && k->size ? k->size : IDB_KEY_VALUE_MAX;
    if (k->type == IDB_KEY_NAME && (n == 0 || n >= cap || strspn(text, NAME_CHARS) != n)) {
        char what[96];
        snprintf(what, sizeof what, "1 to %zu letters, digits, '_', '.' or '-'", cap - 1);
        return expected(k, 0, text, what, err);
    }
    if (n >= cap)
        return idb_fail(err, IDB_EINPUT, "%s: value too long (at most %zu bytes)", k->name,
                        cap - 1);
    return 0;
}

/* Length, then the type's parse and bounds, without storing (see keys.h). */
int idb_key_check(const idb_key *k, const char *text, idb_key_value *v, idb_err *err)
{
    idb_key_value scratch;
    if (!v) v = &scratch;
    memset(v, 0, sizeof *v);
    if (k->type == IDB_KEY_INTS || k->type == IDB_KEY_DOUBLES || k->type == IDB_KEY_LIST)
        return idb_fail(err, IDB_EINPUT, "%s: a list, not one value (a bug)", k->name);
    if (check_length(k, text, err)) return IDB_EINPUT;
    switch (k->type) {
    case IDB_KEY_INT: return check_int(k, 0, text, v, err);
    case IDB_KEY_DOUBLE: return check_double(k, 0, text, v, err);
    case IDB_KEY_U64:
        return parse_u64(text, &v->u) ? expected(k, 0, text, "an unsigned integer", err) : 0;
    case IDB_KEY_BOOL:
        v->i = choice_index("0|1", text);
        return v->i < 0 ? expected(k, 0, text, "one of 0|1", err) : 0;
    case IDB_KEY_ENUM: {
        char what[IDB_KEY_VALUE_MAX];
        v->i = choice_index(k->choices, text);
        snprintf(what, sizeof what, "one of %s", k->choices);
        return v->i < 0 ? expected(k, 0, text, what, err) : 0;
    }
    default: return 0;                          /* STR, NAME: checked above */
    }
}

/* Context of one list being stored. */
typedef struct list_ctx {
    const idb_key *k;
    char *field;
    void *base, *ctx;
} list_ctx;

/* Store entry i of an INTS or DOUBLES list. */
static int number_entry(void *ctx, int i, const char *entry, idb_err *err)
{
    list_ctx *l = ctx;
    idb_key_value v;
    if (l->k->type == IDB_KEY_INTS) {
        if (check_int(l->k, 1, entry, &v, err)) return IDB_EINPUT;
        ((int64_t *)l->field)[i] = v.i;
    } else {
        if (check_double(l->k, 1, entry, &v, err)) return IDB_EINPUT;
        ((double *)l->field)[i] = v.d;
    }
    return 0;
}

/* Give entry i of a LIST to its hook. */
static int hook_entry(void *ctx, int i, const char *entry, idb_err *err)
{
    list_ctx *l = ctx;
    int rc = l->k->hook(l->k, l->base, l->ctx, i, entry, err);
    return rc < 0 ? rc : 0;
}

/* Store a list value (INTS, DOUBLES, LIST) and its count. */
static int set_list(const idb_key *k, void *base, void *ctx, const char *text, idb_err *err)
{
    list_ctx l = { k, (char *)base + k->off, base, ctx };
    size_t elem = k->type == IDB_KEY_INTS ? sizeof(int64_t)
                  : k->type == IDB_KEY_DOUBLES ? sizeof(double) : k->elem;
    int n;
    if (k->type == IDB_KEY_LIST && k->all && strcmp(text, "all") == 0)
        n = k->hook(k, base, ctx, IDB_KEY_ALL, text, err);
    else if (k->type == IDB_KEY_LIST)
        n = idb_key_each(k, text, (int)(k->size / elem), hook_entry, &l, err);
    else {
        /* parse every entry before storing any: a refused list leaves the field alone */
        char *tmp = malloc(k->size ? k->size : 1);
        if (!tmp) return idb_fail(err, IDB_ENOMEM, "%s: out of memory", k->name);
        l.field = tmp;
        n = idb_key_each(k, text, (int)(k->size / elem), number_entry, &l, err);
        if (n >= 0) memcpy((char *)base + k->off, tmp, (size_t)n * elem);
        free(tmp);
    }
    if (n < 0) return n;
    *(int *)((char *)base + k->count_off) = n;
    return 0;
}

/* Check, store at base + off, then the hook (see keys.h). */
int idb_key_set(const idb_key *k, void *base, void *ctx, const char *text, idb_err *err)
{
    int text_key = k->type == IDB_KEY_STR || k->type == IDB_KEY_NAME;
    if ((text_key && !k->size) || (k->type == IDB_KEY_LIST && (!k->elem || !k->hook)))
        return idb_fail(err, IDB_EINPUT, "%s: declared without a field to store in (a bug)",
                        k->name);
    if (k->type == IDB_KEY_INTS || k->type == IDB_KEY_DOUBLES || k->type == IDB_KEY_LIST)
        return set_list(k, base, ctx, text, err);
    idb_key_value v;
    int rc = idb_key_check(k, text, &v, err);
    if (rc) return rc;
    char *field = (char *)base + k->off;
    switch (k->type) {
    case IDB_KEY_INT: case IDB_KEY_ENUM: *(int64_t *)field = v.i; break;
    case IDB_KEY_U64: *(uint64_t *)field = v.u; break;
    case IDB_KEY_DOUBLE: *(double *)field = v.d; break;
    case IDB_KEY_BOOL: *(int *)field = (int)v.i; break;
    default: memcpy(field, text, strlen(text) + 1); break;   /* checked: fits in size */
    }
    rc = k->hook ? k->hook(k, base, ctx, 0, text, err) : 0;
    return rc < 0 ? rc : 0;
}

/* Each default of section through idb_key_set; a refused one is the table's bug
 * (see keys.h). */
int idb_keys_defaults(const idb_key *keys, const char *section, void *base, void *ctx,
                      idb_err *err)
{
    for (const idb_key *k = keys; k->name; k++) {
        if (!k->def || (section && (!k->section || strcmp(k->section, section) != 0))) continue;
        idb_err e = { 0 };
        if (idb_key_set(k, base, ctx, k->def, &e) != 0)
            return idb_fail(err, IDB_EINPUT, "bad default of key %s: %s", k->name, e.msg);
    }
    return 0;
}

/* Trim blanks (space, tab) from both ends of s[0..*n); returns the new start. */
static const char *trim(const char *s, size_t *n)
{
    while (*n && (*s == ' ' || *s == '\t')) { s++; (*n)--; }
    while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t')) (*n)--;
    return s;
}

/* Split text at commas, trim, check and hand each entry to fn (see keys.h). */
int idb_key_each(const idb_key *k, const char *text, int max,
                 int (*fn)(void *ctx, int i, const char *entry, idb_err *err), void *ctx,
                 idb_err *err)
{
    size_t all = strlen(text);
    trim(text, &all);
    if (all == 0)
        return idb_fail(err, IDB_EINPUT, "%s: expected at least one entry", k->name);
    char entry[IDB_KEY_ENTRY_MAX];
    int n = 0;
    for (const char *p = text; p; n++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *s = trim(p, &len);
        if (len == 0)
            return idb_fail(err, IDB_EINPUT, "%s = '%s': empty entry in the list", k->name,
                            text);
        if (len >= sizeof entry)
            return idb_fail(err, IDB_EINPUT, "%s: entry %d is longer than %zu bytes", k->name,
                            n + 1, sizeof entry - 1);
        if (n == max)
            return idb_fail(err, IDB_EINPUT, "%s: more than %d entries", k->name, max);
        memcpy(entry, s, len);
        entry[len] = 0;
        int rc = fn(ctx, n, entry, err);
        if (rc < 0) return rc;
        p = comma ? comma + 1 : NULL;
    }
    return n;
}

/* The field's size bytes, and a list's count (see keys.h). */
void idb_key_copy(const idb_key *k, void *dst, const void *src)
{
    memcpy((char *)dst + k->off, (const char *)src + k->off, k->size);
    if (k->type == IDB_KEY_INTS || k->type == IDB_KEY_DOUBLES || k->type == IDB_KEY_LIST)
        memcpy((char *)dst + k->count_off, (const char *)src + k->count_off, sizeof(int));
}

/* Linear search of the {0}-terminated table (see keys.h). */
const idb_key *idb_keys_find(const idb_key *keys, const char *section, const char *name)
{
    for (const idb_key *k = keys; k && k->name; k++)
        if (strcmp(k->name, name) == 0 &&
            (!section || (k->section && strcmp(k->section, section) == 0)))
            return k;
    return NULL;
}

/* ", "-separated names of one section, whole names only (see keys.h). */
const char *idb_keys_names(const idb_key *keys, const char *section, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (const idb_key *k = keys; k && k->name; k++) {
        if (section && (!k->section || strcmp(k->section, section) != 0)) continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", k->name);
        if (w < 0 || (size_t)w >= len - used) { buf[used] = 0; break; }   /* whole names only */
        used += (size_t)w;
    }
    if (!used) snprintf(buf, len, "none");
    return buf;
}
