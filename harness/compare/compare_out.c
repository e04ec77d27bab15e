/* compare_out.c — how `idbench compare` prints its rows (compare_int.h): an aligned table
 * with notes for people, CSV or JSON for programs. Every format has the same fields: loop,
 * cell, metric, which way is better, the medians A and B, the change in percent, p, the
 * test that gave it (p_method: exact or normal), the repeats on each side, the verdict and
 * whether it is a regression beyond --fail-on-regression. Unknown figures are "-" (table),
 * empty (CSV) or null (JSON).
 */
#include "compare_int.h"

#include <math.h>
#include <string.h>

#include "utest.h"

#define NUM_LEN 32                               /* a formatted number */

/* Which way is better, as a word. */
static const char *better_word(const cmp_metric *m)
{
    return !m ? "" : m->better == CMP_HIGHER ? "higher" : "lower";
}

/* The test behind row's p: "exact", "normal" or "" (no test). */
static const char *test_word(const cmp_row *row)
{
    return isnan(row->p) ? "" : row->exact ? "exact" : "normal";
}

/* v with fmt into buf, or none (the string for an unknown value) when v is NAN or
 * infinite (an infinite change: "+inf"). */
static const char *num(char *buf, const char *fmt, double v, const char *none)
{
    if (isinf(v)) snprintf(buf, NUM_LEN, "%sinf", v > 0 ? "+" : "-");
    else if (isnan(v)) snprintf(buf, NUM_LEN, "%s", none);
    else snprintf(buf, NUM_LEN, fmt, v);
    return buf;
}

/* The cell column of row for the table: the open loop's cells marked. */
static void table_cell(const cmp_row *row, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", strcmp(row->loop, "open") ? "" : "[open] ", row->cell);
}

/* The notes under the table: the test, the rows not tested and why, the regressions. */
static void table_notes(const cmp_result *r, FILE *out)
{
    int not_tested = 0, regressions = 0, na = 0, nb = 0;
    double p_min = 0;
    for (int i = 0; i < r->n; i++) {
        const cmp_row *row = &r->rows[i];
        regressions += row->regression;
        if (row->verdict != CMP_NOT_TESTED) continue;
        if (!not_tested++ || row->p_min > p_min) {
            p_min = row->p_min;
            na = row->na;
            nb = row->nb;
        }
    }
    fprintf(out, "\np: two-sided Mann-Whitney U test over the repeats (p_method exact: the "
                 "permutation distribution, ties included, up to %d runs a side, or without "
                 "ties up to %d in all; normal: the normal approximation with tie "
                 "correction); alpha %g\n", UTEST_EXACT_SIDE, UTEST_EXACT_MAX, r->o->alpha);
    if (not_tested)
        fprintf(out, "not tested: %d row%s with too few repeats for p < %g (%d vs %d: p cannot go "
                     "below %.3g); judged by the change alone\n", not_tested,
                not_tested == 1 ? "" : "s", r->o->alpha, na, nb, p_min);
    if (r->o->fail_pct >= 0)
        fprintf(out, "regressions worse than %g%% (significant or not tested): %d\n",
                r->o->fail_pct, regressions);
}

/* The aligned table, the cells on one side only, the notes. */
static void print_table(const cmp_result *r, FILE *out)
{
    int w = (int)strlen("cell");
    char cell[CMP_LABEL_MAX + 8], a[NUM_LEN], b[NUM_LEN], ch[NUM_LEN], p[NUM_LEN];
    for (int i = 0; i < r->n; i++) {
        table_cell(&r->rows[i], cell, sizeof cell);
        if (r->rows[i].m && (int)strlen(cell) > w) w = (int)strlen(cell);
    }
    if (r->o->strat_a)
        fprintf(out, "A = %s, B = %s, in %s\n\n", r->o->strat_a, r->o->strat_b, r->o->dir_a);
    else fprintf(out, "A = %s\nB = %s\n\n", r->o->dir_a, r->o->dir_b);
    fprintf(out, "%-*s  %-20s %12s %12s %9s %8s %-8s %7s  %s\n", w, "cell", "metric", "A",
            "B", "change", "p", "p_method", "repeats", "verdict");
    for (int i = 0; i < r->n; i++) {
        const cmp_row *row = &r->rows[i];
        if (!row->m) continue;
        table_cell(row, cell, sizeof cell);
        char reps[NUM_LEN];
        snprintf(reps, sizeof reps, "%d/%d", row->na, row->nb);
        fprintf(out, "%-*s  %-20s %12s %12s %9s %8s %-8s %7s  %s%s\n", w, cell, row->m->name,
                num(a, "%.6g", row->a, "-"), num(b, "%.6g", row->b, "-"),
                num(ch, "%+.1f%%", row->change_pct, "-"), num(p, "%.4f", row->p, "-"),
                *test_word(row) ? test_word(row) : "-", reps,
                cmp_verdicts[row->verdict], row->regression ? "  << regression" : "");
    }
    for (int i = 0; i < r->n; i++)
        if (!r->rows[i].m) {
            table_cell(&r->rows[i], cell, sizeof cell);
            fprintf(out, "%s: %s\n", cmp_verdicts[r->rows[i].verdict], cell);
        }
    table_notes(r, out);
}

