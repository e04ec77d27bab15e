/* matrix.h — `idbench matrix`: one command from a matrix file to a results directory.
 *
 * The pieces, one file each:
 *   matrix_file.c      reads matrix files (ini.h) into an idb_matrix, checks every value
 *   matrix_check.c     mx_finish: [quick] overrides, block inheritance, every run checked
 *   matrix_cells.c     turns the matrix into cells and runs each one isolated (a child
 *                      process per cell, with a time limit), keeping what it measured
 *   matrix_write.c     aggregates repeats (median, min, max) and writes insert.csv,
 *                      openloop.csv, positions.csv, curve.csv, generation.csv, ... (temp
 *                      name + rename)
 *   matrix_progress.c  progress on stderr: a one-line bar with an ETA on a terminal,
 *                      plain log lines otherwise
 *   matrix_meta.c      the environment (meta.json) and reading it back
 *   matrix_csv.c       a small CSV table reader, refusing what is not a CSV file
 *   matrix_results.c   the results tables, loaded once, every value checked
 *   plots.c            the plot table: per plot its name, title, data preparation,
 *                      gnuplot script (plots/NAME.gp) and report sentences
 *   plots_insert.c     the plots of insert.csv and positions.csv (data and sentences)
 *   plots_other.c      the plots of generation.csv, curve.csv, skew.csv, timeline.csv
 *   matrix_plot.c      `idbench plot DIR`: each plot's data, then gnuplot
 *   report.c           report.md from DIR's files
 *   cli/cmd_matrix.c   the two commands: flags, the results directory, the phases
 *
 * Data flows one way: matrix file -> cells -> results files -> plots and report; the plot
 * and the report read only the files in the results directory, so `idbench plot DIR`
 * re-renders them from a finished (or partly finished) run.
 */
#ifndef IDB_MATRIX_H
#define IDB_MATRIX_H

#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "insert.h"
#include "store.h"
#include "strategy.h"

#define MX_LIST_MAX 64           /* entries of one list value */
#define MX_BLOCKS_MAX 16         /* [insert...] (or [curve...], ...) sections of one kind */
#define MX_STORES_MAX 8
#define MX_WORKLOADS_MAX 32
#define MX_RANGE_WORKLOADS 4
#define MX_PATH_MAX 1024
#define MX_KV_MAX 16             /* store options per [store.NAME] section */
#define MX_QUICK_MAX 64          /* [quick] overrides over all files */
#define MX_FILES_MAX 8

#define MX_BLOCK_KEYS_MAX 32     /* keys of a block: bits of mx_block.set */
#define MX_SET_MAX 512           /* a block's store_set text, with its NUL */
#define MX_CELL_SET_MAX MX_SET_MAX   /* what a block's store_set gives one store: shorter */
#define MX_THEN_MAX 80           /* a block's then = STRATEGY:N, with its NUL */
#define MX_CLIENTS_MAX 256       /* a block's clients values, at most (insert --clients) */

/* Where a value was set: files[file] of the matrix, at line (0: a built-in default). */
typedef struct mx_where {
    int file, line;
} mx_where;

/* A cross product of insert runs ([insert] or [insert.NAME]) or of miss-ratio curves
 * ([curve] or [curve.NAME]). Keys a named block does not set come from its base block. */
