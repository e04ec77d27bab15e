/* statefile.c — a strategy's time reservation on disk: the lock, the strict reader and the
 * durable writer (temp file, fsync, rename, fsync of the directory). See statefile.h. */
#include "statefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "strategy.h"

#define STATE_MAGIC "idbench-state 1\n"
#define STATE_TEXT_MAX 256            /* a valid file is far shorter: more is corrupt */
#define STATE_FILE_MODE 0644
#define LOCK_SUFFIX ".lock"
#define TMP_SUFFIX ".tmp"

/* path + suffix in a new string, or NULL. */
static char *with_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path), m = strlen(suffix);
    char *s = malloc(n + m + 1);
    if (s) { memcpy(s, path, n); memcpy(s + n, suffix, m + 1); }
    return s;
}

/* The directory holding path ("." when it has no slash), in a new string, or NULL. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return with_suffix(".", "");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (d) { memcpy(d, path, n); d[n] = 0; }
    return d;
}

/* Free sf's strings and sf (the lock is the caller's business). */
static void sf_free(idb_statefile *sf)
{
    free(sf->path);
    free(sf->tmp);
    free(sf->dir);
    free(sf);
}

/* Fail with code: "strategy OWNER: state_file PATH: what: strerror(errno)". */
static int sys_fail(const idb_statefile *sf, int code, const char *what, idb_err *err)
{
    char shown[IDB_SHOWN_MAX];
    return idb_fail(err, code, "strategy %s: state_file %s: %s: %s", sf->owner,
                    idb_text_shown(sf->path, shown), what, strerror(errno));
}

/* Whether errno after open() says the path itself is wrong (bad input), not the system. */
static int path_errno(void)
{
    return errno == ENOENT || errno == ENOTDIR || errno == EACCES || errno == EROFS ||
           errno == EISDIR || errno == ENAMETOOLONG || errno == ELOOP;
}

/* Parse text (len bytes) as a state file of sf->owner into *ms. Returns 0, or IDB_EINPUT
 * saying what is wrong. */
static int parse_state(const idb_statefile *sf, const char *text, size_t len, int64_t *ms,
                       idb_err *err)
{
    char head[STATE_TEXT_MAX], shown[IDB_SHOWN_MAX], num[STATE_TEXT_MAX];
    const char *why = NULL;
    int n = snprintf(head, sizeof head, STATE_MAGIC "strategy %s\nreserved_ms ", sf->owner);
    size_t h = (size_t)n, digits = len > h ? len - h - 1 : 0;
    if (len <= h || strncmp(text, head, h) != 0)
        why = "not an idbench state file of this strategy";
    else if (text[len - 1] != '\n' || digits == 0 || digits >= sizeof num)
        why = "reserved_ms is not one line";
    else {
        memcpy(num, text + h, digits);
        num[digits] = 0;
        if (strspn(num, "0123456789") != digits || idb_parse_i64(num, ms) != 0 ||
            *ms > IDB_STATE_MS_MAX)
            why = "reserved_ms is not a decimal number of ms before 2262";
    }
    if (!why) return 0;
    return idb_fail(err, IDB_EINPUT, "strategy %s: state_file %s is corrupt (%s): refusing "
                    "to start without knowing which times were used", sf->owner,
                    idb_text_shown(sf->path, shown), why);
}

/* Read sf->path into sf->reserved_ms (IDB_STATE_NONE when it does not exist). Returns 0,
 * IDB_EINPUT (corrupt; a directory) or IDB_EIO. */
static int read_state(idb_statefile *sf, idb_err *err)
{
    sf->reserved_ms = IDB_STATE_NONE;
    int fd = open(sf->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) return 0;
    if (fd < 0) return sys_fail(sf, path_errno() ? IDB_EINPUT : IDB_EIO, "cannot open", err);
    char text[STATE_TEXT_MAX + 1];
    size_t len = 0;
    ssize_t got = 1;
    while (len < sizeof text && got > 0) {
        got = read(fd, text + len, sizeof text - len);
        if (got > 0) len += (size_t)got;
    }
    int saved = errno;
    close(fd);
    errno = saved;
    if (got < 0) return sys_fail(sf, errno == EISDIR ? IDB_EINPUT : IDB_EIO, "cannot read", err);
    return parse_state(sf, text, len, &sf->reserved_ms, err);
}

/* Open and lock PATH.lock into sf->lock_fd. Returns 0, IDB_EUNAVAIL (locked), IDB_EINPUT
 * (the directory is missing or not writable), IDB_EIO or IDB_ENOMEM. */
