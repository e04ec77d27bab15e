/* err.c — filling an idb_err. */
#include "err.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    { IDB_EBUSY, "transaction conflict" },
};

const char *idb_strerror(int code)
{
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].code == code) return names[i].name;
    return "unknown error";
}

#define MSG_TAIL 96             /* bytes kept from the end of a message too long for msg */
#define MSG_CUT " ... "         /* between the start and the end kept */

/* Put the message fmt/ap of n bytes (too long for err->msg) into err->msg as its start, then
 * MSG_CUT, then its last MSG_TAIL bytes, where the reason usually is; cuts fall between
 * UTF-8 characters. Plain truncation when out of memory. */
static void keep_ends(idb_err *err, int n, const char *fmt, va_list ap)
{
    char *full = malloc((size_t)n + 1);
    if (!full) return;                             /* err->msg holds the truncated start */
    vsnprintf(full, (size_t)n + 1, fmt, ap);
    size_t head = sizeof err->msg - 1 - MSG_TAIL - strlen(MSG_CUT), tail = (size_t)n - MSG_TAIL;
    while (head > 0 && ((unsigned char)full[head] & 0xc0) == 0x80) head--;
    while (((unsigned char)full[tail] & 0xc0) == 0x80) tail++;
    snprintf(err->msg, sizeof err->msg, "%.*s%s%s", (int)head, full, MSG_CUT, full + tail);
    free(full);
}

int idb_fail(idb_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap, again;
        va_start(ap, fmt);
        va_copy(again, ap);
        int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        if (n >= (int)sizeof err->msg) keep_ends(err, n, fmt, again);
        va_end(again);
        va_end(ap);
        err->code = code;
    }
    return code;
}
