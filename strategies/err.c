/* err.c — filling an idb_err. */
#include "err.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Every code and its name: one entry each. */
static const struct { int code; const char *name; } names[] = {
    { IDB_OK, "success" },
    { IDB_EINPUT, "bad input" },
    { IDB_ECLOCK, "clock behind" },
    { IDB_EUNAVAIL, "service unavailable" },
    { IDB_EEXHAUSTED, "ID space exhausted" },
    { IDB_EIO, "I/O error" },
    { IDB_ENOMEM, "out of memory" },
    { IDB_EFORK, "instance used after fork" },
};

const char *idb_strerror(int code)
{
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].code == code) return names[i].name;
    return "unknown error";
}

int idb_fail(idb_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}
