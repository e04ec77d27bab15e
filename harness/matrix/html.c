/* html.c — escaping and the page frame shared by report.html and results/index.html (html.h):
 * the style (one column that reads at a laptop's 1280 px and a phone's 390 px: wide tables
 * scroll inside their own box, plots scale to the width), the script that makes every table
 * with column titles sortable by a click on a title (numbers as numbers). No other script.
 */
#include "html.h"

#include <string.h>

/* What each byte that is not itself becomes. */
static const struct {
    char c;
    const char *entity;
} entities[] = {
    { '&', "&amp;" }, { '<', "&lt;" }, { '>', "&gt;" }, { '"', "&quot;" }, { '\'', "&#39;" },
};
#define REPLACEMENT "\xef\xbf\xbd"               /* U+FFFD, for a control character */

/* s[0..n) escaped (see html.h). */
void mx_html_esc_n(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *e = NULL;
        for (size_t k = 0; k < sizeof entities / sizeof *entities; k++)
            if (entities[k].c == (char)c) e = entities[k].entity;
        if (e) fputs(e, f);
        else if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) fputs(REPLACEMENT, f);
        else fputc(c, f);
    }
}

/* s escaped (see html.h). */
void mx_html_esc(FILE *f, const char *s)
{
    mx_html_esc_n(f, s, strlen(s));
}

/* s escaped, `spans` as code (see html.h). */
void mx_html_prose(FILE *f, const char *s)
{
    for (;;) {
        const char *open = strchr(s, '`');
        const char *close = open ? strchr(open + 1, '`') : NULL;
        if (!close) break;
        mx_html_esc_n(f, s, (size_t)(open - s));
        fputs("<code>", f);
        mx_html_esc_n(f, open + 1, (size_t)(close - open - 1));
        fputs("</code>", f);
        s = close + 1;
    }
    mx_html_esc(f, s);
}

/* Percent-encoded path (see html.h). */
void mx_html_url(FILE *f, const char *s)
{
    static const char keep[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789-._~/";
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (strchr(keep, *p)) fputc(*p, f);
        else fprintf(f, "%%%02X", *p);
    }
}

/* The style: one column, tables that scroll in their box, plots at the column's width. */
static const char style[] =
    "body{margin:0;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
    "color:#1d1d1f;background:#fff}\n"
    "main{max-width:1120px;margin:0 auto;padding:0 16px 48px}\n"
    "h1{font-size:1.8em;margin:.8em 0 .4em}\n"
    "h2{font-size:1.35em;margin:1.8em 0 .5em;border-bottom:1px solid #ddd;"
    "padding-bottom:.2em}\n"
    "h3{font-size:1em;margin:1.2em 0 .4em}\n"
    "p,li,td{overflow-wrap:anywhere}\n"
    "code{font:.92em ui-monospace,Menlo,Consolas,monospace;background:#f2f2f2;"
    "padding:0 .25em;border-radius:3px}\n"
    ".scroll{overflow-x:auto;max-width:100%}\n"
    "table{border-collapse:collapse;font-size:.9em;margin:.5em 0}\n"
    "th,td{padding:.3em .6em;border-bottom:1px solid #e3e3e3;text-align:left;"
    "vertical-align:top}\n"
    "th{background:#f5f5f5;white-space:nowrap}\n"
    "th.num,td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "th[tabindex]{cursor:pointer}\n"
    "th[aria-sort=ascending]::after{content:' \\25B2'}\n"
    "th[aria-sort=descending]::after{content:' \\25BC'}\n"
    "table.kv{width:100%;table-layout:fixed}\n"
    "table.kv td:first-child{width:32%;font-weight:600}\n"
    "table.text td{min-width:14em}\n"
    "figure{margin:1em 0}\n"
    "svg.plot{display:block;width:100%;height:auto;border:1px solid #eee}\n"
    "details{margin:.6em 0}\n"
    "summary{cursor:pointer;color:#0645ad}\n"
    ".why{color:#8a1f11}\n"
    "@media (max-width:600px){body{font-size:15px}main{padding:0 10px 32px}"
    "th,td{padding:.25em .4em}h1{font-size:1.5em}}\n";

/* Run last: every table with column titles sorts by a click (or Enter) on a title. */
static const char end_script[] =
    "(function(){\n"
    "function num(c){var v=parseFloat(c.textContent.replace(/,/g,''));return isNaN(v)?null:v;}\n"
    "function sort(th){var t=th.closest('table'),b=t.tBodies[0],i=th.cellIndex,"
    "d=th.getAttribute('aria-sort')==='ascending'?-1:1;\n"
    " t.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort');});\n"
    " th.setAttribute('aria-sort',d>0?'ascending':'descending');\n"
    " var rows=Array.prototype.slice.call(b.rows);\n"
    " rows.sort(function(x,y){var p=num(x.cells[i]),q=num(y.cells[i]);\n"
    "  if(p!==null&&q!==null)return (p-q)*d;if(p!==null)return -1;if(q!==null)return 1;\n"
    "  return x.cells[i].textContent.localeCompare(y.cells[i].textContent)*d;});\n"
    " rows.forEach(function(r){b.appendChild(r);});}\n"
    "document.querySelectorAll('table.sortable thead th').forEach(function(th){\n"
    " th.tabIndex=0;th.title='sort';th.addEventListener('click',function(){sort(th);});\n"
    " th.addEventListener('keydown',function(e){if(e.key==='Enter')sort(th);});});\n"
    "})();\n";

/* The page's head and <h1> (see html.h). */
void mx_html_begin(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          f);
    mx_html_esc(f, title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n<h1>", style);
    mx_html_esc(f, title);
    fputs("</h1>\n", f);
}

/* The page's end (see html.h). */
void mx_html_end(FILE *f)
{
    fprintf(f, "</main>\n<script>\n%s</script>\n</body>\n</html>\n", end_script);
}
