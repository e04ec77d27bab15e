/* store_pagesim.c — `pagesim`: a deterministic, in-memory, page-level B+tree model.
 *
 * What an ID strategy does to a B-tree index, without a real engine's noise: the same keys
 * in the same order always give the same pages, splits, misses and writes.
 *
 * The model (nothing is written to disk; open only checks that dir exists):
 *  - pages of page_size bytes, page_size - 16 of them for cells (16 = page header);
 *  - leaf cell = key_bytes (1 .. IDB_ID_MAX) + 24 (shop 4, display_no 4, created_ms 8, total 8)
 *                + row_bytes + 4 (slot / overhead);  branch cell = key_bytes + 8 (child
 *    pointer) + 4. All keys of a run have one width, so every leaf cell has one size and a
 *    page is full at floor(capacity / cell) cells;
 *  - keys in memcmp order, a duplicate is refused (IDB_EINPUT); a full page splits in the
 *    middle, or with split=right (the default), when the new key goes at the very end of
 *    the page, the old page keeps fillfactor % of its bytes (100: stays full, as LMDB's
 *    append; 90: PostgreSQL's btree default for rightmost splits) and the rest with the
 *    new key start a new page (pagesim_tree.c); fillfactor applies to leaves only;
 *  - every insert reads each page on the root-to-leaf path and writes the leaf; a split
 *    creates a page (dirty, no read needed) and writes the parent (or creates a new root);
 *  - an LRU buffer pool of cache_pages pages: an access to an uncached page that is not a
 *    creation is a miss (a read); evicting a dirty page is a page write; stats() adds the
 *    flush of the dirty pages still cached. commit() is a no-op: the model has no
 *    durability, so nothing is flushed at a commit, only by eviction and at the end;
 *  - read_pages = the misses (in the model a page is read only on a miss); the model keeps
 *    no log, so checkpoint_pages and wal_frames are -1.
 *
 * stats() also reports the fill of the leaves written since its previous call (or open):
 * touched_fill over touched_leaves (insert --then: the leaves a phase touched, exactly).
 * stats() reports the real LRU simulation of cache_pages (pagesim_lru.c). curve() reports
 * the misses and writes of every requested pool size, from LRU stack distances (Mattson et
 * al. 1970: an access with stack distance d hits exactly in the pools of >= d pages)
 * tracked access by access with a Fenwick tree, and exact write-backs from one "dirty in
 * pools of C >= m" bound per page (pagesim_curve.c). The two agree exactly; the tests check
 * it. The tracker keeps about 50 bytes per page, not a trace of every access.
 *
 * Many writers (store.h version 2, insert --clients C): open_client gives a handle on the
 * same tree (no copy); the model is not thread-safe and needs none: as a model store it is
 * driven from one thread by the runner's interleaving (insert_interleave.c), which feeds
 * the rows of C concurrent transactions to the C handles in turn, as a server's tree would
 * receive them. The handles are bookkeeping only: every count is the tree's, so stats()
 * and the other hooks report the whole store from any of them.
 *
 * Rows keep their fields in a compact side table indexed by insertion number
 * (pagesim_rows.c); leaf cells hold the key and that number, so scan() returns rows in key
 * order. Memory: the tree's keys at their own width plus 4 bytes a cell (pagesim_tree.c),
 * about 9 bytes a row of fields, about 50 bytes a page for the curve and the LRU pool.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pagesim_access.h"
#include "pagesim_curve.h"
#include "pagesim_lru.h"
#include "pagesim_read.h"
#include "pagesim_rows.h"
#include "pagesim_tree.h"
#include "store.h"

#define PAGE_HEADER 16
#define ROW_FIXED 24             /* shop, display_no, created_ms, total_cents */
#define LEAF_SLOT 4
#define BRANCH_EXTRA 12          /* child pointer 8 + slot 4 */
#define PERCENT 100

