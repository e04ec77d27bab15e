/* matrix_owner.c — who owns a results directory while its matrix runs, and recovering the
 * runs whose process was killed without a word (SIGKILL, the OOM killer, a crash), which
 * leave meta.json saying "running" and their scratch directory ($TMPDIR/idbench.XXXXXX) in
 * place (docs/results-format.md).
 *
 * DIR/matrix.lock is made (O_EXCL, O_NOFOLLOW, 0600) when the run starts and flock-ed for
 * the run's life; the lock goes with the process, however it dies (cells forked without
 * exec close their copy of the descriptor first: mx_owner_forget). It holds
 *   pid N
 *   scratch PATH
 * and then a line per cell that ran to its end: "ok LABEL" or "failed LABEL: why". A lock
 * that can be taken means the owner is dead; the recovery (mx_recover) then counts those
 * lines, rewrites meta.json and removes the scratch directory and the owner file.
 */
#include "matrix.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results_index.h"
#include "tmpdir.h"

#define OWNER_FILE "matrix.lock"
#define OWNER_BYTES_MAX (4 << 20)                 /* an owner file read back, at most */
#define SCRATCH_PREFIX "idbench."                 /* idb_tmpdir_make's names */
#define RECOVER_FAILURES_MAX 64                   /* failed cells named in meta.json */

static int owner_fd = -1;                         /* this run's owner file, locked */
static char owner_path[MX_FILE_MAX];

/* Make and lock DIR/matrix.lock (see matrix.h). */
int mx_owner_take(const char *dir, const char *scratch, idb_err *err)
{
    snprintf(owner_path, sizeof owner_path, "%s/" OWNER_FILE, dir);
    owner_fd = open(owner_path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC,
                    0600);
    if (owner_fd < 0)
        return idb_fail(err, IDB_EIO, "cannot create %s: %s", owner_path, strerror(errno));
    if (flock(owner_fd, LOCK_EX | LOCK_NB) != 0 ||
        dprintf(owner_fd, "pid %ld\nscratch %s\n", (long)getpid(), scratch) < 0) {
        int e = errno;
        mx_owner_release();
        return idb_fail(err, IDB_EIO, "cannot lock %s: %s", owner_path, strerror(e));
    }
    return 0;
}

/* In a forked cell: the parent's lock stays, held by its descriptor (see matrix.h). */
void mx_owner_forget(void)
{
    if (owner_fd < 0) return;
    close(owner_fd);
    owner_fd = -1;
}

/* One line per cell that ran to its end (see matrix.h). */
void mx_owner_cell(const char *label, int ok, const char *why)
{
    if (owner_fd < 0) return;
    char line[MX_FILE_MAX];
    int n = ok ? snprintf(line, sizeof line, "ok %s\n", label)
               : snprintf(line, sizeof line, "failed %s: %s\n", label, why);
    if (n >= (int)sizeof line) line[(n = (int)sizeof line - 1) - 1] = '\n';
    for (char *p = line; p < line + n - 1; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    if (write(owner_fd, line, (size_t)n) != n) {}   /* best effort: a line short is a cell */
}

/* Remove the owner file, then drop the lock (see matrix.h). */
void mx_owner_release(void)
{
    if (owner_fd < 0) return;
    unlink(owner_path);
    close(owner_fd);
    owner_fd = -1;
}

/* meta.json's status and cells into ctx (a recovered_meta). */
typedef struct recovered_meta {
    char status[32];
    int cells;
} recovered_meta;

static void on_meta(void *ctx, const char *key, const char *value)
{
    recovered_meta *m = ctx;
    if (!strcmp(key, "status")) snprintf(m->status, sizeof m->status, "%s", value);
    else if (!strcmp(key, "cells")) m->cells = atoi(value);
}

/* Remove the scratch directory path of a dead run, when it is one of ours: a directory
 * (not a symlink) named idbench.*, owned by this user, on the device of its parent. */
static void remove_scratch(const char *path)
{
    char copy[MX_FILE_MAX], parent[MX_FILE_MAX];
    struct stat sb, pb;
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(parent, sizeof parent, "%s", dirname(copy));
    snprintf(copy, sizeof copy, "%s", path);
    const char *base = basename(copy);
    if (path[0] != '/' || lstat(path, &sb) != 0) return;           /* gone already */
    if (!S_ISDIR(sb.st_mode) || sb.st_uid != geteuid() ||
        strncmp(base, SCRATCH_PREFIX, strlen(SCRATCH_PREFIX)) != 0 ||
        lstat(parent, &pb) != 0 || pb.st_dev != sb.st_dev) {
        fprintf(stderr, "idbench: %s: not a scratch directory of ours: left\n", path);
        return;
    }
    if (idb_tmpdir_remove(path) != 0)
        fprintf(stderr, "idbench: cannot remove %s: %s\n", path, strerror(errno));
}

/* The owner file open at fd (locked by us): its scratch path into scratch, its pid into
 * *pid, the cells that ran into *done (of them *ok succeeded), the failed ones' lines into
 * failures (n_failures, malloc'd strings). Returns 0 or -1 (unreadable). */
static int read_owner(int fd, char *scratch, size_t slen, long *pid, int *done, int *ok,
                      char **failures, int *n_failures)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0 || sb.st_size > OWNER_BYTES_MAX) return -1;
    char *text = malloc((size_t)sb.st_size + 1);
    ssize_t n = text ? pread(fd, text, (size_t)sb.st_size, 0) : -1;
    if (n < 0) { free(text); return -1; }
    text[n] = 0;
    scratch[0] = 0;
    *pid = 0;
    *done = *ok = *n_failures = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(l, "pid ", 4)) *pid = atol(l + 4);
        else if (!strncmp(l, "scratch ", 8)) snprintf(scratch, slen, "%s", l + 8);
        else if (!strncmp(l, "ok ", 3)) { (*done)++; (*ok)++; }
        else if (!strncmp(l, "failed ", 7)) {
            (*done)++;
            if (*n_failures < RECOVER_FAILURES_MAX) failures[(*n_failures)++] = strdup(l + 7);
        }
    }
    free(text);
    return 0;
}

