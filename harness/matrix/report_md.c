/* report_md.c — the markdown writer of the report (report_doc.h): report.md.
 *
 * Blocks are separated by one blank line; a table's rows and a list's items follow each
 * other. Text is copied as it is (its `name` spans are markdown already); a plot is its
 * PNG, plots/NAME.png; claims.md is copied in whole.
 */
#include "report_doc.h"

#include "plots.h"

/* What the last block was: nothing yet, a block, or an item of a list. */
enum { LAST_NONE, LAST_BLOCK, LAST_ITEM };

/* Start a block: a blank line after the one before. */
static void block(mx_doc *d, int kind)
{
    if (d->last != LAST_NONE && !(kind == LAST_ITEM && d->last == LAST_ITEM)) fputc('\n', d->f);
    d->last = kind;
}

/* "# title" */
static void md_begin(mx_doc *d, const char *title)
{
    block(d, LAST_BLOCK);
    fprintf(d->f, "# %s\n", title);
}

/* Nothing to close. */
static void md_end(mx_doc *d)
{
    (void)d;
}

/* "## text" for a section, "**text**" for a table's caption. */
static void md_heading(mx_doc *d, int level, const char *text)
{
    block(d, LAST_BLOCK);
    if (level <= 2) fprintf(d->f, "## %s\n", text);
    else fprintf(d->f, "**%s**\n", text);
}

/* The text, then a newline. */
static void md_para(mx_doc *d, const char *text)
{
    block(d, LAST_BLOCK);
    fprintf(d->f, "%s\n", text);
}

/* "- text" */
static void md_item(mx_doc *d, const char *text)
{
    block(d, LAST_ITEM);
    fprintf(d->f, "- %s\n", text);
}

/* "| a | b |" and "|---|---:|" */
static void md_table(mx_doc *d, int ncol, const char *const *head, const char *align)
{
    block(d, LAST_BLOCK);
    d->ncol = ncol;
    fputc('|', d->f);
    for (int c = 0; c < ncol; c++) fprintf(d->f, head[c][0] ? " %s |" : " |", head[c]);
    fputs("\n|", d->f);
    for (int c = 0; c < ncol; c++) fputs(align && align[c] == 'r' ? "---:|" : "---|", d->f);
    fputc('\n', d->f);
}

/* "| a | b |" */
static void md_row(mx_doc *d, const char *const *cells)
{
    fputc('|', d->f);
    for (int c = 0; c < d->ncol; c++) fprintf(d->f, " %s |", cells[c]);
    fputc('\n', d->f);
}

/* "![title](plots/NAME.png)" */
static void md_plot(mx_doc *d, int i)
{
    block(d, LAST_BLOCK);
    fprintf(d->f, "![%s](plots/%s.png)\n", mx_plots[i].title, mx_plots[i].name);
}

/* The text as it is. */
static void md_include(mx_doc *d, const char *md)
{
    block(d, LAST_BLOCK);
    fputs(md, d->f);
}

/* The markdown writer (see report_doc.h). */
const mx_doc_ops mx_doc_md = {
    .file = "report.md",
    .begin = md_begin,
    .end = md_end,
    .heading = md_heading,
    .para = md_para,
    .item = md_item,
    .table = md_table,
    .row = md_row,
    .plot = md_plot,
    .include = md_include,
};
