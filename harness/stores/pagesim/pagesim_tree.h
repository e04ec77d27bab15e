/* pagesim_tree.h — the page-level B+tree of the pagesim store: which keys sit on which page.
 *
 * Keys only (key_bytes each, memcmp order) plus one 32-bit value per leaf cell (the
 * store's row number). Every cell of a level has the same size, so a page is full when it
 * holds leaf_max (or branch_max) cells; the store turns byte sizes into these counts.
 * Each page visit is reported through the access callback (see pagesim_access.h).
 */
#ifndef IDB_PAGESIM_TREE_H
#define IDB_PAGESIM_TREE_H

#include <stdint.h>

#include "err.h"

typedef struct pst_tree pst_tree;

/* Called once per page access, in the order the tree touches pages. It cannot fail: the
 * caller reserves room beforehand (see pst_max_new_pages / pst_max_accesses). */
typedef void (*pst_access_fn)(void *ctx, uint32_t page, unsigned flags);

enum pst_split { PST_SPLIT_MIDDLE, PST_SPLIT_RIGHT };

typedef struct pst_counts {
    int64_t leaf_pages, branch_pages;
    int64_t depth;               /* levels, leaf level included */
    int64_t splits;              /* page splits, leaf and branch (a root split counts 1) */
    int64_t keys;                /* cells in leaf pages */
} pst_counts;

/* Make an empty tree: one leaf page (page 0, reported as a CREATE access). key_bytes is
 * 1 .. IDB_ID_MAX; leaf_max >= 2 and branch_max >= 3 cells per page. Returns NULL when out of
 * memory. The tree keeps access/ctx and calls them on every later insert. */
pst_tree *pst_new(int key_bytes, uint32_t leaf_max, uint32_t branch_max, enum pst_split split,
                  pst_access_fn access, void *ctx);

/* With split=right: a leaf split by a key at its very end keeps keep cells (1 ..
 * leaf_max; leaf_max when never called) and moves the rest with the new key to the new
 * page: PostgreSQL's fillfactor on rightmost splits. Branch pages keep leaf_max's rule. */
void pst_set_leaf_keep(pst_tree *t, uint32_t keep);

/* Insert key (key_bytes bytes) with value val. All or nothing: returns 0, IDB_EINPUT for
 * a key already present, or IDB_ENOMEM (the tree is then unchanged). */
int pst_insert(pst_tree *t, const uint8_t *key, uint32_t val, idb_err *err);

/* At most how many pages / accesses the next insert can create / report. */
uint32_t pst_max_new_pages(const pst_tree *t);
uint32_t pst_max_accesses(const pst_tree *t);

/* Pages made so far (page numbers are 0 .. pst_pages()-1). */
uint32_t pst_pages(const pst_tree *t);

/* Cells of page (< pst_pages()) when it is a leaf, -1 for a branch page. */
int64_t pst_leaf_cells(const pst_tree *t, uint32_t page);

/* Fill c with the tree's counters. */
void pst_get_counts(const pst_tree *t, pst_counts *c);

/* Call fn(ctx, key, val) for every leaf cell in key order; stops at and returns the first
 * nonzero value fn returns, else 0. Reports no accesses. */
int pst_scan(const pst_tree *t, int (*fn)(void *ctx, const uint8_t *key, uint32_t val),
             void *ctx);

/* Look key (key_bytes bytes) up: call fn(ctx, page) for each page on the root-to-leaf path
 * (the read side's accesses: nothing is written); 1 with its value in *val when the key
 * is in the tree, else 0. The tree is not changed, and its own access callback is not
 * called (pagesim_read.c counts these accesses in a pool of its own). */
int pst_lookup(const pst_tree *t, const uint8_t *key, void (*fn)(void *ctx, uint32_t page),
               void *ctx, uint32_t *val);

/* Free the tree (NULL is fine). */
void pst_free(pst_tree *t);

#endif
