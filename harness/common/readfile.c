/* readfile.c — checked opening and bounded reading of input files (see readfile.h). */
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB (1u << 20)

/* What a file of mode m is, for a refusal. */
static const char *kind_of(mode_t m)
{
    static const struct {
        mode_t type;
        const char *name;
    } kinds[] = {
        { S_IFIFO, "a FIFO" }, { S_IFCHR, "a character device" }, { S_IFBLK, "a block device" },
        { S_IFDIR, "a directory" }, { S_IFSOCK, "a socket" }, { S_IFLNK, "a symlink" },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if ((m & S_IFMT) == kinds[i].type) return kinds[i].name;
    return "not a regular file";
}

/* "larger than N MiB" or "larger than N bytes" for limit max, into err. */
static int too_large(const char *path, size_t max, idb_err *err)
{
    errno = EFBIG;
    if (max >= MIB && max % MIB == 0)
        return idb_fail(err, IDB_EINPUT, "%s: larger than %zu MiB: refused", path, max / MIB);
    return idb_fail(err, IDB_EINPUT, "%s: larger than %zu bytes: refused", path, max);
}

/* Open, fstat and check (see readfile.h). */
int idb_open_input(const char *path, size_t max, int open_code, idb_err *err)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        struct stat sb;
        if (e == ELOOP && lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode))
            idb_fail(err, IDB_EINPUT, "%s: a symlink: not followed", path);
        else
            idb_fail(err, open_code, "%s: cannot read: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    struct stat sb;
    int e = 0;
    if (fstat(fd, &sb) != 0) {
        e = errno;
        idb_fail(err, IDB_EIO, "%s: cannot read: %s", path, strerror(e));
    } else if (!S_ISREG(sb.st_mode)) {
        e = EINVAL;
        idb_fail(err, IDB_EINPUT, "%s: %s, not a regular file: refused", path,
                 kind_of(sb.st_mode));
    } else if ((unsigned long long)sb.st_size > (unsigned long long)max) {
        too_large(path, max, err);
        e = EFBIG;
    } else {
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
            e = errno;
            idb_fail(err, IDB_EIO, "%s: cannot read: %s", path, strerror(e));
        }
    }
    if (!e) return fd;
    close(fd);
    errno = e;
    return -1;
}

/* Read the whole checked file, at most max bytes (see readfile.h). */
char *idb_read_input(const char *path, size_t max, int open_code, size_t *len, idb_err *err)
{
    int fd = idb_open_input(path, max, open_code, err);
    if (fd < 0) return NULL;
    struct stat sb;
    size_t cap = fstat(fd, &sb) == 0 ? (size_t)sb.st_size : 0, n = 0;
    char *buf = malloc(cap + 2);                 /* one byte more: growth is seen */
    int rc = buf ? 0 : IDB_ENOMEM;
    while (!rc) {
        if (n == cap + 1) {                      /* it grew: more room, up to max + 1 */
            size_t ncap = cap * 2 + 4096 > max ? max : cap * 2 + 4096;
            char *nb = ncap > cap ? realloc(buf, ncap + 2) : NULL;
            if (ncap <= cap) { rc = IDB_EINPUT; break; }
            if (!nb) { rc = IDB_ENOMEM; break; }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, buf + n, cap + 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) { rc = IDB_EIO; break; }
        if (r == 0) break;
        n += (size_t)r;
        if (n > max) rc = IDB_EINPUT;
    }
    int e = errno;
    close(fd);
    if (rc) {
        free(buf);
        if (rc == IDB_EINPUT) too_large(path, max, err);
        else if (rc == IDB_ENOMEM) idb_fail(err, IDB_ENOMEM, "out of memory");
        else idb_fail(err, IDB_EIO, "%s: cannot read: %s", path, strerror(e));
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}
