/* matrix_file.c — reading matrix files (workloads/matrix.ini) into an idb_matrix.
 *
 * Sections and keys (workloads/matrix.ini documents each with its default):
 *   [matrix]      seed, repeat, cell_timeout_s
 *   [generation]  enabled, min_time
 *   [insert]      enabled, strategies, stores, sizes, shards, batch, shops, key_bytes,
 *                 clients (writers per shard: a run per value), repeat (0: [matrix]'s),
 *                 store_set (STORE.KEY=VALUE, ...: store options of this block's runs only,
 *                 after [store.NAME]'s; not inherited by named blocks), then (STRATEGY:N:
 *                 insert --then, each run's row the second phase's; not inherited)
 *   [insert.NAME] another block of insert runs; keys it does not set come from [insert]
 *   [curve]       the same keys plus cache_pages; [curve.NAME] like [insert.NAME]
 *   [openloop]    the insert keys plus rates, commit_ms: open-loop runs (insert --rate) at
 *                 each rate; [openloop.NAME] like [insert.NAME]
 *   [series]      the insert keys plus window, cache_pages: runs with a row per window
 *                 (insert --window --series) into series.csv, one per cache size (on the
 *                 stores that declare cache_pages); [series.NAME] like [insert.NAME]
 *   [read]        the insert keys plus patterns, cache, lookups: insert, then read (read.csv)
 *   [store.NAME]  options of store NAME for every run on it (as `-s key=value`)
 *   [simulate]    enabled, workloads, strategies, set, timeline_workload, skew_workload,
 *                 skew_ms
 *   [simulate.range]  enabled, workloads, set: workloads routed by ID, into range.csv
 *   [claims]      enabled, quick
 *   [counterkill], [faults.replicated]  the fault blocks: their keys are matrix_faults.c's
 *   [quick]       SECTION.KEY = VALUE overrides, applied only with --quick
 * Lists are comma-separated; `strategies = all` means every strategy in `idbench list`
 * order, `stores = all` every store. Workload paths are relative to the file naming them.
 * Several files may be given: later ones override the keys of earlier ones.
 * Every key is a typed key (keys.h) with its default: values are parsed, checked and
 * stored by the one key parser; this file keeps what is particular to matrix files
 * (sections, named blocks and their inheritance, [store.NAME], [quick], workload paths).
 * Where each block key and store option was set is kept, so that the check of every run
 * at the end (matrix_check.c: store options against the store's table and check hook with
 * each strategy's width, the options the harness fills in for each shard) names its
 * FILE:LINE.
 */
#include "matrix.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ini.h"
#include "matrix_file_int.h"

#define STORE_PREFIX "store."

static int strategy_entry(const idb_key *k, void *base, void *ctx, int i, const char *text,
                          idb_err *err);
static int store_entry(const idb_key *k, void *base, void *ctx, int i, const char *text,
                       idb_err *err);
static int path_entry(const idb_key *k, void *base, void *ctx, int i, const char *text,
                      idb_err *err);
static int path_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                      idb_err *err);
static int names_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                       idb_err *err);
static int sets_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                      idb_err *err);
static int store_set_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                           idb_err *err);
static int then_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                      idb_err *err);

/* Where a key's value goes: a field of idb_matrix, or of mx_block for the block sections. */
#define M(f) IDB_KEY_AT(idb_matrix, f)
#define B(f) IDB_KEY_AT(mx_block, f)
#define BOOL(sec, key, dflt, at) { .section = sec, .name = key, .type = IDB_KEY_BOOL, \
                                   .def = dflt, at }

/* Every key of a matrix file (typed keys, keys.h), with the built-in default; the block
 * keys ([insert...] and [curve...]) are those of sections "insert" and "curve". */
