/* report_html.c — the HTML writer of the report (report_doc.h): report.html.
 *
 * One self-contained file: each drawn plot's SVG (DIR/plots/NAME.svg, as gnuplot wrote it)
 * inlined, with the numbers behind it one click away (a <details> holding the plot's data
 * files, made again by its prepare function, and the names its variables give); sections,
 * sortable tables, the environment and the failed cells as report.md has them, with the
 * same sentences. Every text that comes from a results file is escaped (html.h); an SVG
 * that holds anything but drawing (a script, a foreign object, an event handler) is not
 * inlined. The page's frame and style are html.c's.
 */
#include "report_doc.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "html.h"
#include "plots.h"
#include "tmpdir.h"

/* What is open: nothing, a list, a table. */
enum { OPEN_NONE, OPEN_LIST, OPEN_TABLE };

#define DATA_ROWS_MAX 5000                       /* rows of a plot's data shown, at most */
#define DATA_LINE_MAX 4096                       /* a data file's line, at most */

/* Close an open list or table. */
static void close_open(mx_doc *d)
{
    if (d->last == OPEN_LIST) fputs("</ul>\n", d->f);
    if (d->last == OPEN_TABLE) fputs("</tbody></table></div>\n", d->f);
    d->last = OPEN_NONE;
}

/* The page's head. */
static void h_begin(mx_doc *d, const char *title)
{
    mx_html_begin(d->f, title);
}

/* Close what is open, then the page. */
static void h_end(mx_doc *d)
{
    close_open(d);
    if (d->section) fputs("</section>\n", d->f);
    mx_html_end(d->f);
}

/* <section><h2> for a section, <h3> for a table's caption. */
static void h_heading(mx_doc *d, int level, const char *text)
{
    close_open(d);
    if (level <= 2) {
        if (d->section) fputs("</section>\n", d->f);
        fprintf(d->f, "<section id=\"s%d\">\n<h2>", ++d->section);
    } else {
        fputs("<h3>", d->f);
    }
    mx_html_esc(d->f, text);
    fputs(level <= 2 ? "</h2>\n" : "</h3>\n", d->f);
}

/* <p> */
static void h_para(mx_doc *d, const char *text)
{
    close_open(d);
    fputs("<p>", d->f);
    mx_html_prose(d->f, text);
    fputs("</p>\n", d->f);
}

/* <li>, in a <ul> opened by the first. */
static void h_item(mx_doc *d, const char *text)
{
    if (d->last != OPEN_LIST) {
        close_open(d);
        fputs("<ul>\n", d->f);
        d->last = OPEN_LIST;
    }
    fputs("<li>", d->f);
    mx_html_prose(d->f, text);
    fputs("</li>\n", d->f);
}

/* A table's start: sortable when it has column titles, a key-value table when not. */
static void table_start(FILE *f, int ncol, const char *const *head, const char *align,
                        const char *cls)
{
    int titled = 0;
    for (int c = 0; c < ncol; c++) titled |= head[c][0] != 0;
    fprintf(f, "<div class=\"scroll\"><table class=\"%s%s\">\n", titled ? "sortable" : "kv",
            cls);
    if (titled) {
        fputs("<thead><tr>", f);
        for (int c = 0; c < ncol; c++) {
            fputs(align && align[c] == 'r' ? "<th class=\"num\">" : "<th>", f);
            mx_html_esc(f, head[c]);
            fputs("</th>", f);
        }
        fputs("</tr></thead>\n", f);
    }
    fputs("<tbody>\n", f);
}

/* A table of the report. */
static void h_table(mx_doc *d, int ncol, const char *const *head, const char *align)
{
    close_open(d);
    table_start(d->f, ncol, head, align, "");
    d->ncol = ncol;
    d->last = OPEN_TABLE;
    d->align = align;
}

/* A row of the open table. */
static void h_row(mx_doc *d, const char *const *cells)
{
    fputs("<tr>", d->f);
    for (int c = 0; c < d->ncol; c++) {
        fputs(d->align && d->align[c] == 'r' ? "<td class=\"num\">" : "<td>", d->f);
        mx_html_prose(d->f, cells[c]);
        fputs("</td>", d->f);
    }
    fputs("</tr>\n", d->f);
}

