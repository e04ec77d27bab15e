/* matrix.h — `idbench matrix`: one command from a matrix file to a results directory.
 *
 * The pieces, one file each:
 *   matrix_file.c      reads matrix files (ini.h) into an idb_matrix, checks every value
 *   matrix_cells.c     turns the matrix into cells and runs each one isolated (a child
 *                      process per cell, with a time limit), keeping what it measured
 *   matrix_write.c     aggregates repeats (median, min, max) and writes insert.csv,
 *                      positions.csv, curve.csv, generation.csv, ... (temp name + rename)
 *   matrix_progress.c  progress on stderr: a one-line bar with an ETA on a terminal,
 *                      plain log lines otherwise
 *   matrix_meta.c      the environment (meta.json) and reading it back
 *   matrix_csv.c       a small CSV table reader for the results files
 *   matrix_plot.c      `idbench plot DIR`: plot data from DIR's files, then gnuplot
 *   report.c           report.md from DIR's files
 *   cmd_matrix.c       the two commands: flags, the results directory, the phases
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
#define MX_BLOCKS_MAX 8          /* [insert...] or [curve...] sections */
#define MX_STORES_MAX 8
#define MX_WORKLOADS_MAX 32
#define MX_PATH_MAX 1024
#define MX_KV_MAX 16             /* store options per [store.NAME] section */
#define MX_QUICK_MAX 64          /* [quick] overrides over all files */
#define MX_FILES_MAX 8

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
    int64_t cache_pages[MX_LIST_MAX];            /* curve blocks only */
    int n_cache_pages;
    unsigned set;                                /* bit i: key i of the block table was set */
} mx_block;

