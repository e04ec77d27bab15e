/* template.c — server data templates: a data directory initialised once (initdb,
 * mariadb-install-db; no server is started) that later starts of the same kind
 * copy instead of initialising again (the matrix makes them once per run: issue 28).
 *
 * Layout, under a root directory idbench made (owned by root or idbench's user, not
 * writable by another user, as every component of its path):
 *
 *   ROOT/KIND/           the template server's directory (0700, the server user's)
 *   ROOT/KIND/data       the data a start copies (file by file, as the server user)
 *   ROOT/KIND.settings   "name=value" lines: the settings the init baked in (the kind's
 *                        baked list) it was made with; its presence marks the template
 *                        complete (written last, by idbench, 0600)
 *
 * A start uses ROOT (from IDB_SERVER_TEMPLATES_ENV) when it fits: its kind has a template,
 * it is not a clone (clone_of), TCP only where the kind sets its password at every start
 * (template_tcp), and each baked setting has the template's value. What it refuses (one
 * line, IDB_EINPUT, nothing started): a ROOT or KIND.settings another user could have
 * written, a ROOT/KIND that is a symlink, not the server user's or open to group or
 * others, and a symlink or special file anywhere under ROOT/KIND/data.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server_int.h"
#include "tmpdir.h"

#define TPL_SETTINGS_MAX 4096           /* KIND.settings: a few lines */
#define TPL_SUFFIX ".settings"
#define TPL_COPY_BUF 65536
#define TPL_DEPTH_MAX 16                /* data directories are a few levels deep */

enum { COPY_OK, COPY_IO, COPY_UNSAFE };   /* the copying child's exit status */

/* The value of setting name in s's settings, or NULL. */
static const char *setting_value(const idb_server *s, const char *name)
{
    char n[128];
    const char *v;
    for (int i = s->nsettings - 1; i >= 0; i--)   /* the last one given wins */
        if (srv_setting(s, i, n, sizeof n, &v) == 0 && strcmp(n, name) == 0) return v;
    return NULL;
}