typedef struct mx_block {
    char name[64];                               /* the section name */
    int enabled;
    const idb_strategy *strategies[MX_LIST_MAX];
    int n_strategies;
    const idb_store *stores[MX_STORES_MAX];
    int n_stores;
    int64_t sizes[MX_LIST_MAX];                  /* IDs per run */
    int n_sizes;
    int64_t shards[MX_LIST_MAX];
    int n_shards;
    int64_t batch, shops;
    int64_t key_bytes;                           /* pad keys to this width; 0 = their own */
    int64_t clients[MX_LIST_MAX];                /* writers per shard (insert --clients);
                                                  * above 1 in [insert...] blocks only */
    int n_clients;
    int64_t repeat;                              /* repeats of the block's runs; 0: [matrix]
                                                  * repeat (at most that many) */
    int64_t cache_pages[MX_LIST_MAX];            /* curve blocks only */
    int n_cache_pages;
    double rates[MX_LIST_MAX];                   /* openloop blocks only: orders/s */
    int n_rates;
    double commit_ms;                            /* openloop blocks only (0: by batch) */
    int64_t window;                              /* series blocks only: inserts per row */
    int64_t series_cache[MX_LIST_MAX];           /* series blocks only: cache_pages values */
    int n_series_cache;
    char store_set[MX_SET_MAX];                  /* STORE.KEY=VALUE, ...: this block's own
                                                  * store options (not inherited) */
    char read_patterns[MX_SET_MAX];              /* read blocks only: uniform, recent:H,
                                                  * mixed:P:H, comma-separated */
    char read_cache[8];                          /* read blocks only: cold or warm */
    int64_t lookups;                             /* read blocks only: -n of each read */
    char then[MX_THEN_MAX];                      /* "STRATEGY:N" (insert --then) or "":
                                                  * [insert...] blocks only, not inherited */
    unsigned set;                                /* bit i: key i of the block table was set */
    mx_where at[MX_BLOCK_KEYS_MAX];              /* where key i was set (or inherited from) */
} mx_block;

/* Options for one store's runs ([store.NAME]): "key=value" strings, checked on reading. */
typedef struct mx_store_opts {
    const idb_store *store;
    char kv[MX_KV_MAX][160];
    mx_where at[MX_KV_MAX];                      /* where each was set */
    int n;
} mx_store_opts;

/* A [quick] override, kept until the files are read: applied only with --quick. */
typedef struct mx_quick {
    char file[MX_PATH_MAX];
    int line;
    char section[64], key[64], value[512];
} mx_quick;

typedef struct idb_matrix {
    /* [matrix] */
    int64_t seed, repeat, cell_timeout_s;
    /* [generation] */
    int gen_enabled;
    double gen_min_time;                         /* --benchmark_min_time, seconds */
    /* [insert...], [curve...] (index 0 is the base block) */
    mx_block insert[MX_BLOCKS_MAX];
    int n_insert;
    mx_block curve[MX_BLOCKS_MAX];
    int n_curve;
    /* [openloop...]: insert runs at offered rates (insert --rate), into openloop.csv */
    mx_block openloop[MX_BLOCKS_MAX];
    int n_openloop;
    /* [series...]: insert runs with --window/--series (series.h), into series.csv; its
     * cache_pages (stores that declare the option) make the index outgrow the cache */
    mx_block series[MX_BLOCKS_MAX];
    int n_series;
    /* [read...]: an insert into the cell's directory, then idbench read once per pattern
     * (matrix_read.c), into read.csv */
    mx_block read[MX_BLOCKS_MAX];
    int n_read;
    /* [store.NAME] */
    mx_store_opts store_opts[MX_STORES_MAX];
    int n_store_opts;
    /* [simulate] */
    int sim_enabled;
    char workloads[MX_WORKLOADS_MAX][MX_PATH_MAX];   /* resolved paths */
    int n_workloads;
    char sim_strategies[512];                    /* --strategies list, "" = the workloads' own */
    char sim_set[1024];                          /* blank-separated SECTION.KEY=VALUE */
    char timeline_workload[MX_PATH_MAX];         /* "" = none */
    char skew_workload[MX_PATH_MAX];             /* "" = no skew sweep */
    double skew_ms[MX_LIST_MAX];
    int n_skew;
    /* [simulate.range]: workloads routed by ID (range-hotspot.ini), into range.csv */
    int range_enabled;
    char range_workloads[MX_RANGE_WORKLOADS][MX_PATH_MAX];   /* resolved paths */
    int n_range_workloads;
    char range_set[1024];                        /* blank-separated SECTION.KEY=VALUE */
    /* [claims] */
    int claims_enabled, claims_quick;
    /* [counterkill]: `idbench insert --strategy counter --fault kill-counter@...` once per
     * entry of kill_runs ("postgres", "redis:DURABILITY"), into counterkill.csv */
    int kill_enabled;
    char kill_store[32];
    int64_t kill_orders, kill_at, kill_restart_ms, kill_timeout_ms;
    char kill_runs[256];                         /* comma-separated BACKEND[:DURABILITY] */
    /* [faults.replicated]: `idbench insert --strategy counter` on a replicated counter
     * server (mx_repl_run's options) with `--fault failover-lagged@LAG_AT:LAG_MS`, once per
     * entry of repl_runs ("postgres:async", "redis:wait1"), into failover.csv */
    int repl_enabled;
    char repl_store[32];
    int64_t repl_orders, repl_lag_at, repl_lag_ms, repl_timeout_ms;
    char repl_runs[256];                         /* comma-separated BACKEND:MODE */

    /* Bookkeeping. */
    int quick;                                   /* --quick given: [quick] applied */
    char files[MX_FILES_MAX][MX_PATH_MAX];       /* the matrix files read, in order */
    int n_files;
    mx_quick quick_over[MX_QUICK_MAX];
    int n_quick;
} idb_matrix;

