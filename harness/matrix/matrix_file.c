/* matrix_file.c — reading matrix files (workloads/matrix.ini) into an idb_matrix.
 *
 * Sections and keys (workloads/matrix.ini documents each with its default):
 *   [matrix]      seed, repeat, cell_timeout_s
 *   [generation]  enabled, min_time
 *   [insert]      enabled, strategies, stores, sizes, shards, batch, shops
 *   [insert.NAME] another block of insert runs; keys it does not set come from [insert]
 *   [curve]       the same keys plus cache_pages; [curve.NAME] like [insert.NAME]
 *   [store.NAME]  options of store NAME for every run on it (as `-s key=value`)
 *   [simulate]    enabled, workloads, strategies, set, timeline_workload, skew_workload,
 *                 skew_ms
 *   [claims]      enabled, quick
 *   [quick]       SECTION.KEY = VALUE overrides, applied only with --quick
 * Lists are comma-separated; `strategies = all` means every strategy in `idbench list`
 * order, `stores = all` every store. Workload paths are relative to the file naming them.
 * Several files may be given: later ones override the keys of earlier ones.
 */
#include "matrix.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ini.h"

enum sect { S_MATRIX, S_GEN, S_INSERT, S_CURVE, S_SIM, S_CLAIMS };
enum type { T_INT, T_DOUBLE, T_BOOL, T_STRATS, T_STORES, T_INTS, T_DOUBLES, T_PATHS, T_PATH,
            T_NAMES, T_SETS };

/* One key: where it lives (an offset into idb_matrix, or into mx_block for the block
 * sections), its type and its bounds. */
typedef struct key_def {
    enum sect sect;
    const char *name;
    enum type type;
    size_t off, count_off;           /* count_off: the list's length (lists only) */
    double min, max;
} key_def;

#define M(f) offsetof(idb_matrix, f)
#define B(f) offsetof(mx_block, f)

static const key_def keys[] = {
    { S_MATRIX, "seed", T_INT, M(seed), 0, 0, (double)INT64_MAX },
    { S_MATRIX, "repeat", T_INT, M(repeat), 0, 1, 100 },
    { S_MATRIX, "cell_timeout_s", T_INT, M(cell_timeout_s), 0, 1, 86400 },
    { S_GEN, "enabled", T_BOOL, M(gen_enabled), 0, 0, 1 },
    { S_GEN, "min_time", T_DOUBLE, M(gen_min_time), 0, 0.001, 60 },
    /* block keys: their order is the bit order of mx_block.set (enabled stays first) */
    { S_INSERT, "enabled", T_BOOL, B(enabled), 0, 0, 1 },
    { S_INSERT, "strategies", T_STRATS, B(strategies), B(n_strategies), 0, 0 },
    { S_INSERT, "stores", T_STORES, B(stores), B(n_stores), 0, 0 },
    { S_INSERT, "sizes", T_INTS, B(sizes), B(n_sizes), 1, 1e9 },
    { S_INSERT, "shards", T_INTS, B(shards), B(n_shards), 1, 1024 },
    { S_INSERT, "batch", T_INT, B(batch), 0, 1, 1 << 24 },
    { S_INSERT, "shops", T_INT, B(shops), 0, 1, 1 << 24 },
    { S_CURVE, "cache_pages", T_INTS, B(cache_pages), B(n_cache_pages), 1, 1 << 30 },
    { S_SIM, "enabled", T_BOOL, M(sim_enabled), 0, 0, 1 },
    { S_SIM, "workloads", T_PATHS, M(workloads), M(n_workloads), 0, 0 },
    { S_SIM, "strategies", T_NAMES, M(sim_strategies), 0, 0, 0 },
    { S_SIM, "set", T_SETS, M(sim_set), 0, 0, 0 },
    { S_SIM, "timeline_workload", T_PATH, M(timeline_workload), 0, 0, 0 },
    { S_SIM, "skew_workload", T_PATH, M(skew_workload), 0, 0, 0 },
    { S_SIM, "skew_ms", T_DOUBLES, M(skew_ms), M(n_skew), 0, 1e7 },
    { S_CLAIMS, "enabled", T_BOOL, M(claims_enabled), 0, 0, 1 },
    { S_CLAIMS, "quick", T_BOOL, M(claims_quick), 0, 0, 1 },
};
#define NKEYS (sizeof keys / sizeof *keys)
#define FIRST_BLOCK_KEY 5            /* index of the first S_INSERT key */

