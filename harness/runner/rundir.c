/* rundir.c — the insert runner's directory: checked, snapshotted, undone (see rundir.h). */
#include "rundir.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server.h"
#include "tmpdir.h"

#define SHARD_DIR_FMT "%s/shard-%d"           /* DIR/shard-K */
#define SHARD_NAME_FMT "shard-%d"             /* its name in DIR (and its prefix in names) */
#define NAME_MAX_LEN 512                      /* "shard-K/NAME" kept in the snapshot */
#define NAMES_FIRST 64                        /* first room of the snapshot */
#define SHARD_PATH_MAX (PATH_MAX + sizeof "/shard-2147483647")   /* DIR/shard-K, NUL */

/* The error code for a failed mkdir: the user's to fix (input) or the system's (I/O). */
static int mkdir_code(int e)
{
    return e == EACCES || e == EPERM || e == EROFS || e == ENOENT || e == ENOTDIR ? IDB_EINPUT
                                                                                : IDB_EIO;
}

/* Check that parent of the missing dir is a directory this process may write. */
static int check_parent(const char *dir, idb_err *err)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", dir);            /* the caller checked it fits */
    const char *parent = dirname(copy);
    struct stat sb;
    if (stat(parent, &sb) != 0)
        return idb_fail(err, IDB_EINPUT, "cannot create %s: %s: %s", dir, parent,
                        strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return idb_fail(err, IDB_EINPUT, "cannot create %s: %s is not a directory", dir, parent);
    if (access(parent, W_OK | X_OK) != 0)
        return idb_fail(err, IDB_EINPUT, "cannot create %s: %s is not writable", dir, parent);
    return 0;
}

/* Refuse a dir the run could not make or write (see rundir.h). */
int idb_rundir_check(const char *dir, idb_err *err)
{
    if (!dir || !*dir) return idb_fail(err, IDB_EINPUT, "no directory for the stores");
    if (strlen(dir) >= sizeof ((idb_rundir *)NULL)->dir - sizeof "/shard-1024/orders.sqlite")
        return idb_fail(err, IDB_EINPUT, "directory path is too long (%zu bytes)", strlen(dir));
    int rc = idb_server_dir_check(dir, err);           /* StrictModes: server.h */
    if (rc) return rc;
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        if (errno == ENOENT) return check_parent(dir, err);
        return idb_fail(err, IDB_EINPUT, "%s: %s", dir, strerror(errno));
    }
    if (!S_ISDIR(sb.st_mode)) return idb_fail(err, IDB_EINPUT, "%s is not a directory", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return idb_fail(err, IDB_EINPUT, "%s is not writable", dir);
    if (access(dir, R_OK) != 0)                        /* listed to undo a failed run */
        return idb_fail(err, IDB_EINPUT, "%s is not readable", dir);
    return 0;
}

/* Keep name in the snapshot. Returns 0 or -1 (out of memory). */
static int keep(idb_rundir *rd, const char *name)
{
    if (rd->n == rd->cap) {
        size_t cap = rd->cap ? rd->cap * 2 : NAMES_FIRST;
        char **v = realloc(rd->names, cap * sizeof *v);
        if (!v) return -1;
        rd->names = v;
        rd->cap = cap;
    }
    if (!(rd->names[rd->n] = strdup(name))) return -1;
    rd->n++;
    return 0;
}

/* Keep every name in the directory path, each after prefix. Returns 0, or -1 with errno
 * (a directory that cannot be listed, out of memory). */
static int keep_all(idb_rundir *rd, const char *path, const char *prefix)
{
    DIR *d = opendir(path);
    if (!d) return -1;
    int rc = 0;
    struct dirent *e;
    while (!rc && (errno = 0, e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char name[NAME_MAX_LEN];
        snprintf(name, sizeof name, "%s%s", prefix, e->d_name);   /* d_name < 256 bytes */
        if (keep(rd, name) != 0) { rc = -1; errno = ENOMEM; }
    }
    if (!rc && errno) rc = -1;                         /* readdir failed */
    int saved = errno;
    closedir(d);
    errno = saved;
    return rc;
}

/* qsort / bsearch order of the snapshot's names. */
static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 1 if name is in the snapshot. */
static int kept(const idb_rundir *rd, const char *name)
{
    return rd->n && bsearch(&name, rd->names, rd->n, sizeof *rd->names, cmp_name) != NULL;
}

/* The snapshot: the names in DIR, then in each DIR/shard-K that is a directory. */
static int snapshot(idb_rundir *rd)
{
    if (keep_all(rd, rd->dir, "") != 0) return -1;
    for (int k = 0; k < rd->shards; k++) {
        char path[SHARD_PATH_MAX], prefix[NAME_MAX_LEN];
        struct stat sb;
        snprintf(path, sizeof path, SHARD_DIR_FMT, rd->dir, k);   /* checked: it fits */
        if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) continue;
        snprintf(prefix, sizeof prefix, SHARD_NAME_FMT "/", k);
        if (keep_all(rd, path, prefix) != 0) return -1;
    }
    if (rd->n) qsort(rd->names, rd->n, sizeof *rd->names, cmp_name);   /* names: NULL if 0 */
    return 0;
}

