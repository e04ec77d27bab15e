/* pidfile.c — idbench's record of a server it started, and how a later run or `idbench
 * clean` finds and stops a server a killed idbench left, without trusting anything another
 * user could have written (issue 21).
 *
 * The record of the server in P/NAME is the file P/NAME.idbench-pid, beside the server's
 * directory, in a directory only idbench's user can write (safedir.c checks P on the way):
 * never inside NAME, which the server's user owns. It is opened with O_NOFOLLOW relative
 * to P's descriptor and used only when fstat says: a regular file, one link, owned by
 * idbench's user, writable by nobody else. The run that owns it holds a flock on it for the
 * server's life, so a record whose lock can be taken belongs to a dead run; a locked one
 * is "in use by pid N" and never touched.
 *
 * Format, one "key value" a line: owner PID START (the idbench process) / kind postgres /
 * uid UID (the server's user) / sockdir /tmp/idb-PID-START-XXXXXX / pid N / start S
 * (field 22 of /proc/N/stat; these two from the moment the server is forked, so a run
 * killed while its server starts leaves it findable) / ready (a line of its own, once the
 * server accepts connections). It is written before the data is initialised, so a start
 * killed during initdb leaves a record that `clean` finds with its half-made data.
 *
 * Before a recorded process is signalled it is proved to be that server (proc.c,
 * srv_proc_is_server): same start time, /proc/PID/exe the kind's binary, its cwd or command
 * line in NAME, leading its own process group.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server_int.h"

#define STALE_STOP_TIMEOUT_MS 20000    /* SIGTERM, then SIGKILL after this */
#define CLEAN_DEPTH_MAX 3              /* DIR/shard-K/postgres.idbench-pid is depth 1 */
#define RECORD_LEN 1024

/* What a record says. */
typedef struct record {
    long owner, pid;
    unsigned long long owner_start, start;
    long uid;
    char kind[32];
    char sockdir[SRV_SOCKDIR_LEN];
} record;

/* Parse the text of a record into r (missing keys stay 0 / empty). */
static void parse(char *text, record *r)
{
    memset(r, 0, sizeof *r);
    r->uid = -1;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (sscanf(l, "owner %ld %llu", &r->owner, &r->owner_start) == 2) continue;
        if (sscanf(l, "pid %ld", &r->pid) == 1 || sscanf(l, "start %llu", &r->start) == 1 ||
            sscanf(l, "uid %ld", &r->uid) == 1)
            continue;
        if (strncmp(l, "kind ", 5) == 0) snprintf(r->kind, sizeof r->kind, "%.31s", l + 5);
        else if (strncmp(l, "sockdir ", 8) == 0)
            snprintf(r->sockdir, sizeof r->sockdir, "%.*s", SRV_SOCKDIR_LEN - 1, l + 8);
    }
}

/* Read the record open at fd into r. */
static void read_record(int fd, record *r)
{
    char text[RECORD_LEN];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = 0;
    parse(text, r);
}

/* Open the record name in the directory pfd: O_NOFOLLOW, then fstat-checked (see above).
 * create: made when missing. Returns the descriptor, or -1 with why set (NULL: missing). */