static const idb_key keys[] = {
    { .section = "matrix", .name = "seed", .type = IDB_KEY_INT, .def = "1", .min = 0,
      .max = INT64_MAX, M(seed) },
    { .section = "matrix", .name = "repeat", .type = IDB_KEY_INT, .def = "5", .min = 1,
      .max = 100, M(repeat) },
    { .section = "matrix", .name = "cell_timeout_s", .type = IDB_KEY_INT, .def = "900",
      .min = 1, .max = 86400, M(cell_timeout_s) },
    BOOL("generation", "enabled", "1", M(gen_enabled)),
    { .section = "generation", .name = "min_time", .type = IDB_KEY_DOUBLE, .def = "0.5",
      .dmin = 0.001, .dmax = 60, M(gen_min_time) },
    /* block keys: their order is the bit order of mx_block.set (enabled stays first) */
    BOOL("insert", "enabled", "1", B(enabled)),
    { .section = "insert", .name = "strategies", .type = IDB_KEY_LIST, .def = "all", .all = 1,
      .hook = strategy_entry, .elem = sizeof(const idb_strategy *), B(strategies),
      IDB_KEY_COUNT(mx_block, n_strategies) },
    { .section = "insert", .name = "stores", .type = IDB_KEY_LIST, .def = "all", .all = 1,
      .hook = store_entry, .elem = sizeof(const idb_store *), B(stores),
      IDB_KEY_COUNT(mx_block, n_stores) },
    { .section = "insert", .name = "sizes", .type = IDB_KEY_INTS, .def = "100000", .min = 1,
      .max = 1000000000, B(sizes), IDB_KEY_COUNT(mx_block, n_sizes) },
    { .section = "insert", .name = "shards", .type = IDB_KEY_INTS, .def = "1", .min = 1,
      .max = 1024, B(shards), IDB_KEY_COUNT(mx_block, n_shards) },
    { .section = "insert", .name = "batch", .type = IDB_KEY_INT, .def = "1000", .min = 1,
      .max = 1 << 24, B(batch) },
    { .section = "insert", .name = "shops", .type = IDB_KEY_INT, .def = "1000", .min = 1,
      .max = 1 << 24, B(shops) },
    { .section = "insert", .name = "key_bytes", .type = IDB_KEY_INT, .def = "0", .min = 0,
      .max = IDB_ID_MAX, B(key_bytes) },
    { .section = "insert", .name = "clients", .type = IDB_KEY_INTS, .def = "1", .min = 1,
      .max = MX_CLIENTS_MAX, B(clients), IDB_KEY_COUNT(mx_block, n_clients) },
    { .section = "insert", .name = "repeat", .type = IDB_KEY_INT, .def = "0", .min = 0,
      .max = 100, B(repeat) },
    { .section = "insert", .name = "store_set", .type = IDB_KEY_STR, .def = "",
      .hook = store_set_value, B(store_set) },
    { .section = "insert", .name = "then", .type = IDB_KEY_STR, .def = "",
      .hook = then_value, B(then) },
    { .section = "curve", .name = "cache_pages", .type = IDB_KEY_INTS, .min = 1, .max = 1 << 30,
      B(cache_pages), IDB_KEY_COUNT(mx_block, n_cache_pages) },
    { .section = "openloop", .name = "rates", .type = IDB_KEY_DOUBLES, .def = "1000, 4000",
      .dmin = 1, .dmax = 1e7, B(rates), IDB_KEY_COUNT(mx_block, n_rates) },
    { .section = "openloop", .name = "commit_ms", .type = IDB_KEY_DOUBLE, .def = "5",
      .dmin = 0, .dmax = 3600e3, B(commit_ms) },
    { .section = "series", .name = "window", .type = IDB_KEY_INT, .def = "10000", .min = 1,
      .max = 1000000000, B(window) },
    { .section = "series", .name = "cache_pages", .type = IDB_KEY_INTS, .min = 1,
      .max = 1 << 30, B(series_cache), IDB_KEY_COUNT(mx_block, n_series_cache) },
    { .section = "read", .name = "patterns", .type = IDB_KEY_STR, .def = "recent:5, uniform",
      .hook = mx_read_patterns_value, B(read_patterns) },
    { .section = "read", .name = "cache", .type = IDB_KEY_STR, .def = "cold",
      .hook = mx_read_cache_value, B(read_cache) },
    { .section = "read", .name = "lookups", .type = IDB_KEY_INT, .def = "10000", .min = 1,
      .max = 1 << 30, B(lookups) },
    BOOL("simulate", "enabled", "1", M(sim_enabled)),
    { .section = "simulate", .name = "workloads", .type = IDB_KEY_LIST, .hook = path_entry,
      .elem = MX_PATH_MAX, M(workloads), IDB_KEY_COUNT(idb_matrix, n_workloads) },
    { .section = "simulate", .name = "strategies", .type = IDB_KEY_STR, .def = "all",
      .hook = names_value, M(sim_strategies) },
    { .section = "simulate", .name = "set", .type = IDB_KEY_STR, .def = "", .hook = sets_value,
      M(sim_set) },
    { .section = "simulate", .name = "timeline_workload", .type = IDB_KEY_STR, .def = "",
      .hook = path_value, M(timeline_workload) },
    { .section = "simulate", .name = "skew_workload", .type = IDB_KEY_STR, .def = "",
      .hook = path_value, M(skew_workload) },
    { .section = "simulate", .name = "skew_ms", .type = IDB_KEY_DOUBLES, .dmin = 0, .dmax = 1e7,
      M(skew_ms), IDB_KEY_COUNT(idb_matrix, n_skew) },
    BOOL("simulate.range", "enabled", "0", M(range_enabled)),
    { .section = "simulate.range", .name = "workloads", .type = IDB_KEY_LIST, .hook = path_entry,
      .elem = MX_PATH_MAX, M(range_workloads), IDB_KEY_COUNT(idb_matrix, n_range_workloads) },
    { .section = "simulate.range", .name = "set", .type = IDB_KEY_STR, .def = "",
      .hook = sets_value, M(range_set) },
    BOOL("claims", "enabled", "1", M(claims_enabled)),
    BOOL("claims", "quick", "0", M(claims_quick)),
    { 0 },
};
#undef M
#undef B
#undef BOOL

