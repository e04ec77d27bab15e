/* plots.h — inside harness/matrix only: what the plot table's functions share.
 *
 * The plot table (MX_PLOT_TABLE below, made into mx_plots[] by plots.c): per plot a
 * prepare function (its data files and gnuplot variables, from the results tables) and a
 * sentences function (its paragraph in report.md). They live in plots_insert.c and
 * plots_other.c and use the helpers below: the data-file helpers are in matrix_plot.c,
 * the prose helpers in report.c.
 */
#ifndef IDB_MATRIX_PLOTS_H
#define IDB_MATRIX_PLOTS_H

#include <stdio.h>

#include "matrix.h"

#define MX_NUM_LEN 32                            /* mx_num's buffer */
#define MX_TITLE_LEN 128                         /* a strategy's title in a plot's key */

/* Strategy names in `idbench list` order, each once (borrowed from a table). */
typedef struct mx_names {
    const char *v[MX_LIST_MAX];
    int n;
} mx_names;

/* Data files (matrix_plot.c) ----------------------------------------------------------- */

/* Add s to l unless it is there or empty, keeping registry order (full: ignored). */
void mx_names_add(mx_names *l, const char *s);
/* Open SCRATCH/NAME for writing. Returns the file, or NULL with why set (IDB_EIO). */
FILE *mx_data_open(const char *scratch, const char *name, idb_err *why);
/* Close a data file; returns 0, or IDB_EIO with why set when a write failed. */
int mx_data_close(FILE *f, const char *name, idb_err *why);
/* Write v (NaN when unknown) and then sep. */
void mx_put(FILE *f, double v, const char *sep);
/* Run gnuplot on SCRATCH/NAME.vars.gp, plots/common.gp and plots/NAME.gp (data in
 * SCRATCH/NAME.dat) into the PNG file png, through a temporary name beside it that is
 * renamed only when the image is complete. Returns 0 or IDB_EIO with why. */
int mx_gnuplot_png(const char *png, const char *scratch, const char *name, idb_err *why);
/* Write s to f as a gnuplot string literal, then a newline: in double quotes, every byte
 * but letters, digits and " -_.,:/+()%" as an octal escape (\047 for a quote), so the
 * command line holds nothing gnuplot could take for the literal's end, a substitution
 * (backquotes, @macros), a comment or another command: s is data, never code. Returns 0,
 * or IDB_EINPUT with why (nothing written) when s holds a control character. The one way
 * text goes into a gnuplot command. */
int mx_gp_string(FILE *f, const char *s, idb_err *why);
/* n<sfx> (how many), colors<sfx> (blank-separated, one per name) and t<sfx>_<i> (1-based
 * titles, literals) for l into the variables file; title[i] overrides the name as a title
 * when title is not NULL and title[i] not "". Returns 0 or IDB_EINPUT (mx_gp_string). */
int mx_put_names(FILE *vars, const char *sfx, const mx_names *l, char (*title)[MX_TITLE_LEN],
                 idb_err *why);
/* The IDs per run of store's rows the plots and sentences use: the headline size when
 * the store has rows at it, else the store's largest size at the headline shard count (the
 * server stores run a smaller block: their bars are labelled with their size). */
long long mx_store_ids(const mx_results *r, const char *store);
/* The insert.csv row of (strategy, store) at the headline configuration (the store's
 * size: mx_store_ids), or -1. */
int mx_ins_row(const mx_results *r, const char *strategy, const char *store);
/* Strategies and stores (in file order, at most MX_STORES_MAX) of insert.csv at the
 * headline configuration. */
void mx_ins_names(const mx_results *r, mx_names *strategies, const char *stores[],
                  int *nstores);
/* The store the headline sentences (and the positions plot) talk about: sqlite when
 * insert.csv has it, else the first store of insert.csv ("" when it has no rows). */
const char *mx_main_store(const mx_results *r);

/* Prose (report.c) --------------------------------------------------------------------- */

/* A number for prose: thousands grouped for big values (from 1e15 on: "1.23e+15"), 3
 * significant digits for small ones, "n/a" when unknown (NaN) or infinite. buf has
 * MX_NUM_LEN bytes, always enough; returns buf. */
const char *mx_num(double v, char *buf);
/* Denominators with fewer events than this are printed as counts, not as a multiple: one
 * event more or less would move the multiple by more than 3%. */
#define MX_RATIO_MIN_EVENTS 30
#define MX_RATIO_LEN (2 * MX_NUM_LEN + 64)        /* mx_ratio's buffer */
/* A ratio num / den for prose into buf (MX_RATIO_LEN bytes; unit at most 48 bytes), from
 * the figures as given (never from printed ones): "N×" (mx_num of the quotient), or, when
 * den_events (the count of events behind den; negative when den is not a count) is below
 * MX_RATIO_MIN_EVENTS, the counts instead: "NUM_EVENTS vs DEN_EVENTS UNIT" (also for a den
 * of 0). Returns buf. */
