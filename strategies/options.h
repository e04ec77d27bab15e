/* options.h — declared key=value options, shared by strategies and stores.
 *
 * A plug-in declares its options as a table of typed keys (keys.h) ending with {0}: name,
 * type, default, one line of help, bounds or choices. The command line (-o / -s
 * KEY=VALUE), workload files and the matrix all pass plain "key=value" strings;
 * idb_opts_parse checks each against the table with the one key parser (unknown key, not
 * of the type, out of range, not one of the choices) and fills in defaults, so a plug-in
 * only ever sees valid values. Options are scalars (any key type but the lists). No
 * allocation: values live inside idb_opts.
 */
#ifndef IDB_OPTIONS_H
#define IDB_OPTIONS_H

#include <stdint.h>

#include "err.h"
#include "keys.h"

/* An option is a typed key; its value lives in idb_opts (off and size are not used). */
typedef idb_key idb_opt_decl;
#define IDB_OPT_INT IDB_KEY_INT
#define IDB_OPT_STR IDB_KEY_STR
#define IDB_OPT_ENUM IDB_KEY_ENUM

#define IDB_OPTS_MAX 24
#define IDB_OPT_VALUE_MAX IDB_KEY_VALUE_MAX
#define IDB_OPT_NAME_MAX 64      /* longest option name plus NUL */

typedef struct idb_opts {
    const idb_opt_decl *decls;
    int n;
    struct {
        const idb_opt_decl *decl;
        char text[IDB_OPT_VALUE_MAX];     /* the value as given */
        idb_key_value val;                /* parsed (see keys.h: idb_key_value) */
    } v[IDB_OPTS_MAX];
} idb_opts;

/* Fill o with the defaults of decls, then apply each "key=value" of kv[0..nkv).
 * owner names the plug-in in messages ("strategy snowflake"): "OWNER: option KEY = ..."
 * (keys.h), "OWNER: unknown option 'KEY' (options: ...)". Returns 0 or IDB_EINPUT. */
int idb_opts_parse(idb_opts *o, const idb_opt_decl *decls, const char *const *kv, int nkv,
                   const char *owner, idb_err *err);

/* Set one option by name after parsing, with the same checks. Returns 0 or IDB_EINPUT. */
int idb_opts_set(idb_opts *o, const char *name, const char *value, const char *owner,
                 idb_err *err);

/* Value of a declared option (aborts on a name that is not declared: a programming error).
 * int: INT, BOOL, ENUM (the index of the choice), U64 (as int64); str: the text as given,
 * for every type; double: DOUBLE. */
int64_t idb_opts_int(const idb_opts *o, const char *name);
const char *idb_opts_str(const idb_opts *o, const char *name);
double idb_opts_double(const idb_opts *o, const char *name);

/* 1 if name is declared in decls. */
int idb_opts_declared(const idb_opt_decl *decls, const char *name);

#endif