/* The SVG elements gnuplot draws with: an SVG holding any other is not inlined. */
static const char *const svg_elements[] = {
    "svg", "g", "path", "polygon", "polyline", "rect", "circle", "ellipse", "line", "text",
    "tspan", "title", "desc", "defs", "use", "filter", "feComposite", "feFlood", "feOffset",
    "feGaussianBlur", "feBlend", "pattern", "clipPath", "linearGradient", "stop", "marker",
};

/* Attribute text rewritten in an inlined SVG so its ids stay apart from another plot's. */
static const char *const id_marks[] = { " id=\"", " id='", "href=\"#", "href='#", "url(#" };

/* 1 when the tag tag[0..n) (from '<' to '>') is a drawing element with no event handler,
 * no link out of the SVG and nothing fetched. */
static int tag_safe(const char *tag, size_t n)
{
    size_t k = tag[1] == '/' ? 2 : 1, len = strcspn(tag + k, " \t\r\n/>");
    int known = 0;
    for (size_t i = 0; i < sizeof svg_elements / sizeof *svg_elements; i++)
        known |= strlen(svg_elements[i]) == len && !strncmp(svg_elements[i], tag + k, len);
    if (!known) return 0;
    for (size_t i = 1; i + 2 < n; i++) {
        if (strchr(" \t\r\n", tag[i]) && !strncasecmp(tag + i + 1, "on", 2)) return 0;
        if (!strncmp(tag + i, "href=", 5) && tag[i + 6] != '#') return 0;
        if (!strncasecmp(tag + i, "url(", 4) && tag[i + 4] != '#') return 0;
    }
    return 1;
}

/* Write the tag tag[0..n) to f with its ids prefixed by "pNUM-". */
static void put_tag(FILE *f, const char *tag, size_t n, int num)
{
    for (size_t i = 0; i < n;) {
        size_t mark = 0;
        for (size_t k = 0; k < sizeof id_marks / sizeof *id_marks && !mark; k++)
            if (!strncmp(tag + i, id_marks[k], strlen(id_marks[k]))) mark = strlen(id_marks[k]);
        if (mark) {
            fwrite(tag + i, 1, mark, f);
            fprintf(f, "p%d-", num);
            i += mark;
        } else {
            fputc(tag[i++], f);
        }
    }
}

/* The SVG svg from its <svg> on into f, class "plot" added, ids prefixed. Returns 0, or -1
 * when it holds anything but drawing (then f holds a part). */
static int svg_copy(FILE *f, const char *svg, int num)
{
    const char *s = strstr(svg, "<svg");
    if (!s) return -1;
    fputs("<svg class=\"plot\" role=\"img\"", f);
    s += strlen("<svg");
    const char *end = strchr(s, '>');
    if (!end) return -1;
    put_tag(f, s, (size_t)(end - s + 1), num);
    for (s = end + 1; *s;) {
        const char *lt = strchr(s, '<');
        if (!lt) return -1;                       /* text after </svg> */
        fwrite(s, 1, (size_t)(lt - s), f);
        end = strchr(lt, '>');
        if (!end || !tag_safe(lt, (size_t)(end - lt + 1))) return -1;
        put_tag(f, lt, (size_t)(end - lt + 1), num);
        s = end + 1;
        if (!strncmp(lt, "</svg>", 6)) break;
    }
    fputc('\n', f);
    return 0;
}

/* Plot i's SVG inlined, or a line saying why not. */
static void inline_svg(mx_doc *d, int i)
{
    char path[MX_FILE_MAX], *out = NULL;
    size_t len, out_len = 0;
    snprintf(path, sizeof path, "%s/plots/%s.svg", d->r->dir, mx_plots[i].name);
    char *svg = mx_read_file(path, &len, NULL);
    FILE *m = svg ? open_memstream(&out, &out_len) : NULL;
    int rc = m ? svg_copy(m, svg, i + 1) : -1;
    if (m && fclose(m) != 0) rc = -1;
    if (rc == 0 && out) fwrite(out, 1, out_len, d->f);
    else fprintf(d->f, "<p class=\"why\">plots/%s.svg %s.</p>\n", mx_plots[i].name,
                 svg ? "holds more than a drawing: not shown" : "cannot be read");
    free(svg);
    free(out);
}