/* matrix_file.c ------------------------------------------------------------------------ */

/* Fill m with the built-in defaults (the values workloads/matrix.ini documents). */
void mx_defaults(idb_matrix *m);

/* Read the matrix file at path on top of m (later files override earlier ones). Every
 * error is "PATH:LINE: why" (or "PATH: cannot read: why"), code IDB_EINPUT. */
int mx_load_file(idb_matrix *m, const char *path, idb_err *err);

/* The store options of [store.NAME] for s (NULL when none). */
const mx_store_opts *mx_store_options(const idb_matrix *m, const idb_store *s);

/* A block's then text "STRATEGY:N" into *s and *n (1 .. 10^9). Returns 0, or IDB_EINPUT
 * with err (matrix_check.c). "" is no second phase: *s NULL, 0. */
int mx_then_parse(const char *text, const idb_strategy **s, int64_t *n, idb_err *err);

/* The options block b's store_set gives store s, as blank-separated "key=value" into buf
 * (len bytes; "" when none; MX_CELL_SET_MAX always holds them: they are shorter than the
 * block's text). Returns how many. */
int mx_block_set(const mx_block *b, const idb_store *s, char *buf, size_t len);

/* matrix_faults.c (the fault blocks' keys) ------------------------------------------------ */

/* A run of [faults.replicated]: its name BACKEND:MODE and the counter options (-o) that
 * make it, besides backend=BACKEND (NULL-padded). */
typedef struct mx_repl_run {
    const char *name;
    const char *opts[2];
} mx_repl_run;

/* The run of [faults.replicated] called name ("postgres:async"), or NULL. Static storage. */
const mx_repl_run *mx_repl_run_find(const char *name);

/* matrix_check.c ----------------------------------------------------------------------- */

/* After the last file: apply the [quick] overrides when quick, let named blocks inherit
 * from their base block, and check the whole matrix: every run of an enabled [insert...] or
 * [curve...] block gets store options its store takes (the options' table, then the
 * store's check hook with each strategy's width) and strategy options (those the harness
 * fills in for each shard) its strategy takes. Returns 0 or IDB_EINPUT, err naming the
 * FILE:LINE that set the refused value. */
int mx_finish(idb_matrix *m, int quick, idb_err *err);

/* matrix_cells.c ----------------------------------------------------------------------- */

enum mx_kind { MX_GEN, MX_INSERT, MX_CURVE, MX_SIM, MX_SKEW, MX_CLAIMS, MX_SERIES,
              MX_KILL, MX_READ, MX_FAILOVER, MX_KINDS };

/* Where a cell stands: not run yet, run and its results kept, or failed (err says why). */
enum mx_status { MX_FAILED = -1, MX_PENDING = 0, MX_DONE = 1 };

#define MX_LABEL_MAX 160                         /* a cell's label, with its NUL */

