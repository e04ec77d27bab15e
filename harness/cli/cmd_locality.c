/* cmd_locality.c — `idbench locality [-n N] [--seed N] [--out DIR]`: the index-locality
 * argument in one command. Runs one measured insert run (insert.h) per store and strategy —
 * counter, counter padded to 16 bytes (width apart from order), uuidv7, snowflake, uuidv4 on
 * sqlite, lmdb and pagesim, each store with a cache of CACHE_PAGES pages so that the random
 * keys' index outgrows it — one after the other (never two at once: their times are
 * compared), each in a private temporary directory removed after it. Then prints the table
 * and two sentences (loc_summary.h) on stdout and writes DIR/locality.csv and
 * DIR/locality.png (DIR: results/locality by default, made when missing; only those two files
 * are written in it). Progress goes to stderr.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "insert.h"
#include "loc_summary.h"
#include "metrics.h"
#include "tmpdir.h"

#define IDS_DEFAULT 100000
#define IDS_MAX (1LL << 30)
#define CACHE_PAGES "cache_pages=500"    /* 2 MB of 4 KiB pages: uuidv4's index outgrows it */
#define PAD "key_bytes=16"               /* counter at uuidv4's width */
#define OUT_DEFAULT "results/locality"
#define PATH_CHARS 512

/* The stores, with the store options each run gets. */
static const struct { const char *store; const char *opt; } stores[] = {
    { "sqlite", CACHE_PAGES }, { "lmdb", NULL }, { "pagesim", CACHE_PAGES },
};
/* The strategies, in table order; padded ones get PAD. */
static const struct { const char *strategy; int padded; } strategies[] = {
    { "counter", 0 }, { "counter", 1 }, { "uuidv7", 0 }, { "snowflake", 0 }, { "uuidv4", 0 },
};
#define N_STORES ((int)(sizeof stores / sizeof *stores))
#define N_STRATEGIES ((int)(sizeof strategies / sizeof *strategies))
#define N_RUNS (N_STORES * N_STRATEGIES)

/* --out DIR: refused when it is a symlink or not a directory; made (with results/ for the
 * default) when missing. Returns 0 or the exit status after an error line. */
static int out_dir(const char *dir, int is_default)
{
    struct stat sb;
    if (is_default && mkdir("results", 0777) != 0 && errno != EEXIST)
        return cli_fail(IDB_EIO, "cannot create results/: %s", strerror(errno));
    if (lstat(dir, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode))
            return cli_fail(IDB_EINPUT, "--out %s: exists and is not a directory%s", dir,
                            S_ISLNK(sb.st_mode) ? " (a symlink)" : "");
        return 0;
    }
    if (errno != ENOENT) return cli_fail(IDB_EINPUT, "--out %s: %s", dir, strerror(errno));
    if (mkdir(dir, 0777) != 0)
        return cli_fail(IDB_EINPUT, "--out %s: cannot create: %s", dir, strerror(errno));
    return 0;
}

/* One run of row's store and strategy into row. Returns 0 or the exit status after an
 * error line. */