/* The "# Data..." comment of plots/NAME.gp (what each column of the data holds) as a
 * paragraph, when the script has one. */
static void data_note(FILE *f, const char *name)
{
    char path[MX_FILE_MAX], line[DATA_LINE_MAX];
    snprintf(path, sizeof path, "%s/plots/%s.gp", mx_source_dir(), name);
    FILE *gp = fopen(path, "r");
    int in = 0;
    while (gp && fgets(line, sizeof line, gp)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!in && strncmp(line, "# Data", strlen("# Data")) != 0) continue;
        if (line[0] != '#') break;
        fputs(in++ ? " " : "<p>", f);
        mx_html_esc(f, line + strspn(line, "# "));
    }
    if (in) fputs("</p>\n", f);
    if (gp) fclose(gp);
}

/* A gnuplot string literal's text (octal escapes decoded) into out (len bytes). */
static void gp_unquote(const char *lit, char *out, size_t len)
{
    size_t o = 0;
    for (const char *p = lit + 1; *p && *p != '"' && o + 1 < len; p++) {
        if (*p == '\\' && p[1] >= '0' && p[1] <= '7') {
            out[o++] = (char)strtol((char[]){ p[1], p[2], p[3], 0 }, NULL, 8);
            p += 3;
        } else {
            out[o++] = *p;
        }
    }
    out[o] = 0;
}

