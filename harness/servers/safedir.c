/* safedir.c — directories idbench makes, changes or removes as root without being turned
 * against its host (issue 21): every path is walked from "/" one component at a time with
 * openat(O_NOFOLLOW | O_DIRECTORY), missing components are made with mkdirat and changed
 * through their descriptor (fchown, fchmod), never by path; what is removed is re-identified
 * first (lstat: a directory, not a symlink, owned by the expected user, on its parent's
 * device and not a mount root) and removed relative to descriptors.
 *
 * The trust rule is sshd's StrictModes: every existing directory on the way must be owned
 * by root or idbench's user and not writable by group or others unless it is sticky (/tmp);
 * a symlink on the way is followed only when root owns it and the directory holding it is
 * trusted (e.g. /var/run), any other symlink is refused.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server_int.h"

#define PARENT_MODE 0755               /* components on the way that idbench makes */
#define RMTREE_DEPTH_MAX 64            /* deeper trees are left (and named) */

int srv_dir_trusted(const struct stat *st)
{
    return (st->st_uid == 0 || st->st_uid == geteuid()) &&
           (!(st->st_mode & (S_IWGRP | S_IWOTH)) || (st->st_mode & S_ISVTX));
}

/* The absolute form of path (cwd prefixed; no resolving) into out. */
static int absolute(const char *path, char *out, size_t len)
{
    char cwd[PATH_MAX];
    if (path[0] == '/') return snprintf(out, len, "%s", path) >= (int)len ? -1 : 0;
    if (!getcwd(cwd, sizeof cwd)) return -1;
    return snprintf(out, len, "%s/%s", cwd, path) >= (int)len ? -1 : 0;
}

/* Open the component name in the directory fd (trusted), refusing what the rule refuses;
 * *exists = 0 when it is missing. Returns the new descriptor, or -1 with a message. */
static int step(int fd, const char *name, const char *upto, int *exists, idb_err *err)
{
    struct stat st;
    *exists = 1;
    if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) { *exists = 0; return -1; }
        idb_fail(err, IDB_EINPUT, "%s: %s", upto, strerror(errno));
        return -1;
    }
    int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
    if (S_ISLNK(st.st_mode)) {
        if (st.st_uid != 0) {
            idb_fail(err, IDB_EINPUT, "%s is a symlink owned by uid %u: refused (a directory "
                     "on the way must not be replaceable by another user)", upto,
                     (unsigned)st.st_uid);
            return -1;
        }
    } else flags |= O_NOFOLLOW;
    int nfd = openat(fd, name, flags);
    if (nfd < 0) {
        idb_fail(err, IDB_EINPUT, "%s: %s", upto, strerror(errno));
        return -1;
    }
    return nfd;
}

