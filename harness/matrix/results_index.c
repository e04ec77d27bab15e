/* results_index.c — index.html beside the results directories: the history of runs at a
 * glance. `idbench matrix` rewrites PARENT/index.html after each run, PARENT being the
 * directory its results directory is in (results/ by default). One row per directory of
 * PARENT that holds a meta.json (symlinks such as results/latest are not followed): when it
 * started, its git revision, command, status and cells, the headline figures of its
 * insert.csv, and a link to its report. Every name and value from those files is escaped;
 * a directory whose files cannot be read is listed with why.
 */
#include "results_index.h"

#include <limits.h>

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "html.h"
#include "plots.h"

#define FIELD_LEN 256                            /* a meta.json value kept, with its NUL */
#define REVISION_SHOWN 12                        /* hex digits of the git revision shown */
#define RUNS_MAX 4096                            /* results directories listed, at most */

/* One results directory. */
typedef struct run_row {
    char name[NAME_MAX + 1];
    char started[FIELD_LEN], revision[FIELD_LEN], dirty[FIELD_LEN], command[FIELD_LEN];
    char status[FIELD_LEN], cells[FIELD_LEN], failed[FIELD_LEN];
    char headline[2 * FIELD_LEN];
    const char *report;                          /* "report.html", "report.md" or NULL */
} run_row;

/* The meta.json keys kept, and where. */
static const struct {
    const char *key;
    size_t off;
} kept[] = {
    { "started_utc", offsetof(run_row, started) },
    { "git_revision", offsetof(run_row, revision) },
    { "git_dirty", offsetof(run_row, dirty) },
    { "command", offsetof(run_row, command) },
    { "status", offsetof(run_row, status) },
    { "cells", offsetof(run_row, cells) },
    { "cells_failed", offsetof(run_row, failed) },
};

/* meta.json callback: the kept keys into the row. */
static void on_meta(void *ctx, const char *key, const char *value)
{
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        if (!strcmp(kept[i].key, key)) snprintf((char *)ctx + kept[i].off, FIELD_LEN, "%s", value);
}

/* The headline figures of the results in path: the fastest and slowest strategy by
 * inserts per second on the store the report's sentences talk about. */
static void headline(run_row *row, const char *path)
{
    mx_results r;
    idb_err err = { 0 };
    if (mx_results_load(&r, path, &err) != 0) {
        snprintf(row->headline, sizeof row->headline, "results unreadable: %s", err.msg);
        return;
    }
    const char *store = mx_main_store(&r);
    int lo, hi, cs = mx_table_col(&r.ins, "strategy"), cv = mx_table_col(&r.ins, "inserts_per_s");
    if (!mx_extremes(&r, store, "inserts_per_s", 1, &lo, &hi)) {
        snprintf(row->headline, sizeof row->headline, "no insert rates");
    } else {
        char a[MX_NUM_LEN], b[MX_NUM_LEN];
        snprintf(row->headline, sizeof row->headline,
                 "%s, %lld IDs, %lld shard(s): `%s` %s inserts/s, `%s` %s", store, r.ids,
                 r.shards, mx_table_str(&r.ins, hi, cs), mx_num(mx_table_num(&r.ins, hi, cv), a),
                 mx_table_str(&r.ins, lo, cs), mx_num(mx_table_num(&r.ins, lo, cv), b));
    }
    mx_results_free(&r);
}

/* Fill row for the directory parent/name; 0 when it is not a results directory. */
static int read_run(run_row *row, const char *parent, const char *name)
{
    char path[MX_FILE_MAX], file[MX_FILE_MAX + 16];
    struct stat sb;
    memset(row, 0, sizeof *row);
    snprintf(path, sizeof path, "%s/%s", parent, name);
    if (lstat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) return 0;
    snprintf(row->name, sizeof row->name, "%s", name);
    if (mx_meta_read(path, on_meta, row, NULL) != 0) return 0;
    static const char *const reports[] = { "report.html", "report.md" };
    for (size_t i = 0; i < sizeof reports / sizeof *reports && !row->report; i++) {
        snprintf(file, sizeof file, "%s/%s", path, reports[i]);
        if (access(file, R_OK) == 0) row->report = reports[i];
    }
    headline(row, path);
    return 1;
}

/* Newest first (by start time, then name). */
static int by_start(const void *a, const void *b)
{
    const run_row *x = a, *y = b;
    int c = strcmp(y->started, x->started);
    return c ? c : strcmp(x->name, y->name);
}

