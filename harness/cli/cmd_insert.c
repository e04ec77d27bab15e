/* cmd_insert.c — idbench insert: one insert run (insert.c), printed as CSV or JSON, or
 * its miss-ratio curve with --curve. Results go to stdout only after the run finished,
 * so a failed run prints no partial result. Every option is checked before any file is
 * made; a run that fails later leaves --dir as it found it (a --dir that did not exist is
 * made, and removed again on failure). Without --dir the stores live in a private
 * temporary directory that is removed afterwards, and also when SIGINT, SIGTERM, SIGHUP or SIGPIPE
 * stop the run (idb_tmpdir_make registers it: see tmpdir.h). With --dir the run also leaves
 * DIR/insert-STORE.rec, the record `idbench read` looks rows up from (runner/readrec.h).
 * --then STRATEGY:N adds a second phase into the same tables (insert_then.c), printed as a
 * second row (phase = then). */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fields.h"
#include "insert.h"
#include "keys.h"
#include "metrics.h"
#include "openloop.h"
#include "tmpdir.h"
#include "waits.h"

/* The cache sizes --curve can ask for: as many as a result holds. */
#define CURVE_MAX ((int)(sizeof ((idb_insert_result *)NULL)->curve / sizeof (idb_curve_point)))
#define CURVE_TEXT_MAX 1024             /* longest --curve list, NUL included */
#define CURVE_PAGES_MAX (1LL << 40)     /* largest cache size in the curve, in pages */
#define IDS_MAX (1LL << 34)             /* -n */
#define BATCH_MAX (1 << 24)             /* --batch */
#define SHARDS_MAX 1024                 /* --shards */
#define SHOPS_MAX (1 << 24)             /* --shops */
#define CLIENTS_MAX 256                 /* --clients: writers per shard */
#define BATCH_DEFAULT 1000
#define SHOPS_DEFAULT 1000
#define FAULT_RESTART_MS_DEFAULT 200
#define FAULT_LAG_MS_DEFAULT 500       /* failover-lagged: orders the replicas miss */
#define FAULT_RESTART_MS_MAX 3600000     /* an hour */
#define FAULT_PAUSE_MS_DEFAULT 3000      /* pause-worker: above the default lease_ms */
#define FIELDS_MAX 96                   /* room for result_fields */
#define TMPDIR_CHARS 256                /* the private temporary directory's path */

typedef cli_field field;            /* the writers: fields.h */

