/* tmpdir.c — making and removing private temporary directories (see tmpdir.h). */
#define _XOPEN_SOURCE 700
#include "tmpdir.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int idb_tmpdir_make(char *buf, size_t len)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    if ((size_t)snprintf(buf, len, "%s/idbench.XXXXXX", base) >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return mkdtemp(buf) ? 0 : -1;
}

/* nftw callback: remove one entry, children before their directory. */
static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb; (void)type; (void)ftw;
    return remove(path);
}

int idb_tmpdir_remove(const char *dir)
{
    return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
