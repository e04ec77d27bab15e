/* waits.h — the wait columns of an insert run (wait_share, wait_ns_per_order, the
 * wait_share_<what> details, wait_share_none) from the waits a store measured itself
 * (store.h: idb_store_waits), summed over shards. Pure arithmetic: tests feed it crafted
 * samples (tests/test_waits.c). */
#ifndef IDB_WAITS_H
#define IDB_WAITS_H

#include <stdint.h>

#include "store.h"

/* The wait figures of one run; -1 = unknown or not a class of this store (printed empty). */
typedef struct idb_wait_figures {
    double share;                    /* lock and latch waits / the writers' time, 0-1 */
    double ns_per_order;             /* lock and latch wait per order, ns */
    double by[IDB_WAIT_CLASSES];     /* each class's share of the writers' time */
    double none;                     /* the share not waiting at all (running, or in the
                                      * client between statements of a transaction for a
                                      * store that does not sample it) */
} idb_wait_figures;

/* Each class and the <what> of its column "wait_share_<what>" (docs/results-format.md), in
 * class order: X(class, what) once per class; the one list of the names (waits.c's
 * idb_wait_columns, the matrix's insert.csv columns). */
#define IDB_WAIT_COLUMN_TABLE(X)                                                          \
    X(IDB_WAIT_LWLOCK_BUFFER_CONTENT, lwlock_buffer_content)                             \
    X(IDB_WAIT_LWLOCK_BUFFER_MAPPING, lwlock_buffer_mapping)                             \
    X(IDB_WAIT_LOCK, lock) X(IDB_WAIT_INDEX_TREE, index_tree)                              \
    X(IDB_WAIT_PAGE_LATCH, page_latch) X(IDB_WAIT_ROW_LOCK, row_lock)                    \
    X(IDB_WAIT_LATCH_OTHER, latch_other) X(IDB_WAIT_IO, io) X(IDB_WAIT_OTHER, other)

/* The column of each class: "wait_share_<what>", in class order. */
extern const char *const idb_wait_columns[IDB_WAIT_CLASSES];

/* Add shard k's waits w to sum (k 0 starts it): the same kind in every shard, or the
 * sum becomes IDB_WAITS_NONE; a class unknown (-1) in one shard is unknown in the sum. */
void idb_waits_add(idb_store_waits *sum, const idb_store_waits *w, int k);

/* The figures of w for a run of ids orders whose writers spent client_ns in all (the sum
 * over writers of each one's time, first transaction to last commit):
 *   IDB_WAITS_SAMPLES  by[c] = v[c] / samples; none = (samples - sum of v) / samples;
 *   IDB_WAITS_NS       by[c] = v[c] / client_ns; none = 1 - sum of by[];
 *   share = sum of by[c] over the lock and latch classes (c < IDB_WAIT_LOCK_CLASSES);
 *   ns_per_order = share x client_ns / ids (samples) or the lock and latch ns / ids (ns).
 * A class at -1 (unknown) stays -1 and counts as 0 in the sums. IDB_WAITS_NONE, no
 * samples, or client_ns <= 0: every figure -1. */
void idb_waits_figures(const idb_store_waits *w, double client_ns, int64_t ids,
                       idb_wait_figures *f);

#endif
