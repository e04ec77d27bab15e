/* server.c — the server lifecycle behind server.h: the kind table, the preflight, starting
 * (directories, socket directory, config, readiness), alive/kill/restart/stop, the list of
 * started servers for exit paths. The process mechanics are in proc.c, records and clean
 * in pidfile.c, each kind's specifics in srv_KIND.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "server_int.h"
#include "tmpdir.h"

#define START_TIMEOUT_MS 60000         /* a server not ready by then is stopped: IDB_EIO */
#define STOP_TIMEOUT_MS 20000          /* SIGTERM, then SIGKILL after this */
#define READY_POLL_NS 10000000L        /* 10 ms between readiness checks */
#define NS_PER_MS 1000000L

static const srv_kind *const kinds[] = { &srv_postgres, &srv_mariadb, &srv_redis, &srv_etcd,
                                        &srv_sentinel };
#define NKINDS (sizeof kinds / sizeof *kinds)

static idb_server *started;            /* every server started and not stopped */
static pid_t owner;                    /* the process that started them (not a fork child) */

/* The kind named name, or NULL. */
static const srv_kind *find_kind(const char *name)
{
    for (size_t i = 0; name && i < NKINDS; i++)
        if (strcmp(kinds[i]->name, name) == 0) return kinds[i];
    return NULL;
}

int srv_setting(const idb_server *s, int i, char *name, size_t nlen, const char **value)
{
    const char *kv = s->settings[i], *eq = strchr(kv, '=');
    if (!eq || eq == kv || (size_t)(eq - kv) >= nlen) return -1;
    memcpy(name, kv, (size_t)(eq - kv));
    name[eq - kv] = 0;
    *value = eq + 1;
    return 0;
}

/* Write text to path with flags (O_TRUNC, O_APPEND, or O_EXCL: what is at path is removed
 * first and a new file made), as the server user when idbench drops to one: in a child
 * that became that user, so that nothing the server user could have planted under its
 * directory (a symlinked component) is written as root. */
static int write_as(const idb_server *s, const char *path, const char *text, int flags,
                    idb_err *err)
{
    size_t n = strlen(text);
    int st = 0, e = 0;
    fflush(NULL);
    pid_t p = s->cred.drop ? fork() : 0;
    if (p == 0) {
        int ok = !s->cred.drop || (setgroups(0, NULL) == 0 && setgid(s->cred.gid) == 0 &&
                                   setuid(s->cred.uid) == 0);
        if (ok && (flags & O_EXCL) && unlink(path) != 0 && errno != ENOENT) ok = 0;
        int fd = ok ? open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | flags, 0600)
                    : -1;
        ok = fd >= 0 && write(fd, text, n) == (ssize_t)n;
        e = errno;
        if (fd >= 0 && close(fd) != 0) ok = 0;
        if (s->cred.drop) _exit(ok ? 0 : 1 + (e & 0x7f));
        st = ok ? 0 : (1 + (e & 0x7f)) << 8;
    }
    while (p > 0 && waitpid(p, &st, 0) < 0 && errno == EINTR) {}
    if (p < 0) e = errno;
    else if (!WIFEXITED(st) || WEXITSTATUS(st)) e = WIFEXITED(st) ? WEXITSTATUS(st) - 1 : EIO;
    else return 0;
    return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(e));
}

int srv_write_file(const idb_server *s, const char *path, const char *text, idb_err *err)
{
    return write_as(s, path, text, O_TRUNC, err);
}

/* Whether fd holds name (see server_int.h). */
int srv_has(int fd, const char *name)
{
    struct stat st;
    return fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int srv_append_file(const idb_server *s, const char *path, const char *text, idb_err *err)
{
    return write_as(s, path, text, O_APPEND, err);
}

int srv_write_private(const idb_server *s, const char *path, const char *text, idb_err *err)
{
    return write_as(s, path, text, O_EXCL, err);
}

const char *srv_kind_bin(const srv_kind *k)
{
    const char *env = getenv(k->bins[0].env);
    return env && *env ? env : k->bins[0].path;
}

int srv_free_port(void)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = 0;
    if (fd < 0) return 0;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

int srv_socket_accepts(const char *path)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof a.sun_path) return 0;
    memcpy(a.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    int ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    return ok;
}

/* Sleep READY_POLL_NS. */
static void ready_sleep(void)
{
    struct timespec ts = { 0, READY_POLL_NS };
    nanosleep(&ts, NULL);
}

/* Start s's server process (config written, data initialised) and wait until it accepts
 * connections. Returns 0 or IDB_EIO (the log's last lines in the message). */
