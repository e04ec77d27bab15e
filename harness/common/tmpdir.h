/* tmpdir.h — private temporary directories for runs that need files nobody keeps. */
#ifndef IDB_TMPDIR_H
#define IDB_TMPDIR_H

#include <stddef.h>

/* Create a new empty directory under $TMPDIR (or /tmp); its path goes into buf.
 * Returns 0, or -1 with errno set. */
int idb_tmpdir_make(char *buf, size_t len);

/* Remove dir and everything in it (not following symlinks). Returns 0 or -1. */
int idb_tmpdir_remove(const char *dir);

#endif
