/* users.c — which user a server runs as. Run as root, idbench starts a server as its
 * package's user (postgres, mysql, redis), or as IDBENCH_SERVER_USER when that is set; when
 * that user does not exist, as a system user it creates for the purpose (IDBENCH_SERVER_USER,
 * else "idbench": no login shell, no home, its own group; made with useradd(8), the
 * documented way to add a system user, and said once on stderr). Run as a normal user, the
 * servers run as that user. docs/servers.md, "Users", has the details.
 */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "server_int.h"

#define USERADD "/usr/sbin/useradd"
#define NO_HOME "/nonexistent"         /* Debian's home of system users that have none */
#define USER_COMMENT "idbench private servers"
#define USER_NAME_MAX 32               /* useradd's limit on a name's length */
#define USERADD_OUT_LEN 512            /* useradd's message, kept for an error */
#define USERADD_TRIES 3                /* useradd fails while another holds its lock */
#define USERADD_RETRY_NS 200000000L    /* 0.2 s between tries */
#define USERADD_MORE_ARGS 4            /* --gid GROUP or --user-group, the name, NULL */

/* The shells that refuse a login, in order of preference. */
static const char *const no_login_shells[] = { "/usr/sbin/nologin", "/sbin/nologin",
                                               "/bin/false" };

static int told;                       /* the note on stderr was printed (once a process) */

/* 1 when name is a user name useradd takes and nobody can read as an option or a path:
 * [a-z_][a-z0-9_-]*, at most USER_NAME_MAX characters. */
static int user_name_ok(const char *name)
{
    static const char lower[] = "abcdefghijklmnopqrstuvwxyz_";
    static const char rest[] = "abcdefghijklmnopqrstuvwxyz_0123456789-";
    size_t n = strlen(name);
    return n > 0 && n <= USER_NAME_MAX && strchr(lower, name[0]) && strspn(name, rest) == n;
}

/* The first shell of no_login_shells that exists. */
static const char *no_login_shell(void)
{
    size_t n = sizeof no_login_shells / sizeof *no_login_shells;
    for (size_t i = 0; i + 1 < n; i++)
        if (access(no_login_shells[i], X_OK) == 0) return no_login_shells[i];
    return no_login_shells[n - 1];
}

/* Create the system user name (for want, a user that does not exist, of kind k). A user
 * made meanwhile by another process is no error. Returns 0 or IDB_EIO. */
static int create_user(const char *name, const char *want, const srv_kind *k, idb_err *err)
{
    char out[USERADD_OUT_LEN] = "";
    const char *fixed[] = { USERADD, "--system", "--no-create-home", "--home-dir", NO_HOME,
                            "--shell", no_login_shell(), "--comment", USER_COMMENT };
    const char *argv[sizeof fixed / sizeof *fixed + USERADD_MORE_ARGS];
    size_t n = 0;
    for (; n < sizeof fixed / sizeof *fixed; n++) argv[n] = fixed[n];
    if (getgrnam(name)) {                      /* a group of that name: join it */
        argv[n++] = "--gid";
        argv[n++] = name;
    } else argv[n++] = "--user-group";
    argv[n++] = name;
    argv[n] = NULL;
    if (access(USERADD, X_OK) != 0)
        return idb_fail(err, IDB_EIO, "%s: user %s does not exist and %s is missing to create "
                        "one (install passwd, or create the user)", k->name, want, USERADD);
    int st = srv_capture(argv, 1, out, sizeof out);
    for (int i = 1; i < USERADD_TRIES && st != 0 && !getpwnam(name); i++) {
        struct timespec pause = { 0, USERADD_RETRY_NS };   /* another useradd held the lock */
        nanosleep(&pause, NULL);
        st = srv_capture(argv, 1, out, sizeof out);
    }
    if (st != 0 && !getpwnam(name)) {
        for (char *p = out; *p; p++) if (*p == '\n') *p = ' ';
        return idb_fail(err, IDB_EIO, "%s: user %s does not exist and creating the system "
                        "user %s failed (%s status %d: %s): create it, or set %s", k->name,
                        want, name, USERADD, st, out, SRV_USER_ENV);
    }
    if (st == 0 && !told) {                    /* the package's user missing, or the env */
        told = 1;
        int fallback = strcmp(name, want) != 0;
        fprintf(stderr, "idbench: note: created the system user %s to run the servers (%s%s%s): "
                "no login shell, no home; `userdel %s` removes it\n", name,
                fallback ? "user " : SRV_USER_ENV "=", want,
                fallback ? " does not exist" : "", name);
    }
    return 0;
}

/* As a normal user: the servers run as that user; IDBENCH_SERVER_USER may only name it. */
static int own_user(const srv_kind *k, const char *env, srv_cred *cred, idb_err *err)
{
    struct passwd *pw = getpwuid(geteuid());
    snprintf(cred->name, sizeof cred->name, "%s", pw ? pw->pw_name : "idbench's user");
    if (env && (!pw || strcmp(env, pw->pw_name) != 0))
        return idb_fail(err, IDB_EINPUT, "%s: %s=%s: only root can run a server as another "
                        "user (idbench runs as %s)", k->name, SRV_USER_ENV, env, cred->name);
    return 0;
}

int srv_find_user(const srv_kind *k, int create, srv_cred *cred, idb_err *err)
{
    memset(cred, 0, sizeof *cred);
    const char *env = getenv(SRV_USER_ENV);
    if (env && !*env) env = NULL;
    if (env && !user_name_ok(env))
        return idb_fail(err, IDB_EINPUT, "%s=%s: not a user name (lower-case letters, digits, "
                        "'_' and '-', at most %d)", SRV_USER_ENV, env, USER_NAME_MAX);
    if (geteuid() != 0) return own_user(k, env, cred, err);
    const char *want = env ? env : k->user, *name = want;
    struct passwd *pw = getpwnam(want);
    if (!pw) {
        name = env ? env : SRV_FALLBACK_USER;
        pw = getpwnam(name);
    }
    snprintf(cred->name, sizeof cred->name, "%s", name);
    cred->drop = 1;
    if (!pw && !create) {
        cred->missing = 1;             /* a start will create it */
        return 0;
    }
    if (!pw) {
        int rc = create_user(name, want, k, err);
        if (rc) return rc;
        if (!(pw = getpwnam(name)))
            return idb_fail(err, IDB_EIO, "%s: the system user %s was created but cannot be "
                            "found", k->name, name);
    }
    cred->uid = pw->pw_uid;
    cred->gid = pw->pw_gid;
    return 0;
}

/* 1 when the user named name exists and has uid. */
static int is_uid_of(const char *name, uid_t uid)
{
    const struct passwd *pw = name ? getpwnam(name) : NULL;
    return pw && pw->pw_uid == uid;
}

int srv_user_uid_ok(uid_t uid)
{
    if (uid == geteuid() || is_uid_of(getenv(SRV_USER_ENV), uid) ||
        is_uid_of(SRV_FALLBACK_USER, uid))
        return 1;
    for (size_t i = 0; srv_kind_at(i); i++)
        if (is_uid_of(srv_kind_at(i)->user, uid)) return 1;
    return 0;
}