static int launch(idb_server *s, idb_err *err)
{
    const char *argv[32] = { 0 };
    int rc = s->kind->conf(s, err);
    if (rc) return rc;
    if (srv_truncate_conf && s->kind->conf_file) {   /* tests: only the command line */
        char conf[PATH_MAX + 64];
        snprintf(conf, sizeof conf, "%s/%s", s->dir, s->kind->conf_file);
        if ((rc = srv_write_file(s, conf, "", err))) return rc;   /* as the server user */
    }
    s->kind->argv(s, argv, sizeof argv / sizeof *argv - 1);
    if ((rc = srv_spawn(&s->cred, argv, s->log, s->kind->death_signal, &s->pid, err)))
        return rc;
    s->starttime = srv_proc_starttime(s->pid);  /* recorded from the fork on: a run killed */
    s->ready = 0;                               /* before it serves leaves it findable */
    if ((rc = srv_record_write(s, err))) {
        srv_kill_tree(s->pid, 1);
        idb_pid_unregister(s->pid);
        s->pid = 0;
        return rc;
    }
    for (long waited = 0;; waited += READY_POLL_NS) {
        int st = 0;
        if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
            char tail[sizeof err->msg];
            idb_pid_unregister(s->pid);
            s->pid = 0;
            srv_log_tail(s->log, tail, sizeof tail);
            return idb_fail(err, IDB_EIO, "%s server exited while starting (log %s): %s",
                            s->kind->name, s->log, tail);
        }
        int ready = s->kind->ready(s);
        if (ready > 0) break;
        if (ready < 0) {
            srv_kill_tree(s->pid, 1);
            idb_pid_unregister(s->pid);
            s->pid = 0;
            return idb_fail(err, IDB_EIO, "%s server answers without a password although "
                            "it listens on TCP (log %s)", s->kind->name, s->log);
        }
        if (waited > (long)START_TIMEOUT_MS * NS_PER_MS) {
            srv_kill_tree(s->pid, 1);
            idb_pid_unregister(s->pid);
            s->pid = 0;
            return idb_fail(err, IDB_EIO, "%s server not ready after %d s (log %s)",
                            s->kind->name, START_TIMEOUT_MS / 1000, s->log);
        }
        ready_sleep();
    }
    s->ready = 1;
    return srv_record_write(s, err);
}

/* The version string "Product X.Y.Z" of kind k's server binary bin (its --version line,
 * after the kind's marker) into buf; "Product (unknown version)" when it does not say. */
void srv_version_of(const srv_kind *k, const char *bin, char *buf, size_t len)
{
    char line[256];
    snprintf(buf, len, "%s (unknown version)", k->product);
    if (srv_capture_version(bin, line, sizeof line) != 0) return;
    const char *v = strstr(line, k->version_marker);
    if (!v) return;
    v += strlen(k->version_marker);
    int n = (int)strcspn(v, " -,");
    snprintf(buf, len, "%s %.*s", k->product, n, v);
}

static void read_version(idb_server *s)
{
    srv_version_of(s->kind, s->bin[0], s->version, sizeof s->version);
}

/* s's directory made or opened safely (safedir.c) and given to the server user; its
 * record beside it (P/NAME.idbench-pid) opened and locked; the paths. */
static int open_dirs(idb_server *s, const idb_server_conf *c, idb_err *err)
{
    char abs[PATH_MAX];
    int rc = srv_dir_walk(c->dir, &s->cred, 1, &s->pfd, &s->dfd, err);
    if (!rc) rc = srv_dir_give(s->dfd, c->dir, &s->cred, err);
    if (rc) return rc;
    char fdpath[64];
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", s->dfd);
    ssize_t n = readlink(fdpath, abs, sizeof abs - 1);
    if (n <= 0 || n >= (ssize_t)sizeof abs - 1)
        return idb_fail(err, IDB_EIO, "%s: cannot resolve it", c->dir);
    abs[n] = 0;
    const char *base = strrchr(abs, '/') + 1;
    if (snprintf(s->dir, sizeof s->dir, "%s", abs) >= (int)sizeof s->dir ||
        snprintf(s->log, sizeof s->log, "%s/%s", abs, SRV_LOGFILE) >= (int)sizeof s->log ||
        snprintf(s->record, sizeof s->record, "%s%s", abs, SRV_RECORD_SUFFIX) >=
            (int)sizeof s->record ||
        snprintf(s->recname, sizeof s->recname, "%s%s", base, SRV_RECORD_SUFFIX) >=
            (int)sizeof s->recname)
        return idb_fail(err, IDB_EINPUT, "server dir too long: %s", c->dir);
    return srv_record_open(s, err);            /* stops a stale server of a killed run */
}

/* Fill s from c after the preflight: copies, paths, the socket directory, the port. */
static int prepare(idb_server *s, const idb_server_conf *c, idb_err *err)
{
    int rc = open_dirs(s, c, err);
    if (rc) return rc;
    s->settings = calloc((size_t)c->nsettings + 1, sizeof *s->settings);
    if (!s->settings) return idb_fail(err, IDB_ENOMEM, "out of memory");
    for (int i = 0; i < c->nsettings; i++, s->nsettings++)
        if (!(s->settings[i] = strdup(c->settings[i])))
            return idb_fail(err, IDB_ENOMEM, "out of memory");
    s->tcp = c->tcp;
    if (c->tcp && !(s->port = srv_free_port()))
        return idb_fail(err, IDB_EIO, "no free loopback TCP port");
    if ((c->secret && strlen(c->secret) >= sizeof s->secret) ||
        (c->clone_of && strlen(c->clone_of) >= sizeof s->clone_of))
        return idb_fail(err, IDB_EINPUT, "server password or clone_of too long");
    snprintf(s->secret, sizeof s->secret, "%s", c->tcp && c->secret ? c->secret : "");
    snprintf(s->clone_of, sizeof s->clone_of, "%s", c->clone_of ? c->clone_of : "");
    if ((rc = srv_secret_prepare(s, err))) return rc;   /* TCP: its password (secret.c) */
    idb_servers_sweep();                           /* what killed runs left in /tmp */
    if ((rc = srv_sockdir_make(s, err))) return rc;
    if (s->kind->socket_path(s) != 0)
        return idb_fail(err, IDB_EIO, "socket path too long in %s", s->sockdir);
    if ((rc = srv_record_write(s, err))) return rc;
    read_version(s);
    return 0;
}