/* One unit of work, run in its own child process. */
typedef struct mx_cell {
    enum mx_kind kind;
    const idb_strategy *strategy;                /* MX_INSERT, MX_CURVE */
    const idb_store *store;
    int64_t ids, shards, batch, shops;
    int64_t cache_pages;                         /* MX_CURVE on a store without a curve hook */
    int64_t key_bytes;                           /* the block's key_bytes (0: the strategy's) */
    int64_t clients;                             /* writers per shard (insert --clients) */
    double rate, commit_ms;                      /* MX_INSERT of an [openloop] block: > 0 */
    const mx_block *block;                       /* MX_CURVE: the block (its cache sizes);
                                                  * MX_SERIES: the block (its name) */
    int64_t window;                              /* MX_SERIES: inserts per series row */
    const idb_strategy *then_strategy;           /* its block's then (insert --then): its
                                                  * row is the second phase's; NULL: none */
    int64_t then_ids;
    char store_set[MX_CELL_SET_MAX];             /* its block's store_set for its store:
                                                  * blank-separated key=value, after
                                                  * [store.NAME]'s (a run of its own) */
    int config;                                  /* cells of one configuration share it */
    int rep;                                     /* 0-based repeat */
    const char *workload;                        /* MX_SIM, MX_SKEW: path */
    int timeline;                                /* MX_SIM: also write the timeline */
    int range;                                   /* MX_SIM: of [simulate.range] (range.csv) */
    double skew_ms;                              /* MX_SKEW */
    char kill_run[32];                           /* MX_KILL: BACKEND[:DURABILITY];
                                                  * MX_FAILOVER: BACKEND:MODE */
    char label[MX_LABEL_MAX];                    /* for progress and the report */
    /* Filled by running. */
    enum mx_status status;
    double est_s;                                /* estimated seconds (mx_estimate), < 0
                                                  * while no cell of its kind has finished */
    double took_s;                               /* how long it took */
    idb_err err;                                 /* MX_FAILED: why */
    idb_insert_result *res;                      /* MX_INSERT, MX_CURVE (owned) */
} mx_cell;

/* A store with an `available` hook (store.h), checked once per plan. */
typedef struct mx_store_check {
    const idb_store *store;
    int ok;
    char version[128];                           /* its server's version ("" when none) */
    char why[256];                               /* not ok: what is missing */
} mx_store_check;

typedef struct mx_plan {
    mx_cell *cells;
    int n;
    int n_configs;
    mx_store_check checks[MX_STORES_MAX];        /* the stores skipped have ok == 0 */
    int n_checks;
} mx_plan;

/* Build every cell of m in run order (generation, insert repeats, curves, simulations,
 * the skew sweep, claims), each pending with no estimate. Returns 0 or IDB_ENOMEM (then
 * p is empty). */
int mx_plan_make(const idb_matrix *m, mx_plan *p, idb_err *err);
/* Free the cells and their results; p is left empty. */
void mx_plan_free(mx_plan *p);

#define MX_SCRATCH_MAX 512                       /* the private temporary directory's path */
/* A results directory's path has at most MX_PATH_MAX bytes (cmd_matrix.c checks it); a
 * file in it (or in the scratch directory) at most MX_FILE_MAX, its name included. */
#define MX_FILE_MAX (MX_PATH_MAX + 128)

/* Where a running matrix keeps its files. */
typedef struct mx_ctx {
    const idb_matrix *m;
    const char *dir;                             /* the results directory */
    char scratch[MX_SCRATCH_MAX];                /* private temporary directory */
} mx_ctx;

/* matrix_read.c: where a read cell's rows go before cmd_matrix.c appends them to read.csv
 * (buf: len bytes), and the reads of read cell c (after its insert filled dir with its
 * record): one idbench read per pattern of its block, a row each, into that file. Returns
 * 0, or the read's IDB_E* code with err. */
void mx_read_path(const mx_ctx *x, char *buf, size_t len);
int mx_read_cell(const mx_ctx *x, const mx_cell *c, const char *dir, idb_err *err);

/* Run cell c in a child process of its own process group, with $TMPDIR the scratch
 * directory, killed with its group after m->cell_timeout_s or as soon as a signal is caught
 * (idb_signal_caught, tmpdir.h), and dying with this process. Insert and curve cells call
 * the insert runner in a forked child; the others exec this program with argv (argv[0]
 * included, NULL-terminated), its stdout to out_path (NULL: discarded). Sets c->status to
 * MX_DONE or MX_FAILED (c->err says why: "interrupted (...)" after a signal), and took_s and
 * res. tick is called about five times a second while the child runs (may be NULL). */
void mx_cell_run(const mx_ctx *x, mx_cell *c, char *const *argv, const char *out_path,
                 void (*tick)(void *ctx), void *tick_ctx);

/* The file a series cell (MX_SERIES) writes its rows to, in x's scratch directory, into
 * buf (len bytes, at least MX_FILE_MAX). */
