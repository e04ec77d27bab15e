/* pagesim_tree.c — the page-level B+tree of the pagesim store (see pagesim_tree.h).
 *
 * Page layout in memory (one malloc per page, room for `cap` cells: its cells rounded up
 * to GROW_CELLS, at most its level's max cells + 1 so a page can overflow by one cell
 * before it is split; keys are kept at their own width, so a leaf costs about
 * (key_bytes + 4) per cell it holds plus GROW_CELLS / 2 cells of room and its 24-byte
 * entry in the page table):
 *
 *     keys: cap x key_bytes, sorted, padded up to a multiple of 4 bytes (so vals are
 *           aligned for any key width)     vals: cap x uint32_t
 *     leaf:   vals[i] = row number of keys[i]; `next` = right sibling leaf
 *     branch: vals[i] = child page; child i holds keys >= keys[i] (keys[0] is kept, as
 *             the child's lower bound at the time it was linked, but never compared)
 *
 * Insert: descend by binary search, check for a duplicate, allocate every page the insert
 * may need (so it is all or nothing), report the path accesses root to leaf (branches
 * read, the leaf written), then insert and split upward. A split of a page holding t =
 * max+1 cells keeps t/2 cells on the old (left) page and moves the rest to a new page;
 * with split=right and the new cell at the very end of the page, the old page keeps all
 * max cells and the new cell goes alone to the new page (LMDB's MDB_APPEND split, the
 * fillfactor of PostgreSQL's rightmost split taken to 100 %), at any level; a leaf keeps
 * leaf_keep cells instead (pst_set_leaf_keep: fillfactor below 100). Each split
 * reports the new page (CREATE), then the parent (WRITE), or the new root (CREATE).
 */
#include "pagesim_tree.h"

#include <stdlib.h>
#include <string.h>

#include "pagesim_access.h"

#define NONE UINT32_MAX
#define GROW_CELLS 8             /* a page's room grows and shrinks in steps of this */

typedef struct pst_page {
    uint8_t *keys;               /* the page's one allocation: keys, then vals */
    uint32_t n;                  /* cells */
    uint32_t cap;                /* room, in cells */
    uint32_t next;               /* leaf: right sibling or NONE */
    uint8_t leaf;
} pst_page;

struct pst_tree {
    size_t kb;                   /* key bytes */
    uint32_t leaf_max, branch_max;
    uint32_t leaf_keep;          /* cells a rightmost leaf split keeps (pst_set_leaf_keep) */
    int split_right;
    pst_page *pages;
    uint32_t npages, cap;
    uint32_t root;
    int depth;
    int64_t leaf_pages, branch_pages, splits, keys;
    int path_cap;                /* room in the per-level arrays below */
    uint32_t *path_pg;           /* page visited at each level, root = level 0 */
    uint32_t *path_ix;           /* child index taken at each branch level */
    uint8_t **spare;             /* page buffers allocated ahead of an insert */
    pst_access_fn access;
    void *ctx;
};

/* Bytes of a page's key area for cap keys: rounded up so the vals after it are aligned. */
static size_t keys_area(const pst_tree *t, uint32_t cap)
{
    size_t a = sizeof(uint32_t), n = (size_t)cap * t->kb;
    return (n + a - 1) / a * a;
}

/* The values of page p (after its keys). */
static uint32_t *vals_of(const pst_tree *t, const pst_page *p)
{
    return (uint32_t *)(p->keys + keys_area(t, p->cap));
}

/* Most cells a page of p's level holds: its max + 1 (one over, before its split). */
static uint32_t cells_most(const pst_tree *t, int leaf)
{
    return (leaf ? t->leaf_max : t->branch_max) + 1;
}

/* Allocate the buffer of a page with room for cap cells: keys, then vals. */
static uint8_t *page_buf(const pst_tree *t, uint32_t cap)
{
    return malloc(keys_area(t, cap) + (size_t)cap * sizeof(uint32_t));
}

/* Give page p room for exactly cap (>= p->n) cells, moving its vals. Returns 0, or
 * IDB_ENOMEM with p unchanged. */
