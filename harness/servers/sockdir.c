/* sockdir.c — the servers' private socket directories in /tmp, named after their owner, and
 * the sweep that removes the ones a killed idbench left.
 *
 * A socket directory is /tmp/idb-PID-START-XXXXXX: PID and START (field 22 of
 * /proc/PID/stat) are those of the idbench process that made it (the owner), XXXXXX is
 * mkdtemp's. The owner is in the name, not in a file inside, so the record exists from the
 * first instant (no window in which a sweep could find an unrecorded directory in use) and
 * only its maker (or root) can rename it in the sticky /tmp.
 *
 * A SIGKILLed idbench cannot remove its directories; its servers die with it (deathsig), and
 * the directories stay. idb_servers_sweep removes such a directory when all of these hold:
 *   - its name is exactly the pattern above (other tools' /tmp/idb-* names are left alone,
 *     and so are directories of older idbench versions, which recorded no owner);
 *   - the owner is gone: no process PID with start time START (a recycled pid has another);
 *   - it is a real directory (lstat: a symlink is never followed), owned by idbench's user
 *     or a server kind's user (postgres, mysql, redis), holding no subdirectory;
 *   - its server is gone: no socket in it accepts a connection (a server left running by a
 *     run without deathsig keeps its directory: `idbench clean DIR` stops it by its pid
 *     file and removes it then).
 * Everything is done relative to descriptors of /tmp and of the directory (openat with
 * O_NOFOLLOW, fstatat, unlinkat), so a name swapped in between cannot redirect it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server_int.h"
#include "tmpdir.h"

#define MKDTEMP_SUFFIX "XXXXXX"
#define FD_PATH_LEN 64                   /* "/proc/self/fd/N/" */

/* Make s's socket directory, named after this process (see above), owned by the server
 * user, registered for removal on a signal. Returns 0 or IDB_EIO. */
int srv_sockdir_make(idb_server *s, idb_err *err)
{
    pid_t me = getpid();
    int n = snprintf(s->sockdir, sizeof s->sockdir, "%s%d-%llu-" MKDTEMP_SUFFIX,
                     SRV_SOCKDIR_PREFIX, (int)me, srv_proc_starttime(me));
    if (n < 0 || n >= (int)sizeof s->sockdir || !mkdtemp(s->sockdir)) {
        int e = n < 0 || n >= (int)sizeof s->sockdir ? ENAMETOOLONG : errno;
        s->sockdir[0] = 0;
        return idb_fail(err, IDB_EIO, "cannot make a socket directory in " SRV_SOCKDIR_PARENT
                        ": %s", strerror(e));
    }
    int fd = open(s->sockdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_uid != geteuid() ||
        (s->cred.drop && fchown(fd, s->cred.uid, s->cred.gid) != 0) ||
        idb_tmpdir_adopt(s->sockdir) != 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        rmdir(s->sockdir);
        s->sockdir[0] = 0;
        return idb_fail(err, IDB_EIO, "cannot prepare the socket directory: %s", strerror(e));
    }
    close(fd);
    return 0;
}

/* The owner recorded in name (a /tmp entry): 0 with *pid and *start, -1 when name is not
 * exactly idb-PID-START-XXXXXX. */
static int parse_owner(const char *name, long *pid, unsigned long long *start)
{
    size_t base = strlen(SRV_SOCKDIR_BASE), tail = strlen(MKDTEMP_SUFFIX);
    if (strncmp(name, SRV_SOCKDIR_BASE, base) != 0) return -1;
    const char *p = name + base;
    char *end;
    if (*p < '0' || *p > '9') return -1;
    *pid = strtol(p, &end, 10);
    if (*end != '-' || end[1] < '0' || end[1] > '9') return -1;
    *start = strtoull(end + 1, &end, 10);
    if (*end != '-' || strlen(end + 1) != tail ||
        strspn(end + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") != tail)
        return -1;
    return *pid > 0 && *pid <= INT_MAX && *start > 0 ? 0 : -1;
}

/* 1 when the directory dd (open, at its start) may go: no subdirectory, and no socket in it
 * accepts a connection (reached through /proc/self/fd, so through this very directory). */
static int removable(DIR *dd)
{
    char path[FD_PATH_LEN + NAME_MAX + 1];
    int fd = dirfd(dd), ok = 1;
    for (struct dirent *e; ok && (e = readdir(dd));) {
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (S_ISDIR(st.st_mode)) ok = 0;
        snprintf(path, sizeof path, "/proc/self/fd/%d/%s", fd, e->d_name);
        if (S_ISSOCK(st.st_mode) && srv_socket_accepts(path)) ok = 0;
    }
    rewinddir(dd);
    return ok;
}

/* Remove the socket directory name in the directory tfd (/tmp) when it may go (see the
 * file's comment; the owner was checked). Returns 1 when it was removed. */
static int sweep_one(int tfd, const char *name)
{
    struct stat st, ds, ts;
    if (fstatat(tfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
        !srv_user_uid_ok(st.st_uid) ||          /* ours, or a server user's (users.c) */
        fstat(tfd, &ts) != 0 || srv_mount_root(tfd, name, ts.st_dev))   /* a bind mount */
        return 0;
    int fd = openat(tfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return 0;
    DIR *dd = fdopendir(fd);
    if (!dd) {
        close(fd);
        return 0;
    }
    int ok = fstat(fd, &ds) == 0 && ds.st_dev == st.st_dev && ds.st_ino == st.st_ino &&
             removable(dd);
    for (struct dirent *e; ok && (e = readdir(dd));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            unlinkat(fd, e->d_name, 0) != 0 && errno != ENOENT)
            ok = 0;
    closedir(dd);
    return ok && unlinkat(tfd, name, AT_REMOVEDIR) == 0;
}

int srv_sockdir_remove(const char *path)
{
    long pid;
    unsigned long long start;
    size_t n = strlen(SRV_SOCKDIR_PARENT "/");
    const char *name = path + n;
    if (strncmp(path, SRV_SOCKDIR_PARENT "/", n) != 0 || parse_owner(name, &pid, &start) != 0)
        return 0;
    if (pid != getpid() && srv_proc_starttime((pid_t)pid) == start) return 0;   /* live */
    int tfd = open(SRV_SOCKDIR_PARENT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (tfd < 0) return 0;
    int removed = sweep_one(tfd, name);
    close(tfd);
    return removed;
}

/* Remove the socket directories of ended runs (see server.h and the file's comment). */
int idb_servers_sweep(void)
{
    DIR *t = opendir(SRV_SOCKDIR_PARENT);
    if (!t) return 0;
    int removed = 0;
    for (struct dirent *e; (e = readdir(t));) {
        long pid;
        unsigned long long start;
        if (parse_owner(e->d_name, &pid, &start) != 0) continue;
        if (srv_proc_starttime((pid_t)pid) == start) continue;      /* the owner runs */
        removed += sweep_one(dirfd(t), e->d_name);
    }
    closedir(t);
    return removed;
}
