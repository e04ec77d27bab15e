/* ini.h — a small reader for commented `[section] key = value` files.
 *
 * Syntax (one item per line; leading and trailing blanks are ignored everywhere):
 *
 *     # a comment          ; also a comment      (whole lines only)
 *     [section]            starts a section; names are [A-Za-z0-9_.-]+
 *     key = value          key is [A-Za-z0-9_.-]+; value runs to the end of the line,
 *                          or to a " #" / " ;" that starts a trailing comment
 *
 * Rules the reader enforces, whatever the caller: every key is inside a section; a line
 * is a comment, a section header or `key = value`; a key appears at most once in a section
 * (a section may be reopened, its keys still count); lines are at most INI_LINE_MAX bytes.
 * The meaning of sections, keys and values is the caller's: a handler is called once per
 * key, in file order, and may refuse it with a message. Every error is reported as one
 * sentence "FILE:LINE: message" (just "FILE: message" when the file cannot be read),
 * with code IDB_EINPUT (or the handler's code), so the command line can print it as is.
 * The values themselves are typed keys (keys.h), checked by the callers.
 *
 * Used by the workload files (sim_workload.c) and the matrix files (matrix_file.c).
 */
#ifndef IDB_INI_H
#define IDB_INI_H

#include <stddef.h>

#include "err.h"

#define INI_LINE_MAX 1024
#define INI_NAME_MAX 64
#define INI_KEYS_MAX 256         /* distinct section/key pairs one file may hold */

/* Called for each `key = value`. line is the 1-based line number. Return 0 to go on, or
 * an IDB_E* code after filling err with a message (no file or line: the reader adds them). */
typedef int (*ini_handler)(void *ctx, const char *section, const char *key, const char *value,
                           int line, idb_err *err);

/* Read the file at path and call h for each key. Returns 0, or IDB_EINPUT with err saying
 * "PATH:LINE: why" (syntax error, duplicate key, or the handler's refusal, with the
 * handler's code) or "PATH: cannot read: why" (missing or unreadable file). */
int ini_parse_file(const char *path, ini_handler h, void *ctx, idb_err *err);

/* The same over text held in memory; name stands for the file name in messages. */
int ini_parse_string(const char *name, const char *text, ini_handler h, void *ctx,
                     idb_err *err);

#endif