int idb_server_start(const idb_server_conf *c, idb_server **out, idb_err *err)
{
    if (!owner) atexit(idb_servers_stop_all);  /* a return from main, an exit() */
    owner = getpid();
    idb_server *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    s->pfd = s->dfd = s->recfd = -1;
    int rc = srv_preflight(c, &s->kind, &s->cred, s->bin, err);
    if (!rc) rc = prepare(s, c, err);
    if (!rc && s->kind->init) rc = s->kind->init(s, err);
    if (!rc && !srv_init_only) rc = launch(s, err);
    if (rc) {
        idb_server_stop(s);
        return rc;
    }
    s->next = started;
    started = s;
    *out = s;
    return 0;
}

const char *idb_server_socket(const idb_server *s) { return s->socket; }
const char *idb_server_socket_dir(const idb_server *s) { return s->sockdir; }
int idb_server_port(const idb_server *s) { return s->port; }
const char *idb_server_user(const idb_server *s) { return s->kind->db_user; }
const char *idb_server_secret_file(const idb_server *s) { return s->secretfile; }
const char *idb_server_version(const idb_server *s) { return s->version; }
int idb_server_pid(const idb_server *s) { return (int)s->pid; }

long long idb_server_cpu_ns(const idb_server *s)
{
    return s->pid ? srv_proc_tree_cpu_ns(s->pid) : -1;
}

long long idb_server_child_cpu_ns(const idb_server *s, int pid)
{
    if (!s->pid || pid <= 0 || srv_proc_ppid(pid) != s->pid) return -1;
    return srv_proc_tree_cpu_ns(pid);
}

/* s's server has ended (stopped, killed or found dead) and is reaped: what is left of its
 * processes goes (a restart must not meet its old backends), then what its death left
 * outside its directory (the kind's gone hook: postgres's segment; nothing after a clean
 * shutdown). */
static void released(idb_server *s)
{
    srv_leftovers_gone(s->pid, srv_cred_uid(&s->cred), s->bin[0], s->dir, s->starttime);
    idb_pid_unregister(s->pid);
    s->pid = 0;
    if (s->kind->gone) s->kind->gone(s);
}

int idb_server_alive(idb_server *s)
{
    if (!s->pid) return 0;
    siginfo_t si = { 0 };
    if (waitid(P_PID, (id_t)s->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && !si.si_pid)
        return 1;
    kill(-s->pid, SIGKILL);                     /* what is left of its group, before reaping */
    while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR) {}
    released(s);
    return 0;
}

int idb_server_kill(idb_server *s, idb_err *err)
{
    if (!idb_server_alive(s))
        return idb_fail(err, IDB_EIO, "%s server is not running", s->kind->name);
    srv_kill_tree(s->pid, 1);
    released(s);
    return 0;
}

int idb_server_restart(idb_server *s, idb_err *err)
{
    if (idb_server_alive(s))
        return idb_fail(err, IDB_EINPUT, "%s server is still running", s->kind->name);
    return launch(s, err);
}

/* Take s off the list of started servers. */
static void unlist(idb_server *s)
{
    for (idb_server **p = &started; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            return;
        }
}

void idb_server_stop(idb_server *s)
{
    if (!s) return;
    unlist(s);
    if (s->pid && getpid() == owner) {          /* a fork child never stops the parent's */
        srv_stop_pid(s->pid, s->kind->stop_signal, 1, STOP_TIMEOUT_MS);
        released(s);                            /* it may have died before, unsaid */
    }
    if (s->sockdir[0]) idb_tmpdir_remove(s->sockdir);
    srv_record_close(s);
    if (s->dfd >= 0) close(s->dfd);
    if (s->pfd >= 0) close(s->pfd);
    for (int i = 0; i < s->nsettings; i++) free(s->settings[i]);
    free(s->settings);
    free(s);
}

void idb_servers_stop_all(void)
{
    if (getpid() != owner) started = NULL;      /* a fork child: not its servers */
    while (started) idb_server_stop(started);
}

void idb_servers_test_no_deathsig(int on) { srv_no_deathsig = on; }

int srv_truncate_conf;

int srv_init_only;

void idb_servers_test_truncate_conf(int on) { srv_truncate_conf = on; }

const srv_kind *srv_find_kind(const char *name) { return find_kind(name); }

const srv_kind *srv_kind_at(size_t i) { return i < NKINDS ? kinds[i] : NULL; }
