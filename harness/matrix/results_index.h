/* results_index.h — index.html beside the results directories (results_index.c): every
 * results directory of a parent with its date, git revision, command, status, headline
 * figures and a link to its report.
 */
#ifndef IDB_MATRIX_RESULTS_INDEX_H
#define IDB_MATRIX_RESULTS_INDEX_H

#include "matrix.h"

/* Write PARENT/index.html (through a temporary name) listing every directory of parent
 * that holds a meta.json, newest first. Returns 0, IDB_EIO (parent unreadable, the file
 * not written) or IDB_ENOMEM with err. */
int mx_index_write(const char *parent, idb_err *err);

/* The directory that holds dir into parent (len bytes): dir without its last component
 * and trailing slashes, "." when it has no slash, "/" for a child of the root. */
void mx_parent_dir(const char *dir, char *parent, size_t len);

#define MX_RUNS_DIR "results"     /* the runs' parent whose index a matrix run rewrites */

/* mx_index_write for the directory that holds the results directory dir ("." when dir has
 * no slash), when that directory is named MX_RUNS_DIR (results/<time>, or --out
 * results/NAME); elsewhere nothing is written (`--out DIR` writes only inside DIR; `idbench
 * index PARENT` writes an index anywhere). Same returns. */
int mx_index_update(const char *dir, idb_err *err);

#endif