/* The sections holding keys of the table (or of mx_fault_keys); blocks may also be named
 * (insert.NAME). */
static const struct { const char *name; int block; const idb_key *keys; } sections[] = {
    { "matrix", 0, keys }, { "generation", 0, keys }, { "insert", 1, keys },
    { "curve", 1, keys }, { "openloop", 1, keys }, { "series", 1, keys }, { "read", 1, keys },
    { "simulate", 0, keys }, { "simulate.range", 0, keys }, { "claims", 0, keys },
    { "counterkill", 0, mx_fault_keys }, { "faults.replicated", 0, mx_fault_keys },
};

/* Where the [curve] and [openloop] blocks' defaults differ from [insert]'s. */
typedef struct block_default { const char *section, *key, *def; } block_default;
static const block_default curve_defaults[] = {
    { "insert", "stores", "pagesim" },
    { "insert", "sizes", "200000" },
    { "curve", "cache_pages", "16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384" },
    { 0 },
};
static const block_default openloop_defaults[] = {
    { "insert", "strategies", "counter, uuidv7, uuidv4" },
    { "insert", "stores", "sqlite, lmdb" },
    { "insert", "sizes", "5000" },
    { 0 },
};
static const block_default series_defaults[] = {
    { "insert", "enabled", "0" },                /* off unless a file turns it on */
    { "insert", "strategies", "counter, uuidv7, uuidv4" },
    { "insert", "stores", "sqlite, lmdb, pagesim" },
    { "insert", "sizes", "200000" },
    { 0 },
};

static const block_default read_defaults[] = {   /* off unless a file turns it on */
    { "insert", "enabled", "0" }, { "insert", "strategies", "counter, uuidv7, uuidv4, snowflake" },
    { "insert", "stores", "sqlite, lmdb, pagesim" }, { "insert", "sizes", "200000" }, { 0 } };

/* The kinds of block: their section, where m keeps them, their defaults over [insert]'s. */
typedef struct block_kind {
    const char *section;
    size_t list, count;                          /* offsets in idb_matrix */
    const block_default *defaults;               /* NULL: [insert]'s */
} block_kind;
static const block_kind block_kinds[] = {
    { "insert", offsetof(idb_matrix, insert), offsetof(idb_matrix, n_insert), NULL },
    { "curve", offsetof(idb_matrix, curve), offsetof(idb_matrix, n_curve), curve_defaults },
    { "openloop", offsetof(idb_matrix, openloop), offsetof(idb_matrix, n_openloop),
      openloop_defaults },
    { "series", offsetof(idb_matrix, series), offsetof(idb_matrix, n_series), series_defaults },
    { "read", offsetof(idb_matrix, read), offsetof(idb_matrix, n_read), read_defaults },
};
#define N_BLOCK_KINDS (sizeof block_kinds / sizeof *block_kinds)

