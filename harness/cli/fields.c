/* fields.c — CSV and JSON result writers shared by insert and read (see fields.h). */
#include "fields.h"

#include <stdint.h>
#include <stdio.h>

/* Print v, or nothing for "unknown" (-1); then sep. */
static void print_i64(int64_t v, const char *sep)
{
    if (v >= 0) printf("%lld", (long long)v);
    fputs(sep, stdout);
}

/* Print v with fmt, or nothing for "unknown" (negative); then sep. */
static void print_f(double v, const char *fmt, const char *sep)
{
    if (v >= 0) printf(fmt, v);
    fputs(sep, stdout);
}

/* One field's value; JSON quotes strings and prints unknown values as null. */
static void print_value(const cli_field *f, int json, const char *sep)
{
    static const char *fmts[] = {
        [K_F0] = "%.0f", [K_F1] = "%.1f", [K_F3] = "%.3f", [K_F4] = "%.4f",
    };
    if (f->kind == K_STR || f->kind == K_LIST) {
        const char *v = f->p;
        if (json && f->kind == K_LIST && !v[0]) printf("null%s", sep);
        else printf(json ? "\"%s\"%s" : "%s%s", v, sep);
        return;
    }
    int64_t iv = f->kind == K_I64 ? *(const int64_t *)f->p : 0;
    double dv = f->kind == K_I64 ? 0 : *(const double *)f->p;
    if (json && ((f->kind == K_I64 && iv < 0) || (f->kind != K_I64 && dv < 0))) {
        printf("null%s", sep);
        return;
    }
    if (f->kind == K_I64) print_i64(iv, sep); else print_f(dv, fmts[f->kind], sep);
}

/* The n fields f and then the options o as one JSON object. */
static void print_json(const cli_field *f, int n, const idb_opts *o)
{
    int no = o ? o->n : 0;
    printf("{");
    for (int i = 0; i < n; i++) {
        printf("\"%s\": ", f[i].name);
        print_value(&f[i], 1, i + 1 < n || no ? ", " : "");
    }
    for (int i = 0; i < no; i++) {
        const idb_opt_decl *d = o->v[i].decl;
        if (d->type == IDB_OPT_INT) printf("\"%s\": %s", d->name, o->v[i].text);
        else printf("\"%s\": \"%s\"", d->name, o->v[i].text);
        fputs(i + 1 < no ? ", " : "", stdout);
    }
    printf("}\n");
}

void cli_print_fields(const cli_field *f, int n, const idb_opts *o, int json)
{
    int no = o ? o->n : 0;
    if (json) {
        print_json(f, n, o);
        return;
    }
    for (int i = 0; i < n; i++) printf("%s%s", f[i].name, i + 1 < n || no ? "," : "\n");
    for (int i = 0; i < no; i++) printf("%s%s", o->v[i].decl->name, i + 1 < no ? "," : "\n");
    for (int i = 0; i < n; i++) print_value(&f[i], 0, i + 1 < n || no ? "," : "\n");
    for (int i = 0; i < no; i++) printf("%s%s", o->v[i].text, i + 1 < no ? "," : "\n");
}

void cli_print_values(const cli_field *f, int n, const idb_opts *o, int json)
{
    int no = o ? o->n : 0;
    if (json) {
        print_json(f, n, o);
        return;
    }
    for (int i = 0; i < n; i++) print_value(&f[i], 0, i + 1 < n || no ? "," : "\n");
    for (int i = 0; i < no; i++) printf("%s%s", o->v[i].text, i + 1 < no ? "," : "\n");
}
