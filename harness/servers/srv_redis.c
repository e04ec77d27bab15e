/* srv_redis.c — the redis server kind: Redis 7 from Debian, DIR/redis.conf written at every
 * start (daemonize no, a Unix socket, port 0 unless TCP is asked, no RDB snapshots unless a
 * setting asks; the settings, e.g. appendonly/appendfsync, as given), ready when it answers
 * PING with PONG (not while it loads its append-only file).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "server_int.h"

#define REDIS_CONF_LEN 8192
#define REDIS_SOCKET "redis.sock"
#define PING_TIMEOUT_US 500000         /* a PING's answer during readiness polls */
#define PONG "+PONG"

/* The socket file: SOCKDIR/redis.sock. */
static int rd_socket_path(idb_server *s)
{
    int n = snprintf(s->socket, sizeof s->socket, "%s/" REDIS_SOCKET, s->sockdir);
    return n < 0 || n >= (int)sizeof s->socket ? -1 : 0;
}

/* DIR/redis.conf: foreground, paths, where it listens, then the settings as "name value". */
static int rd_conf(idb_server *s, idb_err *err)
{
    char text[REDIS_CONF_LEN], path[PATH_MAX + 16], name[128];
    int n = snprintf(text, sizeof text, "# written by idbench at every start\n"
                     "daemonize no\nsupervised no\ndir %s\nlogfile \"\"\nsave \"\"\n"
                     "unixsocket %s\nunixsocketperm 700\nport %d\nbind 127.0.0.1\n",
                     s->dir, s->socket, s->port);
    for (int i = 0; i < s->nsettings && n < (int)sizeof text; i++) {
        const char *v;
        if (srv_setting(s, i, name, sizeof name, &v) != 0)
            return idb_fail(err, IDB_EINPUT, "redis: bad setting '%s'", s->settings[i]);
        n += snprintf(text + n, sizeof text - (size_t)n, "%s %s\n", name, v);
    }
    if (n >= (int)sizeof text) return idb_fail(err, IDB_EINPUT, "redis: too many settings");
    snprintf(path, sizeof path, "%s/redis.conf", s->dir);
    return srv_write_file(s, path, text, err);
}

/* redis-server DIR/redis.conf, in the foreground. */
static void rd_argv(idb_server *s, const char **argv, size_t max)
{
    snprintf(s->arg[0], sizeof s->arg[0], "%s/redis.conf", s->dir);
    const char *a[] = { s->bin[0], s->arg[0] };
    for (size_t i = 0; i < sizeof a / sizeof *a && i < max; i++) argv[i] = a[i];
}

/* Ready when a PING on the socket is answered +PONG. */
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
    return n >= (ssize_t)strlen(PONG) && strncmp(buf, PONG, strlen(PONG)) == 0;
}

const srv_kind srv_redis = {
    .name = "redis",
    .user = "redis",
    .db_user = "default",
    .package = "redis-server",
    .bins = { { "IDBENCH_REDIS_SERVER", "/usr/bin/redis-server" } },
    .stop_signal = SIGTERM,
    .min_free_bytes = 64ull << 20,
    .version_marker = "v=",
    .product = "Redis",
    .socket_path = rd_socket_path,
    .init = NULL,
    .conf = rd_conf,
    .argv = rd_argv,
    .ready = rd_ready,
};