static int page_resize(pst_tree *t, pst_page *p, uint32_t cap)
{
    if (cap == p->cap) return 0;
    size_t old_vals = keys_area(t, p->cap), new_vals = keys_area(t, cap);
    size_t vbytes = (size_t)p->n * sizeof(uint32_t);
    uint8_t *b = p->keys;
    if (cap < p->cap) memmove(b + new_vals, b + old_vals, vbytes);
    uint8_t *nb = realloc(b, new_vals + (size_t)cap * sizeof(uint32_t));
    if (!nb) {
        if (cap < p->cap) memmove(b + old_vals, b + new_vals, vbytes);   /* undo */
        return IDB_ENOMEM;
    }
    if (cap > p->cap) memmove(nb + new_vals, nb + old_vals, vbytes);
    p->keys = nb;
    p->cap = cap;
    return 0;
}

/* The room for n cells of a page of p's level: n rounded up to GROW_CELLS, at most its
 * cells_most. */
static uint32_t room_for(const pst_tree *t, int leaf, uint32_t n)
{
    uint32_t r = (n + GROW_CELLS - 1) / GROW_CELLS * GROW_CELLS, most = cells_most(t, leaf);
    if (r < GROW_CELLS) r = GROW_CELLS;
    return r > most ? most : r;
}

/* Turn slot t->npages into a new empty page on buffer buf of cap cells (the table's
 * capacity already ensured). */
static uint32_t page_add(pst_tree *t, uint8_t *buf, uint32_t cap, int leaf)
{
    uint32_t no = t->npages++;
    t->pages[no] = (pst_page){ .keys = buf, .n = 0, .cap = cap, .next = NONE,
                               .leaf = (uint8_t)leaf };
    if (leaf) t->leaf_pages++; else t->branch_pages++;
    return no;
}

/* Grow the page table so it can hold `more` more pages. Returns 0 or IDB_ENOMEM. */
static int pages_reserve(pst_tree *t, uint32_t more)
{
    if ((uint64_t)t->npages + more > PSA_MAX_PAGES) return IDB_ENOMEM;
    if (t->npages + more <= t->cap) return 0;
    uint32_t cap = t->cap ? t->cap : 64;
    while (cap < t->npages + more) cap = cap > PSA_MAX_PAGES / 2 ? PSA_MAX_PAGES : cap * 2;
    pst_page *p = realloc(t->pages, (size_t)cap * sizeof *p);
    if (!p) return IDB_ENOMEM;
    t->pages = p;
    t->cap = cap;
    return 0;
}

/* Make the per-level arrays hold at least n levels. Returns 0 or IDB_ENOMEM. */
static int path_reserve(pst_tree *t, int n)
{
    if (n <= t->path_cap) return 0;
    uint32_t *pg = realloc(t->path_pg, (size_t)n * sizeof *pg);
    if (!pg) return IDB_ENOMEM;
    t->path_pg = pg;
    uint32_t *ix = realloc(t->path_ix, (size_t)n * sizeof *ix);
    if (!ix) return IDB_ENOMEM;
    t->path_ix = ix;
    uint8_t **sp = realloc(t->spare, (size_t)n * sizeof *sp);
    if (!sp) return IDB_ENOMEM;
    t->spare = sp;
    t->path_cap = n;
    return 0;
}

/* Cells a rightmost leaf split keeps, within 1 .. leaf_max (see pagesim_tree.h). */
void pst_set_leaf_keep(pst_tree *t, uint32_t keep)
{
    t->leaf_keep = keep < 1 ? 1 : keep > t->leaf_max ? t->leaf_max : keep;
}

/* Make the tree and its root leaf (page 0), reporting the leaf's creation. */
pst_tree *pst_new(int key_bytes, uint32_t leaf_max, uint32_t branch_max, enum pst_split split,
                  pst_access_fn access, void *ctx)
{
    pst_tree *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    *t = (pst_tree){ .kb = (size_t)key_bytes, .leaf_max = leaf_max, .branch_max = branch_max,
                     .leaf_keep = leaf_max, .split_right = split == PST_SPLIT_RIGHT, .depth = 1,
                     .access = access, .ctx = ctx };
    uint8_t *buf = NULL;
    uint32_t cap = room_for(t, 1, 0);
    if (pages_reserve(t, 1) || path_reserve(t, 4) || !(buf = page_buf(t, cap))) {
        pst_free(t);
        return NULL;
    }
    t->root = page_add(t, buf, cap, 1);
    t->access(t->ctx, t->root, PSA_CREATE);
    return t;
}

/* Index of the first of the n keys at k that is >= key (n if none); *eq = it is equal. */
static uint32_t lower_bound(const uint8_t *k, uint32_t n, size_t kb, const uint8_t *key, int *eq)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (memcmp(k + (size_t)mid * kb, key, (size_t)kb) < 0) lo = mid + 1; else hi = mid;
    }
    *eq = lo < n && memcmp(k + (size_t)lo * kb, key, (size_t)kb) == 0;
    return lo;
}

