/* cmd_insert.c — idbench insert: one insert run (insert.c), printed as CSV or JSON, or
 * its miss-ratio curve with --curve. Results go to stdout only after the run finished,
 * so a failed run prints no partial result. Without --dir the stores live in a private
 * temporary directory that is removed afterwards. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "insert.h"
#include "tmpdir.h"

/* Print v, or nothing for "unknown" (-1). */
static void print_i64(int64_t v, const char *sep) { if (v >= 0) printf("%lld", (long long)v); fputs(sep, stdout); }
static void print_f(double v, const char *fmt, const char *sep) { if (v >= 0) printf(fmt, v); fputs(sep, stdout); }

/* The result fields, in the contract's order: name, and how to print it. */
enum kind { K_STR, K_I64, K_F1, K_F3, K_F4, K_F0 };
typedef struct field { const char *name; enum kind kind; const void *p; } field;

/* Fill f with the run's fields; returns how many. */
static int result_fields(field *f, const idb_insert_config *c, const idb_insert_result *r,
                         const long long *shards, const long long *ids, const long long *batch,
                         const long long *key_bytes)
{
    field all[] = {
        { "strategy", K_STR, c->strategy->name }, { "store", K_STR, c->store->name },
        { "shards", K_I64, shards }, { "ids", K_I64, ids }, { "key_bytes", K_I64, key_bytes },
        { "batch", K_I64, batch }, { "seconds", K_F3, &r->seconds },
        { "gen_ns_per_id", K_F1, &r->gen_ns_per_id }, { "inserts_per_s", K_F0, &r->inserts_per_s },
        { "lat_p50_ns", K_I64, &r->lat_p50_ns }, { "lat_p99_ns", K_I64, &r->lat_p99_ns },
        { "lat_p999_ns", K_I64, &r->lat_p999_ns }, { "lat_max_ns", K_I64, &r->lat_max_ns },
        { "commit_p99_ns", K_I64, &r->commit_p99_ns }, { "leaf_pages", K_I64, &r->st.leaf_pages },
        { "depth", K_I64, &r->st.depth }, { "fill_factor", K_F4, &r->st.fill_factor },
        { "file_bytes", K_I64, &r->st.file_bytes }, { "pages_written", K_I64, &r->st.pages_written },
        { "write_bytes_per_id", K_F1, &r->write_bytes_per_id },
        { "cache_misses", K_I64, &r->st.cache_misses },
        { "tail_insert_frac", K_F4, &r->tail_insert_frac },
        { "insert_pos_p50", K_F4, &r->insert_pos_p50 },
    };
    memcpy(f, all, sizeof all);
    return (int)(sizeof all / sizeof *all);
}

/* One field's value; JSON quotes strings and prints unknown values as null. */
static void print_value(const field *f, int json, const char *sep)
{
    static const char *fmts[] = { [K_F0] = "%.0f", [K_F1] = "%.1f", [K_F3] = "%.3f", [K_F4] = "%.4f" };
    if (f->kind == K_STR) { printf(json ? "\"%s\"%s" : "%s%s", (const char *)f->p, sep); return; }
    int64_t iv = f->kind == K_I64 ? *(const int64_t *)f->p : 0;
    double dv = f->kind == K_I64 ? 0 : *(const double *)f->p;
    if (json && ((f->kind == K_I64 && iv < 0) || (f->kind != K_I64 && dv < 0))) { printf("null%s", sep); return; }
    if (f->kind == K_I64) print_i64(iv, sep); else print_f(dv, fmts[f->kind], sep);
}

/* The whole result: CSV header + row, or one JSON object; store options follow. */
static void print_result(const idb_insert_config *c, const idb_insert_result *r, int json)
{
    long long shards = c->shards, ids = c->ids, batch = c->batch, kb = r->key_bytes;
    field f[32];
    int n = result_fields(f, c, r, &shards, &ids, &batch, &kb);
    const idb_opts *o = &r->store_opts;
    if (json) {
        printf("{");
        for (int i = 0; i < n; i++) { printf("\"%s\": ", f[i].name); print_value(&f[i], 1, i + 1 < n || o->n ? ", " : ""); }
        for (int i = 0; i < o->n; i++) {
            if (o->v[i].decl->type == IDB_OPT_INT) printf("\"%s\": %s", o->v[i].decl->name, o->v[i].text);
            else printf("\"%s\": \"%s\"", o->v[i].decl->name, o->v[i].text);
            fputs(i + 1 < o->n ? ", " : "", stdout);
        }
        printf("}\n");
        return;
    }
    for (int i = 0; i < n; i++) printf("%s%s", f[i].name, i + 1 < n || o->n ? "," : "\n");
    for (int i = 0; i < o->n; i++) printf("%s%s", o->v[i].decl->name, i + 1 < o->n ? "," : "\n");
    for (int i = 0; i < n; i++) print_value(&f[i], 0, i + 1 < n || o->n ? "," : "\n");
    for (int i = 0; i < o->n; i++) printf("%s%s", o->v[i].text, i + 1 < o->n ? "," : "\n");
}

/* The curve: strategy, store, cache_pages, misses_per_insert, writes_per_insert. */
static void print_curve(const idb_insert_config *c, const idb_insert_result *r, int json)
{
    if (!json) printf("strategy,store,cache_pages,misses_per_insert,writes_per_insert\n");
    for (int i = 0; i < c->n_curve; i++) {
        const idb_curve_point *p = &r->curve[i];
        printf(json ? "{\"strategy\": \"%s\", \"store\": \"%s\", \"cache_pages\": %lld, "
                      "\"misses_per_insert\": %.6f, \"writes_per_insert\": %.6f}\n"
                    : "%s,%s,%lld,%.6f,%.6f\n",
               c->strategy->name, c->store->name, (long long)p->cache_pages,
               p->misses_per_insert, p->writes_per_insert);
    }
}