/* The blocks of kind i in m, and their count (see matrix_file_int.h). */
mx_block *mx_kind_blocks(idb_matrix *m, size_t i, int **n)
{
    *n = (int *)((char *)m + block_kinds[i].count);
    return (mx_block *)((char *)m + block_kinds[i].list);
}

/* The kinds of block there are (see matrix_file_int.h). */
size_t mx_n_block_kinds(void) { return N_BLOCK_KINDS; }

/* The first block key (its index is bit 0 of mx_block.set; see matrix_file_int.h). */
const idb_key *mx_first_block_key(void)
{
    return idb_keys_find(keys, "insert", "enabled");
}

/* 1 if k is a key of the block sections (see matrix_file_int.h). */
int mx_is_block_key(const idb_key *k)
{
    for (size_t i = 0; k->section && i < N_BLOCK_KINDS; i++)
        if (strcmp(k->section, block_kinds[i].section) == 0) return 1;
    return 0;
}

/* The names of every store, ", "-separated, into buf (see matrix_file_int.h). */
const char *mx_store_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (const idb_store *const *s = idb_stores; *s && used < len; s++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", (*s)->name);
    return buf;
}

/* The built-in defaults: every key's default from the table; the [curve] block's own. */
void mx_defaults(idb_matrix *m)
{
    static const char *const top[] = { "matrix", "generation", "simulate", "simulate.range",
                                       "claims" };
    idb_err err = { 0 };
    memset(m, 0, sizeof *m);
    int rc = 0;
    for (size_t i = 0; i < sizeof top / sizeof *top; i++)
        rc |= idb_keys_defaults(keys, top[i], m, NULL, &err);
    for (const char *const *f = mx_fault_sections; *f; f++)
        rc |= idb_keys_defaults(mx_fault_keys, *f, m, NULL, &err);
    for (size_t i = 0; i < N_BLOCK_KINDS; i++) {
        const block_kind *bk = &block_kinds[i];
        int *n;
        mx_block *b = mx_kind_blocks(m, i, &n);
        snprintf(b->name, sizeof b->name, "%s", bk->section);
        rc |= idb_keys_defaults(keys, "insert", b, NULL, &err);
        if (i > 0) rc |= idb_keys_defaults(keys, bk->section, b, NULL, &err);
        for (const block_default *d = bk->defaults; d && d->key; d++)
            rc |= idb_key_set(idb_keys_find(keys, d->section, d->key), b, NULL, d->def, &err);
        *n = 1;
    }
    if (rc) { fprintf(stderr, "idbench: bug: matrix defaults: %s\n", err.msg); abort(); }
}

/* Context of one file being read. */
typedef struct file_ctx {
    idb_matrix *m;
    const char *path;
} file_ctx;

/* LIST hook of `strategies`: entry i names a strategy, or `all` stands for every one. */
static int strategy_entry(const idb_key *k, void *base, void *ctx, int i, const char *text,
                          idb_err *err)
{
    (void)ctx;
    const idb_strategy **out = (const idb_strategy **)((char *)base + k->off);
    if (i == IDB_KEY_ALL) {
        int n = 0;
        for (const idb_strategy *const *s = idb_strategies; *s && n < MX_LIST_MAX; s++)
            out[n++] = *s;
        return n;
    }
    if (!(out[i] = idb_strategy_find(text)))
        return idb_fail(err, IDB_EINPUT, "unknown strategy '%s' (see idbench list)", text);
    return 0;
}

