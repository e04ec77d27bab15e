/* atomic_file.c — a temporary file beside the target, then rename, all through a directory
 * descriptor (see atomic_file.h). */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define TMP_TRIES 100                            /* temporary names tried before giving up */
#define TMP_MODE 0666                            /* less the umask, as creat() makes files */

/* Make a->tmp (a->name.tmp.XXXXXX, random) in a->dirfd; returns its descriptor or -1. */
static int make_tmp(idb_atomic *a)
{
    static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int t = 0; t < TMP_TRIES; t++) {
        uint64_t r;
        if (getrandom(&r, sizeof r, 0) != sizeof r)
            r = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid() << 20 ^ (uint64_t)t;
        char suffix[7];
        for (int i = 0; i < 6; i++, r /= sizeof chars - 1)
            suffix[i] = chars[r % (sizeof chars - 1)];
        suffix[6] = 0;
        snprintf(a->tmp, sizeof a->tmp, "%s.tmp.%s", a->name, suffix);
        int fd = openat(a->dirfd, a->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        TMP_MODE);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

/* Open the temporary file in a->dirfd (set) for a->name (set). */
static FILE *open_in_dir(idb_atomic *a)
{
    int fd = make_tmp(a);
    if (fd >= 0 && !(a->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        unlinkat(a->dirfd, a->tmp, 0);
        errno = e;
    }
    if (!a->f) {
        int e = errno;
        close(a->dirfd);
        a->dirfd = -1;
        errno = e;
    }
    return a->f;
}

FILE *idb_atomic_openat(idb_atomic *a, int dirfd, const char *name)
{
    a->f = NULL;
    a->dirfd = -1;
    if (strchr(name, '/') || !*name ||
        strlen(name) + strlen(".tmp.XXXXXX") > NAME_MAX) {
        errno = strchr(name, '/') || !*name ? EINVAL : ENAMETOOLONG;
        return NULL;
    }
    snprintf(a->name, sizeof a->name, "%s", name);
    if ((a->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0)) < 0) return NULL;
    return open_in_dir(a);
}

FILE *idb_atomic_open(idb_atomic *a, const char *path)
{
    a->f = NULL;
    a->dirfd = -1;
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    if (strlen(path) >= sizeof dir || strlen(name) + strlen(".tmp.XXXXXX") > NAME_MAX) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    if (!slash) snprintf(dir, sizeof dir, ".");
    else snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    if (!*name) {
        errno = EISDIR;
        return NULL;
    }
    snprintf(a->name, sizeof a->name, "%s", name);
    if ((a->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) return NULL;
    return open_in_dir(a);
}

int idb_atomic_commit(idb_atomic *a, int failed)
{
    errno = 0;
    int bad = failed || ferror(a->f);
    if (fclose(a->f) != 0) bad = 1;
    a->f = NULL;
    int rc = 0;
    if (bad || renameat(a->dirfd, a->tmp, a->dirfd, a->name) != 0) {
        int e = errno ? errno : EIO;
        unlinkat(a->dirfd, a->tmp, 0);
        errno = e;
        rc = -1;
    }
    int e = errno;
    close(a->dirfd);
    a->dirfd = -1;
    errno = e;
    return rc;
}

int idb_atomic_write(const char *path, const char *text, size_t len)
{
    idb_atomic a;
    if (!idb_atomic_open(&a, path)) return -1;
    return idb_atomic_commit(&a, fwrite(text, 1, len, a.f) != len);
}
