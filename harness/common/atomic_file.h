/* atomic_file.h — writing a file so that a reader never sees half of it: the text goes to
 * a new temporary file beside PATH (PATH.tmp.XXXXXX, unique, so two writers never share
 * one), which is renamed over PATH only when every write and the close succeeded. A failure
 * removes the temporary file and leaves any old PATH as it was. The file gets the mode a
 * plain creat() would (0666 less the umask), not mkstemp's 0600. The one home of this rule:
 * results files, timelines and reports are written through it.
 *
 * Nothing is written through a symlink idbench did not make: the directory is opened once
 * (O_DIRECTORY) and everything after goes through that descriptor — the temporary file is
 * made with openat(O_CREAT | O_EXCL | O_NOFOLLOW) and renamed with renameat, so a symlink
 * at PATH is replaced, never followed, and a directory swapped for a symlink meanwhile is
 * not followed either. idb_atomic_openat takes a directory the caller opened itself (with
 * O_NOFOLLOW when its last component must not be a symlink: plots/).
 */
#ifndef IDB_ATOMIC_FILE_H
#define IDB_ATOMIC_FILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

typedef struct idb_atomic {
    FILE *f;                  /* write here */
    int dirfd;                /* the directory both names are in (owned) */
    char name[NAME_MAX + 1];  /* the final name in it */
    char tmp[NAME_MAX + 16];  /* the temporary name beside it */
} idb_atomic;

/* Create a new temporary file beside path and open it in a->f. Returns a->f, or NULL with
 * errno set (ENAMETOOLONG when the names do not fit); then nothing was created. End it
 * with idb_atomic_commit, which closes it. */
FILE *idb_atomic_open(idb_atomic *a, const char *path);

/* The same for the file name (one component) in the directory open at dirfd, which the
 * caller keeps (a->dirfd is a duplicate). */
FILE *idb_atomic_openat(idb_atomic *a, int dirfd, const char *name);

/* Close a->f and rename the temporary file over the final name; when failed != 0, or a
 * write or the close failed, remove the temporary file instead. Returns 0, or -1 with errno
 * set (EIO when a write had failed without an errno). */
int idb_atomic_commit(idb_atomic *a, int failed);

/* Write len bytes of text as the whole of path, through a temporary file. Returns 0 or -1
 * with errno set. */
int idb_atomic_write(const char *path, const char *text, size_t len);

#endif