static const idb_opt_decl pagesim_options[] = {
    { .name = "page_size", .type = IDB_OPT_INT, .def = "4096", .help = "page size in bytes",
      .min = 512, .max = 65536 },
    { .name = "split", .type = IDB_OPT_ENUM, .def = "right",
      .help = "full-page split: right (a key past the page's end starts a new page, the old "
              "one keeping fillfactor %), or middle", .choices = "middle|right" },
    { .name = "fillfactor", .type = IDB_OPT_INT, .def = "100",
      .help = "percent of a leaf kept on the left by a split=right split (PostgreSQL's btree "
              "default: 90)", .min = 10, .max = 100 },
    { .name = "cache_pages", .type = IDB_OPT_INT, .def = "2000",
      .help = "LRU buffer pool size in pages", .min = 1, .max = INT64_MAX },
    { .name = "row_bytes", .type = IDB_OPT_INT, .def = "64",
      .help = "payload bytes per row (counted, not stored)", .min = 0, .max = 65536 },
    { 0 },
};

typedef struct pagesim {
    struct pagesim *main;        /* a client handle (open_client): the store it writes to;
                                  * NULL in the store open() made */
    int kb;
    int64_t page_size, capacity, leaf_cell;
    pst_tree *tree;
    psl_lru *lru;
    psc_tracker *curve;          /* stack distances of every access, for curve() */
    psr_rows *rows;              /* row fields, by insertion number */
    uint32_t nrows;
    int64_t cache_bytes;         /* cache_pages * page_size (progress) */
    psd_reads *reads;            /* idbench read: the lookups' own pool (pagesim_read.h) */
    uint8_t *touched;            /* page written since the previous stats() (touched_fill) */
    uint32_t ntouched;           /* room in touched, in pages */
} pagesim;

/* Room in s->touched for pages pages (new ones not touched). 0 or -1 (memory). */
static int touched_reserve(pagesim *s, uint32_t pages)
{
    if (pages <= s->ntouched) return 0;
    uint32_t n = pages < 2 * s->ntouched ? 2 * s->ntouched : pages;
    uint8_t *t = realloc(s->touched, n);
    if (!t) return -1;
    memset(t + s->ntouched, 0, n - s->ntouched);
    s->touched = t;
    s->ntouched = n;
    return 0;
}

/* The tree's access callback: run the access through the LRU pool and the curve's
 * tracker. Room was reserved by pagesim_insert (or open) before the tree was called. */
static void on_access(void *ctx, uint32_t page, unsigned flags)
{
    pagesim *s = ctx;
    psc_access(s->curve, page, flags);
    psl_access(s->lru, page, flags);
    if ((flags & (PSA_WRITE | PSA_CREATE)) && page < s->ntouched) s->touched[page] = 1;
}

/* The store a handle writes to: itself, or the store of a client handle. */
static pagesim *store_of(void *h)
{
    pagesim *s = h;
    return s->main ? s->main : s;
}

/* Free everything s owns, and s (a client handle owns nothing but itself). */
static void pagesim_close(void *h)
{
    pagesim *s = h;
    if (!s) return;
    if (s->main) {
        free(s);
        return;
    }
    pst_free(s->tree);
    psl_free(s->lru);
    psc_free(s->curve);
    psr_free(s->rows);
    psd_free(s->reads);
    free(s->touched);
    free(s);
}

/* Rows of key_bytes-wide keys a leaf page of opts holds. */
static int64_t leaf_rows(const idb_opts *opts, int key_bytes)
{
    int64_t leaf_cell = key_bytes + ROW_FIXED + idb_opts_int(opts, "row_bytes") + LEAF_SLOT;
    return (idb_opts_int(opts, "page_size") - PAGE_HEADER) / leaf_cell;
}

/* The checks of opts that need no file (store.h: check): the key width, and a leaf page
 * that holds at least 2 rows. Returns 0 or IDB_EINPUT. */