/* Fill f (room for FIELDS_MAX) with the run's fields; returns how many. */
static int result_fields(field *f, const idb_insert_config *c, const idb_insert_result *r,
                         const long long *shards, const long long *ids, const long long *batch,
                         const long long *key_bytes)
{
    const char *strategy = r->phase ? c->then_strategy->name : c->strategy->name;
    field all[] = {
        { "strategy", K_STR, strategy }, { "store", K_STR, c->store->name },
        { "shards", K_I64, shards }, { "ids", K_I64, ids }, { "key_bytes", K_I64, key_bytes },
        { "batch", K_I64, batch }, { "seconds", K_F3, &r->seconds },
        { "gen_ns_per_id", K_F1, &r->gen_ns_per_id },
        { "inserts_per_s", K_F0, &r->inserts_per_s },
        { "lat_p50_ns", K_I64, &r->lat_p50_ns }, { "lat_p99_ns", K_I64, &r->lat_p99_ns },
        { "lat_p999_ns", K_I64, &r->lat_p999_ns }, { "lat_max_ns", K_I64, &r->lat_max_ns },
        { "commit_p99_ns", K_I64, &r->commit_p99_ns },
        { "leaf_pages", K_I64, &r->st.leaf_pages },
        { "depth", K_I64, &r->st.depth }, { "fill_factor", K_F4, &r->st.fill_factor },
        { "file_bytes", K_I64, &r->st.file_bytes },
        { "pages_written", K_I64, &r->st.pages_written },
        { "write_bytes_per_id", K_F1, &r->write_bytes_per_id },
        { "cache_misses", K_I64, &r->st.cache_misses },
        { "tail_insert_frac", K_F4, &r->tail_insert_frac },
        { "insert_pos_p50", K_F4, &r->insert_pos_p50 },
        { "checkpoint_pages", K_I64, &r->st.checkpoint_pages },
        { "wal_frames", K_I64, &r->st.wal_frames },
        { "read_pages", K_I64, &r->st.read_pages },
        { "order_breaks", K_I64, &r->order_breaks },
        { "rate_per_s", K_F0, &r->rate_per_s }, { "achieved_per_s", K_F0, &r->achieved_per_s },
        { "order_lat_p50_ns", K_I64, &r->order_lat_p50_ns },
        { "order_lat_p99_ns", K_I64, &r->order_lat_p99_ns },
        { "order_lat_p999_ns", K_I64, &r->order_lat_p999_ns },
        { "order_lat_max_ns", K_I64, &r->order_lat_max_ns },
        { "wal_bytes_per_id", K_F1, &r->wal_bytes_per_id },
        { "fpi_per_id", K_F4, &r->fpi_per_id }, { "splits_per_id", K_F4, &r->splits_per_id },
        { "leaf_fragmentation", K_F4, &r->st.leaf_fragmentation },
        { "index_bytes", K_I64, &r->st.index_bytes },
        { "table_bytes", K_I64, &r->st.table_bytes },
        { "modelled_device_s", K_F3, &r->modelled_device_s },
        { "modelled_inserts_per_s", K_F0, &r->modelled_inserts_per_s },
        { "failed_orders", K_I64, &r->failed_orders },
        { "duplicate_ids", K_I64, &r->duplicate_ids },
        { "duplicate_rows", K_I64, &r->duplicate_rows },
        { "extend_pages", K_I64, &r->st.extend_pages },
        { "autovacuum_runs", K_I64, &r->st.autovacuum_runs },
        { "wal_bytes", K_I64, &r->st.wal_bytes }, { "fpi", K_I64, &r->st.fpi },
        { "client_write_bytes_per_id", K_F1, &r->client_write_bytes_per_id },
        { "clients", K_I64, &r->clients }, { "wait_share", K_F4, &r->wait_share },
        { "wait_ns_per_order", K_F1, &r->wait_ns_per_order },
        { "failed_txns", K_I64, &r->failed_txns }, { "retries", K_I64, &r->retries },
        { "counter_down_ms", K_F1, &r->counter_down_ms },
        { "wait_share_none", K_F4, &r->wait_share_none },
        { "server_cpu_ns_per_order", K_F1, &r->server_cpu_ns_per_order },
        { "backend_shares", K_LIST, r->backend_shares },
        { "hot_share", K_F4, &r->hot_share },
        { "hot_share_window_max", K_F4, &r->hot_share_window_max },
        { "backend_pages_written_sum", K_I64, &r->backend_pages_written_sum },
        { "backend_pages_written_max", K_I64, &r->backend_pages_written_max },
        { "backend_cache_misses_sum", K_I64, &r->backend_cache_misses_sum },
        { "backend_cache_misses_max", K_I64, &r->backend_cache_misses_max },
        { "backend_cpu_s", K_LIST, r->backend_cpu_s }, { "head_cpu_s", K_F3, &r->head_cpu_s },
        { "worker_pause_ms", K_F1, &r->worker_pause_ms },
        { "lost_ids", K_I64, &r->lost_ids }, { "failover_ms", K_F1, &r->failover_ms },
        { "phase", K_STR, r->phase ? "then" : "main" },
        { "first_strategy", K_STR, r->phase ? c->strategy->name : "" },
        { "index_growth_pages", K_I64, &r->index_growth_pages },
        { "index_growth_bytes", K_I64, &r->index_growth_bytes },
        { "leaf_fill_touched", K_F4, &r->leaf_fill_touched },
        { "id_bytes", K_I64, &r->id_bytes }, { "rows_held", K_I64, &r->rows_held },
        { "bytes_per_row_table", K_F1, &r->bytes_per_row_table },
        { "bytes_per_row_id_index", K_F1, &r->bytes_per_row_id_index },
        { "bytes_per_row_secondary", K_F1, &r->bytes_per_row_secondary },
        { "bytes_per_row", K_F1, &r->bytes_per_row },
    };
    _Static_assert(sizeof all / sizeof *all + IDB_WAIT_CLASSES <= FIELDS_MAX,
                   "FIELDS_MAX is too small");
    memcpy(f, all, sizeof all);
    int n = (int)(sizeof all / sizeof *all);
    for (int c = 0; c < IDB_WAIT_CLASSES; c++)      /* wait_share_<what> (waits.h) */
        f[n++] = (field){ idb_wait_columns[c], K_F4, &r->wait_share_by[c] };
    return n;
}