/* Parse "P1,P2,..." into cache sizes (each >= 1). Returns 0 or 2 after an error line. */
static int parse_curve(const char *s, int64_t *out, int *n)
{
    char buf[1024];
    if (strlen(s) >= sizeof buf) return cli_fail(IDB_EINPUT, "--curve: list too long");
    strcpy(buf, s);
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long long v;
        if (*n == 64) return cli_fail(IDB_EINPUT, "--curve takes at most 64 cache sizes");
        int rc = cli_parse_count("--curve", tok, 1, 1LL << 40, &v);
        if (rc) return rc;
        out[(*n)++] = v;
    }
    return *n ? 0 : cli_fail(IDB_EINPUT, "--curve needs at least one cache size");
}

int cmd_insert(int argc, char **argv)
{
    enum { O_STORE = 256, O_STRATEGY, O_BATCH, O_SHARDS, O_SHOPS, O_DIR, O_SEED, O_FORMAT, O_CURVE };
    static const struct option longopts[] = {
        { "store", required_argument, 0, O_STORE }, { "strategy", required_argument, 0, O_STRATEGY },
        { "batch", required_argument, 0, O_BATCH }, { "shards", required_argument, 0, O_SHARDS },
        { "shops", required_argument, 0, O_SHOPS }, { "dir", required_argument, 0, O_DIR },
        { "seed", required_argument, 0, O_SEED }, { "format", required_argument, 0, O_FORMAT },
        { "curve", required_argument, 0, O_CURVE }, { 0 },
    };
    idb_insert_config cfg = { .batch = 1000, .shards = 1, .shops = 1000, .shop_skew = 1.0, .seed = 1 };
    const char *store = NULL, *strategy = NULL, *dir = NULL, *format = "csv";
    long long v = 0, ids = 0;
    int64_t curve[64];
    int c, rc;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "n:o:s:", longopts, NULL)) != -1) {
        switch (c) {
        case O_STORE: store = optarg; break;
        case O_STRATEGY: strategy = optarg; break;
        case O_DIR: dir = optarg; break;
        case O_FORMAT: format = optarg; break;
        case 'n': if ((rc = cli_parse_count("-n", optarg, 1, 1LL << 34, &ids))) return rc; break;
        case O_BATCH: if ((rc = cli_parse_count("--batch", optarg, 1, 1 << 24, &v))) return rc; cfg.batch = (int)v; break;
        case O_SHARDS: if ((rc = cli_parse_count("--shards", optarg, 1, 1024, &v))) return rc; cfg.shards = (int)v; break;
        case O_SHOPS: if ((rc = cli_parse_count("--shops", optarg, 1, 1 << 24, &v))) return rc; cfg.shops = (int)v; break;
        case O_SEED: if ((rc = cli_parse_count("--seed", optarg, 0, INT64_MAX, &v))) return rc; cfg.seed = (uint64_t)v; break;
        case O_CURVE: if ((rc = parse_curve(optarg, curve, &cfg.n_curve))) return rc; cfg.curve_cache_pages = curve; break;
        case 'o':
            if (cfg.n_strategy_kv == IDB_INSERT_MAX_KV) return cli_fail(IDB_EINPUT, "too many -o options");
            cfg.strategy_kv[cfg.n_strategy_kv++] = optarg; break;
        case 's':
            if (cfg.n_store_kv == IDB_INSERT_MAX_KV) return cli_fail(IDB_EINPUT, "too many -s options");
            cfg.store_kv[cfg.n_store_kv++] = optarg; break;
        default: return cli_usage("insert", "insert: unknown flag or missing value '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc) return cli_usage("insert", "insert: unexpected argument '%s'", argv[optind]);
    if (!store || !strategy || !ids) return cli_usage("insert", "insert needs --store, --strategy and -n");
    if (strcmp(format, "csv") != 0 && strcmp(format, "json") != 0)
        return cli_fail(IDB_EINPUT, "--format: '%s' is not csv or json", format);
    if (!(cfg.store = idb_store_find(store))) return cli_fail(IDB_EINPUT, "unknown store '%s' (stores: sqlite, lmdb, pagesim, null)", store);
    if (!(cfg.strategy = idb_strategy_find(strategy))) return cli_fail(IDB_EINPUT, "unknown strategy '%s' (see idbench list)", strategy);
    if (cfg.n_curve && !cfg.store->curve) return cli_fail(IDB_EINPUT, "--curve needs a store with a miss-ratio curve (pagesim), not %s", store);
    cfg.ids = ids;

    char tmp[256] = "";
    if (!dir) {
        if (idb_tmpdir_make(tmp, sizeof tmp) != 0) return cli_fail(IDB_EIO, "cannot create a temporary directory");
        dir = tmp;
    }
    cfg.dir = dir;
    idb_insert_result *res = malloc(sizeof *res);
    idb_err err = { 0 };
    rc = res ? idb_insert_run(&cfg, res, &err) : idb_fail(&err, IDB_ENOMEM, "out of memory");
    if (tmp[0]) idb_tmpdir_remove(tmp);
    if (rc) { free(res); return cli_fail_err(&err); }
    if (cfg.n_curve) print_curve(&cfg, res, format[0] == 'j');
    else print_result(&cfg, res, format[0] == 'j');
    free(res);
    return fflush(stdout) == 0 ? 0 : cli_fail(IDB_EIO, "cannot write the result to stdout");
}
