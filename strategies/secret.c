/* secret.c — reading a secret file (secret.h). */
#include "secret.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OTHERS_MASK 077                /* group and others: no permission at all */

/* 1 when buf[0..n) is one line of printable, non-space characters (the newline cut). */
static int one_line(char *buf, size_t n)
{
    if (n && buf[n - 1] == '\n') n--;
    buf[n] = 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] <= ' ' || buf[i] > '~') return 0;
    return n > 0;
}

int idb_secret_read(const char *path, char *buf, size_t cap, idb_err *err)
{
    char raw[IDB_SECRET_MAX + 1];
    struct stat st;
    if (cap) buf[0] = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return idb_fail(err, errno == ELOOP ? IDB_EINPUT : IDB_EIO, "secret file %s: %s",
                        path, errno == ELOOP ? "a symlink" : strerror(errno));
    const char *bad = NULL;
    if (fstat(fd, &st) != 0) bad = strerror(errno);
    else if (!S_ISREG(st.st_mode)) bad = "not a regular file";
    else if (st.st_uid != geteuid()) bad = "owned by another user";
    else if (st.st_mode & OTHERS_MASK) bad = "group or others have access (chmod 600)";
    else if (st.st_nlink != 1) bad = "it has other hard links";
    else if (st.st_size < 1 || st.st_size > (off_t)sizeof raw - 1) bad = "empty or too long";
    ssize_t n = bad ? -1 : read(fd, raw, sizeof raw - 1);
    int e = errno;
    close(fd);
    if (bad) return idb_fail(err, IDB_EINPUT, "secret file %s: %s", path, bad);
    if (n < 0) return idb_fail(err, IDB_EIO, "secret file %s: %s", path, strerror(e));
    if (!one_line(raw, (size_t)n) || strlen(raw) + 1 > cap || strlen(raw) + 1 > IDB_SECRET_MAX)
        return idb_fail(err, IDB_EINPUT, "secret file %s: not one line of printable "
                        "characters (at most %d)", path, IDB_SECRET_MAX - 1);
    memcpy(buf, raw, strlen(raw) + 1);
    return 0;
}
