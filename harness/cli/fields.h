/* fields.h — the result writers of the commands that print one result (insert, read): a
 * list of named fields, printed as a CSV header and row or as one JSON object, followed by
 * the store's options as used. Unknown values (negative) print empty in CSV, null in JSON.
 */
#ifndef IDB_CLI_FIELDS_H
#define IDB_CLI_FIELDS_H

#include "options.h"

/* How a field prints: a string, an int64_t, a double with 0, 1, 3 or 4 decimals, or a
 * list (a string of `;`-separated values, "" unknown: null in JSON). */
enum cli_kind { K_STR, K_I64, K_F1, K_F3, K_F4, K_F0, K_LIST };

/* One field: its column name, its kind, and where its value is (char *, int64_t or
 * double, as kind says). */
typedef struct cli_field {
    const char *name;
    enum cli_kind kind;
    const void *p;
} cli_field;

/* Print the n fields f, then the options o (may be NULL), on stdout: a CSV header line
 * and a row, or (json) one JSON object on one line. */
void cli_print_fields(const cli_field *f, int n, const idb_opts *o, int json);

/* The same without the CSV header line: one more row under cli_print_fields's (JSON: one
 * more object, as cli_print_fields prints it). */
void cli_print_values(const cli_field *f, int n, const idb_opts *o, int json);

#endif