static const char *const sect_names[] = { "matrix", "generation", "insert", "curve", "simulate", "claims" };

/* The built-in defaults: every strategy and store, one size, pagesim curves (see matrix.h). */
void mx_defaults(idb_matrix *m)
{
    memset(m, 0, sizeof *m);
    m->seed = 1;
    m->repeat = 3;
    m->cell_timeout_s = 900;
    m->gen_enabled = 1;
    m->gen_min_time = 0.5;
    mx_block *b[2] = { &m->insert[0], &m->curve[0] };
    for (int i = 0; i < 2; i++) {
        strcpy(b[i]->name, i ? "curve" : "insert");
        b[i]->enabled = 1;
        for (const idb_strategy *const *s = idb_strategies; *s && b[i]->n_strategies < MX_LIST_MAX; s++)
            b[i]->strategies[b[i]->n_strategies++] = *s;
        b[i]->sizes[b[i]->n_sizes++] = i ? 200000 : 100000;
        b[i]->shards[b[i]->n_shards++] = 1;
        b[i]->batch = 1000;
        b[i]->shops = 1000;
    }
    for (const idb_store *const *s = idb_stores; *s && m->insert[0].n_stores < MX_STORES_MAX; s++)
        m->insert[0].stores[m->insert[0].n_stores++] = *s;
    m->curve[0].stores[m->curve[0].n_stores++] = idb_store_find("pagesim");
    for (int64_t p = 16; p <= 16384; p *= 2) m->curve[0].cache_pages[m->curve[0].n_cache_pages++] = p;
    m->n_insert = m->n_curve = 1;
    m->sim_enabled = 1;
    m->claims_enabled = 1;
}

/* Context of one file being read. */
typedef struct file_ctx {
    idb_matrix *m;
    const char *path;
} file_ctx;

/* Split a comma list in place: fills tok[] (trimmed, non-empty). Returns the count, or -1
 * (msg filled) on an empty entry or too many. */
static int split_list(char *s, char **tok, int max, char *msg, size_t len)
{
    int n = 0;
    for (char *p = s;;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = 0;
        while (*p == ' ' || *p == '\t') p++;
        char *e = p + strlen(p);
        while (e > p && (e[-1] == ' ' || e[-1] == '\t')) *--e = 0;
        if (!*p) { snprintf(msg, len, "empty entry in a comma-separated list"); return -1; }
        if (n == max) { snprintf(msg, len, "too many entries (at most %d)", max); return -1; }
        tok[n++] = p;
        if (!comma) break;
        p = comma + 1;
    }
    return n;
}