/* LIST hook of `stores`: entry i names a store, or `all` stands for every one. */
static int store_entry(const idb_key *k, void *base, void *ctx, int i, const char *text,
                       idb_err *err)
{
    (void)ctx;
    const idb_store **out = (const idb_store **)((char *)base + k->off);
    if (i == IDB_KEY_ALL) {
        int n = 0;
        for (const idb_store *const *s = idb_stores; *s && n < MX_STORES_MAX; s++)
            out[n++] = *s;
        return n;
    }
    if (!(out[i] = idb_store_find(text))) {
        char names[MX_STORE_LIST_MAX];
        return idb_fail(err, IDB_EINPUT, "unknown store '%s' (stores: %s)", text,
                        mx_store_names(names, sizeof names));
    }
    return 0;
}

/* Resolve path against the directory of file (unless absolute) into out (MX_PATH_MAX
 * bytes); it must be a readable file. Returns 0 or IDB_EINPUT. */
static int resolve_path(const char *file, const char *path, char *out, idb_err *err)
{
    const char *slash = strrchr(file, '/');
    char buf[MX_PATH_MAX];
    int n = path[0] == '/' || !slash
                ? snprintf(buf, sizeof buf, "%s", path)
                : snprintf(buf, sizeof buf, "%.*s/%s", (int)(slash - file), file, path);
    if (n < 0 || (size_t)n >= sizeof buf)
        return idb_fail(err, IDB_EINPUT, "path '%s' is too long", path);
    if (access(buf, R_OK) != 0)
        return idb_fail(err, IDB_EINPUT, "workload file '%s' not found (looked for %s)", path,
                        buf);
    memcpy(out, buf, (size_t)n + 1);
    return 0;
}

/* LIST hook of `workloads`: entry i is a workload file, relative to the file (ctx). */
static int path_entry(const idb_key *k, void *base, void *ctx, int i, const char *text,
                      idb_err *err)
{
    return resolve_path(ctx, text, (char *)base + k->off + (size_t)i * k->elem, err);
}

/* Hook of a workload path key: "" is none; else a file, relative to the file (ctx). */
static int path_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                      idb_err *err)
{
    (void)i;
    return *text ? resolve_path(ctx, text, (char *)base + k->off, err) : 0;
}

/* Check one strategy name of [simulate] strategies. */
static int known_strategy(void *ctx, int i, const char *name, idb_err *err)
{
    (void)ctx, (void)i;
    return idb_strategy_find(name) ? 0 : idb_fail(err, IDB_EINPUT, "unknown strategy '%s' "
                                                  "(see idbench list)", name);
}

/* Hook of [simulate] strategies: `all` (kept as "": each workload's own list) or names. */
static int names_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                       idb_err *err)
{
    (void)ctx, (void)i;
    if (strcmp(text, "all") == 0) { ((char *)base + k->off)[0] = 0; return 0; }
    int n = idb_key_each(k, text, MX_LIST_MAX, known_strategy, NULL, err);
    return n < 0 ? n : 0;
}

/* Hook of [simulate] set: blank-separated SECTION.KEY=VALUE entries. */
static int sets_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                      idb_err *err)
{
    (void)k, (void)base, (void)ctx, (void)i;
    char copy[sizeof ((idb_matrix *)0)->sim_set];
    snprintf(copy, sizeof copy, "%s", text);            /* checked: it fits */
    for (char *save = NULL, *t = strtok_r(copy, " \t", &save); t;
         t = strtok_r(NULL, " \t", &save)) {
        const char *eq = strchr(t, '='), *dot = strchr(t, '.');
        if (!eq || !dot || dot > eq || dot == t || eq == dot + 1)
            return idb_fail(err, IDB_EINPUT, "'%s' is not SECTION.KEY=VALUE (entries are "
                            "separated by blanks)", t);
    }
    return 0;
}

/* The block called section in list (creating it, up to MX_BLOCKS_MAX), or NULL (err). */
static mx_block *find_block(mx_block *list, int *n, const char *section, idb_err *err)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(list[i].name, section) == 0) return &list[i];
    if (*n == MX_BLOCKS_MAX) {
        idb_fail(err, IDB_EINPUT, "too many [%s] blocks (at most %d)", section, MX_BLOCKS_MAX);
        return NULL;
    }
    mx_block *b = &list[(*n)++];
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", section);
    b->enabled = 1;
    return b;
}

