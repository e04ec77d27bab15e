/* matrix_progress.c — progress of a matrix run on stderr, never mixed into results.
 *
 * On a terminal: one line redrawn in place (\r) with a bar, the share done, the cell
 * running now, its elapsed time and an ETA for the whole run. Otherwise (a log, CI):
 * one plain line per finished cell, "matrix: [i/n] LABEL: 1.2 s (ETA 4m10s)". Failures
 * and notes always get a line of their own.
 *
 * The ETA sums estimates of the cells still to run, from measured times only: a cell like
 * one already finished (same kind, strategy, store, shards and cache size) is expected to
 * take that one's time scaled by its number of IDs; any other cell the seconds per ID of
 * the finished cells of its kind (per cell for kinds without IDs). A cell of a kind that
 * has not run yet has no estimate: the ETA then shows ">" (a lower bound), or "—" when no
 * pending cell has an estimate.
 */
#include "matrix.h"

#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "metrics.h"

/* A duration for people: "1h02m", "4m10s", "12s", "1.5s" (see matrix.h). */
void mx_fmt_duration(double s, char *buf, size_t len)
{
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60) snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else if (s >= 10 || s == 0) snprintf(buf, len, "%lds", t);
    else snprintf(buf, len, "%.1fs", s);
}

/* An ETA for people (see matrix.h). */
void mx_fmt_eta(double known_s, int unknown, char *buf, size_t len)
{
    char d[16];
    int known = !unknown || known_s > 0;
    mx_fmt_duration(known_s, d, sizeof d);
    snprintf(buf, len, "%s%s", !known ? "—" : unknown ? ">" : "", known ? d : "");
}

/* 1 if finished cell o predicts pending cell c (the same run but for the size). */
static int alike(const mx_cell *o, const mx_cell *c)
{
    return o->kind == c->kind && o->strategy == c->strategy && o->store == c->store &&
           o->shards == c->shards && o->cache_pages == c->cache_pages &&
           o->status != MX_PENDING && o->ids > 0;
}

/* What a cell's time scales with: its IDs, or 1 for a cell without. */
static double weight(const mx_cell *c)
{
    return c->ids > 0 ? (double)c->ids : 1;
}

/* Re-estimate every pending cell from the finished ones; the seconds known (see matrix.h). */
double mx_estimate(mx_plan *p, int *unknown)
{
    double took[MX_KINDS] = { 0 }, work[MX_KINDS] = { 0 }, left = 0;
    int missing = 0;
    for (int i = 0; i < p->n; i++)
        if (p->cells[i].status != MX_PENDING) {
            took[p->cells[i].kind] += p->cells[i].took_s;
            work[p->cells[i].kind] += weight(&p->cells[i]);
        }
    for (int i = 0; i < p->n; i++) {
        mx_cell *c = &p->cells[i];
        if (c->status != MX_PENDING) continue;
        const mx_cell *best = NULL;
        for (int j = 0; j < p->n; j++)
            if (alike(&p->cells[j], c) && (!best || p->cells[j].ids == c->ids)) best = &p->cells[j];
        if (best) c->est_s = best->took_s * (double)c->ids / (double)best->ids;
        else if (work[c->kind] > 0) c->est_s = took[c->kind] / work[c->kind] * weight(c);
        else c->est_s = -1;
        if (c->est_s >= 0) left += c->est_s;
        else missing++;
    }
    if (unknown) *unknown = missing;
    return left;
}

#define WIDTH_DEFAULT 80                         /* columns when stderr is no terminal */
#define WIDTH_MIN 20                             /* narrower terminals: WIDTH_DEFAULT */

/* Width of the terminal on stderr (WIDTH_DEFAULT when unknown). */
static int term_width(void)
{
    struct winsize ws;
    return ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > WIDTH_MIN ? ws.ws_col : WIDTH_DEFAULT;
}

/* Start the clock; a bar only when stderr is a terminal (see matrix.h). */
void mx_progress_start(mx_progress *pr, const mx_plan *p)
{
    memset(pr, 0, sizeof *pr);
    pr->tty = isatty(2);
    pr->width = pr->tty ? term_width() : WIDTH_DEFAULT;
    pr->t0_ns = idb_mono_ns();
    pr->total = p->n;
    pr->plan = p;
    pr->current = -1;
}

