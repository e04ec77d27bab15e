/* cli.c — error lines, exit codes and argument helpers shared by the commands. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "options.h"

static int exit_for(int code) { return code == IDB_EINPUT ? EXIT_INPUT : EXIT_RUNTIME; }

int cli_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("idbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return exit_for(code);
}

int cli_fail_err(const idb_err *err)
{
    return cli_fail(err->code, "%s", err->msg[0] ? err->msg : "failed");
}

int cli_usage(const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("idbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    for (const cli_command *c = cli_commands; c->name; c++)
        if (strcmp(c->name, name) == 0) fprintf(stderr, " (usage: idbench %s)", c->usage);
    fputc('\n', stderr);
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
