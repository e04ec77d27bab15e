/* err.h — error codes and the error record that strategies, stores and the harness fill.
 *
 * Functions return 0 on success or a negative IDB_E* code, and write one human sentence
 * (no "idbench: " prefix, no newline) into the idb_err they were given. The command line
 * maps IDB_EINPUT to exit status 2 and everything else to 1.
 */
#ifndef IDB_ERR_H
#define IDB_ERR_H

#include <stdint.h>

enum {
    IDB_OK = 0,
    IDB_EINPUT = -1,     /* bad input: unknown name, bad option, malformed ID */
    IDB_ECLOCK = -2,     /* the clock is behind the last timestamp used (behind_ms says how far) */
    IDB_EUNAVAIL = -3,   /* a service the strategy needs is down */
    IDB_EEXHAUSTED = -4, /* the ID space (or a field of it) is used up */
    IDB_EIO = -5,        /* a file or database failed */
    IDB_ENOMEM = -6,
    IDB_EFORK = -7,      /* an instance used in a child of fork() that it would repeat IDs in
                          * (the fork rule of strategy.h): create a new one in the child */
    IDB_EBUSY = -8,      /* a transaction lost to another writer (lock timeout, deadlock,
                          * serialization failure): roll it back and retry it in a new one */
};

typedef struct idb_err {
    int code;
    int64_t behind_ms;   /* IDB_ECLOCK: how many ms the clock is behind */
    char msg[256];
} idb_err;

/* A short name of code for messages ("bad input", "clock behind", ...); "unknown error"
 * for a code that is not one of the above. Never NULL. */
const char *idb_strerror(int code);

/* Fill err (which may be NULL) with code and a printf-style message; returns code. A message
 * too long for msg keeps its start and its end (the reason), the middle cut out. */
int idb_fail(idb_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