/* Index of the child of branch p whose range holds key: the last i with i == 0 or
 * keys[i] <= key. */
static uint32_t child_index(const pst_page *p, size_t kb, const uint8_t *key)
{
    uint32_t lo = 1, hi = p->n;          /* first i >= 1 with keys[i] > key */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (memcmp(p->keys + (size_t)mid * kb, key, (size_t)kb) <= 0) lo = mid + 1; else hi = mid;
    }
    return lo - 1;
}

/* Put cell (key, val) at position pos of p (room for it ensured), shifting the cells
 * after it right. */
static void cell_insert(const pst_tree *t, pst_page *p, uint32_t pos, const uint8_t *key,
                        uint32_t val)
{
    size_t kb = t->kb;
    uint32_t after = p->n - pos, *vals = vals_of(t, p);
    memmove(p->keys + (size_t)(pos + 1) * kb, p->keys + (size_t)pos * kb, (size_t)after * kb);
    memmove(vals + pos + 1, vals + pos, (size_t)after * sizeof *vals);
    memcpy(p->keys + (size_t)pos * kb, key, kb);
    vals[pos] = val;
    p->n++;
}

/* Split the overfull page pno, whose new cell went to position pos, onto a new page built
 * on buffer buf (room for cells_most cells); both pages are then trimmed to their room
 * (room_for; a failed trim leaves a page larger). Reports the new page's creation and
 * returns its number. */
static uint32_t split_page(pst_tree *t, uint32_t pno, uint32_t pos, uint8_t *buf)
{
    int leaf = t->pages[pno].leaf;
    uint32_t qno = page_add(t, buf, cells_most(t, leaf), leaf);
    pst_page *p = &t->pages[pno], *q = &t->pages[qno];
    uint32_t n = p->n;
    uint32_t keep = t->split_right && pos == n - 1 ? (leaf ? t->leaf_keep : n - 1) : n / 2;
    memcpy(q->keys, p->keys + (size_t)keep * t->kb, (size_t)(n - keep) * t->kb);
    memcpy(vals_of(t, q), vals_of(t, p) + keep, (size_t)(n - keep) * sizeof(uint32_t));
    q->n = n - keep;
    p->n = keep;
    (void)page_resize(t, p, room_for(t, leaf, p->n));
    (void)page_resize(t, q, room_for(t, leaf, q->n));
    if (leaf) { q->next = p->next; p->next = qno; }
    t->splits++;
    t->access(t->ctx, qno, PSA_CREATE);
    return qno;
}

/* Make room for the cell each page from the leaf upward will receive, and allocate the
 * buffers for every page this insert will make: one per full page from the leaf upward,
 * plus a new root if the root splits. Returns 0 or IDB_ENOMEM (no buffer kept; a page
 * given more room keeps it). */
static int reserve_splits(pst_tree *t)
{
    int n = 0, lv = t->depth - 1;
    for (; lv >= 0; lv--) {
        pst_page *p = &t->pages[t->path_pg[lv]];
        if (p->n + 1 > p->cap && page_resize(t, p, room_for(t, p->leaf, p->n + 1)))
            goto oom_all;
        if (p->n < (p->leaf ? t->leaf_max : t->branch_max)) break;
        if (!(t->spare[n++] = page_buf(t, cells_most(t, p->leaf)))) goto oom;
    }
    if (lv < 0 && !(t->spare[n++] = page_buf(t, room_for(t, 0, 2)))) goto oom;
    if (pages_reserve(t, (uint32_t)n)) goto oom_all;
    return 0;
oom:
    n--;
oom_all:
    while (n > 0) free(t->spare[--n]);
    return IDB_ENOMEM;
}

