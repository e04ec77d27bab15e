/* html.h — inside harness/matrix only: what report.html and the results index share: text
 * escaped for HTML, the page's head (style and the small inline scripts) and its end.
 * Every page is one self-contained file: no fetch, no external script, style or font.
 */
#ifndef IDB_MATRIX_HTML_H
#define IDB_MATRIX_HTML_H

#include <stddef.h>
#include <stdio.h>

/* Write the n first bytes of s to f, escaped for HTML text and attribute values (& < > " '
 * as entities; control characters but tab and newline as U+FFFD). */
void mx_html_esc_n(FILE *f, const char *s, size_t n);
/* The same for the whole string s. */
void mx_html_esc(FILE *f, const char *s);
/* Write s escaped, each `name` span as <code>name</code> (an unpaired backquote is text). */
void mx_html_prose(FILE *f, const char *s);
/* Write s percent-encoded for a relative URL's path (letters, digits and -._~/ kept). */
void mx_html_url(FILE *f, const char *s);
/* The page up to the opening of <main>: doctype, title (escaped), viewport, the style, then
 * <h1>title. */
void mx_html_begin(FILE *f, const char *title);
/* The end of the page: the sortable tables' script, then </html>. */
void mx_html_end(FILE *f);

#endif