/* The whole result: CSV header + row, or one JSON object; store options follow. With
 * --then, a second row (object): the second phase's (phase then), its ids its own. */
static void print_result(const idb_insert_config *c, const idb_insert_result *r,
                         const idb_insert_result *then, int json)
{
    long long shards = c->shards, ids = c->ids, batch = c->batch, kb = r->key_bytes;
    field f[FIELDS_MAX];
    int n = result_fields(f, c, r, &shards, &ids, &batch, &kb);
    cli_print_fields(f, n, &r->store_opts, json);
    if (!c->then_strategy) return;
    long long then_ids = c->then_ids;
    n = result_fields(f, c, then, &shards, &then_ids, &batch, &kb);
    cli_print_values(f, n, &then->store_opts, json);
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

/* Parse "P1,P2,..." into cache sizes (each a whole number >= 1; an empty entry, as in
 * "1,,2" or "1,", is refused). Returns 0 or 2 after an error line. */
static int parse_curve(const char *s, int64_t *out, int *n)
{
    char buf[CURVE_TEXT_MAX];
    if (strlen(s) >= sizeof buf) return cli_fail(IDB_EINPUT, "--curve: list too long");
    strcpy(buf, s);
    *n = 0;
    char *rest = buf;
    for (char *tok; (tok = strsep(&rest, ",")) != NULL;) {   /* "1,,2": an empty entry */
        long long v;
        if (!*tok) return cli_fail(IDB_EINPUT, "--curve '%s': an empty entry", s);
        if (*n == CURVE_MAX)
            return cli_fail(IDB_EINPUT, "--curve takes at most %d cache sizes", CURVE_MAX);
        int rc = cli_parse_count("--curve", tok, 1, CURVE_PAGES_MAX, &v);
        if (rc) return rc;
        out[(*n)++] = v;
    }
    return *n ? 0 : cli_fail(IDB_EINPUT, "--curve needs at least one cache size");
}

/* Everything insert's command line says: the run's configuration and the names in it. */
typedef struct insert_args {
    idb_insert_config cfg;
    const char *store, *strategy, *dir, *format;
    long long ids;
    int arrivals_set;                   /* --arrivals given (it needs --rate) */
    int64_t curve[CURVE_MAX];           /* cfg.curve_cache_pages points here */
} insert_args;

/* -o KEY=VALUE (c 'o', for the strategy) or -s KEY=VALUE (for the store) into a->cfg.
 * Returns 0 or 2 after an error line. */
static int add_kv(insert_args *a, int c, const char *kv)
{
    const char **list = c == 'o' ? a->cfg.strategy_kv : a->cfg.store_kv;
    int *n = c == 'o' ? &a->cfg.n_strategy_kv : &a->cfg.n_store_kv;
    if (*n == IDB_INSERT_MAX_KV) return cli_fail(IDB_EINPUT, "too many -%c options", c);
    list[(*n)++] = kv;
    return 0;
}

/* The long flags' codes (getopt_long's val), above every short flag's character. */
enum { O_STORE = 256, O_STRATEGY, O_BATCH, O_SHARDS, O_SHOPS, O_DIR, O_SEED, O_FORMAT,
       O_CURVE, O_RATE, O_ARRIVALS, O_COMMIT_MS, O_WINDOW, O_SERIES, O_FAULT, O_CLIENTS,
       O_THEN };

/* --then STRATEGY:N into cfg (the strategy by name, N a count). 0 or 2 after an error line. */
static int parse_then(idb_insert_config *cfg, const char *text)
{
    const char *colon = strrchr(text, ':');
    char name[64];
    if (!colon || colon == text || (size_t)(colon - text) >= sizeof name)
        return cli_fail(IDB_EINPUT, "--then: '%s' is not STRATEGY:N", text);
    memcpy(name, text, (size_t)(colon - text));
    name[colon - text] = 0;
    if (!(cfg->then_strategy = idb_strategy_find(name)))
        return cli_fail(IDB_EINPUT, "--then: unknown strategy '%s' (see idbench list)", name);
    return cli_parse_count("--then STRATEGY:N", colon + 1, 1, IDS_MAX, &cfg->then_ids);
}

/* The faults of --fault NAME@N[:ARG] (exactly these spellings: the matrix and outside
 * scripts use them): N goes to the config's int64_t at `at`, ARG (arg_default when absent;
 * none when arg is NULL) to its int at `arg_off`. A new fault is a row here, its fields in
 * insert.h and its checks in insert_check.c. */
static const struct fault_kind {
    const char *name;                   /* before the '@' */
    const char *arg;                    /* ARG's name in messages, NULL: takes none */
    long long arg_default, arg_max;
    size_t at, arg_off;
} faults[] = {
    { "kill-counter", "RESTART_MS", FAULT_RESTART_MS_DEFAULT, FAULT_RESTART_MS_MAX,
      offsetof(idb_insert_config, kill_counter_at), offsetof(idb_insert_config, kill_restart_ms) },
    { "pause-worker", "MS", FAULT_PAUSE_MS_DEFAULT, FAULT_RESTART_MS_MAX,
      offsetof(idb_insert_config, pause_worker_at), offsetof(idb_insert_config, pause_worker_ms) },
    { "join-node", NULL, 0, 0, offsetof(idb_insert_config, join_node_at), 0 },
    { "failover-counter", "DETECT_MS", FAULT_RESTART_MS_DEFAULT, FAULT_RESTART_MS_MAX,
      offsetof(idb_insert_config, failover_counter_at),
      offsetof(idb_insert_config, failover_detect_ms) },
    { "failover-lagged", "LAG_MS", FAULT_LAG_MS_DEFAULT, FAULT_RESTART_MS_MAX,
      offsetof(idb_insert_config, failover_lag_at),
      offsetof(idb_insert_config, failover_lag_ms) },
};

/* "NAME@N[:ARG]" forms of the table, for messages. */
static void fault_forms(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof faults / sizeof faults[0] && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s@N%s%s%s", i ? ", " : "",
                                 faults[i].name, faults[i].arg ? "[:" : "",
                                 faults[i].arg ? faults[i].arg : "", faults[i].arg ? "]" : "");
}

