/* keys.h — typed keys: the one parser of `key = value` for strategy and store options
 * (options.h), workload files (sim_workload.c) and matrix files (matrix_file.c).
 *
 * A key is declared once, in a table ending with {0}: its name, its type, its default as
 * text, its bounds or choices, one line of help, and where its value goes (an offset into
 * the caller's struct, the field's size, and for lists where the entry count goes). One
 * value is parsed, checked and stored by idb_key_set; every refusal is one sentence, in
 * one wording, that names the key:
 *
 *     KEY = 'TEXT': expected an integer         not of the key's type (also "a number",
 *                                               "one of a|b", "an unsigned integer", ...)
 *     KEY = TEXT is out of range MIN..MAX       of the type, outside the bounds
 *     KEY: entry 'TEXT': expected an integer    one entry of a comma-separated list
 *     KEY: entry TEXT is out of range MIN..MAX
 *
 * The caller says where the value came from ("FILE:LINE: ", "--set S.K=V: ", "strategy
 * snowflake: option "). What belongs to one kind of file stays with its reader: sections,
 * overrides, inheritance between blocks, keys that depend on each other.
 */
#ifndef IDB_KEYS_H
#define IDB_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

enum idb_key_type {
    IDB_KEY_INT,         /* int64_t in min..max (both 0: any int64) */
    IDB_KEY_STR,         /* char[size]: any text shorter than size */
    IDB_KEY_ENUM,        /* int64_t: the index of the value in choices "a|b|c" */
    IDB_KEY_U64,         /* uint64_t: any unsigned decimal */
    IDB_KEY_DOUBLE,      /* double, finite, in dmin..dmax (both 0: any); see off_word */
    IDB_KEY_BOOL,        /* int: 0 or 1 */
    IDB_KEY_NAME,        /* char[size]: 1 to size-1 of A-Z a-z 0-9 _ . - */
    IDB_KEY_INTS,        /* int64_t[]: comma-separated, each in min..max; count at count_off */
    IDB_KEY_DOUBLES,     /* double[]: comma-separated, each in dmin..dmax; count at count_off */
    IDB_KEY_LIST,        /* comma-separated names, each stored by hook (elem bytes apart);
                          * count at count_off */
};

#define IDB_KEY_VALUE_MAX 256    /* a scalar value's longest text plus NUL, when size is 0 */
#define IDB_KEY_ENTRY_MAX 1024   /* one list entry's longest text plus NUL */
#define IDB_KEY_OFF (-1.0)       /* what `off` stores in a DOUBLE key with off_word */
#define IDB_KEY_ALL (-1)         /* hook's entry index for the value `all` of a LIST key */

struct idb_key;

/* A key's hook. LIST keys: called for entry i (0, 1, ...) of the list with its text, to
 * check what it names and store it at base + off + i * elem; with i = IDB_KEY_ALL and text
 * "all" when the key has `all` set and the value is `all`, to store every entry, returning
 * how many. Other keys (optional): called with i = 0 and the value after it passed the
 * type's checks and was stored, to check it further or rewrite the stored value (e.g. a
 * path resolved against the file naming it). ctx is the caller's (idb_key_set's ctx).
 * Returns >= 0, or IDB_EINPUT with err filled (the message is passed on as it is). */
typedef int (*idb_key_hook)(const struct idb_key *k, void *base, void *ctx, int i,
                            const char *text, idb_err *err);

/* One key. The first seven fields keep their order: option tables fill them by position. */
typedef struct idb_key {
    const char *name;
    enum idb_key_type type;
    const char *def;             /* default, as text (NULL: the field is left as it is) */
    const char *help;            /* one line */
    int64_t min, max;            /* INT, INTS: inclusive bounds (both 0: any int64) */
    const char *choices;         /* ENUM: "a|b|c" */
    double dmin, dmax;           /* DOUBLE, DOUBLES: inclusive bounds (both 0: any) */
    int off_word;                /* DOUBLE: `off` is also accepted, stored as IDB_KEY_OFF */
    int all;                     /* LIST: `all` alone goes to hook with i = IDB_KEY_ALL */
    const char *section;         /* files: the [section] the key belongs to */
    size_t off, size;            /* the value goes to base + off, a field of size bytes */
    size_t count_off;            /* INTS, DOUBLES, LIST: the int count at base + count_off */
    size_t elem;                 /* LIST: bytes per entry (so at most size / elem entries) */
    idb_key_hook hook;           /* LIST: required; others: optional (see idb_key_hook) */
} idb_key;

/* Designated initializers for where a key's value goes in struct T. */
#define IDB_KEY_AT(T, f) .off = offsetof(T, f), .size = sizeof(((T *)0)->f)
#define IDB_KEY_COUNT(T, f) .count_off = offsetof(T, f)

/* A scalar value as parsed: INT, BOOL, ENUM (the index) in i; U64 in u; DOUBLE in d. */
typedef struct idb_key_value {
    int64_t i;
    uint64_t u;
    double d;
} idb_key_value;

/* Parse and check text as the value of scalar key k (any type but INTS, DOUBLES, LIST)
 * without storing it. A STR or NAME key of size 0 takes text shorter than
 * IDB_KEY_VALUE_MAX. Returns 0 with *v filled (v may be NULL), or IDB_EINPUT with err
 * saying "KEY = 'TEXT': why" or "KEY = TEXT is out of range MIN..MAX". */
int idb_key_check(const idb_key *k, const char *text, idb_key_value *v, idb_err *err);

/* Parse text as the value of k, check it and store it at base + k->off (lists: their
 * entries and count), then call k->hook with ctx when it has one. Nothing is stored when
 * the text is refused by the type; a hook's refusal may leave the field changed (callers
 * stop at the first error). Returns 0 or IDB_EINPUT with err filled (see above). */
int idb_key_set(const idb_key *k, void *base, void *ctx, const char *text, idb_err *err);

/* Set every key of table keys (ending with {0}) that has a default and whose section is
 * section (NULL: every key) from its default text, as idb_key_set would. Returns 0, or
 * IDB_EINPUT when a default is refused (a bug in the table: err says which). */
int idb_keys_defaults(const idb_key *keys, const char *section, void *base, void *ctx,
                      idb_err *err);

/* Call fn for each entry of the comma-separated list text (blanks around an entry are
 * trimmed), naming key k in messages: an empty list, an empty entry, an entry of
 * IDB_KEY_ENTRY_MAX bytes or more, or more than max entries is refused. Returns the number
 * of entries, or IDB_EINPUT with err filled (fn's own refusal is passed on). */
int idb_key_each(const idb_key *k, const char *text, int max,
                 int (*fn)(void *ctx, int i, const char *entry, idb_err *err), void *ctx,
                 idb_err *err);

/* Copy the value of k (and a list's count) from the struct at src to the one at dst. */
void idb_key_copy(const idb_key *k, void *dst, const void *src);

/* The key of table keys called name in section (NULL: any section), or NULL. */
const idb_key *idb_keys_find(const idb_key *keys, const char *section, const char *name);

/* The names of the keys of section (NULL: every key), ", "-separated, into buf (only the
 * whole names that fit in len); "none" when there are none. Returns buf. For "unknown key"
 * messages. */
const char *idb_keys_names(const idb_key *keys, const char *section, char *buf, size_t len);

/* Parse a whole decimal int64 (optional sign, digits only). Returns 0 or IDB_EINPUT. */
int idb_parse_i64(const char *s, int64_t *out);

/* Parse a whole finite decimal number (digits, sign, '.', exponent; no inf, nan or hex).
 * Returns 0 or IDB_EINPUT. */
int idb_parse_double(const char *s, double *out);

#endif