/* The ETA of the pending cells (the running one less its elapsed time) into buf. */
static void eta(const mx_progress *pr, char *buf, size_t len)
{
    double left = 0, now = (double)(idb_mono_ns() - pr->cell_t0_ns) / 1e9;
    int unknown = 0;
    for (int i = 0; i < pr->plan->n; i++) {
        const mx_cell *c = &pr->plan->cells[i];
        if (c->status != MX_PENDING) continue;
        if (c->est_s < 0) unknown++;
        else if (i == pr->current) left += c->est_s > now ? c->est_s - now : 0;
        else left += c->est_s;
    }
    mx_fmt_eta(left, unknown, buf, len);
}

#define BAR_WIDTH 20                             /* characters of the progress bar */

/* Redraw the bar line (terminal only). */
static void draw(const mx_progress *pr)
{
    if (!pr->tty || pr->current < 0) return;
    const mx_cell *c = &pr->plan->cells[pr->current];
    char el[16], et[24], line[512], bar[BAR_WIDTH + 1];
    double elapsed = (double)(idb_mono_ns() - pr->cell_t0_ns) / 1e9;
    mx_fmt_duration(elapsed, el, sizeof el);
    eta(pr, et, sizeof et);
    int filled = pr->total ? BAR_WIDTH * pr->done / pr->total : BAR_WIDTH;
    for (int i = 0; i < BAR_WIDTH; i++) bar[i] = i < filled ? '#' : '.';
    bar[BAR_WIDTH] = 0;
    snprintf(line, sizeof line, "[%s] %3d%% %d/%d ETA %s | %s (%s)%s", bar,
             pr->total ? 100 * pr->done / pr->total : 100, pr->done + 1, pr->total, et, c->label,
             el, pr->failed ? " | failed so far: " : "");
    if (pr->failed) snprintf(line + strlen(line), sizeof line - strlen(line), "%d", pr->failed);
    if ((int)strlen(line) > pr->width - 1) line[pr->width - 1] = 0;
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
}

/* Cell i starts: new estimates, redraw (see matrix.h). */
void mx_progress_cell(mx_progress *pr, int i)
{
    pr->current = i;
    pr->cell_t0_ns = idb_mono_ns();
    mx_estimate((mx_plan *)pr->plan, NULL);
    draw(pr);
}

/* Redraw the bar while a cell runs (a tick callback for mx_cell_run). */
void mx_progress_tick(void *ctx)
{
    draw(ctx);
}

/* Cell i ended: a log line (or, on a terminal, only failures get a line) (see matrix.h). */
void mx_progress_end_cell(mx_progress *pr, int i)
{
    const mx_cell *c = &pr->plan->cells[i];
    pr->done++;
    if (c->status == MX_FAILED) pr->failed++;
    mx_estimate((mx_plan *)pr->plan, NULL);
    char took[16], et[24];
    mx_fmt_duration(c->took_s, took, sizeof took);
    eta(pr, et, sizeof et);
    if (c->status == MX_FAILED)
        mx_progress_note(pr, "[%d/%d] %s: FAILED after %s: %s", pr->done, pr->total, c->label,
                         took, c->err.msg);
    else if (!pr->tty)
        fprintf(stderr, "matrix: [%d/%d] %s: %s (ETA %s)\n", pr->done, pr->total, c->label, took,
                et);
    pr->current = -1;
}

#define NOTE_MAX 1024                            /* bytes of a note, at most */

/* "matrix: ..." on a line of its own, the bar redrawn below it; control characters in it
 * (from a path, say) escaped as in the command line's error lines (see matrix.h). */
void mx_progress_note(mx_progress *pr, const char *fmt, ...)
{
    char note[NOTE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note, sizeof note, fmt, ap);
    va_end(ap);
    if (pr && pr->tty) fputs("\r\033[K", stderr);
    fputs("matrix: ", stderr);
    for (const unsigned char *p = (const unsigned char *)note; *p; p++) {
        if (*p == '\n') fputs("\\n", stderr);
        else if (*p < 0x20 || *p == 0x7f) fprintf(stderr, "\\x%02x", *p);
        else fputc(*p, stderr);
    }
    fputc('\n', stderr);
    if (pr) draw(pr);
}

/* Clear the bar and say how many cells ran, in how long, and how many failed. */
void mx_progress_finish(mx_progress *pr)
{
    if (pr->tty) fputs("\r\033[K", stderr);
    char took[16];
    mx_fmt_duration((double)(idb_mono_ns() - pr->t0_ns) / 1e9, took, sizeof took);
    fprintf(stderr, "matrix: %d cells in %s, %d failed\n", pr->total, took, pr->failed);
}