/* --fault NAME@N[:ARG] into cfg (one fault per run). Returns 0 or 2 after an error line. */
static int parse_fault(idb_insert_config *cfg, const char *text)
{
    const struct fault_kind *f = NULL;
    size_t pre = 0;
    for (size_t i = 0; i < sizeof faults / sizeof faults[0] && !f; i++) {
        pre = strlen(faults[i].name);
        if (!strncmp(text, faults[i].name, pre) && text[pre] == '@') f = &faults[i];
    }
    char forms[256], num[32], flag[96];
    if (!f) {
        fault_forms(forms, sizeof forms);
        return cli_fail(IDB_EINPUT, "--fault: '%s' is not one of %s", text, forms);
    }
    pre++;                                          /* the '@' */
    const char *colon = strchr(text + pre, ':');
    if (colon && !f->arg)
        return cli_fail(IDB_EINPUT, "--fault %s@N takes no ':' part: '%s'", f->name, text);
    size_t len = colon ? (size_t)(colon - text - pre) : strlen(text + pre);
    if (len >= sizeof num) return cli_fail(IDB_EINPUT, "--fault: '%s': N is too long", text);
    memcpy(num, text + pre, len);
    num[len] = 0;
    long long n, arg = f->arg_default;
    snprintf(flag, sizeof flag, "--fault %s@N", f->name);
    int rc = cli_parse_count(flag, num, 1, IDS_MAX, &n);
    snprintf(flag, sizeof flag, "--fault %s@N:%s", f->name, f->arg ? f->arg : "");
    if (!rc && colon) rc = cli_parse_count(flag, colon + 1, 0, f->arg_max, &arg);
    if (rc) return rc;
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        if (*(const int64_t *)((const char *)cfg + faults[i].at))
            return cli_fail(IDB_EINPUT, "--fault: one fault per run");
    *(int64_t *)((char *)cfg + f->at) = n;
    if (f->arg) *(int *)((char *)cfg + f->arg_off) = (int)arg;
    return 0;
}

/* --rate R, --arrivals KIND or --commit-ms T (c is its O_ code) into a->cfg: R and T
 * finite positive decimals (no hex, inf or nan). Returns 0 or 2 after an error line. */