void mx_series_path(const mx_ctx *x, char *buf, size_t len);

/* matrix_write.c ----------------------------------------------------------------------- */

/* insert.csv and positions.csv from every finished closed-loop insert cell (median over
 * repeats), and openloop.csv (the same columns) from the open-loop ones (rate > 0); every
 * repeat's own figures into insert_runs.csv and openloop_runs.csv. Returns 0 or IDB_EIO. */
int mx_write_insert(const mx_ctx *x, const mx_plan *p, idb_err *err);
/* curve.csv from every finished curve cell. Returns 0 or IDB_EIO. */
int mx_write_curve(const mx_ctx *x, const mx_plan *p, idb_err *err);
/* matrix_templates.c: make the server data templates the cells of p need (postgres,
 * mariadb) in SCRATCH/templates and name it in IDB_SERVER_TEMPLATES_ENV for the cells; a
 * template that cannot be made is said on stderr and left out. */
void mx_templates_make(const mx_plan *p, const char *scratch);

/* cells.csv: every cell that ran, its kind, store, strategy, status and wall seconds
 * (matrix_time.c). Returns 0 or IDB_EIO. */
int mx_write_cells(const mx_ctx *x, const mx_plan *p, idb_err *err);
/* generation.csv (ns per ID, median/min/max over repetitions) from Google Benchmark's
 * CSV output at gb_csv. Returns 0, IDB_EIO or IDB_ENOMEM. */
int mx_write_generation(const char *dir, const char *gb_csv, idb_err *err);
/* Append the rows of the CSV file src to dst (dst gets src's header when it is new);
 * with prefix_col, every row gets a first column prefix_col = prefix_val. Returns 0 or
 * IDB_EIO (src missing or empty, dst not written). */
int mx_append_csv(const char *dst, const char *src, const char *prefix_col,
                  const char *prefix_val, idb_err *err);

/* matrix_progress.c -------------------------------------------------------------------- */

typedef struct mx_progress {
    int tty, width;
    int64_t t0_ns, cell_t0_ns;
    int done, failed, total;
    const mx_plan *plan;
    int current;
} mx_progress;