static int pagesim_check(const idb_opts *opts, int key_bytes, idb_err *err)
{
    int rc = idb_store_check_width("pagesim", key_bytes, err);
    if (rc) return rc;
    if (leaf_rows(opts, key_bytes) < 2)
        return idb_fail(err, IDB_EINPUT,
                        "pagesim: row_bytes=%lld is too large for page_size=%lld: a leaf page "
                        "must hold at least 2 rows", (long long)idb_opts_int(opts, "row_bytes"),
                        (long long)idb_opts_int(opts, "page_size"));
    return 0;
}

/* Check dir and the sizes, then make an empty tree (one leaf, already a CREATE access). */
static int pagesim_open(const char *dir, const idb_opts *opts, int key_bytes, void **h,
                        idb_err *err)
{
    struct stat st;
    if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return idb_fail(err, IDB_EINPUT, "pagesim: %s is not a directory", dir ? dir : "(null)");
    int rc = pagesim_check(opts, key_bytes, err);
    if (rc) return rc;
    int64_t page_size = idb_opts_int(opts, "page_size");
    int64_t row_bytes = idb_opts_int(opts, "row_bytes");
    int64_t capacity = page_size - PAGE_HEADER;
    int64_t leaf_cell = key_bytes + ROW_FIXED + row_bytes + LEAF_SLOT;
    int64_t leaf_max = leaf_rows(opts, key_bytes);
    int64_t branch_max = capacity / (key_bytes + BRANCH_EXTRA);
    enum pst_split split =
        strcmp(idb_opts_str(opts, "split"), "right") == 0 ? PST_SPLIT_RIGHT : PST_SPLIT_MIDDLE;

    /* leaf cells a rightmost split keeps on the left: fillfactor % of the page's bytes */
    int64_t keep = capacity * idb_opts_int(opts, "fillfactor") / PERCENT / leaf_cell;

    pagesim *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    *s = (pagesim){ .kb = key_bytes, .page_size = page_size, .capacity = capacity,
                    .leaf_cell = leaf_cell,
                    .cache_bytes = idb_opts_int(opts, "cache_pages") * page_size };
    if (!(s->lru = psl_new(idb_opts_int(opts, "cache_pages"))) || psl_reserve(s->lru, 1) ||
        touched_reserve(s, 1) ||
        !(s->curve = psc_new()) || !(s->rows = psr_new()) ||
        !(s->tree = pst_new(key_bytes, (uint32_t)leaf_max, (uint32_t)branch_max, split,
                            on_access, s))) {
        pagesim_close(s);
        return idb_fail(err, IDB_ENOMEM, "out of memory");
    }
    pst_set_leaf_keep(s->tree, (uint32_t)(keep < 1 ? 1 : keep));
    *h = s;
    return 0;
}

/* Insert one row: reserve room for everything the tree may report, then insert the key
 * with the row's number. A refused key leaves the store unchanged. */
static int pagesim_insert(void *h, const idb_row *row, idb_err *err)
{
    pagesim *s = store_of(h);
    if (row->id.len != s->kb)
        return idb_fail(err, IDB_EINPUT, "pagesim: a %d-byte key in a store of %d-byte keys",
                        row->id.len, s->kb);
    uint32_t pages = pst_pages(s->tree) + pst_max_new_pages(s->tree);
    if (psc_reserve(s->curve, pages, pst_max_accesses(s->tree)) ||
        psl_reserve(s->lru, pages) || psr_reserve(s->rows) || touched_reserve(s, pages))
        return idb_fail(err, IDB_ENOMEM, "out of memory");
    int rc = pst_insert(s->tree, row->id.b, s->nrows, err);
    if (rc) return rc;
    psr_row fields = { .shop = row->shop, .display_no = row->display_no,
                       .created_ms = row->created_ms, .total_cents = row->total_cents };
    (void)psr_append(s->rows, &fields);          /* cannot fail: reserved */
    s->nrows++;
    return 0;
}