static int open_flag(insert_args *a, int c, const char *text)
{
    static const struct { int code; const char *flag; size_t off; } nums[] = {
        { O_RATE, "--rate", offsetof(idb_insert_config, rate) },
        { O_COMMIT_MS, "--commit-ms", offsetof(idb_insert_config, commit_ms) },
    };
    idb_err err = { 0 };
    if (c == O_ARRIVALS) {
        a->arrivals_set = 1;
        return idb_arrivals_parse(text, &a->cfg.arrivals, &err) ? cli_fail_err(&err) : 0;
    }
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
        double v;
        if (nums[i].code != c) continue;
        if (idb_parse_double(text, &v) != 0 || !(v > 0))
            return cli_fail(IDB_EINPUT, "%s: '%s' is not a positive number", nums[i].flag, text);
        memcpy((char *)&a->cfg + nums[i].off, &v, sizeof v);
    }
    return 0;
}

/* Read insert's flags into *a (which the caller zeroed). Returns 0, or the exit status after
 * printing an error. */
static int parse_insert_flags(int argc, char **argv, insert_args *a)
{
    static const struct option longopts[] = {
        { "store", required_argument, 0, O_STORE },
        { "strategy", required_argument, 0, O_STRATEGY },
        { "batch", required_argument, 0, O_BATCH }, { "shards", required_argument, 0, O_SHARDS },
        { "shops", required_argument, 0, O_SHOPS }, { "dir", required_argument, 0, O_DIR },
        { "seed", required_argument, 0, O_SEED }, { "format", required_argument, 0, O_FORMAT },
        { "curve", required_argument, 0, O_CURVE }, { "rate", required_argument, 0, O_RATE },
        { "arrivals", required_argument, 0, O_ARRIVALS },
        { "commit-ms", required_argument, 0, O_COMMIT_MS },
        { "window", required_argument, 0, O_WINDOW }, { "series", required_argument, 0, O_SERIES },
        { "fault", required_argument, 0, O_FAULT },
        { "clients", required_argument, 0, O_CLIENTS },
        { "then", required_argument, 0, O_THEN }, { 0 },
    };
    idb_insert_config *cfg = &a->cfg;
    long long v = 0;
    int c, rc = 0;
    optind = 0;
    opterr = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, "n:o:s:", longopts, NULL)) != -1) {
        switch (c) {
        case O_STORE: a->store = optarg; break;
        case O_STRATEGY: a->strategy = optarg; break;
        case O_DIR: a->dir = optarg; break;
        case O_FORMAT: a->format = optarg; break;
        case 'n': rc = cli_parse_count("-n", optarg, 1, IDS_MAX, &a->ids); break;
        case O_BATCH:
            if (!(rc = cli_parse_count("--batch", optarg, 1, BATCH_MAX, &v))) cfg->batch = (int)v;
            break;
        case O_SHARDS:
            if (!(rc = cli_parse_count("--shards", optarg, 1, SHARDS_MAX, &v)))
                cfg->shards = (int)v;
            break;
        case O_CLIENTS:
            if (!(rc = cli_parse_count("--clients", optarg, 1, CLIENTS_MAX, &v)))
                cfg->clients = (int)v;
            break;
        case O_SHOPS:
            if (!(rc = cli_parse_count("--shops", optarg, 1, SHOPS_MAX, &v))) cfg->shops = (int)v;
            break;
        case O_SEED:
            if (!(rc = cli_parse_count("--seed", optarg, 0, INT64_MAX, &v)))
                cfg->seed = (uint64_t)v;
            break;
        case O_CURVE:
            if (!(rc = parse_curve(optarg, a->curve, &cfg->n_curve)))
                cfg->curve_cache_pages = a->curve;
            break;
        case O_RATE: case O_ARRIVALS: case O_COMMIT_MS: rc = open_flag(a, c, optarg); break;
        case O_WINDOW: rc = cli_parse_count("--window", optarg, 1, IDS_MAX, &cfg->window); break;
        case O_SERIES: cfg->series = optarg; break;
        case 'o': case 's': rc = add_kv(a, c, optarg); break;
        case O_FAULT: rc = parse_fault(cfg, optarg); break;
        case O_THEN: rc = parse_then(cfg, optarg); break;
        default:
            return cli_usage("insert", "insert: unknown flag or missing value '%s'",
                             argv[optind - 1]);
        }
    }
    if (rc) return rc;
    if (optind != argc)
        return cli_usage("insert", "insert: unexpected argument '%s'", argv[optind]);
    return 0;
}

/* Check what the flags name (store, strategy, format, curve) and fill cfg's plug-ins.
 * Returns 0, or the exit status after printing an error. */