static int open_record(int pfd, const char *name, int create, const char **why)
{
    *why = NULL;
    int fd = openat(pfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
    if (fd < 0) {
        if (errno != ENOENT) *why = errno == ELOOP ? "a symlink" : strerror(errno);
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) *why = strerror(errno);
    else if (!S_ISREG(st.st_mode)) *why = "not a regular file";
    else if (st.st_uid != geteuid()) *why = "owned by another user";
    else if (st.st_mode & (S_IWGRP | S_IWOTH)) *why = "writable by another user";
    else if (st.st_nlink != 1) *why = "a hard link";
    if (*why) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Stop the server r names when it is proved to be the one started in dir, and remove its
 * socket directory (sockdir.c's rules). Returns 1 when a process was stopped. */
static int stop_recorded(const record *r, const char *dir)
{
    const srv_kind *k = srv_find_kind(r->kind);
    int stopped = 0;
    if (k && r->pid > 1 && r->start &&
        srv_proc_is_server((pid_t)r->pid, r->start, srv_kind_bin(k), dir)) {
        srv_stop_pid((pid_t)r->pid, k->stop_signal, 0, STALE_STOP_TIMEOUT_MS);
        stopped = 1;
    }
    if (r->sockdir[0]) srv_sockdir_remove(r->sockdir);
    return stopped;
}

int srv_record_open(idb_server *s, idb_err *err)
{
    const char *why;
    s->recfd = open_record(s->pfd, s->recname, 1, &why);
    if (s->recfd < 0)
        return idb_fail(err, IDB_EINPUT, "%s: %s: refused", s->record, why ? why : "missing");
    record r;
    if (flock(s->recfd, LOCK_EX | LOCK_NB) != 0) {
        read_record(s->recfd, &r);
        close(s->recfd);
        s->recfd = -1;
        return idb_fail(err, IDB_EIO, "%s is in use by pid %ld", s->dir, r.owner);
    }
    read_record(s->recfd, &r);                  /* a killed run's: stop what it left */
    stop_recorded(&r, s->dir);
    return srv_record_write(s, err);
}

int srv_record_write(const idb_server *s, idb_err *err)
{
    char text[RECORD_LEN];
    pid_t me = getpid();
    int n = snprintf(text, sizeof text, "owner %d %llu\nkind %s\nuid %ld\nsockdir %s\n",
                     (int)me, srv_proc_starttime(me), s->kind->name,
                     (long)srv_cred_uid(&s->cred), s->sockdir);
    if (s->pid)                                 /* from the fork on */
        n += snprintf(text + n, sizeof text - (size_t)n, "pid %d\nstart %llu\n%s", (int)s->pid,
                      s->starttime, s->ready ? "ready\n" : "");
    if (s->recfd < 0 || ftruncate(s->recfd, 0) != 0 ||
        pwrite(s->recfd, text, (size_t)n, 0) != n)
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", s->record, strerror(errno));
    return 0;
}

void srv_record_close(idb_server *s)
{
    if (s->recfd < 0) return;
    if (!s->keep_record) unlinkat(s->pfd, s->recname, 0);
    close(s->recfd);                            /* the lock goes with it */
    s->recfd = -1;
}

/* Clean the record name in the directory pfd (its path dpath): stop its server, remove its
 * socket directory and half-made data, then the record. probe: only say whether it is in
 * use. Returns 1 when a server was stopped, 0, or -1 (in use: *owner set). */
static int clean_record(int pfd, const char *dpath, const char *name, int probe, long *owner)
{
    const char *why;
    char shown[PATH_MAX + 256];
    snprintf(shown, sizeof shown, "%s/%s", dpath, name);
    int fd = open_record(pfd, name, 0, &why);
    if (fd < 0) {
        if (why && !probe) fprintf(stderr, "idbench: left %s: %s\n", shown, why);
        return 0;
    }
    record r;
    read_record(fd, &r);
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        *owner = r.owner;
        close(fd);
        return -1;
    }
    int stopped = 0;
    if (!probe) {
        char base[NAME_MAX + 1], dir[PATH_MAX + NAME_MAX + 2];
        snprintf(base, sizeof base, "%.*s", (int)(strlen(name) - strlen(SRV_RECORD_SUFFIX)),
                 name);
        snprintf(dir, sizeof dir, "%s/%s", dpath, base);
        stopped = stop_recorded(&r, dir);
        const srv_kind *k = srv_find_kind(r.kind);
        if (k && k->clean_partial && r.uid >= 0) {
            int dfd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (dfd >= 0) {
                k->clean_partial(dfd, dir, (uid_t)r.uid);
                close(dfd);
            }
        }
        unlinkat(pfd, name, 0);
    }
    close(fd);
    return stopped;
}

/* A server directory name (a kind's name) in the trusted directory pfd with no record
 * beside it (a refused start's run removed what it had made): its data.partial and
 * half-made data removed all the same, as its owner's (only root or idbench's user could
 * have made it there). */
static void clean_unrecorded(int pfd, const char *dpath, const char *name, const struct stat *st)
{
    const srv_kind *k = srv_find_kind(name);
    char rec[NAME_MAX + 1], dir[PATH_MAX + NAME_MAX + 2];
    struct stat rs;
    if (!k || !k->clean_partial || snprintf(rec, sizeof rec, "%s%s", name, SRV_RECORD_SUFFIX) >=
        (int)sizeof rec || fstatat(pfd, rec, &rs, AT_SYMLINK_NOFOLLOW) == 0)
        return;
    int dfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) return;
    snprintf(dir, sizeof dir, "%s/%s", dpath, name);
    k->clean_partial(dfd, dir, st->st_uid);
    close(dfd);
}

/* Walk the directory fd (path dpath) depth levels down, cleaning every record (see
 * clean_record). Returns the servers stopped, or -1 at the first record in use. */
static int walk(int fd, const char *dpath, int depth, int probe, long *owner, char *busy,
                size_t blen)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return 0;
    }
    struct stat dst;
    fstat(dirfd(d), &dst);
    int n = 0;
    size_t sl = strlen(SRV_RECORD_SUFFIX);
    for (struct dirent *e; n >= 0 && (e = readdir(d));) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || !strcmp(e->d_name, ".."))) continue;
        size_t len = strlen(e->d_name);
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        char sub[PATH_MAX];
        if (snprintf(sub, sizeof sub, "%s/%s", dpath, e->d_name) >= (int)sizeof sub) continue;
        if (S_ISREG(st.st_mode) && len > sl && !strcmp(e->d_name + len - sl, SRV_RECORD_SUFFIX)) {
            int r = clean_record(dirfd(d), dpath, e->d_name, probe, owner);
            if (r < 0) snprintf(busy, blen, "%s", sub);
            n = r < 0 ? -1 : n + r;
        } else if (S_ISDIR(st.st_mode) && depth > 0 && st.st_dev == dst.st_dev &&
                   !srv_mount_root(dirfd(d), e->d_name, dst.st_dev)) {
            if (!probe && srv_dir_trusted(&dst))
                clean_unrecorded(dirfd(d), dpath, e->d_name, &st);
            int sfd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                             O_CLOEXEC);
            int r = sfd < 0 ? 0 : walk(sfd, sub, depth - 1, probe, owner, busy, blen);
            n = r < 0 ? -1 : n + r;
        }
    }
    closedir(d);
    return n;
}

int idb_servers_clean(const char *dir, int *stopped, idb_err *err)
{
    struct stat st;
    *stopped = 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return idb_fail(err, IDB_EINPUT, "%s is not a directory", dir);
    int rc = idb_server_dir_check(dir, err);
    if (rc) return rc;
    long owner = 0;
    char busy[PATH_MAX] = "";
    for (int probe = 1; probe >= 0; probe--) {
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) return idb_fail(err, IDB_EIO, "cannot open %s: %s", dir, strerror(errno));
        if (srv_run_lock_busy(fd, &owner)) {
            close(fd);
            return idb_fail(err, IDB_EIO, "%s is in use by pid %ld: not cleaned", dir, owner);
        }
        int n = walk(fd, dir, CLEAN_DEPTH_MAX, probe, &owner, busy, sizeof busy);
        if (n < 0)
            return idb_fail(err, IDB_EIO, "%s is in use by pid %ld (%s): not cleaned", dir,
                            owner, busy);
        *stopped = n;
    }
    return 0;
}
