/* tmpdir.c — private temporary directories: making them, removing them, and removing them
 * when the program is interrupted (see tmpdir.h).
 *
 * The registry is a fixed table of paths, each with a flag the signal handler reads; it is
 * changed only with the signals blocked. Removal walks a directory with openat, getdents64
 * and unlinkat only, so the signal handler can use the same code as everyone else (these are
 * system calls: no malloc, no stdio, nothing a handler may not call).
 */
#define _XOPEN_SOURCE 700
#include "tmpdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLOTS 64                     /* directories registered at once, at most */
#define ROOT_TMPDIR_MODE 0711         /* as root: the servers' users may pass through */
#define PID_SLOTS 64                 /* server processes registered at once, at most */
#define DEPTH_MAX 32                 /* levels removal descends */
#define PASSES_MAX 64                /* rereads of one directory while entries remain */
#define DENTS_BUF 2048               /* bytes of directory entries read at once */

static char slot_path[SLOTS][PATH_MAX];
static volatile sig_atomic_t slot_used[SLOTS];
static volatile sig_atomic_t slot_pid[PID_SLOTS];   /* 0: free */
static volatile sig_atomic_t slot_sig[PID_SLOTS];   /* the signal that ends it */
static volatile sig_atomic_t caught;             /* the signal caught, 0 none */
static volatile sig_atomic_t mode = -1;          /* enum idb_on_signal; -1: not chosen yet */

/* The signals handled, and their disposition when the program started. */
static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
#define NSIGNALS (sizeof signals / sizeof *signals)
static struct sigaction initial[NSIGNALS];

/* Empty the directory open at fd (entries only, not the directory itself) down to depth
 * levels. Returns 0 or -1 when something could not be removed. */
static int empty_dir(int fd, int depth);

/* Remove name in the directory dirfd, with everything under it when it is a directory (never
 * following a symlink). Async-signal-safe. Returns 0 or -1 with errno set. */
static int remove_at(int dirfd, const char *name, int depth)
{
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return 0;
        if (errno != ENOTDIR && errno != ELOOP) return -1;
        return unlinkat(dirfd, name, 0) == 0 || errno == ENOENT ? 0 : -1;
    }
    int bad = depth >= DEPTH_MAX ? -1 : empty_dir(fd, depth + 1);
    int e = errno;
    close(fd);
    if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT) return 0;
    if (bad) errno = e;
    return -1;
}

/* 1 for "." and "..". */
static int dot_or_dotdot(const char *s) { return s[0] == '.' && (!s[1] || (s[1] == '.' && !s[2])); }

static int empty_dir(int fd, int depth)
{
    char buf[DENTS_BUF] __attribute__((aligned(8)));
    int bad = 0;
    for (int pass = 0, removed = 1; removed && pass < PASSES_MAX; pass++) {
        removed = 0;
        if (lseek(fd, 0, SEEK_SET) < 0) return -1;
        for (ssize_t n; (n = getdents64(fd, buf, sizeof buf)) > 0;)
            for (ssize_t off = 0; off < n;) {
                const struct dirent64 *d = (const struct dirent64 *)(buf + off);
                off += d->d_reclen;
                if (dot_or_dotdot(d->d_name)) continue;
                if (remove_at(fd, d->d_name, depth) == 0) removed = 1;
                else bad = -1;
            }
    }
    return bad;
}

/* Block (how = SIG_BLOCK) or unblock the handled signals in this thread. */
static void block(int how)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < NSIGNALS; i++) sigaddset(&set, signals[i]);
    pthread_sigmask(how, &set, NULL);
}

/* Remove every registered directory after signalling every registered process and its
 * process group with its signal (SIGKILL unless registered with another; async-signal-safe). */
static void remove_registered(void)
{
    for (int i = 0; i < PID_SLOTS; i++)
        if (slot_pid[i]) {
            kill(-(pid_t)slot_pid[i], slot_sig[i]);
            kill((pid_t)slot_pid[i], slot_sig[i]);
            slot_pid[i] = 0;
        }
    for (int i = 0; i < SLOTS; i++)
        if (slot_used[i]) {
            remove_at(AT_FDCWD, slot_path[i], 0);
            slot_used[i] = 0;
        }
}

/* The handler: record the signal; in the clean-and-die mode also remove the directories and
 * let the signal kill the process once the handler returns. */