/* The plot's variables (names, titles, counts) as a table: name, value. */
static void vars_table(FILE *f, char *vars)
{
    static const char *const head[] = { "variable", "value" };
    table_start(f, 2, head, NULL, " data");
    for (char *line = strtok(vars, "\n"); line; line = strtok(NULL, "\n")) {
        char *eq = strstr(line, " = ");
        if (!eq) continue;
        char text[DATA_LINE_MAX];
        if (eq[3] == '"') gp_unquote(eq + 3, text, sizeof text);
        else snprintf(text, sizeof text, "%s", eq + 3);
        fputs("<tr><td>", f);
        mx_html_esc_n(f, line, (size_t)(eq - line));
        fputs("</td><td>", f);
        mx_html_esc(f, text);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

/* The most tab-separated fields of a line of text. */
static int max_fields(const char *text)
{
    int most = 0;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        int fields = 1;
        for (size_t k = 0; k < n; k++) fields += p[k] == '\t';
        if (n && fields > most) most = fields;
        p += n + (p[n] == '\n');
    }
    return most;
}

/* One data file as a table: its block (data sets apart by blank lines) and columns 1, 2... */
static void data_table(FILE *f, const char *name, const char *text)
{
    int ncol = max_fields(text), block = 1, rows = 0, blank = 0;
    fputs("<p><code>", f);
    mx_html_esc(f, name);
    fputs("</code></p>\n<div class=\"scroll\"><table class=\"sortable data\">\n<thead><tr>"
          "<th class=\"num\">block</th>", f);
    for (int c = 1; c <= ncol; c++) fprintf(f, "<th class=\"num\">%d</th>", c);
    fputs("</tr></thead>\n<tbody>\n", f);
    for (const char *p = text; *p && rows < DATA_ROWS_MAX;) {
        size_t n = strcspn(p, "\n");
        if (n == 0) {
            blank = 1;
        } else {
            block += blank && rows;
            blank = 0;
            fprintf(f, "<tr><td class=\"num\">%d</td><td class=\"num\">", block);
            for (size_t k = 0; k < n; k++) {
                if (p[k] == '\t') fputs("</td><td class=\"num\">", f);
                else mx_html_esc_n(f, p + k, 1);
            }
            fputs("</td></tr>\n", f);
            rows++;
        }
        p += n + (p[n] == '\n');
    }
    fputs("</tbody></table></div>\n", f);
}

/* Keep the plot's data files: regular, not hidden. */
static int data_file(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

/* Every data file in scratch as a table, in name order. */
static void data_tables(FILE *f, const char *scratch)
{
    struct dirent **list;
    int n = scandir(scratch, &list, data_file, alphasort);
    for (int k = 0; k < n; k++) {
        char path[MX_FILE_MAX];
        size_t len;
        snprintf(path, sizeof path, "%s/%s", scratch, list[k]->d_name);
        char *text = mx_read_file(path, &len, NULL);
        if (text) data_table(f, list[k]->d_name, text);
        free(text);
        free(list[k]);
    }
    if (n >= 0) free(list);
}

/* The numbers behind plot i: its data made again by its prepare function, in a <details>. */
static void plot_data(mx_doc *d, int i)
{
    char scratch[MX_SCRATCH_MAX], *vars = NULL;
    size_t vlen = 0;
    idb_err why = { 0 };
    int made = idb_tmpdir_make(scratch, sizeof scratch) == 0;
    int rc = made ? 0 : idb_fail(&why, IDB_EIO, "no temporary directory");
    FILE *v = rc ? NULL : open_memstream(&vars, &vlen);
    if (!rc && !v) rc = idb_fail(&why, IDB_ENOMEM, "out of memory");
    if (!rc) rc = mx_plots[i].prepare(d->r, scratch, v, &why);
    if (v && fclose(v) != 0 && !rc) rc = idb_fail(&why, IDB_ENOMEM, "out of memory");
    fputs("<details>\n<summary>The numbers behind this plot</summary>\n", d->f);
    if (rc) {
        fputs("<p class=\"why\">", d->f);
        mx_html_esc(d->f, why.msg);
        fputs("</p>\n", d->f);
    } else {
        data_note(d->f, mx_plots[i].name);
        vars_table(d->f, vars);
        data_tables(d->f, scratch);
    }
    fputs("</details>\n", d->f);
    free(vars);
    if (made) idb_tmpdir_remove(scratch);
}

/* <figure>: the SVG and the numbers behind it. */
static void h_plot(mx_doc *d, int i)
{
    close_open(d);
    fprintf(d->f, "<figure id=\"plot-%s\">\n", mx_plots[i].name);
    inline_svg(d, i);
    plot_data(d, i);
    fputs("</figure>\n", d->f);
}

#define MD_CELLS_MAX 64                          /* columns of an included table, at most */

/* Split the markdown table line line (changed in place) into cells; returns how many. */
static int md_cells(char *line, char **cells)
{
    int n = 0;
    char *p = line + 1;                           /* after the first '|' */
    while (*p && n < MD_CELLS_MAX) {
        char *bar = strchr(p, '|');
        if (!bar) break;
        *bar = 0;
        while (*p == ' ') p++;
        for (char *e = bar; e > p && e[-1] == ' ';) *--e = 0;
        cells[n++] = p;
        p = bar + 1;
    }
    return n;
}

/* One line of an included markdown file: a table's line (its head, its rule or a row) or a
 * paragraph. */
static void include_line(mx_doc *d, char *line, int *head_next)
{
    char *cells[MD_CELLS_MAX];
    if (line[0] != '|') {
        *head_next = 1;
        if (line[0]) h_para(d, line);
        return;
    }
    int n = md_cells(line, cells);
    if (n && !strncmp(cells[0], "---", 3)) return;        /* the rule under the head */
    if (*head_next) {
        close_open(d);
        table_start(d->f, n, (const char *const *)cells, NULL, " text");
        d->ncol = n;
        d->align = NULL;
        d->last = OPEN_TABLE;
        *head_next = 0;
        return;
    }
    for (int c = n; c < d->ncol; c++) cells[c] = "";
    h_row(d, (const char *const *)cells);
}

/* A markdown file's text (claims.md): its tables as tables, other lines as paragraphs. */
static void h_include(mx_doc *d, const char *md)
{
    char *copy = strdup(md);
    int head_next = 1;
    if (!copy) return;
    for (char *line = copy, *nl; line; line = nl) {
        nl = strchr(line, '\n');
        if (nl) *nl++ = 0;
        include_line(d, line, &head_next);
    }
    free(copy);
    close_open(d);
}

/* The HTML writer (see report_doc.h). */
const mx_doc_ops mx_doc_html = {
    .file = "report.html",
    .begin = h_begin,
    .end = h_end,
    .heading = h_heading,
    .para = h_para,
    .item = h_item,
    .table = h_table,
    .row = h_row,
    .plot = h_plot,
    .include = h_include,
};
