/* srv_redis.c — the redis server kind: Redis 7 from Debian, DIR/redis.conf written at every
 * start (daemonize no, a Unix socket, port 0 unless TCP is asked, no RDB snapshots unless a
 * setting asks; the settings, e.g. appendonly/appendfsync, as given) with its paths and
 * listen settings on the command line too; with TCP the run's password in DIR/users.acl;
 * ready when it answers PING with PONG (-NOAUTH with TCP; not while it loads its
 * append-only file). The sentinel kind is the same binary in Sentinel mode (`redis-server
 * DIR/sentinel.conf --sentinel`, no other package): the same listen settings, the
 * settings as given ("sentinel=monitor NAME ..." lines), a config file Sentinel rewrites.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "server_int.h"

#define REDIS_MIN_FREE_BYTES (64ull << 20)  /* free space asked by the preflight: data, logs */
#define REDIS_CONF_LEN 8192
#define REDIS_SOCKET "redis.sock"
#define PING_TIMEOUT_US 500000         /* a PING's answer during readiness polls */
#define PONG "+PONG"
#define NOAUTH "-NOAUTH"               /* PING's answer when the password is asked */
#define RD_ACL "users.acl"             /* the default user's password, with TCP (rd_acl) */

/* The socket file: SOCKDIR/redis.sock. */
static int rd_socket_path(idb_server *s)
{
    int n = snprintf(s->socket, sizeof s->socket, "%s/" REDIS_SOCKET, s->sockdir);
    return n < 0 || n >= (int)sizeof s->socket ? -1 : 0;
}

/* The paths and listen settings, the same in redis.conf and on the command line (rd_argv),
 * so that a redis.conf missing or cut short cannot fall back to port 6379 or another
 * directory: the value of setting i of RD_LISTEN (its name in rd_names) into value, ""
 * when it does not apply. With TCP the default user's password is in the ACL file
 * (rd_acl), which redis refuses to start without. */
#define RD_LISTEN 7
static const struct { const char *name, *flag; } rd_names[RD_LISTEN] = {
    { "dir", "--dir" }, { "unixsocket", "--unixsocket" },
    { "unixsocketperm", "--unixsocketperm" }, { "port", "--port" }, { "bind", "--bind" },
    { "protected-mode", "--protected-mode" }, { "aclfile", "--aclfile" },
};
static void rd_listen(const idb_server *s, int i, char *value, size_t len)
{
    switch (i) {
    case 0: snprintf(value, len, "%s", s->dir); break;
    case 1: snprintf(value, len, "%s", s->socket); break;
    case 2: snprintf(value, len, "700"); break;
    case 3: snprintf(value, len, "%d", s->port); break;
    case 4: snprintf(value, len, SRV_LOOPBACK); break;
    case 5: snprintf(value, len, "yes"); break;
    default: snprintf(value, len, "%s%s%s", s->secret[0] ? s->dir : "",
                      s->secret[0] ? "/" : "", s->secret[0] ? RD_ACL : ""); break;
    }
}

/* DIR/users.acl (with TCP only): the default user with the run's password, on the socket
 * and on TCP alike. */
static int rd_acl(idb_server *s, idb_err *err)
{
    char text[REDIS_CONF_LEN], path[PATH_MAX + 16];
    if (!s->secret[0]) return 0;
    snprintf(text, sizeof text, "user default on >%s ~* &* +@all\n", s->secret);
    snprintf(path, sizeof path, "%s/" RD_ACL, s->dir);
    return srv_write_private(s, path, text, err);
}

/* DIR/FILE (the kind's conf_file): foreground, paths, where it listens (rd_listen), then
 * the settings as "name value"; and the ACL file (rd_acl). */