static int take_lock(idb_statefile *sf, idb_err *err)
{
    char *lock = with_suffix(sf->path, LOCK_SUFFIX), shown[IDB_SHOWN_MAX];
    if (!lock) return idb_fail(err, IDB_ENOMEM, "out of memory");
    sf->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, STATE_FILE_MODE);
    free(lock);
    if (sf->lock_fd < 0)
        return sys_fail(sf, path_errno() ? IDB_EINPUT : IDB_EIO, "cannot create its .lock", err);
    if (flock(sf->lock_fd, LOCK_EX | LOCK_NB) == 0) return 0;
    int busy = errno == EWOULDBLOCK;
    int rc = busy ? idb_fail(err, IDB_EUNAVAIL, "strategy %s: state_file %s is in use by "
                             "another instance (its .lock is held): give each instance its "
                             "own state_file", sf->owner, idb_text_shown(sf->path, shown))
                  : sys_fail(sf, IDB_EIO, "cannot lock its .lock", err);
    close(sf->lock_fd);
    return rc;
}

/* Open, lock and read a state file (see statefile.h). */
int idb_statefile_open(const char *path, const char *owner, idb_statefile **out, idb_err *err)
{
    idb_statefile *sf = calloc(1, sizeof *sf);
    if (!sf) return idb_fail(err, IDB_ENOMEM, "out of memory");
    sf->owner = owner;
    sf->path = with_suffix(path, "");
    sf->tmp = with_suffix(path, TMP_SUFFIX);
    sf->dir = dir_of(path);
    sf->used_ms = IDB_STATE_NONE;
    sf->fork_gen = idb_fork_generation();
    if (!sf->path || !sf->tmp || !sf->dir) {
        sf_free(sf);
        return idb_fail(err, IDB_ENOMEM, "out of memory");
    }
    int rc = take_lock(sf, err);
    if (rc) { sf_free(sf); return rc; }
    rc = read_state(sf, err);
    if (rc) { close(sf->lock_fd); sf_free(sf); return rc; }
    *out = sf;
    return 0;
}

/* Write all of text to fd. Returns 0 or -1 (errno set). */
static int write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, text, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        text += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Write text to sf->tmp and fsync it. Returns 0 or IDB_EIO. */
static int write_tmp(idb_statefile *sf, const char *text, size_t len, idb_err *err)
{
    int fd = open(sf->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, STATE_FILE_MODE);
    if (fd < 0) return sys_fail(sf, IDB_EIO, "cannot create its .tmp", err);
    int bad = write_all(fd, text, len) != 0 || fsync(fd) != 0;
    int saved = errno;
    if (close(fd) != 0 && !bad) { bad = 1; saved = errno; }
    if (bad) {
        unlink(sf->tmp);
        errno = saved;
        return sys_fail(sf, IDB_EIO, "cannot write its .tmp", err);
    }
    return 0;
}

/* Durably record ms (see statefile.h). */
int idb_statefile_reserve(idb_statefile *sf, int64_t ms, idb_err *err)
{
    int rc = idb_fork_check(sf->fork_gen, sf->owner, err);   /* the lock is the parent's */
    if (rc) return rc;
    char text[STATE_TEXT_MAX];
    int n = snprintf(text, sizeof text, STATE_MAGIC "strategy %s\nreserved_ms %lld\n",
                     sf->owner, (long long)ms);
    if (n < 0 || (size_t)n >= sizeof text)
        return idb_fail(err, IDB_EIO, "strategy %s: state text too long", sf->owner);
    rc = write_tmp(sf, text, (size_t)n, err);
    if (rc) return rc;
    if (rename(sf->tmp, sf->path) != 0) {
        rc = sys_fail(sf, IDB_EIO, "cannot rename its .tmp over it", err);
        unlink(sf->tmp);
        return rc;
    }
    int dfd = open(sf->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || fsync(dfd) != 0) {
        rc = sys_fail(sf, IDB_EIO, "cannot fsync its directory", err);
        if (dfd >= 0) close(dfd);
        return rc;                  /* the new value may be on disk: keep the larger one */
    }
    close(dfd);
    sf->reserved_ms = ms;
    return 0;
}

/* The refusal of a clock behind the reservation (see statefile.h). */
int idb_statefile_behind(const idb_statefile *sf, int64_t now_ms, const char *how, idb_err *err)
{
    char shown[IDB_SHOWN_MAX];
    int64_t behind = sf->reserved_ms + 1 - now_ms;
    int rc = idb_fail(err, IDB_ECLOCK, "strategy %s: clock reads %lld ms, behind the %lld ms "
                      "an earlier run reserved in state_file %s: refusing to generate IDs for "
                      "%lld ms (%s)", sf->owner, (long long)now_ms, (long long)sf->reserved_ms,
                      idb_text_shown(sf->path, shown), (long long)behind, how);
    if (err) err->behind_ms = behind;
    return rc;
}

/* Record the last ms used, unlock and free (see statefile.h). */
void idb_statefile_close(idb_statefile *sf)
{
    if (!sf) return;
    if (sf->fork_gen == idb_fork_now() && sf->used_ms != IDB_STATE_NONE &&
        sf->used_ms < sf->reserved_ms)
        idb_statefile_reserve(sf, sf->used_ms, NULL);
    close(sf->lock_fd);
    sf_free(sf);
}
