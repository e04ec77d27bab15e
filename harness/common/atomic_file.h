/* atomic_file.h — writing a file so that a reader never sees half of it: the text goes to
 * a new temporary file beside PATH (PATH.tmp.XXXXXX, unique, so two writers never share
 * one), which is renamed over PATH only when every write and the close succeeded. A failure
 * removes the temporary file and leaves any old PATH as it was. The file gets the mode a
 * plain creat() would (0666 less the umask), not mkstemp's 0600. The one home of this rule:
 * results files, timelines and reports are written through it.
 */
#ifndef IDB_ATOMIC_FILE_H
#define IDB_ATOMIC_FILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

typedef struct idb_atomic {
    FILE *f;                  /* write here */
    char path[PATH_MAX];      /* the final name */
    char tmp[PATH_MAX];       /* the temporary name beside it */
} idb_atomic;

/* Create a new temporary file beside path and open it in a->f. Returns a->f, or NULL with
 * errno set (ENAMETOOLONG when the names do not fit PATH_MAX); then nothing was created.
 * End it with idb_atomic_commit, which closes it. */
FILE *idb_atomic_open(idb_atomic *a, const char *path);

/* Close a->f and rename the temporary file over the final name; when failed != 0, or a
 * write or the close failed, remove the temporary file instead. Returns 0, or -1 with errno
 * set (EIO when a write had failed without an errno). */
int idb_atomic_commit(idb_atomic *a, int failed);

/* Write len bytes of text as the whole of path, through a temporary file. Returns 0 or -1
 * with errno set. */
int idb_atomic_write(const char *path, const char *text, size_t len);

#endif