/* Start the clock of a run of p's cells. */
void mx_progress_start(mx_progress *pr, const mx_plan *p);
/* Cell i starts / ticks (redraws the bar) / ends (a log line or a redrawn bar). */
void mx_progress_cell(mx_progress *pr, int i);
void mx_progress_tick(void *pr);
void mx_progress_end_cell(mx_progress *pr, int i);
/* A line of its own on stderr ("matrix: ..."), clearing the bar first. */
void mx_progress_note(mx_progress *pr, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Clear the bar and say how many cells ran, in how long, and how many failed. */
void mx_progress_finish(mx_progress *pr);

/* Estimate every pending cell's seconds (est_s) from the cells already finished, measured
 * times only: a finished cell of the same run but for its size (same kind, strategy,
 * store, shards and cache size), scaled by IDs; else the seconds per ID (per cell, for
 * cells without IDs) of every finished cell of its kind. A pending cell of a kind that has
 * no finished cell yet gets est_s = -1. Returns the sum of the known estimates; *unknown
 * (when not NULL) gets the number of pending cells without one. */
double mx_estimate(mx_plan *p, int *unknown);
/* "1h02m", "4m10s", "12s", "1.5s" */
void mx_fmt_duration(double s, char *buf, size_t len);
/* An ETA from mx_estimate's two results: "4m10s" when every pending cell has an estimate,
 * ">4m10s" when some have none yet (the time is a lower bound), "—" when none has. */
void mx_fmt_eta(double known_s, int unknown, char *buf, size_t len);

/* matrix_meta.c ------------------------------------------------------------------------ */

/* The results directory's format, meta.json's "format_version": raised whenever a results
 * file changes in a way a reader of the old one would misread. 1 (no format_version in
 * meta.json): before insert_runs.csv; 2: insert_runs.csv and openloop_runs.csv hold every
 * repeat's figures; 3 (issue 22): columns that kept their names changed meaning —
 * cache_misses (postgres: page extensions left out, in extend_pages; mariadb: read-ahead
 * left out), duplicate_ids (over the whole run, not per shard: that is duplicate_rows),
 * write_bytes_per_id (empty, not 0, for a server idbench did not start) — and columns were
 * added (extend_pages, autovacuum_runs, duplicate_rows, wal_bytes, fpi,
 * client_write_bytes_per_id). `idbench compare` refuses two directories of different
 * versions (and versions it does not know); plot, report and index read any version (the
 * files as stored). */
#define MX_FORMAT_VERSION 3
/* The oldest format_version compare reads (1 has no insert_runs.csv); two directories of
 * one older version are compared with each other, never with another version. */
#define MX_FORMAT_OLDEST_COMPARED 2

#define MX_FAILURES_MAX 64                       /* failed cells listed in meta.json */
#define MX_FAILURE_LEN 512                       /* "label: error", with its NUL */

/* How a run ended, as meta.json's "status" says. */
#define MX_STATUS_RUNNING "running"              /* not ended (or killed without a word) */
#define MX_STATUS_COMPLETE "complete"            /* every cell ran, every file written */
#define MX_STATUS_INTERRUPTED "interrupted"      /* a signal stopped it */
#define MX_STATUS_FAILED "failed"                /* plots, report or meta.json not written */

typedef struct mx_meta {
    char command[2048];
    char started[32], finished[32];              /* UTC, ISO 8601 */
    double wall_s;
    int64_t seed, repeat;
    int quick;
    char files[1024];                            /* matrix files, blank-separated */
    char failures[MX_FAILURES_MAX][MX_FAILURE_LEN];  /* failed cells: "label: error" */
    int n_failures;
    const char *status;                          /* MX_STATUS_*; NULL: running */
    int cells, cells_done, cells_failed;         /* planned, ran to an end, failed */
    const mx_store_check *checks;                /* the plan's: servers and skipped stores */
    int n_checks;
} mx_meta;

/* Write DIR/meta.json: the run's facts and the environment (git revision, compiler,
 * library versions, CPU, cores, kernel). Returns 0 or IDB_EIO. */
int mx_meta_write(const char *dir, const mx_meta *meta, idb_err *err);

/* Rewrite DIR/meta.json of a run whose process died without a word (matrix_owner.c): the
 * same lines, but status "interrupted", cells_done and cells_failed as given and failures
 * (n_failures lines) as the failures array. Returns 0 or IDB_EIO (IDB_EINPUT: meta.json
 * refused by readfile.h) with err. */
int mx_meta_mark_interrupted(const char *dir, int cells_done, int cells_failed,
                             const char *const *failures, int n_failures, idb_err *err);

/* The run's owner file, DIR/matrix.lock (matrix_owner.c): made when a run starts, locked
 * (flock) for its life, holding its pid and scratch directory, and a line for each cell that
 * ran to its end. Returns 0 or IDB_EIO with err. */
int mx_owner_take(const char *dir, const char *scratch, idb_err *err);

/* Note in the owner file that cell label ran to its end (ok: it succeeded). */
void mx_owner_cell(const char *label, int ok, const char *why);

/* The run ended in order: remove the owner file and drop the lock. */
void mx_owner_release(void);

/* In a forked cell: close this process's copy of the owner file, neither unlocking nor
 * removing it, so the lock goes with the run's process alone (not with a cell still dying
 * of its parent's death, which a recovery right after a kill would take for a live run). */
void mx_owner_forget(void);

/* Recover the runs killed without a word (SIGKILL, a crash, a power cut) at path: path
 * itself when it holds meta.json, else each results directory in it. A run is dead when its
 * matrix.lock can be locked (its owner's lock went with its process); then meta.json says
 * "interrupted" with cells_done counted from the owner file, its scratch directory is
 * removed (only when it is a directory of ours named idbench.*, not a symlink, on the
 * device of its parent), the owner file goes, and the index beside it is rewritten. Returns
 * how many runs were recovered; problems are noted on stderr, one line each. */
int mx_recover(const char *path);

/* Read meta.json's flat string/number fields: calls fn for each key and value (unquoted),
 * and for each failures[] entry with key "failure". Returns 0 or IDB_EIO (missing or
 * unreadable: fn was not called). */
int mx_meta_read(const char *dir, void (*fn)(void *ctx, const char *key, const char *value),
                 void *ctx, idb_err *err);

/* Where the plot scripts and the default matrix live (the source tree, set at build). */
const char *mx_source_dir(void);
/* path relative to the source tree when it lies in it (workloads/matrix.ini), else path;
 * so a results directory does not record the machine's own paths. */
const char *mx_tree_relative(const char *path);

/* matrix_csv.c ------------------------------------------------------------------------- */

#define MX_CSV_BYTES_MAX (16 << 20)              /* a CSV file's size, at most */
#define MX_CSV_COLS_MAX 256                      /* its columns, at most */

typedef struct mx_table {
    int ncol, nrow;
    char **head;                                 /* ncol names */
    char **cell;                                 /* nrow * ncol values */
    int *line;                                   /* nrow: each row's line in the file */
    char *buf;
} mx_table;

/* The whole file at path in a malloc'd buffer (the caller frees it) with a NUL after its
 * len bytes: a regular file (not followed when a symlink) of at most MX_CSV_BYTES_MAX bytes,
 * checked before a byte is read (readfile.h). Returns NULL with err (may be NULL) IDB_EIO
 * (missing or unreadable), IDB_EINPUT (refused: not a regular file, too large) or
 * IDB_ENOMEM. */
char *mx_read_file(const char *path, size_t *len, idb_err *err);

/* Load a CSV file (header line, then rows of as many fields; "..." quoting). Returns 0,
 * IDB_EIO when the file is missing or unreadable, IDB_EINPUT when it is empty or not a
 * CSV file ("PATH:LINE: why": a control character, too large, too many columns, a row of
 * another width), or IDB_ENOMEM; on failure t is an empty table, safe to query and free.
 * err may be NULL. */
int mx_table_load(const char *path, mx_table *t, idb_err *err);
int mx_table_col(const mx_table *t, const char *name);            /* -1 when absent */
const char *mx_table_str(const mx_table *t, int row, int col);    /* "" when absent */
double mx_table_num(const mx_table *t, int row, int col);         /* NAN when not a number */
/* A field as a whole number: bad when it is not a finite number within +-2^62 (never a
 * NaN or out-of-range cast); a fraction is cut toward zero. */
long long mx_table_ll(const mx_table *t, int row, int col, long long bad);
void mx_table_free(mx_table *t);

/* Position of a strategy in `idbench list` order (names not in the registry after them). */
int mx_strategy_rank(const char *name);
/* The writers per shard of row r of an insert.csv or positions.csv table: its clients
 * column, 1 when the file has none (made before insert --clients) or the field is empty;
 * -1 when it is not a number. Every row lookup keys on it with the other key columns. */
long long mx_row_clients(const mx_table *t, int r);
/* The configuration the headline plots and sentences use from insert.csv: among the
 * one-writer rows (clients 1), the fewest shards, and at that the most IDs. 0 when the
 * table has no rows. */
int mx_headline(const mx_table *t, long long *ids, long long *shards);
/* The one-writer (clients 1) insert.csv row of (strategy, store) at configuration (ids,
 * shards), or -1. */
int mx_insert_row(const mx_table *t, const char *strategy, const char *store, long long ids,
                  long long shards);
/* A row of insert.csv (or positions.csv) by its key columns: ids, key_bytes and batch
 * <= 0 match any value (the first row in file order then). */
typedef struct mx_row_key {
    const char *strategy, *store;
    long long ids, shards, key_bytes, clients, batch;
} mx_row_key;
/* The first row of t matching k, or -1. */
int mx_find_row(const mx_table *t, const mx_row_key *k);

#define MX_PLOTS_MAX 32                          /* entries of the plot table */

/* What the plots and the report read from a results directory, loaded once: every results
 * table (empty when its file is missing), the headline configuration, and after
 * mx_plot_all which plots were drawn. */
typedef struct mx_results {
    const char *dir;
    mx_table ins, pos, curve, gen, skew, tl, sim;   /* insert.csv, positions.csv, ... */
    mx_table series;                             /* series.csv */
    mx_table kill;                               /* counterkill.csv */
    mx_table failover;                           /* failover.csv ([faults.replicated]) */
    mx_table range;                              /* range.csv ([simulate.range]) */
    mx_table read;                               /* read.csv ([read] blocks) */
    mx_table cells;                              /* cells.csv (each cell's wall time) */
    mx_table then;                               /* insert.csv's phase=then rows (a block's
                                                  * then = STRATEGY:N), taken out of ins:
                                                  * its head and cells are ins's */
    long long ids, shards;                       /* the headline configuration */
    int reps;                                    /* most repeats behind an insert.csv row */
    int drawn[MX_PLOTS_MAX];                     /* mx_plot_all: plot i was drawn */
    idb_err why_not[MX_PLOTS_MAX];               /* mx_plot_all: why plot i was not */
} mx_results;

/* Load every results table of dir (dir is borrowed, not copied) and check every value the
 * plots and the report read (matrix_results.c: the columns each file must have, names
 * without control characters, numbers finite, in range, integers where counts are). A
 * missing file gives an empty table. Returns 0, IDB_EINPUT ("FILE:LINE: column: why"),
 * IDB_EIO (a file that cannot be read) or IDB_ENOMEM; on failure r is empty, safe to free. */
int mx_results_load(mx_results *r, const char *dir, idb_err *err);
/* Free the tables; r is left empty. */
void mx_results_free(mx_results *r);

/* plots.c: the plot table ---------------------------------------------------------------- */

/* One plot: everything about it is here, and plots/NAME.gp draws it. Adding a plot is one
 * entry in mx_plots (plots.c) and one gnuplot script. */
typedef struct mx_plot {
    const char *name;                            /* plots/NAME.gp -> DIR/plots/NAME.png, .svg */
    const char *title;                           /* its section title in report.md */
    /* Write the plot's data files (tab-separated, NaN when unknown) into the directory
     * scratch and its gnuplot variables to vars. Returns 0, or IDB_EINPUT when r lacks the
     * data the plot needs, IDB_EIO when a data file cannot be written (why says which):
     * the plot is then not drawn. */
    int (*prepare)(const mx_results *r, const char *scratch, FILE *vars, idb_err *why);
    /* Write the report's sentences about the plot to f, as one paragraph ending in a
     * newline, every figure computed from r. Returns 0, or IDB_EINPUT when the data is too
     * incomplete for a figure (then nothing was written). */
    int (*sentences)(const mx_results *r, FILE *f);
} mx_plot;

extern const mx_plot mx_plots[];                 /* in report order */
extern const int mx_n_plots;                     /* at most MX_PLOTS_MAX */

/* matrix_plot.c / report.c ------------------------------------------------------------- */

/* The colour of a strategy as "#rrggbb" (colors.c): from its index in `idbench list`
 * order, each at least a set perceptual distance from every other strategy's and from the
 * peers' grey; names not in the registry hash onto colours past the registry's; NAME@BACKEND
 * takes NAME's colour. Static storage; single-threaded. */
const char *mx_color(const char *strategy);
/* The k-th colour of that sequence (the registry's k-th strategy has it), NULL when k is
 * not below MX_COLORS_MAX. */
#define MX_COLORS_MAX 48
const char *mx_color_at(int k);
/* How to tell NAME@BACKEND from NAME in a plot drawn in the same colour: 0 for a plain
 * name, else 1 + the backend's index (postgres 1, redis 2, ...): a dash type or pattern. */
int mx_variant(const char *name);

/* Render DIR/plots/NAME.png and .svg for every plot of mx_plots whose data r holds, and
 * record in r->drawn and r->why_not which were drawn and why not. Returns 0, or IDB_EIO
 * when gnuplot or a file failed (err says which), IDB_EINPUT when the plot scripts cannot
 * be found. */
int mx_plot_all(mx_results *r, idb_err *err);

/* Write DIR/report.md, then DIR/report.html, from r (after mx_plot_all: they show the
 * plots drawn and say why the others were not; report.c, report_doc.h). Returns 0, or
 * IDB_EIO or IDB_ENOMEM at the first that could not be written. */
int mx_report_write(const mx_results *r, idb_err *err);

/* insert.csv's aggregate of one field over a configuration's repeats (matrix_write.c):
 * the median (the mean of the middle two for an even n), min and max of v[0..n); all NAN
 * when n == 0 or any value is unknown (< 0). Sorts v. */
void mx_aggregate(double *v, int n, double *med, double *lo, double *hi);

#endif