int srv_dir_walk(const char *path, const srv_cred *cred, int make, int *pfd, int *dfd,
                 idb_err *err)
{
    char abs[PATH_MAX], upto[PATH_MAX] = "";
    *pfd = *dfd = -1;
    if (absolute(path, abs, sizeof abs) != 0)
        return idb_fail(err, IDB_EINPUT, "directory path too long: %s", path);
    int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC), parent = -1;
    char *save = NULL, *comp = strtok_r(abs, "/", &save);
    size_t ulen = 0;
    for (; fd >= 0 && comp; comp = strtok_r(NULL, "/", &save)) {
        if (strcmp(comp, ".") == 0) continue;
        if (strcmp(comp, "..") == 0) {
            close(fd);
            if (parent >= 0) close(parent);
            return idb_fail(err, IDB_EINPUT, "%s: '..' in a server directory path", path);
        }
        struct stat st;
        if (fstat(fd, &st) != 0 || !srv_dir_trusted(&st)) {
            close(fd);
            if (parent >= 0) close(parent);
            return idb_fail(err, IDB_EINPUT, "%s is owned by uid %u or writable by another "
                            "user (mode %03o, not sticky): refused", upto[0] ? upto : "/",
                            (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
        }
        ulen += (size_t)snprintf(upto + ulen, sizeof upto - ulen, "/%s", comp);
        char *next = save && *save ? save : NULL;
        int last = !next || strspn(next, "/") == strlen(next), exists;
        int nfd = step(fd, comp, upto, &exists, err);
        if (nfd < 0 && exists) {
            close(fd);
            if (parent >= 0) close(parent);
            return err->code ? err->code : IDB_EINPUT;
        }
        if (nfd < 0) {
            if (!make) {                            /* a check: the rest is to be made */
                close(fd);
                if (parent >= 0) close(parent);
                return 0;
            }
            if (mkdirat(fd, comp, last ? 0700 : PARENT_MODE) != 0 && errno != EEXIST) {
                int e = errno;
                close(fd);
                if (parent >= 0) close(parent);
                return idb_fail(err, e == EACCES || e == EROFS ? IDB_EINPUT : IDB_EIO,
                                "cannot make %s: %s", upto, strerror(e));
            }
            nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (nfd >= 0 && !last) fchmod(nfd, PARENT_MODE);      /* whatever the umask */
        }
        if (parent >= 0) close(parent);
        parent = fd;
        fd = nfd;
    }
    if (fd < 0) {
        if (parent >= 0) close(parent);
        return idb_fail(err, IDB_EIO, "cannot open %s: %s", upto, strerror(errno));
    }
    if (!make) {                                    /* a check: path itself is on the way */
        struct stat st;
        int ok = fstat(fd, &st) == 0 && (srv_dir_trusted(&st) || (cred && cred->drop &&
                                                          st.st_uid == cred->uid));
        close(fd);
        if (parent >= 0) close(parent);
        return ok ? 0 : idb_fail(err, IDB_EINPUT, "%s is owned by uid %u or writable by "
                                 "another user: refused", upto, (unsigned)st.st_uid);
    }
    *pfd = parent;
    *dfd = fd;
    return 0;
}

int srv_dir_give(int dfd, const char *path, const srv_cred *cred, idb_err *err)
{
    struct stat st;                         /* its parent is trusted: only root or we made it */
    if (fstat(dfd, &st) != 0 || !S_ISDIR(st.st_mode))
        return idb_fail(err, IDB_EIO, "%s: %s", path, strerror(errno));
    if ((cred->drop && fchown(dfd, cred->uid, cred->gid) != 0) || fchmod(dfd, 0700) != 0)
        return idb_fail(err, IDB_EIO, "cannot give %s to %s: %s", path, cred->name,
                        strerror(errno));
    return 0;
}

/* 1 when the entry name of the directory fd is the root of a mount (statx says so, or its
 * device differs from dev). */
int srv_mount_root(int fd, const char *name, dev_t dev)
{
    struct statx sx;
    if (statx(fd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &sx) != 0) return 1;
    if ((sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
        (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
        return 1;
    return makedev(sx.stx_dev_major, sx.stx_dev_minor) != dev;
}

/* Remove everything in the directory dfd (dev: its device), depth levels left. */
static int empty_dir(int dfd, dev_t dev, int depth)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return -1;
    }
    int rc = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            int sub = -1;
            if (depth > 0 && !srv_mount_root(dirfd(d), e->d_name, dev))
                sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                             O_CLOEXEC);
            if (sub < 0 || empty_dir(sub, dev, depth - 1) != 0 ||
                unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) != 0)
                rc = -1;
        } else if (unlinkat(dirfd(d), e->d_name, 0) != 0 && errno != ENOENT) rc = -1;
    }
    closedir(d);
    return rc;
}

int srv_rmtree_at(int pfd, const char *name, uid_t uid, const char *shown)
{
    struct stat pst, st;
    const char *why = NULL;
    if (fstat(pfd, &pst) != 0 || fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode)) why = S_ISLNK(st.st_mode) ? "a symlink" : "not a directory";
    else if (st.st_uid != uid) why = "owned by another user";
    else if (srv_mount_root(pfd, name, pst.st_dev)) why = "a mount point";
    int fd = why ? -1 : openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat fst;
    if (!why && (fd < 0 || fstat(fd, &fst) != 0 || fst.st_ino != st.st_ino ||
                 fst.st_dev != st.st_dev))
        why = "replaced while it was looked at";
    if (why) {
        if (fd >= 0) close(fd);
        fprintf(stderr, "idbench: left %s: %s\n", shown, why);
        return -1;
    }
    if (empty_dir(fd, st.st_dev, RMTREE_DEPTH_MAX) != 0 ||
        unlinkat(pfd, name, AT_REMOVEDIR) != 0) {
        fprintf(stderr, "idbench: left %s: %s\n", shown, "could not remove all of it");
        return -1;
    }
    return 0;
}