/* The options of store s in m, added when new (NULL when there is no room: err). */
static mx_store_opts *store_opts(idb_matrix *m, const idb_store *s, idb_err *err)
{
    mx_store_opts *so = (mx_store_opts *)mx_store_options(m, s);
    if (so) return so;
    if (m->n_store_opts == MX_STORES_MAX) {
        idb_fail(err, IDB_EINPUT, "too many [%s*] sections", STORE_PREFIX);
        return NULL;
    }
    so = &m->store_opts[m->n_store_opts++];
    so->store = s;
    return so;
}

/* kv ("key=value") is an option store s declares, with a value its table takes. */
static int store_kv_ok(const idb_store *s, const char *kv, idb_err *err)
{
    char owner[IDB_OPT_NAME_MAX + 16];
    idb_opts o;
    snprintf(owner, sizeof owner, "store %s", s->name);
    const char *one[] = { kv };
    return idb_opts_parse(&o, s->options, one, 1, owner, err);
}

/* Check one entry of a block's store_set: STORE.KEY=VALUE, an option STORE declares. */
static int store_set_entry(void *ctx, int i, const char *entry, idb_err *err)
{
    (void)ctx, (void)i;
    const char *dot = strchr(entry, '.'), *eq = strchr(entry, '=');
    if (!dot || !eq || dot > eq || dot == entry || eq == dot + 1 || strpbrk(entry, " \t"))
        return idb_fail(err, IDB_EINPUT, "store_set: '%s' is not STORE.KEY=VALUE (entries are "
                        "separated by commas, with no blanks inside)", entry);
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(dot - entry), entry);
    const idb_store *s = idb_store_find(name);
    if (!s) {
        char names[MX_STORE_LIST_MAX];
        return idb_fail(err, IDB_EINPUT, "store_set: unknown store '%s' in '%s' (stores: %s)",
                        name, entry, mx_store_names(names, sizeof names));
    }
    return store_kv_ok(s, dot + 1, err);
}

/* Hook of a block's store_set: "" (none) or comma-separated STORE.KEY=VALUE entries. */
static int store_set_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                           idb_err *err)
{
    (void)base, (void)ctx, (void)i;
    int n = *text ? idb_key_each(k, text, MX_KV_MAX, store_set_entry, NULL, err) : 0;
    return n < 0 ? n : 0;
}

/* Hook of a block's then: "" or STRATEGY:N (mx_then_parse). */
static int then_value(const idb_key *k, void *base, void *ctx, int i, const char *text,
                      idb_err *err)
{
    (void)k, (void)base, (void)ctx, (void)i;
    const idb_strategy *s;
    int64_t n;
    return mx_then_parse(text, &s, &n, err);
}

/* The options b's store_set gives s, blank-separated (see matrix.h). */
int mx_block_set(const mx_block *b, const idb_store *s, char *buf, size_t len)
{
    size_t nlen = strlen(s->name), used = 0;
    int n = 0;
    buf[0] = 0;
    for (const char *p = b->store_set; *p;) {
        p += strspn(p, ", \t");
        size_t e = strcspn(p, ",");
        while (e && (p[e - 1] == ' ' || p[e - 1] == '\t')) e--;
        if (e > nlen + 1 && !strncmp(p, s->name, nlen) && p[nlen] == '.' && used < len) {
            used += (size_t)snprintf(buf + used, len - used, "%s%.*s", n ? " " : "",
                                     (int)(e - nlen - 1), p + nlen + 1);
            n++;
        }
        p += strcspn(p, ",");
    }
    return n;
}