/* The snapshot, then dir made when missing (see rundir.h). */
int idb_rundir_begin(idb_rundir *rd, const char *dir, int shards, idb_err *err)
{
    memset(rd, 0, sizeof *rd);
    snprintf(rd->dir, sizeof rd->dir, "%s", dir);      /* idb_rundir_check: it fits */
    rd->shards = shards;
    rd->lockfd = -1;
    struct stat sb;
    if (stat(dir, &sb) != 0 && errno == ENOENT) {
        if (mkdir(dir, 0777) != 0)
            return idb_fail(err, mkdir_code(errno), "cannot create %s: %s", dir,
                            strerror(errno));
        rd->made_dir = 1;
        int rc = idb_run_lock(dir, &rd->lockfd, err);  /* held until idb_rundir_end */
        if (rc) idb_rundir_undo(rd);
        return rc;
    }
    if (snapshot(rd) == 0) {
        int rc = idb_run_lock(dir, &rd->lockfd, err);
        if (rc) idb_rundir_end(rd);
        return rc;
    }
    int e = errno;
    idb_rundir_end(rd);
    return idb_fail(err, e == ENOMEM ? IDB_ENOMEM : IDB_EIO, "cannot list %s: %s", dir,
                    strerror(e));
}

/* DIR/shard-K, made when missing (see rundir.h). */
int idb_rundir_shard_path(const char *dir, int k, char *path, size_t len, idb_err *err)
{
    if ((size_t)snprintf(path, len, SHARD_DIR_FMT, dir, k) >= len)
        return idb_fail(err, IDB_EINPUT, "directory path is too long");
    return 0;
}

int idb_rundir_shard(const idb_rundir *rd, int k, char *path, size_t len, idb_err *err)
{
    int rc = idb_rundir_shard_path(rd->dir, k, path, len, err);
    if (rc) return rc;
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return idb_fail(err, mkdir_code(errno), "cannot create %s: %s", path, strerror(errno));
    return 0;
}

/* Remove every entry of the directory path (its names: prefix + entry) not in the
 * snapshot, with everything under it. */
static void undo_in(const idb_rundir *rd, const char *path, const char *prefix)
{
    DIR *d = opendir(path);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        char name[NAME_MAX_LEN], full[PATH_MAX + NAME_MAX_LEN];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(name, sizeof name, "%s%s", prefix, e->d_name);
        if (kept(rd, name)) continue;
        snprintf(full, sizeof full, "%s/%s", path, e->d_name);
        idb_tmpdir_remove(full);                       /* ours: made after the snapshot */
    }
    closedir(d);
}

/* Remove what the run made (see rundir.h). */
void idb_rundir_undo(const idb_rundir *rd)
{
    if (rd->made_dir) {
        idb_tmpdir_remove(rd->dir);
        return;
    }
    for (int k = 0; k < rd->shards; k++) {             /* inside the shards that were there */
        char path[SHARD_PATH_MAX], name[NAME_MAX_LEN];
        snprintf(name, sizeof name, SHARD_NAME_FMT, k);
        if (!kept(rd, name)) continue;
        snprintf(path, sizeof path, SHARD_DIR_FMT, rd->dir, k);
        strcat(name, "/");
        undo_in(rd, path, name);
    }
    undo_in(rd, rd->dir, "");
}

/* Free the snapshot (see rundir.h). */
void idb_rundir_end(idb_rundir *rd)
{
    for (size_t i = 0; i < rd->n; i++) free(rd->names[i]);
    free(rd->names);
    rd->names = NULL;
    rd->n = rd->cap = 0;
    idb_run_unlock(rd->dir, rd->lockfd);               /* -1: none */
    rd->lockfd = -1;
}