/* Parse a number within [min, max]; integer when want_int. Returns 0 or -1 (msg). */
static int parse_num(const char *s, int want_int, double min, double max, double *out,
                     char *msg, size_t len)
{
    char *end;
    double v;
    if (want_int) {
        int64_t i;
        if (idb_parse_i64(s, &i) != 0) { snprintf(msg, len, "'%s' is not an integer", s); return -1; }
        v = (double)i;
    } else {
        v = strtod(s, &end);
        if (end == s || *end || !isfinite(v)) { snprintf(msg, len, "'%s' is not a number", s); return -1; }
    }
    if (v < min || v > max) {
        snprintf(msg, len, "%s is out of range %.15g..%.15g", s, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

/* Resolve path against the directory of file (unless absolute) into out; it must be a
 * readable file. Returns 0 or -1 (msg). */
static int resolve_path(const char *file, const char *path, char *out, size_t outlen,
                        char *msg, size_t len)
{
    const char *slash = strrchr(file, '/');
    int n = path[0] == '/' || !slash
                ? snprintf(out, outlen, "%s", path)
                : snprintf(out, outlen, "%.*s/%s", (int)(slash - file), file, path);
    if (n < 0 || (size_t)n >= outlen) { snprintf(msg, len, "path '%s' is too long", path); return -1; }
    if (access(out, R_OK) != 0) {
        snprintf(msg, len, "workload file '%s' not found (looked for %s)", path, out);
        return -1;
    }
    return 0;
}

/* Parse value as key k's type into the object at base (an idb_matrix or an mx_block).
 * file resolves relative paths. Returns 0 or -1 with msg. */
static int parse_value(const key_def *k, char *base, const char *file, const char *value,
                       char *msg, size_t len)
{
    char buf[INI_LINE_MAX], *tok[MX_LIST_MAX];
    double v;
    snprintf(buf, sizeof buf, "%s", value);
    int *count = k->count_off ? (int *)(base + k->count_off) : NULL;
    int n = 0, max = k->type == T_STORES ? MX_STORES_MAX : k->type == T_PATHS ? MX_WORKLOADS_MAX : MX_LIST_MAX;
    switch (k->type) {
    case T_INT: case T_DOUBLE: case T_BOOL:
        if (parse_num(value, k->type != T_DOUBLE, k->min, k->max, &v, msg, len)) return -1;
        if (k->type == T_INT) *(int64_t *)(base + k->off) = (int64_t)v;
        else if (k->type == T_BOOL) *(int *)(base + k->off) = (int)v;
        else *(double *)(base + k->off) = v;
        return 0;
    case T_PATH:
        if (!*value) { ((char *)(base + k->off))[0] = 0; return 0; }
        return resolve_path(file, value, base + k->off, MX_PATH_MAX, msg, len);
    case T_SETS: {
        char copy[1024];
        if (strlen(value) >= sizeof copy) { snprintf(msg, len, "value too long"); return -1; }
        strcpy(copy, value);
        for (char *save = NULL, *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
            const char *eq = strchr(t, '='), *dot = strchr(t, '.');
            if (!eq || !dot || dot > eq || dot == t || eq == dot + 1) {
                snprintf(msg, len, "'%s' is not SECTION.KEY=VALUE (entries are separated by blanks)", t);
                return -1;
            }
        }
        strcpy(base + k->off, value);
        return 0;
    }
    default: break;
    }
    if (!*value) { snprintf(msg, len, "%s needs at least one entry", k->name); return -1; }
    if (k->type == T_NAMES && strlen(value) >= sizeof ((idb_matrix *)0)->sim_strategies) {
        snprintf(msg, len, "value too long");
        return -1;
    }
    if ((k->type == T_STRATS || k->type == T_NAMES) && strcmp(value, "all") == 0) {
        if (k->type == T_NAMES) { ((char *)(base + k->off))[0] = 0; return 0; }
        for (const idb_strategy *const *s = idb_strategies; *s && n < MX_LIST_MAX; s++)
            ((const idb_strategy **)(base + k->off))[n++] = *s;
        *count = n;
        return 0;
    }
    if (k->type == T_STORES && strcmp(value, "all") == 0) {
        for (const idb_store *const *s = idb_stores; *s && n < MX_STORES_MAX; s++)
            ((const idb_store **)(base + k->off))[n++] = *s;
        *count = n;
        return 0;
    }
    int nt = split_list(buf, tok, max, msg, len);
    if (nt < 0) return -1;
    for (int i = 0; i < nt; i++) {
        switch (k->type) {
        case T_STRATS: case T_NAMES: {
            const idb_strategy *s = idb_strategy_find(tok[i]);
            if (!s) { snprintf(msg, len, "unknown strategy '%s' (see idbench list)", tok[i]); return -1; }
            if (k->type == T_STRATS) ((const idb_strategy **)(base + k->off))[i] = s;
            break;
        }
        case T_STORES: {
            const idb_store *s = idb_store_find(tok[i]);
            if (!s) { snprintf(msg, len, "unknown store '%s' (stores: sqlite, lmdb, pagesim, null)", tok[i]); return -1; }
            ((const idb_store **)(base + k->off))[i] = s;
            break;
        }
        case T_INTS: case T_DOUBLES:
            if (parse_num(tok[i], k->type == T_INTS, k->min, k->max, &v, msg, len)) return -1;
            if (k->type == T_INTS) ((int64_t *)(base + k->off))[i] = (int64_t)v;
            else ((double *)(base + k->off))[i] = v;
            break;
        case T_PATHS:
            if (resolve_path(file, tok[i], ((char (*)[MX_PATH_MAX])(base + k->off))[i], MX_PATH_MAX, msg, len))
                return -1;
            break;
        default: break;
        }
    }
    if (k->type == T_NAMES) strcpy(base + k->off, value);
    else *count = nt;
    return 0;
}

/* The block called section in list (creating it, up to MX_BLOCKS_MAX), or NULL (msg). */
static mx_block *find_block(mx_block *list, int *n, const char *section, char *msg, size_t len)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(list[i].name, section) == 0) return &list[i];
    if (*n == MX_BLOCKS_MAX) { snprintf(msg, len, "too many [%s] blocks (at most %d)", section, MX_BLOCKS_MAX); return NULL; }
    mx_block *b = &list[(*n)++];
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", section);
    b->enabled = 1;
    return b;
}

/* [store.NAME] key = value: a declared option of store NAME, checked by the store's table. */
static int apply_store_option(idb_matrix *m, const char *store, const char *key, const char *value,
                              char *msg, size_t len)
{
    const idb_store *s = idb_store_find(store);
    if (!s) { snprintf(msg, len, "unknown store '%s' in [store.%s] (stores: sqlite, lmdb, pagesim, null)", store, store); return -1; }
    char kv[160];
    if ((size_t)snprintf(kv, sizeof kv, "%s=%s", key, value) >= sizeof kv) { snprintf(msg, len, "value too long"); return -1; }
    idb_opts o;
    idb_err err = { 0 };
    char owner[64];
    snprintf(owner, sizeof owner, "store %s", s->name);
    const char *one[] = { kv };
    if (idb_opts_parse(&o, s->options, one, 1, owner, &err) != 0) { snprintf(msg, len, "%s", err.msg); return -1; }
    mx_store_opts *so = (mx_store_opts *)mx_store_options(m, s);
    if (!so) {
        if (m->n_store_opts == MX_STORES_MAX) { snprintf(msg, len, "too many [store.*] sections"); return -1; }
        so = &m->store_opts[m->n_store_opts++];
        so->store = s;
    }
    size_t klen = strlen(key);
    for (int i = 0; i < so->n; i++)                     /* a later file overrides */
        if (strncmp(so->kv[i], key, klen) == 0 && so->kv[i][klen] == '=') { strcpy(so->kv[i], kv); return 0; }
    if (so->n == MX_KV_MAX) { snprintf(msg, len, "too many options for store %s", s->name); return -1; }
    strcpy(so->kv[so->n++], kv);
    return 0;
}

/* Apply section/key = value (from file) to m. Returns 0 or -1 with msg. */
static int apply(idb_matrix *m, const char *file, const char *section, const char *key,
                 const char *value, char *msg, size_t len)
{
    if (strncmp(section, "store.", 6) == 0) return apply_store_option(m, section + 6, key, value, msg, len);
    int sect = -1;
    for (int i = 0; i < (int)(sizeof sect_names / sizeof *sect_names); i++) {
        size_t n = strlen(sect_names[i]);
        if (strcmp(section, sect_names[i]) == 0 ||
            ((i == S_INSERT || i == S_CURVE) && strncmp(section, sect_names[i], n) == 0 && section[n] == '.' && section[n + 1]))
            sect = i;
    }
    if (sect < 0) {
        snprintf(msg, len, "unknown section [%s] (sections: matrix, generation, insert, insert.NAME, "
                 "curve, curve.NAME, store.NAME, simulate, claims, quick)", section);
        return -1;
    }
    for (size_t i = 0; i < NKEYS; i++) {
        const key_def *k = &keys[i];
        int block = sect == S_INSERT || sect == S_CURVE;
        if (!((int)k->sect == sect || (sect == S_CURVE && k->sect == S_INSERT)) || strcmp(k->name, key) != 0) continue;
        if (!block) return parse_value(k, (char *)m, file, value, msg, len);
        mx_block *b = sect == S_INSERT ? find_block(m->insert, &m->n_insert, section, msg, len)
                                       : find_block(m->curve, &m->n_curve, section, msg, len);
        if (!b || parse_value(k, (char *)b, file, value, msg, len)) return -1;
        b->set |= 1u << (i - FIRST_BLOCK_KEY);
        if (sect == S_CURVE && k->type == T_STORES)
            for (int j = 0; j < b->n_stores; j++)
                if (!b->stores[j]->curve && !idb_opts_declared(b->stores[j]->options, "cache_pages")) {
                    snprintf(msg, len, "store %s has no cache to draw a miss-ratio curve of", b->stores[j]->name);
                    return -1;
                }
        return 0;
    }
    snprintf(msg, len, "unknown key '%s' in [%s]", key, section);
    return -1;
}

/* ini handler: a key of a matrix file. [quick] keys are checked now, applied later. */
static int on_key(void *ctx, const char *section, const char *key, const char *value, int line,
                  char *msg, size_t msglen)
{
    file_ctx *f = ctx;
    if (strcmp(section, "quick") != 0) return apply(f->m, f->path, section, key, value, msg, msglen);
    const char *dot = strrchr(key, '.');
    if (!dot || dot == key || !dot[1]) {
        snprintf(msg, msglen, "[quick] keys are SECTION.KEY (e.g. insert.sizes), not '%s'", key);
        return -1;
    }
    if (f->m->n_quick == MX_QUICK_MAX) { snprintf(msg, msglen, "too many [quick] overrides"); return -1; }
    mx_quick *q = &f->m->quick_over[f->m->n_quick];
    snprintf(q->file, sizeof q->file, "%s", f->path);
    q->line = line;
    snprintf(q->section, sizeof q->section, "%.*s", (int)(dot - key), key);
    snprintf(q->key, sizeof q->key, "%s", dot + 1);
    if (strlen(value) >= sizeof q->value) { snprintf(msg, msglen, "value too long"); return -1; }
    strcpy(q->value, value);
    if (strcmp(q->section, "quick") == 0) { snprintf(msg, msglen, "[quick] cannot override itself"); return -1; }
    idb_matrix *scratch = malloc(sizeof *scratch);      /* check the override now */
    if (!scratch) { snprintf(msg, msglen, "out of memory"); return -1; }
    mx_defaults(scratch);
    int rc = apply(scratch, f->path, q->section, q->key, q->value, msg, msglen);
    free(scratch);
    if (rc) return -1;
    f->m->n_quick++;
    return 0;
}

/* Read one matrix file on top of m through the ini reader (see matrix.h). */
int mx_load_file(idb_matrix *m, const char *path, idb_err *err)
{
    if (m->n_files == MX_FILES_MAX) return idb_fail(err, IDB_EINPUT, "too many matrix files (at most %d)", MX_FILES_MAX);
    snprintf(m->files[m->n_files++], MX_PATH_MAX, "%s", path);
    file_ctx f = { m, path };
    return ini_parse_file(path, on_key, &f, err);
}

/* Copy into b every block key it did not set from base (enabled excepted). */
static void inherit(mx_block *b, const mx_block *base)
{
    for (size_t i = FIRST_BLOCK_KEY + 1; i < NKEYS && (int)keys[i].sect <= (int)S_CURVE; i++) {
        unsigned bit = 1u << (i - FIRST_BLOCK_KEY);
        if (b->set & bit) continue;
        const key_def *k = &keys[i];
        size_t size;
        switch (k->type) {
        case T_STRATS: size = sizeof b->strategies; break;
        case T_STORES: size = sizeof b->stores; break;
        case T_INTS: size = MX_LIST_MAX * sizeof(int64_t); break;
        default: size = sizeof(int64_t); break;
        }
        memcpy((char *)b + k->off, (const char *)base + k->off, size);
        if (k->count_off) *(int *)((char *)b + k->count_off) = *(const int *)((const char *)base + k->count_off);
    }
}

/* [quick] overrides, then block inheritance, then whole-matrix checks (see matrix.h). */
int mx_finish(idb_matrix *m, int quick, idb_err *err)
{
    m->quick = quick;
    for (int i = 0; quick && i < m->n_quick; i++) {
        const mx_quick *q = &m->quick_over[i];
        char msg[512];
        if (apply(m, q->file, q->section, q->key, q->value, msg, sizeof msg))
            return idb_fail(err, IDB_EINPUT, "%s:%d: %s", q->file, q->line, msg);
    }
    for (int i = 1; i < m->n_insert; i++) inherit(&m->insert[i], &m->insert[0]);
    for (int i = 1; i < m->n_curve; i++) inherit(&m->curve[i], &m->curve[0]);
    if (m->sim_enabled && m->skew_workload[0] && m->n_skew == 0)
        return idb_fail(err, IDB_EINPUT, "%s: [simulate] skew_workload needs skew_ms values",
                        m->files[m->n_files - 1]);
    return 0;
}

/* The [store.NAME] options of s, or NULL (see matrix.h). */
const mx_store_opts *mx_store_options(const idb_matrix *m, const idb_store *s)
{
    for (int i = 0; i < m->n_store_opts; i++)
        if (m->store_opts[i].store == s) return &m->store_opts[i];
    return NULL;
}
