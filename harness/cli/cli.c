/* cli.c — error lines, exit codes and argument helpers shared by the commands.
 *
 * Every error line goes through one printer (print_line): the message is one line whatever
 * it echoes — control characters are escaped (a newline as \n, any other byte below 0x20
 * and 0x7f as \xNN), so echoed input can never start a second line that poses as another
 * message — and a message longer than CLI_MSG_MAX bytes keeps its start and its end (where
 * the reason usually is) with the middle cut out and counted.
 */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

#define CLI_MSG_MAX 400          /* bytes of an escaped message, at most, before shortening */
#define CLI_MSG_TAIL 160         /* of them kept from its end when it is shortened */
#define CLI_MSG_HEAD (CLI_MSG_MAX - CLI_MSG_TAIL)

static int exit_for(int code) { return code == IDB_EINPUT ? EXIT_INPUT : EXIT_RUNTIME; }

/* The bytes byte c takes once escaped: \n, \xNN or itself. */
static size_t escaped_len(unsigned char c)
{
    if (c == '\n') return 2;
    return c < 0x20 || c == 0x7f ? 4 : 1;
}

/* Write s[0..n) to f with its control characters escaped. */
static void put_escaped(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n') fputs("\\n", f);
        else if (escaped_len(c) > 1) fprintf(f, "\\x%02x", c);
        else fputc(c, f);
    }
}

/* 1 when byte c continues a UTF-8 character (a cut must not fall before it). */
static int utf8_continues(char c) { return ((unsigned char)c & 0xc0) == 0x80; }

/* Write msg to f escaped; when that is longer than CLI_MSG_MAX, only its first
 * CLI_MSG_HEAD and last CLI_MSG_TAIL bytes (escaped), the cut said between them. */
static void put_message(FILE *f, const char *msg)
{
    size_t n = strlen(msg), total = 0;
    for (size_t i = 0; i < n; i++) total += escaped_len((unsigned char)msg[i]);
    if (total <= CLI_MSG_MAX) {
        put_escaped(f, msg, n);
        return;
    }
    size_t head = 0, tail = n, used = 0;
    while (head < n && used + escaped_len((unsigned char)msg[head]) <= CLI_MSG_HEAD)
        used += escaped_len((unsigned char)msg[head++]);
    while (head > 0 && utf8_continues(msg[head])) head--;
    used = 0;
    while (tail > head && used + escaped_len((unsigned char)msg[tail - 1]) <= CLI_MSG_TAIL)
        used += escaped_len((unsigned char)msg[--tail]);
    while (tail < n && utf8_continues(msg[tail])) tail++;
    put_escaped(f, msg, head);
    fprintf(f, " [... %zu bytes cut ...] ", tail - head);
    put_escaped(f, msg + tail, n - tail);
}

/* Format fmt and ap into a malloc'd string (NULL when out of memory). */
static char *format(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *s = n < 0 ? NULL : malloc((size_t)n + 1);
    if (s) vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

/* "idbench: MESSAGE SUFFIX" as one line on stderr, in one write; suffix is ours (not
 * escaped). */
static void print_line(const char *fmt, va_list ap, const char *suffix)
{
    char *msg = format(fmt, ap), *line = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&line, &len);
    if (f) {
        fputs("idbench: ", f);
        put_message(f, msg ? msg : "out of memory for an error message");
        fprintf(f, "%s\n", suffix);
    }
    if (f && fclose(f) == 0) fwrite(line, 1, len, stderr);
    else fprintf(stderr, "idbench: %s\n", "out of memory for an error message");
    free(line);
    free(msg);
}

int cli_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_line(fmt, ap, "");
    va_end(ap);
    return exit_for(code);
}

int cli_fail_err(const idb_err *err)
{
    return cli_fail(err->code, "%s", err->msg[0] ? err->msg : "failed");
}

int cli_usage(const char *name, const char *fmt, ...)
{
    char usage[512] = "";
    for (const cli_command *c = cli_commands; c->name; c++)
        if (strcmp(c->name, name) == 0)
            snprintf(usage, sizeof usage, " (usage: idbench %s)", c->usage);
    va_list ap;
    va_start(ap, fmt);
    print_line(fmt, ap, usage);
    va_end(ap);
    return EXIT_INPUT;
}

int cli_kv_add(cli_kv *l, const char *s)
{
    if (l->n == CLI_MAX_KV)
        return cli_fail(IDB_EINPUT, "too many KEY=VALUE options (at most %d)", CLI_MAX_KV);
    l->kv[l->n++] = s;
    return 0;
}

int cli_parse_count(const char *flag, const char *s, long long min, long long max, long long *out)
{
    int64_t v;
    if (idb_parse_i64(s, &v) != 0)
        return cli_fail(IDB_EINPUT, "%s: '%s' is not an integer", flag, s);
    if (v < min || v > max)
        return cli_fail(IDB_EINPUT, "%s: %s is out of range %lld..%lld", flag, s, min, max);
    *out = v;
    return 0;
}
