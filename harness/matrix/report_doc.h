/* report_doc.h — inside harness/matrix only: the report as a sequence of blocks.
 *
 * One walker (report.c) says what the report holds — its sections, sentences and tables —
 * through a writer, a small table of functions: report_md.c writes report.md, report_html.c
 * writes report.html. The wording lives in report.c and the plot table's sentence functions
 * alone, so both files say the same thing; a writer decides only how it looks. Text handed
 * to a writer is plain text in which `name` marks a name (code); the HTML writer escapes
 * every byte of it, the markdown writer copies it.
 */
#ifndef IDB_MATRIX_REPORT_DOC_H
#define IDB_MATRIX_REPORT_DOC_H

#include <stdio.h>

#include "matrix.h"

typedef struct mx_doc mx_doc;

/* A writer. Blocks are written in order; a table is table() then row() per row, a list is
 * consecutive item() calls; any other block ends an open table or list. */
typedef struct mx_doc_ops {
    const char *file;                            /* the file it writes in DIR */
    void (*begin)(mx_doc *d, const char *title);
    void (*end)(mx_doc *d);
    /* level 2: a section; level 3: the caption of the table that follows */
    void (*heading)(mx_doc *d, int level, const char *text);
    void (*para)(mx_doc *d, const char *text);   /* one paragraph, no trailing newline */
    void (*item)(mx_doc *d, const char *text);   /* one item of a bulleted list */
    /* A table of ncol columns: head[] its titles ("" for none), align one 'l' or 'r' per
     * column (NULL: all 'l'). */
    void (*table)(mx_doc *d, int ncol, const char *const *head, const char *align);
    void (*row)(mx_doc *d, const char *const *cells);
    void (*plot)(mx_doc *d, int i);              /* the image of plot i of mx_plots */
    void (*include)(mx_doc *d, const char *md);  /* a markdown file's text (claims.md) */
} mx_doc_ops;

/* A report being written: the writer, the results, the file and the writer's state. */
struct mx_doc {
    const mx_doc_ops *ops;
    const mx_results *r;
    FILE *f;
    int last;                                    /* writer's: the kind of the last block */
    int ncol;                                    /* the open table's columns */
    const char *align;                           /* and their alignment (may be NULL) */
    int section;                                 /* HTML: a <section> is open */
};

extern const mx_doc_ops mx_doc_md;               /* report_md.c */
extern const mx_doc_ops mx_doc_html;             /* report_html.c */

/* Write the report of r through the writer ops into DIR/ops->file, through a temporary
 * name (report.c). Returns 0, IDB_EIO or IDB_ENOMEM with err. */
int mx_report_write_doc(const mx_results *r, const mx_doc_ops *ops, idb_err *err);

#endif