/* Recover the run in dir when its owner is dead. Returns 1 when it was recovered. */
static int recover_one(const char *dir)
{
    char path[MX_FILE_MAX], scratch[MX_FILE_MAX];
    snprintf(path, sizeof path, "%s/" OWNER_FILE, dir);
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return 0;                                 /* no owner file: nothing to do */
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_uid != geteuid() ||
        flock(fd, LOCK_EX | LOCK_NB) != 0) {              /* not ours, or its owner lives */
        close(fd);
        return 0;
    }
    recovered_meta m = { "", 0 };
    char *failures[RECOVER_FAILURES_MAX + 1];
    long pid;
    int done, ok, nf, recovered = 0;
    if (read_owner(fd, scratch, sizeof scratch, &pid, &done, &ok, failures, &nf) != 0) {
        fprintf(stderr, "idbench: %s: unreadable: left\n", path);
        close(fd);
        return 0;
    }
    idb_err err = { 0 };
    if (mx_meta_read(dir, on_meta, &m, &err) == 0 && !strcmp(m.status, MX_STATUS_RUNNING)) {
        char why[256];
        snprintf(why, sizeof why, "matrix: interrupted (its process, pid %ld, died without a "
                 "word): %d of %d cells not run", pid, m.cells - done, m.cells);
        failures[nf] = why;
        if (mx_meta_mark_interrupted(dir, done, m.cells - ok, (const char *const *)failures,
                                     nf + 1, &err) == 0)
            recovered = 1;
        else
            fprintf(stderr, "idbench: %s\n", err.msg);
    }
    for (int i = 0; i < nf; i++) free(failures[i]);
    if (scratch[0]) remove_scratch(scratch);
    unlink(path);
    close(fd);
    if (recovered) {
        fprintf(stderr, "idbench: %s: its matrix (pid %ld) died: marked interrupted, %d of %d "
                "cells done\n", dir, pid, done, m.cells);
        if (mx_index_update(dir, &err) != 0) fprintf(stderr, "idbench: %s\n", err.msg);
    }
    return recovered;
}

/* Recover the dead runs at path (see matrix.h). */
int mx_recover(const char *path)
{
    char sub[MX_FILE_MAX];
    struct stat sb;
    snprintf(sub, sizeof sub, "%s/meta.json", path);
    if (lstat(sub, &sb) == 0) return recover_one(path);
    DIR *d = opendir(path);
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        if (lstat(sub, &sb) == 0 && S_ISDIR(sb.st_mode)) n += recover_one(sub);
    }
    closedir(d);
    return n;
}