/* s as a CSV field: quoted when it holds a comma or a quote. */
static void csv_field(FILE *out, const char *s, const char *sep)
{
    if (!strpbrk(s, ",\"")) fputs(s, out);
    else {
        fputc('"', out);
        for (; *s; s++) fputs(*s == '"' ? "\"\"" : (char[]){ *s, 0 }, out);
        fputc('"', out);
    }
    fputs(sep, out);
}

/* One header line, then one line per row. */
static void print_csv(const cmp_result *r, FILE *out)
{
    fputs("loop,cell,metric,better,a,b,change_pct,p,p_method,n_a,n_b,verdict,regression\n", out);
    char a[NUM_LEN], b[NUM_LEN], ch[NUM_LEN], p[NUM_LEN];
    for (int i = 0; i < r->n; i++) {
        const cmp_row *row = &r->rows[i];
        csv_field(out, row->loop, ",");
        csv_field(out, row->cell, ",");
        fprintf(out, "%s,%s,%s,%s,%s,%s,%s,%d,%d,%s,%d\n", row->m ? row->m->name : "",
                better_word(row->m), num(a, "%.10g", row->a, ""), num(b, "%.10g", row->b, ""),
                num(ch, "%.4f", row->change_pct, ""), num(p, "%.6g", row->p, ""),
                test_word(row), row->na, row->nb, cmp_verdicts[row->verdict], row->regression);
    }
}

/* s as a JSON string, or null when s is NULL. */
static void json_str(FILE *out, const char *s)
{
    if (!s) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
        else if (c < 0x20) fprintf(out, "\\u%04x", c);
        else fputc(c, out);
    }
    fputc('"', out);
}

/* v as a JSON number, or null when unknown. */
static void json_num(FILE *out, double v)
{
    if (isfinite(v)) fprintf(out, "%.10g", v);
    else fputs("null", out);
}

/* One JSON object: the two sides, the settings, the rows. */
static void print_json(const cmp_result *r, FILE *out)
{
    fputs("{\"a\": ", out);
    json_str(out, r->o->strat_a ? r->o->strat_a : r->o->dir_a);
    fputs(", \"b\": ", out);
    json_str(out, r->o->strat_b ? r->o->strat_b : r->o->dir_b);
    fputs(", \"within\": ", out);
    json_str(out, r->o->strat_a ? r->o->dir_a : NULL);
    fputs(", \"alpha\": ", out);
    json_num(out, r->o->alpha);
    fputs(", \"fail_on_regression_pct\": ", out);
    json_num(out, r->o->fail_pct >= 0 ? r->o->fail_pct : NAN);
    fputs(", \"rows\": [", out);
    for (int i = 0; i < r->n; i++) {
        const cmp_row *row = &r->rows[i];
        fputs(i ? ",\n  {\"loop\": " : "\n  {\"loop\": ", out);
        json_str(out, row->loop);
        fputs(", \"cell\": ", out);
        json_str(out, row->cell);
        fputs(", \"metric\": ", out);
        json_str(out, row->m ? row->m->name : NULL);
        fputs(", \"better\": ", out);
        json_str(out, row->m ? better_word(row->m) : NULL);
        const double v[] = { row->a, row->b, row->change_pct, row->p };
        const char *const k[] = { "a", "b", "change_pct", "p" };
        for (size_t j = 0; j < sizeof v / sizeof *v; j++) {
            fprintf(out, ", \"%s\": ", k[j]);
            json_num(out, v[j]);
        }
        fputs(", \"p_method\": ", out);
        json_str(out, *test_word(row) ? test_word(row) : NULL);
        fprintf(out, ", \"n_a\": %d, \"n_b\": %d, \"verdict\": \"%s\", \"regression\": %s}",
                row->na, row->nb, cmp_verdicts[row->verdict], row->regression ? "true" : "false");
    }
    fputs(r->n ? "\n]}\n" : "]}\n", out);
}

/* Print r in its format (see compare_int.h). */
void cmp_print(const cmp_result *r, FILE *out)
{
    static void (*const printers[])(const cmp_result *, FILE *) = {
        [CMP_TABLE] = print_table, [CMP_CSV] = print_csv, [CMP_JSON] = print_json,
    };
    printers[r->o->format](r, out);
}
