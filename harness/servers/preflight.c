/* preflight.c — what is checked before a server starts, each failure one message that says
 * what to fix: the kind and its settings, the binaries, the user to run as (users.c), free
 * disk space on the server dir's filesystem, and that the server user can reach the server
 * dir.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "server_int.h"

#define REACH_OK 0                     /* the reach check child's status: all searchable */
#define REACH_BROKEN 255               /* it could not change user */
#define MIB (1024.0 * 1024.0)

/* 1 when a setting's name is made of [A-Za-z0-9_.-] and its value holds nothing a config
 * file would read as syntax (quotes, backslash, '#', line breaks). */
static int setting_ok(const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) return 0;
    for (const char *p = kv; p < eq; p++)
        if (!(*p == '_' || *p == '.' || *p == '-' || (*p >= '0' && *p <= '9') ||
              (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
            return 0;
    return eq[1] && !eq[strcspn(eq, "'\"\\#\n\r")];
}

/* The binaries' paths (environment overrides first), each executable. */
static int find_bins(const srv_kind *k, char bins[][PATH_MAX], idb_err *err)
{
    for (int i = 0; i < SRV_BINS_MAX && k->bins[i].path; i++) {
        const char *env = getenv(k->bins[i].env);
        const char *path = env && *env ? env : k->bins[i].path;
        if (snprintf(bins[i], PATH_MAX, "%s", path) >= PATH_MAX)
            return idb_fail(err, IDB_EINPUT, "%s: path too long", k->bins[i].env);
        if (access(path, X_OK) != 0)
            return idb_fail(err, IDB_EIO, "%s: %s is missing (install %s: ./bootstrap%s%s)",
                            k->name, path, k->package, env && *env ? "; or unset " : "",
                            env && *env ? k->bins[i].env : "");
    }
    return 0;
}

/* The deepest existing directory on the way to dir (dir itself when it exists) into out. */
static int existing_ancestor(const char *dir, char *out, size_t len)
{
    if (snprintf(out, len, "%s", dir) >= (int)len) return -1;
    struct stat st;
    while (stat(out, &st) != 0 || !S_ISDIR(st.st_mode)) {
        char *slash = strrchr(out, '/');
        if (!slash) return snprintf(out, len, ".") >= (int)len ? -1 : 0;
        if (slash == out) slash[1] = 0;
        else *slash = 0;
    }
    return 0;
}

/* In a child as cred: exit with the number of the first component of path (1 = the first
 * after the root) the user cannot search, REACH_OK when all can be. */
static void reach_child(const srv_cred *cred, const char *path)
{
    if (cred->drop && (setgroups(0, NULL) != 0 || setgid(cred->gid) != 0 ||
                       setuid(cred->uid) != 0))
        _exit(REACH_BROKEN);
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", path);
    int n = 0;
    for (char *s = p + 1;; s++) {
        if (*s && *s != '/') continue;
        char c = *s;
        *s = 0;
        n++;
        if (access(p, X_OK) != 0) _exit(n < REACH_BROKEN ? n : REACH_BROKEN - 1);
        if (!c) break;
        *s = c;
    }
    _exit(REACH_OK);
}

/* Check that cred can search every directory down to the existing part of dir's parent
 * (dir itself is given to the server user at the start). A user a start will create is
 * checked then. */
static int check_reach(const srv_kind *k, const srv_cred *cred, const char *dir, idb_err *err)
{
    if (cred->missing) return 0;
    char abs[PATH_MAX], have[PATH_MAX], parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", dir);
    for (size_t n = strlen(parent); n > 1 && parent[n - 1] == '/'; n--) parent[n - 1] = 0;
    char *slash = strrchr(parent, '/');
    if (!slash) snprintf(parent, sizeof parent, ".");
    else slash[slash == parent] = 0;                   /* "/x" keeps the root "/" */
    if (existing_ancestor(parent, have, sizeof have) != 0 || !realpath(have, abs))
        return idb_fail(err, IDB_EIO, "%s: cannot resolve %s", k->name, dir);
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) reach_child(cred, abs);
    int st = 0;
    while (p > 0 && waitpid(p, &st, 0) < 0 && errno == EINTR) {}
    if (p < 0 || !WIFEXITED(st) || WEXITSTATUS(st) == REACH_BROKEN)
        return idb_fail(err, IDB_EIO, "%s: cannot check as user %s whether %s is reachable",
                        k->name, cred->name, dir);
    int bad = WEXITSTATUS(st);
    if (bad == REACH_OK) return 0;
    char *s = abs;
    for (int i = 0; i < bad && s; i++) s = strchr(s + 1, '/');
    if (s) *s = 0;
    return idb_fail(err, IDB_EIO, "%s: user %s cannot reach %s (%s is not searchable by it): "
                    "choose a dir outside it, e.g. under /tmp or /var/tmp", k->name,
                    cred->name, dir, abs);
}

/* Check the free space on the filesystem of dir against the kind's minimum. */
static int check_space(const srv_kind *k, const char *dir, idb_err *err)
{
    char have[PATH_MAX];
    struct statvfs v;
    if (existing_ancestor(dir, have, sizeof have) != 0 || statvfs(have, &v) != 0)
        return idb_fail(err, IDB_EIO, "%s: cannot read the free space of %s", k->name, dir);
    double avail = (double)v.f_bavail * (double)v.f_frsize;
    if (avail < (double)k->min_free_bytes)
        return idb_fail(err, IDB_EIO, "%s: only %.0f MiB free on %s's filesystem, %.0f MiB "
                        "needed", k->name, avail / MIB, dir, (double)k->min_free_bytes / MIB);
    return 0;
}

/* The preflight; create: whether a missing server user is created (a start) or only
 * noted in cred->missing (idb_server_preflight, e.g. a store's availability check). */
static int preflight(const idb_server_conf *c, int create, const srv_kind **kind,
                     srv_cred *cred, char bins[][PATH_MAX], idb_err *err)
{
    const srv_kind *k = srv_find_kind(c->kind);
    if (!k) return idb_fail(err, IDB_EINPUT, "unknown server kind '%s' (postgres, mariadb, "
                            "redis)", c->kind ? c->kind : "(none)");
    if (!c->dir || !*c->dir) return idb_fail(err, IDB_EINPUT, "%s: no server dir", k->name);
    for (int i = 0; i < c->nsettings; i++)
        if (!setting_ok(c->settings[i]))
            return idb_fail(err, IDB_EINPUT, "%s: bad setting '%s' (want name=value, no "
                            "quotes, '#' or line breaks)", k->name, c->settings[i]);
    int rc = find_bins(k, bins, err);         /* no user is created for missing binaries */
    if (!rc) rc = srv_find_user(k, create, cred, err);
    if (!rc) rc = check_space(k, c->dir, err);
    if (!rc) rc = check_reach(k, cred, c->dir, err);
    if (!rc) *kind = k;
    return rc;
}

int srv_preflight(const idb_server_conf *c, const srv_kind **kind, srv_cred *cred,
                  char bins[][PATH_MAX], idb_err *err)
{
    return preflight(c, 1, kind, cred, bins, err);
}

int idb_server_preflight(const idb_server_conf *c, idb_err *err)
{
    const srv_kind *k;
    srv_cred cred;
    char bins[SRV_BINS_MAX][PATH_MAX];
    return preflight(c, 0, &k, &cred, bins, err);
}

/* Whether kind's binaries are installed, and its version (see server.h). */
int idb_server_installed(const char *kind, char *version, size_t cap, idb_err *err)
{
    const srv_kind *k = srv_find_kind(kind);
    char bins[SRV_BINS_MAX][PATH_MAX];
    if (cap) version[0] = 0;
    if (!k) return idb_fail(err, IDB_EINPUT, "unknown server kind '%s'", kind);
    int rc = find_bins(k, bins, err);
    if (!rc && cap) srv_version_of(k, bins[0], version, cap);
    return rc;
}
