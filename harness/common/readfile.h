/* readfile.h — opening and reading the files idbench is given to read (results files,
 * workload and matrix files, meta.json): the one place that decides what may be read. A
 * path is opened without following a symlink in its last component and without blocking
 * (O_NOFOLLOW | O_NONBLOCK: a FIFO never hangs the open), then fstat-ed: anything but a
 * regular file (a FIFO, a device such as /dev/zero, a directory, a socket), or a file over
 * the caller's limit, is refused in one line before any byte is read; O_NONBLOCK is then
 * cleared. Reading stops one byte past the limit, so a file that grows meanwhile is
 * refused too and memory stays bounded whatever the file.
 */
#ifndef IDB_READFILE_H
#define IDB_READFILE_H

#include <stddef.h>

#include "err.h"

/* Open path for reading as a regular file of at most max bytes (O_CLOEXEC). Returns the
 * descriptor (the caller closes it), or -1 with err: IDB_EINPUT when the file is refused
 * (a symlink, not a regular file, larger than max), open_code (IDB_EIO or IDB_EINPUT, as
 * the caller counts a file that cannot be opened) when open() failed ("PATH: cannot read:
 * why"); errno is set in both cases. */
int idb_open_input(const char *path, size_t max, int open_code, idb_err *err);

/* The whole of path (as idb_open_input checks it), malloc'd and NUL-terminated, its
 * length in *len. Returns NULL with err as idb_open_input, or IDB_EIO when a read failed,
 * IDB_EINPUT when the file grew past max while read, IDB_ENOMEM. The caller frees it. */
char *idb_read_input(const char *path, size_t max, int open_code, size_t *len, idb_err *err);

#endif