/* [store.NAME] key = value: a declared option of store NAME, checked by the store's table. */
static int apply_store_option(idb_matrix *m, const char *store, const char *key,
                              const char *value, mx_where at, idb_err *err)
{
    const idb_store *s = idb_store_find(store);
    char kv[sizeof m->store_opts[0].kv[0]];
    if (!s) {
        char names[MX_STORE_LIST_MAX];
        return idb_fail(err, IDB_EINPUT, "unknown store '%s' in [%s%s] (stores: %s)", store,
                        STORE_PREFIX, store, mx_store_names(names, sizeof names));
    }
    if ((size_t)snprintf(kv, sizeof kv, "%s=%s", key, value) >= sizeof kv)
        return idb_fail(err, IDB_EINPUT, "%s: value too long (at most %zu bytes)", key,
                        sizeof kv - strlen(key) - 2);
    int rc = store_kv_ok(s, kv, err);
    mx_store_opts *so = rc ? NULL : store_opts(m, s, err);
    if (!so) return rc ? rc : IDB_EINPUT;
    size_t klen = strlen(key);
    for (int i = 0; i < so->n; i++)                     /* a later file overrides */
        if (strncmp(so->kv[i], key, klen) == 0 && so->kv[i][klen] == '=') {
            memcpy(so->kv[i], kv, sizeof kv);
            so->at[i] = at;
            return 0;
        }
    if (so->n == MX_KV_MAX)
        return idb_fail(err, IDB_EINPUT, "too many options for store %s", s->name);
    so->at[so->n] = at;
    memcpy(so->kv[so->n++], kv, sizeof kv);
    return 0;
}

/* The kind of section: its entry in sections[] (insert.NAME is an insert block), or -1. */
static int section_kind(const char *section)
{
    for (int i = 0; i < (int)(sizeof sections / sizeof *sections); i++) {
        size_t n = strlen(sections[i].name);
        if (strcmp(section, sections[i].name) == 0 ||
            (sections[i].block && strncmp(section, sections[i].name, n) == 0 &&
             section[n] == '.' && section[n + 1]))
            return i;
    }
    return -1;
}

/* The key called key in a section of kind (a curve block has the insert keys too), or NULL
 * with err saying which keys there are. */
static const idb_key *find_key(int kind, const char *section, const char *key, idb_err *err)
{
    const char *sect = sections[kind].name;
    int more_keys = sections[kind].block && strcmp(sect, "insert") != 0;  /* curve, openloop */
    const idb_key *k = idb_keys_find(sections[kind].keys, sect, key);
    if (!k && more_keys) k = idb_keys_find(keys, "insert", key);
    if (k) return k;
    char names[MX_STORE_LIST_MAX], more[MX_STORE_LIST_MAX];
    idb_keys_names(sections[kind].keys, more_keys ? "insert" : sect, names, sizeof names);
    if (more_keys) idb_keys_names(keys, sect, more, sizeof more);
    idb_fail(err, IDB_EINPUT, "unknown key '%s' in [%s] (keys: %s%s%s)", key, section, names,
             more_keys ? ", " : "", more_keys ? more : "");
    return NULL;
}

/* After b's stores were set in a curve block: each can draw a miss-ratio curve. */
static int check_curve_stores(const mx_block *b, idb_err *err)
{
    for (int j = 0; j < b->n_stores; j++)
        if (!b->stores[j]->curve && !idb_opts_declared(b->stores[j]->options, "cache_pages"))
            return idb_fail(err, IDB_EINPUT, "store %s has no cache to draw a miss-ratio curve "
                            "of", b->stores[j]->name);
    return 0;
}

/* Apply section/key = value (from file, where at says) to m (see matrix_file_int.h). */
int mx_apply(idb_matrix *m, const char *file, mx_where at, const char *section,
             const char *key, const char *value, idb_err *err)
{
    size_t np = strlen(STORE_PREFIX);
    if (strncmp(section, STORE_PREFIX, np) == 0)
        return apply_store_option(m, section + np, key, value, at, err);
    int kind = section_kind(section);
    if (kind < 0)
        return idb_fail(err, IDB_EINPUT, "unknown section [%s] (sections: matrix, generation, "
                        "insert, insert.NAME, curve, curve.NAME, openloop, openloop.NAME, "
                        "series, series.NAME, read, read.NAME, store.NAME, simulate, "
                        "simulate.range, claims, counterkill, faults.replicated, quick)",
                        section);
    const idb_key *k = find_key(kind, section, key, err);
    if (!k) return IDB_EINPUT;
    if (!sections[kind].block) return idb_key_set(k, m, (void *)file, value, err);
    int curve = strcmp(sections[kind].name, "curve") == 0;
    mx_block *b = NULL;
    for (size_t i = 0; i < N_BLOCK_KINDS; i++)
        if (strcmp(sections[kind].name, block_kinds[i].section) == 0) {
            int *n;
            mx_block *list = mx_kind_blocks(m, i, &n);
            b = find_block(list, n, section, err);
        }
    if (!b) return IDB_EINPUT;
    int rc = idb_key_set(k, b, (void *)file, value, err);
    if (rc) return rc;
    b->set |= 1u << (k - mx_first_block_key());
    b->at[k - mx_first_block_key()] = at;
    return curve && k->hook == store_entry ? check_curve_stores(b, err) : 0;
}

