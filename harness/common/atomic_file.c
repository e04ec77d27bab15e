/* atomic_file.c — a temporary file beside the target, then rename (see atomic_file.h). */
#include "atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The process's umask: from /proc/self/status, which reads it without changing it (another
 * thread creating a file meanwhile must not see a different one); else set and set back. */
static mode_t process_umask(void)
{
    char line[128];
    unsigned mask = 0;
    FILE *f = fopen("/proc/self/status", "re");
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        found = sscanf(line, "Umask: %o", &mask) == 1;
    if (f) fclose(f);
    if (found) return (mode_t)mask;
    mode_t m = umask(022);
    umask(m);
    return m;
}

FILE *idb_atomic_open(idb_atomic *a, const char *path)
{
    a->f = NULL;
    if ((size_t)snprintf(a->path, sizeof a->path, "%s", path) >= sizeof a->path ||
        (size_t)snprintf(a->tmp, sizeof a->tmp, "%s.tmp.XXXXXX", path) >= sizeof a->tmp) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    int fd = mkstemp(a->tmp);
    if (fd < 0) return NULL;
    if (fchmod(fd, 0666 & ~process_umask()) != 0) {     /* mkstemp made it 0600 */
        int e = errno;
        close(fd);
        unlink(a->tmp);
        errno = e;
        return NULL;
    }
    a->f = fdopen(fd, "w");
    if (!a->f) {
        int e = errno;
        close(fd);
        unlink(a->tmp);
        errno = e;
    }
    return a->f;
}

int idb_atomic_commit(idb_atomic *a, int failed)
{
    errno = 0;
    int bad = failed || ferror(a->f);
    if (fclose(a->f) != 0) bad = 1;
    a->f = NULL;
    if (bad || rename(a->tmp, a->path) != 0) {
        int e = errno ? errno : EIO;
        unlink(a->tmp);
        errno = e;
        return -1;
    }
    return 0;
}

int idb_atomic_write(const char *path, const char *text, size_t len)
{
    idb_atomic a;
    if (!idb_atomic_open(&a, path)) return -1;
    return idb_atomic_commit(&a, fwrite(text, 1, len, a.f) != len);
}