const char *mx_ratio(double num, double den, double num_events, double den_events,
                     const char *unit, char *buf);
/* At the headline configuration on store, the insert.csv rows with the lowest and highest
 * value of column col (ignoring NaN, and values <= 0 when positive). 0 when none. */
int mx_extremes(const mx_results *r, const char *store, const char *col, int positive,
                int *lo, int *hi);

/* The report's sections of series.csv (report_scale.c): the cost per insert against size
 * with its fitted growth, and the device model's ratios beside the published ones. */
struct mx_doc;
void mx_report_scale(const mx_results *r, struct mx_doc *d);

/* report_ratio.c: per store of insert.csv at the headline configuration, uuidv4's median
 * against counter's as ratios of time, pages, bytes and WAL (each only where both figures
 * are known). mx_say_ratio writes the paragraph to f, ending in a newline; it returns 0, or
 * IDB_EINPUT (nothing written) when no store has both strategies. mx_report_ratio writes
 * the report's section through d; it returns 0 or IDB_ENOMEM. */
int mx_say_ratio(const mx_results *r, FILE *f);
int mx_report_ratio(const mx_results *r, struct mx_doc *d);

/* matrix_time.c: the report's "Where the time went" section from cells.csv (kind x store:
 * cells, seconds, share, seconds per cell). Returns 0 or IDB_ENOMEM. */
int mx_report_time(const mx_results *r, struct mx_doc *d);

/* report_storage.c: the report's section "Storage per row, by store": per strategy at the
 * headline configuration, its ID width and each store's bytes per row side by side (sum,
 * then table + ID index + other indexes; "?" unknown). Writes through d; cannot fail. */
void mx_report_storage(const mx_results *r, struct mx_doc *d);

/* report_then.c: the report's section of insert.csv's second phases (r->then: blocks with
 * then = STRATEGY:N): a row per phase and, per store with uuidv4 -> uuidv7 and the
 * uuidv4 -> uuidv4 control, whether v7 keeps its advantage. Nothing without such rows. */
void mx_report_then(const mx_results *r, struct mx_doc *d);

/* plots_failover.c: the table of the failover_dups section (failover.csv, a row per run:
 * backend, mode, orders, duplicate_ids, lost_ids, failed_orders, failover_ms; "—" for an
 * unknown failover_ms). Nothing without rows; cannot fail. */
void mx_report_failover(const mx_results *r, struct mx_doc *d);

/* The plot table ------------------------------------------------------------------------ */

/* Every plot, in report order: one X(NAME, TITLE) line each. NAME is its file names
 * (plots/NAME.gp draws DIR/plots/NAME.png and .svg), TITLE its section in report.md; its
 * functions are mx_prep_NAME and mx_say_NAME (see mx_plot in matrix.h), defined in
 * plots_insert.c, plots_other.c, plots_counter.c, plots_failover.c, plots_clients.c,
 * plots_range.c, plots_then.c or plots_read.c. plots.c
 * makes mx_plots[] of these lines. */
#define MX_PLOT_TABLE(X)                                                    \
    X(generation, "ID generation: time per ID")                             \
    X(inserts, "Inserts per second")                                        \
    X(pages_written, "Pages written per ID")                                \
    X(bytes_per_row, "Bytes on disk per row")                               \
    X(fill_factor, "Leaf fill factor")                                      \
    X(wal_fpi, "WAL bytes and full-page images per ID (server stores)")     \
    X(miss_ratio, "Miss-ratio curves")                                      \
    X(positions, "Where new keys land in the index")                        \
    X(latency, "Insert latency percentiles")                                \
    X(latency_rate, "Order latency against offered rate (open loop)")       \
    X(inversion_skew, "Clock skew against ID order")                        \
    X(outage, "Orders failed during the counter outage")                   \
    X(series, "Throughput as the table grows")                              \
    X(series_misses, "Cache misses per insert against index size / cache size") \
    X(cliff, "The cache cliff: throughput relative to counter")             \
    X(counter_server, "ID cost on a real counter server")                  \
    X(counter_kill, "Orders failed and IDs handed out twice around a counter-server kill") \
    X(failover_dups, "Duplicates after a counter failover, by backend and replication mode") \
    X(clients, "Throughput and p99 against writers per shard (clients)")   \
    X(clients_wait, "Lock wait per order against writers per shard (clients)") \
    X(hot_share, "Share of inserts on the busiest shard (range and hash routing)") \
    X(then, "A scheme change mid-table: pages written per row of the second phase") \
    X(reads, "Pages read per point lookup (read.csv)")

#define MX_PLOT_DECLARE(name, title)                                                 \
    int mx_prep_##name(const mx_results *r, const char *scratch, FILE *vars, idb_err *why); \
    int mx_say_##name(const mx_results *r, FILE *f);
MX_PLOT_TABLE(MX_PLOT_DECLARE)
#undef MX_PLOT_DECLARE

#endif