static int run_one(int k, long long ids, unsigned long long seed, mx_loc_row *row)
{
    int s = k / N_STRATEGIES, g = k % N_STRATEGIES;
    idb_insert_config cfg = { .ids = ids, .batch = 1000, .shards = 1, .shops = 1000,
                              .shop_skew = 1.0, .seed = seed };
    cfg.store = idb_store_find(stores[s].store);
    cfg.strategy = idb_strategy_find(strategies[g].strategy);
    if (!cfg.store || !cfg.strategy) return cli_fail(IDB_EIO, "locality: %s or %s is not built in",
                                                     stores[s].store, strategies[g].strategy);
    if (stores[s].opt) cfg.store_kv[cfg.n_store_kv++] = stores[s].opt;
    if (strategies[g].padded) cfg.store_kv[cfg.n_store_kv++] = PAD;
    char tmp[PATH_CHARS], dir[PATH_CHARS + 8];
    if (idb_tmpdir_make(tmp, sizeof tmp) != 0)
        return cli_fail(IDB_EIO, "cannot create a temporary directory: %s", strerror(errno));
    snprintf(dir, sizeof dir, "%s/run", tmp);
    cfg.dir = dir;
    idb_err err = { 0 };
    idb_insert_result *r = malloc(sizeof *r);
    int64_t t0 = idb_mono_ns();
    int rc = r ? idb_insert_run(&cfg, r, &err) : idb_fail(&err, IDB_ENOMEM, "out of memory");
    idb_tmpdir_remove(tmp);
    if (rc) { free(r); return cli_fail(err.code, "locality: %s %s: %s", stores[s].store,
                                       strategies[g].strategy, err.msg); }
    *row = (mx_loc_row){
        .store = stores[s].store, .strategy = strategies[g].strategy, .key_bytes = r->key_bytes,
        .padded = strategies[g].padded, .ids = ids, .pages_written = (double)r->st.pages_written,
        .fill = r->st.fill_factor, .tail = r->tail_insert_frac,
        .misses = r->st.cache_misses >= 0 ? (double)r->st.cache_misses : -1,
        .inserts_per_s = r->inserts_per_s > 0 ? r->inserts_per_s : -1,
    };
    fprintf(stderr, "locality: %2d/%d %-8s %-15s %6.1f s\n", k + 1, N_RUNS, stores[s].store,
            strategies[g].padded ? "counter (16 B)" : strategies[g].strategy,
            (double)(idb_mono_ns() - t0) * 1e-9);
    free(r);
    return 0;
}

/* idbench locality: every run, then the table, the sentences, the CSV and the plot. */
int cmd_locality(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "seed", required_argument, 0, 'S' }, { "out", required_argument, 0, 'O' }, { 0 },
    };
    long long ids = IDS_DEFAULT, seed = 1;
    const char *out = NULL;
    int c, rc = 0;
    optind = 0;
    opterr = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, "n:", longopts, NULL)) != -1) {
        if (c == 'n') rc = cli_parse_count("-n", optarg, 1000, IDS_MAX, &ids);
        else if (c == 'S') rc = cli_parse_count("--seed", optarg, 0, INT64_MAX, &seed);
        else if (c == 'O') out = optarg;
        else return cli_usage("locality", "locality: unknown flag or missing value '%s'",
                              argv[optind - 1]);
    }
    if (rc) return rc;
    if (optind != argc)
        return cli_usage("locality", "locality: unexpected argument '%s'", argv[optind]);
    if ((rc = out_dir(out ? out : OUT_DEFAULT, !out))) return rc;
    if (!out) out = OUT_DEFAULT;

    fprintf(stderr, "locality: %lld rows per run, %d runs one after another; sqlite and "
                    "pagesim with %s, lmdb through the OS page cache\n", ids, N_RUNS, CACHE_PAGES);
    static mx_loc_row rows[N_RUNS];
    for (int k = 0; k < N_RUNS; k++)
        if ((rc = run_one(k, ids, (unsigned long long)seed, &rows[k]))) return rc;

    char csv[PATH_CHARS + 16], png[PATH_CHARS + 16], prose[2048];
    snprintf(csv, sizeof csv, "%s/locality.csv", out);
    snprintf(png, sizeof png, "%s/locality.png", out);
    idb_err err = { 0 };
    if (mx_loc_write_csv(csv, rows, N_RUNS, &err) != 0) return cli_fail_err(&err);
    if (mx_loc_plot(png, rows, N_RUNS, &err) != 0) return cli_fail_err(&err);
    mx_loc_print(stdout, rows, N_RUNS);
    mx_loc_sentences(rows, N_RUNS, prose, sizeof prose);
    printf("\n%s\nfigures: %s\nplot:    %s\n", prose, csv, png);
    return 0;
}