/* No-op: the model has no transactions or durability (see the header comment). */
static int pagesim_commit(void *h, idb_err *err) { (void)h; (void)err; return 0; }

/* The fill of the leaves written since the previous stats() into st; with advance, they
 * are forgotten (the next stats() counts from here). */
static void touched_stats(pagesim *s, idb_store_stats *st, int advance)
{
    int64_t cells = 0, leaves = 0;
    for (uint32_t p = 0; p < pst_pages(s->tree) && p < s->ntouched; p++) {
        int64_t n = s->touched[p] ? pst_leaf_cells(s->tree, p) : -1;
        if (n < 0) continue;
        cells += n;
        leaves++;
    }
    st->touched_leaves = leaves;
    st->touched_fill = leaves ? (double)(cells * s->leaf_cell) / (double)(leaves * s->capacity)
                              : 0;
    if (advance) memset(s->touched, 0, s->ntouched);
}

/* Tree shape, and the LRU pool's reads and writes as if flushed now (idempotent), and the
 * fill of the leaves written since the previous call (touched_stats: advance). */
static int stats_of(void *h, idb_store_stats *st, int advance)
{
    pagesim *s = store_of(h);
    pst_counts c;
    pst_get_counts(s->tree, &c);
    int64_t misses, writes;
    psl_counts(s->lru, &misses, &writes);
    *st = (idb_store_stats){
        .leaf_pages = c.leaf_pages, .branch_pages = c.branch_pages, .depth = c.depth,
        .fill_factor = (double)(c.keys * s->leaf_cell) / (double)(c.leaf_pages * s->capacity),
        .file_bytes = (c.leaf_pages + c.branch_pages) * s->page_size,
        .pages_written = writes, .cache_misses = misses, .splits = c.splits,
        .read_pages = misses,                       /* the model reads a page only on a miss */
        .checkpoint_pages = -1, .wal_frames = -1,   /* the model has no log */
        .table_bytes = (c.leaf_pages + c.branch_pages) * s->page_size,   /* the one tree */
        .index_bytes = (c.leaf_pages + c.branch_pages) * s->page_size,
        .id_clustered = 1, .secondary_bytes = 0,
    };
    touched_stats(s, st, advance);
    return 0;
}

/* stats() (store.h): stats_of, the touched leaves forgotten afterwards. */
static int pagesim_stats(void *h, idb_store_stats *st, idb_err *err)
{
    (void)err;
    return stats_of(h, st, 1);
}

/* The running figures (store.h: progress): stats()'s pages, reads and writes (the flush
 * of the dirty pages still cached included, so the figures of successive calls telescope
 * to the run's), the pool's size in bytes. No side effects. */
static int pagesim_progress(void *h, idb_store_progress *p, idb_err *err)
{
    pagesim *s = store_of(h);
    idb_store_stats st;
    (void)err;
    int rc = stats_of(h, &st, 0);                /* the touched leaves kept for stats() */
    *p = (idb_store_progress){ .index_bytes = st.file_bytes,
                               .cache_bytes = s->cache_bytes,
                               .pages_written = st.pages_written, .read_pages = st.read_pages,
                               .cache_misses = st.cache_misses };
    return rc;
}

/* Misses and writes per insert at each of the n pool sizes, from the tracker. */
static int pagesim_curve(void *h, const int64_t *cache_pages, int n, idb_curve_point *out,
                         idb_err *err)
{
    pagesim *s = store_of(h);
    if (n < 0) return idb_fail(err, IDB_EINPUT, "pagesim: negative number of cache sizes");
    for (int i = 0; i < n; i++)
        if (cache_pages[i] < 1)
            return idb_fail(err, IDB_EINPUT, "pagesim: cache size %lld is not >= 1",
                            (long long)cache_pages[i]);
    int64_t *mw = malloc(2 * (size_t)(n ? n : 1) * sizeof *mw);
    if (!mw) return idb_fail(err, IDB_ENOMEM, "out of memory");
    psc_read(s->curve, pst_pages(s->tree), cache_pages, n, mw, mw + n);
    double per = s->nrows ? 1.0 / (double)s->nrows : 0.0;
    for (int i = 0; i < n; i++)
        out[i] = (idb_curve_point){ .cache_pages = cache_pages[i],
                                    .misses_per_insert = (double)mw[i] * per,
                                    .writes_per_insert = (double)mw[n + i] * per };
    free(mw);
    return 0;
}

