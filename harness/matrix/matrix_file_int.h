/* matrix_file_int.h — inside harness/matrix only: what matrix_file.c (the keys and
 * sections of a matrix file) shares with matrix_check.c (mx_finish: the [quick] overrides,
 * block inheritance and the checks of every run) and matrix_faults.c (the fault blocks'
 * keys).
 */
#ifndef IDB_MATRIX_FILE_INT_H
#define IDB_MATRIX_FILE_INT_H

#include <stddef.h>

#include "keys.h"
#include "matrix.h"

/* The kinds of block ([insert...], [curve...], [openloop...], [series...]): how many. */
size_t mx_n_block_kinds(void);

/* The blocks of kind i (< mx_n_block_kinds()) in m, and their count into *n (m owns both). */
mx_block *mx_kind_blocks(idb_matrix *m, size_t i, int **n);

/* The first block key of the key table: key k of a block is bit k - mx_first_block_key()
 * of mx_block.set and entry k - mx_first_block_key() of mx_block.at. */
const idb_key *mx_first_block_key(void);

/* 1 if k (an entry of the key table) is a key of the block sections, else 0. */
int mx_is_block_key(const idb_key *k);

/* The block key called key, in [insert] or else another block section; NULL when there is
 * none (callers pass names of the table). */
const idb_key *mx_block_key(const char *key);

/* Apply section/key = value (from file, where at says) to m, as a line of a matrix file.
 * Returns 0 or IDB_EINPUT (IDB_ENOMEM) with err. */
int mx_apply(idb_matrix *m, const char *file, mx_where at, const char *section,
             const char *key, const char *value, idb_err *err);

/* Hooks of [read] patterns (comma-separated uniform, recent:H, mixed:P:H) and cache (cold
 * or warm), matrix_read.c: 0 or IDB_EINPUT with err. */
int mx_read_patterns_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                           idb_err *err);
int mx_read_cache_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                        idb_err *err);

#define MX_STORE_LIST_MAX 256                    /* "sqlite, lmdb, ..." for messages */

/* The names of every store, ", "-separated, into buf (len bytes); returns buf. */
const char *mx_store_names(char *buf, size_t len);

/* The keys of the fault blocks ([counterkill], [faults.replicated]: matrix_faults.c), ended
 * by a zeroed entry, and their sections (NULL-terminated): fields of idb_matrix. */
extern const idb_key mx_fault_keys[];
extern const char *const mx_fault_sections[];

#endif