static int resolve_names(insert_args *a)
{
    idb_insert_config *cfg = &a->cfg;
    if (!a->store || !a->strategy || !a->ids)
        return cli_usage("insert", "insert needs --store, --strategy and -n");
    if (strcmp(a->format, "csv") != 0 && strcmp(a->format, "json") != 0)
        return cli_fail(IDB_EINPUT, "--format: '%s' is not csv or json", a->format);
    if (!(cfg->store = idb_store_find(a->store)))
        return cli_fail(IDB_EINPUT, "unknown store '%s' (stores: sqlite, lmdb, pagesim, null)",
                        a->store);
    if (!(cfg->strategy = idb_strategy_find(a->strategy)))
        return cli_fail(IDB_EINPUT, "unknown strategy '%s' (see idbench list)", a->strategy);
    if (cfg->n_curve && !cfg->store->curve)
        return cli_fail(IDB_EINPUT,
                        "--curve needs a store with a miss-ratio curve (pagesim), not %s",
                        a->store);
    if (a->arrivals_set && !(cfg->rate > 0))
        return cli_fail(IDB_EINPUT, "--arrivals needs --rate (the open loop)");
    cfg->ids = a->ids;
    return 0;
}

/* The progress line on a terminal: shown from PROGRESS_AFTER_NS into the run (tests set
 * IDBENCH_PROGRESS_AFTER_MS), redrawn at most every PROGRESS_EVERY_NS, erased at the end. */
#define PROGRESS_AFTER_NS 2000000000LL
#define PROGRESS_EVERY_NS 250000000LL
typedef struct progress_line { int64_t start, from, next; int shown; } progress_line;

/* insert.h's progress hook: "insert: 45% (90,000 of 200,000 orders), 3.1 s" on stderr. */
static void show_progress(void *ctx, int64_t done, int64_t total)
{
    progress_line *p = ctx;
    int64_t now = idb_mono_ns();
    if (done < total && (now < p->from || now < p->next)) return;
    p->next = now + PROGRESS_EVERY_NS;
    if (done == total) {
        if (p->shown) fputs("\r\033[K", stderr);
        return;
    }
    fprintf(stderr, "\r\033[Kinsert: %3.0f%% (%lld of %lld orders), %.1f s", 100.0 * done / total,
            (long long)done, (long long)total, (double)(now - p->start) / 1e9);
    p->shown = 1;
}

/* idbench insert: parse, run once (in a private temporary directory without --dir), print. */
int cmd_insert(int argc, char **argv)
{
    insert_args a = {
        .cfg = { .batch = BATCH_DEFAULT, .shards = 1, .shops = SHOPS_DEFAULT, .shop_skew = 1.0,
                 .seed = 1 },
        .format = "csv",
    };
    int rc = parse_insert_flags(argc, argv, &a);
    if (rc || (rc = resolve_names(&a))) return rc;
    idb_err err = { 0 };
    a.cfg.dir = a.dir;                 /* checked now when given; else a temporary one */
    if (idb_insert_check(&a.cfg, &err) != 0) return cli_fail_err(&err);

    char tmp[TMPDIR_CHARS] = "";
    if (!a.dir) {
        if (idb_tmpdir_make(tmp, sizeof tmp) != 0)
            return cli_fail(IDB_EIO, "cannot create a temporary directory");
        a.dir = tmp;
    }
    a.cfg.dir = a.dir;
    a.cfg.record = !tmp[0];            /* --dir: leave the record `idbench read` needs */
    const char *after = getenv("IDBENCH_PROGRESS_AFTER_MS");     /* tests: 0 */
    progress_line line = { .start = idb_mono_ns() };
    line.from = line.start + (after ? atoll(after) * 1000000LL : PROGRESS_AFTER_NS);
    if (isatty(STDERR_FILENO)) {
        a.cfg.progress = show_progress;
        a.cfg.progress_ctx = &line;
    }
    idb_insert_result *res = calloc(2, sizeof *res);           /* the run, --then's phase */
    rc = res ? idb_insert_run_then(&a.cfg, res, res + 1, &err)
             : idb_fail(&err, IDB_ENOMEM, "out of memory");
    if (tmp[0]) idb_tmpdir_remove(tmp);
    if (rc) { free(res); return cli_fail_err(&err); }
    if (a.cfg.n_curve) print_curve(&a.cfg, res, a.format[0] == 'j');
    else print_result(&a.cfg, res, res + 1, a.format[0] == 'j');
    free(res);
    return 0;                                     /* main() checks the writes to stdout */
}
