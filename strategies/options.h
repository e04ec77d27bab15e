/* options.h — declared key=value options, shared by strategies and stores.
 *
 * A plug-in declares its options as a table of idb_opt_decl ending with {0}. The command
 * line (-o / -s KEY=VALUE), workload files and the matrix all pass plain "key=value"
 * strings; idb_opts_parse checks each against the table (unknown key, bad integer, out of
 * range, not one of the choices) and fills in defaults, so a plug-in only ever sees valid
 * values. No allocation: values live inside idb_opts.
 */
#ifndef IDB_OPTIONS_H
#define IDB_OPTIONS_H

#include <stdint.h>

#include "err.h"

enum idb_opt_type { IDB_OPT_INT, IDB_OPT_STR, IDB_OPT_ENUM };

typedef struct idb_opt_decl {
    const char *name;
    enum idb_opt_type type;
    const char *def;          /* default, as text */
    const char *help;         /* one line */
    int64_t min, max;         /* IDB_OPT_INT: inclusive bounds (both 0: any int64) */
    const char *choices;      /* IDB_OPT_ENUM: "a|b|c" */
} idb_opt_decl;

#define IDB_OPTS_MAX 24
#define IDB_OPT_VALUE_MAX 256

typedef struct idb_opts {
    const idb_opt_decl *decls;
    int n;
    struct {
        const idb_opt_decl *decl;
        char text[IDB_OPT_VALUE_MAX];
        int64_t i;            /* parsed value for IDB_OPT_INT */
    } v[IDB_OPTS_MAX];
} idb_opts;

/* Fill o with the defaults of decls, then apply each "key=value" of kv[0..nkv).
 * owner names the plug-in in messages ("strategy snowflake"). Returns 0 or IDB_EINPUT. */
int idb_opts_parse(idb_opts *o, const idb_opt_decl *decls, const char *const *kv, int nkv,
                   const char *owner, idb_err *err);

/* Set one option by name after parsing, with the same checks. Returns 0 or IDB_EINPUT. */
int idb_opts_set(idb_opts *o, const char *name, const char *value, const char *owner,
                 idb_err *err);

/* Value of a declared option (aborts on a name that is not declared: a programming error). */
int64_t idb_opts_int(const idb_opts *o, const char *name);
const char *idb_opts_str(const idb_opts *o, const char *name);

/* 1 if name is declared in decls. */
int idb_opts_declared(const idb_opt_decl *decls, const char *name);

/* Parse a whole decimal int64 (optional sign, digits only). Returns 0 or IDB_EINPUT. */
int idb_parse_i64(const char *s, int64_t *out);

#endif