/* The rows of every results directory in parent (malloc'd, *n of them). Returns NULL with
 * err when parent cannot be read or memory ran out. */
static run_row *read_runs(const char *parent, int *n, idb_err *err)
{
    DIR *dir = opendir(parent);
    if (!dir) {
        idb_fail(err, IDB_EIO, "cannot read %s: %s", parent, strerror(errno));
        return NULL;
    }
    run_row *rows = NULL;
    int cap = 0;
    *n = 0;
    for (struct dirent *e; (e = readdir(dir)) && *n < RUNS_MAX;) {
        if (e->d_name[0] == '.') continue;
        if (*n == cap) {
            run_row *more = realloc(rows, sizeof *rows * (size_t)(cap = cap ? 2 * cap : 16));
            if (!more) {
                free(rows);
                closedir(dir);
                idb_fail(err, IDB_ENOMEM, "out of memory");
                return NULL;
            }
            rows = more;
        }
        *n += read_run(&rows[*n], parent, e->d_name);
    }
    closedir(dir);
    if (*n) qsort(rows, (size_t)*n, sizeof *rows, by_start);
    return rows ? rows : calloc(1, sizeof *rows);
}

/* A cell of text. */
static void cell(FILE *f, const char *cls, const char *text)
{
    fprintf(f, "<td%s>", cls);
    mx_html_prose(f, text);
    fputs("</td>", f);
}

/* One row of the index table. */
static void put_row(FILE *f, const run_row *r)
{
    char rev[FIELD_LEN];
    snprintf(rev, sizeof rev, "%.*s%s", REVISION_SHOWN, r->revision,
             !strcmp(r->dirty, "true") ? " (modified)" : "");
    fputs("<tr>", f);
    cell(f, "", r->started);
    fputs("<td>", f);
    if (r->report) {
        fputs("<a href=\"", f);
        mx_html_url(f, r->name);
        fprintf(f, "/%s\">", r->report);
    }
    mx_html_esc(f, r->name);
    fputs(r->report ? "</a></td>" : "</td>", f);
    cell(f, "", rev);
    cell(f, "", r->command);
    cell(f, "", r->status);
    cell(f, " class=\"num\"", r->cells);
    cell(f, " class=\"num\"", r->failed);
    cell(f, "", r->headline);
    fputs("</tr>\n", f);
}

/* Write PARENT/index.html (see results_index.h). */
int mx_index_write(const char *parent, idb_err *err)
{
    int n;
    run_row *rows = read_runs(parent, &n, err);
    if (!rows) return err ? err->code : IDB_EIO;
    char path[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/index.html", parent);
    idb_atomic a;
    FILE *f = idb_atomic_open(&a, path);
    if (!f) {
        free(rows);
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    }
    mx_html_begin(f, "idbench runs");
    fprintf(f, "<p>%d results director%s, newest first; each name links to its report.</p>\n"
               "<div class=\"scroll\"><table class=\"sortable\">\n<thead><tr><th>started "
               "(UTC)</th><th>results</th><th>git revision</th><th>command</th><th>status"
               "</th><th class=\"num\">cells</th><th class=\"num\">failed</th><th>headline: "
               "fastest and slowest inserts</th></tr></thead>\n<tbody>\n",
            n, n == 1 ? "y" : "ies");
    for (int i = 0; i < n; i++) put_row(f, &rows[i]);
    fputs("</tbody></table></div>\n", f);
    mx_html_end(f);
    free(rows);
    if (idb_atomic_commit(&a, 0) != 0)
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

/* The directory that holds dir (see results_index.h). */
void mx_parent_dir(const char *dir, char *parent, size_t len)
{
    snprintf(parent, len, "%s", dir);
    size_t n = strlen(parent);
    while (n > 1 && parent[n - 1] == '/') parent[--n] = 0;
    char *slash = strrchr(parent, '/');
    if (!slash) snprintf(parent, len, ".");
    else if (slash == parent) slash[1] = 0;
    else *slash = 0;
}

/* Rewrite the index beside the results directory dir (see results_index.h). */
int mx_index_update(const char *dir, idb_err *err)
{
    char parent[MX_FILE_MAX];
    mx_parent_dir(dir, parent, sizeof parent);
    char real[PATH_MAX];
    const char *base = realpath(parent, real) ? strrchr(real, '/') : NULL;
    if (!base || strcmp(base + 1, MX_RUNS_DIR) != 0) return 0;    /* not under results/ */
    return mx_index_write(parent, err);
}