/* Descend, refuse a duplicate, reserve, report the path, insert and split upward. */
int pst_insert(pst_tree *t, const uint8_t *key, uint32_t val, idb_err *err)
{
    if (path_reserve(t, t->depth + 1)) return idb_fail(err, IDB_ENOMEM, "out of memory");
    uint32_t pno = t->root;
    for (int lv = 0; lv < t->depth - 1; lv++) {
        const pst_page *p = &t->pages[pno];
        t->path_pg[lv] = pno;
        t->path_ix[lv] = child_index(p, t->kb, key);
        pno = vals_of(t, p)[t->path_ix[lv]];
    }
    t->path_pg[t->depth - 1] = pno;
    int eq;
    uint32_t pos = lower_bound(t->pages[pno].keys, t->pages[pno].n, t->kb, key, &eq);
    if (eq) return idb_fail(err, IDB_EINPUT, "duplicate key");
    int used = 0;                        /* spare buffers taken so far */
    if (reserve_splits(t)) return idb_fail(err, IDB_ENOMEM, "out of memory");

    for (int lv = 0; lv < t->depth; lv++)
        t->access(t->ctx, t->path_pg[lv], lv == t->depth - 1 ? PSA_WRITE : 0);
    t->keys++;
    const uint8_t *k = key;
    uint32_t v = val;
    for (int lv = t->depth - 1;; lv--) {
        pno = t->path_pg[lv];
        pst_page *p = &t->pages[pno];
        cell_insert(t, p, pos, k, v);
        if (p->n <= (p->leaf ? t->leaf_max : t->branch_max)) break;
        uint32_t qno = split_page(t, pno, pos, t->spare[used++]);
        k = t->pages[qno].keys;          /* separator: the new page's first key */
        v = qno;
        if (lv == 0) {                   /* the root split: grow a level */
            uint32_t rno = page_add(t, t->spare[used++], room_for(t, 0, 2), 0);
            pst_page *r = &t->pages[rno];
            cell_insert(t, r, 0, t->pages[pno].keys, pno);
            cell_insert(t, r, 1, k, v);
            t->root = rno;
            t->depth++;
            t->access(t->ctx, rno, PSA_CREATE);
            break;
        }
        pos = t->path_ix[lv - 1] + 1;
        t->access(t->ctx, t->path_pg[lv - 1], PSA_WRITE);
    }
    return 0;
}

/* One new page per level (a split) plus a new root. */
uint32_t pst_max_new_pages(const pst_tree *t) { return (uint32_t)t->depth + 1; }

/* The path (depth accesses) plus, per level, a new page and its parent or a new root. */
uint32_t pst_max_accesses(const pst_tree *t) { return 3u * (uint32_t)t->depth + 1; }

/* Pages made so far. */
uint32_t pst_pages(const pst_tree *t) { return t->npages; }

/* Copy the tree's counters. */
int64_t pst_leaf_cells(const pst_tree *t, uint32_t page)
{
    return t->pages[page].leaf ? (int64_t)t->pages[page].n : -1;
}

void pst_get_counts(const pst_tree *t, pst_counts *c)
{
    *c = (pst_counts){ .leaf_pages = t->leaf_pages, .branch_pages = t->branch_pages,
                       .depth = t->depth, .splits = t->splits, .keys = t->keys };
}

/* Walk the leaves left to right through their sibling links. */
int pst_scan(const pst_tree *t, int (*fn)(void *ctx, const uint8_t *key, uint32_t val),
             void *ctx)
{
    uint32_t pno = t->root;
    while (!t->pages[pno].leaf) pno = vals_of(t, &t->pages[pno])[0];
    for (; pno != NONE; pno = t->pages[pno].next) {
        const pst_page *p = &t->pages[pno];
        for (uint32_t i = 0; i < p->n; i++) {
            int rc = fn(ctx, p->keys + (size_t)i * t->kb, vals_of(t, p)[i]);
            if (rc) return rc;
        }
    }
    return 0;
}

/* Free every page buffer, the tables and the tree. */
void pst_free(pst_tree *t)
{
    if (!t) return;
    for (uint32_t i = 0; i < t->npages; i++) free(t->pages[i].keys);
    free(t->pages);
    free(t->path_pg);
    free(t->path_ix);
    free(t->spare);
    free(t);
}

/* Descend from the root to key's leaf, reporting each page (see pagesim_tree.h). */
int pst_lookup(const pst_tree *t, const uint8_t *key, void (*fn)(void *ctx, uint32_t page),
               void *ctx, uint32_t *val)
{
    uint32_t pno = t->root;
    for (;;) {
        const pst_page *p = &t->pages[pno];
        fn(ctx, pno);
        if (p->leaf) {
            int eq;
            uint32_t i = lower_bound(p->keys, p->n, t->kb, key, &eq);
            if (eq) *val = vals_of(t, p)[i];
            return eq;
        }
        pno = vals_of(t, p)[child_index(p, t->kb, key)];
    }
}