int idb_server_dir_check(const char *dir, idb_err *err)
{
    int pfd, dfd;
    return srv_dir_walk(dir, NULL, 0, &pfd, &dfd, err);
}

/* The run's lock file in DIR; LOCK_EX for the run's life. */
#define RUN_LOCK ".idbench-lock"
#define LOCK_TRIES 8                   /* a lock file unlinked under us: open again */

/* Open DIR's lock file in dfd (made when create), fstat-checked like a record. */
static int open_lock(int dfd, int create)
{
    int fd = openat(dfd, RUN_LOCK, (create ? O_RDWR | O_CREAT : O_RDONLY) | O_NOFOLLOW |
                    O_CLOEXEC, 0600);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
                    (st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_nlink != 1)) {
        close(fd);
        errno = EPERM;
        return -1;
    }
    return fd;
}

/* The owner pid written in the lock file fd, 0 when unknown. */
static long lock_owner(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    buf[n > 0 ? n : 0] = 0;
    return strtol(buf, NULL, 10);
}

int idb_run_lock(const char *dir, int *fd, idb_err *err)
{
    *fd = -1;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), lfd = -1, e = 0;
    for (int tries = 0; dfd >= 0 && tries < LOCK_TRIES; tries++) {
        if ((lfd = open_lock(dfd, 1)) < 0) break;
        if (flock(lfd, LOCK_EX | LOCK_NB) != 0) {
            long owner = lock_owner(lfd);
            close(lfd);
            close(dfd);
            return idb_fail(err, IDB_EIO, "%s is in use by pid %ld", dir, owner);
        }
        struct stat a, b;                  /* the file a finishing run unlinked: again */
        if (fstat(lfd, &a) == 0 && fstatat(dfd, RUN_LOCK, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
            a.st_ino == b.st_ino && a.st_dev == b.st_dev)
            break;
        close(lfd);
        lfd = -1;
    }
    e = errno;
    if (dfd >= 0) close(dfd);
    if (lfd < 0)
        return idb_fail(err, IDB_EIO, "cannot lock %s (%s/" RUN_LOCK "): %s", dir, dir,
                        strerror(e));
    char text[32];
    int n = snprintf(text, sizeof text, "%d\n", (int)getpid());
    if (ftruncate(lfd, 0) != 0 || pwrite(lfd, text, (size_t)n, 0) != n) {
        close(lfd);
        return idb_fail(err, IDB_EIO, "cannot write %s/" RUN_LOCK ": %s", dir, strerror(errno));
    }
    *fd = lfd;
    return 0;
}

void idb_run_unlock(const char *dir, int fd)
{
    if (fd < 0) return;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        unlinkat(dfd, RUN_LOCK, 0);         /* while held: see idb_run_lock's check */
        close(dfd);
    }
    close(fd);
}

int srv_run_lock_busy(int dfd, long *owner)
{
    int fd = open_lock(dfd, 0);
    if (fd < 0) return 0;
    int busy = flock(fd, LOCK_SH | LOCK_NB) != 0;
    if (busy) *owner = lock_owner(fd);
    close(fd);
    return busy;
}

void srv_clean_partial(int dfd, const char *path, uid_t uid, int (*data_state)(int dfd))
{
    char shown[PATH_MAX + 32];
    snprintf(shown, sizeof shown, "%s/" SRV_PARTIAL, path);
    srv_rmtree_at(dfd, SRV_PARTIAL, uid, shown);
    snprintf(shown, sizeof shown, "%s/data", path);
    if (data_state(dfd) < 0) srv_rmtree_at(dfd, "data", uid, shown);
}