typedef struct scan_ctx {
    const pagesim *s;
    int (*fn)(void *ctx, const idb_row *row);
    void *ctx;
} scan_ctx;

/* pst_scan callback: rebuild the row of one leaf cell and hand it to the caller's fn. */
static int scan_cell(void *ctx, const uint8_t *key, uint32_t val)
{
    const scan_ctx *c = ctx;
    psr_row r;
    psr_get(c->s->rows, val, &r);
    idb_row row = { .shop = r.shop, .display_no = r.display_no,
                    .created_ms = r.created_ms, .total_cents = r.total_cents };
    row.id.len = (uint8_t)c->s->kb;
    memcpy(row.id.b, key, (size_t)c->s->kb);
    return c->fn(c->ctx, &row);
}

/* Every row in key order; stops when fn returns nonzero (not an error). */
static int pagesim_scan(void *h, int (*fn)(void *ctx, const idb_row *row), void *ctx,
                        idb_err *err)
{
    (void)err;
    scan_ctx c = { .s = store_of(h), .fn = fn, .ctx = ctx };
    pst_scan(c.s->tree, scan_cell, &c);
    return 0;
}

/* Another handle on the store h for client c (store.h: open_client): the same tree. */
static int pagesim_open_client(void *h, int c, void **client, idb_err *err)
{
    (void)c;
    pagesim *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    s->main = store_of(h);
    *client = s;
    return 0;
}

/* idbench read (store.h: get): look id up through the tree, its pages counted in the
 * read pool, made empty at the first lookup (pagesim_read.h). */
static int pagesim_get(void *h, const idb_id *id, idb_row *row, int *found, idb_err *err)
{
    pagesim *s = h;
    *found = 0;
    if (id->len != s->kb) return 0;              /* no key of another width is stored */
    if (!s->reads && !(s->reads = psd_new(s->cache_bytes / s->page_size)))
        return idb_fail(err, IDB_ENOMEM, "out of memory");
    psr_row r;
    int rc = psd_get(s->reads, s->tree, s->rows, id->b, &r, found, err);
    if (rc || !*found) return rc;
    *row = (idb_row){ .id = *id, .shop = r.shop, .display_no = r.display_no,
                      .created_ms = r.created_ms, .total_cents = r.total_cents };
    return 0;
}

/* The lookups' misses so far, which are also the model's page reads (store.h). */
static int pagesim_read_counts(void *h, int64_t *misses, int64_t *read_pages, idb_err *err)
{
    (void)err;
    const pagesim *s = h;
    *misses = *read_pages = s->reads ? psd_misses(s->reads) : 0;
    return 0;
}

const idb_store idb_store_pagesim = {
    .version = 3,                 /* C writers interleaved by the runner (see the header); reads */
    .name = "pagesim",
    .summary = "in-memory page-level B+tree model: fill, splits, LRU misses and writes",
    .options = pagesim_options,
    .open = pagesim_open,
    .insert = pagesim_insert,
    .commit = pagesim_commit,
    .stats = pagesim_stats,
    .close = pagesim_close,
    .curve = pagesim_curve,
    .scan = pagesim_scan,
    .check = pagesim_check,
    .model = 1,
    .progress = pagesim_progress,
    .clients = IDB_STORE_CLIENTS_ANY,
    .open_client = pagesim_open_client,
    .get = pagesim_get,
    .read_counts = pagesim_read_counts,
};