static int rd_conf(idb_server *s, idb_err *err)
{
    int sentinel = strcmp(s->kind->name, "sentinel") == 0;
    char text[REDIS_CONF_LEN], path[PATH_MAX + 16], name[128], value[PATH_MAX + 16];
    int n = snprintf(text, sizeof text, "# written by idbench at every start\n"
                     "daemonize no\nsupervised no\nlogfile \"\"\n%s", sentinel ? ""
                     : "save \"\"\n");
    for (int i = 0; i < RD_LISTEN && n < (int)sizeof text; i++) {
        rd_listen(s, i, value, sizeof value);
        if (value[0])
            n += snprintf(text + n, sizeof text - (size_t)n, "%s %s\n", rd_names[i].name,
                          value);
    }
    for (int i = 0; i < s->nsettings && n < (int)sizeof text; i++) {
        const char *v;
        if (srv_setting(s, i, name, sizeof name, &v) != 0)
            return idb_fail(err, IDB_EINPUT, "redis: bad setting '%s'", s->settings[i]);
        n += snprintf(text + n, sizeof text - (size_t)n, "%s %s\n", name, v);
    }
    if (n >= (int)sizeof text) return idb_fail(err, IDB_EINPUT, "redis: too many settings");
    snprintf(path, sizeof path, "%s/%s", s->dir, s->kind->conf_file);
    int rc = srv_write_file(s, path, text, err);
    return rc ? rc : rd_acl(s, err);
}

/* redis-server DIR/redis.conf --NAME VALUE... (rd_listen's), in the foreground; the
 * sentinel kind: redis-server DIR/sentinel.conf --sentinel --NAME VALUE... */
static void rd_argv(idb_server *s, const char **argv, size_t max)
{
    size_t n = 0, a = 1;
    snprintf(s->arg[0], sizeof s->arg[0], "%s/%s", s->dir, s->kind->conf_file);
    argv[n++] = s->bin[0];
    argv[n++] = s->arg[0];
    if (strcmp(s->kind->name, "sentinel") == 0) argv[n++] = "--sentinel";
    for (int i = 0; i < RD_LISTEN && a < SRV_ARGS_MAX && n + 1 < max; i++) {
        rd_listen(s, i, s->arg[a], sizeof s->arg[a]);
        if (!s->arg[a][0]) continue;
        argv[n++] = rd_names[i].flag;
        argv[n++] = s->arg[a++];
    }
}

/* Ready when a PING on the socket is answered +PONG; with TCP, when it is refused for
 * want of the password (-NOAUTH), and -1 (not what was asked) when it is answered. */
static int rd_ready(idb_server *s)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    struct timeval tv = { 0, PING_TIMEOUT_US };
    char buf[16] = "";
    memcpy(a.sun_path, s->socket, strlen(s->socket) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ssize_t n = -1;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        write(fd, "PING\r\n", strlen("PING\r\n")) > 0)
        n = read(fd, buf, sizeof buf - 1);
    close(fd);
    int pong = n >= (ssize_t)strlen(PONG) && strncmp(buf, PONG, strlen(PONG)) == 0;
    if (!s->secret[0]) return pong;
    if (pong) return -1;
    return n >= (ssize_t)strlen(NOAUTH) && strncmp(buf, NOAUTH, strlen(NOAUTH)) == 0;
}

const srv_kind srv_redis = {
    .name = "redis",
    .user = "redis",
    .db_user = "default",
    .package = "redis-server",
    .bins = { { "IDBENCH_REDIS_SERVER", "/usr/bin/redis-server" } },
    .stop_signal = SIGTERM,
    .min_free_bytes = REDIS_MIN_FREE_BYTES,
    .version_marker = "v=",
    .product = "Redis",
    .conf_file = "redis.conf",
    .socket_path = rd_socket_path,
    .init = NULL,
    .conf = rd_conf,
    .argv = rd_argv,
    .ready = rd_ready,
};

/* Redis Sentinel (counter replicas=R with sentinel=1, runner/ctrsrv_repl.c). */
const srv_kind srv_sentinel = {
    .name = "sentinel",
    .user = "redis",
    .db_user = "default",
    .package = "redis-server",
    .bins = { { "IDBENCH_REDIS_SENTINEL", "/usr/bin/redis-server" } },
    .stop_signal = SIGTERM,
    .min_free_bytes = REDIS_MIN_FREE_BYTES,
    .version_marker = "v=",
    .product = "Redis",
    .conf_file = "sentinel.conf",
    .socket_path = rd_socket_path,
    .init = NULL,
    .conf = rd_conf,
    .argv = rd_argv,
    .ready = rd_ready,
};