/* Keep a [quick] override (SECTION.KEY = value at line of file f) for mx_finish, after
 * checking it on a scratch matrix. Returns 0 or an IDB_E* code with err. */
static int keep_quick(file_ctx *f, const char *key, const char *value, int line, idb_err *err)
{
    const char *dot = strrchr(key, '.');
    if (!dot || dot == key || !dot[1])
        return idb_fail(err, IDB_EINPUT, "[quick] keys are SECTION.KEY (e.g. insert.sizes), not "
                        "'%s'", key);
    if (f->m->n_quick == MX_QUICK_MAX)
        return idb_fail(err, IDB_EINPUT, "too many [quick] overrides (at most %d)", MX_QUICK_MAX);
    mx_quick *q = &f->m->quick_over[f->m->n_quick];
    snprintf(q->file, sizeof q->file, "%s", f->path);
    q->line = line;
    snprintf(q->section, sizeof q->section, "%.*s", (int)(dot - key), key);
    snprintf(q->key, sizeof q->key, "%s", dot + 1);
    if (strlen(value) >= sizeof q->value)
        return idb_fail(err, IDB_EINPUT, "%s: value too long (at most %zu bytes)", key,
                        sizeof q->value - 1);
    memcpy(q->value, value, strlen(value) + 1);
    if (strcmp(q->section, "quick") == 0)
        return idb_fail(err, IDB_EINPUT, "[quick] cannot override itself");
    idb_matrix *scratch = malloc(sizeof *scratch);      /* check the override now */
    if (!scratch) return idb_fail(err, IDB_ENOMEM, "out of memory");
    mx_defaults(scratch);
    int rc = mx_apply(scratch, f->path, (mx_where){ 0, 0 }, q->section, q->key, q->value, err);
    free(scratch);
    if (rc) return rc;
    f->m->n_quick++;
    return 0;
}

/* ini handler: a key of a matrix file. [quick] keys are checked now, applied later. */
static int on_key(void *ctx, const char *section, const char *key, const char *value, int line,
                  idb_err *err)
{
    file_ctx *f = ctx;
    if (strcmp(section, "quick") == 0) return keep_quick(f, key, value, line, err);
    return mx_apply(f->m, f->path, (mx_where){ f->m->n_files - 1, line }, section, key, value,
                 err);
}

/* Read one matrix file on top of m through the ini reader (see matrix.h). */
int mx_load_file(idb_matrix *m, const char *path, idb_err *err)
{
    if (m->n_files == MX_FILES_MAX)
        return idb_fail(err, IDB_EINPUT, "too many matrix files (at most %d)", MX_FILES_MAX);
    snprintf(m->files[m->n_files++], MX_PATH_MAX, "%s", path);
    file_ctx f = { m, path };
    return ini_parse_file(path, on_key, &f, err);
}

/* The block key called key, in [insert] or another block section (see matrix_file_int.h). */
const idb_key *mx_block_key(const char *key)
{
    const idb_key *k = idb_keys_find(keys, "insert", key);
    for (size_t i = 1; !k && i < N_BLOCK_KINDS; i++)
        k = idb_keys_find(keys, block_kinds[i].section, key);
    return k;
}

/* The [store.NAME] options of s, or NULL (see matrix.h). */
const mx_store_opts *mx_store_options(const idb_matrix *m, const idb_store *s)
{
    for (int i = 0; i < m->n_store_opts; i++)
        if (m->store_opts[i].store == s) return &m->store_opts[i];
    return NULL;
}
