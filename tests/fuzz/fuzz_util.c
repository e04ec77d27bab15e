/* fuzz_util.c — the helpers the fuzz targets share (see fuzz_util.h). */
#include "fuzz_util.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tmpdir.h"

/* UBSan reads this at start-up: abort on undefined behaviour (see fuzz_util.h). */
const char *__ubsan_default_options(void)
{
    return "halt_on_error=1:print_stacktrace=1";
}

static char tmp_dir[PATH_MAX];         /* "" until the first fuzz_tmp_path */

/* atexit: remove the private directory. */
static void tmp_remove(void)
{
    if (tmp_dir[0]) idb_tmpdir_remove(tmp_dir);
}

/* Say which property broke, remove the private directory (libFuzzer keeps the input
 * itself), then abort (see fuzz_util.h). */
void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: property %s broke: ", file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    tmp_remove();
    abort();
}

/* The input as a C string, malloc'd (see fuzz_util.h). */
char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) abort();
    if (size) memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* Split at newlines, in place (see fuzz_util.h). */
int fuzz_lines(char *text, char **lines, int max)
{
    int n = 0;
    if (!*text || max <= 0) return 0;
    for (char *p = text; n < max; n++) {
        lines[n] = p;
        char *nl = n + 1 < max ? strchr(p, '\n') : NULL;
        if (!nl) return n + 1;
        *nl = 0;
        p = nl + 1;
    }
    return n;
}


/* A path in the private temporary directory, made on first use (see fuzz_util.h). */
char *fuzz_tmp_path(const char *name, char *buf, size_t len)
{
    if (!tmp_dir[0]) {
        if (idb_tmpdir_make(tmp_dir, sizeof tmp_dir) != 0) {
            perror("fuzz: cannot make a temporary directory");
            abort();
        }
        atexit(tmp_remove);
    }
    int n = snprintf(buf, len, "%s/%s", tmp_dir, name);
    if (n < 0 || (size_t)n >= len) {
        fprintf(stderr, "fuzz: path %s/%s too long\n", tmp_dir, name);
        abort();
    }
    return buf;
}

/* The whole file, or abort (see fuzz_util.h). */
void fuzz_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
        perror(path);
        abort();
    }
}