static void on_signal(int sig)
{
    int e = errno;
    if (!caught) caught = sig;
    if (mode == IDB_ON_SIGNAL_CLEAN_AND_DIE) {
        remove_registered();
        signal(sig, SIG_DFL);                    /* blocked here: delivered on return */
        raise(sig);
    }
    errno = e;
}

int idb_signals_catch(enum idb_on_signal what)
{
    mode = what;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSIGNALS; i++) sigaddset(&sa.sa_mask, signals[i]);
    for (size_t i = 0; i < NSIGNALS; i++) {
        if (sigaction(signals[i], NULL, &initial[i]) != 0) return -1;
        if (initial[i].sa_handler == SIG_IGN) continue;     /* ignored at start: stays so */
        if (sigaction(signals[i], &sa, NULL) != 0) return -1;
    }
    return 0;
}

int idb_signal_caught(void) { return caught; }

void idb_signals_default(void)
{
    for (size_t i = 0; mode >= 0 && i < NSIGNALS; i++) sigaction(signals[i], &initial[i], NULL);
    for (int i = 0; i < SLOTS; i++) slot_used[i] = 0;
    for (int i = 0; i < PID_SLOTS; i++) slot_pid[i] = 0;
    caught = 0;
    mode = -1;
}

void idb_signal_die(void)
{
    int sig = caught;
    if (!sig) return;
    block(SIG_BLOCK);
    remove_registered();
    signal(sig, SIG_DFL);
    raise(sig);                                  /* pending until unblocked */
    block(SIG_UNBLOCK);
    _exit(128 + sig);                            /* not reached: the signal kills */
}

/* The mode of a private directory (see tmpdir.h). */
mode_t idb_private_dir_mode(void)
{
    return geteuid() == 0 ? ROOT_TMPDIR_MODE : 0700;
}

int idb_tmpdir_make(char *buf, size_t len)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    if ((size_t)snprintf(buf, len, "%s/idbench.XXXXXX", base) >= len || strlen(buf) >= PATH_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (mode < 0 && idb_signals_catch(IDB_ON_SIGNAL_CLEAN_AND_DIE) != 0) return -1;
    block(SIG_BLOCK);
    int i = 0;
    while (i < SLOTS && slot_used[i]) i++;
    int rc = i == SLOTS ? (errno = EMFILE, -1) : mkdtemp(buf) ? 0 : -1;
    if (rc == 0 && geteuid() == 0 && chmod(buf, idb_private_dir_mode()) != 0) rc = -1;
    int e = errno;
    if (rc == 0) {
        memcpy(slot_path[i], buf, strlen(buf) + 1);
        slot_used[i] = 1;
    }
    block(SIG_UNBLOCK);
    errno = e;
    return rc;
}

int idb_tmpdir_adopt(const char *dir)
{
    if (strlen(dir) >= PATH_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (mode < 0 && idb_signals_catch(IDB_ON_SIGNAL_CLEAN_AND_DIE) != 0) return -1;
    block(SIG_BLOCK);
    int i = 0;
    while (i < SLOTS && slot_used[i]) i++;
    if (i < SLOTS) {
        memcpy(slot_path[i], dir, strlen(dir) + 1);
        slot_used[i] = 1;
    }
    block(SIG_UNBLOCK);
    if (i == SLOTS) {
        errno = EMFILE;
        return -1;
    }
    return 0;
}

int idb_tmpdir_remove(const char *dir)
{
    block(SIG_BLOCK);
    int rc = remove_at(AT_FDCWD, dir, 0), e = errno;
    for (int i = 0; i < SLOTS; i++)
        if (slot_used[i] && strcmp(slot_path[i], dir) == 0) slot_used[i] = 0;
    block(SIG_UNBLOCK);
    errno = e;
    return rc;
}

int idb_pid_register(int pid, int sig)
{
    if (mode < 0 && idb_signals_catch(IDB_ON_SIGNAL_CLEAN_AND_DIE) != 0) return -1;
    block(SIG_BLOCK);
    int i = 0;
    while (i < PID_SLOTS && slot_pid[i]) i++;
    if (i < PID_SLOTS) {
        slot_sig[i] = sig > 0 ? sig : SIGKILL;
        slot_pid[i] = pid;
    }
    block(SIG_UNBLOCK);
    if (i == PID_SLOTS) {
        errno = EMFILE;
        return -1;
    }
    return 0;
}

void idb_pid_unregister(int pid)
{
    block(SIG_BLOCK);
    for (int i = 0; i < PID_SLOTS; i++)
        if (slot_pid[i] == pid) slot_pid[i] = 0;
    block(SIG_UNBLOCK);
}