/* The value of name in text (KIND.settings' lines), into buf; NULL when absent. */
static const char *recorded_value(const char *text, const char *name, char *buf, size_t len)
{
    size_t nl = strlen(name);
    for (const char *p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
        if (strncmp(p, name, nl) == 0 && p[nl] == '=') {
            size_t vl = strcspn(p + nl + 1, "\n");
            snprintf(buf, len, "%.*s", (int)vl, p + nl + 1);
            return buf;
        }
    return NULL;
}

/* Read ROOT/KIND.settings (rootfd) into text when it is a regular file of root or
 * idbench's user that no one else can write. 0, 1 when missing (no template), or
 * IDB_EINPUT. */
static int read_record(int rootfd, const char *root, const char *kind, char *text,
                       size_t len, idb_err *err)
{
    char name[NAME_MAX + 1];
    struct stat st;
    snprintf(name, sizeof name, "%s" TPL_SUFFIX, kind);
    int fd = openat(rootfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT) return 1;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !srv_dir_trusted(&st) ||
        (st.st_mode & (S_IWGRP | S_IWOTH))) {
        if (fd >= 0) close(fd);
        return idb_fail(err, IDB_EINPUT, "server template %s/%s: not a regular file of "
                        "idbench's that only it can write: refused", root, name);
    }
    ssize_t n = read(fd, text, len - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    return 0;
}

/* Whether s fits the template whose record is text (see the file's comment). */
static int fits(const idb_server *s, const char *text)
{
    char buf[256];
    if (s->clone_of[0] || (s->tcp && !s->kind->template_tcp)) return 0;
    for (const char *const *b = s->kind->baked; b && *b; b++) {
        const char *want = setting_value(s, *b), *have = recorded_value(text, *b, buf,
                                                                        sizeof buf);
        if ((want == NULL) != (have == NULL) || (want && strcmp(want, have) != 0)) return 0;
    }
    return 1;
}

/* Open ROOT (trusted, as a server directory's parents) and its KIND directory for s:
 * *kfd = -1 when there is no template of the kind or s does not fit it. */
static int open_template(const idb_server *s, const char *root, int *kfd, idb_err *err)
{
    char text[TPL_SETTINGS_MAX];
    struct stat st;
    *kfd = -1;
    idb_err why = { 0 };
    int rc = srv_dir_walk(root, NULL, 0, &(int){ 0 }, &(int){ 0 }, &why);
    if (rc) return idb_fail(err, IDB_EINPUT, "server templates %s: %s", root, why.msg);
    int rfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (rfd < 0 || fstat(rfd, &st) != 0 || !srv_dir_trusted(&st)) {
        if (rfd >= 0) close(rfd);
        return idb_fail(err, IDB_EINPUT, "server templates %s: not a directory of idbench's "
                        "that only it can write: refused", root);
    }
    rc = read_record(rfd, root, s->kind->name, text, sizeof text, err);
    if (rc || !fits(s, text)) {
        close(rfd);
        return rc > 0 ? 0 : rc;
    }
    uid_t uid = srv_cred_uid(&s->cred);
    int fd = openat(rfd, s->kind->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    close(rfd);
    if (fd < 0)
        return idb_fail(err, IDB_EINPUT, "server template %s/%s: %s: refused", root,
                        s->kind->name, errno == ELOOP || errno == ENOTDIR
                        ? "a symlink or not a directory" : strerror(errno));
    if (fstat(fd, &st) != 0 || st.st_uid != uid || (st.st_mode & 077)) {
        close(fd);
        return idb_fail(err, IDB_EINPUT, "server template %s/%s: not owned by uid %u or "
                        "open to others (mode %03o): refused", root, s->kind->name,
                        (unsigned)uid, (unsigned)(st.st_mode & 07777));
    }
    *kfd = fd;
    return 0;
}

/* Copy the regular file name of sfd (mode) into dfd. COPY_OK or COPY_IO/COPY_UNSAFE. */
static int copy_file(int sfd, int dfd, const char *name, mode_t mode)
{
    static char buf[TPL_COPY_BUF];
    int in = openat(sfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (in < 0) return errno == ELOOP ? COPY_UNSAFE : COPY_IO;
    int out = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    struct stat st;
    int rc = out < 0 || fstat(in, &st) != 0 ? COPY_IO : !S_ISREG(st.st_mode) ? COPY_UNSAFE
                                                                             : COPY_OK;
    ssize_t n = 1;
    while (rc == COPY_OK && n > 0)                  /* in the kernel, where it can */
        n = copy_file_range(in, NULL, out, NULL, TPL_COPY_BUF * 16, 0);
    if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL) &&
        lseek(in, 0, SEEK_SET) == 0 && ftruncate(out, 0) == 0)
        n = 1;                                      /* else by read and write */
    else if (n < 0) rc = COPY_IO;
    while (rc == COPY_OK && n > 0) {
        n = read(in, buf, sizeof buf);
        if (n < 0 || (n > 0 && write(out, buf, (size_t)n) != n)) rc = COPY_IO;
    }
    if (rc == COPY_OK && fchmod(out, mode & 07777) != 0) rc = COPY_IO;
    if (out >= 0 && close(out) != 0) rc = rc ? rc : COPY_IO;
    close(in);
    return rc;
}

/* Copy the tree under sfd into dfd by descriptors: directories and regular files only,
 * modes kept; a symlink or anything else: COPY_UNSAFE. */
static int copy_tree(int sfd, int dfd, int depth)
{
    int dup_fd = dup(sfd), rc = COPY_OK;
    DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
    if (!d) return COPY_IO;
    for (struct dirent *e; rc == COPY_OK && (e = readdir(d));) {
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (fstatat(sfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) rc = COPY_IO;
        else if (S_ISREG(st.st_mode)) rc = copy_file(sfd, dfd, e->d_name, st.st_mode);
        else if (!S_ISDIR(st.st_mode) || depth >= TPL_DEPTH_MAX) rc = COPY_UNSAFE;
        else if (mkdirat(dfd, e->d_name, 0700) != 0) rc = COPY_IO;
        else {
            int a = openat(sfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            int b = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            rc = a < 0 || b < 0 ? COPY_IO : copy_tree(a, b, depth + 1);
            if (rc == COPY_OK && fchmod(b, st.st_mode & 07777) != 0) rc = COPY_IO;
            if (a >= 0) close(a);
            if (b >= 0) close(b);
        }
    }
    closedir(d);
    return rc;
}

/* In a child that became the server user: KIND/data (kfd) copied into DIR/data.partial
 * (s->dfd). Returns COPY_OK, COPY_IO or COPY_UNSAFE. */
static int copy_as_user(const idb_server *s, int kfd)
{
    int st = 0;
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) {
        if (s->cred.drop && (setgroups(0, NULL) != 0 || setgid(s->cred.gid) != 0 ||
                             setuid(s->cred.uid) != 0))
            _exit(COPY_IO);
        struct stat sst;
        int sfd = openat(kfd, "data", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sfd < 0) _exit(errno == ELOOP || errno == ENOTDIR ? COPY_UNSAFE : COPY_IO);
        if (fstat(sfd, &sst) != 0 || mkdirat(s->dfd, SRV_PARTIAL, 0700) != 0) _exit(COPY_IO);
        int dfd = openat(s->dfd, SRV_PARTIAL, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int rc = dfd < 0 ? COPY_IO : copy_tree(sfd, dfd, 0);
        if (rc == COPY_OK && fchmod(dfd, sst.st_mode & 07777) != 0) rc = COPY_IO;
        _exit(rc);
    }
    while (p > 0 && waitpid(p, &st, 0) < 0 && errno == EINTR) {}
    return p < 0 || !WIFEXITED(st) ? COPY_IO : WEXITSTATUS(st);
}

int srv_template_copy(idb_server *s, int *used, idb_err *err)
{
    const char *root = getenv(IDB_SERVER_TEMPLATES_ENV);
    int kfd;
    *used = 0;
    if (srv_init_only || !root || !*root || !s->kind->templated) return 0;   /* making one */
    int rc = open_template(s, root, &kfd, err);
    if (rc || kfd < 0) return rc;
    int copied = copy_as_user(s, kfd);
    close(kfd);
    if (copied == COPY_OK && renameat(s->dfd, SRV_PARTIAL, s->dfd, "data") == 0) {
        *used = 1;
        return 0;
    }
    char shown[PATH_MAX + 16];
    snprintf(shown, sizeof shown, "%s/" SRV_PARTIAL, s->dir);
    srv_rmtree_at(s->dfd, SRV_PARTIAL, srv_cred_uid(&s->cred), shown);
    if (copied == COPY_UNSAFE)
        return idb_fail(err, IDB_EINPUT, "server template %s/%s/data holds a symlink or a "
                        "special file: refused", root, s->kind->name);
    return idb_fail(err, IDB_EIO, "cannot copy the server template %s/%s/data into %s",
                    root, s->kind->name, s->dir);
}

/* Write ROOT/KIND.settings (rootfd): the baked settings of kind k among settings. */
static int write_record(int rootfd, const srv_kind *k, const char *const *settings, int n,
                        idb_err *err)
{
    char name[NAME_MAX + 1], text[TPL_SETTINGS_MAX] = "";
    size_t len = 0;
    for (int i = 0; i < n; i++)
        for (const char *const *b = k->baked; b && *b; b++)
            if (strncmp(settings[i], *b, strlen(*b)) == 0 && settings[i][strlen(*b)] == '=')
                len += (size_t)snprintf(text + len, sizeof text - len, "%s\n", settings[i]);
    snprintf(name, sizeof name, "%s" TPL_SUFFIX, k->name);
    int fd = openat(rootfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int ok = fd >= 0 && len < sizeof text && write(fd, text, len) == (ssize_t)len;
    if (fd >= 0 && close(fd) != 0) ok = 0;
    return ok ? 0 : idb_fail(err, IDB_EIO, "cannot write the server template record %s: %s",
                             name, strerror(errno));
}

int idb_server_template_make(const char *root, const char *kind, const char *const *settings,
                             int nsettings, idb_err *err)
{
    const srv_kind *k = srv_find_kind(kind);
    char dir[PATH_MAX];
    if (!k || !k->templated)
        return idb_fail(err, IDB_EINPUT, "no server templates for kind '%s'", kind ? kind : "");
    if (snprintf(dir, sizeof dir, "%s/%s", root, kind) >= (int)sizeof dir)
        return idb_fail(err, IDB_EINPUT, "server template path too long: %s", root);
    if (mkdir(root, idb_private_dir_mode()) != 0 && errno != EEXIST)
        return idb_fail(err, IDB_EIO, "cannot make %s: %s", root, strerror(errno));
    int rfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (rfd < 0 || fstat(rfd, &st) != 0 || !srv_dir_trusted(&st)) {
        if (rfd >= 0) close(rfd);
        return idb_fail(err, IDB_EINPUT, "server templates %s: not a directory of idbench's "
                        "that only it can write: refused", root);
    }
    idb_server_conf c = { .kind = kind, .dir = dir, .settings = settings,
                          .nsettings = nsettings };
    idb_server *s = NULL;
    srv_init_only = 1;                          /* initdb / mariadb-install-db only: their */
    int rc = idb_server_start(&c, &s, err);     /* servers end cleanly (a start and stop */
    srv_init_only = 0;                          /* could race mariadbd's SIGTERM handling) */
    idb_server_stop(s);
    if (!rc) rc = write_record(rfd, k, settings, nsettings, err);
    close(rfd);
    return rc;
}