/* Options for one store's runs ([store.NAME]): "key=value" strings, checked on reading. */
typedef struct mx_store_opts {
    const idb_store *store;
    char kv[MX_KV_MAX][160];
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
    /* [claims] */
    int claims_enabled, claims_quick;

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

/* After the last file: apply the [quick] overrides when quick, let named blocks inherit
 * from their base block, and check the whole matrix. Returns 0 or IDB_EINPUT. */
int mx_finish(idb_matrix *m, int quick, idb_err *err);

/* The store options of [store.NAME] for s (NULL when none). */
const mx_store_opts *mx_store_options(const idb_matrix *m, const idb_store *s);

/* matrix_cells.c ----------------------------------------------------------------------- */

enum mx_kind { MX_GEN, MX_INSERT, MX_CURVE, MX_SIM, MX_SKEW, MX_CLAIMS, MX_KINDS };

/* One unit of work, run in its own child process. */
typedef struct mx_cell {
    enum mx_kind kind;
    const idb_strategy *strategy;                /* MX_INSERT, MX_CURVE */
    const idb_store *store;
    int64_t ids, shards, batch, shops;
    int64_t cache_pages;                         /* MX_CURVE on a store without a curve hook */
    const mx_block *block;                       /* MX_CURVE: the block (its cache sizes) */
    int config;                                  /* cells of one configuration share it */
    int rep;                                     /* 0-based repeat */
    const char *workload;                        /* MX_SIM, MX_SKEW: path */
    int timeline;                                /* MX_SIM: also write the timeline */
    double skew_ms;                              /* MX_SKEW */
    char label[160];                             /* for progress and the report */
    /* Filled by running. */
    int status;                                  /* 0 pending, 1 done, -1 failed */
    double est0_s;                               /* the first guess (matrix_cells.c) */
    double est_s, took_s;                        /* current estimate; how long it took */
    char error[320];
    idb_insert_result *res;                      /* MX_INSERT, MX_CURVE (owned) */
} mx_cell;

typedef struct mx_plan {
    mx_cell *cells;
    int n;
    int n_configs;
} mx_plan;

/* Build every cell of m in run order (generation, insert repeats, curves, simulations,
 * the skew sweep, claims). Returns 0 or IDB_ENOMEM. */
int mx_plan_make(const idb_matrix *m, mx_plan *p, idb_err *err);
void mx_plan_free(mx_plan *p);

/* Where a running matrix keeps its files. */
typedef struct mx_ctx {
    const idb_matrix *m;
    const char *dir;                             /* the results directory */
    char scratch[512];                           /* private temporary directory */
} mx_ctx;

/* Run cell c in a child process (killed after m->cell_timeout_s). Insert and curve cells
 * call the insert runner in a forked child; the others exec this program with argv
 * (argv[0] included, NULL-terminated), its stdout to out_path (NULL: discarded). Fills
 * c->status, took_s, error, res. tick is called about five times a second while the
 * child runs (may be NULL). */
void mx_cell_run(const mx_ctx *x, mx_cell *c, char *const *argv, const char *out_path,
                 void (*tick)(void *ctx), void *tick_ctx);

/* matrix_write.c ----------------------------------------------------------------------- */

/* insert.csv and positions.csv from every finished insert cell (median over repeats). */
int mx_write_insert(const mx_ctx *x, const mx_plan *p, idb_err *err);
/* curve.csv from every finished curve cell. */
int mx_write_curve(const mx_ctx *x, const mx_plan *p, idb_err *err);
/* generation.csv (ns per ID, median/min/max over repetitions) from Google Benchmark's
 * CSV output at gb_csv. */
int mx_write_generation(const char *dir, const char *gb_csv, idb_err *err);
/* Append the rows of the CSV file src to dst (dst gets src's header when it is new);
 * with prefix_col, every row gets a first column prefix_col = prefix_val. */
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

void mx_progress_start(mx_progress *pr, const mx_plan *p);
/* Cell i starts / ticks (redraws the bar) / ends (a log line or a redrawn bar). */
void mx_progress_cell(mx_progress *pr, int i);
void mx_progress_tick(void *pr);
void mx_progress_end_cell(mx_progress *pr, int i);
/* A line of its own on stderr ("matrix: ..."), clearing the bar first. */
void mx_progress_note(mx_progress *pr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mx_progress_finish(mx_progress *pr);
/* Estimated seconds for every pending cell, from the finished ones; total of those. */
double mx_estimate(mx_plan *p);
/* "1h02m", "4m10s", "12s" */
void mx_fmt_duration(double s, char *buf, size_t len);

/* matrix_meta.c ------------------------------------------------------------------------ */

typedef struct mx_meta {
    char command[2048];
    char started[32], finished[32];              /* UTC, ISO 8601 */
    double wall_s;
    int64_t seed, repeat;
    int quick;
    char files[1024];                            /* matrix files, blank-separated */
    char failures[64][512];                      /* failed cells: "label: error" */
    int n_failures;
    int cells, cells_failed;
} mx_meta;

/* Write DIR/meta.json: the run's facts and the environment (git revision, compiler,
 * library versions, CPU, cores, kernel). Returns 0 or -1 with errno. */
int mx_meta_write(const char *dir, const mx_meta *meta);

/* Read meta.json's flat string/number fields: calls fn for each key and value (unquoted),
 * and for each failures[] entry with key "failure". Returns 0 or -1 (missing). */
int mx_meta_read(const char *dir, void (*fn)(void *ctx, const char *key, const char *value),
                 void *ctx);

/* matrix_csv.c ------------------------------------------------------------------------- */

typedef struct mx_table {
    int ncol, nrow;
    char **head;                                 /* ncol names */
    char **cell;                                 /* nrow * ncol values ("" when absent) */
    char *buf;
} mx_table;

/* Load a CSV file (header line, then rows; "..." quoting). Returns 0, or -1 when the file
 * is missing or empty (t is then an empty table, safe to query and free). */
int mx_table_load(const char *path, mx_table *t);
int mx_table_col(const mx_table *t, const char *name);            /* -1 when absent */
const char *mx_table_str(const mx_table *t, int row, int col);    /* "" when absent */
double mx_table_num(const mx_table *t, int row, int col);         /* NAN when not a number */
void mx_table_free(mx_table *t);

/* Position of a strategy in `idbench list` order (names not in the registry after them). */
int mx_strategy_rank(const char *name);
/* The configuration the headline plots and sentences use from insert.csv: the fewest
 * shards, and at that the most IDs. 0 when the table has no rows. */
int mx_headline(const mx_table *t, long long *ids, long long *shards);
/* The insert.csv row of (strategy, store) at configuration (ids, shards), or -1. */
int mx_insert_row(const mx_table *t, const char *strategy, const char *store, long long ids,
                  long long shards);

/* matrix_plot.c / report.c ------------------------------------------------------------- */

/* The colour of a strategy (its index in `idbench list` order through a fixed palette;
 * names not in the registry hash into it) as "#rrggbb". */
const char *mx_color(const char *strategy);

#define MX_PLOTS 9
extern const char *const mx_plot_names[MX_PLOTS];

/* Render DIR/plots/NAME.png and .svg for every plot whose data DIR holds; ok[i] tells
 * which were drawn, and why_not[i] why not. Returns 0, or IDB_EIO when gnuplot failed
 * (err says which), IDB_EINPUT when the plot scripts cannot be found. */
int mx_plot_all(const char *dir, int ok[MX_PLOTS], char why_not[MX_PLOTS][256], idb_err *err);

/* Write DIR/report.md from DIR's files (ok: which plots exist). Returns 0 or IDB_EIO. */
int mx_report_write(const char *dir, const int ok[MX_PLOTS], char why_not[MX_PLOTS][256],
                    idb_err *err);

/* Where the plot scripts and the default matrix live (the source tree, set at build). */
const char *mx_source_dir(void);

#endif
